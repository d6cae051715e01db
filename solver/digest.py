"""What a regression scenario stores about every state, not only the start: a digest of the
explored graph and its solution, and a one-byte fingerprint per state to find the first change.

Each state's record is its canonical key, who moves, every move (action, probability, the key of
the state it leads to), the returns of an end, and -- where the scenario was solved exactly on this
graph -- every seat's value and the optimal move. The digest hashes the records in breadth-first
order; the fingerprints (the first byte of each record's own hash, in the same order) stay beside
the scenarios file. A change anywhere changes the digest; comparing fingerprints position by
position finds the first state whose record differs, which ``rulings check`` narrates (the play
reaching it and what it is now). A rule optimal play avoids at the start, or one that two outcomes
score alike, still changes a move somewhere, so it is reported.
"""
from __future__ import annotations

import base64
import hashlib
import json
import lzma
import pickle
from fractions import Fraction
from pathlib import Path
from typing import Any

from ruleproof.model.protocol import TERMINAL

#: value types whose text is a function of the value and the exact type
_PLAIN = frozenset({int, str, bool, type(None), Fraction})


def _quoted(text: str) -> str:
    """``json.dumps(text)``: a text with nothing JSON escapes (printable ASCII without a quote or a
    backslash, as the reprs of keys and the texts of fractions are) is only put in quotes."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    return json.dumps(text)


def _texts(values) -> str:
    """``json.dumps([str(v) for v in values], separators=(",", ":"))``."""
    return "[" + ",".join(_quoted(str(v)) for v in values) + "]"


def _records(ex, sol=None):
    """Each state's record (bytes), in the exploration's breadth-first order: the JSON text of
    ``[key, kind, [[action, probability, child key, permutation]...], returns?, values?, choice?]``
    (``json.dumps`` with ``(",", ":")`` separators). Built from pieces encoded once each -- a
    state's key is in the record of every state that leads to it -- and joined as ``json.dumps``
    would join them (``tests/test_digest.py`` checks it against ``json.dumps`` record by record)."""
    keys, kinds, offsets = ex.keys, ex.kind, ex.offsets
    action, prob, child, perm = ex.action, ex.prob, ex.child, ex.perm
    exact = getattr(sol, "exact", None) if sol is not None and sol.exploration is ex else None
    choice = sol.choice if exact is not None else None
    dumps = json.dumps
    key_text: dict[int, str] = {}
    pieces: dict[Any, str] = {}      # actions' and probabilities' texts, by value

    def key_of(node: int) -> str:
        text = key_text.get(node)
        if text is None:
            text = key_text[node] = _quoted(repr(keys[node]))
        return text

    def piece(value: Any, as_text) -> str:
        # remembered by value and exact type (an IntEnum member equals its int, 1 == 1.0, yet
        # their texts differ), so only for plain scalars and flat tuples of them
        kind = type(value)
        if kind is tuple:
            if not all(type(x) in _PLAIN for x in value):
                return dumps(as_text(value))
            memo: Any = (tuple(map(type, value)), value)
        elif kind in _PLAIN:
            memo = (kind, value)
        else:
            return dumps(as_text(value))
        text = pieces.get(memo)
        if text is None:
            text = pieces[memo] = dumps(as_text(value))
        return text

    def prob_text(p) -> str:
        return "" if p is None else str(p)

    for node in range(ex.num_states):
        moves = ",".join(
            f"[{piece(action[e], repr)},{piece(prob[e], prob_text)},{key_of(child[e])},"
            f"{int(perm[e]) if perm is not None else 0}]"
            for e in range(offsets[node], offsets[node + 1]))
        rec = f"[{key_of(node)},{int(kinds[node])},[{moves}]"
        if kinds[node] == TERMINAL:
            rec += "," + _texts(ex.returns[node])
        if exact is not None:
            rec += "," + _texts(exact[node])
            c = int(choice[node])
            rec += "," + (piece(action[c], repr) if c >= 0 else '""')
        key_text.pop(node, None)     # breadth-first: a state's own record is its key's last use mostly
        yield (rec + "]").encode()


def graph_digest(ex, sol=None, memo: dict | None = None) -> tuple[str, bytes]:
    """(the digest of every state's record, one fingerprint byte per state). ``memo`` (a worker's,
    across scenarios): the graph digested just before is not digested again when this one has the
    same records -- see ``_same_records``; under most alternative readings a configuration never
    exercises, ``rulings check`` explores the very same graph (22 of Loira's 35 scenarios)."""
    if memo is None:
        return _digest(ex, sol)
    last = memo.get(_LAST)
    if last is not None and _same_records(last, ex, sol):
        return last["digest"]
    memo[_LAST] = None   # the last one's graph freed first
    got = _digest(ex, sol)
    memo[_LAST] = {"fingerprint": _fingerprint(ex), "solution": _solution_of(ex, sol), "keys": ex.keys,
                   "action": ex.action, "names": None, "digest": got}
    return got


#: the memo's entry: the graph digested last (its key lists kept while the next one is compared)
_LAST = "digest: the last graph"


def _fingerprint(ex) -> str:
    from .graphmemo import fingerprint
    return fingerprint(ex)


def _solution_of(ex, sol) -> tuple | None:
    """The objects a record reads of the solution (each state's values and optimal move)."""
    if sol is None or getattr(sol, "exact", None) is None or sol.exploration is not ex:
        return None
    return sol.exact, sol.choice


def _names(keys, action) -> bytes:
    """The states' keys and the moves' actions, value for value and type for type (a pickle tells
    ``1``, ``True`` and an IntEnum member apart, as their reprs in the records do). Read item by
    item, as the records read them (a batch exploration keeps them in an array of its own)."""
    return hashlib.sha256(pickle.dumps((list(keys), list(action)), protocol=5)).digest()


def _same_records(last: dict, ex, sol) -> bool:
    """Whether ``ex`` (with ``sol``) writes, state by state, the records of the graph digested last:
    the same graph as the solver sees it (``graphmemo.fingerprint``: kinds, edges, chance
    probabilities -- the objects ``prob`` holds are ``prob_table``'s --, permutations, returns), the
    very same solution objects (the graph memo's shared solution: its values and choices), and
    keys and actions equal with their types. Anything else in a record is made of these."""
    solution = _solution_of(ex, sol)
    kept = last["solution"]
    if (solution is None) != (kept is None) or (solution is not None and not all(
            a is b for a, b in zip(solution, kept))):
        return False
    if len(ex.keys) != len(last["keys"]) or last["fingerprint"] != _fingerprint(ex):
        return False
    if last["names"] is None:
        last["names"] = _names(last["keys"], last["action"])
    return last["names"] == _names(ex.keys, ex.action)


def _digest(ex, sol=None) -> tuple[str, bytes]:
    whole = hashlib.sha256()
    prints = bytearray()
    for rec in _records(ex, sol):
        h = hashlib.blake2b(rec, digest_size=8).digest()
        whole.update(h)
        prints.append(h[0])
    return whole.hexdigest()[:32], bytes(prints)


def describe_state_record(ex, sol, node: int) -> str:
    """What a state is now: who moves, its moves, its value and the optimal move when solved."""
    game = ex.game
    state = ex.state(node)
    parts = [game.describe_state(state)]
    if ex.kind[node] != TERMINAL:
        moves = [game.describe_action(state, ex.action[e]) + (f" ({ex.prob[e]})" if ex.prob[e] is not None else "")
                 for e in ex.edges(node)]
        parts.append("moves: " + "; ".join(moves[:8]) + (" ..." if len(moves) > 8 else ""))
    if sol is not None and getattr(sol, "exact", None) is not None and sol.exploration is ex:
        parts.append("values " + ", ".join(str(v) for v in sol.exact[node]))
        c = int(sol.choice[node])
        if c >= 0:
            parts.append(f"optimal move: {game.describe_action(state, ex.action[c])}")
    return "; ".join(parts)


def first_difference(stored: bytes, now: bytes) -> int | None:
    """The first state (breadth-first index) whose fingerprint differs, or None."""
    for i, (a, b) in enumerate(zip(stored, now)):
        if a != b:
            return i
    return None if len(stored) == len(now) else min(len(stored), len(now))


# ---- the fingerprints file beside a game's scenarios.json --------------------------------------------------

def prints_path(scenarios_file: Path) -> Path:
    """``scenarios.json`` -> ``scenarios.states.xz`` (``pig.json`` -> ``pig.states.xz``)."""
    return scenarios_file.with_suffix(".states.xz")


def load_prints(scenarios_file: Path) -> dict[str, bytes]:
    path = prints_path(scenarios_file)
    if not path.exists():
        return {}
    data = json.loads(lzma.decompress(path.read_bytes()))
    return {name: base64.b64decode(b) for name, b in data.items()}


def dump_prints(prints: dict[str, bytes]) -> bytes:
    data = {name: base64.b64encode(b).decode() for name, b in sorted(prints.items())}
    return lzma.compress(json.dumps(data, separators=(",", ":")).encode(), preset=9 | lzma.PRESET_EXTREME)
