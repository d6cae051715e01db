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
    if processes == 1:   # the three share one exact solve in this process
        assert len(analysis._MEMO) == 1


@pytest.mark.parametrize("entry,needle", [({"params": {"goal": -3}, "rulings": {}, "expect": {}}, "pig.json:bad"),
                                          ({"params": {"goal": 6}, "rulings": {}}, "'expect'")])
def test_a_bad_scenario_is_one_line_before_any_work(tmp_path, monkeypatch, entry, needle):
    _write(tmp_path, {"bad": entry})
    monkeypatch.setattr(analysis, "SCENARIO_DIR", tmp_path)
    with pytest.raises(analysis.RulesetError) as err:
        analysis.check_games(["pig"], processes=2)
    assert needle in str(err.value) and "\n" not in str(err.value)
