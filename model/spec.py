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
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from .protocol import Game
from .ruleset import RulesSchema, Ruleset, RulesetError, read_toml
from .seams import Deduction, Engine, Metric, Simulator

if TYPE_CHECKING:
    from ruleproof.model.properties import Derived, Property
    from ruleproof.solver.solve import Solution
    from ruleproof.solver.tables import PolicySummary


#: the parts a game may name as ``"module:attr"`` strings, imported on first use (in the manner of
#: Gymnasium's entry points): a game's ``__init__`` then imports nothing heavy and needs no wrappers
LAZY_PARTS = frozenset({"build", "properties", "derived", "engines", "policies", "optimal_policy",
                        "metrics", "simulator", "picture", "policy_summary", "deduction"})


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

    def __getattribute__(self, name: str) -> Any:
        value = object.__getattribute__(self, name)
        if type(value) is str and name in LAZY_PARTS:
            return resolve(value)
        return value

    def builtin_rulesets(self) -> list[str]:
        return sorted(p.stem for p in self.rulesets_dir.glob("*.toml"))

    def ruleset(self, name: str) -> Ruleset:
        path = self.rulesets_dir / f"{name}.toml"
        if not path.exists():
            raise RulesetError("command line", "ruleset",
                               f"no built-in ruleset {name!r} for {self.name} "
                               f"(built-in: {', '.join(self.builtin_rulesets())})")
        return load_ruleset_file(path)

    def default(self) -> Ruleset:
        return self.ruleset(self.default_ruleset)


def load_ruleset_file(path: Path) -> Ruleset:
    """Load and validate a ruleset TOML file, following ``extends`` chains (iteratively, so a
    long chain of files costs no recursion depth)."""
    from .registry import GAMES, builtin_rulesets, get_spec

    chain: list[tuple[Path, dict[str, Any]]] = []   # the leaf first, up to the base
    seen: set[Path] = set()
    parent: Ruleset | None = None
    spec = None
    while True:
        source = str(path)
        data = read_toml(path)
        resolved = path.resolve()
        if resolved in seen:
            raise RulesetError(source, "extends", "ruleset extends itself (cycle)")
        seen.add(resolved)
        if ("game" in data) == ("extends" in data):
            raise RulesetError(source, "extends", "give exactly one of 'game' (a base ruleset) or 'extends'")
        chain.append((path, data))
        if "game" in data:
            if data["game"] not in GAMES:
                raise RulesetError(source, "game", f"unknown game {data['game']!r} (known: {', '.join(GAMES)})")
            spec = get_spec(data["game"])
            break
        parent_ref = data["extends"]
        if parent_ref.endswith(".toml"):
            parent_path = path.parent / parent_ref
            if not parent_path.exists():
                raise RulesetError(source, "extends", f"no such ruleset file {str(parent_path)!r}")
            path = parent_path
            continue
        owners = builtin_rulesets()
        if parent_ref in owners:
            parent = owners[parent_ref].ruleset(parent_ref)
        elif parent_ref in GAMES:
            parent = get_spec(parent_ref).default()
        else:
            raise RulesetError(source, "extends", f"unknown built-in ruleset {parent_ref!r} "
                               f"(known: {', '.join(owners)})")
        spec = get_spec(parent.game)
        break
    if parent is None:
        params, rulings = spec.schema.defaults()
        origins: dict[str, str] = {}
    else:
        params, rulings = dict(parent.params), dict(parent.rulings)
        origins = {k: parent.origin(k) for k in parent.params}
    for file_path, data in reversed(chain):   # from the base down to the file asked for
        source = str(file_path)
        own = spec.schema.parse_params(data.get("params", {}), source)
        params.update(own)
        origins.update({k: source for k in own})
        rulings.update(spec.schema.parse_rulings(data.get("rulings", {}), source))
        spec.schema.check_whole(params, source)
    path, data = chain[0]
    return Ruleset(game=spec.name, name=data.get("name", path.stem),
                   params=MappingProxyType(params), rulings=MappingProxyType(rulings),
                   source=str(path), description=data.get("description", ""),
                   origins=MappingProxyType(origins))
