"""The user's limits (``--max-states``, ``--timeout``) as one object the games' checks can honour.

``verify`` starts the clock once; every exploration and Z3 call a game's checks make takes what is
left, and a check that cannot start before the deadline is reported unknown, never skipped silently.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from .results import UNKNOWN, PropertyResult


@dataclass(frozen=True)
class Limits:
    max_states: int | None = None    #: cap for each exhaustive exploration a check makes
    deadline: float | None = None    #: a ``time.perf_counter()`` value; None: no time limit
    #: where a long check says how far it is, as ``progress(what, done, total)`` (verify's bar)
    progress: Callable[[str, int, int | None], None] | None = field(default=None, compare=False)

    @classmethod
    def starting_now(cls, max_states: int | None = None, timeout: float | None = None,
                     progress: Callable[[str, int, int | None], None] | None = None) -> "Limits":
        return cls(max_states, None if timeout is None else time.perf_counter() + timeout, progress)

    def report(self, what: str | None, done: int, total: int | None = None) -> None:
        """Tell the user which check runs now and how far it is (``what`` None: the same check as
        last reported, further along); nothing happens without a progress callback."""
        if self.progress is not None:
            self.progress(what, done, total)

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None without a time limit."""
        return None if self.deadline is None else max(0.0, self.deadline - time.perf_counter())

    def expired(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def states(self, default: int | None) -> int | None:
        """The state cap for one exploration: the user's, else the check's own default."""
        return self.max_states if self.max_states is not None else default

    def z3_timeout_ms(self, default_ms: int) -> int:
        """A Z3 timeout: the check's own, shortened to what is left (at least 1 ms)."""
        left = self.remaining()
        return default_ms if left is None else max(1, min(default_ms, int(left * 1000)))

    def not_run(self, name: str, kind: str = "") -> PropertyResult:
        """The result of a check the time limit stopped before it began."""
        return PropertyResult(name, UNKNOWN, "not run: the time limit was reached first", kind=kind)


NO_LIMITS = Limits()
