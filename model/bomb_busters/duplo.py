"""The Detector Duplo table: point at two wires of one teammate rack, name one value.

Success is P(a matches or b matches) = P(a) + P(b) - P(a and b). On a sorted rack two positions
hold the same blue value exactly when that value's block covers both, so the joint comes from
the distribution of (block start, block length) of the value on the rack, read off the engine's
kept forward and backward tables at that value's layer (``deduce.layer_blocks``), only for the
values that can reach the table: exact, and cheap.
The explosion risk (both wires red, B17) is 0 when fewer than two red wires can be hidden; otherwise it is computed
exactly for the listed pairs by a forward pass seeded with the deals whose first wire is red, over
the layers between the red kinds only (``both_red``): no second run of the engine.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

from . import tiles as T
from .deduce import Deduction, layer_blocks
from .tiles import Named, Tile


@dataclass(frozen=True)
class DuploPlay:
    rack: int
    slots: tuple[int, int]
    named: Named
    success: Fraction
    explosion: Fraction  # both wires red


def duplo_names(pos) -> frozenset[Tile]:
    """The values a Detector Duplo can name: the blue values among the viewer's uncut wires."""
    return frozenset(t for t in pos.own_uncut() if T.colour(t) == T.Colour.BLUE)


def _hidden_reds(d: Deduction) -> int:
    pos = d.position
    seen = sum(1 for t in pos.own_tiles() if T.colour(t) == T.Colour.RED)
    return pos.red_in_play - seen


def both_red(d: Deduction, r: int, a: int, upto: int) -> dict[int, int]:
    """b -> weight of the deals whose slots a < b <= upto of rack r both hold red wires.

    Red tiles are single copies, so the two are different kinds k1 < k2. A forward pass seeded
    with the deals whose kind-k1 block on rack r is slot a alone runs over the layers up to the
    last red kind only; where it places a later red kind alone on rack r, at the rack's prefix b,
    its weight times the backward weight is the joint weight of (a, b). A rack prefix only grows,
    so partial deals whose prefix passes ``upto`` are dropped: they can reach no asked-for b."""
    tb = d.tables
    pb = tb.problem
    reds = [k for k, g in enumerate(pb.group) if g == 0]
    base, radix = pb.base[r], pb.radix[r]
    out: dict[int, int] = {}
    seeded: dict[int, int] = {}  # partial deals (kinds < k) with a red on slot a
    for k in range(reds[0] if reds else 0, reds[-1] + 1 if reds else 0):
        moves, after, red = tb.moves[k], tb.backward[k + 1], pb.group[k] == 0
        nxt: dict[int, int] = {}
        get = nxt.get
        for s, g in seeded.items():
            j = s // base % radix
            room = upto - j
            for delta, w, counts, _ in moves[s]:
                c = counts[r]
                if c > room and not (red and c == 1):
                    continue
                n = s + delta
                b = after.get(n)
                if not b:
                    continue
                if red and c == 1:
                    out[j] = out.get(j, 0) + g * w * b
                if c <= room:
                    nxt[n] = get(n, 0) + g * w
        if red and a < upto:
            live = tb.backward[k]
            for s, f in tb.forward[k].items():
                if s // base % radix != a or s not in live:
                    continue
                for delta, w, counts, _ in moves[s]:
                    n = s + delta
                    if counts[r] == 1 and n in after:
                        nxt[n] = get(n, 0) + f * w
        seeded = nxt
    return out


def both_red_before(d: Deduction, r: int, b: int) -> dict[int, int]:
    """a -> weight of the deals whose slots a < b of rack r both hold red wires: the same joint
    as ``both_red``, by a backward pass seeded with the deals whose later red is slot b alone
    (one pass serves every a; partial deals whose rack prefix passed b have no such red)."""
    tb = d.tables
    pb = tb.problem
    reds = [k for k, g in enumerate(pb.group) if g == 0]
    base, radix = pb.base[r], pb.radix[r]
    out: dict[int, int] = {}
    ahead: dict[int, int] = {}  # completions (kinds > k) that put a red alone on slot b
    for k in range(reds[-1] if reds else -1, reds[0] - 1 if reds else -1, -1):
        red, fwd, live, after = pb.group[k] == 0, tb.forward[k], tb.backward[k], tb.backward[k + 1]
        here: dict[int, int] = {}
        get = ahead.get
        for s, opts in tb.moves[k].items():
            j = s // base % radix
            if j > b or s not in live:
                continue
            h = 0
            for delta, w, counts, _ in opts:
                n = s + delta
                x = get(n)
                if x:
                    h += w * x
                    if red and counts[r] == 1:  # this red is the earlier one, on slot a = j
                        out[j] = out.get(j, 0) + fwd[s] * w * x
                elif red and j == b and counts[r] == 1:  # seed: this red lands on slot b
                    y = after.get(n)
                    if y:
                        h += w * y
            if h:
                here[s] = h
        ahead = here
    return out


def _passes(asked: list[tuple[int, int, int]]) -> list[tuple[str, tuple[int, int], list]]:
    """Seeded passes that answer every asked pair (rack, a, b): one pass per first slot (rack, a)
    or per second slot (rack, b), chosen greedily, the slot that answers most pairs first (a
    Detector Duplo table often pairs one slot with many: the first 1, the last 12)."""
    left, out = set(asked), []
    while left:
        groups: dict[tuple[str, tuple[int, int]], list] = {}
        for r, a, b in sorted(left):
            groups.setdefault(("a", (r, a)), []).append((r, a, b))
            groups.setdefault(("b", (r, b)), []).append((r, a, b))
        # ties go to a forward pass: it drops partial deals past the pairs' last b, so a pass
        # for near pairs (a, a + 1) touches few states; a backward pass keeps every prefix <= b
        (side, key), pairs = max(groups.items(), key=lambda kv: (len(kv[1]), kv[0][0] == "a", kv[0][1]))
        out.append((side, key, pairs))
        left -= set(pairs)
    return out


def duplo_plays(d: Deduction, top: int = 10) -> list[DuploPlay]:
    """The best Detector Duplo cuts naming a blue value the viewer holds, best first."""
    pos, tb = d.position, d.tables
    pb = tb.problem
    names = [n for n in sorted(duplo_names(pos)) if n in pb.kinds]
    cands: dict[int, list] = {n: [] for n in names}  # (wa, wb, rack, a, b) per named value
    for r, (_, slots) in enumerate(pos.racks):
        free = [j for j, s in enumerate(slots) if not s.cut]
        weights = d.weights[r]
        for n in names:
            for a, b in combinations(free, 2):
                wa, wb = weights[a].get(n, 0), weights[b].get(n, 0)
                if (wa or wb) and wa != d.deals and wb != d.deals:  # else no gain over a single cut
                    cands[n].append((wa, wb, r, a, b))
    # max(wa, wb) <= success <= wa + wb: a value whose best wa + wb is below the top-th best
    # max(wa, wb) has no pair in the table, and its joints are not needed
    lows = sorted((max(wa, wb) for c in cands.values() for wa, wb, *_ in c), reverse=True)
    floor = lows[top - 1] if len(lows) >= top else 0
    ranked = []  # (-success weight, rack, slots, name): every weight is over d.deals
    for n, pairs in cands.items():
        if not pairs or max(wa + wb for wa, wb, *_ in pairs) < floor:
            continue
        k = pb.kinds.index(n)
        if k not in tb.blocks:
            tb.blocks[k] = layer_blocks(pb, tb.forward[k], tb.moves[k], tb.backward[k + 1], tb.backward[k])
        both: dict[tuple[int, int, int], int] = {}  # (rack, a, b) -> weight of one block covering both
        for r, blocks in enumerate(tb.blocks[k]):
            for (start, c), w in blocks.items():
                for a, b in combinations(range(start, start + c), 2):
                    both[(r, a, b)] = both.get((r, a, b), 0) + w
        for wa, wb, r, a, b in pairs:
            ranked.append((both.get((r, a, b), 0) - wa - wb, r, (a, b), n))
    ranked.sort()
    risks = [0] * len(ranked)
    if _hidden_reds(d) >= 2 and ranked:
        # the exact explosion risk for the best ones (and those tied with the last), then re-rank
        cut = ranked[min(top, len(ranked)) - 1][0]
        ranked = [p for p in ranked[:2 * top] if p[0] <= cut]
        asked = [(r, a, b) for _, r, (a, b), _ in ranked
                 if d.weight(r, a, T.RED_ANY) and d.weight(r, b, T.RED_ANY)]
        joint: dict[tuple[int, int, int], int] = {}
        for side, (r, slot), pairs in _passes(asked):
            if side == "a":
                got = both_red(d, r, slot, max(b for _, _, b in pairs))
                joint.update(((r, a, b), got.get(b, 0)) for _, a, b in pairs)
            else:
                got = both_red_before(d, r, slot)
                joint.update(((r, a, b), got.get(a, 0)) for _, a, b in pairs)
        risks = []
        for _, r, (a, b), _ in ranked:
            risks.append(joint.get((r, a, b), 0))
    best = sorted(((s, risk, r, slots, n) for (s, r, slots, n), risk in zip(ranked, risks)))[:top]
    return [DuploPlay(r, slots, n, Fraction(-s, d.deals), Fraction(risk, d.deals))
            for s, risk, r, slots, n in best]
