"""The greedy rules every Loira policy shares for the decisions other than go/stop (escort, escape,
targets, mini-expansion choices, the Interruptor), and the measures the stop rules read (the margin,
the expected points after a draw). Policies see only public information: the state holds the centre
as a belief (``model.loira.centre``), never a card nobody has seen. Kept apart from ``policies.py``
so that the near-optimal policy and the learned table build on them without importing the registry
of policies (which lists them)."""
from __future__ import annotations

from fractions import Fraction

from ruleproof.model.protocol import CHANCE, TERMINAL

from .scoring import score
from .state import GO, PH, RALO_PASS, SLOTS, SWITCH, TURN, VICTIM, YES, Phase


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
