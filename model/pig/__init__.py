"""Pig (Neller and Presser, 2004): the reference game that proves the solver.

This folder is the worked example of adding a game (docs/adding-a-game.md): ``game.py`` declares
Pig on the dice-race kit, ``rulesets/pig.toml`` is the built-in ruleset, ``proofs/pig.py`` states
its rules as an abstract model bound to the code, and ``SPEC`` below gathers them, naming each
part as a ``"module:attr"`` string imported on first use.
"""
from __future__ import annotations

from pathlib import Path

from ruleproof.model.ruleset import Param, RulesSchema, int_in
from ruleproof.model.spec import GameSpec

SCHEMA = RulesSchema(
    game="pig",
    params=(
        Param("goal", "points needed to win", 100, int_in(1, 200)),
        Param("faces", "faces of the die (1 busts, every other face scores its value)", 6, int_in(2, 20)),
        Param("players", "number of players", 2, int_in(2, 6)),
    ),
    rulings=(),
)


def build(ruleset):
    from .game import Pig  # numpy: imported when a game is built, not when the CLI starts
    return Pig(goal=ruleset["goal"], faces=ruleset["faces"], players=ruleset["players"])


SPEC = GameSpec(
    name="pig",
    title="Pig",
    summary="dice race to a goal: roll to grow the turn total, a 1 loses it, hold to bank it",
    schema=SCHEMA,
    rulesets_dir=Path(__file__).parent / "rulesets",
    default_ruleset="pig",
    build=build,
    verify_overrides={"goal": 20},
    properties="ruleproof.proofs.pig:properties",
    derived="ruleproof.proofs.pig:derived",
    picture="ruleproof.model.kits.dice_race_policy:draw_policy",
    policy_summary="ruleproof.model.kits.dice_race_policy:summary",
)
