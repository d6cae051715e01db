"""Parameters and rulings of Presentes, and the ruleset -> Rules/Game builder."""
from __future__ import annotations

from dataclasses import replace

from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping

from ruleproof.model.ruleset import Needs, Param, Ruleset, RulesetError, RulesSchema, Ruling, int_in, int_list, one_of

from .board import Board, dice_distribution, make_board, parse_board_param
from .rules import Rules

SEED = "seeds/003_a4b37c79483a6044.txt"


def _pairs(value: Any) -> tuple[tuple[int, int], ...]:
    """host_remove: a list of [slot, seat] pairs or "slot:seat" strings."""
    if isinstance(value, str):
        value = [v for v in value.replace(",", " ").split()]
    if not isinstance(value, (list, tuple)):
        raise ValueError("must be a list of [turn slot, seat] pairs")
    out = []
    for item in value:
        if isinstance(item, str) and ":" in item:
            item = item.split(":", 1)
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise ValueError(f"{item!r} is not a [turn slot, seat] pair")
        slot, seat = int_in(1, 100_000)(item[0]), int_in(0, 31)(item[1])
        out.append((slot, seat))
    return tuple(sorted(out))


PARAMS = (
    Param("players", "number of players (2 to 32)", 2, int_in(2, 32)),
    Param("board", "curta, media, longa, a built-in layout (mini, tiny) or a layout file path",
          "curta", parse_board_param),
    Param("dice", "1 or 2 dice", 1, int_in(1, 2)),
    Param("layout_seed", "seed of the layout generator for the official boards (P01)", 1,
          int_in(0, 2**31 - 1)),
    Param("max_landings", "landings allowed in one chain ('no máximo 3 quedas seguidas')", 3,
          int_in(1, 6)),
    Param("sneak_range", "Roubo sorrateiro reach in squares ('a até 6 casas')", 6, int_in(0, 400)),
    Param("jumps", "Salto à frente distances ('Avance 2, 3 ou 5 casas')", (2, 3, 5),
          int_list(1, 30, 1, 6)),
    Param("back", "Volte 3 casas distance", 3, int_in(1, 30)),
    Param("gift_values", "utility of ending with each gift: empty = 1 for any gift but your own; "
          "n values = gift g is worth values[g] to everyone; n*n values = row per seat", (),
          int_list(-1000, 1000, 0, 1024)),
    Param("policy", "exact analysis: the policy of the seats that do not optimise (eager, passive, "
          "random)", "eager", one_of("eager", "passive", "random")),
    Param("focal_seat", "exact analysis: the seat that plays optimally for its gift values (-1: none, "
          "everyone follows the policy)", -1, int_in(-1, 31)),
    Param("host_skip", "scenario: turn slots whose player the host skips ('Pular vez')", (),
          int_list(1, 100_000, 0, 64)),
    Param("host_remove", "scenario: [turn slot, seat] pairs the host removes ('Remover jogador')",
          (), _pairs),
)


def _whole(p: Mapping[str, Any]) -> tuple[str, str] | None:
    n = p["players"]
    if len(p["gift_values"]) not in (0, n, n * n):
        return "gift_values", f"give 0, {n} or {n * n} values for {n} players, not {len(p['gift_values'])}"
    for slot, seat in p["host_remove"]:
        if seat >= n:
            return "host_remove", f"seat {seat} does not exist with {n} players"
    if p["focal_seat"] >= n:
        return "focal_seat", f"seat {p['focal_seat']} does not exist with {n} players"
    return None


def _r(rid: str, question: str, cites: str, **options: str) -> Ruling:
    return Ruling(rid, question, {k.replace("_", "-"): v for k, v in options.items()}, cites)


RULINGS = (
    _r("P01", "board layout (only counts are given)", "O tabuleiro: the table of counts",
       generated="specials spread evenly with a seeded shuffle; start, square 1 and finish ordinary"),
    _r("P02", "'presente e o lugar do mais adiantado': place back or 'os seus'?",
       "Em troca, fica com o seu lugar / Em troca, fica com os seus",
       swap_both="you and the leader swap gift and place", gift_only="swap the gifts only"),
    _r("P03", "finishing", "Quem chega ao fim fica com o presente",
       reach_or_pass="reaching or passing the last square finishes",
       bounce="exact landing needed: the excess bounces back"),
    _r("P04", "the last player left on the track", "O jogo termina quando só resta um jogador",
       take_from_tree="takes a gift from the tree if they have none", keep="keeps whatever they hold"),
    _r("P05", "choice of 2, 3 or 5 in Salto à frente", "Avance 2, 3 ou 5 casas", uniform="uniform",
       printed_order="weighted as printed: the k-th of the m printed distances has weight m-k+1, "
       "so 2, 3, 5 come 3:2:1 (the first printed is the likeliest)"),
    _r("P06", "'within 6 squares'", "Roube o presente de um jogador a até 6 casas",
       either="either direction, 6 or fewer squares apart", ahead="ahead only (0..6 squares)"),
    _r("P07", "who is the leader when you lead", "quando o mais adiantado tem um presente",
       not_eligible="the effect is not eligible",
       own_leader="you are your own leader: with no other player on the track strictly ahead, "
       "'Roube o presente e o lugar do mais adiantado' is eligible when you hold a gift and does "
       "nothing (it still ends the turn); 'do mais adiantado' still needs the leader 'à sua frente'"),
    _r("P08", "'the previous player'", "O jogador anterior pode roubar seu presente",
       previous_seat="the nearest seat before yours in turn order still on the track",
       behind="the nearest player behind you on the track (strictly lower square, shielded or not); "
       "several on that square: one at random; nobody behind: no Revanche is eligible"),
    _r("P09", "moving back past the start", "Ande 3 casas para trás", stop="stops at the start"),
    _r("P10", "two pieces on one square", "(silent)", allowed="allowed, no interaction"),
    _r("P11", "effects choosing a player (Troca de lugar, Roubo sorrateiro)",
       "o celular pergunta quando há uma escolha",
       choose="the player chooses among the eligible", random="random among the eligible"),
    _r("P12", "what counts as a landing in a chain", "Valem no máximo 3 quedas seguidas",
       roll_is_first="the roll is landing 1; a Salto on landing 3 moves without resolving"),
    _r("P13", "finishing in the middle of a chain", "Quem chega ao fim fica com o presente",
       ends_turn="any forward move reaching the finish ends the chain and the turn"),
    _r("P14", "a finisher without a gift", "Quem chega sem presente pega um da árvore",
       tree="takes one from the tree at random; no steal option",
       steal="if the first-gift choice is still unused (P16) the finisher gets it as on an "
       "ordinary square: steal from a targetable holder (who then takes from the tree) or take "
       "from the tree; otherwise from the tree"),
    _r("P15", "which gift comes from the tree", "pega um da árvore", random="uniformly random",
       pick="the taker chooses which gift (a decision of the taker, also for the victim of a first "
       "steal and the last player)"),
    _r("P16", "when the first-gift choice is used up",
       "Na primeira vez que você cai numa casa comum sem presente, escolhe como ganhar um",
       first_ordinary="the first ordinary landing without a gift, stealing possible or not",
       first_gift="the first time the player gets any gift"),
    _r("P17", "'presente e lugar do mais adiantado', printed twice", "(listed twice)",
       one="one effect, weight 1", two="two effects: weight 2"),
    _r("P18", "Roubo sorrateiro without a gift", "Casa ★, com presente / Se você também tiver um",
       not_eligible="not eligible", eligible="eligible: a plain steal"),
    _r("P19", "who can be targeted", "Casas 🛡: ninguém pode pegar o presente ... com essa pessoa",
       on_track_unshielded="only players on the track and not on a shield square"),
    _r("P20", "'o mais adiantado'",
       "quando o mais adiantado tem um presente / Pegue o presente mais perto da chegada",
       leader_then_gift="'Roube o presente e o lugar do mais adiantado' ('quando o mais adiantado "
       "tem um presente'): the leader is the other player on the track strictly ahead at the "
       "highest position, found without looking at gifts (ties: one at random, as P26); the "
       "effect is eligible only when that player holds a gift and is targetable. 'Roube o "
       "presente do mais adiantado' ('Pegue o presente mais perto da chegada'): the body names "
       "a gift, so its leader is the targetable holder of the gift nearest the finish, strictly "
       "ahead ('está à sua frente'), ties at random",
       gift_holder_ahead="for both effects, the targetable gift holders strictly ahead at the "
       "highest position, ties at random (a giftless or shielded leader is passed over)",
       tied_leader_with_gift="'O efeito é sorteado entre os que servem para a sua situação': no "
       "hidden draw of the leader. 'Roube o presente e o lugar do mais adiantado' is eligible when any "
       "of the players tied at the top position strictly ahead (gifts unseen) holds a gift and is "
       "targetable, and takes one of those at random (P26); a lone giftless or shielded leader still "
       "blocks it. 'Roube o presente do mais adiantado' as under leader-then-gift"),
    _r("P21", "'logo à frente / logo atrás'", "Pegue o presente mais próximo à sua frente",
       nearest_holder="the nearest eligible gift holder strictly ahead (behind)"),
    _r("P22", "a steal by a player holding a gift", "Em troca, ele fica com o seu", swap="a swap"),
    _r("P23", "a luck square with no eligible effect", "sorteado entre os que servem",
       nothing="nothing happens",
       redraw="draw again until an effect serves: the same law when one does; when none does "
       "(a gift and every other player on the track shielded) the draws never end and the game "
       "hangs: verify reports it, the exact analysis and simulate refuse a game that reaches it"),
    _r("P24", "Revanche with a shielded previous player", "Casas 🛡 / Revanche",
       steal_only="the steal is allowed, the swap is not"),
    _r("P25", "what one turn is, for game length", "Sua vez", one_roll="one roll and all it triggers"),
    _r("P26", "ties for 'logo à frente / logo atrás' (several holders on the nearest square)",
       "Pegue o presente mais próximo à sua frente", random="uniformly random among them"),
    _r("P27", "'the previous player' before anyone has played", "O jogador anterior",
       cyclic="seat order is cyclic: on the first turn it is the last seat on the track"),
    _r("P28", "host 'Remover jogador'", "Tira um jogador da partida. O presente dele volta para a árvore",
       held_gift="the gift they hold (if any) goes under the tree at the start of the scheduled "
       "turn slot; they leave no arrival place"),
    _r("P29", "host 'Pular vez'", "Encerra a vez do jogador atual quando ele não pode jogar",
       no_roll="the player of the scheduled slot does not roll; not counted as a turn (P25)"),
    _r("P30", "Troca de lugar with a player on your own square", "Troque de lugar ... com outro jogador",
       allowed="allowed (the swap changes nothing)"),
    _r("P31", "Roubo sorrateiro on a player on your own square", "um jogador a até 6 casas",
       allowed="distance 0 is within reach"),
    _r("P32", "the last player left in the reveal", "mostra todos os jogadores em ordem de chegada",
       last="they arrive last"),
    _r("P33", "the first-gift question when nobody can be stolen from", "escolhe como ganhar um",
       tree="no question: a gift from the tree (P16 still uses the choice up)"),
    _r("P34", "how the phone asks the first-gift choice (what a player choosing at random picks)",
       "Seu primeiro presente: roube de alguém ou pegue da árvore",
       two_questions="two questions: steal or take from the tree (1/2 each at random), then, to "
       "steal, whom (uniformly among those who can be stolen from)",
       one_list="one question listing the tree and each player who can be stolen from "
       "(uniformly among them at random)"),
)

# P34 changes how the random policy answers, not the game's moves: no configuration of the rules
# can tell its readings apart (``rulings diff`` says so; ``simulate --policy random`` shows it)
RULINGS = tuple(replace(r, needs=Needs("a random policy: it changes how a player choosing at random "
                                       "answers, not the rules", lambda _p: False))
                if r.id == "P34" else r for r in RULINGS)

SCHEMA = RulesSchema("presentes", PARAMS, RULINGS, _whole)


def _values(n: int, raw: tuple[int, ...]) -> tuple[tuple[Fraction, ...], ...]:
    if not raw:
        return tuple(tuple(Fraction(int(g != i)) for g in range(n)) for i in range(n))
    if len(raw) == n:
        return tuple(tuple(Fraction(v) for v in raw) for _ in range(n))
    return tuple(tuple(Fraction(raw[i * n + g]) for g in range(n)) for i in range(n))


def board_of(ruleset: Ruleset) -> Board:
    # a relative layout path is looked up beside the file that set it (the command line: the
    # current folder), and a missing layout blames that file or the command line
    origin = ruleset.origin("board")
    base = str(Path(origin).parent) if Path(origin).is_file() else "."
    try:
        return make_board(ruleset["board"], ruleset["layout_seed"], base)
    except RulesetError:  # the layout file itself is bad: the error names it
        raise
    except ValueError as exc:
        raise RulesetError(origin, "params.board", str(exc)) from None


def rules_of(ruleset: Ruleset) -> tuple[Rules, Board]:
    p, ru = ruleset.params, ruleset.rulings
    board = board_of(ruleset)
    n = p["players"]
    removals: dict[int, tuple[int, ...]] = {}
    for slot, seat in p["host_remove"]:
        if seat >= n:
            raise RulesetError(ruleset.source, "params.host_remove", f"seat {seat} does not exist")
        removals[slot] = removals.get(slot, ()) + (seat,)
    rules = Rules(
        players=n, squares=tuple(int(sq) for sq in board.squares), dice=dice_distribution(p["dice"]),
        max_landings=p["max_landings"], sneak_range=p["sneak_range"], jumps=tuple(p["jumps"]),
        back=p["back"], lugar_swaps_place=ru.get("P02", "swap-both") == "swap-both",
        bounce=ru.get("P03") == "bounce", last_takes=ru.get("P04", "take-from-tree") == "take-from-tree",
        sneak_ahead_only=ru.get("P06") == "ahead", random_targets=ru.get("P11") == "random",
        first_on_any_gift=ru.get("P16") == "first-gift", lugar_weight=2 if ru.get("P17") == "two" else 1,
        sneak_without_gift=ru.get("P18") == "eligible", jumps_printed=ru.get("P05") == "printed-order",
        own_leader=ru.get("P07") == "own-leader", prev_behind=ru.get("P08") == "behind",
        finisher_steals=ru.get("P14") == "steal", tree_pick=ru.get("P15") == "pick",
        redraw=ru.get("P23") == "redraw", leader_by_gift=ru.get("P20") == "gift-holder-ahead",
        leader_any_tied=ru.get("P20") == "tied-leader-with-gift",
        first_one_list=ru.get("P34") == "one-list",
        skips=frozenset(p["host_skip"]),
        removals=removals, values=_values(n, tuple(p["gift_values"])))
    return rules, board


def build(ruleset: Ruleset):
    from .game import PresentesGame
    rules, board = rules_of(ruleset)
    return PresentesGame(rules, board)
