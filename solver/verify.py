"""``verify``: exhaustive invariant checks on a small configuration, graph properties, and the
game's own proofs (Z3), gathered as :class:`PropertyResult` objects."""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from model.protocol import TERMINAL
from model.ruleset import Ruleset
from model.spec import GameSpec

from .explore import Exploration, explore
from .limits import Limits
from .report import FAILS, HOLDS, UNKNOWN, PropertyResult

#: properties the explorer itself checks on every game, whatever its invariants
PROTOCOL_PROPERTIES = {
    "legal-actions": "every non-terminal decision state has a legal move",
    "chance-distribution": "chance outcomes have positive Fraction probabilities summing to 1",
    "utility-bounds": "terminal utilities lie within the declared bounds (and add up to the "
                      "declared constant, for constant-sum games)",
}


@dataclass
class VerifyReport:
    ruleset: Ruleset
    config: dict[str, Any]
    properties: list[PropertyResult] = field(default_factory=list)
    states: int = 0
    seconds: float = 0.0

    @property
    def status(self) -> str:
        statuses = {p.status for p in self.properties}
        return FAILS if FAILS in statuses else UNKNOWN if UNKNOWN in statuses else HOLDS


def exploration_properties(ex: Exploration) -> list[PropertyResult]:
    """One result per invariant and protocol rule, with the shortest failing trace."""
    game = ex.game
    named = [(inv.name, inv.description) for inv in game.invariants()]
    named += list(PROTOCOL_PROPERTIES.items())
    results = []
    scope = f"{ex.num_states} reachable states" if ex.complete else \
        f"{ex.num_states} states explored before the {ex.stop_reason}"
    for name, description in named:
        violation = ex.violations.get(name)
        if violation is not None:
            trace = ex.narrate(violation.node, f"violated: {violation.reason}")
            results.append(PropertyResult(name, FAILS, description, trace, "exhaustive",
                                          data={"depth": int(ex.depth[violation.node])}))
        elif ex.complete:
            results.append(PropertyResult(name, HOLDS, f"{description} ({scope})", kind="exhaustive"))
        else:
            results.append(PropertyResult(name, UNKNOWN, f"{description}: no violation in {scope}",
                                          kind="exhaustive"))
    return results


def termination_property(ex: Exploration) -> PropertyResult:
    """Acyclic graphs: every play ends, within the longest path. Cyclic ones: an end is reachable
    from every reachable state (for chance-only cycles that is termination with probability 1)."""
    start = time.perf_counter()
    n = ex.num_states
    if not ex.complete:
        return PropertyResult("termination", UNKNOWN, f"graph incomplete ({ex.stop_reason})", kind="graph")
    offsets = np.frombuffer(ex.offsets, dtype=np.int64)
    child = np.frombuffer(ex.child, dtype=np.int64)
    source = np.repeat(np.arange(n), np.diff(offsets))
    graph = csr_matrix((np.ones(len(child), np.int8), (source, child)), shape=(n, n))
    n_comp, label = connected_components(graph, directed=True, connection="strong")
    acyclic = n_comp == n and not (source == child).any()
    # reverse reachability from the terminal states
    reverse = graph.T.tocsr()
    can_end = np.zeros(n, dtype=bool)
    queue = deque(int(v) for v in np.flatnonzero(np.frombuffer(ex.kind, np.int8) == TERMINAL))
    can_end[list(queue)] = True
    while queue:
        v = queue.popleft()
        for u in reverse.indices[reverse.indptr[v]:reverse.indptr[v + 1]]:
            if not can_end[u]:
                can_end[u] = True
                queue.append(int(u))
    stuck = np.flatnonzero(~can_end)
    seconds = time.perf_counter() - start
    if stuck.size:
        node = int(stuck[np.argmin(np.frombuffer(ex.depth, np.int64)[stuck])])
        return PropertyResult("termination", FAILS, f"{stuck.size} reachable states cannot reach an end",
                              ex.narrate(node, "from here no sequence of moves ends the game"),
                              "graph", seconds)
    if acyclic:
        longest = _longest_path(n, offsets, child)
        return PropertyResult("termination", HOLDS, f"acyclic: every play ends within {longest} moves",
                              kind="graph", seconds=seconds, data={"longest_play": longest})
    only_chance_cycles = True
    cyclic_nodes = np.flatnonzero(np.bincount(label, minlength=n_comp)[label] > 1)
    kinds = np.frombuffer(ex.kind, np.int8)
    if (kinds[cyclic_nodes] >= 0).any():
        only_chance_cycles = False
    detail = ("cycles exist; an end is reachable from every reachable state"
              + (" (cycles pass only through chance, so play ends with probability 1)"
                 if only_chance_cycles else
                 " (players can prolong play around cycles; with chance, optimal play ends with "
                 "probability 1 whenever every cycle loses value)"))
    return PropertyResult("termination", HOLDS, detail, kind="graph", seconds=seconds,
                          data={"cyclic_states": int(cyclic_nodes.size)})


def _longest_path(n: int, offsets: np.ndarray, child: np.ndarray) -> int:
    longest = np.zeros(n, dtype=np.int64)
    # BFS numbering is not topological in general; process by reverse topological order (DFS)
    order, seen = [], np.zeros(n, dtype=bool)
    for root in range(n):
        if seen[root]:
            continue
        stack = [(root, int(offsets[root]))]
        seen[root] = True
        while stack:
            v, e = stack[-1]
            if e < offsets[v + 1]:
                stack[-1] = (v, e + 1)
                c = int(child[e])
                if not seen[c]:
                    seen[c] = True
                    stack.append((c, int(offsets[c])))
            else:
                order.append(v)
                stack.pop()
    for v in order:
        kids = child[offsets[v]:offsets[v + 1]]
        if kids.size:
            longest[v] = 1 + longest[kids].max()
    return int(longest[0])


def verify(spec: GameSpec, ruleset: Ruleset, *, max_states: int | None = None,
           timeout: float | None = None, progress: Callable | None = None) -> VerifyReport:
    start = time.perf_counter()
    limits = Limits.starting_now(max_states, timeout)
    game = spec.build(ruleset)
    limit = max_states if max_states is not None else spec.verify_max_states
    ex = explore(game, max_states=limit, timeout=timeout, progress=progress)
    report = VerifyReport(ruleset, dict(ruleset.params))
    report.states = ex.num_states
    report.properties.extend(exploration_properties(ex))
    report.properties.append(termination_property(ex))
    if spec.checks is not None:
        report.properties.extend(spec.checks(ruleset, limits=limits))
    report.seconds = time.perf_counter() - start
    return report
