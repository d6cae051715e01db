"""Rulings: where two readings of one ruling part, and which rulings move the values.

``ruling_diff`` answers exactly one of three things, never conflating them:

* ``parts`` -- a shortest situation (breadth-first, in lockstep under both readings) where the
  readings offer different moves, chances or results, on a named configuration, with the change in
  optimal values when both readings solve there;
* ``harmless`` -- an exhaustive search of every configuration tried found no such situation (a
  proof for those configurations, and only those);
* ``not-exercised`` -- the given configuration was searched exhaustively without a parting, and
  the larger configurations where the ruling could apply were searched only in part (the numbers
  say how far), so nothing is claimed about them.

Before answering ``not-exercised`` it searches the configurations the game names as exercising
rulings (``GameSpec.diff_configs``: a match, more players, expansions, the random set-up of the
full game); a configuration too big to exhaust is searched breadth-first up to a state cap, then
by seeded random plays that compare both readings at every visited state.

``rank_rulings`` solves the game's small configuration under every alternative reading and ranks
them by how far they move each seat's value and the expected length of play.
"""
from __future__ import annotations

import math
import random
import time
from collections import deque
from typing import Any, Callable

from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.registry import get_spec
from ruleproof.model.ruleset import Ruleset, RulesetError

from ruleproof.model.estimate import paired_difference, sampled_mean
from ruleproof.model.limits import Limits
from ruleproof.model.sampling import sample_outcome

#: breadth-first states compared per configuration, then random plays: the search's budget is
#: counted in work, never in seconds, so its answer is the same on a loaded machine as on a quiet
#: one (the user's --timeout bounds the whole command)
DIFF_STATES = 100_000
DIFF_PLAYS = 300
#: values are computed for both readings only on configurations up to this size
VALUE_STATES = 200_000
#: ... and by ``rulings diff`` beside its parting, up to this many: a count, not a clock, so solved or
#: not is the same on any machine (Presentes' longa board, 198,428 states, takes ~2 CPU minutes to
#: solve exactly; finding it over 100,000 states, ~20 s)
DIFF_VALUE_STATES = 100_000


def _signature(game, state) -> tuple:
    """What a state offers: whose move, the moves with their probabilities and results' keys."""
    seat = game.current_player(state)
    if seat == TERMINAL:
        return ("end", tuple(game.returns(state)))
    moves = tuple((a, p, game.key(game.canonicalize(s)[0])) for a, p, s in game.successors(state))
    return (seat, moves)


def _narrate_signature(game, state, sig) -> str:
    if sig[0] == "end":
        return "the game ends with returns " + ", ".join(str(r) for r in sig[1])
    seat, moves = sig
    parts = []
    for a, p, _ in moves:
        text = game.describe_action(state, a)
        parts.append(text + (f" ({p})" if p is not None else ""))
    return f"{game.seat_name(seat)} chooses among: " + "; ".join(parts) if seat >= 0 else \
        "chance: " + "; ".join(parts)


def _witness(game_a, game_b, state, path, sig_a, sig_b, labels) -> list[str]:
    trace = [f"start: {game_a.describe_state(game_a.initial_state())}"]
    for i, (s, a) in enumerate(path, 1):
        trace.append(f"{i}. {game_a.seat_name(game_a.current_player(s))}: {game_a.describe_action(s, a)}")
    trace.append(f"situation: {game_a.describe_state(state)}")
    text_a, text_b = _narrate_signature(game_a, state, sig_a), _narrate_signature(game_b, state, sig_b)
    trace.append(f"under {labels[0]}: {text_a}")
    trace.append(f"under {labels[1]}: {text_b}")
    if text_a == text_b:   # the same moves, leading to different situations: say where they lead
        for (a, _, _), (next_a, next_b) in zip(game_a.successors(state), _pairs(game_a, game_b, state)):
            if game_a.key(game_a.canonicalize(next_a)[0]) != game_b.key(game_b.canonicalize(next_b)[0]):
                move = game_a.describe_action(state, a)
                trace.append(f"after '{move}' under {labels[0]}: {game_a.describe_state(next_a)}")
                trace.append(f"after '{move}' under {labels[1]}: {game_b.describe_state(next_b)}")
                break
    return trace


def _pairs(game_a, game_b, state):
    return [(x[2], y[2]) for x, y in zip(game_a.successors(state), game_b.successors(state))]


def search_parting(game_a, game_b, labels: tuple[str, str], *, max_states: int = DIFF_STATES,
                   plays: int = DIFF_PLAYS, seconds: float | None = None, seed: int = 0) -> dict[str, Any]:
    """Breadth-first in lockstep (shortest parting), then random plays if the BFS did not finish.
    Returns ``found`` (with ``situation`` and ``depth``), ``complete`` (the BFS exhausted the
    configuration), ``states`` and ``plays`` searched. ``seconds``: a caller's own clock cap (the
    BFS, then half as long again for the plays); by default none, the budget being the work."""
    deadline = float("inf") if seconds is None else time.perf_counter() + seconds
    start = game_a.canonicalize(game_a.initial_state())[0]
    start_b = game_b.canonicalize(game_b.initial_state())[0]
    if game_a.key(start) != game_b.key(start_b):   # a set-up ruling: the games start apart
        return {"found": True, "complete": False, "states": 1, "plays": 0, "how": "the set-up", "depth": 0,
                "situation": [f"start under {labels[0]}: {game_a.describe_state(start)}",
                              f"start under {labels[1]}: {game_b.describe_state(start_b)}"]
                + _first_chance(game_a, game_b, start, start_b, labels)}
    seen = {game_a.key(start)}
    queue = deque([(start, [])])
    complete = True
    while queue:
        if len(seen) > max_states or (len(seen) & 255 == 0 and time.perf_counter() > deadline):
            complete = False
            break
        state, path = queue.popleft()
        sig_a, sig_b = _signature(game_a, state), _signature(game_b, state)
        if sig_a != sig_b:
            return {"found": True, "complete": False, "states": len(seen), "plays": 0, "how": "breadth-first",
                    "depth": len(path), "situation": _witness(game_a, game_b, state, path, sig_a, sig_b, labels)}
        if sig_a[0] == "end":
            continue
        for act, _, nxt in game_a.successors(state):
            nxt = game_a.canonicalize(nxt)[0]
            k = game_a.key(nxt)
            if k not in seen:
                seen.add(k)
                queue.append((nxt, path + [(state, act)]))
    if complete:
        return {"found": False, "complete": True, "states": len(seen), "plays": 0}
    rng = random.Random(seed)
    done = 0
    for done in range(1, plays + 1):
        if seconds is not None and time.perf_counter() > deadline + seconds / 2:
            done -= 1
            break
        state, path = game_a.initial_state(), []
        for _ in range(game_a.max_game_length or 10_000):
            sig_a, sig_b = _signature(game_a, state), _signature(game_b, state)
            if sig_a != sig_b:
                return {"found": True, "complete": False, "states": len(seen), "plays": done,
                        "how": f"random play {done} (seed {seed}; not the shortest)", "depth": len(path),
                        "situation": _witness(game_a, game_b, state, path, sig_a, sig_b, labels)}
            seat = sig_a[0]
            if seat == "end":
                break
            moves = game_a.successors(state)
            if seat == CHANCE:
                pick = sample_outcome([(m, m[1]) for m in moves], rng)
            else:
                pick = rng.choice(moves)
            path.append((state, pick[0]))
            state = pick[2]
    return {"found": False, "complete": False, "states": len(seen), "plays": done}


def _first_chance(game_a, game_b, a, b, labels, steps: int = 6) -> list[str]:
    """Where set-ups differ, the first chance event both games reach by the same first moves (what
    the different set-up does to the odds)."""
    for _ in range(steps):
        seat_a, seat_b = game_a.current_player(a), game_b.current_player(b)
        if TERMINAL in (seat_a, seat_b):
            break
        if seat_a == CHANCE and seat_b == CHANCE:
            return [f"first chance under {labels[0]}: {_narrate_signature(game_a, a, _signature(game_a, a))}",
                    f"first chance under {labels[1]}: {_narrate_signature(game_b, b, _signature(game_b, b))}"]
        if seat_a != seat_b or seat_a == CHANCE:
            break
        move = game_a.legal_actions(a)[0]
        if move not in game_b.legal_actions(b):
            break
        a, b = game_a.apply(a, move), game_b.apply(b, move)
    return []


def _config_label(spec, base: Ruleset, rs: Ruleset, name: str) -> str:
    changed = [f"{k}={v if not isinstance(v, (list, tuple)) else ' '.join(map(str, v))}"
               for k, v in rs.params.items() if base.params.get(k) != v]
    return name + (f" ({', '.join(changed)})" if changed else "")


def _candidates(spec, ruleset: Ruleset) -> list[tuple[str, Ruleset, bool]]:
    """(name, ruleset, supplementary): the configuration given, then the game's configurations that
    exercise more rulings, then -- supplementary: searched for a witness, never required to be
    exhausted for a "harmless" verdict -- the full game with the same readings."""
    out = [("the configuration given", ruleset, False)]
    for name, overrides in spec.diff_configs:
        try:
            rs = ruleset.with_overrides(dict(overrides), spec=spec.schema, source=f"diff config {name}")
        except RulesetError:
            continue   # e.g. more players than this ruleset's components allow
        if rs.params != ruleset.params:
            out.append((name, rs, False))
    full = spec.default()
    if full.params != ruleset.params:
        out.append(("the full game", full.with_overrides(rulings=dict(ruleset.rulings), spec=spec.schema), True))
    return out


def known_ruling(spec, ruling_id: str, key: str = "RULING"):
    """The ruling ``ruling_id`` of the game; an unknown id is bad input naming ``key``."""
    ruling = spec.schema.ruling_index.get(ruling_id)
    if ruling is None:
        raise RulesetError("command line", key, f"unknown ruling id {ruling_id!r} for {spec.name} "
                           f"(known: {', '.join(spec.schema.ruling_index) or 'none'})")
    return ruling


def ruling_diff(ruleset: Ruleset, ruling_id: str, option: str, *, max_states: int = DIFF_STATES,
                seconds: float | None = None, seed: int = 0, solve_values: bool = True,
                progress: Callable | None = None) -> dict[str, Any]:
    """The verdict for one alternative reading ``option`` of ``ruling_id`` against the ruleset's.
    ``seconds``: a clock cap on each configuration searched beside the one given (tests; by default
    none: the search is bounded by its work)."""
    spec = get_spec(ruleset.game)
    ruling = known_ruling(spec, ruling_id, "ruling")
    if option not in ruling.options:
        raise RulesetError("command line", "option", f"{option!r} is not an option of {ruling_id} "
                           f"(options: {', '.join(ruling.options)})")
    base_option = ruleset.rulings[ruling_id]
    labels = (base_option, option)
    out: dict[str, Any] = {"ruling": ruling_id, "question": ruling.question, "default": base_option,
                           "alternative": option, "searched": []}
    candidates = []
    for name, rs, extra in _candidates(spec, ruleset):
        if name != "the configuration given" and not ruling.exercised_by(rs.params):
            continue   # cannot come into play there: not worth searching
        other = rs.with_overrides(rulings={ruling_id: option}, spec=spec.schema)
        try:
            games = spec.build(rs), spec.build(other)
        except RulesetError:
            if name == "the configuration given":
                raise
            continue   # a configuration the game refuses under one reading (Loira: two closed kinds under a reshuffle)
        candidates.append((_config_label(spec, ruleset, rs, name), rs, other, extra, *games,
                           ruling.exercised_by(rs.params)))
    # a set-up ruling parts at the very start: check every configuration for that first (cheap)
    order = sorted(range(len(candidates)), key=lambda i: not _starts_apart(*candidates[i][4:6]))
    parted = None
    for i in order:
        label, rs, other, extra, game_a, game_b, exercised = candidates[i]
        if progress:
            progress(f"{ruling_id}={option}: {label}", len(out["searched"]), len(candidates))
        # a caller's clock cap (``seconds``) never cuts the configuration given: it is searched to
        # the end when it fits the state budget
        found = search_parting(game_a, game_b, labels, max_states=max_states,
                               seconds=None if label == candidates[0][0] else seconds, seed=seed)
        out["searched"].append({"config": label, "states": found["states"], "complete": found["complete"],
                                "plays": found["plays"], "supplementary": extra, "exercised": exercised})
        if found["found"]:
            parted = (label, rs, other, found)
            break
    given = candidates[0][0]
    first = next(s for s in out["searched"] if s["config"] == given) if not parted or \
        any(s["config"] == given for s in out["searched"]) else None
    needs = ruling.needs.doc if ruling.needs else None
    if parted is not None:
        label, rs, other, found = parted
        out.update(verdict="parts", parts=True, configuration=label, depth=found["depth"],
                   how=found["how"], situation=found["situation"])
        if label != given and first is not None:
            out["note"] = ((f"harmless on {given} (exhaustive: {first['states']:,} states)"
                            if first["exercised"] and first["complete"] else
                            f"not exercised by {given}" + (f" (it needs {needs})" if needs else ""))
                           + f"; parts on {label}")
        if solve_values:
            out.update(_value_change(rs, other, labels))
        return out
    proved = [s for s in out["searched"] if s["complete"] and s["exercised"]]
    partial = [s for s in out["searched"] if not s["complete"]]
    if proved:
        out.update(verdict="harmless", parts=False,
                   proof="no reachable situation parts the readings: exhaustive over "
                   + "; ".join(f"{s['config']} ({s['states']:,} states)" for s in proved))
        if partial:
            out["note"] = "also searched in part without a parting: " + _partial_text(partial)
    else:
        why = (f"it needs {needs}" if needs and not first["exercised"] else
               f"{first['states']:,} states" + (" exhaustively" if first["complete"] else ""))
        out.update(verdict="not-exercised", parts=None,
                   note=f"not exercised by {given} ({why})"
                   + ("; where it could apply, searched in part without a parting: " + _partial_text(partial)
                      if partial else "; no configuration the game offers exercises it"))
    return out


def _partial_text(rows: list[dict[str, Any]]) -> str:
    return "; ".join(f"{s['config']} ({s['states']:,} states breadth-first, {s['plays']} random plays)"
                     for s in rows)


def _starts_apart(game_a, game_b) -> bool:
    a = game_a.canonicalize(game_a.initial_state())[0]
    b = game_b.canonicalize(game_b.initial_state())[0]
    return game_a.key(a) != game_b.key(b)


def _value_change(a: Ruleset, b: Ruleset, labels: tuple[str, str]) -> dict[str, Any]:
    from .analysis import solve_ruleset
    values = {}
    for label, rs in zip(labels, (a, b)):
        try:
            res = solve_ruleset(rs, max_states=DIFF_VALUE_STATES)
            values[label] = res.values or f"not solved: {res.result.partial}"
        except RulesetError as exc:
            values[label] = f"not solved: {exc.reason}"
    out: dict[str, Any] = {"values": values}
    x, y = values.get(labels[0]), values.get(labels[1])
    if isinstance(x, list) and isinstance(y, list):
        from ruleproof.model.estimate import Estimate, difference
        out["value_change"] = [difference(Estimate.from_dict(p), Estimate.from_dict(q)).as_dict()
                               for p, q in zip(x, y)]
    return out


# ---- which rulings matter ------------------------------------------------------------------------

def expected_moves(sol) -> float | None:
    """Expected number of moves from the start under the solved (optimal) policy: E = 1 + P E on
    the chain the policy induces (None if it does not end surely), solved by the chain's strongly
    connected components, those nearest the end first: a level of acyclic states at once, each
    cyclic component by a sparse solve of its own block (one solve of the whole chain spent
    3.8 of a ranked reading's 7.4 s on Presentes' 42,000-state Curta; nearly every state there is
    its own component)."""
    import warnings

    import numpy as np
    from scipy.sparse import csr_matrix, identity
    from scipy.sparse.linalg import spsolve

    from .rational import condensation
    ex = sol.exploration
    n = ex.num_states
    offsets = np.frombuffer(ex.offsets, dtype=np.int64)
    child = np.frombuffer(ex.child, dtype=np.int64)
    kind = np.frombuffer(ex.kind, dtype=np.int8)
    probs = np.array([float(p) if p is not None else 0.0 for p in ex.prob])
    # the policy's edges: every edge of a chance node, the chosen edge of a decision
    is_chance = np.repeat(kind == CHANCE, np.diff(offsets))
    edge_of = np.repeat(np.arange(n), np.diff(offsets))
    choice = np.asarray(sol.choice[:n], dtype=np.int64)
    chosen = choice[(kind != CHANCE) & (kind != TERMINAL) & (choice >= 0)]
    edges = np.sort(np.concatenate((np.flatnonzero(is_chance), chosen)))
    src, dst = edge_of[edges], child[edges]
    weight = np.where(is_chance[edges], probs[edges], 1.0)
    P = csr_matrix((weight, (src, dst)), shape=(n, n))
    rhs = (kind != TERMINAL).astype(float)
    label, level, cyclic = condensation(n, src, dst)
    e = np.zeros(n)
    by_level = np.argsort(level[label], kind="stable")
    cuts = np.flatnonzero(np.diff(level[label][by_level])) + 1
    for nodes in np.split(by_level, cuts):
        loop = cyclic[label[nodes]]
        flat = nodes[~loop]
        if flat.size:   # no state here reaches another of its level: their successors are known
            e[flat] = rhs[flat] + P[flat] @ e
        for comp in np.unique(label[nodes[loop]]):
            part = nodes[loop][label[nodes[loop]] == comp]
            rows = P[part]
            inside = rows[:, part]
            b = rhs[part] + rows @ e   # e is zero on the part itself
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # a singular block (play need not end): answered below
                try:
                    x = np.atleast_1d(spsolve((identity(len(part), format="csr") - inside).tocsc(), b))
                except Exception:   # noqa: BLE001
                    return None
            if not np.isfinite(x).all():
                return None
            e[part] = x
    value = float(e[0])
    return value if np.isfinite(value) else None


def _solve_small(rs: Ruleset, limits: Limits) -> dict[str, Any]:
    from .explore import explore
    from .solve import solve
    spec = get_spec(rs.game)
    game = spec.build(rs)
    # values only: the invariants are verify's to check (a reading breaking one is ranked all the same)
    ex = explore(game, max_states=limits.states(VALUE_STATES), timeout=limits.remaining(),
                 check_invariants=False)
    if not ex.complete:
        # too big to solve here (not a time limit: that ends the ranking): the rows are paired games
        return {"error": ex.stop_reason, "states": ex.num_states, "too_big": not limits.expired()}
    from .verify import termination_property
    ends = termination_property(ex)
    if ends.status == "fails":
        return {"error": f"play can hang: {ends.detail}", "states": ex.num_states}
    try:
        sol = solve(ex)
    except Exception as exc:  # noqa: BLE001 - e.g. a reading under which play can hang
        return {"error": f"not solved: {exc}", "states": ex.num_states}
    return {"values": [float(v) for v in sol.initial], "length": expected_moves(sol),
            "states": ex.num_states}


#: value and length changes below this are the floats' rounding, not an effect
NO_CHANGE = 1e-12


def _effect(delta: list[float], length_change: float | None, states_a: int, states_b: int) -> str:
    """What an alternative reading does on the configuration, in words: it moves the values, it
    changes only the length of play, it changes the game but neither, or no change was found."""
    if max(map(abs, delta)) > NO_CHANGE:
        return "moves the values"
    if length_change is not None and abs(length_change) > NO_CHANGE:
        return "changes the length of play only"
    if states_a != states_b:
        return "changes the reachable states, not the values or the length"
    return "no change found (values, length and state count equal; rulings diff says whether the readings part)"


#: paired games per reading where a configuration is too big to solve: a fixed, seeded amount of
#: work (the same rows under any load). The games are paired (common random numbers), so a reading
#: that changes nothing in a game adds nothing to the spread; a difference of two utilities in
#: [-1, 1] has a standard deviation of at most 2, so 95% intervals are at most +-0.28 wide, and far
#: narrower where the readings rarely part (full-size Loira: 23 readings and the reference, 4,800
#: games, took 24 CPU s on a loaded machine)
RANK_GAMES = 200
RANK_SEED = 0


def _beyond_exact_engines(rs: Ruleset) -> str | None:
    """Why no exact engine of the game answers ``rs`` in its default limits (the first engine that
    applies samples: Loira's near-optimal one on the full deck), else None."""
    from ruleproof.model.seams import SolveOptions

    from .analysis import engines_of, pick_engine
    try:
        engine, skipped = pick_engine(engines_of(get_spec(rs.game)), rs, SolveOptions())
    except RulesetError:
        return None   # no engine at all: the generic exploration below says what it can
    if not engine.samples:
        return None
    return skipped[0][1] if skipped else f"only the {engine.name} engine applies"


def _paired_seed(seed: int, i: int) -> int:
    """Game ``i``'s own random stream: the same under both readings (common random numbers), and
    independent of the games before it, so one reading's longer game does not shift the next."""
    return (seed << 32) ^ (i * 0x9E3779B1) ^ 0x7A17ED


def paired_plays(rs: Ruleset, games: int, seed: int, policy: str | None = None,
                 limits: Limits | None = None) -> dict[str, Any]:
    """``games`` seeded plays of ``rs`` under ``policy`` (the game's default), game ``i`` drawn from
    its own stream ``_paired_seed(seed, i)``: each seat's utility and the moves, game by game, to be
    paired with the same games under another reading."""
    from .montecarlo import playout, seat_policies, utility_range
    spec = get_spec(rs.game)
    game = spec.build(rs)
    labels, policies = seat_policies(spec, game, policy, seed)
    utilities, moves = [], []
    for i in range(games):
        if limits is not None and limits.expired():
            break
        play = playout(game, policies, random.Random(_paired_seed(seed, i)))
        utilities.append([float(u) for u in play.returns])
        moves.append(play.moves)
    return {"utilities": utilities, "moves": moves, "policy": ":".join(dict.fromkeys(labels)),
            "bounds": utility_range(game)}


def _paired_row(ref: dict[str, Any], got: dict[str, Any], seed: int) -> dict[str, Any]:
    """One ruling's row from paired plays: each seat's change in value and the change in moves,
    sampled, and what the reading does in words."""
    n = min(len(ref["utilities"]), len(got["utilities"]))
    if n < 2:
        return {"error": "not run: the time limit was reached"}
    seats = len(ref["utilities"][0])
    changes = [paired_difference([u[s] for u in ref["utilities"][:n]], [u[s] for u in got["utilities"][:n]],
                                 seed=seed, policy=got["policy"], bounds=ref["bounds"]) for s in range(seats)]
    length = paired_difference([float(m) for m in ref["moves"][:n]], [float(m) for m in got["moves"][:n]],
                               seed=seed, policy=got["policy"], bounds=None)
    same = sum(1 for i in range(n) if ref["utilities"][i] == got["utilities"][i] and ref["moves"][i] == got["moves"][i])
    moved = [c for c in changes if c.interval[0] > 0 or c.interval[1] < 0]
    if moved:
        effect = "moves the values"
    elif length.interval[0] > 0 or length.interval[1] < 0:
        effect = "changes the length of play only"
    elif length.half_width == math.inf and length.value != 0:   # every pair alike: its interval is open
        effect = f"changes the length of play only: every one of the {n:,} paired games by {length.value:+g} moves"
    elif same == n:
        effect = f"no change found in {n:,} paired games (rulings diff says whether the readings part)"
    else:
        effect = "no detectable change (every 95% interval contains 0)"
    values = [sum(u[s] for u in got["utilities"][:n]) / n for s in range(seats)]
    return {"values": values, "value_change": [c.value for c in changes],
            "max_value_change": max(abs(c.value) for c in changes),
            "value_change_estimates": [c.as_dict() for c in changes],
            "length": sum(got["moves"][:n]) / n, "length_change": length.value,
            "length_change_estimate": length.as_dict(), "games": n, "identical_games": same,
            "effect": effect, "exercised": True, "evidence": "sampled"}


def _paired_or_why(base_plays: Callable[[], dict[str, Any]], other: Ruleset, games: int, seed: int,
                   policy: str | None, limits: Limits) -> dict[str, Any]:
    """A reading's row from paired games, or why its games could not be played (a reading under
    which a play does not end within the game's move bound)."""
    try:
        return _paired_row(base_plays(), paired_plays(other, games, seed, policy, limits), seed)
    except RuntimeError as exc:   # montecarlo.playout: a play past its move bound
        return {"error": f"paired games not played: {exc}"}


def _ahead(spec, base: Ruleset, todo: list, limits: Limits, row: Callable[[Ruleset], dict[str, Any]],
           first: Callable[[], bool] = lambda: True) -> dict[tuple[str, str], dict[str, Any]]:
    """Without a clock, ``row(reading's ruleset)`` of every exercised reading computed two at a
    time on two cores (solver/beside.py): each row is fixed work (seeded games, or an exploration
    within ``VALUE_STATES`` and its solve), the same wherever it runs, so the rows are those of one
    process. ``first()`` runs before the workers fork (False: no rows ahead). Empty when there is
    a clock or one core (the caller computes each row)."""
    from . import beside
    exercised = [(r.id, o) for r, o in todo if r.needs is None or r.needs.test(base.params)]
    workers = beside.processes()
    if limits.deadline is not None or workers < 2 or len(exercised) < 2 or not first():
        return {}

    def one(job: tuple[str, str]) -> dict[str, Any]:
        return row(base.with_overrides(rulings={job[0]: job[1]}, spec=spec.schema))
    return dict(zip(exercised, beside.ordered_map(one, exercised, workers)))


def _solved_ahead(spec, base: Ruleset, todo: list, limits: Limits) -> dict[tuple[str, str], dict[str, Any]]:
    """The exact solves of the exercised readings, ahead on two cores (``_ahead``)."""
    return _ahead(spec, base, todo, limits, lambda other: _solve_small(other, limits))


def _paired_ahead(spec, base: Ruleset, todo: list, base_plays: Callable[[], dict[str, Any]], games: int,
                  seed: int, policy: str | None, limits: Limits) -> dict[tuple[str, str], dict[str, Any]]:
    """The paired rows of the exercised readings, ahead on two cores (``_ahead``), the reference
    games played first, before the fork, so every worker pairs with the same ones."""
    def reference() -> bool:
        try:
            base_plays()
        except RuntimeError:
            return False
        return True
    return _ahead(spec, base, todo, limits,
                  lambda other: _paired_or_why(base_plays, other, games, seed, policy, limits), reference)


def rank_rulings(game: str, *, ruleset: Ruleset | None = None, only: list[str] | None = None,
                 timeout: float | None = None, progress: Callable | None = None,
                 games: int | None = None, seed: int | None = None, policy: str | None = None) -> dict[str, Any]:
    """Every alternative reading of every ruling on one configuration (the game's small one unless
    ``ruleset``), ranked by the largest change of any seat's value, then by the change in expected
    moves: solved exactly where the configuration fits (``VALUE_STATES``), otherwise by ``games``
    paired seeded games (``RANK_GAMES``, seed ``RANK_SEED``; ``paired_plays``) under ``policy``
    (the game's default), each change with its 95% interval."""
    spec = get_spec(game)
    base = ruleset or spec.default().with_overrides(dict(spec.verify_overrides), spec=spec.schema,
                                                    source="verify configuration")
    args = dict(only=only, progress=progress, games=games, seed=seed, policy=policy)
    if timeout is not None:   # a ranking a clock may cut short depends on the load: not shared
        return _rank_rulings(spec, base, timeout=timeout, **args)
    from . import cache   # a fixed amount of work: shared within the command and with --cache
    return cache.remember("rank", base, dict(only=sorted(only) if only else None, games=games, seed=seed,
                                             policy=policy),
                          lambda: _rank_rulings(spec, base, timeout=None, **args),
                          restore=lambda kept, rs: {**kept, "configuration": rs.as_dict()})


def _rank_rulings(spec, base: Ruleset, *, only: list[str] | None, timeout: float | None,
                  progress: Callable | None, games: int | None, seed: int | None,
                  policy: str | None) -> dict[str, Any]:
    limits = Limits.starting_now(None, timeout)
    games = RANK_GAMES if games is None else games
    seed = RANK_SEED if seed is None else seed
    beyond = _beyond_exact_engines(base)
    # where the game's own engines say no exact solve fits, do not explore VALUE_STATES to learn it
    ref = {"error": beyond, "too_big": True} if beyond else _solve_small(base, limits)
    plays: dict[str, Any] = {}

    def base_plays() -> dict[str, Any]:
        if "plays" not in plays:
            plays["plays"] = paired_plays(base, games, seed, policy, limits)
        return plays["plays"]
    rows = []
    todo = [(r, o) for r in spec.schema.rulings if not only or r.id in only
            for o in r.options if o != base.rulings[r.id]]
    if ref.get("too_big"):
        ahead = _paired_ahead(spec, base, todo, base_plays, games, seed, policy, limits)
    else:
        ahead = {} if "error" in ref else _solved_ahead(spec, base, todo, limits)
    for i, (ruling, option) in enumerate(todo):
        if progress:
            progress("rank rulings", i, len(todo))
        row = {"ruling": ruling.id, "question": ruling.question, "reading": base.rulings[ruling.id],
               "alternative": option}
        if limits.expired():
            row["error"] = "not run: the time limit was reached"
            rows.append(row)
            continue
        if ruling.needs is not None and not ruling.needs.test(base.params):
            # the configuration cannot exercise it: a zero here would say nothing about the ruling
            row.update(effect=f"not exercised by this configuration (it needs {ruling.needs.doc})",
                       exercised=False)
            rows.append(row)
            continue
        other = base.with_overrides(rulings={ruling.id: option}, spec=spec.schema)
        if ref.get("too_big"):   # beyond the exact solve: both readings in the same seeded games
            got_ahead = ahead.get((ruling.id, option))
            row.update(got_ahead if got_ahead is not None else
                       _paired_or_why(base_plays, other, games, seed, policy, limits))
            rows.append(row)
            continue
        if "error" in ref:   # nothing to rank against: the alternatives would hit the same limit
            row["error"] = f"not ranked: the configuration's own readings did not solve ({ref['error']})"
            rows.append(row)
            continue
        got = ahead.get((ruling.id, option)) or _solve_small(other, limits)
        if got.get("too_big"):   # this reading outgrows the exact solve: paired games for its row
            row.update(_paired_or_why(base_plays, other, games, seed, policy, limits))
            rows.append(row)
            continue
        if "error" in got or "error" in ref:
            row["error"] = got.get("error") or f"the default reading did not solve: {ref['error']}"
        else:
            delta = [b - a for a, b in zip(ref["values"], got["values"])]
            length_change = None if got["length"] is None or ref["length"] is None else got["length"] - ref["length"]
            row.update(values=got["values"], value_change=delta, max_value_change=max(map(abs, delta)),
                       length=got["length"], length_change=length_change, states=got["states"],
                       effect=_effect(delta, length_change, ref["states"], got["states"]), exercised=True)
        rows.append(row)
    rows.sort(key=lambda r: ("error" in r, not r.get("exercised", True), -r.get("max_value_change", 0.0),
                             -abs(r.get("length_change") or 0.0), r["ruling"]))
    if plays:   # the reference as the paired games measured it
        p = plays["plays"]
        n = len(p["utilities"])
        seats = range(len(p["utilities"][0])) if n else range(0)
        estimates = [sampled_mean(sum(u[s] for u in p["utilities"]), sum(u[s] * u[s] for u in p["utilities"]), n,
                                  seed=seed, policy=p["policy"], bounds=p["bounds"]) for s in seats]
        ref = {**ref, "sampled": {"games": n, "seed": seed, "policy": p["policy"],
                                  "values": [e.value for e in estimates],
                                  "value_estimates": [e.as_dict() for e in estimates],
                                  "length": sum(p["moves"]) / n if n else None,
                                  "length_estimate": sampled_mean(
                                      float(sum(p["moves"])), float(sum(m * m for m in p["moves"])), n, seed=seed,
                                      policy=p["policy"], bounds=(0.0, math.inf)).as_dict() if n else None}}
    return {"configuration": base.as_dict(), "reference": ref, "rows": rows}
