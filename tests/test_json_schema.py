"""`solve --json` and `simulate --json` print the same documented keys for every game
(docs/json.md), and each names the engine that answered and why earlier ones did not."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ruleproof.cli import app
from ruleproof.model.registry import GAMES, get_spec
from ruleproof.model.seams import MEANINGS
from ruleproof.solver.analysis import SOLVE_KEYS, engines_of, solve_ruleset
from ruleproof.solver.montecarlo import SIMULATE_KEYS, simulate_ruleset

MODEL = Path(__file__).resolve().parent.parent / "model"
runner = CliRunner()

def run_json(*args: str) -> tuple[int, dict]:
    res = runner.invoke(app, list(args))
    return res.exit_code, json.loads(res.stdout)


def small(game: str):
    """The game's default small configuration (what ``verify`` explores)."""
    spec = get_spec(game)
    return spec.default().with_overrides(dict(spec.verify_overrides), spec=spec.schema)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_solve_has_the_documented_keys(game):
    solved = solve_ruleset(small(game))
    doc = json.loads(json.dumps(solved.doc()))   # plain JSON: no solution object inside
    assert tuple(doc) == SOLVE_KEYS
    assert doc["engine"] in [e.name for e in engines_of(get_spec(game))] and doc["meaning"] in MEANINGS
    assert doc["partial"] is False and doc["reason"] is None and doc["values"] and doc["value_meaning"]
    # each value is a typed estimate (docs/json.md): exact with its fraction, else solved / sampled
    assert all({"kind", "fraction", "float"} <= set(v) for v in doc["values"])
    assert all((v["fraction"] is not None) == doc["exact"] == (v["kind"] == "exact") for v in doc["values"])
    assert len(doc["values"]) == small(game)["players"]   # one value per seat


@pytest.mark.parametrize("game", sorted(GAMES))
def test_simulate_has_the_documented_keys(game):
    doc = json.loads(json.dumps(simulate_ruleset(small(game), 30, 4)))
    assert tuple(doc) == SIMULATE_KEYS
    assert doc["games"] == 30 and len(doc["seats"]) == len(doc["seat_policies"])
    estimates = [*doc["metrics"].values(), *(e for seat in doc["seats"] for e in seat.values())]
    assert estimates
    for estimate in estimates:
        assert {"mean", "ci95", "n"} <= set(estimate) and estimate["n"] == 30
        # every simulated figure is sampled, names its seed and policy, and stays in its range
        assert estimate["kind"] == "sampled" and estimate["seed"] == 4 and estimate["policy"]
        low, high = estimate["bounds"] or (None, None)
        assert (low is None or estimate["ci95"][0] >= low) and (high is None or estimate["ci95"][1] <= high)


def test_the_command_line_prints_the_same_documents():
    code, doc = run_json("solve", "pig", "--goal", "8", "--no-files", "--json")
    assert code == 0 and tuple(doc) == SOLVE_KEYS and doc["engine"] == "generic" and doc["meaning"] == "optimal"
    code, doc = run_json("simulate", "bomb-busters-tiny", "--games", "20", "--json")
    assert code == 0 and tuple(doc) == SIMULATE_KEYS and doc["seat_policies"] == ["likely", "likely"]
    assert set(doc["metrics"]) == {"win_rate", "turns", "detonator_at_end", "moves"}


def test_a_partial_solve_keeps_the_keys():
    code, doc = run_json("solve", "pig", "--goal", "30", "--max-states", "50", "--no-files", "--json")
    assert code == 1 and tuple(doc) == SOLVE_KEYS
    assert doc["partial"] is True and doc["values"] is None and "state limit" in doc["reason"]


def test_loira_names_the_engine_that_answered_and_why_the_first_did_not():
    # twelve cards: the C solver counts more than 20,000 turn-start states, so the generic
    # exploration is passed over without being started; the state limit then stops the C solver
    code, doc = run_json("solve", str(MODEL / "loira" / "examples" / "twelve-cards.toml"), "--max-states", "1000",
                         "--no-files", "--json")
    assert code == 1 and doc["engine"] == "c-solver" and doc["partial"] is True
    assert [s["engine"] for s in doc["skipped"]] == ["generic"]
    assert "turn-start states" in doc["skipped"][0]["reason"]
    # the small round: the generic engine answers, and the C solver's value agrees
    code, doc = run_json("solve", "loira-mini", "--no-files", "--json")
    assert doc["engine"] == "generic" and doc["extras"]["fast_check"]["agrees"] is True
    # the C solver named by the user answers the same round with the same fraction (its exact
    # forms: a second exact engine), and in floats with --float
    code, c = run_json("solve", "loira-mini", "--engine", "c-solver", "--no-files", "--json")
    assert code == 0 and c["engine"] == "c-solver" and c["exact"]
    assert c["values"][0]["fraction"] == doc["values"][0]["fraction"] == "46/405"
    code, c = run_json("solve", "loira-mini", "--engine", "c-solver", "--float", "--no-files", "--json")
    assert code == 0 and not c["exact"]
    assert c["values"][0]["float"] == pytest.approx(doc["values"][0]["float"], abs=1e-9)


def test_an_engine_that_does_not_apply_is_bad_input():
    res = runner.invoke(app, ["solve", "loira-mini", "--engine", "near-optimal", "--no-files"])
    assert res.exit_code == 2 and "near-optimal does not apply: the exact engines reach" in res.stderr
    res = runner.invoke(app, ["solve", "pig", "--engine", "warp", "--no-files"])
    assert res.exit_code == 2 and "unknown engine 'warp'" in res.stderr


def test_pick_engine_reports_every_engine_passed_over():
    from ruleproof.model.registry import load_ruleset
    from ruleproof.model.ruleset import RulesetError
    from ruleproof.model.seams import Engine, SolveOptions, SolveResult
    from ruleproof.solver.analysis import pick_engine

    def answer(ruleset, options, progress):
        return SolveResult((0.5, 0.5), "bound", False, 1, "made up")
    never = Engine("never", lambda rs, o: "never applies", answer)
    small_only = Engine("small", lambda rs, o: None if o.max_states else "needs --max-states", answer)
    rs = load_ruleset("pig")
    chosen, skipped = pick_engine((never, small_only), rs, SolveOptions(max_states=10))
    assert chosen is small_only and skipped == [("never", "never applies")]
    with pytest.raises(RulesetError, match="no engine applies.*never: never applies; small: needs --max-states"):
        pick_engine((never, small_only), rs, SolveOptions())
    with pytest.raises(RulesetError, match="never does not apply: never applies"):
        pick_engine((never, small_only), rs, SolveOptions(), "never")


def test_a_result_has_values_exactly_when_complete():
    from ruleproof.model.seams import SolveResult
    with pytest.raises(ValueError):
        SolveResult(None, "optimal", False, 3, "m")             # no values, yet not partial
    with pytest.raises(ValueError):
        SolveResult((1,), "best", True, 3, "m")                 # not a documented meaning
    stopped = SolveResult.stopped("state limit 3 reached", 3, "m")
    assert stopped.values is None and stopped.partial == "state limit 3 reached"
