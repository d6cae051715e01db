"""``verify``: exhaustive invariant checks on a small configuration, graph properties, and the
game's own proofs (Z3), gathered as :class:`PropertyResult` objects."""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.ruleset import Ruleset, value_words
from ruleproof.model.spec import GameSpec
from ruleproof.proofs.refinement import check_rule_proof

from .explore import Exploration, _distribution_problem, explore
from .limits import Limits
from .report import FAILS, HOLDS, UNKNOWN, PropertyResult
from .solve import scc_levels

#: properties the explorer itself checks on every game, whatever its invariants
PROTOCOL_PROPERTIES = {
    "legal-actions": "every non-terminal decision state has a legal move",
    "chance-distribution": "chance outcomes have positive Fraction probabilities summing to 1",
    "utility-bounds": "terminal utilities lie within the declared bounds (and add up to the "
                      "declared constant, for constant-sum games)",
}


@dataclass
class VerifyReport:
    ruleset: Ruleset
    config: dict[str, Any]
    properties: list[PropertyResult] = field(default_factory=list)
    states: int = 0
    seconds: float = 0.0
    #: what the reader should know about how the verdict was reached (too big to explore, ...)
    notes: list[str] = field(default_factory=list)
    #: the smaller configurations explored in its place, each {label, config, states}
    derived: list[dict[str, Any]] = field(default_factory=list)

    @property
    def status(self) -> str:
        statuses = {p.status for p in self.properties}
        return FAILS if FAILS in statuses else UNKNOWN if UNKNOWN in statuses else HOLDS


def exploration_properties(ex: Exploration) -> list[PropertyResult]:
    """One result per invariant and protocol rule, with the shortest failing trace."""
    game = ex.game
    named = [(inv.name, inv.description) for inv in game.invariants()]
    named += list(PROTOCOL_PROPERTIES.items())
    results = []
    scope = f"{ex.num_states} reachable states" if ex.complete else \
        f"{ex.num_states} states explored before the {ex.stop_reason}"
    for name, description in named:
        violation = ex.violations.get(name)
        if violation is not None:
            trace = ex.narrate(violation.node, f"violated: {violation.reason}")
            results.append(PropertyResult(name, FAILS, description, trace, "exhaustive",
                                          data={"depth": int(ex.depth[violation.node])}))
        elif ex.complete:
            results.append(PropertyResult(name, HOLDS, f"{description} ({scope})", kind="exhaustive"))
        else:
            results.append(PropertyResult(name, UNKNOWN, f"{description}: no violation in {scope}",
                                          kind="exhaustive"))
    return results


def termination_property(ex: Exploration) -> PropertyResult:
    """Acyclic graphs: every play ends, within the longest path. Cyclic ones: an end is reachable
    from every reachable state (for chance-only cycles that is termination with probability 1)."""
    start = time.perf_counter()
    n = ex.num_states
    if not ex.complete:
        return PropertyResult("termination", UNKNOWN, f"graph incomplete ({ex.stop_reason})", kind="graph")
    offsets = np.frombuffer(ex.offsets, dtype=np.int64)
    child = np.frombuffer(ex.child, dtype=np.int64)
    source = np.repeat(np.arange(n), np.diff(offsets))
    graph = csr_matrix((np.ones(len(child), np.int8), (source, child)), shape=(n, n))
    n_comp, label = connected_components(graph, directed=True, connection="strong")
    acyclic = n_comp == n and not (source == child).any()
    # reverse reachability from the terminal states
    reverse = graph.T.tocsr()
    can_end = np.zeros(n, dtype=bool)
    queue = deque(int(v) for v in np.flatnonzero(np.frombuffer(ex.kind, np.int8) == TERMINAL))
    can_end[list(queue)] = True
    while queue:
        v = queue.popleft()
        for u in reverse.indices[reverse.indptr[v]:reverse.indptr[v + 1]]:
            if not can_end[u]:
                can_end[u] = True
                queue.append(int(u))
    stuck = np.flatnonzero(~can_end)
    seconds = time.perf_counter() - start
    if stuck.size:
        node = int(stuck[np.argmin(np.frombuffer(ex.depth, np.int64)[stuck])])
        return PropertyResult("termination", FAILS, f"{stuck.size} reachable states cannot reach an end",
                              ex.narrate(node, "from here no sequence of moves ends the game"),
                              "graph", seconds)
    if acyclic:
        _, height, _ = scc_levels(n, source, child)   # the heights solve orders its levels by
        longest = int(height[label[0]])
        return PropertyResult("termination", HOLDS, f"acyclic: every play ends within {longest} moves",
                              kind="graph", seconds=seconds, data={"longest_play": longest})
    only_chance_cycles = True
    cyclic_nodes = np.flatnonzero(np.bincount(label, minlength=n_comp)[label] > 1)
    kinds = np.frombuffer(ex.kind, np.int8)
    if (kinds[cyclic_nodes] >= 0).any():
        only_chance_cycles = False
    detail = ("cycles exist; an end is reachable from every reachable state"
              + (" (cycles pass only through chance, so play ends with probability 1)"
                 if only_chance_cycles else
                 " (players can prolong play around cycles; with chance, optimal play ends with "
                 "probability 1 whenever every cycle loses value)"))
    return PropertyResult("termination", HOLDS, detail, kind="graph", seconds=seconds,
                          data={"cyclic_states": int(cyclic_nodes.size)})


def shortest_lasso(ex: Exploration, final_note: str = "") -> list[str] | None:
    """A play that can go on for ever: the shortest path from the start to a reachable cycle, then
    the shortest cycle through that state, narrated move by move; None when the explored graph has
    no cycle. (A cycle never contains an end: terminal states have no moves.)"""
    if not ex.complete:
        return None
    n = ex.num_states
    offsets = np.frombuffer(ex.offsets, dtype=np.int64)
    child = np.frombuffer(ex.child, dtype=np.int64)
    source = np.repeat(np.arange(n), np.diff(offsets))
    graph = csr_matrix((np.ones(len(child), np.int8), (source, child)), shape=(n, n))
    _, label = connected_components(graph, directed=True, connection="strong")
    sizes = np.bincount(label)
    on_cycle = (sizes[label] > 1)
    on_cycle[source[source == child]] = True
    if not on_cycle.any():
        return None
    depth = np.frombuffer(ex.depth, np.int64)
    candidates = np.flatnonzero(on_cycle)
    entry = int(candidates[np.argmin(depth[candidates])])
    # BFS inside the entry's component, back to the entry
    comp = label[entry]
    back: dict[int, int] = {}
    queue, found = deque([entry]), None
    while queue and found is None:
        v = queue.popleft()
        for e in range(int(offsets[v]), int(offsets[v + 1])):
            c = int(child[e])
            if label[c] != comp:
                continue
            if c == entry:
                found = e
                break
            if c not in back:
                back[c] = e
                queue.append(c)
    cycle = [found]
    v = ex.source_of(found)
    while v != entry:
        e = back[v]
        cycle.append(e)
        v = ex.source_of(e)
    cycle.reverse()
    lines = ex.narrate(entry)
    lines.append(f"-- from here the play can repeat for ever ({len(cycle)} moves per lap):")
    game = ex.game
    for step, e in enumerate(cycle, 1):
        src = ex.source_of(e)
        move = game.describe_action(ex.state(src), ex.action[e])
        if ex.prob[e] is not None:
            move += f" (probability {ex.prob[e]})"
        lines.append(f"  {step}. {game.seat_name(int(ex.kind[src]))}: {move} -> "
                     f"{game.describe_state(ex.state(int(child[e])))}")
    lines.append(final_note or "-- back at the state the lap started from")
    return lines


#: without a user --timeout, a ruleset too big to explore gets this many seconds in all: the direct
#: exploration gets a share, then the Z3 proofs, the derived configurations and sampled plays
DEFAULT_BUDGET = 110.0
#: the share of the budget the direct exploration may use before verify switches to that path
DIRECT_SHARE = 0.25
#: sampled plays at full size (each checks every invariant at every visited state)
DEFAULT_PLAYS = 2_000


def config_label(spec: GameSpec, ruleset: Ruleset) -> str:
    """The configuration a result is about: ruleset name and the parameters that differ from the
    game's defaults, and the rulings that differ from the catalog's defaults."""
    params, rulings = spec.schema.defaults()
    changed = [f"{k}={_short(v)}" for k, v in ruleset.params.items() if params.get(k) != v]
    changed += [f"{k}={v}" for k, v in ruleset.rulings.items() if rulings.get(k) != v]
    return ruleset.name + (f" ({', '.join(changed)})" if changed else "")


def _short(value: Any) -> str:
    return value_words(value)


def verify(spec: GameSpec, ruleset: Ruleset, *, max_states: int | None = None,
           timeout: float | None = None, progress: Callable | None = None,
           plays: int | None = None, seed: int = 0,
           phase: Callable[[str, int, int | None], None] | None = None) -> VerifyReport:
    """Every property of ``ruleset`` with its evidence.

    The configuration is explored exhaustively when it fits (the state cap, and a share of the time
    budget). When it does not, the ruleset still gets a verdict: (a) the Z3 proofs on its own
    parameters, their mapping checked on sampled plays; (b) exhaustive checks on the smaller
    configurations the game derives from it while keeping the edit (``GameSpec.shrink``), each
    named; (c) ``plays`` sampled full-size plays with every invariant checked at every state.

    ``progress(states, pending, seconds)`` follows each exploration; ``phase(what, done, total)``
    every later step (each proof, the game checks that report through ``Limits.report``, the
    sampled plays), so a progress bar moves in every phase.
    """
    start = time.perf_counter()
    limits = Limits.starting_now(max_states, timeout, phase)
    game = spec.build(ruleset)
    label = config_label(spec, ruleset)
    limit = max_states if max_states is not None else spec.verify_max_states
    # with both a time and a state limit from the user, the state limit says when to stop exploring
    share = 1.0 if timeout is not None and max_states else DIRECT_SHARE
    direct_time = (timeout if timeout is not None else DEFAULT_BUDGET) * share
    ex = explore(game, max_states=limit, timeout=direct_time, progress=progress)
    report = VerifyReport(ruleset, dict(ruleset.params))
    report.states = ex.num_states
    if ex.complete:
        _verify_explored(spec, ruleset, game, ex, label, limits, report)
    else:
        rest = (limits if timeout is not None else
                Limits.starting_now(max_states, DEFAULT_BUDGET - (time.perf_counter() - start), phase))
        _verify_too_big(spec, ruleset, game, ex, label, rest, report, plays or DEFAULT_PLAYS, seed, progress)
    report.seconds = time.perf_counter() - start
    return report


def _verify_explored(spec, ruleset, game, ex, label, limits, report) -> None:
    scope = f"{label}: {ex.num_states:,} states"
    for prop in exploration_properties(ex) + [termination_property(ex)]:
        prop.scope = prop.scope or scope
        report.properties.append(prop)
    proofs = list(spec.proofs(ruleset, game) if spec.proofs else ())
    for i, proof in enumerate(proofs):
        limits.report(f"proof {proof.name}", i, len(proofs))
        report.properties.append(check_rule_proof(proof, game, exploration=ex, scope=scope, limits=limits))
    limits.report("game checks", 0, None)
    if spec.explored_checks is not None:   # game checks that read this very exploration
        for prop in spec.explored_checks(ruleset, ex, limits):
            prop.scope = prop.scope or scope
            report.properties.append(prop)
    if spec.checks is not None:
        for prop in spec.checks(ruleset, limits=limits):
            prop.scope = prop.scope or label
            report.properties.append(prop)


def _verify_too_big(spec, ruleset, game, ex, label, limits, report, plays, seed, progress) -> None:
    """(a) proofs on the ruleset's own parameters, (b) derived configurations, (c) sampled plays.
    The time left is split: a third for the derived configurations, the rest for the plays (the
    proofs take seconds)."""
    why = f"{label} is too big to explore within the limits ({ex.num_states:,} states explored, {ex.stop_reason})"
    report.notes.append(why)
    # (c) first builds the sample the proofs' mappings are checked on
    left = limits.remaining()
    sample_limits = Limits.starting_now(None, None if left is None else left * 0.45, limits.progress)
    sampled = sample_properties(game, plays, seed, sample_limits, label)
    report.properties.extend(sampled)
    n_plays = next((p.data.get("plays", 0) for p in sampled), 0)
    proofs = list(spec.proofs(ruleset, game) if spec.proofs else ())
    for i, proof in enumerate(proofs):
        limits.report(f"proof {proof.name} (full size)", i, len(proofs))
        report.properties.append(check_rule_proof(proof, game, plays=max(1, min(n_plays, 300)), seed=seed,
                                                  scope=f"{label}: Z3 on its own parameters", limits=limits))
    # the game's own checks at full size, within a share of the time: those that need no complete
    # exploration answer, the others say they could not (unknown), so no property is dropped
    left = limits.remaining()
    check_limits = replace(limits, deadline=None if left is None else time.perf_counter() + left * 0.4)
    limits.report("game checks (full size)", 0, None)
    if spec.full_size_checks is not None:
        report.properties.extend(spec.full_size_checks(ruleset, game, label, check_limits,
                                                                max(1, min(n_plays, 300)), seed))
    elif spec.checks is not None:
        for prop in spec.checks(ruleset, limits=check_limits):
            prop.scope = prop.scope or label
            report.properties.append(prop)
    if spec.shrink is None:
        report.notes.append(f"{spec.name} derives no smaller configurations; evidence is proofs and sampling")
        return
    shrunk = list(spec.shrink(ruleset))
    for k, (derived_label, derived) in enumerate(shrunk):
        limits.report(f"derived {derived_label}", k, len(shrunk))
        if limits.expired():
            report.notes.append(f"derived configuration {derived_label!r} not explored: time limit")
            continue
        sub = Limits.starting_now(limits.max_states, limits.remaining(), limits.progress)
        dgame = spec.build(derived)
        dex = explore(dgame, max_states=sub.states(spec.verify_max_states), timeout=sub.remaining(),
                      progress=progress)
        dlabel = f"derived: {derived_label}"
        if not dex.complete:
            report.notes.append(f"{dlabel}: not explored completely ({dex.stop_reason})")
            continue
        report.derived.append({"label": derived_label, "config": derived.as_dict(), "states": dex.num_states})
        scope = f"{dlabel}: {dex.num_states:,} states"
        for prop in exploration_properties(dex) + [termination_property(dex)]:
            prop.name, prop.scope = f"{prop.name} [{derived_label}]", scope
            report.properties.append(prop)
        for proof in (spec.proofs(derived, dgame) if spec.proofs else ()):
            res = check_rule_proof(proof, dgame, exploration=dex, scope=scope, limits=sub)
            res.name = f"{res.name} [{derived_label}]"
            report.properties.append(res)
        for prop in (spec.explored_checks(derived, dex, sub) if spec.explored_checks is not None else ()):
            prop.name, prop.scope = f"{prop.name} [{derived_label}]", prop.scope or scope
            report.properties.append(prop)
        if spec.checks is not None:
            for prop in spec.checks(derived, limits=sub):
                prop.name, prop.scope = f"{prop.name} [{derived_label}]", prop.scope or dlabel
                report.properties.append(prop)


def sample_properties(game, plays: int, seed: int, limits: Limits, label: str) -> list[PropertyResult]:
    """Every invariant and protocol rule at every state of ``plays`` seeded random plays (uniform
    decisions, chance by its probabilities). Not a proof: the results say so."""
    from ruleproof.proofs.refinement import random_play
    import random
    start = time.perf_counter()
    rng = random.Random(seed)
    invariants = list(game.invariants())
    failures: dict[str, list[str]] = {}
    states = done = unfinished = 0
    max_moves = game.max_game_length or 100_000
    for done in range(1, plays + 1):
        if limits.expired():
            done -= 1
            break
        if done % 50 == 1:
            limits.report("sampled plays", done - 1, plays)
        steps = random_play(game, rng, max_moves)
        visited = [game.initial_state()] + [t for _, _, t in steps]
        states += len(visited)
        last = visited[-1]
        if game.current_player(last) != TERMINAL:
            unfinished += 1
        for j, state in enumerate(visited):
            for inv in invariants:
                if inv.name in failures:
                    continue
                reason = inv.check(state)
                if reason is not None:
                    failures[inv.name] = _sample_trace(game, steps, j, done, seed) + [f"violated: {reason}"]
            seat = game.current_player(state)
            if seat == TERMINAL:
                ret = game.returns(state)
                if any(not game.min_utility <= r <= game.max_utility for r in ret) or (
                        game.constant_sum is not None and sum(ret) != game.constant_sum):
                    failures.setdefault("utility-bounds", _sample_trace(game, steps, j, done, seed)
                                        + [f"returns {tuple(map(str, ret))}"])
            elif seat == CHANCE:
                problem = _distribution_problem(tuple(p for _, p in game.chance_outcomes(state)))
                if problem:
                    failures.setdefault("chance-distribution", _sample_trace(game, steps, j, done, seed) + [problem])
            elif not game.legal_actions(state):
                failures.setdefault("legal-actions", _sample_trace(game, steps, j, done, seed) + ["no legal move"])
    seconds = time.perf_counter() - start
    scope = f"{label}: {done:,} sampled plays (seed {seed}), {states:,} states visited"
    named = [(inv.name, inv.description) for inv in invariants] + list(PROTOCOL_PROPERTIES.items())
    out = []
    for name, description in named:
        if name in failures:
            out.append(PropertyResult(name, FAILS, description, failures[name], "sampled", seconds,
                                      {"plays": done}, scope))
        elif done == 0:
            out.append(PropertyResult(name, UNKNOWN, f"{description}: no play sampled before the time limit",
                                      kind="sampled", scope=scope))
        else:
            out.append(PropertyResult(name, HOLDS, f"{description}: no violation in {done:,} plays "
                                      f"({states:,} states) -- sampled, not a proof", kind="sampled",
                                      seconds=seconds, data={"plays": done, "states": states}, scope=scope))
    ended = done - unfinished
    out.append(PropertyResult("termination", HOLDS if done and not unfinished else UNKNOWN,
                              f"{ended:,} of {done:,} sampled plays ended (within {max_moves:,} moves each)"
                              + (" -- sampled, not a proof" if done and not unfinished else
                                 "; a play that does not end may loop: explore a derived configuration"),
                              kind="sampled", seconds=seconds, data={"plays": done, "unfinished": unfinished},
                              scope=scope))
    return out


def _sample_trace(game, steps, upto: int, play: int, seed: int) -> list[str]:
    from ruleproof.proofs.refinement import narrate_play
    return narrate_play(game, steps, upto, f"sampled play {play} (seed {seed})")


# ---- the verdict of several reports -----------------------------------------------------------

def evidence_counts(properties) -> dict[str, int]:
    """How many properties rest on each kind of evidence (proved, exhaustive, sampled, ...)."""
    counts: dict[str, int] = {}
    for p in properties:
        counts[p.evidence] = counts.get(p.evidence, 0) + 1
    return counts


def overall_status(reports) -> str:
    """fails if any report fails, else unknown if any is undecided, else holds."""
    statuses = {r.status for r in reports}
    return FAILS if FAILS in statuses else UNKNOWN if UNKNOWN in statuses else HOLDS


def verify_document(reports, targets: list[str]) -> dict[str, Any]:
    """``verify --json``: one ruleset's report, or every game's with their properties named by game."""
    docs = [{"game": r.ruleset.game, "ruleset": r.ruleset.name, "config": r.ruleset.as_dict(),
             "states": r.states, "seconds": round(r.seconds, 4), "status": r.status,
             "evidence": evidence_counts(r.properties), "notes": r.notes, "derived": r.derived,
             "properties": [p.as_dict() for p in r.properties]} for r in reports]
    if len(docs) == 1:
        return docs[0]
    return {"game": "all", "ruleset": "defaults", "config": {"games": targets},
            "status": overall_status(reports), "games": docs, "properties":
            [dict(p, name=f"{d['game']}:{p['name']}") for d in docs for p in d["properties"]]}
