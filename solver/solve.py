"""Optimal values and policies on an explored state graph, for any protocol game.

Every decision node maximises the value of the seat that moves there (max^n; for two players with
constant-sum utilities this is exactly minimax over chance). **Tie rule**: among the actions whose
value for the mover is maximal, the first in legal-action order is chosen; in float mode values within
``tie_tolerance`` of the maximum count as tied. The rule is deterministic, so the other seats' values
are well defined.

The graph is split into strongly connected components (SCCs) and solved from the end backwards.
Where a C compiler is present, one compiled pass (``solver/sccsolve.c``) does it all: Tarjan's
walk solves each component as it finds it (a backup off cycles; Gauss-Seidel value iteration with
geometric jumps on a cycle, to the same residual rule), and hands back any component it cannot
settle, or whose policy could never leave it, to the policy iteration below. Otherwise (or with
``native=False``) the numpy path solves one *level* of the condensation at a time (a level holds
SCCs whose successors all lie in lower levels):

* levels of single states without self-loops (the whole graph, for acyclic games) are plain backward
  induction, one pass;
* levels with cycles are solved by policy iteration -- fix every decision, solve the linear system
  of the chance averages exactly in floating point (sparse LU), improve the decisions, repeat -- and,
  should that not settle, by value iteration. Stopping rule: the Bellman residual (the largest change
  one more backup would make to any value) is below ``tolerance``; the residual reached is reported.

``exact=True`` recomputes every value as a ``Fraction``: backward induction with exact arithmetic
on acyclic parts, and on each cyclic SCC an exact linear solve for the policy found in floating point,
followed by an exact optimality check of every decision in it (switching and re-solving until none
can improve, then applying the tie rule exactly). Use it on small graphs.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

import numpy as np
from flint import fmpq
from scipy.sparse import coo_matrix, csr_matrix, identity
from scipy.sparse.csgraph import breadth_first_order
from scipy.sparse.linalg import splu

from ruleproof.model.protocol import CHANCE, TERMINAL

from . import sccsolve
from .explore import Exploration
from .rational import SingularSystem, condensation, fraction_rows, solve_sparse_fmpq, to_fmpq

Progress = Callable[[str, int, int], None]  # (phase, done, total)
PRE_SWEEPS = 20
_ORDERING = "COLAMD"  # column ordering for sparse LU (others measured no faster on Pig)


class SolveError(RuntimeError):
    pass


@dataclass
class Solution:
    exploration: Exploration
    values: np.ndarray                 # (states, seats) float values
    choice: np.ndarray                 # decision node -> chosen edge (-1 elsewhere)
    exact: list[tuple[Fraction, ...]] | None
    residual: float
    method: str
    seconds: float
    cyclic_states: int
    #: how the float values were found (the compiled pass: sweeps, states backed up in them, jumps,
    #: components handed back)
    work: dict = field(default_factory=dict)

    @property
    def initial(self) -> tuple[float, ...]:
        return tuple(float(v) for v in self.values[0])

    @property
    def initial_exact(self) -> tuple[Fraction, ...] | None:
        return self.exact[0] if self.exact is not None else None

    def edge_value(self, edge: int) -> np.ndarray:
        """The value vector, in the parent's seats, of following ``edge``."""
        ex = self.exploration
        row = self.values[ex.child[edge]]
        if ex.perm is None:
            return row
        return row[list(ex.game.seat_permutations[ex.perm[edge]])]

    def edge_value_exact(self, edge: int) -> tuple[Fraction, ...]:
        ex = self.exploration
        row = self.exact[ex.child[edge]]
        if ex.perm is None:
            return row
        return tuple(row[c] for c in ex.game.seat_permutations[ex.perm[edge]])


# ---- graph preparation ---------------------------------------------------------------------------

@dataclass
class _Arrays:
    n_states: int
    seats: int
    kind: np.ndarray
    offsets: np.ndarray
    child: np.ndarray
    source: np.ndarray
    prob: np.ndarray
    cols: np.ndarray        # (edges, seats): which child column feeds each parent seat
    scratch: np.ndarray     # a node -> local index map, all -1 between uses (see _local_index)
    #: two seats whose values always add up to this (checked on every terminal by the explorer):
    #: seat 1's value is then determined by seat 0's, and linear solves need one column only
    pair_sum: float | None = None


def _arrays(ex: Exploration) -> _Arrays:
    n = ex.num_states
    seats = ex.game.num_players
    kind = np.frombuffer(ex.kind, dtype=np.int8).astype(np.int64)
    offsets = np.frombuffer(ex.offsets, dtype=np.int64)
    child = np.frombuffer(ex.child, dtype=np.int64)
    source = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    table = np.array([0.0] + [float(p) for p in ex.prob_table], dtype=np.float64)
    prob = table[np.frombuffer(ex.prob_code, dtype=np.int64)]
    if ex.perm is None:
        cols = np.broadcast_to(np.arange(seats), (len(child), seats))
    else:
        table = np.array(ex.game.seat_permutations, dtype=np.int64)
        cols = table[np.frombuffer(ex.perm, dtype=np.int8).astype(np.int64)]
    const = ex.game.constant_sum
    pair_sum = (float(const) if seats == 2 and const is not None
                and "utility-bounds" not in ex.violations else None)
    return _Arrays(n, seats, kind, offsets, child, source, prob, cols, np.full(n + 1, -1, dtype=np.int64),
                   pair_sum)


class _local_index:
    """``with _local_index(a, nodes) as local``: local[node] is its position in ``nodes``, -1 for
    others; reuses one scratch array so the cost is the level's size, not the graph's."""

    def __init__(self, a: _Arrays, nodes: np.ndarray):
        self.a, self.nodes = a, nodes

    def __enter__(self) -> np.ndarray:
        self.a.scratch[self.nodes] = np.arange(len(self.nodes))
        return self.a.scratch

    def __exit__(self, *exc) -> None:
        self.a.scratch[self.nodes] = -1


def _levels(a: _Arrays, dag_first: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """SCC labels, a level per SCC (0 = sinks), and whether each SCC is cyclic."""
    return condensation(a.n_states, a.source, a.child, dag_first)


@dataclass(frozen=True)
class _Edges:
    n_states: int
    source: np.ndarray
    child: np.ndarray


def scc_levels(n_states: int, source: np.ndarray, child: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What ``solve`` orders its work by, for any edge list: SCC labels, each SCC's height (the
    longest path to a sink of the condensation, in edges) and whether it is cyclic. On an acyclic
    graph a state's height is the longest play from it."""
    return _levels(_Edges(n_states, source, child))


# ---- float solving -------------------------------------------------------------------------------

def _edge_slices(a: _Arrays, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All edges of ``nodes`` (in node order) and the start of each node's run within them."""
    starts, ends = a.offsets[nodes], a.offsets[nodes + 1]
    counts = ends - starts
    run_start = np.concatenate(([0], np.cumsum(counts)[:-1]))
    edges = np.repeat(starts - run_start, counts) + np.arange(counts.sum())
    return edges, run_start


class _Level:
    """The nodes of one level and the vectorised Bellman backup over them."""

    def __init__(self, a: _Arrays, nodes: np.ndarray, tie_tolerance: float):
        self.a, self.tie = a, tie_tolerance
        kinds = a.kind[nodes]
        self.dec = nodes[kinds >= 0]
        self.cha = nodes[kinds == CHANCE]
        self.dec_edges, self.dec_run = _edge_slices(a, self.dec)
        self.cha_edges, self.cha_run = _edge_slices(a, self.cha)
        seats = a.seats
        self.dec_mover_col = a.cols[self.dec_edges, np.repeat(a.kind[self.dec], np.diff(
            np.concatenate((self.dec_run, [len(self.dec_edges)]))))] if len(self.dec) else np.zeros(0, np.int64)
        # flat indices into values.ravel(): the mover's column of each decision edge's child, and
        # every column of each chance edge's child (so a backup is two 1-D gathers)
        self.dec_q_flat = a.child[self.dec_edges] * seats + self.dec_mover_col
        self.cha_flat = a.child[self.cha_edges][:, None] * seats + a.cols[self.cha_edges]
        self.cha_weight = a.prob[self.cha_edges][:, None]
        self._fixed: tuple | None = None   # policy_solve's policy-independent arrays
        if a.pair_sum is not None:   # seat 0's column alone carries the values (see pair_sum)
            self.cha_flat0 = np.ascontiguousarray(self.cha_flat[:, 0])
            self.cha_weight0 = np.ascontiguousarray(self.cha_weight[:, 0])

    def child_vectors(self, values: np.ndarray, edges: np.ndarray) -> np.ndarray:
        flat = self.a.child[edges][:, None] * self.a.seats + self.a.cols[edges]
        return values.ravel()[flat]

    def best_edges(self, values: np.ndarray) -> np.ndarray:
        """Chosen edge per decision node under the tie rule (first maximal action)."""
        if not len(self.dec):
            return np.zeros(0, np.int64)
        q = values.ravel()[self.dec_q_flat]
        best = np.maximum.reduceat(q, self.dec_run)
        counts = np.diff(np.concatenate((self.dec_run, [len(q)])))
        tied = q >= np.repeat(best, counts) - self.tie
        position = np.where(tied, np.arange(len(q)), len(q))
        return self.dec_edges[np.minimum.reduceat(position, self.dec_run)]

    def trapped_decisions(self, chosen: np.ndarray) -> np.ndarray:
        """Mask over decision nodes that, under ``chosen``, can never leave the level: such closed
        loops (e.g. both players passing back and forth) make the policy's linear system singular."""
        a = self.a
        nodes = np.concatenate((self.dec, self.cha))
        size = len(nodes)
        with _local_index(a, nodes) as local:
            targets = local[a.child[np.concatenate((chosen, self.cha_edges))]]
        owners = np.concatenate((np.arange(len(self.dec)), len(self.dec) + np.repeat(
            np.arange(len(self.cha)), np.diff(np.concatenate((self.cha_run, [len(self.cha_edges)]))))))
        outside = targets < 0
        # reverse graph plus a virtual exit node (index size) pointing at every node with an exit
        src = np.concatenate((targets[~outside], np.full(int(outside.sum()), size)))
        dst = np.concatenate((owners[~outside], owners[outside]))
        graph = csr_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(size + 1, size + 1))
        reached = np.zeros(size + 1, dtype=bool)
        reached[breadth_first_order(graph, size, directed=True, return_predecessors=False)] = True
        return ~reached[:len(self.dec)]

    def improve(self, values: np.ndarray, current: np.ndarray) -> np.ndarray:
        """Policy improvement: switch a decision only where another action is strictly better
        (beyond the tie tolerance), so that ties never make the policy cycle."""
        best = self.best_edges(values)
        if not len(best):
            return best
        mover = self.a.kind[self.dec]
        def mover_value(edges):
            return values[self.a.child[edges], self.a.cols[edges, mover]]
        better = mover_value(best) > mover_value(current) + self.tie
        return np.where(better, best, current)

    def backup(self, values: np.ndarray, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        dec_vals = self.child_vectors(values, chosen) if len(self.dec) else None
        cha_vals = None
        if len(self.cha):
            cha_vals = np.add.reduceat(values.ravel()[self.cha_flat] * self.cha_weight, self.cha_run, axis=0)
        return dec_vals, cha_vals

    def sweep(self, values: np.ndarray) -> tuple[np.ndarray, float]:
        """One Bellman backup of every node of the level, in place; returns (choices, change)."""
        chosen = self.best_edges(values)
        if self.a.pair_sum is not None:
            return chosen, self._sweep_pair(values, chosen)
        dec_vals, cha_vals = self.backup(values, chosen)
        change = 0.0
        if dec_vals is not None:
            change = max(change, float(np.abs(values[self.dec] - dec_vals).max()))
            values[self.dec] = dec_vals
        if cha_vals is not None:
            change = max(change, float(np.abs(values[self.cha] - cha_vals).max()))
            values[self.cha] = cha_vals
        return chosen, change

    def _sweep_pair(self, values: np.ndarray, chosen: np.ndarray) -> float:
        """``sweep`` for two constant-sum seats: back up seat 0's column, derive seat 1's."""
        a, c, flat = self.a, self.a.pair_sum, values.ravel()
        dec0 = flat[a.child[chosen] * 2 + a.cols[chosen, 0]] if len(self.dec) else None
        cha0 = (np.add.reduceat(flat[self.cha_flat0] * self.cha_weight0, self.cha_run)
                if len(self.cha) else None)
        change = 0.0
        for nodes, new in ((self.dec, dec0), (self.cha, cha0)):
            if new is not None:
                change = max(change, float(np.abs(values[nodes, 0] - new).max()))
                values[nodes, 0] = new
                values[nodes, 1] = c - new
        return change

    def policy_solve(self, values: np.ndarray, chosen: np.ndarray) -> None:
        """Solve the level's values exactly (in floats) for fixed decisions ``chosen``.

        Decision nodes only copy a successor's value, so they are substituted away first: each is
        resolved to the chance node (or already-solved node) its chain of choices leads to, with
        the seat permutations composed; the sparse linear system then has only chance nodes."""
        a = self.a
        seats = a.seats
        if self._fixed is None:   # what does not depend on the policy, computed once per level
            with _local_index(a, self.dec) as scratch:
                via = scratch[a.child[self.cha_edges]]
            owners = np.repeat(np.arange(len(self.cha)),
                               np.diff(np.concatenate((self.cha_run, [len(self.cha_edges)]))))
            self._fixed = (via, via >= 0, a.child[self.cha_edges], a.cols[self.cha_edges],
                           a.prob[self.cha_edges], owners)
        via, through, edge_child, edge_cols, weights, owners = self._fixed
        with _local_index(a, self.dec) as scratch:
            dec_local_of_child = scratch[a.child[chosen]]
        target = a.child[chosen]
        cols = a.cols[chosen].copy()
        # where each decision's chain has got to, as a position in self.dec (-1: left the decisions)
        at = dec_local_of_child.copy()
        pending = np.flatnonzero(at >= 0)
        for _ in range(len(self.dec) + 1):
            if not len(pending):
                break
            nxt = at[pending]
            # V_d[s] = V_t[cols_d[s]] and V_t[c] = V_u[cols_t[c]]  =>  cols_d <- cols_t[cols_d]
            cols[pending] = np.take_along_axis(cols[nxt], cols[pending], axis=1)
            target[pending] = target[nxt]
            at[pending] = at[nxt]
            pending = pending[at[pending] >= 0]
        else:
            raise RuntimeError("decisions loop without reaching a chance node")
        if len(self.cha):
            edge_cols = edge_cols.copy()
            edge_cols[through] = np.take_along_axis(cols[via[through]], edge_cols[through], axis=1)
            edge_child = edge_child.copy()
            edge_child[through] = target[via[through]]
            with _local_index(a, self.cha) as cha_local:
                edge_local = cha_local[edge_child]
            inside = edge_local >= 0
            solve_chance = self._solve_pair_column if a.pair_sum is not None else self._solve_every_column
            solve_chance(values, owners, edge_child, edge_cols, weights, edge_local, inside)
        if len(self.dec):
            values[self.dec] = values.ravel()[target[:, None] * seats + cols]

    def _solve_every_column(self, values, owners, edge_child, edge_cols, weights, edge_local, inside):
        """The chance nodes' linear system with one unknown per (node, seat)."""
        seats = self.a.seats
        m = len(self.cha) * seats
        rows = (owners[:, None] * seats + np.arange(seats)).ravel()
        outside_vals = values.ravel()[edge_child[:, None] * seats + edge_cols] * weights[:, None]
        rhs = np.bincount(rows[np.repeat(~inside, seats)], weights=outside_vals[~inside].ravel(),
                          minlength=m)
        in_rows = rows[np.repeat(inside, seats)]
        in_cols = (edge_local[inside][:, None] * seats + edge_cols[inside]).ravel()
        in_w = np.repeat(weights[inside], seats)
        matrix = identity(m, format="csc") - coo_matrix((in_w, (in_rows, in_cols)), shape=(m, m)).tocsc()
        values[self.cha] = splu(matrix, permc_spec=_ORDERING).solve(rhs).reshape(len(self.cha), seats)

    def _solve_pair_column(self, values, owners, edge_child, edge_cols, weights, edge_local, inside):
        """Two seats with a constant sum c: solve seat 0's column alone. A child seen with the seats
        swapped contributes c - v instead of v, so the system is I - A with signed weights."""
        c = self.a.pair_sum
        n = len(self.cha)
        swapped = edge_cols[:, 0] == 1
        out = ~inside
        seen = values[edge_child[out], edge_cols[out, 0]] * weights[out]
        rhs = np.bincount(owners[out], weights=seen, minlength=n)
        rhs += np.bincount(owners[inside], weights=weights[inside] * c * swapped[inside], minlength=n)
        signed = np.where(swapped[inside], -weights[inside], weights[inside])
        matrix = identity(n, format="csc") - coo_matrix(
            (signed, (owners[inside], edge_local[inside])), shape=(n, n)).tocsc()
        x = splu(matrix, permc_spec=_ORDERING).solve(rhs)
        values[self.cha, 0] = x
        values[self.cha, 1] = c - x


def _set_returns(values: np.ndarray, returns: dict[int, tuple]) -> None:
    """``values[node] = returns[node]`` in floats, converting each distinct returns object once
    (games such as Loira return a handful of shared tuples for millions of terminals)."""
    if not returns:
        return
    objects = list(returns.values())   # keeps every tuple alive, so no id is reused meanwhile
    ids = np.fromiter(map(id, objects), dtype=np.uint64, count=len(objects))
    _, first, codes = np.unique(ids, return_index=True, return_inverse=True)
    rows = np.array([[float(r) for r in objects[i]] for i in first.tolist()], dtype=np.float64)
    nodes = np.fromiter(returns.keys(), dtype=np.int64, count=len(returns))
    values[nodes] = rows[codes.reshape(-1)]


def solve(ex: Exploration, *, exact: bool = False, tolerance: float = 1e-12,
          tie_tolerance: float = 1e-12, max_policy_rounds: int = 30,
          max_sweeps: int = 100_000, progress: Progress | None = None,
          native: bool | None = None) -> Solution:
    """Solve ``ex``. ``native``: the compiled pass (``solver/sccsolve.c``) when it can be built here
    (None, the default), always (True: an error if it cannot) or never (False: numpy by levels)."""
    if not ex.complete:
        raise SolveError(f"the exploration is partial ({ex.stop_reason}); cannot solve exactly")
    start = time.perf_counter()
    n, seats = ex.num_states, ex.game.num_players
    values = np.zeros((n + 1, seats))
    _set_returns(values, ex.returns)
    choice = np.full(n, -1, dtype=np.int64)
    why_not = "not asked for" if native is False else sccsolve.available()
    if why_not is not None and native:
        raise SolveError(f"the compiled solve is not available: {why_not}")
    work: dict[str, object] = {}
    if why_not is None:
        label, level_of_comp, node_cyclic, residual, method = _solve_native(
            ex, values, choice, tolerance, tie_tolerance, max_policy_rounds, max_sweeps, progress, work)
    else:
        label, level_of_comp, node_cyclic, residual, method = _solve_levels(
            ex, values, choice, tolerance, tie_tolerance, max_policy_rounds, max_sweeps, progress)
    exact_values = None
    if exact:
        g = _ExactGraph(ex)
        exact_q = _exact_values(g, label, level_of_comp, node_cyclic, choice)
        choice = _exact_choices(g, exact_q, choice)
        exact_values = fraction_rows(exact_q)
        values[:n] = [[float(v) for v in row] for row in exact_q]
        method += ", exact rational"
    return Solution(ex, values[:n], choice, exact_values, abs(residual), method,
                    time.perf_counter() - start, int(node_cyclic.sum()), work)


def _solve_native(ex, values, choice, tolerance, tie_tolerance, rounds, max_sweeps, progress, work):
    """The compiled pass; a component it hands back is solved by policy iteration, as by levels."""
    arrays: list[_Arrays] = []   # built on the first component handed back (they cost 0.3 s at 10^6 states)

    def settle(nodes: np.ndarray) -> float:
        if not arrays:
            arrays.append(_arrays(ex))
        level = _Level(arrays[0], nodes, tie_tolerance)
        # from the values the levels' path starts from: where the Bellman equations have several
        # solutions (a decision that may loop forever), iteration from the C pass's values could
        # stay at another one
        values[nodes] = 0.0
        chosen, change = _solve_cyclic_level(level, values, tolerance, rounds, max_sweeps)
        choice[level.dec] = chosen
        return change

    run = sccsolve.solve_floats(ex, values, choice, tolerance=tolerance, tie_tolerance=tie_tolerance,
                                settle=settle, progress=progress)
    work.update(sweeps=run.sweeps, backups=run.backups, jumps=run.jumps, handed_back=run.handed_back)
    method = "backward induction"
    if run.cyclic.any():
        method = "SCC value iteration" + (f", policy iteration on {run.handed_back} of them"
                                          if run.handed_back else "")
    # components are numbered sinks first: that order is a valid order of levels
    levels = np.arange(int(run.comp.max()) + 1 if len(run.comp) else 0)
    return run.comp, levels, run.cyclic, run.residual, method


def _solve_levels(ex, values, choice, tolerance, tie_tolerance, rounds, max_sweeps, progress):
    """numpy, one level of the condensation at a time."""
    a = _arrays(ex)
    # a game that bounds its length (``max_game_length``) has an acyclic graph: peeled directly
    label, level_of_comp, cyclic_comp = _levels(a, dag_first=ex.game.max_game_length is not None)
    node_level = level_of_comp[label]
    node_cyclic = cyclic_comp[label]
    order = np.argsort(node_level, kind="stable")
    bounds = np.searchsorted(node_level[order], np.arange(node_level.max() + 2))
    residual = 0.0
    n_levels = len(bounds) - 1
    for lvl in range(n_levels):
        nodes = order[bounds[lvl]:bounds[lvl + 1]]
        nodes = nodes[a.kind[nodes] != TERMINAL]
        if not len(nodes):
            continue
        level = _Level(a, nodes, tie_tolerance)
        if not node_cyclic[nodes].any():
            chosen, _ = level.sweep(values)
        else:
            chosen, change = _solve_cyclic_level(level, values, tolerance, rounds, max_sweeps)
            residual = max(residual, change)
        choice[level.dec] = chosen
        if progress is not None:
            progress("solve", lvl + 1, n_levels)
    method = "backward induction" if not node_cyclic.any() else "SCC policy iteration"
    return label, level_of_comp, node_cyclic, residual, method


def _solve_cyclic_level(level: _Level, values: np.ndarray, tolerance: float, rounds: int,
                        max_sweeps: int) -> tuple[np.ndarray, float]:
    """Policy iteration, then value-iteration sweeps until the Bellman residual is small.

    An improvement step that would close a loop with no way out of the level (every seat switching
    at once into passing the turn around) is undone for the decisions caught in the loop, so each
    policy solved keeps a non-singular system."""
    chosen = level.best_edges(values)
    # cheap value-iteration sweeps first: they carry values along the level's chains, so the
    # greedy policy is nearly optimal and policy iteration needs one or two (costly) LU solves.
    # The two-seat sweeps read a child seen with the seats swapped from its seat-1 column, which
    # only the first sweep sets: a first sweep that changes nothing proves nothing there
    for sweep in range(PRE_SWEEPS):
        chosen, change = level.sweep(values)
        if change <= tolerance and (sweep > 0 or level.a.pair_sum is None):
            return chosen, change
    for _ in range(rounds):
        try:
            level.policy_solve(values, chosen)
        except RuntimeError:
            # still singular (the first guess was already trapped): let sweeps find a better start
            for _ in range(20):
                chosen, _ = level.sweep(values)
            continue
        improved = level.improve(values, chosen)
        trapped = level.trapped_decisions(improved)
        while trapped.any():
            revert = trapped & (improved != chosen)
            if not revert.any():
                break
            improved = np.where(revert, chosen, improved)
            trapped = level.trapped_decisions(improved)
        if np.array_equal(improved, chosen):
            break
        chosen = improved
    change = np.inf
    for _ in range(max_sweeps):
        chosen, change = level.sweep(values)
        if change <= tolerance:
            return chosen, change
    raise SolveError(f"value iteration did not reach tolerance {tolerance:g} (residual {change:g})")


# ---- exact solving -------------------------------------------------------------------------------
# Values are flint ``fmpq`` while solving (C arithmetic, see solver.rational) and become Fractions
# once, at the end.

class _ExactGraph:
    """The exploration's probabilities as fmpq and each edge's seat map, looked up per edge."""

    def __init__(self, ex: Exploration):
        self.ex = ex
        self.seats = ex.game.num_players
        self.ident = tuple(range(self.seats))
        self.perms = [tuple(p) for p in ex.game.seat_permutations] if ex.perm is not None else None
        self.qprob = [None] + [to_fmpq(p) for p in ex.prob_table]

    def prob(self, edge: int) -> fmpq:
        return self.qprob[self.ex.prob_code[edge]]

    def cols(self, edge: int) -> tuple[int, ...]:
        """Which child seat feeds each seat of the parent along ``edge``."""
        return self.ident if self.perms is None else self.perms[self.ex.perm[edge]]


def _exact_backup(g: _ExactGraph, node: int, exact: list, chosen_edge: int) -> tuple[fmpq, ...]:
    ex = g.ex
    if ex.kind[node] == CHANCE:
        total = [fmpq(0)] * g.seats
        for edge in ex.edges(node):
            p, row, cols = g.prob(edge), exact[ex.child[edge]], g.cols(edge)
            total = [t + p * row[c] for t, c in zip(total, cols)]
        return tuple(total)
    row = exact[ex.child[chosen_edge]]
    return tuple(row[c] for c in g.cols(chosen_edge))


def _first_best_edge(g: _ExactGraph, node: int, exact: list) -> int:
    ex = g.ex
    mover = ex.kind[node]
    best_edge, best = -1, None
    for edge in ex.edges(node):
        v = exact[ex.child[edge]][g.cols(edge)[mover]]
        if best is None or v > best:
            best_edge, best = edge, v
    return best_edge


def _exact_values(g: _ExactGraph, label, level_of_comp, node_cyclic, choice) -> list[tuple[fmpq, ...]]:
    ex = g.ex
    exact: list = [None] * ex.num_states
    for node, ret in ex.returns.items():
        exact[node] = tuple(to_fmpq(r) for r in ret)
    order = np.lexsort((label, level_of_comp[label]))
    i = 0
    n = len(order)
    while i < n:
        comp = label[order[i]]
        j = i
        while j < n and label[order[j]] == comp:
            j += 1
        members = [int(v) for v in order[i:j] if ex.kind[v] != TERMINAL]
        if members and not node_cyclic[members[0]]:
            node = members[0]
            edge = _first_best_edge(g, node, exact) if ex.kind[node] >= 0 else -1
            exact[node] = _exact_backup(g, node, exact, edge)
        elif members:
            _exact_scc(g, members, exact, choice)
        i = j
    return exact


def _exact_scc(g: _ExactGraph, members: list[int], exact: list, choice: np.ndarray) -> None:
    """Exact policy iteration on one cyclic SCC, starting from the float policy."""
    ex = g.ex
    policy = {v: int(choice[v]) for v in members if ex.kind[v] >= 0}
    for _ in range(200):
        _exact_linear_solve(g, members, policy, exact)
        changed = False
        for v in policy:
            best = _first_best_edge(g, v, exact)
            mover = ex.kind[v]
            def mover_value(edge):
                return exact[ex.child[edge]][g.cols(edge)[mover]]
            if mover_value(best) > mover_value(policy[v]) or (
                    best != policy[v] and mover_value(best) == mover_value(policy[v]) and best < policy[v]):
                policy[v] = best
                changed = True
        if not changed:
            return
    raise SolveError("exact policy iteration did not settle on a cyclic component")


def _resolve_decisions(g: _ExactGraph, members: list[int], policy: dict[int, int]) -> dict:
    """Each decision member -> (node, seat map): the chance member or outside node its chain of
    chosen edges reaches, and which of that node's seats is each of its own (decisions only copy)."""
    ex = g.ex
    inside = set(members)
    resolved: dict[int, tuple[int, tuple[int, ...]]] = {}
    for v in policy:
        path: list[int] = []
        on_path: set[int] = set()
        u = v
        while u in inside and ex.kind[u] >= 0 and u not in resolved:
            if u in on_path:
                raise SolveError("singular system on a cyclic component (a policy that never ends?)")
            path.append(u)
            on_path.add(u)
            u = ex.child[policy[u]]
        target, cols = resolved.get(u, (u, g.ident))
        for w in reversed(path):   # V_w[s] = V_child[ce[s]] = V_target[cols[ce[s]]]
            cols = tuple(cols[c] for c in g.cols(policy[w]))
            resolved[w] = (target, cols)
    return resolved


def _exact_linear_solve(g: _ExactGraph, members: list[int], policy: dict[int, int], exact: list) -> None:
    """The SCC's values under ``policy``. Decisions are substituted away first (each copies the
    node its choices lead to), leaving one unknown per (chance member, seat), solved by the shared
    rational module."""
    ex, seats = g.ex, g.seats
    resolved = _resolve_decisions(g, members, policy)
    chance = [v for v in members if ex.kind[v] < 0]
    local = {v: i for i, v in enumerate(chance)}
    rows: list[dict[int, fmpq]] = []
    rhs: list[list[fmpq]] = []
    one, zero = fmpq(1), fmpq(0)
    for v in chance:
        vrows = [{local[v] * seats + s: one} for s in range(seats)]
        b = [zero] * seats
        for edge in ex.edges(v):
            p, ce, c = g.prob(edge), g.cols(edge), ex.child[edge]
            target, cols = resolved.get(c, (c, g.ident))
            k = local.get(target)
            for s in range(seats):
                col = cols[ce[s]]
                if k is None:
                    b[s] += p * exact[target][col]
                else:
                    row, key = vrows[s], k * seats + col
                    row[key] = row.get(key, zero) - p
        rows.extend(vrows)
        rhs.extend([x] for x in b)
    try:
        solved = solve_sparse_fmpq(rows, rhs)
    except SingularSystem:
        raise SolveError("singular system on a cyclic component (a policy that never ends?)") from None
    for v, i in local.items():
        exact[v] = tuple(solved[i * seats + s][0] for s in range(seats))
    for v, (target, cols) in resolved.items():
        row = exact[target]
        exact[v] = tuple(row[c] for c in cols)


def _exact_choices(g: _ExactGraph, exact: list, choice: np.ndarray) -> np.ndarray:
    out = choice.copy()
    for node in range(g.ex.num_states):
        if g.ex.kind[node] >= 0:
            out[node] = _first_best_edge(g, node, exact)
    return out
