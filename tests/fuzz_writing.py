"""The fuzzer's cases (tests/fuzz.py), part two: the commands that write files or run long --
export, report, sweep, solve --out, compare, rulings rank/diff/check and the games' out-of-core
solvers -- aimed (``Targets``) at new paths, the tool's own earlier outputs and someone else's files
and folders, FIFOs, devices and paths under a file; after every case the user's data must be byte for
byte as it was and every earlier output whole.
"""
from __future__ import annotations

import os
import random
from pathlib import Path

from tests.fuzz_cases import (JUNK, Case, _config_value, _json, _small_args, _timeout_in_force, _unique,
                              case_arguments, catalog)


# ---- files the cases aim at: someone else's, and ruleproof's own ----------------------------------

class Targets:
    """Where the writing cases aim: new paths, the tool's own earlier outputs, and paths holding
    someone else's data (which must stay byte for byte), FIFOs, devices and paths under a file."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.users = folder / "users"
        self.users.mkdir(parents=True)
        self.protected: dict[Path, bytes] = {}
        for name in ("notes.txt", "data.drn", "model.jani", "page.html", "page.md", "plot.png",
                     "plot.svg", "thesis.pdf", "empty-looking.prism"):
            self._protect(self.users / name, f"someone's {name}: keep me\n".encode() * 50)
        project = self.users / "project"
        (project / "src").mkdir(parents=True)
        self._protect(project / "manifest.json", b'{"name": "my-app", "files": ["app.js"]}')
        self._protect(project / "app.js", b"console.log('mine')\n")
        self._protect(project / "src" / "main.js", b"// mine\n")
        os.mkfifo(self.users / "pipe")
        (self.users / "link.drn").symlink_to(self.users / "data.drn")
        self.outputs = folder / "outputs"
        self.outputs.mkdir()
        self.own: list[Path] = []          # outputs earlier cases wrote (checked whole after each case)

    def _protect(self, path: Path, data: bytes) -> None:
        path.write_bytes(data)
        self.protected[path] = data

    def file(self, rng: random.Random, suffix: str) -> str:
        roll = rng.random()
        if roll < 0.45:
            return str(self.outputs / f"f{_unique(rng)}{suffix}")
        if roll < 0.65 and self.own:
            files = [p for p in self.own if p.suffix == suffix] or self.own
            return str(rng.choice(files))
        if roll < 0.85:
            return str(rng.choice([p for p in self.protected if p.parent == self.users] + [self.users / "link.drn"]))
        return rng.choice([str(self.users / "pipe"), "/dev/full", "/dev/null", str(self.users),
                           str(self.users / "notes.txt" / f"x{suffix}"), str(self.outputs / "a" / "b" / f"c{suffix}"),
                           "", ".", str(self.outputs / ("n" * 300 + suffix)), str(self.users / "project")])

    def folder_target(self, rng: random.Random) -> str:
        roll = rng.random()
        if roll < 0.4:
            return str(self.outputs / f"d{_unique(rng)}")
        if roll < 0.65 and any(p.is_dir() for p in self.own):
            return str(rng.choice([p for p in self.own if p.is_dir()]))
        return rng.choice([str(self.users / "project"), str(self.users), str(self.users / "notes.txt"),
                           str(self.users / "pipe"), str(self.users / "notes.txt" / "d"), "/dev/full"])

    def learn(self, case: Case) -> None:
        """Remember the outputs a finished case wrote (to check them whole after later cases)."""
        for arg in case.argv:
            if not (isinstance(arg, str) and arg.startswith(str(self.outputs))):
                continue
            path = Path(arg)
            try:
                new = path.exists() and not path.is_symlink() and path not in self.own
            except OSError:   # a name too long to be one
                continue
            if new:
                self.own.append(path)

    def damage(self) -> list[str]:
        """Files lost or truncated: someone's data changed, or an earlier output no longer whole."""
        from ruleproof.solver import outputs
        found = []
        for path, data in self.protected.items():
            try:
                if path.read_bytes() != data:
                    found.append(f"changed: {path}")
            except OSError as exc:
                found.append(f"lost: {path} ({exc.strerror})")
        for path in self.own:
            if path.is_dir():
                if not outputs.owned_folder(path) or not (path / "manifest.json").exists():
                    found.append(f"earlier output folder not whole: {path}")
            elif not path.exists():
                found.append(f"earlier output lost: {path}")
            elif not _whole(path):
                found.append(f"earlier output truncated: {path}")
        return found

    def leftovers(self) -> list[str]:
        return [str(p) for folder in (self.users, self.outputs) for p in folder.iterdir()
                if p.name.startswith(".") and ".partial-" in p.name]


#: how each kind of file ruleproof writes begins, and how it ends when complete (by content: a
#: later run may write another kind under the same name, ``--md page.html``)
_KINDS = [(b"\x89PNG", b"IEND\xaeB`\x82"), (b"%PDF", b"%%EOF\n"), (b"<?xml", b"</svg>\n"),
          (b"<!DOCTYPE html>", b"</html>\n"), (b'{"jani-version"', b"]}]}\n"), (b"", b"\n")]


def _whole(path: Path) -> bool:
    """A file ruleproof wrote is complete: stamped, and ending as its kind ends."""
    from ruleproof.solver import outputs
    data = path.read_bytes()
    if not data or not outputs.stamped(path):
        return False
    return data.endswith(next(end for start, end in _KINDS if data.startswith(start)))


def case_export(rng: random.Random, ctx: "Context") -> Case:
    cat = catalog()
    game = rng.choice(cat.games)
    fmt = rng.choice(["prism", "drn", "jani", "jani", "xml"])
    argv = ["export", cat.target[game], "--format", fmt, ctx.targets.file(rng, "." + fmt), *_small_args(rng, game)]
    if rng.random() < 0.4:
        argv += ["--policy", rng.choice(cat.policies[game] + ["optimal", "random", "nope"])]
        if rng.random() < 0.2:
            argv += ["--free-seat", rng.choice(["0", "1", "7", "-1"])]
    elif rng.random() < 0.1:
        argv.append("--smg")
    timeout = rng.choice([0.5, 1.0, 2.0, 3.0])
    argv += ["--max-states", str(rng.choice([50, 2000, 50_000])), "--timeout", str(timeout), *_json(rng)]
    return Case("export", argv, timeout, signal_within=timeout)


def case_report(rng: random.Random, ctx: "Context") -> Case:
    cat = catalog()
    game = rng.choice(cat.games)
    argv = ["report", game]
    flag = rng.choice(["--md", "--html", "--md", None])
    if flag:
        argv += [flag, ctx.targets.file(rng, ".md" if flag == "--md" else ".html")]
    if rng.random() < 0.2:
        argv += ["--against", rng.choice(cat.rulesets[game] + cat.games)]
    if rng.random() < 0.3:
        rid, options = cat.any_ruling(rng, game)
        argv += ["--ruling", f"{rid}={rng.choice(options)}"]
    timeout = rng.choice([0.5, 1.0, 2.0, 3.0])
    argv += ["--rank-timeout", rng.choice(["0", "0.5", "1", "-1", "nan"]), "--timeout", str(timeout),
             "--max-states", str(rng.choice([100, 5000])), *_json(rng, 0.3)]
    return Case("report", argv, timeout, signal_within=timeout)


def _range_text(rng: random.Random, default) -> str:
    if isinstance(default, bool) or not isinstance(default, (int, float)):
        return rng.choice([",".join(map(str, [default] * rng.randint(1, 3))), "a,b", "", ",", "x"])
    low = int(default)
    return rng.choice([f"{max(1, low - 1)}..{low + 1}", f"{low}..{low + 4}:2", f"{low}", "1e400..1e401",
                       "0..1:1e-300", f"{low}..{low - 3}", "5," * 600 + "5", f"{low}..{low + 10**30}",
                       "nan..3", "1..3:0", "1..3:-1", "2.5..3.5:0.5"])


def case_sweep(rng: random.Random, ctx: "Context") -> Case:
    cat = catalog()
    game = rng.choice(cat.games)
    spec = cat.specs[game]
    axes = rng.sample(list(spec.schema.params), k=min(len(spec.schema.params), rng.choice([1, 1, 2, 3])))
    argv = ["sweep", game]
    for p in axes:
        default = cat.small[game].get(p.name, p.default)
        argv += ["--param", f"{p.name}={_range_text(rng, default)}"]
    if rng.random() < 0.5:
        argv += ["--plot", ctx.targets.file(rng, rng.choice([".png", ".svg", ".pdf", ".bmp", ""]))]
    if rng.random() < 0.3:
        argv.append("--simulate-only")
    timeout = rng.choice([0.5, 1.0, 2.0, 3.0])
    argv += ["--games", rng.choice(["20", "200", "0", "100000001"]), "--timeout", str(timeout),
             "--point-timeout", rng.choice(["0.2", "1", "0", "inf"]), "--max-states", str(rng.choice([100, 5000])),
             *_json(rng)]
    return Case("sweep", argv, _timeout_in_force(argv, timeout), signal_within=timeout)


def case_solve_out(rng: random.Random, ctx: "Context") -> Case:
    cat = catalog()
    game = rng.choice(cat.games)
    timeout = rng.choice([0.5, 1.0, 2.0, 3.0])
    argv = ["solve", cat.target[game], *_small_args(rng, game), "--out", ctx.targets.folder_target(rng),
            "--max-states", str(rng.choice([50, 5000, 100_000])), "--timeout", str(timeout), *_json(rng)]
    return Case("solve-out", argv, timeout, signal_within=timeout)


def case_compare(rng: random.Random, ctx: "Context") -> Case:
    cat = catalog()
    game = rng.choice(cat.games)
    sides = rng.sample(cat.rulesets[game] + [game], k=min(2, len(cat.rulesets[game]) + 1))
    argv = ["compare", *sides[: rng.choice([1, 2])]]
    if len(argv) == 2 or rng.random() < 0.3:
        rid, options = cat.any_ruling(rng, game)
        argv += ["--ruling", f"{rid}={rng.choice(options + ['nope'])}"]
    timeout = rng.choice([0.5, 1.0, 2.0, 3.0])
    argv += ["--max-states", str(rng.choice([100, 5000])), "--timeout", str(timeout), *_json(rng)]
    return Case("compare", argv, timeout, signal_within=timeout)


def case_rulings(rng: random.Random, ctx: "Context") -> Case:
    cat = catalog()
    game = rng.choice(cat.games)
    timeout = rng.choice([0.5, 1.0, 2.0, 3.0])
    kind = rng.choice(["rank", "diff", "diff", "check"])
    if kind == "rank":
        argv = ["rulings", "rank", game]
        if rng.random() < 0.5 and cat.rulings[game]:
            argv += ["--only", ",".join(rng.sample(sorted(cat.rulings[game]), k=1)) + rng.choice(["", ",X9"])]
    elif kind == "diff":
        rid, options = cat.any_ruling(rng, game)
        argv = ["rulings", "diff", game, rid]
        if rng.random() < 0.4:
            argv += ["--option", rng.choice(options + ["nope"])]
        if rng.random() < 0.3:
            argv += _small_args(rng, game)
    else:
        argv = ["rulings", "check", game]
    argv += ["--timeout", str(timeout), *_json(rng)]
    return Case("rulings", argv, timeout, signal_within=timeout)


def case_ooc(rng: random.Random, ctx: "Context") -> Case:
    """A game's out-of-core solver (its folder's ``ooc`` module), on new, resumed, foreign and
    broken folders, with good and bad settings."""
    cat = catalog()
    if not cat.ooc:
        return case_arguments(rng, ctx)
    game = rng.choice(sorted(cat.ooc))
    folder = ctx.folder / "ooc"
    folder.mkdir(exist_ok=True)
    roll = rng.random()
    if roll < 0.5:
        target = folder / f"job{rng.randrange(4)}"          # new, or resumed (the same job or another)
    elif roll < 0.6:
        target = ctx.targets.users / "project"              # someone's folder
    elif roll < 0.7:
        target = ctx.targets.users / "notes.txt"            # a file
    elif roll < 0.8:
        target = folder / f"broken{_unique(rng)}"
        target.mkdir()
        (target / "job.json").write_text(rng.choice(["{", "[]", '{"tool": "x"}', '{"deck": 1}', ""]))
    else:
        target = folder / f"stale{_unique(rng)}"
        (target / "L000").mkdir(parents=True)
        (target / "L000" / "p000.keys.npy").write_bytes(b"junk")
    argv = [str(target), "--quiet"]
    kept = True
    for name, value in cat.small[game].items():
        if rng.random() < 0.9:
            argv += ["--set", f"{name}={_config_value(value)}"]
        else:
            kept = False   # the game's default there: possibly far beyond a quick solve
    if rng.random() < 0.3:
        name = rng.choice(cat.params[game] + ["nope"])
        argv += ["--set", f"{name}={rng.choice(JUNK[:12] + ['2', 'match', 'round'])}"]
    if rng.random() < 0.3:
        argv += ["--partitions", rng.choice(["1", "3", "0", "1000", "x"])]
    if rng.random() < 0.2:
        argv += ["--forward-only", rng.choice(["1", "3", "0", "-1", "99"])]
    workers = "0"
    if rng.random() < 0.2:
        workers = rng.choice(["-1", "0", "999", "1"])
        argv += ["--workers", workers]
    timeout = rng.choice([None, 1.0, 2.0, 3.0] if kept else [1.0, 2.0, 3.0])
    if timeout:
        argv += ["--timeout", str(timeout)]
    if rng.random() < 0.03:
        argv += ["--scheduler", "tcp://127.0.0.1:9"]
        timeout = None   # fails in its own 3 s
    return Case("ooc", argv, timeout, module=cat.ooc[game], in_process_ok=workers != "1",
                signal_within=timeout or 3.0)


WRITING_FAMILIES = [case_export, case_report, case_sweep, case_solve_out, case_compare, case_rulings, case_ooc]
