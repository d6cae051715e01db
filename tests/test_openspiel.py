"""The OpenSpiel adapter (optional extra ``ruleproof[openspiel]``): every game passes OpenSpiel's own
random-simulation conformance test, OpenSpiel's value iteration agrees with our solver, and an
OpenSpiel algorithm for hidden information runs on a tiny Bomb Busters mission. Skipped without
open-spiel."""
from __future__ import annotations

from pathlib import Path

import pytest

from ruleproof.model.registry import GAMES, get_spec, load_ruleset
from ruleproof.solver.explore import explore
from ruleproof.solver.solve import solve

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install -e '.[openspiel]')")
osa = pytest.importorskip("ruleproof.solver.openspiel_adapter")

#: one small configuration per game (its default small configuration, as `verify` explores)
def test_every_game_is_registered_under_its_name():
    names = osa.register()
    assert names == [osa.short_name(g) for g in GAMES]
    registered = set(pyspiel.registered_names())
    assert set(names) <= registered


@pytest.mark.parametrize("game", list(GAMES))
def test_openspiel_random_simulation_conformance(game):
    """Each game plays the configuration its manifest names for OpenSpiel ([openspiel])."""
    entry = get_spec(game).manifest.get("openspiel", {})
    g = osa.load(game, entry.get("ruleset"), entry.get("params", {}))
    assert g.get_type().short_name == osa.short_name(game)
    pyspiel.random_sim_test(g, num_sims=10, serialize=False, verbose=False)


def test_load_game_by_name_with_string_parameters():
    osa.register()
    g = pyspiel.load_game("ruleproof_pig", {"ruleset": "pig", "params": '{"goal": 4, "faces": 3}'})
    assert g.num_distinct_actions() == 2 and g.max_chance_outcomes() == 3
    assert g.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    with pytest.raises(Exception, match="goal"):
        pyspiel.load_game("ruleproof_pig", {"params": '{"goal": 0}'})


def _ours(game: str, ruleset, params):
    rs = load_ruleset(ruleset or game)
    spec = get_spec(rs.game)
    if params:
        rs = rs.with_overrides(params, spec=spec.schema)
    ex = explore(spec.build(rs))
    return ex, solve(ex, exact=True)


@pytest.mark.parametrize("game,ruleset,params", [
    ("pig", None, {"goal": 6}),
    ("pig", None, {"goal": 8, "faces": 4}),
    # Loira: about 20 s (tiny) and 100 s (verify's configuration) of CPU in OpenSpiel's Python
    pytest.param("loira", str(Path(__file__).resolve().parents[1] / "model" / "loira" / "examples" / "tiny.toml"),
                 {}, marks=pytest.mark.slow),
    pytest.param("loira", None, get_spec("loira").manifest["openspiel"]["params"], marks=pytest.mark.slow),
])
def test_openspiel_value_iteration_agrees_with_our_solver(game, ruleset, params):
    g = osa.load(game, ruleset, params)
    values = osa.value_iteration(g, threshold=1e-13)
    root = g.new_initial_state()
    _, sol = _ours(game, ruleset, params)
    shift = float(g.space.shift)   # two constant-sum seats are shifted to zero-sum
    assert values[str(root)] == pytest.approx(float(sol.exact[0][0]) - shift, abs=1e-9)


class _Deterministic:
    """A ruleproof policy (state -> action) as an OpenSpiel policy."""

    def __init__(self, game, fn):
        from open_spiel.python import policy as ospolicy

        class Wrapped(ospolicy.Policy):
            def action_probabilities(self, state, player_id=None):
                return {state.space.action_index[fn(state.rp_state)]: 1.0}
        self.policy = Wrapped(game, list(range(game.num_players())))


def test_openspiel_evaluates_a_bomb_busters_policy_as_we_do():
    """OpenSpiel walks its own game tree (every deal and history) to value the 'likely' policy;
    we sum exactly over the explored states: the two agree."""
    from open_spiel.python.algorithms import expected_game_score

    from ruleproof.model.bomb_busters.policy import exact_win_probability, likely
    g = osa.load("bomb-busters", "bomb-busters-tiny")
    rp = g.space.game
    ours, _ = exact_win_probability(rp, likely(rp))
    w = _Deterministic(g, likely(rp)).policy
    theirs = expected_game_score.policy_value(g.new_initial_state(), [w] * g.num_players())
    assert list(theirs) == pytest.approx([float(ours)] * g.num_players(), abs=1e-12)


@pytest.mark.slow
def test_mccfr_on_a_tiny_bomb_busters_mission():
    """Outcome-sampling MCCFR (OpenSpiel's C++ solver; it plays from information states only) on
    the tiny mission: its average policy can never beat our perfect-information optimum (which
    sees every wire), and after 1,000 iterations it wins at least as often as uniform play."""
    from open_spiel.python import policy as ospolicy
    from open_spiel.python.algorithms import expected_game_score
    g = osa.load("bomb-busters", "bomb-busters-tiny")
    mccfr = pyspiel.OutcomeSamplingMCCFRSolver(g, seed=1)
    for _ in range(1000):
        mccfr.run_iteration()
    average = mccfr.average_policy()

    class Average(ospolicy.Policy):
        def action_probabilities(self, state, player_id=None):
            return dict(average.get_state_policy(state, state.current_player()))
    players = list(range(g.num_players()))
    value = expected_game_score.policy_value(g.new_initial_state(), [Average(g, players)] * len(players))[0]
    uniform = expected_game_score.policy_value(
        g.new_initial_state(), [ospolicy.UniformRandomPolicy(g)] * len(players))[0]
    _, sol = _ours("bomb-busters", "bomb-busters-tiny", {})
    assert uniform < value <= float(sol.exact[0][0]) + 1e-12
