"""Loira's parts for ``solve`` and ``simulate``: its two engines (the generic exact pipeline on
configurations it can explore, the specialised C solver beyond), named policies per seat, and
the outcomes a simulation measures.
"""
from __future__ import annotations

from model.ruleset import RulesetError
from model.seams import Engine, Metric, Play, SolveOptions, SolveResult
from solver.engines import generic_engine

from . import fast
from .config import config_from

DEFAULT_POLICY = "lookahead"


#: the ``optimal`` policy solves the configuration exactly first; beyond this many states it refuses
OPTIMAL_STATES = 500_000


class _TooLarge(Exception):
    pass


def optimal_policy(game):
    """``--policy optimal``: the exact solver's choices (small configurations only)."""
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


def _winners(play: Play) -> list[int]:
    """The utility says who won: +1 (2 players) or 1 (more) to an outright winner, shares else."""
    top = max(play.returns)
    return [seat for seat, r in enumerate(play.returns) if r == top and top > 0]


#: what ``simulate`` measures on each Loira round
METRICS = (
    Metric("wins_outright", lambda game, play: [float(_winners(play) == [s]) for s in range(len(play.returns))],
           per_seat=True, proportion=True),
    Metric("utility", lambda game, play: [float(r) for r in play.returns], per_seat=True),
    Metric("shared_win", lambda game, play: float(len(_winners(play)) != 1), proportion=True),
)   # the number of moves is measured for every game


#: generic-exploration limit when the specialised solver does not apply
GENERIC_STATES = 400_000
#: turn states the specialised solver may store when no --max-states is given (about 1 GiB and
#: under a minute; the full base round needs far more, see docs/loira.md)
FAST_STATES = 12_000_000
#: the generic pipeline takes a configuration the C solver covers when the C solver counts at most
#: this many turn-start states (measured: about 6 generic states each, so at most ~120,000 states
#: for the generic exploration; the count takes under 0.2 s, the generic exploration ~7,000 states/s)
GENERIC_TURN_STATES = 20_000


def _turn_states(cfg) -> int | None:
    """The C solver's turn-state count when at most ``GENERIC_TURN_STATES``, else None."""
    try:
        return fast.solve(cfg, max_states=GENERIC_TURN_STATES)["states"]
    except fast.FastLimit:
        return None


def _generic_applies(ruleset, options: SolveOptions) -> str | None:
    cfg = config_from(ruleset)
    if options.exact or fast.supports(cfg) is not None:
        return None   # fractions asked for, or the C solver cannot answer: the generic pipeline tries
    try:
        if _turn_states(cfg) is not None:
            return None
    except fast.FastUnavailable:
        return None
    return (f"more than {GENERIC_TURN_STATES:,} turn-start states (the C solver's count): too big for "
            "the generic exploration")


def _fast_check(ruleset, sol) -> dict:
    """The C solver's value beside the generic one, when it applies (a second way to the value)."""
    cfg = config_from(ruleset)
    if fast.supports(cfg) is not None:
        return {}
    try:
        check = fast.solve(cfg)
    except fast.FastUnavailable as exc:
        return {"fast_check": {"unavailable": str(exc)}}
    return {"fast_check": {"value": check["value"], "turn_states": check["states"],
                           "agrees": abs(check["value"] - sol.initial[0]) < 1e-9}}


def _c_applies(ruleset, options: SolveOptions) -> str | None:
    if options.exact:
        return "--exact asks for fractions, which the float C solver cannot give"
    return fast.supports(config_from(ruleset))


def _c_solve(ruleset, options: SolveOptions, progress) -> SolveResult:
    """Seat 0's optimal value by the C solver (turn-start states; no play table)."""
    method = "specialised C solver (turn-start states)"
    fast_states = options.states(FAST_STATES)
    try:
        out = fast.solve(config_from(ruleset), max_states=fast_states, timeout=options.remaining())
    except (fast.FastUnavailable, fast.FastLimit) as exc:
        hint = "" if options.max_states or options.deadline else " (raise the limit with --max-states)"
        # at a state limit the table holds exactly that many turn states; otherwise the C solver
        # does not say how many it stored
        stored = fast_states if str(exc).startswith("state limit") else 0
        return SolveResult.stopped(f"specialised C solver: {exc}{hint}", stored, method)
    v = out["value"]
    return SolveResult((v, -v), "optimal", False, out["states"], method,
                       extras={"states_per_second": round(out["states_per_second"]),
                               "bytes_per_state": round(out["bytes_per_state"], 1),
                               "note": "no play table: the C solver keeps turn-start states only"})


#: ``solve`` tries the generic pipeline first (fractions, play table, picture) when it fits
ENGINES = (
    generic_engine(default_states=GENERIC_STATES, applies=_generic_applies, check=_fast_check),
    Engine("c-solver", _c_applies, _c_solve),
)
