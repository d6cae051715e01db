"""``ruleproof sweep``: ranges, exact and simulated points (cross-checked), the table, JSON and plot."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ruleproof.cli import app
from ruleproof.model.ruleset import RulesetError
from ruleproof.solver.sweep import parse_param, parse_range

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def test_parse_range():
    assert parse_range("goal", "10..30:5") == [10, 15, 20, 25, 30]
    assert parse_range("goal", "3..5") == [3, 4, 5]
    assert parse_range("x", "0.5..1:0.25") == [0.5, 0.75, 1.0]
    assert parse_range("board", "mini, curta") == ["mini", "curta"]
    assert parse_param("--centre-rolls=0..1") == ("centre_rolls", [0, 1])
    for bad in ("10..x", "30..10", "1..5:0", "a,,b", "1..100000"):
        with pytest.raises(RulesetError):
            parse_range("goal", bad)


def test_sweep_pig_exact_matches_solve_and_plot(tmp_path):
    plot = tmp_path / "sweep.png"
    result = run("sweep", "pig", "--param", "goal=4..12:4", "--json", "--plot", str(plot))
    assert result.exit_code == 0, result.stdout
    doc = json.loads(result.stdout)
    assert [r["point"]["goal"] for r in doc["points"]] == [4, 8, 12]
    assert {r["method"] for r in doc["points"]} == {"exact"}
    # goal 12: 1296/1895 (the same value `solve pig --goal 12` gives, tests/test_report.py)
    solved = json.loads(run("solve", "pig", "--goal", "12", "--no-files", "--json").stdout)
    assert doc["points"][2]["fractions"][0] == solved["values"][0]["fraction"] == "1296/1895"
    # a longer race takes longer
    lengths = [r["length"]["value"] for r in doc["points"]]
    assert lengths == sorted(lengths) and doc["points"][0]["length"]["unit"] == "moves"
    import matplotlib.image as mpimg
    pixels = mpimg.imread(plot)
    assert pixels.shape[0] > 300 and pixels[..., :3].std() > 0.05


def test_sweep_simulates_beyond_the_limit_and_agrees_with_exact():
    """Goal 4 and 10 with a 300-state limit: goal 4 (70 states) is exact, goal 10 (1,152) is
    simulated under the optimal policy, and its 95% interval holds the exact 0.709424 of the table
    (``sweep pig --param goal=5..30:5``: 0.709424)."""
    result = run("sweep", "pig", "--param", "goal=4,10", "--max-states", "300", "--games", "4000",
                 "--seed", "2", "--policy", "optimal", "--json")
    assert result.exit_code == 0, result.stdout
    exact, sim = json.loads(result.stdout)["points"]
    assert exact["method"] == "exact" and sim["method"] == "simulated"
    assert "state limit 300" in sim["exact_stopped"] and sim["policy"] == "optimal"
    exact10 = json.loads(run("solve", "pig", "--goal", "10", "--no-files", "--json").stdout)["values"][0]["float"]
    lo, hi = sim["ci95"][0]
    assert lo <= exact10 <= hi and abs(exact10 - 0.709424) < 1e-6
    assert sim["length"]["unit"] == "moves" and sim["values"][0] + sim["values"][1] == pytest.approx(1.0)


def test_sweep_text_table_and_grid():
    result = run("sweep", "pig", "--param", "goal=4,6", "--param", "faces=4,6", "--max-states", "100",
                 "--games", "200")
    assert result.exit_code == 0, result.stdout
    text = result.stdout
    assert "kind" in text and "exact" in text and "simulated" in text
    # every sampled point says so, with its interval, games, seed and policy
    assert "goal=6 faces=4: sampled, not exact -- seat 0" in text
    assert "200 games, seed 0, policy random)" in text and "95% interval [" in text
    assert "exact solve stopped (state limit 100 reached) at:" in text


def test_sweep_presentes_and_loira_simulated_utilities_agree_with_exact():
    """Each game's simulation hook gives per-seat utilities on the exact values' scale: Presentes
    (mini board, eager policy) 1/2 each; Loira tiny (optimal play) 38/405 for seat 0, the value
    `solve model/loira/examples/tiny.toml` prints."""
    doc = json.loads(run("sweep", "presentes-mini", "--param", "dice=1", "--games", "4000", "--seed", "1",
                         "--json").stdout)
    exact = doc["points"][0]
    assert exact["method"] == "exact" and exact["fractions"] == ["1/2", "1/2"]
    assert exact["length"]["unit"] == "turns"
    sim = json.loads(run("sweep", "presentes-mini", "--param", "dice=1", "--games", "4000", "--seed", "1",
                         "--simulate-only", "--json").stdout)["points"][0]
    assert sim["method"] == "simulated" and sim["policy"] == "eager" and sim["length"]["unit"] == "turns"
    assert all(lo <= 0.5 <= hi for lo, hi in sim["ci95"])
    loira = json.loads(run("sweep", "model/loira/examples/tiny.toml", "--param", "centre-rolls=1", "--games", "3000",
                           "--seed", "1", "--policy", "optimal", "--simulate-only", "--json").stdout)["points"][0]
    assert loira["method"] == "simulated" and loira["policy"] == "optimal"
    exact = json.loads(run("sweep", "model/loira/examples/tiny.toml", "--param", "centre-rolls=1",
                           "--json").stdout)["points"][0]
    assert exact["method"] == "exact" and exact["fractions"][0] == "38/405"
    lo, hi = loira["ci95"][0]
    assert lo <= 38 / 405 <= hi


def test_sweep_timeout_bounds_the_whole_sweep():
    """A deadline already passed: every point is listed as not run (nothing solved or simulated)."""
    from ruleproof.model.registry import get_spec
    from ruleproof.solver.sweep import run_sweep
    spec = get_spec("pig")
    doc = run_sweep(spec.default(), [("goal", [4, 5])], deadline=0.0)
    assert [r["method"] for r in doc["points"]] == ["not run", "not run"]
    result = run("sweep", "pig", "--param", "goal=4,5", "--point-timeout", "5", "--timeout", "60")
    assert result.exit_code == 0 and result.stdout.count("exact") >= 2


@pytest.mark.parametrize("args, needle", [
    (["--param", "goal"], "NAME=RANGE"),
    (["--param", "gaol=3..5"], "did you mean 'goal'"),
    (["--param", "goal=0..2"], "goal"),
    (["--param", "goal=3..5", "--goal", "4"], "also given as a fixed --goal"),
    (["--param", "goal=3,4", "--timeout", "0"], "--timeout"),
    (["--param", "goal=3,4", "--point-timeout", "-1"], "--point-timeout"),
])
def test_sweep_bad_input(args, needle):
    result = run("sweep", "pig", *args)
    assert result.exit_code == 2, result.stdout
    assert needle in result.stderr and "Traceback" not in result.stderr


def test_the_plot_draws_sampled_points_hollow_with_their_intervals():
    """Goal 4 exact (filled, no error bar), goals 6 and 8 simulated (a 100-state limit): hollow
    markers with error bars spanning exactly each seat's 95% interval."""
    from matplotlib.container import ErrorbarContainer

    from ruleproof.model.registry import get_spec
    from ruleproof.solver.sweep import run_sweep, sweep_figure
    spec = get_spec("pig")
    doc = run_sweep(spec.default(), [("goal", [4, 6, 8])], max_states=100, games=300, seed=5)
    assert [r["method"] for r in doc["points"]] == ["exact", "simulated", "simulated"]
    fig = sweep_figure(doc, "pig")
    ax = fig.axes[0]
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 2 * 2   # two sampled points, two seats
    spans = sorted(tuple(round(v, 9) for v in c.lines[2][0].get_segments()[0][:, 1]) for c in bars)
    wanted = sorted(tuple(round(v, 9) for v in r["ci95"][seat]) for r in doc["points"][1:] for seat in (0, 1))
    assert spans == wanted
    import matplotlib.colors as mc
    assert all(mc.to_hex(c.lines[0].get_markerfacecolor()) == "#ffffff" for c in bars)   # hollow
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("sampled: policy random, 300 games (95% interval)" in t for t in legend)


def test_without_a_point_timeout_no_clock_decides_whether_a_point_is_exact(monkeypatch):
    """The state limits, not the clock, decide exact vs simulated: under a clock that jumps 1,000 s
    at every reading (a machine under any load) each point is still solved exactly."""
    import time

    from ruleproof.model.registry import get_spec
    from ruleproof.solver.sweep import run_sweep
    now = [time.perf_counter()]

    def crawling() -> float:
        now[0] += 1000.0
        return now[0]
    monkeypatch.setattr(time, "perf_counter", crawling)
    doc = run_sweep(get_spec("pig").default(), [("goal", [4, 5])])
    monkeypatch.undo()
    assert [r["method"] for r in doc["points"]] == ["exact", "exact"]
