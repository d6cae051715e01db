"""Play tables, policy summaries and pictures (solver/tables.py, model/*/summary.py)."""
from __future__ import annotations

import csv
import json
from fractions import Fraction

import numpy as np
import pytest

from ruleproof.model.loira.exact import solve as loira_exact_solve
from ruleproof.model.loira.summary import summary as loira_summary
from ruleproof.model.loira.summary import turn_choices
from ruleproof.model.loira.table import _decisions
from ruleproof.model.pig.game import Pig
from ruleproof.model.kits.dice_race_policy import hold_grid
from ruleproof.model.kits.dice_race_policy import summary as pig_summary
from ruleproof.solver.engines import write_solution_files
from ruleproof.solver.explore import explore
from ruleproof.solver.graph import policy_table
from ruleproof.solver.solve import solve
from ruleproof.solver.tables import occupancy, play_rows, write_play_table
from test_loira_helpers import game as loira_game

LOIRA_TINY = {"deck": ["F1", "F2", "M1", "grito", "toc-toc", "fios"], "stalls": [2, 4], "centre_rolls": 1}


def picture_is_not_blank(path) -> bool:
    import matplotlib.image as mpimg
    pixels = mpimg.imread(path)
    return pixels.shape[0] > 100 and float(np.std(pixels[..., :3])) > 0.02


def test_occupancy_against_value_iteration_on_pig():
    """Two ways to the expected visits of a cyclic game: one sparse solve, and iterating
    x <- e0 + P^T x until it settles; play ends for sure, so terminals add up to 1."""
    sol = solve(explore(Pig(goal=15)))
    visits = occupancy(sol)
    from ruleproof.solver.tables import _policy_matrix
    pt = _policy_matrix(sol).T.tocsr()
    x = np.zeros(len(visits))
    e0 = np.zeros(len(visits))
    e0[0] = 1.0
    for _ in range(20_000):
        nxt = e0 + pt @ x
        if np.abs(nxt - x).max() < 1e-13:
            break
        x = nxt
    assert np.allclose(visits, x, atol=1e-9)
    kind = np.frombuffer(sol.exploration.kind, dtype=np.int8)
    assert visits[kind == -2].sum() == pytest.approx(1.0, abs=1e-9) or visits[kind < -1].sum() == pytest.approx(1.0)


def test_loira_visits_match_the_exact_solvers_reach_probabilities():
    """The generic occupancy against model.loira.table's exact reach (another solver, Fractions):
    every go/stop decision optimal play meets, with the same weight."""
    g = loira_game(LOIRA_TINY)
    exact = {s: (a, p) for s, a, p in _decisions(g, loira_exact_solve(g))}
    sol = solve(explore(g), exact=True)
    mine = {s: w for s, _, w in turn_choices(sol, occupancy(sol))}
    assert len(exact) == len(mine) > 100
    assert all(abs(float(p) - mine[s]) < 1e-9 for s, (_, p) in exact.items())


def test_pig_play_table_is_typed_and_says_what_the_value_means(tmp_path):
    sol = solve(explore(Pig(goal=10)), exact=True)
    files = write_play_table(sol, tmp_path)
    rows = list(csv.DictReader((tmp_path / "play_table.csv").open()))
    meta = json.loads((tmp_path / "play_table.meta.json").read_text())
    assert [str(f.name) for f in files] == ["play_table.csv", "play_table.meta.json"]
    assert list(rows[0])[:3] == ["my_score", "opponent_score", "turn_total"]
    types = {c["name"]: c["type"] for c in meta["columns"]}
    assert types["my_score"] == "int" and types["value"] == "float" and types["value_exact"] == "str"
    assert "P(the mover wins)" in meta["value"]
    # the start: Pig to 10, first player wins 7776/10961 (our exact solve, cf. test_pig), visited
    # more than once (a 1 for both players brings play back to 0-0)
    start = rows[0]
    assert (start["my_score"], start["turn_total"], start["value_exact"]) == ("0", "0", "7776/10961")
    assert float(start["value"]) == pytest.approx(7776 / 10961) and float(start["visits"]) > 1
    assert all(Fraction(r["value_exact"]) == pytest.approx(float(r["value"])) for r in rows)
    # by default only what optimal play reaches; --full: every decision state, each action's value
    cols, full_rows, sel = play_rows(sol, full=True)
    assert sel["rows"] == sel["decision_states"] > len(rows) and "value:hold" in cols


def test_pig_hold_grid_agrees_with_the_prose_policy_table():
    """The hold-at grid decodes int keys in numpy; policy_table goes through states and words."""
    sol = solve(explore(Pig(goal=40)))
    grid = hold_grid(sol, occupancy(sol))["hold_at"]
    assert np.isfinite(grid).sum() >= 4   # goal 40: holds only where both scores are low
    expect = np.full((40, 40), np.nan)
    for r in policy_table(sol):
        words = r["state"].split()          # "scores A-B, seat 0 to decide with turn total K"
        a, b = map(int, words[1].rstrip(",").split("-"))
        k = int(words[-1])
        mine, theirs = (a, b) if words[3] == "0" else (b, a)
        if k >= 1 and r["best"] == "hold" and not expect[mine, theirs] <= k:
            expect[mine, theirs] = k
    assert np.array_equal(np.isnan(grid), np.isnan(expect))
    assert np.array_equal(np.nan_to_num(grid), np.nan_to_num(expect))


def test_pig_goal_10_never_holds_and_the_picture_says_so(tmp_path):
    sol = solve(explore(Pig(goal=10)), exact=True)
    made = pig_summary(sol, occupancy(sol))
    assert made.constant and "never holds" in made.constant and "never holds" in made.text.lower()
    from ruleproof.model.kits.dice_race_policy import draw_policy
    path = draw_policy(sol.exploration.game, sol, tmp_path / "policy.png")
    assert picture_is_not_blank(path)


def test_pig_goal_40_summary_has_thresholds(tmp_path):
    # below goal 40 optimal play never holds with a turn total (it rolls on to the goal)
    assert pig_summary(*(lambda s: (s, occupancy(s)))(solve(explore(Pig(goal=30))))).constant
    sol = solve(explore(Pig(goal=40)))
    out = write_solution_files(sol, tmp_path, summary=pig_summary)
    assert out["policy_summary"]["constant"] is None
    text = (tmp_path / "policy_summary.txt").read_text()
    assert "Hold once the turn total reaches N" in text
    rows = list(csv.DictReader((tmp_path / "policy_summary.csv").open()))
    assert {r["rule"].split()[0] for r in rows} == {"hold", "never"}
    # the rule of each cell reproduces the optimal action, up to the weight reported
    assert "situations where the optimal action is not" in text


def test_loira_summary_and_picture(tmp_path):
    g = loira_game(LOIRA_TINY)
    sol = solve(explore(g), exact=True)
    made = loira_summary(sol, occupancy(sol))
    assert made.constant is None and "não pega mais cartas" in made.text
    assert "Where optimal play stops" in made.text
    # the summary's weights add up to the go/stop decisions of the play table
    cols, rows, _ = play_rows(sol)
    at = {c: i for i, c in enumerate(cols)}
    decided = sum(r[at["visits"]] for r in rows if r[at["phase"]] == "turn"
                  and r[at["optimal_action"]] in ("stops", "goes to the bathroom (draws)"))
    assert sum(r[5] for r in made.rows) == pytest.approx(decided, abs=1e-6)
    from ruleproof.model.loira.picture import draw_policy
    assert picture_is_not_blank(draw_policy(g, sol, tmp_path / "policy.png"))


@pytest.mark.slow
def test_pig_100_default_files_stay_small(tmp_path):
    sol = solve(explore(Pig(goal=100)))
    out = write_solution_files(sol, tmp_path, summary=pig_summary)
    total = sum((tmp_path / f.split("/")[-1]).stat().st_size for f in out["files"])
    assert total <= 10_000_000


def test_presentes_choices_that_matter(tmp_path):
    """presentes-gifts: gift 0 is worth 3, gift 1 worth 1, seat 0 optimises against 'eager' play;
    it takes gift 0 from the tree where 'eager' would steal P1's gift 1."""
    from ruleproof.model.presentes import SPEC
    from ruleproof.solver.analysis import solve_ruleset
    solve_ruleset(SPEC.ruleset("presentes-gifts"), out_dir=tmp_path)
    rows = list(csv.DictReader((tmp_path / "play_table.csv").open()))
    assert rows and {"phase", "P0_square", "P1_gift", "optimal_action", "policy_action"} <= set(rows[0])
    assert all(r["optimal_action"] != r["policy_action"] for r in rows)
    firsts = [r for r in rows if r["phase"] == "first"]
    assert firsts and all(r["optimal_action"] == "first gift: take from the tree"
                          and r["P1_gift"] == "1" for r in firsts)
    assert "the choices that matter" in (tmp_path / "policy_summary.txt").read_text()
    # no seat optimises: the summary says so instead of writing an empty table silently
    solve_ruleset(SPEC.ruleset("presentes-mini"), out_dir=tmp_path / "mini")
    text = (tmp_path / "mini" / "policy_summary.txt").read_text()
    assert "No seat optimises" in text and "--focal-seat" in text


def test_occupancy_on_a_cyclic_race_solves_its_own_equation_and_counts_the_moves():
    """Skunk's snake eyes send a seat's banked score back to 0: most states share one cyclic
    component. The visits solve x = e0 + P^T x (through the LU of I - P, transposed), and their sum
    is the expected length of play plus the end's one visit (``rulings.expected_moves``, solved the
    other way: E = 1 + P E by components)."""
    from scipy.sparse import identity

    from ruleproof.model.registry import get_spec
    from ruleproof.solver.rulings import expected_moves
    from ruleproof.solver.tables import _policy_matrix
    spec = get_spec("skunk")
    sol = solve(explore(spec.build(spec.default().with_overrides({"goal": 30}, spec=spec.schema))))
    visits = occupancy(sol)
    P = _policy_matrix(sol)
    start = np.zeros(len(visits))
    start[0] = 1.0
    assert np.abs((identity(len(visits)) - P.T) @ visits - start).max() < 1e-12
    assert visits.sum() == pytest.approx(expected_moves(sol) + 1, rel=1e-12)
