"""The dice races' companions (issue #21): verify explores, beside the ruleset, three seats (where
the direction of play shows) and each other option of each ruling (where the rules the ruleset's own
readings never run are checked); a slip in either is caught there and only there."""
from __future__ import annotations

from ruleproof.model.registry import get_spec
from ruleproof.proofs.dice_race import TRIO_GOAL, race_companions
from ruleproof.solver.verify import verify


def test_pig_gets_three_seats_and_skunk_each_other_reading():
    pig = get_spec("pig")
    rs = pig.default().with_overrides({"goal": 20}, spec=pig.schema)
    [trio] = race_companions(rs, pig.schema)
    assert trio.always and trio.ruleset["players"] == 3 and trio.ruleset["goal"] == TRIO_GOAL
    skunk = get_spec("skunk")
    rs = skunk.default().with_overrides({"goal": 20, "players": 3}, spec=skunk.schema)
    readings = {(d.ruleset.rulings["S01"], d.ruleset.rulings["S02"]) for d in race_companions(rs, skunk.schema)}
    assert readings == {("roll-first", "at-once"), ("allowed", "must-hold")}   # no trio: it has three


def test_a_slip_only_the_other_reading_runs_is_caught_on_its_companion(monkeypatch):
    # the batch expansion lets a seat hold with an empty turn total even under S01=roll-first:
    # the ruleset (S01=allowed) never runs that branch; its companion does
    from ruleproof.model.kits import dice_race
    original = dice_race.DiceRace.expand_keys

    def drifted(self, keys):
        saved, self.hold_at_zero = self.hold_at_zero, True
        try:
            return original(self, keys)
        finally:
            self.hold_at_zero = saved

    monkeypatch.setattr(dice_race.DiceRace, "expand_keys", drifted)
    skunk = get_spec("skunk")
    rep = verify(skunk, skunk.default().with_overrides({"goal": 12}, spec=skunk.schema))
    failed = {p.name for p in rep.properties if p.status == "fails"}
    assert failed == {"fast-paths [companion: S01=roll-first]"}


def test_the_companions_of_a_full_size_race_stay_small():
    # at Skunk's own goal 100 a ruling's companion at the ruleset's goal was a million states mapped
    # one by one (verify of the built-in Skunk, and compare against it, ran out of memory: ~13 GB);
    # each is at most RULING_GOAL now, and its label says the goal it was lowered to
    from ruleproof.proofs.dice_race import RULING_GOAL
    skunk = get_spec("skunk")
    full = race_companions(skunk.default(), skunk.schema)
    assert skunk.default()["goal"] == 100 and len(full) == 3
    assert all(d.ruleset["goal"] <= RULING_GOAL for d in full)
    assert {d.label for d in full} == {f"companion: 3 players, goal {TRIO_GOAL} (the direction of play)",
                                      f"companion: S01=roll-first, goal {RULING_GOAL}",
                                      f"companion: S02=must-hold, goal {RULING_GOAL}"}
    for d in full:   # the rest of the ruleset kept: its dice, seats and the other ruling
        assert {k: v for k, v in d.ruleset.params.items() if k not in ("goal", "players")} == \
            {k: v for k, v in skunk.default().params.items() if k not in ("goal", "players")}
