"""The near-optimal policy's exact endgame: the optimal decision once few cards are left.

Two players, round objective, a configuration the C engine takes (``fast.supports``): the value of
every turn-start state comes from ``fast.state_value`` (the C engine solves the round on from that
state and keeps its table, so a game's later turns are lookups); a decision inside a turn (go/stop,
escort, escape, whom to flush...) is decided by expanding the Python model down to the next
turn-start states or the round's end: from :data:`C_CARDS` cards left (:data:`C_CARDS_LARGE` on
decks of more than :data:`SMALL_DECK` cards), and from :data:`STOPPED_CARDS` once every other seat
has stopped. Three or more players (the C engine does not apply): the Python exact solver from the
decision state, max^n with its tie rule, from :data:`PY_CARDS` cards left, on small decks only. A
match, or a decision whose sub-solves outgrow their state budget, gets ``None`` (the caller plays
its learned tables).

Values here are seat 0's (two players: U = P(seat 0 wins) - P(seat 1 wins), zero-sum); ties between
actions within :data:`TIE` go to the first legal action, as the exact solver breaks them.
"""
from __future__ import annotations

from ruleproof.model.protocol import CHANCE, TERMINAL

from .state import PH, Phase

#: two players: play exactly when at most this many cards are left in the deck; on decks of more than
#: SMALL_DECK cards from C_CARDS_LARGE (the real deck: a sub-solve from 10 cards left needs 4,000 to
#: 9 million turn states at ~200,000 a second, from 8 cards mostly under 200,000)
C_CARDS = 10
C_CARDS_LARGE = 8
SMALL_DECK = 16
#: ... and, once every other seat has stopped (only the mover draws: far fewer states), from this many
STOPPED_CARDS = 16
#: new C turn states one decision may add before the policy gives up on it and plays its tables until
#: fewer cards are left (a safety valve for the real deck: up to ~5 s of C search there)
C_STATES = 1_000_000
#: drop the C engine's kept table past this many turn states (a few hundred MB); the regret
#: measurement raises it (``keep``) to keep a whole rung's table
C_KEEP = 12_000_000
keep_limit = C_KEEP
#: three or more players: the Python exact solver from this many cards left (every other seat stopped:
#: PY_STOPPED_CARDS), on decks of at most SMALL_DECK cards only (on the real 3-player deck even 3-5
#: cards left overran 60,000 states, 4-7 s a decision: the tables play there)
PY_CARDS = 5
PY_STOPPED_CARDS = 8
#: new Python states one decision may add (about 2 s), and the most the solver's memo keeps
PY_STATES = 60_000
PY_KEEP = 400_000
#: Python states whose values the two-player endgame remembers
MEMO_MAX = 1_000_000
TIE = 1e-12


def deck_left(g, s) -> int:
    return sum(s[g.o_deck:g.o_deck + len(g.kinds)])


def default_cards(g) -> int:
    """Cards left from which the endgame plays on ``g`` (-1: never, a match)."""
    return Endgame(g).cards


class Endgame:
    """Exact decisions for one game (a ``LoiraGame``) near the end of its round."""

    def __init__(self, g, cards: int | None = None):
        from . import fast
        self.g = g
        self.two = g.num_players == 2 and g.cfg.objective == "round" and fast.supports(g.cfg) is None
        large = sum(g.cfg.deck) > SMALL_DECK
        self.cards = cards if cards is not None else (
            (C_CARDS_LARGE if large else C_CARDS) if self.two else -1 if large else PY_CARDS)
        self.stopped_cards = max(self.cards, STOPPED_CARDS if self.two else -1 if large else PY_STOPPED_CARDS)
        if g.cfg.objective != "round":
            self.cards = self.stopped_cards = -1    # a match: the round's end is not the game's end
        self.memo: dict = {}
        self.too_big = 1 << 30                  # fewest cards left at which a sub-solve overran
        self.last_left = 1 << 30                # cards left at the last decision (more: a new game)
        self.overruns = 0
        self.budget = C_STATES                  # new C turn states this decision may still add
        self.kept = None                        # turn states in the C engine's kept table (None: unknown)
        self.solution = None                    # 3+ players: the Python exact solver's memo

    def applies(self, s) -> bool:
        left = deck_left(self.g, s)
        if left > self.last_left:               # the deck only shrinks within a game
            self.too_big = 1 << 30
        self.last_left = left
        if left >= self.too_big:
            return False
        return left <= self.cards or (left <= self.stopped_cards and self.others_stopped(s))

    def others_stopped(self, s) -> bool:
        """Every seat but the mover has stopped: they stay stopped, so the endgame holds from here."""
        g = self.g
        mover = g.current_player(s)
        return mover >= 0 and all(g.stopped(s, t) for t in range(g.num_players) if t != mover)

    def choose(self, s) -> int | None:
        """The optimal action in ``s``, or None when the endgame does not apply or overran."""
        if not self.applies(s):
            return None
        from .fast import FastLimit, FastUnavailable
        self.budget = C_STATES
        try:
            return self._choose_two(s) if self.two else self._choose_python(s)
        except FastUnavailable:                 # no C compiler, out of memory: the tables play on
            self.cards = self.stopped_cards = -1
            return None
        except FastLimit:                       # the C engine dropped its kept table
            self.kept = 0
            self.overruns += 1
            self.too_big = deck_left(self.g, s)
            self.memo.clear()
            return None

    # -- two players: C values at turn starts, the Python model inside the turn
    def value(self, s) -> float:
        """Seat 0's optimal value of ``s`` (floats; the C engine's doubles)."""
        from . import fast
        v = self.memo.get(s)
        if v is not None:
            return v
        if len(self.memo) > MEMO_MAX:
            self.memo.clear()
        g = self.g
        seat = g.current_player(s)
        if seat == TERMINAL:
            v = float(g.returns(s)[0])
        elif s[PH] == Phase.TURN:
            key = fast.c_state(g, s)
            before = self.kept
            v, self.kept = fast.state_value(g.cfg, key, max(self.budget, 1))
            if before is not None:
                self.budget -= max(self.kept - before, 0)
            if self.kept > keep_limit:
                self.kept = 0
                fast.forget_states()
                self.memo.clear()
        elif seat == CHANCE:
            v = sum(float(p) * self.value(g.apply(s, o)) for o, p in g.chance_outcomes(s))
        else:
            vals = [self.value(g.apply(s, a)) for a in g.legal_actions(s)]
            v = max(vals) if seat == 0 else min(vals)
        self.memo[s] = v
        return v

    def _choose_two(self, s) -> int:
        g = self.g
        sign = 1.0 if g.current_player(s) == 0 else -1.0
        acts = list(g.legal_actions(s))
        vals = [sign * self.value(g.apply(s, a)) for a in acts]
        best = max(vals)
        return next(a for a, v in zip(acts, vals) if v >= best - TIE)

    # -- three or more players: the Python exact solver (max^n)
    def _choose_python(self, s) -> int:
        from .exact import Solution, solve_state
        from .fast import FastLimit
        g = self.g
        if self.solution is None or len(self.solution.values) > PY_KEEP:
            self.solution = Solution(g)
        sol = self.solution
        start = len(sol.values)

        def guard(states: int) -> None:
            if states - start > PY_STATES:      # values stored so far are complete: they stay
                raise FastLimit(f"more than {PY_STATES:,} new states")
        seat = g.current_player(s)
        acts = list(g.legal_actions(s))
        vals = [solve_state(sol, g.apply(s, a), guard, 2_000)[seat] for a in acts]
        best = max(vals)
        return acts[vals.index(best)]           # the first best, as exact.Solution.best_action
