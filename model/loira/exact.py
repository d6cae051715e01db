"""Exact optimal values of a Loira round or match by memoised backward induction.

A Loira round is acyclic (every move draws a card, stops a seat, opens or kicks a stall, or ends
the round), so one depth-first pass computes exact values: chance nodes take the expectation with
``Fraction`` probabilities, decision nodes the mover's best value. Two players: the zero-sum value
``U = P(seat 0 wins outright) - P(seat 1 wins outright)``; the seat swap is used as a symmetry
(``value(s) = -value(swap(s))``). Three or more: max^n, each mover maximises its own share; ties
are broken by the first legal action in ascending order (the documented tie rule).

This is the game-specific exact solver used by the tests, the regret measurements and
``simulate --policy optimal``; it cross-checks against the generic ``solver/solve.py`` on small configurations.
"""
from __future__ import annotations

import time
from array import array
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

from ruleproof.model.protocol import CHANCE, TERMINAL

from .game import LoiraGame
from .state import LoiraState

Value = tuple[Fraction, ...]


class PackedMemo(dict):
    """A memo of values keyed by each state's bytes (its fields as signed bytes: a field outside
    -128..127 raises, never collides) instead of the state's tuple: a Loira state is a tuple of ~100
    small ints, ~850 bytes, its bytes ~130, so the top layers of a 16-card round fit in memory
    (``nearopt_regret.boundary_regret``). Read and written by the state, as a dict of states."""
    __slots__ = ()

    def __contains__(self, s) -> bool:
        return dict.__contains__(self, array("b", s).tobytes())

    def __getitem__(self, s):
        return dict.__getitem__(self, array("b", s).tobytes())

    def __setitem__(self, s, v) -> None:
        dict.__setitem__(self, array("b", s).tobytes(), v)


@dataclass
class Solution:
    game: LoiraGame
    values: dict[LoiraState, Value] = field(default_factory=dict)
    seconds: float = 0.0
    #: seats whose decisions follow a fixed policy (the others best-respond)
    fixed: dict[int, Callable[[LoiraState], int]] = field(default_factory=dict)

    @property
    def states(self) -> int:
        return len(self.values)

    def value(self, s: LoiraState) -> Value:
        return self.values[s] if s in self.values else solve_state(self, s)

    def action_values(self, s: LoiraState) -> list[tuple[int, Value]]:
        g = self.game
        return [(a, self.value(g.apply(s, a))) for a in g.legal_actions(s)]

    def best_action(self, s: LoiraState) -> int:
        seat = self.game.current_player(s)
        best, best_v = None, None
        for a, v in self.action_values(s):
            if best_v is None or v[seat] > best_v:
                best, best_v = a, v[seat]
        return best


def solve_state(sol: Solution, root: LoiraState, progress: Callable[[int], None] | None = None,
                every: int = 50_000, leaf: Callable[[LoiraState], Value | None] | None = None,
                tie: float = 0) -> Value:
    """Exact value of ``root`` (memoised in ``sol.values``), iterative to avoid deep recursion.
    ``leaf(s)``, when given and not None, is taken as the value of ``s`` without searching below it
    (the near-optimal policy's regret takes its exact endgame's values from the C engine). A
    decision takes the first action whose value for the mover is best (max^n's tie rule); ``tie``:
    within that much of the best, for values in floats (the C engine's, whose equal fractions may
    differ in the last bits): with three or more players which of two tied actions is taken
    changes the others' values."""
    g, memo, fixed = sol.game, sol.values, sol.fixed
    cp, apply_, legal, chance = g.current_player, g.apply, g.legal_actions, g.chance_outcomes
    returns = g.returns
    stack: list[tuple[LoiraState, int]] = [(root, 0)]
    done = 0
    while stack:
        s, expanded = stack[-1]
        if s in memo:
            stack.pop()
            continue
        if leaf is not None:
            v = leaf(s)
            if v is not None:
                memo[s] = v
                stack.pop()
                continue
        seat = cp(s)
        if seat == TERMINAL:
            memo[s] = returns(s)
            stack.pop()
            continue
        if seat == CHANCE:
            moves = [(p, apply_(s, o)) for o, p in chance(s)]
        elif seat in fixed:
            moves = [(None, apply_(s, fixed[seat](s)))]
        else:
            moves = [(None, apply_(s, a)) for a in legal(s)]
        if not expanded:
            stack[-1] = (s, 1)
            pending = [t for _, t in moves if t not in memo]
            if pending:
                stack.extend((t, 0) for t in pending)
                continue
        if seat == CHANCE:
            acc = [Fraction(0)] * g.num_players
            for p, t in moves:
                vt = memo[t]
                for i in range(g.num_players):
                    acc[i] += p * vt[i]
            memo[s] = tuple(acc)
        else:
            best = None
            if tie:   # the first within ``tie`` of the top (as the C engine and endgame.best choose)
                top = max(memo[t][seat] for _, t in moves)
                best = next(memo[t] for _, t in moves if memo[t][seat] >= top - tie)
            else:
                for _, t in moves:
                    vt = memo[t]
                    if best is None or vt[seat] > best[seat]:
                        best = vt
            memo[s] = best
        stack.pop()
        done += 1
        if progress is not None and done % every == 0:
            progress(len(memo))
    return memo[root]


def solve(game: LoiraGame, progress: Callable[[int], None] | None = None,
          fixed: dict[int, Callable[[LoiraState], int]] | None = None, every: int = 50_000) -> Solution:
    """Optimal values; with ``fixed``, the values when those seats follow their policies and the
    other seats play their best responses. ``progress(states)`` is called every ``every`` states."""
    sol = Solution(game, fixed=dict(fixed or {}))
    start = time.perf_counter()
    solve_state(sol, game.initial_state(), progress, every)
    sol.seconds = time.perf_counter() - start
    return sol


def regret(game: LoiraGame, policy_factory, optimum: Solution | None = None) -> dict:
    """Exact regret of a policy: for each seat, the optimal value minus the value it gets when
    it follows the policy and every other seat best-responds."""
    optimum = optimum or solve(game)
    root = game.initial_state()
    best = optimum.value(root)
    out = {}
    for seat in range(game.num_players):
        got = solve(game, fixed={seat: policy_factory(game)}).value(root)
        out[seat] = {"optimal": best[seat], "policy": got[seat], "regret": best[seat] - got[seat]}
    return out

