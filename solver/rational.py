"""Exact linear algebra shared by every engine, and the graph orderings it rests on.

* :func:`condensation` -- strongly connected components (``scipy.sparse.csgraph``) and their
  topological levels (0 = sinks), numpy-vectorised; :func:`components_in_order` lists them so that
  every component comes after those it points to.
* :func:`solve_sparse` -- a square rational system ``A X = B`` given as sparse rows, solved block by
  block: the blocks are the SCCs of ``A``'s pattern, taken dependencies first, each a small dense
  system in python-flint (``fmpq_mat.solve``) once the already solved unknowns are substituted.
  A block too large to hold densely is eliminated sparsely, still in flint's ``fmpq``.
* :func:`walk_absorptions` -- the exact mass absorbed at each step of an integer-weighted sparse
  walk (a turn-count distribution), propagated modulo word-size primes with numpy and rebuilt by
  the Chinese remainder theorem.

Values enter and leave as ``fractions.Fraction`` so callers and their tests see one number type;
flint's C arithmetic is only used inside (``bench/bench_exact.py``: exact Pig goal 30 in 0.8 CPU
seconds where Fraction Gauss-Jordan took 46).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Mapping, Sequence

import numpy as np
from flint import fmpq, fmpq_mat, fmpz
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

Number = Fraction | int | fmpq
#: blocks with more unknowns than this are eliminated sparsely: a dense fmpq matrix of n^2 entries
#: would cost n^2 memory even where a row has a handful of terms
DENSE_LIMIT = 2_000


class SingularSystem(ArithmeticError):
    """The system has no unique solution (e.g. a policy that loops forever without chance)."""


def to_fmpq(x: Number) -> fmpq:
    if isinstance(x, fmpq):
        return x
    if isinstance(x, int):
        return fmpq(x)
    return fmpq(x.numerator, x.denominator)


def to_fraction(x: fmpq) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def fraction_rows(rows: Sequence[Sequence[fmpq]]) -> list[tuple[Fraction, ...]]:
    """Rows of fmpq as tuples of Fractions, each value object converted once: solved games share
    value objects between many nodes (a decision copies its child's), and building a Fraction
    costs more than the solve's arithmetic. Keyed by identity (``rows`` keeps the objects alive):
    fmpq's own hash goes through a Fraction."""
    memo: dict[int, Fraction] = {}
    out = []
    for row in rows:
        conv = []
        for v in row:
            f = memo.get(id(v))
            if f is None:
                f = memo[id(v)] = to_fraction(v)
            conv.append(f)
        out.append(tuple(conv))
    return out


# ---- graph orderings -----------------------------------------------------------------------------

def condensation(n: int, src: np.ndarray, dst: np.ndarray, dag_first: bool = False
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """SCC label per node, a level per SCC (0: no edge leaves it; otherwise one more than the
    highest SCC it points to) and whether each SCC is cyclic (several nodes or a self-loop).

    ``dag_first`` (for graphs expected to be acyclic): first peel the graph itself; when that
    reaches every node, each node is its own SCC (labelled by its index) and the strongly
    connected components need not be computed (0.4 of the 0.7 s of a 1.5-million-node solve)."""
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    if dag_first and not (src == dst).any():
        level = _heights(n, src, dst)
        if (level >= 0).all():
            return np.arange(n, dtype=np.int64), level, np.zeros(n, dtype=bool)
    graph = csr_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n))
    n_comp, label = connected_components(graph, directed=True, connection="strong")
    size = np.bincount(label, minlength=n_comp)
    self_loop = np.zeros(n_comp, dtype=bool)
    self_loop[label[src[src == dst]]] = True
    cyclic = (size > 1) | self_loop
    level = _heights(n_comp, label[src], label[dst])
    if (level < 0).any():
        raise ArithmeticError("internal error: condensation is not acyclic")
    return label, level, cyclic


def _heights(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Each node's height (longest path to a sink) by peeling sinks (Kahn's algorithm from the
    end), edges within a node ignored; -1 for the nodes a cycle keeps from being peeled."""
    # the predecessor lists are the reversed edges in CSR form: scipy builds them by a counting
    # sort and merges duplicates (a 1-D sort of 2.6 million edge codes took 5x longer)
    keep = src != dst
    reverse = csr_matrix((np.ones(int(keep.sum()), dtype=np.int8), (dst[keep], src[keep])), shape=(n, n))
    reverse.sum_duplicates()
    pred_start, preds_of = reverse.indptr.astype(np.int64), reverse.indices.astype(np.int64)
    out_deg = np.bincount(preds_of, minlength=n)
    level = np.full(n, -1, dtype=np.int64)
    last_seen = np.full(n, -1, dtype=np.int64)   # dedupes a frontier without sorting it
    frontier = np.flatnonzero(out_deg == 0)
    height = 0
    while frontier.size:
        level[frontier] = height
        starts, ends = pred_start[frontier], pred_start[frontier + 1]
        counts = ends - starts
        if counts.sum() == 0:
            break
        idx = np.repeat(starts - np.cumsum(np.concatenate(([0], counts[:-1]))), counts) + np.arange(counts.sum())
        preds = preds_of[idx]
        np.subtract.at(out_deg, preds, 1)
        ready = preds[out_deg[preds] == 0]
        last_seen[ready] = np.arange(len(ready))
        frontier = ready[last_seen[ready] == np.arange(len(ready))]
        height += 1
    return level


def components_in_order(n: int, src, dst) -> list[tuple[np.ndarray, bool]]:
    """The SCCs as (sorted node indices, cyclic), each after every SCC it has an edge to."""
    label, level, cyclic = condensation(n, np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64))
    order = np.lexsort((np.arange(n), label, level[label]))
    cuts = np.flatnonzero(np.diff(label[order])) + 1
    return [(part, bool(cyclic[label[part[0]]])) for part in np.split(order, cuts) if len(part)]


# ---- rational systems ----------------------------------------------------------------------------

def solve_sparse(rows: Sequence[Mapping[int, Number]], rhs: Sequence[Sequence[Number]],
                 check: Callable[[], None] | None = None) -> list[list[Fraction]]:
    """Solve ``A X = B`` exactly. ``rows[i]`` maps a column to A's nonzero entry; ``rhs[i]`` is B's
    row i (k entries). Raises :class:`SingularSystem`; ``check`` is called before each block (it
    may raise to stop)."""
    return [[to_fraction(v) for v in row] for row in solve_sparse_fmpq(rows, rhs, check)]


def solve_sparse_fmpq(rows: Sequence[Mapping[int, Number]], rhs: Sequence[Sequence[Number]],
                      check: Callable[[], None] | None = None) -> list[list[fmpq]]:
    """:func:`solve_sparse` with flint values out (for callers that keep computing on them)."""
    m = len(rows)
    src = [i for i, row in enumerate(rows) for j in row if j != i]
    dst = [j for i, row in enumerate(rows) for j in row if j != i]
    for i, row in enumerate(rows):
        for j in row:
            if not 0 <= j < m:
                raise ValueError(f"row {i} has a coefficient in column {j}, outside 0..{m - 1}")
    x: list[list[fmpq] | None] = [None] * m
    for block, _ in components_in_order(m, src, dst):
        if check is not None:
            check()
        if len(block) == 1:
            i = int(block[0])
            diag = to_fmpq(rows[i].get(i, 0))
            if diag == 0:
                raise SingularSystem(f"unknown {i} has a zero coefficient and nothing to pivot on")
            b = _substituted(rows[i], rhs[i], x, lambda j, i=i: j == i)
            x[i] = [v / diag for v in b]
        elif len(block) <= DENSE_LIMIT:
            _dense_block(rows, rhs, [int(v) for v in block], x)
        else:
            _sparse_block(rows, rhs, [int(v) for v in block], x)
    return x  # type: ignore[return-value]


def _substituted(row: Mapping[int, Number], b: Sequence[Number], x: list,
                 inside: Callable[[int], bool]) -> list[fmpq]:
    """B's row minus the terms of already solved unknowns (those not ``inside`` the block)."""
    out = [to_fmpq(v) for v in b]
    for j, a in row.items():
        if not inside(j):
            known = x[j]
            a = to_fmpq(a)
            out = [o - a * v for o, v in zip(out, known)]
    return out


def _dense_block(rows, rhs, block: list[int], x: list) -> None:
    local = {v: pos for pos, v in enumerate(block)}
    s, k = len(block), len(rhs[block[0]])
    a = fmpq_mat(s, s)
    b = fmpq_mat(s, k)
    for pos, i in enumerate(block):
        for j, coef in rows[i].items():
            where = local.get(j)
            if where is not None:
                a[pos, where] = to_fmpq(coef)
        for c, v in enumerate(_substituted(rows[i], rhs[i], x, local.__contains__)):
            b[pos, c] = v
    try:
        sol = a.solve(b)
    except ZeroDivisionError:
        raise SingularSystem(f"a block of {s} unknowns is singular") from None
    for pos, i in enumerate(block):
        x[i] = [sol[pos, c] for c in range(k)]


def _sparse_block(rows, rhs, block: list[int], x: list) -> None:
    """Gauss-Jordan over fmpq keeping rows as dicts (fill-in stays local on sparse chains)."""
    local = {v: pos for pos, v in enumerate(block)}
    mat = [{local[j]: to_fmpq(c) for j, c in rows[i].items() if j in local} for i in block]
    b = [_substituted(rows[i], rhs[i], x, local.__contains__) for i in block]
    n = len(block)
    for p in range(n):
        r = next((r for r in range(p, n) if mat[r].get(p, 0) != 0), None)
        if r is None:
            raise SingularSystem(f"a block of {n} unknowns is singular")
        mat[p], mat[r], b[p], b[r] = mat[r], mat[p], b[r], b[p]
        inv = 1 / mat[p][p]
        prow = {c: v * inv for c, v in mat[p].items()}
        pb = [v * inv for v in b[p]]
        mat[p], b[p] = prow, pb
        for r2 in range(n):
            f = mat[r2].get(p) if r2 != p else None
            if f:
                row2 = mat[r2]
                for c, v in prow.items():
                    nv = row2.get(c, 0) - f * v
                    if nv:
                        row2[c] = nv
                    else:
                        row2.pop(c, None)
                b[r2] = [u - f * v for u, v in zip(b[r2], pb)]
    for pos, i in enumerate(block):
        x[i] = b[pos]


# ---- exact walks modulo primes -------------------------------------------------------------------

def word_primes(bits: int, count: int) -> list[int]:
    """The ``count`` largest primes below 2**bits (flint's primality test)."""
    out, c = [], (1 << bits) - 1
    while len(out) < count:
        if fmpz(c).is_prime():
            out.append(c)
        c -= 2 if c % 2 else 1
    return out


def crt(residues: Sequence[int], primes: Sequence[int], modulus: int) -> int:
    """The integer in [0, modulus) with the given residues (``modulus`` = product of ``primes``)."""
    x = 0
    for a, p in zip(residues, primes):
        mp = modulus // p
        x += a * mp * pow(mp, -1, p)
    return x % modulus


def walk_absorptions(n: int, rows: Sequence[int], cols: Sequence[int], weights: Sequence[int],
                     absorb: Sequence[int], init: Mapping[int, int], horizon: int, denominator: int,
                     check: Callable[[], None] = lambda: None) -> list[int]:
    """Exact absorbed mass per step of an integer walk, as numerators.

    Mass moves from node ``rows[e]`` to ``cols[e]`` with integer weight ``weights[e]`` and leaves
    node i with weight ``absorb[i]``; the weights out of any node add up to at most
    ``denominator`` D. Starting from integer masses ``init`` (adding up to d0), returns for
    t = 1..horizon the integer absorbed at step t, at most d0 * D**t (the caller divides by
    that). Multi-modular: masses modulo enough word-size primes, numpy sparse products, the
    Chinese remainder theorem per step; plain Python integers when D is too large for that.
    """
    big_d = denominator
    start_bits = max(sum(init.values()), 1).bit_length()
    indeg = int(np.bincount(np.asarray(cols, dtype=np.int64), minlength=1).max(initial=1)) if len(cols) else 1
    pbits = 62 - max(big_d.bit_length() + indeg.bit_length(), n.bit_length())
    if pbits < 20:
        return _walk_python(n, rows, cols, weights, absorb, init, horizon, check)
    primes = word_primes(pbits, (big_d.bit_length() * horizon + start_bits) // (pbits - 1) + 2)
    ps = np.array(primes, dtype=np.int64)
    mat = csr_matrix((np.array(weights, dtype=np.int64), (np.array(cols, dtype=np.int64),
                      np.array(rows, dtype=np.int64))), shape=(n, n), dtype=np.int64)
    mass = np.zeros((n, len(primes)), dtype=np.int64)
    for i, w in init.items():
        mass[i, :] = [w % p for p in primes]
    ab = np.array(absorb, dtype=np.int64)[:, None]
    modulus = 1
    for p in primes:
        modulus *= p
    out = []
    for _ in range(horizon):
        check()
        ended = ((mass * ab) % ps).sum(axis=0) % ps
        mass = (mat @ mass) % ps
        out.append(crt([int(v) for v in ended], primes, modulus))
    return out


def _walk_python(n, rows, cols, weights, absorb, init, horizon, check) -> list[int]:
    succ: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for i, j, w in zip(rows, cols, weights):
        succ[i].append((j, w))
    mass = dict(init)
    out = []
    for _ in range(horizon):
        check()
        nxt: dict[int, int] = {}
        ended = 0
        for i, m in mass.items():
            ended += m * absorb[i]
            for j, w in succ[i]:
                nxt[j] = nxt.get(j, 0) + m * w
        out.append(ended)
        mass = nxt
    return out
