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
    """Each registered game's folder ships its rulesets, its scenarios and their fingerprints."""
    from ruleproof.model.registry import GAMES
    root = files("ruleproof")
    for game, module in GAMES.items():
        folder = root.joinpath(*module.split(".")[1:])
        assert (folder / "scenarios.json").is_file() and (folder / "scenarios.states.xz").is_file(), game
        assert any(p.name.endswith(".toml") for p in (folder / "rulesets").iterdir()), game


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
    for examples in (ROOT / "model").glob("*/examples"):   # each game's examples ship with it
        assert ".".join(examples.relative_to(ROOT).parts) in taken, examples
