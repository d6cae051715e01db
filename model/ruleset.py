"""Rulesets: a game's parameters (components, configuration) and its rulings, loaded from TOML.

A ruleset file looks like::

    extends = "pig"            # a built-in ruleset name, or a path relative to this file
    name = "pig-goal-20"       # optional
    description = "..."        # optional
    [params]
    goal = 20
    [rulings]
    L04 = "bathroom-cards"     # ruling id = option name

Built-in rulesets are TOML files in each game's ``rulesets/`` folder; a base one names its game
with ``game = "..."`` instead of ``extends``. Every key is validated: unknown keys and bad values
raise :class:`RulesetError`, whose message names the file, the key and the reason.
"""
from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence


def did_you_mean(word: str, known) -> str:
    """", did you mean 'x'?" for the closest known name (case-insensitive), else ""."""
    names = list(known)
    unpadded = {re.sub(r"\d+", lambda m: str(int(m.group())), n.lower()): n for n in names}
    same = unpadded.get(re.sub(r"\d+", lambda m: str(int(m.group())), word.lower()))
    if same is not None:   # "L4" for "L04"
        return f", did you mean {same!r}?"
    lower = {n.lower(): n for n in names}
    close = difflib.get_close_matches(word.lower(), list(lower), n=1, cutoff=0.6)
    return f", did you mean {lower[close[0]]!r}?" if close else ""


def value_words(value: Any) -> str:
    """A parameter value as a reader writes it, never a Python repr: a list with its repeats
    counted (``[F1×3 F2×3 ...] (28)``), a pair as its words (``estabilizador 1``)."""
    if isinstance(value, (list, tuple)):
        if not value:
            return "none"
        if all(isinstance(v, (list, tuple)) for v in value):   # pairs: one item each
            return ", ".join(" ".join(value_words(x) for x in v) for v in value)
        counts: dict[str, int] = {}
        for item in value:
            key = value_words(item)
            counts[key] = counts.get(key, 0) + 1
        inner = " ".join(k if n == 1 else f"{k}×{n}" for k, n in counts.items())
        return f"[{inner}]" + (f" ({len(value)})" if len(value) > 6 else "")
    return str(value)


class RulesetError(ValueError):
    """Bad input: one line naming where (file), what (key) and why."""

    def __init__(self, source: str, key: str, reason: str):
        self.source, self.key, self.reason = source, key, reason
        super().__init__(f"{source}: {key}: {reason}")


@dataclass(frozen=True)
class Param:
    """A game parameter. ``parse`` turns a raw TOML/CLI value into a checked one or raises ValueError."""

    name: str
    description: str
    default: Any
    parse: Callable[[Any], Any]


@dataclass(frozen=True)
class Needs:
    """What a configuration must have for a ruling to come into play at all (a card in the deck, a
    match, more players); ``test`` reads a ruleset's parameters."""

    doc: str
    test: Callable[[Mapping[str, Any]], bool]


@dataclass(frozen=True)
class Ruling:
    """One point the rule text leaves open; ``options`` maps option name -> what it means.

    The first option is the default. ``cites`` quotes or locates the sentence interpreted.
    ``needs``, when given, says which configurations can exercise the ruling (``rulings diff``
    answers "not exercised" for the others); None: any configuration may.
    """

    id: str
    question: str
    options: Mapping[str, str]
    cites: str
    needs: Needs | None = None

    def exercised_by(self, params: Mapping[str, Any]) -> bool:
        return self.needs is None or bool(self.needs.test(params))

    @property
    def default(self) -> str:
        return next(iter(self.options))

    @property
    def alternatives(self) -> tuple[str, ...]:
        return tuple(self.options)[1:]


@dataclass(frozen=True)
class Ruleset:
    game: str
    name: str
    params: Mapping[str, Any]
    rulings: Mapping[str, str]
    source: str
    description: str = ""
    #: parameter -> where its value was set (a file of an ``extends`` chain, "command line");
    #: parameters not listed come from ``source``. Errors about a value blame where it was set.
    origins: Mapping[str, str] = field(default_factory=dict, compare=False)

    def __getitem__(self, param: str) -> Any:
        return self.params[param]

    def ruling(self, ruling_id: str) -> str:
        return self.rulings[ruling_id]

    def origin(self, param: str) -> str:
        """Where ``param``'s value was set (see ``origins``)."""
        return self.origins.get(param, self.source)

    def with_overrides(self, params: Mapping[str, Any] | None = None,
                       rulings: Mapping[str, str] | None = None, *, source: str = "command line",
                       spec: "RulesSchema | None" = None) -> "Ruleset":
        """A copy with some parameters or rulings replaced (validated when ``spec`` is given)."""
        new_params = dict(self.params)
        new_rulings = dict(self.rulings)
        if spec is not None:
            new_params.update(spec.parse_params(params or {}, source))
            new_rulings.update(spec.parse_rulings(rulings or {}, source))
            spec.check_whole(new_params, source)
        else:
            new_params.update(params or {})
            new_rulings.update(rulings or {})
        origins = dict(self.origins)
        origins.update({k: source for k in params or {}})
        return Ruleset(self.game, self.name, MappingProxyType(new_params),
                       MappingProxyType(new_rulings), self.source, self.description,
                       MappingProxyType(origins))

    def as_dict(self) -> dict[str, Any]:
        return {"game": self.game, "name": self.name, "source": self.source,
                "params": {k: _jsonable(v) for k, v in self.params.items()},
                "rulings": dict(self.rulings)}


def _jsonable(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class RulesSchema:
    """What a game accepts: its parameters and its rulings catalog."""

    game: str
    params: Sequence[Param]
    rulings: Sequence[Ruling]
    #: a whole-ruleset check run after every parameter is parsed (cross-parameter constraints);
    #: returns None or (key, reason)
    whole_check: Callable[[Mapping[str, Any]], tuple[str, str] | None] | None = None
    param_index: dict[str, Param] = field(init=False, repr=False, compare=False)
    ruling_index: dict[str, Ruling] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "param_index", {p.name: p for p in self.params})
        object.__setattr__(self, "ruling_index", {r.id: r for r in self.rulings})

    def defaults(self) -> tuple[dict[str, Any], dict[str, str]]:
        return ({p.name: p.default for p in self.params},
                {r.id: r.default for r in self.rulings})

    def parse_params(self, raw: Mapping[str, Any], source: str) -> dict[str, Any]:
        out = {}
        for key, value in raw.items():
            param = self.param_index.get(key)
            if param is None:
                raise RulesetError(source, f"params.{key}", f"unknown parameter for {self.game}"
                                   f"{did_you_mean(key, self.param_index)} (known: {', '.join(self.param_index)})")
            try:
                out[key] = param.parse(value)
            except RulesetError:  # the parser read a file and names it (e.g. a board layout)
                raise
            except (ValueError, TypeError) as exc:
                raise RulesetError(source, f"params.{key}", str(exc) or "bad value") from None
        return out

    def parse_rulings(self, raw: Mapping[str, Any], source: str) -> dict[str, str]:
        out = {}
        for key, value in raw.items():
            ruling = self.ruling_index.get(key)
            if ruling is None:
                known = ", ".join(self.ruling_index) or "none"
                raise RulesetError(source, f"rulings.{key}", f"unknown ruling id for {self.game}"
                                   f"{did_you_mean(key, self.ruling_index)} (known: {known})")
            if not isinstance(value, str) or value not in ruling.options:
                hint = did_you_mean(value, ruling.options) if isinstance(value, str) else ""
                raise RulesetError(source, f"rulings.{key}",
                                   f"{value!r} is not an option{hint} (options: {', '.join(ruling.options)})")
            out[key] = value
        return out

    def check_whole(self, params: Mapping[str, Any], source: str) -> None:
        if self.whole_check is not None:
            problem = self.whole_check(params)
            if problem is not None:
                raise RulesetError(source, f"params.{problem[0]}", problem[1])


_TOP_KEYS = {"game", "extends", "name", "description", "params", "rulings"}


#: input files (rulesets, layouts, views) are small text files; anything bigger is not one of them
MAX_INPUT_BYTES = 1 << 20


def read_input_text(path: Path, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """An input file's UTF-8 text (a leading byte-order mark is dropped). A missing, unreadable,
    binary, oversized or non-regular file (a FIFO, a device such as /dev/zero, a folder) is bad
    input: :class:`RulesetError` naming the file. Only regular files are opened, so a FIFO never
    blocks, and at most ``max_bytes + 1`` bytes are read (files in /proc report size 0)."""
    import os
    import stat

    source = str(path)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            what = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise RulesetError(source, "-", f"{what}; give a text file")
        if info.st_size > max_bytes:
            raise RulesetError(source, "-", f"too large ({info.st_size:,} bytes; input files are at "
                                            f"most {max_bytes:,} bytes)")
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except FileNotFoundError:
        raise RulesetError(source, "-", "file not found") from None
    except OSError as exc:
        raise RulesetError(source, "-", f"cannot read ({exc.strerror or exc})") from None
    except ValueError as exc:  # e.g. an embedded NUL character in the path
        if isinstance(exc, RulesetError):
            raise
        raise RulesetError(source, "-", f"not a usable path ({exc})") from None
    if len(data) > max_bytes:
        raise RulesetError(source, "-", f"too large (more than {max_bytes:,} bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RulesetError(source, "-", "not UTF-8 text") from None


#: a number in an input JSON file longer than this is not a count of anything (Python refuses to
#: read integers of more than 4,300 digits, with an error that named no file)
MAX_NUMBER_DIGITS = 40


def read_input_json(path: Path) -> Any:
    """An input JSON file (checked as ``read_input_text``), parsed. Bad JSON, a number of more than
    :data:`MAX_NUMBER_DIGITS` digits and text that is not valid Unicode (a lone surrogate such as
    ``"\\ud800"``, which could never be printed) are bad input naming the file."""
    import json

    source = str(path)

    def number(text: str) -> int | float:
        if len(text) > MAX_NUMBER_DIGITS:
            raise RulesetError(source, "-", f"a number of {len(text):,} characters (at most "
                                            f"{MAX_NUMBER_DIGITS})")
        return int(text) if text.lstrip("-").isdigit() else float(text)
    try:
        data = json.loads(read_input_text(path), parse_int=number, parse_float=number)
    except json.JSONDecodeError as exc:
        raise RulesetError(source, "-", f"not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise RulesetError(source, "-", "nested too deeply (JSON)") from None
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise RulesetError(source, "-", f"text that is not valid Unicode ({exc.object[exc.start:exc.end]!a}: "
                                        "a lone surrogate escape)") from None
    return data


def read_toml(path: Path) -> dict[str, Any]:
    source = str(path)
    text = read_input_text(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(source, "-", f"not valid TOML ({exc})") from None
    except ValueError as exc:   # an integer of more than 4,300 digits (Python's own limit)
        raise RulesetError(source, "-", f"not a usable TOML value ({exc})") from None
    except RecursionError:
        raise RulesetError(source, "-", "nested too deeply to be a ruleset") from None
    for key in data:
        if key not in _TOP_KEYS:
            raise RulesetError(source, key, f"unknown key (allowed: {', '.join(sorted(_TOP_KEYS))})")
    for table in ("params", "rulings"):
        if table in data and not isinstance(data[table], dict):
            raise RulesetError(source, table, "must be a table")
    for text_key in ("game", "extends", "name", "description"):
        if text_key in data and not isinstance(data[text_key], str):
            raise RulesetError(source, text_key, "must be a string")
    return data


# ---- small parsers for Param.parse -------------------------------------------------------------

def int_in(lo: int, hi: int) -> Callable[[Any], int]:
    def parse(value: Any) -> int:
        if isinstance(value, bool):
            raise ValueError(f"must be an integer from {lo} to {hi}")
        if isinstance(value, str):
            try:
                value = int(value)
            except ValueError:
                raise ValueError(f"must be an integer from {lo} to {hi}, not {value!r}") from None
        if not isinstance(value, int) or not lo <= value <= hi:
            raise ValueError(f"must be an integer from {lo} to {hi}, not {value!r}")
        return value
    return parse


def one_of(*choices: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        if value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}, not {value!r}")
        return value
    return parse


def boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "1", "0"):
        return value.lower() in ("true", "yes", "1")
    raise ValueError(f"must be true or false, not {value!r}")


def int_list(lo: int, hi: int, min_len: int = 0, max_len: int = 10_000) -> Callable[[Any], tuple[int, ...]]:
    def parse(value: Any) -> tuple[int, ...]:
        if isinstance(value, str):
            value = [v for v in value.replace(",", " ").split()]
        if not isinstance(value, (list, tuple)):
            raise ValueError("must be a list of integers")
        out = tuple(int_in(lo, hi)(v) for v in value)
        if not min_len <= len(out) <= max_len:
            raise ValueError(f"must hold {min_len} to {max_len} integers, not {len(out)}")
        return out
    return parse
