"""Presentes' rules as its proofs state them, bound move by move to ``model.presentes``.

Source: ``seeds/003_a4b37c79483a6044.txt`` (quoted below) and the rulings catalog (``model/presentes/README.md``).
This file is a second reading of the rule text, written apart from ``model/presentes/rules.py``:

* **the frame** (one per state, ``abstraction``): per seat the gift held ``g{i}`` (-1 none), the
  square ``p{i}`` (the finish ``F`` once arrived, ``F + 1`` once removed by the host), whether its
  first-gift choice is used up ``u{i}`` and its place in the arrival order ``o{i}`` (-1 not yet);
  per gift whether it is under the tree ``t{h}``; the mover ``m``, the phase ``ph``, the seat
  taking a gift from the tree ``tk``, the landing of the chain ``c``, the host's turn slot ``sl``
  and, under P08 'behind', the seat the drawn Revanche lets decide ``rv``;
* **one relation per move** (``Abstract.actions``), *functional*: the frame after is computed
  from the frame before, the move's parameters (the roll ``r``, the Salto distance ``r``, the
  player picked ``b``, the gift taken ``h``) and who acts (``actor``): where the piece lands, what
  the square does, the end of the turn, the next mover (skipping those off the track, the host's
  skips and removals), the reveal (the last player arrives, takes a gift under P04), the arrival
  order. Any other frame after fails the refinement check;
* **the chance law** (``Abstract.law``): the sum of the dice; the effect drawn on a ★ or ☠ among
  those that serve the mover's situation, "Duas vezes mais provável" doubling a weight, with its
  random part (the Salto distance, P05; the player picked at random, P11, P20, P21, P26); a gift
  from the tree uniformly (P15);
* **the choices the phone offers** (``Abstract.options``): the first gift (tree or a victim),
  whom Roubo sorrateiro or Troca de lugar targets, the Revanche, the gift picked (P15 'pick') --
  the model's legal moves, bound, must be exactly these sets;
* **the proofs** (Z3 on this configuration's own board, dice and seats): gift conservation, the
  tree never empty when someone must take from it, shield safety (a step claim), termination
  under every policy (a potential), the chain bound, the arrival order.

``bind`` says what a model move IS from the state before and the move alone; ``proofs.refinement``
checks every explored (or sampled) transition against the bound relation, every chance node
against the law and every decision against the options.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

import z3

from ruleproof.model.presentes.board import Square
from ruleproof.model.presentes.rules import Effect, Phase, St
from ruleproof.model.protocol import CHANCE
from ruleproof.proofs.harness import Action
from ruleproof.proofs.logic import And, If, Implies, Not, Or, Sum
from ruleproof.proofs.refinement import STUTTER, Bound, RuleProof, StepClaim

SEED = "seeds/003_a4b37c79483a6044.txt"
NONE = -1
DRAWS = (Phase.LUCK, Phase.BAD)
TREES = (Phase.TREE, Phase.TREE_LAST)

#: the sentences the relations and laws state (quoted from the seed)
TEXT = {
    "turn": "Na sua vez, jogue o dado pelo celular. Seu peão anda esse número de casas pela trilha.",
    "square": "Uma casa ★ sorteia um efeito de sorte, e uma casa ☠, um de azar. Numa casa comum, quem "
              "está sem presente pega um da árvore; quem tem presente segue em frente.",
    "draw": "O efeito é sorteado entre os que servem para a sua situação: se você tem presente e quem "
            "está perto.",
    "double": "Roubo sorrateiro ... Duas vezes mais provável",
    "first": "Na primeira vez que você cai numa casa comum sem presente, escolhe como ganhar um. Seu "
             "primeiro presente: roube de alguém ou pegue da árvore.",
    "shield": "Quem está numa casa 🛡 está a salvo: ninguém pode pegar o presente, trocar de presente ou "
              "trocar de lugar com essa pessoa.",
    "chain": "Valem no máximo 3 quedas seguidas; depois, a sequência para. Os outros efeitos encerram a "
             "jogada: voltar casas ou ir para outro lugar nunca faz você cair de novo.",
    "finish": "Quem chega ao fim fica com o presente, e ninguém pode mais pegá-lo. Quem chega sem "
              "presente pega um da árvore.",
    "end": "O jogo termina quando só resta um jogador no caminho. Aí a TV mostra todos os jogadores em "
           "ordem de chegada e quem leva qual presente.",
    "host": "Pular vez: Encerra a vez do jogador atual ... Remover jogador: Tira um jogador da partida. "
            "O presente dele volta para a árvore.",
}


def cite(*keys: str, rulings: str = "") -> str:
    quoted = " / ".join(f"'{TEXT[k]}'" for k in keys)
    return f"{SEED}: {quoted}" + (f" (rulings {rulings})" if rulings else "")


# ---- the reading: parameters and rulings as the proofs take them --------------------------------------

@dataclass(frozen=True)
class Reading:
    """One configuration as the proofs read it: the ruleset's parameters and rulings and the
    board's squares (the layout is data: P01 generates it from the printed counts)."""
    n: int
    squares: tuple[int, ...]
    dice: int
    landings: int
    reach: int
    jumps: tuple[int, ...]
    back: int
    rulings: Mapping[str, str]
    skips: frozenset
    removals: Mapping[int, tuple[int, ...]]

    @property
    def F(self) -> int:
        return len(self.squares) - 1

    @property
    def out(self) -> int:
        return len(self.squares)

    @property
    def cap(self) -> int:
        """The last turn slot a host event names, plus one (0: no host events)."""
        events = set(self.skips) | set(self.removals)
        return max(events) + 1 if events else 0

    def says(self, ruling: str, option: str) -> bool:
        return self.rulings[ruling] == option

    def where(self, kind: Square) -> tuple[int, ...]:
        return tuple(q for q, k in enumerate(self.squares) if k == kind)


def reading(ruleset, squares: Sequence[int]) -> Reading:
    p = ruleset.params
    removals: dict[int, tuple[int, ...]] = {}
    for slot, seat in p["host_remove"]:
        removals[slot] = removals.get(slot, ()) + (seat,)
    return Reading(n=p["players"], squares=tuple(int(q) for q in squares), dice=p["dice"],
                   landings=p["max_landings"], reach=p["sneak_range"], jumps=tuple(p["jumps"]),
                   back=p["back"], rulings=dict(ruleset.rulings), skips=frozenset(p["host_skip"]),
                   removals=removals)


@lru_cache(maxsize=None)
def dice_law(dice: int) -> dict[int, Fraction]:
    """'jogue o dado' with 1 or 2 fair six-sided dice: the law of their sum."""
    law: dict[int, Fraction] = {}
    for faces in itertools.product(range(1, 7), repeat=dice):
        law[sum(faces)] = law.get(sum(faces), Fraction(0)) + Fraction(1, 6 ** dice)
    return law


_Z = z3.ExprRef


def _symbolic(*xs: Any) -> bool:
    return any(isinstance(x, _Z) for x in xs)


# The rules below run on plain values (the refinement check: a few thousand moves a second) and on
# Z3 terms (the proofs); these connectives are ``proofs.logic``'s, without its list flattening, so
# that the values pass stays cheap.
def _if(c: Any, a: Any, b: Any) -> Any:
    if isinstance(c, _Z) or isinstance(a, _Z) or isinstance(b, _Z):
        return z3.If(c, a, b)
    return a if c else b


def _and(*xs: Any) -> Any:
    if any(isinstance(x, _Z) for x in xs):
        return z3.And(list(xs))
    return all(xs)


def _or(xs: Sequence[Any]) -> Any:
    if any(isinstance(x, _Z) for x in xs):
        return z3.Or(list(xs))
    return any(xs)


def _not(x: Any) -> Any:
    return z3.Not(x) if isinstance(x, _Z) else not x


def _sum(xs: Sequence[Any]) -> Any:
    return z3.Sum(list(xs)) if any(isinstance(x, _Z) for x in xs) else sum(xs)


def _or2(*xs: Any) -> Any:
    return _or(xs)


def _implies(a: Any, b: Any) -> Any:
    return z3.Implies(a, b) if isinstance(a, _Z) or isinstance(b, _Z) else (not a) or bool(b)


def _max0(x: Any) -> Any:
    return z3.If(x >= 0, x, 0) if isinstance(x, _Z) else max(0, x)


def _terms_once(predicate: Callable) -> Callable:
    """A frame predicate computed once per frame: its Z3 term (every proof of the configuration
    asks for the same ones) or its value on a mapped frame (the proofs sharing it check it on the
    same frame objects, ``Abstract.abstraction``'s)."""
    name = predicate.__name__

    def wrapped(self, f, *rest):
        if not isinstance(f["m"], _Z):
            key = (name, id(f), *map(id, rest))
            got = self.values.get(key)
            if got is not None and got[0] is f and all(a is b for a, b in zip(got[1], rest)):
                return got[2]
            value = predicate(self, f, *rest)
            if len(self.values) > 500_000:
                self.values.clear()
            self.values[key] = (f, rest, value)   # holding f: its id is not reused while listed
            return value
        key = (name, tuple(v.get_id() for v in f.values()),
               tuple(v.get_id() for r in rest for v in r.values()))
        if key not in self.terms:
            self.terms[key] = predicate(self, f, *rest)
        return self.terms[key]
    wrapped.__doc__ = predicate.__doc__
    return wrapped


def branch(cond: Any, yes: Callable[[], dict], no: Callable[[], dict]) -> dict:
    """``yes()`` or ``no()``: on values only the branch taken is computed; on Z3 terms both, merged."""
    if not isinstance(cond, _Z):
        return yes() if cond else no()
    a, b = yes(), no()
    return {k: a[k] if a[k] is b[k] else z3.If(cond, a[k], b[k]) for k in a}


Table = dict  # the state part of a frame, as values or Z3 terms


class Abstract:
    """The abstract model of one configuration: frame, rules, relations, chance law, options."""

    def __init__(self, rd: Reading):
        self.rd = rd
        self.n, self.F, self.out, self.cap = rd.n, rd.F, rd.out, rd.cap
        self.shields = rd.where(Square.SHIELD)
        self.lucks = rd.where(Square.LUCK)
        self.bads = rd.where(Square.BAD)
        n = self.n
        self.keys = ([f"g{i}" for i in range(n)] + [f"p{i}" for i in range(n)] + [f"u{i}" for i in range(n)]
                     + [f"o{i}" for i in range(n)] + [f"t{h}" for h in range(n)]
                     + ["m", "ph", "tk", "c", "sl", "rv"])
        self.bools = {f"u{i}" for i in range(n)} | {f"t{h}" for h in range(n)}
        self.totals = tuple(sorted(dice_law(rd.dice)))
        self.law_cache: dict = {}
        self.options_cache: dict = {}
        self.frames: dict = {}      # state -> frame (the proofs of one configuration share them)
        self.terms: dict = {}       # Z3 terms of frame predicates, built once
        self.values: dict = {}      # their values on mapped frames, computed once

    # ---- frame and abstraction ----------------------------------------------------------------------
    def frame(self, sfx: str) -> dict[str, z3.ExprRef]:
        f = {k: (z3.Bool(k + sfx) if k in self.bools else z3.Int(k + sfx)) for k in self.keys}
        for name in ("b", "r", "h", "actor"):   # a move's own inputs (parameters) and who acts
            f[name] = z3.Int(name + sfx)
        return f

    def abstraction(self, s: St) -> dict[str, Any]:
        got = self.frames.get(s)
        if got is None:
            if len(self.frames) > 500_000:
                self.frames.clear()
            got = self.frames[s] = self._abstraction(s)
        return got

    def _abstraction(self, s: St) -> dict[str, Any]:
        n = self.n
        f: dict[str, Any] = {}
        for i in range(n):
            f[f"g{i}"] = s.gift[i]
        for i in range(n):
            f[f"p{i}"] = s.pos[i]
        for i in range(n):
            f[f"u{i}"] = bool(s.used >> i & 1)
        for i in range(n):
            f[f"o{i}"] = s.order.index(i) if i in s.order else NONE
        for h in range(n):
            f[f"t{h}"] = bool(s.tree >> h & 1)
        f["m"], f["ph"] = s.turn, int(s.phase)
        f["tk"] = s.aux if s.phase in TREES else NONE
        f["c"], f["sl"] = s.chain, s.slot
        f["rv"] = (s.aux >> 4) - 1 if s.phase == Phase.REVENGE and self.rd.says("P08", "behind") else NONE
        return f

    DOC = ("g{i} = the gift seat i holds (-1 none), p{i} = its square (F once arrived, F+1 once removed), "
           "u{i} = its first-gift choice is used up, o{i} = its place in the arrival order (-1 none yet), "
           "t{h} = gift h is under the tree, m = the mover, ph = the phase, tk = the seat taking a gift "
           "from the tree (-1 none), c = the landing of the chain (0 without a draw), sl = the host's "
           "turn slot, rv = the seat a drawn Revanche lets decide under P08 'behind' (-1 otherwise)")

    @_terms_once
    def typing(self, f) -> Any:
        n = self.n
        parts = [f["m"] >= 0, f["m"] < n, f["ph"] >= 0, f["ph"] <= int(Phase.OVER), f["tk"] >= NONE,
                 f["tk"] < n, f["c"] >= 0, f["sl"] >= 0, f["sl"] <= self.cap, f["rv"] >= NONE, f["rv"] < n]
        for i in range(n):
            parts += [f[f"g{i}"] >= NONE, f[f"g{i}"] < n, f[f"p{i}"] >= 0, f[f"p{i}"] <= self.out,
                      f[f"o{i}"] >= NONE, f[f"o{i}"] < n]
        return And(parts)

    # ---- reading a table ---------------------------------------------------------------------------
    def get(self, T: Table, name: str, idx: Any, default: Any = None) -> Any:
        """``T[name{idx}]`` for a seat or gift that may be a Z3 term (``default`` for a value out of
        range, e.g. -1 for "nobody", where a caller guards its use)."""
        if not isinstance(idx, _Z):
            return T[f"{name}{idx}"] if default is None or 0 <= idx < self.n else default
        expr = T[f"{name}{self.n - 1}"]
        for i in range(self.n - 2, -1, -1):
            expr = _if(idx == i, T[f"{name}{i}"], expr)
        return expr

    def put(self, T: Table, name: str, idx: Any, value: Any) -> Table:
        T = dict(T)
        if not isinstance(idx, _Z):
            T[f"{name}{idx}"] = value
            return T
        for i in range(self.n):
            T[f"{name}{i}"] = _if(idx == i, value, T[f"{name}{i}"])
        return T

    def shield(self, p: Any) -> Any:
        """'Casa 🛡': the square is a shield square (never the finish or 'removed')."""
        return _or([p == q for q in self.shields]) if _symbolic(p) else p in self.shields

    def luck(self, p: Any) -> Any:
        return _or([p == q for q in self.lucks]) if _symbolic(p) else p in self.lucks

    def bad(self, p: Any) -> Any:
        return _or([p == q for q in self.bads]) if _symbolic(p) else p in self.bads

    def on(self, T: Table, i: Any) -> Any:
        return self.get(T, "p", i) < self.F

    def on_count(self, T: Table) -> Any:
        return _sum([_if(T[f"p{i}"] < self.F, 1, 0) for i in range(self.n)])

    def arrived(self, T: Table) -> Any:
        return _sum([_if(T[f"o{i}"] >= 0, 1, 0) for i in range(self.n)])

    def targetable(self, T: Table, i: Any) -> Any:
        """P19: another player still on the track, not on a shield square."""
        p = self.get(T, "p", i)
        return _and(i != T["m"], p < self.F, _not(self.shield(p)))

    def next_on(self, T: Table, seat: Any) -> Any:
        """The first seat on the track from ``seat`` on (0 <= seat <= n), in turn order."""
        n = self.n
        if not _symbolic(seat, *(T[f"p{i}"] for i in range(n))):
            return next((seat + k) % n for k in range(n) if T[f"p{(seat + k) % n}"] < self.F)

        def first_from(s0: int) -> Any:
            expr: Any = s0
            for k in range(n - 1, -1, -1):
                i = (s0 + k) % n
                expr = _if(T[f"p{i}"] < self.F, i, expr)
            return expr
        if not _symbolic(seat):
            return first_from(seat % n)
        expr = first_from(0)
        for s0 in range(n - 1, 0, -1):
            expr = _if(_or2(seat == s0, seat == s0 + n), first_from(s0), expr)
        return expr

    def previous(self, T: Table) -> Any:
        """P08 'previous-seat' (P27 cyclic): the nearest seat before the mover in turn order still on
        the track (-1 none)."""
        n, m = self.n, T["m"]

        def before(m0: int) -> Any:
            expr: Any = NONE
            for k in range(n - 1, 0, -1):
                i = (m0 - k) % n
                expr = _if(T[f"p{i}"] < self.F, i, expr)
            return expr
        if not _symbolic(m):
            return before(m) if _symbolic(*(T[f"p{i}"] for i in range(n))) else \
                next(((m - k) % n for k in range(1, n) if T[f"p{(m - k) % n}"] < self.F), NONE)
        expr = before(0)
        for m0 in range(n - 1, 0, -1):
            expr = _if(m == m0, before(m0), expr)
        return expr

    # ---- the rules, as table transformers ----------------------------------------------------------
    def give(self, T: Table, seat: Any, gift: Any) -> Table:
        """P16 'first-gift': getting any gift uses the first-gift choice up."""
        T = self.put(T, "g", seat, gift)
        if self.rd.says("P16", "first-gift"):
            T = self.put(T, "u", seat, _or2(self.get(T, "u", seat), gift >= 0))
        return T

    def swap_gifts(self, T: Table, a: Any, b: Any) -> Table:
        """P22: a steal by a player holding a gift is a swap ('Em troca, ele fica com o seu')."""
        ga, gb = self.get(T, "g", a), self.get(T, "g", b)
        return self.give(self.give(T, a, gb), b, ga)

    def swap_places(self, T: Table, a: Any, b: Any) -> Table:
        pa, pb = self.get(T, "p", a), self.get(T, "p", b)
        return self.put(self.put(T, "p", a, pb), "p", b, pa)

    def take_tree(self, T: Table, seat: Any) -> Table:
        return {**T, "ph": int(Phase.TREE), "tk": seat, "c": 0}

    def advance(self, T: Table, steps: Any, landing: Any) -> Table:
        """Move the mover ``steps`` forward; this is landing ``landing`` of the chain (P12)."""
        F, m = self.F, T["m"]
        dest = self.get(T, "p", m) + steps
        if self.rd.says("P03", "bounce"):   # exact landing: the excess bounces back
            return branch(dest == F, lambda: self.finish(T),
                          lambda: self.land_at(T, _if(dest > F, _max0(2 * F - dest), dest), landing))
        return branch(dest >= F, lambda: self.finish(T), lambda: self.land_at(T, dest, landing))

    def finish(self, T: Table) -> Table:
        """'Quem chega ao fim fica com o presente ... Quem chega sem presente pega um da árvore.'"""
        m = T["m"]
        T = self.put(self.put(T, "o", m, self.arrived(T)), "p", m, self.F)
        giftless = (lambda: self.first_gift(T)) if self.rd.says("P14", "steal") else \
            (lambda: self.take_tree(T, m))
        return branch(self.get(T, "g", m) >= 0, lambda: self.end_turn(T), giftless)

    def land_at(self, T: Table, square: Any, landing: Any) -> Table:
        T = self.put(T, "p", T["m"], square)
        # 'Valem no máximo 3 quedas seguidas; depois, a sequência para.'
        return branch(landing > self.rd.landings, lambda: self.end_turn(T), lambda: self.land(T, square, landing))

    def land(self, T: Table, q: Any, landing: Any) -> Table:
        """'A casa onde você cai decide o que acontece.'"""
        m = T["m"]
        return branch(self.luck(q), lambda: {**T, "ph": int(Phase.LUCK), "c": landing},
                      lambda: branch(self.bad(q), lambda: {**T, "ph": int(Phase.BAD), "c": landing},
                                     lambda: branch(self.get(T, "g", m) >= 0, lambda: self.end_turn(T),
                                                    lambda: self.first_gift(T))))

    def first_gift(self, T: Table) -> Table:
        """'Na primeira vez que você cai numa casa comum sem presente, escolhe como ganhar um' (P16:
        the first such landing uses the choice up; P33: no question when nobody can be stolen from)."""
        m = T["m"]

        def fresh() -> Table:
            T2 = T if self.rd.says("P16", "first-gift") else self.put(T, "u", m, True)
            victims = _or([_and(self.targetable(T2, i), T2[f"g{i}"] >= 0) for i in range(self.n)])
            return branch(victims, lambda: {**T2, "ph": int(Phase.FIRST), "c": 0}, lambda: self.take_tree(T2, m))
        return branch(self.get(T, "u", m), lambda: self.take_tree(T, m), fresh)

    def end_turn(self, T: Table) -> Table:
        m = T["m"]
        nxt = _if(m == self.n - 1, 0, m + 1)
        slot = T["sl"] + 1 if self.cap else 0
        return branch(self.on_count(T) <= 1, lambda: self.game_over(T), lambda: self.begin_slot(T, nxt, slot))

    def game_over(self, T: Table) -> Table:
        """'O jogo termina quando só resta um jogador no caminho': the last one arrives last (P32)
        and, holding no gift, takes one from the tree (P04 'take-from-tree')."""
        F = self.F
        done = {**T, "c": 0, "rv": NONE}

        def last_one() -> Table:
            last: Any = self.n - 1
            for i in range(self.n - 2, -1, -1):
                last = _if(T[f"p{i}"] < F, i, last)
            T2 = self.put(self.put(done, "o", last, self.arrived(T)), "p", last, F)
            takes = _and(self.get(T, "g", last) < 0, self.rd.says("P04", "take-from-tree"))
            return branch(takes, lambda: {**T2, "ph": int(Phase.TREE_LAST), "tk": last},
                          lambda: {**T2, "ph": int(Phase.OVER), "tk": NONE})
        return branch(self.on_count(T) == 0, lambda: {**done, "ph": int(Phase.OVER), "tk": NONE}, last_one)

    def begin_slot(self, T: Table, seat: Any, slot: Any) -> Table:
        """The next turn: the next seat on the track; the host's events of the slot first (P28, P29)."""
        if not self.cap:
            return {**T, "ph": int(Phase.ROLL), "m": self.next_on(T, seat), "c": 0, "tk": NONE, "rv": NONE, "sl": 0}
        if _symbolic(slot):
            out = self._slot(T, seat, self.cap + 1)
            for v in range(self.cap, 0, -1):
                out = branch(slot == v, lambda v=v: self._slot(T, seat, v), lambda out=out: out)
            return out
        return self._slot(T, seat, slot)

    def _slot(self, T: Table, seat: Any, slot: int) -> Table:
        for victim in self.rd.removals.get(slot, ()):
            # 'Remover jogador: Tira um jogador da partida. O presente dele volta para a árvore.'
            T = branch(self.on(T, victim), lambda T=T, v=victim: self.remove(T, v), lambda T=T: T)

        def go() -> Table:
            mover = self.next_on(T, seat)
            if slot in self.rd.skips:   # 'Pular vez': that player does not roll this slot
                return self._slot(T, mover + 1, slot + 1)
            return {**T, "ph": int(Phase.ROLL), "m": mover, "c": 0, "tk": NONE, "rv": NONE,
                    "sl": min(slot, self.cap)}
        return branch(self.on_count(T) <= 1, lambda: self.game_over(T), go)

    def remove(self, T: Table, v: int) -> Table:
        g = T[f"g{v}"]
        T = {**T, **{f"t{h}": _or2(T[f"t{h}"], g == h) for h in range(self.n)}}
        return {**T, f"g{v}": NONE, f"p{v}": self.out}

    def initial(self) -> Table:
        n = self.n
        T = {**{f"g{i}": NONE for i in range(n)}, **{f"p{i}": 0 for i in range(n)},
             **{f"u{i}": False for i in range(n)}, **{f"o{i}": NONE for i in range(n)},
             **{f"t{h}": True for h in range(n)}, "m": 0, "ph": int(Phase.ROLL), "tk": NONE, "c": 0,
             "sl": 0, "rv": NONE}
        return self.begin_slot(T, 0, 1 if self.cap else 0)

    def taker(self, T: Table) -> Any:
        """Who decides a drawn Revanche: the previous player (P08), or the one drawn under 'behind'."""
        return T["rv"] if self.rd.says("P08", "behind") else self.previous(T)

    # ---- the relations -----------------------------------------------------------------------------------
    def pinned(self, f) -> list:
        """For Z3 only, without host events: the mover is seat 0 and the gift taken gift 0. Every
        rule treats the seats alike up to turn order (next and previous seat are cyclic) and the
        gifts alike, and every claim proved here is unchanged by rotating the seats and renaming
        the gifts, so a step from any mover maps to one from seat 0 (a symmetry reduction that
        spares Z3 a case split per seat). The host's events name seats and slots: no pin then. The
        refinement check relates every real move, pinned nothing."""
        return [] if self.cap else [f["m"] == 0, f["h"] == 0]

    def _relation(self, name: str, phases: tuple, actor: Callable[[Table], Any],
                  core: Callable[[dict, Table], tuple[Any, Callable[[], Table]]]) -> Callable:
        """``core(f, T) -> (guard, after)``: in one of ``phases``, played by ``actor(T)``, the move is
        allowed when ``guard`` holds and leaves exactly the table ``after()``."""
        keys = self.keys
        read = itemgetter(*keys)   # a frame's values in the keys' order (one C call)
        built: dict = {}

        def relation(f, t):
            if isinstance(f["m"], _Z):
                T = {k: f[k] for k in keys}
                # Z3 constants are identified by name: every proof asking with the same frames
                # gets the formula built once
                zkey = (tuple(v.get_id() for v in f.values()), tuple(v.get_id() for v in t.values()))
                if zkey not in built:
                    guard, after = core(f, T)
                    post = after()
                    built[zkey] = _and(*self.pinned(f), _or([f["ph"] == int(x) for x in phases]),
                                       f["actor"] == actor(T), guard, *[t[k] == post[k] for k in keys if k in t])
                return built[zkey]
            # on values, computed each time: the mapping pass asks each (frame, move) once (a memo
            # of them never hit, and held ~150k frames)
            if f["ph"] not in phases:
                return False
            T = dict(zip(keys, read(f)))
            if f["actor"] != actor(T):
                return False
            guard, after = core(f, T)
            if not guard:
                return False
            return read(t) == read(after())   # (a table after holds exactly the frame's keys)
        relation.__name__ = name
        return relation

    def actions(self) -> list[Action]:
        rd, n, F = self.rd, self.n, self.F
        chance = lambda T: CHANCE   # noqa: E731
        mover = lambda T: T["m"]    # noqa: E731
        seats = {"b": range(n)}
        gm = lambda T: self.get(T, "g", T["m"])   # noqa: E731
        pm = lambda T: self.get(T, "p", T["m"])   # noqa: E731
        random = rd.says("P11", "random")

        def roll(f, T):
            return self.on(T, T["m"]), lambda: self.advance(T, f["r"], 1)

        def salto(f, T):  # 'Avance 2, 3 ou 5 casas e caia de novo' ('Numa casa ★, quando você não tem presente')
            return _and(self.on(T, T["m"]), gm(T) < 0), lambda: self.advance(T, f["r"], T["c"] + 1)

        def lugar(f, T):  # 'Pegue o presente e o lugar do mais adiantado. Em troca, fica com ...' (P02, P07)
            b = f["b"]
            own = _and(rd.says("P07", "own-leader"), gm(T) >= 0)
            other = _and(self.targetable(T, b), self.get(T, "p", b) > pm(T), self.get(T, "g", b) >= 0)

            def after():
                def swap():
                    T2 = self.swap_gifts(T, T["m"], b)
                    return self.end_turn(self.swap_places(T2, T["m"], b) if rd.says("P02", "swap-both") else T2)
                return branch(b == T["m"], lambda: self.end_turn(T), swap)
            return _and(self.on(T, T["m"]), _if(b == T["m"], own, other)), after

        def steal(direction: int, anyone: bool = False):
            def core(f, T):
                b = f["b"]
                d = self.get(T, "p", b) - pm(T)
                guard = _and(self.on(T, T["m"]), self.targetable(T, b), self.get(T, "g", b) >= 0,
                            _or2(gm(T) >= 0, anyone), d > 0 if direction > 0 else d < 0 if direction < 0 else True)
                return guard, lambda: self.end_turn(self.swap_gifts(T, T["m"], b))
            return core

        def ask(phase):
            return lambda f, T: (self.on(T, T["m"]), lambda: {**T, "ph": int(phase), "c": 0})

        def troca(f, T):  # 'Troque de lugar no tabuleiro com outro jogador. Sem efeito de casa depois.'
            b = f["b"]
            return (_and(self.on(T, T["m"]), self.targetable(T, b), gm(T) >= 0),
                    lambda: self.end_turn(self.swap_places(T, T["m"], b)))

        def volte(f, T):  # 'Ande 3 casas para trás' (P09: never behind the start)
            return (_and(self.on(T, T["m"]), gm(T) < 0),
                    lambda: self.end_turn(self.put(T, "p", T["m"], _max0(pm(T) - rd.back))))

        def arvore(f, T):  # 'Seu presente volta para a árvore.'
            g = gm(T)

            def after():
                T2 = {**T, **{f"t{h}": _or2(T[f"t{h}"], g == h) for h in range(n)}}
                return self.end_turn(self.put(T2, "g", T["m"], NONE))
            return _and(self.on(T, T["m"]), g >= 0), after

        def revanche(holds: bool):
            def core(f, T):  # the Revanche is drawn: the previous player (P08) will decide
                b = f["b"]
                gb = self.get(T, "g", b)
                who = True if rd.says("P08", "behind") else b == self.previous(T)
                guard = _and(self.on(T, T["m"]), gm(T) >= 0, b != T["m"], self.on(T, b), who,
                            _and(gb >= 0, _not(self.shield(self.get(T, "p", b)))) if holds else gb < 0)
                rv = b if rd.says("P08", "behind") else NONE
                return guard, lambda: {**T, "ph": int(Phase.REVENGE), "c": 0, "rv": rv}
            return core

        def nothing(f, T):  # P23 'nothing': a ★ with no eligible effect ends the turn
            return self.on(T, T["m"]), lambda: self.end_turn(T)

        def take(f, T):  # 'pega um da árvore' (P15)
            h, tk = f["h"], T["tk"]

            def after():
                T2 = self.give(T, tk, h)
                T2 = {**T2, **{f"t{x}": _and(T2[f"t{x}"], h != x) for x in range(n)}}
                return branch(T["ph"] == int(Phase.TREE_LAST),
                              lambda: {**T2, "ph": int(Phase.OVER), "tk": NONE, "c": 0, "rv": NONE},
                              lambda: self.end_turn({**T2, "tk": NONE}))
            guard = _and(tk >= 0, self.get(T, "g", tk) < 0, self.get(T, "p", tk) <= F, self.get(T, "t", h))
            return guard, after

        def first_tree(f, T):
            return _and(gm(T) < 0, pm(T) <= F), lambda: self.take_tree(T, T["m"])

        def first_steal(f, T):  # 'Roube o presente de alguém que tenha um. Essa pessoa pega outro da árvore.'
            b = f["b"]
            gb = self.get(T, "g", b)
            return (_and(gm(T) < 0, pm(T) <= F, self.targetable(T, b), gb >= 0),
                    lambda: self.take_tree(self.put(self.give(T, T["m"], gb), "g", b, NONE), b))

        def revenge_decision(take_it: bool):
            def core(f, T):  # 'O jogador anterior pode roubar seu presente / trocar de presente com você'
                who = self.taker(T)
                gw = self.get(T, "g", who)
                guard = _and(self.on(T, T["m"]), who >= 0, who != T["m"], self.on(T, who), _implies(take_it, _implies(gw >= 0, _not(self.shield(self.get(T, "p", who))))))
                T2 = {**T, "rv": NONE}
                return guard, lambda: self.end_turn(self.swap_gifts(T2, who, T["m"]) if take_it else T2)
            return core

        L = (Phase.LUCK,)
        rel = self._relation
        jumps = tuple(sorted(set(rd.jumps)))
        big = tuple(t for t in self.totals if t > rd.back)
        small = tuple(t for t in self.totals if t <= rd.back)
        out = []
        if big:
            out.append(Action("roll-beats-back", rel("roll-beats-back", (Phase.ROLL,), chance, roll), {"r": big}))
        if small:
            out.append(Action("roll-short", rel("roll-short", (Phase.ROLL,), chance, roll), {"r": small}))
        pick = rd.says("P15", "pick")
        out += [
            Action("salto", rel("salto", L, chance, salto), {"r": jumps}),
            Action("lugar", rel("lugar", L, chance, lugar), seats),
            Action("frente", rel("frente", L, chance, steal(+1)), seats),
            Action("atras", rel("atras", L, chance, steal(-1)), seats),
            Action("adiantado", rel("adiantado", L, chance, steal(+1)), seats),
            Action("sorrateiro", rel("sorrateiro", L if random else (Phase.SNEAK,), chance if random else mover,
                                     steal(0, rd.says("P18", "eligible"))), seats),
            Action("troca", rel("troca", L if random else (Phase.SWAP,), chance if random else mover, troca), seats),
            Action("volte", rel("volte", (Phase.BAD,), chance, volte)),
            Action("arvore", rel("arvore", (Phase.BAD,), chance, arvore)),
            Action("revanche-roubo", rel("revanche-roubo", (Phase.BAD,), chance, revanche(False)), seats),
            Action("revanche-troca", rel("revanche-troca", (Phase.BAD,), chance, revanche(True)), seats),
            Action("nothing", rel("nothing", L, chance, nothing)),
            Action("take-from-tree", rel("take-from-tree", TREES, (lambda T: T["tk"]) if pick else chance, take),
                   {"h": range(n)}),
            Action("first-tree", rel("first-tree", (Phase.FIRST,), mover, first_tree)),
            Action("first-steal", rel("first-steal", (Phase.FIRST,), mover, first_steal), seats),
            Action("revanche-take", rel("revanche-take", (Phase.REVENGE,), self.taker, revenge_decision(True))),
            Action("revanche-decline", rel("revanche-decline", (Phase.REVENGE,), self.taker, revenge_decision(False))),
        ]
        if not random:
            out += [Action("sorrateiro-ask", rel("sorrateiro-ask", L, chance, ask(Phase.SNEAK))),
                    Action("troca-ask", rel("troca-ask", L, chance, ask(Phase.SWAP)))]
        return out

    # ---- what a move is ------------------------------------------------------------------------------------
    EFFECTS = {Effect.SALTO: "salto", Effect.LUGAR: "lugar", Effect.SORRATEIRO: "sorrateiro",
               Effect.FRENTE: "frente", Effect.ATRAS: "atras", Effect.ADIANTADO: "adiantado",
               Effect.TROCA: "troca", Effect.VOLTE: "volte", Effect.ARVORE: "arvore",
               Effect.REV_ROUBO: "revanche-roubo", Effect.REV_TROCA: "revanche-troca", Effect.NOTHING: "nothing"}

    def roll_bound(self, r: int) -> Bound:
        return Bound("roll-beats-back" if r > self.rd.back else "roll-short", {"r": r})

    def bind(self, state: St, move: Any, actor: int) -> Bound:
        """What a model move is (computed each time: the mapping pass binds each transition once and
        shares it between the proofs, so a memo of them never hit)."""
        ph = state.phase
        unlisted = Bound(f"a move the rules do not list ({move!r} in {Phase(ph).name})")
        if ph == Phase.ROLL:
            return self.roll_bound(move[0]) if actor == CHANCE else unlisted
        if ph in DRAWS:
            eff, arg = move
            name = self.EFFECTS.get(eff)
            if name is None:
                return unlisted
            if eff == Effect.NOTHING:
                return Bound(STUTTER) if arg else Bound("nothing")
            if eff == Effect.SALTO:
                return Bound(name, {"r": arg})
            if eff in (Effect.SORRATEIRO, Effect.TROCA) and arg < 0:
                return Bound(f"{name}-ask")
            if eff in (Effect.REV_ROUBO, Effect.REV_TROCA):
                who = arg if self.rd.says("P08", "behind") else self.previous(self.abstraction(state))
                return Bound(name, {"b": who})
            if eff in (Effect.VOLTE, Effect.ARVORE):
                return Bound(name)
            return Bound(name, {"b": arg})
        if ph in TREES:
            return Bound("take-from-tree", {"h": move if isinstance(move, int) else move[0]})
        if ph == Phase.FIRST:
            return Bound("first-tree") if move == -1 else Bound("first-steal", {"b": move})
        if ph == Phase.SNEAK:
            return Bound("sorrateiro", {"b": move})
        if ph == Phase.SWAP:
            return Bound("troca", {"b": move})
        if ph == Phase.REVENGE:
            return {1: Bound("revanche-take"), 0: Bound("revanche-decline")}.get(move, unlisted)
        return unlisted

    # ---- eligibility, as the rule text reads (values only) ---------------------------------------------------
    def _seats(self, f) -> dict[str, Any]:
        """Who is where, for the eligibility of effects and choices."""
        n, F, m = self.n, self.F, f["m"]
        pos = [f[f"p{i}"] for i in range(n)]
        gift = [f[f"g{i}"] for i in range(n)]
        on = [i for i in range(n) if i != m and pos[i] < F]
        targets = [i for i in on if pos[i] not in self.shields]           # P19
        holders = [i for i in targets if gift[i] >= 0]
        return {"pos": pos, "gift": gift, "on": on, "targets": targets, "holders": holders, "m": m,
                "pm": pos[m], "has": gift[m] >= 0}

    def in_reach(self, w: dict) -> list[int]:
        """'um jogador a até 6 casas tem um presente' (P06: either direction; 'ahead': 0..6)."""
        lo = 0 if self.rd.says("P06", "ahead") else -self.rd.reach
        return [i for i in w["holders"] if lo <= w["pos"][i] - w["pm"] <= self.rd.reach]

    @staticmethod
    def _top(seats: list[int], pos: list[int]) -> list[int]:
        if not seats:
            return []
        top = max(pos[i] for i in seats)
        return [i for i in seats if pos[i] == top]

    @staticmethod
    def _uniform(bounds: list[Bound]) -> dict[Bound, Fraction]:
        out: dict[Bound, Fraction] = {}
        for b in bounds:
            out[b] = out.get(b, Fraction(0)) + Fraction(1, len(bounds))
        return out

    def _luck_effects(self, w: dict, leader: int | None) -> list[tuple[int, dict[Bound, Fraction]]]:
        """The ★ effects that serve, each (weight, law of its random part); ``leader``: under P20
        'leader-then-gift', the front runner drawn (-1: nobody on the track ahead)."""
        rd, pos, has = self.rd, w["pos"], w["has"]
        ahead = [i for i in w["holders"] if pos[i] > w["pm"]]
        out: list[tuple[int, dict[Bound, Fraction]]] = []
        if not has:   # 'Salto à frente: quando você não tem presente' (P05)
            k = len(rd.jumps)
            weights = ([k - j for j in range(k)] if rd.says("P05", "printed-order") else [1] * k)
            law: dict[Bound, Fraction] = {}
            for j, wj in zip(rd.jumps, weights):
                law[Bound("salto", {"r": j})] = law.get(Bound("salto", {"r": j}), Fraction(0)) + Fraction(wj, sum(weights))
            out.append((1, law))
        # 'Roube o presente e o lugar do mais adiantado: com ou sem presente, quando o mais adiantado
        # tem um presente' (P17: one effect; P20: who "o mais adiantado" is; P07 when you lead)
        if rd.says("P20", "gift-holder-ahead"):
            found = self._top(ahead, pos)
        elif rd.says("P20", "tied-leader-with-gift"):   # the front runners who hold a targetable gift
            found = [i for i in self._top([i for i in w["on"] if pos[i] > w["pm"]], pos) if i in w["holders"]]
        else:
            found = [leader] if leader is not None and leader >= 0 and leader in w["holders"] else []
        lugar_w = 2 if rd.says("P17", "two") else 1
        if found:
            out.append((lugar_w, self._uniform([Bound("lugar", {"b": b}) for b in found])))
        elif rd.says("P07", "own-leader") and has and not any(pos[i] > w["pm"] for i in w["on"]):
            out.append((lugar_w, {Bound("lugar", {"b": w["m"]}): Fraction(1)}))
        # 'Roubo sorrateiro ... Duas vezes mais provável' (P11: the phone asks, or at random; P18)
        reach = self.in_reach(w)
        if reach and (has or rd.says("P18", "eligible")):
            out.append((2, self._pick("sorrateiro", reach)))
        if has:
            nearest_ahead = [i for i in ahead if pos[i] == min(pos[j] for j in ahead)] if ahead else []
            behind = [i for i in w["holders"] if pos[i] < w["pm"]]
            nearest_behind = [i for i in behind if pos[i] == max(pos[j] for j in behind)] if behind else []
            if nearest_ahead:   # 'Roube o presente logo à frente' (P21, P26)
                out.append((1, self._uniform([Bound("frente", {"b": b}) for b in nearest_ahead])))
            if nearest_behind:  # 'Roube o presente logo atrás'
                out.append((1, self._uniform([Bound("atras", {"b": b}) for b in nearest_behind])))
            top = self._top(ahead, pos)
            if top:             # 'Roube o presente do mais adiantado: Pegue o presente mais perto da chegada'
                out.append((1, self._uniform([Bound("adiantado", {"b": b}) for b in top])))
            if w["targets"]:    # 'Troca de lugar: quando você tem presente'
                out.append((1, self._pick("troca", w["targets"])))
        return out

    def _pick(self, name: str, seats: list[int]) -> dict[Bound, Fraction]:
        if self.rd.says("P11", "random"):
            return self._uniform([Bound(name, {"b": b}) for b in seats])
        return {Bound(f"{name}-ask"): Fraction(1)}

    def _bad_effects(self, w: dict, prev: int) -> list[tuple[int, dict[Bound, Fraction]]]:
        """The ☠ effects that serve: Volte without a gift; with one, De volta à árvore and the
        Revanche the previous player's gift allows (P24: no swap with a shielded one)."""
        if not w["has"]:
            return [(1, {Bound("volte"): Fraction(1)})]
        out = [(1, {Bound("arvore"): Fraction(1)})]
        if prev >= 0:
            gp = w["gift"][prev]
            if gp < 0:
                out.append((1, {Bound("revanche-roubo", {"b": prev}): Fraction(1)}))
            elif w["pos"][prev] not in self.shields:
                out.append((1, {Bound("revanche-troca", {"b": prev}): Fraction(1)}))
        return out

    @staticmethod
    def _mix(effects: list[tuple[int, dict[Bound, Fraction]]], none: Bound) -> dict[Bound, Fraction]:
        if not effects:
            return {none: Fraction(1)}
        total = sum(wt for wt, _ in effects)
        out: dict[Bound, Fraction] = {}
        for wt, law in effects:
            for b, p in law.items():
                out[b] = out.get(b, Fraction(0)) + Fraction(wt, total) * p
        return out

    def law(self, f) -> dict[Bound, Fraction]:
        """The rule text's law at a chance node (see the module docstring), kept by the values it
        reads (``law_key``): the whole frame never repeats at a chance node, these do (every roll
        has one law). The same law is handed to every frame of a key: callers only read it."""
        key = self.law_key(f)
        got = self.law_cache.get(key)
        if got is None:
            if len(self.law_cache) >= 100_000:
                self.law_cache.clear()
            got = self.law_cache[key] = self._law(f)
        return got

    def law_key(self, f) -> tuple:
        """What ``_law`` reads of a frame: the phase; the tree under P15's draw; else (★, ☠) the
        mover and every seat's square and gift (``_seats``, ``previous``)."""
        ph, n = f["ph"], self.n
        if ph == Phase.ROLL:
            return (ph,)
        if ph in TREES:
            return (ph,) + tuple(f[f"t{h}"] for h in range(n))
        return ((ph, f["m"]) + tuple(f[f"p{i}"] for i in range(n))
                + tuple(f[f"g{i}"] for i in range(n)))

    def _law(self, f) -> dict[Bound, Fraction]:
        ph, rd = f["ph"], self.rd
        if ph == Phase.ROLL:
            return {self.roll_bound(r): p for r, p in dice_law(rd.dice).items()}
        if ph in TREES:   # P15: a wrapped gift, uniformly
            return self._uniform([Bound("take-from-tree", {"h": h}) for h in range(self.n) if f[f"t{h}"]])
        w = self._seats(f)
        if ph == Phase.LUCK:
            none = Bound(STUTTER) if rd.says("P23", "redraw") else Bound("nothing")
            if rd.says("P20", "gift-holder-ahead") or rd.says("P20", "tied-leader-with-gift"):
                return self._mix(self._luck_effects(w, None), none)   # no leader drawn first
            # P20 'leader-then-gift': "o mais adiantado" is found without looking at gifts: the
            # other players on the track at the highest square, if strictly ahead (ties at random)
            front = self._top(w["on"], w["pos"])
            front = [i for i in front if w["pos"][i] > w["pm"]] or [NONE]
            return self._average([self._mix(self._luck_effects(w, c), none) for c in front])
        if ph == Phase.BAD:
            if rd.says("P08", "behind"):   # the nearest player strictly behind (ties at random)
                back = [i for i in w["on"] if w["pos"][i] < w["pm"]]
                cands = self._top(back, w["pos"]) or [NONE]
            else:
                cands = [self.previous(f)]
            return self._average([self._mix(self._bad_effects(w, c), Bound("nothing")) for c in cands])
        return {}

    @staticmethod
    def _average(laws: list[dict[Bound, Fraction]]) -> dict[Bound, Fraction]:
        out: dict[Bound, Fraction] = {}
        for law in laws:
            for b, p in law.items():
                out[b] = out.get(b, Fraction(0)) + p / len(laws)
        return out

    def options(self, f) -> set[Bound]:
        """The choices the phone offers at a decision state."""
        key = tuple(f.items())
        got = self.options_cache.get(key)
        if got is None:
            got = self.options_cache[key] = self._options(f)
        return got

    def _options(self, f) -> set[Bound]:
        ph = f["ph"]
        if ph == Phase.FIRST:   # 'roube de alguém ou pegue da árvore'
            return {Bound("first-tree")} | {Bound("first-steal", {"b": b}) for b in self._seats(f)["holders"]}
        if ph == Phase.SNEAK:
            return {Bound("sorrateiro", {"b": b}) for b in self.in_reach(self._seats(f))}
        if ph == Phase.SWAP:
            return {Bound("troca", {"b": b}) for b in self._seats(f)["targets"]}
        if ph == Phase.REVENGE:
            return {Bound("revanche-take"), Bound("revanche-decline")}
        if ph in TREES and self.rd.says("P15", "pick"):
            return {Bound("take-from-tree", {"h": h}) for h in range(self.n) if f[f"t{h}"]}
        return set()

    # ---- invariants and claims -------------------------------------------------------------------------------
    def init(self, f) -> Any:
        start = self.initial()
        return And([f[k] == v for k, v in start.items()])

    @_terms_once
    def conservation(self, f) -> Any:
        """Every gift in exactly one place: under the tree or held by one seat; removed seats hold none."""
        n = self.n
        g = [f[f"g{i}"] for i in range(n)]
        parts = [Implies(g[i] >= 0, g[i] != g[j]) for i in range(n) for j in range(i + 1, n)]
        parts += [Implies(g[i] == h, Not(f[f"t{h}"])) for i in range(n) for h in range(n)]
        parts += [Or(f[f"t{h}"], [g[i] == h for i in range(n)]) for h in range(n)]
        parts += [Implies(f[f"p{i}"] == self.out, g[i] == NONE) for i in range(n)]
        # a consequence, stated so that Z3 counts instead of searching pigeonholes
        parts.append(Sum([If(f[f"t{h}"], 1, 0) for h in range(n)] + [If(x >= 0, 1, 0) for x in g]) == n)
        return And(parts)

    @_terms_once
    def taker_ok(self, f) -> Any:
        tk = f["tk"]
        return And(Or([f["ph"] == int(x) for x in TREES]) == (tk >= 0),
                   Implies(tk >= 0, And(self.get(f, "g", tk, NONE) == NONE, self.get(f, "p", tk, 0) <= self.F)))

    @_terms_once
    def tree_nonempty(self, f) -> Any:
        return Implies(f["tk"] >= 0, Or([f[f"t{h}"] for h in range(self.n)]))

    @_terms_once
    def chain(self, f) -> Any:
        drawing = Or(f["ph"] == int(Phase.LUCK), f["ph"] == int(Phase.BAD))
        return If(drawing, And(f["c"] >= 1, f["c"] <= self.rd.landings), f["c"] == 0)

    @_terms_once
    def order(self, f) -> Any:
        """The arrival order lists exactly the arrived seats, once each, numbered 0..k-1."""
        n = self.n
        o = [f[f"o{i}"] for i in range(n)]
        k = self.arrived(f)
        parts = [(o[i] >= 0) == (f[f"p{i}"] == self.F) for i in range(n)]
        parts += [o[i] < k for i in range(n)]
        parts += [Implies(o[i] >= 0, o[i] != o[j]) for i in range(n) for j in range(i + 1, n)]
        return And(parts)

    @_terms_once
    def shield_kept(self, f, t) -> Any:
        """No shielded player but the mover loses their gift or place (the host's removal and the
        reveal moving the last player to the finish are not a player's doing)."""
        parts = []
        for j in range(self.n):
            p = f[f"p{j}"]
            guard = And(f["m"] != j, p < self.F, self.shield(p), t[f"p{j}"] < self.F)
            parts.append(Implies(guard, And(t[f"p{j}"] == p, Implies(f[f"g{j}"] >= 0, t[f"g{j}"] == f[f"g{j}"]))))
        return And(parts)

    @_terms_once
    def potential(self, f) -> Any:
        """Progress of every seat (the finish for arrived and removed ones) less the back step while
        a draw is pending (the one Volte a turn may still bring)."""
        F = self.F
        progress = Sum([If(f[f"p{i}"] >= F, F, f[f"p{i}"]) for i in range(self.n)])
        return progress - self.rd.back * If(Or(f["ph"] == int(Phase.LUCK), f["ph"] == int(Phase.BAD)), 1, 0)


def presentes_proofs(ruleset, squares: Sequence[int]) -> list[RuleProof]:
    """The proofs of one configuration (``squares``: its board's layout)."""
    ab = Abstract(reading(ruleset, squares))
    rd, n, F, back = ab.rd, ab.n, ab.F, ab.rd.back
    common = dict(frame=ab.frame, abstraction_doc=Abstract.DOC, abstraction=ab.abstraction, init=ab.init,
                  actions=ab.actions(), bind=ab.bind, chance=ab.law, options=ab.options,
                  assumptions=ab.typing)
    every = cite("turn", "square", "draw", "double", "first", "chain", "finish", "end",
                 rulings="P02-P34 as the ruleset reads them")
    proofs = [
        RuleProof("z3-gift-conservation",
                  "every gift is under the tree or held by exactly one player; removed players hold none",
                  invariant=ab.conservation, sentence=cite("finish", "host") + "; " + every, **common),
        RuleProof("z3-tree-nonempty",
                  "whenever someone must take a gift from the tree (they hold none), the tree holds one",
                  invariant=lambda f: And(ab.conservation(f), ab.taker_ok(f), ab.tree_nonempty(f)),
                  sentence=cite("square", "finish"), **common),
        RuleProof("z3-shield-safety",
                  "no effect or choice takes the gift or the place of a player on a shield square other "
                  "than the mover (P19, P24)",
                  invariant=ab.conservation, step_claims=[StepClaim(
                      "a shielded player other than the mover keeps their gift and place", ab.shield_kept)],
                  sentence=cite("shield", rulings="P19, P24"), **common),
        RuleProof("z3-chain-bound",
                  f"an effect is drawn only on landings 1..{rd.landings} of a turn; a Salto drawn on landing "
                  f"{rd.landings} moves the piece without resolving its square (P12)",
                  invariant=ab.chain, sentence=cite("chain", rulings="P12, P13"), **common),
        RuleProof("z3-arrival-order",
                  "the arrival order lists exactly the seats that reached the finish, once each, in the "
                  "order they arrived (the last player left arrives last, P32)",
                  invariant=ab.order, sentence=cite("finish", "end", rulings="P03, P13, P32"), **common),
    ]
    q = sum((p for t, p in dice_law(rd.dice).items() if t > back), Fraction(0))
    if not rd.says("P03", "bounce") and q > 0:
        window = n * F + back + 1
        rolls = ("roll-beats-back", "roll-short")
        ends = ("so play ends with probability 1 under every policy" if not rd.says("P23", "redraw") else
                "so play ends with probability 1 under every policy provided every turn ends -- under "
                "P23 'redraw' a ★ with no eligible effect is redrawn forever (a stutter: a turn that "
                "never ends), which the termination check decides")
        claim = (f"the potential (the seats' progress, less {back} while a draw is pending) lies in "
                 f"[-{back}, {n * F}]; no step lowers it but a roll, a roll r lowers it by at most "
                 f"{back} - r and a roll above {back} (probability {q} each turn) raises it: {window} "
                 f"consecutive turns with such a roll cannot all happen, {ends}")
        proofs.append(RuleProof(
            "termination-every-policy (ranking)", claim,
            invariant=lambda f: And(ab.conservation(f), ab.potential(f) >= -back, ab.potential(f) <= n * F),
            ranking=lambda f: n * F - ab.potential(f), decreasing=("roll-beats-back",), decrease=1,
            resets=("roll-short",),   # may raise it, by at most back - r (the step claim below)
            step_claims=[StepClaim("the potential does not fall",
                                   lambda f, t: ab.potential(t) >= ab.potential(f),
                                   tuple(a.name for a in common["actions"] if a.name not in rolls)),
                         StepClaim(f"the potential falls by at most {back} - r",
                                   lambda f, t: ab.potential(t) >= ab.potential(f) + f["r"] - back,
                                   ("roll-short",))],
            sentence=cite("turn", "end"), **common))
    return proofs


def properties(ruleset, game) -> list:
    """Presentes' properties: the rule proofs above, then the checks of ``model.presentes.checks``
    (utilities at the reveal, the board's counts, what the players see, the ★/☠ situations) and
    the agreement of its two fast engines with the model (``model.presentes.fastcheck``)."""
    from ruleproof.model.presentes.checks import game_checks
    from ruleproof.model.presentes.fastcheck import engine_properties
    from ruleproof.proofs.refinement import proof_property
    out = [proof_property(p) for p in presentes_proofs(ruleset, game.board.squares)]
    return out + game_checks(ruleset, game) + engine_properties(ruleset, game)


def derived(ruleset) -> list:
    """Smaller configurations that keep a ruleset's edit (when it is too big to explore), and the
    official boards explored beside a ruleset on one of them (companions)."""
    from ruleproof.model.presentes.shrink import companions, shrink
    from ruleproof.model.properties import Derived
    return [Derived(label, rs) for label, rs in shrink(ruleset)] + companions(ruleset)
