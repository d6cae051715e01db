"""Z3 proofs for Bomb Busters, bound move by move to ``model.bomb_busters``, and the game's
properties for ``verify``.

Three abstract models, each a frame read off the real state with one relation per kind of move,
written once with ``proofs.logic`` so that Z3 proves them and the refinement check
(``proofs.refinement``) matches every explored or sampled transition against them. Every move is
bound (``bind``) through the table's reading of it (``proofs.bomb_busters_table``: the family, the
slot pointed at, the value named, what the rules say it does), never through what the model did:

* the **table** (``proofs.bomb_busters_table``): every slot of every rack and every public fact;
  each move's relation is the rule text's effect, the legal moves are compared as sets, the chance
  laws are the rules'; Z3 proves sorted racks, truthful tokens, the detonator below the skull;
* the **kind frame** (one kind of wire: a blue value, yellow, or red): uncut wires of that kind in
  each seat's hand, cut, set aside, candidates shown, whether the deal goes on (and, for blue, the
  validation token and the cards it unlocks). The deal's law by counts left. Proofs: wire
  conservation (nothing made or lost: uncut + cut + set aside = shown, once dealt), cut parity,
  three-never-left (B03), validation-at-all-copies, equipment-unlock (B07). The blue proofs are
  projected: one frame per value, each checked on its own.
* the **turn frame** (the whole table from the active seat's side): per kind the active seat's
  uncut wires, the teammates', the undealt; the detonator, unused equipment, the flipped
  Estabilizador, a pending pick. A pending Detector Duplo pick is mapped to its outcome (the two
  right wires, or the red one under the Estabilizador, count as cut), so that a turn is one abstract
  step. Relations: one per way a turn can go, bound by the outcome the rules give the move, plus
  the set-up steps and the free actions; the game leaves the frame by the exits "defused" and
  "explodes", whose ending (who won) is checked. Proofs: deadlock-freedom (the active seat always
  has a dual cut, a solo cut or the reveal), termination (a ranking every move lowers) and the
  termination bound (a ranking every turn lowers by 2: at most ``termination_bound`` turns).

Besides the proofs: what each seat may know (``proofs.information``, the table's view), the
policies' choices and exact values, the deduction engine against the brute force, and the longest
play against the proved turn bound (``model.bomb_busters.checks``); the tiny mission, a yellow
'2 de 3' one, one with four copies of a value, one with three experts and one where the
Estabilizador meets a wrong blue or yellow wire are explored beside every ruleset as companion
configurations (``companions``).
"""
from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any, Callable

import z3

from ruleproof.model.bomb_busters import state as S
from ruleproof.model.bomb_busters.mission import Mission
from ruleproof.model.bomb_busters.state import Phase, State
from ruleproof.proofs.bomb_busters_table import (DEFUSED, EXPLODES, PICK_CUT, PICK_RED, PICK_TOKEN,
                                                 YELLOW, TableModel, is_red, make_table, matches,
                                                 table_proof)
from ruleproof.proofs.harness import Action
from ruleproof.proofs.logic import And, If, Implies, Not, Or, Sum
from ruleproof.proofs.refinement import STUTTER, Bound, Exit, RuleProof


# ---- the census: counts read off a real state, through the table's reading ------------------------------

def kind_of(code: int) -> str:
    """The kind of a tile's sort code (B02): ``blue v``, ``yellow`` or ``red``."""
    return f"blue {code // 10}" if code % 10 == 0 else "yellow" if code % 10 == 1 else "red"


class _Census:
    """Per kind: uncut wires per seat, cut, dealt, set aside, shown; cached per state (one census
    serves every proof of a mission, so each state is counted once). Seats own racks as the rule
    text deals them (``TableModel.owners``)."""

    def __init__(self, tm: TableModel):
        self.tm, self.m = tm, tm.m
        self.cache: dict[State, tuple] = {}
        #: models and abstractions shared by the proofs of one mission
        self.shared: dict[tuple, Any] = {}

    def __call__(self, s: State):
        got = self.cache.get(s)
        if got is None:
            if len(self.cache) > 200_000:
                self.cache.clear()
            got = self.cache[s] = self._count(s)
        return got

    def _count(self, s: State):
        owners = self.tm.owners
        hands: list[Counter] = [Counter() for _ in range(self.tm.P)]
        cut: Counter = Counter()
        dealt: Counter = Counter()
        for r, rack in enumerate(s.racks):
            hand = hands[owners[r]] if r < len(owners) else Counter()
            for w in rack:
                k = kind_of(S.code(w))
                dealt[k] += 1
                if S.is_cut(w):
                    cut[k] += 1
                else:
                    hand[k] += 1
        aside = Counter(kind_of(t) for t in s.aside)
        shown = {"yellow": len(s.yellows), "red": len(s.reds)}
        return hands, cut, dealt, aside, shown


class _Reader:
    """What a move is, for the kind and turn frames: the table's binding and effect of the move,
    read as kinds and seats (cached per move: every proof asks)."""

    def __init__(self, tm: TableModel, labels: list[str]):
        self.tm, self.labels = tm, labels
        self.index = {label: u for u, label in enumerate(labels)}
        self.seen: dict = {}

    def kind(self, code: int) -> int:
        return self.index.get(kind_of(code), -1)

    def named(self, n: int) -> int:
        return self.index.get("yellow" if n == YELLOW else kind_of(n), -1)

    def __call__(self, s: State, move: Any, actor: int) -> dict:
        key = (s, move, actor)
        got = self.seen.get(key)
        if got is None:
            if len(self.seen) > 200_000:
                self.seen.clear()
            got = self.seen[key] = self._read(s, move, actor)
        return got

    def _read(self, s: State, move: Any, actor: int) -> dict:
        tm = self.tm
        bound, f, post, end = tm.step(s, move, actor)
        family = bound.action.split(" (rack")[0]
        p = dict(bound.params)
        out = {"family": family, "end": end, "known": bool(post) or family.startswith(("draw", "set "))}
        if f is None:
            return out
        if family == "deal a wire":
            r = tm.next_rack(f)
            out.update(seat=tm.owners[r] if r >= 0 else -1, u=self.kind(p["t"]), z=int(post.get("ph", f["ph"]) != f["ph"]))
        elif family in ("dual cut", "detector duplo"):
            g = p["g"]
            out.update(j=tm.owner_of[g], u=self.named(p["n"]), w=self.kind(f[f"c{g}"]), stab=f["stab"])
            if family == "detector duplo":
                h = p["h"]
                out["w2"] = self.kind(f[f"c{h}"])
                hits = [matches(f[f"c{x}"], p["n"]) for x in (g, h)]
                reds = [is_red(f[f"c{x}"]) for x in (g, h)]
                out.update(hits=sum(hits), reds=sum(reds))
        elif family == "solo cut":
            out["u"] = self.named(p["n"])
        elif family == "comunicadores swap":
            out.update(j=tm.owner_of[p["h"]], a=self.kind(f[f"c{p['g']}"]), b=self.kind(f[f"c{p['h']}"]))
        elif family == "the teammate's pick":
            g = p["g"]
            out.update(i=f["sd"], j=f["pp"], u=self.named(f["pn"]), w=self.kind(f[f"c{g}"]), m=f["pk"])
        return out


def _when(guard: Any, body: Callable[[], Any]) -> Any:
    """``guard and body``: on plain values a false guard stops before the body is evaluated."""
    return False if guard is False else And(guard, body())


def _plain(f) -> bool:
    """A frame of plain values (a model state's), not of Z3 constants."""
    return not isinstance(next(iter(f.values())), z3.ExprRef)


def _gated(gate: Callable[[Any], Any], action: Action) -> Action:
    """The action with a cheap pre-check (the phase) tried first on plain values, and its verdicts
    on plain values remembered: most transitions are set-up deals, each relation is tried for every
    value of its parameters, and the proofs sharing a frame ask about the same steps."""
    rel = action.relation
    seen: dict[tuple, bool] = {}

    def relation(a, b):
        if _plain(a):
            key = (tuple(a.values()), tuple(b.values()))
            got = seen.get(key)
            if got is None:
                if len(seen) > 500_000:
                    seen.clear()
                got = seen[key] = bool(_when(gate(a), lambda: rel(a, b)))
            return got
        return And(gate(a), rel(a, b))
    return Action(action.name, relation, action.params)


def _remembered(predicate: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A state predicate whose verdicts on plain frames are remembered (shared by the proofs)."""
    seen: dict[tuple, bool] = {}

    def check(f):
        if _plain(f):
            key = tuple(f.values())
            got = seen.get(key)
            if got is None:
                if len(seen) > 500_000:
                    seen.clear()
                got = seen[key] = bool(predicate(f))
            return got
        return predicate(f)
    return check


def _memo(fn: Callable[[State], Any]) -> Callable[[State], Any]:
    """A state's frames, computed once (the check reads each state before and after a move)."""
    cache: dict[State, Any] = {}

    def of(s: State) -> Any:
        got = cache.get(s, cache)
        if got is cache:
            if len(cache) > 100_000:
                cache.clear()
            got = cache[s] = fn(s)
        return got
    return of


def _at(param: Any, u: int) -> Any:
    """1 where the action's seat (or kind) parameter is ``u``, else 0."""
    if isinstance(param, int):
        return 1 if param == u else 0
    return If(param == u, 1, 0)



# ---- the kind frame -----------------------------------------------------------------------------------

BLUE, YELLOW_C, RED_C = 0, 1, 5


class KindModel:
    """One kind of wire per frame (every blue value, yellow, red: a projection each), ``P`` seats.
    The kind's constants are frame variables tied to its colour by the typing: ``Y`` candidates
    shown (a blue value's copies), ``A`` of them set aside ('X de Y')."""

    def __init__(self, m: Mission, labels: list[str], need: int):
        self.m, self.P, self.labels, self.need = m, m.players, labels, need
        self.V = m.blue_values
        self.yellow = labels.index("yellow") if "yellow" in labels else -1
        self.red = labels.index("red") if "red" in labels else -1
        self.random = {YELLOW_C: bool(m.yellow_drawn and not m.yellow_values),
                       RED_C: bool(m.red_drawn and not m.red_values)}
        self.cards = [v for _n, v in m.equipment if v <= m.blue_values]
        self.hands = [f"h{i}" for i in range(self.P)]
        self.state_vars = self.hands + ["cut", "aside", "shown", "dealing", "q", "col", "Y", "A", "val", "unl", "nc"]

    PARAMS = ("i", "j", "u", "w", "a", "b", "z", "o", "m")

    def frame(self, sfx: str) -> dict[str, z3.ExprRef]:
        return {n: z3.Int(n + sfx) for n in self.state_vars + list(self.PARAMS) + ["actor"]}

    def constants(self, label: str) -> dict[str, int]:
        m = self.m
        if label == "yellow":
            return {"col": YELLOW_C, "Y": m.yellow_drawn, "A": m.yellow_drawn - m.yellow_in_play}
        if label == "red":
            return {"col": RED_C, "Y": m.red_drawn, "A": m.red_drawn - m.red_in_play}
        return {"col": BLUE, "Y": m.blue_copies, "A": 0}

    def of(self, census: _Census, s: State, label: str) -> dict[str, Any]:
        hands, cut, _dealt, aside, shown = census(s)
        f = {f"h{i}": hands[i][label] for i in range(self.P)}
        f.update(cut=cut[label], aside=aside[label], shown=shown.get(label, self.m.blue_copies),
                 dealing=int(s.phase <= Phase.DEAL), q=self.labels.index(label), **self.constants(label))
        if label.startswith("blue"):
            v = int(label.split()[1])
            mine = [i for i, (_n, value) in enumerate(self.m.equipment) if value == v]
            f.update(val=s.validated >> (v - 1) & 1, unl=sum(s.unlocked >> i & 1 for i in mine), nc=len(mine))
        else:
            f.update(val=0, unl=0, nc=0)
        return f

    # -- predicates
    def uncut(self, f) -> Any:
        return Sum([f[h] for h in self.hands])

    def typing(self, f) -> Any:
        m = self.m
        parts = [f[n] >= 0 for n in self.hands + ["cut", "aside", "shown", "q"]]
        parts += [Or(f["dealing"] == 0, f["dealing"] == 1), Or(f["val"] == 0, f["val"] == 1),
                  f["unl"] >= 0, f["unl"] <= f["nc"], f["nc"] <= len(self.cards),
                  Or(f["col"] == BLUE, f["col"] == YELLOW_C, f["col"] == RED_C),
                  Implies(f["col"] == BLUE, And(f["q"] < self.V, f["Y"] == m.blue_copies, f["A"] == 0)),
                  Implies(f["col"] != BLUE, And(f["val"] == 0, f["unl"] == 0, f["nc"] == 0)),
                  Implies(f["col"] == YELLOW_C, And(f["q"] == self.yellow, f["Y"] == m.yellow_drawn,
                                                    f["A"] == m.yellow_drawn - m.yellow_in_play)),
                  Implies(f["col"] == RED_C, And(f["q"] == self.red, f["Y"] == m.red_drawn,
                                                 f["A"] == m.red_drawn - m.red_in_play))]
        return And(parts)

    def _random(self, f) -> Any:
        return Or(And(f["col"] == YELLOW_C, self.random[YELLOW_C]), And(f["col"] == RED_C, self.random[RED_C]))

    def init(self, f) -> Any:
        return And([f[h] == 0 for h in self.hands], f["cut"] == 0, f["aside"] == 0, f["dealing"] == 1,
                   f["shown"] == If(self._random(f), 0, f["Y"]), f["val"] == 0, f["unl"] == 0)

    def in_play(self, f) -> Any:
        return f["shown"] - f["aside"]

    def conservation(self, f) -> Any:
        """No wire of the kind is made or lost: on the racks (uncut or cut) at most the candidates
        shown minus those set aside, exactly that once the deal is over; the shown and set-aside
        counts are the mission's ('X de Y')."""
        on_racks = self.uncut(f) + f["cut"]
        return And(on_racks <= self.in_play(f), Implies(f["dealing"] == 0, on_racks == self.in_play(f)),
                   Or(f["shown"] == 0, f["shown"] == f["Y"]), Or(f["aside"] == 0, f["aside"] == f["A"]),
                   Implies(Or(on_racks > 0, f["dealing"] == 0), And(f["shown"] == f["Y"], f["aside"] == f["A"])))

    def parity(self, f) -> Any:
        """Blue and yellow wires are cut two (or four) at a time."""
        return Implies(f["col"] != RED_C, And(f["cut"] % 2 == 0, Implies(f["dealing"] == 0, self.uncut(f) % 2 == 0)))

    def three_never_left(self, f) -> Any:
        return Implies(And(f["col"] == BLUE, f["dealing"] == 0), self.uncut(f) != 3)

    def validation(self, f) -> Any:
        return Implies(f["col"] == BLUE, f["val"] == If(f["cut"] == f["Y"], 1, 0))

    def unlock(self, f) -> Any:
        """B07: a card unlocks once ``need`` wires of its value are cut, and stays unlocked."""
        return Implies(f["col"] == BLUE, f["unl"] == If(f["cut"] >= self.need, f["nc"], 0))

    # -- the relations
    def _step(self, pre, post, **changes) -> Any:
        eqs = [post[n] == changes.get(n, pre[n]) for n in self.state_vars if n not in ("val", "unl")]
        blue = pre["col"] == BLUE
        # the validation token goes down with the last copy; cards unlock (B07) and stay so
        eqs.append(post["val"] == If(And(blue, Or(pre["val"] == 1, post["cut"] == pre["Y"])), 1, 0))
        eqs.append(post["unl"] == If(And(blue, post["cut"] >= self.need), pre["nc"], pre["unl"]))
        return And(eqs)

    def _seat(self, x: Any) -> Any:
        return And(x >= 0, x < self.P)

    def _mine(self, pre, u: Any) -> Any:
        """1 when this frame's kind is kind ``u``."""
        return If(pre["q"] == u, 1, 0)

    def _hand(self, pre, seat: Any) -> Any:
        return Sum([If(seat == s, pre[f"h{s}"], 0) for s in range(self.P)])

    def _minus(self, pre, delta: Callable[[int], Any]) -> dict[str, Any]:
        return {f"h{s}": pre[f"h{s}"] - delta(s) for s in range(self.P)}

    def _cut_pair(self, a, b, i: Any, j: Any, u: Any) -> Any:
        """One wire of kind u from seat i's hand and one from seat j's are cut."""
        k = self._mine(a, u)
        return And(Implies(k == 1, And(self._hand(a, i) >= 1, self._hand(a, j) >= 1)),
                   self._step(a, b, cut=a["cut"] + 2 * k,
                              **self._minus(a, lambda s: k * (If(i == s, 1, 0) + If(j == s, 1, 0)))))

    def _red_cut(self, a, b, j: Any) -> Any:
        """B12: a red wire of seat j cut under the Estabilizador (only the red frame changes)."""
        red = If(a["col"] == RED_C, 1, 0)
        return And(Implies(red == 1, self._hand(a, j) >= 1),
                   self._step(a, b, cut=a["cut"] + red, **self._minus(a, lambda s: red * If(j == s, 1, 0))))

    def _all_of(self, a, b, seat: Any, cond: Any) -> Any:
        """Every wire of seat's hand of this kind is cut, when ``cond``."""
        return If(cond, self._step(a, b, cut=a["cut"] + self._hand(a, seat),
                                   **self._minus(a, lambda s: If(seat == s, a[f"h{s}"], 0))), self._step(a, b))

    def actions(self) -> list[Action]:
        P, K = self.P, range(len(self.labels))
        seats = range(P)
        unchanged = lambda a, b: self._step(a, b)  # noqa: E731
        return [
            Action("draw the red candidates", lambda a, b: If(
                a["col"] == RED_C, And(a["shown"] == 0, self._step(a, b, shown=a["Y"])), unchanged(a, b))),
            Action("draw the yellow candidates", lambda a, b: If(
                a["col"] == YELLOW_C, And(a["shown"] == 0, self._step(a, b, shown=a["Y"])), unchanged(a, b))),
            Action("set candidates aside", lambda a, b: If(
                a["A"] > 0, And(a["shown"] == a["Y"], a["aside"] == 0, self._step(a, b, aside=a["A"])),
                unchanged(a, b))),
            Action("deal a wire", lambda a, b: _when(
                And(a["dealing"] == 1, a["shown"] == a["Y"], a["aside"] == a["A"],
                    Implies(a["q"] == a["u"], self.uncut(a) + a["cut"] < self.in_play(a)),
                    # the last wire dealt completes every kind
                    Implies(a["z"] == 1, self.uncut(a) + a["cut"] + self._mine(a, a["u"]) == self.in_play(a))),
                lambda: self._step(a, b, dealing=1 - a["z"],
                                   **self._minus(a, lambda s: -If(a["i"] == s, self._mine(a, a["u"]), 0)))),
                {"i": seats, "u": K, "z": (0, 1)}),
            Action("dual cut", lambda a, b: _when(
                And(a["dealing"] == 0, self._seat(a["actor"]), self._seat(a["j"]), a["j"] != a["actor"]),
                lambda: If(a["w"] == a["u"], self._cut_pair(a, b, a["actor"], a["j"], a["u"]),
                           If(a["z"] == 1, self._red_cut(a, b, a["j"]), unchanged(a, b)))),
                {"j": seats, "u": K, "w": K, "z": (0, 1)}),
            Action("detector duplo", lambda a, b: _when(
                And(a["dealing"] == 0, self._seat(a["actor"]), self._seat(a["j"]), a["j"] != a["actor"]),
                lambda: If(a["o"] == 1, self._cut_pair(a, b, a["actor"], a["j"], a["u"]), unchanged(a, b))),
                {"j": seats, "u": K, "o": (0, 1)}),
            Action("the teammate's pick", lambda a, b: _when(
                And(a["dealing"] == 0, self._seat(a["i"]), self._seat(a["j"]), a["j"] == a["actor"], a["i"] != a["j"]),
                lambda: If(a["m"] == PICK_CUT, self._cut_pair(a, b, a["i"], a["j"], a["u"]),
                           If(a["m"] == PICK_RED, self._red_cut(a, b, a["j"]), unchanged(a, b)))),
                {"i": seats, "j": seats, "u": K, "m": (PICK_CUT, PICK_TOKEN, PICK_RED)}),
            Action("solo cut (the last 2 or 4, all in one hand)", lambda a, b: _when(
                And(a["dealing"] == 0, self._seat(a["actor"])),
                lambda: And(Implies(a["q"] == a["u"], And(Or(self._hand(a, a["actor"]) == 2, self._hand(a, a["actor"]) == 4),
                                                          self.uncut(a) == self._hand(a, a["actor"]))),
                            self._all_of(a, b, a["actor"], a["q"] == a["u"]))),
                {"u": K}),
            Action("reveal the red wires of one hand", lambda a, b: _when(
                And(a["dealing"] == 0, self._seat(a["actor"])), lambda: self._all_of(a, b, a["actor"], a["col"] == RED_C))),
            Action("comunicadores swap (at most one wire of the kind each way)", lambda a, b: _when(
                And(a["dealing"] == 0, self._seat(a["actor"]), self._seat(a["j"]), a["j"] != a["actor"]),
                lambda: And(self._hand(a, a["actor"]) >= self._mine(a, a["a"]), self._hand(a, a["j"]) >= self._mine(a, a["b"]),
                            self._step(a, b, **self._minus(
                                a, lambda s: If(a["actor"] == s, self._mine(a, a["a"]) - self._mine(a, a["b"]), 0)
                                + If(a["j"] == s, self._mine(a, a["b"]) - self._mine(a, a["a"]), 0))))),
                {"j": seats, "a": K, "b": K}),
        ]

    def bind(self, read: _Reader) -> Callable[[State, Any, int], Bound]:
        def bind(s: State, move: Any, actor: int) -> Bound:
            x = read(s, move, actor)
            fam = x["family"]
            if fam.startswith("draw") or fam == "set candidates aside":
                return Bound(fam)
            if fam == "deal a wire":
                return Bound(fam, {"i": x["seat"], "u": x["u"], "z": x["z"]})
            if fam in ("set-up info token (B09)", "flip the estabilizador"):
                return Bound(STUTTER)
            if fam == "dual cut":
                return Bound(fam, {"j": x["j"], "u": x["u"], "w": x["w"],
                                   "z": int(x["w"] == self.red and x["stab"] == 1)})
            if fam == "detector duplo":
                return Bound(fam, {"j": x["j"], "u": x["u"], "o": int(x["hits"] == 1)})
            if fam == "the teammate's pick":
                return Bound(fam, {"i": x["i"], "j": x["j"], "u": x["u"], "m": x["m"]})
            if fam == "solo cut":
                return Bound("solo cut (the last 2 or 4, all in one hand)", {"u": x["u"]})
            if fam == "reveal red wires":
                return Bound("reveal the red wires of one hand")
            if fam == "comunicadores swap":
                return Bound("comunicadores swap (at most one wire of the kind each way)",
                             {"j": x["j"], "a": x["a"], "b": x["b"]})
            return Bound(f"a move the rules do not list ({move!r})")
        return bind

    def chance(self, tm: TableModel) -> Callable:
        """The rules' laws at the kinds' level: the draws and the set-aside choice change only
        which candidates (one bound move each); the next wire dealt is of kind u with probability
        (wires of u left to deal) / (wires left), to the seat whose racks are being filled (step 6)."""
        capacity = [sum(n for n, o in zip(tm.sizes, tm.owners) if o == s) for s in range(tm.P)]

        def law(frames) -> dict[Bound, Fraction]:
            one = next(iter(frames.values()))
            unshown = {f["col"] for f in frames.values() if f["shown"] != f["Y"]}
            if unshown:   # the draws of the candidates come first, red then yellow (step 5.2)
                return {Bound("draw the red candidates" if RED_C in unshown else "draw the yellow candidates"):
                        Fraction(1)}
            if any(f["aside"] != f["A"] for f in frames.values()):
                return {Bound("set candidates aside"): Fraction(1)}
            if one["dealing"] == 0:    # B09 random: a set-up token changes no count
                return {Bound(STUTTER): Fraction(1)}
            dealt = [sum(f[f"h{s}"] for f in frames.values()) for s in range(tm.P)]
            left = {label: self.in_play(f) - (self.uncut(f) + f["cut"]) for label, f in frames.items()}
            total = sum(left.values())
            seat = next((s for s in range(tm.P) if dealt[s] < capacity[s]), -1)
            done = int(sum(dealt) + 1 == tm.N)
            return {Bound("deal a wire", {"i": seat, "u": frames[label]["q"], "z": done}): Fraction(n, total)
                    for label, n in left.items() if n > 0}
        return law


def _kind_proofs(m: Mission, census: _Census, read: _Reader) -> list[RuleProof]:
    tm = census.tm
    labels = read.labels
    km = KindModel(m, labels, tm.need)
    actions = [_gated(lambda f: True, a) for a in km.actions()]
    abstraction = _memo(lambda s: {lab: km.of(census, s, lab) for lab in labels})
    doc = (f"one frame per kind ({', '.join(labels[:3])}{', ...' if len(labels) > 3 else ''}): h<seat> = uncut "
           "wires of the kind in that seat's hand (all its racks), cut, aside = set aside, shown = candidates on "
           "the table (a blue value: its copies), dealing = the deal goes on, q = the kind, col/Y/A = its "
           "colour, candidates and set-aside count, val = its validation token, unl/nc = cards of its value "
           "unlocked / on the board")
    common = dict(frame=km.frame, abstraction_doc=doc, abstraction=abstraction, init=km.init, actions=actions,
                  bind=km.bind(read), chance=km.chance(tm), assumptions=_remembered(km.typing), projected=True,
                  sentence=("seeds/004 step 5 (the wires: 48 blue, 4 of each value; the red and yellow ones "
                            "drawn, 'X de Y' set aside), step 6 (all dealt), Corte Duplo / Solo / Revelar (what "
                            "is cut), Fichas de Validação ('Sempre que os 4 fios do mesmo valor forem cortados'), "
                            "Equipamento ('assim que os 2 fios do valor indicado ... forem cortados', B07)"))
    K, conservation = m.blue_copies, km.conservation
    kinds = "every kind (each blue value, yellow, red)"
    out = [RuleProof("wire-conservation", f"for {kinds}: uncut + cut + set aside never exceeds the candidates shown "
                     f"({K} of each blue value), and equals it once the deal is over: no wire is made or lost",
                     invariant=_remembered(conservation), **common),
           RuleProof("cut-parity", "cut blue and yellow wires of each kind are even, and so are the uncut ones "
                     "after the deal", invariant=_remembered(lambda f: And(conservation(f), km.parity(f))), **common),
           RuleProof("three-never-left (B03)", "after the deal, 3 uncut wires of a blue value never remain, so a "
                     "solo cut never faces 3 (B03)", invariant=_remembered(
                         lambda f: And(conservation(f), km.parity(f), km.three_never_left(f))), **common),
           RuleProof("validation-at-all-copies", f"a blue value's validation token is down exactly when all {K} of "
                     "its wires are cut", invariant=_remembered(lambda f: And(conservation(f), km.validation(f))),
                     **common)]
    if km.cards:
        need = "2" if tm.need == 2 else f"all {K}"
        out.append(RuleProof("equipment-unlock (B07)", f"a card is unlocked exactly when {need} wires of its value "
                             "are cut, and stays so", invariant=_remembered(lambda f: And(conservation(f), km.unlock(f))),
                             **common))
    return out

# ---- the turn frame -----------------------------------------------------------------------------------

SETUP, TOKENS, PLAY = 0, 1, 2


def termination_bound(m: Mission) -> int:
    """Turns at most: (non-red wires)/2 + reds + skull + Estabilizador cards (``termination-bound``)."""
    nonred = m.blue_values * m.blue_copies + m.yellow_in_play
    return nonred // 2 + m.red_in_play + m.skull + sum(1 for n, _ in m.equipment if n == "estabilizador")


class TurnModel:
    """The table seen from the active seat: per kind u, m<u> = its uncut wires, o<u> = the
    teammates', l<u> = still to deal; the detonator, unused cards, and where the turn stands."""

    def __init__(self, m: Mission, census: _Census):
        self.m, self.P, self.D = m, m.players, m.skull
        self.labels = [f"blue {v}" for v in range(1, m.blue_values + 1)]
        self.n = [m.blue_copies] * m.blue_values
        if m.yellow_in_play:
            self.labels.append("yellow")
            self.n.append(m.yellow_in_play)
        self.nonred = list(range(len(self.labels)))
        self.red = None
        if m.red_in_play:
            self.red = len(self.labels)
            self.labels.append("red")
            self.n.append(m.red_in_play)
        self.kinds = list(range(len(self.labels)))
        self.stab0 = sum(1 for n, _ in m.equipment if n == "estabilizador")
        self.comm0 = sum(1 for n, _ in m.equipment if n == "comunicadores")
        self.duplo0 = m.players if m.detector_duplo else 0
        tm = census.tm
        self.cap = max(sum(n for n, o in zip(tm.sizes, tm.owners) if o == seat) for seat in range(m.players))
        self.scalars = ["det", "stab_card", "stab_on", "comm", "duplo", "pending", "phase", "tokens", "cand"]
        #: the set-up chance steps before the deal: the red draw, the yellow draw, the set-aside
        self.steps = [st for st, on in ((Phase.DRAW_RED, m.red_drawn and not m.red_values),
                                         (Phase.DRAW_YELLOW, m.yellow_drawn and not m.yellow_values),
                                         (Phase.ASIDE, m.red_drawn != m.red_in_play or m.yellow_drawn != m.yellow_in_play))
                      if on]
        self.state_vars = [f"{c}{u}" for u in self.kinds for c in "mol"] + self.scalars
        # the weight that makes a turn outweigh every free move in the termination ranking
        self.free_max = sum(self.n) + self.P + self.stab0 + self.comm0 + self.duplo0 + len(self.steps) + 1
        self.census = census

    def frame(self, sfx: str) -> dict[str, z3.ExprRef]:
        f = {n: z3.Int(n + sfx) for n in self.state_vars}
        f.update({p: z3.Int(p + sfx) for p in ("k", "a", "b", "actor")})   # the move's parameters: kinds
        return f

    # -- the abstraction
    def of(self, s: State) -> dict[str, int] | None:
        if s.phase in (Phase.WON, Phase.LOST):
            return None
        m = self.m
        hands, _cut, dealt, _aside, _shown = self.census(s)
        mine = Counter(hands[s.seat])
        others: Counter = Counter()
        for i in range(self.P):
            if i != s.seat:
                others.update(hands[i])
        if s.pending:   # the pick's outcome is settled: count its wires as cut
            kind, named = s.pending[0], s.pending[5]
            if kind == PICK_CUT:
                label = "yellow" if named == YELLOW else kind_of(named)
                mine[label] -= 1
                others[label] -= 1
            elif kind == PICK_RED:
                others["red"] -= 1
        f: dict[str, int] = {}
        for u, label in enumerate(self.labels):
            f.update({f"m{u}": mine[label], f"o{u}": others[label], f"l{u}": self.n[u] - dealt.get(label, 0)})
        phase = PLAY if s.phase == Phase.PLAY else TOKENS if s.phase == Phase.TOKENS else SETUP
        unused = [name for i, (name, _) in enumerate(m.equipment) if not s.used >> i & 1]
        f.update(det=s.detonator, stab_card=unused.count("estabilizador"), stab_on=int(bool(s.stabilized) and not s.pending),
                 comm=unused.count("comunicadores"),
                 duplo=(self.P - bin(s.duplo).count("1")) if m.detector_duplo else 0,
                 pending=int(bool(s.pending)), phase=phase,
                 tokens=self.P - s.seat if phase == TOKENS else self.P if phase == SETUP else 0,
                 cand=sum(1 for st in self.steps if st >= s.phase))
        return f

    # -- sums over kinds
    def tot(self, f, u) -> Any:
        return f[f"m{u}"] + f[f"o{u}"]

    def mine_all(self, f) -> Any:
        return Sum([f[f"m{u}"] for u in self.kinds])

    def mine_nonred(self, f) -> Any:
        return Sum([f[f"m{u}"] for u in self.nonred])

    def others_all(self, f) -> Any:
        return Sum([f[f"o{u}"] for u in self.kinds])

    def uncut(self, f) -> Any:
        return Sum([self.tot(f, u) for u in self.kinds])

    def of_kind(self, f, p, prefix: str) -> Any:
        """f[prefix + kind] for the kind parameter p (read at once when p is a plain value)."""
        if isinstance(p, int):
            return f[f"{prefix}{p}"] if 0 <= p < len(self.kinds) else 0
        return Sum([If(p == u, f[f"{prefix}{u}"], 0) for u in self.kinds])

    def others_red(self, f) -> Any:
        return f[f"o{self.red}"] if self.red is not None else 0

    def mine_red(self, f) -> Any:
        return f[f"m{self.red}"] if self.red is not None else 0

    def is_nonred(self, p) -> Any:
        if isinstance(p, int):
            return p in self.nonred
        return Or([p == u for u in self.nonred])

    # -- predicates
    def typing(self, f) -> Any:
        return And([f[n] >= 0 for n in self.state_vars])

    def init(self, f) -> Any:
        return And([And(f[f"m{u}"] == 0, f[f"o{u}"] == 0, f[f"l{u}"] == self.n[u]) for u in self.kinds],
                   f["det"] == 0, f["stab_card"] == self.stab0, f["stab_on"] == 0, f["comm"] == self.comm0,
                   f["duplo"] == self.duplo0, f["pending"] == 0, f["phase"] == SETUP, f["tokens"] == self.P,
                   f["cand"] == len(self.steps))

    def dual_available(self, f) -> Any:
        return And(self.mine_nonred(f) >= 1, self.others_all(f) >= 1)

    def some_action(self, f) -> Any:
        solos = [And(f[f"o{u}"] == 0, Or(f[f"m{u}"] == 2, f[f"m{u}"] == 4)) for u in self.nonred]
        reveal = And(self.mine_nonred(f) == 0, self.mine_red(f) >= 1)
        return If(f["stab_on"] == 1, self.dual_available(f), Or(self.dual_available(f), reveal, *solos))

    def invariant(self, f) -> Any:
        P = self.P
        dealing = f["phase"] == SETUP
        return And(
            Or(f["phase"] == SETUP, f["phase"] == TOKENS, f["phase"] == PLAY),
            [self.tot(f, u) + f[f"l{u}"] <= self.n[u] for u in self.kinds],
            f["cand"] <= len(self.steps), Implies(f["cand"] >= 1, And(dealing, [f[f"l{u}"] == self.n[u] for u in self.kinds])),
            Implies(dealing, And([self.tot(f, u) + f[f"l{u}"] == self.n[u] for u in self.kinds],
                                 f["tokens"] == P, f["det"] == 0)),
            Implies(Not(dealing), And([f[f"l{u}"] == 0 for u in self.kinds],
                                      [self.tot(f, u) % 2 == 0 for u in self.nonred])),
            Implies(f["phase"] == TOKENS, And(f["tokens"] >= 1, f["tokens"] <= P)),
            Implies(f["phase"] == PLAY, f["tokens"] == 0),
            Implies(f["phase"] != PLAY, And(f["pending"] == 0, f["stab_on"] == 0)),
            f["det"] < self.D, f["stab_card"] <= self.stab0, f["comm"] <= self.comm0, f["duplo"] <= self.duplo0,
            f["pending"] <= 1, f["stab_on"] <= 1, f["stab_on"] + f["stab_card"] <= self.stab0,
            Implies(f["pending"] == 1, f["stab_on"] == 0),
            Implies(And(f["phase"] == PLAY, f["pending"] == 0),
                    And(self.mine_all(f) >= 1, self.mine_all(f) <= self.cap, self.some_action(f))))

    # -- ranking functions
    def phi(self, f) -> Any:
        """Twice the turns left at most: non-red wires left count 1, reds 2, detonator steps 2,
        the Estabilizador 2 (unused or flipped)."""
        left = lambda u: self.tot(f, u) + f[f"l{u}"]  # noqa: E731
        return (Sum([left(u) for u in self.nonred]) + 2 * Sum([left(u) for u in self.kinds if u == self.red])
                + 2 * (self.D - f["det"]) + 2 * f["stab_card"] + 2 * f["stab_on"])

    def free_moves(self, f) -> Any:
        """What the moves that are no turn use up: deal, set-up tokens, cards, a pending pick."""
        return (Sum([f[f"l{u}"] for u in self.kinds]) + f["tokens"] + f["stab_card"] + f["comm"] + f["duplo"]
                + f["pending"] + f["cand"])

    def ranking(self, f) -> Any:
        return (self.free_max + 1) * self.phi(f) + self.free_moves(f)

    # -- the relations
    def _turn(self, f) -> Any:
        return And(f["phase"] == PLAY, f["pending"] == 0)

    def _end_turn(self, pre, post, cut: Callable[[int], Any] = lambda u: 0, det: Any = 0, duplo: Any = 0) -> Any:
        """The turn ends: wires cut, the next seat holding wires acts (any split of what is left)."""
        return And([self.tot(post, u) == self.tot(pre, u) - cut(u) for u in self.kinds],
                   [post[f"l{u}"] == pre[f"l{u}"] for u in self.kinds],
                   post["det"] == pre["det"] + det, post["stab_card"] == pre["stab_card"], post["stab_on"] == 0,
                   post["comm"] == pre["comm"], post["duplo"] == pre["duplo"] - duplo, post["pending"] == 0,
                   post["phase"] == PLAY, post["tokens"] == 0, post["cand"] == pre["cand"], self.mine_all(post) >= 1,
                   self.mine_all(post) <= self.cap)

    def _same_seat(self, pre, post, dm: Callable[[int], Any] = lambda u: 0,
                   do: Callable[[int], Any] = lambda u: 0, **scalars) -> Any:
        return And([And(post[f"m{u}"] == pre[f"m{u}"] + dm(u), post[f"o{u}"] == pre[f"o{u}"] + do(u),
                        post[f"l{u}"] == pre[f"l{u}"]) for u in self.kinds],
                   [post[n] == scalars.get(n, pre[n]) for n in self.scalars])

    def _named(self, pre) -> Any:
        """The active seat names kind k, a non-red kind it holds."""
        return And(self.is_nonred(pre["k"]), self.of_kind(pre, pre["k"], "m") >= 1)

    def _wrong(self, pre) -> Any:
        """Non-red wires of teammates that are not of the named kind."""
        return Sum([If(pre["k"] == u, 0, pre[f"o{u}"]) for u in self.nonred])

    def _start(self, post) -> Any:
        """Play starts: the captain's side (or the next seat with wires) acts."""
        return And(post["phase"] == PLAY, post["tokens"] == 0, [post[f"l{u}"] == 0 for u in self.kinds],
                   self.mine_all(post) >= 1, self.mine_all(post) <= self.cap)

    def turn_actions(self) -> list[Action]:
        """The moves that end (or settle) a turn; each lowers ``phi`` by 2 at least."""
        return [_gated(self._turn, a) for a in self._turn_actions()]

    def _turn_actions(self) -> list[Action]:
        K = {"k": self.kinds}
        red, D = self.red, self.D
        cut_k = lambda a, n: lambda u: If(a["k"] == u, n, 0)  # noqa: E731
        acts = [
            Action("dual cut succeeds", lambda a, b: _when(
                And(self._turn(a), self._named(a), self.of_kind(a, a["k"], "o") >= 1),
                lambda: self._end_turn(a, b, cut_k(a, 2))), K),
            Action("dual cut fails (the detonator advances)", lambda a, b: _when(
                And(self._turn(a), a["stab_on"] == 0, self._named(a), self._wrong(a) >= 1, a["det"] + 1 < D),
                lambda: self._end_turn(a, b, det=1)), K),
            Action("stabilized dual cut fails", lambda a, b: _when(
                And(self._turn(a), a["stab_on"] == 1, self._named(a), self._wrong(a) >= 1),
                lambda: self._end_turn(a, b)), K),
            Action("solo cut", lambda a, b: _when(
                And(self._turn(a), a["stab_on"] == 0, self.is_nonred(a["k"]), self.of_kind(a, a["k"], "o") == 0,
                    Or(self.of_kind(a, a["k"], "m") == 2, self.of_kind(a, a["k"], "m") == 4)),
                lambda: self._end_turn(a, b, lambda u: If(a["k"] == u, a[f"m{u}"], 0))), K),
        ]
        if red is not None:
            acts += [
                Action("stabilized red cut (B12)", lambda a, b: _when(
                    And(self._turn(a), a["stab_on"] == 1, self._named(a), a[f"o{red}"] >= 1),
                    lambda: self._end_turn(a, b, lambda u: 1 if u == red else 0)), K),
                Action("reveal red wires", lambda a, b: _when(
                    And(self._turn(a), a["stab_on"] == 0, self.mine_nonred(a) == 0, a[f"m{red}"] >= 1),
                    lambda: self._end_turn(a, b, lambda u: a[f"m{red}"] if u == red else 0))),
            ]
        if self.duplo0:
            missed = lambda a: a["det"] + 1 - a["stab_on"]  # noqa: E731 - fail() unless stabilized
            acts += [
                Action("detector duplo: one wire right", lambda a, b: _when(
                    And(self._turn(a), a["duplo"] >= 1, self._named(a), self.of_kind(a, a["k"], "o") >= 1),
                    lambda: self._end_turn(a, b, cut_k(a, 2), duplo=1)), K),
                Action("detector duplo: both right, the teammate picks one (B08)", lambda a, b: _when(
                    And(self._turn(a), a["duplo"] >= 1, self._named(a), self.of_kind(a, a["k"], "o") >= 2),
                    lambda: self._same_seat(a, b, lambda u: -_at(a["k"], u), lambda u: -_at(a["k"], u),
                                            duplo=a["duplo"] - 1, pending=1, stab_on=0)), K),
                Action("detector duplo: both wrong, the teammate places the token", lambda a, b: _when(
                    And(self._turn(a), a["duplo"] >= 1, self._named(a), self._wrong(a) >= 2, missed(a) < D),
                    lambda: self._same_seat(a, b, det=missed(a), duplo=a["duplo"] - 1, pending=1,
                                            stab_on=0)), K),
            ]
            if red is not None:
                acts += [
                    Action("detector duplo: both wrong, one red (B17)", lambda a, b: _when(
                        And(self._turn(a), a["duplo"] >= 1, self._named(a), self._wrong(a) >= 1,
                            a[f"o{red}"] >= 1, missed(a) < D),
                        lambda: self._end_turn(a, b, det=1 - a["stab_on"], duplo=1)), K),
                    Action("detector duplo: both red, stabilized (B12)", lambda a, b: _when(
                        And(self._turn(a), a["stab_on"] == 1, a["duplo"] >= 1, self._named(a), a[f"o{red}"] >= 2),
                        lambda: self._same_seat(a, b, do=lambda u: -1 if u == red else 0, duplo=a["duplo"] - 1,
                                                pending=1, stab_on=0)), K),
                ]
        return acts

    def free_actions(self) -> list[Action]:
        """The moves that are no turn: set-up, equipment, the teammate's pick."""
        gates = {"deal one wire": lambda f: f["phase"] == SETUP, "set-up info token (B09)": lambda f: f["phase"] == TOKENS,
                 "the candidates drawn or set aside": lambda f: f["phase"] == SETUP,
                 "the teammate's pick": lambda f: f["pending"] == 1}
        return [_gated(gates.get(a.name, self._turn), a) for a in self._free_actions()]

    def _free_actions(self) -> list[Action]:
        P = self.P
        acts = [
            Action("the candidates drawn or set aside", lambda a, b: _when(
                And(a["phase"] == SETUP, a["cand"] >= 1),
                lambda: And([b[n] == a[n] for n in self.state_vars if n != "cand"], b["cand"] == a["cand"] - 1))),
            Action("deal one wire", lambda a, b: _when(
                And(a["phase"] == SETUP, a["cand"] == 0, self.of_kind(a, a["k"], "l") >= 1),
                lambda: And([b[f"l{u}"] == a[f"l{u}"] - _at(a["k"], u) for u in self.kinds],
                            [self.tot(b, u) == self.tot(a, u) + _at(a["k"], u) for u in self.kinds],
                            [b[n] == a[n] for n in ("det", "stab_card", "stab_on", "comm", "duplo", "pending", "cand")],
                            Or(And(b["phase"] == SETUP, b["tokens"] == P),
                               And(b["phase"] == TOKENS, b["tokens"] >= 1, b["tokens"] <= P,
                                   [b[f"l{u}"] == 0 for u in self.kinds]),
                               self._start(b)))), {"k": self.kinds}),
            Action("set-up info token (B09)", lambda a, b: _when(
                a["phase"] == TOKENS,
                lambda: And([self.tot(b, u) == self.tot(a, u) for u in self.kinds],
                            [b[f"l{u}"] == a[f"l{u}"] for u in self.kinds],
                            [b[n] == a[n] for n in ("det", "stab_card", "stab_on", "comm", "duplo", "pending", "cand")],
                            Or(And(b["phase"] == TOKENS, b["tokens"] >= 1, b["tokens"] < a["tokens"]),
                               self._start(b))))),
            Action("flip the estabilizador", lambda a, b: _when(
                And(self._turn(a), a["stab_card"] >= 1, a["stab_on"] == 0, self.dual_available(a)),
                lambda: self._same_seat(a, b, stab_card=a["stab_card"] - 1, stab_on=1))),
            Action("comunicadores swap", lambda a, b: _when(
                And(self._turn(a), a["stab_on"] == 0, a["comm"] >= 1, Or([a["a"] == u for u in self.kinds]),
                    Or([a["b"] == u for u in self.kinds]), self.of_kind(a, a["a"], "m") >= 1,
                    self.of_kind(a, a["b"], "o") >= 1),
                lambda: self._same_seat(a, b, lambda u: _at(a["b"], u) - _at(a["a"], u),
                                        lambda u: _at(a["a"], u) - _at(a["b"], u), comm=a["comm"] - 1)),
                {"a": self.kinds, "b": self.kinds}),
        ]
        if self.duplo0:
            acts.append(Action("the teammate's pick", lambda a, b: _when(
                And(a["phase"] == PLAY, a["pending"] == 1), lambda: self._end_turn(a, b))))
        return acts

    def exits(self) -> list[Exit]:
        red = self.red

        def explodes(f):
            hit_red = And(self.mine_nonred(f) >= 1, f[f"o{red}"] >= 1) if red is not None else False
            return And(self._turn(f), f["stab_on"] == 0, Or(hit_red, f["det"] + 1 == self.D))

        def defused(f):
            left = self.uncut(f)
            last = Or(And(left == 2, Or([And(f[f"m{u}"] >= 1, f[f"o{u}"] >= 1) for u in self.nonred])),
                      And(f["stab_on"] == 0, Or(left == 2, left == 4),
                          Or([f[f"m{u}"] == left for u in self.nonred])),
                      And(f["stab_on"] == 0, left >= 1, self.mine_red(f) == left))
            return And(f["phase"] == PLAY, Or(And(f["pending"] == 1, left == 0), And(f["pending"] == 0, last)))
        def everyone(end, value: int) -> bool:
            return end.get("won") == value and all(end.get(f"r{s}") == value for s in range(self.P))
        return [Exit("the bomb explodes", lambda f, end: And(explodes(f), everyone(end, 0))),
                Exit("the bomb is defused (every wire cut)", lambda f, end: And(defused(f), everyone(end, 1)))]

    def bind(self, read: _Reader) -> Callable[[State, Any, int], Bound]:
        """The turn action the rules make of a move: its outcome read off the state before (the
        pointed wire's kind, the Estabilizador), the exits by the end the table's effect gives."""
        red = self.red if self.red is not None else -2
        names = {"set-up info token (B09)": "set-up info token (B09)", "reveal red wires": "reveal red wires",
                 "flip the estabilizador": "flip the estabilizador", "the teammate's pick": "the teammate's pick"}

        def bind(s: State, move: Any, actor: int) -> Bound:
            x = read(s, move, actor)
            fam, end = x["family"], x["end"]
            if end == EXPLODES:
                return Bound("the bomb explodes")
            if end == DEFUSED:
                return Bound("the bomb is defused (every wire cut)")
            if fam.startswith("draw") or fam == "set candidates aside":
                return Bound("the candidates drawn or set aside")
            if fam == "deal a wire":
                return Bound("deal one wire", {"k": x["u"]})
            if fam in names:
                return Bound(names[fam])
            if fam == "dual cut":
                if x["w"] == x["u"]:
                    name = "dual cut succeeds"
                elif x["stab"]:
                    name = "stabilized red cut (B12)" if x["w"] == red else "stabilized dual cut fails"
                else:
                    name = "dual cut fails (the detonator advances)"
                return Bound(name, {"k": x["u"]})
            if fam == "solo cut":
                return Bound("solo cut", {"k": x["u"]})
            if fam == "comunicadores swap":
                return Bound("comunicadores swap", {"a": x["a"], "b": x["b"]})
            if fam == "detector duplo":
                hits, reds = x["hits"], x["reds"]
                name = ("detector duplo: one wire right" if hits == 1 else
                        "detector duplo: both right, the teammate picks one (B08)" if hits == 2 else
                        "detector duplo: both red, stabilized (B12)" if reds == 2 else
                        "detector duplo: both wrong, one red (B17)" if reds == 1 else
                        "detector duplo: both wrong, the teammate places the token")
                return Bound(name, {"k": x["u"]})
            return Bound(f"a move the rules do not list ({move!r})")
        return bind

    def chance(self, f) -> dict[Bound, Fraction]:
        """The rules' laws at the turn frame's level: a draw or the set-aside choice changes no
        count; the next wire dealt is of kind u with probability l<u> / (wires left); B09's random
        token is one move."""
        if f["cand"] >= 1:
            return {Bound("the candidates drawn or set aside"): Fraction(1)}
        if f["phase"] == SETUP:
            total = sum(f[f"l{u}"] for u in self.kinds)
            return {Bound("deal one wire", {"k": u}): Fraction(f[f"l{u}"], total) for u in self.kinds if f[f"l{u}"]}
        return {Bound("set-up info token (B09)"): Fraction(1)}

    def ending(self, game) -> Callable[[State], dict[str, int]]:
        def ending(s: State) -> dict[str, int]:
            out = {f"r{i}": int(r) if r in (0, 1) else -1 for i, r in enumerate(game.returns(s))}
            out["won"] = int(s.phase == Phase.WON)
            return out
        return ending




def turn_proofs(m: Mission, census: _Census, read: _Reader, game) -> list[RuleProof]:
    tm = TurnModel(m, census)
    turns, free = tm.turn_actions(), tm.free_actions()
    # the set-up moves first: most transitions are deals
    setup = [a for a in free if a.name in ("the candidates drawn or set aside", "deal one wire", "set-up info token (B09)")]
    ordered = setup + turns + [a for a in free if a not in setup]
    doc = ("per kind u (" + ", ".join(tm.labels[:3]) + (", ..." if len(tm.labels) > 3 else "") + "): m<u>/o<u> = "
           "uncut wires of the active seat / of its teammates, l<u> = in play but not dealt yet; det = the "
           "detonator, stab_card/comm = unused Estabilizador/Comunicadores cards, stab_on = flipped for this "
           "cut, duplo = unused Detector Duplos, pending = a teammate's pick is due (its outcome already "
           "counted as cut), phase = set-up/tokens/play, tokens = seats still to place a set-up token, cand = "
           "candidate draws still to make; a won or lost game is outside the frame (its exits read who won)")
    common = dict(frame=tm.frame, abstraction_doc=doc, abstraction=_memo(tm.of), init=tm.init,
                  invariant=_remembered(tm.invariant), actions=ordered, exits=tm.exits(),
                  assumptions=_remembered(tm.typing), bind=tm.bind(read), chance=tm.chance,
                  ending=tm.ending(game),
                  sentence=("seeds/004 'O Turno de Jogo' ('o especialista ativo deve realizar uma das 3 ações'), "
                            "Corte Duplo (wrong: 'o detonador avança uma casa'), Corte Solo ('2 OU 4'), Revelar, "
                            "Estabilizador, Detector Duplo (B08 B12 B17), Fim de Jogo ('quando todos ... não "
                            "tiverem mais fios'; 'se um fio vermelho for cortado ou se o detonador atingir a caveira')"))
    bound = termination_bound(m)
    hand = f"hands of at most {tm.cap}"
    return [
        RuleProof("deadlock-freedom",
                  f"the active seat always holds wires ({hand}) and has a dual cut, a solo cut or the red "
                  "reveal; under the Estabilizador, a dual cut", **common),
        RuleProof("termination",
                  f"every move lowers {tm.free_max + 1} x (twice the turns left) + (draws, deal, tokens, cards and "
                  "picks left): every play ends", ranking=tm.ranking,
                  decreasing=tuple(a.name for a in turns + free), **common),
        RuleProof("termination-bound",
                  f"every turn lowers twice the turns left (non-red wires + 2 x reds + 2 x detonator steps "
                  f"+ 2 x Estabilizador) by 2, and no other move raises it (the termination ranking): every "
                  f"game ends within {bound} turns", ranking=tm.phi,
                  decreasing=tuple(a.name for a in turns), decrease=2, **common),
    ]


def kind_labels(m: Mission) -> list[str]:
    """The kinds of wire in play, in the turn frame's order: blue 1..V, yellow, red."""
    return ([f"blue {v}" for v in range(1, m.blue_values + 1)] + (["yellow"] if m.yellow_in_play else [])
            + (["red"] if m.red_in_play else []))


def bomb_busters_proofs(ruleset, game, tm: TableModel | None = None) -> list[RuleProof]:
    """The proofs ``verify`` runs for a ruleset, on the game built from it."""
    m = game.mission
    tm = tm or make_table(m)
    table = table_proof(game, tm)
    census = _Census(tm)
    read = _Reader(tm, kind_labels(m))
    return [table] + _kind_proofs(m, census, read) + turn_proofs(m, census, read, game)


# ---- the game's properties -------------------------------------------------------------------------------

#: the companion missions verify explores beside every ruleset (``derived``)
TINY = "bomb-busters-tiny"
#: a companion mission with four copies of one value: 2 experts, blue 1 four times, '1 de 2' red,
#: the extra wire on the teammate's last rack (B11 last-racks, ``FOUR_RULINGS``): the captain can
#: point a Detector Duplo at two right wires, and the teammate's pick (B08) is due (1,403 states)
FOUR_OVERRIDES = {
    "players": 2, "blue_values": 1, "blue_copies": 4, "red_in_play": 1, "red_drawn": 2, "red_values": [1, 2],
    "yellow_in_play": 0, "yellow_drawn": 0, "yellow_values": [], "detonator": 2,
    "equipment": ["estabilizador@1", "comunicadores@1"], "detector_duplo": True,
}

FOUR_RULINGS = {"B11": "last-racks"}

#: a companion mission with three experts (1,678 states): the captain's two racks and one each, blue 1-2
#: twice, red 1.5, the Estabilizador on 1, Detector Duplo -- where the seat after the next is not the
#: one before (clockwise order, B06's skip, the teammate's pick and the set-up tokens of three seats);
#: the extra wire on the last seat's rack (B11 last-racks, ``THREE_RULINGS``), so the captain's first
#: Detector Duplo can miss on one red and one blue wire with the detonator short of the skull (B17)
THREE_OVERRIDES = {
    "players": 3, "blue_values": 2, "blue_copies": 2, "red_in_play": 1, "red_drawn": 1, "red_values": [1],
    "yellow_in_play": 0, "yellow_drawn": 0, "yellow_values": [], "detonator": 2,
    "equipment": ["estabilizador@1"], "detector_duplo": True,
}
THREE_RULINGS = {"B11": "last-racks"}

#: a companion mission where the Estabilizador meets a wrong blue or yellow wire (1,261 states): 2
#: experts, blue 1 four times, two yellow wires, the Estabilizador on 1 (unlocked by the first two
#: 1s cut, B07), no red, the skull at the first failure -- in the other missions every wrong cut
#: left once it is unlocked is on the red wire (B12), so "the detonator does not advance" shows only
#: here (a stabilized miss that moved it would end the game); the set-up tokens fall at random
#: (B09 random, ``STABILIZER_RULINGS``: every other small mission plays B09 choice), so the table's
#: law of the random token is checked on every verify
STABILIZER_OVERRIDES = {
    "players": 2, "blue_values": 1, "blue_copies": 4, "red_in_play": 0, "red_drawn": 0, "red_values": [],
    "yellow_in_play": 2, "yellow_drawn": 2, "yellow_values": [1, 2], "detonator": 1,
    "equipment": ["estabilizador@1"], "detector_duplo": False,
}
STABILIZER_RULINGS = {"B09": "random"}

#: a companion mission where the red candidate is drawn at random among the eleven tiles (step 5.2;
#: 1,233 states): every other mission fixes its red and yellow values, so the draw's law was only
#: sampled at full size. 2 experts, blue 1 four times, '1 de 1' red, no equipment
DRAW_OVERRIDES = {
    "players": 2, "blue_values": 1, "blue_copies": 4, "red_in_play": 1, "red_drawn": 1, "red_values": [],
    "yellow_in_play": 0, "yellow_drawn": 0, "yellow_values": [], "detonator": 1,
    "equipment": [], "detector_duplo": False,
}

INFORMATION = ("seeds/004 'Comunicação': 'É Proibido: Falar sobre os fios que estão na sua mão'; step 7 (each "
               "rack faces its owner); Corte Duplo (a wrong cut's info token in the open); Comunicadores ('Todos "
               "veem de onde os fios foram retirados'); step 5.3 (the set-aside tile 'sem revelá-la')")


def properties(ruleset, game) -> list:
    """Bomb Busters' properties: the rule proofs, what each seat may know, the policies, the
    deduction engine against the brute force, and the longest play against the proved bound."""
    from ruleproof.model.bomb_busters import checks
    from ruleproof.proofs.information import information_property
    from ruleproof.proofs.refinement import proof_property

    tm = make_table(game.mission)
    proofs = bomb_busters_proofs(ruleset, game, tm)
    view = _view_of(tm)
    out = [proof_property(p) for p in proofs]
    out.append(information_property(
        "hidden-information", INFORMATION, view,
        "each seat sees its own wires, every cut wire, info token and exclusion, the rack sizes, the public "
        "facts and counts, never a teammate's uncut wire nor which candidates were set aside"))
    out.append(checks.policy_property(view, INFORMATION))
    out.append(checks.deduction_property(_view_of(tm, "wires_view")))
    out.append(checks.turn_bound_property(termination_bound(game.mission)))
    return out


def _view_of(tm: TableModel, part: str = "view") -> Callable[[State, int], Any]:
    """The rules' view of a state for a seat (``TableModel.view``, or its ``wires_view``),
    remembered per state."""
    read = getattr(tm, part)
    seen: dict = {}

    def view(s: State, seat: int):
        key = (s, seat)
        got = seen.get(key)
        if got is None:
            if len(seen) > 400_000:
                seen.clear()
            f = tm.of(s)
            got = seen[key] = None if f is None else read(f, seat)
        return got
    return view


def derived(ruleset) -> list:
    """Smaller missions that keep the ruleset's edit (when it is too big to explore), and the
    companions explored beside every ruleset: the tiny mission, a yellow '2 de 3' one, one with
    four copies of a value (where "the last of the value", 3 left (B03), B07, B10 and the teammate's
    pick (B08) can show), one with three experts (where the turn's direction and B17 show), one
    where the Estabilizador meets a wrong blue or yellow wire, and one whose red candidate is drawn
    at random among the eleven tiles (the others fix their values)."""
    from ruleproof.model.bomb_busters.shrink import shrink
    from ruleproof.model.properties import Derived
    out = [Derived(label, rs) for label, rs in shrink(ruleset)]
    for label, rs in companions():
        if not _same_mission(rs, ruleset) and not any(_same_mission(rs, d.ruleset) for d in out):
            out.append(Derived(label, rs, always=True))
    return out


def companions() -> list[tuple[str, Any]]:
    """The companion missions as rulesets, with their labels (``derived``)."""
    from ruleproof.model.bomb_busters import SPEC, YELLOW_OVERRIDES
    parts = [("companion: yellow '2 de 3'", YELLOW_OVERRIDES, {}),
             ("companion: four copies", FOUR_OVERRIDES, FOUR_RULINGS),
             ("companion: three experts", THREE_OVERRIDES, THREE_RULINGS),
             ("companion: the Estabilizador", STABILIZER_OVERRIDES, STABILIZER_RULINGS),
             ("companion: the red candidate drawn", DRAW_OVERRIDES, {})]
    return [("companion: bomb-busters-tiny", SPEC.ruleset(TINY))] + [
        (label, SPEC.default().with_overrides(params, rulings, spec=SPEC.schema, source=label))
        for label, params, rulings in parts]


def _same_mission(a, b) -> bool:
    return a.params == b.params and a.rulings == b.rulings
