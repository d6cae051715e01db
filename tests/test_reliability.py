"""Issue 15: the command line's contract under stress -- no exit 3 on valid input, limits that bound
every phase, atomic output folders, bounded reads, strict arguments -- one test per reproducer,
plus a seeded fuzz run (tests/fuzz.py; `make fuzz N=...` runs thousands)."""
from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest

from tests.fuzz import FAMILIES, WRITING_FAMILIES, Case, fuzz, problems, run_in_process

ROOT = Path(__file__).resolve().parent.parent
EXE = str(Path(sys.executable).parent / "ruleproof")


def cli(*argv: str):
    return run_in_process([str(a) for a in argv])


def one_error_line(res) -> str:
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.code == 2 and len(lines) == 1, (res.code, res.stderr)
    return lines[0]


def process(*argv: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([EXE, *argv], capture_output=True, text=True, cwd=ROOT, timeout=120, **kw)


# ---- 1. exit 3 on valid input -------------------------------------------------------------------------

def test_presentes_solve_when_the_host_removes_a_player_before_the_first_roll():
    # 2 players, seat 0 removed at turn slot 1: its gift goes back to the tree ("O presente dele volta
    # para a árvore") and the last player left takes one of the two gifts from the tree (P04), so
    # seat 1 ends with its own gift, worth 0 to it, with probability 1/2: utility 1/2; seat 0 has none.
    res = cli("solve", "presentes", "--host-remove", "1:0", "--no-files", "--json")
    assert res.code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert [Fraction(v["fraction"]) for v in doc["values"]] == [0, Fraction(1, 2)]
    assert doc["extras"]["mean_turns"]["fraction"] == "0" and doc["extras"]["mean_turns"]["kind"] == "exact"
    assert doc["extras"]["turn_distribution_head"] == {"0": {"kind": "exact", "fraction": "1", "float": 1.0}}


def test_presentes_solve_when_the_game_is_over_before_it_starts():
    res = cli("solve", "presentes", "--host-remove", "1:0,1:1", "--no-files", "--json")
    assert res.code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["extras"]["mean_turns"]["fraction"] == "0" and doc["states"] == 0


def test_presentes_pre_turn_start_agrees_with_the_generic_solver(tmp_path):
    # the same configuration through compare: the generic exploration solves it independently
    ruleset = tmp_path / "removed.toml"
    ruleset.write_text('extends = "presentes"\n[params]\nhost_remove = ["1:0"]\n')
    from ruleproof.model.registry import load_ruleset
    from ruleproof.solver.analysis import solve_ruleset
    from ruleproof.solver.explore import explore
    from ruleproof.solver.solve import solve
    from ruleproof.model.registry import get_spec
    rs = load_ruleset(str(ruleset))
    exact = solve_ruleset(rs).values
    sol = solve(explore(get_spec("presentes").build(rs)), exact=True)
    assert [Fraction(v["fraction"]) for v in exact] == list(sol.initial_exact)
    res = cli("compare", "presentes", str(ruleset), "--max-states", "2000", "--timeout", "3")
    assert res.code in (0, 1) and not res.stderr, res.stderr


def test_simulate_presentes_accepts_a_negative_seed():
    a = cli("simulate", "presentes", "--seed", "-1", "--games", "50", "--json")
    b = cli("simulate", "presentes", "--seed", "-1", "--games", "50", "--json")
    c = cli("simulate", "presentes", "--seed", "1", "--games", "50", "--json")
    assert a.code == b.code == c.code == 0, a.stderr
    turns = [json.loads(r.stdout)["metrics"]["turns"]["mean"] for r in (a, b, c)]
    assert turns[0] == turns[1]   # seeded: reproducible
    assert json.loads(a.stdout)["seed"] == -1


def test_a_900_file_extends_chain_loads_without_recursion(tmp_path):
    (tmp_path / "c0.toml").write_text('extends = "pig"\n[params]\ngoal = 7\n')
    for i in range(1, 900):
        (tmp_path / f"c{i}.toml").write_text(f'extends = "c{i - 1}.toml"\n')
    (tmp_path / "c899.toml").write_text('extends = "c898.toml"\nname = "deep"\n[params]\nfaces = 4\n')
    from ruleproof.model.registry import load_ruleset
    rs = load_ruleset(str(tmp_path / "c899.toml"))
    assert (rs.name, rs["goal"], rs["faces"]) == ("deep", 7, 4)
    assert rs.origin("goal") == str(tmp_path / "c0.toml") and rs.origin("faces") == str(tmp_path / "c899.toml")
    (tmp_path / "c0.toml").write_text('extends = "c899.toml"\n')   # now a 900-file cycle
    line = one_error_line(cli("verify", str(tmp_path / "c899.toml")))
    assert "cycle" in line


def test_out_of_memory_is_a_limit_with_a_hint(monkeypatch):
    import ruleproof.solver.analysis
    from ruleproof import solver
    def explode(*args, **kwargs):
        raise MemoryError()
    monkeypatch.setattr(solver.analysis, "solve_ruleset", explode)
    res = cli("solve", "pig", "--no-files")
    assert res.code == 1
    assert "partial result: out of memory" in res.stdout and "lower --max-states or raise memory" in res.stdout
    res = cli("solve", "pig", "--no-files", "--json")
    assert res.code == 1 and json.loads(res.stdout)["partial"] is True


def test_a_library_that_cannot_load_is_one_line_not_a_traceback(monkeypatch):
    monkeypatch.setitem(sys.modules, "ruleproof.solver.verify", None)   # import of solver.verify fails
    res = cli("verify", "pig")
    assert res.code == 3 and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "cannot load" in res.stderr


# ---- 2. limits bound every phase ------------------------------------------------------------------------

def test_max_states_stops_the_batch_explorer_within_one_percent():
    from ruleproof.model.registry import get_spec
    from ruleproof.solver.explore import explore
    game = get_spec("pig").default()
    game = get_spec("pig").build(game)
    for limit in (1000, 12_345, 100_000):
        ex = explore(game, max_states=limit)
        assert not ex.complete and limit < ex.num_states <= limit * 1.01, (limit, ex.num_states)
    # the chunked levels build the same graph as one expansion per level
    small = get_spec("pig").build(get_spec("pig").default().with_overrides({"goal": 12}))
    import ruleproof.solver.explore_batch as eb
    whole = explore(small)
    old = eb.CHUNK
    try:
        eb.CHUNK = 7
        chunked = explore(small)
    finally:
        eb.CHUNK = old
    assert list(whole.keys) == list(chunked.keys) and list(whole.child) == list(chunked.child)
    assert list(whole.parent_edge) == list(chunked.parent_edge) and list(whole.depth) == list(chunked.depth)


@pytest.mark.parametrize("argv, limit", [
    (["solve", "pig", "--goal", "200", "--no-files", "--timeout", "2"], 2),   # solving is bounded
    (["compare", "pig", "pig", "--timeout", "2"], 2),
    (["simulate", "pig", "--games", "100000000", "--timeout", "1"], 1),
])
def test_timeout_bounds_the_whole_command_as_a_real_process(argv, limit):
    start = time.monotonic()
    proc = process(*argv)
    seconds = time.monotonic() - start
    assert seconds <= limit * 1.1 + 1 + 0.3, seconds   # 0.3 s: starting Python before the clock
    assert "Traceback" not in proc.stderr and not proc.stderr.strip(), proc.stderr
    if argv[0] == "compare":   # identical sides cut short: not decided, never "B regresses"
        assert proc.returncode in (0, 1) and "B regresses" not in proc.stdout
        assert "not decided" in proc.stdout or "partial" in proc.stdout or "nothing regressed" in proc.stdout
    else:
        assert proc.returncode == 1 and "partial result" in proc.stdout


def test_timeout_during_file_writing_keeps_no_files(tmp_path, monkeypatch):
    import ruleproof.solver.engines
    from ruleproof import solver
    real = solver.engines.write_play_table

    def slow_table(*args, **kwargs):
        files = real(*args, **kwargs)
        time.sleep(5)   # the time limit strikes while the files are being written
        return files
    monkeypatch.setattr(solver.engines, "write_play_table", slow_table)
    out = tmp_path / "o"
    res = cli("solve", "pig", "--goal", "5", "--out", out, "--timeout", "1")
    assert res.code == 1 and "partial result: time limit 1 s" in res.stdout
    assert res.seconds < 1 * 1.1 + 1
    assert list(tmp_path.iterdir()) == []   # neither the folder nor its hidden staging copy


def test_simulate_games_above_the_cap_is_bad_input():
    line = one_error_line(cli("simulate", "pig", "--games", "99999999999999999999"))
    assert "--games" in line


def test_ctrl_c_stops_within_a_second_with_exit_130():
    proc = subprocess.Popen([EXE, "solve", "pig", "--goal", "200", "--no-files"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    start = time.monotonic()
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - start < 1.0
    assert proc.returncode == 130 and err.strip() == "interrupted", err


def test_ctrl_c_reaches_the_compiled_loira_solver_within_a_second():
    import threading

    from ruleproof.model.loira import build, fast
    from ruleproof.model.registry import get_spec
    game = build(get_spec("loira").default())
    try:
        fast._library()
    except fast.FastUnavailable as exc:
        pytest.skip(str(exc))
    # Python's own Ctrl-C handler, even when the runner was started with SIGINT ignored (a
    # background job): otherwise the signal is dropped and the solve runs on for a minute
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            fast.solve(game.cfg)   # about a minute uninterrupted
    finally:
        signal.signal(signal.SIGINT, old)
    assert time.monotonic() - start < 2.0
    # the stop flag is reset by the next solve: it runs until its own limit, not "stopped"
    with pytest.raises(fast.FastLimit, match="state limit 10 "):
        fast.solve(game.cfg, max_states=10)


# ---- 3. atomic outputs -------------------------------------------------------------------------------

def test_output_folder_holds_one_run_with_its_manifest(tmp_path):
    out = tmp_path / "o"
    assert cli("solve", "pig", "--goal", "6", "--out", out).code == 0
    res = cli("solve", "pig", "--goal", "5", "--out", out, "--json")
    assert res.code == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["tool"] == "ruleproof" and manifest["command"] == "solve"
    assert manifest["config"]["params"]["goal"] == 5
    assert manifest["values"] == json.loads(res.stdout)["values"]
    assert sorted(p.name for p in out.iterdir()) == sorted(manifest["files"] + ["manifest.json"])
    assert [p.name for p in tmp_path.iterdir()] == ["o"]   # no staging folder left
    # a file the run did not write makes the folder someone else's (issue 25): refused, kept
    (out / "turns.png").write_text("a user's notes")
    assert "--out" in one_error_line(cli("solve", "pig", "--goal", "4", "--out", out))
    assert (out / "turns.png").read_text() == "a user's notes"


def test_a_users_folder_is_never_replaced(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    line = one_error_line(cli("solve", "pig", "--goal", "5", "--out", tmp_path))
    assert "--out" in line and (tmp_path / "notes.txt").read_text() == "mine"


def test_a_full_disk_leaves_no_file(tmp_path, monkeypatch):
    import ruleproof.solver.engines
    from ruleproof import solver
    def full(sol, out_dir, **kwargs):
        (out_dir / "play_table.csv").write_text("seat,score\n0,")   # truncated, as on a full disk
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(solver.engines, "write_play_table", full)
    line = one_error_line(cli("solve", "pig", "--goal", "5", "--out", tmp_path / "o"))
    assert "No space left" in line
    assert list(tmp_path.iterdir()) == []


def test_kill_9_while_writing_leaves_no_half_written_output(tmp_path):
    out = tmp_path / "k"
    assert process("solve", "pig", "--goal", "4", "--out", str(out)).returncode == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    proc = subprocess.Popen([EXE, "solve", "pig", "--goal", "40", "--out", str(out), "--float"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    staging = tmp_path / f".k.partial-{proc.pid}"
    deadline = time.monotonic() + 90
    while not (staging / "play_table.csv").exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it was caught writing"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # the previous run's folder is intact; the killed run's files are only in its hidden staging folder
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert json.loads((out / "manifest.json").read_text())["config"]["params"]["goal"] == 4
    # the next run sweeps the dead run's staging folder
    assert process("solve", "pig", "--goal", "3", "--out", str(out)).returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k"]


def test_broken_pipe_is_quiet_and_a_full_stdout_is_one_line():
    proc = subprocess.Popen([EXE, "rulings", "list"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()   # the reader goes away at once (`| true`)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and err == ""
    if Path("/dev/full").exists():
        with open("/dev/full", "w") as full:
            proc = subprocess.run([EXE, "games"], stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert "standard output" in proc.stderr


# ---- 4. bounded reads -------------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [["solve", "/dev/zero"], ["deduce", "/dev/zero"], ["verify", "/dev/zero"]])
def test_devices_are_refused_without_reading(argv):
    line = one_error_line(cli(*argv))
    assert "/dev/zero" in line and "not a regular file" in line


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    board = tmp_path / "board.toml"
    board.write_text(f'extends = "presentes"\n[params]\nboard = "{tmp_path / "pipe.txt"}"\n')
    os.mkfifo(tmp_path / "pipe.txt")
    for argv in (["solve", str(fifo)], ["solve", str(board), "--no-files"], ["deduce", str(fifo)]):
        res = cli(*argv)
        assert res.seconds < 5
        assert "not a regular file" in one_error_line(res)


def test_an_oversized_file_is_refused_naming_it(tmp_path):
    big = tmp_path / "big.toml"
    big.write_text('extends = "pig"\n' + "# padding\n" * 200_000)
    line = one_error_line(cli("solve", big))
    assert str(big) in line and "too large" in line


def test_a_byte_order_mark_is_accepted_in_toml_json_and_layouts(tmp_path):
    bom = b"\xef\xbb\xbf"
    toml = tmp_path / "r.toml"
    toml.write_bytes(bom + b'extends = "pig"\n[params]\ngoal = 5\n')
    assert cli("solve", toml, "--no-files").code == 0
    view = tmp_path / "v.json"
    view.write_bytes(bom + (ROOT / "model/bomb_busters/examples/format-example.json").read_bytes())
    assert cli("deduce", view).code == 0
    layout = tmp_path / "b.txt"
    layout.write_bytes(bom + (ROOT / "model/presentes/examples/hand-drawn.txt").read_bytes())
    assert cli("solve", "presentes", "--board", layout, "--no-files", "--timeout", "30").code == 0


def test_read_errors_name_the_file_that_is_bad(tmp_path):
    layout = tmp_path / "latin1.txt"
    layout.write_bytes(b"....\xe9...")
    line = one_error_line(cli("solve", "presentes", "--board", layout, "--no-files"))
    assert line.startswith(f"error: {layout}:") and "UTF-8" in line and "params.board" not in line
    # a layout that does not exist, given on the command line: the command line is to blame
    line = one_error_line(cli("solve", "presentes", "--board", "nope/x.txt", "--no-files"))
    assert line.startswith("error: command line: params.board:") and "presentes.toml" not in line
    # the default Bomb Busters mission is too big to solve exactly: the command, not the ruleset file
    line = one_error_line(cli("solve", "bomb-busters", "--no-files"))
    assert line.startswith("error: command line: solve:") and "rulesets/" not in line


def test_a_bad_view_slot_names_its_location_once(tmp_path):
    view = tmp_path / "v.json"
    data = json.loads((ROOT / "model/bomb_busters/examples/format-example.json").read_text())
    data["hands"][1]["racks"][0][3] = "?~abc"
    view.write_text(json.dumps(data))
    line = one_error_line(cli("deduce", view))
    assert line.count(str(view)) == 1 and line.count("hands[1].racks[0][3]") == 1


# ---- 5. loose arguments ---------------------------------------------------------------------------

def test_compare_refuses_unknown_options_and_extra_arguments():
    line = one_error_line(cli("compare", "pig", "pig", "--goal", "3", "--bogus", "x", "extra"))
    assert "--goal" in line or "extra" in line


def test_rulings_list_refuses_an_empty_name():
    assert "empty" in one_error_line(cli("rulings", "list", ""))


# ---- the fuzz campaign, small -----------------------------------------------------------------------

def test_the_contract_checker_catches_breaches():
    assert problems(Case("x", [], 1.0), type("R", (), {"code": 3, "stdout": "", "stderr": "x",
                                                        "seconds": 0.1})()) == ["exit 3"]
    res = type("R", (), {"code": 2, "stdout": "", "stderr": "a\nb\n", "seconds": 3.0})()
    assert problems(Case("x", [], 1.0), res) == ["exit 2 with 2 lines on stderr", "ran 3.00 s past --timeout 1"]


def test_fuzz_a_few_hundred_seeded_cases():
    report = fuzz(200, seed=15, slack=1.0, families=FAMILIES)   # slack: a shared, loaded CI machine
    assert report["failures"] == [], report["failures"][:3]
    assert set(report["families"]) == {"ruleset", "chain", "view", "layout", "arguments"}
    assert report["exit_codes"].get(0) and report["exit_codes"].get(2)   # both kinds were exercised


@pytest.mark.slow
def test_fuzz_the_writing_commands_with_processes_and_ctrl_c():
    """CI's slice of `make fuzz` (issue 25): export, report, sweep, solve --out, compare, rulings and
    the out-of-core solver, a third as real processes, half of those under Ctrl-C; about a minute."""
    report = fuzz(120, seed=25, processes=0.3, signals=0.5, slack=1.0, families=WRITING_FAMILIES)
    assert report["failures"] == [], report["failures"][:3]
    assert len(report["families"]) == len(WRITING_FAMILIES) and report["interrupted"] > 0
    assert report["files_lost_or_truncated"] == 0 and report["exit_3"] == 0


def test_an_error_raised_in_place_of_the_alarm_is_still_the_time_limit(capsys):
    # seen under load: numpy caught the alarm's TimeLimit inside a comparison and raised
    # "TypeError: Cannot compare structured arrays" instead, and the command ended with exit 3
    import typer

    from ruleproof import cli as cli_module
    from ruleproof.solver import runtime

    def body():
        try:
            time.sleep(5)
        except runtime.TimeLimit:
            raise TypeError("Cannot compare structured arrays") from None
    with pytest.raises(typer.Exit) as stopped:
        cli_module.run(body, timeout=0.2)
    assert stopped.value.exit_code == 1 and "time limit 0.2 s" in capsys.readouterr().out
    with pytest.raises(typer.Exit) as failed:   # without the alarm, an error stays an internal error
        cli_module.run(lambda: (_ for _ in ()).throw(TypeError("a real bug")), timeout=30)
    assert failed.value.exit_code == 3 and "internal error: TypeError: a real bug" in capsys.readouterr().err


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")   # the swallowed alarm
def test_an_alarm_swallowed_by_a_gc_callback_still_stops_the_command(capsys):
    # seen in the suite: the alarm went off inside Hypothesis's gc callback, whose exceptions Python
    # only prints; `solve loira --timeout 0.01` then ran on and printed a complete answer (exit 0)
    import gc
    import random

    import typer

    from ruleproof import cli as cli_module
    from ruleproof.model.pig import SPEC
    from ruleproof.solver import runtime
    from ruleproof.solver.montecarlo import playout, uniform_random_policy

    game = SPEC.build(SPEC.default())
    rng = random.Random(1)
    policies = {s: uniform_random_policy(game, rng) for s in range(game.num_players)}
    seen = []

    def slow_callback(phase, info):   # the real alarm goes off in here and is swallowed
        if phase == "start" and not seen:
            seen.append(phase)
            time.sleep(1.0)

    def body():
        gc.callbacks.append(slow_callback)
        try:
            gc.collect()
            assert runtime.alarm_fired() == 0.2   # it fired, yet nothing was raised here
            for _ in range(100_000):
                playout(game, policies, rng)
        finally:
            gc.callbacks.remove(slow_callback)
    with pytest.raises(typer.Exit) as stopped:
        cli_module.run(body, timeout=0.2)
    assert stopped.value.exit_code == 1 and "time limit 0.2 s" in capsys.readouterr().out


def test_no_full_collections_keeps_the_young_generations_and_stops_the_full_walks():
    """solver/runtime.py: the console script and this suite run without the full collections
    that walked every long-lived object (28 of 72 CPU s of verify on the Presentes board edit)."""
    import gc

    from ruleproof.solver import runtime
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        runtime.no_full_collections()
        assert gc.get_threshold() == (700, 10, runtime.FULL_COLLECTION_THRESHOLD)
    finally:
        gc.set_threshold(*before)
