"""Seeded fuzzing of the command line's contract (issues 15 and 25).

Families of cases -- ruleset files, ``extends`` chains, position files (``deduce``), input files a
parameter names (board layouts), argument lists, and the commands that write or run long: export,
report, sweep, compare, rulings rank/diff/check, and the out-of-core solvers games ship (a game
folder's ``ooc`` module) -- each run through ``cli.main`` in this process, or (``--processes``) a
share as real processes, of which (``--signals``) a share gets Ctrl-C at a random moment. Every
game, ruleset, parameter, ruling, policy and example file comes from the registry
(``ruleproof.model.registry``) and the games' ``model/<game>/examples/`` folders: no list of game names here.

Every case must keep the contract:

* no exit 3 (internal error) and no traceback on either stream;
* an exit 2 prints exactly one line on stderr; with ``--json``, an exit 0 or 1 prints one JSON document;
* nothing runs past its ``--timeout`` by more than 10% + 1 s;
* Ctrl-C ends a running command within a second, with the one line ``interrupted`` and exit 130
  (or the command had just finished: its own complete result);
* no file is lost or truncated: the user's files and folders the cases aim at stay byte for byte,
  and every output ruleproof wrote earlier is still whole (or replaced by a whole one).

Usage: ``python tests/fuzz.py N [--seed S] [--processes FRACTION] [--signals FRACTION]``
(``make fuzz N=...``); the test suite runs a slice (tests/test_reliability.py).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.fuzz_cases import FAMILIES, Case, Context, catalog  # noqa: E402
from tests.fuzz_writing import WRITING_FAMILIES, Targets  # noqa: E402

#: seconds a real process is given to start Python before its own clock starts (see ``problems``)
START = 0.3
#: Ctrl-C is sent no earlier than this: before it Python itself owns the signal (its start-up,
#: before the package is imported; README "Limits and signals")
EARLIEST_SIGNAL = 0.3


def make_case(rng: random.Random, ctx: Context, families=FAMILIES) -> Case:
    return rng.choice(families)(rng, ctx)


# ---- running a case -----------------------------------------------------------------------------

@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    seconds: float
    signalled: bool = False            # Ctrl-C was sent while it ran
    after_signal: float | None = None  # seconds from the Ctrl-C to its end
    extra: dict = field(default_factory=dict)


def run_in_process(argv: list[str], module: str | None = None) -> Outcome:
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            if module is None:
                from ruleproof.cli import main
                main(argv)
            else:
                code = importlib.import_module(module).main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return Outcome(code, out.getvalue(), err.getvalue(), time.monotonic() - start)


def run_as_process(argv: list[str], cwd: Path = ROOT, module: str | None = None,
                   interrupt_at: float | None = None) -> Outcome:
    if module is None:
        exe = shutil.which("ruleproof") or str(Path(sys.executable).parent / "ruleproof")
        command = [exe, *argv]
    else:
        command = [sys.executable, "-m", module, *argv]
    start = time.monotonic()
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="backslashreplace")
    signalled, after = False, None
    if interrupt_at is not None:
        try:
            proc.wait(timeout=interrupt_at)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT)
            signalled, sent = True, time.monotonic()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
            after = time.monotonic() - sent
    try:
        out, err = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return Outcome(proc.returncode, out, err, (time.monotonic() - start) if not signalled else 0.0,
                   signalled, after)


#: how the timing breaches begin (a time limit or a Ctrl-C not kept in time)
TIMING = ("ran ", "ended ")


def problems(case: Case, res: Outcome, slack: float = 0.0, signal_slack: float | None = None) -> list[str]:
    """The contract's breaches (empty when the case keeps it); ``slack``: process start-up and
    load, ``signal_slack`` (default ``slack``): load, for the second Ctrl-C is given to end in."""
    found = []
    if res.code == 3:
        found.append("exit 3")
    if "Traceback (most recent call last)" in res.stdout + res.stderr:
        found.append("traceback")
    if res.code == 2 and len([ln for ln in res.stderr.splitlines() if ln.strip()]) != 1:
        found.append(f"exit 2 with {len(res.stderr.splitlines())} lines on stderr")
    signalled = getattr(res, "signalled", False)
    if not signalled and case.timeout is not None and res.seconds > case.timeout * 1.1 + 1 + slack:
        found.append(f"ran {res.seconds:.2f} s past --timeout {case.timeout:g}")
    if res.code not in (0, 1, 2, 130, 141, 3):
        found.append(f"unexpected exit {res.code}")
    if "--json" in case.argv and res.code in (0, 1) and res.stdout.strip():
        try:
            json.loads(res.stdout)
        except ValueError:
            found.append("--json printed something other than one JSON document")
    if signalled:
        if res.after_signal is None or res.after_signal > 1.0 + (slack if signal_slack is None else signal_slack):
            found.append(f"ended {res.after_signal} s after Ctrl-C")
        if res.code == 130 and res.stderr.strip() != "interrupted":
            found.append("exit 130 without the one line 'interrupted'")
    return found


def _warm_up() -> None:
    """Import every game and library once, so that in-process timings measure the command, not
    the first import (a real process's clock starts before its imports; see ``slack``)."""
    from ruleproof import cli  # noqa: F401
    import ruleproof.solver.analysis  # noqa: F401
    import ruleproof.solver.verify  # noqa: F401
    catalog()


def fuzz(n: int, seed: int = 0, processes: float = 0.0, verbose: bool = False, slack: float = 0.0,
         signals: float = 0.0, families: list | None = None) -> dict:
    """``processes``: the share of cases run as real processes; ``signals``: the share of those
    that get Ctrl-C at a random moment; ``slack``: seconds allowed beyond 1.1 T + 1 (a loaded
    machine stretches wall-clock time)."""
    _warm_up()
    families = families or FAMILIES + WRITING_FAMILIES
    rng = random.Random(seed)
    codes: Counter = Counter()
    per_family: Counter = Counter()
    as_processes = interrupted = timing_unconfirmed = 0
    failures, leftovers = [], 0
    with tempfile.TemporaryDirectory(prefix="ruleproof-fuzz-") as tmp, contextlib.chdir(ROOT):
        folder = Path(tmp)
        ctx = Context(folder, Targets(folder))
        for i in range(n):
            case = make_case(rng, ctx, families)
            as_process = (processes > 0 and rng.random() < processes) or not case.in_process_ok
            if any("\x00" in a for a in case.argv):   # no real command line holds a NUL
                if case.in_process_ok:
                    as_process = False
                else:
                    case.argv = [a.replace("\x00", "") for a in case.argv]
            interrupt_at = None
            if as_process and signals > 0 and rng.random() < signals:
                interrupt_at = rng.uniform(EARLIEST_SIGNAL, EARLIEST_SIGNAL + case.signal_within)

            def attempt() -> Outcome:
                if as_process:
                    return run_as_process(case.argv, module=case.module, interrupt_at=interrupt_at)
                return run_in_process(case.argv, module=case.module)
            res = attempt()
            as_processes += as_process
            interrupted += res.signalled
            codes[res.code] += 1
            if verbose and res.seconds > 10:
                print(f"slow case {i} ({res.seconds:.1f} s): {case.argv}", flush=True)
            per_family[case.family] += 1
            # a real process also starts Python before its clock begins
            bad = problems(case, res, slack=slack + (START if as_process else 0.0), signal_slack=slack)
            if bad and all(p.startswith(TIMING) for p in bad):
                # a shared machine can starve a process of the CPU for seconds: a time limit or a
                # Ctrl-C missed is a breach only if it happens again, twice
                for _ in range(2):
                    again = problems(case, attempt(), slack=slack + (START if as_process else 0.0),
                                     signal_slack=slack)
                    if not any(p.startswith(TIMING) for p in again):
                        timing_unconfirmed += 1
                        bad = []
                        break
            damage = ctx.targets.damage()
            bad += damage
            if not res.signalled:
                ctx.targets.learn(case)
            left = ctx.targets.leftovers()
            if left and not res.signalled:
                leftovers += 1
                bad.append(f"left hidden partial copies: {left}")
            for path in left:   # tidied, so that each case is judged on its own
                shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) else os.unlink(path)
            if damage:   # judge the next cases on their own: restore what was damaged
                ctx.targets = Targets(folder / f"again{i}")
            if bad:
                failures.append({"case": i, "family": case.family, "argv": case.argv, "module": case.module,
                                 "process": as_process, "signalled": res.signalled, "problems": bad,
                                 "exit": res.code, "stderr": res.stderr[-500:]})
                if verbose:
                    print(json.dumps(failures[-1], default=str), flush=True)
    return {"cases": n, "seed": seed, "exit_codes": dict(sorted(codes.items())),
            "families": dict(per_family), "processes": as_processes, "interrupted": interrupted,
            "exit_3": codes.get(3, 0), "tracebacks": sum("traceback" in f["problems"] for f in failures),
            "files_lost_or_truncated": sum(any(p.startswith(("changed", "lost", "earlier output"))
                                               for p in f["problems"]) for f in failures),
            "leftovers": leftovers, "timing_not_reproduced": timing_unconfirmed, "failures": failures}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, nargs="?", default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--processes", type=float, default=0.0,
                        help="share of the cases run as real processes (0..1)")
    parser.add_argument("--signals", type=float, default=0.0,
                        help="share of the real processes that get Ctrl-C at a random moment (0..1)")
    parser.add_argument("--slack", type=float, default=0.0,
                        help="seconds allowed beyond 1.1 T + 1 on a loaded machine")
    parser.add_argument("--families", default="",
                        help="comma-separated family names (default: all), e.g. export,sweep")
    args = parser.parse_args()
    chosen = None
    if args.families:
        everything = {f.__name__.removeprefix("case_"): f for f in FAMILIES + WRITING_FAMILIES}
        chosen = [everything[name.strip().replace("-", "_")] for name in args.families.split(",")]
    start = time.monotonic()
    report = fuzz(args.n, args.seed, args.processes, verbose=True, slack=args.slack, signals=args.signals,
                  families=chosen)
    report["seconds"] = round(time.monotonic() - start, 1)
    failures = report.pop("failures")
    print(json.dumps(report))
    print(f"{len(failures)} of {args.n} cases broke the contract")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
