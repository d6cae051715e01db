"""Storm vs ruleproof on the same model: states, seconds, states per second and peak memory.

    .venv/bin/python bench/bench_storm.py [--goals 10 20 30]

For each two-player Pig goal: *ours* explores and solves exactly (the optimal policy's values as
Fractions); *Storm* loads our exported best-response MDP (seat 1 fixed to our policy, seat 0 free;
DRN, rational numbers) and computes Pmax(seat 0 wins) in its exact mode -- the same number, found
by optimising over every state seat 0 can reach. Each side runs in its own process so that the peak resident memory
(ru_maxrss) is its own. Storm's time excludes our export; the export time is printed beside it.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import Report, add_arguments  # noqa: E402


def ours(goal: int) -> dict:
    from ruleproof.model.pig.game import Pig
    from ruleproof.solver.explore import explore
    from ruleproof.solver.solve import solve
    start = time.perf_counter()
    ex = explore(Pig(goal=goal))
    sol = solve(ex, exact=True)
    return {"states": ex.num_states, "seconds": time.perf_counter() - start,
            "value": str(sol.exact[0][0])}


def storm(goal: int) -> dict:
    import stormpy

    from ruleproof.model.pig.game import Pig
    from ruleproof.solver.explore import explore
    from ruleproof.solver.export import build_model, optimal_chooser, renumber, write_model
    from ruleproof.solver.solve import solve
    start = time.perf_counter()
    ex = explore(Pig(goal=goal))
    chain = renumber(build_model(ex, optimal_chooser(solve(ex, exact=True)), free_seats=[0]))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "chain.drn"
        with path.open("w") as fh:
            write_model(chain, "drn", fh)
        export_seconds = time.perf_counter() - start
        start = time.perf_counter()
        model = stormpy.build_model_from_drn[stormpy.Rational](str(path))
        prop = stormpy.parse_properties('Pmax=? [F "win0"]')[0]
        result = stormpy.model_checking(model, prop, only_initial_states=True,
                                        environment=stormpy.environments.exact())
        value = str(result.get_value(model.initial_states[0]))
    return {"states": model.nr_states, "seconds": time.perf_counter() - start, "value": value,
            "export_seconds": export_seconds}


def child(side: str, goal: int) -> None:
    doc = (ours if side == "ours" else storm)(goal)
    doc["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(doc))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goals", type=int, nargs="+", default=[10, 20, 30])
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    add_arguments(parser)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return
    if args.quick:
        args.goals = [10, 20]
    report = Report("storm")
    print(f"{'goal':>4} {'side':>5} {'states':>8} {'seconds':>8} {'states/s':>10} {'peak MB':>8}  value")
    for goal in args.goals:
        for side in ("ours", "storm"):
            run = subprocess.run([sys.executable, __file__, "--child", side, str(goal)],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                last = (run.stderr.strip().splitlines() or ["no output"])[-1]
                print(f"{goal:>4} {side:>5} failed: {last}")
                report.fail(f"{side} goal {goal}", last)
                continue
            d = json.loads(run.stdout)
            report.add(f"{side} goal {goal}", d["states"], d["seconds"], d["peak_mb"])
            rate = d["states"] / d["seconds"] if d["seconds"] else float("inf")
            note = f" (export {d['export_seconds']:.2f} s before)" if "export_seconds" in d else ""
            print(f"{goal:>4} {side:>5} {d['states']:>8} {d['seconds']:>8.3f} {rate:>10.0f} "
                  f"{d['peak_mb']:>8.1f}  {d['value']}{note}")
    report.finish(args)


if __name__ == "__main__":
    main()
