"""Play evaluation: exact win probabilities over every deal, cross-checked two ways."""
from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations

import pytest

from ruleproof.model.bomb_busters import SPEC
from ruleproof.model.bomb_busters.game import build
from ruleproof.model.bomb_busters import rules as R
from ruleproof.model.bomb_busters import tiles as T
from ruleproof.model.bomb_busters.policy import POLICIES, exact_win_probability, likely
from ruleproof.model.bomb_busters.state import Phase, State
from ruleproof.model.protocol import TERMINAL
from ruleproof.model.ruleset import RulesetError
from ruleproof.model.seams import SolveOptions
from ruleproof.solver.analysis import solve_ruleset
from ruleproof.solver.montecarlo import playout, simulate_ruleset, wilson


def simulate(rs, games, seed, policy):
    out = simulate_ruleset(rs, games, seed, policy)
    return {**out, **out["metrics"]}


def ruleset(**over):
    return SPEC.default().with_overrides(over, spec=SPEC.schema, source="test")


def _partitions(labels, sizes):
    if not sizes:
        yield []
        return
    for chosen in combinations(labels, sizes[0]):
        rest = tuple(x for x in labels if x not in chosen)
        for tail in _partitions(rest, sizes[1:]):
            yield [chosen] + tail


def win_by_enumerating_deals(game, policy) -> Fraction:
    """Independent of the game's chance nodes: every set-aside choice and every labelled deal,
    equally likely, each played out with the (deterministic) policy."""
    m = game.mission
    reds = tuple(map(T.red, m.red_values))
    yellows = tuple(map(T.yellow, m.yellow_values))
    wins = total = 0
    for red_in in combinations(reds, m.red_in_play):
        for yellow_in in combinations(yellows, m.yellow_in_play):
            tiles = m.blue_tiles() + list(red_in) + list(yellow_in)
            aside = tuple(sorted(set(reds + yellows) - set(red_in + yellow_in)))
            for deal in _partitions(tuple(range(len(tiles))), list(m.sizes())):
                racks = tuple(tuple(sorted(tiles[i] for i in rack)) for rack in deal)
                s = R.start_tokens(m, State(Phase.DEAL, 0, 0, reds, yellows, aside, racks))
                while game.current_player(s) != TERMINAL:
                    s = game.apply(s, policy(s))
                wins += s.phase == Phase.WON
                total += 1
    return Fraction(wins, total)


@pytest.mark.parametrize("name", ["bomb-busters-tiny", "bomb-busters-tiny-3"])
def test_exact_value_agrees_with_deal_enumeration(name):
    game = build(SPEC.ruleset(name))
    for factory in (POLICIES["likely"], POLICIES["likely-equipment"]):
        exact, _ = exact_win_probability(game, factory(game))
        assert exact == win_by_enumerating_deals(game, factory(game))


def test_regression_values():
    # computed by exact_win_probability and cross-checked above; kept as regression figures
    tiny = build(SPEC.ruleset("bomb-busters-tiny"))
    assert exact_win_probability(tiny, likely(tiny))[0] == Fraction(9, 10)
    three = build(SPEC.ruleset("bomb-busters-tiny-3"))
    assert exact_win_probability(three, likely(three))[0] == Fraction(31, 35)


def test_hand_computed_everything_is_shown():
    # 4 experts, one rack each, tiles 1 1 2 2 and the red 1.5: racks of 2, 1, 1, 1 wires.
    # Set-up tokens show every blue wire of the one-wire racks and one of the captain's; a
    # one-wire player without a token shows by that alone that the wire is red (the token is
    # compulsory on a blue wire). Every player can then count the rest: all cuts are certain, so
    # "most likely cut" wins every deal even though the first failure explodes (skull 1): 1.
    game = build(ruleset(players=4, blue_values=2, blue_copies=2, red_in_play=1, red_drawn=1,
                         red_values=[1], yellow_in_play=0, yellow_drawn=0, detonator=1,
                         equipment=[], detector_duplo=False))
    value, _ = exact_win_probability(game, likely(game))
    assert value == 1


def test_monte_carlo_agrees_with_the_exact_value():
    rs = SPEC.ruleset("bomb-busters-tiny-3")
    out = simulate(rs, 1000, 0, "likely")
    exact = 31 / 35
    # within 3.5 standard errors (a false alarm about once in 2,000 seeds)
    assert abs(out["win_rate"]["mean"] - exact) <= 3.5 * (exact * (1 - exact) / 1000) ** 0.5
    lo, hi = out["win_rate"]["ci95"]
    assert lo < out["win_rate"]["mean"] < hi and out["games"] == 1000 and out["policy"] == "likely"
    assert simulate(rs, 50, 0, "likely")["win_rate"] == simulate(rs, 50, 0, "likely")["win_rate"]  # seeded


def test_simulate_full_size_and_bad_policy():
    out = simulate(SPEC.default(), 2, 1, None)
    assert out["games"] == 2 and set(out["win_rate"]) >= {"mean", "ci95"}
    with pytest.raises(RulesetError):
        simulate(SPEC.default(), 1, 1, "psychic")


def test_wilson_interval():
    est = wilson(50, 100)
    assert est.low < 0.5 < est.high and abs((est.low + est.high) / 2 - 0.5) < 1e-9
    assert wilson(0, 10).low == 0.0


def test_policy_only_makes_legal_moves():
    game = build(ruleset(players=3))
    pol = POLICIES["likely-equipment"](game)
    rng = random.Random(2)
    play = playout(game, {seat: (lambda st: _checked(game, pol, st)) for seat in range(3)}, rng)
    turns = [m for m in SPEC.metrics if m.name == "turns"][0].of(game, play)
    assert play.final.phase in (Phase.WON, Phase.LOST) and 0 < turns <= len(play.decisions)


def _checked(game, pol, s):
    a = pol(s)
    assert a in game.legal_actions(s)
    return a


def test_solve_engine_on_a_tiny_mission(tmp_path):
    solved = solve_ruleset(SPEC.ruleset("bomb-busters-tiny"), out_dir=tmp_path)
    res = solved.doc()
    assert [v["fraction"] for v in res["values"]] == ["9/10", "9/10"]
    assert res["engine"] == "policy-evaluation" and res["meaning"] == "policy-value" and res["exact"]
    assert res["extras"]["policies"]["likely-equipment"]["fraction"] == "29/30"
    # nobody beats the team that sees every wire; here that team always wins
    assert res["extras"]["perfect_information_bound"]["fraction"] == "1"
    assert (tmp_path / "policy_values.csv").exists() and (tmp_path / "policy_values.json").exists()
    with pytest.raises(RulesetError, match="27 wires|wires: exact policy values"):
        solve_ruleset(SPEC.default())
    assert "wires" in SPEC.engines[0].applies(SPEC.default(), SolveOptions())


def test_deduce_text_hook():
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "model" / "bomb_busters" / "examples" / "slot-next-to-2.json"
    text = SPEC.deduction.text(SPEC.deduction.run(path))
    assert "bia rack 0 slot  0 is      1: success 0.6667 = 2/3" in text
