"""Like compared with like: what one configuration is worth, and what an edit changes.

One path for every command that reads values -- ``compare``, ``report`` (alone and ``--against``)
and ``sweep``:

* ``target_ruleset`` says what a target names (a bare game name: its default small configuration,
  except opposite a ruleset, where it is the game's built-in ruleset, so the two sides differ by
  the edit only) and why;
* ``evaluate`` gives a configuration's values as typed estimates (``model.estimate``): exact or
  solved within the limits, a sampling engine's fixed-count sample, or beyond the limits seeded
  simulated games under a named policy -- with the first-seat advantage, the length of play (and
  its distribution where known) and the figures the engine measured;
* ``side`` adds ``verify``'s properties; ``compare_sides`` puts two sides together: the figures
  that moved first (a sampled figure moves only when its 95% intervals separate -- over the same
  seeded games on both sides, when its paired differences' interval excludes 0), then the
  properties whose verdict changed, the rest folded, and the regressions.

``compare`` and ``report --against`` both call ``side`` for each side and ``compare_sides`` on the
pair, so they give the same verdict and differences on the same pair.
"""
from __future__ import annotations

import dataclasses
import math
import re
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

from ruleproof.model.estimate import (FIRST_SEAT_ADVANTAGE_MEANING, Estimate, Figure, change,
                                      exact, first_seat_advantage, paired_change, paired_difference,
                                      solved)
from ruleproof.model.registry import GAMES, get_spec, load_ruleset
from ruleproof.model.results import FAILS, HOLDS, UNKNOWN
from ruleproof.model.ruleset import Ruleset, RulesetError, value_words

from . import beside, cache


#: without a user --timeout no clock decides whether a side is exact: the engines' state limits do
#: (a fixed amount of work), so the same side gets the same evidence under any load
SOLVE_TIMEOUT = None
#: simulated games, and their seed, where the exact engines stop and no --games/--seed is given
DEFAULT_GAMES = 2_000
DEFAULT_SEED = 0


# ---- what a target names ------------------------------------------------------------------------

#: where the small configuration's parameters come from (``Ruleset.origin``)
SMALL_SOURCE = "the default small configuration"
SMALL_WHY = ("a bare game name means its default small configuration (the one verify explores); "
             "name a ruleset file or give parameters for another")
OPPOSITE_WHY = ("a bare game name opposite a ruleset means the game's built-in ruleset as shipped, so "
                "the two sides differ by the edit only")


def target_ruleset(target: str, opposite: str | None = None) -> tuple[Ruleset, str]:
    """The ruleset a command-line target names, and why (printed on the side's first line).

    A game name means the game's default small configuration (what ``verify`` explores) -- except
    when ``opposite`` (the other side of a comparison) is a ruleset file or a built-in ruleset:
    then it means the game's built-in ruleset, so like is compared with like."""
    ruleset = load_ruleset(target)
    if target not in GAMES:
        kind = "the ruleset file" if target.endswith(".toml") else "the built-in ruleset"
        return ruleset, f"{kind} {target}"
    if opposite is not None and opposite not in GAMES:
        return ruleset, OPPOSITE_WHY
    spec = get_spec(ruleset.game)
    small = ruleset.with_overrides(dict(spec.verify_overrides), spec=spec.schema,
                                   source=SMALL_SOURCE)
    return small, SMALL_WHY


def describe_config(ruleset: Ruleset) -> str:
    """The parameters and rulings that differ from the game's built-in ruleset, as words."""
    spec = get_spec(ruleset.game)
    base = spec.default()
    parts = [f"{k} {_words(v)}" for k, v in ruleset.params.items() if base.params.get(k) != v]
    parts += [f"{k}={v}" for k, v in ruleset.rulings.items() if base.rulings.get(k) != v]
    return "; ".join(parts) if parts else f"the built-in {base.name} as shipped"


def overridden(ruleset: Ruleset) -> list[str]:
    """The parameters set outside the ruleset's files (the command line, the small configuration):
    the file's description may not speak of them."""
    return [k for k in ruleset.params if ruleset.origin(k) == SMALL_SOURCE or ruleset.origin(k).startswith("command line")]


_words = value_words


# ---- what a configuration is worth ----------------------------------------------------------------

@dataclass
class Evaluation:
    """A configuration's values and figures, each typed (see the module docstring)."""
    ruleset: Ruleset
    method: str                                  # exact, solved, near-optimal, simulated, failed
    engine: str = ""
    values: tuple[Estimate, ...] | None = None
    advantage: Estimate | None = None
    # {"estimate", "unit", "how", "distribution" (quantiles by name), and where they are sampled
    # "distribution_intervals" (each one's 95% interval; None for a side the plays cannot bound)}
    length: dict[str, Any] | None = None
    figures: tuple[Figure, ...] = ()
    states: int | None = None
    policy: str | None = None                    # the policy behind sampled values
    value_meaning: str = ""
    why: str | None = None                       # why the exact engines stopped (simulated) or no values
    solved: Any = field(default=None, repr=False)   # the ``Solved`` when an engine answered
    # the sampled plays game by game, where the engine draws each game from its own seed, so two
    # sides' games pair up (common random numbers): {"pairing", "utilities", "moves"}
    paired: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"method": self.method, "engine": self.engine,
                "values": None if self.values is None else [e.as_dict() for e in self.values],
                "first_seat_advantage": None if self.advantage is None else self.advantage.as_dict(),
                "length": None if self.length is None else
                {**self.length, "estimate": self.length["estimate"].as_dict()},
                "figures": [f.as_dict() for f in self.figures], "states": self.states,
                "policy": self.policy, "value_meaning": self.value_meaning, "exact_stopped": self.why,
                "paired_games": self.paired}


def _quantile_row(name: str, la: dict[str, Any], lb: dict[str, Any]) -> dict[str, Any]:
    """One quantile of the length that reads differently on the two sides: changed when its two
    95% intervals separate (an exact quantile is its own interval), else no detectable change --
    two samples of the same game seldom share every quantile."""
    def interval(length: dict[str, Any]) -> tuple[float, float]:
        iv = (length.get("distribution_intervals") or {}).get(name)
        v = length["distribution"][name]
        if iv is None:   # exact (None: beyond the solver's horizon, larger than any it computed)
            return (math.inf, math.inf) if v is None else (v, v)
        return (-math.inf if iv[0] is None else iv[0], math.inf if iv[1] is None else iv[1])
    a, b = la["distribution"][name], lb["distribution"][name]
    (a_low, a_high), (b_low, b_high) = interval(la), interval(lb)
    moved = a_high < b_low or b_high < a_low
    sampled_ = bool(la.get("distribution_intervals") or lb.get("distribution_intervals"))
    if moved:
        text = "beyond the horizon" if a is None or b is None else f"{b - a:+g}"
    else:
        text = (f"no detectable change ({a} -> {b}, 95% intervals overlap)" if sampled_ else "unchanged")
    return {"figure": f"length {name} ({la['unit']})", "meaning": "a quantile of the length"
            + (" (sampled: the smallest observed length with at least that share of the games at or below it, "
               "and its distribution-free 95% interval)" if sampled_ else ""),
            "seat": None, "fair_share": None, "moved": moved,
            "verdict": "changed" if moved else "no detectable change", "a": a, "b": b, "text": text}


def _length_of(solved_) -> dict[str, Any] | None:
    """Expected length of play from a solve: the generic engine's expected moves under the
    solved policy, or an engine's own (Presentes' exact expected turns and quantiles)."""
    turns = solved_.result.extras.get("mean_turns")
    if isinstance(turns, dict):
        e = exact(Fraction(turns["fraction"])) if turns.get("fraction") else \
            solved(turns["float"], 1e-9, "sparse LU in double precision")
        return {"estimate": e, "unit": "turns",
                "how": "expected turns from the start under the ruleset's policy (Markov chain)",
                "distribution": solved_.result.extras.get("turn_quantiles")}
    sp = solved_.result.extras.get("self_play")
    if isinstance(sp, dict) and sp.get("moves"):
        return {"estimate": Estimate.from_dict(sp["moves"]), "unit": "moves",
                "how": "moves per game in the self-play behind the values", "distribution": None}
    sol = solved_.solution
    if sol is not None:
        from .rulings import expected_moves
        moves = expected_moves(sol)
        if moves is not None:
            return {"estimate": solved(moves, 1e-9, "sparse LU in double precision"), "unit": "moves",
                    "how": "expected moves from the start when every seat plays optimally "
                           "(every decision and every chance draw counts as one move)",
                    "distribution": None}
    return None


def _figures_of_simulation(doc: dict[str, Any]) -> tuple[Figure, ...]:
    """A simulation's per-seat and overall estimates other than the values and the length, as
    figures (e.g. P(finishes first) with its fair share)."""
    seats = doc["seats"]
    out = []
    names = list(dict.fromkeys(k for s in seats for k in s if k != "utility"))
    for name in names:
        if all(name in s for s in seats):
            out.append(Figure(name, name.replace("_", " "), tuple(Estimate.from_dict(s[name]) for s in seats),
                              per_seat=True, fair_share=Fraction(1, len(seats)) if name == "finish_first" else None))
    for name, value in doc["metrics"].items():
        if name in ("moves", "turns", "first_seat_advantage"):
            continue
        out.append(Figure(name, name.replace("_", " "), (Estimate.from_dict(value),)))
    return tuple(out)


def _stop_at(deadline: float) -> Callable[[int, int], None]:
    """A playout progress hook that stops the games once ``deadline`` has passed."""
    import time

    from .runtime import TimeLimit

    def on_time(done: int, total: int) -> None:
        if time.perf_counter() > deadline:
            raise TimeLimit(0)
    return on_time


def evaluate(ruleset: Ruleset, *, max_states: int | None = None, timeout: float | None = SOLVE_TIMEOUT,
             games: int | None = None, seed: int | None = None, policy: str | None = None,
             out_dir=None, progress: Callable | None = None, simulate_only: bool = False,
             detail: bool = False, deadline: float | None = None) -> Evaluation:
    """A configuration's values as typed estimates. The first engine that applies answers; an
    exact engine within ``timeout`` (and ``max_states``) -- beyond them, ``games`` seeded games
    (``DEFAULT_GAMES``, seed ``DEFAULT_SEED``) are simulated under ``policy`` (the game's
    default). An engine that samples (the near-optimal one) plays its fixed number of games
    (``games``/``seed`` when given) whatever the time: the same figures under any machine load.
    ``deadline`` (a ``time.perf_counter()`` value, sweep's whole-run limit) stops the simulated
    games with ``TimeLimit`` when it passes."""
    if out_dir is not None and deadline is None and not detail and not simulate_only \
            and _samples(ruleset, max_states):
        out_dir = None   # an engine that samples writes files only with ``detail``: the kept answer serves
    if out_dir is not None or deadline is not None:   # files to write, or a whole-run clock: computed
        return _evaluate(ruleset, max_states=max_states, timeout=timeout, games=games, seed=seed,
                         policy=policy, out_dir=out_dir, progress=progress, simulate_only=simulate_only,
                         detail=detail, deadline=deadline)
    # shared within the command (``solver.cache``): an answer no time limit decided (exact or
    # solved, or an engine's fixed-count sample), without its solved tables
    return cache.remember(
        "evaluate", ruleset, _evaluate_key(max_states, games, seed, policy, simulate_only, detail),
        lambda: _evaluate(ruleset, max_states=max_states, timeout=timeout, games=games, seed=seed,
                          policy=policy, progress=progress, simulate_only=simulate_only, detail=detail),
        keep=lambda ev: ev.why is None and ev.values is not None,
        slim=_slim, restore=cache.with_ruleset, by_configuration=True)


def _evaluate_key(max_states: int | None, games: int | None, seed: int | None, policy: str | None,
                  simulate_only: bool = False, detail: bool = False) -> dict[str, Any]:
    return dict(max_states=max_states, games=games, seed=seed, policy=policy,
                simulate_only=simulate_only, detail=detail)


def _samples(ruleset: Ruleset, max_states: int | None) -> bool:
    """Whether the engine ``evaluate`` picks for ``ruleset`` samples (``Engine.samples``)."""
    from .analysis import engines_of, pick_engine
    from ruleproof.model.seams import SolveOptions
    try:
        engine, _ = pick_engine(engines_of(get_spec(ruleset.game)), ruleset, SolveOptions(max_states=max_states))
    except RulesetError:   # no engine applies: ``_evaluate`` says so
        return False
    return engine.samples


def _slim(ev: Evaluation) -> Evaluation:
    """What the cache keeps of an evaluation: without its solved tables; a sampling engine's answer
    (its self-play's figures, no tables) whole, so the page can read how it was made."""
    from .analysis import engines_of
    samplers = {e.name for e in engines_of(get_spec(ev.ruleset.game)) if e.samples}
    if ev.solved is not None and ev.engine in samplers and ev.solved.result.solution is None:
        return ev
    return dataclasses.replace(ev, solved=None)


def _per_game(r) -> dict[str, Any] | None:
    """A sampling engine's plays game by game, when it keeps them (``Evaluation.paired``)."""
    got = (r.extras.get("self_play") or {}).get("per_game")
    return got if isinstance(got, dict) and got.get("pairing") else None


def _evaluate(ruleset: Ruleset, *, max_states: int | None, timeout: float | None, games: int | None,
              seed: int | None, policy: str | None, out_dir=None, progress: Callable | None,
              simulate_only: bool, detail: bool, deadline: float | None = None) -> Evaluation:
    from .analysis import engines_of, pick_engine, solve_ruleset
    from .montecarlo import simulate_ruleset
    from ruleproof.model.seams import SolveOptions
    spec = get_spec(ruleset.game)
    why = "not tried (--simulate-only)" if simulate_only else None
    if not simulate_only:
        engine, _ = pick_engine(engines_of(spec), ruleset, SolveOptions(max_states=max_states))
        budget = None if engine.samples else timeout
        solved_ = solve_ruleset(ruleset, max_states=max_states, timeout=budget, out_dir=out_dir,
                                progress=progress, games=games, seed=seed, detail=detail)
        r = solved_.result
        if r.partial is None:
            values = solved_.estimates
            kinds = {e.kind for e in values}
            method = kinds.pop() if len(kinds) == 1 else "solved"
            figures = tuple(r.figures)
            adv = next((f.estimates[0] for f in figures if f.name == "first_seat_advantage"), None)
            return Evaluation(ruleset, method, solved_.engine, values,
                              adv or first_seat_advantage(values), _length_of(solved_),
                              tuple(f for f in figures if f.name != "first_seat_advantage"),
                              r.states, r.extras.get("policy") or ("optimal" if r.meaning == "optimal" else
                                                                   "near-optimal" if r.meaning == "near-optimal" else None),
                              solved_.value_meaning, None, solved_, _per_game(r))
        why = r.partial
    try:
        doc = simulate_ruleset(ruleset, games or DEFAULT_GAMES, DEFAULT_SEED if seed is None else seed, policy,
                               None if deadline is None else _stop_at(deadline))
    except RulesetError as exc:
        if exc.source != "simulate":   # bad input (an unknown policy, say) stays bad input
            raise
        # the rules themselves stop the simulation (a game that can hang): no values, and why
        return Evaluation(ruleset, "failed", "simulation", why=f"{why}; simulated games: {exc.reason}" if why
                          else f"simulated games: {exc.reason}")
    seats = doc["seats"]
    if not (seats and all("utility" in s for s in seats)):
        return Evaluation(ruleset, "failed", doc["engine"], why=(why or "") +
                          "; the game's simulation reports no per-seat value")
    values = tuple(Estimate.from_dict(s["utility"]) for s in seats)
    metrics = doc["metrics"]
    adv = Estimate.from_dict(metrics["first_seat_advantage"]) if "first_seat_advantage" in metrics \
        else first_seat_advantage(values)
    unit = next((k for k in ("turns", "moves") if k in metrics), None)
    length = None if unit is None else {
        "estimate": Estimate.from_dict(metrics[unit]), "unit": unit,
        "how": f"{unit} per simulated game", "distribution": metrics[unit].get("quantiles"),
        "distribution_intervals": metrics[unit].get("quantile_intervals")}
    game = spec.build(ruleset)
    return Evaluation(ruleset, "simulated", doc["engine"], values, adv, length, _figures_of_simulation(doc),
                      None, doc["policy"], getattr(game, "value_meaning", ""), why)


# ---- one side: verify and evaluate ---------------------------------------------------------------

def side(ruleset: Ruleset, why: str = "", *, max_states: int | None = None, deadline: float | None = None,
         games: int | None = None, seed: int | None = None, policy: str | None = None,
         out_dir=None, progress: Callable | None = None, phase: Callable | None = None,
         explored: Callable | None = None, other: Ruleset | None = None) -> tuple[dict[str, Any], Any, Evaluation]:
    """One side of a comparison (and the body of ``report``): ``verify``'s properties and the
    values (``evaluate``). Returns the side's JSON summary, the verify report and the evaluation.
    ``other``: the side it is compared with (its verify then leaves out the companions ``other``
    has no counterpart of: ``verify.unpaired``)."""
    rep = verified(ruleset, max_states=max_states, timeout=_left(deadline), progress=explored,
                   phase=phase, seed=seed, plays=games, other=other)
    left = _left(deadline)
    ev = evaluate(ruleset, max_states=max_states, timeout=left,
                  games=games, seed=seed, policy=policy, out_dir=out_dir, progress=progress)
    return side_summary(ruleset, why, rep, ev), rep, ev


def verified(ruleset: Ruleset, *, max_states: int | None = None, timeout: float | None = None,
             seed: int | None = None, plays: int | None = None, progress: Callable | None = None,
             phase: Callable | None = None, other: Ruleset | None = None):
    """``verify``'s report on ``ruleset``, shared within the command (``solver.cache``) unless a
    time limit was given (a report under one depends on the load). ``other``: a comparison's
    other side (see ``side``)."""
    from .verify import verify
    skip = _unpaired(ruleset, other)

    def run():
        return verify(get_spec(ruleset.game), ruleset, max_states=max_states, timeout=timeout,
                      progress=progress, phase=phase, seed=0 if seed is None else seed, plays=plays,
                      skip=skip)
    if timeout is not None:
        return run()
    return cache.remember("verify", ruleset, _verify_key(max_states, seed, plays, skip), run,
                          restore=cache.with_ruleset)


def _unpaired(ruleset: Ruleset, other: Ruleset | None) -> tuple[str, ...]:
    from .verify import unpaired
    return () if other is None else unpaired(get_spec(ruleset.game), ruleset, other)


def _verify_key(max_states: int | None, seed: int | None, plays: int | None,
                skip: tuple[str, ...] = ()) -> dict[str, Any]:
    key: dict[str, Any] = dict(max_states=max_states, seed=0 if seed is None else seed, plays=plays)
    if skip:   # (absent when nothing is left out: the keys kept before stay valid)
        key["skip"] = list(skip)
    return key


def _side_verify_key(ruleset: Ruleset, kw: dict[str, Any]) -> dict[str, Any]:
    """The verify key of ``side(ruleset, **kw)`` (its plays are ``kw``'s games)."""
    return _verify_key(kw.get("max_states"), kw.get("seed"), kw.get("games"), _unpaired(ruleset, kw.get("other")))


def verify_cold_side_first(a: Ruleset, b: Ruleset, kw: dict[str, Any], *,
                           phase: Callable | None = None, explored: Callable | None = None) -> None:
    """Before the two sides: verify here, one after the other, each side whose verify is not kept
    yet (an earlier command's, through ``--cache``), where verify shares its derived
    configurations with the second core. The two sides then only evaluate -- in two processes when
    ``parallel_sides`` or ``parallel_evaluations`` says so (the latter judges the explored sizes,
    known only now) -- and they end about together: each process verifying its own side would
    leave one idle while the other finishes the heavier verify (Loira's harmless edit: 17 CPU s
    against the built-in's 12, its shrunken deck keeping the Chute L07 is about), and with one side
    kept, one process would verify alone while the other idles. In one process the same work is
    only done in another order. Under a clock nothing is verified ahead (each side's verify gets
    what is left when its turn comes). ``phase``/``explored``: ``a``'s progress hooks, as ``side``
    takes them."""
    if kw.get("deadline") is not None:
        return
    for r, o in ((a, b), (b, a)):
        if not cache.kept("verify", r, _side_verify_key(r, dict(kw, other=o))):
            hooks = dict(progress=explored, phase=phase) if r is a else {}
            verified(r, max_states=kw.get("max_states"), seed=kw.get("seed"), plays=kw.get("games"),
                     other=o, **hooks)


def _left(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.001, deadline - time.perf_counter())


def side_summary(ruleset: Ruleset, why: str, rep, ev: Evaluation) -> dict[str, Any]:
    longest = next((p.data.get("longest_play") for p in rep.properties if p.name == "termination"), None)
    return {"ruleset": ruleset.name, "source": ruleset.source,
            "configuration": {"why": why, "differs_from_built_in": describe_config(ruleset)},
            "verify": rep.status,
            "properties": {p.name: p.status for p in rep.properties},
            "evidence": {p.name: p.evidence for p in rep.properties},
            "property_details": {p.name: p.detail for p in rep.properties},
            "counterexamples": {p.name: p.counterexample for p in rep.properties if p.counterexample},
            "notes": list(rep.notes), "left_out": list(rep.left_out),
            **ev.as_dict(), "longest_play": longest,
            "partial": ev.values is None,
            "values_note": None if ev.values else (ev.why or "no values")}


# ---- two sides -------------------------------------------------------------------------------------

_RANK = {FAILS: 0, UNKNOWN: 1, HOLDS: 2}


def base_name(name: str) -> str:
    """A property's name without the derived configuration it was checked on ("x [7 cards]" -> "x")."""
    return name.split(" [", 1)[0]


def property_groups(statuses: dict[str, str]) -> dict[str, str]:
    """Each property by its base name, with the weakest status among the configurations it was
    checked on (a derived configuration's label differs between two edits; its verdict does not)."""
    out: dict[str, str] = {}
    for name, status in statuses.items():
        key = base_name(name)
        out[key] = status if key not in out or _RANK[status] < _RANK[out[key]] else out[key]
    return out


def find_regressions(sa: dict[str, Any], sb: dict[str, Any]) -> list[dict[str, Any]]:
    """What got worse from A to B: a property A holds that B fails or cannot decide (or no longer
    checks at all), a property B fails that A does not, and values that could not be computed."""
    pa, pb = sa["properties"], sb["properties"]
    b_bases = {base_name(n) for n in pb}
    out = []
    for name, status in pa.items():
        got = pb.get(name)
        if status == HOLDS and got in (FAILS, UNKNOWN):
            out.append({"property": name, "a": status, "b": got,
                        "why": "B fails it" if got == FAILS else "B cannot decide it"})
        elif status == HOLDS and got is None and base_name(name) not in b_bases:
            if sb["verify"] == UNKNOWN:   # B stopped short of it (a limit): undecided, not dropped
                out.append({"property": name, "a": status, "b": UNKNOWN,
                            "why": "B did not reach it within the limits"})
            else:
                out.append({"property": name, "a": status, "b": None, "why": "B no longer checks it"})
    for name, got in pb.items():
        if got == FAILS and pa.get(name) not in (FAILS, HOLDS):
            out.append({"property": name, "a": pa.get(name), "b": got, "why": "B fails it"})
    for label, s in (("A", sa), ("B", sb)):
        if not s["values"]:
            out.append({"property": "values", "a": None, "b": None,
                        "why": f"{label}'s values could not be computed ({s['values_note']})"})
    return out


def _figure_changes(sa: dict[str, Any], sb: dict[str, Any]) -> list[dict[str, Any]]:
    """Every figure both sides have, seat by seat, with its verdict (``model.estimate.change``)."""
    rows: list[dict[str, Any]] = []
    pairs = _pairs(sa, sb)

    def add(figure: str, meaning: str, a: dict | None, b: dict | None, seat: int | None = None,
            fair: str | None = None, per_game: Callable[[dict], list[float]] | None = None) -> None:
        if a is None or b is None:
            return
        ea, eb = Estimate.from_dict(a), Estimate.from_dict(b)
        if pairs is not None and per_game is not None and ea.is_sampled and eb.is_sampled:
            delta = paired_difference(per_game(pairs[0]), per_game(pairs[1]), seed=eb.seed, policy=eb.policy,
                                      bounds=ea.bounds if ea.bounds and all(map(math.isfinite, ea.bounds)) else None)
            c = paired_change(ea, eb, delta)
        else:
            c = change(ea, eb)
        rows.append({"figure": figure, "meaning": meaning, "seat": seat, "fair_share": fair,
                     "moved": c.moved, **c.as_dict()})
    for seat, (a, b) in enumerate(zip(sa["values"] or [], sb["values"] or [])):
        add("value", sa.get("value_meaning") or "", a, b, seat,
            per_game=lambda p, seat=seat: [u[seat] for u in p["utilities"]])
    add("first-seat advantage", FIRST_SEAT_ADVANTAGE_MEANING, sa.get("first_seat_advantage"),
        sb.get("first_seat_advantage"),
        per_game=lambda p: [u[0] - sum(u[1:]) / (len(u) - 1) for u in p["utilities"]])
    la, lb = sa.get("length"), sb.get("length")
    if la and lb and la["unit"] == lb["unit"]:
        add(f"expected length ({la['unit']})", la["how"], la["estimate"], lb["estimate"],
            per_game=(lambda p: [float(m) for m in p["moves"]]) if la["unit"] == "moves" else None)
        da, db = la.get("distribution") or {}, lb.get("distribution") or {}
        for q in (k for k in da if k in db and da[k] != db[k]):
            rows.append(_quantile_row(q, la, lb))
    fb = {f["name"]: f for f in sb.get("figures") or []}
    for fa in sa.get("figures") or []:
        other = fb.get(fa["name"])
        if other is None or len(other["estimates"]) != len(fa["estimates"]):
            continue
        for i, (a, b) in enumerate(zip(fa["estimates"], other["estimates"])):
            add(fa["name"].replace("_", " "), fa["meaning"], a, b, i if fa["per_seat"] else None,
                fa.get("fair_share"))
    return rows


def _pairs(sa: dict[str, Any], sb: dict[str, Any]) -> tuple[dict, dict] | None:
    """Both sides' plays game by game when they pair up: the same engine's games drawn from the
    same seeds, as many on each side (common random numbers: a figure's change is then read from
    the paired differences, not from two independent intervals)."""
    pa, pb = sa.get("paired_games"), sb.get("paired_games")
    if not (pa and pb) or pa.get("pairing") != pb.get("pairing"):
        return None
    n = len(pa["utilities"])
    return (pa, pb) if n > 1 and n == len(pb["utilities"]) == len(pa["moves"]) == len(pb["moves"]) else None


#: counts that differ between two configurations without saying anything about the edit
_COUNTS = re.compile(r"\d[\d,]*( reachable| explored)? (states|steps|stutters|exits|sampled plays|plays|ends of round)\b")


def _finding(detail: str) -> str:
    """A property's detail without how it was checked: counts masked, and the tail saying on which
    transitions a proof's mapping was checked dropped."""
    return _COUNTS.sub("N", detail.split("; mapping checked on", 1)[0])


def compare_sides(a: Ruleset, b: Ruleset, sa: dict[str, Any], sb: dict[str, Any]) -> dict[str, Any]:
    """What the edit from A to B changes (see the module docstring)."""
    if a.game != b.game:
        raise RulesetError(b.source, "game", f"rulesets are for different games ({a.game} vs {b.game})")
    ga, gb = property_groups(sa["properties"]), property_groups(sb["properties"])
    changed_props = {k: [ga.get(k), gb.get(k)] for k in sorted(set(ga) | set(gb)) if ga.get(k) != gb.get(k)}
    same = [k for k in ga if gb.get(k) == ga[k]]
    da, db = sa["property_details"], sb["property_details"]
    ea, eb = sa["evidence"], sb["evidence"]
    details = {k: [da[k], db[k]] for k in sorted(set(da) & set(db)) if da[k] != db[k]}
    figures = _figure_changes(sa, sb)
    regressions = find_regressions(sa, sb)
    moved = [f for f in figures if f["moved"]]
    # only undecided regressions (B could not decide a property, or values could not be computed):
    # not decided, which exits 1 too but is not said to regress (identical rulesets stopped by a
    # limit once were)
    decided = [r for r in regressions if r["property"] != "values" and r["b"] != UNKNOWN]
    verdict = ("regresses" if decided else "undecided" if regressions else "changes" if moved or changed_props else
               "no detectable change" if any(f["verdict"] == "no detectable change" for f in figures)
               else "unchanged")
    pairs = _pairs(sa, sb)
    return {
        "a": sa, "b": sb, "verdict": verdict, "regressions": regressions,
        "moved": moved, "figures": figures,
        "paired": None if pairs is None else (
            f"the same {len(pairs[0]['utilities']):,} games on both sides ({pairs[0]['pairing']}; common random "
            "numbers): the values, the first-seat advantage and the length moved when the 95% interval of "
            "their paired differences excludes 0"),
        "changes": {
            "params": {k: [a.params.get(k), b.params.get(k)] for k in a.params
                       if a.params.get(k) != b.params.get(k)},
            "rulings": {k: [a.rulings.get(k), b.rulings.get(k)] for k in a.rulings
                        if a.rulings.get(k) != b.rulings.get(k)},
            "properties": changed_props,
            "unchanged_properties": {"count": len(same),
                                     "statuses": sorted({ga[k] for k in same})},
            "details": details,
            # findings that differ beyond how far each side looked: the same evidence on both
            # sides (a sampled check reads differently from an exhaustive one), counts masked
            "substantive_details": [k for k, (x, y) in details.items()
                                    if ea.get(k) == eb.get(k) and _finding(x) != _finding(y)],
            "values": any(f["moved"] for f in figures if f["figure"] == "value"),
            "longest_play": [sa["longest_play"], sb["longest_play"]],
        },
    }


@cache.scoped   # the two sides share what they have in common (and --cache's folder)
def compare_rulesets(a: Ruleset, b: Ruleset, *, why: tuple[str, str] = ("", ""), max_states: int | None = None,
                     timeout: float | None = None, games: int | None = None, seed: int | None = None,
                     policy: str | None = None) -> dict[str, Any]:
    """``compare``: each side verified and evaluated by ``side``, then ``compare_sides``.
    ``timeout`` bounds the whole comparison (each phase gets what is left)."""
    if a.game != b.game:
        raise RulesetError(b.source, "game", f"rulesets are for different games ({a.game} vs {b.game})")
    deadline = None if timeout is None else time.perf_counter() + timeout
    kw = dict(max_states=max_states, deadline=deadline, games=games, seed=seed, policy=policy)
    parallel = parallel_sides(a, b, timeout, kw)
    verify_cold_side_first(a, b, kw)
    parallel = parallel or parallel_evaluations(a, b, timeout, kw)
    # two heavy sides (full-size, sampled: fixed seeded work each), or two big exact evaluations,
    # at once on two cores; the same figures, since neither side's work depends on the other's or
    # on the clock (solver/beside.py)
    with beside.Beside(side_summary_of, b, why[1], dict(kw, other=a), enabled=parallel) as later:
        sa = side(a, why[0], **kw, other=b)[0]
        sb = later.result()
    return compare_sides(a, b, sa, sb)


def side_summary_of(ruleset: Ruleset, why: str, kw: dict[str, Any]) -> dict[str, Any]:
    """``side``'s JSON summary alone (what a worker process sends back)."""
    return side(ruleset, why, **kw)[0]


def parallel_sides(a: Ruleset, b: Ruleset, timeout: float | None, kw: dict[str, Any]) -> bool:
    """Whether the two sides run in two processes: no time limit, two cores, two different
    configurations (the same one is computed once and shared), both heavy, neither kept whole in
    the cache (an earlier command's, through ``--cache``). A kept side is read back here in a moment;
    a worker for it would hold the second core's slot (``beside.processes``) while the other
    side's self-play could have shared its games with it."""
    from .analysis import heavy
    return (timeout is None and not _same_configuration(a, b) and beside.processes() > 1 and heavy(a)
            and heavy(b) and not side_kept(a, dict(kw, other=b)) and not side_kept(b, dict(kw, other=a)))


#: explored states from which each side's exact evaluation is worth a process of its own, both
#: sides verified (the Presentes board edit, 42,079 states: ~3.5 s of turn-chain solve a side)
EVALUATE_BESIDE_STATES = 20_000


def parallel_evaluations(a: Ruleset, b: Ruleset, timeout: float | None, kw: dict[str, Any]) -> bool:
    """Whether, both sides verified already (``verify_cold_side_first``), their exact evaluations
    run in two processes: two different configurations, each explored to
    ``EVALUATE_BESIDE_STATES`` states or more (smaller ones solve in less than a fork's worth of
    waiting), neither evaluation kept in the cache yet, and a second core idle. Each evaluation is
    fixed work (an exact solve, no clock), so the figures are the same either way. Not with a side
    that samples (``heavy``): such pairs are ``parallel_sides``'s, and a self-play in a worker
    could not spread its own games over both cores."""
    from .analysis import heavy
    if timeout is not None or _same_configuration(a, b):
        return False
    if heavy(a) or heavy(b):
        return False
    for r, o in ((a, b), (b, a)):
        rep = cache.recall("verify", r, _side_verify_key(r, dict(kw, other=o)))
        if rep is None or rep.states < EVALUATE_BESIDE_STATES:
            return False
        if cache.kept("evaluate", r, _side_evaluate_key(kw), by_configuration=True):
            return False
    return beside.processes() > 1


def side_kept(ruleset: Ruleset, kw: dict[str, Any]) -> bool:
    """Whether the open cache holds both halves of ``side(ruleset, **kw)``: its verify report and
    its evaluation (no time limit: ``kw``'s deadline is None; ``kw``'s ``other``: the side it is
    compared with)."""
    return (cache.kept("verify", ruleset, _side_verify_key(ruleset, kw))
            and cache.kept("evaluate", ruleset, _side_evaluate_key(kw), by_configuration=True))


def _side_evaluate_key(kw: dict[str, Any]) -> dict[str, Any]:
    """The evaluate key of ``side(ruleset, **kw)`` (as ``_side_verify_key`` for its verify)."""
    return _evaluate_key(kw.get("max_states"), kw.get("games"), kw.get("seed"), kw.get("policy"))


def _same_configuration(a: Ruleset, b: Ruleset) -> bool:
    """Whether the two sides are one configuration (computed once and shared, never in two processes)."""
    return dict(a.params) == dict(b.params) and dict(a.rulings) == dict(b.rulings)
