"""Proofs bound to the executable model: a Z3 proof plus a refinement check of the real rules.

A :class:`RuleProof` is a small abstract model in the manner of TLA+ and mypyvy: a frame (named
Z3 constants), ``Init``, one relation per action, and the claimed invariant -- all written with
``proofs.logic`` so that each can be evaluated on Z3 terms *and* on plain values. It also declares
its **abstraction**: a function from a real model state to the frame (a TLA+ refinement mapping).

``check_rule_proof`` then establishes two things, and the property holds only when both do:

1. **the abstract proof** (Z3, with this configuration's own parameters): Init implies the
   invariant, and every action relation preserves it (``harness.check_inductive``); an optional
   ranking function decreases on the actions that must make progress;
2. **the refinement** (the rules the code runs satisfy the proof's model): the model's initial
   state maps to an Init state, and **every transition** the explorer visits -- or, where the
   configuration is too big to explore, every transition of seeded random plays -- maps either to
   a stutter (the frame does not change), to a step that some action relation admits, or, when the
   play leaves the frame (the game ends), to a declared exit. The concrete invariant is checked on
   every visited state too.

A rule change in ``model/`` that the proof's relations do not admit fails the property and
narrates the concrete transition: the move, the frames before and after, and a shortest play
reaching it.
"""
from __future__ import annotations

import itertools
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence

from ruleproof.model.protocol import CHANCE, TERMINAL, Game

from ruleproof.proofs.harness import Action, FrameFactory, StatePredicate, check_inductive
from ruleproof.proofs.logic import And
from ruleproof.solver.limits import NO_LIMITS, Limits
from ruleproof.solver.montecarlo import sample_outcome
from ruleproof.solver.report import FAILS, HOLDS, UNKNOWN, PropertyResult

Values = Mapping[str, Any]
#: a model state's frame (or, for a projected proof, its frames by label); None: outside the frame
Abstraction = Callable[[Any], "Values | Mapping[str, Values] | None"]


@dataclass(frozen=True)
class Exit:
    """A way to leave the frame (e.g. the game ends): allowed when ``guard(pre)`` holds for some
    value of the ``params``."""
    name: str
    guard: Callable[[Values], Any]
    params: Mapping[str, Sequence[int]] = field(default_factory=dict)


@dataclass(frozen=True)
class StepClaim:
    """A property of single steps (a shield keeps its player's gift, a potential never falls):
    Z3 proves that every listed action relation (all of them when ``actions`` is empty) implies
    ``claim(pre, post)`` under the invariant; the refinement check then makes it a property of every
    real transition, since each one is a stutter or a step of some relation."""
    text: str
    claim: Callable[[Values, Values], Any]
    actions: Sequence[str] = ()


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
    exits: Sequence[Exit] = ()
    #: type bounds and constants that hold in every frame
    assumptions: StatePredicate | None = None
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


@dataclass
class Transition_:
    """One real move, as the refinement check sees it."""
    before: Any
    move: Any
    after: Any
    narrate: Callable[[], list[str]]


# ---- where transitions come from --------------------------------------------------------------------

def explored_transitions(ex) -> Iterator[Transition_]:
    """Every move of every explored state, recomputed by the model's own ``successors`` (so seat
    symmetry in the explorer does not hide a move)."""
    game = ex.game
    kinds = ex.kind
    # without seat symmetry or a batch expander, the explorer's edges are ``successors``' own moves:
    # read them instead of applying every move again
    stored = ex.perm is None and type(game).expand_keys is Game.expand_keys
    for node in range(ex.num_states):
        if kinds[node] == TERMINAL or node + 1 >= len(ex.offsets) or ex.offsets[node] == ex.offsets[node + 1]:
            continue
        state = ex.state(node)
        moves = ((ex.action[e], None, ex.state(ex.child[e])) for e in ex.edges(node)) if stored else \
            game.successors(state)
        for move, _p, nxt in moves:
            yield Transition_(state, move, nxt, lambda node=node: ex.narrate(node))


def random_play(game: Game, rng: random.Random, max_moves: int) -> list[tuple[Any, Any, Any]]:
    """One play with uniformly random decisions and chance drawn by its probabilities:
    (state, move, next state) per step, at most ``max_moves`` steps."""
    state = game.initial_state()
    steps = []
    for _ in range(max_moves):
        seat = game.current_player(state)
        if seat == TERMINAL:
            break
        if seat == CHANCE:
            move = sample_outcome(game.chance_outcomes(state), rng)
        else:
            move = rng.choice(list(game.legal_actions(state)))
        nxt = game.apply(state, move)
        steps.append((state, move, nxt))
        state = nxt
    return steps


def narrate_play(game: Game, steps: Sequence[tuple[Any, Any, Any]], upto: int, label: str) -> list[str]:
    lines = [f"{label}; start: {game.describe_state(steps[0][0]) if steps else '-'}"]
    for i, (s, a, t) in enumerate(steps[:upto], 1):
        lines.append(f"{i}. {game.seat_name(game.current_player(s))}: {game.describe_action(s, a)} -> "
                     f"{game.describe_state(t)}")
    return lines


def sampled_transitions(game: Game, plays: int, seed: int, max_moves: int,
                        limits: Limits = NO_LIMITS, counter: dict | None = None) -> Iterator[Transition_]:
    # the plays of one seed are the same for every proof: drawn once per game (and kept on it)
    cache = game.__dict__.setdefault("_sampled_plays", {})
    rng, drawn = cache.setdefault((seed, max_moves), (random.Random(seed), []))
    for i in range(plays):
        if limits.expired():
            break
        if i == len(drawn):
            drawn.append(random_play(game, rng, max_moves))
        steps = drawn[i]
        if counter is not None:
            counter["plays"] = i + 1
        for j, (s, a, t) in enumerate(steps):
            yield Transition_(s, a, t, lambda steps=steps, j=j, i=i:
                              narrate_play(game, steps, j, f"sampled play {i + 1} (seed {seed})"))


# ---- the check --------------------------------------------------------------------------------------

def _frame_text(values: Values) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


class _Matcher:
    """Decides, with a cache, whether an abstract step is allowed and by which action."""

    def __init__(self, proof: RuleProof):
        self.proof = proof
        self.cache: dict[tuple, str | None] = {}

    def step(self, pre: Values, post: Values) -> str | None:
        key = (tuple(pre.items()), tuple(post.items()))
        if key not in self.cache:
            self.cache[key] = self._find(pre, post)
        return self.cache[key]

    def exit(self, pre: Values) -> str | None:
        key = (tuple(pre.items()), None)
        if key not in self.cache:
            self.cache[key] = next((e.name for e in self.proof.exits
                                    for env in _bindings(pre, e.params) if e.guard(env)), None)
        return self.cache[key]

    def _find(self, pre: Values, post: Values) -> str | None:
        for action in self.proof.actions:
            for env in _bindings(pre, action.params):
                if action.relation(env, post):
                    return action.name
        return None


def _bindings(pre: Values, params: Mapping[str, Sequence[int]]) -> Iterator[dict[str, Any]]:
    if not params:
        yield dict(pre)
        return
    names = list(params)
    for combo in itertools.product(*(params[n] for n in names)):
        env = dict(pre)
        env.update(zip(names, combo))
        yield env


def _frames(proof: RuleProof, state: Any) -> Mapping[str, Values] | None:
    got = proof.abstraction(state)
    if got is None:
        return None
    return got if proof.projected else {"": got}


#: the last complete mapping pass, by (transition source, abstraction, relations, exits): proofs
#: that share one frame and its relations (several claims about one abstract model) map the same
#: transitions alike, so the pass runs once and each proof checks its own invariant on the frames
#: it met (kept only up to this many distinct frames)
_SHARED: dict = {}
SHARED_FRAMES = 400_000


def _shared_key(proof: RuleProof, source: tuple) -> tuple:
    """By identity: the record keeps every object named here alive (see ``done`` below)."""
    return (source[0], id(source[1]), id(proof.abstraction), tuple(id(a.relation) for a in proof.actions),
            tuple((a.name, tuple((k, tuple(v)) for k, v in a.params.items())) for a in proof.actions),
            tuple(id(e) for e in proof.exits), proof.projected)


def _reuse(proof: RuleProof, game: Game, record: dict) -> tuple[list[str] | None, dict[str, int], str]:
    for label, post, tr in record["frames"]:
        if not proof.invariant(post):
            tag = f" [{label}]" if label else ""
            return tr.narrate() + [f"then: {game.describe_action(tr.before, tr.move)} -> "
                                   f"{game.describe_state(tr.after)}",
                                   f"the invariant fails on the frame{tag}: {_frame_text(post)}"
                                   ], dict(record["counts"]), ""
    return record["failure"], dict(record["counts"]), ""


def refinement_check(proof: RuleProof, game: Game, transitions: Iterator[Transition_],
                     limits: Limits = NO_LIMITS, shared: tuple | None = None
                     ) -> tuple[list[str] | None, dict[str, int], str]:
    """Check the mapping on every transition given; returns (failure trace or None, counts, stop).
    ``shared``: a key naming the transition source, to reuse a pass of a proof with the same frame
    and relations (see ``_SHARED``)."""
    matcher = _Matcher(proof)
    counts = {"transitions": 0, "steps": 0, "stutters": 0, "exits": 0}
    init_frames = _frames(proof, game.initial_state())
    if init_frames is None:
        return ["the model's initial state lies outside the proof's frame"], counts, ""
    for label, f in init_frames.items():
        if not proof.init(f):
            return [f"the model's initial state is not an Init state of the proof"
                    f"{' (' + label + ')' if label else ''}: {_frame_text(f)}"], counts, ""
        if not proof.invariant(f):
            return [f"the invariant fails in the model's initial state: {_frame_text(f)}"], counts, ""
    key = _shared_key(proof, shared) if shared is not None else None
    if key is not None and key in _SHARED:
        return _reuse(proof, game, _SHARED[key])
    frames: list | None = [] if key is not None else None

    def done(failure: list[str] | None) -> tuple[list[str] | None, dict[str, int], str]:
        if frames is not None and len(frames) <= SHARED_FRAMES:
            _SHARED.clear()
            _SHARED[key] = {"frames": frames, "failure": failure, "counts": dict(counts),
                            "keep": (shared, proof.abstraction, list(proof.actions), list(proof.exits))}
        return failure, counts, ""

    checked_states: set = set()
    for n, tr in enumerate(transitions):
        if n & 1023 == 0 and limits.expired():
            return None, counts, "time limit reached"
        counts["transitions"] += 1
        before, after = _frames(proof, tr.before), _frames(proof, tr.after)
        if before is None:
            continue   # a state outside the frame (after the game ended): nothing to relate
        move = game.describe_action(tr.before, tr.move)
        if after is None:
            name = next((matcher.exit(f) for f in before.values()), None)
            if name is None:
                return done(tr.narrate() + [
                    f"then: {move} -> {game.describe_state(tr.after)}",
                    "this move leaves the proof's frame, but no exit of the proof allows it from "
                    + "; ".join(_frame_text(f) for f in before.values())])
            counts["exits"] += 1
            continue
        for label, pre in before.items():
            post = after.get(label)
            tag = f" [{label}]" if label else ""
            if post is None:
                return done(tr.narrate() + [f"then: {move}", f"the projection{tag} disappears"])
            seen = (label, tuple(post.items()))
            if seen not in checked_states:
                checked_states.add(seen)
                if frames is not None and len(frames) <= SHARED_FRAMES:
                    frames.append((label, post, tr))
                if not proof.invariant(post):
                    return tr.narrate() + [f"then: {move} -> {game.describe_state(tr.after)}",
                                           f"the invariant fails on the frame{tag}: {_frame_text(post)}"
                                           ], counts, ""
            if pre == post:
                counts["stutters"] += 1
                continue
            if matcher.step(pre, post) is None:
                return done(tr.narrate() + [
                    f"then: {move} -> {game.describe_state(tr.after)}",
                    f"frame before{tag}: {_frame_text(pre)}",
                    f"frame after{tag}:  {_frame_text(post)}",
                    "no action relation of the proof allows this step ("
                    + ", ".join(a.name for a in proof.actions) + ")"])
            counts["steps"] += 1
    return done(None)


def check_rule_proof(proof: RuleProof, game: Game, *, exploration=None, plays: int = 0, seed: int = 0,
                     max_moves: int = 2_000, scope: str = "", limits: Limits | None = None,
                     timeout_ms: int = 20_000) -> PropertyResult:
    """The Z3 proof and its refinement check (on ``exploration`` when it is complete, else on
    ``plays`` seeded random plays); see the module docstring."""
    limits = limits or NO_LIMITS
    if limits.expired():
        return limits.not_run(proof.name, "z3")
    start = time.perf_counter()
    symbolic = check_inductive(proof.name, proof.frame, proof.init, proof.invariant, proof.actions,
                               assumptions=proof.assumptions, timeout_ms=timeout_ms, limits=limits)
    if symbolic.status != HOLDS:
        symbolic.scope = scope
        symbolic.detail = f"the abstract proof: {symbolic.detail}"
        return symbolic
    if proof.ranking is not None:
        ranked = _check_ranking(proof, timeout_ms, limits)
        if ranked is not None:
            ranked.scope = scope
            return ranked
    for step_claim in proof.step_claims:
        stepped = _check_step_claim(proof, step_claim, timeout_ms, limits)
        if stepped is not None:
            stepped.scope = scope
            return stepped
    if exploration is not None and exploration.complete:
        transitions = explored_transitions(exploration)
        how = f"every transition of the {exploration.num_states:,} explored states"
        mode = "exhaustive"
        source: tuple | None = ("explored", exploration)
    elif plays > 0:
        counter: dict[str, int] = {}
        transitions = sampled_transitions(game, plays, seed, max_moves, limits, counter)
        how, mode = None, "sampled"
        source = None  # the sample stops at the time limit: each proof maps its own
    else:
        return PropertyResult(proof.name, UNKNOWN,
                              "the abstract proof holds (Z3), but its mapping to the model was not "
                              "checked: the configuration was not explored completely and no plays "
                              "were sampled", kind="z3", seconds=time.perf_counter() - start, scope=scope)
    failure, counts, stop = refinement_check(proof, game, transitions, limits, shared=source)
    seconds = time.perf_counter() - start
    data = {"refinement": dict(counts, mode=mode), "abstraction": proof.abstraction_doc,
            "actions": [a.name for a in proof.actions]}
    if mode == "sampled":
        data["refinement"]["plays"] = counter.get("plays", 0)
        how = (f"{counter.get('plays', 0):,} sampled plays (seed {seed}; {counts['transitions']:,} "
               f"transitions; sampling is not a proof of the mapping)")
    if failure is not None:
        return PropertyResult(proof.name, FAILS,
                              "the model's rules leave the proof's model (refinement check): the "
                              "abstract proof no longer speaks about this code", failure, "refinement",
                              seconds, data, scope)
    if stop:
        return PropertyResult(proof.name, UNKNOWN, f"the abstract proof holds (Z3); the refinement "
                              f"check stopped ({stop}) after {counts['transitions']:,} transitions",
                              kind="z3", seconds=seconds, data=data, scope=scope)
    return PropertyResult(proof.name, HOLDS,
                          f"{proof.claim} -- Z3: initially and preserved by "
                          f"{', '.join(a.name for a in proof.actions)}"
                          + (f"; the ranking drops by >= {proof.decrease} on " + ", ".join(proof.decreasing)
                             if proof.ranking else "")
                          + "".join(f"; every step of {', '.join(c.actions) or 'every action'}: {c.text}"
                                    for c in proof.step_claims)
                          + f"; mapping checked on {how}: {counts['steps']:,} steps, "
                            f"{counts['stutters']:,} stutters, {counts['exits']:,} exits",
                          kind="z3" if mode == "exhaustive" else "sampled", seconds=seconds, data=data,
                          scope=scope)


def _check_ranking(proof: RuleProof, timeout_ms: int, limits: Limits) -> PropertyResult | None:
    """None when (Z3) the ranking stays >= 0 and drops by ``decrease`` on each ``decreasing`` action
    and no other action raises it (but the ``resets``)."""
    import z3
    pre, post = proof.frame(""), proof.frame("'")
    assume = proof.assumptions or (lambda _f: True)
    for action in proof.actions:
        if action.name in proof.resets:
            continue
        drops = action.name in proof.decreasing
        s = z3.Solver()
        s.set("timeout", limits.z3_timeout_ms(timeout_ms))
        s.add(And(assume(pre), assume(post), proof.invariant(pre), action.relation(pre, post)))
        if drops:
            s.add(z3.Not(And(proof.ranking(post) <= proof.ranking(pre) - proof.decrease,
                             proof.ranking(post) >= 0)))
        else:
            s.add(z3.Not(proof.ranking(post) <= proof.ranking(pre)))
        verdict = s.check()
        if verdict == z3.sat:
            m = s.model()
            frames = [f"{lab}: " + ", ".join(f"{k}={m.eval(v, model_completion=True)}" for k, v in fr.items())
                      for lab, fr in (("before", pre), ("after", post))]
            what = "does not decrease" if drops else "rises"
            return PropertyResult(proof.name, FAILS, f"the ranking {what} on {action.name}", frames, "z3")
        if verdict != z3.unsat:
            return PropertyResult(proof.name, UNKNOWN, f"ranking on {action.name}: z3 {s.reason_unknown()}",
                                  kind="z3")
    return None


def _check_step_claim(proof: RuleProof, step_claim: StepClaim, timeout_ms: int,
                      limits: Limits) -> PropertyResult | None:
    """None when every listed action relation implies the step claim (Z3), else the failure."""
    import z3
    pre, post = proof.frame(""), proof.frame("'")
    assume = proof.assumptions or (lambda _f: True)
    for action in proof.actions:
        if step_claim.actions and action.name not in step_claim.actions:
            continue
        s = z3.Solver()
        s.set("timeout", limits.z3_timeout_ms(timeout_ms))
        s.add(And(assume(pre), assume(post), proof.invariant(pre), action.relation(pre, post)))
        s.add(z3.Not(step_claim.claim(pre, post)))
        verdict = s.check()
        if verdict == z3.sat:
            m = s.model()
            frames = [f"{lab}: " + ", ".join(f"{k}={m.eval(v, model_completion=True)}" for k, v in fr.items())
                      for lab, fr in (("before", pre), ("after", post))]
            return PropertyResult(proof.name, FAILS, f"the abstract proof: a step of {action.name} breaks "
                                  f"'{step_claim.text}'", frames, "z3", data={"action": action.name})
        if verdict != z3.unsat:
            return PropertyResult(proof.name, UNKNOWN, f"step claim on {action.name}: z3 {s.reason_unknown()}",
                                  kind="z3")
    return None
