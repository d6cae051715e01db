"""The near-optimal Loira policy: its stored regret table re-measured on the configurations that fit
in CI time, its printable stop table against its own decisions, and the full-deck answer."""
from __future__ import annotations

import random
from fractions import Fraction

import pytest

from ruleproof.model.loira import SPEC
from ruleproof.model.loira.exact import regret, solve
from ruleproof.solver.montecarlo import simulate_ruleset
from ruleproof.model.loira.nearopt import _binary, choose, near_optimal, sampled_configs, training_configs
from ruleproof.model.loira.nearopt_play import OPPONENTS, solve_near_optimal, stop_table
from ruleproof.model.loira.nearopt_regret import (CONFIGS, _ENDGAME_CARDS, _shape, boundary_regret, build_config,
                                                   measure_one, stored)
from ruleproof.model.loira.policies import POLICIES
from ruleproof.model.loira.state import STOP_ACT, TURN
from ruleproof.model.loira.table import features
from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.registry import load_ruleset
from ruleproof.model.sampling import sample_outcome

#: configurations whose exact regret takes seconds (the 8- and 10-card rungs take minutes)
FAST = ["bench rung, 4 cards", "bench rung, 6 cards", "loira-mini", "tiny example",
        "3 players, L04/L08 example"]


@pytest.mark.parametrize("name", FAST)
def test_stored_regret_is_what_the_policy_gets(name):
    """The regret table the solve answer quotes is the exact regret of the policy as it is now."""
    row = next(r for r in stored()["rows"] if r["configuration"] == name)
    _, ruleset, overrides = next(c for c in CONFIGS if c[0] == name)
    g = build_config(ruleset, overrides)
    got = regret(g, near_optimal, solve(g))
    bound = Fraction(stored()["worst"]["regret"])
    for seat in row["seats"]:
        r = got[seat["seat"]]
        assert str(r["optimal"]) == seat["optimal"] and str(r["regret"]) == seat["regret"]
        assert 0 <= r["regret"] <= bound


def _config(name):
    _, ruleset, overrides = next(c for c in CONFIGS if c[0] == name)
    return build_config(ruleset, overrides)


# (endgames low enough that the part above them leaves regret: 1/45 and 1/45 on loira-mini from 0
# cards left, 37/1080 and 0 on the tiny example from 1; since stop 48's escorts by look-ahead the
# 6-card rung loses nothing even from 0)
@pytest.mark.parametrize("name, cards", [("loira-mini", 0), ("tiny example", 1),
                                         ("3 players, loira-mini deck", 1)])   # 0, 1/270, 0
def test_top_layer_regret_is_exact_regret(name, cards):
    """The fast measurement (policy and best response over the layers above the endgame, exact values
    at its boundary) equals ``exact.regret`` exactly, with an endgame low enough to leave regret;
    three players too (max^n values at the boundary, the others' choices by its tie rule)."""
    g = _config(name)
    seats = range(g.num_players)
    opt = solve(g)
    want = regret(g, lambda game: near_optimal(game, cards), opt)
    got = boundary_regret(g, cards, opt)
    assert got["overruns"] == 0 and got["top_states"] < 2 * opt.states
    assert any(want[seat]["regret"] > 0 for seat in seats)
    for seat in seats:
        assert got[seat] == want[seat]
    # the same with the C engine's values at the boundary (doubles)
    fast = boundary_regret(g, cards)
    for seat in seats:
        assert fast[seat]["optimal"] == pytest.approx(float(want[seat]["optimal"]), abs=1e-12)
        assert fast[seat]["regret"] == pytest.approx(float(want[seat]["regret"]), abs=1e-12)


def test_packed_memo_is_a_dict_of_states():
    """The top layers' memo keys each state by its bytes: states read back as a dict of tuples would,
    distinct states stay distinct, and a field beyond a signed byte is refused, never folded."""
    from ruleproof.model.loira.exact import PackedMemo
    memo = PackedMemo()
    a, b = (0, -1, 5, 127), (0, -1, 5, -128)
    memo[a] = ("x",)
    assert a in memo and b not in memo and memo[a] == ("x",) and len(memo) == 1
    memo[b] = ("y",)
    assert memo[a] == ("x",) and memo[b] == ("y",) and len(memo) == 2
    with pytest.raises(OverflowError):
        memo[(0, 128)] = ("z",)


def test_three_player_ten_card_row_is_the_stored_row():
    """The 3-player 10-card deck with the endgame from 6 cards left, as on the real deck (4.4 million
    C turn states, ~10 s): beyond the exact Python solver, measured over the top layers, equal to the
    stored row."""
    name = "3 players, 10 cards, endgame from 6 cards as on the real deck"
    row = next(r for r in stored()["rows"] if r["configuration"] == name)
    got = measure_one(_config(name), _ENDGAME_CARDS[name])
    assert got["method"] == row["method"] == "top layers + C values" and got["endgame_cards"] == 6
    assert got["c_states"] == row["c_states"] == 4_415_924 and got["states"] == row["states"]
    for mine, theirs in zip(got["seats"], row["seats"]):
        assert float(mine["optimal"]) == pytest.approx(float(theirs["optimal"]), abs=1e-12)
        assert float(mine["regret"]) == pytest.approx(float(theirs["regret"]), abs=1e-12)


def test_twelve_card_rung_regret_is_the_stored_row():
    """The 12-card rung (2.25 million C turn states, ~5 s): re-measured, within the stored bound."""
    row = next(r for r in stored()["rows"] if r["configuration"] == "bench rung, 12 cards")
    got = measure_one(_config("bench rung, 12 cards"))
    assert got["method"] == row["method"] == "top layers + C values"
    assert got["c_states"] == row["c_states"] == 2_251_948     # model/loira/README.md bench ladder
    for mine, theirs in zip(got["seats"], row["seats"]):
        assert float(mine["optimal"]) == pytest.approx(float(theirs["optimal"]), abs=1e-12)
        assert float(mine["regret"]) == pytest.approx(float(theirs["regret"]), abs=1e-12)
        assert float(mine["regret"]) <= stored()["worst"]["regret_float"] + 1e-4


@pytest.mark.parametrize("name", [
    "bench rung, 12 cards, endgame from 8 cards as on the real deck",    # ~7 s: the tables decide 4 draws
    pytest.param("bench rung, 12 cards, endgame from 6 cards", marks=pytest.mark.slow)])   # ~45 s: 6 draws
def test_twelve_card_rung_with_a_lower_endgame_is_the_stored_row(name):
    """The same rung with the endgame held at 8 and at 6 cards left (the tables at work above it):
    re-measured, equal to the stored rows; held lower, the policy loses more than with its own."""
    rows = {r["configuration"]: r for r in stored()["rows"]}
    row = rows[name]
    got = measure_one(_config(name), _ENDGAME_CARDS[name])
    assert got["endgame_cards"] == row["endgame_cards"] == _ENDGAME_CARDS[name]
    assert got["states"] == row["states"] and got["c_states"] == row["c_states"] == 2_251_948
    for mine, theirs in zip(got["seats"], row["seats"]):
        assert float(mine["regret"]) == pytest.approx(float(theirs["regret"]), abs=1e-12)
    own = rows["bench rung, 12 cards"]
    assert max(float(s["regret"]) for s in row["seats"]) >= max(float(s["regret"]) for s in own["seats"])


def test_stored_bound_meets_the_target():
    """Issue 24's target, at most 0.005 of U lost on every measured configuration and seat (issue 12's
    was 0.01) -- also where a small deck's endgame is held at the real deck's cards left or lower, so
    the part above it decides 4 to 8 draws. Met since stop 48's escorts by look-ahead (two players;
    the 15-card row from 8, which the real deck quotes, lost 0.0057 with the escort tables and
    0.0106 with the tables before stop 47); three players on every deck of the ladder, 7 to 12 cards
    with the real deck's endgame from 6 (stop 49: 10-12 over the C engine's values)."""
    rows = stored()["rows"]
    assert {r["cards"] for r in rows if r["players"] == 2} >= {4, 6, 8, 10, 12, 13, 14, 15, 16}
    assert all(s["regret_float"] <= 0.005 for r in rows for s in r["seats"])
    assert all(float(s["regret"]) <= 0.005 for r in rows for s in r["seats"])
    held = {(r["cards"], r["endgame_cards"]) for r in rows if r["configuration"] in _ENDGAME_CARDS and r["players"] == 2}
    # (stop 52: the 15- and 16-card rungs from 6, the tables deciding 9 and 10 draws, by the C copy)
    assert held == {(n, k) for n in (12, 13, 14, 15, 16) for k in (6, 8)}
    assert {r["cards"] for r in rows if r["configuration"] in _ENDGAME_CARDS and r["players"] == 3} == {7, 8, 9, 10, 11, 12}
    # the worst row (stop 52): the 16-card rung with the endgame held at 6 cards left, seat 1 (0.002199:
    # the part above the endgame decides 10 draws); before it, with the real deck's endgame from 8,
    # 0.001581 (seat 1), and the 3-player 12-card deck 0.001571 (seat 0)
    assert stored()["worst"]["configuration"] == "bench rung, 16 cards, endgame from 6 cards"
    assert stored()["worst"]["seat"] == 1


def test_regret_rows_carry_known_optima():
    # loira-mini 46/405 and the verify configuration 101/560 (model/loira/README.md, generic solver agrees)
    rows = {r["configuration"]: r for r in stored()["rows"]}
    assert rows["loira-mini"]["seats"][0]["optimal"] == "46/405"
    assert rows["verify configuration"]["seats"][0]["optimal"] == "101/560"
    worst = stored()["worst"]
    assert worst["regret_float"] == max(s["regret_float"] for r in rows.values() for s in r["seats"])


def test_training_and_measured_configurations_are_disjoint():
    from ruleproof.model.loira.nearopt_ladder import measured_shapes
    from ruleproof.model.loira.nearopt_regret import trained_shapes
    trained = {_shape(build_config(None, p)) for p in training_configs()}
    assert not trained & {_shape(build_config(r, o)) for _, r, o in CONFIGS}
    # ... and the 2-player rounds sampled for the 2-player tables, against every regret row and ladder row
    sampled = {_shape(build_config(None, p)) for p in sampled_configs()}
    assert len(sampled) == len(sampled_configs()) and trained | sampled == trained_shapes()
    assert not trained_shapes() & measured_shapes()
    assert {r["configuration"] for r in stored()["rows"]} <= {name for name, _, _ in CONFIGS}


def test_sampled_decision_gaps_are_the_exact_solvers():
    """The 2-player tables' training label, the mover's value of yes minus no from the C engine's
    optimum (``decision_gap``), is the exact Python solver's on every decision seeded games meet."""
    from ruleproof.model.loira.endgame import Endgame
    from ruleproof.model.loira.nearopt import decision_gap
    g = _config("verify configuration")
    opt = solve(g)
    end = Endgame(g, 0)
    end.budget = 1 << 60
    rng = random.Random(4)
    checked = 0
    for _ in range(40):
        s = g.initial_state()
        while (seat := g.current_player(s)) != TERMINAL:
            if seat == CHANCE:
                s = g.apply(s, sample_outcome(g.chance_outcomes(s), rng))
                continue
            kind = _binary(g, s)
            if kind:
                _, yes, no = kind
                want = opt.value(g.apply(s, yes))[seat] - opt.value(g.apply(s, no))[seat]
                assert decision_gap(end, g, s, yes, no) == pytest.approx(float(want), abs=1e-12)
                checked += 1
            s = g.apply(s, rng.choice(list(g.legal_actions(s))))
    assert checked > 50


def test_sampled_learning_is_seeded_and_weighs_each_decision_once():
    """Two runs with one seed give one table; every sampled decision adds weight 1 to each of its
    keys (``TWO_DEPTHS``: one per length), and a cell's advantage is the sum of its decisions' gaps
    (each within [-2, 2])."""
    from ruleproof.model.loira.nearopt import TWO_DEPTHS, learn_sampled
    g = _config("bench rung, 8 cards")
    first, second, other = {}, {}, {}
    added = learn_sampled(g, 60, 7, first)
    assert learn_sampled(g, 60, 7, second) == added and first == second
    learn_sampled(g, 60, 8, other)
    assert other != first and added > 60 and set(first) == {"stop", "escort"}
    per_kind = []
    for name, depths in TWO_DEPTHS.items():
        cells = first[name]
        assert {len(k.split(",")) for k in cells} == set(depths)
        weights = {d: sum(c[1] for k, c in cells.items() if len(k.split(",")) == d) for d in depths}
        assert len(set(weights.values())) == 1
        per_kind.append(weights[depths[0]])
        assert all(abs(c[0]) <= 2 * c[1] for c in cells.values())
    assert sum(per_kind) == added


def test_sampled_training_is_the_same_on_two_processes():
    """The 2-player tables do not depend on how many processes sample their rounds."""
    from ruleproof.model.loira.nearopt import train_sampled
    rounds = [{"players": 2, "deck": ["F1", "F2", "M1", "grito", "toc-toc", "fios"], "stalls": [2, 4],
               "centre_rolls": 1},
              {"players": 2, "deck": ["F2", "M2", "P1", "grito", "chute", "descarga"], "stalls": [3, 4],
               "centre_rolls": 2}]
    one = train_sampled(rounds, jobs=1, progress=lambda _: None, games=25)
    assert one and one == train_sampled(rounds, jobs=2, progress=lambda _: None, games=25)


@pytest.mark.parametrize("players", [2, 3])
def test_printed_stop_table_is_the_policys_decision(players):
    """Sampled go/stop decisions of full-deck games: the printed cell says what the policy does (two
    players read tables of their own)."""
    g = build_config(None, {"players": players})
    grids = stop_table(players)["grids"]
    rng = random.Random(3)
    checked = 0
    for _ in range(30):
        s = g.initial_state()
        while g.current_player(s) != TERMINAL:
            seat = g.current_player(s)
            if seat == CHANCE:
                s = g.apply(s, sample_outcome(g.chance_outcomes(s), rng))
                continue
            a = choose(g, s)
            kind = _binary(g, s)
            if kind and kind[0] == "stop" and a != 2:       # 2: the Interruptor, decided first
                margin, risk, own, gritos = features(g, s)
                row = next(r for r in grids[gritos]["rows"] if r["lead"] == margin)
                assert (row["cells"][risk][own] == "S") == (a == STOP_ACT), (s[TURN], features(g, s))
                checked += 1
            s = g.apply(s, a)
    assert checked > 100


def test_full_deck_answer_is_marked_near_optimal():
    """A fixed number of seeded games (never a time budget), each figure a sampled estimate within
    [-1, 1]; the regret table is quoted whole, and no row applies to the real deck."""
    res = solve_near_optimal(load_ruleset("loira"), seed=5, games=12, opponent_games=4)
    assert res["engine"] == "near-optimal" and res["exact"] is False
    assert res["regret_table"] == stored()["rows"] and not any(r["applies"] for r in res["regret"])
    assert "Gritos resolved: 2" in res["printable"]
    sp = res["self_play"]
    assert sp["games"] == 12 and sp["seed"] == 5
    assert all(-1 <= e.low <= e.value <= e.high <= 1 and e.games == 12 for e in sp["utility"])
    # outright wins are sampled proportions with Wilson's interval, not bare ratios
    assert all(w.how == "Wilson" and w.games == 12 and 0 <= w.low <= w.value <= w.high <= 1 and w.low < w.high
               for w in sp["wins_outright"])
    for key in ("self_play_round", "self_play_match"):
        rows = res[key]
        assert {(r["opponent"], r["seat"]) for r in rows} == {(o, s) for o in OPPONENTS for s in (0, 1)}
        for r in rows:
            lo, hi = r["utility"]["ci95"]
            assert r["games"] == 4 and -1 <= lo <= r["utility"]["mean"] <= hi <= 1
            # never a point interval from 4 games, even when all 4 went one way
            assert lo < hi and r["wins_outright"]["how"] == "Wilson" and r["wins_outright"]["n"] == 4
    assert res["target_wins"] == 2


def test_simulate_accepts_the_policy_name():
    assert "near-optimal" in POLICIES
    rs = load_ruleset("loira-mini")
    out = simulate_ruleset(rs, 40, 2, "near-optimal:stop-at-5", None)
    assert out["seat_policies"] == ["near-optimal", "stop-at-5"] and out["games"] == 40


def test_three_players_run():
    rs = load_ruleset("loira").with_overrides({"players": 3}, spec=SPEC.schema)
    out = simulate_ruleset(rs, 10, 4, "near-optimal", None)
    assert out["games"] == 10


def test_policy_files_are_the_policys_tables(tmp_path):
    """``solve loira`` writes the stop and escort tables (CSV), their sidecar, a summary and a
    picture; every CSV row says what the policy does (the printed grid, the learned cells)."""
    import csv
    import json

    from ruleproof.model.loira.nearopt import tables
    from ruleproof.model.loira.nearopt_files import ESCORT_COLUMNS, STOP_COLUMNS, write_policy_files
    from ruleproof.model.loira.nearopt_play import OWN_BANDS, RISK_BANDS
    res = solve_near_optimal(load_ruleset("loira"), seed=5, games=2, opponent_games=1)
    files = write_policy_files(res, tmp_path, 2)
    assert sorted(p.rsplit("/", 1)[1] for p in files) == sorted(
        ["stop_table.csv", "escort_table.csv", "policy_tables.meta.json", "policy_summary.txt", "policy.png"])
    grids = stop_table()["grids"]
    with (tmp_path / "stop_table.csv").open() as fh:
        stop = list(csv.DictReader(fh))
    assert len(stop) == 3 * 13 * len(RISK_BANDS) * len(OWN_BANDS)
    learned = tables(2)["stop"]
    for r in stop:
        row = next(x for x in grids[int(r["gritos_resolved"])]["rows"] if x["lead"] == int(r["lead"]))
        letter = row["cells"][RISK_BANDS.index(r["loira_risk"])][OWN_BANDS.index(r["own_points"])]
        assert (letter == "S") == (r["decision"] == "stop")
        if r["source"] != "unseen":
            assert r["decision"] == ("stop" if float(r["advantage"]) > 0 else "go")
    # (the 2-player tables, learned from larger rounds, have met every (lead, risk) cell: none unseen)
    assert {"full", "coarse"} <= {r["source"] for r in stop} <= {"full", "coarse", "unseen"}
    with (tmp_path / "escort_table.csv").open() as fh:
        escort = list(csv.DictReader(fh))
    assert len(escort) == len(tables(2)["escort"])
    assert all(r["decision"] == ("escort" if float(r["advantage"]) > 0 else "no") for r in escort)
    meta = json.loads((tmp_path / "policy_tables.meta.json").read_text())
    assert [c["name"] for c in meta["tables"]["stop_table.csv"]] == list(stop[0])
    assert [c["name"] for c in meta["tables"]["escort_table.csv"]] == list(escort[0])
    assert len(STOP_COLUMNS) == len(stop[0]) and len(ESCORT_COLUMNS) == len(escort[0]) and learned
    summary = (tmp_path / "policy_summary.txt").read_text()
    assert "not an exact solution" in summary and "Gritos resolved: 2" in summary
    assert "closest measured: bench rung, 16 cards, endgame from 8" in summary and "29 cards, 13 more" in summary
    assert (tmp_path / "policy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("players, closest, draws", [
    (2, "bench rung, 16 cards, endgame from 8 cards as on the real deck", "the policy above the endgame deciding 8 draw(s)"),
    (3, "3 players, 12 cards, endgame from 6 cards as on the real deck", "the policy above the endgame deciding 6 draw(s)")])
def test_real_deck_quotes_the_closest_setting(players, closest, draws):
    """The real deck (2 and 3 players) names the measured row whose endgame starts where its own
    does, the largest such deck, and how far the real deck lies beyond it."""
    from ruleproof.model.loira.nearopt_play import applicable_regret
    g = build_config(None, {"players": players})
    quoted = applicable_regret(g)
    row = next(r for r in stored()["rows"] if r["configuration"] == closest)
    cards = sum(g.cfg.deck)
    for r in quoted:
        assert not r.applies and r.measured_on.startswith(closest) and draws in r.measured_on
        assert r.value == max(s["regret_float"] for s in row["seats"])
        assert f"this deck: {cards} cards, {cards - row['cards']} more" in r.measured_on


@pytest.mark.parametrize("name", sorted(n for n in _ENDGAME_CARDS if "verify deck" not in n))
def test_regret_row_and_ladder_row_agree_on_the_optimum(name):
    """The rounds with the endgame held at a set number of cards are measured twice: the shipped
    policy's regret (nearopt_regret.json: the exact Python solver's Fractions for 3 players up to 9
    cards, the top layers over the C engine for 2 and for 3 beyond) and the look-ahead candidate's ladder (nearopt_ladder.json, the
    C engine's floats). Their optima are two measurements of one round (the 3-player verify deck is
    not a ladder deck)."""
    from ruleproof.model.loira import nearopt_ladder
    row = next((r for r in stored()["rows"] if r["configuration"] == name), None)
    assert row is not None, f"{name}: not measured"
    ladder = next((r for r in nearopt_ladder.stored()["rows"] if r["players"] == row["players"]
                   and r["cards"] == row["cards"] and r["endgame_cards"] == row["endgame_cards"]), None)
    if ladder is None and row["cards"] == 16:   # the ladder stops at 15 cards: the rung's own row
        own = next(r for r in stored()["rows"] if r["configuration"] == "bench rung, 16 cards")
        assert _config(name).cfg == _config("bench rung, 16 cards").cfg
        for mine, theirs in zip(row["seats"], own["seats"]):
            assert float(mine["optimal"]) == float(theirs["optimal"]) == pytest.approx(0.121340 * (-1) ** mine["seat"], abs=1e-6)
        return
    assert ladder is not None, f"{name}: no ladder row"
    assert _config(name).cfg == build_config(None, nearopt_ladder.overrides(row["players"], row["cards"])).cfg
    for exact, c in zip(row["seats"], ladder["seats"]):
        assert float(Fraction(exact["optimal"])) == pytest.approx(c["optimal"], abs=1e-12)


def test_solve_writes_the_policy_files(tmp_path, monkeypatch):
    """The command itself: `solve loira --games 2 --out DIR` lists the five files it wrote."""
    from typer.testing import CliRunner

    from ruleproof.cli import app
    from ruleproof.model.loira import nearopt_play
    monkeypatch.setattr(nearopt_play, "OPPONENT_GAMES", 1)
    out = tmp_path / "real"
    got = CliRunner().invoke(app, ["solve", "loira", "--games", "2", "--out", str(out)])
    assert got.exit_code == 0, got.output
    printed = "".join(got.output.split())      # the console wraps long lines
    assert "near-optimal" in printed and "closestmeasured" in printed
    for name in ("stop_table.csv", "escort_table.csv", "policy_tables.meta.json", "policy_summary.txt",
                 "policy.png"):
        assert (out / name).is_file() and f"wrote{out / name}" in printed


def test_self_play_is_the_same_on_one_process_or_two(monkeypatch):
    """Each self-play game draws from its own seed (``game_seed``), so the games are shared between
    two processes (``beside.BothEnds``) and the answer is the one-process answer, game for game:
    game ``i`` is a playout from ``game_seed(seed, i)`` alone. The pairings against the simple
    rules (each its own stream) likewise."""
    from ruleproof.model.loira.nearopt_play import compare, game_seed, self_play
    from ruleproof.solver.montecarlo import playout
    from ruleproof.solver import beside
    import time
    g = _config("tiny example")
    shared, results, back = [], beside.BothEnds.results, beside.BothEnds.back

    def counted(ends):
        shared.append(len(got := results(ends)))
        return got

    def after_the_worker_began(ends):
        # this process waits for the worker's first game (on a loaded machine a forked worker can
        # start after this process has played all nine): the two-process path is what is tested
        until = time.monotonic() + 60
        while ends.job is not None and ends.ends[0] == 0 and time.monotonic() < until:
            time.sleep(0.01)
        yield from back(ends)
    monkeypatch.setattr(beside.BothEnds, "results", counted)
    monkeypatch.setattr(beside.BothEnds, "back", after_the_worker_began)
    runs = {}
    for processes in ("1", "2"):
        monkeypatch.setenv("RULEPROOF_PROCESSES", processes)
        got = self_play(g, 9, 4)
        runs[processes] = ({k: [e.as_dict() for e in v] if isinstance(v, list) else getattr(v, "as_dict", lambda: v)()
                            for k, v in got.items()}, compare(g, OPPONENTS[:2], 3, 4))
    assert runs["1"] == runs["2"] and shared[-1] > 0       # the worker played some of the games
    moves = [playout(g, {t: near_optimal(g) for t in range(2)}, random.Random(game_seed(4, i))).moves
             for i in range(9)]
    assert runs["1"][0]["moves"]["mean"] == pytest.approx(sum(moves) / 9)
