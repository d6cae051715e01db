"""The generic engine: explore the whole game graph, solve it (exact when small), write the play
table, summary, decision graph and picture. Every game has it; a game may put its own engines
before it (``GameSpec.engines``) or tune it with :func:`generic_engine`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from typing import TYPE_CHECKING

from ruleproof.model.ruleset import Ruleset, RulesetError
from ruleproof.model.seams import Engine, SolveOptions, SolveResult

if TYPE_CHECKING:
    from .solve import Solution

#: graphs up to this many states are solved in exact rational arithmetic by default
EXACT_LIMIT = 50_000
#: ... and when at most this many of them lie on cycles (pass --exact to go further)
EXACT_CYCLIC_LIMIT = 5_000


def _always(ruleset: Ruleset, options: SolveOptions) -> str | None:
    return None


def generic_engine(*, default_states: int | None = None,
                   applies: Callable[[Ruleset, SolveOptions], str | None] = _always,
                   check: Callable[[Ruleset, Solution], dict[str, Any]] | None = None,
                   note: Callable[[Ruleset], str | None] | None = None) -> Engine:
    """The generic engine, with a game's default state cap (the user's ``--max-states`` wins), its
    own test of when it applies, and ``check(ruleset, solution)``: extras cross-checking the values
    another way (Loira: the C solver's value); and ``note(ruleset)``: a line a partial answer carries
    (Loira: why the C solver, which would have answered, could not be used)."""
    def run(ruleset: Ruleset, options: SolveOptions, progress) -> SolveResult:
        from ruleproof.model.registry import get_spec   # the registry imports every game, which import this
        from .explore import explore          # numpy, scipy: imported on use, not at CLI start-up
        from .graphmemo import memo_solve
        spec = get_spec(ruleset.game)
        game = spec.build(ruleset)
        ex = explore(game, max_states=options.states(default_states), timeout=options.remaining(),
                     check_invariants=options.check_invariants, progress=(lambda n, pending, sec: progress("explore", n, n + pending)) if progress else None)
        method = "generic exploration"
        if not ex.complete:
            hint = "" if options.max_states or options.deadline else "; raise the limit with --max-states"
            said = note(ruleset) if note is not None else None
            return SolveResult.stopped(f"{ex.stop_reason}{hint}" + (f"; {said}" if said else ""),
                                       ex.num_states, method, ex.num_edges)
        if options.exact is None:
            # exact by default when small; cyclic parts cost far more in rational arithmetic (one
            # elimination per component), so they have their own, lower limit
            sol = memo_solve(ex, options.solve_memo, progress=progress)
            use_exact = ex.num_states <= EXACT_LIMIT and sol.cyclic_states <= EXACT_CYCLIC_LIMIT
            if use_exact:
                sol = memo_solve(ex, options.solve_memo, exact=True, progress=progress)
        else:
            use_exact = options.exact
            sol = memo_solve(ex, options.solve_memo, exact=use_exact, progress=progress)
        values = sol.initial_exact if use_exact else sol.initial
        extras: dict[str, Any] = {"explore_seconds": round(ex.seconds, 4), "solve_seconds": round(sol.seconds, 4),
                                  "cyclic_states": sol.cyclic_states, "residual": sol.residual}
        if check is not None:
            extras.update(check(ruleset, sol))
        files: list[str] = []
        if options.out_dir is not None:
            made = write_solution_files(sol, options.out_dir, spec.picture, full=options.full,
                                        summary=spec.policy_summary)
            files = made.pop("files")
            extras.update(made)
        return SolveResult(tuple(values), "optimal", use_exact, ex.num_states, f"{method}; {sol.method}",
                           ex.num_edges, extras=extras, files=tuple(files), solution=sol)
    return Engine("generic", applies, run)


GENERIC = generic_engine()


# solver.tables and solver.graph (numpy, scipy, networkx) are imported on use, not at CLI start-up
def write_play_table(*args, **kwargs):
    from .tables import write_play_table
    return write_play_table(*args, **kwargs)


def write_summary(*args, **kwargs):
    from .tables import write_summary
    return write_summary(*args, **kwargs)


def occupancy(*args, **kwargs):
    from .tables import occupancy
    return occupancy(*args, **kwargs)


def decision_graph(*args, **kwargs):
    from .graph import decision_graph
    return decision_graph(*args, **kwargs)


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
