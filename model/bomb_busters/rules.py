"""The rules as functions: set-up chance events, then one function per action.

Every function takes the game's :class:`Mission` and a :class:`State` and returns a new state.
Sources are quoted from ``seeds/004_cf0d8baf3038c827.txt``; rulings are in :mod:`mission`.
"""
from __future__ import annotations

from bisect import insort
from enum import IntEnum
from fractions import Fraction
from itertools import combinations
from math import comb

from . import state as S
from . import tiles as T
from .mission import Mission
from .state import Phase, State, Wire
from .tiles import Named, Tile


class Kind(IntEnum):
    TOKEN = 0      # (TOKEN, rack, slot): a set-up info token on an own blue wire
    DUAL = 1       # (DUAL, rack, slot, named): point at a teammate's wire, name a value you hold
    SOLO = 2       # (SOLO, named): cut the last 2 or 4 wires of a value, all in your hand
    REVEAL = 3     # (REVEAL,): every uncut wire in your hand is red: show them
    DUPLO = 4      # (DUPLO, rack, slot1, slot2, named): Detector Duplo
    STABILIZE = 5  # (STABILIZE, card): flip the Estabilizador before a dual cut
    SWAP = 6       # (SWAP, card, own_rack, own_slot, rack, slot): Comunicadores
    PICK = 7       # (PICK, slot): the teammate's choice after a Detector Duplo


# pending choices after a Detector Duplo: (kind, picker, rack, slot1, slot2, named)
PICK_CUT, PICK_TOKEN, PICK_RED = 1, 2, 3


# ---- queries -----------------------------------------------------------------------------------

def hand(m: Mission, seat: int) -> list[int]:
    return [r for r, owner in enumerate(m.rack_owner) if owner == seat]


def uncut(m: Mission, s: State, seat: int) -> list[tuple[int, int, Tile]]:
    return [(r, j, S.code(w)) for r in hand(m, seat) for j, w in enumerate(s.racks[r]) if not S.is_cut(w)]


def has_wires(m: Mission, s: State, seat: int) -> bool:
    return any(not S.is_cut(w) for r in hand(m, seat) for w in s.racks[r])


def holds(m: Mission, s: State, seat: int, named: Named) -> bool:
    return any(T.matches(t, named) for _, _, t in uncut(m, s, seat))


def remaining(s: State, named: Named) -> int:
    return sum(1 for rack in s.racks for w in rack if not S.is_cut(w) and T.matches(S.code(w), named))


def cut_count(s: State, tile: Tile) -> int:
    return sum(1 for rack in s.racks for w in rack if S.is_cut(w) and S.code(w) == tile)


def nameable(m: Mission, s: State, seat: int) -> list[Named]:
    """What ``seat`` may name in a dual cut: blue values held, and yellow if one is held."""
    tiles = {t for _, _, t in uncut(m, s, seat)}
    out = sorted(t for t in tiles if T.colour(t) == T.Colour.BLUE)
    if any(T.colour(t) == T.Colour.YELLOW for t in tiles):
        out.append(T.YELLOW)
    return out


def targets(m: Mission, s: State, seat: int) -> list[tuple[int, int]]:
    """Uncut wires of teammates: (rack, slot)."""
    return [(r, j) for r, owner in enumerate(m.rack_owner) if owner != seat
            for j, w in enumerate(s.racks[r]) if not S.is_cut(w)]


# ---- set-up: chance ----------------------------------------------------------------------------

def draw_outcomes(count: int) -> list[tuple[tuple[int, ...], Fraction]]:
    """Which ``count`` of the eleven red (or yellow) tiles are drawn and shown."""
    p = Fraction(1, comb(11, count))
    return [(c, p) for c in combinations(range(1, 12), count)]


def aside_outcomes(m: Mission, s: State) -> list[tuple[tuple[Tile, ...], Fraction]]:
    """'X de Y': which Y - X of the shown candidates are set aside unseen (uniformly)."""
    reds = list(combinations(s.reds, len(s.reds) - m.red_in_play))
    yellows = list(combinations(s.yellows, len(s.yellows) - m.yellow_in_play))
    p = Fraction(1, len(reds) * len(yellows))
    return [(tuple(sorted(a + b)), p) for a in reds for b in yellows]


def pool(m: Mission, s: State) -> list[Tile]:
    """Every tile in play: the blue wires and the shown candidates not set aside."""
    return m.blue_tiles() + sorted(t for t in s.reds + s.yellows if t not in s.aside)


def undealt(m: Mission, s: State) -> dict[Tile, int]:
    left: dict[Tile, int] = {}
    for t in pool(m, s):
        left[t] = left.get(t, 0) + 1
    for rack in s.racks:
        for w in rack:
            left[S.code(w)] -= 1
    return {t: n for t, n in left.items() if n}


def deal_outcomes(m: Mission, s: State) -> list[tuple[Tile, Fraction]]:
    """The next face-down wire: each remaining kind with its share of the remaining tiles."""
    left = undealt(m, s)
    total = sum(left.values())
    return [(t, Fraction(n, total)) for t, n in sorted(left.items())]


def deal(m: Mission, s: State, tile: Tile) -> State:
    sizes = m.sizes()
    racks = [list(r) for r in s.racks]
    r = next(i for i, rack in enumerate(racks) if len(rack) < sizes[i])
    insort(racks[r], tile)  # seeds/004 step 7: each rack sorted ascending
    new = s.evolve(racks=tuple(map(tuple, racks)))
    if all(len(rack) == n for rack, n in zip(racks, sizes)):
        return start_tokens(m, new)
    return new


def after_draws(m: Mission, s: State) -> State:
    """Move past the set-up chance steps that the mission fixes."""
    if s.phase == Phase.DRAW_RED and (m.red_values or m.red_drawn == 0):
        s = s.evolve(phase=Phase.DRAW_YELLOW, reds=tuple(map(T.red, m.red_values)))
    if s.phase == Phase.DRAW_YELLOW and (m.yellow_values or m.yellow_drawn == 0):
        s = s.evolve(phase=Phase.ASIDE, yellows=tuple(map(T.yellow, m.yellow_values)))
    if s.phase == Phase.ASIDE and m.red_drawn == m.red_in_play and m.yellow_drawn == m.yellow_in_play:
        s = s.evolve(phase=Phase.DEAL)
    return s


#: a claim "this hand holds no blue wire": the player had none to put a set-up token on
NO_BLUE = 0


def token_seats(m: Mission, s: State, after: int) -> tuple[int | None, State]:
    """The next seat that puts a set-up token; seats skipped for want of a blue wire say so
    publicly (a NO_BLUE claim), since the token is compulsory for whoever has one."""
    for seat in range(after + 1, m.players):
        if any(T.colour(t) == T.Colour.BLUE for _, _, t in uncut(m, s, seat)):
            return seat, s
        s = s.evolve(claims=tuple(sorted(set(s.claims) | {256 * seat + NO_BLUE})))
    return None, s


def start_tokens(m: Mission, s: State) -> State:
    seat, s = token_seats(m, s, -1)
    if seat is None:
        return start_play(m, s)
    return s.evolve(phase=Phase.TOKENS, seat=seat)


def token_slots(m: Mission, s: State) -> list[tuple[int, int]]:
    return [(r, j) for r, j, t in uncut(m, s, s.seat) if T.colour(t) == T.Colour.BLUE]


def place_token(m: Mission, s: State, rack: int, slot: int) -> State:
    """seeds/004 step 9: an info token in front of one of the player's own blue wires."""
    s = set_wire(s, rack, slot, S.with_info(s.racks[rack][slot]))
    seat, s = token_seats(m, s, s.seat)
    return start_play(m, s) if seat is None else s.evolve(seat=seat)


def start_play(m: Mission, s: State) -> State:
    """The captain (seat 0) starts; a player without wires is skipped."""
    s = s.evolve(phase=Phase.PLAY, seat=m.players - 1)
    return end_turn(m, s)


# ---- shared effects ----------------------------------------------------------------------------

def set_wire(s: State, rack: int, slot: int, w: Wire) -> State:
    row = list(s.racks[rack])
    row[slot] = w
    racks = list(s.racks)
    racks[rack] = tuple(row)
    return s.evolve(racks=tuple(racks))


def cut(m: Mission, s: State, places: list[tuple[int, int]]) -> State:
    """Cut wires face up in place; claims they satisfy go; validation and equipment update."""
    claims = set(s.claims)
    for r, j in places:
        w = s.racks[r][j]
        s = set_wire(s, r, j, S.with_cut(w))
        owner = m.rack_owner[r]
        claims = {c for c in claims if not (c >> 8 == owner and T.matches(S.code(w), c & 255))}
    validated, unlocked = s.validated, s.unlocked
    for v in range(1, m.blue_values + 1):
        if cut_count(s, T.blue(v)) == m.blue_copies:
            validated |= 1 << (v - 1)  # a validation token (all copies cut)
    need = 2 if m.ruling("B07") == "first-2" else m.blue_copies
    for i, (_, value) in enumerate(m.equipment):
        if value <= m.blue_values and cut_count(s, T.blue(value)) >= need:
            unlocked |= 1 << i
    return s.evolve(claims=tuple(sorted(claims)), validated=validated, unlocked=unlocked)


def add_claim(s: State, seat: int, named: Named) -> State:
    return s.evolve(claims=tuple(sorted(set(s.claims) | {256 * seat + named})))


def end_turn(m: Mission, s: State) -> State:
    """Next seat clockwise that still has wires (B06); none left: the team wins."""
    s = s.evolve(stabilized=0, pending=())
    for step in range(1, m.players + 1):
        seat = (s.seat + step) % m.players
        if has_wires(m, s, seat):
            return s.evolve(seat=seat)
    return s.evolve(phase=Phase.WON)


def fail(m: Mission, s: State) -> State:
    """A failed cut: the detonator advances (unless stabilized); at the skull the bomb explodes."""
    if s.stabilized:
        return s
    s = s.evolve(detonator=s.detonator + 1)
    return s.evolve(phase=Phase.LOST) if s.detonator >= m.skull else s


def own_wire(m: Mission, s: State, seat: int, named: Named) -> tuple[int, int]:
    """The active player's own wire cut alongside (B10)."""
    mine = [(r, j) for r, j, t in uncut(m, s, seat) if T.matches(t, named)]
    return mine[0] if m.ruling("B10") == "leftmost" else mine[-1]


# ---- the three actions ---------------------------------------------------------------------------

def dual_cut(m: Mission, s: State, rack: int, slot: int, named: Named) -> State:
    """'Ação de Corte Duplo': right, both wires are cut; wrong, red explodes, blue or yellow
    advances the detonator and an info token shows the wire's true value."""
    w = s.racks[rack][slot]
    if T.matches(S.code(w), named):
        s = cut(m, s, [(rack, slot), own_wire(m, s, s.seat, named)])
        return end_turn(m, s)
    s = add_claim(s, s.seat, named)
    if T.colour(S.code(w)) == T.Colour.RED:
        if not s.stabilized:
            return s.evolve(phase=Phase.LOST)
        return end_turn(m, cut(m, s, [(rack, slot)]))  # B12
    s = set_wire(s, rack, slot, S.with_info(w))
    s = fail(m, s)
    return s if s.phase == Phase.LOST else end_turn(m, s)


def solo_ok(m: Mission, s: State, named: Named) -> bool:
    mine = sum(1 for _, _, t in uncut(m, s, s.seat) if T.matches(t, named))
    return mine in (2, 4) and mine == remaining(s, named)


def solo_cut(m: Mission, s: State, named: Named) -> State:
    """'Ação de Corte Solo': the last 2 or 4 wires of a value, all in the player's own hand."""
    places = [(r, j) for r, j, t in uncut(m, s, s.seat) if T.matches(t, named)]
    return end_turn(m, cut(m, s, places))


def reveal_ok(m: Mission, s: State) -> bool:
    mine = uncut(m, s, s.seat)
    return bool(mine) and all(T.colour(t) == T.Colour.RED for _, _, t in mine)


def reveal_reds(m: Mission, s: State) -> State:
    """'Revelar seus Fios Vermelhos': only when every uncut wire in the hand is red."""
    return end_turn(m, cut(m, s, [(r, j) for r, j, _ in uncut(m, s, s.seat)]))
