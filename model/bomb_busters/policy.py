"""Team policies, the exact win probability of a policy over every deal, and Monte Carlo.

"likely" -- make the most likely cut: reveal reds when that is all one holds, take a solo cut
when one is legal, otherwise the dual cut with the highest exact success probability from the
player's own view (ties: lower red risk, then the first in the table). Set-up tokens go on the
leftmost own blue wire; a teammate's pick after a Detector Duplo takes the first wire.
"likely-equipment" -- the same, but flips the Estabilizador before a cut that is not certain,
and uses the Detector Duplo on the best pair of wires (exact P(either)) when that beats the best single cut.
"random" -- a uniformly random legal action (for conformance runs).
"""
from __future__ import annotations

import random
import time
from fractions import Fraction
from typing import Any, Callable

from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.seams import Metric, Play

from .deduce import deduce, plays
from .duplo import duplo_plays
from .game import BombBusters
from .observe import position
from .rules import Kind
from .state import Phase, State

Policy = Callable[[State], Any]


def _others(game: BombBusters, seat: int) -> list[int]:
    return [r for r, o in enumerate(game.mission.rack_owner) if o != seat]


def _forced(game: BombBusters, s: State, legal: list) -> Any | None:
    if s.phase == Phase.TOKENS or s.pending:
        return legal[0]
    for a in legal:
        if a[0] == Kind.REVEAL:
            return a
    for a in legal:
        if a[0] == Kind.SOLO:
            return a
    return None


def likely(game: BombBusters, cache: dict | None = None) -> Policy:
    cache = {} if cache is None else cache

    def best(s: State):
        obs = game.observation(s, s.seat)
        hit = cache.get(obs)
        if hit is None:
            d = deduce(position(game, s, s.seat))
            hit = cache[obs] = (d, plays(d)[0])
        return hit

    def act(s: State):
        legal = game.legal_actions(s)
        forced = _forced(game, s, legal)
        if forced is not None:
            return forced
        _, p = best(s)
        return (Kind.DUAL, _others(game, s.seat)[p.rack], p.slot, p.named)

    act.best = best  # type: ignore[attr-defined]
    return act


def likely_equipment(game: BombBusters, cache: dict | None = None) -> Policy:
    base = likely(game, cache)

    def act(s: State):
        legal = game.legal_actions(s)
        forced = _forced(game, s, legal)
        if forced is not None:
            return forced
        d, top = base.best(s)
        if top.success < 1:
            for a in legal:
                if a[0] == Kind.STABILIZE:
                    return a
            duplo = _best_duplo(game, s, d, top.success, legal)
            if duplo is not None:
                return duplo
        return base(s)

    return act


def _best_duplo(game: BombBusters, s: State, d, single: Fraction, legal: list):
    """The Detector Duplo cut with the best exact P(either matches), if it beats ``single``
    (ties: lower explosion risk); see duplo.py."""
    allowed = {a for a in legal if a[0] == Kind.DUPLO}
    if not allowed:
        return None
    others = _others(game, s.seat)
    for p in duplo_plays(d, top=5):
        action = (Kind.DUPLO, others[p.rack], p.slots[0], p.slots[1], p.named)
        if p.success > single and action in allowed:
            return action
    return None


def random_policy(game: BombBusters, seed: int = 0) -> Policy:
    rng = random.Random(seed)
    return lambda s: rng.choice(list(game.legal_actions(s)))


POLICIES: dict[str, Callable[[BombBusters], Policy]] = {
    "likely": likely, "likely-equipment": likely_equipment, "random": random_policy,
}


# ---- exact evaluation over every deal -----------------------------------------------------------

class EvaluationLimit(RuntimeError):
    """The state or time limit was reached before the win probability was known."""

    def __init__(self, message: str, states: int):
        super().__init__(message)
        self.states = states


def exact_win_probability(game: BombBusters, policy: Policy, max_states: int | None = None,
                          timeout: float | None = None) -> tuple[Fraction, int]:
    """P(win) when every seat follows ``policy``, summed exactly over every chance outcome.

    Returns (probability, number of distinct states visited); raises :class:`EvaluationLimit`
    past ``max_states`` states or ``timeout`` seconds."""
    memo: dict = {}
    began = time.perf_counter()
    deadline = None if timeout is None else began + timeout

    def value(s: State) -> Fraction:
        key = game.key(s)
        hit = memo.get(key)
        if hit is not None:
            return hit
        if max_states is not None and len(memo) >= max_states:
            raise EvaluationLimit(f"state limit {max_states} reached", len(memo))
        if deadline is not None and time.perf_counter() > deadline:
            raise EvaluationLimit(f"time limit reached after {time.perf_counter() - began:.2f} s", len(memo))
        who = game.current_player(s)
        if who == TERMINAL:
            v = game.returns(s)[0]
        elif who == CHANCE:
            v = sum((p * value(game.apply(s, o)) for o, p in game.chance_outcomes(s)), Fraction(0))
        else:
            v = value(game.apply(s, policy(s)))
        memo[key] = v
        return v

    import sys
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        return value(game.initial_state()), len(memo)
    finally:
        sys.setrecursionlimit(limit)


# ---- Monte Carlo ---------------------------------------------------------------------------------

def _turns(game, play: Play) -> float:
    """Turns taken: the decisions that are a turn's action (a cut or a reveal), not equipment."""
    return float(sum(a[0] in (Kind.DUAL, Kind.SOLO, Kind.REVEAL, Kind.DUPLO) for _, a in play.decisions))


#: what ``simulate`` measures on each Bomb Busters game
METRICS = (
    Metric("win_rate", lambda game, play: float(play.final.phase == Phase.WON), proportion=True),
    Metric("turns", _turns, bounds=(0.0, float("inf"))),
    Metric("detonator_at_end", lambda game, play: float(play.final.detonator), bounds=(0.0, float("inf"))),
)
