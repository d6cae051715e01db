"""Loira's parts for ``solve`` and ``simulate``: its two engines (the generic exact pipeline on
configurations it can explore, the specialised C solver beyond), named policies per seat, and
the outcomes a simulation measures.
"""
from __future__ import annotations

from ruleproof.model.estimate import FIRST_SEAT_ADVANTAGE_MEANING, Figure, Regret
from ruleproof.model.ruleset import RulesetError
from ruleproof.model.seams import Engine, Metric, Play, SolveOptions, SolveResult
from ruleproof.solver.engines import generic_engine

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
                           f"{OPTIMAL_STATES:,} states; use a smaller deck (e.g. model/loira/examples/tiny.toml) "
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
    Metric("utility", lambda game, play: [float(r) for r in play.returns], per_seat=True,
           bounds=lambda game: (float(game.min_utility), float(game.max_utility))),
    Metric("shared_win", lambda game, play: float(len(_winners(play)) != 1), proportion=True),
)   # the number of moves is measured for every game


#: generic-exploration limit when the specialised solver does not apply
GENERIC_STATES = 400_000
#: turn states the specialised solver may store when no --max-states is given (about 1 GiB and
#: under a minute; the full base round needs far more, see model/loira/README.md)
FAST_STATES = 12_000_000
#: the generic pipeline takes a configuration the C solver covers when the C solver counts at most
#: this many turn-start states (measured: about 6 generic states each, so at most ~120,000 states
#: for the generic exploration; the count takes under 0.2 s, the generic exploration ~7,000 states/s)
GENERIC_TURN_STATES = 20_000
#: C turn states up to which the answer is exact fractions unless --exact/--float says otherwise
#: (the exact forms cost about 30 us and 1 KiB per turn state; --exact lifts the bound)
FAST_EXACT_STATES = 50_000
#: turn states beyond which even --exact does not build the exact forms (memory: the forms are
#: summed a block of rows at a time; the 3-player 10-card round, 4,415,924 turn states and 21 million
#: terms, peaked at 3.2 GiB and took ~300 CPU s on a loaded machine)
FAST_EXACT_MAX = 5_000_000
#: the largest deck the exact engines finish within their default limits (the C engine's 12 million
#: turn states), measured on the bench ladder's decks (model/loira/README.md): 13 cards for 2 players (10.2
#: million turn states; 14 cards need 30 million), 10 for 3 (4.4 million; 11 cards 15 million), 9 for
#: 4 (6.9 million), 8 for 5 (4.3 million), 7 beyond. Bigger rounds get the near-optimal policy
#: unless the user names an engine or gives --max-states / --exact.
EXACT_REACH_CARDS = {2: 13, 3: 10, 4: 9, 5: 8}
EXACT_REACH_CARDS_MORE_PLAYERS = 7


def configuration_key(ruleset) -> str:
    """What every engine's answer on ``ruleset`` depends on (``GameSpec.configuration_key``): the
    resolved round (``Config``: the deck, stalls and rolls as dealt, every ruling) and whether the C
    engine takes it (``fast.applies`` also reads the parameters as written)."""
    cfg = config_from(ruleset)
    fields = {f: getattr(cfg, f) for f in cfg.__dataclass_fields__}
    fields["rulings"] = sorted(cfg.rulings.items())
    return repr((sorted(fields.items()), fast.applies(ruleset)))


def _turn_states(cfg) -> int | None:
    """The C solver's turn-state count when at most ``GENERIC_TURN_STATES``, else None."""
    try:
        return fast.solve(cfg, max_states=GENERIC_TURN_STATES)["states"]
    except fast.FastLimit:
        return None


def _beyond_exact_reach(ruleset, options: SolveOptions) -> str | None:
    """Why the exact engines cannot finish this round in their default limits (None: they can,
    or the user asked for them with --exact or --max-states)."""
    if options.exact or options.max_states is not None:
        return None
    cfg = config_from(ruleset)
    reach = EXACT_REACH_CARDS.get(cfg.players, EXACT_REACH_CARDS_MORE_PLAYERS)
    if cfg.deck_size <= reach:
        return None
    return (f"a {cfg.deck_size}-card deck with {cfg.players} players is beyond the exact engines' reach "
            f"({reach} cards in the default limits; pass --max-states to try)")


def _generic_applies(ruleset, options: SolveOptions) -> str | None:
    too_big = _beyond_exact_reach(ruleset, options)
    if too_big:
        return too_big
    if fast.applies(ruleset) is not None:
        return None   # the C solver cannot answer: the generic pipeline tries
    cfg = config_from(ruleset)
    if options.exact and fast.no_exact_forms(cfg) is not None:
        return None   # --exact where the C solver has no exact forms: the generic pipeline, in its limits
    try:
        if _turn_states(cfg) is not None:
            return None   # small: the generic pipeline gives the play table and pictures too
    except fast.FastUnavailable:
        return None
    return (f"more than {GENERIC_TURN_STATES:,} turn-start states (the C solver's count): too big for "
            "the generic exploration")


def _fast_check(ruleset, sol) -> dict:
    """The C solver's value beside the generic one, when it applies (a second way to the value)."""
    if fast.applies(ruleset) is not None:
        return {}
    try:
        check = fast.solve(config_from(ruleset))
    except fast.FastUnavailable as exc:
        return {"fast_check": {"unavailable": str(exc)}}
    agrees = all(abs(c - float(v)) < 1e-9 for c, v in zip(check["values"], sol.initial))
    return {"fast_check": {"value": check["value"], "turn_states": check["states"], "agrees": agrees}}


def _c_unavailable(ruleset) -> str | None:
    """Why the C solver, which covers this round, could not be used (no compiler, cache folder)."""
    if fast.applies(ruleset) is not None:
        return None
    try:
        fast._library()
    except fast.FastUnavailable as exc:
        return f"the C engine was not used: {exc}"
    return None


def _c_applies(ruleset, options: SolveOptions) -> str | None:
    return fast.applies(ruleset) or _beyond_exact_reach(ruleset, options)


def _c_solve(ruleset, options: SolveOptions, progress) -> SolveResult:
    """Every seat's optimal value by the C solver (turn-start states; no play table; 3+ players
    max^n with the first-best tie rule): exact fractions from its linear forms when the turn states
    are few or --exact asks, else its float values."""
    method = "specialised C solver (turn-start states"
    fast_states = options.states(FAST_STATES)
    cfg = config_from(ruleset)
    try:
        out = fast.solve(cfg, max_states=fast_states, timeout=options.remaining())
    except (fast.FastUnavailable, fast.FastLimit) as exc:
        # at a state limit the table holds exactly that many turn states; otherwise (a time limit,
        # no compiler, a refused cache folder) the C solver does not say how many it stored, and
        # raising --max-states would not help
        at_limit = isinstance(exc, fast.FastLimit) and str(exc).startswith("state limit")
        hint = " (raise the limit with --max-states)" if at_limit and not options.max_states else ""
        return SolveResult.stopped(f"specialised C solver: {exc}{hint}", fast_states if at_limit else 0,
                                   method + ")")
    extras = {"states_per_second": round(out["states_per_second"]),
              "bytes_per_state": round(out["bytes_per_state"], 1),
              "note": "no play table: the C solver keeps turn-start states only"}
    if "round_solves" in out:   # a match: one C solve per round start it can reach
        extras["round_solves"] = out["round_solves"]
        method += f"; the match: {out['round_solves']} round solves"
    if options.exact or (options.exact is None and out["states"] <= FAST_EXACT_STATES):
        try:
            if out["states"] > FAST_EXACT_MAX:
                raise fast.FastUnavailable(f"{out['states']:,} turn states: the exact forms stop at "
                                           f"{FAST_EXACT_MAX:,} (memory)")
            exact = fast.solve_exact(cfg, max_states=fast_states, timeout=options.remaining())
            return SolveResult(exact["fractions"], "optimal", True, exact["states"], method + ", exact forms)",
                               extras={**extras, "ties_decided": exact["ties_decided"]})
        except (fast.FastUnavailable, fast.FastLimit) as exc:
            if options.exact:   # --exact is never answered in floats
                return SolveResult.stopped(f"specialised C solver, exact forms: {exc}", out["states"],
                                           method + ", exact forms)")
            extras["note"] += f"; float value: exact forms not available ({exc})"
    return SolveResult(out["values"], "optimal", False, out["states"], method + ")", extras=extras)


def _near_optimal_applies(ruleset, options: SolveOptions) -> str | None:
    if options.exact:
        return "--exact asks for the exact optimum, which the near-optimal policy does not give"
    if options.max_states is not None:
        return "--max-states asks for the exact engines (within that many states)"
    if _beyond_exact_reach(ruleset, options) is None:
        return "the exact engines reach this round"
    return None


def _near_optimal_work(ruleset) -> float:
    """The self-play's work, roughly (``Engine.work``: scheduling only): its exact endgame's
    searches grow with the seats and with the rolls that can escort an opening (the real deck,
    measured: 1.7, 5.9, 9.0 and 13.7 s for 0 to 3 rolls in the centre)."""
    cfg = config_from(ruleset)
    return cfg.players * (1 + cfg.total_rolls)


def _near_optimal_solve(ruleset, options: SolveOptions, progress) -> SolveResult:
    """The near-optimal policy (``nearopt.py``): its values by a fixed number of seeded self-play
    games (``options.games``/``options.seed``, else ``nearopt_play``'s defaults) on the ruleset's
    own objective, each with its 95% interval and the regret figure that applies to this
    configuration (or "not measured"); with ``options.detail`` its printable play table and the
    self-play against the simple rules."""
    from ruleproof.model.estimate import near_optimal, sampled
    from ruleproof.model.limits import Limits

    from .nearopt_play import Stopped, answer_text, policy_method, solve_near_optimal
    try:
        res = solve_near_optimal(ruleset, Limits(deadline=options.deadline),
                                 (lambda what, done, total: progress(what, done, total)) if progress else None,
                                 seed=options.seed, games=options.games, detail=options.detail)
    except Stopped as exc:
        return SolveResult.stopped(f"near-optimal: {exc}", 0, policy_method(build_game(ruleset)))
    own = res["self_play"]["utility"]
    if len(own) == 2:   # zero-sum, game by game: seat 1's sample is seat 0's negated
        own = [own[0], sampled(-own[0].value, (-own[0].high, -own[0].low), own[0].games, seed=own[0].seed,
                               policy=own[0].policy, bounds=own[0].bounds)]
    regret = [Regret.from_dict(r) for r in res["regret"]]
    estimates = tuple(near_optimal(e, r) for e, r in zip(own, regret))
    extras = {k: v for k, v in res.items() if k not in ("engine", "exact", "method", "printable", "self_play")}
    sp = res["self_play"]
    extras["self_play"] = {**sp, "utility": [e.as_dict() for e in own], "moves": sp["moves"].as_dict(),
                           "first_seat_advantage": sp["first_seat_advantage"].as_dict(),
                           "wins_outright": [e.as_dict() for e in sp["wins_outright"]]}
    figures = (Figure("first_seat_advantage", FIRST_SEAT_ADVANTAGE_MEANING + "; measured game by game in "
                      "the self-play", (sp["first_seat_advantage"],)),)
    files: tuple[str, ...] = ()
    if options.detail:
        extras["printable"] = answer_text(res)   # the command prints it under the values
        if options.out_dir is not None:         # the policy's tables, like an exact solve's play table
            from .nearopt_files import write_policy_files
            files = tuple(write_policy_files(res, options.out_dir, len(own)))
    whose = "a round" if res["objective"] == "round" else "the match (first to target_wins round wins)"
    return SolveResult(tuple(e.value for e in estimates), "near-optimal", False, 0, res["method"], extras=extras,
                       estimates=estimates, figures=figures, files=files,
                       value_meaning=f"each seat's U in {whose} (P(win) - P(lose) for 2 players) when "
                                     "every seat follows the near-optimal policy, sampled by seeded "
                                     "self-play (not the optimum)")


def build_game(ruleset):
    from .game import build
    return build(ruleset)


#: ``solve`` tries the generic pipeline first (fractions, play table, picture) when it fits, the C
#: solver for bigger 2-player rounds, and the near-optimal policy where neither can finish
ENGINES = (
    generic_engine(default_states=GENERIC_STATES, applies=_generic_applies, check=_fast_check,
                   note=_c_unavailable),
    Engine("c-solver", _c_applies, _c_solve),
    Engine("near-optimal", _near_optimal_applies, _near_optimal_solve, samples=True,
           shares_cores=True, work=_near_optimal_work),
)
