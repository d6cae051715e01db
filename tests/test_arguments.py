"""Issue 25: every number and path argument is checked as it is parsed, in one place
(solver/arguments.py), so the same argument gets the same answer in every command -- one line,
exit 2, before any work -- never an overflow deep inside (exit 3)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ruleproof.solver import arguments
from tests.fuzz import run_in_process

ROOT = Path(__file__).resolve().parent.parent

#: every command that takes --timeout, with the arguments it needs besides
TIMED = {
    "verify": ["verify", "pig"],
    "solve": ["solve", "pig", "--no-files"],
    "simulate": ["simulate", "pig"],
    "compare": ["compare", "pig", "pig"],
    "report": ["report", "pig"],
    "sweep": ["sweep", "pig", "--param", "goal=3..4"],
    "export": ["export", "pig", "--format", "drn", "never-written.drn"],
    "rulings rank": ["rulings", "rank", "pig"],
    "rulings diff": ["rulings", "diff", "presentes", "P23"],
    "rulings check": ["rulings", "check"],
    "deduce": ["deduce", "model/bomb_busters/examples/training-2p.json"],
}
#: every command that takes --max-states
STATE_LIMITED = ["verify", "solve", "compare", "report", "sweep", "export"]


def cli(*argv):
    return run_in_process([str(a) for a in argv])


def reason(res, flag: str) -> str:
    """The refusal's reason, once the command-specific prefix is cut off."""
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.code == 2 and len(lines) == 1 and not res.stdout, (res.code, res.stdout[-200:], res.stderr)
    assert flag in lines[0], lines[0]
    return lines[0].split(flag, 1)[1]


@pytest.mark.parametrize("value", ["inf", "1e10", "1e300", "nan", "-1", "0", "abc", "-inf", "1e400"])
def test_a_bad_timeout_gets_the_same_answer_everywhere(value):
    # the reproducer: --timeout inf / 1e10 / 1e300 exited 3 on every command that takes it
    answers = {name: reason(cli(*argv, "--timeout", value), "--timeout") for name, argv in TIMED.items()}
    assert len(set(answers.values())) == 1, answers
    assert "positive number of seconds" in answers["verify"]
    assert not Path(ROOT / "never-written.drn").exists()


@pytest.mark.parametrize("value", ["-5", "0", "1e3", "99999999999999999999", "abc"])
def test_a_bad_state_limit_gets_the_same_answer_everywhere(value):
    answers = {name: reason(cli(*TIMED[name], "--max-states", value), "--max-states") for name in STATE_LIMITED}
    assert len(set(answers.values())) == 1, answers


@pytest.mark.parametrize("value", ["0", "-3", "100000001", "x"])
def test_a_bad_game_count_gets_the_same_answer_everywhere(value):
    answers = {name: reason(cli(*TIMED[name], "--games", value), "--games") for name in ("simulate", "sweep")}
    assert len(set(answers.values())) == 1, answers


def test_the_out_of_core_solver_answers_as_the_command_line_does(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ruleproof.model.loira.ooc", str(tmp_path / "run"),
                           "--timeout", "1e300"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert proc.stderr.strip().endswith(reason(cli(*TIMED["solve"], "--timeout", "1e300"), "--timeout")
                                        .split(": ", 1)[1])


def test_the_limits_accept_what_they_say():
    assert arguments.seconds("0.5") == 0.5 and arguments.seconds(arguments.MAX_SECONDS) == arguments.MAX_SECONDS
    assert arguments.seconds("0", "--rank-timeout", zero=True) == 0
    assert arguments.max_states("1") == 1 and arguments.max_states(str(arguments.MAX_STATES)) == arguments.MAX_STATES
    assert arguments.workers("0") == 0


# ---- sweep's grid, checked before it is built --------------------------------------------------

@pytest.mark.parametrize("params,needle", [
    (["goal=1e400..1e401"], "finite"),                          # exit 3 (NaN to int)
    (["goal=" + ",".join(["5"] * 1_000_000)], "at most 500"),   # 36 s to refuse
    (["goal=1..500", "faces=1..500", "players=1..500"], "at most 500"),   # still growing at 45 s
    (["goal=0..1:1e-300"], "at most 500"),
    (["goal=1..99999999999999999999999999999"], "at most 500"),
])
def test_sweep_refuses_a_grid_before_building_it(params, needle):
    argv = ["sweep", "pig"] + [a for p in params for a in ("--param", p)]
    res = cli(*argv)
    assert needle in reason(res, "--param") and res.seconds < 3, res.seconds


@pytest.mark.parametrize("name", ["x.bmp", "x", "x.jpeg", "x.PNG.txt"])
def test_sweep_refuses_a_plot_it_cannot_write(tmp_path, name):
    # the reproducer: an unknown --plot extension exited 3 after the whole sweep
    assert ".png" in reason(cli("sweep", "pig", "--param", "goal=3..4", "--plot", tmp_path / name), "--plot")
    assert list(tmp_path.iterdir()) == []


# ---- deduce's view files -------------------------------------------------------------------------

def _view(tmp_path: Path, edit) -> Path:
    data = json.loads((ROOT / "model/bomb_busters/examples/training-2p.json").read_text())
    text = edit(json.dumps(data))
    path = tmp_path / "view.json"
    path.write_text(text)
    return path


def test_deduce_refuses_a_5000_digit_number(tmp_path):
    path = _view(tmp_path, lambda t: t.replace('"blue_values": 6', '"blue_values": ' + "9" * 5000))
    res = cli("deduce", path)
    assert "a number of 5,000 characters" in reason(res, str(path))


def test_deduce_refuses_a_lone_surrogate_name(tmp_path):
    path = _view(tmp_path, lambda t: t.replace('"p2"', '"\\ud800"'))
    for extra in ([], ["--json"]):
        assert "not valid Unicode" in reason(cli("deduce", path, *extra), str(path))


def test_text_that_cannot_be_encoded_prints_escaped_not_exit_3(tmp_path):
    """A path that is not valid UTF-8 (Python keeps such bytes as lone surrogates) is printed
    escaped by the console script, never a UnicodeEncodeError (exit 3)."""
    proc = subprocess.run([str(Path(sys.executable).parent / "ruleproof"), "solve", "pig", "--goal", "3",
                           "--out", bytes(tmp_path / "o") + b"\xff"], capture_output=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    assert b"o\\udcff/manifest.json" in proc.stdout
    assert (Path(bytes(tmp_path / "o").decode() + "\udcff") / "manifest.json").exists()


def test_a_long_output_path_is_printed_on_one_line_when_piped(tmp_path):
    """A path longer than the 80 columns a pipe gets is printed whole, never broken across lines
    (a user copies it; a script reads it)."""
    out = tmp_path / ("a-folder-named-at-length-" * 4) / "out"
    proc = subprocess.run([str(Path(sys.executable).parent / "ruleproof"), "solve", "pig", "--goal", "3",
                           "--out", str(out)], capture_output=True, cwd=ROOT, timeout=120, text=True,
                          env={k: v for k, v in os.environ.items() if k != "COLUMNS"})
    assert proc.returncode == 0, proc.stderr
    assert f"  wrote {out / 'manifest.json'}\n" in proc.stdout
    assert all(len(line) > 80 for line in proc.stdout.splitlines() if line.startswith("  wrote "))
