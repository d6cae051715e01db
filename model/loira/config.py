"""Parameters of a Loira ruleset and the resolved configuration a game is built from.

Components are parameters (a reduced deck given card by card, the stall values, the chosen
mini-expansions, the rolls each seat and the centre hold when the round starts, the starting seat,
the number of players); rule readings are the rulings of :mod:`model.loira.rulings`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ruleproof.model.ruleset import Param, RulesSchema, Ruleset, RulesetError, int_in, int_list, one_of

from .cards import (EXPANSION_KINDS, EXPANSION_NAMES, NUM_KINDS, TOKENS, Kind, counts_of, parse_token,
                    standard_deck, standard_stalls)
from .rulings import RULINGS

STANDARD = "standard"


def _deck(value: Any) -> Any:
    if value == STANDARD:
        return STANDARD
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, (list, tuple)) or not value:
        raise ValueError('must be "standard" or a non-empty list of cards')
    return tuple(TOKENS[k] for k in sorted(parse_token(v) for v in value))


def _stalls(value: Any) -> Any:
    if value == STANDARD:
        return STANDARD
    return tuple(sorted(int_list(1, 9, 0, 12)(value)))


def _expansions(value: Any) -> tuple[int, ...]:
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, (list, tuple)):
        raise ValueError("must be a list of mini-expansion names")
    out: list[int] = []
    for name in value:
        kind = parse_token(name)
        if kind < Kind.RAPAGOTE:
            raise ValueError(f"{name!r} is not a mini-expansion card ({', '.join(EXPANSION_NAMES)})")
        if kind in out:
            raise ValueError(f"{name!r} is listed twice")
        out.append(kind)
    return tuple(TOKENS[k] for k in sorted(out))


def _rolls(value: Any) -> Any:
    if value == STANDARD:
        return STANDARD
    return int_list(0, 6, 2, 10)(value)


PARAMS: tuple[Param, ...] = (
    Param("players", "number of players (2-5 with one box, 6-10 with two)", 2, int_in(2, 10)),
    Param("deck", 'main deck: "standard" (built from L01, the player count and the expansions) or '
          'a list of cards (F-, F1, F2, P-, P1, P2, M-, M1, M2, grito, toc-toc, interruptor, chute, '
          'descarga, fios, espelho and mini-expansion names)', STANDARD, _deck),
    Param("stalls", 'score stall values: "standard" (L02, stall_count, L34) or a list of values '
          '(the Loira is always added)', STANDARD, _stalls),
    Param("stall_count", "stall cards in the centre, the Loira included (7; 7-13 with two boxes)",
          7, int_in(7, 13)),
    Param("expansions", "mini-expansion cards shuffled into a standard deck", (), _expansions),
    Param("rolls", 'rolls each seat holds when the first round starts: "standard" (none) or a '
          'list, one per seat', STANDARD, _rolls),
    Param("centre_rolls", "rolls in the centre when the first round starts (-1: the rest of the "
          "boxes' rolls, 3 per box)", -1, int_in(-1, 12)),
    Param("first_seat", "the seat that starts the first round", 0, int_in(0, 9)),
    Param("objective", "round: utility of one round; match: first to target_wins round wins",
          "round", one_of("round", "match")),
    Param("target_wins", "round wins that end the match (000: 2)", 2, int_in(1, 5)),
)


def whole_check(p: Mapping[str, Any]) -> tuple[str, str] | None:
    n = p["players"]
    if p["rolls"] != STANDARD and len(p["rolls"]) != n:
        return "rolls", f"needs one entry per seat ({n}), not {len(p['rolls'])}"
    if p["first_seat"] >= n:
        return "first_seat", f"must be a seat from 0 to {n - 1}"
    if p["stall_count"] > 7 and n < 6:
        return "stall_count", "more than 7 stalls needs two boxes (6 to 10 players)"
    kinds = tuple(map(parse_token, p["expansions"] if p["deck"] == STANDARD else p["deck"]))
    if Kind.PROFESSORA in kinds and n < 3:
        return "expansions", "Professora is only for 3 or more players (000)"
    if p["deck"] != STANDARD and p["expansions"]:
        return "expansions", "give mini-expansion cards inside the custom deck instead"
    return None


SCHEMA = RulesSchema("loira", PARAMS, RULINGS, whole_check)


@dataclass(frozen=True)
class Config:
    """Everything a round needs, resolved from a ruleset."""

    players: int
    deck: tuple[int, ...]          # counts per card kind (length NUM_KINDS)
    stalls: tuple[int, ...]        # distinct score stall values, ascending
    stall_counts: tuple[int, ...]  # how many stalls of each value
    rolls: tuple[int, ...]         # per seat at the start of the first round
    centre_rolls: int
    first_seat: int
    objective: str
    target_wins: int
    rulings: Mapping[str, str]

    @property
    def total_rolls(self) -> int:
        return self.centre_rolls + sum(self.rolls)

    @property
    def deck_size(self) -> int:
        return sum(self.deck)

    def rule(self, ruling_id: str) -> str:
        return self.rulings[ruling_id]



def belief_refusal(deck: tuple[int, ...], rulings: Mapping[str, str]) -> tuple[str, str] | None:
    """Why the model cannot play this deck exactly (the keys to change, the reason), or None.

    A closed mini-expansion card's kind is a belief: its kind's count among the cards not yet
    revealed (``LoiraGame.chance_outcomes``). That is exact while every closed card is alike, which
    a reshuffle breaks when it puts an opened card back into the deck while a closed card lies
    aside and two kinds are about: the card aside is then one of the old ones only (pool {x, y},
    one aside, an x shuffled back in: after an x is drawn, the card aside is a y with probability
    2/3, not the 1/2 the counts say). That needs a reshuffle: the Merendeira's (with two kinds among
    the other mini-expansion cards: one opened and shuffled back, one aside) or L25 'reshuffle' on a
    deck that can run out (fewer than 3 Gritos). Those decks are refused, not solved wrongly."""
    kinds = [k for k in EXPANSION_KINDS if deck[k]]
    if len(kinds) < 2:
        return None
    names = ", ".join(TOKENS[k] for k in kinds)
    why = (f"mini-expansion cards of {len(kinds)} kinds ({names}) with a reshuffle that can bring an "
           "opened one back while another lies aside closed: the closed cards are then no longer alike "
           "and the model keeps no exact belief for that")
    if rulings.get("L25") == "reshuffle" and deck[Kind.GRITO] < 3:
        return "deck, rulings.L25", f"{why} (L25 'reshuffle', fewer than 3 Gritos); use one kind, 3 Gritos or L25 'round-ends'"
    if deck[Kind.MERENDEIRA]:
        others = [k for k in EXPANSION_KINDS if deck[k] - (k == Kind.MERENDEIRA) > 0]
        if len(others) >= 2:
            return "deck", f"{why} (the Merendeira); keep at most one other kind beside one Merendeira, or leave the Merendeira out"
    return None


def config_from(ruleset: Ruleset) -> Config:
    p, r = ruleset.params, ruleset.rulings
    n = p["players"]
    boxes = 2 if n >= 6 else 1
    if p["deck"] == STANDARD:
        deck = standard_deck(n, r["L01"], map(parse_token, p["expansions"]),
                             boxes if r["L35"] == "both-decks" else 1)
    else:
        deck = counts_of(parse_token(t) for t in p["deck"])
    if p["stalls"] == STANDARD:
        values = standard_stalls(r["L02"], p["stall_count"], r["L34"])
    else:
        values = p["stalls"]
    refused = belief_refusal(deck, r)
    if refused:
        key, reason = refused
        key = "params." + key if p["deck"] != STANDARD else key.replace("deck", "params.expansions")
        raise RulesetError(ruleset.origin("deck" if p["deck"] != STANDARD else "expansions"), key, reason)
    distinct = tuple(sorted(set(values)))
    rolls = (0,) * n if p["rolls"] == STANDARD else tuple(p["rolls"])
    centre = p["centre_rolls"] if p["centre_rolls"] >= 0 else max(0, 3 * boxes - sum(rolls))
    return Config(n, deck, distinct, tuple(values.count(v) for v in distinct), rolls, centre,
                  p["first_seat"], p["objective"], p["target_wins"], dict(r))


assert len(TOKENS) == NUM_KINDS
