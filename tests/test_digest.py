"""The regression scenarios' state records (``solver.digest``): the fast record builder writes, byte
for byte, what one ``json.dumps`` per state writes, on every game's explored graphs (solved and
not, symmetric and not, cyclic), so the stored digests keep their meaning."""
from __future__ import annotations

import pytest

from ruleproof.model.registry import get_spec
from ruleproof.solver.analysis import scenario_ruleset, solve_ruleset
from ruleproof.solver.digest import _records, _records_plain, graph_digest
from ruleproof.solver.explore import explore

CASES = [   # the stored scenarios' small configurations (each game's scenarios.json "defaults")
    ("pig", {"goal": 20}, {}),
    ("skunk", {"goal": 20}, {}),
    ("loira", {"deck": ["F1", "F2", "grito", "toc-toc", "descarga"], "stalls": [2, 4], "centre_rolls": 1}, {}),
    ("loira", {"deck": ["F1", "F2", "grito", "toc-toc", "fios"], "stalls": [2, 4], "centre_rolls": 1},
     {"L25": "reshuffle"}),   # cyclic: a state is reached again from later states
    ("presentes", {"board": "mini", "dice": 1, "players": 2}, {}),
    ("bomb-busters", {"blue_copies": 2, "blue_values": 2, "detector_duplo": True, "detonator": 2,
                      "equipment": ["estabilizador@1", "comunicadores@2"], "players": 2, "red_drawn": 2,
                      "red_in_play": 1, "red_values": [1, 2], "yellow_drawn": 0, "yellow_in_play": 0}, {}),
]


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
