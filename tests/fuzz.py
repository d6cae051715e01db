"""Seeded fuzzing of the command line's contract (issue 15).

Five families of cases -- ruleset files, ``extends`` chains, Bomb Busters views, Presentes layout
files, and argument lists / edge configurations -- each run through ``cli.main`` in this process
(or, with ``--processes``, a share of them as real ``ruleproof`` processes). Every case must keep
the contract:

* no exit 3 (internal error) and no traceback on either stream;
* an exit 2 prints exactly one line on stderr;
* nothing runs past its ``--timeout`` by more than 10% + 1 s.

Usage: ``python tests/fuzz.py N [--seed S] [--processes FRACTION]`` (``make fuzz N=...``); the test
suite runs a few hundred cases (tests/test_reliability.py).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ruleproof.model.registry import GAMES as _REGISTERED  # noqa: E402 -- after the path set-up

#: every registered game (the registry's order; adding a game adds it here by itself)
GAMES = list(_REGISTERED)
JUNK = ["", " ", "0", "-1", "1e309", "nan", "inf", "-inf", "99999999999999999999", "abc", "é", "\x00",
        "[]", "{}", "true", "1.5", "../x", "/dev/zero", "--", "-", "=", "a=b", "L99=x", "P02=nope"]


@dataclass
class Case:
    family: str
    argv: list[str]
    timeout: float | None = None


_names = iter(range(10**9))


def _unique(rng: random.Random) -> int:
    """A fresh file or folder number (random draws could repeat and collide)."""
    rng.randrange(10**6)   # the draw the random names took: earlier seeds keep their cases
    return next(_names)


def _toml_value(rng: random.Random) -> str:
    return rng.choice(['1', '0', '-5', '3', '20', '100', '1000000000000', '"x"', '""', 'true', '1.5',
                       '[1, 2]', '[]', '{a = 1}', '"curta"', '"mini"', '"nope.txt"', '[[1, 0]]',
                       '["1:0"]', '"1:0,1:1"', 'nan', '"\\u00e9"'])


def _param_names(game: str) -> list[str]:
    """The game's parameters, from its schema (the registry's spec)."""
    from ruleproof.model.registry import get_spec
    return list(get_spec(game).schema.param_index)


def _ruleset_text(rng: random.Random, parent: str | None = None) -> str:
    game = rng.choice(GAMES)
    lines = []
    if parent is not None:
        lines.append(f'extends = "{parent}"')
    elif rng.random() < 0.5:
        lines.append(f'extends = "{rng.choice(GAMES + ["pig-goal", "nope"])}"')
    else:
        lines.append(f'game = "{rng.choice(GAMES + ["chess"])}"')
    if rng.random() < 0.2:
        lines.append(f'{rng.choice(["name", "description", "bogus"])} = {_toml_value(rng)}')
    if rng.random() < 0.8:
        lines.append("[params]")
        for _ in range(rng.randint(0, 3)):
            name = rng.choice(_param_names(game) + ["nope"])
            lines.append(f"{name} = {_toml_value(rng)}")
    if rng.random() < 0.3:
        lines.append("[rulings]")
        lines.append(f'{rng.choice(["L04", "P02", "P23", "B01", "X9"])} = {_toml_value(rng)}')
    text = "\n".join(lines) + "\n"
    if rng.random() < 0.05:
        text = text[: rng.randint(0, len(text))]
    return text


def _write(folder: Path, name: str, text: str | bytes, rng: random.Random) -> Path:
    path = folder / name
    data = text.encode() if isinstance(text, str) else text
    if rng.random() < 0.1:
        data = b"\xef\xbb\xbf" + data          # a byte-order mark
    if rng.random() < 0.03:
        data = data + b"\xff\xfe"               # not UTF-8
    path.write_bytes(data)
    return path


def _limits(rng: random.Random) -> tuple[list[str], float]:
    timeout = rng.choice([0.5, 1.0, 2.0])
    return ["--max-states", str(rng.choice([1, 10, 200, 2000])), "--timeout", str(timeout)], timeout


def case_ruleset(rng: random.Random, folder: Path) -> Case:
    path = _write(folder, f"r{_unique(rng)}.toml", _ruleset_text(rng), rng)
    limits, timeout = _limits(rng)
    command = rng.choice(["solve", "verify", "rulings-list"])
    if command == "rulings-list":
        return Case("ruleset", ["rulings", "list", str(path)])
    extra = ["--no-files"] if command == "solve" else []
    return Case("ruleset", [command, str(path), *extra, *limits, *(["--json"] if rng.random() < 0.5 else [])],
                timeout)


def case_chain(rng: random.Random, folder: Path) -> Case:
    length = rng.choice([1, 2, 5, 30, 120])
    sub = folder / f"chain{_unique(rng)}"
    sub.mkdir()
    base = rng.choice(GAMES)
    for i in range(length):
        parent = f"c{i - 1}.toml" if i else base
        if rng.random() < 0.02:
            parent = rng.choice([f"c{i}.toml", f"c{i + 1}.toml", "missing.toml", "nope"])  # cycles, holes
        body = f'extends = "{parent}"\n'
        if rng.random() < 0.2:
            body += "[params]\n" + ("goal = %d\n" % rng.randint(-2, 300) if base == "pig" else "players = 2\n")
        _write(sub, f"c{i}.toml", body, rng)
    limits, timeout = _limits(rng)
    return Case("chain", ["solve", str(sub / f"c{length - 1}.toml"), "--no-files", *limits], timeout)


def _slot(rng: random.Random, own: bool) -> object:
    return rng.choice(["1", "2", "3", "x2", "2.1", "1.5", "?", "?Y", "?R", "?2", "?~3", "?~abc", "?~Y~2",
                       "x99", "", " ", "Y", "?~", "??", "x", 7, None, True, "?1.1"])


def case_view(rng: random.Random, folder: Path) -> Case:
    examples = sorted((ROOT / "examples" / "bomb-busters").glob("*.json"))
    data = json.loads(rng.choice(examples).read_text())
    for _ in range(rng.randint(0, 3)):
        roll = rng.random()
        if roll < 0.4 and data.get("hands"):
            hand = rng.choice(data["hands"])
            if hand.get("racks") and hand["racks"][0]:
                rack = hand["racks"][0]
                rack[rng.randrange(len(rack))] = _slot(rng, hand.get("name") == data.get("viewer"))
        elif roll < 0.55:
            data.pop(rng.choice(list(data)), None)
        elif roll < 0.7:
            data[rng.choice(["viewer", "format", "claims", "me"])] = rng.choice([0, "zoe", [], {}, None])
        elif roll < 0.85 and isinstance(data.get("mission"), dict):
            key = rng.choice(["blue_values", "blue_copies", "red", "yellow", "number"])
            data["mission"][key] = rng.choice([0, 1, 3, 12, -1, "x", {"values": [1], "in_play": 5}])
        elif isinstance(data.setdefault("claims", []), list):
            data["claims"].append({"hand": rng.choice(["ana", "bia", "zoe"]),
                                                  "holds": rng.choice(["1", "Y", "x"]),
                                                  "at_least": rng.choice([0, 1, 9])})
    text = json.dumps(data)
    if rng.random() < 0.05:
        text = text[: rng.randint(0, len(text))]
    path = _write(folder, f"v{_unique(rng)}.json", text, rng)
    return Case("view", ["deduce", str(path), *(["--json"] if rng.random() < 0.5 else [])])


def case_layout(rng: random.Random, folder: Path) -> Case:
    size = rng.choice([0, 3, 4, 10, 16, 40, 120, 401])
    symbols = ". * x s" if rng.random() < 0.9 else ".*xsq# \t"
    squares = [rng.choice(symbols.replace(" ", "") or ".") for _ in range(size)]
    if squares and rng.random() < 0.8:
        squares[0] = squares[-1] = "."
    width = rng.choice([8, 10, 40])
    text = "\n".join("".join(squares[i:i + width]) for i in range(0, len(squares), width))
    if rng.random() < 0.2:
        text = "# a board\n" + text
    path = _write(folder, f"b{_unique(rng)}.txt", text, rng)
    limits, timeout = _limits(rng)
    command = rng.choice(["solve", "simulate"])
    if command == "simulate":
        return Case("layout", ["simulate", "presentes", "--board", str(path), "--games",
                               str(rng.choice([1, 10, 200])), "--timeout", str(timeout)], timeout)
    return Case("layout", ["solve", "presentes", "--board", str(path), "--players",
                           str(rng.choice([2, 3])), "--no-files", *limits], timeout)


def case_arguments(rng: random.Random, folder: Path) -> Case:
    command = rng.choice(["games", "verify", "solve", "simulate", "compare", "deduce", "rulings list",
                          "rulings diff", "rulings check", "frobnicate", ""])
    argv = command.split()
    timeout = None
    game = rng.choice(GAMES + ["pig-goal", "nope", "", "x.toml", "/dev/zero", "examples/loira/tiny.toml"])
    if command in ("verify", "solve", "simulate", "compare", "rulings diff"):
        argv.append(game)
    if command == "compare":
        argv.append(rng.choice([game, "pig", "examples/loira/tiny.toml"]))
    if command == "rulings diff":   # unknown ids only: a real diff runs without a time limit
        argv.append(rng.choice(["X1", "", "L4", "P2"]))
    if command == "deduce":
        argv.append(rng.choice(["examples/bomb-busters/training-2p.json", "/dev/zero", "nope.json", "", "."]))
    if command == "rulings list" and rng.random() < 0.7:
        argv.append(rng.choice([game, "''", ""]))
    if command == "rulings check":   # bad names only: the scenarios take minutes and have no time limit
        argv.append(rng.choice(["nope", "''", "", "pig-goal", "x.toml"]))
    if command in ("verify", "solve", "compare", "simulate"):
        timeout = rng.choice([0.5, 1.0, 2.0])
        argv += ["--timeout", str(timeout)]
        if command != "simulate":
            argv += ["--max-states", str(rng.choice([1, 50, 500]))]
    if command == "solve":
        argv.append("--no-files")
    if command == "simulate":
        argv += ["--games", rng.choice(["1", "20", "0", "-3", "99999999999999999999", "x"]),
                 "--seed", rng.choice(["0", "-1", "7", "99999999999999999999"])]
    for _ in range(rng.randint(0, 3)):
        option = rng.choice(["--goal", "--players", "--faces", "--board", "--dice", "--host-remove",
                             "--ruling", "--policy", "--bogus", "--json", "--exact", "--float", "extra",
                             "--max-states", "--timeout", "--option", "--focal-seat"])
        argv.append(option)
        if option.startswith("--") and option not in ("--json", "--exact", "--float") and rng.random() < 0.9:
            value = rng.choice(JUNK + ["3", "2", "1:0", "1:0,1:1", "mini", "L04=bathroom-cards"])
            if option in ("--max-states", "--timeout") and timeout is not None:
                value = rng.choice(["1", "2", "0.5", "0", "-1", "nan", "x"])
            argv.append(value)
    if "--timeout" in argv:
        # the last --timeout given is the one in force (when it is a valid positive number)
        raw = argv[len(argv) - 1 - argv[::-1].index("--timeout") + 1] if argv[-1] != "--timeout" else ""
        try:
            timeout = float(raw) if float(raw) > 0 else None
        except ValueError:
            timeout = None
    return Case("arguments", argv, timeout)


FAMILIES = [case_ruleset, case_chain, case_view, case_layout, case_arguments]


def make_case(rng: random.Random, folder: Path) -> Case:
    return rng.choice(FAMILIES)(rng, folder)


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    seconds: float


def run_in_process(argv: list[str]) -> Outcome:
    from ruleproof.cli import main
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return Outcome(code, out.getvalue(), err.getvalue(), time.monotonic() - start)


def run_as_process(argv: list[str], cwd: Path = ROOT) -> Outcome:
    exe = shutil.which("ruleproof") or str(Path(sys.executable).parent / "ruleproof")
    start = time.monotonic()
    proc = subprocess.run([exe, *argv], capture_output=True, text=True, cwd=cwd, timeout=600)
    return Outcome(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)


def problems(case: Case, res: Outcome, slack: float = 0.0) -> list[str]:
    """The contract's breaches (empty when the case keeps it); ``slack``: process start-up."""
    found = []
    if res.code == 3:
        found.append("exit 3")
    if "Traceback (most recent call last)" in res.stdout + res.stderr:
        found.append("traceback")
    if res.code == 2 and len([ln for ln in res.stderr.splitlines() if ln.strip()]) != 1:
        found.append(f"exit 2 with {len(res.stderr.splitlines())} lines on stderr")
    if case.timeout is not None and res.seconds > case.timeout * 1.1 + 1 + slack:
        found.append(f"ran {res.seconds:.2f} s past --timeout {case.timeout:g}")
    if res.code not in (0, 1, 2, 130, 141, 3):
        found.append(f"unexpected exit {res.code}")
    return found


def _warm_up() -> None:
    """Import every game and library once, so that in-process timings measure the command, not
    the first import (a real process's clock starts before its imports; see ``slack``)."""
    from ruleproof import cli  # noqa: F401
    import ruleproof.solver.analysis  # noqa: F401
    from ruleproof import solver
    import ruleproof.solver.verify  # noqa: F401
    from ruleproof import solver
    from ruleproof.model.registry import all_specs
    all_specs()


def fuzz(n: int, seed: int = 0, processes: float = 0.0, verbose: bool = False,
         slack: float = 0.0) -> dict:
    """``slack``: seconds allowed beyond 1.1 T + 1 (a loaded machine stretches wall-clock time)."""
    _warm_up()
    rng = random.Random(seed)
    codes: Counter = Counter()
    families: Counter = Counter()
    failures = []
    with tempfile.TemporaryDirectory(prefix="ruleproof-fuzz-") as tmp, contextlib.chdir(ROOT):
        folder = Path(tmp)
        for i in range(n):
            case = make_case(rng, folder)
            as_process = processes > 0 and rng.random() < processes
            res = run_as_process(case.argv) if as_process else run_in_process(case.argv)
            codes[res.code] += 1
            if verbose and res.seconds > 10:
                print(f"slow case {i} ({res.seconds:.1f} s): {case.argv}", flush=True)
            families[case.family] += 1
            # a real process also starts Python before its clock begins
            bad = problems(case, res, slack=slack + (0.3 if as_process else 0.0))
            if bad:
                failures.append({"case": i, "family": case.family, "argv": case.argv, "problems": bad,
                                 "exit": res.code, "stderr": res.stderr[-500:]})
                if verbose:
                    print(json.dumps(failures[-1]), flush=True)
    return {"cases": n, "seed": seed, "exit_codes": dict(sorted(codes.items())),
            "families": dict(families), "exit_3": codes.get(3, 0),
            "tracebacks": sum("traceback" in f["problems"] for f in failures), "failures": failures}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, nargs="?", default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--processes", type=float, default=0.0,
                        help="share of the cases run as real processes (0..1)")
    parser.add_argument("--slack", type=float, default=0.0,
                        help="seconds allowed beyond 1.1 T + 1 on a loaded machine")
    args = parser.parse_args()
    start = time.monotonic()
    report = fuzz(args.n, args.seed, args.processes, verbose=True, slack=args.slack)
    report["seconds"] = round(time.monotonic() - start, 1)
    failures = report.pop("failures")
    print(json.dumps(report))
    print(f"{len(failures)} of {args.n} cases broke the contract")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
