"""A small Z3 layer for rule invariants, in the manner of mypyvy.

Each invariant is one Python function building a Z3 formula over a *frame* (a dict of named Z3
constants describing one state). Each action is one function relating a pre-frame and a post-frame.
``check_inductive`` proves, each in its own solver:

* the invariant holds in every initial state:            init(s)  =>  inv(s)
* every action preserves it:              inv(s) and act(s, t)  =>  inv(t)

and returns a :class:`~model.results.PropertyResult`; a failure names the (action, invariant) pair
and reports the counterexample as readable ``name = value`` lines for both frames.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import z3

from ruleproof.model.limits import NO_LIMITS, Z3_WORK, Limits
from ruleproof.model.results import FAILS, HOLDS, UNKNOWN, PropertyResult

# Ctrl-C is the command line's (solver/runtime.py interrupts a running check): Z3's own handler
# would swallow it and answer "unknown", and the command would run on
z3.set_param("ctrl_c", False)

Frame = dict[str, z3.ExprRef]
#: builds the Z3 constants of one frame, given a name suffix ("" for the pre-state, "'" for the post)
FrameFactory = Callable[[str], Frame]
StatePredicate = Callable[[Frame], z3.BoolRef]
Transition = Callable[[Frame, Frame], z3.BoolRef]


@dataclass(frozen=True)
class Action:
    """One named move of a proof's abstract model: ``relation(pre, post)``.

    ``params`` names pre-frame variables that are the move's own input rather than part of the
    state (a die face, a chosen seat), each with its finite range: Z3 treats them as free, and the
    refinement check (``proofs.refinement``) tries every value when it matches a real transition.

    A deterministic move is best written as a function (:func:`function_action`): ``guard(pre)``
    says when it may happen and ``effect(pre)`` gives the value of every post variable it
    determines; the relation is then ``guard and post == effect`` on those variables, a step that
    deviates can say which variables differ (:meth:`differences`), and Z3 proves a claim with only
    the equations of the post variables the claim reads (a weaker relation, so a sound proof).
    """
    name: str
    relation: Transition
    params: Mapping[str, Sequence[int]] = field(default_factory=dict)
    guard: StatePredicate | None = None
    effect: Callable[[Frame], Mapping[str, object]] | None = None

    def sliced(self, names: set[str] | None) -> Transition:
        """The relation constraining only the post variables ``names`` (all when None or when the
        action is not a function)."""
        if self.effect is None or names is None:
            return self.relation
        guard, effect = self.guard, self.effect

        def relation(pre: Frame, post: Frame) -> z3.BoolRef:
            values = effect(pre)
            return z3.And([guard(pre)] + [post[k] == v for k, v in values.items() if k in names])
        return relation

    def differences(self, pre: Mapping[str, object], post: Mapping[str, object]) -> list[str]:
        """For a function on plain frames: the post variables whose value differs from the
        effect's, as ``name: the model X, the rules Y`` (empty when the guard fails or all agree)."""
        if self.effect is None or not self.guard(pre):
            return []
        return [f"{k}: the model {post[k]}, the rules {v}" for k, v in self.effect(pre).items()
                if post.get(k) != v]


def function_action(name: str, guard: StatePredicate, effect: Callable[[Frame], Mapping[str, object]],
                    params: Mapping[str, Sequence[int]] | None = None) -> Action:
    """A deterministic action (see :class:`Action`): on plain frames the guard is tested first and
    the effect computed only when it holds; on Z3 frames the effect is built once per frame (the
    proofs of one model share it)."""
    # by the frame's variables: Z3 makes one node of each named constant while it lives, so every
    # proof building the frame again (loira-table, termination, ... of one model) finds the effect
    # built; each entry keeps its frame's nodes alive, so no other term can take over their ids
    built: dict[tuple, tuple[tuple, Mapping[str, object]]] = {}

    def symbolic(pre):
        key = tuple((k, v.get_id()) for k, v in pre.items())
        got = built.get(key)
        if got is None:
            got = built[key] = (tuple(pre.values()), effect(pre))
        return got[1]

    def cached(pre):
        if any(isinstance(v, z3.ExprRef) for v in pre.values()):
            return symbolic(pre)
        return effect(pre)

    def relation(pre, post):
        ok = guard(pre)
        if not isinstance(ok, z3.ExprRef):   # a plain frame (the refinement check)
            if not ok:
                return False
            values = effect(pre)
            if values == post:   # the common case: the effect names every variable of the frame
                return True
            if not any(isinstance(v, z3.ExprRef) for v in values.values()):
                return all(post[k] == v for k, v in values.items())
        else:
            values = symbolic(pre)
        return z3.And([ok] + [post[k] == v for k, v in values.items()])
    return Action(name, relation, dict(params or {}), guard, cached)


def reads(term: object, frame: Frame) -> set[str]:
    """The names of ``frame``'s variables that the Z3 ``term`` reads."""
    if not isinstance(term, z3.ExprRef):
        return set()
    ids = {v.get_id(): k for k, v in frame.items()}
    out: set[str] = set()
    seen: set[int] = set()
    stack = [term]
    while stack:
        t = stack.pop()
        i = t.get_id()
        if i in seen:
            continue
        seen.add(i)
        if i in ids:
            out.add(ids[i])
        stack.extend(t.children())
    return out


def param_ranges(action: Action, frame: Frame) -> z3.BoolRef:
    """The action's parameters within their declared ranges (Z3 proves each step for every value
    the refinement check can bind)."""
    parts = []
    for name, values in action.params.items():
        if name not in frame:   # a parameter the relation does not read
            continue
        values = list(values)
        if values and values == list(range(values[0], values[-1] + 1)):
            parts.append(z3.And(frame[name] >= values[0], frame[name] <= values[-1]))
        else:
            parts.append(z3.Or([frame[name] == v for v in values]) if values else z3.BoolVal(False))
    return z3.And(parts) if parts else z3.BoolVal(True)


def _describe_model(model: z3.ModelRef, frames: Sequence[tuple[str, Frame]]) -> list[str]:
    lines = []
    for label, frame in frames:
        parts = []
        for name, const in frame.items():
            value = model.eval(const, model_completion=True)
            parts.append(f"{name}={value}")
        lines.append(f"{label}: " + ", ".join(parts))
    return lines


def _check(solver: z3.Solver, limits: Limits = NO_LIMITS, work: int | None = None) -> z3.CheckSatResult:
    # each check gets the work budget, and what is left of the user's time at the moment it starts
    limits.bound_z3(solver, work)
    return solver.check()


#: conjuncts of an invariant refuted together (see ``_refute``)
REFUTE_CHUNK = 8
#: once one part of a refutation is undecided the step can only fail or stay unknown: the parts left
#: are searched for a quick counterexample, each with this share of the work budget
AFTER_UNDECIDED = 16


def _refute(solver: z3.Solver, goal: z3.BoolRef, limits: Limits = NO_LIMITS) -> tuple[z3.CheckSatResult, str]:
    """Whether the solver's facts allow ``goal`` to fail: sat (the model shows how), unsat, or
    unknown, with Z3's reason for the first part it could not decide ('' when none). A conjunction
    is refuted one conjunct at a time on the same solver (push/pop): the same answer, found much
    faster for invariants of many parts (a 300-part table invariant under a swap of two racks: 14 s
    at once, under 1 s in parts of ``REFUTE_CHUNK``). After a part Z3 could not decide, the rest get
    1/``AFTER_UNDECIDED`` of the budget each: the step can now only fail or stay unknown, and the
    full budget for each part left would multiply the cost of an unknown by their number."""
    parts = goal.children() if z3.is_and(goal) else [goal]
    if len(parts) <= REFUTE_CHUNK:
        solver.add(z3.Not(goal))
        verdict = _check(solver, limits)
        return verdict, (solver.reason_unknown() if verdict == z3.unknown else "")
    undecided, reason = None, ""
    for i in range(0, len(parts), REFUTE_CHUNK):
        solver.push()
        solver.add(z3.Not(z3.And(parts[i:i + REFUTE_CHUNK])))
        verdict = _check(solver, limits, None if undecided is None else Z3_WORK // AFTER_UNDECIDED)
        if verdict == z3.sat:
            return verdict, ""     # the model stays for the caller (no pop)
        if verdict != z3.unsat and undecided is None:
            undecided, reason = verdict, solver.reason_unknown()
        solver.pop()
    return (undecided, reason) if undecided is not None else (z3.unsat, "")


def _unknown(solver, limits: Limits, where: str = "", reason: str | None = None) -> str:
    """Why Z3 gave up (``reason``, else the solver's last), in the user's words (its work budget, the
    user's time limit), after ``where``."""
    return f"{where}{limits.z3_unknown(solver.reason_unknown() if reason is None else reason)}"


def prove(name: str, frame: FrameFactory, claim: StatePredicate,
          assumptions: StatePredicate | None = None, *, detail: str = "",
          limits: Limits | None = None) -> PropertyResult:
    """Prove that ``assumptions(s) => claim(s)`` for every frame ``s`` (validity, one solver).

    With ``limits``, a proof that would start after the deadline is reported not run (unknown)."""
    limits = limits or NO_LIMITS
    if limits.expired():
        return limits.not_run(name, "z3")
    start = time.perf_counter()
    s = frame("")
    solver = z3.Solver()
    if assumptions is not None:
        solver.add(assumptions(s))
    solver.add(z3.Not(claim(s)))
    verdict = _check(solver, limits)
    seconds = time.perf_counter() - start
    if verdict == z3.unsat:
        return PropertyResult(name, HOLDS, detail, kind="z3", seconds=seconds)
    if verdict == z3.sat:
        return PropertyResult(name, FAILS, detail or "a situation violates the claim",
                              _describe_model(solver.model(), [("situation", s)]), "z3", seconds)
    return PropertyResult(name, UNKNOWN, _unknown(solver, limits), kind="z3",
                          seconds=seconds)


def check_inductive(name: str, frame: FrameFactory, init: StatePredicate, invariant: StatePredicate,
                    actions: Sequence[Action], *, assumptions: StatePredicate | None = None,
                    detail: str = "", limits: Limits | None = None) -> PropertyResult:
    """Prove ``invariant`` holds initially and is preserved by every action (each its own solver).

    ``assumptions`` (e.g. type bounds, constants of the ruleset) hold in every frame. With
    ``limits``, no solver starts after the deadline: the result is then unknown.
    """
    limits = limits or NO_LIMITS
    if limits.expired():
        return limits.not_run(name, "z3")
    start = time.perf_counter()
    assume = assumptions or (lambda _f: z3.BoolVal(True))
    pre, post = frame(""), frame("'")
    # a function action constrains only the post variables the invariant reads (sound: weaker)
    claim_reads = reads(invariant(post), post)

    solver = z3.Solver()
    solver.add(assume(pre), init(pre), z3.Not(invariant(pre)))
    verdict = _check(solver, limits)
    if verdict == z3.sat:
        return PropertyResult(name, FAILS, "fails in an initial state",
                              _describe_model(solver.model(), [("initial", pre)]), "z3",
                              time.perf_counter() - start)
    if verdict != z3.sat and verdict != z3.unsat:
        return PropertyResult(name, UNKNOWN, _unknown(solver, limits, "initiation: "),
                              kind="z3", seconds=time.perf_counter() - start)
    # one solver for every action (pushed and popped): the shared part is asserted once; the
    # invariant after is refuted a few conjuncts at a time (``_refute``)
    solver = z3.Solver()
    solver.add(assume(pre), assume(post), invariant(pre))
    for action in actions:
        if limits.expired():
            return PropertyResult(name, UNKNOWN, f"not finished: the time limit was reached before "
                                  f"action {action.name} was checked", kind="z3",
                                  seconds=time.perf_counter() - start)
        solver.push()
        solver.add(param_ranges(action, pre), action.sliced(claim_reads)(pre, post))
        verdict, reason = _refute(solver, invariant(post), limits)
        if verdict == z3.sat:
            return PropertyResult(name, FAILS, f"not preserved by action {action.name}",
                                  _describe_model(solver.model(), [("before", pre), ("after", post)]),
                                  "z3", time.perf_counter() - start, {"action": action.name})
        if verdict != z3.unsat:
            return PropertyResult(name, UNKNOWN, _unknown(solver, limits, f"{action.name}: ", reason),
                                  kind="z3", seconds=time.perf_counter() - start)
        solver.pop()
    steps = ", ".join(a.name for a in actions)
    return PropertyResult(name, HOLDS, detail or f"holds initially and preserved by: {steps}",
                          kind="z3", seconds=time.perf_counter() - start)


def optimize_bound(name: str, frame: FrameFactory, objective: Callable[[Frame], z3.ArithRef],
                   constraints: StatePredicate, *,
                   limits: Limits | None = None
                   ) -> tuple[PropertyResult, int | None, int | None, Mapping[str, list[str]]]:
    """Tightest minimum and maximum of ``objective`` subject to ``constraints``, with Z3's optimiser.

    Returns the result, the minimum, the maximum and a witness situation for each (with
    ``limits``: unknown and no bounds when the deadline comes first).
    """
    limits = limits or NO_LIMITS
    if limits.expired():
        return limits.not_run(name, "z3"), None, None, {}
    start = time.perf_counter()
    bounds: dict[str, int | None] = {}
    witnesses: dict[str, list[str]] = {}
    for direction in ("min", "max"):
        if limits.expired():
            return (PropertyResult(name, UNKNOWN, f"not finished: the time limit was reached before the "
                                   f"{direction}imum", kind="z3", seconds=time.perf_counter() - start),
                    None, None, {})
        s = frame("")
        opt = z3.Optimize()
        limits.bound_z3(opt)
        opt.add(constraints(s))
        goal = objective(s)
        handle = opt.minimize(goal) if direction == "min" else opt.maximize(goal)
        verdict = opt.check()
        if verdict != z3.sat:
            why = _unknown(opt, limits, "optimiser: ") if verdict == z3.unknown else f"optimiser: {verdict}"
            return (PropertyResult(name, UNKNOWN, why, kind="z3",
                                   seconds=time.perf_counter() - start), None, None, {})
        value = (opt.lower(handle) if direction == "min" else opt.upper(handle))
        if not z3.is_int_value(value):
            return (PropertyResult(name, UNKNOWN, f"unbounded {direction}imum", kind="z3",
                                   seconds=time.perf_counter() - start), None, None, {})
        bounds[direction] = value.as_long()
        witnesses[direction] = _describe_model(opt.model(), [(f"{direction} witness", s)])
    result = PropertyResult(name, HOLDS, f"tightest bounds [{bounds['min']}, {bounds['max']}]",
                            kind="z3", seconds=time.perf_counter() - start,
                            data={"min": bounds["min"], "max": bounds["max"]})
    return result, bounds["min"], bounds["max"], witnesses
