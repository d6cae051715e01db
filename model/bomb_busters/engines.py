"""Bomb Busters' parts for the commands: ``deduce`` (a view file) and its text form, and the
``solve`` engine (exact policy values).

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

from ruleproof.model.ruleset import RulesetError
from ruleproof.model.seams import Deduction, Engine, SolveOptions, SolveResult

from .deduce import NoDeal, TooLarge, deduce
from .report import report
from .view import load_view


def deduce_file(path) -> dict[str, Any]:
    pos = load_view(Path(path))
    start = time.process_time()  # CPU time of the engine, the tables and the Duplo table
    try:
        out = report(deduce(pos))
    except NoDeal as exc:
        raise RulesetError(str(path), "hands", f"{exc} (the facts contradict each other)") from None
    except TooLarge as exc:
        raise RulesetError(str(path), "hands", f"too large to deduce exactly: {exc}") from None
    out["config"] = {"view": str(path), "viewer": out["viewer"],
                     "mission": {"blue_values": pos.blue_values, "blue_copies": pos.blue_copies,
                                 "red_in_play": pos.red_in_play, "yellow_in_play": pos.yellow_in_play}}
    out["ruleset"] = "view file"
    out["compute_seconds"] = round(time.process_time() - start, 4)
    return out


def deduce_text(res: dict[str, Any], top: int = 12) -> str:
    lines = [f"viewer {res['viewer']}: {res['hidden_wires']} hidden wires, {res['deals']} consistent deals "
             f"({res.get('compute_seconds', res['engine_seconds'])} s of compute)"]
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


def solve(ruleset, options: SolveOptions, progress=None) -> SolveResult:
    from ruleproof.solver.explore import explore
    from ruleproof.solver.solve import solve as solve_graph

    from .game import build
    from .policy import POLICIES, EvaluationLimit, exact_win_probability

    game = build(ruleset)
    m = game.mission
    method = "exact evaluation of the likely policy over every deal"
    policies: dict[str, dict[str, Any]] = {}
    states = 0
    values: dict[str, Fraction] = {}
    for name in ("likely", "likely-equipment"):
        try:
            value, visited = exact_win_probability(game, POLICIES[name](game), options.max_states,
                                                   options.remaining())
        except EvaluationLimit as exc:
            return SolveResult.stopped(f"evaluating policy {name!r}: {exc}", max(states, exc.states), method,
                                       policies=policies)
        states = max(states, visited)
        values[name] = value
        policies[name] = {"fraction": str(value), "float": float(value), "states": visited}
        if progress is not None:
            progress("policies", len(policies), 2)
    ex = explore(game, max_states=options.states(500_000), timeout=options.remaining(),
                 check_invariants=options.check_invariants)
    bound = None
    extras: dict[str, Any] = {"policy": "likely", "policies": policies}
    if ex.complete:
        sol = solve_graph(ex, exact=True)
        v = sol.initial_exact[0] if sol.initial_exact else Fraction(sol.initial[0])
        bound = {"fraction": str(v), "float": float(v), "states": ex.num_states}
    else:
        extras["bound_note"] = f"perfect-information bound not computed: {ex.stop_reason}"
    extras["perfect_information_bound"] = bound
    meaning = ("the team's exact win probability under 'likely' (most likely cut, each player using "
               "only their own view) over every deal; the perfect-information bound lets every player "
               "see every wire")
    files: tuple[str, ...] = ()
    if options.out_dir is not None:
        _write_values(options.out_dir, {"values": [policies["likely"]] * m.players, "method": method, **extras},
                      policies, bound)
        files = (str(options.out_dir / "policy_values.json"), str(options.out_dir / "policy_values.csv"))
    return SolveResult((values["likely"],) * m.players, "policy-value", True, states, method,
                       extras=extras, files=files, value_meaning=meaning)


def _too_big(ruleset, options: SolveOptions) -> str | None:
    from .mission import Mission
    wires = Mission.from_ruleset(ruleset).total_wires
    if wires > 9:
        return (f"{ruleset.name} has {wires} wires: exact policy values are for tiny missions (at most 9 "
                "wires; e.g. 'ruleproof solve bomb-busters-tiny'); use 'ruleproof simulate' for this one")
    return None


ENGINE = Engine("policy-evaluation", _too_big, solve)
ENGINES = (ENGINE,)
DEDUCTION = Deduction("a Bomb Busters VIEW.json position file", deduce_file, deduce_text)


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
