"""How a command stops: the whole-command time limit, Ctrl-C and out-of-memory, as exceptions the
CLI's last-resort handler turns into one marked line and an exit code.

* ``--timeout T`` bounds the whole command: the libraries stop gracefully at their own limits (an
  exploration reports how far it got); a SIGALRM a little after T raises :class:`TimeLimit` in
  whatever phase is still running (solving, checks, writing files); and, for code that holds the
  interpreter in a long C call, a watchdog thread ends the process at ``1.1 T + 0.8 s``.
* Ctrl-C raises :class:`Interrupted`; a watchdog woken by the signal itself
  (``signal.set_wakeup_fd``) asks a running Z3 call to return at once (Z3's own Ctrl-C handler is
  off: it would swallow the signal and answer "unknown"), and should the main thread still be
  stuck in C code, ends the process 0.9 s later with exit 130.
* Both exceptions derive from BaseException, so no ``except Exception`` in a library swallows
  them; and where one is swallowed anyway (raised inside a ctypes argument conversion, a ``__del__``
  or a garbage-collector callback, which only print it), the flags behind :func:`stop_requested`
  still say the command was stopped: the CLI answers with the limit or ``interrupted``, and long
  loops call :func:`check_alarm`.

The watchdogs run only for the console script (``armed``), never inside a test runner.
"""
from __future__ import annotations

import faulthandler
import gc
import os
import signal
import socket
import sys
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

import ruleproof

#: exit codes (README: "Exit codes")
EXIT_LIMIT = 1          # a limit stopped the command: the partial result is marked
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)
EXIT_BROKEN_PIPE = 141  # the reader of stdout went away (128 + SIGPIPE), quietly

SOFT_GRACE = 0.6        # seconds after T (plus 3%) before SIGALRM: the graceful limits come first
HARD_FACTOR, HARD_GRACE = 1.1, 0.8
BACKSTOP_GRACE = 0.15   # the C backstop, after the hard stop (1.1 T + 0.95 s: within 1.1 T + 1 s)


class TimeLimit(BaseException):
    """The whole-command time limit was reached in a phase that does not stop by itself."""

    def __init__(self, seconds: float):
        super().__init__(f"time limit {seconds:g} s reached")
        self.seconds = seconds


class Interrupted(BaseException):
    """Ctrl-C (SIGINT)."""


_state = {"armed": False, "started": None, "interrupted": False, "alarm": None, "said": False}
_saying = threading.Lock()  # the main thread and the Ctrl-C watchdog may both come to say it
_done = threading.Event()   # set when the command has finished (the watchdogs stand down)


#: the oldest generation is collected after this many middle-generation collections (see
#: ``no_full_collections``): about ten billion allocations, so in practice never
FULL_COLLECTION_THRESHOLD = 1_000_000


def no_full_collections() -> None:
    """The cyclic garbage collector keeps its young generations as Python sets them and practically
    stops its full collections. A command holds millions of long-lived objects (an exploration's
    states, a proof's frames, a self-play's tables) and CPython 3.11 walks every one of them in a
    full collection each time the survivors grow by a quarter: 33 such walks took 28 of the 72 CPU
    seconds of ``verify`` on the Presentes board edit. Young cycles are still collected; what grows
    old here is kept to the end of the command anyway. The console script and the test suite call
    it; a library caller keeps its own settings."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_THRESHOLD)


def command_started() -> float:
    """The monotonic time the command began (the process start for the console script)."""
    return _state["started"] if _state["started"] is not None else time.monotonic()


def _on_sigint(signum, frame) -> None:
    _state["interrupted"] = True
    raise Interrupted()


def say_interrupted(write_line: Callable[[str], None] | None = None) -> None:
    """The line "interrupted" on stderr, once per armed command: the main thread may still be
    unwinding (freeing a large solve) when the watchdog's 0.9 s run out, and both would say it (seen
    in CI: "interrupted" twice)."""
    write = write_line or (lambda line: sys.stderr.write(line + "\n"))
    if not _state["armed"]:
        write("interrupted")
        return
    if not _saying.acquire(timeout=0.3):
        return   # the other thread is saying it
    try:
        if not _state["said"]:
            write("interrupted")
            try:
                sys.stderr.flush()
            except Exception:  # noqa: BLE001 - the line was handed over; nothing more to do
                pass
            _state["said"] = True
    finally:
        _saying.release()


def interrupted() -> bool:
    """Whether Ctrl-C has been pressed during the current command."""
    return _state["interrupted"]


def stop_requested() -> BaseException | None:
    """The stop (:class:`Interrupted` or :class:`TimeLimit`) that the current command received,
    even if a library swallowed the exception itself; None when it was not stopped."""
    if _state["interrupted"]:
        return Interrupted()
    if _state["alarm"] is not None:
        return TimeLimit(_state["alarm"])
    return None


def _interrupt_z3() -> None:
    """Make a running Z3 call return now (it checks the flag); the main thread then raises."""
    z3 = sys.modules.get("z3")
    if z3 is not None:
        try:
            z3.main_ctx().interrupt()
        except Exception:  # noqa: BLE001 - best effort: the watchdog's exit follows anyway
            pass


def _sigint_watchdog(sock: socket.socket, write_line: Callable[[str], None]) -> None:
    while True:
        try:
            data = sock.recv(64)
        except OSError:
            return
        if not data:
            return
        if signal.SIGINT in data or signal.SIGALRM in data:
            _interrupt_z3()
        if signal.SIGINT in data and not _done.wait(0.9):
            say_interrupted(write_line)
            os._exit(EXIT_INTERRUPTED)


def _quiet_unraisable(info) -> None:
    """``sys.unraisablehook``: a stop raised where Python can only print it (a ``__del__``, a gc
    callback) is not printed -- the flags carry it -- nor is any error once the command was stopped
    (the stop raised inside a ctypes argument conversion comes as an ``ArgumentError``: seen in CI
    from z3's ``__del__``); nothing else prints a traceback."""
    if isinstance(info.exc_value, (Interrupted, TimeLimit, KeyboardInterrupt)) or stop_requested() is not None:
        return
    try:
        sys.stderr.write(f"warning: ignored {type(info.exc_value).__name__}: {info.exc_value}\n")
    except Exception:  # noqa: BLE001
        pass


def _quiet_thread_errors(args) -> None:
    """``threading.excepthook``: the same for a worker thread."""
    if isinstance(args.exc_value, (Interrupted, TimeLimit, KeyboardInterrupt, SystemExit)) \
            or stop_requested() is not None:
        return
    try:
        sys.stderr.write(f"warning: a worker thread failed: {type(args.exc_value).__name__}: {args.exc_value}\n")
    except Exception:  # noqa: BLE001
        pass


#: Ctrl-C presses that arrived while the command was still loading (the package notes them first)
_early: list[int] = ruleproof._early_interrupts


def early_sigint() -> None:
    """For a command run as ``python -m`` while it loads its own libraries (the package notes Ctrl-C
    while its parents load): Ctrl-C is only noted until ``armed`` takes over, and the command then
    ends at once with "interrupted", so no KeyboardInterrupt escapes an import as a traceback."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, lambda signum, frame: _early.append(signum))


@contextmanager
def armed(started: float, write_line: Callable[[str], None]) -> Iterator[None]:
    """For the console script's whole run: Ctrl-C raises :class:`Interrupted` (and, should the main
    thread not answer, ends the process within a second); ``time_limit`` may end it by force."""
    _state.update(armed=True, started=started, interrupted=False, said=False)
    _done.clear()
    old_handler = signal.signal(signal.SIGINT, _on_sigint)
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    old_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    threading.Thread(target=_sigint_watchdog, args=(reader, write_line), daemon=True).start()
    old_hooks = sys.unraisablehook, threading.excepthook
    sys.unraisablehook, threading.excepthook = _quiet_unraisable, _quiet_thread_errors
    try:
        if _early:   # Ctrl-C while the command line loaded
            _state["interrupted"] = True
            raise Interrupted()
        yield
    finally:
        _done.set()
        signal.set_wakeup_fd(old_fd)
        signal.signal(signal.SIGINT, old_handler)
        sys.unraisablehook, threading.excepthook = old_hooks
        writer.close()
        _state.update(armed=False, started=None)


_DEVNULL: list = []


def _devnull():
    if not _DEVNULL:
        _DEVNULL.append(open(os.devnull, "w"))
    return _DEVNULL[0]


def _on_alarm(seconds: float):
    def handler(signum, frame) -> None:
        _state["alarm"] = seconds
        raise TimeLimit(seconds)
    return handler


def alarm_fired() -> float | None:
    """The limit whose alarm went off during the current ``time_limit`` block, else None. Library
    code (numpy's comparisons, for one) may catch the :class:`TimeLimit` the alarm raised inside it
    and raise another error in its place: the command was still stopped by the time limit."""
    return _state.get("alarm")


@contextmanager
def stops_surface() -> Iterator[None]:
    """Around a command body: an error raised where a library swallowed Ctrl-C or the time limit
    (numpy's comparisons, a ctypes argument conversion) becomes that stop again."""
    try:
        yield
    except Exception:
        stop = stop_requested()
        if stop is None:
            raise
        raise stop from None


def check_alarm() -> None:
    """Raise the stop again where Ctrl-C or the time limit's alarm arrived but its exception never
    did: one raised inside a garbage-collector callback or a ``__del__`` is only printed, and the
    command would otherwise run on to a complete answer. Long loops call this."""
    stop = stop_requested()
    if stop is not None:
        raise stop


@contextmanager
def time_limit(seconds: float | None, on_hard_stop: Callable[[], None] | None = None) -> Iterator[None]:
    """Bound a command body by ``seconds`` counted from the command's start (see module doc)."""
    _state["alarm"] = None   # an earlier command's alarm says nothing about this one
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    started = command_started()
    soft = max(0.001, started + seconds * 1.03 + SOFT_GRACE - time.monotonic())
    # the alarm may land in a __del__ (z3's, for one), where Python can only print it: not printed
    # (``check_alarm`` raises it again), also where the command runs without ``armed`` (in-process)
    old_unraisable, sys.unraisablehook = sys.unraisablehook, _quiet_unraisable
    old = signal.signal(signal.SIGALRM, _on_alarm(seconds))
    signal.setitimer(signal.ITIMER_REAL, soft)
    finished = threading.Event()
    backstop = False
    if _state["armed"] and on_hard_stop is not None:
        hard = started + seconds * HARD_FACTOR + HARD_GRACE

        def watchdog() -> None:
            if not finished.wait(max(0.0, hard - time.monotonic())):
                on_hard_stop()
                os._exit(EXIT_LIMIT)
        threading.Thread(target=watchdog, daemon=True).start()
        # should even that thread never get the interpreter lock (one long C call holding it), a
        # C thread ends the process with exit 1 a little later, silently (its dump goes nowhere)
        faulthandler.dump_traceback_later(max(0.1, hard + BACKSTOP_GRACE - time.monotonic()),
                                          exit=True, file=_devnull())
        backstop = True
    try:
        yield
    finally:
        finished.set()
        if backstop:
            faulthandler.cancel_dump_traceback_later()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        sys.unraisablehook = old_unraisable
        _state["alarm"] = None


def run_interruptible(fn: Callable[[], object], stop: Callable[[], None], poll: float = 0.05,
                      stack_bytes: int = 64 << 20) -> object:
    """Run ``fn`` (a long call into C that releases the interpreter lock) in a worker thread, so
    that Ctrl-C and the time limit reach the main thread at once; on either, ``stop()`` asks the C
    code to return (it checks a flag) and the exception goes on once the worker has stopped."""
    box: dict[str, object] = {}
    done = threading.Event()   # not Thread.join: a join cut short by Ctrl-C can report a live
                               # thread as stopped (Python < 3.13)

    def work() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread below
            box["error"] = exc
        finally:
            done.set()
    # deep recursion in C (the Loira solver): a roomy stack, 8 times the usual main thread's
    old_size = threading.stack_size()
    threading.stack_size(stack_bytes)
    try:
        threading.Thread(target=work, daemon=True).start()
    finally:
        threading.stack_size(old_size)
    try:
        while not done.wait(poll):
            pass
    except BaseException:
        stop()
        done.wait(5.0)
        raise
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box.get("value")


class StdoutFailed(BaseException):
    """Writing the command's output to stdout failed (its reader went away, or a full device)."""

    def __init__(self, error: OSError):
        super().__init__(error.strerror or str(error))
        self.error = error


class GuardedStdout:
    """sys.stdout for the console script: a failed write or flush raises :class:`StdoutFailed`,
    which no library handler catches, so the CLI can answer it (quietly for a broken pipe)."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise StdoutFailed(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise StdoutFailed(exc) from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)
