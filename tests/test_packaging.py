"""The package installs under one namespace: no source imports a generic top-level name, and the
data the commands need ships inside the package."""
import re
from importlib.resources import files
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [p for d in ("model", "solver", "proofs", "tests", "bench") for p in (ROOT / d).rglob("*.py")]
SOURCES.append(ROOT / "cli.py")
# a bare `import model` / `from solver.x import y` works only from a checkout on sys.path: installed,
# it would fail (or, worse, load a second copy of a module)
BARE_IMPORT = re.compile(r"^\s*(from|import) (model|solver|proofs|cli)\b", re.M)


def test_no_source_imports_a_bare_top_level_package():
    bad = [f"{p.relative_to(ROOT)}:{s.count(chr(10), 0, m.start()) + 1}"
           for p in SOURCES for s in [p.read_text()] for m in BARE_IMPORT.finditer(s)]
    assert not bad, f"import through the ruleproof namespace: {bad}"


def test_the_package_data_is_found_through_importlib_resources():
    root = files("ruleproof")
    assert sorted(p.name for p in (root / "scenarios").iterdir() if p.name.endswith(".json")) == [
        "bomb-busters.json", "loira.json", "pig.json", "presentes.json"]
    assert (root / "model" / "loira" / "fast_solver.c").is_file()
    assert (root / "model" / "pig" / "rulesets" / "pig.toml").is_file()


def test_the_wheel_takes_every_package_and_data_folder():
    """setup.py finds the folders (adding a game touches only its own folder): each module folder
    and each game's rulesets are in what the wheel takes."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("ruleproof_setup", ROOT / "setup.py")
    found = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(found)   # setup() itself runs only as a script
    taken = set(found.FOUND)
    for init in ROOT.glob("*/**/__init__.py"):
        rel = init.parent.relative_to(ROOT)
        if rel.parts[0] in ("model", "solver", "proofs"):
            assert ".".join(rel.parts) in taken, rel
    for rulesets in (ROOT / "model").glob("*/rulesets"):
        assert ".".join(rulesets.relative_to(ROOT).parts) in taken, rulesets
    assert "scenarios" in taken and "examples.loira" in taken
