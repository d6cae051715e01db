"""The regret ladder of the near-optimal policy's look-ahead candidate (issue 24, Deliver 2 and 3).

The rows put the part above the exact endgame to work: two players on the first 12 to 16 cards of
``bench/bench_loira.py``'s deck order with the endgame held at 6 and at 8 cards left, three players
on the first 7 to 12 cards with the endgame at 6 (the real 3-player setting). The candidate
(``near_optimal(..., lookahead=True)``) values the next turn-start states above the endgame by the
optimum with the deck cut to ``endgame.REDUCE`` cards (7 for two players, 5 for three; two players
cut to 6 lost 0.0074 / 0.0061 on the 13-card rows, cut to 7 0.0003).

Each row is measured by ``fast.evaluate`` (the candidate played in C, the other seats' best
responses searched exactly; float64, tied to ``exact.regret`` by
``tests/test_loira_nearopt_lookahead.py``) against the C engine's optimum of the same round. The
C evaluation does not model the candidate's fallback to its tables when a sub-solve outgrows its
budget (``endgame.C_STATES``): on these decks no sub-solve comes near it. None of the rows is a
training configuration of the tables (checked). Stored in ``nearopt_ladder.json``:

    .venv/bin/python -m ruleproof.model.loira.nearopt_ladder [--only "3 players"] [--upto 14] [--markdown]
"""
from __future__ import annotations

import argparse
import json
import time
from functools import cache
from pathlib import Path

from .nearopt_regret import _RUNG_ORDER, _shape, build_config

LADDER_FILE = Path(__file__).with_name("nearopt_ladder.json")
#: issue 24's target: at most this much of U lost on every row and seat
TARGET = 0.005
#: stalls and centre rolls of the 2-player rungs (bench/bench_loira.py's RUNGS) and the 3-player rows
_TWO = {12: ([2, 3, 4], 2), 13: ([2, 3, 4, 4], 3), 14: ([2, 3, 3, 4], 3), 15: ([2, 2, 3, 4, 4], 3),
        16: ([2, 2, 3, 3, 4, 4], 3)}
_THREE = {n: ([2, 4] if n == 7 else [2, 3, 4], 1 if n <= 9 else 2) for n in range(7, 13)}
#: (name, players, cards, endgame cards left)
ROWS = [*[(f"2 players, {n} cards, endgame from {k}", 2, n, k) for n in _TWO for k in (6, 8)],
        *[(f"3 players, {n} cards, endgame from 6", 3, n, 6) for n in _THREE]]


def overrides(players: int, cards: int) -> dict:
    stalls, rolls = (_TWO if players == 2 else _THREE)[cards]
    return {"players": players, "deck": _RUNG_ORDER[:cards], "stalls": stalls, "centre_rolls": rolls}


def measure_row(players: int, cards: int, endgame_cards: int) -> dict:
    """One row: every seat's optimum, the candidate's value against best responses, the regret."""
    from . import fast
    from .endgame import REDUCE, STOPPED_CARDS
    start, cpu = time.perf_counter(), time.process_time()
    game = build_config(None, overrides(players, cards))
    opt = fast.solve(game.cfg)
    cut = REDUCE[players]
    seats, states = [], 0
    for seat in range(players):
        # the evaluation's table sized at once (filled to 3/4, no doubling): it stores about 1.3x the
        # optimum's turn states (3 players, 11 cards: 19.7 million against 15.3), and on the 12-card
        # row the usual half-full doubling would need ~17 GB
        got = fast.evaluate(game.cfg, seat, endgame_cards, max(endgame_cards, STOPPED_CARDS), cut,
                            reserve=int(opt["states"] * 1.5))
        states = max(states, got["states"])
        best, value = opt["values"][seat], got["values"][seat]
        seats.append({"seat": seat, "optimal": best, "policy": value, "regret": round(best - value, 5) + 0.0})
    return {"players": players, "cards": cards, "endgame_cards": endgame_cards, "reduce_to": cut,
            "method": "C evaluation (float64)", "optimum_states": opt["states"], "eval_states": states,
            "seconds": round(time.perf_counter() - start, 1),
            "cpu_seconds": round(time.process_time() - cpu, 1), "seats": seats}


def measured_shapes() -> set[tuple]:
    """The shapes (``_shape``) of every configuration a regret is measured on: the shipped policy's
    rows (``nearopt_regret.CONFIGS``) and this ladder's. No training round may be one of them."""
    from .nearopt_regret import CONFIGS
    shapes = {_shape(build_config(ruleset, params)) for _, ruleset, params in CONFIGS}
    return shapes | {_shape(build_config(None, overrides(players, cards))) for _, players, cards, _ in ROWS}


@cache
def stored() -> dict:
    return json.loads(LADDER_FILE.read_text()) if LADDER_FILE.exists() else {"rows": []}


def worst(rows: list[dict]) -> dict | None:
    seats = [{"configuration": r["configuration"], **s} for r in rows for s in r["seats"]]
    return max(seats, key=lambda s: s["regret"]) if seats else None


def markdown(rows: list[dict]) -> str:
    """The ladder as model/loira/README.md prints it (one line per row, the seats' regrets together)."""
    out = ["| configuration | endgame / cut | optimum states | evaluation states | CPU s / wall s | optimal U (seat 0) | regret per seat |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        regrets = " / ".join(f"{s['regret']:.4f}" for s in r["seats"])
        out.append(f"| {r['configuration']} | {r['endgame_cards']} / {r['reduce_to']} | {r['optimum_states']:,} | "
                   f"{r['eval_states']:,} | {r.get('cpu_seconds', '—')} / {r['seconds']} | {r['seats'][0]['optimal']:+.6f} | "
                   f"{regrets} |")
    return "\n".join(out)


def over_target(rows: list[dict]) -> list[str]:
    """The rows where some seat loses more than TARGET (issue 24 wants none)."""
    return [r["configuration"] for r in rows if any(s["regret"] > TARGET for s in r["seats"])]


def main() -> None:
    from .nearopt_regret import trained_shapes
    ap = argparse.ArgumentParser(description="measure the look-ahead candidate's regret ladder (C)")
    ap.add_argument("--only", help="rows whose name contains this (the others' stored rows are kept)")
    ap.add_argument("--upto", type=int, default=16, help="skip rows with more cards")
    ap.add_argument("--markdown", action="store_true", help="print the stored ladder for the docs")
    args = ap.parse_args()
    if args.markdown:
        print(markdown(stored()["rows"]))
        return
    trained = trained_shapes()
    order = [name for name, *_ in ROWS]
    kept = {r["configuration"]: r for r in stored()["rows"] if r["configuration"] in order}
    for name, players, cards, k in ROWS:
        if (args.only and args.only not in name) or cards > args.upto:
            continue
        assert _shape(build_config(None, overrides(players, cards))) not in trained, name
        row = {"configuration": name, **measure_row(players, cards, k)}
        print(json.dumps(row), flush=True)
        kept[name] = row
        rows = sorted(kept.values(), key=lambda r: order.index(r["configuration"]))
        doc = {"policy": "near-optimal, look-ahead candidate (not the shipped policy)", "target": TARGET,
               "rows": rows, "worst": worst(rows), "over_target": over_target(rows)}
        tmp = LADDER_FILE.with_name(LADDER_FILE.name + ".tmp")
        tmp.write_text(json.dumps(doc, indent=1) + "\n")
        tmp.replace(LADDER_FILE)


if __name__ == "__main__":
    main()
