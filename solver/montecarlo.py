"""Seeded Monte Carlo playouts of a protocol game under given policies, with confidence intervals."""
from __future__ import annotations

import random
import time
from typing import Any, Callable

from ruleproof.model.estimate import Estimate, sampled_mean, sampled_proportion
from ruleproof.model.protocol import CHANCE, TERMINAL, Game
from ruleproof.model.ruleset import RulesetError
from ruleproof.model.sampling import sample_outcome
from ruleproof.model.seams import Metric, Play, Simulation

from .runtime import check_alarm

Policy = Callable[[Any], Any]  # state -> action
Progress = Callable[[int, int], None]


def mean_ci(total: float, total_sq: float, n: int, **kw: Any) -> Estimate:
    """The sampled mean of ``n`` plays from running sums, with its 95%
    interval (``kw``: seed, policy, bounds -- see ``model.estimate.sampled_mean``)."""
    return sampled_mean(total, total_sq, n, **kw)


def wilson(successes: int, n: int, **kw: Any) -> Estimate:
    """A sampled proportion with its Wilson score 95% interval (sound near 0 and 1)."""
    return sampled_proportion(successes, n, **kw)


def uniform_random_policy(game: Game, rng: random.Random) -> Policy:
    return lambda state: rng.choice(list(game.legal_actions(state)))




def playout(game: Game, policies: dict[int, Policy], rng: random.Random,
            max_moves: int = 1_000_000) -> Play:
    """One game to the end, with every decision made. Chance draws exactly by its Fractions. A
    policy may carry ``new_game()``: called before the game's first move, so what a policy keeps
    between decisions (a search's table) cannot carry one game's work into the next."""
    check_alarm()   # a time limit whose TimeLimit a gc callback swallowed still ends the playouts
    for policy in {id(p): p for p in policies.values()}.values():
        start = getattr(policy, "new_game", None)
        if start is not None:
            start()
    state = game.initial_state()
    moves = 0
    decisions = []
    while True:
        seat = game.current_player(state)
        if seat == TERMINAL:
            return Play(state, tuple(game.returns(state)), moves, decisions)
        if moves >= max_moves:
            raise RuntimeError(f"playout exceeded {max_moves} moves")
        if seat == CHANCE:
            action = sample_outcome(game.chance_outcomes(state), rng)
        else:
            action = policies[seat](state)
            decisions.append((seat, action))
        state = game.apply(state, action)
        moves += 1


def utility_range(game: Game) -> tuple[float, float]:
    """What a seat's utility can be: the game's declared bounds."""
    return float(game.min_utility), float(game.max_utility)


#: what the generic loop measures when a game names no metrics of its own
RETURNS = (Metric("utility", lambda game, play: [float(r) for r in play.returns], per_seat=True,
                  bounds=utility_range),)
#: measured for every game: the number of moves (chance draws included)
MOVES = Metric("moves", lambda game, play: float(play.moves), bounds=(0.0, float("inf")))


def first_seat_metric(utility: Metric) -> Metric:
    """The first-seat advantage of one play: seat 0's utility minus the mean of the others'."""
    def of(game: Game, play: Play) -> float:
        u = utility.of(game, play)
        return float(u[0] - sum(u[1:]) / (len(u) - 1))

    def bounds(game: Game) -> tuple[float, float]:
        span = float(game.max_utility - game.min_utility)
        return -span, span
    return Metric("first_seat_advantage", of, bounds=bounds)


class _Tally:
    """Running sums of one metric (per seat or overall) over the plays."""

    def __init__(self, metric: Metric, game: Game):
        self.metric = metric
        self.sums = [0.0] * (game.num_players if metric.per_seat else 1)
        self.sqs = [0.0] * len(self.sums)
        b = metric.bounds
        self.bounds = b(game) if callable(b) else ((0.0, 1.0) if metric.proportion else b)

    def add(self, game: Game, play: Play) -> None:
        got = self.metric.of(game, play)
        for i, v in enumerate(got if self.metric.per_seat else [got]):
            self.sums[i] += v
            self.sqs[i] += v * v

    def estimate(self, i: int, n: int, seed: int, policy: str | None) -> dict[str, Any]:
        if self.metric.proportion:
            return wilson(round(self.sums[i]), n, seed=seed, policy=policy).as_dict()
        return mean_ci(self.sums[i], self.sqs[i], n, seed=seed, policy=policy, bounds=self.bounds).as_dict()


def simulate(game: Game, policies: dict[int, Policy], games: int, seed: int,
             progress: Progress | None = None, metrics=RETURNS,
             policy_name: str | None = None) -> tuple[list[dict], dict[str, Any]]:
    """Play ``games`` seeded games; each metric's sampled mean with its 95% interval (each an
    ``Estimate.as_dict()``, naming the seed and ``policy_name``): (per seat, overall)."""
    rng = random.Random(seed)
    n = game.num_players
    extra = (MOVES,)
    utility = next((m for m in metrics if m.name == "utility" and m.per_seat), None)
    if utility is not None and n > 1:   # measured play by play: the seats' samples are not independent
        extra += (first_seat_metric(utility),)
    tallies = [_Tally(m, game) for m in (*metrics, *extra)]
    if len({t.metric.name for t in tallies}) != len(tallies):
        raise ValueError(f"{game.name}: two metrics share a name (moves is measured for every game)")
    for i in range(games):
        play = playout(game, policies, rng)
        for t in tallies:
            t.add(game, play)
        if progress is not None and (i + 1) % max(1, games // 100) == 0:
            progress(i + 1, games)
    seats = [{t.metric.name: t.estimate(s, games, seed, policy_name) for t in tallies if t.metric.per_seat}
             for s in range(n)]
    overall = {t.metric.name: t.estimate(0, games, seed, policy_name) for t in tallies if not t.metric.per_seat}
    return seats, overall


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


def policy_names(spec) -> list[str]:
    """The names ``--policy`` accepts for a game."""
    return ["random", "optimal"] + [k for k in spec.policies if k not in ("random", "optimal")]


def seat_policies(spec, game: Game, text: str | None, seed: int) -> tuple[list[str], dict[int, Policy]]:
    """One policy per seat from ``--policy``: a name for every seat or ``A:B[:C...]`` naming each
    seat's in turn (cycled). ``random`` is seeded, ``optimal`` solves first (the game's own way when
    it has one), other names are the game's ``policies``; each named policy is built once."""
    names = (text or spec.default_policy).split(":")
    known = policy_names(spec)
    for name in names:
        if name not in known:
            raise RulesetError("command line", "--policy", f"unknown policy {name!r} (known: "
                               f"{', '.join(known)}; A:B for one per seat)")
    built: dict[str, Policy] = {}
    per_seat, labels = {}, []
    for seat in range(game.num_players):
        name = names[seat % len(names)]
        labels.append(name)
        if name not in built:
            built[name] = _build_policy(spec, game, name, seed)
        per_seat[seat] = built[name]
    return labels, per_seat


def _build_policy(spec, game: Game, name: str, seed: int) -> Policy:
    if name == "random":
        return uniform_random_policy(game, random.Random(seed ^ 0x5EED))
    if name == "optimal":
        if spec.optimal_policy is not None:
            return spec.optimal_policy(game)
        from .explore import explore
        from .solve import solve as solve_graph
        return solution_policy(solve_graph(explore(game)))
    return spec.policies[name](game)


#: the keys of ``simulate --json``, the same for every game (docs/json.md says what each means)
SIMULATE_KEYS = ("game", "ruleset", "config", "engine", "policy", "seat_policies", "games", "seed",
                 "seats", "metrics", "seconds", "games_per_second", "extras")


def simulate_ruleset(ruleset, games: int, seed: int, policy: str | None = None,
                     progress: Progress | None = None) -> dict[str, Any]:
    """``simulate`` for a ruleset, as one JSON document (``SIMULATE_KEYS``): the game's own
    playout engine when it has one, else seeded playouts of the protocol game measuring the
    game's metrics (each seat's return without them) and the number of moves."""
    from ruleproof.model.registry import get_spec
    spec = get_spec(ruleset.game)
    if games < 1:
        raise RulesetError("command line", "--games", f"must be at least 1, not {games}")
    start = time.perf_counter()
    if spec.simulator is not None:
        sim = spec.simulator(ruleset, games, seed, policy, progress)
        engine = f"{ruleset.game} playouts"
    else:
        game = spec.build(ruleset)
        labels, per_seat = seat_policies(spec, game, policy, seed)
        seats, overall = simulate(game, per_seat, games, seed, progress, tuple(spec.metrics) or RETURNS,
                                  ":".join(dict.fromkeys(labels)))
        sim = Simulation(labels, seats, overall)
        engine = "generic playouts"
    seconds = time.perf_counter() - start
    return {"game": ruleset.game, "ruleset": ruleset.name, "config": ruleset.as_dict(), "engine": engine,
            "policy": policy or ":".join(dict.fromkeys(sim.seat_policies)),
            "seat_policies": list(sim.seat_policies), "games": games, "seed": seed,
            "seats": [dict(s) for s in sim.seats], "metrics": dict(sim.metrics), "seconds": round(seconds, 4),
            "games_per_second": round(games / seconds, 3) if seconds else None, "extras": dict(sim.extras)}
