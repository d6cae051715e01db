"""Recorded answers of the deduction engine as it was before the fast pass (session 17), so that
the rewritten engine is held to identical Fractions: the example views, full-size deals for 2-5
players, and seeded random small views with cut wires, tokens, exclusions and claims.

    .venv/bin/python tests/golden_bomb_busters.py --write   # re-record (only on purpose)
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from ruleproof.model.bomb_busters.deduce import deduce  # noqa: E402
from ruleproof.model.bomb_busters.report import report  # noqa: E402
from ruleproof.model.bomb_busters.view import load_view, parse_view  # noqa: E402
from test_bomb_busters_deduce import _random_position, full_size_view  # noqa: E402

GOLDEN = HERE / "data" / "bomb_busters_deduce_golden.json"
EXAMPLES = HERE.parent / "model" / "bomb_busters" / "examples"


def cases():
    """(name, position) for every recorded case."""
    for path in sorted(EXAMPLES.glob("*.json")):
        yield path.name, load_view(path)
    for players in (2, 3, 4, 5):
        for seed in (1, 2):
            yield f"full-{players}p-seed{seed}", parse_view(full_size_view(players, seed))
    for seed in range(40):
        yield f"random-seed{seed}", _random_position(random.Random(seed))


def record(pos) -> dict:
    """The engine's answer without its timings: deals, every slot's distribution, the dual cuts
    and the Detector Duplo table (fractions as text)."""
    out = report(deduce(pos))
    return {"deals": out["deals"],
            "positions": [[e["hand"], e["rack"], e["slot"], {t: p["fraction"] for t, p in e["probabilities"].items()}]
                          for e in out["positions"]],
            "plays": [[p["hand"], p["rack"], p["slot"], p["name"], p["success"]["fraction"],
                       p["red_risk"]["fraction"]] for p in out["plays"]],
            "duplo": [[p["hand"], p["rack"], p["slots"], p["name"], p["success"]["fraction"],
                       p["explosion"]["fraction"]] for p in out["duplo_plays"]]}


if __name__ == "__main__":  # recorded with the engine of commit d9a97a6
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: golden_bomb_busters.py --write")
    data = {}
    for name, pos in cases():
        try:
            data[name] = record(pos)
        except ValueError as exc:  # NoDeal: a random view may contradict itself; recorded as such
            data[name] = {"no_deal": str(exc)}
    GOLDEN.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"{len(data)} cases -> {GOLDEN} ({GOLDEN.stat().st_size} bytes)")
