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
from typing import Iterator

from . import tiles as T
from .tiles import Named, Tile
from .view import Position



class NoDeal(ValueError):
    """No deal of the tiles matches the view (contradictory facts)."""


@dataclass
class Deduction:
    position: Position
    deals: int  # labelled distributions of the unseen tiles consistent with the view
    #: probs[k][j] maps tile -> Fraction for slot j of other rack k (position.racks order)
    probs: list[list[dict[Tile, Fraction]]]
    seconds: float = 0.0
    states: int = 0
    kinds: list[Tile] = field(default_factory=list)
    #: the dynamic programme's tables (problem, forward, backward), for joint queries (duplo.py)
    tables: tuple = field(default=(), repr=False, compare=False)

    def prob(self, rack: int, slot: int, named: Named) -> Fraction:
        return sum((p for t, p in self.probs[rack][slot].items() if T.matches(t, named)), Fraction(0))


def _compositions(total: int, caps: list[int], i: int = 0) -> Iterator[tuple[int, ...]]:
    if i == len(caps) - 1:
        if total <= caps[i]:
            yield (total,)
        return
    for c in range(min(total, caps[i]) + 1):
        for rest in _compositions(total - c, caps, i + 1):
            yield (c,) + rest


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
        self.claims = []
        for c in pos.claims:
            racks = [r for r, (h, _) in enumerate(pos.racks) if h == c.hand]
            ks = [k for k, t in enumerate(self.kinds) if T.matches(t, c.named)]
            self.claims.append((racks, set(ks), max(ks) if ks else -1, c.at_least))
        if any(last < 0 for _, _, last, _ in self.claims):
            raise NoDeal("a claim names a value no hidden wire can have")
        self.R = len(self.slots)
        self.run_k = [[self.run[r][k] for r in range(self.R)] for k in range(len(self.kinds))]
        self._cache: dict = {}
        # a DP state is one int in mixed radix: rack prefixes, set-aside piles, claim counters
        radices = [n + 1 for n in self.sizes] + [a + 1 for a in self.aside] + [need + 1 for *_, need in self.claims]
        self.base = []
        b = 1
        for rad in radices:
            self.base.append(b)
            b *= rad
        self.radix = radices

    def part(self, state: int, i: int) -> int:
        return state // self.base[i] % self.radix[i]

    def start(self) -> int:
        return 0

    def final(self) -> int:
        parts = list(self.sizes) + list(self.aside) + [need for *_, need in self.claims]
        return sum(v * b for v, b in zip(parts, self.base))

    def _options(self, k: int, caps: tuple[int, ...], aside_ok: bool) -> tuple[list, list]:
        """Every way to place kind k's copies: [(counts per rack, weight, state increment)], and
        the same as [(increment, weight)] pairs (shared by every state with these capacities)."""
        key = (k, caps, aside_ok)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        R, m, g = self.R, self.mult[k], self.group[k]
        out = []
        if aside_ok:  # this red/yellow tile is the set-aside one
            out.append(((0,) * R, 1, self.base[R + g]))
        top = factorial(m)
        for counts in _compositions(m, list(caps)):
            w = top
            for c in counts:
                if c > 1:
                    w //= factorial(c)
            out.append((counts, w, sum(c * b for c, b in zip(counts, self.base))))
        pair = (out, [(delta, w) for _, w, delta in out])
        self._cache[key] = pair
        return pair

    def moves(self, k: int, state: int, with_counts: bool = False) -> list:
        """(state increment, weight) for every way to place all copies of kind k from ``state``
        (with ``with_counts``: (increment, weight, copies per rack))."""
        R, g = self.R, self.group[k]
        run_k, m, sizes, base, radix = self.run_k[k], self.mult[k], self.sizes, self.base, self.radix
        caps = []
        for r in range(R):
            p = state // base[r] % radix[r]
            caps.append(min(run_k[r][p], sizes[r] - p, m))
        aside_ok = g >= 0 and state // base[R + g] % radix[R + g] < self.aside[g]
        options, pairs = self._options(k, tuple(caps), aside_ok)
        if not self.claims:
            return [(delta, w, counts) for counts, w, delta in options] if with_counts else pairs
        out = []
        for counts, w, delta in options:
            ok = True
            for ci, (racks, ks, last, need) in enumerate(self.claims):
                idx = R + 2 + ci
                q = state // base[idx] % radix[idx]
                if k in ks:
                    got = sum(counts[r] - self.cut_fixed[r][k] for r in racks)
                    q2 = max(0, min(need, q + got))
                    delta += (q2 - q) * base[idx]
                    q = q2
                if k == last and q < need:
                    ok = False
                    break
            if ok:
                out.append((delta, w, counts) if with_counts else (delta, w))
        return out


def deduce(pos: Position) -> Deduction:
    """Exact marginals for every position of every other rack; raises NoDeal if none fits."""
    start_time = time.perf_counter()
    pb = _Problem(pos)
    K = len(pb.kinds)
    forward: list[dict[int, int]] = [{pb.start(): 1}]
    succ: list[dict[int, list]] = []
    for k in range(K):
        nxt: dict[int, int] = {}
        here: dict[int, list] = {}
        get = nxt.get
        for state, f in forward[k].items():
            here[state] = moves = pb.moves(k, state)
            for delta, w in moves:
                new = state + delta
                nxt[new] = get(new, 0) + f * w
        forward.append(nxt)
        succ.append(here)
    final = pb.final()
    total = forward[K].get(final, 0)
    if total == 0:
        raise NoDeal("no deal of the tiles matches this view")
    # backward pass: B[k][state] = weight of completing the racks from ``state`` with kinds >= k
    backward: list[dict[int, int]] = [{} for _ in range(K)] + [{final: 1}]
    for k in range(K - 1, -1, -1):
        nxt_b, cur = backward[k + 1], backward[k]
        get = nxt_b.get
        for state, moves in succ[k].items():
            b_sum = 0
            for delta, w in moves:
                b = get(state + delta)
                if b:
                    b_sum += w * b
            if b_sum:
                cur[state] = b_sum
    # G[k][r][j] = weight of deals whose rack r holds at most j wires of kinds < k; the slot j of
    # rack r holds kind k exactly when G[k] counts it and G[k + 1] does not
    n_states = sum(len(b) for b in backward)
    cumulative = []
    for k in range(K + 1):
        hist = [[0] * (n + 1) for n in pb.sizes]
        fk, bk = forward[k], backward[k]
        for state, b in bk.items():
            fb = fk[state] * b
            for r in range(pb.R):
                hist[r][pb.part(state, r)] += fb
        rows = []
        for r in range(pb.R):
            run, row = 0, []
            for j in range(pb.sizes[r]):
                run += hist[r][j]
                row.append(run)
            rows.append(row)
        cumulative.append(rows)
    probs: list[list[dict[Tile, Fraction]]] = []
    for r in range(pb.R):
        rows = [dict() for _ in range(pb.sizes[r])]
        for k, t in enumerate(pb.kinds):
            before, after = cumulative[k][r], cumulative[k + 1][r]
            for j in range(pb.sizes[r]):
                weight = before[j] - after[j]
                if weight:
                    rows[j][t] = Fraction(weight, total)
        probs.append(rows)
    return Deduction(pos, total, probs, time.perf_counter() - start_time, n_states, pb.kinds,
                     (pb, forward, backward))


# ---- plays and report ------------------------------------------------------------------------

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
    out = []
    for r, (_, slots) in enumerate(d.position.racks):
        for j, slot in enumerate(slots):
            if slot.cut:
                continue
            red = d.prob(r, j, T.RED_ANY)
            for n in names:
                out.append(Play(r, j, n, d.prob(r, j, n), red))
    out.sort(key=lambda p: (-p.success, p.red_risk, p.rack, p.slot, p.named))
    return out


def _frac(x: Fraction) -> dict:
    return {"fraction": f"{x.numerator}/{x.denominator}", "float": round(float(x), 6)}


def report(d: Deduction, top: int | None = None) -> dict:
    pos = d.position
    positions, facts = [], []
    rack_no: dict[int, int] = {}
    labels = []
    for r, (h, slots) in enumerate(pos.racks):
        rack_no[h] = rack_no.get(h, -1) + 1
        labels.append((pos.names[h], rack_no[h]))
        for j, slot in enumerate(slots):
            if slot.cut:
                continue
            dist = d.probs[r][j]
            entry = {"hand": pos.names[h], "rack": rack_no[h], "slot": j, "shown": slot.text(),
                     "probabilities": {T.show(t): _frac(p) for t, p in sorted(dist.items())},
                     "yellow": _frac(d.prob(r, j, T.YELLOW)), "red": _frac(d.prob(r, j, T.RED_ANY))}
            positions.append(entry)
            where = f"{pos.names[h]} rack {rack_no[h]} slot {j}"
            if len(dist) == 1:
                facts.append(f"{where} is {T.show(next(iter(dist)))}")
            elif d.prob(r, j, T.YELLOW) == 1:
                facts.append(f"{where} is yellow")
            elif d.prob(r, j, T.RED_ANY) == 1:
                facts.append(f"{where} is red")
    table = []
    for p in plays(d)[:top]:
        name, rk = labels[p.rack]
        table.append({"hand": name, "rack": rk, "slot": p.slot, "name": T.show_named(p.named),
                      "success": _frac(p.success), "red_risk": _frac(p.red_risk),
                      "certain": p.success == 1})
    from .duplo import duplo_plays
    duplo = []
    for p in duplo_plays(d):
        name, rk = labels[p.rack]
        duplo.append({"hand": name, "rack": rk, "slots": list(p.slots), "name": T.show_named(p.named),
                      "success": _frac(p.success), "explosion": _frac(p.explosion)})
    return {"viewer": pos.names[pos.viewer], "hidden_wires": pos.hidden_count(),
            "deals": str(d.deals), "dp_states": d.states, "engine_seconds": round(d.seconds, 4),
            "positions": positions, "facts": facts, "plays": table,
            "certain_cuts": [p for p in table if p["certain"]], "duplo_plays": duplo}
