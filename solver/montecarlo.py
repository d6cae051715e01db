"""Seeded Monte Carlo playouts of a protocol game under given policies, with confidence intervals."""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any, Callable

from model.protocol import CHANCE, TERMINAL, Game

Policy = Callable[[Any], Any]  # state -> action
Progress = Callable[[int, int], None]

Z95 = 1.959963984540054


@dataclass
class Estimate:
    mean: float
    low: float
    high: float
    n: int

    def as_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "ci95": [self.low, self.high], "n": self.n}


def mean_ci(total: float, total_sq: float, n: int) -> Estimate:
    """Normal-approximation 95% interval of a mean from running sums."""
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0) * n / max(n - 1, 1)
    half = Z95 * math.sqrt(var / n)
    return Estimate(mean, mean - half, mean + half, n)


def uniform_random_policy(game: Game, rng: random.Random) -> Policy:
    return lambda state: rng.choice(list(game.legal_actions(state)))


def sample_outcome(outcomes, rng: random.Random):
    """Draw one chance outcome by its probabilities (the last one absorbs float rounding)."""
    r = rng.random()
    acc = 0.0
    for outcome, p in outcomes:
        acc += float(p)
        if r < acc:
            return outcome
    return outcomes[-1][0]


def playout(game: Game, policies: dict[int, Policy], rng: random.Random,
            max_moves: int = 1_000_000) -> tuple[tuple, int]:
    """One game to the end: (returns, number of moves). Chance draws exactly by its Fractions."""
    state = game.initial_state()
    moves = 0
    while True:
        seat = game.current_player(state)
        if seat == TERMINAL:
            return game.returns(state), moves
        if moves >= max_moves:
            raise RuntimeError(f"playout exceeded {max_moves} moves")
        if seat == CHANCE:
            action = sample_outcome(game.chance_outcomes(state), rng)
        else:
            action = policies[seat](state)
        state = game.apply(state, action)
        moves += 1


def simulate(game: Game, policies: dict[int, Policy], games: int, seed: int,
             progress: Progress | None = None) -> dict[str, Any]:
    """Play ``games`` seeded games; mean return per seat and mean length with 95% intervals."""
    rng = random.Random(seed)
    n = game.num_players
    sums, sqs = [0.0] * n, [0.0] * n
    len_sum = len_sq = 0.0
    start = time.perf_counter()
    for i in range(games):
        ret, moves = playout(game, policies, rng)
        for s in range(n):
            v = float(ret[s])
            sums[s] += v
            sqs[s] += v * v
        len_sum += moves
        len_sq += moves * moves
        if progress is not None and (i + 1) % max(1, games // 100) == 0:
            progress(i + 1, games)
    return {"games": games, "seed": seed, "seconds": time.perf_counter() - start,
            "returns": [mean_ci(sums[s], sqs[s], games).as_dict() for s in range(n)],
            "moves": mean_ci(len_sum, len_sq, games).as_dict()}


def solution_policy(sol) -> Policy:
    """The solved optimal policy as a state -> action function (states outside the graph fail).

    A symmetric game's representative offers the same actions as the states it stands for, so
    the representative's chosen action is played as is."""
    ex = sol.exploration
    game = ex.game
    index = {k: i for i, k in enumerate(ex.keys)}
    symmetric = ex.perm is not None

    def policy(state):
        canon = game.canonicalize(state)[0] if symmetric else state
        return ex.action[int(sol.choice[index[game.key(canon)]])]
    return policy


def named_policies(spec, game: Game, name: str | None, seed: int) -> dict[int, Policy]:
    """One policy per seat for the generic simulator: ``random`` (the default; seeded), ``optimal``
    (an exact solve first) or one of the game's named policies."""
    from model.ruleset import RulesetError
    named = spec.hooks.get("policies", {})
    if name is None or name == "random":
        rng = random.Random(seed ^ 0x5EED)
        return {s: uniform_random_policy(game, rng) for s in range(game.num_players)}
    if name == "optimal":
        from .explore import explore
        from .solve import solve as solve_graph
        pol = solution_policy(solve_graph(explore(game)))
        return {s: pol for s in range(game.num_players)}
    if name in named:
        pol = named[name](game)
        return {s: pol for s in range(game.num_players)}
    raise RulesetError("command line", "--policy", f"unknown policy {name!r} (known: random, optimal"
                       + "".join(f", {k}" for k in named) + ")")


def simulate_ruleset(ruleset, games: int, seed: int, policy: str | None = None,
                     progress: Progress | None = None) -> dict[str, Any]:
    """``simulate`` for a ruleset: the game's own ``simulate`` hook when it has one, else seeded
    playouts of the protocol game under ``named_policies``."""
    from model.registry import get_spec
    spec = get_spec(ruleset.game)
    hook = spec.hooks.get("simulate")
    if hook is not None:
        return hook(ruleset, games, seed, policy, progress)
    game = spec.build(ruleset)
    return simulate(game, named_policies(spec, game, policy, seed), games, seed, progress)
