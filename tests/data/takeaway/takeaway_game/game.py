"""The protocol for Take-away: a state is (tokens left, seat to move, winner or -1)."""
from __future__ import annotations

from fractions import Fraction

from ruleproof.model.protocol import TERMINAL, Game, Invariant


class TakeAway(Game):
    name = "takeaway"
    num_players = 2
    constant_sum = Fraction(1)
    state_is_key = True

    def __init__(self, pile: int):
        self.pile = pile
        self.max_game_length = pile

    def initial_state(self):
        return (self.pile, 0, -1)

    def current_player(self, s):
        return TERMINAL if s[2] >= 0 else s[1]

    def legal_actions(self, s):
        return tuple(a for a in (1, 2) if a <= s[0])

    def chance_outcomes(self, s):
        return ()

    def apply(self, s, a):
        left = s[0] - a
        return (left, 1 - s[1], s[1] if left == 0 else -1)

    def returns(self, s):
        return tuple(Fraction(int(seat == s[2])) for seat in range(2))

    def key(self, s):
        return s

    def from_key(self, k):
        return tuple(k)

    def describe_state(self, s):
        return f"{s[0]} tokens, seat {s[2]} took the last" if s[2] >= 0 else f"{s[0]} tokens, seat {s[1]} to take"

    def describe_action(self, s, a):
        return f"takes {a}"

    def invariants(self):
        return (Invariant("pile-in-range", "0 <= tokens <= the pile", lambda s: None if 0 <= s[0] <= self.pile
                          else f"{s[0]} tokens"),)


def build(ruleset):
    return TakeAway(ruleset["pile"])
