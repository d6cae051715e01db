"""CLI start-up stays light: listing games, help pages and a Bomb Busters deduction import none of
the heavy libraries (numpy, scipy, z3, networkx, matplotlib); those load where they are used. A
structural test, not a timing test (the machine may be shared)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("numpy", "scipy", "z3", "networkx", "matplotlib", "pydantic", "importlib.metadata")
COMMANDS = [["--help"], ["games"], ["games", "--json"], ["games", "loira"], ["solve", "--help"],
            ["verify", "--help"], ["deduce", "model/bomb_busters/examples/start-5p-2of3-reds.json", "--json"]]

PROBE = """
import contextlib, io, json, sys
from ruleproof import cli
for argv in json.loads(sys.argv[1]):
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            cli.main(argv)
        except SystemExit as exc:
            assert not exc.code, (argv, exc.code)
print(json.dumps(sorted(m for m in json.loads(sys.argv[2]) if m in sys.modules)))
"""


def test_light_commands_import_no_heavy_library():
    out = subprocess.run([sys.executable, "-c", PROBE, json.dumps(COMMANDS), json.dumps(HEAVY)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_lazy_game_classes_still_import():
    import ruleproof.model.loira as loira
    from ruleproof.model.loira.game import LoiraGame
    assert loira.LoiraGame is LoiraGame
    from ruleproof.model.pig import SPEC
    from ruleproof.model.pig.game import Pig
    assert isinstance(SPEC.build(SPEC.default()), Pig)


def test_a_kept_answer_read_back_imports_no_heavy_library(tmp_path):
    # the designer's loop reads a kept ranking back in a fraction of a second: the page's module,
    # which `rulings rank` imports, must not pull solver.verify (scipy through its termination check)
    command = [["rulings", "rank", "pig", "--cache", str(tmp_path)]]
    runs = [subprocess.run([sys.executable, "-c", PROBE, json.dumps(command), json.dumps(HEAVY)], cwd=ROOT,
                           capture_output=True, text=True, timeout=300) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    assert "numpy" in json.loads(runs[0].stdout.strip().splitlines()[-1])   # the first one computes it
    assert json.loads(runs[1].stdout.strip().splitlines()[-1]) == []
