"""Play tables a designer can filter: typed feature columns, values, how often each state arises.

``write_play_table`` writes, from a solved exploration:

* ``play_table.csv`` -- one row per decision state: the game's typed features (``Game.features``;
  the prose description when a game has none), the optimal action, the mover's value as a float
  and (exact solves) as a fraction, the margin by which the optimal action beats the next best,
  and ``visits``: the expected number of times play reaches the state when every seat plays
  optimally (for a state that cannot recur, the probability of reaching it). By default only the
  states optimal play reaches, at most ``ROW_LIMIT`` of them (the most visited first); ``full``
  writes every decision state and every action's value.
* ``play_table.meta.json`` -- the sidecar: whose value it is and what it means, each column's type
  and meaning, which rows were kept.
* ``policy_summary.txt`` / ``.csv`` -- the game's compact, printable policy summary (the
  ``policy_summary`` of its ``GameSpec``), when it has one.
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.sparse import csc_matrix, identity
from scipy.sparse.csgraph import breadth_first_order
from scipy.sparse.linalg import splu

#: default row cap of the play table (about 8 MB for Pig); ``full`` lifts it
ROW_LIMIT = 150_000
VISITS_MEANING = ("expected number of times play reaches this state when every seat plays optimally "
                  "(the probability of reaching it, for a state that cannot recur)")


@dataclass
class PolicySummary:
    """A game's printable policy summary: ``text`` for paper, ``columns``/``rows`` for a CSV.
    ``constant`` says, in words, when the optimal policy is the same everywhere (else None)."""
    title: str
    text: str
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    constant: str | None = None


def _policy_matrix(sol) -> csc_matrix:
    """P[i, j]: the probability that the next state after i is j under the solution's policy."""
    ex = sol.exploration
    n = ex.num_states
    kind = np.frombuffer(ex.kind, dtype=np.int8).astype(np.int64)
    offsets = np.frombuffer(ex.offsets, dtype=np.int64)
    child = np.frombuffer(ex.child, dtype=np.int64)
    source = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    table = np.array([0.0] + [float(p) for p in ex.prob_table])
    weight = table[np.frombuffer(ex.prob_code, dtype=np.int64)]
    decision = kind[source] >= 0
    chosen = np.zeros(len(child), dtype=bool)
    picks = np.asarray(sol.choice)[kind >= 0]
    chosen[picks[picks >= 0]] = True
    weight = np.where(decision, chosen.astype(float), weight)
    keep = weight > 0
    return csc_matrix((weight[keep], (source[keep], child[keep])), shape=(n, n))


def occupancy(sol) -> np.ndarray:
    """Expected visits of every state from the start under optimal play: the solution of
    ``x = e0 + P^T x`` (one sparse LU; play ends with probability 1, so it is non-singular).
    Cached on the solution: the table, the summary and the picture share it."""
    cached = getattr(sol, "_visits", None)
    if cached is not None:
        return cached
    n = sol.exploration.num_states
    policy = _policy_matrix(sol).tocsr()
    # only the states optimal play reaches enter the solve (a fifth of them, for Pig to 100)
    live = np.sort(breadth_first_order(policy, 0, directed=True, return_predecessors=False))
    sub = policy[live][:, live]
    start = np.zeros(len(live))
    start[0] = 1.0   # node 0 is the start and the smallest index
    # (I - P^T) x = e0 solved through the factorisation of I - P, transposed: factorising I - P^T
    # itself, SuperLU's column ordering met a fill-in that took over 9 minutes on Skunk to 100
    # (snake eyes make one cyclic component of most states); this way 1.2 s, as for E = 1 + P E
    visits = np.zeros(n)
    visits[live] = np.atleast_1d(splu((identity(len(live), format="csc") - sub).tocsc()).solve(start, trans="T"))
    visits[np.abs(visits) < 1e-15] = 0.0   # round-off
    sol._visits = visits
    return visits


def _mover_values(sol, edges: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """The value, for the seat that moves at each edge's source, of following the edge."""
    ex = sol.exploration
    child = np.frombuffer(ex.child, dtype=np.int64)[edges]
    if ex.perm is None:
        cols = seats
    else:
        perms = np.array(ex.game.seat_permutations, dtype=np.int64)
        cols = perms[np.frombuffer(ex.perm, dtype=np.int8).astype(np.int64)[edges], seats]
    return sol.values[child, cols]


def _margins(sol, nodes: np.ndarray) -> np.ndarray:
    """Per decision node: its optimal action's value minus the best other action's (NaN when the
    move is forced) -- how much the choice matters."""
    ex = sol.exploration
    offsets = np.frombuffer(ex.offsets, dtype=np.int64)
    kind = np.frombuffer(ex.kind, dtype=np.int8).astype(np.int64)
    counts = offsets[nodes + 1] - offsets[nodes]
    owner = np.repeat(np.arange(len(nodes)), counts)
    starts = np.cumsum(counts) - counts
    edges = offsets[nodes][owner] + np.arange(int(counts.sum())) - starts[owner]
    vals = _mover_values(sol, edges, kind[nodes][owner])
    chosen = np.asarray(sol.choice)[nodes]
    best = vals[np.searchsorted(edges, chosen)] if len(edges) else np.zeros(0)
    others = np.where(edges == chosen[owner], -np.inf, vals)
    runner_up = np.full(len(nodes), -np.inf)
    np.maximum.at(runner_up, owner, others)
    return np.where(np.isfinite(runner_up), best - runner_up, np.nan)


def play_rows(sol, *, full: bool = False, limit: int | None = ROW_LIMIT) -> tuple[list[str], list[list[Any]], dict]:
    """(columns, rows, selection note) of the play table."""
    ex = sol.exploration
    game = ex.game
    kind = np.frombuffer(ex.kind, dtype=np.int8).astype(np.int64)
    visits = occupancy(sol)
    nodes = np.flatnonzero(kind >= 0)
    reached = int((visits[nodes] > 0).sum())
    if not full:
        nodes = nodes[visits[nodes] > 0]
    kept = len(nodes)
    if not full and limit is not None and kept > limit:
        nodes = np.sort(nodes[np.argsort(-visits[nodes], kind="stable")[:limit]])
    selection = {"decision_states": int((kind >= 0).sum()), "reached_under_optimal_play": reached,
                 "rows": len(nodes),
                 "which": "every decision state, with every action's value (--full)" if full else
                 "decision states optimal play reaches" + (
                     f", the {len(nodes):,} most visited of {kept:,} (--full writes all)"
                     if len(nodes) < kept else "")}
    margins = _margins(sol, nodes)
    exact = sol.exact is not None
    symmetric = bool(getattr(game, "seat_permutations", ()))
    first = game.features(ex.state(int(nodes[0]))) if len(nodes) else None
    feature_cols = list(first) if first is not None else ["state"]
    columns = feature_cols + ([] if symmetric else ["mover"]) + ["optimal_action", "value"] + \
        (["value_exact"] if exact else []) + ["margin", "visits"]
    per_action: list[str] = []
    rows = []
    for i, node in enumerate(nodes.tolist()):
        state = ex.state(node)
        feats = game.features(state) if first is not None else {"state": game.describe_state(state)}
        seat = int(kind[node])
        edge = int(sol.choice[node])
        row = [feats[c] for c in feature_cols]
        if not symmetric:
            row.append(seat)
        row += [game.describe_action(state, ex.action[edge]), round(float(sol.values[node, seat]), 12)]
        if exact:
            row.append(str(sol.exact[node][seat]))
        m = margins[i]
        row += ["" if np.isnan(m) else round(float(m), 12), round(float(visits[node]), 12)]
        if full:
            acts = {game.describe_action(state, ex.action[e]):
                    (str(sol.edge_value_exact(e)[seat]) if exact else round(float(sol.edge_value(e)[seat]), 12))
                    for e in ex.edges(node)}
            for a in acts:
                if a not in per_action:
                    per_action.append(a)
            row.append(acts)
        rows.append(row)
    if full:
        columns += [f"value:{a}" for a in per_action]
        rows = [r[:-1] + [r[-1].get(a, "") for a in per_action] for r in rows]
    return columns, rows, selection


def _column_meanings(game, columns: list[str], exact: bool) -> list[dict[str, str]]:
    help_ = dict(getattr(game, "feature_help", {}) or {})
    help_.update({
        "state": "the state in words (this game declares no feature columns)",
        "mover": "the seat to move",
        "optimal_action": "the optimal action (tie rule: the first of the best in legal-action order)",
        "value": f"the mover's value: {game.value_meaning}",
        "value_exact": "the same value as an exact fraction",
        "margin": "how much the optimal action beats the best other action, in the mover's value "
                  "(empty: the move is forced)",
        "visits": VISITS_MEANING,
    })
    out = []
    for c in columns:
        meaning = help_.get(c) or (f"the mover's value after '{c[6:]}'" if c.startswith("value:") else "")
        out.append({"name": c, "meaning": meaning})
    return out


def _types(rows: list[list[Any]], columns: list[str]) -> list[str]:
    names = []
    for i, _ in enumerate(columns):
        sample = next((r[i] for r in rows if r[i] != ""), None)
        names.append("bool" if isinstance(sample, bool) else "int" if isinstance(sample, int) else
                     "float" if isinstance(sample, float) else "str")
    return names


def write_play_table(sol, out_dir: Path, *, full: bool = False) -> list[Path]:
    """The play table and its sidecar."""
    out_dir.mkdir(parents=True, exist_ok=True)
    game = sol.exploration.game
    columns, rows, selection = play_rows(sol, full=full)
    path = out_dir / "play_table.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(columns)
        w.writerows(rows)
    files = [path]
    meta = {"game": game.name, "value": f"value = {game.value_meaning}; the value of the seat to move",
            "visits": VISITS_MEANING, "exact": sol.exact is not None, **selection,
            "columns": [dict(c, type=t) for c, t in
                        zip(_column_meanings(game, columns, sol.exact is not None), _types(rows, columns))]}
    meta_path = out_dir / "play_table.meta.json"
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    files.append(meta_path)
    return files


def write_summary(made: PolicySummary, out_dir: Path) -> list[Path]:
    text_path = out_dir / "policy_summary.txt"
    text_path.write_text(made.title + "\n\n" + made.text.rstrip() + "\n")
    files = [text_path]
    if made.columns:
        csv_path = out_dir / "policy_summary.csv"
        with csv_path.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(made.columns)
            w.writerows(made.rows)
        files.append(csv_path)
    return files
