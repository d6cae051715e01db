"""Exact analysis: hand-computed boards, and the turn-start chain against the generic solver."""
from fractions import Fraction as F

import pytest

from ruleproof.model.presentes import SPEC
from ruleproof.model.presentes.analysis import quantile
from ruleproof.solver.analysis import solve_ruleset
from ruleproof.model.presentes.exact import analyse
from ruleproof.model.presentes.policies import POLICY_DISTS
from ruleproof.model.protocol import CHANCE, Game
from ruleproof.solver.explore import explore
from ruleproof.solver.solve import solve


def build(tmp_path, layout=None, **params):
    if layout is not None:
        path = tmp_path / "board.txt"
        path.write_text(layout)
        params["board"] = str(path)
    return SPEC.build(SPEC.default().with_overrides(params, spec=SPEC.schema))


def test_four_plain_squares_by_hand(tmp_path):
    """Board '. . . .' (finish = square 3), 2 players, 1 die, eager policy.

    P0 finishes on the first roll with 3..6: P(T=1) = 4/6. Otherwise P0 stands on 1 or 2 and P1
    finishes with 3..6: P(T=2) = 1/3 * 2/3 = 2/9. Otherwise both stand on 1 or 2 (each 1/2): P0
    finishes from 2 surely and from 1 with 5/6: P(T=3) = 1/9 * 11/12 = 11/108. Left: P0 rolled 1
    from 1 (1/108), now on 2: P1 finishes with 11/12: P(T=4) = 11/1296; and then P0 surely:
    P(T=5) = 1/1296. Mean = (864 + 2*288 + 3*132 + 4*11 + 5) / 1296 = 1885/1296. P0 finishes first
    when T is odd: (864 + 132 + 1) / 1296 = 997/1296. Gifts are drawn blind, so each seat ends
    with its own gift with probability 1/2.
    """
    g = build(tmp_path, ". . . .", players=2)
    res = analyse(g, horizon=8, focal=None)
    assert res["turn_distribution"][:6] == [0, F(2, 3), F(2, 9), F(11, 108), F(11, 1296), F(1, 1296)]
    assert res["tail_after_horizon"] == 0
    assert res["mean_turns"] == F(1885, 1296)
    assert res["first"] == [F(997, 1296), F(299, 1296)]
    assert res["own_gift"] == [F(1, 2), F(1, 2)]


class PolicyFixed(Game):
    """The game with every decision replaced by the policy's choice, as a chance node; returns are
    (finished first, own gift) per seat, so the generic solver computes absorption probabilities."""

    name = "fixed"

    def __init__(self, inner, policy):
        self.inner, self.policy = inner, policy
        self.num_players = 2 * inner.num_players

    def initial_state(self):
        return self.inner.initial_state()

    def current_player(self, s):
        cp = self.inner.current_player(s)
        return CHANCE if cp >= 0 else cp

    def legal_actions(self, s):
        return []

    def chance_outcomes(self, s):
        if self.inner.current_player(s) >= 0:
            return self.policy(self.inner, s)
        return self.inner.chance_outcomes(s)

    def apply(self, s, a):
        return self.inner.apply(s, a)

    def returns(self, s):
        n = self.inner.num_players
        return tuple(F(int(bool(s.order) and s.order[0] == i)) for i in range(n)) + \
            tuple(F(int(s.gift[i] == i)) for i in range(n))

    def key(self, s):
        return self.inner.key(s)

    def from_key(self, k):
        return self.inner.from_key(k)


NEW_ALTERNATIVES = {"P05": "printed-order", "P07": "own-leader", "P08": "behind", "P14": "steal",
                    "P15": "pick"}


@pytest.mark.parametrize("policy, board, players, rulings", [
    ("eager", "tiny", 2, {}), ("random", "tiny", 2, {}), ("passive", "mini", 2, {}),
    ("eager", "tiny", 2, NEW_ALTERNATIVES), ("random", "mini", 2, NEW_ALTERNATIVES),
    pytest.param("eager", "tiny", 3, {}, marks=pytest.mark.slow)])
def test_turn_chain_agrees_with_the_generic_exact_solver(policy, board, players, rulings):
    g = SPEC.build(SPEC.default().with_overrides({"board": board, "players": players}, rulings,
                                                 spec=SPEC.schema))
    fixed = PolicyFixed(g, POLICY_DISTS[policy])
    sol = solve(explore(fixed), exact=True)
    ours = analyse(g, policy=policy, horizon=0)
    assert list(sol.initial_exact) == ours["first"] + ours["own_gift"]


def test_focal_seat_policy_iteration_beats_the_baseline_and_is_a_fixed_point():
    g = build(None, board="mini", players=2)
    base = analyse(g, focal=None, horizon=0)
    best = analyse(g, focal=0, horizon=0)
    assert best["utility"][0] > base["utility"][0]
    # with 2 players and the default values both seats gain together (they end swapped or not)
    assert best["utility"][0] == best["utility"][1] == 1 - best["own_gift"][0]
    # the optimal first-gift choice with P1 holding g0 and g1 under the tree is the tree
    assert any("take from the tree" in g.describe_action(s, a) and s.gift[1] == 0
               for s, a in best["chosen"].items())


def test_solve_engine_output_and_files(tmp_path):
    rs = SPEC.ruleset("presentes-mini")
    out = solve_ruleset(rs, out_dir=tmp_path).doc()
    assert out["exact"] and out["states"] > 1000 and out["engine"] == "markov-chain"
    v = [F(x["fraction"]) for x in out["values"]]
    assert v[0] == v[1] and 0 < v[0] < 1
    assert F(out["extras"]["mean_turns"]["fraction"]) > 4
    assert sum(F(x["fraction"]) for x in out["extras"]["finish_first"]) == 1
    assert {p.split("/")[-1] for p in out["files"]} >= {"turn_distribution.csv", "play_table.csv",
                                                         "summary.json", "turns.png"}


def test_quantile_helper():
    dist = [F(0), F(1, 2), F(1, 4), F(1, 4)]
    assert quantile(dist, F(1, 2)) == 1 and quantile(dist, F(3, 4)) == 2 and quantile(dist, F(1)) == 3


@pytest.mark.slow
def test_two_players_on_curta_exactly():
    g = build(None, players=2, board="curta", dice=1)
    res = analyse(g, focal=None, horizon=120)
    assert res["states"] > 20_000 and sum(res["turn_distribution"]) + res["tail_after_horizon"] == 1
    assert 19 < res["mean_turns"] < 21


@pytest.mark.parametrize("p03,focal", [("reach-or-pass", 0), ("bounce", None)])
def test_float_mode_agrees_with_exact_within_1e_9(p03, focal):
    """``--float`` (sparse LU, float turn distribution, float policy iteration) against the exact
    figures on the tiny board, with the focal seat optimising and under the long cycles of P03."""
    game = SPEC.build(SPEC.default().with_overrides({"board": "tiny", "players": 2, "dice": 1},
                                                    {"P03": p03}, spec=SPEC.schema))
    exact = analyse(game, horizon=80, focal=focal, effects=True)
    approx = analyse(game, horizon=80, focal=focal, effects=True, exact=False)
    assert isinstance(exact["mean_turns"], F) and isinstance(approx["mean_turns"], float)
    for key in ("first", "own_gift", "utility", "effects_per_game", "turn_distribution"):
        assert len(exact[key]) == len(approx[key]), key
        for e, a in zip(exact[key], approx[key]):
            assert abs(float(e) - a) < 1e-9, key
    assert abs(float(exact["mean_turns"]) - approx["mean_turns"]) < 1e-9
    assert abs(float(exact["tail_after_horizon"]) - approx["tail_after_horizon"]) < 1e-9
    assert exact["chosen"] == approx["chosen"]


def test_solve_engine_honours_float():
    from ruleproof.model.seams import SolveOptions
    from ruleproof.model.presentes.analysis import solve_chain
    rs = SPEC.default().with_overrides({"board": "mini", "players": 2, "dice": 1, "focal_seat": 0},
                                       spec=SPEC.schema)
    exact = solve_chain(rs, SolveOptions(exact=None), None)
    approx = solve_chain(rs, SolveOptions(exact=False), None)
    assert exact.exact is True and approx.exact is False
    assert "floating point" in approx.method and "rational" in exact.method
    assert all(isinstance(v, F) for v in exact.values) and all(isinstance(v, float) for v in approx.values)
    for e, a in zip(exact.values, approx.values):
        assert abs(float(e) - a) < 1e-9
    for key in ("finish_first", "own_gift"):
        for e, a in zip(exact.extras[key], approx.extras[key]):
            assert "/" in e["fraction"] or e["fraction"].lstrip("-").isdigit()
            assert a["fraction"] is None and abs(e["float"] - a["float"]) < 1e-9
    assert abs(exact.extras["mean_turns"]["float"] - approx.extras["mean_turns"]["float"]) < 1e-9
    assert exact.extras["turn_quantiles"] == approx.extras["turn_quantiles"]
