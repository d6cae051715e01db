"""GameSpec: everything the tool knows about one game, gathered in the game's own folder.

A game folder (``model/<game>/``) defines ``SPEC = GameSpec(...)`` in its ``__init__.py`` and keeps
its built-in rulesets as TOML files in ``rulesets/``. The CLI and the solver reach a game only
through its spec, the :class:`~model.protocol.Game` it builds, and the typed parts it declares
(engines, policies, metrics, pictures, checks, a deduction: ``model/seams.py``).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from .protocol import Game
from .ruleset import RulesSchema, Ruleset, RulesetError
from .seams import Deduction, Engine, Metric, Simulator

if TYPE_CHECKING:
    from ruleproof.model.properties import Derived, Property
    from ruleproof.solver.solve import Solution
    from ruleproof.solver.tables import PolicySummary


#: the parts a game may name as ``"module:attr"`` strings, imported on first use (in the manner of
#: Gymnasium's entry points): a game's ``__init__`` then imports nothing heavy and needs no wrappers
LAZY_PARTS = frozenset({"build", "properties", "derived", "engines", "policies", "optimal_policy",
                        "metrics", "simulator", "picture", "policy_summary", "deduction",
                        "configuration_key"})


@cache
def resolve(ref: str) -> Any:
    """The object a ``"package.module:attr.sub"`` reference names."""
    module, _, attr = ref.partition(":")
    obj = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class GameSpec:
    name: str
    title: str
    summary: str
    schema: RulesSchema
    #: folder holding the built-in rulesets (``<name>.toml`` each)
    rulesets_dir: Path
    default_ruleset: str
    #: build the protocol game for a ruleset
    build: Callable[[Ruleset], Game]
    #: parameter overrides giving the default small configuration that ``verify`` explores
    verify_overrides: Mapping[str, Any] = field(default_factory=dict)
    #: the game's properties (``model.properties.Property``) for a ruleset and the game built from
    #: it: its Z3 proofs bound to the model and its state and graph checks; ``verify`` schedules
    #: them with the core properties every game gets (invariants, protocol, termination, fast paths)
    properties: Callable[[Ruleset, Game], Sequence["Property"]] | str | None = None
    #: smaller configurations that keep a ruleset's edit (``model.properties.Derived``): what
    #: ``verify`` explores exhaustively in place of a ruleset too big to explore
    derived: Callable[[Ruleset], Sequence["Derived"]] | str | None = None
    #: configurations (label, parameter overrides) that exercise rulings the small configuration
    #: cannot (a match, more players, expansions, the random set-up): ``rulings diff`` searches them
    #: before it answers "not exercised"
    diff_configs: Sequence[tuple[str, Mapping[str, Any]]] = ()
    #: the state limit for the exhaustive part of ``verify``
    verify_max_states: int = 2_000_000
    #: how many seeded full-size plays ``verify`` samples when a ruleset is too big to explore (a
    #: fixed amount of work, sized to what one play costs the game's checks; None: the core's
    #: default, ``solver.verify.DEFAULT_PLAYS``)
    verify_plays: int | None = None
    #: engines for ``solve``, in preference order: the first whose ``applies`` says None answers
    #: (none given: the generic exploration and exact solve, ``solver.engines.GENERIC``)
    engines: Sequence[Engine] = ()
    #: named policies for ``simulate --policy`` (besides ``random`` and ``optimal``): name -> a
    #: factory building a state -> action function for a game
    policies: Mapping[str, Callable[[Game], Callable[[Any], Any]]] = field(default_factory=dict)
    #: the policy ``simulate`` plays when none is named (``A:B`` names one per seat)
    default_policy: str = "random"
    #: ``optimal`` for ``simulate``: the game's own way to an optimal policy (None: a generic solve)
    optimal_policy: Callable[[Game], Callable[[Any], Any]] | None = None
    #: what ``simulate`` measures on each finished play (none given: each seat's return and the moves)
    metrics: Sequence[Metric] = ()
    #: a game's own playout engine, replacing the generic loop (a faster, vectorised one)
    simulator: Simulator | None = None
    #: draws the solved policy: ``picture(game, solution, path) -> path``
    picture: Callable[[Game, "Solution", Path], Path] | None = None
    #: a printable policy summary: ``summary(solution, occupancy) -> PolicySummary`` (or None)
    policy_summary: Callable[["Solution", Any], "PolicySummary | None"] | None = None
    #: ``deduce``: exact inference from one player's view of a position (a file)
    deduction: Deduction | None = None
    #: the configuration a ruleset resolves to, as a string: two rulesets with the same one get the
    #: same answer from every engine and simulation of the game (``compare.evaluate``'s values), so
    #: they share them in the result cache even when their parameters are spelt differently (a
    #: default ``-1`` that resolves to 3, a deck listed card by card). None: the parameters and
    #: rulings as written are the key. (Not verify's key: its derived configurations are made from
    #: the parameters as written.)
    configuration_key: Callable[[Ruleset], str] | None = None

    def __getattribute__(self, name: str) -> Any:
        value = object.__getattribute__(self, name)
        if type(value) is str and name in LAZY_PARTS:
            return resolve(value)
        return value

    @property
    def folder(self) -> Path:
        """The game's folder (its rules, rulesets, scenarios, mutants, manifest)."""
        return self.rulesets_dir.parent

    @property
    def manifest(self) -> dict[str, Any]:
        """``manifest.toml`` of the game's folder: the configuration each consumer (verify,
        OpenSpiel, the fuzzer, the benches) runs and the results it expects; {} without one."""
        return _manifest(self.folder / "manifest.toml")

    def consumer_ruleset(self, consumer: str) -> Ruleset:
        """The ruleset a consumer named in the manifest runs (the built-in one it names, else the
        default, with its parameters); the default small configuration when the manifest is silent."""
        entry = self.manifest.get(consumer)
        if entry is None or not (entry.get("ruleset") or entry.get("params")):
            # (an entry that names no configuration, as [verify] with only its state count: the
            # small one -- read as the default ruleset, it once explored Bomb Busters' full game)
            return self.default().with_overrides(dict(self.verify_overrides), spec=self.schema)
        base = self.ruleset(entry["ruleset"]) if entry.get("ruleset") else self.default()
        params = entry.get("params", {})
        return base.with_overrides(params, spec=self.schema) if params else base

    def builtin_rulesets(self) -> list[str]:
        return sorted(p.stem for p in self.rulesets_dir.glob("*.toml"))

    def ruleset(self, name: str) -> Ruleset:
        path = self.rulesets_dir / f"{name}.toml"
        if not path.exists():
            raise RulesetError("command line", "ruleset",
                               f"no built-in ruleset {name!r} for {self.name} "
                               f"(built-in: {', '.join(self.builtin_rulesets())})")
        from .registry import load_ruleset_file   # the registry resolves ``extends`` chains
        return load_ruleset_file(path)

    def default(self) -> Ruleset:
        return self.ruleset(self.default_ruleset)


@cache
def _manifest(path: Path) -> dict[str, Any]:
    import tomllib
    if not path.is_file():
        return {}
    return tomllib.loads(path.read_text(encoding="utf-8"))
