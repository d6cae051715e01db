"""The float solve's compiled pass (``sccsolve.c``): components found and solved in one walk.

:func:`solve_floats` runs the C pass over a whole exploration in slices of about ``BUDGET`` edge
visits (progress and signals are handled between slices), and hands each component the C code
gives back (one that does not settle by value iteration, or whose policy cannot leave it) to
``settle``, solve.py's policy iteration. ``tests/test_sccsolve.py`` ties it to that numpy path
on every game's small configurations (same policy, values within the tolerance).
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
                 progress: Callable[[str, int, int], None] | None = None) -> Pass:
    """Fill ``values`` (states x seats, C order; terminal rows preset) and ``choice`` (-1 preset).
    ``settle(nodes)`` solves a handed-back component in place and returns its residual."""
    fn = _function()
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
    st = np.zeros(13, np.int64)
    residual = np.zeros(1)
    fixed = [n, seats] + [_pointer(x) for x in (kind, offsets, child, pcode, ptable, perm, ptab, values,
                                                 choice)]
    work = [_pointer(x) for x in (mark, low, cyclic, stk, post, cs_node, cs_edge, st, residual)]
    handed_back = 0
    while True:
        status = fn(*fixed, tolerance, tie_tolerance, MAX_SWEEPS, *work, BUDGET)
        if status == 2:
            nodes = np.sort(post[st[10]:st[10] + st[11]])
            residual[0] = max(residual[0], settle(nodes))
            handed_back += 1
        if progress is not None:
            progress("solve", int(st[7]), n)
        if status == 0:
            break
    return Pass(-1 - mark, cyclic.astype(bool), float(residual[0]), int(st[8]), int(st[12]), int(st[9]),
                handed_back)
