"""Z3 proofs for Pig, bound to ``model.pig.game`` by a refinement mapping.

The frame is the mover's view of a state: ``s0`` the mover's banked score, ``s1..`` the other
seats' in turn order, ``turn`` the turn total, ``rolling`` whether the die is in the air. Four
actions relate frames (roll, score, bust, hold) and one exit leaves them (a scoring roll that
reaches the goal wins). ``proofs.refinement`` checks that every transition of the real game maps to
one of them, so the invariant and the progress ranking speak about the code, not about a copy.
"""
from __future__ import annotations

import z3

from ruleproof.model.pig.game import Pig
from ruleproof.proofs.harness import Action
from ruleproof.proofs.logic import And, Unchanged
from ruleproof.proofs.refinement import Exit, RuleProof


def _frame_factory(n: int):
    def frame(sfx: str) -> dict[str, z3.ExprRef]:
        f = {f"s{i}": z3.Int(f"s{i}{sfx}") for i in range(n)}
        f.update(turn=z3.Int("turn" + sfx), rolling=z3.Bool("rolling" + sfx), face=z3.Int("face" + sfx))
        return f
    return frame


def _abstraction(game: Pig):
    n = game.num_players

    def of_state(s):
        if s[game._winner] >= 0:
            return None   # somebody won: the game has left the frame
        m = s[game._mover]
        f = {f"s{i}": s[(m + i) % n] for i in range(n)}
        f.update(turn=s[game._turn], rolling=bool(s[game._rolling]))
        return f
    return of_state


def pig_proofs(game: Pig) -> list[RuleProof]:
    goal, faces, n = game.goal, game.faces, game.num_players
    frame = _frame_factory(n)
    scores = [f"s{i}" for i in range(n)]

    def invariant(s):
        return And([And(s[x] >= 0, s[x] < goal) for x in scores], s["turn"] >= 0, s["s0"] + s["turn"] < goal)

    def init(s):
        return And([s[x] == 0 for x in scores], s["turn"] == 0, s["rolling"] == False)  # noqa: E712

    def roll(s, t):
        return And(s["rolling"] == False, t["rolling"] == True,  # noqa: E712
                   Unchanged(s, t, "rolling", "face"))

    def score(s, t):
        # a face above 1 that does not reach the goal (reaching it wins: the exit below)
        return And(s["rolling"] == True, s["face"] >= 2, s["face"] <= faces,  # noqa: E712
                   s["s0"] + s["turn"] + s["face"] < goal, t["turn"] == s["turn"] + s["face"],
                   t["rolling"] == False, [t[x] == s[x] for x in scores])  # noqa: E712

    def pass_die(s, t, banked):
        # the next seat moves: the frame rotates, the old mover's score goes last
        return And([t[f"s{i}"] == s[f"s{i + 1}"] for i in range(n - 1)],
                   t[f"s{n - 1}"] == s["s0"] + banked, t["turn"] == 0, t["rolling"] == False)  # noqa: E712

    def bust(s, t):
        return And(s["rolling"] == True, s["face"] == 1, pass_die(s, t, 0))  # noqa: E712

    def hold(s, t):
        return And(s["rolling"] == False, pass_die(s, t, s["turn"]))  # noqa: E712

    faces_range = {"face": range(1, faces + 1)}
    actions = [Action("roll", roll), Action("score", score, faces_range), Action("bust", bust, faces_range),
               Action("hold", hold)]
    win = Exit("win", lambda s: And(s["rolling"], s["face"] >= 2, s["s0"] + s["turn"] + s["face"] >= goal),
               faces_range)
    typing = lambda s: And(s["face"] >= 1, s["face"] <= faces)  # noqa: E731
    doc = ("s0 = the mover's banked score, s1.. = the next seats' in turn order, turn = the turn total, "
           "rolling = the die is in the air; a state where somebody won is outside the frame")
    common = dict(frame=frame, abstraction_doc=doc, abstraction=_abstraction(game), init=init,
                  invariant=invariant, actions=actions, exits=[win], assumptions=typing)
    return [
        RuleProof("pig-state-invariant",
                  f"0 <= every score < {goal} and score + turn total < {goal} while nobody has won",
                  **common),
        RuleProof("pig-turn-progress",
                  f"goal - score - turn total ({goal} at the start) is a ranking that every scoring roll "
                  f"lowers by at least 2, so a turn that never busts wins within {(goal + 1) // 2} rolls",
                  ranking=lambda s: goal - s["s0"] - s["turn"], decreasing=("score",), decrease=2,
                  resets=("bust", "hold"),
                  **common),
    ]
