"""The Bomb Busters protocol model: rulesets, conformance under random play, observations,
the exhaustive tiny mission, and the view a seat gets from a real game."""
from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ruleproof.model.bomb_busters import SPEC, VERIFY_OVERRIDES
from ruleproof.model.bomb_busters.game import build
from ruleproof.model.bomb_busters import rules as R
from ruleproof.model.bomb_busters import state as S
from ruleproof.model.bomb_busters import tiles as T
from ruleproof.model.bomb_busters.brute import brute_force
from ruleproof.model.bomb_busters.deduce import deduce
from ruleproof.model.bomb_busters.observe import position, view_json
from ruleproof.model.bomb_busters.rules import Kind
from ruleproof.model.bomb_busters.state import Phase
from ruleproof.model.bomb_busters.view import parse_view
from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.ruleset import RulesetError


def ruleset(**over):
    return SPEC.default().with_overrides(over, spec=SPEC.schema, source="test")


def random_game(game, rng, stop_at=None):
    """Play uniformly at random; yield every state (checking the protocol on the way)."""
    s = game.initial_state()
    while True:
        yield s
        who = game.current_player(s)
        if who == TERMINAL:
            return
        if who == CHANCE:
            outcomes = game.chance_outcomes(s)
            assert all(isinstance(p, Fraction) and p > 0 for _, p in outcomes)
            assert sum(p for _, p in outcomes) == 1
            a = rng.choices([o for o, _ in outcomes], [float(p) for _, p in outcomes])[0]
        else:
            legal = game.legal_actions(s)
            assert legal and list(legal) == sorted(legal)
            a = rng.choice(legal)
        s = game.apply(s, a)


def test_builtin_rulesets_load():
    assert "bomb-busters" in SPEC.builtin_rulesets()
    for name in SPEC.builtin_rulesets():
        game = SPEC.build(SPEC.ruleset(name))
        assert game.mission.total_wires == sum(game.mission.sizes())
    m = build(SPEC.default()).mission
    assert (m.players, m.blue_values * m.blue_copies, m.skull) == (4, 48, 6)  # B01: players + 2
    assert m.sizes() == (13, 13, 13, 12)  # 48 + 1 red + 2 yellow, extra wires to the first racks (B11)


@pytest.mark.parametrize("over,key", [
    ({"yellow_in_play": 3, "yellow_drawn": 3}, "params.yellow_in_play"),
    ({"red_in_play": 2, "red_drawn": 1}, "params.red_in_play"),
    ({"red_values": [1, 1]}, "params.red_values"),
    ({"equipment": ["laser"]}, "params.equipment"),
    ({"blue_copies": 3}, "params.blue_copies"),
    ({"players": 6}, "params.players"),
])
def test_bad_parameters_raise(over, key):
    with pytest.raises(RulesetError) as exc:
        ruleset(**over)
    assert exc.value.key == key


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_play_keeps_invariants_and_keys(players):
    game = build(ruleset(players=players))
    invariants = game.invariants()
    rng = random.Random(players)
    for _ in range(3):
        for s in random_game(game, rng):
            for inv in invariants:
                assert inv.check(s) is None, (inv.name, game.describe_state(s))
            assert game.from_key(game.key(s)) == s
            assert isinstance(game.key(s), tuple) and all(isinstance(x, int) for x in game.key(s))
        assert s.phase in (Phase.WON, Phase.LOST)


def test_setup_racks_by_player_count():
    # seeds/004 step 4: 2 players get 2 racks each; 3: the captain 2; 4 or 5: one each
    assert build(ruleset(players=2)).mission.rack_owner == (0, 0, 1, 1)
    assert build(ruleset(players=3)).mission.rack_owner == (0, 0, 1, 2)
    assert build(ruleset(players=5)).mission.rack_owner == (0, 1, 2, 3, 4)


def test_observation_hides_exactly_the_others_uncut_wires():
    game = build(ruleset())
    rng = random.Random(3)
    states = [s for s in random_game(game, rng) if s.phase == Phase.PLAY]
    s = states[len(states) // 2]
    for seat in range(4):
        obs = game.observation(s, seat)
        racks = obs[6]
        for r, rack in enumerate(racks):
            for w_obs, w in zip(rack, s.racks[r]):
                mine = game.mission.rack_owner[r] == seat
                assert (w_obs == w) if (mine or S.is_cut(w)) else (S.code(w_obs) == 0 and S.info(w_obs) == S.info(w))
        assert obs[5] == len(s.aside)  # the set-aside tiles stay unseen


def test_dual_cut_outcomes():
    game = build(SPEC.ruleset("bomb-busters-tiny-3"))
    m = game.mission
    # a hand-made deal: p0 racks [1 2][2.5 3], p1 racks [1 3][2]
    racks = ((T.blue(1), T.blue(2)), (T.red(2), T.blue(3)), (T.blue(1), T.blue(3)), (T.blue(2),))
    s = S.State(Phase.PLAY, 0, 0, (T.red(2),), (), (), racks)
    # right: both wires cut, positions kept
    right = game.apply(s, (Kind.DUAL, 2, 0, T.blue(1)))
    assert S.is_cut(right.racks[2][0]) and S.is_cut(right.racks[0][0]) and right.seat == 1
    # wrong on blue: detonator +1, info token shows the true value, claim "p0 holds a 3"
    wrong = game.apply(s, (Kind.DUAL, 2, 0, T.blue(3)))
    assert wrong.detonator == 1 and S.info(wrong.racks[2][0]) == 1 and wrong.claims == (T.blue(3),)
    # a second failure reaches the skull (detonator 2)
    lost = game.apply(wrong.evolve(seat=0), (Kind.DUAL, 3, 0, T.blue(1)))
    assert lost.phase == Phase.LOST
    # p1 points at the red: explosion
    boom = game.apply(s.evolve(seat=1), (Kind.DUAL, 1, 0, T.blue(1)))
    assert boom.phase == Phase.LOST
    # solo cut is legal only for the last wires of a value, all in one's hand
    assert (Kind.SOLO, T.blue(1)) not in game.legal_actions(s)
    assert R.solo_ok(m, right.evolve(seat=1), T.blue(1)) is False


def test_estabilizador_and_duplo():
    game = build(SPEC.ruleset("bomb-busters-tiny"))
    racks = ((T.blue(1), T.blue(2)), (T.red(1),), (T.blue(1),), (T.blue(2),))
    s = S.State(Phase.PLAY, 1, 0, (T.red(1), T.red(2)), (), (T.red(2),), racks, unlocked=1)
    assert (Kind.STABILIZE, 0) in game.legal_actions(s)
    st = game.apply(s, (Kind.STABILIZE, 0))
    assert st.stabilized == 1 and all(a[0] in (Kind.DUAL, Kind.DUPLO) for a in game.legal_actions(st))
    # stabilized, p1 names 1 on p0's red: the red is cut (B12), no explosion, no detonator step
    safe = game.apply(st, (Kind.DUAL, 1, 0, T.blue(1)))
    assert safe.phase == Phase.PLAY and safe.detonator == 0 and S.is_cut(safe.racks[1][0])
    # Detector Duplo on p0's rack [1 2] naming 1: one right, success
    duo = game.apply(s, (Kind.DUPLO, 0, 0, 1, T.blue(1)))
    assert S.is_cut(duo.racks[0][0]) and S.is_cut(duo.racks[2][0]) and duo.duplo == 2


def test_comunicadores_keeps_racks_sorted():
    game = build(SPEC.ruleset("bomb-busters-tiny"))
    racks = ((T.blue(1), T.blue(2)), (T.red(1),), (T.blue(1),), (T.blue(2),))
    s = S.State(Phase.PLAY, 0, 0, (T.red(1), T.red(2)), (), (T.red(2),), racks, unlocked=2)
    swapped = game.apply(s, (Kind.SWAP, 1, 0, 1, 2, 0))  # p0's 2 for p1's 1
    assert tuple(map(S.code, swapped.racks[0])) == (T.blue(1), T.blue(1))
    assert tuple(map(S.code, swapped.racks[2])) == (T.blue(2),) and swapped.used == 2


def test_exhaustive_tiny_mission():
    from ruleproof.solver.explore import explore
    game = build(SPEC.default().with_overrides(VERIFY_OVERRIDES, spec=SPEC.schema))
    ex = explore(game, max_states=50_000)
    assert ex.complete and not ex.violations
    assert ex.num_states == 5169  # regression figure for the verify configuration
    from ruleproof.solver.verify import termination_property
    longest = termination_property(ex).data["longest_play"]
    assert longest <= game.max_game_length


def _play_positions(game, rng):
    for s in random_game(game, rng):
        if game.current_player(s) >= 0 and s.phase == Phase.PLAY:
            yield s


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_views_from_real_games_contain_the_truth(players):
    """The engine's support always includes the actual wire (the view never lies), at full size."""
    game = build(ruleset(players=players))
    rng = random.Random(11 + players)
    for k, s in enumerate(_play_positions(game, rng)):
        if k % 7:
            continue
        pos = position(game, s, s.seat)
        d = deduce(pos)
        others = [r for r, o in enumerate(game.mission.rack_owner) if o != s.seat]
        for i, r in enumerate(others):
            for j, w in enumerate(s.racks[r]):
                assert d.probs[i][j].get(S.code(w), 0) > 0
        assert parse_view(view_json(pos)) == pos.__class__(**{**pos.__dict__, "source": "view"})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from(["bomb-busters-tiny", "bomb-busters-tiny-colours",
                                                  "bomb-busters-tiny-3"]))
def test_positions_from_random_games_match_brute_force(seed, name):
    game = build(SPEC.ruleset(name))
    rng = random.Random(seed)
    states = list(_play_positions(game, rng))
    if not states:
        return
    s = rng.choice(states)
    pos = position(game, s, s.seat)
    d = deduce(pos)
    kept, probs = brute_force(pos)
    assert kept > 0 and d.probs == probs
    # the view file written for this position reads back as the same position
    assert parse_view(view_json(pos)) == pos.__class__(**{**pos.__dict__, "source": "view"})


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from([2, 3, 4, 5]))
def test_invariants_hold_under_random_play(seed, players):
    game = build(ruleset(players=players))
    rng = random.Random(seed)
    for s in random_game(game, rng):
        for inv in game.invariants():
            assert inv.check(s) is None, (inv.name, inv.check(s))
        assert game.from_key(game.key(s)) == s


ALTERNATIVES = [(r.id, o) for r in SPEC.schema.rulings for o in r.alternatives]


@pytest.mark.parametrize("rid,option", ALTERNATIVES)
def test_every_ruling_alternative_plays(rid, option):
    rs = SPEC.default().with_overrides(rulings={rid: option}, spec=SPEC.schema)
    game = build(rs)
    rng = random.Random(hash((rid, option)) % 1000)
    for s in random_game(game, rng):
        for inv in game.invariants():
            assert inv.check(s) is None, (rid, option, inv.name)
    tiny = build(SPEC.default().with_overrides(VERIFY_OVERRIDES, {rid: option}, spec=SPEC.schema))
    for s in random_game(tiny, rng):
        pass
    assert s.phase in (Phase.WON, Phase.LOST)


def test_ruling_effects():
    base = SPEC.default()
    # B01: the skull moves with the player count
    assert build(base.with_overrides(rulings={"B01": "players-plus-3"}, spec=SPEC.schema)).mission.skull == 7
    # B11: the short rack is the first one instead of the last
    last = build(base.with_overrides(rulings={"B11": "last-racks"}, spec=SPEC.schema)).mission
    assert last.sizes() == (12, 13, 13, 13)
    # B10: the rightmost own wire of the value is cut
    game = build(SPEC.default().with_overrides({"players": 2, "blue_values": 2, "blue_copies": 4, "red_in_play": 0,
                                                "red_drawn": 0, "yellow_in_play": 0, "yellow_drawn": 0,
                                                "equipment": []}, {"B10": "rightmost"}, spec=SPEC.schema))
    racks = ((T.blue(1), T.blue(1)), (T.blue(1), T.blue(2)), (T.blue(1), T.blue(2)), (T.blue(2), T.blue(2)))
    s = S.State(Phase.PLAY, 0, 0, (), (), (), racks)
    after = game.apply(s, (Kind.DUAL, 2, 0, T.blue(1)))
    assert S.is_cut(after.racks[1][0]) and not S.is_cut(after.racks[0][0])
    # B09 random: the set-up token is a chance event, uniform over the player's blue wires
    rnd = build(base.with_overrides(VERIFY_OVERRIDES, {"B09": "random"}, spec=SPEC.schema))
    s = rnd.initial_state()
    while s.phase != Phase.TOKENS:
        s = rnd.apply(s, rnd.chance_outcomes(s)[0][0])
    assert rnd.current_player(s) == CHANCE
    outs = rnd.chance_outcomes(s)
    assert len({p for _, p in outs}) == 1 and sum(p for _, p in outs) == 1
