"""From a game state to one seat's view (a :class:`~view.Position`), and back to a view file.

This is what the seat may know, in the deduction engine's terms: its own wires; of every other
rack the cut wires (face up), the info tokens, the exclusions left by a failed Detector Duplo;
the claims "this hand holds a wire of value v" made by failed cuts; the shown red and yellow
candidates and how many of each are in play.
"""
from __future__ import annotations

from . import rules as R
from . import state as S
from . import tiles as T
from .game import BombBusters
from .state import State
from .view import FORMAT, Claim, Position, Slot


def _slot(w: int) -> Slot:
    if S.is_cut(w):
        return Slot(cut=True, tile=S.code(w))
    named = S.info_named(w)
    if named == T.YELLOW:
        return Slot(category=T.YELLOW)
    if named is not None:
        return Slot(tile=named)
    bits = S.nots(w)
    excluded = frozenset(T.blue(v) for v in range(1, 13) if bits >> (v - 1) & 1)
    if bits >> 12 & 1:
        excluded |= {T.YELLOW}
    return Slot(excluded=excluded)


def position(game: BombBusters, s: State, seat: int) -> Position:
    m = game.mission
    own = tuple(tuple((S.code(w), S.is_cut(w)) for w in s.racks[r]) for r in R.hand(m, seat))
    no_blue = {c >> 8 for c in s.claims if c & 255 == R.NO_BLUE}
    all_blue = frozenset(T.blue(v) for v in range(1, m.blue_values + 1))
    racks = []
    for r, rack in enumerate(s.racks):
        owner = m.rack_owner[r]
        if owner == seat:
            continue
        slots = [_slot(w) for w in rack]
        if owner in no_blue:  # no set-up token: no blue wire in that hand
            slots = [sl if sl.cut else Slot(category=sl.category, excluded=sl.excluded | all_blue)
                     for sl in slots]
        racks.append((owner, tuple(slots)))
    racks = tuple(racks)
    claims = tuple(Claim(c >> 8, c & 255) for c in s.claims if c >> 8 != seat and c & 255 != R.NO_BLUE)
    return Position(m.blue_values, m.blue_copies, tuple(sorted(s.reds)), m.red_in_play,
                    tuple(sorted(s.yellows)), m.yellow_in_play, tuple(f"p{i}" for i in range(m.players)),
                    seat, own, racks, claims, "game state")


def view_json(pos: Position) -> dict:
    """The view file (``bomb-busters-view/1``) of a position."""
    hands = []
    for h, name in enumerate(pos.names):
        if h == pos.viewer:
            racks = [[("x" if cut else "") + T.show(t) for t, cut in rack] for rack in pos.own]
        else:
            racks = [[slot.text() for slot in slots] for hand, slots in pos.racks if hand == h]
        hands.append({"name": name, "racks": racks})
    data = {"format": FORMAT,
            "mission": {"blue_values": pos.blue_values, "blue_copies": pos.blue_copies,
                        "red": {"values": [T.value(t) for t in pos.red_candidates], "in_play": pos.red_in_play},
                        "yellow": {"values": [T.value(t) for t in pos.yellow_candidates],
                                   "in_play": pos.yellow_in_play}},
            "viewer": pos.names[pos.viewer], "hands": hands}
    if pos.claims:
        data["claims"] = [{"hand": pos.names[c.hand], "holds": T.show_named(c.named)[0].upper()
                           if c.named == T.YELLOW else T.show(c.named), "at_least": c.at_least}
                          for c in pos.claims]
    return data
