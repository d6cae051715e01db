"""Rules: hand-built situations asserted exactly (effects, weights, chains, shields, host)."""
from fractions import Fraction as F


from ruleproof.model.presentes import SPEC
from ruleproof.model.presentes import rules as R
from ruleproof.model.presentes.rules import Effect, Phase, St
from ruleproof.model.protocol import CHANCE, TERMINAL, Game


def game(tmp_path=None, layout=None, rulings=None, **params):
    if layout is not None:
        path = tmp_path / "board.txt"
        path.write_text(layout)
        params["board"] = str(path)
    rs = SPEC.default().with_overrides(params, rulings or {}, spec=SPEC.schema)
    return SPEC.build(rs)


def state(g, phase, turn, pos, gift, chain=1, used=None, tree=None, order=()):
    n = g.num_players
    if tree is None:
        held = {x for x in gift if x >= 0}
        tree = sum(1 << x for x in range(n) if x not in held)
    return St(phase, turn, chain, 0, tree, (1 << n) - 1 if used is None else used, 0, tuple(pos),
              tuple(gift), tuple(order))


#   0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
LINE = ". . * x . s * . x . *  .  .  .  .  ."


def test_luck_draw_with_gift_has_the_printed_weights(tmp_path):
    g = game(tmp_path, LINE, players=3)
    # P0 holds g0 on the ★ at 6; P1 (g1) at 9 is ahead within 6; P2 (g2) at 4 is behind within 6.
    s = state(g, Phase.LUCK, 0, [6, 9, 4], [0, 1, 2])
    out = dict(g.chance_outcomes(s))
    # eligible: Lugar (leader P1) 1, Sorrateiro 2 (double), Frente 1, Atrás 1, Adiantado 1, Troca 1 = 7
    assert out == {(Effect.LUGAR, 1): F(1, 7), (Effect.SORRATEIRO, -1): F(2, 7),
                   (Effect.FRENTE, 1): F(1, 7), (Effect.ATRAS, 2): F(1, 7),
                   (Effect.ADIANTADO, 1): F(1, 7), (Effect.TROCA, -1): F(1, 7)}


def test_luck_draw_without_gift_salto_uniform_and_leader_ties_random(tmp_path):
    g = game(tmp_path, LINE, players=3)
    # P0 without gift on the ★ at 2; P1 and P2 both hold gifts on square 9: two tied leaders (P20)
    s = state(g, Phase.LUCK, 0, [2, 9, 9], [-1, 1, 2])
    out = dict(g.chance_outcomes(s))
    # Salto (weight 1; 2, 3 or 5 each 1/3) and Lugar (weight 1; each leader 1/2)
    assert out == {(Effect.SALTO, 2): F(1, 6), (Effect.SALTO, 3): F(1, 6), (Effect.SALTO, 5): F(1, 6),
                   (Effect.LUGAR, 1): F(1, 4), (Effect.LUGAR, 2): F(1, 4)}


def test_shielded_players_are_never_targets_and_p23(tmp_path):
    g = game(tmp_path, LINE, players=2)
    # P1 holds g1 on the shield at 5; P0 holds g0 on the ★ at 6: nothing is eligible (P23)
    s = state(g, Phase.LUCK, 0, [6, 5], [0, 1])
    assert g.chance_outcomes(s) == [((Effect.NOTHING, 0), F(1))]
    t = g.apply(s, (Effect.NOTHING, 0))
    assert t.phase == Phase.ROLL and t.turn == 1 and t.gift == s.gift and t.pos == s.pos


def test_bad_luck_revenge_weights_and_previous_player(tmp_path):
    g = game(tmp_path, LINE, players=3)
    # P1's turn on the ☠ at 8 holding g1; the previous player P0 (seat order, P08) has no gift
    s = state(g, Phase.BAD, 1, [0, 8, 4], [-1, 1, 2])
    assert dict(g.chance_outcomes(s)) == {(Effect.ARVORE, 0): F(1, 2), (Effect.REV_ROUBO, 0): F(1, 2)}
    r = g.apply(s, (Effect.REV_ROUBO, 0))
    assert r.phase == Phase.REVENGE and g.current_player(r) == 0 and g.legal_actions(r) == [0, 1]
    taken = g.apply(r, 1)
    assert taken.gift == (1, -1, 2) and taken.turn == 2
    # P0's previous player is P2 (cyclic seat order, P27); both hold gifts: swap possible
    s2 = state(g, Phase.BAD, 0, [8, 1, 4], [0, 1, 2])
    assert dict(g.chance_outcomes(s2)) == {(Effect.ARVORE, 0): F(1, 2), (Effect.REV_TROCA, 0): F(1, 2)}


def test_revenge_swap_not_with_a_shielded_previous_player(tmp_path):
    g = game(tmp_path, LINE, players=2)
    s = state(g, Phase.BAD, 1, [5, 8], [0, 1])  # P0 (previous) on the shield at 5 (P24)
    assert dict(g.chance_outcomes(s)) == {(Effect.ARVORE, 0): F(1)}
    s = state(g, Phase.BAD, 1, [5, 8], [-1, 1])  # but the steal is allowed
    assert dict(g.chance_outcomes(s)) == {(Effect.ARVORE, 0): F(1, 2), (Effect.REV_ROUBO, 0): F(1, 2)}


def test_volte_stops_at_start_and_never_lands(tmp_path):
    g = game(tmp_path, ". . x * . . . .", players=2)
    s = state(g, Phase.BAD, 0, [2, 0], [-1, -1])
    assert dict(g.chance_outcomes(s)) == {(Effect.VOLTE, 0): F(1)}
    t = g.apply(s, (Effect.VOLTE, 0))
    assert t.pos == (0, 0) and t.phase == Phase.ROLL and t.turn == 1


def test_salto_chain_stops_after_three_landings(tmp_path):
    # jumps fixed to 2: ★ at 2, 4, 6, 8: the roll lands on 2 (landing 1), Saltos land on 4 (2) and
    # 6 (3); the Salto drawn on landing 3 moves to 8 without resolving it (P12)
    g = game(tmp_path, ". . * . * . * . * . . .", players=2, jumps=[2])
    s = state(g, Phase.LUCK, 0, [2, 0], [-1, -1], chain=1)
    for landing in (2, 3):
        s = g.apply(s, (Effect.SALTO, 2))
        assert s.phase == Phase.LUCK and s.chain == landing
    s = g.apply(s, (Effect.SALTO, 2))
    assert s.pos[0] == 8 and s.phase == Phase.ROLL and s.turn == 1


def test_first_gift_choice_steal_then_victim_takes_from_tree(tmp_path):
    g = game(tmp_path, LINE, players=3)
    s = state(g, Phase.ROLL, 0, [0, 7, 9], [-1, 1, -1], used=0b110)
    t = g.apply(s, (4, 0))  # lands on ordinary 4 without a gift, first time
    assert t.phase == Phase.FIRST and g.legal_actions(t) == [-1, 1] and t.used & 1
    stolen = g.apply(t, 1)
    assert stolen.gift == (1, -1, -1) and stolen.phase == Phase.TREE and stolen.aux == 1
    assert dict(g.chance_outcomes(stolen)) == {(0, 0): F(1, 2), (2, 0): F(1, 2)}
    # the second ordinary landing without a gift goes straight to the tree (P16)
    again = state(g, Phase.ROLL, 0, [0, 7, 9], [-1, 1, -1], used=0b111)
    assert g.apply(again, (4, 0)).phase == Phase.TREE


def test_finishing_and_last_player(tmp_path):
    g = game(tmp_path, ". . . .", players=2)
    s = state(g, Phase.ROLL, 0, [0, 1], [-1, 0], used=0)
    t = g.apply(s, (5, 0))  # passes the finish (P03): takes from the tree, then P1 is the last one
    assert t.phase == Phase.TREE and t.order == (0,) and g.chance_outcomes(t) == [((1, 0), F(1))]
    end = g.apply(t, (1, 0))
    assert g.current_player(end) == TERMINAL and end.order == (0, 1) and end.gift == (1, 0)
    assert g.returns(end) == (F(1), F(1))  # each ends with the other's gift


def test_bounce_alternative(tmp_path):
    g = game(tmp_path, ". . . . . .", rulings={"P03": "bounce"}, players=2)
    s = state(g, Phase.ROLL, 0, [3, 0], [0, 1])
    assert g.apply(s, (4, 0)).pos[0] == 3  # 3 + 4 = 7 = finish 5 + 2: bounces back to 3


def test_lugar_alternatives(tmp_path):
    s_args = (Phase.LUCK, 0, [6, 9], [-1, 1])
    g = game(tmp_path, LINE, players=2)
    t = g.apply(state(g, *s_args), (Effect.LUGAR, 1))
    assert t.pos == (9, 6) and t.gift == (1, -1)  # P02 swap-both
    g2 = game(tmp_path, LINE, rulings={"P02": "gift-only", "P17": "two"}, players=2)
    s = state(g2, *s_args)
    assert dict(g2.chance_outcomes(s))[(Effect.LUGAR, 1)] == F(2, 3)  # weight 2 against Salto's 1
    t = g2.apply(s, (Effect.LUGAR, 1))
    assert t.pos == (6, 9) and t.gift == (1, -1)


def test_sneak_alternatives(tmp_path):
    g = game(tmp_path, LINE, rulings={"P06": "ahead", "P18": "eligible", "P11": "random"}, players=3)
    s = state(g, Phase.LUCK, 0, [6, 9, 4], [-1, 1, 2])  # no gift: P18 eligible; P06 ahead: only P1
    out = dict(g.chance_outcomes(s))
    assert out[(Effect.SORRATEIRO, 1)] == F(2, 4) and (Effect.SORRATEIRO, 2) not in out
    t = g.apply(s, (Effect.SORRATEIRO, 1))
    assert t.gift == (1, -1, 2) and t.phase == Phase.ROLL


def test_host_removes_and_skips(tmp_path):
    g = game(tmp_path, LINE, players=3, host_skip=[2], host_remove=[[3, 1]])
    s = g.initial_state()
    assert s.turn == 0 and s.slot == 1
    s = g.apply(s, (4, 0))  # slot 1: P0 lands on 4, first gift from the tree
    s = g.apply(s, (0, 0))
    assert s.gift[0] == 0 and s.phase == Phase.ROLL
    # slot 2 (P1) is skipped; slot 3 removes P1 and it is P2's turn
    assert s.turn == 2 and s.pos[1] == g.rules.out and s.slot == 3


def test_removal_returns_the_held_gift(tmp_path):
    g = game(tmp_path, LINE, players=3, host_remove=[[2, 0]])
    s = g.apply(g.initial_state(), (4, 0))
    s = g.apply(s, (0, 0))  # P0 takes g0, then is removed at slot 2: g0 back under the tree
    assert s.gift[0] == -1 and s.tree & 1 and s.turn == 1
    assert all(inv.check(s) is None for inv in g.invariants())


def test_key_round_trip_and_describe(tmp_path):
    g = game(tmp_path, LINE, players=3)
    s = state(g, Phase.BAD, 1, [0, 8, 4], [-1, 1, 2])
    assert g.from_key(g.key(s)) == s and all(isinstance(x, int) for x in g.key(s))
    assert "P1's turn" in g.describe_state(s)
    assert g.current_player(g.initial_state()) == CHANCE


# ---- the ruling alternatives P05, P07, P08, P14, P15: hand-computed cases where they differ ----

def test_p05_printed_order_weights_salto(tmp_path):
    # P0 without a gift on the ★ at 2, P1 giftless at 0: no leader holds a gift, so only Salto is
    # eligible. uniform: 2, 3, 5 each 1/3. printed-order: weights 3:2:1 over 6 -> 1/2, 1/3, 1/6.
    args = (Phase.LUCK, 0, [2, 0], [-1, -1])
    g = game(tmp_path, LINE, players=2)
    assert dict(g.chance_outcomes(state(g, *args))) == {
        (Effect.SALTO, 2): F(1, 3), (Effect.SALTO, 3): F(1, 3), (Effect.SALTO, 5): F(1, 3)}
    g = game(tmp_path, LINE, rulings={"P05": "printed-order"}, players=2)
    assert dict(g.chance_outcomes(state(g, *args))) == {
        (Effect.SALTO, 2): F(1, 2), (Effect.SALTO, 3): F(1, 3), (Effect.SALTO, 5): F(1, 6)}
    # repeated distances add up: jumps [2, 2, 5] -> 2 gets 3 + 2 = 5 of 6
    g = game(tmp_path, LINE, rulings={"P05": "printed-order"}, players=2, jumps=[2, 2, 5])
    assert dict(g.chance_outcomes(state(g, *args))) == {(Effect.SALTO, 2): F(5, 6),
                                                        (Effect.SALTO, 5): F(1, 6)}


def test_p07_own_leader_adds_a_no_op_lugar(tmp_path):
    # P0 holds g0 on the ★ at 6 and leads; P1 holds g1 at 4 (behind, within 6).
    # not-eligible: Sorrateiro 2 + Atrás 1 + Troca 1 = 4. own-leader: + Lugar on P0 itself, 1 of 5.
    args = (Phase.LUCK, 0, [6, 4], [0, 1])
    g = game(tmp_path, LINE, players=2)
    assert dict(g.chance_outcomes(state(g, *args))) == {
        (Effect.SORRATEIRO, -1): F(2, 4), (Effect.ATRAS, 1): F(1, 4), (Effect.TROCA, -1): F(1, 4)}
    g = game(tmp_path, LINE, rulings={"P07": "own-leader"}, players=2)
    s = state(g, *args)
    assert dict(g.chance_outcomes(s)) == {(Effect.LUGAR, 0): F(1, 5), (Effect.SORRATEIRO, -1): F(2, 5),
                                          (Effect.ATRAS, 1): F(1, 5), (Effect.TROCA, -1): F(1, 5)}
    t = g.apply(s, (Effect.LUGAR, 0))  # nothing changes, the turn ends
    assert (t.phase, t.turn, t.pos, t.gift) == (Phase.ROLL, 1, s.pos, s.gift)
    # a P23 situation (P1 shielded at 5, behind the leading P0): nothing under the default,
    # the no-op Lugar under own-leader; with the shielded P1 ahead (P0 on ★ 2) P0 does not lead
    shielded_behind = (Phase.LUCK, 0, [6, 5], [0, 1])
    assert g.chance_outcomes(state(g, *shielded_behind)) == [((Effect.LUGAR, 0), F(1))]
    assert g.chance_outcomes(state(g, Phase.LUCK, 0, [2, 5], [0, 1])) == [((Effect.NOTHING, 0), F(1))]
    # without a gift the leader (you) has none: no Lugar (only Salto)
    giftless = state(g, Phase.LUCK, 0, [6, 4], [-1, 1])
    assert {e for (e, _a), _p in g.chance_outcomes(giftless)} == {Effect.SALTO}


def test_p08_behind_changes_who_takes_the_revenge(tmp_path):
    # P1's turn on the ☠ at 8 holding g1; P0 giftless at 0, P2 holding g2 at 4.
    # previous-seat: P0 (no gift) -> Árvore 1/2, Revanche roubo 1/2.
    # behind: the nearest player behind is P2 (holds a gift, unshielded) -> Árvore 1/2, Revanche troca 1/2.
    args = (Phase.BAD, 1, [0, 8, 4], [-1, 1, 2])
    g = game(tmp_path, LINE, players=3)
    assert dict(g.chance_outcomes(state(g, *args))) == {(Effect.ARVORE, 0): F(1, 2),
                                                        (Effect.REV_ROUBO, 0): F(1, 2)}
    g = game(tmp_path, LINE, rulings={"P08": "behind"}, players=3)
    s = state(g, *args)
    assert dict(g.chance_outcomes(s)) == {(Effect.ARVORE, 0): F(1, 2), (Effect.REV_TROCA, 2): F(1, 2)}
    r = g.apply(s, (Effect.REV_TROCA, 2))
    assert r.phase == Phase.REVENGE and g.current_player(r) == 2 and g.legal_actions(r) == [0, 1]
    assert "Revanche: presente por presente" in g.describe_action(r, 1)   # the swap, as the screen names it
    assert g.apply(r, 1).gift == (-1, 2, 1)  # P2 swaps with P1
    # P0 and P2 tied on 4: one of them at random (1/2 each), then the draw for that one:
    # Árvore 1/2 either way; Revanche roubo by P0 1/2 * 1/2; Revanche troca by P2 1/2 * 1/2
    s = state(g, Phase.BAD, 1, [4, 8, 4], [-1, 1, 2])
    assert dict(g.chance_outcomes(s)) == {(Effect.ARVORE, 0): F(1, 2), (Effect.REV_ROUBO, 0): F(1, 4),
                                          (Effect.REV_TROCA, 2): F(1, 4)}
    # nobody behind (P1 on 8 with the others ahead on 9): no Revanche at all
    s = state(g, Phase.BAD, 1, [9, 8, 9], [-1, 1, 2])
    assert dict(g.chance_outcomes(s)) == {(Effect.ARVORE, 0): F(1)}


def test_p14_steal_lets_a_giftless_finisher_steal(tmp_path):
    # '. . . .' (finish 3): P0 giftless at 0 with its first-gift choice unused, P1 holds g1 at 1.
    # P0 rolls 5 and finishes. tree: P0 takes g0, its own gift (then P1 is the last one).
    # steal: P0 may steal g1 from P1, who then takes g0 from the tree: both end with the other's.
    args = (Phase.ROLL, 0, [0, 1], [-1, 1])
    g = game(tmp_path, ". . . .", players=2)
    t = g.apply(state(g, *args, used=0b10), (5, 0))
    assert t.phase == Phase.TREE and g.chance_outcomes(t) == [((0, 0), F(1))]
    assert g.apply(t, (0, 0)).gift == (0, 1)
    g = game(tmp_path, ". . . .", rulings={"P14": "steal"}, players=2)
    t = g.apply(state(g, *args, used=0b10), (5, 0))
    assert t.phase == Phase.FIRST and g.current_player(t) == 0 and g.legal_actions(t) == [-1, 1]
    assert all(inv.check(t) is None for inv in g.invariants())
    u = g.apply(t, 1)
    assert u.phase == Phase.TREE and u.aux == 1 and u.gift == (1, -1)
    end = g.apply(u, (0, 0))
    assert g.current_player(end) == TERMINAL and end.gift == (1, 0) and g.returns(end) == (F(1), F(1))
    # with the choice already used, a finisher takes from the tree as before
    assert g.apply(state(g, *args, used=0b11), (5, 0)).phase == Phase.TREE


def test_p15_pick_makes_the_tree_a_decision_and_changes_own_gift_odds(tmp_path):
    """'. . . .' (finish 3), 2 players, eager policy (default values: any gift but your own is
    worth 1), so a picker avoids its own gift while it can.

    P0 rolls 3..6 (2/3): finishes, picks g1; P1, the last one, gets g0: nobody has their own.
    P0 rolls 1..2 (1/3): first ordinary landing, nobody to steal from: picks g1. Then P1:
      rolls 3..6 (2/3): finishes and gets g0 (the only gift left): nobody has their own;
      rolls 1..2 (1/3): first ordinary landing, steals g1 from P0 (eager), P0 takes g0: both own.
    So each seat ends with its own gift with probability 1/3 * 1/3 = 1/9 (1/2 when the tree is
    random: the blind draw makes 'both own' and 'neither' equally likely at every branch).
    """
    from ruleproof.model.presentes.exact import analyse
    g = game(tmp_path, ". . . .", rulings={"P15": "pick"}, players=2)
    s = state(g, Phase.TREE, 0, [1, 0], [-1, -1], used=0b01)._replace(aux=0)
    assert g.current_player(s) == 0 and g.legal_actions(s) == [0, 1] and g.chance_outcomes(s) == []
    assert g.apply(s, 1).gift == (1, -1) and "picks gift g1" in g.describe_action(s, 1)
    assert analyse(g, policy="eager", horizon=0)["own_gift"] == [F(1, 9), F(1, 9)]
    assert analyse(game(tmp_path, ". . . .", players=2), horizon=0)["own_gift"] == [F(1, 2), F(1, 2)]


def test_p23_redraw_comes_back_to_the_same_draw(tmp_path):
    # P0 holds g0 on the ★ at 6, P1 (g1) on the shield at 5: nothing is eligible.
    # nothing: the turn ends (P1 to roll). redraw: the draw returns to this very state, forever.
    args = (Phase.LUCK, 0, [6, 5], [0, 1])
    g = game(tmp_path, LINE, players=2)
    assert g.apply(state(g, *args), (Effect.NOTHING, 0)).phase == Phase.ROLL
    g = game(tmp_path, LINE, rulings={"P23": "redraw"}, players=2)
    s = state(g, *args)
    assert g.chance_outcomes(s) == [((Effect.NOTHING, 1), F(1))]
    assert g.apply(s, (Effect.NOTHING, 1)) == s and "redraw" in g.describe_action(s, (Effect.NOTHING, 1))
    # when some effect serves, redraw is the same law as the default draw
    other = (Phase.LUCK, 0, [6, 9, 4], [0, 1, 2])
    g3 = game(tmp_path, LINE, players=3)
    r3 = game(tmp_path, LINE, rulings={"P23": "redraw"}, players=3)
    assert r3.chance_outcomes(state(r3, *other)) == g3.chance_outcomes(state(g3, *other))


def test_p23_redraw_is_refused_by_the_exact_analysis_and_simulate_only_when_reached(tmp_path):
    import pytest

    from ruleproof.model.presentes.exact import GameHangs, analyse
    from ruleproof.model.presentes.simulate import run_games
    from ruleproof.model.ruleset import RulesetError
    hang = game(rulings={"P23": "redraw"}, players=2, board="mini")  # 'mini' has a shield
    with pytest.raises(GameHangs, match="rulings.P23"):
        analyse(hang, horizon=0)
    with pytest.raises(RulesetError, match="rulings.P23"):
        run_games(hang.rules, 500, seed=1)
    # without a shield square no ★ is ever empty: redraw changes nothing, exactly
    plain = ". . * x . * . x * . ."
    a = analyse(game(tmp_path, plain, players=2), horizon=0)
    b_game = game(tmp_path, plain, rulings={"P23": "redraw"}, players=2)
    b = analyse(b_game, horizon=0)
    assert (a["mean_turns"], a["first"], a["own_gift"]) == (b["mean_turns"], b["first"], b["own_gift"])
    assert run_games(b_game.rules, 200, seed=3)["turns"].tolist() == \
        run_games(game(tmp_path, plain, players=2).rules, 200, seed=3)["turns"].tolist()


def _some_states(g, limit):
    seen, queue = {g.initial_state()}, [g.initial_state()]
    for s in queue:
        if len(queue) >= limit:
            break
        for _, _, t in Game.successors(g, s):
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return queue


def test_the_last_moves_memo_answers_for_the_state_and_configuration_asked():
    """``successors`` keeps the moves of the last state asked (the fast-paths check asks each state
    four ways): two configurations in one process that differ only in a ruling, asked in turn about
    the same states (equal tuples, not the same objects), each get their own rules' moves, and a
    caller changing the list it was given changes no later answer."""
    a = game(rulings={"P17": "one", "P11": "choose"})
    b = game(rulings={"P17": "two", "P11": "random"})
    differ = 0
    for s in _some_states(a, 3000):
        if a.current_player(s) == TERMINAL:
            continue
        for g in (a, b, a, b):
            want = Game.successors(g, s)   # the reference: the rules' moves applied one by one
            got = g.successors(s)
            assert got == want
            got.clear()
            assert g.successors(g.from_key(g.key(s))) == want
            moves, probs, nexts = g.successor_lists(s)
            assert list(zip(moves, probs or [None] * len(moves), nexts)) == want
            nexts.clear()
            moves.clear()
            assert [m[2] for m in g.canonical_successors(s)] == [t for _, _, t in want]
        differ += a.successors(s) != b.successors(s)
    assert differ >= 5   # the memo was asked about states whose moves the two rulings tell apart


def test_the_draw_memo_answers_for_the_state_and_configuration_asked(monkeypatch):
    """``chance_outcomes`` remembers each ★/☠ state's draw: two configurations that differ in the
    draw's weights (P17) and targets (P11), asked in turn about equal states, each get their own
    rules' draw, computed afresh; a caller changing its list changes no later answer; past the
    memo's size it is forgotten and built again, the same."""
    from ruleproof.model.presentes import game as G
    from ruleproof.model.presentes.board import Square
    monkeypatch.setattr(G, "DRAWS_KEPT", 50)
    a = game(rulings={"P17": "one", "P11": "choose"})
    b = game(rulings={"P17": "two", "P11": "random"})
    draws = [s for s in _some_states(a, 3000) if s.phase in (Phase.LUCK, Phase.BAD)]
    assert len(draws) > 100
    differ = 0
    for _ in range(2):
        for s in draws:
            square = Square.LUCK if s.phase == Phase.LUCK else Square.BAD
            for g in (a, b):
                want = R.effect_draw(g.rules, s, square)
                got = g.chance_outcomes(s)
                assert got == want
                got.clear()
                assert g.chance_outcomes(St(*s)) == want
            differ += a.chance_outcomes(s) != b.chance_outcomes(s)
    assert differ >= 10
    assert 0 < len(a._draws) <= 50


def test_the_move_memo_answers_the_rules_move_and_is_dropped_when_moves_seldom_repeat(monkeypatch):
    """``apply`` remembers each (state, move): two configurations whose moves differ (P03), asked
    in turn about the same moves (equal tuples, not the same objects), each get their own rules'
    move, twice; past the memo's size with fewer hits than moves kept (a game sampled, not
    explored), the memo is dropped and the rules' move is computed every time."""
    from ruleproof.model.presentes import game as G
    monkeypatch.setattr(G, "MOVES_KEPT", 4000)
    a = game(rulings={"P02": "swap-both"})
    b = game(rulings={"P02": "gift-only"})
    moves = [(s, m) for s in _some_states(a, 800) for m, _p, _t in a.successors(s)]
    assert 1000 < len(moves) < 4000   # all kept
    differ = 0
    for _ in range(2):        # the second pass hits: the memo stays
        for s, m in moves:
            got = []
            for g in (a, b):
                want = g._apply(s, m)
                assert g.apply(St(*s), m) == want
                got.append(g.apply(s, m))
            differ += got[0] != got[1]
    assert differ >= 2
    assert a._moves is not None and a._move_hits > 0
    c = game()
    fresh = [(s, m) for s in _some_states(c, 3000) for m, _p, _t in c.successors(s)]
    c._moves, c._move_hits = {}, 0   # a fresh memo (listing the moves filled and dropped one)
    for s, m in fresh:        # each move once: no hits
        assert c.apply(s, m) == c._apply(s, m)
    assert len(fresh) > 4000 and c._moves is None
