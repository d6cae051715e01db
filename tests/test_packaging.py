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


def test_pyproject_lists_every_package_folder():
    """A new module folder left out of pyproject's `packages` would be missing from the wheel."""
    text = (ROOT / "pyproject.toml").read_text()
    listed = set(re.findall(r'"(ruleproof(?:\.[\w-]+)*)"', text))
    for init in ROOT.glob("*/**/__init__.py"):
        rel = init.parent.relative_to(ROOT)
        if rel.parts[0] in ("model", "solver", "proofs"):
            assert "ruleproof." + ".".join(rel.parts) in listed, rel
