"""The ``deduce`` command's report of one exact deduction: every hidden position's distribution, the
certain facts, the dual cuts best first and the Detector Duplo table, as exact fractions with floats.

Apart from the engine (:mod:`deduce`) so that the Duplo table (:mod:`duplo`), which reads the
engine's tables, and the engine do not import each other.
"""
from __future__ import annotations

from fractions import Fraction

from . import tiles as T
from .deduce import Deduction, plays
from .duplo import duplo_plays


def _frac(x: Fraction) -> dict:
    return {"fraction": f"{x.numerator}/{x.denominator}", "float": round(float(x), 6)}


def report(d: Deduction, top: int | None = None) -> dict:
    pos = d.position
    positions, facts = [], []
    rack_no: dict[int, int] = {}
    labels = []
    for r, (h, slots) in enumerate(pos.racks):
        rack_no[h] = rack_no.get(h, -1) + 1
        labels.append((pos.names[h], rack_no[h]))
        for j, slot in enumerate(slots):
            if slot.cut:
                continue
            dist = d.probs[r][j]
            entry = {"hand": pos.names[h], "rack": rack_no[h], "slot": j, "shown": slot.text(),
                     "probabilities": {T.show(t): _frac(p) for t, p in sorted(dist.items())},
                     "yellow": _frac(d.prob(r, j, T.YELLOW)), "red": _frac(d.prob(r, j, T.RED_ANY))}
            positions.append(entry)
            where = f"{pos.names[h]} rack {rack_no[h]} slot {j}"
            if len(dist) == 1:
                facts.append(f"{where} is {T.show(next(iter(dist)))}")
            elif d.prob(r, j, T.YELLOW) == 1:
                facts.append(f"{where} is yellow")
            elif d.prob(r, j, T.RED_ANY) == 1:
                facts.append(f"{where} is red")
    table = []
    for p in plays(d)[:top]:
        name, rk = labels[p.rack]
        table.append({"hand": name, "rack": rk, "slot": p.slot, "name": T.show_named(p.named),
                      "success": _frac(p.success), "red_risk": _frac(p.red_risk),
                      "certain": p.success == 1})
    duplo = []
    for p in duplo_plays(d):
        name, rk = labels[p.rack]
        duplo.append({"hand": name, "rack": rk, "slots": list(p.slots), "name": T.show_named(p.named),
                      "success": _frac(p.success), "explosion": _frac(p.explosion)})
    return {"viewer": pos.names[pos.viewer], "hidden_wires": pos.hidden_count(),
            "deals": str(d.deals), "dp_states": d.states, "engine_seconds": round(d.seconds, 4),
            "positions": positions, "facts": facts, "plays": table,
            "certain_cuts": [p for p in table if p["certain"]], "duplo_plays": duplo}
