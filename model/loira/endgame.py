"""The near-optimal policy's exact endgame: the optimal decision once few cards are left.

A round (not a match) the C engine takes (``fast.supports``; 2 to 10 players): the value of every
turn-start state comes from ``fast.state_value`` (the C engine solves the round on from that state
and keeps its table, so a game's later turns are lookups); a decision inside a turn (go/stop,
escort, escape, whom to flush...) is decided by expanding the Python model down to the next
turn-start states or the round's end: from :data:`CARDS` cards left (per player count; fewer on
decks of more than :data:`SMALL_DECK` cards, where each sub-solve is larger), and from
:data:`STOPPED_CARDS` once every other seat has stopped. A match, or a decision whose sub-solves
outgrow their state budget, gets ``None`` (the caller plays its learned tables).

Values here are every seat's (two players: U = P(seat 0 wins) - P(seat 1 wins), zero-sum; more:
max^n shares); among actions within :data:`TIE` of the best for the mover the first legal one is
taken, as the exact solvers break ties.
"""
from __future__ import annotations

from ruleproof.model.protocol import CHANCE, TERMINAL

from .state import PH, Phase

#: cards left in the deck from which the endgame plays: (decks of at most SMALL_DECK cards, larger
#: decks). Two players on the real deck: a sub-solve from 10 cards left needs 4,000 to 9 million
#: turn states at ~200,000 a second, from 8 mostly under 200,000. Three players on the real deck:
#: from 8 cards left 13,000 to 1.2 million (up to 15 s on a loaded machine), from 6 about 1,100.
CARDS = {2: (10, 8), 3: (8, 6)}
MORE_PLAYERS_CARDS = (6, 5)
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
#: above the region the policy looks one turn ahead and values a next turn-start state by the optimum
#: of the same state with its deck cut to this many cards (``reduce_deck``), per player count: on the
#: real deck two players decide in ~0.04 s (median; 0.2 s for 9 decisions in 10) with 6, 0.17 s
#: with 7, 1.6 s with 8; three players ~0.07 s with 5, 0.45 s with 6 (a loaded machine). Two players
#: cut to 7: with 6 the 13-card ladder rows lost 0.0074 / 0.0061 (seat 0), with 7 0.0003 (h29)
REDUCE = {2: 7, 3: 5}
MORE_PLAYERS_REDUCE = 4
#: Python states whose values the endgame remembers
MEMO_MAX = 1_000_000
TIE = 1e-12


def deck_left(g, s) -> int:
    return g.deck_total(s)


def default_cards(g) -> int:
    """Cards left from which the endgame plays on ``g`` (-1: never, a match)."""
    return Endgame(g).cards


class Endgame:
    """Exact decisions for one game (a ``LoiraGame``) near the end of its round."""

    def __init__(self, g, cards: int | None = None, reduce_to: int | None = None):
        from . import fast
        self.g = g
        self.n = g.num_players
        self.c = g.cfg.objective == "round" and fast.supports(g.cfg) is None
        small, large = CARDS.get(self.n, MORE_PLAYERS_CARDS)
        self.cards = cards if cards is not None else (large if sum(g.cfg.deck) > SMALL_DECK else small)
        self.stopped_cards = max(self.cards, STOPPED_CARDS)
        if not self.c:
            self.cards = self.stopped_cards = -1    # a match (the round's end is not the game's end)
        self.memo: dict = {}
        self.too_big = 1 << 30                  # fewest cards left at which a sub-solve overran
        self.last_left = 1 << 30                # cards left at the last decision (more: a new game)
        self.overruns = 0
        self.budget = C_STATES                  # new C turn states this decision may still add
        self.reduce_to = reduce_to if reduce_to is not None else REDUCE.get(self.n, MORE_PLAYERS_REDUCE)
        self.ahead: dict = {}                   # look-ahead values (above the region)
        self.lookahead_overruns = 0

    def new_game(self) -> None:
        """Forget what earlier games left (the caller empties the C engine's kept table, which every
        seat's endgame shares): a game's decisions, and which of them overrun their budget, then
        depend on that game alone -- the same in any process, after any earlier work."""
        self.memo.clear()
        self.ahead.clear()
        self.too_big = self.last_left = 1 << 30

    def applies(self, s) -> bool:
        left = deck_left(self.g, s)
        if left > self.last_left:               # the deck only shrinks within a game
            self.too_big = 1 << 30
        self.last_left = left
        if left >= self.too_big:
            return False
        return self.covers(s)

    def covers(self, s) -> bool:
        """Whether ``s`` lies in the endgame's region (closed under play: the deck only shrinks and
        a stopped seat stays stopped)."""
        left = deck_left(self.g, s)
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
            return self.best(s, self.value)
        except FastUnavailable:                 # no C compiler, out of memory: the tables play on
            self.cards = self.stopped_cards = -1
            return None
        except FastLimit:                       # the states it completed stay in the kept table
            self.overruns += 1
            self.too_big = deck_left(self.g, s)
            return None

    def value(self, s) -> tuple[float, ...]:
        """Every seat's optimal value of ``s`` (floats; the C engine's doubles)."""
        from . import fast
        v = self.memo.get(s)
        if v is not None:
            return v
        if len(self.memo) > MEMO_MAX:
            self.memo.clear()
        g = self.g
        seat = g.current_player(s)
        if seat == TERMINAL:
            v = tuple(float(x) for x in g.returns(s))
        elif s[PH] == Phase.TURN:
            got = self.c_value(fast.c_state(g, s))
            v = (got, -got) if self.n == 2 else got
        elif seat == CHANCE:
            acc = [0.0] * self.n
            for o, p in g.chance_outcomes(s):
                for i, x in enumerate(self.value(g.apply(s, o))):
                    acc[i] += float(p) * x
            v = tuple(acc)
        else:
            v = self.value(g.apply(s, self.best(s, self.value)))
        self.memo[s] = v
        return v

    def best(self, s, value) -> int:
        """The mover's first action whose ``value`` for it is within TIE of the best (max^n's tie
        rule; with two players a tie changes no value)."""
        g = self.g
        seat = g.current_player(s)
        acts = list(g.legal_actions(s))
        vals = [value(g.apply(s, a))[seat] for a in acts]
        top = max(vals)
        return next(a for a, v in zip(acts, vals) if v >= top - TIE)

    # -- above the region: one turn of look-ahead
    def lookahead(self, s) -> int | None:
        """The first action whose look-ahead value is within TIE of the best for the mover: the
        play searched up to the next go/stop decisions (the C engine's turn states; every seat
        choosing by these values), those valued by their optimum in the region, else by
        :meth:`reduced_value`. None when a sub-solve
        outgrew the decision's state budget (the caller's tables decide)."""
        from .fast import FastLimit, FastUnavailable
        if not self.c or self.cards < 0:
            return None
        self.budget = C_STATES
        try:
            return self.best(s, self.ahead_value)
        except FastUnavailable:
            self.cards = self.stopped_cards = -1
            return None
        except FastLimit:
            self.lookahead_overruns += 1
            return None

    def ahead_value(self, x) -> tuple[float, ...]:
        v = self.ahead.get(x)
        if v is not None:
            return v
        if len(self.ahead) > MEMO_MAX:
            self.ahead.clear()
        g = self.g
        seat = g.current_player(x)
        if seat == TERMINAL or (x[PH] == Phase.TURN and self.covers(x)):
            v = self.value(x)
        elif x[PH] == Phase.TURN:
            v = self.reduced_value(x)
        elif seat == CHANCE:
            acc = [0.0] * self.n
            for o, p in g.chance_outcomes(x):
                for i, y in enumerate(self.ahead_value(g.apply(x, o))):
                    acc[i] += float(p) * y
            v = tuple(acc)
        else:
            v = self.ahead_value(g.apply(x, self.best(x, self.ahead_value)))
        self.ahead[x] = v
        return v

    def reduced_value(self, x) -> tuple[float, ...]:
        """The optimum of the turn-start state ``x`` with its deck cut to ``reduce_to`` cards."""
        from . import fast
        c = list(fast.c_state(self.g, x))
        c[:24] = reduce_deck(c[:24], self.reduce_to)
        got = self.c_value(c)
        return (got, -got) if self.n == 2 else got

    def c_value(self, c):
        """The C engine's optimum of the turn-start state ``c``; the states it adds to the kept table
        (every seat's: the table's count before the call, whoever made the last one) are charged to
        this decision's budget."""
        from . import fast
        before = fast.kept_states(self.n)
        got, kept = fast.state_value(self.g.cfg, c, max(self.budget, 1))
        self.budget -= max(kept - before, 0)
        if kept > keep_limit:
            fast.forget_states()
            self.memo.clear()
            self.ahead.clear()
        return got


def reduce_deck(deck, m: int) -> list[int]:
    """The deck's counts per kind cut to ``m`` cards in proportion: each kind ``floor(count * m /
    total)``, then one more for the largest remainders (the lower kind first among equal ones).
    fast_solver.c's reduce_deck rounds the same way."""
    total = sum(deck)
    if total <= m:
        return list(deck)
    raw = [c * m / total for c in deck]
    out = [int(x) for x in raw]
    rest = [x - o for x, o in zip(raw, out)]
    for k in sorted(range(len(deck)), key=lambda i: (-rest[i], i))[:m - sum(out)]:
        out[k] += 1
    return out
