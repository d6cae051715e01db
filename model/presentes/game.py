"""Presentes as a protocol game: chance for dice, effect draws and tree gifts; phone choices as
decisions of the player concerned; a canonical tuple key; invariants as named predicates."""
from __future__ import annotations

from fractions import Fraction
from typing import Hashable, Sequence

from ruleproof.model.protocol import CHANCE, TERMINAL, Game, Invariant

from . import rules as R
from .board import DRAW, Board, Square
from .rules import Effect, Phase, Rules, St

Action = int | tuple[int, int]

_HEAD = 7  # phase, turn, chain, aux, tree, used, slot
#: effect draws kept by ``PresentesGame._draw`` (a few hundred bytes each)
DRAWS_KEPT = 200_000
#: moves kept by ``PresentesGame.apply`` (state and action -> next state; ~300 bytes each)
MOVES_KEPT = 400_000


class PresentesGame(Game):
    name = "presentes"

    def __init__(self, rules: Rules, board: Board):
        self.rules = rules
        self.board = board
        self.num_players = rules.players
        flat = [v for row in rules.values for v in row] or [Fraction(0), Fraction(1)]
        self.min_utility = min(min(flat), Fraction(0))
        self.max_utility = max(flat)
        self.constant_sum = None
        self.max_game_length = None  # moving back and swapping places make the graph cyclic
        #: (state, its moves) of the state whose moves were listed last (``successors``)
        self._last_moves: tuple | None = None
        #: state -> its effect draw (``chance_outcomes`` at a ★ or ☠), kept while there are few
        self._draws: dict[St, tuple] = {}
        #: (state, action) -> next state, kept while there are few (``apply``)
        self._moves: dict[tuple, St] | None = {}
        self._move_hits = 0

    # ---- play tables -----------------------------------------------------------------------------
    value_meaning = "the mover's expected gift value (gift_values; default 1 for any gift but its own)"

    def features(self, s: St) -> dict[str, int | str]:
        """The phase, whose turn, the landing in the chain, then each seat's square (-1 out, the
        finish as its index) and gift (-1 none), the gifts left on the tree, how many have finished."""
        cols: dict[str, int | str] = {"phase": Phase(s.phase).name.lower(), "turn": s.turn,
                                      "landing": s.chain}
        for i in range(self.num_players):
            p = s.pos[i]
            cols[f"P{i}_square"] = -1 if p == self.rules.out else p
            cols[f"P{i}_square_kind"] = ("out" if p == self.rules.out else "finish" if p == self.rules.finish
                                         else Square(self.board.squares[p]).name.lower())
            cols[f"P{i}_gift"] = s.gift[i]
        cols["tree_gifts"] = bin(s.tree).count("1")
        cols["finished"] = len(s.order)
        return cols

    # ---- protocol ------------------------------------------------------------------------------
    def initial_state(self) -> St:
        return R.initial(self.rules)

    def current_player(self, s: St) -> int:
        ph = s.phase
        if ph == Phase.OVER:
            return TERMINAL
        if ph in (Phase.TREE, Phase.TREE_LAST) and not self.rules.tree_pick:
            return CHANCE
        if ph in (Phase.ROLL, Phase.LUCK, Phase.BAD):
            return CHANCE
        return R.decider(self.rules, s)

    def legal_actions(self, s: St) -> Sequence[int]:
        return R.decisions(self.rules, s)

    def chance_outcomes(self, s: St) -> Sequence[tuple[tuple[int, int], Fraction]]:
        ph = s.phase
        if ph == Phase.ROLL:
            return [((total, 0), p) for total, p in self.rules.dice]
        if ph == Phase.LUCK or ph == Phase.BAD:
            return self._draw(s, ph)
        if ph in (Phase.TREE, Phase.TREE_LAST) and not self.rules.tree_pick:
            return R.tree_outcomes(s)
        return []

    def _draw(self, s: St, ph: int) -> list[tuple[tuple[int, int], Fraction]]:
        """``effect_draw`` of a state, remembered: verify asks a draw state's law many times (the
        exploration, the fast-paths check, the mapping pass, the checks, both engines' turns), and
        the draw builds its Fractions afresh each time. By value (the draw is a function of the
        state and this configuration), handed out as a new list; forgotten past ``DRAWS_KEPT``."""
        got = self._draws.get(s)
        if got is None or type(s) is not St:
            got = tuple(R.effect_draw(self.rules, s, Square.LUCK if ph == Phase.LUCK else Square.BAD))
            if type(s) is St:
                if len(self._draws) >= DRAWS_KEPT:
                    self._draws.clear()
                self._draws[s] = got
        return list(got)

    def apply(self, s: St, a: Action) -> St:
        """The rules' move, remembered by value: verify plays each move of a configuration in
        several checks (exploring, the fast paths, the mapping pass, the engines' reference turns)."""
        moves = self._moves
        if moves is None or type(s) is not St:
            return self._apply(s, a)
        key = (s, a)
        got = moves.get(key)
        if got is not None:
            self._move_hits += 1
            return got
        if len(moves) >= MOVES_KEPT:
            # a play that seldom repeats a move (sampling a game too big to explore) only pays for
            # the memo: once full with fewer hits than moves kept, it is dropped for good
            moves.clear()
            if self._move_hits < MOVES_KEPT:
                self._moves = None
            self._move_hits = 0
        got = self._apply(s, a)
        if self._moves is not None:
            moves[key] = got
        return got

    def _apply(self, s: St, a: Action) -> St:
        ph, r = s.phase, self.rules
        if ph == Phase.ROLL:
            return R.move(r, s, a[0], 1)
        if ph in (Phase.LUCK, Phase.BAD):
            return R.apply_effect(r, s, a)
        if ph in (Phase.TREE, Phase.TREE_LAST) and not r.tree_pick:
            return R.take(r, s, a[0])
        if ph == Phase.OVER:
            raise ValueError("the game is over")
        return R.decide(r, s, a)

    def successors(self, s: St) -> list[tuple[Action, Fraction | None, St]]:
        """``Game.successors`` (the rules' moves applied one by one), those of the last state asked
        kept: verify's fast-paths check asks each state ``successors``, then of the state rebuilt
        from its key, ``successor_lists`` and ``canonical_successors`` (both through this), so its
        moves were computed four times. By value (a state is a tuple of ints, its moves a function
        of it and this configuration; a rebuilt state that differs misses), handed out as a new
        list (each move a tuple of values), so no caller can change a later answer."""
        last = self._last_moves
        if last is not None and (last[0] is s or (last[0] == s and type(s) is St)):
            return list(last[1])
        moves = Game.successors(self, s)
        self._last_moves = (s, tuple(moves))
        return moves

    def returns(self, s: St) -> tuple[Fraction, ...]:
        vals = self.rules.values
        return tuple(vals[i][g] if g >= 0 and s.pos[i] != self.rules.out else Fraction(0)
                     for i, g in enumerate(s.gift))

    def key(self, s: St) -> tuple[int, ...]:
        return (s.phase, s.turn, s.chain, s.aux, s.tree, s.used, s.slot) + s.pos + s.gift + s.order

    def from_key(self, k: tuple[int, ...]) -> St:
        n = self.num_players
        return St(*k[:_HEAD], tuple(k[_HEAD:_HEAD + n]), tuple(k[_HEAD + n:_HEAD + 2 * n]),
                  tuple(k[_HEAD + 2 * n:]))

    def observation(self, s: St, seat: int) -> Hashable:
        return self.key(s)  # the TV shows everything; the gifts are wrapped but their places known

    # ---- narration -----------------------------------------------------------------------------
    def describe_state(self, s: St) -> str:
        fin, out = self.rules.finish, self.rules.out
        parts = []
        for i in range(self.num_players):
            p = s.pos[i]
            where = "out" if p == out else "fin" if p == fin else f"{p}{DRAW[Square(self.board.squares[p])]}"
            g = s.gift[i]
            parts.append(f"P{i}@{where}:{'g' + str(g) if g >= 0 else '-'}")
        tree = [g for g in range(self.num_players) if s.tree >> g & 1]
        head = f"{Phase(s.phase).name.lower()} (P{s.turn}'s turn"
        head += f", landing {s.chain})" if s.chain else ")"
        return f"{head} " + " ".join(parts) + f" tree={tree} order={list(s.order)}"

    def describe_action(self, s: St, a: Action) -> str:
        ph = s.phase
        if ph == Phase.ROLL:
            return f"P{s.turn} rolls {a[0]}"
        if ph in (Phase.LUCK, Phase.BAD):
            eff, arg = a
            if eff == Effect.NOTHING:
                return "no eligible effect: redraw, the same draw again (P23)" if arg else \
                    "no eligible effect: nothing happens (P23)"
            name = R.EFFECT_BY_ID[Effect(eff)].text.split(":")[0].split(" (")[0]
            if eff == Effect.SALTO:
                return f"{name} +{arg}"
            if eff == Effect.LUGAR and arg == s.turn:
                return f"{name}: P{arg} leads, nothing happens (P07)"
            if eff in R.REVENGES and self.rules.prev_behind:
                return f"{name} (P{arg} behind)"
            if eff in (Effect.LUGAR, Effect.FRENTE, Effect.ATRAS, Effect.ADIANTADO) or (
                    eff in (Effect.SORRATEIRO, Effect.TROCA) and arg >= 0):
                return f"{name}: P{arg}"
            return name
        if ph in (Phase.TREE, Phase.TREE_LAST):
            g = a if isinstance(a, int) else a[0]
            return f"P{s.aux} {'picks' if self.rules.tree_pick else 'takes'} gift g{g} from the tree"
        if ph == Phase.FIRST:
            return "first gift: take from the tree" if a == R.TAKE_TREE else f"first gift: steal from P{a}"
        if ph == Phase.SNEAK:
            return f"Roubo sorrateiro on P{a}"
        if ph == Phase.SWAP:
            return f"swap places with P{a}"
        if ph == Phase.REVENGE:
            return ("take the revenge" if a else "decline the revenge") + \
                f" ({R.EFFECT_BY_ID[Effect(s.aux & 15)].text})"
        return repr(a)

    # ---- invariants ----------------------------------------------------------------------------
    def invariants(self) -> Sequence[Invariant]:
        return (
            Invariant("types", "fields in range: positions, gifts, phase, turn", self._types),
            Invariant("gift-conservation", "every gift is under the tree or held by exactly one "
                      "player (on the track or finished); removed players hold none", self._conserve),
            Invariant("tree-nonempty-when-taking", "whenever a rule says to take from the tree, the "
                      "tree holds a gift", self._tree_nonempty),
            Invariant("chain-bound", "a chain never goes past landing 3 (max_landings)", self._chain),
            Invariant("arrival-order", "the arrival order lists exactly the finished seats, once each",
                      self._order),
            Invariant("finishers-hold-gifts", "a finished player holds a gift (except while taking "
                      "it from the tree or, under P14 'steal', choosing it, or the last player under "
                      "P04 'keep')", self._finishers),
            Invariant("mover-on-track", "the mover of an ongoing turn is on the track (or, under P14 "
                      "'steal', has just finished and chooses its first gift)", self._mover),
        )

    def _types(self, s: St) -> str | None:
        n, out = self.num_players, self.rules.out
        if s.phase not in Phase.__members__.values():
            return f"bad phase {s.phase}"
        if not 0 <= s.turn < n or len(s.pos) != n or len(s.gift) != n:
            return "bad turn or vector length"
        if any(not 0 <= p <= out for p in s.pos):
            return f"position out of range in {s.pos}"
        if any(not -1 <= g < n for g in s.gift):
            return f"gift out of range in {s.gift}"
        return None

    def _conserve(self, s: St) -> str | None:
        n, out = self.num_players, self.rules.out
        for g in range(n):
            count = (s.tree >> g & 1) + sum(1 for x in s.gift if x == g)
            if count != 1:
                return f"gift g{g} is in {count} places"
        if s.tree >> n:
            return "the tree holds an unknown gift"
        for i in range(n):
            if s.pos[i] == out and s.gift[i] >= 0:
                return f"removed P{i} still holds g{s.gift[i]}"
        return None

    def _tree_nonempty(self, s: St) -> str | None:
        if s.phase in (Phase.TREE, Phase.TREE_LAST) and s.tree == 0:
            return f"P{s.aux} must take from an empty tree"
        return None

    def _chain(self, s: St) -> str | None:
        if s.phase in (Phase.LUCK, Phase.BAD) and not 1 <= s.chain <= self.rules.max_landings:
            return f"landing {s.chain} resolved"
        return None

    def _order(self, s: St) -> str | None:
        fin = self.rules.finish
        finished = {i for i in range(self.num_players) if s.pos[i] == fin}
        if len(set(s.order)) != len(s.order) or set(s.order) != finished:
            return f"order {s.order} vs finished {sorted(finished)}"
        return None

    def _finishers(self, s: St) -> str | None:
        fin = self.rules.finish
        for i in range(self.num_players):
            if s.pos[i] != fin or s.gift[i] >= 0:
                continue
            if s.phase in (Phase.TREE, Phase.TREE_LAST) and s.aux == i:
                continue
            if self.rules.finisher_steals and s.phase == Phase.FIRST and s.turn == i:
                continue  # P14 'steal': the finisher is choosing its first gift
            if not self.rules.last_takes and s.phase == Phase.OVER and s.order and s.order[-1] == i:
                continue
            return f"P{i} finished without a gift"
        return None

    def _mover(self, s: St) -> str | None:
        if s.phase in (Phase.OVER, Phase.TREE, Phase.TREE_LAST):
            return None
        if self.rules.finisher_steals and s.phase == Phase.FIRST and s.pos[s.turn] == self.rules.finish:
            return None  # P14 'steal': a giftless finisher's first-gift choice
        if s.pos[s.turn] >= self.rules.finish:
            return f"mover P{s.turn} is not on the track"
        return None
