"""verify's game-specific checks: the Z3 proofs, the graph checks, and mutations they must catch."""
import pytest

from ruleproof.model.presentes import SPEC, rules as R
from ruleproof.model.presentes.checks import checks
from ruleproof.model.presentes.graphcheck import graph_checks
from ruleproof.solver.explore import explore
from ruleproof.solver.verify import exploration_properties


def small(**params):
    return SPEC.default().with_overrides({"board": "mini", **params}, spec=SPEC.schema)


def test_every_check_holds_on_the_small_configuration():
    results = checks(small(), all_boards=False)
    assert results and all(r.ok for r in results), [(r.name, r.detail) for r in results if not r.ok]
    names = {r.name.split(" [")[0] for r in results}
    assert {"termination-every-policy", "shield-safety-transitions", "luck-square-without-effect"} <= names


def test_the_official_board_sweep_runs_for_a_ruleset_on_an_official_board_only():
    from ruleproof.model.limits import Limits
    stopped = Limits(deadline=0.0)  # every graph reported not run: only the names matter here
    sweep = [r.name for r in checks(SPEC.default(), limits=stopped) if "2 players" in r.name]
    assert len(sweep) >= 6
    assert not [r.name for r in checks(small(), limits=stopped) if "curta" in r.name]


def test_luck_square_without_effect_is_found_with_a_witness():
    res = graph_checks(SPEC.build(small()), "mini")
    found = next(r for r in res if r.name.startswith("luck-square-without-effect"))
    assert found.data["states"] > 0
    assert found.data["shortest_witness"][-1] == "no eligible effect"


def test_proofs_are_bound_to_the_model_and_scale_with_the_seats():
    """The Z3 part of each proof on 3 and 4 seats (the refinement tests map them to real plays)."""
    from ruleproof.proofs.harness import check_inductive
    from ruleproof.proofs.presentes import presentes_proofs
    for n in (3, 4):
        rules = SPEC.build(small(players=n)).rules
        for proof in presentes_proofs(rules):
            res = check_inductive(proof.name, proof.frame, proof.init, proof.invariant, proof.actions,
                                  assumptions=proof.assumptions)
            assert res.ok, (n, proof.name, res.detail, res.counterexample)


def test_termination_ranking_needs_a_roll_beating_the_back_step():
    from ruleproof.proofs.presentes import presentes_proofs
    names = {p.name for p in presentes_proofs(SPEC.build(small()).rules)}
    assert "termination-every-policy (ranking)" in names
    # a back step of 6 beats every roll of one die: the argument no longer applies, no ranking
    names = {p.name for p in presentes_proofs(SPEC.build(small(back=6)).rules)}
    assert "termination-every-policy (ranking)" not in names


def test_graph_check_catches_shield_breach(monkeypatch):
    def leaky(r, s):  # targets ignore shields
        return [i for i in range(r.players) if i != s.turn and s.pos[i] < r.finish]
    monkeypatch.setattr(R, "targetable", leaky)
    res = graph_checks(SPEC.build(small()), "mini")
    breach = next(r for r in res if r.name.startswith("shield-safety"))
    assert breach.status == "fails" and breach.counterexample


def test_explorer_catches_a_gift_leak(monkeypatch):
    def leaky_arvore(r, s, _arg):  # the gift vanishes instead of going back under the tree
        return R.end_turn(r, s._replace(gift=R._set(s.gift, s.turn, R.NO_GIFT)))
    monkeypatch.setattr(R, "EFFECT_BY_ID", {**R.EFFECT_BY_ID, R.Effect.ARVORE: R.EffectRule(
        R.Effect.ARVORE, R.Square.BAD, lambda r: 1, R.elig_arvore, leaky_arvore, "leaky")})
    props = {p.name: p for p in exploration_properties(explore(SPEC.build(small())))}
    assert props["gift-conservation"].status == "fails"
    assert "De volta" in "\n".join(props["gift-conservation"].counterexample) or \
        "leaky" in "\n".join(props["gift-conservation"].counterexample)


@pytest.mark.slow
def test_all_boards_terminate_under_every_policy():
    results = checks(SPEC.default(), all_boards=True)
    assert all(r.ok for r in results)
    # the ruleset's own graph (Curta, 1 die) and the five other official boards and dice counts
    names = {r.name for r in results if r.name.startswith("termination-every-policy [")}
    assert len(names) == 6 and any("longa, 2 players, 2 dice" in n for n in names)


def test_gift_renaming_quotient_agrees_with_the_full_graph():
    from ruleproof.model.presentes.graphcheck import Graph, relabel_gifts
    g = SPEC.build(small())
    full, quo = Graph(g), Graph(g, symmetric=True)
    assert len(quo.states) < len(full.states)
    assert {relabel_gifts(s) for s in full.states} == set(quo.states)
    assert not full.trapped() and not quo.trapped()
    assert {relabel_gifts(full.states[u]) for u in full.no_effect} == {quo.states[u] for u in quo.no_effect}


def test_p23_redraw_hang_is_reported_with_a_witness():
    results = {r.name.split(" [")[0]: r for r in checks(small(), all_boards=False)}
    assert results["termination-every-policy"].ok
    results = {r.name.split(" [")[0]: r for r in
               checks(SPEC.default().with_overrides({"board": "mini"}, {"P23": "redraw"}, spec=SPEC.schema),
                      all_boards=False)}
    term = results["termination-every-policy"]
    assert term.status == "fails" and "hangs" in term.detail and term.kind == "graph"
    assert term.counterexample[-1] == "no eligible effect: redrawn forever (P23 'redraw')"
    assert results["luck-square-without-effect"].status == "fails"


def test_p07_own_leader_shrinks_the_no_effect_situations():
    def no_effect(rulings):
        rs = SPEC.default().with_overrides({"board": "mini"}, rulings, spec=SPEC.schema)
        res = checks(rs, all_boards=False)
        assert all(r.ok for r in res), [(r.name, r.detail) for r in res if not r.ok]
        return next(r for r in res if r.name.startswith("luck-square-without-effect")).data["states"]
    assert 0 < no_effect({"P07": "own-leader"}) < no_effect({})
