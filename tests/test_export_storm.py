"""Storm (stormpy, the optional extra ``ruleproof[storm]``) as an independent checker of our values.

Each configuration is explored and solved by ruleproof, exported by ``solver.export`` in every
format, loaded by Storm and model checked in Storm's exact mode (rational numbers): on the chain our
optimal policy induces, Storm's P(seat 0 wins), expected returns and expected number of turns must
equal our exact values; with the other seats fixed to that policy, Storm's maximum over seat 0's
strategies must equal our optimal value (no better response exists). Skipped without stormpy.
"""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from ruleproof.model.registry import get_spec, load_ruleset
from ruleproof.solver.explore import explore
from ruleproof.solver.export import (FORMATS, build_model, expected_turns, optimal_chooser, renumber,
                           write_model)
from ruleproof.solver.solve import solve

stormpy = pytest.importorskip("stormpy", reason="stormpy is not installed (pip install -e '.[storm]')")
import stormpy.models  # noqa: E402  (ModelType)

LOIRA_VERIFY = dict(get_spec("loira").verify_overrides)
TINY = Path(__file__).resolve().parents[1] / "model" / "loira" / "examples" / "tiny.toml"

#: (id, ruleset, overrides); our exact values are asserted in the tests below only against Storm
CONFIGS = [
    ("pig-goal5", "pig", {"goal": 5}),
    ("pig-goal8-d4", "pig", {"goal": 8, "faces": 4}),
    ("pig-goal10", "pig", {"goal": 10}),
    ("pig-3p-goal4", "pig", {"goal": 4, "players": 3}),
    ("loira-verify", "loira", LOIRA_VERIFY),
    ("loira-tiny", str(TINY), {}),
    ("presentes-tiny-2p", "presentes", {"board": "tiny", "players": 2, "dice": 1}),
    ("presentes-mini-2p", "presentes", {"board": "mini", "players": 2, "dice": 1}),
    pytest.param(("presentes-tiny-3p", "presentes", {"board": "tiny", "players": 3, "dice": 1}),
                 marks=pytest.mark.slow),   # about a minute in Storm, three formats
]


def _solved(target: str, overrides: dict):
    rs = load_ruleset(target)
    spec = get_spec(rs.game)
    if overrides:
        rs = rs.with_overrides(overrides, spec=spec.schema)
    ex = explore(spec.build(rs))
    return ex, solve(ex, exact=True)


def _id(config) -> str:
    return config.values[0][0] if hasattr(config, "values") else config[0]


@pytest.fixture(scope="module", params=CONFIGS, ids=[_id(c) for c in CONFIGS])
def solved(request):
    _, target, overrides = request.param
    return _solved(target, overrides)


def storm_model(model, fmt: str, tmp_path: Path):
    """Write ``model`` in ``fmt``, let Storm parse and build it with rational numbers."""
    path = tmp_path / f"model.{fmt}"
    with path.open("w") as fh:
        write_model(model, fmt, fh, "test")
    if fmt == "drn":
        return stormpy.build_model_from_drn[stormpy.Rational](str(path)), None
    if fmt == "prism":
        program = stormpy.parse_prism_program(str(path))
        return stormpy.build_model[stormpy.Rational](program), program
    jani, _ = stormpy.parse_jani_model(str(path))
    return stormpy.build_model[stormpy.Rational](jani), jani


def storm_exact(sm, context, query: str) -> Fraction:
    prop = stormpy.parse_properties(query, context)[0]
    result = stormpy.model_checking(sm, prop, only_initial_states=True,
                                    environment=stormpy.environments.exact())
    return Fraction(str(result.get_value(sm.initial_states[0])))


def our_initial(ex, sol) -> tuple[Fraction, ...]:
    """Our exact value per real seat at the start (the root may be a seat-rotated representative)."""
    game = ex.game
    if ex.perm is None:
        return sol.exact[0]
    sigma = game.seat_permutations[game.canonicalize(game.initial_state())[1]]
    return tuple(sol.exact[0][sigma[r]] for r in range(game.num_players))


@pytest.mark.parametrize("fmt", FORMATS)
def test_storm_agrees_on_the_optimal_policy_chain(solved, fmt, tmp_path):
    ex, sol = solved
    game = ex.game
    ours = our_initial(ex, sol)
    chain = renumber(build_model(ex, optimal_chooser(sol)))
    sm, ctx = storm_model(chain, fmt, tmp_path)
    assert sm.model_type == stormpy.models.ModelType.DTMC and sm.nr_states == chain.num_states
    low = game.min_utility
    for seat in range(game.num_players):
        # expected return, shifted by the minimal utility so that Storm's rewards are non-negative
        assert storm_exact(sm, ctx, f'R{{"ret{seat}"}}=? [F "done"]') + low == ours[seat]
    if set(ex.returns[v][s] for v in ex.returns for s in range(game.num_players)) <= {0, 1}:
        # win/lose games: the value is the probability of winning
        assert storm_exact(sm, ctx, 'P=? [F "win0"]') == ours[0]
    assert storm_exact(sm, ctx, 'R{"turns"}=? [F "done"]') == expected_turns(ex, optimal_chooser(sol))


def test_no_better_response_than_our_policy(solved, tmp_path):
    ex, sol = solved
    ours = our_initial(ex, sol)
    for seat in range(ex.game.num_players):
        mdp = renumber(build_model(ex, optimal_chooser(sol), free_seats=[seat]))
        sm, ctx = storm_model(mdp, "drn", tmp_path)
        assert sm.model_type == stormpy.models.ModelType.MDP
        best = storm_exact(sm, ctx, f'R{{"ret{seat}"}}max=? [C]') + ex.game.min_utility
        assert best == ours[seat]


def test_the_full_mdp_bounds_every_seat(solved, tmp_path):
    """Every seat's decisions free: the best a coalition can do for seat 0 is at least our value,
    the worst at most (a sanity check that the MDP holds every move of every seat)."""
    ex, sol = solved
    mdp = renumber(build_model(ex))
    sm, ctx = storm_model(mdp, "drn", tmp_path)
    low = ex.game.min_utility
    hi = storm_exact(sm, ctx, 'R{"ret0"}max=? [C]') + low
    lo = storm_exact(sm, ctx, 'R{"ret0"}min=? [C]') + low
    assert lo <= our_initial(ex, sol)[0] <= hi
    assert lo < hi   # seat 0 can lose something by its choices in each of these games


def test_the_stochastic_game_loads_as_an_smg(tmp_path):
    """PRISM-games syntax: Storm parses and builds it as a stochastic game with every state. (The
    stormpy 2.0 Python API returns no result for game formulas, so the game is not solved here.)"""
    ex, _ = _solved("pig", {"goal": 6})
    smg = renumber(build_model(ex, smg=True))
    path = tmp_path / "game.prism"
    with path.open("w") as fh:
        write_model(smg, "prism", fh)
    sm = stormpy.build_model(stormpy.parse_prism_program(str(path)))
    assert sm.model_type == stormpy.models.ModelType.SMG and sm.nr_states == smg.num_states


def test_pig_symmetry_unfolding_keeps_real_seats(tmp_path):
    """Two-player Pig to 5 with a d6 is explored with the seat-swap symmetry (one representative per
    pair of mirrored states); the unfolded chain puts each real seat's win on its own label, so
    Storm finds P(win0) + P(win1) = 1 and P(win0) = our seat 0 value."""
    ex, sol = _solved("pig", {"goal": 5})
    assert ex.perm is not None
    chain = renumber(build_model(ex, optimal_chooser(sol)))
    assert chain.num_states > len({chain.node[i] for i in range(chain.num_states)})  # unfolded
    sm, ctx = storm_model(chain, "prism", tmp_path)
    p0 = storm_exact(sm, ctx, 'P=? [F "win0"]')
    p1 = storm_exact(sm, ctx, 'P=? [F "win1"]')
    assert p0 + p1 == 1 and p0 == sol.exact[0][0]
