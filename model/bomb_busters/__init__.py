"""Bomb Busters (seeds/004_cf0d8baf3038c827.txt): a cooperative deduction game with hidden wires.

What the tool offers for it: the protocol game (:mod:`game`), its invariants, Z3 proofs bound to
the model move by move (``proofs/bomb_busters.py``, ``proofs/bomb_busters_table.py``), the checks
that are not proofs (:mod:`checks`), smaller missions keeping an edit (:mod:`shrink`), the exact
deduction engine (:mod:`deduce`) reading position files (:mod:`view`), and play evaluation
(:mod:`policy`).
"""
from __future__ import annotations

from pathlib import Path

from ruleproof.model.spec import GameSpec

from .mission import SCHEMA


#: the default small configuration ``verify`` explores exhaustively (5,169 states, about a second):
#: 2 experts with 2 racks each, blue 1-2 twice each, '1 de 2' red, all three equipment items
VERIFY_OVERRIDES = {
    "players": 2, "blue_values": 2, "blue_copies": 2, "red_in_play": 1, "red_drawn": 2,
    "red_values": [1, 2], "yellow_in_play": 0, "yellow_drawn": 0, "detonator": 2,
    "equipment": ["estabilizador@1", "comunicadores@2"], "detector_duplo": True,
}
#: a second tiny mission verify explores beside every ruleset (a companion configuration, see
#: ``proofs/bomb_busters.py: derived``): yellow wires ('2 de 3'), blue 1 only
YELLOW_OVERRIDES = {
    "players": 2, "blue_values": 1, "blue_copies": 2, "red_in_play": 1, "red_drawn": 1,
    "red_values": [1], "yellow_in_play": 2, "yellow_drawn": 3, "yellow_values": [1, 2, 3],
    "detonator": 2, "equipment": ["estabilizador@1", "comunicadores@1"], "detector_duplo": True,
}

SPEC = GameSpec(
    name="bomb-busters",
    title="Bomb Busters",
    summary="cooperative deduction with hidden wires, 2-5 players: exact wire probabilities from one "
            "player's view, safe cuts, policy win rates",
    schema=SCHEMA,
    rulesets_dir=Path(__file__).parent / "rulesets",
    default_ruleset="bomb-busters",
    build="ruleproof.model.bomb_busters.game:build",
    verify_overrides=VERIFY_OVERRIDES,
    properties="ruleproof.proofs.bomb_busters:properties",
    derived="ruleproof.proofs.bomb_busters:derived",
    # the tiny missions have at most tens of thousands of states; a full-size mission never fits, so
    # verify stops trying early and spends its time on proofs, derived missions and sampled plays
    verify_max_states=100_000,
    # a full-size play visits ~1,000 states and checking each (every move of it, the fast paths, the
    # table's mapping) costs ~6 ms in the Python model: 2,000 plays would take hours, 20 about a minute
    verify_plays=20,
    engines="ruleproof.model.bomb_busters.engines:ENGINES",
    policies="ruleproof.model.bomb_busters.policy:POLICIES",
    default_policy="likely",
    metrics="ruleproof.model.bomb_busters.policy:METRICS",
    deduction="ruleproof.model.bomb_busters.engines:DEDUCTION",
)
