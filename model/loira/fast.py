"""The specialised fast solver (``fast_solver.c``) for Loira rounds (2 to 10 players) and 2-player
matches, via ctypes.

Scope: a round of 2 to 10 players, or the 2-player match (:func:`solve_match`: L15 and L16 any),
the base cards and every mini-expansion card (the Professora is for 3+ players), at most 8 distinct
stall values, under every ruling option that can arise there (:data:`FLAGS` are the alternatives the
C code implements; :data:`SAME_IN_SCOPE` those that change nothing in its scope). Two players:
zero-sum, seat 0's value. Three or more: max^n, each seat's share, ties to the first legal action
(the project's tie rule). :func:`applies` says, in one line naming the ruling or card, why a ruleset
is outside that scope; callers then use the generic pipeline. ``tests/test_loira_fast_rulings.py``
(2 players) and ``tests/test_loira_fast_multi.py`` (3 to 5) tie the C rules to the Python model
turn by turn (:func:`turn`) for every option claimed here.

The C file is compiled with the system C compiler once per player count (``-DNP=n`` sizes its
per-seat arrays) through :mod:`ruleproof.solver.cbuild` (a private per-user cache, keyed by the
source and the flags; a file there is loaded only when it belongs to this user and nobody else can
write it or its folder). Any failure to build or load raises
:class:`FastUnavailable` (one line), never a crash.
"""
from __future__ import annotations

import ctypes
import math
import threading
import time
from dataclasses import replace
from fractions import Fraction
from functools import cache
from itertools import islice
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from ruleproof.solver import cbuild
from ruleproof.solver.runtime import run_interruptible

from .cards import EXPANSION_KINDS, TOKENS, Kind
from .config import Config, config_from
from .rulings import RULINGS

SOURCE = Path(__file__).with_name("fast_solver.c")
CFLAGS = cbuild.CFLAGS
DEFAULTS = {r.id: r.default for r in RULINGS}
NEEDS = {r.id: r.needs for r in RULINGS}

#: ruling alternatives implemented in C, in the order of fast_solver.c's R_* flags
FLAGS: tuple[tuple[str, str], ...] = (
    ("L03", "grito-only"), ("L04", "bathroom-cards"), ("L05", "with-interruptor"),
    ("L05", "no-nulls"), ("L07", "no"), ("L08", "no-escape"), ("L09", "round-rolls"),
    ("L10", "self"), ("L11", "bathroom-only"), ("L12", "bathroom-only"), ("L13", "also-stopped"),
    ("L17", "rolls-returned"), ("L18", "opener"), ("L21", "yes"), ("L27", "opening-continues"),
    ("L28", "no"), ("L29", "optional"), ("L30", "also-when-drawn"), ("L33", "invitee"),
    ("L14", "merendeira-resets"), ("L25", "reshuffle"), ("L36", "no-effect"),
)
#: alternatives with no effect in the C engine's scope, and why (the resolved deck and stalls
#: carry L01/L02/L34/L35; the model reads L23 nowhere, the uniform pick makes the two the same)
SAME_IN_SCOPE: dict[str, str] = {
    "L01": "resolved into the deck", "L02": "resolved into the stalls",
    "L34": "resolved into the stalls", "L35": "resolved into the deck",
    "L23": "the pick is uniform either way",
    "L19": "the two differ only after the round",
    "L37": "the direction a round starts with: the two differ from a match's second round (2 players: "
           "the direction of play does not matter, L24)",
}
#: alternatives that need something outside the scope (checked first by :func:`supports`)
#: the match's rulings: solve_match implements L15's and L16's alternatives
OUT_OF_SCOPE = {"L15": "a match", "L16": "a match"}
_FLAG_SET = frozenset(FLAGS)


class FastUnavailable(RuntimeError):
    pass


def _scope(cfg: Config) -> str | None:
    if not 2 <= cfg.players <= 10:
        return f"the C engine handles 2 to 10 players, not {cfg.players}"
    if cfg.objective == "match":
        if cfg.players != 2:
            return f"the C engine's match is for 2 players, not {cfg.players} (a round it solves)"
        return _match_scope(cfg)
    if len(cfg.stalls) > 8:
        return f"the C engine handles 8 distinct stall values at most, not {len(cfg.stalls)}"
    closed = [TOKENS[k] for k in EXPANSION_KINDS if cfg.deck[k]]
    if len(closed) >= 2:   # fast_solver.c draws a mini-expansion card face up
        return (f"the C engine knows a closed mini-expansion card's kind, which with {len(closed)} kinds "
                f"({', '.join(closed)}) nobody does (the generic pipeline keeps it a belief)")
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
    """Whether the C search keeps the seats apart in a round (no seat rotation: the key carries the
    turn, stored values are in the seats' own order): L09 round-rolls with unequal starting rolls,
    where the Loira leaves each seat the rolls it started with (a match's rounds keep them apart
    too)."""
    return cfg.rulings.get("L09") == "round-rolls" and len(set(cfg.rolls)) > 1


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


def _flags(players: int, evaluation: bool = False) -> tuple[str, ...]:
    return (*CFLAGS, f"-DNP={players}", *(("-DEVAL",) if evaluation else ()))


def library_path(folder: Path | None = None, players: int = 2, evaluation: bool = False) -> Path:
    """Where the compiled library for ``players`` seats lives (``evaluation``: the build that
    evaluates the near-optimal policy, :func:`evaluate`): keyed by the source and the flags."""
    return cbuild.library_path(SOURCE, folder, _flags(players, evaluation))


@cache
def _library(players: int = 2, evaluation: bool = False) -> ctypes.CDLL:
    """The engine compiled for ``players`` seats (built on first use, then loaded from the cache)."""
    try:
        dll = cbuild.open_library(SOURCE, _flags(players, evaluation))
    except cbuild.Unavailable as exc:
        raise FastUnavailable(str(exc)) from None
    try:
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
        dll.loira_players.restype = ctypes.c_int
    except (OSError, AttributeError) as exc:
        raise FastUnavailable(f"cannot load the C engine ({str(exc).splitlines()[0][:200]})") from None
    if dll.loira_players() != players:
        raise FastUnavailable(f"{library_path(players=players, evaluation=evaluation).name} was built for "
                              f"{dll.loira_players()} players, not {players}")
    return dll


def _values(cfg: Config) -> int:
    """Doubles per value in C: seat 0's (two players, zero-sum), else each seat's share."""
    return 1 if cfg.players == 2 else cfg.players


def _args(cfg: Config) -> tuple:
    """The C arguments that describe the round: deck, stall values and counts, rolls per seat,
    rolls in the centre."""
    return ((ctypes.c_int * 24)(*cfg.deck[:24]), len(cfg.stalls), (ctypes.c_int * 8)(*cfg.stalls),
            (ctypes.c_int * 8)(*cfg.stall_counts), (ctypes.c_int * cfg.players)(*cfg.rolls),
            cfg.centre_rolls)


def _seats(cfg: Config, raw: Sequence[float]) -> tuple[float, ...]:
    """Each seat's value from the C doubles (two players: seat 0's, the other its negation)."""
    return (raw[0], -raw[0]) if cfg.players == 2 else tuple(raw[:cfg.players])


def _configure(dll: ctypes.CDLL, cfg: Config) -> None:
    # L25 reshuffle only where the deck can run out: elsewhere it changes nothing, and the C
    # engine's cycle handling would cost time
    global _FLAGS_OF
    last = _FLAGS_OF
    if last[0] is cfg:   # (the last configuration's flags: ``turn`` configures at every call)
        flags = last[1]
    else:
        flags = (ctypes.c_int * len(FLAGS))(*(int(cfg.rulings.get(rid) == opt and (rid != "L25" or cyclic(cfg)))
                                              for rid, opt in FLAGS))
        _FLAGS_OF = (cfg, flags)
    if dll.loira_configure(flags, len(FLAGS)) != 0:
        raise FastUnavailable("fast_solver.c and fast.py disagree on the ruling flags")


_CALL_LOCK = threading.Lock()
#: (configuration, its ruling flags as C ints) of the last ``_configure``
_FLAGS_OF: tuple = (None, None)
#: ``turn``'s output buffer by state width, kept between calls (a zeroed one of 8192 states at every
#: call was ~19% of the call; the C side writes the states it returns before reading them)
_TURN_OUT: dict[int, Any] = {}


class FastLimit(RuntimeError):
    """The state or time limit was reached before the value was known. ``kept``: the turn states
    :func:`state_value`'s kept table still holds (0: it was dropped)."""

    def __init__(self, message: str, kept: int = 0):
        super().__init__(message)
        self.kept = kept


def solve(cfg: Config, max_states: int | None = None, timeout: float | None = None,
          forms: bool = False, _terminals: list[float] | None = None) -> dict:
    """Seat 0's optimal value (``"value"``, float) and every seat's (``"values"``), turn states
    stored, nodes visited, seconds, table bytes; with ``forms``, also ``"forms"``: the exact linear
    forms (an int64 array, see :func:`solve_exact`) and ``"near_ties"``.

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
    dll = _library(cfg.players)
    args = _args(cfg)
    value = (ctypes.c_double * _values(cfg))()
    out = [ctypes.c_double() for _ in range(3)]
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
                rc = dll.loira_solve(*args, cfg.first_seat, ctypes.c_double(max_states or 0),
                                     ctypes.c_double(timeout or 0), value, *[ctypes.byref(o) for o in out])
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
                arr = np.empty((int(dll.loira_forms_size()), 5), dtype=np.int64)
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
    states, visits, table = (o.value for o in out)
    seats = _seats(cfg, list(value))
    return {"value": seats[0], "values": seats, "states": int(states), "visits": int(visits), "seconds": seconds,
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
    out = {"value": v, "values": (v, -v), "states": tally["states"], "visits": tally["visits"], "seconds": seconds,
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
    """:func:`solve` plus seat 0's value as an exact Fraction (``"fraction"``) and every seat's
    (``"fractions"``).

    The C search writes, for every turn state it stores, its value as an exact linear form over the
    next turn states' values under the decisions the double search took (rational coefficients:
    products of the deck's and the centre's probabilities, a few digits each). The forms come
    in an order where every state follows those it refers to, so one pass of exact sums gives
    every value. A decision whose two values lie within 1e-9 (``"near_ties"``; far above the
    doubles' rounding, about 1e-15) is not trusted to the doubles: both alternatives come with a
    marker and are compared here exactly (``"ties_decided"``: how many differed). Three or more
    players: a near tie the exact values decide against the double search's choice is refused
    (FastUnavailable): the other seats' values, which the choice moves, fed the search's later
    decisions."""
    res = solve(cfg, max_states, timeout, forms=True)
    start = time.perf_counter()
    rows = _rows(res.pop("forms"))
    decided = [0]
    if cfg.players == 2:
        value = _exact_two(cfg, rows, decided)
        fractions: tuple[Fraction, ...] = (value, -value)
    else:
        fractions = _exact_seats(cfg, rows, decided)
    if max(abs(float(f) - v) for f, v in zip(fractions, res["values"])) > 1e-9:
        raise FastUnavailable(f"the exact values {fractions} disagree with the doubles {res['values']!r}")
    res.update(fraction=fractions[0], fractions=fractions, exact_seconds=time.perf_counter() - start,
               ties_decided=decided[0])
    return res


def _rows(arr) -> Iterator[list[int]]:
    """The forms' rows as lists of ints, converted a block at a time (a whole ``tolist`` of a few
    million rows would hold ~100 bytes a row at once)."""
    for start in range(0, len(arr), 1 << 16):
        yield from arr[start:start + (1 << 16)].tolist()


def _exact_two(cfg: Config, rows: Iterator[list[int]], decided: list) -> Fraction:
    # values as (numerator, denominator) pairs: one lcm and one gcd per state instead of a
    # Fraction normalisation per term (the denominators stay small: a few digits)
    values: dict[tuple[int, int], tuple[int, int]] = {}
    key = None
    for lo, hi, count, _, _ in rows:
        form = list(islice(rows, abs(count)))
        num, den = _form_value(form, values, decided)
        key = (lo, hi)
        values[key] = (-num if count < 0 else num, den)
    if key is None:
        raise FastUnavailable("the C search wrote no exact forms")
    # the root's form is the mover's value, or seat 0's where the seats are kept apart
    return Fraction(*values[key]) * (1 if cfg.first_seat == 0 or keeps_seats(cfg) else -1)


def _form_value(form: list, values: dict, decided: list) -> tuple[int, int]:
    """Sum a 2-player form (see fast_solver.c, "exact forms") as a reduced (numerator, denominator)."""
    terms = []
    i = 0
    while i < len(form):
        lo, hi, num, den, _ = form[i]
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
    return _sum(terms)


def _sum(terms: list[tuple[int, int]]) -> tuple[int, int]:
    if not terms:
        return 0, 1
    common = math.lcm(*(b for _, b in terms))
    top = sum(a * (common // b) for a, b in terms)
    g = math.gcd(top, common)
    return top // g, common // g


def _exact_seats(cfg: Config, rows: Iterator[list[int]], decided: list) -> tuple[Fraction, ...]:
    """Three or more players: every state's vector of shares, stored with its mover first (the
    header's rot is the mover in the form's seats), as (numerator, denominator) pairs."""
    n = cfg.players
    values: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {}
    key, rot = None, 0
    for lo, hi, count, _, rot in rows:
        vec = _form_vector(list(islice(rows, count)), values, n, decided)
        key = (lo, hi)
        values[key] = tuple(vec[(j + rot) % n] for j in range(n))
    if key is None:
        raise FastUnavailable("the C search wrote no exact forms")
    stored = values[key]
    return tuple(Fraction(*stored[(j - rot) % n]) for j in range(n))


def _form_vector(form: list, values: dict, n: int, decided: list) -> list[tuple[int, int]]:
    """Sum a form of 3+ players: each seat's share as a reduced (numerator, denominator)."""
    terms: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    i = 0
    while i < len(form):
        lo, hi, num, den, rot = form[i]
        if hi:   # a next state; its stored vector starts at its mover, seat rot here
            stored = values[(lo, hi)]
            for j in range(n):
                a, b = stored[(j - rot) % n]
                terms[j].append((num * a, den * b))
        elif den > 0:   # a round's end: the winners in the mask lo share 1
            share = den * bin(lo).count("1")
            for j in range(n):
                if lo >> j & 1:
                    terms[j].append((num, share))
        else:   # a near tie: the first unless the second is better for the mover, exactly
            mover = -den - 1
            first = _form_vector(form[i + 1:i + 1 + num], values, n, decided)
            second = _form_vector(form[i + 1 + num:i + 1 + num + lo], values, n, decided)
            (a, b), (c, d) = first[mover], second[mover]
            take_second = c * b > a * d
            decided[0] += take_second
            if take_second != bool(rot):
                raise FastUnavailable("exact forms: a near tie (within 1e-9) goes the other way in "
                                      "exact values than in the double search, whose later choices "
                                      "relied on it (3+ players: the other seats' values move)")
            for j, t in enumerate(second if take_second else first):
                terms[j].append(t)
            i += num + lo
        i += 1
    return [_sum(t) for t in terms]


def c_state(game: Any, s: Sequence[int]) -> tuple[int, ...]:
    """A turn-start state of the Python model in fast_solver.c's ``St`` field order (the fields the
    C engine keeps: no discard pile, centre rolls derived from the seats', the direction of play
    with 3+ players only)."""
    from .state import DIR, GRITOS, PHYS, SLOTS, STOP, TURN
    from .cards import EXPANSION_KINDS
    n = game.num_players
    deck = [s[game.deck_index(k)] if k in game.kind_index else 0 for k in range(24)]
    # one mini-expansion kind at most (``_scope``): its closed cards are its cards in the deck and
    # those set aside (none is on top at a turn's start)
    aside = [0] * len(EXPANSION_KINDS)
    for k in game.closed_kinds:
        aside[EXPANSION_KINDS.index(k)] = s[game.o_aside]
        deck[k] -= s[game.o_aside]
    bath, stall, esp, sw, ralo = [], [], [], [], []
    for seat in range(n):
        hand = game.hand(s, seat)
        bath += hand[:9]
        stall += list(hand[game.h_stall:game.h_esp]) + [0] * (8 - game.num_stall_values)
        esp.append(hand[game.h_esp])
        sw.append(hand[game.h_int])
        ralo.append(hand[game.h_ralo])
    rolls = list(s[game.o_rolls:game.o_rolls + n])
    out = list(s[game.o_out:game.o_out + game.num_stall_values]) + [0] * (8 - game.num_stall_values)
    return tuple(deck + bath + stall + esp + sw + rolls + out + [s[STOP], s[TURN], s[GRITOS], s[PHYS], s[SLOTS]]
                 + ralo + aside + [s[DIR] if n > 2 else 0])


#: (configuration, its library, C state width and call arguments) of the last ``_state_call``: the
#: differential check asks thousands of turns of one configuration (a frozen Config, read-only arrays)
_PREPARED: tuple = (None, None)


def _state_call(cfg: Config, state: Sequence[int]) -> tuple:
    """The library, a C state's width and the call's arguments for one turn-start ``state``."""
    global _PREPARED
    last = _PREPARED
    if last[0] is cfg:
        dll, width, args = last[1]
    else:
        reason = supports(cfg)
        if reason:
            raise FastUnavailable(reason)
        dll = _library(cfg.players)
        width = dll.loira_state_ints()
        args = _args(cfg)
        _PREPARED = (cfg, (dll, width, args))
    if len(state) != width:
        raise ValueError(f"a C state has {width} ints, not {len(state)}")
    return dll, width, args, (ctypes.c_int * width)(*state)


def _given(cfg: Config, value) -> list[float]:
    """A value as the C engine takes it (two players: seat 0's float; more: a tuple per seat)."""
    return [float(value)] if cfg.players == 2 else [float(v) for v in value]


def turn(cfg: Config, state: Sequence[int], values: Sequence | None = None) -> tuple[list[tuple[int, ...]], Any]:
    """One turn in C from a turn-start ``state`` (:func:`c_state`): the next turn-start states it
    can reach, in the order met, and the value of the turn when ``values`` gives the value of each
    of those (else with 0 for each): two players seat 0's value (floats), more each seat's (a tuple
    per state). For the differential test."""
    dll, width, args, st = _state_call(cfg, state)
    flat = [] if values is None else [x for v in values for x in _given(cfg, v)]
    given = None if values is None else (ctypes.c_double * max(1, len(flat)))(*flat)
    value = (ctypes.c_double * _values(cfg))()
    with _CALL_LOCK:   # (the output buffer is shared: read it before another call may write it)
        out = _TURN_OUT.get(width)
        if out is None:
            out = _TURN_OUT[width] = (ctypes.c_int * (4096 * width))()
        cap = len(out) // width
        _configure(dll, cfg)
        n = dll.loira_turn(*args, st, cap, out, given, value)
        while n >= cap:   # a turn with more next states than the buffer holds: again, with room
            cap = max(cap, n) * 2
            out = _TURN_OUT[width] = (ctypes.c_int * (cap * width))()
            _configure(dll, cfg)
            n = dll.loira_turn(*args, st, cap, out, given, value)
        flat = iter(out[:max(n, 0) * width])
    if n == -2:
        raise FastUnavailable("internal error: the fast key packing (or unpacking) disagrees with the field-by-field one")
    if n < 0:
        raise FastUnavailable("the configuration does not fit the 128-bit state key")
    succ = list(zip(*[flat] * width))   # (the states, ``width`` ints each, as tuples)
    return succ, (value[0] if cfg.players == 2 else tuple(value))


def state_value(cfg: Config, state: Sequence[int], max_states: int | None = None,
                reserve: int = 0) -> tuple[Any, int]:
    """The optimal value of the round on from a turn-start ``state`` (:func:`c_state`): seat 0's
    (two players, a float) or each seat's (a tuple); and the turn states the kept table holds after
    the call.

    The C engine keeps the table between calls for the same configuration (``loira_sub_value``), so
    the later turns of a game are lookups; :func:`forget_states` frees it. Raises :class:`FastLimit`
    when more than ``max_states`` new turn states would be needed: the states the stopped search
    completed stay in the kept table (their values are final; under L25 reshuffle, whose open
    components hold partial values, the table is dropped), ``FastLimit.kept`` says how many.
    ``reserve``: size an empty kept table for that many states at once (a whole 16-card rung: 6 GiB
    instead of the 9.2 GiB peak of doubling)."""
    dll, width, args, st = _state_call(cfg, state)
    value, kept = (ctypes.c_double * _values(cfg))(), ctypes.c_double()
    with _CALL_LOCK:
        _configure(dll, cfg)
        _KEPT.add(cfg.players)
        rc = dll.loira_sub_value(*args, st, ctypes.c_double(max_states or 0),
                                 ctypes.c_double(reserve), value, ctypes.byref(kept))
    if rc == -1:
        raise FastUnavailable("the configuration does not fit the 128-bit state key")
    _KEPT_STATES[cfg.players] = int(kept.value)
    if rc == -3:
        raise FastLimit(f"state limit {max_states:,} new turn states reached", int(kept.value))
    if rc:
        raise FastUnavailable("out of memory" if rc == -2 else "stopped")
    return (value[0] if cfg.players == 2 else tuple(value)), int(kept.value)


#: player counts whose engine may hold a kept table (state_value)
_KEPT: set[int] = set()
#: turn states each player count's kept table holds, as of the last call
_KEPT_STATES: dict[int, int] = {}


def kept_states(players: int) -> int:
    """Turn states :func:`state_value`'s kept table for ``players`` seats holds now (every caller's:
    one table per player count)."""
    return _KEPT_STATES.get(players, 0)


def forget_states() -> None:
    """Free the tables :func:`state_value` keeps."""
    with _CALL_LOCK:
        for players in sorted(_KEPT | {2}):
            _library(players).loira_sub_reset()
        _KEPT_STATES.clear()


#: the kinds the shipped policy's C evaluation takes: the base deck (no mini-expansion card, no Ralo:
#: their choices -- whom to aim at, what to set aside -- are greedy rules it does not copy)
_SHIPPED_KINDS = frozenset(range(Kind.RAPAGOTE))
#: rulings whose choices it does not copy: a stopped seat's Interruptor turn (L13), the optional
#: effects (L29), the Interruptor used when drawn (L30)
_SHIPPED_NOT = (("L13", "also-stopped"), ("L29", "optional"), ("L30", "also-when-drawn"))


def shipped_unsupported(cfg: Config) -> str | None:
    """Why :func:`evaluate` cannot play the shipped policy on ``cfg`` (None: it can): the C copy of
    its own decisions covers two players on the base deck under the rulings that add no choice."""
    if cfg.players != 2:
        return f"{cfg.players} players (the shipped policy's C copy is for 2: more keep their escort tables)"
    extra = [Kind(k).name for k, n in enumerate(cfg.deck) if n and k not in _SHIPPED_KINDS]
    if extra:
        return f"{', '.join(extra)} in the deck (the shipped policy's choices for it are not copied to C)"
    for rid, opt in _SHIPPED_NOT:
        if cfg.rulings.get(rid) == opt:
            return f"{rid} {opt} (a choice the shipped policy's C copy does not make)"
    return None


def evaluate(cfg: Config, seat: int, cards: int, stopped_cards: int, reduce_to: int,
             known: tuple | None = None, reserve: int = 0, max_states: int | None = None,
             shipped: tuple[Sequence[int], Sequence[float]] | None = None) -> dict:
    """Every seat's value of the round when ``seat`` follows the near-optimal policy and the others
    best-respond, in C (``loira_eval``; nearopt.near_optimal is the same policy in Python): the
    optimum inside the endgame region (at most ``cards`` cards left, or ``stopped_cards`` with every
    other seat stopped), above it one turn of look-ahead with next states valued by their optimum
    (in the region) or by the optimum of the same state with its deck cut to ``reduce_to`` cards --
    the look-ahead candidate (``near_optimal(..., lookahead=True)``). ``shipped``: the policy as
    shipped instead (``near_optimal(game, cards, reduce_to)``, two players), given its stop rule
    (``nearopt.shipped_rule``: the go/stop decision per feature cell, and the risk buckets' edges):
    above the region the look-ahead decides the escorts only, go/stop is the stop rule's and the
    rest greedy's; :func:`shipped_unsupported` names what it does not take.

    ``known``: (keys, values) of optimal values known already (the out-of-core layers at the
    region's edge: 2 players, the 2-player engine's keys and the mover's values as NumPy arrays),
    so that their subtrees are not searched again. Returns ``"values"`` (per seat), ``"states"``
    and ``"lookahead"`` (the look-ahead's sub-solves, see the comment at the return)."""
    reason = (supports(cfg) or ("L25 reshuffle's cycles" if cyclic(cfg) else None)
              or (shipped_unsupported(cfg) if shipped is not None else None))
    if reason:
        raise FastUnavailable(f"the policy evaluation does not take this round: {reason}")
    dll = _library(cfg.players, evaluation=True)
    rule = edges = None
    if shipped is not None:
        cells, risk_edges = shipped
        rule = (ctypes.c_byte * len(cells))(*cells)
        edges = (ctypes.c_double * len(risk_edges))(*risk_edges)
    value, states = (ctypes.c_double * _values(cfg))(), ctypes.c_double()
    keys = vals = None
    n_known = 0
    if known is not None:
        import numpy as np
        keys = np.ascontiguousarray(known[0]).view(np.uint64)
        vals = np.ascontiguousarray(known[1], dtype=np.float64)
        n_known = len(vals)
    ptr = (lambda a: None if a is None else a.ctypes.data_as(ctypes.c_void_p))   # noqa: E731
    stop_flag = ctypes.c_int.in_dll(dll, "loira_stop_requested")
    start = time.perf_counter()

    ahead = (ctypes.c_double * 4)()
    dll.loira_eval_lookahead.restype = None

    def call() -> int:
        with _CALL_LOCK:
            _configure(dll, cfg)
            if dll.loira_eval_policy(rule, len(rule or ()), edges, len(edges or ())) != 0:
                raise FastUnavailable("fast_solver.c and nearopt.shipped_rule disagree on the stop rule's shape")
            try:
                return dll.loira_eval(*_args(cfg), cfg.first_seat, seat, cards, stopped_cards, reduce_to,
                                      ptr(keys), ptr(vals), ctypes.c_int64(n_known),
                                      ctypes.c_double(max_states or 0), ctypes.c_double(reserve), value,
                                      ctypes.byref(states))
            finally:
                dll.loira_eval_lookahead(ahead)   # read under the lock: the next call resets them
                dll.loira_eval_policy(None, 0, None, 0)

    def stop() -> None:
        stop_flag.value = 1
    rc = run_interruptible(call, stop)
    if rc == -1:
        raise FastUnavailable("the configuration does not fit the 128-bit state key")
    if rc == -3:
        raise FastLimit(f"state limit {max_states:,} turn states reached")
    if rc:
        raise FastUnavailable({-2: "out of memory", -5: "stopped",
                               -9: "known values are for 2 players"}.get(rc, f"error {rc}"))
    return {"values": _seats(cfg, list(value)), "states": int(states.value),
            "seconds": time.perf_counter() - start,
            # the look-ahead's reduced-deck sub-solves: how many, how many found their root searched
            # already, the states they added, how often its own table was emptied (docs/bench.md, stop 53)
            "lookahead": dict(zip(("solves", "repeats", "states", "emptied"), map(int, ahead)))}
