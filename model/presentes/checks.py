"""``SPEC.checks``: the graph checks ``ruleproof verify presentes`` runs beside the explorer's.

The Z3 proofs are ``SPEC.proofs`` (``proofs.presentes``, bound to the model by refinement). The
graph checks here run on the ruleset's own configuration (when it is small) and, for a ruleset on
an official board (the full-size game), on 2 players on every official board with 1 and 2 dice
(the same rulings and parameters otherwise): graph-exhaustive evidence on those boards. That
sweep explores up to about 263,000 states per board, so the default small configuration (the
hand-drawn 'mini' board) leaves it out; ``all_boards=True`` asks for it anyway. The user's limits
cap every graph; a check the deadline stops, or would start after, is unknown.
"""
from __future__ import annotations

import time
from typing import Sequence

from ruleproof.model.ruleset import Ruleset
from ruleproof.model.limits import NO_LIMITS, Limits
from ruleproof.model.results import PropertyResult

from .board import OFFICIAL
from .config import SCHEMA, build, rules_of
from .graphcheck import graph_checks

#: the graph checks of the ruleset's own configuration stop (unknown) beyond this many states
OWN_GRAPH_LIMIT = 600_000
#: ... and those of the official boards beyond this many (the largest has about 263,000)
BOARD_GRAPH_LIMIT = 3_000_000


def checks(ruleset: Ruleset, all_boards: bool | None = None, limits: Limits | None = None
           ) -> Sequence[PropertyResult]:
    """``all_boards``: sweep the official boards (default: when the ruleset is on one of them)."""
    limits = limits or NO_LIMITS
    rules, board = rules_of(ruleset)
    if all_boards is None:
        all_boards = board.name in OFFICIAL
    out: list[PropertyResult] = []
    own = None
    if rules.players <= 3 and board.size <= 40:
        own = (board.name, rules.players, 1 if len(rules.dice) == 6 else 2)
        label = f"{board.name}, {rules.players} players, {_dice(own[2])}"
        limits.report(f"termination-every-policy [{label}]", 0, None)
        if limits.expired():
            out.append(limits.not_run(f"termination-every-policy [{label}]", "graph"))
        else:
            out += graph_checks(build(ruleset), label, max_states=limits.states(OWN_GRAPH_LIMIT),
                                limits=limits)
    if all_boards:
        for i, name in enumerate(OFFICIAL):
            for dice in (1, 2):
                if (name, 2, dice) == own and not ruleset.params["host_remove"] and not ruleset.params["host_skip"]:
                    continue  # the ruleset's own graph above is this one
                label = f"{name}, 2 players, {_dice(dice)}"
                limits.report(f"termination-every-policy [{label}]", 2 * i + dice - 1, 2 * len(OFFICIAL))
                if limits.expired():
                    out.append(limits.not_run(f"termination-every-policy [{label}]", "graph"))
                    continue
                params = {"players": 2, "board": name, "dice": dice, "focal_seat": -1,
                          "host_remove": [], "host_skip": ()}
                small = ruleset.with_overrides(params, spec=SCHEMA)
                start = time.perf_counter()
                res = graph_checks(build(small), label, max_states=limits.states(BOARD_GRAPH_LIMIT),
                                   symmetric=True, limits=limits)
                out.append(_only_termination(res, time.perf_counter() - start, label))
    return out


def _dice(count: int) -> str:
    return "1 die" if count == 1 else f"{count} dice"


def _only_termination(results: list[PropertyResult], seconds: float, label: str) -> PropertyResult:
    term = next(r for r in results if r.name.startswith("termination"))
    others = [r for r in results if r is not term and not r.ok]
    if term.ok and others:  # a shield or P23 finding on a big board is reported with the termination result
        term = PropertyResult(term.name, others[0].status, others[0].detail, others[0].counterexample,
                              others[0].kind, seconds)
    term.seconds = seconds
    term.scope = label  # a configuration of its own, not the ruleset's
    return term
