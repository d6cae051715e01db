"""Skunk's rules as its proofs state them, bound move by move to ``model.skunk`` (through the
dice-race proof kit, ``proofs.dice_race``).

The rule text (model/skunk/README.md): two six-sided dice per throw; with no 1 showing the sum
joins the turn total; a single 1 loses the turn total and the dice pass; two 1s lose the turn total
and the banked score, and the dice pass; a hold banks the turn total and passes the dice; the first
to reach the goal wins. Fair dice: each ordered pair of faces has probability 1/36, so a throw
reading {low, high} has 1/36 when low = high and 2/36 otherwise. S01 and S02 decide the hold with
an empty turn total and whether reaching the goal wins at once.
"""
from __future__ import annotations

from fractions import Fraction

from ruleproof.proofs.dice_race import BUST, SCORE, WIPE, RaceRules, Throw, race_companions, race_proofs
from ruleproof.proofs.refinement import proof_property

SENTENCE = ("model/skunk/README.md: no 1 adds the sum to the turn total; a single 1 loses the turn "
            "total; snake eyes lose the banked score too; a hold banks and passes the dice; the first "
            "to reach the goal wins (S01, S02)")


def skunk_throws() -> list[Throw]:
    """Each reading of two fair dice, as the rules score it (the outcome coded 10 x low + high)."""
    out = []
    for low in range(1, 7):
        for high in range(low, 7):
            p = Fraction(1 if low == high else 2, 36)
            ones = (low == 1) + (high == 1)
            kind = WIPE if ones == 2 else BUST if ones == 1 else SCORE
            out.append(Throw(10 * low + high, p, kind, low + high if kind == SCORE else 0))
    return out


def skunk_rules(ruleset) -> RaceRules:
    """The rules as the ruleset states them (its goal, seats and readings of S01 and S02) -- read
    off the ruleset, never off the model built from it."""
    return RaceRules(ruleset["goal"], ruleset["players"], skunk_throws(),
                     win_at_once=ruleset.rulings["S02"] == "at-once",
                     hold_at_zero=ruleset.rulings["S01"] == "allowed", sentence=SENTENCE)


def skunk_proofs(ruleset, game) -> list:
    return race_proofs(skunk_rules(ruleset), game.record, "skunk")


def properties(ruleset, game) -> list:
    return [proof_property(p) for p in skunk_proofs(ruleset, game)]


def derived(ruleset) -> list:
    from ruleproof.model.skunk import SCHEMA
    return race_companions(ruleset, SCHEMA)
