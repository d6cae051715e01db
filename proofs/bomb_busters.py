"""Z3 proofs for Bomb Busters, bound to ``model.bomb_busters`` by refinement mappings.

Two abstract models, each a frame read off the real state (``_Census``) with one relation per
real move, written once with ``proofs.logic`` so that Z3 proves them and the refinement check
(``proofs.refinement``) matches every explored or sampled transition against them:

* the **kind frame** (one kind of wire: a blue value, yellow, or red): uncut wires of that kind in
  each seat's hand, cut, still to deal, set aside, shown at set-up (and, for blue, the validation
  token). Relations: draw, set aside, deal, dual cut (also the Detector Duplo's and the teammate's
  pick), solo cut, Comunicadores swap, stabilized red cut (B12), red reveal. Proofs: wire
  conservation, cut parity, three-never-left (B03), validation-at-all-copies. The blue proofs are
  projected: one frame per value, each checked on its own.
* the **turn frame** (the whole table from the active seat's side): per kind the active seat's
  uncut wires, the teammates', the undealt; the detonator, unused equipment, the flipped
  Estabilizador, a pending pick. A pending Detector Duplo pick is mapped to its outcome (the two
  right wires, or the red one under the Estabilizador, count as cut), so that a turn is one abstract
  step. Relations: one per way a turn can go, plus the set-up steps and the free actions; the game
  leaves the frame by the exits "defused" and "explodes". Proofs: deadlock-freedom (the active seat
  always has a dual cut, a solo cut or the reveal), termination (a ranking every move lowers) and
  the termination bound (a ranking every turn lowers by 2: at most ``termination_bound`` turns).

Seats and kinds an action acts on are its ``params`` (existential inputs with finite ranges).
Relations test their guard first and stop early on plain values (``_when``), which keeps the
refinement check fast at full size; on Z3 terms they build the whole formula.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable

import z3

from ruleproof.model.bomb_busters import rules as R
from ruleproof.model.bomb_busters import state as S
from ruleproof.model.bomb_busters import tiles as T
from ruleproof.model.bomb_busters.mission import Mission
from ruleproof.model.bomb_busters.state import Phase, State
from ruleproof.proofs.harness import Action
from ruleproof.proofs.logic import And, If, Implies, Not, Or, Sum
from ruleproof.proofs.refinement import Exit, RuleProof


# ---- the census: counts read off a real state -------------------------------------------------------

def kind_of(tile: int) -> str:
    c = T.colour(tile)
    return f"blue {T.value(tile)}" if c == T.Colour.BLUE else "yellow" if c == T.Colour.YELLOW else "red"


class _Census:
    """Per kind: uncut wires per seat, cut, dealt, set aside, shown; cached per state (one census
    serves every proof of a mission, so each state is counted once)."""

    def __init__(self, m: Mission):
        self.m = m
        self.cache: dict[State, tuple] = {}
        self.labels: dict[int, str] = {}
        #: models and abstractions shared by the proofs of one mission
        self.shared: dict[tuple, Any] = {}

    def __call__(self, s: State):
        got = self.cache.get(s)
        if got is None:
            if len(self.cache) > 200_000:
                self.cache.clear()
            got = self.cache[s] = self._count(s)
        return got

    def _label(self, code: int) -> str:
        got = self.labels.get(code)
        if got is None:
            got = self.labels[code] = kind_of(code)
        return got

    def _count(self, s: State):
        m = self.m
        hands: list[dict[str, int]] = [{} for _ in range(m.players)]
        cut: dict[str, int] = {}
        dealt: dict[str, int] = {}
        for r, rack in enumerate(s.racks):
            hand = hands[m.rack_owner[r]]
            for w in rack:
                k = self._label(w & S.CODE_MASK)
                dealt[k] = dealt.get(k, 0) + 1
                if w & S.CUT_BIT:
                    cut[k] = cut.get(k, 0) + 1
                else:
                    hand[k] = hand.get(k, 0) + 1
        aside = Counter(self._label(t) for t in s.aside)
        shown = {f"blue {v}": m.blue_copies for v in range(1, m.blue_values + 1)}
        shown["yellow"], shown["red"] = len(s.yellows), len(s.reds)
        return hands, cut, dealt, aside, shown


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

class KindModel:
    """One kind of wire: ``n`` in play of ``shown`` candidates (``aside`` set aside), ``P`` seats."""

    def __init__(self, m: Mission, label: str):
        self.m, self.label, self.P = m, label, m.players
        if label == "yellow":
            self.shown, self.aside, random = m.yellow_drawn, m.yellow_drawn - m.yellow_in_play, not m.yellow_values
        elif label == "red":
            self.shown, self.aside, random = m.red_drawn, m.red_drawn - m.red_in_play, not m.red_values
        else:
            self.shown, self.aside, random = m.blue_copies, 0, False
        self.n = self.shown - self.aside
        self.blue = label.startswith("blue")
        self.red = label == "red"
        self.drawn_at_setup = random and self.shown > 0
        self.hands = [f"h{i}" for i in range(self.P)]
        self.state_vars = self.hands + ["cut", "deck", "aside", "shown"] + (["validated"] if self.blue else [])

    def frame(self, sfx: str) -> dict[str, z3.ExprRef]:
        f = {n: z3.Int(n + sfx) for n in self.state_vars if n != "validated"}
        if self.blue:
            f["validated"] = z3.Bool("validated" + sfx)
        f.update({p: z3.Int(p + sfx) for p in ("i", "j", "g", "t")})   # action inputs
        return f

    def of(self, census: _Census, s: State, label: str) -> dict[str, Any]:
        hands, cut, dealt, aside, shown = census(s)
        f = {f"h{i}": hands[i].get(label, 0) for i in range(self.P)}
        f.update(cut=cut.get(label, 0), aside=aside[label], shown=shown[label],
                 deck=shown[label] - aside[label] - dealt.get(label, 0))
        if self.blue:
            f["validated"] = bool(s.validated >> (int(label.split()[1]) - 1) & 1)
        return f

    # -- predicates
    def uncut(self, f) -> Any:
        return Sum([f[h] for h in self.hands])

    def typing(self, f) -> Any:
        return And([f[n] >= 0 for n in self.state_vars if n != "validated"])

    def init(self, f) -> Any:
        return And([f[h] == 0 for h in self.hands], f["cut"] == 0, f["aside"] == 0,
                   Or(f["shown"] == 0, f["shown"] == self.shown), f["deck"] == f["shown"],
                   Not(f["validated"]) if self.blue else True)

    def conservation(self, f) -> Any:
        return And(self.uncut(f) + f["cut"] + f["deck"] + f["aside"] == f["shown"],
                   Or(f["shown"] == 0, f["shown"] == self.shown), Or(f["aside"] == 0, f["aside"] == self.aside),
                   Implies(self.uncut(f) + f["cut"] > 0, f["aside"] == self.aside))

    def dealt_out(self, f) -> Any:
        """The deal is over for this kind: every wire in play is in a hand or cut."""
        return And(f["shown"] == self.shown, f["deck"] == 0)

    def parity(self, f) -> Any:
        return And(f["cut"] % 2 == 0, Implies(self.dealt_out(f), self.uncut(f) % 2 == 0))

    # -- the relations
    def _step(self, pre, post, **changes) -> Any:
        eqs = [post[n] == changes.get(n, pre[n]) for n in self.state_vars if n != "validated"]
        if self.blue:   # the token goes down when the last copy is cut (model: rules.cut)
            eqs.append(post["validated"] == Or(pre["validated"], post["cut"] == self.shown))
        return And(eqs)

    def _seat(self, p) -> Any:
        return And(p >= 0, p < self.P)

    def _hands_minus(self, pre, delta: Callable[[int], Any]) -> dict[str, Any]:
        return {f"h{u}": pre[f"h{u}"] - delta(u) for u in range(self.P)}

    def actions(self) -> list[Action]:
        P = self.P
        seats = {"i": range(P), "j": range(P)}
        acts = []
        if self.drawn_at_setup:
            acts.append(Action("draw the candidates", lambda a, b: _when(
                And(a["shown"] == 0, self.uncut(a) == 0, a["cut"] == 0, a["deck"] == 0, a["aside"] == 0),
                lambda: self._step(a, b, shown=self.shown, deck=self.shown))))
        if self.aside:
            acts.append(Action("set candidates aside", lambda a, b: _when(
                And(a["shown"] == self.shown, a["aside"] == 0, a["deck"] == self.shown, self.uncut(a) == 0),
                lambda: self._step(a, b, aside=self.aside, deck=self.shown - self.aside))))
        acts.append(Action("deal one wire", lambda a, b: _when(
            And(self._seat(a["i"]), a["shown"] == self.shown, a["aside"] == self.aside, a["deck"] >= 1),
            lambda: self._step(a, b, deck=a["deck"] - 1, **self._hands_minus(a, lambda u: -_at(a["i"], u)))),
            {"i": range(P)}))
        played = lambda a: self.dealt_out(a)  # noqa: E731 - play starts once the deal is over
        if not self.red:
            acts.append(Action("dual cut succeeds (one wire of the active seat, one of a teammate)",
                               lambda a, b: _when(
                And(self._seat(a["i"]), self._seat(a["j"]), a["i"] != a["j"], played(a),
                    Sum([If(a["i"] == u, a[f"h{u}"], 0) for u in range(P)]) >= 1,
                    Sum([If(a["j"] == u, a[f"h{u}"], 0) for u in range(P)]) >= 1),
                lambda: self._step(a, b, cut=a["cut"] + 2,
                                   **self._hands_minus(a, lambda u: _at(a["i"], u) + _at(a["j"], u)))), seats))
            acts.append(Action("solo cut (the last 2 or 4, all in one hand)", lambda a, b: _when(
                And(self._seat(a["i"]), played(a),
                    Or([And(a["i"] == u, Or(a[f"h{u}"] == 2, a[f"h{u}"] == 4), self.uncut(a) == a[f"h{u}"])
                        for u in range(P)])),
                lambda: self._step(a, b, cut=a["cut"] + self.uncut(a),
                                   **self._hands_minus(a, lambda u: If(a["i"] == u, a[f"h{u}"], 0)))),
                {"i": range(P)}))
        else:
            acts.append(Action("stabilized red cut (B12): a teammate's red wire", lambda a, b: _when(
                And(self._seat(a["j"]), played(a), Sum([If(a["j"] == u, a[f"h{u}"], 0) for u in range(P)]) >= 1),
                lambda: self._step(a, b, cut=a["cut"] + 1, **self._hands_minus(a, lambda u: _at(a["j"], u)))),
                {"j": range(P)}))
            acts.append(Action("reveal the red wires of one hand", lambda a, b: _when(
                And(self._seat(a["i"]), played(a), Sum([If(a["i"] == u, a[f"h{u}"], 0) for u in range(P)]) >= 1),
                lambda: self._step(a, b, cut=a["cut"] + Sum([If(a["i"] == u, a[f"h{u}"], 0) for u in range(P)]),
                                   **self._hands_minus(a, lambda u: If(a["i"] == u, a[f"h{u}"], 0)))),
                {"i": range(P)}))
        acts.append(Action("comunicadores swap (at most one wire of the kind each way)", lambda a, b: _when(
            And(self._seat(a["i"]), self._seat(a["j"]), a["i"] != a["j"], played(a),
                Or(a["g"] == 0, a["g"] == 1), Or(a["t"] == 0, a["t"] == 1),
                Sum([If(a["i"] == u, a[f"h{u}"], 0) for u in range(P)]) >= a["g"],
                Sum([If(a["j"] == u, a[f"h{u}"], 0) for u in range(P)]) >= a["t"]),
            lambda: self._step(a, b, **self._hands_minus(
                a, lambda u: If(a["i"] == u, a["g"] - a["t"], 0) + If(a["j"] == u, a["t"] - a["g"], 0)))),
            {"i": range(P), "j": range(P), "g": (0, 1), "t": (0, 1)}))
        return acts


def _kind_proof(m: Mission, census: _Census, labels: list[str], name: str, claim: str,
                invariant: Callable[[KindModel], Callable]) -> RuleProof:
    km, actions, abstraction = _kind_model(m, census, tuple(labels))
    return RuleProof(name, claim, km.frame, _kind_doc(km, labels), abstraction, km.init, invariant(km), actions,
                     assumptions=km.typing, projected=len(labels) > 1 or km.blue)


def _kind_doc(km: KindModel, labels: list[str]) -> str:
    return (f"one frame per kind ({', '.join(labels[:3])}{', ...' if len(labels) > 3 else ''}): h<seat> = "
            "uncut wires of the kind in that seat's hand (all its racks), cut, deck = shown - set aside - "
            "dealt, aside, shown = candidates on the table" + (", validated = its validation token" if km.blue else ""))


def _kind_model(m: Mission, census: _Census, labels: tuple[str, ...]):
    """The model, its actions and its abstraction for one group of kinds, shared by the proofs of
    the group (so that their verdicts on real steps are computed once)."""
    key = ("kinds", labels)
    if key not in census.shared:
        km = KindModel(m, labels[0])
        actions = [_gated(lambda f: True, a) for a in km.actions()]
        if len(labels) > 1 or km.blue:
            abstraction = _memo(lambda s: {lab: km.of(census, s, lab) for lab in labels})
        else:
            abstraction = _memo(lambda s: km.of(census, s, labels[0]))
        census.shared[key] = (km, actions, abstraction)
    return census.shared[key]


def kind_proofs(m: Mission, census: _Census | None = None) -> list[RuleProof]:
    census = census or _Census(m)
    blues = [f"blue {v}" for v in range(1, m.blue_values + 1)]
    K = m.blue_copies
    out = [_kind_proof(m, census, blues, "wire-conservation (blue)",
                       f"for every blue value: uncut + cut + undealt = {K}, in every state",
                       lambda km: km.conservation)]
    for label, drawn, n in (("yellow", m.yellow_drawn, m.yellow_in_play), ("red", m.red_drawn, m.red_in_play)):
        if drawn:
            out.append(_kind_proof(m, census, [label], f"wire-conservation ({label})",
                                   f"{label}: uncut + cut + undealt + set aside = the {drawn} shown; "
                                   f"once dealt, {n} in play and {drawn - n} set aside for good",
                                   lambda km: km.conservation))
    out.append(_kind_proof(m, census, blues, "cut-parity (blue)",
                           f"cut wires of each blue value are even, and so are the uncut ones after the deal",
                           lambda km: lambda f: And(km.conservation(f), km.parity(f))))
    if m.yellow_in_play:
        out.append(_kind_proof(m, census, ["yellow"], "cut-parity (yellow)",
                               f"cut yellow wires are even, and so are the uncut ones after the deal",
                               lambda km: lambda f: And(km.conservation(f), km.parity(f))))
    out.append(_kind_proof(
        m, census, blues, "three-never-left (B03)",
        f"after the deal, 3 uncut wires of a blue value never remain, so a solo cut never faces 3 (B03)",
        lambda km: lambda f: And(km.conservation(f), km.parity(f),
                                 Implies(km.dealt_out(f), km.uncut(f) != 3))))
    out.append(_kind_proof(
        m, census, blues, "validation-at-all-copies",
        f"a blue value's validation token is down exactly when all {K} of its wires are cut",
        lambda km: lambda f: And(km.conservation(f), f["validated"] == (f["cut"] == K))))
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

    def __init__(self, m: Mission, census: _Census | None = None):
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
        sizes = m.sizes()
        self.cap = max(sum(n for n, o in zip(sizes, m.rack_owner) if o == seat) for seat in range(m.players))
        self.scalars = ["det", "stab_card", "stab_on", "comm", "duplo", "pending", "phase", "tokens"]
        self.state_vars = [f"{c}{u}" for u in self.kinds for c in "mol"] + self.scalars
        # the weight that makes a turn outweigh every free move in the termination ranking
        self.free_max = sum(self.n) + self.P + self.stab0 + self.comm0 + self.duplo0 + 1
        self.census = census or _Census(m)

    def frame(self, sfx: str) -> dict[str, z3.ExprRef]:
        f = {n: z3.Int(n + sfx) for n in self.state_vars}
        f.update({p: z3.Int(p + sfx) for p in ("k", "a", "b")})   # action inputs: kinds
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
            if kind == R.PICK_CUT:
                label = "yellow" if named == T.YELLOW else kind_of(named)
                mine[label] -= 1
                others[label] -= 1
            elif kind == R.PICK_RED:
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
                 tokens=self.P - s.seat if phase == TOKENS else self.P if phase == SETUP else 0)
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
                   f["duplo"] == self.duplo0, f["pending"] == 0, f["phase"] == SETUP, f["tokens"] == self.P)

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
                + f["pending"])

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
                   post["phase"] == PLAY, post["tokens"] == 0, self.mine_all(post) >= 1,
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
                 "the teammate's pick": lambda f: f["pending"] == 1}
        return [_gated(gates.get(a.name, self._turn), a) for a in self._free_actions()]

    def _free_actions(self) -> list[Action]:
        P = self.P
        acts = [
            Action("deal one wire", lambda a, b: _when(
                a["phase"] == SETUP,
                lambda: And(Sum([a[f"l{u}"] - b[f"l{u}"] for u in self.kinds]) == 1,
                            [Or(b[f"l{u}"] == a[f"l{u}"], b[f"l{u}"] == a[f"l{u}"] - 1) for u in self.kinds],
                            [self.tot(b, u) == self.tot(a, u) + a[f"l{u}"] - b[f"l{u}"] for u in self.kinds],
                            [b[n] == a[n] for n in ("det", "stab_card", "stab_on", "comm", "duplo", "pending")],
                            Or(And(b["phase"] == SETUP, b["tokens"] == P),
                               And(b["phase"] == TOKENS, b["tokens"] >= 1, b["tokens"] <= P,
                                   [b[f"l{u}"] == 0 for u in self.kinds]),
                               self._start(b))))),
            Action("set-up info token (B09)", lambda a, b: _when(
                a["phase"] == TOKENS,
                lambda: And([self.tot(b, u) == self.tot(a, u) for u in self.kinds],
                            [b[f"l{u}"] == a[f"l{u}"] for u in self.kinds],
                            [b[n] == a[n] for n in ("det", "stab_card", "stab_on", "comm", "duplo", "pending")],
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
        return [Exit("the bomb explodes", lambda f, _end: explodes(f)),
                Exit("the bomb is defused (every wire cut)", lambda f, _end: defused(f))]


def turn_proofs(m: Mission, census: _Census | None = None) -> list[RuleProof]:
    tm = TurnModel(m, census)
    turns, free = tm.turn_actions(), tm.free_actions()
    # the set-up moves first: most transitions are deals, and the matcher takes the first that fits
    setup = [a for a in free if a.name in ("deal one wire", "set-up info token (B09)")]
    ordered = setup + turns + [a for a in free if a not in setup]
    doc = ("per kind u (" + ", ".join(tm.labels[:3]) + (", ..." if len(tm.labels) > 3 else "") + "): m<u>/o<u> = "
           "uncut wires of the active seat / of its teammates, l<u> = in play but not dealt yet; det = the "
           "detonator, stab_card/comm = unused Estabilizador/Comunicadores cards, stab_on = flipped for this "
           "cut, duplo = unused Detector Duplos, pending = a teammate's pick is due (its outcome already "
           "counted as cut), phase = set-up/tokens/play, tokens = seats still to place a set-up token; a "
           "won or lost game is outside the frame")
    common = dict(frame=tm.frame, abstraction_doc=doc, abstraction=_memo(tm.of), init=tm.init,
                  invariant=_remembered(tm.invariant),
                  actions=ordered, exits=tm.exits(), assumptions=tm.typing)
    bound = termination_bound(m)
    hand = f"hands of at most {tm.cap}"
    return [
        RuleProof("deadlock-freedom",
                  f"the active seat always holds wires ({hand}) and has a dual cut, a solo cut or the red "
                  "reveal; under the Estabilizador, a dual cut", **common),
        RuleProof("termination",
                  f"every move lowers {tm.free_max + 1} x (twice the turns left) + (deal, tokens, cards and "
                  "picks left): every play ends", ranking=tm.ranking,
                  decreasing=tuple(a.name for a in turns + free), **common),
        RuleProof("termination-bound",
                  f"every turn lowers twice the turns left (non-red wires + 2 x reds + 2 x detonator steps "
                  f"+ 2 x Estabilizador) by 2, and no other move raises it (the termination ranking): every "
                  f"game ends within {bound} turns", ranking=tm.phi,
                  decreasing=tuple(a.name for a in turns), decrease=2, **common),
    ]


def bomb_busters_proofs(ruleset, game) -> list[RuleProof]:
    """The proofs ``verify`` runs for a ruleset, on the game built from it."""
    census = _Census(game.mission)
    return kind_proofs(game.mission, census) + turn_proofs(game.mission, census)


def properties(ruleset, game) -> list:
    """Bomb Busters' properties: the rule proofs above and the tiny missions' exhaustive checks
    (``proofs.bomb_busters_checks``)."""
    from ruleproof.model.properties import NOTHING, Property
    from ruleproof.proofs.bomb_busters_checks import checks
    from ruleproof.proofs.refinement import proof_property
    out = [proof_property(p) for p in bomb_busters_proofs(ruleset, game)]
    out.append(Property("tiny missions", "the invariants and the turn bound on tiny missions", (NOTHING,),
                        lambda ctx: checks(ctx.ruleset, limits=ctx.limits)))
    return out


def derived(ruleset) -> list:
    from ruleproof.model.bomb_busters.shrink import shrink
    from ruleproof.model.properties import Derived
    return [Derived(label, rs) for label, rs in shrink(ruleset)]
