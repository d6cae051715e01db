"""Mini-expansion cards (000 "Mini-expansÕES"): one function per card, plus their decisions.

They reuse the turn flow and the opening procedure of :mod:`model.loira.effects`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from .cards import KindInts as Kind  # plain ints: see cards.plain_ints
from .effects import (St, _deck_total, _discard_slot, _off, _play_order, _point_slots, _reshuffle,
                      _rule, _seat, _targets, _to_discard, card_done, start_opening)
from .state import CARD, CROLLS, CUR, GRITOS, PH, PHYS, PREV, TURN
from .state import PhaseInts as Phase  # plain ints: see cards.plain_ints

if TYPE_CHECKING:
    from .game import LoiraGame


def rapagote(g: "LoiraGame", st: St) -> None:
    """Rapagote: pick a stall and indicate another player to pick one; the revealer opens first."""
    if st[PHYS] >= 2 and _targets(g, st, st[TURN]):
        st[PH] = Phase.RAPAGOTE
    elif st[PHYS]:
        start_opening(g, st, [(st[TURN], st[TURN])])
    else:
        card_done(g, st)


def on_rapagote(g: "LoiraGame", st: St, a: int) -> None:
    other = _seat(g, st[TURN], a)
    start_opening(g, st, [(st[TURN], st[TURN]), (other, other)])


def zelador(g: "LoiraGame", st: St) -> None:
    """Zelador: each player discards one of their point cards (stopped players and the Ralo
    holder are immune to it unless they revealed it), in play order from the revealer."""
    st[CUR] = -1
    _next_zelador(g, st)


def _next_zelador(g: "LoiraGame", st: St) -> None:
    order = _play_order(g, st, st[TURN])
    for i in range(st[CUR] + 1, len(order)):
        seat = order[i]
        exposed = seat == st[TURN] or not g.protected(st, seat)
        if exposed and _point_slots(g, st, seat):
            st[CUR], st[PREV], st[PH] = i, seat, Phase.ZELADOR
            return
    st[CUR] = 0
    card_done(g, st)


def on_zelador(g: "LoiraGame", st: St, slot: int) -> None:
    _discard_slot(g, st, st[PREV], slot)
    _next_zelador(g, st)


def diretora(g: "LoiraGame", st: St) -> None:
    """Diretora: every player opens a stall in turn from the revealer; too few stalls: the revealer
    chooses who opens."""
    openers = _diretora_openers(g, st)
    if st[PHYS] == 0:
        return card_done(g, st)
    if len(openers) <= st[PHYS]:
        start_opening(g, st, [(s, s) for s in openers])
    else:
        st[PH] = Phase.DIRETORA


def _diretora_openers(g: "LoiraGame", st: Sequence[int]) -> list[int]:
    turn = st[TURN]
    return [s for s in _play_order(g, st, turn) if s == turn or not g.protected(st, s)]


def _diretora_options(g: "LoiraGame", st: Sequence[int]) -> list[int]:
    from itertools import combinations
    openers = _diretora_openers(g, st)
    turn = st[TURN]
    return sorted(sum(1 << _off(g, turn, s) for s in c) for c in combinations(openers, st[PHYS]))


def on_diretora(g: "LoiraGame", st: St, mask: int) -> None:
    turn = st[TURN]
    start_opening(g, st, [(s, s) for s in _diretora_openers(g, st) if mask >> _off(g, turn, s) & 1])


def tia(g: "LoiraGame", st: St) -> None:
    """Tia da Limpeza: take 2 rolls, from the centre or else from players of your choice."""
    turn = st[TURN]
    take = min(2, st[CROLLS])
    st[CROLLS] -= take
    st[g.o_rolls + turn] += take
    st[PREV] = 2 - take
    if st[PREV] and any(st[g.o_rolls + t] for t in _targets(g, st, turn)):
        st[PH] = Phase.STEAL
    else:
        card_done(g, st)


def aluna(g: "LoiraGame", st: St) -> None:
    """Aluna: the revealer opens 2 stalls in sequence."""
    picks = min(2, st[PHYS])
    if not picks:
        return card_done(g, st)
    start_opening(g, st, [(st[TURN], st[TURN])] * picks)


def professora(g: "LoiraGame", st: St) -> None:
    """Professora (3+ players): indicate two other players who open a stall each, in order."""
    targets = _targets(g, st, st[TURN])
    if st[PHYS] == 0 or not targets:
        return card_done(g, st)
    if len(targets) == 1:
        return start_opening(g, st, [(targets[0], targets[0])])
    st[PH] = Phase.PROFESSORA


def on_professora(g: "LoiraGame", st: St, a: int) -> None:
    first, second = (_seat(g, st[TURN], x) for x in divmod(a, 16))
    picks = [(first, first), (second, second)][:st[PHYS]]
    start_opening(g, st, picks)


def merendeira(g: "LoiraGame", st: St) -> None:
    """Merendeira: shuffle the discard (not the Merendeira, not stalls) into the deck, then the
    revealer opens the top card again (L14 for the Grito count)."""
    _reshuffle(g, st, keep=(Kind.MERENDEIRA,))
    _to_discard(g, st, Kind.MERENDEIRA)
    if _rule(g, "L14") == "merendeira-resets":
        st[GRITOS] = 0
    if _deck_total(g, st):
        st[CARD], st[PH] = -1, Phase.DRAW
    else:
        card_done(g, st)


def ralo(g: "LoiraGame", st: St) -> None:
    """Ralo: kept; protects its holder; -2 at scoring (L20)."""
    st[g.h(st[TURN], g.h_ralo)] += 1
    card_done(g, st)
