"""Loira proofs: every property holds on the default small configuration with its evidence; known
bounds; ruling alternatives that break a property are reported from the explorer; shrink keeps the
edit; the two-Grito deck runs out."""
from __future__ import annotations

from pathlib import Path

from ruleproof.model.loira import SPEC
from ruleproof.model.loira.bounds import score_bounds as closed
from ruleproof.model.loira.config import config_from
from ruleproof.model.loira.game import LoiraGame
from ruleproof.model.registry import load_ruleset_file
from ruleproof.proofs.loira_checks import directed_deck_run_out, score_bounds_opt, shrink, tie_break
from ruleproof.solver.verify import verify
from test_loira_helpers import ruleset

EXAMPLES = Path(__file__).resolve().parent.parent / "model" / "loira" / "examples"


def _verify(params=None, rulings=None):
    rs = ruleset({**SPEC.verify_overrides, **(params or {})}, rulings)
    return {p.name: p for p in verify(SPEC, rs).properties}


def test_verify_holds_on_the_small_configuration_with_every_proof_bound():
    props = _verify()
    assert all(p.status == "holds" for p in props.values()), [(p.name, p.detail) for p in props.values()
                                                               if p.status != "holds"]
    for name in ("card-conservation-inductive", "roll-conservation-inductive", "centre-belief-inductive",
                 "round-termination"):
        ref = props[name].data["refinement"]
        assert props[name].evidence == "proved" and ref["mode"] == "exhaustive" and ref["steps"] > 0, name
        assert ref["transitions"] == 44998   # every move of the 31,213 explored states
    # the small deck has one Grito: the deck-never-empty claim is about the standard deck (Z3 on
    # its parameters), its mapping checked on a 3-Grito configuration, and says so
    deck = props["deck-never-empty"]
    assert deck.evidence == "proved" and "standard deck (29 cards, 3 Gritos)" in deck.scope
    assert props["tie-break"].data["ends"] > 0 and props["score-bounds (this ruleset)"].data["max"] == 11
    assert "opening-bounded" not in props and "match-termination" not in props   # no match here


def test_full_game_score_bounds():
    # base game, 2 players (nulls removed): bathroom 3 doors x (1+1+1+2+2+2) = 27; 4 openings one
    # seat can win (3 Gritos + Fios) -> 4+4+3+3 = 14; Espelho copying a 4; Interruptor 2; 3 rolls.
    res, lo, hi = score_bounds_opt(config_from(ruleset()), "base")
    assert res.status == "holds" and (lo, hi) == (0, 27 + 14 + 4 + 2 + 3)
    # with the Ralo the minimum is -2 (it is the only card held)
    cfg = config_from(ruleset({"players": 4, "expansions": ["ralo"]}))
    res, lo, hi = score_bounds_opt(cfg, "ralo")
    assert res.status == "holds" and lo == -2 and (lo, hi) == closed(cfg)


def test_tie_break_specification_for_several_seat_counts():
    for n in (2, 3, 5):
        game = LoiraGame(config_from(ruleset({"players": n})))
        res = tie_break(game, iter(()), "spec only")
        assert res.status == "holds" and res.data["ends"] == 0, (n, res.detail)


def test_reshuffle_and_replay_non_termination_come_from_the_explorer():
    reshuffle = _verify({"deck": ["F1", "toc-toc", "descarga"]}, {"L25": "reshuffle"})
    res = reshuffle["round-termination"]
    assert res.status == "fails" and res.kind == "graph"
    assert any("repeat for ever" in line for line in res.counterexample)
    replay = _verify({"deck": ["F1", "grito", "toc-toc"], "objective": "match"}, {"L15": "replay"})
    res = replay["match-termination"]
    assert res.status == "fails" and res.kind == "graph"
    lap = res.counterexample[res.counterexample.index(next(x for x in res.counterexample if "repeat" in x)):]
    assert sum("stops" in line for line in lap) == 4   # both seats stop twice: a tied 0-0 replayed
    tied_win = _verify({"deck": ["F1", "grito", "toc-toc"], "objective": "match"})
    assert tied_win["match-termination"].status == "holds" and tied_win["match-termination"].evidence == "proved"


def test_a_deck_with_fewer_than_three_gritos_runs_out_with_the_shortest_play():
    props = _verify({"deck": ["F1", "F2", "M1", "grito", "grito", "toc-toc", "descarga"]})
    res = props["deck-never-empty"]
    assert res.status == "fails" and res.data["moves"] == 16
    assert res.counterexample[-2].startswith("16. chance: draws")
    three = _verify({"deck": ["F1", "F2", "grito", "grito", "grito", "toc-toc"]})["deck-never-empty"]
    assert three.status == "holds" and three.data["refinement"]["steps"] > 0


def test_shrink_keeps_the_edit_and_names_each_configuration():
    two = load_ruleset_file(EXAMPLES / "two-gritos.toml")
    assert config_from(two).deck_size == 28 and two.rulings["L04"] == "bathroom-cards"
    derived = shrink(two)
    assert [label for label, _ in derived] == [
        "7 cards: F1 F2 M1 grito grito toc-toc descarga; 2 players; stalls 2 4; 1 roll"]
    assert derived[0][1].rulings["L04"] == "bathroom-cards"
    three = shrink(ruleset({"players": 3}, {"L12": "bathroom-only"}))
    assert [label for label, _ in three] == [
        "9 cards: F1 F2 M1 grito grito grito toc-toc descarga espelho; 2 players; stalls 2 4; 1 roll",
        "9 cards: F1 F2 M1 grito grito grito toc-toc descarga espelho; 3 players; stalls 2 4; 1 roll"]


def test_a_directed_search_empties_the_full_two_grito_deck():
    game = LoiraGame(config_from(load_ruleset_file(EXAMPLES / "two-gritos.toml")))
    from ruleproof.model.limits import NO_LIMITS
    play = directed_deck_run_out(game, NO_LIMITS)
    assert play is not None and "the main deck is empty" in play[-1]
    assert "deck 0" in play[-2] and "round over (deck)" in play[-2]
    standard = LoiraGame(config_from(ruleset()))
    assert directed_deck_run_out(standard, NO_LIMITS, budget=20_000) is None   # 3 Gritos: never


def test_escorts_stalls_count_towards_the_opener_bound():
    """Found by Hypothesis in CI: with L18 "opener" one Grito and one escort hand the opener both
    stalls (2 + 2), beyond the old bound of one stall per opening. Exhaustive check per reading:
    no reachable score leaves the Z3-optimised bound, and under "opener" the bound is reached."""
    from ruleproof.solver.explore import explore
    from ruleproof.model.loira.scoring import score
    from test_loira_helpers import game
    params = {"players": 2, "deck": ["grito"], "stalls": [2, 2], "rolls": [0, 1],
              "centre_rolls": 0, "first_seat": 0}
    for l18, l03 in [("opener", "any-opening"), ("opener", "grito-only"), ("escort", "any-opening")]:
        g = game(params, {"L18": l18, "L03": l03})
        res, lo, hi = score_bounds_opt(g.cfg, l18)
        assert res.status == "holds" and (lo, hi) == closed(g.cfg), res.detail
        ex = explore(g)
        assert ex.complete and not ex.violations, ex.violations
        best = max(score(g, k, seat) for k in ex.keys for seat in range(2))
        assert best == (4 if l18 == "opener" else 3) <= hi
        if l18 == "opener":
            # 2 + 2 from one Grito plus the roll: the abstraction does not know the escort's roll
            # went back to the centre, so the bound is sound but one above the reachable 4
            assert hi == 5
