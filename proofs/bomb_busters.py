"""Z3 proofs for Bomb Busters, one function per invariant and one per action (mypyvy style).

The proofs count wires of one kind per hand (the abstraction the invariants need): every action
is a relation between the counts before and after. Each is parameterised by the mission (players,
copies per value, yellow and red counts, skull), so a rule edit is re-proved, or refuted with a
concrete situation. ``checks(ruleset)`` gathers them with exhaustive checks on tiny missions,
within the user's limits (what a limit stops is unknown).
"""
from __future__ import annotations

import time
from typing import Callable

import z3

from model.bomb_busters.mission import Mission
from proofs.harness import Action, Frame, check_inductive, prove
from solver.limits import NO_LIMITS, Limits
from solver.report import FAILS, HOLDS, UNKNOWN, PropertyResult

#: each exhaustive check of a tiny mission stops (unknown) beyond this many states or seconds
EXPLORE_STATES, EXPLORE_SECONDS = 200_000, 60.0


# ---- one kind of wire, counted per hand ---------------------------------------------------------

def kind_frame(players: int) -> Callable[[str], Frame]:
    def frame(suffix: str) -> Frame:
        f = {f"hand{i}": z3.Int(f"hand{i}{suffix}") for i in range(players)}
        f["cut"] = z3.Int(f"cut{suffix}")
        f["aside"] = z3.Int(f"aside{suffix}")
        f["validated"] = z3.Bool(f"validated{suffix}")
        return f
    return frame


def _hands(f: Frame, players: int) -> list[z3.ArithRef]:
    return [f[f"hand{i}"] for i in range(players)]


def _same(pre: Frame, post: Frame, names) -> z3.BoolRef:
    return z3.And(*[pre[n] == post[n] for n in names]) if names else z3.BoolVal(True)


def _kind_actions(players: int, copies: int, cut_sizes=(2, 4), red: bool = False) -> list[Action]:
    """Every action as it changes the counts of one kind (the kind cut, or any other kind)."""
    P = players
    acts = []

    def only(changed: dict[str, Callable[[Frame], z3.ArithRef]], guard: Callable[[Frame], z3.BoolRef]):
        def rel(pre: Frame, post: Frame) -> z3.BoolRef:
            keep = [n for n in pre if n not in changed and n != "validated"]
            cut_after = changed["cut"](pre) if "cut" in changed else pre["cut"]
            return z3.And(guard(pre), *[post[n] == e(pre) for n, e in changed.items()], _same(pre, post, keep),
                          post["validated"] == z3.Or(pre["validated"], cut_after == copies))
        return rel

    for i in range(P):
        for j in range(P):
            if i == j:
                continue
            hi, hj = f"hand{i}", f"hand{j}"
            if not red:  # dual cut (or Detector Duplo) succeeding on this kind: one wire each
                acts.append(Action(f"dual-cut p{i} on p{j}", only(
                    {hi: lambda f, hi=hi: f[hi] - 1, hj: lambda f, hj=hj: f[hj] - 1, "cut": lambda f: f["cut"] + 2},
                    lambda f, hi=hi, hj=hj: z3.And(f[hi] >= 1, f[hj] >= 1))))
            else:  # a red cut under the Estabilizador (B12): one wire of a teammate
                acts.append(Action(f"stabilized red cut p{i} on p{j}", only(
                    {hj: lambda f, hj=hj: f[hj] - 1, "cut": lambda f: f["cut"] + 1},
                    lambda f, hj=hj: f[hj] >= 1)))
            # Comunicadores: at most one wire of this kind moves each way
            for give, take in ((1, 0), (0, 1), (1, 1)):
                acts.append(Action(f"swap p{i}->p{j} ({give},{take})", only(
                    {hi: lambda f, hi=hi, g=give, t=take: f[hi] - g + t,
                     hj: lambda f, hj=hj, g=give, t=take: f[hj] + g - t},
                    lambda f, hi=hi, hj=hj, g=give, t=take: z3.And(f[hi] >= g, f[hj] >= t))))
    for i in range(P):
        hi = f"hand{i}"
        others = [f"hand{j}" for j in range(P) if j != i]
        if not red:
            for k in cut_sizes:  # solo cut: the last k of the kind, all in one hand
                acts.append(Action(f"solo-cut {k} p{i}", only(
                    {hi: lambda f: 0, "cut": lambda f, hi=hi: f["cut"] + f[hi]},
                    lambda f, hi=hi, k=k, others=others: z3.And(f[hi] == k, *[f[o] == 0 for o in others]))))
        else:  # reveal reds: every red in the hand
            acts.append(Action(f"reveal p{i}", only(
                {hi: lambda f: 0, "cut": lambda f, hi=hi: f["cut"] + f[hi]}, lambda f, hi=hi: f[hi] >= 1)))
    acts.append(Action("any other action (failed cut, token, other kinds)",
                       lambda pre, post: _same(pre, post, list(pre))))
    return acts


def _bounds(players: int) -> Callable[[Frame], z3.BoolRef]:
    return lambda f: z3.And(*[h >= 0 for h in _hands(f, players)], f["cut"] >= 0, f["aside"] >= 0)


def prove_conservation(m: Mission, limits: Limits = NO_LIMITS) -> list[PropertyResult]:
    out = []
    P = m.players
    kinds = [("blue value", m.blue_copies, 0, False)]
    if m.yellow_in_play:
        kinds.append(("yellow", m.yellow_in_play, m.yellow_drawn - m.yellow_in_play, False))
    if m.red_in_play:
        kinds.append(("red", m.red_in_play, m.red_drawn - m.red_in_play, True))
    for label, n, aside, red in kinds:
        def init(f, n=n, aside=aside):
            return z3.And(sum(_hands(f, P)) == n, f["cut"] == 0, f["aside"] == aside,
                          z3.Not(f["validated"]))

        def inv(f, n=n, aside=aside):
            return z3.And(sum(_hands(f, P)) + f["cut"] == n, f["aside"] == aside)
        out.append(check_inductive(f"wire-conservation ({label})", kind_frame(P), init, inv,
                                   _kind_actions(P, n, red=red), assumptions=_bounds(P),
                                   detail=f"{label}: uncut in hands + cut = {n}, set-aside stays {aside}, "
                                          "under every action", limits=limits))
    return out


def prove_parity(m: Mission, limits: Limits = NO_LIMITS) -> list[PropertyResult]:
    P, K = m.players, m.blue_copies
    out = []
    for label, n in (("blue", K), ("yellow", m.yellow_in_play)):
        if n == 0:
            continue

        def init(f, n=n):
            return z3.And(sum(_hands(f, P)) == n, f["cut"] == 0, z3.Not(f["validated"]))

        def inv(f, n=n):
            return z3.And(f["cut"] % 2 == 0, sum(_hands(f, P)) + f["cut"] == n, f["cut"] <= n)
        out.append(check_inductive(f"cut-parity ({label})", kind_frame(P), init, inv, _kind_actions(P, n),
                                   assumptions=_bounds(P),
                                   detail=f"cut {label} wires of a value stay even (of {n})", limits=limits))
    # the consequence B03 names: with an even number of copies, 3 never remain
    left = lambda f: sum(_hands(f, P))
    out.append(prove("three-never-left (B03)", kind_frame(P), lambda f: left(f) != 3,
                     lambda f: z3.And(_bounds(P)(f), f["cut"] % 2 == 0, left(f) + f["cut"] == K),
                     detail=f"with cut wires even and {K} copies, 3 wires of a value are never left",
                     limits=limits))
    return out


def prove_validation(m: Mission, limits: Limits = NO_LIMITS) -> PropertyResult:
    P, K = m.players, m.blue_copies
    return check_inductive(
        "validation-at-all-copies", kind_frame(P),
        lambda f: z3.And(sum(_hands(f, P)) == K, f["cut"] == 0, z3.Not(f["validated"])),
        lambda f: z3.And(f["validated"] == (f["cut"] == K), sum(_hands(f, P)) + f["cut"] == K),
        _kind_actions(P, K), assumptions=_bounds(P),
        detail=f"a validation token exactly when all {K} wires of a value are cut", limits=limits)


# ---- deadlock freedom --------------------------------------------------------------------------

def prove_deadlock_freedom(m: Mission, limits: Limits = NO_LIMITS) -> PropertyResult:
    """Whenever the active player holds wires, one of the three actions is legal."""
    V, K, Y, Rn = m.blue_values, m.blue_copies, m.yellow_in_play, m.red_in_play
    sizes = m.sizes()
    capacity = max(sum(n for n, owner in zip(sizes, m.rack_owner) if owner == seat) for seat in range(m.players))

    def frame(suffix: str) -> Frame:
        f = {}
        for v in range(1, V + 1):
            f[f"mine{v}"] = z3.Int(f"mine{v}{suffix}")
            f[f"others{v}"] = z3.Int(f"others{v}{suffix}")
        for c in ("y", "r"):
            f[f"mine_{c}"] = z3.Int(f"mine_{c}{suffix}")
            f[f"others_{c}"] = z3.Int(f"others_{c}{suffix}")
        return f

    def reachable(f: Frame) -> z3.BoolRef:  # the invariants proved above, and the counts' ranges
        cs = []
        for v in range(1, V + 1):
            mine, oth = f[f"mine{v}"], f[f"others{v}"]
            cs += [mine >= 0, oth >= 0, mine + oth <= K, (mine + oth) % 2 == 0]
        cs += [f["mine_y"] >= 0, f["others_y"] >= 0, f["mine_y"] + f["others_y"] <= Y,
               (f["mine_y"] + f["others_y"]) % 2 == 0,
               f["mine_r"] >= 0, f["others_r"] >= 0, f["mine_r"] + f["others_r"] <= Rn]
        mine_all = sum(f[f"mine{v}"] for v in range(1, V + 1)) + f["mine_y"] + f["mine_r"]
        cs += [mine_all > 0, mine_all <= capacity]  # a hand never holds more than it was dealt
        return z3.And(*cs)

    def some_action(f: Frame) -> z3.BoolRef:
        blue_mine = sum(f[f"mine{v}"] for v in range(1, V + 1))
        others_all = sum(f[f"others{v}"] for v in range(1, V + 1)) + f["others_y"] + f["others_r"]
        dual = z3.And(others_all > 0, blue_mine + f["mine_y"] > 0)
        solos = [z3.And(f[f"others{v}"] == 0, z3.Or(f[f"mine{v}"] == 2, f[f"mine{v}"] == 4))
                 for v in range(1, V + 1)]
        solos.append(z3.And(f["others_y"] == 0, z3.Or(f["mine_y"] == 2, f["mine_y"] == 4)))
        reveal = z3.And(blue_mine + f["mine_y"] == 0, f["mine_r"] > 0)
        return z3.Or(dual, reveal, *solos)

    return prove("deadlock-freedom", frame, some_action, reachable,
                 detail=f"a player holding wires always has a dual cut, a solo cut or the red reveal "
                        f"({V} values x {K}, {Y} yellow, {Rn} red, hands of at most {capacity})",
                 limits=limits)


# ---- termination ---------------------------------------------------------------------------------

def termination_bound(m: Mission) -> int:
    """The bound ``prove_termination`` proves: (non-red wires)/2 + reds + skull + Estabilizador."""
    nonred = m.blue_values * m.blue_copies + m.yellow_in_play
    return nonred // 2 + m.red_in_play + m.skull + int(any(n == "estabilizador" for n, _ in m.equipment))


def prove_termination(m: Mission, limits: Limits = NO_LIMITS) -> PropertyResult:
    """Turns <= (non-red wires)/2 + reds + skull + Estabilizador, by a ranking function."""
    nonred = m.blue_values * m.blue_copies + m.yellow_in_play
    D, S0 = m.skull, int(any(n == "estabilizador" for n, _ in m.equipment))
    bound = termination_bound(m)

    def frame(suffix: str) -> Frame:
        return {n: z3.Int(n + suffix) for n in ("turns", "uncut", "reds", "detonator", "stab_card", "stab_on", "over")}

    def phi(f):
        return f["uncut"] / 2 + f["reds"] + (D - f["detonator"]) + f["stab_card"] + f["stab_on"]

    def inv(f):  # a finished game keeps its turn count; a running one has phi turns left at most
        return z3.And(z3.If(f["over"] == 1, f["turns"] <= bound, f["turns"] + phi(f) <= bound),
                      f["uncut"] % 2 == 0, f["detonator"] <= D)

    def assume(f):
        return z3.And(*[f[n] >= 0 for n in f], f["stab_card"] <= 1, f["stab_on"] <= 1, f["over"] <= 1)

    def turn(pre, post, guard, **changes):
        names = ("uncut", "reds", "detonator", "stab_card", "stab_on", "over")
        eqs = [post[n] == changes.get(n, lambda f, n=n: f[n])(pre) for n in names]
        return z3.And(pre["over"] == 0, guard, post["turns"] == pre["turns"] + 1, *eqs)

    def free(pre, post, guard, **changes):
        names = ("turns", "uncut", "reds", "detonator", "stab_card", "stab_on", "over")
        eqs = [post[n] == changes.get(n, lambda f, n=n: f[n])(pre) for n in names]
        return z3.And(pre["over"] == 0, guard, *eqs)

    def failed(pre, post):
        stays = turn(pre, post, z3.And(pre["stab_on"] == 0, pre["detonator"] + 1 < D),
                     detonator=lambda f: f["detonator"] + 1)
        ends = turn(pre, post, z3.And(pre["stab_on"] == 0, pre["detonator"] + 1 == D),
                    detonator=lambda f: f["detonator"] + 1, over=lambda f: 1)
        return z3.Or(stays, ends)

    actions = [
        Action("dual cut succeeds", lambda a, b: turn(a, b, a["uncut"] >= 2, uncut=lambda f: f["uncut"] - 2,
                                                       stab_on=lambda f: 0)),
        Action("dual cut fails", failed),
        Action("stabilized dual cut fails", lambda a, b: turn(a, b, a["stab_on"] == 1, stab_on=lambda f: 0)),
        Action("stabilized red cut", lambda a, b: turn(a, b, z3.And(a["stab_on"] == 1, a["reds"] >= 1),
                                                        reds=lambda f: f["reds"] - 1, stab_on=lambda f: 0)),
        Action("red explodes", lambda a, b: turn(a, b, z3.And(a["stab_on"] == 0, a["reds"] >= 1),
                                                 over=lambda f: 1)),
        Action("solo cut 2", lambda a, b: turn(a, b, a["uncut"] >= 2, uncut=lambda f: f["uncut"] - 2)),
        Action("solo cut 4", lambda a, b: turn(a, b, a["uncut"] >= 4, uncut=lambda f: f["uncut"] - 4)),
        Action("reveal reds", lambda a, b: z3.Exists([z3.Int("k")], z3.And(
            z3.Int("k") >= 1, turn(a, b, a["reds"] >= z3.Int("k"), reds=lambda f: f["reds"] - z3.Int("k"))))),
        Action("flip the estabilizador", lambda a, b: free(a, b, z3.And(a["stab_card"] == 1, a["stab_on"] == 0),
                                                           stab_card=lambda f: 0, stab_on=lambda f: 1)),
        Action("comunicadores swap, token, pick", lambda a, b: free(a, b, z3.BoolVal(True))),
    ]

    def init(f):
        return z3.And(f["turns"] == 0, f["uncut"] == nonred, f["reds"] == m.red_in_play, f["detonator"] == 0,
                      f["stab_card"] == S0, f["stab_on"] == 0, f["over"] == 0)

    res = check_inductive("termination-bound", frame, init, inv, actions, assumptions=assume,
                          detail=f"every game ends within {bound} turns = {nonred}/2 non-red pairs + "
                                 f"{m.red_in_play} red + {D} detonator steps + {S0} stabilized failure",
                          limits=limits)
    res.data.update({"bound_turns": bound, "issue_bound": f"{m.total_wires}/2 + {D}"})
    return res


# ---- exhaustive checks on tiny missions ------------------------------------------------------------

def exhaustive_checks(label: str, ruleset, limits: Limits = NO_LIMITS) -> list[PropertyResult]:
    from model.bomb_busters import build
    from model.bomb_busters.rules import Kind
    from solver.explore import explore

    names = (f"exhaustive invariants ({label})", f"termination-within-bound ({label})")
    if limits.expired():
        return [limits.not_run(name, "exhaustive") for name in names]
    start = time.perf_counter()
    game = build(ruleset)
    left = limits.remaining()
    ex = explore(game, max_states=limits.states(EXPLORE_STATES),
                 timeout=EXPLORE_SECONDS if left is None else min(EXPLORE_SECONDS, left))
    out = []
    if not ex.complete:
        reason = f"{ex.num_states} states explored before the {ex.stop_reason}"
        return [PropertyResult(name, UNKNOWN, reason, kind="exhaustive") for name in names]
    bad = dict(ex.violations)
    status = FAILS if bad else HOLDS
    trace = None
    if bad:
        v = next(iter(bad.values()))
        trace = ex.narrate(v.node, f"violated {v.name}: {v.reason}")
    out.append(PropertyResult(f"exhaustive invariants ({label})", status,
                              f"{ex.num_states} states: {', '.join(i.name for i in game.invariants())}, "
                              "legal-actions (deadlock freedom)", trace, "exhaustive",
                              time.perf_counter() - start, {"states": ex.num_states}))
    # the longest play, counted in turns (dual/solo cut, reveal, Detector Duplo)
    turn_kinds = (Kind.DUAL, Kind.SOLO, Kind.REVEAL, Kind.DUPLO)
    longest = [0] * ex.num_states
    order = _topological(ex)
    for node in reversed(order):
        best = 0
        for e in ex.edges(node):
            a = ex.action[e]
            step = 1 if ex.prob[e] is None and isinstance(a, tuple) and a[0] in turn_kinds else 0
            best = max(best, step + longest[ex.child[e]])
        longest[node] = best
    m = game.mission
    bound = termination_bound(m)
    ok = longest[0] <= bound
    out.append(PropertyResult(f"termination-within-bound ({label})", HOLDS if ok else FAILS,
                              f"longest play {longest[0]} turns; proved bound {bound}; "
                              f"the issue's wires/2 + skull = {m.total_wires / 2 + m.skull:g}",
                              kind="exhaustive", data={"longest_turns": longest[0], "bound": bound,
                                                       "longest_play": _longest_trace(ex, longest, turn_kinds)}))
    return out


def _longest_trace(ex, longest: list[int], turn_kinds) -> list[str]:
    """One play of maximal length in turns, narrated (chance and choices alike)."""
    game, node, lines = ex.game, 0, []
    while True:
        edges = list(ex.edges(node))
        if not edges:
            lines.append(f"end: {game.describe_state(ex.state(node))}")
            return lines
        def gain(e):
            a = ex.action[e]
            step = 1 if ex.prob[e] is None and isinstance(a, tuple) and a[0] in turn_kinds else 0
            return step + longest[ex.child[e]]
        best = max(edges, key=gain)
        who = game.seat_name(int(ex.kind[node]))
        lines.append(f"{who}: {game.describe_action(ex.state(node), ex.action[best])}")
        node = ex.child[best]


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


def checks(ruleset, limits: Limits | None = None) -> list[PropertyResult]:
    from model.bomb_busters import SPEC, YELLOW_OVERRIDES

    limits = limits or NO_LIMITS
    m = Mission.from_ruleset(ruleset)
    out = prove_conservation(m, limits) + prove_parity(m, limits) + [
        prove_validation(m, limits), prove_deadlock_freedom(m, limits), prove_termination(m, limits)]
    if m.total_wires <= 6:
        out += exhaustive_checks("this mission", ruleset, limits)
    else:
        out += exhaustive_checks("bomb-busters-tiny", SPEC.ruleset("bomb-busters-tiny"), limits)
    yellow = SPEC.default().with_overrides(YELLOW_OVERRIDES, spec=SPEC.schema, source="yellow mission")
    out += exhaustive_checks("yellow '2 de 3' mission", yellow, limits)
    return out
