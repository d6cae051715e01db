"""The Pig policy picture: the turn total at which the optimal player holds, by the two scores."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .game import HOLD


def hold_thresholds(sol) -> np.ndarray:
    """``t[i, j]``: the smallest turn total k >= 1 at which the mover holds with own score i and
    opponent score j (NaN where the mover never holds, rolling on to the goal)."""
    ex = sol.exploration
    game = ex.game
    t = np.full((game.goal, game.goal), np.nan)
    for node in range(ex.num_states):
        if ex.kind[node] < 0:
            continue
        coords = game.decision_coordinates(ex.state(node))
        if coords is None:
            continue
        i, j, k = coords
        if k >= 1 and ex.action[sol.choice[node]] == HOLD and not (t[i, j] <= k):
            t[i, j] = k
    return t


def draw_policy(game, sol, path: Path) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = hold_thresholds(sol)
    fig, ax = plt.subplots(figsize=(6.4, 5.4), dpi=110)
    image = ax.imshow(t, origin="lower", cmap="viridis", interpolation="nearest")
    fig.colorbar(image, ax=ax, label="hold at turn total")
    ax.set_xlabel("opponent's score")
    ax.set_ylabel("player's score")
    ax.set_title(f"Pig, goal {game.goal}, d{game.faces}: optimal hold threshold\n"
                 "(white: never holds, rolling on to the goal; or unreachable)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
