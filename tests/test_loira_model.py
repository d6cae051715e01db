"""Loira do Banheiro model: components, scripted rounds, hand-computed values, the centre belief."""
from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from ruleproof.model.loira.cards import Kind, standard_deck, standard_stalls
from ruleproof.model.loira.centre import reveal_distribution
from ruleproof.model.loira.exact import solve
from ruleproof.model.loira.scoring import round_winners, score, tie_cards
from ruleproof.model.loira.state import (CROLLS, DIR, END, GO, LOIRA, PHYS, SLOTS, STOP_ACT, SWITCH,
                               YES, End, Phase)
from ruleproof.model.protocol import TERMINAL
from ruleproof.model.ruleset import RulesetError
from test_loira_helpers import game, random_playout, ruleset, script

GRITO, TOC, FIOS, DESC, CHUTE, ESP, INT = (Kind.GRITO, Kind.TOCTOC, Kind.FIOS, Kind.DESCARGA,
                                           Kind.CHUTE, Kind.ESPELHO, Kind.INTERRUPTOR)


def test_standard_deck_matches_the_rulebook():
    # 000 Componentes: 3 Grito, 3 Toc-Toc, 5 specials, 20 bathroom cards (two null) = 31 cards
    four = standard_deck(4, "even", (), 1)
    assert sum(four) == 31 and four[Kind.F0] == four[Kind.P0] == 1 and four[Kind.M0] == 0
    assert sum(four[k] for k in range(9)) == 20
    # 000 NOTA: 2 or 3 players remove the null cards -> 29 cards (the "29 cards")
    assert sum(standard_deck(2, "even", (), 1)) == 29
    assert sum(standard_deck(7, "even", (Kind.RALO,), 2)) == 63
    assert standard_stalls("2-2-3-3-4-4", 7, "cycle") == (2, 2, 3, 3, 4, 4)
    assert standard_stalls("2-2-3-3-4-4", 10, "cycle") == (2, 2, 2, 3, 3, 3, 4, 4, 4)


def test_default_round_setup():
    g = game()
    s = g.initial_state()
    assert g.num_players == 2 and s[PHYS] == s[SLOTS] == 7 and s[CROLLS] == 3
    assert g.legal_actions(s) == [GO, STOP_ACT]
    assert sum(p for _, p in g.chance_outcomes(script(g, [GO]))) == 1


def test_bad_parameters_raise_ruleset_errors():
    with pytest.raises(RulesetError, match="players"):
        ruleset({"players": 11})
    with pytest.raises(RulesetError, match="deck"):
        ruleset({"deck": ["F1", "joker"]})
    with pytest.raises(RulesetError, match="rolls"):
        ruleset({"rolls": [1, 0, 0]})
    with pytest.raises(RulesetError, match="stall_count"):
        ruleset({"stall_count": 9})
    with pytest.raises(RulesetError, match="Professora"):
        ruleset({"expansions": ["professora"]})
    with pytest.raises(RulesetError, match="L04"):
        ruleset(rulings={"L04": "coin-flip"})


def test_hand_computed_single_card():
    # deck [F1], centre = the Loira only. Seat 0 going draws F1; the deck is empty, the round ends
    # (L25) and seat 0 wins 1-0: U = +1. (Stopping lets seat 1 take it: -1.)
    g = game({"deck": ["F1"], "stalls": [], "centre_rolls": 0})
    assert solve(g).value(g.initial_state()) == (1, -1)


def test_hand_computed_grito_with_lone_loira():
    # deck [F1, grito], centre = the Loira only (P(Loira) = 1 at every opening).
    # Seat 0 goes: F1 (1/2) -> seat 1 either draws the Grito and loses to the Loira (seat 0 wins
    # 1-0) or stops, and seat 0 then stops and wins 1-0: +1. Grito (1/2) -> seat 0 meets the Loira
    # with nothing to lose: 0-0, zero cards each, a shared win: 0. Going is worth 1/2.
    # Seat 0 stops: seat 1 draws F1 (1/2) and stops, winning (-1), or the Grito (1/2): 0-0 (0);
    # seat 1 could stop at once (0) but prefers -1/2. Root: max(1/2, -1/2) = 1/2.
    g = game({"deck": ["F1", "grito"], "stalls": [], "centre_rolls": 0})
    sol = solve(g)
    s0 = g.initial_state()
    assert sol.value(s0) == (Fraction(1, 2), Fraction(-1, 2))
    assert dict(sol.action_values(s0))[STOP_ACT][0] == Fraction(-1, 2)


def test_hand_computed_three_stalls():
    # deck [grito], centre {2, 4} + Loira; 2 players, no rolls. Seat 0 going draws the Grito
    # (third Grito not reached; the deck then runs out and the round ends, L25): it opens a
    # 2 (1/3: win), a 4 (1/3: win) or the Loira (1/3: 0-0 shared). U(go) = 2/3.
    # Stopping: seat 1 goes for the same 2/3 against us: -2/3.
    g = game({"deck": ["grito"], "stalls": [2, 4], "centre_rolls": 0})
    assert solve(g).value(g.initial_state())[0] == Fraction(2, 3)


def test_escort_with_a_roll():
    # seat 1 holds one roll; seat 0 draws a Grito; seat 1 may escort, picking after seat 0.
    g = game({"deck": ["grito", "F1"], "stalls": [3, 3], "rolls": [0, 1], "centre_rolls": 0})
    s = script(g, [GO, GRITO])
    assert s[0] == Phase.ESCORT and g.current_player(s) == 1
    s = script(g, [YES], s)
    assert s[0] == Phase.REVEAL and s[CROLLS] == 1 and score(g, s, 1) == 0
    # first pick: a 3 for seat 0 (prob 2/3), then seat 1's pick
    assert dict(g.chance_outcomes(s))[0] == Fraction(2, 3)
    s = script(g, [0], s)
    assert dict(g.chance_outcomes(s)) == {0: Fraction(1, 2), LOIRA: Fraction(1, 2)}
    s1 = script(g, [0], s)
    assert score(g, s1, 0) == 3 and score(g, s1, 1) == 3 and s1[0] == Phase.TURN
    # the Loira on the escort: seat 1 has no pair, loses everything, the round ends
    s2 = script(g, [LOIRA], s)
    assert s2[0] == Phase.END and s2[END] == End.LOIRA and round_winners(g, s2) == [0]


def test_susto_after_escape_and_belief_reset():
    # seat 0 holds F1 F2 (a Feminino pair); seat 1 escorts; seat 0 opens the Loira and escapes:
    # the Loira goes back (P(Loira next) = 1/PHYS), seat 1's pick is not opened (L27), its roll
    # stays spent (L17), and the Grito counts as resolved.
    g = game({"deck": ["F1", "F2", "grito", "M1", "M2"], "stalls": [2, 3, 4], "rolls": [0, 1],
              "centre_rolls": 0})
    s = script(g, [GO, Kind.F1, GO, Kind.M1, GO, Kind.F2, GO, Kind.M2, GO, GRITO, YES, LOIRA])
    assert s[0] == Phase.ESCAPE and g.legal_actions(s) == [0, 1 + 0 * 9 + 1 * 3 + 2]
    t = script(g, [1 + 1 * 3 + 2], s)
    assert t[PHYS] == t[SLOTS] == 4 and t[CROLLS] == 1 and t[2 + 2] == 1  # GRITOS == 1
    assert score(g, t, 0) == 0 and score(g, t, 1) == 3 and t[0] == Phase.END  # deck ran out
    u = script(g, [0], s)
    assert u[END] == End.LOIRA and score(g, u, 0) == 0


def test_toc_toc_steal_and_reversal():
    g = game({"players": 3, "deck": ["toc-toc", "F1", "F2"], "stalls": [2], "rolls": [0, 1, 0],
              "centre_rolls": 0})
    s = script(g, [GO, TOC])
    assert s[0] == Phase.STEAL and g.legal_actions(s) == [1]  # offset 1 = seat 1
    s = script(g, [1], s)
    assert s[DIR] == 1 and s[1] == 2 and score(g, s, 0) == 1  # counter-clockwise: seat 2 next


def test_descarga_fios_and_chute():
    g = game({"deck": ["F2", "descarga", "fios", "chute", "M1"], "stalls": [4], "centre_rolls": 0})
    s = script(g, [GO, Kind.F2, GO, DESC])
    assert g.legal_actions(s) == [1 * 32 + Kind.F2]
    s = script(g, [1 * 32 + Kind.F2], s)
    assert score(g, s, 0) == 0
    # Fios: seat 0 invites seat 1, who opens; a score stall goes to the inviter (L33)
    s = script(g, [GO, FIOS, 1, 0], s)
    assert score(g, s, 0) == 4 and score(g, s, 1) == 0
    s = script(g, [GO, CHUTE], s)  # seat 1 kicks the last card (the Loira): the centre is empty
    assert s[END] == End.EMPTY and g.current_player(s) == TERMINAL and round_winners(g, s) == [0]


def test_interruptor_espelho_and_tie_break():
    g = game({"deck": ["interruptor", "espelho", "F2", "M2", "F1"], "stalls": [3], "centre_rolls": 0})
    s = script(g, [GO, INT, GO, ESP, GO, Kind.F1])
    assert SWITCH not in g.legal_actions(script(g, [GO, INT]))  # seat 1's turn
    s = script(g, [GO, Kind.F2], s)  # seat 1: espelho + F2 -> 2 + copy of 2 = 4
    assert score(g, s, 1) == 4 and score(g, s, 0) == 3 and SWITCH in g.legal_actions(s)
    end = script(g, [SWITCH], s)
    assert end[END] == End.SWITCH and score(g, end, 0) == 1 and round_winners(g, end) == [1]
    # tie-break: 4-4 with seat 0 on one card (F2 doubled by nothing) is not reachable here, so
    # check the ordering function directly: fewer point cards wins (L04/L05)
    from ruleproof.model.loira.scoring import winners_of
    assert winners_of([(4, -2), (4, -1)], [True, True]) == [1]
    assert winners_of([(4, -1), (4, -1), (3, 0)], [True] * 3) == [0, 1]
    assert tie_cards(g, end, 1) == 2


def _brute_next(centre, ops):
    """Brute force over every physical arrangement: the distribution of the next opened card
    after ``ops`` (("kick",), ("open", value), ("escape",)) given the observed values."""
    weights: dict[object, Fraction] = {}
    total = Fraction(0)
    cards = list(centre) + ["L"]
    for perm in itertools.permutations(range(len(cards))):
        # a uniformly random shuffle; kicks take the top card unseen, opens reveal the top card,
        # an escape puts the Loira back at a uniformly random position
        weight_paths = [(Fraction(1), [cards[i] for i in perm])]
        ok = True
        for op in ops:
            new = []
            for w, pile in weight_paths:
                if op[0] == "kick":
                    new.append((w, pile[1:]))
                elif op[0] == "open":
                    if pile and pile[0] == op[1]:
                        new.append((w, pile[1:]))
                else:  # escape: the Loira was just opened; shuffle her back
                    for pos in range(len(pile) + 1):
                        new.append((w / (len(pile) + 1), pile[:pos] + ["L"] + pile[pos:]))
            weight_paths = new
        for w, pile in weight_paths:
            if pile:
                weights[pile[0]] = weights.get(pile[0], 0) + w
                total += w
        del ok
    return {k: v / total for k, v in weights.items()}


@pytest.mark.parametrize("ops", [
    [], [("kick",)], [("kick",), ("open", 3)], [("open", 2), ("kick",), ("kick",)],
    [("open", "L"), ("escape",)], [("open", "L"), ("escape",), ("kick",)],
    [("kick",), ("open", "L"), ("escape",), ("open", 3)],
])
def test_centre_belief_matches_brute_force(ops):
    centre = [2, 3, 3, 4]
    values = sorted(set(centre))
    counts = [centre.count(v) for v in values]
    phys, slots = len(centre) + 1, len(centre) + 1
    for op in ops:  # the model's update rules (model.loira.centre)
        if op[0] == "kick":
            phys -= 1
        elif op[0] == "open" and op[1] != "L":
            counts[values.index(op[1])] -= 1
            phys, slots = phys - 1, slots - 1
        elif op[0] == "open":
            phys -= 1
        else:
            phys += 1
            slots = phys
    model = {("L" if i < 0 else values[i]): p for i, p in reveal_distribution(tuple(counts), slots)}
    assert model == _brute_next(centre, ops)


@pytest.mark.parametrize("players", [2, 3, 4, 6, 10])
def test_random_play_keeps_invariants(players):
    rng = random.Random(players)
    g = game({"players": players})
    ends = set()
    for _ in range(60):
        s, _ = random_playout(g, rng)
        ends.add(s[END])
    assert End.STOPPED in ends


def test_expansions_random_play():
    rng = random.Random(7)
    # all but the Merendeira: with it and 2+ other kinds the model refuses the deck
    # (config.belief_refusal; tests/test_loira_expansions.py)
    names = ["rapagote", "zelador", "diretora", "tia", "aluna", "professora", "ralo"]
    g = game({"players": 4, "expansions": names})
    seen = set()
    for _ in range(150):
        s = g.initial_state()
        while g.current_player(s) != TERMINAL:
            seen.add(s[0])
            if g.current_player(s) < 0:
                outs = g.chance_outcomes(s)
                s = g.apply(s, rng.choices([o for o, _ in outs], [float(p) for _, p in outs])[0])
            else:
                acts = g.legal_actions(s)
                s = g.apply(s, acts[0] if rng.random() < 0.8 else rng.choice(acts))
            for inv in g.invariants():
                assert inv.check(s) is None, (inv.name, inv.check(s))
    assert {Phase.EXPANSION, Phase.ZELADOR, Phase.DIRETORA, Phase.PROFESSORA} & seen


def test_match_carries_rolls_and_ends():
    rng = random.Random(3)
    g = game({"objective": "match", "deck": ["F1", "F2", "toc-toc", "grito"], "stalls": [2]})
    for _ in range(40):
        s, _ = random_playout(g, rng)
        wins = [s[g.o_wins + i] for i in range(2)]
        assert max(wins) == 2
    # a solved match: acyclic, exact
    sol = solve(g)
    v = sol.value(g.initial_state())
    assert v[0] + v[1] == 0 and -1 <= v[0] <= 1


def test_seat_swap_symmetry_preserves_value():
    from ruleproof.model.loira.game import LoiraGame
    g = LoiraGame(game({"deck": ["F1", "M2", "grito", "toc-toc"], "stalls": [2, 3], "rolls": [1, 0],
                        "centre_rolls": 1}).cfg, symmetry=True)
    sol = solve(g)
    s = script(g, [GO, Kind.F1])
    t = g.swap(s)
    assert sol.value(s)[0] == -sol.value(t)[0] or sol.value(s)[0] == sol.value(t)[1]
    assert g.canonicalize(s)[0] == g.canonicalize(t)[0]


def test_optional_reading_of_l29_lets_the_revealer_decline():
    g = game({"deck": ["toc-toc", "chute", "F1"], "stalls": [2], "centre_rolls": 1},
             {"L29": "optional"})
    s = script(g, [GO, TOC])
    assert s[0] == Phase.TOCTOC and g.legal_actions(s) == [0, 1]
    declined = script(g, [0], s)
    assert declined[CROLLS] == 1 and declined[DIR] == 0
    taken = script(g, [1], s)
    assert taken[CROLLS] == 0 and taken[g.o_rolls] == 1 and taken[DIR] == 1
    k = script(g, [GO, CHUTE], taken)
    assert k[0] == Phase.CHUTE and script(g, [0], k)[PHYS] == 2
