"""Skunk, two-dice Pig, declared on the dice-race kit (``model.kits.dice_race``).

A turn is a run of throws of two six-sided dice: with no 1 showing, the dice's sum joins the turn
total; a single 1 loses the turn total; two 1s ("snake eyes") lose the turn total and the banked
score too; either way the dice pass. A player may instead hold: the turn total is banked and the
dice pass. The first to reach the goal wins. Two readings are rulings (``model/skunk/__init__.py``):
S01 whether a player may hold with an empty turn total, S02 whether reaching the goal wins at once.

A throw's outcome is the unordered pair of faces, coded ``10 * low + high`` (11 to 66), with
probability 1/36 for a double and 2/36 otherwise.
"""
from __future__ import annotations

from fractions import Fraction

from ruleproof.model.kits.dice_race import DiceRace, Effect, Face


def skunk_throws() -> list[Face]:
    throws = []
    for low in range(1, 7):
        for high in range(low, 7):
            p = Fraction(1 if low == high else 2, 36)
            text = f"the dice show {low} and {high}"
            if low == high == 1:
                throws.append(Face(11, p, Effect.LOSE_ALL, 0, text + " (snake eyes)"))
            elif low == 1:
                throws.append(Face(10 + high, p, Effect.LOSE_TURN, 0, text))
            else:
                throws.append(Face(10 * low + high, p, Effect.SCORE, low + high, text))
    return throws


class Skunk(DiceRace):
    name = "skunk"
    title = "Skunk"

    def __init__(self, goal: int = 100, players: int = 2, *, win_at_once: bool = True,
                 hold_at_zero: bool = True):
        super().__init__(goal, players, skunk_throws(), win_at_once=win_at_once, hold_at_zero=hold_at_zero)

    def dice_text(self) -> str:
        return "two d6"
