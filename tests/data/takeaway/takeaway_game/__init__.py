"""Take-away, a third-party game for ruleproof (the test of registration by entry point).

Rules: a pile of tokens; the players take turns; a turn takes 1 or 2 tokens; who takes the last
token wins. Known result: the first player wins exactly when the pile is not a multiple of 3.
"""
from __future__ import annotations

from pathlib import Path

from ruleproof.model.ruleset import Param, RulesSchema, int_in
from ruleproof.model.spec import GameSpec

SCHEMA = RulesSchema(game="takeaway", params=(Param("pile", "tokens at the start", 7, int_in(1, 60)),),
                     rulings=())

SPEC = GameSpec(
    name="takeaway", title="Take-away", summary="take 1 or 2 tokens; who takes the last wins",
    schema=SCHEMA, rulesets_dir=Path(__file__).parent / "rulesets", default_ruleset="takeaway",
    build="takeaway_game.game:build", verify_overrides={"pile": 5},
    properties="takeaway_game.proofs:properties")
