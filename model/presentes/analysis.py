"""The ``solve`` hook: exact analysis of a small configuration, with its files.

``ruleproof solve presentes`` (2 players on Curta, 1 die by default) answers, exactly:
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

from model.ruleset import Ruleset
from solver.limits import Limits

from .config import build
from .exact import GameHangs, LimitReached, analyse
from .simulate import COUNTERS


#: boards up to this many squares also get the exact expected firings of every effect
SMALL_BOARD = 30


def _entry(x: Fraction) -> dict[str, Any]:
    return {"fraction": str(x), "float": float(x)}


def quantile(dist: list[Fraction], q: Fraction) -> int | None:
    """Smallest t with P(T <= t) >= q (None if beyond the computed horizon)."""
    acc = Fraction(0)
    for t, p in enumerate(dist):
        acc += p
        if acc >= q:
            return t
    return None


def solve_hook(ruleset: Ruleset, options: dict, out_dir: Path | None,
               progress: Callable | None) -> dict:
    game = build(ruleset)
    focal = ruleset["focal_seat"]
    focal = None if focal < 0 else focal
    max_states = options.get("max_states") or 2_000_000
    prog = (lambda done, total: progress("turn starts", done, total or done)) if progress else None
    effects = game.board.size <= SMALL_BOARD  # exact effect frequencies cost ~50% more time
    timeout = options.get("timeout")
    limits = Limits.starting_now(timeout=timeout)
    try:
        res = analyse(game, policy=ruleset["policy"], horizon=int(options.get("horizon") or 200),
                      focal=focal, max_states=max_states, progress=prog, effects=effects, limits=limits)
    except MemoryError as exc:
        return {"partial": True, "reason": str(exc), "values": None, "states": max_states}
    except GameHangs as exc:  # P23 'redraw': reported like a limit (turn starts built so far)
        return {"partial": True, "reason": str(exc), "values": None, "states": exc.states}
    except LimitReached as exc:  # reported as the generic solver reports its limits
        return {"partial": True, "reason": f"time limit {timeout:g} s reached while {exc.where}",
                "values": None, "states": exc.states}
    dist = res["turn_distribution"]
    out: dict[str, Any] = {
        "partial": False,
        "exact": True,
        "method": "turn-start Markov chain, SCCs with exact rational solves"
                  + ("; exact policy iteration for the focal seat" if focal is not None else ""),
        "board": game.board.name, "layout": game.board.drawing(),
        "policy": res["policy"], "focal_seat": focal,
        "states": res["states"],
        "values": [_entry(v) for v in res["utility"]],
        "mean_turns": _entry(res["mean_turns"]),
        "turn_quantiles": {name: quantile(dist, q) for name, q in
                           (("p05", Fraction(1, 20)), ("p50", Fraction(1, 2)),
                            ("p95", Fraction(19, 20)), ("p99", Fraction(99, 100)))},
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
        out["focal_choices"] = _choice_table(game, res)[:50]
    if out_dir is not None:
        out["files"] = _write(game, res, out, Path(out_dir))
    return out


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
            w.writerow([t, str(p), float(p)])
    files.append(path)
    path = out_dir / "play_table.csv"
    rows = _choice_table(game, res)
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["state", "optimal action (focal seat, where it differs from the policy)"])
        for row in rows:
            w.writerow([row["state"], row["action"]])
    files.append(path)
    path = out_dir / "play_table.json"
    path.write_text(json.dumps(rows, indent=1))
    files.append(path)
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
