"""Output folders written atomically: a run writes into a hidden sibling folder, adds a
``manifest.json`` (command, ruleset, configuration, values, files) and only then renames it into
place, replacing the previous run's folder wholesale. A folder therefore holds the files of one
complete run; a killed, failed or partial run leaves at most a hidden ``.NAME.partial-PID`` folder
(swept by the next run once that process is gone), never a truncated file under NAME.
"""
from __future__ import annotations

import json
import os
import shutil
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from ruleproof.model.ruleset import RulesetError

#: files ruleproof writes into an output folder; a folder holding only these (or a manifest) is a
#: previous run's and may be replaced, any other folder is the user's and is left alone
KNOWN_FILES = frozenset({
    "manifest.json", "policy.json", "policy.csv", "decision_graph.graphml", "policy.png",
    "policy_values.json", "policy_values.csv", "turn_distribution.csv", "play_table.csv",
    "play_table.json", "summary.json", "turns.png"})


def _bad_out(target: Path, reason: str) -> RulesetError:
    return RulesetError("command line", "--out", f"{str(target)!r}: {reason}")


def _replaceable(folder: Path) -> bool:
    entries = list(folder.iterdir())
    names = {e.name for e in entries}
    return "manifest.json" in names or all(e.is_file() and e.name in KNOWN_FILES for e in entries)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _sweep(parent: Path, name: str) -> None:
    """Remove the leftovers of runs killed while writing ``name`` (their process is gone)."""
    for entry in parent.glob(f".{name}.*-*"):
        stem, _, pid = entry.name.rpartition("-")
        if stem in (f".{name}.partial", f".{name}.old") and pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(entry, ignore_errors=True)


class Staging:
    """The hidden folder a run writes into (``folder``) until :meth:`commit` moves it to ``target``."""

    def __init__(self, target: Path, folder: Path):
        self.target, self.folder, self.committed = target, folder, False

    def final_path(self, written: str) -> str:
        path = Path(written)
        try:
            return str(self.target / path.relative_to(self.folder))
        except ValueError:
            return written

    def commit(self, manifest: dict[str, Any], files: list[str]) -> list[str]:
        """Write the manifest, then rename the folder into place; returns the final file paths."""
        final = [self.final_path(f) for f in files]
        doc = dict(manifest, files=[Path(f).name for f in final],
                   created=datetime.now(timezone.utc).isoformat(timespec="seconds"))
        (self.folder / "manifest.json").write_text(json.dumps(doc, indent=1, default=str) + "\n")
        old = None
        if self.target.exists():
            old = self.target.parent / f".{self.target.name}.old-{os.getpid()}"
            self.target.rename(old)
        self.folder.rename(self.target)
        self.committed = True
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return final + [str(self.target / "manifest.json")]


@contextmanager
def staged_folder(target: Path | None) -> Iterator[Staging | None]:
    """``with staged_folder(out) as stage``: write into ``stage.folder``, then ``stage.commit``.
    Not committed (an error, a limit, Ctrl-C, a partial result): the staged files are removed and
    the previous folder stays as it was. ``None`` in, ``None`` out (no files wanted)."""
    if target is None:
        yield None
        return
    if target.exists() and not target.is_dir():
        raise _bad_out(target, "exists and is not a folder")
    if target.is_dir() and not _replaceable(target):
        raise _bad_out(target, "holds files ruleproof did not write (no manifest.json); a run "
                               "replaces its output folder wholesale, so give a new or empty folder")
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        _sweep(parent, target.name)
        folder = parent / f".{target.name}.partial-{os.getpid()}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
    except OSError as exc:
        raise _bad_out(target, f"cannot create the output folder ({exc.strerror or exc})") from None
    stage = Staging(target, folder)
    try:
        yield stage
    except OSError as exc:  # a full disk, a read-only folder: nothing half-written is kept
        raise _bad_out(target, f"cannot write the output files ({exc.strerror or exc})") from None
    finally:
        if not stage.committed:
            shutil.rmtree(folder, ignore_errors=True)
