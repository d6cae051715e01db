"""The compiled paths of the generic pipeline against the numpy ones they stand in for: the C pass
of ``solve`` (``solver/sccsolve.c``: Tarjan, each component solved as found) gives the policy of
the numpy solve by levels and its values within the tolerance, exact mode gives the same fractions
from either start, the residual it reports is one more Bellman backup's largest change, components
it hands back are solved by policy iteration; and the C hash index of the level-by-level explorer
builds the sorted index's graph. Both paths run on every registered game's small configuration."""
from __future__ import annotations

from fractions import Fraction
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ruleproof.model.protocol import CHANCE, TERMINAL, Game
from ruleproof.model.registry import GAMES, get_spec
from ruleproof.solver import cbuild, sccsolve
from ruleproof.solver import solve as solve_module
from ruleproof.solver.explore import explore
from ruleproof.solver.solve import SolveError, _arrays, _Level, solve

from tests.test_explore_batch import same_graph
from tests.tiny_games import GamblersRuin, TieGame

needs_c = pytest.mark.skipif(sccsolve.available() is not None, reason=f"no compiled pass: {sccsolve.available()}")


def small_configuration(name: str, rulings: dict[str, str] | None = None):
    spec = get_spec(name)
    return spec.build(spec.default().with_overrides(dict(spec.verify_overrides), rulings or {}, spec=spec.schema))


def bellman_residual(sol) -> float:
    """The largest change one more backup of every non-terminal state would make (numpy)."""
    ex = sol.exploration
    a = _arrays(ex)
    nodes = np.flatnonzero(a.kind != TERMINAL)
    values = np.vstack((sol.values, np.zeros((1, a.seats))))
    before = values.copy()
    a.pair_sum = None
    _Level(a, nodes, 0.0).sweep(values)
    return float(np.abs(values - before).max())


def assert_same_solution(ex, tolerance=1e-12):
    by_levels, compiled = solve(ex, native=False), solve(ex, native=True)
    assert np.array_equal(by_levels.choice, compiled.choice)
    assert np.abs(by_levels.values - compiled.values).max() <= tolerance
    assert compiled.cyclic_states == by_levels.cyclic_states
    assert compiled.residual <= 1e-12
    return by_levels, compiled


@needs_c
@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_games_small_configuration_solves_alike(name):
    ex = explore(small_configuration(name), check_invariants=False)
    _, compiled = assert_same_solution(ex)
    assert bellman_residual(compiled) <= 1e-12


@needs_c
@pytest.mark.parametrize("name, rulings", [("presentes", {"P03": "bounce"}), ("presentes", {"P23": "redraw"})])
def test_cyclic_rulings_solve_alike(name, rulings):
    # bounce: long cycles on the board; redraw: a chance state that only redraws itself, which the
    # C pass hands back (its policy cannot leave) to policy iteration
    ex = explore(small_configuration(name, rulings), check_invariants=False)
    _, compiled = assert_same_solution(ex)
    if "P23" in rulings:
        assert compiled.work["handed_back"] > 0 and "policy iteration" in compiled.method


@needs_c
@settings(max_examples=20, deadline=None)
@given(st.integers(1, 30), st.integers(2, 6))
def test_pig_variants_solve_alike_and_exactly_alike(goal, faces):
    from ruleproof.model.pig.game import Pig
    ex = explore(Pig(goal=goal, faces=faces))
    assert_same_solution(ex)
    if ex.num_states <= 3_000:
        exact = solve(ex, exact=True, native=True)
        assert exact.exact == solve(ex, exact=True, native=False).exact
        # the floats near the fractions (ten times nearer than the tolerance, 1e-12)
        assert np.abs(np.array(exact.exact, dtype=float) - solve(ex, native=True).values).max() <= 1e-13


@needs_c
def test_the_tie_rule_and_chance_chains_are_kept():
    assert_same_solution(explore(TieGame()))
    sol = solve(explore(GamblersRuin(3, 7, Fraction(2, 5))), exact=True, native=True)
    r = Fraction(3, 2)
    assert sol.initial_exact[0] == (r ** 3 - 1) / (r ** 7 - 1)


@needs_c
def test_components_handed_back_are_solved_by_policy_iteration(monkeypatch):
    from ruleproof.model.pig.game import Pig
    ex = explore(Pig(goal=12))
    monkeypatch.setattr(sccsolve, "MAX_SWEEPS", 1)   # no component settles in one sweep
    by_levels, compiled = assert_same_solution(ex)
    assert compiled.work["handed_back"] > 0 and compiled.work["sweeps"] > 0


def skunk(goal: int):
    spec = get_spec("skunk")
    return spec.build(spec.default().with_overrides({"goal": goal}, spec=spec.schema))


@needs_c
@pytest.mark.parametrize("game", ["pig 12", "skunk 12"])
def test_large_components_are_swept_over_several_calls(game, monkeypatch):
    # a component too large to sweep MAX_SWEEPS times in one call's budget is swept over several
    # calls (scc_sweep), not handed to policy iteration after a few sweeps: Skunk to 100 is one
    # component of 866,000 states that 127 sweeps settle (~9 s; policy iteration: six LU solves, ~45 s)
    from ruleproof.model.pig.game import Pig
    name, goal = game.split()
    ex = explore(Pig(goal=int(goal)) if name == "pig" else skunk(int(goal)))
    before = solve(ex, native=True)
    monkeypatch.setattr(sccsolve, "BUDGET", 50)    # every cyclic component is large
    seen = []
    compiled = solve(ex, native=True, progress=lambda *a: seen.append(a))
    assert compiled.work["handed_back"] == 0 and compiled.work["sweeps"] > 0
    assert np.array_equal(compiled.choice, before.choice)
    assert np.abs(compiled.values - before.values).max() <= 1e-12
    assert_same_solution(ex)
    assert bellman_residual(compiled) <= 1e-12
    assert [s[1] for s in seen] == sorted(s[1] for s in seen) and seen[-1][1] == ex.num_states


@needs_c
def test_a_large_component_mixing_too_slowly_goes_to_policy_iteration_early(monkeypatch):
    # Skunk to 12 is one component that settles in 53 sweeps: with 30 allowed, the trend of its
    # changes over the last ten sweeps shows after 20 that 30 will not do, so it is handed back then
    ex = explore(skunk(12))
    monkeypatch.setattr(sccsolve, "BUDGET", 50)
    monkeypatch.setattr(sccsolve, "MAX_SWEEPS", 30)
    by_levels, compiled = assert_same_solution(ex)
    assert compiled.work["handed_back"] == 1 and "policy iteration" in compiled.method
    assert 20 < compiled.work["sweeps"] < 30


@needs_c
def test_progress_is_reported_and_a_partial_graph_refused():
    from ruleproof.model.pig.game import Pig
    seen = []
    monkey_budget = sccsolve.BUDGET
    try:
        sccsolve.BUDGET = 100   # many slices: the search resumes where it stopped
        sol = solve(explore(Pig(goal=15)), native=True, progress=lambda *a: seen.append(a))
    finally:
        sccsolve.BUDGET = monkey_budget
    assert len(seen) > 10 and seen[-1][1] == seen[-1][2] == sol.exploration.num_states
    assert [s[1] for s in seen] == sorted(s[1] for s in seen)
    assert sol.initial == pytest.approx(solve(sol.exploration, native=False).initial, abs=1e-12)
    with pytest.raises(SolveError):
        solve(explore(Pig(goal=40), max_states=1_000), native=True)


class GraphGame(Game):
    """A game given as its graph: node -> (kind, moves), moves as (next node, probability or None);
    terminals pay ``pay[node]``. Seats may swap along an edge (two seats, permutation 1)."""

    name = "graph"
    min_utility, max_utility = Fraction(0), Fraction(1)

    def __init__(self, nodes: dict, pay: dict, seats: int):
        self.nodes, self.pay, self.num_players = nodes, pay, seats

    def __repr__(self) -> str:
        return f"GraphGame({self.nodes!r}, {self.pay!r}, {self.num_players})"

    def initial_state(self):
        return 0

    def current_player(self, s):
        return self.nodes[s][0] if s in self.nodes else TERMINAL

    def legal_actions(self, s):
        return tuple(range(len(self.nodes[s][1])))

    def chance_outcomes(self, s):
        return tuple((i, p) for i, (_, p) in enumerate(self.nodes[s][1]))

    def apply(self, s, a):
        return self.nodes[s][1][a][0]

    def returns(self, s):
        return self.pay[s]

    def key(self, s):
        return s

    def from_key(self, k):
        return k


@st.composite
def graph_games(draw, seats=st.integers(1, 2)):
    """Random games with cycles: decision and chance states over a few terminals; every chance
    state can end the game at once, so every policy leaves each cycle with positive probability
    unless decisions loop among themselves (the C pass hands such components back). Two seats are
    constant-sum (zero-sum), so the optimal values are unique."""
    seats = draw(seats)
    inner = draw(st.integers(1, 12))
    terminals = list(range(inner, inner + 3))
    pay = {}
    for t in terminals:
        first = Fraction(draw(st.integers(0, 4)), 4)
        pay[t] = (first, 1 - first) if seats == 2 else \
            (first,) + tuple(Fraction(draw(st.integers(0, 4)), 4) for _ in range(seats - 1))
    nodes = {}
    for v in range(inner):
        kind = draw(st.sampled_from([CHANCE] + list(range(seats))))
        targets = draw(st.lists(st.integers(0, inner + 2), min_size=1, max_size=4))
        if kind == CHANCE:
            targets.append(draw(st.sampled_from(terminals)))
            weights = [draw(st.integers(1, 4)) for _ in targets]
            total = sum(weights)
            nodes[v] = (kind, [(t, Fraction(w, total)) for t, w in zip(targets, weights)])
        else:
            nodes[v] = (kind, [(t, None) for t in targets])
    game = GraphGame(nodes, pay, seats)
    if seats == 2:
        game.constant_sum = Fraction(1)
    return game


def assert_clear_choices_agree(ex, reference, other):
    """The same choice wherever it is clear: two actions within 1e-9 of each other are tied up to
    the two solutions' rounding, which may then break the tie rule either way."""
    for node in np.flatnonzero(reference.choice != other.choice):
        mover = ex.kind[node]
        mine, theirs = (reference.edge_value(e)[mover] for e in (other.choice[node], reference.choice[node]))
        assert abs(mine - theirs) <= 1e-9


def exact_solution(ex, native):
    try:
        return solve(ex, native=native, exact=True)
    except SolveError:   # the float policy loops forever (decisions among themselves)
        return None


@needs_c
@settings(max_examples=150, deadline=None)
@given(graph_games())
def test_random_cyclic_games_get_the_exact_solution(game):
    # one or two (zero-sum) seats: the optimal values among policies that end the game are unique.
    # The reference is the exact solve (policy iteration in fractions from the float policy), from
    # the numpy path's policy, or from the C pass's where the former loops forever: the numpy path
    # starts seat 1's column at c - 0 (so a loop looks best to it at first) and may settle there
    ex = explore(game)
    try:
        compiled = solve(ex, native=True, max_sweeps=2_000)
    except SolveError:   # a component handed back that policy iteration cannot solve either
        with pytest.raises(SolveError):
            solve(ex, native=False, max_sweeps=2_000)
        return
    exact = exact_solution(ex, False) or exact_solution(ex, True)
    if exact is None:
        return
    assert np.abs(np.array(exact.exact, dtype=float) - compiled.values).max() <= 1e-9
    assert_clear_choices_agree(ex, exact, compiled)


@needs_c
@settings(max_examples=100, deadline=None)
@given(graph_games())
def test_random_cyclic_games_swept_over_several_calls_get_the_same_solution(game):
    # a budget of a few backups a call: every cyclic component is swept by scc_sweep, paused and
    # resumed between sweeps; the values and choices are the one-call pass's
    ex = explore(game)
    try:
        whole = solve(ex, native=True, max_sweeps=2_000)
    except SolveError:
        return
    with patch.object(sccsolve, "BUDGET", 3):
        sliced = solve(ex, native=True, max_sweeps=2_000)
    assert np.abs(sliced.values - whole.values).max() <= 1e-9
    assert_clear_choices_agree(ex, whole, sliced)


@needs_c
@settings(max_examples=100, deadline=None)
@given(graph_games(seats=st.just(3)))
def test_random_general_sum_games_get_a_solution_of_their_own_policy(game):
    # three seats, any payoffs: equilibria need not be unique, so the compiled answer is checked
    # against the exact values of the policy it chose, where that policy ends the game
    ex = explore(game)
    try:
        compiled = solve(ex, native=True, max_sweeps=2_000)
    except SolveError:
        return
    exact = exact_solution(ex, True)
    if exact is None:
        return
    assert np.abs(np.array(exact.exact, dtype=float) - compiled.values).max() <= 1e-9
    assert_clear_choices_agree(ex, exact, compiled)


# ---- the explorer's key index ----------------------------------------------------------------------

@needs_c
@settings(max_examples=15, deadline=None)
@given(st.integers(1, 40), st.integers(2, 7))
def test_hash_and_sorted_indexes_build_the_same_graph(goal, faces):
    from ruleproof.model.pig.game import Pig
    game = Pig(goal=goal, faces=faces)
    same_graph(explore(game, native=True), explore(game, native=False))


@needs_c
def test_the_hash_index_grows_and_keeps_numbers():
    from ruleproof.solver.explore_batch import HashIndex
    index = HashIndex(5)
    rng = np.random.default_rng(1)
    keys = rng.integers(-2 ** 62, 2 ** 62, 5_000)
    ids, fresh = index.number(np.concatenate(([5], keys, keys[::-1])), 1)
    distinct = list(dict.fromkeys(keys.tolist()))
    assert ids[0] == 0 and len(fresh) == len(distinct) and index.capacity >= 2 * (len(distinct) + 1)
    assert [int(keys[i - 1]) for i in fresh] == distinct
    lookup = dict(zip(distinct, range(1, len(distinct) + 1)))
    assert ids[1:].tolist() == [lookup[k] for k in keys.tolist() + keys[::-1].tolist()]


def test_without_a_compiler_both_paths_fall_back_to_numpy(tmp_path, monkeypatch):
    from ruleproof.model.pig.game import Pig
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))   # the cache would live inside a file
    cbuild.load.cache_clear()
    try:
        assert "cannot create the cache folder" in sccsolve.available()
        ex = explore(Pig(goal=10))
        sol = solve(ex)
        assert sol.method == "SCC policy iteration" and sol.work == {}
        with pytest.raises(SolveError, match="compiled solve is not available"):
            solve(ex, native=True)
        with pytest.raises(cbuild.Unavailable):
            explore(Pig(goal=10), native=True)
    finally:
        cbuild.load.cache_clear()


def test_the_library_is_built_into_a_private_folder_keyed_by_source(tmp_path, monkeypatch):
    import os
    import shutil
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    copy = tmp_path / "sccsolve.c"   # another source: a library this process has not loaded yet
    copy.write_bytes(sccsolve.SOURCE.read_bytes() + b"\n/* changed */\n")
    cbuild.load.cache_clear()
    try:
        cbuild.load(sccsolve.SOURCE)
        lib = cbuild.library_path(sccsolve.SOURCE)
        assert lib.parent == tmp_path / "xdg" / "ruleproof" and lib.exists()
        assert (lib.parent.stat().st_mode & 0o777) == 0o700 and lib.stat().st_mode & 0o077 == 0
        assert list(lib.parent.glob("*.tmp")) == []
        os.chmod(lib, 0o766)
        cbuild.load.cache_clear()
        with pytest.raises(cbuild.Unavailable, match="writable by others"):
            cbuild.load(sccsolve.SOURCE)
        planted = cbuild.library_path(copy)
        assert planted != lib
        planted.write_bytes(b"\x7fELF not really")
        os.chmod(planted, 0o700)
        with pytest.raises(cbuild.Unavailable, match="cannot load") as err:
            cbuild.load(copy)
        assert "\n" not in str(err.value)
    finally:
        cbuild.load.cache_clear()
