"""The second copies of Presentes' rules, compared with the protocol model on verify's evidence.

Two engines rewrite the rules for speed:

* the vectorised simulator (``simulate.Batch``: numpy arrays, one turn slot of thousands of games
  per step, its own code for every effect, eligibility, weight, chain, policy and host event);
* the exact analysis's turn kernels (``exact.TurnChain``: a turn expanded into integer weights
  over one denominator, with caches across states, and the expected firings of each effect).

Both are compared, turn by turn, with the model's own moves: from every turn start (ROLL state)
of the exploration, the **reference turn** is the model's ``chance_outcomes``/``apply`` expanded
until the next turn start or the reveal, each decision answered by the named policy (eager,
passive, random: ``policies.py``, which the engines implement too). The simulator's turn is
enumerated *exactly*: every draw it makes goes through ``Batch._below`` (a uniform integer below
a bound), which the check replaces by a prescribed stream, so every random stream of the turn is
played once, with its exact probability. The two distributions -- over the next turn start (who
moves, the host's slot, every seat's square, gift and first-gift choice, the tree, the arrival
order) together with the effects counted on the way -- must be equal, exactly (rationals); the
first turn start where they differ fails the property, narrated.
"""
from __future__ import annotations

from fractions import Fraction
from math import lcm, prod
from typing import Any

import numpy as np
from flint import fmpq

from ruleproof.model.properties import EXPLORATION, Context, Property
from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.results import FAILS, HOLDS
from ruleproof.model.ruleset import RulesetError

from .policies import POLICY_DISTS
from .rules import Phase, St
from .simulate import COUNTERS, FIRST_STEAL, Batch

#: the policies both engines implement
POLICY_NAMES = ("eager", "passive", "random")
#: rows of one enumerating batch (each a turn start with a prefix of its random stream)
CHUNK = 20_000
#: draws one turn may make (dice, effects, picks, coins: a handful per landing)
DEPTH = 96

Outcome = tuple   # the end of a turn, comparable between the model and the simulator
ZERO_COUNTS = (0,) * len(COUNTERS)


class Hangs(Exception):
    """The turn never ends: P23 'redraw' redraws a ★ with no eligible effect for ever."""


class DeadEnd(Exception):
    """A state of the turn, not the end of the game, where the model offers no move."""


def end_of_turn(s: St, cap: int) -> Outcome:
    """What a turn leaves: the next turn start (mover, slot) or the reveal, and the table."""
    n = len(s.pos)
    table = (tuple(s.pos), tuple(s.gift), tuple(bool(s.tree >> g & 1) for g in range(n)),
             tuple(bool(s.used >> i & 1) for i in range(n)), tuple(s.order))
    if s.phase == Phase.OVER:
        return ("reveal",) + table
    return ("turn of", s.turn, s.slot if cap else 0) + table


def q(p: Fraction) -> fmpq:
    """An exact probability as python-flint's rational (ten times faster sums than Fraction)."""
    return fmpq(p.numerator, p.denominator)


class ReferenceTurns:
    """The model's turn from a turn start, each decision by one policy: {(end, counts): p}."""

    def __init__(self, game, policy: str):
        self.game, self.dist, self.cap = game, POLICY_DISTS[policy], game.rules.slot_cap
        self.memo: dict[St, dict] = {}
        self.turns: dict[St, dict] = {}

    def turn(self, s: St) -> dict[tuple[Outcome, tuple[int, ...]], fmpq]:
        got = self.turns.get(s)
        if got is None:
            got = self.turns[s] = self._below(s, root=True)
        return got

    def _below(self, s: St, root: bool = False) -> dict:
        game = self.game
        if not root and s.phase in (Phase.ROLL, Phase.OVER):
            return {(end_of_turn(s, self.cap), ZERO_COUNTS): fmpq(1)}
        got = self.memo.get(s)
        if got is not None:
            return got
        seat = game.current_player(s)
        if seat == TERMINAL:
            raise DeadEnd(f"{game.describe_state(s)} ends the game in the middle of a turn")
        moves = game.chance_outcomes(s) if seat == CHANCE else game.legal_actions(s)
        if not moves:
            raise DeadEnd(f"the model offers no move in {game.describe_state(s)} (a dead end)")
        branches = moves if seat == CHANCE else self.dist(game, s)
        out: dict = {}
        for a, p in branches:
            p = q(p)
            t = game.apply(s, a)
            if t == s:
                raise Hangs(game.describe_state(s))
            fired = (a[0] if s.phase in (Phase.LUCK, Phase.BAD) else
                     FIRST_STEAL if s.phase == Phase.FIRST and a >= 0 else None)
            for (end, counts), pq in self._below(t).items():
                if fired is not None:
                    counts = counts[:fired] + (counts[fired] + 1,) + counts[fired + 1:]
                out[(end, counts)] = out.get((end, counts), 0) + p * pq
        if not root:
            self.memo[s] = out
        return out


# ---- the simulator, every random stream enumerated ------------------------------------------------

class _Enumerating(Batch):
    """A batch whose draws follow prescribed streams: game k draws ``prefix[k]`` in order, then 0s;
    every draw's choice and bound are recorded (``choice``, ``high``, ``drawn``)."""

    def __init__(self, rules, prefixes: list[tuple[int, ...]], policy: str):
        super().__init__(rules, len(prefixes), None, policy)
        G = len(prefixes)
        self.given = np.zeros((G, DEPTH), dtype=np.int64)
        self.given_len = np.array([len(p) for p in prefixes], dtype=np.int64)
        for k, p in enumerate(prefixes):
            self.given[k, :len(p)] = p
        self.choice = np.zeros((G, DEPTH), dtype=np.int64)
        self.high = np.ones((G, DEPTH), dtype=np.int64)
        self.drawn = np.zeros(G, dtype=np.int64)

    def _below(self, games: np.ndarray, high) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        high = np.maximum(np.broadcast_to(np.asarray(high, dtype=np.int64), games.shape), 1)
        at = self.drawn[games]
        if len(games) and at.max() >= DEPTH:
            raise RuntimeError(f"more than {DEPTH} draws in one turn")
        c = np.where(at < self.given_len[games], self.given[games, np.minimum(at, DEPTH - 1)], 0)
        self.choice[games, at] = c
        self.high[games, at] = high
        self.drawn[games] = at + 1
        return c


def simulated_turns(game, states: list[St], policy: str, limits=None) -> list[dict] | None:
    """The simulator's turn from each state, exactly: {(end, counts): p} per state (None when the
    time limit stops it)."""
    rules, cap = game.rules, game.rules.slot_cap
    dens: list[dict] = [{} for _ in states]   # (end, counts) -> the denominators of its streams
    pending: list[tuple[int, tuple[int, ...]]] = [(k, ()) for k in range(len(states))]
    while pending:
        if limits is not None and limits.expired():
            return None
        rows, pending = pending[:CHUNK], pending[CHUNK:]
        by_slot: dict[int, list[int]] = {}
        for r, (k, _) in enumerate(rows):
            by_slot.setdefault(states[k].slot, []).append(r)
        for slot, members in sorted(by_slot.items()):
            part = [rows[r] for r in members]
            b = _Enumerating(rules, [prefix for _, prefix in part], policy)
            b.load_each([states[k] for k, _ in part])
            b.play(np.arange(len(part)), np.array([states[k].turn for k, _ in part], dtype=np.int64))
            nxt = slot + 1
            movers = np.full(len(part), -1, dtype=np.int64)
            while True:
                begun = b.begin_slot(nxt, np.flatnonzero(~b.done))
                if begun is None:
                    nxt += 1
                    continue
                movers[begun[0]] = begun[1]
                break
            stored = min(nxt, cap) if cap else 0
            pos, gift, tree, used = b.pos.tolist(), b.gift.tolist(), b.tree.tolist(), b.used.tolist()
            rank, counts, done = b.rank.tolist(), b.counts.tolist(), b.done.tolist()
            deepest = int(b.drawn.max()) if len(part) else 0
            drawn, high, choice = b.drawn.tolist(), b.high[:, :deepest].tolist(), b.choice[:, :deepest].tolist()
            mover = movers.tolist()
            extend = pending.extend
            for i, (k, prefix) in enumerate(part):
                ranks = rank[i]
                order = tuple(sorted((seat for seat, r in enumerate(ranks) if r >= 0), key=ranks.__getitem__))
                table = (tuple(pos[i]), tuple(gift[i]), tuple(tree[i]), tuple(used[i]), order)
                end = ("reveal",) + table if done[i] else ("turn of", mover[i], stored) + table
                d = drawn[i]
                highs = high[i][:d]
                key = (end, tuple(counts[i]))
                dens[k].setdefault(key, []).append(prod(highs))
                row = choice[i]
                for j in range(len(prefix), d):   # every other stream from here, each once
                    if highs[j] > 1:
                        head = tuple(row[:j])
                        extend([(k, head + (x,)) for x in range(1, highs[j])])
    out = []
    for per in dens:
        turn = {}
        for key, ds in per.items():
            L = lcm(*ds)
            turn[key] = fmpq(sum(L // d for d in ds), L)
        out.append(turn)
    return out


def _outcome_text(game, key) -> str:
    (end, counts) = key if isinstance(key[0], tuple) else (key, None)
    head = ("the reveal" if end[0] == "reveal" else f"P{end[1]}'s turn (slot {end[2]})")
    pos, gift, tree, used, order = end[-5:]
    fired = ""
    if counts is not None:
        fired = ", effects " + (", ".join(f"{COUNTERS[j]} x{c}" for j, c in enumerate(counts) if c) or "none")
    return (f"{head}: squares {list(pos)}, gifts {list(gift)}, tree {[g for g, t in enumerate(tree) if t]}, "
            f"first gift used {[i for i, u in enumerate(used) if u]}, arrival {list(order)}{fired}")


def _first_difference(game, a: dict, b: dict, left: str, right: str) -> str:
    for key in sorted(set(a) | set(b), key=repr):
        if a.get(key, 0) != b.get(key, 0):
            return (f"{_outcome_text(game, key)}: {left} {a.get(key, 0)}, {right} {b.get(key, 0)} "
                    f"({len(a)} outcomes against {len(b)})")
    return "no difference"


def _turn_starts(ctx: Context) -> list[tuple[St, Any]]:
    return [(s, narrate) for s, narrate in ctx.states() if s.phase == Phase.ROLL]


def _reference(ctx: Context, policy: str) -> ReferenceTurns:
    """The model's turns under ``policy``, shared by both checks of one context."""
    key = ("presentes-reference-turns", policy)
    if key not in ctx.cache:
        ctx.cache[key] = ReferenceTurns(ctx.game, policy)
    return ctx.cache[key]


def check_simulator(ctx: Context, policies=None) -> Any:
    """``policies``: by default all three with three players or more; with two, where every
    target a policy picks is the one other player, the random policy (it takes every branch)."""
    name = "simulator-agrees"
    game = ctx.game
    if policies is None:
        policies = POLICY_NAMES if game.num_players >= 3 else ("random",)
    starts = _turn_starts(ctx)
    states = [s for s, _ in starts]
    compared = 0
    for policy in policies:
        ref = _reference(ctx, policy)
        expected, hanging = [], []
        for k, s in enumerate(states):
            try:
                expected.append(ref.turn(s))
            except Hangs:
                expected.append(None)
                hanging.append(k)
            except DeadEnd as exc:
                return ctx.result(name, FAILS, "a turn of the model cannot be played to its end, so the "
                                  "simulator cannot be compared", starts[k][1]() + [f"from this turn start: {exc}"])
        playable = [k for k in range(len(states)) if expected[k] is not None]
        got = simulated_turns(game, [states[k] for k in playable], policy, ctx.limits)
        if got is None:
            return ctx.limits.not_run(name)
        for k, sim in zip(playable, got):
            if sim != expected[k]:
                return ctx.result(name, FAILS, "the vectorised simulator's turn differs from the model's",
                                  starts[k][1]() + [f"from this turn start, policy {policy}: "
                                                    + _first_difference(game, sim, expected[k], "the simulator",
                                                                        "the model")])
        for k in hanging[:1]:   # P23 'redraw': the simulator must refuse, not play on
            try:
                simulated_turns(game, [states[k]], policy)
            except RulesetError:
                continue
            return ctx.result(name, FAILS, "the simulator plays on where the rules hang",
                              starts[k][1]() + ["from this turn start the model redraws a ★ with no "
                                                "eligible effect for ever; the simulator ends the turn"])
        compared += len(playable)
    return ctx.result(name, HOLDS, f"from each of the {len(states):,} turn starts, under each policy "
                      f"({', '.join(policies)}), the simulator's turn -- every random stream enumerated -- "
                      f"gives exactly the model's distribution of the next turn start (or the reveal) and of "
                      f"the effects fired ({compared:,} turns compared)", data={"turn_starts": len(states)})


def check_chain(ctx: Context, policies=("random",)) -> Any:
    """The chain's arithmetic does not depend on the policy (a decision is one more weighted
    branch): the random policy, whose decisions are mixed, exercises all of it."""
    from .exact import GameHangs, TurnChain   # numpy, scipy and flint: imported on use
    name = "exact-chain-agrees"
    game = ctx.game
    starts = _turn_starts(ctx)
    for policy in policies:
        ref = _reference(ctx, policy)
        chain = TurnChain(game, lambda s, d=POLICY_DISTS[policy]: d(game, s), build=False, count_effects=True)
        for n, (s, narrate) in enumerate(starts):
            if n & 255 == 0 and ctx.limits.expired():
                return ctx.limits.not_run(name)
            try:
                expected = ref.turn(s)
            except Hangs:
                expected = None
            except DeadEnd as exc:
                return ctx.result(name, FAILS, "a turn of the model cannot be played to its end, so the "
                                  "chain cannot be compared", narrate() + [f"from this turn start: {exc}"])
            try:
                kernel = chain.turn_kernel(s)
            except GameHangs:
                kernel = None
            if (expected is None) != (kernel is None):
                return ctx.result(name, FAILS, "the exact chain and the model disagree on whether a turn ends",
                                  narrate() + [f"policy {policy}: the model's turn "
                                               f"{'never ends' if expected is None else 'ends'}, the chain's "
                                               f"{'never ends' if kernel is None else 'ends'}"])
            if expected is None:
                continue
            ends: dict = {}
            fired = [fmpq(0)] * len(COUNTERS)
            for (end, counts), p in expected.items():
                ends[end] = ends.get(end, 0) + p
                for j, c in enumerate(counts):
                    if c:
                        fired[j] += c * p
            got = {end_of_turn(t, game.rules.slot_cap): q(p) for t, p in kernel.items()}
            if got != ends:
                return ctx.result(name, FAILS, "the exact chain's turn kernel differs from the model's turn",
                                  narrate() + [f"from this turn start, policy {policy}: "
                                               + _first_difference(game, got, ends, "the chain", "the model")])
            counted = chain.counts.get(s, {})
            mean = [q(Fraction(counted.get(j, 0))) for j in range(len(COUNTERS))]
            if mean != fired:
                j = next(j for j in range(len(COUNTERS)) if mean[j] != fired[j])
                return ctx.result(name, FAILS, "the exact chain counts the effects of a turn differently",
                                  narrate() + [f"from this turn start, policy {policy}: expected firings of "
                                               f"{COUNTERS[j]}: the chain {mean[j]}, the model {fired[j]}"])
    return ctx.result(name, HOLDS, f"from each of the {len(starts):,} turn starts, under each policy "
                      f"({', '.join(policies)}), the exact chain's turn kernel and expected effect firings "
                      "equal the model's turn, exactly", data={"turn_starts": len(starts)})


def engine_properties(ruleset, game) -> list[Property]:
    sentence = "one copy of each rule: the fast engines play the model's turns (issue #21)"
    return [Property("simulator-agrees", sentence, (EXPLORATION,), check_simulator),
            Property("exact-chain-agrees", sentence, (EXPLORATION,), check_chain)]

