"""The specialised fast solver (``fast_solver.c``) for 2-player base-card rounds, via ctypes.

It applies when the configuration has 2 players, no mini-expansion card, at most 8 distinct stall
values, the default rulings, and the round objective; otherwise :func:`supports` says why not and
callers use the exact Python solver. The C file is compiled once with the system C compiler into a
cache folder (``$RULEPROOF_CACHE`` or the temporary directory).
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
import time
from functools import cache
from pathlib import Path

from solver.runtime import run_interruptible

from .cards import Kind
from .config import Config
from .rulings import RULINGS

SOURCE = Path(__file__).with_name("fast_solver.c")
DEFAULTS = {r.id: r.default for r in RULINGS}


class FastUnavailable(RuntimeError):
    pass


def supports(cfg: Config) -> str | None:
    """None when the fast solver applies, else the reason it does not."""
    if cfg.players != 2:
        return "the fast solver handles 2 players"
    if cfg.objective != "round":
        return "the fast solver handles the round objective"
    if any(cfg.deck[k] for k in range(Kind.RAPAGOTE, Kind.RALO + 1)):
        return "the fast solver handles base cards only"
    if len(cfg.stalls) > 8:
        return "more than 8 distinct stall values"
    changed = [rid for rid, opt in cfg.rulings.items() if DEFAULTS.get(rid) != opt]
    if changed:
        return f"the fast solver implements the default rulings only (changed: {', '.join(changed)})"
    return None


@cache
def _library() -> ctypes.CDLL:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise FastUnavailable("no C compiler (cc/gcc) found")
    code = SOURCE.read_bytes()
    digest = hashlib.sha1(code).hexdigest()[:12]
    folder = Path(os.environ.get("RULEPROOF_CACHE", tempfile.gettempdir()))
    lib = folder / f"ruleproof-loira-{digest}.so"
    if not lib.exists():
        folder.mkdir(parents=True, exist_ok=True)
        tmp = lib.with_suffix(f".{os.getpid()}.tmp")
        proc = subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-o", str(tmp), str(SOURCE)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise FastUnavailable(f"compiling {SOURCE.name} failed: {proc.stderr.strip()[:300]}")
        tmp.replace(lib)
    dll = ctypes.CDLL(str(lib))
    dll.loira_solve.restype = ctypes.c_int
    return dll


_CALL_LOCK = threading.Lock()


class FastLimit(RuntimeError):
    """The state or time limit was reached before the value was known."""


def solve(cfg: Config, max_states: int | None = None, timeout: float | None = None) -> dict:
    """Seat 0's optimal value (float), turn states stored, nodes visited, seconds, table bytes.

    Raises :class:`FastLimit` when ``max_states`` turn states are stored or ``timeout`` seconds
    pass before the value is known."""
    reason = supports(cfg)
    if reason:
        raise FastUnavailable(reason)
    dll = _library()
    IntArr = ctypes.c_int * 16
    deck = IntArr(*cfg.deck[:16])
    S = len(cfg.stalls)
    vals = (ctypes.c_int * 8)(*cfg.stalls)
    cnts = (ctypes.c_int * 8)(*cfg.stall_counts)
    out = [ctypes.c_double() for _ in range(4)]
    start = time.perf_counter()
    stop_flag = ctypes.c_int.in_dll(dll, "loira_stop_requested")

    def call() -> int:
        with _CALL_LOCK:   # the C solver keeps its table in globals: one search at a time
            return dll.loira_solve(deck, S, vals, cnts, cfg.rolls[0], cfg.rolls[1], cfg.centre_rolls,
                                   cfg.first_seat, ctypes.c_double(max_states or 0),
                                   ctypes.c_double(timeout or 0), *[ctypes.byref(o) for o in out])

    def stop() -> None:
        stop_flag.value = 1
    # in a worker thread, so that Ctrl-C and the command's time limit reach Python at once and
    # set the flag the C search checks at every turn state
    rc = run_interruptible(call, stop)
    seconds = time.perf_counter() - start
    if rc == -1:
        raise FastUnavailable("the configuration does not fit the 128-bit state key")
    if rc == -2:
        raise FastUnavailable("out of memory")
    if rc == -3:
        raise FastLimit(f"state limit {max_states:,} turn states reached after {seconds:.1f} s")
    if rc == -4:
        raise FastLimit(f"time limit reached after {seconds:.1f} s")
    if rc == -5:
        raise FastLimit(f"stopped after {seconds:.1f} s")
    value, states, visits, table = (o.value for o in out)
    return {"value": value, "states": int(states), "visits": int(visits), "seconds": seconds,
            "table_bytes": int(table), "bytes_per_state": table / max(states, 1),
            "states_per_second": states / seconds if seconds else float("inf")}
