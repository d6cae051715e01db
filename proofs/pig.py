"""Z3 proofs for Pig: the state invariant is inductive over the three moves, and each turn's
progress measure (the turn total) rises on every scoring roll."""
from __future__ import annotations

import z3

from proofs.harness import Action, check_inductive, prove
from solver.report import PropertyResult


def _frame(suffix: str) -> dict[str, z3.ArithRef]:
    return {"score": z3.Int("score" + suffix), "other": z3.Int("other" + suffix),
            "turn": z3.Int("turn" + suffix), "face": z3.Int("face" + suffix)}


def pig_proofs(goal: int, faces: int) -> list[PropertyResult]:
    def invariant(s):
        return z3.And(s["score"] >= 0, s["score"] < goal, s["other"] >= 0, s["other"] < goal,
                      s["turn"] >= 0, s["score"] + s["turn"] < goal)

    def init(s):
        return z3.And(s["score"] == 0, s["other"] == 0, s["turn"] == 0)

    def valid_face(s):
        return z3.And(s["face"] >= 1, s["face"] <= faces)

    def roll_and_score(s, t):
        # a face > 1 that does not reach the goal (reaching it ends the game)
        return z3.And(valid_face(s), s["face"] >= 2, s["score"] + s["turn"] + s["face"] < goal,
                      t["score"] == s["score"], t["other"] == s["other"], t["turn"] == s["turn"] + s["face"])

    def bust(s, t):
        # a 1: the turn total is lost and the other player moves (the frame is the mover's view)
        return z3.And(s["face"] == 1, t["score"] == s["other"], t["other"] == s["score"], t["turn"] == 0)

    def hold(s, t):
        return z3.And(t["score"] == s["other"], t["other"] == s["score"] + s["turn"], t["turn"] == 0)

    results = [check_inductive(
        "pig-state-invariant", _frame, init, invariant,
        [Action("roll-and-score", roll_and_score), Action("bust", bust), Action("hold", hold)],
        detail=f"0 <= scores < {goal} and score + turn total < {goal}: holds at the start and is "
               "preserved by scoring rolls, busts and holds")]
    results.append(prove(
        "pig-turn-progress", _frame,
        lambda s: z3.Implies(z3.And(valid_face(s), s["face"] >= 2), s["turn"] + s["face"] >= s["turn"] + 2),
        detail="every scoring roll raises the turn total by at least 2, so a turn that never busts "
               f"reaches the goal within {(goal + 1) // 2} rolls"))
    return results
