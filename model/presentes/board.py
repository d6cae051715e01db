"""Boards and dice of Presentes: the three official tracks, a seeded layout generator, layout files.

Source: ``seeds/003_*``, "O tabuleiro": Curta 40 squares (9 ★, 6 ☠, 3 🛡), Média 70 (16, 11, 5),
Longa 100 (23, 15, 8); "casas 🛡 ... sempre em casas comuns". Only the counts are printed, so the
layout comes from a seed (ruling P01) or from a hand-drawn layout file.

Squares are numbered 0..N-1: every piece starts on square 0, square N-1 is the finish (P03:
reaching or passing it finishes). Start, finish and square 1 are always plain ordinary squares.

Layout file format (one board per file, UTF-8 text)::

    # a comment runs to the end of the line; blanks and line breaks are ignored
    . . * x . s . * . .

one symbol per square, from the start square to the finish square: ``.`` ordinary, ``*`` or ``★``
luck, ``x`` or ``☠`` bad luck, ``s`` or ``🛡`` shield (an ordinary square that protects). The
first and last squares must be ordinary; 4 to 400 squares.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction
from functools import cache
from pathlib import Path

from ruleproof.model.ruleset import RulesetError, read_input_text


class Square(IntEnum):
    ORDINARY = 0
    LUCK = 1    # ★ casa de sorte
    BAD = 2     # ☠ casa de azar
    SHIELD = 3  # 🛡 an ordinary square whose occupant cannot be targeted


SYMBOLS: dict[str, Square] = {".": Square.ORDINARY, "*": Square.LUCK, "★": Square.LUCK,
                              "x": Square.BAD, "X": Square.BAD, "☠": Square.BAD,
                              "s": Square.SHIELD, "S": Square.SHIELD, "🛡": Square.SHIELD}
DRAW = {Square.ORDINARY: ".", Square.LUCK: "*", Square.BAD: "x", Square.SHIELD: "s"}

#: name -> (squares, luck, bad luck, shield), from the table in "O tabuleiro"
OFFICIAL: dict[str, tuple[int, int, int, int]] = {
    "curta": (40, 9, 6, 3),
    "media": (70, 16, 11, 5),
    "longa": (100, 23, 15, 8),
}
ALIASES = {"média": "media", "short": "curta", "medium": "media", "long": "longa"}
BOARDS_DIR = Path(__file__).parent / "boards"
MIN_SQUARES, MAX_SQUARES = 4, 400


@dataclass(frozen=True)
class Board:
    name: str
    squares: tuple[Square, ...]

    @property
    def size(self) -> int:
        return len(self.squares)

    @property
    def finish(self) -> int:
        return len(self.squares) - 1

    def count(self, kind: Square) -> int:
        return sum(1 for sq in self.squares if sq == kind)

    def drawing(self) -> str:
        return "".join(DRAW[sq] for sq in self.squares)


def generate_layout(size: int, luck: int, bad: int, shield: int, seed: int) -> tuple[Square, ...]:
    """Ruling P01: specials spread evenly with a seeded shuffle.

    The free squares 2..size-2 are cut into as many equal runs as there are special squares; each
    run gets one special at a seeded offset, and the kinds are dealt to the runs in a seeded order.
    """
    free = list(range(2, size - 1))
    kinds = [Square.LUCK] * luck + [Square.BAD] * bad + [Square.SHIELD] * shield
    if len(kinds) > len(free):
        raise ValueError(f"{len(kinds)} special squares do not fit on {size} squares")
    rng = random.Random(seed)
    rng.shuffle(kinds)
    squares = [Square.ORDINARY] * size
    k = len(kinds)
    for i, kind in enumerate(kinds):
        lo, hi = i * len(free) // k, (i + 1) * len(free) // k
        squares[free[rng.randrange(lo, hi)]] = kind
    return tuple(squares)


def parse_layout(text: str) -> tuple[Square, ...]:
    """Parse a layout drawing; raises ValueError naming the problem."""
    squares = []
    for line_no, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0]
        for ch in line:
            if ch.isspace() or ch == "\ufe0f":
                continue
            if ch not in SYMBOLS:
                raise ValueError(f"line {line_no}: unknown square symbol {ch!r} (use . * x s)")
            squares.append(SYMBOLS[ch])
    if not MIN_SQUARES <= len(squares) <= MAX_SQUARES:
        raise ValueError(f"a board has {MIN_SQUARES} to {MAX_SQUARES} squares, this one {len(squares)}")
    if squares[0] != Square.ORDINARY or squares[-1] != Square.ORDINARY:
        raise ValueError("the start and finish squares must be ordinary ('.')")
    return tuple(squares)


def builtin_layouts() -> list[str]:
    return sorted(p.stem for p in BOARDS_DIR.glob("*.txt"))


def parse_board_param(value: object) -> str:
    """Param parser for ``board``: an official name, a built-in layout name, or a layout file path."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be curta, media, longa, a built-in layout name or a layout file path")
    name = ALIASES.get(value.strip().lower(), value.strip().lower())
    if name in OFFICIAL or name in builtin_layouts():
        return name
    path = Path(value)
    if path.exists():
        _read_layout_file(path)  # validate now; relative paths may also resolve against the ruleset
    elif not (path.suffix or "/" in value):
        raise ValueError(f"unknown board {value!r} (official: {', '.join(OFFICIAL)}; built-in "
                         f"layouts: {', '.join(builtin_layouts())}; or a layout file path)")
    return value


def _read_layout_file(path: Path) -> tuple[Square, ...]:
    """A layout file's squares; a bad file is bad input naming the file (RulesetError)."""
    text = read_input_text(path)
    try:
        return parse_layout(text)
    except ValueError as exc:
        raise RulesetError(str(path), "layout", str(exc)) from None


@cache
def make_board(board: str, layout_seed: int, base_dir: str = ".") -> Board:
    """The board named by the ``board`` parameter (``base_dir``: where a relative path may live)."""
    if board in OFFICIAL:
        size, luck, bad, shield = OFFICIAL[board]
        return Board(board, generate_layout(size, luck, bad, shield, layout_seed))
    if board in builtin_layouts():
        return Board(board, _read_layout_file(BOARDS_DIR / f"{board}.txt"))
    path = Path(board)
    if not path.is_absolute() and not path.exists():
        path = Path(base_dir) / board
    if not path.exists():
        raise ValueError(f"no layout file {board!r} (looked in the current folder"
                         + ("" if base_dir == "." else f" and {base_dir}") + ")")
    return Board(path.stem, _read_layout_file(path))


@cache
def dice_distribution(dice: int) -> tuple[tuple[int, Fraction], ...]:
    """Sum of ``dice`` fair six-sided dice: (total, exact probability), ascending."""
    dist = {0: Fraction(1)}
    for _ in range(dice):
        nxt: dict[int, Fraction] = {}
        for total, p in dist.items():
            for face in range(1, 7):
                nxt[total + face] = nxt.get(total + face, Fraction(0)) + p / 6
        dist = nxt
    return tuple(sorted(dist.items()))
