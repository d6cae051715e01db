"""Bomb Busters' checks that are not proofs, each a property reading the exploration ``verify`` gives
it (they never explore by themselves):

* ``turn-bound``: the longest play, counted in turns, against the bound the turn proof proves;
* ``policies``: every team policy's choice is a legal move that depends only on what the acting
  seat may know, and its exact win probability (``policy.exact_win_probability``, the ``solve``
  engine's copy of the game's chance and turn rules) equals the value read off the exploration
  with the policy's choices;
* ``deduction``: at every reachable situation, each seat's view as the deduction engine reads it
  (``observe.position``) is exactly what the rules let the seat know, the real deal is one of the
  deals it counts, and the engine's counts, marginals and Detector Duplo table
  (``deduce.py``, ``duplo.py``) equal the literal brute force (``brute.py``).

The rules' view of a state (what a seat may know) comes from the game's proof file.
"""
from __future__ import annotations

from fractions import Fraction
from math import factorial
from typing import Any, Callable

from ruleproof.model.properties import EXPLORATION, Context, Property
from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.results import FAILS, HOLDS

from . import tiles as T
from .brute import brute_force, deal_allowed
from .deduce import NoDeal, deduce
from .duplo import duplo_plays
from .rules import Kind

View = Callable[[Any, int], Any]
#: the moves that are a turn (a cut or the reveal); equipment and picks are not
TURN_KINDS = (Kind.DUAL, Kind.SOLO, Kind.REVEAL, Kind.DUPLO)


# ---- the longest play against the proved bound ---------------------------------------------------------

def longest_turns(ex, count: Callable[[Any, int], int] | None = None) -> list[int]:
    """Per node, the most turns (or moves, with ``count`` = 1 per edge) a play from it can still
    take (the game is acyclic)."""
    count = count or _turn_step
    longest = [0] * ex.num_states
    for node in reversed(_topological(ex)):
        best = 0
        for e in ex.edges(node):
            best = max(best, count(ex, e) + longest[ex.child[e]])
        longest[node] = best
    return longest


def _turn_step(ex, e: int) -> int:
    a = ex.action[e]
    return 1 if ex.prob[e] is None and isinstance(a, tuple) and a[0] in TURN_KINDS else 0


def _longest_trace(ex, longest: list[int]) -> list[str]:
    """One play of maximal length in turns, narrated (chance and choices alike); on a graph with a
    cycle (a rule slip) it stops where the play returns to a state it has met."""
    game, node, lines, met = ex.game, 0, [], set()
    while True:
        edges = list(ex.edges(node))
        if not edges:
            lines.append(f"end: {game.describe_state(ex.state(node))}")
            return lines
        if node in met:
            lines.append(f"back at an earlier state: {game.describe_state(ex.state(node))} (play need not end)")
            return lines
        met.add(node)
        best = max(edges, key=lambda e: _turn_step(ex, e) + longest[ex.child[e]])
        lines.append(f"{game.seat_name(int(ex.kind[node]))}: {game.describe_action(ex.state(node), ex.action[best])}")
        node = ex.child[best]


def _has_cycle(ex, order: list[int]) -> bool:
    """Whether some edge leads back to a node at or before its source in the DFS order (a cycle)."""
    pos = [0] * ex.num_states
    for i, node in enumerate(order):
        pos[node] = i
    return any(pos[ex.child[e]] <= pos[node] for node in range(ex.num_states) for e in ex.edges(node))


def _topological(ex) -> list[int]:
    n = ex.num_states
    seen = bytearray(n)
    order = []
    for root in range(n):
        if seen[root]:
            continue
        seen[root] = 1
        stack = [(root, iter(ex.edges(root)))]
        while stack:
            node, it = stack[-1]
            for e in it:
                c = ex.child[e]
                if not seen[c]:
                    seen[c] = 1
                    stack.append((c, iter(ex.edges(c))))
                    break
            else:
                order.append(node)
                stack.pop()
    return order[::-1]


def turn_bound_property(bound: int) -> Property:
    """The longest play in turns is within the bound the turn proof proves (``termination-bound``),
    and the longest in moves within the game's declared maximum length (what sampled plays and the
    solvers trust)."""
    def check(ctx: Context):
        ex, game = ctx.exploration, ctx.game
        if _has_cycle(ex, _topological(ex)):   # no longest play: a rule slip lets play go round
            return ctx.result("turn-bound", FAILS, "a play can return to a state it has met, so no bound on "
                              "turns holds", _longest_trace(ex, [0] * ex.num_states))
        longest = longest_turns(ex)
        moves = longest_turns(ex, lambda _ex, _e: 1)[0]
        m = game.mission
        detail = (f"longest play {longest[0]} turns; proved bound {bound}; the issue's wires/2 + skull = "
                  f"{m.total_wires / 2 + m.skull:g}; {moves} moves, declared maximum {game.max_game_length}")
        data = {"longest_turns": longest[0], "bound": bound, "longest_play": _longest_trace(ex, longest),
                "longest_moves": moves, "max_game_length": game.max_game_length}
        if longest[0] > bound or (game.max_game_length is not None and moves > game.max_game_length):
            return ctx.result("turn-bound", FAILS, detail, data["longest_play"], data=data)
        return ctx.result("turn-bound", HOLDS, detail, data=data)
    return Property("turn-bound", "the longest play, in turns (cuts and reveals), within the proved "
                    "termination bound, and in moves within the declared maximum length", (EXPLORATION,), check)


# ---- the policies -------------------------------------------------------------------------------------

def policy_property(view: View, sentence: str) -> Property:
    def check(ctx: Context):
        from .policy import POLICIES, EvaluationLimit, exact_win_probability
        out = []
        cache: dict = {}   # the deductions both 'likely' policies read, by observation
        for name, make in POLICIES.items():
            if name == "random":    # a seeded random choice among the legal moves: nothing to tie
                continue
            out.append(_check_policy(ctx, name, lambda game: make(game, cache), view, exact_win_probability,
                                     EvaluationLimit))
        return out
    return Property("policies", "a policy acts on its seat's view alone (" + sentence + "), and its exact "
                    "value is the game's", (EXPLORATION,), check)


def _check_policy(ctx: Context, name: str, make, view: View, exact, limit_error):
    ex, game = ctx.exploration, ctx.game
    label = f"policy {name}"
    policy = make(game)
    chosen: dict[int, Any] = {}
    by_view: dict[tuple, tuple[Any, int]] = {}
    for node in range(ex.num_states):
        if node & 255 == 0 and ctx.limits.expired():
            return ctx.limits.not_run(label)
        seat = int(ex.kind[node])
        if seat < 0:
            continue
        state = ex.state(node)
        a = policy(state)
        legal = game.legal_actions(state)
        if a not in legal:
            return ctx.result(label, FAILS, f"the policy chose a move that is not legal: {a!r}",
                              ex.narrate(node, f"here {game.seat_name(seat)} may play "
                                         f"{[game.describe_action(state, x) for x in legal][:6]}"))
        chosen[node] = a
        first = by_view.setdefault((seat, view(state, seat)), (a, node))
        if first[0] != a:
            other = first[1]
            lines = (["first situation:"] + ex.narrate(other) + ["second situation:"] + ex.narrate(node)
                     + [f"{game.seat_name(seat)} cannot tell these apart, yet the policy plays "
                        f"{game.describe_action(ex.state(other), first[0])} in the first and "
                        f"{game.describe_action(state, a)} in the second"])
            return ctx.result(label, FAILS, "the policy's choice depends on what its seat may not know", lines)
    # the value over the explored graph, following the policy
    value: dict[int, Fraction] = {}
    for node in reversed(_topological(ex)):
        kind = int(ex.kind[node])
        if kind == TERMINAL:
            value[node] = Fraction(ex.returns[node][0])
        elif kind == CHANCE:
            value[node] = sum((ex.prob[e] * value[ex.child[e]] for e in ex.edges(node)), Fraction(0))
        else:
            e = next(e for e in ex.edges(node) if ex.action[e] == chosen[node])
            value[node] = value[ex.child[e]]
    try:
        engine, _states = exact(game, policy, max_states=ctx.limits.states(2_000_000), timeout=ctx.limits.remaining())
    except limit_error as exc:
        return ctx.limits.not_run(label) if ctx.limits.expired() else ctx.result(label, "unknown", str(exc))
    detail = (f"at {len(chosen):,} decisions the choice is legal and a function of the seat's view; exact win "
              f"probability {value[0]} read off the exploration")
    if engine != value[0]:
        return ctx.result(label, FAILS, f"the solve engine's exact win probability {engine} differs from "
                          f"the value read off the exploration, {value[0]}", [f"engine: {engine}",
                                                                               f"exploration: {value[0]}"])
    return ctx.result(label, HOLDS, detail + ", equal to the solve engine's", data={"value": str(value[0])})


# ---- the deduction engine -----------------------------------------------------------------------------

def deduction_property(view: View) -> Property:
    return Property("deduction", "the deduction engine: each seat's position is exactly its view, the real deal "
                    "is among those counted, and the engine's counts and probabilities are the brute force's",
                    (EXPLORATION,), lambda ctx: _check_deduction(ctx, view))


def _check_deduction(ctx: Context, view: View):
    from .observe import position
    ex, game = ctx.exploration, ctx.game
    name = "deduction"
    by_view: dict[tuple, tuple] = {}
    by_pos: dict[Any, tuple] = {}
    done: set = set()
    checked = 0
    for node in range(ex.num_states):
        if node & 255 == 0 and ctx.limits.expired():
            return ctx.limits.not_run(name)
        state = ex.state(node)
        if int(state.phase) < 4 or int(ex.kind[node]) == TERMINAL:   # from the set-up tokens on
            continue
        for seat in range(game.num_players):
            pos = position(game, state, seat)
            v = (seat, view(state, seat))
            first = by_view.setdefault(v, (pos, node))
            if first[0] != pos:
                return _two(ctx, name, ex, first[1], node, seat, "the rules show the seat the same in both, but "
                            "its position for the deduction engine differs (it reads what the seat may not know)")
            back = by_pos.setdefault(pos, (v, node))
            if back[0] != v:
                return _two(ctx, name, ex, back[1], node, seat, "the rules tell these apart for the seat, but its "
                            "position for the deduction engine is the same (it drops what the seat was shown)")
            if not deal_allowed(pos, _racks_of(game, state)):
                return ctx.result(name, FAILS, "the real deal is not one the position allows (a fact in it is false)",
                                  ex.narrate(node, f"here, for {game.seat_name(seat)}: {pos}"))
            # the engine against the brute force: on the positions a seat decides from
            if pos in done or seat != int(ex.kind[node]):
                continue
            done.add(pos)
            checked += 1
            problem = engine_problem(pos)
            if problem:
                return ctx.result(name, FAILS, "the deduction engine differs from the brute force",
                                  ex.narrate(node, f"here, for {game.seat_name(seat)}: {problem}"))
    return ctx.result(name, HOLDS, f"every seat in every situation from the set-up tokens on: the position is "
                      f"exactly the seat's view and the real deal is among those counted; at the {checked:,} "
                      f"distinct positions a seat decides from, the engine's deal counts, marginals and Detector "
                      f"Duplo table equal the brute force's", data={"positions": checked})


def _racks_of(game, state) -> list[list[int]]:
    """The real racks in the brute force's order (every hand in seat order, its racks in order)."""
    from . import state as S
    m = game.mission
    out = []
    for seat in range(m.players):
        for r, owner in enumerate(m.rack_owner):
            if owner == seat:
                out.append(sorted(S.code(w) for w in state.racks[r]))
    return out


def engine_problem(pos) -> str:
    """How ``deduce`` (and its Detector Duplo table) differs from ``brute_force`` on a position, or ""."""
    pairs: dict = {}
    kept, probs = brute_force(pos, pairs)
    try:
        d = deduce(pos)
    except NoDeal:
        return "" if kept == 0 else f"the engine finds no deal, the brute force {kept}"
    # the brute force labels the viewer's own copies too: m! / ((m - own)! prod own_r!) per blue value
    factor = 1
    for v in range(1, pos.blue_values + 1):
        per_rack = [sum(1 for t, _ in rack if t == T.blue(v)) for rack in pos.own]
        ways = factorial(pos.blue_copies) // factorial(pos.blue_copies - sum(per_rack))
        for n in per_rack:
            ways //= factorial(n)
        factor *= ways
    if kept != d.deals * factor:
        return f"deals: the engine {d.deals} (x{factor} labelled own copies), the brute force {kept}"
    if d.probs != probs:
        for r, (a, b) in enumerate(zip(d.probs, probs)):
            for j, (pa, pb) in enumerate(zip(a, b)):
                if pa != pb:
                    return f"other rack {r} slot {j}: the engine {_dist(pa)}, the brute force {_dist(pb)}"
        return "the marginals differ"
    for p in duplo_plays(d, top=50):
        joint = pairs.get((p.rack, *p.slots), {})
        either = sum((q for (ta, tb), q in joint.items() if T.matches(ta, p.named) or T.matches(tb, p.named)),
                     Fraction(0))
        both_red = sum((q for (ta, tb), q in joint.items()
                        if T.colour(ta) == T.Colour.RED and T.colour(tb) == T.Colour.RED), Fraction(0))
        if (p.success, p.explosion) != (either, both_red):
            return (f"Detector Duplo on other rack {p.rack} slots {p.slots} naming {T.show_named(p.named)}: the "
                    f"engine P(either) {p.success}, P(both red) {p.explosion}; the brute force {either}, {both_red}")
    return ""


def _dist(dist: dict) -> str:
    return "{" + ", ".join(f"{T.show(t)}: {p}" for t, p in sorted(dist.items())) + "}"


def _two(ctx: Context, name: str, ex, first: int, second: int, seat: int, why: str):
    lines = ["first situation:"] + ex.narrate(first) + ["second situation:"] + ex.narrate(second)
    lines.append(f"for {ctx.game.seat_name(seat)}: {why}")
    return ctx.result(name, FAILS, why, lines)

