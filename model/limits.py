"""The user's limits (``--max-states``, ``--timeout``) as one object the games' checks can honour.

``verify`` starts the clock once; every exploration and Z3 call a game's checks make takes what is
left, and a check that cannot start before the deadline is reported unknown, never skipped silently.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from .results import UNKNOWN, PropertyResult


#: One Z3 check's budget of work: Z3's ``rlimit``, a count of the solver's own steps. A verdict bounded
#: by it depends on the formula alone: the 20 s clock timeout it replaces turned a proof unknown on a
#: loaded machine that a quiet one decided. 21-35 s of Z3 here at load ~5 (docs/bench.md, stop 41).
Z3_WORK = 30_000_000
#: A check's clock backstop when the user set no time limit: not every Z3 routine counts its steps,
#: so this stops a check the work budget did not (it has never been met; a verdict it cut says so).
Z3_BACKSTOP_MS = 300_000


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

    def bound_z3(self, solver, work: int | None = None) -> None:
        """Bound each check of a Z3 solver (or optimiser): by work (``Z3_WORK`` of Z3's own steps,
        the same on every machine under any load), and by the clock only as far as the user's time
        limit reaches (without one, the far ``Z3_BACKSTOP_MS``)."""
        solver.set("rlimit", Z3_WORK if work is None else work)
        solver.set("timeout", self.z3_timeout_ms(Z3_BACKSTOP_MS))

    def z3_unknown(self, reason: str) -> str:
        """Why a Z3 check bounded by :meth:`bound_z3` ended undecided, in the user's words."""
        if self.expired() or (reason == "timeout" and self.deadline is not None):
            return f"z3 {reason} (stopped by the time limit)"
        if reason == "canceled":   # what Z3 answers when its rlimit runs out
            return f"z3 used its whole work budget ({Z3_WORK:,} steps) undecided"
        if reason == "timeout":
            return f"z3 ran {Z3_BACKSTOP_MS // 1000} s undecided (the clock backstop)"
        return f"z3 {reason}"

    def not_run(self, name: str, kind: str = "") -> PropertyResult:
        """The result of a check the time limit stopped before it began."""
        return PropertyResult(name, UNKNOWN, "not run: the time limit was reached first", kind=kind)


NO_LIMITS = Limits()
