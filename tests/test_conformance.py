"""One conformance test run over every registered game (OpenSpiel-style): the protocol's promises
hold along seeded random playouts of each game's default small configuration."""
from __future__ import annotations

import random
from fractions import Fraction

import pytest

from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.registry import GAMES, get_spec

PLAYOUTS = 25
MAX_MOVES = 5_000


def small_game(name: str):
    spec = get_spec(name)
    ruleset = spec.default().with_overrides(spec.verify_overrides, spec=spec.schema)
    return spec.build(ruleset)


def random_states(game, seed: int):
    """States visited by one seeded random playout (chance drawn by its probabilities)."""
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(MAX_MOVES):
        yield state
        seat = game.current_player(state)
        if seat == TERMINAL:
            return
        if seat == CHANCE:
            outcomes = game.chance_outcomes(state)
            state = game.apply(state, rng.choices([o for o, _ in outcomes],
                                                  [float(p) for _, p in outcomes])[0])
        else:
            state = game.apply(state, rng.choice(list(game.legal_actions(state))))
    pytest.fail(f"{game.name}: a random playout did not end within {MAX_MOVES} moves")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_protocol_conformance(name):
    game = small_game(name)
    invariants = game.invariants()
    for seed in range(PLAYOUTS):
        for state in random_states(game, seed):
            seat = game.current_player(state)
            assert seat in (CHANCE, TERMINAL) or 0 <= seat < game.num_players
            key = game.key(state)
            assert isinstance(key, (int, tuple)), "keys are ints or tuples of ints"
            assert game.key(game.from_key(key)) == key, "key round trip"
            # the state rebuilt from its key plays exactly like the state itself
            rebuilt = game.from_key(key)
            assert game.current_player(rebuilt) == seat
            assert seat == TERMINAL or [(a, p, game.key(t)) for a, p, t in game.successors(rebuilt)] == \
                [(a, p, game.key(t)) for a, p, t in game.successors(state)], "rebuilt state plays alike"
            for inv in invariants:
                assert inv.check(state) is None, f"{inv.name}: {inv.check(state)}"
            if seat == TERMINAL:
                ret = game.returns(state)
                assert len(ret) == game.num_players
                assert all(isinstance(r, Fraction) for r in ret)
                assert all(game.min_utility <= r <= game.max_utility for r in ret)
                if game.constant_sum is not None:
                    assert sum(ret) == game.constant_sum
                continue
            moves = game.successors(state)
            actions, probs, nexts = game.successor_lists(state)
            assert list(actions) == [a for a, _, _ in moves], "successor_lists agree with successors"
            assert [game.key(t) for t in nexts] == [game.key(t) for _, _, t in moves]
            assert (list(probs) == [p for _, p, _ in moves]) if seat == CHANCE else probs is None
            if seat == CHANCE:
                outcomes = game.chance_outcomes(state)
                assert outcomes and all(isinstance(p, Fraction) and p > 0 for _, p in outcomes)
                assert sum(p for _, p in outcomes) == 1
                assert [(o, p) for o, p, _ in moves] == list(outcomes)
                assert list(game.chance_outcomes(state)) == list(outcomes), "stable order"
            else:
                actions = list(game.legal_actions(state))
                assert actions, "a decision state has legal actions"
                assert list(game.legal_actions(state)) == actions, "stable order"
                assert [a for a, _, _ in moves] == actions
            for action, _, nxt in moves:
                assert game.key(nxt) == game.key(game.apply(state, action)), "successors agree with apply"
                assert isinstance(game.describe_action(state, action), str)
            assert isinstance(game.describe_state(state), str)
            canon, perm = game.canonicalize(state)
            if game.seat_permutations:   # a symmetric game: perm names one of its permutations
                assert 0 <= perm < len(game.seat_permutations), f"perm {perm} out of range"
            else:                        # no symmetry: every state is its own representative
                assert perm == 0 and game.key(canon) == key, "canonicalize changed an asymmetric state"
            again, _ = game.canonicalize(canon)
            assert game.key(again) == game.key(canon), "a representative is its own representative"
            expected = [(a, p, game.key(c), q) for a, p, s in moves for c, q in [game.canonicalize(s)]]
            assert [(a, p, game.key(c), q) for a, p, c, q in game.canonical_successors(state)] == expected


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


@pytest.mark.parametrize("name", sorted(GAMES))
def test_batch_expansion_agrees_with_canonical_successors(name):
    """Games that expand int keys in batches must list exactly ``canonical_successors``' moves, edge
    for edge (same order, keys, probabilities and seat permutations), in every reachable state."""
    import numpy as np
    from ruleproof.solver.explore import explore
    game = small_game(name)
    root = game.key(game.canonicalize(game.initial_state())[0])
    if not isinstance(root, int) or game.expand_keys(np.array([root], np.int64)) is None:
        pytest.skip(f"{name} has no batch expansion")
    ex = explore(game, batch=False, max_states=20_000)
    keys = np.array(ex.keys, np.int64)
    batch = game.expand_keys(keys)
    starts = np.concatenate(([0], np.cumsum(batch.counts)))
    table = (None,) + tuple(game.batch_probabilities)
    for i, key in enumerate(ex.keys):
        state = game.from_key(key)
        assert batch.kind[i] == game.current_player(state)
        moves = [] if game.current_player(state) == TERMINAL else game.canonical_successors(state)
        got = [(int(batch.action[e]), table[batch.prob[e]], int(batch.child[e]),
                int(batch.perm[e]) if batch.perm is not None else 0)
               for e in range(starts[i], starts[i + 1])]
        assert got == [(a, p, game.key(s), r) for a, p, s, r in moves], game.describe_state(state)
    for inv in game.invariants():   # vectorised invariants flag exactly what the scalar ones do
        if inv.check_keys is not None:
            flagged = inv.check_keys(keys).tolist()
            assert flagged == [inv.check(game.from_key(k)) is not None for k in ex.keys], inv.name
