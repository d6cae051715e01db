"""Bomb Busters' checks that read an exploration (``model/bomb_busters/checks.py``) and the companion
missions verify explores beside every ruleset (the proofs bound to the model are in
test_bomb_busters_refinement.py)."""
from __future__ import annotations

from ruleproof.model.bomb_busters import SPEC, VERIFY_OVERRIDES
from ruleproof.model.bomb_busters.checks import engine_problem, longest_turns, turn_bound_property
from ruleproof.model.bomb_busters.mission import Mission
from ruleproof.model.limits import Limits
from ruleproof.model.properties import EXPLORATION, Context
from ruleproof.proofs.bomb_busters import derived, termination_bound
from ruleproof.solver.explore import explore


def _turn_bound(rs):
    game = SPEC.build(rs)
    ex = explore(game)
    ctx = Context(SPEC, rs, game, rs.name, EXPLORATION, exploration=ex, limits=Limits())
    return turn_bound_property(termination_bound(game.mission)).check(ctx)


def test_termination_bound_value_and_longest_play():
    # 48 blue + 2 yellow in pairs, 1 red, skull at 6, one Estabilizador: 25 + 1 + 6 + 1
    assert termination_bound(Mission.from_ruleset(SPEC.default())) == 33
    res = _turn_bound(SPEC.ruleset("bomb-busters-tiny"))
    assert res.ok and res.data["longest_turns"] == 4 and res.data["bound"] == 6
    assert res.scope == "bomb-busters-tiny: 5,169 states" and res.kind == "exhaustive"


def test_issue_bound_is_exceeded_with_three_reds():
    # 4 experts, blue 1-2 twice, reds 1.5 2.5 3.5 (7 wires), skull at the 2nd failure: one failed
    # cut, one dual cut, one solo cut and three separate red reveals make 6 turns > 7/2 + 2 = 5.5,
    # while the proved bound (4/2 + 3 + 2 = 7) holds
    rs = SPEC.default().with_overrides(
        {"players": 4, "blue_values": 2, "blue_copies": 2, "red_in_play": 3, "red_drawn": 3,
         "red_values": [1, 2, 3], "yellow_in_play": 0, "yellow_drawn": 0, "detonator": 2,
         "equipment": [], "detector_duplo": False}, spec=SPEC.schema)
    res = _turn_bound(rs)
    assert res.ok and res.data["longest_turns"] == 6 and res.data["bound"] == 7
    assert res.data["longest_turns"] > 7 / 2 + 2
    assert sum("reveal red wires" in line for line in res.data["longest_play"]) == 3


def test_a_bound_below_the_longest_play_fails_with_that_play():
    rs = SPEC.ruleset("bomb-busters-tiny")
    game = SPEC.build(rs)
    ex = explore(game)
    assert max(longest_turns(ex)) == 4
    ctx = Context(SPEC, rs, game, rs.name, EXPLORATION, exploration=ex, limits=Limits())
    res = turn_bound_property(3).check(ctx)
    assert res.status == "fails" and res.counterexample[-1].startswith("end: ")


def test_the_tiny_and_yellow_missions_are_companions_the_scheduler_explores():
    # the checks no longer explore missions themselves: verify explores each companion beside the
    # ruleset (Derived(..., always=True)) and runs every property on it
    small = SPEC.default().with_overrides(VERIFY_OVERRIDES, spec=SPEC.schema)
    labels = {d.label for d in derived(small) if d.always}
    assert labels == {"companion: yellow '2 de 3'", "companion: four copies", "companion: three experts",
                      "companion: the Estabilizador", "companion: the red candidate drawn"}
    standard = {d.label: d.always for d in derived(SPEC.default())}
    assert sum(not always for always in standard.values()) == 2     # the standard rules made small
    assert {"companion: yellow '2 de 3'", "companion: four copies", "companion: three experts",
            "companion: the Estabilizador", "companion: the red candidate drawn"} <= set(standard)
    bigger = {d.label for d in derived(SPEC.ruleset("bomb-busters-tiny-3"))}
    assert "companion: bomb-busters-tiny" in bigger


def test_the_engine_check_names_the_slot_where_the_engine_and_the_brute_force_differ(monkeypatch):
    from ruleproof.model.bomb_busters import checks
    from ruleproof.model.bomb_busters.observe import position
    game = SPEC.build(SPEC.ruleset("bomb-busters-tiny"))
    s = game.initial_state()
    while game.current_player(s) < 0:
        s = game.apply(s, game.chance_outcomes(s)[0][0])
    pos = position(game, s, 0)
    assert engine_problem(pos) == ""
    real = checks.deduce

    def drifted(p):
        d = real(p)
        first = d.probs[0][0]
        t = next(iter(first))
        d.probs[0][0] = {**first, t: first[t] / 2}
        return d
    monkeypatch.setattr(checks, "deduce", drifted)
    assert engine_problem(pos).startswith("other rack 0 slot 0: the engine")
