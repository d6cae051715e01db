"""The Z3 harness: proofs that hold, and failures that come back as readable situations."""
from __future__ import annotations

import z3

from ruleproof.proofs.harness import Action, check_inductive, optimize_bound, prove


def frame(suffix):
    return {"x": z3.Int("x" + suffix), "y": z3.Int("y" + suffix)}


def test_inductive_invariant_holds_and_fails_with_the_breaking_action():
    swap = Action("swap", lambda s, t: z3.And(t["x"] == s["y"], t["y"] == s["x"]))
    shift = Action("shift", lambda s, t: z3.And(t["x"] == s["x"] + 1, t["y"] == s["y"] + 1))
    bump = Action("bump", lambda s, t: z3.And(t["x"] == s["x"] + 1, t["y"] == s["y"]))
    init = lambda s: z3.And(s["x"] == 0, s["y"] == 0)  # noqa: E731
    inv = lambda s: s["x"] + s["y"] >= 0  # noqa: E731
    ok = check_inductive("sum-nonneg", frame, init, inv, [swap, shift])
    assert ok.status == "holds"
    equal = check_inductive("equal", frame, init, lambda s: s["x"] == s["y"], [swap, shift, bump])
    assert equal.status == "fails" and equal.data["action"] == "bump"
    assert equal.counterexample[0].startswith("before: x=") and equal.counterexample[1].startswith("after:")


def test_prove_and_optimize():
    assert prove("square", frame, lambda s: s["x"] * s["x"] >= 0).status == "holds"
    bad = prove("positive", frame, lambda s: s["x"] > 0)
    assert bad.status == "fails" and "x=" in bad.counterexample[0]
    result, lo, hi, witnesses = optimize_bound(
        "bounds", frame, lambda s: 3 * s["x"] - s["y"],
        lambda s: z3.And(s["x"] >= 0, s["x"] <= 4, s["y"] >= -1, s["y"] <= 2))
    assert (lo, hi) == (-2, 13) and result.status == "holds"
    assert "x=4" in witnesses["max"][0] and "y=-1" in witnesses["max"][0]
