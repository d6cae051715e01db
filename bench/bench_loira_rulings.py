"""Loira C engine under every ruling option it claims: one rung of the bench ladder, one option at a time.

For the default rulings and each non-default option the C engine implements (``fast.FLAGS``) or
shows to change nothing in its scope (``fast.SAME_IN_SCOPE``), it prints the turn states, the
``ruleproof solve --no-files`` time (the C engine answers with no generic probe: a float value
beyond ``FAST_EXACT_STATES`` turn states), the ``--exact`` time (C search + exact forms summed in
Python), wall and CPU seconds (the machine is shared), seat 0's value and its exact fraction.

    .venv/bin/python bench/bench_loira_rulings.py [--rung 3] [--no-exact] [--json]
    .venv/bin/python bench/bench_loira_rulings.py --expansions   # the rung's deck plus each card
    .venv/bin/python bench/bench_loira_rulings.py --all-cards --no-exact   # every option's card in play

``--expansions`` instead adds each mini-expansion card the C engine handles (then three Alunas) to the
rung's deck and prints the turn states, the C search's seconds and the exact forms' CPU seconds.
``--all-cards`` replaces the rung by ``ALL_CARDS``: a 10-card round holding every card an option
reads (Interruptor, Espelho, Fios, Descarga, Chute, Toc-Toc; fewer than 3 Gritos for L25) with
unequal starting rolls (L09), so that no row repeats the default's value for want of its card.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def options() -> list[tuple[str, str]]:
    from ruleproof.model.loira import fast
    from ruleproof.model.loira.rulings import RULINGS
    same = [(r.id, opt) for r in RULINGS if r.id in fast.SAME_IN_SCOPE for opt in list(r.options)[1:]]
    return [("-", "default")] + list(fast.FLAGS) + same


#: every card the rulings' options read, 2 players, starting rolls 1/0 (238,931 turn states with 0/0)
ALL_CARDS = {"players": 2, "deck": ["F1", "M2", "grito", "toc-toc", "descarga", "fios", "chute", "espelho",
                                    "interruptor", "P1"], "stalls": [2, 3, 4], "rolls": [1, 0], "centre_rolls": 2}


def measure(rung: int | None, rid: str, opt: str, with_exact: bool = True) -> dict:
    from types import MappingProxyType

    from bench_loira import params
    from ruleproof.model.loira import SPEC
    from ruleproof.model.ruleset import Ruleset
    from ruleproof.solver.analysis import solve_ruleset
    p, r = SPEC.schema.defaults()
    rs = Ruleset("loira", "bench", MappingProxyType(p), MappingProxyType(r), "bench")
    rs = rs.with_overrides(ALL_CARDS if rung is None else params(rung), {} if rid == "-" else {rid: opt},
                           spec=SPEC.schema)
    # what `ruleproof solve FILE --ruling ID=OPT` runs (engine choice included)
    start, cpu0 = time.perf_counter(), time.process_time()
    plain = solve_ruleset(rs).doc()
    mid, cpu1 = time.perf_counter(), time.process_time()
    exact = solve_ruleset(rs, exact=True).doc() if with_exact else None
    end, cpu2 = time.perf_counter(), time.process_time()
    frac = exact["values"][0].get("fraction") if exact and exact["values"] else None
    return {"ruling": "default" if rid == "-" else f"{rid}={opt}", "method": plain["method"],
            "turn_states": plain["states"], "solve_s": round(mid - start, 2),
            "solve_cpu_s": round(cpu1 - cpu0, 2), "exact_s": round(end - mid, 2) if exact else None,
            "exact_cpu_s": round(cpu2 - cpu1, 2) if exact else None, "value": plain["values"][0]["float"],
            "fraction": frac}


EXPANSIONS = ["rapagote", "zelador", "diretora", "tia", "aluna", "ralo"]
#: Merendeira rows (its own card, and L14's option); not in the all-six row (far more turn states)
MERENDEIRA = [(["merendeira"], {}), (["merendeira"], {"L14": "merendeira-resets"})]


def expansion_rows(rung: int) -> list[dict]:
    from types import MappingProxyType

    from bench_loira import params
    from ruleproof.model.loira import SPEC, build, fast
    from ruleproof.model.ruleset import Ruleset
    p, r = SPEC.schema.defaults()
    base = Ruleset("loira", "bench", MappingProxyType(p), MappingProxyType(r), "bench")
    rows = []
    # each card on the rung's deck; three Alunas (the C engine takes one mini-expansion kind a deck:
    # with two it would know a closed card's kind, issue 21)
    for cards, on, rulings in ([([c], rung, {}) for c in EXPANSIONS] + [(["aluna"] * 3, rung, {})]
                               + [(c, rung, r) for c, r in MERENDEIRA]):
        par = params(on)
        par["deck"] = par["deck"] + cards
        game = build(base.with_overrides(par, rulings, spec=SPEC.schema))
        c0 = time.process_time()
        res = fast.solve(game.cfg, max_states=3_000_000)   # a safety cap (memory: ~100 B a state)
        c1 = time.process_time()
        exact = fast.solve_exact(game.cfg) if res["states"] < 500_000 else None   # forms: ~1 KiB a state
        c2 = time.process_time()
        label = f"rung {on} + " + "+".join(cards) + "".join(f" {k}={v}" for k, v in rulings.items())
        rows.append({"cards": label, "turn_states": res["states"],
                     "solve_s": round(res["seconds"], 2),
                     "solve_cpu_s": round(c1 - c0, 2), "exact_cpu_s": round(c2 - c1, 2) if exact else None,
                     "value": res["value"], "fraction": str(exact["fraction"]) if exact else None})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rung", type=int, help="bench_loira.py rung (default 3: 10 cards, 3 stalls, 2 rolls; "
                    "2 with --expansions)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-exact", action="store_true", help="skip the --exact runs")
    ap.add_argument("--expansions", action="store_true", help="the rung's deck plus each mini-expansion card")
    ap.add_argument("--all-cards", action="store_true", help="ALL_CARDS instead of a rung")
    args = ap.parse_args()
    if args.expansions:
        rows = expansion_rows(2 if args.rung is None else args.rung)
        for row in rows if not args.json else ():
            print(f"{row['cards']:<40} {row['turn_states']:>10,} turn states  C {row['solve_s']:.2f} s "
                  f"({row['solve_cpu_s']:.2f} CPU)  exact {row['exact_cpu_s']} CPU s  U {row['value']:+.6f}  "
                  f"{row['fraction'] or ''}")
        if args.json:
            print(json.dumps(rows, indent=1))
        return
    rows = []
    for rid, opt in options():
        rung = None if args.all_cards else 3 if args.rung is None else args.rung
        row = measure(rung, rid, opt, not args.no_exact)
        rows.append(row)
        if not args.json:
            exact = (f"--exact {row['exact_s']:>6.2f} s ({row['exact_cpu_s']:.2f} CPU)  "
                     if row["exact_s"] is not None else "")
            print(f"{row['ruling']:<22} {row['turn_states']:>9,} turn states  solve {row['solve_s']:>5.2f} s "
                  f"({row['solve_cpu_s']:.2f} CPU)  {exact}U {row['value']:+.6f}  {row['fraction'] or ''}",
                  flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
