"""Library entry points behind the CLI: solve a ruleset, compare rulings, regression scenarios.

Everything here works through ``GameSpec`` and the protocol only.
"""
from __future__ import annotations

import json
import re
import time
from collections import deque
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

from model.protocol import TERMINAL
from model.registry import get_spec
from model.ruleset import Ruleset, RulesetError

from .explore import explore
from .graph import decision_graph, policy_table, write_table
from .solve import solve

#: graphs up to this many states are solved in exact rational arithmetic by default
EXACT_LIMIT = 50_000
#: ... and when at most this many of them lie on cycles (pass --exact to go further)
EXACT_CYCLIC_LIMIT = 5_000


def value_entry(exact: Fraction | None, approx: float) -> dict[str, Any]:
    return {"fraction": None if exact is None else str(exact), "float": float(approx)}


def solve_ruleset(ruleset: Ruleset, *, exact: bool | None = None, max_states: int | None = None,
                  timeout: float | None = None, out_dir: Path | None = None,
                  progress: Callable | None = None) -> dict[str, Any]:
    """Exact (or float, for large graphs) optimal values, policy table, graph and picture."""
    spec = get_spec(ruleset.game)
    start = time.perf_counter()
    hook = spec.hooks.get("solve")
    if hook is not None:
        result = hook(ruleset, {"exact": exact, "max_states": max_states, "timeout": timeout},
                      out_dir, progress)
        if result is not None:  # None: the hook leaves this configuration to the generic solver
            result.setdefault("seconds", time.perf_counter() - start)
            return result
    game = spec.build(ruleset)
    ex = explore(game, max_states=max_states, timeout=timeout,
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
        sol = solve(ex, progress=progress)
        use_exact = ex.num_states <= EXACT_LIMIT and sol.cyclic_states <= EXACT_CYCLIC_LIMIT
        if use_exact:
            sol = solve(ex, exact=True, progress=progress)
    else:
        use_exact = exact
        sol = solve(ex, exact=exact, progress=progress)
    exact_vals = sol.initial_exact
    result.update(
        partial=False, exact=use_exact, method=sol.method, residual=sol.residual,
        values=[value_entry(exact_vals[s] if exact_vals else None, sol.initial[s])
                for s in range(game.num_players)],
        solve_seconds=round(sol.seconds, 4), cyclic_states=sol.cyclic_states)
    if out_dir is not None:
        result.update(write_solution_files(sol, out_dir, spec.hooks.get("picture")))
    result["seconds"] = time.perf_counter() - start
    result["_solution"] = sol
    return result


def write_solution_files(sol, out_dir: Path, picture: Callable | None = None) -> dict[str, Any]:
    """The play table (CSV, JSON), the decision graph (GraphML, when not too large) and the
    policy picture (when the game draws one); returns ``files`` (and a ``graph_note``)."""
    out: dict[str, Any] = {}
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        files = write_table(policy_table(sol), out_dir)
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


def _signature(game, state) -> tuple:
    """What a state offers: whose move, the moves with their probabilities and results' keys."""
    seat = game.current_player(state)
    if seat == TERMINAL:
        return ("end", tuple(game.returns(state)))
    moves = tuple((a, p, game.key(game.canonicalize(s)[0])) for a, p, s in game.successors(state))
    return (seat, moves)


def ruling_diff(ruleset: Ruleset, ruling_id: str, option: str, *, max_states: int = 500_000
                ) -> dict[str, Any]:
    """The shortest reachable situation where ``option`` plays differently from the ruleset's
    reading of ``ruling_id``, and the change in optimal values (when both solve)."""
    spec = get_spec(ruleset.game)
    if ruling_id not in spec.schema.ruling_index:
        raise RulesetError("command line", "ruling",
                           f"unknown ruling id {ruling_id!r} for {spec.name} "
                           f"(known: {', '.join(spec.schema.ruling_index) or 'none'})")
    ruling = spec.schema.ruling_index[ruling_id]
    if option not in ruling.options:
        raise RulesetError("command line", "option", f"{option!r} is not an option of {ruling_id} "
                           f"(options: {', '.join(ruling.options)})")
    base_option = ruleset.rulings[ruling_id]
    other = ruleset.with_overrides(rulings={ruling_id: option}, spec=spec.schema)
    game_a, game_b = spec.build(ruleset), spec.build(other)
    # breadth-first over the states reachable under either reading, in lockstep
    start = game_a.canonicalize(game_a.initial_state())[0]
    seen = {game_a.key(start): None}
    queue = deque([(start, [])])
    parting, complete = None, True
    while queue:
        state, path = queue.popleft()
        sig_a, sig_b = _signature(game_a, state), _signature(game_b, state)
        if sig_a != sig_b:
            parting = (state, path, sig_a, sig_b)
            break
        if sig_a[0] == "end":
            continue
        for act, _, nxt in game_a.successors(state):
            nxt = game_a.canonicalize(nxt)[0]
            k = game_a.key(nxt)
            if k not in seen:
                seen[k] = None
                queue.append((nxt, path + [(state, act)]))
        if len(seen) > max_states:
            complete = False
            break
    out: dict[str, Any] = {"ruling": ruling_id, "question": ruling.question, "default": base_option,
                           "alternative": option, "states_compared": len(seen)}
    if parting is not None:
        state, path, sig_a, sig_b = parting
        trace = [f"start: {game_a.describe_state(game_a.initial_state())}"]
        for i, (s, a) in enumerate(path, 1):
            trace.append(f"{i}. {game_a.seat_name(game_a.current_player(s))}: {game_a.describe_action(s, a)}")
        trace.append(f"situation: {game_a.describe_state(state)}")
        trace.append(f"under {base_option}: {_narrate_signature(game_a, state, sig_a)}")
        trace.append(f"under {option}: {_narrate_signature(game_b, state, sig_b)}")
        out.update(parts=True, depth=len(path), situation=trace)
    elif complete:
        out.update(parts=False, proof=f"no reachable situation parts the readings "
                   f"({len(seen)} states of this configuration compared exhaustively)")
    else:
        out.update(parts=None, note=f"no parting found within {max_states} states")
    values = {}
    for label, rs in ((base_option, ruleset), (option, other)):
        try:
            res = solve_ruleset(rs, max_states=max_states)
            values[label] = res.get("values")
        except Exception as exc:  # noqa: BLE001 - a reading the solver cannot handle is reported
            values[label] = f"not solved: {exc}"
    out["values"] = values
    a, b = values.get(base_option), values.get(option)
    if isinstance(a, list) and isinstance(b, list):
        out["value_change"] = [
            {"fraction": str(Fraction(y["fraction"]) - Fraction(x["fraction"]))
             if x["fraction"] and y["fraction"] else None, "float": y["float"] - x["float"]}
            for x, y in zip(a, b)]
    return out


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


def run_scenario(ruleset: Ruleset) -> dict[str, Any]:
    res = solve_ruleset(ruleset, exact=True)
    return {"states": res.get("states"),
            "values": [v["fraction"] for v in res["values"]] if res.get("values") else None}


def record_scenarios(game: str) -> Path:
    SCENARIO_DIR.mkdir(exist_ok=True)
    data = {}
    for name, params, rulings in scenario_configs(game):
        rs = scenario_ruleset(game, params, rulings, f"scenario {name}")
        data[name] = {"params": params, "rulings": rulings, "expect": run_scenario(rs)}
    path = SCENARIO_DIR / f"{game}.json"
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path


def check_scenarios(game: str) -> list[dict[str, Any]]:
    """Re-run the stored scenarios; each row says whether the result still matches."""
    path = SCENARIO_DIR / f"{game}.json"
    if not path.exists():
        return []
    try:
        stored = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise RulesetError(str(path), "-", f"not valid JSON ({exc})") from None
    rows = []
    for name, entry in stored.items():
        rs = scenario_ruleset(game, entry.get("params", {}), entry.get("rulings", {}), f"{path}:{name}")
        got = run_scenario(rs)
        rows.append({"scenario": name, "expected": entry["expect"], "got": got,
                     "same": got == entry["expect"]})
    return rows


# ---- rule edits --------------------------------------------------------------------------------

_STATE_COUNT = re.compile(r"\d[\d,]*( reachable)? states")


def _left(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.001, deadline - time.perf_counter())


def _side(spec, ruleset: Ruleset, max_states: int | None, deadline: float | None) -> dict[str, Any]:
    from .verify import verify
    rep = verify(spec, ruleset, max_states=max_states, timeout=_left(deadline))
    res = solve_ruleset(ruleset, max_states=max_states, timeout=_left(deadline))
    res.pop("_solution", None)
    longest = next((p.data.get("longest_play") for p in rep.properties if p.name == "termination"), None)
    return {"ruleset": ruleset.name, "source": ruleset.source, "verify": rep.status,
            "properties": {p.name: p.status for p in rep.properties},
            "property_details": {p.name: p.detail for p in rep.properties},
            "values": res.get("values"), "states": res.get("states"), "longest_play": longest,
            "partial": bool(res.get("partial"))}


def compare_rulesets(a: Ruleset, b: Ruleset, *, max_states: int | None = None,
                     timeout: float | None = None) -> dict[str, Any]:
    """What a rule edit changes: parameters and rulings, each property's status and detail, the
    optimal values and the longest play. ``details`` lists every detail whose text differs;
    ``substantive_details`` only those that differ beyond their state counts."""
    if a.game != b.game:
        raise RulesetError(b.source, "game", f"rulesets are for different games ({a.game} vs {b.game})")
    spec = get_spec(a.game)
    # ``timeout`` bounds the whole comparison: each phase gets what is left
    deadline = None if timeout is None else time.perf_counter() + timeout
    sa, sb = _side(spec, a, max_states, deadline), _side(spec, b, max_states, deadline)
    pa, pb = sa["properties"], sb["properties"]
    da, db = sa["property_details"], sb["property_details"]
    shared = sorted(set(pa) & set(pb))
    details = {k: [da[k], db[k]] for k in shared if da[k] != db[k]}
    return {
        "a": sa, "b": sb,
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
