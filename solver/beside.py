"""Heavy halves of a command on the machine's second core: the same answers, sooner.

``compare`` and ``report --against`` verify and evaluate two sides that share nothing when both
are full-size rulesets an engine samples (the near-optimal engine's fixed self-play: tens of CPU
seconds each); ``sweep`` evaluates such points one after the other; ``verify`` checks a ruleset's
derived configurations (its companions) after its own properties or sampled plays, and shares them
with the worker from both ends (:class:`BothEnds`: the worker's from the front meanwhile, the rest
here from the back); ``rulings rank`` beyond the exact solve plays each reading's paired games in
turn. Each piece is a fixed amount of seeded work whose answer does not depend on where it runs, so
running one of them in a forked worker while the command goes on changes only the wall time.

Only without a time limit (a clock shared between processes would make the answer depend on the
load) and only when the work is heavy (a fork costs tens of milliseconds). A worker that fails for
any reason -- an exception, a kill, memory -- costs time only: the caller computes the piece itself,
so a bad input still gets its own one-line error from the main process.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Iterable, Iterator, Sequence

#: processes a command may use (the machine's cores, at most two: the loop's pieces come in twos)
MAX_PROCESSES = 2

#: workers this process runs now (a worker counts as all of them: no worker forks its own), so a
#: piece that could use a second core asks ``processes()`` and finds it busy
_running = [0]

#: the piece a forked worker runs (set just before the fork, so nothing needs pickling on the way in)
_pending: list[tuple[Callable[..., Any], tuple]] = []


def processes() -> int:
    """Processes a command may run its heavy pieces in: the cores this process may use, at most
    ``MAX_PROCESSES``, less the workers already running. ``RULEPROOF_PROCESSES=N`` sets N (1: one
    process); without it a second process is used only while a core is idle: a worker cannot share
    the caches one side fills for the other (up to ~20% more CPU), which a busy machine pays in wall
    time too. The answers are the same either way; only the time depends on it."""
    if _running[0] >= MAX_PROCESSES - 1:
        return 1   # the second process is this command's already: nothing to measure
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    wanted = os.environ.get("RULEPROOF_PROCESSES", "")
    if wanted.isdigit() and int(wanted) > 0:
        cores = min(cores, int(wanted))
    elif cores > 1 and _busy() > cores - MAX_PROCESSES + 0.5:   # others' work leaves no core idle for a worker
        cores = 1
    return max(1, min(cores, MAX_PROCESSES) - _running[0])


#: how long the machine's CPU use is watched before a fork (seconds)
IDLE_WINDOW = 0.15


def _busy() -> float:
    """Cores busy with others' work now (this process sleeps meanwhile): measured over IDLE_WINDOW
    from the kernel's CPU times (``/proc/stat``), else the 1-minute load average (which counts this
    process too). The load average trails by a minute: right after the designer's
    previous command it still counts that command, and a loop of commands one after the other
    would never see the idle core it has."""
    first = _cpu_times()
    if first is not None:
        import time
        time.sleep(IDLE_WINDOW)
        second = _cpu_times()
        if second is not None and second[0] > first[0]:
            total, idle = second[0] - first[0], second[1] - first[1]
            return (os.cpu_count() or 1) * (1 - idle / total)
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0


def _cpu_times() -> tuple[int, int] | None:
    """(all, idle) CPU time of the whole machine, in clock ticks, or None where unknown."""
    try:
        with open("/proc/stat") as fh:
            fields = fh.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu" or len(fields) < 5:
        return None
    ticks = [int(x) for x in fields[1:9] if x.isdigit()]
    return sum(ticks), ticks[3] + (ticks[4] if len(ticks) > 4 else 0)   # idle + iowait


def _quiet() -> None:
    """A worker: Ctrl-C is the parent's to answer (it ends the worker), the parent's wake-up
    socket is not the worker's, and the worker does not outlive the parent."""
    import signal
    _running[0] = MAX_PROCESSES
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:   # Linux: killed with the parent, should it end by force (os._exit) and not end the pool
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    try:
        signal.set_wakeup_fd(-1)
    except ValueError:
        pass


def _run_pending(i: int) -> tuple[bool, Any]:
    fn, args = _pending[i]
    try:
        return True, fn(*args)
    except BaseException:   # noqa: BLE001 -- the parent computes it again and reports it itself
        return False, None


def _pool(workers: int):
    """A pool of ``workers`` forked workers (ProcessPoolExecutor: a worker that dies breaks the pool
    and its futures say so, where multiprocessing.Pool would wait for ever)."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor
    return ProcessPoolExecutor(workers, mp_context=mp.get_context("fork"), initializer=_quiet)


def _end(pool, workers: int) -> None:
    """The pool's ``workers`` ended now (a worker still computing is not waited for)."""
    _running[0] -= workers
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    for proc in procs:
        proc.join(5)


class Beside:
    """``fn(*args)`` started in a forked worker (when ``enabled``); :meth:`result` waits for it, or
    computes it here when the worker could not give it. Use as a context manager: leaving the
    block ends the worker (Ctrl-C, an error in the main process)."""

    def __init__(self, fn: Callable[..., Any], *args: Any, enabled: bool = True):
        self.fn, self.args = fn, args
        self.pool = self.job = None
        if enabled:
            _pending[:] = [(fn, args)]
            try:
                self.pool = _pool(1)
                _running[0] += 1
                self.job = self.pool.submit(_run_pending, 0)   # the worker forks here
            except OSError:   # no fork here: computed in this process
                self.close()
            finally:
                _pending.clear()

    def result(self) -> Any:
        if self.job is not None:
            ok, value = self._outcome()
            if ok:
                return value
        return self.fn(*self.args)

    def _outcome(self) -> tuple[bool, Any]:
        """(True, the worker's value) or (False, None) when it could not give one; the worker ended."""
        try:
            ok, value = self.job.result()
        except Exception:   # noqa: BLE001 -- the result would not pickle, the worker died
            ok, value = False, None
        self.close()
        return ok, value

    def close(self) -> None:
        if self.pool is not None:
            _end(self.pool, 1)
        self.pool = self.job = None

    def __enter__(self) -> Beside:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class BothEnds(Beside):
    """Items ``0 .. count-1`` shared between this process and a forked worker (when ``enabled``),
    so both end about together whatever each item costs: the worker computes ``fn(i)`` for items
    it takes from the front while this process does its own work, then this process takes items
    from the back (:meth:`back`) until they meet. :meth:`results` waits for the worker's
    ``{i: fn(i)}`` (empty when it failed: what is missing is the caller's to compute). Use as a
    context manager: leaving the block ends the worker."""

    #: seconds to wait for the ends' lock (held for a few instructions: only a worker killed
    #: while holding it makes this process stop taking items, and compute the rest afterwards)
    LOCK_WAIT = 10.0

    def __init__(self, fn: Callable[[int], Any], count: int, *, enabled: bool = True):
        import multiprocessing as mp
        enabled = enabled and count > 0
        # [next from the front, end of the back], in memory the fork shares
        self.ends = mp.get_context("fork").Array("q", [0, count]) if enabled else None
        self.count = count
        super().__init__(_from_front, fn, self.ends, enabled=enabled)

    def back(self) -> Iterator[int]:
        """The items this process takes, from the back, until the worker's and these meet (none
        without a worker)."""
        while self.job is not None and (i := _take(self.ends, front=False, wait=self.LOCK_WAIT)) is not None:
            yield i

    def taken(self) -> int:
        """Items either end has taken so far (started, not all done): how far the pair is."""
        if self.ends is None:
            return 0
        first, end = self.ends[0], self.ends[1]
        return first + (self.count - end)

    def results(self) -> dict[int, Any]:
        """The worker's ``{i: fn(i)}`` ({} without a worker, or when it failed)."""
        if self.job is None:
            return {}
        ok, value = self._outcome()
        return value if ok else {}


def _take(ends, *, front: bool, wait: float | None = None) -> int | None:
    """The next item from one end of ``ends`` ([next from the front, end of the back]), or None
    once the ends meet (or the lock could not be had within ``wait`` seconds)."""
    lock = ends.get_lock()
    if not lock.acquire(timeout=wait):
        return None
    try:
        first, end = ends[0], ends[1]
        if first >= end:
            return None
        if front:
            ends[0] = first + 1
            return first
        ends[1] = end - 1
        return end - 1
    finally:
        lock.release()


def _from_front(fn: Callable[[int], Any], ends) -> dict[int, Any]:
    """A worker's share of :class:`BothEnds`: items from the front until the ends meet."""
    done = {}
    while (i := _take(ends, front=True)) is not None:
        done[i] = fn(i)
    return done


def ordered_map(fn: Callable[[Any], Any], items: Iterable[Any], workers: int,
                first: Sequence[int] | None = None) -> Iterator[Any]:
    """``fn(item)`` for each item, in order, computed ``workers`` at a time in forked workers when
    ``workers`` > 1; an item a worker could not compute is computed here (its error raised here).
    ``first``: the items' indexes in the order the workers start them (the heaviest first, so the
    last to start is a light one); the results still come in the items' order. The workers end
    when the iterator is closed or dropped."""
    items = list(items)
    start = list(range(len(items))) if first is None else list(first)
    if sorted(start) != list(range(len(items))):
        raise ValueError(f"first must order the items' indexes 0..{len(items) - 1}, not {start}")
    if workers <= 1 or len(items) <= 1:
        yield from map(fn, items)
        return
    _pending[:] = [(fn, (item,)) for item in items]
    try:
        workers = min(workers, len(items))
        pool = _pool(workers)
        started = {i: pool.submit(_run_pending, i) for i in start}   # the workers fork here
        jobs = [started[i] for i in range(len(items))]
        _running[0] += workers
    except OSError:
        _pending.clear()
        yield from map(fn, items)
        return
    _pending.clear()   # the workers hold their copy from the fork
    try:
        for item, job in zip(items, jobs):
            try:
                ok, value = job.result()
            except Exception:   # noqa: BLE001 -- a worker died: this one computed here
                ok, value = False, None
            yield value if ok else fn(item)
    finally:
        _end(pool, workers)
