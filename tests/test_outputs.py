"""Issue 25, nothing lost: every file and folder ruleproof writes -- ``solve --out``, ``export FILE``,
``report --html/--md``, ``sweep --plot`` -- is checked before the work, written beside its target
and renamed into place (solver/outputs.py), and never put over data the tool did not write. Each
writing command is tried on someone else's file or folder, on FIFOs, devices and paths under a file,
on a full disk (a 4 MiB tmpfs) and under kill -9. (The out-of-core folder: tests/test_loira_ooc_cli.py.)
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ruleproof.solver import outputs
from tests.fuzz import run_in_process

ROOT = Path(__file__).resolve().parent.parent
EXE = str(Path(sys.executable).parent / "ruleproof")

#: every command that writes one file: its file name's suffix and its arguments for a target
FILE_WRITERS = {
    "export-drn": (".drn", lambda t: ["export", "pig", "--goal", "4", "--format", "drn", t]),
    "export-prism": (".prism", lambda t: ["export", "pig", "--goal", "4", "--format", "prism", t]),
    "export-jani": (".jani", lambda t: ["export", "pig", "--goal", "4", "--format", "jani", t]),
    "report-html": (".html", lambda t: ["report", "pig", "--goal", "4", "--rank-timeout", "0", "--html", t]),
    "report-md": (".md", lambda t: ["report", "pig", "--goal", "4", "--rank-timeout", "0", "--md", t]),
    "sweep-png": (".png", lambda t: ["sweep", "pig", "--param", "goal=3..4", "--plot", t]),
    "sweep-svg": (".svg", lambda t: ["sweep", "pig", "--param", "goal=3..4", "--plot", t]),
    "sweep-pdf": (".pdf", lambda t: ["sweep", "pig", "--param", "goal=3..4", "--plot", t]),
}
FOLDER_WRITER = lambda t: ["solve", "pig", "--goal", "4", "--out", t]   # noqa: E731
#: the out-of-core solver (its folder: tests/test_loira_ooc_cli.py), on a tiny round
OOC = "ruleproof.model.loira.ooc"
OOC_SMALL = ["--set", "deck=F1,F2,M1,grito", "--set", "stalls=2,4", "--set", "centre_rolls=1"]


def cli(*argv):
    return run_in_process([str(a) for a in argv])


def one_error_line(res) -> str:
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.code == 2 and len(lines) == 1, (res.code, res.stdout[-300:], res.stderr)
    return lines[0]


def hidden(folder: Path) -> list[str]:
    """Leftovers of a run: hidden partial copies or stranded previous outputs."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def snapshot(path: Path) -> dict[str, bytes]:
    if path.is_dir():
        return {p.name: p.read_bytes() for p in sorted(path.iterdir())}
    return {path.name: path.read_bytes()}


# ---- someone else's data ------------------------------------------------------------------------

@pytest.mark.parametrize("writer", FILE_WRITERS)
def test_someone_elses_file_is_refused_and_kept(tmp_path, writer):
    suffix, argv = FILE_WRITERS[writer]
    target = tmp_path / f"mine{suffix}"
    target.write_bytes(b"a user's own data, not ruleproof's\n" * 100)
    line = one_error_line(cli(*argv(target)))
    assert "not written by ruleproof" in line and str(target) in line
    assert target.read_bytes() == b"a user's own data, not ruleproof's\n" * 100
    assert hidden(tmp_path) == []


@pytest.mark.parametrize("writer", FILE_WRITERS)
def test_own_earlier_output_is_replaced(tmp_path, writer):
    suffix, argv = FILE_WRITERS[writer]
    target = tmp_path / f"out{suffix}"
    target.write_bytes(b"")                      # an empty file holds nothing to lose
    assert cli(*argv(target)).code == 0
    first = target.read_bytes()
    assert first and outputs.stamped(target)    # stamped as ruleproof's own
    res = cli(*argv(target))
    assert res.code == 0, res.stderr
    assert outputs.stamped(target) and hidden(tmp_path) == []


def test_a_link_is_followed_and_kept(tmp_path):
    real = tmp_path / "real.drn"
    link = tmp_path / "link.drn"
    assert cli(*FILE_WRITERS["export-drn"][1](real)).code == 0
    before = real.read_text()
    link.symlink_to(real)
    assert cli("export", "pig", "--goal", "5", "--format", "drn", link).code == 0
    assert link.is_symlink() and real.read_text() != before and outputs.stamped(real)
    assert hidden(tmp_path) == []


def test_a_project_folder_with_its_own_manifest_is_refused(tmp_path):
    # the reproducer: a project folder holding its own manifest.json lost app.js and src/
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "manifest.json").write_text('{"name": "my-app", "files": ["app.js"]}')
    (project / "app.js").write_text("console.log('mine')")
    (project / "src" / "x.js").write_text("// mine")
    before = {p.relative_to(project): p.read_bytes() for p in project.rglob("*") if p.is_file()}
    line = one_error_line(cli(*FOLDER_WRITER(project)))
    assert "--out" in line and "did not write" in line
    assert {p.relative_to(project): p.read_bytes() for p in project.rglob("*") if p.is_file()} == before
    assert hidden(tmp_path) == []


def test_an_earlier_output_with_a_users_notes_is_refused(tmp_path):
    out = tmp_path / "o"
    assert cli(*FOLDER_WRITER(out)).code == 0
    (out / "notes.txt").write_text("what I found")
    one_error_line(cli(*FOLDER_WRITER(out)))
    assert (out / "notes.txt").read_text() == "what I found"
    # a manifest that names a file the folder lacks is not provably ours either
    (out / "notes.txt").unlink()
    (out / "policy.png").unlink()
    one_error_line(cli(*FOLDER_WRITER(out)))


def test_a_folder_written_before_the_tool_key_is_still_replaced(tmp_path):
    out = tmp_path / "o"
    assert cli(*FOLDER_WRITER(out)).code == 0
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["tool"]
    manifest["files"] = [f for f in manifest["files"]]   # an older run's manifest: a solve's, dated
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert cli(*FOLDER_WRITER(out)).code == 0
    assert json.loads((out / "manifest.json").read_text())["tool"] == "ruleproof"


# ---- targets that are not files, checked before the work ----------------------------------------

def all_writers(target_of):
    """(name, argv) of every writing command aimed at ``target_of(suffix)``."""
    out = [(name, argv(target_of(suffix))) for name, (suffix, argv) in FILE_WRITERS.items()]
    return out + [("solve-out", FOLDER_WRITER(target_of("")))]


@pytest.fixture
def no_work(monkeypatch):
    """Every command's work fails loudly, so a refusal proves the path was checked first."""
    import ruleproof.solver.analysis
    import ruleproof.solver.explore
    import ruleproof.solver.verify
    from ruleproof import solver

    def work(*args, **kwargs):
        raise AssertionError("the work started before the output path was checked")
    for module, name in ((solver.analysis, "solve_ruleset"), (solver.explore, "explore"),
                         (solver.verify, "verify")):
        monkeypatch.setattr(module, name, work)


@pytest.mark.parametrize("kind", ["fifo", "device", "under-a-file", "folder-for-a-file"])
def test_unusable_targets_are_refused_before_the_work(tmp_path, kind, no_work):
    blocker = tmp_path / "a-file"
    blocker.write_text("mine")
    if kind == "fifo":
        def target(suffix):
            path = tmp_path / f"pipe{suffix}"
            if not path.exists():
                os.mkfifo(path)
            return path
        needle = "FIFO"
    elif kind == "device":
        if not Path("/dev/full").exists():
            pytest.skip("no /dev/full")
        target, needle = (lambda suffix: Path("/dev/full")), "device"
    elif kind == "under-a-file":
        target, needle = (lambda suffix: blocker / f"x{suffix}"), "is a file, not a folder"
    else:
        target, needle = (lambda suffix: tmp_path if suffix else blocker), "folder"
    for name, argv in all_writers(target):
        res = cli(*argv)
        line = one_error_line(res)
        assert res.seconds < 10, (name, res.seconds)        # a FIFO is never opened
        assert needle in line or "not a folder" in line, (name, line)
    assert blocker.read_text() == "mine"


# ---- a killed run, a run stopped mid-write ------------------------------------------------------

def test_a_kill_between_the_two_renames_loses_nothing(tmp_path):
    """The reproducer: a kill inside the final rename step removed the previous run, and the next
    run deleted the hidden copy. Where the swap cannot be one step (no renameat2), a kill between
    the two renames leaves the previous output hidden; the next run puts it back first."""
    out = tmp_path / "o"
    assert cli(*FOLDER_WRITER(out)).code == 0
    before = snapshot(out)
    pid = os.fork()
    if pid == 0:   # the child: a run whose swap is cut by a kill after its first rename
        try:
            outputs._exchange = lambda a, b: False
            real_rename = os.rename
            calls = []

            def rename(a, b):
                real_rename(a, b)
                calls.append(b)
                if len(calls) == 1:
                    os._exit(9)   # killed right after moving the previous output aside
            os.rename = rename
            with outputs.staged_folder(out) as stage:
                (stage.folder / "play_table.csv").write_text("new")
                stage.commit({"command": "test"})
        finally:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 9
    assert not out.exists() and hidden(tmp_path) == [f".o.old-{pid}", f".o.partial-{pid}"]
    outputs.sweep(out)                      # the next run's first step
    assert snapshot(out) == before and hidden(tmp_path) == []


def test_the_swap_is_one_step_where_the_kernel_offers_it(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "x").write_text("a")
    (b / "y").write_text("b")
    if not outputs._exchange(a, b):
        pytest.skip("renameat2(RENAME_EXCHANGE) not available here")
    assert (a / "y").read_text() == "b" and (b / "x").read_text() == "a"


def test_a_time_limit_while_writing_keeps_the_previous_file(tmp_path, monkeypatch):
    import ruleproof.solver.export
    from ruleproof import solver
    target = tmp_path / "m.drn"
    assert cli(*FILE_WRITERS["export-drn"][1](target)).code == 0
    before = target.read_bytes()
    real = solver.export.write_model

    def slow(model, fmt, fh, title=""):
        real(model, fmt, fh, title)
        fh.flush()
        time.sleep(5)     # the time limit strikes with the new file half done beside the target
    monkeypatch.setattr(solver.export, "write_model", slow)
    res = cli("export", "pig", "--goal", "5", "--format", "drn", target, "--timeout", "1")
    assert res.code == 1 and "partial result: time limit 1 s" in res.stdout
    assert target.read_bytes() == before and hidden(tmp_path) == []


def _kill_while_running(argv: list[str], folder: Path, target: Path, when: float) -> bool:
    """Run a command and kill -9 it after ``when`` seconds or as soon as its hidden partial copy
    appears; False when it finished first."""
    proc = subprocess.Popen([EXE, *argv], cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + when
    while time.monotonic() < deadline and proc.poll() is None:
        if any(p.name.startswith(f".{target.name}.partial-") for p in folder.iterdir()):
            break         # caught writing: kill it now
        time.sleep(0.001)
    finished = proc.poll() is not None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return not finished


@pytest.mark.parametrize("writer", ["export-jani"] + [pytest.param(w, marks=pytest.mark.slow)
                                                     for w in ("report-html", "sweep-png", "solve-out")])
def test_kill_9_at_any_moment_never_loses_or_truncates(tmp_path, writer):
    if writer == "solve-out":
        target, argv = tmp_path / "o", lambda t: ["solve", "pig", "--goal", "12", "--out", str(t)]
    else:
        suffix, make = FILE_WRITERS[writer]
        target, argv = tmp_path / f"out{suffix}", lambda t: [str(a) for a in make(t)]
    assert subprocess.run([EXE, *argv(target)], cwd=tmp_path, capture_output=True).returncode == 0
    before = snapshot(target)
    for when in (0.4, 0.9, 30.0):   # while loading, while working, and once caught writing
        if _kill_while_running(argv(target), tmp_path, target, when):
            assert snapshot(target) == before, when
        else:   # it finished first: its own complete output replaced the earlier one
            assert outputs.stamped(target) if target.is_file() else outputs.owned_folder(target)
            before = snapshot(target)
    res = subprocess.run([EXE, *argv(target)], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert hidden(tmp_path) == []   # the dead runs' partial copies are swept


# ---- a full disk -------------------------------------------------------------------------------

@pytest.fixture
def small_disk(tmp_path):
    """A 4 MiB tmpfs (root only; skipped where mounting is not permitted)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"mount not permitted here: {done.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def _fill(disk: Path) -> None:
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 512)
    except OSError:
        pass
    finally:
        os.close(fd)


def test_a_full_disk_keeps_every_earlier_output(small_disk):
    targets = []
    for name, (suffix, argv) in FILE_WRITERS.items():
        target = small_disk / f"{name}{suffix}"
        assert cli(*argv(target)).code == 0, name
        targets.append((name, target, argv(target)))
    out = small_disk / "o"
    assert cli(*FOLDER_WRITER(out)).code == 0
    targets.append(("solve-out", out, FOLDER_WRITER(out)))
    before = {name: snapshot(target) for name, target, _ in targets}
    job = small_disk / "job"           # an out-of-core job, finished before the disk filled
    assert run_in_process([str(job), "--quiet", *OOC_SMALL], module=OOC).code == 0
    job_files = {p: p.read_bytes() for p in job.rglob("*") if p.is_file()}
    _fill(small_disk)
    for name, target, argv in targets:
        res = cli(*argv)
        assert res.code == 2, (name, res.stderr)
        line = one_error_line(res)
        assert "No space left on device" in line or "cannot" in line, (name, line)
        assert snapshot(target) == before[name], name
    line = one_error_line(run_in_process([str(small_disk / "job2"), "--quiet", *OOC_SMALL], module=OOC))
    assert "No space left on device" in line
    assert {p: p.read_bytes() for p in job.rglob("*") if p.is_file()} == job_files
    assert not list((small_disk / "job2").glob("*"))   # no half-written job description
    assert hidden(small_disk) == []
