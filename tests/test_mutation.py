"""The mutation suite's own checks (``mutation.py``): every mutant still applies to the code it
names, and says which kind of rule it breaks; Pig's mutants, the quickest, are all killed by
``verify`` (slow: one process per mutant)."""
import pytest

from ruleproof import mutation

#: the kinds of rule issue #21 sorts slips into (a round and a whole game end apart)
KINDS = {"who acts", "who benefits", "when a round ends", "when the game ends", "which outcome triggers what",
         "eligibility", "hidden information", "chance weights", "a fast copy that drifts"}


def test_every_mutant_applies_exactly_once_and_names_its_kind():
    mutants = mutation.load_mutants()
    assert mutants
    problems = []
    for m in mutants:
        target = mutation.ROOT / m.file
        if not target.is_file():
            problems.append(f"{m.game}/{m.name}: no file {m.file}")
            continue
        count = target.read_text(encoding="utf-8").count(m.find)
        if count != 1:
            problems.append(f"{m.game}/{m.name}: its text occurs {count} times in {m.file}")
        if m.rule not in KINDS:
            problems.append(f"{m.game}/{m.name}: rule kind {m.rule!r} is not one of {sorted(KINDS)}")
        if m.find == m.replace:
            problems.append(f"{m.game}/{m.name}: the replacement changes nothing")
    assert not problems, "\n".join(problems)


def test_a_stale_mutant_fails_the_suite(tmp_path, monkeypatch):
    stale = mutation.Mutant("pig", "stale", tmp_path / "stale.toml", "a slip that no longer applies",
                            "who acts", "model/pig/game.py", "text that is not in the file", "x")
    lines = []
    assert mutation.report([mutation.check_mutant(stale, False, 60)], False, lines.append) == 1
    assert any("stale" in line for line in lines)


@pytest.mark.slow
def test_pig_mutants_are_all_killed_by_verify():
    lines = []
    assert mutation.run(["pig"], jobs=2, say=lines.append) == 0, "\n".join(lines)


def _outcome(game: str, name: str, state: str, equivalent: str = "") -> "mutation.Outcome":
    m = mutation.Mutant(game, name, mutation.ROOT / f"{name}.toml", "a slip", "who acts", "x.py", "a", "b",
                        equivalent=equivalent)
    return mutation.Outcome(m, checks={"full size": state}, why={"full size": "p" if state == "killed" else ""})


def test_the_full_size_table_holds_the_80_percent_bar_per_run():
    killed = [_outcome("pig", f"k{i}", "killed") for i in range(4)]
    lines = []
    # 4 of 5 counted (the equivalent one is not): exactly the bar
    assert mutation.report_full_size(killed + [_outcome("pig", "s", "survived"),
                                               _outcome("pig", "e", "survived", equivalent="same")], lines.append) == 0
    assert any("4/5 (80%)" in line for line in lines)
    lines.clear()
    assert mutation.report_full_size(killed[:3] + [_outcome("pig", "s", "survived"),
                                                   _outcome("pig", "u", "unknown")], lines.append) == 1
    assert any("below 80%" in line for line in lines)
    lines.clear()   # an error under a mutant fails the run whatever the score
    assert mutation.report_full_size(killed + [_outcome("pig", "x", "error")], lines.append) == 1
