"""Presentes proofs bound to the model: every real transition must be a step of the proofs' relations.

Each mutation is a deliberate rule change in ``model.presentes.rules`` (patched for one test); the
proof about that rule must turn red with the concrete transition narrated, while the unchanged
model keeps every proof green.
"""
from __future__ import annotations

import dataclasses

import pytest

from ruleproof.model.presentes import SPEC, rules as R
from ruleproof.model.presentes.shrink import shrink
from ruleproof.proofs.presentes import presentes_proofs
from ruleproof.proofs.refinement import check_rule_proof
from ruleproof.solver.explore import explore
from ruleproof.solver.verify import verify

TABLE = ("z3-gift-conservation", "z3-tree-nonempty", "z3-shield-safety", "termination-every-policy (ranking)")


def _ruleset(players=2, board="mini", rulings=None, **params):
    return SPEC.default().with_overrides({"board": board, "players": players, **params}, rulings or {},
                                         spec=SPEC.schema)


def _proofs(ruleset):
    game = SPEC.build(ruleset)
    ex = explore(game)
    assert ex.complete
    return {p.name: check_rule_proof(p, game, exploration=ex) for p in presentes_proofs(game.rules)}


@pytest.mark.parametrize("rulings", [{}, {"P02": "gift-only", "P14": "steal", "P18": "eligible"},
                                     {"P07": "own-leader", "P08": "behind", "P11": "random", "P15": "pick"}])
def test_every_proof_holds_on_the_real_model_with_every_transition_mapped(rulings):
    for name, res in _proofs(_ruleset(rulings=rulings)).items():
        assert res.status == "holds" and res.evidence == "proved", (name, res.detail, res.counterexample)
        ref = res.data["refinement"]
        assert ref["mode"] == "exhaustive" and ref["steps"] > 1000


def test_host_removals_and_three_seats_are_mapped():
    rs = SPEC.default().with_overrides({"board": "tiny", "players": 3, "host_remove": [[2, 1]],
                                        "host_skip": [3]}, spec=SPEC.schema)
    assert all(r.ok for r in _proofs(rs).values())


def _volte_two(r, s, _arg):
    m = s.turn
    return R.end_turn(r, s._replace(pos=R._set(s.pos, m, max(0, s.pos[m] - (r.back - 1)))))


def _first_steal_keeps_the_victims_gift(decide):
    def broken(r, s, a):
        t = decide(r, s, a)
        if s.phase == R.Phase.FIRST and a >= 0:
            t = t._replace(gift=R._set(t.gift, a, s.gift[a]))   # the victim keeps it: a duplicate
        return t
    return broken


def _ignore_shields(r, s):
    return [i for i in range(r.players) if i != s.turn and s.pos[i] < r.finish]


def _over_with_two_left(end_turn):
    def broken(r, s):
        on = [i for i in range(r.players) if s.pos[i] < r.finish]
        return R.game_over(r, s, on) if len(on) <= 2 else end_turn(r, s)
    return broken


def _one_landing_more(move):
    def broken(r, s, steps, landing):
        return move(dataclasses.replace(r, max_landings=r.max_landings + 1), s, steps, landing)
    return broken


def _mutate(monkeypatch, what):
    if what == "volte-moves-two":
        rule = R.EFFECT_BY_ID[R.Effect.VOLTE]
        monkeypatch.setattr(R, "EFFECT_BY_ID", {**R.EFFECT_BY_ID, R.Effect.VOLTE: dataclasses.replace(
            rule, apply=_volte_two)})
    elif what == "steal-duplicates":
        monkeypatch.setattr(R, "decide", _first_steal_keeps_the_victims_gift(R.decide))
    elif what == "shield-ignored":
        monkeypatch.setattr(R, "targetable", _ignore_shields)
    elif what == "over-with-two-left":
        monkeypatch.setattr(R, "end_turn", _over_with_two_left(R.end_turn))
    elif what == "chain-one-longer":
        monkeypatch.setattr(R, "move", _one_landing_more(R.move))


@pytest.mark.parametrize("what, proof, params", [
    ("volte-moves-two", "termination-every-policy (ranking)", {}),
    ("steal-duplicates", "z3-gift-conservation", {}),
    ("shield-ignored", "z3-shield-safety", {}),
    ("over-with-two-left", "z3-gift-conservation", {"players": 3, "board": "tiny"}),
    # on 'mini' a Salto lands on a second ★ or ☠ but never a third: the chain of one landing breaks
    ("chain-one-longer", "z3-chain-bound", {"max_landings": 1}),
])
def test_a_broken_presentes_rule_turns_its_proof_red_with_the_transition_narrated(monkeypatch, what, proof,
                                                                                  params):
    _mutate(monkeypatch, what)
    res = _proofs(_ruleset(**params))[proof]
    assert res.status == "fails" and res.kind == "refinement", (res.detail, res.counterexample)
    text = "\n".join(res.counterexample)
    assert "start:" in text and "then:" in text
    assert "no action relation" in text or "invariant fails" in text


def test_the_chain_proof_is_untouched_by_a_table_rule_and_the_reverse(monkeypatch):
    """Each frame sees its own rules: a broken Volte leaves the chain proof green."""
    _mutate(monkeypatch, "volte-moves-two")
    props = _proofs(_ruleset())
    assert props["z3-chain-bound"].ok and not props["termination-every-policy (ranking)"].ok


def test_p23_redraw_fails_termination_with_a_lasso_from_the_explorer():
    rs = SPEC.default().with_overrides({"board": "mini"}, {"P23": "redraw"}, spec=SPEC.schema)
    rep = verify(SPEC, rs.with_overrides({"players": 2, "dice": 1}, spec=SPEC.schema))
    props = {p.name: p for p in rep.properties}
    term = next(p for n, p in props.items() if n.startswith("termination-every-policy [mini"))
    assert term.status == "fails" and term.kind == "graph" and term.evidence == "fails"
    assert "then forever:" in term.counterexample and "hangs" in term.detail
    assert term.counterexample[-1] == "no eligible effect: redrawn forever (P23 'redraw')"
    # the explorer's own termination check agrees: the redrawn state cannot reach an end
    assert props["termination"].status == "fails"
    # the ranking speaks only of turns that end, and says so
    assert "provided every turn ends" in props["termination-every-policy (ranking)"].detail


def test_shrink_keeps_the_edit_and_labels_each_configuration():
    rs = SPEC.ruleset("presentes-party").with_overrides({"back": 4}, {"P23": "redraw"}, spec=SPEC.schema)
    derived = shrink(rs)
    assert [d.params["players"] for _, d in derived] == [2, 2, 3]
    assert [d.params["board"] for _, d in derived] == ["tiny", "mini", "tiny"]
    for label, d in derived:
        assert d.rulings["P23"] == "redraw" and d.params["back"] == 4 and d.params["dice"] == 2
        assert "board" in label and "players" in label and "2 dice" in label
