"""Presentes proofs bound to the model move by move: every real transition is the bound relation's
step, every chance node the rule text's law, every decision exactly the options the phone offers.

Each mutation below is a rule slip written into ``model.presentes.rules`` (patched for one test):
the proof must turn red with the concrete transition narrated, while the unchanged model keeps
every proof green under every ruling option (``test_every_ruling_option_holds``).
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from ruleproof.model.limits import Limits
from ruleproof.model.presentes import SPEC, rules as R
from ruleproof.model.presentes.shrink import shrink
from ruleproof.model.properties import EXPLORATION, Context
from ruleproof.proofs.presentes import Abstract, dice_law, presentes_proofs, reading
from ruleproof.proofs.refinement import STUTTER, Bound, check_proof
from ruleproof.solver.explore import explore

CHANCE = -1


def _ruleset(players=2, board="mini", rulings=None, **params):
    return SPEC.default().with_overrides({"board": board, "players": players, **params}, rulings or {},
                                         spec=SPEC.schema)


def _proofs(ruleset, first_only=False):
    """Every proof's result (``first_only``: the first, whose mapping pass finds any slip in the
    moves; the others share that pass and add their own invariant)."""
    game = SPEC.build(ruleset)
    ex = explore(game)
    assert ex.complete
    ctx = Context(SPEC, ruleset, game, "test", EXPLORATION, exploration=ex, limits=Limits())
    proofs = presentes_proofs(ruleset, game.board.squares)
    return {p.name: check_proof(p, ctx) for p in proofs[:1 if first_only else None]}


OPTIONS = [(r.id, option) for r in SPEC.schema.rulings for option in r.alternatives]


def _holds_bound(rulings):
    for name, res in _proofs(_ruleset(rulings=rulings)).items():
        assert res.status == "holds" and res.evidence == "proved", (rulings, name, res.detail, res.counterexample)
        ref = res.data["refinement"]
        assert ref["bound"] and ref["chance_law"] and ref["options"]
        assert ref["steps"] > 1000 and ref["chance_nodes"] > 100


@pytest.mark.parametrize("rulings", [{}, {"P02": "gift-only", "P14": "steal", "P18": "eligible", "P05": "printed-order"},
                                     {"P07": "own-leader", "P08": "behind", "P11": "random", "P15": "pick",
                                      "P20": "gift-holder-ahead"}])
def test_every_proof_holds_with_every_move_bound(rulings):
    """Each move bound, each chance node equal to the law, each decision exactly the options."""
    _holds_bound(rulings)


@pytest.mark.slow
@pytest.mark.parametrize("rid, option", OPTIONS)
def test_every_ruling_option_holds_with_every_move_bound(rid, option):
    """verify's small configuration under every alternative reading of the catalog."""
    _holds_bound({rid: option})


def test_p20_tied_leader_with_gift_is_mapped_on_three_seats():
    """P20 'tied-leader-with-gift' (no leader drawn first: Lugar serves when a tied front runner
    holds a targetable gift) differs from the default reading only where front runners tie, which
    two seats never do: the trio board with three."""
    res = _proofs(_ruleset(rulings={"P20": "tied-leader-with-gift"}, board="trio", players=3), first_only=True)
    assert [r.status for r in res.values()] == ["holds"], [(r.detail, r.counterexample) for r in res.values()]


def test_three_seats_host_events_and_two_dice_are_mapped():
    for rs in (_ruleset(3, "tiny", {"P08": "behind", "P11": "random", "P15": "pick"}, host_remove=[[2, 1]],
                        host_skip=[3]),
               _ruleset(2, "mini", {"P16": "first-gift"}, dice=2)):
        for name, res in _proofs(rs).items():
            assert res.ok, (name, res.detail, res.counterexample)


# ---- the binding and the laws, read off the rule text --------------------------------------------------

def test_the_dice_law_is_the_sum_of_fair_dice():
    assert dice_law(1) == {k: Fraction(1, 6) for k in range(1, 7)}
    two = dice_law(2)
    assert two[7] == Fraction(6, 36) and two[2] == two[12] == Fraction(1, 36) and sum(two.values()) == 1


def _abstract(ruleset):
    game = SPEC.build(ruleset)
    return Abstract(reading(ruleset, game.board.squares)), game


def test_moves_are_bound_from_the_state_before_and_the_move():
    ab, game = _abstract(_ruleset())
    s = game.initial_state()
    assert ab.bind(s, (4, 0), CHANCE) == Bound("roll-beats-back", {"r": 4})
    assert ab.bind(s, (2, 0), CHANCE) == Bound("roll-short", {"r": 2})
    luck = s._replace(phase=R.Phase.LUCK, chain=1, pos=(2, 5), gift=(0, 1), tree=0)
    assert ab.bind(luck, (R.Effect.LUGAR, 1), CHANCE) == Bound("lugar", {"b": 1})
    assert ab.bind(luck, (R.Effect.SORRATEIRO, -1), CHANCE) == Bound("sorrateiro-ask")
    assert ab.bind(luck, (R.Effect.NOTHING, 1), CHANCE) == Bound(STUTTER)
    # the previous player is the proof's own reading (P08), not a model function
    bad = luck._replace(phase=R.Phase.BAD, turn=1)
    assert ab.bind(bad, (R.Effect.REV_TROCA, 0), CHANCE) == Bound("revanche-troca", {"b": 0})
    assert ab.bind(luck._replace(phase=R.Phase.REVENGE), 1, 1) == Bound("revanche-take")


def test_the_luck_law_weights_roubo_sorrateiro_twice():
    """P0 on ★ 2 with a gift, P1 two squares ahead with one: Roubo sorrateiro (double weight), logo à
    frente, do mais adiantado, Lugar (P1 leads holding a gift) and Troca de lugar all serve."""
    ab, game = _abstract(_ruleset())
    s = game.initial_state()._replace(phase=R.Phase.LUCK, chain=1, pos=(2, 4), gift=(0, 1), tree=0)
    law = ab.law(ab.abstraction(s))
    sixth = Fraction(1, 6)
    assert law == {Bound("sorrateiro-ask"): 2 * sixth, Bound("frente", {"b": 1}): sixth,
                   Bound("adiantado", {"b": 1}): sixth, Bound("lugar", {"b": 1}): sixth,
                   Bound("troca-ask"): sixth}
    # the model draws exactly that
    model = {ab.bind(s, o, CHANCE): p for o, p in game.chance_outcomes(s)}
    assert model == law


def test_the_options_are_exactly_the_eligible_targets():
    ab, game = _abstract(_ruleset())
    # P0 on 2 to choose Roubo sorrateiro's victim; P1 on the shield (5) cannot be targeted (P19)
    s = game.initial_state()._replace(phase=R.Phase.SNEAK, pos=(2, 5), gift=(0, 1), tree=0)
    assert ab.options(ab.abstraction(s)) == set()
    s = s._replace(pos=(2, 8))
    assert ab.options(ab.abstraction(s)) == {Bound("sorrateiro", {"b": 1})}
    s = s._replace(pos=(1, 8))   # 7 squares away: beyond 'a até 6 casas'
    assert ab.options(ab.abstraction(s)) == set()


# ---- rule slips the proofs must catch ----------------------------------------------------------------

def _patch_effect(monkeypatch, effect, **changes):
    rule = R.EFFECT_BY_ID[effect]
    monkeypatch.setattr(R, "EFFECT_BY_ID", {**R.EFFECT_BY_ID, effect: dataclasses.replace(rule, **changes)})
    monkeypatch.setattr(R, "EFFECTS", tuple(R.EFFECT_BY_ID[e.effect] for e in R.EFFECTS))


def _reach_seven(r, s):
    p = s.pos[s.turn]
    return [i for i in R.holders(r, s) if abs(s.pos[i] - p) <= 7]


def _volte_two(r, s, _arg):
    m = s.turn
    return R.end_turn(r, s._replace(pos=R._set(s.pos, m, max(0, s.pos[m] - (r.back - 1)))))


def _steal_offered_twice(first_gift):
    def broken(r, s):
        return first_gift(r, s._replace(used=0))   # the first-gift choice never used up (P16)
    return broken


def _skip_nearest_in_front(r, s, direction):
    p = s.pos[s.turn]
    cands = [i for i in R.holders(r, s) if (s.pos[i] - p) * direction > 0]
    if len(cands) < 2:
        return cands
    return sorted(cands, key=lambda i: abs(s.pos[i] - p))[1:2]   # the second nearest


def _next_seat_plus_two(end_turn):
    def broken(r, s):
        on = [i for i in range(r.players) if s.pos[i] < r.finish]
        if len(on) <= 1:
            return R.game_over(r, s, on)
        return R.begin_slot(r, s, (s.turn + 2) % r.players, s.slot + 1 if r.slot_cap else 0)
    return broken


def _exact_finish(move):
    def broken(r, s, steps, landing):
        if s.pos[s.turn] + steps > r.finish:   # passing the finish no longer finishes
            return R.end_turn(r, s)
        return move(r, s, steps, landing)
    return broken


def _dice_loaded(r):
    return tuple((t, Fraction(1, 5) if t < 6 else Fraction(0)) for t, _ in r.dice)


MUTANTS = {
    # eligibility: Roubo sorrateiro reaches 7 squares (P06)
    "sneak-reach-7": (lambda mp: mp.setattr(R, "within_range", _reach_seven), {}, "at this chance node"),
    # which outcome triggers what: Volte moves back 2
    "volte-two": (lambda mp: _patch_effect(mp, R.Effect.VOLTE, apply=_volte_two), {}, "does not allow this step"),
    # eligibility: the first-gift choice offered again (P16)
    "first-gift-twice": (lambda mp: mp.setattr(R, "first_gift", _steal_offered_twice(R.first_gift)), {},
                         "does not allow this step"),
    # eligibility: 'logo à frente' skips the nearest holder (P21)
    "frente-skips": (lambda mp: mp.setattr(R, "nearest", _skip_nearest_in_front), {"players": 3, "board": "trio"},
                     "at this chance node"),
    # who acts: the next mover skips a seat
    "next-plus-two": (lambda mp: mp.setattr(R, "end_turn", _next_seat_plus_two(R.end_turn)),
                      {"players": 3, "board": "tiny"}, "does not allow this step"),
    # when a round ends: passing the finish does not finish (P03)
    "exact-finish": (lambda mp: mp.setattr(R, "move", _exact_finish(R.move)), {}, "does not allow this step"),
    # who benefits: the previous player is the next seat (P08)
    "previous-is-next": (lambda mp: mp.setattr(R, "previous_player", lambda r, s: (s.turn + 1) % r.players),
                         {"players": 3, "board": "tiny"}, ""),
}


@pytest.mark.parametrize("what", sorted(MUTANTS))
def test_a_rule_slip_turns_the_proofs_red_with_the_transition_narrated(monkeypatch, what):
    patch, params, says = MUTANTS[what]
    patch(monkeypatch)
    results = _proofs(_ruleset(**params), first_only=True)
    failed = [r for r in results.values() if r.status == "fails"]
    assert failed, what
    res = failed[0]
    assert res.kind == "refinement", (res.detail, res.counterexample)
    text = "\n".join(res.counterexample)
    assert "start:" in text and (says in text), text


def test_a_dice_law_slip_fails_at_the_roll():
    rs = _ruleset()
    game = SPEC.build(rs)
    game.rules = dataclasses.replace(game.rules, dice=_dice_loaded(game.rules))
    ex = explore(game)
    ctx = Context(SPEC, rs, game, "test", EXPLORATION, exploration=ex, limits=Limits())
    res = check_proof(presentes_proofs(rs, game.board.squares)[0], ctx)
    assert res.status == "fails" and "differ from the rules' law" in res.counterexample[-1]
    assert "roll-beats-back(r=6): the model 0, the rules 1/6" in res.counterexample[-1]


def test_shrink_keeps_the_edit_and_labels_each_configuration():
    rs = SPEC.ruleset("presentes-party").with_overrides({"back": 4}, {"P23": "redraw"}, spec=SPEC.schema)
    derived = shrink(rs)
    assert [d.params["players"] for _, d in derived] == [2, 2, 3]
    assert [d.params["board"] for _, d in derived] == ["tiny", "mini", "trio"]
    for label, d in derived:
        assert d.rulings["P23"] == "redraw" and d.params["back"] == 4 and d.params["dice"] == 2
        assert "board" in label and "players" in label and "2 dice" in label


@pytest.mark.parametrize("players, board, rulings", [
    (2, "mini", {}), (3, "tiny", {"P08": "behind", "P11": "random", "P20": "gift-holder-ahead"}),
    (3, "trio", {"P20": "tied-leader-with-gift", "P15": "pick"}), (3, "tiny", {"P05": "printed-order"})])
def test_the_law_kept_by_what_it_reads_is_each_frames_own(players, board, rulings):
    """``Abstract.law`` keeps a law by ``law_key`` (the phase, the tree, the mover, the seats'
    squares and gifts), not by the whole frame: at every chance node of the exploration, asked in
    order, the law handed out is the one ``_law`` computes afresh for that frame -- also for the
    frames that differ from an earlier one only outside the key (first-gift choices, arrivals,
    the chain, the slot), which get the earlier frame's law."""
    rs = _ruleset(players, board, rulings)
    ab, game = _abstract(rs)
    ex = explore(game)
    seen: dict = {}
    shared = 0
    for node in range(ex.num_states):
        s = ex.state(node)
        if game.current_player(s) != CHANCE:
            continue
        f = ab.abstraction(s)
        assert ab.law(f) == ab._law(f), game.describe_state(s)
        key = ab.law_key(f)
        shared += key in seen and seen[key] != f
        seen.setdefault(key, f)
    assert shared > 100   # the key served frames that differ elsewhere


def test_a_step_memo_that_never_serves_is_dropped_and_every_step_still_checked(monkeypatch):
    """The mapping pass remembers the steps that hold only while that serves: Presentes' frames hold
    the whole state, so no step comes twice and after ``STEPS_TRIAL`` of them the memo is dropped;
    every step is then still checked (a step moved one square off is reported, before and after).
    A pass whose steps repeat early keeps its memo."""
    from ruleproof.proofs import refinement as RF
    monkeypatch.setattr(RF, "STEPS_TRIAL", 200)
    rs = _ruleset()
    game = SPEC.build(rs)
    ex = explore(game)
    ctx = Context(SPEC, rs, game, "test", EXPLORATION, exploration=ex, limits=Limits())
    proof = presentes_proofs(rs, game.board.squares)[0]
    steps = []
    for tr in ctx.transitions():
        actor = game.current_player(tr.before)
        steps.append((proof.bind(tr.before, tr.move, actor), actor, proof.abstraction(tr.before),
                      proof.abstraction(tr.after)))
    assert len(steps) > 1000

    def off_by_one(post):
        return {**post, "p0": post["p0"] + 1}
    run = RF._Refinement(proof, game)
    for k, (bound, actor, pre, post) in enumerate(steps):
        if k % 97 == 0 and bound.action != STUTTER:
            assert run.step_problem(bound, actor, pre, off_by_one(post)) is not None
        assert run.step_problem(bound, actor, pre, post) is None
    assert not run.steps_memo and not run.steps_ok
    again = RF._Refinement(proof, game)
    for k, step in enumerate([steps[0]] + steps):
        assert again.step_problem(*step) is None
    assert again.steps_memo and len(again.steps_ok) > 200
    bound, actor, pre, post = next(s for s in steps if s[0].action != STUTTER)
    assert again.step_problem(bound, actor, pre, off_by_one(post)) is not None
