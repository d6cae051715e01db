"""Library entry points behind the CLI: solve a ruleset, compare rulings, regression scenarios.

Everything here works through ``GameSpec`` and the protocol only.
"""
from __future__ import annotations

import json
import re
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

from model.registry import get_spec
from model.ruleset import Ruleset, RulesetError

from .explore import explore
from .graph import decision_graph
from .graphmemo import memo_solve
from .tables import occupancy, write_play_table, write_summary

#: graphs up to this many states are solved in exact rational arithmetic by default
EXACT_LIMIT = 50_000
#: ... and when at most this many of them lie on cycles (pass --exact to go further)
EXACT_CYCLIC_LIMIT = 5_000


def value_entry(exact: Fraction | None, approx: float) -> dict[str, Any]:
    return {"fraction": None if exact is None else str(exact), "float": float(approx)}


def solve_ruleset(ruleset: Ruleset, *, exact: bool | None = None, max_states: int | None = None,
                  timeout: float | None = None, out_dir: Path | None = None,
                  progress: Callable | None = None, full: bool = False, check_invariants: bool = True,
                  solve_memo: dict | None = None) -> dict[str, Any]:
    """Exact (or float, for large graphs) optimal values, play table, summary, graph and picture
    (``full``: the play table lists every decision state, not only those optimal play reaches).
    ``check_invariants=False`` skips the explorer's invariant checks (values do not depend on
    them); ``solve_memo`` shares solutions between identical graphs (``solver.graphmemo``)."""
    spec = get_spec(ruleset.game)
    start = time.perf_counter()
    hook = spec.hooks.get("solve")
    if hook is not None:
        result = hook(ruleset, {"exact": exact, "max_states": max_states, "timeout": timeout, "full": full,
                                "check_invariants": check_invariants, "solve_memo": solve_memo},
                      out_dir, progress)
        if result is not None:  # None: the hook leaves this configuration to the generic solver
            result.setdefault("seconds", time.perf_counter() - start)
            return result
    game = spec.build(ruleset)
    ex = explore(game, max_states=max_states, timeout=timeout, check_invariants=check_invariants,
                 progress=(lambda n, pending, sec: progress("explore", n, n + pending)) if progress else None)
    result: dict[str, Any] = {"states": ex.num_states, "edges": ex.num_edges,
                              "explore_seconds": round(ex.seconds, 4)}
    if not ex.complete:
        result.update(partial=True, reason=ex.stop_reason, values=None,
                      seconds=time.perf_counter() - start)
        return result
    if exact is None:
        # exact by default when small; cyclic parts cost far more in rational arithmetic (one
        # Gauss-Jordan elimination per component), so they have their own, lower limit
        sol = memo_solve(ex, solve_memo, progress=progress)
        use_exact = ex.num_states <= EXACT_LIMIT and sol.cyclic_states <= EXACT_CYCLIC_LIMIT
        if use_exact:
            sol = memo_solve(ex, solve_memo, exact=True, progress=progress)
    else:
        use_exact = exact
        sol = memo_solve(ex, solve_memo, exact=exact, progress=progress)
    exact_vals = sol.initial_exact
    result.update(
        partial=False, exact=use_exact, method=sol.method, residual=sol.residual,
        values=[value_entry(exact_vals[s] if exact_vals else None, sol.initial[s])
                for s in range(game.num_players)],
        solve_seconds=round(sol.seconds, 4), cyclic_states=sol.cyclic_states,
        value_meaning=game.value_meaning)
    if out_dir is not None:
        result.update(write_solution_files(sol, out_dir, spec.hooks.get("picture"), full=full,
                                           summary=spec.hooks.get("summary")))
    result["seconds"] = time.perf_counter() - start
    result["_solution"] = sol
    return result


def write_solution_files(sol, out_dir: Path, picture: Callable | None = None, *, full: bool = False,
                         summary: Callable | None = None) -> dict[str, Any]:
    """The play table (CSV and its sidecar, see ``solver.tables``), the policy summary (when the
    game writes one), the decision graph (GraphML, when not too large) and the policy picture
    (when the game draws one); returns ``files`` (and a ``graph_note``)."""
    out: dict[str, Any] = {}
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        files = write_play_table(sol, out_dir, full=full)
        made = summary(sol, occupancy(sol)) if summary is not None else None
        if made is not None:
            files += write_summary(made, out_dir)
            out["policy_summary"] = {"title": made.title, "constant": made.constant}
        graph = decision_graph(sol)
        if graph is not None:
            import networkx as nx
            nx.write_graphml(graph, out_dir / "decision_graph.graphml")
            files.append(out_dir / "decision_graph.graphml")
        else:
            out["graph_note"] = "decision graph not written: too many states for GraphML"
        if picture is not None:
            files.append(picture(sol.exploration.game, sol, out_dir / "policy.png"))
    except OSError as exc:
        raise RulesetError("command line", "--out", f"cannot write into {str(out_dir)!r} "
                           f"({exc.strerror or exc})") from None
    out["files"] = [str(f) for f in files]
    return out


# ---- regression scenarios ------------------------------------------------------------------------

SCENARIO_DIR = Path(__file__).resolve().parent.parent / "scenarios"


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


def run_scenario(ruleset: Ruleset, memo: dict | None = None) -> dict[str, Any]:
    """The exact values and state count a scenario stores. The explorer's invariant checks are
    skipped (``verify`` checks them; values do not depend on them) and ``memo`` lets scenarios
    whose readings explore to the same graph share one solve (``solver.graphmemo``)."""
    res = solve_ruleset(ruleset, exact=True, check_invariants=False, solve_memo=memo)
    return {"states": res.get("states"),
            "values": [v["fraction"] for v in res["values"]] if res.get("values") else None}


#: one memo per process, emptied as a run starts: a worker keeps the solutions of the graphs it solved
_MEMO: dict = {}


def _scenario_job(job: tuple) -> tuple:
    game, name, params, rulings, source = job
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        got = run_scenario(scenario_ruleset(game, params, rulings, source), _MEMO)
    except RulesetError as exc:   # it does not pickle (three-argument constructor): send its parts
        return game, name, None, (exc.source, exc.key, exc.reason)
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
    """Run scenario jobs (game, name, params, rulings, source, size) in ``processes`` workers,
    calling ``done(game, name, got)`` as each finishes. The biggest (by ``size``, the stored state
    count) go first, so a long one does not start last and keep one worker busy alone."""
    import multiprocessing as mp
    import os
    work = [j[:-1] for j in sorted(jobs, key=lambda j: -j[-1])]
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
    path = SCENARIO_DIR / f"{game}.json"
    if not path.exists():
        return path, {}
    try:
        return path, json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise RulesetError(str(path), "-", f"not valid JSON ({exc})") from None


def record_scenarios(game: str, processes: int | None = None) -> Path:
    SCENARIO_DIR.mkdir(exist_ok=True)
    jobs = [(game, name, params, rulings, f"scenario {name}", 0) for name, params, rulings in scenario_configs(game)]
    data = {name: {"params": params, "rulings": rulings} for _, name, params, rulings, _, _ in jobs}

    def done(g: str, name: str, got: dict) -> None:
        got.pop("_seconds")
        data[name]["expect"] = got
    _run_jobs(jobs, processes, done)
    path = SCENARIO_DIR / f"{game}.json"
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path


def check_games(games: list[str], progress: Callable[[str, int, int], None] | None = None,
                processes: int | None = None) -> dict[str, list[dict[str, Any]]]:
    """Re-run the stored scenarios of several games in one pool of workers; per game, one row per
    scenario (in the stored order) saying whether the result still matches exactly
    (``progress(game, done, total)`` after each)."""
    stored = {game: _stored(game) for game in games}
    jobs = []
    for game, (path, entries) in stored.items():
        for name, entry in entries.items():
            if not isinstance(entry, dict) or "expect" not in entry:
                raise RulesetError(str(path), name, "a scenario needs 'params', 'rulings' and 'expect' "
                                   "(store them with: ruleproof rulings check GAME --record)")
            params, rulings = entry.get("params", {}), entry.get("rulings", {})
            source = f"{path}:{name}"
            scenario_ruleset(game, params, rulings, source)   # bad input stops here, before any worker
            jobs.append((game, name, params, rulings, source, (entry["expect"] or {}).get("states") or 0))
    got: dict[str, dict[str, Any]] = {game: {} for game in games}
    timing: dict[tuple[str, str], tuple[float, float]] = {}

    def done(game: str, name: str, result: dict) -> None:
        timing[game, name] = result.pop("_seconds")
        got[game][name] = result
        if progress is not None:
            progress(game, len(got[game]), len(stored[game][1]))
    _run_jobs(jobs, processes, done)
    return {game: [{"scenario": name, "expected": entry["expect"], "got": got[game][name],
                    "same": got[game][name] == entry["expect"],
                    "seconds": timing[game, name][0], "cpu_seconds": timing[game, name][1]}
                   for name, entry in entries.items()]
            for game, (_, entries) in stored.items()}


def check_scenarios(game: str, progress: Callable[[int, int], None] | None = None,
                    processes: int | None = None) -> list[dict[str, Any]]:
    """Re-run one game's stored scenarios (see ``check_games``)."""
    return check_games([game], (lambda g, d, t: progress(d, t)) if progress else None, processes)[game]


# ---- rule edits --------------------------------------------------------------------------------

_STATE_COUNT = re.compile(r"\d[\d,]*( reachable)? states")


#: without a user --timeout, each side's solve in ``compare`` stops after this many seconds
COMPARE_SOLVE_TIMEOUT = 60.0


def _left(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.001, deadline - time.perf_counter())


def _side(spec, ruleset: Ruleset, max_states: int | None, deadline: float | None) -> dict[str, Any]:
    from .verify import verify
    rep = verify(spec, ruleset, max_states=max_states, timeout=_left(deadline))
    left = _left(deadline)
    res = solve_ruleset(ruleset, max_states=max_states,
                        timeout=left if left is not None else COMPARE_SOLVE_TIMEOUT)
    return side_summary(ruleset, rep, res)


def side_summary(ruleset: Ruleset, rep, res: dict[str, Any]) -> dict[str, Any]:
    """One side of a comparison from its verify report and its ``solve_ruleset`` result (``report``
    passes the ones it already has, so a ruleset is not verified and solved twice)."""
    longest = next((p.data.get("longest_play") for p in rep.properties if p.name == "termination"), None)
    return {"ruleset": ruleset.name, "source": ruleset.source, "verify": rep.status,
            "properties": {p.name: p.status for p in rep.properties},
            "evidence": {p.name: p.evidence for p in rep.properties},
            "property_details": {p.name: p.detail for p in rep.properties},
            "counterexamples": {p.name: p.counterexample for p in rep.properties if p.counterexample},
            "notes": rep.notes,
            "values": res.get("values"), "states": res.get("states"), "longest_play": longest,
            "partial": bool(res.get("partial")),
            "values_note": None if res.get("values") else (res.get("reason") or "no values")}


def _base_name(name: str) -> str:
    """A property's name without the derived configuration it was checked on ("x [7 cards]" -> "x")."""
    return name.split(" [", 1)[0]


def find_regressions(sa: dict[str, Any], sb: dict[str, Any]) -> list[dict[str, Any]]:
    """What got worse from A to B: a property A holds that B fails or cannot decide (or no longer
    checks at all), a property B fails that A does not, and values that could not be computed."""
    pa, pb = sa["properties"], sb["properties"]
    b_bases = {_base_name(n) for n in pb}
    out = []
    for name, status in pa.items():
        got = pb.get(name)
        if status == "holds" and got in ("fails", "unknown"):
            out.append({"property": name, "a": status, "b": got,
                        "why": "B fails it" if got == "fails" else "B cannot decide it"})
        elif status == "holds" and got is None and _base_name(name) not in b_bases:
            out.append({"property": name, "a": status, "b": None, "why": "B no longer checks it"})
    for name, got in pb.items():
        if got == "fails" and pa.get(name) not in ("fails", "holds"):
            out.append({"property": name, "a": pa.get(name), "b": got, "why": "B fails it"})
    for label, side in (("A", sa), ("B", sb)):
        if not side["values"]:
            out.append({"property": "values", "a": None, "b": None,
                        "why": f"{label}'s values could not be computed ({side['values_note']})"})
    return out


def compare_rulesets(a: Ruleset, b: Ruleset, *, max_states: int | None = None,
                     timeout: float | None = None, b_side: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a rule edit changes: parameters and rulings, each property's status and detail, the
    optimal values and the longest play. ``details`` lists every detail whose text differs;
    ``substantive_details`` only those that differ beyond their state counts; ``regressions``
    what got worse (the CLI exits 1 when it is not empty). ``b_side``: B's ``side_summary`` when
    the caller has already verified and solved B."""
    if a.game != b.game:
        raise RulesetError(b.source, "game", f"rulesets are for different games ({a.game} vs {b.game})")
    spec = get_spec(a.game)
    # ``timeout`` bounds the whole comparison: each phase gets what is left
    deadline = None if timeout is None else time.perf_counter() + timeout
    sa = _side(spec, a, max_states, deadline)
    sb = b_side if b_side is not None else _side(spec, b, max_states, deadline)
    pa, pb = sa["properties"], sb["properties"]
    da, db = sa["property_details"], sb["property_details"]
    shared = sorted(set(pa) & set(pb))
    details = {k: [da[k], db[k]] for k in shared if da[k] != db[k]}
    return {
        "a": sa, "b": sb,
        "regressions": find_regressions(sa, sb),
        "changes": {
            "params": {k: [a.params.get(k), b.params.get(k)] for k in a.params
                       if a.params.get(k) != b.params.get(k)},
            "rulings": {k: [a.rulings.get(k), b.rulings.get(k)] for k in a.rulings
                        if a.rulings.get(k) != b.rulings.get(k)},
            "properties": {k: [pa.get(k), pb.get(k)] for k in sorted(set(pa) | set(pb))
                           if pa.get(k) != pb.get(k)},
            "details": details,
            "substantive_details": [k for k, (x, y) in details.items()
                                    if _STATE_COUNT.sub("N states", x) != _STATE_COUNT.sub("N states", y)],
            "values": sa["values"] != sb["values"],
            "longest_play": [sa["longest_play"], sb["longest_play"]],
        },
    }
