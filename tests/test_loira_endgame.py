"""The near-optimal policy's exact endgame: the C engine's value of any turn-start state (its kept
table) against the exact rational solver, and the endgame's decisions against the optimum."""
from __future__ import annotations

import pytest

from ruleproof.model.loira import endgame, fast
from ruleproof.model.loira.endgame import Endgame, deck_left
from ruleproof.model.loira.exact import solve
from ruleproof.model.loira.state import PH, Phase
from ruleproof.model.protocol import CHANCE, TERMINAL
from test_loira_fast import CONFIGS
from test_loira_helpers import game


def _available():
    try:
        fast._library()
    except fast.FastUnavailable as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("params", CONFIGS[2:])
def test_state_value_is_the_exact_value_of_every_turn_state(params):
    """Every turn-start state the Python model reaches, asked in the solver's (post-)order, so
    most answers come from the kept table and the first ones from fresh searches."""
    _available()
    g = game(params)
    sol = solve(g)
    fast.forget_states()
    checked = 0
    for s, v in sol.values.items():
        if s[PH] == Phase.TURN and g.current_player(s) >= 0:
            got, kept = fast.state_value(g.cfg, fast.c_state(g, s))
            assert got == pytest.approx(float(v[0]), abs=1e-12), g.describe_state(s)
            checked += 1
    assert checked > 10 and kept > 0
    # a fresh table from the root alone holds the whole round (fast.solve's count)
    fast.forget_states()
    _, kept = fast.state_value(g.cfg, fast.c_state(g, g.initial_state()))
    assert kept == fast.solve(g.cfg)["states"]
    fast.forget_states()


@pytest.mark.parametrize("limit", [1, 50, 400])
def test_state_value_limit_keeps_the_states_its_search_completed(limit):
    """A search stopped at its state limit keeps what it completed (turn_value stores a state only
    once its search has ended below the limit: final values), and FastLimit says how many: every
    turn state asked afterwards, the first ones answered from those kept entries, has its exact
    value, and the round ends with fast.solve's count."""
    _available()
    g = game(CONFIGS[3])
    sol = solve(g)
    fast.forget_states()
    with pytest.raises(fast.FastLimit) as exc:
        fast.state_value(g.cfg, fast.c_state(g, g.initial_state()), max_states=limit)
    assert exc.value.kept == limit == fast.kept_states(2)
    for s, v in sol.values.items():
        if s[PH] == Phase.TURN and g.current_player(s) >= 0:
            got, _ = fast.state_value(g.cfg, fast.c_state(g, s))
            assert got == pytest.approx(float(v[0]), abs=1e-12), g.describe_state(s)
    v, kept = fast.state_value(g.cfg, fast.c_state(g, g.initial_state()))
    assert kept == fast.solve(g.cfg)["states"] and v == pytest.approx(fast.solve(g.cfg)["value"])
    fast.forget_states()
    assert fast.kept_states(2) == 0


def test_state_value_limit_under_reshuffle_drops_the_table():
    """Under L25 reshuffle a state is stored before its search (a cycle back reads it): a stopped
    search leaves partial values, so the limit drops the kept table."""
    _available()
    g = game(_DISCARD_DECK, {"L25": "reshuffle"})
    assert fast.cyclic(g.cfg)
    res = fast.solve(g.cfg)
    fast.forget_states()
    with pytest.raises(fast.FastLimit) as exc:
        fast.state_value(g.cfg, fast.c_state(g, g.initial_state()), max_states=20)
    assert exc.value.kept == 0 == fast.kept_states(2)
    got, kept = fast.state_value(g.cfg, fast.c_state(g, g.initial_state()))
    fast.forget_states()
    assert got == pytest.approx(res["value"], abs=1e-12) and kept == res["states"]


def test_endgame_decisions_after_an_overrun_are_optimal(monkeypatch):
    """With a budget so small that decisions overrun, the endgame keeps what the stopped searches
    completed and its memo: every decision it still answers is optimal, and later ones are answered."""
    _available()
    monkeypatch.setattr(endgame, "C_STATES", 40)
    g = game(CONFIGS[3])
    sol = solve(g)
    fast.forget_states()
    end = Endgame(g)
    answered = 0
    for s in reversed(list(sol.values)):        # parents first: the root's decisions overrun
        seat = g.current_player(s)
        if seat in (CHANCE, TERMINAL) or len(g.legal_actions(s)) < 2:
            continue
        a = end.choose(s)
        if a is not None:
            best = max(v[seat] for _, v in sol.action_values(s))
            assert sol.value(g.apply(s, a))[seat] == best, g.describe_state(s)
            answered += end.overruns > 0
    fast.forget_states()
    assert end.overruns > 0 and answered > 10


def test_endgame_decisions_are_optimal():
    """Every decision of the verify configuration (7 cards, all inside the endgame): the endgame's
    action has the optimal value for its mover, exactly."""
    _available()
    g = game(CONFIGS[3])
    sol = solve(g)
    end = Endgame(g)
    assert end.c and end.applies(g.initial_state())
    checked = 0
    for s in list(sol.values):
        seat = g.current_player(s)
        if seat in (CHANCE, TERMINAL) or len(g.legal_actions(s)) < 2:
            continue
        a = end.choose(s)
        best = max(v[seat] for _, v in sol.action_values(s))
        assert sol.value(g.apply(s, a))[seat] == best, g.describe_state(s)
        checked += 1
    assert checked > 100 and end.overruns == 0


def test_endgame_stays_out_above_its_cards_and_in_matches():
    _available()
    g = game(CONFIGS[3])
    end = Endgame(g, cards=3)
    assert not end.applies(g.initial_state()) and end.choose(g.initial_state()) is None
    assert deck_left(g, g.initial_state()) == 7
    match = game({**CONFIGS[3], "objective": "match"})
    assert Endgame(match).choose(match.initial_state()) is None


def test_endgame_steps_aside_when_the_c_engine_is_unavailable(monkeypatch):
    g = game(CONFIGS[3])
    end = Endgame(g)

    def broken(*args, **kwargs):
        raise fast.FastUnavailable("no C compiler (cc/gcc) found")
    monkeypatch.setattr(fast, "state_value", broken)
    assert end.choose(g.initial_state()) is None and not end.applies(g.initial_state())


_DISCARD_DECK = {"deck": ["F1", "F2", "M1", "grito", "toc-toc", "descarga", "merendeira", "P1"],
                 "stalls": [2, 4], "centre_rolls": 1}


@pytest.mark.parametrize("rulings", [{}, {"L14": "merendeira-resets"}, {"L25": "reshuffle"},
                                     {"L25": "reshuffle", "L14": "merendeira-resets"}])
def test_state_value_under_the_discard_pile_rulings(rulings):
    """The kept table's search (a second entry into the C engine) under the rulings that read the
    discard pile (Merendeira, L14, L25's cycles): the same value and turn states as fast.solve."""
    _available()
    g = game(_DISCARD_DECK, rulings)
    res = fast.solve(g.cfg)
    fast.forget_states()
    got, kept = fast.state_value(g.cfg, fast.c_state(g, g.initial_state()))
    fast.forget_states()
    assert got == pytest.approx(res["value"], abs=1e-12) and kept == res["states"]


@pytest.mark.parametrize("spare", [0, 1, 1000])
def test_a_reserved_table_filled_to_three_quarters_gives_the_same_round(spare):
    """``reserve`` sizes the kept table at once and lets it fill to 3/4 before doubling (how a
    2.8e8-state round fits in 12 GiB): the round's value and state count are those of a plain
    search, with the reserve exactly the count (the table then ends ~3/4 full), or above it."""
    _available()
    g = game(CONFIGS[3])
    want = fast.solve(g.cfg)
    fast.forget_states()
    v, kept = fast.state_value(g.cfg, fast.c_state(g, g.initial_state()), reserve=want["states"] + spare)
    assert kept == want["states"] and v == want["value"]
    fast.forget_states()
    # a reserve far too small doubles as it fills and still gives the same round
    v, kept = fast.state_value(g.cfg, fast.c_state(g, g.initial_state()), reserve=10)
    assert kept == want["states"] and v == want["value"]
    fast.forget_states()


def test_a_seeded_game_of_the_policy_plays_the_same_after_other_games(monkeypatch):
    """The endgame's budget counts the states a decision adds to the C engine's kept table, so a
    table warmed by earlier games would let a decision fit that overruns from a cold one. The
    policy's ``new_game`` (called by ``playout`` before each game) empties it: a seeded game makes
    the same decisions played first, after other games, or after unrelated work on the table."""
    import random

    from ruleproof.model.loira.nearopt import near_optimal
    from ruleproof.solver.montecarlo import playout
    _available()
    monkeypatch.setattr(endgame, "C_STATES", 10)     # small enough that decisions overrun
    g = game(CONFIGS[3])

    def play(seed, policies):
        return playout(g, policies, random.Random(seed)).decisions

    def cold(seed):
        fast.forget_states()
        return play(seed, {t: near_optimal(g) for t in range(2)})
    alone = {seed: cold(seed) for seed in range(12)}
    policies = {t: near_optimal(g) for t in range(2)}
    later = {seed: play(seed, policies) for seed in reversed(range(12))}
    assert later == alone
    assert sum(p.endgame.overruns for p in policies.values()) > 0
    fast.state_value(g.cfg, fast.c_state(g, g.initial_state()))   # the whole round, kept
    assert play(5, policies) == alone[5]
    fast.forget_states()
