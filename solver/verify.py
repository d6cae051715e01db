"""``verify``: one scheduler over a game's properties (``model.properties``).

Every property says what evidence it can read; ``verify`` decides what to give it:

* a configuration that fits the limits is explored exhaustively, and every property reads that
  exploration (or, for a proof on the parameters alone, nothing);
* a configuration too big to explore gets (a) seeded sampled plays, read by every property that
  can run on samples (its evidence is then ``sampled``), (b) the properties that need nothing but
  the parameters, and (c) the game's derived configurations (smaller ones that keep the edit),
  each explored and given every property again, named ``[label]``.

Besides the game's own properties (``GameSpec.properties``), every game gets the core ones built
here: each invariant, the protocol's rules (legal moves, chance distributions, utility bounds),
termination, and the agreement of every fast path with the model's ``successors``. A property
whose check raises is reported ``unknown`` with the error, and never hides another's result.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from ruleproof.model.limits import Limits
from ruleproof.model.properties import (EXPLORATION, NOTHING, SAMPLES, Context, Property, draw_plays)
from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.results import FAILS, HOLDS, UNKNOWN, PropertyResult
from ruleproof.model.ruleset import Ruleset, value_words
from ruleproof.model.spec import GameSpec

from .exploration import Exploration
from .exploration import distribution_problem as _distribution_problem
from .explore import explore
from .fastpaths import fast_path_property
from .termination import shortest_lasso, termination_property  # noqa: F401  (re-exported)

#: properties the explorer itself checks on every game, whatever its invariants
PROTOCOL_PROPERTIES = {
    "legal-actions": "every non-terminal decision state has a legal move",
    "chance-distribution": "chance outcomes have positive Fraction probabilities summing to 1",
    "utility-bounds": "terminal utilities lie within the declared bounds (and add up to the "
                      "declared constant, for constant-sum games)",
}

#: under a user --timeout, the share of it the direct exploration may use before verify switches to
#: sampled plays (without one, the state limit alone decides)
DIRECT_SHARE = 0.25
#: sampled plays at full size (each checks every invariant at every visited state)
DEFAULT_PLAYS = 2_000
#: of those, the plays the game's own properties (proofs' mappings, state checks) read
PROPERTY_PLAYS = 300


@dataclass
class VerifyReport:
    ruleset: Ruleset
    config: dict[str, Any]
    properties: list[PropertyResult] = field(default_factory=list)
    states: int = 0
    seconds: float = 0.0
    #: what the reader should know about how the verdict was reached (too big to explore, ...)
    notes: list[str] = field(default_factory=list)
    #: the smaller configurations explored in its place, each {label, config, states}
    derived: list[dict[str, Any]] = field(default_factory=list)
    #: the companions a comparison left out (``verify``'s ``skip``), by label
    left_out: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        statuses = {p.status for p in self.properties}
        return FAILS if FAILS in statuses else UNKNOWN if UNKNOWN in statuses else HOLDS


# ---- the core properties -------------------------------------------------------------------------------

def exploration_properties(ex: Exploration) -> list[PropertyResult]:
    """One result per invariant and protocol rule, with the shortest failing trace."""
    game = ex.game
    named = [(inv.name, inv.description) for inv in game.invariants()]
    named += list(PROTOCOL_PROPERTIES.items())
    results = []
    scope = f"{ex.num_states} reachable states" if ex.complete else \
        f"{ex.num_states} states explored before the {ex.stop_reason}"
    for name, description in named:
        violation = ex.violations.get(name)
        if violation is not None:
            trace = ex.narrate(violation.node, f"violated: {violation.reason}")
            results.append(PropertyResult(name, FAILS, description, trace, "exhaustive",
                                          data={"depth": int(ex.depth[violation.node])}))
        elif ex.complete:
            results.append(PropertyResult(name, HOLDS, f"{description} ({scope})", kind="exhaustive"))
        else:
            results.append(PropertyResult(name, UNKNOWN, f"{description}: no violation in {scope}",
                                          kind="exhaustive"))
    return results


def _state_rules(ctx: Context) -> list[PropertyResult]:
    if ctx.source == EXPLORATION:
        out = exploration_properties(ctx.exploration)
        for p in out:
            p.scope = ctx.scope
        return out
    return sample_properties(ctx)


def _termination(ctx: Context) -> PropertyResult:
    if ctx.source == EXPLORATION:
        return termination_property(ctx.exploration)
    plays = ctx.plays
    max_moves = ctx.game.max_game_length or 100_000
    unfinished = sum(1 for steps in plays if not steps or ctx.game.current_player(steps[-1][2]) != TERMINAL)
    done = len(plays)
    ended = done - unfinished
    ok = done and not unfinished
    return ctx.result("termination", HOLDS if ok else UNKNOWN,
                      f"{ended:,} of {done:,} sampled plays ended (within {max_moves:,} moves each)"
                      + (" -- sampled, not a proof" if ok else
                         "; a play that does not end may loop: explore a derived configuration"),
                      data={"plays": done, "unfinished": unfinished})


def core_properties() -> list[Property]:
    """What every game is checked for, whatever it declares."""
    return [
        Property("state rules", "the game's invariants and the protocol's rules, at every state",
                 (EXPLORATION, SAMPLES), _state_rules),
        Property("termination", "every play ends (an end is reachable from every state; no seat "
                 "alone can prolong play for ever)", (EXPLORATION, SAMPLES), _termination),
        fast_path_property(),
    ]


def sample_properties(ctx: Context) -> list[PropertyResult]:
    """Every invariant and protocol rule at every state of the context's sampled plays. Not a
    proof: the results say so."""
    from ruleproof.model.sampling import narrate_play
    start = time.perf_counter()
    game = ctx.game
    invariants = list(game.invariants())
    failures: dict[str, list[str]] = {}
    states = 0

    def trace(steps, j, i) -> list[str]:
        return narrate_play(game, steps, j, f"sampled play {i + 1} (seed {ctx.seed})")

    for i, steps in enumerate(ctx.plays):
        visited = [game.initial_state()] + [t for _, _, t in steps]
        states += len(visited)
        for j, state in enumerate(visited):
            for inv in invariants:
                if inv.name in failures:
                    continue
                reason = inv.check(state)
                if reason is not None:
                    failures[inv.name] = trace(steps, j, i) + [f"violated: {reason}"]
            seat = game.current_player(state)
            if seat == TERMINAL:
                ret = game.returns(state)
                if any(not game.min_utility <= r <= game.max_utility for r in ret) or (
                        game.constant_sum is not None and sum(ret) != game.constant_sum):
                    failures.setdefault("utility-bounds", trace(steps, j, i) + [f"returns {tuple(map(str, ret))}"])
            elif seat == CHANCE:
                problem = _distribution_problem(tuple(p for _, p in game.chance_outcomes(state)))
                if problem:
                    failures.setdefault("chance-distribution", trace(steps, j, i) + [problem])
            elif not game.legal_actions(state):
                failures.setdefault("legal-actions", trace(steps, j, i) + ["no legal move"])
    seconds = time.perf_counter() - start
    done = len(ctx.plays)
    named = [(inv.name, inv.description) for inv in invariants] + list(PROTOCOL_PROPERTIES.items())
    out = []
    for name, description in named:
        if name in failures:
            out.append(ctx.result(name, FAILS, description, failures[name], seconds=seconds,
                                  data={"plays": done}))
        elif done == 0:
            out.append(ctx.result(name, UNKNOWN, f"{description}: no play sampled before the time limit"))
        else:
            out.append(ctx.result(name, HOLDS, f"{description}: no violation in {done:,} plays "
                                  f"({states:,} states) -- sampled, not a proof", seconds=seconds,
                                  data={"plays": done, "states": states}))
    return out


# ---- the scheduler ---------------------------------------------------------------------------------------

def config_label(spec: GameSpec, ruleset: Ruleset) -> str:
    """The configuration a result is about: ruleset name and the parameters that differ from the
    game's defaults, and the rulings that differ from the catalog's defaults."""
    params, rulings = spec.schema.defaults()
    changed = [f"{k}={_short(v)}" for k, v in ruleset.params.items() if params.get(k) != v]
    changed += [f"{k}={v}" for k, v in ruleset.rulings.items() if rulings.get(k) != v]
    return ruleset.name + (f" ({', '.join(changed)})" if changed else "")


def _short(value: Any) -> str:
    return value_words(value)


def game_properties(spec: GameSpec, ruleset: Ruleset, game) -> list[Property]:
    """The core properties and the game's own, in the order verify reports them."""
    own = list(spec.properties(ruleset, game)) if spec.properties is not None else []
    return core_properties() + own


def _run(prop: Property, ctx: Context) -> list[PropertyResult]:
    """One property's results on one context; a check that raises is reported, not propagated."""
    if ctx.limits.expired():
        res = ctx.limits.not_run(prop.name)
        res.data["property"], res.scope = prop.name, ctx.scope
        return [res]
    start = time.perf_counter()
    try:
        got = prop.check(ctx)
    except (KeyboardInterrupt, MemoryError):
        raise
    except Exception as exc:   # noqa: BLE001 -- a crash in one check never hides the others
        return [PropertyResult(prop.name, UNKNOWN, f"the check could not finish: {type(exc).__name__}: "
                               f"{exc} (an internal error: please report it)", kind="error",
                               seconds=time.perf_counter() - start, scope=ctx.scope)]
    results = [got] if isinstance(got, PropertyResult) else list(got)
    if len(results) == 1 and not results[0].seconds:   # a check that did not time itself
        results[0].seconds = time.perf_counter() - start
    for r in results:
        r.scope = r.scope or ctx.scope
        r.data.setdefault("property", prop.name)
    return results


def run_properties(props: Sequence[Property], ctx: Context, *, tag: str = "",
                   full_size: bool = False, fallback: Callable[[], Context | None] | None = None
                   ) -> list[PropertyResult]:
    """Every property that can read the context's evidence (or nothing), in order. On a complete
    exploration each gets it (or nothing, for a proof on the parameters); at full size a property
    that can read samples gets them, one that needs nothing runs, and one that needs a complete
    exploration is left to the derived configurations.

    Under a deadline each property gets a share of the time left (an even share, or half of it when
    that is more: the first proof of an abstract model maps the exploration for all); one that its share stops
    on a big exploration and that can read samples is run again on ``fallback()``'s sampled plays,
    and says so (its evidence is then ``sampled``)."""
    out = []
    for i, prop in enumerate(props):
        ctx.limits.report(f"{prop.name}{tag}", i, len(props))
        if ctx.source in prop.needs:
            sub = ctx
        elif NOTHING in prop.needs:
            sub = Context(ctx.spec, ctx.ruleset, ctx.game, ctx.label, NOTHING, seed=ctx.seed,
                          limits=ctx.limits, derived=ctx.derived, cache=ctx.cache)
        elif full_size:
            continue
        else:   # e.g. a property that reads samples only: a complete exploration is at least as good
            sub = ctx
        too_big = (prop.max_states is not None and sub.source == EXPLORATION and SAMPLES in prop.needs
                   and ctx.exploration.num_states > prop.max_states and fallback is not None)
        if too_big and (sampled := fallback()) is not None:
            results = _run(prop, sampled)
            for r in results:
                r.detail = (f"{r.detail} (checked on sampled plays: the {ctx.exploration.num_states:,} explored "
                            f"states are more than the {prop.max_states:,} it reads one by one)")
                r.name = f"{r.name} {tag}" if tag else r.name
            out.extend(results)
            continue
        left = ctx.limits.remaining()
        shared = None
        if left is not None and fallback is not None and sub.source == EXPLORATION:
            # at least half of what is left: the first proof of an abstract model pays for the mapping
            # pass the later ones read from the cache (an even share left it unknown under load)
            shared = replace(ctx.limits, deadline=time.perf_counter() + max(left / (len(props) - i), left / 2))
            sub = replace(sub, limits=shared)
        results = _run(prop, sub)
        if shared is not None and SAMPLES in prop.needs and shared.expired() and \
                any(r.status == UNKNOWN for r in results):
            sampled = fallback()
            if sampled is not None:
                why = (f"the {ctx.exploration.num_states:,} explored states were too many to check within "
                       f"its share of the time")
                results = _run(prop, sampled)
                for r in results:
                    r.detail = f"{r.detail} ({why}: checked on sampled plays instead)"
        for r in results:
            if tag:
                r.name = f"{r.name} {tag}"
            out.append(r)
    return out


def check_exploration(spec: GameSpec, ruleset: Ruleset, ex: Exploration, *, own_only: bool = False,
                      limits: Limits | None = None, seed: int = 0) -> dict[str, PropertyResult]:
    """Every property (only the game's own with ``own_only``) on a complete exploration of
    ``ruleset``, by name: what verify reports for an explored configuration."""
    game = ex.game
    props = list(spec.properties(ruleset, game)) if own_only else game_properties(spec, ruleset, game)
    ctx = Context(spec, ruleset, game, config_label(spec, ruleset), EXPLORATION, exploration=ex, seed=seed,
                  limits=limits or Limits())
    return {r.name: r for r in run_properties(props, ctx)}


def verify(spec: GameSpec, ruleset: Ruleset, *, max_states: int | None = None,
           timeout: float | None = None, progress: Callable | None = None,
           plays: int | None = None, seed: int = 0,
           phase: Callable[[str, int, int | None], None] | None = None,
           skip: tuple[str, ...] = ()) -> VerifyReport:
    """Every property of ``ruleset`` with its evidence (see the module docstring).

    ``progress(states, pending, seconds)`` follows each exploration; ``phase(what, done, total)``
    every later step, so a progress bar moves in every phase. ``skip``: the labels of derived
    configurations left out (a comparison's unpaired companions: :func:`unpaired`), listed in the
    report's ``left_out`` (the comparison says so, once).
    """
    start = time.perf_counter()
    # without a user --timeout no clock decides anything: the work is fixed (the state limits, the
    # seeded plays), so the same ruleset gives the same report under any load. A user's --timeout
    # bounds the whole command (the direct exploration gets a share of it).
    limits = Limits.starting_now(max_states, timeout, phase)
    game = spec.build(ruleset)
    label = config_label(spec, ruleset)
    limit = max_states if max_states is not None else spec.verify_max_states
    # with both a time and a state limit from the user, the state limit says when to stop exploring
    share = 1.0 if timeout is not None and max_states else DIRECT_SHARE
    direct_time = None if timeout is None else timeout * share
    report = VerifyReport(ruleset, dict(ruleset.params), left_out=tuple(skip))
    ex, crash = _explore_guarded(game, limit, direct_time, progress)
    if crash is not None:
        report.properties.append(PropertyResult("model-runs", FAILS, "every move of every reachable state "
                                                "can be computed by the model", crash, "exhaustive", scope=label))
        report.seconds = time.perf_counter() - start
        return report
    report.states = ex.num_states
    props = game_properties(spec, ruleset, game)
    if ex.complete:
        ctx = Context(spec, ruleset, game, label, EXPLORATION, exploration=ex, seed=seed, limits=limits)
        drawn: list = []

        def sampled() -> Context | None:
            if not drawn:
                left = limits.remaining()
                # a fixed, seeded number of plays (the same evidence under any load); only a
                # user's --timeout may cut it short
                drawn.append(draw_plays(game, PROPERTY_PLAYS, seed, Limits.starting_now(
                    None, None if left is None or timeout is None else left * 0.3)))
            return Context(spec, ruleset, game, label, SAMPLES, plays=drawn[0], seed=seed,
                           limits=limits, cache=ctx.cache) if drawn[0] else None
        companions = [d for d in _derived_kept(spec, ruleset, skip) if d.always]
        # (under a clock, one list: each property's share of the time is the one-process share)
        here, beside_ = split_for_worker(spec, props) if limits.deadline is None else (props, [])
        # (one job: such checks may share what they build, Presentes' two its reference turns)
        _with_derived(spec, ruleset, companions, limits, report, seed, progress, set(),
                      lambda: report.properties.extend(run_properties(here, ctx, fallback=sampled)),
                      [lambda lim: run_properties(beside_, replace(ctx, limits=lim), fallback=sampled)]
                      if beside_ else [], order=props, jobs_first=True)
    else:
        _verify_too_big(spec, ruleset, game, ex, label, props, limits, report,
                        plays or spec.verify_plays or DEFAULT_PLAYS, seed, progress,
                        timed=timeout is not None, skip=skip)
    report.seconds = time.perf_counter() - start
    return report


def split_for_worker(spec: GameSpec, props: Sequence[Property]) -> tuple[list[Property], list[Property]]:
    """(the properties run here, those a worker may run meanwhile): the game's own properties that
    read the exploration alone (``needs == (EXPLORATION,)``: an engine's agreement, a graph check)
    go beside; the core properties and the proofs, whose mapping passes share the context's cache,
    stay together here. A property's result does not depend on where it runs (a cache only saves
    work), so the report is the same either way; it lists them in ``props``' order."""
    core = len(core_properties())
    beside_ = [p for p in props[core:] if p.needs == (EXPLORATION,)]
    return [p for p in props if p not in beside_], beside_


def derived_of(spec: GameSpec, ruleset: Ruleset) -> list:
    """The game's derived configurations of ``ruleset`` (none when it declares none)."""
    return list(spec.derived(ruleset)) if spec.derived is not None else []


def _derived_kept(spec: GameSpec, ruleset: Ruleset, skip: tuple[str, ...]) -> list:
    """``derived_of`` but the labels a comparison left out (``skip``)."""
    return [d for d in derived_of(spec, ruleset) if d.label not in skip]


def unpaired(spec: GameSpec, ruleset: Ruleset, other: Ruleset) -> tuple[str, ...]:
    """The labels of ``ruleset``'s paired companions (``Derived.pair``) whose pair ``other`` does
    not derive: what a comparison of the two leaves out on ``ruleset``'s side. A board edit off Curta
    keeps no official companion, so the built-in Curta side skips Longa and Media (~50 CPU s)."""
    theirs = {d.pair for d in derived_of(spec, other) if d.pair}
    return tuple(d.label for d in derived_of(spec, ruleset) if d.pair and d.pair not in theirs)


def _explore_guarded(game, limit, timeout, progress) -> tuple[Exploration | None, list[str] | None]:
    """The exploration, or (when the model itself raises on some reachable state) the shortest
    play to that state and the error, found by a plain breadth-first search."""
    try:
        return explore(game, max_states=limit, timeout=timeout, progress=progress), None
    except (KeyboardInterrupt, MemoryError):
        raise
    except Exception:   # noqa: BLE001 -- the model's own error, narrated below
        return None, crash_trace(game)


def crash_trace(game, budget: int = 2_000_000) -> list[str]:
    """A shortest play to a state where the model raises, and the error."""
    from collections import deque
    start = game.initial_state()
    parent: dict[Any, tuple[Any, Any] | None] = {}
    try:
        parent[game.key(start)] = None
    except Exception as exc:   # noqa: BLE001
        return [f"start: the model cannot key its initial state: {type(exc).__name__}: {exc}"]
    queue = deque([start])
    while queue and len(parent) < budget:
        state = queue.popleft()
        try:
            if game.current_player(state) == TERMINAL:
                game.returns(state)
                continue
            moves = game.successors(state)
            nexts = [(a, t, game.key(t)) for a, _p, t in moves]
        except Exception as exc:   # noqa: BLE001
            return _path(game, parent, state) + [f"here the model raises {type(exc).__name__}: {exc}"]
        for a, t, k in nexts:
            if k not in parent:
                parent[k] = (state, a)
                queue.append(t)
    return ["the model raised during the exploration, but a plain search did not meet the error again"]


def _path(game, parent, state) -> list[str]:
    steps = []
    key = game.key(state)
    while parent.get(key) is not None:
        prev, move = parent[key]
        steps.append((prev, move, state))
        state, key = prev, game.key(prev)
    steps.reverse()
    lines = [f"start: {game.describe_state(game.initial_state())}"]
    for i, (s, a, t) in enumerate(steps, 1):
        lines.append(f"{i}. {game.seat_name(game.current_player(s))}: {game.describe_action(s, a)} -> "
                     f"{game.describe_state(t)}")
    return lines


def _verify_too_big(spec, ruleset, game, ex, label, props, limits, report, plays, seed, progress,
                    timed: bool = True, skip: tuple[str, ...] = ()) -> None:
    """(a) sampled plays, (b) the properties that read samples or nothing, (c) derived
    configurations. The time left is split: 45% for drawing the plays, then the properties within
    40% of what is left, then the derived configurations."""
    why = f"{label} is too big to explore within the limits ({ex.num_states:,} states explored, {ex.stop_reason})"
    report.notes.append(why)
    derived = _derived_kept(spec, ruleset, skip)
    # the properties that need every state: only a derived configuration can give them one
    waiting = {p.name for p in props if EXPLORATION in p.needs and SAMPLES not in p.needs
               and NOTHING not in p.needs}
    if limits.deadline is not None:
        _with_derived(spec, ruleset, derived, limits, report, seed, progress, waiting,
                      lambda: _full_size_part(spec, ruleset, game, label, props, limits, report, plays, seed, timed))
    else:   # the game's own properties, one by one, beside the core ones (a worker may take them)
        drawn: list = []
        kept: dict = {}   # this process's Context of their plays (the worker's is its own)
        core = len(core_properties())

        def own_property(prop: Property, lim: Limits) -> list[PropertyResult]:
            if "ctx" not in kept:
                kept["ctx"] = _full_size_own_context(spec, ruleset, game, label, drawn or None, plays, seed)
            return run_properties([prop], replace(kept["ctx"], limits=lim), full_size=True)
        _with_derived(spec, ruleset, derived, limits, report, seed, progress, waiting,
                      lambda: drawn.extend(_full_size_part(spec, ruleset, game, label, props[:core], limits,
                                                           report, plays, seed, timed)),
                      [lambda lim, p=p: own_property(p, lim) for p in props[core:]])
    for name in sorted(waiting):
        report.properties.append(PropertyResult(
            name, UNKNOWN, "needs every state of a configuration: this one is too big to explore and no "
            "derived configuration was explored within the limits", kind="exhaustive", scope=label,
            data={"property": name}))
    if not derived:
        report.notes.append(f"{spec.name} derives no smaller configurations; evidence is proofs and sampling")


def _full_size_part(spec, ruleset, game, label, props, limits, report, plays, seed, timed: bool) -> list:
    """The sampled plays of a configuration too big to explore, and the properties that read them
    (the core ones and the game's own, those of ``props`` there are); returns the plays."""
    left = limits.remaining()
    # the plays are a fixed amount of work (``plays``, seeded): only a user's --timeout (``timed``)
    # cuts them short, so the evidence does not depend on the machine's load
    sample_limits = Limits.starting_now(None, None if left is None or not timed else left * 0.45, limits.progress)
    drawn = draw_plays(game, plays, seed, sample_limits,
                       lambda done, total: limits.report("sampled plays", done, total))
    ctx = Context(spec, ruleset, game, label, SAMPLES, plays=drawn, seed=seed, limits=limits)
    core, own = props[:len(core_properties())], props[len(core_properties()):]
    report.properties.extend(run_properties(core, ctx, full_size=True))
    if own:
        left = limits.remaining()
        own_limits = Limits(limits.max_states, None if left is None else time.perf_counter() + left * 0.4,
                            limits.progress)
        own_ctx = _full_size_own_context(spec, ruleset, game, label, drawn, plays, seed)
        report.properties.extend(run_properties(own, replace(own_ctx, limits=own_limits), full_size=True))
    return drawn


def _full_size_own_context(spec, ruleset, game, label, drawn, plays, seed) -> Context:
    """What the game's own properties read at full size: the first ``PROPERTY_PLAYS`` plays (a
    proof's mapping costs more per transition). ``drawn`` None (a worker that has not drawn the
    plays): drawn here -- the same plays, since one seeded stream draws them in order."""
    if drawn is None:
        drawn = draw_plays(game, min(plays, PROPERTY_PLAYS), seed)
    return Context(spec, ruleset, game, label, SAMPLES, plays=drawn[:PROPERTY_PLAYS], seed=seed)


def _with_derived(spec, ruleset, derived, limits, report, seed, progress, waiting: set[str],
                  own: Callable[[], None], jobs: Sequence[Callable[[Limits], list[PropertyResult]]] = (),
                  order: Sequence[Property] | None = None, jobs_first: bool = False) -> None:
    """``own()`` (the configuration's own properties, added to the report) and each of ``jobs``
    (more of them: ``job(limits)`` gives their results), then each derived configuration explored
    and given every property again (or those it names), named ``[label]``, in order; ``waiting``
    loses the names of the properties decided on one. ``order``: the configuration's properties in
    the order the report lists them (own's and the jobs' results are put in it).

    Without a clock the derived configurations and the jobs (fixed amounts of work, the same
    results wherever they run) are shared with a worker on the second core (solver/beside.py): it
    takes items from the front while this process runs ``own()``, then this one takes them from the
    back until they meet, so both end about together. The derived configurations are in the
    game's order (it lists its heaviest first) but for the second heaviest, put last (this
    process's first from the back); the jobs come after them, the first-listed last (so
    this process, from the back, takes them in their order: many small jobs even out the ends), or
    with ``jobs_first`` before them (one big job is best started at once, by the worker). A derived
    configuration whose part the command's cache holds is not computed again (``_kept_derived``)."""
    from . import beside
    job_items = [("job", j) for j in range(len(jobs))]
    kept = _kept_derived(derived, limits, seed)
    derived_items = [("derived", d) for d in range(len(derived)) if d not in kept]
    # the two heaviest at the two ends: the worker starts the first while this process runs
    # own(), then this one starts the second from the back, so neither ends on a big item alone
    derived_items = derived_items[:1] + derived_items[2:] + derived_items[1:2]
    items = job_items + derived_items if jobs_first else derived_items + job_items[::-1]

    def said_first(k: int) -> tuple:
        kind, i = items[k]
        if kind == "job":
            return (f"{spec.name}: the configuration's properties, part {i + 2}", i, len(jobs))
        return (f"derived {derived[i].label}", i, len(derived))

    def one(k: int, lim: Limits, prog) -> tuple:
        kind, i = items[k]
        if kind == "job":   # more of the configuration's own properties: nothing derived, nothing decided
            return jobs[i](lim), [], [], set()
        return _derived_one(spec, ruleset, derived[i], lim, seed, prog)

    def in_worker(k: int) -> tuple:
        # the worker's phases are recorded and said here in the list's order, so the progress
        # shown is the one-process sequence on an idle machine too
        said: list = [said_first(k)]
        recorded = Limits(limits.max_states, progress=lambda *phase: said.append(phase))
        return one(k, recorded, None), said
    parts: dict[int, tuple] = {}
    base = len(report.properties)
    with beside.BothEnds(in_worker, len(items),
                         enabled=limits.deadline is None and bool(items) and beside.processes() > 1) as ends:
        own()
        for k in ends.back():
            limits.report(*said_first(k))
            parts[k] = one(k, limits, progress), ()
        parts.update(ends.results())
    # in order, as one process gives them: the jobs after own(), then the derived configurations
    # (computed here when the worker did not: a failed worker's)
    at = {entry: k for k, entry in enumerate(items)}

    def add(entry: tuple[str, int]) -> None:
        k = at[entry]
        if k not in parts:
            limits.report(*said_first(k))
            parts[k] = one(k, limits, progress), ()
        part, said = parts[k]
        for phase in said:
            limits.report(*phase)
        _add_part(report, waiting, part)
    for entry in job_items:
        add(entry)
    if order is not None:   # own's and the jobs' results in the properties' order
        rank = {p.name: n for n, p in enumerate(order)}
        report.properties[base:] = sorted(report.properties[base:],
                                          key=lambda r: rank.get(r.data.get("property"), len(rank)))
    for d in range(len(derived)):
        if d in kept:
            _add_part(report, waiting, kept[d])
        else:
            add(("derived", d))
            if limits.deadline is None:
                _keep_derived(derived[d], limits, seed, parts[at[("derived", d)]][0])


def _derived_options(d, limits: Limits, seed: int) -> dict[str, Any]:
    """What a derived configuration's part depends on beside its configuration and the code."""
    return dict(label=d.label, always=d.always, properties=d.properties, max_states=limits.max_states, seed=seed)


def _kept_derived(derived, limits: Limits, seed: int) -> dict[int, tuple]:
    """The parts of derived configurations the command's cache holds (no clock only: a part cut by
    one depends on the load): by configuration, so ``compare``'s two sides, whose companions are
    often the same configurations (Presentes' trio and chain boards keep the rulings, not the
    board), and the commands of a ``--cache`` folder explore each once. Each given back as its own
    copy, its configuration named as the caller's (the ruleset's name and source are not in the key)."""
    import copy
    from . import cache
    if limits.deadline is not None or cache.current() is None:
        return {}
    out = {}
    for i, d in enumerate(derived):
        part = cache.recall("derived", d.ruleset, _derived_options(d, limits, seed))
        if part is not None:
            found, explored, notes, decided = copy.deepcopy(part)
            out[i] = (found, [{**e, "config": d.ruleset.as_dict()} for e in explored], notes, decided)
    return out


def _keep_derived(d, limits: Limits, seed: int, part: tuple) -> None:
    """A derived configuration's part kept (a copy: the report holds and may change its own)."""
    import copy
    from . import cache
    if cache.current() is not None:
        cache.keep("derived", d.ruleset, _derived_options(d, limits, seed), copy.deepcopy(part))


def _add_part(report: VerifyReport, waiting: set[str], part: tuple[list, list, list, set[str]]) -> None:
    """One derived configuration's part (``_derived_one``) added to the report; ``waiting`` loses
    the properties it decided."""
    found, explored, notes, decided = part
    report.properties.extend(found)
    report.derived.extend(explored)
    report.notes.extend(notes)
    waiting -= decided


def _derived_one(spec, ruleset, d, limits, seed, progress) -> tuple[list, list, list, set[str]]:
    """One derived configuration explored and given every property again (or those it names):
    (properties, derived, notes, the names of the properties it decided) -- the same wherever it
    runs (what a worker process sends back)."""
    report = VerifyReport(ruleset, {})
    if limits.expired():
        report.notes.append(f"derived configuration {d.label!r} not explored: time limit")
        _companion_unchecked(report, d, "not explored: the time limit was reached first")
        return report.properties, report.derived, report.notes, set()
    sub = Limits.starting_now(limits.max_states, limits.remaining(), limits.progress)
    dgame = spec.build(d.ruleset)
    dex, crash = _explore_guarded(dgame, sub.states(spec.verify_max_states), sub.remaining(), progress)
    if crash is not None:
        report.properties.append(PropertyResult(f"model-runs [{d.label}]", FAILS, "every move of every "
                                                "reachable state can be computed by the model", crash,
                                                "exhaustive", scope=f"derived: {d.label}"))
        return report.properties, report.derived, report.notes, set()
    if not dex.complete:
        report.notes.append(f"derived: {d.label}: not explored completely ({dex.stop_reason})")
        _companion_unchecked(report, d, f"not explored completely ({dex.stop_reason})")
        return report.properties, report.derived, report.notes, set()
    report.derived.append({"label": d.label, "config": d.ruleset.as_dict(), "states": dex.num_states})
    dctx = Context(spec, d.ruleset, dgame, config_label(spec, d.ruleset), EXPLORATION, exploration=dex,
                   seed=seed, limits=sub, derived=d.label)
    props = [p for p in game_properties(spec, d.ruleset, dgame) if d.properties is None or p.name in d.properties]
    results = run_properties(props, dctx, tag=f"[{d.label}]")
    report.properties.extend(results)
    return report.properties, report.derived, report.notes, {r.data.get("property") for r in results
                                                             if r.status != UNKNOWN}


def _companion_unchecked(report: VerifyReport, d, why: str) -> None:
    """A companion the game wants checked every time (``always``) that could not be: its
    properties are undecided there, so the verdict cannot be "holds" (a slip only it shows would
    otherwise pass as green)."""
    if d.always:
        report.properties.append(PropertyResult(f"companion [{d.label}]", UNKNOWN,
                                                f"the properties of the companion {d.label!r}: {why}",
                                                kind="exhaustive", scope=f"derived: {d.label}",
                                                data={"property": "companion"}))


# ---- the verdict of several reports -----------------------------------------------------------

def evidence_counts(properties) -> dict[str, int]:
    """How many properties rest on each kind of evidence (proved, exhaustive, sampled, ...)."""
    counts: dict[str, int] = {}
    for p in properties:
        counts[p.evidence] = counts.get(p.evidence, 0) + 1
    return counts


def overall_status(reports) -> str:
    """fails if any report fails, else unknown if any is undecided, else holds."""
    statuses = {r.status for r in reports}
    return FAILS if FAILS in statuses else UNKNOWN if UNKNOWN in statuses else HOLDS


def verify_document(reports, targets: list[str]) -> dict[str, Any]:
    """``verify --json``: one ruleset's report, or every game's with their properties named by game."""
    docs = [{"game": r.ruleset.game, "ruleset": r.ruleset.name, "config": r.ruleset.as_dict(),
             "states": r.states, "seconds": round(r.seconds, 4), "status": r.status,
             "evidence": evidence_counts(r.properties), "notes": r.notes, "derived": r.derived,
             "properties": [p.as_dict() for p in r.properties]} for r in reports]
    if len(docs) == 1:
        return docs[0]
    return {"game": "all", "ruleset": "defaults", "config": {"games": targets},
            "status": overall_status(reports), "games": docs, "properties":
            [dict(p, name=f"{d['game']}:{p['name']}") for d in docs for p in d["properties"]]}
