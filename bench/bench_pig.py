#!/usr/bin/env python3
"""Pig benchmark: ruleproof's exhaustive solve vs OpenSpiel's value iteration, side by side.

Each run happens in its own process so that peak memory (max RSS) is measured per run.
Prints states, seconds (wall and CPU), states per second, peak memory and the first player's win
probability, and for ruleproof the split between exploring and solving; then, for goals both
engines finish, the value difference and the time ratios (wall and CPU, from this one run).

    python bench/bench_pig.py                       # ruleproof at 20, 50, 100; OpenSpiel at 20, 50 (~2 min)
    python bench/bench_pig.py --quick               # what `make bench` runs: ruleproof 20, 50, 100; OpenSpiel 20
    python bench/bench_pig.py --openspiel-goals 20,30,50 --openspiel-timeout 600

OpenSpiel is optional (``pip install open-spiel``); its values are 2p - 1 for win probability p.
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import Report, add_arguments  # noqa: E402


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_ours(goal: int) -> dict:
    sys.path.insert(0, str(ROOT))
    from ruleproof.model.pig.game import Pig
    from ruleproof.solver.explore import explore
    from ruleproof.solver.solve import solve
    start, cpu = time.perf_counter(), time.process_time()
    ex = explore(Pig(goal=goal))
    explored = time.process_time()
    sol = solve(ex)
    seconds = time.perf_counter() - start
    return {"engine": "ruleproof", "goal": goal, "states": ex.num_states, "seconds": seconds,
            "cpu_seconds": time.process_time() - cpu, "explore_seconds": ex.seconds,
            "solve_seconds": sol.seconds, "explore_cpu": explored - cpu,
            "solve_cpu": time.process_time() - explored, "method": sol.method,
            "p_first": sol.initial[0], "peak_mib": peak_mib()}


def child_openspiel(goal: int) -> dict:
    import threading
    sys.setrecursionlimit(10_000_000)          # its state enumeration recurses along plays
    threading.stack_size(1024 * 1024 * 1024)
    result: dict = {}

    def run() -> None:
        try:
            import pyspiel
            sys.path.insert(0, str(ROOT))
            # OpenSpiel's own value_iteration, through the adapter's loader (without cvxpy, which it
            # needs only at simultaneous moves, a refusing stand-in takes lp_solver's place)
            from ruleproof.solver.openspiel_adapter import value_iteration
            game = pyspiel.load_game("pig", {"winscore": goal})
            start, cpu = time.perf_counter(), time.process_time()
            values = value_iteration(game, threshold=1e-6, cyclic=True)
            seconds = time.perf_counter() - start
            v0 = values[str(game.new_initial_state())]
            result.update(engine="openspiel", goal=goal, states=len(values), seconds=seconds,
                          cpu_seconds=time.process_time() - cpu, p_first=(v0 + 1) / 2, peak_mib=peak_mib())
        except BaseException as exc:  # noqa: BLE001 - a thread swallows exceptions: report it instead
            result["error"] = f"{type(exc).__name__}: {exc}"
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in result:
        sys.stderr.write(result["error"] + "\n")
        sys.exit(1)
    return result


def run_child(engine: str, goal: int, timeout: float) -> dict:
    cmd = [sys.executable, __file__, "--child", engine, str(goal)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"engine": engine, "goal": goal, "error": f"did not finish within {timeout:g} s"}
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"engine": engine, "goal": goal, "error": last}
    try:
        row = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"engine": engine, "goal": goal, "error": "the child printed no result"}
    needed = {"engine", "goal", "states", "seconds", "p_first", "peak_mib"}
    if not needed <= set(row):
        return {"engine": engine, "goal": goal, "error": f"incomplete result: {sorted(row)}"}
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--goals", default="20,50,100")
    parser.add_argument("--openspiel-goals", default="20,50")
    parser.add_argument("--openspiel-timeout", type=float, default=900)
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "GOAL"), help=argparse.SUPPRESS)
    add_arguments(parser)
    args = parser.parse_args()
    if args.quick:
        args.goals, args.openspiel_goals = "20,50,100", "20"
    if args.child:
        engine, goal = args.child[0], int(args.child[1])
        print(json.dumps(child_ours(goal) if engine == "ruleproof" else child_openspiel(goal)))
        return

    rows = [run_child("ruleproof", int(g), 3600) for g in args.goals.split(",") if g]
    try:
        import open_spiel  # noqa: F401
    except ImportError:
        rows += [{"engine": "openspiel", "goal": int(g), "error": "not installed (pip install open-spiel)"}
                 for g in args.openspiel_goals.split(",") if g]
    else:
        rows += [run_child("openspiel", int(g), args.openspiel_timeout)
                 for g in args.openspiel_goals.split(",") if g]
    print(f"{'engine':<10} {'goal':>4} {'states':>10} {'seconds':>9} {'CPU s':>8} {'states/s':>10} "
          f"{'peak MiB':>9}  P(first wins)")
    for r in rows:
        if "error" in r:
            print(f"{r['engine']:<10} {r['goal']:>4}  {r['error']}")
            continue
        rate = r["states"] / r["seconds"] if r["seconds"] else float("inf")
        cpu = f"{r['cpu_seconds']:>8.2f}" if "cpu_seconds" in r else f"{'-':>8}"
        print(f"{r['engine']:<10} {r['goal']:>4} {r['states']:>10} {r['seconds']:>9.2f} {cpu} {rate:>10.0f} "
              f"{r['peak_mib']:>9.0f}  {r['p_first']:.9f}")
        if "explore_cpu" in r:
            print(f"{'':<16} explore {r['explore_seconds']:.3f} s ({r['explore_cpu']:.3f} CPU), "
                  f"solve {r['solve_seconds']:.3f} s ({r['solve_cpu']:.3f} CPU): {r['method']}")
    ours = {r["goal"]: r for r in rows if r["engine"] == "ruleproof" and "error" not in r}
    for r in rows:
        if r["engine"] == "openspiel" and "error" not in r and r["goal"] in ours:
            o = ours[r["goal"]]
            cpu = (f", CPU {r['cpu_seconds'] / o['cpu_seconds']:.0f}x"
                   if r.get("cpu_seconds") and o.get("cpu_seconds") else "")
            print(f"goal {r['goal']}: OpenSpiel/ruleproof time ratio {r['seconds'] / o['seconds']:.0f}x (wall){cpu}, "
                  f"value difference {abs(r['p_first'] - o['p_first']):.2e} (OpenSpiel threshold 1e-6)")
    report = Report("pig")
    for r in rows:
        run = f"{r['engine']} goal {r['goal']}"
        if "error" in r:
            report.fail(run, r["error"])
        else:
            report.add(run, r["states"], r["seconds"], r["peak_mib"])
            if r.get("cpu_seconds"):   # comparable from run to run on a shared machine, as wall is not
                report.add(f"{run}, CPU", r["states"], r["cpu_seconds"], None)
    report.finish(args)


if __name__ == "__main__":
    main()
