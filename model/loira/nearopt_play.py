"""The near-optimal answer for Loira configurations no exact engine finishes (the real deck).

``solve_near_optimal`` returns, clearly marked *near-optimal, not exact*:

* the policy's stop table in the player's terms (per Gritos resolved: rows = your lead over the best
  opponent, columns = the chance that this draw makes you open a stall and the Loira takes
  everything; a cell lists the decision for each band of your own points) and its escort summary;
* the regret bound measured exactly on every configuration the exact solver reaches, read from
  ``nearopt_regret.json`` (never recomputed here);
* seeded Monte Carlo self-play of the policy against the simple rules (stop-at-k,
  never-before-grito, lookahead) on the given configuration and on its match (first to
  ``target_wins``, rolls carried), each seat in turn, with 95% intervals, within a time budget.
"""
from __future__ import annotations

import random
import time
from typing import Any, Callable

from ruleproof.solver.montecarlo import mean_ci, playout

from .nearopt import load_table, near_optimal
from .nearopt_regret import stored
from .policies import POLICIES

#: the policy against itself first (its self-play value: what ``solve`` reports as the values), then
#: the simple rules
OPPONENTS = ("near-optimal", "stop-at-5", "stop-at-7", "stop-at-10", "never-before-grito", "lookahead")
#: Monte Carlo budget when the caller gives no deadline (seconds, both objectives together)
DEFAULT_SECONDS = 60.0
#: at most this many games per opponent and seat
MAX_GAMES = 2_000
OWN_BANDS = ("0-2", "3-5", "6-8", "9+")
RISK_BANDS = ("none", "<=3%", "3-7%", "7-15%", ">15%")


def stop_table() -> dict[str, Any]:
    """The learned go/stop decision as printable grids (S = stop, . = go), from the stored table."""
    cells = load_table().get("stop", {})

    def decide(margin: int, risk: int, own: int, gritos: int) -> str:
        for key in (f"{margin},{risk},{own},{gritos}", f"{margin},{risk}"):
            if key in cells:
                return "S" if cells[key][0] > 0 else "."
        return "."                  # unseen: the policy goes
    grids = []
    for gritos in range(3):
        rows = [{"lead": m, "cells": ["".join(decide(m, r, o, gritos) for o in range(4))
                                      for r in range(len(RISK_BANDS))]}
                for m in range(-6, 7)]
        grids.append({"gritos_resolved": gritos, "rows": rows})
    return {"columns": list(RISK_BANDS), "cell_order": list(OWN_BANDS), "grids": grids,
            "meaning": "lead = own points minus the best opponent's (clipped to -6..6); column = "
                       "P(this draw opens a stall for you and the Loira takes everything); each cell "
                       "has one letter per band of your own points (0-2, 3-5, 6-8, 9+): S stop, . go. "
                       "The table plays while more than 10 cards are left (8 on decks over 16 "
                       "cards) and an opponent still draws; below that, and once every opponent has "
                       "stopped, the policy plays the exact optimum (2 players: the C engine). The "
                       "Interruptor is used only when it wins the round at once."}


def escort_summary() -> dict[str, Any]:
    """Escort (spend a roll to open a stall too) by lead and P(a pick is the Loira), summed over
    the finer features the policy also uses (own points, Gritos, mean stall)."""
    cells = load_table().get("escort", {})
    rows = []
    for m in range(-4, 5):
        row = []
        for slots in range(2, 7):
            marks = ""
            for esc in (0, 1):
                cell = cells.get(f"{m},{slots},{esc}")
                marks += "?" if cell is None else ("E" if cell[0] > 0 else ".")
            row.append(marks)
        rows.append({"lead": m, "cells": row})
    return {"columns": [f"1/{n}" + ("+" if n == 6 else "") for n in range(2, 7)], "rows": rows,
            "meaning": "two letters per cell: without / with an escape pair; E escort, . do not, "
                       "? never seen in training (the greedy escort rule decides)"}


def render(table: dict[str, Any], escort: dict[str, Any]) -> str:
    lines = []
    for grid in table["grids"]:
        lines.append(f"Gritos resolved: {grid['gritos_resolved']}   (cells: own points "
                     f"{' / '.join(table['cell_order'])})")
        lines.append("lead | " + " | ".join(f"{c:>5}" for c in table["columns"]))
        for row in grid["rows"]:
            lines.append(f"{row['lead']:>+4} | " + " | ".join(f"{c:>5}" for c in row["cells"]))
    lines.append("escort (without / with an escape pair), by P(pick is the Loira):")
    lines.append("lead | " + " | ".join(f"{c:>4}" for c in escort["columns"]))
    for row in escort["rows"]:
        lines.append(f"{row['lead']:>+4} | " + " | ".join(f"{c:>4}" for c in row["cells"]))
    return "\n".join(lines)


def compare(game, opponents, deadline: float, seed: int, progress=None) -> list[dict]:
    """Self-play: the policy in each seat in turn against ``opponents`` elsewhere; the policy
    seat's utility (2 players: P(win) - P(lose)) with a 95% interval and its outright wins."""
    n = game.num_players
    jobs = [(name, seat) for name in opponents for seat in range(n)]
    out = []
    for i, (name, seat) in enumerate(jobs):
        share = (deadline - time.perf_counter()) / (len(jobs) - i)
        stop_at = time.perf_counter() + max(share, 0.0)
        policies = {t: (near_optimal(game) if t == seat else POLICIES[name](game)) for t in range(n)}
        rng = random.Random(seed * 1_000 + i)
        u = [0.0, 0.0]
        wins = [0.0, 0.0]
        games = 0
        while games < MAX_GAMES and (games < 20 or time.perf_counter() < stop_at):
            returns = playout(game, policies, rng).returns
            r = float(returns[seat])
            top = max(returns)
            won = 1.0 if top > 0 and [t for t in range(n) if returns[t] == top] == [seat] else 0.0
            u[0] += r
            u[1] += r * r
            wins[0] += won
            wins[1] += won
            games += 1
        e, w = mean_ci(u[0], u[1], games), mean_ci(wins[0], wins[1], games)
        out.append({"opponent": name, "seat": seat, "games": games, "utility": round(e.mean, 4),
                    "ci95": [round(e.low, 4), round(e.high, 4)], "wins_outright": round(w.mean, 4)})
        if progress is not None:
            progress("self-play", i + 1, len(jobs))
    return out


def solve_near_optimal(ruleset, limits=None, progress: Callable | None = None,
                       seed: int = 1) -> dict[str, Any]:
    """The near-optimal policy's play table, its measured regret bound and self-play comparisons.

    ``limits``: a ``model.limits.Limits``; its deadline bounds the Monte Carlo (else
    ``DEFAULT_SECONDS``); every match-up plays at least 20 games, so a deadline of a few seconds
    is overrun. ``progress(what, done, total)`` is told how far the self-play is."""
    from .config import SCHEMA
    from .game import build
    start = time.perf_counter()
    left = limits.remaining() if limits is not None else None
    budget = DEFAULT_SECONDS if left is None else max(left - 1.0, 0.0)
    game = build(ruleset.with_overrides({"objective": "round"}, spec=SCHEMA))
    match = build(ruleset.with_overrides({"objective": "match"}, spec=SCHEMA))
    regret = stored()
    table, escort = stop_table(), escort_summary()
    res: dict[str, Any] = {
        "engine": "near-optimal",
        "exact": False,
        "method": "near-optimal policy (exact endgame from 10 cards left, 8 on decks over 16 cards, "
                  "or once every other seat has stopped; go/stop and escort tables learned from exact "
                  "solutions above it; model/loira/nearopt.py, endgame.py) - not an exact solution",
        "regret_bound": regret.get("worst"),
        "regret_table": regret.get("rows", []),
        "regret_meaning": "optimal U minus U when one seat follows the policy and the others "
                          "best-respond, on the bench rungs up to 15 cards, the verify configuration, "
                          "loira-mini, the tiny example and 3-player rounds (exact fractions up to 8 "
                          "cards and for 3 players; above, the layers over the exact endgame with the "
                          "C engine's values; stored in model/loira/nearopt_regret.json); the real "
                          "deck itself is too large for an exact bound",
        "stop_table": table,
        "escort_table": escort,
        "printable": render(table, escort),
    }
    deadline = time.perf_counter() + budget / 2
    res["self_play_round"] = compare(game, OPPONENTS, deadline, seed, progress)
    deadline = time.perf_counter() + max(budget - (time.perf_counter() - start), 0.0)
    res["self_play_match"] = compare(match, OPPONENTS, deadline, seed + 1, progress)
    res["target_wins"] = match.cfg.target_wins
    res["seed"] = seed
    res["seconds"] = round(time.perf_counter() - start, 1)
    return res


def answer_text(res: dict[str, Any]) -> str:
    """The full-deck answer as a player reads it: what the policy is worth and how sure that is,
    the stop table, and the self-play against the simple rules."""
    worst = res.get("regret_bound") or {}
    lines = ["near-optimal policy (NOT an exact solution): exact endgame (from 10 cards left, 8 on "
             "decks over 16 cards, or once every other seat has stopped), learned go/stop and escort "
             "tables above it",
             f"  measured regret bound: at most {worst.get('regret_float', float('nan')):.4f} of U "
             f"(worst case, {worst.get('configuration', '?')}, seat {worst.get('seat', '?')}; on "
             f"{len(res.get('regret_table', []))} configurations up to 16 cards: exact fractions, or "
             f"the layers above the exact endgame with the C engine's values)",
             res["printable"]]
    for key, title in (("self_play_round", "one round"), ("self_play_match", "a match")):
        lines.append(f"self-play, {title}: the policy's U against each rule (95% interval, games)")
        for r in res.get(key, []):
            lines.append(f"  vs {r['opponent']:<20} seat {r['seat']}: {r['utility']:+.3f} "
                         f"[{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}]  ({r['games']} games)")
    return "\n".join(lines)

