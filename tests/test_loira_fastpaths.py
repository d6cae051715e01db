"""The generic pipeline's Loira fast paths mean exactly what the plain code means.

The invariant screens (``model/loira/invariants.py``) may only skip the worded check where it would
find nothing; the game's own ``successors`` and interned ``returns`` agree with the protocol's
defaults; the explorer's pause of the garbage collector is undone however exploration ends.
"""
from __future__ import annotations

import gc
import random

import pytest

from ruleproof.model.loira.cards import Kind
from ruleproof.model.loira.game import LoiraGame, utility
from ruleproof.model.loira.invariants import invariants
from ruleproof.model.loira.scoring import round_winners
from ruleproof.model.loira.state import PH, TURN, Phase
from ruleproof.model.protocol import TERMINAL, Game
from ruleproof.solver.explore import explore
from test_loira_helpers import game

CONFIGS = [
    {"players": 2, "deck": ["F1", "F2", "grito", "toc-toc", "descarga", "espelho"], "stalls": [2, 4],
     "centre_rolls": 1},
    {"players": 3, "deck": ["ralo", "fios", "F1", "zelador", "M1", "interruptor"], "stalls": [2, 3],
     "centre_rolls": 1},
    {"players": 2, "deck": ["F-", "grito"], "stalls": [], "centre_rolls": 0},   # empty regions
]


def _reachable(g, limit=3000):
    ex = explore(g, max_states=limit, check_invariants=False)
    return [g.from_key(k) for k in ex.keys]


@pytest.mark.parametrize("params", CONFIGS)
def test_screened_invariants_report_what_the_worded_checks_report(params):
    g = game(params)
    fast, plain = invariants(g), invariants(g, screened=False)
    rng = random.Random(11)
    states = _reachable(g)
    broken = 0
    for s in states:
        # the state itself and copies with one or two fields nudged (most break an invariant)
        variants = [s]
        for _ in range(3):
            t = list(s)
            for _ in range(rng.choice((1, 2))):
                t[rng.randrange(len(t))] += rng.choice((-2, -1, 1, 2))
            variants.append(tuple(t))
        for v in variants:
            for a, b in zip(fast, plain):
                got, want = a.check(v), b.check(v)
                assert got == want, (a.name, v)
                broken += want is not None
    assert broken > len(states)   # the nudges did reach the worded checks


def _nudged(states, rng, copies=3):
    """Each state and copies with one or two fields nudged (most break an invariant)."""
    out = []
    for s in states:
        out.append(s)
        for _ in range(copies):
            t = list(s)
            for _ in range(rng.choice((1, 2))):
                t[rng.randrange(len(t))] += rng.choice((-2, -1, 1, 2))
            out.append(tuple(t))
    return out


@pytest.mark.parametrize("params", CONFIGS)
def test_row_screens_vouch_only_for_states_the_worded_checks_accept(params):
    g = game(params)
    fast, plain = invariants(g), invariants(g, screened=False)
    states = _reachable(g)
    rows = g.state_rows(states)
    for inv in fast:   # every reachable state passes each screen: the screens do spare the checks
        assert inv.screen_rows(rows).all(), inv.name
    variants = _nudged(states, random.Random(5))
    rows = g.state_rows(variants)
    assert rows.shape == (len(variants), g.size) and (rows == variants).all()
    rejected = 0
    for a, b in zip(fast, plain):
        vouched = a.screen_rows(rows)
        for v, ok in zip(variants, vouched.tolist()):
            want = b.check(v)
            assert not (ok and want is not None), (a.name, v, want)
            rejected += not ok
    assert rejected > len(states)   # the nudges did reach the worded checks
    assert g.state_rows([states[0], states[-1][:-1] + (200,)]) is None   # does not fit in int8


class _TocTocMintsARoll(LoiraGame):
    """Broken on purpose: Toc-Toc also mints a roll for the turn seat."""
    def apply(self, s, a):
        t = super().apply(s, a)
        if s[PH] == Phase.DRAW and a == Kind.TOCTOC:
            st = list(t)
            st[self.o_rolls + s[TURN]] += 1
            return tuple(st)
        return t


class _PlainChecks(_TocTocMintsARoll):
    """The same broken game, its invariants checked state by state without any screen."""
    def invariants(self):
        return invariants(self, screened=False)


def test_screened_exploration_reports_the_first_violations_the_plain_checks_report():
    ruleset = game(CONFIGS[0]).cfg
    screened, plain = explore(_TocTocMintsARoll(ruleset)), explore(_PlainChecks(ruleset))
    assert "roll-conservation" in screened.violations and "score-bounds" in screened.violations
    assert screened.violations == plain.violations
    assert screened.num_states == plain.num_states


@pytest.mark.parametrize("params", CONFIGS)
@pytest.mark.parametrize("l28", ["yes", "no"])
def test_own_successors_and_memoised_returns_agree_with_the_plain_rules(params, l28):
    g = game(params, {"L28": l28})
    terminals = 0
    for s in _reachable(g):
        if g.current_player(s) == TERMINAL:
            terminals += 1
            ret = g.returns(s)
            assert ret == utility(g.num_players, round_winners(g, s)), g.describe_state(s)
            assert ret is g.returns(s)   # interned: the explorer checks each tuple once
            continue
        assert g.successors(s) == Game.successors(g, s)
        own, plain = g.successor_lists(s), Game.successor_lists(g, s)
        assert [None if part is None else list(part) for part in own] == list(plain)
    assert terminals >= 5


def test_the_last_moves_memo_answers_for_the_state_and_configuration_asked():
    """``successors``/``successor_lists`` keep the moves of the last state asked (the fast-paths
    check asks each state three ways): two configurations in one process that differ only in a
    ruling, asked in turn about the same states (equal tuples, not the same objects), each get
    their own rules' moves, and a caller changing the lists it was given changes no later answer."""
    a = game(CONFIGS[0], {"L29": "mandatory"})
    b = game(CONFIGS[0], {"L29": "optional"})
    differ = 0
    for s in _reachable(a, 2000):
        if a.current_player(s) == TERMINAL:
            continue
        for g in (a, b, a):
            want = Game.successors(g, s)   # the reference: legal moves applied one by one
            assert g.successors(s) == want
            moves, probs, nexts = g.successor_lists(tuple(list(s)))
            assert list(zip(moves, probs or [None] * len(moves), nexts)) == want
            nexts.clear()
            if isinstance(moves, list):
                moves.clear()
            assert g.successors(s) == want
            assert [m[2] for m in g.canonical_successors(s)] == [t for _, _, t in want]
        differ += a.successors(s) != b.successors(s)
    assert differ >= 5   # the memo was asked about states whose moves the two rulings tell apart


def test_explore_leaves_the_garbage_collector_as_it_found_it():
    g = game(CONFIGS[0])
    assert gc.get_freeze_count() == 0
    explore(g, max_states=200_000)
    assert gc.get_freeze_count() == 0 and gc.isenabled()

    def boom(*_):
        raise RuntimeError("stop")
    with pytest.raises(RuntimeError):
        explore(g, progress=boom, progress_every=0.0)
    assert gc.get_freeze_count() == 0 and gc.isenabled()


class _MakesCycles(LoiraGame):
    """Every expansion leaves a reference cycle behind (only the cyclic collector frees it)."""
    def successor_lists(self, s):
        loop: list = []
        loop.append(loop)
        return super().successor_lists(s)


@pytest.mark.parametrize("cls, sampled", [(LoiraGame, True), (_MakesCycles, False)])
def test_paused_collector_samples_blocks_until_it_finds_cyclic_garbage(monkeypatch, cls, sampled):
    from ruleproof.solver import explore as explore_module
    monkeypatch.setattr(explore_module, "_GC_FREEZE_EVERY", 1024)   # small blocks, a small game
    monkeypatch.setattr(explore_module, "_GC_SAMPLE", 2)
    found = []
    real_collect = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *a: found.append(real_collect(*a)) or found[-1])
    ex = explore(cls(game(CONFIGS[0]).cfg), check_invariants=False)
    blocks = (ex.num_states + 1023) // 1024
    assert blocks >= 6   # enough blocks to tell the two policies apart
    if sampled:   # one block in two collected, none finding cyclic garbage
        assert len(found) <= blocks // 2 + 1 and not any(found)
    else:         # garbage found by the second sample (node 2,048): every block collected from then on
        assert found[1] > 0 and len(found) >= blocks - 1
    assert gc.get_freeze_count() == 0 and gc.isenabled()


class _GenericLoop(LoiraGame):
    """Loira with the protocol's own ``successor_lists``: the explorer takes its general loop."""
    successor_lists = Game.successor_lists


@pytest.mark.parametrize("params", CONFIGS)
def test_explorer_fast_loop_builds_the_graph_the_general_loop_builds(params):
    cfg = game(params).cfg
    fast, general = explore(LoiraGame(cfg)), explore(_GenericLoop(cfg))
    for name in ("keys", "kind", "offsets", "child", "action", "prob", "prob_code", "prob_table",
                 "parent_edge", "depth", "returns", "violations"):
        assert getattr(fast, name) == getattr(general, name), name
    assert len(fast.prob) == len(fast.action) == fast.num_edges >= fast.num_states - 1


@pytest.mark.parametrize("limit", [None, 500])
def test_parent_edges_and_depths_are_the_bfs_tree(limit):
    ex = explore(game(CONFIGS[1]), max_states=limit, check_invariants=False)
    first: dict[int, int] = {}
    for e, c in enumerate(ex.child):
        first.setdefault(c, e)
    assert ex.parent_edge[0] == -1 and ex.depth[0] == 0
    assert len(ex.parent_edge) == len(ex.depth) == ex.num_states
    for v in range(1, ex.num_states):
        assert ex.parent_edge[v] == first[v]
        assert ex.depth[v] == ex.depth[ex.source_of(first[v])] + 1
    assert max(ex.depth) > 5 and ex.complete == (limit is None)


class _EscortDrift(LoiraGame):
    """A fast copy that drifts: the batch successor lists drop the last move of an escort decision."""
    def _successor_lists(self, s):
        moves, probs, states = super()._successor_lists(s)
        if s[PH] == Phase.ESCORT and probs is None and len(moves) > 1:
            return moves[:-1], probs, states[:-1]
        return moves, probs, states


def test_sampled_fast_paths_check_each_distinct_state_once_and_report_what_checking_all_reports(monkeypatch):
    from ruleproof.model import conformance
    from ruleproof.model.properties import SAMPLES, Context, draw_plays
    from ruleproof.solver import fastpaths
    params = {"players": 2, "deck": ["F1", "F2", "grito", "grito", "toc-toc"], "stalls": [2, 4], "centre_rolls": 1}
    asked = []
    real = conformance.state_problem
    monkeypatch.setattr(fastpaths, "state_problem", lambda g, s: asked.append(s) or real(g, s))

    def check(g, every_state=False):
        if every_state:   # (what the check did before: each sampled state, however often met)
            monkeypatch.setattr(g, "state_is_key", False)
        asked.clear()
        ctx = Context(None, None, g, "x", SAMPLES, plays=draw_plays(g, 300, 5), seed=5)
        return fastpaths._check_samples(ctx, "fast-paths"), [s for s, _ in ctx.states()]

    g = game(params)
    res, states = check(g)
    assert res.status == "holds" and f"at the {len(states):,} states" in res.detail
    assert len(asked) == len(set(states)) < len(states) / 2
    drift = _EscortDrift(g.cfg)
    bad, _ = check(drift)
    assert bad.status == "fails" and bad.counterexample[-1].startswith("here: successors lists")
    again, _ = check(_EscortDrift(g.cfg), every_state=True)
    assert again.status == "fails" and again.counterexample == bad.counterexample
