"""The near-optimal policy's files for ``solve`` (the real deck): its stop and escort tables as CSV,
a printable summary and a picture, like the play table, summary and picture of an exact solve.

Every row says what the policy does and where that comes from (``source``): the learned cell of the
full feature key, the coarse key it backs off to, or neither (``unseen``: the stop table goes, the
escort falls back to the greedy rule). With two players in a round the policy's escorts above its
exact endgame are a look-ahead's (``nearopt.ESCORT_LOOKAHEAD_PLAYERS``): the escort table is its
fallback there. ``advantage`` is the learned cell's summed ``weight x (value of
yes - value of no)`` for the mover (its sign decides) and ``weight`` the summed weight: with 2
players the times the decision was met in seeded sampled games (``nearopt.learn_sampled``), with 3+
its reach probability in the exact solves (``nearopt.learn``). The files are written into the
staged folder ``solve`` gives (``solver/outputs.py`` swaps it into place), after the self-play, so
a run cut short writes nothing.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from .nearopt import DEPTHS, TWO_DEPTHS, tables, two_tables
from .nearopt_play import OWN_BANDS, RISK_BANDS, escort_by_lead, stop_cell

LEADS = range(-6, 7)
ESCORT_LEADS = range(-4, 5)
SLOTS = range(2, 7)
STOP_COLUMNS = [
    ("gritos_resolved", "int", "Gritos resolved so far (0, 1, 2 or more)"),
    ("lead", "int", "own points minus the best opponent's, clipped to -6..6"),
    ("loira_risk", "str", "P(this draw opens a stall for the mover and the Loira takes everything), banded"),
    ("own_points", "str", "the mover's own points, banded"),
    ("decision", "str", "stop or go: what the policy does there (while an opponent still draws, above its exact endgame)"),
    ("source", "str", "full: the learned cell of this key; coarse: the cell of (lead, risk) it backs off to; "
                      "unseen: neither was met in training and the policy goes"),
    ("advantage", "float", "the deciding cell's summed weight x (U of stop - U of go) for the mover (its sign decides)"),
    ("weight", "float", "the deciding cell's summed weight in training: 2 players, the times the decision was met in "
                        "seeded sampled games; 3+, its reach probability in the exact solves"),
]
ESCORT_COLUMNS = [
    ("key", "str", "full: the cell of every feature, which the policy reads first; then the coarser cells it "
                   "backs off to in turn: 2 players 'rolls and cards' (lead, slots, escape pair, rolls, cards "
                   "left), then 'rolls' (lead, slots, escape pair, rolls); 3+ players 'coarse' (lead, slots, "
                   "escape pair)"),
    ("lead", "int", "own points minus the best opponent's, clipped to -4..4"),
    ("slots", "int", "the belief's slots: P(a pick is the Loira) = 1/slots (6 means 6 or more)"),
    ("escape_pair", "int", "1 when the mover holds an escape pair"),
    ("rolls", "int", "2 players: the escorter's rolls (3 means 3 or more)"),
    ("cards_left", "str", "2 players: the cards left in the deck, banded (0-2, 3-5, 6-8, 9-11, 12+)"),
    ("own_points", "str", "the mover's own points, banded (full keys only)"),
    ("gritos_resolved", "int", "Gritos resolved so far (full keys only)"),
    ("mean_unopened_stall", "int", "the mean score of the stalls still in the centre, rounded (full keys only)"),
    ("decision", "str", "escort (spend a roll to open a stall too) or no: the table's; with 2 players in a round "
                        "a look-ahead decides escorts above the exact endgame and this only where its sub-solves "
                        "outgrow their budget (in a match, always)"),
    ("advantage", "float", "summed weight x (U of escorting - U of not) for the mover (its sign decides)"),
    ("weight", "float", "summed weight in training: 2 players, the times the decision was met in seeded "
                        "sampled games; 3+, its reach probability in the exact solves"),
]


def stop_rows(players: int = 2) -> list[list[Any]]:
    rows = []
    for gritos in range(3):
        for lead in LEADS:
            for risk, risk_name in enumerate(RISK_BANDS):
                for own, own_name in enumerate(OWN_BANDS):
                    decision, source, cell = stop_cell(lead, risk, own, gritos, players)
                    rows.append([gritos, lead, risk_name, own_name, decision, source,
                                 *(cell if cell else ["", ""])])
    return rows


LEFT_BANDS = ("0-2", "3-5", "6-8", "9-11", "12+")


def escort_rows(players: int = 2) -> list[list[Any]]:
    two = two_tables(players)
    depths = (TWO_DEPTHS if two else DEPTHS)["escort"]
    kinds = dict(zip(depths, ("full", "rolls and cards", "rolls") if two else ("full", "coarse")))
    rows = []
    for key, (adv, weight) in sorted(tables(players).get("escort", {}).items(),
                                     key=lambda kv: [int(x) for x in kv[0].split(",")]):
        f = [int(x) for x in key.split(",")]
        if not two:         # (the exact solves' keys: no rolls, no cards left)
            f = f[:3] + [None, None] + f[3:]
        f += [None] * (8 - len(f))
        fine = [OWN_BANDS[f[5]], f[6], f[7]] if f[5] is not None else ["", "", ""]
        rows.append([kinds[len(key.split(","))], f[0], f[1], f[2], "" if f[3] is None else f[3],
                     "" if f[4] is None else LEFT_BANDS[f[4]], *fine, "escort" if adv > 0 else "no", adv, weight])
    return rows


def _csv(path: Path, columns, rows) -> Path:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([c[0] for c in columns])
        w.writerows(rows)
    return path


def summary_text(res: dict[str, Any]) -> str:
    from ruleproof.model.estimate import Regret
    lines = ["Loira do Banheiro: the near-optimal policy (not an exact solution)", "", res["method"], ""]
    for seat, r in enumerate(res["regret"]):
        lines.append(f"seat {seat}: {Regret.from_dict(r).text()}")
    lines += ["", "Stop table (while an opponent still draws, above the exact endgame):",
              res.get("printable", ""), ""]
    return "\n".join(lines)


def draw(path: Path, title: str, players: int = 2) -> Path:
    """Stop decisions per Gritos resolved (rows: lead; columns: risk band x own-points band) and the
    coarse escort cells (rows: lead; columns: slots x escape pair). Red: stop / escort; blue: go /
    not; pale: the cell was never met in training (the fallback decides)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.colors import ListedColormap
    # 0 go (learned), 1 stop (learned), 2 go (unseen: the fallback), 3 stop from a coarse key
    cmap = ListedColormap(["#3b6fd1", "#d1403b", "#dbe4f5", "#ef9f9c"])
    fig, axes = plt.subplots(1, 4, figsize=(19, 5.2), dpi=100,
                             gridspec_kw={"width_ratios": [20, 20, 20, 10]})
    n_own = len(OWN_BANDS)
    for gritos, ax in enumerate(axes[:3]):
        grid = np.zeros((len(LEADS), len(RISK_BANDS) * n_own))
        for i, lead in enumerate(LEADS):
            for risk in range(len(RISK_BANDS)):
                for own in range(n_own):
                    decision, source, _ = stop_cell(lead, risk, own, gritos, players)
                    grid[i, risk * n_own + own] = (2 if source == "unseen" else
                                                   (3 if source == "coarse" else 1) if decision == "stop" else 0)
        ax.imshow(grid, origin="lower", cmap=cmap, vmin=0, vmax=3, aspect="auto", interpolation="nearest")
        ax.set_xticks([r * n_own + (n_own - 1) / 2 for r in range(len(RISK_BANDS))], RISK_BANDS, fontsize=8)
        for r in range(1, len(RISK_BANDS)):
            ax.axvline(r * n_own - 0.5, color="white", lw=2)
        ax.set_yticks(range(len(LEADS)), [f"{m:+d}" for m in LEADS], fontsize=8)
        ax.set_xlabel("P(the draw loses everything to the Loira)\nwithin a band: own points "
                      + " / ".join(OWN_BANDS), fontsize=8)
        ax.set_ylabel("lead over the best opponent")
        ax.set_title(f"stop table, {gritos}{'+' if gritos == 2 else ''} Gritos resolved", fontsize=10)
    ax = axes[3]
    cells = escort_by_lead(players)
    grid = np.zeros((len(ESCORT_LEADS), len(SLOTS) * 2))
    for i, lead in enumerate(ESCORT_LEADS):
        for j, slots in enumerate(SLOTS):
            for esc in (0, 1):
                cell = cells.get((lead, slots, esc))
                grid[i, 2 * j + esc] = 2 if cell is None else 1 if cell[0] > 0 else 0
    ax.imshow(grid, origin="lower", cmap=cmap, vmin=0, vmax=3, aspect="auto", interpolation="nearest")
    ax.set_xticks([2 * j + 0.5 for j in range(len(SLOTS))],
                  [f"1/{n}" + ("+" if n == 6 else "") for n in SLOTS], fontsize=8)
    ax.set_yticks(range(len(ESCORT_LEADS)), [f"{m:+d}" for m in ESCORT_LEADS], fontsize=8)
    ax.set_xlabel("P(a pick is the Loira)\nwithin: without / with an escape pair", fontsize=8)
    ax.set_title("escort (by lead, slots, escape pair)", fontsize=10)
    fig.suptitle(title + "\nred: stop / escort; pink: stop from the coarse (lead, risk) cell; "
                 "blue: go / do not escort; pale: never met in training (go; greedy escort)", fontsize=9)
    fig.savefig(path, bbox_inches="tight", metadata={"Software": "written by ruleproof solve"})
    plt.close(fig)
    return path


def write_policy_files(res: dict[str, Any], out_dir: Path, players: int) -> list[str]:
    """stop_table.csv, escort_table.csv, policy_tables.meta.json, policy_summary.txt, policy.png."""
    out_dir.mkdir(parents=True, exist_ok=True)
    files = [_csv(out_dir / "stop_table.csv", STOP_COLUMNS, stop_rows(players)),
             _csv(out_dir / "escort_table.csv", ESCORT_COLUMNS, escort_rows(players))]
    meta = {"game": "loira", "policy": "near-optimal (not an exact solution)", "method": res["method"],
            "regret": res["regret"],
            "tables": {name: [{"name": n, "type": t, "meaning": m} for n, t, m in cols]
                       for name, cols in (("stop_table.csv", STOP_COLUMNS), ("escort_table.csv", ESCORT_COLUMNS))}}
    meta_path = out_dir / "policy_tables.meta.json"
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    text_path = out_dir / "policy_summary.txt"
    text_path.write_text(summary_text(res))
    files += [meta_path, text_path,
              draw(out_dir / "policy.png", f"Loira do Banheiro, {players} players: the near-optimal "
                                           "policy's learned tables", players)]
    return [str(f) for f in files]
