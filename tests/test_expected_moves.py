"""``rulings.expected_moves``: the expected length of play under the solved policy, solved by the
chain's strongly connected components -- checked against a textbook value, against the exact
rational solve of the same chain and against one sparse solve of the whole chain."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings

from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.solver.explore import explore
from ruleproof.solver.rational import SingularSystem, solve_sparse
from ruleproof.solver.rulings import expected_moves
from ruleproof.solver.solve import SolveError, solve

from tests.test_sccsolve import graph_games
from tests.tiny_games import GamblersRuin


def policy_chain(sol) -> tuple[list[dict[int, Fraction]], list[list[Fraction]]]:
    """The rows of (I - P) E = 1 in fractions on the chain the solved policy induces."""
    ex = sol.exploration
    offsets, child, kind = ex.offsets, ex.child, ex.kind
    rows, rhs = [], []
    for v in range(ex.num_states):
        row = {v: Fraction(1)}
        if kind[v] != TERMINAL:
            edges = range(offsets[v], offsets[v + 1]) if kind[v] == CHANCE else \
                [sol.choice[v]] if sol.choice[v] >= 0 else []
            for e in edges:
                p = Fraction(ex.prob[e]) if kind[v] == CHANCE else Fraction(1)
                row[int(child[e])] = row.get(int(child[e]), Fraction(0)) - p
        rows.append(row)
        rhs.append([Fraction(int(kind[v] != TERMINAL))])
    return rows, rhs


def exact_expected_moves(sol) -> Fraction | None:
    rows, rhs = policy_chain(sol)
    try:
        return solve_sparse(rows, rhs)[0][0]
    except SingularSystem:
        return None


@pytest.mark.parametrize("start,top,p", [(3, 10, Fraction(1, 2)), (1, 7, Fraction(1, 2)), (4, 9, Fraction(2, 5)),
                                         (2, 6, Fraction(3, 4))])
def test_the_gamblers_ruin_lasts_its_textbook_duration(start, top, p):
    # the expected duration of the gambler's ruin (Feller, An Introduction to Probability Theory,
    # vol. I, XIV.3): k (N - k) for a fair coin, else k/(q - p) - N/(q - p) (1 - (q/p)^k)/(1 - (q/p)^N)
    q = 1 - p
    if p == q:
        known = Fraction(start * (top - start))
    else:
        r = q / p
        known = start / (q - p) - top / (q - p) * (1 - r ** start) / (1 - r ** top)
    sol = solve(explore(GamblersRuin(start, top, p)))
    assert exact_expected_moves(sol) == known
    assert expected_moves(sol) == pytest.approx(float(known), rel=1e-12)


@settings(max_examples=120, deadline=None)
@given(graph_games())
def test_random_cyclic_chains_get_the_exact_expected_length(game):
    # decisions and chance over cycles; a policy that loops among decisions never ends: None both ways
    ex = explore(game)
    try:
        sol = solve(ex)
    except SolveError:
        return
    exact = exact_expected_moves(sol)
    got = expected_moves(sol)
    if exact is None:
        assert got is None
    else:
        assert got == pytest.approx(float(exact), rel=1e-9)


def test_a_real_cyclic_game_agrees_with_one_solve_of_the_whole_chain():
    # Presentes' small board (moving back and swapping places make its chain cyclic), against one
    # sparse LU solve of the whole chain (the method the component solve replaced)
    from scipy.sparse import csr_matrix, identity
    from scipy.sparse.linalg import spsolve

    from ruleproof.model.registry import get_spec
    from ruleproof.solver.compare import target_ruleset
    rs = target_ruleset("presentes")[0]
    sol = solve(explore(get_spec("presentes").build(rs)))
    rows, rhs = policy_chain(sol)
    n = len(rows)
    r, c, d = zip(*[(i, j, float(x)) for i, row in enumerate(rows) for j, x in row.items()])
    whole = spsolve(csr_matrix((d, (r, c)), shape=(n, n)).tocsc(), np.array([float(b[0]) for b in rhs]))
    from ruleproof.solver.rational import condensation
    src, dst = zip(*[(i, j) for i, row in enumerate(rows) for j in row if j != i])
    assert condensation(n, np.array(src), np.array(dst))[2].any()   # the chain has cycles
    assert expected_moves(sol) == pytest.approx(float(whole[0]), rel=1e-12)
