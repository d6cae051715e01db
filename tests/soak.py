"""Soak the Hypothesis properties with many more examples than CI runs (CI is derandomised, so it
is reproducible; new counterexamples are found here). Usage: python tests/soak.py MODULE [N].
Prints each property and any failure; exit 1 when one fails."""
import importlib
import inspect
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from hypothesis import HealthCheck, settings  # noqa: E402


def main() -> int:
    mod = importlib.import_module(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    failed = 0
    for name, f in inspect.getmembers(mod, inspect.isfunction):
        if name.startswith("test") and hasattr(f, "hypothesis"):
            print("soak", name, flush=True)
            try:
                settings(max_examples=n, deadline=None, derandomize=False,
                         suppress_health_check=list(HealthCheck))(f)()
            except Exception as e:  # report every property, not just the first failure
                failed += 1
                print("FAIL", name, repr(e)[:3000], flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
