"""A mission is a parameter set; this module holds the parameters, the rulings catalog and the
checked :class:`Mission` built from a ruleset.

Source: ``seeds/004_cf0d8baf3038c827.txt`` ("Preparação", "O Turno de Jogo", "Cartas de
Equipamento") and ``spec/bomb-busters.md`` (rulings B01-B09). Rulings B10 onwards are ours; each
cites the sentence it interprets (see ``model/bomb_busters/README.md``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ruleproof.model.ruleset import Param, Ruleset, RulesSchema, Ruling, boolean, int_in, int_list

from .tiles import Tile, blue_pool

#: equipment cards the text describes, with the value printed on them (unlocks the card)
EQUIPMENT_VALUES = {"comunicadores": 2, "estabilizador": 9}


def equipment_list(raw: Any) -> tuple[tuple[str, int], ...]:
    """``["estabilizador", "comunicadores@3"]`` -> ((name, unlock value), ...)."""
    if isinstance(raw, str):
        raw = [p for p in raw.replace(",", " ").split()]
    if not isinstance(raw, (list, tuple)):
        raise ValueError("must be a list of equipment names (optionally name@value)")
    out = []
    for item in raw:
        if not isinstance(item, str):
            raise ValueError(f"equipment entries are strings, not {item!r}")
        name, sep, at = item.partition("@")
        if name not in EQUIPMENT_VALUES:
            raise ValueError(f"unknown equipment {name!r} (known: {', '.join(EQUIPMENT_VALUES)})")
        if sep and not at.strip():
            raise ValueError(f"{item!r}: give the unlock value after '@' (e.g. {name}@2) or drop the '@'")
        unlock = EQUIPMENT_VALUES[name] if not sep else int_in(1, 12)(at)
        if any(n == name for n, _ in out):
            raise ValueError(f"equipment {name!r} listed twice")
        out.append((name, unlock))
    return tuple(out)


PARAMS = (
    Param("players", "number of bomb-disposal experts (2-5)", 4, int_in(2, 5)),
    Param("blue_values", "blue wires carry values 1..blue_values (12 in the full game)", 12, int_in(1, 12)),
    Param("blue_copies", "copies of each blue value (4; training missions may use 2)", 4, int_in(2, 4)),
    Param("red_in_play", "red wires shuffled in (the X of 'X de Y')", 1, int_in(0, 11)),
    Param("red_drawn", "red tiles drawn and shown (the Y of 'X de Y'; equal to red_in_play when fully known)",
          2, int_in(0, 11)),
    Param("red_values", "fixed red values v (tile v.5); empty: drawn at random at set-up", (), int_list(1, 11, 0, 11)),
    Param("yellow_in_play", "yellow wires shuffled in (must be even, B18)", 2, int_in(0, 11)),
    Param("yellow_drawn", "yellow tiles drawn and shown", 2, int_in(0, 11)),
    Param("yellow_values", "fixed yellow values v (tile v.1); empty: drawn at random", (), int_list(1, 11, 0, 11)),
    Param("detonator", "failures that reach the skull; 0: by ruling B01", 0, int_in(0, 30)),
    Param("equipment", "equipment cards on the board, 'name' or 'name@unlock-value'",
          (("comunicadores", 2), ("estabilizador", 9)), equipment_list),
    Param("detector_duplo", "each expert's personal Detector Duplo (character card)", True, boolean),
)

RULINGS = (
    Ruling("B01", "detonator track length by player count",
           {"players-plus-2": "the skull is reached at failure players + 2 (assumption)",
            "players-plus-1": "the skull is reached at failure players + 1",
            "players-plus-3": "the skull is reached at failure players + 3"},
           "seeds/004 step 8: 'Posicione o detonador de acordo com a quantidade de jogadores'"),
    Ruling("B02", "in-between values of red and yellow wires",
           {"v.1-yellow-v.5-red": "yellow tiles sort at v.1 and red at v.5, v in 1..11"},
           "seeds/004 step 7: 'Os valores dos fios vermelhos e amarelos são usados apenas para essa organização'"),
    Ruling("B03", "solo cut with 3 of a value left",
           {"proof-obligation": "never arises: blue cuts remove 2 or 4 (proved, see proofs/bomb_busters.py)"},
           "seeds/004 'Ação de Corte Solo': 'cortar 2 OU 4 fios idênticos'"),
    Ruling("B04", "a player with only yellow wires that are not all the remaining yellows",
           {"must-dual-cut": "they must dual cut (naming yellow)"},
           "seeds/004 'Para cortar um fio amarelo, o especialista ativo deve ter um em sua mão'"),
    Ruling("B05", "what an info token after a wrong yellow cut shows",
           {"yellow": "a yellow info token: the wire is yellow, its in-between value stays hidden"},
           "seeds/004 'uma ficha de Informação amarela é usada'"),
    Ruling("B06", "a player who leaves with no wires",
           {"skipped": "is skipped; the equipment cards stay usable by the others"},
           "seeds/004 'Quando um especialista fica sem fios, ele sai da rodada'"),
    Ruling("B07", "'2 wires of the value' unlocking equipment",
           {"first-2": "a card unlocks once 2 wires of its value are cut",
            "all-4": "a card unlocks once every wire of its value is cut"},
           "seeds/004 'assim que os 2 fios do valor indicado ... forem cortados'"),
    Ruling("B08", "Detector Duplo with both pointed wires correct",
           {"teammate-chooses": "the teammate cuts one of them, their choice"},
           "seeds/004 'o colega não precisa dizer o valor e pode cortar o fio que quiser'"),
    Ruling("B09", "info token placement at setup",
           {"choice": "each player picks one of their own blue wires",
            "random": "a uniformly random one of the player's blue wires (a chance event)"},
           "seeds/004 step 9: 'coloca uma ficha de Informação à sua escolha na frente de um dos fios azuis'"),
    Ruling("B10", "which own wire the active player cuts after a successful dual cut when holding several",
           {"leftmost": "the leftmost uncut wire of that value in their hand (first rack first)",
            "rightmost": "the rightmost one (last rack first)"},
           "seeds/004 'o especialista ativo coloca o próprio fio idêntico (ou um deles, caso tenha mais de um)'"),
    Ruling("B11", "which racks get the extra wires when the deal is uneven",
           {"first-racks": "the racks dealt first, from the captain clockwise",
            "last-racks": "the racks dealt last"},
           "seeds/004 step 6: 'o mais igualmente possível'"),
    Ruling("B12", "a red wire pointed at under the Estabilizador",
           {"cut-no-explosion": "the red wire is cut face up, the bomb does not explode, play goes on"},
           "seeds/004 Estabilizador: 'a bomba não explode (se um fio vermelho for cortado)'"),
    Ruling("B13", "where a wire received through Comunicadores goes",
           {"sorted-place": "into the rack the given wire left, at its sorted place; an info token "
                            "in front of a moved wire is taken away"},
           "seeds/004 Comunicadores: 'Todos veem de onde os fios foram retirados e onde foram recolocados'"),
    Ruling("B14", "who uses equipment and when",
           {"active-player": "the active player, during their turn (out-of-turn use is not modelled)"},
           "seeds/004 'pode ser usada a qualquer momento por qualquer jogador, mesmo fora da sua vez'"),
    Ruling("B15", "the value printed on Comunicadores",
           {"2": "2 (not in the text; an assumption, overridable per mission as comunicadores@v)"},
           "seeds/004 'Um equipamento se torna disponível assim que os 2 fios do valor indicado'"),
    Ruling("B16", "the two wires of a Detector Duplo",
           {"same-rack": "two uncut wires on one rack of one teammate"},
           "seeds/004 Detector Duplo: 'apontar para DOIS fios no suporte de um colega'"),
    Ruling("B17", "Detector Duplo failing with exactly one red wire",
           {"token-on-other": "no explosion; the detonator advances; the info token goes on the non-red "
                              "wire; the red one gets no token (everyone learns only that it was not the named value)"},
           "seeds/004 'Se apenas um dos 2 fios indicados for vermelho, a bomba não explode'"),
    Ruling("B18", "an odd number of yellow wires in play",
           {"rejected": "rejected as a mission: yellows are cut 2 or 4 at a time, the last one could never go"},
           "seeds/004 Corte Solo: 'cortar 2 OU 4 fios idênticos' and the yellow dual cut"),
)

def _whole_check(p: Mapping[str, Any]) -> tuple[str, str] | None:
    if p["blue_copies"] % 2:
        return "blue_copies", "must be even (blue wires are cut two at a time)"
    for c in ("red", "yellow"):
        x, y, vals = p[f"{c}_in_play"], p[f"{c}_drawn"], p[f"{c}_values"]
        if x > y:
            return f"{c}_in_play", f"{x} in play but only {y} drawn"
        if vals and len(vals) != y:
            return f"{c}_values", f"lists {len(vals)} values but {c}_drawn is {y}"
        if len(set(vals)) != len(vals):
            return f"{c}_values", "values repeat (each red or yellow tile is unique)"
    if p["yellow_in_play"] % 2:
        return "yellow_in_play", "must be even (ruling B18)"
    total = p["blue_values"] * p["blue_copies"] + p["red_in_play"] + p["yellow_in_play"]
    racks = racks_for(p["players"])
    if total < len(racks):
        return "blue_values", f"{total} wires cannot fill {len(racks)} racks"
    return None


SCHEMA = RulesSchema("bomb-busters", PARAMS, RULINGS, _whole_check)


def racks_for(players: int) -> tuple[int, ...]:
    """The owner seat of each rack, captain (seat 0) first (seeds/004 step 4)."""
    if players == 2:
        return (0, 0, 1, 1)
    if players == 3:
        return (0, 0, 1, 2)
    return tuple(range(players))


def rack_sizes(total: int, racks: int, extra_first: bool = True) -> tuple[int, ...]:
    base, extra = divmod(total, racks)
    sizes = [base + (1 if i < extra else 0) for i in range(racks)]
    return tuple(sizes if extra_first else sizes[::-1])


@dataclass(frozen=True)
class Mission:
    players: int
    blue_values: int
    blue_copies: int
    red_in_play: int
    red_drawn: int
    red_values: tuple[int, ...]
    yellow_in_play: int
    yellow_drawn: int
    yellow_values: tuple[int, ...]
    skull: int
    equipment: tuple[tuple[str, int], ...]
    detector_duplo: bool
    rulings: tuple[tuple[str, str], ...]

    @classmethod
    def from_ruleset(cls, rs: Ruleset) -> "Mission":
        p = rs.params
        extra = {"players-plus-2": 2, "players-plus-1": 1, "players-plus-3": 3}[rs.ruling("B01")]
        skull = p["detonator"] or p["players"] + extra
        return cls(p["players"], p["blue_values"], p["blue_copies"], p["red_in_play"], p["red_drawn"],
                   tuple(sorted(p["red_values"])), p["yellow_in_play"], p["yellow_drawn"],
                   tuple(sorted(p["yellow_values"])), skull, tuple(p["equipment"]),
                   bool(p["detector_duplo"]), tuple(sorted(rs.rulings.items())))

    def ruling(self, rid: str) -> str:
        return dict(self.rulings)[rid]

    @property
    def rack_owner(self) -> tuple[int, ...]:
        return racks_for(self.players)

    @property
    def total_wires(self) -> int:
        return self.blue_values * self.blue_copies + self.red_in_play + self.yellow_in_play

    def sizes(self) -> tuple[int, ...]:
        return rack_sizes(self.total_wires, len(self.rack_owner), self.ruling("B11") == "first-racks")

    def blue_tiles(self) -> list[Tile]:
        return blue_pool(self.blue_values, self.blue_copies)
