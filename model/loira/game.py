"""The Loira do Banheiro round (and match) as a protocol game.

Header: 2-10 players, sequential, explicit chance (the top card of the main deck; which stall a
face-down pick turns up). Two players: zero-sum, ``U = P(seat 0 wins outright) - P(seat 1 wins
outright)`` (utility +1/-1, 0 on a shared win). Three or more: the winners share 1 (max^n).
The objective is one round (``objective = "round"``) or the match (first to ``target_wins``).

The flow of a turn (000 "O Jogo"): the turn seat goes (draws, chance) or stops; the card's effect
is one function in :mod:`model.loira.effects`; openings of stalls go through the opening queue
(picks, escorts, reveals, escape) in this module; then the turn passes in the direction of play.
"""
from __future__ import annotations

import struct
from fractions import Fraction
from functools import lru_cache
from itertools import starmap
from typing import Sequence

from ruleproof.model.protocol import CHANCE, TERMINAL, Game, Invariant

from . import dispatch
from .cards import BATHROOM_KINDS, EXPANSION_KINDS, NUM_KINDS, TOKENS, Kind
from .centre import loira_present, reveal_distribution
from .config import Config, config_from
from .scoring import round_winners
from .scoring import weights as scoring_weights
from .state import (CARD, CLOSED, CROLLS, CUR, DECLINE, DIR, END, FIRST, GO, GRITOS, HEADER, LOIRA,
                    OPEN_ASIDE, PASS, PH, PHYS, PREV, QI, QM, QN, RALO_PASS, SLOTS, STOP,
                    STOP_ACT, SWITCH, TURN, VICTIM, YES, End, LoiraState, Phase)


class LoiraGame(Game):
    name = "loira"

    def __init__(self, cfg: Config, symmetry: bool = False):
        self.cfg = cfg
        n = self.num_players = cfg.players
        self.kinds = tuple(k for k in range(NUM_KINDS) if cfg.deck[k])
        self.kind_index = {k: i for i, k in enumerate(self.kinds)}
        self.num_stall_values = S = len(cfg.stalls)
        self.qlen = n + 2
        # hand layout: 9 bathroom kinds, S stall values, Espelho, Interruptor, Ralo
        self.h_stall, self.h_esp, self.h_int, self.h_ralo = 9, 9 + S, 10 + S, 11 + S
        self.hsize = 12 + S
        off = HEADER
        self.o_queue = off; off += 2 * self.qlen
        self.o_deck = off; off += len(self.kinds)
        self.o_disc = off; off += len(self.kinds)
        # closed mini-expansion cards set aside (their kinds unknown) in the first field; the
        # region keeps its former width (one field per kind, now always 0) so that stored
        # scenario digests of decks without those cards stay as recorded
        self.o_aside = off; off += len(EXPANSION_KINDS)
        self.o_centre = off; off += S
        self.o_out = off; off += S
        self.o_rolls = off; off += n
        self.o_rstart = off; off += n
        self.o_wins = off; off += n
        self.o_hand = off; off += n * self.hsize
        self.size = off
        self._row_format = struct.Struct(f"{off}b")
        # for the transition code: the rulings and the deck region, looked up per move
        self.rulings = cfg.rulings
        self.deck_slice = slice(self.o_deck, self.o_deck + len(self.kinds))
        #: the mini-expansion kinds the deck holds, and their deck entries (closed cards, anywhere)
        self.closed_kinds = tuple(k for k in self.kinds if k in EXPANSION_KINDS)
        self.closed_slice = slice(self.o_deck + len(self.kinds) - len(self.closed_kinds),
                                  self.o_deck + len(self.kinds))
        assert all(self.kind_index[k] >= len(self.kinds) - len(self.closed_kinds) for k in self.closed_kinds)
        self._draws: dict[tuple[int, ...], tuple[tuple[int, Fraction], ...]] = {}
        self._unveils: dict[tuple[int, ...], tuple[tuple[int, Fraction], ...]] = {}
        self._chance_parts: dict[int, tuple] = {}   # id(distribution) -> it, outcomes, probabilities
        self._utilities: dict[tuple[int, ...], tuple[Fraction, ...]] = {}
        self._round_returns: dict[tuple[int, ...], tuple[Fraction, ...]] = {}
        #: (state, its moves) of the state whose moves were listed last (``_moves_of``)
        self._last_moves: tuple | None = None
        # scoring reads the holdings and the rolls (``scoring.round_winners``); L28 "no" also END, VICTIM
        self._winners_need_rolls_only = cfg.rulings["L28"] != "no"
        self.score_weights, self.tie_weights = scoring_weights(self)
        cls = type(self)
        self._own_moves = all(getattr(cls, m) is getattr(LoiraGame, m)
                              for m in ("apply", "legal_actions", "chance_outcomes"))
        if n == 2:
            self.min_utility, self.max_utility, self.constant_sum = Fraction(-1), Fraction(1), Fraction(0)
        else:
            self.min_utility, self.max_utility, self.constant_sum = Fraction(0), Fraction(1), Fraction(1)
        # the seat swap in 2 players is a symmetry (``swap``), but it merges almost nothing in
        # practice (seat 0 always opens the round) and would narrate traces with relabelled seats,
        # so the protocol game declares it only on request; the C solver uses it internally
        self.seat_permutations = ((0, 1), (1, 0)) if n == 2 and symmetry else ()
        self.max_game_length = self._length_bound()
        self.value_meaning = ("U = P(the mover wins outright) - P(the mover loses outright) "
                              "(+1 win, -1 loss, 0 shared)" if n == 2 else
                              "the mover's expected share of the win (the winners share 1)")

    state_is_key = True

    # ---- small accessors used by the effects, the scoring and the proofs ----------------------
    def hand(self, s: Sequence[int], seat: int) -> Sequence[int]:
        base = self.o_hand + seat * self.hsize
        return s[base:base + self.hsize]

    def h(self, seat: int, slot: int) -> int:
        """Index of ``slot`` of ``seat``'s holding in the state tuple."""
        return self.o_hand + seat * self.hsize + slot

    def deck_total(self, s: Sequence[int]) -> int:
        """Cards in the main deck (``effects._deck_total``: closed cards aside or on top are not)."""
        return sum(s[self.deck_slice]) - s[self.o_aside] - (s[CARD] == CLOSED)

    def deck_index(self, kind: int) -> int:
        return self.o_deck + self.kind_index[kind]

    def disc_index(self, kind: int) -> int:
        return self.o_disc + self.kind_index[kind]

    def stopped(self, s: Sequence[int], seat: int) -> bool:
        return bool(s[STOP] >> seat & 1)

    def protected(self, s: Sequence[int], seat: int) -> bool:
        """Stopped players and the Ralo holder are immune to others' effects (000, L20)."""
        return self.stopped(s, seat) or bool(s[self.h(seat, self.h_ralo)])

    def centre_counts(self, s: Sequence[int]) -> tuple[int, ...]:
        return tuple(s[self.o_centre:self.o_centre + self.num_stall_values])

    # ---- the protocol --------------------------------------------------------------------------
    def initial_state(self) -> LoiraState:
        cfg, n = self.cfg, self.num_players
        st = [0] * self.size
        st[VICTIM] = st[CARD] = st[PREV] = -1
        st[FIRST] = cfg.first_seat
        st[CROLLS] = cfg.centre_rolls
        for seat in range(n):
            st[self.o_rolls + seat] = cfg.rolls[seat]
        self._reset_round(st, cfg.first_seat)
        return tuple(st)

    def _reset_round(self, st: list[int], first: int) -> None:
        """Set up a round (000 "Preparação"): shuffled deck and stalls, empty holdings."""
        cfg, n = self.cfg, self.num_players
        st[PH], st[TURN], st[FIRST] = Phase.TURN, first, first
        st[STOP] = st[GRITOS] = st[QN] = st[QM] = st[QI] = st[CUR] = 0
        st[VICTIM] = st[CARD] = st[PREV] = -1
        if cfg.rule("L37") == "clockwise":
            st[DIR] = 0
        st[self.o_queue:self.o_queue + 2 * self.qlen] = [-1] * (2 * self.qlen)
        for i, k in enumerate(self.kinds):
            st[self.o_deck + i] = cfg.deck[k]
            st[self.o_disc + i] = 0
        st[self.o_aside] = 0
        for i, c in enumerate(cfg.stall_counts):
            st[self.o_centre + i] = c
            st[self.o_out + i] = 0
        st[PHYS] = st[SLOTS] = sum(cfg.stall_counts) + 1
        for seat in range(n):
            st[self.o_rstart + seat] = st[self.o_rolls + seat]
        st[self.o_hand:] = [0] * (n * self.hsize)

    def current_player(self, s: LoiraState) -> int:
        ph = s[PH]
        if ph == _TURN:   # the commonest phase first
            return s[TURN]
        if ph == _END:
            return TERMINAL
        if ph == _DRAW or ph == _REVEAL or ph == _UNVEIL:
            return CHANCE
        if ph == _ESCORT:
            return (s[self.o_queue] + s[CUR]) % self.num_players
        if ph == _ESCAPE:
            return s[VICTIM]
        if ph == _ZELADOR:
            return s[PREV]
        return s[TURN]

    def chance_outcomes(self, s: LoiraState) -> Sequence[tuple[int, Fraction]]:
        """The same tuple object for the same deck (or centre), so the explorer checks and interns
        each distribution once.

        The draw: each card of the deck alike, so a kind by its count; the closed mini-expansion
        cards in the deck (their kinds' entries less those set aside) are one outcome, ``CLOSED``.
        Opening a closed card (UNVEIL): every closed card is alike (none was ever seen, each was
        shuffled in alike), so its kind is ``k`` with probability ``closed_k / closed`` over the
        kinds not yet revealed -- exact while no reshuffle brings an opened card back beside one
        set aside (``config.belief_refusal`` keeps those decks out)."""
        ph = s[PH]
        if ph == _DRAW:
            counts = s[self.deck_slice] + (s[self.o_aside],)
            dist = self._draws.get(counts)
            if dist is None:
                dist = self._draws[counts] = self._draw_law(counts)
            return dist
        if ph == _UNVEIL:
            closed = s[self.closed_slice]
            dist = self._unveils.get(closed)
            if dist is None:
                total = sum(closed)
                dist = self._unveils[closed] = tuple((k, Fraction(c, total))
                                                     for k, c in zip(self.closed_kinds, closed) if c)
            return dist
        return _reveal_outcomes(self.centre_counts(s), s[SLOTS])

    def _draw_law(self, counts: tuple[int, ...]) -> tuple[tuple[int, Fraction], ...]:
        """``counts``: the deck entries then the cards set aside."""
        *deck, aside = counts
        opened = len(self.kinds) - len(self.closed_kinds)
        weights = [(k, c) for k, c in zip(self.kinds[:opened], deck[:opened]) if c]
        closed = sum(deck[opened:]) - aside
        if closed:
            weights.append((CLOSED, closed))
        total = sum(c for _, c in weights)
        return tuple((k, Fraction(c, total)) for k, c in weights)

    def legal_actions(self, s: LoiraState) -> Sequence[int]:
        return dispatch.legal_actions(self, s)

    def apply(self, s: LoiraState, action: int) -> LoiraState:
        st = list(s)
        _HANDLERS[st[PH]](self, st, action)
        return tuple(st)

    def successors(self, s: LoiraState) -> list[tuple[int, Fraction | None, LoiraState]]:
        if not self._own_moves:   # a subclass changes the moves (the mutation tests do)
            return Game.successors(self, s)
        moves, probs, states = self._moves_of(s)
        return list(zip(moves, probs or [None] * len(moves), states))

    def successor_lists(self, s: LoiraState):
        if not self._own_moves:
            return Game.successor_lists(self, s)
        moves, probs, states = self._moves_of(s)
        return (moves if type(moves) is tuple else list(moves)), probs, list(states)

    def _moves_of(self, s: LoiraState):
        """``_successor_lists`` of the last state asked again (by value: a state is a tuple of ints,
        and its moves a function of it and this configuration): the fast-paths check asks
        ``successors``, ``successor_lists`` and ``canonical_successors`` of each state in turn. The
        entry is handed out as copies (a decision's moves are a list), so no caller can change it."""
        last = self._last_moves
        if last is not None and (last[0] is s or last[0] == s):
            return last[1]
        moves, probs, states = self._successor_lists(s)
        got = (moves, probs, tuple(states))
        self._last_moves = (s, got)
        return got

    def _successor_lists(self, s: LoiraState):
        """``Game.successor_lists`` with the phase dispatch done once per state, not once per move;
        a chance node's outcomes and probabilities are one shared pair of tuples per distribution."""
        ph = s[PH]
        handler = _HANDLERS[ph]
        if ph == _DRAW or ph == _REVEAL or ph == _UNVEIL:
            dist = self.chance_outcomes(s)   # interned (see there), so its id is stable
            parts = self._chance_parts.get(id(dist))
            if parts is None or parts[0] is not dist:
                parts = self._chance_parts[id(dist)] = (dist, tuple(o for o, _ in dist),
                                                        tuple(p for _, p in dist))
            moves, probs = parts[1], parts[2]
        else:
            moves, probs = dispatch.legal_actions(self, s), None
        states = []
        for a in moves:
            st = list(s)
            handler(self, st, a)
            states.append(tuple(st))
        return moves, probs, states

    def returns(self, s: LoiraState) -> tuple[Fraction, ...]:
        """The same tuple object for the same winners (the explorer checks each one once)."""
        n = self.num_players
        if self.cfg.objective == "match":
            winners = tuple(seat for seat in range(n) if s[self.o_wins + seat] >= self.cfg.target_wins)
        else:
            # the round's winners are a function of the holdings and rolls (and, under L28 "no",
            # of how the round ended): many terminal states share them, so they are memoised
            key = s[self.o_rolls:] if self._winners_need_rolls_only else (s[END], s[VICTIM]) + s[self.o_rolls:]
            ret = self._round_returns.get(key)
            if ret is not None:
                return ret
            winners = tuple(round_winners(self, s))
        ret = self._utilities.get(winners)
        if ret is None:
            ret = self._utilities[winners] = utility(n, winners)
        if self.cfg.objective != "match" and len(self._round_returns) < _ROUND_RETURNS_MEMO:
            self._round_returns[key] = ret
        return ret

    def state_rows(self, states: Sequence[LoiraState]):
        """The states as int8 rows (one C-level pack per state) for the invariants' batch screens;
        ``None`` when a value does not fit (only broken rules make such states: all get checked)."""
        import numpy as np
        try:
            packed = b"".join(starmap(self._row_format.pack, states))
        except struct.error:
            return None
        return np.frombuffer(packed, np.int8).reshape(len(states), self.size)

    def key(self, s: LoiraState) -> LoiraState:
        return s

    def from_key(self, key) -> LoiraState:
        return tuple(key)

    def canonicalize(self, s: LoiraState) -> tuple[LoiraState, int]:
        """Two players: the seat swap is a symmetry (the rules never name a seat)."""
        if len(self.seat_permutations) < 2:
            return s, 0
        t = self.swap(s)
        return (t, 1) if t < s else (s, 0)

    def swap(self, s: LoiraState) -> LoiraState:
        st = list(s)
        for f in (TURN, FIRST, VICTIM, PREV):
            if st[f] >= 0:
                st[f] = 1 - st[f]
        st[STOP] = ((s[STOP] & 1) << 1) | ((s[STOP] >> 1) & 1)
        for i in range(self.qlen * 2):
            if st[self.o_queue + i] >= 0:
                st[self.o_queue + i] = 1 - st[self.o_queue + i]
        for o in (self.o_rolls, self.o_rstart, self.o_wins):
            st[o], st[o + 1] = s[o + 1], s[o]
        a, b, hs = self.o_hand, self.o_hand + self.hsize, self.hsize
        st[a:a + hs], st[b:b + hs] = s[b:b + hs], s[a:a + hs]
        return tuple(st)

    # ---- play tables -----------------------------------------------------------------------------
    feature_help = {
        "phase": "what is being decided (turn: go or stop; escort; escape; ...)",
        "my_points": "the mover's points in hand (score: cards, stalls, rolls, Espelho, Interruptor, Ralo)",
        "best_opponent_points": "the highest score among the other seats",
        "opponents_stopped": "how many other seats have stopped ('nao pega mais cartas')",
        "gritos_out": "Gritos resolved this round (the third ends it)",
        "deck_left": "cards left in the main deck",
        "centre_stalls": "stall cards in the centre, the Loira included when present",
        "loira_next": "P(the next stall opened is the Loira)",
        "my_rolls": "the mover's toilet-paper rolls",
        "centre_rolls": "toilet-paper rolls in the centre",
    }

    def features(self, s: LoiraState) -> dict[str, int | float | str]:
        """What a player at the table sees, from the mover's side: points, the opponents' position,
        Gritos out, the deck by kind, the centre."""
        from .scoring import score
        me = s[TURN]
        others = [t for t in range(self.num_players) if t != me]
        cols: dict[str, int | float | str] = {
            "phase": Phase(s[PH]).name.lower(),
            "my_points": score(self, s, me),
            "best_opponent_points": max(score(self, s, t) for t in others),
            "opponents_stopped": sum(self.stopped(s, t) for t in others),
            "gritos_out": s[GRITOS],
            "deck_left": self.deck_total(s),
        }
        for i, k in enumerate(self.kinds):   # a mini-expansion kind: its closed cards, anywhere
            cols[f"deck_{TOKENS[k]}"] = s[self.o_deck + i]
        cols.update(centre_stalls=s[PHYS], loira_next=round(1 / s[SLOTS], 9) if s[SLOTS] else 0.0,
                    my_rolls=s[self.o_rolls + me], centre_rolls=s[CROLLS])
        if self.cfg.objective == "match":
            cols["my_round_wins"] = s[self.o_wins + me]
            cols["best_opponent_round_wins"] = max(s[self.o_wins + t] for t in others)
        return cols

    # ---- narration -----------------------------------------------------------------------------
    def describe_state(self, s: LoiraState) -> str:
        from .scoring import score
        n = self.num_players
        if s[PH] == Phase.END:
            head = f"round over ({End(s[END]).name.lower()})"
        else:
            head = f"seat {s[TURN]}'s turn, {Phase(s[PH]).name.lower()}"
        deck = self.deck_total(s)
        seats = []
        for seat in range(n):
            hand = self.hand(s, seat)
            cards = [f"{TOKENS[k]}x{hand[k]}" for k in BATHROOM_KINDS if hand[k]]
            cards += [f"stall{v}x{hand[self.h_stall + i]}" for i, v in enumerate(self.cfg.stalls)
                      if hand[self.h_stall + i]]
            cards += [name for name, slot in (("espelho", self.h_esp), ("interruptor", self.h_int),
                                              ("ralo", self.h_ralo)) if hand[slot]]
            tag = " stopped" if self.stopped(s, seat) else ""
            seats.append(f"s{seat}{tag}[{' '.join(cards) or '-'}; rolls {s[self.o_rolls + seat]}; "
                         f"score {score(self, s, seat)}]")
        centre = "/".join(f"{v}x{c}" for v, c in zip(self.cfg.stalls, self.centre_counts(s)) if c)
        if self.cfg.objective == "match":   # the match score first: it is what a round changes
            head = "round wins " + "-".join(str(s[self.o_wins + seat]) for seat in range(n)) + "; " + head
        closed = sum(s[self.closed_slice])
        if closed:
            head += (f"; closed mini-expansion cards {closed} (" + "/".join(
                f"{TOKENS[k]}x{c}" for k, c in zip(self.closed_kinds, s[self.closed_slice]) if c)
                + f"), {s[self.o_aside]} set aside")
        return (f"{head}; deck {deck}; centre {s[PHYS]} cards (unopened {centre or 'none'}, "
                f"P(Loira present)={loira_present(s[PHYS], s[SLOTS])}, P(Loira next)=1/{s[SLOTS]}); gritos {s[GRITOS]}; rolls in centre {s[CROLLS]}; "
                + " ".join(seats))

    def describe_action(self, s: LoiraState, a: int) -> str:
        ph = s[PH]
        if ph == Phase.DRAW:
            return "draws a closed mini-expansion card" if a == CLOSED else f"draws {TOKENS[a]}"
        if ph == Phase.UNVEIL:
            return f"the closed card opened is {TOKENS[a]}"
        if ph == Phase.REVEAL:
            picker = s[self.o_queue + 2 * s[QI]]
            return (f"seat {picker} opens the Loira" if a == LOIRA
                    else f"seat {picker} opens a {self.cfg.stalls[a]}-point stall")
        if ph == Phase.TURN:
            if a == OPEN_ASIDE:
                return "opens a set-aside mini-expansion card"
            if a >= RALO_PASS:
                return f"passes the Ralo to seat {(s[TURN] + a - RALO_PASS) % self.num_players}"
            return {GO: "goes to the bathroom (draws)", STOP_ACT: "stops", SWITCH: "uses the Interruptor",
                    PASS: "passes"}[a]
        if ph == Phase.ESCORT:
            return "escorts (spends a roll)" if a == YES else "does not escort"
        if ph == Phase.ESCAPE:
            if a == 0:
                return "does not escape"
            d, v1, v2 = (a - 1) // 9, (a - 1) // 3 % 3, (a - 1) % 3
            return f"escapes discarding {TOKENS[d * 3 + v1]} and {TOKENS[d * 3 + v2]}"
        if ph == Phase.DESCARGA:
            if a == DECLINE:
                return "declines"
            offset, slot = divmod(a, 32)
            return f"flushes seat {(s[TURN] + offset) % self.num_players}'s {self.slot_name(slot)}"
        if ph in (Phase.STEAL, Phase.FIOS, Phase.RAPAGOTE):
            verb = {Phase.STEAL: "takes a roll from", Phase.FIOS: "invites",
                    Phase.RAPAGOTE: "indicates"}[Phase(ph)]
            return f"{verb} seat {(s[TURN] + a) % self.num_players}"
        if ph == Phase.ZELADOR:
            return f"discards {self.slot_name(a)}"
        if ph == Phase.EXPANSION:
            return "opens it" if a == YES else "sets it aside"
        if ph in (Phase.INTNOW, Phase.CHUTE, Phase.TOCTOC):
            return "yes" if a == YES else "no"
        if ph == Phase.PROFESSORA:
            n = self.num_players
            return f"invites seat {(s[TURN] + a // 16) % n} then seat {(s[TURN] + a % 16) % n}"
        if ph == Phase.DIRETORA:
            n = self.num_players
            return "openers " + ",".join(str((s[TURN] + i) % n) for i in range(n) if a >> i & 1)
        return repr(a)

    def slot_name(self, slot: int) -> str:
        if slot < 9:
            return TOKENS[slot]
        if slot < self.h_esp:
            return f"{self.cfg.stalls[slot - 9]}-point stall"
        return {self.h_esp: "espelho", self.h_int: "interruptor", self.h_ralo: "ralo"}[slot]

    def invariants(self) -> Sequence[Invariant]:
        from .invariants import invariants
        return invariants(self)

    # ---- bounds ----------------------------------------------------------------------------------
    def _length_bound(self) -> int | None:
        """Moves per round <= turns * moves per turn; turns <= cards drawn + stops + 1.

        Only under the rulings that make the graph acyclic (L25 ``round-ends``, L15
        ``all-tied-win`` for the match); otherwise None.
        """
        cfg, n = self.cfg, self.num_players
        if cfg.rule("L25") != "round-ends":
            return None
        draws = cfg.deck_size + cfg.deck[Kind.MERENDEIRA] * cfg.deck_size
        turns = draws + n + 1 + n * cfg.deck[Kind.RALO]
        # a turn: draw, set each closed card aside, open one (and its kind drawn), the effect ...
        per_turn = 6 + 3 * (n + 2) + 2 * sum(cfg.deck[k] for k in EXPANSION_KINDS) + 1 + n
        rounds = 1
        if cfg.objective == "match":
            if cfg.rule("L15") != "all-tied-win":
                return None
            rounds = n * (cfg.target_wins - 1) + 1
        return rounds * turns * per_turn


@lru_cache(maxsize=None)
def _reveal_outcomes(counts: tuple[int, ...], slots: int) -> tuple[tuple[int, Fraction], ...]:
    return tuple((LOIRA if i < 0 else i, p) for i, p in reveal_distribution(counts, slots))


_HANDLERS = dispatch.HANDLERS
_ROUND_RETURNS_MEMO = 1 << 20   # entries (a tuple of ~40 ints each): a bound on its memory
_TURN, _END, _DRAW, _REVEAL, _ESCORT, _ESCAPE, _ZELADOR, _UNVEIL = (int(p) for p in (
    Phase.TURN, Phase.END, Phase.DRAW, Phase.REVEAL, Phase.ESCORT, Phase.ESCAPE, Phase.ZELADOR, Phase.UNVEIL))


def utility(n: int, winners: Sequence[int]) -> tuple[Fraction, ...]:
    """Two players: +1/-1 for an outright win, 0 when shared. More: winners share 1."""
    if n == 2:
        if len(winners) == 1:
            w = winners[0]
            return (Fraction(1), Fraction(-1)) if w == 0 else (Fraction(-1), Fraction(1))
        return (Fraction(0), Fraction(0))
    if not winners:
        return tuple(Fraction(1, n) for _ in range(n))
    share = Fraction(1, len(winners))
    return tuple(share if seat in winners else Fraction(0) for seat in range(n))


__all__ = ["LoiraGame", "utility"]


def build(ruleset) -> LoiraGame:
    """The game of a Loira ``Ruleset`` (``SPEC.build``; here for the package's own modules, which do
    not import the package)."""
    return LoiraGame(config_from(ruleset))
