"""The fast paths property: every fast copy of a move rule agrees with the reference moves, on
every state ``verify`` explores (``model.conformance`` holds the checks; the games' own engines --
a C solver, a vectorised simulator -- declare their own agreement properties)."""
from __future__ import annotations

from ruleproof.model.conformance import batch_problem, state_problem
from ruleproof.model.properties import EXPLORATION, SAMPLES, Context, Property
from ruleproof.model.results import FAILS, HOLDS, PropertyResult


def _check(ctx: Context) -> PropertyResult:
    name = "fast-paths"
    if ctx.source == SAMPLES:
        return _check_samples(ctx, name)
    ex, game = ctx.exploration, ctx.game
    for node in range(ex.num_states):
        if node & 1023 == 0 and ctx.limits.expired():
            return ctx.limits.not_run(name)
        problem = state_problem(game, ex.state(node))
        if problem:
            return ctx.result(name, FAILS, "a fast copy of a move rule disagrees with the reference moves",
                              ex.narrate(node, f"here: {problem}"))
    keys = ex.keys if ex.keys and isinstance(ex.keys[0], int) else None
    if keys is not None:
        found = batch_problem(game, keys)
        if found is not None:
            node, problem = found
            return ctx.result(name, FAILS, "the batch expansion disagrees with the model's moves",
                              ex.narrate(node, f"here: {problem}"))
    return ctx.result(name, HOLDS, f"successors, successor_lists, canonical_successors"
                      f"{', expand_keys' if keys is not None and game.expand_keys is not None else ''} and the "
                      f"key round trip agree with legal_actions/chance_outcomes/apply at every one of the "
                      f"{ex.num_states:,} states")


def _check_samples(ctx: Context, name: str) -> PropertyResult:
    game = ctx.game
    count = 0
    reps: dict = {}   # canonical int key -> how to narrate a play reaching it
    # the states checked, for a game whose states are their keys (ints, tuples of ints: equal ones
    # play alike): plays meet a state many times (harmless-ruling's 2,000 plays: 12,156 states,
    # 4,239 distinct). Another game's states are all checked (two with one key may differ)
    checked: set | None = set() if game.state_is_key else None
    for count, (state, narrate) in enumerate(ctx.states(), 1):
        if count & 1023 == 0 and ctx.limits.expired():
            return ctx.limits.not_run(name)
        remembered = checked is not None and isinstance(state, (int, tuple))
        if remembered:
            try:
                if state in checked:
                    continue
            except TypeError:   # not a key after all: state_problem says so
                pass
        problem = state_problem(game, state)
        if problem:
            return ctx.result(name, FAILS, "a fast copy of a move rule disagrees with the reference moves",
                              narrate() + [f"here: {problem}"])
        if remembered:
            checked.add(state)   # (its key is an int or a tuple of ints: state_problem checked it)
        canonical = game.key(game.canonicalize(state)[0])
        if isinstance(canonical, int):
            reps.setdefault(canonical, narrate)
    if reps:   # the batch expansion, on the representatives of the sampled states
        keys = list(reps)
        found = batch_problem(game, keys)
        if found is not None:
            return ctx.result(name, FAILS, "the batch expansion disagrees with the model's moves",
                              reps[keys[found[0]]]() + [f"here (its representative): {found[1]}"])
    return ctx.result(name, HOLDS, f"successors, successor_lists, canonical_successors and the key round "
                      f"trip agree with legal_actions/chance_outcomes/apply at the {count:,} states of "
                      f"the sampled plays -- sampled, not a proof")


#: every state is compared up to this many explored states; beyond, the sampled plays' states
CHECK_STATES = 300_000


def fast_path_property() -> Property:
    return Property("fast-paths", "one copy of each rule: every fast path gives the reference moves",
                    (EXPLORATION, SAMPLES), _check, max_states=CHECK_STATES)
