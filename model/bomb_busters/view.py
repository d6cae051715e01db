"""The position file (VIEW.json): one player's view of a Bomb Busters table, and its parser.

Format ``bomb-busters-view/1`` (documented in ``model/bomb_busters/README.md``)::

    {"format": "bomb-busters-view/1",
     "mission": {"blue_values": 12, "blue_copies": 4,
                 "red": {"values": [4, 9], "in_play": 1},
                 "yellow": {"values": [2, 6], "in_play": 2}},
     "viewer": "ana",
     "hands": [{"name": "ana", "racks": [["1", "x2", "3.1", "5"]]},
               {"name": "bia", "racks": [["?", "x2", "?7", "?Y", "?~5~8"]]}],
     "claims": [{"hand": "bia", "holds": "7", "at_least": 1}]}

Slots: in the viewer's own racks a wire is written as printed (``"7"``, yellow ``"3.1"``, red
``"3.5"``), prefixed ``x`` when cut. In other racks: ``"?"`` unknown, ``"x7"`` cut face up,
``"?7"`` uncut with an info token 7, ``"?Y"`` a yellow info token (B05), ``"?R"`` known red,
``"?~5~Y"`` known not to be 5 nor yellow. A claim says a hand holds at least ``at_least`` uncut
wires of a value (a failed dual cut naming it tells so). Every mistake raises ``RulesetError``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruleproof.model.ruleset import RulesetError, read_input_json

from . import tiles as T
from .tiles import Named, Tile

FORMAT = "bomb-busters-view/1"


@dataclass(frozen=True)
class Slot:
    """What the viewer knows of one position of another player's rack."""

    cut: bool = False
    tile: Tile | None = None  # cut face up, or an info token naming a blue value / own wire
    category: Named | None = None  # YELLOW or RED_ANY: known colour, value hidden
    excluded: frozenset[Named] = frozenset()

    def allows(self, tile: Tile) -> bool:
        if self.tile is not None:
            return tile == self.tile
        if self.category is not None and not T.matches(tile, self.category):
            return False
        return not any(T.matches(tile, n) for n in self.excluded)

    def text(self) -> str:
        if self.cut:
            return "x" + T.show(self.tile)
        if self.tile is not None:
            return "?" + T.show(self.tile)
        out = "?" + {T.YELLOW: "Y", T.RED_ANY: "R", None: ""}[self.category]
        for n in sorted(self.excluded):
            out += "~" + {T.YELLOW: "Y", T.RED_ANY: "R"}.get(n, T.show(n))
        return out


@dataclass(frozen=True)
class Claim:
    hand: int
    named: Named
    at_least: int = 1


@dataclass(frozen=True)
class Position:
    blue_values: int
    blue_copies: int
    red_candidates: tuple[Tile, ...]
    red_in_play: int
    yellow_candidates: tuple[Tile, ...]
    yellow_in_play: int
    names: tuple[str, ...]  # hand names, in seat order
    viewer: int
    own: tuple[tuple[tuple[Tile, bool], ...], ...]  # viewer's racks: (tile, cut)
    racks: tuple[tuple[int, tuple[Slot, ...]], ...]  # other racks: (hand index, slots)
    claims: tuple[Claim, ...] = ()
    source: str = "view"

    @property
    def total_wires(self) -> int:
        return self.blue_values * self.blue_copies + self.red_in_play + self.yellow_in_play

    def own_tiles(self) -> list[Tile]:
        return [t for rack in self.own for t, _ in rack]

    def own_uncut(self) -> list[Tile]:
        return [t for rack in self.own for t, cut in rack if not cut]

    def hidden_count(self) -> int:
        return sum(1 for _, slots in self.racks for s in slots if s.tile is None and s.category is None)


# ---- parsing ---------------------------------------------------------------------------------

def _err(src: str, key: str, reason: str) -> RulesetError:
    return RulesetError(src, key, reason)


def _int(src: str, key: str, raw: Any, lo: int, hi: int) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or not lo <= raw <= hi:
        raise _err(src, key, f"must be an integer from {lo} to {hi}, not {raw!r}")
    return raw


def _named(src: str, key: str, text: Any, max_blue: int) -> Named:
    if not isinstance(text, (str, int)) or isinstance(text, bool):
        raise _err(src, key, f"must be a value like '7' or 'Y', not {text!r}")
    text = str(text)
    if text.upper() in ("Y", "YELLOW"):
        return T.YELLOW
    if text.upper() in ("R", "RED"):
        return T.RED_ANY
    try:
        tile = T.parse(text, max_blue)
    except ValueError as exc:
        raise _err(src, key, str(exc)) from None
    if T.colour(tile) != T.Colour.BLUE:
        raise _err(src, key, f"{text!r}: name a blue value, 'Y' or 'R' here")
    return tile


def parse_slot(src: str, key: str, raw: Any, max_blue: int, own: bool) -> tuple[Tile, bool] | Slot:
    if not isinstance(raw, str) or not raw.strip():
        raise _err(src, key, f"a slot is a non-empty string like '7', 'x7', '?', '?7', not {raw!r}")
    text = raw.strip()
    try:
        if text[0] in "xX":
            tile = T.parse(text[1:], max_blue)
            return (tile, True) if own else Slot(cut=True, tile=tile)
        if text[0] != "?":
            if not own:
                raise ValueError(f"{text!r}: another player's uncut wire is '?', '?7', '?Y', '?R' or '?~7'")
            return (T.parse(text, max_blue), False)
        if own:
            raise ValueError("the viewer's own wires are known: write them as printed, not '?'")
        body, *nots = text[1:].split("~")
        excluded = frozenset(_named(src, key, n, max_blue) for n in nots)
        if body == "":
            return Slot(excluded=excluded)
        if excluded:
            raise ValueError("'~' exclusions go only after a bare '?'")
        if body.upper() == "Y":
            return Slot(category=T.YELLOW)
        if body.upper() == "R":
            return Slot(category=T.RED_ANY)
        tile = T.parse(body, max_blue)
        if T.colour(tile) != T.Colour.BLUE:
            raise ValueError("an info token shows a blue value or 'Y'; use '?Y' for a yellow token")
        return Slot(tile=tile)
    except RulesetError:  # already names the file and the slot
        raise
    except ValueError as exc:
        raise _err(src, key, str(exc)) from None


def _colours(src: str, mission: dict, name: str, make) -> tuple[tuple[Tile, ...], int]:
    raw = mission.get(name, {"values": [], "in_play": 0})
    key = f"mission.{name}"
    if not isinstance(raw, dict) or set(raw) - {"values", "in_play"}:
        raise _err(src, key, "must be an object with 'values' (list of v) and 'in_play'")
    values = raw.get("values", [])
    if not isinstance(values, list):
        raise _err(src, key + ".values", "must be a list of integers 1..11")
    vals = [_int(src, f"{key}.values[{i}]", v, 1, 11) for i, v in enumerate(values)]
    if len(set(vals)) != len(vals):
        raise _err(src, key + ".values", "values repeat (each red or yellow tile is unique)")
    in_play = _int(src, key + ".in_play", raw.get("in_play", len(vals)), 0, len(vals))
    return tuple(sorted(make(v) for v in vals)), in_play


def parse_view(data: Any, src: str = "view") -> Position:
    if not isinstance(data, dict):
        raise _err(src, "-", "a view file is a JSON object")
    unknown = set(data) - {"format", "mission", "viewer", "hands", "claims", "comment"}
    if unknown:
        raise _err(src, sorted(unknown)[0], "unknown key (allowed: format, mission, viewer, hands, claims, comment)")
    if data.get("format") != FORMAT:
        raise _err(src, "format", f"must be {FORMAT!r}, not {data.get('format')!r}")
    mission = data.get("mission")
    if not isinstance(mission, dict):
        raise _err(src, "mission", "missing or not an object")
    bad = set(mission) - {"blue_values", "blue_copies", "red", "yellow"}
    if bad:
        raise _err(src, f"mission.{sorted(bad)[0]}", "unknown key (allowed: blue_values, blue_copies, red, yellow)")
    blue_values = _int(src, "mission.blue_values", mission.get("blue_values", 12), 1, 12)
    blue_copies = _int(src, "mission.blue_copies", mission.get("blue_copies", 4), 2, 4)
    if blue_copies % 2:
        raise _err(src, "mission.blue_copies", "must be 2 or 4 (blue wires are cut two at a time)")
    reds, red_in = _colours(src, mission, "red", T.red)
    yellows, yellow_in = _colours(src, mission, "yellow", T.yellow)

    hands = data.get("hands")
    if not isinstance(hands, list) or not 2 <= len(hands) <= 5:
        raise _err(src, "hands", "must list 2 to 5 hands (one per player)")
    names: list[str] = []
    for i, hand in enumerate(hands):
        if not isinstance(hand, dict) or set(hand) != {"name", "racks"}:
            raise _err(src, f"hands[{i}]", "each hand is an object with exactly 'name' and 'racks'")
        if not isinstance(hand["name"], str) or not hand["name"] or hand["name"] in names:
            raise _err(src, f"hands[{i}].name", "must be a non-empty string, unique among hands")
        names.append(hand["name"])
    viewer_name = data.get("viewer")
    if viewer_name not in names:
        raise _err(src, "viewer", f"must name one of the hands ({', '.join(names)}), not {viewer_name!r}")
    viewer = names.index(viewer_name)

    own: list[tuple[tuple[Tile, bool], ...]] = []
    racks: list[tuple[int, tuple[Slot, ...]]] = []
    for i, hand in enumerate(hands):
        rl = hand["racks"]
        if not isinstance(rl, list) or not 1 <= len(rl) <= 2:
            raise _err(src, f"hands[{i}].racks", "a hand is one or two racks (lists of slots)")
        for r, rack in enumerate(rl):
            key = f"hands[{i}].racks[{r}]"
            if not isinstance(rack, list):
                raise _err(src, key, "a rack is a list of slot strings")
            slots = [parse_slot(src, f"{key}[{j}]", s, blue_values, i == viewer) for j, s in enumerate(rack)]
            if i == viewer:
                codes = [t for t, _ in slots]
                if codes != sorted(codes):
                    raise _err(src, key, "the viewer's rack is not sorted ascending")
                own.append(tuple(slots))
            else:
                racks.append((i, tuple(slots)))

    claims = []
    raw_claims = data.get("claims", [])
    if not isinstance(raw_claims, list):
        raise _err(src, "claims", "must be a list")
    for c, claim in enumerate(raw_claims):
        key = f"claims[{c}]"
        if not isinstance(claim, dict) or not {"hand", "holds"} <= set(claim) <= {"hand", "holds", "at_least"}:
            raise _err(src, key, "a claim is {'hand': name, 'holds': value, 'at_least': n}")
        if claim["hand"] not in names or claim["hand"] == viewer_name:
            raise _err(src, key + ".hand", "must name another player's hand")
        named = _named(src, key + ".holds", claim["holds"], blue_values)
        if named == T.RED_ANY:
            raise _err(src, key + ".holds", "nobody names red in a dual cut")
        claims.append(Claim(names.index(claim["hand"]), named,
                            _int(src, key + ".at_least", claim.get("at_least", 1), 1, 4)))

    pos = Position(blue_values, blue_copies, reds, red_in, yellows, yellow_in, tuple(names), viewer,
                   tuple(own), tuple(racks), tuple(claims), src)
    check_counts(pos)
    return pos


def check_counts(pos: Position) -> None:
    """Slot totals and visible tiles must fit the mission's wires."""
    src = pos.source
    slots = sum(len(r) for r in pos.own) + sum(len(s) for _, s in pos.racks)
    if slots != pos.total_wires:
        raise _err(src, "hands", f"{slots} slots but the mission deals {pos.total_wires} wires")
    seen: dict[Tile, int] = {}
    for t in pos.own_tiles() + [s.tile for _, sl in pos.racks for s in sl if s.tile is not None]:
        seen[t] = seen.get(t, 0) + 1
    candidates = set(pos.red_candidates) | set(pos.yellow_candidates)
    for t, n in sorted(seen.items()):
        if T.colour(t) == T.Colour.BLUE:
            if n > pos.blue_copies:
                raise _err(src, "hands", f"{n} wires {T.show(t)} shown but there are {pos.blue_copies}")
        elif t not in candidates:
            raise _err(src, "hands", f"wire {T.show(t)} is not among the mission's red/yellow values")
        elif n > 1:
            raise _err(src, "hands", f"wire {T.show(t)} shown twice (each red or yellow tile is unique)")
    for cands, k, what in ((pos.red_candidates, pos.red_in_play, "red"),
                           (pos.yellow_candidates, pos.yellow_in_play, "yellow")):
        if sum(1 for t in cands if t in seen) > k:
            raise _err(src, f"mission.{what}", f"more {what} wires shown than the {k} in play")


def load_view(path: Path) -> Position:
    return parse_view(read_input_json(Path(path)), str(path))
