"""Smaller missions that keep a ruleset's edit (``GameSpec.shrink``): what ``verify`` explores
exhaustively when the ruleset itself is too big.

The edit is what differs from the standard rules: parameters that differ from the schema's
defaults and rulings that differ from the catalog's. Whatever the edit touches stays (its colours,
its equipment, its player count, its detonator, every ruling); the rest is made small: blue 1-2
twice each, a '1 de 2' red, the skull at the 2nd failure, two experts. Random red and yellow draws
become fixed values (the draw is a set-up chance step that no ruling reads). Each derived mission
is labelled with what it is and what it keeps.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from ruleproof.model.ruleset import Ruleset

from .mission import SCHEMA

#: rulings that only part readings when a player can hold several copies of a value (B07 "first
#: 2" vs "all 4", B10 which own copy): they need four copies of a value
NEEDS_FOUR_COPIES = ("B07", "B10")
#: the small board's equipment when the edit does not touch it (the verify mission's)
SMALL_EQUIPMENT = (("estabilizador", 1), ("comunicadores", 2))


def edit_of(ruleset: Ruleset) -> tuple[list[str], list[str]]:
    """The parameters and rulings that differ from the standard rules."""
    params, rulings = SCHEMA.defaults()
    return ([k for k, v in ruleset.params.items() if params[k] != v],
            [k for k, v in ruleset.rulings.items() if rulings[k] != v])


def _colour(p, colour: str, edited: list[str], keep_max: int, default: tuple[int, int]) -> dict[str, Any]:
    """'X de Y' for one colour: the edit's X (at most ``keep_max``) with at most one extra candidate."""
    keys = (f"{colour}_in_play", f"{colour}_drawn", f"{colour}_values")
    if any(k in edited for k in keys):
        x = min(p[keys[0]], keep_max)
        y = x + min(p[keys[1]] - p[keys[0]], 1)
    else:
        x, y = default
    values = list(p[keys[2]])[:y] if p[keys[2]] else list(range(1, y + 1))
    return {keys[0]: x, keys[1]: y, keys[2]: values}


def _small(ruleset: Ruleset, edited: list[str], edited_rulings: list[str], yellow: bool) -> dict[str, Any]:
    p = ruleset.params
    four = any(r in edited_rulings for r in NEEDS_FOUR_COPIES) or (
        "blue_copies" in edited and p["blue_copies"] == 4)
    values = 1 if four or yellow else 2
    out: dict[str, Any] = {"players": p["players"] if "players" in edited else 2,
                           "blue_values": values, "blue_copies": 4 if four else 2}
    out.update(_colour(p, "red", edited, 2, (1, 2)))
    out.update(_colour(p, "yellow", edited, 4, (2, 2) if yellow else (0, 0)))
    if "detonator" in edited:
        out["detonator"] = p["detonator"]
    else:
        out["detonator"] = 0 if "B01" in edited_rulings else 2
    equipment = p["equipment"] if "equipment" in edited else SMALL_EQUIPMENT
    out["equipment"] = [f"{name}@{min(v, values)}" for name, v in equipment]
    out["detector_duplo"] = p["detector_duplo"]
    return out


def describe(params: dict[str, Any]) -> str:
    def colour(c: str, mark: str) -> str:
        x, y, vals = params[f"{c}_in_play"], params[f"{c}_drawn"], params[f"{c}_values"]
        shown = " ".join(f"{v}.{mark}" for v in vals)
        return f"{c} {x} of {y} ({shown})" if x != y else f"{c} {shown}"
    parts = [f"{params['players']} experts", f"blue 1-{params['blue_values']} x{params['blue_copies']}"
             if params["blue_values"] > 1 else f"blue 1 x{params['blue_copies']}"]
    parts += [colour(c, m) for c, m in (("red", 5), ("yellow", 1)) if params[f"{c}_in_play"]]
    parts.append(f"skull at {params['detonator']}" if params["detonator"] else "skull by B01")
    parts.append(" ".join(params["equipment"]) or "no equipment")
    parts.append("Detector Duplo" if params["detector_duplo"] else "no Detector Duplo")
    return ", ".join(parts)


def _kept(ruleset: Ruleset, derived: Ruleset, edited: list[str], edited_rulings: list[str]) -> str:
    """What of the edit the derived mission keeps as is, and what it makes smaller."""
    if not edited and not edited_rulings:
        return "; the standard rules made small"
    kept = [k for k in edited if derived.params[k] == ruleset.params[k]]
    kept += [f"{r}={ruleset.rulings[r]}" for r in edited_rulings]
    smaller = [k for k in edited if derived.params[k] != ruleset.params[k]]
    return (f"; keeps {', '.join(kept)}" if kept else "") + (f"; made small: {', '.join(smaller)}" if smaller else "")


def shrink(ruleset: Ruleset) -> list[tuple[str, Ruleset]]:
    edited, edited_rulings = edit_of(ruleset)
    variants = [False]
    if ruleset.params["yellow_in_play"] and not any(k.startswith("yellow") for k in edited):
        variants.append(True)   # the standard yellows, in a mission of their own (kept small)
    out = []
    for yellow in variants:
        params = _small(ruleset, edited, edited_rulings, yellow)
        derived = ruleset.with_overrides(params, spec=SCHEMA, source=f"derived from {ruleset.source}")
        label = describe(params) + _kept(ruleset, derived, edited, edited_rulings)
        out.append((label, replace(derived, name=f"{ruleset.name}-small{'-yellow' if yellow else ''}")))
    return out
