"""Proofs bound to the model: the Z3 frame's relations must admit every real transition.

Each mutation below is a deliberate rule change in the executable model; the affected proof must
turn red with the concrete transition narrated, while an unchanged model keeps every proof green.
"""
from __future__ import annotations

import dataclasses

import pytest
import z3

from ruleproof.model.pig.game import Pig
from ruleproof.model.registry import get_spec
from ruleproof.proofs import logic
from ruleproof.proofs.pig import pig_proofs
from ruleproof.proofs.refinement import check_rule_proof
from ruleproof.solver.explore import explore
from ruleproof.solver.verify import verify


def test_logic_connectives_evaluate_on_values_and_build_z3_terms():
    x = z3.Int("x")
    assert logic.And(1 < 2, [3 == 3, True]) is True
    assert logic.Or(False, [1 > 2]) is False
    assert logic.Implies(False, False) is True and logic.If(True, 4, 5) == 4
    assert logic.Sum([1, 2], 3) == 6
    term = logic.And(x > 0, [x < 3])
    assert isinstance(term, z3.BoolRef)
    s = z3.Solver()
    s.add(term, x == 2)
    assert s.check() == z3.sat


def _pig_spec_with(game_class):
    spec = get_spec("pig")
    return dataclasses.replace(spec, build=lambda r: game_class(goal=r["goal"], faces=r["faces"],
                                                                players=r["players"]))


def _verify_pig(game_class, goal=10, players=2):
    spec = _pig_spec_with(game_class)
    rs = spec.default().with_overrides({"goal": goal, "players": players}, spec=spec.schema)
    return {p.name: p for p in verify(spec, rs).properties}


class _StateOnly(Pig):
    """Mutations change the Python rules; the batch expansion is a second copy, so it is switched off
    and the explorer runs the mutated rules themselves."""
    def expand_keys(self, keys):
        return None


@pytest.mark.parametrize("players", [2, 3])
def test_pig_proofs_hold_on_the_real_model_with_every_transition_mapped(players):
    props = _verify_pig(Pig, goal=12, players=players)
    for name in ("pig-state-invariant", "pig-turn-progress"):
        p = props[name]
        assert p.status == "holds" and p.evidence == "proved", p.detail
        ref = p.data["refinement"]
        assert ref["mode"] == "exhaustive" and ref["steps"] > 1000 and ref["exits"] > 0


class BustKeepsTurnTotal(_StateOnly):
    def _land(self, s, face):
        t = super()._land(s, face)
        return t[:self._turn] + (s[self._turn],) + t[self._turn + 1:] if face == 1 else t


class HoldBanksNothing(_StateOnly):
    def _hold(self, s):
        t = super()._hold(s)
        mover = s[self._mover]
        return t[:mover] + (s[mover],) + t[mover + 1:]


class ScoringRollAddsOneMore(_StateOnly):
    def _land(self, s, face):
        t = super()._land(s, face)
        if face >= 2 and t[self._winner] < 0 and t[s[self._mover]] + t[self._turn] + 1 < self.goal:
            return t[:self._turn] + (t[self._turn] + 1,) + t[self._turn + 1:]
        return t


class WinOnlyAboveTheGoal(_StateOnly):
    """The end trigger moves: reaching the goal exactly no longer wins (the score stays banked)."""
    def _land(self, s, face):
        mover, turn = s[self._mover], s[self._turn]
        if face >= 2 and s[mover] + turn + face == self.goal:
            return s[:self._turn] + (turn + face, 0, -1)
        return super()._land(s, face)


@pytest.mark.parametrize("mutant, proof", [
    (BustKeepsTurnTotal, "pig-state-invariant"),
    (HoldBanksNothing, "pig-state-invariant"),
    (ScoringRollAddsOneMore, "pig-turn-progress"),
    (WinOnlyAboveTheGoal, "pig-state-invariant"),
])
def test_a_broken_pig_rule_turns_its_proof_red_with_the_transition_narrated(mutant, proof):
    props = _verify_pig(mutant)
    p = props[proof]
    assert p.status == "fails" and p.kind == "refinement", p.detail
    text = "\n".join(p.counterexample)
    assert "start:" in text and "then:" in text
    assert "frame before" in text or "invariant fails" in text or "no exit" in text


def test_the_mapping_is_checked_on_sampled_plays_when_not_explored():
    game = Pig(goal=100)
    proof = pig_proofs(game)[0]
    res = check_rule_proof(proof, game, plays=50, seed=3, scope="pig goal 100")
    assert res.status == "holds" and res.evidence == "sampled"
    assert res.data["refinement"]["plays"] == 50 and "not a proof" in res.detail
    broken = BustKeepsTurnTotal(goal=100)
    bad = check_rule_proof(pig_proofs(broken)[0], broken, plays=50, seed=3)
    assert bad.status == "fails" and "sampled play" in bad.counterexample[0]


def test_an_abstract_proof_that_fails_in_z3_is_reported_before_any_mapping():
    game = Pig(goal=10)
    proof = dataclasses.replace(pig_proofs(game)[0], invariant=lambda s: s["turn"] < 3)
    res = check_rule_proof(proof, game, exploration=explore(game))
    assert res.status == "fails" and res.kind == "z3" and "abstract proof" in res.detail
