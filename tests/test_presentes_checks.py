"""Presentes' checks beside its proofs (model/presentes/checks.py, fastcheck.py) and the companion
official boards: each reads the evidence verify gives it, can fail, and reports a dead end rather
than crashing."""
from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from ruleproof.model.limits import Limits
from ruleproof.model.presentes import SPEC, board as B, rules as R
from ruleproof.model.presentes import simulate as S
from ruleproof.model.presentes.shrink import (CHAIN_PROPERTIES, COMPANION_PROPERTIES, HOST_REMOVAL, TRIO_PROPERTIES,
                                            companions)
from ruleproof.model.properties import Derived
from ruleproof.model.sampling import random_play
from ruleproof.solver.explore import explore
from ruleproof.solver.verify import check_exploration, verify

OWN = ("board-counts", "special-squares", "reveal-utilities", "public-information", "simulator-agrees",
       "exact-chain-agrees")


def small(rulings=None, **params):
    return SPEC.default().with_overrides({"board": "mini", **params}, rulings or {}, spec=SPEC.schema)


def own(ruleset, names=OWN):
    """The named properties of the game on the complete exploration of ``ruleset``."""
    game = SPEC.build(ruleset)
    spec = dataclasses.replace(SPEC, properties=lambda rs, g: [p for p in SPEC.properties(rs, g) if p.name in names])
    return check_exploration(spec, ruleset, explore(game), own_only=True)


def test_every_check_holds_on_the_small_configuration():
    results = own(small())
    assert set(results) == set(OWN)
    assert all(r.ok for r in results.values()), [(r.name, r.detail) for r in results.values() if not r.ok]
    assert results["simulator-agrees"].data["turn_starts"] > 1000


def test_the_empty_luck_draws_are_counted_with_a_witness():
    found = own(small(), ("special-squares",))["special-squares"]
    assert found.ok and found.data["states"] > 0
    assert found.data["shortest_witness"][0].startswith("start:")
    # P07 'own-leader': a mover leading with a gift draws the no-op Lugar, so fewer empty draws
    fewer = own(small({"P07": "own-leader"}), ("special-squares",))["special-squares"]
    assert fewer.ok and 0 < fewer.data["states"] < found.data["states"]


def test_p23_redraw_reaching_an_empty_luck_draw_fails_with_the_witness():
    res = own(small({"P23": "redraw"}), ("special-squares",))["special-squares"]
    assert res.status == "fails" and "hangs" in res.detail
    assert res.counterexample[-1] == "no eligible effect: redrawn forever (P23 'redraw')"


def test_an_empty_draw_where_an_effect_serves_fails(monkeypatch):
    """A slip that leaves a ★ without effect whenever the mover holds a gift (Troca de lugar and the
    steals serve then) is caught, whatever the proofs say."""
    draw = R._draw

    def broken(r, s, square, prev=None, leader=None):
        if square == B.Square.LUCK and s.gift[s.turn] >= 0:
            return [((R.Effect.NOTHING, 0), 1)]
        return draw(r, s, square, prev, leader)
    monkeypatch.setattr(R, "_draw", broken)
    res = own(small(), ("special-squares",))["special-squares"]
    assert res.status == "fails" and "although one serves" in res.detail and res.counterexample


def test_a_board_with_the_wrong_counts_fails(monkeypatch):
    monkeypatch.setitem(B.OFFICIAL, "curta", (40, 8, 6, 3))   # one ★ lost in the generator's table
    rs = SPEC.default().with_overrides({"layout_seed": 97}, spec=SPEC.schema)
    game = SPEC.build(rs)
    prop = next(p for p in SPEC.properties(rs, game) if p.name == "board-counts")
    from ruleproof.model.properties import Context
    res = prop.check(Context(SPEC, rs, game, "curta", limits=Limits()))
    assert res.status == "fails" and "8 ★" in res.detail and "(40, 9, 6, 3)" in res.detail


def test_utilities_that_misread_the_gifts_fail(monkeypatch):
    game_cls = type(SPEC.build(small()))
    monkeypatch.setattr(game_cls, "returns", lambda self, s: tuple(
        self.rules.values[i][g] if g >= 0 else 0 for i, g in enumerate(reversed(s.gift))))
    res = own(small(), ("reveal-utilities",))["reveal-utilities"]
    assert res.status == "fails" and "worth" in res.counterexample[-1]


def test_a_simulator_weight_that_drifts_fails_at_the_first_turn_start(monkeypatch):
    weighted = S.Batch._weighted

    def drifted(self, games, weights):
        if weights.shape[1] == 7:   # the ★ draw: Roubo sorrateiro printed twice as likely, drawn once
            weights = weights.copy()
            weights[:, 2] = np.minimum(weights[:, 2], 1)
        return weighted(self, games, weights)
    monkeypatch.setattr(S.Batch, "_weighted", drifted)
    res = own(small(), ("simulator-agrees",))["simulator-agrees"]
    assert res.status == "fails" and res.counterexample[0].startswith("start:")
    assert "the simulator" in res.counterexample[-1] and "the model" in res.counterexample[-1]


def test_a_simulator_policy_that_drifts_fails(monkeypatch):
    """The simulator's uniform pick among several players (a target drawn at random, the random
    policy's victim) made the lowest seat: with two players there is never more than one to pick
    from, so the companion's three are needed."""
    monkeypatch.setattr(S.Batch, "_uniform_pick", lambda self, games, mask: np.argmax(mask, axis=1))
    res = own(small(board="trio", players=3), ("simulator-agrees",))["simulator-agrees"]
    assert res.status == "fails" and "the simulator" in res.counterexample[-1]


def test_an_exact_chain_that_drifts_fails(monkeypatch):
    from ruleproof.model.presentes import exact as E
    count = E._count_into

    def drifted(counts, s, a, p, child):   # a first steal counted as taken from the tree
        if s.phase == R.Phase.FIRST:
            return count(counts, s._replace(phase=R.Phase.ROLL), a, p, child)
        return count(counts, s, a, p, child)
    monkeypatch.setattr(E, "_count_into", drifted)
    res = own(small(), ("exact-chain-agrees",))["exact-chain-agrees"]
    assert res.status == "fails" and "first_steal" in res.counterexample[-1]


def test_a_dead_end_is_reported_by_every_check_not_a_crash(monkeypatch):
    """Issue #21: a graph check crashed on a dead-end state and hid the failures found. A slip that
    offers no target for Troca de lugar leaves decision states without a move: every check reports
    (fails or holds), none is an internal error."""
    decisions = R.decisions
    monkeypatch.setattr(R, "decisions", lambda r, s: [] if s.phase == R.Phase.SWAP else decisions(r, s))
    game = SPEC.build(small())
    rng = random.Random(1)
    plays = [random_play(game, rng, 10_000) for _ in range(300)]   # verify's sampled fallback
    assert any(play and game.legal_actions(play[-1][2]) == [] and play[-1][2].phase == R.Phase.SWAP
               for play in plays)
    rep = verify(SPEC, small(), timeout=900)   # (a generous budget: every property on the exploration)
    by = {p.name: p for p in rep.properties}
    assert not [p.name for p in rep.properties if p.kind == "error"], [p.detail for p in rep.properties]
    assert by["legal-actions"].status == "fails"
    assert by["simulator-agrees"].status == "fails" and "no move" in by["simulator-agrees"].counterexample[-1]
    assert rep.status == "fails"


def test_companions_are_the_trio_board_and_the_other_official_boards():
    """Two players: the 'trio' board with three, every property; on an official board, the other
    official boards too (first, the longest first: verify starts the heaviest at once), for the
    properties only their whole graph shows."""
    *comps, trio, azar, host, chain = companions(SPEC.default())
    assert (trio.ruleset.params["board"], trio.ruleset.params["players"], trio.always) == ("trio", 3, True)
    assert trio.properties == TRIO_PROPERTIES and "z3-gift-conservation" in trio.properties
    assert (azar.ruleset.params["board"], azar.ruleset.params["players"], azar.ruleset.params["host_skip"],
            azar.properties) == ("trio-azar", 3, (1,), TRIO_PROPERTIES)
    assert (host.ruleset.params["board"], host.ruleset.params["players"], host.ruleset.params["host_remove"],
            host.properties) == ("trio", 3, (HOST_REMOVAL,), TRIO_PROPERTIES)
    assert (chain.ruleset.params["board"], chain.ruleset.params["players"]) == ("chain", 2)
    assert chain.properties == CHAIN_PROPERTIES and "z3-gift-conservation" in chain.properties
    assert [d.ruleset.params["board"] for d in comps] == ["longa", "media"]
    assert all(d.always and d.properties == COMPANION_PROPERTIES and d.ruleset.params["players"] == 2
               for d in comps)
    assert [d.ruleset.params["board"] for d in companions(small())] == ["trio", "trio-azar", "trio", "chain"]
    party = companions(SPEC.ruleset("presentes-party"))   # 32 players: no trio
    assert [d.ruleset.params["board"] for d in party] == ["longa", "media", "curta", "chain"]
    assert all(d.ruleset.params["dice"] == 2 for d in party)


def _reachable(ruleset):
    game = SPEC.build(ruleset)
    seen, stack = {game.initial_state()}, [game.initial_state()]
    while stack:
        for _, _, t in game.successors(stack.pop()):
            if t not in seen:
                seen.add(t)
                stack.append(t)
    return game, seen


def test_the_chain_companion_reaches_the_third_landing():
    """'Valem no máximo 3 quedas seguidas': on 'chain' a Salto chain lands a third time -- on a ★
    (a draw on landing 3, whose Salto then moves without landing) and on an ordinary square (a
    gift from the tree) -- which no smaller board reaches."""
    chain = next(d.ruleset for d in companions(SPEC.default()) if d.ruleset.params["board"] == "chain")
    game, states = _reachable(chain)
    squares = game.board.squares
    third = [s for s in states if s.chain == 3 and s.phase == R.Phase.LUCK]
    assert third and all(squares[s.pos[s.turn]] == B.Square.LUCK for s in third)
    assert any(s.phase == R.Phase.TREE and squares[s.pos[s.aux]] == B.Square.ORDINARY
               and s.pos[s.aux] in (6, 8, 9, 10) for s in states)
    assert all(s.chain <= 3 for s in states)
    assert len(states) < 4_000


def test_the_trio_azar_companion_meets_a_revanche_among_three_and_a_host_skip():
    """On 'trio-azar' (3 players, the host skipping turn slot 1) the previous player of a Revanche
    is one of two others, and the skipped slot hands the turn on."""
    azar = next(d.ruleset for d in companions(SPEC.default()) if d.ruleset.params["board"] == "trio-azar")
    game, states = _reachable(azar)
    revenges = {(s.turn, R.previous_player(game.rules, s)) for s in states if s.phase == R.Phase.REVENGE}
    assert {(0, 2), (1, 0)} <= revenges
    assert 1 not in {s.slot for s in states if s.phase == R.Phase.ROLL}   # no turn is played in slot 1
    after_seat_0 = R.begin_slot(game.rules, game.initial_state(), 1, 1)
    assert (after_seat_0.phase, after_seat_0.turn, after_seat_0.slot) == (R.Phase.ROLL, 2, 2)
    assert len(states) < 9_000


def test_the_host_removal_companion_sends_a_held_gift_back_to_the_tree():
    """On 'trio' with the host removing seat 1 at turn slot 4 (P28: "Tira um jogador da partida. O
    presente dele volta para a árvore") the removed seat holds a gift in some plays, which then lies
    under the tree, and the two others play on: the slips a removal can hide have a state to show in."""
    host = next(d.ruleset for d in companions(SPEC.default()) if d.ruleset.params["host_remove"])
    game, states = _reachable(host)
    slot, seat = HOST_REMOVAL
    before = [s for s in states if s.phase == R.Phase.ROLL and s.slot == slot - 1 and s.gift[seat] >= 0
              and s.pos[seat] < game.rules.finish]
    assert before, "seat 1 never holds a gift before its removal"
    removed = [s for s in states if s.pos[seat] == game.rules.out]
    assert removed and all(s.gift[seat] == R.NO_GIFT for s in removed)
    assert any(s.phase == R.Phase.ROLL and s.turn != seat for s in removed)   # play goes on without it
    assert len(states) < 4_000


def test_verify_explores_a_companion_for_the_properties_it_names():
    """The scheduler explores a companion beside the ruleset and runs only the properties it names
    (here the 'tiny' board standing in for an official one)."""
    tiny = small(board="tiny")
    spec = dataclasses.replace(SPEC, derived=lambda rs: [Derived("tiny (companion)", tiny, always=True,
                                                                 properties=COMPANION_PROPERTIES)])
    rep = verify(spec, small(), timeout=900)
    tagged = {p.name.split(" [")[0] for p in rep.properties if p.name.endswith("[tiny (companion)]")}
    assert {"termination", "special-squares", "reveal-utilities", "gift-conservation"} <= tagged
    assert tagged <= set(COMPANION_PROPERTIES) | _core_names()
    assert rep.derived and rep.derived[0]["label"] == "tiny (companion)"
    assert rep.status == "holds"


def _core_names():
    game = SPEC.build(small())
    return {inv.name for inv in game.invariants()} | {"legal-actions", "chance-distribution", "utility-bounds",
                                                      "termination"}


@pytest.mark.slow
def test_the_full_size_ruleset_and_its_official_boards_hold():
    # nothing fails, and the official boards are explored beside Curta: verify as a user runs it,
    # without a clock (every check to its end: 162 CPU s, 2.7 GB peak, measured at stop 29); a
    # clock would make what this test sees depend on the machine's load
    rep = verify(SPEC, SPEC.default())
    assert all(p.status != "fails" for p in rep.properties), \
        [(p.name, p.detail) for p in rep.properties if p.status == "fails"]
    assert {"media", "longa"} <= {d["label"].split(",")[0] for d in rep.derived}
