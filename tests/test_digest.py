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
