"""Pig (Neller and Presser, 2004): the reference game that proves the solver.

This folder is the worked example of adding a game: ``game.py`` implements the protocol,
``rulesets/pig.toml`` is the built-in ruleset, ``picture.py`` draws the policy, and ``SPEC`` below
gathers them; ``model/registry.py`` has one line for it.
"""
from pathlib import Path

from model.ruleset import Param, RulesSchema, int_in
from model.spec import GameSpec
from solver.limits import NO_LIMITS

from .game import Pig
from .picture import draw_policy

SCHEMA = RulesSchema(
    game="pig",
    params=(
        Param("goal", "points needed to win", 100, int_in(1, 200)),
        Param("faces", "faces of the die (1 busts, every other face scores its value)", 6, int_in(2, 20)),
        Param("players", "number of players", 2, int_in(2, 6)),
    ),
    rulings=(),
)


def build(ruleset) -> Pig:
    return Pig(goal=ruleset["goal"], faces=ruleset["faces"], players=ruleset["players"])


def checks(ruleset, limits=NO_LIMITS):
    from proofs.pig import pig_proofs
    if limits.expired():   # the proofs take milliseconds; only a spent time limit stops them
        return [limits.not_run("pig-proofs", "z3")]
    return pig_proofs(ruleset["goal"], ruleset["faces"])


SPEC = GameSpec(
    name="pig",
    title="Pig",
    summary="dice race to a goal: roll to grow the turn total, a 1 loses it, hold to bank it",
    schema=SCHEMA,
    rulesets_dir=Path(__file__).parent / "rulesets",
    default_ruleset="pig",
    build=build,
    verify_overrides={"goal": 20},
    checks=checks,
    hooks={"picture": draw_policy},
)
