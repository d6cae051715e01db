"""Loira's rules model is bound to the code move by move: a deliberate rule break in ``model/loira``
turns ``loira-table`` red (or the property that states the broken rule), naming the move, the
variables that differ, the chance law or the legal set; the unchanged model keeps everything green.

Each mutation is one small change of an effect, a seat, an end trigger, an eligibility, a chance
weight or a piece of hidden information, written as a subclass or a patched function.
"""
from __future__ import annotations

from fractions import Fraction

import ruleproof.model.loira.dispatch as dispatch
import ruleproof.model.loira.effects as effects
import ruleproof.model.loira.scoring as scoring
from ruleproof.model.loira import SPEC
from ruleproof.model.loira.config import config_from
from ruleproof.model.loira.game import LoiraGame
from ruleproof.model.loira.state import CROLLS, LOIRA, PH, PREV, SLOTS, STOP, TURN, VICTIM, Phase
from ruleproof.model.properties import EXPLORATION, Context
from ruleproof.model.protocol import Game
from ruleproof.proofs.loira import LoiraRules, loira_proofs, properties
from ruleproof.proofs.refinement import check_rule_proof
from ruleproof.solver.explore import explore
from ruleproof.solver.verify import check_exploration

SMALL = ("F1", "F2", "grito", "toc-toc", "descarga", "chute")
THREE = ("F1", "F2", "grito", "grito", "grito", "toc-toc")
FIOS = ("F1", "F2", "grito", "fios", "toc-toc")


def _game(deck, cls=LoiraGame, rulings=None, **params):
    rs = SPEC.default().with_overrides({**SPEC.verify_overrides, "deck": deck, **params}, rulings or {},
                                       spec=SPEC.schema)
    return rs, cls(config_from(rs))


def _table(deck, cls=LoiraGame, rulings=None, **params):
    """The loira-table proof (Z3 and its mapping) on the explored configuration."""
    rs, game = _game(deck, cls, rulings, **params)
    ex = explore(game, check_invariants=False)
    assert ex.complete
    return check_rule_proof(loira_proofs(rs, game)[0], game, exploration=ex)


def _own(deck, cls=LoiraGame, **params):
    """Every Loira property on the explored configuration, by name."""
    rs, game = _game(deck, cls, **params)
    ex = explore(game, check_invariants=False)
    return check_exploration(SPEC, rs, ex, own_only=True)


def _red(res):
    assert res.status == "fails" and res.kind == "refinement", (res.status, res.detail)
    text = "\n".join(res.counterexample)
    assert "start:" in text
    return text


def test_the_unchanged_model_keeps_every_loira_property_green_with_every_move_bound():
    props = _own(THREE, centre_rolls=2)
    assert all(p.status == "holds" for p in props.values()), [(n, p.detail) for n, p in props.items()
                                                               if p.status != "holds"]
    ref = props["loira-table"].data["refinement"]
    assert ref["bound"] and ref["chance_law"] and ref["options"] and ref["steps"] == ref["transitions"] > 0
    assert set(ref["by_action"]) >= {"go", "stop", "draw grito", "reveal the Loira", "escort", "do not escort"}
    assert {"loira-table", "loira-termination", "loira-deck-never-empty", "loira-information", "tie-break",
            "score-bounds (this ruleset)", "fast-engine"} <= set(props)


# ---- who benefits, which outcome triggers what ------------------------------------------------------------
class DescargaLosesTheCard(LoiraGame):
    """The flushed card vanishes instead of going to the discard pile."""
    def apply(self, s, a):
        if s[PH] == Phase.DESCARGA and a != effects.DECLINE:
            st = list(s)
            offset, slot = divmod(a, 32)
            st[self.h(effects._seat(self, st[TURN], offset), slot)] -= 1
            effects.card_done(self, st)
            return tuple(st)
        return super().apply(s, a)


def test_a_vanishing_card_is_narrated_with_the_variable_that_differs():
    text = _red(_table(SMALL, DescargaLosesTheCard))
    assert "flushes" in text and "(the proof's model: flush F" in text
    assert "x1: the model 0, the rules 1" in text or "x2: the model 0, the rules 1" in text


class TocTocTakesTwo(LoiraGame):
    """Toc-Toc takes two rolls from the centre (the sum is conserved: only the move's function sees it)."""
    def apply(self, s, a):
        t = super().apply(s, a)
        if s[PH] == Phase.DRAW and a == effects.Kind.TOCTOC and s[CROLLS] >= 2:
            st = list(t)
            st[CROLLS] -= 1
            st[self.o_rolls + s[TURN]] += 1
            return tuple(st)
        return t


def test_toc_toc_taking_two_rolls_fails_the_rules_model():
    text = _red(_table(SMALL, TocTocTakesTwo, centre_rolls=2))
    assert "draw toc-toc" in text and "crolls: the model 0, the rules 1" in text


class EscortStallToTheOpener(LoiraGame):
    """Who benefits: an escort's stall goes to the opener (L18 ignored)."""
    def __init__(self, cfg):
        super().__init__(cfg)
        self.rulings = dict(cfg.rulings, L18="opener")


def test_an_escort_stall_kept_by_the_wrong_seat_fails():
    text = _red(_table(THREE, EscortStallToTheOpener, centre_rolls=1))
    assert "reveal a" in text and "s0." in text or "s1." in text


# ---- who acts -----------------------------------------------------------------------------------------------
class EscapeByTheTurnSeat(LoiraGame):
    """The turn seat, not the Loira's victim, decides the escape."""
    def current_player(self, s):
        return s[TURN] if s[PH] == Phase.ESCAPE else super().current_player(s)


def test_the_wrong_seat_deciding_an_escape_fails():
    text = _red(_table(FIOS + ("M1",), EscapeByTheTurnSeat))
    assert "mover: the model" in text or "not allowed here" in text


class TocTocWakesEveryone(LoiraGame):
    """Toc-Toc also clears every stop: stopping is no longer for the rest of the round."""
    def apply(self, s, a):
        t = super().apply(s, a)
        if s[PH] == Phase.DRAW and a == effects.Kind.TOCTOC and t[STOP]:
            st = list(t)
            st[STOP] = 0
            return tuple(st)
        return t


def test_waking_stopped_players_fails():
    text = _red(_table(SMALL, TocTocWakesEveryone))
    assert "draw toc-toc" in text and "st0: the model 0, the rules 1" in text or "st1: the model 0" in text


# ---- when a round ends -------------------------------------------------------------------------------------
def test_a_third_grito_that_does_not_end_the_round_fails(monkeypatch):
    def resolved_without_end(g, st):
        st[effects.GRITOS] += 1
        effects.card_done(g, st)
    monkeypatch.setattr(effects, "_grito_resolved", resolved_without_end)
    text = _red(_table(THREE))
    assert "ph: the model" in text and "the rules 8" in text   # 8: the round over (Phase.END)


def test_a_tied_round_that_records_no_win_fails_the_match(monkeypatch):
    real = effects.finish_round

    def no_shared_wins(g, st, reason):
        if g.cfg.objective == "match" and len(scoring.round_winners(g, tuple(st))) > 1:
            g._reset_round(st, (st[effects.FIRST] + 1) % g.num_players)
            return None
        return real(g, st, reason)
    monkeypatch.setattr(effects, "finish_round", no_shared_wins)
    text = _red(_table(("F1", "grito", "toc-toc"), objective="match"))
    assert "w0: the model 0, the rules 1" in text or "w1: the model 0, the rules 1" in text


# ---- eligibility: the legal sets ------------------------------------------------------------------------------
def test_a_stopped_seat_offered_as_an_invitee_fails_the_legal_set(monkeypatch):
    anyone = lambda g, st, seat: [t for t in range(g.num_players) if t != seat]  # noqa: E731
    monkeypatch.setattr(effects, "_targets", anyone)
    monkeypatch.setattr(dispatch, "_targets", anyone)   # the legal moves' copy of the name
    # with a third, active seat the Fios is played; the stopped seat is then offered among the invitees
    text = _red(_table(("F1", "grito", "fios", "toc-toc"), players=3, rolls=[0, 0, 1], centre_rolls=0))
    assert ("legal moves differ from those the rules allow" in text and "offered but not allowed" in text) or \
        "ph: the model 4, the rules" in text   # (or the Fios played with nobody to invite)


# ---- chance weights ------------------------------------------------------------------------------------------
class GenericSuccessors(LoiraGame):
    """A game whose chance outcomes a test changes: its moves through the protocol's generic
    successors, not the batch copy that reads the unchanged distribution."""
    def successors(self, s):
        return Game.successors(self, s)

    def successor_lists(self, s):
        return Game.successor_lists(self, s)


class UniformDraw(GenericSuccessors):
    """The top card drawn uniformly over the kinds left, not by their counts."""
    def chance_outcomes(self, s):
        if s[PH] == Phase.DRAW:
            kinds = [k for k, c in zip(self.kinds, s[self.deck_slice]) if c]
            return tuple((k, Fraction(1, len(kinds))) for k in kinds)
        return super().chance_outcomes(s)


def test_a_uniform_draw_fails_the_chance_law_outcome_by_outcome():
    text = _red(_table(("F1", "F1", "grito", "toc-toc"), UniformDraw))
    assert "the chance outcomes' probabilities differ from the rules' law" in text
    assert "draw F1(): the model 1/3, the rules 1/2" in text


class LoiraOddsFromTheUnopened(GenericSuccessors):
    """P(Loira next) = 1/(unopened stalls + 1), forgetting that an escape put her back for sure (after a
    kick the centre then holds fewer cards than that)."""
    def chance_outcomes(self, s):
        if s[PH] == Phase.REVEAL:
            counts = self.centre_counts(s)
            m, loira = sum(counts), Fraction(1, sum(counts) + 1)
            return tuple([(i, (1 - loira) * Fraction(c, m)) for i, c in enumerate(counts) if c] + [(LOIRA, loira)])
        return super().chance_outcomes(s)


def test_the_loira_odds_after_a_kick_and_an_escape_fail_the_chance_law():
    # the companion "the other base cards": a stall kicked unseen, an escape, then a second Grito
    text = _red(_table(("F-", "F2", "grito", "grito", "interruptor", "chute", "espelho"), LoiraOddsFromTheUnopened,
                       stalls=[3], rolls=[1, 0], centre_rolls=0))
    assert "the chance outcomes' probabilities differ from the rules' law" in text
    assert "escapes" in text


class StallValuesUniform(GenericSuccessors):
    """A face-down stall's value drawn uniformly over the values left, not by their counts."""
    def chance_outcomes(self, s):
        if s[PH] == Phase.REVEAL:
            counts = self.centre_counts(s)
            loira = Fraction(1, s[SLOTS])
            left = [i for i, c in enumerate(counts) if c]
            return tuple([(i, (1 - loira) / len(left)) for i in left] + [(LOIRA, loira)])
        return super().chance_outcomes(s)


def test_stall_values_drawn_uniformly_fail_the_chance_law():
    # two 4-point stalls and one 2-point (the companion "a match" has them): 2/3 against 1/3, not 1/2
    text = _red(_table(("F1", "grito", "toc-toc"), StallValuesUniform, stalls=[2, 4, 4]))
    assert "the chance outcomes' probabilities differ from the rules' law" in text


# ---- hidden information ------------------------------------------------------------------------------------
class KickedCardRemembered(LoiraGame):
    """Chute no Vaso's card is remembered where no rule keeps it (the bookkeeping field PREV):
    whether the kicked card was the Loira, which nobody saw."""
    def apply(self, s, a):
        t = super().apply(s, a)
        if s[PH] == Phase.DRAW and a == effects.Kind.CHUTE and t[PH] == Phase.TURN:
            st = list(t)
            st[PREV] = 1 if s[SLOTS] == s[6] else 0   # (as if the card's identity were known)
            return tuple(st)
        return t


def test_a_remembered_kick_fails_the_information_property():
    props = _own(("F1", "grito", "chute", "chute"), KickedCardRemembered)
    res = props["loira-information"]
    assert res.status == "fails", res.detail
    assert "observations differ" in "\n".join(res.counterexample)


# ---- the end of a round: who won ----------------------------------------------------------------------------
def test_a_reversed_tie_break_fails_at_the_end_of_round(monkeypatch):
    def more_cards_win(keys, eligible):
        pool = [(k[0], -k[1]) for k, ok in zip(keys, eligible) if ok]
        best = max(pool)
        return [i for i, (k, ok) in enumerate(zip(keys, eligible)) if ok and (k[0], -k[1]) == best]
    monkeypatch.setattr(scoring, "winners_of", more_cards_win)
    props = _own(SPEC.verify_overrides["deck"])
    text = _red(props["loira-table"])
    assert "u0: the model" in text and "round over" in text
    assert props["tie-break"].status == "fails"


def test_a_bathroom_card_scoring_one_more_turns_score_bounds_red(monkeypatch):
    real = scoring.score

    def one_more(g, s, seat):
        return real(g, s, seat) + sum(s[g.h(seat, 0) + k] for k in range(9))
    monkeypatch.setattr(scoring, "score", one_more)
    res = _own(SMALL)["score-bounds (this ruleset)"]
    assert res.status == "fails" and res.kind == "refinement", res.detail
    assert "the model scores" in res.counterexample[-1]


def test_the_rules_model_reads_the_model_only_through_its_record():
    """The abstraction reads the state record's fields by name; ``mover`` and ``u`` are the model's
    own ``current_player`` and ``returns`` (so a slip there is seen)."""
    rs, game = _game(SMALL)
    rules = LoiraRules(game)
    f = rules.read(game.initial_state())
    assert f["mover"] == 0 and f["ph"] == Phase.TURN and f["d9"] == 1 and all(f[x] == 0 for x in rules.U)
    assert set(f) == set(rules.names)
    ctx = Context(SPEC, rs, game, "x", EXPLORATION, exploration=explore(game))
    names = [p.name for p in properties(rs, game)]
    # the claims come last (the longest, they get what verify's time budget has left), then the
    # tie-break that reads their mapping
    assert names[-3:] == ["loira-table", "loira-termination", "tie-break"]
    assert ctx.exploration.complete and VICTIM


# ---- a fast copy that drifts ---------------------------------------------------------------------------------
def test_a_lenient_invariant_screen_fails_invariant_screens(monkeypatch):
    import numpy as np
    import ruleproof.model.loira.invariants as invariants
    real = invariants._row_screens

    def lenient(*args):
        out = real(*args)
        out["rolls"] = lambda rows: np.ones(len(rows), bool)   # vouches for every state
        return out
    monkeypatch.setattr(invariants, "_row_screens", lenient)
    res = _own(SMALL)["invariant-screens"]
    assert res.status == "fails" and "a screen of roll-conservation disagrees" in res.detail
    assert "the row screen vouches for it" in res.counterexample[-1]


# ---- the match's end: who won (the old exit accepted any ending) -------------------------------------------------
class MatchWonByTheOther(LoiraGame):
    """The match's winner is paid as if the other seat had won."""
    def returns(self, s):
        ret = super().returns(s)
        return tuple(reversed(ret)) if self.cfg.objective == "match" else ret


def test_a_match_paid_to_the_wrong_seat_fails():
    text = _red(_table(("F1", "grito", "toc-toc"), MatchWonByTheOther, objective="match"))
    assert "u0: the model" in text and "the rules" in text and "round wins" in text
