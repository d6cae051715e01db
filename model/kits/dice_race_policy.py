"""A dice race's printable policy and picture: hold at N, by (my score, opponent's score).

"Hold at N" means: roll while the turn total is below N, hold once it reaches N. The optimal policy
is almost, not exactly, of that form; the summary counts the situations where it departs from the
rule (weighted by how often optimal play reaches them), so the rule is never claimed where it is wrong.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ruleproof.solver.tables import PolicySummary, occupancy

from .dice_race import HOLD


def hold_grid(sol, visits: np.ndarray) -> dict[str, np.ndarray]:
    """Per (my score i, opponent score j) of a race (with more than two players, j is the highest
    opponent score):

    ``hold_at[i, j]`` the smallest turn total k >= 1 at which the optimal mover holds (NaN: never,
    it rolls on to the goal); ``seen[i, j]`` whether any decision state has these scores;
    ``starts[i, j]`` expected turn starts at these scores under optimal play; ``off[i, j]`` the
    expected visits of states where "hold at hold_at[i, j]" disagrees with the optimal action.
    """
    cached = getattr(sol, "_race_hold_grid", None)
    if cached is not None:
        return cached
    ex = sol.exploration
    game = ex.game
    g = game.goal
    kind = np.frombuffer(ex.kind, dtype=np.int8)
    nodes = np.flatnonzero(kind >= 0)
    # the features (my score, the opponent's, the turn total) read off the keys through the state
    # record, a million at a time
    keys = np.array(ex.keys, dtype=np.int64)[nodes]
    column = game.record.column
    mover = column(keys, "mover")
    scores = np.stack([column(keys, f"score{seat}") for seat in range(game.num_players)])
    at = np.arange(len(keys))
    i = scores[mover, at]
    scores[mover, at] = -1   # with three or more players j is the leading opponent's score
    j = scores.max(axis=0)
    k = column(keys, "turn")
    holds = np.asarray(ex.action)[np.asarray(sol.choice)[nodes]] == HOLD
    v = visits[nodes]
    seen = np.zeros((g, g), dtype=bool)
    seen[i, j] = True
    starts = np.zeros((g, g))
    np.add.at(starts, (i[k == 0], j[k == 0]), v[k == 0])
    hold_at = np.full((g, g), np.inf)
    pick = holds & (k >= 1)
    np.minimum.at(hold_at, (i[pick], j[pick]), k[pick].astype(float))
    hold_at[np.isinf(hold_at)] = np.nan
    rule = k >= np.nan_to_num(hold_at[i, j], nan=np.inf)
    wrong = (k >= 1) & (holds != rule)
    off = np.zeros((g, g))
    np.add.at(off, (i[wrong], j[wrong]), v[wrong])
    sol._race_hold_grid = {"hold_at": hold_at, "seen": seen, "starts": starts, "off": off}
    return sol._race_hold_grid


def _band_value(grid: np.ndarray, weight: np.ndarray, seen: np.ndarray) -> str:
    """The hold-at N most turn starts in a band of scores meet (ties: the smallest N)."""
    tally: dict[float, float] = {}
    for n, w, s in zip(grid.ravel(), weight.ravel(), seen.ravel()):
        if s:
            key = math.inf if np.isnan(n) else float(n)
            tally[key] = tally.get(key, 0.0) + w + 1e-12   # unreached cells still count, barely
    if not tally:
        return "."
    best = min(tally, key=lambda n: (-tally[n], n))
    return "-" if best == math.inf else str(int(best))


def summary(sol, visits: np.ndarray) -> PolicySummary | None:
    game = sol.exploration.game
    if game.num_players != 2:
        return None  # the hold-at grid is by two scores
    grid = hold_grid(sol, visits)
    hold_at, seen, starts, off = grid["hold_at"], grid["seen"], grid["starts"], grid["off"]
    g = game.goal
    title = (f"{game.title} to {g} with {game.dice_text()}, 2 players: when the optimal player holds "
             f"(value = {game.value_meaning})")
    holds_somewhere = bool(np.isfinite(hold_at[seen]).any())
    constant = None
    if not holds_somewhere:
        constant = (f"the optimal player never holds: at every score it rolls on until it reaches "
                    f"{g} or a throw ends its turn")
    rows = []
    for i in range(g):
        for j in range(g):
            if seen[i, j]:
                n = hold_at[i, j]
                rows.append([i, j, "" if np.isnan(n) else int(n),
                             "never holds (rolls on to the goal)" if np.isnan(n) else f"hold at {int(n)}",
                             round(float(starts[i, j]), 9), round(float(off[i, j]), 9)])
    lines = []
    if constant:
        lines.append(constant.capitalize() + ".")
    else:
        row_band, col_band = max(1, math.ceil(g / 20)), max(1, math.ceil(g / 10))
        lines.append("Hold once the turn total reaches N (rows: my score, columns: opponent's score;")
        lines.append("'-': never hold, roll on to the goal). Each cell shows the N most turn starts in it")
        lines.append(f"meet under optimal play (cells of {row_band} x {col_band} scores).")
        lines.append("")
        col_starts = list(range(0, g, col_band))
        lines.append("my score \\ opp " + "".join(f"{c:>6}" for c in col_starts))
        for r in reversed(range(0, g, row_band)):
            label = f"{r}-{min(r + row_band, g) - 1}" if row_band > 1 else str(r)
            cells = [_band_value(hold_at[r:r + row_band, c:c + col_band], starts[r:r + row_band, c:c + col_band],
                                 seen[r:r + row_band, c:c + col_band]) for c in col_starts]
            lines.append(f"{label:>14} " + "".join(f"{x:>6}" for x in cells))
    total = float(visits[np.frombuffer(sol.exploration.kind, dtype=np.int8) >= 0].sum())
    lines.append("")
    lines.append(f"Expected decisions per game under optimal play: {total:.3f}; of them "
                 f"{float(off.sum()):.6f} are situations where the optimal action is not the "
                 "'hold at N' rule of its cell.")
    columns = ["my_score", "opponent_score", "hold_at", "rule", "turn_starts", "visits_off_rule"]
    return PolicySummary(title, "\n".join(lines), columns, rows, constant)


def hold_thresholds(sol) -> np.ndarray:
    """``t[i, j]``: the smallest turn total k >= 1 at which the mover holds with own score i and
    opponent score j (NaN where the mover never holds, rolling on to the goal)."""
    return hold_grid(sol, occupancy(sol))["hold_at"]


def draw_policy(game, sol, path: Path) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    grid = hold_grid(sol, occupancy(sol))
    t, seen = grid["hold_at"], grid["seen"]
    fig, ax = plt.subplots(figsize=(6.4, 5.4), dpi=110)
    # cells where the player never holds are drawn in their own colour, not left blank
    never = np.where(seen & np.isnan(t), 1.0, np.nan)
    ax.imshow(never, origin="lower", cmap=ListedColormap(["#d9d9d9"]), vmin=0, vmax=1,
              interpolation="nearest")
    title = f"{game.title}, goal {game.goal}, {game.dice_text()}: optimal hold threshold"
    if np.isfinite(t).any():
        image = ax.imshow(t, origin="lower", cmap="viridis", interpolation="nearest")
        fig.colorbar(image, ax=ax, label="hold once the turn total reaches")
        title += "\n(grey: never holds, rolls on to the goal; white: scores never met)"
    else:
        ax.text(0.5, 0.5, "the optimal player never holds:\nit rolls on to the goal at every score",
                transform=ax.transAxes, ha="center", va="center", fontsize=12,
                bbox={"facecolor": "white", "edgecolor": "black"})
        title += "\n(grey: never holds; white: scores never met)"
    ax.set_xlabel("opponent's score" if game.num_players == 2 else "the leading opponent's score")
    ax.set_ylabel("player's score")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
