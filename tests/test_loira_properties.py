"""Hypothesis properties: random rulesets and random play keep every invariant, and every score
stays within the proved bounds."""
from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ruleproof.model.loira.bounds import score_bounds
from ruleproof.model.loira.rulings import RULINGS
from ruleproof.model.loira.scoring import score
from test_loira_helpers import game, random_playout

CARDS = ["F-", "F1", "F2", "P1", "P2", "M1", "M2", "grito", "toc-toc", "interruptor", "chute",
         "descarga", "fios", "espelho"]
EXPANSIONS = ["rapagote", "zelador", "diretora", "tia", "aluna", "merendeira", "ralo", "professora"]


@st.composite
def configurations(draw):
    players = draw(st.integers(2, 4))
    extra = [e for e in EXPANSIONS if players >= 3 or e != "professora"]
    deck = draw(st.lists(st.sampled_from(CARDS + extra), min_size=1, max_size=12))
    stalls = draw(st.lists(st.integers(1, 5), max_size=5))
    rolls = draw(st.lists(st.integers(0, 2), min_size=players, max_size=players))
    params = {"players": players, "deck": deck, "stalls": stalls, "rolls": rolls,
              "centre_rolls": draw(st.integers(0, 3)), "first_seat": draw(st.integers(0, players - 1)),
              "objective": draw(st.sampled_from(["round", "match"]))}
    rulings = {r.id: draw(st.sampled_from(list(r.options))) for r in RULINGS}
    if params["objective"] == "match":
        rulings["L15"] = "all-tied-win"  # the replay reading may never end (proved separately)
    rulings["L25"] = "round-ends"       # the reshuffle reading may cycle (proved separately)
    from ruleproof.model.loira.cards import counts_of, parse_token
    from ruleproof.model.loira.config import belief_refusal
    if belief_refusal(counts_of(map(parse_token, deck)), rulings):   # refused decks (tested apart)
        params["deck"] = [c for c in deck if c != "merendeira"] or ["F1"]
    return params, rulings


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configurations(), st.integers(0, 2**32 - 1))
def test_random_rulesets_random_play(conf, seed):
    params, rulings = conf
    g = game(params, rulings)
    lo, hi = score_bounds(g.cfg)
    rng = random.Random(seed)
    for _ in range(4):
        s, _ = random_playout(g, rng)  # checks every invariant at every step (score-bounds too)
        for seat in range(g.num_players):
            assert lo <= score(g, s, seat) <= hi
        assert g.returns(s) and sum(g.returns(s)) == g.constant_sum


@settings(max_examples=40, deadline=None)
@given(configurations())
def test_key_round_trip_and_swap_involution(conf):
    params, rulings = conf
    g = game(params, rulings)
    s = g.initial_state()
    assert g.from_key(g.key(s)) == s
    if g.num_players == 2:
        assert g.swap(g.swap(s)) == s
