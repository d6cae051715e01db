#!/usr/bin/env python3
"""The generic pipeline's cost per state on every registered game: the explorer and the solver.

Games come from the registry (``model/registry.py``), two configurations each:

* ``small``: the game's small configuration (``GameSpec.verify_overrides``, what ``verify``
  explores), explored with the invariant checks (as ``ruleproof solve`` explores), then solved in
  floats twice: by the compiled pass (``solver/sccsolve.c``) and by the numpy levels it stands in for.
  With ``--cyclic`` (the full run), also the ruling reading of that configuration with the most states
  on cycles, when one has more than the default reading (where the cyclic solver works).
* ``default``: the game's default ruleset, explored until ``--max-states`` (the explorer's cost per
  state needs no complete graph; ``--explore-seconds`` is a safety stop), then solved when the graph
  is complete (Pig's goal 100 in the full run).

Every figure is process CPU seconds (``time.process_time``; on a shared machine wall clock is not
comparable), each configuration in its own process (peak memory per run). Per state: microseconds
of CPU per explored state; per cyclic state: the solve's microseconds per state on a cycle (where
there are such states), and how many times the Gauss-Seidel sweeps backed up each state on a cycle.

    python bench/bench_generic.py                # default ruleset up to 1.1M states; --cyclic (~1 min)
    python bench/bench_generic.py --quick        # what `make bench` runs: up to 100,000 states
    python bench/bench_generic.py --games pig,loira
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import Report, add_arguments, peak_mib  # noqa: E402


def _explore_and_solve(game, max_states: int | None, seconds: float | None) -> dict:
    from ruleproof.solver.explore import explore
    from ruleproof.solver.solve import solve
    cpu = time.process_time()
    ex = explore(game, max_states=max_states, timeout=seconds)
    row = {"states": ex.num_states, "edges": ex.num_edges, "complete": ex.complete,
           "explore_cpu": time.process_time() - cpu, "batch": type(ex.keys).__name__ == "IntList"}
    if ex.complete:
        from ruleproof.solver import sccsolve
        solved = {}
        for native in (True, False) if sccsolve.available() is None else (False,):
            cpu = time.process_time()
            solved[native] = solve(ex, native=native)
            row["solve_cpu_" + ("c" if native else "numpy")] = time.process_time() - cpu
        first = solved.get(True) or solved[False]
        row.update(cyclic=first.cyclic_states, value=list(first.initial), method=first.method,
                   backups=first.work.get("backups", 0), handed_back=first.work.get("handed_back", 0))
    return row


def child(game_name: str, which: str, max_states: int, seconds: float) -> dict:
    sys.path.insert(0, str(ROOT))
    from ruleproof.model.registry import get_spec
    spec = get_spec(game_name)
    if which == "default":
        ruleset = spec.default()
        label = f"default ({ruleset.name})"
        row = _explore_and_solve(spec.build(ruleset), max_states, seconds)
    elif which == "small":
        ruleset = spec.default().with_overrides(dict(spec.verify_overrides), spec=spec.schema, source="bench")
        label = "small"
        row = _explore_and_solve(spec.build(ruleset), None, None)
    else:   # "cyclic": the reading of the small configuration with the most states on cycles
        from ruleproof.solver.analysis import scenario_configs, scenario_ruleset
        from ruleproof.solver.explore import explore
        from ruleproof.solver.solve import solve
        best, best_cyclic = None, 0
        for name, params, rulings in scenario_configs(game_name)[1:]:   # [0]: the defaults, as "small"
            game = spec.build(scenario_ruleset(game_name, params, rulings, "bench"))
            ex = explore(game, check_invariants=False, max_states=max_states)
            if ex.complete:
                cyclic = solve(ex).cyclic_states
                if cyclic > best_cyclic:
                    best, best_cyclic = (name, game), cyclic
        small = spec.default().with_overrides(dict(spec.verify_overrides), spec=spec.schema, source="bench")
        ex = explore(spec.build(small), check_invariants=False, max_states=max_states)
        if best is None or (ex.complete and solve(ex).cyclic_states >= best_cyclic):
            return {"game": game_name, "config": "cyclic", "none": True}
        label = best[0]
        row = _explore_and_solve(best[1], None, None)
    row.update(game=game_name, config=label, peak_mib=peak_mib())
    return row


def run_child(game: str, which: str, max_states: int, seconds: float, timeout: float) -> dict:
    cmd = [sys.executable, __file__, "--child", game, which, str(max_states), str(seconds)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"game": game, "config": which, "error": f"did not finish within {timeout:g} s"}
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"game": game, "config": which, "error": last}
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"game": game, "config": which, "error": "the child printed no result"}


def micro(seconds: float, states: int) -> str:
    return f"{seconds / states * 1e6:7.2f}" if states else "      -"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="", help="comma-separated (default: every registered game)")
    parser.add_argument("--max-states", type=int, default=None, help="default 1,100,000 (quick: 100,000)")
    parser.add_argument("--explore-seconds", type=float, default=120.0)
    parser.add_argument("--cyclic", action=argparse.BooleanOptionalAction, default=None,
                        help="also the small configuration's reading with the most states on cycles "
                             "(default: in the full run)")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    add_arguments(parser)
    args = parser.parse_args()
    if args.child:
        game, which, max_states, seconds = args.child
        print(json.dumps(child(game, which, int(max_states), float(seconds))))
        return
    if args.max_states is None:
        args.max_states = 100_000 if args.quick else 1_100_000
    cyclic = (not args.quick) if args.cyclic is None else args.cyclic
    sys.path.insert(0, str(ROOT))
    from ruleproof.model.registry import GAMES
    games = [g for g in args.games.split(",") if g] or list(GAMES)
    rows = []
    for game in games:
        for which in ("small",) + (("cyclic",) if cyclic else ()) + ("default",):
            rows.append(run_child(game, which, args.max_states, args.explore_seconds, 900))

    print(f"{'game':<13} {'configuration':<28} {'states':>10} {'edges':>10} {'cyclic':>9}  "
          f"{'explore':>8} {'us/st':>7}  {'solve C':>8} {'us/st':>7} {'sweeps':>6}  "
          f"{'numpy':>8} {'us/st':>7}  {'MiB':>5}")
    report = Report("generic")
    for r in rows:
        if r.get("none"):
            continue
        if "error" in r:
            print(f"{r['game']:<13} {r['config']:<28} failed: {r['error']}")
            report.fail(f"{r['game']} {r['config']}", r["error"])
            continue
        n, cyc = r["states"], r.get("cyclic", 0)
        line = (f"{r['game']:<13} {r['config'][:28]:<28} {n:>10,} {r['edges']:>10,} "
                f"{cyc if r['complete'] else '-':>9}  {r['explore_cpu']:>8.3f} {micro(r['explore_cpu'], n)}")
        run = f"{r['game']} {r['config'].split(' (')[0]}"
        report.add(f"{run} explore", n, r["explore_cpu"], r["peak_mib"])
        if r["complete"]:
            numpy_s = r["solve_cpu_numpy"]
            if "solve_cpu_c" in r:
                c = r["solve_cpu_c"]
                sweeps = f"{r['backups'] / cyc:6.1f}" if cyc else "     -"
                line += f"  {c:>8.3f} {micro(c, n)} {sweeps}"
                report.add(f"{run} solve C", n, c, None)
            else:
                line += f"  {'no C':>8} {'':>7} {'':>6}"
                report.fail(f"{run} solve C", "the compiled pass is not available here")
            line += f"  {numpy_s:>8.3f} {micro(numpy_s, n)}"
            report.add(f"{run} solve numpy", n, numpy_s, None)
        else:
            line += f"  {'(partial: explorer only)':>33}"
        print(line + f"  {r['peak_mib']:>5.0f}")
    print("CPU seconds (here and in the summary below); us/st: microseconds per state; sweeps: the times "
          "the C pass's Gauss-Seidel sweeps backed up a state on a cycle, on average; explored with the "
          "invariant checks; peak MiB of the configuration's process")
    report.finish(args)


if __name__ == "__main__":
    main()
