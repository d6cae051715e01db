"""The typed parts a game declares in its ``GameSpec`` besides its rules: engines that solve it,
what they answer, what a simulation measures, and a deduction from one player's view.

These types hold no solver code, so a game folder can declare its parts without importing the
solver; ``solver.analysis.solve_ruleset`` and ``solver.montecarlo.simulate_ruleset`` run them,
handling the user's limits, output folders, timing and the JSON schema once for every game.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence

from .estimate import Estimate, Figure
from .protocol import Game
from .ruleset import Ruleset

#: what a ``SolveResult``'s values are
MEANINGS = ("optimal", "policy-value", "bound", "near-optimal")

#: ``progress(phase, done, total)``: how far a long solve is (the CLI's progress bar)
Progress = Callable[[str, int, "int | None"], None]


@dataclass(frozen=True)
class SolveOptions:
    """The user's requests and limits for one solve, checked by ``solve_ruleset`` before any
    engine sees them (positive limits, a usable output folder)."""
    exact: bool | None = None          #: True: fractions; False: floats; None: the engine decides
    max_states: int | None = None      #: the user's state cap (None: the engine's own default)
    deadline: float | None = None      #: a ``time.perf_counter()`` value; None: no time limit
    timeout: float | None = None       #: the time limit as the user gave it (for messages)
    out_dir: Path | None = None        #: an existing folder for the engine's files; None: no files
    full: bool = False                 #: play table of every decision state
    check_invariants: bool = True      #: the explorer's invariant checks (scenario runs skip them)
    games: int | None = None           #: games an engine that samples plays (None: its own fixed default)
    seed: int | None = None            #: the seed of those games (None: the engine's default)
    detail: bool = True                #: False: values only (compare, report, sweep skip printable tables)
    #: solutions shared between identical graphs (``solver.graphmemo``; the scenario runner's)
    solve_memo: dict | None = field(default=None, compare=False)

    def remaining(self) -> float | None:
        """Seconds left of the time limit (at least a millisecond), or None without one."""
        return None if self.deadline is None else max(0.001, self.deadline - time.perf_counter())

    def states(self, default: int | None) -> int | None:
        return self.max_states if self.max_states is not None else default


@dataclass(frozen=True)
class SolveResult:
    """What one engine answered. ``values`` per seat (Fractions when ``exact``); ``states`` and
    ``edges`` are those of the engine that answered; ``partial`` the reason a limit stopped it
    (then ``values`` is None); ``extras`` plain JSON values the engine adds; ``solution`` an
    in-memory object for callers that read more (report, sweep), never serialised.

    ``estimates``: each seat's value as a typed ``Estimate`` when the engine knows more than
    "a fraction" or "a float" (a sampled value with its interval, a near-optimal one with its
    regret, a float with its tolerance); None: ``solver.analysis.value_estimates`` derives them
    (exact from fractions; floats as solved, to ``extras["residual"]`` or double rounding).
    ``figures``: other quantities the engine measured (expected length, P(finish first), ...),
    each typed, for ``report``, ``compare`` and ``sweep``."""
    values: tuple[Fraction | float, ...] | None
    meaning: str
    exact: bool
    states: int
    method: str
    edges: int | None = None
    partial: str | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)
    files: tuple[str, ...] = ()
    #: what a value is, when not the game's ``value_meaning`` (a policy's value, a bound)
    value_meaning: str = ""
    solution: Any = field(default=None, compare=False, repr=False)
    estimates: tuple[Estimate, ...] | None = None
    figures: tuple[Figure, ...] = ()

    def __post_init__(self) -> None:
        if self.meaning not in MEANINGS:
            raise ValueError(f"meaning {self.meaning!r} is not one of {MEANINGS}")
        if (self.values is None) != (self.partial is not None):
            raise ValueError("a result has values exactly when it is complete")
        if self.estimates is not None and (self.values is None or len(self.estimates) != len(self.values)):
            raise ValueError("one estimate per seat's value")
        object.__setattr__(self, "extras", MappingProxyType(dict(self.extras)))

    @classmethod
    def stopped(cls, reason: str, states: int, method: str, edges: int | None = None,
                **extras: Any) -> "SolveResult":
        """A result a limit cut short: no values, the reason and how far it got."""
        return cls(None, "optimal", False, states, method, edges, partial=reason, extras=extras)


@dataclass(frozen=True)
class Engine:
    """One way to solve a game. ``applies(ruleset, options)`` is None when it can answer, else the
    one-line reason it cannot; ``solve(ruleset, options, progress)`` answers within the limits.
    ``samples``: its values come from a fixed number of seeded games (``options.games``,
    ``options.seed``), so callers give it no per-solve time budget that could cut the sample
    short (the same figures under any machine load); it writes files (``options.out_dir``) only
    with ``options.detail``, so an answer without detail serves a caller that gave a folder too."""
    name: str
    applies: Callable[[Ruleset, SolveOptions], str | None]
    solve: Callable[[Ruleset, SolveOptions, "Progress | None"], SolveResult]
    samples: bool = False
    #: its solve spreads its own fixed work over the command's two processes (``solver/beside``:
    #: Loira's self-play shares its games), so a caller with several such solves runs them one after
    #: another, each on both cores, rather than two beside each other (uneven ones would leave a
    #: core idle while the longer ends)
    shares_cores: bool = False
    #: a rough, relative estimate of the work ``solve`` does on a ruleset (any unit, cheap to
    #: compute): ``sweep`` starts its heaviest points first on two cores. It orders the work only;
    #: no result depends on it (None: the points in grid order)
    work: Callable[[Ruleset], float] | None = None


@dataclass(frozen=True)
class Play:
    """One finished simulated game, as metrics see it: the last state, each seat's return, the
    number of moves, and every decision made as (seat, action)."""
    final: Any
    returns: tuple
    moves: int
    decisions: Sequence[tuple[int, Any]]


@dataclass(frozen=True)
class Metric:
    """A quantity measured on each simulated play: ``of(game, play)`` is one number, or one per
    seat when ``per_seat``. A ``proportion`` (0 or 1 each play) gets a Wilson interval. ``bounds``:
    the range the quantity can take, ``(low, high)`` or ``bounds(game)`` (a proportion: [0, 1]);
    a sampled interval is clipped to it."""
    name: str
    of: Callable[[Game, Play], Any]
    per_seat: bool = False
    proportion: bool = False
    bounds: "tuple[float, float] | Callable[[Game], tuple[float, float]] | None" = None


@dataclass(frozen=True)
class Simulation:
    """What a game's own playout engine returns: per-seat and overall estimates (each a
    ``{"mean", "ci95", "n"}`` mapping), the policy names per seat, and plain JSON extras."""
    seat_policies: Sequence[str]
    seats: Sequence[Mapping[str, Any]]
    metrics: Mapping[str, Any]
    extras: Mapping[str, Any] = field(default_factory=dict)


#: a game's own playout engine: ``(ruleset, games, seed, policy or None, progress) -> Simulation``
Simulator = Callable[[Ruleset, int, int, "str | None", "Callable[[int, int], None] | None"], Simulation]


@dataclass(frozen=True)
class Deduction:
    """``deduce``: ``run(path)`` reads a position file and returns the JSON document; ``text``
    renders it for the terminal."""
    what: str
    run: Callable[[Path], dict[str, Any]]
    text: Callable[[dict[str, Any]], str]
