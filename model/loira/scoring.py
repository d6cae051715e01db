"""Round scoring, the tie-break and shared wins (000 "Fim da Rodada", L04, L05, L12, L15, L28).

Score of a seat = bathroom values + stall values + Espelho + 2 for a kept Interruptor + rolls held
- 2 for a kept Ralo. The Espelho copies the best point card held by anyone (L12): copying the
highest value is never worse for its owner (score only ever helps; the card counts once for the
tie-break whatever it copies), so the owner's choice is made by that dominance, not searched.
"""
from __future__ import annotations

from operator import mul
from typing import TYPE_CHECKING, Sequence

from .state import END, VICTIM, End

if TYPE_CHECKING:
    from .game import LoiraGame


def espelho_value(g: "LoiraGame", s: Sequence[int]) -> int:
    best = 0
    with_stalls = g.cfg.rulings["L12"] == "any-point-card"
    for seat in range(g.num_players):
        base = g.h(seat, 0)
        for k in range(9):
            if s[base + k]:
                best = max(best, k % 3)
        if with_stalls:
            for i, v in enumerate(g.cfg.stalls):
                if s[base + g.h_stall + i]:
                    best = max(best, v)
    return best


def weights(g: "LoiraGame") -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per hand slot, its weight in ``score`` (the Espelho apart) and in ``tie_cards``: both are
    linear in the holding, so the game computes them once and each is one dot product."""
    point = [k % 3 for k in range(9)] + list(g.cfg.stalls) + [0, 2, -2]
    if g.cfg.rulings["L04"] == "bathroom-cards":
        tie = [1] * 9 + [0] * (g.hsize - 9)
    else:
        rule = g.cfg.rulings["L05"]
        tie = [0 if rule == "no-nulls" and k % 3 == 0 else 1 for k in range(9)]
        tie += [1] * g.num_stall_values + [1, 1 if rule == "with-interruptor" else 0, 0]
    assert len(point) == len(tie) == g.hsize
    return tuple(point), tuple(tie)


def score(g: "LoiraGame", s: Sequence[int], seat: int) -> int:
    """Bathroom values + stall values + Espelho + 2 per Interruptor - 2 per Ralo + rolls held."""
    base = g.o_hand + seat * g.hsize
    total = sum(map(mul, g.score_weights, s[base:base + g.hsize]))
    if s[base + g.h_esp]:
        total += espelho_value(g, s) * s[base + g.h_esp]
    return total + s[g.o_rolls + seat]


def tie_cards(g: "LoiraGame", s: Sequence[int], seat: int) -> int:
    """The cards counted by the tie-break (L04 over L05's notion of a point card)."""
    base = g.o_hand + seat * g.hsize
    return sum(map(mul, g.tie_weights, s[base:base + g.hsize]))


def rank_key(g: "LoiraGame", s: Sequence[int], seat: int) -> tuple[int, int]:
    """Higher is better: (score, -tie-break cards)."""
    return score(g, s, seat), -tie_cards(g, s, seat)


def winners_of(keys: Sequence[tuple[int, int]], eligible: Sequence[bool]) -> list[int]:
    """Seats holding the best (score, -cards) pair among the eligible ones (all of them share)."""
    pool = [k for k, ok in zip(keys, eligible) if ok]
    if not pool:
        return []
    best = max(pool)
    return [seat for seat, (k, ok) in enumerate(zip(keys, eligible)) if ok and k == best]


def round_winners(g: "LoiraGame", s: Sequence[int]) -> list[int]:
    n = g.num_players
    keys = [(score(g, s, seat), -tie_cards(g, s, seat)) for seat in range(n)]   # rank_key
    eligible = [True] * n
    if g.cfg.rulings["L28"] == "no" and s[END] == End.LOIRA and s[VICTIM] >= 0:
        eligible[s[VICTIM]] = False
    return winners_of(keys, eligible)
