"""ruleproof: a formal rules verifier and exhaustive solver for tabletop games.

The checkout's root is the ``ruleproof`` package: ``ruleproof.model`` (the games), ``ruleproof.solver``
(exploration, solving, analysis), ``ruleproof.proofs`` (Z3 proofs bound to the model) and
``ruleproof.cli``. Rulesets, scenarios, examples and the C sources ship as package data.
"""
import sys as _sys

if _sys.argv[:1] == ["-m"]:
    # `python -m ruleproof.…` (the out-of-core solver): a Ctrl-C while the packages load is noted and
    # answered once the command runs, not a KeyboardInterrupt traceback (solver/runtime.py)
    from ruleproof.solver.runtime import early_sigint as _early_sigint
    _early_sigint(lambda: _sys.argv[:1] == ["-m"])


def __getattr__(name: str):
    # the version is read on demand: importlib.metadata costs every command ~20-40 ms of start-up
    if name != "__version__":
        raise AttributeError(f"module 'ruleproof' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("ruleproof")
    except PackageNotFoundError:   # running from a checkout that was never installed
        return "0+unknown"
