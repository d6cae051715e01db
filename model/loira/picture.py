"""The stop-policy picture: go/stop regions by own and opponents' points, one panel per number of
stall cards left in the centre."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from .scoring import score
from .state import GO, PH, PHYS, STOP_ACT, TURN, Phase


def stop_regions(game, decisions) -> dict[int, dict[tuple[int, int], list[int]]]:
    """``panel (stalls left) -> (own points, best opponent points) -> [go count, stop count]``.

    ``decisions`` yields ``(state, chosen action)`` for turn decisions where both are legal.
    """
    panels: dict[int, dict[tuple[int, int], list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for s, action in decisions:
        me = s[TURN]
        own = score(game, s, me)
        other = max(score(game, s, t) for t in range(game.num_players) if t != me)
        panels[s[PHYS]][(own, other)][0 if action == GO else 1] += 1
    return panels


def solution_decisions(sol):
    """Turn decisions of a generic ``solver.solve`` solution."""
    ex = sol.exploration
    for node in range(ex.num_states):
        if ex.kind[node] < 0:
            continue
        s = ex.state(node)
        if s[PH] != Phase.TURN or ex.game.stopped(s, s[TURN]):
            continue
        edge = int(sol.choice[node])
        if edge >= 0 and ex.action[edge] in (GO, STOP_ACT):
            yield s, ex.action[edge]


def draw_panels(game, panels, path: Path, title: str) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = sorted(panels, reverse=True) or [0]
    hi = max([max(max(a, b) for a, b in p) for p in panels.values() if p] + [1])
    fig, axes = plt.subplots(1, len(keys), figsize=(3.2 * len(keys) + 1, 3.6), dpi=110, squeeze=False)
    image = None
    for ax, k in zip(axes[0], keys):
        grid = np.full((hi + 1, hi + 1), np.nan)
        for (own, other), (go, stop) in panels.get(k, {}).items():
            if own >= 0 and other >= 0:
                grid[own, other] = stop / (go + stop)
        image = ax.imshow(grid, origin="lower", cmap="coolwarm", vmin=0, vmax=1, interpolation="nearest")
        ax.set_title(f"{k} stall card(s) left")
        ax.set_xlabel("best opponent's points")
        ax.set_ylabel("own points")
    if image is not None:
        fig.colorbar(image, ax=axes[0].tolist(), label="share of situations where stopping is optimal")
    fig.suptitle(title)
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path


def draw_policy(game, sol, path: Path) -> Path:
    """The ``picture`` hook: blue = go, red = stop (mixed colours: it depends on more than points)."""
    panels = stop_regions(game, solution_decisions(sol))
    return draw_panels(game, panels, Path(path), f"Loira do Banheiro, {game.num_players} players: "
                       "optimal stop policy (0 = always go, 1 = always stop)")
