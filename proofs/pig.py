"""Pig's rules as its proofs state them, bound move by move to ``model.pig`` (through the dice-race
proof kit, ``proofs.dice_race``).

The rule text (Neller and Presser 2004, "Optimal Play of the Dice Game Pig"): "Each turn, a player
repeatedly rolls a die until either a 1 is rolled or the player holds and scores the sum of the
rolls (i.e. the turn total). ... If the player rolls a 1, the player scores nothing and it becomes
the next player's turn. If the player rolls a number other than 1, the number is added to the
player's turn total and the player's turn continues. If the player holds, the turn total ... is
added to the player's score, and it becomes the next player's turn. The first player to score 100
or more points wins." A fair die: each face with probability 1/faces.
"""
from __future__ import annotations

from fractions import Fraction

from ruleproof.proofs.dice_race import BUST, SCORE, RaceRules, Throw, race_companions, race_proofs
from ruleproof.proofs.refinement import proof_property

SENTENCE = ("Neller & Presser 2004: a 1 scores nothing and passes the die; any other face is added to the "
            "turn total; a hold banks it and passes the die; the first to reach the goal wins")


def pig_rules(goal: int, faces: int, players: int) -> RaceRules:
    """A fair die: face 1 busts, every other face scores its value."""
    p = Fraction(1, faces)
    throws = [Throw(1, p, BUST)] + [Throw(k, p, SCORE, k) for k in range(2, faces + 1)]
    return RaceRules(goal, players, throws, sentence=SENTENCE)


def pig_proofs(game, ruleset=None) -> list:
    """The proofs of the rules the ruleset states (its goal, die and seats; without a ruleset, the
    game's own parameters -- for tests that build a game directly)."""
    goal, faces, players = ((ruleset["goal"], ruleset["faces"], ruleset["players"]) if ruleset is not None
                            else (game.goal, game.faces, game.num_players))
    return race_proofs(pig_rules(goal, faces, players), game.record, "pig")


def properties(ruleset, game) -> list:
    return [proof_property(p) for p in pig_proofs(game, ruleset)]


def derived(ruleset) -> list:
    from ruleproof.model.pig import SCHEMA
    return race_companions(ruleset, SCHEMA)
