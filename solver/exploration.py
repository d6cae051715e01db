"""What an exploration is: the reachable state graph in compact arrays, the violations found on
it, and the checks of a chance distribution that both explorers (``explore``, one state at a
time, and ``explore_batch``, level by level) apply. Kept apart from both so that neither imports
the other's module to name them."""
from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Hashable

from ruleproof.model.protocol import Game

Progress = Callable[[int, int, float], None]  # (states, pending, seconds)


@dataclass
class Violation:
    name: str
    reason: str
    node: int


@dataclass
class Exploration:
    game: Game
    keys: list[Hashable]
    kind: array                  # seat, CHANCE or TERMINAL per node
    offsets: array               # edges of node i are offsets[i]:offsets[i+1]
    child: array                 # edge -> node
    action: list[Any]            # edge -> action (or chance outcome)
    prob: list[Fraction | None]  # edge -> probability (chance edges) or None
    prob_code: array             # edge -> 0 for decisions, else 1 + index into prob_table
    prob_table: list[Fraction]   # the distinct probability objects met
    perm: array | None           # edge -> seat-permutation index (symmetric games only)
    parent_edge: array           # node -> the edge that first reached it (-1 for the root)
    depth: array
    returns: dict[int, tuple[Fraction, ...]]
    violations: dict[str, Violation] = field(default_factory=dict)
    complete: bool = True
    stop_reason: str = ""
    seconds: float = 0.0

    @property
    def num_states(self) -> int:
        return len(self.keys)

    @property
    def num_edges(self) -> int:
        return len(self.child)

    def state(self, node: int):
        key = self.keys[node]
        return key if self.game.state_is_key else self.game.from_key(key)

    def edges(self, node: int) -> range:
        return range(self.offsets[node], self.offsets[node + 1])

    def source_of(self, edge: int) -> int:
        """The node an edge leaves (binary search over offsets)."""
        lo, hi = 0, self.num_states - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.offsets[mid] <= edge:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def path_to(self, node: int) -> list[int]:
        """Edges from the root to ``node`` along the BFS tree (a shortest path)."""
        edges = []
        while self.parent_edge[node] >= 0:
            edge = self.parent_edge[node]
            edges.append(edge)
            node = self.source_of(edge)
        return edges[::-1]

    def narrate(self, node: int, final_note: str = "") -> list[str]:
        """A readable move-by-move trace from the start to ``node``."""
        game = self.game
        lines = [f"start: {game.describe_state(self.state(0))}"]
        for step, edge in enumerate(self.path_to(node), 1):
            src = self.source_of(edge)
            state = self.state(src)
            who = game.seat_name(int(self.kind[src]))
            move = game.describe_action(state, self.action[edge])
            if self.prob[edge] is not None:
                move += f" (probability {self.prob[edge]})"
            lines.append(f"{step}. {who}: {move} -> {game.describe_state(self.state(self.child[edge]))}")
        if final_note:
            lines.append(final_note)
        return lines


def distribution_problem(distribution: tuple) -> str:
    total = Fraction(0)
    for p in distribution:
        if not isinstance(p, Fraction) or p <= 0:
            return f"chance outcome with probability {p!r} (must be a positive Fraction)"
        total += p
    return "" if total == 1 else f"chance probabilities add up to {total}"
