"""Bomb Busters' table as its rule text states it, move by move: the proof of what every move does.

The frame is the whole table (``TableModel.of``): every slot of every rack (the wire's sort code,
cut or not, the info token in front of it, the values it is known not to be), the set-up step, the
seat to act, the detonator, the equipment cards (unlocked, used), each expert's Detector Duplo,
the flipped Estabilizador, a teammate's pick that is due, the validation tokens, the red and
yellow candidates (not shown, in play, set aside) and the public facts "this hand holds a wire
of value v" left by failed cuts (claims). Every move is bound to one family with its parameters
(``bind``: the slot pointed at, the value named, the card, the tile dealt), and each family's
relation is **functional**: ``effect`` computes the whole table after the move from the table
before (seeds/004, quoted per family), so any difference in what the model does -- a wire cut at
another place, a token showing another value, a detonator that moves on a right cut, the next
seat -- fails the refinement check at the first transition where it shows. The same families'
guards give the rules' legal moves at every decision state (``options``), compared as sets with the
model's; the chance laws (the draws of the candidates, the set-aside "X de Y" tiles, the deal
weighted by the tiles left, B09's random token) are stated in ``chance``; the game over is an
exit of the family that ended it, whose ending (every seat's return, the detonator, the wires
left) must be what the move's effect says.

Z3 proves, on the mission's own parameters (missions of at most ``PROVE_UP_TO_WIRES`` wires; a
full-size table is checked frame by frame only), that the relations keep the racks sorted with their
wires a prefix, every info token truthful (B05: yellow shows "yellow"), cut wires on filled slots,
nothing cut or tokened before the set-up tokens, the Estabilizador flipped only once used, and the
detonator below the skull. Wire conservation, validation tokens and unlocks are the kind frames'
proofs (``proofs.bomb_busters``).

Every formula is written with ``proofs.logic``: on the plain values of a real state it evaluates
at once, on Z3 constants it builds the formula Z3 proves.
"""
from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from math import comb
from typing import Any, Callable

import z3

from ruleproof.model.bomb_busters import state as S
from ruleproof.model.bomb_busters.mission import Mission
from ruleproof.model.protocol import CHANCE
from ruleproof.proofs.harness import Action
from ruleproof.proofs.logic import And, If, Implies, Not, Or, Sum
from ruleproof.proofs.refinement import Bound, Exit, RuleProof

SENTENCE = (
    "seeds/004 'O Turno de Jogo': Corte Duplo ('cortar 2 fios idênticos: 1 fio próprio e 1 fio de um "
    "colega'; right: both cut face up in place; wrong: red explodes, blue or yellow advances the "
    "detonator and an info token shows the true value), Corte Solo ('2 OU 4 fios idênticos ... os "
    "últimos fios desse valor'), Revelar ('SÓ ... quando todos os fios ... forem VERMELHOS'); set-up "
    "steps 5-9 (draws, 'X de Y' set aside, deal 'o mais igualmente possível', sorted racks, tokens "
    "'à sua escolha'); Equipamento (unlocked 'assim que os 2 fios do valor indicado forem "
    "cortados', 'só pode ser usado uma vez'); Detector Duplo, Comunicadores, Estabilizador; Fim de "
    "Jogo; rulings B02 B05 B06 B07 B08 B09 B10 B11 B12 B13 B14 B16 B17")

#: the set-up steps and play, in the order of the rule text (seeds/004 steps 5.2, 5.3, 6, 9)
DRAW_RED, DRAW_YELLOW, ASIDE, DEAL, TOKENS, PLAY = range(6)
PHASES = {"DRAW_RED": DRAW_RED, "DRAW_YELLOW": DRAW_YELLOW, "ASIDE": ASIDE, "DEAL": DEAL, "TOKENS": TOKENS,
          "PLAY": PLAY}
#: a dual cut names a blue value (its sort code 10v) or "yellow"
YELLOW = 1
#: the claim "this hand holds no blue wire" (the player placed no set-up token)
NO_BLUE = 0
#: a teammate's pick that is due after a Detector Duplo: which wire is cut (B08), which gets the
#: token, which red is cut under the Estabilizador (B12)
PICK_CUT, PICK_TOKEN, PICK_RED = 1, 2, 3
#: the game goes on / the bomb is defused / it explodes
GOES_ON, DEFUSED, EXPLODES = 0, 1, 2
#: Z3 proves the table's invariant for missions of at most this many wires (about a second); a
#: full-size table (51 wires, 300 variables: some 25 CPU seconds) is checked frame by frame only
PROVE_UP_TO_WIRES = 16


# ---- values that may be Z3 terms ----------------------------------------------------------------------

def _sym(*xs: Any) -> bool:
    return any(isinstance(x, z3.ExprRef) for x in xs)


def _pick(seq: list, idx: Any, default: Any = 0) -> Any:
    """``seq[idx]`` for an index that may be a Z3 term (then an if-chain)."""
    if not _sym(idx):
        return seq[idx] if 0 <= idx < len(seq) else default
    out = default
    for i in range(len(seq) - 1, -1, -1):
        out = If(idx == i, seq[i], out)
    return out


def _div(a: Any, b: int) -> Any:
    return a / b if _sym(a) else a // b


def _b(x: Any) -> Any:
    """A truth value as 0/1."""
    return If(x, 1, 0) if _sym(x) else int(bool(x))


def _plain(f: dict, *xs: Any) -> bool:
    """A table of plain values (a real state's) and plain parameters: the fast path (Python's own
    short-circuits) gives the same value as the formula."""
    return not isinstance(f["ph"], z3.ExprRef) and not any(isinstance(x, z3.ExprRef) for x in xs)


def _all(*parts: Any) -> Any:
    """The conjunction of ``parts`` (values, or callables giving one), left to right: on plain
    values it stops at the first false one, so a guard tests its cheap conditions first."""
    terms = []
    for part in parts:
        value = part() if callable(part) else part
        if value is False:
            return False
        if value is not True:
            terms.append(value)
    return And(terms) if terms else True


def _conjunction(f: dict, terms) -> Any:
    """The conjunction of the terms a generator yields: on a plain table it stops at the first
    false one; on Z3 constants it is one formula."""
    if _plain(f):
        return all(terms)
    return And(list(terms))


def colour(code: Any) -> Any:
    """0 blue, 1 yellow, 5 red (B02: yellow sorts at v.1, red at v.5)."""
    return code % 10


def matches(code: Any, named: Any) -> Any:
    """A dual cut naming ``named`` is right on this wire: the same blue value, or any yellow."""
    if type(code) is int and type(named) is int:
        return code != 0 and (code % 10 == 1 if named == YELLOW else code == named)
    return And(code != 0, If(named == YELLOW, colour(code) == 1, code == named))


def is_red(code: Any) -> Any:
    if type(code) is int:
        return code != 0 and code % 10 == 5
    return And(code != 0, colour(code) == 5)


def token_of(code: Any) -> Any:
    """The info token that tells a wire's value: its blue value, 13 for yellow (B05); a red wire
    never gets one (99, outside every token's range)."""
    if type(code) is int:
        return code // 10 if code % 10 == 0 else 13 if code % 10 == 1 else 99
    return If(colour(code) == 0, _div(code, 10), If(colour(code) == 1, 13, 99))


def _rack_plan(m: Mission) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Owners and sizes of the racks, read from the rule text: 'Com 2 especialistas: Cada um recebe
    2 suportes; Com 3: o Capitão recebe 2, os outros 1; Com 4 ou 5: Cada um recebe 1' (step 4),
    wires dealt 'o mais igualmente possível' (step 6), the extra ones to the first racks or the
    last (B11)."""
    p = m.players
    owners = (0, 0, 1, 1) if p == 2 else (0, 0, 1, 2) if p == 3 else tuple(range(p))
    base, extra = divmod(m.total_wires, len(owners))
    sizes = [base + (1 if i < extra else 0) for i in range(len(owners))]
    if dict(m.rulings)["B11"] != "first-racks":
        sizes.reverse()
    return owners, tuple(sizes)


class TableModel:
    """The frame, the families of moves, the chance laws and the legal moves of one mission."""

    def __init__(self, m: Mission):
        self.m = m
        rulings = dict(m.rulings)
        self.P, self.V, self.K, self.D = m.players, m.blue_values, m.blue_copies, m.skull
        self.owners, self.sizes = _rack_plan(m)
        self.R = len(self.owners)
        self.offset = [sum(self.sizes[:r]) for r in range(self.R)]
        self.N = sum(self.sizes)
        self.rack_of = [r for r in range(self.R) for _ in range(self.sizes[r])]
        self.owner_of = [self.owners[r] for r in self.rack_of]
        #: each seat's slots, first rack first (B10 reads a hand left to right)
        self.hand = [[g for g in range(self.N) if self.owner_of[g] == s] for s in range(self.P)]
        self.cards = list(m.equipment)
        self.stab_cards = [i for i, (n, _) in enumerate(self.cards) if n == "estabilizador"]
        self.comm_cards = [i for i, (n, _) in enumerate(self.cards) if n == "comunicadores"]
        self.duplo = m.detector_duplo
        self.need = 2 if rulings["B07"] == "first-2" else self.K
        self.random_tokens = rulings["B09"] == "random"
        self.leftmost = rulings["B10"] == "leftmost"
        # the candidates: red/yellow drawn at random (a chance step) or fixed by the mission
        self.colours = []
        for name, x, y, fixed, off in (("red", m.red_in_play, m.red_drawn, m.red_values, 5),
                                        ("yellow", m.yellow_in_play, m.yellow_drawn, m.yellow_values, 1)):
            if y:
                self.colours.append((name, x, y, tuple(fixed), off))
        self.names = [10 * v for v in range(1, self.V + 1)] + ([YELLOW] if m.yellow_in_play else [])
        self.claimable = [NO_BLUE] + self.names
        self.codes = sorted([10 * v for v in range(1, self.V + 1)]
                            + [10 * v + off for _n, _x, _y, _f, off in self.colours for v in range(1, 12)])
        self.state_vars = self._state_vars()
        self.flags = [n for n in self.state_vars
                      if n[:1] in ("u", "k") and n[1:].isdigit() or n.startswith(("dd", "val", "cl"))]
        self.candidates = [n for n in self.state_vars if n[1:2] == "c" and n[:1] in "ry" and n[2:].isdigit()]
        self._families: list | None = None
        self._effects: dict = {}
        self.by_name: dict = {}

    # ---- the frame ----------------------------------------------------------------------------------
    def _state_vars(self) -> list[str]:
        out = [f"{p}{g}" for g in range(self.N) for p in "cxte"]
        out += ["ph", "sd", "det", "stab", "pk", "pp", "pa", "pb", "pn", "odd"]
        out += [f"u{i}" for i in range(len(self.cards))] + [f"k{i}" for i in range(len(self.cards))]
        out += [f"dd{s}" for s in range(self.P)] if self.duplo else []
        out += [f"val{v}" for v in range(1, self.V + 1)]
        out += [f"{name[0]}c{v}" for name, *_ in self.colours for v in range(1, 12)]
        out += [f"cl{s}_{n}" for s in range(self.P) for n in self.claimable]
        return out

    PARAMS = ("g", "h", "n", "t", "r", "q", "w", "card") + tuple(f"r{v}" for v in range(1, 12)) \
        + tuple(f"y{v}" for v in range(1, 12)) + tuple(f"ar{v}" for v in range(1, 12)) \
        + tuple(f"ay{v}" for v in range(1, 12))

    def frame(self, sfx: str) -> dict[str, z3.ArithRef]:
        names = self.state_vars + list(self.PARAMS) + ["actor"]
        return {n: z3.Int(n + sfx) for n in names}

    def of(self, s: S.State) -> dict[str, int] | None:
        """The table of a real state (None once the game is over: its exits read ``ending``)."""
        if s.phase in (S.Phase.WON, S.Phase.LOST):
            return None
        f: dict[str, int] = {}
        odd = 0
        lengths = [len(rack) for rack in s.racks]
        if len(s.racks) != self.R or any(n > size for n, size in zip(lengths, self.sizes)):
            odd += 1
        g = 0
        for r, rack in enumerate(s.racks[:self.R]):
            for j in range(self.sizes[r]):
                w = rack[j] if j < len(rack) else 0
                f[f"c{g}"], f[f"x{g}"] = S.code(w), int(S.is_cut(w))
                f[f"t{g}"], f[f"e{g}"] = S.info(w), S.nots(w)
                g += 1
        for g in range(g, self.N):
            f[f"c{g}"] = f[f"x{g}"] = f[f"t{g}"] = f[f"e{g}"] = 0
        f["ph"], f["sd"], f["det"], f["stab"] = int(s.phase), s.seat, s.detonator, s.stabilized
        if s.pending:
            kind, picker, r, j1, j2, named = s.pending
            f.update(pk=kind, pp=picker, pa=self.offset[r] + j1, pb=self.offset[r] + j2, pn=named)
        else:
            f.update(pk=0, pp=0, pa=0, pb=0, pn=0)
        for i in range(len(self.cards)):
            f[f"u{i}"], f[f"k{i}"] = s.used >> i & 1, s.unlocked >> i & 1
        odd += int(s.used >> len(self.cards) != 0) + int(s.unlocked >> len(self.cards) != 0)
        if self.duplo:
            for p in range(self.P):
                f[f"dd{p}"] = s.duplo >> p & 1
        odd += int(s.duplo >> self.P != 0) if self.duplo else int(s.duplo != 0)
        for v in range(1, self.V + 1):
            f[f"val{v}"] = s.validated >> (v - 1) & 1
        odd += int(s.validated >> self.V != 0)
        shown = {5: s.reds, 1: s.yellows}
        for name, _x, _y, _fixed, off in self.colours:
            for v in range(1, 12):
                code = 10 * v + off
                f[f"{name[0]}c{v}"] = 0 if code not in shown[off] else 2 if code in s.aside else 1
        listed = {10 * v + off for name, *_r, off in self.colours for v in range(1, 12)}
        odd += sum(1 for t in s.reds + s.yellows + s.aside if t not in listed)
        odd += int(len(set(s.aside)) != len(s.aside)) + sum(1 for t in s.aside if t not in s.reds + s.yellows)
        claims = set(s.claims)
        for p in range(self.P):
            for n in self.claimable:
                f[f"cl{p}_{n}"] = int(256 * p + n in claims)
                claims.discard(256 * p + n)
        f["odd"] = odd + len(claims)
        return f

    def typing(self, f) -> Any:
        """Each variable within its range; ``odd`` counts what of a real state the frame cannot
        hold (an extra rack, an unknown claim or card bit): none."""
        return _conjunction(f, self._typing(f))

    def _typing(self, f):
        codes = self.codes
        yield from (f["odd"] == 0, f["ph"] >= 0, f["ph"] <= PLAY, f["sd"] >= 0, f["sd"] < self.P, f["det"] >= 0,
                    Or(f["stab"] == 0, f["stab"] == 1), f["pk"] >= 0, f["pk"] <= 3)
        for g in range(self.N):
            c = f[f"c{g}"]
            yield Or(c == 0, *[c == k for k in codes]) if _sym(c) else c == 0 or c in codes
            yield from (Or(f[f"x{g}"] == 0, f[f"x{g}"] == 1), f[f"t{g}"] >= 0, f[f"t{g}"] <= 13,
                        f[f"e{g}"] >= 0, f[f"e{g}"] < 1 << 13)
        for name in self.flags:
            yield Or(f[name] == 0, f[name] == 1)
        for name in self.candidates:
            yield And(f[name] >= 0, f[name] <= 2)

    # ---- reading a table ---------------------------------------------------------------------------
    def col(self, f, p: str) -> list:
        return [f[f"{p}{g}"] for g in range(self.N)]

    def uncut(self, f, g: int) -> Any:
        c, x = f[f"c{g}"], f[f"x{g}"]
        if type(c) is int and type(x) is int:
            return c != 0 and x == 0
        return And(c != 0, x == 0)

    def seat_is(self, seat: Any, s: int) -> Any:
        return seat == s

    def holds(self, f, seat: Any, named: Any) -> Any:
        """``seat`` holds an uncut wire a dual cut naming ``named`` would hit."""
        if _plain(f, seat, named):
            return 0 <= seat < self.P and any(self.uncut(f, g) and matches(f[f"c{g}"], named) for g in self.hand[seat])
        return Or([And(self.seat_is(seat, s), Or([And(self.uncut(f, g), matches(f[f"c{g}"], named))
                                                   for g in self.hand[s]])) for s in range(self.P)])

    def count(self, f, seat: Any, pred: Callable[[int], Any]) -> Any:
        if _plain(f, seat):
            return sum(1 for g in self.hand[seat] if pred(g)) if 0 <= seat < self.P else 0
        return Sum([If(self.seat_is(seat, s), Sum([_b(pred(g)) for g in self.hand[s]]), 0) for s in range(self.P)])

    def mine(self, f, seat: Any, named: Any) -> Any:
        return self.count(f, seat, lambda g: And(self.uncut(f, g), matches(f[f"c{g}"], named)))

    def remaining(self, f, named: Any) -> Any:
        if _plain(f, named):
            return sum(1 for g in range(self.N) if self.uncut(f, g) and matches(f[f"c{g}"], named))
        return Sum([_b(And(self.uncut(f, g), matches(f[f"c{g}"], named))) for g in range(self.N)])

    def has_wires(self, f, s: int) -> Any:
        if _plain(f):
            return any(self.uncut(f, g) for g in self.hand[s])
        return Or([self.uncut(f, g) for g in self.hand[s]])

    def nameable(self, f, seat: Any, named: Any) -> Any:
        """'o especialista ativo ... anuncia o valor': a blue value held, or 'yellow' when holding one."""
        if _plain(f, seat, named):
            return named in self.names and self.holds(f, seat, named)
        return And(Or([named == n for n in self.names]), self.holds(f, seat, named))

    def teammates_uncut(self, f, seat: Any) -> Any:
        if _plain(f, seat):
            return any(seat != self.owner_of[g] and self.uncut(f, g) for g in range(self.N))
        return Or([And(seat != self.owner_of[g], self.uncut(f, g)) for g in range(self.N)])

    def cut_count(self, f, code: int, x: list | None = None) -> Any:
        x = x if x is not None else self.col(f, "x")
        if _plain(f, *x):
            return sum(1 for g in range(self.N) if f[f"c{g}"] == code and x[g] == 1)
        return Sum([_b(And(f[f"c{g}"] == code, x[g] == 1)) for g in range(self.N)])

    def next_rack(self, f) -> Any:
        """The rack the next wire is dealt to: the first not yet full (the deal's order is ours;
        any order gives the same deals)."""
        if _plain(f):
            return next((r for r in range(self.R) if f[f"c{self.offset[r] + self.sizes[r] - 1}"] == 0), -1)
        out: Any = -1
        for r in range(self.R - 1, -1, -1):
            last = self.offset[r] + self.sizes[r] - 1
            out = If(f[f"c{last}"] == 0, r, out)
        return out

    def left(self, f, code: int) -> Any:
        """Tiles of this code still to deal: 4 (or the mission's copies) of each blue value, the
        candidates in play once each."""
        if _plain(f):
            have = sum(1 for g in range(self.N) if f[f"c{g}"] == code)
            if code % 10 == 0:
                return self.K - have
            return int(f[f"{'r' if code % 10 == 5 else 'y'}c{code // 10}"] == 1) - have
        have = Sum([_b(f[f"c{g}"] == code) for g in range(self.N)])
        if code % 10 == 0:
            return self.K - have
        name = "r" if code % 10 == 5 else "y"
        return If(f[f"{name}c{code // 10}"] == 1, 1, 0) - have

    # ---- effects shared by the families --------------------------------------------------------------
    def _own_slot(self, f, seat: Any, named: Any) -> Any:
        """The active seat's own wire cut beside a right dual cut (B10): its leftmost uncut wire of
        the value, first rack first (or the rightmost)."""
        if _plain(f, seat, named):
            if not 0 <= seat < self.P:
                return -1
            order = self.hand[seat] if self.leftmost else self.hand[seat][::-1]
            return next((g for g in order if self.uncut(f, g) and matches(f[f"c{g}"], named)), -1)
        out: Any = -1
        for s in range(self.P):
            order = self.hand[s] if self.leftmost else self.hand[s][::-1]
            first: Any = -1
            for g in reversed(order):
                first = If(And(self.uncut(f, g), matches(f[f"c{g}"], named)), g, first)
            out = If(seat == s, first, out)
        return out

    def _cut(self, f, post: dict, now: list) -> None:
        """Wires cut face up in place (``now[g]``): claims they satisfy go, validation tokens and
        unlocked cards follow (B07)."""
        x = [If(now[g], 1, f[f"x{g}"]) if _sym(now[g], f[f"x{g}"]) else (1 if now[g] else f[f"x{g}"])
             for g in range(self.N)]
        for g in range(self.N):
            post[f"x{g}"] = x[g]
        for s in range(self.P):
            for n in self.claimable:
                if n == NO_BLUE:
                    continue
                if _plain(f, *now):
                    gone = any(now[g] and matches(f[f"c{g}"], n) for g in self.hand[s])
                else:
                    gone = Or([And(now[g], matches(f[f"c{g}"], n)) for g in self.hand[s]])
                key = f"cl{s}_{n}"
                post[key] = If(gone, 0, post.get(key, f[key]))
        for v in range(1, self.V + 1):
            post[f"val{v}"] = _b(Or(f[f"val{v}"] == 1, self.cut_count(f, 10 * v, x) == self.K))
        for i, (_name, value) in enumerate(self.cards):
            if value <= self.V:
                post[f"k{i}"] = _b(Or(f[f"k{i}"] == 1, self.cut_count(f, 10 * value, x) >= self.need))

    def _claim(self, f, post: dict, seat: Any, named: Any) -> None:
        """A failed cut tells that the cutter holds the value named."""
        if _plain(f, seat, named):
            if 0 <= seat < self.P and named in self.names:
                post[f"cl{seat}_{named}"] = 1
            return
        for s in range(self.P):
            for n in self.names:
                key = f"cl{s}_{n}"
                post[key] = If(And(seat == s, named == n), 1, post.get(key, f[key]))

    def _next_seat(self, post: dict, seat: Any) -> Any:
        """The next seat clockwise that still has wires, itself last (B06: a player without wires is
        skipped); -1 when nobody has any."""
        def chain(s0: int) -> Any:
            out: Any = -1
            for step in range(self.P, 0, -1):
                s = (s0 + step) % self.P
                out = If(self.has_wires(post, s), s, out)
            return out
        if not _sym(seat):
            return chain(seat)
        out: Any = chain(self.P - 1)
        for s in range(self.P - 2, -1, -1):
            out = If(seat == s, chain(s), out)
        return out

    def _end_turn(self, f, post: dict) -> Any:
        """The turn ends: the Estabilizador's effect and any pick are over, the next seat with wires
        acts; the code the game ends with (defused when nobody has wires left)."""
        full = {**f, **post}
        nxt = self._next_seat(full, f["sd"])
        post.update(stab=0, pk=0, pp=0, pa=0, pb=0, pn=0, sd=If(nxt == -1, f["sd"], nxt))
        return If(nxt == -1, DEFUSED, GOES_ON)

    def _token(self, f, post: dict, at: Callable[[int], Any]) -> None:
        """An info token in front of the wire(s) where ``at(g)``, showing its true value (B05)."""
        if _plain(f):
            for g in range(self.N):
                if at(g):
                    post[f"t{g}"] = token_of(f[f"c{g}"])
            return
        for g in range(self.N):
            post[f"t{g}"] = If(at(g), token_of(f[f"c{g}"]), post.get(f"t{g}", f[f"t{g}"]))

    def _exclude(self, f, post: dict, at: Callable[[int], Any], named: Any) -> None:
        """The wire(s) where ``at(g)`` are publicly not ``named`` (a failed Detector Duplo)."""
        if _plain(f, named):
            bit = 1 << (12 if named == YELLOW else named // 10 - 1)
            for g in range(self.N):
                if at(g):
                    post[f"e{g}"] = post.get(f"e{g}", f[f"e{g}"]) | bit
            return
        for g in range(self.N):
            e = post.get(f"e{g}", f[f"e{g}"])
            added = e
            for n in self.names:
                bit = 1 << (12 if n == YELLOW else n // 10 - 1)
                added = If(named == n, If(_div(e, bit) % 2 == 1, e, e + bit), added)
            post[f"e{g}"] = If(at(g), added, e)

    def _kept(self, f, r: int, remove: Any, cols: str = "cxte") -> dict[str, list]:
        """Rack r's columns with the wire at local slot ``remove`` taken out (None: none)."""
        base, size = self.offset[r], self.sizes[r]
        col = {p: [f[f"{p}{base + j}"] for j in range(size)] for p in cols}
        if remove is None:
            return col
        if _plain(f, remove):
            return {p: v[:remove] + v[remove + 1:] + [0] for p, v in col.items()}
        return {p: [If(j < remove, col[p][j], col[p][j + 1] if j + 1 < size else 0) for j in range(size)]
                for p in cols}

    def sorted_place(self, f, r: int, remove: Any, code: Any, place: Any) -> Any:
        """``place`` is where a wire of ``code`` goes into rack r (once ``remove`` is out): after the
        wires of equal or lower value, before the higher ones (step 7 'ordenar seus fios em ordem
        crescente'; B13 for a swapped wire)."""
        kept = self._kept(f, r, remove, "c")["c"]
        if _plain(f, place, code):
            return place == self.place_of(f, r, remove, code)
        at, before = _pick(kept, place), _pick(kept, place - 1)
        return And(place >= 0, place < self.sizes[r], Or(at == 0, at > code),
                   Or(place == 0, And(before != 0, before <= code)))

    def place_of(self, f, r: int, remove: int | None, code: int) -> int:
        """The sorted place on plain values (what ``sorted_place`` accepts)."""
        kept = self._kept(f, r, remove, "c")["c"]
        return sum(1 for c in kept if c and c <= code)

    def _insert(self, f, post: dict, r: int, remove: Any, code: Any, place: Any) -> None:
        """Rack r with its wire at local slot ``remove`` taken out (None: none) and a bare wire of
        ``code`` put in at local slot ``place`` (see ``sorted_place``)."""
        base, size = self.offset[r], self.sizes[r]
        kept = self._kept(f, r, remove)
        new = {"c": code, "x": 0, "t": 0, "e": 0}
        if _plain(f, code, place):
            for p in "cxte":
                row = kept[p][:place] + [new[p]] + kept[p][place:]
                for j in range(size):
                    post[f"{p}{base + j}"] = row[j]
            return
        for p in "cxte":
            for j in range(size):
                before = kept[p][j - 1] if j else 0
                post[f"{p}{base + j}"] = If(j < place, kept[p][j], If(j == place, new[p], before))

    def _start_play(self, f, post: dict) -> None:
        """Play starts with the captain, or the next seat with wires (seeds/004: 'começando pelo
        Capitão')."""
        post["ph"] = PLAY
        post["sd"] = self._next_seat({**f, **post}, self.P - 1)

    def _next_token(self, f, post: dict, after: Any) -> None:
        """The next seat clockwise after ``after`` (-1: from the captain) that holds a blue wire
        places its set-up token (step 9); a seat without one is skipped, and everyone learns that
        it holds no blue wire (a NO_BLUE claim); after the last, play starts."""
        full = {**f, **post}
        blue = [Or([And(self.uncut(full, g), colour(full[f"c{g}"]) == 0) for g in self.hand[s]])
                for s in range(self.P)]
        nxt: Any = -1
        for s in range(self.P - 1, -1, -1):
            nxt = If(And(after < s, blue[s]), s, nxt)
        for s in range(self.P):
            key = f"cl{s}_{NO_BLUE}"
            skipped = And(after < s, Not(blue[s]), Or(nxt == -1, s < nxt))
            post[key] = If(skipped, 1, post.get(key, f[key]))
        play = {**f, **post}
        start = self._next_seat(play, self.P - 1)
        post["ph"] = If(nxt == -1, PLAY, TOKENS)
        post["sd"] = If(nxt == -1, start, nxt)

    def _after_draws(self, post: dict, ph: int) -> None:
        """Past the set-up chance steps the mission fixes (fixed candidates, nothing set aside)."""
        random = {name: not fixed for name, _x, _y, fixed, _o in self.colours}
        aside = any(x != y for _n, x, y, _f, _o in self.colours)
        if ph == DRAW_YELLOW and not random.get("yellow", False):
            for name, _x, _y, fixed, _o in self.colours:
                if name == "yellow":
                    for v in range(1, 12):
                        post[f"yc{v}"] = int(v in fixed)
            ph = ASIDE
        if ph == ASIDE and not aside:
            ph = DEAL
        post["ph"] = ph

    # ---- the families ------------------------------------------------------------------------------
    def families(self) -> list[tuple[str, dict, Callable, Callable]]:
        """(name, parameter ranges, guard(env), effect(env) -> (changes, end code)) per family."""
        if self._families is None:
            self._families = [(name, params, guard, self._remember(effect))
                              for name, params, guard, effect in self._make_families()]
            self.by_name = {name: (params, guard, effect) for name, params, guard, effect in self._families}
        return self._families

    def step(self, s: S.State, move: Any, actor: int) -> tuple[Bound, dict | None, dict, int]:
        """What a real move is and what the rules say it does: (bound move, the table before, the
        changes, the end code); no changes when the rules know no such move."""
        bound = self.bind(s, move, actor)
        f = self.of(s)
        self.families()
        fam = self.by_name.get(bound.action)
        if f is None or fam is None:
            return bound, f, {}, GOES_ON
        env = {**f, **bound.params, "actor": actor}
        if not fam[1](env):
            return bound, f, {}, GOES_ON
        post, end = fam[2](env)
        return bound, f, post, end

    def _make_families(self) -> list[tuple[str, dict, Callable, Callable]]:
        g_range, names = range(self.N), self.names
        fams = []
        for name, x, y, fixed, off in self.colours:
            if not fixed:
                fams.append(self._draw_family(name, y))
        if any(x != y for _n, x, y, _f, _o in self.colours):
            fams.append(self._aside_family())
        fams += [(self.deal_name(r), {"t": self.codes, "q": range(self.sizes[r])}, self._deal_guard_on(r),
                  self._deal_on(r)) for r in range(self.R)]
        fams += [
            ("set-up info token (B09)", {"g": g_range}, self._token_guard, self._place_token),
            ("dual cut", {"g": g_range, "n": names}, self._dual_guard, self._dual),
            ("solo cut", {"n": names}, self._solo_guard, self._solo),
            ("reveal red wires", {}, self._reveal_guard, self._reveal),
        ]
        if self.stab_cards:
            fams.append(("flip the estabilizador", {"card": self.stab_cards}, self._stab_guard, self._stabilize))
        # one family per pair of racks (per rack for the pick): each Z3 query then speaks of the
        # racks the move touches only, which keeps the full-size proof within seconds
        if self.comm_cards:
            for r1, r2 in self.swap_racks():
                fams.append((self.swap_name(r1, r2), {"card": self.comm_cards, "g": self.slots_of(r1),
                                                      "h": self.slots_of(r2), "q": range(self.sizes[r1]),
                                                      "w": range(self.sizes[r2])},
                             self._swap_guard_on(r1, r2), self._swap_on(r1, r2)))
        if self.duplo:
            fams.append(("detector duplo", {"g": g_range, "h": g_range, "n": names}, self._duplo_guard,
                         self._duplo_use))
            for r in range(self.R):
                fams.append((self.pick_name(r), {"g": self.slots_of(r)}, self._pick_guard_on(r), self._pick))
        return fams

    def slots_of(self, r: int) -> range:
        return range(self.offset[r], self.offset[r] + self.sizes[r])

    def swap_racks(self) -> list[tuple[int, int]]:
        return [(r1, r2) for r1 in range(self.R) for r2 in range(self.R) if self.owners[r1] != self.owners[r2]]

    @staticmethod
    def swap_name(r1: int, r2: int) -> str:
        return f"comunicadores swap (rack {r1} with rack {r2})"

    @staticmethod
    def pick_name(r: int) -> str:
        return f"the teammate's pick (rack {r})"

    def _in(self, slot: Any, r: int) -> Any:
        return And(slot >= self.offset[r], slot < self.offset[r] + self.sizes[r])

    def _draw_family(self, name: str, drawn: int):
        key, ph = ("r", DRAW_RED) if name == "red" else ("y", DRAW_YELLOW)

        def guard(a):
            return And(a["ph"] == ph, a["actor"] == CHANCE, Sum([a[f"{key}{v}"] for v in range(1, 12)]) == drawn)

        def effect(a):
            post = {f"{key}c{v}": a[f"{key}{v}"] for v in range(1, 12)}
            self._after_draws(post, DRAW_YELLOW if ph == DRAW_RED else ASIDE)
            return post, GOES_ON
        return (f"draw the {name} candidates", {f"{key}{v}": (0, 1) for v in range(1, 12)}, guard, effect)

    def _aside_family(self):
        def guard(a):
            parts = [a["ph"] == ASIDE, a["actor"] == CHANCE]
            for name, x, y, _f, _o in self.colours:
                k = name[0]
                parts.append(Sum([a[f"a{k}{v}"] for v in range(1, 12)]) == y - x)
                parts += [Implies(a[f"a{k}{v}"] == 1, a[f"{k}c{v}"] == 1) for v in range(1, 12)]
            return And(parts)

        def effect(a):
            post = {}
            for name, *_rest in self.colours:
                k = name[0]
                for v in range(1, 12):
                    post[f"{k}c{v}"] = If(a[f"a{k}{v}"] == 1, 2, a[f"{k}c{v}"])
            post["ph"] = DEAL
            return post, GOES_ON
        params = {f"a{name[0]}{v}": (0, 1) for name, *_r in self.colours for v in range(1, 12)}
        return ("set candidates aside", params, guard, effect)

    @staticmethod
    def deal_name(r: int) -> str:
        return f"deal a wire (rack {r})"

    def _deal_guard_on(self, r: int) -> Callable:
        def guard(a):
            left = Sum([If(a["t"] == code, self.left(a, code), 0) for code in self.codes]) if _sym(a["t"]) \
                else (self.left(a, a["t"]) if a["t"] in self.codes else 0)
            return And(a["ph"] == DEAL, a["actor"] == CHANCE, self.next_rack(a) == r, left >= 1,
                       self.sorted_place(a, r, None, a["t"], a["q"]))
        return guard

    def _deal_on(self, r: int) -> Callable:
        def effect(a):
            """Step 6-7: the next wire, face down, goes to the rack being filled, at its sorted place;
            after the last one the set-up tokens start (step 9)."""
            post: dict = {}
            self._insert(a, post, r, None, a["t"], a["q"])
            if r < self.R - 1:
                return post, GOES_ON
            done = {**a, **post}[f"c{self.N - 1}"] != 0
            tokens: dict = dict(post)
            self._next_token(a, tokens, -1)
            for k, v in tokens.items():
                if k not in post:
                    post[k] = If(done, v, a[k])
            return post, GOES_ON
        return effect

    def _token_guard(self, a):
        who = a["actor"] == (CHANCE if self.random_tokens else a["sd"])
        return _all(a["ph"] == TOKENS, who, lambda: And(
            _pick(self.owner_of, a["g"], -1) == a["sd"], self._at(a, "c", a["g"]) % 10 == 0,
            self._at(a, "c", a["g"]) != 0, self._at(a, "x", a["g"]) == 0))

    def _place_token(self, a):
        """Step 9: 'coloca uma ficha de Informação ... na frente de um dos fios azuis da própria mão,
        correspondente ao valor indicado', captain first, clockwise."""
        post: dict = {}
        self._token(a, post, lambda g: a["g"] == g)
        self._next_token(a, post, a["sd"])
        return post, GOES_ON

    def _at(self, f, p: str, g: Any) -> Any:
        return _pick(self.col(f, p), g)

    def _playing(self, a) -> Any:
        return And(a["ph"] == PLAY, a["pk"] == 0, a["actor"] == a["sd"])

    def _dual_guard(self, a):
        return _all(self._playing(a), lambda: And(_pick(self.owner_of, a["g"], -1) != a["sd"], a["g"] >= 0,
                                                  a["g"] < self.N, self._at(a, "c", a["g"]) != 0,
                                                  self._at(a, "x", a["g"]) == 0),
                    lambda: self.nameable(a, a["sd"], a["n"]))

    def _dual(self, a):
        """Corte Duplo: right -> the teammate's wire and one of the cutter's own (B10) are cut face
        up; wrong -> a red wire explodes the bomb (under the Estabilizador it is cut, B12), a blue or
        yellow one advances the detonator (not under the Estabilizador) and gets an info token
        showing its value (B05); the cutter is then known to hold the value named."""
        g, n, sd = a["g"], a["n"], a["sd"]
        code = self._at(a, "c", g)
        hit, red, stab = matches(code, n), is_red(code), a["stab"] == 1
        own = self._own_slot(a, sd, n)
        post: dict = {}
        self._claim(a, post, If(hit, -1, sd), n)
        self._cut(a, post, [If(hit, Or(g == k, own == k), And(red, stab, g == k)) for k in range(self.N)])
        self._token(a, post, lambda k: And(Not(hit), Not(red), g == k))
        det = a["det"] + _b(And(Not(hit), Not(red), Not(stab)))
        post["det"] = det
        end = self._end_turn(a, post)
        return post, If(And(Not(hit), red, Not(stab)), EXPLODES, If(det >= self.D, EXPLODES, end))

    def _solo_guard(self, a):
        n = a["n"]
        return _all(self._playing(a), a["stab"] == 0, lambda: Or([n == k for k in self.names]),
                    lambda: self._solo_count(a, n))

    def _solo_count(self, a, n: Any) -> Any:
        mine = self.mine(a, a["sd"], n)
        return And(Or(mine == 2, mine == 4), mine == self.remaining(a, n))

    def _solo(self, a):
        """Corte Solo: the 2 or 4 last wires of a value, all in the cutter's hand, cut face up."""
        post: dict = {}
        self._cut(a, post, [And(self.owner_of[g] == a["sd"], self.uncut(a, g), matches(a[f"c{g}"], a["n"]))
                            for g in range(self.N)])
        return post, self._end_turn(a, post)

    def _reveal_guard(self, a):
        sd = a["sd"]
        mine = lambda: self.count(a, sd, lambda g: self.uncut(a, g))  # noqa: E731
        reds = lambda: self.count(a, sd, lambda g: And(self.uncut(a, g), is_red(a[f"c{g}"])))  # noqa: E731
        return _all(self._playing(a), a["stab"] == 0, lambda: mine() >= 1, lambda: reds() == mine())

    def _reveal(self, a):
        """Revelar: every uncut wire of the hand is red; they are shown (cut) safely."""
        post: dict = {}
        self._cut(a, post, [And(self.owner_of[g] == a["sd"], self.uncut(a, g)) for g in range(self.N)])
        return post, self._end_turn(a, post)

    def _card_ready(self, a, cards: list[int]) -> Any:
        """The card is on the board, unlocked and not yet used ('só pode ser usado uma vez')."""
        return Or([And(a["card"] == i, a[f"k{i}"] == 1, a[f"u{i}"] == 0) for i in cards])

    def _stab_guard(self, a):
        return _all(self._playing(a), a["stab"] == 0, lambda: self._card_ready(a, self.stab_cards),
                    lambda: Or([self.nameable(a, a["sd"], n) for n in self.names]),
                    lambda: self.teammates_uncut(a, a["sd"]))

    def _stabilize(self, a):
        """Estabilizador: flipped before a dual cut (B14: by the active player, in their turn)."""
        post = {f"u{i}": If(a["card"] == i, 1, a[f"u{i}"]) for i in self.stab_cards}
        post["stab"] = 1
        return post, GOES_ON

    def _swap_guard_on(self, r1: int, r2: int) -> Callable:
        def guard(a):
            g, h = a["g"], a["h"]
            return _all(self._playing(a), a["stab"] == 0, a["sd"] == self.owners[r1],
                        lambda: self._card_ready(a, self.comm_cards),
                        lambda: And(self._in(g, r1), self._in(h, r2), self._at(a, "c", g) != 0,
                                    self._at(a, "x", g) == 0, self._at(a, "c", h) != 0, self._at(a, "x", h) == 0),
                        lambda: self.sorted_place(a, r1, g - self.offset[r1], self._at(a, "c", h), a["q"]),
                        lambda: self.sorted_place(a, r2, h - self.offset[r2], self._at(a, "c", g), a["w"]))
        return guard

    def _swap_on(self, r1: int, r2: int) -> Callable:
        """Comunicadores: one uncut wire of yours for one uncut wire of a teammate, in the open; each
        goes into the rack the other left, at its sorted place, bare (B13); what was known about
        the two hands' holdings no longer holds."""
        def effect(a):
            g, h = a["g"], a["h"]
            give, take = self._at(a, "c", g), self._at(a, "c", h)
            post: dict = {}
            self._insert(a, post, r1, g - self.offset[r1], take, a["q"])
            self._insert(a, post, r2, h - self.offset[r2], give, a["w"])
            for s in range(self.P):
                for n in self.claimable:
                    key = f"cl{s}_{n}"
                    post[key] = 0 if s in (self.owners[r1], self.owners[r2]) else a[key]
            for i in self.comm_cards:
                post[f"u{i}"] = If(a["card"] == i, 1, a[f"u{i}"])
            return post, GOES_ON
        return effect

    def _duplo_guard(self, a):
        g, h, sd = a["g"], a["h"], a["sd"]
        same_rack = Or([And(g >= self.offset[r], h < self.offset[r] + self.sizes[r]) for r in range(self.R)])
        return _all(self._playing(a), lambda: Or([And(sd == s, a[f"dd{s}"] == 0) for s in range(self.P)]),
                    lambda: And(g >= 0, g < h, h < self.N, same_rack, _pick(self.owner_of, g, -1) != sd,
                                self._at(a, "c", g) != 0, self._at(a, "x", g) == 0,
                                self._at(a, "c", h) != 0, self._at(a, "x", h) == 0),
                    lambda: self.nameable(a, sd, a["n"]))

    def _duplo_use(self, a):
        """Detector Duplo (personal, once): two wires of one teammate rack (B16), one value named.
        Both right: the teammate picks which is cut (B08, a pick that is due); one right: it is cut
        with one of the cutter's own; none: the detonator advances (not under the Estabilizador),
        the cutter is known to hold the value; both red explodes (under the Estabilizador the
        teammate picks the red to cut, B12); exactly one red: the token goes on the other and the
        red is known not to be the value (B17); otherwise the teammate picks where the token goes."""
        g, h, n, sd = a["g"], a["h"], a["n"], a["sd"]
        cg, ch = self._at(a, "c", g), self._at(a, "c", h)
        ok1, ok2 = matches(cg, n), matches(ch, n)
        red1, red2 = is_red(cg), is_red(ch)
        stab = a["stab"] == 1
        owner = _pick(self.owner_of, g, -1)
        own = self._own_slot(a, sd, n)
        miss = And(Not(ok1), Not(ok2))
        one = And(Or(ok1, ok2), Not(And(ok1, ok2)))
        post: dict = {f"dd{s}": If(sd == s, 1, a[f"dd{s}"]) for s in range(self.P)}
        self._claim(a, post, If(miss, sd, -1), n)
        self._cut(a, post, [And(one, Or(And(ok1, k == g), And(ok2, k == h), k == own)) for k in range(self.N)])
        single_red = And(miss, Or(red1, red2), Not(And(red1, red2)))
        self._token(a, post, lambda k: And(single_red, Or(And(k == g, Not(red1)), And(k == h, Not(red2)))))
        self._exclude(a, post, lambda k: And(single_red, Or(And(k == g, red1), And(k == h, red2))), n)
        both_red = And(miss, red1, red2)
        det = a["det"] + _b(And(miss, Not(both_red), Not(stab)))
        post["det"] = det
        pending = If(And(ok1, ok2), PICK_CUT, If(both_red, PICK_RED, If(And(miss, Not(single_red)), PICK_TOKEN, 0)))
        turn: dict = dict(post)
        end = self._end_turn(a, turn)
        for k, v in turn.items():
            post[k] = If(pending == 0, v, post.get(k, a[k]))
        post.update(pk=pending, pp=If(pending == 0, 0, owner), pa=If(pending == 0, 0, g), pb=If(pending == 0, 0, h),
                    pn=If(pending == 0, 0, n))
        explodes = Or(And(both_red, Not(stab)), And(miss, Not(both_red), det >= self.D))
        return post, If(explodes, EXPLODES, If(pending == 0, end, GOES_ON))

    def _pick_guard_on(self, r: int) -> Callable:
        def guard(a):
            return And(a["ph"] == PLAY, a["pk"] != 0, a["actor"] == a["pp"], self._in(a["g"], r),
                       Or(a["g"] == a["pa"], a["g"] == a["pb"]))
        return guard

    def _pick(self, a):
        """The teammate's choice after a Detector Duplo: the wire cut (with one of the cutter's own,
        B08), the red wire cut under the Estabilizador (B12), or the wire that gets the token (the
        other is then known not to be the value)."""
        g, kind, named = a["g"], a["pk"], a["pn"]
        other = If(g == a["pa"], a["pb"], a["pa"])
        own = self._own_slot(a, a["sd"], named)
        post: dict = {}
        self._cut(a, post, [Or(And(kind != PICK_TOKEN, k == g), And(kind == PICK_CUT, k == own))
                            for k in range(self.N)])
        self._token(a, post, lambda k: And(kind == PICK_TOKEN, k == g))
        self._exclude(a, post, lambda k: And(kind == PICK_TOKEN, k == other), named)
        return post, self._end_turn(a, post)

    # ---- the proof's model: Init, invariant, actions, exits ---------------------------------------------
    def first_phase(self) -> int:
        random = [name for name, _x, _y, fixed, _o in self.colours if not fixed]
        if "red" in random:
            return DRAW_RED
        if "yellow" in random:
            return DRAW_YELLOW
        return ASIDE if any(x != y for _n, x, y, _f, _o in self.colours) else DEAL

    def init(self, f) -> Any:
        """Nothing dealt, nothing cut, no card used; the candidates the mission fixes are shown."""
        parts = [f["ph"] == self.first_phase(), f["sd"] == 0, f["det"] == 0, f["stab"] == 0, f["pk"] == 0]
        parts += [f[f"{p}{g}"] == 0 for g in range(self.N) for p in "cxte"]
        for name in self.state_vars:
            if name[:1] in ("u", "k") and name[1:].isdigit() or name.startswith(("dd", "val", "cl")):
                parts.append(f[name] == 0)
        for name, _x, _y, fixed, _o in self.colours:
            shown = fixed and self.first_phase() > (DRAW_RED if name == "red" else DRAW_YELLOW)
            parts += [f[f"{name[0]}c{v}"] == (1 if shown and v in fixed else 0) for v in range(1, 12)]
        return And(parts)

    def invariant(self, f) -> Any:
        return _conjunction(f, self._invariant(f))

    def _invariant(self, f):
        c, x, t = self.col(f, "c"), self.col(f, "x"), self.col(f, "t")
        yield f["det"] < self.D
        for r in range(self.R):
            for j in range(self.sizes[r] - 1):
                g = self.offset[r] + j
                yield Implies(c[g + 1] != 0, And(c[g] != 0, c[g] <= c[g + 1]))   # step 7, B02
        for g in range(self.N):
            yield Implies(t[g] != 0, And(c[g] != 0, t[g] == token_of(c[g])))    # B05
            yield Implies(x[g] == 1, c[g] != 0)
            yield Implies(f["ph"] < TOKENS, And(x[g] == 0, t[g] == 0))
            yield Implies(f["ph"] >= TOKENS, c[g] != 0)
            yield Implies(f["ph"] < DEAL, c[g] == 0)
        yield Implies(f["stab"] == 1, Or([f[f"u{i}"] == 1 for i in self.stab_cards]))
        before_play = [f["det"] == 0, f["stab"] == 0, f["pk"] == 0]
        before_play += [f[n] == 0 for n in self.state_vars if n[:1] == "u" or n.startswith("dd")]
        yield Implies(f["ph"] < PLAY, And(before_play))
        yield Implies(f["ph"] < TOKENS, And([f[n] == 0 for n in self.state_vars if n.startswith("cl")]))

    def _relation(self, guard, effect) -> Callable:
        names = self.state_vars

        def relation(a, b):
            if guard(a) is False:
                return False
            post, end = effect(a)
            if _sym(*a.values()):
                return And(guard(a), end == GOES_ON, [b[n] == post.get(n, a[n]) for n in names])
            if end != GOES_ON:
                return False
            return all(b[n] == post.get(n, a[n]) for n in names)
        return relation

    def _remember(self, fn: Callable, cast: Callable = lambda x: x) -> Callable:
        """A guard or an effect with its answers on plain tables kept (the legal moves, the relation,
        its exit and the binding of the kind and turn frames all ask about the same move)."""
        seen = self._effects

        def remembered(env):
            if not _plain(env):
                return fn(env)
            key = (fn, tuple(env.values()))
            got = seen.get(key)
            if got is None:
                if len(seen) > 300_000:
                    seen.clear()
                got = seen[key] = cast(fn(env))
            return got
        return remembered

    def actions(self) -> list[Action]:
        return [Action(name, self._relation(guard, effect), params)
                for name, params, guard, effect in self.families()]

    def exits(self) -> list[Exit]:
        """A family's move that ends the game: its effect must say so, and the ending must be what
        it says (defused: every seat wins; exploded: every seat loses, with the detonator where the
        move put it)."""
        def make(guard, effect):
            def relation(pre, end):
                if not guard(pre):
                    return False
                post, code = effect(pre)
                seats = [end.get(f"r{s}") for s in range(self.P)]
                if code == DEFUSED:
                    return end["won"] == 1 and all(r == 1 for r in seats)
                if code == EXPLODES:
                    return end["won"] == 0 and all(r == 0 for r in seats) and end["det"] == post.get("det", pre["det"])
                return False
            return relation
        return [Exit(name, make(guard, effect)) for name, _p, guard, effect in self.families()]

    def ending(self, game, s: S.State) -> dict[str, int]:
        """Who won and why: each seat's return, whether the bomb was defused, the detonator."""
        out = {f"r{i}": int(r) if r in (0, 1) else -1 for i, r in enumerate(game.returns(s))}
        out.update(won=int(s.phase == S.Phase.WON), det=s.detonator)
        return out

    # ---- what a move is, the chance laws, the legal moves -------------------------------------------------
    def bind(self, s: S.State, move: Any, actor: int) -> Bound:
        """The family and parameters of a real move, read off the state before and the move."""
        try:
            return self._bind(s, move, actor)
        except (IndexError, TypeError, ValueError):
            return Bound(f"a move the rules do not list ({move!r})")

    def _bind(self, s: S.State, move: Any, actor: int) -> Bound:
        ph = int(s.phase)
        if ph in (DRAW_RED, DRAW_YELLOW):
            key, name = ("r", "red") if ph == DRAW_RED else ("y", "yellow")
            return Bound(f"draw the {name} candidates", {f"{key}{v}": int(v in move) for v in range(1, 12)})
        if ph == ASIDE:
            return Bound("set candidates aside", {f"a{name[0]}{v}": int(10 * v + off in move)
                                                  for name, *_r, off in self.colours for v in range(1, 12)})
        if ph == DEAL:
            f = self.of(s)
            r = self.next_rack(f)
            return Bound(self.deal_name(r), {"t": move, "q": self.place_of(f, r, None, move)})
        kind = move[0]
        off = self.offset
        if kind == 0:
            return Bound("set-up info token (B09)", {"g": off[move[1]] + move[2]})
        if kind == 1:
            return Bound("dual cut", {"g": off[move[1]] + move[2], "n": move[3]})
        if kind == 2:
            return Bound("solo cut", {"n": move[1]})
        if kind == 3 and len(move) == 1:
            return Bound("reveal red wires")
        if kind == 4:
            return Bound("detector duplo", {"g": off[move[1]] + move[2], "h": off[move[1]] + move[3], "n": move[4]})
        if kind == 5:
            return Bound("flip the estabilizador", {"card": move[1]})
        if kind == 6:
            return self._swap_bound(self.of(s), move[1], off[move[2]] + move[3], off[move[4]] + move[5])
        if kind == 7 and s.pending:
            return Bound(self.pick_name(s.pending[2]), {"g": off[s.pending[2]] + move[1]})
        return Bound(f"a move the rules do not list ({move!r})")

    def _swap_bound(self, f, card: int, g: int, h: int) -> Bound:
        r1, r2 = self.rack_of[g], self.rack_of[h]
        q = self.place_of(f, r1, g - self.offset[r1], f[f"c{h}"])
        w = self.place_of(f, r2, h - self.offset[r2], f[f"c{g}"])
        return Bound(self.swap_name(r1, r2), {"card": card, "g": g, "h": h, "q": q, "w": w})

    def chance(self, f) -> dict[Bound, Fraction]:
        """The rule text's law at each chance node: the candidates drawn at random among the eleven
        tiles (step 5.2), the 'X de Y' ones set aside at random (step 5.3), each wire dealt drawn
        from the shuffled tiles left -- each tile equally likely, so a value by its count left (steps
        5.4 and 6) -- and B09's random set-up token among the player's blue wires."""
        ph = f["ph"]
        if ph in (DRAW_RED, DRAW_YELLOW):
            key, name = ("r", "red") if ph == DRAW_RED else ("y", "yellow")
            drawn = next(y for n, _x, y, _f, _o in self.colours if n == name)
            p = Fraction(1, comb(11, drawn))
            return {Bound(f"draw the {name} candidates", {f"{key}{v}": int(v in c) for v in range(1, 12)}): p
                    for c in combinations(range(1, 12), drawn)}
        if ph == ASIDE:
            options = []
            for name, x, y, _fixed, _o in self.colours:
                shown = [v for v in range(1, 12) if f[f"{name[0]}c{v}"] == 1]
                options.append([(name[0], c) for c in combinations(shown, y - x)])
            picks = [[]]
            for opts in options:
                picks = [p + [o] for p in picks for o in opts]
            law = {}
            for p in picks:
                params = {f"a{k}{v}": 0 for name, *_r in self.colours for k in [name[0]] for v in range(1, 12)}
                for k, chosen in p:
                    params.update({f"a{k}{v}": 1 for v in chosen})
                law[Bound("set candidates aside", params)] = Fraction(1, len(picks))
            return law
        if ph == DEAL:
            left = {code: self.left(f, code) for code in self.codes}
            total = sum(n for n in left.values() if n > 0)
            rack = self.next_rack(f)
            return {Bound(self.deal_name(rack), {"t": code, "q": self.place_of(f, rack, None, code)}):
                    Fraction(n, total) for code, n in left.items() if n > 0}
        if ph == TOKENS and self.random_tokens:
            slots = [g for g in self.hand[f["sd"]] if self.uncut(f, g) and colour(f[f"c{g}"]) == 0]
            return {Bound("set-up info token (B09)", {"g": g}): Fraction(1, len(slots)) for g in slots}
        return {}

    def options(self, f) -> set[Bound]:
        """The moves the rules allow at a decision state: of the teammate whose pick is due, else of
        the seat to act."""
        return self.legal(f, f["pp"] if f["pk"] else f["sd"])

    def legal(self, f, actor: int) -> set[Bound]:
        """The moves the rules allow at a decision state: every family's guard, tried on every
        parameter the move could take (each guard is the relation's own)."""
        out: set[Bound] = set()
        sd = f["sd"]
        mine = [g for g in self.hand[sd]] if 0 <= sd < self.P else []
        theirs = [g for g in range(self.N) if g not in mine]
        held = [n for n in self.names if self.holds(f, sd, n)]
        candidates = {
            "set-up info token (B09)": [{"g": g} for g in mine],
            "dual cut": [{"g": g, "n": n} for g in theirs for n in held],
            "solo cut": [{"n": n} for n in held],
            "reveal red wires": [{}],
            "flip the estabilizador": [{"card": i} for i in self.stab_cards],
            "detector duplo": [{"g": g, "h": h, "n": n} for r in range(self.R) if self.owners[r] != sd
                               for g, h in combinations(self.slots_of(r), 2) for n in held],
        }
        for r1, r2 in self.swap_racks():
            candidates[self.swap_name(r1, r2)] = [
                dict(self._swap_bound(f, i, g, h).params) for i in self.comm_cards for g in self.slots_of(r1)
                for h in self.slots_of(r2) if self.owners[r1] == sd and f[f"c{g}"] and f[f"c{h}"]]
        for r in range(self.R):
            candidates[self.pick_name(r)] = [{"g": g} for g in (f["pa"], f["pb"]) if g in self.slots_of(r)]
        for name, _params, guard, _effect in self.families():
            for params in candidates.get(name, ()):
                if guard({**f, **params, "actor": actor}):
                    out.add(Bound(name, params))
        return out

    # ---- what a seat may know -----------------------------------------------------------------------------
    def view(self, f: dict, seat: int) -> tuple:
        """What the rules let ``seat`` know of the table: its own wires; of every other rack the
        number of wires, the cut ones face up, the info tokens and what failed cuts excluded; every
        public fact (the step, the seat to act, the detonator, the cards, the Detector Duplos, the
        pick that is due, the validation tokens, the claims); which candidates were shown and how
        many were set aside -- never which, nor a teammate's uncut wire (the communication rules
        forbid telling one's own wires)."""
        slots = []
        for g in range(self.N):
            c, x = f[f"c{g}"], f[f"x{g}"]
            shown = c if self.owner_of[g] == seat or x else (1 if c else 0) * -1
            slots.append((shown, x, f[f"t{g}"], f[f"e{g}"]))
        public = tuple(f[n] for n in self.state_vars if not n.startswith(("c", "x", "t", "e", "rc", "yc"))
                       or n.startswith("cl"))
        candidates = tuple((f[f"{k}c{v}"] != 0) for name, *_r in self.colours for k in [name[0]]
                           for v in range(1, 12))
        aside = sum(f[f"{name[0]}c{v}"] == 2 for name, *_r in self.colours for v in range(1, 12))
        return public, tuple(slots), candidates, aside

    def wires_view(self, f: dict, seat: int) -> tuple:
        """The part of ``view`` that speaks of where the wires may be (what a deduction reads): the
        seat's own wires, the others' cut wires, tokens and exclusions (a hand that placed no set-up
        token holds no blue wire: every blue value excluded; a token tells the value, so the
        exclusions of a tokened wire add nothing), the claims about the others, the candidates
        shown and how many were set aside."""
        no_blue = {s for s in range(self.P) if f[f"cl{s}_{NO_BLUE}"]}
        all_blue = sum(1 << (v - 1) for v in range(1, self.V + 1))
        slots = []
        for g in range(self.N):
            c, x = f[f"c{g}"], f[f"x{g}"]
            owner = self.owner_of[g]
            if owner == seat or x:
                slots.append((c, x))
            elif f[f"t{g}"]:   # a token tells the value: what the wire is not adds nothing
                slots.append((-1, f[f"t{g}"], 0))
            else:
                e = f[f"e{g}"] | (all_blue if owner in no_blue else 0)
                slots.append((-1 if c else 0, 0, e))
        claims = tuple(f[f"cl{s}_{n}"] for s in range(self.P) if s != seat for n in self.names)
        _public, _slots, candidates, aside = self.view(f, seat)
        return tuple(slots), claims, candidates, aside


def _remembered(fn: Callable[[Any], Any], limit: int = 200_000) -> Callable[[Any], Any]:
    """``fn`` with its answers on plain frames (and real states) kept: each state is read before
    and after a move, by every proof, and the same frames recur."""
    seen: dict = {}

    def of(x):
        if isinstance(x, dict):
            if any(isinstance(v, z3.ExprRef) for v in x.values()):
                # a Z3 frame is built once per proof and asked about for every action
                got = seen.get(id(x))
                if got is None or got[0] is not x:
                    got = seen[id(x)] = (x, fn(x))
                return got[1]
            key = tuple(x.values())
        else:
            key = x
        got = seen.get(key, seen)
        if got is seen:
            if len(seen) > limit:
                seen.clear()
            got = seen[key] = fn(x)
        return got
    return of


def make_table(m: Mission) -> TableModel:
    """The table model of a mission, with its readings of real states and moves remembered (every
    proof asks for them)."""
    tm = TableModel(m)
    tm.of = _remembered(tm.of)
    tm.bind = _remembered_bind(tm.bind)
    return tm


def table_proof(game, tm: TableModel | None = None) -> RuleProof:
    """The table proof of one mission (see the module docstring)."""
    tm = tm or make_table(game.mission)
    return RuleProof(
        "moves-as-written (table)",
        "every move changes the table exactly as the rule text says, the legal moves at every decision "
        "are exactly the rules', chance follows the rules' laws and the game ends as they say (who wins, "
        "with the detonator where the move put it); the racks stay sorted with every info token truthful "
        "(B05), cut wires on filled slots, the Estabilizador flipped only once used, the detonator below "
        "the skull",
        frame=tm.frame,
        abstraction_doc=("the whole table: per slot g (racks in seat order) c<g> = the wire's sort code (B02; "
                         "0 not dealt yet), x<g> = cut, t<g> = its info token (a blue value, 13 yellow), e<g> "
                         "= values it is known not to be (bits); ph = set-up step or play, sd = the seat to "
                         "act, det = the detonator, stab = Estabilizador flipped, pk/pp/pa/pb/pn = a pick due "
                         "(kind, picker, slots, value), u<i>/k<i> = card i used/unlocked, dd<s> = seat s "
                         "used its Detector Duplo, val<v> = validation token, rc<v>/yc<v> = candidate not "
                         "shown/in play/set aside, cl<s>_<n> = seat s known to hold n (0: no blue wire)"),
        abstraction=tm.of, init=tm.init, invariant=_remembered(tm.invariant), actions=tm.actions(),
        bind=tm.bind, chance=tm.chance, options=tm.options, exits=tm.exits(),
        ending=lambda s: tm.ending(game, s), assumptions=_remembered(tm.typing), sentence=SENTENCE,
        prove=tm.N <= PROVE_UP_TO_WIRES)


def _remembered_bind(bind: Callable) -> Callable:
    seen: dict = {}

    def bound(s, move, actor):
        key = (s, move, actor)
        got = seen.get(key)
        if got is None:
            if len(seen) > 200_000:
                seen.clear()
            got = seen[key] = bind(s, move, actor)
        return got
    return bound
