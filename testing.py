"""The conformance kit: the maintainers' own checks, shipped so any game author runs exactly them
(in the spirit of OpenSpiel's ``random_sim_test`` and PettingZoo's ``api_test``).

``check_game(spec)`` raises :class:`ConformanceError` naming the first thing that is wrong, in
this order:

1. the spec: every lazily named part imports; the built-in ruleset loads; ruling ids are unique,
   each with options and a cited sentence; the default small configuration builds;
2. the protocol, state by state along seeded random plays of the small configuration: keys round
   trip, every fast path gives the reference moves, chance outcomes are positive Fractions summing
   to 1, returns are Fractions within the bounds, invariants hold, descriptions are strings
   (``model.conformance``, the very checks ``verify``'s fast-paths property runs);
3. the batch expansion against ``canonical_successors`` on the explored small configuration;
4. ``verify`` on the small configuration: every property holds (the proofs' refinement included);
5. ``solve --json``'s documented keys, one value per seat.

``mutants(spec)`` runs the game's mutation suite (``ruleproof.mutation``) and returns its exit code.
"""
from __future__ import annotations

import json
import random
from fractions import Fraction
from typing import Any

from ruleproof.model.conformance import batch_problem, state_problem
from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.sampling import sample_outcome
from ruleproof.model.spec import LAZY_PARTS, GameSpec


class ConformanceError(AssertionError):
    """A game breaks the protocol or the project's checks (the message says where)."""


def small_ruleset(spec: GameSpec):
    """The game's default small configuration (what ``verify GAME`` explores)."""
    return spec.default().with_overrides(dict(spec.verify_overrides), spec=spec.schema)


def check_spec(spec: GameSpec) -> None:
    for part in sorted(LAZY_PARTS):
        try:
            getattr(spec, part)
        except Exception as exc:   # noqa: BLE001 -- the author's import error, named
            raise ConformanceError(f"{spec.name}: the spec part {part!r} does not load: {exc}") from exc
    if spec.default_ruleset not in spec.builtin_rulesets():
        raise ConformanceError(f"{spec.name}: no built-in ruleset {spec.default_ruleset!r}")
    defaults = spec.default()
    if defaults.game != spec.name:
        raise ConformanceError(f"{spec.name}: the built-in ruleset names the game {defaults.game!r}")
    ids = [r.id for r in spec.schema.rulings]
    if len(ids) != len(set(ids)):
        raise ConformanceError(f"{spec.name}: ruling ids repeat: {ids}")
    for ruling in spec.schema.rulings:
        if not ruling.options or not ruling.cites:
            raise ConformanceError(f"{spec.name}: ruling {ruling.id} must name its options and cite its source")
        if defaults.rulings[ruling.id] != ruling.default:
            raise ConformanceError(f"{spec.name}: ruling {ruling.id}'s default differs from the ruleset's")


def check_protocol(game: Any, plays: int = 25, seed: int = 0, max_moves: int = 5_000) -> int:
    """The protocol's promises at every state of seeded random plays; returns the states checked."""
    rng = random.Random(seed)
    checked = 0
    for play in range(plays):
        state = game.initial_state()
        for _ in range(max_moves):
            checked += 1
            where = f"{game.name}, play {play + 1} (seed {seed}), at {game.describe_state(state)}"
            problem = state_problem(game, state)
            if problem:
                raise ConformanceError(f"{where}: {problem}")
            for inv in game.invariants():
                reason = inv.check(state)
                if reason is not None:
                    raise ConformanceError(f"{where}: invariant {inv.name}: {reason}")
            seat = game.current_player(state)
            if seat == TERMINAL:
                ret = game.returns(state)
                if any(not game.min_utility <= r <= game.max_utility for r in ret) or (
                        game.constant_sum is not None and sum(ret) != game.constant_sum):
                    raise ConformanceError(f"{where}: returns {ret} leave the declared bounds")
                break
            if seat == CHANCE:
                outcomes = list(game.chance_outcomes(state))
                if not outcomes or any(not isinstance(p, Fraction) or p <= 0 for _, p in outcomes) or \
                        sum(p for _, p in outcomes) != 1:
                    raise ConformanceError(f"{where}: chance outcomes are not positive Fractions summing to 1")
                move = sample_outcome(outcomes, rng)
            else:
                actions = list(game.legal_actions(state))
                if not actions:
                    raise ConformanceError(f"{where}: a decision state without a legal move")
                move = rng.choice(actions)
            if not isinstance(game.describe_action(state, move), str):
                raise ConformanceError(f"{where}: describe_action is not a string")
            state = game.apply(state, move)
        else:
            raise ConformanceError(f"{game.name}: play {play + 1} did not end within {max_moves} moves")
    return checked


def check_game(spec: GameSpec, *, plays: int = 25, seed: int = 0, run_verify: bool = True) -> None:
    """Every check of the kit on the game's default small configuration (see the module docstring)."""
    from ruleproof.solver.analysis import solve_ruleset
    from ruleproof.solver.explore import explore
    from ruleproof.solver.verify import verify
    check_spec(spec)
    ruleset = small_ruleset(spec)
    game = spec.build(ruleset)
    check_protocol(game, plays, seed)
    ex = explore(game, batch=False, max_states=200_000)
    if ex.keys and isinstance(ex.keys[0], int):
        found = batch_problem(game, ex.keys)
        if found is not None:
            raise ConformanceError(f"{spec.name}: at {game.describe_state(game.from_key(ex.keys[found[0]]))}: "
                                   f"{found[1]}")
    if run_verify:
        report = verify(spec, ruleset)
        bad = [p for p in report.properties if p.status != "holds"]
        if bad:
            p = bad[0]
            trace = "\n  ".join((p.counterexample or [])[-6:])
            raise ConformanceError(f"{spec.name}: verify: {p.name} {p.status}: {p.detail}\n  {trace}")
    doc = json.loads(json.dumps(solve_ruleset(ruleset).doc()))
    from ruleproof.solver.analysis import SOLVE_KEYS
    if tuple(doc) != SOLVE_KEYS or len(doc["values"] or []) != game.num_players:
        raise ConformanceError(f"{spec.name}: solve --json does not have the documented keys and one value per seat")


def mutants(spec: GameSpec, full: bool = False) -> int:
    """The game's mutation suite (``model/<game>/mutants/``); 0 when it passes its bar."""
    from ruleproof.mutation import run
    return run([spec.name], full=full)
