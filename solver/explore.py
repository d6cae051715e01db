"""Exhaustive breadth-first exploration of a protocol game.

Builds the reachable state graph in compact arrays (CSR: per node an offset into flat edge
arrays), deduplicating on the canonical key (and on the game's seat symmetry when it declares one).
Every newly reached state is checked against the game's invariants and the protocol's own
conformance rules; because states are numbered in BFS order, the first violation found is at the
smallest depth, so its trace back to the start is a shortest counterexample.
"""
from __future__ import annotations

import gc
import time
from array import array
from fractions import Fraction
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from ruleproof.model.protocol import CHANCE, TERMINAL, Game

from .exploration import Exploration, Progress, Violation
from .exploration import distribution_problem as _distribution_problem
from .runtime import check_alarm

def _returns_problem(ret: tuple, lo_u: Fraction, hi_u: Fraction, const_sum: Fraction | None) -> str:
    if any(not lo_u <= r <= hi_u for r in ret):
        return f"returns {tuple(str(r) for r in ret)} leave [{lo_u}, {hi_u}]"
    if const_sum is not None and sum(ret) != const_sum:
        return f"returns add up to {sum(ret)}, not {const_sum}"
    return ""


#: at most this many distinct returns tuples are remembered as checked (games that intern their
#: returns have a handful; for the others the memo would only cost memory)
_RETURNS_MEMO = 4096


#: a decision node's probability codes and probabilities, sliced from these when it has few moves
_FEW = 64
_ZEROS, _NONES = array("q", [0]) * _FEW, (None,) * _FEW

#: new states checked against the invariants at a time (the screens' arrays stay a few MiB)
_CHECK_BLOCK = 1 << 16
#: with the collector paused, young objects are frozen every this many nodes (a multiple of
#: 1024), and collected first on one such block in ``_GC_SAMPLE`` while no cyclic garbage is found
_GC_FREEZE_EVERY, _GC_SAMPLE = 1 << 16, 16


def _check_states(game: Game, invariants: tuple, states: list, first_node: int,
                  violate: Callable[[str, str, int], None]) -> None:
    """Each invariant's first violation among ``states`` (nodes ``first_node`` on), worded by its
    ``check``; where the invariant has a ``screen_rows``, only the states it cannot vouch for are
    checked one by one."""
    rows = game.state_rows(states) if any(inv.screen_rows for inv in invariants) else None
    for inv in invariants:
        if rows is not None and inv.screen_rows is not None:
            suspects = np.flatnonzero(~inv.screen_rows(rows)).tolist()
        else:
            suspects = range(len(states))
        check = inv.check
        for i in suspects:
            reason = check(states[i])
            if reason is not None:
                violate(inv.name, reason, first_node + i)
                break


def _bfs_tree(n: int, offsets: array, child: array) -> tuple[array, array]:
    """Each node's first reaching edge (-1 for the root) and its depth, from the finished edge
    arrays: nodes are numbered as edges first reach them, so a node's parent edge is the first edge
    into it (computed here once rather than appended per new node in the loop)."""
    edges = np.frombuffer(child, dtype=np.int64) if len(child) else np.zeros(0, np.int64)
    first = np.full(n, len(edges), dtype=np.int64)
    np.minimum.at(first, edges, np.arange(len(edges), dtype=np.int64))
    first[0] = -1
    source = np.repeat(np.arange(n, dtype=np.int64), np.diff(np.frombuffer(offsets, dtype=np.int64)))
    parent = np.zeros(n, dtype=np.int64)
    parent[1:] = source[first[1:]]
    # depths by pointer jumping: after k rounds ``up`` is 2^k steps up (or the root), ``depth`` the
    # steps taken
    depth = np.ones(n, dtype=np.int64)
    depth[0] = 0
    up = parent
    while (up != 0).any():
        depth, up = depth + depth[up], up[up]
    out_parent, out_depth = array("q"), array("q")
    out_parent.frombytes(first.tobytes())
    out_depth.frombytes(depth.tobytes())
    return out_parent, out_depth


def explore(game: Game, *, max_states: int | None = None, timeout: float | None = None,
            check_invariants: bool = True, progress: Progress | None = None,
            progress_every: float = 0.5, batch: bool = True, native: bool | None = None) -> Exploration:
    """Explore every state reachable from ``game.initial_state()``.

    Stops early (``complete=False`` with a ``stop_reason``) at ``max_states`` or after ``timeout``
    seconds; the graph explored so far is returned either way. Games that expand int keys in
    batches (``Game.expand_keys``) are explored level by level in numpy unless ``batch=False``;
    the state limit is then checked between BFS levels, and ``native`` says whether their key index
    is the C hash table (None: where it can be built; False: the numpy sorted array).
    """
    # the graph only grows while exploring, and the automatic cyclic garbage collector would keep
    # rescanning it (10-15% of the time on Loira): it is paused, and every 65,536 nodes
    # (``_GC_FREEZE_EVERY``) the young objects are frozen; all undone however this ends. Collecting
    # each young block first cost ~10% (1.6 of 14.7 CPU s on the 10-card Loira round, which makes
    # no cyclic garbage), so that runs on one block in 16 while it finds no cyclic garbage, and on
    # every block once it does; garbage frozen uncollected is collected after exploring
    pause = gc.isenabled() and gc.get_freeze_count() == 0
    if pause:
        gc.disable()
    try:
        return _explore(game, max_states, timeout, check_invariants, progress, progress_every, batch,
                        pause, native)
    finally:
        if pause:
            gc.unfreeze()
            gc.enable()


def _explore(game: Game, max_states: int | None, timeout: float | None, check_invariants: bool,
             progress: Progress | None, progress_every: float, batch: bool,
             pause_gc: bool, native: bool | None) -> Exploration:
    start = time.perf_counter()
    if batch:
        root_key = game.key(game.canonicalize(game.initial_state())[0])
        if isinstance(root_key, int) and game.expand_keys(np.array([root_key], np.int64)) is not None:
            from .explore_batch import explore_levels
            return explore_levels(game, root_key, max_states=max_states, timeout=timeout,
                                  check_invariants=check_invariants, progress=progress, start=start,
                                  native=native)
    invariants = tuple(game.invariants()) if check_invariants else ()
    symmetric = len(game.seat_permutations) > 1
    state_is_key = game.state_is_key
    key_of, canonicalize, successors = game.key, game.canonicalize, game.successors
    canonical_successors = game.canonical_successors
    current_player, lo_u, hi_u = game.current_player, game.min_utility, game.max_utility
    const_sum = game.constant_sum

    root = game.initial_state()
    if symmetric:
        root, _ = canonicalize(root)
    root_key = root if state_is_key else key_of(root)
    keys: list[Hashable] = [root_key]
    index: dict[Hashable, int] = {root_key: 0}
    pending: dict[int, Any] = {} if state_is_key else {0: root}
    kind, offsets, child = array("b"), array("q", [0]), array("q")
    actions: list[Any] = []
    probs: list[Fraction | None] = []
    perms = array("b") if symmetric else None
    returns: dict[int, tuple[Fraction, ...]] = {}
    violations: dict[str, Violation] = {}

    def violate(name: str, reason: str, node: int) -> None:
        if name not in violations:
            violations[name] = Violation(name, reason, node)

    # new states are checked in blocks (``_CHECK_BLOCK``, in node order, so each invariant's first
    # violation is still its smallest node): a game's ``state_rows`` and the invariants'
    # ``screen_rows`` then vouch for most states in a few array operations. The states of nodes
    # ``first_unchecked`` on are the keys themselves (games whose states are keys) or are kept in
    # ``unchecked`` meanwhile
    unchecked: list[Any] = [root] if invariants and not state_is_key else []
    first_unchecked = 0 if invariants else 1 << 62

    def check_block(upto: int) -> None:
        nonlocal first_unchecked
        if upto > first_unchecked:
            _check_states(game, tuple(inv for inv in invariants if inv.name not in violations),
                          keys[first_unchecked:upto] if state_is_key else unchecked, first_unchecked,
                          violate)
            first_unchecked = upto
            unchecked.clear()

    checked_distributions: dict[tuple[int, ...], tuple] = {}
    checked_objects: dict[int, tuple] = {}   # id(probabilities object) -> (it, codes)

    def chance_codes(distribution: Sequence, node: int) -> list[int]:
        """The probability codes of a chance node's moves; each distinct distribution (by the
        identity of its Fractions: the memo holds them, so their ids cannot be reused meanwhile)
        is checked once."""
        signature = tuple(map(id, distribution))
        known = checked_distributions.get(signature)
        if known is not None:
            return known[1]
        distribution = tuple(distribution)
        problem = _distribution_problem(distribution)
        if problem:
            violate("chance-distribution", problem, node)
        codes = []
        for p in distribution:
            if id(p) not in prob_ids:
                prob_ids[id(p)] = len(prob_table) + 1
                prob_table.append(p)
            codes.append(prob_ids[id(p)])
        checked_distributions[signature] = (distribution, codes)
        return codes

    # id(returns) -> (returns, problem): the memo holds the tuple, so its id cannot be reused
    checked_returns: dict[int, tuple[tuple, str]] = {}
    prob_code, prob_table, prob_ids = array("q"), [], {}
    complete, stop_reason = True, ""
    next_report = start + progress_every
    node = 0
    state_limit = max_states if max_states is not None else float("inf")
    # bound methods: this loop runs once per edge, so attribute look-ups add up
    child_append, keys_append, index_setdefault = child.append, keys.append, index.setdefault
    actions_append, probs_append = actions.append, probs.append
    actions_extend, probs_extend = actions.extend, probs.extend
    # games whose states are their keys, without symmetry, that build their moves as lists
    plain_keys = (state_is_key and not symmetric
                  and type(game).successor_lists is not Game.successor_lists)
    successor_lists = game.successor_lists
    n_keys = len(keys)
    perms_append = perms.append if symmetric else None
    unchecked_append = unchecked.append
    returns_of = game.returns
    cyclic_garbage = False   # whether a collection of young objects found any (see ``explore``)
    freeze_mask, sample_mask = _GC_FREEZE_EVERY - 1, _GC_FREEZE_EVERY * _GC_SAMPLE - 1
    while node < n_keys:
        if n_keys > state_limit:
            complete, stop_reason = False, f"state limit {max_states} reached"
            break
        if node & 1023 == 0:
            if n_keys - first_unchecked >= _CHECK_BLOCK:
                check_block(n_keys)
            if pause_gc and node & freeze_mask == 0:
                if cyclic_garbage or node & sample_mask == 0:
                    if gc.collect(1):
                        cyclic_garbage = True
                gc.freeze()
                check_alarm()   # an alarm that fired inside a gc callback raised nothing there
            now = time.perf_counter()
            if timeout is not None and now - start > timeout:
                complete, stop_reason = False, f"time limit {timeout:g} s reached"
                break
            if progress is not None and now >= next_report:
                progress(n_keys, n_keys - node, now - start)
                next_report = now + progress_every
        state = keys[node] if state_is_key else pending.pop(node)
        seat = current_player(state)
        kind.append(seat)
        if seat == TERMINAL:
            ret = returns_of(state)
            returns[node] = ret
            memo = checked_returns.get(id(ret))
            if memo is not None and memo[0] is ret:
                problem = memo[1]
            else:
                problem = _returns_problem(ret, lo_u, hi_u, const_sum)
                if len(checked_returns) < _RETURNS_MEMO:
                    checked_returns[id(ret)] = (ret, problem)
            if problem:
                violate("utility-bounds", problem, node)
            offsets.append(len(child))
            node += 1
            continue
        if plain_keys:   # the commonest case, unrolled: states are their keys, no symmetry
            moves, dist, nexts = successor_lists(state)
            if not nexts:
                violate("legal-actions", "a non-terminal state has no legal move", node)
            if seat == CHANCE:
                # a distribution returned as the same object is checked and coded once (the memo
                # holds it, so its id cannot be reused meanwhile)
                known = checked_objects.get(id(dist))
                if known is not None and known[0] is dist:
                    prob_code.extend(known[1])
                else:
                    codes = chance_codes(dist, node)
                    prob_code.extend(codes)
                    if len(checked_objects) < _RETURNS_MEMO:
                        checked_objects[id(dist)] = (dist, codes)
                probs_extend(dist)
            elif len(nexts) <= _FEW:
                prob_code.extend(_ZEROS[:len(nexts)])
                probs_extend(_NONES[:len(nexts)])
            else:
                prob_code.extend([0] * len(nexts))
                probs_extend([None] * len(nexts))
            actions_extend(moves)
            for nxt in nexts:
                target = index_setdefault(nxt, n_keys)   # one hash of the key, new or not
                if target == n_keys:
                    n_keys += 1
                    keys_append(nxt)
                child_append(target)
            offsets.append(len(child))
            node += 1
            continue
        moves = canonical_successors(state) if symmetric else successors(state)
        if not moves:
            violate("legal-actions", "a non-terminal state has no legal move", node)
        if seat == CHANCE:
            prob_code.extend(chance_codes([m[1] for m in moves], node))
        else:
            prob_code.extend([0] * len(moves))
        for move in moves:
            nxt = move[2]
            if symmetric:
                perms_append(move[3])
            k = nxt if state_is_key else key_of(nxt)
            target = index_setdefault(k, n_keys)   # one hash of the key, new or not
            if target == n_keys:
                n_keys += 1
                keys_append(k)
                if not state_is_key:
                    pending[target] = nxt
                if invariants and not state_is_key:
                    unchecked_append(nxt)
            child_append(target)
            actions_append(move[0])
            probs_append(move[1])
        offsets.append(len(child))
        node += 1
    check_block(n_keys)
    if not complete:
        # nodes never expanded keep no edges; mark them so solvers can refuse a partial graph
        while len(kind) < len(keys):
            kind.append(CHANCE)
            offsets.append(len(child))
    parent_edge, depth = _bfs_tree(len(keys), offsets, child)
    return Exploration(game, keys, kind, offsets, child, actions, probs, prob_code, prob_table,
                       perms, parent_edge, depth,
                       returns, violations, complete, stop_reason, time.perf_counter() - start)
