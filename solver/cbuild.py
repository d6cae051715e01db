"""C sources of the package compiled once per user and loaded through ctypes.

A source is compiled with the system C compiler into a per-user cache folder
(``$XDG_CACHE_HOME/ruleproof`` or ``~/.cache/ruleproof``), under a name keyed by the SHA-256 of the
source and the compiler flags (a caller may add its own, e.g. ``-DNP=3``), written beside its final name and renamed into place (two processes
building at once each rename a whole file). A file there is loaded only when it belongs to this user
and nobody else can write it or its folder. Any failure to build or load raises
:class:`Unavailable` (one line); callers fall back to their pure-Python path.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import stat
import subprocess
from functools import cache
from pathlib import Path

CFLAGS = ("-O2", "-shared", "-fPIC")


class Unavailable(RuntimeError):
    """The compiled library cannot be built or loaded here (the message says why)."""


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ruleproof"


def _untrusted(path: Path, kind: str) -> str | None:
    """Why ``path`` may not be trusted (not ours, or writable by others), or None."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return f"cannot inspect {kind} {path} ({exc.strerror or exc})"
    if stat.S_ISLNK(st.st_mode):
        return f"{kind} {path} is a symbolic link"
    if st.st_uid != os.getuid():
        return f"{kind} {path} belongs to another user"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{kind} {path} is writable by others"
    return None


def library_path(source: Path, folder: Path | None = None, flags: tuple[str, ...] = CFLAGS) -> Path:
    digest = hashlib.sha256(source.read_bytes() + b"\0" + " ".join(flags).encode()).hexdigest()
    return (folder or cache_dir()) / f"{source.stem}-{digest[:24]}.so"


def _build(source: Path, lib: Path, flags: tuple[str, ...]) -> None:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise Unavailable("no C compiler (cc/gcc) found")
    folder = lib.parent
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise Unavailable(f"cannot create the cache folder {folder} ({exc.strerror or exc})") from None
    why = _untrusted(folder, "cache folder")
    if why:
        raise Unavailable(why)
    tmp = lib.with_name(f"{lib.name}.{os.getpid()}.tmp")
    try:
        proc = subprocess.run([compiler, *flags, "-o", str(tmp), str(source)], capture_output=True,
                              text=True)
        if proc.returncode != 0:
            raise Unavailable(f"compiling {source.name} failed: {proc.stderr.strip()[:300]}")
        os.chmod(tmp, 0o700)
        tmp.replace(lib)
    except OSError as exc:
        raise Unavailable(f"cannot write the compiled library in {folder} ({exc.strerror or exc})") from None
    finally:
        tmp.unlink(missing_ok=True)


def open_library(source: Path, flags: tuple[str, ...] = CFLAGS) -> ctypes.CDLL:
    """The library compiled from ``source`` with ``flags`` (built on first use, looked up in the
    cache folder on every call); raises :class:`Unavailable`."""
    lib = library_path(source, flags=flags)
    if not lib.exists():
        _build(source, lib, flags)
    why = _untrusted(lib.parent, "cache folder") or _untrusted(lib, "compiled library")
    if why:
        raise Unavailable(f"not loading {lib.name}: {why}")
    try:
        return ctypes.CDLL(str(lib))
    except OSError as exc:
        raise Unavailable(f"cannot load {lib} ({str(exc).splitlines()[0][:200]})") from None


#: :func:`open_library` once per process and source
load = cache(open_library)
