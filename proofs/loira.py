"""Proofs for Loira do Banheiro, bound to ``model.loira`` (``ruleproof verify loira``).

Rule proofs (``loira_proofs``; ``proofs.refinement`` checks every explored or sampled transition of
the real game against their action relations):

* ``card-conservation``   -- per card kind: deck + discard + set aside + on top + each seat's
                             holding is the deck's count; every real move of a card is a draw, an
                             opening of the card on top or set aside, a discard from a hand (one, a
                             pair, or all of a seat's to the Loira), a reshuffle or a new round;
* ``roll-conservation``   -- centre + rolls held is constant; moves: take from the centre, steal,
                             escort, the Loira takes, escorts' rolls returned (L17);
* ``centre-belief``       -- 0 <= cards in the centre <= belief slots <= unopened stalls + 1, with the
                             Loira out of the centre (her victim deciding) phys <= unopened;
* ``round-termination``   -- a ranking (deck + active seats + Merendeiras + playing) that every
                             round step lowers (L25 ``round-ends``; under ``reshuffle`` the explorer
                             looks for a cycle instead);
* ``match-termination``   -- a ranking over the match's win counts that every new round lowers
                             (L15 ``all-tied-win``; under ``replay`` the explorer looks for a cycle);
* ``deck-never-empty``    -- with 3 or more Gritos in the deck: Gritos in the deck + resolved +
                             being resolved >= 3, so while the round goes on a Grito (a card) is
                             always left to draw. With fewer, the explorer (or a directed search at
                             full size) shows the shortest play that empties the deck.

The state checks (score bounds, tie-break, the deck running out with fewer than 3 Gritos, L04)
and ``shrink`` are in :mod:`proofs.loira_checks`.
"""
from __future__ import annotations

from typing import Callable, Sequence

import z3

from ruleproof.model.loira.cards import EXPANSION_KINDS, KEPT_KINDS, TOKENS, Kind
from ruleproof.model.loira.state import CARD, CROLLS, END, GRITOS, PH, PHYS, SLOTS, STOP, VICTIM, End, Phase
from ruleproof.model.ruleset import Ruleset
from ruleproof.proofs.harness import Action
from ruleproof.proofs.logic import And, Implies, Or, Sum, Unchanged
from ruleproof.proofs.refinement import Exit, RuleProof

GRITO_END = 3  # 000 Fim da Rodada: "A terceira carta Grito for resolvida"


def _ints(names: Sequence[str]):
    def frame(sfx: str) -> dict[str, z3.ArithRef]:
        return {x: z3.Int(x + sfx) for x in names}
    return frame


def _memo(abstraction, cap: int = 200_000):
    """The abstraction of a state, computed once per state (the refinement check asks for both
    ends of every transition, so each state is abstracted many times)."""
    cache: dict = {}

    def of(s):
        got = cache.get(s)
        if got is None:
            if len(cache) >= cap:
                cache.clear()
            got = cache[s] = abstraction(s)
        return got
    return of


def _seat_change(s, t, var: Callable[[int], str], n: int, delta: int, *also: str):
    """One seat's ``var`` moves by ``delta``; every other variable but ``also`` keeps its value."""
    return Or([And(t[var(p)] == s[var(p)] + delta, Unchanged(s, t, var(p), *also)) for p in range(n)])


# ---- card conservation (one frame per card kind) -------------------------------------------------------
def card_conservation(game) -> RuleProof:
    cfg, n = game.cfg, game.num_players
    seats = [f"h{p}" for p in range(n)]
    frame = _ints(["deck", "disc", "aside", "top", "total", "kept"] + seats)

    slots = {Kind.ESPELHO: game.h_esp, Kind.INTERRUPTOR: game.h_int, Kind.RALO: game.h_ralo}
    where = []   # per kind: (label, kind, deck index, discard index, aside index, held indices)
    for i, k in enumerate(game.kinds):
        slot = k if k < 9 else slots.get(k)
        where.append((TOKENS[k], k, game.o_deck + i, game.o_disc + i,
                      game.o_aside + EXPANSION_KINDS.index(k) if k in EXPANSION_KINDS else None,
                      None if slot is None else [game.h(p, slot) for p in range(n)]))

    def abstraction(s):
        out = {}
        top = s[CARD] if s[PH] == Phase.EXPANSION else -1
        for label, k, d, x, a, held in where:
            f = {"deck": s[d], "disc": s[x], "aside": 0 if a is None else s[a], "top": int(top == k),
                 "total": cfg.deck[k], "kept": int(k in KEPT_KINDS)}
            for p in range(n):
                f[seats[p]] = 0 if held is None else s[held[p]]
            out[label] = f
        return out

    def invariant(f):
        return And(Sum([f[x] for x in ("deck", "disc", "aside", "top")] + [f[h] for h in seats]) == f["total"],
                   [f[x] >= 0 for x in ("deck", "disc", "aside", "top")], [f[h] >= 0 for h in seats],
                   f["top"] <= 1, Implies(f["kept"] == 0, And([f[h] == 0 for h in seats])))

    def init(f):
        return And(f["deck"] == f["total"], [f[x] == 0 for x in ("disc", "aside", "top")],
                   [f[h] == 0 for h in seats])

    def typing(f):
        return And(f["total"] >= 0, Or(f["kept"] == 0, f["kept"] == 1))

    def lands(s, t, *moved):
        """The card lands in a holding (kept kinds) or on the discard pile (the others)."""
        keep = And(s["kept"] == 1, _seat_change(s, t, lambda p: f"h{p}", n, 1, *moved))
        discard = And(s["kept"] == 0, t["disc"] == s["disc"] + 1, Unchanged(s, t, "disc", *moved))
        return Or(keep, discard)

    def draw(s, t):
        return And(s["deck"] >= 1, t["deck"] == s["deck"] - 1, lands(s, t, "deck"))

    def draw_to_top(s, t):
        return And(s["deck"] >= 1, s["top"] == 0, t["deck"] == s["deck"] - 1, t["top"] == 1,
                   Unchanged(s, t, "deck", "top"))

    def open_top(s, t):
        return And(s["top"] == 1, t["top"] == 0, lands(s, t, "top"))

    def set_aside(s, t):
        return And(s["top"] == 1, t["top"] == 0, t["aside"] == s["aside"] + 1, Unchanged(s, t, "top", "aside"))

    def open_aside(s, t):
        return And(s["aside"] >= 1, t["aside"] == s["aside"] - 1, lands(s, t, "aside"))

    def discard_from_hand(s, t):
        # one card (Descarga, Zelador, the Interruptor used) or a pair of one kind (an escape)
        return Or([And(s[h] >= x, t[h] == s[h] - x, t["disc"] == s["disc"] + x, Unchanged(s, t, h, "disc"))
                   for h in seats for x in (1, 2)])

    def loira_takes(s, t):
        return Or([And(s[h] >= 1, t[h] == 0, t["disc"] == s["disc"] + s[h], Unchanged(s, t, h, "disc"))
                   for h in seats])

    def reshuffle(s, t):
        # Merendeira (its own card stays out: it is never in the discard when it resolves) or L25
        return And(s["disc"] >= 1, t["deck"] == s["deck"] + s["disc"], t["disc"] == 0,
                   Unchanged(s, t, "deck", "disc"))

    base = [Action("draw", draw), Action("draw-to-top", draw_to_top), Action("open-top", open_top),
            Action("set-aside", set_aside), Action("open-aside", open_aside),
            Action("discard-from-hand", discard_from_hand), Action("loira-takes", loira_takes),
            Action("reshuffle", reshuffle)]
    actions = list(base)
    if cfg.rulings["L25"] == "reshuffle":
        # the move that empties the deck rebuilds it from the discard at the end of the turn
        def then_l25(rel):
            return lambda s, t: And(t["disc"] == 0, t["deck"] >= 1, rel(s, dict(t, deck=0, disc=t["deck"])))
        actions += [Action(f"{a.name}-then-L25", then_l25(a.relation)) for a in base if a.name != "reshuffle"]
    if cfg.objective == "match":
        actions.append(Action("new-round", lambda s, t: And(init(t), t["total"] == s["total"],
                                                             t["kept"] == s["kept"])))
    return RuleProof(
        "card-conservation-inductive",
        "per card kind, deck + discard + set aside + on top + each seat's holding equals the deck's "
        "count, and only kept kinds (bathroom, Espelho, Interruptor, Ralo) are ever held",
        frame, "per card kind: deck, discard, set-aside and on-top counts from the state's regions, "
        "h<seat> = that seat's holding of the kind; total and kept are the kind's constants",
        _memo(abstraction), init, invariant, actions, assumptions=typing, projected=True)


# ---- rolls -----------------------------------------------------------------------------------------------
def roll_conservation(game) -> RuleProof:
    cfg, n = game.cfg, game.num_players
    r = [f"r{p}" for p in range(n)]
    frame = _ints(["centre"] + r)
    most = 2 if cfg.deck[Kind.TIA] else 1   # Toc-Toc takes one roll, Tia da Limpeza two

    def abstraction(s):
        f = {"centre": s[CROLLS]}
        f.update({f"r{p}": s[game.o_rolls + p] for p in range(n)})
        return f

    def invariant(f):
        return And(f["centre"] + Sum([f[x] for x in r]) == cfg.total_rolls, f["centre"] >= 0, [f[x] >= 0 for x in r])

    def init(f):
        return And(f["centre"] == cfg.centre_rolls, [f[f"r{p}"] == cfg.rolls[p] for p in range(n)])

    def take(s, t):
        return Or([And(s["centre"] >= x, t["centre"] == s["centre"] - x, t[v] == s[v] + x,
                       Unchanged(s, t, "centre", v)) for v in r for x in range(1, most + 1)])

    def steal(s, t):
        return Or([And(s[a] >= 1, t[a] == s[a] - 1, t[b] == s[b] + 1, Unchanged(s, t, a, b))
                   for a in r for b in r if a != b])

    def escort(s, t):
        return Or([And(s[v] >= 1, t[v] == s[v] - 1, t["centre"] == s["centre"] + 1, Unchanged(s, t, v, "centre"))
                   for v in r])

    def loira_takes(s, t):
        # L09: every roll the victim holds, or only those won this round (some may stay)
        kept = (lambda v: t[v] == 0) if cfg.rulings["L09"] == "all-rolls" else (lambda v: t[v] >= 0)
        return Or([And(s[v] >= 1, kept(v), t[v] < s[v], t["centre"] == s["centre"] + s[v] - t[v],
                       Unchanged(s, t, v, "centre")) for v in r])

    actions = [Action("take-from-centre", take), Action("steal", steal), Action("escort", escort),
               Action("loira-takes", loira_takes)]
    if cfg.rulings["L17"] == "rolls-returned":
        def returned(s, t):
            back = [t[v] - s[v] for v in r]
            return And([Or(b == 0, b == 1) for b in back], Sum(back) >= 1,
                       t["centre"] == s["centre"] - Sum(back))
        actions.append(Action("escort-rolls-returned", returned))
    return RuleProof(
        "roll-conservation-inductive",
        f"rolls in the centre plus rolls held stay {cfg.total_rolls}, none negative",
        frame, "centre = rolls in the centre, r<seat> = rolls the seat holds", abstraction, init,
        invariant, actions)


# ---- the centre belief --------------------------------------------------------------------------------
def centre_belief(game) -> RuleProof:
    cfg = game.cfg
    m0 = sum(cfg.stall_counts)
    frame = _ints(["phys", "slots", "unopened", "out"])

    def abstraction(s):
        return {"phys": s[PHYS], "slots": s[SLOTS], "unopened": sum(game.centre_counts(s)),
                "out": int(s[VICTIM] >= 0)}

    def invariant(f):
        return And(0 <= f["phys"], f["phys"] <= f["slots"], f["slots"] <= f["unopened"] + 1, f["slots"] >= 1,
                   f["unopened"] >= 0, Or(f["out"] == 0, f["out"] == 1),
                   Implies(f["out"] == 1, f["phys"] <= f["unopened"]))

    def init(f):
        return And(f["phys"] == m0 + 1, f["slots"] == m0 + 1, f["unopened"] == m0, f["out"] == 0)

    def kick(s, t):     # Chute no Vaso: one face-down card leaves unseen; the belief keeps slots
        return And(s["phys"] >= 1, t["phys"] == s["phys"] - 1, Unchanged(s, t, "phys"))

    def open_score(s, t):
        return And(s["out"] == 0, s["phys"] >= 1, s["slots"] >= 2, s["unopened"] >= 1,
                   t["phys"] == s["phys"] - 1, t["slots"] == s["slots"] - 1,
                   t["unopened"] == s["unopened"] - 1, t["out"] == 0)

    def reveal_loira(s, t):
        return And(s["out"] == 0, s["phys"] >= 1, t["out"] == 1, t["phys"] == s["phys"] - 1,
                   Unchanged(s, t, "phys", "out"))

    def escape(s, t):   # L08: the Loira goes back among the face-down cards, known to be there
        return And(s["out"] == 1, t["out"] == 0, t["phys"] == s["phys"] + 1, t["slots"] == t["phys"],
                   t["unopened"] == s["unopened"])

    actions = [Action("kick", kick), Action("open-score-stall", open_score),
               Action("reveal-loira", reveal_loira), Action("escape", escape)]
    if cfg.objective == "match":
        actions.append(Action("new-round", lambda s, t: init(t)))
    return RuleProof(
        "centre-belief-inductive",
        "0 <= cards in the centre <= belief slots <= unopened stalls + 1 (and <= unopened while the "
        "Loira is out), so P(Loira present) = phys/slots <= 1, P(Loira next) = 1/slots, and with no "
        "score stall left the next card is surely the Loira",
        frame, "phys = stall cards in the centre, slots = the belief denominator, unopened = score "
        "stalls not yet opened, out = the Loira has been revealed (her victim is set)",
        abstraction, init, invariant, actions)


# ---- termination -----------------------------------------------------------------------------------------
def round_termination(game) -> RuleProof:
    cfg, n = game.cfg, game.num_players
    size, mer0 = cfg.deck_size, cfg.deck[Kind.MERENDEIRA]
    frame = _ints(["deck", "active", "mer", "playing"])
    big = size + 1

    def abstraction(s):
        deck = sum(s[game.o_deck:game.o_deck + len(game.kinds)])
        mer = 0
        if mer0:
            mer = (s[game.deck_index(Kind.MERENDEIRA)] + s[game.o_aside + EXPANSION_KINDS.index(Kind.MERENDEIRA)]
                   + int(s[PH] == Phase.EXPANSION and s[CARD] == Kind.MERENDEIRA))
        return {"deck": deck, "active": n - bin(s[STOP]).count("1"), "mer": mer, "playing": int(s[PH] != Phase.END)}

    def typing(f):
        return And(f["deck"] >= 0, f["deck"] <= size, f["active"] >= 0, f["active"] <= n, f["mer"] >= 0,
                   Or(f["playing"] == 0, f["playing"] == 1))

    def invariant(f):
        return And(typing(f), f["mer"] <= mer0)

    def init(f):
        return And(f["deck"] == size, f["active"] == n, f["mer"] == mer0, f["playing"] == 1)

    def ends(s, t):     # the round may end in the same move
        return And(s["playing"] == 1, t["playing"] <= s["playing"], t["playing"] >= 0)

    def draw(s, t):
        return And(s["deck"] >= 1, t["deck"] == s["deck"] - 1, t["active"] == s["active"], t["mer"] == s["mer"],
                   ends(s, t))

    def stop(s, t):
        return And(s["active"] >= 1, t["active"] == s["active"] - 1, t["deck"] == s["deck"],
                   t["mer"] == s["mer"], ends(s, t))

    def merendeira(s, t):   # the discard goes back under the deck: only the Merendeira count pays
        return And(s["mer"] >= 1, t["mer"] == s["mer"] - 1, t["deck"] >= 0, t["deck"] <= size,
                   t["active"] == s["active"], ends(s, t))

    def round_ends(s, t):
        return And(s["playing"] == 1, t["playing"] == 0, Unchanged(s, t, "playing"))

    actions = [Action("draw", draw), Action("stop", stop), Action("merendeira", merendeira),
               Action("round-ends", round_ends)]
    if cfg.objective == "match":
        actions.append(Action("new-round", lambda s, t: init(t)))
    bound = size + n + mer0 * big + 1
    return RuleProof(
        "round-termination",
        f"every round step (a draw, a stop, a Merendeira, the end) lowers deck + active seats + "
        f"{big} x Merendeiras + playing, so a round has at most {bound} such steps; every other move "
        f"leaves them unchanged",
        frame, "deck = cards in the main deck, active = seats that have not stopped, mer = Merendeira "
        "cards not yet resolved (deck, on top, set aside), playing = the round goes on",
        abstraction, init, invariant, actions, assumptions=typing,
        ranking=lambda f: f["deck"] + f["active"] + big * f["mer"] + f["playing"],
        decreasing=("draw", "stop", "merendeira", "round-ends"), resets=("new-round",))


def match_termination(game) -> RuleProof:
    cfg, n = game.cfg, game.num_players
    target = cfg.target_wins
    w = [f"w{p}" for p in range(n)]
    frame = _ints(w + ["fresh"])
    m0 = sum(cfg.stall_counts)

    def fresh(s):
        """A round just dealt: the full deck, no holdings, nobody stopped, every stall face down."""
        deck = tuple(s[game.o_deck:game.o_deck + len(game.kinds)])
        return (s[PH] == Phase.TURN and s[STOP] == 0 and s[GRITOS] == 0 and s[PHYS] == m0 + 1 and s[SLOTS] == m0 + 1
                and deck == tuple(cfg.deck[k] for k in game.kinds) and not any(s[game.o_hand:]))

    def abstraction(s):
        if s[PH] == Phase.END:   # the match is over
            return None
        f = {v: s[game.o_wins + p] for p, v in enumerate(w)}
        f["fresh"] = int(fresh(s))
        return f

    def invariant(f):
        return And([And(f[v] >= 0, f[v] <= target - 1) for v in w], Or(f["fresh"] == 0, f["fresh"] == 1))

    def init(f):
        return And([f[v] == 0 for v in w], f["fresh"] == 1)

    def play(s, t):
        return And(s["fresh"] == 1, t["fresh"] == 0, Unchanged(s, t, "fresh"))

    def next_round(s, t):
        gained = [t[v] - s[v] for v in w]
        # the match goes on only while nobody has reached the target (else: the exit)
        return And(t["fresh"] == 1, [Or(x == 0, x == 1) for x in gained], Sum(gained) >= 1,
                   [t[v] <= target - 1 for v in w])

    actions = [Action("play", play), Action("next-round", next_round)]
    return RuleProof(
        "match-termination",
        f"every new round follows at least one recorded win (000: tied players share the win, L15), "
        f"so n x target - wins ({n * target} at the start) drops on each: a match has at most "
        f"{n * (target - 1) + 1} rounds",
        frame, "w<seat> = the seat's round wins, fresh = a round has just been dealt; the match "
        "over is outside the frame", abstraction, init, invariant, actions,
        exits=[Exit("match-won", lambda f, _end: True)],
        ranking=lambda f: n * target - Sum([f[v] for v in w]), decreasing=("next-round",))


# ---- the main deck never runs out (3 or more Gritos) -------------------------------------------------------
def deck_never_empty(game) -> RuleProof:
    cfg = game.cfg
    gritos, size = cfg.deck[Kind.GRITO], cfg.deck_size
    frame = _ints(["deck", "gd", "res", "pend", "playing", "ran_out"])
    resets = cfg.rulings["L14"] == "merendeira-resets"

    def abstraction(s):
        return {"deck": sum(s[game.o_deck:game.o_deck + len(game.kinds)]),
                "gd": s[game.deck_index(Kind.GRITO)] if gritos else 0, "res": s[GRITOS],
                "pend": int(s[CARD] == Kind.GRITO and s[PH] not in (Phase.TURN, Phase.END)),
                "playing": int(s[PH] != Phase.END), "ran_out": int(s[END] == End.DECK)}

    def invariant(f):
        return And(f["gd"] >= 0, f["deck"] >= f["gd"], f["res"] >= 0, Or(f["pend"] == 0, f["pend"] == 1),
                   f["ran_out"] == 0,
                   Implies(f["playing"] == 1, And(f["res"] <= GRITO_END - 1,
                                                  f["gd"] + f["res"] + f["pend"] >= GRITO_END)),
                   Implies(And(f["playing"] == 1, f["pend"] == 0), f["deck"] >= 1))

    def init(f):
        return And(f["deck"] == size, f["gd"] == gritos, f["res"] == 0, f["pend"] == 0, f["playing"] == 1,
                   f["ran_out"] == 0)

    def ends_if_third(s, t):
        """000: the third Grito resolved ends the round; the round may also end for another reason."""
        return And(s["playing"] == 1, Implies(t["res"] >= GRITO_END, t["playing"] == 0), t["playing"] >= 0,
                   t["playing"] <= 1, t["ran_out"] == s["ran_out"])

    def draw_other(s, t):
        return And(s["deck"] - s["gd"] >= 1, t["deck"] == s["deck"] - 1, t["gd"] == s["gd"],
                   t["res"] == s["res"], t["pend"] == s["pend"], ends_if_third(s, t))

    def draw_grito(s, t):   # its opening follows; with no stall to open it is resolved at once
        return And(s["gd"] >= 1, s["pend"] == 0, t["deck"] == s["deck"] - 1, t["gd"] == s["gd"] - 1,
                   Or(And(t["pend"] == 1, t["res"] == s["res"]), And(t["pend"] == 0, t["res"] == s["res"] + 1)),
                   ends_if_third(s, t))

    def grito_resolved(s, t):
        return And(s["pend"] == 1, t["pend"] == 0, t["res"] == s["res"] + 1, t["deck"] == s["deck"],
                   t["gd"] == s["gd"], ends_if_third(s, t))

    def merendeira(s, t):   # the discarded Gritos go back into the deck (L14: the count may reset)
        common = And(s["pend"] == 0, t["pend"] == 0, t["deck"] - t["gd"] >= 0, ends_if_third(s, t))
        if resets:
            return And(common, t["res"] == 0, t["gd"] == s["gd"] + s["res"], t["deck"] >= s["deck"] + s["res"])
        return And(common, t["res"] == s["res"], t["gd"] >= s["gd"], t["deck"] >= s["deck"] + (t["gd"] - s["gd"]))

    def round_ends(s, t):   # the Loira, the Interruptor, everyone stopped, the empty centre
        return And(s["playing"] == 1, t["playing"] == 0, t["pend"] <= s["pend"], t["pend"] >= 0,
                   Unchanged(s, t, "playing", "pend"))

    actions = [Action("draw-other", draw_other), Action("draw-grito", draw_grito),
               Action("grito-resolved", grito_resolved), Action("merendeira", merendeira),
               Action("round-ends", round_ends)]
    if cfg.objective == "match":
        actions.append(Action("new-round", lambda s, t: init(t)))
    return RuleProof(
        "deck-never-empty",
        f"with {gritos} Gritos in the deck, Gritos in the deck + resolved + being resolved >= 3 while "
        f"the round goes on and at most 2 are resolved, so a Grito (a card) is always left to draw: "
        f"the deck never runs out and L25 never applies",
        frame, "deck = cards in the main deck, gd = Gritos in it, res = Gritos resolved this round, "
        "pend = a Grito being resolved, playing = the round goes on, ran_out = it ended on an empty deck",
        abstraction, init, invariant, actions,
        assumptions=lambda f: And(f["deck"] >= 0, f["res"] >= 0, f["playing"] >= 0, f["playing"] <= 1))


def loira_proofs(ruleset: Ruleset, game) -> list[RuleProof]:
    """The rule proofs that apply to this ruleset (the others are explorer checks, see below)."""
    cfg = game.cfg
    out = [card_conservation(game), roll_conservation(game), centre_belief(game)]
    if cfg.rulings["L25"] == "round-ends":
        out.append(round_termination(game))
    if cfg.objective == "match" and cfg.rulings["L15"] == "all-tied-win":
        out.append(match_termination(game))
    if cfg.deck[Kind.GRITO] >= GRITO_END:
        out.append(deck_never_empty(game))
    return out
