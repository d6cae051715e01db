"""What each seat may know: the rule text's view of a state, checked against the model.

A game with hidden information says, in its proof file, what a seat may know of a state as its rule
text puts it (``view(state, seat)``: own cards, everything revealed, counts of the rest, ...). The
property checks, on every state of the evidence and for every seat:

* the model's ``observation(state, seat)`` is a function of that view -- two states the rules make
  indistinguishable to the seat never look different to it (nothing leaks), and two states the
  rules tell apart never look the same (nothing the seat was shown is lost);
* when the seat is to move, its legal actions are a function of the view too (a player's options
  depend only on what the player knows).

A failure shows the two states, each with a shortest play reaching it, and what differs.
"""
from __future__ import annotations

from typing import Any, Callable, Hashable

from ruleproof.model.properties import EXPLORATION, SAMPLES, Context, Property
from ruleproof.model.protocol import TERMINAL
from ruleproof.model.results import FAILS, HOLDS, PropertyResult

View = Callable[[Any, int], Hashable]


def _check(ctx: Context, name: str, view: View, what: str, public: bool = False) -> PropertyResult:
    game = ctx.game
    seen_view: dict[tuple, tuple] = {}   # (seat, view) -> (observation, narrate, state)
    seen_obs: dict[tuple, tuple] = {}    # (seat, observation) -> (view, narrate, state)
    moves: dict[tuple, tuple] = {}       # (seat, view) -> (legal actions, narrate, state)
    count = 0
    for count, (state, narrate) in enumerate(ctx.states(), 1):
        if count & 1023 == 0 and ctx.limits.expired():
            return ctx.limits.not_run(name)
        mover = game.current_player(state)
        if mover == TERMINAL:
            continue
        for seat in (range(1) if public else range(game.num_players)):
            if public and mover >= 0:
                seat = mover
            v, o = view(state, seat), game.observation(state, seat)
            first = seen_view.setdefault((seat, v), (o, narrate, state))
            if first[0] != o:
                return _two(ctx, name, seat, "the rules show this seat the same thing in both, but the model's "
                            "observations differ (the model leaks what the rules hide)", first, narrate, state)
            back = seen_obs.setdefault((seat, o), (v, narrate, state))
            if back[0] != v:
                return _two(ctx, name, seat, "the rules tell these apart for this seat, but the model's "
                            "observations are equal (the model hides what the rules show)", back, narrate, state)
            if seat == mover:
                acts = tuple(game.legal_actions(state))
                m = moves.setdefault((seat, v), (acts, narrate, state))
                if m[0] != acts:
                    return _two(ctx, name, seat, f"the seat cannot tell these apart, yet its legal moves differ: "
                                f"{[game.describe_action(m[2], a) for a in m[0]]} against "
                                f"{[game.describe_action(state, a) for a in acts]}", m, narrate, state)
    return ctx.result(name, HOLDS, f"{what}: at each of {count:,} states, for every seat, the model's "
                      f"observation is exactly the rules' view, and the mover's legal moves depend on it alone"
                      + (" -- sampled, not a proof" if ctx.source == SAMPLES else ""))


def _two(ctx: Context, name: str, seat: int, why: str, first: tuple, narrate, state) -> PropertyResult:
    game = ctx.game
    lines = ["first state:"] + first[1]() + ["second state:"] + narrate()
    lines.append(f"for {game.seat_name(seat)}: {why}")
    return ctx.result(name, FAILS, f"what {game.seat_name(seat)} may know differs from what the model shows it",
                      lines)


def information_property(name: str, sentence: str, view: View, what: str = "", public: bool = False) -> Property:
    """The property for one game's ``view`` (see the module docstring). ``public``: the rules show
    every seat the same (the view and the model's observation do not depend on the seat), so one
    seat is checked per state -- the mover, whose legal moves are checked too."""
    return Property(name, sentence, (EXPLORATION, SAMPLES),
                    lambda ctx: _check(ctx, name, view, what or sentence, public))
