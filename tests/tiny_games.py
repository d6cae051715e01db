"""Tiny games with values known by hand, used to test the generic solver."""
from __future__ import annotations

from fractions import Fraction

from ruleproof.model.protocol import CHANCE, TERMINAL, Game, Invariant


class GamblersRuin(Game):
    """Chance only: a walk on 0..top moving up with probability p; reaching top pays seat 0.
    P(reach top from k) = (r^k - 1) / (r^top - 1) with r = (1-p)/p (for p != 1/2)."""

    name = "gamblers-ruin"
    num_players = 2
    constant_sum = Fraction(1)

    def __init__(self, start: int, top: int, p: Fraction):
        self.start, self.top, self.p = start, top, p

    def initial_state(self):
        return self.start

    def current_player(self, s):
        return TERMINAL if s in (0, self.top) else CHANCE

    def legal_actions(self, s):
        return ()

    def chance_outcomes(self, s):
        return ((+1, self.p), (-1, 1 - self.p))

    def apply(self, s, a):
        return s + a

    def returns(self, s):
        return (Fraction(1), Fraction(0)) if s == self.top else (Fraction(0), Fraction(1))

    def key(self, s):
        return s

    def from_key(self, k):
        return k


class TieGame(Game):
    """Three seats; seat 0 picks A or B, both worth 1 to it, but A gives seat 1 the win share and B
    gives it to seat 2. The tie rule (first maximal action) must pick A. Then seat 1 chooses
    between a coin flip and a sure 1/2 share ... (values given in the test)."""

    name = "tie-game"
    num_players = 3
    min_utility, max_utility = Fraction(0), Fraction(1)

    def initial_state(self):
        return 0

    def current_player(self, s):
        return 0 if s == 0 else TERMINAL

    def legal_actions(self, s):
        return (1, 2)

    def chance_outcomes(self, s):
        return ()

    def apply(self, s, a):
        return a

    def returns(self, s):
        return (Fraction(1), Fraction(int(s == 1)), Fraction(int(s == 2)))

    def key(self, s):
        return s

    def from_key(self, k):
        return k


class BrokenGame(GamblersRuin):
    """Chance probabilities that do not add up to one, and an invariant that fails at depth 2."""

    name = "broken"

    def chance_outcomes(self, s):
        return ((+1, self.p), (-1, self.p))

    def invariants(self):
        return (Invariant("above-one", "the walk stays above 1",
                          lambda s: None if s >= 2 else f"at {s}"),)
