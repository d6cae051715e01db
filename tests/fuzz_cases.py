"""The fuzzer's cases (tests/fuzz.py), part one: the installed games as the registry describes them
(``Catalog``: no list of game names anywhere here) and the families that feed the commands bad and
odd input -- ruleset files, ``extends`` chains, position files, the input files a parameter names
(board layouts), argument lists. The families of the commands that write files: tests/fuzz_writing.py.
"""
from __future__ import annotations

import importlib.util
import json
import random
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

JUNK = ["", " ", "0", "-1", "1e309", "nan", "inf", "-inf", "99999999999999999999", "abc", "é", "\x00",
        "[]", "{}", "true", "1.5", "../x", "/dev/zero", "--", "-", "=", "a=b", "X99=x", "1e400", "-0",
        "0x10", "1_000", "é" * 300]
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
        # each game's manifest names the configuration the fuzzer may solve in a moment (a built-in
        # ruleset and/or parameters); without one, its small configuration for verify
        fuzz = {g: s.manifest.get("fuzz") for g, s in self.specs.items()}
        self.small = {g: dict(entry.get("params", {})) if entry else dict(self.specs[g].verify_overrides)
                      for g, entry in fuzz.items()}
        self.target = {g: (entry or {}).get("ruleset") or g for g, entry in fuzz.items()}
        self.examples = {g: sorted((self.specs[g].folder / "examples").glob("*")) for g in self.games}
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


BIG = "a 5,000-digit number"   # stands for one in the view until it is written


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
            data["mission"][key] = rng.choice([0, 1, 3, 12, -1, "x", {"values": [1], "in_play": 5}, BIG])
        elif isinstance(data.setdefault("claims", []), list):
            data["claims"].append({"hand": rng.choice(["ana", "bia", "zoe"]), "holds": rng.choice(["1", "Y", "x"]),
                                   "at_least": rng.choice([0, 1, 9])})
    text = json.dumps(data).replace(json.dumps(BIG), "9" * 5000)   # a number Python will not read
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


FAMILIES = [case_ruleset, case_chain, case_view, case_layout, case_arguments]


@dataclass
class Context:
    """What a case may use: a scratch folder, and (tests/fuzz_writing.py) the targets it aims at."""
    folder: Path
    targets: object = None

