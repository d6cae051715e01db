"""The stop-policy picture: by own and best opponent's points, one panel per number of stall cards
left in the centre, the share of play where the optimal move is to stop ("não pega mais cartas"),
weighted by how often optimal play meets each situation. Never blank: a configuration without a
go/stop choice, or with a constant policy, says so on the picture."""
from __future__ import annotations

import textwrap
from collections import defaultdict
from pathlib import Path

import numpy as np

from .scoring import score
from .state import PHYS, TURN
from .summary import GO_WORDS, STOP_WORDS, constant_rule, turn_choices


def stop_regions(game, decisions) -> dict[int, dict[tuple[int, int], list[float]]]:
    """``panel (stalls left) -> (own points, best opponent points) -> [go weight, stop weight]``.

    ``decisions`` yields ``(state, chose stop, weight)`` for turn decisions where both are legal.
    """
    panels: dict[int, dict[tuple[int, int], list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    for s, stop, weight in decisions:
        me = s[TURN]
        own = score(game, s, me)
        other = max(score(game, s, t) for t in range(game.num_players) if t != me)
        panels[s[PHYS]][(own, other)][1 if stop else 0] += weight
    return panels


def draw_panels(game, panels, path: Path, title: str) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = sorted(panels, reverse=True) or [0]
    cells = [(a, b) for p in panels.values() for (a, b) in p]
    lo = min([min(a, b) for a, b in cells] + [0])
    hi = max([max(a, b) for a, b in cells] + [1])
    size = hi - lo + 1
    go_w = sum(w[0] for p in panels.values() for w in p.values())
    stop_w = sum(w[1] for p in panels.values() for w in p.values())
    fig, axes = plt.subplots(1, len(keys), figsize=(3.4 * len(keys) + 1.5, 4.0), dpi=110, squeeze=False)
    image = None
    for ax, k in zip(axes[0], keys):
        grid = np.full((size, size), np.nan)
        for (own, other), (go, stop) in panels.get(k, {}).items():
            if go + stop > 0:
                grid[own - lo, other - lo] = stop / (go + stop)
        ax.set_facecolor("#efe6c8")   # beige: not met under optimal play
        image = ax.imshow(grid, origin="lower", cmap="bwr", vmin=0, vmax=1, interpolation="nearest",
                          extent=(lo - 0.5, hi + 0.5, lo - 0.5, hi + 0.5))
        ax.set_title(f"{k} stall card(s) in the centre", fontsize=9)
        ax.set_xlabel("best opponent's points")
        ax.set_ylabel("my points")
    note = constant_rule(go_w, stop_w)
    if note:
        axes[0][0].text(0.5, 0.5, textwrap.fill(note, 34), transform=axes[0][0].transAxes, ha="center", va="center",
                        fontsize=10, bbox={"facecolor": "white", "edgecolor": "black"})
    if image is not None:
        fig.colorbar(image, ax=axes[0].tolist(),
                     label="share of play where stopping is optimal\n(weighted by how often it arises)")
    fig.suptitle(title + f"\nblue = {GO_WORDS}; red = {STOP_WORDS}; beige: not met under optimal play", fontsize=9)
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path


def draw_policy(game, sol, path: Path) -> Path:
    """``GameSpec.picture`` for a generic ``solver.solve`` solution."""
    from ruleproof.solver.tables import occupancy
    panels = stop_regions(game, turn_choices(sol, occupancy(sol)))
    return draw_panels(game, panels, Path(path), f"Loira do Banheiro, {game.num_players} players: "
                       "when optimal play stops")
