"""verify's game-specific checks: the Z3 proofs, the graph checks, and mutations they must catch."""
import pytest

from model.presentes import SPEC, rules as R
from model.presentes.checks import checks
from model.presentes.graphcheck import graph_checks
from proofs import presentes as zp
from solver.explore import explore
from solver.verify import exploration_properties


def small(**params):
    return SPEC.default().with_overrides({"board": "mini", **params}, spec=SPEC.schema)


def test_every_check_holds_on_the_small_configuration():
    results = checks(small(), all_boards=False)
    assert results and all(r.ok for r in results), [(r.name, r.detail) for r in results if not r.ok]
    names = {r.name.split(" [")[0] for r in results}
    assert {"z3-gift-conservation (2 players)", "z3-shield-safety (2 players)", "z3-chain-bound",
            "termination-every-policy", "luck-square-without-effect"} <= names


def test_luck_square_without_effect_is_found_with_a_witness():
    res = graph_checks(SPEC.build(small()), "mini")
    found = next(r for r in res if r.name.startswith("luck-square-without-effect"))
    assert found.data["states"] > 0
    assert found.data["shortest_witness"][-1] == "no eligible effect"


def test_z3_proofs_scale_and_catch_a_broken_action():
    for k in (3, 4):
        assert zp.conservation_proof(k).ok and zp.tree_nonempty_proof(k).ok and zp.shield_proof(k).ok
    assert [r.ok for r in zp.chain_bound_proof(3)] == [True, True]
    assert zp.chain_bound_proof(3)[1].data == {"min": 1, "max": 3}
    # an action that forgets to put the gift back under the tree breaks conservation
    from proofs.harness import Action, check_inductive
    k = 3
    broken = [Action("lose-gift", lambda f, n: zp._post(f, n, k, gift=lambda i: zp.z3.If(f["m"] == i, -1, f[f"gift{i}"])))]
    res = check_inductive("broken", zp._gift_frame(k), lambda f: zp.z3.And(
        [f[f"gift{i}"] == -1 for i in range(k)] + [f[f"tree{g}"] for g in range(k)]),
        zp.conservation(k), broken, assumptions=zp._types(k))
    assert res.status == "fails" and res.counterexample


def test_termination_ranking_needs_a_roll_beating_the_back_step():
    dice = SPEC.build(small()).rules.dice  # one die
    ranking = zp.termination_proof(3, dice, 2, 11, False)
    assert all(r.ok for r in ranking) and ranking[-1].data == {"p_big_roll": "1/2"}
    # a back step of 6 beats every roll of one die: the argument no longer applies
    assert zp.termination_proof(6, dice, 2, 11, False)[-1].status == "unknown"


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
    assert sum(1 for r in results if r.name.startswith("termination-every-policy [")) >= 7


def test_gift_renaming_quotient_agrees_with_the_full_graph():
    from model.presentes.graphcheck import Graph, relabel_gifts
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
    assert term.status == "fails" and "hangs" in term.detail
    assert term.counterexample[-1] == "no eligible effect: redrawn forever (P23 'redraw')"
    assert results["termination-every-policy (ranking)"].status == "unknown"
    assert results["luck-square-without-effect"].status == "fails"


def test_p07_own_leader_shrinks_the_no_effect_situations_and_the_proof_follows():
    def no_effect(rulings):
        rs = SPEC.default().with_overrides({"board": "mini"}, rulings, spec=SPEC.schema)
        res = checks(rs, all_boards=False)
        assert all(r.ok for r in res), [(r.name, r.detail) for r in res if not r.ok]
        return next(r for r in res if r.name.startswith("luck-square-without-effect")).data["states"]
    assert 0 < no_effect({"P07": "own-leader"}) < no_effect({})
    # the Z3 characterisation of each reading holds (each is an equivalence, so the default's,
    # which omits 'someone ahead', would not be the exact set under own-leader: the count drops)
    for own in (False, True):
        res = zp.no_effect_proof(3, 6, False, False, own_leader=own)[0]
        assert res.ok and ("own-leader" in res.detail) == own
