"""Loira C engine under every ruling option it claims: one rung of the bench ladder, one option at a time.

For the default rulings and each non-default option the C engine implements (``fast.FLAGS``) or
shows to change nothing in its scope (``fast.SAME_IN_SCOPE``), it prints the turn states, the
``ruleproof solve --no-files`` time (the C engine answers with no generic probe: a float value
beyond ``FAST_EXACT_STATES`` turn states), the ``--exact`` time (C search + exact forms summed in
Python), wall and CPU seconds (the machine is shared), seat 0's value and its exact fraction.

    .venv/bin/python bench/bench_loira_rulings.py [--rung 3] [--no-exact] [--json]
    .venv/bin/python bench/bench_loira_rulings.py --expansions   # the rung's deck plus each card

``--expansions`` instead adds each mini-expansion card the C engine handles (then all six) to the
rung's deck and prints the turn states, the C search's seconds and the exact forms' CPU seconds.
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


def measure(rung: int, rid: str, opt: str, with_exact: bool = True) -> dict:
    from types import MappingProxyType

    from bench_loira import params
    from ruleproof.model.loira import SPEC
    from ruleproof.model.loira.hooks import solve_hook
    from ruleproof.model.ruleset import Ruleset
    p, r = SPEC.schema.defaults()
    rs = Ruleset("loira", "bench", MappingProxyType(p), MappingProxyType(r), "bench")
    rs = rs.with_overrides(params(rung), {} if rid == "-" else {rid: opt}, spec=SPEC.schema)
    start, cpu0 = time.perf_counter(), time.process_time()
    plain = solve_hook(rs, {"exact": None}, None, None)
    mid, cpu1 = time.perf_counter(), time.process_time()
    exact = solve_hook(rs, {"exact": True}, None, None) if with_exact else None
    end, cpu2 = time.perf_counter(), time.process_time()
    frac = exact["values"][0]["fraction"] if exact else None
    return {"ruling": "default" if rid == "-" else f"{rid}={opt}", "method": plain["method"],
            "turn_states": plain["states"], "solve_s": round(mid - start, 2),
            "solve_cpu_s": round(cpu1 - cpu0, 2), "exact_s": round(end - mid, 2) if exact else None,
            "exact_cpu_s": round(cpu2 - cpu1, 2) if exact else None, "value": plain["values"][0]["float"],
            "fraction": frac}


EXPANSIONS = ["rapagote", "zelador", "diretora", "tia", "aluna", "ralo"]


def expansion_rows(rung: int) -> list[dict]:
    from types import MappingProxyType

    from bench_loira import params
    from ruleproof.model.loira import SPEC, build, fast
    from ruleproof.model.ruleset import Ruleset
    p, r = SPEC.schema.defaults()
    base = Ruleset("loira", "bench", MappingProxyType(p), MappingProxyType(r), "bench")
    rows = []
    # each card on the rung's deck; all six on the deck two rungs lower (about as many turn states)
    for cards, on in [([c], rung) for c in EXPANSIONS] + [(EXPANSIONS, max(0, rung - 2))]:
        par = params(on)
        par["deck"] = par["deck"] + cards
        game = build(base.with_overrides(par, spec=SPEC.schema))
        c0 = time.process_time()
        res = fast.solve(game.cfg, max_states=3_000_000)   # a safety cap (memory: ~100 B a state)
        c1 = time.process_time()
        exact = fast.solve_exact(game.cfg) if res["states"] < 500_000 else None   # forms: ~1 KiB a state
        c2 = time.process_time()
        rows.append({"cards": f"rung {on} + " + "+".join(cards), "turn_states": res["states"],
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
        row = measure(3 if args.rung is None else args.rung, rid, opt, not args.no_exact)
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
