"""Every file and folder ruleproof writes goes through here: checked before the work, written
beside its target, flushed to disk and renamed into place, and never put over anything the tool
did not write.

* **Checked first** (``check_file``, ``check_folder``, at parse time): a target that is a folder
  where a file is asked (or the reverse), a FIFO or a device (``/dev/full``), a path under a file,
  a folder that cannot be written, or anything holding someone else's data is refused in one line
  (:class:`RulesetError`, exit 2) before any work starts.
* **Files** (``write_file``): written to a hidden sibling ``.NAME.partial-PID``, fsynced, then
  ``os.replace``d over the target: the target is the old file or the new one, never a truncated
  one. Each writer stamps its file with :data:`STAMP` (a comment, a ``generator`` tag, PNG/SVG/PDF
  metadata); an existing target is replaced only if it carries the stamp (or is empty).
* **Folders** (``staged_folder``): the files go into a hidden sibling folder, a ``manifest.json``
  naming the tool, the command and every file is added, and the folder is swapped into place
  (``renameat2(RENAME_EXCHANGE)``: one atomic step; elsewhere two renames, undone by the next run
  should a kill fall between them). An existing folder is replaced only if it is empty or its
  manifest names ruleproof and exactly the files it holds.
* **Leftovers**: a run killed by ``kill -9`` leaves at most its hidden ``.NAME.partial-PID`` file or
  folder (or ``.NAME.old-PID``, the previous output between two renames); the next run writing
  NAME removes them once that process is gone, and puts a stranded previous output back.
"""
from __future__ import annotations

import ctypes
import errno
import json
import os
import shutil
import stat
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Iterator

from ruleproof.model.ruleset import RulesetError

#: the mark every file ruleproof writes carries (``f"{STAMP} {command}"``); an existing file is
#: replaced only when it carries it within its first or last ``_STAMP_WINDOW`` bytes
STAMP = "written by ruleproof"
_STAMP_WINDOW = 64 << 10
TOOL = "ruleproof"
MANIFEST = "manifest.json"
_NAME_ROOM = 200    # a hidden sibling's name keeps at most this much of the target's name


def stamp(command: str) -> str:
    return f"{STAMP} {command}"


def _bad(flag: str, target: Path | str, reason: str) -> RulesetError:
    return RulesetError("command line", flag, f"{str(target)!r}: {reason}")


# ---- checks before the work ----------------------------------------------------------------------

def _kind(info: os.stat_result) -> str:
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a file"


def _stat(path: Path, flag: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None     # under a file: _check_parent names it
    except (OSError, ValueError) as exc:
        raise _bad(flag, path, f"not a usable path ({getattr(exc, 'strerror', None) or exc})") from None


def _check_parent(path: Path, flag: str) -> None:
    """The nearest existing folder above ``path`` must be a writable folder (the folders between are
    made when the output is written)."""
    above = path.parent
    while True:
        info = _stat(above, flag)
        if info is not None:
            break
        if above == above.parent:
            raise _bad(flag, path, "no existing folder above it")
        above = above.parent
    if not stat.S_ISDIR(info.st_mode):
        raise _bad(flag, path, f"{str(above)!r} is {_kind(info)}, not a folder, so nothing can be written under it")
    if not os.access(above, os.W_OK | os.X_OK):
        raise _bad(flag, path, f"cannot write in {str(above)!r} (permission denied)")


def _usable_name(path: Path, flag: str) -> None:
    text = str(path)
    if "\x00" in text:
        raise _bad(flag, path, "a NUL character in the path")
    if os.path.isdir(text):
        return   # the caller says whether a folder is what it wants
    if not text.strip() or not path.name or path.name in (".", ".."):
        raise _bad(flag, path, "not a file name")
    try:
        os.fsencode(text)
    except UnicodeError:
        raise _bad(flag, path, "not a usable path (not valid in the file system's encoding)") from None
    if len(os.fsencode(path.name)) > 255:
        raise _bad(flag, path, "the file name is longer than 255 bytes")


def _head_and_tail(path: Path) -> bytes:
    with open(path, "rb") as fh:
        head = fh.read(_STAMP_WINDOW)
        size = os.fstat(fh.fileno()).st_size
        if size <= 2 * _STAMP_WINDOW:
            return head + fh.read()
        fh.seek(size - _STAMP_WINDOW)
        return head + fh.read()


def stamped(path: Path) -> bool:
    """Whether a regular file is ruleproof's own output (it carries :data:`STAMP`) or empty."""
    try:
        data = _head_and_tail(path)
    except OSError:
        return False
    return not data or STAMP.encode() in data


def check_file(path: Path | str, flag: str) -> Path:
    """Check an output file before any work (see the module doc); returns the path to write: a
    symbolic link is followed, so that the file it names is replaced and the link kept."""
    path = Path(path)
    _usable_name(path, flag)
    info = _stat(path, flag)
    if info is None:
        _check_parent(path, flag)
        return path
    if stat.S_ISDIR(info.st_mode):
        raise _bad(flag, path, "is a folder; give a file name")
    if not stat.S_ISREG(info.st_mode):
        raise _bad(flag, path, f"is {_kind(info)}, not a regular file; give a file name")
    real = Path(os.path.realpath(path))
    if not stamped(real):
        raise _bad(flag, path, "exists and was not written by ruleproof; give a new file name "
                               "(or remove the file first)")
    _check_parent(real, flag)
    return real


def _manifest(folder: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def owned_folder(folder: Path) -> bool:
    """Whether ``folder`` may be replaced: empty, or ruleproof's own output -- a manifest naming the
    tool, the command and every file, and nothing else in the folder."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return False
    if not entries:
        return True
    doc = _manifest(folder)
    if doc is None or not isinstance(doc.get("command"), str):
        return False
    # manifests written before the "tool" key: a solve's, with its date
    legacy = "tool" not in doc and doc["command"] == "solve" and "created" in doc
    if doc.get("tool") != TOOL and not legacy:
        return False
    files = doc.get("files")
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return False
    return ({e.name for e in entries} == set(files) | {MANIFEST}
            and all(e.is_file(follow_symlinks=False) for e in entries))


def _existing_folder(path: Path, flag: str) -> bool:
    """True for an existing folder, False for a new path whose parents can be made; else refused."""
    _usable_name(path, flag)
    info = _stat(path, flag)
    if info is None:
        _check_parent(path, flag)
        return False
    if not stat.S_ISDIR(info.st_mode):
        raise _bad(flag, path, f"exists and is not a folder (it is {_kind(info)})")
    return True


def check_folder(path: Path | str, flag: str) -> Path:
    """Check an output folder before any work: new, empty, or ruleproof's own earlier output."""
    path = Path(path)
    if _existing_folder(path, flag):
        if not owned_folder(path):
            raise _bad(flag, path, "holds files ruleproof did not write (no manifest naming them all); "
                                   "a run replaces its output folder wholesale, so give a new or empty folder")
        if not os.access(path.parent, os.W_OK | os.X_OK):   # the folder is swapped in its parent
            raise _bad(flag, path, f"cannot write in {str(path.parent)!r} (permission denied)")
    return path


def check_working_folder(path: Path | str, flag: str) -> bool:
    """A folder a command works in and resumes from (the out-of-core solver's): True when it is an
    existing folder (its contents are the caller's to judge), False when it is new and can be
    made; anything else is refused."""
    path = Path(path)
    exists = _existing_folder(path, flag)
    if exists and not os.access(path, os.W_OK | os.X_OK):
        raise _bad(flag, path, "cannot write in it (permission denied)")
    return exists


# ---- leftovers of killed runs --------------------------------------------------------------------

def _hidden(target: Path, kind: str, pid: int | None = None) -> Path:
    return target.parent / f".{target.name[:_NAME_ROOM]}.{kind}-{os.getpid() if pid is None else pid}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except OSError:
            pass


def sweep(target: Path) -> None:
    """Tidy what runs killed while writing ``target`` left: their partial copies go; a previous
    output stranded between two renames is put back when nothing has taken its place."""
    prefix = f".{target.name[:_NAME_ROOM]}."
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        kind, _, pid = entry.name[len(prefix):].rpartition("-")
        if kind not in ("partial", "old") or not pid.isdigit() or _alive(int(pid)):
            continue
        path = Path(entry.path)
        if kind == "old" and entry.is_dir(follow_symlinks=False):
            if not os.path.lexists(target):
                try:
                    os.rename(path, target)
                    continue
                except OSError:
                    pass
            if owned_folder(path):
                _remove(path)
        elif kind == "partial":
            _remove(path)


# ---- writing -------------------------------------------------------------------------------------

def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _cannot(flag: str, target: Path, exc: OSError) -> RulesetError:
    return _bad(flag, target, f"cannot write ({exc.strerror or exc})")


@contextmanager
def write_file(target: Path, flag: str, *, text: bool = True, store: bool = False) -> Iterator[IO]:
    """``with write_file(path, "--md") as fh``: ``fh`` is a hidden sibling; on a clean exit it is
    flushed, fsynced and renamed over ``target`` (checked with ``check_file`` first); on any error,
    limit or Ctrl-C it is removed and ``target`` keeps what it held. The writer must stamp it --
    unless ``store``: a data file of the tool's own at a path it owns (the stored scenarios)."""
    target = target if store else check_file(target, flag)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cannot(flag, target, exc) from None
    sweep(target)
    temp = _hidden(target, "partial")
    fh = None
    try:
        try:
            fh = open(temp, "w" if text else "wb", **({"encoding": "utf-8", "newline": ""} if text else {}))
        except OSError as exc:
            raise _cannot(flag, target, exc) from None
        try:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        except OSError as exc:
            raise _cannot(flag, target, exc) from None
        finally:
            try:
                fh.close()
            except OSError:
                pass
        if not store and not stamped(temp):
            raise AssertionError(f"the writer of {flag} did not stamp {target}")
        if not store and os.path.lexists(target) and not (os.path.isfile(target) and stamped(target)):
            raise _bad(flag, target, "was taken by another file while this run worked; nothing replaced")
        try:
            os.replace(temp, target)
        except OSError as exc:
            raise _cannot(flag, target, exc) from None
        _fsync_dir(target.parent)
    finally:
        if os.path.lexists(temp):
            _remove(temp)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one atomic step (Linux ``renameat2``); False where that is not available."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


class Staging:
    """The hidden folder a run writes into (``folder``) until :meth:`commit` swaps it into place."""

    def __init__(self, target: Path, folder: Path, flag: str):
        self.target, self.folder, self.flag, self.committed = target, folder, flag, False

    def final_path(self, written: str) -> str:
        path = Path(written)
        try:
            return str(self.target / path.relative_to(self.folder))
        except ValueError:
            return written

    def commit(self, manifest: dict[str, Any], files: list[str] | None = None) -> list[str]:
        """Write the manifest (the tool, the command, every file the folder holds), flush it all to
        disk and swap the folder into place; returns the final paths, the manifest last."""
        names = sorted(e.name for e in os.scandir(self.folder))
        if any(not (self.folder / n).is_file() or (self.folder / n).is_symlink() for n in names):
            raise AssertionError(f"{self.folder} holds something other than files")
        doc = {"tool": TOOL, **manifest, "files": names,
               "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        try:
            (self.folder / MANIFEST).write_text(json.dumps(doc, indent=1, default=str) + "\n", encoding="utf-8")
            for name in names + [MANIFEST]:
                _fsync_file(self.folder / name)
            _fsync_dir(self.folder)
            self._swap()
        except OSError as exc:
            raise _cannot(self.flag, self.target, exc) from None
        _fsync_dir(self.target.parent)
        order = [self.final_path(f) for f in files] if files is not None else []
        rest = [str(self.target / n) for n in names if str(self.target / n) not in order]
        return order + rest + [str(self.target / MANIFEST)]

    def _swap(self) -> None:
        target = self.target
        if os.path.lexists(target) and not (target.is_dir() and owned_folder(target)):
            raise _bad(self.flag, target, "was taken by other files while this run worked; nothing replaced")
        if not os.path.lexists(target):
            os.rename(self.folder, target)     # fails, rather than merge, if a folder appeared
            self.committed = True
            return
        if _exchange(self.folder, target):     # the staging path now holds the previous output
            self.committed = True
            _remove(self.folder)
            return
        old = _hidden(target, "old")           # two renames; a kill between them: see sweep()
        os.rename(target, old)
        os.rename(self.folder, target)
        self.committed = True
        _remove(old)


@contextmanager
def staged_folder(target: Path | None, flag: str = "--out") -> Iterator[Staging | None]:
    """``with staged_folder(out) as stage``: write into ``stage.folder``, then ``stage.commit``.
    Not committed (an error, a limit, Ctrl-C, a partial result): the staged files are removed and
    the previous folder stays as it was. ``None`` in, ``None`` out (no files wanted)."""
    if target is None:
        yield None
        return
    target = check_folder(target, flag)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        sweep(target)
        folder = _hidden(target, "partial")
        _remove(folder)
        folder.mkdir()
    except OSError as exc:
        raise _bad(flag, target, f"cannot create the output folder ({exc.strerror or exc})") from None
    stage = Staging(target, folder, flag)
    try:
        yield stage
    except OSError as exc:  # a full disk, a read-only folder: nothing half-written is kept
        raise _cannot(flag, target, exc) from None
    finally:
        if not stage.committed:
            _remove(folder)
