"""Proofs bound to the executable model: a Z3 proof plus a refinement check of the real rules.

A :class:`RuleProof` is a small abstract model in the manner of TLA+ and mypyvy: a frame (named
Z3 constants), ``Init``, one relation per action, and the claimed invariant -- all written with
``proofs.logic`` so that each can be evaluated on Z3 terms *and* on plain values. It also declares
its **abstraction** (a TLA+ refinement mapping) in two parts:

* ``abstraction(state)``: the frame a real model state maps to (a game over maps to a frame too,
  or to None when the proof declares ``exits``);
* ``bind(state, move, actor)``: **what the move is**, read off the state before and the move alone
  (the decision taken, the die face, the card drawn, the victim picked) -- never off the state
  after: the abstract action it is and that action's parameters (:class:`Bound`). ``actor`` is the
  model's ``current_player`` before the move (``CHANCE`` for a chance outcome), passed to the
  relation as the parameter ``actor`` so a relation can say who may act.

and, for chance nodes, ``chance(frame)``: the distribution the rule text states (a uniform die, a
draw weighted by counts), as probabilities of bound moves; for decision nodes, ``options(frame)``:
the moves the rule text allows the player to move (who may be targeted, what may be discarded), as
bound moves -- the model's legal actions, bound, must be exactly that set.

``check_proof`` establishes, and the property holds only when all do:

1. **the abstract proof** (Z3, with this configuration's own parameters): Init implies the
   invariant, and every action relation preserves it (``harness.check_inductive``); an optional
   ranking function decreases on the actions that must make progress; step claims hold;
2. **the refinement**, on every transition of the evidence (the complete exploration, or seeded
   sampled plays): the initial state maps to an Init frame; each move is bound to exactly one
   abstract action with its parameters, whose relation must admit the step from the frame before
   to the frame after -- a step that only another action, another seat or another parameter value
   would explain is a failure; every mapped frame satisfies the proof's typing assumptions and the
   invariant; at every chance node the model's outcome probabilities, summed by bound move, equal
   the proof's law exactly; at every decision node the model's legal moves, bound, are exactly
   the proof's options.

A deterministic move is best stated as a function (``harness.function_action``): a step that
deviates is then narrated by the variables that differ, and Z3 is given only the equations of the
variables a claim reads. A proof may assume another proof's invariant (``lemma``: the other proof,
run beside it, checks it); an invariant made of parts (``logic.Conjunction``) is checked on the
frames part by part, each part once per distinct reading of its variables.

A rule change in ``model/`` fails the property and narrates the concrete transition: a shortest
play reaching it, the move and what the proof calls it, the frames before and after, and (to
point at the broken rule) the action and parameters that would have explained the step.
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from operator import itemgetter
from typing import Any, Callable, Iterator, Mapping, Sequence

from ruleproof.model.limits import NO_LIMITS, Limits
from ruleproof.model.properties import EXPLORATION, SAMPLES, Context, Property, draw_plays
from ruleproof.model.protocol import CHANCE, Game
from ruleproof.model.results import FAILS, HOLDS, PROVED, UNKNOWN, PropertyResult

from ruleproof.proofs.harness import Action, FrameFactory, StatePredicate, check_inductive, param_ranges, reads
from ruleproof.proofs.logic import And

Values = Mapping[str, Any]
#: a model state's frame (or, for a projected proof, its frames by label); None: outside the frame
Abstraction = Callable[[Any], "Values | Mapping[str, Values] | None"]


@dataclass(frozen=True, eq=False)
class Bound:
    """What one real move is in the proof's model: an action name and its parameter values."""
    action: str
    params: Mapping[str, int] = field(default_factory=dict)

    def key(self) -> tuple:
        # (computed once: a bound move is hashed and compared several times -- its step, the legal
        # set, the chance law; its params are not changed once it is made)
        got = self.__dict__.get("_key")
        if got is None:
            got = (self.action, tuple(sorted(self.params.items())) if self.params else ())
            object.__setattr__(self, "_key", got)
        return got

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Bound) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def text(self) -> str:
        args = ", ".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        return f"{self.action}({args})"


#: the bound name of a move that must leave the frame unchanged
STUTTER = "stutter"
#: ``bind(state, move, actor) -> Bound``
Binding = Callable[[Any, Any, int], Bound]
#: ``chance(frame) -> {Bound: probability}``: the rule text's distribution at a chance node
ChanceLaw = Callable[[Any], Mapping[Bound, Fraction]]


@dataclass(frozen=True)
class Exit:
    """A way to leave the frame (the game ends): the move must be bound to this exit's name, and
    ``relation(pre, end)`` must hold, where ``pre`` is the frame before with the move's parameters
    and ``end`` the proof's ``ending`` of the state after (who won, why)."""
    name: str
    relation: Callable[[Values, Values], Any]
    params: Mapping[str, Sequence[int]] = field(default_factory=dict)


@dataclass(frozen=True)
class StepClaim:
    """A property of single steps (a shield keeps its player's gift, a potential never falls):
    Z3 proves that every listed action relation (all of them when ``actions`` is empty) implies
    ``claim(pre, post)`` under the invariant; the refinement check then makes it a property of every
    real transition, since each one is bound to a step of one relation."""
    text: str
    claim: Callable[[Values, Values], Any]
    actions: Sequence[str] = ()


#: steps remembered without one met again before the pass stops remembering them
STEPS_TRIAL = 8_192

#: on sampled plays the options (legal-move sets) are compared at this many decisions
OPTIONS_SAMPLED = 100


@dataclass(frozen=True)
class RuleProof:
    name: str
    #: the claim, in words (shown when it holds)
    claim: str
    frame: FrameFactory
    #: what the frame means, in words: how each variable is read off a model state
    abstraction_doc: str
    abstraction: Abstraction
    init: StatePredicate
    invariant: StatePredicate
    actions: Sequence[Action]
    #: what each real move is (see the module docstring); every proof binds its moves
    bind: Binding | None = None
    #: the rule text's chance law (None: the proof says nothing of chance nodes' weights)
    chance: ChanceLaw | None = None
    #: the moves the rules allow at a decision state, as bound moves (None: the proof says nothing
    #: of eligibility): the model's legal actions, bound, must be exactly this set (at every decision
    #: of an exploration; at the first ``OPTIONS_SAMPLED`` decisions of sampled plays, where a
    #: full-size state may have thousands of moves)
    options: Callable[[Any], "set[Bound] | frozenset[Bound]"] | None = None
    exits: Sequence[Exit] = ()
    #: the abstraction of a state outside the frame (the game over), read by the exits
    ending: Callable[[Any], Values] | None = None
    #: type bounds and constants that hold in every frame (Z3 assumes them; the refinement check
    #: checks them on every mapped frame)
    assumptions: StatePredicate | None = None
    #: the invariant of another proof of the same model (a lemma): Z3 assumes it, and it is checked
    #: on the frames by that proof, which must be run beside this one
    lemma: StatePredicate | None = None
    #: optional ranking function with the actions that must decrease it (progress proofs)
    ranking: Callable[[Values], Any] | None = None
    decreasing: Sequence[str] = ()
    #: how much each decreasing action lowers the ranking at least
    decrease: int = 1
    #: actions that may raise the ranking (they start what the claim counts anew: a new turn, a new
    #: round); every other action must not raise it
    resets: Sequence[str] = ()
    #: the abstraction returns frames by label (e.g. one per card kind), each checked on its own
    projected: bool = False
    #: properties of single steps, proved on the action relations (see :class:`StepClaim`)
    step_claims: Sequence[StepClaim] = ()
    #: the rule sentence(s) the proof's model states, quoted with their source
    sentence: str = ""
    #: False when the abstract model is too big for Z3 within verify's time (a full-size table):
    #: Z3 is not asked, and the result says so; the mapping, the typing and the invariant on every
    #: mapped frame, the chance laws and the options are checked as always
    prove: bool = True


# ---- the check --------------------------------------------------------------------------------------

def _frame_text(values: Values) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


def _frames(proof: RuleProof, state: Any) -> Mapping[str, Values] | None:
    got = proof.abstraction(state)
    if got is None:
        return None
    return got if proof.projected else {"": got}


#: parameter bindings tried, at most, to say which move would have explained a failing step (the
#: narration only: the verdict never depends on it)
EXPLAIN_BUDGET = 20_000


def _bindings(params: Mapping[str, Sequence[int]]) -> Iterator[dict[str, Any]]:
    names = list(params)
    for combo in itertools.product(*(params[n] for n in names)):
        yield dict(zip(names, combo))


class _Refinement:
    """One pass of the mapping over the evidence, with caches (most steps repeat). It checks every
    move's binding, relation, the typing of every frame, chance laws and legal-move sets, and
    records each distinct frame met with the first transition reaching it: proofs that share the
    abstraction, bindings and relations (several claims about one abstract model) share the pass,
    and each checks its own invariant on the recorded frames."""

    def __init__(self, proof: RuleProof, game: Game):
        self.proof, self.game = proof, game
        self.actions = {a.name: a for a in proof.actions}
        self.counts = {"transitions": 0, "steps": 0, "stutters": 0, "exits": 0, "chance_nodes": 0,
                       "decision_nodes": 0}
        self.steps_ok: set = set()
        #: whether steps are remembered: dropped after ``STEPS_TRIAL`` of them without a repeat
        self.steps_memo, self.steps_hit = True, False
        self.typed: set = set()
        #: id(frame) -> (frame, label) of the frames typed: the abstraction of a state reached again
        #: is often the very same object (``_memo``), known without reading its items
        self.typed_objects: dict[int, tuple[Values, str]] = {}
        self.options_ok: set = set()
        self.laws: dict[int, dict] = {}
        self.by_action: dict[str, int] = {}
        #: (transition index, label, frame, transition) per distinct frame, in the order met
        self.frames: list[tuple[int, str, Values, Any]] = []
        self.parts = _Parts(proof)

    # -- frames --
    def typing_problem(self, label: str, f: Values, index: int, tr: Any) -> str | None:
        """None when a mapped frame meets the typing assumptions (it is then recorded)."""
        known = self.typed_objects.get(id(f))
        if known is not None and known[0] is f and known[1] == label:
            return None
        # (the names in order and the values: equal exactly when the items are, without a pair each)
        key = (label, tuple(f), tuple(f.values()))
        if key in self.typed:
            self.typed_objects[id(f)] = (f, label)
            return None
        self.typed.add(key)
        self.typed_objects[id(f)] = (f, label)
        self.frames.append((index, label, f, tr))
        # (a proof that binds its moves types its frame alone; older ones type their parameters too)
        if self.proof.assumptions is not None and self.proof.bind is not None and \
                not self.parts.holds(self.proof.assumptions, label, f):
            tag = f" [{label}]" if label else ""
            return f"the frame{tag} breaks the proof's typing assumptions: {_frame_text(f)}"
        return None

    # -- one step --
    def explain(self, pre: Values, post: Values, budget: int | None = None) -> list[str]:
        """Every bound move that would admit this step (to point at the rule that changed); with a
        ``budget``, at most that many parameter bindings are tried in all (an action with many
        parameters has a product of ranges too large to try in full: 2^22 ways to set candidates
        aside), and a last entry says the search stopped."""
        out = []
        tried = 0
        # the actions with fewest bindings first, so that a budget cuts only the largest searches
        for a in sorted(self.proof.actions, key=lambda a: math.prod(len(r) for r in a.params.values())):
            for params in _bindings(a.params):
                tried += 1
                if budget is not None and tried > budget:
                    return out + [f"(the search for a move that explains it stopped after {budget:,} bindings)"]
                if a.relation({**pre, **params}, post):
                    out.append(Bound(a.name, params).text())
                    break
        return out

    def step_problem(self, bound: Bound, actor: int, pre: Values, post: Values) -> str | None:
        if bound.action == STUTTER:
            return None if pre == post else "it is bound as a move that changes nothing of the frame"
        action = self.actions.get(bound.action)
        if action is None:
            return f"the proof's model has no action {bound.action!r}"
        for name, value in bound.params.items():
            if name in action.params and value not in action.params[name]:
                return f"parameter {name}={value} lies outside the range the proof covers"
        # a function is cheaper to evaluate than to remember; other relations are cached while the
        # cache serves (a model whose frames hold the whole state never repeats a step: Presentes
        # missed all of 151,219, each key ~4 kB)
        key = None if action.effect is not None or not self.steps_memo else \
            (bound.key(), actor, tuple(pre.items()), tuple(post.items()))
        if key is not None:
            if key in self.steps_ok:
                self.steps_hit = True
                return None
            if not self.steps_hit and len(self.steps_ok) >= STEPS_TRIAL:
                self.steps_memo, key = False, None
                self.steps_ok.clear()
        env = {**pre, **bound.params, "actor": actor}
        if not action.relation(env, post):
            differs = action.differences(env, post)
            if differs:
                return (f"the relation of {bound.text()} does not allow this step: "
                        + "; ".join(differs[:8]) + (" ..." if len(differs) > 8 else ""))
            if action.effect is not None:
                return f"{bound.text()} is not allowed here (its guard fails)"
            return f"the relation of {bound.text()} does not allow this step"
        if key is not None:
            self.steps_ok.add(key)
        return None

    # -- decision nodes --
    def options_problem(self, state: Any, frames: Mapping[str, Values], actor: int,
                        binds: dict | None = None) -> str | None:
        """The model's legal actions, bound, against the moves the proof's rules allow (each move's
        binding also kept in ``binds``, by move: the pass binds the node's transitions with it)."""
        proof, game = self.proof, self.game
        moves = list(game.legal_actions(state))
        legal = {}
        for a in moves:
            b = proof.bind(state, a, actor)
            legal[b] = a
            if binds is not None:
                _keep(binds, a, b)
        if len(legal) < len(moves):   # two moves the rules do not tell apart
            seen: dict[Bound, Any] = {}
            for a in moves:
                b = proof.bind(state, a, actor)
                if b in seen:
                    return (f"two of the model's moves are the same move of the rules, {b.text()}: "
                            f"{game.describe_action(state, seen[b])!r} and {game.describe_action(state, a)!r}")
                seen[b] = a
        key = (actor, tuple((tuple(f), tuple(f.values())) for f in frames.values()), tuple(b.key() for b in legal))
        if key in self.options_ok:
            return None
        allowed = set(proof.options(frames if proof.projected else frames[""]))
        self.counts["decision_nodes"] += 1
        extra = [b.text() for b in legal if b not in allowed]
        missing = [b.text() for b in allowed if b not in legal]
        if extra or missing:
            return ("the legal moves differ from those the rules allow: "
                    + (f"offered but not allowed: {', '.join(sorted(extra))}" if extra else "")
                    + ("; " if extra and missing else "")
                    + (f"allowed but not offered: {', '.join(sorted(missing))}" if missing else ""))
        self.options_ok.add(key)
        return None

    # -- chance nodes --
    def chance_problem(self, state: Any, frames: Mapping[str, Values], binds: dict | None = None) -> str | None:
        """The model's chance outcomes summed by bound move, against the proof's law (each
        outcome's binding also kept in ``binds``, as for the options)."""
        proof, game = self.proof, self.game
        self.counts["chance_nodes"] += 1
        law = proof.chance(frames if proof.projected else frames[""])
        stated = self.laws.get(id(law))
        if stated is None or stated[0] is not law:
            stated = (law, {b.key(): p if p.__class__ is Fraction else Fraction(p) for b, p in law.items() if p})
            if len(self.laws) < 4096:
                self.laws[id(law)] = stated
        stated = stated[1]
        model: dict[tuple, Any] = {}
        bound_of = {}
        for outcome, p in game.chance_outcomes(state):
            b = proof.bind(state, outcome, CHANCE)
            if binds is not None:
                _keep(binds, outcome, b)
            k = b.key()
            bound_of[k] = b
            model[k] = model[k] + p if k in model else p
        if model == stated:
            return None
        names = {k: b.text() for k, b in bound_of.items()} | {b.key(): b.text() for b in law}
        diff = [f"{names[k]}: the model {model.get(k, 0)}, the rules {stated.get(k, 0)}"
                for k in sorted(set(model) | set(stated), key=str) if model.get(k, 0) != stated.get(k, 0)]
        return "the chance outcomes' probabilities differ from the rules' law: " + "; ".join(diff)


def _keep(binds: dict, move: Any, bound: Bound) -> None:
    """``binds[move] = bound`` where the move can be a key (a move of a list is bound again)."""
    try:
        binds[move] = bound
    except TypeError:
        pass


def _share_key(proof: RuleProof) -> tuple:
    """What a mapping pass depends on (all but the invariant), by identity."""
    return (id(proof.abstraction), id(proof.bind), id(proof.chance), id(proof.options), id(proof.assumptions),
            id(proof.ending), tuple(id(e) for e in proof.exits), proof.projected,
            tuple((a.name, id(a.relation), tuple((k, tuple(v)) for k, v in a.params.items())) for a in proof.actions))


def _mapping_pass(proof: RuleProof, ctx: Context) -> dict[str, Any]:
    """Every transition of the evidence through the proof's mapping (see :class:`_Refinement`):
    the first problem met, as (transition index, narration), the frames met, the counts."""
    game, limits = ctx.game, ctx.limits
    run = _Refinement(proof, game)
    counts = run.counts
    out: dict[str, Any] = {"failure": None, "stop": "", "run": run, "counts": counts,
                           "keep": (proof.abstraction, proof.bind, proof.chance, proof.options, list(proof.actions))}
    seen_nodes: set = set()
    options_left = OPTIONS_SAMPLED if ctx.source == SAMPLES else None
    last: Any = object()
    before: Any = None
    actor, fresh = CHANCE, False

    def fail(n: int, lines: list[str]) -> dict[str, Any]:
        out["failure"] = (n, lines)
        return out
    for n, tr in enumerate(ctx.transitions()):
        if n & 1023 == 0 and limits.expired():
            out["stop"] = "time limit reached"
            return out
        counts["transitions"] += 1
        if tr.before is not last:   # the moves of one state come together: map it once
            last, before, actor = tr.before, _frames(proof, tr.before), game.current_player(tr.before)
            fresh = True
            binds: dict = {}   # the node's moves bound by its legal set or chance law, by move
        if before is None:
            continue   # a state outside the frame (after the game ended): nothing to relate
        if fresh and proof.bind is not None and ((actor >= 0 and proof.options is not None) or
                                                 (actor == CHANCE and proof.chance is not None)):
            fresh = False
            state_key = game.key(tr.before)
            if state_key not in seen_nodes:
                seen_nodes.add(state_key)
                if actor >= 0 and options_left is not None and options_left <= 0:
                    problem = None
                elif actor >= 0:
                    if options_left is not None:
                        options_left -= 1
                    problem = run.options_problem(tr.before, before, actor, binds)
                    if problem:
                        return fail(n, tr.narrate() + [f"at this decision ({game.seat_name(actor)} to move in "
                                                        f"{game.describe_state(tr.before)}): {problem}"])
                else:
                    problem = run.chance_problem(tr.before, before, binds)
                    if problem:
                        return fail(n, tr.narrate() + [f"at this chance node ({game.describe_state(tr.before)}): "
                                                        f"{problem}"])
        bound = None
        if proof.bind is not None:
            try:
                bound = binds.get(tr.move)
            except TypeError:   # (a move that cannot be a key)
                pass
            if bound is None:
                bound = proof.bind(tr.before, tr.move, actor)

        def then() -> str:
            called = f" (the proof's model: {bound.text()})" if bound else ""
            return (f"then: {game.seat_name(actor)}: {game.describe_action(tr.before, tr.move)}{called} -> "
                    f"{game.describe_state(tr.after)}")
        after = _frames(proof, tr.after)
        if after is None:
            problem = _exit_problem(proof, bound, before, tr.after, actor)
            if problem:
                return fail(n, tr.narrate() + [then(), problem])
            counts["exits"] += 1
            continue
        for label, pre in before.items():
            post = after.get(label)
            tag = f" [{label}]" if label else ""
            if post is None:
                return fail(n, tr.narrate() + [then(), f"the projection{tag} disappears"])
            problem = run.typing_problem(label, post, n, tr)
            if problem:
                return fail(n, tr.narrate() + [then(), problem])
            if bound is None:     # a proof without a binding: any relation, any parameters
                if pre == post:
                    counts["stutters"] += 1
                    continue
                if not run.explain(pre, post):
                    return fail(n, tr.narrate() + [then(), f"frame before{tag}: {_frame_text(pre)}",
                                                   f"frame after{tag}:  {_frame_text(post)}",
                                                   "no action relation of the proof allows this step ("
                                                   + ", ".join(a.name for a in proof.actions) + ")"])
                counts["steps"] += 1
                continue
            problem = run.step_problem(bound, actor, pre, post)
            if problem:
                others = [e for e in run.explain({**pre, "actor": actor}, post, EXPLAIN_BUDGET)
                          if e != bound.text()]
                stopped = [e for e in others if e.startswith("(")]
                others = [e for e in others if not e.startswith("(")]
                hint = (f"the step would be {' or '.join(others[:3])}" if others else
                        "no action of the proof's model allows this step") + "".join(" " + e for e in stopped)
                return fail(n, tr.narrate() + [then(), f"frame before{tag}: {_frame_text(pre)}",
                                               f"frame after{tag}:  {_frame_text(post)}", f"{problem}; {hint}"])
            if pre == post:
                counts["stutters"] += 1
            else:
                counts["steps"] += 1
        if bound is not None:
            run.by_action[bound.action] = run.by_action.get(bound.action, 0) + 1
    counts["by_action"] = dict(sorted(run.by_action.items()))
    return out


def refinement_check(proof: RuleProof, ctx: Context) -> tuple[list[str] | None, dict[str, int], str]:
    """Check the mapping on every transition of the context's evidence; returns (failure trace or
    None, counts, why it stopped early or ""). A pass is shared by the proofs of one abstract model
    (see :class:`_Refinement`); each checks its own invariant on the frames met."""
    game = ctx.game
    init_frames = _frames(proof, game.initial_state())
    if init_frames is None:
        return ["the model's initial state lies outside the proof's frame"], {}, ""
    for label, f in init_frames.items():
        tag = f" ({label})" if label else ""
        if proof.assumptions is not None and proof.bind is not None and not proof.assumptions(f):
            return [f"the model's initial state{tag} breaks the proof's typing assumptions: {_frame_text(f)}"], {}, ""
        if not proof.init(f):
            return [f"the model's initial state is not an Init state of the proof{tag}: {_frame_text(f)}"], {}, ""
        if not proof.invariant(f):
            return [f"the invariant fails in the model's initial state{tag}: {_frame_text(f)}"], {}, ""
    passes = ctx.cache.setdefault("refinement passes", {})
    key = _share_key(proof)
    record = passes.get(key)
    if record is None:   # (a pass a time limit stopped is not run again: the scheduler falls back)
        record = passes[key] = _mapping_pass(proof, ctx)
    counts = dict(record["counts"])
    failure = record["failure"]
    parts = ctx.cache.setdefault(("refinement parts", id(proof.frame)), _Parts(proof))
    met = record["run"].frames
    labelled = record.get("labelled")
    if labelled is None:
        labelled = record["labelled"] = [(label, f) for _, label, f, _ in met]
    if failure is not None:   # (a step the rules do not make is told as such, not by the invariant it breaks)
        labelled = labelled[:next((j for j, m in enumerate(met) if m[0] >= failure[0]), len(met))]
    # the invariant on the frames met, once per pass and invariant (the tie-break reads loira-table's
    # pass and invariant again after loira-table)
    checked = record.setdefault("invariants", {})
    known = checked.get(id(proof.invariant))
    if known is not None and known[0] is proof.invariant and known[1] == len(labelled):
        bad = known[2]
    else:
        bad = parts.first_failure(proof.invariant, labelled)
        checked[id(proof.invariant)] = (proof.invariant, len(labelled), bad)
    if bad is not None:
        _, label, f, tr = met[bad]
        tag = f" [{label}]" if label else ""
        actor = game.current_player(tr.before)
        called = f" (the proof's model: {proof.bind(tr.before, tr.move, actor).text()})" if proof.bind else ""
        return tr.narrate() + [f"then: {game.seat_name(actor)}: {game.describe_action(tr.before, tr.move)}"
                               f"{called} -> {game.describe_state(tr.after)}",
                               f"the invariant fails on the frame{tag}: {_frame_text(f)}"], counts, ""
    if failure is not None:
        return failure[1], counts, ""
    return None, counts, record["stop"]


class _Parts:
    """A claim checked on many frames, part by part (``logic.Conjunction``): each part once per
    distinct reading of the variables it reads (a part of no variable once)."""

    def __init__(self, proof: RuleProof):
        self.proof = proof
        self.reading: dict[int, Any] = {}
        #: id(part) -> label -> the readings the part holds on
        self.done: dict[int, dict[str, set]] = {}
        #: id(part) -> the names of the variables it reads, sorted
        self.names: dict[int, tuple[str, ...]] = {}
        #: (frames, their count, their _Table): the last frames read part by part
        self.table: tuple | None = None
        #: id(claim) -> (claim, its parts each with its reading and its readings done)
        self.plans: dict[int, tuple[Any, tuple]] = {}

    def _plan(self, claim: StatePredicate) -> tuple:
        got = self.plans.get(id(claim))
        if got is not None and got[0] is claim:
            return got[1]
        plan = []
        sym = None
        for part in getattr(claim, "parts", (claim,)):
            read = self.reading.get(id(part))
            if read is None:
                if sym is None:   # (one frame of Z3 constants to read every new part's variables)
                    sym = self.proof.frame("")
                names = sorted(reads(part(sym), sym))
                read = self.reading[id(part)] = (itemgetter(*names) if len(names) > 1 else
                                                 (lambda f, x=names[0]: f[x]) if names else (lambda f: ()))
                self.names[id(part)] = tuple(names)
                self.done[id(part)] = {}
            plan.append((part, read, self.done[id(part)]))
        self.plans[id(claim)] = (claim, tuple(plan))   # (it keeps the claim and its parts alive)
        return tuple(plan)

    @staticmethod
    def _part_holds(part, read, done: dict[str, set], label: str, f: Values) -> bool:
        known = done.get(label)
        if known is None:
            known = done[label] = set()
        reading = read(f)
        if reading in known:
            return True
        if not part(f):
            return False
        known.add(reading)
        return True

    def holds(self, claim: StatePredicate, label: str, f: Values) -> bool:
        return all(self._part_holds(part, read, done, label, f) for part, read, done in self._plan(claim))

    def first_failure(self, claim: StatePredicate, frames: Sequence[tuple[str, Values]]) -> int | None:
        """The position of the first of ``frames`` (label, frame) where the claim fails, or None:
        what ``holds`` on each frame in turn finds, read part by part over all the frames."""
        bad = len(frames)
        labels = {label for label, _ in frames}
        alone = [f for _, f in frames]
        table = None
        try:
            for part, read, done in self._plan(claim):
                if len(labels) != 1:   # a projected proof: each frame with its label
                    bad = next((j for j in range(bad) if not self._part_holds(part, read, done, *frames[j])), bad)
                    continue
                # one label: the readings in a row, each distinct one at its first frame (the
                # frames a row of part calls would test, found by numpy, else in a row)
                known = done.get(frames[0][0])
                if known is None:
                    known = done[frames[0][0]] = set()
                if table is None:   # (the frames of a pass are read by each invariant in turn)
                    memo = self.table
                    if memo is not None and memo[0] is frames and memo[1] == len(frames):
                        table = memo[2]
                    else:
                        table = _Table(alone)
                        self.table = (frames, len(frames), table)
                firsts = table.firsts(self.names[id(part)], bad)
                rows = enumerate(map(read, alone[:bad])) if firsts is None else \
                    ((j, read(alone[j])) for j in firsts)   # (row by row, or each first reading)
                for j, reading in rows:
                    if reading in known:
                        continue
                    if not part(alone[j]):
                        bad = j
                        break
                    known.add(reading)
        except Exception:   # noqa: BLE001 -- a part that raises: frame by frame, to raise where holds does
            return next((j for j, (label, f) in enumerate(frames) if not self.holds(claim, label, f)), None)
        return bad if bad < len(frames) else None


_INT_CLASSES = frozenset((int, bool))


class _Table:
    """Frames of one label as a matrix of ints (one row per frame, one column per variable), when
    every frame names the same variables in the same order and holds small ints only: a part's
    distinct readings are then found by numpy, each at its first frame."""

    def __init__(self, frames: Sequence[Values]):
        self.matrix = None
        if not frames:
            return
        names = tuple(frames[0])
        if not all(map(names.__eq__, map(tuple, frames))):
            return
        import numpy as np
        values = itertools.chain.from_iterable
        # ints and bools only (a bool equals its int, in a set too): numpy would truncate a float
        # or a Fraction, so any other value leaves the readings to be compared in Python
        try:
            if not all(map(_INT_CLASSES.__contains__, map(type, values(map(dict.values, frames))))):
                return
        except TypeError:   # a frame that is another mapping
            return
        try:   # (C loops over the values, no row of Python objects)
            flat = np.fromiter(values(map(dict.values, frames)), np.int64, count=len(frames) * len(names))
        except OverflowError:   # an int beyond 64 bits
            return
        matrix = flat.reshape(len(frames), len(names))
        self.matrix = matrix
        self.column = {x: i for i, x in enumerate(names)}
        self.low = matrix.min(axis=0)
        # (each column's count of values, in Python ints: max - min may not fit 64 bits)
        self.span = [int(hi) - int(lo) + 1 for lo, hi in zip(self.low.tolist(), matrix.max(axis=0).tolist())]

    def firsts(self, names: Sequence[str], end: int) -> list[int] | None:
        """The positions among the first ``end`` frames where a new reading of ``names`` appears,
        in order (None when the frames are not a table or the readings do not fit one int64)."""
        if self.matrix is None:
            return None
        if end == 0:
            return []
        if not names:
            return [0]
        import numpy as np
        cols = [self.column[x] for x in names]
        code = np.zeros(end, np.int64)
        scale = 1
        for c in cols:
            span = self.span[c]
            if scale * span >= 1 << 62:
                return None
            code += (self.matrix[:end, c] - self.low[c]) * scale
            scale *= span
        _, first = np.unique(code, return_index=True)
        first.sort()
        return first.tolist()


def _exit_problem(proof: RuleProof, bound: Bound | None, before: Mapping[str, Values], after_state: Any,
                  actor: int) -> str | None:
    if not proof.exits:
        return "this move leaves the proof's frame, and the proof declares no exit"
    end = proof.ending(after_state) if proof.ending else {}
    for pre in before.values():
        if bound is not None:
            ex = next((e for e in proof.exits if e.name == bound.action), None)
            if ex is None:
                return (f"this move, {bound.text()}, leaves the proof's frame (the game ends: "
                        f"{_frame_text(end) or 'no ending read'}), but it is not an exit of the proof")
            if not ex.relation({**pre, **bound.params, "actor": actor}, end):
                return (f"the exit {bound.text()} does not allow this ending from {_frame_text(pre)}: "
                        f"{_frame_text(end) or '(outside the frame)'}")
            continue
        if not any(e.relation({**pre, **params, "actor": actor}, end)
                   for e in proof.exits for params in _bindings(e.params)):
            return ("this move leaves the proof's frame, but no exit of the proof allows it from "
                    + _frame_text(pre))
    return None


# ---- the property --------------------------------------------------------------------------------------

def check_proof(proof: RuleProof, ctx: Context) -> PropertyResult:
    """The Z3 proof and its refinement check on the context's evidence (see the module docstring)."""
    limits = ctx.limits
    if limits.expired():
        return limits.not_run(proof.name, "z3")
    start = time.perf_counter()
    scope = ctx.scope
    # proofs that state the same abstract model and invariant (and differ in their ranking) prove
    # it once per evidence
    key = ("inductive", id(proof.frame), id(proof.init), id(proof.invariant), tuple(map(id, proof.actions)),
           id(proof.assumptions), id(proof.lemma))
    known = ctx.cache.get(key)
    if not proof.prove:
        symbolic = PropertyResult(proof.name, HOLDS, "not asked of Z3", kind="z3")
    elif known is not None:
        symbolic = known[1]
    else:
        symbolic = check_inductive(proof.name, proof.frame, proof.init, proof.invariant, proof.actions,
                                   assumptions=_assumed(proof), limits=limits)
        if symbolic.status == HOLDS:
            ctx.cache[key] = (proof, symbolic)
    if symbolic.status != HOLDS:
        symbolic.scope = scope
        symbolic.detail = f"the abstract proof: {symbolic.detail}"
        return symbolic
    if proof.ranking is not None:
        ranked = _check_ranking(proof, limits)
        if ranked is not None:
            ranked.scope = scope
            return ranked
    for step_claim in proof.step_claims:
        stepped = _check_step_claim(proof, step_claim, limits)
        if stepped is not None:
            stepped.scope = scope
            return stepped
    abstract = (f"{proof.claim} -- Z3: initially and preserved by {', '.join(a.name for a in proof.actions)}"
                + (f"; the ranking drops by >= {proof.decrease} on " + ", ".join(proof.decreasing)
                   if proof.ranking else "")
                + "".join(f"; every step of {', '.join(c.actions) or 'every action'}: {c.text}"
                          for c in proof.step_claims))
    if not proof.prove:
        abstract = (f"{proof.claim} -- not proved by Z3 (its abstract model is too big for verify's time "
                    f"here): the invariant is checked on every mapped frame only")
    if ctx.source not in (EXPLORATION, SAMPLES):
        return PropertyResult(proof.name, UNKNOWN,
                              f"{abstract}; but its mapping to the model was not checked (no state of "
                              f"this configuration was explored or sampled), so it is not yet about the code",
                              kind="z3", seconds=time.perf_counter() - start, scope=scope)
    failure, counts, stop = refinement_check(proof, ctx)
    seconds = time.perf_counter() - start
    mode = "exhaustive" if ctx.source == EXPLORATION else "sampled"
    data = {"refinement": dict(counts, mode=mode, bound=proof.bind is not None,
                               chance_law=proof.chance is not None, options=proof.options is not None),
            "abstraction": proof.abstraction_doc, "actions": [a.name for a in proof.actions]}
    if ctx.source == EXPLORATION:
        how = f"every transition of the {ctx.exploration.num_states:,} explored states"
    else:
        data["refinement"]["plays"] = len(ctx.plays)
        how = (f"{len(ctx.plays):,} sampled plays (seed {ctx.seed}; {counts['transitions']:,} transitions; "
               f"sampling is not a proof of the mapping)")
    if failure is not None:
        return PropertyResult(proof.name, FAILS,
                              "the model's rules leave the proof's model (refinement check): the "
                              "abstract proof no longer speaks about this code", failure, "refinement",
                              seconds, data, scope)
    if stop:
        return PropertyResult(proof.name, UNKNOWN, f"the abstract proof {'holds (Z3)' if proof.prove else 'was not asked of Z3'}; the refinement "
                              f"check stopped ({stop}) after {counts['transitions']:,} transitions",
                              kind="z3", seconds=seconds, data=data, scope=scope)
    bound = ("each move bound to one action and its parameters" if proof.bind else
             "moves matched to any action (this proof binds no move)")
    law = ("; chance nodes equal to the rules' law" if proof.chance else "") + \
        ("; legal moves exactly the rules' options" if proof.options else "") + \
        (f" (at the first {OPTIONS_SAMPLED} decisions)" if proof.options and mode == "sampled" else "")
    return PropertyResult(proof.name, HOLDS,
                          f"{abstract}; mapping checked on {how} ({bound}{law}): {counts['steps']:,} steps, "
                          f"{counts['stutters']:,} stutters, {counts['exits']:,} exits, "
                          f"{counts['chance_nodes']:,} chance nodes, {counts['decision_nodes']:,} decision nodes",
                          kind=("z3" if proof.prove else "exhaustive") if mode == "exhaustive" else "sampled",
                          seconds=seconds, data=data, scope=scope)


#: a proof's mapping is checked on every transition of explorations up to this many states (about
#: 2 million transitions, a minute of Python); beyond it, on sampled plays (and the result says so)
MAP_STATES = 300_000


def proof_property(proof: RuleProof) -> Property:
    """A rule proof as a property: read on the exploration, else on sampled plays."""
    return Property(proof.name, proof.sentence or proof.claim, (EXPLORATION, SAMPLES),
                    lambda ctx: check_proof(proof, ctx), max_states=MAP_STATES)


def check_mapping(proof: RuleProof, ctx: Context) -> PropertyResult:
    """The proof's mapping alone on the context's evidence, without Z3: every move bound to the
    model's action and admitted by its relation, the chance laws and legal sets, and the typing and
    the invariant checked on every frame met -- an exhaustive (or sampled) check of the claims on
    this configuration, not a proof (for companion configurations whose parameters the proof is
    not run on)."""
    if ctx.source not in (EXPLORATION, SAMPLES):
        return ctx.result(proof.name, UNKNOWN, "no state of this configuration was explored or sampled")
    start = time.perf_counter()
    failure, counts, stop = refinement_check(proof, ctx)
    data = {"refinement": dict(counts, mode="exhaustive" if ctx.source == EXPLORATION else "sampled",
                               bound=proof.bind is not None, chance_law=proof.chance is not None,
                               options=proof.options is not None, z3=False)}
    if failure is not None:
        return ctx.result(proof.name, FAILS, "the model's rules leave the proof's model (refinement check)",
                          failure, kind="refinement", seconds=time.perf_counter() - start, data=data)
    if stop:
        return ctx.result(proof.name, UNKNOWN, f"the mapping stopped ({stop}) after {counts['transitions']:,} "
                          f"transitions", seconds=time.perf_counter() - start, data=data)
    return ctx.result(proof.name, HOLDS, f"{proof.claim} -- checked, not proved, on this configuration: every "
                      f"one of its {counts['transitions']:,} transitions is the rules' move (each bound to one "
                      f"action{', chance nodes equal to the law' if proof.chance else ''}"
                      f"{', legal moves exactly the rules options' if proof.options else ''}) and every frame "
                      f"met satisfies the claim (Z3 proves it on the parameters of the configuration this one "
                      f"accompanies)" + (" -- sampled, not a proof" if ctx.source == SAMPLES else ""),
                      seconds=time.perf_counter() - start, data=data)


def check_rule_proof(proof: RuleProof, game: Game, *, exploration=None, plays: int = 0, seed: int = 0,
                     max_moves: int = 2_000, scope: str = "", limits: Limits | None = None) -> PropertyResult:
    """``check_proof`` on an exploration or on ``plays`` seeded plays of ``game`` (for tests and
    one-off checks; ``verify`` builds the context itself)."""
    limits = limits or NO_LIMITS
    ctx = Context(spec=None, ruleset=None, game=game, label=scope or game.name, limits=limits, seed=seed)
    if exploration is not None and exploration.complete:
        ctx.source, ctx.exploration = EXPLORATION, exploration
    elif plays > 0:
        ctx.source, ctx.plays = SAMPLES, draw_plays(game, plays, seed, limits)
    res = check_proof(proof, ctx)
    if scope:
        res.scope = scope
    return res


# ---- Z3 side checks ---------------------------------------------------------------------------------------

def _z3_counterexample(proof: RuleProof, model, pre, post) -> list[str]:
    return [f"{lab}: " + ", ".join(f"{k}={model.eval(v, model_completion=True)}" for k, v in fr.items())
            for lab, fr in (("before", pre), ("after", post))]


def _assumed(proof: RuleProof) -> StatePredicate | None:
    """What Z3 may assume of every frame: the typing and the lemma."""
    if proof.lemma is None:
        return proof.assumptions
    if proof.assumptions is None:
        return proof.lemma
    return lambda f: And(proof.assumptions(f), proof.lemma(f))


def _check_ranking(proof: RuleProof, limits: Limits) -> PropertyResult | None:
    """None when (Z3) the ranking stays >= 0 and drops by ``decrease`` on each ``decreasing`` action
    and no other action raises it (but the ``resets``)."""
    import z3
    pre, post = proof.frame(""), proof.frame("'")
    assume = _assumed(proof) or (lambda _f: True)
    names = reads(proof.ranking(post), post)
    s = z3.Solver()   # one solver, each action pushed and popped
    s.add(And(assume(pre), assume(post), proof.invariant(pre)))
    for action in proof.actions:
        if action.name in proof.resets:
            continue
        drops = action.name in proof.decreasing
        limits.bound_z3(s)
        s.push()
        s.add(And(param_ranges(action, pre), action.sliced(names)(pre, post)))
        if drops:
            s.add(z3.Not(And(proof.ranking(post) <= proof.ranking(pre) - proof.decrease,
                             proof.ranking(post) >= 0)))
        else:
            s.add(z3.Not(proof.ranking(post) <= proof.ranking(pre)))
        verdict = s.check()
        if verdict == z3.sat:
            what = "does not decrease" if drops else "rises"
            return PropertyResult(proof.name, FAILS, f"the ranking {what} on {action.name}",
                                  _z3_counterexample(proof, s.model(), pre, post), "z3")
        if verdict != z3.unsat:
            why = limits.z3_unknown(s.reason_unknown())
            return PropertyResult(proof.name, UNKNOWN, f"ranking on {action.name}: {why}", kind="z3")
        s.pop()
    return None


def _check_step_claim(proof: RuleProof, step_claim: StepClaim, limits: Limits) -> PropertyResult | None:
    """None when every listed action relation implies the step claim (Z3), else the failure."""
    import z3
    pre, post = proof.frame(""), proof.frame("'")
    assume = _assumed(proof) or (lambda _f: True)
    names = reads(step_claim.claim(pre, post), post)
    s = z3.Solver()   # one solver, each action pushed and popped
    s.add(And(assume(pre), assume(post), proof.invariant(pre)), z3.Not(step_claim.claim(pre, post)))
    for action in proof.actions:
        if step_claim.actions and action.name not in step_claim.actions:
            continue
        limits.bound_z3(s)
        s.push()
        s.add(And(param_ranges(action, pre), action.sliced(names)(pre, post)))
        verdict = s.check()
        if verdict == z3.sat:
            return PropertyResult(proof.name, FAILS, f"the abstract proof: a step of {action.name} breaks "
                                  f"'{step_claim.text}'", _z3_counterexample(proof, s.model(), pre, post),
                                  "z3", data={"action": action.name})
        if verdict != z3.unsat:
            why = limits.z3_unknown(s.reason_unknown())
            return PropertyResult(proof.name, UNKNOWN, f"step claim on {action.name}: {why}", kind="z3")
        s.pop()
    return None


__all__ = ["Bound", "STUTTER", "Exit", "StepClaim", "RuleProof", "check_proof", "check_rule_proof",
           "check_mapping", "proof_property", "refinement_check", "PROVED"]
