"""The moves of a Loira round: one function per base card effect, the opening procedure, turn flow
(the mini-expansion cards are in :mod:`model.loira.expansions`; which function a move runs, and the
legal moves of each decision, in :mod:`model.loira.dispatch`).

Every function takes the game (for the layout and the rulings) and a mutable copy ``st`` of the
state tuple, and leaves ``st`` at the next decision or chance node. Card effects cite 000 ("Cartas"
and "Mini-expansÕES"); the rulings they apply are named in each docstring.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from .cards import KindInts as Kind  # plain ints: see cards.plain_ints
from .state import (CARD, CLOSED, CROLLS, CUR, DECLINE, DIR, END, FIRST, GRITOS, LOIRA, PH, PHYS, PREV, QI,
                    QM, QN, SLOTS, STOP, TURN, VICTIM, YES)
from .scoring import round_winners
from .state import EndInts as End, PhaseInts as Phase  # plain ints: see cards.plain_ints

if TYPE_CHECKING:
    from .game import LoiraGame

St = list[int]
GRITO_END = 3  # 000: "A terceira carta Grito for resolvida"


# ---- helpers -------------------------------------------------------------------------------------
def _rule(g: "LoiraGame", rid: str) -> str:
    return g.rulings[rid]


def _deck_total(g: "LoiraGame", st: Sequence[int]) -> int:
    """Cards in the main deck: the deck entries count a mini-expansion kind's closed cards wherever
    they lie, so the ones set aside and the closed one on top or being opened are taken off."""
    return sum(st[g.deck_slice]) - st[g.o_aside] - (st[CARD] == CLOSED)


def _to_discard(g: "LoiraGame", st: St, kind: int, count: int = 1) -> None:
    st[g.o_disc + g.kind_index[kind]] += count


def _off(g: "LoiraGame", mover: int, seat: int) -> int:
    """Seat targets are actions relative to the mover (offset clockwise), so that actions keep
    their meaning under the seat-swap symmetry."""
    return (seat - mover) % g.num_players


def _seat(g: "LoiraGame", mover: int, offset: int) -> int:
    return (mover + offset) % g.num_players


def _play_order(g: "LoiraGame", st: Sequence[int], start: int) -> list[int]:
    step = -1 if st[DIR] else 1
    n = g.num_players
    return [(start + step * i) % n for i in range(n)]


def _targets(g: "LoiraGame", st: Sequence[int], seat: int) -> list[int]:
    """Other players an effect of ``seat`` may target: active and not holding the Ralo."""
    return [t for t in range(g.num_players) if t != seat and not g.protected(st, t)]


def _point_slots(g: "LoiraGame", st: Sequence[int], seat: int) -> list[int]:
    """Hand slots of ``seat`` that Descarga or Zelador may discard (L11)."""
    base = g.h(seat, 0)
    slots = [k for k in range(9) if st[base + k]]
    if _rule(g, "L11") == "bathroom-or-stall":
        slots += [g.h_stall + i for i in range(g.num_stall_values) if st[base + g.h_stall + i]]
    return slots


def _discard_slot(g: "LoiraGame", st: St, seat: int, slot: int) -> None:
    st[g.h(seat, slot)] -= 1
    if slot < 9:
        _to_discard(g, st, slot)
    else:  # a stall card leaves the round (L29)
        st[g.o_out + slot - g.h_stall] += 1


def can_escape(g: "LoiraGame", st: Sequence[int], seat: int) -> bool:
    base = g.h(seat, 0)
    return any(st[base + 3 * d] + st[base + 3 * d + 1] + st[base + 3 * d + 2] >= 2 for d in range(3))


def escape_options(g: "LoiraGame", st: Sequence[int], seat: int) -> list[int]:
    """Pairs of bathroom cards of one door type: ``1 + door*9 + v1*3 + v2`` with ``v1 <= v2``."""
    base = g.h(seat, 0)
    out = []
    for d in range(3):
        for v1 in range(3):
            for v2 in range(v1, 3):
                need_same = 2 if v1 == v2 else 1
                if st[base + 3 * d + v1] >= need_same and st[base + 3 * d + v2] >= 1:
                    out.append(1 + d * 9 + v1 * 3 + v2)
    return out


# ---- the turn --------------------------------------------------------------------------------------

def card_done(g: "LoiraGame", st: St) -> None:
    """The card is resolved: the empty centre ends the round (L07), else the turn passes."""
    if st[PHYS] == 0 and g.rulings["L07"] == "yes":
        finish_round(g, st, End.EMPTY)
    else:
        end_turn(g, st)


def end_turn(g: "LoiraGame", st: St) -> None:
    """Pass the turn to the next active player in the direction of play (L06, L25)."""
    st[CARD], st[PREV] = -1, -1
    if _deck_total(g, st) == 0:
        if _rule(g, "L25") == "reshuffle":
            _reshuffle(g, st, keep=())
        if _deck_total(g, st) == 0:
            return finish_round(g, st, End.DECK)
    n, step_ = g.num_players, (-1 if st[DIR] else 1)
    stop = st[STOP]
    if stop == (1 << n) - 1:
        return finish_round(g, st, End.STOPPED)
    turn = st[TURN]
    if not stop:   # nobody has stopped (the commonest case): the next seat in the direction of play
        st[TURN], st[PH] = (turn + step_) % n, Phase.TURN
        return
    also_stopped = g.rulings["L13"] == "also-stopped"
    for i in range(1, n + 1):
        seat = (turn + step_ * i) % n
        if not stop >> seat & 1 or (also_stopped and st[g.h(seat, g.h_int)]):
            st[TURN], st[PH] = seat, Phase.TURN
            return


def _reshuffle(g: "LoiraGame", st: St, keep: tuple[int, ...]) -> None:
    """The discard into the deck; an opened mini-expansion card goes back closed (its deck entry
    counts closed cards). ``config.belief_refusal`` keeps out the decks where one can go back while
    another lies aside with two kinds about: those would no longer be alike."""
    for i, k in enumerate(g.kinds):
        if k not in keep:
            st[g.o_deck + i] += st[g.o_disc + i]
            st[g.o_disc + i] = 0


def finish_round(g: "LoiraGame", st: St, reason: End) -> None:
    """000 "Fim da Rodada" / "Fim de Jogo": score; in a match record wins and maybe deal again."""
    if g.cfg.objective == "round":
        st[END], st[PH] = reason, Phase.END
        return
    st[END] = reason   # scoring reads how the round ended (L28 "no": the Loira's victim cannot win)
    winners = round_winners(g, tuple(st))
    st[END] = End.PLAYING
    if not (_rule(g, "L15") == "replay" and len(winners) > 1):
        for w in winners:
            st[g.o_wins + w] += 1
    if any(st[g.o_wins + seat] >= g.cfg.target_wins for seat in range(g.num_players)):
        st[END], st[PH] = reason, Phase.END
        return
    n, rule = g.num_players, _rule(g, "L16")
    first = (st[FIRST] + 1) % n
    if winners and rule != "next-seat" and not (_rule(g, "L15") == "replay" and len(winners) > 1):
        first = min(winners) if rule == "winner" else (min(winners) + 1) % n
    g._reset_round(st, first)


def use_interruptor(g: "LoiraGame", st: St, seat: int) -> None:
    """000 Interruptor: discard it to end the round at once."""
    st[g.h(seat, g.h_int)] -= 1
    _to_discard(g, st, Kind.INTERRUPTOR)
    finish_round(g, st, End.SWITCH)


# ---- main-deck cards (000 "Cartas") ------------------------------------------------------------------
def bathroom_card(g: "LoiraGame", st: St) -> None:
    """Banheiro: a point card (-, 1 or 2) kept in front of the player."""
    st[g.o_hand + st[TURN] * g.hsize + st[CARD]] += 1
    card_done(g, st)


def espelho(g: "LoiraGame", st: St) -> None:
    """Espelho: kept; at scoring it copies a point card's value (L12, see scoring)."""
    st[g.h(st[TURN], g.h_esp)] += 1
    card_done(g, st)


def interruptor(g: "LoiraGame", st: St) -> None:
    """Interruptor: kept; usable on a later turn (L30) or worth 2 at scoring."""
    st[g.h(st[TURN], g.h_int)] += 1
    if _rule(g, "L30") == "also-when-drawn":
        st[PH] = Phase.INTNOW
    else:
        card_done(g, st)


def on_intnow(g: "LoiraGame", st: St, a: int) -> None:
    if a == YES:
        use_interruptor(g, st, st[TURN])
    else:
        card_done(g, st)


def grito(g: "LoiraGame", st: St) -> None:
    """Grito: open one of the stalls in the centre (escorts may join, L03)."""
    if st[PHYS] == 0:  # only under L07 "no": nothing to open
        return _grito_resolved(g, st)
    start_opening(g, st, [(st[TURN], st[TURN])])


def _grito_resolved(g: "LoiraGame", st: St) -> None:
    st[GRITOS] += 1
    if st[GRITOS] >= GRITO_END:
        finish_round(g, st, End.GRITO)
    else:
        card_done(g, st)


def toc_toc(g: "LoiraGame", st: St) -> None:
    """Toc-Toc: take a roll from the centre (else from another player) and reverse the direction
    (L29 alternative: the revealer may decline the whole card)."""
    if _rule(g, "L29") == "optional":
        st[PH] = Phase.TOCTOC
        return
    _apply_toc_toc(g, st)


def on_toctoc(g: "LoiraGame", st: St, a: int) -> None:
    if a == YES:
        _apply_toc_toc(g, st)
    else:
        card_done(g, st)


def _apply_toc_toc(g: "LoiraGame", st: St) -> None:
    turn = st[TURN]
    if st[CROLLS]:
        st[CROLLS] -= 1
        st[g.o_rolls + turn] += 1
    elif any(st[g.o_rolls + t] for t in _targets(g, st, turn)):
        st[PH] = Phase.STEAL
        return
    elif _rule(g, "L36") == "no-effect":
        return card_done(g, st)
    st[DIR] ^= 1
    card_done(g, st)


def on_steal(g: "LoiraGame", st: St, a: int) -> None:
    turn = st[TURN]
    target = _seat(g, turn, a)
    st[g.o_rolls + target] -= 1
    st[g.o_rolls + turn] += 1
    if st[CARD] == Kind.TOCTOC:
        st[DIR] ^= 1
        return card_done(g, st)
    st[PREV] -= 1  # Tia da Limpeza: rolls still to take
    if st[PREV] > 0 and any(st[g.o_rolls + t] for t in _targets(g, st, turn)):
        return
    card_done(g, st)


def chute(g: "LoiraGame", st: St) -> None:
    """Chute no Vaso: remove a stall from the centre unseen (the belief keeps SLOTS, see centre)."""
    if st[PHYS] == 0:
        return card_done(g, st)
    if _rule(g, "L29") == "optional":
        st[PH] = Phase.CHUTE
        return
    st[PHYS] -= 1
    card_done(g, st)


def on_chute(g: "LoiraGame", st: St, a: int) -> None:
    if a == YES:
        st[PHYS] -= 1
    card_done(g, st)


def descarga_options(g: "LoiraGame", st: Sequence[int]) -> list[int]:
    turn = st[TURN]
    opts = sorted(_off(g, turn, t) * 32 + slot for t in _targets(g, st, turn)
                  for slot in _point_slots(g, st, t))
    if not opts and _rule(g, "L10") == "self":
        opts = [slot for slot in _point_slots(g, st, turn)]  # offset 0: oneself
    if opts and _rule(g, "L29") == "optional":
        opts.insert(0, DECLINE)
    return opts


def descarga(g: "LoiraGame", st: St) -> None:
    """Descarga: discard a point card of another player (L10, L11, L29)."""
    if descarga_options(g, st):
        st[PH] = Phase.DESCARGA
    else:
        card_done(g, st)


def on_descarga(g: "LoiraGame", st: St, a: int) -> None:
    if a != DECLINE:
        offset, slot = divmod(a, 32)
        _discard_slot(g, st, _seat(g, st[TURN], offset), slot)
    card_done(g, st)


def fios(g: "LoiraGame", st: St) -> None:
    """Fios de Cabelo: invite another player to open a stall (L10, L23, L32, L33)."""
    if st[PHYS] == 0:
        return card_done(g, st)
    if _targets(g, st, st[TURN]):
        st[PH] = Phase.FIOS
    elif _rule(g, "L10") == "self":
        start_opening(g, st, [(st[TURN], st[TURN])])
    else:
        card_done(g, st)


def on_fios(g: "LoiraGame", st: St, a: int) -> None:
    invitee = _seat(g, st[TURN], a)
    keeper = st[TURN] if _rule(g, "L33") == "inviter" else invitee
    start_opening(g, st, [(invitee, keeper)])


# ---- openings: picks, escorts, reveals, the Loira and the escape ------------------------------------
def start_opening(g: "LoiraGame", st: St, picks: list[tuple[int, int]]) -> None:
    """Queue ``(picker, keeper)`` picks; then roll holders may escort (000 "Os Rolos", L03, L22)."""
    for i, (picker, keeper) in enumerate(picks):
        st[g.o_queue + 2 * i], st[g.o_queue + 2 * i + 1] = picker, keeper
    st[QN] = st[QM] = len(picks)
    st[QI] = st[CUR] = 0
    _next_escort(g, st)


def _escort_allowed(g: "LoiraGame", st: Sequence[int], seat: int) -> bool:
    if _rule(g, "L21") == "no" and g.stopped(st, seat):
        return False
    if not st[g.o_rolls + seat] or st[QN] >= st[PHYS]:   # L26
        return False
    return all(st[g.o_queue + 2 * i] != seat for i in range(st[QN]))


def _next_escort(g: "LoiraGame", st: St) -> None:
    if _rule(g, "L03") == "any-opening" or st[CARD] == Kind.GRITO:
        opener, n = st[g.o_queue], g.num_players
        for off in range(st[CUR] + 1, n):
            if _escort_allowed(g, st, (opener + off) % n):
                st[CUR], st[PH] = off, Phase.ESCORT
                return
    st[PH] = Phase.REVEAL


def on_escort(g: "LoiraGame", st: St, a: int) -> None:
    if a == YES:
        seat = (st[g.o_queue] + st[CUR]) % g.num_players
        st[g.o_rolls + seat] -= 1
        st[CROLLS] += 1
        keeper = seat if _rule(g, "L18") == "escort" else st[g.o_queue + 1]
        i = st[QN]
        st[g.o_queue + 2 * i], st[g.o_queue + 2 * i + 1] = seat, keeper
        st[QN] += 1
    _next_escort(g, st)


def on_reveal(g: "LoiraGame", st: St, outcome: int) -> None:
    """Chance: the next pick is revealed (probabilities in :mod:`model.loira.centre`)."""
    i = st[QI]
    picker, keeper = st[g.o_queue + 2 * i], st[g.o_queue + 2 * i + 1]
    st[PHYS] -= 1
    if outcome == LOIRA:
        st[VICTIM] = picker
        if _rule(g, "L08") == "pair-discard" and can_escape(g, st, picker):
            st[PH] = Phase.ESCAPE
        else:
            loira_takes(g, st, picker)
        return
    st[SLOTS] -= 1
    st[g.o_centre + outcome] -= 1
    st[g.h(keeper, g.h_stall + outcome)] += 1
    st[QI] += 1
    _after_reveal(g, st)


def _after_reveal(g: "LoiraGame", st: St) -> None:
    if st[QI] < st[QN]:
        st[PH] = Phase.REVEAL
        return
    _clear_queue(g, st)
    if st[CARD] == Kind.GRITO:
        _grito_resolved(g, st)
    else:
        card_done(g, st)


def _clear_queue(g: "LoiraGame", st: St) -> None:
    st[g.o_queue:g.o_queue + 2 * g.qlen] = [-1] * (2 * g.qlen)
    st[QN] = st[QM] = st[QI] = st[CUR] = 0


def loira_takes(g: "LoiraGame", st: St, victim: int) -> None:
    """000 O Centro da Mesa: the revealer loses every card and roll (L09) and the round ends."""
    base = g.h(victim, 0)
    for k in range(9):
        if st[base + k]:
            _to_discard(g, st, k, st[base + k])
            st[base + k] = 0
    for slot, kind in ((g.h_esp, Kind.ESPELHO), (g.h_int, Kind.INTERRUPTOR), (g.h_ralo, Kind.RALO)):
        if st[base + slot]:
            _to_discard(g, st, kind, st[base + slot])
            st[base + slot] = 0
    for i in range(g.num_stall_values):
        st[g.o_out + i] += st[base + g.h_stall + i]
        st[base + g.h_stall + i] = 0
    held = st[g.o_rolls + victim]
    keep = min(held, st[g.o_rstart + victim]) if _rule(g, "L09") == "round-rolls" else 0
    st[CROLLS] += held - keep
    st[g.o_rolls + victim] = keep
    _clear_queue(g, st)
    finish_round(g, st, End.LOIRA)


def on_escape(g: "LoiraGame", st: St, a: int) -> None:
    """L08: discard two bathroom cards of one door type; the Loira goes back, shuffled (L27, L17)."""
    victim = st[VICTIM]
    if a == 0:
        return loira_takes(g, st, victim)
    d, v1, v2 = (a - 1) // 9, (a - 1) // 3 % 3, (a - 1) % 3
    for v in (v1, v2):
        st[g.h(victim, 3 * d + v)] -= 1
        _to_discard(g, st, 3 * d + v)
    st[PHYS] += 1
    st[SLOTS] = st[PHYS]
    st[VICTIM] = -1
    st[QI] += 1
    if _rule(g, "L27") == "susto-turn-goes-on":
        if _rule(g, "L17") == "rolls-returned":
            for i in range(max(st[QI], st[QM]), st[QN]):
                st[g.o_rolls + st[g.o_queue + 2 * i]] += 1
                st[CROLLS] -= 1
        st[QI] = st[QN]
    _after_reveal(g, st)
