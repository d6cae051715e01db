"""Loira's proofs are bound to the model: a deliberate rule break in ``model/loira`` turns the
affected proof red, with the concrete transition narrated; the unchanged model keeps them green.

Each mutation is one small change of an effect, the scoring, an end trigger or the card flow. The
explorer runs the mutated rules themselves (Loira has no second, batch copy of its rules).
"""
from __future__ import annotations

import ruleproof.model.loira.effects as effects
import ruleproof.model.loira.scoring as scoring
from ruleproof.model.loira import SPEC
from ruleproof.model.loira.config import config_from
from ruleproof.model.loira.game import LoiraGame
from ruleproof.model.loira.state import CROLLS, STOP, TURN
from ruleproof.proofs.loira import (card_conservation, centre_belief, deck_never_empty, loira_proofs,
                          match_termination, roll_conservation, round_termination)
from ruleproof.solver.verify import check_exploration
from ruleproof.proofs.refinement import check_rule_proof
from ruleproof.solver.explore import explore


def _game(deck, cls=LoiraGame, rulings=None, **params):
    rs = SPEC.default().with_overrides({**SPEC.verify_overrides, "deck": deck, **params}, rulings or {},
                                       spec=SPEC.schema)
    return rs, cls(config_from(rs))


def _check(make_proof, deck, cls=LoiraGame, rulings=None, **params):
    _, game = _game(deck, cls, rulings, **params)
    ex = explore(game, check_invariants=False)
    assert ex.complete
    return check_rule_proof(make_proof(game), game, exploration=ex)


def _red(res):
    assert res.status == "fails" and res.kind == "refinement", (res.status, res.detail)
    text = "\n".join(res.counterexample)
    assert "start:" in text and "then:" in text
    return text


SMALL = ("F1", "F2", "grito", "toc-toc", "descarga", "chute")
THREE = ("F1", "F2", "grito", "grito", "grito", "toc-toc")


def test_every_loira_proof_holds_on_the_unchanged_model_with_every_transition_mapped():
    rs, game = _game(THREE, centre_rolls=2)
    ex = explore(game, check_invariants=False)
    for proof in loira_proofs(rs, game):
        res = check_rule_proof(proof, game, exploration=ex)
        assert res.status == "holds" and res.evidence == "proved", (proof.name, res.detail)
        assert res.data["refinement"]["steps"] > 0, proof.name
    names = {p.name for p in loira_proofs(rs, game)}
    assert names == {"card-conservation-inductive", "roll-conservation-inductive", "centre-belief-inductive",
                     "round-termination", "deck-never-empty"}
    # a match under L15 'all-tied-win' adds the match proof; it holds too
    res = _check(match_termination, ("F1", "grito", "toc-toc"), objective="match")
    assert res.status == "holds" and res.data["refinement"]["steps"] > 0, res.detail


# ---- card flow ------------------------------------------------------------------------------------------
class DescargaLosesTheCard(LoiraGame):
    """The flushed card vanishes instead of going to the discard pile."""
    def apply(self, s, a):
        if s[0] == effects.Phase.DESCARGA and a != effects.DECLINE:
            st = list(s)
            offset, slot = divmod(a, 32)
            st[self.h(effects._seat(self, st[TURN], offset), slot)] -= 1
            effects.card_done(self, st)
            return tuple(st)
        return super().apply(s, a)


def test_a_vanishing_card_turns_card_conservation_red():
    text = _red(_check(card_conservation, SMALL, DescargaLosesTheCard))
    assert "then: seat 1: flushes" in text and "invariant fails on the frame [F1]" in text


# ---- rolls ---------------------------------------------------------------------------------------------
class TocTocTakesTwo(LoiraGame):
    """Toc-Toc takes two rolls from the centre (the sum is still conserved: only the relation sees it)."""
    def apply(self, s, a):
        t = super().apply(s, a)
        if s[0] == effects.Phase.DRAW and a == effects.Kind.TOCTOC and s[CROLLS] >= 2:
            st = list(t)
            st[CROLLS] -= 1
            st[self.o_rolls + s[TURN]] += 1
            return tuple(st)
        return t


def test_toc_toc_taking_two_rolls_turns_roll_conservation_red():
    res = _check(roll_conservation, SMALL, TocTocTakesTwo, centre_rolls=2)
    text = _red(res)
    assert "draws toc-toc" in text and "take-from-centre" in text


# ---- the centre ------------------------------------------------------------------------------------------
class ChuteOpensTheBelief(LoiraGame):
    """Chute no Vaso wrongly lowers the belief's slots too (as if a score stall had been seen)."""
    def apply(self, s, a):
        t = super().apply(s, a)
        if s[0] == effects.Phase.DRAW and a == effects.Kind.CHUTE and t[6] < s[6]:
            st = list(t)
            st[7] -= 1   # SLOTS
            return tuple(st)
        return t


def test_a_kick_that_changes_the_belief_turns_centre_belief_red():
    text = _red(_check(centre_belief, SMALL, ChuteOpensTheBelief))
    assert "draws chute" in text


# ---- end triggers ----------------------------------------------------------------------------------------
def test_a_third_grito_that_does_not_end_the_round_turns_deck_never_empty_red(monkeypatch):
    def resolved_without_end(g, st):
        st[effects.GRITOS] += 1
        effects.card_done(g, st)
    monkeypatch.setattr(effects, "_grito_resolved", resolved_without_end)
    text = _red(_check(deck_never_empty, THREE))
    assert "gritos 3" in text


class TocTocWakesEveryone(LoiraGame):
    """Toc-Toc also clears every stop: stopping is no longer for the rest of the round."""
    def apply(self, s, a):
        t = super().apply(s, a)
        if s[0] == effects.Phase.DRAW and a == effects.Kind.TOCTOC and t[STOP]:
            st = list(t)
            st[STOP] = 0
            return tuple(st)
        return t


def test_waking_stopped_players_turns_round_termination_red():
    text = _red(_check(round_termination, SMALL, TocTocWakesEveryone))
    assert "draws toc-toc" in text and "stopped" in text


def test_a_tied_round_that_records_no_win_turns_match_termination_red(monkeypatch):
    real = effects.finish_round

    def no_shared_wins(g, st, reason):
        if g.cfg.objective == "match" and len(scoring.round_winners(g, tuple(st))) > 1:
            g._reset_round(st, (st[effects.FIRST] + 1) % g.num_players)
            return None
        return real(g, st, reason)
    monkeypatch.setattr(effects, "finish_round", no_shared_wins)
    text = _red(_check(match_termination, ("F1", "grito", "toc-toc"), objective="match"))
    assert "next-round" in text


# ---- scoring and the tie-break ----------------------------------------------------------------------------
def _explored(deck, **params):
    rs, game = _game(deck, **params)
    ex = explore(game, check_invariants=False)
    return check_exploration(SPEC, rs, ex, own_only=True)


def test_a_bathroom_card_scoring_one_more_turns_score_bounds_red(monkeypatch):
    real = scoring.score

    def one_more(g, s, seat):
        return real(g, s, seat) + sum(s[g.h(seat, 0) + k] for k in range(9))
    monkeypatch.setattr(scoring, "score", one_more)
    res = _explored(SMALL)["score-bounds (this ruleset)"]
    assert res.status == "fails" and res.kind == "refinement", res.detail
    assert "the model scores" in res.counterexample[-1]


def test_a_reversed_tie_break_turns_the_tie_break_red(monkeypatch):
    def more_cards_win(keys, eligible):
        pool = [(k[0], -k[1]) for k, ok in zip(keys, eligible) if ok]
        best = max(pool)
        return [i for i, (k, ok) in enumerate(zip(keys, eligible)) if ok and (k[0], -k[1]) == best]
    monkeypatch.setattr(scoring, "winners_of", more_cards_win)
    res = _explored(SPEC.verify_overrides["deck"])["tie-break"]
    assert res.status == "fails" and res.kind == "refinement", res.detail
    assert "round over" in "\n".join(res.counterexample)


def test_the_unchanged_scoring_keeps_the_state_checks_green():
    props = _explored(SMALL)
    assert props["score-bounds (this ruleset)"].status == "holds"
    assert props["tie-break"].status == "holds" and props["tie-break"].data["ends"] > 0
