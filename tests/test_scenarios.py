"""The ruling regression scenarios: sharing solves between identical graphs and running in worker
processes must not let a changed value through."""
from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest

import ruleproof.solver.analysis as analysis
from ruleproof.model.pig.game import Pig
from ruleproof.solver.explore import explore
from ruleproof.solver.graphmemo import fingerprint, memo_solve
from ruleproof.solver.solve import solve


def test_fingerprint_sees_every_part_the_solver_reads():
    a, b = explore(Pig(goal=5)), explore(Pig(goal=5))
    assert fingerprint(a) == fingerprint(b)
    assert fingerprint(a) != fingerprint(explore(Pig(goal=6)))
    returns = copy.copy(a)
    returns.returns = dict(a.returns)
    node = next(iter(returns.returns))
    returns.returns[node] = tuple(1 - r for r in returns.returns[node])   # one terminal's result
    assert fingerprint(returns) != fingerprint(a)
    probs = copy.copy(a)
    probs.prob_table = [Fraction(1, 7)] + list(a.prob_table[1:])           # one chance probability
    assert fingerprint(probs) != fingerprint(a)
    edges = copy.copy(a)
    edges.child = copy.copy(a.child)
    edges.child[0], edges.child[1] = a.child[1], a.child[0]                  # two edges' order
    assert fingerprint(edges) != fingerprint(a)


def test_memo_solve_reuses_an_identical_graph_and_keeps_its_own_exploration():
    memo: dict = {}
    a, b = explore(Pig(goal=5)), explore(Pig(goal=5))
    first = memo_solve(a, memo, exact=True)
    second = memo_solve(b, memo, exact=True)
    assert len(memo) == 1 and second.exploration is b
    assert second.exact == first.exact == solve(b, exact=True).exact
    memo_solve(b, memo)                           # float: another entry, not the exact one
    assert len(memo) == 2


def _write(tmp_path, entries: dict) -> None:
    (tmp_path / "pig.json").write_text(json.dumps(entries))


@pytest.mark.parametrize("processes", [1, 2])
def test_a_changed_value_is_caught_even_when_its_graph_was_solved_for_another_scenario(
        tmp_path, monkeypatch, processes):
    rs = analysis.scenario_ruleset("pig", {"goal": 6}, {}, "test")
    expect = analysis.run_scenario(rs)           # no memo: a solve of its own
    expect.pop("_prints")
    assert sum(map(Fraction, expect["values"])) == 1   # someone wins Pig
    entries = {name: {"params": {"goal": 6}, "rulings": {}, "expect": copy.deepcopy(expect)}
               for name in ("first", "second", "third")}
    entries["second"]["expect"]["values"][0] = "1/2"
    entries["third"]["expect"]["states"] += 1
    _write(tmp_path, entries)
    monkeypatch.setattr(analysis, "SCENARIO_DIR", tmp_path)
    rows = analysis.check_games(["pig"], processes=processes)["pig"]
    assert [r["scenario"] for r in rows] == ["first", "second", "third"]
    assert [r["same"] for r in rows] == [True, False, False]
    assert all(r["got"] == expect for r in rows)
    if processes == 1:   # the three share one exact solve in this process (and one digest)
        from ruleproof.solver.digest import _LAST
        assert len([k for k in analysis._MEMO if k != _LAST]) == 1


@pytest.mark.parametrize("entry,needle", [({"params": {"goal": -3}, "rulings": {}, "expect": {}}, "pig.json:bad"),
                                          ({"params": {"goal": 6}, "rulings": {}}, "'expect'")])
def test_a_bad_scenario_is_one_line_before_any_work(tmp_path, monkeypatch, entry, needle):
    _write(tmp_path, {"bad": entry})
    monkeypatch.setattr(analysis, "SCENARIO_DIR", tmp_path)
    with pytest.raises(analysis.RulesetError) as err:
        analysis.check_games(["pig"], processes=2)
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_a_change_no_start_value_shows_is_caught_and_its_first_state_narrated(tmp_path, monkeypatch):
    """A hold that banks one point more once the mover has 4 or more: the start values hardly move
    at goal 6, but some state's moves change; the digest sees it and the check narrates the first
    state (breadth-first) whose record differs."""
    from ruleproof.model.kits import dice_race
    from ruleproof.solver import digest
    rs = analysis.scenario_ruleset("pig", {"goal": 6}, {}, "test")
    expect = analysis.run_scenario(rs)
    prints = expect.pop("_prints")
    (tmp_path / "pig.json").write_text(json.dumps({"deep": {"params": {"goal": 6}, "rulings": {},
                                                            "expect": expect}}))
    (tmp_path / "pig.states.xz").write_bytes(digest.dump_prints({"deep": prints}))
    monkeypatch.setattr(analysis, "SCENARIO_DIR", tmp_path)
    assert analysis.check_games(["pig"], processes=1)["pig"][0]["same"]
    real = dice_race.DiceRace.hold

    def generous(self, s):
        t = real(self, s)
        m = s[self._mover]
        if t[self._winner] < 0 and s[m] >= 4 and s[self._turn] == 0:
            return t[:m] + (t[m],) + t[m + 1:] if t[m] + 1 >= self.goal else t[:m] + (t[m] + 1,) + t[m + 1:]
        return t
    monkeypatch.setattr(dice_race.DiceRace, "hold", generous)
    monkeypatch.setattr(dice_race.DiceRace, "expand_keys", lambda self, keys: None)
    row = analysis.check_games(["pig"], processes=1)["pig"][0]
    assert not row["same"] and row["got"]["digest"] != expect["digest"]
    text = "\n".join(row["first_change"])
    assert text.startswith("start:") and "differs from the recorded one; now:" in text
