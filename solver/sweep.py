"""``ruleproof sweep``: values and game length over a grid of parameter values.

Each point of the grid (the product of the ``--param NAME=RANGE`` ranges) is evaluated as
``compare`` and ``report`` evaluate a side (``compare.evaluate``): exact (or solved in floats) when
the solver finishes within the per-point limits; an engine that samples (Loira's near-optimal
policy) plays its fixed number of seeded games; beyond the limits seeded games are simulated
under a named policy. Every value is a typed estimate (``model.estimate``): a row says its kind,
a sampled one its interval, games, seed and policy -- sampled values are that policy's, not
optimal play's -- and the plot draws sampled points hollow with their 95% intervals.
"""
from __future__ import annotations

import io
import itertools
import math
import textwrap
import time
from pathlib import Path
from typing import Any, Callable

from ruleproof.model.estimate import interval_json
from ruleproof.model.registry import get_spec
from ruleproof.model.ruleset import Ruleset, RulesetError

from . import beside, cache
from .arguments import PLOT_FORMATS, number
from .outputs import stamp, write_file
from .runtime import TimeLimit

#: without --point-timeout (or --timeout), no clock decides whether a point is exact: the engines'
#: state limits do, so a sweep gives the same rows under any load
POINT_TIMEOUT = None
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


def point_row(rs: Ruleset, *, max_states: int | None, timeout: float | None, games: int | None,
              seed: int | None, policy: str | None, simulate_only: bool,
              deadline: float | None = None) -> dict[str, Any]:
    """One grid point through ``compare.evaluate`` (as compare and report evaluate a side): its
    values as typed estimates -- exact or solved within the limits, an engine's fixed-count sample,
    else seeded simulated games -- with the first-seat advantage and the length of play."""
    from .compare import evaluate
    ev = evaluate(rs, max_states=max_states, timeout=timeout, games=games, seed=seed, policy=policy,
                  simulate_only=simulate_only, deadline=deadline)
    if ev.values is None:
        return {"method": "failed", "why": ev.why or "no values"}
    sampled = ev.values[0].is_sampled
    row: dict[str, Any] = {
        "method": ev.method, "engine": ev.engine, "policy": ev.policy,
        "values": [e.value for e in ev.values], "estimates": [e.as_dict() for e in ev.values],
        "fractions": [None if e.fraction is None else str(e.fraction) for e in ev.values],
        "ci95": [interval_json(e.interval) for e in ev.values] if sampled else None,
        "first_seat_advantage": None if ev.advantage is None else ev.advantage.as_dict(),
        "length": None if ev.length is None else {
            "value": ev.length["estimate"].value, "unit": ev.length["unit"],
            "ci95": interval_json(ev.length["estimate"].interval) if ev.length["estimate"].is_sampled else None,
            "estimate": ev.length["estimate"].as_dict()},
        "states": ev.states}
    if sampled:
        row.update(games=ev.values[0].games, seed=ev.values[0].seed)
    if ev.why:
        row["exact_stopped"] = ev.why
    return row


def simulated_values(res: dict[str, Any]) -> list[dict[str, Any]] | None:
    """Each seat's mean utility with its interval from a ``simulate_ruleset`` document (None when
    the game measures none: Bomb Busters is cooperative)."""
    seats = res["seats"]
    if seats and all("utility" in s for s in seats):
        return [s["utility"] for s in seats]
    return None


NOT_REACHED = "the time limit (--timeout) was reached first"


@cache.scoped   # points share results with each other and --cache
def run_sweep(base: Ruleset, axes: list[tuple[str, list[Any]]], *, max_states: int | None = None,
              timeout: float | None = POINT_TIMEOUT, games: int | None = None, seed: int | None = None,
              policy: str | None = None, simulate_only: bool = False,
              progress: Callable[[str, int, int | None], None] | None = None,
              deadline: float | None = None, rows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """One row per grid point (``point_row``): exact within ``max_states``/``timeout`` per point,
    else ``games`` seeded simulated games (``policy``: the game's default when None); an engine
    that samples plays ``games`` (its own fixed count when None) with ``seed``. ``deadline`` (a
    ``time.perf_counter()`` value) bounds the whole sweep: an exact solve gets at most what is
    left, and the point the deadline (or the command's time limit) cuts short and those after it
    are listed as not run; the result is then ``partial``. ``rows`` (a list the caller keeps)
    receives each row as it is finished, so a caller cut short still has them."""
    start = time.perf_counter()
    points = grid_rulesets(base, axes)
    rows = [] if rows is None else rows
    # heavy points (full-size, sampled: fixed seeded work each) two at a time on two cores when no
    # clock is set: the same rows, since no point's work depends on another's (solver/beside.py);
    # points whose engine shares its own games between the two processes go one after another
    workers = beside.processes() if deadline is None and timeout is None and len(points) > 1 else 1
    from .analysis import heaviest_first, two_at_a_time
    if workers > 1 and not two_at_a_time([rs for _, rs in points]):
        workers = 1
    kw = dict(max_states=max_states, timeout=None, games=games, seed=seed, policy=policy,
              simulate_only=simulate_only)
    first = heaviest_first([rs for _, rs in points]) if workers > 1 else None
    ahead = beside.ordered_map(lambda p: _timed_row(p[1], kw), points, workers, first) if workers > 1 else None
    try:
        _run_points(points, rows, ahead, progress, deadline, timeout, dict(
            max_states=max_states, games=games, seed=seed, policy=policy, simulate_only=simulate_only))
    finally:
        if ahead is not None:
            ahead.close()   # the workers end (Ctrl-C, --timeout)
    spec = get_spec(base.game)
    partial = any(r["method"] == "not run" for r in rows)
    return {"params": [n for n, _ in axes], "points": rows,
            "value_meaning": getattr(spec.build(points[0][1]), "value_meaning", "") if points else "",
            "limits": {"max_states": max_states, "timeout": timeout}, "games": games, "seed": seed,
            "partial": partial, "reason": NOT_REACHED if partial else None,
            "seconds": round(time.perf_counter() - start, 4)}


def _timed_row(rs: Ruleset, kw: dict[str, Any]) -> tuple[dict[str, Any], float]:
    """``point_row`` and its own seconds (computed in a worker: not the time the caller waited)."""
    t0 = time.perf_counter()
    return point_row(rs, **kw), time.perf_counter() - t0


def _run_points(points, rows: list[dict[str, Any]], ahead, progress, deadline: float | None,
                timeout: float | None, kw: dict[str, Any]) -> None:
    """``run_sweep``'s rows, one per point, each from ``ahead`` (the workers) when given."""
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
        took = None
        try:
            if ahead is not None:
                got, took = next(ahead)
                row.update(got)
            else:
                row.update(point_row(rs, timeout=budget, deadline=deadline, **kw))
        except TimeLimit as exc:   # this point is cut short: it and the rest are not run
            stopped = exc
            row = {"point": point, "method": "not run", "why": NOT_REACHED, "values": []}
        row["seconds"] = round(time.perf_counter() - t0 if took is None else took, 4)
        rows.append(row)


#: the kinds a sweep row can have, and how the plot draws them
SAMPLED_METHODS = ("simulated", "sampled", "near-optimal")
PLOTTED = ("exact", "solved") + SAMPLED_METHODS


def _label(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(map(str, value)) + "]"
    return str(value)


def plot_sweep(doc: dict[str, Any], path: Path, title: str) -> Path:
    """``sweep_figure`` written to ``path`` (``.png``, ``.svg`` or ``.pdf``), stamped as ours and
    renamed into place (``solver/outputs.py``)."""
    import matplotlib.pyplot as plt
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in PLOT_FORMATS:
        raise RulesetError("command line", "--plot", f"{str(path)!r}: the file name must end in "
                           f"{', '.join('.' + f for f in PLOT_FORMATS)}")
    fig = sweep_figure(doc, title)
    key = "Software" if fmt == "png" else "Creator"   # the stamp that marks the file as ours
    drawn = io.BytesIO()   # drawn in memory: a full disk fails the plain write below, not the drawing
    try:
        fig.savefig(drawn, format=fmt, metadata={key: stamp("sweep")})
    finally:
        plt.close(fig)
    with write_file(path, "--plot", text=False) as fh:
        fh.write(drawn.getvalue())
    return path


def sweep_figure(doc: dict[str, Any], title: str):
    """One line per seat's value against the first swept parameter (one set of lines per value of
    the others); exact and solved points filled, sampled points (simulated, near-optimal) hollow
    with error bars spanning their 95% interval."""
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
        if row["method"] in PLOTTED:
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
                if r["method"] not in SAMPLED_METHODS:   # exact or solved: a filled point
                    ax.plot([x], [y], "o", color=colour, markersize=6)
                else:   # sampled: hollow, with its 95% interval
                    # an open side (null: a value nothing bounds, every play alike) gets no bar
                    lo, hi = (y if v is None else v for v in r["ci95"][seat])
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
    sampled = [r for r in doc["points"] if r["method"] in SAMPLED_METHODS]
    policies = ", ".join(dict.fromkeys(str(r["policy"]) for r in sampled))
    games = ", ".join(dict.fromkeys(str(r.get("games")) for r in sampled))
    if any(r["method"] in ("exact", "solved") for r in doc["points"]):
        handles.append(Line2D([], [], marker="o", color="grey", linestyle="", label="exact or solved"))
    if sampled:
        handles.append(Line2D([], [], marker="o", color="grey", markerfacecolor="white", linestyle="",
                              label=f"sampled: policy {policies}, {games} games (95% interval)"))
    ax.legend(handles=handles, fontsize=8, loc="best")
    fig.tight_layout()
    return fig
