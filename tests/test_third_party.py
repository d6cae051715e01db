"""A game from another package, registered through the ``ruleproof.games`` entry-point group:
built and installed outside the checkout (tests/data/takeaway), then found, verified, solved and
run through the conformance kit like a built-in game, with nothing in ruleproof naming it."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parent / "data" / "takeaway"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The package built from its pyproject.toml and installed into a folder of its own."""
    root = tmp_path_factory.mktemp("third-party")
    src = root / "src"
    shutil.copytree(SOURCE, src)
    target = root / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                           "--target", str(target), str(src)], capture_output=True, text=True, timeout=600)
    if done.returncode != 0 and "setuptools" in done.stderr:
        pytest.skip(f"cannot build the package here (its build needs setuptools from an index): "
                    f"{done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr
    assert (target / "takeaway_game" / "rulesets" / "takeaway.toml").is_file()
    return target


def _ruleproof(site: Path, *args: str, code: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]))
    script = code or "import sys; from ruleproof.cli import main; main(sys.argv[1:])"
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, env=env,
                          timeout=600, cwd=site)


def test_an_installed_game_is_listed_verified_and_solved(site):
    games = _ruleproof(site, "games", "--json")
    assert games.returncode == 0, games.stderr
    assert "takeaway" in {g["game"] for g in json.loads(games.stdout)["games"]}
    verified = _ruleproof(site, "verify", "takeaway", "--json")
    doc = json.loads(verified.stdout)
    assert verified.returncode == 0 and doc["status"] == "holds", verified.stdout[-2000:]
    proof = next(p for p in doc["properties"] if p["name"] == "takeaway-rules")
    assert proof["evidence"] == "proved" and proof["data"]["refinement"]["bound"]
    # the known result: the first player wins exactly when the pile is not a multiple of 3
    for pile, first_wins in ((6, "0"), (7, "1")):
        solved = _ruleproof(site, "solve", "takeaway", "--pile", str(pile), "--no-files", "--json")
        assert json.loads(solved.stdout)["values"][0]["fraction"] == first_wins, solved.stdout


def test_the_conformance_kit_runs_on_it(site):
    done = _ruleproof(site, code="from ruleproof.model.registry import get_spec; "
                                 "from ruleproof.testing import check_game; check_game(get_spec('takeaway')); "
                                 "print('ok')")
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
