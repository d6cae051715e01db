"""The shipped near-optimal policy played in C (``fast.evaluate(..., shipped=shipped_rule(2))``): its value
against best responses is the Python policy's exact regret (``exact.regret`` with
``near_optimal``) on small 2-player rounds where the part above the endgame decides and loses --
go/stop by the learned stop table, the margin rule, a win at once with the Interruptor, the escape
and the Descarga by greedy's rules, the escorts by the look-ahead -- and the stored top-layer rows
of the regret table where both reach."""
from __future__ import annotations

import pytest

from ruleproof.model.loira import endgame, fast
from ruleproof.model.loira.endgame import REDUCE, STOPPED_CARDS
from ruleproof.model.loira.exact import regret, solve
from ruleproof.model.loira.nearopt import _binary, _wins_at_once, choose, near_optimal, shipped_rule, stop_rule
from ruleproof.model.loira.nearopt_regret import _rung, build_config, stored
from ruleproof.model.loira.state import STOP_ACT, SWITCH, TURN
from ruleproof.model.loira.table import RISK_EDGES, features
from ruleproof.model.protocol import CHANCE, TERMINAL


def _round(deck: str, stalls: list[int], rolls: int):
    return build_config(None, {"players": 2, "deck": deck.split(","), "stalls": stalls, "centre_rolls": rolls})


#: (deck, stalls, centre rolls, endgame cards, cut deck, cards from which a seat alone plays its
#: endgame): each loses something above its endgame (regret 0.002 to 0.034 per seat). C mutants
#: they turn red (stop 52): the escape never taken, the Descarga's last best card, the margin rule at
#: 0, no Interruptor win, the Gritos feature dropped, the score without rolls, escorts that never
#: ask for look-ahead values. Surviving, equivalent here: the last of equally cheap escapes, risk
#: buckets by >= (the table decides buckets 0 and 1 alike), the stopped seats' region mid-turn.
CASES = [("F1,F2,M1,grito,toc-toc,descarga,fios", [2, 4], 1, 1, 2, STOPPED_CARDS),
         ("F1,F2,F1,grito,espelho,interruptor,descarga", [2, 4], 1, 0, 2, 0),
         ("F1,F0,F2,M1,M2,grito,chute,interruptor", [2, 3, 4], 2, 1, 2, STOPPED_CARDS),
         ("P1,P2,P1,grito,grito,descarga,espelho", [3, 4], 1, 0, 2, 0),
         ("F1,F2,M1,grito,toc-toc,descarga,fios", [2, 4], 1, 2, 2, 3)]


@pytest.mark.parametrize("deck, stalls, rolls, cards, reduce_to, stopped", CASES)
def test_c_evaluation_is_the_shipped_policys_regret(deck, stalls, rolls, cards, reduce_to, stopped,
                                                    monkeypatch):
    g = _round(deck, stalls, rolls)
    # the policy's own endgame once every other seat has stopped, held as low as the C one
    monkeypatch.setattr(endgame, "STOPPED_CARDS", stopped)
    made = []

    def policy(game):
        made.append(near_optimal(game, cards, reduce_to))
        return made[-1]
    want = regret(g, policy, solve(g))
    assert not sum(p.endgame.overruns + p.endgame.lookahead_overruns for p in made)
    assert any(want[seat]["regret"] > 0.001 for seat in want)       # the policy's own rules decide here
    for seat in want:
        got = fast.evaluate(g.cfg, seat, cards, max(cards, stopped), reduce_to, shipped=shipped_rule(2))
        assert got["values"][seat] == pytest.approx(float(want[seat]["policy"]), abs=1e-12)


def test_stop_rule_is_the_policys_go_stop_decision():
    """``nearopt.stop_rule`` (the table the C copy reads, cell by ``table.features``) decides as
    ``nearopt.choose`` at every go/stop decision of a round's states that the table decides."""
    g = _round("F1,F2,M1,grito,M2,toc-toc,P1,grito", [2, 3, 4], 1)
    rule = stop_rule(2)
    seen, stack, checked = {g.initial_state()}, [g.initial_state()], 0
    while stack:
        s = stack.pop()
        who = g.current_player(s)
        if who == TERMINAL:
            continue
        if who != CHANCE and _binary(g, s) == ("stop", STOP_ACT, 0) and not any(
                a in g.legal_actions(s) and _wins_at_once(g, s, a, who) for a in (SWITCH, STOP_ACT)):
            m, bucket, own, gritos = features(g, s)
            cell = (((m + 6) * (len(RISK_EDGES) + 1) + bucket) * 4 + own) * 3 + gritos
            assert (STOP_ACT if rule[cell] else 0) == choose(g, s), s
            checked += 1
        acts = [o for o, _ in g.chance_outcomes(s)] if who == CHANCE else g.legal_actions(s)
        for a in acts:
            t = g.apply(s, a)
            if t not in seen:
                seen.add(t)
                stack.append(t)
    assert checked > 1000 and s[TURN] in (0, 1)


# (from 6 cards left the tables decide 6 draws, and a state's look-ahead value is asked for after it
# was stored without one: the lazy look-ahead's mutants turn this row red, not the small rounds)
@pytest.mark.parametrize("name", ["bench rung, 12 cards, endgame from 6 cards",
                                  pytest.param("bench rung, 12 cards, endgame from 8 cards as on the real deck",
                                               marks=pytest.mark.slow)])
def test_c_evaluation_is_the_stored_top_layer_row(name):
    """The regret table's 12-card rows (measured over the top layers in Python, the endgame's values
    from the C engine) are what the C copy of the policy gets, to the last bits."""
    row = next(r for r in stored()["rows"] if r["configuration"] == name)
    g = build_config(None, _rung(12))
    k = row["endgame_cards"]
    for seat in row["seats"]:
        got = fast.evaluate(g.cfg, seat["seat"], k, max(k, STOPPED_CARDS), REDUCE[2], shipped=shipped_rule(2))
        assert got["values"][seat["seat"]] == pytest.approx(float(seat["policy"]), abs=1e-12)


@pytest.mark.parametrize("params, named", [({"players": 3}, "3 players"),
                                           ({"deck": ["F1", "F2", "grito", "zelador", "M1"]}, "ZELADOR"),
                                           ({"rulings": {"L29": "optional"}}, "L29")])
def test_c_evaluation_refuses_what_its_copy_does_not_decide(params, named):
    rulings = params.pop("rulings", {})
    base = {"players": 2, "deck": ["F1", "F2", "M1", "grito", "toc-toc", "descarga"], "stalls": [2, 4],
            "centre_rolls": 1}
    from ruleproof.model.loira.config import SCHEMA
    from ruleproof.model.loira.game import build
    from ruleproof.model.registry import load_ruleset
    g = build(load_ruleset("loira").with_overrides({**base, **params}, rulings, spec=SCHEMA))
    with pytest.raises(fast.FastUnavailable, match=named):
        fast.evaluate(g.cfg, 0, 2, STOPPED_CARDS, 2, shipped=shipped_rule(2))


def test_regret_over_out_of_core_layers_is_the_in_memory_regret(tmp_path, monkeypatch):
    """Past the in-memory engine (the 17-card rung) the optimum is solved out of core and the
    evaluation reads the endgame's edge from its kept layers: on a deck both reach, the same policy
    values with fewer states searched, and the work folder is gone afterwards."""
    from ruleproof.model.loira import nearopt_regret
    g = build_config(None, _rung(8))
    plain = nearopt_regret.c_regret(g, 3)
    monkeypatch.setattr(nearopt_regret, "IN_MEMORY_CARDS", 6)
    got = nearopt_regret.c_regret(g, 3, tmp_path)
    assert got["known_states"] > 0 and got["eval_states"] < plain["eval_states"]
    for seat in (0, 1):
        assert got[seat]["policy"] == plain[seat]["policy"]
        assert got[seat]["optimal"] == pytest.approx(plain[seat]["optimal"], abs=1e-15)
    assert list(tmp_path.iterdir()) == []


def test_c_evaluation_counts_its_look_ahead_work():
    """``evaluate``'s ``lookahead``: the reduced-deck sub-solves behind the escorts' look-ahead (the
    cost that grows tenfold a card past 14, docs/bench.md stop 53). The shipped policy asks for them
    only at its escorts, the candidate at every next state: fewer, and the same on a second run."""
    g = build_config(None, _rung(12))
    runs = [fast.evaluate(g.cfg, 0, 6, STOPPED_CARDS, REDUCE[2], shipped=shipped_rule(2)) for _ in range(2)]
    shipped, candidate = runs[0]["lookahead"], fast.evaluate(g.cfg, 0, 6, STOPPED_CARDS, REDUCE[2])["lookahead"]
    assert runs[1]["lookahead"] == shipped and runs[1]["states"] == runs[0]["states"]
    assert 0 < shipped["solves"] < candidate["solves"]
    for got in (shipped, candidate):
        assert 0 <= got["repeats"] < got["solves"] and got["emptied"] == 0   # 12 cards: far below 2^24
        assert got["solves"] - got["repeats"] <= got["states"]   # a new root adds at least itself
    # the shipped policy's look-ahead table is counted in its states, beside the evaluation's own
    assert shipped["states"] < runs[0]["states"]
