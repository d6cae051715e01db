"""``SPEC.shrink``: smaller configurations that keep a ruleset's edit, for ``verify`` to explore
exhaustively when the ruleset itself is too big (32 players on Longa, say).

What the edit is: the rulings and the rule parameters (dice, reach, jumps, back step, chain
length, ...) the ruleset sets; those stay. What is made small: the board (the hand-drawn 'tiny'
and 'mini' layouts, which have every kind of square, so an edit about ★, ☠ or 🛡 squares is still
exercised) -- except a drawn board (a layout file: an edit of its squares), which is kept as it is
with 2 players before the small ones --, the players (2, and 3 on 'tiny' where seats between the
mover and the others matter) and the host's scheduled events that name seats no longer present. Gift values and the
focal seat only weigh outcomes (solve), not the rules verify checks: they are dropped when the
player count changes.
"""
from __future__ import annotations

from ruleproof.model.ruleset import Ruleset

from .board import OFFICIAL
from .config import SCHEMA

#: (board, players): explored in this order; each is a few thousand states with one die
SMALL = (("tiny", 2), ("mini", 2), ("tiny", 3))


def shrink(ruleset: Ruleset) -> list[tuple[str, Ruleset]]:
    p = ruleset.params
    out = []
    small = SMALL
    if p["board"] not in OFFICIAL and p["board"] not in dict(SMALL):
        # a drawn board is an edit of its squares: its own board stays, with 2 players first
        small = ((p["board"], 2),) + SMALL
    for board, players in small:
        if players > p["players"] or (board == p["board"] and players == p["players"]):
            continue
        # the ruleset's own board keeps its origin (a layout path is read beside the file naming it)
        params = {"players": players} if board == p["board"] else {"board": board, "players": players}
        notes = []
        removals = [(slot, seat) for slot, seat in p["host_remove"] if seat < players]
        if len(removals) != len(p["host_remove"]):
            notes.append("host removals of absent seats dropped")
        params["host_remove"] = removals
        if players != p["players"]:
            if p["gift_values"]:
                notes.append("gift values dropped")
            params["gift_values"] = ()
            params["focal_seat"] = -1
        dice = "1 die" if p["dice"] == 1 else f"{p['dice']} dice"
        label = f"{board} board, {players} players, {dice}, the ruleset's rulings and rule parameters"
        if notes:
            label += " (" + "; ".join(notes) + ")"
        out.append((label, ruleset.with_overrides(params, spec=SCHEMA)))
    return out
