"""Exhaustive checks for Bomb Busters on tiny missions: the invariants at every reachable state and
the longest play in turns against the proved ``termination_bound``.

``verify`` explores its own configuration already; these add the tiny mission when the ruleset is
bigger, and a yellow "2 de 3" mission, each named in its results' scope. Within the user's limits
(what a limit stops is unknown).
"""
from __future__ import annotations

import time
from dataclasses import replace

from ruleproof.proofs.bomb_busters import termination_bound
from ruleproof.model.limits import NO_LIMITS, Limits
from ruleproof.model.results import FAILS, HOLDS, UNKNOWN, PropertyResult

#: each exhaustive check of a tiny mission stops (unknown) beyond this many states or seconds
EXPLORE_STATES, EXPLORE_SECONDS = 200_000, 60.0


#: finished checks by mission, so that the missions ``verify`` derives from one ruleset (each asks
#: for the yellow mission again) are explored once per process
_DONE: dict[tuple, list[PropertyResult]] = {}


def exhaustive_checks(label: str, ruleset, limits: Limits = NO_LIMITS, where: str = "") -> list[PropertyResult]:
    """``where`` names the mission explored in the results' scope (default: the ruleset's name)."""
    key = (label, where, ruleset.name, repr(sorted(ruleset.params.items())), repr(sorted(ruleset.rulings.items())),
           limits.max_states)
    if key not in _DONE:
        results = _exhaustive_checks(label, ruleset, limits, where)
        if any(r.status == UNKNOWN for r in results):
            return results
        _DONE[key] = results
    return [replace(r, data=dict(r.data)) for r in _DONE[key]]


def _exhaustive_checks(label: str, ruleset, limits: Limits, where: str) -> list[PropertyResult]:
    from ruleproof.model.bomb_busters import build
    from ruleproof.model.bomb_busters.rules import Kind
    from ruleproof.solver.explore import explore

    names = (f"exhaustive invariants ({label})", f"termination-within-bound ({label})")
    if limits.expired():
        return [limits.not_run(name, "exhaustive") for name in names]
    start = time.perf_counter()
    game = build(ruleset)
    left = limits.remaining()
    ex = explore(game, max_states=limits.states(EXPLORE_STATES),
                 timeout=EXPLORE_SECONDS if left is None else min(EXPLORE_SECONDS, left))
    out = []
    if not ex.complete:
        reason = f"{ex.num_states} states explored before the {ex.stop_reason}"
        return [PropertyResult(name, UNKNOWN, reason, kind="exhaustive", scope=where or ruleset.name)
                for name in names]
    scope = f"{where or ruleset.name}: {ex.num_states:,} states"
    bad = dict(ex.violations)
    status = FAILS if bad else HOLDS
    trace = None
    if bad:
        v = next(iter(bad.values()))
        trace = ex.narrate(v.node, f"violated {v.name}: {v.reason}")
    out.append(PropertyResult(f"exhaustive invariants ({label})", status,
                              f"{ex.num_states} states: {', '.join(i.name for i in game.invariants())}, "
                              "legal-actions (deadlock freedom)", trace, "exhaustive",
                              time.perf_counter() - start, {"states": ex.num_states}, scope))
    # the longest play, counted in turns (dual/solo cut, reveal, Detector Duplo)
    turn_kinds = (Kind.DUAL, Kind.SOLO, Kind.REVEAL, Kind.DUPLO)
    longest = [0] * ex.num_states
    order = _topological(ex)
    for node in reversed(order):
        best = 0
        for e in ex.edges(node):
            a = ex.action[e]
            step = 1 if ex.prob[e] is None and isinstance(a, tuple) and a[0] in turn_kinds else 0
            best = max(best, step + longest[ex.child[e]])
        longest[node] = best
    m = game.mission
    bound = termination_bound(m)
    ok = longest[0] <= bound
    out.append(PropertyResult(f"termination-within-bound ({label})", HOLDS if ok else FAILS,
                              f"longest play {longest[0]} turns; proved bound {bound}; "
                              f"the issue's wires/2 + skull = {m.total_wires / 2 + m.skull:g}",
                              kind="exhaustive", data={"longest_turns": longest[0], "bound": bound,
                                                       "longest_play": _longest_trace(ex, longest, turn_kinds)},
                              scope=scope))
    return out


def _longest_trace(ex, longest: list[int], turn_kinds) -> list[str]:
    """One play of maximal length in turns, narrated (chance and choices alike)."""
    game, node, lines = ex.game, 0, []
    while True:
        edges = list(ex.edges(node))
        if not edges:
            lines.append(f"end: {game.describe_state(ex.state(node))}")
            return lines
        def gain(e):
            a = ex.action[e]
            step = 1 if ex.prob[e] is None and isinstance(a, tuple) and a[0] in turn_kinds else 0
            return step + longest[ex.child[e]]
        best = max(edges, key=gain)
        who = game.seat_name(int(ex.kind[node]))
        lines.append(f"{who}: {game.describe_action(ex.state(node), ex.action[best])}")
        node = ex.child[best]


def _topological(ex) -> list[int]:
    n = ex.num_states
    seen = bytearray(n)
    order = []
    for root in range(n):
        if seen[root]:
            continue
        seen[root] = 1
        stack = [(root, iter(ex.edges(root)))]
        while stack:
            node, it = stack[-1]
            for e in it:
                c = ex.child[e]
                if not seen[c]:
                    seen[c] = 1
                    stack.append((c, iter(ex.edges(c))))
                    break
            else:
                order.append(node)
                stack.pop()
    return order[::-1]


def checks(ruleset, limits: Limits | None = None) -> list[PropertyResult]:
    from ruleproof.model.bomb_busters import SPEC, YELLOW_OVERRIDES
    from ruleproof.model.bomb_busters.mission import Mission

    limits = limits or NO_LIMITS
    m = Mission.from_ruleset(ruleset)
    out: list[PropertyResult] = []
    if m.total_wires <= 6:
        out += exhaustive_checks("this mission", ruleset, limits)
    else:
        out += exhaustive_checks("bomb-busters-tiny", SPEC.ruleset("bomb-busters-tiny"), limits)
    yellow = SPEC.default().with_overrides(YELLOW_OVERRIDES, spec=SPEC.schema, source="yellow mission")
    out += exhaustive_checks("yellow '2 de 3' mission", yellow, limits,
                             "yellow '2 de 3' mission (2 experts, blue 1 twice, red 1.5, yellow 2 of 1.1 2.1 3.1, "
                             "skull at 2)")
    return out
