#!/usr/bin/env python3
"""Exact-arithmetic bench (solver/rational.py, python-flint): rational solves of cyclic games.

Part 1: Pig's exact solve (``solve(..., exact=True)``: every value a fraction) at the given goals;
target: goal 30 under 5 s (the Fraction Gauss-Jordan it replaced took 49 s).
Part 2: Presentes' exact analysis (turn-start chain, eager policy, 2 players, 1 die) on each board
under the default P03 and under P03 ``bounce``, whose exact landing makes long cycles; target:
bounce within 3x of the default on the same board.

Each run happens in its own process, so peak memory (max RSS) is per run. Prints states, wall and
CPU seconds (the targets are judged on CPU seconds, which a busy shared machine does not inflate;
the ratio uses CPU seconds too), states per second, peak MiB and the value (as a float).

    python bench/bench_exact.py                       # Pig 20,30; Presentes mini, curta
    python bench/bench_exact.py --pig-goals 30 --boards mini --json
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
PIG_TARGET = 5.0        # seconds for the exact solve of goal 30
BOUNCE_RATIO = 3.0      # bounce / default, same board


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_pig(goal: int) -> dict:
    sys.path.insert(0, str(ROOT))
    from ruleproof.model.pig.game import Pig
    from ruleproof.solver.explore import explore
    from ruleproof.solver.solve import solve
    ex = explore(Pig(goal=goal))
    start, cpu = time.perf_counter(), time.process_time()
    sol = solve(ex, exact=True)
    return {"case": f"pig goal {goal}", "states": ex.num_states, "cyclic": sol.cyclic_states,
            "seconds": time.perf_counter() - start, "cpu_seconds": time.process_time() - cpu,
            "explore_seconds": ex.seconds,
            "value": float(sol.initial_exact[0]), "peak_mib": peak_mib()}


def child_presentes(board: str, p03: str) -> dict:
    sys.path.insert(0, str(ROOT))
    from ruleproof.model.presentes import SPEC
    from ruleproof.model.presentes.exact import analyse
    rs = SPEC.default().with_overrides({"board": board, "players": 2, "dice": 1}, {"P03": p03},
                                       spec=SPEC.schema, source="bench")
    game = SPEC.build(rs)
    start, cpu = time.perf_counter(), time.process_time()
    res = analyse(game, policy="eager", horizon=100)
    return {"case": f"presentes {board} P03={p03}", "states": res["states"],
            "seconds": time.perf_counter() - start, "cpu_seconds": time.process_time() - cpu, "value": float(res["mean_turns"]),
            "peak_mib": peak_mib()}


def run_child(args: list[str], timeout: float) -> dict:
    case = " ".join(args)
    try:
        proc = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"case": case, "error": f"did not finish within {timeout:g} s"}
    if proc.returncode != 0:
        return {"case": case, "error": (proc.stderr.strip().splitlines() or ["no output"])[-1]}
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"case": case, "error": "the child printed no result"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pig-goals", default="20,30")
    ap.add_argument("--boards", default="mini,curta")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, *rest = args.child
        print(json.dumps(child_pig(int(rest[0])) if kind == "pig" else child_presentes(*rest)))
        return
    rows = [run_child(["pig", g], args.timeout) for g in args.pig_goals.split(",") if g]
    for board in (b for b in args.boards.split(",") if b):
        rows += [run_child(["presentes", board, p03], args.timeout) for p03 in ("reach-or-pass", "bounce")]
    print(f"{'case':<34} {'states':>8} {'seconds':>8} {'CPU s':>7} {'states/s':>9} {'peak MiB':>9}  value")
    for r in rows:
        if "error" in r:
            print(f"{r['case']:<34} {r['error']}")
            continue
        rate = r["states"] / r["seconds"] if r["seconds"] else float("inf")
        print(f"{r['case']:<34} {r['states']:>8} {r['seconds']:>8.2f} {r['cpu_seconds']:>7.2f} {rate:>9.0f} "
              f"{r['peak_mib']:>9.0f}  "
              f"{r['value']:.9f}")
    by_case = {r["case"]: r for r in rows if "error" not in r}
    pig30 = by_case.get("pig goal 30")
    if pig30:
        print(f"pig goal 30 exact: {pig30['cpu_seconds']:.2f} CPU s (target < {PIG_TARGET:g} s): "
              + ("met" if pig30["cpu_seconds"] < PIG_TARGET else "MISSED"))
    for board in (b for b in args.boards.split(",") if b):
        base = by_case.get(f"presentes {board} P03=reach-or-pass")
        bounce = by_case.get(f"presentes {board} P03=bounce")
        if base and bounce:
            ratio = bounce["cpu_seconds"] / base["cpu_seconds"]
            print(f"presentes {board}: bounce / default = {ratio:.2f}x (target <= {BOUNCE_RATIO:g}x): "
                  + ("met" if ratio <= BOUNCE_RATIO else "MISSED"))
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
