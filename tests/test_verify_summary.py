"""verify's text output ends with a one-screen summary, and its progress moves in every phase."""
from __future__ import annotations

from typer.testing import CliRunner

from ruleproof.cli import app
from ruleproof.model.registry import get_spec
from ruleproof.model.limits import Limits
from ruleproof.solver.verify import verify

runner = CliRunner()


def test_verify_text_ends_with_one_line_per_property_then_the_verdict():
    result = runner.invoke(app, ["verify", "pig", "--goal", "8"])
    assert result.exit_code == 0, result.stdout
    lines = result.stdout.rstrip("\n").splitlines()
    assert lines[-1] == "verify: holds"
    # the ruleset's nine properties, then the same nine on the three-seat companion (goal 6)
    assert lines[-2].startswith("pig: holds — 4 proved, 14 exhaustive;")
    summary = lines[-20:-2]
    assert lines[-21].startswith("summary of pig (pig)") and "about pig (goal=8): 602 states unless named:" in lines[-21]
    names = ["scores-below-goal", "turn-total-bounded", "legal-actions", "chance-distribution",
             "utility-bounds", "termination", "fast-paths", "pig-state-invariant", "pig-turn-progress"]
    for line, name in zip(summary, names):
        assert line.startswith(f"✓ {name} ") and "goal=8" not in line   # the scope is the header's
    for line, name in zip(summary[9:], names):
        assert line.startswith(f"✓ {name} [companion: 3 p") and "derived:" in line   # cut to 80 columns
    assert "proved" in summary[8] and "exhaustive" in summary[0]
    assert all(len(line) <= 80 for line in summary)   # CliRunner's console is 80 columns


def test_verify_summary_marks_unknowns():
    result = runner.invoke(app, ["verify", "pig", "--max-states", "10", "--timeout", "0.01"])
    assert result.exit_code == 1
    tail = result.stdout.splitlines()[-12:]
    assert any(line.startswith("? ") for line in tail) and tail[-1].startswith("verify: unknown")


def test_verify_reports_every_phase():
    """Exploration through ``progress``; each proof, then the game checks, through ``phase``."""
    spec = get_spec("pig")
    rs = spec.default().with_overrides({"goal": 8}, spec=spec.schema)
    explored, phases = [], []
    verify(spec, rs, progress=lambda n, p, s: explored.append(n),
           phase=lambda what, done, total: phases.append((what, done, total)))
    assert explored and explored[-1] > 0
    own = ["state rules", "termination", "fast-paths", "pig-state-invariant", "pig-turn-progress"]
    trio = "companion: 3 players, goal 6 (the direction of play)"
    assert [p[0] for p in phases] == own + [f"derived {trio}"] + [f"{name}[{trio}]" for name in own]
    assert [p[1:] for p in phases] == [(i, 5) for i in range(5)] + [(0, 1)] + [(i, 5) for i in range(5)]
    # too big to explore: the sampled plays report as they go
    sampled = []
    verify(spec, rs, max_states=20, plays=120, phase=lambda what, done, total: sampled.append((what, done, total)))
    assert ("sampled plays", 0, 120) in sampled and ("sampled plays", 100, 120) in sampled


def test_each_property_reports_through_limits():
    """verify's progress names each property as it starts (the long ones say which one runs)."""
    from ruleproof.solver.explore import explore
    from ruleproof.solver.verify import check_exploration
    spec = get_spec("pig")
    rs = spec.default().with_overrides(dict(spec.verify_overrides), spec=spec.schema)
    seen = []
    results = check_exploration(spec, rs, explore(spec.build(rs)),
                                limits=Limits(progress=lambda what, done, total: seen.append((what, done, total))))
    named = [what for what, _, _ in seen]
    assert all(name in named for name in ("state rules", "termination", "fast-paths", "pig-state-invariant"))
    assert {r.status for r in results.values()} == {"holds"}
