"""The numpy simulator implements the protocol model's rules: agreement with the exact analysis and
with a Monte Carlo run of the protocol game itself; seeded reproducibility; the hook's output."""
import json
import math
import random
from pathlib import Path

import numpy as np
import pytest

from ruleproof.model.presentes import SPEC
from ruleproof.model.presentes.config import rules_of
from ruleproof.model.presentes.exact import analyse
from ruleproof.model.presentes.policies import POLICY_DISTS
from ruleproof.model.presentes.rules import Effect, Phase
from ruleproof.model.presentes.simulate import COUNTERS, FIRST_STEAL, run_games, simulate_playouts, summarise
from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.registry import load_ruleset_file

EXAMPLE = Path(__file__).resolve().parents[1] / "model" / "presentes" / "examples" / "hand-drawn.toml"


def close(a, b, se, k=4.0):
    return abs(a - b) <= k * se


@pytest.mark.parametrize("policy", ["eager", "passive", "random"])
def test_simulator_matches_exact_analysis_on_mini(policy):
    rs = SPEC.ruleset("presentes-mini")
    rules, _ = rules_of(rs)
    raw = run_games(rules, 20_000, seed=11, policy=policy)
    ex = analyse(SPEC.build(rs), policy=policy, horizon=0)
    turns = raw["turns"]
    assert close(turns.mean(), float(ex["mean_turns"]), turns.std() / math.sqrt(len(turns)))
    for i in range(2):
        p = float(ex["first"][i])
        assert close((raw["rank"][:, i] == 0).mean(), p, math.sqrt(p * (1 - p) / len(turns)))
        q = float(ex["own_gift"][i])
        assert close((raw["gift"][:, i] == i).mean(), q, math.sqrt(q * (1 - q) / len(turns)))


def test_simulator_effect_frequencies_match_exact_expectations():
    rs = SPEC.ruleset("presentes-mini").with_overrides({"players": 2}, {"P17": "two"}, spec=SPEC.schema)
    game = SPEC.build(rs)
    ex = analyse(game, policy="eager", horizon=0, effects=True)["effects_per_game"]
    raw = run_games(game.rules, 20_000, seed=5)
    for j, name in enumerate(COUNTERS):
        x = raw["counts"][:, j]
        assert close(x.mean(), float(ex[j]), x.std() / math.sqrt(len(x)) + 1e-9, 4.5), name


def protocol_playout(game, games, seed, policy):
    """Play the protocol game itself; returns turns, first finisher, own gifts, effect counts."""
    rng = random.Random(seed)
    dist = POLICY_DISTS[policy]
    out = {"turns": [], "first": [], "own": [], "counts": []}
    for _ in range(games):
        s = game.initial_state()
        turns, counts = 0, [0] * len(COUNTERS)
        while True:
            cp = game.current_player(s)
            if cp == TERMINAL:
                break
            options = game.chance_outcomes(s) if cp == CHANCE else dist(game, s)
            acts = [a for a, _ in options]
            a = acts[0] if len(acts) == 1 else rng.choices(acts, [float(p) for _, p in options])[0]
            if s.phase == Phase.ROLL:
                turns += 1
            elif s.phase in (Phase.LUCK, Phase.BAD):
                counts[a[0]] += 1
            elif s.phase == Phase.FIRST and a >= 0:
                counts[FIRST_STEAL] += 1
            s = game.apply(s, a)
        out["turns"].append(turns)
        out["first"].append(s.order[0] if s.order else -1)
        out["own"].append([int(g == i) for i, g in enumerate(s.gift)])
        out["counts"].append(counts)
    return {k: np.array(v) for k, v in out.items()}


@pytest.mark.parametrize("policy, rulings", [
    ("eager", {"P06": "ahead", "P17": "two"}),
    ("random", {"P06": "ahead", "P17": "two"}),
    ("eager", {"P03": "bounce", "P04": "keep", "P18": "eligible", "P02": "swap-both"}),
    ("passive", {"P11": "random", "P16": "first-gift"}),
    ("eager", {"P05": "printed-order", "P07": "own-leader", "P08": "behind", "P14": "steal",
               "P15": "pick"}),
    ("random", {"P08": "behind", "P14": "steal", "P15": "pick", "P07": "own-leader"}),
    ("random", {"P20": "gift-holder-ahead", "P34": "one-list", "P14": "steal"}),
])
def test_simulator_matches_protocol_playout_with_host_events_and_alternatives(policy, rulings):
    rs = load_ruleset_file(EXAMPLE).with_overrides({"players": 4, "host_remove": [[9, 2]]},
                                                    rulings, spec=SPEC.schema)
    game = SPEC.build(rs)
    ref = protocol_playout(game, 1500, seed=3, policy=policy)
    sim = run_games(game.rules, 6000, seed=4, policy=policy)
    n1, n2 = len(ref["turns"]), len(sim["turns"])

    def agree(x_ref, x_sim):
        se = math.sqrt(x_ref.var() / n1 + x_sim.var() / n2) + 1e-9
        return close(x_ref.mean(), x_sim.mean(), se, 4.5)

    assert agree(ref["turns"], sim["turns"])
    for i in range(4):
        assert agree((ref["first"] == i).astype(float), (sim["rank"][:, i] == 0).astype(float))
        assert agree(ref["own"][:, i].astype(float), (sim["gift"][:, i] == i).astype(float))
    for j, name in enumerate(COUNTERS):
        assert agree(ref["counts"][:, j].astype(float), sim["counts"][:, j].astype(float)), name
    # every effect fires in this scenario, so the comparison covers each one
    assert (sim["counts"][:, :int(Effect.NOTHING)].sum(axis=0) > 0).all()
    # the last player's gift (P04 keep may leave none) agrees too
    assert agree((ref["own"].sum(axis=1)).astype(float), (sim["gift"] == np.arange(4)).sum(axis=1).astype(float))


def test_seeded_reproducibility_and_simulator_output():
    rs = SPEC.default().with_overrides({"players": 8, "board": "curta", "dice": 2}, spec=SPEC.schema)
    calls = []
    a = simulate_playouts(rs, 300, 7, None, lambda d, t: calls.append((d, t)))
    b = simulate_playouts(rs, 300, 7, "eager", None)
    c = simulate_playouts(rs, 300, 8, None, None)
    assert a == b and a != c
    assert calls[-1] == (300, 300)
    turns = a.metrics["turns"]
    assert turns["n"] == 300 and turns["ci95"][0] < turns["mean"] < turns["ci95"][1]
    assert len(a.seats) == 8 and set(a.extras["effects_per_game"]) == set(COUNTERS)
    json.dumps([a.seats, a.metrics, a.extras])  # JSON-able


def test_thirty_two_players_every_board_runs():
    for board in ("curta", "media", "longa"):
        rules, _ = rules_of(SPEC.default().with_overrides({"players": 32, "board": board, "dice": 2},
                                                          spec=SPEC.schema))
        raw = run_games(rules, 64, seed=1)
        s = summarise(rules, raw)
        assert s["games"] == 64 and (raw["rank"] >= 0).all()  # everyone arrives
        gifts = np.sort(raw["gift"], axis=1)
        assert (gifts == np.arange(32)).all()  # every gift ends with exactly one player


def _roll_states(game, count, seed):
    """ROLL states met along seeded random playouts of the protocol game."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        s = game.initial_state()
        while game.current_player(s) != TERMINAL:
            if s.phase == Phase.ROLL and rng.random() < 0.15:
                found.append(s)
            options = game.chance_outcomes(s) if game.current_player(s) == CHANCE else \
                POLICY_DISTS["eager"](game, s)
            s = game.apply(s, rng.choices([a for a, _ in options], [float(p) for _, p in options])[0])
    return found[:count]


@pytest.mark.parametrize("players, policy, rulings", [
    (2, "eager", {}), (4, "eager", {}),
    (4, "random", {"P03": "bounce", "P18": "eligible", "P16": "first-gift", "P17": "two"}),
    (3, "passive", {"P11": "random", "P02": "gift-only", "P06": "ahead", "P04": "keep"}),
    (3, "eager", {"P05": "printed-order", "P07": "own-leader", "P08": "behind", "P14": "steal",
                  "P15": "pick"}),
    (4, "random", {"P08": "behind", "P14": "steal", "P15": "pick", "P07": "own-leader", "P17": "two"}),
    (4, "random", {"P20": "gift-holder-ahead", "P34": "one-list", "P07": "own-leader"}),
    (2, "passive", {"P05": "printed-order", "P08": "behind", "P14": "steal", "P15": "pick",
                    "P16": "first-gift"}),
])
def test_one_turn_of_the_simulator_follows_the_exact_turn_kernel(players, policy, rulings):
    """Step-level agreement: from the same state, one simulated turn lands only on outcomes the
    protocol's exact turn kernel allows, with frequencies within 4.5 standard errors."""
    rs = load_ruleset_file(EXAMPLE).with_overrides({"players": players, "host_skip": []},
                                                    {"P02": "swap-both", **rulings}, spec=SPEC.schema)
    game = SPEC.build(rs)
    _one_turn_agrees(game, policy, _roll_states(game, 12, seed=players))


#: hand-drawn board: 0 . 1 . 2 * 3 x 4 . 5 s 6 * 7 . 8 x 9 . 10 * 11 s 12 . 13 x 14 * 15 . (finish)
CHOSEN = [
    # P14: P0 giftless with its first-gift choice unused, 3..6 finishes; P1 and P2 hold gifts
    ([13, 4, 9], [-1, 1, 2], 0b110),
    # P07: P0 leads holding a gift; rolls of 1 and 5 land on ★ 6 and ★ 10
    ([5, 2, 2], [0, 1, -1], 0b111),
    # P08: a roll of 2 lands on ☠ 8 with P1 and P2 tied behind on 4 (only P1 holds a gift)
    ([6, 4, 4], [0, 1, -1], 0b111),
]


@pytest.mark.parametrize("policy", ["eager", "passive", "random"])
def test_one_turn_from_chosen_states_with_the_new_alternatives(policy):
    from ruleproof.model.presentes.rules import St
    rs = load_ruleset_file(EXAMPLE).with_overrides(
        {"players": 3, "host_skip": []}, {"P02": "swap-both", "P07": "own-leader", "P08": "behind",
                                          "P14": "steal", "P15": "pick"}, spec=SPEC.schema)
    game = SPEC.build(rs)
    states = []
    for pos, gift, used in CHOSEN:
        tree = sum(1 << g for g in range(3) if g not in gift)
        states.append(St(Phase.ROLL, 0, 0, 0, tree, used, 0, tuple(pos), tuple(gift), ()))
    _one_turn_agrees(game, policy, states)


#: P20 and P34 situations on the hand-drawn board, 3 players, P0 to roll from square 1 (1: ★ 2,
#: 5: ★ 6) or, giftless with its first-gift choice unused, from 0 (1: the ordinary square 1)
CHOSEN_P20_P34 = [
    ([1, 9, 7], [0, -1, 2], 0b111),   # the leader P1 has no gift, P2 behind it has one
    ([1, 9, 9], [-1, 1, -1], 0b111),  # P1 and P2 tied in the lead, only P1 holds a gift
    ([0, 4, 9], [-1, 1, 2], 0b110),   # the first-gift question with two possible victims
]


@pytest.mark.parametrize("policy", ["eager", "passive", "random"])
@pytest.mark.parametrize("rulings", [{}, {"P20": "gift-holder-ahead", "P34": "one-list"},
                                     {"P20": "tied-leader-with-gift"}])
def test_one_turn_from_chosen_states_p20_p34(policy, rulings):
    from ruleproof.model.presentes.rules import St
    rs = load_ruleset_file(EXAMPLE).with_overrides({"players": 3, "host_skip": []},
                                                    {"P02": "swap-both", **rulings}, spec=SPEC.schema)
    game = SPEC.build(rs)
    states = []
    for pos, gift, used in CHOSEN_P20_P34:
        tree = sum(1 << g for g in range(3) if g not in gift)
        states.append(St(Phase.ROLL, 0, 0, 0, tree, used, 0, tuple(pos), tuple(gift), ()))
    _one_turn_agrees(game, policy, states)


def _one_turn_agrees(game, policy, states):
    from ruleproof.model.presentes.exact import TurnChain
    from ruleproof.model.presentes.simulate import Batch
    chain = TurnChain(game, lambda s: POLICY_DISTS[policy](game, s), build=False)
    G = 3000
    for k, s in enumerate(states):
        exact: dict = {}
        for t, p in chain.turn_kernel(s).items():
            exact[(t.pos, t.gift)] = exact.get((t.pos, t.gift), 0) + float(p)
        b = Batch(game.rules, G, np.random.default_rng(k), policy).load(s)
        b.step(10**6)  # a slot with no host event
        seen: dict = {}
        for row in range(G):
            key = (tuple(int(x) for x in b.pos[row]), tuple(int(x) for x in b.gift[row]))
            seen[key] = seen.get(key, 0) + 1
        assert set(seen) <= set(exact), game.describe_state(s)
        for key, p in exact.items():
            assert close(seen.get(key, 0) / G, p, math.sqrt(p * (1 - p) / G) + 1e-9, 4.5), key
