"""No work done twice: a command's results kept by everything they depend on.

``compare`` verifies and evaluates two sides, ``report --against`` the same two sides plus a page,
``sweep`` a grid of points; a designer runs them one after the other on the same pair. Each result
(a ``verify`` report, an ``evaluate``, the part of a derived configuration verify explores) is kept
under a key hashing everything it depends on: the game, every parameter and ruling (and the bytes
of any file a parameter names, a board layout say), the options that change it (state limit, games,
seed, policy), and the digest of the code that computes it (``code_digest``: the solver, the proofs and the game's folder, code and data, so an edit to any misses).
The ruleset's name, description and source are not in the key: two files that say the same
configuration share their results, each given back under its own name.

The cache lives for one command (``scope``): in memory, so nothing big outlives the command (the
kept evaluations drop their solved tables), and with ``--cache DIR`` also on disk, one file per
key written beside and renamed into place; files it did not write are never touched. Results a
time limit cut short are not kept (they depend on the load, not only on the key).
"""
from __future__ import annotations

import contextvars
import copyreg
import dataclasses
import functools
import hashlib
import io
import json
import pickle
import types
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from ruleproof.model.ruleset import Ruleset

#: the package root: solver/.. (the code a result depends on lives under it)
PACKAGE = Path(__file__).resolve().parent.parent
#: what starts every file the cache writes (a file without it is not the cache's: never read)
MAGIC = b"ruleproof-cache 1\n"
SUFFIX = ".result"

_digests: dict[str, str] = {}


def code_digest(game: str) -> str:
    """A digest of the code behind a game's results: the solver and the proofs (every .py and .c
    file; verify's properties are checked by the proofs), the model's core modules, and every file
    of the game's own folder -- its code and its data too (Loira's learned policy tables and stored
    regret figures, Presentes' built-in boards): by relative path and content."""
    if game in _digests:
        return _digests[game]
    h = hashlib.sha256()
    code = [p for folder in (PACKAGE / "solver", PACKAGE / "proofs") if folder.is_dir()
            for p in folder.rglob("*") if p.suffix in (".py", ".c") and p.is_file()]
    own = PACKAGE / "model" / game.replace("-", "_")
    data = [p for p in own.rglob("*") if p.is_file() and "__pycache__" not in p.parts
            and p.suffix != ".pyc"] if own.is_dir() else []
    files = sorted(code) + sorted(data) + sorted((PACKAGE / "model").glob("*.py"))
    for path in files:
        h.update(str(path.relative_to(PACKAGE)).encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    _digests[game] = h.hexdigest()
    return _digests[game]


def _named_files(ruleset: Ruleset) -> dict[str, str]:
    """The content digest of every file a string parameter names (relative to the ruleset file's
    folder, or to the working folder), so an edited board layout is a different configuration."""
    out = {}
    folders = [Path(ruleset.source).parent] if ruleset.source and ruleset.source.endswith(".toml") else []
    for name, value in ruleset.params.items():
        if not isinstance(value, str) or not value:
            continue
        for folder in folders + [Path(".")]:
            path = folder / value
            try:
                if path.is_file():
                    out[name] = hashlib.sha256(path.read_bytes()).hexdigest()
                    break
            except OSError:
                continue
    return out


def result_key(kind: str, ruleset: Ruleset, by_configuration: bool = False, **options: Any) -> str:
    """The key of one result: ``kind`` (verify, evaluate), the configuration, the options, the code.
    ``by_configuration``: the result depends on the resolved configuration alone, so the game's
    ``configuration_key`` (when it has one) stands for the parameters and rulings as written."""
    from ruleproof.model.registry import get_spec
    resolved = get_spec(ruleset.game).configuration_key if by_configuration else None
    said = {"configuration": resolved(ruleset)} if resolved is not None else {
        "params": {k: repr(v) for k, v in sorted(ruleset.params.items())},
        "rulings": dict(sorted(ruleset.rulings.items()))}
    doc = {"kind": kind, "game": ruleset.game, **said, "files": _named_files(ruleset),
           "options": {k: repr(v) for k, v in sorted(options.items())},
           "code": code_digest(ruleset.game)}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


class ResultCache:
    """Results by key, in memory and (``directory``) on disk. ``hits``/``misses`` count lookups."""

    def __init__(self, directory: Path | None = None):
        self.directory = directory
        self.memory: dict[str, Any] = {}
        self.hits = self.misses = 0

    def _file(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / f"{key}{SUFFIX}"

    def get(self, key: str) -> Any | None:
        if key in self.memory:
            self.hits += 1
            return self.memory[key]
        if self.directory is not None:
            try:
                data = self._file(key).read_bytes()
            except OSError:
                data = b""
            if data.startswith(MAGIC):
                try:
                    value = pickle.loads(data[len(MAGIC):])
                except Exception:   # a file from another version or cut short: recomputed
                    value = None
                if value is not None:
                    self.memory[key] = value
                    self.hits += 1
                    return value
        self.misses += 1
        return None

    def has(self, key: str) -> bool:
        """Whether :meth:`get` would find ``key`` (in memory, or a file of the cache's on disk),
        without reading it."""
        if key in self.memory:
            return True
        if self.directory is None:
            return False
        try:
            with self._file(key).open("rb") as fh:
                return fh.read(len(MAGIC)) == MAGIC
        except OSError:
            return False

    def put(self, key: str, value: Any) -> None:
        self.memory[key] = value
        if self.directory is None:
            return
        from .outputs import write_file
        target = self._file(key)
        if target.exists():   # already there (this key's content is fixed by the key): leave it
            return
        try:
            with write_file(target, "--cache", text=False, store=True) as fh:
                fh.write(MAGIC + _dumps(value))
        except Exception:   # a full disk costs the next command its reuse, not this one its answer
            pass


def read_only(d: dict) -> types.MappingProxyType:
    return types.MappingProxyType(d)


def _frozen_mapping(m: types.MappingProxyType) -> tuple:
    return read_only, (dict(m),)


def _dumps(value: Any) -> bytes:
    """Pickled, a ruleset's read-only mappings included (pickled as the dicts they show)."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, types.MappingProxyType: _frozen_mapping}
    pickler.dump(value)
    return buffer.getvalue()


_active: contextvars.ContextVar[ResultCache | None] = contextvars.ContextVar("ruleproof_cache", default=None)


def current() -> ResultCache | None:
    return _active.get()


def check_cache_folder(path: Path | str) -> Path:
    """``--cache DIR`` checked before any work: a folder that can be written (made when new)."""
    from .outputs import check_working_folder
    folder = Path(path)
    if not check_working_folder(folder, "--cache"):
        from ruleproof.model.ruleset import RulesetError
        try:
            folder.mkdir(parents=True)
        except OSError as exc:
            raise RulesetError("command line", "--cache", f"cannot make {str(folder)!r} ({exc.strerror or exc})") from None
    return folder


@contextmanager
def scope(directory: Path | str | None = None) -> Iterator[ResultCache]:
    """A command's cache: the one already open (a command inside a command), else a new one that
    ends with the block (nothing it holds outlives the command)."""
    open_ = _active.get()
    if open_ is not None:
        yield open_
        return
    cache = ResultCache(None if directory is None else check_cache_folder(directory))
    token = _active.set(cache)
    try:
        yield cache
    finally:
        _active.reset(token)


def scoped(command: Callable) -> Callable:
    """``command`` run inside ``scope()``: its parts share results (the caller's cache if open)."""
    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        with scope():
            return command(*args, **kwargs)
    return run


def remember(kind: str, ruleset: Ruleset, options: dict[str, Any], compute: Callable[[], Any], *,
             keep: Callable[[Any], bool] = lambda _: True, slim: Callable[[Any], Any] = lambda v: v,
             restore: Callable[[Any, Ruleset], Any] = lambda v, _: v, by_configuration: bool = False) -> Any:
    """``compute()``, or the result kept for the same key in the open cache (none open: computed).
    ``keep`` says whether a result may be kept (not one a time limit cut short), ``slim`` what of
    it is kept, ``restore`` gives a kept result back under the caller's ruleset;
    ``by_configuration``: see :func:`result_key`."""
    cache = _active.get()
    if cache is None:
        return compute()
    key = result_key(kind, ruleset, by_configuration, **options)
    kept = cache.get(key)
    if kept is not None:
        return restore(kept, ruleset)
    value = compute()
    if keep(value):
        cache.put(key, slim(value))
    return value


def recall(kind: str, ruleset: Ruleset, options: dict[str, Any]) -> Any | None:
    """The result kept in the open cache under ``remember``'s key, or None (none kept, no cache)."""
    cache = _active.get()
    return None if cache is None else cache.get(result_key(kind, ruleset, **options))


def keep(kind: str, ruleset: Ruleset, options: dict[str, Any], value: Any) -> None:
    """``value`` kept in the open cache under ``remember``'s key (no cache open: nothing)."""
    cache = _active.get()
    if cache is not None:
        cache.put(result_key(kind, ruleset, **options), value)


def kept(kind: str, ruleset: Ruleset, options: dict[str, Any], by_configuration: bool = False) -> bool:
    """Whether the open cache holds ``remember``'s result for the same key (no cache open: no)."""
    cache = _active.get()
    return cache is not None and cache.has(result_key(kind, ruleset, by_configuration, **options))


def with_ruleset(value: Any, ruleset: Ruleset) -> Any:
    """A kept dataclass result given back under the caller's ruleset (its name and source), and so
    is a kept result inside it that names its ruleset too (an evaluation's ``solved``, which the
    page reads: kept by configuration, it may come from another ruleset of the same round)."""
    inner = getattr(value, "solved", None)
    if dataclasses.is_dataclass(inner) and hasattr(inner, "ruleset"):
        value = dataclasses.replace(value, solved=dataclasses.replace(inner, ruleset=ruleset))
    return dataclasses.replace(value, ruleset=ruleset)
