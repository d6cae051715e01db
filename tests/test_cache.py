"""The command's result cache (solver/cache.py): a result is shared when everything it depends on is
the same, recomputed when anything (the configuration, a named file, the code) differs, kept on
disk with --cache written beside and renamed into place, and nothing outlives the command."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ruleproof.model.registry import get_spec
from ruleproof.solver import cache, compare
from tests.test_beside import without_seconds

ROOT = Path(__file__).resolve().parent.parent


def pig():
    return compare.target_ruleset("pig")[0]


def counting(monkeypatch):
    """Count the real verify and evaluate runs behind compare's sides."""
    import ruleproof.solver.verify as verify_module
    calls = {"verify": 0, "evaluate": 0}
    real_verify, real_evaluate = verify_module.verify, compare._evaluate

    def verify(*args, **kwargs):
        calls["verify"] += 1
        return real_verify(*args, **kwargs)

    def evaluate(*args, **kwargs):
        calls["evaluate"] += 1
        return real_evaluate(*args, **kwargs)
    monkeypatch.setattr(verify_module, "verify", verify)
    monkeypatch.setattr(compare, "_evaluate", evaluate)
    return calls


def test_compare_sides_of_one_configuration_share_verify_and_values(monkeypatch):
    calls = counting(monkeypatch)
    a = pig()
    b = a.with_overrides({}, spec=get_spec("pig").schema, source="another file")   # same configuration
    res = compare.compare_rulesets(a, b)
    assert calls == {"verify": 1, "evaluate": 1}
    assert res["verdict"] == "unchanged"
    assert res["a"]["values"] == res["b"]["values"]
    # a configuration that differs is computed on its own
    goal = int(a.params["goal"]) + 1
    c = a.with_overrides({"goal": goal}, spec=get_spec("pig").schema, source="command line")
    calls.update(verify=0, evaluate=0)
    compare.compare_rulesets(a, c)
    assert calls == {"verify": 2, "evaluate": 2}   # a new command: a new cache


def test_values_are_shared_by_the_configuration_a_ruleset_resolves_to(monkeypatch):
    # Loira's centre_rolls -1 means "the rest of the rolls": 3 on this deck, the same round as 3
    # written out (a sweep of centre_rolls=0..3 meets its own edit's round at 3 so)
    from ruleproof.model.registry import load_ruleset
    schema = get_spec("loira").schema
    tiny = load_ruleset(str(ROOT / "model" / "loira" / "examples" / "tiny.toml"))
    rest = tiny.with_overrides({"centre_rolls": -1}, spec=schema, source="the rest")
    three = tiny.with_overrides({"centre_rolls": 3}, spec=schema, source="written out")
    two = tiny.with_overrides({"centre_rolls": 2}, spec=schema, source="another round")
    key = cache.result_key("evaluate", rest, by_configuration=True)
    assert key == cache.result_key("evaluate", three, by_configuration=True)
    assert key != cache.result_key("evaluate", two, by_configuration=True)
    assert cache.result_key("evaluate", rest) != cache.result_key("evaluate", three)   # as written
    # the rulings are part of the resolved round
    other = three.with_overrides({}, rulings={"L07": "no"}, spec=schema, source="a ruling")
    assert cache.result_key("evaluate", other, by_configuration=True) != key
    calls = counting(monkeypatch)
    with cache.scope():
        first, again = compare.evaluate(rest), compare.evaluate(three)
        compare.evaluate(two)
    assert calls["evaluate"] == 2
    assert again.ruleset is three and again.values == first.values
    # verify's results stay keyed by the parameters as written (its derived configurations are
    # made from them)
    assert cache.result_key("verify", rest) != cache.result_key("verify", three)


def test_a_kept_answer_given_back_names_the_callers_ruleset_inside_too():
    # kept by configuration, an evaluation may come from another ruleset of the same round; the
    # near-optimal engine's answer keeps its ``Solved`` (the page reads it): it names the caller's
    from ruleproof.solver.analysis import solve_ruleset
    a = pig()
    b = a.with_overrides({}, spec=get_spec("pig").schema, source="another file, the same round")
    solved = solve_ruleset(a)
    ev = compare.Evaluation(ruleset=a, method="exact", solved=solved)
    back = cache.with_ruleset(ev, b)
    assert back.ruleset is b and back.solved.ruleset is b and back.solved.result is solved.result
    assert ev.solved.ruleset is a   # the kept one is not changed


def test_outside_a_command_nothing_is_kept(monkeypatch):
    calls = counting(monkeypatch)
    a = pig()
    compare.evaluate(a)
    compare.evaluate(a)
    assert calls["evaluate"] == 2 and cache.current() is None


def test_a_code_change_misses(monkeypatch):
    a = pig()
    key = cache.result_key("evaluate", a, games=None)
    assert key == cache.result_key("evaluate", a, games=None)
    assert key != cache.result_key("evaluate", a, games=10)
    monkeypatch.setitem(cache._digests, "pig", "another version of the code")
    assert cache.result_key("evaluate", a, games=None) != key
    runs = []
    with cache.scope() as c:
        cache.remember("x", a, {}, lambda: runs.append(1) or "first")
        monkeypatch.setitem(cache._digests, "pig", "yet another")
        assert cache.remember("x", a, {}, lambda: runs.append(1) or "second") == "second"
        monkeypatch.setitem(cache._digests, "pig", "another version of the code")
        assert cache.remember("x", a, {}, lambda: "not run") == "first"
    assert len(runs) == 2 and c.hits == 1


def test_code_digest_covers_the_solver_the_proofs_and_the_games_code_and_data(tmp_path, monkeypatch):
    # a verify report rests on the proofs too: a kept one must not outlive an edit to them
    (tmp_path / "solver").mkdir()
    (tmp_path / "proofs").mkdir()
    (tmp_path / "model" / "pig").mkdir(parents=True)
    (tmp_path / "solver" / "solve.py").write_text("A = 1\n")
    (tmp_path / "proofs" / "pig.py").write_text("C = 1\n")
    (tmp_path / "model" / "pig" / "game.py").write_text("B = 1\n")
    (tmp_path / "model" / "pig" / "policy_table.json").write_text("{}\n")   # data a result reads
    monkeypatch.setattr(cache, "PACKAGE", tmp_path)
    monkeypatch.setattr(cache, "_digests", {})
    first = cache.code_digest("pig")
    for path in (tmp_path / "solver" / "solve.py", tmp_path / "proofs" / "pig.py",
                 tmp_path / "model" / "pig" / "game.py", tmp_path / "model" / "pig" / "policy_table.json"):
        monkeypatch.setattr(cache, "_digests", {})
        path.write_text(path.read_text() + "# edited\n")
        assert cache.code_digest("pig") != first
        first = cache.code_digest("pig")


def test_a_file_a_parameter_names_is_part_of_the_key(tmp_path):
    from ruleproof.model.registry import load_ruleset
    board = (ROOT / "model" / "presentes" / "examples" / "curta-edited.txt").read_text()
    (tmp_path / "board.txt").write_text(board)
    (tmp_path / "edit.toml").write_text('extends = "presentes"\nname = "e"\n[params]\nboard = "board.txt"\n')
    rs = load_ruleset(str(tmp_path / "edit.toml"))
    key = cache.result_key("evaluate", rs)
    (tmp_path / "board.txt").write_text(board.replace("\n", "\n\n", 1))
    assert cache.result_key("evaluate", rs) != key


def test_on_disk_shared_between_commands_and_only_its_own_files(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / "notes.txt").write_text("the user's own")
    calls = counting(monkeypatch)
    a = pig()
    with cache.scope(folder):
        first = compare.compare_rulesets(a, a)
    written = sorted(p.name for p in folder.iterdir())
    # a verify report, an evaluation and the part of verify's companion (Pig's three seats)
    assert "notes.txt" in written and len(written) == 4
    assert not [n for n in written if n.startswith(".")]   # nothing left half-written
    with cache.scope(folder) as c:                      # a later command: read back
        again = compare.compare_rulesets(a, a)
    assert calls == {"verify": 1, "evaluate": 1} and c.hits == 4
    assert again["a"]["values"] == first["a"]["values"]
    assert again["a"]["properties"] == first["a"]["properties"]
    assert (folder / "notes.txt").read_text() == "the user's own"
    # a file under a key's name that the cache did not write is not read (and not replaced)
    for p in folder.glob("*" + cache.SUFFIX):
        p.write_bytes(b"not ours")
    with cache.scope(folder):
        compare.compare_rulesets(a, a)
    assert calls == {"verify": 2, "evaluate": 2}
    assert all(p.read_bytes() == b"not ours" for p in folder.glob("*" + cache.SUFFIX))


def test_a_result_under_a_time_limit_is_not_kept():
    a = pig()
    import time
    with cache.scope() as c:
        compare.evaluate(a, deadline=time.perf_counter() + 600)
        compare.verified(a, timeout=600)
    assert c.memory == {}


def test_cache_flag_refuses_a_file(tmp_path):
    not_folder = tmp_path / "f"
    not_folder.write_text("x")
    exe = Path(sys.executable).with_name("ruleproof")
    proc = subprocess.run([str(exe), "verify", "pig", "--cache", str(not_folder)], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, "COLUMNS": "200"})
    assert proc.returncode == 2
    assert "--cache" in proc.stderr + proc.stdout and "Traceback" not in proc.stderr
    assert not_folder.read_text() == "x"


@pytest.mark.parametrize("games", [None])
def test_a_kept_evaluation_holds_no_solved_tables(games):
    a = pig()
    with cache.scope() as c:
        ev = compare.evaluate(a, games=games)
        kept = compare.evaluate(a, games=games)
    assert ev.solved is not None and kept.solved is None
    assert kept.values == ev.values and kept.ruleset is a
    assert all(v.solved is None for v in c.memory.values())


def test_a_ranking_without_a_clock_is_kept_on_disk_and_given_back(monkeypatch, tmp_path):
    """rulings rank is a fixed amount of work without --timeout: kept with --cache (report reuses
    it), under the asking ruleset's name; with a time limit it is computed afresh."""
    import ruleproof.solver.rulings as rulings
    runs = []
    real = rulings._rank_rulings

    def counted(*args, **kwargs):
        runs.append(kwargs["timeout"])
        return real(*args, **kwargs)
    monkeypatch.setattr(rulings, "_rank_rulings", counted)
    a = compare.target_ruleset("model/loira/examples/tiny.toml")[0]
    b = a.with_overrides({}, spec=get_spec("loira").schema, source="another file")
    with cache.scope(tmp_path / "c"):
        first = rulings.rank_rulings("loira", ruleset=a, only=["L07"])
    with cache.scope(tmp_path / "c"):
        again = rulings.rank_rulings("loira", ruleset=b, only=["L07"])
        rulings.rank_rulings("loira", ruleset=b, only=["L07"], timeout=600)
    assert runs == [None, 600]
    assert again["rows"] == first["rows"] and again["configuration"] == b.as_dict()


def test_with_one_side_kept_the_other_is_verified_first_in_this_process(monkeypatch, tmp_path):
    # compare's two processes would otherwise be one verifying alone and one idle (its side kept):
    # the cold side is verified here first, where verify shares its companions with the second core
    calls = counting(monkeypatch)
    monkeypatch.setattr(compare, "parallel_sides", lambda a, b, timeout, kw: True)
    schema = get_spec("pig").schema
    a = pig().with_overrides({"goal": 12}, spec=schema, source="command line")
    b = pig().with_overrides({"goal": 13}, spec=schema, source="command line")
    kw = dict(max_states=None, deadline=None, games=None, seed=None, policy=None)
    with cache.scope(tmp_path):   # an earlier command verified b, with --cache
        compare.verified(b)
    assert calls["verify"] == 1
    key = compare._verify_key(None, None, None)
    for cold, kept in ((a, b), (b, a)):
        with cache.scope(tmp_path) as c:
            assert cache.kept("verify", kept, key) and not cache.kept("verify", cold, key)
            compare.verify_cold_side_first(a, b, kw)
            assert calls["verify"] == 2 and c.misses == 1   # the cold side, once, here
            compare.verify_cold_side_first(a, b, kw)        # both kept now: nothing more
            compare.side(a, **kw), compare.side(b, **kw)    # and the sides find both
            assert calls["verify"] == 2
        calls["verify"] = 1
        (tmp_path / f"{cache.result_key('verify', kept, **key)}{cache.SUFFIX}").unlink()   # next: the other kept
    with cache.scope(tmp_path):   # under a clock nothing is verified ahead
        compare.verify_cold_side_first(a, b, dict(kw, deadline=1e18))
    assert calls["verify"] == 1
    with cache.scope():   # neither kept: both verified here first, once each (whether the sides
        compare.verify_cold_side_first(a, b, kw)   # then take two processes depends on their sizes)
        assert calls["verify"] == 3
        compare.side(a, **kw), compare.side(b, **kw)
        assert calls["verify"] == 3


def test_a_side_kept_whole_holds_no_worker(monkeypatch, tmp_path):
    # a side whose report and values an earlier command kept is read back in the main process: a
    # worker for it would hold the second core's slot while the other side's self-play could share it
    from ruleproof.solver import analysis, beside
    monkeypatch.setattr(analysis, "heavy", lambda ruleset: True)
    monkeypatch.setattr(beside, "processes", lambda: 2)
    schema = get_spec("pig").schema
    a = pig().with_overrides({"goal": 12}, spec=schema, source="command line")
    b = pig().with_overrides({"goal": 13}, spec=schema, source="command line")
    kw = dict(max_states=None, deadline=None, games=None, seed=None, policy=None)
    with cache.scope(tmp_path):
        assert compare.parallel_sides(a, b, None, kw)          # nothing kept: two processes
        compare.verified(b)
        assert not compare.side_kept(b, kw)                    # its report alone is not the side
        assert compare.parallel_sides(a, b, None, kw)
    with cache.scope(tmp_path):
        compare.side(b, **kw)
    with cache.scope(tmp_path):   # the next command finds b whole: one process
        assert compare.side_kept(b, kw) and not compare.side_kept(a, kw)
        assert not compare.parallel_sides(a, b, None, kw) and not compare.parallel_sides(b, a, None, kw)
        assert not compare.side_kept(b, dict(kw, seed=1))       # kept under its own options only
    with cache.scope():   # no folder: a new command holds nothing
        assert compare.parallel_sides(a, b, None, kw)


def test_two_big_exact_evaluations_run_beside_each_other_once_both_sides_are_verified(monkeypatch, tmp_path):
    # an exact engine's evaluation is fixed work too: with both sides verified (here, ahead) and
    # both explorations big, the other side's evaluation goes to the second core; the same figures
    from ruleproof.solver import beside
    monkeypatch.setattr(beside, "processes", lambda: 2)
    schema = get_spec("pig").schema
    a = pig().with_overrides({"goal": 12}, spec=schema, source="command line")
    b = pig().with_overrides({"goal": 13}, spec=schema, source="command line")
    kw = dict(max_states=None, deadline=None, games=None, seed=None, policy=None)
    with cache.scope():
        assert not compare.parallel_evaluations(a, b, None, kw)   # not verified yet: sizes unknown
        compare.verify_cold_side_first(a, b, kw)
        small = min(compare.verified(a).states, compare.verified(b).states)
        assert small > 0
        monkeypatch.setattr(compare, "EVALUATE_BESIDE_STATES", small + 1)
        assert not compare.parallel_evaluations(a, b, None, kw)   # too small to be worth a worker
        monkeypatch.setattr(compare, "EVALUATE_BESIDE_STATES", small)
        assert compare.parallel_evaluations(a, b, None, kw)
        assert not compare.parallel_evaluations(a, b, 60.0, kw)   # a clock: one process
        assert not compare.parallel_evaluations(a, a, None, kw)   # one configuration: shared instead
        monkeypatch.setattr(beside, "processes", lambda: 1)
        assert not compare.parallel_evaluations(a, b, None, kw)   # no idle core
        monkeypatch.setattr(beside, "processes", lambda: 2)
        from ruleproof.solver import analysis
        with monkeypatch.context() as m:   # a side that samples: parallel_sides's to decide
            m.setattr(analysis, "heavy", lambda ruleset: ruleset is b)
            assert not compare.parallel_evaluations(a, b, None, kw)
        monkeypatch.setattr(beside, "processes", lambda: 2)
        compare.evaluate(b)
        assert not compare.parallel_evaluations(a, b, None, kw)   # b's evaluation kept: read back here
    started = []
    real = beside.Beside.__init__

    def watched(self, fn, *args, enabled=True):
        started.append((fn.__name__, enabled))
        real(self, fn, *args, enabled=enabled)
    monkeypatch.setattr(beside.Beside, "__init__", watched)
    one = compare.compare_rulesets(a, b)
    assert ("side_summary_of", True) in started
    monkeypatch.setattr(beside, "processes", lambda: 1)
    started.clear()
    assert without_seconds(compare.compare_rulesets(a, b)) == without_seconds(one)
    assert ("side_summary_of", True) not in started


def test_a_sampled_answer_serves_the_page_that_gives_a_folder(monkeypatch, tmp_path):
    # report --against after compare: the page's side asks with a folder for files, which an engine
    # that samples writes only with detail -- so compare's kept answer serves it, self-play and all
    calls = counting(monkeypatch)
    from ruleproof.model.registry import load_ruleset
    loira = load_ruleset(str(ROOT / "model" / "loira" / "rulesets" / "loira.toml"))   # the real deck
    with cache.scope() as c:
        ev = compare.evaluate(loira, games=4)
        page = compare.evaluate(loira, games=4, out_dir=tmp_path)
        assert calls["evaluate"] == 1 and c.hits == 1
    assert ev.engine == "near-optimal" and page.solved is not None   # the page reads how it was made
    assert page.as_dict() == ev.as_dict() and page.solved.doc() == ev.solved.doc()
    # the promise it rests on (model/seams.py Engine): without detail the sampler writes nothing
    compare._evaluate(loira, max_states=None, timeout=None, games=4, seed=None, policy=None,
                      out_dir=tmp_path, progress=None, simulate_only=False, detail=False)
    assert calls["evaluate"] == 2 and not any(tmp_path.iterdir())
    # an exact engine's answer still gets its files (pig: the play table), computed with the folder
    with cache.scope():
        compare.evaluate(pig(), games=4)
        compare.evaluate(pig(), games=4, out_dir=tmp_path)
    assert calls["evaluate"] == 4 and any(tmp_path.iterdir())


def test_a_companion_both_sides_share_is_explored_once_and_named_as_each_side(monkeypatch):
    """Pig's three-seat companion keeps neither the goal nor the name: two rulesets that differ in
    goal (and name) share it, so within one command it is explored once; each side's report is the
    one verify gives it alone, its companion named as that side's configuration."""
    import dataclasses
    import ruleproof.solver.verify as verify_module
    monkeypatch.setenv("RULEPROOF_PROCESSES", "1")
    spec = get_spec("pig")
    a = spec.default().with_overrides({"goal": 20}, spec=spec.schema, source="a.toml")
    b = dataclasses.replace(spec.default().with_overrides({"goal": 21}, spec=spec.schema, source="b.toml"),
                            name="pig-goal-21")
    def doc(rs, **kw):
        return without_seconds(verify_module.verify_document([verify_module.verify(spec, rs, **kw)], [rs.name]))
    alone = {rs.name: doc(rs) for rs in (a, b)}
    explored: list[str] = []
    real = verify_module._derived_one

    def counted(spec_, ruleset, d, *rest):
        explored.append(d.label)
        return real(spec_, ruleset, d, *rest)
    monkeypatch.setattr(verify_module, "_derived_one", counted)
    with cache.scope():
        shared = {rs.name: doc(rs) for rs in (a, b)}
    labels = [d.label for d in verify_module.derived_of(spec, a) if d.always]
    assert labels and explored == labels   # a's companions only: b found them kept
    assert shared == alone
    assert shared["pig-goal-21"]["derived"][0]["config"]["name"] == "pig-goal-21"
    with cache.scope():   # under a clock nothing is kept or reused
        for rs in (a, b):
            doc(rs, timeout=600)
    assert explored == labels * 3


def test_a_companion_the_other_side_lacks_is_left_out_of_a_comparison_and_said(monkeypatch):
    """A paired companion (``Derived.pair``: Presentes' other official boards) is checked on a
    comparison's side only when the other side has it too: the built-in Curta side of a board edit
    skips Longa and Media (their verdicts would face nothing on the edit's side). The side says what
    it left out; ``verify`` alone still checks them; the left-out report is kept under its own key."""
    import dataclasses
    import ruleproof.solver.verify as verify_module
    from ruleproof.model.registry import load_ruleset
    from ruleproof.solver.page import comparison_text
    # the real case, by the labels alone (cheap: no exploration)
    presentes = get_spec("presentes")
    curta = presentes.default().with_overrides({"board": "curta"}, spec=presentes.schema, source="command line")
    edit = load_ruleset(str(ROOT / "model" / "presentes" / "examples" / "board-edit.toml"))
    assert [label.split(",")[0] for label in verify_module.unpaired(presentes, curta, edit)] == ["longa", "media"]
    assert verify_module.unpaired(presentes, edit, curta) == ()
    dice = curta.with_overrides({"dice": 2}, spec=presentes.schema, source="command line")
    assert verify_module.unpaired(presentes, curta, curta) == ()
    # a dice edit keeps its official companions on both sides (with each side's dice): compared
    assert verify_module.unpaired(presentes, curta, dice) == verify_module.unpaired(presentes, dice, curta) == ()
    media = curta.with_overrides({"board": "media"}, spec=presentes.schema, source="command line")
    assert [label.split(",")[0] for label in verify_module.unpaired(presentes, curta, media)] == ["media"]
    assert [label.split(",")[0] for label in verify_module.unpaired(presentes, media, curta)] == ["curta"]
    # end to end on Pig, its three-seat companion made a paired one on the goal-20 side only
    monkeypatch.setenv("RULEPROOF_PROCESSES", "1")
    spec = get_spec("pig")
    a = spec.default().with_overrides({"goal": 20}, spec=spec.schema, source="a.toml")
    b = spec.default().with_overrides({"goal": 21}, spec=spec.schema, source="b.toml")
    real = verify_module.derived_of

    def derived_of(spec_, ruleset):
        out = [dataclasses.replace(d, pair=d.label) for d in real(spec_, ruleset) if d.always]
        return out if ruleset.params["goal"] == 20 else []
    monkeypatch.setattr(verify_module, "derived_of", derived_of)
    labels = [d.label for d in derived_of(spec, a)]
    assert labels and verify_module.unpaired(spec, a, b) == tuple(labels)
    alone = verify_module.verify(spec, a)
    assert alone.left_out == () and any(p.data.get("derived") in labels or "[" in p.name for p in alone.properties)
    res = compare.compare_rulesets(a, b)
    assert res["a"]["left_out"] == labels and res["b"]["left_out"] == []
    assert not any("[" in name for name in res["a"]["properties"])   # no derived configuration checked
    assert len(res["a"]["properties"]) < len(alone.properties)
    assert any(line.strip().startswith("A: left out, as the other side has no such configuration: " + labels[0])
               for line in comparison_text(res))
    whole, part = compare._verify_key(None, None, None), compare._verify_key(None, None, None, tuple(labels))
    with cache.scope():   # kept apart from the whole report, which a side with the companion reuses
        compare.verified(a, other=b)
        assert cache.kept("verify", a, part) and not cache.kept("verify", a, whole)
        compare.verified(a, other=a)
        assert cache.kept("verify", a, whole)
