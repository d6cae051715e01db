"""The exact deduction engine: from one player's view, the probability of every tile at every
uncut position of every other rack, under a uniform deal of the physical tiles.

Why it is a counting problem over rack prefixes. A uniform deal gives every way of distributing
the labelled tiles to racks (and to the set-aside pile of an "X de Y" draw) the same chance. Tiles
of one kind are interchangeable, so a *configuration* (how many tiles of each kind each rack holds)
stands for ``prod_t m_t! / (prod_r c[r][t]! * s_t!)`` labelled deals, where ``m_t`` counts the copies
of kind ``t`` the viewer does not hold. Cut wires and info tokens on other racks are not removed
from the pool: they are positions whose kind is fixed, counted in ``c[r][t]`` like any other (a
seen wire is not a particular tile). A sorted rack is fixed by its counts: kind ``t`` fills the
block of positions after every smaller kind. So we walk the kinds in ascending order with the
state "how many positions of each rack are filled" (plus the set-aside pile and the open claims),
which is a small dynamic programme; a forward and a backward pass give every marginal exactly.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from math import factorial
from typing import Any

from . import tiles as T
from .tiles import Named, Tile
from .view import Position



class NoDeal(ValueError):
    """No deal of the tiles matches the view (contradictory facts)."""


class TooLarge(ValueError):
    """The view is beyond the engine's size limit; the message names the size."""


#: the engine's budget of work, in moves (edges of the dynamic programme) plus 25 per placement
#: built (placements are shared by states whose racks have the same room; with many racks few
#: are): a standard table (at most four other racks) needs under 300,000; the budget is about a
#: second of work
MAX_WORK = 3_000_000
#: refused at once: the moves estimated from the rack sizes (prefix tuples at the widest layer
#: times the placements of four copies) beyond this cannot finish within the budget
MAX_ESTIMATE = 500_000


def _estimate(sizes: list[int]) -> int:
    """Largest number of rack-prefix tuples with one sum, times the ways to place 4 copies."""
    poly = [1]
    for n in sizes:
        new = [0] * (len(poly) + n)
        for i, c in enumerate(poly):
            for j in range(n + 1):
                new[i + j] += c
        poly = new
    R = len(sizes)
    return max(poly) * (R + 3) * (R + 2) * (R + 1) // 6


def _too_large(pos: Position, sizes: list[int], what: str) -> TooLarge:
    return TooLarge(f"{len(sizes)} other racks of {'/'.join(map(str, sizes))} wires "
                    f"({pos.hidden_count()} hidden) {what}; a standard table has at most 4 other racks")


@dataclass
class Deduction:
    position: Position
    deals: int  # labelled distributions of the unseen tiles consistent with the view
    #: probs[k][j] maps tile -> Fraction for slot j of other rack k (position.racks order)
    probs: list[list[dict[Tile, Fraction]]]
    seconds: float = 0.0
    states: int = 0
    kinds: list[Tile] = field(default_factory=list)
    #: the dynamic programme (a ``Tables``), for joint queries (duplo.py)
    tables: Any = field(default=None, repr=False, compare=False)
    #: weights[r][j] maps tile -> weight of the deals (of ``deals``) with that tile at slot j of
    #: rack r: every probability is one of these over ``deals``
    weights: list[list[dict[Tile, int]]] = field(default_factory=list, repr=False, compare=False)

    def weight(self, rack: int, slot: int, named: Named) -> int:
        return sum(w for t, w in self.weights[rack][slot].items() if T.matches(t, named))

    def prob(self, rack: int, slot: int, named: Named) -> Fraction:
        return Fraction(self.weight(rack, slot, named), self.deals)


def _compositions(total: int, caps: list[int]) -> list[tuple[int, ...]]:
    """Every way to write ``total`` as counts per rack within ``caps`` (no dead branches: a rack
    takes at least what the racks after it cannot hold)."""
    room = [0] * (len(caps) + 1)
    for i in range(len(caps) - 1, -1, -1):
        room[i] = room[i + 1] + caps[i]
    out: list[tuple[int, ...]] = []

    def place(i: int, left: int, head: tuple[int, ...]) -> None:
        if i == len(caps):
            out.append(head)
            return
        for c in range(max(0, left - room[i + 1]), min(left, caps[i]) + 1):
            place(i + 1, left - c, head + (c,))

    if total <= room[0]:
        place(0, total, ())
    return out


class _Problem:
    """The kinds, capacities and claims of one position, and its transition function."""

    def __init__(self, pos: Position):
        self.pos = pos
        own = pos.own_tiles()
        kinds: dict[Tile, tuple[int, int]] = {}  # tile -> (multiplicity, group: -1 blue, 0 red, 1 yellow)
        for v in range(1, pos.blue_values + 1):
            m = pos.blue_copies - own.count(T.blue(v))
            if m > 0:
                kinds[T.blue(v)] = (m, -1)
        self.aside = []
        for g, (cands, in_play) in enumerate(((pos.red_candidates, pos.red_in_play),
                                              (pos.yellow_candidates, pos.yellow_in_play))):
            for t in cands:
                if t not in own:
                    kinds[t] = (1, g)
            self.aside.append(len(cands) - in_play)
        self.kinds = sorted(kinds)
        self.mult = [kinds[t][0] for t in self.kinds]
        self.group = [kinds[t][1] for t in self.kinds]
        self.slots = [slots for _, slots in pos.racks]
        self.sizes = [len(s) for s in self.slots]
        # run[r][k][j]: how many positions from j on rack r in a row accept kind k
        self.run = []
        for slots in self.slots:
            per_kind = []
            for t in self.kinds:
                run = [0] * (len(slots) + 1)
                for j in range(len(slots) - 1, -1, -1):
                    run[j] = run[j + 1] + 1 if slots[j].allows(t) else 0
                per_kind.append(run)
            self.run.append(per_kind)
        # cut positions of each kind on each rack (uncut = count in block minus these)
        self.cut_fixed = [[sum(1 for s in slots if s.cut and s.tile == t) for t in self.kinds]
                          for slots in self.slots]
        self.has_cut = [any(row[k] for row in self.cut_fixed) for k in range(len(self.kinds))]
        self.claims = []
        for c in pos.claims:
            racks = [r for r, (h, _) in enumerate(pos.racks) if h == c.hand]
            ks = [k for k, t in enumerate(self.kinds) if T.matches(t, c.named)]
            self.claims.append((racks, set(ks), max(ks) if ks else -1, c.at_least))
        if any(last < 0 for _, _, last, _ in self.claims):
            raise NoDeal("a claim names a value no hidden wire can have")
        self.R = len(self.slots)
        self._cache: dict = {}
        self.generated = 0  # placements built (a cache miss costs ~25 moves' work)
        # a DP state is one int in mixed radix: rack prefixes, set-aside piles, claim counters
        radices = [n + 1 for n in self.sizes] + [a + 1 for a in self.aside] + [need + 1 for *_, need in self.claims]
        self.base = []
        b = 1
        for rad in radices:
            self.base.append(b)
            b *= rad
        self.radix = radices
        # cap[k][r][p]: copies of kind k rack r can take from prefix p on (a run of slots that
        # accept it, no more than the copies there are)
        self.cap = [[[min(self.run[r][k][p], self.sizes[r] - p, self.mult[k]) for p in range(self.sizes[r] + 1)]
                     for r in range(self.R)] for k in range(len(self.kinds))]

    def part(self, state: int, i: int) -> int:
        return state // self.base[i] % self.radix[i]

    def start(self) -> int:
        return 0

    def final(self) -> int:
        parts = list(self.sizes) + list(self.aside) + [need for *_, need in self.claims]
        return sum(v * b for v, b in zip(parts, self.base))

    def _options(self, k: int, caps: tuple[int, ...], aside_ok: bool) -> list:
        """Every way to place kind k's copies: [(state increment, weight, copies per rack, the
        racks given two or more as ((rack, copies), ...))], shared by every state (and every kind
        of the same multiplicity and colour group) with these capacities. A rack with cut wires
        of kind k gets at least those (its block covers them)."""
        m, g = self.mult[k], self.group[k]
        cut = self.has_cut[k]
        key = (m, caps, g if aside_ok else None, k if cut else None)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        R = self.R
        out = []
        if aside_ok:  # this red/yellow tile is the set-aside one
            out.append((self.base[R + g], 1, (0,) * R, ()))
        top = factorial(m)
        low = [self.cut_fixed[r][k] for r in range(R)]
        for counts in _compositions(m, list(caps)):
            if cut and any(c < lo for c, lo in zip(counts, low)):
                continue
            w = top
            for c in counts:
                if c > 1:
                    w //= factorial(c)
            wide = tuple((r, c) for r, c in enumerate(counts) if c > 1)
            out.append((sum(c * b for c, b in zip(counts, self.base)), w, counts, wide))
        self._cache[key] = out
        self.generated += len(out)
        if 25 * self.generated > MAX_WORK:  # many racks: few states share their placements
            raise _too_large(self.pos, self.sizes, f"need more than the exact engine's budget of "
                                                   f"{MAX_WORK:,} moves")
        return out

    def moves(self, k: int, state: int) -> list:
        """(state increment, weight, copies per rack, racks given two or more) for every way to
        place all copies of kind k from ``state``."""
        R, g = self.R, self.group[k]
        base, radix, cap = self.base, self.radix, self.cap[k]
        caps = tuple([cap[r][state // base[r] % radix[r]] for r in range(R)])
        aside_ok = g >= 0 and state // base[R + g] % radix[R + g] < self.aside[g]
        options = self._options(k, caps, aside_ok)
        if not self.claims:
            return options
        out = []
        for delta, w, counts, wide in options:
            ok = True
            for ci, (racks, ks, last, need) in enumerate(self.claims):
                idx = R + 2 + ci
                q = state // base[idx] % radix[idx]
                if k in ks:
                    got = sum(counts[r] - self.cut_fixed[r][k] for r in racks)
                    q2 = min(need, q + got)
                    delta += (q2 - q) * base[idx]
                    q = q2
                if k == last and q < need:
                    ok = False
                    break
            if ok:
                out.append((delta, w, counts, wide))
        return out


@dataclass
class Tables:
    """The dynamic programme, kept for joint queries (duplo.py): per kind layer k, the forward
    weight of each state before placing kind k, its moves, and the backward weight (completions
    with kinds >= k); ``blocks[k][r]`` maps (block start, length >= 2) of kind k on rack r to the
    weight of the deals with that block, filled in by the Duplo table for the values it needs
    (``layer_blocks``)."""
    problem: _Problem
    forward: list[dict[int, int]]
    moves: list[dict[int, list]]
    backward: list[dict[int, int]]
    blocks: dict[int, list[dict[tuple[int, int], int]]]


def _forward(pb: _Problem) -> tuple[list[dict[int, int]], list[dict[int, list]]]:
    estimate = _estimate(pb.sizes)
    if estimate > MAX_ESTIMATE:
        raise _too_large(pb.pos, pb.sizes, f"would need about {estimate:,} moves of the exact engine "
                                           f"(limit {MAX_WORK:,})")
    moves_done = 0
    forward: list[dict[int, int]] = [{pb.start(): 1}]
    succ: list[dict[int, list]] = []
    moves, options, R = pb.moves, pb._options, pb.R
    base, radix = pb.base, pb.radix
    for k in range(len(pb.kinds)):
        nxt: dict[int, int] = {}
        here: dict[int, list] = {}
        get = nxt.get
        if pb.claims or pb.group[k] >= 0:
            for state, f in forward[k].items():
                here[state] = opts = moves(k, state)
                for delta, w, _, _ in opts:
                    new = state + delta
                    nxt[new] = get(new, 0) + f * w
        else:  # a blue kind and no claims: ``moves`` without the call, the common case
            cap, cache = pb.cap[k], pb._cache
            m, key_k = pb.mult[k], k if pb.has_cut[k] else None
            for state, f in forward[k].items():
                caps = tuple([cap[r][state // base[r] % radix[r]] for r in range(R)])
                opts = cache.get((m, caps, None, key_k))
                if opts is None:
                    opts = options(k, caps, False)
                here[state] = opts
                for delta, w, _, _ in opts:
                    new = state + delta
                    nxt[new] = get(new, 0) + f * w
        forward.append(nxt)
        succ.append(here)
        moves_done += sum(map(len, here.values()))
        if moves_done + 25 * pb.generated > MAX_WORK:
            raise _too_large(pb.pos, pb.sizes, f"need more than the exact engine's budget of "
                                               f"{MAX_WORK:,} moves")
    return forward, succ


def _backward(pb: _Problem, succ, final: int) -> list[dict[int, int]]:
    """B[k][state] = weight of completing the racks from ``state`` with kinds >= k."""
    K = len(pb.kinds)
    backward: list[dict[int, int]] = [{} for _ in range(K)] + [{final: 1}]
    for k in range(K - 1, -1, -1):
        get, cur = backward[k + 1].get, backward[k]
        for state, opts in succ[k].items():
            b_sum = 0
            for delta, w, _, _ in opts:
                b = get(state + delta)
                if b:
                    b_sum += w * b
            if b_sum:
                cur[state] = b_sum
    return backward


def layer_blocks(pb: _Problem, fk: dict[int, int], moves: dict[int, list], after: dict[int, int],
                 live: dict[int, int]) -> list[dict[tuple[int, int], int]]:
    """Per rack: (block start, length >= 2) of this layer's kind -> the weight F * w * B of the
    deals with that block (the Detector Duplo's joints: one block covers both slots)."""
    base, radix = pb.base, pb.radix
    per_rack: list[dict[tuple[int, int], int]] = [{} for _ in range(pb.R)]
    get = after.get
    for state in live:
        here: dict[tuple[int, int], int] = {}  # (rack, copies) -> sum of w * B from this state
        for delta, w, _, wide in moves[state]:
            if wide:
                b = get(state + delta)
                if b:
                    for rc in wide:
                        here[rc] = here.get(rc, 0) + w * b
        f = fk[state]
        for (r, c), wb in here.items():
            key = (state // base[r] % radix[r], c)
            into = per_rack[r]
            into[key] = into.get(key, 0) + f * wb
    return per_rack


def deduce(pos: Position) -> Deduction:
    """Exact marginals for every position of every other rack; raises NoDeal if none fits (and
    TooLarge beyond the engine's size). The tables stay in ``Deduction.tables`` for the Detector
    Duplo's joint questions (duplo.py)."""
    start_time = time.perf_counter()
    pb = _Problem(pos)
    K = len(pb.kinds)
    forward, succ = _forward(pb)
    final = pb.final()
    total = forward[K].get(final, 0)
    if total == 0:
        raise NoDeal("no deal of the tiles matches this view")
    backward = _backward(pb, succ, final)
    # G[k][r][j] = weight of deals whose rack r holds at most j wires of kinds < k; the slot j of
    # rack r holds kind k exactly when G[k] counts it and G[k + 1] does not
    n_states = sum(len(b) for b in backward)
    base, radix = pb.base, pb.radix
    cumulative = []
    for k in range(K + 1):
        hist = [[0] * (n + 1) for n in pb.sizes]
        fk = forward[k]
        for state, b in backward[k].items():
            fb = fk[state] * b
            for r in range(pb.R):
                hist[r][state // base[r] % radix[r]] += fb
        rows = []
        for r in range(pb.R):
            run, row = 0, []
            for j in range(pb.sizes[r]):
                run += hist[r][j]
                row.append(run)
            rows.append(row)
        cumulative.append(rows)
    weights: list[list[dict[Tile, int]]] = []
    for r in range(pb.R):
        rows_w: list[dict[Tile, int]] = [dict() for _ in range(pb.sizes[r])]
        for k, t in enumerate(pb.kinds):
            before, after = cumulative[k][r], cumulative[k + 1][r]
            for j in range(pb.sizes[r]):
                weight = before[j] - after[j]
                if weight:
                    rows_w[j][t] = weight
        weights.append(rows_w)
    probs = [[{t: Fraction(w, total) for t, w in slot.items()} for slot in rack] for rack in weights]
    return Deduction(pos, total, probs, time.perf_counter() - start_time, n_states, pb.kinds,
                     Tables(pb, forward, succ, backward, {}), weights)


# ---- plays ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Play:
    rack: int  # index into position.racks
    slot: int
    named: Named
    success: Fraction
    red_risk: Fraction


def plays(d: Deduction) -> list[Play]:
    """Every dual cut the viewer can make now, best first (success down, red risk up)."""
    own = d.position.own_uncut()
    names = sorted({t for t in own if T.colour(t) == T.Colour.BLUE})
    if any(T.colour(t) == T.Colour.YELLOW for t in own):
        names.append(T.YELLOW)
    ranked = []  # every probability is a weight over d.deals: rank by the integers
    for r, (_, slots) in enumerate(d.position.racks):
        for j, slot in enumerate(slots):
            if slot.cut:
                continue
            red = d.weight(r, j, T.RED_ANY)
            for n in names:
                ranked.append((-d.weight(r, j, n), red, r, j, n))
    ranked.sort()
    return [Play(r, j, n, Fraction(-w, d.deals), Fraction(red, d.deals)) for w, red, r, j, n in ranked]
