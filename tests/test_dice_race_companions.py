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
