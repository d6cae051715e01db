"""Named invariants of a Loira state (shared by the explorer, the tests and the proofs)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ruleproof.model.protocol import Invariant

from .cards import EXPANSION_KINDS, Kind
from .state import CROLLS, GRITOS, PH, PHYS, QI, QN, SLOTS, Phase

if TYPE_CHECKING:
    from .game import LoiraGame

_KEPT_SLOT = {Kind.ESPELHO: "h_esp", Kind.INTERRUPTOR: "h_int", Kind.RALO: "h_ralo"}


def held_count(g: "LoiraGame", s: Sequence[int], kind: int) -> int:
    if kind < 9:
        slot = kind
    elif kind in _KEPT_SLOT:
        slot = getattr(g, _KEPT_SLOT[kind])
    else:
        return 0
    return sum(s[g.h(seat, slot)] for seat in range(g.num_players))


def invariants(g: "LoiraGame") -> tuple[Invariant, ...]:
    from .bounds import score_bounds
    n, cfg = g.num_players, g.cfg
    lo, hi = score_bounds(cfg)

    def cards(s):
        for i, k in enumerate(g.kinds):
            aside = s[g.o_aside + EXPANSION_KINDS.index(k)] if k in EXPANSION_KINDS else 0
            total = s[g.o_deck + i] + s[g.o_disc + i] + held_count(g, s, k) + aside
            if s[PH] == Phase.EXPANSION and k == s[15]:
                total += 1  # the mini-expansion card on top, being decided
            if total != cfg.deck[k]:
                return f"{total} cards of kind {k} instead of {cfg.deck[k]}"
            if min(s[g.o_deck + i], s[g.o_disc + i]) < 0:
                return f"negative count of kind {k}"
        return None

    def stalls(s):
        for i, c in enumerate(cfg.stall_counts):
            held = sum(s[g.h(seat, g.h_stall + i)] for seat in range(n))
            if s[g.o_centre + i] + held + s[g.o_out + i] != c or s[g.o_centre + i] < 0:
                return f"stall value {cfg.stalls[i]}: {s[g.o_centre + i]}+{held}+{s[g.o_out + i]} != {c}"
        return None

    def rolls(s):
        held = [s[g.o_rolls + seat] for seat in range(n)]
        if min(held + [s[CROLLS]]) < 0 or s[CROLLS] + sum(held) != cfg.total_rolls:
            return f"rolls {held} + centre {s[CROLLS]} != {cfg.total_rolls}"
        return None

    def belief(s):
        m = sum(s[g.o_centre:g.o_centre + g.num_stall_values])
        phys, slots = s[PHYS], s[SLOTS]
        if not 0 <= phys <= slots <= m + 1 or (phys and slots < 1):
            return f"phys {phys}, slots {slots}, unopened score stalls {m}"
        if phys > m + 1:
            return "more cards in the centre than unopened"
        return None

    def score_range(s):
        from .scoring import score
        for seat in range(n):
            v = score(g, s, seat)
            if not lo <= v <= hi:
                return f"seat {seat} scores {v} outside [{lo}, {hi}]"
        return None

    def openings(s):
        if not 0 <= s[QI] <= s[QN] <= g.qlen or s[QN] > s[PHYS] + s[QI] + (s[PH] == Phase.ESCAPE):
            return f"opening queue {s[QI]}/{s[QN]} with {s[PHYS]} cards in the centre"
        if s[GRITOS] >= 3 and s[PH] != Phase.END and cfg.rulings["L14"] == "per-round":
            return "a third Grito was resolved but the round goes on"
        return None

    return (
        Invariant("card-conservation", "every main-deck card is in the deck, the discard, set aside "
                  "or in front of exactly one player", cards),
        Invariant("stall-conservation", "every score stall is unopened, held, or out of the round",
                  stalls),
        Invariant("roll-conservation", "rolls in the centre plus rolls held equal the boxes' rolls",
                  rolls),
        Invariant("centre-belief", "0 <= cards in the centre <= belief slots <= unopened stalls + 1",
                  belief),
        Invariant("score-bounds", f"every seat's score stays within the proved bounds [{lo}, {hi}]",
                  score_range),
        Invariant("opening-and-gritos", "the opening queue is consistent; a third Grito ends the "
                  "round", openings),
    )
