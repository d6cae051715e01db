"""Fast seeded Monte Carlo of Presentes, vectorised across games with numpy.

It implements the same rules as ``rules.py`` (every effect, its eligibility and weight, chains,
shields, first gift, finishing, the last player, the host's scheduled skips and removals, and the
rulings alternatives the model supports) on arrays of shape (games, players); one loop step is one
turn slot of every game still running. Decisions follow the named policies of ``policies.py``
(eager, passive, random). Agreement with the protocol model is tested against the exact analysis
and against a Monte Carlo run of the protocol game itself (tests/test_presentes_simulate.py).
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ruleproof.model.ruleset import Ruleset, RulesetError
from ruleproof.model.seams import Simulation
from ruleproof.model.estimate import QUANTILES, quantile_interval, sample_quantile, sampled_mean, sampled_proportion

from .board import Square
from .config import rules_of
from .rules import EFFECTS, Effect, Rules

FIRST_STEAL = len(Effect)  # counter index: a first gift stolen rather than taken from the tree
COUNTERS = [e.name.lower() for e in Effect] + ["first_steal"]
#: each counter as the page names it (what text output prints in place of the key)
COUNTER_LABELS = {**{e.name.lower(): rule.text for e in Effect for rule in EFFECTS if rule.effect == e},
                  "nothing": "no eligible effect (P23)", "first_steal": "first gift stolen"}
POLICIES = ("eager", "passive", "random")
BATCH = 4096

_ORD, _LUCK, _BAD, _SHIELD = int(Square.ORDINARY), int(Square.LUCK), int(Square.BAD), int(Square.SHIELD)


class Batch:
    """``games`` games played to the end from the initial state."""

    def __init__(self, rules: Rules, games: int, rng: np.random.Generator, policy: str):
        if policy not in POLICIES:
            raise ValueError(f"unknown policy {policy!r}")
        self.r, self.rng, self.policy = rules, rng, policy
        n, G = rules.players, games
        self.n, self.G, self.F = n, G, rules.finish
        self.sq = np.array(list(rules.squares) + [_ORD, _ORD], dtype=np.int8)
        self.dice_count = 1 if len(rules.dice) == 6 else 2
        self.seats = np.arange(n)
        self.pos = np.zeros((G, n), dtype=np.int16)
        self.gift = np.full((G, n), -1, dtype=np.int8)
        self.tree = np.ones((G, n), dtype=bool)
        self.used = np.zeros((G, n), dtype=bool)
        self.turn = np.zeros(G, dtype=np.int64)
        self.done = np.zeros(G, dtype=bool)
        self.turns = np.zeros(G, dtype=np.int32)
        self.rank = np.full((G, n), -1, dtype=np.int16)
        self.nfin = np.zeros(G, dtype=np.int16)
        self.counts = np.zeros((G, len(COUNTERS)), dtype=np.int32)
        self.ontrack = np.ones((G, n), dtype=bool)  # pos < F, kept in step with pos
        self.n_on = np.full(G, n, dtype=np.int64)
        # P05: the weights of Salto's distances; P15 'pick': each seat's value of each gift (eager)
        self.jump_w = (np.arange(len(rules.jumps), 0, -1) if rules.jumps_printed
                       else np.ones(len(rules.jumps), dtype=np.int64))
        self.values = np.array([[float(v) for v in row] for row in rules.values]) if rules.values \
            else np.zeros((n, n))

    # ---- randomness: every draw goes through ``_below`` --------------------------------------------
    def _below(self, games: np.ndarray, high) -> np.ndarray:
        """One uniform integer in [0, high) for each game of ``games`` (``high``: one bound, or one
        per game). The only source of randomness: a checker can replace it to enumerate every
        random stream of a turn exactly (``fastcheck``)."""
        return self.rng.integers(0, np.maximum(high, 1), size=len(games))

    def _roll(self, games: np.ndarray) -> np.ndarray:
        """'jogue o dado': the sum of the dice, each a fair six-sided die."""
        total = self._below(games, 6) + 1
        for _ in range(self.dice_count - 1):
            total = total + self._below(games, 6) + 1
        return total

    def _weighted(self, games: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """For each game (a row of integer ``weights``) an index drawn with probability weight/total."""
        u = self._below(games, weights.sum(axis=1))
        return np.argmax(np.cumsum(weights, axis=1) > u[:, None], axis=1)

    def _uniform_pick(self, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """For each game a column of its row of ``mask``, uniformly among the True ones."""
        return self._weighted(games, mask.astype(np.int64))

    def _coin(self, games: np.ndarray) -> np.ndarray:
        return self._below(games, 2) == 0

    def _policy_pick(self, games: np.ndarray, mask: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """A target among ``mask`` by the policy (eager: most advanced, lowest seat on ties)."""
        if self.policy == "eager":
            score = np.where(mask, pos.astype(np.int64) * 64 + (63 - self.seats), -1)
            return np.argmax(score, axis=1)
        if self.policy == "passive":
            return np.argmax(mask, axis=1)
        return self._uniform_pick(games, mask)

    def _targetable(self, games: np.ndarray, movers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pos = self.pos[games]
        ok = self.ontrack[games] & (self.sq[pos] != _SHIELD)
        ok[np.arange(len(games)), movers] = False
        return ok, pos

    def _give(self, games, seats, gifts) -> None:
        self.gift[games, seats] = gifts
        if self.r.first_on_any_gift:
            has = gifts >= 0
            self.used[games[has], seats[has]] = True

    def _swap_gifts(self, games, a, b) -> None:
        ga = self.gift[games, a].copy()
        gb = self.gift[games, b].copy()
        self._give(games, a, gb)
        self._give(games, b, ga)

    def _take_tree(self, games, seats) -> None:
        if len(games) == 0:
            return
        tree = self.tree[games]
        if self.r.tree_pick and self.policy == "eager":  # P15 'pick': most valued, lowest on ties
            g = np.argmax(np.where(tree, self.values[seats], -np.inf), axis=1)
        elif self.r.tree_pick and self.policy == "passive":  # the lowest gift
            g = np.argmax(tree, axis=1)
        else:
            g = self._uniform_pick(games, tree)
        self._give(games, seats, g.astype(np.int8))
        self.tree[games, g] = False

    def _count(self, games, which: int) -> None:
        self.counts[games, which] += 1  # games are distinct within one call

    def _leave_track(self, games, seats, where: int) -> None:
        self.pos[games, seats] = where
        self.ontrack[games, seats] = False
        self.n_on[games] -= 1

    # ---- the game loop -------------------------------------------------------------------------
    def run(self) -> "Batch":
        slot = 1
        while not self.done.all():
            self.step(slot)
            slot += 1
        return self

    def step(self, slot: int) -> None:
        """Turn slot ``slot`` of every game still running: host events, then one turn (or a skip)."""
        begun = self.begin_slot(slot, np.flatnonzero(~self.done))
        if begun is not None:
            self.play(*begun)

    def begin_slot(self, slot: int, A: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """The start of turn slot ``slot`` for the games ``A``: the host's removals (the games they
        end are over), then whose turn it is; None when the host skips the slot ('Pular vez')."""
        r, n = self.r, self.n
        F = self.F
        for seat in r.removals.get(slot, ()):
            hit = A[self.ontrack[A, seat]]
            g = self.gift[hit, seat]
            self.tree[hit[g >= 0], g[g >= 0]] = True
            self.gift[hit, seat] = -1
            self._leave_track(hit, np.full(len(hit), seat), F + 1)
        if r.removals.get(slot):
            over = self.n_on[A] <= 1
            self._game_over(A[over])
            A = A[~over]
        movers = self.turn[A] % n
        ok = self.ontrack[A, movers]
        while not ok.all():  # the next seat still on the track
            miss = np.flatnonzero(~ok)
            movers[miss] = (movers[miss] + 1) % n
            ok[miss] = self.ontrack[A[miss], movers[miss]]
        if slot in r.skips:
            self.turn[A] = movers + 1
            return None
        return A, movers

    def play(self, A: np.ndarray, movers: np.ndarray) -> None:
        """One turn of ``movers`` in the games ``A``; a game left with one player on the track ends."""
        self._play_turn(A, movers)
        over = self.n_on[A] <= 1
        self._game_over(A[over])
        self.turn[A] = (movers + 1) % self.n

    def load(self, s) -> "Batch":
        """Start every game of the batch from the protocol state ``s`` (a ROLL state)."""
        return self.load_each([s] * self.G)

    def load_each(self, states) -> "Batch":
        """Start game k of the batch from the protocol state ``states[k]`` (ROLL states)."""
        n = self.n
        self.pos[:] = [s.pos for s in states]
        self.gift[:] = [s.gift for s in states]
        self.tree[:] = [[bool(s.tree >> g & 1) for g in range(n)] for s in states]
        self.used[:] = [[bool(s.used >> i & 1) for i in range(n)] for s in states]
        self.turn[:] = [s.turn for s in states]
        self.ontrack[:] = self.pos < self.F
        self.n_on[:] = self.ontrack.sum(axis=1)
        self.nfin[:] = [len(s.order) for s in states]
        self.rank[:] = -1
        for k, s in enumerate(states):
            for place, seat in enumerate(s.order):
                self.rank[k, seat] = place
        return self

    def _game_over(self, games: np.ndarray) -> None:
        if len(games) == 0:
            return
        on = self.ontrack[games]
        has = on.any(axis=1)
        g, last = games[has], np.argmax(on[has], axis=1)
        self._leave_track(g, last, self.F)
        self.rank[g, last] = self.nfin[g]
        self.nfin[g] += 1
        if self.r.last_takes:
            need = self.gift[g, last] < 0
            self._take_tree(g[need], last[need])
        self.done[games] = True

    def _play_turn(self, A: np.ndarray, movers: np.ndarray) -> None:
        r, F = self.r, self.F
        self.turns[A] += 1
        cur, mm, steps, landing = A, movers, self._roll(A), 1
        while len(cur):
            p = self.pos[cur, mm].astype(np.int64) + steps
            if r.bounce:
                past = p > F
                p[past] = np.maximum(0, 2 * F - p[past])
            fin = p >= F
            if fin.any():
                self._finish(cur[fin], mm[fin])
                cur, mm, p = cur[~fin], mm[~fin], p[~fin]
            self.pos[cur, mm] = p
            if landing > r.max_landings or len(cur) == 0:
                return
            kind = self.sq[p]
            plain = (kind == _ORD) | (kind == _SHIELD)
            if plain.any():
                self._ordinary(cur[plain], mm[plain])
            bad = kind == _BAD
            if bad.any():
                self._bad(cur[bad], mm[bad])
            luck = kind == _LUCK
            if luck.any():
                cur, mm, steps = self._luck(cur[luck], mm[luck])
            else:
                return
            landing += 1

    def _finish(self, games, seats) -> None:
        self._leave_track(games, seats, self.F)
        self.rank[games, seats] = self.nfin[games]
        self.nfin[games] += 1
        need = self.gift[games, seats] < 0
        if self.r.finisher_steals:  # P14 'steal': the first-gift choice if still unused
            self._first_gift(games[need], seats[need])
        else:
            self._take_tree(games[need], seats[need])

    def _ordinary(self, games, seats) -> None:
        need = self.gift[games, seats] < 0
        self._first_gift(games[need], seats[need])

    def _first_gift(self, games, seats) -> None:
        """Giftless seats: the first-gift choice if unused (steal or tree), else the tree."""
        first = ~self.used[games, seats]
        self._take_tree(games[~first], seats[~first])
        games, seats = games[first], seats[first]
        if len(games) == 0:
            return
        if not self.r.first_on_any_gift:
            self.used[games, seats] = True
        ok, pos = self._targetable(games, seats)
        victims = ok & (self.gift[games] >= 0)
        some = victims.any(axis=1)
        self._take_tree(games[~some], seats[~some])
        games, seats, victims, pos = games[some], seats[some], victims[some], pos[some]
        if len(games) == 0:
            return
        if self.policy == "passive":
            steal = np.zeros(len(games), dtype=bool)
            target = np.zeros(len(games), dtype=np.int64)
        elif self.policy == "eager":
            steal = np.ones(len(games), dtype=bool)
            target = self._policy_pick(games, victims, pos)
        elif self.r.first_one_list:  # random, P34 'one-list': uniform over {tree} and the victims
            withtree = np.concatenate([victims, np.ones((len(games), 1), dtype=bool)], axis=1)
            target = self._uniform_pick(games, withtree)
            steal = target < self.n
        else:  # random, P34 'two-questions': steal or tree 1/2 each, then a victim uniformly
            steal = self._coin(games)
            target = np.zeros(len(games), dtype=np.int64)
            target[steal] = self._uniform_pick(games[steal], victims[steal])
        tg, ts = games[~steal], seats[~steal]
        self._take_tree(tg, ts)
        sg, ss, st = games[steal], seats[steal], target[steal]
        self._give(sg, ss, self.gift[sg, st].copy())
        self.gift[sg, st] = -1
        self._count(sg, FIRST_STEAL)
        self._take_tree(sg, st)

    def _luck(self, games, seats):
        r = self.r
        k = len(games)
        rows = np.arange(k)
        ok, pos = self._targetable(games, seats)
        gifts = self.gift[games]
        pm = pos[rows, seats].astype(np.int64)
        h = gifts[rows, seats] >= 0
        hold = ok & (gifts >= 0)
        d = pos.astype(np.int64) - pm[:, None]
        ahead, behind = hold & (d > 0), hold & (d < 0)
        top = np.where(ahead, pos, -1).max(axis=1)
        leaders = ahead & (pos == top[:, None])
        dmin = np.where(ahead, d, 1 << 20).min(axis=1)
        near_a = ahead & (d == dmin[:, None])
        dmax = np.where(behind, d, -(1 << 20)).max(axis=1)
        near_b = behind & (d == dmax[:, None])
        lo = 0 if r.sneak_ahead_only else -r.sneak_range
        reach = hold & (d >= lo) & (d <= r.sneak_range)
        any_lead, any_reach, any_ok = leaders.any(1), reach.any(1), ok.any(1)
        lugar_targets = leaders
        if r.leader_by_gift:  # P20 'gift-holder-ahead': Lugar's target is one of ``leaders``
            lugar = any_lead
        else:  # the front runners, gifts unseen
            others = self.ontrack[games].copy()
            others[rows, seats] = False
            top_all = np.where(others, pos, -1).max(axis=1)
            front = others & (pos == top_all[:, None]) & (top_all > pm)[:, None]
        if r.leader_any_tied:  # P20 'tied-leader-with-gift': those of them who serve, one at random
            lugar_targets = front & hold
            lugar = lugar_targets.any(1)
        elif not r.leader_by_gift:  # P20 'leader-then-gift': the leader drawn among them
            lead = np.argmax(front, axis=1)
            tied = front.sum(axis=1) > 1
            if tied.any():  # P26: one of the tied front runners at random
                lead[tied] = self._uniform_pick(games[tied], front[tied])
            lugar = front.any(1) & ok[rows, lead] & (gifts[rows, lead] >= 0)
        W = np.zeros((k, 7), dtype=np.int64)
        W[:, 0] = ~h
        # P07 'own-leader': nobody on the track strictly ahead and a gift: a no-op Lugar
        own = (h & ~(self.ontrack[games] & (d > 0)).any(1)) if r.own_leader else np.zeros(k, dtype=bool)
        W[:, 1] = (lugar | own) * r.lugar_weight
        W[:, 2] = ((h | r.sneak_without_gift) & any_reach) * 2
        W[:, 3] = h & near_a.any(1)
        W[:, 4] = h & near_b.any(1)
        W[:, 5] = h & any_lead
        W[:, 6] = h & any_ok
        total = W.sum(axis=1)
        eff = self._weighted(games, W)
        eff[total == 0] = int(Effect.NOTHING)
        if r.redraw and (total == 0).any():  # P23 'redraw': that game would never end
            raise RulesetError("simulate", "rulings.P23", "'redraw' redraws a ★ with no eligible "
                               "effect forever, and a simulated game reached one: the game can hang, "
                               "so simulate refuses this reading here")
        for e in range(7):
            self._count(games[eff == e], e)
        self._count(games[eff == int(Effect.NOTHING)], int(Effect.NOTHING))
        # Salto à frente: the chain goes on
        sal = eff == int(Effect.SALTO)
        jumps = np.array(r.jumps)[self._weighted(games[sal], np.tile(self.jump_w, (int(sal.sum()), 1)))]
        # gift swaps with a random target among the tied candidates
        for e, mask in ((Effect.LUGAR, lugar_targets), (Effect.FRENTE, near_a), (Effect.ATRAS, near_b),
                        (Effect.ADIANTADO, leaders)):
            sel = eff == int(e)
            if not sel.any():
                continue
            if e == Effect.LUGAR and not (r.leader_by_gift or r.leader_any_tied):
                t = lead[sel]
            else:
                t = self._uniform_pick(games[sel], mask[sel])
            g, m = games[sel], seats[sel]
            if e == Effect.LUGAR:
                t = np.where(own[sel], m, t)  # swapping with yourself: nothing changes
            self._swap_gifts(g, m, t)
            if e == Effect.LUGAR and r.lugar_swaps_place:
                pm_, pt = self.pos[g, m].copy(), self.pos[g, t].copy()
                self.pos[g, m], self.pos[g, t] = pt, pm_
        for e, mask in ((Effect.SORRATEIRO, reach), (Effect.TROCA, ok)):
            sel = eff == int(e)
            if not sel.any():
                continue
            if r.random_targets:
                t = self._uniform_pick(games[sel], mask[sel])
            else:
                t = self._policy_pick(games[sel], mask[sel], pos[sel])
            g, m = games[sel], seats[sel]
            if e == Effect.SORRATEIRO:
                self._swap_gifts(g, m, t)
            else:
                pm_, pt = self.pos[g, m].copy(), self.pos[g, t].copy()
                self.pos[g, m], self.pos[g, t] = pt, pm_
        return games[sal], seats[sal], jumps

    def _bad(self, games, seats) -> None:
        r, n = self.r, self.n
        k = len(games)
        rows = np.arange(k)
        pos = self.pos[games]
        on = self.ontrack[games]
        if r.prev_behind:  # P08 'behind': one of the nearest players strictly behind, at random
            d = pos.astype(np.int64) - pos[rows, seats].astype(np.int64)[:, None]
            back = on & (d < 0)
            top = np.where(back, d, -(1 << 20)).max(axis=1)
            prev = np.zeros(k, dtype=np.int64)
            has_prev = back.any(axis=1)
            prev[has_prev] = self._uniform_pick(games[has_prev], (back & (d == top[:, None]))[has_prev])
        else:
            idx = (seats[:, None] - 1 - np.arange(n - 1)) % n
            prev = idx[rows, np.argmax(on[rows[:, None], idx], axis=1)]
            has_prev = np.ones(k, dtype=bool)
        h = self.gift[games, seats] >= 0
        gp = self.gift[games, prev]
        prev_shield = self.sq[pos[rows, prev]] == _SHIELD
        W = np.zeros((k, 4), dtype=np.int64)
        W[:, 0] = ~h
        W[:, 1] = h
        W[:, 2] = h & has_prev & (gp < 0)
        W[:, 3] = h & has_prev & (gp >= 0) & ~prev_shield
        eff = self._weighted(games, W)
        for j in range(4):
            self._count(games[eff == j], int(Effect.VOLTE) + j)
        sel = eff == 0
        g, m = games[sel], seats[sel]
        self.pos[g, m] = np.maximum(0, self.pos[g, m].astype(np.int64) - r.back)
        sel = eff == 1
        g, m = games[sel], seats[sel]
        self.tree[g, self.gift[g, m]] = True
        self.gift[g, m] = -1
        rev = eff >= 2
        if self.policy == "eager":
            accept = rev
        elif self.policy == "passive":
            accept = np.zeros(k, dtype=bool)
        else:
            accept = np.zeros(k, dtype=bool)
            accept[rev] = self._coin(games[rev])
        g, m, pv = games[accept], seats[accept], prev[accept]
        self._swap_gifts(g, pv, m)


# ---- statistics --------------------------------------------------------------------------------

def _mean_ci(x: np.ndarray, bounds: tuple[float, float] | None = None, **kw) -> dict:
    x = np.asarray(x, dtype=float)
    return sampled_mean(float(x.sum()), float((x * x).sum()), len(x), bounds=bounds, **kw).as_dict()


def _prop_ci(successes: int, n: int, **kw) -> dict:
    return sampled_proportion(successes, n, **kw).as_dict()


def run_games(rules: Rules, games: int, seed: int, policy: str = "eager",
              progress: Callable[[int, int], None] | None = None) -> dict[str, np.ndarray]:
    """Raw per-game results: turns, arrival rank per seat, final gift per seat, effect counts."""
    # numpy seeds are non-negative: a negative seed (accepted by every game) becomes its own entropy
    rng = np.random.default_rng(seed if seed >= 0 else [-seed, 1])
    parts: dict[str, list[np.ndarray]] = {"turns": [], "rank": [], "gift": [], "pos": [], "counts": []}
    done = 0
    while done < games:
        size = min(BATCH, games - done)
        b = Batch(rules, size, rng, policy).run()
        parts["turns"].append(b.turns)
        parts["rank"].append(b.rank)
        parts["gift"].append(b.gift)
        parts["pos"].append(b.pos)
        parts["counts"].append(b.counts)
        done += size
        if progress is not None:
            progress(done, games)
    return {k: np.concatenate(v) for k, v in parts.items()}


def summarise(rules: Rules, raw: dict[str, np.ndarray], seed: int | None = None,
              policy: str | None = None) -> dict:
    """Each figure's sampled estimate (``Estimate.as_dict()``, naming ``seed`` and ``policy``):
    per seat P(finishes first) and P(ends with its own gift) (fair share ``1/players`` for the
    first), utility and arrival place; overall the turns (with quantiles), the first-seat
    advantage as every game reads it (seat 0's utility minus the others' mean, per game), and
    ``first_finish_edge``: P(seat 0 finishes first) minus the fair share."""
    n, N = rules.players, len(raw["turns"])
    kw = {"seed": seed, "policy": policy}
    turns = raw["turns"]
    ordered = np.sort(turns)
    own = raw["gift"] == np.arange(n)
    first = raw["rank"] == 0
    seats, utilities = [], []
    flat = [float(v) for row in rules.values for v in row]
    span = (min(min(flat), 0.0), max(flat))
    for i in range(n):
        # the seat's utility, as Game.returns counts it: the value of the gift it ends with (0: none)
        worth = np.array([float(v) for v in rules.values[i]])
        held = raw["gift"][:, i].astype(np.int64)
        utility = np.where(held >= 0, worth[np.clip(held, 0, None)], 0.0)
        utilities.append(utility)
        seats.append({"seat": i, "finish_first": _prop_ci(int(first[:, i].sum()), N, **kw),
                      "own_gift": _prop_ci(int(own[:, i].sum()), N, **kw),
                      "utility": _mean_ci(utility, span, **kw),
                      "mean_arrival": _mean_ci(raw["rank"][:, i][raw["rank"][:, i] >= 0], (0.0, n - 1.0), **kw)})
    effects = {name: _mean_ci(raw["counts"][:, j], (0.0, math.inf), **kw) for j, name in enumerate(COUNTERS)}
    advantage = utilities[0] - sum(utilities[1:]) / (n - 1)
    edge = first[:, 0].astype(float) - 1.0 / n
    return {
        "games": N,
        "turns": {**_mean_ci(turns, (1.0, math.inf), **kw),
                  # as the exact chain defines them (smallest t with P(T <= t) >= q), each with
                  # its distribution-free 95% interval (None: beyond what the plays can bound)
                  "quantiles": {k: int(sample_quantile(ordered, q)) for k, q in QUANTILES.items()} if N else {},
                  "quantile_intervals": {k: [None if not math.isfinite(x) else int(x)
                                             for x in quantile_interval(ordered, q, (1.0, math.inf))]
                                         for k, q in QUANTILES.items()} if N else {},
                  "min": int(turns.min()) if N else None, "max": int(turns.max()) if N else None},
        "seats": seats,
        "effects_per_game": effects,
        "first_seat_advantage": _mean_ci(advantage, (span[0] - span[1], span[1] - span[0]), **kw),
        "first_finish_edge": {**_mean_ci(edge, (-1.0 / n, 1.0 - 1.0 / n), **kw),
                              "fair_share": f"1/{n}"},
        "own_gift_any": _prop_ci(int(own.any(axis=1).sum()), N, **kw),
    }


def simulate_playouts(ruleset: Ruleset, games: int, seed: int, policy: str | None,
                      progress: Callable[[int, int], None] | None) -> Simulation:
    """Presentes' own playout engine (vectorised on numpy) for ``simulate presentes``."""
    policy = policy or ruleset["policy"]
    if policy not in POLICIES:
        raise RulesetError("command line", "--policy", f"unknown policy {policy!r} for presentes "
                           f"(known: {', '.join(POLICIES)})")
    rules, board = rules_of(ruleset)
    raw = run_games(rules, games, seed, policy, progress)
    out = summarise(rules, raw, seed, policy)
    seats = [{k: v for k, v in seat.items() if k != "seat"} for seat in out["seats"]]
    return Simulation(seat_policies=[policy] * rules.players, seats=seats,
                      metrics={"turns": out["turns"], "first_seat_advantage": out["first_seat_advantage"],
                               "first_finish_edge": out["first_finish_edge"],
                               "own_gift_any": out["own_gift_any"]},
                      extras={"effects_per_game": out["effects_per_game"], "labels": COUNTER_LABELS,
                              "board": board.name,
                              "squares": board.size, "layout": board.drawing(), "players": rules.players,
                              "dice": 1 if len(rules.dice) == 6 else 2})
