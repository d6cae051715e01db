"""The registry of games: every folder under ``model/`` with a ``rulesets/`` folder is a game,
named by the ``game = "..."`` line of its base ruleset; adding a game touches only its folder."""
from __future__ import annotations

import importlib
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from .ruleset import Ruleset, RulesetError, did_you_mean

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


#: game name -> module that defines ``SPEC``
GAMES: dict[str, str] = _discover()


@cache
def get_spec(name: str) -> "GameSpec":
    module = GAMES.get(name)
    if module is None:
        raise RulesetError("command line", "game", f"unknown game {name!r}{did_you_mean(name, GAMES)} "
                           f"(known: {', '.join(GAMES)})")
    return importlib.import_module(module).SPEC


def all_specs() -> list["GameSpec"]:
    return [get_spec(name) for name in GAMES]


def builtin_rulesets() -> dict[str, "GameSpec"]:
    """Built-in ruleset name -> the game it belongs to."""
    return {rs: spec for spec in all_specs() for rs in spec.builtin_rulesets()}


def load_ruleset(ref: str) -> Ruleset:
    """A game name, a built-in ruleset name, or a path to a ``.toml`` ruleset file."""
    if ref.endswith(".toml") or "/" in ref or Path(ref).suffix:
        from .spec import load_ruleset_file
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
