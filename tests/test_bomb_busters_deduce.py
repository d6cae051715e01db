"""The deduction engine against hand-computed cases and the literal brute-force enumerator."""
from __future__ import annotations

import json
import random
import time
from fractions import Fraction
from math import factorial
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ruleproof.model.bomb_busters import tiles as T
from ruleproof.model.bomb_busters.brute import brute_force
from ruleproof.model.bomb_busters.deduce import NoDeal, deduce, plays
from ruleproof.model.bomb_busters.report import report
from ruleproof.model.bomb_busters.mission import rack_sizes, racks_for
from ruleproof.model.bomb_busters.view import parse_view
from ruleproof.model.ruleset import RulesetError


def view(hands, blue_values=3, blue_copies=2, red=None, yellow=None, claims=None, viewer="a"):
    mission = {"blue_values": blue_values, "blue_copies": blue_copies}
    if red:
        mission["red"] = {"values": red[0], "in_play": red[1]}
    if yellow:
        mission["yellow"] = {"values": yellow[0], "in_play": yellow[1]}
    data = {"format": "bomb-busters-view/1", "mission": mission, "viewer": viewer,
            "hands": [{"name": n, "racks": r} for n, r in hands]}
    if claims:
        data["claims"] = [{"hand": c[0], "holds": c[1], "at_least": c[2] if len(c) > 2 else 1} for c in claims]
    return parse_view(data)


def assert_matches_brute(pos):
    d = deduce(pos)
    kept, probs = brute_force(pos)
    # brute force also counts which labelled copies went to each of the viewer's racks:
    # m! / ((m - own)! * prod over own racks of own_r!) per blue kind (red/yellow tiles are unique)
    factor = 1
    for v in range(1, pos.blue_values + 1):
        per_rack = [sum(1 for t, _ in rack if t == T.blue(v)) for rack in pos.own]
        ways = factorial(pos.blue_copies) // factorial(pos.blue_copies - sum(per_rack))
        for n in per_rack:
            ways //= factorial(n)
        factor *= ways
    assert kept == d.deals * factor
    assert d.probs == probs
    return d


def test_slot_next_to_a_seen_two():
    # Tiles 1,1,2,2. The viewer holds a 1; bia's rack is [?, 2] (a 2 shown), carla has one wire.
    # Labelled: the unseen tiles are 1b, 2a, 2b. Carla gets one of the three, bia the other two:
    # carla 1b -> bia [2,2]; carla 2a or 2b -> bia [1,2]. So bia's slot 0 is a 2 with probability
    # 1/3, not the 1/2 one gets by taking the seen 2 out of the pool and dealing {1, 2} to two slots.
    for shown in ("?2", "x2"):
        pos = view([("a", [["1"]]), ("bia", [["?", shown]]), ("carla", [["?"]])], blue_values=2)
        d = assert_matches_brute(pos)
        assert d.probs[0][0] == {T.blue(2): Fraction(1, 3), T.blue(1): Fraction(2, 3)}
        assert d.probs[1][0] == {T.blue(2): Fraction(2, 3), T.blue(1): Fraction(1, 3)}
        assert d.deals == 3


def test_one_of_two_red_hand_computed():
    # Tiles 1,1 and one red of {1.5, 2.5}. Bia holds the other 1 and the red, sorted [1, red]:
    # slot 1 is red for sure, 1.5 or 2.5 with probability 1/2 each.
    pos = view([("a", [["1"]]), ("bia", [["?", "?"]])], blue_values=1, red=([1, 2], 1))
    d = assert_matches_brute(pos)
    assert d.probs[0][0] == {T.blue(1): 1}
    assert d.probs[0][1] == {T.red(1): Fraction(1, 2), T.red(2): Fraction(1, 2)}
    assert d.prob(0, 1, T.RED_ANY) == 1
    rep = report(d)
    assert "bia rack 0 slot 0 is 1" in rep["facts"] and "bia rack 0 slot 1 is red" in rep["facts"]


def test_claim_decides():
    # Unseen {1, 2} between bia and carla; bia failed a cut naming 2, so bia holds the 2.
    hands = [("a", [["1", "2"]]), ("bia", [["?"]]), ("carla", [["?"]])]
    d = assert_matches_brute(view(hands, blue_values=2))
    assert d.probs[0][0] == {T.blue(1): Fraction(1, 2), T.blue(2): Fraction(1, 2)}
    d = assert_matches_brute(view(hands, blue_values=2, claims=[("bia", "2")]))
    assert d.probs[0][0] == {T.blue(2): 1} and d.probs[1][0] == {T.blue(1): 1}
    top = plays(d)[0]
    assert (top.rack, top.slot, top.named, top.success) == (0, 0, T.blue(2), 1)


TINY = [  # (hands, mission keyword arguments)
    ([("a", [["1", "3"]]), ("b", [["?", "?2", "?"]]), ("c", [["?", "?"]])], {"red": ([1, 2], 1)}),
    ([("a", [["2", "2.5"]]), ("b", [["?", "?", "?"]]), ("c", [["x1", "?"]])], {"red": ([1, 2], 1)}),
    ([("a", [["1"], ["2"]]), ("b", [["?", "?"], ["?", "?Y"]])], {"blue_values": 2, "yellow": ([1, 2], 2)}),
    ([("a", [["x2", "2"]]), ("b", [["?", "?~3"]]), ("c", [["?", "?"]])], {}),
    ([("a", [["1", "1.1"]]), ("b", [["?", "?"]]), ("c", [["?", "?"]])],
     {"red": ([1, 2, 3], 2), "yellow": ([1, 3], 2), "blue_values": 1}),
]


@pytest.mark.parametrize("hands,mission", TINY)
def test_tiny_positions_match_brute_force(hands, mission):
    assert_matches_brute(view(hands, **mission))


def _deal(pool: list, racks: int) -> list[list]:
    """Consecutive slices of the shuffled pool, extras to the first racks (B11), each sorted."""
    out, start = [], 0
    for size in rack_sizes(len(pool), racks):
        out.append(sorted(pool[start:start + size]))
        start += size
    return out


def _random_position(rng: random.Random):
    """A real deal, then facts a viewer could see: cut pairs, info tokens, exclusions, claims."""
    blue_values, copies = rng.choice([(2, 2), (3, 2), (2, 4)])
    reds = rng.sample(range(1, 4), rng.randint(0, 2))
    red_in = rng.randint(0, len(reds))
    yels = rng.sample(range(1, 4), rng.choice([0, 2, 3]))  # "2 de 3" yellow too
    yellow_in = min(2, len(yels))
    pool = T.blue_pool(blue_values, copies) + [T.red(v) for v in rng.sample(reds, red_in)] + list(
        map(T.yellow, rng.sample(yels, yellow_in)))
    rng.shuffle(pool)
    n_hands = rng.choice([2, 3])
    owners = (0, 0, 1, 1) if n_hands == 2 and len(pool) >= 4 and rng.random() < 0.5 else tuple(range(n_hands))
    racks = _deal(pool, len(owners))
    hands = []
    claims = []
    for h in range(n_hands):
        out = []
        for rack, o in zip(racks, owners):
            if o != h:
                continue
            if h == 0:
                out.append([("x" if rng.random() < 0.2 else "") + T.show(t) for t in rack])
                continue
            row, uncut = [], []
            for t in rack:
                u = rng.random()
                if u >= 0.15:
                    uncut.append(t)
                if u < 0.15:
                    row.append("x" + T.show(t))
                elif u < 0.3 and T.colour(t) == T.Colour.BLUE:
                    row.append("?" + T.show(t))
                elif u < 0.4 and T.colour(t) == T.Colour.YELLOW:
                    row.append("?Y")
                elif u < 0.4 and T.colour(t) == T.Colour.RED:
                    row.append("?R")
                elif u < 0.5:
                    wrong = [T.show(T.blue(v)) for v in range(1, blue_values + 1) if T.blue(v) != t]
                    if T.colour(t) != T.Colour.YELLOW:
                        wrong.append("Y")
                    row.append("?~" + "~".join(rng.sample(wrong, rng.randint(1, min(2, len(wrong))))))
                else:
                    row.append("?")
            out.append(row)
            if h and rng.random() < 0.4:
                held = [t for t in uncut if T.colour(t) == T.Colour.BLUE]
                if held:
                    t = rng.choice(held)
                    claims.append((f"h{h}", T.show(t), rng.randint(1, held.count(t))))
            if h and rng.random() < 0.3 and any(T.colour(t) == T.Colour.YELLOW for t in uncut):
                claims.append((f"h{h}", "Y", 1))
        hands.append((f"h{h}", out))
    return view(hands, blue_values, copies, red=(reds, red_in), yellow=(yels, yellow_in),
                claims=claims, viewer="h0")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9))
def test_random_positions_match_brute_force(seed):
    assert_matches_brute(_random_position(random.Random(seed)))


def test_contradiction_raises():
    pos = view([("a", [["1", "2"]]), ("bia", [["?"]]), ("carla", [["?"]])], blue_values=2,
               claims=[("bia", "2"), ("carla", "2")])
    with pytest.raises(NoDeal):
        deduce(pos)


@pytest.mark.parametrize("mutate,key", [
    (lambda d: d.update(format="v0"), "format"),
    (lambda d: d["hands"][0]["racks"][0].__setitem__(0, "?"), "hands[0].racks[0][0]"),
    (lambda d: d["hands"][1]["racks"][0].__setitem__(0, "7"), "hands[1].racks[0][0]"),
    (lambda d: d["hands"][1]["racks"][0].__setitem__(0, "?13"), "hands[1].racks[0][0]"),
    (lambda d: d["hands"][1]["racks"][0].append("?"), "hands"),
    (lambda d: d.update(viewer="zoe"), "viewer"),
    (lambda d: d["mission"].update(blue_values=0), "mission.blue_values"),
    (lambda d: d["mission"].update(red={"values": [1, 1], "in_play": 1}), "mission.red.values"),
    (lambda d: d.update(claims=[{"hand": "a", "holds": "1"}]), "claims[0].hand"),
    (lambda d: d["hands"][0]["racks"].__setitem__(0, ["2", "1"]), "hands[0].racks[0]"),
])
def test_bad_views_raise_ruleset_error(mutate, key):
    data = {"format": "bomb-busters-view/1", "mission": {"blue_values": 2, "blue_copies": 2},
            "viewer": "a", "hands": [{"name": "a", "racks": [["1", "2"]]}, {"name": "b", "racks": [["?", "?"]]}]}
    mutate(data)
    with pytest.raises(RulesetError) as exc:
        parse_view(json.loads(json.dumps(data)), "v.json")
    assert exc.value.key == key and exc.value.source == "v.json"


def full_size_view(players: int, seed: int) -> dict:
    rng = random.Random(seed)
    pool = T.blue_pool(12, 4) + [T.red(4), T.red(7)] + [T.yellow(3), T.yellow(9)]
    rng.shuffle(pool)
    owners = racks_for(players)
    racks = _deal(pool, len(owners))
    hands = []
    for p in range(players):
        mine = [r for r, o in zip(racks, owners) if o == p]
        rows = [[T.show(t) for t in r] if p == 0 else ["?"] * len(r) for r in mine]
        if p:
            j = next(j for j, t in enumerate(mine[0]) if T.colour(t) == T.Colour.BLUE)
            rows[0][j] = "?" + T.show(mine[0][j])
        hands.append({"name": f"p{p}", "racks": rows})
    return {"format": "bomb-busters-view/1",
            "mission": {"blue_values": 12, "blue_copies": 4, "red": {"values": [4, 7], "in_play": 2},
                        "yellow": {"values": [3, 9], "in_play": 2}},
            "viewer": "p0", "hands": hands}


def test_full_size_four_players_is_fast_and_normalised():
    pos = parse_view(full_size_view(4, 7))
    assert pos.hidden_count() >= 36
    start = time.perf_counter()
    d = deduce(pos)
    table = plays(d)
    assert time.perf_counter() - start < 1.0
    for rack in d.probs:
        for slot in rack:
            assert sum(slot.values()) == 1
    # every hidden red/yellow/blue tile is somewhere: expected counts add up to the unseen copies
    own = pos.own_tiles()
    for v in range(1, 13):
        expected = sum(slot.get(T.blue(v), 0) for rack in d.probs for slot in rack)
        assert expected == 4 - own.count(T.blue(v))
    assert table == sorted(table, key=lambda p: (-p.success, p.red_risk, p.rack, p.slot, p.named))


EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "model" / "bomb_busters" / "examples").glob("*.json"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_views_through_the_hook(path):
    from ruleproof.model.bomb_busters import SPEC
    out = SPEC.deduction.run(path)
    assert {"viewer", "hidden_wires", "deals", "positions", "facts", "plays", "certain_cuts"} <= set(out)
    for entry in out["positions"]:
        total = sum(Fraction(p["fraction"]) for p in entry["probabilities"].values())
        assert total == 1
    assert out["plays"] == sorted(out["plays"], key=lambda p: (-Fraction(p["success"]["fraction"]),
                                                               Fraction(p["red_risk"]["fraction"])))
    if path.name == "slot-next-to-2.json":
        first = out["positions"][0]
        assert first["probabilities"]["2"]["fraction"] == "1/3"


def test_hook_errors_name_the_file(tmp_path):
    from ruleproof.model.bomb_busters import SPEC
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(RulesetError) as exc:
        SPEC.deduction.run(bad)
    assert exc.value.source == str(bad)
    with pytest.raises(RulesetError):
        SPEC.deduction.run(tmp_path / "missing.json")
    contradiction = tmp_path / "contra.json"
    contradiction.write_text(json.dumps({
        "format": "bomb-busters-view/1", "mission": {"blue_values": 2, "blue_copies": 2}, "viewer": "a",
        "hands": [{"name": "a", "racks": [["1", "2"]]}, {"name": "b", "racks": [["?2"]]},
                  {"name": "c", "racks": [["?"]]}], "claims": [{"hand": "c", "holds": "2"}]}))
    with pytest.raises(RulesetError) as exc:
        SPEC.deduction.run(contradiction)
    assert "no deal" in exc.value.reason


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9))
def test_detector_duplo_table_matches_brute_force(seed):
    from ruleproof.model.bomb_busters.duplo import duplo_plays
    pos = _random_position(random.Random(seed))
    d = deduce(pos)
    pairs: dict = {}
    brute_force(pos, pairs)
    for p in duplo_plays(d, top=50):
        joint = pairs[(p.rack, *p.slots)]
        either = sum((q for (ta, tb), q in joint.items() if ta == p.named or tb == p.named), Fraction(0))
        both_red = sum((q for (ta, tb), q in joint.items()
                        if T.colour(ta) == T.Colour.RED and T.colour(tb) == T.Colour.RED), Fraction(0))
        assert p.success == either
        assert p.explosion == both_red
