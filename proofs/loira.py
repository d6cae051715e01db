"""Loira do Banheiro's rules as the proofs state them, bound move by move to ``model.loira``.

One abstract model (:class:`LoiraRules`) says, from the rule text (seeds/000, the authority, with
the rulings of ``model/loira/rulings.py`` where it is silent), what every move of a round and of a
match does:

* the **frame** is the public table, read off the state record by name: the phase and the seat to
  move (``mover``, what the model's ``current_player`` says), the turn seat, the direction, who has
  stopped, the Gritos resolved, the centre (rolls, stall cards, the belief's slots, the public
  multiset of unopened stalls and the stalls out of the round), the opening queue (picker and
  keeper of each pick), the Loira's victim, how the round ended, the first seat, the card being
  resolved and the rolls a Tia da Limpeza still takes; per card kind the deck, the discard and the
  set-aside counts; per seat the rolls (and at the round's start), the round wins, each holding,
  and at the end the utility the model pays (``u<seat>``, scaled to integers);
* every real move is **bound** (:meth:`LoiraRules.bind`, from the state before and the move alone)
  to one action: the turn's choice, the card drawn, the seat targeted, the stall value revealed,
  the pair discarded to escape... -- and each action is a **function** of the frame
  (``harness.function_action``): its guard (the phase, the seat that moves) and the post value of
  every frame variable, so a move that changes anything the rules do not (another seat's roll,
  the wrong next seat, a round that ends or goes on, a stall kept by the wrong seat, the winner)
  fails with the variables that differ;
* at every decision the model's legal moves, bound, must be exactly the rules' set
  (:meth:`LoiraRules.options`: who may be targeted, what Descarga may flush, who is asked to escort,
  which pairs escape...); at every chance node the outcomes' probabilities must equal the rules'
  law (:meth:`LoiraRules.chance`: the top card weighted by the deck's counts; a face-down stall
  uniform over the centre, the Loira present with probability phys/slots).

The proofs are claims Z3 proves on that model for the configuration's own parameters (each action
constraining only the variables a claim reads) and whose mapping to the code is the model's,
checked once for all of them on every transition of the evidence:

* ``loira-table``, one conjunction (each part checked on the frames on its own): who may act -- the
  turn seat while it has not stopped (L13's Interruptor apart), an escort only a roll holder that is
  not a picker and (L21) has not stopped, while the centre holds a card for them (L26); the Loira's
  victim is the picker being revealed; per card kind, deck + discard + holdings = the deck's count
  (a mini-expansion kind's deck counts its closed cards: in the deck, set aside or on top; those set
  aside and on top are among them); rolls in the centre plus rolls held = the boxes' rolls; per stall value,
  unopened + held + out = its count; the centre belief 0 <= phys <= slots <= unopened + 1 (so
  P(Loira next) = 1/slots is a probability). The other claims assume it (a lemma);
* ``loira-termination`` (L25 round-ends; in a match L15 all-tied-win): a ranking every draw and
  every stop lowers and no move raises, new rounds of a match included;
* ``loira-deck-never-empty`` (3 or more Gritos): a Grito is always left to draw while the round
  goes on, so the deck never runs out and L25 never applies.

What is not a proof -- the graph checks, the derived and companion configurations, the C engine's
comparison -- is in :mod:`model.loira.checks`; :func:`properties` gathers both for ``verify``.
"""
from __future__ import annotations

import math
import time
from fractions import Fraction
from operator import itemgetter
from typing import Any, Callable, Iterable, Mapping, Sequence

import z3

from ruleproof.model.limits import NO_LIMITS, Limits
from ruleproof.model.loira.bounds import opening_capacity, score_bounds as closed_bounds
from ruleproof.model.loira.cards import BATHROOM_KINDS, EXPANSION_KINDS, KEPT_KINDS, TOKENS, Kind
from ruleproof.model.loira.config import Config
from ruleproof.model.loira.state import (CARD, CLOSED, NO, CROLLS, DECLINE, DIR, END, FIRST, GO, GRITOS, LOIRA, OPEN_ASIDE,
                                         PASS, PH, PHYS, PREV, QI, QM, QN, RALO_PASS, SLOTS, STOP, STOP_ACT,
                                         SWITCH, TURN, VICTIM, YES, End, Phase)
from ruleproof.model.properties import EXPLORATION, SAMPLES, Context, Property
from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.results import FAILS, HOLDS, UNKNOWN, PropertyResult
from ruleproof.model.ruleset import Ruleset
from ruleproof.proofs.harness import Action, function_action, optimize_bound
from ruleproof.proofs.logic import And, Conjunction, If, Implies, Not, Or, Sum
from ruleproof.proofs.refinement import Bound, RuleProof

GRITO_END = 3  # 000 Fim da Rodada: "A terceira carta Grito for resolvida"

#: the sentences the model states (seeds/000 unless named)
SENTENCES = {
    "turn": '000 O Jogo: "Na sua vez, decida se vai ao banheiro ... Caso não queira ir ao banheiro, você não '
            'pega mais cartas até o final da rodada. Com isso, ficará imune de efeitos lançados por cartas dos '
            'adversários ... passe a vez para o jogador à sua esquerda"',
    "cards": '000 Cartas: "As cartas de Ponto serão mantidas à sua frente. As demais ativam o seu efeito e são '
             'descartadas (exceto Espelho e Interruptor)"',
    "rolls": '000 Os Rolos: "Cada Rolo de Papel Higiênico vale 1 ponto ... quem tiver esses Rolos não precisará '
             'devolvê-los quando a rodada acabar"; Toc-Toc: "pegue um Rolo ... Se não tiver Rolo ... pegue o rolo '
             'de outro participante à sua escolha"',
    "centre": '000 O Centro da Mesa; Chute no vaso: "Retire do centro da mesa uma das cartas de Cabine, sem que '
              'ninguém veja seu conteúdo (inclusive você)"',
    "end": '000 Fim da Rodada: "A rodada termina quando: ... revelou a carta de Loira ... A terceira carta Grito '
           'for resolvida ... Quem tiver a carta de Interruptor decide terminar a rodada ... Não há cartas de '
           'Cabine no centro da mesa"; "Quem ganhar 2 rodadas vence a partida"',
}


def _sym(x: Any) -> bool:
    return isinstance(x, z3.ExprRef)


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    return not _sym(a) and not _sym(b) and a == b


class World(dict):
    """The frame being computed by an action on a real frame: variable name -> int. Only one branch
    of each choice is ever computed there, so a step changes the world in place and returns it
    (a step reads what it needs before it changes it)."""

    def but(self, **changes: Any) -> "World":
        self.update(changes)
        return self

    def copy(self) -> "World":
        return self


class SymWorld(World):
    """The same for the proof (Z3 terms): both branches of a choice are computed, so every step
    returns a new world."""

    def but(self, **changes: Any) -> "World":
        out = SymWorld(self)
        out.update(changes)
        return out

    def copy(self) -> "World":
        return SymWorld(self)


def choose(cond: Any, then: Callable[[], World], other: Callable[[], World]) -> World:
    """The world of ``then`` where ``cond`` holds, else of ``other``; on a real frame only the branch
    taken is computed."""
    if cond is True:   # (a plain frame: only the branch taken)
        return then()
    if cond is False or not _sym(cond):
        return then() if cond else other()
    a, b = then(), other()
    return SymWorld({k: v if _same(v, b[k]) else z3.If(cond, v, b[k]) for k, v in a.items()})


def first_of(cases: Iterable[tuple[Any, Any]], default: Any) -> Any:
    """The value of the first case whose condition holds (an if-chain). The cases may be a
    generator: on plain values they are computed only up to the first that holds."""
    pending = []
    for cond, value in cases:
        if not pending and (cond.__class__ is bool or not _sym(cond)):
            if cond:
                return value
            continue
        pending.append((cond, value))
    out = default
    for cond, value in reversed(pending):
        out = If(cond, value, out)
    return out


class LoiraRules:
    """The abstract model of one Loira configuration (see the module docstring)."""

    def __init__(self, game):
        self.game = game
        cfg = self.cfg = game.cfg
        n = self.n = game.num_players
        self.rule = cfg.rulings
        self.kinds = tuple(game.kinds)
        self.bath = [k for k in self.kinds if k in BATHROOM_KINDS]
        self.exp = [k for k in self.kinds if k in EXPANSION_KINDS]
        self.S = len(cfg.stalls)
        self.qlen = game.qlen
        self.m0 = sum(cfg.stall_counts)
        self.D = math.lcm(*range(1, n + 1)) if n > 2 else 1   # utilities scaled to integers
        self.esp, self.sw, self.ralo = (cfg.deck[k] > 0 for k in (Kind.ESPELHO, Kind.INTERRUPTOR, Kind.RALO))
        seats = range(n)
        self.ST = [f"st{i}" for i in seats]
        self.R = [f"r{i}" for i in seats]
        self.RS = [f"rs{i}" for i in seats]
        self.W = [f"w{i}" for i in seats]
        self.U = [f"u{i}" for i in seats]
        self.DK = [f"d{k}" for k in self.kinds]
        self.PK = [f"pk{j}" for j in range(self.qlen)]
        self.KP = [f"kp{j}" for j in range(self.qlen)]
        self.H = {k: [f"h{i}.{TOKENS[k]}" for i in seats] for k in self.bath}
        self.SV = [[f"s{i}.{v}" for i in seats] for v in range(self.S)]
        self.E = [f"e{i}" for i in seats] if self.esp else None
        self.T = [f"t{i}" for i in seats] if self.sw else None
        self.Z = [f"z{i}" for i in seats] if self.ralo else None
        self.header = ["ph", "turn", "dir", "gritos", "crolls", "phys", "slots", "qn", "qm", "qi", "victim",
                       "end", "first", "card"]
        self._layout(game)
        # what the scores read: the holdings and the rolls
        held = self.R + [x for names in [*self.H.values(), *self.SV, self.E, self.T, self.Z] if names for x in names]
        self._held = itemgetter(*held)
        self._won: dict = {}
        self._effects: dict | None = None   # each card kind's effect (``resolve``)

    # ---- the frame and the abstraction ---------------------------------------------------------------
    def _layout(self, game) -> None:
        """Which state index each frame variable reads (the state record's regions by name)."""
        n = self.n
        direct = dict(zip(self.header, (PH, TURN, DIR, GRITOS, CROLLS, PHYS, SLOTS, QN, QM, QI, VICTIM, END,
                                        FIRST, CARD)))
        for j in range(self.qlen):
            direct[self.PK[j]], direct[self.KP[j]] = game.o_queue + 2 * j, game.o_queue + 2 * j + 1
        for i, k in enumerate(self.kinds):
            direct[f"d{k}"], direct[f"x{k}"] = game.o_deck + i, game.o_disc + i
        if self.exp:   # the closed mini-expansion cards set aside (their kinds are nobody's knowledge)
            direct["aside"] = game.o_aside
        for v in range(self.S):
            direct[f"c{v}"], direct[f"o{v}"] = game.o_centre + v, game.o_out + v
        for i in range(n):
            direct[self.R[i]], direct[self.RS[i]], direct[self.W[i]] = (game.o_rolls + i, game.o_rstart + i,
                                                                        game.o_wins + i)
            for k in self.bath:
                direct[self.H[k][i]] = game.h(i, k)
            for v in range(self.S):
                direct[self.SV[v][i]] = game.h(i, game.h_stall + v)
            for names, slot in ((self.E, game.h_esp), (self.T, game.h_int), (self.Z, game.h_ralo)):
                if names:
                    direct[names[i]] = game.h(i, slot)
        self.direct = list(direct)
        self._get = itemgetter(*direct.values())
        # fields of kinds the deck does not hold: always 0 (a card appearing there is a slip)
        ghost = [game.h(i, k) for i in range(n) for k in BATHROOM_KINDS if k not in self.bath]
        for names, slot in ((self.E, game.h_esp), (self.T, game.h_int), (self.Z, game.h_ralo)):
            if not names:
                ghost += [game.h(i, slot) for i in range(n)]
        ghost += list(range(game.o_aside + (1 if self.exp else 0), game.o_aside + len(EXPANSION_KINDS)))
        self._ghost_get = (lambda s, i=itemgetter(*ghost): i(s) if len(ghost) > 1 else (s[ghost[0]],)) \
            if ghost else (lambda s: ())
        self.names = (self.direct + self.ST + ["owed", "mover"] + self.U + ["ghost"])
        #: every parameter a move binds
        self.params = ["actor", "seat", "second", "to", "mask"]

    def frame(self, sfx: str) -> dict[str, z3.ArithRef]:
        return {x: z3.Int(x + sfx) for x in self.names + self.params}

    def read(self, s) -> dict[str, int]:
        """The frame of a real state (by the record's fields; ``mover`` and ``u`` by the model's
        ``current_player`` and ``returns``)."""
        g = self.game
        f = dict(zip(self.direct, self._get(s)))
        stop = s[STOP]
        for i, name in enumerate(self.ST):
            f[name] = stop >> i & 1
        ph = s[PH]
        f["owed"] = s[PREV] if ph == Phase.STEAL and s[CARD] == Kind.TIA else 0
        mover = g.current_player(s)
        f["mover"] = mover
        if mover == TERMINAL:
            f["card"] = -1   # what was resolved last is no rule's business once the game is over
            ret = g.returns(s)
            for i, name in enumerate(self.U):
                f[name] = int(ret[i] * self.D)
        else:
            for name in self.U:
                f[name] = 0
        ghost = self._ghost_get(s)
        f["ghost"] = sum(map(abs, ghost)) if any(ghost) else 0
        return f

    # ---- reading a world --------------------------------------------------------------------------
    def at(self, w: Mapping, names: Sequence[str], i: Any) -> Any:
        """``w[names[i]]`` for a seat (or queue position) that may be a Z3 term."""
        if i.__class__ is int:
            return w[names[i]] if 0 <= i < len(names) else -1
        return first_of([(i == j, w[x]) for j, x in enumerate(names[:-1])], w[names[-1]])

    def put(self, w: World, names: Sequence[str], i: Any, fn: Callable[[Any], Any]) -> World:
        """``w`` with ``names[i] = fn(old)`` (each entry guarded where ``i`` is a Z3 term)."""
        w = w.copy()
        if not _sym(i):
            w[names[i]] = fn(w[names[i]])
        else:
            for j, x in enumerate(names):
                w[x] = If(i == j, fn(w[x]), w[x])
        return w

    def deck_total(self, w) -> Any:
        """Cards in the main deck: a mini-expansion kind's ``d`` counts its closed cards wherever
        they lie, so those set aside and the closed one on top or being opened are not in it."""
        if not self.exp:
            return Sum([w[x] for x in self.DK])
        return Sum([w[x] for x in self.DK]) - w["aside"] - If(w["card"] == CLOSED, 1, 0)

    def closed(self, w) -> Any:
        """Closed mini-expansion cards: in the deck, set aside or on top (none ever seen)."""
        return Sum([w[f"d{k}"] for k in self.exp] + [0])

    def stopped(self, w, i) -> Any:
        return self.at(w, self.ST, i) == 1

    def protected(self, w, i) -> Any:
        """Stopped players and the Ralo's holder are immune to others' effects (000, L20)."""
        return Or(self.stopped(w, i), self.at(w, self.Z, i) >= 1) if self.Z else self.stopped(w, i)

    def targets(self, w, seat) -> list[tuple[int, Any]]:
        """(seat, whether another player's effect may target it) for every seat."""
        return [(t, And(t != seat, Not(self.protected(w, t)))) for t in range(self.n)]

    def slots_of(self, w, i) -> list[tuple[int, Any]]:
        """(slot, whether seat ``i`` holds one) for each point card Descarga and Zelador may take (L11):
        a bathroom kind (its code), or a stall value (9 + its index)."""
        out = [(k, self.at(w, self.H[k], i) >= 1) for k in self.bath]
        if self.rule["L11"] == "bathroom-or-stall":
            out += [(9 + v, self.at(w, self.SV[v], i) >= 1) for v in range(self.S)]
        return out

    def slot_names(self, slot: int) -> list[str]:
        return self.H[slot] if slot < 9 else self.SV[slot - 9]

    def can_escape(self, w, i) -> Any:
        """L08: two bathroom cards of one door type (nulls too)."""
        doors = []
        for d in range(3):
            held = [self.at(w, self.H[k], i) for k in self.bath if k // 3 == d]
            if held:
                doors.append(Sum(held) >= 2)
        return Or(doors)

    def play_order(self, w, start) -> list[Any]:
        """The seats from ``start`` in the direction of play."""
        step = If(w["dir"] == 1, -1, 1)
        return [(start + step * i) % self.n for i in range(self.n)]

    # ---- the turn and the round ---------------------------------------------------------------------
    def to_turn(self, w: World, seat: Any) -> World:
        return w.but(ph=Phase.TURN, turn=seat, mover=seat)

    def end_turn(self, w: World) -> World:
        """The card is resolved: the turn passes to the next seat in the direction of play that has
        not stopped (L13 'also-stopped': or holds the Interruptor); an empty deck ends the round or is
        rebuilt from the discard (L25); everyone stopped ends it (L06)."""
        w = w.but(card=-1, owed=0)

        def go_on(w: World) -> World:
            everyone = And([w[x] == 1 for x in self.ST])
            return choose(everyone, lambda: self.round_over(w, End.STOPPED), lambda: self.next_seat(w))

        def deck_empty() -> World:
            if self.rule["L25"] != "reshuffle":
                return self.round_over(w, End.DECK)
            v = w.but(**{f"d{k}": w[f"d{k}"] + w[f"x{k}"] for k in self.kinds},
                      **{f"x{k}": 0 for k in self.kinds})
            return choose(self.deck_total(v) == 0, lambda: self.round_over(v, End.DECK), lambda: go_on(v))
        return choose(self.deck_total(w) == 0, deck_empty, lambda: go_on(w))

    def next_seat(self, w: World) -> World:
        step = If(w["dir"] == 1, -1, 1)
        also = self.rule["L13"] == "also-stopped" and self.T

        def cases():
            for i in range(1, self.n + 1):
                seat = (w["turn"] + step * i) % self.n
                ok = Not(self.stopped(w, seat))
                yield (Or(ok, self.at(w, self.T, seat) >= 1) if also else ok), seat
        return self.to_turn(w, first_of(cases(), -1))

    def card_done(self, w: World) -> World:
        """L07: with no stall left in the centre the round ends; else the turn passes."""
        w = w.but(owed=0)
        if self.rule["L07"] != "yes":
            return self.end_turn(w)
        return choose(w["phys"] == 0, lambda: self.round_over(w, End.EMPTY), lambda: self.end_turn(w))

    # ---- scoring and the end of a round ---------------------------------------------------------------
    def score(self, w, i: int) -> Any:
        """000 Fim da Rodada: the points of the cards held and the rolls (Espelho: L12; Interruptor
        kept: 2; Ralo kept: -2)."""
        parts = [(k % 3) * w[self.H[k][i]] for k in self.bath]
        parts += [self.cfg.stalls[v] * w[self.SV[v][i]] for v in range(self.S)]
        if self.E:   # the best point card anybody holds (L12: stalls too)
            held = [(k % 3, self.H[k]) for k in self.bath]
            if self.rule["L12"] == "any-point-card":
                held += [(self.cfg.stalls[v], self.SV[v]) for v in range(self.S)]
            copy = 0
            for value, names in sorted(held):
                copy = If(Sum([w[x] for x in names]) >= 1, value, copy)
            parts.append(w[self.E[i]] * copy)
        if self.T:
            parts.append(2 * w[self.T[i]])
        if self.Z:
            parts.append(-2 * w[self.Z[i]])
        return Sum(parts + [w[self.R[i]]])

    def tie_cards(self, w, i: int) -> Any:
        """The cards the tie-break counts: L04 (point cards or bathroom cards) over L05."""
        bath = [w[self.H[k][i]] for k in self.bath]
        if self.rule["L04"] == "bathroom-cards":
            return Sum(bath + [0])
        l05 = self.rule["L05"]
        if l05 == "no-nulls":
            bath = [w[self.H[k][i]] for k in self.bath if k % 3]
        extra = [w[self.SV[v][i]] for v in range(self.S)] + ([w[self.E[i]]] if self.E else [])
        if l05 == "with-interruptor" and self.T:
            extra.append(w[self.T[i]])
        return Sum(bath + extra + [0])

    def winners(self, w, why: int) -> list[Any]:
        """000: most points wins; a tie goes to fewer point cards (L04); still tied, the seats share
        the win. L28 'no': the Loira's victim cannot win. (Remembered on plain frames: many rounds
        end on the same holdings.)"""
        key = None
        if not _sym(w["ph"]):
            key = (why, w["victim"], self._held(w))
            got = self._won.get(key)
            if got is not None:
                return got
        won = self._winners(w, why)
        if key is not None and all(not _sym(x) for x in won):
            if len(self._won) > 200_000:
                self._won.clear()
            self._won[key] = won
        return won

    def _winners(self, w, why: int) -> list[Any]:
        n = self.n
        score = [self.score(w, i) for i in range(n)]
        cards = [self.tie_cards(w, i) for i in range(n)]
        barred = self.rule["L28"] == "no" and why == End.LOIRA
        elig = [Not(w["victim"] == i) if barred else True for i in range(n)]
        return [And(elig[i], [Implies(elig[j], Or(score[i] > score[j], And(score[i] == score[j],
                                                                              cards[i] <= cards[j])))
                              for j in range(n)]) for i in range(n)]

    def utility(self, won: Sequence[Any]) -> dict[str, Any]:
        """Two players: +1/-1 for an outright win, 0 when shared; more: the winners share 1 (x D)."""
        n = self.n
        if n == 2:
            u0 = If(And(won[0], Not(won[1])), 1, If(And(won[1], Not(won[0])), -1, 0))
            return {self.U[0]: u0, self.U[1]: -u0}
        count = Sum([If(x, 1, 0) for x in won])
        share = first_of([(count == k, self.D // k) for k in range(1, n + 1)], self.D // n)
        return {self.U[i]: If(count == 0, self.D // n, If(won[i], share, 0)) for i in range(n)}

    def round_over(self, w: World, why: int) -> World:
        """000 Fim da Rodada / Fim de Jogo: a round's winners; a match records their wins (L15) and
        deals the next round (L16, L37) until a seat has won ``target_wins``."""
        won = self.winners(w, why)
        if self.cfg.objective == "round":
            return w.but(end=why, ph=Phase.END, mover=TERMINAL, card=-1, **self.utility(won))
        n, target = self.n, self.cfg.target_wins
        record = True
        if self.rule["L15"] == "replay":
            record = Sum([If(x, 1, 0) for x in won]) <= 1
        wins = {self.W[i]: w[self.W[i]] + If(And(record, won[i]), 1, 0) for i in range(n)}
        v = w.but(**wins)
        over = Or([wins[x] >= target for x in self.W])

        def ended() -> World:
            return v.but(end=why, ph=Phase.END, mover=TERMINAL, card=-1,
                         **self.utility([wins[x] >= target for x in self.W]))

        def next_round() -> World:
            first = (w["first"] + 1) % n
            rule = self.rule["L16"]
            if rule != "next-seat":
                lowest = first_of([(won[i], i) for i in range(n)], -1)
                chosen = lowest if rule == "winner" else (lowest + 1) % n
                first = If(And(record, Or(won)), chosen, first)
            return self.deal(v, first)
        return choose(over, ended, next_round)

    def deal(self, w: World, first: Any) -> World:
        """000 Preparação for the next round of a match: the deck and the stalls again, empty
        holdings, nobody stopped; rolls and wins are kept (000 Os Rolos)."""
        cfg = self.cfg
        v = w.copy()
        v.update(ph=Phase.TURN, turn=first, first=first, mover=first, gritos=0, qn=0, qm=0, qi=0, victim=-1,
                 card=-1, owed=0, phys=self.m0 + 1, slots=self.m0 + 1)
        if self.rule["L37"] == "clockwise":
            v["dir"] = 0
        v.update({x: 0 for x in self.ST})
        v.update({x: -1 for x in self.PK + self.KP})
        for k in self.kinds:
            v[f"d{k}"], v[f"x{k}"] = cfg.deck[k], 0
        if self.exp:
            v["aside"] = 0
        for i in range(self.S):
            v[f"c{i}"], v[f"o{i}"] = cfg.stall_counts[i], 0
        v.update({self.RS[i]: w[self.R[i]] for i in range(self.n)})
        for names in [*self.H.values(), *self.SV, self.E, self.T, self.Z]:
            if names:
                v.update({x: 0 for x in names})
        return v

    # ---- card effects (000 Cartas, Mini-expansÕES) --------------------------------------------------------
    def discard(self, w: World, kind: int, count: Any = 1) -> World:
        return w.but(**{f"x{kind}": w[f"x{kind}"] + count})

    def resolve(self, w: World, kind: int) -> World:
        """A card revealed to everyone: kept cards go in front of the player, the others are
        resolved and discarded (the Merendeira after its reshuffle)."""
        w = w.but(card=kind)
        if kind not in KEPT_KINDS and kind != Kind.MERENDEIRA:
            w = self.discard(w, kind)
        turn = w["turn"]
        if kind in BATHROOM_KINDS:
            return self.card_done(self.put(w, self.H[kind], turn, lambda x: x + 1))
        effect = self._effects
        if effect is None:   # (made once: the refinement check resolves a card at every draw)
            effect = self._effects = {
                Kind.ESPELHO: self.espelho, Kind.INTERRUPTOR: self.interruptor, Kind.RALO: self.ralo_card,
                Kind.GRITO: self.grito, Kind.TOCTOC: self.toc_toc, Kind.CHUTE: self.chute,
                Kind.DESCARGA: self.descarga, Kind.FIOS: self.fios, Kind.RAPAGOTE: self.rapagote,
                Kind.ZELADOR: self.zelador, Kind.DIRETORA: self.diretora, Kind.TIA: self.tia,
                Kind.ALUNA: self.aluna, Kind.PROFESSORA: self.professora, Kind.MERENDEIRA: self.merendeira}
        return effect[kind](w)

    def espelho(self, w: World) -> World:
        return self.card_done(self.put(w, self.E, w["turn"], lambda x: x + 1))

    def ralo_card(self, w: World) -> World:
        return self.card_done(self.put(w, self.Z, w["turn"], lambda x: x + 1))

    def interruptor(self, w: World) -> World:
        """Kept; L30 'also-when-drawn': its holder may use it at once."""
        w = self.put(w, self.T, w["turn"], lambda x: x + 1)
        if self.rule["L30"] == "also-when-drawn":
            return w.but(ph=Phase.INTNOW, mover=w["turn"])
        return self.card_done(w)

    def use_interruptor(self, w: World, seat: Any) -> World:
        """000 Interruptor: discarded, it ends the round at once."""
        w = self.discard(self.put(w, self.T, seat, lambda x: x - 1), Kind.INTERRUPTOR)
        return self.round_over(w, End.SWITCH)

    def grito(self, w: World) -> World:
        """Grito: open a stall (nothing to open under L07 'no': resolved at once)."""
        return choose(w["phys"] == 0, lambda: self.grito_resolved(w),
                      lambda: self.open(w, [(w["turn"], w["turn"])]))

    def grito_resolved(self, w: World) -> World:
        w = w.but(gritos=w["gritos"] + 1)
        return choose(w["gritos"] >= GRITO_END, lambda: self.round_over(w, End.GRITO), lambda: self.card_done(w))

    def toc_toc(self, w: World) -> World:
        if self.rule["L29"] == "optional":
            return w.but(ph=Phase.TOCTOC, mover=w["turn"])
        return self.toc_toc_applied(w)

    def stealable(self, w, seat) -> Any:
        return Or([And(ok, w[self.R[t]] >= 1) for t, ok in self.targets(w, seat)])

    def toc_toc_applied(self, w: World) -> World:
        """Take a roll from the centre, else from another player of the revealer's choice, and reverse
        the direction (L36: with no roll to take)."""
        turn = w["turn"]

        def from_centre() -> World:
            v = self.put(w.but(crolls=w["crolls"] - 1), self.R, turn, lambda x: x + 1)
            return self.card_done(v.but(dir=1 - v["dir"]))

        def none_to_take() -> World:
            if self.rule["L36"] == "no-effect":
                return self.card_done(w)
            return self.card_done(w.but(dir=1 - w["dir"]))
        return choose(w["crolls"] >= 1, from_centre,
                      lambda: choose(self.stealable(w, turn), lambda: w.but(ph=Phase.STEAL, mover=turn),
                                     none_to_take))

    def chute(self, w: World) -> World:
        """Chute no Vaso: one face-down card leaves unseen (the belief keeps its slots)."""
        if self.rule["L29"] == "optional":
            return choose(w["phys"] == 0, lambda: self.card_done(w), lambda: w.but(ph=Phase.CHUTE, mover=w["turn"]))
        return choose(w["phys"] == 0, lambda: self.card_done(w), lambda: self.card_done(w.but(phys=w["phys"] - 1)))

    def flush_options(self, w) -> list[tuple[Any, int, Any]]:
        """(seat, slot, allowed) for Descarga: another active player's point card; L10 'self': one's
        own when nobody else can be targeted."""
        turn = w["turn"]
        others = [(t, slot, And(ok, held)) for t, ok in self.targets(w, turn) for slot, held in self.slots_of(w, t)]
        if self.rule["L10"] != "self":
            return others
        none = Not(Or([a for _, _, a in others]))
        return others + [(t, slot, And(none, t == turn, held)) for t in range(self.n)
                         for slot, held in self.slots_of(w, t)]

    def descarga(self, w: World) -> World:
        anything = Or([a for _, _, a in self.flush_options(w)])
        return choose(anything, lambda: w.but(ph=Phase.DESCARGA, mover=w["turn"]), lambda: self.card_done(w))

    def fios(self, w: World) -> World:
        """Fios de Cabelo: invite another player to open a stall (L10 'self': nobody to invite)."""
        turn = w["turn"]
        anyone = Or([ok for _, ok in self.targets(w, turn)])
        alone = (lambda: self.open(w, [(turn, turn)])) if self.rule["L10"] == "self" else (lambda: self.card_done(w))
        return choose(w["phys"] == 0, lambda: self.card_done(w),
                      lambda: choose(anyone, lambda: w.but(ph=Phase.FIOS, mover=turn), alone))

    def rapagote(self, w: World) -> World:
        turn = w["turn"]
        anyone = Or([ok for _, ok in self.targets(w, turn)])
        return choose(And(w["phys"] >= 2, anyone), lambda: w.but(ph=Phase.RAPAGOTE, mover=turn),
                      lambda: choose(w["phys"] >= 1, lambda: self.open(w, [(turn, turn)]),
                                     lambda: self.card_done(w)))

    def zelador_order(self, w) -> list[Any]:
        return self.play_order(w, w["turn"])

    def zelador_next(self, w: World, start: int) -> World:
        """Zelador: each player, in play order from the revealer, discards a point card (stopped
        players and the Ralo's holder are immune, the revealer is not)."""
        order = self.zelador_order(w)
        cases = []
        for i in range(start, self.n):
            seat = order[i]
            exposed = Or(i == 0, Not(self.protected(w, seat)))
            cases.append((And(exposed, Or([h for _, h in self.slots_of(w, seat)])), seat))
        who = first_of(cases, -1)
        return choose(who >= 0, lambda: w.but(ph=Phase.ZELADOR, mover=who), lambda: self.card_done(w))

    def zelador(self, w: World) -> World:
        return self.zelador_next(w, 0)

    def diretora_openers(self, w) -> list[tuple[Any, Any]]:
        """(seat, opens) in play order from the revealer: everyone not immune, the revealer too."""
        order = self.zelador_order(w)
        return [(order[i], Or(i == 0, Not(self.protected(w, order[i])))) for i in range(self.n)]

    def diretora(self, w: World) -> World:
        """Diretora: everyone opens a stall in turn from the revealer; with too few stalls the
        revealer chooses who does."""
        openers = self.diretora_openers(w)
        count = Sum([If(ok, 1, 0) for _, ok in openers])
        return choose(w["phys"] == 0, lambda: self.card_done(w),
                      lambda: choose(count <= w["phys"], lambda: self.open_some(w, openers),
                                     lambda: w.but(ph=Phase.DIRETORA, mover=w["turn"])))

    def tia(self, w: World) -> World:
        """Tia da Limpeza: take 2 rolls, from the centre or else from players of the revealer's choice."""
        turn = w["turn"]
        take = If(w["crolls"] >= 2, 2, w["crolls"])
        v = self.put(w.but(crolls=w["crolls"] - take), self.R, turn, lambda x: x + take).but(owed=2 - take)
        return choose(And(v["owed"] >= 1, self.stealable(v, turn)), lambda: v.but(ph=Phase.STEAL, mover=turn),
                      lambda: self.card_done(v))

    def aluna(self, w: World) -> World:
        """Aluna: the revealer opens 2 stalls in sequence (fewer if the centre holds fewer)."""
        turn = w["turn"]
        return choose(w["phys"] >= 2, lambda: self.open(w, [(turn, turn)] * 2),
                      lambda: choose(w["phys"] == 1, lambda: self.open(w, [(turn, turn)]), lambda: self.card_done(w)))

    def professora(self, w: World) -> World:
        turn = w["turn"]
        tg = self.targets(w, turn)
        count = Sum([If(ok, 1, 0) for _, ok in tg])
        only = first_of([(ok, t) for t, ok in tg], -1)
        return choose(Or(w["phys"] == 0, count == 0), lambda: self.card_done(w),
                      lambda: choose(count == 1, lambda: self.open(w, [(only, only)]),
                                     lambda: w.but(ph=Phase.PROFESSORA, mover=turn)))

    def merendeira(self, w: World) -> World:
        """Merendeira: the discard but the Merendeira goes back into the deck; the revealer opens the
        top card again (L14: the Gritos' count)."""
        v = w.but(**{f"d{k}": w[f"d{k}"] + w[f"x{k}"] for k in self.kinds if k != Kind.MERENDEIRA},
                  **{f"x{k}": 0 for k in self.kinds if k != Kind.MERENDEIRA})
        v = self.discard(v, Kind.MERENDEIRA)
        if self.rule["L14"] == "merendeira-resets":
            v["gritos"] = 0
        return choose(self.deck_total(v) >= 1, lambda: v.but(card=-1, ph=Phase.DRAW, mover=CHANCE),
                      lambda: self.card_done(v))

    # ---- openings: picks, escorts, reveals, the Loira, the escape ----------------------------------------
    def open(self, w: World, picks: Sequence[tuple[Any, Any]]) -> World:
        """Queue the picks (picker, keeper); then roll holders may escort (000 Os Rolos)."""
        v = w.copy()
        for j, (picker, keeper) in enumerate(picks):
            v[self.PK[j]], v[self.KP[j]] = picker, keeper
        v.update(qn=len(picks), qm=len(picks), qi=0)
        return self.escort_next(v, 0)

    def open_guarded(self, w: World, openers: Sequence[tuple[Any, Any]]) -> World:
        """Z3's form of :meth:`open` for picks that may or may not be queued (the Diretora's openers)."""
        v = w.copy()
        pos = 0
        for seat, ok in openers:
            for j in range(self.qlen):
                v[self.PK[j]] = If(And(ok, pos == j), seat, v[self.PK[j]])
                v[self.KP[j]] = If(And(ok, pos == j), seat, v[self.KP[j]])
            pos = pos + If(ok, 1, 0)
        v.update(qn=pos, qm=pos, qi=0)
        return self.escort_next(v, 0)

    def picker_queued(self, w, seat) -> Any:
        return Or([And(j < w["qn"], w[self.PK[j]] == seat) for j in range(self.qlen)])

    def may_escort(self, w, seat) -> Any:
        """000 Os Rolos with L21 (a stopped player does not) and L26 (one roll each, while the centre
        holds a card for them); a picker does not escort its own opening."""
        ok = [self.at(w, self.R, seat) >= 1, w["qn"] < w["phys"], Not(self.picker_queued(w, seat))]
        if self.rule["L21"] == "no":
            ok.append(Not(self.stopped(w, seat)))
        return And(ok)

    def escort_next(self, w: World, after: Any) -> World:
        """L22: roll holders are asked in clockwise seat order after the opener; L03 'grito-only':
        only a Grito's opening may be escorted."""
        reveal = w.but(ph=Phase.REVEAL, mover=CHANCE)
        if self.rule["L03"] != "any-opening" and not _sym(w["card"]) and w["card"] != Kind.GRITO:
            return reveal
        opener = w[self.PK[0]]
        cases = ((And(off > after, self.may_escort(w, (opener + off) % self.n)), (opener + off) % self.n)
                 for off in range(1, self.n))
        asked = first_of(cases, -1)
        if self.rule["L03"] != "any-opening":
            asked = If(w["card"] == Kind.GRITO, asked, -1)
        return choose(asked >= 0, lambda: w.but(ph=Phase.ESCORT, mover=asked), lambda: reveal)

    def after_reveal(self, w: World) -> World:
        def done() -> World:
            v = w.but(qn=0, qm=0, qi=0, **{x: -1 for x in self.PK + self.KP})
            return choose(v["card"] == Kind.GRITO, lambda: self.grito_resolved(v), lambda: self.card_done(v))
        return choose(w["qi"] < w["qn"], lambda: w.but(ph=Phase.REVEAL, mover=CHANCE), done)

    def loira_takes(self, w: World, victim: Any) -> World:
        """000 O Centro da Mesa: the revealer loses every card (stalls leave the round) and the rolls
        (L09), which go back to the centre; the round ends."""
        v = w.copy()
        for k in self.bath:
            held = self.at(v, self.H[k], victim)
            v = self.discard(self.put(v, self.H[k], victim, lambda x: 0), k, held)
        for names, kind in ((self.E, Kind.ESPELHO), (self.T, Kind.INTERRUPTOR), (self.Z, Kind.RALO)):
            if names:
                held = self.at(v, names, victim)
                v = self.discard(self.put(v, names, victim, lambda x: 0), kind, held)
        for i in range(self.S):
            held = self.at(v, self.SV[i], victim)
            v = self.put(v, self.SV[i], victim, lambda x: 0).but(**{f"o{i}": v[f"o{i}"] + held})
        rolls = self.at(v, self.R, victim)
        keep = 0
        if self.rule["L09"] == "round-rolls":
            start = self.at(v, self.RS, victim)
            keep = If(rolls <= start, rolls, start)
        v = self.put(v, self.R, victim, lambda x: keep).but(crolls=v["crolls"] + rolls - keep)
        v = v.but(qn=0, qm=0, qi=0, **{x: -1 for x in self.PK + self.KP})
        return self.round_over(v, End.LOIRA)

    # ---- the moves -------------------------------------------------------------------------------------
    def moves(self) -> list[Action]:
        """One function action per kind of move (see :meth:`bind`)."""
        n = self.n
        acts: list[Action] = []

        def add(name, phase, effect, guard=None, params=None):
            def g(e, phase=phase, guard=guard):
                base = And(e["ph"] == phase, e["end"] == 0, e["actor"] == e["mover"])
                return base if guard is None else And(base, guard(e))
            acts.append(function_action(name, g, lambda e, effect=effect: self.post(effect(self.world(e)), e), params))

        def turn_active(e):
            return Not(self.stopped(e, e["turn"]))

        seats = {"seat": range(n)}
        add("go", Phase.TURN, lambda w: w.but(ph=Phase.DRAW, mover=CHANCE), turn_active)
        add("stop", Phase.TURN, lambda w: self.end_turn(self.put(w, self.ST, w["turn"], lambda x: 1)), turn_active)
        if self.T:
            held = (lambda e: self.at(e, self.T, e["turn"]) >= 1)
            add("use the Interruptor", Phase.TURN, lambda w: self.use_interruptor(w, w["turn"]), held)
            add("pass", Phase.TURN, self.end_turn, lambda e: self.stopped(e, e["turn"]))
            if self.rule["L30"] == "also-when-drawn":
                add("use it now", Phase.INTNOW, lambda w: self.use_interruptor(w, w["turn"]),
                    lambda e: self.at(e, self.T, e["turn"]) >= 1)
                add("keep it", Phase.INTNOW, self.card_done)
        if self.Z:
            def pass_ralo(w):
                v = self.put(w, self.Z, w["turn"], lambda x: x - 1)
                return self.put(v, self.Z, w["to"], lambda x: x + 1)
            # L20: the holder passes it on their turn, to another player who has not stopped
            add("pass the Ralo", Phase.TURN, pass_ralo,
                lambda e: And(turn_active(e), self.at(e, self.Z, e["turn"]) >= 1, e["to"] != e["turn"],
                              Not(self.stopped(e, e["to"]))), {"to": range(n)})
        if self.exp:
            # 000 Mini-expansões: a mini-expansion card on top shows its back only ("a cor delas é
            # diferente"); open it "OU deixá-la de lado ainda fechada"; "o jogador da vez pode
            # escolher abri-la" later. Its kind shows when it is opened (``unveil``)
            add("draw a closed card", Phase.DRAW, lambda w: w.but(card=CLOSED, ph=Phase.EXPANSION, mover=w["turn"]),
                lambda e: self.closed(e) - e["aside"] >= 1)
            add("open the closed card on top", Phase.EXPANSION, lambda w: w.but(ph=Phase.UNVEIL, mover=CHANCE),
                lambda e: e["card"] == CLOSED)
            add("set the closed card aside", Phase.EXPANSION,
                lambda w: w.but(aside=w["aside"] + 1, card=-1, ph=Phase.DRAW, mover=CHANCE),
                lambda e: And(e["card"] == CLOSED, self.deck_total(e) >= 1))
            add("open a set-aside card", Phase.TURN,
                lambda w: w.but(aside=w["aside"] - 1, card=CLOSED, ph=Phase.UNVEIL, mover=CHANCE),
                lambda e: And(turn_active(e), e["aside"] >= 1))
        for k in self.kinds:
            tok = TOKENS[k]
            if k in EXPANSION_KINDS:
                add(f"unveil {tok}", Phase.UNVEIL, lambda w, k=k: self.resolve(w.but(**{f"d{k}": w[f"d{k}"] - 1}), k),
                    lambda e, k=k: And(e["card"] == CLOSED, e[f"d{k}"] >= 1))
            else:
                add(f"draw {tok}", Phase.DRAW, lambda w, k=k: self.resolve(w.but(**{f"d{k}": w[f"d{k}"] - 1}), k),
                    lambda e, k=k: e[f"d{k}"] >= 1)
        if self.cfg.deck[Kind.TOCTOC] or self.cfg.deck[Kind.TIA]:
            add("steal a roll", Phase.STEAL, self.steal,
                lambda e: And(e["seat"] != e["turn"], self.at(e, self.R, e["seat"]) >= 1), seats)
        if self.cfg.deck[Kind.TOCTOC] and self.rule["L29"] == "optional":
            add("apply the Toc-Toc", Phase.TOCTOC, self.toc_toc_applied)
            add("decline the Toc-Toc", Phase.TOCTOC, self.card_done)
        if self.cfg.deck[Kind.CHUTE] and self.rule["L29"] == "optional":
            add("kick a stall", Phase.CHUTE, lambda w: self.card_done(w.but(phys=w["phys"] - 1)))
            add("kick none", Phase.CHUTE, self.card_done)
        if self.cfg.deck[Kind.DESCARGA]:
            for slot in self.point_slots():
                add(f"flush {self.slot_text(slot)}", Phase.DESCARGA, lambda w, slot=slot: self.flush(w, slot),
                    lambda e, slot=slot: self.at(e, self.slot_names(slot), e["seat"]) >= 1, seats)
            if self.rule["L29"] == "optional":
                add("flush nothing", Phase.DESCARGA, self.card_done)
        if self.cfg.deck[Kind.ZELADOR]:
            for slot in self.point_slots():
                add(f"discard {self.slot_text(slot)} (Zelador)", Phase.ZELADOR,
                    lambda w, slot=slot: self.zelador_discard(w, slot),
                    lambda e, slot=slot: self.at(e, self.slot_names(slot), e["actor"]) >= 1)
        if self.cfg.deck[Kind.FIOS]:
            keeper = self.rule["L33"]
            add("invite", Phase.FIOS,
                lambda w: self.open(w, [(w["seat"], w["turn"] if keeper == "inviter" else w["seat"])]),
                lambda e: e["seat"] != e["turn"], seats)
        if self.cfg.deck[Kind.RAPAGOTE]:
            add("indicate", Phase.RAPAGOTE, lambda w: self.open(w, [(w["turn"], w["turn"]), (w["seat"], w["seat"])]),
                lambda e: e["seat"] != e["turn"], seats)
        if self.cfg.deck[Kind.DIRETORA]:
            add("choose the openers", Phase.DIRETORA, self.diretora_chosen, None, {"mask": range(1 << n)})
        if self.cfg.deck[Kind.PROFESSORA]:
            add("invite two", Phase.PROFESSORA, self.professora_chosen,
                lambda e: And(e["seat"] != e["turn"], e["second"] != e["turn"], e["seat"] != e["second"]),
                {"seat": range(n), "second": range(n)})
        add("escort", Phase.ESCORT, self.escort,
            lambda e: And(self.at(e, self.R, e["actor"]) >= 1, e["qn"] + 1 < self.qlen))
        add("do not escort", Phase.ESCORT, lambda w: self.escort_next(w, (w["actor"] - w[self.PK[0]]) % n))
        def revealing(e):
            return And(e["qi"] < e["qn"], e["phys"] >= 1)
        for v in range(self.S):   # (with slots = 1 only the Loira can come up: 1 - 1/slots = 0)
            add(f"reveal a {self.cfg.stalls[v]}", Phase.REVEAL, lambda w, v=v: self.reveal(w, v),
                lambda e, v=v: And(revealing(e), e[f"c{v}"] >= 1, e["slots"] >= 2))
        add("reveal the Loira", Phase.REVEAL, self.reveal_loira, revealing)
        if self.rule["L08"] == "pair-discard":
            add("do not escape", Phase.ESCAPE, lambda w: self.loira_takes(w, w["victim"]))
            for a, b in self.escape_pairs():
                add(f"escape with {TOKENS[a]}+{TOKENS[b]}", Phase.ESCAPE, lambda w, a=a, b=b: self.escape(w, a, b),
                    lambda e, a=a, b=b: And(self.at(e, self.H[a], e["victim"]) >= (2 if a == b else 1),
                                            self.at(e, self.H[b], e["victim"]) >= 1))
        return acts

    @staticmethod
    def world(env: Mapping) -> World:
        """A world to compute a move in, from the frame before and the move's parameters."""
        return SymWorld(env) if _sym(env["ph"]) else World(env)

    def post(self, w: World, env: Mapping) -> World:
        """The frame variables of a computed world (the move's parameters dropped)."""
        if w is env:
            w = w.copy()
        for x in self.params:
            w.pop(x, None)
        return w

    def point_slots(self) -> list[int]:
        return list(self.bath) + ([9 + v for v in range(self.S)] if self.rule["L11"] == "bathroom-or-stall" else [])

    def slot_text(self, slot: int) -> str:
        return TOKENS[slot] if slot < 9 else f"a {self.cfg.stalls[slot - 9]}-point stall"

    def escape_pairs(self) -> list[tuple[int, int]]:
        return [(a, b) for a in self.bath for b in self.bath if a <= b and a // 3 == b // 3]

    def steal(self, w: World) -> World:
        """A Toc-Toc's roll, or one of the Tia's, taken from the chosen seat."""
        turn = w["turn"]
        v = self.put(self.put(w, self.R, w["seat"], lambda x: x - 1), self.R, turn, lambda x: x + 1)

        def toc() -> World:
            return self.card_done(v.but(dir=1 - v["dir"]))

        def tia() -> World:
            u = v.but(owed=v["owed"] - 1)
            return choose(And(u["owed"] >= 1, self.stealable(u, turn)), lambda: u, lambda: self.card_done(u))
        return choose(w["card"] == Kind.TOCTOC, toc, tia)

    def flush(self, w: World, slot: int) -> World:
        """Descarga: the chosen card leaves its holder: a bathroom card to the discard, a stall out of
        the round (L29)."""
        v = self.put(w, self.slot_names(slot), w["seat"], lambda x: x - 1)
        v = self.discard(v, slot) if slot < 9 else v.but(**{f"o{slot - 9}": v[f"o{slot - 9}"] + 1})
        return self.card_done(v)

    def zelador_discard(self, w: World, slot: int) -> World:
        seat = w["actor"]
        v = self.put(w, self.slot_names(slot), seat, lambda x: x - 1)
        v = self.discard(v, slot) if slot < 9 else v.but(**{f"o{slot - 9}": v[f"o{slot - 9}"] + 1})
        step = If(w["dir"] == 1, -1, 1)
        position = ((seat - w["turn"]) * step) % self.n   # the seat's place in the play order
        if not _sym(position):
            return self.zelador_next(v, position + 1)
        return choose_positions(position, self.n, lambda i: self.zelador_next(v, i + 1))

    def diretora_chosen(self, w: World) -> World:
        """The revealer's choice of who opens (too few stalls for everyone): in play order."""
        return self.open_some(w, [(s, And(ok, _bit(w["mask"], s))) for s, ok in self.diretora_openers(w)])

    def open_some(self, w: World, openers: Sequence[tuple[Any, Any]]) -> World:
        """Open one pick for each seat whose condition holds, in the order given."""
        if any(_sym(s) or _sym(ok) for s, ok in openers):
            return self.open_guarded(w, openers)
        return self.open(w, [(s, s) for s, ok in openers if ok])

    def professora_chosen(self, w: World) -> World:
        first, second = w["seat"], w["second"]
        return choose(w["phys"] >= 2, lambda: self.open(w, [(first, first), (second, second)]),
                      lambda: self.open(w, [(first, first)]))

    def escort(self, w: World) -> World:
        """The asked seat spends a roll (to the centre) and picks a stall; L18: who keeps it."""
        seat = w["actor"]
        keeper = seat if self.rule["L18"] == "escort" else w[self.KP[0]]
        v = self.put(w, self.R, seat, lambda x: x - 1).but(crolls=w["crolls"] + 1)
        v = self.put(v, self.PK, w["qn"], lambda x: seat)
        v = self.put(v, self.KP, w["qn"], lambda x: keeper).but(qn=w["qn"] + 1)
        return self.escort_next(v, (seat - w[self.PK[0]]) % self.n)

    def reveal(self, w: World, v: int) -> World:
        """A score stall: its keeper takes it; one score stall fewer face down."""
        keeper = self.at(w, self.KP, w["qi"])
        u = w.but(phys=w["phys"] - 1, slots=w["slots"] - 1, qi=w["qi"] + 1, **{f"c{v}": w[f"c{v}"] - 1})
        return self.after_reveal(self.put(u, self.SV[v], keeper, lambda x: x + 1))

    def reveal_loira(self, w: World) -> World:
        picker = self.at(w, self.PK, w["qi"])
        u = w.but(phys=w["phys"] - 1, victim=picker)
        if self.rule["L08"] != "pair-discard":
            return self.loira_takes(u, picker)
        return choose(self.can_escape(u, picker), lambda: u.but(ph=Phase.ESCAPE, mover=picker),
                      lambda: self.loira_takes(u, picker))

    def escape(self, w: World, a: int, b: int) -> World:
        """L08: the pair is discarded and the Loira goes back, known to be there (slots = phys); L27
        (Susto) and L17 for the picks not yet opened."""
        victim = w["victim"]
        v = self.put(w, self.H[a], victim, lambda x: x - 1)
        v = self.discard(self.put(v, self.H[b], victim, lambda x: x - 1), a)
        v = self.discard(v, b)
        v = v.but(phys=v["phys"] + 1, slots=v["phys"] + 1, victim=-1, qi=v["qi"] + 1)
        if self.rule["L27"] == "susto-turn-goes-on":
            if self.rule["L17"] == "rolls-returned":
                start = If(v["qi"] >= v["qm"], v["qi"], v["qm"])
                for j in range(self.qlen):
                    back = And(j >= start, j < v["qn"])
                    for i in range(self.n):
                        give = And(back, v[self.PK[j]] == i)
                        v = v.but(**{self.R[i]: v[self.R[i]] + If(give, 1, 0)},
                                  crolls=v["crolls"] - If(give, 1, 0))
            v = v.but(qi=v["qn"])
        return self.after_reveal(v)

    # ---- binding, legal sets, chance laws ------------------------------------------------------------
    def bind(self, s, move, actor) -> Bound:
        """What a real move is, read off the state before and the move (seats made absolute)."""
        n, ph = self.n, s[PH]
        turn = s[TURN]
        if ph == Phase.DRAW:
            return Bound("draw a closed card" if move == CLOSED else f"draw {TOKENS.get(move, move)}")
        if ph == Phase.UNVEIL:
            return Bound(f"unveil {TOKENS.get(move, move)}")
        if ph == Phase.REVEAL:
            if move == LOIRA:
                return Bound("reveal the Loira")
            return Bound(f"reveal a {self.cfg.stalls[move]}" if 0 <= move < self.S else f"reveal {move!r}")
        if ph == Phase.TURN:
            if move == OPEN_ASIDE:
                return Bound("open a set-aside card")
            if move >= RALO_PASS:
                return Bound("pass the Ralo", {"to": (turn + move - RALO_PASS) % n})
            return Bound({GO: "go", STOP_ACT: "stop", SWITCH: "use the Interruptor", PASS: "pass"}.get(move, repr(move)))
        if ph == Phase.STEAL:
            return Bound("steal a roll", {"seat": (turn + move) % n})
        if ph == Phase.DESCARGA:
            if move == DECLINE:
                return Bound("flush nothing")
            offset, slot = divmod(move, 32)
            return Bound(f"flush {self._slot(slot)}", {"seat": (turn + offset) % n})
        if ph == Phase.ZELADOR:
            return Bound(f"discard {self._slot(move)} (Zelador)")
        if ph == Phase.FIOS:
            return Bound("invite", {"seat": (turn + move) % n})
        if ph == Phase.RAPAGOTE:
            return Bound("indicate", {"seat": (turn + move) % n})
        if ph == Phase.ESCORT:
            return Bound("escort" if move == YES else "do not escort")
        if ph == Phase.ESCAPE:
            if move == 0:
                return Bound("do not escape")
            d, v1, v2 = (move - 1) // 9, (move - 1) // 3 % 3, (move - 1) % 3
            return Bound(f"escape with {TOKENS[3 * d + v1]}+{TOKENS[3 * d + v2]}")
        if ph == Phase.EXPANSION:
            return Bound("open the closed card on top" if move == YES else
                         "set the closed card aside" if move == NO else f"a move the rules do not list ({move!r})")
        if ph == Phase.INTNOW:
            return Bound("use it now" if move == YES else "keep it")
        if ph == Phase.CHUTE:
            return Bound("kick a stall" if move == YES else "kick none")
        if ph == Phase.TOCTOC:
            return Bound("apply the Toc-Toc" if move == YES else "decline the Toc-Toc")
        if ph == Phase.DIRETORA:
            return Bound("choose the openers", {"mask": sum(1 << (turn + i) % n for i in range(n) if move >> i & 1)})
        if ph == Phase.PROFESSORA:
            return Bound("invite two", {"seat": (turn + move // 16) % n, "second": (turn + move % 16) % n})
        return Bound(f"a move the rules do not list ({move!r})")

    def _slot(self, slot: int) -> str:
        """A hand slot of the model's holding layout, as the rules name the card."""
        g = self.game
        if 0 <= slot < 9:
            return TOKENS[slot]
        if g.h_stall <= slot < g.h_stall + self.S:
            return f"a {self.cfg.stalls[slot - g.h_stall]}-point stall"
        return f"slot {slot}"

    def options(self, f) -> list[Bound]:
        """The moves the rule text allows the seat to move (``mover``) at a decision."""
        n, ph, turn, actor = self.n, f["ph"], f["turn"], f["mover"]
        out: list[Bound] = []
        if ph == Phase.TURN:
            if f[self.ST[turn]]:   # a stopped seat moves only to use the Interruptor (L13 'also-stopped')
                return [Bound("use the Interruptor"), Bound("pass")]
            out = [Bound("go"), Bound("stop")]
            if self.T and f[self.T[turn]]:
                out.append(Bound("use the Interruptor"))
            if self.Z and f[self.Z[turn]]:
                out += [Bound("pass the Ralo", {"to": t}) for t in range(n) if t != turn and not f[self.ST[t]]]
            if self.exp and f["aside"]:
                out.append(Bound("open a set-aside card"))
            return out
        others = [t for t, ok in self.targets(f, turn) if ok]
        if ph == Phase.STEAL:
            return [Bound("steal a roll", {"seat": t}) for t in others if f[self.R[t]]]
        if ph == Phase.DESCARGA:
            out = [Bound(f"flush {self.slot_text(slot)}", {"seat": t}) for t, slot, ok in self.flush_options(f) if ok]
            if out and self.rule["L29"] == "optional":
                out.append(Bound("flush nothing"))
            return out
        if ph == Phase.FIOS:
            return [Bound("invite", {"seat": t}) for t in others]
        if ph == Phase.RAPAGOTE:
            return [Bound("indicate", {"seat": t}) for t in others]
        if ph == Phase.ESCORT:
            return [Bound("escort"), Bound("do not escort")]
        if ph == Phase.ESCAPE:
            victim = f["victim"]
            out = [Bound("do not escape")]
            for a, b in self.escape_pairs():
                if f[self.H[a][victim]] >= (2 if a == b else 1) and f[self.H[b][victim]] >= 1:
                    out.append(Bound(f"escape with {TOKENS[a]}+{TOKENS[b]}"))
            return out
        if ph == Phase.EXPANSION:
            return [Bound("open the closed card on top")] + (
                [Bound("set the closed card aside")] if self.deck_total(f) else [])
        if ph == Phase.INTNOW:
            return [Bound("use it now"), Bound("keep it")]
        if ph == Phase.CHUTE:
            return [Bound("kick a stall"), Bound("kick none")]
        if ph == Phase.TOCTOC:
            return [Bound("apply the Toc-Toc"), Bound("decline the Toc-Toc")]
        if ph == Phase.ZELADOR:
            return [Bound(f"discard {self.slot_text(slot)} (Zelador)") for slot, held in self.slots_of(f, actor) if held]
        if ph == Phase.DIRETORA:
            from itertools import combinations
            openers = [s for s, ok in self.diretora_openers(f) if ok]
            return [Bound("choose the openers", {"mask": sum(1 << s for s in c)})
                    for c in combinations(openers, f["phys"])]
        if ph == Phase.PROFESSORA:
            return [Bound("invite two", {"seat": a, "second": b}) for a in others for b in others if a != b]
        return []

    def chance(self, f) -> dict[Bound, Fraction]:
        """000: the top card of a shuffled deck, each card alike (so each kind by its count, every
        closed mini-expansion card in the deck together: their kinds are not seen); a closed card
        opened is each closed card alike (none was seen: "Embaralhe as cartas de mini-expansão com o
        Baralho Principal"), so a kind by its count of cards not yet revealed; a face-down stall
        picked among the cards in the centre, each alike, the Loira among them with probability
        phys/slots (``model.loira.centre``: kicks unseen, an escape puts her back)."""
        if f["ph"] == Phase.DRAW:
            total = self.deck_total(f)
            law = {Bound(f"draw {TOKENS[k]}"): Fraction(f[f"d{k}"], total)
                   for k in self.kinds if f[f"d{k}"] and k not in self.exp}
            if self.exp and self.closed(f) - f["aside"]:
                law[Bound("draw a closed card")] = Fraction(self.closed(f) - f["aside"], total)
            return law
        if f["ph"] == Phase.UNVEIL:
            closed = self.closed(f)
            return {Bound(f"unveil {TOKENS[k]}"): Fraction(f[f"d{k}"], closed) for k in self.exp if f[f"d{k}"]}
        phys, slots = f["phys"], f["slots"]
        present = Fraction(phys, slots)          # P(the Loira is among the face-down cards)
        loira = present / phys                   # each face-down card alike
        unopened = sum(f[f"c{v}"] for v in range(self.S))
        law = {Bound("reveal the Loira"): loira}
        for v in range(self.S):
            if f[f"c{v}"]:
                law[Bound(f"reveal a {self.cfg.stalls[v]}")] = (1 - loira) * Fraction(f[f"c{v}"], unopened)
        return law

    # ---- the set-up -----------------------------------------------------------------------------------
    def init(self, f) -> Any:
        """000 Preparação: the shuffled deck and stalls, no holdings, the first seat to move."""
        cfg = self.cfg
        first = cfg.first_seat
        eq = [f["ph"] == Phase.TURN, f["turn"] == first, f["first"] == first, f["mover"] == first, f["dir"] == 0,
              f["gritos"] == 0, f["crolls"] == cfg.centre_rolls, f["phys"] == self.m0 + 1, f["slots"] == self.m0 + 1,
              f["qn"] == 0, f["qm"] == 0, f["qi"] == 0, f["victim"] == -1, f["end"] == 0, f["card"] == -1,
              f["owed"] == 0, f["ghost"] == 0]
        eq += [f[x] == 0 for x in self.ST + self.W + self.U]
        eq += [f[x] == -1 for x in self.PK + self.KP]
        eq += [f[f"d{k}"] == cfg.deck[k] for k in self.kinds] + [f[f"x{k}"] == 0 for k in self.kinds]
        if self.exp:
            eq.append(f["aside"] == 0)
        eq += [f[f"c{v}"] == cfg.stall_counts[v] for v in range(self.S)] + [f[f"o{v}"] == 0 for v in range(self.S)]
        eq += [f[self.R[i]] == cfg.rolls[i] for i in range(self.n)] + [f[self.RS[i]] == cfg.rolls[i] for i in range(self.n)]
        eq += [f[x] == 0 for names in [*self.H.values(), *self.SV, self.E, self.T, self.Z] if names for x in names]
        return And(eq)

    def typing(self) -> Conjunction:
        """Ranges of the frame's variables (the seats, the phases, 0/1 flags), in parts."""
        n = self.n

        def seat(x, lo=0):
            return lambda f: And(f[x] >= lo, f[x] < n)
        def header(f):
            return And(seat("turn")(f), seat("first")(f), Or(f["dir"] == 0, f["dir"] == 1), f["mover"] >= TERMINAL,
                       f["mover"] < n, seat("victim", -1)(f), f["ph"] >= 0, f["ph"] <= max(Phase), f["end"] >= 0,
                       f["end"] <= max(End), f["ghost"] == 0, [Or(f[x] == 0, f[x] == 1) for x in self.ST])

        def queue(f):
            return And([seat(x, -1)(f) for x in self.PK + self.KP])
        return Conjunction(header, queue)

def choose_positions(position: Any, n: int, world: Callable[[int], World]) -> World:
    """Z3's form of a world that depends on a seat's position in the play order (0..n-1)."""
    out = world(n - 1)
    for i in range(n - 2, -1, -1):
        cur = world(i)
        out = SymWorld({k: v if _same(v, out[k]) else z3.If(position == i, v, out[k]) for k, v in cur.items()})
    return out


def _bit(mask: Any, seat: Any) -> Any:
    """Bit ``seat`` of ``mask`` set (Z3: by integer division)."""
    if not _sym(mask) and not _sym(seat):
        return bool(mask >> seat & 1)
    if not _sym(seat):
        return (mask / (2 ** seat)) % 2 == 1
    return first_of([(seat == j, _bit(mask, j)) for j in range(16)], False)


# ---- the claims -----------------------------------------------------------------------------------------
class Claims:
    """What the proofs claim about the abstract model of one configuration (Z3 proves each on its
    parameters; each is also checked on every frame the mapping meets)."""

    def __init__(self, rules: LoiraRules):
        self.r = rules

    def structure(self) -> list:
        """Facts of the flow the claims need: the card being resolved; the opening queue holds seats,
        each pick still to reveal has a card in the centre (L26), and it is empty between openings."""
        r = self.r
        own = {Phase.DESCARGA: [Kind.DESCARGA], Phase.FIOS: [Kind.FIOS], Phase.RAPAGOTE: [Kind.RAPAGOTE],
               Phase.ZELADOR: [Kind.ZELADOR], Phase.DIRETORA: [Kind.DIRETORA], Phase.PROFESSORA: [Kind.PROFESSORA],
               Phase.INTNOW: [Kind.INTERRUPTOR], Phase.CHUTE: [Kind.CHUTE], Phase.TOCTOC: [Kind.TOCTOC],
               Phase.STEAL: [Kind.TOCTOC, Kind.TIA], Phase.EXPANSION: [CLOSED], Phase.UNVEIL: [CLOSED],
               Phase.TURN: [-1],
               Phase.DRAW: [-1], Phase.END: [-1],
               Phase.ESCORT: [Kind.GRITO, Kind.FIOS, Kind.RAPAGOTE, Kind.DIRETORA, Kind.ALUNA, Kind.PROFESSORA]}
        own[Phase.REVEAL] = own[Phase.ESCAPE] = own[Phase.ESCORT]

        def opening(f):
            return Or(f["ph"] == Phase.ESCORT, f["ph"] == Phase.REVEAL, f["ph"] == Phase.ESCAPE)

        def card(f):
            return And([Implies(f["ph"] == p, Or([f["card"] == k for k in ks] or [False])) for p, ks in own.items()])

        def cards_left(f):
            ph, phys = f["ph"], f["phys"]
            return And(Implies(ph == Phase.FIOS, phys >= 1), Implies(ph == Phase.RAPAGOTE, phys >= 2),
                       Implies(ph == Phase.DIRETORA, phys >= 1), Implies(ph == Phase.PROFESSORA, phys >= 1),
                       Implies(Or(ph == Phase.ESCORT, ph == Phase.REVEAL), phys >= f["qn"] - f["qi"]),
                       Implies(ph == Phase.ESCAPE, phys >= f["qn"] - f["qi"] - 1))

        def ended(f):
            return And(Implies(f["ph"] != Phase.END, f["end"] == 0), Implies(f["ph"] == Phase.END, f["end"] >= 1))

        def queue(f):
            qn, qi, qm = f["qn"], f["qi"], f["qm"]
            return And(qm >= 0, qi >= 0, qi <= qn, qm <= qn, qn <= r.qlen - 1,
                       Implies(Not(opening(f)), And(qn == 0, qm == 0, qi == 0)),
                       Implies(opening(f), And(qm >= 1, qi < qn)), Implies(f["ph"] == Phase.ESCORT, qi == 0))

        def picks(f):
            return And([And(Implies(j < f["qn"], And(f[pk] >= 0, f[pk] < r.n, f[kp] >= 0, f[kp] < r.n)),
                            Implies(j >= f["qn"], And(f[pk] == -1, f[kp] == -1))) for j, pk, kp in zip(range(r.qlen), r.PK, r.KP)])
        return [card, cards_left, ended, queue, picks]

    def seats(self) -> list:
        """000 O Jogo: the turn seat acts while it has not stopped (L13 'also-stopped': a stopped
        holder of the Interruptor may still use it); the seat asked to escort holds a roll, is not a
        picker and (L21) has not stopped, with a card left for it (L26); the Loira's victim is the
        picker whose card was revealed; chance moves the draw and the reveals."""
        r = self.r
        own = [Phase.STEAL, Phase.DESCARGA, Phase.FIOS, Phase.RAPAGOTE, Phase.DIRETORA, Phase.PROFESSORA,
               Phase.EXPANSION, Phase.INTNOW, Phase.CHUTE, Phase.TOCTOC]

        def turn(f):
            active = Not(r.stopped(f, f["turn"]))
            if r.rule["L13"] == "also-stopped" and r.T:
                active = Or(active, r.at(f, r.T, f["turn"]) >= 1)
            return Implies(f["ph"] == Phase.TURN, And(f["mover"] == f["turn"], active))

        def others(f):
            ph, mover = f["ph"], f["mover"]
            return And(Implies(ph == Phase.END, mover == TERMINAL),
                       Implies(Or(ph == Phase.DRAW, ph == Phase.REVEAL, ph == Phase.UNVEIL), mover == CHANCE),
                       Implies(Or([ph == x for x in own]), mover == f["turn"]))

        def victim(f):
            return Implies(f["ph"] == Phase.ESCAPE, And(f["mover"] == f["victim"],
                                                         f["victim"] == r.at(f, r.PK, f["qi"])))

        def escort(f):
            mover = f["mover"]
            return Implies(f["ph"] == Phase.ESCORT, And(mover >= 0, r.may_escort(f, mover), mover != f[r.PK[0]]))

        def zelador(f):
            mover = f["mover"]
            return Implies(f["ph"] == Phase.ZELADOR, And(mover >= 0, Or(mover == f["turn"], Not(r.protected(f, mover)))))
        return [turn, others, victim, escort, zelador]

    def centre(self, f) -> Any:
        m = Sum([f[f"c{v}"] for v in range(self.r.S)] + [0])
        return And(0 <= f["phys"], f["phys"] <= f["slots"], f["slots"] <= m + 1, f["slots"] >= 1,
                   Implies(f["ph"] == Phase.ESCAPE, f["phys"] <= m), f["gritos"] >= 0)

    def cards(self) -> list:
        """Per card kind: deck + discard + held = the deck's count (a mini-expansion kind's deck
        counts its closed cards, set aside and on top included); the closed cards set aside and the
        one on top are among the closed ones."""
        r = self.r

        def kind(k):
            held = list(r.H.get(k, []))
            for names, which in ((r.E, Kind.ESPELHO), (r.T, Kind.INTERRUPTOR), (r.Z, Kind.RALO)):
                if names and k == which:
                    held = list(names)
            regions = [f"d{k}", f"x{k}"] + held

            def claim(f):
                return And(Sum([f[x] for x in regions]) == r.cfg.deck[k], [f[x] >= 0 for x in regions])
            return claim

        def closed(f):
            return And(f["aside"] >= 0, r.closed(f) - f["aside"] - If(f["card"] == CLOSED, 1, 0) >= 0)
        return [kind(k) for k in r.kinds] + ([closed] if r.exp else [])

    def rolls(self, f) -> Any:
        """Rolls in the centre plus rolls held = the boxes' rolls, none negative; each escort queued
        paid its roll into the centre (L17 may give it back)."""
        r = self.r
        return And(f["crolls"] + Sum([f[x] for x in r.R]) == r.cfg.total_rolls, f["crolls"] >= 0,
                   [f[x] >= 0 for x in r.R], f["crolls"] >= f["qn"] - f["qm"])

    def stalls(self) -> list:
        """Per stall value, unopened + held + out = its count; the centre belief 0 <= phys <= slots
        <= unopened + 1 (the Loira out, phys <= unopened)."""
        r = self.r

        def value(v):
            names = [f"c{v}", f"o{v}"] + list(r.SV[v])
            return lambda f: And(Sum([f[x] for x in names]) == r.cfg.stall_counts[v], [f[x] >= 0 for x in names])
        return [value(v) for v in range(r.S)] + [self.centre]

    def table(self) -> Conjunction:
        """The lemma the other claims assume (proved by ``loira-table``)."""
        return Conjunction(*self.structure(), *self.seats(), *self.cards(), self.rolls, *self.stalls())

    def mer(self, f) -> Any:
        """Merendeiras not yet resolved (in the deck, set aside, on top)."""
        if not self.r.cfg.deck[Kind.MERENDEIRA]:
            return 0
        return f[f"d{Kind.MERENDEIRA}"]   # closed ones: in the deck, set aside or on top

    def round_rank(self, f) -> Any:
        r = self.r
        big = r.cfg.deck_size + 1
        active = Sum([1 - f[x] for x in r.ST])
        return r.deck_total(f) + active + big * self.mer(f) + If(f["ph"] != Phase.END, 1, 0)

    def rank_bound(self) -> int:
        cfg = self.r.cfg
        return cfg.deck_size + self.r.n + (cfg.deck_size + 1) * cfg.deck[Kind.MERENDEIRA] + 1

    def ranking(self, f) -> Any:
        """The round's ranking; in a match, rounds still to win first (each new round records a win,
        L15 'all-tied-win')."""
        r = self.r
        if r.cfg.objective != "match":
            return self.round_rank(f)
        left = r.n * r.cfg.target_wins - Sum([f[x] for x in r.W])
        return (self.rank_bound() + 1) * left + self.round_rank(f)

    def termination(self, f) -> Any:
        r = self.r
        cs = [True]
        if r.cfg.objective == "match":
            cs += [And(f[x] >= 0, f[x] <= r.cfg.target_wins) for x in r.W]
            cs.append(Implies(f["ph"] != Phase.END, And([f[x] <= r.cfg.target_wins - 1 for x in r.W])))
        return And(cs)

    def pending_grito(self, f) -> Any:
        return If(And(f["card"] == Kind.GRITO, f["ph"] != Phase.TURN, f["ph"] != Phase.END), 1, 0)

    def deck_never_empty(self, f) -> Any:
        """Gritos in the deck + resolved + being resolved >= 3 while the round goes on, at most 2
        resolved: a Grito (a card) is always left to draw, and no round ends on an empty deck."""
        g = f"d{Kind.GRITO}"
        return And(f[f"x{Kind.GRITO}"] >= 0, f[g] >= 0,
                   f[g] + f[f"x{Kind.GRITO}"] == self.r.cfg.deck[Kind.GRITO],
                   f["end"] != End.DECK, f["gritos"] >= 0,
                   Implies(f["ph"] != Phase.END, And(f["gritos"] <= GRITO_END - 1,
                                                     f[g] + f["gritos"] + self.pending_grito(f) >= GRITO_END)))


def loira_proofs(ruleset: Ruleset, game) -> list[RuleProof]:
    """The claims about the abstract model that apply to this ruleset, sharing its mapping."""
    rules = LoiraRules(game)
    claims = Claims(rules)
    cfg = game.cfg
    table = claims.table()
    common = dict(frame=rules.frame, abstraction=_memo(rules), init=rules.init, actions=rules.moves(),
                  bind=rules.bind, chance=rules.chance, options=rules.options, assumptions=rules.typing(), lemma=table,
                  abstraction_doc=("the public table read off the state record: phase, mover (current_player), "
                                   "turn, direction, stops, Gritos, centre (rolls, cards, slots, unopened and out "
                                   "stalls), the opening queue, victim, end, first seat, card resolved; per kind "
                                   "deck/discard/aside; per seat rolls, wins, holdings; u<seat> = returns"))
    out = [RuleProof(
        "loira-table",
        "who may act (the turn seat while it has not stopped, L13's Interruptor apart; an escort only a "
        "roll holder that is not a picker and, L21, has not stopped, while a card is left for it, L26; the "
        "Loira's victim is the picker revealed); per card kind deck (a mini-expansion kind: its closed cards, "
        "in the deck, set aside or on top) + discard + held = "
        f"the deck's count; rolls in the centre + held = {cfg.total_rolls}; per stall value unopened + held "
        "+ out = its count; 0 <= cards in the centre <= belief slots <= unopened + 1 (P(Loira next) = "
        "1/slots is a probability)",
        invariant=table, sentence=SENTENCES["turn"], **dict(common, lemma=None))]
    if cfg.rulings["L25"] == "round-ends" and (cfg.objective == "round" or cfg.rulings["L15"] == "all-tied-win"):
        bound = claims.rank_bound()
        what = f"a round has at most {bound} draws and stops" + (
            f"; a match at most {rules.n * (cfg.target_wins - 1) + 1} rounds" if cfg.objective == "match" else "")
        draws = tuple(a.name for a in common["actions"] if a.name.startswith("draw "))
        out.append(RuleProof("loira-termination", f"every draw and every stop lowers a ranking no move raises "
                             f"(given loira-table): {what}", invariant=claims.termination, ranking=claims.ranking,
                             decreasing=("stop",) + draws, sentence=SENTENCES["end"], **common))
    if cfg.deck[Kind.GRITO] >= GRITO_END:
        out.append(RuleProof("loira-deck-never-empty", "with 3 or more Gritos the main deck never runs out "
                             "before the round ends, so L25 never applies (given loira-table)",
                             invariant=claims.deck_never_empty, sentence=SENTENCES["end"], **common))
    return out


# ---- score bounds: a Z3 optimum over a holding abstraction checked on every state -----------------------
def _ints(names: Sequence[str]):
    def frame(sfx: str) -> dict[str, z3.ArithRef]:
        return {x: z3.Int(x + sfx) for x in names}
    return frame


def _holding_names(cfg: Config) -> list[str]:
    names = [f"bath{k}" for k in range(9) if cfg.deck[k]] + [f"stall{v}" for v in cfg.stalls]
    return names + ["espelho", "copy", "interruptor", "ralo", "rolls", "openings"]


def holding(game, s, seat: int) -> dict[str, int]:
    """One seat's holding as the score proof reads it (``copy``: what its Espelho copies, L12)."""
    from ruleproof.model.loira.scoring import espelho_value
    cfg, hand = game.cfg, game.hand(s, seat)
    f = {f"bath{k}": hand[k] for k in range(9) if cfg.deck[k]}
    f.update({f"stall{v}": hand[game.h_stall + i] for i, v in enumerate(cfg.stalls)})
    f.update(espelho=hand[game.h_esp], copy=espelho_value(game, s), interruptor=hand[game.h_int],
             ralo=hand[game.h_ralo], rolls=s[game.o_rolls + seat], openings=opening_capacity(cfg))
    return f


def holding_constraints(cfg: Config):
    """What a reachable holding satisfies: each card at most as often as the deck has it; stalls
    won at most one per opening the seat can take part in (``bounds.opening_capacity``); the
    Espelho copies a value somebody can hold."""
    deck = cfg.deck

    def constraints(f):
        cs = [And(f[f"bath{k}"] >= 0, f[f"bath{k}"] <= deck[k]) for k in range(9) if deck[k]]
        cs += [And(f[f"stall{v}"] >= 0, f[f"stall{v}"] <= c) for v, c in zip(cfg.stalls, cfg.stall_counts)]
        cs.append(f["openings"] == opening_capacity(cfg))
        cs.append(Sum([f[f"stall{v}"] for v in cfg.stalls] + [0]) <= f["openings"])
        cs += [And(f[x] >= 0, f[x] <= deck[k]) for x, k in (("espelho", Kind.ESPELHO),
                                                             ("interruptor", Kind.INTERRUPTOR), ("ralo", Kind.RALO))]
        cs.append(And(f["rolls"] >= 0, f["rolls"] <= cfg.total_rolls))
        copyable = [0] + [k % 3 for k in range(9) if deck[k]]
        if cfg.rulings["L12"] == "any-point-card":
            copyable += [If(f["openings"] > 0, v, 0) for v in cfg.stalls]
        cs.append(Or([f["copy"] == c for c in copyable]))
        return And(cs)
    return constraints


def score_expr(cfg: Config):
    """000 Fim da Rodada: bathroom values + stalls + Espelho + 2 per Interruptor + rolls - 2 per Ralo."""
    def score(f):
        return Sum([(k % 3) * f[f"bath{k}"] for k in range(9) if cfg.deck[k]]
                   + [v * f[f"stall{v}"] for v in cfg.stalls]
                   + [f["espelho"] * f["copy"], 2 * f["interruptor"], f["rolls"], -2 * f["ralo"]])
    return score


def score_bounds_opt(cfg: Config, name: str, limits: Limits = NO_LIMITS):
    """(result, lo, hi): the Z3 optimum of the score over the holding constraints, compared with
    the closed form of ``model.loira.bounds`` that the score-bounds invariant uses."""
    res, lo, hi, witnesses = optimize_bound(name, _ints(_holding_names(cfg)), score_expr(cfg),
                                            holding_constraints(cfg), limits=limits)
    if res.status != HOLDS:
        return res, None, None
    closed = closed_bounds(cfg)
    if (lo, hi) != closed:
        return PropertyResult(name, FAILS, f"Z3 optimum [{lo}, {hi}] differs from the closed form {list(closed)}",
                              witnesses.get("max"), "z3", res.seconds), lo, hi
    res.data.update(witness_max=witnesses.get("max"))
    return res, lo, hi


def score_bounds(game, states, how: str, limits: Limits = NO_LIMITS, sampled: bool = False) -> PropertyResult:
    """The Z3 optimum over the abstraction, and the abstraction checked on every seat of every
    state given: its constraints hold and the real ``scoring.score`` equals the abstraction's."""
    from ruleproof.model.loira.scoring import espelho_value, score
    name = "score-bounds (this ruleset)"
    cfg = game.cfg
    res, lo, hi = score_bounds_opt(cfg, name, limits)
    if res.status != HOLDS:
        return res
    start = time.perf_counter()
    constraints, expr = holding_constraints(cfg), score_expr(cfg)
    seen_lo = seen_hi = 0
    count = 0
    good: set = set()   # holdings already checked (most states share them)
    for count, (s, narrate) in enumerate(states, 1):
        if count & 1023 == 0 and limits.expired():
            return PropertyResult(name, UNKNOWN, f"Z3 optimum [{lo}, {hi}]; the abstraction check stopped "
                                  f"after {count:,} states (time limit)", kind="z3", scope=how)
        for seat in range(game.num_players):
            hand = game.hand(s, seat)
            key = (hand, s[game.o_rolls + seat], espelho_value(game, s) if hand[game.h_esp] else -1)
            if key in good:
                continue
            f = holding(game, s, seat)
            real = score(game, s, seat)
            if not constraints(f) or expr(f) != real:
                why = ("the holding leaves the proof's constraints" if not constraints(f) else
                       f"the model scores {real}, the proof's score expression {expr(f)}")
                return PropertyResult(name, FAILS, "the score proof's holding abstraction does not describe "
                                      "the model", narrate() + [f"seat {seat}: " + ", ".join(f"{k}={v}" for k, v in f.items()),
                                                                why], "refinement", time.perf_counter() - start,
                                      scope=how)
            good.add(key)
            seen_lo, seen_hi = min(seen_lo, real), max(seen_hi, real)   # each holding once
    return PropertyResult(name, HOLDS,
                          f"tightest round score of one seat over the holding abstraction: [{lo}, {hi}] (Z3 "
                          f"optimum = the closed form the score-bounds invariant uses; stalls winnable: "
                          f"{opening_capacity(cfg)}); abstraction and score checked on every seat of "
                          f"{count:,} states, reachable scores [{seen_lo}, {seen_hi}]"
                          + (" -- sampled, not a proof" if sampled else ""),
                          kind="sampled" if sampled else "z3", seconds=res.seconds + time.perf_counter() - start,
                          data={"min": lo, "max": hi, "reachable_min": seen_lo, "reachable_max": seen_hi},
                          scope=how)


# ---- the tie-break: the winners formula of the model, proved total and tied to every end of round ------------
def tie_break(ctx: Context, rules: "LoiraRules", mapping: RuleProof) -> PropertyResult:
    """Z3, on the very winners formula the mapping evaluates at every end of round
    (:meth:`LoiraRules.winners`): some seat always wins, winners share one best (score, cards) pair,
    and the utilities add up to the game's constant; then the mapping itself (shared with
    ``loira-table``), whose end-of-round moves set ``u<seat>`` to the model's returns."""
    import z3 as _z3
    from ruleproof.proofs.refinement import _share_key, refinement_check
    name, n = "tie-break", rules.n
    start = time.perf_counter()
    f = rules.frame("")
    base = And(rules.typing()(f), [f[x] >= 0 for x in rules.R],
               [f[x] >= 0 for names in [*rules.H.values(), *rules.SV, rules.E, rules.T, rules.Z] if names
                for x in names])
    reasons = [End.LOIRA, End.GRITO] if rules.rule["L28"] == "no" else [End.GRITO]
    for why in reasons:
        won = rules.winners(f, why)
        score = [rules.score(f, i) for i in range(n)]
        cards = [rules.tie_cards(f, i) for i in range(n)]
        util = rules.utility(won)
        claims = [(Or(won), "some seat always wins"),
                  (And([Implies(And(won[i], won[j]), And(score[i] == score[j], cards[i] == cards[j]))
                        for i in range(n) for j in range(n)]), "winners share one best (score, cards) pair"),
                  (Sum([util[x] for x in rules.U]) == (0 if n == 2 else rules.D), "the utilities add up to "
                   "the game's constant")]
        for claim, what in claims:
            solver = _z3.Solver()
            ctx.limits.bound_z3(solver)
            solver.add(base, _z3.Not(claim))
            if why == End.LOIRA:
                solver.add(f["victim"] >= 0)
            verdict = solver.check()
            if verdict != _z3.unsat:
                status = FAILS if verdict == _z3.sat else UNKNOWN
                said = "a counterexample" if verdict == _z3.sat else ctx.limits.z3_unknown(solver.reason_unknown())
                example = [", ".join(f"{k}={solver.model().eval(v, model_completion=True)}"
                                     for k, v in f.items())] if verdict == _z3.sat else None
                return ctx.result(name, status, f"the winners formula: {what}: {said}", example, kind="z3",
                                  seconds=time.perf_counter() - start)
    if ctx.source not in (EXPLORATION, SAMPLES):
        return ctx.result(name, UNKNOWN, "the winners formula is total and shares the win (Z3); not tied to the "
                          "code here (no state explored or sampled)", kind="z3")
    failure, counts, stop = refinement_check(mapping, ctx)
    if failure is not None:
        return ctx.result(name, FAILS, "the model's moves leave the rules' model (the mapping shared with "
                          "loira-table: an end of round may pay the wrong seats)", failure[-3:], kind="refinement")
    if stop:
        return ctx.result(name, UNKNOWN, f"the winners formula holds (Z3); the mapping stopped ({stop})", kind="z3")
    record = ctx.cache["refinement passes"][_share_key(mapping)]
    ends = sum(1 for _, _, f, _ in record["run"].frames if f["mover"] == TERMINAL)
    how = "exhaustive" if ctx.source == EXPLORATION else "sampled"
    return ctx.result(name, HOLDS, f"000 Fim da Rodada (most points, then fewer cards by L04 "
                      f"'{rules.rule['L04']}' / L05 '{rules.rule['L05']}', else a shared win; L28 "
                      f"'{rules.rule['L28']}'): the winners formula always names a winner, winners share one best "
                      f"pair and the utilities add up (Z3, {n} seats); at each of the {ends:,} ends met the "
                      f"model's returns are that formula's utilities (the mapping, {how})"
                      + (" -- sampled, not a proof" if how == "sampled" else ""),
                      kind="z3" if how == "exhaustive" else "sampled", seconds=time.perf_counter() - start,
                      data={"ends": ends})


# ---- what each seat may know --------------------------------------------------------------------------------
def information_view(rules: LoiraRules, read) -> Callable[[Any, int], tuple]:
    """000: every card drawn is revealed to everyone ("revelando-a a todos"), the centre is known as
    a multiset of unopened stalls and what was kicked is seen by nobody (the belief of
    ``model.loira.centre``); a mini-expansion card on top or set aside is closed ("deixá-la de lado
    ainda fechada"): only that there is one is known, and per kind how many are not yet revealed.
    Everything a seat may know is then the public table (the same for every seat): a card on top or
    being opened is shown as closed, counted back among its kind's closed cards."""
    hidden = set(rules.U) | {"ghost"}
    exp = rules.exp
    names = [x for x in rules.names if x not in hidden]
    get = itemgetter(*names)
    last: list = [None, None]   # the view is the same for every seat: computed once per state

    def view(state, seat: int) -> tuple:
        if last[0] is state:
            return last[1]
        f = read(state)
        if exp and f["ph"] in (Phase.EXPANSION, Phase.UNVEIL) and f["card"] != CLOSED:
            f = dict(f)
            if f["card"] in exp:   # a model that knows the card's kind: the rules count it closed
                f[f"d{f['card']}"] += 1
            f["card"] = CLOSED
        got = get(f)
        last[0], last[1] = state, got
        return got
    return view


# ---- what verify runs --------------------------------------------------------------------------------------------
def properties(ruleset: Ruleset, game) -> list[Property]:
    """Loira's properties: the proofs on the rules' model, the information each seat has, the score
    bounds, the tie-break, and the checks of ``model.loira.checks``."""
    from ruleproof.model.loira import checks
    from ruleproof.model.loira.shrink import is_verify_scale_down
    from ruleproof.proofs.information import information_property
    from ruleproof.proofs.refinement import proof_property
    from ruleproof.model.loira.shrink import COMPANION
    from ruleproof.proofs.refinement import check_mapping
    cfg = game.cfg
    proofs = loira_proofs(ruleset, game)
    rules = proofs[0].abstraction.rules
    if ruleset.description == COMPANION:   # its claims checked on every frame; Z3 proves them on the main one
        claims = [Property(p.name, p.sentence or p.claim, (EXPLORATION, SAMPLES), lambda ctx, p=p: check_mapping(p, ctx))
                  for p in proofs]
    else:
        claims = [proof_property(p) for p in proofs]
    either = (EXPLORATION, SAMPLES)
    out = []
    out.append(information_property(
        "loira-information", '000 O Jogo: "coloque-a à sua frente, aberta, revelando-a a todos"; Chute no vaso: '
        '"sem que ninguém veja seu conteúdo"; Mini-expansões: "deixá-la de lado ainda fechada"',
        information_view(rules, proofs[0].abstraction),
        "each seat may know the public table (every card drawn, the centre as a belief, closed mini-expansion "
        "cards by their count)", public=True))
    out.append(Property("score-bounds (this ruleset)", "000 Fim da Rodada: the round's score of a seat", either,
                        lambda ctx: score_bounds(ctx.game, ctx.states(), ctx.scope, ctx.limits,
                                                 sampled=ctx.source == SAMPLES)))
    if cfg.rulings["L25"] == "reshuffle":
        out.append(Property("round-termination", "L25 'reshuffle': the round still ends", (EXPLORATION,),
                            lambda ctx: checks.cycle_check(ctx, "round-termination",
                                                           "L25 'reshuffle' rebuilds the deck, so no ranking on cards")))
    if cfg.objective == "match" and cfg.rulings["L15"] == "replay":
        out.append(Property("match-termination", "L15 'replay': the match still ends", (EXPLORATION,),
                            lambda ctx: checks.cycle_check(ctx, "match-termination",
                                                           "L15 'replay' records no win for a tied round")))
    if cfg.deck[Kind.GRITO] < GRITO_END and not is_verify_scale_down(ruleset):
        out.append(Property("deck-never-empty", '000 Fim da Rodada: "A terceira carta Grito for resolvida"',
                            either, checks.deck_never_empty))
    out.append(checks.fast_engine_property())
    out.append(checks.invariant_screens_property())
    # the claims last, then the tie-break that reads their shared mapping: under verify's time budget
    # each property gets an even share of the time left, and the first claim (Z3 and the mapping of
    # every transition) is by far the longest, so it should come when the quick checks have left it theirs
    out += claims
    out.append(Property("tie-break", '000 Fim da Rodada: "o jogador com mais pontos registra uma vitória. Em caso de '
                        'empate, vence quem conseguiu a pontuação usando menos cartas de Ponto"', either,
                        lambda ctx: tie_break(ctx, rules, proofs[0])))
    return out


def _memo(rules: LoiraRules, cap: int = 400_000):
    """The abstraction of a state, computed once per state (each is the end of many transitions)."""
    cache: dict = {}
    abstraction = rules.read

    def of(s):
        got = cache.get(s)
        if got is None:
            if len(cache) >= cap:
                cache.clear()
            got = cache[s] = abstraction(s)
        return got
    of.rules = rules
    return of
