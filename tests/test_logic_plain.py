"""The plain-value paths of the proofs' connectives and of the Loira rules' world code agree with Z3.

``proofs.logic`` and ``proofs.loira`` evaluate one copy of each rule two ways: on Z3 constants (the
proofs) and on plain ints (the refinement check, with shortcuts for speed). Here the plain result
must equal the Z3 term built from the same call, evaluated at the same values.
"""
from __future__ import annotations

import itertools
import random

import pytest
import z3

from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.proofs import logic
from ruleproof.proofs.loira import LoiraRules

from test_loira_helpers import game


def _value(term):
    """A closed Z3 term's value as Python's (bool or int)."""
    got = z3.simplify(term)
    if z3.is_bool(got):
        assert z3.is_true(got) or z3.is_false(got), got
        return z3.is_true(got)
    return got.as_long()


def _at(term, pairs):
    return _value(z3.substitute(term, *pairs)) if isinstance(term, z3.ExprRef) else term


def test_the_connectives_on_plain_values_equal_their_z3_terms_evaluated():
    rng = random.Random(7)
    for trial in range(400):
        size = rng.randint(0, 5)
        bools = [rng.random() < 0.7 for _ in range(size)]
        ints = [rng.randint(-3, 3) for _ in range(size)]
        b = [z3.Bool(f"b{i}") for i in range(size)]
        x = [z3.Int(f"x{i}") for i in range(size)]
        pairs = [(b[i], z3.BoolVal(bools[i])) for i in range(size)] + \
                [(x[i], z3.IntVal(ints[i])) for i in range(size)]
        # one list, the arguments themselves, and a nested list (the general path)
        shapes = [(lambda v: ([v],)), (lambda v: tuple(v))]
        if size >= 2:
            shapes.append(lambda v: ([v[0], list(v[1:])],))
        for shape in shapes:
            for name in ("And", "Or"):
                fn = getattr(logic, name)
                plain = fn(*shape(bools))
                assert plain.__class__ is bool and plain == _at(fn(*shape(b)), pairs), (name, bools)
            plain = logic.Sum(*shape(ints))
            assert plain.__class__ is int and plain == _at(logic.Sum(*shape(x)), pairs), ints
        if size:
            c, i, j = bools[0], ints[0], ints[-1]
            assert logic.If(c, i, j) == _at(logic.If(b[0], x[0], x[-1]), pairs)
            assert logic.Min(i, j) == _at(logic.Min(x[0], x[-1]), pairs)
            assert logic.Max(i, j) == _at(logic.Max(x[0], x[-1]), pairs)
    # a call with one Z3 argument among plain ones still builds a term (the proofs read its structure)
    y = z3.Int("y")
    for got in (logic.And([True, y >= 0]), logic.Or([False, y >= 0]), logic.Sum([1, y]),
                logic.If(True, y, 0), logic.If(y >= 0, 1, 0)):
        assert isinstance(got, z3.ExprRef), got


def _states(g, rng: random.Random, plays: int) -> list:
    out = []
    for _ in range(plays):
        s = g.initial_state()
        while g.current_player(s) != TERMINAL:
            out.append(s)
            if g.current_player(s) == CHANCE:
                outcomes, weights = zip(*g.chance_outcomes(s))
                s = g.apply(s, rng.choices(outcomes, weights=[float(w) for w in weights])[0])
            else:
                s = g.apply(s, rng.choice(list(g.legal_actions(s))))
    return out


@pytest.mark.parametrize("params, rulings", [
    ({"deck": ["F1", "F2", "M1", "grito", "grito", "grito", "toc-toc", "chute", "descarga"], "stalls": [2, 4],
      "centre_rolls": 1}, {}),
    ({"players": 3, "deck": ["F1", "M2", "grito", "grito", "interruptor", "espelho", "toc-toc", "descarga"],
      "rolls": "standard"}, {"L13": "also-stopped", "L29": "optional", "L08": "pair-discard"}),
])
def test_the_loira_moves_on_real_frames_equal_their_z3_effects_evaluated_there(params, rulings):
    """Every move's guard, and the effect of each whose guard holds, computed on a real frame (the
    branch taken only, the connectives' plain paths) equals the Z3 term of that move evaluated at
    the frame's values -- for every parameter value in the move's ranges."""
    g = game(params, rulings)
    rules = LoiraRules(g)
    actions = rules.moves()
    sym = rules.frame("")
    rng = random.Random(11)
    states = _states(g, rng, 6)
    checked = 0
    for s in rng.sample(states, min(25, len(states))):
        f = rules.read(s)
        for a in actions:
            names = list(a.params)
            for combo in itertools.product(*(a.params[n] for n in names)):
                env = {**f, **dict(zip(names, combo)), "actor": f["mover"]}
                pairs = [(sym[k], z3.IntVal(v)) for k, v in env.items() if k in sym]
                ok = a.guard(env)
                assert bool(ok) == _at(a.guard(sym), pairs), (a.name, combo)
                if not ok:
                    continue
                plain = a.effect(env)
                term = a.effect(sym)
                assert set(plain) == set(term), a.name
                # (one substitution for the whole effect; the variables one by one only to name a slip)
                if not _at(z3.And([term[k] == v for k, v in plain.items()]), pairs):
                    for k, v in plain.items():
                        assert v == _at(term[k], pairs), (a.name, combo, k, g.describe_state(s))
                checked += 1
    assert checked >= 20
