"""Decision graphs (networkx) and optimal play rows drawn from a solved exploration (the files a
user reads are written by ``solver.tables``)."""
from __future__ import annotations

from typing import Any

import networkx as nx

from ruleproof.model.protocol import CHANCE, TERMINAL

from .solve import Solution


def decision_graph(sol: Solution, max_nodes: int = 200_000) -> nx.DiGraph | None:
    """Decision, chance and terminal nodes with their values; edges labelled with the action,
    the probability (chance) and whether the policy takes it. ``None`` when the graph is larger
    than ``max_nodes`` (GraphML of millions of nodes helps nobody)."""
    ex = sol.exploration
    if ex.num_states > max_nodes:
        return None
    game = ex.game
    g = nx.DiGraph(game=game.name)
    for node in range(ex.num_states):
        seat = int(ex.kind[node])
        attrs: dict[str, Any] = {
            "kind": "terminal" if seat == TERMINAL else "chance" if seat == CHANCE else "decision",
            "player": seat, "label": game.describe_state(ex.state(node)),
        }
        for s, v in enumerate(sol.values[node]):
            attrs[f"value{s}"] = float(v)
            if sol.exact is not None:
                attrs[f"exact{s}"] = str(sol.exact[node][s])
        g.add_node(node, **attrs)
    for node in range(ex.num_states):
        state = None
        for edge in ex.edges(node):
            if state is None:
                state = ex.state(node)
            p = ex.prob[edge]
            attrs = {"action": game.describe_action(state, ex.action[edge]),
                     "optimal": bool(sol.choice[node] == edge)}
            if p is not None:
                attrs["probability"] = float(p)
                attrs["probability_exact"] = str(p)
            # two moves can reach one state (e.g. with symmetry); keep the first label, note the rest
            if g.has_edge(node, ex.child[edge]):
                g.edges[node, ex.child[edge]]["action"] += " | " + attrs["action"]
                if p is not None:
                    g.edges[node, ex.child[edge]]["probability"] += float(p)
                continue
            g.add_edge(node, int(ex.child[edge]), **attrs)
    return g


def policy_table(sol: Solution, limit: int | None = None) -> list[dict[str, Any]]:
    """One row per decision state: who moves, the state, the best action, each action's value
    for the mover (exact fractions when the solution is exact)."""
    ex = sol.exploration
    game = ex.game
    rows = []
    for node in range(ex.num_states):
        seat = int(ex.kind[node])
        if seat < 0:
            continue
        state = ex.state(node)
        values = {}
        for edge in ex.edges(node):
            name = game.describe_action(state, ex.action[edge])
            if sol.exact is not None:
                values[name] = str(sol.edge_value_exact(edge)[seat])
            else:
                values[name] = float(sol.edge_value(edge)[seat])
        best = game.describe_action(state, ex.action[sol.choice[node]])
        rows.append({"state": game.describe_state(state), "player": seat, "best": best,
                     "value": values[best], "action_values": values})
        if limit is not None and len(rows) >= limit:
            break
    return rows
