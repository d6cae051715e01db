"""The ``solve`` engine: exact analysis of a small configuration, with its files.

``ruleproof solve presentes`` (2 players on Curta, 1 die by default) answers, exactly (or in
floating point with ``--float``):
the mean number of turns and its distribution, each seat's probability of finishing first and of
ending with its own gift, every seat's expected utility (``gift_values``) when ``focal_seat`` plays
optimally against the others' ``policy``, and the focal seat's optimal choices.
"""
from __future__ import annotations

import csv
import json
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

from ruleproof.model.estimate import QUANTILES, Figure, of_value
from ruleproof.model.ruleset import Ruleset
from ruleproof.model.seams import SolveOptions, SolveResult
from ruleproof.model.limits import Limits

from .config import build
from .exact import GameHangs, LimitReached, analyse
from .simulate import COUNTERS


#: boards up to this many squares also get the exact expected firings of every effect
SMALL_BOARD = 30


def _entry(x: Fraction | float) -> dict[str, Any]:
    """A figure as every engine writes one: a typed estimate (exact from a fraction; in float mode
    solved to the sparse LU's double precision)."""
    return of_value(x, 1e-9, "sparse LU in double precision").as_dict()


def quantile(dist: list[Fraction], q: Fraction) -> int | None:
    """Smallest t with P(T <= t) >= q (None if beyond the computed horizon)."""
    acc = Fraction(0)
    for t, p in enumerate(dist):
        acc += p
        if acc >= q:
            return t
    return None


#: turn-start states the chain may build when no --max-states is given
DEFAULT_STATES = 2_000_000
METHOD = "turn-start Markov chain, SCCs with exact rational solves"
FLOAT_METHOD = "turn-start Markov chain, sparse LU in floating point"


def solve_chain(ruleset: Ruleset, options: SolveOptions, progress: Callable | None) -> SolveResult:
    """Exact utilities of every seat under the ruleset's policy (the focal seat's best reply when
    one is named), the length of play and its distribution, with the files in ``options.out_dir``."""
    game = build(ruleset)
    focal = ruleset["focal_seat"]
    focal = None if focal < 0 else focal
    max_states = options.states(DEFAULT_STATES)
    prog = (lambda done, total: progress("turn starts", done, total or done)) if progress else None
    effects = game.board.size <= SMALL_BOARD  # exact effect frequencies cost ~50% more time
    limits = Limits(deadline=options.deadline)
    exact = options.exact is not False   # exact unless --float asks otherwise
    base_method = METHOD if exact else FLOAT_METHOD
    try:
        res = analyse(game, policy=ruleset["policy"], horizon=200, focal=focal, max_states=max_states,
                      progress=prog, effects=effects, limits=limits, exact=exact)
    except MemoryError as exc:
        return SolveResult.stopped(str(exc), max_states, base_method)
    except GameHangs as exc:  # P23 'redraw': reported like a limit (turn starts built so far)
        return SolveResult.stopped(str(exc), exc.states, base_method)
    except LimitReached as exc:  # reported as the generic solver reports its limits
        return SolveResult.stopped(f"time limit {options.timeout or 0:g} s reached while {exc.where}",
                                   exc.states, base_method)
    dist = res["turn_distribution"]
    extras: dict[str, Any] = {
        "board": game.board.name, "layout": game.board.drawing(),
        "policy": res["policy"], "focal_seat": focal,
        "mean_turns": _entry(res["mean_turns"]),
        "turn_quantiles": {name: quantile(dist, QUANTILES[name]) for name in ("p05", "p50", "p95", "p99")},
        "turn_distribution_head": {str(t): _entry(p) for t, p in enumerate(dist) if p and t <= 40},
        "turn_distribution_tail_after": {"turns": len(dist) - 1, **_entry(res["tail_after_horizon"])},
        "finish_first": [_entry(v) for v in res["first"]],
        "own_gift": [_entry(v) for v in res["own_gift"]],
        "effects_per_game": None if res["effects_per_game"] is None else
        {name: _entry(v) for name, v in zip(COUNTERS, res["effects_per_game"])},
        "policy_iterations": res["policy_iterations"],
        "focal_changes": len(res["chosen"]),
    }
    if focal is not None:
        extras["focal_choices"] = _choice_table(game, res)[:50]
    method = base_method + (f"; {'exact ' if exact else ''}policy iteration for the focal seat"
                            if focal is not None else "")
    files: list[str] = []
    if options.out_dir is not None:
        files = _write(game, res, {"method": method, "states": res["states"],
                                   "values": [_entry(v) for v in res["utility"]], **extras}, options.out_dir)
    whose = (f"seat {focal} plays its best reply, the others {res['policy']!r}" if focal is not None
             else f"every seat plays {res['policy']!r}")
    return SolveResult(tuple(res["utility"]), "policy-value", exact, res["states"], method,
                       extras=extras, files=tuple(files), figures=race_figures(res, game.num_players),
                       value_meaning=f"each seat's expected gift value (gift_values) when {whose}")


def race_figures(res: dict[str, Any], players: int) -> tuple[Figure, ...]:
    """The race's fairness as typed figures: P(seat k finishes first) against the fair share
    1/players, the first finisher's edge (seat 0's chance minus that share) and P(seat k ends with
    its own gift) -- what moves with a board even where every seat's value does not (2 players)."""
    est = [of_value(v, 1e-9, "sparse LU in double precision") for v in res["first"]]
    fair = Fraction(1, players)
    edge = of_value(res["first"][0] - fair if isinstance(res["first"][0], Fraction)
                    else float(res["first"][0]) - float(fair), 1e-9, "sparse LU in double precision")
    return (Figure("finish_first", "P(seat k finishes first), against the fair share", tuple(est),
                   per_seat=True, fair_share=fair),
            Figure("first_finish_edge", "P(seat 0 finishes first) minus the fair share", (edge,)),
            Figure("own_gift", "P(seat k ends with its own gift)",
                   tuple(of_value(v, 1e-9, "sparse LU in double precision") for v in res["own_gift"]),
                   per_seat=True))


def _choice_table(game, res) -> list[dict[str, Any]]:
    rows = []
    for s, a in sorted(res["chosen"].items(), key=lambda kv: game.key(kv[0])):
        rows.append({"state": game.describe_state(s), "action": game.describe_action(s, a),
                     "key": list(game.key(s))})
    return rows


def _write(game, res, summary: dict, out_dir: Path) -> list[str]:
    out_dir.mkdir(parents=True, exist_ok=True)
    files = []
    path = out_dir / "turn_distribution.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["turns", "probability", "float"])
        for t, p in enumerate(res["turn_distribution"]):
            w.writerow([t, str(p) if isinstance(p, Fraction) else "", float(p)])
    files.append(path)
    files += _write_choices(game, res, out_dir)
    path = out_dir / "summary.json"
    path.write_text(json.dumps({k: v for k, v in summary.items() if k != "files"}, indent=1))
    files.append(path)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        dist = [float(p) for p in res["turn_distribution"]]
        fig, ax = plt.subplots(figsize=(7, 3.5))
        ax.bar(range(len(dist)), dist, color="#4a7")
        ax.set_xlabel("turns")
        ax.set_ylabel("probability")
        ax.set_title(f"Presentes on {game.board.name}, {game.num_players} players: "
                     f"mean {float(res['mean_turns']):.3f} turns")
        fig.tight_layout()
        path = out_dir / "turns.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        files.append(path)
    except ImportError:  # pragma: no cover - matplotlib is a dependency
        pass
    return [str(f) for f in files]


def _policy_words(game, s, policy: str) -> str:
    from .policies import POLICY_DISTS
    dist = POLICY_DISTS[policy](game, s)
    return "; ".join(game.describe_action(s, a) + ("" if p == 1 else f" ({p})") for a, p in dist)


def _write_choices(game, res, out_dir: Path) -> list[Path]:
    """The choices that matter: the focal seat's decision states where its optimal choice differs
    from the policy the others follow, as typed columns (play_table.csv, its sidecar) and a
    printable summary by kind of decision (policy_summary.txt)."""
    from collections import Counter

    from ruleproof.solver.tables import PolicySummary, write_summary
    focal, policy = res["focal"], res["policy"]
    chosen = sorted(res["chosen"].items(), key=lambda kv: game.key(kv[0]))
    columns: list[str] = list(game.features(game.initial_state())) + ["optimal_action", "policy_action"]
    rows = [list(game.features(s).values()) + [game.describe_action(s, a), _policy_words(game, s, policy)]
            for s, a in chosen]
    path = out_dir / "play_table.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(columns)
        w.writerows(rows)
    if focal is None:
        which = (f"none: no seat optimises (focal_seat = -1), every seat follows the '{policy}' policy; "
                 "give --focal-seat SEAT to list that seat's optimal choices")
    else:
        which = (f"seat {focal}'s decision states where its optimal choice differs from the "
                 f"'{policy}' policy the others follow ({len(rows)} rows)")
    meta = {"game": "presentes", "rows": len(rows), "which": which,
            "value": f"seat {focal} maximises its expected gift value (gift_values)" if focal is not None
            else "no seat optimises", "columns": [{"name": c} for c in columns]}
    meta_path = out_dir / "play_table.meta.json"
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    title = f"Presentes on {game.board.name}, {game.num_players} players: the choices that matter"
    if focal is None:
        text = (f"No seat optimises in this configuration: every seat follows the '{policy}' policy, so no "
                "choice departs from it.\nRun with --focal-seat 0 (and gift_values for what each gift "
                "is worth) to see where seat 0 should choose otherwise.")
        made = PolicySummary(title, text, constant=f"every seat follows the '{policy}' policy")
    else:
        by_kind = Counter((r[0], r[-2]) for r in rows)
        lines = [f"Seat {focal} plays optimally for its gift values against '{policy}' play; it departs from",
                 f"'{policy}' in {len(rows)} situations ({res['policy_iterations']} policy iterations):", ""]
        for (phase, action), count in sorted(by_kind.items(), key=lambda kv: -kv[1]):
            lines.append(f"  {phase:>8}: {action}  ({count} situations)")
        if not rows:
            lines.append(f"  none: the '{policy}' policy is already optimal for seat {focal}")
        made = PolicySummary(title, "\n".join(lines), ["phase", "optimal_action", "situations"],
                             [[p, a, c] for (p, a), c in sorted(by_kind.items(), key=lambda kv: -kv[1])],
                             None if rows else f"the '{policy}' policy is already optimal")
    return [path, meta_path] + write_summary(made, out_dir)
