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


def test_a_function_action_is_checked_variable_by_variable_and_sliced_for_z3():
    from ruleproof.proofs.harness import function_action, reads
    from ruleproof.proofs.logic import If
    # x counts up to 3, y is a flag that follows it; the step says which variable it got wrong
    step = function_action("step", lambda s: s["x"] < 3,
                           lambda s: {"x": s["x"] + 1, "y": If(s["x"] + 1 == 3, 1, 0)})
    assert step.relation({"x": 1, "y": 0}, {"x": 2, "y": 0}) is True
    assert step.relation({"x": 2, "y": 0}, {"x": 3, "y": 0}) is False
    assert step.differences({"x": 2, "y": 0}, {"x": 3, "y": 0}) == ["y: the model 0, the rules 1"]
    assert step.relation({"x": 3, "y": 1}, {"x": 4, "y": 0}) is False and \
        step.differences({"x": 3, "y": 1}, {"x": 4, "y": 0}) == []   # the guard fails: no differences
    # Z3 gets only the equations of the variables a claim reads (a weaker relation: still proves it)
    pre, post = frame(""), frame("'")
    assert reads(post["x"] >= 0, post) == {"x"}
    solver = z3.Solver()
    solver.add(pre["x"] >= 0, step.sliced({"x"})(pre, post), post["x"] < 0)
    assert solver.check() == z3.unsat
    init = lambda s: z3.And(s["x"] == 0, s["y"] == 0)  # noqa: E731
    assert check_inductive("x in range", frame, init, lambda s: z3.And(s["x"] >= 0, s["x"] <= 3), [step]).status == "holds"
    bad = check_inductive("y never set", frame, init, lambda s: s["y"] == 0, [step])
    assert bad.status == "fails" and bad.data["action"] == "step"


def test_a_function_action_builds_its_z3_effect_once_for_every_proof_of_its_model():
    """Each proof builds its frames again; Z3 makes one node of each named constant, so a second
    proof (a second check_inductive) finds the effect built -- and a frame of other names does not."""
    import gc

    from ruleproof.proofs.harness import function_action
    built = []

    def effect(s):
        built.append(1)
        return {"x": s["x"] + 1}   # (reads no y: nothing else keeps the first frame's y alive)
    step = function_action("step", lambda s: s["x"] < 3, effect)
    init = lambda s: z3.And(s["x"] == 0, s["y"] == 0)  # noqa: E731
    claim = lambda s: z3.And(s["x"] >= 0, s["x"] <= 3)  # noqa: E731
    assert check_inductive("x in range", frame, init, claim, [step]).status == "holds"
    gc.collect()   # the first proof's frames are gone: the effect keeps the nodes its key names
    taken = [z3.Int(f"other{i}") for i in range(50)]   # new terms that could take freed ids
    assert check_inductive("x in range again", frame, init, claim, [step]).status == "holds"
    assert len(built) == 1 and taken
    other = {"x": z3.Int("x2"), "y": z3.Int("y2")}
    step.relation(other, {"x": z3.Int("x3"), "y": z3.Int("y3")})
    assert len(built) == 2


def test_a_conjunction_is_one_claim_with_parts_and_builds_its_z3_term_once():
    from ruleproof.proofs.logic import Conjunction
    calls = []

    def x_part(f):
        calls.append("x")
        return f["x"] >= 0
    conj = Conjunction(x_part, Conjunction(lambda f: f["y"] >= 0))
    assert len(conj.parts) == 2
    assert conj({"x": 1, "y": 2}) is True and conj({"x": 1, "y": -1}) is False
    f = frame("")
    assert conj(f) is conj(f) and calls.count("x") == 3   # two plain calls, one Z3 build
