"""The specialised fast solver (``fast_solver.c``) for 2-player rounds and matches, via ctypes.

Scope: 2 players, a round or the match (:func:`solve_match`: L15 and L16 any), the base
cards and the mini-expansion cards but Professora (3+ players), at most 8 distinct stall values,
under every ruling option that can arise there (:data:`FLAGS` are the alternatives the C code
implements; :data:`SAME_IN_SCOPE` those that change nothing in its scope). :func:`applies` says,
in one line naming the ruling or card, why a ruleset is outside that scope; callers then use the
generic pipeline. ``tests/test_loira_fast_rulings.py`` ties the C rules to the Python model turn by
turn (:func:`turn`) for every option claimed here.

The C file is compiled once with the system C compiler into a per-user cache folder (see
:func:`cache_dir`), under a name keyed by the SHA-256 of the source and the compiler flags; a file
there is loaded only when it belongs to this user and nobody else can write it or its folder. Any
failure to build or load raises :class:`FastUnavailable` (one line), never a crash.
"""
from __future__ import annotations

import ctypes
import hashlib
import math
import os
import shutil
import stat
import subprocess
import threading
import time
from dataclasses import replace
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any, Mapping, Sequence

from ruleproof.solver.runtime import run_interruptible

from .cards import Kind
from .config import Config, config_from
from .rulings import RULINGS

SOURCE = Path(__file__).with_name("fast_solver.c")
CFLAGS = ("-O2", "-shared", "-fPIC")
DEFAULTS = {r.id: r.default for r in RULINGS}
NEEDS = {r.id: r.needs for r in RULINGS}

#: ruling alternatives implemented in C, in the order of fast_solver.c's R_* flags
FLAGS: tuple[tuple[str, str], ...] = (
    ("L03", "grito-only"), ("L04", "bathroom-cards"), ("L05", "with-interruptor"),
    ("L05", "no-nulls"), ("L07", "no"), ("L08", "no-escape"), ("L09", "round-rolls"),
    ("L10", "self"), ("L11", "bathroom-only"), ("L12", "bathroom-only"), ("L13", "also-stopped"),
    ("L17", "rolls-returned"), ("L18", "opener"), ("L21", "yes"), ("L27", "opening-continues"),
    ("L28", "no"), ("L29", "optional"), ("L30", "also-when-drawn"), ("L33", "invitee"),
    ("L14", "merendeira-resets"), ("L25", "reshuffle"),
)
#: alternatives with no effect in the C engine's scope, and why (the resolved deck and stalls
#: carry L01/L02/L34/L35; the model reads L23 nowhere, the uniform pick makes the two the same)
SAME_IN_SCOPE: dict[str, str] = {
    "L01": "resolved into the deck", "L02": "resolved into the stalls",
    "L34": "resolved into the stalls", "L35": "resolved into the deck",
    "L23": "the pick is uniform either way",
    "L19": "the two differ only after the round",
    "L36": "with 2 players the direction of play does not matter (L24)",
    "L37": "with 2 players the direction of play does not matter (L24)",
}
#: alternatives that need something outside the scope (checked first by :func:`supports`)
#: the match's rulings: solve_match implements L15's and L16's alternatives
OUT_OF_SCOPE = {"L15": "a match", "L16": "a match"}
_FLAG_SET = frozenset(FLAGS)


class FastUnavailable(RuntimeError):
    pass


def _scope(cfg: Config) -> str | None:
    if cfg.players != 2:
        return f"the C engine handles 2 players, not {cfg.players}"
    if cfg.objective == "match":
        return _match_scope(cfg)
    if cfg.deck[Kind.PROFESSORA]:
        return "the C engine does not handle the Professora mini-expansion card"
    if len(cfg.stalls) > 8:
        return f"the C engine handles 8 distinct stall values at most, not {len(cfg.stalls)}"
    return None


def _match_scope(cfg: Config) -> str | None:
    return _scope(replace(cfg, objective="round"))


def _changed(rulings: Mapping[str, str]) -> list[tuple[str, str]]:
    return [(rid, opt) for rid, opt in sorted(rulings.items()) if DEFAULTS.get(rid) != opt]


def _claimed(rid: str, opt: str) -> bool:
    return (rid, opt) in _FLAG_SET or rid in SAME_IN_SCOPE or rid in OUT_OF_SCOPE


def applies(ruleset: Any) -> str | None:
    """None when the C engine answers this ruleset exactly as the Python model would, else the
    one-line reason (naming the ruling or card) it does not."""
    cfg = config_from(ruleset)
    reason = _scope(cfg)
    if reason:
        return reason
    for rid, opt in _changed(cfg.rulings):
        needs = NEEDS.get(rid)
        if not _claimed(rid, opt) and (needs is None or needs.test(ruleset.params)):
            return f"the C engine does not implement {rid}={opt}"
    return None


def supports(cfg: Config) -> str | None:
    """:func:`applies` on a resolved configuration (the deck tells whether L25 can arise)."""
    reason = _scope(cfg)
    if reason:
        return reason
    for rid, opt in _changed(cfg.rulings):
        # L25 reshuffle needs a deck that can run out before the third Grito ends the round
        if rid == "L25" and cfg.deck[Kind.GRITO] >= 3:
            continue
        if not _claimed(rid, opt):
            return f"the C engine does not implement {rid}={opt}"
    return None


def keeps_seats(cfg: Config) -> bool:
    """Whether the C search keeps the seats apart in a round (no seat swap: the key carries the
    turn, stored values are seat 0's): L09 round-rolls with unequal starting rolls, where the
    Loira leaves each seat the rolls it started with (a match's rounds keep them apart too)."""
    return cfg.rulings.get("L09") == "round-rolls" and cfg.rolls[0] != cfg.rolls[1]


def cyclic(cfg: Config) -> bool:
    """Whether the round's turn graph may cycle: L25 reshuffle on a deck that can run out (fewer
    than 3 Gritos). The C engine then solves by value iteration, and has no exact forms."""
    return cfg.rulings.get("L25") == "reshuffle" and cfg.deck[Kind.GRITO] < 3


def no_exact_forms(cfg: Config) -> str | None:
    """Why the C engine cannot give this round's value as exact fractions (None: it can)."""
    if cfg.objective == "match":
        return ("no exact forms for the match: its rounds end in float continuation values "
                "(the generic pipeline gives fractions for small ones: --engine generic --exact)")
    if cyclic(cfg):
        return ("no exact forms under L25=reshuffle: the refilled deck lets turn states "
                "recur, which one pass of sums cannot value (the generic pipeline can, on small rounds: "
                "--engine generic --exact)")
    return None


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/ruleproof`` or ``~/.cache/ruleproof``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ruleproof"


def _private(path: Path, kind: str) -> str | None:
    """Why ``path`` may not be trusted (not ours, or writable by others), or None."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return f"cannot inspect {kind} {path} ({exc.strerror or exc})"
    if stat.S_ISLNK(st.st_mode):
        return f"{kind} {path} is a symbolic link"
    if st.st_uid != os.getuid():
        return f"{kind} {path} belongs to another user"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{kind} {path} is writable by others"
    return None


def library_path(folder: Path | None = None) -> Path:
    """Where the compiled library lives: keyed by the source and the compiler flags."""
    digest = hashlib.sha256(SOURCE.read_bytes() + b"\0" + " ".join(CFLAGS).encode()).hexdigest()
    return (folder or cache_dir()) / f"loira-fast-{digest[:24]}.so"


def _build(lib: Path) -> None:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise FastUnavailable("no C compiler (cc/gcc) found")
    folder = lib.parent
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise FastUnavailable(f"cannot create the cache folder {folder} ({exc.strerror or exc})") from None
    why = _private(folder, "cache folder")
    if why:
        raise FastUnavailable(why)
    tmp = lib.with_name(f"{lib.name}.{os.getpid()}.tmp")
    try:
        proc = subprocess.run([compiler, *CFLAGS, "-o", str(tmp), str(SOURCE)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise FastUnavailable(f"compiling {SOURCE.name} failed: {proc.stderr.strip()[:300]}")
        os.chmod(tmp, 0o700)
        tmp.replace(lib)
    except OSError as exc:
        raise FastUnavailable(f"cannot write the compiled library in {folder} ({exc.strerror or exc})") from None
    finally:
        tmp.unlink(missing_ok=True)


@cache
def _library() -> ctypes.CDLL:
    lib = library_path()
    if not lib.exists():
        _build(lib)
    why = _private(lib.parent, "cache folder") or _private(lib, "compiled library")
    if why:
        raise FastUnavailable(f"not loading the C engine: {why}")
    try:
        dll = ctypes.CDLL(str(lib))
        dll.loira_solve.restype = ctypes.c_int
        dll.loira_configure.restype = ctypes.c_int
        dll.loira_turn.restype = ctypes.c_int
        dll.loira_state_ints.restype = ctypes.c_int
        dll.loira_forms_size.restype = ctypes.c_double
        dll.loira_forms_take.restype = ctypes.c_double
        dll.loira_cyclic_info.restype = None
        dll.loira_match_terminals.restype = ctypes.c_int
        dll.loira_match_seen.restype = ctypes.c_int
        dll.loira_tape_fallbacks.restype = ctypes.c_double
        dll.loira_tape_limit.restype = None
    except (OSError, AttributeError) as exc:
        raise FastUnavailable(f"cannot load {lib} ({str(exc).splitlines()[0][:200]})") from None
    return dll


def _configure(dll: ctypes.CDLL, cfg: Config) -> None:
    # L25 reshuffle only where the deck can run out: elsewhere it changes nothing, and the C
    # engine's cycle handling would cost time
    flags = (ctypes.c_int * len(FLAGS))(*(int(cfg.rulings.get(rid) == opt and (rid != "L25" or cyclic(cfg)))
                                          for rid, opt in FLAGS))
    if dll.loira_configure(flags, len(FLAGS)) != 0:
        raise FastUnavailable("fast_solver.c and fast.py disagree on the ruling flags")


_CALL_LOCK = threading.Lock()


class FastLimit(RuntimeError):
    """The state or time limit was reached before the value was known."""


def solve(cfg: Config, max_states: int | None = None, timeout: float | None = None,
          forms: bool = False, _terminals: list[float] | None = None) -> dict:
    """Seat 0's optimal value (float), turn states stored, nodes visited, seconds, table bytes;
    with ``forms``, also ``"forms"``: the exact linear forms (an int64 array, see
    :func:`solve_exact`) and ``"near_ties"``.

    Raises :class:`FastLimit` when ``max_states`` turn states are stored or ``timeout`` seconds
    pass before the value is known. A match goes to :func:`solve_match`."""
    if cfg.objective == "match" and not forms:
        return solve_match(cfg, max_states, timeout)
    # a match's rounds (with _terminals) were checked as the match by solve_match
    reason = supports(cfg) if _terminals is None else None
    if reason:
        raise FastUnavailable(reason)
    if forms and (why := no_exact_forms(cfg)):
        raise FastUnavailable(why)
    dll = _library()
    IntArr = ctypes.c_int * 24
    deck = IntArr(*cfg.deck[:24])
    S = len(cfg.stalls)
    vals = (ctypes.c_int * 8)(*cfg.stalls)
    cnts = (ctypes.c_int * 8)(*cfg.stall_counts)
    out = [ctypes.c_double() for _ in range(4)]
    start = time.perf_counter()
    stop_flag = ctypes.c_int.in_dll(dll, "loira_stop_requested")
    taken: dict[str, Any] = {}

    def call() -> int:
        with _CALL_LOCK:   # the C solver keeps its table in globals: one search at a time
            _configure(dll, cfg)
            dll.loira_forms(int(forms))
            if _terminals is not None:   # a round of a match (solve_match): its continuation values
                if dll.loira_match_terminals((ctypes.c_double * len(_terminals))(*_terminals), cfg.total_rolls):
                    return -2
            try:
                rc = dll.loira_solve(deck, S, vals, cnts, cfg.rolls[0], cfg.rolls[1], cfg.centre_rolls,
                                     cfg.first_seat, ctypes.c_double(max_states or 0),
                                     ctypes.c_double(timeout or 0), *[ctypes.byref(o) for o in out])
                if _terminals is not None:   # which round ends the search met (L15 replay)
                    seen = (ctypes.c_ubyte * len(_terminals))()
                    dll.loira_match_seen(seen)
                    taken["terminals_read"] = bytes(seen)
            finally:
                dll.loira_match_terminals(None, 0)
            if cyclic(cfg):
                info = [ctypes.c_double() for _ in range(4)]
                dll.loira_cyclic_info(*[ctypes.byref(o) for o in info])
                taken["sweeps"], taken["residual"] = int(info[0].value), info[1].value
                taken["cycle_reads"], taken["states_swept"] = int(info[2].value), int(info[3].value)
                taken["tape_fallbacks"] = int(dll.loira_tape_fallbacks())
            if forms:
                import numpy as np
                arr = np.empty((int(dll.loira_forms_size()), 4), dtype=np.int64)
                taken["near_ties"] = int(dll.loira_forms_take(arr.ctypes.data_as(ctypes.POINTER(ctypes.c_int64))))
                taken["forms"] = arr
            return rc

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
    if rc == -6:
        raise FastUnavailable("the exact forms outgrew their 40-bit coefficients or the memory")
    if rc == -7:
        raise FastUnavailable("internal error: a value-iteration sweep met a turn state the search had not")
    if rc == -8:
        raise FastLimit(f"the value-iteration sweeps did not settle (largest change "
                        f"{taken.get('residual', float('nan')):.1e}) after {taken.get('sweeps', 0):,} sweeps")
    value, states, visits, table = (o.value for o in out)
    return {"value": value, "states": int(states), "visits": int(visits), "seconds": seconds,
            "table_bytes": int(table), "bytes_per_state": table / max(states, 1),
            "states_per_second": states / seconds if seconds else float("inf"), **taken}


#: L15 replay: the match states one number of wins links by replayed rounds settle when no value
#: moves by more than this in a sweep (each sweep solves each of their rounds once)
MATCH_TOLERANCE = 1e-13
MATCH_MAX_SWEEPS = 1_000


def solve_match(cfg: Config, max_states: int | None = None, timeout: float | None = None) -> dict:
    """Seat 0's value of a 2-player match (first to ``target_wins`` round wins; rolls carried,
    L15, L16), as :func:`solve` gives it for a round.

    The match between rounds is (wins, rolls per seat, first seat). Each round start it can reach
    is one C round solve whose terminal values are the match's continuation values, per round
    outcome and rolls at the round's end (effects.finish_round): every round start with more wins
    is solved first. Under L15 replay a shared round win adds no win and the round is played again
    (next seat first, the rolls as they ended): round starts with the same wins then lead to each
    other, and their values are settled together by Gauss-Seidel sweeps (:func:`_settle`).
    ``max_states`` bounds each round solve's turn states (the memory: one table at a time);
    ``"states"`` adds them up."""
    reason = supports(cfg)
    if reason:
        raise FastUnavailable(reason)
    start = time.perf_counter()
    deadline = None if timeout is None else start + timeout
    total, target, rule = cfg.total_rolls, cfg.target_wins, cfg.rulings.get("L16", "next-seat")
    replay, dim = cfg.rulings.get("L15") == "replay", cfg.total_rolls + 1
    memo: dict[tuple[int, int, int, int, int], float] = {}
    tally = {"states": 0, "visits": 0, "table_bytes": 0, "rounds": 0, "sweeps": 0}

    def table_for(key: tuple, replayed_value) -> list[float]:
        """The round's terminal values: the match's value after it, per outcome and rolls."""
        w0, w1, _, _, first = key
        table = [0.0] * (3 * dim * dim)
        for outcome, winners in enumerate(((0,), (1,), (0, 1))):
            replayed = replay and outcome == 2   # L15 replay: no win, the next seat starts again
            wins = (w0, w1) if replayed else (w0 + (0 in winners), w1 + (1 in winners))
            ended = max(wins) >= target   # then +1/-1, or 0 when both reach the target
            nxt = (first + 1) % 2 if rule == "next-seat" or replayed else (
                min(winners) if rule == "winner" else (min(winners) + 1) % 2)
            for a in range(dim):
                for b in range(dim - a):
                    cont = (replayed_value(a, b, nxt) if replayed else
                            (wins[0] >= target) - (wins[1] >= target) if ended else value(*wins, a, b, nxt))
                    table[(outcome * dim + a) * dim + b] = float(cont)
        return table

    def round_solve(key: tuple, table: list[float]) -> dict:
        _, _, r0, r1, first = key
        remaining = None if deadline is None else max(deadline - time.perf_counter(), 1e-3)
        rcfg = replace(cfg, objective="round", rolls=(r0, r1), centre_rolls=total - r0 - r1, first_seat=first)
        # where every outcome ends the match, the round's own utility: the plain round solve (seat swap on)
        plain = not replay and all(table[(o * dim + a) * dim + b] == (1.0, -1.0, 0.0)[o]
                                   for o in range(3) for a in range(dim) for b in range(dim - a))
        try:
            res = solve(rcfg, max_states, remaining, _terminals=None if plain else table)
        except FastLimit as exc:
            raise FastLimit(f"{exc} in the match's round solve {tally['rounds'] + 1} (after "
                            f"{time.perf_counter() - start:.1f} s in all)") from None
        tally["states"] += res["states"]
        tally["visits"] += res["visits"]
        tally["table_bytes"] = max(tally["table_bytes"], res["table_bytes"])
        tally["rounds"] += 1
        return res

    def value(w0: int, w1: int, r0: int, r1: int, first: int) -> float:
        key = (w0, w1, r0, r1, first)
        if key not in memo:
            if replay:
                memo.update(_settle(key, table_for, round_solve, memo, dim, tally))
            else:
                memo[key] = round_solve(key, table_for(key, None))["value"]
        return memo[key]

    v = value(0, 0, cfg.rolls[0], cfg.rolls[1], cfg.first_seat)
    seconds = time.perf_counter() - start
    out = {"value": v, "states": tally["states"], "visits": tally["visits"], "seconds": seconds,
           "table_bytes": tally["table_bytes"], "bytes_per_state": tally["table_bytes"] / max(tally["states"], 1),
           "states_per_second": tally["states"] / seconds if seconds else float("inf"),
           "round_solves": tally["rounds"]}
    if replay:
        out["replay_sweeps"] = tally["sweeps"]
    return out


def _settle(entry: tuple, table_for, round_solve, memo: dict, dim: int, tally: dict) -> dict:
    """L15 replay: the values of the round starts with ``entry``'s wins that replayed rounds link
    to it (a shared round win leaves the wins as they were), by Gauss-Seidel sweeps from 0.

    Each sweep solves each of their rounds with the replayed rounds' ends valued at the current
    values; a start is added when a round's search reads a shared win ending with its rolls. A
    sweep shrinks the error by at least the largest chance of a replay, so the values settle
    unless a round is replayed for sure (then its value stays 0: the match never ends). Starts
    already in ``memo`` (settled from another entry) are final: they cannot lead back here."""
    w0, w1 = entry[:2]
    guess = {entry: 0.0}
    order = [entry]

    def replayed_value(a: int, b: int, nxt: int) -> float:
        key = (w0, w1, a, b, nxt)
        return memo[key] if key in memo else guess.get(key, 0.0)

    for _ in range(MATCH_MAX_SWEEPS):
        delta, i = 0.0, 0
        while i < len(order):   # order grows as replayed rounds reach new starts
            key = order[i]
            res = round_solve(key, table_for(key, replayed_value))
            read = res["terminals_read"]
            nxt = (key[4] + 1) % 2
            for a in range(dim):
                for b in range(dim - a):
                    new = (w0, w1, a, b, nxt)
                    if read[(2 * dim + a) * dim + b] and new not in memo and new not in guess:
                        guess[new] = 0.0
                        order.append(new)
            delta = max(delta, abs(res["value"] - guess[key]))
            guess[key] = res["value"]
            i += 1
        tally["sweeps"] += 1
        if delta < MATCH_TOLERANCE:
            return guess
    raise FastLimit(f"L15 replay: the match's values with {w0}-{w1} wins did not settle in "
                    f"{MATCH_MAX_SWEEPS:,} sweeps (largest change {delta:.1e})")


def solve_exact(cfg: Config, max_states: int | None = None, timeout: float | None = None) -> dict:
    """:func:`solve` plus seat 0's value as an exact Fraction (``"fraction"``).

    The C search writes, for every turn state it stores, its value as an exact linear form over the
    next turn states' values under the decisions the double search took (rational coefficients:
    products of the deck's and the centre's probabilities, a few digits each). The forms come
    in an order where every state follows those it refers to, so one pass of exact sums gives
    every value. A decision whose two values lie within 1e-9 (``"near_ties"``; far above the
    doubles' rounding, about 1e-15) is not trusted to the doubles: both alternatives come with a
    marker and are compared here exactly (``"ties_decided"``: how many differed)."""
    res = solve(cfg, max_states, timeout, forms=True)
    start = time.perf_counter()
    rows = res.pop("forms").tolist()
    # values as (numerator, denominator) pairs: one lcm and one gcd per state instead of a
    # Fraction normalisation per term (the denominators stay small: a few digits)
    values: dict[tuple[int, int], tuple[int, int]] = {}
    i, key, n, decided = 0, None, len(rows), [0]
    while i < n:
        lo, hi, count, _ = rows[i]
        form = rows[i + 1:i + 1 + abs(count)]
        num, den = _form_value(form, values, decided)
        key = (lo, hi)
        values[key] = (-num if count < 0 else num, den)
        i += 1 + abs(count)
    if key is None:
        raise FastUnavailable("the C search wrote no exact forms")
    # the root's form is the mover's value, or seat 0's where the seats are kept apart
    value = Fraction(*values[key]) * (1 if cfg.first_seat == 0 or keeps_seats(cfg) else -1)
    if abs(float(value) - res["value"]) > 1e-9:
        raise FastUnavailable(f"the exact value {value} disagrees with the double {res['value']!r}")
    res.update(fraction=value, exact_seconds=time.perf_counter() - start, ties_decided=decided[0])
    return res


def _form_value(form: list, values: dict, decided: list) -> tuple[int, int]:
    """Sum a form (see fast_solver.c, "exact forms") as a reduced (numerator, denominator)."""
    terms = []
    i = 0
    while i < len(form):
        lo, hi, num, den = form[i]
        if hi:
            a, b = values[(lo, hi)]
            terms.append((num * a, den * b))
        elif den > 0:
            terms.append((num, den))
        else:   # a near tie: both alternatives, decided here exactly (denominators are positive)
            a, b = _form_value(form[i + 1:i + 1 + num], values, decided)
            c, d = _form_value(form[i + 1 + num:i + 1 + num + lo], values, decided)
            decided[0] += a * d != c * b
            first = a * d >= c * b if den == -1 else a * d <= c * b
            terms.append((a, b) if first else (c, d))
            i += num + lo
        i += 1
    if not terms:
        return 0, 1
    common = math.lcm(*(b for _, b in terms))
    top = sum(a * (common // b) for a, b in terms)
    g = math.gcd(top, common)
    return top // g, common // g


def c_state(game: Any, s: Sequence[int]) -> tuple[int, ...]:
    """A turn-start state of the Python model in fast_solver.c's ``St`` field order (the fields the
    C engine keeps: no discard pile, no direction, centre rolls derived from the seats')."""
    from .state import GRITOS, PHYS, SLOTS, STOP, TURN
    from .cards import EXPANSION_KINDS
    deck = [s[game.deck_index(k)] if k in game.kind_index else 0 for k in range(24)]
    bath, stall, esp, sw, ralo = [], [], [], [], []
    for seat in range(2):
        hand = game.hand(s, seat)
        bath += hand[:9]
        stall += list(hand[game.h_stall:game.h_esp]) + [0] * (8 - game.num_stall_values)
        esp.append(hand[game.h_esp])
        sw.append(hand[game.h_int])
        ralo.append(hand[game.h_ralo])
    rolls = [s[game.o_rolls], s[game.o_rolls + 1]]
    out = list(s[game.o_out:game.o_out + game.num_stall_values]) + [0] * (8 - game.num_stall_values)
    aside = list(s[game.o_aside:game.o_aside + len(EXPANSION_KINDS)])
    return tuple(deck + bath + stall + esp + sw + rolls + out + [s[STOP], s[TURN], s[GRITOS], s[PHYS], s[SLOTS]]
                 + ralo + aside)


def _state_call(cfg: Config, state: Sequence[int]) -> tuple:
    """The library and the C arguments for a call on one turn-start ``state``."""
    reason = supports(cfg)
    if reason:
        raise FastUnavailable(reason)
    dll = _library()
    width = dll.loira_state_ints()
    if len(state) != width:
        raise ValueError(f"a C state has {width} ints, not {len(state)}")
    deck = (ctypes.c_int * 24)(*cfg.deck[:24])
    vals = (ctypes.c_int * 8)(*cfg.stalls)
    cnts = (ctypes.c_int * 8)(*cfg.stall_counts)
    return dll, width, deck, vals, cnts, (ctypes.c_int * width)(*state)


def turn(cfg: Config, state: Sequence[int], values: Sequence[float] | None = None
         ) -> tuple[list[tuple[int, ...]], float]:
    """One turn in C from a turn-start ``state`` (:func:`c_state`): the next turn-start states it
    can reach, in the order met, and seat 0's value of the turn when ``values`` gives seat 0's value
    of each of those (else with 0 for each). For the differential test."""
    dll, width, deck, vals, cnts, st = _state_call(cfg, state)
    cap = 4096
    out = (ctypes.c_int * (cap * width))()
    given = None if values is None else (ctypes.c_double * max(1, len(values)))(*values)
    value = ctypes.c_double()
    with _CALL_LOCK:
        _configure(dll, cfg)
        n = dll.loira_turn(deck, len(cfg.stalls), vals, cnts, cfg.rolls[0], cfg.rolls[1],
                           cfg.centre_rolls, st, cap, out, given, ctypes.byref(value))
    if n == -2:
        raise FastUnavailable("internal error: the fast key packing disagrees with the field-by-field one")
    if n < 0:
        raise FastUnavailable("the configuration does not fit the 128-bit state key")
    if n > cap:
        raise FastUnavailable(f"more than {cap} next turn states")
    succ = [tuple(out[i * width:(i + 1) * width]) for i in range(n)]
    return succ, value.value


def state_value(cfg: Config, state: Sequence[int], max_states: int | None = None,
                reserve: int = 0) -> tuple[float, int]:
    """Seat 0's optimal value of the round on from a turn-start ``state`` (:func:`c_state`), and the
    turn states the kept table holds after the call.

    The C engine keeps the table between calls for the same configuration (``loira_sub_value``), so
    the later turns of a game are lookups; :func:`forget_states` frees it. Raises :class:`FastLimit`
    when more than ``max_states`` new turn states would be needed (the kept table is then dropped).
    ``reserve``: size an empty kept table for that many states at once (a whole 16-card rung: 6 GiB
    instead of the 9.2 GiB peak of doubling)."""
    dll, width, deck, vals, cnts, st = _state_call(cfg, state)
    value, kept = ctypes.c_double(), ctypes.c_double()
    with _CALL_LOCK:
        _configure(dll, cfg)
        rc = dll.loira_sub_value(deck, len(cfg.stalls), vals, cnts, cfg.rolls[0], cfg.rolls[1],
                                 cfg.centre_rolls, st, ctypes.c_double(max_states or 0),
                                 ctypes.c_double(reserve), ctypes.byref(value), ctypes.byref(kept))
    if rc == -1:
        raise FastUnavailable("the configuration does not fit the 128-bit state key")
    if rc == -3:
        raise FastLimit(f"state limit {max_states:,} new turn states reached")
    if rc:
        raise FastUnavailable("out of memory" if rc == -2 else "stopped")
    return value.value, int(kept.value)


def forget_states() -> None:
    """Free the table :func:`state_value` keeps."""
    with _CALL_LOCK:
        _library().loira_sub_reset()
