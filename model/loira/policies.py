"""Practical policies for Loira: simple stop heuristics and a one-step lookahead.

Each policy decides the turn's go/stop question its own way; every other decision (escort, escape,
targets, mini-expansion choices, the Interruptor) is made by the same greedy rules below, so that
policies differ only in when they stop. Policies see only public information: the state holds the
centre as a belief (``model.loira.centre``), never a card nobody has seen.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable

from ruleproof.model.protocol import CHANCE, TERMINAL

from .scoring import score
from .state import GO, GRITOS, PH, RALO_PASS, SLOTS, STOP_ACT, SWITCH, TURN, VICTIM, YES, Phase

Policy = Callable[[tuple], int]


def _others(g, seat):
    return [t for t in range(g.num_players) if t != seat]


def margin(g, s, seat) -> int:
    """Own points minus the best opponent's."""
    return score(g, s, seat) - max(score(g, s, t) for t in _others(g, seat))


def _all_others_stopped(g, s, seat) -> bool:
    return all(g.stopped(s, t) for t in _others(g, seat))


def greedy(g, s) -> int:
    """The shared rules for every decision except go/stop."""
    ph, seat = s[PH], g.current_player(s)
    acts = list(g.legal_actions(s))
    if len(acts) == 1:
        return acts[0]
    if ph == Phase.TURN:
        if SWITCH in acts and margin(g, s, seat) > 0:
            return SWITCH            # end the round while leading
        ralo = [a for a in acts if RALO_PASS <= a < RALO_PASS + 16]
        if ralo:                     # hand the -2 to the leader among the others
            return max(ralo, key=lambda a: score(g, s, (seat + a - RALO_PASS) % g.num_players))
        return acts[-1] if acts[-1] >= 200 else GO
    if ph == Phase.ESCORT:
        return YES if escort_gain(g, s, seat) > 1 else 0
    if ph == Phase.ESCAPE:           # escape keeping the most points
        return max(acts, key=lambda a: (a != 0, _after_escape_score(g, s, a)))
    if ph in (Phase.FIOS, Phase.RAPAGOTE, Phase.STEAL):
        # aim at the richest opponent (most to lose to the Loira / most rolls)
        return max(acts, key=lambda a: (score(g, s, (s[TURN] + a) % g.num_players), -a))
    if ph in (Phase.DESCARGA, Phase.ZELADOR, Phase.PROFESSORA, Phase.DIRETORA):
        return max(acts, key=lambda a: (margin(g, g.apply(s, a), seat), -acts.index(a)))
    return YES if YES in acts else acts[0]   # open mini-expansion cards; kick; use the switch now


def _after_escape_score(g, s, a) -> int:
    if a == 0:
        return -1
    v1, v2 = (a - 1) // 3 % 3, (a - 1) % 3
    return score(g, s, s[VICTIM]) - v1 - v2


def escort_gain(g, s, seat) -> float:
    """Expected points from escorting: a stall on average, minus everything if the Loira shows
    (and no pair to escape with)."""
    counts = g.centre_counts(s)
    m = sum(counts)
    if not m:
        return 0.0
    mean = sum(v * c for v, c in zip(g.cfg.stalls, counts)) / m
    p_loira = 1 / s[SLOTS]
    from .effects import can_escape
    loss = 0 if can_escape(g, s, seat) else score(g, s, seat)
    return (1 - p_loira) * mean - p_loira * loss


def expected_after_draw(g, s, seat, measure=score) -> Fraction:
    """Exact expected ``measure`` (points, or the margin) of ``seat`` once the draw it is about to
    make is resolved (greedy choices inside), or at the end if the round ends meanwhile."""
    def walk(t):
        who = g.current_player(t)
        if who == TERMINAL or (t[PH] == Phase.TURN):
            return Fraction(measure(g, t, seat))
        if who == CHANCE:
            return sum(p * walk(g.apply(t, o)) for o, p in g.chance_outcomes(t))
        return walk(g.apply(t, greedy(g, t)))
    return walk(g.apply(s, GO))


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
