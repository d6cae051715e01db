"""The Pig policy picture: the turn total at which the optimal player holds, by the two scores.

A picture is never blank: where the optimal player never holds (goal 10: it always rolls on), the
picture says so in words, as the summary does."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ruleproof.solver.tables import occupancy

from .summary import hold_grid


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
    title = f"Pig, goal {game.goal}, d{game.faces}: optimal hold threshold"
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
