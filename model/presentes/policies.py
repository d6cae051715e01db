"""Named policies for the choices the phone asks (first gift, Roubo sorrateiro, Troca de lugar,
Revanche). Each is a distribution over legal actions, so the exact analysis can use it as is and the
simulators sample it; the simulator in ``simulate.py`` implements the same three.

* ``eager``: steal the first gift from the most advanced victim; Roubo sorrateiro and Troca de
  lugar target the most advanced eligible player; always take the revenge. Ties: lowest seat.
  Under P15 'pick': the gift under the tree worth most to the taker (``gift_values``; lowest
  gift on ties).
* ``passive``: take the first gift from the tree; target the lowest eligible seat; never take
  the revenge. Under P15 'pick': the lowest-numbered gift under the tree.
* ``random``: each question the phone asks answered uniformly at random. The first-gift choice
  is two questions under P34 'two-questions' (steal or tree, 1/2 each; then whom, uniformly),
  one list under 'one-list' (the tree and each victim alike); every other choice is one question
  (whom, take or decline, which gift), uniform over its options.
"""
from __future__ import annotations

import random
from fractions import Fraction
from typing import Callable

from .rules import TAKE_TREE, Phase, St

PolicyDist = Callable[["object", St], list[tuple[int, Fraction]]]


def _most_advanced(game, s: St, actions: list[int]) -> int:
    seats = [a for a in actions if a >= 0]
    return max(seats, key=lambda i: (s.pos[i], -i))


def eager(game, s: St) -> list[tuple[int, Fraction]]:
    actions = list(game.legal_actions(s))
    if s.phase == Phase.REVENGE:
        return [(1, Fraction(1))]
    if s.phase == Phase.TREE or s.phase == Phase.TREE_LAST:  # P15 'pick' (max keeps the lowest tie)
        row = game.rules.values[s.aux]
        return [(max(actions, key=lambda g: row[g]), Fraction(1))]
    return [(_most_advanced(game, s, actions), Fraction(1))]


def passive(game, s: St) -> list[tuple[int, Fraction]]:
    actions = list(game.legal_actions(s))
    if s.phase == Phase.REVENGE:
        return [(0, Fraction(1))]
    if s.phase == Phase.FIRST:
        return [(TAKE_TREE, Fraction(1))]
    return [(min(actions), Fraction(1))]  # also P15 'pick': the lowest gift


def uniform(game, s: St) -> list[tuple[int, Fraction]]:
    actions = list(game.legal_actions(s))
    if s.phase == Phase.FIRST and not game.rules.first_one_list:  # P34: steal or tree, then whom
        victims = len(actions) - 1
        return [(a, Fraction(1, 2) if a == TAKE_TREE else Fraction(1, 2 * victims)) for a in actions]
    return [(a, Fraction(1, len(actions))) for a in actions]


POLICY_DISTS: dict[str, PolicyDist] = {"eager": eager, "passive": passive, "random": uniform}


def _factory(dist: PolicyDist, seed: int = 0):
    def make(game):
        rng = random.Random(seed)

        def act(state):
            options = dist(game, state)
            if len(options) == 1:
                return options[0][0]
            return rng.choices([a for a, _ in options], [float(p) for _, p in options])[0]
        return act
    return make


#: ``GameSpec.policies``: name -> factory(game) -> callable(state) -> action
POLICIES = {name: _factory(dist) for name, dist in POLICY_DISTS.items()}
