"""CLI hooks for Loira: named policies and a Monte Carlo of policy match-ups.

``--policy`` takes one policy name for every seat, or ``A:B[:C...]`` naming each seat's policy in
turn (cycled). Names: the keys of ``POLICIES``, ``random`` and ``optimal`` (exact solve first: small
configurations only).
"""
from __future__ import annotations

import random
from typing import Any, Callable

from model.ruleset import RulesetError
from solver.montecarlo import mean_ci

from .policies import POLICIES

DEFAULT_POLICY = "lookahead"


#: the ``optimal`` policy solves the configuration exactly first; beyond this many states it refuses
OPTIMAL_STATES = 500_000


class _TooLarge(Exception):
    pass


def _optimal(game):
    from .exact import solve

    def guard(states: int) -> None:
        if states > OPTIMAL_STATES:
            raise _TooLarge
    try:
        sol = solve(game, progress=guard, every=5_000)
    except _TooLarge:
        raise RulesetError("command line", "--policy",
                           f"'optimal' needs an exact solve and this configuration has more than "
                           f"{OPTIMAL_STATES:,} states; use a smaller deck (e.g. examples/loira/tiny.toml) "
                           f"or a practical policy such as lookahead") from None
    return sol.best_action


def _random(game, seed: int):
    rng = random.Random(seed ^ 0x10114)
    return lambda s: rng.choice(list(game.legal_actions(s)))


def seat_policies(game, spec: str | None, seed: int) -> tuple[list[str], dict[int, Callable]]:
    names = (spec or DEFAULT_POLICY).split(":")
    known = sorted(POLICIES) + ["optimal", "random"]
    for name in names:
        if name not in known:
            raise RulesetError("command line", "--policy",
                               f"unknown policy {name!r} (known: {', '.join(known)}; A:B for one per seat)")
    built: dict[str, Callable] = {}
    per_seat = {}
    labels = []
    for seat in range(game.num_players):
        name = names[seat % len(names)]
        labels.append(name)
        if name not in built:
            built[name] = (_optimal(game) if name == "optimal" else
                           _random(game, seed) if name == "random" else POLICIES[name](game))
        per_seat[seat] = built[name]
    return labels, per_seat


def simulate(ruleset, games: int, seed: int, policy: str | None, progress) -> dict[str, Any]:
    """Seeded playouts: outright wins per seat, shared wins, utilities, round length."""
    from solver.montecarlo import playout

    from . import build
    game = build(ruleset)
    labels, policies = seat_policies(game, policy, seed)
    rng = random.Random(seed)
    n = game.num_players
    outright = [[0.0, 0.0] for _ in range(n)]
    shared = [0.0, 0.0]
    util = [[0.0, 0.0] for _ in range(n)]
    length = [0.0, 0.0]
    for i in range(games):
        returns, moves = playout(game, policies, rng)
        # the utility says who won: +1 (2 players) or 1 (more) to an outright winner, shares else
        top = max(returns)
        winners = [seat for seat in range(n) if returns[seat] == top and top > 0]
        for seat in range(n):
            hit = 1.0 if winners == [seat] else 0.0
            outright[seat][0] += hit
            outright[seat][1] += hit
            u = float(returns[seat])
            util[seat][0] += u
            util[seat][1] += u * u
        tie = 1.0 if not winners or len(winners) > 1 else 0.0
        shared[0] += tie
        shared[1] += tie
        length[0] += moves
        length[1] += moves * moves
        if progress is not None and (i + 1) % max(1, games // 100) == 0:
            progress(i + 1, games)

    def est(pair):
        e = mean_ci(pair[0], pair[1], games)
        return {"mean": e.mean, "ci95": [e.low, e.high]}
    out: dict[str, Any] = {"games": games, "seed": seed, "policies": labels}
    for seat in range(n):
        out[f"seat{seat}_wins_outright"] = est(outright[seat])
        out[f"seat{seat}_utility"] = est(util[seat])
    out["shared_win"] = est(shared)
    out["moves"] = est(length)
    return out


#: generic-exploration probe before the specialised solver takes over (when it applies)
PROBE_STATES = 100_000
#: generic-exploration limit when the specialised solver does not apply
GENERIC_STATES = 400_000
#: turn states the specialised solver may store when no --max-states is given (about 1 GiB and
#: under a minute; the full base round needs far more, see docs/loira.md)
FAST_STATES = 12_000_000
#: generic nodes per C turn state (5-6 on the bench ladder): sizes the generic run for the files
NODES_PER_TURN_STATE = 8
#: C turn states up to which the answer is exact fractions unless --exact/--float says otherwise
#: (the exact forms cost about 30 us and 1 KiB per turn state; --exact lifts the bound)
FAST_EXACT_STATES = 50_000
#: turn states beyond which even --exact does not build the exact forms (memory: about 1.7 KiB a
#: turn state at the peak, forms and their Python rows; 1,138,711 turn states peaked at 1.9 GiB)
FAST_EXACT_MAX = 1_000_000


def checked_limits(options: dict) -> tuple[int | None, float | None]:
    """``--max-states`` and ``--timeout`` from the options; zero, negative or NaN is bad input."""
    states, seconds = options.get("max_states"), options.get("timeout")
    if states is not None and states < 1:
        raise RulesetError("command line", "--max-states", f"must be a positive number of states, not {states}")
    if seconds is not None and not seconds > 0:
        raise RulesetError("command line", "--timeout", f"must be a positive number of seconds, not {seconds}")
    return states, seconds


def usable_out_dir(out_dir) -> None:
    """Create ``--out`` before any long work; a path that cannot be a folder is bad input."""
    if out_dir is None:
        return
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RulesetError("command line", "--out", f"cannot use {str(out_dir)!r} as the output "
                           f"folder ({exc.strerror or exc})") from None


def solve_hook(ruleset, options: dict, out_dir, progress) -> dict[str, Any]:
    """``ruleproof solve loira``: where the specialised C solver applies (``fast.applies``) it runs
    first and answers any round past the generic pipeline's size; the generic exact pipeline
    (values as fractions, play table, decision graph, stop-policy picture) takes the small rounds
    and every configuration the C solver does not handle."""
    import time as _time

    from solver.analysis import write_solution_files
    from solver.explore import explore
    from solver.solve import solve

    from . import build, fast
    from .picture import draw_policy
    start = _time.perf_counter()
    user_states, user_seconds = checked_limits(options)
    usable_out_dir(out_dir)
    game = build(ruleset)
    fast_applies = fast.applies(ruleset) is None
    if fast_applies:
        answer = _c_engine_first(game, options, out_dir, user_states, user_seconds, start)
        if answer is not None:
            return answer
        # small enough for the generic pipeline's play table and pictures: it runs below
    # small configurations get the generic exact pipeline (when the C solver applies, it has sized
    # the round first; the limit stays in case the size was underestimated). A state or time limit
    # the user gives bounds both engines.
    wants_exact = options.get("exact") is True
    if fast_applies and not wants_exact:
        limit = min(PROBE_STATES, user_states) if user_states else PROBE_STATES
    else:
        limit = user_states or GENERIC_STATES
    ex = explore(game, max_states=limit, timeout=user_seconds,
                 progress=(lambda n, pending, sec: progress("explore", n, n + pending)) if progress else None)
    res: dict[str, Any] = {"states": ex.num_states, "edges": ex.num_edges}
    if ex.complete:
        exact = options.get("exact")
        use_exact = exact if exact is not None else ex.num_states <= 60_000
        sol = solve(ex, exact=use_exact, progress=progress)
        init = sol.initial_exact
        res.update(partial=False, exact=use_exact, method=f"generic: {sol.method}",
                   values=[{"fraction": str(init[s]) if init else None, "float": float(sol.initial[s])}
                           for s in range(game.num_players)], value_meaning=game.value_meaning)
        res["_solution"] = sol   # for callers that read more than the values (report, sweep)
        if fast_applies:
            try:
                check = fast.solve(game.cfg)
                res["fast_check"] = {"value": check["value"], "turn_states": check["states"],
                                     "agrees": abs(check["value"] - sol.initial[0]) < 1e-9}
            except fast.FastUnavailable as exc:
                res["fast_check"] = {"unavailable": str(exc)}
        if out_dir is not None:
            from .summary import summary
            res.update(write_solution_files(sol, out_dir, draw_policy, full=bool(options.get("full")),
                                            summary=summary))
    elif fast_applies and not wants_exact:
        left = None if user_seconds is None else user_seconds - (_time.perf_counter() - start)
        fast_states = options.get("fast_max_states") or user_states or FAST_STATES
        try:
            if left is not None and left <= 0:
                raise fast.FastLimit(f"time limit {user_seconds:g} s reached before it started")
            out = fast.solve(game.cfg, max_states=fast_states, timeout=left)
        except (fast.FastUnavailable, fast.FastLimit) as exc:
            hint = "" if user_states or user_seconds else " (raise the limit with --max-states)"
            res.update(partial=True, values=None,
                       reason=f"generic exploration: {ex.stop_reason}; specialised C solver: {exc}{hint}")
        else:
            v = out["value"]
            res.update(partial=False, exact=False, method="specialised C solver (turn-start states)",
                       states=out["states"], states_per_second=round(out["states_per_second"]),
                       bytes_per_state=round(out["bytes_per_state"], 1),
                       values=[{"fraction": None, "float": v}, {"fraction": None, "float": -v}],
                       note="no play table: the generic exploration exceeded its state limit")
    else:
        why = ("--exact: the C engine's exact forms were not used (the files need the generic graph)"
               if fast_applies else fast.applies(ruleset))
        hint = "" if user_states or user_seconds else f" ({why}; raise the limit with --max-states)"
        res.update(partial=True, reason=f"generic exploration: {ex.stop_reason}{hint}", values=None)
    res["seconds"] = _time.perf_counter() - start
    return res


def _c_engine_first(game, options: dict, out_dir, user_states, user_seconds, start) -> dict | None:
    """The C engine answers first (no generic probe): exact fractions from its forms when the turn
    states are few or --exact asks, else its float value. None: a round small enough for the
    generic pipeline (its exact values, play table and pictures; about 8 generic states per C turn
    state), or the C engine unavailable (the generic pipeline then runs and says why)."""
    import time as _time

    from . import fast
    fast_states = options.get("fast_max_states") or user_states or FAST_STATES
    exact = options.get("exact")
    try:
        out = fast.solve(game.cfg, max_states=fast_states, timeout=user_seconds)
    except fast.FastUnavailable:
        return None
    except fast.FastLimit as exc:
        hint = "" if user_states or user_seconds else " (raise the limit with --max-states)"
        return {"states": 0, "edges": 0, "partial": True, "values": None,
                "reason": f"specialised C solver: {exc}{hint}",
                "seconds": _time.perf_counter() - start}
    if out["states"] * NODES_PER_TURN_STATE <= PROBE_STATES:
        return None   # small: the generic pipeline finishes quickly and gives the files too
    res: dict[str, Any] = {"states": out["states"], "edges": None, "partial": False}
    if exact is True or (exact is None and out["states"] <= FAST_EXACT_STATES):
        left = None if user_seconds is None else user_seconds - (_time.perf_counter() - start)
        try:
            if out["states"] > FAST_EXACT_MAX:
                raise fast.FastUnavailable(f"{out['states']:,} turn states: the exact forms stop at "
                                           f"{FAST_EXACT_MAX:,} (memory)")
            if left is not None and left <= 0:
                raise fast.FastLimit(f"time limit {user_seconds:g} s reached before the exact forms")
            out = fast.solve_exact(game.cfg, max_states=fast_states, timeout=left)
        except (fast.FastUnavailable, fast.FastLimit) as exc:
            if exact is True:   # --exact is never answered in floats
                return {"states": out["states"], "edges": None, "partial": True, "values": None,
                        "reason": f"specialised C solver, exact forms: {exc}",
                        "seconds": _time.perf_counter() - start}
            res["note"] = f"float value: exact forms not available ({exc})"
    v, frac = out["value"], out.get("fraction")
    res.update(exact=frac is not None,
               method="specialised C solver (turn-start states" + (", exact forms)" if frac is not None else ")"),
               states_per_second=round(out["states_per_second"]),
               bytes_per_state=round(out["bytes_per_state"], 1),
               values=[{"fraction": str(frac) if frac is not None else None, "float": v},
                       {"fraction": str(-frac) if frac is not None else None, "float": -v}],
               value_meaning=game.value_meaning)
    if out_dir is not None:
        res.setdefault("note", f"no play table: about {out['states'] * NODES_PER_TURN_STATE:,} generic "
                               f"states, beyond the generic pipeline's {PROBE_STATES:,}")
    res["seconds"] = _time.perf_counter() - start
    return res
