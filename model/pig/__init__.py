"""Pig (Neller and Presser, 2004): the reference game that proves the solver.

This folder is the worked example of adding a game: ``game.py`` implements the protocol,
``rulesets/pig.toml`` is the built-in ruleset, ``picture.py`` draws the policy, and ``SPEC`` below
gathers them; ``model/registry.py`` has one line for it.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ruleproof.model.ruleset import Param, RulesSchema, int_in
from ruleproof.model.spec import GameSpec

if TYPE_CHECKING:
    from .game import Pig

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
    from .game import Pig  # numpy: imported when a game is built, not when the CLI starts
    return Pig(goal=ruleset["goal"], faces=ruleset["faces"], players=ruleset["players"])


def draw_policy(game, sol, path):
    from .picture import draw_policy
    return draw_policy(game, sol, path)


def summary(sol, visits):
    from .summary import summary
    return summary(sol, visits)


def proofs(ruleset, game):
    from ruleproof.proofs.pig import pig_proofs
    return pig_proofs(game)


SPEC = GameSpec(
    name="pig",
    title="Pig",
    summary="dice race to a goal: roll to grow the turn total, a 1 loses it, hold to bank it",
    schema=SCHEMA,
    rulesets_dir=Path(__file__).parent / "rulesets",
    default_ruleset="pig",
    build=build,
    verify_overrides={"goal": 20},
    proofs=proofs,
    picture=draw_policy,
    policy_summary=summary,
)
