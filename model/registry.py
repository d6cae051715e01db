"""The registry of games: every folder under ``model/`` with a ``rulesets/`` folder is a game,
named by the ``game = "..."`` line of its base ruleset; adding a game touches only its folder.

A game from another package registers through the entry-point group ``ruleproof.games`` (in the
manner of Gymnasium's registration): ``name = "package.module"`` (or ``"package.module:SPEC"``)
names the module that defines its ``GameSpec``; nothing is imported until the game is used."""
from __future__ import annotations

import importlib
import re
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .ruleset import Ruleset, RulesetError, did_you_mean, read_toml

if TYPE_CHECKING:
    from .spec import GameSpec

_GAME_LINE = re.compile(r'^game\s*=\s*"([^"]+)"', re.MULTILINE)


def _discover() -> dict[str, str]:
    """Game name -> module defining ``SPEC``, for each game folder (by folder name), found without
    importing any game: the name is the ``game`` key of a built-in ruleset in ``rulesets/``."""
    found: dict[str, str] = {}
    for folder in sorted(Path(__file__).parent.iterdir()):
        if not (folder / "__init__.py").exists() or not (folder / "rulesets").is_dir():
            continue
        for toml in sorted((folder / "rulesets").glob("*.toml")):
            m = _GAME_LINE.search(toml.read_text(encoding="utf-8"))
            if m:
                found[m.group(1)] = f"{__package__}.{folder.name}"
                break
    return found


#: the entry-point group through which other packages register games
ENTRY_POINTS = "ruleproof.games"


def _installed(found: dict[str, str]) -> dict[str, str]:
    """Games other packages register (a built-in name is never replaced). The installed
    distributions' ``entry_points.txt`` files are read directly: ``importlib.metadata`` would cost
    every command tens of milliseconds of start-up."""
    import os
    import sys
    out: dict[str, str] = {}
    seen: set[str] = set()
    for folder in sys.path:
        try:
            entries = sorted(os.scandir(folder or "."), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if not entry.name.endswith((".dist-info", ".egg-info")) or entry.name in seen:
                continue
            seen.add(entry.name)   # the first on sys.path wins, as for imports
            try:
                text = Path(entry.path, "entry_points.txt").read_text(encoding="utf-8")
            except OSError:
                continue
            for name, value in _group(text, ENTRY_POINTS):
                if name not in found and name not in out:
                    out[name] = value
    return dict(sorted(out.items()))


def _group(text: str, group: str) -> list[tuple[str, str]]:
    """The ``name = value`` lines of one ``[group]`` section of an entry_points.txt."""
    out, inside = [], False
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            inside = line == f"[{group}]"
        elif inside and "=" in line and not line.startswith(("#", ";")):
            name, _, value = line.partition("=")
            out.append((name.strip(), value.strip()))
    return out


#: game name -> the module that defines ``SPEC`` (``"module:attr"`` for another name)
GAMES: dict[str, str] = _discover()
GAMES.update(_installed(GAMES))


@cache
def get_spec(name: str) -> "GameSpec":
    ref = GAMES.get(name)
    if ref is None:
        raise RulesetError("command line", "game", f"unknown game {name!r}{did_you_mean(name, GAMES)} "
                           f"(known: {', '.join(GAMES)})")
    module, _, attr = ref.partition(":")
    spec = getattr(importlib.import_module(module), attr or "SPEC")
    if spec.name != name:
        raise RulesetError(ref, "name", f"registered as {name!r}, but its GameSpec is named {spec.name!r}")
    return spec


def all_specs() -> list["GameSpec"]:
    return [get_spec(name) for name in GAMES]


def builtin_rulesets() -> dict[str, "GameSpec"]:
    """Built-in ruleset name -> the game it belongs to."""
    return {rs: spec for spec in all_specs() for rs in spec.builtin_rulesets()}


def load_ruleset(ref: str) -> Ruleset:
    """A game name, a built-in ruleset name, or a path to a ``.toml`` ruleset file."""
    if ref.endswith(".toml") or "/" in ref or Path(ref).suffix:
        return load_ruleset_file(Path(ref))
    if ref in GAMES:
        spec = get_spec(ref)
        return spec.ruleset(spec.default_ruleset)
    owners = builtin_rulesets()
    if ref in owners:
        return owners[ref].ruleset(ref)
    raise RulesetError("command line", "game", f"unknown game or ruleset {ref!r}"
                       f"{did_you_mean(ref, list(GAMES) + list(owners))} "
                       f"(games: {', '.join(GAMES)}; rulesets: {', '.join(owners)})")


def load_ruleset_file(path: Path) -> Ruleset:
    """Load and validate a ruleset TOML file, following ``extends`` chains (iteratively, so a
    long chain of files costs no recursion depth)."""
    chain: list[tuple[Path, dict[str, Any]]] = []   # the leaf first, up to the base
    seen: set[Path] = set()
    parent: Ruleset | None = None
    spec = None
    while True:
        source = str(path)
        data = read_toml(path)
        resolved = path.resolve()
        if resolved in seen:
            raise RulesetError(source, "extends", "ruleset extends itself (cycle)")
        seen.add(resolved)
        if ("game" in data) == ("extends" in data):
            raise RulesetError(source, "extends", "give exactly one of 'game' (a base ruleset) or 'extends'")
        chain.append((path, data))
        if "game" in data:
            if data["game"] not in GAMES:
                raise RulesetError(source, "game", f"unknown game {data['game']!r} (known: {', '.join(GAMES)})")
            spec = get_spec(data["game"])
            break
        parent_ref = data["extends"]
        if parent_ref.endswith(".toml"):
            parent_path = path.parent / parent_ref
            if not parent_path.exists():
                raise RulesetError(source, "extends", f"no such ruleset file {str(parent_path)!r}")
            path = parent_path
            continue
        owners = builtin_rulesets()
        if parent_ref in owners:
            parent = owners[parent_ref].ruleset(parent_ref)
        elif parent_ref in GAMES:
            parent = get_spec(parent_ref).default()
        else:
            raise RulesetError(source, "extends", f"unknown built-in ruleset {parent_ref!r} "
                               f"(known: {', '.join(owners)})")
        spec = get_spec(parent.game)
        break
    if parent is None:
        params, rulings = spec.schema.defaults()
        origins: dict[str, str] = {}
    else:
        params, rulings = dict(parent.params), dict(parent.rulings)
        origins = {k: parent.origin(k) for k in parent.params}
    for file_path, data in reversed(chain):   # from the base down to the file asked for
        source = str(file_path)
        own = spec.schema.parse_params(data.get("params", {}), source)
        params.update(own)
        origins.update({k: source for k in own})
        rulings.update(spec.schema.parse_rulings(data.get("rulings", {}), source))
        spec.schema.check_whole(params, source)
    path, data = chain[0]
    return Ruleset(game=spec.name, name=data.get("name", path.stem),
                   params=MappingProxyType(params), rulings=MappingProxyType(rulings),
                   source=str(path), description=data.get("description", ""),
                   origins=MappingProxyType(origins))
