"""Wire tiles: one integer sort code per tile, so that sorting codes sorts a rack.

A blue wire of value ``v`` has code ``10 * v``; a yellow wire at the in-between value ``v.1`` has
code ``10 * v + 1`` and a red wire at ``v.5`` has code ``10 * v + 5`` (ruling B02). Codes of one
kind and value are interchangeable tiles; every yellow and red tile has its own code. The text
form used in view files and narrations is the printed value: ``"7"``, ``"3.1"`` (yellow), ``"3.5"``
(red).
"""
from __future__ import annotations

from enum import IntEnum
from typing import Iterable

Tile = int  #: a sort code
Named = int  #: what a dual cut names: a blue code (10 * v) or YELLOW

YELLOW_OFFSET, RED_OFFSET = 1, 5
#: the name "yellow" in a dual cut or an info token (B05): every yellow tile matches it
YELLOW: Named = 1
#: an info token or fact "this wire is red" (any red tile)
RED_ANY: Named = 5


class Colour(IntEnum):
    BLUE = 0
    YELLOW = 1
    RED = 5


def blue(value: int) -> Tile:
    return 10 * value


def yellow(value: int) -> Tile:
    return 10 * value + YELLOW_OFFSET


def red(value: int) -> Tile:
    return 10 * value + RED_OFFSET


def colour(tile: Tile) -> Colour:
    return Colour(tile % 10)


def value(tile: Tile) -> int:
    """The printed integer part: the blue value, or the ``v`` of ``v.1`` / ``v.5``."""
    return tile // 10


def matches(tile: Tile, named: Named) -> bool:
    """Does a dual cut naming ``named`` succeed on ``tile``?"""
    if named == YELLOW:
        return colour(tile) == Colour.YELLOW
    if named == RED_ANY:
        return colour(tile) == Colour.RED
    return tile == named


def show(tile: Tile) -> str:
    c = colour(tile)
    if c == Colour.BLUE:
        return str(value(tile))
    return f"{value(tile)}.{tile % 10}"


def show_named(named: Named) -> str:
    if named == YELLOW:
        return "yellow"
    if named == RED_ANY:
        return "red"
    return show(named)


def parse(text: str, max_blue: int = 12) -> Tile:
    """``"7"`` -> blue 7, ``"3.1"`` -> yellow at 3.1, ``"3.5"`` -> red at 3.5; ValueError otherwise."""
    text = text.strip()
    head, dot, tail = text.partition(".")
    if not head.isdigit() or (dot and tail not in ("1", "5")):
        raise ValueError(f"{text!r} is not a wire (blue 'v', yellow 'v.1' or red 'v.5')")
    v = int(head)
    if not dot:
        if not 1 <= v <= max_blue:
            raise ValueError(f"blue value {v} out of range 1..{max_blue}")
        return blue(v)
    if not 1 <= v <= 11:
        raise ValueError(f"red and yellow wires lie between 1.x and 11.x, not {text!r}")
    return yellow(v) if tail == "1" else red(v)


def blue_pool(values: int, copies: int) -> list[Tile]:
    return [blue(v) for v in range(1, values + 1) for _ in range(copies)]


def count(tiles: Iterable[Tile], tile: Tile) -> int:
    return sum(1 for t in tiles if t == tile)
