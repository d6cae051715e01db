"""``ruleproof sweep``: values and game length over a grid of parameter values.

Each point of the grid (the product of the ``--param NAME=RANGE`` ranges) is solved exactly when the
solver finishes within the per-point limits (``solve_ruleset``: each seat's optimal value, the
expected length of play); beyond them it is simulated (``montecarlo.simulate_ruleset``: seeded
games under a named policy, means with 95% intervals). Every row says which, and a simulated row
says under which policy -- simulated values are that policy's, not optimal play's.
"""
from __future__ import annotations

import io
import itertools
import math
import textwrap
import time
from pathlib import Path
from typing import Any, Callable

from ruleproof.model.registry import get_spec
from ruleproof.model.ruleset import Ruleset, RulesetError

from .arguments import PLOT_FORMATS, number
from .outputs import stamp, write_file
from .runtime import TimeLimit

#: without --timeout, each point's exact solve gets this many seconds before it is simulated
POINT_TIMEOUT = 30.0
#: a range may not expand to more points than this (a typo such as 1..100000 would run for days)
MAX_POINTS = 500


def parse_range(name: str, text: str) -> list[Any]:
    """``10..30:5`` (10, 15, ..., 30), ``10..30`` (step 1), ``0.5..1:0.25`` (floats), or a comma
    list ``a,b,c`` (each value given to the game's parameter parser as typed). The number of values
    is checked before any is made: at most :data:`MAX_POINTS`."""
    where = f"--param {name}={text}"
    if ".." in text:
        span, _, step_text = text.partition(":")
        low_text, _, high_text = span.partition("..")
        is_float = any("." in t or "e" in t.lower() or "n" in t.lower() for t in (low_text, high_text, step_text))
        try:
            if is_float:
                low, high = number(low_text, where), number(high_text, where)
                step = number(step_text, where) if step_text else 1.0
            else:
                low, high = int(low_text), int(high_text)
                step = int(step_text) if step_text else 1
        except (ValueError, RulesetError):
            raise RulesetError("command line", where, "expected LOW..HIGH[:STEP] with finite numbers, "
                               "e.g. 10..30:5, or a comma list a,b,c") from None
        if step <= 0:
            raise RulesetError("command line", where, "the step must be positive")
        if high < low:
            raise RulesetError("command line", where, f"the range is empty ({high} < {low})")
        steps = (high - low) / step if is_float else (high - low) // step
        if not steps < MAX_POINTS:   # also catches an overflow to inf
            raise RulesetError("command line", where, f"more than {MAX_POINTS} values; at most {MAX_POINTS}")
        count = int(steps + 1e-9) + 1
        values = [low + i * step for i in range(count)]
        return [round(v, 10) for v in values] if is_float else values
    if text.count(",") >= MAX_POINTS:
        raise RulesetError("command line", where, f"{text.count(',') + 1} values; at most {MAX_POINTS}")
    values = [v.strip() for v in text.split(",")]
    if not all(values):
        raise RulesetError("command line", where, "an empty value in the list")
    return values


def parse_param(item: str) -> tuple[str, list[Any]]:
    name, eq, text = item.partition("=")
    if not eq or not name.strip() or not text.strip():
        raise RulesetError("command line", "--param", f"expected NAME=RANGE (10..30:5 or a,b,c), got {item!r}")
    name = name.strip().lstrip("-").replace("-", "_")
    return name, parse_range(name, text.strip())


def check_grid(axes: list[tuple[str, list[Any]]]) -> int:
    """The grid's number of points, refused beyond :data:`MAX_POINTS` before any point is made."""
    names = [n for n, _ in axes]
    if len(set(names)) != len(names):
        raise RulesetError("command line", "--param", "a parameter is swept twice")
    size = math.prod(len(values) for _, values in axes)
    if size > MAX_POINTS:
        raise RulesetError("command line", "--param", f"the grid has {size:,} points; at most {MAX_POINTS}")
    return size


def grid_rulesets(base: Ruleset, axes: list[tuple[str, list[Any]]]) -> list[tuple[dict[str, Any], Ruleset]]:
    """Every point of the grid as (the swept values as the game parsed them, its ruleset); a value
    the game rejects is bad input, reported before anything is solved."""
    spec = get_spec(base.game)
    check_grid(axes)
    names = [n for n, _ in axes]
    points = []
    for combo in itertools.product(*(values for _, values in axes)):
        raw = dict(zip(names, combo))
        source = "command line --param " + " ".join(f"{k}={v}" for k, v in raw.items())
        rs = base.with_overrides(raw, spec=spec.schema, source=source)
        points.append(({k: rs.params[k] for k in names}, rs))
    return points


def _exact_point(rs: Ruleset, max_states: int | None, timeout: float | None) -> dict[str, Any]:
    """The exact row, or ``{"why": ..., "states": ...}`` when the solver stopped at a limit."""
    from .analysis import solve_ruleset
    from .page import game_length
    solved = solve_ruleset(rs, max_states=max_states, timeout=timeout)
    res = solved.doc()
    if res["partial"]:
        return {"why": res["reason"], "states": res["states"]}
    length = game_length(solved)
    # the policy the values are for: optimal play, unless the game's solver evaluates a set one
    return {"method": "exact", "policy": res["extras"].get("policy") or "optimal",
            "values": [v["float"] for v in res["values"]], "fractions": [v["fraction"] for v in res["values"]],
            "ci95": None, "exact_arithmetic": bool(res.get("exact")),
            "length": None if length is None else {"value": length["value"], "unit": length["unit"], "ci95": None},
            "states": res.get("states")}


def simulated_values(res: dict[str, Any]) -> list[dict[str, Any]] | None:
    """Each seat's mean utility with its interval from a ``simulate_ruleset`` document (None when
    the game measures none: Bomb Busters is cooperative)."""
    seats = res["seats"]
    if seats and all("utility" in s for s in seats):
        return [s["utility"] for s in seats]
    return None


def _simulated_point(rs: Ruleset, games: int, seed: int, policy: str | None,
                     deadline: float | None = None) -> dict[str, Any]:
    from .montecarlo import simulate_ruleset

    def on_time(done: int, total: int) -> None:   # the playouts report progress: stop at the deadline
        if deadline is not None and time.perf_counter() > deadline:
            raise TimeLimit(0)
    res = simulate_ruleset(rs, games, seed, policy, on_time if deadline is not None else None)
    seats = simulated_values(res)
    if seats is None:
        return {"method": "failed", "why": "the game's simulation reports no per-seat utility"}
    metrics = res["metrics"]
    length = next(({"value": metrics[k]["mean"], "unit": k, "ci95": metrics[k].get("ci95")}
                   for k in ("moves", "turns") if k in metrics), None)
    return {"method": "simulated", "policy": res["policy"],
            "games": games, "seed": seed, "values": [s["mean"] for s in seats], "fractions": None,
            "ci95": [s.get("ci95") for s in seats], "length": length}


NOT_REACHED = "the time limit (--timeout) was reached first"


def run_sweep(base: Ruleset, axes: list[tuple[str, list[Any]]], *, max_states: int | None = None,
              timeout: float | None = POINT_TIMEOUT, games: int = 2000, seed: int = 0,
              policy: str | None = None, simulate_only: bool = False,
              progress: Callable[[str, int, int | None], None] | None = None,
              deadline: float | None = None, rows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """One row per grid point: exact within ``max_states``/``timeout`` per point, else ``games``
    seeded simulated games (``policy``: the game's default when None). ``deadline`` (a
    ``time.perf_counter()`` value) bounds the whole sweep: an exact solve gets at most what is
    left, and the point the deadline (or the command's time limit) cuts short and those after it
    are listed as not run; the result is then ``partial``. ``rows`` (a list the caller keeps)
    receives each row as it is finished, so a caller cut short still has them."""
    start = time.perf_counter()
    points = grid_rulesets(base, axes)
    rows = [] if rows is None else rows
    stopped = None
    for i, (point, rs) in enumerate(points):
        if progress:
            progress("sweep " + " ".join(f"{k}={v}" for k, v in point.items()), i, len(points))
        t0 = time.perf_counter()
        row: dict[str, Any] = {"point": point}
        left = None if deadline is None else deadline - t0
        if stopped is not None or (left is not None and left <= 0):
            row.update(method="not run", why=NOT_REACHED, values=[], seconds=0.0)
            rows.append(row)
            continue
        budget = timeout if left is None else left if timeout is None else min(timeout, left)
        try:
            got = None if simulate_only else _exact_point(rs, max_states, budget)
            if got is not None and "why" not in got:
                row.update(got)
            else:
                row["exact_stopped"] = "not tried (--simulate-only)" if got is None else got["why"]
                row.update(_simulated_point(rs, games, seed, policy, deadline))
        except TimeLimit as exc:   # this point is cut short: it and the rest are not run
            stopped = exc
            row = {"point": point, "method": "not run", "why": NOT_REACHED, "values": []}
        row["seconds"] = round(time.perf_counter() - t0, 4)
        rows.append(row)
    spec = get_spec(base.game)
    partial = any(r["method"] == "not run" for r in rows)
    return {"params": [n for n, _ in axes], "points": rows,
            "value_meaning": getattr(spec.build(points[0][1]), "value_meaning", "") if points else "",
            "limits": {"max_states": max_states, "timeout": timeout}, "games": games, "seed": seed,
            "partial": partial, "reason": NOT_REACHED if partial else None,
            "seconds": round(time.perf_counter() - start, 4)}


def _label(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(map(str, value)) + "]"
    return str(value)


def plot_sweep(doc: dict[str, Any], path: Path, title: str) -> Path:
    """One line per seat's value against the first swept parameter (one set of lines per value of
    the others); exact points filled, simulated points hollow with their 95% interval."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    first, others = doc["params"][0], doc["params"][1:]
    xs_raw = list(dict.fromkeys(_label(r["point"][first]) for r in doc["points"]))
    numeric = all(isinstance(r["point"][first], (int, float)) and not isinstance(r["point"][first], bool)
                  for r in doc["points"])
    def x_of(row):
        return row["point"][first] if numeric else xs_raw.index(_label(row["point"][first]))
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for row in doc["points"]:
        if row["method"] in ("exact", "simulated"):
            groups.setdefault(tuple(_label(row["point"][k]) for k in others), []).append(row)
    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    line = 0
    for key, rows in groups.items():
        seats = max(len(r["values"]) for r in rows)
        for seat in range(seats):
            colour = colours[line % len(colours)]
            line += 1
            pts = [(x_of(r), r["values"][seat], r) for r in rows if seat < len(r["values"])]
            label = f"seat {seat}" + "".join(f", {k}={v}" for k, v in zip(others, key))
            style = ("-", "--", ":", "-.")[seat % 4]   # equal values of two seats stay visible
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=colour, label=label, linewidth=1.5)
            for x, y, r in pts:
                if r["method"] == "exact":
                    ax.plot([x], [y], "o", color=colour, markersize=6)
                else:
                    lo, hi = (r["ci95"] or [None])[seat] or (y, y)
                    ax.errorbar([x], [y], yerr=[[y - lo], [hi - y]], fmt="o", color=colour,
                                markerfacecolor="white", markersize=6, capsize=3)
    if not numeric:
        ax.set_xticks(range(len(xs_raw)), xs_raw)
    elif all(isinstance(r["point"][first], int) for r in doc["points"]):
        from matplotlib.ticker import MaxNLocator
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(first)
    meaning = textwrap.shorten(doc.get("value_meaning") or "", 110, placeholder="…")
    ax.set_ylabel("\n".join(["each seat's value"] + textwrap.wrap(meaning, 55)), fontsize=9)
    ax.set_title(title, fontsize=11)
    ax.grid(True, alpha=0.3)
    handles, _ = ax.get_legend_handles_labels()
    policies = ", ".join(dict.fromkeys(r["policy"] for r in doc["points"] if r["method"] == "simulated"))
    handles += [Line2D([], [], marker="o", color="grey", linestyle="", label="exact"),
                Line2D([], [], marker="o", color="grey", markerfacecolor="white", linestyle="",
                       label=f"simulated, policy {policies or '-'} (95% interval)")]
    ax.legend(handles=handles, fontsize=8, loc="best")
    fig.tight_layout()
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in PLOT_FORMATS:
        raise RulesetError("command line", "--plot", f"{str(path)!r}: the file name must end in "
                           f"{', '.join('.' + f for f in PLOT_FORMATS)}")
    key = "Software" if fmt == "png" else "Creator"   # the stamp that marks the file as ours
    drawn = io.BytesIO()   # drawn in memory: a full disk fails the plain write below, not the drawing
    try:
        fig.savefig(drawn, format=fmt, metadata={key: stamp("sweep")})
    finally:
        plt.close(fig)
    with write_file(path, "--plot", text=False) as fh:
        fh.write(drawn.getvalue())
    return path
