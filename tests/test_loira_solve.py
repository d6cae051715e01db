"""Loira solving: the game-specific exact solver against the generic one, Monte Carlo under the
optimal policy against the exact value, policy regret, the engines and simulation metrics."""
from __future__ import annotations

import random
from fractions import Fraction

import pytest

from ruleproof.model.loira import SPEC
from ruleproof.model.loira.exact import regret, solve
from ruleproof.solver.montecarlo import simulate_ruleset
from ruleproof.model.loira.policies import POLICIES
from ruleproof.solver.explore import explore
from ruleproof.solver.montecarlo import playout
from ruleproof.solver.solve import solve as generic_solve
from test_loira_helpers import game, ruleset

MINI = {"deck": ["F1", "F2", "M1", "M2", "grito", "grito"], "stalls": [2, 4], "centre_rolls": 1}
CONFIGS = [
    MINI,
    dict(SPEC.verify_overrides),
    {"players": 3, "deck": ["F1", "F2", "grito", "toc-toc", "fios"], "stalls": [3], "centre_rolls": 1},
    {"deck": ["F1", "P2", "grito", "chute", "espelho", "interruptor"], "stalls": [2, 3], "rolls": [1, 0],
     "centre_rolls": 0},
]


@pytest.mark.parametrize("params", CONFIGS)
def test_exact_solver_matches_generic_solver(params):
    g = game(params)
    ours = solve(g).value(g.initial_state())
    theirs = generic_solve(explore(g), exact=True).initial_exact
    assert ours == theirs


def test_monte_carlo_under_optimal_play_matches_exact_value():
    g = game(MINI)
    sol = solve(g)
    exact = sol.value(g.initial_state())[0]        # 46/405 (see test above: both solvers agree)
    rng = random.Random(11)
    games, total, sq = 4000, 0.0, 0.0
    policy = {0: sol.best_action, 1: sol.best_action}
    for _ in range(games):
        ret = playout(g, policy, rng).returns
        u = float(ret[0])
        total, sq = total + u, sq + u * u
    mean = total / games
    half = 1.96 * ((sq / games - mean * mean) / games) ** 0.5
    assert abs(mean - float(exact)) <= half


def test_policy_regret_is_nonnegative_and_lookahead_beats_simple_rules():
    g = game(MINI)
    opt = solve(g)
    regrets = {name: regret(g, POLICIES[name], opt) for name in ("lookahead", "lead", "stop-at-3")}
    for name, per_seat in regrets.items():
        assert all(r["regret"] >= 0 for r in per_seat.values()), name
    total = {name: sum(r["regret"] for r in per_seat.values()) for name, per_seat in regrets.items()}
    assert total["lookahead"] < total["lead"] and total["lookahead"] < total["stop-at-3"]


def test_simulate_metrics_and_picture(tmp_path):
    res = simulate_ruleset(ruleset(MINI), 200, 5, "lookahead:stop-at-5")
    assert res["games"] == 200 and res["seat_policies"] == ["lookahead", "stop-at-5"]
    seats, overall = res["seats"], res["metrics"]
    p0, p1, tie = (seats[0]["wins_outright"]["mean"], seats[1]["wins_outright"]["mean"],
                   overall["shared_win"]["mean"])
    assert abs(p0 + p1 + tie - 1) < 1e-9
    assert seats[0]["utility"]["mean"] == pytest.approx(p0 - p1)
    g = game(MINI)
    sol = generic_solve(explore(g))
    path = SPEC.picture(g, sol, tmp_path / "policy.png")
    assert path.exists() and path.stat().st_size > 1000


def test_cli_solve_and_verify_exit_codes(tmp_path):
    import json
    from pathlib import Path

    from typer.testing import CliRunner

    from ruleproof.cli import app
    examples = Path(__file__).resolve().parent.parent / "model" / "loira" / "examples"
    runner = CliRunner()
    res = runner.invoke(app, ["solve", str(examples / "three-players-l04.toml"), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["game"] == "loira" and doc["values"][0]["fraction"] is not None
    assert sum(float(v["float"]) for v in doc["values"]) == pytest.approx(1.0)
    bad = runner.invoke(app, ["solve", str(examples / "bad-ruling.toml")])
    assert bad.exit_code == 2 and "L04" in bad.output
    out = runner.invoke(app, ["simulate", "loira-mini", "--games", "50", "--policy", "nope"])
    assert out.exit_code == 2


def test_stop_table_is_reproducible_and_close_to_optimal():
    from ruleproof.model.loira.table import load_table, train
    assert train() == load_table()          # the stored table is exactly what training gives
    g = game(MINI)
    r = regret(g, POLICIES["table"], solve(g))
    assert all(0 <= v["regret"] <= Fraction(1, 20) for v in r.values())
