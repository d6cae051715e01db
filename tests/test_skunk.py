"""Skunk, the fifth game: added as one unit (its folder, its proof file, these tests), checked by the
same kit, proofs and mutants as every game, and its exact values cross-checked by an enumerator
written here from the rules alone."""
from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from ruleproof.model.registry import get_spec
from ruleproof.model.skunk.game import Skunk
from ruleproof.solver.analysis import solve_ruleset
from ruleproof.solver.verify import verify
from ruleproof.testing import check_game

SPEC = get_spec("skunk")


def _rs(goal: int, **rulings: str):
    return SPEC.default().with_overrides({"goal": goal}, rulings, spec=SPEC.schema)


def test_the_conformance_kit_passes_with_verify():
    check_game(SPEC)


def _value_iteration(goal: int, hold_at_zero: bool = True, sweeps: int = 4000) -> float:
    """P(the mover wins), two players, from the rule text alone: two fair dice, no 1 adds the sum,
    one 1 loses the turn total, two 1s lose the banked score too; reaching the goal wins at once."""
    throws = [(a, b) for a in range(1, 7) for b in range(1, 7)]
    v = {(i, j, k): 0.5 for i in range(goal) for j in range(goal) for k in range(goal - i)}
    for _ in range(sweeps):
        delta = 0.0
        for (i, j, k), old in v.items():
            roll = 0.0
            for a, b in throws:
                if a == 1 and b == 1:
                    roll += 1 - v[(j, 0, 0)]
                elif a == 1 or b == 1:
                    roll += 1 - v[(j, i, 0)]
                else:
                    roll += 1.0 if i + k + a + b >= goal else v[(i, j, k + a + b)]
            best = roll / 36
            if hold_at_zero or k > 0:
                best = max(best, 1 - v[(j, i + k, 0)])
            v[(i, j, k)] = best
            delta = max(delta, abs(best - old))
        if delta < 1e-13:
            break
    return v[(0, 0, 0)]


@pytest.mark.parametrize("goal", [6, 10])
def test_the_exact_value_agrees_with_an_enumerator_written_from_the_rules(goal):
    solved = solve_ruleset(_rs(goal), exact=True)
    assert solved.result.exact
    assert float(Fraction(solved.values[0]["fraction"])) == pytest.approx(_value_iteration(goal), abs=1e-10)


def test_goal_20_value_and_the_rulings_that_do_not_move_it():
    """README figures: 20155392/33433085; S01 and S02 leave the start value alone at goal 20 (optimal
    play never holds there), though S02 'must-hold' changes the states."""
    default = solve_ruleset(_rs(20), exact=True)
    assert default.values[0]["fraction"] == "20155392/33433085" and default.result.states == 7038
    assert solve_ruleset(_rs(20, S01="roll-first"), exact=True).values[0]["fraction"] == "20155392/33433085"
    must_hold = solve_ruleset(_rs(20, S02="must-hold"), exact=True)
    assert must_hold.values[0]["fraction"] == "20155392/33433085" and must_hold.result.states == 4641


def test_s01_roll_first_parts_from_allowed_at_a_small_goal():
    """With a goal of 4 a hold at 0 can matter: the readings give different values."""
    a = solve_ruleset(_rs(4), exact=True).values[0]["fraction"]
    b = solve_ruleset(_rs(4, S01="roll-first"), exact=True).values[0]["fraction"]
    assert Fraction(a) == pytest.approx(_value_iteration(4), abs=1e-12)
    assert Fraction(b) == pytest.approx(_value_iteration(4, hold_at_zero=False), abs=1e-12)


class SnakeEyesKeepsTheScore(Skunk):
    def __init__(self, **kw):
        super().__init__(**kw)
        self._face[11] = dataclasses.replace(self._face[11], effect=self._face[12].effect)

    def expand_keys(self, keys):
        return None


def test_a_broken_skunk_rule_fails_its_proof_by_refinement():
    spec = dataclasses.replace(SPEC, build=lambda r: SnakeEyesKeepsTheScore(goal=r["goal"], players=r["players"]))
    props = {p.name: p for p in verify(spec, _rs(12)).properties}
    p = props["skunk-state-invariant"]
    assert p.status == "fails" and p.kind == "refinement"
    text = "\n".join(p.counterexample)
    assert "the dice show 1 and 1 (snake eyes) (the proof's model: wipe())" in text


def test_the_policy_summary_and_picture_are_written(tmp_path):
    solved = solve_ruleset(_rs(12), out_dir=tmp_path)
    names = {p.name for p in tmp_path.iterdir()}
    assert {"policy_summary.txt", "policy.png", "play_table.csv"} <= names, names
    assert "Skunk to 12 with two d6" in (tmp_path / "policy_summary.txt").read_text()
    assert solved.result.exact
