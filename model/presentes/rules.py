"""The rules of Presentes as pure functions over an immutable state, one function per effect.

Source: ``seeds/003_*`` (quoted in Portuguese below) and the rulings catalog in
``model/presentes/README.md`` (P01..P25 from ``spec/presentes.md``, P26.. added here).

State record (every field an int or a tuple of ints; ``n`` seats, board of ``N`` squares)::

    phase  what happens next (Phase)
    turn   the mover: the seat whose turn it is
    chain  landing number of the current chain, 1..max_landings (LUCK and BAD), else 0
    aux    TREE/TREE_LAST: the seat taking from the tree; REVENGE: the Effect drawn, plus
           16 * (1 + the seat taking the revenge) under P08 'behind'; else 0
    tree   bitmask of the gifts under the tree (gift g is the one seat g brought)
    used   bitmask of seats whose first-gift choice is used up (P16)
    slot   turn slots begun, capped after the last scheduled host event (0 with no events)
    pos    per seat: 0..N-2 on the track, N-1 finished, N removed by the host
    gift   per seat: the gift held (-1 none)
    order  seats in arrival order (the reveal order)
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from enum import IntEnum
from fractions import Fraction
from typing import Callable, Mapping, NamedTuple

from .board import Square

NO_GIFT = -1
TAKE_TREE = -1  # first-gift action: take from the tree instead of stealing


class Phase(IntEnum):
    ROLL = 0       # chance: the dice
    LUCK = 1       # chance: a luck effect among the eligible ones
    BAD = 2        # chance: a bad-luck effect among the eligible ones
    FIRST = 3      # decision (mover): first gift, steal (victim seat) or take from the tree (-1)
    TREE = 4       # chance (P15 'pick': decision of ``aux``): ``aux`` takes a gift from the tree
    TREE_LAST = 5  # the same for the last player left on the track, then the reveal
    SNEAK = 6      # decision (mover): whom Roubo sorrateiro steals from
    SWAP = 7       # decision (mover): whom Troca de lugar swaps places with
    REVENGE = 8    # decision (previous player): 1 take the revenge, 0 decline
    OVER = 9       # the reveal: terminal


class Effect(IntEnum):
    SALTO = 0        # ★ Salto à frente
    LUGAR = 1        # ★ Roube o presente e o lugar do mais adiantado
    SORRATEIRO = 2   # ★ Roubo sorrateiro (double weight)
    FRENTE = 3       # ★ Roube o presente logo à frente
    ATRAS = 4        # ★ Roube o presente logo atrás
    ADIANTADO = 5    # ★ Roube o presente do mais adiantado
    TROCA = 6        # ★ Troca de lugar
    VOLTE = 7        # ☠ Volte 3 casas
    ARVORE = 8       # ☠ De volta à árvore
    REV_ROUBO = 9    # ☠ Revanche: roubo
    REV_TROCA = 10   # ☠ Revanche: presente por presente
    NOTHING = 11     # a ★ square with no eligible effect (P23): argument 0 nothing, 1 redraw


class St(NamedTuple):
    phase: int
    turn: int
    chain: int
    aux: int
    tree: int
    used: int
    slot: int
    pos: tuple[int, ...]
    gift: tuple[int, ...]
    order: tuple[int, ...]


Outcome = tuple[int, int]  # (Effect, argument) for effect draws; (total, 0) for dice; (gift, 0) for tree


@dataclass(frozen=True)
class Rules:
    """One configuration: board, dice, parameters and the chosen rulings."""

    players: int
    squares: tuple[int, ...]
    dice: tuple[tuple[int, Fraction], ...]
    max_landings: int = 3
    sneak_range: int = 6
    jumps: tuple[int, ...] = (2, 3, 5)
    back: int = 3
    lugar_swaps_place: bool = True      # P02 swap-both / gift-only
    bounce: bool = False                # P03 reach-or-pass / bounce
    last_takes: bool = True             # P04 take-from-tree / keep
    sneak_ahead_only: bool = False      # P06 either / ahead
    random_targets: bool = False        # P11 choose / random
    first_on_any_gift: bool = False     # P16 first-ordinary / first-gift
    lugar_weight: int = 1               # P17 one / two
    sneak_without_gift: bool = False    # P18 not-eligible / eligible
    jumps_printed: bool = False         # P05 uniform / printed-order
    own_leader: bool = False            # P07 not-eligible / own-leader
    prev_behind: bool = False           # P08 previous-seat / behind
    finisher_steals: bool = False       # P14 tree / steal
    tree_pick: bool = False             # P15 random / pick
    redraw: bool = False                # P23 nothing / redraw
    leader_by_gift: bool = False        # P20 leader-then-gift / gift-holder-ahead
    leader_any_tied: bool = False       # P20 tied-leader-with-gift (no hidden draw of the leader)
    first_one_list: bool = False        # P34 two-questions / one-list (how the phone asks)
    skips: frozenset[int] = frozenset()  # host "Pular vez": turn slots skipped
    removals: Mapping[int, tuple[int, ...]] = field(default_factory=dict)  # slot -> seats removed
    values: tuple[tuple[Fraction, ...], ...] = ()  # per seat, the utility of ending with each gift

    #: derived: the finish square, the "removed" marker, the slot counter's cap
    finish: int = field(init=False)
    out: int = field(init=False)
    slot_cap: int = field(init=False)

    def __post_init__(self) -> None:
        events = set(self.skips) | set(self.removals)
        object.__setattr__(self, "finish", len(self.squares) - 1)
        object.__setattr__(self, "out", len(self.squares))
        object.__setattr__(self, "slot_cap", max(events) + 1 if events else 0)


# ---- who is where ------------------------------------------------------------------------------

def on_track(r: Rules, s: St, i: int) -> bool:
    return s.pos[i] < r.finish


def shielded(r: Rules, s: St, i: int) -> bool:
    """'Casa 🛡: enquanto você está nela, nenhum jogador pode pegar seu presente ou seu lugar.'"""
    return s.pos[i] < r.finish and r.squares[s.pos[i]] == Square.SHIELD


def targetable(r: Rules, s: St) -> list[int]:
    """P19: only other players still on the track and not on a shield square."""
    fin, sq, pos, m = r.finish, r.squares, s.pos, s.turn
    return [i for i in range(r.players) if i != m and pos[i] < fin and sq[pos[i]] != Square.SHIELD]


def holders(r: Rules, s: St) -> list[int]:
    return [i for i in targetable(r, s) if s.gift[i] >= 0]


def leaders(r: Rules, s: St) -> list[int]:
    """P20 'gift-holder-ahead' (and always for "Pegue o presente mais perto da chegada"): the
    targetable gift holders strictly ahead at the highest position."""
    p = s.pos[s.turn]
    ahead = [i for i in holders(r, s) if s.pos[i] > p]
    if not ahead:
        return []
    top = max(s.pos[i] for i in ahead)
    return [i for i in ahead if s.pos[i] == top]


def front_runners(r: Rules, s: St) -> list[int]:
    """P20 'leader-then-gift': "o mais adiantado" found without looking at gifts or shields: the
    other players on the track at the highest position, if it is strictly ahead of the mover (else
    the mover leads: P07). Several there: all listed; the draw takes one at random (P26)."""
    p, fin = s.pos[s.turn], r.finish
    others = [i for i in range(r.players) if i != s.turn and s.pos[i] < fin]
    top = max((s.pos[i] for i in others), default=-1)
    return [i for i in others if s.pos[i] == top] if top > p else []


def nearest(r: Rules, s: St, direction: int) -> list[int]:
    """P21/P26: nearest targetable gift holder strictly ahead (+1) or behind (-1); ties all listed."""
    p = s.pos[s.turn]
    cands = [i for i in holders(r, s) if (s.pos[i] - p) * direction > 0]
    if not cands:
        return []
    best = min(abs(s.pos[i] - p) for i in cands)
    return [i for i in cands if abs(s.pos[i] - p) == best]


def within_range(r: Rules, s: St) -> list[int]:
    """P06: gift holders at most ``sneak_range`` squares away (either direction unless 'ahead')."""
    p = s.pos[s.turn]
    lo = 0 if r.sneak_ahead_only else -r.sneak_range
    return [i for i in holders(r, s) if lo <= s.pos[i] - p <= r.sneak_range]


def previous_player(r: Rules, s: St) -> int:
    """P08: the nearest seat before the mover in turn order that is still on the track."""
    if r.prev_behind:
        raise ValueError("under P08 'behind' the previous player is drawn: use behind()")
    n = r.players
    for k in range(1, n):
        i = (s.turn - k) % n
        if s.pos[i] < r.finish:
            return i
    return -1


def behind(r: Rules, s: St) -> list[int]:
    """P08 'behind': the other players on the track on the nearest square strictly behind the
    mover (shielded ones too, as for P24); several there: one of them at random."""
    p, fin = s.pos[s.turn], r.finish
    cands = [i for i in range(r.players) if i != s.turn and s.pos[i] < fin and s.pos[i] < p]
    if not cands:
        return []
    top = max(s.pos[i] for i in cands)
    return [i for i in cands if s.pos[i] == top]


def revenge_taker(r: Rules, s: St) -> int:
    """The player deciding a drawn Revanche (REVENGE phase)."""
    return (s.aux >> 4) - 1 if r.prev_behind else previous_player(r, s)


def first_victims(r: Rules, s: St) -> list[int]:
    """'Roube o presente de alguém que tenha um' (P19: on the track and not shielded)."""
    return holders(r, s)


# ---- state surgery -----------------------------------------------------------------------------

def _set(t: tuple[int, ...], i: int, v: int) -> tuple[int, ...]:
    return t[:i] + (v,) + t[i + 1:]


def _swap(t: tuple[int, ...], i: int, j: int) -> tuple[int, ...]:
    lst = list(t)
    lst[i], lst[j] = lst[j], lst[i]
    return tuple(lst)


def _mark_gift(r: Rules, s: St, seat: int) -> int:
    """P16 'first-gift': the first-gift choice is used up as soon as the seat gets any gift."""
    return s.used | (1 << seat) if r.first_on_any_gift else s.used


def give(r: Rules, s: St, seat: int, gift: int) -> St:
    s = s._replace(gift=_set(s.gift, seat, gift))
    return s._replace(used=_mark_gift(r, s, seat)) if gift >= 0 else s


def swap_gifts(r: Rules, s: St, a: int, b: int) -> St:
    """P22: a steal by a player who holds a gift is a swap (a giftless stealer leaves none)."""
    ga, gb = s.gift[a], s.gift[b]
    s = give(r, s, a, gb)
    return give(r, s, b, ga)


# ---- turn flow ---------------------------------------------------------------------------------

def initial(r: Rules) -> St:
    n = r.players
    base = St(Phase.ROLL, 0, 0, 0, (1 << n) - 1, 0, 0, (0,) * n, (NO_GIFT,) * n, ())
    return begin_slot(r, base, 0, 1 if r.slot_cap else 0)


def begin_slot(r: Rules, s: St, seat: int, slot: int) -> St:
    """Start turn slot ``slot`` with ``seat`` or the next seat on the track; host events first."""
    n, fin, cap = r.players, r.finish, r.slot_cap
    while True:
        if cap:
            for victim in r.removals.get(slot, ()):
                if s.pos[victim] < fin:  # "Remover jogador ... O presente dele volta para a árvore."
                    g = s.gift[victim]
                    s = s._replace(tree=s.tree | (1 << g) if g >= 0 else s.tree,
                                   gift=_set(s.gift, victim, NO_GIFT), pos=_set(s.pos, victim, r.out))
            on = [i for i in range(n) if s.pos[i] < fin]
            if len(on) <= 1:
                return game_over(r, s, on)
        mover = next((seat + k) % n for k in range(n) if s.pos[(seat + k) % n] < fin)
        if cap and slot in r.skips:  # "Pular vez: encerra a vez do jogador atual"
            seat, slot = mover + 1, slot + 1
            continue
        return St(Phase.ROLL, mover, 0, 0, s.tree, s.used, min(slot, cap), s.pos, s.gift, s.order)


def game_over(r: Rules, s: St, on: list[int]) -> St:
    """'O jogo termina quando só resta um jogador no caminho.' (P04: the last one takes a gift.)"""
    if not on:
        return s._replace(phase=Phase.OVER, chain=0, aux=0)
    last = on[0]
    s = s._replace(pos=_set(s.pos, last, r.finish), order=s.order + (last,), chain=0)
    if s.gift[last] < 0 and r.last_takes:
        return s._replace(phase=Phase.TREE_LAST, aux=last)
    return s._replace(phase=Phase.OVER, aux=0)


def end_turn(r: Rules, s: St) -> St:
    on = [i for i in range(r.players) if s.pos[i] < r.finish]
    if len(on) <= 1:
        return game_over(r, s, on)
    return begin_slot(r, s, (s.turn + 1) % r.players, s.slot + 1 if r.slot_cap else 0)


def take_from_tree(s: St, seat: int) -> St:
    return s._replace(phase=Phase.TREE, aux=seat, chain=0)


def move(r: Rules, s: St, steps: int, landing: int) -> St:
    """Move the mover forward; land if this is landing 1..max_landings (P12), finish (P03, P13)."""
    m, fin = s.turn, r.finish
    p = s.pos[m] + steps
    if p >= fin:
        if r.bounce and p > fin:
            p = max(0, fin - (p - fin))
        else:  # "Quem chega ao fim fica com o presente ... Quem chega sem presente pega um da árvore."
            s = s._replace(pos=_set(s.pos, m, fin), order=s.order + (m,))
            if s.gift[m] >= 0:
                return end_turn(r, s)
            # P14 'steal': a giftless finisher gets the first-gift choice if it is still unused
            return first_gift(r, s) if r.finisher_steals else take_from_tree(s, m)
    s = St(s.phase, m, s.chain, s.aux, s.tree, s.used, s.slot, _set(s.pos, m, p), s.gift, s.order)
    if landing > r.max_landings:  # "Valem no máximo 3 quedas seguidas; depois, a sequência para."
        return end_turn(r, s)
    return land(r, s, landing)


def land(r: Rules, s: St, landing: int) -> St:
    """'A casa onde você cai decide o que acontece.'"""
    m = s.turn
    kind = r.squares[s.pos[m]]
    if kind == Square.LUCK or kind == Square.BAD:
        return St(Phase.LUCK if kind == Square.LUCK else Phase.BAD, m, landing, s.aux, s.tree, s.used,
                  s.slot, s.pos, s.gift, s.order)
    if s.gift[m] >= 0:  # "Com presente, nada acontece."
        return end_turn(r, s)
    return first_gift(r, s)


def first_gift(r: Rules, s: St) -> St:
    """'Na primeira vez que você cai numa casa comum sem presente, escolhe como ganhar um.'"""
    m = s.turn
    if not s.used >> m & 1:
        if not r.first_on_any_gift:
            s = s._replace(used=s.used | (1 << m))
        if first_victims(r, s):  # P33: no question when nobody can be stolen from
            return s._replace(phase=Phase.FIRST, chain=0)
    return take_from_tree(s, m)


# ---- effects: eligibility (the random part of the draw) and application ------------------------

Args = list[tuple[int, Fraction]]

#: each probability value met, as one object (see ``share``)
_SHARED: dict[Fraction, Fraction] = {}


@functools.lru_cache(maxsize=4096)
def share(k: int, n: int) -> Fraction:
    """k/n, one object per value: the explorer knows a chance law it has checked by the identity of
    its probabilities (a new Fraction per draw made it check every draw again, and pay a gcd for
    each: about a fifth of exploring an official board)."""
    f = Fraction(k, n)
    return _SHARED.setdefault(f, f)


ONE = share(1, 1)


def _uniform(items: list[int]) -> Args:
    """Each item with probability 1/len (repeated items, e.g. jumps = [2, 2, 5], add up)."""
    counts: dict[int, int] = {}
    for i in items:
        counts[i] = counts.get(i, 0) + 1
    return [(i, share(c, len(items))) for i, c in counts.items()]


def _printed_order(items: list[int]) -> Args:
    """P05 'printed-order': the k-th of m printed distances has weight m - k + 1 (2, 3, 5: 3:2:1)."""
    m = len(items)
    total = m * (m + 1) // 2
    weights: dict[int, int] = {}
    for k, i in enumerate(items):
        weights[i] = weights.get(i, 0) + m - k
    return [(i, share(w, total)) for i, w in weights.items()]


def elig_salto(r: Rules, s: St) -> Args:
    """'Numa casa ★, quando você não tem presente.' P05: 2, 3 or 5 uniformly (or printed-order)."""
    if s.gift[s.turn] >= 0:
        return []
    return _printed_order(list(r.jumps)) if r.jumps_printed else _uniform(list(r.jumps))


def do_salto(r: Rules, s: St, k: int) -> St:
    return move(r, s, k, s.chain + 1)


def leads(r: Rules, s: St) -> bool:
    """P07 'own-leader': no other player on the track is strictly ahead of the mover."""
    p, fin = s.pos[s.turn], r.finish
    return not any(i != s.turn and p < s.pos[i] < fin for i in range(r.players))


def elig_lugar(r: Rules, s: St, leader: int | None = None) -> Args:
    """'com ou sem presente, quando o mais adiantado tem um presente.' P20 'leader-then-gift':
    ``leader`` is the front runner drawn (-1: nobody on the track ahead); eligible when that
    player holds a gift and is targetable (P19). 'gift-holder-ahead': the targetable holders
    strictly ahead at the top, ties at random. 'tied-leader-with-gift': the front runners (gifts
    unseen) that hold a gift and are targetable, one at random. P07 'own-leader': a mover who leads
    holding a gift is the leader with a gift (a no-op)."""
    if r.leader_by_gift:
        found = leaders(r, s)
    elif r.leader_any_tied:   # the tied front runners who serve: a targetable gift holder
        found = [i for i in front_runners(r, s) if s.gift[i] >= 0 and not shielded(r, s, i)]
    elif leader is None:
        raise ValueError("under P20 'leader-then-gift' the leader is drawn: use effect_draw()")
    elif leader >= 0 and s.gift[leader] >= 0 and not shielded(r, s, leader):
        found = [leader]
    else:
        found = []
    if not found and r.own_leader and s.gift[s.turn] >= 0 and leads(r, s):
        return [(s.turn, ONE)]
    return _uniform(found)


def do_lugar(r: Rules, s: St, t: int) -> St:
    """P02: the mover and the leader swap gifts and places (gift only under 'gift-only')."""
    if t == s.turn:  # P07 'own-leader': swapping with yourself changes nothing; the turn ends
        return end_turn(r, s)
    s = swap_gifts(r, s, s.turn, t)
    if r.lugar_swaps_place:
        s = s._replace(pos=_swap(s.pos, s.turn, t))
    return end_turn(r, s)


def elig_sorrateiro(r: Rules, s: St) -> Args:
    """'quando um jogador a até 6 casas tem um presente' (P06, P18: the mover holds a gift)."""
    if s.gift[s.turn] < 0 and not r.sneak_without_gift:
        return []
    targets = within_range(r, s)
    if not targets:
        return []
    return _uniform(targets) if r.random_targets else [(-1, ONE)]


def do_sorrateiro(r: Rules, s: St, t: int) -> St:
    if t < 0:  # P11: the phone asks whom to steal from
        return s._replace(phase=Phase.SNEAK, chain=0)
    return end_turn(r, swap_gifts(r, s, s.turn, t))


def elig_frente(r: Rules, s: St) -> Args:
    """'quando você tem presente e um jogador à sua frente também tem' (P21, P26)."""
    return [] if s.gift[s.turn] < 0 else _uniform(nearest(r, s, +1))


def elig_atras(r: Rules, s: St) -> Args:
    """'quando você tem presente e um jogador atrás de você também tem' (P21, P26)."""
    return [] if s.gift[s.turn] < 0 else _uniform(nearest(r, s, -1))


def elig_adiantado(r: Rules, s: St) -> Args:
    """'Pegue o presente mais perto da chegada ... quando você tem presente e o mais adiantado está
    à sua frente': the body names a gift, so "o mais adiantado" is the holder of the targetable
    gift nearest the finish, which must be ahead (P20, under either option)."""
    return [] if s.gift[s.turn] < 0 else _uniform(leaders(r, s))


def do_gift_swap(r: Rules, s: St, t: int) -> St:
    """Frente, atrás, do mais adiantado: 'Quem o tinha fica com o seu.'"""
    return end_turn(r, swap_gifts(r, s, s.turn, t))


def elig_troca(r: Rules, s: St) -> Args:
    """'Numa casa ★, quando você tem presente.' (P19: someone must be targetable, else P23.)"""
    if s.gift[s.turn] < 0:
        return []
    targets = targetable(r, s)
    if not targets:
        return []
    return _uniform(targets) if r.random_targets else [(-1, ONE)]


def do_troca(r: Rules, s: St, t: int) -> St:
    """'Troque de lugar no tabuleiro com outro jogador. Sem efeito de casa depois.'"""
    if t < 0:
        return s._replace(phase=Phase.SWAP, chain=0)
    return end_turn(r, s._replace(pos=_swap(s.pos, s.turn, t)))


def elig_volte(r: Rules, s: St) -> Args:
    return [] if s.gift[s.turn] >= 0 else [(0, ONE)]


def do_volte(r: Rules, s: St, _arg: int) -> St:
    """'Ande 3 casas para trás.' P09: never behind the start; moving back never lands again."""
    m = s.turn
    return end_turn(r, s._replace(pos=_set(s.pos, m, max(0, s.pos[m] - r.back))))


def elig_arvore(r: Rules, s: St) -> Args:
    return [] if s.gift[s.turn] < 0 else [(0, ONE)]


def do_arvore(r: Rules, s: St, _arg: int) -> St:
    """'Seu presente volta para a árvore.'"""
    g = s.gift[s.turn]
    return end_turn(r, s._replace(tree=s.tree | (1 << g), gift=_set(s.gift, s.turn, NO_GIFT)))


def elig_rev_roubo(r: Rules, s: St, prev: int | None = None) -> Args:
    """'quando você tem presente e o jogador anterior não tem' (P24: even if shielded).
    ``prev``: the previous player drawn under P08 'behind' (the outcome's argument then)."""
    arg = 0 if prev is None else prev
    prev = previous_player(r, s) if prev is None else prev
    return [(arg, ONE)] if s.gift[s.turn] >= 0 and prev >= 0 and s.gift[prev] < 0 else []


def elig_rev_troca(r: Rules, s: St, prev: int | None = None) -> Args:
    """'quando você e o jogador anterior têm presente' (P24: not with a shielded one)."""
    arg = 0 if prev is None else prev
    prev = previous_player(r, s) if prev is None else prev
    ok = (s.gift[s.turn] >= 0 and prev >= 0 and s.gift[prev] >= 0 and not shielded(r, s, prev))
    return [(arg, ONE)] if ok else []


def do_revenge(r: Rules, s: St, effect: int, taker: int) -> St:
    """'O jogador anterior pode ...': the previous player decides (P08 'behind': ``taker``)."""
    aux = effect | (taker + 1) << 4 if r.prev_behind else effect
    return s._replace(phase=Phase.REVENGE, aux=aux, chain=0)


@dataclass(frozen=True)
class EffectRule:
    effect: Effect
    square: Square
    weight: Callable[[Rules], int]
    eligible: Callable[[Rules, St], Args]
    apply: Callable[[Rules, St, int], St]
    text: str


EFFECTS: tuple[EffectRule, ...] = (
    EffectRule(Effect.SALTO, Square.LUCK, lambda r: 1, elig_salto, do_salto,
               "Salto à frente: avance 2, 3 ou 5 casas e caia de novo"),
    EffectRule(Effect.LUGAR, Square.LUCK, lambda r: r.lugar_weight, elig_lugar, do_lugar,
               "Roube o presente e o lugar do mais adiantado"),
    EffectRule(Effect.SORRATEIRO, Square.LUCK, lambda r: 2, elig_sorrateiro, do_sorrateiro,
               "Roubo sorrateiro (duas vezes mais provável)"),
    EffectRule(Effect.FRENTE, Square.LUCK, lambda r: 1, elig_frente, do_gift_swap,
               "Roube o presente logo à frente"),
    EffectRule(Effect.ATRAS, Square.LUCK, lambda r: 1, elig_atras, do_gift_swap,
               "Roube o presente logo atrás"),
    EffectRule(Effect.ADIANTADO, Square.LUCK, lambda r: 1, elig_adiantado, do_gift_swap,
               "Roube o presente do mais adiantado"),
    EffectRule(Effect.TROCA, Square.LUCK, lambda r: 1, elig_troca, do_troca, "Troca de lugar"),
    EffectRule(Effect.VOLTE, Square.BAD, lambda r: 1, elig_volte, do_volte, "Volte 3 casas"),
    EffectRule(Effect.ARVORE, Square.BAD, lambda r: 1, elig_arvore, do_arvore, "De volta à árvore"),
    EffectRule(Effect.REV_ROUBO, Square.BAD, lambda r: 1, elig_rev_roubo,
               lambda r, s, a: do_revenge(r, s, Effect.REV_ROUBO, a), "Revanche: roubo"),
    EffectRule(Effect.REV_TROCA, Square.BAD, lambda r: 1, elig_rev_troca,
               lambda r, s, a: do_revenge(r, s, Effect.REV_TROCA, a), "Revanche: presente por presente"),
)
EFFECT_BY_ID = {e.effect: e for e in EFFECTS}
REVENGES = (Effect.REV_ROUBO, Effect.REV_TROCA)


def effect_draw(r: Rules, s: St, square: Square) -> list[tuple[Outcome, Fraction]]:
    """The chance node of a special square: eligible effects by weight, then their random part.

    Some eligibility depends on a player drawn first, so the draw is the mixture of the draws
    with each of them: on a ☠ under P08 'behind' the previous player (one of ``behind()``; the
    revenge outcomes carry their taker); on a ★ under P20 'leader-then-gift' the leader (one of
    ``front_runners()``, P26), whose gift decides whether Lugar is eligible at all."""
    if square == Square.BAD and r.prev_behind:
        cands, draw = behind(r, s), lambda c: _draw(r, s, square, prev=c)
    elif square == Square.LUCK and not (r.leader_by_gift or r.leader_any_tied):
        cands, draw = front_runners(r, s), lambda c: _draw(r, s, square, leader=c)
    else:
        return _draw(r, s, square)
    cands = cands or [-1]
    out: dict[Outcome, Fraction] = {}
    for c in cands:
        for o, p in draw(c):
            out[o] = out.get(o, Fraction(0)) + p / len(cands)
    return [(o, share(p.numerator, p.denominator) if type(p) is Fraction else p) for o, p in out.items()]


def _draw(r: Rules, s: St, square: Square, prev: int | None = None, leader: int | None = None
          ) -> list[tuple[Outcome, Fraction]]:
    drawn = []
    for rule in EFFECTS:
        if rule.square != square:
            continue
        if prev is not None and rule.effect in REVENGES:
            args = rule.eligible(r, s, prev)
        elif leader is not None and rule.effect == Effect.LUGAR:
            args = rule.eligible(r, s, leader)
        else:
            args = rule.eligible(r, s)
        if args:
            drawn.append((rule, rule.weight(r), args))
    if not drawn:  # P23: nothing happens, or 'redraw': the same empty draw again, forever
        return [((Effect.NOTHING, 1 if r.redraw else 0), ONE)]
    total = sum(w for _, w, _ in drawn)
    return [((rule.effect, arg), share(w * p.numerator, total * p.denominator))
            for rule, w, args in drawn for arg, p in args]


def apply_effect(r: Rules, s: St, outcome: Outcome) -> St:
    effect, arg = outcome
    if effect == Effect.NOTHING:
        # P23 'redraw': nothing serves and nothing changes between draws, so the draw comes back
        # to this very state (a chance self-loop: the game hangs; the checks report it)
        return s if arg else end_turn(r, s)
    return EFFECT_BY_ID[Effect(effect)].apply(r, s, arg)


# ---- decisions ---------------------------------------------------------------------------------

def decider(r: Rules, s: St) -> int:
    if s.phase == Phase.REVENGE:
        return revenge_taker(r, s)
    if s.phase == Phase.TREE or s.phase == Phase.TREE_LAST:  # P15 'pick'
        return s.aux
    return s.turn


def decisions(r: Rules, s: St) -> list[int]:
    if s.phase == Phase.FIRST:
        return [TAKE_TREE] + first_victims(r, s)
    if s.phase == Phase.SNEAK:
        return within_range(r, s)
    if s.phase == Phase.SWAP:
        return targetable(r, s)
    if s.phase == Phase.REVENGE:
        return [0, 1]
    if r.tree_pick and (s.phase == Phase.TREE or s.phase == Phase.TREE_LAST):
        return tree_gifts(s)
    return []


def decide(r: Rules, s: St, a: int) -> St:
    m = s.turn
    if s.phase == Phase.FIRST:
        if a == TAKE_TREE:
            return take_from_tree(s, m)
        # "Roube o presente de alguém que tenha um. Essa pessoa pega outro da árvore."
        s = give(r, s, m, s.gift[a])
        s = s._replace(gift=_set(s.gift, a, NO_GIFT))
        return take_from_tree(s, a)
    if s.phase == Phase.SNEAK:
        return end_turn(r, swap_gifts(r, s, m, a))
    if s.phase == Phase.SWAP:
        return end_turn(r, s._replace(pos=_swap(s.pos, m, a)))
    if s.phase == Phase.REVENGE:
        if a:
            prev = revenge_taker(r, s)
            s = swap_gifts(r, s, prev, m)  # Revanche roubo: prev has none, so m is left with none
        return end_turn(r, s._replace(aux=0))
    if r.tree_pick and (s.phase == Phase.TREE or s.phase == Phase.TREE_LAST):
        if not s.tree >> a & 1:
            raise ValueError(f"gift g{a} is not under the tree")
        return take(r, s, a)
    raise ValueError(f"no decision in phase {Phase(s.phase).name}")


def tree_gifts(s: St) -> list[int]:
    return [g for g in range(s.tree.bit_length()) if s.tree >> g & 1]


def tree_outcomes(s: St) -> list[tuple[Outcome, Fraction]]:
    """P15: a uniformly random wrapped gift from under the tree ('pick': a decision instead)."""
    gifts = tree_gifts(s)
    return [((g, 0), share(1, len(gifts))) for g in gifts]


def take(r: Rules, s: St, g: int) -> St:
    seat, over = s.aux, s.phase == Phase.TREE_LAST
    s = give(r, s, seat, g)
    s = s._replace(tree=s.tree & ~(1 << g))
    if over:
        return s._replace(phase=Phase.OVER, aux=0)
    return end_turn(r, s._replace(aux=0))
