"""The game protocol: the one interface every game implements and the solver sees.

A game is a finite extensive-form game with explicit chance nodes:

* ``initial_state()`` returns an immutable, hashable state;
* ``current_player(s)`` is a seat (0..n-1), ``CHANCE`` or ``TERMINAL``;
* ``legal_actions(s)`` lists a decision node's actions in a stable (ascending) order;
* ``chance_outcomes(s)`` lists ``(outcome, Fraction probability)`` pairs, all positive, summing to 1;
* ``apply(s, a)`` returns the successor state (never mutates ``s``);
* ``returns(s)`` gives a terminal state's utility per seat as ``Fraction``;
* ``observation(s, seat)`` is what that seat may know (hidden-information games override it);
* ``key(s)`` is a canonical compact key (an int or a tuple of ints) used for deduplication, and
  ``from_key(k)`` rebuilds the state, so that ``from_key(key(s))`` has the same key as ``s``;
* ``describe_state`` / ``describe_action`` narrate counterexample traces and play tables.

Actions and chance outcomes are small hashable values (ints, or tuples of ints) so that graphs
and tables can store them. Invariants are named predicates over states, shared by the explorer,
the tests and the Z3 proofs.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Callable, ClassVar, Hashable, Sequence

if TYPE_CHECKING:
    import numpy as np

State = Hashable
Action = Hashable
Key = int | tuple[int, ...]
Seat = int

CHANCE: Seat = -1
TERMINAL: Seat = -2


@dataclass(frozen=True)
class Invariant:
    """A named predicate that must hold in every reachable state.

    ``check(state)`` returns ``None`` when the state is fine, or a short reason when it is not.
    """

    name: str
    description: str
    check: Callable[[State], str | None]
    #: optional vectorised form for games with int keys (see ``Game.expand_keys``): given an int64
    #: array of keys, a boolean array, True where the invariant fails (``check`` gives the reason)
    check_keys: Callable[["np.ndarray"], "np.ndarray"] | None = None
    #: optional cheap screen of many states at once (see ``Game.state_rows``): given their rows, a
    #: boolean array, True where ``check`` would surely find nothing; the explorer calls ``check``
    #: (which words the reason) on the other states only
    screen_rows: Callable[["np.ndarray"], "np.ndarray"] | None = None


@dataclass(frozen=True)
class KeyBatch:
    """Every move of many states at once (``Game.expand_keys``); edges are grouped by state, in
    the order ``canonical_successors`` lists them."""

    kind: "np.ndarray"          #: per state: seat, CHANCE or TERMINAL
    counts: "np.ndarray"        #: per state: number of edges (0 for a terminal)
    child: "np.ndarray"         #: per edge: canonical key of the next state (int64)
    action: "np.ndarray"        #: per edge: the action or chance outcome (int64)
    prob: "np.ndarray"          #: per edge: 0 for a decision, else 1 + index into batch_probabilities
    perm: "np.ndarray | None"   #: per edge: the seat permutation index (symmetric games), else None
    #: optional, per state: for a terminal, its returns as an index into ``Game.batch_returns``
    #: (None: the explorer asks ``returns`` of each terminal)
    returns: "np.ndarray | None" = None


class Game(ABC):
    """One game under one ruleset and one configuration (players, parameters).

    The declarative header mirrors OpenSpiel's: players, utility bounds, whether it is
    constant-sum, and a bound on the game's length when one is known.
    """

    name: ClassVar[str]
    num_players: int
    min_utility: Fraction = Fraction(0)
    max_utility: Fraction = Fraction(1)
    #: utilities of every terminal state add up to this constant (None: not constant-sum)
    constant_sum: Fraction | None = None
    #: an upper bound on the number of moves (decisions and chance events), if known
    max_game_length: int | None = None

    @abstractmethod
    def initial_state(self) -> State: ...

    @abstractmethod
    def current_player(self, state: State) -> Seat: ...

    @abstractmethod
    def legal_actions(self, state: State) -> Sequence[Action]: ...

    @abstractmethod
    def chance_outcomes(self, state: State) -> Sequence[tuple[Action, Fraction]]: ...

    @abstractmethod
    def apply(self, state: State, action: Action) -> State: ...

    @abstractmethod
    def returns(self, state: State) -> tuple[Fraction, ...]: ...

    @abstractmethod
    def key(self, state: State) -> Key: ...

    @abstractmethod
    def from_key(self, key: Key) -> State: ...

    def observation(self, state: State, seat: Seat) -> Hashable:
        """What ``seat`` may know of ``state``; perfect-information games show everything."""
        return self.key(state)

    def is_terminal(self, state: State) -> bool:
        return self.current_player(state) == TERMINAL

    def describe_state(self, state: State) -> str:
        return repr(state)

    def describe_action(self, state: State, action: Action) -> str:
        return repr(action)

    def invariants(self) -> Sequence[Invariant]:
        return ()

    # --- play tables (solver/tables.py) -------------------------------------------------------------
    #: what a seat's value means, in the game's own words (play tables and reports say it)
    value_meaning: str = "the mover's expected utility under optimal play"

    def features(self, state: State) -> dict[str, int | float | str | bool] | None:
        """The state as typed columns a player can read and filter on (mover-relative where the
        game has symmetry); the same names and types for every decision state of one game.
        ``None`` (the default): the play table falls back to the prose ``describe_state``."""
        return None

    # --- optional speed-ups and symmetry (the defaults are always correct) ------------------------
    #: True when states are their own canonical keys (then ``key`` and ``from_key`` are identities)
    state_is_key: bool = False
    #: seat permutations used by ``canonicalize``; index 0 must be the identity
    seat_permutations: tuple[tuple[int, ...], ...] = ()

    def successors(self, state: State) -> list[tuple[Action, Fraction | None, State]]:
        """``(action, probability or None for a decision, next state)`` for every move from ``state``.

        Must agree with ``legal_actions``/``chance_outcomes``/``apply``; games may override it with a
        faster equivalent (the conformance test checks that they agree).
        """
        if self.current_player(state) == CHANCE:
            return [(o, p, self.apply(state, o)) for o, p in self.chance_outcomes(state)]
        return [(a, None, self.apply(state, a)) for a in self.legal_actions(state)]

    def successor_lists(self, state: State) -> tuple[Sequence[Action], Sequence[Fraction] | None,
                                                      Sequence[State]]:
        """``successors`` as three parallel sequences: the actions (or chance outcomes), their
        probabilities (``None`` at a decision) and the next states. Games that build their moves
        this way may override it (the explorer then skips a tuple per move, and checks a chance
        distribution returned as the same probabilities object once); the conformance test
        checks that it agrees with ``successors``."""
        moves = self.successors(state)
        probs = [m[1] for m in moves] if self.current_player(state) == CHANCE else None
        return [m[0] for m in moves], probs, [m[2] for m in moves]

    def canonicalize(self, state: State) -> tuple[State, int]:
        """A symmetric representative of ``state`` and the index of the seat permutation ``perm``
        such that ``value(state)[seat] == value(representative)[perm[seat]]`` for every seat.
        The default has no symmetry: the state itself and the identity (index 0)."""
        return state, 0

    def canonical_successors(self, state: State) -> list[tuple[Action, Fraction | None, State, int]]:
        """``successors`` with each next state replaced by ``canonicalize``'s representative and
        permutation index; symmetric games may override it to build representatives directly."""
        canonicalize = self.canonicalize
        return [(a, p) + canonicalize(s) for a, p, s in self.successors(state)]

    #: the probabilities ``expand_keys`` refers to by index
    batch_probabilities: tuple[Fraction, ...] = ()
    #: the returns ``expand_keys`` refers to by index (``KeyBatch.returns``)
    batch_returns: tuple[tuple[Fraction, ...], ...] = ()

    def expand_keys(self, keys: "np.ndarray") -> KeyBatch | None:
        """Optional, for games whose keys are non-negative ints (int64): ``canonical_successors`` of
        many states at once, given and returning keys, so the explorer can run level by level in
        numpy. ``None`` (the default) when this configuration does not support it. Must agree with
        ``canonical_successors`` edge for edge (the conformance test checks it)."""
        return None

    def state_rows(self, states: Sequence[State]) -> "np.ndarray | None":
        """Optional: ``states`` as the rows of a small-int matrix, for the invariants'
        ``screen_rows``; ``None`` (the default, or when some state does not fit) screens nothing."""
        return None

    def seat_name(self, seat: Seat) -> str:
        return {CHANCE: "chance", TERMINAL: "end"}.get(seat, f"seat {seat}")
