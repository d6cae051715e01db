"""The exhaustive checks of tiny Bomb Busters missions, and the proved turn bound against the
longest play found (the proofs bound to the model are in test_bomb_busters_refinement.py)."""
from __future__ import annotations

from ruleproof.model.bomb_busters import SPEC
from ruleproof.model.bomb_busters.mission import Mission
from ruleproof.proofs.bomb_busters import termination_bound
from ruleproof.proofs.bomb_busters_checks import checks, exhaustive_checks


def test_the_checks_name_the_missions_they_explore():
    results = checks(SPEC.ruleset("bomb-busters-tiny"))
    assert results and all(r.ok for r in results), [(r.name, r.detail) for r in results if not r.ok]
    assert [r.kind for r in results] == ["exhaustive"] * 4
    assert results[0].scope == "bomb-busters-tiny: 5,169 states"
    assert results[2].scope.startswith("yellow '2 de 3' mission (2 experts") and "5,857 states" in results[2].scope


def test_termination_bound_value_and_longest_play():
    # 48 blue + 2 yellow in pairs, 1 red, skull at 6, one Estabilizador: 25 + 1 + 6 + 1
    assert termination_bound(Mission.from_ruleset(SPEC.default())) == 33
    tiny = SPEC.ruleset("bomb-busters-tiny")
    longest = [r for r in exhaustive_checks("tiny", tiny) if r.name.startswith("termination-within")][0]
    assert longest.ok and longest.data["longest_turns"] == 4 and longest.data["bound"] == 6


def test_issue_bound_is_exceeded_with_three_reds():
    # 4 experts, blue 1-2 twice, reds 1.5 2.5 3.5 (7 wires), skull at the 2nd failure: one failed
    # cut, one dual cut, one solo cut and three separate red reveals make 6 turns > 7/2 + 2 = 5.5,
    # while the proved bound (4/2 + 3 + 2 = 7) holds
    rs = SPEC.default().with_overrides(
        {"players": 4, "blue_values": 2, "blue_copies": 2, "red_in_play": 3, "red_drawn": 3,
         "red_values": [1, 2, 3], "yellow_in_play": 0, "yellow_drawn": 0, "detonator": 2,
         "equipment": [], "detector_duplo": False}, spec=SPEC.schema)
    res = [r for r in exhaustive_checks("three reds", rs) if r.name.startswith("termination-within")][0]
    assert res.ok and res.data["longest_turns"] == 6 and res.data["bound"] == 7
    assert res.data["longest_turns"] > 7 / 2 + 2
    assert sum("reveal red wires" in line for line in res.data["longest_play"]) == 3
