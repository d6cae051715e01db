"""Proofs bound to the model: the Z3 frame's relations must admit every real transition.

Each mutation below is a deliberate rule change in the executable model; the affected proof must
turn red with the concrete transition narrated, while an unchanged model keeps every proof green.
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction

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
def test_pig_proofs_hold_on_the_real_model_with_every_move_bound(players):
    props = _verify_pig(Pig, goal=12, players=players)
    for name in ("pig-state-invariant", "pig-turn-progress"):
        p = props[name]
        assert p.status == "holds" and p.evidence == "proved", p.detail
        ref = p.data["refinement"]
        assert ref["mode"] == "exhaustive" and ref["bound"] and ref["chance_law"]
        assert ref["steps"] > 1000 and ref["chance_nodes"] > 100
        assert set(ref["by_action"]) == {"roll", "hold", "score", "bust"}


class BustKeepsTurnTotal(_StateOnly):
    def land(self, s, face):
        t = super().land(s, face)
        return t[:self._turn] + (s[self._turn],) + t[self._turn + 1:] if face == 1 else t


class HoldBanksNothing(_StateOnly):
    def hold(self, s):
        t = super().hold(s)
        mover = s[self._mover]
        return t[:mover] + (s[mover],) + t[mover + 1:]


class ScoringRollAddsOneMore(_StateOnly):
    def land(self, s, face):
        t = super().land(s, face)
        if face >= 2 and t[self._winner] < 0 and t[s[self._mover]] + t[self._turn] + 1 < self.goal:
            return t[:self._turn] + (t[self._turn] + 1,) + t[self._turn + 1:]
        return t


class WinOnlyAboveTheGoal(_StateOnly):
    """The end trigger moves: reaching the goal exactly no longer wins (the score stays banked)."""
    def land(self, s, face):
        mover, turn = s[self._mover], s[self._turn]
        if face >= 2 and s[mover] + turn + face == self.goal:
            return s[:self._turn] + (turn + face, 0, -1)
        return super().land(s, face)


class SixAlsoBusts(_StateOnly):
    """Which outcome triggers what: a 6 passes the die like a 1 (issue #21's example)."""
    def land(self, s, face):
        return super().land(s, 1 if face == 6 else face)


class LoadedDie(_StateOnly):
    """A chance weight: the 6 comes up twice as often as the other faces."""
    def __init__(self, **kw):
        super().__init__(**kw)
        f = self.faces
        self._outcomes = tuple((o, Fraction(2 if o == f else 1, f + 1)) for o, _ in self._outcomes)


class WinnerIsTheNextSeat(_StateOnly):
    """Who benefits: the seat after the one that reached the goal is declared the winner."""
    def land(self, s, face):
        t = super().land(s, face)
        w = t[self._winner]
        return t if w < 0 else t[:self._winner] + ((w + 1) % self.num_players,)


class HoldKeepsTheDie(_StateOnly):
    """Who acts: a hold banks the turn total but the same seat moves again."""
    def hold(self, s):
        t = super().hold(s)
        return t[:self._mover] + (s[self._mover],) + t[self._mover + 1:]


@pytest.mark.parametrize("mutant", [BustKeepsTurnTotal, HoldBanksNothing, ScoringRollAddsOneMore,
                                    SixAlsoBusts, LoadedDie, WinnerIsTheNextSeat, HoldKeepsTheDie])
def test_a_broken_pig_rule_fails_its_proof_by_refinement_with_the_transition_narrated(mutant):
    props = _verify_pig(mutant)
    p = props["pig-state-invariant"]
    assert p.status == "fails" and p.kind == "refinement", p.detail
    text = "\n".join(p.counterexample)
    assert "start:" in text
    assert ("then:" in text and "the proof's model:" in text) or "chance node" in text, text
    assert ("frame before" in text or "invariant fails" in text or "law" in text), text


def test_a_model_that_raises_is_reported_with_the_play_that_reaches_the_error():
    """Reaching the goal no longer wins: the turn total grows past the record's range, the key
    cannot be packed, and verify narrates the shortest play to that state (no exit 3)."""
    p = _verify_pig(WinOnlyAboveTheGoal)["model-runs"]
    assert p.status == "fails" and "does not fit its key's fields" in p.counterexample[-1]
    assert p.counterexample[0].startswith("start:")


def test_six_also_busts_is_narrated_as_a_score_the_relation_does_not_allow():
    p = _verify_pig(SixAlsoBusts)["pig-state-invariant"]
    text = "\n".join(p.counterexample)
    assert "the die shows 6 (the proof's model: score(pts=6))" in text
    assert "the relation of score(pts=6) does not allow this step; the step would be bust()" in text


def test_a_loaded_die_fails_the_chance_law_outcome_by_outcome():
    p = _verify_pig(LoadedDie)["pig-state-invariant"]
    text = "\n".join(p.counterexample)
    assert "score(pts=6): the model 2/7, the rules 1/6" in text


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


# ---- conjunct-wise refutation, one abstract proof for proofs that share it, Z3 not asked ---------------

def test_a_conjunction_is_refuted_part_by_part_with_the_same_answer():
    from ruleproof.proofs.harness import REFUTE_CHUNK, _refute
    xs = [z3.Int(f"x{i}") for i in range(3 * REFUTE_CHUNK)]
    facts = [x >= 0 for x in xs]
    holds = z3.And([x > -1 for x in xs])
    s = z3.Solver()
    s.add(*facts)
    assert _refute(s, holds) == (z3.unsat, "")
    fails = z3.And([x > -1 for x in xs[:-1]] + [xs[-1] > 0])
    s = z3.Solver()
    s.add(*facts)
    assert _refute(s, fails) == (z3.sat, "") and s.model().eval(xs[-1]).as_long() == 0


def test_proofs_that_state_one_abstract_model_prove_it_once_per_evidence(monkeypatch):
    from ruleproof.model.properties import EXPLORATION, Context
    from ruleproof.proofs import refinement
    game = Pig(goal=10)
    proof = pig_proofs(game)[0]
    calls = []
    real = refinement.check_inductive
    monkeypatch.setattr(refinement, "check_inductive", lambda *a, **k: calls.append(1) or real(*a, **k))
    ctx = Context(get_spec("pig"), None, game, "pig", EXPLORATION, exploration=explore(game))
    twin = dataclasses.replace(proof, name="twin")
    assert refinement.check_proof(proof, ctx).status == refinement.check_proof(twin, ctx).status == "holds"
    assert len(calls) == 1


def test_a_proof_too_big_for_z3_says_so_and_is_still_mapped():
    game = Pig(goal=10)
    proof = dataclasses.replace(pig_proofs(game)[0], prove=False)
    res = check_rule_proof(proof, game, exploration=explore(game))
    assert res.status == "holds" and res.evidence == "exhaustive" and "not proved by Z3" in res.detail
    broken = BustKeepsTurnTotal(goal=10)
    bad = check_rule_proof(dataclasses.replace(pig_proofs(broken)[0], prove=False), broken,
                           exploration=explore(broken))
    assert bad.status == "fails" and bad.kind == "refinement"


# ---- one mapping for the proofs of one model; options; the mapping alone ------------------------------------

def _pig_ctx(game_class=Pig, goal=10):
    from ruleproof.model.properties import EXPLORATION, Context
    game = game_class(goal=goal)
    return game, Context(spec=None, ruleset=None, game=game, label="pig", source=EXPLORATION,
                         exploration=explore(game))


def test_the_proofs_of_one_model_share_one_mapping():
    from ruleproof.proofs.refinement import check_proof
    game, ctx = _pig_ctx()
    first, second = pig_proofs(game)
    a, b = check_proof(first, ctx), check_proof(second, ctx)
    assert a.status == b.status == "holds"
    assert a.data["refinement"]["transitions"] == b.data["refinement"]["transitions"] > 0
    assert len(ctx.cache["refinement passes"]) == 1
    # a broken rule: both proofs narrate the one failing move
    game, ctx = _pig_ctx(SixAlsoBusts)
    first, second = pig_proofs(game)
    a, b = check_proof(first, ctx), check_proof(second, ctx)
    assert a.status == b.status == "fails" and "score(pts=6)" in "\n".join(a.counterexample)
    assert a.counterexample == b.counterexample


def test_options_compare_the_set_of_legal_moves_and_two_moves_bound_alike():
    class HoldTwice(_StateOnly):
        """A third action that is the same hold: the set of bound moves hides it, the check does not."""
        def legal_actions(self, s):
            acts = list(super().legal_actions(s))
            return acts + [2] if 1 in acts else acts

        def apply(self, s, a):
            return super().apply(s, 1 if a == 2 else a)

        def successors(self, s):
            from ruleproof.model.protocol import Game
            return Game.successors(self, s)

        def describe_action(self, s, a):
            return "holds again" if a == 2 else super().describe_action(s, a)

    game = HoldTwice(goal=10)
    proof = dataclasses.replace(pig_proofs(game)[0], bind=lambda s, m, actor: pig_proofs(game)[0].bind(
        s, 1 if m == 2 and actor >= 0 else m, actor))
    res = check_rule_proof(proof, game, exploration=explore(game))
    assert res.status == "fails" and "two of the model's moves are the same move of the rules, hold()" in \
        res.counterexample[-1]


def test_a_proofs_mapping_alone_is_an_exhaustive_check_not_a_proof():
    from ruleproof.proofs.refinement import check_mapping
    game, ctx = _pig_ctx()
    res = check_mapping(pig_proofs(game)[0], ctx)
    assert res.status == "holds" and res.evidence == "exhaustive" and res.data["refinement"]["z3"] is False
    assert "checked, not proved" in res.detail
    game, ctx = _pig_ctx(BustKeepsTurnTotal)
    assert check_mapping(pig_proofs(game)[0], ctx).status == "fails"


def test_a_lemma_is_assumed_by_z3_and_left_to_its_own_proof_on_the_frames():
    """A claim that needs another proof's invariant: without it Z3 finds a counterexample to
    induction; given it as the lemma the claim is proved (and its frames are checked by that proof)."""
    from ruleproof.proofs.refinement import check_proof
    game, ctx = _pig_ctx()
    state = pig_proofs(game)[0]
    def rolling_in_reach(f):   # with the dice in the air the mover's score + turn total is below the goal
        mover_score = logic.If(f["mover"] == 0, f["score0"], f["score1"])
        return logic.Implies(logic.And(f["winner"] == -1, f["rolling"] == 1), mover_score + f["turn"] <= 9)
    progress = dataclasses.replace(state, name="rolling within reach", invariant=rolling_in_reach)
    assert check_proof(progress, ctx).status == "fails"   # alone: not inductive
    given = dataclasses.replace(progress, lemma=state.invariant)
    res = check_proof(given, ctx)
    assert res.status == "holds" and res.evidence == "proved", res.detail


def test_the_explorers_edges_are_the_moves_a_game_without_symmetry_makes():
    from ruleproof.model.properties import EXPLORATION, Context
    from ruleproof.model.loira import SPEC
    rs = SPEC.default().with_overrides({**SPEC.verify_overrides, "deck": ["F1", "grito", "toc-toc"]}, spec=SPEC.schema)
    game = SPEC.build(rs)
    ex = explore(game)
    ctx = Context(SPEC, rs, game, "x", EXPLORATION, exploration=ex)
    edges = [(t.before, t.move, t.prob, t.after) for t in ctx.transitions()]
    moves = [(s, a, p, t) for n in range(ex.num_states) if ex.kind[n] >= -1
             for s in [ex.state(n)] for a, p, t in game.successors(s)]
    assert edges == moves and len(edges) == ex.num_edges


# ---- the invariant on the frames met: part by part, once per pass ------------------------------------------

class _TwoVariables:
    """What ``_Parts`` needs of a proof: a frame of Z3 constants to read each part's variables."""
    @staticmethod
    def frame(sfx):
        return {"a": z3.Int("a" + sfx), "b": z3.Int("b" + sfx)}


def _raises_at_seven(f):
    if isinstance(f["a"], z3.ExprRef):
        return f["a"] != 7
    if f["a"] == 7:
        raise ZeroDivisionError("a part that breaks on a frame no check should reach")
    return True


@pytest.mark.parametrize("labels", [("",), ("x", "y")])
def test_an_invariant_read_part_by_part_fails_where_frame_by_frame_it_fails(labels):
    from ruleproof.proofs.refinement import _Parts
    values = [(1, 1), (2, 2), (6, 0), (1, 3), (7, 3), (2, 2)]
    frames = [(labels[j % len(labels)], {"a": a, "b": b}) for j, (a, b) in enumerate(values)]
    claims = [logic.Conjunction(lambda f: f["a"] <= 5, lambda f: f["b"] != 3),
              logic.Conjunction(lambda f: f["b"] != 3, lambda f: f["a"] <= 5),
              logic.Conjunction(lambda f: f["b"] != 3),
              logic.Conjunction(lambda f: f["b"] < 9),
              # the first part would raise on a frame after the first failing one: frame by
              # frame it is never asked there, and the part-by-part reading falls back so
              logic.Conjunction(_raises_at_seven, lambda f: f["a"] <= 5)]
    for claim in claims:
        one_by_one = _Parts(_TwoVariables())
        expected = next((j for j, (label, f) in enumerate(frames) if not one_by_one.holds(claim, label, f)), None)
        assert _Parts(_TwoVariables()).first_failure(claim, frames) == expected
        assert one_by_one.first_failure(claim, frames) == expected   # readings known to hold: the same
    assert [_Parts(_TwoVariables()).first_failure(c, frames) for c in claims] == [2, 2, 3, None, 2]


def test_proofs_sharing_a_pass_each_get_their_own_invariant_checked_once():
    from ruleproof.model.properties import EXPLORATION, Context
    from ruleproof.proofs.refinement import refinement_check
    game = Pig(goal=10)
    ex = explore(game)
    proof = pig_proofs(game)[0]
    low = dataclasses.replace(proof, invariant=lambda s: s["turn"] < 7)   # the same pass, another claim
    ctx = Context(None, None, game, "pig", EXPLORATION, exploration=ex)
    for _ in range(2):   # asked again on the same context: the answers stay each proof's own
        assert refinement_check(proof, ctx)[0] is None
        failure = refinement_check(low, ctx)[0]
        assert failure is not None and "the invariant fails on the frame" in failure[-1]
    assert len(ctx.cache["refinement passes"]) == 1


def test_an_invariant_read_part_by_part_agrees_with_frame_by_frame_on_random_frames():
    import random
    from ruleproof.proofs.refinement import _Parts
    rng = random.Random(3)
    for _ in range(200):
        frames = [("", {"a": rng.randint(0, 4), "b": rng.randint(0, 4)}) for _ in range(rng.randint(0, 12))]
        ca, cb = rng.randint(0, 5), rng.randint(0, 5)
        claim = logic.Conjunction(lambda f: f["a"] < ca, lambda f: f["a"] + f["b"] != cb, lambda f: f["b"] <= ca + 1)
        one_by_one = _Parts(_TwoVariables())
        expected = next((j for j, (label, f) in enumerate(frames) if not one_by_one.holds(claim, label, f)), None)
        parts = _Parts(_TwoVariables())
        assert parts.first_failure(claim, frames) == expected
        assert parts.first_failure(claim, frames) == expected   # again, with the readings it kept


def test_a_table_of_int_frames_finds_each_distinct_reading_at_its_first_frame():
    import random
    from ruleproof.proofs.refinement import _Table
    rng = random.Random(5)
    for _ in range(100):
        frames = [{"a": rng.randint(-3, 3), "b": rng.choice([True, False, 2]), "c": rng.randint(0, 1 << 40)}
                  for _ in range(rng.randint(1, 30))]
        table = _Table(frames)
        assert table.matrix is not None
        for names in [(), ("a",), ("b",), ("a", "b"), ("a", "b", "c"), ("c", "a")]:
            end = rng.randint(0, len(frames))
            readings = [tuple(f[x] for x in names) for f in frames[:end]]
            expected = sorted({r: j for j, r in reversed(list(enumerate(readings)))}.values())
            assert table.firsts(names, end) == expected


def test_frames_of_other_values_are_read_in_python_and_fail_where_frame_by_frame_they_fail():
    from fractions import Fraction
    from ruleproof.proofs.refinement import _Parts, _Table
    # numpy would make 1.5 and 1.2 (or the Fractions) one reading: the part fails on the second only
    for a, b, bad in [(1.5, 1.2, 12), (Fraction(3, 2), Fraction(6, 5), 12), (1 << 70, (1 << 70) + 1, 10 << 70 | 10)]:
        frames = [("", {"a": 0, "b": 0}), ("", {"a": a, "b": 0}), ("", {"a": b, "b": 0})]
        assert _Table([f for _, f in frames]).firsts(("a",), 3) is None
        claim = logic.Conjunction(lambda f, bad=bad: f["a"] * 10 != bad, lambda f: f["b"] == 0)
        parts = _Parts(_TwoVariables())
        assert parts.holds(claim, "", frames[1][1]) and not parts.holds(claim, "", frames[2][1])
        assert _Parts(_TwoVariables()).first_failure(claim, frames) == 2


def test_a_table_whose_readings_do_not_fit_one_code_leaves_them_to_python():
    from ruleproof.proofs.refinement import _Table
    big = (1 << 62) + 5
    frames = [{"a": -big, "b": big}, {"a": big, "b": -big}, {"a": -big, "b": big}, {"a": 0, "b": 0}]
    table = _Table(frames)
    assert table.matrix is not None
    assert table.firsts(("a",), 4) is None and table.firsts(("a", "b"), 4) is None
    small = _Table([{"a": 1, "b": 5}, {"a": 1, "b": 5}, {"a": 2, "b": 5}])
    assert small.firsts(("a", "b"), 3) == [0, 2] and small.firsts(("b",), 3) == [0]
