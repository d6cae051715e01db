"""Named invariants of a Loira state (shared by the explorer, the tests and the proofs)."""
from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING, Sequence

from ruleproof.model.protocol import Invariant

from .cards import Kind
from .state import CARD, CLOSED, CROLLS, GRITOS, PH, PHYS, QI, QN, SLOTS, Phase

if TYPE_CHECKING:
    from .game import LoiraGame

_KEPT_SLOT = {Kind.ESPELHO: "h_esp", Kind.INTERRUPTOR: "h_int", Kind.RALO: "h_ralo"}


def held_count(g: "LoiraGame", s: Sequence[int], kind: int) -> int:
    if kind < 9:
        slot = kind
    elif kind in _KEPT_SLOT:
        slot = getattr(g, _KEPT_SLOT[kind])
    else:
        return 0
    return sum(s[g.h(seat, slot)] for seat in range(g.num_players))


def _group_sums(groups: list[list[int]]):
    """A function of a state giving, per group of state indices, the sum of its entries (one
    C-level gather per group: the cheapest form measured)."""
    getters = [itemgetter(*grp) if len(grp) > 1 else (lambda s, i=grp[0]: (s[i],)) for grp in groups]
    return lambda s: [sum(get(s)) for get in getters]


_MEMO_LIMIT = 1 << 20   # entries (a tuple of ~40 ints each): a bound on a memo's memory


def invariants(g: "LoiraGame", screened: bool = True) -> tuple[Invariant, ...]:
    """``screened=False`` leaves out the cheap screens and memos (the tests compare both forms)."""

    def _screen(fast, exact):
        """``exact`` (the reason, in the invariant's own words) only where the cheap ``fast`` test
        of the common case cannot vouch for the state: the explorer checks every new state, so
        this keeps the checks' cost low without a second wording of any invariant."""
        if not screened:
            return exact
        return lambda s: None if fast(s) else exact(s)

    from .bounds import score_bounds
    from .scoring import score
    n, cfg = g.num_players, g.cfg
    lo, hi = score_bounds(cfg)

    # card-conservation: per kind present, deck + discard + holdings (a mini-expansion kind's deck
    # entry counts its closed cards, set aside and on top included); the closed cards set aside or
    # on top are some of those (none negative)
    def slot_of(k):
        return k if k < 9 else getattr(g, _KEPT_SLOT[k]) if k in _KEPT_SLOT else None

    card_groups = [[g.o_deck + i, g.o_disc + i]
                   + ([g.h(seat, slot_of(k)) for seat in range(n)] if slot_of(k) is not None else [])
                   for i, k in enumerate(g.kinds)]
    card_sum = _group_sums(card_groups)
    card_expected = [cfg.deck[k] for k in g.kinds]
    deck_disc = slice(g.o_deck, g.o_disc + len(g.kinds))   # the deck and discard regions, adjacent
    assert g.o_disc == g.o_deck + len(g.kinds)
    closed_slice, aside_at = g.closed_slice, g.o_aside

    def closed_ok(s):
        aside = s[aside_at]
        return 0 <= aside and aside + (s[CARD] == CLOSED) <= sum(s[closed_slice])

    def cards_fast(s):
        return card_sum(s) == card_expected and min(s[deck_disc], default=0) >= 0 and closed_ok(s)

    stall_groups = [[g.o_centre + i, g.o_out + i] + [g.h(seat, g.h_stall + i) for seat in range(n)]
                    for i in range(g.num_stall_values)]
    stall_sum = _group_sums(stall_groups)
    stall_expected = list(cfg.stall_counts)
    centre = slice(g.o_centre, g.o_centre + g.num_stall_values)

    def stalls_fast(s):
        return stall_sum(s) == stall_expected and min(s[centre], default=0) >= 0

    def cards(s):
        for i, k in enumerate(g.kinds):
            total = s[g.o_deck + i] + s[g.o_disc + i] + held_count(g, s, k)
            if total != cfg.deck[k]:
                return f"{total} cards of kind {k} instead of {cfg.deck[k]}"
            if min(s[g.o_deck + i], s[g.o_disc + i]) < 0:
                return f"negative count of kind {k}"
        if not closed_ok(s):
            return (f"{s[aside_at]} closed cards set aside (and {int(s[CARD] == CLOSED)} on top) of "
                    f"{sum(s[closed_slice])} closed")
        return None

    def stalls(s):
        for i, c in enumerate(cfg.stall_counts):
            held = sum(s[g.h(seat, g.h_stall + i)] for seat in range(n))
            if s[g.o_centre + i] + held + s[g.o_out + i] != c or s[g.o_centre + i] < 0:
                return f"stall value {cfg.stalls[i]}: {s[g.o_centre + i]}+{held}+{s[g.o_out + i]} != {c}"
        return None

    rolls_slice = slice(g.o_rolls, g.o_rolls + n)

    def rolls_fast(s):
        held = s[rolls_slice]
        return s[CROLLS] + sum(held) == cfg.total_rolls and min(held, default=0) >= 0 and s[CROLLS] >= 0

    def rolls(s):
        held = [s[g.o_rolls + seat] for seat in range(n)]
        if min(held + [s[CROLLS]]) < 0 or s[CROLLS] + sum(held) != cfg.total_rolls:
            return f"rolls {held} + centre {s[CROLLS]} != {cfg.total_rolls}"
        return None

    def belief(s):
        m = sum(s[g.o_centre:g.o_centre + g.num_stall_values])
        phys, slots = s[PHYS], s[SLOTS]
        if not 0 <= phys <= slots <= m + 1 or (phys and slots < 1):
            return f"phys {phys}, slots {slots}, unopened score stalls {m}"
        if phys > m + 1:
            return "more cards in the centre than unopened"
        return None

    def score_range(s):
        for seat in range(n):
            v = score(g, s, seat)
            if not lo <= v <= hi:
                return f"seat {seat} scores {v} outside [{lo}, {hi}]"
        return None

    # scores read the holdings and the rolls only (``scoring.score``): the verdict is memoised on
    # that region (from the rolls to the end of the state), which many states share
    held_from, score_memo = g.o_rolls, {}

    def score_range_memo(s):
        key = s[held_from:]
        reason = score_memo.get(key, score_memo)   # the memo itself stands for "not seen"
        if reason is not score_memo:
            return reason
        reason = score_range(s)
        if len(score_memo) < _MEMO_LIMIT:
            score_memo[key] = reason
        return reason

    escape, end = int(Phase.ESCAPE), int(Phase.END)

    def openings(s):
        if not 0 <= s[QI] <= s[QN] <= g.qlen or s[QN] > s[PHYS] + s[QI] + (s[PH] == escape):
            return f"opening queue {s[QI]}/{s[QN]} with {s[PHYS]} cards in the centre"
        if s[GRITOS] >= 3 and s[PH] != end and cfg.rulings["L14"] == "per-round":
            return "a third Grito was resolved but the round goes on"
        return None

    rows = _row_screens(g, card_groups, stall_groups, lo, hi) if screened else {}
    return (
        Invariant("card-conservation", "every main-deck card is in the deck, the discard, set aside "
                  "or in front of exactly one player", _screen(cards_fast, cards),
                  screen_rows=rows.get("cards")),
        Invariant("stall-conservation", "every score stall is unopened, held, or out of the round",
                  _screen(stalls_fast, stalls), screen_rows=rows.get("stalls")),
        Invariant("roll-conservation", "rolls in the centre plus rolls held equal the boxes' rolls",
                  _screen(rolls_fast, rolls), screen_rows=rows.get("rolls")),
        Invariant("centre-belief", "0 <= cards in the centre <= belief slots <= unopened stalls + 1",
                  belief, screen_rows=rows.get("belief")),
        Invariant("score-bounds", f"every seat's score stays within the proved bounds [{lo}, {hi}]",
                  score_range_memo if screened else score_range, screen_rows=rows.get("score")),
        Invariant("opening-and-gritos", "the opening queue is consistent; a third Grito ends the "
                  "round", openings, screen_rows=rows.get("openings")),
    )


def _row_screens(g: "LoiraGame", card_groups: list[list[int]], stall_groups: list[list[int]],
                 lo: int, hi: int) -> dict:
    """The invariants' screens over many states at once: int8 rows (``LoiraGame.state_rows``) in,
    True out where the worded check would surely find nothing. Each tests what its check tests (the
    score bounds through an interval for the Espelho's value); the explorer words the reason by the
    check itself on every state a screen leaves out."""
    import numpy as np
    n, cfg, i16 = g.num_players, g.cfg, np.int16
    escape, end = int(Phase.ESCAPE), int(Phase.END)

    def column(r, i):   # int16: sums of int8 entries below 256 terms cannot overflow
        return r[:, i].astype(i16)

    def groups_hold(r, groups, expected, extra=lambda i: 0):
        ok = np.ones(len(r), bool)
        for i, (grp, want) in enumerate(zip(groups, expected)):
            ok &= r[:, grp].sum(axis=1, dtype=i16) + extra(i) == want
        return ok

    deck_disc = slice(g.o_deck, g.o_disc + len(g.kinds))
    centre = slice(g.o_centre, g.o_centre + g.num_stall_values)

    def cards(r):
        aside = column(r, g.o_aside)
        closed = r[:, g.closed_slice].sum(axis=1, dtype=i16)
        return (groups_hold(r, card_groups, [cfg.deck[k] for k in g.kinds])
                & (r[:, deck_disc] >= 0).all(axis=1) & (aside >= 0)
                & (aside + (r[:, CARD] == CLOSED) <= closed))

    def stalls(r):
        return groups_hold(r, stall_groups, cfg.stall_counts) & (r[:, centre] >= 0).all(axis=1)

    def rolls(r):
        held = r[:, g.o_rolls:g.o_rolls + n]
        return ((column(r, CROLLS) + held.sum(axis=1, dtype=i16) == cfg.total_rolls)
                & (held >= 0).all(axis=1) & (r[:, CROLLS] >= 0))

    def belief(r):
        m = r[:, centre].sum(axis=1, dtype=i16)
        phys, slots = column(r, PHYS), column(r, SLOTS)
        return ((0 <= phys) & (phys <= slots) & (slots <= m + 1) & ((phys == 0) | (slots >= 1))
                & (phys <= m + 1))

    # a seat's score is the weighted holding plus the rolls plus the Espelho's count times a value
    # between 0 and the best point card (``scoring.espelho_value``)
    weights, esp_max = np.array(g.score_weights, np.int32), max([2, *cfg.stalls])
    assert weights[g.h_esp] == 0

    def score(r):
        ok = np.ones(len(r), bool)
        for seat in range(n):
            base = g.h(seat, 0)
            fixed = r[:, base:base + g.hsize].astype(np.int32) @ weights + r[:, g.o_rolls + seat]
            esp = r[:, base + g.h_esp].astype(np.int32) * esp_max
            ok &= (fixed + np.minimum(esp, 0) >= lo) & (fixed + np.maximum(esp, 0) <= hi)
        return ok

    third_grito_ends = cfg.rulings["L14"] == "per-round"

    def openings(r):
        qi, qn, ph = column(r, QI), column(r, QN), r[:, PH]
        ok = (0 <= qi) & (qi <= qn) & (qn <= g.qlen) & (qn <= column(r, PHYS) + qi + (ph == escape))
        if third_grito_ends:
            ok &= (r[:, GRITOS] < 3) | (ph == end)
        return ok

    return {"cards": cards, "stalls": stalls, "rolls": rolls, "belief": belief, "score": score,
            "openings": openings}
