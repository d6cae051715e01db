"""The abstract model of a dice race (turn total, bank, pass the dice), bound to the kit's code.

A game's proof file states its own rules -- the throws of its dice and what each does, read from
its rule text (:class:`Throw`) -- and this module turns them into Z3 proofs bound move by move to
the model (``model.kits.dice_race``):

* the frame is the state record's columns (absolute seats: every seat's banked score, the mover,
  the turn total, the dice in the air, the winner), plus the move's parameters and ``actor``;
* actions: ``roll`` and ``hold`` (by the mover, ``actor == mover``), and one per kind of throw --
  ``score(pts)``, ``bust`` (the turn total is lost), ``wipe`` (the banked score too) -- each bound
  from the concrete outcome through the *proof's* table of throws, never the model's;
* the chance law: each kind of throw with the probability the rule text gives it;
* the invariant speaks of the game over too: the winner is the mover, and reached the goal.

Two proofs come out: the state invariant (scores below the goal, score + turn total within reach,
who won and why) and turn progress (every scoring throw lowers goal - score - turn total).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from ruleproof.model.protocol import CHANCE
from ruleproof.proofs.frames import next_seat, record_frame, record_typing, seat_value, seats_changed
from ruleproof.proofs.harness import Action
from ruleproof.proofs.logic import And, If, Implies
from ruleproof.proofs.refinement import Bound, RuleProof

SCORE, BUST, WIPE = "score", "bust", "wipe"


@dataclass(frozen=True)
class Throw:
    """One outcome of a throw as the rule text states it: the model's outcome code, its
    probability, what it does (``score``, ``bust`` or ``wipe``) and the points it scores."""
    outcome: int
    prob: Fraction
    kind: str
    points: int = 0


@dataclass(frozen=True)
class RaceRules:
    """The rules of one race as its proof file states them."""
    goal: int
    seats: int
    throws: Sequence[Throw]
    #: reaching the goal wins at once (else a hold banks it)
    win_at_once: bool = True
    #: a hold with an empty turn total is allowed
    hold_at_zero: bool = True
    #: the text the proofs cite
    sentence: str = ""


def race_proofs(rules: RaceRules, record, name: str) -> list[RuleProof]:
    """The state invariant and turn progress of a race (``name`` prefixes the proofs' names)."""
    n, goal = rules.seats, rules.goal
    table = {t.outcome: t for t in rules.throws}
    points = sorted({t.points for t in rules.throws if t.kind == SCORE})
    least = min(points) if points else 1
    frame = record_frame(record, ["pts", "actor"])
    scores = [f"score{i}" for i in range(n)]
    reach = goal - 1 if rules.win_at_once else goal

    def mine(f):
        return seat_value(f, "score", f["mover"], n)

    def typing(f):
        return record_typing(record)(f)

    def invariant(f):
        playing = And([f[x] < goal for x in scores], f["turn"] >= 0, mine(f) + f["turn"] <= reach)
        over = And(f["winner"] == f["mover"], mine(f) + f["turn"] >= goal)
        return And(Implies(f["winner"] == -1, playing), Implies(f["winner"] != -1, over))

    def init(f):
        return And([f[x] == 0 for x in scores], f["mover"] == 0, f["turn"] == 0, f["rolling"] == 0,
                   f["winner"] == -1)

    def playing_mover(s):
        return And(s["winner"] == -1, s["rolling"] == 0, s["actor"] == s["mover"])

    def same(s, t, *names):
        return And([t[x] == s[x] for x in names])

    def roll(s, t):
        return And(playing_mover(s), t["rolling"] == 1, same(s, t, "mover", "turn", "winner", *scores))

    def pass_dice(s, t, banked):
        """The mover's score becomes ``banked``, the next seat moves with an empty turn total."""
        return And(seats_changed(s, t, "score", s["mover"], n, banked), t["mover"] == next_seat(s["mover"], n),
                   t["turn"] == 0, t["rolling"] == 0, t["winner"] == -1)

    def hold(s, t):
        banked = mine(s) + s["turn"]
        allowed = True if rules.hold_at_zero else s["turn"] >= 1
        wins = And(banked >= goal, t["winner"] == s["mover"], t["rolling"] == 0,
                   same(s, t, "mover", "turn", *scores))
        return And(playing_mover(s), allowed, If(banked >= goal, wins, pass_dice(s, t, banked)))

    def thrown(s):
        return And(s["winner"] == -1, s["rolling"] == 1, s["actor"] == CHANCE)

    def score(s, t):
        total = s["turn"] + s["pts"]
        if rules.win_at_once:
            wins = mine(s) + total >= goal
            after = And(t["turn"] == total, t["winner"] == If(wins, s["mover"], -1))
        else:
            after = And(t["turn"] == If(mine(s) + total >= goal, goal - mine(s), total), t["winner"] == -1)
        return And(thrown(s), after, t["rolling"] == 0, same(s, t, "mover", *scores))

    def bust(s, t):
        return And(thrown(s), pass_dice(s, t, mine(s)))

    def wipe(s, t):
        return And(thrown(s), pass_dice(s, t, 0))

    actions = [Action("roll", roll), Action("hold", hold), Action(SCORE, score, {"pts": points or [0]}),
               Action(BUST, bust), Action(WIPE, wipe)]

    def bind(state, move, actor) -> Bound:
        if actor == CHANCE:
            t = table.get(move)
            if t is None:
                return Bound(f"an outcome the rules do not list ({move!r})")
            return Bound(t.kind, {"pts": t.points} if t.kind == SCORE else {})
        return Bound({0: "roll", 1: "hold"}.get(move, f"a move the rules do not list ({move!r})"))

    def options(f) -> set[Bound]:
        """The mover's choices: roll, or hold (with an empty turn total only where the rules allow)."""
        if f["winner"] != -1 or f["rolling"] != 0:
            return set()
        return {Bound("roll")} | ({Bound("hold")} if rules.hold_at_zero or f["turn"] >= 1 else set())

    law: dict[Bound, Fraction] = {}
    for t in rules.throws:
        b = Bound(t.kind, {"pts": t.points} if t.kind == SCORE else {})
        law[b] = law.get(b, Fraction(0)) + t.prob

    common = dict(frame=frame, abstraction_doc=(
        "the state record's columns: score<seat> = each seat's banked score, mover = the seat to move "
        "(the winner once somebody won), turn = the turn total, rolling = the dice in the air, "
        "winner = the seat that reached the goal or -1"),
        abstraction=record.values, init=init, invariant=invariant, actions=actions, bind=bind,
        chance=lambda _f: law, options=options, assumptions=typing, sentence=rules.sentence)
    out = [RuleProof(f"{name}-state-invariant",
                     f"while nobody has won every score is below {goal} and score + turn total <= {reach}; "
                     f"once somebody has won, it is the mover and score + turn total >= {goal}", **common)]
    if rules.win_at_once:
        # goal + least - 1 - score - turn total while playing (>= least), 0 once won: every scoring
        # throw lowers it by its points or ends the game (under "must hold" a player at the goal may
        # throw on without progress, so no such ranking exists there)
        out.append(RuleProof(
            f"{name}-turn-progress",
            f"goal - score - turn total is a ranking that every scoring throw lowers by at least "
            f"{least} (or wins), so a turn that never busts ends within {-(-goal // least)} throws",
            ranking=lambda f: If(f["winner"] == -1, goal + least - 1 - mine(f) - f["turn"], 0),
            decreasing=(SCORE,), decrease=least, resets=("hold", BUST, WIPE), **common))
    return out


#: the goal of the three-seat companion: small enough to explore in a moment (a few thousand states)
TRIO_GOAL = 6
#: the highest goal of a ruling's companion: every rule a reading runs (a hold refused with an empty
#: turn total, the goal reached by a throw or banked by a hold) shows at a small goal, and a
#: companion is checked on every transition -- at the ruleset's own goal 100 each would be a million
#: states mapped one by one (~13 GB for Skunk's, more than the machine has)
RULING_GOAL = 20


def race_companions(ruleset, schema) -> list:
    """Configurations ``verify`` explores beside a race's ruleset every time (``Derived(...,
    always=True)``), each small, each keeping the ruleset's dice, its goal at most ``TRIO_GOAL`` /
    ``RULING_GOAL``:

    * three seats (when the ruleset has two): with two, "the next seat" and "the previous seat" are
      the same one, so a slip in the direction of play cannot show;
    * each other option of each ruling, one at a time: a rule the ruleset's own readings never run
      (the hold refused with an empty turn total, the goal banked by a hold) is checked too."""
    from ruleproof.model.properties import Derived
    out = []
    if ruleset["players"] == 2:
        goal = min(ruleset["goal"], TRIO_GOAL)
        out.append(Derived(f"companion: 3 players, goal {goal} (the direction of play)",
                           ruleset.with_overrides({"players": 3, "goal": goal}, spec=schema), always=True))
    goal = min(ruleset["goal"], RULING_GOAL)
    at = "" if goal == ruleset["goal"] else f", goal {goal}"
    for ruling in schema.rulings:
        for option in ruling.options:
            if option != ruleset.rulings[ruling.id]:
                out.append(Derived(f"companion: {ruling.id}={option}{at}",
                                   ruleset.with_overrides({"goal": goal}, rulings={ruling.id: option}, spec=schema),
                                   always=True))
    return out
