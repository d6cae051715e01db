"""CLI hooks for Loira: named policies and a Monte Carlo of policy match-ups.

``--policy`` takes one policy name for every seat, or ``A:B[:C...]`` naming each seat's policy in
turn (cycled). Names: the keys of ``POLICIES``, ``random`` and ``optimal`` (exact solve first: small
configurations only).
"""
from __future__ import annotations

import random
from typing import Any, Callable

from model.protocol import CHANCE, TERMINAL
from model.ruleset import RulesetError
from solver.montecarlo import mean_ci

from .policies import POLICIES

DEFAULT_POLICY = "lookahead"


def _optimal(game):
    from .exact import solve
    sol = solve(game)
    return sol.best_action


def _random(game, seed: int):
    rng = random.Random(seed ^ 0x10114)
    return lambda s: rng.choice(list(game.legal_actions(s)))


def seat_policies(game, spec: str | None, seed: int) -> tuple[list[str], dict[int, Callable]]:
    names = (spec or DEFAULT_POLICY).split(":")
    known = sorted(POLICIES) + ["optimal", "random"]
    for name in names:
        if name not in known:
            raise RulesetError("command line", "--policy",
                               f"unknown policy {name!r} (known: {', '.join(known)}; A:B for one per seat)")
    built: dict[str, Callable] = {}
    per_seat = {}
    labels = []
    for seat in range(game.num_players):
        name = names[seat % len(names)]
        labels.append(name)
        if name not in built:
            built[name] = (_optimal(game) if name == "optimal" else
                           _random(game, seed) if name == "random" else POLICIES[name](game))
        per_seat[seat] = built[name]
    return labels, per_seat


def playout(game, policies: dict[int, Callable], rng: random.Random):
    s = game.initial_state()
    moves = 0
    while True:
        seat = game.current_player(s)
        if seat == TERMINAL:
            return s, moves
        if seat == CHANCE:
            outs = game.chance_outcomes(s)
            r, acc, pick = rng.random(), 0.0, outs[-1][0]
            for o, p in outs:
                acc += float(p)
                if r < acc:
                    pick = o
                    break
            s = game.apply(s, pick)
        else:
            s = game.apply(s, policies[seat](s))
        moves += 1


def simulate(ruleset, games: int, seed: int, policy: str | None, progress) -> dict[str, Any]:
    """Seeded playouts: outright wins per seat, shared wins, utilities, round length."""
    from . import build
    from .scoring import round_winners
    game = build(ruleset)
    labels, policies = seat_policies(game, policy, seed)
    rng = random.Random(seed)
    n = game.num_players
    outright = [[0.0, 0.0] for _ in range(n)]
    shared = [0.0, 0.0]
    util = [[0.0, 0.0] for _ in range(n)]
    length = [0.0, 0.0]
    for i in range(games):
        s, moves = playout(game, policies, rng)
        winners = ([seat for seat in range(n) if s[game.o_wins + seat] >= game.cfg.target_wins]
                   if game.cfg.objective == "match" else round_winners(game, s))
        for seat in range(n):
            hit = 1.0 if winners == [seat] else 0.0
            outright[seat][0] += hit
            outright[seat][1] += hit
            u = float(game.returns(s)[seat])
            util[seat][0] += u
            util[seat][1] += u * u
        tie = 1.0 if len(winners) > 1 else 0.0
        shared[0] += tie
        shared[1] += tie
        length[0] += moves
        length[1] += moves * moves
        if progress is not None and (i + 1) % max(1, games // 100) == 0:
            progress(i + 1, games)

    def est(pair):
        e = mean_ci(pair[0], pair[1], games)
        return {"mean": e.mean, "ci95": [e.low, e.high]}
    out: dict[str, Any] = {"games": games, "seed": seed, "policies": labels}
    for seat in range(n):
        out[f"seat{seat}_wins_outright"] = est(outright[seat])
        out[f"seat{seat}_utility"] = est(util[seat])
    out["shared_win"] = est(shared)
    out["moves"] = est(length)
    return out


HOOKS = {"simulate": simulate, "policies": POLICIES}
