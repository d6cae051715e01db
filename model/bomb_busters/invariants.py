"""Named invariants over reachable states, shared by exploration, tests and (in counting form)
the Z3 proofs in ``proofs/bomb_busters.py``."""
from __future__ import annotations

from collections import Counter

from ruleproof.model.protocol import Invariant

from . import rules as R
from . import state as S
from . import tiles as T
from .mission import Mission
from .state import Phase, State


def invariants(m: Mission) -> tuple[Invariant, ...]:
    def conservation(s: State) -> str | None:
        if s.phase <= Phase.DEAL:
            return None
        have = Counter(S.code(w) for rack in s.racks for w in rack) + Counter(s.aside)
        want = Counter(m.blue_tiles()) + Counter(s.reds + s.yellows)
        return None if have == want else f"wires {dict(have - want)} extra, {dict(want - have)} missing"

    def sorted_racks(s: State) -> str | None:
        for r, rack in enumerate(s.racks):
            codes = [S.code(w) for w in rack]
            if codes != sorted(codes):
                return f"rack {r} is out of order: {[T.show(c) for c in codes]}"
        if s.phase > Phase.DEAL and tuple(map(len, s.racks)) != m.sizes():
            return f"rack sizes {tuple(map(len, s.racks))} differ from the deal {m.sizes()}"
        return None

    def parity(s: State) -> str | None:
        for v in range(1, m.blue_values + 1):
            if R.cut_count(s, T.blue(v)) % 2:
                return f"{R.cut_count(s, T.blue(v))} wires {v} cut (odd)"
        left = R.remaining(s, T.YELLOW)
        if s.phase > Phase.DEAL and left % 2:
            return f"{left} yellow wires left (odd)"
        return None

    def validation(s: State) -> str | None:
        for v in range(1, m.blue_values + 1):
            full = R.cut_count(s, T.blue(v)) == m.blue_copies
            if full != bool(s.validated >> (v - 1) & 1):
                return f"value {v}: {R.cut_count(s, T.blue(v))} cut but validation token {'not ' if full else ''}placed"
        return None

    def detonator(s: State) -> str | None:
        if s.detonator >= m.skull and s.phase != Phase.LOST:
            return f"detonator at {s.detonator} (skull {m.skull}) but the bomb stands"
        return None

    def turn_holder(s: State) -> str | None:
        if s.phase == Phase.PLAY and not R.has_wires(m, s, s.seat):
            return f"p{s.seat} is to play without wires"
        if s.phase == Phase.WON and any(not S.is_cut(w) for rack in s.racks for w in rack):
            return "won with wires still uncut"
        return None

    return (
        Invariant("wire-conservation", "racks plus the set-aside pile hold exactly the mission's tiles", conservation),
        Invariant("sorted-racks", "every rack stays sorted by value; sizes stay as dealt", sorted_racks),
        Invariant("cut-parity", "cut blue wires of each value are even; uncut yellows are even", parity),
        Invariant("validation-at-all-copies", "a validation token exactly when every copy of a value is cut",
                  validation),
        Invariant("detonator-below-skull", "the bomb stands only while the detonator is below the skull", detonator),
        Invariant("turn-holder-has-wires", "the player to act holds wires; a win leaves none", turn_holder),
    )
