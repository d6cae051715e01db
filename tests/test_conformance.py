"""One conformance test run over every registered game (OpenSpiel-style): the protocol's promises
hold along seeded random playouts of each game's default small configuration."""
from __future__ import annotations

import pytest

from ruleproof.model.registry import GAMES, get_spec
from ruleproof.testing import ConformanceError, check_game, check_protocol


def small_game(name: str):
    spec = get_spec(name)
    ruleset = spec.default().with_overrides(spec.verify_overrides, spec=spec.schema)
    return spec.build(ruleset)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_conformance_kit_passes(name):
    """The shipped kit (``ruleproof.testing``): spec, protocol along seeded plays, batch expansion,
    solve's JSON (verify itself runs in the verify tests and ``make verify``)."""
    check_game(get_spec(name), run_verify=False)


def test_the_kit_names_a_fast_path_that_drifts():
    from ruleproof.model.pig.game import HOLD, Pig

    class Drifting(Pig):   # the fast copy of the hold rule banks one point less than ``hold``
        def successors(self, s):
            out = []
            for a, p, t in super().successors(s):
                if a == HOLD and s[self._turn] > 0:
                    t = tuple(v - 1 if i == s[self._mover] else v for i, v in enumerate(t))
                out.append((a, p, t))
            return out
    with pytest.raises(ConformanceError, match="successors differs from legal moves applied one by one at move 2"):
        check_protocol(Drifting(goal=10))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_spec_is_complete(name):
    spec = get_spec(name)
    assert spec.default_ruleset in spec.builtin_rulesets()
    defaults = spec.default()
    assert defaults.game == name
    ids = [r.id for r in spec.schema.rulings]
    assert len(ids) == len(set(ids)), "ruling ids are unique"
    for ruling in spec.schema.rulings:
        assert ruling.options and ruling.cites, f"{ruling.id} names its options and its source"
        assert defaults.rulings[ruling.id] == ruling.default
