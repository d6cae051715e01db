"""Heavy halves of a command on a second core (solver/beside.py): the same answers as in one process,
in the same order; a worker that fails costs time only (the piece is computed again in the main
process, its error raised there); compare and sweep give identical documents both ways."""
from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from ruleproof.model.registry import get_spec, load_ruleset
from ruleproof.solver import beside, compare
from ruleproof.solver import analysis
from ruleproof.solver.analysis import heavy
from ruleproof.solver.sweep import run_sweep

PARENT = os.getpid()
ROOT = Path(__file__).resolve().parent.parent


def where(x: int) -> tuple[int, bool]:
    return x * x, os.getpid() != PARENT


def test_ordered_map_gives_every_answer_in_order_from_workers():
    got = list(beside.ordered_map(where, range(6), 2))
    assert [v for v, _ in got] == [x * x for x in range(6)]
    assert all(forked for _, forked in got)
    assert list(beside.ordered_map(where, range(3), 1)) == [(x * x, False) for x in range(3)]


def started_at(x: int) -> tuple[int, float]:
    import time
    begun = time.monotonic()
    time.sleep(0.3)
    return x, begun


def test_ordered_map_starts_the_items_first_named_and_answers_in_order():
    got = list(beside.ordered_map(started_at, range(4), 2, first=[3, 2, 1, 0]))
    assert [x for x, _ in got] == [0, 1, 2, 3]
    begun = sorted(range(4), key=lambda i: got[i][1])
    assert set(begun[:2]) == {2, 3} and set(begun[2:]) == {0, 1}   # the two named first ran first
    with pytest.raises(ValueError, match="first must order"):
        list(beside.ordered_map(started_at, range(3), 2, first=[0, 0, 1]))


def test_sweep_starts_the_heaviest_points_first():
    # Loira's near-optimal engine estimates its work (seats x (1 + rolls)): a sweep of the rolls in
    # the centre starts at its far end, where the points cost most
    from ruleproof.model.registry import get_spec, load_ruleset
    from ruleproof.solver.analysis import heaviest_first
    schema = get_spec("loira").schema
    real = load_ruleset("loira")
    points = [real.with_overrides({"centre_rolls": r}, spec=schema) for r in range(4)]
    assert heaviest_first(points) == [3, 2, 1, 0]
    small = [load_ruleset("pig").with_overrides({"goal": g}, spec=get_spec("pig").schema) for g in (5, 6)]
    assert heaviest_first(small) is None          # no estimate: grid order


def test_sweep_points_that_share_their_own_games_go_one_after_another(monkeypatch):
    # Loira's self-play shares each point's games between the two processes (Engine.shares_cores):
    # its points run one at a time on both cores, not two beside each other (a sweep of the rolls
    # has points of 1 to 8 s: two at a time left a core idle while the longer ended)
    import dataclasses
    schema = get_spec("loira").schema
    points = [load_ruleset("loira").with_overrides({"centre_rolls": r}, spec=schema) for r in (1, 2)]
    tiny = load_ruleset(str(ROOT / "model" / "loira" / "examples" / "tiny.toml"))
    engine = analysis.answering_engine(points[0])
    assert engine.shares_cores and not analysis.two_at_a_time(points)
    assert not analysis.two_at_a_time([tiny, points[0]])   # not every point heavy: one at a time
    monkeypatch.setattr(analysis, "answering_engine", lambda rs: dataclasses.replace(engine, shares_cores=False))
    assert analysis.two_at_a_time(points)                  # a heavy engine that does not: two at a time


def fails_in_workers(x: int) -> int:
    if os.getpid() != PARENT:
        if x == 2:
            os._exit(3)        # a worker killed (memory, a signal): the pool breaks
        raise ValueError("only here")
    return -x


def test_a_failed_or_killed_worker_costs_time_not_the_answer():
    assert list(beside.ordered_map(fails_in_workers, range(4), 2)) == [0, -1, -2, -3]
    with beside.Beside(fails_in_workers, 5) as later:
        assert later.result() == -5


def worker_took_one(ends: beside.BothEnds) -> None:
    """Wait (at most 30 s) until the worker has taken an item from the front."""
    import time
    for _ in range(1500):
        if ends.ends[0] > 0:
            return
        time.sleep(0.02)


def test_both_ends_share_the_items_a_prefix_to_the_worker_and_a_failed_worker_costs_time_only():
    with beside.BothEnds(where, 8) as ends:
        worker_took_one(ends)
        mine = {i: where(i) for i in ends.back()}
        theirs = ends.results()
    assert 0 in theirs and sorted(theirs) == list(range(len(theirs))) and sorted(mine) == list(range(len(theirs), 8))
    assert all(forked for _, forked in theirs.values()) and not any(forked for _, forked in mine.values())
    with beside.BothEnds(fails_in_workers, 3) as ends:   # the worker raises on its first item: nothing from it
        worker_took_one(ends)
        mine = {i: fails_in_workers(i) for i in ends.back()}
        assert ends.results() == {} and 0 not in mine     # item 0 is the caller's to compute again
    with beside.BothEnds(where, 3, enabled=False) as ends:   # one process: every item is the caller's
        assert list(ends.back()) == [] and ends.results() == {}


def bad(x: int) -> int:
    raise KeyError(f"bad {x} in {'a worker' if os.getpid() != PARENT else 'the main process'}")


def test_an_error_is_raised_by_the_main_process():
    with pytest.raises(KeyError, match="the main process"):
        list(beside.ordered_map(bad, [1, 2], 2))
    with pytest.raises(KeyError, match="the main process"), beside.Beside(bad, 1) as later:
        later.result()


def test_processes_honours_the_environment_else_an_idle_core(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda _: {0, 1})
    monkeypatch.setenv("RULEPROOF_PROCESSES", "1")
    assert beside.processes() == 1
    monkeypatch.setenv("RULEPROOF_PROCESSES", "2")
    monkeypatch.setattr(beside, "_busy", lambda: 7.0)
    assert beside.processes() == 2          # asked for: whatever the load
    monkeypatch.delenv("RULEPROOF_PROCESSES")
    assert beside.processes() == 1          # busy: the extra CPU of a worker would cost wall time
    monkeypatch.setattr(beside, "_busy", lambda: 0.8)
    assert beside.processes() == 1          # most of a core busy with others' work
    monkeypatch.setattr(beside, "_busy", lambda: 0.2)
    assert beside.processes() == 2          # both cores idle but for this command


def test_busy_cores_are_measured_now_not_a_minute_ago(monkeypatch):
    """Two readings of the machine's CPU times: the share not idle between them, in cores."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (9.0, 9.0, 9.0))   # a busy minute, now over
    monkeypatch.setattr(beside, "IDLE_WINDOW", 0.0)
    readings = iter([(1_000, 400), (1_200, 550)])                       # 150 of 200 ticks idle
    monkeypatch.setattr(beside, "_cpu_times", lambda: next(readings))
    assert beside._busy() == pytest.approx(0.5)
    readings = iter([(1_000, 400), (1_200, 410)])                       # both cores busy
    assert beside._busy() == pytest.approx(1.9)
    monkeypatch.setattr(beside, "_cpu_times", lambda: None)             # no /proc: the load average
    assert beside._busy() == 9.0


def test_the_machine_cpu_times_are_read_where_the_kernel_gives_them():
    got = beside._cpu_times()
    if os.path.exists("/proc/stat"):
        assert got is not None and got[0] >= got[1] >= 0
    else:
        assert got is None


def test_heavy_is_the_sampling_engine():
    spec = get_spec("loira")
    assert not heavy(compare.target_ruleset("loira")[0])        # the small round: exact
    assert heavy(spec.default())                                # the real deck: near-optimal self-play
    assert not heavy(compare.target_ruleset("pig")[0])


def without_seconds(doc):
    if isinstance(doc, dict):
        return {k: without_seconds(v) for k, v in doc.items() if k != "seconds"}
    if isinstance(doc, list):
        return [without_seconds(v) for v in doc]
    return doc


def forced(monkeypatch, processes: int) -> list[bool]:
    """Every configuration counted heavy, ``processes`` processes; whether each ``Beside`` forked."""
    forks: list[bool] = []
    real = beside.Beside

    class Recorded(real):
        def __init__(self, fn, *args, enabled=True):
            super().__init__(fn, *args, enabled=enabled)
            forks.append(self.job is not None)
    monkeypatch.setattr(analysis, "heavy", lambda rs: True)
    monkeypatch.setenv("RULEPROOF_PROCESSES", str(processes))
    monkeypatch.setattr(beside, "Beside", Recorded)
    return forks


def test_compare_in_two_processes_gives_the_same_document(monkeypatch):
    pig = compare.target_ruleset("pig")[0]
    a, b = (pig.with_overrides({"goal": goal}, spec=get_spec("pig").schema, source="command line") for goal in (5, 6))
    forks = forced(monkeypatch, 1)
    one = compare.compare_rulesets(a, b)
    assert forks == [False]
    forks = forced(monkeypatch, 2)
    two = compare.compare_rulesets(a, b)
    assert forks == [True]
    assert without_seconds(one) == without_seconds(two)
    assert one["verdict"] != "unchanged"


def test_sweep_in_two_processes_gives_the_same_rows(monkeypatch):
    base = get_spec("pig").default()
    forced(monkeypatch, 1)
    one = run_sweep(base, [("goal", [4, 5, 6])], max_states=50, games=200, seed=3)
    forced(monkeypatch, 2)
    two = run_sweep(base, [("goal", [4, 5, 6])], max_states=50, games=200, seed=3)
    assert [r["method"] for r in one["points"]] == ["simulated"] * 3
    assert without_seconds(one) == without_seconds(two)


def test_verify_explores_the_derived_configurations_beside_with_the_same_report(monkeypatch):
    """A round too big for the state limit: its derived configuration explored in a worker while the
    sampled plays run here gives the very report of one process."""
    import ruleproof.solver.verify as verify_module
    from ruleproof.model.properties import Derived
    spec = get_spec("loira")
    tiny = load_ruleset(str(ROOT / "model" / "loira" / "examples" / "tiny.toml"))
    smaller = tiny.with_overrides({"deck": ["F1", "M1", "grito", "fios"]}, spec=spec.schema, source="test")
    monkeypatch.setattr(verify_module, "derived_of", lambda spec, rs: [Derived("four cards", smaller)])
    reports = []
    for processes in (1, 2):
        monkeypatch.setenv("RULEPROOF_PROCESSES", str(processes))
        rep = verify_module.verify(spec, tiny, max_states=1_000, plays=200)
        reports.append((without_seconds([p.as_dict() for p in rep.properties]), rep.derived, rep.notes, rep.status))
    assert reports[0][1] and reports[0][1][0]["label"] == "four cards"      # explored, not cut short
    assert any("[four cards]" in p["name"] for p in reports[0][0])
    assert reports[0] == reports[1]


@pytest.mark.parametrize("too_big", [True, False])
def test_verify_shares_the_derived_configurations_from_both_ends_with_the_same_report(monkeypatch, tmp_path, too_big):
    """Several derived configurations (of a round too big to explore, or the companions of one
    explored): the worker takes them from the front, the main process (after the sampled plays, or
    the round's own properties) from the back. The report is that of one process: the same order,
    and a property waiting for a complete exploration is decided when either process decided it
    (the first configuration checks only fast-engine and is the worker's; the last checks only
    invariant-screens and is the main process's)."""
    import time
    import ruleproof.solver.verify as verify_module
    from ruleproof.model.properties import Derived
    spec = get_spec("loira")
    tiny = load_ruleset(str(ROOT / "model" / "loira" / "examples" / "tiny.toml"))
    smaller = tiny.with_overrides({"deck": ["F1", "M1", "grito", "fios"]}, spec=spec.schema, source="test")
    three = [Derived("engine only", smaller, always=True, properties=("fast-engine",)),
             Derived("termination only", smaller, always=True, properties=("termination",)),
             Derived("screens only", smaller, always=True, properties=("invariant-screens",))]
    monkeypatch.setattr(verify_module, "derived_of", lambda spec, rs: three)
    flag, real = tmp_path / "main-took-one", verify_module._derived_one

    def held(spec, ruleset, d, *args):
        """The worker's first configuration waits until the main process has taken one from the back."""
        if os.getpid() == PARENT:
            flag.touch()
        else:
            for _ in range(3000):
                if flag.exists():
                    break
                time.sleep(0.02)
        return real(spec, ruleset, d, *args)
    monkeypatch.setattr(verify_module, "_derived_one", held)
    shares, reports = [], []
    ends = beside.BothEnds

    class Recorded(ends):
        def back(self):
            for i in super().back():
                shares.append(("main", i))
                yield i

        def results(self):
            got = super().results()
            shares.extend(("worker", i) for i in got)
            return got
    monkeypatch.setattr(beside, "BothEnds", Recorded)
    props = verify_module.game_properties(spec, smaller, spec.build(smaller))
    # (the items beside the three: the game's own properties at full size, one each; on a complete
    # exploration, its checks of the exploration alone, together)
    jobs = len(props) - len(verify_module.core_properties()) if too_big else \
        int(bool(verify_module.split_for_worker(spec, props)[1]))
    for processes in (1, 2):
        monkeypatch.setenv("RULEPROOF_PROCESSES", str(processes))
        shares.clear()
        flag.unlink(missing_ok=True)
        rep = verify_module.verify(spec, tiny if too_big else smaller, max_states=1_000 if too_big else None, plays=200)
        reports.append((without_seconds([p.as_dict() for p in rep.properties]), rep.derived, rep.notes, rep.status))
        taken = sorted(i for _, i in shares)
        assert shares == [] if processes == 1 else (("worker", 0) in shares and ("main", taken[-1]) in shares
                                                    and taken == list(range(3 + jobs)))
    names = [p["name"] for p in reports[0][0]]
    assert [d["label"] for d in reports[0][1]] == [d.label for d in three]
    assert "fast-engine [engine only]" in names and "invariant-screens [screens only]" in names
    assert ("fast-engine" not in names and "invariant-screens" not in names) == too_big   # not left waiting
    assert reports[0] == reports[1]


@pytest.mark.parametrize("game, checks, proof", [
    ("presentes", ["simulator-agrees", "exact-chain-agrees"], "z3-gift-conservation"),
    ("loira", ["fast-engine", "invariant-screens"], "loira-table")])   # (Loira lists them before its proofs)
def test_verify_runs_the_graph_checks_beside_and_reports_them_in_the_properties_order(monkeypatch, game, checks,
                                                                                      proof):
    """A configuration explored completely: the game's own checks that read the exploration alone
    (an engine's agreement, a graph check) run in the worker while the core properties and the
    proofs run here, and the report is the one of one process, each property where the game lists
    it (not where the worker's share ended)."""
    import ruleproof.solver.verify as verify_module
    spec = get_spec(game)
    small = spec.default().with_overrides(dict(spec.verify_overrides), spec=spec.schema)
    props = verify_module.game_properties(spec, small, spec.build(small))
    here, beside_ = verify_module.split_for_worker(spec, props)
    assert [p.name for p in beside_] == checks
    ran: dict[str, bool] = {}
    real_run = verify_module._run

    def recorded(prop, ctx):
        results = real_run(prop, ctx)
        for r in results:   # (a worker's results cross back whole: the pid rides in the data)
            r.data["pid"] = os.getpid()
        return results
    monkeypatch.setattr(verify_module, "_run", recorded)
    monkeypatch.setattr(verify_module, "derived_of", lambda spec, rs: [])   # the split alone
    reports = []
    for processes in (1, 2):
        monkeypatch.setenv("RULEPROOF_PROCESSES", str(processes))
        rep = verify_module.verify(spec, small)
        for r in rep.properties:
            ran[r.data["property"]] = r.data.pop("pid") != PARENT
        reports.append((without_seconds([p.as_dict() for p in rep.properties]), rep.status))
    assert all(ran[name] for name in checks) and not ran[proof]
    # (a property may give several results -- one per invariant: they come together)
    assert [name for name, _ in itertools.groupby(r["data"]["property"] for r in reports[0][0])] == \
        [p.name for p in props]
    assert reports[0] == reports[1]


def test_a_worker_does_not_outlive_its_parent(tmp_path):
    """The parent ended by force (the Ctrl-C watchdog's os._exit): its worker is killed with it."""
    import subprocess
    import sys
    import time
    pid_file = tmp_path / "worker.pid"
    code = ("import os, sys\nfrom ruleproof.solver import beside\n"
            f"def piece():\n    open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
            "    import time; time.sleep(60)\n"
            "b = beside.Beside(piece)\nimport time\n"
            f"while not os.path.exists({str(pid_file)!r}): time.sleep(0.05)\n"
            "time.sleep(0.2)\nos._exit(0)\n")
    subprocess.run([sys.executable, "-c", code], timeout=60, check=True)
    worker = int(pid_file.read_text())
    for _ in range(100):
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(worker, 9)
    pytest.fail("the worker outlived its parent")


def _rank_in_one_and_two_processes(monkeypatch, **options) -> list[dict]:
    """``rank_rulings`` of three Loira readings on the tiny round in one process, then in two, each
    run asserting it used the workers it was given (``ordered_map`` with two, or not at all)."""
    import ruleproof.solver.rulings as rulings
    tiny = load_ruleset(str(ROOT / "model" / "loira" / "examples" / "tiny.toml"))
    docs = []
    real = beside.ordered_map
    for processes in (1, 2):
        forks = forced(monkeypatch, processes)
        seen: list[int] = []
        monkeypatch.setattr(beside, "ordered_map", lambda fn, items, workers: (seen.append(workers), real(fn, items, workers))[1])
        docs.append(rulings.rank_rulings("loira", ruleset=tiny, only=["L07", "L33", "L28"], **options))
        assert seen == ([] if processes == 1 else [2]) and not forks
    return docs


def test_rank_in_two_processes_gives_the_same_rows(monkeypatch):
    """Beyond the exact solve (the tiny round, the solve's cap lowered) the readings' paired games
    computed two at a time in workers give the rows of one process."""
    import ruleproof.solver.rulings as rulings
    monkeypatch.setattr(rulings, "VALUE_STATES", 50)
    docs = _rank_in_one_and_two_processes(monkeypatch, games=40, seed=3)
    assert docs[0]["reference"]["too_big"]
    assert without_seconds(docs[0]) == without_seconds(docs[1])


def test_exact_rank_rows_in_two_processes_are_those_of_one(monkeypatch):
    """Where the configuration solves, each reading's exploration and solve computed two at a time
    in workers give the rows of one process, exact and in the same order."""
    docs = _rank_in_one_and_two_processes(monkeypatch)
    assert "too_big" not in docs[0]["reference"]
    assert all(r.get("evidence") != "sampled" and "values" in r for r in docs[0]["rows"] if r.get("exercised"))
    assert without_seconds(docs[0]) == without_seconds(docs[1])


def test_report_against_in_two_processes_gives_the_same_page(monkeypatch):
    """report --against: the side it is compared with computed in a worker gives the page of one
    process (the ranking then runs with both cores)."""
    from ruleproof.solver.page import build_report
    pig = compare.target_ruleset("pig")[0]
    a, b = (pig.with_overrides({"goal": goal}, spec=get_spec("pig").schema, source="command line") for goal in (5, 6))
    docs = []
    for processes in (1, 2):
        forks = forced(monkeypatch, processes)
        docs.append(build_report(b, against=a))
        assert forks == [processes == 2]
    assert docs[0]["against"]["verdict"] != "unchanged"
    assert without_seconds(docs[0]) == without_seconds(docs[1])
