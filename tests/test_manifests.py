"""Each game is one unit: its folder's manifest names what every consumer runs and what it
expects, and nothing outside the games' own folders lists the games by name."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ruleproof.model.registry import GAMES, get_spec
from ruleproof.solver.analysis import solve_ruleset
from ruleproof.solver.explore import explore

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = {"verify", "openspiel", "fuzz", "bench", "known"}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_manifest_names_known_consumers_and_their_configurations_build(game):
    spec = get_spec(game)
    manifest = spec.manifest
    assert manifest, f"{game}: no manifest.toml in {spec.folder}"
    assert set(manifest) <= SECTIONS, set(manifest) - SECTIONS
    for consumer in ("openspiel", "fuzz"):
        spec.build(spec.consumer_ruleset(consumer))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_default_small_configuration_has_the_manifests_state_count(game):
    spec = get_spec(game)
    expected = spec.manifest["verify"]["states"]
    # bounded: a wrong configuration (once the full game) fails here instead of filling memory
    ex = explore(spec.build(spec.consumer_ruleset("verify")), check_invariants=False, max_states=expected + 1)
    assert ex.complete and ex.num_states == expected


def _known():
    for game in sorted(GAMES):
        for i, k in enumerate(get_spec(game).manifest.get("known", [])):
            yield pytest.param(game, k, id=f"{game}-{i}", marks=[pytest.mark.slow] if k.get("slow") else [])


@pytest.mark.parametrize("game,known", list(_known()))
def test_known_values_from_the_literature(game, known):
    spec = get_spec(game)
    rs = spec.default().with_overrides(known.get("params", {}), spec=spec.schema)
    solved = solve_ruleset(rs, exact=False)
    assert solved.values[known["seat"]]["float"] == pytest.approx(known["value"], abs=known["tolerance"]), \
        known["source"]


#: where a list of games may stand: the games' own folders and proof files, the docs, generated output
ALLOWED = ("model/", "proofs/", "docs/", "out/", "README.md", ".venv/", ".git/", "build/")


#: a copy of the registry: every registered game named within this many consecutive lines (tests
#: that take two or three games as examples are not a list to update when a game is added)
LIST_LINES = 8


def test_no_list_of_game_names_outside_the_games_own_folders():
    """Nothing outside the games' folders enumerates the games: tests, benches, the fuzzer and
    packaging read the registry and the manifests."""
    names = sorted(GAMES)
    pattern = re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in names) + r")(?![\w])")
    offenders = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT).as_posix()
        if not path.is_file() or rel.startswith(ALLOWED) or rel.startswith(".") or "/." in rel \
                or path.suffix not in (".py", ".json", ".toml", "") or "egg-info" in rel \
                or path.stat().st_size > 2_000_000:
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        found = [{m.group(1) for m in pattern.finditer(line)} for line in lines]
        for n in range(len(lines)):
            window = set().union(*found[n:n + LIST_LINES])
            if len(window) == len(names) and found[n]:
                offenders.append(f"{rel}:{n + 1}: {sorted(window)}")
                break
    assert not offenders, "lists of game names outside the games' folders:\n" + "\n".join(offenders)
