"""Pig, the dice game studied by Neller and Presser ("Optimal Play of the Dice Game Pig",
The UMAP Journal 25(1), 2004), declared on the dice-race kit (``model.kits.dice_race``).

On a turn the player repeatedly rolls a die: a 1 ends the turn and scores nothing; any other face
adds to the turn total. The player may hold, banking the turn total and passing the die. The first
to reach ``goal`` banked points wins; as in the paper, a player whose score plus turn total reaches
the goal has won at once, and holding with a turn total of 0 is allowed.
"""
from __future__ import annotations

from fractions import Fraction

from ruleproof.model.kits.dice_race import HOLD, ROLL, DiceRace, Effect, Face

__all__ = ["Pig", "ROLL", "HOLD"]


class Pig(DiceRace):
    name = "pig"
    title = "Pig"

    def __init__(self, goal: int = 100, faces: int = 6, players: int = 2):
        if faces < 2:
            raise ValueError("Pig needs a die of 2 or more faces")
        self.faces = faces
        p = Fraction(1, faces)
        throws = [Face(1, p, Effect.LOSE_TURN, 0, "the die shows 1")]
        throws += [Face(k, p, Effect.SCORE, k, f"the die shows {k}") for k in range(2, faces + 1)]
        super().__init__(goal, players, throws)

    def dice_text(self) -> str:
        return f"a d{self.faces}"
