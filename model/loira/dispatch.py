"""What a Loira move runs: the legal moves of each decision, the handler of each phase and the effect
of each card, over the base cards (:mod:`model.loira.effects`) and the mini-expansion cards
(:mod:`model.loira.expansions`). The tables live here, above both, so that neither module imports
the other's dispatch (the expansions build on the base turn flow; this module on both).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

from .cards import KEPT_KINDS
from .cards import KindInts as Kind  # plain ints: see cards.plain_ints
from .effects import (St, _deck_total, _off, _point_slots, _seat, _targets, _to_discard, bathroom_card, chute,
                      descarga, descarga_options, end_turn, escape_options, espelho, fios, grito,
                      interruptor, on_chute, on_descarga, on_escape, on_escort, on_fios, on_intnow,
                      on_reveal, on_steal, on_toctoc, toc_toc, use_interruptor)
from .expansions import (_diretora_options, aluna, diretora, merendeira, on_diretora, on_professora,
                         on_rapagote, on_zelador, professora, ralo, rapagote, tia, zelador)
from .state import (CARD, CLOSED, GO, NO, OPEN_ASIDE, PASS, PH, PREV, RALO_PASS, STOP, STOP_ACT, SWITCH,
                    TURN, VICTIM, YES)
from .state import PhaseInts as Phase  # plain ints: see cards.plain_ints

if TYPE_CHECKING:
    from .game import LoiraGame


def legal_actions(g: "LoiraGame", s: Sequence[int]) -> list[int]:
    ph, turn = s[PH], s[TURN]
    if ph == Phase.TURN:
        if s[STOP] >> turn & 1:  # stopped: only under L13 "also-stopped", holding the Interruptor
            return [SWITCH, PASS]
        acts = [GO, STOP_ACT]
        base = g.o_hand + turn * g.hsize
        if s[base + g.h_int]:
            acts.append(SWITCH)
        if s[base + g.h_ralo]:
            acts += sorted(RALO_PASS + _off(g, turn, t) for t in range(g.num_players)
                           if t != turn and not g.stopped(s, t))
        if s[g.o_aside]:   # one action: the closed cards aside are alike to every player
            acts.append(OPEN_ASIDE)
        return acts
    if ph == Phase.STEAL:
        return sorted(_off(g, turn, t) for t in _targets(g, s, turn) if s[g.o_rolls + t])
    if ph == Phase.DESCARGA:
        return descarga_options(g, s)
    if ph in (Phase.FIOS, Phase.RAPAGOTE):
        return sorted(_off(g, turn, t) for t in _targets(g, s, turn))
    if ph in (Phase.ESCORT, Phase.INTNOW, Phase.CHUTE, Phase.TOCTOC):
        return [NO, YES]
    if ph == Phase.EXPANSION:
        return [NO, YES] if _deck_total(g, s) else [YES]
    if ph == Phase.ESCAPE:
        return [0] + escape_options(g, s, s[VICTIM])
    if ph == Phase.ZELADOR:
        return _point_slots(g, s, s[PREV])
    if ph == Phase.PROFESSORA:
        t = sorted(_off(g, turn, x) for x in _targets(g, s, turn))
        return [a * 16 + b for a in t for b in t if a != b]
    if ph == Phase.DIRETORA:
        return _diretora_options(g, s)
    raise ValueError(f"no decision in phase {ph}")


def step(g: "LoiraGame", st: St, a: int) -> None:
    HANDLERS[st[PH]](g, st, a)


def on_turn(g: "LoiraGame", st: St, a: int) -> None:
    """000 "O Jogo": go (draw the top card), stop for the rest of the round, or use the Interruptor."""
    turn = st[TURN]
    if a == GO:
        st[PH] = Phase.DRAW
    elif a == STOP_ACT:
        st[STOP] |= 1 << turn
        end_turn(g, st)
    elif a == SWITCH:
        use_interruptor(g, st, turn)
    elif a == PASS:
        end_turn(g, st)
    elif a == OPEN_ASIDE:   # 000 L19: open a closed card set aside; its kind is then drawn (UNVEIL)
        st[g.o_aside] -= 1
        st[CARD], st[PH] = CLOSED, Phase.UNVEIL
    else:  # RALO_PASS: L20, passing the Ralo is an action on the holder's turn
        st[g.h(turn, g.h_ralo)] -= 1
        st[g.h(_seat(g, turn, a - RALO_PASS), g.h_ralo)] += 1


def on_draw(g: "LoiraGame", st: St, kind: int) -> None:
    """Chance: the top card of the main deck is revealed to everyone; a mini-expansion card shows
    only its back ("a cor delas é diferente"): ``CLOSED``, its kind unknown until it is opened."""
    if kind == CLOSED:
        st[CARD], st[PH] = CLOSED, Phase.EXPANSION
    else:
        st[g.o_deck + g.kind_index[kind]] -= 1
        resolve(g, st, kind)


def on_expansion(g: "LoiraGame", st: St, a: int) -> None:
    """000: open the closed mini-expansion card on top, or set it aside closed and draw the next
    (L19)."""
    if a == YES:
        st[PH] = Phase.UNVEIL
    else:
        st[g.o_aside] += 1
        st[CARD], st[PH] = -1, Phase.DRAW


def on_unveil(g: "LoiraGame", st: St, kind: int) -> None:
    """Chance: the closed card opened turns out to be ``kind`` (each closed card alike: by the
    counts of the kinds not yet revealed, ``LoiraGame.chance_outcomes``)."""
    st[g.o_deck + g.kind_index[kind]] -= 1
    resolve(g, st, kind)


def resolve(g: "LoiraGame", st: St, kind: int) -> None:
    """Apply a revealed card: kept cards go in front of the player, the others to the discard."""
    st[CARD] = kind
    if kind not in KEPT_KINDS and kind != Kind.MERENDEIRA:
        _to_discard(g, st, kind)
    EFFECTS[kind](g, st)


EFFECTS: dict[int, Callable[["LoiraGame", St], None]] = {
    **{k: bathroom_card for k in range(9)},
    Kind.GRITO: grito, Kind.TOCTOC: toc_toc, Kind.INTERRUPTOR: interruptor, Kind.CHUTE: chute,
    Kind.DESCARGA: descarga, Kind.FIOS: fios, Kind.ESPELHO: espelho,
    Kind.RAPAGOTE: rapagote, Kind.ZELADOR: zelador, Kind.DIRETORA: diretora, Kind.TIA: tia,
    Kind.ALUNA: aluna, Kind.PROFESSORA: professora, Kind.MERENDEIRA: merendeira, Kind.RALO: ralo,
}

HANDLERS: dict[int, Callable[["LoiraGame", St, int], None]] = {
    Phase.TURN: on_turn, Phase.DRAW: on_draw, Phase.STEAL: on_steal, Phase.DESCARGA: on_descarga,
    Phase.FIOS: on_fios, Phase.ESCORT: on_escort, Phase.REVEAL: on_reveal, Phase.ESCAPE: on_escape,
    Phase.EXPANSION: on_expansion, Phase.INTNOW: on_intnow, Phase.CHUTE: on_chute,
    Phase.RAPAGOTE: on_rapagote, Phase.ZELADOR: on_zelador, Phase.DIRETORA: on_diretora,
    Phase.PROFESSORA: on_professora, Phase.TOCTOC: on_toctoc, Phase.UNVEIL: on_unveil,
}
