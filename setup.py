"""The package list, found rather than listed: the checkout's root is the ``ruleproof`` package
(``package-dir`` in pyproject.toml), and every folder under model/ (each game's rules, examples and data), solver/ and proofs/
ships beneath it, so adding a game touches only its own folder. Everything else
is in pyproject.toml."""
from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py

FOUND = find_namespace_packages(include=["model", "model.*", "solver", "solver.*", "proofs", "proofs.*"],
                                exclude=["*.__pycache__", "*.__pycache__.*"])


class BuildPy(build_py):
    """The root's modules are the package's (``__init__``, ``cli``), except this file."""

    def find_package_modules(self, package, package_dir):
        return [m for m in super().find_package_modules(package, package_dir)
                if not (package == "ruleproof" and m[1] == "setup")]


if __name__ == "__main__":
    setup(packages=["ruleproof"] + [f"ruleproof.{name}" for name in FOUND], cmdclass={"build_py": BuildPy})
