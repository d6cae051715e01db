"""Loira proofs: every check holds on the default small configuration; known bounds; ruling
alternatives that break a property are reported as such."""
from __future__ import annotations

from model.loira import SPEC
from model.loira.bounds import score_bounds as closed
from model.loira.config import config_from
from proofs.loira import checks, conservation, deck_never_empty, score_bounds, termination, tie_break
from test_loira_helpers import ruleset


def test_verify_checks_all_hold_on_the_small_configuration():
    results = checks(ruleset(dict(SPEC.verify_overrides)))
    names = {r.name for r in results}
    assert {"score-bounds (this ruleset)", "score-bounds-reachable", "tie-break-total",
            "tie-break-symmetric", "round-termination", "match-termination",
            "deck-never-empty (full game)", "deck-exhaustion-matches-proof"} <= names
    bad = [(r.name, r.status, r.detail) for r in results if r.status != "holds"]
    assert not bad


def test_full_game_score_bounds():
    # base game, 2 players (nulls removed): bathroom 3 doors x (1+1+1+2+2+2) = 27; 4 openings one
    # seat can win (3 Gritos + Fios) -> 4+4+3+3 = 14; Espelho copying a 4; Interruptor 2; 3 rolls.
    res, lo, hi = score_bounds(config_from(ruleset()), "base")
    assert res.status == "holds" and (lo, hi) == (0, 27 + 14 + 4 + 2 + 3)
    # with the Ralo the minimum is -2 (it is the only card held)
    cfg = config_from(ruleset({"players": 4, "expansions": ["ralo"]}))
    res, lo, hi = score_bounds(cfg, "ralo")
    assert res.status == "holds" and lo == -2 and (lo, hi) == closed(cfg)


def test_tie_break_properties_for_several_seat_counts():
    for n in (2, 3, 5):
        assert all(r.status == "holds" for r in tie_break(n)), n


def test_conservation_is_inductive():
    assert all(r.status == "holds" for r in conservation(config_from(ruleset({"players": 6}))))


def test_termination_and_its_ruling_sensitivity():
    cfg = config_from(ruleset())
    res = {r.name: r for r in termination(cfg)}
    assert res["round-termination"].status == "holds" and res["round-termination"].data["turn_bound"] == 29 + 2
    replay = {r.name: r for r in termination(config_from(ruleset(rulings={"L15": "replay"})))}
    assert replay["match-termination"].status == "fails"
    reshuffle = {r.name: r for r in termination(config_from(ruleset(rulings={"L25": "reshuffle"})))}
    assert reshuffle["round-termination"].status == "unknown"


def test_deck_never_empty_needs_three_gritos():
    assert deck_never_empty(config_from(ruleset())).status == "holds"
    two = config_from(ruleset({"deck": ["F1", "grito", "grito"]}))
    res = deck_never_empty(two)
    assert res.status == "fails" and "initial" in res.detail


def test_deck_exhaustion_check_under_the_reshuffle_reading():
    # QA: under L25 'reshuffle' the deck running out never ends the round, so the check found no
    # deck-exhaustion end and reported 'fails' with no counterexample. It now shows the shortest
    # trace to the empty deck (the readings play alike until then).
    rs = ruleset(dict(SPEC.verify_overrides), {"L25": "reshuffle"})
    res = {r.name: r for r in checks(rs)}["deck-exhaustion-matches-proof"]
    assert res.status == "holds" and "reshuffle" in res.detail
    assert len(res.data["trace"]) == 17  # the same 16-move trace as under 'round-ends'


def test_escorts_stalls_count_towards_the_opener_bound():
    """Found by Hypothesis in CI: with L18 "opener" one Grito and one escort hand the opener both
    stalls (2 + 2), beyond the old bound of one stall per opening. Exhaustive check per reading:
    no reachable score leaves the Z3-optimised bound, and under "opener" the bound is reached."""
    from solver.explore import explore
    from model.loira.scoring import score
    from test_loira_helpers import game
    params = {"players": 2, "deck": ["grito"], "stalls": [2, 2], "rolls": [0, 1],
              "centre_rolls": 0, "first_seat": 0}
    for l18, l03 in [("opener", "any-opening"), ("opener", "grito-only"), ("escort", "any-opening")]:
        g = game(params, {"L18": l18, "L03": l03})
        res, lo, hi = score_bounds(g.cfg, l18)
        assert res.status == "holds" and (lo, hi) == closed(g.cfg), res.detail
        ex = explore(g)
        assert ex.complete and not ex.violations, ex.violations
        best = max(score(g, k, seat) for k in ex.keys for seat in range(2))
        assert best == (4 if l18 == "opener" else 3) <= hi
        if l18 == "opener":
            # 2 + 2 from one Grito plus the roll: the abstraction does not know the escort's roll
            # went back to the centre, so the bound is sound but one above the reachable 4
            assert hi == 5
