"""Skunk (two-dice Pig): a single 1 loses the turn total, snake eyes the banked score too.

The game's page is ``README.md`` beside this file (rules, rulings, figures); ``game.py`` declares
it on the dice-race kit and ``proofs/skunk.py`` states its rules as an abstract model bound to the
code. Adding it touched nothing outside this folder, its proof file and its tests.
"""
from __future__ import annotations

from pathlib import Path

from ruleproof.model.ruleset import Param, RulesSchema, Ruling, int_in
from ruleproof.model.spec import GameSpec

#: the rules this model follows (the README quotes them whole); the rulings cite it
RULE_TEXT = ("two six-sided dice per throw; no 1: the sum joins the turn total; a single 1: the turn "
             "total is lost and the dice pass; two 1s (snake eyes): the turn total and the banked "
             "score are lost and the dice pass; hold: bank the turn total and pass the dice; the "
             "first to reach the goal wins")

SCHEMA = RulesSchema(
    game="skunk",
    params=(
        Param("goal", "points needed to win", 100, int_in(1, 200)),
        Param("players", "number of players", 2, int_in(2, 6)),
    ),
    rulings=(
        Ruling("S01", "may a player hold with an empty turn total (before any throw, or never)?",
               {"allowed": "yes: it only passes the dice (as in Pig)",
                "roll-first": "no: a turn throws at least once before a hold"},
               f"model/skunk/README.md, 'hold: bank the turn total and pass the dice' ({RULE_TEXT})"),
        Ruling("S02", "does reaching the goal win at once, or only once banked?",
               {"at-once": "a throw that brings score + turn total to the goal wins at once (as in Pig)",
                "must-hold": "the player must hold to bank it; throwing on risks it"},
               f"model/skunk/README.md, 'the first to reach the goal wins' ({RULE_TEXT})"),
    ),
)


def build(ruleset):
    from .game import Skunk   # numpy: imported when a game is built, not when the CLI starts
    return Skunk(goal=ruleset["goal"], players=ruleset["players"],
                 hold_at_zero=ruleset.rulings["S01"] == "allowed",
                 win_at_once=ruleset.rulings["S02"] == "at-once")


SPEC = GameSpec(
    name="skunk",
    title="Skunk",
    summary="two-dice Pig: roll two dice to grow the turn total, a single 1 loses it, snake eyes "
            "lose the banked score too, hold to bank it",
    schema=SCHEMA,
    rulesets_dir=Path(__file__).parent / "rulesets",
    default_ruleset="skunk",
    build=build,
    verify_overrides={"goal": 20},
    properties="ruleproof.proofs.skunk:properties",
    derived="ruleproof.proofs.skunk:derived",
    picture="ruleproof.model.kits.dice_race_policy:draw_policy",
    policy_summary="ruleproof.model.kits.dice_race_policy:summary",
)
