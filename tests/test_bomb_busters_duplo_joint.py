"""The Detector Duplo joints without a second run of the engine, against independent answers:
the brute force's joint counts (tiny views), and conditioning (P(a and b) = P(a) * P(b | a), the
second factor deduced from the view with slot a fixed) on full-size views; the two seeded passes
for both-red (from slot a forward, from slot b backward) agree on every pair; a view beyond the
engine's size is refused in one line naming its racks."""
from __future__ import annotations

import json
import random
from dataclasses import replace
from fractions import Fraction
from itertools import combinations

from hypothesis import HealthCheck, given, settings, strategies as st
from typer.testing import CliRunner

from ruleproof.model.bomb_busters import tiles as T
from ruleproof.model.bomb_busters.brute import brute_force
from ruleproof.model.bomb_busters.deduce import NoDeal, TooLarge, deduce
from ruleproof.model.bomb_busters.duplo import both_red, both_red_before, duplo_plays
from ruleproof.model.bomb_busters.mission import racks_for
from ruleproof.model.bomb_busters.view import Slot, parse_view
from test_bomb_busters_deduce import _deal, _random_position


def _fixed(pos, r, a, slot):
    hand, slots = pos.racks[r]
    racks = list(pos.racks)
    racks[r] = (hand, slots[:a] + (slot,) + slots[a + 1:])
    return replace(pos, racks=tuple(racks))


def _conditioned_joint(pos, d, r, a, b, slot, named) -> Fraction:
    """P(slot a and slot b of rack r both match ``named``), slot a fixed by ``slot``."""
    pa = d.prob(r, a, named)
    if pa == 0:
        return Fraction(0)
    return pa * deduce(_fixed(pos, r, a, slot)).prob(r, b, named)


def _full_size(seed: int):
    """A full-size deal of 4-5 players, 2 or 3 reds of 3 candidates in play, the viewer holding
    none, each teammate showing one info token (or none)."""
    rng = random.Random(seed)
    players = rng.choice([4, 5])
    reds = [2, 6, 10]
    while True:
        pool = T.blue_pool(12, 4) + [T.red(v) for v in rng.sample(reds, rng.choice([2, 3]))] + [
            T.yellow(3), T.yellow(9)]
        rng.shuffle(pool)
        racks = _deal(pool, len(racks_for(players)))
        if not any(T.colour(t) == T.Colour.RED for t in racks[0]):
            break
    hands = []
    for p, rack in enumerate(racks):
        row = [T.show(t) for t in rack] if p == 0 else ["?"] * len(rack)
        if p and rng.random() < 0.7:
            j = next(j for j, t in enumerate(rack) if T.colour(t) == T.Colour.BLUE)
            row[j] = "?" + T.show(rack[j])
        hands.append({"name": f"p{p}", "racks": [row]})
    in_play = sum(1 for t in pool if T.colour(t) == T.Colour.RED)
    return parse_view({"format": "bomb-busters-view/1",
                       "mission": {"blue_values": 12, "blue_copies": 4, "red": {"values": reds, "in_play": in_play},
                                   "yellow": {"values": [3, 9], "in_play": 2}},
                       "viewer": "p0", "hands": hands})


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9))
def test_full_size_duplo_table_matches_conditioning(seed):
    pos = _full_size(seed)
    d = deduce(pos)
    table = duplo_plays(d)
    assert table
    for p in table[:3]:
        (a, b), n = p.slots, p.named
        both = _conditioned_joint(pos, d, p.rack, a, b, Slot(tile=n), n)
        assert p.success == d.prob(p.rack, a, n) + d.prob(p.rack, b, n) - both
        assert p.explosion == _conditioned_joint(pos, d, p.rack, a, b, Slot(category=T.RED_ANY), T.RED_ANY)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9))
def test_both_red_passes_agree_with_brute_force(seed):
    pos = _random_position(random.Random(seed))
    try:
        d = deduce(pos)
    except NoDeal:
        return
    pairs: dict = {}
    brute_force(pos, pairs)
    for r, (_, slots) in enumerate(pos.racks):
        for a, b in combinations(range(len(slots)), 2):
            truth = sum((q for (ta, tb), q in pairs[(r, a, b)].items()
                         if T.colour(ta) == T.Colour.RED and T.colour(tb) == T.Colour.RED), Fraction(0))
            forward = Fraction(both_red(d, r, a, b).get(b, 0), d.deals)
            backward = Fraction(both_red_before(d, r, b).get(a, 0), d.deals)
            assert forward == backward == truth, (r, a, b)


def test_two_red_example_pairs_by_both_passes():
    """On the 5-player '2 de 3' view every both-red joint read forward equals the one read
    backward, for every pair of one rack (the Duplo table picks either per pair)."""
    from pathlib import Path
    from ruleproof.model.bomb_busters.view import load_view
    pos = load_view(Path(__file__).resolve().parent.parent / "model" / "bomb_busters" / "examples" / "start-5p-2of3-reds.json")
    d = deduce(pos)
    n = len(pos.racks[0][1])
    backward = {b: both_red_before(d, 0, b) for b in range(n)}
    for a in range(n):
        forward = both_red(d, 0, a, n - 1)
        for b in range(a + 1, n):
            assert forward.get(b, 0) == backward[b].get(a, 0)
    assert any(backward[b] for b in range(n))


def _two_racks_each(tmp_path, blue_values: int):
    """Five hands of two racks each: not a standard table (with 4-5 players one rack each)."""
    rng = random.Random(1)
    pool = T.blue_pool(blue_values, 4) + [T.yellow(3), T.yellow(5)]
    rng.shuffle(pool)
    racks = _deal(pool, 10)
    hands = [{"name": f"p{p}", "racks": [[T.show(t) for t in r] if p == 0 else ["?"] * len(r)
                                          for r in racks[2 * p:2 * p + 2]]} for p in range(5)]
    path = tmp_path / f"two-racks-{blue_values}.json"
    path.write_text(json.dumps({"format": "bomb-busters-view/1", "viewer": "p0", "hands": hands,
                                "mission": {"blue_values": blue_values, "blue_copies": 4,
                                            "yellow": {"values": [3, 5], "in_play": 2}}}))
    return path


def test_too_large_view_is_refused_in_one_line(tmp_path):
    from ruleproof.cli import app
    for blue_values in (12, 8):  # refused from the rack sizes at once; refused on the budget
        path = _two_racks_each(tmp_path, blue_values)
        result = CliRunner().invoke(app, ["deduce", str(path)])
        assert result.exit_code == 2
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0] and "hands" in lines[0]
        assert "8 other racks of" in lines[0] and "too large" in lines[0]


def test_too_large_is_raised_by_the_engine(tmp_path):
    from ruleproof.model.bomb_busters.view import load_view
    try:
        deduce(load_view(_two_racks_each(tmp_path, 12)))
    except TooLarge as exc:
        assert "8 other racks" in str(exc) and "hidden" in str(exc)
    else:
        raise AssertionError("a 10-rack table was not refused")
