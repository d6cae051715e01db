"""Bench for Presentes: simulated games per second, and exact-solve states and seconds.

    .venv/bin/python bench/bench_presentes.py [--games N] [--seed S] [--dice 1,2] [--no-exact] [--json]
    .venv/bin/python bench/bench_presentes.py --quick   # what `make bench` runs: 1,024 games, 1 die

Part 1 runs the numpy simulator (eager policy) for 2, 8 and 32 players on Curta, Média and Longa
with each die count and prints games per second (target: at least 1,000 for 32 players on Longa
with 2 dice) and the mean game length with its 95% interval. Part 2 runs the exact analysis
(turn-start Markov chain, exact rationals) on the small configurations and prints turn starts,
seconds (wall and CPU) and the exact mean number of turns (target: 2 players on Curta with 1 die
within 10 s).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import Report, add_arguments, peak_mib  # noqa: E402

from ruleproof.model.presentes import SPEC  # noqa: E402
from ruleproof.model.presentes.config import rules_of  # noqa: E402
from ruleproof.model.presentes.exact import analyse  # noqa: E402
from ruleproof.model.presentes.simulate import run_games, summarise  # noqa: E402

EXACT_CONFIGS = [("tiny", 2, 1), ("mini", 2, 1), ("tiny", 3, 1), ("curta", 2, 1), ("curta", 2, 2)]


def ruleset(board: str, players: int, dice: int):
    return SPEC.default().with_overrides({"board": board, "players": players, "dice": dice},
                                         spec=SPEC.schema, source="bench")


def simulation_rows(games: int, seed: int, dice_counts: list[int]) -> list[dict]:
    rows = []
    for dice in dice_counts:
        for board in ("curta", "media", "longa"):
            for players in (2, 8, 32):
                rules, _ = rules_of(ruleset(board, players, dice))
                run_games(rules, 32, seed)  # warm-up
                start = time.perf_counter()
                raw = run_games(rules, games, seed)
                seconds = time.perf_counter() - start
                turns = summarise(rules, raw)["turns"]
                rows.append({"board": board, "players": players, "dice": dice, "games": games,
                             "seconds": round(seconds, 3), "games_per_second": round(games / seconds),
                             "mean_turns": round(turns["mean"], 2),
                             "ci95": [round(x, 2) for x in turns["ci95"]]})
                print(f"simulate {board:6s} {players:2d} players {dice} dice: "
                      f"{games / seconds:9.0f} games/s   turns {turns['mean']:7.2f} "
                      f"[{turns['ci95'][0]:.2f}, {turns['ci95'][1]:.2f}]", file=sys.stderr)
    return rows


def exact_rows(configs=EXACT_CONFIGS) -> list[dict]:
    rows = []
    for board, players, dice in configs:
        game = SPEC.build(ruleset(board, players, dice))
        wall, cpu = time.perf_counter(), time.process_time()
        res = analyse(game, policy="eager", horizon=100, focal=None)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        rows.append({"board": board, "players": players, "dice": dice, "states": res["states"],
                     "seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
                     "mean_turns": str(res["mean_turns"]), "mean_turns_float": float(res["mean_turns"]),
                     "first": [float(x) for x in res["first"]], "peak_mib": peak_mib()})
        print(f"exact    {board:6s} {players:2d} players {dice} dice: {res['states']:7d} turn starts "
              f"{wall:6.2f} s ({cpu:.2f} s CPU)  mean turns {float(res['mean_turns']):.6f}",
              file=sys.stderr)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=4096)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dice", default="1,2")
    ap.add_argument("--no-exact", action="store_true")
    ap.add_argument("--json", action="store_true")
    add_arguments(ap)
    args = ap.parse_args()
    if args.quick:
        args.games, args.dice = 1024, "1"
    doc = {"simulate": simulation_rows(args.games, args.seed, [int(d) for d in args.dice.split(",")])}
    if not args.no_exact:
        doc["exact"] = exact_rows(EXACT_CONFIGS[:2] + EXACT_CONFIGS[3:4] if args.quick else EXACT_CONFIGS)
    if args.json:
        print(json.dumps(doc, indent=1))
        return
    # peak memory: this one process's high-water mark so far (the runs share it; it only grows)
    report = Report("presentes")
    for r in doc.get("exact", []):
        report.add(f"exact {r['board']} {r['players']}p {r['dice']}d", r["states"], r["seconds"], r["peak_mib"],
                   unit="turn starts")
    for r in doc["simulate"]:
        report.add(f"simulate {r['board']} {r['players']}p {r['dice']}d", r["games"], r["seconds"], None,
                   unit="games")
    report.finish(args)


if __name__ == "__main__":
    main()
