"""The protocol's promises, checked state by state: one copy, read by ``verify`` (the fast paths
property, on every explored state) and by ``ruleproof.testing.check_game`` (an author's tests).

A game may write its moves several ways for speed -- ``successors``, ``successor_lists``,
``canonical_successors``, ``expand_keys`` over int keys, vectorised invariant screens -- beside
the reference ``legal_actions``/``chance_outcomes``/``apply``. Each fast copy of a rule must give
exactly the reference's moves; these functions return the first difference, in words.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

from .protocol import CHANCE, TERMINAL, Game


def _keys(game: Game, moves) -> list:
    return [(a, p, game.key(t)) for a, p, t in moves]


def state_problem(game: Game, state: Any) -> str | None:
    """The first way ``state`` breaks the protocol or a fast path disagrees with the reference
    moves (None when none does)."""
    seat = game.current_player(state)
    if not (seat in (CHANCE, TERMINAL) or 0 <= seat < game.num_players):
        return f"current_player is {seat!r}, not a seat, chance or the end"
    key = game.key(state)
    if not isinstance(key, (int, tuple)):
        return f"the key {key!r} is not an int or a tuple of ints"
    rebuilt = game.from_key(key)
    if game.key(rebuilt) != key:
        return "from_key(key(state)) has another key"
    if game.current_player(rebuilt) != seat:
        return "the state rebuilt from its key has another player to move"
    if seat == TERMINAL:
        ret = game.returns(state)
        if len(ret) != game.num_players or not all(isinstance(r, Fraction) for r in ret):
            return f"returns {ret!r} are not one Fraction per seat"
        return None
    if seat == CHANCE:
        reference = [(o, p, game.apply(state, o)) for o, p in game.chance_outcomes(state)]
    else:
        reference = [(a, None, game.apply(state, a)) for a in game.legal_actions(state)]
    ref = _keys(game, reference)
    moves = game.successors(state)
    if _keys(game, moves) != ref:
        return _first_difference("successors", _keys(game, moves), "legal moves applied one by one", ref,
                                 game, state)
    if _keys(game, game.successors(rebuilt)) != ref:
        return "the state rebuilt from its key plays differently"
    actions, probs, nexts = game.successor_lists(state)
    listed = [(a, None if probs is None else p, game.key(t))
              for a, p, t in zip(actions, probs if probs is not None else [None] * len(nexts), nexts)]
    if listed != ref or (probs is None) != (seat != CHANCE):
        return _first_difference("successor_lists", listed, "successors", ref, game, state)
    canon, perm = game.canonicalize(state)
    if game.seat_permutations:
        if not 0 <= perm < len(game.seat_permutations):
            return f"canonicalize gives the seat permutation {perm}, out of range"
    elif perm != 0 or game.key(canon) != key:
        return "canonicalize changed a state of a game without seat symmetry"
    if game.key(game.canonicalize(canon)[0]) != game.key(canon):
        return "a representative is not its own representative"
    expected = [(a, p, game.key(c), q) for a, p, s in reference for c, q in [game.canonicalize(s)]]
    got = [(a, p, game.key(c), q) for a, p, c, q in game.canonical_successors(state)]
    if got != expected:
        return _first_difference("canonical_successors", got, "successors canonicalised", expected, game, state)
    return None


def batch_problem(game: Game, keys: Sequence[int]) -> tuple[int, str] | None:
    """``expand_keys`` and the vectorised invariants against ``canonical_successors`` and the
    scalar invariants, on the given canonical int keys: (index of the first key that differs, how),
    or None (also when the game has no batch expansion)."""
    import numpy as np
    arr = np.array(list(keys), np.int64)
    batch = game.expand_keys(arr)
    if batch is None:
        return None
    starts = np.concatenate(([0], np.cumsum(batch.counts)))
    table = (None,) + tuple(game.batch_probabilities)
    for i, key in enumerate(keys):
        state = game.from_key(key)
        seat = game.current_player(state)
        if batch.kind[i] != seat:
            return i, f"expand_keys says {int(batch.kind[i])} is to move, the model {seat}"
        if seat == TERMINAL and batch.returns is not None and \
                game.batch_returns[batch.returns[i]] != game.returns(state):
            return i, "expand_keys names other returns than the model's"
        moves = [] if seat == TERMINAL else game.canonical_successors(state)
        got = [(int(batch.action[e]), table[batch.prob[e]], int(batch.child[e]),
                int(batch.perm[e]) if batch.perm is not None else 0) for e in range(starts[i], starts[i + 1])]
        want = [(a, p, game.key(s), r) for a, p, s, r in moves]
        if got != want:
            return i, _first_difference("expand_keys", got, "canonical_successors", want, game, state)
    for inv in game.invariants():
        if inv.check_keys is not None:
            flagged = inv.check_keys(arr).tolist()
            for i, key in enumerate(keys):
                if flagged[i] != (inv.check(game.from_key(key)) is not None):
                    return i, f"the vectorised check of {inv.name} disagrees with its check"
    return None


def _first_difference(fast: str, got: list, ref_name: str, ref: list, game: Game, state: Any) -> str:
    for i, (g, r) in enumerate(zip(got, ref)):
        if g != r:
            return (f"{fast} differs from {ref_name} at move {i + 1}: "
                    f"{_move_text(game, state, g)} against {_move_text(game, state, r)}")
    return (f"{fast} lists {len(got)} moves, {ref_name} {len(ref)}"
            + (f" (first extra: {_move_text(game, state, (got + ref)[min(len(got), len(ref))])})"))


def _move_text(game: Game, state: Any, move: tuple) -> str:
    try:
        what = game.describe_action(state, move[0])
    except Exception:   # noqa: BLE001 -- a move the model cannot describe is shown raw
        what = repr(move[0])
    prob = f" with probability {move[1]}" if move[1] is not None else ""
    try:
        after = game.describe_state(game.from_key(move[2]))
    except Exception:   # noqa: BLE001
        after = f"key {move[2]!r}"
    return f"'{what}'{prob} -> {after}"
