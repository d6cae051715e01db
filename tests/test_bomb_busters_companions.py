"""Bomb Busters' companion missions reach what they are there for, and the table proof sees a slip
there that no other verify configuration reaches.

Each companion (``proofs/bomb_busters.py: companions``) is explored in well under a second; the
slips below are the three mutants ``verify`` could not see before the companions were laid out
for them (``model/bomb_busters/mutants/``): the teammate's pick after a Detector Duplo finds both
wires right (B08), the Duplo's miss on one red and one blue wire with the detonator short of the
skull (B17), and a wrong blue or yellow cut under the Estabilizador; and the law of B09's random
set-up token, which only the Estabilizador companion plays.
"""
from __future__ import annotations

from fractions import Fraction

import pytest

from ruleproof.model.bomb_busters import rules as R
from ruleproof.model.bomb_busters import state as S
from ruleproof.model.bomb_busters import tiles as T
from ruleproof.model.bomb_busters.game import BombBusters
from ruleproof.model.bomb_busters.mission import Mission
from ruleproof.model.bomb_busters.rules import Kind
from ruleproof.model.bomb_busters.state import Phase
from ruleproof.proofs.bomb_busters import bomb_busters_proofs, companions
from ruleproof.proofs.refinement import check_rule_proof
from ruleproof.solver.explore import explore

TABLE = "moves-as-written (table)"


def companion(word: str):
    return next(rs for label, rs in companions() if word in label)


def _wrong_nonred_under_the_estabilizador(s, a) -> bool:
    if a[0] != Kind.DUAL or not s.stabilized:
        return False
    t = S.code(s.racks[a[1]][a[2]])
    return not T.matches(t, a[3]) and T.colour(t) != T.Colour.RED


def _duplo_miss_one_red(s, a, skull: int) -> bool:
    if a[0] != Kind.DUPLO or s.detonator + 1 >= skull:
        return False
    _, r, j1, j2, named = a
    tiles = [S.code(s.racks[r][j]) for j in (j1, j2)]
    reds = sum(T.colour(t) == T.Colour.RED for t in tiles)
    return reds == 1 and not any(T.matches(t, named) for t in tiles)


def _reached(word: str, wanted) -> int:
    game = BombBusters(Mission.from_ruleset(companion(word)))
    ex = explore(game)
    assert ex.complete
    found = 0
    for i in range(ex.num_states):
        s = ex.state(i)
        if s.phase != Phase.PLAY:
            continue
        found += sum(bool(wanted(game, s, ex.action[e])) for e in range(ex.offsets[i], ex.offsets[i + 1]))
    return found


def test_the_four_copies_companion_reaches_the_teammates_pick():
    # the captain points a Detector Duplo at the teammate's two 1s on its last rack (B11 last-racks)
    assert _reached("four copies", lambda g, s, a: s.pending and s.pending[0] == R.PICK_CUT) > 0


def test_the_three_experts_companion_reaches_a_duplo_miss_on_one_red_short_of_the_skull():
    assert _reached("three experts", lambda g, s, a: _duplo_miss_one_red(s, a, g.mission.skull)) > 0


def test_the_estabilizador_companion_reaches_a_wrong_blue_or_yellow_cut_under_it():
    assert _reached("Estabilizador", lambda g, s, a: _wrong_nonred_under_the_estabilizador(s, a)) > 0


# ---- the slips, each one the model's move changed --------------------------------------------------------

class PickByTheCutter(BombBusters):
    """B08 broken: the active player, not the teammate, picks which right wire is cut."""

    def current_player(self, s):
        if s.pending and s.phase == Phase.PLAY:
            return s.seat
        return super().current_player(s)


class DuploTokenOnTheRed(BombBusters):
    """B17 broken: the info token goes on the red wire, the exclusion on the other."""

    def apply(self, s, a):
        after = super().apply(s, a)
        if s.phase == Phase.PLAY and not s.pending and _duplo_miss_one_red(s, a, self.mission.skull):
            _, r, j1, j2, named = a
            red = j1 if T.colour(S.code(s.racks[r][j1])) == T.Colour.RED else j2
            other = j2 if red == j1 else j1
            after = R.set_wire(after, r, red, S.with_info(s.racks[r][red]))
            after = R.set_wire(after, r, other, S.with_not(s.racks[r][other], named))
        return after


class EstabilizadorIgnored(BombBusters):
    """The Estabilizador's effect broken: a wrong blue or yellow cut still advances the detonator."""

    def apply(self, s, a):
        after = super().apply(s, a)
        if s.phase == Phase.PLAY and not s.pending and _wrong_nonred_under_the_estabilizador(s, a):
            after = after.evolve(detonator=after.detonator + 1)
            if after.detonator >= self.mission.skull:
                after = after.evolve(phase=Phase.LOST)
        return after


class RandomTokenOnAnyWire(BombBusters):
    """B09 random broken: the set-up token falls on any own wire, yellow too."""

    def chance_outcomes(self, s):
        if s.phase != Phase.TOKENS:
            return super().chance_outcomes(s)
        slots = [(r, j) for r, j, _ in R.uncut(self.mission, s, s.seat)]
        return [((int(Kind.TOKEN), r, j), Fraction(1, len(slots))) for r, j in slots]


@pytest.mark.parametrize("mutant, word", [(PickByTheCutter, "four copies"), (DuploTokenOnTheRed, "three experts"),
                                          (EstabilizadorIgnored, "Estabilizador"),
                                          (RandomTokenOnAnyWire, "Estabilizador")])
def test_the_slip_fails_the_table_proof_on_its_companion(mutant, word):
    rs = companion(word)
    game = mutant(Mission.from_ruleset(rs))
    ex = explore(game)
    table = next(p for p in bomb_busters_proofs(rs, game) if p.name == TABLE)
    res = check_rule_proof(table, game, exploration=ex, scope="test")
    assert res.status == "fails" and res.kind == "refinement", (res.detail, res.counterexample)
    text = "\n".join(res.counterexample)
    assert "then:" in text or "at this decision" in text or "at this chance node" in text, text


def test_the_real_model_keeps_the_table_proof_on_the_new_companions():
    for word in ("four copies", "three experts", "Estabilizador", "red candidate"):
        rs = companion(word)
        game = BombBusters(Mission.from_ruleset(rs))
        table = next(p for p in bomb_busters_proofs(rs, game) if p.name == TABLE)
        res = check_rule_proof(table, game, exploration=explore(game), scope="test")
        assert res.status == "holds", (word, res.detail, res.counterexample)


def test_the_drawing_companion_draws_the_red_candidate_among_the_eleven_tiles():
    """Step 5.2: the red candidates are drawn at random among the eleven tiles. Every other mission
    verify explores fixes its values, so a slip in the draw (a tile never drawn) could only be met
    at full size, by sampled plays; here the draw is a chance node with eleven outcomes of 1/11."""
    rs = companion("red candidate")
    game = BombBusters(Mission.from_ruleset(rs))
    root = game.initial_state()
    outcomes = [(p, t) for _a, p, t in game.successors(root)]
    assert len(outcomes) == 11 and {p for p, _ in outcomes} == {Fraction(1, 11)}
    assert sorted(t.reds for _p, t in outcomes) == [(T.red(v),) for v in range(1, 12)]
