"""Z3 proofs for Presentes: one predicate per invariant, one relation per effect action.

* gift conservation is an inductive invariant of every gift-moving action (taking from the tree,
  stealing without a gift, swapping, the gift going back to the tree, removal by the host,
  finishing, moves and place swaps);
* the tree is never empty when a player without a gift must take from it (pigeonhole);
* shield safety: each action's eligibility guard (P19, P24) keeps a shielded player's gift and place;
* the chain bound: at most ``max_landings`` landings are resolved in one turn;
* a ★ square has no eligible effect exactly when the mover holds a gift and every other player on
  the track is shielded; a ☠ square always has one;
* termination: the sum of progress rises in every turn whose roll exceeds the back step, and falls
  by less than the back step in any turn, so the game ends with probability 1 under every policy.
"""
from __future__ import annotations

from fractions import Fraction

import z3

from proofs.harness import Action, check_inductive, optimize_bound, prove
from solver.limits import NO_LIMITS, Limits
from solver.report import UNKNOWN, PropertyResult

ON, FINISHED, REMOVED = 0, 1, 2


def _gift_frame(k: int):
    def frame(sfx: str) -> dict[str, z3.ExprRef]:
        f: dict[str, z3.ExprRef] = {}
        for i in range(k):
            f[f"gift{i}"] = z3.Int(f"gift{i}{sfx}")
            f[f"st{i}"] = z3.Int(f"st{i}{sfx}")
            f[f"pos{i}"] = z3.Int(f"pos{i}{sfx}")
            f[f"sh{i}"] = z3.Bool(f"sh{i}{sfx}")
        for g in range(k):
            f[f"tree{g}"] = z3.Bool(f"tree{g}{sfx}")
        for name in ("m", "t", "g"):
            f[name] = z3.Int(name + sfx)
        return f
    return frame


def _count(b) -> z3.ArithRef:
    return z3.If(b, 1, 0)


def conservation(k: int):
    def inv(f):
        parts = []
        for g in range(k):
            parts.append(_count(f[f"tree{g}"]) + z3.Sum([_count(f[f"gift{i}"] == g) for i in range(k)]) == 1)
        for i in range(k):
            parts.append(z3.And(f[f"gift{i}"] >= -1, f[f"gift{i}"] < k))
            parts.append(z3.Implies(f[f"st{i}"] == REMOVED, f[f"gift{i}"] == -1))
        return z3.And(parts)
    return inv


def _types(k: int):
    def assume(f):
        parts = [z3.And(f["m"] >= 0, f["m"] < k, f["t"] >= 0, f["t"] < k, f["g"] >= 0, f["g"] < k)]
        for i in range(k):
            parts.append(z3.And(f[f"st{i}"] >= ON, f[f"st{i}"] <= REMOVED))
        return z3.And(parts)
    return assume


def _sel(f, name: str, idx, k: int):
    """f[name{idx}] for a symbolic index."""
    expr = f[f"{name}{k - 1}"]
    for i in range(k - 2, -1, -1):
        expr = z3.If(idx == i, f[f"{name}{i}"], expr)
    return expr


def _post(f, t, k: int, gift=None, tree=None, st=None, pos=None):
    """t equals f except where the given per-index functions say otherwise."""
    parts = []
    for i in range(k):
        parts.append(t[f"gift{i}"] == (gift(i) if gift else f[f"gift{i}"]))
        parts.append(t[f"st{i}"] == (st(i) if st else f[f"st{i}"]))
        parts.append(t[f"pos{i}"] == (pos(i) if pos else f[f"pos{i}"]))
        parts.append(t[f"sh{i}"] == f[f"sh{i}"])
    for g in range(k):
        parts.append(t[f"tree{g}"] == (tree(g) if tree else f[f"tree{g}"]))
    return z3.And(parts)


def _targetable(f, who, k):
    return z3.And(who != f["m"], _sel(f, "st", who, k) == ON, z3.Not(_sel(f, "sh", who, k)))


def gift_actions(k: int) -> list[Action]:
    m, t, g = "m", "t", "g"

    def take_tree(f, n):  # ordinary landing, finisher, victim of a first steal, last player (P04, P14)
        return z3.And(_sel(f, "gift", f[m], k) == -1, _sel(f, "st", f[m], k) != REMOVED,
                      _sel(f, "tree", f[g], k),
                      _post(f, n, k, gift=lambda i: z3.If(f[m] == i, f[g], f[f"gift{i}"]),
                            tree=lambda h: z3.And(f[f"tree{h}"], f[g] != h)))

    def steal_giftless(f, n):  # first steal (P14 'steal': also by a finisher), Revanche roubo,
        gm, gt = _sel(f, "gift", f[m], k), _sel(f, "gift", f[t], k)  # P18 'eligible', Lugar giftless
        return z3.And(f[m] != f[t], gm == -1, gt >= 0, _sel(f, "st", f[t], k) == ON,
                      _sel(f, "st", f[m], k) != REMOVED,
                      _post(f, n, k, gift=lambda i: z3.If(f[m] == i, gt, z3.If(f[t] == i, -1, f[f"gift{i}"]))))

    def swap_gifts(f, n):  # Roubo sorrateiro, logo à frente/atrás, do mais adiantado, Revanche troca
        gm, gt = _sel(f, "gift", f[m], k), _sel(f, "gift", f[t], k)
        return z3.And(f[m] != f[t], gm >= 0, gt >= 0, _sel(f, "st", f[t], k) == ON,
                      _sel(f, "st", f[m], k) == ON,
                      _post(f, n, k, gift=lambda i: z3.If(f[m] == i, gt, z3.If(f[t] == i, gm, f[f"gift{i}"]))))

    def lugar(f, n):  # gift and place with the leader (P02)
        gm, gt = _sel(f, "gift", f[m], k), _sel(f, "gift", f[t], k)
        pm, pt = _sel(f, "pos", f[m], k), _sel(f, "pos", f[t], k)
        return z3.And(f[m] != f[t], gt >= 0, _sel(f, "st", f[t], k) == ON, _sel(f, "st", f[m], k) == ON,
                      _post(f, n, k, gift=lambda i: z3.If(f[m] == i, gt, z3.If(f[t] == i, gm, f[f"gift{i}"])),
                            pos=lambda i: z3.If(f[m] == i, pt, z3.If(f[t] == i, pm, f[f"pos{i}"]))))

    def back_to_tree(f, n):  # De volta à árvore
        gm = _sel(f, "gift", f[m], k)
        return z3.And(gm >= 0, _sel(f, "st", f[m], k) == ON,
                      _post(f, n, k, gift=lambda i: z3.If(f[m] == i, -1, f[f"gift{i}"]),
                                     tree=lambda h: z3.Or(f[f"tree{h}"], gm == h)))

    def remove(f, n):  # host: Remover jogador
        gm = _sel(f, "gift", f[m], k)
        return z3.And(_sel(f, "st", f[m], k) == ON,
                      _post(f, n, k, gift=lambda i: z3.If(f[m] == i, -1, f[f"gift{i}"]),
                            tree=lambda h: z3.Or(f[f"tree{h}"], gm == h),
                            st=lambda i: z3.If(f[m] == i, REMOVED, f[f"st{i}"])))

    def finish(f, n):
        return z3.And(_sel(f, "st", f[m], k) == ON,
                      _post(f, n, k, st=lambda i: z3.If(f[m] == i, FINISHED, f[f"st{i}"])))

    def move(f, n):  # rolls, Salto, Volte 3 casas, Troca de lugar: positions only
        return _post(f, n, k, pos=lambda i: n[f"pos{i}"])

    return [Action("take-from-tree", take_tree), Action("steal-without-gift", steal_giftless),
            Action("swap-gifts", swap_gifts), Action("gift-and-place-of-leader", lugar),
            Action("back-to-tree", back_to_tree), Action("host-remove", remove),
            Action("finish", finish), Action("move", move)]


def conservation_proof(k: int, limits: Limits = NO_LIMITS) -> PropertyResult:
    def init(f):
        return z3.And([f[f"gift{i}"] == -1 for i in range(k)] + [f[f"tree{g}"] for g in range(k)]
                      + [f[f"st{i}"] == ON for i in range(k)])
    return check_inductive(
        f"z3-gift-conservation ({k} players)", _gift_frame(k), init, conservation(k), gift_actions(k),
        assumptions=_types(k),
        detail=f"with {k} players: every gift is under the tree or with exactly one player, removed "
               "players hold none; holds at the start and is preserved by every gift-moving action",
        limits=limits)


def tree_nonempty_proof(k: int, limits: Limits = NO_LIMITS) -> PropertyResult:
    def assume(f):
        return z3.And(_types(k)(f), conservation(k)(f), _sel(f, "gift", f["m"], k) == -1)
    return prove(f"z3-tree-nonempty ({k} players)", _gift_frame(k),
                 lambda f: z3.Or([f[f"tree{g}"] for g in range(k)]), assume,
                 detail=f"with {k} players: whenever a player holds no gift, some gift is under the "
                        "tree, so every 'take one from the tree' can be done", limits=limits)


def shield_proof(k: int, limits: Limits = NO_LIMITS) -> PropertyResult:
    """Each targeted action, with its eligibility guard, leaves every shielded non-mover alone."""
    frame1 = _gift_frame(k)

    def frame(_sfx):
        a, b = frame1(""), frame1("'")
        return {**a, **{k2 + "'": v for k2, v in b.items()}}

    def split(f):
        return ({n: v for n, v in f.items() if not n.endswith("'")},
                {n[:-1]: v for n, v in f.items() if n.endswith("'")})

    def safe(f):
        a, b = split(f)
        parts = []
        for j in range(k):
            guard = z3.And(a["m"] != j, a[f"st{j}"] == ON, a[f"sh{j}"])
            parts.append(z3.Implies(guard, z3.And(b[f"pos{j}"] == a[f"pos{j}"],
                                                  z3.Implies(a[f"gift{j}"] >= 0, b[f"gift{j}"] == a[f"gift{j}"]))))
        return z3.And(parts)

    acts = {a.name: a.relation for a in gift_actions(k)}

    def guarded(f):
        a, b = split(f)
        t = a["t"]
        targeted = _targetable(a, t, k)
        prev_unshielded = z3.Not(_sel(a, "sh", t, k))
        options = [
            z3.And(targeted, acts["swap-gifts"](a, b)),            # ★ steals and swaps (P19)
            z3.And(targeted, acts["gift-and-place-of-leader"](a, b)),
            z3.And(targeted, acts["steal-without-gift"](a, b)),   # first steal
            z3.And(targeted, _place_swap(a, b, k)),                # Troca de lugar
            z3.And(prev_unshielded, acts["swap-gifts"](a, b)),     # Revanche troca (P24)
            _revenge_steal(a, b, k),                               # P24: allowed on a shielded prev
            acts["back-to-tree"](a, b), _own_move(a, b, k), acts["take-from-tree"](a, b),
        ]
        return z3.And(_types(k)(a), z3.Or(options))

    return prove(f"z3-shield-safety ({k} players)", frame, safe, guarded,
                 detail="every effect and choice, under its eligibility guard, keeps the gift and the "
                        "place of a shielded player other than the mover", limits=limits)


def _place_swap(a, b, k):
    pm, pt = _sel(a, "pos", a["m"], k), _sel(a, "pos", a["t"], k)
    return z3.And(a["m"] != a["t"], _post(a, b, k, pos=lambda i: z3.If(a["m"] == i, pt, z3.If(a["t"] == i, pm, a[f"pos{i}"]))))


def _revenge_steal(a, b, k):
    """The previous player (t here) takes the mover's gift; they have none."""
    gm, gt = _sel(a, "gift", a["m"], k), _sel(a, "gift", a["t"], k)
    return z3.And(a["m"] != a["t"], gt == -1, gm >= 0,
                  _post(a, b, k, gift=lambda i: z3.If(a["t"] == i, gm, z3.If(a["m"] == i, -1, a[f"gift{i}"]))))


def _own_move(a, b, k):
    return _post(a, b, k, pos=lambda i: z3.If(a["m"] == i, b[f"pos{i}"], a[f"pos{i}"]))


def no_effect_proof(k: int, sneak_range: int, sneak_ahead_only: bool, sneak_without_gift: bool,
                    limits: Limits = NO_LIMITS, own_leader: bool = False,
                    leader_by_gift: bool = False) -> list[PropertyResult]:
    """``own_leader`` (P07): a gift holder with nobody on the track strictly ahead draws the
    no-op Lugar, so the empty draw also needs some (shielded) player on the track ahead.
    P20 'leader-then-gift' (unless ``leader_by_gift``): ``t`` is the leader drawn among the front
    runners (any seat when there is none), and Lugar needs that player to hold a gift and be
    targetable; the claim holds for every such draw."""
    frame = _gift_frame(k)

    def front(f, who):  # on the track, strictly ahead of the mover, nobody on the track above
        pw = _sel(f, "pos", who, k)
        top = z3.And([z3.Implies(z3.And(z3.IntVal(i) != f["m"], f[f"st{i}"] == ON), f[f"pos{i}"] <= pw)
                      for i in range(k)])
        return z3.And(who != f["m"], _sel(f, "st", who, k) == ON, pw > _sel(f, "pos", f["m"], k), top)

    def someone_ahead(f):
        pm = _sel(f, "pos", f["m"], k)
        return z3.Or([z3.And(z3.IntVal(i) != f["m"], f[f"st{i}"] == ON, f[f"pos{i}"] > pm) for i in range(k)])

    def parts(f):
        h = _sel(f, "gift", f["m"], k) >= 0
        pm = _sel(f, "pos", f["m"], k)
        targ = [_targetable(f, z3.IntVal(i), k) for i in range(k)]
        hold = [z3.And(targ[i], f[f"gift{i}"] >= 0) for i in range(k)]
        lo = 0 if sneak_ahead_only else -sneak_range
        ahead = z3.Or([z3.And(hold[i], f[f"pos{i}"] > pm) for i in range(k)])
        behind = z3.Or([z3.And(hold[i], f[f"pos{i}"] < pm) for i in range(k)])
        reach = z3.Or([z3.And(hold[i], f[f"pos{i}"] - pm >= lo, f[f"pos{i}"] - pm <= sneak_range)
                       for i in range(k)])
        if leader_by_gift:
            lugar = ahead
        else:
            lugar = z3.And(front(f, f["t"]), _targetable(f, f["t"], k), _sel(f, "gift", f["t"], k) >= 0)
        lugar = z3.Or(lugar, z3.And(h, z3.Not(someone_ahead(f)))) if own_leader else lugar
        luck = [z3.Not(h), lugar, z3.And(z3.Or(h, sneak_without_gift), reach), z3.And(h, ahead),
                z3.And(h, behind), z3.And(h, ahead), z3.And(h, z3.Or(targ))]
        return h, targ, luck

    def claim(f):
        h, targ, luck = parts(f)
        empty = z3.And(h, z3.Not(z3.Or(targ)))
        if own_leader:
            empty = z3.And(empty, someone_ahead(f))
        return z3.Not(z3.Or(luck)) == empty

    def bad_claim(f):
        h = _sel(f, "gift", f["m"], k) >= 0
        return z3.Or(z3.Not(h), h)  # Volte 3 casas without a gift, De volta à árvore with one

    def assume(f):
        drawn = z3.Or(front(f, f["t"]), z3.Not(someone_ahead(f)))  # P20: t is a drawn leader
        return z3.And(_types(k)(f), _sel(f, "st", f["m"], k) == ON, drawn)

    detail = ("a ★ square has no eligible effect exactly when the mover holds a gift and no other "
              "player on the track is targetable (all shielded)")
    if own_leader:
        detail += " and one of them is strictly ahead (P07 'own-leader': else the no-op Lugar)"
    return [prove(f"z3-luck-without-effect-exactly ({k} players)", frame, claim, assume,
                  detail=detail + "; P23 applies then", limits=limits),
            prove("z3-bad-luck-always-has-effect", frame, bad_claim, assume,
                  detail="a ☠ square always has an eligible effect (Volte 3 casas or De volta à árvore)",
                  limits=limits)]


def chain_bound_proof(max_landings: int, limits: Limits = NO_LIMITS) -> list[PropertyResult]:
    L = max_landings

    def frame(sfx):
        return {"landing": z3.Int("landing" + sfx), "live": z3.Bool("live" + sfx)}

    def init(f):  # P12: the roll's move is landing 1
        return z3.And(f["landing"] == 1, f["live"])

    def inv(f):
        return z3.And(f["landing"] >= 1, f["landing"] <= L + 1, z3.Implies(f["live"], f["landing"] <= L))

    def salto(f, t):
        return z3.And(f["live"], t["landing"] == f["landing"] + 1, t["live"] == (t["landing"] <= L))

    def other(f, t):
        return z3.And(t["landing"] == f["landing"], z3.Not(t["live"]))

    res = check_inductive("z3-chain-bound", frame, init, inv,
                          [Action("salto-lands-again", salto), Action("any-other-effect-ends", other)],
                          detail=f"a chain resolves landings 1..{L} only; a Salto drawn on landing {L} "
                                 "moves the piece without resolving its square (P12)", limits=limits)
    bound, lo, hi, _ = optimize_bound("z3-chain-bound-tight", frame, lambda f: f["landing"],
                                      lambda f: z3.And(inv(f), f["live"]), limits=limits)
    if hi is not None:
        bound.detail = f"landings resolved in one turn range over [{lo}, {hi}] (the bound {L} is reached)"
    return [res, bound]


def termination_proof(back: int, dice: tuple[tuple[int, Fraction], ...], players: int, finish: int,
                      bounce: bool, limits: Limits = NO_LIMITS, redraw: bool = False) -> list[PropertyResult]:
    """Progress potential: the sum over seats of the position (finish for finished/removed).

    It counts turns that end; under P23 'redraw' a turn on a ★ with no eligible effect never ends,
    so the ranking conclusion is withheld (the graph check decides whether that is reachable)."""
    min_roll = min(t for t, _ in dice)

    def frame(_sfx):
        return {n: z3.Int(n) for n in ("p", "r", "J", "F", "back", "e", "delta")}

    def turn(f):  # one turn of the mover: roll r, Saltos J, then stay (0), Volte (1) or a swap (2)
        q = f["p"] + f["r"] + f["J"]
        if bounce:
            q = z3.If(q > f["F"], 2 * f["F"] - q, q)
        after = z3.If(q >= f["F"], f["F"], z3.If(f["e"] == 1, z3.If(q - f["back"] > 0, q - f["back"], 0), q))
        return z3.And(f["p"] >= 0, f["p"] < f["F"], f["r"] >= min_roll, f["J"] >= 0,
                      f["back"] == back, f["F"] == finish, f["e"] >= 0, f["e"] <= 2,
                      f["delta"] == after - f["p"])

    big = prove("z3-progress-on-big-rolls", frame,
                lambda f: z3.Implies(f["r"] >= back + 1, f["delta"] >= 1), turn,
                detail=f"a turn whose roll is at least {back + 1} raises the progress sum by at least 1 "
                       "(swaps of place keep the sum; finishing counts the finish square)", limits=limits)
    small = prove("z3-progress-bounded-loss", frame, lambda f: f["delta"] >= min_roll - back, turn,
                  detail=f"no turn lowers the progress sum by more than {back - min_roll}", limits=limits)
    q = sum((p for t, p in dice if t >= back + 1), Fraction(0))
    out = [big, small]
    if redraw:
        out.append(PropertyResult("termination-every-policy (ranking)", UNKNOWN,
                                  "the ranking counts turns that end; under P23 'redraw' a ★ with no "
                                  "eligible effect (z3-luck-without-effect-exactly) is redrawn forever "
                                  "and its turn never ends: see the graph check", kind="z3"))
    elif big.ok and q > 0:
        window = players * finish
        out.append(PropertyResult(
            "termination-every-policy (ranking)", big.status,
            f"the progress sum is at most {window}, so {window} consecutive turns with a roll >= "
            f"{back + 1} (probability {q} each) end the game: play ends with probability 1 under "
            "every policy, with a geometric tail", kind="z3", data={"p_big_roll": str(q)}))
    elif big.status == UNKNOWN and limits.expired():  # the time limit, not the rules, stopped the argument
        out.append(PropertyResult("termination-every-policy (ranking)", UNKNOWN,
                                  f"z3-progress-on-big-rolls undecided: {big.detail}", kind="z3"))
    else:
        out.append(PropertyResult("termination-every-policy (ranking)", UNKNOWN,
                                  "the progress argument does not apply to these rules (bounce, or no "
                                  "roll beats the back step); see the graph check", kind="z3"))
    if bounce:
        for r in out[:2]:
            if not r.ok:
                r.status = UNKNOWN
                r.detail += " (not expected under P03 bounce)"
    return out
