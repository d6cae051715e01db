"""Every command through Typer's CliRunner: success paths with --json, failure paths with exit 2."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ruleproof.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def doc(result):
    return json.loads(result.stdout)


def test_games_lists_every_registered_game():
    from ruleproof.model.registry import GAMES
    result = run("games", "--json")
    assert result.exit_code == 0
    assert {g["game"] for g in doc(result)["games"]} == set(GAMES)


def test_verify_pig_json():
    result = run("verify", "pig", "--json")
    assert result.exit_code == 0, result.output
    d = doc(result)
    assert d["game"] == "pig" and d["status"] == "holds"
    assert {"game", "ruleset", "config", "seconds", "properties"} <= set(d)
    names = {p["name"] for p in d["properties"]}
    assert {"pig-state-invariant", "termination", "chance-distribution"} <= names
    assert all(p["status"] in ("holds", "fails", "unknown") and "counterexample" in p for p in d["properties"])


def test_verify_partial_is_never_reported_as_exhaustive():
    # a state limit too small for the configuration: the verdict rests on sampled plays and on the
    # proofs (their mapping sampled), and says so; nothing claims to be exhaustive
    result = run("verify", "pig", "--max-states", "100", "--json")
    d = doc(result)
    assert result.exit_code == (0 if d["status"] == "holds" else 1)
    assert any("state limit 100" in note for note in d["notes"])
    assert {p["evidence"] for p in d["properties"]} <= {"sampled", "proved", "unknown"}
    proofs = [p for p in d["properties"] if p["name"].startswith("pig-")]
    assert proofs and all(p["data"]["refinement"]["mode"] == "sampled" for p in proofs if p["status"] == "holds")


def test_solve_writes_to_out_by_default(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    d = doc(run("solve", "pig", "--goal", "2", "--json"))
    assert (tmp_path / "out" / "pig" / "play_table.csv").exists()
    assert all(f.startswith("out") for f in d["files"])


def test_solve_pig_exact_with_files(tmp_path):
    result = run("solve", "pig", "--goal", "3", "--json", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    d = doc(result)
    assert d["values"][0]["fraction"] == "36/43" and d["states"] > 0
    for name in ("play_table.csv", "play_table.meta.json", "policy_summary.txt", "decision_graph.graphml",
                 "policy.png"):
        assert (tmp_path / name).stat().st_size > 0


def test_solve_from_a_ruleset_file(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text('extends = "pig"\nname = "pig-tiny"\n[params]\ngoal = 2\n')
    d = doc(run("solve", str(path), "--json", "--no-files"))
    assert d["ruleset"] == "pig-tiny" and d["values"][0]["fraction"] == "6/7"


def test_solve_limit_gives_partial_result():
    result = run("solve", "pig", "--goal", "50", "--max-states", "1000", "--json", "--no-files")
    d = doc(result)
    assert d["partial"] is True and "state limit" in d["reason"]
    assert result.exit_code == 1   # undecided within the limits, as for verify
    text = run("solve", "pig", "--goal", "50", "--timeout", "0.01", "--no-files")
    assert text.exit_code == 1 and "partial result" in text.stdout


def test_games_text_lists_each_ruling_with_its_default_and_alternatives():
    result = run("games")
    assert result.exit_code == 0
    line = next(x for x in result.stdout.splitlines() if x.strip().startswith("L18 "))
    assert line.rstrip().endswith("escort  | opener")


def test_simulate_prints_a_readable_table_with_the_json_figures():
    args = ("simulate", "pig", "--goal", "10", "--games", "200", "--seed", "3")
    text, d = run(*args), doc(run(*args, "--json"))
    assert text.exit_code == 0 and "200 games, seed 3" in text.stdout
    # each figure as its JSON estimate renders it: the digits its interval supports, ± half of it
    from ruleproof.model.estimate import Estimate
    seat0 = Estimate.from_dict(d["seats"][0]["utility"])
    row = next(line for line in text.stdout.splitlines() if line.strip("│ ").startswith("0 "))
    assert seat0.number() in row and "±" in row
    moves = Estimate.from_dict(d["metrics"]["moves"])
    row = next(line for line in text.stdout.splitlines() if "moves" in line)
    assert moves.number() in row and f"[{moves.low:.{moves.decimals()}f}, {moves.high:.{moves.decimals()}f}]" in row
    assert "every figure is sampled" in text.stdout


def test_simulate_is_reproducible_from_its_seed():
    args = ("simulate", "pig", "--goal", "10", "--games", "200", "--seed", "3", "--json")
    a, b = doc(run(*args)), doc(run(*args))
    assert a["seats"] == b["seats"] and a["metrics"] == b["metrics"] and a["games"] == 200


@pytest.mark.parametrize("args,needle", [
    (("solve", "pig", "--goal", "0"), "params.goal"),
    (("solve", "pig", "--players", "99"), "params.players"),
    (("solve", "chess"), "unknown game or ruleset"),
    (("solve", "pig", "--colour", "red"), "params.colour"),
    (("solve", "pig", "--goal"), "needs a value"),
    (("solve", "missing.toml"), "missing.toml: -: file not found"),
    (("simulate", "pig", "--policy", "psychic"), "unknown policy"),
    (("rulings", "diff", "pig", "L01"), "unknown ruling id"),
    (("verify", "pig", "--ruling", "L04"), "expected ID=OPTION"),
])
def test_bad_input_is_one_line_and_exit_2(args, needle):
    result = run(*args)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in result.output


def test_broken_toml_is_one_line(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('extends = "pig"\n[params]\ngoal = "many"\n')
    result = run("verify", str(path))
    assert result.exit_code == 2 and str(path) in result.stderr and "params.goal" in result.stderr


def test_compare_two_rulesets(tmp_path):
    a = tmp_path / "a.toml"
    b = tmp_path / "b.toml"
    a.write_text('extends = "pig"\n[params]\ngoal = 4\n')
    b.write_text('extends = "pig"\n[params]\ngoal = 4\nfaces = 4\n')
    result = run("compare", str(a), str(b), "--json")
    assert result.exit_code == 0, result.output
    d = doc(result)
    assert d["changes"]["params"] == {"faces": [6, 4]}
    assert d["a"]["values"] != d["b"]["values"] and d["changes"]["values"] is True
    text = run("compare", str(a), str(b))
    assert text.exit_code == 0
    assert "edit: faces 6 -> 4" in text.stdout and "verify: A holds, B holds" in text.stdout
    # what moved comes first: each seat's exact value on both sides and the exact change
    assert text.stdout.index("what moved") < text.stdout.index("verify:")
    assert f"value, seat 0: 0.818181818 = {d['a']['values'][0]['fraction']} -> " in text.stdout


def test_compare_separates_real_findings_from_state_counts():
    # L18 "opener" lets one opening hand its keeper the escorts' stalls too: the score bound moves
    # from 16 to 18; other details differ only in how many states were explored
    from ruleproof.solver.compare import compare_rulesets
    from test_loira_helpers import ruleset
    params = {"players": 2, "deck": ["F1", "F2", "M1", "grito", "toc-toc", "fios"], "stalls": [2, 3, 4, 4],
              "centre_rolls": 1}   # model/loira/examples/tiny.toml with two more stalls
    res = compare_rulesets(ruleset(params), ruleset(params, {"L18": "opener"}))
    ch = res["changes"]
    assert ch["rulings"] == {"L18": ["escort", "opener"]} and ch["properties"] == {}
    assert "score-bounds (this ruleset)" in ch["substantive_details"]
    assert set(ch["substantive_details"]) < set(ch["details"])
    a, b = ch["details"]["score-bounds (this ruleset)"]
    assert "[0, 16]" in a and "[0, 18]" in b


def test_rulings_list_json():
    result = run("rulings", "list", "--json")
    assert result.exit_code == 0
    assert {g["game"] for g in doc(result)["games"]} >= {"pig"}


def test_rulings_check_passes_and_catches_a_changed_result(tmp_path, monkeypatch):
    import ruleproof.solver.analysis as analysis
    assert run("rulings", "check", "pig").exit_code == 0
    stored = json.loads(analysis.scenario_file("pig").read_text())
    stored["defaults"]["expect"]["values"][0] = "1/2"
    (tmp_path / "pig.json").write_text(json.dumps(stored))
    monkeypatch.setattr(analysis, "SCENARIO_DIR", tmp_path)
    result = run("rulings", "check", "pig", "--json")
    assert result.exit_code == 1 and doc(result)["changed"] == 1
    # no stored scenarios is an error, not "0 scenarios, 0 changed"
    monkeypatch.setattr(analysis, "SCENARIO_DIR", tmp_path / "empty")
    result = run("rulings", "check", "pig")
    assert result.exit_code == 2 and "no stored scenarios for pig" in result.output


def test_rulings_diff_on_a_game_with_rulings():
    result = run("rulings", "diff", "bomb-busters", "B10", "--json")
    assert result.exit_code == 0, result.output
    diff = doc(result)["diffs"][0]
    assert diff["ruling"] == "B10" and diff["parts"] in (True, False)
    if diff["parts"]:
        assert diff["situation"][0].startswith("start:")
    else:
        assert "no reachable situation" in diff["proof"]


@pytest.mark.parametrize("argv,needle", [
    (["simulate", "pig", "--games", "abc"], "--games"),
    (["simulate", "pig", "--games", "0"], "--games"),
    (["solve", "pig", "--max-states", "-5"], "--max-states"),
    (["verify", "pig", "--timeout", "0"], "--timeout"),
    (["frobnicate"], "frobnicate"),
])
def test_console_script_usage_errors_are_one_line(argv, needle, capsys):
    from ruleproof.cli import main
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0]


def test_console_script_without_arguments_shows_help(capsys):
    from ruleproof.cli import main
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 0


def test_more_bad_input_from_qa(tmp_path):
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 50_000 + "]" * 50_000 + "\n")
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    for args, needle in [((("verify", str(binary))), "not UTF-8"),
                         (("verify", str(deep)), "nested too deeply"),
                         (("solve", "pig", "--goal", "3", "--out", str(not_a_folder)), "is not a folder"),
                         (("rulings", "check", str(binary)), "takes a game name"),
                         (("verify", ""), "empty")]:
        result = run(*args)
        assert result.exit_code == 2, (args, result.output)
        assert needle in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_verify_with_only_unknowns_says_unknown():
    result = run("verify", "pig", "--max-states", "10", "--timeout", "0.01")
    assert result.exit_code == 1 and "verify: unknown" in result.stdout


def test_rulings_list_json_has_the_common_keys():
    d = doc(run("rulings", "list", "pig", "--json"))
    assert {"game", "ruleset", "config", "seconds"} <= set(d)
