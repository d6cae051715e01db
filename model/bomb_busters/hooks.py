"""The CLI hooks: ``deduce`` (a view file), its text form, and ``solve`` (exact policy values).

Bomb Busters is cooperative with private hands, so "solving" it means evaluating team policies
that act on each player's own view: ``solve`` gives the exact win probability of each named
policy over every deal of a (tiny) mission, and the perfect-information value (every hand open to
everyone, found by the generic solver) as an upper bound no team can beat.
"""
from __future__ import annotations

import csv
import json
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from model.ruleset import RulesetError

from .deduce import NoDeal, deduce, report
from .view import load_view


def deduce_file(path) -> dict[str, Any]:
    pos = load_view(Path(path))
    try:
        out = report(deduce(pos))
    except NoDeal as exc:
        raise RulesetError(str(path), "hands", f"{exc} (the facts contradict each other)") from None
    out["config"] = {"view": str(path), "viewer": out["viewer"],
                     "mission": {"blue_values": pos.blue_values, "blue_copies": pos.blue_copies,
                                 "red_in_play": pos.red_in_play, "yellow_in_play": pos.yellow_in_play}}
    out["ruleset"] = "view file"
    return out


def deduce_text(res: dict[str, Any], top: int = 12) -> str:
    lines = [f"viewer {res['viewer']}: {res['hidden_wires']} hidden wires, {res['deals']} consistent deals "
             f"({res['engine_seconds']} s)"]
    if res["facts"]:
        lines.append("certain: " + "; ".join(res["facts"]))
    if not res["plays"]:
        lines.append("no dual cut to make: every teammate wire is cut")
        return "\n".join(lines)
    lines.append(f"dual cuts, best first (top {min(top, len(res['plays']))} of {len(res['plays'])}):")
    for p in res["plays"][:top]:
        lines.append(f"  {p['hand']} rack {p['rack']} slot {p['slot']:>2} is {p['name']:>6}: "
                     f"success {p['success']['float']:.4f} = {p['success']['fraction']}, "
                     f"red risk {p['red_risk']['float']:.4f}")
    if res.get("duplo_plays"):
        lines.append("detector duplo (two wires of one rack, one value), best first:")
        for p in res["duplo_plays"][:5]:
            lines.append(f"  {p['hand']} rack {p['rack']} slots {p['slots'][0]},{p['slots'][1]} is {p['name']:>3}: "
                         f"success {p['success']['float']:.4f} = {p['success']['fraction']}, "
                         f"both red {p['explosion']['float']:.4f}")
    lines.append("positions (top values; exact fractions with --json):")
    for e in res["positions"]:
        dist = ", ".join(f"{t}:{v['float']:.3f}" for t, v in
                         sorted(e["probabilities"].items(), key=lambda kv: -kv[1]["float"])[:4])
        more = "" if len(e["probabilities"]) <= 4 else f", +{len(e['probabilities']) - 4} more"
        lines.append(f"  {e['hand']} rack {e['rack']} slot {e['slot']:>2} {e['shown']:>5}: {dist}{more}")
    return "\n".join(lines)


def solve(ruleset, options: dict, out_dir: Path | None, progress=None) -> dict[str, Any]:
    from solver.explore import explore
    from solver.solve import solve as solve_graph

    from . import build
    from .policy import POLICIES, EvaluationLimit, exact_win_probability

    start = time.perf_counter()
    game = build(ruleset)
    m = game.mission
    if m.total_wires > 9:
        # the ruleset is fine; this command cannot handle its size (the command is to blame)
        raise RulesetError("command line", "solve",
                           f"{ruleset.name} has {m.total_wires} wires: exact policy values are for tiny "
                           "missions (at most 9 wires; e.g. 'ruleproof solve bomb-busters-tiny'); use "
                           "'ruleproof simulate' for this one")
    if out_dir is not None:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RulesetError("command line", "--out", f"cannot use {str(out_dir)!r} as the output "
                               f"folder ({exc.strerror or exc})") from None
    max_states, timeout = options.get("max_states"), options.get("timeout")
    if max_states is not None and max_states < 1:
        raise RulesetError("command line", "--max-states", f"must be a positive number of states, not {max_states}")
    if timeout is not None and not timeout > 0:
        raise RulesetError("command line", "--timeout", f"must be a positive number of seconds, not {timeout}")

    def left() -> float | None:
        return None if timeout is None else max(0.0, timeout - (time.perf_counter() - start))
    policies: dict[str, dict[str, Any]] = {}
    states = 0
    for name in ("likely", "likely-equipment"):
        try:
            value, visited = exact_win_probability(game, POLICIES[name](game), max_states, left())
        except EvaluationLimit as exc:
            return {"partial": True, "values": None, "states": max(states, exc.states), "policies": policies,
                    "reason": f"evaluating policy {name!r}: {exc}", "seconds": time.perf_counter() - start}
        states = max(states, visited)
        policies[name] = {"fraction": str(value), "float": float(value), "states": visited}
        if progress is not None:
            progress("policies", len(policies), 2)
    ex = explore(game, max_states=max_states or 500_000, timeout=left(),
                 check_invariants=options.get("check_invariants", True))
    bound = None
    bound_note = None
    if ex.complete:
        sol = solve_graph(ex, exact=True)
        v = sol.initial_exact[0] if sol.initial_exact else Fraction(sol.initial[0])
        bound = {"fraction": str(v), "float": float(v), "states": ex.num_states}
    else:
        bound_note = f"perfect-information bound not computed: {ex.stop_reason}"
    best = policies["likely"]
    values = [{"fraction": best["fraction"], "float": best["float"]} for _ in range(m.players)]
    result = {"values": values, "states": states, "method": "exact evaluation of the likely policy over every deal",
              "policy": "likely", "policies": policies,
              "perfect_information_bound": bound, **({"bound_note": bound_note} if bound_note else {}),
              "note": "values: exact team win probability of 'likely' (most likely cut, each player "
                      "using only their own view) over every deal; the bound lets every player see "
                      "every wire", "seconds": time.perf_counter() - start}
    if out_dir is not None:
        try:
            _write_values(out_dir, result, policies, bound)
        except OSError as exc:
            raise RulesetError("command line", "--out", f"cannot write into {str(out_dir)!r} "
                               f"({exc.strerror or exc})") from None
        result["files"] = [str(out_dir / "policy_values.json"), str(out_dir / "policy_values.csv")]
    return result


def _write_values(out_dir: Path, result: dict[str, Any], policies: dict[str, dict[str, Any]],
                  bound: dict[str, Any] | None) -> None:
    (out_dir / "policy_values.json").write_text(json.dumps(result, indent=1) + "\n")
    with open(out_dir / "policy_values.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["policy", "win_probability", "float", "states"])
        for name, p in policies.items():
            w.writerow([name, p["fraction"], p["float"], p["states"]])
        if bound:
            w.writerow(["perfect-information bound", bound["fraction"], bound["float"], bound["states"]])
