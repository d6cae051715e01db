"""Presentes' own checks, beside its proofs (``proofs/presentes.py``): each reads the evidence
``verify`` gives it (the exploration, sampled plays, or the parameters alone) and never explores
anything itself.

* ``board-counts``: an official board has the squares the rule text's table prints;
* ``special-squares``: every ☠ draws an effect, and a ★ draws from an empty list exactly in the
  situation the eligibility rules allow (the mover holds a gift and nobody else on the track can
  be targeted; under P07 'own-leader', someone is ahead too) -- the reachable situations are
  counted, with the shortest witness; under P23 'redraw' reaching one fails (the game hangs);
* ``reveal-utilities``: at the reveal every player is off the track, and each seat's utility is
  the value of the gift it takes home (``gift_values``), nothing for a player the host removed;
* ``public-information``: the TV shows the whole table, so what a player observes is exactly it.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

from ruleproof.model.properties import EXPLORATION, NOTHING, SAMPLES, Context, Property
from ruleproof.model.protocol import TERMINAL
from ruleproof.model.results import FAILS, HOLDS
from ruleproof.proofs.information import information_property

from .board import Square
from .rules import Effect, Phase, St

SEED = "seeds/003_a4b37c79483a6044.txt"
#: 'O tabuleiro': the printed table (squares, ★, ☠, 🛡), as the rule text gives it
PRINTED = {"curta": (40, 9, 6, 3), "media": (70, 16, 11, 5), "longa": (100, 23, 15, 8)}


def check_board(ctx: Context) -> Any:
    board = ctx.game.board
    sq = board.squares
    counts = (len(sq), sum(k == Square.LUCK for k in sq), sum(k == Square.BAD for k in sq),
              sum(k == Square.SHIELD for k in sq))
    problems = []
    if board.name in PRINTED and counts != PRINTED[board.name]:
        problems.append(f"{board.name} has {counts[0]} squares, {counts[1]} ★, {counts[2]} ☠, {counts[3]} 🛡; "
                        f"the table prints {PRINTED[board.name]}")
    if sq[0] != Square.ORDINARY or sq[-1] != Square.ORDINARY:
        problems.append("the start or the finish is not an ordinary square")
    if board.name in PRINTED and sq[1] != Square.ORDINARY:
        problems.append("square 1 of a generated board is special (P01 keeps it ordinary)")
    if problems:
        return ctx.result("board-counts", FAILS, "; ".join(problems), [f"layout: {board.drawing()}"], kind="exhaustive")
    what = (f"{board.name}: {counts[0]} squares, {counts[1]} ★, {counts[2]} ☠, {counts[3]} 🛡 as the table prints"
            if board.name in PRINTED else f"{board.name} (a layout file): start and finish are ordinary squares")
    return ctx.result("board-counts", HOLDS, what, kind="exhaustive")


def empty_luck_allowed(ruleset, game, s: St) -> bool:
    """The only situation in which no ★ effect serves: the mover holds a gift (Salto serves anyone
    without one), no other player on the track can be targeted (Troca de lugar serves any
    targetable one) and, under P07 'own-leader', someone on the track is ahead (else the no-op
    Lugar serves)."""
    F, m = game.rules.finish, s.turn
    others = [i for i in range(len(s.pos)) if i != m and s.pos[i] < F]
    targetable = [i for i in others if game.board.squares[s.pos[i]] != Square.SHIELD]
    leads = not any(s.pos[i] > s.pos[m] for i in others)
    own = ruleset.ruling("P07") == "own-leader"
    return s.gift[m] >= 0 and not targetable and not (own and leads)


def check_special_squares(ctx: Context) -> Any:
    name = "special-squares"
    game, ruleset = ctx.game, ctx.ruleset
    redraw = ruleset.ruling("P23") == "redraw"
    found, witness = 0, None
    for n, (s, narrate) in enumerate(ctx.states()):
        if n & 1023 == 0 and ctx.limits.expired():
            return ctx.limits.not_run(name)
        if s.phase not in (Phase.LUCK, Phase.BAD) or game.current_player(s) == TERMINAL:
            continue
        outcomes = game.chance_outcomes(s)
        empty = bool(outcomes) and all(o[0] == Effect.NOTHING for o, _ in outcomes)
        if s.phase == Phase.BAD:
            if empty or not outcomes:
                return ctx.result(name, FAILS, "a ☠ square draws no effect (Volte 3 casas serves a player "
                                  "without a gift, De volta à árvore one with a gift)", narrate())
            continue
        allowed = empty_luck_allowed(ruleset, game, s)
        if empty != allowed:
            why = ("no ★ effect is drawn although one serves the mover's situation" if empty else
                   "a ★ effect is drawn although none serves (the mover holds a gift and nobody else on the "
                   "track can be targeted)")
            return ctx.result(name, FAILS, why, narrate())
        if empty:
            found += 1
            witness = witness or narrate
    detail = ("every ☠ draws an effect; a ★ draws from an empty list exactly where no effect serves "
              f"(the mover holds a gift, nobody else on the track targetable): {found:,} such situations")
    data = {"states": found, "shortest_witness": witness() if witness else None}
    if found and redraw:
        return ctx.result(name, FAILS, detail + "; P23 'redraw' draws again there for ever: the game hangs",
                          witness() + ["no eligible effect: redrawn forever (P23 'redraw')"], data=data)
    return ctx.result(name, HOLDS, detail + ("; P23: nothing happens there" if found else ""), data=data)


def gift_value(ruleset, seat: int, gift: int) -> Fraction:
    """``gift_values``: empty = 1 for any gift but your own; n values = gift g is worth values[g]
    to everyone; n*n values = a row per seat."""
    raw, n = tuple(ruleset["gift_values"]), ruleset["players"]
    if not raw:
        return Fraction(int(gift != seat))
    return Fraction(raw[gift] if len(raw) == n else raw[seat * n + gift])


def check_reveal(ctx: Context) -> Any:
    name = "reveal-utilities"
    game, ruleset = ctx.game, ctx.ruleset
    F, out = game.rules.finish, game.rules.out
    takes = ruleset.ruling("P04") == "take-from-tree"
    ends = 0
    for n, (s, narrate) in enumerate(ctx.states()):
        if n & 1023 == 0 and ctx.limits.expired():
            return ctx.limits.not_run(name)
        if game.current_player(s) != TERMINAL:
            continue
        ends += 1
        problem = None
        still = [i for i, p in enumerate(s.pos) if p < F]
        if still:
            problem = f"the game is over with {['P%d' % i for i in still]} still on the track"
        elif takes and any(p == F and g < 0 for p, g in zip(s.pos, s.gift)):
            problem = "a player who arrived takes no gift home (P04 'take-from-tree')"
        else:
            want = tuple(Fraction(0) if p == out or g < 0 else gift_value(ruleset, i, g)
                         for i, (p, g) in enumerate(zip(s.pos, s.gift)))
            got = tuple(game.returns(s))
            if got != want:
                problem = (f"the utilities are {[str(x) for x in got]}; the gifts taken home are worth "
                           f"{[str(x) for x in want]}")
        if problem:
            return ctx.result(name, FAILS, "the reveal does not give each player the gift it takes home", narrate()
                              + [problem])
    return ctx.result(name, HOLDS, f"at each of the {ends:,} reveals every player is off the track and each "
                      "seat's utility is the value of the gift it takes home (0 for a removed player)")


def table_view(state: St, seat: int) -> tuple:
    """What the TV shows: the phase of play, whose turn, every square, gift and first-gift choice,
    the tree, the arrival order, the host's slot and the Revanche pending."""
    return tuple(state)


def game_checks(ruleset, game) -> list[Property]:
    return [
        Property("board-counts", f"{SEED}: 'Os tabuleiros têm 40, 70 ou 100 casas, cada um com o seu número de "
                 "casas ★, ☠ e 🛡' (the table)", (NOTHING,), check_board),
        Property("special-squares", f"{SEED}: 'Cada casa especial sorteia um efeito entre os que servem para a sua "
                 "situação' (P23)", (EXPLORATION, SAMPLES), check_special_squares),
        Property("reveal-utilities", f"{SEED}: 'O jogo termina quando só resta um jogador no caminho. Aí a TV mostra "
                 "todos os jogadores em ordem de chegada e quem leva qual presente.'", (EXPLORATION, SAMPLES),
                 check_reveal),
        information_property("public-information", f"{SEED}: 'A TV aplica todas as regras por você ... A TV mostra "
                             "o efeito': the table is public", table_view,
                             "the TV shows the whole table: every seat observes exactly it"),
    ]
