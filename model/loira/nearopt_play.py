"""The near-optimal answer for Loira configurations no exact engine finishes (the real deck).

``solve_near_optimal`` returns, clearly marked *near-optimal, not exact*:

* the policy's stop table in the player's terms (per Gritos resolved: rows = your lead over the best
  opponent, columns = the chance that this draw makes you open a stall and the Loira takes
  everything; a cell lists the decision for each band of your own points) and its escort summary;
* its value: seeded self-play of the policy in every seat, a fixed number of games (the same games
  and figures on any machine), each seat's mean with its 95% interval, on the ruleset's own
  objective (a round or a match);
* the regret figure that applies to this configuration (``applicable_regret``): the one measured
  on this very configuration in ``nearopt_regret.json`` (never recomputed here), or "not measured
  for this configuration" with the closest measured one named as context, not as a bound;
* with ``detail``: seeded self-play against the simple rules (stop-at-k, never-before-grito,
  lookahead) on the round and on its match (first to ``target_wins``, rolls carried), each seat in
  turn, a fixed number of games each, with 95% intervals.
"""
from __future__ import annotations

import math
import random
import time
from typing import Any, Callable

from ruleproof.model.estimate import Regret, sampled_mean, sampled_proportion
from ruleproof.solver.montecarlo import playout

from .nearopt import DEPTHS, ESCORT_LOOKAHEAD_PLAYERS, TWO_DEPTHS, add_to_cell, near_optimal, tables, two_tables
from .nearopt_regret import stored
from .policies import POLICIES

#: the simple rules the policy is compared with (``detail``: solve's table)
OPPONENTS = ("stop-at-5", "stop-at-7", "stop-at-10", "never-before-grito", "lookahead")
#: self-play games behind the values when the caller names no count: a fixed number, so a seeded
#: run gives the same games and figures under any machine load. Sized by CPU time on the real
#: 2-player deck (model/loira/README.md: a round of self-play costs about 0.2 s on average, most of it in
#: the exact endgame's sub-solves; a match far less)
SELF_PLAY_GAMES = 150
#: ... where no exact endgame plays (a match, no C engine) a game costs a few milliseconds
CHEAP_SELF_PLAY_GAMES = 1_000
#: games per opponent and seat in the comparison with the simple rules (solve's table only)
OPPONENT_GAMES = 30
#: the seed when the caller names none
DEFAULT_SEED = 1
OWN_BANDS = ("0-2", "3-5", "6-8", "9+")
RISK_BANDS = ("none", "<=3%", "3-7%", "7-15%", ">15%")


def stop_cell(lead: int, risk: int, own: int, gritos: int, players: int = 2) -> tuple[str, str, list[float] | None]:
    """(decision, source, learned cell) of the stop table with ``players`` seats on one feature key,
    as ``nearopt.choose`` reads it: the full key, else the coarse (lead, risk) one, else go (``unseen``)."""
    cells = tables(players).get("stop", {})
    for source, key in (("full", f"{lead},{risk},{own},{gritos}"), ("coarse", f"{lead},{risk}")):
        if key in cells:
            return ("stop" if cells[key][0] > 0 else "go"), source, cells[key]
    return "go", "unseen", None


def stop_table(players: int = 2) -> dict[str, Any]:
    """The learned go/stop decision with ``players`` seats as printable grids (S = stop, . = go),
    from the stored tables."""
    def decide(margin: int, risk: int, own: int, gritos: int) -> str:
        return "S" if stop_cell(margin, risk, own, gritos, players)[0] == "stop" else "."
    grids = []
    for gritos in range(3):
        rows = [{"lead": m, "cells": ["".join(decide(m, r, o, gritos) for o in range(4))
                                      for r in range(len(RISK_BANDS))]}
                for m in range(-6, 7)]
        grids.append({"gritos_resolved": gritos, "rows": rows})
    return {"columns": list(RISK_BANDS), "cell_order": list(OWN_BANDS), "grids": grids,
            "meaning": "lead = own points minus the best opponent's (clipped to -6..6); column = "
                       "P(this draw opens a stall for you and the Loira takes everything); each cell "
                       "has one letter per band of your own points (0-2, 3-5, 6-8, 9+): S stop, . go. "
                       "The table plays while more than 10 cards are left (8 on decks over 16 "
                       "cards) and an opponent still draws; below that, and once every opponent has "
                       "stopped, the policy plays the exact optimum (2 players: the C engine). The "
                       "Interruptor is used only when it wins the round at once."}


def escort_by_lead(players: int = 2) -> dict[tuple[int, int, int], list[float]]:
    """The escort cells summed to (lead, slots, escape pair): the coarse cells of the exact solves'
    tables, or the 2-player tables' (lead, slots, escape pair, rolls) cells summed over the rolls."""
    out: dict[tuple[int, int, int], list[float]] = {}
    coarse = (TWO_DEPTHS if two_tables(players) else DEPTHS)["escort"][-1]
    for key, (adv, weight) in tables(players).get("escort", {}).items():
        f = tuple(int(x) for x in key.split(","))
        if len(f) == coarse:
            add_to_cell(out, f[:3], adv, weight)
    return out


def escort_summary(players: int = 2) -> dict[str, Any]:
    """Escort (spend a roll to open a stall too) with ``players`` seats by lead and P(a pick is the
    Loira), summed over the finer features the policy also uses (own points, Gritos, mean stall;
    two players also the rolls held and the cards left)."""
    cells = escort_by_lead(players)
    rows = []
    for m in range(-4, 5):
        row = []
        for slots in range(2, 7):
            marks = ""
            for esc in (0, 1):
                cell = cells.get((m, slots, esc))
                marks += "?" if cell is None else ("E" if cell[0] > 0 else ".")
            row.append(marks)
        rows.append({"lead": m, "cells": row})
    finer = "rolls held, cards left, own points, Gritos, mean stall" if two_tables(players) else \
        "own points, Gritos, mean stall"
    used = ("in a round a look-ahead decides an escort above the exact endgame, these cells only where "
            "its sub-solves outgrow their budget; in a match these cells" if players in ESCORT_LOOKAHEAD_PLAYERS
            else "these cells decide an escort above the exact endgame")
    return {"columns": [f"1/{n}" + ("+" if n == 6 else "") for n in range(2, 7)], "rows": rows,
            "used": used,
            "meaning": "two letters per cell: without / with an escape pair; E escort, . do not (the "
                       f"cells summed over the finer features the policy reads first: {finer}), "
                       "? never seen in training (the greedy escort rule decides)"}


def render(table: dict[str, Any], escort: dict[str, Any]) -> str:
    lines = []
    for grid in table["grids"]:
        lines.append(f"Gritos resolved: {grid['gritos_resolved']}   (cells: own points "
                     f"{' / '.join(table['cell_order'])})")
        lines.append("lead | " + " | ".join(f"{c:>5}" for c in table["columns"]))
        for row in grid["rows"]:
            lines.append(f"{row['lead']:>+4} | " + " | ".join(f"{c:>5}" for c in row["cells"]))
    lines.append(f"escort (without / with an escape pair), by P(pick is the Loira) -- {escort['used']}:")
    lines.append("lead | " + " | ".join(f"{c:>4}" for c in escort["columns"]))
    for row in escort["rows"]:
        lines.append(f"{row['lead']:>+4} | " + " | ".join(f"{c:>4}" for c in row["cells"]))
    return "\n".join(lines)


class Stopped(Exception):
    """The caller's time limit ended the self-play before its fixed number of games."""


def _check(limits, done: int, games: int) -> None:
    if limits is not None and limits.expired():
        raise Stopped(f"time limit reached after {done} of {games} self-play games")


def game_seed(seed: int, i: int) -> int:
    """The seed of self-play game ``i``: each game draws from its own stream, so a game's play
    depends on ``seed`` and ``i`` alone and the games can be shared between processes."""
    return seed * 1_000_003 + i


def self_play(game, games: int, seed: int, limits=None, progress=None) -> dict:
    """The policy in every seat for ``games`` seeded games: each seat's utility, the moves per
    game and the first-seat advantage (seat 0's utility minus the others' mean, game by game),
    each a sampled estimate with its 95% interval clipped to its range, and each seat's outright
    wins (a sampled proportion, Wilson's interval). Game ``i`` plays from ``game_seed(seed, i)``
    (its policies start afresh: ``new_game``); without a time limit a forked worker plays games
    from the front while this process plays them from the back (``beside.BothEnds``), and the
    figures are summed in the games' order: the same answer on one process or two."""
    from ruleproof.solver import beside
    n = game.num_players
    policies = {t: near_optimal(game) for t in range(n)}

    def one(i: int) -> tuple[tuple[float, ...], int]:
        play = playout(game, policies, random.Random(game_seed(seed, i)))
        return tuple(float(r) for r in play.returns), play.moves
    split = (limits is None or limits.deadline is None) and games > 1 and beside.processes() > 1
    played: dict[int, tuple] = {}
    with beside.BothEnds(one, games, enabled=split) as ends:
        shared = ends.job is not None
        for i in ends.back() if shared else range(games):
            _check(limits, len(played), games)
            played[i] = one(i)
            if progress is not None:
                progress("self-play", ends.taken() if shared else i + 1, games)
        played.update(ends.results())
    if progress is not None and shared:
        progress("self-play", games, games)
    sums, sqs, wins = [0.0] * n, [0.0] * n, [0] * n
    moves, adv = [0.0, 0.0], [0.0, 0.0]
    for i in range(games):
        if i not in played:     # the worker failed: its games are played here
            played[i] = one(i)
        returns, length = played[i]
        top = max(returns)
        leaders = [t for t in range(n) if returns[t] == top]
        for t in range(n):
            sums[t] += returns[t]
            sqs[t] += returns[t] * returns[t]
            wins[t] += int(top > 0 and leaders == [t])
        a = returns[0] - sum(returns[1:]) / (n - 1)
        adv[0] += a
        adv[1] += a * a
        moves[0] += length
        moves[1] += length * length
    lo, hi = float(game.min_utility), float(game.max_utility)
    kw = {"seed": seed, "policy": "near-optimal"}
    return {"games": games, "seed": seed,
            "utility": [sampled_mean(sums[t], sqs[t], games, bounds=(lo, hi), **kw) for t in range(n)],
            "moves": sampled_mean(moves[0], moves[1], games, bounds=(0.0, math.inf), **kw),
            "first_seat_advantage": sampled_mean(adv[0], adv[1], games, bounds=(lo - hi, hi - lo), **kw),
            "wins_outright": [sampled_proportion(w, games, **kw) for w in wins],
            # game by game, for a comparison over the same games (common random numbers): two
            # rulesets' game i share its seed, so their difference is paired
            "per_game": {"pairing": pairing(seed), "utilities": [list(played[i][0]) for i in range(games)],
                         "moves": [played[i][1] for i in range(games)]}}


def pairing(seed: int) -> str:
    """What makes two self-plays' games pairs: game i of each drawn from the same seed."""
    return f"near-optimal self-play, game i drawn from nearopt_play.game_seed({seed}, i)"


def compare(game, opponents, games: int, seed: int, limits=None, progress=None) -> list[dict]:
    """The policy in each seat in turn against ``opponents`` elsewhere, ``games`` seeded games
    each: the policy seat's utility (2 players: P(win) - P(lose)) with a 95% interval and its
    outright wins (a sampled proportion, Wilson's interval)."""
    from ruleproof.solver import beside
    n = game.num_players
    jobs = [(name, seat) for name in opponents for seat in range(n)]
    out = []
    bounds = (float(game.min_utility), float(game.max_utility))

    def one(i: int) -> tuple[list[float], int]:
        name, seat = jobs[i]
        policies = {t: (near_optimal(game) if t == seat else POLICIES[name](game)) for t in range(n)}
        rng = random.Random(seed * 1_000 + i)
        u = [0.0, 0.0]
        won = 0
        for k in range(games):
            _check(limits, k, games)
            returns = playout(game, policies, rng).returns
            r = float(returns[seat])
            top = max(returns)
            won += int(top > 0 and [t for t in range(n) if returns[t] == top] == [seat])
            u[0] += r
            u[1] += r * r
        return u, won
    # each pairing is its own seeded stream: on two processes (no time limit) the same answers
    workers = beside.processes() if limits is None or limits.deadline is None else 1
    for i, (u, won) in enumerate(beside.ordered_map(one, range(len(jobs)), workers)):
        name, seat = jobs[i]
        e = sampled_mean(u[0], u[1], games, seed=seed * 1_000 + i, policy=f"near-optimal vs {name}",
                         bounds=bounds)
        outright = sampled_proportion(won, games, seed=seed * 1_000 + i, policy=f"near-optimal vs {name}")
        out.append({"opponent": name, "seat": seat, "games": games, "utility": e.as_dict(),
                    "wins_outright": outright.as_dict()})
        if progress is not None:
            progress("self-play against the simple rules", i + 1, len(jobs))
    return out


def _regret_how(row: dict) -> str:
    if row.get("method") == "exact":
        return ("exact fractions: the optimal value minus the value when this seat follows the policy "
                "and the others best-respond")
    if row.get("method", "").startswith("C evaluation"):
        return ("the policy played in C against a best response (doubles; the C copy of its decisions "
                "is tied to the Python policy by test): the C engine's optimal value minus the policy's")
    return ("the layers above the policy's exact endgame evaluated with the C engine's values "
            "(doubles): the optimal value minus the policy's against a best response")


def applicable_regret(game) -> list[Regret]:
    """Per seat, the regret figure that applies to this configuration: the row of
    ``nearopt_regret.json`` measured on this very configuration (players, deck, stalls, rolls,
    objective, rulings and the policy's own endgame), else "not measured", naming the closest
    measured configuration as context (the same players; among them the rows whose endgame starts at
    the cards left this configuration's starts at -- on decks over 16 cards the real deck's 8 for two
    players, 6 for three -- and of those the largest deck) and how far this one lies beyond it."""
    from .endgame import Endgame
    from .nearopt_regret import CONFIGS, _ENDGAME_CARDS, build_config
    rows = {r["configuration"]: r for r in stored().get("rows", [])}
    n = game.num_players
    for name, ruleset, overrides in CONFIGS:
        row = rows.get(name)
        if row is None or name in _ENDGAME_CARDS or row["players"] != n or row["cards"] != sum(game.cfg.deck):
            continue
        if build_config(ruleset, overrides).cfg == game.cfg:
            return [Regret(True, next(x["regret_float"] for x in row["seats"] if x["seat"] == seat), name,
                           _regret_how(row)) for seat in range(n)]
    same = [r for r in rows.values() if r["players"] == n]
    if game.cfg.objective != "round" or not same:
        return [Regret(False, how="the regret table measures single rounds" if same else "")] * n
    k = Endgame(game).cards
    same = [r for r in same if r.get("endgame_cards") == k] or same
    closest = max(same, key=lambda r: (r["cards"], max(x["regret_float"] for x in r["seats"])))
    worst = max(x["regret_float"] for x in closest["seats"])
    return [Regret(False, worst, f"{closest['configuration']} (worst seat; {beyond(closest, game)})",
                   _regret_how(closest))] * n


def beyond(row: dict, game) -> str:
    """How far ``game`` lies beyond the measured ``row``: cards, and the draws its tables decide
    (those above the endgame's cards left) there and here."""
    from .endgame import Endgame
    cards, k = sum(game.cfg.deck), Endgame(game).cards
    there = row["cards"] - row.get("endgame_cards", row["cards"])
    here = cards - k if k >= 0 else cards
    return (f"{row['cards']} cards, the policy above the endgame deciding {max(there, 0)} draw(s); "
            f"this deck: {cards} cards, {cards - row['cards']} more, deciding {max(here, 0)}")


def policy_method(game) -> str:
    """What the policy is on this configuration: where its exact endgame plays, if anywhere."""
    from .endgame import Endgame
    end = Endgame(game)
    if end.cards < 0 and end.stopped_cards < 0:
        from . import fast
        why = fast.supports(game.cfg) if game.cfg.objective == "round" else None
        where = (f"no exact endgame on this configuration ({why})" if why else
                 "no exact endgame on this configuration (a match, or 3+ players on a deck over 16 cards)")
    else:
        where = f"exact endgame from {end.cards} cards left" if end.cards >= 0 else "no exact endgame by cards left"
        if end.stopped_cards > end.cards:
            where += f", from {end.stopped_cards} once every other seat has stopped"
    learned = ("learned from exact values of 11-14 card rounds (C engine) above it" if two_tables(game.num_players)
               else "learned from exact solutions above it")
    if game.num_players in ESCORT_LOOKAHEAD_PLAYERS and end.cards >= 0:
        tables_text = (f"escorts above it by one turn of look-ahead over sub-solves cut to {end.reduce_to} cards; "
                       f"go/stop tables {learned}")
    else:
        tables_text = f"go/stop and escort tables {learned}"
    return (f"near-optimal policy ({where}; {tables_text}; "
            "model/loira/nearopt.py, endgame.py) - not an exact solution")


def solve_near_optimal(ruleset, limits=None, progress: Callable | None = None,
                       seed: int | None = None, games: int | None = None, detail: bool = True,
                       opponent_games: int | None = None) -> dict[str, Any]:
    """The near-optimal policy's value on ``ruleset`` (its own objective) by ``games`` seeded
    self-play games (default ``SELF_PLAY_GAMES``), the regret figure that applies, and with
    ``detail`` its play table and the self-play against the simple rules on the round and the
    match (``opponent_games`` each). ``limits``: a ``model.limits.Limits`` whose deadline stops
    the self-play (``Stopped``). ``progress(what, done, total)`` is told how far it is."""
    from .config import SCHEMA
    from .game import build
    start = time.perf_counter()
    from .endgame import Endgame
    seed = DEFAULT_SEED if seed is None else seed
    opponent_games = OPPONENT_GAMES if opponent_games is None else opponent_games
    game = build(ruleset)
    if games is None:   # a fixed count chosen by the configuration, never by the clock
        games = SELF_PLAY_GAMES if Endgame(game).c else CHEAP_SELF_PLAY_GAMES
    res: dict[str, Any] = {
        "engine": "near-optimal",
        "exact": False,
        "method": policy_method(game),
        "objective": game.cfg.objective,
        "regret": [r.as_dict() for r in applicable_regret(game)],
        "regret_table": stored().get("rows", []),
        "regret_meaning": "optimal U minus U when one seat follows the policy and the others "
                          "best-respond, measured on the configurations of model/loira/nearopt_regret.json "
                          "(bench rungs up to 16 cards, the verify configuration, loira-mini, the tiny "
                          "example, 3-player rounds); a figure applies only to the configuration it was "
                          "measured on",
    }
    res["self_play"] = self_play(game, games, seed, limits, progress)
    if detail:
        table, escort = stop_table(game.num_players), escort_summary(game.num_players)
        res.update(stop_table=table, escort_table=escort, printable=render(table, escort))
        round_game = build(ruleset.with_overrides({"objective": "round"}, spec=SCHEMA))
        match = build(ruleset.with_overrides({"objective": "match"}, spec=SCHEMA))
        res["self_play_round"] = compare(round_game, OPPONENTS, opponent_games, seed, limits, progress)
        res["self_play_match"] = compare(match, OPPONENTS, opponent_games, seed + 1, limits, progress)
        res["target_wins"] = match.cfg.target_wins
    res["seed"] = seed
    res["seconds"] = round(time.perf_counter() - start, 1)
    return res


def answer_text(res: dict[str, Any]) -> str:
    """The full-deck answer as a player reads it: what the policy is, the stop table, and the
    self-play against the simple rules (the values and their regret are printed above it)."""
    from ruleproof.model.estimate import Estimate
    lines = [res["method"], res.get("printable", "")]
    for key, title in (("self_play_round", "one round"), ("self_play_match", "a match")):
        if not res.get(key):
            continue
        lines.append(f"self-play, {title}: the policy's U against each rule (sampled: mean ± half "
                     f"the 95% interval, seed {res['seed']})")
        for r in res[key]:
            e = Estimate.from_dict(r["utility"])
            lines.append(f"  vs {r['opponent']:<20} seat {r['seat']}: {e.number(signed=True):<16} "
                         f"[{e.low:+.{e.decimals()}f}, {e.high:+.{e.decimals()}f}]  ({r['games']} games)")
    return "\n".join(lines)
