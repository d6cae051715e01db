"""The generic solver against tiny games with hand-computed values, and Hypothesis properties."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ruleproof.model.pig.game import Pig
from ruleproof.solver.explore import explore
from ruleproof.solver.graph import decision_graph, policy_table
from ruleproof.solver.solve import solve
from ruleproof.solver.verify import exploration_properties, termination_property
from tests.tiny_games import BrokenGame, GamblersRuin, TieGame


def ruin_formula(k: int, top: int, p: Fraction) -> Fraction:
    r = (1 - p) / p
    return (r ** k - 1) / (r ** top - 1)


@pytest.mark.parametrize("start,top,p", [(1, 4, Fraction(1, 3)), (3, 7, Fraction(2, 5)), (2, 5, Fraction(3, 4))])
def test_cyclic_chain_exact_matches_gamblers_ruin_formula(start, top, p):
    sol = solve(explore(GamblersRuin(start, top, p)), exact=True)
    assert sol.initial_exact[0] == ruin_formula(start, top, p)
    assert sol.initial[0] == pytest.approx(float(ruin_formula(start, top, p)), abs=1e-12)


def test_tie_rule_takes_the_first_maximal_action():
    sol = solve(explore(TieGame()), exact=True)
    assert sol.initial_exact == (1, 1, 0)
    float_sol = solve(explore(TieGame()))
    assert tuple(float_sol.initial) == (1.0, 1.0, 0.0)


def test_protocol_violations_are_reported_with_shortest_traces():
    ex = explore(BrokenGame(3, 6, Fraction(1, 3)))
    props = {p.name: p for p in exploration_properties(ex)}
    assert props["chance-distribution"].status == "fails"
    assert props["above-one"].status == "fails"
    trace = props["above-one"].counterexample
    # 3 -> 2 -> 1: two chance steps, then the violation line
    assert len(trace) == 4 and "at 1" in trace[-1]


def test_limits_give_partial_results():
    ex = explore(Pig(goal=30), max_states=500)
    assert not ex.complete and "state limit" in ex.stop_reason
    assert {p.status for p in exploration_properties(ex)} == {"unknown"}
    assert termination_property(ex).status == "unknown"


def test_acyclic_termination_reports_longest_play():
    result = termination_property(explore(TieGame()))
    assert result.status == "holds" and result.data["longest_play"] == 1


def test_decision_graph_and_policy_table():
    sol = solve(explore(Pig(goal=4)), exact=True)
    graph = decision_graph(sol)
    assert graph.number_of_nodes() == sol.exploration.num_states
    optimal = [e for e in graph.edges(data=True) if e[2]["optimal"]]
    decisions = sum(1 for _, d in graph.nodes(data=True) if d["kind"] == "decision")
    assert len(optimal) == decisions
    rows = policy_table(sol)
    assert len(rows) == decisions
    assert all(r["value"] == max(r["action_values"].values(), key=Fraction) for r in rows)


@given(goal=st.integers(1, 7), faces=st.integers(2, 5))
def test_exact_and_float_solutions_agree_on_random_pig_variants(goal, faces):
    ex = explore(Pig(goal=goal, faces=faces))
    exact, approx = solve(ex, exact=True), solve(ex)
    assert sum(exact.initial_exact) == 1
    assert float(exact.initial_exact[0]) == pytest.approx(approx.initial[0], abs=1e-9)
    # the first player is never worse off than the second in Pig
    assert exact.initial_exact[0] >= exact.initial_exact[1]


@given(start=st.integers(1, 5), extra=st.integers(1, 4), num=st.integers(1, 9))
def test_random_gamblers_ruin_chains(start, extra, num):
    p = Fraction(num, 10)
    top = start + extra
    expected = Fraction(start, top) if p == Fraction(1, 2) else ruin_formula(start, top, p)
    assert solve(explore(GamblersRuin(start, top, p)), exact=True).initial_exact[0] == expected


@pytest.mark.parametrize("name", ["loira-mini", "bomb-busters-tiny"])
def test_longest_play_is_the_height_solve_orders_by(name):
    # verify's "every play ends within N moves" reads solve's SCC heights; networkx's longest path
    # of the same acyclic graph says the same
    import networkx as nx
    import numpy as np

    from ruleproof.model.registry import get_spec, load_ruleset
    from ruleproof.solver.solve import scc_levels
    rs = load_ruleset(name)
    ex = explore(get_spec(rs.game).build(rs))
    offsets = np.frombuffer(ex.offsets, dtype=np.int64)
    child = np.frombuffer(ex.child, dtype=np.int64)
    source = np.repeat(np.arange(ex.num_states), np.diff(offsets))
    label, height, cyclic = scc_levels(ex.num_states, source, child)
    assert not cyclic.any()
    longest = nx.dag_longest_path_length(nx.DiGraph(list(zip(source.tolist(), child.tolist()))))
    assert int(height[label[0]]) == longest > 5
    prop = termination_property(ex)
    assert prop.data["longest_play"] == longest and f"within {longest} moves" in prop.detail
