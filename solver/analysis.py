"""Library entry points behind the CLI: solve a ruleset, compare rulings, regression scenarios.

Everything here works through ``GameSpec`` and the protocol only.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Sequence

from ruleproof.model.estimate import Estimate, Figure, exact as exact_estimate, solved
from ruleproof.model.registry import get_spec
from ruleproof.model.ruleset import Ruleset, RulesetError
from ruleproof.model.seams import Engine, SolveOptions, SolveResult

from .engines import GENERIC

#: the tolerance a float value without an iteration residual is given: double-precision
#: arithmetic over a game's backward induction or linear solve (far above its ~1e-15 rounding)
FLOAT_TOLERANCE = 1e-9


def value_estimates(result: SolveResult) -> tuple[Estimate, ...] | None:
    """Each seat's value as a typed estimate: the engine's own when it gave them, else exact from
    fractions, else solved to the engine's Bellman residual (``extras["residual"]``) or to
    ``FLOAT_TOLERANCE`` (double-precision arithmetic)."""
    if result.values is None:
        return None
    if result.estimates is not None:
        return tuple(result.estimates)
    if result.exact:
        return tuple(exact_estimate(Fraction(v)) for v in result.values)
    residual = result.extras.get("residual")
    if isinstance(residual, (int, float)) and residual > 0:
        return tuple(solved(float(v), max(float(residual), 1e-15), "Bellman residual") for v in result.values)
    return tuple(solved(float(v), FLOAT_TOLERANCE, "double-precision arithmetic") for v in result.values)


#: the keys of ``solve --json``, the same for every game (docs/json.md says what each means)
SOLVE_KEYS = ("game", "ruleset", "config", "engine", "skipped", "meaning", "value_meaning", "exact",
              "values", "states", "edges", "method", "partial", "reason", "seconds", "files", "figures",
              "extras")


@dataclass(frozen=True)
class Solved:
    """``solve_ruleset``'s answer: the engine that answered and its result, the engines passed
    over and why, the time taken. ``doc()`` is the JSON document (``SOLVE_KEYS``)."""
    ruleset: Ruleset
    engine: str
    skipped: tuple[tuple[str, str], ...]
    result: SolveResult
    seconds: float
    value_meaning: str

    @property
    def estimates(self) -> tuple[Estimate, ...] | None:
        return value_estimates(self.result)

    @property
    def values(self) -> list[dict[str, Any]] | None:
        """Each seat's value as JSON: ``Estimate.as_dict()`` (``kind``, ``float``, ``fraction``, and
        what the kind carries)."""
        got = self.estimates
        return None if got is None else [e.as_dict() for e in got]

    @property
    def figures(self) -> tuple[Figure, ...]:
        return tuple(self.result.figures)

    @property
    def solution(self) -> Any:
        return self.result.solution

    def doc(self) -> dict[str, Any]:
        r = self.result
        return {"game": self.ruleset.game, "ruleset": self.ruleset.name, "config": self.ruleset.as_dict(),
                "engine": self.engine, "skipped": [{"engine": n, "reason": why} for n, why in self.skipped],
                "meaning": r.meaning, "value_meaning": self.value_meaning, "exact": r.exact,
                "values": self.values, "states": r.states, "edges": r.edges, "method": r.method,
                "partial": r.partial is not None, "reason": r.partial, "seconds": round(self.seconds, 4),
                "files": list(r.files), "figures": [f.as_dict() for f in self.figures],
                "extras": dict(r.extras)}


def check_solve_limits(max_states: int | None, timeout: float | None) -> None:
    """``--max-states`` and ``--timeout``: zero, negative or NaN is bad input."""
    if max_states is not None and max_states < 1:
        raise RulesetError("command line", "--max-states", f"must be a positive number of states, not {max_states}")
    if timeout is not None and not timeout > 0:
        raise RulesetError("command line", "--timeout", f"must be a positive number of seconds, not {timeout}")


def usable_out_dir(out_dir: Path | None) -> None:
    """Create ``--out`` before any long work; a path that cannot be a folder is bad input."""
    if out_dir is None:
        return
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RulesetError("command line", "--out", f"cannot use {str(out_dir)!r} as the output "
                           f"folder ({exc.strerror or exc})") from None


def engines_of(spec) -> tuple[Engine, ...]:
    """A game's engines in preference order (the generic one when it names none)."""
    return tuple(spec.engines) or (GENERIC,)


def pick_engine(engines: tuple[Engine, ...], ruleset: Ruleset, options: SolveOptions,
                name: str | None = None) -> tuple[Engine, list[tuple[str, str]]]:
    """The first engine that applies (or the one named), and why each earlier one did not."""
    skipped: list[tuple[str, str]] = []
    known = [e.name for e in engines]
    if name is not None and name not in known:
        raise RulesetError("command line", "--engine", f"unknown engine {name!r} for {ruleset.game} "
                           f"(known: {', '.join(known)})")
    for engine in engines:
        if name is not None and engine.name != name:
            continue
        why = engine.applies(ruleset, options)
        if why is None:
            return engine, skipped
        if name is not None:
            raise RulesetError("command line", "--engine", f"{name} does not apply: {why}")
        skipped.append((engine.name, why))
    raise RulesetError("command line", "solve", f"no engine applies to {ruleset.name}: "
                       + "; ".join(f"{n}: {why}" for n, why in skipped))


def solve_ruleset(ruleset: Ruleset, *, exact: bool | None = None, max_states: int | None = None,
                  timeout: float | None = None, out_dir: Path | None = None,
                  progress: Callable | None = None, full: bool = False, engine: str | None = None,
                  check_invariants: bool = True, solve_memo: dict | None = None,
                  games: int | None = None, seed: int | None = None, detail: bool = True) -> Solved:
    """Solve a ruleset with the first of its game's engines that applies (``engine``: the one
    named): values, what they mean, and (``out_dir``) the engine's files. Limits are checked and
    the output folder made here, once for every game. ``check_invariants=False`` skips the
    explorer's invariant checks (values do not depend on them); ``solve_memo`` shares solutions
    between identical graphs (``solver.graphmemo``). ``games``/``seed``: the sample an engine that
    samples plays (the near-optimal one); ``detail=False``: values only, no printable tables."""
    spec = get_spec(ruleset.game)
    start = time.perf_counter()
    check_solve_limits(max_states, timeout)
    usable_out_dir(out_dir)
    options = SolveOptions(exact=exact, max_states=max_states, out_dir=out_dir, full=full,
                           deadline=None if timeout is None else start + timeout, timeout=timeout,
                           check_invariants=check_invariants, solve_memo=solve_memo,
                           games=games, seed=seed, detail=detail)
    chosen, skipped = pick_engine(engines_of(spec), ruleset, options, engine)
    try:
        result = chosen.solve(ruleset, options, progress)
    except OSError as exc:
        where = getattr(exc, "filename", None)
        if out_dir is None or (where and not str(where).startswith(str(out_dir))):
            raise   # not the output folder's fault (e.g. a compiler cache elsewhere)
        raise RulesetError("command line", "--out", f"cannot write into {str(out_dir)!r} "
                           f"({exc.strerror or exc})") from None
    meaning = result.value_meaning or getattr(spec.build(ruleset), "value_meaning", "")
    return Solved(ruleset, chosen.name, tuple(skipped), result, time.perf_counter() - start, meaning)


# ---- regression scenarios ------------------------------------------------------------------------

#: the stored scenarios, shipped as package data (``ruleproof/scenarios`` in an installed wheel)
#: where the scenarios are read and written: each game's own folder (``model/<game>/scenarios.json``)
#: unless a test points this at a folder of its own (``<game>.json`` there)
SCENARIO_DIR: Path | None = None


def scenario_file(game: str) -> Path:
    """The game's stored scenarios (the fingerprints beside it: ``solver.digest.prints_path``)."""
    if SCENARIO_DIR is not None:
        return SCENARIO_DIR / f"{game}.json"
    return get_spec(game).folder / "scenarios.json"


def scenario_configs(game: str) -> list[tuple[str, dict[str, Any], dict[str, str]]]:
    """(name, parameter overrides, ruling overrides): the game's default small configuration
    under the default readings, and under each alternative reading of each ruling."""
    spec = get_spec(game)
    params = dict(spec.verify_overrides)
    configs = [("defaults", params, {})]
    for ruling in spec.schema.rulings:
        for option in ruling.alternatives:
            configs.append((f"{ruling.id}={option}", params, {ruling.id: option}))
    return configs


def scenario_ruleset(game: str, params: dict[str, Any], rulings: dict[str, str], source: str) -> Ruleset:
    spec = get_spec(game)
    return spec.default().with_overrides(params, rulings, source=source, spec=spec.schema)


#: worker processes for the scenarios (they are independent; at most one per core is used)
SCENARIO_PROCESSES = 2


def run_scenario(ruleset: Ruleset, memo: dict | None = None, stored_prints: bytes | None = None
                 ) -> dict[str, Any]:
    """The exact values, state count and every-state digest a scenario stores (``solver.digest``).
    The explorer's invariant checks are skipped (``verify`` checks them; values do not depend on
    them) and ``memo`` lets scenarios whose readings explore to the same graph share one solve
    (``solver.graphmemo``). With ``stored_prints`` (the recorded fingerprints) a changed digest
    is narrated: the first state whose record differs, and what it is now (``_first_change``)."""
    from .digest import describe_state_record, first_difference, graph_digest
    from .explore import explore
    res = solve_ruleset(ruleset, exact=True, check_invariants=False, solve_memo=memo)
    sol = res.result.solution if hasattr(res.result.solution, "exploration") else None
    ex = sol.exploration if sol is not None else \
        explore(get_spec(ruleset.game).build(ruleset), check_invariants=False)
    digest, prints = graph_digest(ex, sol, memo)
    got: dict[str, Any] = {"states": res.result.states,
                           "values": [v["fraction"] for v in res.values] if res.values else None,
                           "digest": digest}
    got["_prints"] = prints
    if stored_prints is not None:
        i = first_difference(stored_prints, prints)
        if i is not None and i < ex.num_states:
            got["_first_change"] = ex.narrate(i) + [
                f"state {i + 1:,} of {ex.num_states:,} (breadth-first) differs from the recorded one; "
                f"now: {describe_state_record(ex, sol, i)}"]
        elif i is not None:
            got["_first_change"] = [f"the recorded graph had {len(stored_prints):,} states, this one "
                                    f"{ex.num_states:,}; the first {i:,} are alike"]
    return got


#: one memo per process, emptied as a run starts: a worker keeps the solutions of the graphs it solved
_MEMO: dict = {}


def _scenario_job(job: tuple) -> tuple:
    game, name, params, rulings, source, stored_prints = job
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        ruleset = scenario_ruleset(game, params, rulings, source)
    except RulesetError as exc:   # it does not pickle (three-argument constructor): send its parts
        return game, name, None, (exc.source, exc.key, exc.reason)
    try:
        got = run_scenario(ruleset, _MEMO, stored_prints)
    except (KeyboardInterrupt, MemoryError):
        raise
    except Exception as exc:   # noqa: BLE001 -- a changed model that raises is a change, reported
        got = {"error": f"{type(exc).__name__}: {exc}"}
    got["_seconds"] = (round(time.perf_counter() - wall, 3), round(time.process_time() - cpu, 3))
    return game, name, got, None


def _quiet_worker() -> None:
    """Ctrl-C is the parent's to answer (it stops the pool); a worker ignores it."""
    import signal
    _MEMO.clear()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        signal.set_wakeup_fd(-1)   # the parent's wake-up socket, inherited by the fork
    except ValueError:
        pass


def _run_jobs(jobs: list[tuple], processes: int | None, done: Callable[[str, str, dict], None]) -> None:
    """Run scenario jobs (game, name, params, rulings, source, stored prints, (size, digest)) in
    ``processes`` workers, calling ``done(game, name, got)`` as each finishes. The biggest (by ``size``, the stored state
    count, then the stored digest) go first, so a long one does not start last and keep one worker
    busy alone; scenarios stored with one digest come one after another, where a worker's memo
    finds the graph it digested last (``solver.digest.graph_digest``)."""
    import multiprocessing as mp
    import os
    work = [j[:-1] for j in sorted(jobs, key=lambda j: (-j[-1][0], j[-1][1]))]
    n = min(processes if processes is not None else SCENARIO_PROCESSES, os.cpu_count() or 1, len(work))
    if n <= 1:
        _MEMO.clear()
        results = map(_scenario_job, work)
        pool = None
    else:
        pool = mp.get_context("fork").Pool(n, initializer=_quiet_worker)
        results = pool.imap_unordered(_scenario_job, work, chunksize=1)
    try:
        for game, name, got, error in results:
            if error is not None:
                raise RulesetError(*error)
            done(game, name, got)
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()


def _stored(game: str) -> tuple[Path, dict[str, Any]]:
    path = scenario_file(game)
    if not path.exists():
        return path, {}
    try:
        return path, json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise RulesetError(str(path), "-", f"not valid JSON ({exc})") from None


def record_scenarios(game: str, processes: int | None = None) -> Path:
    from .digest import dump_prints, prints_path
    from .outputs import write_file
    jobs = [(game, name, params, rulings, f"scenario {name}", None, (0, ""))
            for name, params, rulings in scenario_configs(game)]
    data = {name: {"params": params, "rulings": rulings} for _, name, params, rulings, _, _, _ in jobs}
    prints: dict[str, bytes] = {}

    def done(g: str, name: str, got: dict) -> None:
        got.pop("_seconds")
        if "error" in got:
            raise RulesetError(f"scenario {name}", "record", f"the model raises: {got['error']}")
        prints[name] = got.pop("_prints")
        data[name]["expect"] = got
    _run_jobs(jobs, processes, done)
    path = scenario_file(game)
    # each beside its file, renamed into place (solver/outputs.py)
    with write_file(path, "--record", store=True) as fh:
        fh.write(json.dumps(data, indent=1, sort_keys=True) + "\n")
    with write_file(prints_path(path), "--record", text=False, store=True) as fh:
        fh.write(dump_prints(prints))
    return path


def check_games(games: list[str], progress: Callable[[str, int, int], None] | None = None,
                processes: int | None = None) -> dict[str, list[dict[str, Any]]]:
    """Re-run the stored scenarios of several games in one pool of workers; per game, one row per
    scenario (in the stored order) saying whether the result still matches exactly
    (``progress(game, done, total)`` after each)."""
    from .digest import load_prints
    stored = {game: _stored(game) for game in games}
    jobs = []
    for game, (path, entries) in stored.items():
        if not entries:   # checking nothing must not pass (e.g. a package installed without its data)
            raise RulesetError(str(path), "scenarios", f"no stored scenarios for {game}; record them "
                               f"with: ruleproof rulings check {game} --record")
        prints = load_prints(path)
        for name, entry in entries.items():
            if not isinstance(entry, dict) or "expect" not in entry:
                raise RulesetError(str(path), name, "a scenario needs 'params', 'rulings' and 'expect' "
                                   "(store them with: ruleproof rulings check GAME --record)")
            params, rulings = entry.get("params", {}), entry.get("rulings", {})
            source = f"{path}:{name}"
            scenario_ruleset(game, params, rulings, source)   # bad input stops here, before any worker
            expect = entry["expect"] or {}
            jobs.append((game, name, params, rulings, source, prints.get(name),
                         (expect.get("states") or 0, str(expect.get("digest") or ""))))
    got: dict[str, dict[str, Any]] = {game: {} for game in games}
    timing: dict[tuple[str, str], tuple[float, float]] = {}

    changes: dict[tuple[str, str], list[str]] = {}

    def done(game: str, name: str, result: dict) -> None:
        timing[game, name] = result.pop("_seconds", (0.0, 0.0))
        result.pop("_prints", None)
        if "_first_change" in result:
            changes[game, name] = result.pop("_first_change")
        got[game][name] = result
        if progress is not None:
            progress(game, len(got[game]), len(stored[game][1]))
    _run_jobs(jobs, processes, done)
    return {game: [{"scenario": name, "expected": entry["expect"], "got": got[game][name],
                    "same": got[game][name] == entry["expect"],
                    "first_change": changes.get((game, name)),
                    "seconds": timing[game, name][0], "cpu_seconds": timing[game, name][1]}
                   for name, entry in entries.items()]
            for game, (_, entries) in stored.items()}


def check_scenarios(game: str, progress: Callable[[int, int], None] | None = None,
                    processes: int | None = None) -> list[dict[str, Any]]:
    """Re-run one game's stored scenarios (see ``check_games``)."""
    return check_games([game], (lambda g, d, t: progress(d, t)) if progress else None, processes)[game]


# ---- deduce ------------------------------------------------------------------------------------

def deduce_file(path: Path) -> tuple[dict[str, Any], str]:
    """``deduce``: the game that reads position files (the one whose spec declares a
    ``deduction``) answers; the JSON document and its text form."""
    from ruleproof.model.registry import all_specs
    start = time.perf_counter()
    specs = [s for s in all_specs() if s.deduction is not None]
    if not specs:
        raise RulesetError("command line", "deduce", "no installed game reads position files")
    spec = specs[0]
    res = spec.deduction.run(path)
    doc = {"game": spec.name, "ruleset": res.get("ruleset", spec.name),
           "config": res.get("config", {"view": str(path)}), **res,
           "seconds": round(time.perf_counter() - start, 4)}
    return doc, spec.deduction.text(res)


def heaviest_first(rulesets: Sequence[Ruleset]) -> list[int] | None:
    """The indexes of ``rulesets`` by the answering engine's own estimate of its work
    (``Engine.work``), the heaviest first, equal ones in their order; None when an engine gives
    no estimate. For scheduling only: with two workers, the heaviest started last would run alone."""
    works = []
    for rs in rulesets:
        engine = answering_engine(rs)
        if engine is None or engine.work is None:
            return None
        works.append(engine.work(rs))
    return sorted(range(len(works)), key=lambda i: -works[i])


def answering_engine(ruleset: Ruleset):
    """The engine that answers ``ruleset`` by default, or None when none applies (the caller then
    reports it through its own run)."""
    try:
        return pick_engine(engines_of(get_spec(ruleset.game)), ruleset, SolveOptions())[0]
    except Exception:   # noqa: BLE001 -- no engine applies
        return None


def heavy(ruleset: Ruleset) -> bool:
    """Whether evaluating ``ruleset`` is the heavy kind worth a second process: the engine that
    answers it plays a fixed sample (the near-optimal self-play), so no exact engine fits it:
    ``compare`` runs such sides beside each other (``beside``), and ``sweep`` such points unless
    their engine already shares its own work (``two_at_a_time``)."""
    engine = answering_engine(ruleset)
    return engine is not None and bool(engine.samples)


def two_at_a_time(rulesets: Sequence[Ruleset]) -> bool:
    """Whether ``rulesets`` are worth evaluating two at a time (``sweep``'s points): each is heavy
    and its engine does not already spread its own work over both cores (``Engine.shares_cores``:
    one after another, each on both cores, uneven points leave no core idle)."""
    engines = [answering_engine(rs) if heavy(rs) else None for rs in rulesets]
    return all(e is not None and not e.shares_cores for e in engines)
