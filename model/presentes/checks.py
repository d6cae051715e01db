"""``SPEC.checks``: the Z3 proofs and the graph checks ``ruleproof verify presentes`` runs.

The graph checks run on the ruleset's own configuration (when it is small) and on 2 players on
every official board with 1 and 2 dice (the same rulings and parameters otherwise). The user's
limits cap every graph and Z3 call; a check the deadline stops, or would start after, is unknown.
"""
from __future__ import annotations

import time
from typing import Sequence

from model.ruleset import Ruleset
from proofs import presentes as zp
from solver.limits import NO_LIMITS, Limits
from solver.report import PropertyResult

from .board import OFFICIAL
from .config import SCHEMA, build, rules_of
from .graphcheck import graph_checks

#: the Z3 gift proofs use this many seats at most (the argument does not depend on the count)
Z3_SEATS = 5
#: the graph checks of the ruleset's own configuration stop (unknown) beyond this many states
OWN_GRAPH_LIMIT = 600_000
#: ... and those of the official boards beyond this many (the largest has about 263,000)
BOARD_GRAPH_LIMIT = 3_000_000


def checks(ruleset: Ruleset, all_boards: bool = True, limits: Limits | None = None
           ) -> Sequence[PropertyResult]:
    limits = limits or NO_LIMITS
    rules, board = rules_of(ruleset)
    k = min(rules.players, Z3_SEATS)
    out: list[PropertyResult] = [zp.conservation_proof(k, limits), zp.tree_nonempty_proof(k, limits),
                                 zp.shield_proof(k, limits)]
    out += zp.no_effect_proof(k, rules.sneak_range, rules.sneak_ahead_only, rules.sneak_without_gift, limits,
                              own_leader=rules.own_leader, leader_by_gift=rules.leader_by_gift)
    out += zp.chain_bound_proof(rules.max_landings, limits)
    out += zp.termination_proof(rules.back, rules.dice, rules.players, rules.finish, rules.bounce, limits,
                                redraw=rules.redraw)
    if rules.players <= 3 and board.size <= 40:
        label = f"{board.name}, {rules.players} players, {_dice(1 if len(rules.dice) == 6 else 2)}"
        if limits.expired():
            out.append(limits.not_run(f"termination-every-policy [{label}]", "graph"))
        else:
            out += graph_checks(build(ruleset), label, max_states=limits.states(OWN_GRAPH_LIMIT),
                                limits=limits)
    if all_boards:
        for name in OFFICIAL:
            for dice in (1, 2):
                label = f"{name}, 2 players, {_dice(dice)}"
                if limits.expired():
                    out.append(limits.not_run(f"termination-every-policy [{label}]", "graph"))
                    continue
                params = {"players": 2, "board": name, "dice": dice, "focal_seat": -1,
                          "host_remove": [], "host_skip": ()}
                small = ruleset.with_overrides(params, spec=SCHEMA)
                start = time.perf_counter()
                res = graph_checks(build(small), label, max_states=limits.states(BOARD_GRAPH_LIMIT),
                                   symmetric=True, limits=limits)
                out.append(_only_termination(res, time.perf_counter() - start))
    return out


def _dice(count: int) -> str:
    return "1 die" if count == 1 else f"{count} dice"


def _only_termination(results: list[PropertyResult], seconds: float) -> PropertyResult:
    term = next(r for r in results if r.name.startswith("termination"))
    others = [r for r in results if r is not term and not r.ok]
    if others:  # a shield or P23 finding on a big board is reported with the termination result
        term = PropertyResult(term.name, others[0].status, others[0].detail, others[0].counterexample,
                              others[0].kind, seconds)
    term.seconds = seconds
    return term
