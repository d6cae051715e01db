"""Solve each distinct state graph once: a memo keyed by a fingerprint of everything ``solve`` reads.

``rulings check`` solves the same small configuration under every alternative reading; a reading
the configuration never exercises explores to the very same graph as the default one, so its
values are the same. The fingerprint hashes the graph itself (node kinds, edges in order, chance
probabilities, terminal returns, seat symmetry, the constant sum and the one violation the solver
consults), never the ruleset, so a reading that changes anything the solver sees gets a solve of
its own.
"""
from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

from .explore import Exploration


def fingerprint(ex: Exploration) -> str:
    """A digest of the graph as ``solver.solve.solve`` sees it (equal digests: equal solutions)."""
    game = ex.game
    h = hashlib.sha256()

    def part(tag: str, data: bytes) -> None:
        # length-prefixed, so no two different sequences of parts hash alike
        h.update(f"{tag}:{len(data)}:".encode())
        h.update(data)
    part("head", repr((ex.num_states, ex.complete, game.num_players, str(game.constant_sum),
                       tuple(map(tuple, game.seat_permutations)),
                       "utility-bounds" in ex.violations)).encode())
    part("kind", ex.kind.tobytes())
    part("offsets", ex.offsets.tobytes())
    part("child", ex.child.tobytes())
    part("prob_code", ex.prob_code.tobytes())
    part("prob_table", repr([str(p) for p in ex.prob_table]).encode())
    part("perm", b"-" if ex.perm is None else ex.perm.tobytes())
    part("returns", repr(sorted((node, tuple(map(str, ret))) for node, ret in ex.returns.items())).encode())
    return h.hexdigest()


def memo_solve(ex: Exploration, memo: dict[Any, Any] | None, **options: Any):
    """``solve(ex, **options)``, reusing the solution of an identical graph solved with the same
    options when ``memo`` is given (the copy points at this exploration, for its descriptions)."""
    from .solve import solve
    if memo is None:
        return solve(ex, **options)
    key = (fingerprint(ex), tuple(sorted((k, v) for k, v in options.items() if k != "progress")))
    kept = memo.get(key)
    if kept is None:
        sol = solve(ex, **options)
        memo[key] = dataclasses.replace(sol, exploration=None)   # the memo does not keep graphs alive
        return sol
    return dataclasses.replace(kept, exploration=ex, seconds=0.0)
