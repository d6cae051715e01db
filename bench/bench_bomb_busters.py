"""Bench for Bomb Busters: exact deduction time by number of hidden wires, and policy games/s.

    .venv/bin/python bench/bench_bomb_busters.py [--games N] [--seed S] [--players 2,3,4,5]

Part 1 plays seeded full-size games with the "most likely cut" policy and times the deduction
engine on the acting player's view at every decision, bucketed by hidden wires (other players'
uncut wires whose value is not shown), from the set-up position (36+ hidden at 4-5 players) down.
Part 2 runs the Monte Carlo hook per player count and prints games/s and the win rate with its
95% interval.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.bomb_busters import SPEC, build  # noqa: E402
from model.bomb_busters.deduce import deduce, plays  # noqa: E402
from model.bomb_busters.observe import position  # noqa: E402
from model.bomb_busters.policy import POLICIES, simulate  # noqa: E402
from model.bomb_busters.state import Phase  # noqa: E402
from model.protocol import CHANCE, TERMINAL  # noqa: E402


def deduction_times(players: int, games: int, seed: int) -> dict[int, list[float]]:
    rs = SPEC.default().with_overrides({"players": players}, spec=SPEC.schema, source="bench")
    game = build(rs)
    policy = POLICIES["likely"](game)
    rng = random.Random(seed)
    buckets: dict[int, list[float]] = {}
    for _ in range(games):
        s = game.initial_state()
        while game.current_player(s) != TERMINAL:
            who = game.current_player(s)
            if who == CHANCE:
                outcomes = game.chance_outcomes(s)
                a = rng.choices([o for o, _ in outcomes], [float(p) for _, p in outcomes])[0]
            else:
                if s.phase == Phase.PLAY and not s.pending:
                    pos = position(game, s, s.seat)
                    start = time.process_time()  # CPU time: the machine may be shared
                    plays(deduce(pos))
                    buckets.setdefault(pos.hidden_count(), []).append(time.process_time() - start)
                a = policy(s)
            s = game.apply(s, a)
    return buckets


def untokened_view(players: int, seed: int, reds, red_in: int, yellows, yellow_in: int):
    """A set-up position with no info tokens at all (the hardest case): every other wire hidden."""
    from model.bomb_busters import tiles as T
    from model.bomb_busters.mission import rack_sizes, racks_for
    from model.bomb_busters.view import parse_view
    rng = random.Random(seed)
    pool = T.blue_pool(12, 4) + [T.red(v) for v in rng.sample(reds, red_in)] + \
        [T.yellow(v) for v in rng.sample(yellows, yellow_in)]
    rng.shuffle(pool)
    owners = racks_for(players)
    racks, i = [], 0
    for n in rack_sizes(len(pool), len(owners)):
        racks.append(sorted(pool[i:i + n]))
        i += n
    hands = [{"name": f"p{p}", "racks": [[T.show(t) for t in r] if p == 0 else ["?"] * len(r)
                                        for r, o in zip(racks, owners) if o == p]} for p in range(players)]
    return parse_view({"format": "bomb-busters-view/1",
                       "mission": {"blue_values": 12, "blue_copies": 4,
                                   "red": {"values": list(reds), "in_play": red_in},
                                   "yellow": {"values": list(yellows), "in_play": yellow_in}},
                       "viewer": "p0", "hands": hands})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20, help="Monte Carlo games per player count")
    ap.add_argument("--deduce-games", type=int, default=3, help="games timed per player count")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", default="2,3,4,5")
    args = ap.parse_args()
    counts = [int(p) for p in args.players.split(",")]

    print("== exact deduction (marginals + ranked play table), CPU seconds by hidden wires ==")
    print(f"{'players':>7} {'hidden':>6} {'n':>4} {'mean':>9} {'max':>9}")
    for players in counts:
        buckets = deduction_times(players, args.deduce_games, args.seed)
        for hidden in sorted(buckets, reverse=True):
            if hidden % 4 and hidden != max(buckets):
                continue  # every 4th row, plus the largest
            xs = buckets[hidden]
            print(f"{players:>7} {hidden:>6} {len(xs):>4} {statistics.mean(xs):>9.4f} {max(xs):>9.4f}")

    print("\n== worst case: set-up without info tokens, more colours (CPU seconds) ==")
    print(f"{'players':>7} {'hidden':>6} {'red':>7} {'yellow':>7} {'states':>7} {'seconds':>8}")
    for players in counts:
        for reds, red_in, yellows, yellow_in in (((3, 8), 1, (4, 10), 2), ((2, 5, 9), 2, (1, 4, 7, 10), 4),
                                                 ((1, 3, 6, 9, 11), 3, (2, 5, 8, 11), 4)):
            pos = untokened_view(players, args.seed, reds, red_in, yellows, yellow_in)
            start = time.process_time()
            d = deduce(pos)
            plays(d)
            print(f"{players:>7} {pos.hidden_count():>6} {f'{red_in}/{len(reds)}':>7} "
                  f"{f'{yellow_in}/{len(yellows)}':>7} {d.states:>7} {time.process_time() - start:>8.3f}")
    print("\n== policy 'likely' (most likely cut), standard set-up ==")
    print(f"{'players':>7} {'games':>6} {'games/s':>8} {'win rate':>9} {'95% CI':>20}")
    for players in counts:
        rs = SPEC.default().with_overrides({"players": players}, spec=SPEC.schema, source="bench")
        out = simulate(rs, args.games, args.seed, "likely")
        lo, hi = out["win_rate"]["ci95"]
        print(f"{players:>7} {out['games']:>6} {out['games_per_second']:>8.2f} "
              f"{out['win_rate']['mean']:>9.3f} {f'[{lo:.3f}, {hi:.3f}]':>20}")


if __name__ == "__main__":
    main()
