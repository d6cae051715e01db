"""The Z3 proofs hold for the shipped missions, and fail (with a situation) when a rule is broken."""
from __future__ import annotations

import pytest

from model.bomb_busters import SPEC
from model.bomb_busters.mission import Mission
from proofs import bomb_busters as P
from proofs.harness import check_inductive


def mission(**over) -> Mission:
    return Mission.from_ruleset(SPEC.default().with_overrides(over, spec=SPEC.schema, source="test"))


@pytest.mark.parametrize("name", ["bomb-busters", "bomb-busters-tiny"])
def test_every_check_holds(name):
    results = SPEC.checks(SPEC.ruleset(name))
    assert results and all(r.ok for r in results), [(r.name, r.detail, r.counterexample) for r in results if not r.ok]
    names = {r.name for r in results}
    assert {"deadlock-freedom", "termination-bound", "validation-at-all-copies", "three-never-left (B03)",
            "cut-parity (blue)", "wire-conservation (blue value)"} <= names


def test_termination_bound_value_and_longest_play():
    m = mission()
    res = P.prove_termination(m)
    # 48 blue + 2 yellow in pairs, 1 red, skull at 6, one stabilized failure: 25 + 1 + 6 + 1
    assert res.ok and res.data["bound_turns"] == 33
    tiny = SPEC.ruleset("bomb-busters-tiny")
    longest = [r for r in P.exhaustive_checks("tiny", tiny) if r.name.startswith("termination-within")][0]
    assert longest.ok and longest.data["longest_turns"] <= longest.data["bound"]


def test_deadlock_found_with_six_yellows():
    # "2 OU 4 fios idênticos": six yellows left in one hand, nobody else holding wires, cannot go
    res = P.prove_deadlock_freedom(mission(yellow_in_play=6, yellow_drawn=6))
    assert res.status == "fails" and any("mine_y=6" in line for line in res.counterexample)


def test_parity_breaks_under_a_rule_edit_that_cuts_single_wires():
    # a variant where a wrong dual cut cuts the pointed blue wire anyway: parity fails at once
    frame = P.kind_frame(4)
    z3 = P.z3
    edit = P.Action("wrong cut cuts the wire", lambda a, b: z3.And(
        a["hand1"] >= 1, b["hand1"] == a["hand1"] - 1, b["cut"] == a["cut"] + 1,
        *[a[n] == b[n] for n in ("hand0", "hand2", "hand3", "aside")]))
    res = check_inductive("parity under the edit", frame,
                          lambda f: z3.And(sum(P._hands(f, 4)) == 4, f["cut"] == 0),
                          lambda f: z3.And(f["cut"] % 2 == 0, sum(P._hands(f, 4)) + f["cut"] == 4),
                          P._kind_actions(4, 4) + [edit], assumptions=P._bounds(4))
    assert res.status == "fails" and "wrong cut cuts the wire" in res.detail and res.counterexample


def test_issue_bound_is_exceeded_with_three_reds():
    # 4 experts, blue 1-2 twice, reds 1.5 2.5 3.5 (7 wires), skull at the 2nd failure: one failed
    # cut, one dual cut, one solo cut and three separate red reveals make 6 turns > 7/2 + 2 = 5.5,
    # while the proved bound (4/2 + 3 + 2 = 7) holds
    rs = SPEC.default().with_overrides(
        {"players": 4, "blue_values": 2, "blue_copies": 2, "red_in_play": 3, "red_drawn": 3,
         "red_values": [1, 2, 3], "yellow_in_play": 0, "yellow_drawn": 0, "detonator": 2,
         "equipment": [], "detector_duplo": False}, spec=SPEC.schema)
    res = [r for r in P.exhaustive_checks("three reds", rs) if r.name.startswith("termination-within")][0]
    assert res.ok and res.data["longest_turns"] == 6 and res.data["bound"] == 7
    assert res.data["longest_turns"] > 7 / 2 + 2
    assert sum("reveal red wires" in line for line in res.data["longest_play"]) == 3


def test_six_yellows_cannot_deadlock_when_no_hand_holds_six():
    # 2 experts with 2 racks of 2 wires: a hand holds at most 4 wires (exhaustive search agrees)
    m = mission(players=2, blue_values=1, blue_copies=2, red_in_play=0, red_drawn=0, yellow_in_play=6,
                yellow_drawn=6, equipment=[], detector_duplo=False)
    assert max(m.sizes()) * 2 < 6 and P.prove_deadlock_freedom(m).ok
