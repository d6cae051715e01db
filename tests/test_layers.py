"""The house's one-way layers (issue #23), counting imports inside functions: core -> logic ->
engine -> app (the contract in pyproject.toml, checked by import-linter), no import cycle anywhere,
and nothing imports a game but the registry (which loads it by name)."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

grimp = pytest.importorskip("grimp", reason="import-linter is not installed (pip install -e '.[test]')")
nx = pytest.importorskip("networkx")

from ruleproof.model.registry import GAMES  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: the logic layer's modules (the rest of proofs/ are the games' proof files and kits)
LOGIC = {"harness", "logic", "refinement", "frames", "information"}
#: cycles being taken apart by work in progress (each names its module set); emptied by issue #23
#: and to stay empty
PENDING: list[set[str]] = []


def _graph():
    return grimp.build_graph("ruleproof", include_external_packages=False, exclude_type_checking_imports=True)


def _game_modules(graph) -> set[str]:
    """The games' own modules: each game's folder, the kits, and every proof file beyond the logic
    layer (``proofs/<game>.py``)."""
    folders = {module for module in GAMES.values()} | {"ruleproof.model.kits"}
    out = set()
    for m in graph.modules:
        if any(m == f or m.startswith(f + ".") for f in folders):
            out.add(m)
        elif m.startswith("ruleproof.proofs.") and m.split(".")[2] not in LOGIC:
            out.add(m)
    return out


def test_the_layers_contract_holds():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert exe, "lint-imports (import-linter) is not installed"
    done = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]


def test_no_import_cycle():
    graph = _graph()
    g = nx.DiGraph()
    for m in graph.modules:
        for imported in graph.find_modules_directly_imported_by(m):
            g.add_edge(m, imported)
    cycles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1 and not
              any(c <= pending for pending in PENDING)]
    assert not cycles, f"import cycles (imports inside functions count): {cycles}"


def test_nothing_imports_a_game_but_the_registry():
    graph = _graph()
    games = _game_modules(graph)
    bad = [(m, sorted(graph.find_modules_directly_imported_by(m) & games))
           for m in sorted(graph.modules - games)]
    bad = [(m, targets) for m, targets in bad if targets]
    assert not bad, f"modules outside the games that import one: {bad}"
