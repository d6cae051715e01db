"""The shared exact module (solver/rational.py) against plain-Fraction references kept here only:
random absorbing Markov chains, block orders, the modular walk, and the engines built on it (Pig's
exact solve and Presentes' turn chain give the values a Fraction Gauss-Jordan gives)."""
from __future__ import annotations

import random
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ruleproof.model.pig.game import Pig
from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.solver import rational
from ruleproof.solver.explore import explore
from ruleproof.solver.rational import (SingularSystem, components_in_order, crt, solve_sparse, walk_absorptions,
                             word_primes)
from ruleproof.solver.solve import solve


# ---- the reference: dense Gauss-Jordan over Fractions (the engines' former arithmetic) -----------

def fraction_solve(rows: list[dict[int, Fraction]], rhs: list[list[Fraction]]) -> list[list[Fraction]]:
    """Gauss-Jordan with rows kept as {column: Fraction} (solver/solve.py's former ``gauss_jordan``,
    for k right-hand sides)."""
    rows = [{j: Fraction(c) for j, c in row.items() if c} for row in rows]
    rhs = [[Fraction(x) for x in b] for b in rhs]
    m = len(rows)
    for pivot in range(m):
        r = next(r for r in range(pivot, m) if rows[r].get(pivot, 0) != 0)
        rows[pivot], rows[r], rhs[pivot], rhs[r] = rows[r], rows[pivot], rhs[r], rhs[pivot]
        inv = 1 / rows[pivot][pivot]
        prow = {k: x * inv for k, x in rows[pivot].items()}
        pb = [x * inv for x in rhs[pivot]]
        rows[pivot], rhs[pivot] = prow, pb
        for r2 in range(m):
            f = rows[r2].get(pivot) if r2 != pivot else None
            if f:
                row2 = rows[r2]
                for k, x in prow.items():
                    nv = row2.get(k, Fraction(0)) - f * x
                    if nv:
                        row2[k] = nv
                    else:
                        row2.pop(k, None)
                rhs[r2] = [a - f * b for a, b in zip(rhs[r2], pb)]
    return rhs


@st.composite
def absorbing_chains(draw):
    """(I - P) x = r for a random chain whose every state can reach absorption: transient state i
    leaks to absorption with positive probability or points to a state that does, so I - P is
    nonsingular. Probabilities are small-denominator fractions; k reward columns."""
    n = draw(st.integers(1, 9))
    k = draw(st.integers(1, 3))
    rows, rhs = [], []
    for i in range(n):
        targets = draw(st.lists(st.integers(0, n - 1), max_size=4))
        weights = [draw(st.integers(1, 6)) for _ in targets]
        # state 0 always leaks; others leak or have an edge to a lower state (which reaches 0's leak)
        leak = draw(st.integers(1 if i == 0 else 0, 5))
        if i > 0 and leak == 0 and not any(t < i for t in targets):
            targets.append(draw(st.integers(0, i - 1)))
            weights.append(1)
        total = sum(weights) + leak
        row = {i: Fraction(1)}
        for t, w in zip(targets, weights):
            row[t] = row.get(t, Fraction(0)) - Fraction(w, total)
        rows.append({j: c for j, c in row.items() if c != 0})
        rhs.append([Fraction(draw(st.integers(-5, 5)), draw(st.integers(1, 7))) for _ in range(k)])
    return rows, rhs


@given(absorbing_chains(), st.booleans())
def test_solve_sparse_equals_fraction_gauss_jordan(chain, sparse_blocks):
    rows, rhs = chain
    expected = fraction_solve(rows, rhs)
    old = rational.DENSE_LIMIT
    rational.DENSE_LIMIT = 1 if sparse_blocks else old   # exercise the sparse elimination too
    try:
        got = solve_sparse(rows, rhs)
    finally:
        rational.DENSE_LIMIT = old
    assert got == expected
    assert all(isinstance(v, Fraction) for row in got for v in row)


def test_singular_system_is_reported():
    # x0 - x1 = 1, x1 - x0 = 0: a loop with no way out
    with pytest.raises(SingularSystem):
        solve_sparse([{0: 1, 1: -1}, {1: 1, 0: -1}], [[1], [0]])
    with pytest.raises(SingularSystem):
        solve_sparse([{0: 0}], [[1]])


@given(st.integers(1, 12), st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=30))
def test_components_come_after_the_components_they_point_to(n, edges):
    edges = [(a % n, b % n) for a, b in edges]
    comps = components_in_order(n, [a for a, _ in edges], [b for _, b in edges])
    position = {int(v): i for i, (part, _) in enumerate(comps) for v in part}
    assert sorted(position) == list(range(n))
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges)
    expected = {frozenset(c) for c in nx.strongly_connected_components(g)}
    assert {frozenset(int(v) for v in part) for part, _ in comps} == expected
    for a, b in edges:
        assert position[b] <= position[a]
    for part, cyclic in comps:
        assert cyclic == (len(part) > 1 or any((int(v), int(v)) in edges for v in part))


@given(st.integers(1, 12), st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=30),
       st.booleans())
def test_peeling_an_acyclic_graph_directly_gives_the_condensations_levels(n, edges, forward_only):
    edges = [(a % n, b % n) for a, b in edges]
    if forward_only:   # half the cases acyclic (edges to higher nodes), the others mostly not
        edges = [(a, b) for a, b in edges if a < b]
    src, dst = np.array([a for a, _ in edges], np.int64), np.array([b for _, b in edges], np.int64)
    label, level, cyclic = rational.condensation(n, src, dst)
    label2, level2, cyclic2 = rational.condensation(n, src, dst, dag_first=True)
    assert (level[label] == level2[label2]).all() and (cyclic[label] == cyclic2[label2]).all()
    assert len(set(label.tolist())) == len(set(label2.tolist()))   # the same partition into SCCs
    assert {frozenset(np.flatnonzero(label == c).tolist()) for c in set(label.tolist())} == \
        {frozenset(np.flatnonzero(label2 == c).tolist()) for c in set(label2.tolist())}
    if forward_only:
        assert (label2 == np.arange(n)).all() and not cyclic2.any()


def test_word_primes_and_crt():
    primes = word_primes(40, 5)
    assert len(set(primes)) == 5 and all(p < 1 << 40 for p in primes)
    for p in primes:   # trial division up to a small bound rules out the easy composites
        assert all(p % d for d in range(2, 2000))
    x = 3 ** 120 + 17
    modulus = 1
    for p in primes:
        modulus *= p
    assert x < modulus and crt([x % p for p in primes], primes, modulus) == x


@pytest.mark.parametrize("denominator", [6, 6 * 2 ** 70])   # word-size primes, then Python ints
def test_walk_absorptions_matches_fraction_propagation(denominator):
    # a 4-node walk: node i moves to (i + 1) % 4 with weight a_i, to 0 with b_i, absorbs the rest
    rng = random.Random(5)
    rows, cols, weights, absorb = [], [], [], []
    for i in range(4):
        a = rng.randrange(1, denominator // 3)
        b = rng.randrange(1, denominator // 3)
        rows += [i, i]
        cols += [(i + 1) % 4, 0]
        weights += [a, b]
        absorb.append(denominator - a - b)
    got = walk_absorptions(4, rows, cols, weights, absorb, {0: 1}, 12, denominator)
    mass = {0: Fraction(1)}
    for t, ended in enumerate(got, 1):
        expected = sum(m * Fraction(absorb[i], denominator) for i, m in mass.items())
        assert Fraction(ended, denominator ** t) == expected
        nxt: dict[int, Fraction] = {}
        for i, j, w in zip(rows, cols, weights):
            nxt[j] = nxt.get(j, Fraction(0)) + mass.get(i, 0) * Fraction(w, denominator)
        mass = nxt


# ---- the engines on it ---------------------------------------------------------------------------

def reference_values(ex, choice) -> list[tuple[Fraction, ...]]:
    """Every node's exact value under the decisions ``choice``, one unknown per (node, seat), by
    Fraction Gauss-Jordan on each SCC (networkx), independently of solver.solve."""
    seats = ex.game.num_players
    perms = ex.game.seat_permutations
    def cols(e):
        return tuple(range(seats)) if ex.perm is None else perms[ex.perm[e]]
    succ = {}
    for v in range(ex.num_states):
        k = ex.kind[v]
        succ[v] = ([] if k == TERMINAL else [(e, ex.prob[e]) for e in ex.edges(v)] if k == CHANCE
                   else [(int(choice[v]), Fraction(1))])
    g = nx.DiGraph()
    g.add_nodes_from(succ)
    g.add_edges_from((v, int(ex.child[e])) for v, out in succ.items() for e, _ in out)
    cond = nx.condensation(g)
    value: dict[int, tuple[Fraction, ...]] = {v: tuple(r) for v, r in ex.returns.items()}
    for comp in reversed(list(nx.topological_sort(cond))):
        members = [v for v in cond.nodes[comp]["members"] if ex.kind[v] != TERMINAL]
        local = {v: i for i, v in enumerate(members)}
        rows, rhs = [], []
        for v in members:
            for s in range(seats):
                row = {local[v] * seats + s: Fraction(1)}
                b = Fraction(0)
                for e, p in succ[v]:
                    c, col = int(ex.child[e]), cols(e)[s]
                    if c in local:
                        key = local[c] * seats + col
                        row[key] = row.get(key, Fraction(0)) - p
                    else:
                        b += p * value[c][col]
                rows.append(row)
                rhs.append([b])
        if members:
            x = fraction_solve(rows, rhs)
            for v in members:
                value[v] = tuple(x[local[v] * seats + s][0] for s in range(seats))
    return [value[v] for v in range(ex.num_states)]


@pytest.mark.parametrize("goal", range(5, 13))
def test_pig_exact_solve_equals_the_fraction_reference(goal):
    ex = explore(Pig(goal=goal))
    sol = solve(ex, exact=True)
    ref = reference_values(ex, sol.choice)
    assert sol.exact == ref
    perms = ex.game.seat_permutations
    for v in range(ex.num_states):     # and the policy is the first maximal action, exactly
        mover = ex.kind[v]
        if mover < 0:
            continue
        q = [ref[ex.child[e]][mover if ex.perm is None else perms[ex.perm[e]][mover]] for e in ex.edges(v)]
        assert sol.choice[v] == ex.edges(v)[q.index(max(q))]


@pytest.mark.parametrize("p03", ["reach-or-pass", pytest.param("bounce", marks=pytest.mark.slow)])
def test_presentes_turn_chain_equals_the_fraction_reference(p03):
    from ruleproof.model.presentes import SPEC
    from ruleproof.model.presentes.exact import ZERO, TurnChain, outcome_vector
    from ruleproof.model.presentes.policies import POLICY_DISTS
    rs = SPEC.default().with_overrides({"board": "tiny", "players": 2, "dice": 1}, {"P03": p03},
                                       spec=SPEC.schema, source="test")
    game = SPEC.build(rs)
    chain = TurnChain(game, lambda s: POLICY_DISTS["eager"](game, s))
    values = chain.solve(lambda s: [ZERO] + outcome_vector(game, s), [1] + [0] * 6)
    starts = list(chain.kernel)
    index = {s: i for i, s in enumerate(starts)}
    rows, rhs = [], []
    for s in starts:
        row = {index[s]: Fraction(1)}
        b = [Fraction(int(not (chain.pre_turn and s == chain.start)))] + [Fraction(0)] * 6
        for t, w in chain.kernel[s].items():
            p = Fraction(w, chain.kden[s])
            if t in index:
                row[index[t]] = row.get(index[t], Fraction(0)) - p
            else:
                b = [x + p * y for x, y in zip(b, [ZERO] + outcome_vector(game, t))]
        rows.append(row)
        rhs.append(b)
    ref = fraction_solve(rows, rhs)
    assert any(len(part) > 1 for part, _ in components_in_order(
        len(starts), [index[s] for s in starts for t in chain.kernel[s] if t in index],
        [index[t] for s in starts for t in chain.kernel[s] if t in index]))   # cycles were solved
    for s in starts:
        assert values[s] == ref[index[s]]
