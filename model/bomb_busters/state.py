"""The state record of a Bomb Busters game, in the manner of a TLA+ spec: one field per variable.

A wire on a rack is one int: its tile code (bits 0-6, see :mod:`tiles`), a cut flag (bit 7), the
info token in front of it (bits 8-11: 0 none, 1-12 a blue value, 13 yellow) and the values it is
publicly known not to be (bits 12-24: blue 1-12, then yellow), left by a failed Detector Duplo.
Racks stay sorted by tile code; cut wires keep their places.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from enum import IntEnum

from . import tiles as T
from .tiles import Named, Tile

Wire = int
CODE_MASK, CUT_BIT, INFO_SHIFT, NOT_SHIFT = 127, 128, 8, 12
INFO_YELLOW = 13


class Phase(IntEnum):
    DRAW_RED = 0     # chance: which red values are drawn and shown (when not fixed)
    DRAW_YELLOW = 1  # chance: which yellow values
    ASIDE = 2        # chance: which shown candidates are set aside unseen ("X de Y")
    DEAL = 3         # chance: the next wire dealt face down
    TOKENS = 4       # each player puts an info token on one own blue wire (B09)
    PLAY = 5
    WON = 6
    LOST = 7


def code(w: Wire) -> Tile:
    return w & CODE_MASK


def is_cut(w: Wire) -> bool:
    return bool(w & CUT_BIT)


def info(w: Wire) -> int:
    return (w >> INFO_SHIFT) & 15


def info_named(w: Wire) -> Named | None:
    i = info(w)
    return None if i == 0 else (T.YELLOW if i == INFO_YELLOW else T.blue(i))


def nots(w: Wire) -> int:
    return w >> NOT_SHIFT


def with_cut(w: Wire) -> Wire:
    return w | CUT_BIT


def with_info(w: Wire) -> Wire:
    """The info token showing the wire's true value (yellow shows 'yellow', B05)."""
    t = code(w)
    token = INFO_YELLOW if T.colour(t) == T.Colour.YELLOW else T.value(t)
    return (w & ~(15 << INFO_SHIFT)) | (token << INFO_SHIFT)


def not_bit(named: Named) -> int:
    return 1 << (12 if named == T.YELLOW else T.value(named) - 1)


def with_not(w: Wire, named: Named) -> Wire:
    return w | (not_bit(named) << NOT_SHIFT)


def bare(w: Wire) -> Wire:
    """The wire with its info token and exclusions taken away (it moved, B13)."""
    return w & (CODE_MASK | CUT_BIT)


@dataclass(frozen=True, slots=True)
class State:
    phase: Phase
    seat: int                          # whose decision (turn, or set-up token)
    detonator: int                     # failures so far; the skull is at mission.skull
    reds: tuple[Tile, ...]             # red candidates shown (public)
    yellows: tuple[Tile, ...]          # yellow candidates shown (public)
    aside: tuple[Tile, ...]            # candidates set aside unseen (hidden from everyone)
    racks: tuple[tuple[Wire, ...], ...]
    used: int = 0                      # equipment cards used (bit i: mission.equipment[i])
    unlocked: int = 0                  # equipment cards unlocked
    validated: int = 0                 # bit v-1: every wire of blue value v is cut
    duplo: int = 0                     # bit s: seat s has used their Detector Duplo
    stabilized: int = 0                # 1: the Estabilizador is flipped for this dual cut
    claims: tuple[int, ...] = ()       # 256 * seat + named: seat holds an uncut wire matching named
    pending: tuple[int, ...] = ()      # a teammate's pick after a Detector Duplo (see rules)

    def evolve(self, **changes) -> "State":
        return replace(self, **changes)


def to_key(s: State) -> tuple[int, ...]:
    out = [int(s.phase), s.seat, s.detonator, s.used, s.unlocked, s.validated, s.duplo, s.stabilized]
    for part in (s.reds, s.yellows, s.aside, s.claims, s.pending):
        out.append(len(part))
        out.extend(part)
    out.append(len(s.racks))
    for rack in s.racks:
        out.append(len(rack))
        out.extend(rack)
    return tuple(out)


def from_key(key: tuple[int, ...]) -> State:
    head = key[:8]
    i = 8
    parts = []
    for _ in range(5):
        n = key[i]
        parts.append(tuple(key[i + 1:i + 1 + n]))
        i += 1 + n
    racks = []
    for _ in range(key[i]):
        i += 1
        n = key[i]
        racks.append(tuple(key[i + 1:i + 1 + n]))
        i += n
    return State(Phase(head[0]), head[1], head[2], parts[0], parts[1], parts[2], tuple(racks),
                 head[3], head[4], head[5], head[6], head[7], parts[3], parts[4])
