"""Take-away's rules as a proof bound move by move to the model: the mover takes 1 or 2 tokens
(never more than are left), the turn passes, and who takes the last token wins."""
from __future__ import annotations

import z3

from ruleproof.proofs.harness import Action
from ruleproof.proofs.logic import And, If, Implies
from ruleproof.proofs.refinement import Bound, RuleProof, proof_property


def properties(ruleset, game):
    pile = ruleset["pile"]
    names = ["left", "mover", "winner", "take", "actor"]

    def frame(sfx):
        return {n: z3.Int(n + sfx) for n in names}

    def invariant(f):
        return And(f["left"] >= 0, f["left"] <= pile, Implies(f["winner"] >= 0, f["left"] == 0))

    def take(s, t):
        left = s["left"] - s["take"]
        return And(s["winner"] == -1, s["actor"] == s["mover"], s["take"] <= s["left"], t["left"] == left,
                   t["mover"] == 1 - s["mover"], t["winner"] == If(left == 0, s["mover"], -1))

    proof = RuleProof(
        "takeaway-rules", f"tokens stay in 0..{pile}; a winner took the last token", frame,
        "left = tokens left, mover = the seat to take, winner = who took the last or -1",
        lambda s: {"left": s[0], "mover": s[1], "winner": s[2]},
        lambda f: And(f["left"] == pile, f["mover"] == 0, f["winner"] == -1), invariant,
        [Action("take", take, {"take": range(1, 3)})],
        bind=lambda s, a, actor: Bound("take", {"take": a}),
        options=lambda f: {Bound("take", {"take": k}) for k in (1, 2) if k <= f["left"]} if f["winner"] == -1 else set(),
        assumptions=lambda f: And(f["mover"] >= 0, f["mover"] <= 1, f["winner"] >= -1, f["winner"] <= 1),
        sentence="a turn takes 1 or 2 tokens; who takes the last token wins")
    return [proof_property(proof)]
