"""Presentes through the command line: simulate (seeded, reproducible), solve, bad input."""
import json

from typer.testing import CliRunner

from ruleproof.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def test_simulate_full_size_is_reproducible_from_its_seed():
    args = ("simulate", "presentes", "--board", "longa", "--players", "32", "--dice", "2",
            "--games", "200", "--seed", "9", "--json")
    a, b = run(*args), run(*args)
    assert a.exit_code == 0 and b.exit_code == 0, a.stdout + a.stderr
    da, db = json.loads(a.stdout), json.loads(b.stdout)
    assert da["game"] == "presentes" and da["games"] == 200 and da["extras"]["players"] == 32
    assert da["engine"] == "presentes playouts" and len(da["seats"]) == 32
    for key in ("metrics", "seats", "extras"):
        assert da[key] == db[key]
    turns = da["metrics"]["turns"]
    assert turns["ci95"][0] <= turns["mean"] <= turns["ci95"][1]


def test_solve_gives_exact_fractions():
    res = run("solve", "presentes-mini", "--json", "--no-files")
    assert res.exit_code == 0, res.stdout
    d = json.loads(res.stdout)
    assert d["exact"] and "/" in d["extras"]["mean_turns"]["fraction"] and len(d["values"]) == 2
    assert d["engine"] == "markov-chain" and d["meaning"] == "policy-value"


def test_bad_input_exits_2_with_one_line():
    for args in (("simulate", "presentes", "--board", "gigante", "--games", "5"),
                 ("simulate", "presentes", "--dice", "3", "--games", "5"),
                 ("simulate", "presentes", "--policy", "greedy", "--games", "5"),
                 ("solve", "presentes", "--focal-seat", "5")):
        res = run(*args)
        assert res.exit_code == 2, (args, res.stdout)
        assert len(res.stderr.strip().splitlines()) == 1


def test_solve_float_says_exact_false():
    res = run("solve", "presentes-mini", "--float", "--json", "--no-files")
    assert res.exit_code == 0, res.stdout
    d = json.loads(res.stdout)
    assert d["exact"] is False and d["extras"]["mean_turns"]["fraction"] is None
    exact = json.loads(run("solve", "presentes-mini", "--json", "--no-files").stdout)
    assert abs(d["extras"]["mean_turns"]["float"] - exact["extras"]["mean_turns"]["float"]) < 1e-9
