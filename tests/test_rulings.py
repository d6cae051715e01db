"""rulings diff (parts / harmless / not-exercised), rulings rank and compare's regressions."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ruleproof.cli import app
from ruleproof.model.registry import get_spec
from ruleproof.solver.compare import find_regressions
from ruleproof.solver.rulings import rank_rulings, ruling_diff

runner = CliRunner()


def small(game: str):
    spec = get_spec(game)
    return spec.default().with_overrides(dict(spec.verify_overrides), spec=spec.schema)


def test_a_set_up_ruling_parts_at_the_start_of_the_standard_game():
    # L01 cannot matter with the small configuration's explicit deck; the standard deck is built
    # from it, so the first draw's odds differ: F1 3/29 (even split) vs 4/29 (more ones)
    d = ruling_diff(small("loira"), "L01", "more-ones", solve_values=False)
    assert d["verdict"] == "parts" and d["depth"] == 0 and "standard deck" in d["configuration"]
    text = "\n".join(d["situation"])
    assert "draws F1 (3/29)" in text and "draws F1 (4/29)" in text


def test_a_match_ruling_is_not_exercised_by_one_round_and_parts_in_a_match():
    d = ruling_diff(small("loira"), "L15", "replay", solve_values=False)
    assert d["verdict"] == "parts" and d["configuration"].startswith("a match")
    assert d["note"].startswith("not exercised by the configuration given")
    assert d["searched"][0] == {"config": "the configuration given", "states": 31213, "complete": True,
                                "plays": 0, "supplementary": False, "exercised": False}
    assert any("round wins 1-1" in line for line in d["situation"])
    assert any("round wins 0-0" in line for line in d["situation"])


def test_a_ruling_exercised_without_any_parting_is_harmless_there():
    # L23: who picks the stall Fios de Cabelo opens; the pick is uniform, so the catalog expects no
    # difference. The small deck holds a Fios, so the search there is a proof for that configuration.
    d = ruling_diff(small("loira"), "L23", "inviter-picks", solve_values=False, seconds=1)
    assert d["verdict"] == "harmless", d
    assert "exhaustive over the configuration given (31,213 states)" in d["proof"]


def test_a_parting_search_is_bounded_by_its_work_not_the_clock(monkeypatch):
    """The same search on a machine a thousand times slower (a clock that leaps 100 s a reading)
    searches the same states and plays and gives the same answer: its budget is work."""
    from types import SimpleNamespace
    from ruleproof.solver import rulings

    def searched():
        d = ruling_diff(small("loira"), "L12", "bathroom-only", solve_values=False, max_states=1_500)
        return d["verdict"], d["searched"]

    quick = searched()
    assert any(not s["complete"] and s["plays"] == rulings.DIFF_PLAYS for s in quick[1]) or quick[0] == "parts"
    now = [0.0]

    def leaping():
        now[0] += 100.0
        return now[0]

    monkeypatch.setattr(rulings, "time", SimpleNamespace(perf_counter=leaping))
    assert searched() == quick

def test_a_ruling_the_configuration_cannot_exercise_is_said_so():
    # L12 (Espelho's value): the small deck has no Espelho; the 3-player and match configurations
    # have none either, so only the standard deck and the full game are searched, in part
    d = ruling_diff(small("loira"), "L12", "bathroom-only", solve_values=False, seconds=1)
    assert d["verdict"] in ("not-exercised", "parts"), d
    if d["verdict"] == "not-exercised":
        assert d["note"].startswith("not exercised by the configuration given (it needs a deck with espelho)")
    assert all(s["exercised"] for s in d["searched"][1:])


def test_a_parting_found_in_a_bigger_configuration_wins_over_harmless_on_the_small_one():
    d = ruling_diff(small("bomb-busters"), "B10", "rightmost", solve_values=False, seconds=3)
    assert d["verdict"] in ("parts", "harmless")
    if d["verdict"] == "parts" and d["configuration"] != "the configuration given":
        assert "the configuration given" in d["note"]


def test_rank_orders_alternatives_by_their_effect_on_the_values():
    res = rank_rulings("presentes", only=["P23", "P08", "P03"])
    rows = {r["alternative"]: r for r in res["rows"]}
    assert "error" in rows["redraw"]          # play can hang: no values, ranked last
    assert res["rows"][-1]["alternative"] == "redraw"
    moved = [r for r in res["rows"] if "error" not in r]
    assert moved == sorted(moved, key=lambda r: -r["max_value_change"])
    assert res["reference"]["length"] > 0


def test_rank_on_the_cli_for_each_game():
    for game in ("pig", "bomb-busters"):
        result = runner.invoke(app, ["rulings", "rank", game, "--json"])
        assert result.exit_code == 0, result.output
        doc = json.loads(result.stdout)
        assert doc["game"] == game and "configuration" in doc and isinstance(doc["rows"], list)
    bad = runner.invoke(app, ["rulings", "rank", "loira", "--only", "L99"])
    assert bad.exit_code == 2


def test_regressions_are_what_b_fails_or_cannot_decide():
    a = {"properties": {"x": "holds", "y": "holds", "z": "fails", "w": "holds"}, "values": [1],
         "values_note": None}
    b = {"properties": {"x": "fails", "y": "unknown", "z": "fails", "w [small]": "holds", "v": "fails"},
         "values": None, "values_note": "state limit"}
    found = {(r["property"], r["why"]) for r in find_regressions(a, b)}
    assert found == {("x", "B fails it"), ("y", "B cannot decide it"), ("v", "B fails it"),
                     ("values", "B's values could not be computed (state limit)")}
    assert find_regressions(a, a | {"values": [1]}) == []


def test_compare_with_overrides_and_exit_codes():
    same = runner.invoke(app, ["compare", "pig", "pig", "--goal", "8", "--json"])
    assert same.exit_code == 0, same.output
    assert json.loads(same.stdout)["regressions"] == []
    edit = runner.invoke(app, ["compare", "pig", "--goal", "9"])
    assert edit.exit_code == 2 or "goal" in edit.output   # A is the full goal-100 game here
    missing = runner.invoke(app, ["compare", "pig"])
    assert missing.exit_code == 2


@pytest.mark.slow
def test_compare_exits_1_on_the_p23_redraw_edit():
    result = runner.invoke(app, ["compare", "presentes-mini", "model/presentes/examples/p23-redraw.toml", "--json"])
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert any(r["property"] == "termination" and r["why"] == "B fails it" for r in doc["regressions"])


def test_rank_tells_a_harmless_reading_from_one_the_configuration_never_exercises():
    """On the small round's explicit deck L01 (how the standard deck is split) cannot come into
    play: its row says so instead of a 0.000000 change; L07 is exercised and changes nothing."""
    result = runner.invoke(app, ["rulings", "rank", "loira", "--only", "L01,L07", "--json"])
    assert result.exit_code == 0, result.output
    rows = {(r["ruling"], r["alternative"]): r for r in json.loads(result.stdout)["rows"]}
    l01 = rows[("L01", "more-ones")]
    assert l01["exercised"] is False and l01["effect"].startswith("not exercised by this configuration")
    assert "max_value_change" not in l01
    l07 = rows[("L07", "no")]
    assert l07["exercised"] is True and l07["max_value_change"] == 0 and l07["effect"].startswith("no change found")
    text = runner.invoke(app, ["rulings", "rank", "loira", "--only", "L01,L07"]).stdout
    assert "not exercised by this configuration (it needs the standard deck" in text
    assert "rulings ranked by their effect on the optimal values;" in text   # solved exactly


def test_paired_games_rank_every_reading_of_a_configuration_too_big_to_solve(monkeypatch):
    """Beyond the exact solve (here the tiny round with the solve's state cap lowered to 50) every
    exercised reading is ranked by paired seeded games: a reading that changes nothing gives the
    very same games (a change of 0, its interval what 60 games resolve, not a point), a 2-player
    round's seats move by opposite amounts,
    and the same seed gives the same rows."""
    import ruleproof.solver.rulings as rulings
    from ruleproof.model.registry import load_ruleset
    monkeypatch.setattr(rulings, "VALUE_STATES", 50)
    tiny = load_ruleset("model/loira/examples/tiny.toml")
    res = rank_rulings("loira", ruleset=tiny, only=["L07", "L33", "L28"], games=60, seed=3)
    assert res["reference"]["too_big"] and res["reference"]["sampled"]["games"] == 60
    rows = {(r["ruling"], r["alternative"]): r for r in res["rows"]}
    assert all(r["evidence"] == "sampled" and r["games"] == 60 for r in rows.values())
    same = rows[("L07", "no")]
    assert same["identical_games"] == 60 and same["effect"].startswith("no change found")
    for e in same["value_change_estimates"]:
        # 60 identical games do not prove the readings never part: 0 within +-0.12, not [0, 0]
        assert e["float"] == 0 and e["seed"] == 3 and e["ci95"][0] == -e["ci95"][1]
        assert 0.1 < e["ci95"][1] < 0.13
    for r in rows.values():
        a, b = r["value_change_estimates"]
        assert a["float"] == pytest.approx(-b["float"]) and a["ci95"][0] <= a["float"] <= a["ci95"][1]
        assert -2 <= a["ci95"][0] and a["ci95"][1] <= 2   # a difference of two values in [-1, 1]
    ranked = [r["max_value_change"] for r in res["rows"]]
    assert ranked == sorted(ranked, reverse=True)
    again = rank_rulings("loira", ruleset=tiny, only=["L33"], games=60, seed=3)["rows"][0]
    assert again["value_change"] == rows[("L33", "invitee")]["value_change"]
    # the printed ranking says what its values are: the policy's play, not the optimum
    text = runner.invoke(app, ["rulings", "rank", "model/loira/examples/tiny.toml", "--only", "L07,L33",
                               "--games", "60", "--seed", "3"]).stdout
    assert "ranked by their effect on the values of play by the lookahead policy in paired games" in text
    assert "optimal values" not in text


def test_paired_games_are_common_random_numbers():
    """The paired change is the difference of the two readings' means over the very same seeded
    games (each game's own stream), and its interval is no wider than that of two independent
    samples of the same size: the pairing removes the games' shared luck."""
    import math

    from ruleproof.model.registry import load_ruleset
    from ruleproof.model.estimate import paired_difference
    from ruleproof.solver.rulings import paired_plays
    tiny = load_ruleset("model/loira/examples/tiny.toml")
    other = tiny.with_overrides(rulings={"L33": "invitee"}, spec=get_spec("loira").schema)
    a, b = paired_plays(tiny, 80, 5), paired_plays(other, 80, 5)
    assert paired_plays(tiny, 80, 5)["utilities"] == a["utilities"]   # seeded
    xs, ys = [u[0] for u in a["utilities"]], [u[0] for u in b["utilities"]]
    change = paired_difference(xs, ys, seed=5, policy="lookahead", bounds=a["bounds"])
    assert change.value == pytest.approx(sum(ys) / 80 - sum(xs) / 80)

    def half(v):
        m = sum(v) / len(v)
        return 1.959963984540054 * math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1) / len(v))
    assert change.half_width <= math.hypot(half(xs), half(ys)) + 1e-12


def test_paired_games_alike_in_length_do_not_read_as_certain():
    """Every paired game the same number of moves longer: the length change's interval is open (no
    bound on a play's length, and the spread of 0 the sample shows is not a certainty), and the
    row says what was seen instead -- every game longer by the same amount."""
    import math

    from ruleproof.solver.rulings import _paired_row
    ref = {"utilities": [(1, -1), (-1, 1)] * 20, "moves": [10, 14] * 20, "bounds": (-1, 1)}
    longer = {**ref, "moves": [12, 16] * 20, "policy": "lookahead"}
    row = _paired_row(ref, longer, 7)
    est = row["length_change_estimate"]
    assert row["length_change"] == 2.0 and est["ci95"] == [None, None]
    assert row["effect"] == "changes the length of play only: every one of the 40 paired games by +2 moves"
    same = _paired_row(ref, {**ref, "policy": "lookahead"}, 7)
    assert same["length_change_estimate"]["ci95"] == [None, None] and same["identical_games"] == 40
    assert same["effect"].startswith("no change found in 40 paired games")
    assert not math.isinf(row["value_change_estimates"][0]["ci95"][0])   # values are bounded: closed


def test_the_report_page_gives_a_sampled_rankings_reference_with_its_interval(monkeypatch):
    """Beyond the exact solve the report's ranking section gives the paired games' reference as
    each seat's mean ± half its interval (as ``rulings rank`` prints it), not a bare 2-digit number."""
    import ruleproof.solver.rulings as rulings
    from ruleproof.model.registry import load_ruleset
    from ruleproof.solver.page import build_report, render_markdown
    monkeypatch.setattr(rulings, "VALUE_STATES", 50)
    doc = build_report(load_ruleset("model/loira/examples/tiny.toml"))
    text = render_markdown(doc)
    line = next(x for x in text.splitlines() if "Reference in those games" in x)
    assert "(mean ± half its 95% interval): seat 0 " in line and line.count("±") == 4, line
