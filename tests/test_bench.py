"""The benches' shared summary (bench/benchlib.py) and a failing peer reported as one line."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import benchlib  # noqa: E402


def test_ratio_compares_only_the_same_run_and_the_same_states(tmp_path, monkeypatch, capsys):
    base = tmp_path / "baseline.json"
    base.write_text(json.dumps({"demo": {"a": {"states": 100, "seconds": 2.0, "peak_mib": 10}}}))
    monkeypatch.setattr(benchlib, "BASELINE", base)
    report = benchlib.Report("demo")
    report.add("a", 100, 0.5, 12)
    report.add("b", 100, 1.0, 12)
    report.fail("peer", "not installed")
    assert report.ratio(report.rows[0]).startswith("4.00x")
    assert report.ratio(report.rows[1]) == "no baseline"
    report.rows[0]["states"] = 101
    assert "not compared" in report.ratio(report.rows[0])
    report.print()
    assert "peer" in capsys.readouterr().out.split("failed: not installed")[0].splitlines()[-1]
    report.rows[0]["states"] = 100
    report.record()
    stored = json.loads(base.read_text())["demo"]
    assert stored["a"]["seconds"] == 0.5 and stored["b"]["states"] == 100 and "peer" not in stored


def test_the_stored_baseline_cites_its_source():
    doc = json.loads((BENCH / "baseline.json").read_text())
    for bench, runs in doc.items():
        for run, row in runs.items():
            # a solver's row counts states and seconds; a loop step's (bench_loop) wall and CPU seconds
            needed = {"wall", "cpu", "source"} if bench == "loop" else {"states", "seconds", "source"}
            assert needed <= set(row), (bench, run)


def test_pig_bench_reports_a_failing_openspiel_child_as_a_line(tmp_path):
    # an OpenSpiel whose value_iteration cannot import (as without cvxpy): a line, not a KeyError
    algos = tmp_path / "open_spiel" / "python" / "algorithms"
    algos.mkdir(parents=True)
    for d in (tmp_path / "open_spiel", tmp_path / "open_spiel" / "python", algos):
        (d / "__init__.py").write_text("")
    (algos / "value_iteration.py").write_text('raise ModuleNotFoundError("No module named cvxpy")\n')
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    run = subprocess.run([sys.executable, str(BENCH / "bench_pig.py"), "--goals", "5", "--openspiel-goals", "5"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    # without OpenSpiel at all (`make test` installs no extras) the child fails one step earlier
    import importlib.util
    why = "No module named cvxpy" if importlib.util.find_spec("pyspiel") else "No module named 'pyspiel'"
    assert "openspiel goal 5" in run.stdout and f"failed: ModuleNotFoundError: {why}" in run.stdout
    assert "Traceback" not in run.stderr


def test_generic_bench_gives_every_registered_game_its_rows():
    # the plumbing only (each configuration in its own process, the summary): tiny limits
    from ruleproof.model.registry import GAMES
    from ruleproof.solver import sccsolve
    run = subprocess.run([sys.executable, str(BENCH / "bench_generic.py"), "--max-states", "300", "--no-cyclic"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    compiled = sccsolve.available() is None
    for game in GAMES:
        assert f"{game} small explore" in run.stdout and f"{game} small solve numpy" in run.stdout
        assert (f"{game} small solve C " in run.stdout) == compiled
        assert f"{game} default explore" in run.stdout
    assert ("failed:" not in run.stdout) == compiled and "Traceback" not in run.stderr
