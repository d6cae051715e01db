"""Presentes' derived configurations (``proofs.presentes.derived``): smaller configurations that
keep a ruleset's edit, for ``verify`` to explore exhaustively when the ruleset itself is too big
(32 players on Longa, say), and the companions it explores beside every ruleset.

What the edit is: the rulings and the rule parameters (dice, reach, jumps, back step, chain
length, ...) the ruleset sets; those stay. What is made small: the board (the hand-drawn 'tiny'
and 'mini' layouts have every kind of square, so an edit about ★, ☠ or 🛡 squares is still
exercised; 'trio', for 3 players, has only a ★: the choices among players) -- except a drawn
board (a layout file: an edit of its squares), which is kept as it is with 2 players before the
small ones --, the players (2, and 3 on 'trio' where seats between the mover and the others
matter) and the host's scheduled events that name seats no longer present. Gift values and the
focal seat only weigh outcomes (solve), not the rules verify checks: they are dropped when the
player count changes.
"""
from __future__ import annotations

from ruleproof.model.ruleset import Ruleset

from .board import OFFICIAL
from .config import SCHEMA

#: (board, players): explored in this order; each is a few thousand states with one die
SMALL = (("tiny", 2), ("mini", 2), ("trio", 3))


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


#: the properties a companion official board is explored for: what only its whole graph shows
#: (the game ends under every policy, the ★/☠ situations, the reveal) -- the proofs' mappings and
#: the engines' agreement are checked on the ruleset's own configuration
COMPANION_PROPERTIES = ("state rules", "termination", "special-squares", "reveal-utilities")
#: the properties the 'trio' companion is explored for: the mapping of every move, chance node and
#: decision to the rules' model (one proof carries it: its Z3 part is redone for three seats; the
#: other proofs' invariants are about the table, which the state rules check on every state), the
#: engines' agreement and what the players see -- where a third player changes who acts, benefits
#: or is picked
TRIO_PROPERTIES = COMPANION_PROPERTIES + ("fast-paths", "z3-gift-conservation", "public-information",
                                          "simulator-agrees", "exact-chain-agrees")


#: the properties the 'chain' companion is explored for: the mapping of every move to the rules' model
#: (one proof carries it, as on 'trio') and the engines' agreement, on chains that reach their last landing
CHAIN_PROPERTIES = ("state rules", "termination", "z3-gift-conservation", "simulator-agrees", "exact-chain-agrees")


#: the 'trio-host' companion's removal: (turn slot, seat). Seat 1 has had one turn by slot 4, so it
#: may hold a gift (P28: "O presente dele volta para a árvore") and two seats play on after it
HOST_REMOVAL = (4, 1)


def companions(ruleset: Ruleset) -> list:
    """Configurations ``verify`` explores beside the ruleset every time (``Derived(..., always=True)``):

    * the 'trio' board with 3 players, the ruleset's dice, rulings and rule parameters, for
      ``TRIO_PROPERTIES`` -- with two players there is only one other player, so the rules that
      pick among players (the leader, P20; logo à frente / atrás, P21; ties, P26; whom to steal from or
      swap with; the targets a policy picks) cannot go wrong; with three they can (about 6,800
      states, every ★ effect and choice);
    * the 'trio-azar' board with 3 players and the host skipping the second turn slot, for the same
      properties: the ☠ effects where "o jogador anterior" is one of two others (P08, P24, P27),
      and "Pular vez" passing the turn on with three seats (about 7,900 states);
    * the 'trio' board with 3 players and the host removing seat 1 at turn slot 4 (P28, "Remover
      jogador ... O presente dele volta para a árvore"): the removed seat may hold a gift, and the two
      others play on (about 2,800 states);
    * the 'chain' board with 2 players, where a chain of Saltos reaches its third landing (on an
      ordinary square or on a ★ whose Salto then moves without landing, P12): "Valem no máximo 3
      quedas seguidas" -- no smaller board reaches it (about 2,900 states);
    * for a ruleset on an official board, the other official boards with 2 players and the
      ruleset's dice, rulings and rule parameters, explored for what only their whole graph
      shows (``COMPANION_PROPERTIES``) -- listed first, the longest first (``official_companions``).

    The host's scheduled events of absent seats and the gift values are dropped."""
    from ruleproof.model.properties import Derived
    p = ruleset.params
    dice = "1 die" if p["dice"] == 1 else f"{p['dice']} dice"
    out = []
    if p["players"] < 3:
        params = {"board": "trio", "players": 3, "gift_values": (), "focal_seat": -1}
        out.append(Derived(f"trio board, 3 players, {dice}, the ruleset's rulings and rule parameters",
                           ruleset.with_overrides(params, spec=SCHEMA), always=True, properties=TRIO_PROPERTIES))
        params = {"board": "trio-azar", "players": 3, "gift_values": (), "focal_seat": -1,
                  "host_remove": [], "host_skip": (1,)}
        out.append(Derived(f"trio-azar board, 3 players, {dice}, the host skipping turn slot 1, the ruleset's "
                           "rulings and rule parameters", ruleset.with_overrides(params, spec=SCHEMA),
                           always=True, properties=TRIO_PROPERTIES))
        params = {"board": "trio", "players": 3, "gift_values": (), "focal_seat": -1,
                  "host_remove": [HOST_REMOVAL], "host_skip": ()}
        out.append(Derived(f"trio board, 3 players, {dice}, the host removing seat {HOST_REMOVAL[1]} at turn slot "
                           f"{HOST_REMOVAL[0]}, the ruleset's rulings and rule parameters",
                           ruleset.with_overrides(params, spec=SCHEMA), always=True, properties=TRIO_PROPERTIES))
    if p["board"] != "chain":
        params = {"board": "chain", "players": 2, "host_remove": [], "host_skip": (), "gift_values": (),
                  "focal_seat": -1}
        out.append(Derived(f"chain board, 2 players, {dice}, the ruleset's rulings and rule parameters",
                           ruleset.with_overrides(params, spec=SCHEMA), always=True, properties=CHAIN_PROPERTIES))
    return official_companions(ruleset, dice) + out


def official_companions(ruleset: Ruleset, dice: str) -> list:
    """For a ruleset on an official board, the other official boards with 2 players, longest first:
    verify shares its derived configurations with a second core from both ends of their list, so
    the longest (Longa, ~480,000 states) is started at once, not last (it ended a Curta verify
    alone, 5 s after everything else)."""
    from ruleproof.model.properties import Derived
    p = ruleset.params
    if p["board"] not in OFFICIAL:
        return []
    out = []
    for name in sorted(OFFICIAL, key=lambda b: -OFFICIAL[b][0]):
        if name == p["board"] and p["players"] == 2 and not p["host_remove"] and not p["host_skip"]:
            continue   # the ruleset's own configuration
        params = {"board": name, "players": 2, "host_remove": [], "host_skip": (), "gift_values": (),
                  "focal_seat": -1}
        out.append(Derived(f"{name}, 2 players, {dice} (official board)", ruleset.with_overrides(params, spec=SCHEMA),
                           always=True, properties=COMPANION_PROPERTIES,
                           pair=f"official board {name}"))
    return out
