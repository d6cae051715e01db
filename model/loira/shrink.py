"""Smaller Loira configurations for ``verify``: derived ones that keep a ruleset's edit (explored in
place of a ruleset too big to explore), and the companions of the default small configuration.

The default small configuration (``SPEC.verify_overrides``: 2 players, seven cards, one Grito) is a
scale-down of the standard game, not an edit of it; what its deck cannot show is explored beside
it every time, each companion with every property (``Derived(..., always=True)``):

* three Gritos (the standard deck's): the third Grito ends the round and the deck never runs out
  (``loira-deck-never-empty``);
* the other base cards (a null card, Interruptor, Chute no Vaso, Espelho), with two Gritos: a stall
  kicked unseen, then an escape, then another opening (the centre belief after both: the Loira
  back for sure, with fewer cards in the centre than stalls unopened);
* three players (the direction of play, a third seat to target or to protect, escorts in seat order);
* a match (round wins, the next round's first seat, the match's end and its winners), with two
  stalls of one value and one of another: a face-down stall's value weighted by the counts;
* two Descargas on doubled cards (both seats may hold the card a Descarga takes, and the last hand
  slot, a 2-point Masculino, is dealt): whose card goes and which cards may;
* mini-expansion cards, one kind per deck (two Zeladors; two Rapagotes; two Tias with three rolls
  in the centre; two Ralos beside a Descarga; two Alunas; two Merendeiras; two Professoras with three
  players; two Diretoras with three players, more openers than stalls): their effects, the
  open-or-set-aside choice (L19) and their targets;
* two mini-expansion kinds in one deck (a Zelador and two Rapagotes): a closed card's kind is
  nobody's knowledge until it is opened, so the choice to open or set it aside, and opening one set
  aside, are taken without it (``loira-information``), and the kind drawn on opening is weighed by
  the closed cards' counts (the chance law bound in ``loira-table``).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from ruleproof.model.properties import Derived
from ruleproof.model.ruleset import Ruleset

from .cards import EXPANSION_KINDS, TOKENS, Kind, parse_token
from .config import config_from

#: the description of configurations derived from the default small one
SCALE_DOWN = "derived from the default small configuration"
#: the description of the default small configuration's companions
COMPANION = "a companion of the default small configuration"

#: (label, parameter overrides of the default small configuration)
COMPANIONS: tuple[tuple[str, Mapping[str, Any]], ...] = (
    ("3 Gritos", {"deck": ("F1", "F2", "grito", "grito", "grito", "toc-toc")}),
    ("the other base cards", {"deck": ("F-", "F2", "grito", "grito", "interruptor", "chute", "espelho"), "stalls": [3],
                              "rolls": [1, 0], "centre_rolls": 0}),
    ("3 players", {"players": 3, "deck": ("F1", "grito", "toc-toc", "descarga", "fios"), "stalls": [2],
                   "rolls": [1, 0, 0], "centre_rolls": 0}),
    ("a match", {"deck": ("F1", "grito", "toc-toc"), "objective": "match", "stalls": [2, 4, 4]}),
    # Descarga where both seats can hold the same card and the last hand slot (M2) is dealt
    ("two Descargas on doubled cards", {"deck": ("F1", "F1", "M2", "M2", "descarga", "descarga", "grito"),
                                        "stalls": [2], "centre_rolls": 0}),
    # mini-expansion cards, one kind per deck: a closed card's kind is then known to all (the model
    # shows it, which with two kinds leaks it: model/loira/README.md), so every property holds
    # there and the cards' effects, set-aside choices (L19) and targets are mapped move by move
    ("two Zeladors", {"deck": ("F1", "F2", "grito", "zelador", "zelador"), "stalls": [2]}),
    ("two Rapagotes", {"deck": ("F1", "F2", "grito", "rapagote", "rapagote"), "stalls": [2, 4]}),
    ("two Tias, three rolls in the centre", {"deck": ("F1", "grito", "tia", "tia"), "stalls": [2], "centre_rolls": 3}),
    ("two Ralos and a Descarga", {"deck": ("F1", "F2", "grito", "descarga", "ralo", "ralo"), "stalls": [2],
                                  "centre_rolls": 0}),
    ("two Alunas", {"deck": ("F1", "F2", "grito", "aluna", "aluna"), "stalls": [2, 4]}),
    ("two Merendeiras", {"deck": ("F1", "grito", "toc-toc", "merendeira", "merendeira"), "stalls": [2]}),
    ("3 players and two Professoras", {"players": 3, "deck": ("F1", "grito", "professora", "professora"),
                                       "stalls": [2], "rolls": [1, 0, 0], "centre_rolls": 0}),
    ("3 players and two Diretoras", {"players": 3, "deck": ("F1", "grito", "diretora", "diretora"), "stalls": [2],
                                     "rolls": [1, 0, 0], "centre_rolls": 0}),
    # two kinds, unequal counts: a closed card opened is a Rapagote with probability 2/3 at first
    ("a Zelador and two Rapagotes", {"deck": ("F1", "F2", "grito", "zelador", "rapagote", "rapagote"),
                                     "stalls": [2]}),
)


def standard_ruleset(ruleset: Ruleset) -> Ruleset:
    """The same rulings and player count with the standard components."""
    from ruleproof.model.loira import SPEC
    p, _ = SPEC.schema.defaults()
    p = dict(p, players=ruleset["players"], expansions=ruleset["expansions"], objective=ruleset["objective"],
             target_wins=ruleset["target_wins"])
    return Ruleset("loira", "standard", p, dict(ruleset.rulings), ruleset.source)


def is_verify_scale_down(ruleset: Ruleset) -> bool:
    """``ruleproof verify loira``: the game's default small configuration (or one derived from it),
    which stands in for the standard deck: its few cards are not an edit of the rules."""
    from ruleproof.model.loira import SPEC
    return (tuple(ruleset["deck"]) == tuple(SPEC.verify_overrides["deck"])
            or ruleset.description in (SCALE_DOWN, COMPANION))


def is_small_default(ruleset: Ruleset) -> bool:
    """Exactly the default small configuration's components (any rulings)."""
    from ruleproof.model.loira import SPEC
    return all(ruleset[k] == (tuple(v) if isinstance(v, (list, tuple)) else v)
               for k, v in SPEC.verify_overrides.items()) and ruleset["players"] == 2 \
        and ruleset["objective"] == "round" and ruleset.description not in (SCALE_DOWN, COMPANION)


def companions(ruleset: Ruleset) -> list[Derived]:
    """The companions of the default small configuration under the ruleset's rulings."""
    return _companions(ruleset, {}, always=True)


def _companions(ruleset: Ruleset, base: Mapping[str, Any], always: bool) -> list[Derived]:
    """Each of ``COMPANIONS`` as ``ruleset`` with ``base`` and the companion's own parameters, its
    rulings kept; those the model refuses under these rulings are left out."""
    from ruleproof.model.loira import SPEC
    out = []
    for label, params in COMPANIONS:
        if _refused(ruleset, params):
            continue   # e.g. two kinds under L25 'reshuffle' (config.belief_refusal): not a game the model plays
        rs = ruleset.with_overrides({**base, **params}, spec=SPEC.schema, source=f"companion of {ruleset.source}")
        out.append(Derived(label, dataclasses.replace(rs, description=COMPANION), always=always))
    return out


def _refused(ruleset: Ruleset, params: Mapping[str, Any]) -> bool:
    from .cards import counts_of
    from .config import belief_refusal
    deck = params.get("deck")
    return deck is not None and belief_refusal(counts_of(map(parse_token, deck)), ruleset.rulings) is not None


#: the cards every derived configuration starts from (two doors for an escape pair, a roll mover, a
#: point-card remover), before the edit's own cards are added
SHRINK_BASE = ("F1", "F2", "M1", "toc-toc", "descarga")
#: cards a changed ruling is about (the ruling can only part where they are in the deck)
RULING_CARDS = {"L05": ("F-", "interruptor"), "L07": ("chute",), "L10": ("fios",), "L12": ("espelho",),
                "L13": ("interruptor",), "L14": ("merendeira",), "L20": ("ralo",), "L23": ("fios",),
                "L29": ("chute",), "L30": ("interruptor",), "L32": ("fios",), "L33": ("fios",)}


def _kept_stalls(cfg, std) -> list[int]:
    """A derived configuration's stalls: 2 and 4, plus every value the edit adds or makes more
    common than the standard stalls (a new 5-point stall stays; a value made rarer is still there)."""
    mine, theirs = dict(zip(cfg.stalls, cfg.stall_counts)), dict(zip(std.stalls, std.stall_counts))
    return sorted({2, 4} | {v for v, n in mine.items() if n > theirs.get(v, 0)})


def shrink(ruleset: Ruleset) -> list[tuple[str, Ruleset]]:
    """Derived configurations for a ruleset too big to explore: a small deck that keeps every card
    kind the edit touches (kinds whose count differs from the standard deck, at the ruleset's
    count; the Gritos at the ruleset's count, since they decide whether the deck can run out; the
    cards a changed ruling is about), the stall values 2 and 4 and every value the edit adds
    (``_kept_stalls``), one roll; 2 players, and 3 when the ruleset has 3 or more. Rulings,
    objective and target stay."""
    from ruleproof.model.loira import SPEC
    cfg, std = config_from(ruleset), config_from(standard_ruleset(ruleset))
    _, default_rulings = SPEC.schema.defaults()
    counts: dict[int, int] = {}
    for token in SHRINK_BASE:
        counts[parse_token(token)] = 1 if cfg.deck[parse_token(token)] else 0
    counts[Kind.GRITO] = cfg.deck[Kind.GRITO]
    for k, (mine, theirs) in enumerate(zip(cfg.deck, std.deck)):
        if mine != theirs and mine:
            counts[k] = mine
    for rid, tokens in RULING_CARDS.items():
        if ruleset.rulings[rid] != default_rulings[rid]:
            for token in tokens:
                counts.setdefault(parse_token(token), 1)
    if ruleset.rulings["L19"] != default_rulings["L19"] and not any(counts.get(k) for k in EXPANSION_KINDS):
        counts[next((k for k in EXPANSION_KINDS if cfg.deck[k]), Kind.RAPAGOTE)] = 1
    deck = [TOKENS[k] for k in sorted(counts) for _ in range(counts[k])]
    stalls = _kept_stalls(cfg, std)
    out = []
    for players in ([2, 3] if cfg.players >= 3 else [2]):
        if players == 2 and counts.get(Kind.PROFESSORA):
            continue   # 000: the Professora is for 3 or more players
        params = {"players": players, "deck": deck, "stalls": stalls, "stall_count": 7, "expansions": [],
                  "rolls": "standard", "centre_rolls": 1, "first_seat": 0,
                  "target_wins": min(ruleset["target_wins"], 2)}
        label = f"{len(deck)} cards: {' '.join(deck)}; {players} players; stalls {' '.join(map(str, stalls))}; 1 roll"
        derived = ruleset.with_overrides(params, spec=SPEC.schema, source=f"derived from {ruleset.source}")
        if is_verify_scale_down(ruleset):
            derived = dataclasses.replace(derived, description=SCALE_DOWN)
        out.append((label, derived))
    return out


def derived(ruleset: Ruleset) -> list[Derived]:
    """What ``verify`` explores besides (companions of the default small configuration) or instead
    of (a ruleset too big to explore) the ruleset itself."""
    if is_small_default(ruleset):
        return companions(ruleset)
    return [Derived(label, rs) for label, rs in shrink(ruleset)] + full_size_companions(ruleset)


def full_size_companions(ruleset: Ruleset) -> list[Derived]:
    """Beside a round too big to explore, the default small configuration's companions under the
    ruleset's rulings: the cards and situations a shrunken deck leaves out (a null card,
    Interruptor, Chute no Vaso, Espelho; a third seat; a match; doubled cards under Descarga; every
    mini-expansion kind) are explored, not only sampled -- as Bomb Busters, Presentes and the dice
    races explore theirs beside every ruleset. A match too big to explore gets none (its rounds are
    the small configuration's companions already)."""
    from ruleproof.model.loira import SPEC
    if ruleset["objective"] != "round":
        return []
    base = {**SPEC.verify_overrides, "players": 2, "stall_count": 7, "expansions": [], "first_seat": 0}
    return _companions(ruleset, base, always=False)
