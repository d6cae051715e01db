"""ruleproof: a formal rules verifier and exhaustive solver for tabletop games.

The checkout's root is the ``ruleproof`` package: ``ruleproof.model`` (the games), ``ruleproof.solver``
(exploration, solving, analysis), ``ruleproof.proofs`` (Z3 proofs bound to the model) and
``ruleproof.cli``. Rulesets, scenarios, examples and the C sources ship as package data.
"""
import sys as _sys

#: Ctrl-C presses while a ruleproof command loads its libraries: noted here, as early as can be, and
#: answered once the command runs (``solver/runtime.py``), never a KeyboardInterrupt traceback
_early_interrupts: list[int] = []


def _loading_a_command() -> bool:
    """The console script (``ruleproof``), or ``python -m ruleproof.…`` while its packages load."""
    first = _sys.argv[0] if _sys.argv else ""
    return first == "-m" or first.replace("\\", "/").rsplit("/", 1)[-1] in ("ruleproof", "ruleproof.exe")


if _loading_a_command():
    import signal as _signal

    def _note(signum, frame):
        if _loading_a_command():
            _early_interrupts.append(signum)
        else:   # a `python -m` module that does not take Ctrl-C over: Python's own behaviour
            _signal.default_int_handler(signum, frame)
    try:
        _signal.signal(_signal.SIGINT, _note)
    except ValueError:   # not the main thread
        pass


def __getattr__(name: str):
    # the version is read on demand: importlib.metadata costs every command ~20-40 ms of start-up
    if name != "__version__":
        raise AttributeError(f"module 'ruleproof' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("ruleproof")
    except PackageNotFoundError:   # running from a checkout that was never installed
        return "0+unknown"
