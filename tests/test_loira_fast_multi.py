"""The C engine with 3 to 5 players against the Python model: turn by turn for every ruling option
and mini-expansion card it claims (the differential test of test_loira_fast_rulings.py, with
max^n and vectors of shares), and whole rounds against the exact rational solver (exact.py) and
the generic pipeline.

max^n's tie rule -- among the actions of maximal value for the mover, the first in legal-action
order -- decides the other seats' values, so the successor values given to both sides make exact
ties common: random levels, and each seat's points in the next state (a choice that leaves the
mover's points alone -- whom to invite first, whom to flush -- ties for the mover and moves the
others): a C decision tried out of legal order, or a tie broken the other way, shows as a
different vector.
"""
from __future__ import annotations

import random
from fractions import Fraction

import pytest

from ruleproof.model.loira import fast
from ruleproof.model.loira.exact import solve
from ruleproof.model.loira.rulings import RULINGS
from ruleproof.model.loira.scoring import score
from ruleproof.model.loira.state import PH, STOP, TURN, Phase
from ruleproof.model.protocol import CHANCE, TERMINAL
from test_loira_fast_rulings import (CLAIMED, _every_turn_state, _turn_states,
                                     loira_back_beside_a_kicked_stall)
from test_loira_helpers import game, ruleset

# every base card kind, three stall values, a roll each and none in the centre (Toc-Toc steals)
BASE3 = {"players": 3, "deck": ["F-", "F1", "F2", "P-", "P2", "M1", "M2", "grito", "grito", "toc-toc",
                                "toc-toc", "interruptor", "chute", "descarga", "fios", "espelho"],
         "stalls": [2, 3, 4], "rolls": [1, 1, 1], "centre_rolls": 0}
# configurations where an option shows (as test_loira_fast_rulings.EXTRA, for three seats)
EXTRA3 = {"L07": {"stalls": [2], "deck": ["F1", "F2", "M1", "grito", "grito", "chute", "fios", "espelho"]},
          "L09": {"rolls": [2, 1, 0], "centre_rolls": 1},
          "L17": {"rolls": [2, 2, 1]}, "L21": {"rolls": [2, 2, 1]}, "L27": {"rolls": [2, 2, 1]},
          "L05": {"deck": ["F-", "P-", "F2", "M2", "interruptor", "interruptor", "espelho", "grito"],
                  "stalls": [2]},
          "L13": {"deck": ["F1", "F2", "M1", "interruptor", "interruptor", "grito", "chute"], "stalls": [2]},
          "L19": {"deck": ["F1", "F2", "M1", "grito", "aluna", "aluna", "aluna"]},   # one kind: issue 21
          "L14": {"deck": ["F1", "F2", "M1", "grito", "grito", "toc-toc", "descarga", "merendeira",
                           "merendeira"], "stalls": [2, 4]},
          "L25": {"deck": ["F1", "F2", "M1", "grito", "descarga", "toc-toc", "espelho", "interruptor"],
                  "stalls": [2]},
          # no roll anywhere to take: the Toc-Toc's reversal alone (L36)
          "L36": {"rolls": [0, 0, 0], "centre_rolls": 0}}


def _available(players: int = 3):
    try:
        fast._library(players)
    except fast.FastUnavailable as exc:
        pytest.skip(str(exc))


def _python_turn(g, s, leaf, root=True, memo=None) -> tuple[Fraction, ...]:
    """Every seat's value of the turn from ``s`` (max^n, ties to the first legal action) with
    ``leaf`` valuing the next turn-start states."""
    if not root and s[PH] == Phase.TURN:
        return leaf(s)
    memo = {} if memo is None else memo
    if s in memo:
        return memo[s]
    seat = g.current_player(s)
    if seat == TERMINAL:
        v = g.returns(s)
    elif seat == CHANCE:
        acc = [Fraction(0)] * g.num_players
        for o, p in g.chance_outcomes(s):
            for i, x in enumerate(_python_turn(g, g.apply(s, o), leaf, False, memo)):
                acc[i] += p * x
        v = tuple(acc)
    else:
        v = None
        for a in g.legal_actions(s):
            x = _python_turn(g, g.apply(s, a), leaf, False, memo)
            if v is None or x[seat] > v[seat]:
                v = x
    memo[s] = v
    return v


def _compare(g, states, rng: random.Random) -> int:
    n = g.num_players
    compared = 0
    for s in states:
        nexts: dict[tuple[int, ...], tuple[int, ...]] = {}

        def collect(t):
            nexts[fast.c_state(g, t)] = t
            return (Fraction(0),) * n
        _python_turn(g, s, collect)
        succ, _ = fast.turn(g.cfg, fast.c_state(g, s))
        assert set(succ) == set(nexts) and len(succ) == len(nexts), g.describe_state(s)
        for draw in range(3):
            value = {t: (tuple(Fraction(score(g, nexts[t], seat), 16) for seat in range(n)) if draw == 2
                         else tuple(Fraction(rng.randint(0, 4), 4) for _ in range(n))) for t in succ}
            expect = _python_turn(g, s, lambda t: value[fast.c_state(g, t)])
            _, got = fast.turn(g.cfg, fast.c_state(g, s), [value[t] for t in succ])
            assert got == pytest.approx([float(x) for x in expect], abs=1e-12), g.describe_state(s)
        compared += 1
    return compared


def test_default_rulings_turn_by_turn():
    _available()
    g = game(BASE3)
    assert fast.supports(g.cfg) is None
    assert _compare(g, _turn_states(g, random.Random(1), 30), random.Random(2)) == 30


def test_the_loira_back_beside_a_kicked_stall_turn_by_turn():
    """As test_loira_fast_rulings' test of that name, with three seats: every such turn-start state."""
    _available()
    g = game({**BASE3, **EXTRA3["L07"]}, {"L07": "no"})
    states = [s for s in _every_turn_state(g) if loira_back_beside_a_kicked_stall(g, s)]
    assert len(states) >= 100, len(states)
    assert _compare(g, states, random.Random(17)) == len(states)


@pytest.mark.parametrize("rid,opt", CLAIMED, ids=[f"{r}={o}" for r, o in CLAIMED])
def test_claimed_option_turn_by_turn(rid, opt):
    _available()
    params = {**BASE3, **EXTRA3.get(rid, {})}
    g = game(params, {rid: opt})
    assert fast.applies(ruleset(params, {rid: opt})) is None
    seed = sum(map(ord, rid + opt))
    assert _compare(g, _turn_states(g, random.Random(seed), 12), random.Random(seed + 1)) == 12


EXPANSIONS = ["rapagote", "zelador", "diretora", "tia", "aluna", "ralo", "professora"]
SMALL = ["F-", "F1", "F2", "P2", "M1", "grito", "grito", "descarga", "fios", "toc-toc"]


@pytest.mark.parametrize("cards", [[c] for c in EXPANSIONS + ["merendeira"]] + [
    ["ralo", "ralo"], ["professora"] * 3, ["merendeira", "merendeira"]],
    ids=EXPANSIONS + ["merendeira", "two-ralos", "three-professoras", "two-merendeiras"])
def test_mini_expansion_turn_by_turn(cards):
    _available()
    params = {"players": 3, "deck": SMALL + cards, "stalls": [2, 4], "rolls": [1, 1, 1], "centre_rolls": 1}
    g = game(params)
    assert fast.applies(ruleset(params)) is None
    seed = sum(map(ord, "".join(cards)))
    count = 6 if len(cards) > 4 else 12   # all seven: turns of thousands of next states
    assert _compare(g, _turn_states(g, random.Random(seed), count), random.Random(seed + 1)) == count


@pytest.mark.parametrize("players,cards", [(4, ["diretora", "diretora"]), (5, ["professora", "professora"]),
                                           (5, ["zelador", "zelador"])])
def test_more_players_turn_by_turn(players, cards):
    """Four and five seats: escorts in seat order, Diretora short of stalls (the revealer chooses
    a set), Professora's ordered pairs, Zelador round the table, Toc-Toc's direction (one
    mini-expansion kind a deck: the C engine refuses two, issue 21)."""
    _available(players)
    params = {"players": players, "deck": SMALL + cards,
              "stalls": [2, 4], "rolls": [1] * players, "centre_rolls": 0}
    g = game(params, {"L29": "optional"} if players == 5 else {})
    seed = 40 + players
    assert _compare(g, _turn_states(g, random.Random(seed), 8), random.Random(seed + 1)) == 8


@pytest.mark.parametrize("rulings", [{"L11": "bathroom-only", "L21": "yes", "L27": "opening-continues"},
                                     {"L17": "rolls-returned", "L18": "opener", "L03": "grito-only"},
                                     {"L25": "reshuffle", "L14": "merendeira-resets", "L29": "optional"},
                                     {"L36": "no-effect", "L10": "self", "L33": "invitee"}])
def test_mini_expansions_under_rulings_turn_by_turn(rulings):
    _available()
    # one kind a deck (the C engine refuses two, issue 21): three cards, each set aside multiplies
    # a turn's next states
    cards = ["merendeira", "merendeira"] if "L14" in rulings else ["rapagote"] * 3 if "L17" in rulings \
        else ["professora"] * 3 if "L36" in rulings else ["diretora"] * 3
    params = {"players": 3, "deck": SMALL + cards, "stalls": [2, 4], "rolls": [2, 1, 1], "centre_rolls": 0}
    g = game(params, rulings)
    assert _compare(g, _turn_states(g, random.Random(7), 10), random.Random(8)) == 10


# whole rounds: every seat's value against the exact rational solver, and the exact forms' Fractions
ROUNDS = [
    ({"players": 3, "deck": ["F1", "F2", "M1", "grito", "toc-toc", "fios"], "stalls": [2, 4],
      "centre_rolls": 1}, {}),
    ({"players": 3, "deck": ["F-", "F1", "F2", "grito", "grito", "toc-toc", "descarga"], "stalls": [3, 3],
      "rolls": [0, 1, 1], "centre_rolls": 0, "first_seat": 2}, {}),
    ({"players": 3, "deck": ["F1", "P2", "grito", "chute", "espelho", "interruptor"], "stalls": [2, 3],
      "rolls": [1, 0, 0], "centre_rolls": 1}, {"L13": "also-stopped", "L30": "also-when-drawn"}),
    ({"players": 3, "deck": ["F1", "M2", "grito", "diretora", "diretora", "toc-toc"], "stalls": [2, 4],
      "rolls": [1, 0, 1], "centre_rolls": 1}, {"L09": "round-rolls", "L18": "opener"}),
    ({"players": 4, "deck": ["F1", "F2", "grito", "toc-toc", "zelador"], "stalls": [2, 3],
      "rolls": [1, 0, 0, 1], "centre_rolls": 1}, {"L29": "optional", "L28": "no"}),
    ({"players": 3, "deck": ["F1", "M1", "grito", "toc-toc", "merendeira"], "stalls": [2, 4],
      "centre_rolls": 1}, {"L14": "merendeira-resets", "L36": "no-effect"}),
    # whom the Professora invites first changes who may meet the Loira: 4 and 3 seats
    ({"players": 4, "deck": ["professora", "F1", "grito", "M1"], "stalls": [2, 3], "centre_rolls": 1}, {}),
    ({"players": 3, "deck": ["professora", "professora", "F1", "F2", "descarga"], "stalls": [3, 4],
      "centre_rolls": 1}, {}),
]


@pytest.mark.parametrize("params,rulings", ROUNDS)
def test_round_values_match_the_exact_solver(params, rulings):
    _available(params["players"])
    g = game(params, rulings)
    exact = solve(g).value(g.initial_state())
    res = fast.solve(g.cfg)
    assert res["values"] == pytest.approx([float(x) for x in exact], abs=1e-12)
    forms = fast.solve_exact(g.cfg)
    assert forms["fractions"] == exact and forms["fraction"] == exact[0]


def test_random_small_decks_match_the_exact_solver():
    _available()
    rng = random.Random(5)
    pool = ["F-", "F1", "F2", "P1", "P2", "M1", "M2", "grito", "toc-toc", "interruptor", "chute",
            "descarga", "fios", "espelho", "rapagote", "zelador", "diretora", "tia", "aluna", "ralo",
            "professora"]
    for _ in range(8):
        deck = rng.sample(pool, 5)
        while len(set(deck) & {"rapagote", "zelador", "diretora", "tia", "aluna", "ralo", "professora"}) > 1:
            deck = rng.sample(pool, 5)   # one mini-expansion kind at most (the C engine's scope)
        params = {"players": 3, "deck": deck, "stalls": rng.sample([2, 3, 4, 4], rng.randint(0, 3)),
                  "rolls": [rng.randint(0, 1) for _ in range(3)], "centre_rolls": rng.randint(0, 2),
                  "first_seat": rng.randint(0, 2)}
        g = game(params)
        exact = solve(g).value(g.initial_state())
        assert fast.solve(g.cfg)["values"] == pytest.approx([float(x) for x in exact], abs=1e-12), params


def test_the_ralo_passes_to_active_seats_only():
    """Turns of a Ralo holder while another seat has stopped (L20: passed to an active player)."""
    _available()
    g = game({"players": 3, "deck": SMALL + ["ralo", "ralo"], "stalls": [2, 4], "rolls": [1, 1, 1],
              "centre_rolls": 1})
    states = [s for s in _turn_states(g, random.Random(3), 600)
              if s[g.h(s[TURN], g.h_ralo)] and s[STOP]]
    assert len(states) >= 8
    assert _compare(g, states[:8], random.Random(4)) == 8


RESHUFFLE3 = [
    {"players": 3, "deck": ["F1", "F2", "toc-toc", "grito"], "stalls": [2], "centre_rolls": 1},
    {"players": 3, "deck": ["F1", "zelador", "zelador", "descarga"], "stalls": [2], "centre_rolls": 1},
]


@pytest.mark.parametrize("params", RESHUFFLE3)
def test_reshuffle_cycles_match_the_generic_pipeline(params):
    """L25 reshuffle: turn states recur; three seats' vectors settle by sweeps that search the
    turns again (no tapes), against the generic pipeline's policy iteration."""
    _available()
    from ruleproof.solver.analysis import solve_ruleset
    res = fast.solve(game(params, {"L25": "reshuffle"}).cfg)
    generic = solve_ruleset(ruleset(params, {"L25": "reshuffle"}), engine="generic", exact=False).doc()
    assert res["values"] == pytest.approx([v["float"] for v in generic["values"]], abs=1e-12)
    assert res["residual"] < 1e-14


def test_every_option_of_every_ruling_goes_to_the_c_engine_with_three_players():
    unclaimed = [(r.id, opt) for r in RULINGS for opt in list(r.options)[1:]
                 if (r.id, opt) not in CLAIMED and r.id not in ("L15", "L16", "L34", "L35")]
    assert unclaimed == []
    assert fast.applies(ruleset({"players": 3})) is None
    assert fast.applies(ruleset({"players": 3, "expansions": ["professora"]})) is None


@pytest.mark.slow
def test_solve_answers_a_three_player_round_of_ten_cards_exactly_with_the_c_engine():
    """Issue 24: the 3-player round of 10 cards (4.4 million turn states, beyond the generic
    pipeline) answered by the C engine in exact fractions (--exact; ~5 min, 3.2 GiB)."""
    _available()
    from ruleproof.solver.analysis import solve_ruleset
    from pathlib import Path
    from ruleproof.model.registry import load_ruleset
    rs = load_ruleset(str(Path(__file__).resolve().parents[1] / "model/loira/examples/three-players-ten-cards.toml"))
    res = solve_ruleset(rs, exact=True).doc()
    assert res["engine"] == "c-solver" and res["exact"] and not res["partial"]
    assert res["states"] == 4_415_924
    floats = fast.solve(fast.config_from(rs))["values"]
    assert [v["float"] for v in res["values"]] == pytest.approx(floats, abs=1e-12)
    assert sum(Fraction(v["fraction"]) for v in res["values"]) == 1   # the winners share 1
