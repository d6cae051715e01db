"""The face-down centre as a belief: a public multiset plus what is known about the Loira.

Nobody ever sees a stall before it is opened, and Chute no Vaso removes one unseen (000: "sem que
ninguém veja seu conteúdo (inclusive você)"), so the model never stores *which* card is where.
What every player knows is:

* ``counts`` -- the public multiset of score stalls not yet opened (``m`` cards), some of which may
  have been kicked out unseen;
* ``phys`` -- how many stall cards lie physically in the centre;
* ``slots`` -- an integer ``x >= phys`` such that the Loira is in the centre with probability
  ``phys / x`` and the next opened card is the Loira with probability ``1 / x``.

Derivation. Because every kick and every pick is uniform over the face-down cards, the score stalls
still in the centre are always a uniform random subset of ``counts``; only the Loira's presence
needs tracking. Let ``p`` be the probability that she is present. A pick shows her with probability
``p / phys``; otherwise it shows a value ``v`` with probability ``(1 - p/phys) * counts[v] / m``.
At the start ``p = 1`` and everything is exchangeable, so ``p = phys / (m + 1)``: put
``x = m + 1``. A kick keeps ``x`` (``p' = p (phys-1)/phys = (phys-1)/x``); opening a score stall
lowers ``x`` by one (``p' = p (phys-1)/(phys-p) = (phys-1)/(x-1)``); after an escape the Loira is
known to be back (``p = 1``), so ``x = phys``. Hence ``P(Loira next) = 1/x`` and
``P(v next) = (1 - 1/x) * counts[v] / m`` at every opening.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache


@lru_cache(maxsize=None)
def reveal_distribution(counts: tuple[int, ...], slots: int) -> tuple[tuple[int, Fraction], ...]:
    """``(outcome, probability)`` of the next opened stall: a value index, or -1 for the Loira."""
    m = sum(counts)
    out: list[tuple[int, Fraction]] = []
    loira = Fraction(1, slots)
    if m:
        rest = 1 - loira
        out = [(i, rest * Fraction(c, m)) for i, c in enumerate(counts) if c]
    out = [(i, p) for i, p in out if p]
    out.append((-1, loira))
    return tuple(out)


def loira_present(phys: int, slots: int) -> Fraction:
    """Probability that the Loira is physically in the centre."""
    return Fraction(phys, slots) if slots else Fraction(0)
