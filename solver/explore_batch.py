"""Level-by-level exploration in numpy, for games that expand int keys in batches.

The same graph as :func:`solver.explore.explore` builds state by state -- BFS numbering, the edge
that first reached each state, depths, invariant and protocol checks -- but each BFS level is one
call to ``game.expand_keys`` and a handful of array operations. Known keys are numbered by an index:
a hash table in C (``keyindex.c``, built through ``solver.cbuild``) that takes a level's children in
order, or, where C cannot be built (or with ``native=False``), one sorted array into which each
level's new keys are merged. No per-state Python work remains except for terminal returns and for
invariants that lack a vectorised ``check_keys``.
"""
from __future__ import annotations

import ctypes
import time
from array import array
from fractions import Fraction
from pathlib import Path
from typing import Sequence

import numpy as np

from ruleproof.model.protocol import CHANCE, TERMINAL, Game

from . import cbuild
from .exploration import Exploration, Progress, Violation
from .exploration import distribution_problem as _distribution_problem

#: states expanded per numpy call at most (bounds each call's time and memory between the checks)
CHUNK = 1 << 20


class CodedProbabilities(Sequence):
    """``Exploration.prob`` without a Python object per edge: None for decisions, else the
    probability its code names."""

    def __init__(self, codes: array, table: list[Fraction]):
        self.codes, self.table = codes, [None] + list(table)

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, edge):
        if isinstance(edge, slice):
            return [self.table[c] for c in self.codes[edge]]
        return self.table[self.codes[edge]]


class IntList(Sequence):
    """A list of ints kept as one int64 array (``Exploration.keys`` and ``.action`` of a batch
    exploration: no Python int per state or edge unless asked); ``numpy.asarray`` takes the array as
    it is, and the first look-up of single items makes the Python list once (a list index is ~8
    times faster than the array's, and callers such as the play table look up many)."""

    def __init__(self, values: np.ndarray):
        self.values = values
        self._list: list[int] | None = None

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, i):
        if self._list is None:
            self._list = self.values.tolist()
        return self._list[i]

    def __iter__(self):
        return iter(self._list if self._list is not None else self.values.tolist())

    def __array__(self, dtype=None, copy=None):
        return self.values if dtype is None else self.values.astype(dtype, copy=False)

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and len(other) == len(self) and list(self) == list(other)

    __hash__ = None


def _as_array(values: np.ndarray, code: str) -> array:
    out = array(code)
    dtype = {"b": np.int8, "q": np.int64}[code]
    out.frombytes(memoryview(np.ascontiguousarray(values, dtype=dtype)).cast("B"))
    return out


def _joined(parts: list[np.ndarray], code: str) -> array:
    """The parts one after the other in an ``array`` (one copy, no concatenated array between);
    ``parts`` is emptied as it goes, so each part's memory is freed once copied."""
    out = array(code)
    parts.reverse()
    while parts:
        part = parts.pop()
        part = np.ascontiguousarray(part, dtype={"b": np.int8, "q": np.int64}[code])
        out.frombytes(memoryview(part).cast("B"))
    return out


class SortedIndex:
    """Known keys as one sorted array (with their node numbers); a chunk's new keys are merged in."""

    def __init__(self, root_key: int):
        self.keys = np.array([root_key], dtype=np.int64)
        self.ids = np.array([0], dtype=np.int64)

    def number(self, children: np.ndarray, n_states: int) -> tuple[np.ndarray, np.ndarray]:
        """Each child's node (new keys numbered from ``n_states`` in order of first occurrence) and
        the positions of the new keys' first occurrences, in that order."""
        uniq, first_edge, inverse = np.unique(children, return_index=True, return_inverse=True)
        where = np.minimum(np.searchsorted(self.keys, uniq), len(self.keys) - 1)
        known = self.keys[where] == uniq
        ids = np.empty(len(uniq), np.int64)
        ids[known] = self.ids[where[known]]
        fresh = np.flatnonzero(~known)
        order = fresh[np.argsort(first_edge[fresh], kind="stable")]   # in order of discovery
        ids[order] = n_states + np.arange(len(order))
        # merge the new keys into the sorted index (they are absent from it, so insert is exact)
        slots = np.searchsorted(self.keys, uniq[fresh])
        self.keys = np.insert(self.keys, slots, uniq[fresh])
        self.ids = np.insert(self.ids, slots, ids[fresh])
        return ids[inverse.ravel()], first_edge[order]


class HashIndex:
    """Known keys in the C hash table of ``keyindex.c``, grown to keep its load at most one half."""

    SOURCE = Path(__file__).with_name("keyindex.c")

    def __init__(self, root_key: int):
        lib = cbuild.load(self.SOURCE)
        self._number, self._rehash = lib.index_keys, lib.index_rehash
        self._number.restype = ctypes.c_int64
        self._number.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64,
                                 ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p]
        self._rehash.restype = None
        self._rehash.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64]
        self.slots = self._empty(1 << 10)
        self.number(np.array([root_key], dtype=np.int64), 0)

    @staticmethod
    def _empty(capacity: int) -> np.ndarray:
        slots = np.empty((capacity, 2), np.int64)   # (key, node); node -1: empty
        slots[:, 1] = -1
        return slots

    @property
    def capacity(self) -> int:
        return len(self.slots)

    def _reserve(self, states: int) -> None:
        capacity = self.capacity
        if 2 * states <= capacity:
            return
        while 2 * states > capacity:
            capacity *= 2
        slots = self._empty(capacity)
        self._rehash(self.slots.ctypes.data, self.capacity, slots.ctypes.data, capacity)
        self.slots = slots

    def number(self, children: np.ndarray, n_states: int) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`SortedIndex.number`."""
        children = np.ascontiguousarray(children, dtype=np.int64)
        self._reserve(n_states + len(children))
        out, fresh = np.empty(len(children), np.int64), np.empty(len(children), np.int64)
        count = self._number(children.ctypes.data, len(children), self.slots.ctypes.data, self.capacity,
                             n_states, out.ctypes.data, fresh.ctypes.data)
        return out, fresh[:count]


def key_index(root_key: int, native: bool | None = None):
    """The hash table when C can be built here (``native`` None or True), else the sorted array."""
    if native is not False:
        try:
            return HashIndex(root_key)
        except cbuild.Unavailable:
            if native:
                raise
    return SortedIndex(root_key)


def explore_levels(game: Game, root_key: int, *, max_states: int | None, timeout: float | None,
                   check_invariants: bool, progress: Progress | None, start: float,
                   native: bool | None = None) -> Exploration:
    invariants = tuple(game.invariants()) if check_invariants else ()
    table = list(game.batch_probabilities)
    violations: dict[str, Violation] = {}

    def violate(name: str, reason: str, node: int) -> None:
        if name not in violations:
            violations[name] = Violation(name, reason, node)

    for p in table:   # the codes' probabilities, each checked once
        problem = _distribution_problem((p,)) if not isinstance(p, Fraction) or p <= 0 else ""
        if problem:
            violate("chance-distribution", problem, 0)

    def check_new(keys: np.ndarray, first_id: int) -> None:
        for inv in invariants:
            if inv.name in violations:
                continue
            if inv.check_keys is not None:
                bad = np.flatnonzero(inv.check_keys(keys))
                candidates = bad[:1]
            else:
                candidates = range(len(keys))
            for i in candidates:
                reason = inv.check(game.from_key(int(keys[i])))
                if reason is not None:
                    violate(inv.name, reason, first_id + int(i))
                    break
                if inv.check_keys is not None:   # the two forms disagree: say so, do not hide it
                    violate(inv.name, "the vectorised check flags a state the scalar check accepts",
                            first_id + int(i))

    lo_u, hi_u, const_sum = game.min_utility, game.max_utility, game.constant_sum
    state_limit = max_states if max_states is not None else float("inf")
    index = key_index(root_key, native)
    frontier = np.array([root_key], dtype=np.int64)
    check_new(frontier, 0)
    key_parts, kind_parts, count_parts = [frontier], [], []
    child_parts, action_parts, prob_parts, perm_parts = [], [], [], []
    parent_parts, depth_parts = [np.array([-1], np.int64)], [np.array([0], np.int64)]
    returns: dict[int, tuple[Fraction, ...]] = {}
    summed_rows: set = set()
    n_states, n_edges, first_id, level = 1, 0, 0, 0
    complete, stop_reason = True, ""
    symmetric = None
    ratio = 1.0   # new states per expanded state, last seen: sizes the chunks near the state limit
    while len(frontier):
        # a level is expanded in chunks, in order (the same numbering as one expansion): small
        # ones near the state limit, so that the exploration stops within a state's successors
        # of it (the limit and the clock are checked between chunks)
        next_parts = []
        at = 0
        while at < len(frontier):
            if n_states > state_limit:
                complete, stop_reason = False, f"state limit {max_states} reached"
                break
            if timeout is not None and time.perf_counter() - start > timeout:
                complete, stop_reason = False, f"time limit {timeout:g} s reached"
                break
            size = CHUNK
            if max_states is not None:
                size = min(size, max(1, int((state_limit - n_states) / (2 * max(ratio, 1e-3)))))
            chunk = frontier[at:at + size]
            at += len(chunk)
            batch = game.expand_keys(chunk)
            kind = np.asarray(batch.kind, dtype=np.int8)
            counts = np.asarray(batch.counts, dtype=np.int64)
            symmetric = batch.perm is not None
            kind_parts.append(kind)
            count_parts.append(counts)
            _terminal_returns(game, chunk, kind, batch.returns, first_id, returns, violate, lo_u, hi_u,
                              const_sum)
            stuck = np.flatnonzero((kind != TERMINAL) & (counts == 0))
            if len(stuck):
                violate("legal-actions", "a non-terminal state has no legal move", first_id + int(stuck[0]))
            _check_chance_rows(kind, counts, batch.prob, table, first_id, violate, summed_rows)
            children = np.ascontiguousarray(batch.child, dtype=np.int64)
            ids, first = index.number(children, n_states)
            child_parts.append(ids)
            action_parts.append(batch.action)
            prob_parts.append(np.asarray(batch.prob, dtype=np.int64))
            if symmetric:
                perm_parts.append(np.asarray(batch.perm, dtype=np.int8))
            new_keys = children[first]
            parent_parts.append(n_edges + first)
            depth_parts.append(np.full(len(first), level + 1, np.int64))
            key_parts.append(new_keys)
            next_parts.append(new_keys)
            if invariants:
                check_new(new_keys, n_states)
            first_id += len(chunk)
            n_edges += len(children)
            n_states += len(first)
            ratio = len(first) / len(chunk)
            if progress is not None:
                progress(n_states, n_states - first_id, time.perf_counter() - start)
        if not complete:
            break
        frontier = np.concatenate(next_parts) if next_parts else frontier[:0]
        level += 1
    if not complete:
        # states never expanded keep no edges; marked as chance so solvers refuse a partial graph
        pending = n_states - first_id
        kind_parts.append(np.full(pending, CHANCE, np.int8))
        count_parts.append(np.zeros(pending, np.int64))
    counts = np.concatenate(count_parts)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    prob_code = _joined(prob_parts, "q")
    keys = IntList(np.concatenate(key_parts))
    actions = IntList(np.concatenate(action_parts, dtype=np.int64) if action_parts else np.zeros(0, np.int64))
    del index, key_parts[:], action_parts[:]   # what the rest of the assembly no longer needs
    # no permutations from the batch: every edge keeps the seats (the solver reads None as identity)
    perm = _joined(perm_parts, "b") if perm_parts else None
    return Exploration(game, keys, _joined(kind_parts, "b"), _as_array(offsets, "q"),
                       _joined(child_parts, "q"),
                       actions, CodedProbabilities(prob_code, table), prob_code, table, perm,
                       _joined(parent_parts, "q"), _joined(depth_parts, "q"),
                       returns, violations, complete, stop_reason, time.perf_counter() - start)


def _terminal_returns(game, frontier, kind, codes, first_id, returns, violate, lo_u, hi_u,
                      const_sum) -> None:
    """The terminal states' returns, each distinct returns object checked against the bounds once.
    With ``codes`` (``KeyBatch.returns``), the returns come from ``game.batch_returns``, and the
    first terminal of each code in the chunk is checked against ``game.returns`` (the two forms
    must agree)."""
    terminal = np.flatnonzero(kind == TERMINAL)
    nodes = (first_id + terminal).tolist()
    if codes is None:
        rets = [game.returns(game.from_key(k)) for k in frontier[terminal].tolist()]
        seen = {}   # games return a few shared tuples: check each object once, at its first node
        for node, ret in zip(nodes, rets):
            seen.setdefault(id(ret), (node, ret))
        firsts = list(seen.values())
    else:
        table = game.batch_returns
        by_code = np.empty(len(table), object)   # not np.array(table): that would be a 2-D array
        for c, ret in enumerate(table):
            by_code[c] = ret
        codes = np.asarray(codes)[terminal]
        rets = by_code[codes].tolist()
        first = np.unique(codes, return_index=True)[1]
        firsts = []
        for i in np.sort(first).tolist():   # the first terminal of each code, in node order
            ret = rets[i]
            if game.returns(game.from_key(int(frontier[terminal[i]]))) != ret:
                violate("utility-bounds", "the batch returns differ from the state's returns", nodes[i])
            firsts.append((nodes[i], ret))
    returns.update(zip(nodes, rets))
    for node, ret in firsts:
        if any(not lo_u <= r <= hi_u for r in ret):
            violate("utility-bounds", f"returns {tuple(str(r) for r in ret)} leave [{lo_u}, {hi_u}]", node)
        elif const_sum is not None and sum(ret) != const_sum:
            violate("utility-bounds", f"returns add up to {sum(ret)}, not {const_sum}", node)


def _check_chance_rows(kind, counts, codes, table, first_id, violate, seen: set) -> None:
    """Every chance node's probabilities are positive and add up to exactly 1: each distinct row of
    codes is summed in Fractions once (rows told apart by their codes, position by position;
    ``seen`` keeps the rows already summed, from chunk to chunk)."""
    rows = np.flatnonzero((kind == CHANCE) & (counts > 0))   # a chance node without moves is
    if not len(rows):                                        # reported as such elsewhere
        return
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    sizes = counts[rows]
    ranks = _ranks(sizes)
    row_codes = codes[np.repeat(starts[rows], sizes) + ranks]   # every chance edge's code, row by row
    if (row_codes <= 0).any():
        violate("chance-distribution", "a chance outcome without a probability", first_id + int(rows[0]))
        return
    row_start = np.cumsum(sizes) - sizes
    bits = len(table).bit_length()
    if int(sizes.max()) * bits <= 62:
        # a row's codes packed into one int, which tells rows apart exactly (every code is >= 1,
        # so a shorter row differs from a longer one in the longer one's last code)
        signatures = np.add.reduceat(row_codes.astype(np.int64) << (bits * ranks), row_start)
        distinct, where = np.unique(signatures, return_index=True)
        distinct = distinct.tolist()
    else:
        padded = np.zeros((len(rows), int(sizes.max())), np.int64)
        padded[np.repeat(np.arange(len(rows)), sizes), ranks] = row_codes
        distinct, where = np.unique(padded, axis=0, return_index=True)
        distinct = [tuple(row) for row in distinct.tolist()]
    for signature, at in zip(distinct, where.tolist()):
        if signature in seen:
            continue
        seen.add(signature)
        row = row_codes[row_start[at]:row_start[at] + sizes[at]].tolist()
        problem = _distribution_problem(tuple(table[c - 1] for c in row))
        if problem:
            violate("chance-distribution", problem, first_id + int(rows[at]))
            return


def _ranks(counts: np.ndarray) -> np.ndarray:
    """0, 1, ..., c-1 for each count c, concatenated."""
    total = int(counts.sum())
    return np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
