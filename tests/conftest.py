import gc
import os

from hypothesis import settings

from ruleproof.solver import runtime

# pytest-xdist gives its workers COLUMNS=80, which the CLI's consoles (rich) then fix at import: a
# test that runs a command with COLUMNS=200 would get 80 columns there and 200 in one process. The
# suite runs its commands as a pipe does, reading COLUMNS when they print
os.environ.pop("COLUMNS", None)

# the suite runs with the console script's collector settings (solver/runtime.py): the same code
# paths as the command line, without full collections over the large graphs the tests keep
runtime.no_full_collections()

# CI draws the same examples every run (a red CI must be reproducible); `make soak` hunts for new
# counterexamples with fresh random draws and many more examples.
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=30, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def pytest_runtest_teardown(item, nextitem):
    """A full collection between test files: what one file's tests leave in cycles (a caught
    exception's frames) is freed before the next file, as the command line frees it at exit."""
    if nextitem is None or nextitem.path != item.path:
        gc.collect()
