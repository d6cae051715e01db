"""``ruleproof export`` without Storm: the files it writes and its bad-input paths."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from ruleproof.cli import app

runner = CliRunner()


def test_export_writes_each_format(tmp_path):
    for fmt, head in (("prism", "mdp"), ("drn", "@type: DTMC"), ("jani", '"type": "dtmc"')):
        path = tmp_path / f"pig.{fmt}"
        args = ["export", "pig", "--goal", "6", "--format", fmt, str(path), "--json"]
        if fmt != "prism":
            args += ["--policy", "optimal"]
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
        doc = json.loads(res.output)
        assert doc["states"] > 0 and path.exists() and head in path.read_text()
    # Pig to 6 with a d6: the optimal chain's values add up to 1 and are exact fractions
    assert sum(map(__import__("fractions").Fraction, doc["values"])) == 1


def test_export_bad_input_is_one_line_exit_2(tmp_path):
    cases = [["--format", "xml", str(tmp_path / "a")],
             ["--format", "drn"],
             ["--format", "drn", str(tmp_path / "a"), "--policy", "nope"],
             ["--format", "drn", str(tmp_path / "a"), "--free-seat", "0"],
             ["--format", "drn", str(tmp_path / "a"), "--smg"],
             ["--format", "drn", str(tmp_path / "a-file" / "a")],   # under a file
             ["--format", "drn", str(tmp_path)]]                      # a folder
    (tmp_path / "a-file").write_text("")
    for extra in cases:
        res = runner.invoke(app, ["export", "pig", "--goal", "6", *extra])
        assert res.exit_code == 2, (extra, res.output)
        assert len(res.output.strip().splitlines()) == 1 and "error:" in res.output


def test_export_partial_exploration_exits_1(tmp_path):
    res = runner.invoke(app, ["export", "pig", "--format", "drn", str(tmp_path / "a"), "--max-states", "100"])
    assert res.exit_code == 1 and not (tmp_path / "a").exists()
