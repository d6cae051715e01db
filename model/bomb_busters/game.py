"""Bomb Busters as a protocol game: set-up chance, the three actions, equipment, win and loss.

Header: 2-5 players, cooperative (every seat gets 1 when the bomb is defused, 0 when it
explodes), explicit chance for the set-up (drawing the red/yellow candidates, setting the "X de Y"
ones aside, dealing wire by wire), hidden information (``observation`` shows a seat only its own
wires, every cut wire, info tokens and public facts). The game is acyclic: every turn cuts wires
or advances the detonator, and each equipment card is used once.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from ruleproof.model.protocol import CHANCE, TERMINAL, Game, Invariant

from . import equipment as E
from . import rules as R
from . import state as S
from . import tiles as T
from .mission import Mission
from .rules import Kind
from .state import Phase, State

Action = int | tuple[int, ...]


class BombBusters(Game):
    name = "bomb-busters"

    def __init__(self, mission: Mission):
        self.mission = m = mission
        self.num_players = m.players
        self.min_utility, self.max_utility = Fraction(0), Fraction(1)
        self.constant_sum = None
        # turns: pairs of non-red wires, one reveal per red, every failure, one stabilized failure;
        # plus set-up steps, equipment uses and picks (see proofs/bomb_busters.py)
        setup = 3 + m.total_wires + m.players
        turns = (m.total_wires - m.red_in_play) // 2 + m.red_in_play + m.skull + len(m.equipment)
        self.max_game_length = setup + 2 * turns + m.players * 2

    # ---- the protocol ----------------------------------------------------------------------------
    def initial_state(self) -> State:
        s = State(Phase.DRAW_RED, 0, 0, (), (), (), tuple(() for _ in self.mission.rack_owner))
        return R.after_draws(self.mission, s)

    def current_player(self, s: State) -> int:
        if s.phase in (Phase.WON, Phase.LOST):
            return TERMINAL
        if s.phase < Phase.TOKENS or (s.phase == Phase.TOKENS and self.mission.ruling("B09") == "random"):
            return CHANCE
        if s.pending:
            return s.pending[1]
        return s.seat

    def legal_actions(self, s: State) -> Sequence[Action]:
        m = self.mission
        if s.phase == Phase.TOKENS:
            return [(int(Kind.TOKEN), r, j) for r, j in R.token_slots(m, s)]
        if s.pending:
            return [(int(Kind.PICK), s.pending[3]), (int(Kind.PICK), s.pending[4])]
        # plain ints, not the enum (no enum reprs in tables), built so at once: a full-size hand
        # has thousands of Detector Duplo and Comunicadores moves
        names = R.nameable(m, s, s.seat)
        dual = int(Kind.DUAL)
        out: list[Action] = [(dual, r, j, n) for r, j in R.targets(m, s, s.seat) for n in names]
        if not s.stabilized:
            out += [(int(Kind.SOLO), n) for n in names if R.solo_ok(m, s, n)]
            if R.reveal_ok(m, s):
                out.append((int(Kind.REVEAL),))
        out += E.equipment_actions(m, s)
        out.sort()
        return out

    def chance_outcomes(self, s: State):
        m = self.mission
        if s.phase == Phase.DRAW_RED:
            return R.draw_outcomes(m.red_drawn)
        if s.phase == Phase.DRAW_YELLOW:
            return R.draw_outcomes(m.yellow_drawn)
        if s.phase == Phase.ASIDE:
            return R.aside_outcomes(m, s)
        if s.phase == Phase.DEAL:
            return R.deal_outcomes(m, s)
        slots = R.token_slots(m, s)  # B09 random
        return [((int(Kind.TOKEN), r, j), Fraction(1, len(slots))) for r, j in slots]

    def apply(self, s: State, a: Action) -> State:
        m = self.mission
        if s.phase == Phase.DRAW_RED:
            return R.after_draws(m, s.evolve(phase=Phase.DRAW_YELLOW, reds=tuple(map(T.red, a))))
        if s.phase == Phase.DRAW_YELLOW:
            return R.after_draws(m, s.evolve(phase=Phase.ASIDE, yellows=tuple(map(T.yellow, a))))
        if s.phase == Phase.ASIDE:
            return s.evolve(phase=Phase.DEAL, aside=a)
        if s.phase == Phase.DEAL:
            return R.deal(m, s, a)
        kind = a[0]
        if kind == Kind.TOKEN:
            return R.place_token(m, s, a[1], a[2])
        if kind == Kind.PICK:
            return E.pick(m, s, a[1])
        if kind == Kind.DUAL:
            return R.dual_cut(m, s, a[1], a[2], a[3])
        if kind == Kind.SOLO:
            return R.solo_cut(m, s, a[1])
        if kind == Kind.REVEAL:
            return R.reveal_reds(m, s)
        return E.apply_equipment(m, s, a)

    def returns(self, s: State) -> tuple[Fraction, ...]:
        won = Fraction(int(s.phase == Phase.WON))
        return (won,) * self.num_players

    def key(self, s: State) -> tuple[int, ...]:
        return S.to_key(s)

    def from_key(self, key) -> State:
        return S.from_key(tuple(key))

    def observation(self, s: State, seat: int):
        """Own wires; of the others only cut wires, info tokens and exclusions; never the set-aside."""
        racks = []
        for r, rack in enumerate(s.racks):
            if self.mission.rack_owner[r] == seat:
                racks.append(rack)
            else:
                racks.append(tuple(w if S.is_cut(w) else w & ~S.CODE_MASK for w in rack))
        return (int(s.phase), s.seat, s.detonator, s.reds, s.yellows, len(s.aside), tuple(racks),
                s.used, s.unlocked, s.validated, s.duplo, s.stabilized, s.claims, s.pending)

    # ---- narration -------------------------------------------------------------------------------
    def describe_state(self, s: State) -> str:
        m = self.mission
        hands = []
        for seat in range(m.players):
            racks = ["[" + " ".join(_wire_text(w) for w in s.racks[r]) + "]" for r in R.hand(m, seat)]
            hands.append(f"p{seat} " + "".join(racks))
        head = {Phase.WON: "defused", Phase.LOST: "exploded"}.get(s.phase, f"{s.phase.name.lower()}, p{s.seat}")
        extra = f", aside {','.join(map(T.show, s.aside))}" if s.aside else ""
        return f"{head}; detonator {s.detonator}/{m.skull}{extra}; " + "; ".join(hands)

    def describe_action(self, s: State, a: Action) -> str:
        if s.phase < Phase.DEAL:
            return f"draw {a}" if s.phase != Phase.ASIDE else "set aside " + ",".join(map(T.show, a))
        if s.phase == Phase.DEAL:
            return f"deal {T.show(a)}"
        kind = Kind(a[0])
        m = self.mission
        where = lambda r, j: f"p{m.rack_owner[r]} rack {R.hand(m, m.rack_owner[r]).index(r)} slot {j}"
        if kind == Kind.TOKEN:
            return f"info token on own {where(a[1], a[2])}"
        if kind == Kind.DUAL:
            return f"dual cut: {where(a[1], a[2])} is {T.show_named(a[3])}"
        if kind == Kind.SOLO:
            return f"solo cut of every {T.show_named(a[1])}"
        if kind == Kind.REVEAL:
            return "reveal red wires"
        if kind == Kind.DUPLO:
            return f"detector duplo: {where(a[1], a[2])} or slot {a[3]} is {T.show_named(a[4])}"
        if kind == Kind.STABILIZE:
            return "flip the estabilizador"
        if kind == Kind.SWAP:
            return f"comunicadores: swap own {where(a[2], a[3])} with {where(a[4], a[5])}"
        return f"pick slot {a[1]}"

    def invariants(self) -> Sequence[Invariant]:
        from .invariants import invariants
        return invariants(self.mission)


def _wire_text(w: int) -> str:
    text = T.show(S.code(w))
    if S.is_cut(w):
        return "x" + text
    if S.info(w):
        return text + "*"
    return text


def build(ruleset) -> BombBusters:
    """The protocol game for a ruleset (the spec's ``build``)."""
    return BombBusters(Mission.from_ruleset(ruleset))
