"""P20 ("o mais adiantado" found without looking at gifts) and P34 (the random policy answers the
first-gift choice as the phone asks it): hand-computed 3-player situations, asserted exactly."""
from fractions import Fraction as F

import pytest

from ruleproof.model.presentes import SPEC
from ruleproof.model.presentes.exact import analyse
from ruleproof.model.presentes.game import PresentesGame
from ruleproof.model.presentes.policies import POLICY_DISTS
from ruleproof.model.presentes.rules import TAKE_TREE, Effect, Phase, St
from ruleproof.solver.explore import explore
from ruleproof.solver.solve import solve
from test_presentes_exact import PolicyFixed

OLD_P20 = {"P20": "gift-holder-ahead"}
OLD_P34 = {"P34": "one-list"}


def game(tmp_path, layout, rulings=None, **params):
    path = tmp_path / "board.txt"
    path.write_text(layout)
    rs = SPEC.default().with_overrides({"board": str(path), "players": 3, **params}, rulings or {},
                                       spec=SPEC.schema)
    return SPEC.build(rs)


class From(PresentesGame):
    """The same game started from a chosen ROLL state."""

    def __init__(self, inner: PresentesGame, start: St):
        super().__init__(inner.rules, inner.board)
        self.start = start

    def initial_state(self) -> St:
        return self.start


def roll(pos, gift, used=0b111):
    held = {g for g in gift if g >= 0}
    tree = sum(1 << g for g in range(3) if g not in held)
    return St(Phase.ROLL, 0, 0, 0, tree, used, 0, tuple(pos), tuple(gift), ())


# ---- P20 ---------------------------------------------------------------------------------------

def test_lugar_needs_the_leader_itself_to_hold_a_gift(tmp_path):
    """Board '. * . . .' (★ on 1, finish 4), 1 die. P0 (no gift) rolls from 0; P1 leads on 3
    without a gift, P2 holds g2 on 2; every first-gift choice is used up, so nobody is asked.

    After P0's turn nobody can land on the ★ again (nobody is on 0), so play is a race in which
    T = the number of rolls until two of the three have finished; from square 1, 2, 3 a roll
    finishes with 4/6, 5/6, 1. P1 (on 3) finishes on turn 2 whatever happens.

    * P0 finished on turn 1: T = 2.
    * P0 on q in {2, 3}: P2 finishes on turn 3 with 5/6, else moves to 3; then P0 finishes with
      f(q), else P2 does on turn 5: E = 3 + 1/6 (1 + 1 - f(q)): E(3) = 19/6, E(2) = 115/36.
    * Lugar with P2 (P0 to 2 with g2, P2 to 1): turn 3 P2 finishes with 4/6 (else to 2 or 3,
      1/6 each); turn 4 P0 from 2 with 5/6; turn 5 P2 fails only from 2 (1/6):
      E = 3 + 1/3 + 1/3 * 1/6 + 1/6 * 1/6 * 1/6 = 733/216.

    P0's roll: 1 lands on the ★; 2 and 3 stop on 2 and 3; 4..6 finish. On the ★ P0 has no gift:
    Salto (2 to square 3; 3 or 5 finish) and, if eligible, Lugar, each weight 1.
    Text (default): the leader P1 has no gift, Lugar is not eligible, Salto surely:
      E = 1/6 (1/3 * 19/6 + 2/3 * 2) + 1/6 * 115/36 + 1/6 * 19/6 + 1/2 * 2 = 531/216 = 59/24.
    'gift-holder-ahead': Lugar on P2 with 1/2:
      E = 1/6 (1/6 * 19/6 + 1/3 * 2 + 1/2 * 733/216) + 229/216 + 1 = 6589/2592.
    """
    start = roll([0, 3, 2], [-1, -1, 2])
    text = analyse(From(game(tmp_path, ". * . . ."), start), policy="random", horizon=0)
    assert text["mean_turns"] == F(59, 24)
    old = analyse(From(game(tmp_path, ". * . . .", OLD_P20), start), policy="random", horizon=0)
    assert old["mean_turns"] == F(6589, 2592)


def test_tied_leaders_are_drawn_before_their_gift_is_looked_at(tmp_path):
    g = game(tmp_path, ". * . . .")
    # P0 without gift on the ★ at 1; P1 and P2 tied ahead on 3, only P1 holds a gift
    s = St(Phase.LUCK, 0, 1, 0, 0b101, 0b111, 0, (1, 3, 3), (-1, 1, -1), ())
    # text: the leader is P1 or P2 (1/2 each, P26); with P1 Salto and Lugar 1/2 each, with P2
    # Salto only: Lugar 1/4, Salto 3/4 (each distance 1/4)
    assert dict(g.chance_outcomes(s)) == {(Effect.LUGAR, 1): F(1, 4), (Effect.SALTO, 2): F(1, 4),
                                          (Effect.SALTO, 3): F(1, 4), (Effect.SALTO, 5): F(1, 4)}
    old = game(tmp_path, ". * . . .", OLD_P20)
    assert dict(old.chance_outcomes(s)) == {(Effect.LUGAR, 1): F(1, 2), (Effect.SALTO, 2): F(1, 6),
                                            (Effect.SALTO, 3): F(1, 6), (Effect.SALTO, 5): F(1, 6)}


def test_a_shielded_leader_blocks_lugar_but_not_the_gift_nearest_the_finish(tmp_path):
    g = game(tmp_path, ". * . s . .")
    # P0 holds g0 on the ★ at 1; P1 (g1) leads on the shield at 3; P2 (g2) on 2
    s = St(Phase.LUCK, 0, 1, 0, 0, 0b111, 0, (1, 3, 2), (0, 1, 2), ())
    out = dict(g.chance_outcomes(s))
    # Lugar: the leader P1 cannot be targeted. "Pegue o presente mais perto da chegada": the
    # targetable gift nearest the finish is P2's. Sorrateiro 2, Frente 1, Adiantado 1, Troca 1.
    assert out == {(Effect.SORRATEIRO, -1): F(2, 5), (Effect.FRENTE, 2): F(1, 5),
                   (Effect.ADIANTADO, 2): F(1, 5), (Effect.TROCA, -1): F(1, 5)}
    old = dict(game(tmp_path, ". * . s . .", OLD_P20).chance_outcomes(s))
    assert old == {(Effect.LUGAR, 2): F(1, 6), (Effect.SORRATEIRO, -1): F(2, 6),
                   (Effect.FRENTE, 2): F(1, 6), (Effect.ADIANTADO, 2): F(1, 6),
                   (Effect.TROCA, -1): F(1, 6)}


TIED_P20 = {"P20": "tied-leader-with-gift"}


def test_tied_leaders_who_serve_without_a_hidden_draw(tmp_path):
    """P20 'tied-leader-with-gift' ("O efeito é sorteado entre os que servem para a sua situação"):
    no hidden draw of the leader; Lugar is eligible when any player tied at the top (gifts unseen)
    holds a targetable gift, and takes one of those. Board '. * . . .' (★ on 1, finish 4), 1 die,
    every first-gift choice used up.

    On the ★ (chance outcomes): P0 without a gift on 1; P1 and P2 tied on 3, only P1 holds g1:
    Lugar (weight 1) on P1 and Salto (weight 1: 2, 3 or 5 squares, 1/3 each) -- Lugar 1/2, each
    Salto 1/6 (the default draws the leader first: Lugar 1/4). A lone giftless leader (P1 on 3
    without a gift, P2 holding g2 on 2) still blocks Lugar: Salto only, 1/3 each ('gift-holder-ahead'
    would take P2's gift).

    From P0's roll (0; P1 and P2 on 3, P1 holding g1), the expected number of turns. Whoever is on
    3 finishes on their roll; play ends when two of the three have finished.
    * P0 rolls 4..6 (1/2): finishes, P1 finishes on turn 2: T = 2. Rolls 2, 3 (1/3): T = 3.
    * Roll 1 (1/6): the ★. Salto 3 or 5 finishes (T = 2), Salto 2 stops on 3 (T = 3): 7/3.
      Lugar with P1: P0 to 3 with g1, P1 to 1; P1 finishes on turn 2 with 4/6 (T = 3, as P2 does
      on turn 3), else P2 on turn 3 and P0 on turn 4: E = 3 + 1/3 = 10/3.
    * Tied reading: E(★) = 1/2 * 10/3 + 1/2 * 7/3 = 17/6; E = 1/2 * 2 + 1/3 * 3 + 1/6 * 17/6 = 89/36.
    * Default (P1 or P2 drawn, 1/2 each; with P2 Salto only): E(★) = 1/2 * 17/6 + 1/2 * 7/3 =
      31/12; E = 2 + 31/72 = 175/72. 'gift-holder-ahead' takes P1 too: 89/36.
    """
    g = game(tmp_path, ". * . . .", TIED_P20)
    tied = St(Phase.LUCK, 0, 1, 0, 0b101, 0b111, 0, (1, 3, 3), (-1, 1, -1), ())
    assert dict(g.chance_outcomes(tied)) == {(Effect.LUGAR, 1): F(1, 2), (Effect.SALTO, 2): F(1, 6),
                                             (Effect.SALTO, 3): F(1, 6), (Effect.SALTO, 5): F(1, 6)}
    lone = St(Phase.LUCK, 0, 1, 0, 0b011, 0b111, 0, (1, 3, 2), (-1, -1, 2), ())
    assert dict(g.chance_outcomes(lone)) == {(Effect.SALTO, 2): F(1, 3), (Effect.SALTO, 3): F(1, 3),
                                             (Effect.SALTO, 5): F(1, 3)}
    assert dict(game(tmp_path, ". * . . .", OLD_P20).chance_outcomes(lone))[(Effect.LUGAR, 2)] == F(1, 2)
    start = roll([0, 3, 3], [-1, 1, -1])
    turns = {name: analyse(From(game(tmp_path, ". * . . .", rulings), start), policy="random",
                           horizon=0)["mean_turns"]
             for name, rulings in (("tied", TIED_P20), ("default", None), ("old", OLD_P20))}
    assert turns == {"tied": F(89, 36), "default": F(175, 72), "old": F(89, 36)}


# ---- P34 ---------------------------------------------------------------------------------------

def test_random_first_gift_is_two_questions(tmp_path):
    """Board '. . . .' (no special square, finish 3), 1 die. P0 (no gift, first-gift choice unused)
    rolls from 0; P1 and P2 hold their own gifts on 2; g0 is under the tree.

    Rolls 3..6 (4/6) finish: P0 takes g0. Rolls 1, 2 (2/6) stop on an ordinary square: the phone
    asks. Two questions: tree 1/2 (g0), steal from P1 1/4 (P0 g1, P1 takes g0), from P2 1/4.
    One list: tree, P1, P2 at 1/3 each. With no special square nothing moves a gift again:
      own gift P0: 4/6 + 2/6 * 1/2 = 5/6 (one list: 4/6 + 2/6 * 1/3 = 7/9);
      own gift P1 and P2: 1 - 2/6 * 1/4 = 11/12 (one list: 1 - 2/6 * 1/3 = 8/9).
    """
    start = roll([0, 2, 2], [-1, 1, 2], used=0b110)
    two = analyse(From(game(tmp_path, ". . . ."), start), policy="random", horizon=0)
    assert two["own_gift"] == [F(5, 6), F(11, 12), F(11, 12)]
    one = analyse(From(game(tmp_path, ". . . .", OLD_P34), start), policy="random", horizon=0)
    assert one["own_gift"] == [F(7, 9), F(8, 9), F(8, 9)]
    # the choice changes who holds which gift, never where anyone stands
    assert two["mean_turns"] == one["mean_turns"]


def test_random_policy_distribution_on_the_first_gift_question(tmp_path):
    g = game(tmp_path, ". . . .")
    s = St(Phase.FIRST, 0, 0, 0, 0b001, 0b111, 0, (1, 2, 2), (-1, 1, 2), ())
    assert POLICY_DISTS["random"](g, s) == [(TAKE_TREE, F(1, 2)), (1, F(1, 4)), (2, F(1, 4))]
    old = game(tmp_path, ". . . .", OLD_P34)
    assert POLICY_DISTS["random"](old, s) == [(TAKE_TREE, F(1, 3)), (1, F(1, 3)), (2, F(1, 3))]
    # other questions are single: uniform over their options
    sw = s._replace(phase=Phase.SWAP)
    assert POLICY_DISTS["random"](g, sw) == [(1, F(1, 2)), (2, F(1, 2))]


# ---- the whole game on the issue's board ---------------------------------------------------------

ISSUE_BOARD = ". * . s ."


@pytest.mark.parametrize("rulings, turns", [
    ({}, F(20729711, 6718464)),                      # 3.085484 (issue 14, the text's reading)
    (OLD_P20, F(20766755, 6718464)),                 # 3.090998 (issue 14, the former reading)
    ({**OLD_P20, **OLD_P34}, F(20766755, 6718464)),  # P34 moves gifts, not pieces
])
def test_issue_board_three_players_random(tmp_path, rulings, turns):
    g = game(tmp_path, ISSUE_BOARD, rulings)
    ours = analyse(g, policy="random", horizon=0)
    assert ours["mean_turns"] == turns
    # cross-check: the generic exact solver on the full game with the policy as chance
    sol = solve(explore(PolicyFixed(g, POLICY_DISTS["random"])), exact=True)
    assert list(sol.initial_exact) == ours["first"] + ours["own_gift"]


def test_checks_and_bound_proofs_hold_under_both_p20_readings(tmp_path):
    # verify maps every explored transition onto the proofs' relations, so the Lugar relation must
    # admit both leader readings (and P07's own-leader no-op)
    from ruleproof.solver.verify import verify
    path = tmp_path / "board.txt"
    path.write_text(ISSUE_BOARD)
    for rulings in ({}, OLD_P20, {"P07": "own-leader"}, {**OLD_P20, "P07": "own-leader"}):
        rs = SPEC.default().with_overrides({"board": str(path), "players": 3}, rulings, spec=SPEC.schema)
        rep = verify(SPEC, rs)
        assert rep.status == "holds", [(p.name, p.detail) for p in rep.properties if not p.ok]
        assert any(p.evidence == "proved" for p in rep.properties)


def test_two_players_see_no_difference():
    """With one other player, it is the only leader, and one victim gives 1/2 and 1/2 either way."""
    seen = set()
    for rulings in ({}, OLD_P20, OLD_P34, {**OLD_P20, **OLD_P34}):
        g = SPEC.build(SPEC.default().with_overrides({"board": "tiny", "players": 2}, rulings,
                                                     spec=SPEC.schema))
        res = analyse(g, policy="random", horizon=0, effects=True)
        seen.add((res["states"], res["mean_turns"], tuple(res["first"]), tuple(res["own_gift"]),
                  tuple(res["effects_per_game"])))
    assert len(seen) == 1
