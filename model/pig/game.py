"""Pig, the dice game studied by Neller and Presser ("Optimal Play of the Dice Game Pig",
The UMAP Journal 25(1), 2004).

Header: 2 or more players, sequential, explicit chance (the die), utility 1 for the winner and 0 for
the others (constant-sum 1). On a turn the player repeatedly rolls a die: a 1 ends the turn and
scores nothing; any other face adds to the turn total. The player may hold, banking the turn
total and passing the die. The first to reach ``goal`` banked points wins; as in the paper, a
player whose score plus turn total reaches the goal has won (holding is then automatic).

State record (a tuple of ints; the tuple itself is the compact key):
    scores   -- banked points per seat, each < goal
    mover    -- the seat whose turn it is
    turn     -- the mover's turn total (score[mover] + turn < goal)
    rolling  -- 1 when the die is in the air (a chance node), else 0
    winner   -- the seat that reached the goal, or -1 while the game goes on
"""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from model.protocol import CHANCE, TERMINAL, Game, Invariant

ROLL, HOLD = 0, 1
ACTION_NAMES = {ROLL: "roll", HOLD: "hold"}

# layout of the state tuple: (*scores, mover, turn, rolling, winner)
PigState = tuple[int, ...]


class Pig(Game):
    name = "pig"

    def __init__(self, goal: int = 100, faces: int = 6, players: int = 2):
        if goal < 1 or faces < 2 or players < 2:
            raise ValueError("Pig needs goal >= 1, faces >= 2 and players >= 2")
        self.goal, self.faces, self.num_players = goal, faces, players
        self.constant_sum = Fraction(1)
        self.min_utility, self.max_utility = Fraction(0), Fraction(1)
        self._roll_outcomes = tuple((face, Fraction(1, faces)) for face in range(1, faces + 1))
        self._win = tuple(tuple(Fraction(int(s == w)) for s in range(players)) for w in range(players))
        n = players
        self._mover, self._turn, self._rolling, self._winner = n, n + 1, n + 2, n + 3
        # symmetry: seats are interchangeable up to rotation, so the canonical state puts the
        # mover (or the winner) in seat 0; rotation r maps actual seat s to canonical (s - r) mod n
        self.seat_permutations = tuple(tuple((s - r) % n for s in range(n)) for r in range(n))

    # --- the protocol ---------------------------------------------------------------------------
    def initial_state(self) -> PigState:
        return (0,) * self.num_players + (0, 0, 0, -1)

    def current_player(self, s: PigState) -> int:
        if s[self._winner] >= 0:
            return TERMINAL
        return CHANCE if s[self._rolling] else s[self._mover]

    def legal_actions(self, s: PigState) -> Sequence[int]:
        # holding with an empty turn total only passes the die; it is legal, as in the paper
        return (ROLL, HOLD)

    def chance_outcomes(self, s: PigState):
        return self._roll_outcomes

    def apply(self, s: PigState, action: int) -> PigState:
        if s[self._rolling]:
            return self._land(s, action)
        if action == ROLL:
            return s[:self._rolling] + (1, -1)
        return self._hold(s)

    def returns(self, s: PigState) -> tuple[Fraction, ...]:
        winner = s[self._winner]
        return self._win[winner] if winner >= 0 else (Fraction(0),) * self.num_players

    state_is_key = True

    def successors(self, s: PigState):
        # the same moves as legal_actions/chance_outcomes/apply, written out for speed
        if s[self._rolling]:
            return [(face, p, self._land(s, face)) for face, p in self._roll_outcomes]
        return [(ROLL, None, s[:self._rolling] + (1, -1)), (HOLD, None, self._hold(s))]

    def canonical_successors(self, s: PigState):
        if self.num_players != 2 or s[2] != 0 or s[5] >= 0:
            return super().canonical_successors(s)
        # two players, a representative (mover in seat 0) still in play: a bust or a hold hands the die to seat 1, so the
        # representative swaps the scores back (permutation 1); other moves keep the mover
        a, b, _, turn, rolling, _ = s
        if not rolling:
            return [(ROLL, None, (a, b, 0, turn, 1, -1), 0), (HOLD, None, (b, a + turn, 0, 0, 0, -1), 1)]
        goal = self.goal
        out = [(1, self._roll_outcomes[0][1], (b, a, 0, 0, 0, -1), 1)]
        for face, p in self._roll_outcomes[1:]:
            total = turn + face
            if a + total >= goal:
                out.append((face, p, (a, b, 0, total, 0, 0), 0))
            else:
                out.append((face, p, (a, b, 0, total, 0, -1), 0))
        return out

    def canonicalize(self, s: PigState) -> tuple[PigState, int]:
        n = self.num_players
        r = s[self._winner] if s[self._winner] >= 0 else s[self._mover]
        if r == 0:
            return s, 0
        scores = s[r:n] + s[:r]
        winner = s[self._winner]
        return scores + (0, s[self._turn], s[self._rolling], 0 if winner >= 0 else -1), r

    def key(self, s: PigState) -> PigState:
        return s

    def from_key(self, key: PigState) -> PigState:
        return tuple(key)

    # --- one function per move --------------------------------------------------------------------
    def _land(self, s: PigState, face: int) -> PigState:
        """The die lands: a 1 ends the turn with nothing banked; otherwise the turn total grows."""
        mover = s[self._mover]
        if face == 1:
            return s[:self.num_players] + ((mover + 1) % self.num_players, 0, 0, -1)
        turn = s[self._turn] + face
        if s[mover] + turn >= self.goal:
            return s[:self._turn] + (turn, 0, mover)
        return s[:self._turn] + (turn, 0, -1)

    def _hold(self, s: PigState) -> PigState:
        """Bank the turn total and pass the die."""
        mover = s[self._mover]
        scores = list(s[:self.num_players])
        scores[mover] += s[self._turn]
        return tuple(scores) + ((mover + 1) % self.num_players, 0, 0, -1)

    # --- narration ----------------------------------------------------------------------------------
    def describe_state(self, s: PigState) -> str:
        scores = "-".join(str(v) for v in s[:self.num_players])
        if s[self._winner] >= 0:
            return f"scores {scores}, seat {s[self._winner]} reached {self.goal} and wins"
        phase = "rolling" if s[self._rolling] else "to decide"
        return f"scores {scores}, seat {s[self._mover]} {phase} with turn total {s[self._turn]}"

    def describe_action(self, s: PigState, action: int) -> str:
        if s[self._rolling]:
            return f"the die shows {action}"
        return ACTION_NAMES[action]

    def invariants(self) -> Sequence[Invariant]:
        return (
            Invariant("scores-below-goal", "banked scores stay in [0, goal) while nobody has won",
                      self._scores_below_goal),
            Invariant("turn-total-bounded", "score + turn total < goal unless the mover has won",
                      self._turn_total_bounded),
        )

    def _scores_below_goal(self, s: PigState) -> str | None:
        bad = [seat for seat in range(self.num_players) if not 0 <= s[seat] < self.goal]
        return f"seat {bad[0]} has banked {s[bad[0]]}" if bad else None

    def _turn_total_bounded(self, s: PigState) -> str | None:
        mover, turn = s[self._mover], s[self._turn]
        if turn < 0:
            return f"negative turn total {turn}"
        if s[self._winner] < 0 and s[mover] + turn >= self.goal:
            return f"seat {mover} holds {s[mover]}+{turn} >= {self.goal} but has not won"
        return None

    # --- policy-picture helpers --------------------------------------------------------------------
    def decision_coordinates(self, s: PigState) -> tuple[int, int, int] | None:
        """(own score, opponent score, turn total) of a 2-player decision state, else None."""
        if self.num_players != 2 or self.current_player(s) not in (0, 1):
            return None
        mover = s[self._mover]
        return s[mover], s[1 - mover], s[self._turn]
