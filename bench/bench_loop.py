"""The designer's loop, measured as a designer meets it: each step a real ``ruleproof`` process.

For each of three edits (a harmless Loira ruling, richer Loira stalls, a Presentes board) the loop
runs verify, compare, report --against, sweep, rulings rank and the game's rulings check, and prints each step's wall
seconds, CPU seconds (user + system of the child and everything it waited for: ``os.wait4``'s
rusage) and peak resident memory, with the exit code and the ratio to ``bench/baseline.json``
(key ``loop``). CPU seconds are the figure to compare between runs on a shared machine: wall
seconds grow with the load, which the summary states.

  python bench/bench_loop.py                  # the full-size loop (minutes under load)
  python bench/bench_loop.py --quick          # CI-sized: the board edit and a tiny Loira round
  python bench/bench_loop.py --only presentes --record-baseline
  python bench/bench_loop.py --only presentes --cache /tmp/loop-cache   # each step reusing the last's

A step that exits 1 (a regression found, a verdict undecided) is still a measured step: its exit
code is printed beside its figures; a step that cannot start or exits 2 is a failure line.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = Path(__file__).resolve().parent / "baseline.json"
BENCH = "loop"


@dataclass(frozen=True)
class Step:
    edit: str          # which edit's loop (the row's prefix)
    name: str          # verify, compare, report, sweep, rank
    argv: tuple[str, ...]

    @property
    def run(self) -> str:
        return f"{self.edit} {self.name}"


def loop_steps(edit: str, game: str, ruleset: str, sweep: str) -> list[Step]:
    """The designer's loop on one edited ruleset (``ruleset``) of ``game``."""
    return [Step(edit, "verify", ("verify", ruleset)),
            Step(edit, "compare", ("compare", game, ruleset)),
            Step(edit, "report --against", ("report", ruleset, "--against", game)),
            Step(edit, "sweep", ("sweep", ruleset, "--param", sweep)),
            Step(edit, "rulings rank", ("rulings", "rank", ruleset)),
            Step(edit, "rulings check", ("rulings", "check", game))]


def full_loop() -> list[Step]:
    return (loop_steps("loira harmless", "loira", "model/loira/examples/harmless-ruling.toml", "centre_rolls=0..3")
            + loop_steps("loira stalls", "loira", "model/loira/examples/richer-stalls.toml", "centre_rolls=0..3")
            + loop_steps("presentes board", "presentes", "model/presentes/examples/board-edit.toml", "dice=1..2"))


def quick_loop() -> list[Step]:
    """CI-sized: the Loira loop on the tiny round (the edit given as a ruling on the command line:
    L07=no, the harmless one) and Presentes' mini board."""
    tiny, mini = "model/loira/examples/tiny.toml", "presentes-mini"
    return [Step("loira tiny", "verify", ("verify", tiny, "--ruling", "L07=no")),
            Step("loira tiny", "compare", ("compare", tiny, "--ruling", "L07=no")),
            Step("loira tiny", "sweep", ("sweep", tiny, "--param", "centre_rolls=0..2")),
            Step("loira tiny", "rulings rank", ("rulings", "rank", tiny)),
            Step("presentes mini", "verify", ("verify", mini)),
            Step("presentes mini", "sweep", ("sweep", mini, "--param", "dice=1..2"))]


def with_cache(step: Step, folder: Path) -> Step:
    """The step run with ``--cache folder`` where its command takes one (rulings check does not)."""
    if step.argv[0] not in ("verify", "compare", "report", "sweep") and step.argv[:2] != ("rulings", "rank"):
        return step
    return Step(step.edit + " (cached)", step.name, step.argv + ("--cache", str(folder)))


def ruleproof_command() -> list[str]:
    """The ``ruleproof`` beside this interpreter (the worktree's venv), else the one on PATH."""
    here = Path(sys.executable).with_name("ruleproof")
    if here.exists():
        return [str(here)]
    found = shutil.which("ruleproof")
    return [found] if found else [sys.executable, "-m", "ruleproof"]


def measure(step: Step, command: list[str], limit: float | None) -> dict:
    """Run one step; its wall seconds, and from ``os.wait4`` its own CPU seconds (user + system,
    with whatever it waited for) and peak resident memory, and how it ended."""
    import tempfile
    import threading
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(command + list(step.argv), cwd=ROOT, stdout=out, stderr=err, text=True)
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            proc.kill()
        timer = threading.Timer(limit, kill) if limit else None
        if timer:
            timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if timer:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if killed.is_set():
        return {"run": step.run, "error": f"still running after {limit:g} s (killed)"}
    row = {"run": step.run, "wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
           "peak_mib": usage.ru_maxrss / 1024, "exit": proc.returncode, "stdout": stdout, "stderr": stderr}
    if row["exit"] not in (0, 1):
        last = (stderr.strip().splitlines() or stdout.strip().splitlines() or ["?"])[-1]
        return {"run": step.run, "error": f"exit {row['exit']}: {last[:160]}"}
    return row


def run_steps(steps: list[Step], command: list[str], limit: float | None, show) -> list[dict]:
    rows = []
    for step in steps:
        row = measure(step, command, limit)
        rows.append(row)
        show(row, step)
    return rows


def baseline() -> dict:
    try:
        return json.loads(BASELINE.read_text()).get(BENCH, {})
    except (OSError, json.JSONDecodeError) as exc:
        print(f"(baseline not read: {BASELINE}: {exc})")
        return {}


def versus(row: dict, base: dict) -> str:
    """CPU seconds against the baseline's (CPU, not wall: the machine is shared)."""
    b = base.get(row["run"])
    if b is None:
        return "no baseline"
    if not row["cpu"] or not b.get("cpu"):
        return "-"
    return f"{b['cpu'] / row['cpu']:.2f}x CPU ({b['cpu']:.3g} s CPU, {b['wall']:.3g} s wall before)"


def line(row: dict, base: dict) -> str:
    if "error" in row:
        return f"{row['run']:<42} failed: {row['error']}"
    return (f"{row['run']:<42} {row['wall']:>8.1f} {row['cpu']:>8.1f} {row['peak_mib']:>9.0f} "
            f"{row['exit']:>5}  {versus(row, base)}")


HEADER = f"{'step':<42} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9} {'exit':>5}  vs baseline"


def load_words() -> str:
    load, cores = os.getloadavg(), os.cpu_count() or 1
    return f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1/5/15 min) on {cores} cores"


def record(rows: list[dict], load_before: str) -> None:
    try:
        doc = json.loads(BASELINE.read_text())
    except (OSError, json.JSONDecodeError):
        doc = {}
    mine = doc.setdefault(BENCH, {})
    source = f"bench_loop --record-baseline; at the start {load_before}; at the end {load_words()}"
    for r in rows:
        if "error" not in r:
            mine[r["run"]] = {"wall": round(r["wall"], 2), "cpu": round(r["cpu"], 2),
                              "peak_mib": round(r["peak_mib"], 1), "exit": r["exit"], "source": source}
    tmp = BASELINE.with_name(BASELINE.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, BASELINE)
    print(f"(baseline for {BENCH} written to {BASELINE})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="CI-sized: the board edit's loop and the tiny Loira round")
    parser.add_argument("--only", default="", help="run only the steps whose row starts with this (e.g. 'presentes')")
    parser.add_argument("--limit", type=float, default=None, help="kill a step still running after this many seconds")
    parser.add_argument("--cache", default=None, help="a new folder: verify, compare, report and sweep run "
                        "with --cache FOLDER (rows are then named '... (cached)')")
    parser.add_argument("--record-baseline", action="store_true", help="store this run's figures in bench/baseline.json")
    parser.add_argument("--json", action="store_true", help="print the rows as one JSON document at the end")
    args = parser.parse_args(argv)
    steps = [s for s in (quick_loop() if args.quick else full_loop()) if s.run.startswith(args.only)]
    if args.cache:   # the loop as a designer who keeps a result cache runs it (a new folder each run)
        folder = Path(args.cache).resolve()
        if folder.exists():
            print(f"--cache {folder}: give a new folder (the loop measures a cache filled by its own steps)",
                  file=sys.stderr)
            return 2
        steps = [with_cache(s, folder) for s in steps]
    if not steps:
        print(f"no step matches --only {args.only!r}", file=sys.stderr)
        return 2
    command = ruleproof_command()
    base = baseline()
    load_before = load_words()
    print(f"== the designer's loop ({'quick' if args.quick else 'full size'}), {len(steps)} steps; "
          f"{load_before} ==")
    print(HEADER, flush=True)
    rows = run_steps(steps, command, args.limit, lambda row, step: print(line(row, base), flush=True))
    done = [r for r in rows if "error" not in r]
    print(f"total: {sum(r['wall'] for r in done):.1f} s wall, {sum(r['cpu'] for r in done):.1f} s CPU "
          f"over {len(done)} steps ({len(rows) - len(done)} failed); at the end {load_words()}")
    if os.getloadavg()[0] > (os.cpu_count() or 1) / 2:
        print("(the machine is loaded: wall seconds are inflated; compare CPU seconds)")
    if args.record_baseline:
        record(rows, load_before)
    if args.json:
        print(json.dumps([{k: v for k, v in r.items() if k not in ("stdout", "stderr")} for r in rows], indent=1))
    return 1 if len(done) < len(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
