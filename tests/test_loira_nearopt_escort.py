"""The near-optimal policy's escorts above its exact endgame: with two players one turn of look-ahead
decides them (``nearopt.ESCORT_LOOKAHEAD_PLAYERS``; the tables only where it outgrows its budget),
the go/stop decisions stay with the tables, and three players keep their tables throughout."""
from __future__ import annotations

import random

from ruleproof.model.loira.endgame import Endgame
from ruleproof.model.loira.nearopt import _binary, choose, near_optimal
from ruleproof.model.loira.nearopt_regret import _VERIFY, _rung, build_config
from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.sampling import sample_outcome


def _decisions_above(g, endgame, kind: str, games: int = 300, seed: int = 3) -> list:
    """Distinct ``kind`` decisions (``"escort"`` or ``"stop"``) above ``endgame``'s region that
    seeded games of uniformly random play meet, in the order met."""
    rng = random.Random(seed)
    found: dict = {}
    for _ in range(games):
        s = g.initial_state()
        while g.current_player(s) != TERMINAL:
            if g.current_player(s) == CHANCE:
                s = g.apply(s, sample_outcome(g.chance_outcomes(s), rng))
                continue
            met = _binary(g, s)
            if met is not None and met[0] == kind and not endgame.covers(s):
                found.setdefault(s, None)
            s = g.apply(s, rng.choice(list(g.legal_actions(s))))
    return list(found)


def test_two_players_escort_above_the_endgame_by_the_lookahead():
    """The 8-card bench rung with the endgame from 3 cards left: every escort above it is the
    look-ahead's choice, which differs from the escort tables' on some of them (so the choice of
    engine shows in play), and switched off the tables decide again."""
    g = build_config(None, _rung(8))
    policy = near_optimal(g, 3)
    escorts = _decisions_above(g, policy.endgame, "escort")
    assert len(escorts) >= 3
    ahead = Endgame(g, 3)
    chosen = [policy(s) for s in escorts]
    assert chosen == [ahead.lookahead(s) for s in escorts]
    assert any(a != choose(g, s) for a, s in zip(chosen, escorts))
    assert policy.endgame.lookahead_overruns == 0
    off = near_optimal(g, 3, escort_lookahead=False)
    assert [off(s) for s in escorts] == [choose(g, s) for s in escorts]


def test_two_players_go_or_stop_above_the_endgame_stays_with_the_tables():
    g = build_config(None, _rung(8))
    policy = near_optimal(g, 3)
    stops = _decisions_above(g, policy.endgame, "stop", games=60)
    assert stops
    assert [policy(s) for s in stops] == [choose(g, s) for s in stops]


def test_three_players_escort_by_the_tables():
    """Three players' tables come from exact solutions and lose nothing on any measured row: their
    escorts above the endgame are the tables' (12 met on the verify deck from 1 card left)."""
    g = build_config(None, {**_VERIFY, "players": 3})
    policy = near_optimal(g, 1)
    escorts = _decisions_above(g, policy.endgame, "escort")
    assert len(escorts) >= 5
    assert [policy(s) for s in escorts] == [choose(g, s) for s in escorts]
