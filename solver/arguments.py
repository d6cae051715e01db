"""The command line's numbers and output paths, checked in one place, as they are parsed.

Every command (``cli.py``) and the out-of-core Loira solver (``model/loira/ooc.py``) parse their
limits, counts and output paths with these functions, so the same argument gets the same answer
everywhere: a value out of range is bad input (:class:`RulesetError`, one line, exit 2) before any
work starts, never an overflow deep inside (``--timeout inf`` once overflowed the alarm clock).
"""
from __future__ import annotations

import math
from pathlib import Path

from ruleproof.model.ruleset import RulesetError

from . import outputs

#: ``--timeout`` and the other time limits: at most this many seconds (about 11.6 days); a bigger
#: number, ``inf`` or ``nan`` is a typo (omit the option for no limit)
MAX_SECONDS = 1_000_000.0
#: ``--max-states``: far beyond any memory (a state takes tens of bytes)
MAX_STATES = 10**12
#: simulated games (``simulate --games``, ``sweep --games``): beyond this a run takes days
MAX_GAMES = 100_000_000
#: worker processes (the out-of-core solver's ``--workers``)
MAX_WORKERS = 256
#: formats ``sweep --plot`` writes (each carries the tool's stamp in its metadata)
PLOT_FORMATS = ("png", "svg", "pdf")


def _refuse(flag: str, reason: str) -> RulesetError:
    return RulesetError("command line", flag, reason)


def number(text: str | float, flag: str) -> float:
    """A finite number (``1e400``, ``inf`` and ``nan`` are refused)."""
    try:
        value = float(text)
    except (TypeError, ValueError, OverflowError):
        raise _refuse(flag, f"expected a number, not {str(text)!r}") from None
    if not math.isfinite(value):
        raise _refuse(flag, f"expected a finite number, not {str(text)!r}")
    return value


def seconds(text: str | float, flag: str = "--timeout", *, zero: bool = False) -> float:
    """A time limit in seconds: positive (``zero``: or 0, which skips the phase), at most
    :data:`MAX_SECONDS`."""
    try:
        value = number(text, flag)
    except RulesetError:
        value = math.nan
    if not (0 < value <= MAX_SECONDS or (zero and value == 0)):
        low = "0 or a positive" if zero else "a positive"
        raise _refuse(flag, f"must be {low} number of seconds, at most {MAX_SECONDS:,.0f} "
                            f"(about 11 days; omit {flag} for no limit), not {str(text)!r}")
    return value


def integer(text: str | int, flag: str, low: int, high: int, what: str = "") -> int:
    """A whole number from ``low`` to ``high`` (``what``: its unit, for the message)."""
    def refused() -> RulesetError:
        shown = f"a {len(raw)}-character number" if len(raw) > 30 else repr(raw)
        kind = "a positive whole number" if low == 1 else "a whole number"
        return _refuse(flag, f"must be {kind}{' of ' + what if what else ''} from {low:,} to "
                             f"{high:,}, not {shown}")
    raw = str(text).strip()
    if isinstance(text, bool) or len(raw) > 30:
        raise refused()
    try:
        value = text if isinstance(text, int) else int(raw)
    except ValueError:
        raise refused() from None
    if not low <= value <= high:
        raise refused()
    return value


def max_states(text: str | int, flag: str = "--max-states") -> int:
    return integer(text, flag, 1, MAX_STATES, "states")


def games(text: str | int, flag: str = "--games") -> int:
    return integer(text, flag, 1, MAX_GAMES, "games")


def workers(text: str | int, flag: str = "--workers") -> int:
    return integer(text, flag, 0, MAX_WORKERS, "worker processes (0: in this process)")


def output_file(text: str | Path, flag: str, formats: tuple[str, ...] | None = None) -> Path:
    """An output file (``outputs.check_file``), with one of ``formats`` as its extension when given."""
    path = outputs.check_file(Path(text), flag)
    if formats is not None and Path(text).suffix.lower().lstrip(".") not in formats:
        raise _refuse(flag, f"{str(text)!r}: the file name must end in "
                            f"{', '.join('.' + f for f in formats)} (the format is taken from it)")
    return path


def output_folder(text: str | Path, flag: str) -> Path:
    """An output folder (``outputs.check_folder``): new, empty, or ruleproof's own earlier output."""
    return outputs.check_folder(Path(text), flag)
