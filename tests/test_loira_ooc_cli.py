"""Issue 25: the out-of-core Loira solver's command line (``python -m ruleproof.model.loira.ooc``)
under the CLI's contract -- settings it does not solve refused, a folder for another job (or no job
at all) refused, no traceback on any input or signal, Ctrl-C and --timeout honoured with the worker
processes stopped. Its values: tests/test_loira_ooc.py."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ruleproof.model.loira import fast, ooc
from tests.test_limits_signals import children, running

ROOT = Path(__file__).resolve().parent.parent
SMALL = ["--set", "deck=F1,F2,M1,grito", "--set", "stalls=2,4", "--set", "centre_rolls=1"]
# ten cards: a few seconds in this process, long enough to be stopped mid-way
TEN = ["--set", "deck=F1,F2,M1,grito,M2,toc-toc,P1,grito,descarga,P2", "--set", "stalls=2,3,4",
       "--set", "centre_rolls=2"]


def ooc_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "ruleproof.model.loira.ooc", *map(str, args)]


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(ooc_cmd(*args), cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def one_line(proc: subprocess.CompletedProcess, code: int = 2) -> str:
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == code and len(lines) == 1, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr + proc.stdout
    return lines[0]


@pytest.fixture(autouse=True)
def compiled():
    try:
        fast._library()
    except fast.FastUnavailable as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("args,needle", [
    (["--set", "objective=match"], "objective=match"),          # it answered the round's value
    (["--set", "deck=F1,F2,M1,grito,rapagote"], "expansion"),
    (["--set", "players=3"], "2 players"),
    (["--workers", "-1"], "--workers"),                          # hung
    (["--forward-only", "0"], "--forward-only"),                 # ran the whole solve
    (["--forward-only", "-1"], "--forward-only"),                # answered {"states": 0}, exit 0
    (["--partitions", "1000"], "--partitions"),
    (["--timeout", "inf"], "--timeout"),
    (["--timeout", "1e300"], "--timeout"),
    (["--set", "=x"], "KEY=VALUE"),
    (["--bogus"], "unrecognized"),
    (["--keep-cards", "25"], "--keep-cards"),
    (["--keep-cards", "x"], "--keep-cards"),
])
def test_settings_it_does_not_solve_are_refused(tmp_path, args, needle):
    line = one_line(run(tmp_path / "run", *SMALL, *args))
    assert needle in line, line
    assert not (tmp_path / "run").exists()   # refused before the folder is made


def test_keep_cards_leaves_those_layers_readable(tmp_path):
    proc = run(tmp_path / "run", *SMALL, "--partitions", "2", "--keep-cards", "2", "--quiet")
    assert proc.returncode == 0, proc.stderr
    cfg = ooc.config_from({"deck": "F1,F2,M1,grito", "stalls": "2,4", "centre_rolls": "1"})
    keys, values = ooc.layer_values(tmp_path / "run", ooc.kept_layers(ooc.Job.of(cfg, 2), 2))
    assert len(keys) == len(values) > 0


def test_folders_it_cannot_resume_are_refused(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("mine")
    assert "not a folder" in one_line(run(a_file, *SMALL))
    assert "is a file" in one_line(run(a_file / "run", *SMALL))
    malformed = tmp_path / "malformed"
    malformed.mkdir()
    (malformed / "job.json").write_text("{not json")
    assert "job.json" in one_line(run(malformed, *SMALL))
    # old files without a job description: once reused and crashed
    stale = tmp_path / "stale"
    (stale / "L000").mkdir(parents=True)
    (stale / "L000" / "p000.keys.npy").write_bytes(b"junk")
    assert "no job.json" in one_line(run(stale, *SMALL))
    # an incomplete job description is not resumed either
    done = tmp_path / "done"
    assert run(done, *SMALL, "--quiet").returncode == 0
    job = json.loads((done / "job.json").read_text())
    assert job["tool"] == "ruleproof" and job["command"] == "ooc"
    del job["stalls"]
    (done / "job.json").write_text(json.dumps(job))
    assert "'stalls' missing" in one_line(run(done, *SMALL))
    # a folder of the layout before stop 31 (16-byte keys; its job.json has no "layout"): refused,
    # never read with this layout's sizes
    old = tmp_path / "old"
    assert run(old, *SMALL, "--quiet").returncode == 0
    job = json.loads((old / "job.json").read_text())
    del job["layout"], job["key_bytes"]
    (old / "job.json").write_text(json.dumps(job))
    before = sorted(p.name for p in old.rglob("*"))
    assert "earlier version (file layout 1" in one_line(run(old, *SMALL))
    assert sorted(p.name for p in old.rglob("*")) == before
    # someone's folder: the files stay as they were
    assert (stale / "L000" / "p000.keys.npy").read_bytes() == b"junk"
    assert a_file.read_text() == "mine"


@pytest.mark.slow
def test_an_unreachable_scheduler_fails_in_seconds(tmp_path):
    pytest.importorskip("distributed")
    start = time.monotonic()
    line = one_line(run(tmp_path / "run", *SMALL, "--scheduler", "tcp://127.0.0.1:9"))
    assert "--scheduler" in line and time.monotonic() - start < 15   # was a traceback after 30 s


#: an 11-card round (991,870 states, ~3 s of solving): well past a 1 s limit and its grace (the
#: ten-card round, 1.2 s since the engine got faster, once finished inside the grace)
ELEVEN = ["--set", "deck=F1,F2,M1,grito,M2,toc-toc,P1,grito,descarga,P2,F-", "--set", "stalls=2,3,4",
          "--set", "centre_rolls=2"]


def test_a_time_limit_is_a_partial_result_and_the_folder_resumes(tmp_path):
    folder = tmp_path / "run"
    start = time.monotonic()
    proc = run(folder, *ELEVEN, "--partitions", "4", "--quiet", "--timeout", "1")
    assert time.monotonic() - start < 1 * 1.1 + 1 + 1.5   # + starting Python and the libraries
    assert proc.returncode == 1 and not proc.stderr, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["partial"] is True and "time limit 1 s" in doc["reason"]
    again = run(folder, *ELEVEN, "--partitions", "4", "--quiet")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["value"] == fast.solve(ooc.config_from(
        {"deck": "F1,F2,M1,grito,M2,toc-toc,P1,grito,descarga,P2,F-", "stalls": "2,3,4",
         "centre_rolls": "2"}))["value"]


@pytest.mark.parametrize("workers,delay", [(0, 0.3), (0, 1.5), pytest.param(2, 5.0, marks=pytest.mark.slow)])
# (0.3 s: still loading the libraries)
def test_ctrl_c_stops_it_and_its_workers_within_a_second(tmp_path, workers, delay):
    if workers:
        pytest.importorskip("distributed")
    # with workers, a deck of twelve: ~9 s on two cores quiet, so the 5 s it waits for Dask's
    # workers to start do not outlast the solve (ten cards finished in 3.7 s on a fast day)
    deck = ELEVEN[:1] + [ELEVEN[1] + ",M-"] + ELEVEN[2:] if workers else TEN
    proc = subprocess.Popen(ooc_cmd(tmp_path / "run", *deck, "--workers", workers, "--quiet"), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(delay)
    assert proc.poll() is None, proc.communicate()
    kids = children(proc.pid)
    proc.send_signal(signal.SIGINT)
    start = time.monotonic()
    proc.wait(timeout=30)
    assert time.monotonic() - start < 1.0
    out, err = proc.communicate()
    assert proc.returncode == 130 and err.strip() == "interrupted", err
    deadline = time.monotonic() + 1.0
    while any(running(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(running(k) for k in kids)
