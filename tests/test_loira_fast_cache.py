"""The compiled Loira engine is built into a private per-user cache and loaded only from there
(issue 9 item 4): an unusable cache, a file someone else could have written, a broken library all
give FastUnavailable (one line), and the cached name follows the source and the flags."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ruleproof.model.loira import fast


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    """A fresh XDG cache home; the library is looked up again for each test."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    fast._library.cache_clear()
    yield tmp_path / "xdg"
    fast._library.cache_clear()


def _compiler():
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler")


def test_built_into_a_private_folder_keyed_by_source(cache_home):
    _compiler()
    fast._library()
    lib = fast.library_path()
    assert lib.parent == cache_home / "ruleproof" and lib.exists()
    assert (lib.parent.stat().st_mode & 0o777) == 0o700
    assert lib.stat().st_mode & 0o077 == 0
    assert list(lib.parent.glob("*.tmp")) == []


def test_a_source_or_flag_change_gives_a_new_name(tmp_path, monkeypatch):
    before = fast.library_path(tmp_path)
    copy = tmp_path / "fast_solver.c"
    copy.write_bytes(fast.SOURCE.read_bytes() + b"\n/* changed */\n")
    monkeypatch.setattr(fast, "SOURCE", copy)
    changed = fast.library_path(tmp_path)
    monkeypatch.setattr(fast, "CFLAGS", fast.CFLAGS + ("-DX",))
    assert len({before, changed, fast.library_path(tmp_path)}) == 3


def test_an_unusable_cache_folder_is_one_line(cache_home, tmp_path, monkeypatch):
    _compiler()
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))   # the cache would live inside a file
    with pytest.raises(fast.FastUnavailable, match="cannot create the cache folder") as err:
        fast._library()
    assert "\n" not in str(err.value)


def _plant(cache_home: Path, mode: int) -> Path:
    """A file at the library's exact path, as another program could have left it."""
    folder = cache_home / "ruleproof"
    folder.mkdir(parents=True, mode=0o700)
    lib = fast.library_path()
    lib.write_bytes(b"\x7fELF not really")
    os.chmod(lib, mode)
    return lib


def test_a_file_others_can_write_is_not_loaded(cache_home):
    lib = _plant(cache_home, 0o666)
    with pytest.raises(fast.FastUnavailable, match="writable by others"):
        fast._library()
    os.chmod(lib, 0o700)
    os.chmod(lib.parent, 0o777)
    with pytest.raises(fast.FastUnavailable, match="cache folder .* writable by others"):
        fast._library()


def test_a_file_of_another_user_is_not_loaded(cache_home):
    if os.getuid() != 0:
        pytest.skip("only root can give a file to another user")
    lib = _plant(cache_home, 0o700)
    os.chown(lib, 65534, 65534)
    with pytest.raises(fast.FastUnavailable, match="belongs to another user"):
        fast._library()


def test_a_broken_library_is_one_line(cache_home):
    _plant(cache_home, 0o700)
    with pytest.raises(fast.FastUnavailable, match="cannot load") as err:
        fast._library()
    assert "\n" not in str(err.value)


def test_solve_falls_back_with_a_note_when_the_engine_cannot_load(cache_home, tmp_path, monkeypatch):
    # the full round is beyond the generic probe: the C engine would answer; without it the
    # command gives a partial result naming why, not an internal error
    from tests.fuzz import run_in_process
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    example = Path(__file__).resolve().parent.parent / "model/loira/examples/twelve-cards.toml"
    res = run_in_process(["solve", str(example), "--max-states", "2000", "--no-files"])
    assert res.code != 3 and "Traceback" not in res.stderr + res.stdout
    said = " ".join((res.stdout + res.stderr).split())   # the console may wrap the line
    assert "the C engine was not used: cannot create the cache folder" in said
