"""Z3 proofs for Presentes, bound to ``model.presentes`` by refinement mappings.

Two frames abstract a real state (``model.presentes.rules.St``):

* the **table**: per seat the gift held ``g{i}`` (-1 none), the square ``p{i}`` (the finish square
  ``F`` once finished, ``F + 1`` once removed by the host) and whether it is a shield ``s{i}``; per
  gift whether it is under the tree ``t{h}``; the mover ``m``, the seat taking a gift from the tree
  ``tk`` (-1 none) and the phase ``ph``. One relation per real effect -- a roll, a Salto, taking
  from the tree, the first-gift steal, the ★ steals and swaps, Lugar, Troca de lugar, Volte 3
  casas, De volta à árvore, the Revanche, a step that changes nothing of the table -- each followed
  by the end of the turn (the host's removals at the next slot, the reveal moving the last player
  to the finish, the next mover, who must take from the tree). The proofs on it: gift
  conservation, the tree never empty when someone must take from it, shield safety (a step
  claim: no relation touches a shielded player's gift or place), and termination under every
  policy (a potential no step lowers but a roll, which a roll beating the back step raises);
* the **chain**: whether an effect draw is pending (★ or ☠), its landing number and whether a
  roll is next; the chain bound is its invariant.

``proofs.refinement`` maps every explored (or sampled) transition to a stutter or a step of one of
these relations, so a rule changed in ``model/`` that the relations do not describe fails the
proof with the transition narrated. The relations say what a rule does to the table, not which
player a drawn effect picks: "swap gifts with a targetable player ahead" admits either reading of
"o mais adiantado" (P20), and the eligibility of each draw is decided by the explorer's graph
checks (``model.presentes.graphcheck``).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

import z3

from ruleproof.model.presentes.board import Square
from ruleproof.model.presentes.rules import Phase, Rules, St
from ruleproof.proofs.harness import Action
from ruleproof.proofs.logic import And, If, Implies, Max, Not, Or, Sum
from ruleproof.proofs.refinement import RuleProof, StepClaim

NONE = -1
#: phases where an effect is drawn (the piece stands on a ★ or ☠ it landed on)
DRAWS = (Phase.LUCK, Phase.BAD)
TREES = (Phase.TREE, Phase.TREE_LAST)


def _sel(f, name: str, idx: Any, n: int, default: Any) -> Any:
    """``f[name{idx}]`` for a seat or gift index that may be a Z3 term; ``default`` off the range."""
    if isinstance(idx, int):
        return f[f"{name}{idx}"] if 0 <= idx < n else default
    expr = default
    for i in range(n - 1, -1, -1):
        expr = z3.If(idx == i, f[f"{name}{i}"], expr)
    return expr


class Table:
    """The table frame of one configuration and its action relations."""

    def __init__(self, rules: Rules):
        r = rules
        self.n, self.F, self.out = r.players, r.finish, r.out
        self.back, self.bounce, self.swap_places = r.back, r.bounce, r.lugar_swaps_place
        self.sneak_without_gift = r.sneak_without_gift
        self.host = bool(r.removals)
        self.totals = tuple(t for t, _ in r.dice)
        self.jumps = tuple(sorted(set(r.jumps)))
        self.squares = r.squares

    # ---- frame and abstraction ------------------------------------------------------------------
    def frame(self, sfx: str) -> dict[str, z3.ExprRef]:
        f: dict[str, z3.ExprRef] = {}
        for i in range(self.n):
            f[f"g{i}"] = z3.Int(f"g{i}{sfx}")
            f[f"p{i}"] = z3.Int(f"p{i}{sfx}")
            f[f"s{i}"] = z3.Bool(f"s{i}{sfx}")
        for h in range(self.n):
            f[f"t{h}"] = z3.Bool(f"t{h}{sfx}")
        for name in ("m", "tk", "ph", "b", "h", "r"):  # b, h, r: an action's own inputs (params)
            f[name] = z3.Int(name + sfx)
        return f

    def abstraction(self, s: St) -> dict[str, Any]:
        n, F, sq = self.n, self.F, self.squares
        f: dict[str, Any] = {}
        for i in range(n):
            p = s.pos[i]
            f[f"g{i}"] = s.gift[i]
            f[f"p{i}"] = p
            f[f"s{i}"] = p < F and sq[p] == Square.SHIELD
        for h in range(n):
            f[f"t{h}"] = bool(s.tree >> h & 1)
        f["m"] = s.turn
        f["tk"] = s.aux if s.phase in TREES else NONE
        f["ph"] = int(s.phase)
        return f

    DOC = ("g{i} = the gift seat i holds (-1 none), p{i} = its square (F once finished, F+1 once "
           "removed), s{i} = it stands on a shield square, t{h} = gift h is under the tree, m = the "
           "mover, tk = the seat taking a gift from the tree (-1 none), ph = the phase")

    #: from this many seats on, Z3 pins the acting seats and gift (see ``types``)
    PIN_FROM = 5

    def types(self, f) -> Any:
        """Type bounds. With many seats Z3 is also told that the mover is seat 0, the target seat 1,
        the seat taking from the tree one of 0, 1, 2 and the gift taken gift 0: every relation and invariant treats seats and gifts alike
        (written uniformly over them, no seat or gift named), so renaming seats and gifts maps
        any step to one with that choice -- a symmetry reduction that spares Z3 a case split over
        every pair of seats. The refinement check maps real states, where nothing is pinned."""
        n = self.n
        pinned = [f["m"] == 0, f["b"] == 1, f["tk"] <= 2, f["h"] == 0] if n >= self.PIN_FROM else []
        parts = pinned + [f["m"] >= 0, f["m"] < n, f["tk"] >= NONE, f["tk"] < n, f["ph"] >= 0, f["ph"] <= int(Phase.OVER),
                 f["b"] >= 0, f["b"] < n, f["h"] >= 0, f["h"] < n]
        for i in range(n):
            parts += [f[f"g{i}"] >= NONE, f[f"g{i}"] < n, f[f"p{i}"] >= 0, f[f"p{i}"] <= self.out,
                      Implies(f[f"s{i}"], f[f"p{i}"] < self.F)]
        return And(parts)

    def init(self, f) -> Any:
        n = self.n
        start = [Or(f[f"p{i}"] == 0, f[f"p{i}"] == self.out) if self.host else f[f"p{i}"] == 0
                 for i in range(n)]
        return And(start, [f[f"g{i}"] == NONE for i in range(n)], [f[f"t{h}"] for h in range(n)],
                   f["tk"] == NONE, f["ph"] == int(Phase.ROLL))

    # ---- invariants and claims ------------------------------------------------------------------
    def conservation(self, f) -> Any:
        """Every gift in exactly one place: no two seats hold the same gift, a held gift is not
        under the tree, and every gift is under the tree or held (pairwise, which Z3 handles far
        better than counting); removed seats hold none."""
        n = self.n
        g = [f[f"g{i}"] for i in range(n)]
        parts = [Implies(g[i] >= 0, g[i] != g[j]) for i in range(n) for j in range(i + 1, n)]
        parts += [Implies(g[i] == h, Not(f[f"t{h}"])) for i in range(n) for h in range(n)]
        parts += [Or(f[f"t{h}"], [g[i] == h for i in range(n)]) for h in range(n)]
        parts += [Implies(f[f"p{i}"] == self.out, g[i] == NONE) for i in range(n)]
        # a consequence, stated so that Z3 counts instead of searching pigeonholes: the gifts
        # under the tree and the seats holding one add up to the number of gifts
        parts.append(Sum([If(f[f"t{h}"], 1, 0) for h in range(n)] + [If(x >= 0, 1, 0) for x in g]) == n)
        return And(parts)

    def taker_ok(self, f) -> Any:
        """Somebody takes from the tree exactly in the tree phases; they hold no gift and were not
        removed."""
        tk = f["tk"]
        return And(Or([f["ph"] == int(x) for x in TREES]) == (tk >= 0), Implies(tk >= 0, And(_sel(f, "g", tk, self.n, 0) == NONE, _sel(f, "p", tk, self.n, self.out) <= self.F)))

    def tree_nonempty(self, f) -> Any:
        return Implies(f["tk"] >= 0, Or([f[f"t{h}"] for h in range(self.n)]))

    def shield_kept(self, f, t) -> Any:
        """No shielded player but the mover loses their gift or place (the host's removal and the
        reveal moving the last player to the finish are not a player's doing)."""
        parts = []
        for j in range(self.n):
            guard = And(f["m"] != j, f[f"p{j}"] < self.F, f[f"s{j}"], t[f"p{j}"] < self.F)
            parts.append(Implies(guard, And(t[f"p{j}"] == f[f"p{j}"],
                                            Implies(f[f"g{j}"] >= 0, t[f"g{j}"] == f[f"g{j}"]))))
        return And(parts)

    def potential(self, f) -> Any:
        """Progress of every seat (the finish for finished and removed ones) less the back step
        while a draw is pending (the one Volte a turn may still bring)."""
        F = self.F
        progress = Sum([If(f[f"p{i}"] >= F, F, f[f"p{i}"]) for i in range(self.n)])
        return progress - self.back * If(Or(f["ph"] == int(Phase.LUCK), f["ph"] == int(Phase.BAD)), 1, 0)

    # ---- the relations --------------------------------------------------------------------------
    def _on(self, f, i) -> Any:
        return _sel(f, "p", i, self.n, self.out) < self.F

    def _targetable(self, f, b) -> Any:
        """P19: another player on the track, not on a shield square."""
        return And(b != f["m"], self._on(f, b), Not(_sel(f, "s", b, self.n, True)))

    def _swap(self, xs: list, a, b) -> list:
        va = self._pick(xs, a)
        vb = self._pick(xs, b)
        return [If(a == i, vb, If(b == i, va, xs[i])) for i in range(self.n)]

    def _pick(self, xs: list, idx) -> Any:
        if isinstance(idx, int):
            return xs[idx] if 0 <= idx < len(xs) else NONE
        expr: Any = NONE
        for i in range(len(xs) - 1, -1, -1):
            expr = z3.If(idx == i, xs[i], expr)
        return expr

    def _step(self, phases: tuple, core: Callable, lands: bool = False) -> Callable:
        """A relation: in one of ``phases``, the effect ``core`` (its guard and the table it
        leaves), then the end of the turn."""
        n, F, out = self.n, self.F, self.out

        memo: dict = {}

        def relation(f, t):
            if not isinstance(f["m"], z3.ExprRef):  # values: the proofs sharing this frame ask alike
                key = (tuple(f.values()), tuple(t.values()))
                if key not in memo:
                    if len(memo) > 500_000:
                        memo.clear()
                    memo[key] = judge(f, t)
                return memo[key]
            return judge(f, t)

        def judge(f, t):
            """The conjunction of ``parts``: a Z3 formula, or on values False at the first false part
            (the same formula, evaluated sooner)."""
            if isinstance(f["m"], z3.ExprRef):
                return And(list(parts(f, t)))
            return all(parts(f, t))

        def parts(f, t):
            yield Or([f["ph"] == int(x) for x in phases])
            g = [f[f"g{i}"] for i in range(n)]
            p = [f[f"p{i}"] for i in range(n)]
            tr = [f[f"t{h}"] for h in range(n)]
            guard, effect = core(f, g, p, tr, f["tk"])
            yield guard
            g, p, tr, tk = effect()
            nobody_on = And([t[f"p{i}"] >= F for i in range(n)])
            removed = []
            for i in range(n):
                rem = And(p[i] < F, t[f"p{i}"] == out) if self.host else False
                removed.append(rem)
                yield Or(t[f"p{i}"] == p[i], rem,                     # the host removes them (P28)
                         And(p[i] < F, t[f"p{i}"] == F, nobody_on))   # the reveal (the last one)
                yield t[f"g{i}"] == If(rem, NONE, g[i])
            for h in range(n):
                back = Or([And(removed[i], g[i] == h) for i in range(n)]) if self.host else False
                yield t[f"t{h}"] == Or(tr[h], back)
            new_tk = t["tk"]
            # somebody without a gift, still in the game, must take one from the tree
            yield Or(new_tk == tk, And(tk == NONE, new_tk >= 0))
            yield Implies(new_tk >= 0, And(_sel(t, "g", new_tk, n, 0) == NONE, _sel(t, "p", new_tk, n, out) <= F))
            drawing = Or(t["ph"] == int(Phase.LUCK), t["ph"] == int(Phase.BAD))
            if lands:  # the piece landed on a ★ or ☠ it still stands on: the same mover draws
                yield Implies(drawing, And(t["m"] == f["m"], _sel(t, "p", f["m"], n, out) < F))
            else:
                yield Not(drawing)
            yield Implies(t["ph"] == int(Phase.OVER), nobody_on)
            yield Or([t["ph"] == int(x) for x in TREES]) == (new_tk >= 0)
        return relation

    def _set(self, xs: list, idx, value) -> list:
        return [If(idx == i, value, xs[i]) for i in range(len(xs))]

    def actions(self) -> list[Action]:
        n, F, back = self.n, self.F, self.back
        def forward(values, giftless):
            def core(f, g, p, tr, tk):
                m, r = f["m"], f["r"]
                pm = self._pick(p, m)
                if self.bounce:  # P03 'bounce': the excess bounces back from the finish
                    dest = If(pm + r > F, Max(0, 2 * F - pm - r), pm + r)
                else:            # P03: reaching or passing the finish finishes
                    dest = If(pm + r >= F, F, pm + r)
                guard = And(pm < F, Or([r == v for v in values]),
                            self._pick(g, m) == NONE if giftless else True)
                return guard, lambda: (g, self._set(p, m, dest), tr, tk)
            return core

        def take(f, g, p, tr, tk):  # TREE / TREE_LAST: the taker gets gift h from under the tree
            h = f["h"]
            guard = And(tk >= 0, self._pick(g, tk) == NONE, self._pick(p, tk) <= F,
                        self._pick(tr, h) if isinstance(h, int) else _sel(f, "t", h, n, False))
            return guard, lambda: (self._set(g, tk, h), p, [And(tr[x], h != x) for x in range(n)], NONE)

        def first_steal(f, g, p, tr, tk):  # 'Roube o presente de alguém ... pega outro da árvore'
            m, b = f["m"], f["b"]
            gb = self._pick(g, b)
            guard = And(self._pick(g, m) == NONE, self._pick(p, m) <= F,
                        self._targetable(f, b), gb >= 0)
            return guard, lambda: (self._set(self._set(g, m, gb), b, NONE), p, tr, b)

        def steal_or_swap(f, g, p, tr, tk):  # Roubo sorrateiro, logo à frente/atrás, do mais adiantado
            m, b = f["m"], f["b"]
            guard = And(self._on(f, m), self._targetable(f, b),
                        self._pick(g, b) >= 0, Or(self._pick(g, m) >= 0, self.sneak_without_gift))
            return guard, lambda: (self._swap(g, m, b), p, tr, tk)

        def lugar(f, g, p, tr, tk):  # gift and place of a targetable player ahead (P02, P20)
            m, b = f["m"], f["b"]
            guard = And(self._on(f, m), self._targetable(f, b),
                        self._pick(p, b) > self._pick(p, m))
            return guard, lambda: (self._swap(g, m, b), self._swap(p, m, b) if self.swap_places else p, tr, tk)

        def troca(f, g, p, tr, tk):  # Troca de lugar: places only, with a targetable player
            m, b = f["m"], f["b"]
            guard = And(self._on(f, m), self._targetable(f, b),
                        self._pick(g, m) >= 0)
            return guard, lambda: (g, self._swap(p, m, b), tr, tk)

        def volte(f, g, p, tr, tk):  # 'Ande 3 casas para trás' (P09: not past the start)
            m = f["m"]
            pm = self._pick(p, m)
            guard = And(pm < F, self._pick(g, m) == NONE)
            return guard, lambda: (g, self._set(p, m, Max(0, pm - back)), tr, tk)

        def to_tree(f, g, p, tr, tk):  # De volta à árvore
            m = f["m"]
            gm = self._pick(g, m)
            guard = And(self._on(f, m), gm >= 0)
            return guard, lambda: (self._set(g, m, NONE), p, [Or(tr[x], gm == x) for x in range(n)], tk)

        def revenge(f, g, p, tr, tk):  # the previous player steals (none held) or swaps (P24)
            m, b = f["m"], f["b"]
            gb = self._pick(g, b)
            guard = And(b != m, self._on(f, b), self._pick(g, m) >= 0,
                        Implies(gb >= 0, Not(_sel(f, "s", b, n, True))))
            return guard, lambda: (self._swap(g, m, b), p, tr, tk)

        def nothing(f, g, p, tr, tk):  # a draw or choice that leaves the table as it is
            return True, lambda: (g, p, tr, tk)

        seats = {"b": range(n)}
        big = tuple(v for v in self.totals if v > back)
        small = tuple(v for v in self.totals if v <= back)
        out = []
        if big:
            out.append(Action("roll-beats-back", self._step((Phase.ROLL,), forward(big, False), True), {"r": big}))
        if small:
            out.append(Action("roll-short", self._step((Phase.ROLL,), forward(small, False), True), {"r": small}))
        out += [
            Action("table-unchanged", self._step(tuple(x for x in Phase if x != Phase.OVER), nothing)),
            Action("take-from-tree", self._step(TREES, take), {"h": range(n)}),
            Action("salto", self._step((Phase.LUCK,), forward(self.jumps, True), True), {"r": self.jumps}),
            Action("first-gift-steal", self._step((Phase.FIRST,), first_steal), seats),
            Action("steal-or-swap-gifts", self._step((Phase.LUCK, Phase.SNEAK), steal_or_swap), seats),
            Action("lugar", self._step((Phase.LUCK,), lugar), seats),
            Action("troca-de-lugar", self._step((Phase.LUCK, Phase.SWAP), troca), seats),
            Action("volte", self._step((Phase.BAD,), volte)),
            Action("back-to-tree", self._step((Phase.BAD,), to_tree)),
            Action("revanche", self._step((Phase.REVENGE,), revenge), seats),
        ]
        return out


def table_proofs(rules: Rules) -> list[RuleProof]:
    tb = Table(rules)
    n, F, back = tb.n, tb.F, tb.back
    common = dict(frame=tb.frame, abstraction_doc=Table.DOC, abstraction=tb.abstraction, init=tb.init,
                  actions=tb.actions(), assumptions=tb.types)
    proofs = [
        RuleProof("z3-gift-conservation",
                  "every gift is under the tree or held by exactly one player; removed players hold none",
                  invariant=tb.conservation, **common),
        RuleProof("z3-tree-nonempty",
                  "whenever someone must take a gift from the tree (they hold none), the tree holds one",
                  invariant=lambda f: And(tb.conservation(f), tb.taker_ok(f), tb.tree_nonempty(f)), **common),
        RuleProof("z3-shield-safety",
                  "no effect or choice takes the gift or the place of a player on a shield square "
                  "other than the mover (P19, P24)",
                  invariant=tb.conservation, step_claims=[StepClaim(
                      "a shielded player other than the mover keeps their gift and place", tb.shield_kept)],
                  **common),
    ]
    q = sum((pr for t, pr in rules.dice if t > back), Fraction(0))
    if not tb.bounce and q > 0:
        window = n * F + back + 1
        rolls = ("roll-beats-back", "roll-short")
        ends = ("so play ends with probability 1 under every policy" if not rules.redraw else
                "so play ends with probability 1 under every policy provided every turn ends -- under "
                "P23 'redraw' a ★ with no eligible effect is redrawn forever (a stutter: a turn that "
                "never ends), which the graph check decides")
        claim = (f"the potential (the seats' progress, less {back} while a draw is pending) lies in "
                 f"[-{back}, {n * F}]; no step lowers it but a roll, a roll r lowers it by at most "
                 f"{back} - r and a roll above {back} (probability {q} each turn) raises it: {window} "
                 f"consecutive turns with such a roll cannot all happen, {ends}")
        proofs.append(RuleProof(
            "termination-every-policy (ranking)", claim,
            invariant=lambda f: And(tb.conservation(f), tb.potential(f) >= -back, tb.potential(f) <= n * F),
            ranking=lambda f: n * F - tb.potential(f), decreasing=("roll-beats-back",), decrease=1,
            resets=("roll-short",),   # may raise it, by at most back - r (the step claim below)
            step_claims=[StepClaim("the potential does not fall",
                                   lambda f, t: tb.potential(t) >= tb.potential(f),
                                   tuple(a.name for a in common["actions"] if a.name not in rolls)),
                         StepClaim(f"the potential falls by at most {back} - r",
                                   lambda f, t: tb.potential(t) >= tb.potential(f) + f["r"] - back,
                                   ("roll-short",))],
            **common))
    return proofs


# ---- the chain ------------------------------------------------------------------------------------

def chain_proof(rules: Rules) -> RuleProof:
    """P12: the roll's move is landing 1, a Salto gives the next landing, and a Salto drawn on
    landing ``max_landings`` moves the piece without resolving its square."""
    L = rules.max_landings

    def frame(sfx):
        return {"rl": z3.Bool("rl" + sfx), "d": z3.Int("d" + sfx), "c": z3.Int("c" + sfx)}

    def abstraction(s: St):
        d = 1 if s.phase == Phase.LUCK else 2 if s.phase == Phase.BAD else 0
        return {"rl": s.phase == Phase.ROLL, "d": d, "c": s.chain if d else 0}

    def init(f):
        return And(f["rl"], f["d"] == 0, f["c"] == 0)

    def inv(f):
        return And(Implies(f["d"] != 0, And(f["c"] >= 1, f["c"] <= L)), Implies(f["d"] == 0, f["c"] == 0))

    def roll(f, t):  # the roll's move lands (landing 1) or ends the turn
        return And(f["rl"], f["d"] == 0, Or(And(t["d"] != 0, t["c"] == 1, Not(t["rl"])), And(t["d"] == 0, t["c"] == 0)))

    def salto(f, t):  # a Salto lands again on the next landing
        return And(f["d"] == 1, t["d"] != 0, t["c"] == f["c"] + 1, t["c"] <= L, Not(t["rl"]))

    def ends(f, t):  # any other effect (or a Salto that does not land on a ★ or ☠) ends the draws
        return And(f["d"] != 0, t["d"] == 0, t["c"] == 0)

    def between(f, t):  # choices and the tree: no draw before or after
        return And(f["d"] == 0, Not(f["rl"]), t["d"] == 0, t["c"] == 0)

    typing = lambda f: And(f["d"] >= 0, f["d"] <= 2)  # noqa: E731
    return RuleProof(
        "z3-chain-bound",
        f"an effect is drawn only on landings 1..{L} of a turn; a Salto drawn on landing {L} moves "
        "the piece without resolving its square (P12)",
        frame, "rl = a roll is next, d = the draw pending (1 ★, 2 ☠, 0 none), c = its landing number "
        "(the state's chain; 0 without a draw)", abstraction, init, inv,
        [Action("roll", roll), Action("salto-lands-again", salto), Action("draws-end", ends),
         Action("choice-or-tree", between)], assumptions=typing)


def presentes_proofs(rules: Rules) -> list[RuleProof]:
    return table_proofs(rules) + [chain_proof(rules)]


def properties(ruleset, game) -> list:
    """Presentes' properties: the rule proofs above and the graph checks
    (``model.presentes.checks``: termination under every policy, shield safety, P23 situations)."""
    from ruleproof.model.presentes.checks import checks
    from ruleproof.model.properties import NOTHING, Property
    from ruleproof.proofs.refinement import proof_property
    out = [proof_property(p) for p in presentes_proofs(game.rules)]
    out.append(Property("graph checks", "termination under every policy, shield safety, every ★/☠ draws",
                        (NOTHING,), lambda ctx: checks(ctx.ruleset, limits=ctx.limits)))
    return out


def derived(ruleset) -> list:
    from ruleproof.model.presentes.shrink import shrink
    from ruleproof.model.properties import Derived
    return [Derived(label, rs) for label, rs in shrink(ruleset)]
