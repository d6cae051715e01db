"""The Detector Duplo table: point at two wires of one teammate rack, name one value.

Success is P(a matches or b matches) = P(a) + P(b) - P(a and b). On a sorted rack two positions
hold the same blue value exactly when that value's block covers both, so the joint comes from
the distribution of (block start, block length) of the value on the rack, read off the deduction
engine's forward and backward tables at that value's layer: exact, and cheap. The explosion risk
(both wires red, B17) is 0 when fewer than two red wires can be hidden; otherwise it is computed
exactly for the listed pairs by conditioning the view on the first wire being red.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import combinations

from . import tiles as T
from .deduce import Deduction, deduce
from .tiles import Named
from .view import Slot


@dataclass(frozen=True)
class DuploPlay:
    rack: int
    slots: tuple[int, int]
    named: Named
    success: Fraction
    explosion: Fraction  # both wires red


def block_weights(d: Deduction, k: int) -> list[dict[tuple[int, int], int]]:
    """Per hidden rack: (block start, block length) of kind index k -> weight of deals."""
    pb, forward, backward = d.tables
    out: list[dict[tuple[int, int], int]] = [{} for _ in range(pb.R)]
    after = backward[k + 1]
    for state, f in forward[k].items():
        if state not in backward[k]:
            continue
        for delta, w, counts in pb.moves(k, state, with_counts=True):
            b = after.get(state + delta)
            if not b:
                continue
            for r, c in enumerate(counts):
                if c:
                    key = (pb.part(state, r), c)
                    out[r][key] = out[r].get(key, 0) + f * w * b
    return out


def _hidden_reds(d: Deduction) -> int:
    pos = d.position
    seen = sum(1 for t in pos.own_tiles() if T.colour(t) == T.Colour.RED)
    return pos.red_in_play - seen


def _explosion(d: Deduction, r: int, a: int, b: int, given: dict) -> Fraction:
    """P(slots a and b of rack r are both red) = P(a red) * P(b red | a red), or the same with a
    and b swapped: the view conditioned on one slot being red is deduced once per slot and shared
    by every pair that slot belongs to (``given``)."""
    pa, pb = d.prob(r, a, T.RED_ANY), d.prob(r, b, T.RED_ANY)
    if pa == 0 or pb == 0:
        return Fraction(0)
    if (r, a) not in given and (r, b) in given:
        a, b, pa = b, a, pb
    if (r, a) not in given:
        pos = d.position
        hand, slots = pos.racks[r]
        fixed = list(slots)
        fixed[a] = Slot(category=T.RED_ANY)
        racks = list(pos.racks)
        racks[r] = (hand, tuple(fixed))
        given[(r, a)] = deduce(replace(pos, racks=tuple(racks)))
    return pa * given[(r, a)].prob(r, b, T.RED_ANY)


def duplo_plays(d: Deduction, top: int = 10) -> list[DuploPlay]:
    """The best Detector Duplo cuts naming a blue value the viewer holds, best first."""
    pos = d.position
    pb = d.tables[0]
    names = sorted({t for t in pos.own_uncut() if T.colour(t) == T.Colour.BLUE})
    plays = []
    for n in names:
        if n not in pb.kinds:
            continue
        blocks = block_weights(d, pb.kinds.index(n))
        for r, (_, slots) in enumerate(pos.racks):
            both: dict[tuple[int, int], int] = {}  # weight of deals where the block covers a and b
            for (start, c), w in blocks[r].items():
                for pair in combinations(range(start, start + c), 2):
                    both[pair] = both.get(pair, 0) + w
            free = [j for j, s in enumerate(slots) if not s.cut]
            for a, b in combinations(free, 2):
                pa, pb_ = d.probs[r][a].get(n, Fraction(0)), d.probs[r][b].get(n, Fraction(0))
                if not (pa or pb_) or pa == 1 or pb_ == 1:  # nothing to gain over a single cut
                    continue
                joint = Fraction(both.get((a, b), 0), d.deals)
                plays.append(DuploPlay(r, (a, b), n, pa + pb_ - joint, Fraction(0)))
    plays.sort(key=lambda p: (-p.success, p.rack, p.slots, p.named))
    if _hidden_reds(d) >= 2 and plays:
        # the exact explosion risk for the best ones (and those tied with the last), then re-rank
        cut = plays[min(top, len(plays)) - 1].success
        head = [p for p in plays[:2 * top] if p.success >= cut]
        given: dict = {}
        plays = [replace(p, explosion=_explosion(d, p.rack, *p.slots, given)) for p in head]
        plays.sort(key=lambda p: (-p.success, p.explosion, p.rack, p.slots, p.named))
    return plays[:top]
