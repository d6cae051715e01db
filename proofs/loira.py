"""Z3 proofs and exhaustive checks for Loira do Banheiro (``ruleproof verify loira``).

One small function per property:

* ``score_bounds``      -- the tightest min/max round score of one seat (Z3 optimiser over a sound
                           abstraction of holdings), cross-checked with the closed form of
                           ``model.loira.bounds`` and with the exhaustive explorer's reachable range;
* ``tie_break``         -- the winner function is total, deterministic, symmetric in seats, and its
                           winners hold the best (score, cards) pair; the implementation agrees with
                           the Z3 specification on every small situation; L04's readings part;
* ``conservation``      -- cards, rolls and the centre belief are inductive invariants;
* ``termination``       -- a ranking function decreases on every turn (bound on turns), openings are
                           bounded, and the match ends within n*(target-1)+1 rounds;
* ``deck_never_empty``  -- the main deck is never drawn empty before the round ends iff it holds at
                           least 3 Gritos (proved inductively; the explorer shows the trace otherwise).
"""
from __future__ import annotations

import itertools
import time
from typing import Sequence

import z3

from model.loira.bounds import escorts_per_opening, opening_capacity, score_bounds as closed_bounds
from model.loira.cards import Kind
from model.loira.config import Config, config_from
from model.ruleset import Ruleset
from proofs.harness import Action, check_inductive, optimize_bound, prove
from solver.limits import NO_LIMITS, Limits
from solver.report import FAILS, HOLDS, UNKNOWN, PropertyResult

GRITO_END = 3
#: the checks' own exhaustive exploration stops (unknown) beyond this many states
EXPLORE_LIMIT = 500_000


# ---- scoring bounds -----------------------------------------------------------------------------------
def _holding_frame(cfg: Config):
    def frame(suffix: str) -> dict[str, z3.ArithRef]:
        f = {f"bath{k}": z3.Int(f"bath{k}{suffix}") for k in range(9) if cfg.deck[k]}
        f.update({f"stall{v}": z3.Int(f"stall{v}{suffix}") for v in cfg.stalls})
        for name in ("espelho", "copy", "interruptor", "ralo", "rolls", "openings"):
            f[name] = z3.Int(name + suffix)
        return f
    return frame


def _holding_constraints(cfg: Config):
    deck = cfg.deck
    mult = 2 if deck[Kind.MERENDEIRA] else 1

    def constraints(f):
        cs = [f[f"bath{k}"] >= 0 for k in range(9) if deck[k]]
        cs += [f[f"bath{k}"] <= deck[k] for k in range(9) if deck[k]]
        for v, c in zip(cfg.stalls, cfg.stall_counts):
            cs += [f[f"stall{v}"] >= 0, f[f"stall{v}"] <= c]
        # openings one seat can take part in: a pick per Grito (at most three resolve per round,
        # L14), per Fios/Rapagote/Diretora/Professora, two per Aluna; each card at most `mult`
        # times (one Merendeira reshuffle); with L25 "reshuffle" only the stalls limit it
        if cfg.rulings["L25"] == "reshuffle":
            cs.append(f["openings"] == sum(cfg.stall_counts))
        else:
            grito = z3.IntVal(deck[Kind.GRITO] * mult)
            if cfg.rulings["L14"] == "per-round":
                grito = z3.If(grito < GRITO_END, grito, z3.IntVal(GRITO_END))
            events = (deck[Kind.FIOS] + deck[Kind.ALUNA] + deck[Kind.RAPAGOTE]
                      + deck[Kind.DIRETORA] + deck[Kind.PROFESSORA])
            # under L18 "opener" each opening also hands its keeper the stalls of its escorts:
            # one per other seat holding a roll (L03: at any opening, or only at a Grito)
            extra = z3.IntVal(escorts_per_opening(cfg))
            other_extra = extra if cfg.rulings["L03"] == "any-opening" else z3.IntVal(0)
            other = (events + deck[Kind.ALUNA] + events * other_extra) * mult
            cs.append(f["openings"] == grito * (1 + extra) + other)
        cs.append(z3.Sum([f[f"stall{v}"] for v in cfg.stalls] + [z3.IntVal(0)]) <= f["openings"])
        cs += [f["espelho"] >= 0, f["espelho"] <= deck[Kind.ESPELHO],
               f["interruptor"] >= 0, f["interruptor"] <= deck[Kind.INTERRUPTOR],
               f["ralo"] >= 0, f["ralo"] <= deck[Kind.RALO],
               f["rolls"] >= 0, f["rolls"] <= cfg.total_rolls]
        # the Espelho copies a point card somebody holds (L12): 0, a bathroom value in the deck,
        # or a stall value when stalls can be won
        copyable = [z3.IntVal(0)] + [z3.IntVal(k % 3) for k in range(9) if deck[k]]
        if cfg.rulings["L12"] == "any-point-card":
            copyable += [z3.If(f["openings"] > 0, z3.IntVal(v), z3.IntVal(0)) for v in cfg.stalls]
        cs.append(z3.Or([f["copy"] == c for c in copyable]))
        return z3.And(cs)
    return constraints


def _score_expr(cfg: Config):
    def score(f):
        terms = [(k % 3) * f[f"bath{k}"] for k in range(9) if cfg.deck[k]]
        terms += [v * f[f"stall{v}"] for v in cfg.stalls]
        terms += [f["espelho"] * f["copy"], 2 * f["interruptor"], f["rolls"], -2 * f["ralo"]]
        return z3.Sum(terms)
    return score


def score_bounds(cfg: Config, label: str, limits: Limits = NO_LIMITS
                 ) -> tuple[PropertyResult, int | None, int | None]:
    res, lo, hi, witnesses = optimize_bound(f"score-bounds ({label})", _holding_frame(cfg),
                                            _score_expr(cfg), _holding_constraints(cfg), limits=limits)
    if res.status != HOLDS:
        return res, None, None
    closed = closed_bounds(cfg)
    if (lo, hi) != closed:
        return PropertyResult(res.name, FAILS, f"Z3 optimum [{lo}, {hi}] differs from the closed form "
                              f"{list(closed)}", witnesses.get("max"), "z3", res.seconds), lo, hi
    res.detail = (f"tightest round score of one seat over reachable-holding constraints: [{lo}, {hi}] "
                  f"(stalls winnable: {opening_capacity(cfg)}); equals the closed form used by the "
                  f"score-bounds invariant")
    res.data.update({"witness_max": witnesses.get("max")})
    return res, lo, hi


def reachable_score_range(ex, limits: Limits = NO_LIMITS) -> PropertyResult:
    """Every reachable state's scores lie within the proved bounds; report the reachable range."""
    from model.loira.scoring import score
    start = time.perf_counter()
    game = ex.game
    lo, hi = closed_bounds(game.cfg)
    seen_lo = seen_hi = 0
    scanned, stop = 0, ex.stop_reason if not ex.complete else ""
    for key in ex.keys:
        if scanned & 4095 == 0 and limits.expired():
            stop = stop or f"time limit reached after scoring {scanned} of them"
            break
        scanned += 1
        for seat in range(game.num_players):
            v = score(game, key, seat)
            seen_lo, seen_hi = min(seen_lo, v), max(seen_hi, v)
    status = HOLDS if lo <= seen_lo and seen_hi <= hi else FAILS
    if stop:
        status = UNKNOWN if status == HOLDS else status
    return PropertyResult("score-bounds-reachable", status,
                          f"{ex.num_states} states: reachable scores [{seen_lo}, {seen_hi}] within "
                          f"the proved [{lo}, {hi}]" + (f" ({stop})" if stop else ""),
                          kind="exhaustive", seconds=time.perf_counter() - start,
                          data={"reachable_min": seen_lo, "reachable_max": seen_hi})


# ---- tie-break ---------------------------------------------------------------------------------------
def _tie_frame(n: int):
    def frame(suffix: str):
        f = {}
        for i in range(n):
            f[f"score{i}"] = z3.Int(f"score{i}{suffix}")
            f[f"cards{i}"] = z3.Int(f"cards{i}{suffix}")
            f[f"win{i}"] = z3.Bool(f"win{i}{suffix}")
        return f
    return frame


def _better_or_equal(f, i, j):
    return z3.Or(f[f"score{i}"] > f[f"score{j}"],
                 z3.And(f[f"score{i}"] == f[f"score{j}"], f[f"cards{i}"] <= f[f"cards{j}"]))


def _winner_definition(n: int):
    """The specification of 000 "Fim da Rodada": a seat wins iff its (score, fewer cards) pair is
    at least every other seat's; all such seats share the win."""
    def definition(f):
        return z3.And([f[f"win{i}"] == z3.And([_better_or_equal(f, i, j) for j in range(n)])
                       for i in range(n)] + [f[f"cards{i}"] >= 0 for i in range(n)])
    return definition


def tie_break(n: int, limits: Limits = NO_LIMITS) -> list[PropertyResult]:
    frame, define = _tie_frame(n), _winner_definition(n)
    out = [prove("tie-break-total", frame, lambda f: z3.Or([f[f"win{i}"] for i in range(n)]), define,
                 detail=f"{n} seats: some seat always wins (a best pair exists)", limits=limits)]

    def deterministic(f):
        g = frame("'")
        same = z3.And([z3.And(g[f"score{i}"] == f[f"score{i}"], g[f"cards{i}"] == f[f"cards{i}"])
                       for i in range(n)])
        return z3.ForAll([g[f"win{i}"] for i in range(n)],
                         z3.Implies(z3.And(same, define(g)),
                                    z3.And([g[f"win{i}"] == f[f"win{i}"] for i in range(n)])))
    out.append(prove("tie-break-deterministic", frame, deterministic, define,
                     detail="the same scores and card counts always give the same winners", limits=limits))

    def symmetric(f):
        conds = []
        for i, j in itertools.combinations(range(n), 2):
            g = dict(f)
            for a, b in ((i, j), (j, i)):
                for name in ("score", "cards"):
                    g[f"{name}{a}"] = f[f"{name}{b}"]
            w = [z3.And([_better_or_equal(g, a, b) for b in range(n)]) for a in range(n)]
            conds.append(z3.And(w[i] == f[f"win{j}"], w[j] == f[f"win{i}"],
                                z3.And([w[k] == f[f"win{k}"] for k in range(n) if k not in (i, j)])))
        return z3.And(conds)
    out.append(prove("tie-break-symmetric", frame, symmetric, define,
                     detail="swapping two seats' holdings swaps their outcomes (no seat is favoured)",
                     limits=limits))

    def best_pair(f):
        return z3.And([z3.Implies(f[f"win{i}"], z3.And([_better_or_equal(f, i, j) for j in range(n)]))
                       for i in range(n)] +
                      [z3.Implies(z3.And(f[f"win{i}"], f[f"win{j}"]),
                                  z3.And(f[f"score{i}"] == f[f"score{j}"], f[f"cards{i}"] == f[f"cards{j}"]))
                       for i in range(n) for j in range(n)])
    out.append(prove("tie-break-best-pair", frame, best_pair, define,
                     detail="winners hold the best (score, fewer cards) pair and share it exactly",
                     limits=limits))
    out.append(limits.not_run("tie-break-implementation", "exhaustive") if limits.expired()
               else _implementation_matches(n))
    return out


def _implementation_matches(n: int) -> PropertyResult:
    """``scoring.winners_of`` equals the specification on every situation with small values."""
    from model.loira.scoring import winners_of
    start = time.perf_counter()
    seats = min(n, 3)
    pairs = [(s, -c) for s in range(3) for c in range(3)]
    for combo in itertools.product(pairs, repeat=seats):
        spec = [i for i in range(seats)
                if all(combo[i][0] > combo[j][0] or (combo[i][0] == combo[j][0] and combo[i][1] >= combo[j][1])
                       for j in range(seats))]
        got = winners_of(list(combo), [True] * seats)
        if got != spec:
            return PropertyResult("tie-break-implementation", FAILS, "implementation differs",
                                  [f"pairs {combo}: spec {spec}, implementation {got}"], "exhaustive",
                                  time.perf_counter() - start)
    return PropertyResult("tie-break-implementation", HOLDS,
                          f"winners_of agrees with the specification on all {len(pairs) ** seats} "
                          f"situations of {seats} seats with scores 0-2 and 0-2 cards",
                          kind="exhaustive", seconds=time.perf_counter() - start)


# ---- conservation and the centre belief ----------------------------------------------------------------
def conservation(cfg: Config, limits: Limits = NO_LIMITS) -> list[PropertyResult]:
    total = max(cfg.deck)

    def cframe(sfx):
        return {n_: z3.Int(n_ + sfx) for n_ in ("deck", "discard", "held", "aside")}

    def cinv(f):
        return z3.And(f["deck"] + f["discard"] + f["held"] + f["aside"] == total,
                      f["deck"] >= 0, f["discard"] >= 0, f["held"] >= 0, f["aside"] >= 0)

    def move(src, dst, k=1):
        def rel(s, t):
            others = [t[x] == s[x] for x in s if x not in (src, dst)]
            return z3.And([s[src] >= k, t[src] == s[src] - k, t[dst] == s[dst] + k] + others)
        return rel

    def all_to(src, dst):
        def rel(s, t):
            others = [t[x] == s[x] for x in s if x not in (src, dst)]
            return z3.And([t[src] == 0, t[dst] == s[dst] + s[src]] + others)
        return rel

    card_actions = [Action("draw-and-keep", move("deck", "held")),
                    Action("draw-and-discard", move("deck", "discard")),
                    Action("set-aside", move("deck", "aside")), Action("open-aside", move("aside", "discard")),
                    Action("descarga-or-zelador", move("held", "discard")),
                    Action("escape-pair", move("held", "discard", 2)),
                    Action("interruptor-used", move("held", "discard")),
                    Action("loira-takes", all_to("held", "discard")),
                    Action("merendeira-reshuffle", all_to("discard", "deck"))]
    out = [check_inductive("card-conservation-inductive", cframe,
                           lambda f: z3.And(f["deck"] == total, f["discard"] == 0, f["held"] == 0,
                                            f["aside"] == 0), cinv, card_actions,
                           detail="per card kind, deck + discard + held + set aside stays constant: "
                                  "initially and across every move that touches cards", limits=limits)]
    n, rolls = cfg.players, cfg.total_rolls

    def rframe(sfx):
        f = {"centre": z3.Int("centre" + sfx)}
        f.update({f"r{i}": z3.Int(f"r{i}{sfx}") for i in range(n)})
        return f

    def rinv(f):
        return z3.And([f["centre"] + z3.Sum([f[f"r{i}"] for i in range(n)]) == rolls, f["centre"] >= 0]
                      + [f[f"r{i}"] >= 0 for i in range(n)])
    roll_actions = [Action("toc-toc-take", move("centre", "r0")), Action("steal", move("r1", "r0")),
                    Action("escort", move("r1", "centre")), Action("tia-take-two", move("centre", "r0", 2)),
                    Action("loira-takes-rolls", all_to("r0", "centre")),
                    Action("susto-rolls-returned", move("centre", "r1"))]
    out.append(check_inductive("roll-conservation-inductive", rframe,
                               lambda f: z3.And([f["centre"] == cfg.centre_rolls] +
                                                [f[f"r{i}"] == cfg.rolls[i] for i in range(n)]),
                               rinv, roll_actions,
                               detail=f"centre + held rolls = {rolls}: initially and across every move "
                                      "(seats are symmetric, so seats 0 and 1 stand for any pair)",
                               limits=limits))
    m0 = sum(cfg.stall_counts)

    def bframe(sfx):
        return {n_: z3.Int(n_ + sfx) for n_ in ("phys", "slots", "unopened")}

    def binv(f):
        return z3.And(0 <= f["phys"], f["phys"] <= f["slots"], f["slots"] <= f["unopened"] + 1,
                      f["unopened"] >= 0, z3.Implies(f["phys"] > 0, f["slots"] >= 1))

    def same(s, t, *names):
        return [t[x] == s[x] for x in names]
    belief_actions = [
        Action("chute-kick", lambda s, t: z3.And([s["phys"] >= 1, t["phys"] == s["phys"] - 1]
                                                 + same(s, t, "slots", "unopened"))),
        Action("open-score-stall", lambda s, t: z3.And(s["phys"] >= 1, s["slots"] >= 2, s["unopened"] >= 1,
                                                       t["phys"] == s["phys"] - 1, t["slots"] == s["slots"] - 1,
                                                       t["unopened"] == s["unopened"] - 1)),
        Action("open-loira-and-escape", lambda s, t: z3.And([s["phys"] >= 1, t["phys"] == s["phys"],
                                                             t["slots"] == s["phys"]] + same(s, t, "unopened"))),
    ]
    out.append(check_inductive("centre-belief-inductive", bframe,
                               lambda f: z3.And(f["phys"] == m0 + 1, f["slots"] == m0 + 1, f["unopened"] == m0),
                               binv, belief_actions,
                               detail="0 <= cards in the centre <= belief slots <= unopened + 1, so "
                                      "P(Loira present) = phys/slots <= 1 and P(Loira next) = 1/slots "
                                      "is a probability, across kicks, openings and escapes", limits=limits))
    return out


# ---- termination -----------------------------------------------------------------------------------------
def termination(cfg: Config, limits: Limits = NO_LIMITS) -> list[PropertyResult]:
    n, size = cfg.players, cfg.deck_size
    mer = cfg.deck[Kind.MERENDEIRA]
    big = size + 1

    def frame(sfx):
        return {x: z3.Int(x + sfx) for x in ("deck", "active", "merendeira", "discard")}

    def rank(f):
        return f["deck"] + f["active"] + f["merendeira"] * big

    def typing(f):
        return z3.And(f["deck"] >= 0, f["active"] >= 0, f["active"] <= n, f["merendeira"] >= 0,
                      f["discard"] >= 0, f["deck"] + f["discard"] <= size)

    def decreases(f):
        g = frame("'")
        draw = z3.And(f["deck"] >= 1, g["deck"] == f["deck"] - 1, g["active"] == f["active"],
                      g["merendeira"] == f["merendeira"])
        stop = z3.And(f["active"] >= 1, g["active"] == f["active"] - 1, g["deck"] == f["deck"],
                      g["merendeira"] == f["merendeira"])
        merendeira = z3.And(f["merendeira"] >= 1, g["merendeira"] == f["merendeira"] - 1,
                            g["deck"] == f["deck"] - 1 + f["discard"], g["active"] == f["active"])
        return z3.ForAll(list(g.values()), z3.Implies(z3.And(typing(g), z3.Or(draw, stop, merendeira)),
                                                      z3.And(rank(g) < rank(f), rank(g) >= 0)))
    out = []
    if cfg.rulings["L25"] == "reshuffle":
        out.append(PropertyResult("round-termination", UNKNOWN,
                                  "L25 'reshuffle': the deck can be rebuilt from the discard, so no "
                                  "ranking on cards exists (a deck of Toc-Toc only cycles forever)",
                                  kind="z3"))
    else:
        res = prove("round-termination", frame, decreases, typing,
                    detail=f"every turn draws a card, stops a seat or uses the Interruptor (ends the round); "
                           f"rank = deck + active seats + {big} x Merendeira cards decreases on each, so a "
                           f"round has at most {size + n + mer * big} turns (deck {size}, {n} seats)",
                    limits=limits)
        res.data["turn_bound"] = size + n + mer * big
        out.append(res)
    # an opening is bounded: at most one pick per seat plus the card's own picks, each reveal
    # lowers the physical centre
    out.append(prove("opening-bounded", lambda sfx: {"picks": z3.Int("picks" + sfx), "phys": z3.Int("phys" + sfx)},
                     lambda f: f["picks"] <= f["phys"],
                     lambda f: z3.And(f["phys"] >= 0, f["picks"] >= 0, f["picks"] <= f["phys"]),
                     detail="picks queued never exceed the cards in the centre (L26), so every opening "
                            "ends after at most that many reveals", limits=limits))
    target = cfg.target_wins
    rounds = n * (target - 1) + 1

    def wframe(sfx):
        return {f"w{i}": z3.Int(f"w{i}{sfx}") for i in range(n)}
    if cfg.rulings["L15"] == "replay":
        out.append(PropertyResult("match-termination", FAILS,
                                  "L15 'replay': a tied round records no win, so a match can repeat "
                                  "tied rounds forever",
                                  ["round 1: every seat stops at once, 0-0, replayed",
                                   "round 2: the same situation again (the state repeats)"], "z3"))
    else:
        out.append(prove("match-termination", wframe,
                         lambda f: z3.Sum([f[f"w{i}"] for i in range(n)]) <= rounds - 1,
                         lambda f: z3.And([z3.And(f[f"w{i}"] >= 0, f[f"w{i}"] <= target - 1) for i in range(n)]),
                         detail=f"while nobody has {target} wins the seats hold at most {rounds - 1} wins; "
                                f"every round adds at least one (tie-break-total), so a match ends "
                                f"within {rounds} rounds", limits=limits))
    return out


# ---- the main deck is never drawn empty ---------------------------------------------------------------
def deck_never_empty(cfg: Config, limits: Limits = NO_LIMITS) -> PropertyResult:
    gritos = cfg.deck[Kind.GRITO]

    def frame(sfx):
        return {x: z3.Int(x + sfx) for x in ("deck", "gritos_in_deck", "resolved", "playing")}

    def inv(f):
        return z3.And(f["gritos_in_deck"] + f["resolved"] >= GRITO_END, f["gritos_in_deck"] <= f["deck"],
                      f["gritos_in_deck"] >= 0, z3.Implies(f["playing"] == 1, f["resolved"] <= GRITO_END - 1))

    def keep(s, t, *names):
        return [t[x] == s[x] for x in names]
    actions = [
        Action("draw-other", lambda s, t: z3.And([s["deck"] - s["gritos_in_deck"] >= 1, t["deck"] == s["deck"] - 1]
                                                 + keep(s, t, "gritos_in_deck", "resolved", "playing"))),
        Action("draw-grito-resolve", lambda s, t: z3.And(
            s["gritos_in_deck"] >= 1, t["deck"] == s["deck"] - 1, t["gritos_in_deck"] == s["gritos_in_deck"] - 1,
            t["resolved"] == s["resolved"] + 1,
            t["playing"] == z3.If(t["resolved"] >= GRITO_END, 0, s["playing"]))),
        Action("merendeira-reshuffle", lambda s, t: z3.And(
            [t["gritos_in_deck"] >= s["gritos_in_deck"],
             t["deck"] >= s["deck"] + (t["gritos_in_deck"] - s["gritos_in_deck"])]
            + keep(s, t, "resolved", "playing"))),
        Action("round-ends", lambda s, t: z3.And([t["playing"] == 0] + keep(s, t, "deck", "gritos_in_deck", "resolved"))),
    ]
    res = check_inductive(
        "deck-never-empty", frame,
        lambda f: z3.And(f["deck"] == cfg.deck_size, f["gritos_in_deck"] == gritos, f["resolved"] == 0,
                         f["playing"] == 1),
        inv, actions,
        assumptions=lambda f: z3.And(f["deck"] >= 0, f["resolved"] >= 0),
        detail="gritos in deck + gritos resolved >= 3 is inductive; while the round goes on at most 2 "
               "are resolved, so a Grito (hence a card) is always left to draw: L25 is never needed",
        limits=limits)
    if cfg.rulings["L14"] != "per-round":
        res.status, res.detail = UNKNOWN, "L14 'merendeira-resets': the Grito count can reset"
    return res


def deck_exhaustion_trace(ex, reading: str = "round-ends", limits: Limits = NO_LIMITS) -> PropertyResult:
    """With fewer than 3 Gritos the deck can run out: the explorer's shortest trace to it.

    ``ex`` explores the game under L25 ``round-ends``, where running out ends the round (a visible
    end); ``reading`` is the ruleset's own L25 reading, which plays the same until that moment."""
    from model.loira.state import END, End
    start = time.perf_counter()
    game = ex.game
    then = ("L25 ends the round" if reading == "round-ends" else
            f"L25 '{reading}' then rebuilds the deck; the trace ends where the readings part")
    stop = ex.stop_reason if not ex.complete else ""
    for node, key in enumerate(ex.keys):
        if node & 4095 == 0 and limits.expired():
            stop = stop or f"time limit reached after {node} states were searched"
            break
        if key[END] == End.DECK:
            trace = ex.narrate(node)
            return PropertyResult("deck-exhaustion-matches-proof", HOLDS,
                                  f"{game.cfg.deck[Kind.GRITO]} Grito(s) < 3: as the proof's premise "
                                  f"predicts, the deck can run out ({then}); shortest trace "
                                  f"of {len(trace) - 1} moves in data.trace", kind="exhaustive",
                                  seconds=time.perf_counter() - start, data={"trace": trace})
    status = UNKNOWN if stop else FAILS
    return PropertyResult("deck-exhaustion-matches-proof", status,
                          "fewer than 3 Gritos but no reachable deck exhaustion found"
                          + (f" ({ex.num_states} states, {stop})" if stop else ""), kind="exhaustive",
                          seconds=time.perf_counter() - start)


# ---- L04's readings ---------------------------------------------------------------------------------------
def l04_readings(ex, limits: Limits = NO_LIMITS) -> PropertyResult:
    """A reachable end of round where 'fewer point cards' and 'fewer bathroom cards' disagree."""
    from model.loira.scoring import round_winners
    from model.loira.state import PH, Phase
    start = time.perf_counter()
    game = ex.game
    other = "bathroom-cards" if game.cfg.rulings["L04"] == "point-cards" else "point-cards"
    rulings = dict(game.cfg.rulings, L04=other)
    alt = type(game)(Config(**{**game.cfg.__dict__, "rulings": rulings}), symmetry=False)
    stop = ex.stop_reason if not ex.complete else ""
    for node, key in enumerate(ex.keys):
        if node & 4095 == 0 and limits.expired():
            stop = stop or f"time limit reached after {node} states were searched"
            break
        if key[PH] == Phase.END and round_winners(game, key) != round_winners(alt, key):
            return PropertyResult("L04-readings-part", HOLDS,
                                  f"a reachable end where the readings pick different winners: "
                                  f"{round_winners(game, key)} ({game.cfg.rulings['L04']}) vs "
                                  f"{round_winners(alt, key)} ({other}); trace in data.trace",
                                  None, "exhaustive", time.perf_counter() - start,
                                  {"trace": ex.narrate(node)})
    if stop:  # a partial search proves nothing about the states it did not reach
        return PropertyResult("L04-readings-part", UNKNOWN,
                              f"no end of round where L04's readings pick different winners among "
                              f"{ex.num_states} states explored ({stop})",
                              kind="exhaustive", seconds=time.perf_counter() - start)
    return PropertyResult("L04-readings-part", HOLDS,
                          f"no reachable end of round ({ex.num_states} states) where L04's readings "
                          f"pick different winners in this configuration",
                          kind="exhaustive", seconds=time.perf_counter() - start)


def checks(ruleset: Ruleset, limits: Limits | None = None) -> Sequence[PropertyResult]:
    """Every property above; ``limits`` (the user's ``--max-states`` and ``--timeout``) caps each
    exploration and Z3 call, and whatever they stop is reported unknown."""
    from model.loira.game import LoiraGame
    from solver.explore import explore
    limits = limits or NO_LIMITS
    cfg = config_from(ruleset)
    game = LoiraGame(cfg, symmetry=False)  # traces narrated in the seats' own terms
    ex = explore(game, max_states=limits.states(EXPLORE_LIMIT), timeout=limits.remaining(),
                 check_invariants=False)
    out: list[PropertyResult] = []
    res, _, _ = score_bounds(cfg, "this ruleset", limits)
    out.append(res)
    out.append(reachable_score_range(ex, limits))
    if cfg.deck != config_from(_base_ruleset(ruleset)).deck:
        full, _, _ = score_bounds(config_from(_base_ruleset(ruleset)), "full game, these rulings", limits)
        out.append(full)
    out.extend(tie_break(cfg.players, limits))
    out.extend(conservation(cfg, limits))
    out.extend(termination(cfg, limits))
    base = config_from(_base_ruleset(ruleset))
    full_deck = deck_never_empty(base, limits)
    full_deck.name = "deck-never-empty (full game)"
    out.append(full_deck)
    if cfg.deck[Kind.GRITO] >= GRITO_END:
        out.append(deck_never_empty(cfg, limits))
    elif cfg.rulings["L25"] == "round-ends":
        out.append(deck_exhaustion_trace(ex, limits=limits))
    elif limits.expired():
        out.append(limits.not_run("deck-exhaustion-matches-proof", "exhaustive"))
    else:  # the deck running out is only visible where it ends the round: explore that reading
        ends = Config(**{**cfg.__dict__, "rulings": dict(cfg.rulings, L25="round-ends")})
        ex_ends = explore(LoiraGame(ends, symmetry=False), max_states=limits.states(EXPLORE_LIMIT),
                          timeout=limits.remaining(), check_invariants=False)
        out.append(deck_exhaustion_trace(ex_ends, cfg.rulings["L25"], limits))
    out.append(l04_readings(ex, limits))
    return out


def _base_ruleset(ruleset: Ruleset) -> Ruleset:
    """The same rulings and player count with the standard components."""
    from model.loira import SPEC
    p, _ = SPEC.schema.defaults()
    p = dict(p, players=ruleset["players"], expansions=ruleset["expansions"])
    return Ruleset("loira", "standard", p, dict(ruleset.rulings), ruleset.source)
