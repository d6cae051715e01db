"""The near-optimal policy's look-ahead candidate (``near_optimal(..., lookahead=True)``) and its
evaluation in C (``fast.evaluate``): the C evaluation is the Python policy's exact regret, seat by
seat, on small rounds of 2 and 3 players where the look-ahead decides and loses something."""
from __future__ import annotations

import pytest

from ruleproof.model.loira import fast
from ruleproof.model.loira.endgame import STOPPED_CARDS, reduce_deck
from ruleproof.model.loira.exact import regret, solve
from ruleproof.model.loira.nearopt import near_optimal
from ruleproof.model.loira.nearopt_regret import build_config

ORDER = ["F1", "F2", "M1", "grito", "M2", "toc-toc", "P1", "grito", "descarga", "P2"]


def _round(players: int, deck: list[str]) -> dict:
    return {"players": players, "deck": deck, "stalls": [2, 4], "centre_rolls": 1}


VERIFY_DECK = ["F1", "F2", "M1", "grito", "toc-toc", "descarga", "fios"]
#: (players, deck, endgame cards, cut deck): regrets 0.0021 / 0.0018 (2 players, ~5 s) and
#: 0.029 / 0.011 / 0 (3 players, ~9 s: slow)
CASES = [(2, VERIFY_DECK, 2, 2),
         pytest.param(3, ORDER[:6], 1, 1, marks=pytest.mark.slow)]


@pytest.mark.parametrize("players, deck, endgame_cards, reduce_to", CASES)
def test_c_evaluation_is_the_python_policys_regret(players, deck, endgame_cards, reduce_to):
    g = build_config(None, _round(players, deck))
    made = []

    def policy(game):
        made.append(near_optimal(game, endgame_cards, reduce_to, lookahead=True))
        return made[-1]
    want = regret(g, policy, solve(g))
    assert not sum(p.endgame.overruns + p.endgame.lookahead_overruns for p in made)
    assert any(want[seat]["regret"] > 0 for seat in want)          # the look-ahead decides here
    for seat in want:
        got = fast.evaluate(g.cfg, seat, endgame_cards, max(endgame_cards, STOPPED_CARDS), reduce_to)
        assert got["values"][seat] == pytest.approx(float(want[seat]["policy"]), abs=1e-12)


def test_reduce_deck_keeps_proportions():
    assert reduce_deck([4, 2, 0, 2], 4) == [2, 1, 0, 1]
    assert reduce_deck([1, 1, 1], 2) == [1, 1, 0]            # equal remainders: the lower kind first
    assert reduce_deck([3, 1], 6) == [3, 1]                  # already small enough
    assert sum(reduce_deck([5, 3, 2, 1, 1], 5)) == 5

