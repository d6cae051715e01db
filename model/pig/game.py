"""Pig, the dice game studied by Neller and Presser ("Optimal Play of the Dice Game Pig",
The UMAP Journal 25(1), 2004).

Header: 2 or more players, sequential, explicit chance (the die), utility 1 for the winner and 0 for
the others (constant-sum 1). On a turn the player repeatedly rolls a die: a 1 ends the turn and
scores nothing; any other face adds to the turn total. The player may hold, banking the turn
total and passing the die. The first to reach ``goal`` banked points wins; as in the paper, a
player whose score plus turn total reaches the goal has won (holding is then automatic).

State record (a tuple of ints):
    scores   -- banked points per seat, each < goal
    mover    -- the seat whose turn it is
    turn     -- the mover's turn total (score[mover] + turn < goal)
    rolling  -- 1 when the die is in the air (a chance node), else 0
    winner   -- the seat that reached the goal, or -1 while the game goes on

Compact key: one int of bit fields, low to high: winner + 1 (3 bits), rolling (1 bit), turn total
(W bits), mover (3 bits), then each seat's score (W bits each), where W is the bit length of
goal + faces (every turn total and score is below it). Two players fit in 31 bits, so the explorer
can expand whole BFS levels at once in numpy (``expand_keys``, written from the same rules as
``canonical_successors`` and checked against it edge for edge).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import numpy as np

from ruleproof.model.protocol import CHANCE, TERMINAL, Game, Invariant, KeyBatch

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
        self.batch_probabilities = (self._roll_outcomes[0][1],)
        self.batch_returns = (self._win[0],)   # a representative that has won puts the winner in seat 0
        width = (goal + faces).bit_length()
        self._field = (1 << width) - 1
        self._mover_shift = 4 + width
        self._score_shift = tuple(7 + width * (1 + seat) for seat in range(n))

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

    def key(self, s: PigState) -> int:
        n, field = self.num_players, self._field
        turn = s[self._turn]
        if not (0 <= turn <= field and all(0 <= v <= field for v in s[:n])):
            raise ValueError(f"Pig state {s} does not fit its key's fields")
        k = (s[self._winner] + 1) | (s[self._rolling] << 3) | (turn << 4) | (s[self._mover] << self._mover_shift)
        for seat in range(n):
            k |= s[seat] << self._score_shift[seat]
        return k

    def from_key(self, key: int) -> PigState:
        field = self._field
        scores = tuple((key >> shift) & field for shift in self._score_shift)
        return scores + ((key >> self._mover_shift) & 7, (key >> 4) & field, (key >> 3) & 1, (key & 7) - 1)

    def expand_keys(self, keys: np.ndarray) -> KeyBatch | None:
        """``canonical_successors`` of many two-player representatives (mover in seat 0) at once."""
        if self.num_players != 2 or len(self.seat_permutations) != 2:   # no seat swap declared
            return None
        field, faces, goal = self._field, self.faces, self.goal
        s0, s1 = self._score_shift
        won = (keys & 7) > 0
        rolling = ((keys >> 3) & 1).astype(bool)
        turn = (keys >> 4) & field
        mine, theirs = (keys >> s0) & field, (keys >> s1) & field
        width = max(faces, 2)
        shape = (len(keys), width)
        child, action = np.zeros(shape, np.int64), np.zeros(shape, np.int64)
        prob, perm, valid = np.zeros(shape, np.int64), np.zeros(shape, np.int8), np.zeros(shape, bool)
        decide = ~won & ~rolling
        # roll: the same position with the die in the air; hold: bank and pass the die, so the
        # representative swaps the seats (permutation 1)
        child[decide, 0] = keys[decide] | 8
        child[decide, 1] = (theirs[decide] << s0) | ((mine[decide] + turn[decide]) << s1)
        action[decide, :2] = (ROLL, HOLD)
        perm[decide, 1] = 1
        valid[decide, :2] = True
        roll = ~won & rolling
        # a 1 passes the die with nothing banked (seats swap); another face grows the turn total,
        # and reaching the goal wins at once (winner + 1 = 1 in the low bits)
        child[roll, 0] = (theirs[roll] << s0) | (mine[roll] << s1)
        perm[roll, 0] = 1
        total = turn[roll][:, None] + np.arange(2, faces + 1)
        banked = ((mine[roll] << s0) | (theirs[roll] << s1))[:, None]
        child[roll, 1:faces] = banked | (total << 4) | (mine[roll][:, None] + total >= goal)
        action[roll, :faces] = np.arange(1, faces + 1)
        prob[roll, :faces] = 1
        valid[roll, :faces] = True
        kind = np.where(won, TERMINAL, np.where(rolling, CHANCE, 0)).astype(np.int8)
        return KeyBatch(kind, valid.sum(axis=1), child[valid], action[valid], prob[valid], perm[valid],
                        np.zeros(len(keys), np.int8))

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
                      self._scores_below_goal, self._scores_below_goal_keys),
            Invariant("turn-total-bounded", "score + turn total < goal unless the mover has won",
                      self._turn_total_bounded, self._turn_total_bounded_keys),
        )

    def _scores_below_goal_keys(self, keys: np.ndarray) -> np.ndarray:
        bad = np.zeros(len(keys), bool)
        for shift in self._score_shift:
            bad |= ((keys >> shift) & self._field) >= self.goal
        return bad

    def _turn_total_bounded_keys(self, keys: np.ndarray) -> np.ndarray:
        mover = (keys >> self._mover_shift) & 7
        own = np.zeros(len(keys), np.int64)
        for seat, shift in enumerate(self._score_shift):
            own = np.where(mover == seat, (keys >> shift) & self._field, own)
        return ((keys & 7) == 0) & (own + ((keys >> 4) & self._field) >= self.goal)

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

    # --- play tables ------------------------------------------------------------------------------
    value_meaning = "P(the mover wins) under optimal play by every seat"

    def features(self, s: PigState) -> dict[str, int]:
        """The mover's banked score, the others' (in turn order after the mover), the turn total."""
        n, mover = self.num_players, s[self._mover]
        cols = {"my_score": s[mover]}
        if n == 2:
            cols["opponent_score"] = s[1 - mover]
        else:
            for k in range(1, n):
                cols[f"score_next_{k}"] = s[(mover + k) % n]
        cols["turn_total"] = s[self._turn]
        return cols

    # --- policy-picture helpers --------------------------------------------------------------------
    def decision_coordinates(self, s: PigState) -> tuple[int, int, int] | None:
        """(own score, opponent score, turn total) of a 2-player decision state, else None."""
        if self.num_players != 2 or self.current_player(s) not in (0, 1):
            return None
        mover = s[self._mover]
        return s[mover], s[1 - mover], s[self._turn]
