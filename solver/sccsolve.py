"""The float solve's compiled pass (``sccsolve.c``): components found and solved in one walk.

:func:`solve_floats` runs the C pass over a whole exploration in slices of about ``BUDGET`` edge
visits (progress and signals are handled between slices). A component too large to sweep
``MAX_SWEEPS`` times within one slice is swept over several slices (:func:`_sweep_large`); each
component that still does not settle (by value iteration within ``MAX_SWEEPS``, by the trend of its
changes, or whose policy cannot leave it) goes to ``settle``, solve.py's policy iteration.
``tests/test_sccsolve.py`` ties it to that numpy path on every game's small configurations (same
policy, values within the tolerance).
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from . import cbuild
from .explore import Exploration

SOURCE = Path(__file__).with_name("sccsolve.c")
#: edge visits per call into C (~0.05 s): the pause between calls reports progress, lets Ctrl-C and
#: the time limit through
BUDGET = 1 << 21
#: Gauss-Seidel sweeps of one component before it is handed back to policy iteration (Pig's settle
#: in ~8; a component mixing this slowly is cheaper to solve by sparse LU)
MAX_SWEEPS = 1000

Unavailable = cbuild.Unavailable


@dataclass
class Pass:
    """What the pass found: every state's component (numbered sinks first, so in an order valid for
    solving) and whether it is cyclic; the largest Bellman residual of a cyclic component; the work."""
    comp: np.ndarray
    cyclic: np.ndarray
    residual: float
    sweeps: int        #: Gauss-Seidel sweeps of a component
    backups: int       #: states backed up in those sweeps
    jumps: int         #: geometric-mode jumps
    handed_back: int   #: components solved by ``settle``


def _function():
    fn = cbuild.load(SOURCE).scc_solve
    fn.restype = ctypes.c_int
    fn.argtypes = ([ctypes.c_int64, ctypes.c_int64] + [ctypes.c_void_p] * 9
                   + [ctypes.c_double, ctypes.c_double, ctypes.c_int64] + [ctypes.c_void_p] * 9
                   + [ctypes.c_int64])
    return fn


def _sweep_function():
    lib = cbuild.load(SOURCE)
    fn = lib.scc_sweep
    fn.restype = ctypes.c_int
    fn.argtypes = ([ctypes.c_int64] + [ctypes.c_void_p] * 9
                   + [ctypes.c_double, ctypes.c_double, ctypes.c_int64] + [ctypes.c_void_p] * 8
                   + [ctypes.c_int64])
    lib.scc_scratch_doubles.restype = ctypes.c_int64
    lib.scc_scratch_doubles.argtypes = [ctypes.c_int64, ctypes.c_int64]
    return fn, lib.scc_scratch_doubles


def available() -> str | None:
    """None when the compiled pass can run here, else why not (one line)."""
    try:
        _function()
    except Unavailable as exc:
        return str(exc)
    return None


def _pointer(a: np.ndarray | None) -> int | None:
    return None if a is None else a.ctypes.data


def solve_floats(ex: Exploration, values: np.ndarray, choice: np.ndarray, *, tolerance: float,
                 tie_tolerance: float, settle: Callable[[np.ndarray], float],
                 progress: Callable[[str, int, int], None] | None = None, budget: int | None = None) -> Pass:
    """Fill ``values`` (states x seats, C order; terminal rows preset) and ``choice`` (-1 preset).
    ``settle(nodes)`` solves a handed-back component in place and returns its residual.
    ``budget``: edge visits (or state backups) per call into C (default ``BUDGET``)."""
    fn = _function()
    budget = budget or BUDGET
    n, seats = ex.num_states, ex.game.num_players
    kind = np.frombuffer(ex.kind, dtype=np.int8)
    offsets = np.frombuffer(ex.offsets, dtype=np.int64)
    child = np.frombuffer(ex.child, dtype=np.int64) if len(ex.child) else np.zeros(1, np.int64)
    pcode = np.frombuffer(ex.prob_code, dtype=np.int64) if len(ex.prob_code) else np.zeros(1, np.int64)
    ptable = np.array([0.0] + [float(p) for p in ex.prob_table], dtype=np.float64)
    perm = np.frombuffer(ex.perm, dtype=np.int8) if ex.perm is not None and len(ex.perm) else None
    ptab = np.ascontiguousarray(ex.game.seat_permutations, dtype=np.int8)
    assert values.flags.c_contiguous and values.dtype == np.float64 and values.shape[1] == seats
    assert choice.flags.c_contiguous and choice.dtype == np.int64
    mark, low = np.zeros(n, np.int64), np.zeros(n, np.int64)
    cyclic = np.zeros(n, np.uint8)
    stk, post, cs_node, cs_edge = (np.empty(n, np.int64) for _ in range(4))
    st = np.zeros(14, np.int64)
    residual = np.zeros(1)
    fixed = [n, seats] + [_pointer(x) for x in (kind, offsets, child, pcode, ptable, perm, ptab, values,
                                                 choice)]
    work = [_pointer(x) for x in (mark, low, cyclic, stk, post, cs_node, cs_edge, st, residual)]
    handed_back = 0
    while True:
        status = fn(*fixed, tolerance, tie_tolerance, MAX_SWEEPS, *work, budget)
        if status == 2 and not (st[13] and _sweep_large(fixed[1:], (mark, low, post, st, residual),
                                                        tolerance, tie_tolerance, budget, progress, n)):
            nodes = np.sort(post[st[10]:st[10] + st[11]])
            residual[0] = max(residual[0], settle(nodes))
            handed_back += 1
        if progress is not None:
            progress("solve", int(st[7]), n)
        if status == 0:
            break
    return Pass(-1 - mark, cyclic.astype(bool), float(residual[0]), int(st[8]), int(st[12]), int(st[9]),
                handed_back)


def _sweep_large(fixed: list, work: tuple, tolerance: float, tie_tolerance: float, budget: int,
                 progress: Callable[[str, int, int], None] | None, n: int) -> bool:
    """Gauss-Seidel sweeps of the large component the pass handed back, about ``budget`` state
    backups per call into C (progress and signals between calls); whether it settled. A component
    whose changes shrink too slowly to reach the tolerance within ``MAX_SWEEPS`` is given up early
    (policy iteration solves it). Skunk to 100 is one component of 866,000 states: 127 sweeps settle
    it (~9 s), where policy iteration took six sparse LU solves (~45 s)."""
    fn, doubles = _sweep_function()
    mark, low, post, st, residual = work
    m, seats = int(st[11]), int(fixed[0])
    scratch = np.zeros(doubles(m, seats))
    leaves = np.zeros(m, np.uint8)
    cs = np.zeros(4, np.int64)
    ptrs = [_pointer(x) for x in (mark, low, post, st, residual, scratch, leaves, cs)]
    while True:
        status = fn(*fixed, tolerance, tie_tolerance, MAX_SWEEPS, *ptrs, budget)
        if status != 3:
            return status == 0
        if progress is not None:
            progress("solve", int(st[7]) - m, n)
