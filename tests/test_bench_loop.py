"""bench/bench_loop.py: the loop's steps name files that exist and commands that parse, and a step is
measured from its own process (wall, CPU from its rusage, peak memory, exit code)."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def bench():
    spec = importlib.util.spec_from_file_location("bench_loop", ROOT / "bench" / "bench_loop.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_loop"] = module   # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_three_edits_and_every_step_are_there():
    b = bench()
    steps = b.full_loop()
    assert {s.edit for s in steps} == {"loira harmless", "loira stalls", "presentes board"}
    assert {s.name for s in steps} == {"verify", "compare", "report --against", "sweep", "rulings rank",
                                       "rulings check"}
    for s in steps + b.quick_loop():
        for arg in s.argv:
            if arg.endswith((".toml", ".txt")):
                assert (ROOT / arg).is_file(), arg
    assert len({s.run for s in steps}) == len(steps)


def test_a_step_is_measured_from_its_own_process():
    b = bench()
    burn = "import time\nt = time.process_time()\nx = bytearray(60 << 20)\nwhile time.process_time() - t < 0.3: pass"
    row = b.measure(b.Step("t", "burn", ("-c", burn)), [sys.executable], None)
    assert row["exit"] == 0 and row["cpu"] >= 0.25 and row["wall"] >= row["cpu"] * 0.5
    assert row["peak_mib"] >= 60
    failed = b.measure(b.Step("t", "bad", ("-c", "import sys; print('no such file'); sys.exit(2)")), [sys.executable], None)
    assert failed["error"] == "exit 2: no such file"
    slow = b.measure(b.Step("t", "slow", ("-c", "import time; time.sleep(30)")), [sys.executable], 0.5)
    assert "killed" in slow["error"]


def test_rows_against_the_baseline_and_recorded_beside(tmp_path, monkeypatch):
    b = bench()
    base = tmp_path / "baseline.json"
    base.write_text(json.dumps({"pig": {"x": {"states": 1}}}))
    monkeypatch.setattr(b, "BASELINE", base)
    rows = [{"run": "e verify", "wall": 2.0, "cpu": 1.0, "peak_mib": 100.0, "exit": 0},
            {"run": "e compare", "error": "exit 2: bad"}]
    b.record(rows, "load average 1.0")
    doc = json.loads(base.read_text())
    assert doc["pig"] == {"x": {"states": 1}}
    assert doc["loop"]["e verify"]["cpu"] == 1.0 and "e compare" not in doc["loop"]
    assert "load average" in doc["loop"]["e verify"]["source"]
    assert [p.name for p in tmp_path.iterdir()] == ["baseline.json"]
    text = b.line({**rows[0], "cpu": 0.5}, doc["loop"])
    assert "2.00x CPU" in text
    assert "failed: exit 2: bad" in b.line(rows[1], doc["loop"])


def test_the_cached_loop_passes_the_folder_to_the_commands_that_take_it(tmp_path):
    b = bench()
    steps = [b.with_cache(s, tmp_path) for s in b.full_loop()]
    assert all(s.argv[-2:] == ("--cache", str(tmp_path)) for s in steps if s.name != "rulings check")
    assert all("--cache" not in s.argv for s in steps if s.name == "rulings check")
    assert b.main(["--cache", str(tmp_path), "--only", "presentes"]) == 2   # an existing folder: refused
