"""The near-optimal policy's exact regret on every configuration the exact solver reaches.

Regret (``exact.regret``): the seat's optimal value minus its value when it follows the policy and
every other seat best-responds. Measured with exact fractions on the bench rungs (first cards of
``bench/bench_loira.py``'s deck order; the exact Python solver reaches 10 cards), the verify
configuration, ``loira-mini``, ``examples/loira/tiny.toml`` and 3-player rounds. None of them is a
training configuration of ``nearopt`` (random subsets drawn with their own seed; checked below).
The result is stored in ``nearopt_regret.json`` — the bound ``solve_near_optimal`` quotes is read
from that file, never recomputed on the fly.

    .venv/bin/python -m ruleproof.model.loira.nearopt_regret            # every configuration (~15 min)
    .venv/bin/python -m ruleproof.model.loira.nearopt_regret --upto 8   # rungs up to 8 cards only
"""
from __future__ import annotations

import argparse
import json
import time
from fractions import Fraction
from functools import cache
from pathlib import Path

REGRET_FILE = Path(__file__).with_name("nearopt_regret.json")
#: (name, ruleset name or None for the base game, parameter overrides)
_VERIFY = {"players": 2, "deck": ["F1", "F2", "M1", "grito", "toc-toc", "descarga", "fios"],
           "stalls": [2, 4], "centre_rolls": 1}
_RUNG_ORDER = ["F1", "F2", "M1", "grito", "M2", "toc-toc", "P1", "grito", "descarga", "P2"]
_RUNGS = ((4, [2, 4], 1), (6, [2, 4], 1), (8, [2, 3, 4], 1), (10, [2, 3, 4], 2))
CONFIGS: list[tuple[str, str | None, dict]] = [
    *[(f"bench rung, {n} cards", None, {"players": 2, "deck": _RUNG_ORDER[:n], "stalls": st,
                                         "centre_rolls": r}) for n, st, r in _RUNGS],
    ("verify configuration", None, _VERIFY),
    ("loira-mini", "loira-mini", {}),
    ("tiny example", "examples/loira/tiny.toml", {}),
    ("3 players, verify deck", None, {**_VERIFY, "players": 3}),
    ("3 players, loira-mini deck", "loira-mini", {"players": 3}),
    ("3 players, L04/L08 example", "examples/loira/three-players-l04.toml", {}),
]


def build_config(ruleset: str | None, overrides: dict):
    from ruleproof.model.registry import load_ruleset

    from . import SPEC, build
    root = Path(__file__).resolve().parents[2]
    target = ruleset or "loira"
    if target.endswith(".toml"):
        target = str(root / target)
    return build(load_ruleset(target).with_overrides(overrides, spec=SPEC.schema))


def _shape(game) -> tuple:
    c = game.cfg
    return c.players, c.deck, c.stalls, c.stall_counts, c.centre_rolls


def _cards(game) -> int:
    return sum(game.cfg.deck)


def measure(upto: int = 10, progress=print) -> list[dict]:
    from .exact import regret, solve
    from .nearopt import near_optimal, training_configs
    trained = {_shape(build_config(None, p)) for p in training_configs()}
    rows = []
    for name, ruleset, overrides in CONFIGS:
        game = build_config(ruleset, overrides)
        if _cards(game) > upto:
            continue
        assert _shape(game) not in trained, f"{name} is a training configuration"
        start = time.perf_counter()
        opt = solve(game)
        per_seat = regret(game, near_optimal, opt)
        row = {"configuration": name, "players": game.num_players, "cards": _cards(game),
               "states": opt.states, "seconds": round(time.perf_counter() - start, 1),
               "seats": [{"seat": s, "optimal": str(v["optimal"]), "policy": str(v["policy"]),
                          "regret": str(v["regret"]), "regret_float": round(float(v["regret"]), 4)}
                         for s, v in sorted(per_seat.items())]}
        rows.append(row)
        progress(json.dumps(row))
    return rows


def boundary_regret(game, cards: int | None = None, optimum=None) -> dict:
    """The policy's regret for two players measured over the layers ABOVE its exact endgame only.

    The round is zero-sum (U0 = -U1), and at and below a turn start with at most ``cards`` cards
    left the policy plays minimax-optimal; against a minimax-optimal player the best response gets
    exactly the game value, so there the value under (policy, best response) IS the exact value.
    The Python solver then evaluates (policy, best response) on the top layers only, with exact values
    at the boundary: from ``optimum`` (an ``exact.Solution``: Fractions, for the test that ties this
    to ``exact.regret``) or from the C engine (doubles; its table of the whole rung is kept, so
    every boundary value and every endgame decision is a lookup). Returns ``exact.regret``'s shape
    plus ``"top_states"`` (Python states evaluated) and ``"overruns"`` (endgame sub-solves that hit
    the state cap; the measurement is of the policy as it plays only when it is 0)."""
    from . import endgame, fast
    from .exact import Solution, solve_state
    from .nearopt import near_optimal
    from .state import PH, Phase
    k = endgame.C_CARDS if cards is None else cards
    if optimum is None:
        def exact(s):
            v, _ = fast.state_value(game.cfg, fast.c_state(game, s))
            return (v, -v)
    else:
        exact = optimum.value
    root = game.initial_state()

    def leaf(s):
        if s[PH] == Phase.TURN and endgame.deck_left(game, s) <= k and game.current_player(s) >= 0:
            return exact(s)
        return None
    best = exact(root) if leaf(root) is not None or optimum is not None else None
    saved, endgame.keep_limit = endgame.keep_limit, 1 << 62
    try:
        if best is None:
            best = exact(root)      # the whole rung into the C engine's kept table
        out: dict = {"top_states": 0, "overruns": 0}
        for seat in range(2):
            policy = near_optimal(game, k)
            sol = Solution(game, fixed={seat: policy})
            got = solve_state(sol, root, leaf=leaf)
            out["top_states"] += sol.states
            out["overruns"] += policy.endgame.overruns
            out[seat] = {"optimal": best[seat], "policy": got[seat], "regret": best[seat] - got[seat]}
    finally:
        endgame.keep_limit = saved
        if optimum is None:
            fast.forget_states()
    return out


def worst(rows: list[dict]) -> dict:
    """The largest regret over every configuration and seat."""
    return max(({"configuration": r["configuration"], **s} for r in rows for s in r["seats"]),
               key=lambda x: x["regret_float"])


def markdown(rows: list[dict]) -> str:
    """The regret table as docs/loira.md prints it (one line per configuration and seat)."""
    out = ["| configuration | players | cards | exact states | seat | optimal U | policy U | regret |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        for s in r["seats"]:
            out.append(f"| {r['configuration']} | {r['players']} | {r['cards']} | {r['states']:,} | "
                       f"{s['seat']} | {s['optimal']} ({float(Fraction(s['optimal'])):+.4f}) | "
                       f"{float(Fraction(s['policy'])):+.4f} | {s['regret_float']:.4f} |")
    return "\n".join(out)


@cache
def stored() -> dict:
    return json.loads(REGRET_FILE.read_text()) if REGRET_FILE.exists() else {}


def main() -> None:
    ap = argparse.ArgumentParser(description="measure the near-optimal Loira policy's exact regret")
    ap.add_argument("--upto", type=int, default=10, help="skip configurations with more cards")
    ap.add_argument("--markdown", action="store_true", help="print the stored table for the docs")
    args = ap.parse_args()
    if args.markdown:
        print(markdown(stored()["rows"]))
        return
    rows = measure(args.upto)
    REGRET_FILE.write_text(json.dumps({"policy": "near-optimal", "rows": rows, "worst": worst(rows)},
                                      indent=1) + "\n")
    print(f"worst regret {worst(rows)['regret_float']} written to {REGRET_FILE}")


if __name__ == "__main__":
    main()
