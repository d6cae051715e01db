"""QA regressions: bad input gets one line on stderr and exit 2; limits give a clear partial result.

One test per bug found by using the command line as a new user would (Loira and Bomb Busters).
"""
from __future__ import annotations

import json
import time

from typer.testing import CliRunner

from ruleproof.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def one_line_error(result) -> str:
    """The run failed as bad input: exit 2, exactly one line on stderr, nothing on stdout."""
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert result.stdout == ""
    return lines[0]


# ---- limits ---------------------------------------------------------------------------------------

def test_solve_loira_honours_a_state_limit():
    # bug: past the generic probe, the C solver ran with its own 200M-state limit (minutes, GiBs)
    start = time.perf_counter()
    result = run("solve", "loira", "--max-states", "10", "--json")
    assert result.exit_code == 1, result.stderr   # a partial result is not a decided one
    doc = json.loads(result.stdout)
    assert doc["partial"] is True and doc["values"] is None
    assert "state limit 10" in doc["reason"]
    assert {"game", "ruleset", "config", "seconds"} <= set(doc)
    assert time.perf_counter() - start < 20


def test_solve_loira_honours_a_time_limit():
    # bug: --timeout bounded the generic exploration only, never the C solver that followed
    start = time.perf_counter()
    result = run("solve", "loira", "--timeout", "0.01", "--json")
    assert result.exit_code == 1, result.stderr   # a partial result is not a decided one
    doc = json.loads(result.stdout)
    assert doc["partial"] is True and "time limit" in doc["reason"]
    assert time.perf_counter() - start < 20


def test_simulate_loira_optimal_policy_refuses_a_configuration_too_large(monkeypatch):
    # bug: --policy optimal on the full game started an exact solve that never finished
    from ruleproof.model.loira import engines
    monkeypatch.setattr(engines, "OPTIMAL_STATES", 1)  # the cap as on the full game, but fast
    line = one_line_error(run("simulate", "loira", "--games", "3", "--policy", "optimal"))
    assert "--policy" in line and "'optimal' needs an exact solve" in line


def test_solve_bomb_busters_honours_limits():
    # bug: the exact policy evaluation ignored --max-states and --timeout (15 s on tiny-colours),
    # and a perfect-information bound cut by the limit vanished without a word
    for args in (("--max-states", "10"), ("--timeout", "0.01")):
        result = run("solve", "bomb-busters-tiny-colours", *args, "--no-files", "--json")
        assert result.exit_code == 1, result.stderr   # partial: undecided within the limits
        doc = json.loads(result.stdout)
        assert doc["partial"] is True and doc["values"] is None
        assert "limit" in doc["reason"] and {"game", "ruleset", "config", "seconds"} <= set(doc)
    from ruleproof.model.bomb_busters import SPEC
    from ruleproof.solver.analysis import solve_ruleset
    res = solve_ruleset(SPEC.ruleset("bomb-busters-tiny"), max_states=1000).result
    assert res.values and res.extras["perfect_information_bound"] is None
    assert "state limit 1000" in res.extras["bound_note"]


def _view(tmp_path, **changes):
    data = {"format": "bomb-busters-view/1", "mission": {"blue_values": 3, "blue_copies": 2},
            "viewer": "ana", "hands": [{"name": "ana", "racks": [["1", "2"]]},
                                       {"name": "bia", "racks": [["?", "?"]]},
                                       {"name": "cid", "racks": [["?", "?"]]}]}
    data.update(changes)
    path = tmp_path / "view.json"
    path.write_text(json.dumps(data))
    return path


def test_deduce_rejects_odd_blue_copies(tmp_path):
    # bug: a view with 1 or 3 copies of each blue value was solved, though no mission has them
    # (blue wires are cut two at a time; rulesets already refuse odd blue_copies)
    hands = [{"name": "ana", "racks": [["1", "1", "2"]]}, {"name": "bia", "racks": [["?", "?", "?"]]},
             {"name": "cid", "racks": [["?", "?", "?"]]}]
    path = _view(tmp_path, mission={"blue_values": 3, "blue_copies": 3}, hands=hands)
    line = one_line_error(run("deduce", path))
    assert str(path) in line and "mission.blue_copies" in line and "2 or 4" in line


def test_deduce_rejects_more_than_five_hands(tmp_path):
    # bug: six hands (six players) were accepted; Bomb Busters is for 2 to 5 players
    hands = [{"name": "ana", "racks": [["1"]]}] + [{"name": f"p{i}", "racks": [["?"]]} for i in range(5)]
    path = _view(tmp_path, hands=hands)
    line = one_line_error(run("deduce", path, "--json"))
    assert str(path) in line and "hands" in line and "2 to 5" in line


def test_ruleset_equipment_at_without_a_value(tmp_path):
    # bug: 'comunicadores@' (the value forgotten) was silently read as the printed value
    path = tmp_path / "bb.toml"
    path.write_text('extends = "bomb-busters-tiny"\n[params]\nequipment = ["comunicadores@"]\n')
    line = one_line_error(run("verify", path, "--max-states", "10"))
    assert str(path) in line and "params.equipment" in line and "after '@'" in line


def test_deduce_deeply_nested_json(tmp_path):
    # bug: a deeply nested JSON file crashed the parser (RecursionError, exit 3 "internal error")
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    line = one_line_error(run("deduce", path))
    assert str(path) in line and "nested too deeply" in line


def test_solve_out_that_cannot_be_a_folder(tmp_path):
    # bug: --out naming an existing file crashed after the solve (FileExistsError, exit 3)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for target in ("model/loira/examples/tiny.toml", "bomb-busters-tiny"):
        line = one_line_error(run("solve", target, "--out", blocker / "sub"))
        assert "--out" in line and str(blocker / "sub") in line
    line = one_line_error(run("solve", "model/loira/examples/tiny.toml", "--out", blocker, "--json"))
    assert "--out" in line


def test_solve_rejects_non_positive_limits():
    # bug: a negative --max-states reached the C solver as a huge unsigned limit (a full solve was
    # reported), and --timeout nan meant no limit at all
    for target in ("model/loira/examples/tiny.toml", "bomb-busters-tiny"):
        for args in (("--max-states", "-5"), ("--max-states", "0"), ("--timeout", "0"), ("--timeout", "nan")):
            line = one_line_error(run("solve", target, *args, "--no-files"))
            assert args[0] in line and "must be a positive" in line, line


def test_solve_loira_exact_is_never_answered_in_floats():
    # bug: 'solve --exact' past the generic probe answered with the float C solver (no fractions)
    result = run("solve", "model/loira/examples/twelve-cards.toml", "--exact", "--max-states", "2000", "--no-files",
                 "--json")
    assert result.exit_code == 1, result.stderr   # a partial result is not a decided one
    doc = json.loads(result.stdout)
    # the C engine runs first (no generic probe) and stops at the limit it was given
    assert doc["partial"] is True and doc["values"] is None and "state limit 2,000" in doc["reason"]
