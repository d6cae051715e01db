"""Every ruleproof game as an OpenSpiel Python game (the optional extra ``ruleproof[openspiel]``).

``register()`` registers one OpenSpiel game per ruleproof game, named ``ruleproof_<game>`` (dashes
become underscores: ``ruleproof_bomb_busters``), so that

    pyspiel.load_game("ruleproof_pig", {"ruleset": "pig", "params": '{"goal": 10}'})

plays Pig to 10 under OpenSpiel. Game parameters: ``ruleset`` (a built-in ruleset or a TOML path),
``params`` and ``rulings`` (JSON objects of overrides, as ``--name value`` and ``--ruling`` give).

What maps to what (see docs/ecosystem.md):

* protocol seat / ``CHANCE`` / ``TERMINAL`` -> ``current_player`` / ``PlayerId.CHANCE`` / ``TERMINAL``;
* actions and chance outcomes (any small hashable values) -> ints: OpenSpiel wants a fixed action
  space, so the configuration is explored once (``solver.explore``) and every action met gets an
  index in sorted order (chance outcomes get their own indices). The adapter is therefore for
  configurations small enough to explore, which is what it is meant for: running OpenSpiel's
  algorithms next to ours;
* utilities: two seats with a constant sum ``c`` are shifted by ``-c/2`` to be ``ZERO_SUM`` (Pig's
  1/0 becomes +1/2 and -1/2: OpenSpiel's minimax value iteration accepts only zero-sum games);
  otherwise ``CONSTANT_SUM`` or ``GENERAL_SUM`` with the game's own returns;
* a game whose ``observation`` is overridden (hidden information) is ``IMPERFECT_INFORMATION``; its
  information state for a seat is the sequence of that seat's observations and own actions (perfect
  recall); perfect-information games show the whole state;
* ``max_game_length``: the game's bound when it declares one, else the longest path of the explored
  graph when it is acyclic, else (cyclic games such as Pig) ``CYCLIC_HORIZON``, a nominal bound:
  such games have no finite maximum length.
"""
from __future__ import annotations

import json
from fractions import Fraction

import pyspiel

from ruleproof.model.protocol import CHANCE, TERMINAL, Game
from ruleproof.model.registry import GAMES, get_spec, load_ruleset

from .explore import explore

CYCLIC_HORIZON = 10_000
#: configurations larger than this are refused: the action space comes from exploring them
MAX_STATES = 2_000_000


def short_name(game: str) -> str:
    return "ruleproof_" + game.replace("-", "_")


def _sorted(values) -> list:
    try:
        return sorted(values)
    except TypeError:   # mixed kinds of actions: any fixed order will do
        return sorted(values, key=repr)


class _Space:
    """The explored configuration: the protocol game, action and outcome indices, length bound."""

    def __deepcopy__(self, memo):
        # OpenSpiel clones a Python state with deepcopy: the space (the game, its memo tables and
        # the action indices) is shared by every position, never copied with one
        return self

    def __init__(self, game: Game):
        ex = explore(game, max_states=MAX_STATES, check_invariants=False)
        if not ex.complete:
            raise ValueError(f"{game.name}: the configuration is too large for the OpenSpiel adapter "
                             f"({ex.stop_reason})")
        decisions, outcomes = set(), set()
        for node in range(ex.num_states):
            target = outcomes if ex.kind[node] == CHANCE else decisions
            target.update(ex.action[e] for e in ex.edges(node))
        self.game = game
        self.actions = _sorted(decisions)
        self.outcomes = _sorted(outcomes)
        self.action_index = {a: i for i, a in enumerate(self.actions)}
        self.outcome_index = {o: i for i, o in enumerate(self.outcomes)}
        self.max_length = game.max_game_length or _longest_path(ex) or CYCLIC_HORIZON
        self.hidden = type(game).observation is not Game.observation
        n, const = game.num_players, game.constant_sum
        self.shift = const / 2 if n == 2 and const is not None else Fraction(0)


def _longest_path(ex) -> int | None:
    """Moves on the longest path of an acyclic graph (None when the graph has a cycle)."""
    import networkx as nx
    g = nx.DiGraph()
    g.add_edges_from((v, int(ex.child[e])) for v in range(ex.num_states) for e in ex.edges(v))
    return nx.dag_longest_path_length(g) if nx.is_directed_acyclic_graph(g) else None


def _game_type(game_name: str, spec, space: _Space | None = None) -> pyspiel.GameType:
    Info, Util = pyspiel.GameType.Information, pyspiel.GameType.Utility
    utility, information = Util.GENERAL_SUM, Info.PERFECT_INFORMATION
    min_p, max_p = 1, 10
    if space is not None:
        g = space.game
        if g.constant_sum is not None:
            utility = Util.ZERO_SUM if g.num_players == 2 else Util.CONSTANT_SUM
        if space.hidden:
            information = Info.IMPERFECT_INFORMATION
        min_p = max_p = g.num_players
    return pyspiel.GameType(
        short_name=short_name(game_name), long_name=f"ruleproof {spec.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=information, utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_p, min_num_players=min_p,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=False,
        parameter_specification={"ruleset": spec.default_ruleset, "params": "{}", "rulings": "{}"})


def _build(game_name: str, params: dict) -> tuple[Game, object]:
    spec = get_spec(game_name)
    ruleset = load_ruleset(params.get("ruleset", spec.default_ruleset))
    if ruleset.game != game_name:
        raise ValueError(f"ruleset {ruleset.name!r} is a {ruleset.game} ruleset, not {game_name}")
    overrides = json.loads(params.get("params", "{}") or "{}")
    rulings = json.loads(params.get("rulings", "{}") or "{}")
    if overrides or rulings:
        ruleset = ruleset.with_overrides(overrides, rulings, spec=spec.schema)
    return spec.build(ruleset), spec


def _game_class(game_name: str):
    class RuleproofGame(pyspiel.Game):
        def __init__(self, params=None):
            params = dict(params or {})
            game, spec = _build(game_name, params)
            self.space = _Space(game)
            g = game
            shift = float(self.space.shift)
            info = pyspiel.GameInfo(
                num_distinct_actions=max(1, len(self.space.actions)),
                max_chance_outcomes=max(1, len(self.space.outcomes)),
                num_players=g.num_players,
                min_utility=float(g.min_utility) - shift, max_utility=float(g.max_utility) - shift,
                utility_sum=(float(g.constant_sum) - 2 * shift if g.constant_sum is not None else None),
                max_game_length=self.space.max_length)
            full = {"ruleset": spec.default_ruleset, "params": "{}", "rulings": "{}", **params}
            super().__init__(_game_type(game_name, spec, self.space), info, full)

        def new_initial_state(self):
            return RuleproofState(self)

        def make_py_observer(self, iig_obs_type=None, params=None):
            return _Observer(iig_obs_type, params)

    RuleproofGame.__name__ = f"Ruleproof_{game_name.replace('-', '_')}"
    return RuleproofGame


class RuleproofState(pyspiel.State):
    """One position: the protocol state plus each seat's observation history (perfect recall)."""

    def __init__(self, game):
        super().__init__(game)
        self.space: _Space = game.space
        self.rp_state = self.space.game.initial_state()
        n = self.space.game.num_players
        self.views = [[self.space.game.observation(self.rp_state, s)] for s in range(n)]

    def current_player(self):
        seat = self.space.game.current_player(self.rp_state)
        if seat == TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        if seat == CHANCE:
            return pyspiel.PlayerId.CHANCE
        return seat

    def _legal_actions(self, player):
        index = self.space.action_index
        return sorted(index[a] for a in self.space.game.legal_actions(self.rp_state))

    def chance_outcomes(self):
        index = self.space.outcome_index
        return sorted((index[o], float(p)) for o, p in self.space.game.chance_outcomes(self.rp_state))

    def _apply_action(self, action):
        g = self.space.game
        seat = g.current_player(self.rp_state)
        move = self.space.outcomes[action] if seat == CHANCE else self.space.actions[action]
        self.rp_state = g.apply(self.rp_state, move)
        for s, view in enumerate(self.views):
            if s == seat:
                view.append(("played", move))
            view.append(g.observation(self.rp_state, s))

    def _action_to_string(self, player, action):
        g = self.space.game
        move = self.space.outcomes[action] if player == pyspiel.PlayerId.CHANCE else self.space.actions[action]
        try:
            return g.describe_action(self.rp_state, move)
        except Exception:   # noqa: BLE001 - asked about an action not legal here: name it plainly
            return repr(move)

    def is_terminal(self):
        return self.space.game.is_terminal(self.rp_state)

    def returns(self):
        g = self.space.game
        if not g.is_terminal(self.rp_state):
            return [0.0] * g.num_players
        return [float(r - self.space.shift) for r in g.returns(self.rp_state)]

    def __str__(self):
        # unique per state (value iteration keys states by str): the description and the key
        g = self.space.game
        return f"{g.describe_state(self.rp_state)} #{g.key(self.rp_state)}"


class _Observer:
    """Observation strings (the seat's current observation) and information-state strings (its
    whole observation history), as OpenSpiel's PyObserver interface asks; no tensors."""

    def __init__(self, iig_obs_type, params):
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        self.perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        self.tensor, self.dict = None, {}

    def set_from(self, state, player):
        pass

    def string_from(self, state, player):
        if not state.space.hidden:
            return str(state) if not self.perfect_recall else " | ".join(map(str, state.history()))
        if self.perfect_recall:
            return repr(state.views[player])
        return repr(state.views[player][-1])


_REGISTERED: dict[str, type] = {}


def register() -> list[str]:
    """Register every ruleproof game with OpenSpiel (once); returns their OpenSpiel names."""
    for name in GAMES:
        if name not in _REGISTERED:
            cls = _game_class(name)
            pyspiel.register_game(_game_type(name, get_spec(name)), cls)
            _REGISTERED[name] = cls
    return [short_name(n) for n in GAMES]


def load(game: str, ruleset: str | None = None, params: dict | None = None,
         rulings: dict | None = None):
    """``pyspiel.load_game`` for a ruleproof game with Python dicts of overrides."""
    register()
    args = {"params": json.dumps(params or {}), "rulings": json.dumps(rulings or {})}
    if ruleset is not None:
        args["ruleset"] = ruleset
    return pyspiel.load_game(short_name(game), args)


def value_iteration(game, threshold: float = 1e-12, cyclic: bool = True) -> dict[str, float]:
    """OpenSpiel's own ``value_iteration`` (open_spiel.python.algorithms) on an adapted game.

    That module imports ``lp_solver`` (and so cvxpy) at the top, but uses it only at simultaneous-
    move nodes, which no ruleproof game has; without cvxpy installed, a module that refuses every
    call stands in for ``lp_solver`` so that the sequential algorithm runs unchanged."""
    import importlib
    import sys
    import types
    try:
        import cvxpy  # noqa: F401
    except ImportError:
        name = "open_spiel.python.algorithms.lp_solver"
        if name not in sys.modules:
            stand_in = types.ModuleType(name)

            def refuse(*args, **kwargs):
                raise RuntimeError("lp_solver needs cvxpy (simultaneous-move nodes only)")
            stand_in.solve_zero_sum_matrix_game = refuse
            sys.modules[name] = stand_in
    vi = importlib.import_module("open_spiel.python.algorithms.value_iteration")
    return vi.value_iteration(game, depth_limit=-1, threshold=threshold, cyclic_game=cyclic)
