"""The level-by-level numpy explorer builds exactly the graph the state-by-state explorer builds
(same BFS numbering, edges, probabilities, permutations, first-reaching edges and depths), finds the
same shortest counterexamples, and honours limits."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ruleproof.model.pig.game import Pig
from ruleproof.model.protocol import Invariant
from ruleproof.solver.explore import explore
from ruleproof.solver.solve import SolveError, solve


def same_graph(a, b):
    assert a.keys == b.keys
    for field in ("kind", "offsets", "child", "perm", "parent_edge", "depth"):
        assert list(getattr(a, field)) == list(getattr(b, field)), field
    assert list(a.action) == list(b.action)
    assert [a.prob[e] for e in range(a.num_edges)] == [b.prob[e] for e in range(b.num_edges)]
    assert a.returns == b.returns and a.complete and b.complete


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 25), st.integers(2, 7))
def test_batch_and_scalar_explorers_build_the_same_graph(goal, faces):
    game = Pig(goal=goal, faces=faces)
    fast, slow = explore(game), explore(game, batch=False)
    assert fast.violations == slow.violations == {}
    same_graph(fast, slow)
    assert solve(fast).initial == pytest.approx(solve(slow).initial, abs=1e-12)


class Capped(Pig):
    """Pig with an invariant that fails: no banked score may reach 5."""
    vectorised = True

    def invariants(self):
        def check(s):
            return "banked 5+" if max(s[:2]) >= 5 else None

        def check_keys(keys):
            return np.maximum(self.record.column(keys, "score0"), self.record.column(keys, "score1")) >= 5
        return (Invariant("score-below-5", "no banked score reaches 5", check,
                          check_keys if self.vectorised else None),)


@pytest.mark.parametrize("vectorised", [True, False])
def test_counterexample_is_the_scalar_explorers_shortest_one(vectorised):
    game = Capped(goal=10)
    game.vectorised = vectorised
    fast, slow = explore(game), explore(game, batch=False)
    v, w = fast.violations["score-below-5"], slow.violations["score-below-5"]
    assert (v.node, v.reason) == (w.node, w.reason)
    assert fast.depth[v.node] == 3          # roll, a 5 or 6, hold
    assert fast.narrate(v.node) == slow.narrate(w.node)


def test_a_vectorised_check_that_disagrees_with_its_scalar_form_is_reported():
    class Lying(Capped):
        def invariants(self):
            inv = super().invariants()[0]
            return (Invariant(inv.name, inv.description, lambda s: None, inv.check_keys),)
    ex = explore(Lying(goal=10))
    assert "vectorised check" in ex.violations["score-below-5"].reason


def test_limits_give_a_partial_graph_the_solver_refuses():
    ex = explore(Pig(goal=40), max_states=5_000)
    assert not ex.complete and "state limit 5000" in ex.stop_reason
    assert len(ex.kind) == ex.num_states and len(ex.offsets) == ex.num_states + 1
    with pytest.raises(SolveError):
        solve(ex)
    late = explore(Pig(goal=40), timeout=0.0)
    assert not late.complete and "time limit" in late.stop_reason


def test_a_bad_chance_distribution_is_caught_level_by_level():
    game = Pig(goal=6)
    game.batch_probabilities = (Fraction(1, 7),)   # six faces at 1/7 each add up to 6/7
    fast, slow = explore(game), explore(game, batch=False)
    assert "6/7" in fast.violations["chance-distribution"].reason
    assert "chance-distribution" not in slow.violations   # the scalar moves still say 1/6


def test_batch_returns_that_differ_from_the_models_are_caught():
    from ruleproof.model.conformance import batch_problem
    game = Pig(goal=6)
    assert explore(game).violations == {} and explore(game).returns == explore(game, batch=False).returns
    game.batch_returns = ((Fraction(0), Fraction(1)),)   # the representative's winner is seat 0, not 1
    ex = explore(game)
    assert "batch returns differ" in ex.violations["utility-bounds"].reason
    terminal = next(k for k in ex.keys if game.current_player(game.from_key(k)) == -2)
    assert batch_problem(game, [terminal]) == (0, "expand_keys names other returns than the model's")
