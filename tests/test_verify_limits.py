"""``verify --timeout/--max-states`` reach into each game's own checks, and Presentes' solve hook
stops at ``--timeout``: what a limit stops is unknown (never holds), and it stops soon."""
from __future__ import annotations

import json
import time

import pytest
import z3
from typer.testing import CliRunner

from ruleproof.cli import app
from ruleproof.model.registry import get_spec
from ruleproof.proofs import harness
from ruleproof.proofs.harness import Action, check_inductive, optimize_bound, prove
from ruleproof.solver.explore import explore
from ruleproof.model.limits import NO_LIMITS, Z3_BACKSTOP_MS, Z3_WORK, Limits
from ruleproof.model.results import FAILS, HOLDS, UNKNOWN
from ruleproof.solver.verify import verify

#: the machine is shared: a run may overshoot its limit by this much and still pass
SLACK = 15.0


def small(game: str, **params):
    spec = get_spec(game)
    return spec, spec.default().with_overrides({**spec.verify_overrides, **params}, spec=spec.schema)


def expired() -> Limits:
    return Limits(deadline=time.perf_counter() - 1)


# ---- Limits -------------------------------------------------------------------------------------

def test_limits_without_a_timeout_change_nothing():
    assert NO_LIMITS.remaining() is None and not NO_LIMITS.expired()
    assert NO_LIMITS.states(500) == 500 and NO_LIMITS.states(None) is None
    assert NO_LIMITS.z3_timeout_ms(20_000) == 20_000


def test_limits_count_down_and_cap():
    lim = Limits.starting_now(max_states=1000, timeout=30)
    assert lim.states(500_000) == 1000
    assert 0 < lim.remaining() <= 30 and not lim.expired()
    assert lim.z3_timeout_ms(20_000) == 20_000          # the check's own timeout is shorter
    assert 1_000 < lim.z3_timeout_ms(60_000) <= 30_000  # the time left is shorter
    late = expired()
    assert late.expired() and late.remaining() == 0.0 and late.z3_timeout_ms(20_000) == 1
    res = late.not_run("some-property", "z3")
    assert (res.name, res.status, res.kind) == ("some-property", UNKNOWN, "z3") and "not run" in res.detail


# ---- the Z3 harness -----------------------------------------------------------------------------

def _counter(sfx):
    return {"x": z3.Int("x" + sfx)}


def test_harness_does_not_start_after_the_deadline():
    claim = lambda f: f["x"] * f["x"] >= 0  # noqa: E731 - true, so only the limit can stop it
    assert prove("square", _counter, claim).status == HOLDS
    assert prove("square", _counter, claim, limits=NO_LIMITS).status == HOLDS
    late = prove("square", _counter, claim, limits=expired())
    assert late.status == UNKNOWN and "not run" in late.detail
    res, lo, hi, _ = optimize_bound("range", _counter, lambda f: f["x"],
                                    lambda f: z3.And(f["x"] >= 0, f["x"] <= 3), limits=expired())
    assert res.status == UNKNOWN and lo is None and hi is None


def test_inductive_check_stops_between_actions_at_the_deadline():
    def slow_step(s, t):  # building this action's formula outlasts the deadline
        time.sleep(0.3)
        return t["x"] == s["x"] + 1

    actions = [Action("slow-step", slow_step), Action("step", lambda s, t: t["x"] == s["x"] + 1)]
    args = ("non-negative", _counter, lambda f: f["x"] == 0, lambda f: f["x"] >= 0, actions)
    assert check_inductive(*args).status == HOLDS
    res = check_inductive(*args, limits=Limits.starting_now(timeout=0.1))
    # Z3 gets 1 ms for slow-step (it may still answer); step is never started
    assert res.status == UNKNOWN
    assert "before action step" in res.detail or "slow-step" in res.detail and "time limit" in res.detail



# ---- Z3's work budget: a verdict that does not depend on the machine's load ----------------------

def _cubes(sfx):
    return {f"x{i}": z3.Int(f"x{i}{sfx}") for i in range(12)}


def _sum_of_cubes_is_not_33(f):
    # true? Z3 cannot tell quickly: the sum of twelve cubes of integers in (-40, 40) avoiding 33
    xs = list(f.values())
    return z3.Implies(z3.And([z3.And(x > -40, x < 40) for x in xs]), z3.Sum([x * x * x for x in xs]) != 33)


def test_a_check_ends_at_its_work_budget_whatever_the_clock(monkeypatch):
    """Bounded by work, a hard check ends unknown after the same number of Z3 steps on any machine,
    and says it was the work budget (not 'canceled'); with no user limit no short clock applies."""
    monkeypatch.setattr("ruleproof.model.limits.Z3_WORK", 200_000)
    start = time.perf_counter()
    res = prove("cubes", _cubes, _sum_of_cubes_is_not_33)
    assert res.status == UNKNOWN, res.detail
    assert "work budget (200,000 steps)" in res.detail and "canceled" not in res.detail
    assert time.perf_counter() - start < 5 + SLACK      # 200,000 steps: well under a second here
    again = prove("cubes", _cubes, _sum_of_cubes_is_not_33)
    assert (again.status, again.detail) == (res.status, res.detail)


def test_the_unknown_reasons_read_as_what_stopped_z3():
    assert NO_LIMITS.z3_unknown("canceled") == f"z3 used its whole work budget ({Z3_WORK:,} steps) undecided"
    assert str(Z3_BACKSTOP_MS // 1000) in NO_LIMITS.z3_unknown("timeout")
    # a user's time limit not yet past: a timeout is still that limit's, not the backstop's
    assert Limits.starting_now(timeout=60).z3_unknown("timeout") == "z3 timeout (stopped by the time limit)"
    assert expired().z3_unknown("canceled") == "z3 canceled (stopped by the time limit)"
    assert NO_LIMITS.z3_unknown("incomplete quantifiers") == "z3 incomplete quantifiers"


def test_after_an_undecided_part_the_rest_still_find_a_counterexample(monkeypatch):
    """The parts of a refutation left after an undecided one get a small share of the budget:
    enough for an easy counterexample (the step fails), never the full budget each again."""
    budgets = []
    real = harness._check

    def spy(solver, limits=NO_LIMITS, work=None):
        budgets.append(work)
        return real(solver, limits, work)

    monkeypatch.setattr(harness, "_check", spy)
    monkeypatch.setattr("ruleproof.model.limits.Z3_WORK", 200_000)
    monkeypatch.setattr(harness, "Z3_WORK", 200_000)
    f = _cubes("")
    hard = [_sum_of_cubes_is_not_33(f)] * harness.REFUTE_CHUNK          # the first part: undecided
    easy = [f["x0"] >= 0]                                                  # the last: refuted at once
    solver = z3.Solver()
    assert harness._refute(solver, z3.And(hard + easy)) == (z3.sat, "")
    assert budgets == [None, 200_000 // harness.AFTER_UNDECIDED]
    budgets.clear()
    more = [f[f"x{i}"] * f[f"x{i}"] >= 0 for i in range(1, 9)]           # true parts: each unsat
    assert harness._refute(z3.Solver(), z3.And(hard + more)) == (z3.unknown, "canceled")   # the first part's reason
    assert budgets == [None, 200_000 // harness.AFTER_UNDECIDED]

# ---- each game's checks under a time limit --------------------------------------------------------

@pytest.mark.parametrize("game,params,timeout", [
    ("presentes", {}, 0.6),   # verify presentes takes about 4 s: the limit must cut it
    ("loira", {"players": 5}, 2.0),   # its own exploration alone would pass 2,000,000 states
    ("bomb-busters", {}, 1.0),
])
def test_verify_stops_near_its_time_limit(game, params, timeout):
    spec, rs = small(game, **params)
    start = time.perf_counter()
    rep = verify(spec, rs, timeout=timeout)
    assert time.perf_counter() - start < timeout + SLACK
    assert not [p.name for p in rep.properties if p.status == FAILS]
    # too little time to explore: nothing is claimed exhaustive for the ruleset's own configuration
    # (derived configurations name themselves); what the time did not allow is unknown
    own = [p for p in rep.properties if not p.scope.startswith("derived")]
    assert all(p.evidence != "exhaustive" or "exhaustive" not in p.scope for p in own)
    assert rep.status in (UNKNOWN, HOLDS)
    assert any(p.status == UNKNOWN or p.evidence == "sampled" for p in rep.properties)


def test_a_time_limit_keeps_every_property_name():
    """The checks a deadline stops are still listed (unknown), not silently dropped."""
    spec, rs = small("bomb-busters")
    full = verify(spec, rs)
    assert full.status == HOLDS
    cut = verify(spec, rs, timeout=0.5)
    assert {p.data["property"] for p in full.properties} <= {p.data["property"] for p in cut.properties}
    assert all(p.status in (HOLDS, UNKNOWN) for p in cut.properties)
    assert any(p.status == UNKNOWN for p in cut.properties)  # the deadline stopped something


def test_presentes_properties_past_the_deadline_are_not_run_and_named():
    from ruleproof.solver.explore import explore
    from ruleproof.solver.verify import check_exploration
    spec, rs = small("presentes")
    results = check_exploration(spec, rs, explore(spec.build(rs)), own_only=True, limits=expired())
    assert len(results) >= 10 and all(r.status == UNKNOWN and "time limit" in r.detail for r in results.values())
    assert "termination-every-policy (ranking)" in results and "simulator-agrees" in results


# ---- each game's checks under a state limit --------------------------------------------------------

def test_loira_max_states_makes_its_explorations_unknown():
    spec, rs = small("loira")
    # 400: below every companion's size (the smallest, two Tias, has 492 states)
    rep = verify(spec, rs, max_states=400)
    props = {p.name: p for p in rep.properties}
    assert rep.status == UNKNOWN and any("state limit 400" in note for note in rep.notes)
    # the C engine's comparison needs an exploration the limit stops (the companions' too): unknown
    assert props["fast-engine"].status == UNKNOWN
    assert props["tie-break"].status == HOLDS and props["tie-break"].evidence == "sampled"


def test_presentes_max_states_leaves_proofs_on_sampled_plays():
    spec, rs = small("presentes")
    rep = verify(spec, rs, max_states=1000, plays=20)
    # in its place verify explores the smaller 'tiny' board (578 states: within the same limit)
    assert [(d["label"].split(",")[0], d["states"]) for d in rep.derived] == [("tiny board", 578)]
    # the Z3 proofs need no state limit; their mapping is then checked on sampled plays
    z3 = next(p for p in rep.properties if p.name.startswith("z3-gift-conservation"))
    assert z3.status == HOLDS and z3.evidence == "sampled" and z3.data["refinement"]["plays"] == 20


def test_bomb_busters_max_states_leaves_the_missions_it_cannot_explore_to_the_notes():
    spec, rs = small("bomb-busters")
    rep = verify(spec, rs, max_states=1500)
    assert any("yellow '2 de 3': not explored completely (state limit 1500 reached)" in n for n in rep.notes)
    # a companion left unexplored is undecided, never quietly green
    unchecked = next(p for p in rep.properties if p.name == "companion [companion: yellow '2 de 3']")
    assert unchecked.status == UNKNOWN and "not explored completely" in unchecked.detail
    assert rep.status != HOLDS
    # the properties that need every state ran on the companion that fits (four copies, 1,403 states)
    for name in ("turn-bound", "deduction", "policy likely"):
        p = next(p for p in rep.properties if p.name == f"{name} [companion: four copies]")
        assert p.status == HOLDS and p.evidence == "exhaustive" and "1,403 states" in p.scope, p.scope
    own = [p for p in rep.properties if not p.scope.startswith("derived")]
    assert all(p.evidence in ("sampled", "unknown") for p in own), [(p.name, p.evidence) for p in own]
    assert not [p.name for p in rep.properties if p.status == FAILS]


def test_loira_searches_of_a_partial_graph_never_hold():
    from ruleproof.model.loira.game import LoiraGame
    from ruleproof.model.loira.config import config_from
    from ruleproof.model.loira.checks import deck_runs_out
    _, rs = small("loira")
    game = LoiraGame(config_from(rs), symmetry=False)
    ex = explore(game, max_states=10, check_invariants=False)
    assert not ex.complete
    trace, stop = deck_runs_out(ex, NO_LIMITS)
    assert trace is None and "state limit 10" in stop


# ---- the command line -------------------------------------------------------------------------------

def test_cli_verify_with_a_timeout_is_unknown_and_exit_1():
    start = time.perf_counter()
    result = CliRunner().invoke(app, ["verify", "presentes", "--timeout", "2", "--json"])
    assert time.perf_counter() - start < 2 + SLACK
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert doc["status"] == "unknown"
    assert any("not run" in p["detail"] for p in doc["properties"])


# ---- the Presentes solve hook ---------------------------------------------------------------------------

def test_presentes_solve_stops_at_its_timeout_with_a_partial_result():
    from ruleproof.solver.analysis import solve_ruleset
    spec = get_spec("presentes")
    start = time.perf_counter()
    res = solve_ruleset(spec.default(), timeout=0.5).doc()
    assert time.perf_counter() - start < 0.5 + SLACK
    assert res["partial"] is True and res["values"] is None
    assert res["reason"].startswith("time limit 0.5 s reached while") and res["states"] > 0


def test_presentes_analysis_raises_at_the_deadline():
    from ruleproof.model.presentes.exact import LimitReached, analyse
    game = get_spec("presentes").build(small("presentes")[1])
    assert analyse(game, horizon=0)["states"] > 0
    with pytest.raises(LimitReached):
        analyse(game, horizon=0, limits=expired())


def test_sampled_plays_are_a_fixed_amount_of_work_without_a_user_timeout(monkeypatch):
    """Without --timeout the sampled plays are drawn with no clock (the same evidence on a busy
    machine as on a quiet one); a user's --timeout may cut them short."""
    import ruleproof.solver.verify as verify_module
    seen = []
    real = verify_module.draw_plays

    def spy(game, plays, seed, limits=None, progress=None):
        seen.append((plays, limits.deadline if limits is not None else None))
        return real(game, plays, seed, limits, progress) if limits is not None else real(game, plays, seed)
    monkeypatch.setattr(verify_module, "draw_plays", spy)
    spec, rs = small("pig")
    rep = verify(spec, rs, max_states=100, plays=60)
    assert seen and all(plays == 60 and deadline is None for plays, deadline in seen), seen
    ended = next(p for p in rep.properties if p.name == "termination")
    assert ended.status == HOLDS and "60 of 60 sampled plays" in ended.detail, ended.detail
    seen.clear()
    verify(spec, rs, max_states=100, plays=60, timeout=30)
    assert seen and all(deadline is not None for _, deadline in seen), seen


def test_without_a_timeout_no_clock_decides_what_verify_establishes(monkeypatch):
    """Budgets by work, not by clock: verify without --timeout gives the same report however slow
    the machine is -- here a clock that jumps 1,000 s at every reading (a share of any time budget
    would have run out at once, leaving the exploration short and properties unknown)."""
    spec, rs = small("pig", goal=8)
    quiet = verify(spec, rs)
    now = [time.perf_counter()]

    def crawling() -> float:
        now[0] += 1000.0
        return now[0]
    monkeypatch.setattr(time, "perf_counter", crawling)
    loaded = verify(spec, rs)
    monkeypatch.undo()
    assert loaded.states == quiet.states and loaded.status == quiet.status == HOLDS
    assert [(p.name, p.status, p.detail) for p in loaded.properties] == \
        [(p.name, p.status, p.detail) for p in quiet.properties]
