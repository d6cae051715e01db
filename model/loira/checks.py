"""Loira's checks that are not proofs: searches of the explored graph, and the C engine compared with
the model (``verify`` runs them beside the proofs of ``proofs/loira.py``).

* ``deck-never-empty`` with fewer than 3 Gritos: the shortest explored play that ends a turn on an
  empty main deck (L25 then decides: the round ends, or the discard is reshuffled), or at full size
  a directed search;
* ``round-termination`` under L25 ``reshuffle`` and ``match-termination`` under L15 ``replay``: a
  reachable cycle (the shortest lasso) or an acyclic graph;
* ``invariant-screens``: the invariants' scalar and row screens (a second copy of each invariant,
  for the explorer's speed) against the plain invariants near explored states;
* ``fast-engine``: every turn of the explored configuration played by the C engine
  (``fast.turn``) against the model's own moves -- the same next turn-start states, and the same
  value of the turn under random values given to them (every chance weight, choice and terminal
  payoff of the turn) -- failing at the first turn where they differ.
"""
from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from ruleproof.model.limits import NO_LIMITS, Limits
from ruleproof.model.properties import EXPLORATION, Context, Property
from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.results import FAILS, HOLDS, UNKNOWN, PropertyResult
from ruleproof.model.sampling import narrate_play

from .cards import Kind
from .state import END, LOIRA, PH, End, Phase

GRITO_END = 3


# ---- the deck running out ---------------------------------------------------------------------------------
def _ran_out(game, before, move, after) -> bool:
    """The move ends a turn on an empty main deck: the round ends on it (L25 'round-ends') or the
    deck is rebuilt from the discard (L25 'reshuffle'; a Merendeira's reshuffle is its own effect)."""
    if after[PH] == Phase.END:
        return after[END] == End.DECK
    drawn = 1 if before[PH] == Phase.DRAW else 0
    merendeira = (before[PH] == Phase.UNVEIL and move == Kind.MERENDEIRA) or after[PH] == Phase.DRAW
    return game.deck_total(after) > game.deck_total(before) - drawn and not merendeira


def deck_runs_out(ex, limits: Limits = NO_LIMITS) -> tuple[list[str] | None, str]:
    """The shortest explored play whose last move ends a turn on an empty main deck (nodes are in
    breadth-first order), and why the search stopped early ("" when it did not)."""
    game = ex.game
    for node in range(ex.num_states):
        if node & 4095 == 0 and limits.expired():
            return None, f"time limit reached after {node:,} states were searched"
        if ex.kind[node] == TERMINAL:
            continue
        state = ex.state(node)
        for e in ex.edges(node):
            after = ex.state(ex.child[e])
            if _ran_out(game, state, ex.action[e], after):
                return ex.narrate(node) + [
                    f"then: {game.seat_name(ex.kind[node])}: {game.describe_action(state, ex.action[e])} -> "
                    f"{game.describe_state(after)}",
                    "the turn ends on an empty main deck: it ran out before any end trigger"], ""
    return None, "" if ex.complete else ex.stop_reason


def directed_deck_run_out(game, limits: Limits, budget: int = 200_000) -> list[str] | None:
    """A play of the full game whose last move ends a turn on an empty main deck: depth first,
    always going to the bathroom, never drawing a Grito that would end the round, never opening the
    Loira when another stall can come up; returns the narrated play with its probability, or None."""
    def order(s):
        if game.current_player(s) == CHANCE:
            outs = list(game.chance_outcomes(s))
            return [o for o, p in sorted(outs, key=lambda op: (op[0] == Kind.GRITO or op[0] == LOIRA, -op[1]))]
        acts = list(game.legal_actions(s))
        if s[PH] == Phase.TURN:
            acts.sort(key=lambda a: a != 0)     # go first
        elif s[PH] == Phase.ESCAPE:
            acts.sort(key=lambda a: a == 0)     # escape when possible
        return acts

    start = game.initial_state()
    stack = [(start, iter(order(start)))]
    path: list[tuple[Any, Any]] = []
    seen = 0
    while stack:
        s, it = stack[-1]
        move = next(it, None)
        if move is None:
            stack.pop()
            if path:
                path.pop()
            continue
        seen += 1
        if seen > budget or (seen & 1023 == 0 and limits.expired()):
            return None
        t = game.apply(s, move)
        if _ran_out(game, s, move, t):
            steps = [(a, b, game.apply(a, b)) for a, b in path + [(s, move)]]
            prob = Fraction(1)
            for a, b, _ in steps:
                if game.current_player(a) == CHANCE:
                    prob *= dict(game.chance_outcomes(a))[b]
            lines = narrate_play(game, steps, len(steps), "a full-size play found by a directed search")
            return lines + [f"the turn ends on an empty main deck: it ran out before any end trigger (this "
                            f"play has probability {prob} given its decisions)"]
        if game.current_player(t) == TERMINAL:
            continue
        path.append((s, move))
        stack.append((t, iter(order(t))))
    return None


def deck_never_empty(ctx: Context) -> PropertyResult:
    """Fewer than 3 Gritos: the deck can run out (the shortest explored play, or a directed search
    at full size)."""
    game = ctx.game
    gritos = game.cfg.deck[Kind.GRITO]
    claim = f"this deck holds {gritos} Grito(s), fewer than the 3 that end a round"
    name = "deck-never-empty"
    if ctx.source == EXPLORATION:
        trace, stop = deck_runs_out(ctx.exploration, ctx.limits)
        if trace is not None:
            moves = len(trace) - 2
            return ctx.result(name, FAILS, f"the deck can run out: {claim}, and a shortest play that empties it "
                              f"has {moves} moves (L25 '{game.cfg.rulings['L25']}' then decides)", trace,
                              data={"moves": moves})
        if stop:
            return ctx.result(name, UNKNOWN, f"{claim}; no empty deck among the states searched ({stop})")
        return ctx.result(name, HOLDS, f"{claim}, yet no reachable play empties the deck")
    trace = directed_deck_run_out(game, ctx.limits)
    scope = f"{ctx.label}: a directed search"
    if trace is not None:
        return PropertyResult(name, FAILS, f"the deck can run out: {claim}; a full-size play that empties it "
                              f"({len(trace) - 2} moves)", trace, "exhaustive", scope=scope)
    return PropertyResult(name, UNKNOWN, f"{claim}; the directed search found no full-size play that empties "
                          f"it within its budget; see the derived configurations", kind="exhaustive", scope=scope)


# ---- non-termination under a ruling: a reachable cycle ----------------------------------------------------
def cycle_check(ctx: Context, name: str, ruling: str) -> PropertyResult:
    """Under ``ruling`` no ranking exists; the explored graph decides: a reachable cycle (the
    shortest lasso) fails the property, an acyclic graph proves it for this configuration."""
    from ruleproof.solver.termination import shortest_lasso  # a graph search of the exploration (engine)
    ex = ctx.exploration
    lasso = shortest_lasso(ex)
    if lasso is not None:
        return ctx.result(name, FAILS, f"{ruling}: a reachable cycle with no end -- play can go on for "
                          f"ever (shortest lasso below)", lasso, kind="graph")
    return ctx.result(name, HOLDS, f"{ruling}: no reachable cycle among {ex.num_states:,} states, so every "
                      f"play ends (this configuration)", kind="graph")


# ---- the C engine, turn by turn ---------------------------------------------------------------------------
#: turns that also get a second call with random values given to their next turn-start states (the
#: first call, listing those states, is made for every turn; ``fast.turn`` costs about 50 us a call)
VALUED_TURNS = 1_000


def fast_engine(ctx: Context) -> PropertyResult:
    """The C engine against the model on the explored round (module docstring): every turn's next
    turn-start states, a seeded sample of turns valued under random values given to those, and the
    round's optimal value."""
    from . import fast  # the game's own engine
    game, ex, name = ctx.game, ctx.exploration, "fast-engine"
    cfg = game.cfg
    reason = fast.supports(cfg)
    if reason is None and cfg.objective != "round":
        reason = "a match's rounds are played by the C engine with the match's continuation values"
    if reason is None and cfg.players != 2:
        reason = "the C engine's turns are compared here for 2 players"
    if reason is None and fast.cyclic(cfg):
        reason = "L25 reshuffle: the C engine settles cycles by value iteration"
    if reason:
        return ctx.result(name, HOLDS, f"no second copy of the rules runs for this configuration ({reason}): "
                          f"nothing to compare")
    try:
        fast.turn(cfg, fast.c_state(game, game.initial_state()))
    except fast.FastUnavailable as exc:
        return ctx.result(name, HOLDS, f"the C engine is not available here ({exc}): solve uses the generic "
                          f"pipeline, so no second copy runs and nothing is compared")
    kind, child, prob = ex.kind, ex.child, ex.prob
    starts = [kind[n] >= 0 and ex.state(n)[PH] == Phase.TURN for n in range(ex.num_states)]
    turn_nodes = [n for n in range(ex.num_states) if starts[n]]
    rng = random.Random(ctx.seed)
    leaf = {n: rng.randint(-60, 60) / 60 for n in turn_nodes}
    signature: dict[int, tuple] = {}

    def c_state(node: int) -> tuple:
        got = signature.get(node)
        if got is None:
            got = signature[node] = fast.c_state(game, ex.state(node))
        return got

    def solve(node: int, memo: dict, at_start) -> float:
        """Seat 0's value from ``node``; ``at_start(c)`` values a turn-start child (None: go on)."""
        got = memo.get(node)
        if got is not None:
            return got
        if kind[node] == TERMINAL:
            v = float(game.returns(ex.state(node))[0])
        else:
            vals = []
            for e in ex.edges(node):
                c = child[e]
                fixed = at_start(c) if starts[c] else None
                vals.append(fixed if fixed is not None else solve(c, memo, at_start))
            if kind[node] == CHANCE:
                v = sum(float(prob[e]) * x for e, x in zip(ex.edges(node), vals))
            else:
                v = max(vals) if kind[node] == 0 else min(vals)
        memo[node] = v
        return v

    def next_turns(node: int, out: dict, seen: set) -> None:
        for e in ex.edges(node):
            c = child[e]
            if c in seen:
                continue
            seen.add(c)
            if starts[c]:
                out[c_state(c)] = c
            elif kind[c] != TERMINAL:
                next_turns(c, out, seen)

    sample = set(rng.sample(turn_nodes, min(VALUED_TURNS, len(turn_nodes))))
    within: dict[int, float] = {}
    for count, node in enumerate(turn_nodes):
        if count & 255 == 0 and ctx.limits.expired():
            return ctx.limits.not_run(name)
        expected: dict[tuple, int] = {}
        next_turns(node, expected, {node})
        succ, _ = fast.turn(cfg, c_state(node))
        if set(succ) != set(expected) or len(succ) != len(set(succ)):
            missing = [expected[k] for k in expected if k not in set(succ)]
            extra = [k for k in succ if k not in expected]
            lines = ex.narrate(node, "from this turn-start state the C engine's turn differs from the model's")
            if missing:
                lines.append(f"the model reaches {len(missing)} next turn-start state(s) the C engine does not, "
                             f"e.g. {game.describe_state(ex.state(missing[0]))}")
            if extra:
                lines.append(f"the C engine reaches {len(extra)} the model does not (C fields: {list(extra[0])})")
            if len(succ) != len(set(succ)):
                lines.append("the C engine lists a next turn-start state twice")
            return ctx.result(name, FAILS, "the C engine's turn differs from the model's", lines)
        if node in sample:
            vals = [leaf[c] if starts[c] else solve(c, within, leaf.get) for c in (child[e] for e in ex.edges(node))]
            model = max(vals) if kind[node] == 0 else min(vals)
            _, got = fast.turn(cfg, c_state(node), [leaf[expected[k]] for k in succ])
            if abs(got - model) > 1e-9:
                return ctx.result(name, FAILS, "the C engine's turn differs from the model's",
                                  ex.narrate(node, f"from this turn-start state, with random values given to the "
                                                   f"{len(succ)} next turn-start states (seed {ctx.seed}), the "
                                                   f"model's turn is worth {model:.12f} to seat 0 and the C "
                                                   f"engine's {got:.12f}"))
    model = solve(0, {}, lambda c: None)
    got = fast.solve(cfg)["value"]
    if abs(got - model) > 1e-9:
        return ctx.result(name, FAILS, f"the C engine's optimal value of the round, {got:.12f}, differs from the "
                          f"model's, {model:.12f} (seat 0, the explored graph solved backwards)",
                          ex.narrate(0, "the start"))
    return ctx.result(name, HOLDS, f"the C engine's turn from each of the {len(turn_nodes):,} turn-start states "
                      f"reaches exactly the model's next turn-start states; under random values given to them "
                      f"(seed {ctx.seed}) {len(sample):,} sampled turns are worth what the model's are (their "
                      f"chance weights, choices and ends of round); the round's optimal value agrees ({model:.6f})")


# ---- the invariants' screens, a second copy of each invariant ------------------------------------------------
#: explored states whose neighbours (each field moved by one) the screens are tried on
SCREENED_STATES = 30


def invariant_screens(ctx: Context) -> PropertyResult:
    """The invariants' fast screens (``invariants.py``: a scalar screen per invariant, and a row
    screen over many states at once, ``LoiraGame.state_rows``) against the plain invariants, on the
    neighbours of a seeded sample of explored states (every field moved by one either way: mostly
    states that break an invariant, where a screen that vouches for them would hide a violation)."""
    from .invariants import invariants
    game, ex, name = ctx.game, ctx.exploration, "invariant-screens"
    rng = random.Random(ctx.seed)
    nodes = rng.sample(range(ex.num_states), min(SCREENED_STATES, ex.num_states))
    near = []
    for node in nodes:
        s = ex.state(node)
        for i in range(len(s)):
            for d in (-1, 1):
                near.append((node, s[:i] + (s[i] + d,) + s[i + 1:]))
    states = [t for _, t in near]
    rows = game.state_rows(states)
    for fast, plain in zip(game.invariants(), invariants(game, screened=False)):
        vouched = fast.screen_rows(rows) if rows is not None and fast.screen_rows is not None else None
        for j, (node, t) in enumerate(near):
            try:
                exact = plain.check(t)
            except (IndexError, KeyError, ValueError):
                continue   # a neighbour no state can be (a field out of its range)
            got = fast.check(t)
            where = None
            if (got is None) != (exact is None):
                where = f"the screened check says {got!r}, the plain check {exact!r}"
            elif vouched is not None and vouched[j] and exact is not None:
                where = f"the row screen vouches for it, the plain check says {exact!r}"
            if where:
                return ctx.result(name, FAILS, f"a screen of {fast.name} disagrees with the invariant",
                                  ex.narrate(node, f"near this state (one field moved by one): {where}"))
    return ctx.result(name, HOLDS, f"every invariant's scalar and row screens agree with the plain invariant on "
                      f"{len(near):,} neighbours of {len(nodes)} explored states (seed {ctx.seed})")


def invariant_screens_property() -> Property:
    return Property("invariant-screens", "one copy of each rule: the invariants' fast screens vouch only for "
                    "states the invariants accept", (EXPLORATION,), invariant_screens)


def fast_engine_property() -> Property:
    return Property("fast-engine", "one copy of each rule: the C engine (fast_solver.c) plays every turn "
                    "as the model does", (EXPLORATION,), fast_engine)


__all__ = ["deck_runs_out", "directed_deck_run_out", "deck_never_empty", "cycle_check", "fast_engine",
           "fast_engine_property", "End", "END", "GRITO_END"]
