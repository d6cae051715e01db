"""Seeded sampling of plays: one chance draw, one play under uniformly random decisions, and its
narration. Core: the explorer's sampled checks, the proofs' sampled refinement and the Monte Carlo
engine all draw plays the same way, so one seed means the same plays everywhere."""
from __future__ import annotations

import random
from typing import Any, Sequence

from .protocol import CHANCE, TERMINAL, Game

#: one step of a play: (state, move, next state)
Step = tuple[Any, Any, Any]


def sample_outcome(outcomes, rng: random.Random):
    """Draw one chance outcome by its probabilities (the last one absorbs float rounding)."""
    r = rng.random()
    acc = 0.0
    for outcome, p in outcomes:
        acc += float(p)
        if r < acc:
            return outcome
    return outcomes[-1][0]


def random_play(game: Game, rng: random.Random, max_moves: int) -> list[Step]:
    """One play with uniformly random decisions and chance drawn by its probabilities:
    (state, move, next state) per step, at most ``max_moves`` steps."""
    state = game.initial_state()
    steps = []
    for _ in range(max_moves):
        seat = game.current_player(state)
        if seat == TERMINAL:
            break
        if seat == CHANCE:
            move = sample_outcome(game.chance_outcomes(state), rng)
        else:
            move = rng.choice(list(game.legal_actions(state)))
        nxt = game.apply(state, move)
        steps.append((state, move, nxt))
        state = nxt
    return steps


def narrate_play(game: Game, steps: Sequence[Step], upto: int, label: str) -> list[str]:
    """The first ``upto`` steps of a play, one line each, after a line naming the play."""
    lines = [f"{label}; start: {game.describe_state(steps[0][0]) if steps else '-'}"]
    for i, (s, a, t) in enumerate(steps[:upto], 1):
        lines.append(f"{i}. {game.seat_name(game.current_player(s))}: {game.describe_action(s, a)} -> "
                     f"{game.describe_state(t)}")
    return lines
