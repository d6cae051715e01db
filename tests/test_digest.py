"""The regression scenarios' state records (``solver.digest``): the fast record builder writes, byte
for byte, what one ``json.dumps`` per state writes, on every game's stored small scenarios (solved
and not, symmetric and not), so the stored digests keep their meaning."""
from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, strategies as st
from ruleproof.model.protocol import TERMINAL
from ruleproof.model.registry import GAMES, get_spec
from ruleproof.solver.analysis import scenario_file, scenario_ruleset, solve_ruleset
from ruleproof.solver.digest import _quoted, _records, _texts, graph_digest
from ruleproof.solver.explore import explore

#: graphs small enough for a unit test: each game's stored scenarios up to this many states
SMALL = 60_000


def _cases() -> list[tuple[str, dict, dict]]:
    """Each game's stored regression scenarios (its own configurations, read from its folder), the
    two smallest with different digests: the default reading and one that changes the graph."""
    cases = []
    for game in sorted(GAMES):
        path = scenario_file(game)
        entries = json.loads(path.read_text()) if path.exists() else {}
        small = sorted((e for e in entries.values() if (e["expect"] or {}).get("states", SMALL + 1) <= SMALL),
                       key=lambda e: e["expect"]["states"])
        seen: set[str] = set()
        for entry in small:
            if entry["expect"]["digest"] not in seen and len(seen) < 2:
                seen.add(entry["expect"]["digest"])
                cases.append((game, entry.get("params", {}), entry.get("rulings", {})))
    return cases


CASES = _cases()



def _records_plain(ex, sol=None):
    """The records as first written (one ``json.dumps`` per state, the stored digests' format):
    the reference ``solver.digest._records`` is held to."""
    keys, kinds, offsets = ex.keys, ex.kind, ex.offsets
    exact = getattr(sol, "exact", None) if sol is not None and sol.exploration is ex else None
    choice = sol.choice if exact is not None else None
    for node in range(ex.num_states):
        moves = [(repr(ex.action[e]), str(ex.prob[e]) if ex.prob[e] is not None else "",
                  repr(keys[ex.child[e]]), int(ex.perm[e]) if ex.perm is not None else 0)
                 for e in range(offsets[node], offsets[node + 1])]
        rec: list[Any] = [repr(keys[node]), int(kinds[node]), moves]
        if kinds[node] == TERMINAL:
            rec.append([str(r) for r in ex.returns[node]])
        if exact is not None:
            rec.append([str(v) for v in exact[node]])
            c = int(choice[node])
            rec.append(repr(ex.action[c]) if c >= 0 else "")
        yield json.dumps(rec, separators=(",", ":")).encode()

def _small(game, params, rulings):
    spec = get_spec(game)
    rs = scenario_ruleset(game, params, rulings, "test")
    return rs, spec


@pytest.mark.parametrize("game,params,rulings", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_fast_records_equal_one_json_dumps_per_state(game, params, rulings):
    rs, spec = _small(game, params, rulings)
    ex = explore(spec.build(rs), check_invariants=False, max_states=60_000)
    assert list(_records(ex)) == list(_records_plain(ex))
    res = solve_ruleset(rs, exact=True, check_invariants=False)
    sol = res.result.solution
    if sol is not None and hasattr(sol, "exploration"):   # solved on this graph: values and choices too
        fast, plain = list(_records(sol.exploration, sol)), list(_records_plain(sol.exploration, sol))
        assert fast == plain and len(fast) == sol.exploration.num_states


def test_the_digest_sees_one_changed_move():
    rs, spec = _small("pig", {"goal": 10}, {})
    ex = explore(spec.build(rs), check_invariants=False)
    digest, prints = graph_digest(ex)
    probs = list(ex.prob)
    edge = next(e for e in range(len(probs)) if probs[e] is not None)
    node = next(n for n in range(ex.num_states) if ex.offsets[n] <= edge < ex.offsets[n + 1])
    probs[edge] = probs[edge] / 2          # one chance move's probability
    ex.prob = probs
    changed, changed_prints = graph_digest(ex)
    assert changed != digest and changed_prints[node] != prints[node] and changed_prints[:node] == prints[:node]


@given(st.text())
def test_a_text_is_quoted_as_json_dumps_quotes_it(text):
    # the records put keys' reprs and values' texts in quotes without json.dumps when nothing in
    # them needs escaping: quotes, backslashes, control characters and non-ASCII still go through it
    assert _quoted(text) == json.dumps(text)
    assert _texts([text, text[::-1]]) == json.dumps([text, text[::-1]], separators=(",", ":"))


def test_texts_with_what_json_escapes():
    for text in ['a"b', "a\\b", "é", "x\x7f", "tab\t", "\x00", "(1, -2)", "-3/7", ""]:
        assert _quoted(text) == json.dumps(text)


def _mini():
    from ruleproof.model.registry import load_ruleset
    return load_ruleset("loira-mini")


def _mini_graph():
    """Loira's smallest built-in round (a few thousand states; its keys are tuples with an IntEnum)."""
    return explore(get_spec("loira").build(_mini()), check_invariants=False)


def test_the_memo_gives_the_last_digest_only_for_the_same_records():
    """``graph_digest(..., memo)`` reuses the graph digested just before only when every record is
    the same: a key or an action equal in value but not in type (its repr, in the record, differs),
    or a changed move, or another solution, is digested afresh -- each as without the memo."""
    import dataclasses
    memo: dict = {}
    ex = _mini_graph()
    first = graph_digest(ex, None, memo)
    assert first == graph_digest(ex)
    again = _mini_graph()                      # explored again: another object, the same records
    assert graph_digest(again, None, memo) is first

    node = 5
    typed = dataclasses.replace(again, keys=list(again.keys))
    key = typed.keys[node]
    i = next(i for i, x in enumerate(key) if type(x) is int and x in (0, 1))
    typed.keys[node] = key[:i] + (bool(key[i]),) + key[i + 1:]   # equal, yet its repr differs
    assert typed.keys == again.keys
    assert graph_digest(typed, None, memo) == graph_digest(typed) != first

    acted = dataclasses.replace(again, action=list(again.action))
    edge = next(e for e, a in enumerate(acted.action) if type(a) is int and a in (0, 1))
    acted.action[edge] = bool(acted.action[edge])
    assert graph_digest(acted, None, memo) == graph_digest(acted) != first

    # solved: the same solution's objects reuse it, another solution's do not
    sol = solve_ruleset(_mini(), exact=True, check_invariants=False).result.solution
    solved = graph_digest(sol.exploration, sol, memo)
    assert solved == graph_digest(sol.exploration, sol) != first
    other = dataclasses.replace(sol, exact=[tuple(-v for v in vals) for vals in sol.exact])
    assert graph_digest(sol.exploration, other, memo) == graph_digest(sol.exploration, other) != solved
    assert graph_digest(sol.exploration, other, memo) is memo["digest: the last graph"]["digest"]


def test_rulings_check_with_the_memo_answers_as_without(monkeypatch):
    """Each game's stored scenarios, in the workers' order, with and without the worker's memo:
    the same digests and fingerprints (Loira's 35 are left to ``rulings check`` itself)."""
    from ruleproof.solver import analysis
    for game in ("pig", "skunk", "bomb-busters"):
        stored = json.loads(scenario_file(game).read_text())
        order = sorted(stored.items(), key=lambda kv: (-kv[1]["expect"]["states"], kv[1]["expect"]["digest"]))
        memo: dict = {}
        for name, entry in order:
            rs = scenario_ruleset(game, entry.get("params", {}), entry.get("rulings", {}), name)
            with_memo = analysis.run_scenario(rs, memo)
            without = analysis.run_scenario(rs, None)
            assert with_memo == without and with_memo["digest"] == entry["expect"]["digest"], (game, name)
