"""Loira bench ladder: from tiny rounds up to the largest the specialised solver finishes.

Each rung is a 2-player round (default rulings) with the first ``cards`` cards of a fixed order of
the standard 2-player deck, some score stalls and rolls in the centre. For each rung it prints the
turn states stored, seconds, states per second, bytes per stored state (the C hash table) and the
peak memory of the process that solved it (each rung runs in its own subprocess). The first rungs
are also solved by the exact rational Python solver (its states: every node) and by the generic
pipeline (``solver.explore`` + ``solver.solve`` in floats, every node; with the invariant checks
as ``ruleproof solve`` runs it, and without) for comparison.

    .venv/bin/python bench/bench_loira.py [--max-seconds 120] [--python-upto 8] [--generic-upto 8] [--json]
    .venv/bin/python bench/bench_loira.py --quick      # what `make bench` runs: up to 12 cards, generic up to 10
    .venv/bin/python bench/bench_loira.py --regret [--regret-upto 8]

``--ooc DIR --rung N [--partitions P] [--workers W]`` solves rung N out of core in DIR
(``model/loira/ooc.py``; resumes when DIR holds a killed run) and prints its per-layer figures.

``--regret`` instead measures each practical policy's exact regret (optimal value minus the value
it gets against a best-responding opponent, per seat) on every rung the exact rational solver
reaches (up to ``--regret-upto`` cards).
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import Report, add_arguments  # noqa: E402

#: the standard 2-player deck (nulls removed), in the order rungs take it
ORDER = ["F1", "F2", "M1", "grito", "M2", "toc-toc", "P1", "grito", "descarga", "P2", "fios", "chute",
         "espelho", "interruptor", "grito", "F1", "M1", "P1", "F2", "M2", "P2", "toc-toc", "toc-toc",
         "F1", "M1", "P1", "F2", "M2", "P2"]
RUNGS = [  # (cards, score stalls, centre rolls)
    (4, [2, 4], 1), (6, [2, 4], 1), (8, [2, 3, 4], 1), (10, [2, 3, 4], 2), (12, [2, 3, 4], 2),
    (13, [2, 3, 4, 4], 3), (14, [2, 3, 3, 4], 3), (15, [2, 2, 3, 4, 4], 3), (16, [2, 2, 3, 3, 4, 4], 3),
    (17, [2, 2, 3, 3, 4, 4], 3), (18, [2, 2, 3, 3, 4, 4], 3), (19, [2, 2, 3, 3, 4, 4], 3),
    (20, [2, 2, 3, 3, 4, 4], 3), (29, [2, 2, 3, 3, 4, 4], 3),
]


def params(rung: int) -> dict:
    cards, stalls, rolls = RUNGS[rung]
    return {"players": 2, "deck": ORDER[:cards], "stalls": stalls, "centre_rolls": rolls}


def run_rung(rung: int, engine: str) -> dict:
    from types import MappingProxyType

    from ruleproof.model.loira import SPEC, build
    from ruleproof.model.ruleset import Ruleset
    p, r = SPEC.schema.defaults()
    rs = Ruleset("loira", "bench", MappingProxyType(p), MappingProxyType(r), "bench")
    rs = rs.with_overrides(params(rung), spec=SPEC.schema)
    game = build(rs)
    if engine == "fast":
        from ruleproof.model.loira import fast
        res = fast.solve(game.cfg)
        value, states, seconds = res["value"], res["states"], res["seconds"]
        extra = {"bytes_per_state": round(res["bytes_per_state"], 1), "visits": res["visits"]}
    elif engine in ("generic", "generic-nochecks"):
        # the game-independent pipeline: explore every node, solve in floats; "generic" checks the
        # invariants on every new state as `ruleproof solve` does, "generic-nochecks" does not
        from ruleproof.solver.explore import explore
        from ruleproof.solver.solve import solve
        start, cpu = time.perf_counter(), time.process_time()
        ex = explore(game, check_invariants=engine == "generic")
        explored = time.perf_counter()
        sol = solve(ex)
        seconds = time.perf_counter() - start
        value, states = sol.initial[0], ex.num_states
        extra = {"explore_seconds": round(explored - start, 3), "solve_seconds": round(seconds - (explored - start), 3),
                 "cpu_seconds": round(time.process_time() - cpu, 3), "edges": ex.num_edges}
        # on a shared machine the process's CPU seconds are the figure to compare (docs/bench.md)
        extra["cpu_states_per_second"] = round(states / extra["cpu_seconds"]) if extra["cpu_seconds"] else None
    else:
        from ruleproof.model.loira.exact import solve
        start = time.perf_counter()
        sol = solve(game)
        seconds = time.perf_counter() - start
        value, states = float(sol.value(game.initial_state())[0]), sol.states
        extra = {}
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    cards, stalls, rolls = RUNGS[rung]
    return {"rung": rung, "engine": engine, "cards": cards, "stalls": len(stalls), "rolls": rolls,
            "value": value, "states": states, "seconds": round(seconds, 4),
            "states_per_second": round(states / seconds) if seconds else None,
            "peak_bytes": peak, **extra}


REGRET_POLICIES = ["near-optimal", "lookahead-margin", "lookahead", "lead", "never-before-grito", "stop-at-3",
                   "stop-at-5", "stop-at-7", "always-go"]


def regret_table(upto: int) -> list[dict]:
    from types import MappingProxyType

    from ruleproof.model.loira import SPEC, build
    from ruleproof.model.loira.exact import regret, solve
    from ruleproof.model.loira.policies import POLICIES
    from ruleproof.model.ruleset import Ruleset
    p, r = SPEC.schema.defaults()
    base = Ruleset("loira", "bench", MappingProxyType(p), MappingProxyType(r), "bench")
    rows = []
    for rung, (cards, _, _) in enumerate(RUNGS):
        if cards > upto:
            break
        game = build(base.with_overrides(params(rung), spec=SPEC.schema))
        opt = solve(game)
        row = {"cards": cards, "optimal_seat0": str(opt.value(game.initial_state())[0])}
        for name in REGRET_POLICIES:
            per_seat = regret(game, POLICIES[name], opt)
            row[name] = [round(float(per_seat[s]["regret"]), 4) for s in range(2)]
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-seconds", type=float, default=120.0, help="stop after a rung this slow")
    ap.add_argument("--python-upto", type=int, default=8, help="also run the Python solver up to this many cards")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--regret", action="store_true", help="measure policy regret instead")
    ap.add_argument("--regret-upto", type=int, default=8)
    ap.add_argument("--ooc", metavar="DIR", help="solve --rung out of core in DIR")
    ap.add_argument("--partitions", type=int, default=8, help="with --ooc: partitions per layer")
    ap.add_argument("--workers", type=int, default=0, help="with --ooc: Dask worker processes")
    ap.add_argument("--rung", type=int, help="with --ooc: the rung (0-based index)")
    ap.add_argument("--forward-only", type=int, metavar="N", help="with --ooc: list layers 0..N-1 only")
    ap.add_argument("--engine", default="fast", help=argparse.SUPPRESS)
    ap.add_argument("--generic-upto", type=int, default=8, help="also run the generic pipeline up to this many cards")
    add_arguments(ap)
    args = ap.parse_args()
    if args.quick:   # the rungs up to 12 cards (a few seconds each); the slow engines on the smallest
        args.max_seconds, args.python_upto, args.generic_upto = 2.0, 6, 10
    if args.regret:
        regret_table(args.regret_upto)
        return
    if args.ooc:
        from ruleproof.model.loira import ooc
        cfg = ooc.config_from(params(args.rung))
        res = ooc.solve(cfg, args.ooc, args.partitions, args.workers,
                        progress=lambda phase, row: print(phase, json.dumps(row), flush=True),
                        forward_only=args.forward_only)
        print(json.dumps({"rung": args.rung, "cards": RUNGS[args.rung][0], **res}))
        return
    if args.rung is not None:
        print(json.dumps(run_rung(args.rung, args.engine)))
        return
    rows = []
    report = Report("loira")
    for rung, (cards, _, _) in enumerate(RUNGS):
        engines = (["fast"] + (["python"] if cards <= args.python_upto else [])
                   + (["generic", "generic-nochecks"] if cards <= args.generic_upto else []))
        slow = False
        for engine in engines:
            proc = subprocess.run([sys.executable, __file__, "--rung", str(rung), "--engine", engine],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
                print(f"rung {rung} ({engine}) failed: {proc.stderr.strip()[-300:]}", file=sys.stderr)
                report.fail(f"{engine} {cards} cards", last)
                slow = True
                continue
            row = json.loads(proc.stdout)
            rows.append(row)
            report.add(f"{engine} {cards} cards", row["states"], row["seconds"], row["peak_bytes"] / 2**20)
            if not args.json:
                print(f"{row['engine']:>6} cards {row['cards']:>2} stalls {row['stalls']} rolls {row['rolls']}: "
                      f"{row['states']:>11,} states {row['seconds']:>9.3f} s "
                      f"{row['states_per_second'] or 0:>10,} states/s "
                      f"{row.get('bytes_per_state', '-'):>6} B/state peak {row['peak_bytes'] / 2**20:8.1f} MiB "
                      f"value {row['value']:+.6f}"
                      + (f" (CPU {row['cpu_seconds']:.2f} s, {row['cpu_states_per_second'] or 0:,} states/CPU s)"
                         if "cpu_seconds" in row else ""), flush=True)
            slow = slow or (engine == "fast" and row["seconds"] > args.max_seconds)
        if slow:
            break
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        report.finish(args)


if __name__ == "__main__":
    main()
