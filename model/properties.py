"""Properties as data: the one seam through which a game tells ``verify`` what to check.

A :class:`Property` is a name, the rule sentence it checks (quoted with its source, so a reader
can see which sentence a failure breaks), the evidence it can run on, and one ``check(ctx)``.
``verify`` (``solver.verify``) is a scheduler: it decides, from what each property needs and from
the budget, which evidence to give it -- the complete exploration of the configuration, seeded
sampled plays of a configuration too big to explore, or nothing but the ruleset's own parameters
-- and hands it over in a :class:`Context`. A property never explores or samples by itself, so the
same check runs unchanged on the small configuration, on each derived configuration and at full
size, and its evidence label says which of these it read.

Games declare their properties in their proof file (``proofs/<game>.py``: ``properties(ruleset,
game)``) and their derived configurations (smaller configurations that keep an edit) as
:class:`Derived` entries; both are named in the game's ``GameSpec``.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from .limits import NO_LIMITS, Limits
from .protocol import TERMINAL, Game
from .results import EXHAUSTIVE, SAMPLED, PropertyResult
from .ruleset import Ruleset
from .sampling import Step, narrate_play, random_play

if TYPE_CHECKING:
    from .spec import GameSpec

#: the evidence a property can be given
NOTHING = "nothing"          #: the ruleset's own parameters (Z3 on them, a closed form)
EXPLORATION = "exploration"  #: every reachable state and transition of one configuration
SAMPLES = "samples"          #: seeded plays of a configuration too big to explore (not a proof)
SOURCES = (NOTHING, EXPLORATION, SAMPLES)
#: an exploration's transitions are recomputed once and kept for the next property that reads
#: them when it has at most this many states (each proof of a game reads every move)
CACHE_TRANSITIONS_UP_TO = 100_000
_TRANSITIONS = "transitions"


@dataclass(frozen=True)
class Property:
    """One checked claim about a game's rules.

    ``needs`` lists the evidence the check can read, preferred first: ``(NOTHING,)`` for a proof
    on the parameters alone, ``(EXPLORATION,)`` for a check that needs every state (a graph
    property), ``(EXPLORATION, SAMPLES)`` for one that can also run, weaker, on sampled plays.
    ``check`` returns one result or several (one per board, per seat, ...); their evidence labels
    must say what was read (``Context.evidence``)."""
    name: str
    sentence: str
    needs: tuple[str, ...]
    check: Callable[["Context"], "PropertyResult | Sequence[PropertyResult]"]
    #: the most explored states it reads one by one in Python; a bigger exploration gives it sampled
    #: plays instead when it can read them (a fixed amount of work, whatever the machine's load)
    max_states: int | None = None

    def __post_init__(self) -> None:
        if not self.needs or any(n not in SOURCES for n in self.needs):
            raise ValueError(f"property {self.name!r}: needs must be a non-empty tuple of {SOURCES}")


@dataclass(frozen=True)
class Derived:
    """A smaller configuration that keeps an edit (``label``: what it keeps, for the reader).
    ``always``: explored beside the ruleset even when the ruleset itself fits (a companion the
    game wants checked every time: a mission with yellow wires, the official boards).
    ``properties``: the names of the properties checked on it (None: every one) -- a companion
    explored for a few graph properties need not pay for every proof's mapping.
    ``pair``: for a companion about configurations beside the ruleset's own, not a smaller copy of
    it (Presentes' other official boards), what it stands for ("official board longa"): a comparison
    checks it on one side only when the other side derives a companion with the same ``pair`` --
    with the other side's dice and rulings, so an edit of those is still compared there -- since a
    verdict with nothing to face says nothing of the edit. Empty: not paired."""
    label: str
    ruleset: Ruleset
    always: bool = False
    properties: tuple[str, ...] | None = None
    pair: str = ""


@dataclass(frozen=True)
class Transition:
    """One real move: the state before, the move (action or chance outcome), its probability
    (None for a decision), the state after, and how to narrate a shortest play reaching it."""
    before: Any
    move: Any
    prob: Any
    after: Any
    narrate: Callable[[], list[str]]


@dataclass
class Context:
    """What one property check is given. Exactly one of ``exploration`` (complete) and ``plays``
    is set, or neither (``source == NOTHING``)."""
    spec: "GameSpec"
    ruleset: Ruleset
    game: Game
    #: the configuration's label (ruleset name and what differs from the defaults)
    label: str
    source: str = NOTHING
    exploration: Any = None
    #: sampled plays, each a list of (state, move, next state) steps, drawn with ``seed``
    plays: Sequence[Sequence[Step]] | None = None
    seed: int = 0
    limits: Limits = NO_LIMITS
    #: the derived configuration's label when this is one, else None (the ruleset itself)
    derived: str | None = None
    cache: dict = field(default_factory=dict)

    @property
    def evidence(self) -> str:
        """The ``kind`` a result read off this context carries (exhaustive or sampled)."""
        return SAMPLED if self.source == SAMPLES else EXHAUSTIVE

    @property
    def scope(self) -> str:
        """What the evidence covers, in words."""
        where = f"derived: {self.derived}" if self.derived else self.label
        if self.source == EXPLORATION:
            return f"{where}: {self.exploration.num_states:,} states"
        if self.source == SAMPLES:
            return f"{where}: {len(self.plays):,} sampled plays (seed {self.seed})"
        return where

    def states(self) -> Iterator[tuple[Any, Callable[[], list[str]]]]:
        """Every state of the evidence with a narration of a play reaching it."""
        if self.source == EXPLORATION:
            ex = self.exploration
            for node in range(ex.num_states):
                yield ex.state(node), (lambda node=node: ex.narrate(node))
        elif self.source == SAMPLES:
            game = self.game
            yield game.initial_state(), (lambda: [f"start: {game.describe_state(game.initial_state())}"])
            for i, steps in enumerate(self.plays):
                for j, (_s, _a, t) in enumerate(steps):
                    yield t, (lambda steps=steps, j=j, i=i:
                              narrate_play(game, steps, j + 1, f"sampled play {i + 1} (seed {self.seed})"))

    def transitions(self) -> Iterator[Transition]:
        """Every move of the evidence: on an exploration, every move of every state -- the
        explorer's own edges for a game without seat symmetry (the fast-paths property ties them to
        the reference moves), else recomputed by the model's ``successors`` (so the symmetry hides
        no move)."""
        game = self.game
        if self.source == EXPLORATION:
            cached = self.cache.get(_TRANSITIONS)
            if cached is not None:   # several properties read one small exploration's moves
                yield from cached
                return
            ex = self.exploration
            if ex.perm is None and not game.seat_permutations:
                yield from self._explored_edges(ex)
                return
            keep: list[Transition] | None = [] if ex.num_states <= CACHE_TRANSITIONS_UP_TO else None
            for node in range(ex.num_states):
                if ex.kind[node] == TERMINAL:
                    continue
                state = ex.state(node)
                for move, p, nxt in game.successors(state):
                    tr = Transition(state, move, p, nxt, lambda node=node: ex.narrate(node))
                    if keep is not None:
                        keep.append(tr)
                    yield tr
            if keep is not None:
                self.cache[_TRANSITIONS] = keep
        elif self.source == SAMPLES:
            for i, steps in enumerate(self.plays):
                for j, (s, a, t) in enumerate(steps):
                    yield Transition(s, a, None, t, lambda steps=steps, j=j, i=i:
                                     narrate_play(game, steps, j, f"sampled play {i + 1} (seed {self.seed})"))

    @staticmethod
    def _explored_edges(ex) -> Iterator[Transition]:
        kind, offsets, child, action, prob = ex.kind, ex.offsets, ex.child, ex.action, ex.prob
        for node in range(ex.num_states):
            if kind[node] == TERMINAL:
                continue
            state = ex.state(node)
            narrate = (lambda node=node: ex.narrate(node))
            for e in range(offsets[node], offsets[node + 1]):
                yield Transition(state, action[e], prob[e], ex.state(child[e]), narrate)

    def result(self, name: str, status: str, detail: str, counterexample: list[str] | None = None,
               **extra: Any) -> PropertyResult:
        """A result read off this context's evidence (its kind and scope filled in)."""
        return PropertyResult(name, status, detail, counterexample, extra.pop("kind", self.evidence),
                              scope=extra.pop("scope", self.scope), **extra)


def draw_plays(game: Game, plays: int, seed: int, limits: Limits = NO_LIMITS,
               progress: Callable[[int, int], None] | None = None) -> list[list[Step]]:
    """``plays`` seeded plays (uniform decisions, chance by its probabilities), fewer if the time
    limit comes first; the same seed gives the same plays."""
    rng = random.Random(seed)
    max_moves = game.max_game_length or 100_000
    out: list[list[Step]] = []
    for i in range(plays):
        if limits.expired():
            break
        if progress is not None and i % 50 == 0:
            progress(i, plays)
        out.append(random_play(game, rng, max_moves))
    return out
