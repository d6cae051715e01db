"""Shared helpers for the Loira tests: rulesets without the registry, scripted play, random play."""
from __future__ import annotations

import random
from types import MappingProxyType

from ruleproof.model.loira import SPEC, build
from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.ruleset import Ruleset


def ruleset(params=None, rulings=None) -> Ruleset:
    p, r = SPEC.schema.defaults()
    base = Ruleset("loira", "loira", MappingProxyType(p), MappingProxyType(r), "test")
    return base.with_overrides(params or {}, rulings or {}, spec=SPEC.schema)


def game(params=None, rulings=None):
    return build(ruleset(params, rulings))


def script(g, moves, state=None):
    """Apply moves (actions or chance outcomes) checking each is legal/possible."""
    s = g.initial_state() if state is None else state
    for m in moves:
        seat = g.current_player(s)
        if seat == CHANCE:
            assert m in [o for o, _ in g.chance_outcomes(s)], (m, g.describe_state(s))
        else:
            assert m in g.legal_actions(s), (m, g.legal_actions(s), g.describe_state(s))
        s = g.apply(s, m)
    return s


def random_playout(g, rng: random.Random, check=True, stop_bias=0.3):
    s = g.initial_state()
    invs = g.invariants() if check else ()
    steps = 0
    while True:
        for inv in invs:
            why = inv.check(s)
            assert why is None, (inv.name, why, g.describe_state(s))
        seat = g.current_player(s)
        if seat == TERMINAL:
            return s, steps
        if seat == CHANCE:
            outs = g.chance_outcomes(s)
            assert sum(p for _, p in outs) == 1 and all(p > 0 for _, p in outs)
            r, acc, pick = rng.random(), 0.0, outs[-1][0]
            for o, p in outs:
                acc += float(p)
                if r < acc:
                    pick = o
                    break
            s = g.apply(s, pick)
        else:
            acts = list(g.legal_actions(s))
            assert acts and acts == sorted(acts)
            if acts[0] == 0 and len(acts) > 1 and g.current_player(s) >= 0 and rng.random() > stop_bias:
                s = g.apply(s, acts[0])
            else:
                s = g.apply(s, rng.choice(acts))
        steps += 1
        assert g.max_game_length is None or steps <= g.max_game_length
