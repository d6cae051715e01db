"""Soak the Hypothesis properties with many more examples than CI runs (CI is derandomised, so it
is reproducible; new counterexamples are found here). Usage: python tests/soak.py MODULE [N].
Prints each property and any failure; exit 1 when one fails."""
import importlib
import inspect
import pathlib
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from hypothesis import HealthCheck, settings  # noqa: E402


class TempPaths:
    """Stands in for pytest's ``tmp_path_factory`` fixture."""

    def __init__(self) -> None:
        self.root = pathlib.Path(tempfile.mkdtemp(prefix="soak-"))

    def mktemp(self, name: str) -> pathlib.Path:
        return pathlib.Path(tempfile.mkdtemp(prefix=name, dir=self.root))


def main() -> int:
    mod = importlib.import_module(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    failed = 0
    for name, f in inspect.getmembers(mod, inspect.isfunction):
        if name.startswith("test") and hasattr(f, "hypothesis"):
            print("soak", name, flush=True)
            try:
                # a test's own @settings cannot be decorated twice; replace the stored object
                # (Hypothesis keeps it on this attribute) with a copy that asks for more examples
                own = getattr(f, "_hypothesis_internal_use_settings", settings.default)
                f._hypothesis_internal_use_settings = settings(
                    own, max_examples=n, deadline=None, derandomize=False, database=None,
                    suppress_health_check=list(HealthCheck))
                wants = inspect.signature(f).parameters
                f(**({"tmp_path_factory": TempPaths()} if "tmp_path_factory" in wants else {}))
            except Exception as e:  # report every property, not just the first failure
                failed += 1
                print("FAIL", name, repr(e)[:3000], flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
