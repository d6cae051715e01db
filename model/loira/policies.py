"""Practical policies for Loira: simple stop heuristics and a one-step lookahead.

Each policy decides the turn's go/stop question its own way; every other decision (escort, escape,
targets, mini-expansion choices, the Interruptor) is made by the same greedy rules (``greedy.py``), so that
policies differ only in when they stop. Policies see only public information: the state holds the
centre as a belief (``model.loira.centre``), never a card nobody has seen.
"""
from __future__ import annotations

from typing import Callable

from .greedy import _all_others_stopped, expected_after_draw, greedy, margin
from .scoring import score
from .state import GO, GRITOS, PH, STOP_ACT, SWITCH, TURN, Phase

Policy = Callable[[tuple], int]


def _turn_choice(rule: Callable[[object, tuple, int], bool]) -> Callable[[object], Policy]:
    """Build a policy from a stop rule ``rule(game, state, seat) -> stop?``."""
    def factory(g) -> Policy:
        def policy(s):
            acts = g.legal_actions(s)
            if s[PH] == Phase.TURN and GO in acts and STOP_ACT in acts:
                seat = s[TURN]
                if SWITCH in acts and margin(g, s, seat) > 0:
                    return SWITCH
                if _all_others_stopped(g, s, seat):   # the endgame is decided by the margin
                    return STOP_ACT if margin(g, s, seat) > 0 else GO
                return STOP_ACT if rule(g, s, seat) else GO
            return greedy(g, s)
        return policy
    return factory


def stop_at(k: int):
    return _turn_choice(lambda g, s, seat: score(g, s, seat) >= k)


def _never_before_grito(g, s, seat) -> bool:
    return s[GRITOS] >= 1 and margin(g, s, seat) > 0


def _lookahead(g, s, seat) -> bool:
    return expected_after_draw(g, s, seat) <= score(g, s, seat)


def _table_rule(g, s, seat) -> bool:
    from .table import table_rule
    return table_rule(g, s, seat)


def _lookahead_margin(g, s, seat) -> bool:
    return expected_after_draw(g, s, seat, margin) <= margin(g, s, seat)


def _near_optimal(g) -> Policy:
    from .nearopt import near_optimal   # it builds on this module's greedy rules
    return near_optimal(g)


POLICIES: dict[str, Callable] = {
    **{f"stop-at-{k}": stop_at(k) for k in (3, 4, 5, 6, 7, 8, 10, 12)},
    "never-before-grito": _turn_choice(_never_before_grito),
    "lead": _turn_choice(lambda g, s, seat: margin(g, s, seat) > 0),
    "lookahead": _turn_choice(_lookahead),
    "lookahead-margin": _turn_choice(_lookahead_margin),
    "table": _turn_choice(lambda g, s, seat: _table_rule(g, s, seat)),
    "always-go": _turn_choice(lambda g, s, seat: False),
    "near-optimal": _near_optimal,
}

__all__ = ["POLICIES", "greedy", "expected_after_draw", "margin", "stop_at"]
