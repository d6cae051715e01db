"""ruleproof: a formal rules verifier and exhaustive solver for tabletop games.

The checkout's root is the ``ruleproof`` package: ``ruleproof.model`` (the games), ``ruleproof.solver``
(exploration, solving, analysis), ``ruleproof.proofs`` (Z3 proofs bound to the model) and
``ruleproof.cli``. Rulesets, scenarios, examples and the C sources ship as package data.
"""
from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("ruleproof")
except PackageNotFoundError:   # running from a checkout that was never installed
    __version__ = "0+unknown"
