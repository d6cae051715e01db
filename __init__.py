"""ruleproof: a formal rules verifier and exhaustive solver for tabletop games.

The checkout's root is the ``ruleproof`` package: ``ruleproof.model`` (the games), ``ruleproof.solver``
(exploration, solving, analysis), ``ruleproof.proofs`` (Z3 proofs bound to the model) and
``ruleproof.cli``. Rulesets, scenarios, examples and the C sources ship as package data.
"""
def __getattr__(name: str):
    # the version is read on demand: importlib.metadata costs every command ~20-40 ms of start-up
    if name != "__version__":
        raise AttributeError(f"module 'ruleproof' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("ruleproof")
    except PackageNotFoundError:   # running from a checkout that was never installed
        return "0+unknown"
