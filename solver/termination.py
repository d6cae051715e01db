"""Termination of an explored game graph, and the play that can go on for ever when it fails.

Three claims, strongest first, each checked on the complete graph:

* **acyclic**: every play ends, within the longest path;
* **with probability 1 under every policy**: the graph has cycles, but no *end component* -- no set
  of states where the seats deciding there can keep the play for ever while every chance outcome
  stays inside (computed as maximal end components of the game read as a Markov decision process);
* **an end is reachable from every state**: end components exist, so some choices prolong play for
  ever; the property still holds when every such component needs the choices of two or more seats
  (each alone can end it -- Pig's "hold at 0" passed back and forth), and **fails** when one seat
  alone can prolong play for ever (a move that changes nothing, repeated), or when some reachable
  state cannot reach an end at all.
"""
from __future__ import annotations

import time
from collections import deque

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.results import FAILS, HOLDS, UNKNOWN, PropertyResult

from .solve import scc_levels


def _arrays(ex):
    n = ex.num_states
    offsets = np.frombuffer(ex.offsets, dtype=np.int64)[:n + 1]
    child = np.frombuffer(ex.child, dtype=np.int64)
    source = np.repeat(np.arange(n), np.diff(offsets))
    return n, offsets, child, source


def end_components(ex) -> list[np.ndarray]:
    """The maximal end components of the explored graph (terminal states excluded): each a set of
    nodes where decisions can keep the play inside for ever while every chance outcome stays in."""
    n, _offsets, child, source = _arrays(ex)
    kind = np.frombuffer(ex.kind, np.int8)[:n]
    alive = kind != TERMINAL
    edge_on = alive[source] & alive[child]
    while True:
        graph = csr_matrix((np.ones(int(edge_on.sum()), np.int8), (source[edge_on], child[edge_on])),
                           shape=(n, n))
        _, label = connected_components(graph, directed=True, connection="strong")
        # an edge leaving its component is dropped; a chance node with such an edge (or one to a
        # state already out) leaves, and so does a decision node left without an edge inside
        inside = edge_on & (label[source] == label[child])
        leaks = np.zeros(n, bool)
        leaks[source[(~inside) & (kind[source] == CHANCE)]] = True
        has_inside = np.zeros(n, bool)
        has_inside[source[inside]] = True
        drop = alive & (leaks | ~has_inside)
        if not drop.any():
            break
        alive &= ~drop
        edge_on = inside & alive[source] & alive[child]
    groups: dict[int, list[int]] = {}
    for v in np.flatnonzero(alive):
        groups.setdefault(int(label[v]), []).append(int(v))
    return [np.array(g) for g in groups.values()]


def deciders(ex, comp: np.ndarray) -> set[int]:
    """The seats that decide inside an end component. On a graph explored up to seat symmetry a
    node's seat is its representative's: the seats are followed from the component's first node
    through each edge's permutation, so a lap that hands the move to another seat counts both."""
    kinds = ex.kind
    if ex.perm is None:
        return {int(kinds[v]) for v in comp if kinds[v] >= 0}
    perms = ex.game.seat_permutations
    n = len(perms[0])
    inside = set(comp.tolist())
    entry = int(comp[0])
    start = tuple(range(n))   # sigma: seat (in the entry's labelling) -> seat at the node
    seen = {(entry, start)}
    queue = deque(seen)
    seats: set[int] = set()
    while queue:
        v, sigma = queue.popleft()
        if kinds[v] >= 0:
            seats.add(sigma.index(int(kinds[v])))
        for e in ex.edges(v):
            c = int(ex.child[e])
            if c not in inside:
                continue
            p = perms[ex.perm[e]]
            nxt = (c, tuple(p[sigma[a]] for a in range(n)))
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seats


def termination_property(ex) -> PropertyResult:
    """Termination of the explored graph (see the module docstring)."""
    start = time.perf_counter()
    if not ex.complete:
        return PropertyResult("termination", UNKNOWN, f"graph incomplete ({ex.stop_reason})", kind="graph")
    n, _offsets, child, source = _arrays(ex)
    graph = csr_matrix((np.ones(len(child), np.int8), (source, child)), shape=(n, n))
    n_comp, label = connected_components(graph, directed=True, connection="strong")
    acyclic = n_comp == n and not (source == child).any()
    kinds = np.frombuffer(ex.kind, np.int8)[:n]
    reverse = graph.T.tocsr()
    can_end = np.zeros(n, dtype=bool)
    queue = deque(int(v) for v in np.flatnonzero(kinds == TERMINAL))
    can_end[list(queue)] = True
    while queue:
        v = queue.popleft()
        for u in reverse.indices[reverse.indptr[v]:reverse.indptr[v + 1]]:
            if not can_end[u]:
                can_end[u] = True
                queue.append(int(u))
    stuck = np.flatnonzero(~can_end)
    depth = np.frombuffer(ex.depth, np.int64)
    if stuck.size:
        node = int(stuck[np.argmin(depth[stuck])])
        return PropertyResult("termination", FAILS, f"{stuck.size} reachable states cannot reach an end",
                              ex.narrate(node, "from here no sequence of moves ends the game"),
                              "graph", time.perf_counter() - start)
    if acyclic:
        _, height, _ = scc_levels(n, source, child)   # the heights solve orders its levels by
        longest = int(height[label[0]])
        return PropertyResult("termination", HOLDS, f"acyclic: every play ends within {longest} moves",
                              kind="graph", seconds=time.perf_counter() - start, data={"longest_play": longest})
    cyclic = int((np.bincount(label, minlength=n_comp)[label] > 1).sum() + ((source == child).sum() > 0))
    components = end_components(ex)
    if not components:
        return PropertyResult("termination", HOLDS,
                              "cycles exist, but every cycle needs chance to stay on it: play ends with "
                              "probability 1 under every policy", kind="graph",
                              seconds=time.perf_counter() - start, data={"cyclic_states": cyclic})
    lone = []
    for comp in components:
        seats = deciders(ex, comp)
        if len(seats) == 1:
            lone.append((comp, next(iter(seats))))
    if lone:
        comp, seat = min(lone, key=lambda cs: int(depth[cs[0]].min()))
        lasso = shortest_lasso(ex, within=set(comp.tolist()),
                               final_note=f"-- {ex.game.seat_name(seat)} alone can repeat this for ever")
        return PropertyResult("termination", FAILS,
                              f"{ex.game.seat_name(seat)} alone can prolong play for ever "
                              f"({len(comp)} states where its choices keep the play going)",
                              lasso, "graph", time.perf_counter() - start, data={"end_components": len(components)})
    example = min(components, key=lambda c: int(depth[c].min()))
    seats = sorted(deciders(ex, example))
    return PropertyResult("termination", HOLDS,
                          f"an end is reachable from every state; play can last for ever only if "
                          f"{' and '.join(ex.game.seat_name(s) for s in seats)} keep choosing to "
                          f"prolong it ({len(components)} such sets of states), each of whom alone "
                          f"can end it; under chance alone play ends with probability 1",
                          kind="graph", seconds=time.perf_counter() - start,
                          data={"cyclic_states": cyclic, "end_components": len(components)})


def shortest_lasso(ex, final_note: str = "", within: set[int] | None = None) -> list[str] | None:
    """A play that can go on for ever: the shortest path from the start to a reachable cycle (one
    inside ``within`` when given), then the shortest cycle through that state, narrated move by
    move; None when the explored graph has no such cycle."""
    if not ex.complete:
        return None
    n, offsets, child, source = _arrays(ex)
    graph = csr_matrix((np.ones(len(child), np.int8), (source, child)), shape=(n, n))
    _, label = connected_components(graph, directed=True, connection="strong")
    sizes = np.bincount(label)
    on_cycle = (sizes[label] > 1)
    on_cycle[source[source == child]] = True
    if within is not None:
        mask = np.zeros(n, bool)
        mask[list(within)] = True
        on_cycle &= mask
    if not on_cycle.any():
        return None
    depth = np.frombuffer(ex.depth, np.int64)
    candidates = np.flatnonzero(on_cycle)
    entry = int(candidates[np.argmin(depth[candidates])])
    comp = label[entry]
    back: dict[int, int] = {}
    queue, found = deque([entry]), None
    while queue and found is None:
        v = queue.popleft()
        for e in range(int(offsets[v]), int(offsets[v + 1])):
            c = int(child[e])
            if label[c] != comp or (within is not None and c not in within):
                continue
            if c == entry:
                found = e
                break
            if c not in back:
                back[c] = e
                queue.append(c)
    if found is None:
        return None
    cycle = [found]
    v = ex.source_of(found)
    while v != entry:
        e = back[v]
        cycle.append(e)
        v = ex.source_of(e)
    cycle.reverse()
    lines = ex.narrate(entry)
    lines.append(f"-- from here the play can repeat for ever ({len(cycle)} moves per lap):")
    game = ex.game
    for step, e in enumerate(cycle, 1):
        src = ex.source_of(e)
        move = game.describe_action(ex.state(src), ex.action[e])
        if ex.prob[e] is not None:
            move += f" (probability {ex.prob[e]})"
        lines.append(f"  {step}. {game.seat_name(int(ex.kind[src]))}: {move} -> "
                     f"{game.describe_state(ex.state(int(child[e])))}")
    lines.append(final_note or "-- back at the state the lap started from")
    return lines
