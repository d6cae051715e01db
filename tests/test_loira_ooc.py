"""The out-of-core layered solver (model/loira/ooc.py) against the in-memory C solver and the exact
rational solver; its checkpoints after a kill -9; its Dask path."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ruleproof.model.loira import fast, ooc


ROOT = Path(__file__).resolve().parent.parent
# the first rungs of bench/bench_loira.py (cards 4, 6, 8, 10)
ORDER = "F1 F2 M1 grito M2 toc-toc P1 grito descarga P2".split()
RUNGS = {4: ("2,4", 1), 6: ("2,4", 1), 8: ("2,3,4", 1), 10: ("2,3,4", 2)}


def params(cards: int, **extra) -> dict:
    stalls, rolls = RUNGS[cards]
    return {"deck": ",".join(ORDER[:cards]), "stalls": stalls, "centre_rolls": rolls, **extra}


def set_args(p: dict) -> list[str]:
    return [a for k, v in p.items() for a in ("--set", f"{k}={v}")]


@pytest.mark.parametrize("cards,partitions", [(4, 1), (6, 3), (8, 4)])   # 10 cards: the kill test
def test_bit_equal_to_the_in_memory_solver(tmp_path, cards, partitions):
    cfg = ooc.config_from(params(cards))
    got = ooc.solve(cfg, tmp_path / "run", partitions=partitions)
    want = fast.solve(cfg)
    assert got["value"] == want["value"]            # the same float64 arithmetic, bit for bit
    assert got["states"] == want["states"]          # the same turn-start states, each once


def test_second_seat_starting(tmp_path):
    cfg = ooc.config_from(params(8, first_seat=1, rolls="1,0"))
    assert ooc.solve(cfg, tmp_path / "run", partitions=2)["value"] == fast.solve(cfg)["value"]


@pytest.mark.parametrize("cards", [4, 6])
def test_equal_to_the_exact_rational_solver(tmp_path, cards):
    from ruleproof.model.loira import SPEC, build
    from ruleproof.model.loira.exact import solve
    from ruleproof.model.ruleset import Ruleset
    from types import MappingProxyType
    p, r = SPEC.schema.defaults()
    game = build(Ruleset("loira", "t", MappingProxyType(p), MappingProxyType(r), "t")
                 .with_overrides(params(cards), spec=SPEC.schema))
    exact = solve(game).value(game.initial_state())[0]
    got = ooc.solve(game.cfg, tmp_path / "run", partitions=2)["value"]
    assert abs(got - exact) <= 1e-12
    # bench ladder figures (model/loira/README.md): +0.083333 (4 cards) and +0.078704 (6 cards)
    assert round(got, 6) == {4: 0.083333, 6: 0.078704}[cards]


def test_layers_and_disk_figures(tmp_path):
    res = ooc.solve(ooc.config_from(params(8)), tmp_path / "run", partitions=3)
    layers = res["layers"]
    assert layers[0]["states"] == 1 and sum(r["states"] for r in layers) == res["states"]
    # on disk: every layer's keys in the bytes the configuration's fields need (5 here), the
    # requests' positions (4 B each, or a bitmap over the partition when smaller), and the values
    # of the layers being valued: less than the 16-byte keys alone of the layout before stop 31
    job = ooc.Job.of(ooc.config_from(params(8)), 3)
    assert job.key_bytes == 5 and job.layout == ooc.LAYOUT
    assert res["peak_disk"] == max(max(r["disk_after_forward"], r["disk_after_backward"]) for r in layers)
    assert job.key_bytes * res["states"] < res["peak_disk"] < 10 * res["states"]
    # what is left once layer 0 is valued: keys and values of layers 0 and 1, nothing asked
    left = sorted(p.relative_to(tmp_path / "run").as_posix() for p in (tmp_path / "run").glob("L*/*.npy"))
    assert left and all(name[:4] in ("L000", "L001") and name.endswith((".keys.npy", ".values.npy"))
                        for name in left)
    part = ooc.solve(ooc.config_from(params(8)), tmp_path / "sizing", partitions=2, forward_only=7)
    assert "value" not in part and [r["states"] for r in part["layers"]] == [r["states"] for r in layers[:7]]


@pytest.mark.parametrize("cards_left", [2, 3])
def test_kept_layers_hold_the_optimal_values(tmp_path, cards_left):
    """``keep_cards``: the turn-start states with that many cards left keep their keys and values,
    which are the exact solver's optimal values for the mover (Fractions; the C key folds the seats,
    so the sets of values are compared); without it those layers are released."""
    from ruleproof.model.loira.endgame import deck_left
    from ruleproof.model.loira.exact import solve
    from ruleproof.model.loira.game import LoiraGame
    from ruleproof.model.loira.state import PH, Phase
    cfg = ooc.config_from(params(6))
    res = ooc.solve(cfg, tmp_path / "run", partitions=2, keep_cards=cards_left)
    layers = ooc.kept_layers(ooc.Job.of(cfg, 2), cards_left)
    keys, values = ooc.layer_values(tmp_path / "run", layers)
    assert len(keys) == len(values) == sum(res["layers"][layer]["states"] for layer in layers)
    game = LoiraGame(cfg)
    sol = solve(game)
    want = {round(float(v[game.current_player(s)]), 12) for s, v in sol.values.items()
            if s[PH] == Phase.TURN and deck_left(game, s) == cards_left and game.current_player(s) >= 0}
    assert len(want) > 10 and {round(float(v), 12) for v in values} == want
    ooc.solve(cfg, tmp_path / "plain", partitions=2)
    with pytest.raises(ooc.OocError, match="missing|no kept layer"):
        ooc.layer_values(tmp_path / "plain", layers)
    # kept layers of a folder solved before stop 31 (the engine's two words a key) read the same
    import numpy as np
    for path in (tmp_path / "run").glob("L*/p*.keys.npy"):
        np.save(path, ooc.widen(ooc._stored(np.load(path))).view(np.uint64).reshape(-1, 2))
    old_keys, old_values = ooc.layer_values(tmp_path / "run", layers)
    assert np.array_equal(old_keys.view(np.uint64), keys.view(np.uint64)) and np.array_equal(old_values, values)


@pytest.mark.parametrize("when", ["L012/*.fwd.done", "L009/*.bwd.done"])
def test_resumes_after_kill_9(tmp_path, when):
    """A solve killed mid-way (forward, or backward after files were released) resumes from its
    finished tasks and reaches the identical value."""
    folder = tmp_path / "run"
    cmd = [sys.executable, "-m", "ruleproof.model.loira.ooc", str(folder), "--partitions", "4", "--quiet",
           *set_args(params(10))]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # kill it once that layer has a finished task (of 22 layers), before any value of layer 0 exists
    deadline = time.time() + 120
    while not list(folder.glob(when)) and time.time() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.005)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = len(list(folder.glob("L*/*.done")))
    assert finished > 0 and not list(folder.glob("L000/*.bwd.done"))
    again = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert again.returncode == 0, again.stderr
    value = json.loads(again.stdout)["value"]
    assert value == fast.solve(ooc.config_from(params(10)))["value"]


def test_a_folder_of_another_round_is_refused(tmp_path):
    folder = tmp_path / "run"
    ooc.solve(ooc.config_from(params(4)), folder, partitions=2)
    proc = subprocess.run([sys.executable, "-m", "ruleproof.model.loira.ooc", str(folder), "--partitions", "2",
                           *set_args(params(6))], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "job.json" in lines[0] and "'deck'" in lines[0]


@pytest.mark.parametrize("args,needle", [(["--set", "deck"], "KEY=VALUE"),
                                         (["--set", "players=3"], "2 players"),
                                         (["--set", "stalls=2,x"], "stalls"),
                                         (["--partitions", "0"], "partitions")])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, needle):
    proc = subprocess.run([sys.executable, "-m", "ruleproof.model.loira.ooc", str(tmp_path / "run"), *args],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2 and needle in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_on_a_dask_local_cluster(tmp_path):
    pytest.importorskip("distributed")
    cfg = ooc.config_from(params(6))
    got = ooc.solve(cfg, tmp_path / "run", partitions=3, workers=2)
    assert got["value"] == fast.solve(cfg)["value"] and got["states"] == fast.solve(cfg)["states"]


@pytest.mark.parametrize("cards,partitions", [(6, 1), (8, 3), (10, 2)])
def test_narrow_keys_round_trip_on_every_state(cards, partitions):
    """The keys on disk (the first ``key_bytes`` bytes of key - (0, 1)) give back the engine's
    128-bit key of every turn-start state of small rounds, distinct keys stay distinct, and the
    stored bytes above ``key_bytes`` are zero (narrow checks it)."""
    import numpy as np
    cfg = ooc.config_from(params(cards))
    job = ooc.Job.of(cfg, partitions)
    assert job.key_bytes < 16
    layer_keys = {0: ooc.root_key(job)}
    seen = 0
    for layer in range(job.layers):
        keys = ooc.unique(layer_keys.pop(layer, np.zeros(0, ooc.KEY)))
        seen += len(keys)
        stored = ooc.narrow(keys, job.key_bytes)
        assert stored.dtype.itemsize == job.key_bytes
        assert np.array_equal(ooc.widen(stored).view(np.uint64), keys.view(np.uint64))
        assert len(ooc.unique(stored)) == len(keys)
        for out, lay in ooc.expand(job, keys):
            for nxt in (layer + 1, layer + 2):
                got = out[lay == nxt]
                layer_keys[nxt] = np.concatenate([layer_keys.get(nxt, np.zeros(0, ooc.KEY)), got])
    assert seen == fast.solve(cfg)["states"]
    with pytest.raises(ooc.OocError, match="more than"):
        ooc.narrow(ooc.root_key(job), 1)


@pytest.mark.parametrize("width", [16, 9, 5])
@pytest.mark.parametrize("shape", ["random", "high-half-constant", "few-values"])
def test_c_key_routines_equal_numpy(shape, width):
    """ooc.unique / ooc.positions (C) give np.unique / np.searchsorted's answers on keys of
    ``width`` bytes, so folders written by either order agree (a resumed solve may mix them)."""
    import numpy as np
    rng = np.random.default_rng(7)
    for n in (0, 1, 2, 3, 1000, 50_000):
        words = rng.integers(0, 2**63, size=2 * n, dtype=np.uint64)
        if shape == "high-half-constant":
            words[1::2] = 7          # radix passes over shared bytes are skipped
        if shape == "few-values":
            words %= np.uint64(3)
        keys = np.ascontiguousarray(words.view(np.uint8).reshape(-1, 16)[:, :width]).view(f"V{width}").ravel()
        keys[n // 2:] = keys[:n - n // 2]       # repeats
        want = np.unique(keys)
        got = ooc.unique(keys)
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8))
        asked = keys[rng.permutation(n)[: n // 3]]
        for ask in (asked, np.unique(asked)):   # in any order, and rising
            assert np.array_equal(ooc.positions(want, ask), np.searchsorted(want, ask))
    if len(want) > 1:
        with pytest.raises(ooc.OocError):
            ooc.positions(want[1:], want[:1])   # absent: refused, not a wrong position


def test_segment_files_round_trip(tmp_path):
    """A file of segments (requests, positions) gives back each array's exact bytes and kind,
    whatever its length against the padding to 8 (a 3-byte key alone must not read as two), and
    a file that is not one is refused in one line."""
    import numpy as np
    rng = np.random.default_rng(3)
    for width in (3, 5, 9):
        parts = [rng.integers(0, 256, size=(n, width), dtype=np.uint8) for n in (0, 1, 2, 7, 0, 100)]
        kinds = [ooc.POSITIONS, ooc.BITMAP, ooc.POSITIONS, ooc.BITMAP, ooc.POSITIONS, ooc.POSITIONS]
        path = tmp_path / f"w{width}.npy"
        ooc._save_segments(path, parts, kinds)
        for i, (part, kind) in enumerate(zip(parts, kinds)):
            seg, got_kind = ooc._segment(path, i)
            assert got_kind == kind and bytes(seg) == part.tobytes()
            assert len(np.ascontiguousarray(seg).view(f"V{width}")) == len(part)
    at = np.array([0, 3, 9, 99], dtype=np.uint32)
    for n in (201, 100):   # positions where the bitmap would be larger, else the bitmap
        seg, kind = ooc._positions_segment(at, n)
        assert kind == (ooc.POSITIONS if n == 201 else ooc.BITMAP)
        ooc._save_segments(tmp_path / "at.npy", [seg], [kind])
        assert np.array_equal(ooc._read_positions(*ooc._segment(tmp_path / "at.npy", 0), n), at)
    with pytest.raises(ooc.OocError, match="not a segment file"):
        ooc._segment(tmp_path / "at.npy", 1)
    np.save(tmp_path / "keys.npy", np.zeros(4, dtype=np.float64))
    with pytest.raises(ooc.OocError, match="not a segment file"):
        ooc._segment(tmp_path / "keys.npy", 0)


def test_a_task_writes_a_few_files_whatever_the_partitions(tmp_path):
    """Layout 3: a forward task writes one request file per next layer and one positions file per
    earlier layer, so a layer holds O(P) files, not the O(P^2) of a file per pair of partitions."""
    cfg = ooc.config_from(params(8))
    job = ooc.Job.of(cfg, 6)
    root = tmp_path / "run"
    res = ooc.solve(cfg, root, partitions=6, forward_only=8)
    assert res["layers"][7]["states"] > 6 * 10   # a layer with keys in every partition
    layer6 = ooc._layer_dir(root, 6)
    at = sorted(p.name for p in layer6.glob("p*.at.L*.npy"))
    assert at == [f"p{d:03d}.at.L{src:03d}.npy" for d in range(6) for src in (4, 5)]
    assert not list(layer6.glob("from.*"))   # gathered: the requests to layer 6 went
    asked = sorted(p.name for p in ooc._layer_dir(root, 8).glob("from.*.npy"))
    assert len(asked) <= 2 * job.partitions     # from layers 6 and 7 (layer 8 not gathered yet)


def test_evaluate_reads_successors_in_any_order(tmp_path):
    """Evaluate keeps the successors' values sorted (merged from the ascending runs it is given) and
    searches them from fingers: the values of a layer are the solve's, bit for bit, whatever the
    order of the successors (one run, or hundreds) and of the roots; a missing successor is an
    error, never a value."""
    import numpy as np
    cfg = ooc.config_from(params(8))
    ooc.solve(cfg, tmp_path / "run", partitions=3, keep_cards=(3, 2))   # layers 10-11, 12-13
    job = ooc.Job.of(cfg, 3)
    roots, want = ooc.layer_values(tmp_path / "run", (10,))
    succ, vals = ooc.layer_values(tmp_path / "run", (11, 12))   # a turn moves one layer or two
    succ = ooc.narrow(succ, job.key_bytes)                        # as stored on disk
    assert len(roots) > 50 and len(succ) > 200
    assert np.array_equal(ooc.evaluate(job, roots, succ, vals), want)
    rng = np.random.default_rng(7)
    mixed = rng.permutation(len(succ))                  # about len/2 ascending runs
    assert np.array_equal(ooc.evaluate(job, roots, succ[mixed], vals[mixed]), want)
    back = np.arange(len(roots))[::-1]                  # the roots against the fingers' direction
    assert np.array_equal(ooc.evaluate(job, roots[back], succ[mixed], vals[mixed]), want[back])
    stops = len(ooc.layer_values(tmp_path / "run", (11,))[0])
    with pytest.raises(ooc.OocError, match="has no value"):
        ooc.evaluate(job, roots, succ[stops:], vals[stops:])   # the stops' successors left out


def test_route_groups_successors_as_partition_of_and_narrow_do(tmp_path):
    """ooc.route (C) sends each successor to the group (step - 1) * P + partition_of(key), stored
    as narrow stores it, in the listed order; a step other than 1 or 2 and a key wider than its
    bytes are errors."""
    import numpy as np
    cfg = ooc.config_from(params(8))
    ooc.solve(cfg, tmp_path / "run", partitions=2, keep_cards=4)   # layers 8 and 9
    roots, _ = ooc.layer_values(tmp_path / "run", (8,))
    P, job = 5, ooc.Job.of(cfg, 5)
    (out, lay), = list(ooc.expand(job, roots))
    got = ooc.route(out, lay, 8, P, job.key_bytes, tmp_path)
    group = (lay.astype(np.int64) - 8 - 1) * P + ooc.partition_of(out, P)
    want = [(g, ooc.narrow(out[group == g], job.key_bytes)) for g in range(2 * P) if (group == g).any()]
    assert len(want) >= 6 and [g for g, _ in got] == [g for g, _ in want]
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(got, want))
    with pytest.raises(ooc.OocError, match=r"moved \[2, 3\] layers"):
        ooc.route(out, lay, 7, P, job.key_bytes, tmp_path)   # seen from a layer before: steps 2-3
    with pytest.raises(ooc.OocError, match="more than the 1 bytes"):
        ooc.route(out, lay, 8, P, 1, tmp_path)
