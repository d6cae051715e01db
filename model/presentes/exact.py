"""Exact analysis of small configurations: the game as a Markov chain over turn starts.

A *turn start* is a ROLL state. Everything a roll triggers (effect draws, tree gifts, the choices
the phone asks, resolved by a policy) is expanded into one exact distribution over the next turn
starts or the reveal (OVER states), so one step of the chain is one turn (P25). Moving back and
swapping places make the chain cyclic; it is solved exactly by strongly connected components in
reverse topological order, with an exact rational solve (python-flint, ``solver.rational``) inside each non-trivial component.

Outputs: the exact mean number of turns and P(T = t) for t up to a horizon (with the exact tail),
each seat's probability of finishing first and of ending with its own gift, expected utilities,
and, for one focal seat, the optimal choices (exact policy iteration against the others' policy).
"""
from __future__ import annotations

import time
from fractions import Fraction
from math import gcd, lcm
from typing import Callable, Sequence

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import splu

from flint import fmpq

from ruleproof.model.protocol import CHANCE
from ruleproof.model.ruleset import RulesetError
from ruleproof.model.limits import NO_LIMITS, Limits
from ruleproof.solver.rational import components_in_order, solve_sparse_fmpq, to_fmpq, walk_absorptions

from .policies import POLICY_DISTS
from .rules import Effect, Phase, St

Kernel = dict[St, Fraction]
IntKernel = tuple[int, dict[St, int]]  # (denominator, weights): weights[u] / denominator


def _to_fractions(k: "IntKernel") -> Kernel:
    den, nums = k
    return {u: Fraction(w, den) for u, w in nums.items()}
ONE, ZERO = Fraction(1), Fraction(0)


class LimitReached(Exception):
    """The user's time limit stopped the analysis; ``states`` turn starts had been built."""

    def __init__(self, where: str, states: int):
        super().__init__(f"time limit reached while {where} ({states} turn starts)")
        self.where, self.states = where, states


class GameHangs(RulesetError):
    """P23 'redraw': a reachable ★ with no eligible effect is redrawn forever (no exact values)."""

    def __init__(self, where: str, states: int):
        super().__init__("exact analysis", "rulings.P23",
                         f"'redraw' redraws a ★ with no eligible effect forever, and play reaches one "
                         f"({where}): the game can hang, so it has no exact values")
        self.states = states


class TurnChain:
    """The turn-start chain of one game under one policy profile.

    ``choice(state) -> list[(action, prob)]`` resolves every decision (a mixed policy is fine).
    """

    def __init__(self, game, choice: Callable[[St], list[tuple[int, Fraction]]],
                 max_states: int = 2_000_000, progress: Callable[[int, int], None] | None = None,
                 focal: int | None = None, cache: dict | None = None, count_effects: bool = False,
                 counts: dict | None = None, build: bool = True, limits: Limits = NO_LIMITS):
        """``cache`` keeps, across policy iterations, the kernels that no decision of ``focal``
        can change (their intra-turn tree holds no focal decision). Building, solving and the turn
        distribution raise :class:`LimitReached` at the deadline of ``limits``."""
        self.game = game
        self.limits = limits
        self.choice = choice
        self.focal = focal
        self.cache: dict[St, Kernel] = cache if cache is not None else {}
        self.memo: dict[St, Kernel] = {}
        #: per turn start: integer weights of the next turn starts, over ``kden[s]``
        self.kernel: dict[St, dict[St, int]] = {}
        self.kden: dict[St, int] = {}
        self.focal_nodes: list[St] = []  # decision nodes of the focal seat met while expanding
        #: with count_effects: expected firings of each Effect (and first steals) in a turn/subtree
        self.counting = count_effects
        self.counts: dict[St, dict[int, Fraction]] = counts if counts is not None else {}
        start = game.initial_state()
        self.start = start
        #: host removals at turn slot 1 can end the game before the first roll: the start is then
        #: the reveal itself (OVER) or the last player's tree gift, a pre-turn node whose kernel
        #: leads to the reveal without a roll (it counts no turn)
        self.pre_turn = start.phase not in (Phase.ROLL, Phase.OVER)
        frontier = [start] if start.phase != Phase.OVER and build else []
        if start.phase != Phase.OVER:
            self.kernel[start] = {}
        steps = 0
        while frontier:
            steps += 1
            if steps & 1023 == 0:
                self.check_time("building the turn chain")
            s = frontier.pop()
            den, k = self._expand(s)[0]
            self.kernel[s] = k
            self.kden[s] = den
            for t in k:
                if t.phase == Phase.ROLL and t not in self.kernel:
                    self.kernel[t] = {}
                    frontier.append(t)
            if len(self.kernel) > max_states:
                raise MemoryError(f"more than {max_states} turn starts")
            if progress is not None and len(self.kernel) % 5000 == 0:
                progress(len(self.kernel), 0)

    def check_time(self, where: str) -> None:
        if self.limits.expired():
            raise LimitReached(where, len(self.kernel))

    def turn_kernel(self, s: St) -> Kernel:
        """The exact distribution of the turn starts (or reveals) one turn after ROLL state s."""
        return _to_fractions(self._expand(s)[0])

    def reach(self, t: St) -> Kernel:
        """The turn-start distribution reached from any state (expanding it if needed)."""
        if t.phase == Phase.ROLL or t.phase == Phase.OVER:
            return {t: ONE}
        return _to_fractions(self._expand(t)[0])

    def _expand(self, s: St) -> tuple["IntKernel", bool]:
        """The intra-turn tree below s as integer weights over one denominator (no gcd per step);
        True if a decision of the focal seat lies in it."""
        got = self.cache.get(s)
        if got is not None:
            return got, False
        got = self.memo.get(s)
        if got is not None:
            return got, True
        g = self.game
        cp = g.current_player(s)
        branches = g.chance_outcomes(s) if cp == CHANCE else self.choice(s)
        if s.phase == Phase.LUCK and branches[0][0] == (Effect.NOTHING, 1):
            raise GameHangs(g.describe_state(s), len(self.kernel))
        dep = self.focal is not None and cp == self.focal
        if dep:
            self.focal_nodes.append(s)
        parts = []
        counts: dict[int, Fraction] | None = {} if self.counting else None
        for a, p in branches:
            t = g.apply(s, a)
            if t.phase == Phase.ROLL or t.phase == Phase.OVER:
                parts.append((p.numerator, p.denominator, (1, {t: 1})))
                inner = None
            else:
                kernel, d = self._expand(t)
                dep |= d
                parts.append((p.numerator, p.denominator * kernel[0], kernel))
                inner = self.counts.get(t)
            if counts is not None:
                _count_into(counts, s, a, p, inner)
        den = lcm(*(b for _, b, _ in parts))
        nums: dict[St, int] = {}
        for a, b, (_, kn) in parts:
            f = a * (den // b)
            for u, w in kn.items():
                nums[u] = nums.get(u, 0) + f * w
        common = gcd(den, *nums.values())
        if common > 1:
            den //= common
            nums = {u: w // common for u, w in nums.items()}
        out = (den, nums)
        if counts is not None:
            self.counts[s] = counts
        (self.memo if dep else self.cache)[s] = out
        return out, dep

    # ---- solving -------------------------------------------------------------------------------
    def solve(self, terminal_value: Callable[[St], Sequence[Fraction]],
              per_turn: Sequence[int] | Callable[[St], Sequence[Fraction]]) -> "_Values":
        """x(s) = per_turn + sum_t P(s,t) x(t) on turn starts; x(OVER) = terminal_value(OVER).

        Acyclic steps use integer vectors over one common denominator per state (no gcd per
        operation); strongly connected components are solved exactly by ``solver.rational``.
        """
        constant = not callable(per_turn)  # integer rewards, the same every turn
        reward = per_turn if callable(per_turn) else (lambda _s, c=tuple(int(x) for x in per_turn): c)
        if constant and self.pre_turn:  # the pre-turn node is no turn: it earns no per-turn reward
            reward = (lambda s, c=tuple(int(x) for x in per_turn), z=(0,) * len(per_turn), s0=self.start:
                      z if s == s0 else c)
        k = len(reward(self.start))
        num: dict[St, list[int]] = {}
        den: dict[St, int] = {}

        def known(t: St) -> None:
            if t not in den:
                vec = list(terminal_value(t))
                d = lcm(*(v.denominator for v in vec)) if vec else 1
                num[t] = [int(v * d) for v in vec]
                den[t] = d

        for done, comp in enumerate(_components(self.kernel)):
            if done & 1023 == 0:
                self.check_time("solving the turn chain")
            if len(comp) == 1 and comp[0] not in self.kernel[comp[0]]:
                s = comp[0]
                items = self.kernel[s].items()
                for t, _ in items:
                    if t.phase == Phase.OVER:
                        known(t)
                ds = self.kden[s]
                big = lcm(*(den[t] for t, _ in items))
                c = reward(s)
                if constant:
                    scale = 1
                    acc = [x * ds * big for x in c]
                else:
                    scale = lcm(*(Fraction(x).denominator for x in c))
                    acc = [int(Fraction(x) * ds * big * scale) for x in c]
                for t, w in items:
                    f = w * (big // den[t]) * scale
                    nt = num[t]
                    for j in range(k):
                        if nt[j]:
                            acc[j] += f * nt[j]
                d = ds * big * scale
                g = gcd(d, *acc)
                num[s] = [a // g for a in acc]
                den[s] = d // g
            else:
                for s in comp:
                    for t in self.kernel[s]:
                        if t.phase == Phase.OVER:
                            known(t)
                for s, (vec, d) in self._solve_component(comp, num, den, reward).items():
                    num[s] = vec
                    den[s] = d
        if self.start.phase == Phase.OVER:
            known(self.start)
        return _Values(num, den)

    def solve_float(self, terminal_value: Callable[[St], Sequence[Fraction]],
                    per_turn: Sequence[int] | Callable[[St], Sequence[Fraction]]) -> "_FloatValues":
        """``solve`` in floating point (``--float``): one sparse LU of I - P for every column."""
        states = list(self.kernel)
        index = {s: i for i, s in enumerate(states)}
        n = len(states)
        k = len(per_turn(self.start) if callable(per_turn) else per_turn)
        rhs = np.zeros((n, k))
        rows, cols, probs = [], [], []
        over: dict[St, np.ndarray] = {}
        for s, kern in self.kernel.items():
            i, d = index[s], self.kden[s]
            if i & 1023 == 0:
                self.check_time("solving the turn chain")
            if callable(per_turn):
                rhs[i] = [float(x) for x in per_turn(s)]
            elif not (self.pre_turn and s == self.start):  # the pre-turn node is no turn
                rhs[i] = per_turn
            for t, w in kern.items():
                j = index.get(t)
                if j is None:
                    got = over.get(t)
                    if got is None:
                        got = over[t] = np.array([float(x) for x in terminal_value(t)])
                    rhs[i] += (w / d) * got
                else:
                    rows.append(i)
                    cols.append(j)
                    probs.append(w / d)
        matrix = (sparse.identity(n, format="csc")
                  - sparse.csc_matrix((probs, (rows, cols)), shape=(n, n)))
        x = splu(matrix).solve(rhs) if n else rhs
        return _FloatValues(index, x.reshape(n, k), terminal_value)

    def _solve_component(self, comp, num, den, reward) -> dict[St, tuple[list[int], int]]:
        """x(s) - sum_{t in comp} P(s,t) x(t) = reward(s) + sum_{t outside} P(s,t) x(t), solved by
        the shared rational module; each solution as integers over one denominator."""
        index = {s: i for i, s in enumerate(comp)}
        rows, rhs = [], []
        for s in comp:
            row = {index[s]: fmpq(1)}
            b = [to_fmpq(Fraction(c)) for c in reward(s)]
            ds = self.kden[s]
            for t, w in self.kernel[s].items():
                p = fmpq(w, ds)
                i = index.get(t)
                if i is not None:
                    row[i] = row.get(i, 0) - p
                else:
                    nt, dt = num[t], den[t]
                    b = [x + p * fmpq(a, dt) if a else x for x, a in zip(b, nt)]
            rows.append(row)
            rhs.append(b)
        sol = solve_sparse_fmpq(rows, rhs, lambda: self.check_time("solving a cyclic component"))
        out = {}
        for s, vec in zip(comp, sol):
            d = lcm(*(int(v.q) for v in vec))
            out[s] = ([int(v.p) * (d // int(v.q)) for v in vec], d)
        return out

    def turn_distribution(self, horizon: int, tail: float = 0.0) -> list[Fraction]:
        """P(T = t) for t = 0..H, exact; T counts turns (rolls) until the reveal.

        H is ``horizon``, or earlier the first t where a float run puts P(T > t) below ``tail``.

        The masses are integers over D**t (D: the common denominator of every turn's
        probabilities), propagated exactly by ``solver.rational.walk_absorptions``.
        """
        if self.start.phase == Phase.OVER:
            return [ONE] + [ZERO] * horizon
        states = list(self.kernel)
        index = {s: i for i, s in enumerate(states)}
        D = lcm(*self.kden.values())
        rows, cols, weights, absorb = [], [], [], [0] * len(states)
        for s, k in self.kernel.items():
            i = index[s]
            scale = D // self.kden[s]
            for t, w in k.items():
                w *= scale
                if t.phase == Phase.OVER:
                    absorb[i] += w
                else:
                    rows.append(i)
                    cols.append(index[t])
                    weights.append(w)
        # the mass before the first roll, as integers over d0: the start itself, or (a pre-turn
        # start) its kernel, whose reveals end the game after 0 turns
        if self.pre_turn:
            d0 = self.kden[self.start]
            k0 = self.kernel[self.start]
            init = {index[t]: w for t, w in k0.items() if t.phase != Phase.OVER}
            dist0 = Fraction(sum(w for t, w in k0.items() if t.phase == Phase.OVER), d0)
        else:
            d0, init, dist0 = 1, {index[self.start]: 1}, ZERO
        if tail > 0:
            horizon = self._float_horizon(horizon, tail, D, rows, cols, weights, len(states),
                                          init, d0, self.check_time)
        ended = walk_absorptions(len(states), rows, cols, weights, absorb, init, horizon, D,
                                 lambda: self.check_time("computing the turn distribution"))
        return [dist0] + [Fraction(e, d0 * D ** t) for t, e in enumerate(ended, 1)]

    def turn_distribution_float(self, horizon: int, tail: float = 0.0) -> list[float]:
        """``turn_distribution`` in floating point (``--float``): the same horizon rule, the mass
        carried by a sparse float matrix."""
        if self.start.phase == Phase.OVER:
            return [1.0] + [0.0] * horizon
        states = list(self.kernel)
        index = {s: i for i, s in enumerate(states)}
        rows, cols, probs, absorb = [], [], [], np.zeros(len(states))
        for s, k in self.kernel.items():
            i, d = index[s], self.kden[s]
            for t, w in k.items():
                if t.phase == Phase.OVER:
                    absorb[i] += w / d
                else:
                    rows.append(i)
                    cols.append(index[t])
                    probs.append(w / d)
        mass = np.zeros(len(states))
        dist = [0.0]
        if self.pre_turn:
            d0 = self.kden[self.start]
            for t, w in self.kernel[self.start].items():
                if t.phase == Phase.OVER:
                    dist[0] += w / d0
                else:
                    mass[index[t]] += w / d0
        else:
            mass[index[self.start]] = 1.0
        mat = sparse.csr_matrix((probs, (cols, rows)), shape=(len(states), len(states)))
        for _ in range(horizon):
            self.check_time("computing the turn distribution")
            dist.append(float(mass @ absorb))
            mass = mat @ mass
            if tail > 0 and mass.sum() < tail:
                break
        return dist

    @staticmethod
    def _float_horizon(horizon, tail, D, rows, cols, weights, n, init, d0, check_time) -> int:
        mat = sparse.csr_matrix((np.array([float(w) / D for w in weights]), (np.array(cols), np.array(rows))),
                                shape=(n, n))
        mass = np.zeros(n)
        for i, w in init.items():
            mass[i] = float(Fraction(w, d0))
        for t in range(1, horizon + 1):
            check_time("finding the horizon")
            mass = mat @ mass
            if mass.sum() < tail:
                return t
        return horizon

FIRST_STEAL = len(Effect)  # counter index of a first gift stolen (as in simulate.COUNTERS)


def _count_into(counts: dict[int, Fraction], s: St, a, p: Fraction, child) -> None:
    if s.phase == Phase.LUCK or s.phase == Phase.BAD:
        counts[a[0]] = counts.get(a[0], ZERO) + p
    elif s.phase == Phase.FIRST and a >= 0:
        counts[FIRST_STEAL] = counts.get(FIRST_STEAL, ZERO) + p
    if child:
        for e, q in child.items():
            counts[e] = counts.get(e, ZERO) + p * q


class _Values:
    """Solved values as integer vectors over one denominator per state; Fractions on demand."""

    def __init__(self, num: dict[St, list[int]], den: dict[St, int]):
        self.num, self.den = num, den

    def __contains__(self, s: St) -> bool:
        return s in self.den

    def get(self, s: St, default=None):
        return self[s] if s in self.den else default

    def __getitem__(self, s: St) -> list[Fraction]:
        d = self.den[s]
        return [Fraction(a, d) for a in self.num[s]]

    def component(self, s: St, j: int) -> Fraction:
        return Fraction(self.num[s][j], self.den[s])


class _FloatValues:
    """``_Values`` in floating point: turn starts from the solve, reveals from their outcome."""

    def __init__(self, index: dict[St, int], x: np.ndarray, terminal_value):
        self.index, self.x, self.terminal_value = index, x, terminal_value

    def __contains__(self, s: St) -> bool:
        return s in self.index or s.phase == Phase.OVER

    def get(self, s: St, default=None):
        return self[s] if s in self else default

    def __getitem__(self, s: St) -> list[float]:
        i = self.index.get(s)
        if i is None:
            if s.phase != Phase.OVER:
                raise KeyError(s)
            return [float(v) for v in self.terminal_value(s)]
        return [float(v) for v in self.x[i]]

    def component(self, s: St, j: int) -> float:
        return self[s][j]


def _components(kernel: dict[St, dict[St, int]]) -> list[list[St]]:
    """The turn chain's strongly connected components, each after every one it leads to."""
    states = list(kernel)
    index = {s: i for i, s in enumerate(states)}
    src = [i for i, s in enumerate(states) for t in kernel[s] if t in index]
    dst = [index[t] for s in states for t in kernel[s] if t in index]
    return [[states[i] for i in part] for part, _ in components_in_order(len(states), src, dst)]


# ---- the analysis ------------------------------------------------------------------------------

def outcome_vector(game, s: St) -> list[Fraction]:
    """Per seat: finished first, ended with own gift, utility (OVER states only)."""
    n = game.num_players
    first = [ONE if s.order and s.order[0] == i else ZERO for i in range(n)]
    own = [ONE if s.gift[i] == i else ZERO for i in range(n)]
    return first + own + list(game.returns(s))


def analyse(game, policy: str = "eager", horizon: int = 60, focal: int | None = None,
            max_states: int = 2_000_000, progress=None, effects: bool = False,
            limits: Limits = NO_LIMITS, exact: bool = True) -> dict:
    """Exact figures under a policy profile; with ``focal``, that seat plays optimally.
    ``exact=False`` computes the same figures in floating point (the chain is built alike).

    Raises ``MemoryError`` beyond ``max_states`` turn starts and :class:`LimitReached` at the
    deadline of ``limits``."""
    t0 = time.perf_counter()
    base = POLICY_DISTS[policy]
    n = game.num_players
    chosen: dict[St, int] = {}

    def choice(s: St):
        if focal is not None and game.current_player(s) == focal:
            a = chosen.get(s)
            if a is not None:
                return [(a, ONE)]
        return base(game, s)

    iterations = 0
    cache: dict = {}
    counts: dict = {}
    while True:
        iterations += 1
        chain = TurnChain(game, choice, max_states, progress, focal, cache, effects, counts,
                          limits=limits)
        solve = chain.solve if exact else chain.solve_float
        per_turn = [1] + [0] * (3 * n)
        values = solve(lambda s: [ZERO] + outcome_vector(game, s), per_turn)
        if focal is None:
            break
        improved = _improve(game, chain, values, focal, 1 + 2 * n + focal, chosen, choice,
                            0 if exact else FLOAT_TIE)
        if not improved:
            break
    start = chain.start
    v = values[start]
    effect_means = None
    if effects:
        width = FIRST_STEAL + 1
        zero = [ZERO] * width

        def per_turn(s: St) -> list[Fraction]:
            c = chain.counts.get(s, {})
            return [c.get(e, ZERO) for e in range(width)]
        effect_means = solve(lambda s: zero, per_turn)[start]
    if exact:
        dist = chain.turn_distribution(horizon, tail=1e-15)
    else:
        dist = chain.turn_distribution_float(horizon, tail=1e-15)
    tail = ONE - sum(dist) if exact else max(0.0, 1.0 - sum(dist))
    out = {
        "states": len(chain.kernel),
        "policy": policy,
        "focal": focal,
        "policy_iterations": iterations,
        "mean_turns": v[0],
        "first": v[1:1 + n],
        "own_gift": v[1 + n:1 + 2 * n],
        "utility": v[1 + 2 * n:1 + 3 * n],
        "turn_distribution": dist,
        "tail_after_horizon": tail,
        "chosen": dict(chosen),
        "effects_per_game": effect_means,
        "seconds": time.perf_counter() - t0,
        "chain": chain,
        "values": values,
    }
    return out


#: in float mode an action must beat the current one by this much (relative) to replace it, so
#: rounding noise between tied actions cannot make policy iteration cycle
FLOAT_TIE = 1e-12


def _improve(game, chain: TurnChain, values, focal: int, col: int, chosen: dict, choice,
             tie: float = 0) -> bool:
    """One policy-improvement sweep over the focal seat's decision nodes.

    The value of an action is its turn-start distribution (from the chain's kernels) against the
    turn-start values; an action replaces the current one only when strictly better (by more than
    ``tie`` times the value's size, in float mode), so policy iteration terminates.
    """
    g = game
    cache: dict[St, Fraction] = {}

    def v(u: St) -> Fraction:
        got = cache.get(u)
        if got is None:
            got = values.component(u, col) if u in values else outcome_vector(g, u)[col - 1]
            cache[u] = got
        return got

    def q(t: St) -> Fraction:
        return sum((p * v(u) for u, p in chain.reach(t).items()), ZERO)

    improved = False
    for i, s in enumerate(list(chain.focal_nodes)):
        if i & 255 == 0:
            chain.check_time("improving the focal seat's policy")
        actions = list(g.legal_actions(s))
        qa = {a: q(g.apply(s, a)) for a in actions}
        current = sum((p * qa[a] for a, p in choice(s)), ZERO)
        best_a, best_v = None, current
        for a in actions:
            if qa[a] > (best_v + tie * max(1, abs(best_v)) if tie else best_v):
                best_a, best_v = a, qa[a]
        if best_a is not None:
            chosen[s] = best_a
            improved = True
    return improved
