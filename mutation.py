"""The mutation suite: a verifier judged by the rule slips it catches (in the manner of PIT, mutmut).

A mutant is one small TOML file in a game's folder (``model/<game>/mutants/*.toml``): a one-line
``description``, the kind of ``rule`` it breaks (who acts, who benefits, when a round ends, which
outcome triggers what, eligibility, hidden information, chance weights, a fast copy that drifts),
the ``file`` it edits and one ``find``/``replace`` pair (the text must occur exactly once, else
the mutant is *stale* and the run fails: a mutant that no longer applies tests nothing).
Optional keys: ``equivalent`` (why the slip changes nothing a rule reads: not counted) and
``survives_verify`` (why ``verify`` alone cannot see it: a property the rule text does not state;
``rulings check`` must then catch it).

Each mutant is applied to a copy of the installed package and checked, each in its own process:

* ``verify GAME`` on the game's default small configuration (killed: a property fails);
* with ``full``: ``rulings check GAME`` (killed: a stored result changed) and ``verify`` of the
  game's full-size built-in ruleset (sampled plays and derived configurations).

An exit code 3 (an internal error) or a traceback under any mutant is a failure of the suite: a
rule slip must be reported, never crash the tool. ``python -m ruleproof.mutation [--full]
[--game G] [--jobs N]`` prints the kill table and exits 1 when a mutant survives that does not
say why, when the score by ``verify`` alone is below 95%, or on a stale mutant or an exit 3.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent
#: what is copied of the package for a mutant (the rest is not code the rules run)
COPY_IGNORE = shutil.ignore_patterns(".venv", ".git", "__pycache__", "tests", "bench", "docs", "build",
                                     "*.egg-info", ".pytest_cache", ".hypothesis", "out", ".ci")
#: the bar issue #21 sets: non-equivalent mutants killed by verify alone
VERIFY_BAR = 0.95
#: and of them, killed by verify of the game's full-size built-in ruleset (sampled plays, companions)
FULL_SIZE_BAR = 0.80
KEYS = {"description", "rule", "file", "find", "replace", "equivalent", "survives_verify"}


@dataclass
class Mutant:
    game: str
    name: str
    path: Path
    description: str
    rule: str
    file: str
    find: str
    replace: str
    equivalent: str = ""
    survives_verify: str = ""


@dataclass
class Outcome:
    mutant: Mutant
    stale: str = ""
    checks: dict[str, str] = field(default_factory=dict)     # check -> killed/survived/unknown/error/timeout
    why: dict[str, str] = field(default_factory=dict)        # check -> the failing properties, or the error
    seconds: float = 0.0


def load_mutants(games: list[str] | None = None) -> list[Mutant]:
    """Every mutant of every game folder (or of the games named)."""
    from ruleproof.model.registry import GAMES, get_spec
    out = []
    for game in sorted(GAMES):
        if games and game not in games:
            continue
        folder = get_spec(game).folder / "mutants"
        for path in sorted(folder.glob("*.toml")):
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            unknown = set(data) - KEYS
            missing = {"description", "rule", "file", "find", "replace"} - set(data)
            if unknown or missing:
                raise ValueError(f"{path}: " + "; ".join(
                    ([f"unknown keys {sorted(unknown)}"] if unknown else [])
                    + ([f"missing keys {sorted(missing)}"] if missing else [])))
            out.append(Mutant(game, path.stem, path, **data))
    return out


def _apply(m: Mutant, root: Path) -> str:
    """Edit the copy; the reason it cannot, or ""."""
    target = root / m.file
    if not target.is_file():
        return f"no file {m.file}"
    text = target.read_text(encoding="utf-8")
    count = text.count(m.find)
    if count != 1:
        return f"the text to replace occurs {count} times in {m.file}"
    target.write_text(text.replace(m.find, m.replace), encoding="utf-8")
    return ""


def _run(root: Path, args: list[str], timeout: float) -> tuple[int, str, str]:
    env = dict(os.environ, PYTHONPATH=str(root.parent), PYTHONDONTWRITEBYTECODE="1")
    # main() with no argument is the console script (it reads sys.argv): the same collector setting
    # and watchdogs a user's ``ruleproof`` runs with, so a mutant costs what the command costs
    code = "from ruleproof.cli import main; main()"
    try:
        p = subprocess.run([sys.executable, "-c", code, *args], cwd=root.parent, env=env, capture_output=True,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, "", "timeout"
    return p.returncode, p.stdout, p.stderr


def _verdict(code: int, out: str, err: str, what: str) -> tuple[str, str]:
    if code == -1:
        return "timeout", "no answer in time"
    if code == 3 or "Traceback" in err:
        return "error", (err.strip().splitlines() or ["exit 3"])[-1]
    if code == 0:
        return "survived", ""
    try:
        doc = json.loads(out)
    except ValueError:
        return "error", f"exit {code}, no JSON: {(err.strip().splitlines() or [''])[-1]}"
    if what == "rulings":
        changed = [r["scenario"] for rows in doc.get("scenarios", {}).values() for r in rows if not r["same"]]
        if code == 1 and changed:
            return "killed", "rulings check: " + ", ".join(changed[:3]) + (" ..." if len(changed) > 3 else "")
        return "error", f"exit {code} with no changed scenario"
    failing = [p["name"] for p in doc.get("properties", []) if p.get("status") == "fails"]
    if failing:
        return "killed", ", ".join(failing[:4]) + (" ..." if len(failing) > 4 else "")
    return "unknown", "exit 1 with nothing failing (a limit?)"


def _full_size_ruleset(game: str, root: Path) -> Path:
    """The game's full-size built-in ruleset inside the mutated copy ``root`` (the package the
    registry was imported from may be another checkout than this file's)."""
    from ruleproof.model.registry import get_spec
    spec = get_spec(game)
    package = spec.folder.parent.parent      # <package>/model/<game>
    return root / spec.rulesets_dir.relative_to(package) / f"{spec.default_ruleset}.toml"


def check_mutant(m: Mutant, full: bool, timeout: float, only_full_size: bool = False) -> Outcome:
    start = time.perf_counter()
    out = Outcome(m)
    with tempfile.TemporaryDirectory(prefix="ruleproof-mutant-") as tmp:
        root = Path(tmp) / "ruleproof"
        shutil.copytree(ROOT, root, ignore=COPY_IGNORE)
        out.stale = _apply(m, root)
        if out.stale:
            return out
        runs = {} if only_full_size else {"verify": ["verify", m.game, "--json"]}
        if only_full_size:
            runs["full size"] = ["verify", str(_full_size_ruleset(m.game, root)), "--json"]
        elif full:
            runs["rulings"] = ["rulings", "check", m.game, "--json"]
            runs["full size"] = ["verify", str(_full_size_ruleset(m.game, root)), "--json"]
        for what, args in runs.items():
            code, stdout, stderr = _run(root, args, timeout)
            out.checks[what], out.why[what] = _verdict(code, stdout, stderr, "rulings" if what == "rulings" else what)
    out.seconds = time.perf_counter() - start
    return out


def run(games: list[str] | None = None, full: bool = False, jobs: int = 2, timeout: float = 600.0,
        say=print, only_full_size: bool = False) -> int:
    mutants = load_mutants(games)
    if not mutants:
        say("no mutants found")
        return 1
    checks = ("verify at full size" if only_full_size else
              "verify" + (", rulings check, verify at full size" if full else ""))
    say(f"{len(mutants)} mutants; checks: {checks}; {jobs} at a time")
    outcomes = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(check_mutant, m, full, timeout, only_full_size) for m in mutants]
        for done, fut in enumerate(as_completed(futures), 1):   # one progress line a mutant, as it ends
            o = fut.result()
            cells = ", ".join(f"{c} {v}" for c, v in o.checks.items()) or ("stale" if o.stale else "-")
            print(f"[{done}/{len(mutants)}] {o.mutant.game}/{o.mutant.name}: {cells} ({o.seconds:.0f} s)",
                  file=sys.stderr, flush=True)
        outcomes = [f.result() for f in futures]
    if only_full_size:
        return report_full_size(outcomes, say)
    return report(outcomes, full, say)


def _label(o: Outcome) -> str:
    return f"{o.mutant.game}/{o.mutant.name}"[:44]


def _stale(o: Outcome, say, problems: list[str]) -> bool:
    """A mutant that no longer applies: its table line and a problem (it tests nothing)."""
    if o.stale:
        say(f"{_label(o):44} {o.mutant.rule[:22]:22} STALE: {o.stale}")
        problems.append(f"{_label(o)}: stale ({o.stale})")
    return bool(o.stale)


def report_full_size(outcomes: list[Outcome], say=print) -> int:
    """The kill table of the full-size path alone (``--only-full-size``): issue #21 asks it to kill
    at least ``FULL_SIZE_BAR`` of the non-equivalent mutants. Errors and stale mutants fail the run."""
    problems: list[str] = []
    say(f"{'mutant':44} {'rule':22} {'full size':10} caught by")
    for o in outcomes:
        m, label = o.mutant, _label(o)
        if _stale(o, say, problems):
            continue
        state = o.checks.get("full size", "-")
        note = f"equivalent: {m.equivalent}" if m.equivalent else o.why.get("full size", "")
        say(f"{label:44} {m.rule[:22]:22} {state:10} {note} ({o.seconds:.0f} s)"[:220])
        if state in ("error", "timeout"):
            problems.append(f"{label}: full size {state}: {o.why['full size']}")
    counted = [o for o in outcomes if not o.mutant.equivalent and not o.stale]
    n = len(counted)
    killed = sum(o.checks.get("full size") == "killed" for o in counted)
    say(f"\nscore: verify at full size {killed}/{n} ({killed / max(n, 1):.0%}) of non-equivalent mutants")
    for game in sorted({o.mutant.game for o in counted}):
        mine = [o for o in counted if o.mutant.game == game]
        k = sum(o.checks.get("full size") == "killed" for o in mine)
        say(f"  {game}: {k}/{len(mine)} ({k / len(mine):.0%})")
    if n and killed / n < FULL_SIZE_BAR:
        problems.append(f"verify at full size kills {killed / n:.0%}, below {FULL_SIZE_BAR:.0%}")
    for p in problems:
        say(f"problem: {p}")
    return 1 if problems else 0


def report(outcomes: list[Outcome], full: bool, say=print) -> int:
    checks = ["verify"] + (["rulings", "full size"] if full else [])
    say(f"{'mutant':44} {'rule':22} " + " ".join(f"{c:10}" for c in checks) + " caught by")
    problems: list[str] = []
    counted = [o for o in outcomes if not o.mutant.equivalent and not o.stale]
    for o in outcomes:
        m, label = o.mutant, _label(o)
        if _stale(o, say, problems):
            continue
        cells = " ".join(f"{o.checks.get(c, '-'):10}" for c in checks)
        why = next((o.why[c] for c in checks if o.checks.get(c) == "killed"), "")
        note = f"equivalent: {m.equivalent}" if m.equivalent else why
        say(f"{label:44} {m.rule[:22]:22} {cells} {note}"[:200])
        for c in checks:
            if o.checks.get(c) in ("error", "timeout"):
                problems.append(f"{label}: {c} {o.checks[c]}: {o.why[c]}")
        if not m.equivalent and o.checks.get("verify") != "killed" and not m.survives_verify:
            problems.append(f"{label}: survives verify, and the mutant does not say why")
        if full and not m.equivalent and "killed" not in (o.checks.get("verify"), o.checks.get("rulings")):
            problems.append(f"{label}: survives verify and rulings check")
    n = len(counted)
    by_verify = sum(o.checks.get("verify") == "killed" for o in counted)
    say(f"\nscore: verify alone {by_verify}/{n} ({by_verify / max(n, 1):.0%}) of non-equivalent mutants")
    if full:
        both = sum("killed" in (o.checks.get("verify"), o.checks.get("rulings")) for o in counted)
        fullsize = sum(o.checks.get("full size") == "killed" for o in counted)
        say(f"       verify + rulings check {both}/{n} ({both / max(n, 1):.0%}); "
            f"verify at full size {fullsize}/{n} ({fullsize / max(n, 1):.0%})")
    if n and by_verify / n < VERIFY_BAR:
        problems.append(f"verify alone kills {by_verify / n:.0%}, below {VERIFY_BAR:.0%}")
    survivors = [o for o in counted if o.checks.get("verify") != "killed"]
    if survivors:
        say("survivors of verify alone:")
        for o in survivors:
            say(f"  {o.mutant.game}/{o.mutant.name}: {o.mutant.survives_verify or 'no reason given'}")
    for p in problems:
        say(f"problem: {p}")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ruleproof.mutation", description=__doc__.split("\n")[0])
    ap.add_argument("--game", action="append", help="only this game's mutants (repeatable)")
    ap.add_argument("--full", action="store_true", help="also rulings check and verify at full size")
    ap.add_argument("--only-full-size", action="store_true",
                    help="only verify of the full-size built-in ruleset (the full-size path's score)")
    ap.add_argument("--jobs", type=int, default=2, help="mutants checked at a time")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per check")
    args = ap.parse_args(argv)
    if args.jobs < 1 or not args.timeout > 0:
        ap.error("--jobs and --timeout must be positive")
    return run(args.game, args.full, args.jobs, args.timeout, only_full_size=args.only_full_size)


if __name__ == "__main__":
    sys.exit(main())
