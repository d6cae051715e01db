"""Out-of-core exact solving of a 2-player Loira round, layer by layer, on disk.

The round is layered: layer ``L = 2 * cards drawn + (a seat has stopped)``, and every turn moves
one layer on (a stop) or two (a draw). The turn-start states of a layer are split by a hash of
their key into ``partitions`` files; each partition is one task:

- forward, layer by layer from the initial state: the partition's keys are the union of the keys
  its predecessors asked for; the positions of each predecessor's keys in the partition are kept
  (4 bytes a request, or a bitmap over the partition when that is smaller). The C engine
  (``loira_expand`` in ``fast_solver.c``, the same rules as the in-memory solver) lists each turn's
  successor keys; a partition writes one request file to each of the next two layers, its keys for
  every partition there in segments (deduplicated per source partition). Once every partition of
  a layer has gathered its keys, the requests to it go;
- backward, from the last layer: the engine computes each key's value from its successors'
  values (read through the positions from the next two layers' keys and values; in the engine,
  merged into one sorted array and searched from a few fingers: the roots, in key order, ask for
  their successors in a few streams that advance through it), and writes them.
  Once a layer is valued, what only it needed goes: its positions, and the keys and values two
  layers on. The disk then holds keys and values of the layers not yet valued, their positions,
  and the requests of at most two layers.

A task writes a handful of files whatever the partition count (layout 3): one request file per
next layer and one positions file per earlier layer, each a sequence of segments, one per
partition at the other end (:func:`_save_segments`). Layout 2 wrote a file per pair of partitions,
2P^2 requests and as many positions a layer (13 cards, CPU a state: 3.64 us at 16 partitions and
6.53 at 32 with layout 2, 3.26 and 6.04 with layout 3; no measurable change at 8). What still grows
with P is each task's reads: a segment from every partition of the layers around it.

On disk a key takes the bytes its configuration's fields need (``Job.key_bytes``: 9 for the full
round's 6 stalls and 3 rolls on 16 cards), not the engine's 16 (:func:`narrow`, :func:`widen`).
A folder records its layout (``job.json``); one written by an earlier layout is refused.

Values are the same float64 arithmetic as the in-memory C solver in the same order, so they are
bit-equal to it ("exact" means the exact optimum, computed in float64). Every finished task leaves
a marker file, so a killed solve started again on the same folder resumes after its last finished
task. Tasks run in this process (``workers=0``), on a Dask ``LocalCluster`` of ``workers``
processes, or on an existing Dask scheduler (``scheduler=address``; the folder must then be on a
file system every worker sees).

    python -m ruleproof.model.loira.ooc DIR --deck F1,F2,M1,grito --stalls 2,4 --centre-rolls 1 [--workers 2]
"""
from __future__ import annotations

if __name__ == "__main__":   # run as a command: a Ctrl-C while the libraries load is answered in main()
    from ruleproof.solver.runtime import early_sigint
    early_sigint()

import ctypes  # noqa: E402
import json
import os
import resource
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from . import fast
from .config import Config

KEY = np.dtype("V16")          # a packed turn-start key (lo, hi) as one sortable item
LAYOUT = 3                     # the folder's file layout (job.json "layout"; 2: stops 31-49; none: 19-30)
BUFFER = 1 << 21               # successor entries per engine call
SCHEDULER_TIMEOUT = 3          # seconds to reach a Dask scheduler (--scheduler)


class OocError(RuntimeError):
    """Bad input or an inconsistent folder: one line naming the file, key and reason."""


@dataclass(frozen=True)
class Job:
    """What a task needs to rebuild the engine's configuration (plain values: sent to workers)."""
    deck: tuple[int, ...]
    stalls: tuple[int, ...]
    counts: tuple[int, ...]
    rolls: tuple[int, int]
    centre_rolls: int
    first_seat: int
    partitions: int
    key_bytes: int = 16        # the bytes of a key on disk (the configuration's key bits, rounded up)
    layout: int = LAYOUT

    @classmethod
    def of(cls, cfg: Config, partitions: int) -> "Job":
        reason = fast.supports(cfg) or (None if cfg.players == 2 else f"it solves 2 players, not {cfg.players}")
        if reason:
            raise OocError(f"out-of-core solving needs the fast solver's configurations: {reason}")
        if cfg.objective != "round":   # a job names no objective: it solves one round's value
            raise OocError(f"objective={cfg.objective}: out-of-core solving answers one round's value "
                           "(objective=round); a match needs the in-memory solver (ruleproof solve)")
        # layers need every turn to draw or stop: cards set aside (L19) and the ruling flags that
        # let a stopped player act (L13) could keep a turn in its layer; none is layered yet
        if any(cfg.deck[16:]):
            raise OocError("out-of-core solving covers the base cards (no mini-expansion cards yet)")
        flagged = [f"{rid}={opt}" for rid, opt in fast.FLAGS if cfg.rulings.get(rid) == opt
                   and (rid != "L25" or fast.cyclic(cfg))]   # a reshuffle that cannot happen
        if flagged:
            raise OocError(f"out-of-core solving covers the default rulings (not {', '.join(flagged)})")
        if partitions < 1:
            raise OocError(f"partitions: must be at least 1 (got {partitions})")
        job = cls(tuple(cfg.deck[:24]), tuple(cfg.stalls), tuple(cfg.stall_counts),
                  (cfg.rolls[0], cfg.rolls[1]), cfg.centre_rolls, cfg.first_seat, partitions)
        return cls(**{**asdict(job), "key_bytes": key_bytes(job)})

    @property
    def layers(self) -> int:
        return 2 * sum(self.deck) + 2


# ---- the engine ---------------------------------------------------------------------------------
def _engine():
    dll = fast._library()
    fn = dll.loira_expand
    fn.restype = ctypes.c_int64
    return fn


def key_bytes(job: Job) -> int:
    """The bytes a key of this configuration needs on disk (C: ``ooc_key_bytes``; 16 at most)."""
    ints = lambda xs, n: (ctypes.c_int * n)(*xs)          # noqa: E731
    flags = [0] * len(fast.FLAGS)
    with fast._CALL_LOCK:
        fast._library().loira_configure(ints(flags, len(flags)), len(flags))
        return int(fast._library().ooc_key_bytes(ints(job.deck, 24), len(job.stalls), ints(job.stalls, 8),
                                                  ints(job.counts, 8), ints(job.rolls, 2), job.centre_rolls))


def _call(job: Job, mode: int, keys: np.ndarray, succ: np.ndarray | None = None,
          succ_val: np.ndarray | None = None, out_cap: int = 0):
    fn = _engine()
    keys = np.ascontiguousarray(keys).view(np.uint64)
    out = np.zeros(2 * max(out_cap, 1), dtype=np.uint64)
    layer = np.zeros(max(out_cap, 1), dtype=np.int8)
    values = np.zeros(max(len(keys) // 2, 1), dtype=np.float64)
    succ_u = np.ascontiguousarray(succ if succ is not None else np.zeros(0, f"V{job.key_bytes}"))
    if succ_u.dtype.itemsize != job.key_bytes:   # the engine reads their width off its configuration
        raise OocError(f"successor keys of {succ_u.dtype.itemsize} bytes, not the {job.key_bytes} stored on disk (a bug)")
    succ_v = np.ascontiguousarray(succ_val if succ_val is not None else np.zeros(0), dtype=np.float64)
    out_n = ctypes.c_int64()
    ptr = lambda a: a.ctypes.data_as(ctypes.c_void_p)   # noqa: E731
    ints = lambda xs, n: (ctypes.c_int * n)(*xs)          # noqa: E731
    flags = [0] * len(fast.FLAGS)   # the default rulings (Job.of refuses the others)
    with fast._CALL_LOCK:   # the engine keeps its table and ruling flags in globals
        fast._library().loira_configure(ints(flags, len(flags)), len(flags))
        rc = fn(ints(job.deck, 24), len(job.stalls), ints(job.stalls, 8), ints(job.counts, 8),
                ints(job.rolls, 2), job.centre_rolls, job.first_seat, mode, ptr(keys),
                ctypes.c_int64(len(keys) // 2), ptr(succ_u), ptr(succ_v), ctypes.c_int64(len(succ_u)),
                ptr(out), ptr(layer), ctypes.c_int64(out_cap), ctypes.byref(out_n), ptr(values))
    if rc == -1:
        raise OocError("the configuration does not fit the 128-bit state key")
    if rc == -2:
        raise OocError("out of memory in the engine")
    if rc == -3:
        raise OocError("a successor has no value (the folder's files are inconsistent)")
    n = out_n.value
    return rc, out[:2 * n].view(KEY), layer[:n], values


def root_key(job: Job) -> np.ndarray:
    _, out, _, _ = _call(job, 0, np.zeros(0, KEY), out_cap=1)
    return out.copy()


def expand(job: Job, keys: np.ndarray):
    """Every successor (key, layer) of every key's turn, in buffer-sized pieces."""
    start, cap = 0, BUFFER
    while start < len(keys):
        done, out, layer, _ = _call(job, 1, keys[start:], out_cap=cap)
        if done == 0:
            cap *= 4      # one turn with more successors than the buffer holds
            continue
        yield out, layer
        start += done


def evaluate(job: Job, keys: np.ndarray, succ: np.ndarray, succ_val: np.ndarray) -> np.ndarray:
    """The mover's optimal value at each key (engine keys), its successors' values given (their
    keys as stored on disk, :func:`narrow`'s, in any order: sorted runs are cheapest)."""
    if len(keys) == 0:
        return np.zeros(0)
    _, _, _, values = _call(job, 2, keys, succ, succ_val)
    return values[:len(keys)]


def _keys_fn(name: str):
    fn = getattr(fast._library(), name)
    fn.restype = ctypes.c_int64
    return fn


def unique(keys: np.ndarray) -> np.ndarray:
    """``np.unique`` of keys (``V<w>`` items), in C (the same order; ~10x faster than NumPy's sort)."""
    keys = np.asarray(keys)
    out = np.array(keys, copy=True).ravel()
    n = _keys_fn("ooc_sort_unique")(ctypes.c_void_p(out.ctypes.data), ctypes.c_int64(len(out)),
                                    keys.dtype.itemsize)
    if n < 0:
        raise OocError("out of memory sorting keys")
    return out[:n]


def positions(keys: np.ndarray, asked: np.ndarray) -> np.ndarray:
    """Where each asked key sits in the sorted unique ``keys`` (``np.searchsorted``, in C)."""
    keys, asked = np.ascontiguousarray(keys), np.ascontiguousarray(asked)
    assert keys.dtype == asked.dtype
    out = np.zeros(len(asked), dtype=np.uint32)
    rc = _keys_fn("ooc_positions")(ctypes.c_void_p(keys.ctypes.data), ctypes.c_int64(len(keys)),
                                   ctypes.c_void_p(asked.ctypes.data), ctypes.c_int64(len(asked)),
                                   ctypes.c_void_p(out.ctypes.data), keys.dtype.itemsize)
    if rc != 0:
        raise OocError("a requested key is not in the partition (the folder's files are inconsistent)")
    return out


def narrow(keys: np.ndarray, width: int) -> np.ndarray:
    """The engine's 16-byte keys as stored on disk: the key's bits (``hi - 1``: pack adds one to
    the high word) in their first ``width`` bytes, as ``V<width>`` items; the bytes left out must
    be zero (checked: a configuration whose key outgrew ``width`` is an error, never a collision)."""
    words = np.ascontiguousarray(keys).view(np.uint64).reshape(-1, 2).copy()
    words[:, 1] -= np.uint64(1)
    raw = words.view(np.uint8).reshape(-1, 16)
    if width < 16 and raw[:, width:].any():
        raise OocError(f"a key needs more than the {width} bytes its configuration's fields allow (a bug)")
    return np.ascontiguousarray(raw[:, :width]).view(f"V{width}").ravel()


def widen(keys: np.ndarray) -> np.ndarray:
    """The inverse of :func:`narrow`: stored keys as the engine's 16-byte keys."""
    width = keys.dtype.itemsize
    raw = np.zeros((len(keys), 16), dtype=np.uint8)
    raw[:, :width] = np.ascontiguousarray(keys).view(np.uint8).reshape(-1, width)
    raw.view(np.uint64)[:, 1] += np.uint64(1)
    return raw.ravel().view(KEY)


def partition_of(keys: np.ndarray, partitions: int) -> np.ndarray:
    pair = keys.view(np.uint64).reshape(-1, 2)
    h = pair[:, 0] * np.uint64(0x9E3779B97F4A7C15) ^ pair[:, 1] * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= h >> np.uint64(29)
    return (h % np.uint64(partitions)).astype(np.int64)


def route(out: np.ndarray, lay: np.ndarray, layer: int, partitions: int, width: int, folder: Path):
    """Expand's successors (engine keys, their layers) as the requests they become: (group, keys
    stored as on disk) for each non-empty group ``(step - 1) * partitions + partition_of(key)``, the
    keys in their listed order (in C: ``ooc_route``; no NumPy temporaries a successor)."""
    out, lay = np.ascontiguousarray(out), np.ascontiguousarray(lay, dtype=np.int8)
    stored = np.empty(len(out) * width, dtype=np.uint8)
    counts = np.zeros(2 * partitions, dtype=np.int64)
    rc = _keys_fn("ooc_route")(ctypes.c_void_p(out.ctypes.data), ctypes.c_void_p(lay.ctypes.data),
                               ctypes.c_int64(len(out)), layer, partitions, width,
                               ctypes.c_void_p(stored.ctypes.data), ctypes.c_void_p(counts.ctypes.data))
    if rc == -1:
        steps = sorted(set((lay.astype(np.int64) - layer).tolist()))
        raise OocError(f"{folder}: a turn moved {steps} layers (expected 1 or 2)")
    if rc == -2:
        raise OocError(f"a key needs more than the {width} bytes its configuration's fields allow (a bug)")
    if rc < 0:
        raise OocError("out of memory routing the successors")
    keys, ends = stored.view(f"V{width}"), np.cumsum(counts)
    return [(g, keys[end - n:end]) for g, (n, end) in enumerate(zip(counts.tolist(), ends.tolist())) if n]


# ---- files --------------------------------------------------------------------------------------
def _layer_dir(root: Path, layer: int) -> Path:
    return root / f"L{layer:03d}"


def _save(path: Path, array: np.ndarray) -> None:
    """Atomically (a killed task leaves no half file under the final name)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        np.save(f, array)
    os.replace(tmp, path)


def _stored(array: np.ndarray) -> np.ndarray:
    """A keys file's rows as keys: ``V<w>`` (bytes, this layout) or ``V16`` (two words, stop 19-30's)."""
    return np.ascontiguousarray(array).view(f"V{array.shape[1] * array.itemsize}").ravel()


def _load_keys(path: Path, width: int) -> np.ndarray:
    return _stored(np.load(path)) if path.exists() else np.zeros(0, f"V{width}")


def _as_saved(keys: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(keys).view(np.uint8).reshape(-1, keys.dtype.itemsize)


def _save_segments(path: Path, parts: list[np.ndarray], kinds: list[int] | None = None) -> None:
    """Several arrays as one file: a ``uint8`` .npy whose header is int64s -- the count m, each
    segment's byte offset after the header, its length in bytes, its kind -- then each array's
    bytes, padded to 8 (so a segment read back as ``uint32`` is aligned). Read one with :func:`_segment`."""
    m = len(parts)
    blobs = [np.ascontiguousarray(a).view(np.uint8).ravel() for a in parts]
    lengths = np.array([len(b) for b in blobs], dtype=np.int64)
    padded = -(-lengths // 8) * 8
    head = np.zeros(3 * m + 1, dtype=np.int64)
    head[0] = m
    head[1:m + 1] = np.cumsum(padded) - padded
    head[m + 1:2 * m + 1] = lengths
    head[2 * m + 1:] = kinds if kinds is not None else 0
    base = 8 * len(head)
    data = np.zeros(base + int(padded.sum()), dtype=np.uint8)
    data[:base] = head.view(np.uint8)
    for b, at in zip(blobs, base + head[1:m + 1]):
        data[at:at + len(b)] = b
    _save(path, data)


def _segment(path: Path, i: int) -> tuple[np.ndarray, int]:
    """Segment ``i`` of a file written by :func:`_save_segments` (its bytes, memory-mapped: only
    they are read) and its kind; a file that is not one is refused in one line."""
    blob = np.load(path, mmap_mode="r")
    m = int(np.asarray(blob[:8]).view(np.int64)[0]) if blob.dtype == np.uint8 and len(blob) >= 8 else -1
    if not 0 <= i < m or len(blob) < 8 * (3 * m + 1):
        raise OocError(f"{path}: not a segment file with a segment {i} (the folder's files are inconsistent)")
    head = np.asarray(blob[:8 * (3 * m + 1)]).view(np.int64)
    at = 8 * len(head) + int(head[1 + i])
    return blob[at:at + int(head[m + 1 + i])], int(head[2 * m + 1 + i])


POSITIONS, BITMAP = 0, 1   # a positions segment's kinds


def _positions_segment(at: np.ndarray, n: int) -> tuple[np.ndarray, int]:
    """A request's positions (strictly rising) in a partition of ``n`` keys: as a bitmap over the
    partition (``uint8``, n/8 bytes) when that is smaller than the positions (``uint32``, 4 bytes each)."""
    if (n + 7) // 8 < 4 * len(at):
        mask = np.zeros(n, dtype=bool)
        mask[at] = True
        return np.packbits(mask), BITMAP
    return at.astype(np.uint32), POSITIONS


def _read_positions(segment: np.ndarray, kind: int, n: int) -> np.ndarray:
    if kind == BITMAP:
        return np.flatnonzero(np.unpackbits(np.asarray(segment))[:n])
    return np.asarray(segment).view(np.uint32)


def _request_path(root: Path, dst_layer: int, src_layer: int, src_part: int) -> Path:
    """The keys partition ``src_part`` of ``src_layer`` asks of ``dst_layer``: a segment for each
    partition there (until that layer's forward)."""
    return _layer_dir(root, dst_layer) / f"from.L{src_layer:03d}p{src_part:03d}.npy"


def _positions_path(root: Path, layer: int, part: int, src_layer: int) -> Path:
    """Where the keys each partition of ``src_layer`` asked sit in partition ``part`` of ``layer``:
    a segment for each (written by that partition's forward; until ``src_layer`` is valued)."""
    return _layer_dir(root, layer) / f"p{part:03d}.at.L{src_layer:03d}.npy"


def _peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _mark(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "w") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:   # a full disk, Ctrl-C: no half-written marker is left behind
        tmp.unlink(missing_ok=True)
        raise


# ---- tasks --------------------------------------------------------------------------------------
def forward_task(root: str, job: Job, layer: int, part: int) -> dict:
    """Gather the partition's keys, expand them, write the requests to the next two layers."""
    folder = _layer_dir(Path(root), layer)
    done = folder / f"p{part:03d}.fwd.done"
    keys_path = folder / f"p{part:03d}.keys.npy"
    if done.exists():
        return {"states": int(done.read_text() or 0), "cpu": 0.0, "peak": _peak()}
    start = time.process_time()
    folder.mkdir(parents=True, exist_ok=True)
    P, width = job.partitions, job.key_bytes
    if layer == 0:
        key = root_key(job)
        keys = key if partition_of(key, P)[0] == part else np.zeros(0, KEY)
    else:
        sources = [(src, q) for src in (layer - 1, layer - 2) if src >= 0 for q in range(P)]
        asked = []
        for src, q in sources:
            path = _request_path(Path(root), layer, src, q)
            seg = _segment(path, part)[0] if path.exists() else np.zeros(0, np.uint8)
            asked.append(np.ascontiguousarray(seg).view(f"V{width}"))
        keys = unique(np.concatenate(asked)) if asked else np.zeros(0, f"V{width}")
        if len(keys) >= 1 << 32:
            raise OocError(f"{folder}: partition {part} has {len(keys)} keys (at most 2^32: use more partitions)")
        for src in (layer - 1, layer - 2):   # each request sorted and unique: its positions rise
            if src >= 0:
                segs = [_positions_segment(positions(keys, ask), len(keys))
                        for (s, _), ask in zip(sources, asked) if s == src]
                _save_segments(_positions_path(Path(root), layer, part, src), [a for a, _ in segs],
                               [k for _, k in segs])
        keys = widen(keys)
    found: dict[int, list[np.ndarray]] = {}
    for out, lay in expand(job, keys):
        for g, piece in route(out, lay, layer, P, width, folder):
            found.setdefault(g, []).append(piece)   # sorted once, below
    for step in (1, 2):
        groups = [found.get((step - 1) * P + d) for d in range(P)]
        if any(g is not None for g in groups):
            dst = _layer_dir(Path(root), layer + step)
            dst.mkdir(parents=True, exist_ok=True)
            _save_segments(_request_path(Path(root), layer + step, layer, part),
                           [_as_saved(unique(np.concatenate(g))) if g else np.zeros(0, np.uint8) for g in groups])
    _save(keys_path, _as_saved(narrow(keys, width)))
    _mark(done, str(len(keys)))
    return {"states": len(keys), "cpu": time.process_time() - start, "peak": _peak()}


def gathered(root: Path, layer: int) -> None:
    """Delete the requests to ``layer`` once every partition's forward has gathered its keys from
    them (their positions hold the same information). Idempotent: a resumed solve calls it again."""
    for f in _layer_dir(root, layer).glob("from.L*.npy"):
        f.unlink(missing_ok=True)


def backward_task(root: str, job: Job, layer: int, part: int) -> dict:
    """Value the partition's keys from the values of the successors it asked for."""
    folder = _layer_dir(Path(root), layer)
    done = folder / f"p{part:03d}.bwd.done"
    if done.exists():
        return {"cpu": 0.0, "peak": _peak()}
    start = time.process_time()
    keys = widen(_load_keys(folder / f"p{part:03d}.keys.npy", job.key_bytes))
    succ, vals = [], []
    for nxt in (layer + 1, layer + 2):
        for q in range(job.partitions):
            at_path = _positions_path(Path(root), nxt, q, layer)
            if not at_path.exists():
                continue
            segment, kind = _segment(at_path, part)
            if len(segment) == 0:
                continue
            try:   # memory-mapped: only the asked rows are read
                their_keys = np.load(_layer_dir(Path(root), nxt) / f"p{q:03d}.keys.npy", mmap_mode="r")
                their_vals = np.load(_layer_dir(Path(root), nxt) / f"p{q:03d}.values.npy", mmap_mode="r")
            except FileNotFoundError as e:
                raise OocError(f"{e.filename}: missing, but {at_path.name} asks it for values "
                               "(the folder's files are inconsistent)") from None
            at = _read_positions(segment, kind, len(their_keys))
            succ.append(_stored(their_keys[at]))
            vals.append(np.asarray(their_vals[at]))
    values = evaluate(job, keys, np.concatenate(succ) if succ else np.zeros(0, f"V{job.key_bytes}"),
                      np.concatenate(vals) if vals else np.zeros(0))
    _save(folder / f"p{part:03d}.values.npy", values)
    done.touch()
    return {"cpu": time.process_time() - start, "peak": _peak()}


def kept_layers(job: Job, cards: int | tuple[int, ...] | None) -> tuple[int, ...]:
    """The layers of the turn-start states with ``cards`` cards left in the deck (nobody stopped,
    someone stopped; one count or several): the edge of an endgame region, whose optimal values a
    measurement of a policy above it reads (:func:`layer_values`)."""
    if cards is None:
        return ()
    counts = (cards,) if isinstance(cards, int) else tuple(cards)
    return tuple(layer for k in counts for layer in (2 * (sum(job.deck) - k), 2 * (sum(job.deck) - k) + 1))


def release(root: Path, job: Job, layer: int, keep: tuple[int, ...] = ()) -> None:
    """Delete what only the valuing of ``layer`` needed: the positions of its requests, and the
    keys and values of ``layer + 2`` (layers ``layer`` and ``layer + 1``, the only ones that
    read them, are valued), unless ``keep`` names it. Idempotent: a resumed solve calls it again."""
    for nxt in (layer + 1, layer + 2):
        for f in _layer_dir(root, nxt).glob(f"p*.at.L{layer:03d}.npy"):
            f.unlink(missing_ok=True)
    if layer + 2 < job.layers and layer + 2 not in keep:
        for f in _layer_dir(root, layer + 2).glob("p*.*.npy"):
            if f.name.endswith((".keys.npy", ".values.npy")):
                f.unlink(missing_ok=True)


# ---- the driver ---------------------------------------------------------------------------------
JOB_FILE = "job.json"


def _job_doc(job: Job) -> dict:
    want = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(job).items()}
    return {"tool": "ruleproof", "command": "ooc", **want}


def _check_folder(root: Path, job: Job) -> None:
    """The working folder: new or empty (the job description is written first, before any task),
    or this very job's folder (resumed). Refused in one line: a file, a folder holding files but
    no job description, or one whose ``job.json`` is unreadable, incomplete or another job's."""
    from ruleproof.solver.outputs import check_working_folder
    meta = root / JOB_FILE
    want = _job_doc(job)
    if not check_working_folder(root, "FOLDER"):
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise OocError(f"{root}: cannot create the folder ({e.strerror or e})") from None
    entries = set(os.listdir(root))
    if JOB_FILE not in entries:
        if entries:
            raise OocError(f"{root}: holds files but no {JOB_FILE}, so it is not an out-of-core job "
                           "folder this solve can resume; give a new or empty folder")
        _mark(meta, json.dumps(want) + "\n")
        return
    try:
        have = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise OocError(f"{meta}: unreadable ({e}); not resumable: give a new or empty folder") from None
    if not isinstance(have, dict):
        raise OocError(f"{meta}: not a job description (a JSON object); give a new or empty folder")
    if have.get("tool", "ruleproof") != "ruleproof" or have.get("command", "ooc") != "ooc":
        raise OocError(f"{meta}: not an out-of-core job's description; give a new or empty folder")
    if have.get("layout") != LAYOUT:   # the files' format changed (stop 31): never mixed
        raise OocError(f"{meta}: written by an earlier version (file layout {have.get('layout', 1)}, this "
                       f"version writes {LAYOUT}); not resumable here: give a new or empty folder")
    for key, value in want.items():
        if key in ("tool", "command"):
            continue   # (job descriptions written before these keys are resumed too)
        if key not in have:
            raise OocError(f"{meta}: key {key!r} missing: an incomplete job description is not "
                           "resumed; give a new or empty folder")
        if have[key] != value:
            raise OocError(f"{meta}: key {key!r} is {have[key]!r}, this solve has {value!r} "
                           "(use another folder)")


def _dask(workers: int, scheduler: str | None):
    """A Dask client on the scheduler at ``scheduler``, or on a LocalCluster of ``workers``
    single-threaded processes; Dask's own log lines (warnings as tasks are cancelled) are kept
    off stderr, which carries one line on any error."""
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise OocError("workers/scheduler need Dask: pip install 'ruleproof[cluster]'") from None
    import logging
    # not even its errors: on Ctrl-C the scheduler logs the tasks it loses ("Couldn't gather keys",
    # seen in CI) before the command can say "interrupted"; a failure that matters reaches the
    # client as an exception, and the command says it in one line
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "critical")   # the worker processes inherit it
    # nor the note of multiprocessing's resource tracker after workers killed by Ctrl-C
    os.environ.setdefault("PYTHONWARNINGS", "ignore:::multiprocessing.resource_tracker")
    dask.config.set({"logging.distributed": "critical"})
    # the parent's level is not enough: Distributed's own configuration gives some of its loggers
    # a level of their own (distributed.client: warning), whose lines reach the parent's handler
    # all the same ("Couldn't gather 8 keys, rescheduling" before "interrupted", seen in CI)
    for name in [n for n in logging.root.manager.loggerDict if n == "distributed" or n.startswith("distributed.")]:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    if scheduler:
        try:   # an address nothing answers at: refused in seconds, not after Dask's 30
            return Client(scheduler, timeout=SCHEDULER_TIMEOUT), None
        except (OSError, TimeoutError, ValueError) as e:
            raise OocError(f"--scheduler {scheduler}: cannot connect ({e or type(e).__name__})") from None
    cluster = None
    try:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=":0", memory_limit=0)
        return Client(cluster), cluster
    except BaseException:   # Ctrl-C while the cluster starts: its processes go too
        _stop_dask(None, cluster, at_once=True)
        raise


def _stop_dask(client, cluster, at_once: bool = False) -> None:
    """Close the client and the local cluster; ``at_once``: kill the worker processes first
    (a graceful close waits for the tasks running in them)."""
    if at_once:
        import multiprocessing
        for child in multiprocessing.active_children():
            child.kill()
    for part in (client, cluster):
        if part is not None:
            try:
                part.close(timeout=1 if at_once else None) if part is client else part.close()
            except BaseException:  # noqa: BLE001 - already stopping: the first error is the one said
                if not at_once:
                    raise


def _disk(root: Path) -> int:
    """Bytes of the folder's arrays (every layer)."""
    return sum(p.stat().st_size for p in root.glob("L*/*.npy"))


def solve(cfg: Config, folder: str | Path, partitions: int = 8, workers: int = 0,
          scheduler: str | None = None, progress=None, forward_only: int | None = None,
          keep_cards: int | tuple[int, ...] | None = None) -> dict:
    """Seat 0's optimal value of the round, solved out of core in ``folder`` (resumable).

    ``workers=0`` runs the tasks in this process; otherwise on a Dask LocalCluster of that many
    single-threaded worker processes, or on the Dask scheduler at ``scheduler``. With
    ``forward_only=N`` only layers 0..N-1 are listed (their state counts, for sizing; no value).
    ``keep_cards=K`` (or several): the keys and values of the turn-start states with K cards left
    stay in the folder (:func:`kept_layers`; read them with :func:`layer_values`)."""
    job = Job.of(cfg, partitions)
    if workers < 0:
        raise OocError(f"workers: must be 0 (in this process) or more, not {workers}")
    if forward_only is not None and forward_only < 1:
        raise OocError(f"forward_only: must be at least 1 layer, not {forward_only}")
    root = Path(folder)
    _check_folder(root, job)
    client, cluster = _dask(workers, scheduler) if workers or scheduler else (None, None)

    def run(task, layer):
        args = [(str(root), job, layer, p) for p in range(partitions)]
        if client is None:
            return [task(*a) for a in args]
        futures = [client.submit(task, *a, pure=False) for a in args]
        return client.gather(futures)

    rows, start = [], time.perf_counter()
    try:
        for layer in range(min(job.layers, forward_only or job.layers)):
            t = time.perf_counter()
            res = run(forward_task, layer)
            gathered(root, layer)
            rows.append({"layer": layer, "states": sum(r["states"] for r in res),
                         "forward_seconds": round(time.perf_counter() - t, 3),
                         "cpu_seconds": round(sum(r["cpu"] for r in res), 3),
                         "peak": max(r["peak"] for r in res),
                         "disk_after_forward": _disk(root)})
            if progress:
                progress("forward", rows[-1])
        if forward_only:
            return {"states": sum(r["states"] for r in rows), "layers": rows,
                    "seconds": time.perf_counter() - start}
        for layer in reversed(range(job.layers)):
            t = time.perf_counter()
            res = run(backward_task, layer)
            row = rows[layer]
            row["backward_seconds"] = round(time.perf_counter() - t, 3)
            row["cpu_seconds"] = round(row["cpu_seconds"] + sum(r["cpu"] for r in res), 3)
            release(root, job, layer, kept_layers(job, keep_cards))
            row["disk_after_backward"] = _disk(root)
            row["peak"] = max(row["peak"], *(r["peak"] for r in res))
            if progress:
                progress("backward", row)
    except BaseException:   # Ctrl-C, a time limit, an error: the worker processes stop at once
        _stop_dask(client, cluster, at_once=True)
        client = cluster = None
        raise
    finally:
        _stop_dask(client, cluster)
    first = partition_of(root_key(job), partitions)[0]
    mover = float(np.load(_layer_dir(root, 0) / f"p{first:03d}.values.npy")[0])
    value = -mover if job.first_seat == 1 else mover
    return {"value": value, "states": sum(r["states"] for r in rows), "layers": rows,
            "seconds": time.perf_counter() - start,
            "peak_disk": max(max(r["disk_after_forward"], r["disk_after_backward"]) for r in rows),
            "cpu_seconds": sum(r["cpu_seconds"] for r in rows),
            "peak": max(max(r["peak"] for r in rows), _peak())}


def layer_values(folder: str | Path, layers: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The keys (``V16``) and the movers' optimal values of ``layers``, every partition, from a
    solved folder (kept with ``keep_cards``)."""
    root = Path(folder)
    keys, values = [], []
    for layer in layers:
        for path in sorted(_layer_dir(root, layer).glob("p*.keys.npy")):
            vals = path.with_name(path.name.replace(".keys.", ".values."))
            if not vals.exists():
                raise OocError(f"{vals}: missing (was the folder solved with these layers kept?)")
            stored = np.load(path)   # bytes (this layout), or the engine's two words (stop 19-30's)
            keys.append(_stored(stored) if stored.dtype == np.uint64 else widen(_stored(stored)))
            values.append(np.load(vals))
    if not keys:
        raise OocError(f"{root}: no kept layer among {list(layers)}")
    return np.concatenate(keys), np.concatenate(values)


# ---- command line -------------------------------------------------------------------------------
def config_from(params: dict[str, str]) -> Config:
    """The configuration of the default Loira ruleset with ``params`` overridden (validated)."""
    from types import MappingProxyType

    from ruleproof.model.ruleset import Ruleset

    from .config import SCHEMA
    from .game import build
    p, r = SCHEMA.defaults()
    rs = Ruleset("loira", "default", MappingProxyType(p), MappingProxyType(r), "defaults")
    return build(rs.with_overrides(params, spec=SCHEMA)).cfg


class _Parser:
    """argparse with the command line's contract: a refused argument is one line, exit 2."""

    @staticmethod
    def make():
        import argparse

        from ruleproof.solver import arguments

        class OneLine(argparse.ArgumentParser):
            def error(self, message: str):
                raise SystemExit(_say(f"error: command line: {message}", 2))

        def checked(check, flag, **options):
            def parse(text):
                try:
                    return check(text, flag, **options)
                except ValueError as e:   # RulesetError is one: its reason, without the prefix
                    raise argparse.ArgumentTypeError(getattr(e, "reason", str(e))) from None
            parse.__name__ = flag
            return parse
        ap = OneLine(prog="python -m ruleproof.model.loira.ooc",
                     description="Solve a 2-player Loira round exactly, out of core (a resumable folder).")
        ap.add_argument("folder", help="working folder (new or empty: the job starts; this job's "
                        "folder: it resumes; any other is refused)")
        ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a ruleset parameter, e.g. deck=F1,F2,M1,grito stalls=2,4 centre_rolls=1")
        ap.add_argument("--partitions", default=8, metavar="P",
                        type=checked(arguments.integer, "--partitions", low=1, high=MAX_PARTITIONS))
        ap.add_argument("--workers", default=0, metavar="W", type=checked(arguments.workers, "--workers"),
                        help="Dask LocalCluster processes (0: in this process)")
        ap.add_argument("--scheduler", help="address of a running Dask scheduler")
        ap.add_argument("--forward-only", metavar="N", help="list layers 0..N-1 only (state counts "
                        "for sizing; no value)", type=checked(arguments.integer, "--forward-only",
                                                              low=1, high=MAX_LAYERS))
        ap.add_argument("--keep-cards", metavar="K", help="keep the keys and values of the turn-start "
                        "states with K cards left (an endgame's edge; read them with layer_values)",
                        type=checked(arguments.integer, "--keep-cards", low=0, high=24))
        ap.add_argument("--timeout", metavar="SECONDS", type=checked(arguments.seconds, "--timeout"),
                        help="stop after this many seconds (partial, exit 1; the folder resumes)")
        ap.add_argument("--quiet", action="store_true")
        return ap


def _say(line: str, code: int) -> int:
    sys.stderr.write(line.replace("\n", " ") + "\n")
    return code


MAX_PARTITIONS = 999           # partition files are named p000..p999
MAX_LAYERS = 2 * 24 + 2        # a job's layers: two per card of the 24-card deck, and two more


def main(argv: list[str] | None = None) -> int:
    """The module's command line, under ruleproof's contract: bad input (a file or another job's
    folder, settings this solver does not solve, a scheduler nobody answers at) one line and exit 2;
    ``--timeout`` a partial result and exit 1 (the folder resumes); Ctrl-C "interrupted" and exit
    130, the worker processes stopped; never a traceback (an internal error: one line, exit 3)."""
    from contextlib import nullcontext

    from ruleproof.model.ruleset import RulesetError
    from ruleproof.solver import runtime
    started = time.monotonic()
    try:
        args = _Parser.make().parse_args(argv)
    except SystemExit as e:   # --help (0) or a refused argument (2, one line already said)
        return e.code if isinstance(e.code, int) else 2
    params = {}
    for kv in args.set:
        key, eq, value = kv.partition("=")
        if not eq or not key.strip():
            return _say(f"error: command line: --set: expected KEY=VALUE, got {kv!r}", 2)
        params[key.strip()] = value
    say = None if args.quiet else (lambda phase, row: print(phase, json.dumps(row), flush=True))

    def stopped(reason: str) -> str:
        return json.dumps({"partial": True, "reason": reason, "folder": args.folder,
                           "resume": "run the same command again"})

    def hard_stop() -> None:
        os.write(1, (stopped(f"time limit {args.timeout:g} s reached") + "\n").encode())
    watchdogs = runtime.armed(started, lambda line: os.write(2, (line + "\n").encode())) \
        if argv is None else nullcontext()
    try:
        with watchdogs, runtime.time_limit(args.timeout, hard_stop), runtime.stops_surface():
            res = solve(config_from(params), args.folder, args.partitions, args.workers, args.scheduler,
                        say, args.forward_only, args.keep_cards)
    except runtime.TimeLimit as e:
        print(stopped(str(e)), flush=True)
        return runtime.EXIT_LIMIT
    except (runtime.Interrupted, KeyboardInterrupt):
        runtime.say_interrupted()
        return runtime.EXIT_INTERRUPTED
    except (OocError, RulesetError, fast.FastUnavailable) as e:
        return _say(f"error: {e}", 2)
    except MemoryError:
        print(stopped("out of memory (use more partitions, or raise memory)"), flush=True)
        return runtime.EXIT_LIMIT
    except OSError as e:
        return _say(f"error: {getattr(e, 'filename', None) or args.folder}: {e.strerror or e}", 2)
    except Exception as e:  # noqa: BLE001 - the last resort: one line, no traceback
        return _say(f"internal error: {type(e).__name__}: {e}", 3)
    print(json.dumps({k: v for k, v in res.items() if k != "layers"}), flush=True)
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)   # no interpreter teardown, where a late Ctrl-C would meet Python's default handler
