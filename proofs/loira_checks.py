"""Loira's state checks and what ``verify`` calls besides the rule proofs of :mod:`proofs.loira`.

* ``score-bounds (this ruleset)`` -- a Z3 optimum over a holding abstraction, the abstraction
  checked against every seat of every explored (or sampled) state, the real score equal to its;
* ``tie-break`` -- the specification of 000 "Fim da Rodada" (Z3: always a winner, winners share
  one best pair), evaluated with ``proofs.logic`` at every end of round against
  ``scoring.round_winners``;
* ``deck-never-empty`` with fewer than 3 Gritos -- the explorer's shortest play that empties the
  deck, or at full size a directed search;
* ``round-termination`` under L25 ``reshuffle`` and ``match-termination`` under L15 ``replay`` --
  a reachable cycle (shortest lasso) or an acyclic graph;
* ``L04-readings-part``, and ``shrink``: smaller configurations that keep a ruleset's edit.
"""
from __future__ import annotations

import dataclasses
import time
from fractions import Fraction
from typing import Any

from ruleproof.model.loira.bounds import opening_capacity, score_bounds as closed_bounds
from ruleproof.model.loira.cards import EXPANSION_KINDS, TOKENS, Kind, parse_token
from ruleproof.model.loira.config import Config, config_from
from ruleproof.model.loira.state import END, PH, VICTIM, End, LOIRA, Phase
from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.ruleset import Ruleset
from ruleproof.proofs.harness import optimize_bound, prove
from ruleproof.proofs.logic import And, If, Implies, Or, Sum
from ruleproof.proofs.loira import GRITO_END, _ints, deck_never_empty
from ruleproof.model.sampling import narrate_play
from ruleproof.model.limits import NO_LIMITS, Limits
from ruleproof.model.properties import EXPLORATION, NOTHING, SAMPLES, Context, Derived, Property
from ruleproof.model.results import FAILS, HOLDS, UNKNOWN, PropertyResult


# ---- score bounds: a Z3 optimum over a holding abstraction checked on every state -----------------------
def _holding_names(cfg: Config) -> list[str]:
    names = [f"bath{k}" for k in range(9) if cfg.deck[k]] + [f"stall{v}" for v in cfg.stalls]
    return names + ["espelho", "copy", "interruptor", "ralo", "rolls", "openings"]


def holding(game, s, seat: int) -> dict[str, int]:
    """One seat's holding as the score proof reads it (``copy``: what its Espelho copies, L12)."""
    from ruleproof.model.loira.scoring import espelho_value
    cfg, hand = game.cfg, game.hand(s, seat)
    f = {f"bath{k}": hand[k] for k in range(9) if cfg.deck[k]}
    f.update({f"stall{v}": hand[game.h_stall + i] for i, v in enumerate(cfg.stalls)})
    f.update(espelho=hand[game.h_esp], copy=espelho_value(game, s), interruptor=hand[game.h_int],
             ralo=hand[game.h_ralo], rolls=s[game.o_rolls + seat], openings=opening_capacity(cfg))
    return f


def holding_constraints(cfg: Config):
    """What a reachable holding satisfies: each card at most as often as the deck has it; stalls
    won at most one per opening the seat can take part in (``bounds.opening_capacity``); the
    Espelho copies a value somebody can hold."""
    deck = cfg.deck

    def constraints(f):
        cs = [And(f[f"bath{k}"] >= 0, f[f"bath{k}"] <= deck[k]) for k in range(9) if deck[k]]
        cs += [And(f[f"stall{v}"] >= 0, f[f"stall{v}"] <= c) for v, c in zip(cfg.stalls, cfg.stall_counts)]
        cs.append(f["openings"] == opening_capacity(cfg))
        cs.append(Sum([f[f"stall{v}"] for v in cfg.stalls] + [0]) <= f["openings"])
        cs += [And(f[x] >= 0, f[x] <= deck[k]) for x, k in (("espelho", Kind.ESPELHO),
                                                             ("interruptor", Kind.INTERRUPTOR), ("ralo", Kind.RALO))]
        cs.append(And(f["rolls"] >= 0, f["rolls"] <= cfg.total_rolls))
        copyable = [0] + [k % 3 for k in range(9) if deck[k]]
        if cfg.rulings["L12"] == "any-point-card":
            copyable += [If(f["openings"] > 0, v, 0) for v in cfg.stalls]
        cs.append(Or([f["copy"] == c for c in copyable]))
        return And(cs)
    return constraints


def score_expr(cfg: Config):
    """000 Fim da Rodada: bathroom values + stalls + Espelho + 2 per Interruptor + rolls - 2 per Ralo."""
    def score(f):
        return Sum([(k % 3) * f[f"bath{k}"] for k in range(9) if cfg.deck[k]]
                   + [v * f[f"stall{v}"] for v in cfg.stalls]
                   + [f["espelho"] * f["copy"], 2 * f["interruptor"], f["rolls"], -2 * f["ralo"]])
    return score


def score_bounds_opt(cfg: Config, name: str, limits: Limits = NO_LIMITS):
    """(result, lo, hi): the Z3 optimum of the score over the holding constraints, compared with
    the closed form of ``model.loira.bounds`` that the score-bounds invariant uses."""
    res, lo, hi, witnesses = optimize_bound(name, _ints(_holding_names(cfg)), score_expr(cfg),
                                            holding_constraints(cfg), limits=limits)
    if res.status != HOLDS:
        return res, None, None
    closed = closed_bounds(cfg)
    if (lo, hi) != closed:
        return PropertyResult(name, FAILS, f"Z3 optimum [{lo}, {hi}] differs from the closed form {list(closed)}",
                              witnesses.get("max"), "z3", res.seconds), lo, hi
    res.data.update(witness_max=witnesses.get("max"))
    return res, lo, hi


def score_bounds(game, states, how: str, limits: Limits = NO_LIMITS, sampled: bool = False) -> PropertyResult:
    """The Z3 optimum over the abstraction, and the abstraction checked on every seat of every
    state given: its constraints hold and the real ``scoring.score`` equals the abstraction's."""
    from ruleproof.model.loira.scoring import espelho_value, score
    name = "score-bounds (this ruleset)"
    cfg = game.cfg
    res, lo, hi = score_bounds_opt(cfg, name, limits)
    if res.status != HOLDS:
        return res
    start = time.perf_counter()
    constraints, expr = holding_constraints(cfg), score_expr(cfg)
    seen_lo = seen_hi = 0
    count = 0
    good: set = set()   # holdings already checked (most states share them)
    for count, (s, narrate) in enumerate(states, 1):
        if count & 1023 == 0 and limits.expired():
            return PropertyResult(name, UNKNOWN, f"Z3 optimum [{lo}, {hi}]; the abstraction check stopped "
                                  f"after {count:,} states (time limit)", kind="z3", scope=how)
        for seat in range(game.num_players):
            hand = game.hand(s, seat)
            key = (hand, s[game.o_rolls + seat], espelho_value(game, s) if hand[game.h_esp] else -1)
            if key in good:
                continue
            f = holding(game, s, seat)
            real = score(game, s, seat)
            if not constraints(f) or expr(f) != real:
                why = ("the holding leaves the proof's constraints" if not constraints(f) else
                       f"the model scores {real}, the proof's score expression {expr(f)}")
                return PropertyResult(name, FAILS, "the score proof's holding abstraction does not describe "
                                      "the model", narrate() + [f"seat {seat}: " + ", ".join(f"{k}={v}" for k, v in f.items()),
                                                                why], "refinement", time.perf_counter() - start,
                                      scope=how)
            good.add(key)
            seen_lo, seen_hi = min(seen_lo, real), max(seen_hi, real)   # each holding once
    return PropertyResult(name, HOLDS,
                          f"tightest round score of one seat over the holding abstraction: [{lo}, {hi}] (Z3 "
                          f"optimum = the closed form the score-bounds invariant uses; stalls winnable: "
                          f"{opening_capacity(cfg)}); abstraction and score checked on every seat of "
                          f"{count:,} states, reachable scores [{seen_lo}, {seen_hi}]"
                          + (" -- sampled, not a proof" if sampled else ""),
                          kind="sampled" if sampled else "z3", seconds=res.seconds + time.perf_counter() - start,
                          data={"min": lo, "max": hi, "reachable_min": seen_lo, "reachable_max": seen_hi},
                          scope=how)


# ---- the tie-break: the rule text's specification, evaluated at every end of round -------------------------
def _better_or_equal(f, i, j):
    return Or(f[f"score{i}"] > f[f"score{j}"],
              And(f[f"score{i}"] == f[f"score{j}"], f[f"cards{i}"] <= f[f"cards{j}"]))


def winner_spec(n: int):
    """000 Fim da Rodada: the most points wins; a tie goes to fewer point cards (L04); still tied,
    the seats share the win. L28 may bar the Loira's victim (elig)."""
    def spec(f):
        return And([f[f"win{i}"] == And(f[f"elig{i}"] == 1,
                                        And([Implies(f[f"elig{j}"] == 1, _better_or_equal(f, i, j))
                                             for j in range(n)]))
                    for i in range(n)])
    return spec


def tie_cards_spec(cfg: Config, f: dict[str, int]) -> int:
    """The cards the tie-break counts, read from the rulings' text (L04, L05) on a holding."""
    bath = sum(f[f"bath{k}"] for k in range(9) if cfg.deck[k])
    if cfg.rulings["L04"] == "bathroom-cards":
        return bath
    if cfg.rulings["L05"] == "no-nulls":
        bath -= sum(f.get(f"bath{k}", 0) for k in (0, 3, 6))
    extra = f["interruptor"] if cfg.rulings["L05"] == "with-interruptor" else 0
    return bath + sum(f[f"stall{v}"] for v in cfg.stalls) + f["espelho"] + extra


def tie_frame(game, s) -> dict[str, int]:
    from ruleproof.model.loira.scoring import round_winners
    cfg, n = game.cfg, game.num_players
    winners = round_winners(game, s)
    barred = s[VICTIM] if cfg.rulings["L28"] == "no" and s[END] == End.LOIRA else -1
    f = {}
    for i in range(n):
        h = holding(game, s, i)
        f.update({f"score{i}": score_expr(cfg)(h), f"cards{i}": tie_cards_spec(cfg, h),
                  f"elig{i}": int(i != barred), f"win{i}": int(i in winners)})
    return f


def tie_break(game, states, how: str, limits: Limits = NO_LIMITS, sampled: bool = False) -> PropertyResult:
    """Z3: the specification always names a winner and winners share one best pair; the mapping:
    at every end of round given, ``scoring.round_winners`` picks exactly the specification's winners."""
    n = game.num_players
    names = [f"{x}{i}" for i in range(n) for x in ("score", "cards", "elig", "win")]
    frame, spec = _ints(names), winner_spec(n)

    def typing(f):
        return And(spec(f), [Or(f[f"{x}{i}"] == 0, f[f"{x}{i}"] == 1) for i in range(n) for x in ("elig", "win")],
                   [f[f"cards{i}"] >= 0 for i in range(n)], Sum([f[f"elig{i}"] for i in range(n)]) >= n - 1)
    start = time.perf_counter()
    for claim, what in ((lambda f: Or([f[f"win{i}"] == 1 for i in range(n)]), "some seat always wins"),
                        (lambda f: And([Implies(And(f[f"win{i}"] == 1, f[f"win{j}"] == 1),
                                                And(f[f"score{i}"] == f[f"score{j}"], f[f"cards{i}"] == f[f"cards{j}"]))
                                        for i in range(n) for j in range(n)]), "winners share one best pair")):
        res = prove("tie-break", frame, claim, typing, limits=limits)
        if res.status != HOLDS:
            res.detail = f"the specification: {what}: {res.detail}"
            return res
    ends = 0
    good: set = set()   # ends already checked: what the scores and winners depend on
    for count, (s, narrate) in enumerate(states, 1):
        if count & 1023 == 0 and limits.expired():
            return PropertyResult("tie-break", UNKNOWN, f"the specification holds (Z3); the check at the ends "
                                  f"of round stopped after {ends:,} ends (time limit)", kind="z3", scope=how)
        if s[PH] != Phase.END:
            continue
        ends += 1
        key = (s[game.o_hand:], s[game.o_rolls:game.o_rolls + n], s[END], s[VICTIM])
        if key in good:
            continue
        good.add(key)
        f = tie_frame(game, s)
        if not spec(f):
            return PropertyResult("tie-break", FAILS, "the model's winners differ from the rule text's",
                                  narrate() + ["frame: " + ", ".join(f"{k}={v}" for k, v in f.items())],
                                  "refinement", time.perf_counter() - start, scope=how)
    return PropertyResult("tie-break", HOLDS,
                          f"the specification of 000 (most points, then fewer cards by L04 "
                          f"'{game.cfg.rulings['L04']}', else a shared win) always names a winner and its "
                          f"winners share one best pair (Z3, {n} seats); round_winners equals it at every one "
                          f"of {ends:,} ends of round" + (" -- sampled, not a proof" if sampled else ""),
                          kind="sampled" if sampled else "z3", seconds=time.perf_counter() - start,
                          data={"ends": ends}, scope=how)


# ---- the deck running out: the explorer's shortest play, or a directed search at full size -----------------
def _round_ends_game(game):
    """The same game with L25 'round-ends' (the readings play alike until the deck runs out, and
    there it is visible as an end)."""
    if game.cfg.rulings["L25"] == "round-ends":
        return game
    cfg = game.cfg
    return type(game)(Config(**{**cfg.__dict__, "rulings": dict(cfg.rulings, L25="round-ends")}))


def deck_runs_out_search(ex, limits: Limits = NO_LIMITS) -> tuple[list[str] | None, str]:
    """The shortest explored play that ends on an empty deck (ex explores L25 'round-ends')."""
    for node, key in enumerate(ex.keys):
        if node & 4095 == 0 and limits.expired():
            return None, f"time limit reached after {node:,} states were searched"
        if key[PH] == Phase.END and key[END] == End.DECK:
            return ex.narrate(node, "the main deck is empty and no end trigger came first"), ""
    return None, "" if ex.complete else ex.stop_reason


def directed_deck_run_out(game, limits: Limits, budget: int = 200_000) -> list[str] | None:
    """A play of the full game that empties the deck: depth first, always going to the bathroom,
    never drawing a Grito that would end the round, never opening the Loira when another stall can
    come up; returns the narrated play with its probability, or None."""
    g = _round_ends_game(game)
    prefer = {Phase.TURN: 0}

    def order(s):
        seat = g.current_player(s)
        if seat == CHANCE:
            outs = list(g.chance_outcomes(s))
            return [o for o, p in sorted(outs, key=lambda op: (op[0] == Kind.GRITO or op[0] == LOIRA, -op[1]))]
        acts = list(g.legal_actions(s))
        if s[PH] in prefer:
            acts.sort(key=lambda a: a != prefer[s[PH]])
        elif s[PH] == Phase.ESCAPE:
            acts.sort(key=lambda a: a == 0)
        return acts

    stack = [(g.initial_state(), iter(order(g.initial_state())))]
    path: list[tuple[Any, Any]] = []
    seen = 0
    while stack:
        s, it = stack[-1]
        move = next(it, None)
        if move is None:
            stack.pop()
            if path:
                path.pop()
            continue
        seen += 1
        if seen > budget or (seen & 1023 == 0 and limits.expired()):
            return None
        t = g.apply(s, move)
        if g.current_player(t) == TERMINAL:
            if t[END] == End.DECK:
                steps = [(a, b, g.apply(a, b)) for a, b in path + [(s, move)]]
                prob = Fraction(1)
                for a, b, _ in steps:
                    if g.current_player(a) == CHANCE:
                        prob *= dict(g.chance_outcomes(a))[b]
                lines = narrate_play(g, steps, len(steps), "a full-size play found by a directed search")
                return lines + [f"the main deck is empty and no end trigger came first (this play has "
                                f"probability {prob} given its decisions)"]
            continue
        path.append((s, move))
        stack.append((t, iter(order(t))))
    return None


def deck_never_empty_failure(game, ex, scope: str, limits: Limits) -> PropertyResult:
    """Fewer than 3 Gritos: the explorer's shortest play that empties the deck (FAILS) -- on the
    exploration itself under L25 'round-ends', else on an exploration of that reading."""
    from ruleproof.solver.explore import explore
    gritos = game.cfg.deck[Kind.GRITO]
    if game.cfg.rulings["L25"] != "round-ends":
        ex = explore(_round_ends_game(game), max_states=limits.states(2_000_000), timeout=limits.remaining(),
                     check_invariants=False)
    trace, stop = deck_runs_out_search(ex, limits)
    claim = f"this deck holds {gritos} Grito(s), fewer than the 3 that end a round"
    if trace is not None:
        return PropertyResult("deck-never-empty", FAILS, f"the deck can run out: {claim}, and the shortest play "
                              f"that empties it has {len(trace) - 2} moves (L25 "
                              f"'{game.cfg.rulings['L25']}' then decides)", trace, "exhaustive",
                              data={"moves": len(trace) - 2}, scope=scope)
    if stop:
        return PropertyResult("deck-never-empty", UNKNOWN, f"{claim}; no empty deck among the states searched "
                              f"({stop})", kind="exhaustive", scope=scope)
    return PropertyResult("deck-never-empty", HOLDS, f"{claim}, yet no reachable play empties the deck "
                          f"({ex.num_states:,} states, L25 'round-ends')", kind="exhaustive", scope=scope)


# ---- non-termination under a ruling: a reachable cycle -----------------------------------------------------
def cycle_check(ex, name: str, ruling: str) -> PropertyResult:
    """Under ``ruling`` no ranking exists; the explorer decides: a reachable cycle (shortest lasso)
    fails the property, an acyclic graph proves it for this configuration."""
    from ruleproof.solver.termination import shortest_lasso
    if not ex.complete:
        return PropertyResult(name, UNKNOWN, f"{ruling}: graph incomplete ({ex.stop_reason})", kind="graph")
    lasso = shortest_lasso(ex)
    if lasso is not None:
        return PropertyResult(name, FAILS, f"{ruling}: a reachable cycle with no end -- play can go on for "
                              f"ever (shortest lasso below)", lasso, "graph")
    return PropertyResult(name, HOLDS, f"{ruling}: no reachable cycle among {ex.num_states:,} states, so every "
                          f"play ends (this configuration)", kind="graph")


# ---- what verify calls --------------------------------------------------------------------------------------
def _standard_ruleset(ruleset: Ruleset) -> Ruleset:
    """The same rulings and player count with the standard components."""
    from ruleproof.model.loira import SPEC
    p, _ = SPEC.schema.defaults()
    p = dict(p, players=ruleset["players"], expansions=ruleset["expansions"], objective=ruleset["objective"],
             target_wins=ruleset["target_wins"])
    return Ruleset("loira", "standard", p, dict(ruleset.rulings), ruleset.source)


#: the description ``shrink`` gives configurations derived from the default small configuration
SCALE_DOWN = "derived from the default small configuration"


def is_verify_scale_down(ruleset: Ruleset) -> bool:
    """``ruleproof verify loira``: the game's default small configuration (or one derived from it),
    which stands in for the standard deck: its few cards are not an edit of the rules."""
    from ruleproof.model.loira import SPEC
    return tuple(ruleset["deck"]) == tuple(SPEC.verify_overrides["deck"]) or ruleset.description == SCALE_DOWN


#: the smallest configuration that keeps the standard deck's 3 Gritos (631 states): where the
#: deck-never-empty proof's mapping is checked for the default small configuration
THREE_GRITOS = ("F1", "F2", "grito", "grito", "grito", "toc-toc")


def _standard_deck_never_empty(ruleset: Ruleset, limits: Limits) -> PropertyResult:
    """For the default small configuration: the proof with the standard deck's own parameters
    (Z3), its mapping checked on every transition of a 3-Grito configuration."""
    from ruleproof.model.loira.game import LoiraGame
    from ruleproof.proofs.harness import check_inductive
    from ruleproof.proofs.refinement import check_rule_proof
    from ruleproof.solver.explore import explore
    std = LoiraGame(config_from(_standard_ruleset(ruleset)))
    proof = deck_never_empty(std)
    z = check_inductive(proof.name, proof.frame, proof.init, proof.invariant, proof.actions,
                        assumptions=proof.assumptions, limits=limits)
    scope = (f"the standard deck ({std.cfg.deck_size} cards, {std.cfg.deck[Kind.GRITO]} Gritos): Z3 on its "
             f"parameters")
    if z.status != HOLDS:
        z.scope = scope
        return z
    small = ruleset.with_overrides({"deck": THREE_GRITOS})
    game = LoiraGame(config_from(small))
    ex = explore(game, max_states=limits.states(100_000), timeout=limits.remaining(), check_invariants=False)
    res = check_rule_proof(deck_never_empty(game), game, exploration=ex, limits=limits)
    res.scope = f"{scope}; mapping on {' '.join(THREE_GRITOS)} ({ex.num_states:,} states)"
    if res.status == HOLDS:
        res.detail = (f"the standard deck: {z.detail} (Z3 on its parameters); the same relations on the 3-Grito "
                      f"configuration {' '.join(THREE_GRITOS)}: {res.detail}")
    return res


def _deck_never_empty(ctx: Context) -> PropertyResult:
    """Fewer than 3 Gritos: the shortest explored play that empties the deck, or at full size a
    directed search; the default small configuration stands for the standard deck (3 Gritos)."""
    game, cfg = ctx.game, ctx.game.cfg
    if is_verify_scale_down(ctx.ruleset):
        return _standard_deck_never_empty(ctx.ruleset, ctx.limits)
    if ctx.source == EXPLORATION:
        return deck_never_empty_failure(game, ctx.exploration, ctx.scope, ctx.limits)
    trace = directed_deck_run_out(game, ctx.limits)
    scope = f"{ctx.label}: directed search"
    if trace is not None:
        return PropertyResult("deck-never-empty", FAILS,
                              f"the deck can run out: it holds {cfg.deck[Kind.GRITO]} Grito(s), fewer than "
                              f"the 3 that end a round; a full-size play that empties it "
                              f"({len(trace) - 2} moves)", trace, "exhaustive", scope=scope)
    return PropertyResult("deck-never-empty", UNKNOWN,
                          f"the deck holds {cfg.deck[Kind.GRITO]} Grito(s) < 3; the directed search "
                          f"found no full-size play that empties it within its budget; see the "
                          f"derived configurations", kind="exhaustive", scope=scope)


def _full_game_score_bounds(ctx: Context) -> PropertyResult:
    """The standard deck under these rulings: the Z3 optimum over the holding abstraction, and the
    abstraction checked on sampled plays of the standard deck (it is not the explored deck)."""
    from ruleproof.model.loira.game import LoiraGame
    from ruleproof.model.properties import draw_plays
    std_rs = _standard_ruleset(ctx.ruleset)
    std = LoiraGame(config_from(std_rs))
    plays = draw_plays(std, 200, ctx.seed, ctx.limits)
    stalls = " ".join(map(str, _stall_list(std.cfg)))
    how = (f"standard deck ({std.cfg.deck_size} cards) and stalls {stalls}, these rulings: {len(plays)} "
           f"sampled plays (seed {ctx.seed})")
    sub = Context(ctx.spec, std_rs, std, how, SAMPLES, plays=plays, seed=ctx.seed, limits=ctx.limits)
    res = score_bounds(std, sub.states(), how, ctx.limits, sampled=True)
    res.name = "score-bounds (full game, these rulings)"
    return res


def properties(ruleset: Ruleset, game) -> list[Property]:
    """Loira's properties: the rule proofs (``proofs.loira``) and the state and graph checks."""
    from ruleproof.proofs.loira import loira_proofs
    from ruleproof.proofs.refinement import proof_property
    cfg = game.cfg
    out = [proof_property(p) for p in loira_proofs(ruleset, game)]
    either = (EXPLORATION, SAMPLES)
    out.append(Property("score-bounds (this ruleset)", "000 Fim da Rodada: the round's score of a seat",
                        either, lambda ctx: score_bounds(ctx.game, ctx.states(), ctx.scope, ctx.limits,
                                                         sampled=ctx.source == SAMPLES)))
    out.append(Property("tie-break", "000 Fim da Rodada: most points wins; a tie goes to fewer point cards",
                        either, lambda ctx: tie_break(ctx.game, ctx.states(), ctx.scope, ctx.limits,
                                                      sampled=ctx.source == SAMPLES)))
    if cfg.rulings["L25"] == "reshuffle":
        out.append(Property("round-termination", "L25 'reshuffle': the round still ends", (EXPLORATION,),
                            lambda ctx: cycle_check(ctx.exploration, "round-termination",
                                                    "L25 'reshuffle' rebuilds the deck, so no ranking on cards")))
    if cfg.objective == "match" and cfg.rulings["L15"] == "replay":
        out.append(Property("match-termination", "L15 'replay': the match still ends", (EXPLORATION,),
                            lambda ctx: cycle_check(ctx.exploration, "match-termination",
                                                    "L15 'replay' records no win for a tied round")))
    if cfg.deck[Kind.GRITO] < GRITO_END:
        out.append(Property("deck-never-empty", "000 Fim da Rodada: the third Grito ends the round",
                            either, _deck_never_empty))
    if cfg.deck != config_from(_standard_ruleset(ruleset)).deck:
        out.append(Property("score-bounds (full game, these rulings)", "000 Fim da Rodada: the round's score",
                            (NOTHING,), _full_game_score_bounds))
    return out


def derived(ruleset: Ruleset) -> list[Derived]:
    return [Derived(label, rs) for label, rs in shrink(ruleset)]


# ---- smaller configurations that keep an edit ----------------------------------------------------------
#: the cards every derived configuration starts from (two doors for an escape pair, a roll mover, a
#: point-card remover), before the edit's own cards are added
SHRINK_BASE = ("F1", "F2", "M1", "toc-toc", "descarga")
#: cards a changed ruling is about (the ruling can only part where they are in the deck)
RULING_CARDS = {"L05": ("F-", "interruptor"), "L07": ("chute",), "L10": ("fios",), "L12": ("espelho",),
                "L13": ("interruptor",), "L14": ("merendeira",), "L20": ("ralo",), "L23": ("fios",),
                "L29": ("chute",), "L30": ("interruptor",), "L32": ("fios",), "L33": ("fios",)}


def _stall_list(cfg) -> list[int]:
    return [v for v, n in zip(cfg.stalls, cfg.stall_counts) for _ in range(n)]


def _kept_stalls(cfg, std) -> list[int]:
    """A derived configuration's stalls: 2 and 4, plus every value the edit adds or makes more
    common than the standard stalls (a new 5-point stall stays; a value made rarer is still there)."""
    mine, theirs = dict(zip(cfg.stalls, cfg.stall_counts)), dict(zip(std.stalls, std.stall_counts))
    return sorted({2, 4} | {v for v, n in mine.items() if n > theirs.get(v, 0)})


def shrink(ruleset: Ruleset) -> list[tuple[str, Ruleset]]:
    """Derived configurations for a ruleset too big to explore: a small deck that keeps every card
    kind the edit touches (kinds whose count differs from the standard deck, at the ruleset's
    count; the Gritos at the ruleset's count, since they decide whether the deck can run out; the
    cards a changed ruling is about), the stall values 2 and 4 and every value the edit adds
    (``_kept_stalls``), one roll; 2 players, and 3 when the ruleset has 3 or more. Rulings,
    objective and target stay."""
    from ruleproof.model.loira import SPEC
    cfg, std = config_from(ruleset), config_from(_standard_ruleset(ruleset))
    _, default_rulings = SPEC.schema.defaults()
    counts: dict[int, int] = {}
    for token in SHRINK_BASE:
        counts[parse_token(token)] = 1 if cfg.deck[parse_token(token)] else 0
    counts[Kind.GRITO] = cfg.deck[Kind.GRITO]
    for k, (mine, theirs) in enumerate(zip(cfg.deck, std.deck)):
        if mine != theirs and mine:
            counts[k] = mine
    for rid, tokens in RULING_CARDS.items():
        if ruleset.rulings[rid] != default_rulings[rid]:
            for token in tokens:
                counts.setdefault(parse_token(token), 1)
    if ruleset.rulings["L19"] != default_rulings["L19"] and not any(counts.get(k) for k in EXPANSION_KINDS):
        counts[next((k for k in EXPANSION_KINDS if cfg.deck[k]), Kind.RAPAGOTE)] = 1
    deck = [TOKENS[k] for k in sorted(counts) for _ in range(counts[k])]
    stalls = _kept_stalls(cfg, std)
    out = []
    for players in ([2, 3] if cfg.players >= 3 else [2]):
        if players == 2 and counts.get(Kind.PROFESSORA):
            continue   # 000: the Professora is for 3 or more players
        params = {"players": players, "deck": deck, "stalls": stalls, "stall_count": 7, "expansions": [],
                  "rolls": "standard", "centre_rolls": 1, "first_seat": 0,
                  "target_wins": min(ruleset["target_wins"], 2)}
        label = f"{len(deck)} cards: {' '.join(deck)}; {players} players; stalls {' '.join(map(str, stalls))}; 1 roll"
        derived = ruleset.with_overrides(params, spec=SPEC.schema, source=f"derived from {ruleset.source}")
        if is_verify_scale_down(ruleset):
            derived = dataclasses.replace(derived, description=SCALE_DOWN)
        out.append((label, derived))
    return out
