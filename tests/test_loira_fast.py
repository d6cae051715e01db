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
    assert fast.supports(game({"players": 3}).cfg) is None   # 3+ players: max^n (stop 20)
    assert fast.supports(game({"players": 3, "objective": "match"}).cfg) == (
        "the C engine's match is for 2 players, not 3 (a round it solves)")
    assert fast.supports(game(rulings={"L04": "bathroom-cards"}).cfg) is None
    # the key keeps the seats apart there (stop 19; refused before)
    assert fast.supports(game({"deck": ["F1", "grito"], "rolls": [1, 0]},
                              {"L25": "reshuffle", "L09": "round-rolls"}).cfg) is None
    assert fast.supports(game({"expansions": ["tia"]}).cfg) is None
    # two mini-expansion kinds: the C engine would know a closed card's kind (issue 21)
    assert "2 kinds (tia, ralo)" in fast.supports(game({"expansions": ["ralo", "tia"]}).cfg)
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
    ({"deck": ["F1", "F2", "M1", "grito", "aluna", "aluna", "toc-toc"], "stalls": [2, 4], "rolls": [1, 0],
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
    # model/loira/README.md: the verify configuration U = 101/560 (exact generic solver)
    _available()
    from fractions import Fraction
    assert fast.solve_exact(game(dict(SPEC.verify_overrides)).cfg)["fraction"] == Fraction(101, 560)


# the discard pile shuffled back: Merendeira (acyclic, exact forms) and L25 reshuffle (cycles)
MERENDEIRA = {"deck": ["F1", "F2", "M1", "grito", "grito", "merendeira", "descarga"], "stalls": [2, 4],
              "centre_rolls": 1}


@pytest.mark.parametrize("l14", ["per-round", "merendeira-resets"])
def test_merendeira_exact_forms_match_the_exact_solver(l14):
    _available()
    g = game(MERENDEIRA, {"L14": l14})
    exact = solve(g).value(g.initial_state())[0]
    res = fast.solve_exact(g.cfg)
    assert res["fraction"] == exact and res["value"] == pytest.approx(float(exact), abs=1e-12)


# decks that run out under L25 reshuffle; some states recur (a Descarga or a Zelador sends back
# the card drawn), then value-iteration sweeps settle them. Values from the generic pipeline.
RESHUFFLE = [
    {"deck": ["F1", "F2", "toc-toc", "grito"], "stalls": [2], "centre_rolls": 1},
    {"deck": ["F1", "zelador", "zelador"], "stalls": [2], "centre_rolls": 1},
    {"deck": ["M2", "F2", "merendeira", "toc-toc", "descarga"], "stalls": [4, 3], "rolls": [1, 1], "centre_rolls": 0},
    {"deck": ["F1", "F2", "grito", "merendeira", "descarga"], "stalls": [2, 3], "centre_rolls": 1},
]


@pytest.mark.parametrize("params", RESHUFFLE)
def test_reshuffle_matches_the_generic_pipeline(params):
    _available()
    from ruleproof.solver.analysis import solve_ruleset
    from test_loira_helpers import ruleset
    g = game(params, {"L25": "reshuffle"})
    res = fast.solve(g.cfg)
    generic = solve_ruleset(ruleset(params, {"L25": "reshuffle"}), engine="generic", exact=False).doc()
    assert res["value"] == pytest.approx(generic["values"][0]["float"], abs=1e-12)
    assert res["residual"] < 1e-14


def test_reshuffle_sweeps_settle_recurring_states():
    _available()
    res = fast.solve(game(RESHUFFLE[1], {"L25": "reshuffle"}).cfg)
    assert res["cycle_reads"] > 0 and res["sweeps"] > 5    # measured: 60 reads, 81 sweeps
    assert res["value"] == pytest.approx(0.2, abs=1e-12)    # the generic pipeline: 1/5


def test_merendeira_resets_cycles_match_the_generic_pipeline():
    """L14 merendeira-resets with L25 reshuffle: large components with decisions inside, settled by
    summing their tapes (fast_solver.c close_component) instead of searching every turn again."""
    _available()
    from ruleproof.solver.analysis import solve_ruleset
    from test_loira_helpers import ruleset
    params = {"deck": ["F1", "F2", "grito", "toc-toc", "descarga", "merendeira"], "stalls": [2, 4],
              "centre_rolls": 1}
    rulings = {"L14": "merendeira-resets", "L25": "reshuffle"}
    res = fast.solve(game(params, rulings).cfg)
    # measured: 18,694 turn states, 2,730 of them in cycles, 905 sweeps; the generic pipeline's
    # 289,908 nodes give 0.08464732876643424
    assert res["states_swept"] > 1000 and res["sweeps"] > 5 and res["residual"] < 1e-14
    generic = solve_ruleset(ruleset(params, rulings), engine="generic", exact=False).doc()
    assert res["value"] == pytest.approx(generic["values"][0]["float"], abs=1e-12)


# L09 round-rolls with unequal starting rolls: the Loira leaves each seat the rolls it started with,
# so a state and its mirror (seats swapped) differ; the C key keeps the seats apart (keep_seats).
# Before stop 19 the key swapped them and the first deck's round came out 0.3554977 (C) against
# the model's 0.3752315; under L25 the C engine refused. Values: the exact solver, the generic pipeline.
ROUND_ROLLS = [
    ({"deck": ["merendeira", "descarga", "F1", "M2", "toc-toc", "grito"], "stalls": [2, 4], "rolls": [1, 0],
      "centre_rolls": 0}, {}),
    ({"deck": ["merendeira", "descarga", "F1", "M2", "toc-toc", "grito"], "stalls": [2, 4], "rolls": [0, 1],
      "centre_rolls": 0, "first_seat": 1}, {}),
]
ROUND_ROLLS_RESHUFFLE = [
    {"deck": ["P1", "descarga", "merendeira", "toc-toc", "grito"], "stalls": [2, 3, 4], "rolls": [0, 1],
     "centre_rolls": 0, "first_seat": 1},   # generic: -0.40514321886855387 (the old key: -0.3457963)
    {"deck": ["toc-toc", "P1", "merendeira", "fios", "grito"], "stalls": [2, 4], "rolls": [2, 1],
     "centre_rolls": 1, "first_seat": 1},   # generic: 0.22824074074074074 (the old key: 0.2072917)
]


@pytest.mark.parametrize("params,rulings", ROUND_ROLLS)
def test_round_rolls_with_unequal_rolls_match_the_exact_solver(params, rulings):
    _available()
    g = game(params, {**rulings, "L09": "round-rolls"})
    exact = solve(g).value(g.initial_state())[0]
    assert fast.solve(g.cfg)["value"] == pytest.approx(float(exact), abs=1e-12)
    assert fast.solve_exact(g.cfg)["fraction"] == exact   # the root's form is seat 0's value here


@pytest.mark.parametrize("params", ROUND_ROLLS_RESHUFFLE)
def test_round_rolls_with_unequal_rolls_under_reshuffle_match_the_generic_pipeline(params):
    _available()
    from ruleproof.solver.explore import explore
    from ruleproof.solver.solve import solve as generic_solve
    g = game(params, {"L09": "round-rolls", "L25": "reshuffle"})
    assert fast.supports(g.cfg) is None
    generic = generic_solve(explore(g, check_invariants=False)).initial[0]
    assert fast.solve(g.cfg)["value"] == pytest.approx(generic, abs=1e-12)


def test_components_past_the_tapes_memory_bound_are_swept_by_search():
    """A component whose tapes would pass their bound is swept by searching its turns again (the
    way before the tapes): the same value, more time, no tape memory."""
    _available()
    import ctypes
    cfg = game({"deck": ["F1", "F2", "grito", "toc-toc", "descarga", "merendeira"], "stalls": [2, 4],
                "centre_rolls": 1}, {"L14": "merendeira-resets", "L25": "reshuffle"}).cfg
    taped = fast.solve(cfg)
    dll = fast._library()
    with fast._CALL_LOCK:
        dll.loira_tape_limit(ctypes.c_double(20))   # ops: smaller than most components' tapes
    try:
        searched = fast.solve(cfg)
    finally:
        with fast._CALL_LOCK:
            dll.loira_tape_limit(ctypes.c_double(0))   # the default bound again
    assert taped["tape_fallbacks"] == 0 and searched["tape_fallbacks"] > 10
    assert searched["value"] == pytest.approx(taped["value"], abs=1e-13)
    assert searched["states"] == taped["states"] and searched["residual"] < 1e-14


def test_reshuffle_has_no_exact_forms():
    _available()
    with pytest.raises(fast.FastUnavailable, match="L25=reshuffle"):
        fast.solve_exact(game(RESHUFFLE[0], {"L25": "reshuffle"}).cfg)


# the match: C round solves whose round ends carry the match's continuation values (fast.solve_match);
# values from the exact rational solver (model/loira/exact.py), which plays the match move by move
MATCHES = [
    ({"deck": ["F1", "F2", "grito", "toc-toc"], "stalls": [2, 3], "centre_rolls": 1}, {}),
    ({"deck": ["F1", "M2", "grito", "toc-toc", "descarga"], "stalls": [2, 4], "rolls": [1, 0], "centre_rolls": 1},
     {"L16": "winner"}),
    ({"deck": ["F1", "M2", "grito", "toc-toc", "descarga"], "stalls": [2, 4], "rolls": [1, 0], "centre_rolls": 1},
     {"L16": "after-winner", "L09": "round-rolls"}),
    ({"deck": ["F1", "F2", "grito", "tia", "espelho"], "stalls": [3], "centre_rolls": 2, "target_wins": 3}, {}),
    ({"deck": ["F1", "F2", "grito", "descarga", "merendeira"], "stalls": [3], "centre_rolls": 1, "first_seat": 1},
     {"L25": "reshuffle"}),
    ({"deck": ["F1", "M2", "grito", "toc-toc", "descarga"], "stalls": [2], "rolls": [1, 0], "centre_rolls": 1},
     {"L25": "reshuffle", "L09": "round-rolls"}),
    # L28 "no": the Loira's victim cannot win the round it ended (scored in the match too)
    ({"deck": ["F1", "M2", "grito", "toc-toc", "descarga"], "stalls": [2, 4], "rolls": [1, 0], "centre_rolls": 1},
     {"L28": "no"}),
    ({"deck": ["F1", "F2", "grito", "tia", "espelho"], "stalls": [3], "centre_rolls": 2, "target_wins": 3},
     {"L28": "no", "L16": "winner"}),
]


@pytest.mark.parametrize("params,rulings", MATCHES)
def test_match_matches_the_exact_solver(params, rulings):
    _available()
    g = game({**params, "objective": "match"}, rulings)
    exact = solve(g).value(g.initial_state())[0]
    res = fast.solve(g.cfg)
    assert res["value"] == pytest.approx(float(exact), abs=1e-12)
    assert res["round_solves"] > 1


# L15 replay: a shared round win is replayed, so round starts with the same wins lead to each other
# (fast._settle's sweeps); values from the generic pipeline, which solves the match's cycles as one
# graph (measured: 0.0348660203995832, 0.351886973799340, -0.0581433359033892, 0.170968604087248)
REPLAY_MATCHES = [
    ({"deck": ["F1", "F2", "grito", "toc-toc"], "stalls": [2, 3], "centre_rolls": 1}, {}),
    ({"deck": ["F1", "M2", "grito", "toc-toc", "descarga"], "stalls": [2, 4], "rolls": [1, 0], "centre_rolls": 1},
     {"L16": "winner"}),
    ({"deck": ["F1", "F2", "grito", "descarga", "merendeira"], "stalls": [3], "centre_rolls": 1, "first_seat": 1},
     {"L25": "reshuffle"}),
    # both seats stopping at once ties 0-0 for ever (test_loira_proofs: the match need not end)
    ({"deck": ["F1", "grito", "toc-toc"]}, {}),
]


@pytest.mark.parametrize("params,rulings", REPLAY_MATCHES)
def test_replay_match_matches_the_generic_pipeline(params, rulings):
    _available()
    from ruleproof.solver.analysis import solve_ruleset
    from test_loira_helpers import ruleset
    params, rulings = {**params, "objective": "match"}, {**rulings, "L15": "replay"}
    res = fast.solve(game(params, rulings).cfg)
    generic = solve_ruleset(ruleset(params, rulings), engine="generic", exact=False).doc()
    assert res["value"] == pytest.approx(generic["values"][0]["float"], abs=1e-12)
    assert res["replay_sweeps"] > 2   # the replayed rounds' values were iterated, not taken once


def test_match_scope_and_exact_forms():
    _available()
    assert fast.supports(game({"objective": "match"}, {"L15": "replay"}).cfg) is None
    with pytest.raises(fast.FastUnavailable, match="match"):
        fast.solve_exact(game({**MATCHES[0][0], "objective": "match"}).cfg)


def test_solve_chooses_the_c_match():
    _available()
    from ruleproof.solver.analysis import solve_ruleset
    from test_loira_helpers import ruleset
    # the 8-card bench rung as a match: beyond the generic exploration, so solve takes the C match
    params = {"deck": ["F1", "F2", "M1", "grito", "M2", "toc-toc", "P1", "grito"], "stalls": [2, 3, 4],
              "centre_rolls": 1, "objective": "match"}
    res = solve_ruleset(ruleset(params), exact=False).doc()
    assert not res["partial"] and res["engine"] == "c-solver" and "round solves" in res["method"]
    # a smaller one against the generic pipeline (which plays the whole match as one graph)
    small = {"deck": ["F1", "F2", "M1", "grito", "M2", "toc-toc"], "stalls": [2, 4], "centre_rolls": 1,
             "objective": "match"}
    c = solve_ruleset(ruleset(small), exact=False, engine="c-solver").doc()
    generic = solve_ruleset(ruleset(small), exact=False, engine="generic").doc()
    assert c["values"][0]["float"] == pytest.approx(generic["values"][0]["float"], abs=1e-12)


def test_solve_takes_the_generic_pipeline_where_exact_values_need_it():
    """L25 reshuffle cycles and the C solver settles them in floats: with --exact the generic
    pipeline answers in fractions (the stored scenario L25=reshuffle caught the C solver refusing
    instead); without, the C solver's float value on a round past the generic threshold."""
    _available()
    from ruleproof.solver.analysis import solve_ruleset
    from test_loira_helpers import ruleset
    rs = ruleset({"deck": ["F1", "F2", "M1", "grito", "toc-toc", "descarga", "P1"], "stalls": [2, 4],
                  "centre_rolls": 1}, {"L25": "reshuffle"})
    exact, default = (solve_ruleset(rs, exact=e).doc() for e in (True, None))
    assert exact["engine"] == "generic" and exact["exact"] and not exact["partial"]
    assert default["engine"] == "c-solver" and not default["exact"]
    assert default["values"][0]["float"] == pytest.approx(exact["values"][0]["float"], abs=1e-12)
