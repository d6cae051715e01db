"""The deduction engine gives the very fractions it gave before its fast pass (recorded in
tests/data by tests/golden_bomb_busters.py): marginals, dual cuts and the Detector Duplo table."""
from __future__ import annotations

import json

import pytest

from golden_bomb_busters import GOLDEN, cases, record

RECORDED = json.loads(GOLDEN.read_text())
CASES = list(cases())


def test_every_case_is_recorded():
    assert sorted(RECORDED) == sorted(name for name, _ in CASES)


@pytest.mark.parametrize("name,pos", CASES, ids=[name for name, _ in CASES])
def test_same_fractions_as_recorded(name, pos):
    expected = RECORDED[name]
    if "no_deal" in expected:
        from ruleproof.model.bomb_busters.deduce import NoDeal
        with pytest.raises(NoDeal):
            record(pos)
        return
    got = record(pos)
    for key in ("deals", "positions", "plays", "duplo"):
        assert got[key] == expected[key], key
