"""The dice-race kit: turn total, bank, pass the dice -- what Pig, Skunk and their kin share.

A game of this family is declared by its dice (:class:`Face`: each outcome of one throw, its
probability and what it does: score its points, lose the turn total, or lose the turn total and
the banked score too) and two readings its text may leave open: whether reaching the goal wins at
once (else the player must hold to bank it) and whether a player may hold with an empty turn total.

Header: 2 or more players, sequential, explicit chance (the throw), utility 1 for the winner and 0
for the others (constant-sum 1).

State record (``RECORD_FIELDS``; a tuple of ints in this order):
    score    -- banked points per seat, each below the goal while nobody has won
    mover    -- the seat whose turn it is (the winner, once somebody has won)
    turn     -- the mover's turn total
    rolling  -- 1 while the dice are in the air (a chance node), else 0
    winner   -- the seat that reached the goal, or -1 while the game goes on

The key, seat rotation (the canonical state puts the mover in seat 0), features and the proofs'
frame come from the record (``model.record``). Two players can be expanded in whole BFS levels at
once in numpy (``expand_keys``), written from the same moves as ``successors`` and tied to them by
the fast-paths property of ``verify``.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction
from typing import Sequence

import numpy as np

from ruleproof.model.protocol import CHANCE, TERMINAL, Game, Invariant, KeyBatch
from ruleproof.model.record import Field, Record

ROLL, HOLD = 0, 1
ACTION_NAMES = {ROLL: "roll", HOLD: "hold"}


class Effect(IntEnum):
    SCORE = 0       #: the throw's points join the turn total
    LOSE_TURN = 1   #: the turn total is lost and the dice pass
    LOSE_ALL = 2    #: the turn total and the banked score are lost and the dice pass


@dataclass(frozen=True)
class Face:
    """One outcome of a throw: its code (an int the tables store), probability, effect, points
    (for ``SCORE``) and how it reads ("the die shows 3")."""
    outcome: int
    prob: Fraction
    effect: Effect
    points: int
    text: str


def record_fields(goal: int, players: int, top_turn: int) -> tuple[Field, ...]:
    return (
        Field("score", 0, goal - 1, "banked points", per_seat=True),
        Field("mover", 0, players - 1, "the seat whose turn it is", seat=True),
        Field("turn", 0, top_turn, "the mover's turn total"),
        Field("rolling", 0, 1, "the dice are in the air"),
        Field("winner", -1, players - 1, "the seat that reached the goal, or -1", seat=True),
    )


class DiceRace(Game):
    """One race under one configuration; subclasses name the game and its dice."""

    #: the game's name as people write it
    title = "dice race"
    #: how a seat's value reads in play tables
    value_meaning = "P(the mover wins) under optimal play by every seat"

    def __init__(self, goal: int, players: int, throws: Sequence[Face], *, win_at_once: bool = True,
                 hold_at_zero: bool = True):
        if goal < 1 or players < 2 or not throws:
            raise ValueError(f"{self.name} needs goal >= 1, players >= 2 and some outcomes")
        self.goal, self.num_players = goal, players
        self.win_at_once, self.hold_at_zero = win_at_once, hold_at_zero
        self.throws = tuple(throws)
        self.constant_sum = Fraction(1)
        self.min_utility, self.max_utility = Fraction(0), Fraction(1)
        self._outcomes = tuple((f.outcome, f.prob) for f in self.throws)
        self._face = {f.outcome: f for f in self.throws}
        self._win = tuple(tuple(Fraction(int(s == w)) for s in range(players)) for w in range(players))
        top = max((f.points for f in self.throws if f.effect == Effect.SCORE), default=0)
        # reaching the goal wins at once: a turn total stops below goal + the best throw; else the
        # turn total is kept only up to what the goal needs (more changes nothing a rule reads)
        self.record = Record(players, record_fields(goal, players, goal + top - 1 if win_at_once else goal))
        r = self.record
        self._mover, self._turn = r.index["mover"], r.index["turn"]
        self._rolling, self._winner = r.index["rolling"], r.index["winner"]
        self.seat_permutations = r.permutations
        self.batch_probabilities = tuple(dict.fromkeys(f.prob for f in self.throws))
        #: each throw's probability as ``expand_keys`` codes it (1 + its index in that table)
        self._prob_codes = tuple(self.batch_probabilities.index(f.prob) + 1 for f in self.throws)
        self.batch_returns = (self._win[0],)   # a representative that has won has the winner in seat 0

    # --- the protocol -----------------------------------------------------------------------------
    def initial_state(self) -> tuple[int, ...]:
        return (0,) * self.num_players + (0, 0, 0, -1)

    def current_player(self, s) -> int:
        if s[self._winner] >= 0:
            return TERMINAL
        return CHANCE if s[self._rolling] else s[self._mover]

    def legal_actions(self, s) -> Sequence[int]:
        # holding with an empty turn total only passes the dice (legal unless the game says not)
        return (ROLL, HOLD) if self.hold_at_zero or s[self._turn] > 0 else (ROLL,)

    def chance_outcomes(self, s):
        return self._outcomes

    def apply(self, s, action: int):
        if s[self._rolling]:
            return self.land(s, action)
        return self.roll(s) if action == ROLL else self.hold(s)

    def returns(self, s) -> tuple[Fraction, ...]:
        winner = s[self._winner]
        return self._win[winner] if winner >= 0 else (Fraction(0),) * self.num_players

    def successors(self, s):
        if s[self._rolling]:
            return [(o, p, self.land(s, o)) for o, p in self._outcomes]
        return [(a, None, self.roll(s) if a == ROLL else self.hold(s)) for a in self.legal_actions(s)]

    def canonicalize(self, s):
        r = s[self._mover]
        return self.record.rotate(s, r), r

    def key(self, s) -> int:
        return self.record.pack(s)

    def from_key(self, key: int):
        return self.record.unpack(key)

    # --- one function per move ----------------------------------------------------------------------
    def roll(self, s):
        """The mover throws: the dice are in the air."""
        return s[:self._rolling] + (1, -1)

    def hold(self, s):
        """Bank the turn total and pass the dice; banking the goal wins (when it does not win at once)."""
        mover = s[self._mover]
        banked = s[mover] + s[self._turn]
        if banked >= self.goal:
            return s[:self._rolling] + (0, mover)
        scores = list(s[:self.num_players])
        scores[mover] = banked
        return tuple(scores) + ((mover + 1) % self.num_players, 0, 0, -1)

    def land(self, s, outcome: int):
        """The dice land: the outcome's effect (score, lose the turn total, lose everything)."""
        face = self._face[outcome]
        mover = s[self._mover]
        if face.effect != Effect.SCORE:
            scores = list(s[:self.num_players])
            if face.effect == Effect.LOSE_ALL:
                scores[mover] = 0
            return tuple(scores) + ((mover + 1) % self.num_players, 0, 0, -1)
        turn = s[self._turn] + face.points
        if self.win_at_once:
            won = s[mover] + turn >= self.goal
            return s[:self._turn] + (turn, 0, mover if won else -1)
        return s[:self._turn] + (min(turn, self.goal - s[mover]), 0, -1)

    # --- the batch expansion (two players, mover in seat 0) --------------------------------------------
    def expand_keys(self, keys: np.ndarray) -> KeyBatch | None:
        """``canonical_successors`` of many two-player representatives at once: each state's edges
        are written straight to their places in the flat edge arrays (a decision's at its offset,
        a throw's as one row of every outcome), not through a states x outcomes table."""
        if self.num_players != 2 or len(self.seat_permutations) != 2:
            return None
        r = self.record
        s0, s1, st, sr, sw = (r.shift[c] for c in ("score0", "score1", "turn", "rolling", "winner"))
        won = r.column(keys, "winner") >= 0
        rolling = r.column(keys, "rolling").astype(bool)
        decide = np.flatnonzero(~won & ~rolling)
        roll = np.flatnonzero(~won & rolling)
        turn_d = r.column(keys[decide], "turn")
        hold_ok = turn_d > 0 if not self.hold_at_zero else np.ones(len(decide), bool)
        n_out = len(self.throws)
        counts = np.zeros(len(keys), np.int64)
        counts[decide] = 1 + hold_ok
        counts[roll] = n_out
        offsets = np.cumsum(counts) - counts
        edges = int(offsets[-1] + counts[-1]) if len(keys) else 0
        child, action = np.empty(edges, np.int64), np.empty(edges, np.int64)
        prob, perm = np.empty(edges, np.int64), np.empty(edges, np.int8)

        def passed(theirs, new_mine):   # the dice pass: the seats swap in the representative
            return (theirs << s0) | (new_mine << s1)

        # a decision: roll (the dice in the air), then hold where it is legal
        at = offsets[decide]
        key_d = keys[decide]
        child[at], action[at], prob[at], perm[at] = key_d | (1 << sr), ROLL, 0, 0
        at, key_h = at[hold_ok] + 1, key_d[hold_ok]
        mine_h = r.column(key_h, "score0")
        banked = mine_h + turn_d[hold_ok]
        wins = banked >= self.goal
        # a hold that wins keeps the representative (the mover is the winner, seat 0): no swap
        child[at] = np.where(wins, key_h | (1 << sw), passed(r.column(key_h, "score1"), banked))
        action[at], prob[at], perm[at] = HOLD, 0, np.where(wins, 0, 1)
        # a throw: one edge per outcome, in the dice's order
        key_r = keys[roll]
        mine, theirs, turn = r.column(key_r, "score0"), r.column(key_r, "score1"), r.column(key_r, "turn")
        at = offsets[roll][:, None] + np.arange(n_out)
        effect = np.array([f.effect for f in self.throws])
        points = np.array([f.points if f.effect == Effect.SCORE else 0 for f in self.throws], np.int64)
        total = turn[:, None] + points
        base = ((mine << s0) | (theirs << s1))[:, None]
        if self.win_at_once:
            scored = base | (total << st) | ((mine[:, None] + total >= self.goal).astype(np.int64) << sw)
        else:
            scored = base | (np.minimum(total, self.goal - mine[:, None]) << st)
        lost = np.where(effect == Effect.LOSE_ALL, passed(theirs, 0)[:, None], passed(theirs, mine)[:, None])
        child[at] = np.where(effect == Effect.SCORE, scored, lost)
        action[at] = np.array([f.outcome for f in self.throws], np.int64)
        prob[at] = np.array(self._prob_codes, np.int64)
        perm[at] = np.where(effect == Effect.SCORE, 0, 1).astype(np.int8)
        kind = np.where(won, TERMINAL, np.where(rolling, CHANCE, 0)).astype(np.int8)
        return KeyBatch(kind, counts, child, action, prob, perm, np.zeros(len(keys), np.int8))

    # --- narration and tables -------------------------------------------------------------------------
    def dice_text(self) -> str:
        """The dice, in a few words ("a d6")."""
        return f"{len(self.throws)} outcomes"

    def describe_state(self, s) -> str:
        scores = "-".join(str(v) for v in s[:self.num_players])
        if s[self._winner] >= 0:
            return f"scores {scores}, seat {s[self._winner]} reached {self.goal} and wins"
        phase = "rolling" if s[self._rolling] else "to decide"
        return f"scores {scores}, seat {s[self._mover]} {phase} with turn total {s[self._turn]}"

    def describe_action(self, s, action: int) -> str:
        if s[self._rolling]:
            return self._face[action].text
        return ACTION_NAMES[action]

    def features(self, s) -> dict[str, int]:
        """The mover's banked score, the others' (in turn order after the mover), the turn total."""
        n, mover = self.num_players, s[self._mover]
        scores = self.record.relative(s, mover, "score")
        cols = {"my_score": scores[0]}
        if n == 2:
            cols["opponent_score"] = scores[1]
        else:
            cols.update({f"score_next_{k}": scores[k] for k in range(1, n)})
        cols["turn_total"] = s[self._turn]
        return cols

    def invariants(self) -> Sequence[Invariant]:
        return (
            Invariant("scores-below-goal", "banked scores stay in [0, goal) while nobody has won",
                      self._scores_below_goal, self._scores_below_goal_keys),
            Invariant("turn-total-bounded", "score + turn total < goal unless the mover has won"
                      + ("" if self.win_at_once else " (or exactly the goal, which a hold banks)"),
                      self._turn_total_bounded, self._turn_total_bounded_keys),
        )

    def _reach(self) -> int:
        """How far score + turn total may go while nobody has won."""
        return self.goal - 1 if self.win_at_once else self.goal

    def _scores_below_goal(self, s) -> str | None:
        bad = [seat for seat in range(self.num_players) if not 0 <= s[seat] < self.goal]
        return f"seat {bad[0]} has banked {s[bad[0]]}" if bad else None

    def _turn_total_bounded(self, s) -> str | None:
        mover, turn = s[self._mover], s[self._turn]
        if turn < 0:
            return f"negative turn total {turn}"
        if s[self._winner] < 0 and s[mover] + turn > self._reach():
            return f"seat {mover} holds {s[mover]}+{turn} >= {self.goal} but has not won"
        return None

    def _scores_below_goal_keys(self, keys: np.ndarray) -> np.ndarray:
        bad = np.zeros(len(keys), bool)
        for seat in range(self.num_players):
            bad |= self.record.column(keys, f"score{seat}") >= self.goal
        return bad

    def _turn_total_bounded_keys(self, keys: np.ndarray) -> np.ndarray:
        mover = self.record.column(keys, "mover")
        own = np.zeros(len(keys), np.int64)
        for seat in range(self.num_players):
            own = np.where(mover == seat, self.record.column(keys, f"score{seat}"), own)
        return (self.record.column(keys, "winner") < 0) & (own + self.record.column(keys, "turn") > self._reach())
