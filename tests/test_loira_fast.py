"""The specialised C solver agrees with the exact rational solver on small configurations."""
from __future__ import annotations

import random

import pytest

from ruleproof.model.loira import SPEC, fast
from ruleproof.model.loira.exact import solve
from test_loira_helpers import game

CONFIGS = [
    {"deck": ["F1"], "stalls": [], "centre_rolls": 0},
    {"deck": ["F1", "grito"], "stalls": [], "centre_rolls": 0},
    {"deck": ["F1", "F2", "M1", "M2", "grito", "grito"], "stalls": [2, 4], "centre_rolls": 1},
    dict(SPEC.verify_overrides),
    {"deck": ["F1", "P2", "grito", "chute", "espelho", "interruptor"], "stalls": [2, 3], "rolls": [1, 0],
     "centre_rolls": 0},
    {"deck": ["F-", "F1", "F2", "grito", "grito", "toc-toc", "descarga"], "stalls": [3, 3],
     "rolls": [0, 1], "centre_rolls": 1, "first_seat": 1},
]


def _available():
    try:
        fast._library()
    except fast.FastUnavailable as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("params", CONFIGS)
def test_fast_solver_matches_exact(params):
    _available()
    g = game(params)
    exact = solve(g).value(g.initial_state())[0]
    res = fast.solve(g.cfg)
    assert res["value"] == pytest.approx(float(exact), abs=1e-12)
    assert res["states"] > 0 and res["table_bytes"] >= 24 * res["states"]


def test_fast_solver_random_small_decks():
    _available()
    rng = random.Random(4)
    pool = ["F-", "F1", "F2", "P1", "P2", "M1", "M2", "grito", "toc-toc", "interruptor", "chute",
            "descarga", "fios", "espelho"]
    for _ in range(6):
        params = {"deck": rng.sample(pool, 5), "stalls": rng.sample([2, 3, 4, 4], rng.randint(0, 3)),
                  "rolls": [rng.randint(0, 1), rng.randint(0, 1)], "centre_rolls": rng.randint(0, 2)}
        g = game(params)
        exact = solve(g).value(g.initial_state())[0]
        assert fast.solve(g.cfg)["value"] == pytest.approx(float(exact), abs=1e-12), params


def test_unsupported_configurations_are_refused():
    assert fast.supports(game({"players": 3}).cfg)
    # L25 reshuffle can arise only on a deck with fewer than 3 Gritos; the C engine lacks the discards
    assert "L25=reshuffle" in fast.supports(game({"deck": ["F1", "grito"]}, {"L25": "reshuffle"}).cfg)
    assert fast.supports(game(rulings={"L04": "bathroom-cards"}).cfg) is None
    assert "Merendeira" in fast.supports(game({"expansions": ["merendeira"]}).cfg)
    assert fast.supports(game({"expansions": ["ralo", "tia"]}).cfg) is None
    assert fast.supports(game().cfg) is None


def test_fast_solver_limits_raise():
    # the full base round is far beyond either limit: both stop with FastLimit, quickly
    _available()
    import time
    start = time.perf_counter()
    with pytest.raises(fast.FastLimit, match="state limit"):
        fast.solve(game().cfg, max_states=1000)
    with pytest.raises(fast.FastLimit, match="time limit"):
        fast.solve(game().cfg, timeout=0.2)
    assert time.perf_counter() - start < 5


EXACT_CASES = [(c, {}) for c in CONFIGS] + [
    (dict(SPEC.verify_overrides), {"L29": "optional", "L18": "opener"}),
    (dict(SPEC.verify_overrides), {"L03": "grito-only", "L08": "no-escape", "L33": "invitee"}),
    ({"deck": ["F-", "F1", "M2", "grito", "interruptor", "chute", "espelho"], "stalls": [2, 3],
      "rolls": [1, 1], "centre_rolls": 0}, {"L13": "also-stopped", "L30": "also-when-drawn",
                                             "L05": "with-interruptor", "L07": "no"}),
    ({"deck": ["F1", "F2", "M1", "grito", "aluna", "zelador", "diretora"], "stalls": [2, 4], "rolls": [1, 0],
      "centre_rolls": 1}, {"L18": "opener"}),
]


@pytest.mark.parametrize("params,rulings", EXACT_CASES)
def test_exact_forms_give_the_exact_solvers_fraction(params, rulings):
    # two ways: model/loira/exact.py (Fractions over every node) and the C engine's forms
    _available()
    g = game(params, rulings)
    expect = solve(g).value(g.initial_state())[0]
    res = fast.solve_exact(g.cfg)
    assert res["fraction"] == expect
    assert res["value"] == pytest.approx(float(expect), abs=1e-12)


def test_exact_verify_configuration_known_value():
    # docs/loira.md: the verify configuration U = 101/560 (exact generic solver)
    _available()
    from fractions import Fraction
    assert fast.solve_exact(game(dict(SPEC.verify_overrides)).cfg)["fraction"] == Fraction(101, 560)
