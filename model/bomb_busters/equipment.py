"""The equipment mechanism: each item says when it can be used and what it does.

An item is one small class with ``actions`` (the legal uses for the active player, ruling B14)
and ``apply``. Cards on the board (Comunicadores, Estabilizador) unlock when wires of their value
are cut (B07) and are used once by anyone; the Detector Duplo is personal (each expert's
character card, once). Adding an item is one class here and one entry in ``ITEMS``.
Source: seeds/004 "Cartas de Equipamento".
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from bisect import bisect_right
from itertools import combinations
from typing import ClassVar

from . import rules as R
from . import state as S
from . import tiles as T
from .mission import Mission
from .rules import Kind
from .state import State

Action = tuple[int, ...]


class Item(ABC):
    name: ClassVar[str]
    personal: ClassVar[bool] = False

    def available(self, m: Mission, s: State, card: int) -> bool:
        if self.personal:
            return not s.duplo >> s.seat & 1
        return bool(s.unlocked >> card & 1) and not s.used >> card & 1

    @abstractmethod
    def actions(self, m: Mission, s: State, card: int) -> list[Action]:
        """The legal uses by the active player (card: index in mission.equipment, -1 if personal)."""

    @abstractmethod
    def apply(self, m: Mission, s: State, action: Action) -> State:
        """The state after the use."""


class Estabilizador(Item):
    """Equipment 9: flipped before a dual cut; that cut neither advances the detonator nor
    explodes a red wire (B12); the info token is still placed."""

    name = "estabilizador"

    def actions(self, m, s, card):
        if s.stabilized or not R.nameable(m, s, s.seat) or not R.targets(m, s, s.seat):
            return []
        return [(int(Kind.STABILIZE), card)]

    def apply(self, m, s, action):
        return s.evolve(used=s.used | 1 << action[1], stabilized=1)


class Comunicadores(Item):
    """Swap one uncut wire of yours with one uncut wire of a teammate, in the open (B13)."""

    name = "comunicadores"

    def actions(self, m, s, card):
        if s.stabilized:
            return []
        mine = [(r, j) for r, j, _ in R.uncut(m, s, s.seat)]
        swap = int(Kind.SWAP)
        return [(swap, card, r1, j1, r2, j2) for r1, j1 in mine for r2, j2 in R.targets(m, s, s.seat)]

    def apply(self, m, s, action):
        _, card, r1, j1, r2, j2 = action
        give, take = S.bare(s.racks[r1][j1]), S.bare(s.racks[r2][j2])
        racks = list(s.racks)
        racks[r1] = _insert(s.racks[r1][:j1] + s.racks[r1][j1 + 1:], take)
        racks[r2] = _insert(s.racks[r2][:j2] + s.racks[r2][j2 + 1:], give)
        other = m.rack_owner[r2]
        claims = tuple(c for c in s.claims if c >> 8 not in (s.seat, other))
        return s.evolve(racks=tuple(racks), used=s.used | 1 << card, claims=claims)


def _insert(rack: tuple[int, ...], w: int) -> tuple[int, ...]:
    codes = [S.code(x) for x in rack]
    at = bisect_right(codes, S.code(w))
    return rack[:at] + (w,) + rack[at:]


class DetectorDuplo(Item):
    """Personal, once: during a dual cut point at two wires on one teammate rack (B16)."""

    name = "detector-duplo"
    personal = True

    def actions(self, m, s, card):
        out = []
        names = R.nameable(m, s, s.seat)
        duplo = int(Kind.DUPLO)
        for r, owner in enumerate(m.rack_owner):
            if owner == s.seat:
                continue
            free = [j for j, w in enumerate(s.racks[r]) if not S.is_cut(w)]
            for j1, j2 in combinations(free, 2):
                out.extend((duplo, r, j1, j2, n) for n in names)
        return out

    def apply(self, m, s, action):
        _, r, j1, j2, named = action
        s = s.evolve(duplo=s.duplo | 1 << s.seat)
        t1, t2 = S.code(s.racks[r][j1]), S.code(s.racks[r][j2])
        ok1, ok2 = T.matches(t1, named), T.matches(t2, named)
        owner = m.rack_owner[r]
        if ok1 and ok2:  # B08: the teammate cuts one of them, their choice
            return s.evolve(pending=(R.PICK_CUT, owner, r, j1, j2, named))
        if ok1 or ok2:
            return R.end_turn(m, R.cut(m, s, [(r, j1 if ok1 else j2), R.own_wire(m, s, s.seat, named)]))
        s = R.add_claim(s, s.seat, named)
        red1, red2 = (T.colour(t) == T.Colour.RED for t in (t1, t2))
        if red1 and red2:
            if not s.stabilized:
                return s.evolve(phase=S.Phase.LOST)
            return s.evolve(pending=(R.PICK_RED, owner, r, j1, j2, named))
        s = R.fail(m, s)
        if s.phase == S.Phase.LOST:
            return s
        if red1 or red2:  # B17: the token goes on the wire that was not red
            good, bad = (j2, j1) if red1 else (j1, j2)
            s = R.set_wire(s, r, good, S.with_info(s.racks[r][good]))
            s = R.set_wire(s, r, bad, S.with_not(s.racks[r][bad], named))
            return R.end_turn(m, s)
        return s.evolve(pending=(R.PICK_TOKEN, owner, r, j1, j2, named))


def pick(m: Mission, s: State, slot: int) -> State:
    """The teammate's choice after a Detector Duplo (which wire is cut, or gets the token)."""
    kind, _, r, j1, j2, named = s.pending
    other = j2 if slot == j1 else j1
    if kind == R.PICK_CUT:
        return R.end_turn(m, R.cut(m, s, [(r, slot), R.own_wire(m, s, s.seat, named)]))
    if kind == R.PICK_RED:  # B12 under the Estabilizador: the chosen red is cut, no explosion
        return R.end_turn(m, R.cut(m, s, [(r, slot)]))
    s = R.set_wire(s, r, slot, S.with_info(s.racks[r][slot]))
    s = R.set_wire(s, r, other, S.with_not(s.racks[r][other], named))
    return R.end_turn(m, s)


ITEMS: dict[str, Item] = {cls.name: cls() for cls in (Estabilizador, Comunicadores, DetectorDuplo)}


def equipment_actions(m: Mission, s: State) -> list[Action]:
    out: list[Action] = []
    for card, (name, _) in enumerate(m.equipment):
        item = ITEMS[name]
        if item.available(m, s, card):
            out.extend(item.actions(m, s, card))
    duplo = ITEMS["detector-duplo"]
    if m.detector_duplo and duplo.available(m, s, -1):
        out.extend(duplo.actions(m, s, -1))
    return out


def apply_equipment(m: Mission, s: State, action: Action) -> State:
    kind = action[0]
    if kind == Kind.DUPLO:
        return ITEMS["detector-duplo"].apply(m, s, action)
    name = m.equipment[action[1]][0]
    return ITEMS[name].apply(m, s, action)
