"""Seeded fuzzing of the command line's contract (issues 15 and 25).

Families of cases -- ruleset files, ``extends`` chains, position files (``deduce``), input files a
parameter names (board layouts), argument lists, and the commands that write or run long: export,
report, sweep, compare, rulings rank/diff/check, and the out-of-core solvers games ship (a game
folder's ``ooc`` module) -- each run through ``cli.main`` in this process, or (``--processes``) a
share as real processes, of which (``--signals``) a share gets Ctrl-C at a random moment. Every
game, ruleset, parameter, ruling, policy and example file comes from the registry
(``ruleproof.model.registry``) and the games' ``examples/`` folders: no list of game names here.

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

JUNK = ["", " ", "0", "-1", "1e309", "nan", "inf", "-inf", "99999999999999999999", "abc", "é", "\x00",
        "[]", "{}", "true", "1.5", "../x", "/dev/zero", "--", "-", "=", "a=b", "X99=x", "1e400", "-0",
        "0x10", "1_000", "é" * 300]
#: seconds a real process is given to start Python before its own clock starts (see ``problems``)
START = 0.3
#: Ctrl-C is sent no earlier than this: before it Python itself owns the signal (its start-up,
#: before the package is imported; README "Limits and signals")
EARLIEST_SIGNAL = 0.3


@dataclass
class Case:
    family: str
    argv: list[str]
    timeout: float | None = None
    module: str | None = None          # ``python -m module`` instead of the ``ruleproof`` command
    in_process_ok: bool = True         # False: only as a real process (say, Dask workers)
    signal_within: float = 3.0         # with --signals: Ctrl-C at a moment up to this many seconds


# ---- what the registry offers ---------------------------------------------------------------

class Catalog:
    """The installed games, read once from the registry: names, built-in rulesets, parameters,
    rulings and their options, policies, small configurations, example files, out-of-core modules."""

    def __init__(self) -> None:
        from ruleproof.model.registry import GAMES, all_specs
        from ruleproof.solver.montecarlo import policy_names
        self.specs = {s.name: s for s in all_specs()}
        self.games = list(self.specs)
        self.rulesets = {g: s.builtin_rulesets() for g, s in self.specs.items()}
        self.params = {g: [p.name for p in s.schema.params] for g, s in self.specs.items()}
        self.rulings = {g: {r.id: list(r.options) for r in s.schema.rulings} for g, s in self.specs.items()}
        self.policies = {g: policy_names(s) for g, s in self.specs.items()}
        self.small = {g: dict(s.verify_overrides) for g, s in self.specs.items()}
        self.examples = {g: sorted((ROOT / "examples" / g).glob("*")) for g in self.games}
        self.deducers = [g for g, s in self.specs.items() if s.deduction is not None]
        self.ooc = {g: f"{GAMES[g]}.ooc" for g in self.games
                    if importlib.util.find_spec(f"{GAMES[g]}.ooc") is not None}

    def any_ruling(self, rng: random.Random, game: str | None = None) -> tuple[str, list[str]]:
        game = game or rng.choice(self.games)
        if not self.rulings[game]:
            return "X9", ["x"]
        rid = rng.choice(sorted(self.rulings[game]))
        return rid, self.rulings[game][rid]

    def flag(self, rng: random.Random, game: str | None = None) -> str:
        return "--" + rng.choice(self.params[game or rng.choice(self.games)]).replace("_", "-")


_catalog: Catalog | None = None


def catalog() -> Catalog:
    global _catalog
    if _catalog is None:
        _catalog = Catalog()
    return _catalog


_names = iter(range(10**9))


def _unique(rng: random.Random) -> int:
    """A fresh file or folder number (random draws could repeat and collide)."""
    rng.randrange(10**6)   # the draw the random names took: earlier seeds keep their cases
    return next(_names)


def _toml_value(rng: random.Random) -> str:
    return rng.choice(['1', '0', '-5', '3', '20', '100', '1000000000000', '"x"', '""', 'true', '1.5',
                       '[1, 2]', '[]', '{a = 1}', '"curta"', '"mini"', '"nope.txt"', '[[1, 0]]',
                       '["1:0"]', '"1:0,1:1"', 'nan', '"\\u00e9"', '9' * 5000, '1e400'])


def _config_value(value) -> str:
    """A configuration value as the command line takes it (lists comma-joined)."""
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    return str(value).lower() if isinstance(value, bool) else str(value)


def _small_args(rng: random.Random, game: str) -> list[str]:
    """The game's small configuration as ``--name value`` options (each kept with probability 0.9)."""
    out = []
    for name, value in catalog().small[game].items():
        if rng.random() < 0.9:
            out += ["--" + name.replace("_", "-"), _config_value(value)]
    return out


def _ruleset_text(rng: random.Random, parent: str | None = None) -> str:
    cat = catalog()
    game = rng.choice(cat.games)
    lines = []
    if parent is not None:
        lines.append(f'extends = "{parent}"')
    elif rng.random() < 0.5:
        lines.append(f'extends = "{rng.choice(cat.games + sum(cat.rulesets.values(), []) + ["nope"])}"')
    else:
        lines.append(f'game = "{rng.choice(cat.games + ["chess"])}"')
    if rng.random() < 0.2:
        lines.append(f'{rng.choice(["name", "description", "bogus"])} = {_toml_value(rng)}')
    if rng.random() < 0.8:
        lines.append("[params]")
        for _ in range(rng.randint(0, 3)):
            lines.append(f"{rng.choice(cat.params[game] + ['nope'])} = {_toml_value(rng)}")
    if rng.random() < 0.3:
        rid, options = cat.any_ruling(rng, game)
        value = f'"{rng.choice(options)}"' if rng.random() < 0.5 else _toml_value(rng)
        lines.append("[rulings]")
        lines.append(f'{rng.choice([rid, "X9"])} = {value}')
    text = "\n".join(lines) + "\n"
    if rng.random() < 0.05:
        text = text[: rng.randint(0, len(text))]
    return text


def _write(folder: Path, name: str, text: str | bytes, rng: random.Random) -> Path:
    path = folder / name
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if rng.random() < 0.1:
        data = b"\xef\xbb\xbf" + data          # a byte-order mark
    if rng.random() < 0.03:
        data = data + b"\xff\xfe"               # not UTF-8
    path.write_bytes(data)
    return path


def _limits(rng: random.Random) -> tuple[list[str], float]:
    timeout = rng.choice([0.5, 1.0, 2.0])
    return ["--max-states", str(rng.choice([1, 10, 200, 2000])), "--timeout", str(timeout)], timeout


def _json(rng: random.Random, p: float = 0.5) -> list[str]:
    return ["--json"] if rng.random() < p else []


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


# ---- the families -------------------------------------------------------------------------------

def case_ruleset(rng: random.Random, ctx: "Context") -> Case:
    path = _write(ctx.folder, f"r{_unique(rng)}.toml", _ruleset_text(rng), rng)
    limits, timeout = _limits(rng)
    command = rng.choice(["solve", "verify", "rulings-list"])
    if command == "rulings-list":
        return Case("ruleset", ["rulings", "list", str(path)])
    extra = ["--no-files"] if command == "solve" else []
    return Case("ruleset", [command, str(path), *extra, *limits, *_json(rng)], timeout)


def case_chain(rng: random.Random, ctx: "Context") -> Case:
    cat = catalog()
    length = rng.choice([1, 2, 5, 30, 120])
    sub = ctx.folder / f"chain{_unique(rng)}"
    sub.mkdir()
    game = rng.choice(cat.games)
    for i in range(length):
        parent = f"c{i - 1}.toml" if i else game
        if rng.random() < 0.02:
            parent = rng.choice([f"c{i}.toml", f"c{i + 1}.toml", "missing.toml", "nope"])  # cycles, holes
        body = f'extends = "{parent}"\n'
        if rng.random() < 0.2:
            name, value = rng.choice(sorted(cat.small[game].items()) or [("players", 2)])
            body += f"[params]\n{name} = {json.dumps(value) if not isinstance(value, tuple) else json.dumps(list(value))}\n"
        _write(sub, f"c{i}.toml", body, rng)
    limits, timeout = _limits(rng)
    return Case("chain", ["solve", str(sub / f"c{length - 1}.toml"), "--no-files", *limits], timeout)


def _slot(rng: random.Random) -> object:
    return rng.choice(["1", "2", "3", "x2", "2.1", "1.5", "?", "?Y", "?R", "?2", "?~3", "?~abc", "?~Y~2",
                       "x99", "", " ", "Y", "?~", "??", "x", 7, None, True, "?1.1", "\ud800", 10**40])


def case_view(rng: random.Random, ctx: "Context") -> Case:
    cat = catalog()
    game = rng.choice(cat.deducers)
    examples = [p for p in cat.examples[game] if p.suffix == ".json"]
    data = json.loads(rng.choice(examples).read_text())
    for _ in range(rng.randint(0, 3)):
        roll = rng.random()
        if roll < 0.4 and data.get("hands"):
            hand = rng.choice(data["hands"])
            if hand.get("racks") and hand["racks"][0]:
                rack = hand["racks"][0]
                rack[rng.randrange(len(rack))] = _slot(rng)
        elif roll < 0.55:
            data.pop(rng.choice(list(data)), None)
        elif roll < 0.7:
            data[rng.choice(["viewer", "format", "claims", "me"])] = rng.choice([0, "zoe", [], {}, None, "\ud800"])
        elif roll < 0.85 and isinstance(data.get("mission"), dict):
            key = rng.choice(list(data["mission"]) + ["number"])
            data["mission"][key] = rng.choice([0, 1, 3, 12, -1, "x", {"values": [1], "in_play": 5}, 10**5000])
        elif isinstance(data.setdefault("claims", []), list):
            data["claims"].append({"hand": rng.choice(["ana", "bia", "zoe"]), "holds": rng.choice(["1", "Y", "x"]),
                                   "at_least": rng.choice([0, 1, 9])})
    text = json.dumps(data)
    if rng.random() < 0.05:
        text = text[: rng.randint(0, len(text))]
    path = _write(ctx.folder, f"v{_unique(rng)}.json", text, rng)
    timeout = rng.choice([None, None, 1.0, 5.0])
    extra = ["--timeout", str(timeout)] if timeout else []
    return Case("view", ["deduce", str(path), *_json(rng), *extra], timeout)


def _input_files(game: str) -> list[tuple[str, Path, Path]]:
    """(parameter, the example file it names, the example ruleset naming it) in a game's examples."""
    import tomllib
    found = []
    for toml in catalog().examples[game]:
        if toml.suffix != ".toml":
            continue
        try:
            params = tomllib.loads(toml.read_text()).get("params", {})
        except (OSError, ValueError):
            continue
        for name, value in params.items():
            if isinstance(value, str) and (toml.parent / value).is_file():
                found.append((name, toml.parent / value, toml))
    return found


def _mutate_text(rng: random.Random, text: str) -> str:
    """A file's text changed with its own alphabet: characters swapped, lines dropped, repeated or cut."""
    alphabet = sorted(set(text) - {"\n"}) or ["."]
    chars = list(text)
    for _ in range(rng.randint(0, 6)):
        roll = rng.random()
        if roll < 0.5 and chars:
            chars[rng.randrange(len(chars))] = rng.choice(alphabet + ["#", "\t", "?"])
        elif roll < 0.7:
            chars = chars * rng.choice([2, 5, 30])
        elif roll < 0.85:
            chars = chars[: rng.randint(0, len(chars))]
        else:
            lines = "".join(chars).split("\n")
            rng.shuffle(lines)
            chars = list("\n".join(lines))
    return "".join(chars)


def case_layout(rng: random.Random, ctx: "Context") -> Case:
    """An input file a game parameter names (a board layout), mutated, through solve or simulate."""
    cat = catalog()
    options = [(g, item) for g in cat.games for item in _input_files(g)]
    if not options:
        return case_arguments(rng, ctx)
    game, (param, example, _) = rng.choice(options)
    path = _write(ctx.folder, f"b{_unique(rng)}{example.suffix}", _mutate_text(rng, example.read_text()), rng)
    limits, timeout = _limits(rng)
    flag = "--" + param.replace("_", "-")
    if rng.random() < 0.5:
        return Case("layout", ["simulate", game, flag, str(path), "--games", str(rng.choice([1, 10, 200])),
                               "--timeout", str(timeout)], timeout)
    return Case("layout", ["solve", game, flag, str(path), "--players", str(rng.choice([2, 3])),
                           "--no-files", *limits], timeout)


def case_arguments(rng: random.Random, ctx: "Context") -> Case:
    cat = catalog()
    command = rng.choice(["games", "verify", "solve", "simulate", "compare", "deduce", "rulings list",
                          "rulings diff", "rulings check", "frobnicate", ""])
    argv = command.split()
    timeout = None
    game = rng.choice(cat.games + sum(cat.rulesets.values(), []) + ["nope", "", "x.toml", "/dev/zero"]
                      + [str(p) for g in cat.games for p in cat.examples[g] if p.suffix == ".toml"])
    if command in ("verify", "solve", "simulate", "compare", "rulings diff"):
        argv.append(game)
    if command == "compare":
        argv.append(rng.choice([game] + cat.games))
    if command == "rulings diff":   # unknown ids only: a real diff runs in its own family
        argv.append(rng.choice(["X1", "", "L4x", "P"]))
    if command == "deduce":
        views = [str(p) for g in cat.deducers for p in cat.examples[g] if p.suffix == ".json"]
        argv.append(rng.choice(views + ["/dev/zero", "nope.json", "", "."]))
    if command == "rulings list" and rng.random() < 0.7:
        argv.append(rng.choice([game, "''", ""]))
    if command == "rulings check":   # bad names only: the scenarios run in their own family
        argv.append(rng.choice(["nope", "''", "", "x.toml"] + sum(cat.rulesets.values(), [])[:1]))
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
        option = rng.choice([cat.flag(rng), cat.flag(rng), "--players", "--ruling", "--policy", "--bogus",
                             "--json", "--exact", "--float", "extra", "--max-states", "--timeout", "--option"])
        argv.append(option)
        if option.startswith("--") and option not in ("--json", "--exact", "--float") and rng.random() < 0.9:
            rid, options = cat.any_ruling(rng)
            value = rng.choice(JUNK + ["3", "2", "mini", f"{rid}={rng.choice(options)}", rng.choice(options)])
            if option in ("--max-states", "--timeout") and timeout is not None:
                value = rng.choice(["1", "2", "0.5", "0", "-1", "nan", "x", "inf", "1e300"])
            argv.append(value)
    return Case("arguments", argv, _timeout_in_force(argv, timeout))


def _timeout_in_force(argv: list[str], default: float | None) -> float | None:
    """The last --timeout given is the one in force (when it is a valid limit)."""
    if "--timeout" not in argv:
        return default
    i = len(argv) - 1 - argv[::-1].index("--timeout")
    try:
        value = float(argv[i + 1])
    except (IndexError, ValueError):
        return None
    return value if 0 < value <= 1e6 else None


def case_export(rng: random.Random, ctx: "Context") -> Case:
    cat = catalog()
    game = rng.choice(cat.games)
    fmt = rng.choice(["prism", "drn", "jani", "jani", "xml"])
    argv = ["export", game, "--format", fmt, ctx.targets.file(rng, "." + fmt), *_small_args(rng, game)]
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
    argv = ["solve", game, *_small_args(rng, game), "--out", ctx.targets.folder_target(rng),
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


FAMILIES = [case_ruleset, case_chain, case_view, case_layout, case_arguments]
#: the commands that write files or run long (issue 25)
WRITING_FAMILIES = [case_export, case_report, case_sweep, case_solve_out, case_compare, case_rulings, case_ooc]


@dataclass
class Context:
    folder: Path
    targets: Targets


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


def problems(case: Case, res: Outcome, slack: float = 0.0) -> list[str]:
    """The contract's breaches (empty when the case keeps it); ``slack``: process start-up and load."""
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
        if res.after_signal is None or res.after_signal > 1.0 + slack:
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
    as_processes = interrupted = 0
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
            if as_process:
                res = run_as_process(case.argv, module=case.module, interrupt_at=interrupt_at)
            else:
                res = run_in_process(case.argv, module=case.module)
            as_processes += as_process
            interrupted += res.signalled
            codes[res.code] += 1
            if verbose and res.seconds > 10:
                print(f"slow case {i} ({res.seconds:.1f} s): {case.argv}", flush=True)
            per_family[case.family] += 1
            # a real process also starts Python before its clock begins
            bad = problems(case, res, slack=slack + (START if as_process else 0.0))
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
            "failures": failures}


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
