"""Loira do Banheiro components: card kinds, the standard main deck, the stalls.

Sources: ``seeds/000_1b118c65daa2cfb1.txt`` (rulebook, "Componentes", "Cartas", "Mini-expansÕES")
and ``spec/loira.md`` ("Components"). Main-deck cards are identified by a small integer *kind*;
cards of the same kind are interchangeable (the symmetry "identical cards" is built in: the deck,
the discard pile and every holding are multisets, stored as counts per kind).
"""
from __future__ import annotations

from enum import IntEnum
from typing import Iterable


class Door(IntEnum):
    """The three bathroom door types (000: "Banheiro (Feminino, Masculino e PCD)")."""
    F = 0   # Feminino
    P = 1   # PCD
    M = 2   # Masculino


class Kind(IntEnum):
    """Main-deck card kinds. Bathroom cards are ``door * 3 + value`` (value 0 is the null "-")."""
    F0 = 0
    F1 = 1
    F2 = 2
    P0 = 3
    P1 = 4
    P2 = 5
    M0 = 6
    M1 = 7
    M2 = 8
    GRITO = 9
    TOCTOC = 10
    INTERRUPTOR = 11
    CHUTE = 12
    DESCARGA = 13
    FIOS = 14
    ESPELHO = 15
    # mini-expansion cards (000, "Mini-expansÕES")
    RAPAGOTE = 16
    ZELADOR = 17
    DIRETORA = 18
    TIA = 19
    ALUNA = 20
    PROFESSORA = 21
    MERENDEIRA = 22
    RALO = 23


def plain_ints(enum: type[IntEnum]) -> type:
    """The members of ``enum`` as plain int class attributes, for the transition code: looking up
    ``Kind.GRITO`` on an IntEnum costs ~0.25 us (the enum metaclass), on a plain class ~0.09 us,
    and the explorer runs such look-ups millions of times. Same values; states then hold ints."""
    return type(enum.__name__ + "Ints", (), {m.name: int(m) for m in enum})


KindInts = plain_ints(Kind)

NUM_KINDS = 24
BATHROOM_KINDS = tuple(range(9))
EXPANSION_KINDS = tuple(range(Kind.RAPAGOTE, Kind.RALO + 1))
#: kinds a player keeps in front of them (the others are resolved and discarded)
KEPT_KINDS = frozenset(BATHROOM_KINDS) | {Kind.ESPELHO, Kind.INTERRUPTOR, Kind.RALO}


def bathroom(door: int, value: int) -> int:
    return door * 3 + value


#: the token used in TOML decks for each kind
TOKENS: dict[int, str] = {
    Kind.F0: "F-", Kind.F1: "F1", Kind.F2: "F2",
    Kind.P0: "P-", Kind.P1: "P1", Kind.P2: "P2",
    Kind.M0: "M-", Kind.M1: "M1", Kind.M2: "M2",
    Kind.GRITO: "grito", Kind.TOCTOC: "toc-toc", Kind.INTERRUPTOR: "interruptor",
    Kind.CHUTE: "chute", Kind.DESCARGA: "descarga", Kind.FIOS: "fios", Kind.ESPELHO: "espelho",
    Kind.RAPAGOTE: "rapagote", Kind.ZELADOR: "zelador", Kind.DIRETORA: "diretora",
    Kind.TIA: "tia", Kind.ALUNA: "aluna", Kind.PROFESSORA: "professora",
    Kind.MERENDEIRA: "merendeira", Kind.RALO: "ralo",
}
TOKEN_KIND: dict[str, int] = {tok.lower(): k for k, tok in TOKENS.items()}
TOKEN_KIND.update({"f0": Kind.F0, "p0": Kind.P0, "m0": Kind.M0, "toctoc": Kind.TOCTOC,
                   "chute-no-vaso": Kind.CHUTE, "fios-de-cabelo": Kind.FIOS,
                   "tia-da-limpeza": Kind.TIA})
EXPANSION_NAMES = tuple(TOKENS[k] for k in EXPANSION_KINDS)

#: L01 -- how the printed 1- and 2-point bathroom cards split, per door: (nulls, ones, twos).
#: Printed counts: Feminino 7 (-, 1, 2), PCD 7 (-, 1, 2), Masculino 6 (1, 2).
BATHROOM_SPLITS: dict[str, dict[int, tuple[int, int, int]]] = {
    "even": {Door.F: (1, 3, 3), Door.P: (1, 3, 3), Door.M: (0, 3, 3)},
    "more-ones": {Door.F: (1, 4, 2), Door.P: (1, 4, 2), Door.M: (0, 4, 2)},
    "more-twos": {Door.F: (1, 2, 4), Door.P: (1, 2, 4), Door.M: (0, 2, 4)},
}

#: L02 -- the values of the 6 score stalls of one box
STALL_SETS: dict[str, tuple[int, ...]] = {
    "2-2-3-3-4-4": (2, 2, 3, 3, 4, 4),
    "2-3-3-3-3-4": (2, 3, 3, 3, 3, 4),
    "2-2-2-4-4-4": (2, 2, 2, 4, 4, 4),
}


def parse_token(token: str) -> int:
    kind = TOKEN_KIND.get(str(token).strip().lower())
    if kind is None:
        raise ValueError(f"unknown card {token!r} (cards: {', '.join(TOKENS.values())})")
    return kind


def counts_of(kinds: Iterable[int]) -> tuple[int, ...]:
    out = [0] * NUM_KINDS
    for k in kinds:
        out[k] += 1
    return tuple(out)


def standard_deck(players: int, split: str, expansions: Iterable[int], boxes: int) -> tuple[int, ...]:
    """Counts per kind of the standard main deck (000 "Componentes", "NOTA", "Jogando em 6 a 10").

    One box: 3 Grito, 3 Toc-Toc, the 5 specials and the 20 bathroom cards; for 2 or 3 players the
    null bathroom cards are removed (000: "Num jogo para 2 ou 3 jogadores, as cartas de Banheiro
    que não possuem pontuação devem ser retiradas"). ``boxes`` copies of it (L35), plus one of each
    chosen mini-expansion card.
    """
    counts = [0] * NUM_KINDS
    for door, (nulls, ones, twos) in BATHROOM_SPLITS[split].items():
        counts[bathroom(door, 0)] += 0 if players <= 3 else nulls
        counts[bathroom(door, 1)] += ones
        counts[bathroom(door, 2)] += twos
    counts[Kind.GRITO] += 3
    counts[Kind.TOCTOC] += 3
    for special in (Kind.INTERRUPTOR, Kind.CHUTE, Kind.DESCARGA, Kind.FIOS, Kind.ESPELHO):
        counts[special] += 1
    counts = [c * boxes for c in counts]
    for kind in expansions:
        counts[kind] += 1
    return tuple(counts)


def standard_stalls(stall_set: str, stall_count: int, selection: str) -> tuple[int, ...]:
    """Score stall values for ``stall_count`` stalls in total (the Loira is one of them).

    7 stalls: one box's six (L02). More (two boxes, 000: "desde que o mínimo seja 7 ... e o máximo
    13"): the second box's stalls are added in the order given by L34.
    """
    first = STALL_SETS[stall_set]
    extra = stall_count - 1 - len(first)
    if extra <= 0:
        return tuple(sorted(first))
    second = list(first)
    if selection == "high-first":
        order = sorted(second, reverse=True)
    else:  # "cycle": one of each value in turn, lowest first
        order = []
        pool = sorted(second)
        while pool:
            for v in sorted(set(pool)):
                order.append(v)
                pool.remove(v)
    return tuple(sorted(first + tuple(order[:extra])))
