"""Mini-expansion cards (000 "Mini-expansÕES"), scripted one by one."""
from __future__ import annotations

from fractions import Fraction

from ruleproof.model.loira.cards import Kind
from ruleproof.model.loira.scoring import score
from ruleproof.model.loira.state import (CROLLS, END, GO, LOIRA, NO, OPEN_ASIDE, PHYS, RALO_PASS, TURN, YES,
                               End, Phase)
from test_loira_helpers import game, script


def _deck_count(g, s):
    return sum(s[g.o_deck:g.o_deck + len(g.kinds)])


def test_aluna_opens_two_stalls_and_set_aside_rule():
    g = game({"deck": ["aluna", "F1", "M1"], "stalls": [3], "centre_rolls": 0})
    s = script(g, [GO, Kind.ALUNA])
    assert s[0] == Phase.EXPANSION and g.legal_actions(s) == [NO, YES]
    opened = script(g, [YES], s)
    assert dict(g.chance_outcomes(opened)) == {0: Fraction(1, 2), LOIRA: Fraction(1, 2)}
    after = script(g, [0], opened)          # a 3 first; the second pick must be the Loira
    assert dict(g.chance_outcomes(after)) == {LOIRA: 1}
    end = script(g, [LOIRA], after)
    assert end[END] == End.LOIRA and score(g, end, 0) == 0
    # set aside: the next card is drawn instead; the next player may open the set-aside Aluna
    aside = script(g, [NO, Kind.F1], s)
    assert aside[TURN] == 1 and OPEN_ASIDE + Kind.ALUNA in g.legal_actions(aside)


def test_tia_da_limpeza_takes_two_rolls():
    g = game({"deck": ["tia", "F1"], "stalls": [2], "rolls": [0, 1], "centre_rolls": 1})
    s = script(g, [GO, Kind.TIA, YES])
    assert s[0] == Phase.STEAL and g.legal_actions(s) == [1] and s[CROLLS] == 0
    s = script(g, [1], s)
    assert s[g.o_rolls] == 2 and s[g.o_rolls + 1] == 0


def test_zelador_every_exposed_player_discards():
    g = game({"players": 3, "deck": ["F1", "F2", "zelador", "M1"], "stalls": [2], "centre_rolls": 0})
    s = script(g, [GO, Kind.F1, GO, Kind.F2, GO, Kind.ZELADOR, YES])
    # from the revealer (seat 2, nothing to discard) in play order: seat 0, then seat 1
    assert s[0] == Phase.ZELADOR and g.current_player(s) == 0 and g.legal_actions(s) == [Kind.F1]
    s = script(g, [Kind.F1], s)
    assert g.current_player(s) == 1 and g.legal_actions(s) == [Kind.F2]
    s = script(g, [Kind.F2], s)
    assert s[0] == Phase.TURN and all(score(g, s, i) == 0 for i in range(3))


def test_ralo_protects_costs_two_and_can_be_passed():
    g = game({"players": 3, "deck": ["ralo", "fios", "F1", "M1"], "stalls": [2, 3], "centre_rolls": 0})
    s = script(g, [GO, Kind.RALO, YES])
    assert score(g, s, 0) == -2
    s = script(g, [GO, Kind.FIOS], s)       # seat 1 may not invite the Ralo holder (seat 0)
    assert s[0] == Phase.FIOS and g.legal_actions(s) == [1]   # offset 1 = seat 2 only
    s = script(g, [1, 0], s)                # seat 2 opens a 2 for seat 1 (L33)
    s = script(g, [GO, Kind.F1], s)         # seat 2's turn
    assert s[TURN] == 0 and {RALO_PASS + 1, RALO_PASS + 2} <= set(g.legal_actions(s))
    s = script(g, [RALO_PASS + 2], s)       # to seat 2, then seat 0 still decides
    assert s[0] == Phase.TURN and score(g, s, 0) == 0 and score(g, s, 2) == 1 - 2


def test_merendeira_reshuffles_the_discard_and_redraws():
    g = game({"deck": ["toc-toc", "merendeira", "F1"], "stalls": [2], "centre_rolls": 1})
    s = script(g, [GO, Kind.TOCTOC, GO, Kind.MERENDEIRA, YES])
    assert s[0] == Phase.DRAW and s[TURN] == 1 and _deck_count(g, s) == 2
    assert s[g.disc_index(Kind.MERENDEIRA)] == 1 and s[g.disc_index(Kind.TOCTOC)] == 0


def test_rapagote_revealer_and_indicated_player_open():
    g = game({"deck": ["rapagote", "F1"], "stalls": [2, 3], "centre_rolls": 0})
    s = script(g, [GO, Kind.RAPAGOTE, YES])
    assert s[0] == Phase.RAPAGOTE and g.legal_actions(s) == [1]
    s = script(g, [1, 0, 1], s)             # seat 0 opens the 2, seat 1 the 3
    assert score(g, s, 0) == 2 and score(g, s, 1) == 3 and s[PHYS] == 1


def test_diretora_with_too_few_stalls_and_professora():
    g = game({"players": 3, "deck": ["diretora", "professora", "F1"], "stalls": [2], "centre_rolls": 0})
    s = script(g, [GO, Kind.DIRETORA, YES])
    # 2 cards in the centre for 3 players: the revealer picks two openers (offset bit masks)
    assert s[0] == Phase.DIRETORA and g.legal_actions(s) == [0b011, 0b101, 0b110]
    p = script(g, [GO, Kind.PROFESSORA, YES])
    assert p[0] == Phase.PROFESSORA and g.legal_actions(p) == [1 * 16 + 2, 2 * 16 + 1]
    p = script(g, [2 * 16 + 1, 0], p)       # seat 2 opens first: the 2-point stall
    assert score(g, p, 2) == 2


def test_verify_companions_hold_mini_expansion_cards_one_kind_each():
    """The companions with mini-expansion cards: one kind per deck (a closed card's kind is then
    known to all, so loira-information can hold), and each reaches its card's decisions: setting a
    card aside, opening it from aside, and the card's own choice."""
    from ruleproof.model.loira import SPEC
    from ruleproof.model.loira.cards import EXPANSION_KINDS
    from ruleproof.model.loira.shrink import companions
    from ruleproof.model.loira.state import PH, Phase
    from test_loira_helpers import ruleset
    own = {"zelador": Phase.ZELADOR, "rapagote": Phase.RAPAGOTE, "tia": Phase.STEAL, "diretora": Phase.DIRETORA}
    seen_kinds = set()
    for d in companions(ruleset(dict(SPEC.verify_overrides))):
        g = SPEC.build(d.ruleset)
        kinds = [k for k in EXPANSION_KINDS if g.cfg.deck[k]]
        if not kinds:
            continue
        assert len(kinds) == 1, d.label
        name = {v: k for k, v in Kind.__members__.items()}[kinds[0]].lower()
        seen_kinds.add(name)
        states = _reachable(g)
        assert {Phase.EXPANSION, own.get(name, Phase.EXPANSION)} <= {s[PH] for s in states}, d.label
        assert any(s[PH] == Phase.TURN and s[g.o_aside + EXPANSION_KINDS.index(kinds[0])] for s in states)
    assert set(own) <= seen_kinds
    assert seen_kinds == set(own) | {"ralo", "aluna", "merendeira", "professora"}


def test_the_companions_of_the_other_expansion_cards_reach_each_card_s_effect():
    """Each companion added at stop 30 reaches what its card does: the Ralo passed on (L20), the
    Aluna's two stalls queued for one revealer, the Merendeira's reshuffle putting the discard back
    into the deck, the Professora's choice of two other players (3 players)."""
    from ruleproof.model.loira import SPEC
    from ruleproof.model.loira.shrink import companions
    from ruleproof.model.loira.state import PH, QN, RALO_PASS, Phase
    from test_loira_helpers import ruleset
    by_label = {d.label: SPEC.build(d.ruleset) for d in companions(ruleset(dict(SPEC.verify_overrides)))}

    def moves(g):
        for s in _reachable(g):
            if not g.is_terminal(s):
                for a, _, t in g.successors(s):
                    yield s, a, t

    g = by_label["two Ralos and a Descarga"]
    assert any(s[PH] == Phase.TURN and a is not None and a >= RALO_PASS for s, a, _ in moves(g))
    g = by_label["two Alunas"]
    assert any(s[QN] == 2 and s[PH] in (Phase.REVEAL, Phase.ESCORT) for s in _reachable(g))
    g = by_label["two Merendeiras"]
    assert any(sum(t[g.deck_slice]) > sum(s[g.deck_slice]) for s, _, t in moves(g))   # the reshuffle
    g = by_label["3 players and two Professoras"]
    assert any(s[PH] == Phase.PROFESSORA for s in _reachable(g))


def _reachable(g):
    seen, stack = {g.initial_state()}, [g.initial_state()]
    while stack:
        s = stack.pop()
        if g.is_terminal(s):
            continue
        for _, _, t in g.successors(s):
            if t not in seen:
                seen.add(t)
                stack.append(t)
    return seen
