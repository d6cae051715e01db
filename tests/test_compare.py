"""Like compared with like (solver/compare.py): what a target names, compare and report --against
agreeing on the same pair, sampled figures that move only when their intervals separate,
derived configurations that keep the edit, and Loira's near-optimal values from a fixed seeded
sample with the regret figure that applies."""
from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ruleproof.cli import app
from ruleproof.model.estimate import Estimate
from ruleproof.model.registry import get_spec, load_ruleset
from ruleproof.solver.compare import OPPOSITE_WHY, SMALL_WHY, target_ruleset

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def run_json(*args: str) -> tuple[int, dict]:
    res = runner.invoke(app, list(args))
    return res.exit_code, json.loads(res.stdout)


def test_a_bare_game_name_means_one_thing_for_every_command_that_compares():
    small, why = target_ruleset("pig")
    assert small["goal"] == 20 and why == SMALL_WHY
    full, why = target_ruleset("pig", opposite="edit.toml")
    assert full["goal"] == 100 and why == OPPOSITE_WHY
    both, why = target_ruleset("pig", opposite="pig")   # two bare names: both small
    assert both["goal"] == 20 and why == SMALL_WHY
    rs, why = target_ruleset("loira-mini", opposite="loira")
    assert rs.name == "loira-mini" and why == "the built-in ruleset loira-mini"


def _agreement(cmp: dict, against: dict) -> None:
    """The same verdict, regressions, moved figures and property changes."""
    assert cmp["verdict"] == against["verdict"]
    assert cmp["regressions"] == against["regressions"]
    assert [(f["figure"], f["seat"], f["text"]) for f in cmp["moved"]] == \
        [(f["figure"], f["seat"], f["text"]) for f in against["moved"]]
    assert [(f["figure"], f["seat"], f["verdict"]) for f in cmp["figures"]] == \
        [(f["figure"], f["seat"], f["verdict"]) for f in against["figures"]]
    for key in ("params", "rulings", "properties", "unchanged_properties", "values"):
        assert cmp["changes"][key] == against["changes"][key], key
    assert cmp["a"]["configuration"] == against["a"]["configuration"]
    assert cmp["b"]["configuration"] == against["b"]["configuration"]


def test_compare_and_report_against_agree_exactly(tmp_path):
    """A 4-faced die against pig: `pig` opposite the file is the built-in goal-100 game, both
    brought to goal 8 by --goal; exact values that move."""
    edit = tmp_path / "d4.toml"
    edit.write_text('extends = "pig"\nname = "pig-d4"\n[params]\nfaces = 4\n')
    code, cmp = run_json("compare", "pig", str(edit), "--goal", "8", "--json")
    assert code == 0
    code, rep = run_json("report", str(edit), "--against", "pig", "--goal", "8", "--rank-timeout", "0", "--json")
    assert code == 0
    _agreement(cmp, rep["against"])
    assert cmp["verdict"] == "changes" and cmp["changes"]["params"] == {"faces": [6, 4]}
    assert {f["figure"] for f in cmp["moved"]} >= {"value", "first-seat advantage"}
    assert all(v["kind"] == "exact" for v in cmp["a"]["values"] + cmp["b"]["values"])
    assert cmp["a"]["configuration"]["why"] == OPPOSITE_WHY


def test_compare_and_report_against_agree_on_sampled_sides(tmp_path):
    """Beyond a 300-state limit both sides are simulated (400 seeded games each): the intervals
    of the same rules overlap, so nothing is called changed -- 'no detectable change (±x)' -- and
    both commands say so alike; the text never shows a sampled value as exact."""
    same = tmp_path / "same.toml"
    same.write_text('extends = "pig"\nname = "pig-again"\n')
    args = ("--goal", "12", "--max-states", "300", "--games", "400", "--seed", "2")
    code, cmp = run_json("compare", "pig", str(same), *args, "--json")
    assert code == 0, cmp
    code, rep = run_json("report", str(same), "--against", "pig", *args, "--rank-timeout", "0", "--json")
    # the page's own verdict is undecided within 300 states (report exits 1 for that); A is just as
    # undecided, so the edit regresses nothing: compare exits 0, and both say the same of the edit
    assert code == (0 if rep["verdict"] == "holds" else 1)
    _agreement(cmp, rep["against"])
    assert cmp["verdict"] == "no detectable change" and not cmp["moved"]
    for side in (cmp["a"], cmp["b"]):
        assert side["method"] == "simulated" and "state limit 300" in side["exact_stopped"]
        for v in side["values"]:
            assert v["kind"] == "sampled" and v["games"] == 400 and v["seed"] == 2 and v["policy"] == "random"
    value = next(f for f in cmp["figures"] if f["figure"] == "value" and f["seat"] == 0)
    assert value["verdict"] == "no detectable change" and value["text"].startswith("no detectable change (±")
    text = runner.invoke(app, ["compare", "pig", str(same), *args]).stdout
    assert "no detectable change (±" in text and "what moved: nothing detectable" in text
    assert "A's values: sampled: 95% interval [" in text and "400 games, seed 2, policy random" in text


def test_sampled_figures_change_only_when_their_intervals_separate():
    from ruleproof.model.estimate import change, exact, sampled
    a = sampled(0.10, (0.00, 0.20), 100, seed=1, policy="p", bounds=(-1, 1))
    near = sampled(0.15, (0.05, 0.25), 100, seed=2, policy="p", bounds=(-1, 1))
    far = sampled(0.40, (0.30, 0.50), 100, seed=2, policy="p", bounds=(-1, 1))
    assert change(a, near).verdict == "no detectable change" and not change(a, near).moved
    assert change(a, far).moved and change(a, far).delta.kind == "sampled"
    assert change(a, exact(Fraction(1, 10))).verdict == "no detectable change"
    assert change(exact(Fraction(1, 3)), exact(Fraction(1, 3))).verdict == "unchanged"
    assert change(exact(Fraction(1, 3)), exact(Fraction(1, 2))).text() == "+0.166666667 = 1/6"


def _side(values: list[list[float]], moves: list[int], pairing: str) -> dict:
    """A side's figures as compare_sides reads them, from its plays game by game (2 seats, zero-sum)."""
    from ruleproof.model.estimate import sampled_mean
    n = len(values)
    kw = dict(seed=1, policy="p")
    est = [sampled_mean(sum(u[s] for u in values), sum(u[s] ** 2 for u in values), n, bounds=(-1.0, 1.0), **kw)
           for s in range(2)]
    adv = [u[0] - u[1] for u in values]
    return {"values": [e.as_dict() for e in est],
            "first_seat_advantage": sampled_mean(sum(adv), sum(x * x for x in adv), n, bounds=(-2.0, 2.0), **kw).as_dict(),
            "length": {"unit": "moves", "how": "moves per game", "distribution": None,
                       "estimate": sampled_mean(sum(moves), sum(m * m for m in moves), n, bounds=(0.0, math.inf),
                                                **kw).as_dict()},
            "figures": [], "paired_games": {"pairing": pairing, "utilities": values, "moves": moves}}


def test_paired_games_detect_a_change_two_independent_intervals_cannot():
    """Two sides' games drawn from the same seeds pair up: an edit that turns 12 of 200 losses into
    wins (+0.12 for seat 0) moves the value when read game by game, while the two sides' own
    intervals (+-0.14 each) overlap; the same plays under another pairing fall back to the intervals."""
    import random
    from ruleproof.solver.compare import _figure_changes
    rng = random.Random(3)
    a = [1.0 if rng.random() < 0.55 else -1.0 for _ in range(200)]
    losses = [i for i, x in enumerate(a) if x < 0][:12]
    b = [1.0 if i in losses else x for i, x in enumerate(a)]
    moves = [rng.randrange(20, 40) for _ in a]
    pa = _side([[x, -x] for x in a], moves, "game i from seed(1, i)")
    pb = _side([[x, -x] for x in b], [m + rng.choice((0, 1, 2)) for m in moves], "game i from seed(1, i)")
    rows = {(r["figure"], r["seat"]): r for r in _figure_changes(pa, pb)}
    value = rows[("value", 0)]
    assert value["moved"] and "paired games" in value["difference"]["how"]
    assert value["difference"]["float"] == pytest.approx(0.12)
    assert rows[("value", 1)]["moved"] and rows[("first-seat advantage", None)]["moved"]
    assert rows[("expected length (moves)", None)]["moved"]          # games ~1 move longer (0-2)
    ea, eb = Estimate.from_dict(pa["values"][0]), Estimate.from_dict(pb["values"][0])
    assert ea.high > eb.low                                           # the intervals overlap
    other = dict(pb, paired_games=dict(pb["paired_games"], pairing="game i from seed(2, i)"))
    unpaired = {(r["figure"], r["seat"]): r for r in _figure_changes(pa, other)}
    assert not unpaired[("value", 0)]["moved"] and "MOVER" in unpaired[("value", 0)]["difference"]["how"]
    shorter = dict(pb, paired_games=dict(pb["paired_games"], utilities=pb["paired_games"]["utilities"][:-1]))
    assert not {(r["figure"], r["seat"]): r for r in _figure_changes(pa, shorter)}[("value", 0)]["moved"]


def test_near_optimal_sides_pair_their_self_play_games():
    """The real deck's near-optimal values keep their games one by one, each drawn from its own
    seed: under an edit that changes nothing in play (L07=no) every game is the same, so the
    paired differences are 0 and the interval is the paired one; compare_sides says how it read them."""
    from ruleproof.solver.compare import _figure_changes, compare_sides, evaluate
    spec = get_spec("loira")
    real = spec.default()
    edit = real.with_overrides(rulings={"L07": "no"}, spec=spec.schema)
    ea, eb = evaluate(real, games=12, seed=1), evaluate(edit, games=12, seed=1)
    assert ea.engine == "near-optimal" and len(ea.paired["utilities"]) == 12 == len(ea.paired["moves"])
    assert ea.paired == eb.paired and "game_seed(1, i)" in ea.paired["pairing"]
    assert sum(u[0] for u in ea.paired["utilities"]) / 12 == pytest.approx(ea.values[0].value)
    rows = _figure_changes(ea.as_dict(), eb.as_dict())
    value = next(r for r in rows if r["figure"] == "value")
    assert value["difference"]["float"] == 0 and "paired games" in value["difference"]["how"]
    other = evaluate(edit, games=12, seed=2)
    assert other.paired["pairing"] != ea.paired["pairing"]
    sides = [dict(e.as_dict(), properties={}, property_details={}, evidence={}, verify="holds", longest_play=None)
             for e in (ea, eb)]
    assert "the same 12 games on both sides" in compare_sides(real, edit, *sides)["paired"]


def test_derived_configurations_keep_the_edit():
    """Loira's richer stalls keep their new 5-point stall in every derived deck; a drawn Presentes
    board is explored itself (2 players) before the small built-in boards."""
    loira = get_spec("loira")
    def shrunk(path):   # the shrunken decks (beside them: the companion of the other base cards)
        return [d for d in loira.derived(load_ruleset(str(ROOT / path))) if "cards:" in d.label]
    derived = shrunk("model/loira/examples/richer-stalls.toml")
    assert derived and all(d.ruleset["stalls"] == (2, 4, 5) and "stalls 2 4 5" in d.label for d in derived)
    plain = shrunk("model/loira/examples/harmless-ruling.toml")
    assert plain and all(d.ruleset["stalls"] == (2, 4) for d in plain)
    presentes = get_spec("presentes")
    edit = load_ruleset(str(ROOT / "model/presentes/examples/board-edit.toml")).with_overrides(
        {"players": 8}, spec=presentes.schema)
    first = next(d.ruleset for d in presentes.derived(edit) if not d.always)
    assert first["board"] == "curta-edited.txt" and first["players"] == 2
    assert presentes.build(first).board.drawing() == presentes.build(edit).board.drawing()
    assert presentes.build(first).board.drawing() != presentes.build(presentes.default()).board.drawing()


# ---- Loira's near-optimal values: a fixed seeded sample and the regret that applies ----------------

def test_near_optimal_values_are_a_fixed_seeded_sample():
    """Three players on the real deck: the same seed gives the same games and figures whatever the
    time limit (no clock decides how many games are played); another seed other games."""
    from ruleproof.solver.analysis import solve_ruleset
    spec = get_spec("loira")
    rs = spec.default().with_overrides({"players": 3}, spec=spec.schema)
    a = solve_ruleset(rs, games=120, seed=4)
    b = solve_ruleset(rs, games=120, seed=4, timeout=10_000)
    c = solve_ruleset(rs, games=120, seed=5)
    assert a.engine == "near-optimal" and a.values == b.values and a.values != c.values
    for v in a.values:
        e = Estimate.from_dict(v)
        assert e.kind == "near-optimal" and e.games == 120 and e.seed == 4 and e.policy == "near-optimal"
        assert -1 <= e.low <= e.value <= e.high <= 1 and e.regret is not None
        assert not e.regret.applies   # nothing was measured on the real 3-player deck


def test_the_regret_figure_applies_only_where_it_was_measured():
    """The 14-card bench rung was measured (2 players, nearopt_regret.json): its row applies there;
    on the real deck nothing was measured, and the closest measured row is named as context."""
    from ruleproof.model.loira import build
    from ruleproof.model.loira.nearopt_play import applicable_regret
    from ruleproof.model.loira.nearopt_regret import CONFIGS, build_config, stored
    name, base, overrides = next(c for c in CONFIGS if c[0] == "bench rung, 14 cards")
    rung = build_config(base, overrides)
    got = applicable_regret(rung)
    row = next(r for r in stored()["rows"] if r["configuration"] == name)
    assert all(r.applies and r.measured_on == name for r in got)
    assert [r.value for r in got] == [s["regret_float"] for s in row["seats"]]
    full = applicable_regret(build(get_spec("loira").default()))
    assert all(not r.applies for r in full)
    assert "not measured for this configuration" in full[0].text() and "not a bound here" in full[0].text()


def test_solve_prints_the_near_optimal_headline_with_its_interval_and_regret():
    result = runner.invoke(app, ["solve", "loira", "--players", "3", "--games", "120", "--seed", "4", "--no-files"])
    assert result.exit_code == 0, result.stdout
    line = next(x for x in result.stdout.splitlines() if x.strip().startswith("seat 0:"))
    assert "±" in line and "(near-optimal: 95% interval [" in line and "120 games, seed 4" in line
    assert "regret not measured for this configuration" in line
    assert "exact endgame from 10 cards left" not in result.stdout   # none plays for 3 players here


def test_objective_match_is_solved_as_a_match():
    """The near-optimal engine samples the ruleset's own objective (a match's value is not a round's)."""
    code, doc = run_json("solve", "loira", "--players", "3", "--objective", "match", "--games", "60",
                         "--no-files", "--json")
    assert code == 0 and doc["extras"]["objective"] == "match" and "the match" in doc["value_meaning"]
    assert all(not v["regret"]["applies"] for v in doc["values"])


def test_a_quantile_of_the_length_moves_only_when_its_intervals_separate():
    """Two samples of a game seldom share every quantile: a sampled quantile that reads 18 on one
    side and 19 on the other, intervals overlapping, is no detectable change; exact quantiles that
    differ, or sampled ones whose intervals separate, changed."""
    from ruleproof.solver.compare import _quantile_row
    sampled = lambda v, low, high: {"unit": "turns", "distribution": {"p50": v},
                                    "distribution_intervals": {"p50": [low, high]}}
    exact = lambda v: {"unit": "turns", "distribution": {"p50": v}}
    row = _quantile_row("p50", sampled(18, 16, 20), sampled(19, 17, 21))
    assert row["moved"] is False and row["verdict"] == "no detectable change"
    assert _quantile_row("p50", sampled(18, 16, 20), sampled(25, 22, None))["moved"] is True
    moved = _quantile_row("p50", exact(18), exact(19))
    assert moved["moved"] is True and moved["verdict"] == "changed" and moved["text"] == "+1"
    assert _quantile_row("p50", exact(18), sampled(19, 17, 21))["moved"] is False
    assert _quantile_row("p50", exact(15), sampled(19, 17, 21))["moved"] is True
    # beyond the exact solver's horizon: larger than any computed length
    assert _quantile_row("p50", sampled(18, 16, 20), exact(None))["text"] == "beyond the horizon"
