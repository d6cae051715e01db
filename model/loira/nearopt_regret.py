"""The near-optimal policy's regret on every configuration we can measure.

Regret: the seat's optimal value minus its value when it follows the policy and every other seat
best-responds. Three ways, tied together by ``tests/test_loira_nearopt.py`` on small rungs:

* ``exact.regret`` (Fractions, the Python exact solver): configurations of at most
  :data:`PY_EXACT_CARDS` cards, and 3-player ones of at most :data:`PY_EXACT_CARDS_MORE`;
* :func:`boundary_regret`: the exact endgame plays minimax-optimal (three players: max^n's own
  choices), so only the layers above it are evaluated, with the C engine's values at the boundary
  (doubles) — the bench rungs of 10 to 16 cards (first cards of ``bench/bench_loira.py``'s deck
  order), and 3-player decks of 10 to 12 cards;
* :func:`c_regret`: the policy itself played in C (``fast.evaluate(..., shipped=...)``, two players)
  where the top layers would not fit in memory -- the 15- and 16-card rungs with the endgame held at
  6 cards left (the tables deciding 9 and 10 draws). ``tests/test_loira_nearopt_c.py`` ties it to
  ``exact.regret`` and to the top-layer rows.

Also the verify configuration, ``loira-mini``, ``model/loira/examples/tiny.toml`` and 3-player rounds. None
of them is a training configuration of ``nearopt`` (random subsets drawn with their own seed;
checked below). The result is stored in ``nearopt_regret.json`` — the bound ``solve_near_optimal``
quotes is read from that file, never recomputed on the fly.

    .venv/bin/python -m ruleproof.model.loira.nearopt_regret            # every configuration
    .venv/bin/python -m ruleproof.model.loira.nearopt_regret --upto 8   # up to 8 cards only
"""
from __future__ import annotations

import argparse
import json
import re
import time
from fractions import Fraction
from functools import cache
from pathlib import Path

REGRET_FILE = Path(__file__).with_name("nearopt_regret.json")
#: (name, ruleset name or None for the base game, parameter overrides)
_VERIFY = {"players": 2, "deck": ["F1", "F2", "M1", "grito", "toc-toc", "descarga", "fios"],
           "stalls": [2, 4], "centre_rolls": 1}
#: bench/bench_loira.py's ORDER and RUNGS up to 17 cards (the package does not import bench/)
_RUNG_ORDER = ["F1", "F2", "M1", "grito", "M2", "toc-toc", "P1", "grito", "descarga", "P2", "fios",
               "chute", "espelho", "interruptor", "grito", "F1", "M1"]
_RUNGS = ((4, [2, 4], 1), (6, [2, 4], 1), (8, [2, 3, 4], 1), (10, [2, 3, 4], 2), (12, [2, 3, 4], 2),
          (13, [2, 3, 4, 4], 3), (14, [2, 3, 3, 4], 3), (15, [2, 2, 3, 4, 4], 3),
          (16, [2, 2, 3, 3, 4, 4], 3), (17, [2, 2, 3, 3, 4, 4], 3))


def _rung(n: int) -> dict:
    """The parameter overrides of the bench rung of ``n`` cards (2 players)."""
    stalls, rolls = next((st, r) for m, st, r in _RUNGS if m == n)
    return {"players": 2, "deck": _RUNG_ORDER[:n], "stalls": stalls, "centre_rolls": rolls}


#: configurations up to this many cards get ``exact.regret`` (the 10-card rung took 310 s there);
#: three players up to PY_EXACT_CARDS_MORE (the 9-card deck: 1,179 s, 18 GB; 10 would need ~70 GB)
PY_EXACT_CARDS = 8
PY_EXACT_CARDS_MORE = 9
CONFIGS: list[tuple[str, str | None, dict]] = [
    *[(f"bench rung, {n} cards", None, _rung(n)) for n, _, _ in _RUNGS],
    ("verify configuration", None, _VERIFY),
    ("loira-mini", "loira-mini", {}),
    ("tiny example", "model/loira/examples/tiny.toml", {}),
    ("3 players, verify deck", None, {**_VERIFY, "players": 3}),
    ("3 players, loira-mini deck", "loira-mini", {"players": 3}),
    ("3 players, L04/L08 example", "model/loira/examples/three-players-l04.toml", {}),
    *[(f"bench rung, {n} cards, endgame from 8 cards as on the real deck", None, _rung(n))
      for n in (12, 13, 14, 15, 16)],
    # the endgame held lower still, at 6 cards left, so the tables decide 6 to 8 draws (issue 24)
    *[(f"bench rung, {n} cards, endgame from 6 cards", None, _rung(n)) for n in (12, 13, 14, 15, 16)],
    ("3 players, verify deck, endgame from 6 cards as on the real deck", None, {**_VERIFY, "players": 3}),
    # the regret ladder's 3-player 8-card deck (nearopt_ladder._THREE): the tables decide 2 draws
    ("3 players, 8 cards, endgame from 6 cards as on the real deck", None,
     {"players": 3, "deck": _RUNG_ORDER[:8], "stalls": [2, 3, 4], "centre_rolls": 1}),
    # ... and its 9-card deck: the tables decide 3 draws (6,610,355 states, ~18 GB, ~20 min)
    ("3 players, 9 cards, endgame from 6 cards as on the real deck", None,
     {"players": 3, "deck": _RUNG_ORDER[:9], "stalls": [2, 3, 4], "centre_rolls": 1}),
    # ... and its 10-12 card decks over the C engine's values (boundary_regret): the tables decide 4
    # to 6 draws (12 cards: 35.8 million C turn states, 8.5 million Python ones, ~7 min, 9 GB)
    # (nearopt_ladder's rows of the same decks: two rolls in the centre)
    *[(f"3 players, {n} cards, endgame from 6 cards as on the real deck", None,
       {"players": 3, "deck": _RUNG_ORDER[:n], "stalls": [2, 3, 4], "centre_rolls": 2}) for n in (10, 11, 12)],
]
#: rows whose policy plays its endgame from a set number of cards left instead of the more it uses on
#: these small decks: the real deck's (decks over 16 cards: 8 for two players, 6 for three), or 6 for
#: two players, so the tables decide more -- the tables' share of the real game, measured where it can be
_ENDGAME_CARDS = {name: int(re.search(r"endgame from (\d+) cards", name)[1])
                  for name, _, _ in CONFIGS if "endgame from" in name}
#: the C engine's kept table sized at once for these rungs (turn states: the 16-card rung's
#: 1.2e8, model/loira/README.md's bench ladder), 6 GiB instead of the doubling's 9.2 GiB peak
_RESERVE = {16: 121_000_000}


def build_config(ruleset: str | None, overrides: dict):
    from ruleproof.model.registry import load_ruleset

    from .config import SCHEMA
    from .game import build
    root = Path(__file__).resolve().parents[2]
    target = ruleset or "loira"
    if target.endswith(".toml"):
        target = str(root / target)
    return build(load_ruleset(target).with_overrides(overrides, spec=SCHEMA))


def _shape(game) -> tuple:
    c = game.cfg
    return c.players, c.deck, c.stalls, c.stall_counts, c.centre_rolls


def _cards(game) -> int:
    return sum(game.cfg.deck)


def measure_one(game, cards: int | None = None, work: str | Path | None = None) -> dict:
    """One configuration's row (without its name): exact, over the top layers or in C, see the
    module; ``cards``: the endgame's cards left (default: the policy's own); ``work``: where a deck
    past the in-memory engine is solved out of core (default: the system's temporary folder)."""
    from .endgame import default_cards
    from .exact import regret, solve
    from .nearopt import near_optimal
    start = time.perf_counter()
    if game.num_players > 2:   # exact up to 9 cards whatever the endgame, as the stored rows were
        over_c_values = _cards(game) > PY_EXACT_CARDS_MORE
    else:
        over_c_values = _cards(game) > PY_EXACT_CARDS or cards is not None
    k = cards if cards is not None else default_cards(game)
    if over_c_values and game.num_players == 2 and _cards(game) - k > TOP_LAYER_DRAWS:
        per_seat = c_regret(game, k, work)
        extra = {"method": "C evaluation (float64)", "states": per_seat.pop("eval_states"),
                 "c_states": per_seat.pop("c_states"), "endgame_cards": k}
        if "known_states" in per_seat:   # the optimum out of core, its endgame's edge read back
            extra["method"] = "C evaluation over out-of-core layers (float64)"
            extra["known_states"] = per_seat.pop("known_states")
    elif over_c_values:
        per_seat = boundary_regret(game, cards, reserve=_RESERVE.get(_cards(game), 0))
        if per_seat.pop("overruns"):
            raise RuntimeError("an endgame sub-solve hit its state cap: not the policy as it plays")
        extra = {"method": "top layers + C values", "states": per_seat.pop("top_states"),
                 "c_states": per_seat.pop("c_states"),
                 "endgame_cards": cards if cards is not None else default_cards(game)}
    else:
        opt = solve(game)
        made = []

        def policy(g):
            made.append(near_optimal(g, cards))
            return made[-1]
        per_seat = regret(game, policy, opt)
        if sum(p.endgame.overruns + p.endgame.lookahead_overruns for p in made):
            raise RuntimeError("an endgame solve hit its state cap: not the policy as it plays")
        extra = {"method": "exact", "states": opt.states}
        if game.num_players == 2 or cards is not None:
            extra["endgame_cards"] = cards if cards is not None else default_cards(game)
    return {"players": game.num_players, "cards": _cards(game), **extra,
            "seconds": round(time.perf_counter() - start, 1),
            "seats": [{"seat": s, "optimal": str(v["optimal"]), "policy": str(v["policy"]),
                       "regret": str(v["regret"]), "regret_float": round(float(v["regret"]), 4) + 0.0}
                      for s, v in sorted(per_seat.items())]}


#: two players: the top layers (Python) measure rows whose tables decide at most this many draws
#: (the 14-card rung from 6: 12.4 million top states, 8.8 GB); past it the C copy of the policy
#: (``c_regret``) -- the 15-card rung from 6 would need ~40 GB in Python
TOP_LAYER_DRAWS = 8
#: the C evaluation's table is sized at once for this many times the optimum's turn states (the
#: 15-card rung from 6: 1.9 times; a table filled to 3/4 does not double, whose peak the 16-card
#: rung could not afford)
EVAL_STATES_PER_OPTIMUM = 2.5


def c_regret(game, cards: int, work: str | Path | None = None) -> dict:
    """A 2-player row in C: the policy as shipped played by ``fast.evaluate(..., shipped=...)``
    for each seat against the other's best response (the exact endgame from ``cards`` cards left, the
    escorts above it by look-ahead, go/stop by the stop table, the rest greedy's), against the C
    engine's optimum; float64. Tied to ``exact.regret`` and to the top-layer rows by
    ``tests/test_loira_nearopt_c.py``. Like the candidate's ladder it does not model a sub-solve
    outgrowing its budget (``endgame.C_STATES``): the top-layer rows of these rungs met none.

    Decks over :data:`IN_MEMORY_CARDS`: the optimum is solved out of core (``ooc.solve`` in a
    folder made inside ``work``, removed after) keeping the layers at the endgame's edge, and the
    evaluation reads their values (``known``) instead of searching the endgame again."""
    from . import fast
    from .endgame import REDUCE, STOPPED_CARDS
    from .nearopt import shipped_rule
    if _cards(game) > IN_MEMORY_CARDS:
        return _c_regret_out_of_core(game, cards, work)
    opt = fast.solve(game.cfg)
    out: dict = {"c_states": opt["states"], "eval_states": 0}
    for seat in range(2):
        # the evaluation's table sized at once (3/4 full, no doubling's peak)
        got = fast.evaluate(game.cfg, seat, cards, max(cards, STOPPED_CARDS), REDUCE[2], shipped=shipped_rule(2),
                            reserve=int(opt["states"] * EVAL_STATES_PER_OPTIMUM))
        out["eval_states"] = max(out["eval_states"], got["states"])
        best, value = opt["values"][seat], got["values"][seat]
        out[seat] = {"optimal": best, "policy": value, "regret": best - value}
    return out


#: decks the C engine's in-memory table solves on this machine (the 16-card rung: 1.2·10^8 states)
IN_MEMORY_CARDS = 16


def _c_regret_out_of_core(game, cards: int, work: str | Path | None) -> dict:
    import shutil
    import tempfile

    from . import fast, ooc
    from .endgame import REDUCE, STOPPED_CARDS
    from .nearopt import shipped_rule
    folder = Path(tempfile.mkdtemp(prefix="ruleproof-regret-", dir=work))
    try:
        solved = ooc.solve(game.cfg, folder / "run", keep_cards=cards)
        known = ooc.layer_values(folder / "run", ooc.kept_layers(ooc.Job.of(game.cfg, 8), cards))
        value = solved["value"]
        out: dict = {"c_states": solved["states"], "eval_states": 0, "known_states": len(known[1])}
        for seat in range(2):
            got = fast.evaluate(game.cfg, seat, cards, max(cards, STOPPED_CARDS), REDUCE[2], known=known,
                                shipped=shipped_rule(2), reserve=int(len(known[1]) * EVAL_STATES_PER_OPTIMUM))
            out["eval_states"] = max(out["eval_states"], got["states"])
            best = value if seat == 0 else -value
            out[seat] = {"optimal": best, "policy": got["values"][seat], "regret": best - got["values"][seat]}
        return out
    finally:
        shutil.rmtree(folder)   # made here, above


def trained_shapes() -> set[tuple]:
    """The shapes of every round the near-optimal tables learn from (exact and sampled)."""
    from .nearopt import sampled_configs, training_configs
    return {_shape(build_config(None, p)) for p in [*training_configs(), *sampled_configs()]}


def measure(upto: int = 16, progress=print, only: str | None = None, work: str | None = None) -> list[dict]:
    trained = trained_shapes()
    rows = []
    for name, ruleset, overrides in CONFIGS:
        game = build_config(ruleset, overrides)
        if _cards(game) > upto or (only and only not in name):
            continue
        assert _shape(game) not in trained, f"{name} is a training configuration"
        row = {"configuration": name, **measure_one(game, _ENDGAME_CARDS.get(name), work)}
        rows.append(row)
        progress(row)
    return rows


def boundary_regret(game, cards: int | None = None, optimum=None, reserve: int = 0) -> dict:
    """The policy's regret measured over the layers ABOVE its exact endgame only.

    Two players: the round is zero-sum (U0 = -U1), and at and below a turn start with at most
    ``cards`` cards left the policy plays minimax-optimal; against a minimax-optimal player the best
    response gets exactly the game value, so there the value under (policy, best response) IS the
    exact value. Three or more: there the policy plays max^n's own choice (the first action within
    ``endgame.TIE`` of the best for the mover) and the others' best responses, found by the same
    backward induction, are max^n's too, so the value there is the max^n value; above it the
    others choose by the same tie rule (``exact.solve_state``'s ``tie``) on the C engine's doubles.
    The Python solver then evaluates (policy, best response) on the top layers only, with exact values
    at the boundary: from ``optimum`` (an ``exact.Solution``: Fractions, for the test that ties this
    to ``exact.regret``) or from the C engine (doubles; its table of the whole rung is kept, so
    every boundary value and every endgame decision is a lookup). Returns ``exact.regret``'s shape
    plus ``"top_states"`` (Python states evaluated), ``"c_states"`` (the C engine's turn states, C
    values only) and ``"overruns"`` (endgame or look-ahead sub-solves that hit the state cap; the
    measurement is of the policy as it plays only when it is 0)."""
    from . import endgame, fast
    from .exact import PackedMemo, Solution, solve_state
    from .nearopt import near_optimal
    from .state import PH, Phase
    k = endgame.default_cards(game) if cards is None else cards
    n = game.num_players

    def vector(v):   # the C engine's value: two players seat 0's, more each seat's
        return (v, -v) if n == 2 else tuple(v)
    if optimum is None:
        def exact(s):
            v, _ = fast.state_value(game.cfg, fast.c_state(game, s))
            return vector(v)
    else:
        exact = optimum.value
    root = game.initial_state()

    probe = endgame.Endgame(game, k)

    def leaf(s):
        # the endgame's region is closed under play (the deck shrinks, a stopped seat stays stopped)
        if s[PH] == Phase.TURN and probe.applies(s):
            return exact(s)
        return None
    saved, endgame.keep_limit = endgame.keep_limit, 1 << 62
    try:
        out: dict = {"top_states": 0, "overruns": 0}
        if optimum is None:         # the whole rung into the C engine's kept table
            v, out["c_states"] = fast.state_value(game.cfg, fast.c_state(game, root), reserve=reserve)
            best = vector(v)
        else:
            best = optimum.value(root)
        # (two players: a tie changes no value; Fractions from ``optimum`` tie exactly)
        tie = endgame.TIE if n > 2 and optimum is None else 0
        for seat in range(n):
            policy = near_optimal(game, k)
            sol = Solution(game, values=PackedMemo(), fixed={seat: policy})
            got = solve_state(sol, root, leaf=leaf, tie=tie)
            out["top_states"] += sol.states
            out["overruns"] += policy.endgame.overruns + policy.endgame.lookahead_overruns
            out[seat] = {"optimal": best[seat], "policy": got[seat], "regret": best[seat] - got[seat]}
    finally:
        endgame.keep_limit = saved
        if optimum is None:
            fast.forget_states()
    return out


def worst(rows: list[dict]) -> dict:
    """The largest regret over every configuration and seat (by the full figure: two rows may
    round to the same four places)."""
    return max(({"configuration": r["configuration"], **s} for r in rows for s in r["seats"]),
               key=lambda x: Fraction(x["regret"]))


def markdown(rows: list[dict]) -> str:
    """The regret table as model/loira/README.md prints it (one line per configuration and seat)."""
    out = ["| configuration | players | cards | method | states (Python / C) | seat | optimal U | policy U | regret |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        states = f"{r['states']:,}" + (f" / {r['c_states']:,}" if "c_states" in r else "")
        if r.get("method", "").startswith("C evaluation"):
            states = f"{r['states']:,} evaluated / {r['c_states']:,}"
        exact = r.get("method", "exact") == "exact"
        for s in r["seats"]:
            opt = float(Fraction(s["optimal"]))
            opt_text = f"{s['optimal']} ({opt:+.4f})" if exact else f"{opt:+.6f}"
            out.append(f"| {r['configuration']} | {r['players']} | {r['cards']} | {r.get('method', 'exact')} | "
                       f"{states} | {s['seat']} | {opt_text} | {float(Fraction(s['policy'])):+.4f} | "
                       f"{s['regret_float']:.4f} |")
    return "\n".join(out)


@cache
def stored() -> dict:
    return json.loads(REGRET_FILE.read_text()) if REGRET_FILE.exists() else {}


def main() -> None:
    ap = argparse.ArgumentParser(description="measure the near-optimal Loira policy's exact regret")
    ap.add_argument("--upto", type=int, default=16, help="skip configurations with more cards")
    ap.add_argument("--only", help="measure only configurations whose name contains this (keeps the others' rows)")
    ap.add_argument("--markdown", action="store_true", help="print the stored table for the docs")
    ap.add_argument("--work", help="where decks past the in-memory engine are solved out of core "
                    "(a folder made and removed inside it; default: the system's temporary folder)")
    args = ap.parse_args()
    if args.work is not None and not Path(args.work).is_dir():   # before any work, not after it
        ap.error(f"--work {args.work}: not a folder")
    if args.markdown:
        print(markdown(stored()["rows"]))
        return
    order = [name for name, _, _ in CONFIGS]
    # rows measured before (another --only) are kept; each new row is written as soon as it is known
    kept = {r["configuration"]: r for r in (stored().get("rows", []) if args.only else [])}

    def write(row=None) -> None:
        if row is not None:
            print(json.dumps(row), flush=True)
            kept[row["configuration"]] = row
        rows = sorted(kept.values(), key=lambda r: order.index(r["configuration"]))
        # beside the file, then renamed into place: a stopped run leaves the stored table whole
        tmp = REGRET_FILE.with_name(REGRET_FILE.name + ".tmp")
        tmp.write_text(json.dumps({"policy": "near-optimal", "rows": rows, "worst": worst(rows)},
                                  indent=1) + "\n")
        tmp.replace(REGRET_FILE)
    measure(args.upto, write, args.only, args.work)
    print(f"worst regret {stored.__wrapped__()['worst']['regret_float']} written to {REGRET_FILE}")


if __name__ == "__main__":
    main()
