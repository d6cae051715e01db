"""The literal brute-force oracle for the deduction engine (tiny positions only).

It does what the rules do and nothing cleverer: label every physical tile, pick which red and
yellow candidates are shuffled in (every "X de Y" choice), deal the labelled tiles to every rack
in every possible way (all set partitions with the rack sizes), sort each rack by the tiles'
values, and keep the deal when the viewer would see exactly this position. Each kept deal counts
once; a probability is a ratio of counts.
"""
from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from typing import Iterator

from . import tiles as T
from .tiles import Tile
from .view import Position


def _partitions(labels: tuple[int, ...], sizes: list[int]) -> Iterator[list[tuple[int, ...]]]:
    if not sizes:
        yield []
        return
    first, rest = sizes[0], sizes[1:]
    for chosen in combinations(labels, first):
        left = tuple(x for x in labels if x not in chosen)
        for tail in _partitions(left, rest):
            yield [chosen] + tail


def _hand_racks(pos: Position) -> list[tuple[int, int]]:
    """Every rack in seat order as (hand, index into own / racks)."""
    out, own_i = [], 0
    for h in range(len(pos.names)):
        if h == pos.viewer:
            for _ in pos.own:
                out.append((h, own_i))
                own_i += 1
        else:
            for k, (hand, _) in enumerate(pos.racks):
                if hand == h:
                    out.append((h, k))
    return out


def brute_force(pos: Position, pairs: dict | None = None) -> tuple[int, list[list[dict[Tile, Fraction]]]]:
    """(number of consistent labelled deals, the same marginals as ``deduce``).

    With ``pairs`` (a dict), also fills ``pairs[(rack, a, b)][(tile_a, tile_b)]`` with the joint
    probability of two positions a < b of one other rack."""
    order = _hand_racks(pos)
    sizes = [len(pos.own[i]) if h == pos.viewer else len(pos.racks[i][1]) for h, i in order]
    blue = T.blue_pool(pos.blue_values, pos.blue_copies)
    counts = [[{} for _ in slots] for _, slots in pos.racks]
    kept = 0
    for reds in combinations(pos.red_candidates, pos.red_in_play):
        for yellows in combinations(pos.yellow_candidates, pos.yellow_in_play):
            tiles = blue + list(reds) + list(yellows)  # index = label
            for deal in _partitions(tuple(range(len(tiles))), sizes):
                racks = [sorted(tiles[x] for x in rack) for rack in deal]
                if not _consistent(pos, order, racks):
                    continue
                kept += 1
                for (h, i), rack in zip(order, racks):
                    if h != pos.viewer:
                        for j, t in enumerate(rack):
                            counts[i][j][t] = counts[i][j].get(t, 0) + 1
                        if pairs is not None:
                            for a, b in combinations(range(len(rack)), 2):
                                cell = pairs.setdefault((i, a, b), {})
                                cell[(rack[a], rack[b])] = cell.get((rack[a], rack[b]), 0) + 1
    if kept == 0:
        return 0, []
    if pairs is not None:
        for cell in pairs.values():
            for key in cell:
                cell[key] = Fraction(cell[key], kept)
    return kept, [[{t: Fraction(n, kept) for t, n in slot.items()} for slot in rack] for rack in counts]


def deal_allowed(pos: Position, racks: list[list[Tile]]) -> bool:
    """Whether a deal (every rack's tiles, sorted, hands in seat order, each hand's racks in order)
    is one the viewer could be looking at."""
    return _consistent(pos, _hand_racks(pos), racks)


def _consistent(pos: Position, order: list[tuple[int, int]], racks: list[list[Tile]]) -> bool:
    held: dict[int, list[Tile]] = {}
    for (h, i), rack in zip(order, racks):
        if h == pos.viewer:
            if rack != [t for t, _ in pos.own[i]]:
                return False
            continue
        slots = pos.racks[i][1]
        for t, slot in zip(rack, slots):
            if not slot.allows(t):
                return False
            if not slot.cut:
                held.setdefault(h, []).append(t)
    for c in pos.claims:
        if sum(1 for t in held.get(c.hand, []) if T.matches(t, c.named)) < c.at_least:
            return False
    return True
