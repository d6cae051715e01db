"""The Loira do Banheiro rulings catalog (``spec/loira.md`` L01-L32, plus L33+ found while modelling).

Every entry is a named option; the first option is the default. ``cites`` quotes the sentence of
``seeds/000_1b118c65daa2cfb1.txt`` (000, the authority) or of the summaries 001/002 it interprets.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from ruleproof.model.ruleset import Needs, Ruling

R = Ruling

RULINGS: tuple[Ruling, ...] = (
    R("L01", "split of the 1- and 2-point bathroom cards",
      {"even": "F: -,1,1,1,2,2,2; PCD: -,1,1,1,2,2,2; M: 1,1,1,2,2,2",
       "more-ones": "F: -,1,1,1,1,2,2; PCD: -,1,1,1,1,2,2; M: 1,1,1,1,2,2",
       "more-twos": "F: -,1,1,2,2,2,2; PCD: -,1,1,2,2,2,2; M: 1,1,2,2,2,2"},
      '000 Componentes: "7 cartas de Banheiro Feminino (-, 1 e 2 pontos) ... 6 cartas de Banheiro '
      'Masculino (1 e 2 pontos)" (the split of 1s and 2s is not printed)'),
    R("L02", "values of the 6 score stalls",
      {"2-2-3-3-4-4": "two stalls each of 2, 3 and 4", "2-3-3-3-3-4": "one 2, four 3s, one 4",
       "2-2-2-4-4-4": "three 2s and three 4s"},
      '000 Componentes: "7 cartas de Cabine de Banheiro (2, 3, 4 pontos e Loira do Banheiro)"'),
    R("L03", "when may roll holders escort (acompanhar)",
      {"any-opening": "whenever another player is about to open a stall (000)",
       "grito-only": "only when a Grito is revealed (001/002)"},
      '000 Rolos: "Sempre que um outro jogador for abrir uma carta de Cabine, quem tiver um Rolo ... '
      'poderá descartá-lo"; 002: "When someone reveals the Scream card, a token holder can discard it"'),
    R("L04", "round tie-break",
      {"point-cards": "fewer point cards (000: cartas de Ponto)",
       "bathroom-cards": "fewer bathroom cards (001/002)"},
      '000 Fim da Rodada: "vence quem conseguiu a pontuação usando menos cartas de Ponto"; '
      '002: "using fewer Bathroom cards"'),
    R("L05", "what is a point card for L04",
      {"bathroom-stall-espelho": "bathroom cards (null ones too), stall cards, Espelho",
       "with-interruptor": "also count a kept Interruptor", "no-nulls": "exclude null bathroom cards"},
      '000 Cartas: "As cartas de Ponto serão mantidas à sua frente"; Banheiro: "Cartas de Ponto '
      '(-, 1 ou 2 pontos)"; Espelho: "terá o mesmo valor que uma carta de Ponto"'),
    R("L06", "everyone has stopped",
      {"round-ends": "the round ends and is scored"},
      '000 O Jogo: "Caso não queira ir ao banheiro, você não pega mais cartas até o final da rodada" '
      '(silent on everyone stopping; a round must end)'),
    R("L07", "the centre empty of stalls ends the round",
      {"yes": "yes (000)", "no": "no (001/002 list three triggers only): the round goes on without "
       "openings; Grito, Fios and Chute then find no stall and do nothing"},
      '000 Fim da Rodada: "Não há cartas de Cabine no centro da mesa (a carta da Loira não foi '
      'revelada por ter sido retirada pelo Chute no Vaso)"'),
    R("L08", "escaping the Loira",
      {"pair-discard": "optional: discard 2 bathroom cards of one door type (nulls included); the "
       "Loira is shuffled back into the centre (001/002)", "no-escape": "no escape"},
      '000 Fim da Rodada: "revelou a carta de Loira do Banheiro e não tem como escapar descartando '
      'cartas de Banheiro do mesmo tipo"; 002: "if the player has 2 Bathroom cards of the same type '
      '... they can discard them to escape ... the Bathroom Ghost is reshuffled back"'),
    R("L09", "what the Loira takes",
      {"all-rolls": "all the revealer's cards and all rolls held, carried-over ones too; the rolls "
       "go back to the centre", "round-rolls": "only rolls won this round (the carried-over ones stay)"},
      '000 O Centro da Mesa: "o jogador perde todas as cartas e Rolos de Papel Higiênico conquistados"'),
    R("L10", "Fios, Descarga, Toc-Toc steal with no eligible target",
      {"no-effect": "the card has no effect and is discarded",
       "self": "the revealer must target themself (Fios: opens; Descarga: discards own card)"},
      '000 O Jogo: "ficará imune de efeitos lançados por cartas dos adversários"'),
    R("L11", "what Descarga may discard",
      {"bathroom-or-stall": "a bathroom or stall card of another active player",
       "bathroom-only": "bathroom cards only"},
      '000 Descarga: "Descarte uma carta de Ponto de outro jogador"'),
    R("L12", "Espelho's value",
      {"any-point-card": "the owner copies any point card held by anyone (stall cards too); 0 if none",
       "bathroom-only": "only bathroom cards can be copied"},
      '000 Espelho: "terá o mesmo valor que uma carta de Ponto de qualquer jogador (inclusive a sua)"'),
    R("L13", "Interruptor use",
      {"active-only": "on your turn, instead of drawing, while you have not stopped",
       "also-stopped": "also usable after stopping (on the turn the holder would have had)"},
      '000 Interruptor: "Quando for a sua vez de jogar, você pode usá-la para terminar a rodada"'),
    R("L14", "third Grito resolved",
      {"per-round": "counted per round, Gritos reshuffled by Merendeira included",
       "merendeira-resets": "reset by Merendeira"},
      '000 Fim da Rodada: "A terceira carta Grito for resolvida"'),
    R("L15", "shared round win",
      {"all-tied-win": "every tied player records a win; the match may end with several winners",
       "replay": "the round is replayed (nobody records a win)"},
      '000 Fim da Rodada: "Persistindo o empate, os jogadores com a mesma pontuação dividem a vitória"'),
    R("L16", "first player of later rounds",
      {"next-seat": "the seat after the previous round's first player",
       "winner": "the previous round's lowest-seat winner", "after-winner": "the seat after that winner"},
      '000: "O 1º jogador é quem mais recentemente foi ao banheiro" (first round only)'),
    R("L17", "cards left unopened in a Susto da Loira",
      {"back-to-centre": "return face down to the centre, reshuffled; spent rolls stay in the centre",
       "rolls-returned": "the picks return to the centre and the escorts get their rolls back"},
      '000 Susto da Loira: "NINGUÉM mais abre cartas de Cabine no turno"'),
    R("L18", "who keeps a score stall opened by an escort",
      {"escort": "the escort", "opener": "the player who caused the opening"},
      '000 Rolos: "escolhe sua carta ... Os demais ... também escolhem suas cartas"'),
    R("L19", "mini-expansion cards set aside",
      {"stay-aside": "stay beside the deck; any later player may open one instead of the top card",
       "discard-at-end": "the same, and discarded at round end (no difference within one round)"},
      '000 Mini-expansões: "Se alguma carta de mini-expansão estiver de lado ..., o jogador da vez '
      'pode escolher abri-la ao invés da carta do topo"'),
    R("L20", "Ralo's -2 and protection",
      {"immune-pass-on-turn": "the holder is immune to others' effects; passing it is an action on "
       "their turn, to any active player, before deciding to go or stop"},
      '000 Ralo: "Quem pegar essa carta está protegido da ação de outros jogadores. Pode passar a '
      'carta a qualquer momento na sua vez, como uma ação. Mas se ficar com ela ... perde 2 pontos"'),
    R("L21", "may a player who has stopped escort",
      {"no": "no: a stopped player takes no action until the round ends", "yes": "yes"},
      '000 O Jogo: "você não pega mais cartas até o final da rodada"'),
    R("L22", "several escorts at once",
      {"seat-order": "each active roll holder decides in clockwise seat order after the opener, "
       "seeing earlier decisions"},
      '000 Rolos: "Isso pode ser feito por mais de um jogador ao mesmo tempo"'),
    R("L23", "Fios de Cabelo: who picks the stall and who may escort",
      {"invitee-picks": "the invitee picks and opens; escorts are everyone else active, inviter "
       "included", "inviter-picks": "the inviter picks (no difference: the pick is uniform)"},
      '000 Fios de cabelo: "Indique um outro participante para abrir uma das cartas de Cabine"'),
    R("L24", "Toc-Toc with 2 players",
      {"no-reversal-effect": "the reversal has no effect; the roll is taken as printed"},
      '000 Toc-Toc: "inverta o sentido do jogo"'),
    R("L25", "the main deck runs out before any end trigger",
      {"round-ends": "the round ends and is scored", "reshuffle": "reshuffle the discards into a new "
       "deck (the round ends if the discard pile is empty too)"},
      '000 (silent): "No sentido horário, cada um compra uma carta na sua vez"'),
    R("L26", "escort limits",
      {"one-roll-while-cards": "one roll per escort per opening, and only while the centre still holds "
       "a card for them to pick"},
      '000 Rolos: "escolhe sua carta no centro da mesa SEM abri-la"'),
    R("L27", "after a successful escape during an opening",
      {"susto-turn-goes-on": "the remaining picks are not opened (Susto), their rolls stay spent; the "
       "turn goes on; a Grito still counts as resolved", "opening-continues": "the remaining picks "
       "are opened"},
      '000 Susto da Loira: "mesmo que o jogador que revelou a Loira tenha escapado, todos os outros '
      '... saem correndo assustados. NINGUÉM mais abre cartas de Cabine no turno"'),
    R("L28", "can the Loira's victim win the round",
      {"yes": "yes: 0 points with 0 point cards, compared like anyone", "no": "the victim cannot win"},
      '000 Fim da Rodada: "o jogador com mais pontos registra uma vitória"'),
    R("L29", "are Toc-Toc, Descarga and Chute no Vaso mandatory",
      {"mandatory": "yes, whenever an eligible target exists; a flushed stall leaves the round",
       "optional": "the revealer may decline"},
      '000 Cartas: "As demais ativam o seu efeito e são descartadas"'),
    R("L30", "when can the Interruptor be used",
      {"later-turn": "at the start of a later turn of its holder, instead of drawing",
       "also-when-drawn": "also at once on the turn it is drawn"},
      '000 Interruptor: "Quando for a sua vez de jogar, você pode usá-la para terminar a rodada"'),
    R("L31", "can a player stop out of turn",
      {"no": "no: stopping is the turn's decision"},
      '000 O Jogo: "Na sua vez, decida se vai ao banheiro"'),
    R("L32", "may the invited player refuse Fios de Cabelo",
      {"no": "no, unless stopped (then L10)"},
      '000 Fios de cabelo: "Indique um outro participante para abrir"'),
    # ---- new rulings found while modelling (L33+) ----------------------------------------------
    R("L33", "who keeps a score stall opened through Fios de Cabelo",
      {"inviter": "the inviter (the Fios revealer)", "invitee": "the invitee who opened it"},
      '000 Fios de cabelo: "Se aparecer carta de Ponto, fique com ela" (addressed to the revealer); '
      '002: "the person who invited them keeps it"'),
    R("L34", "which score stalls to use with 8 to 12 score stalls (two boxes)",
      {"cycle": "the first box's six, then the second box's one of each value in turn, lowest first",
       "high-first": "the first box's six, then the second box's highest first"},
      '000 Jogando em 6 a 10: "ajustar o número de cartas de Cabine ... mínimo seja 7 ... e o máximo 13"'),
    R("L35", "the main deck with two boxes (6 to 10 players)",
      {"both-decks": "both boxes' main decks are shuffled together (the round still ends on the third "
       "Grito)", "one-deck": "one box's main deck only"},
      '000 Jogando em 6 a 10: "Basta juntar duas caixas do jogo"'),
    R("L36", "Toc-Toc when no roll can be taken (none in the centre, no eligible holder)",
      {"reverse-anyway": "the direction is still reversed", "no-effect": "nothing happens (L10 read "
       "for the whole card)"},
      '000 Toc-Toc: "pegue um Rolo de Papel Higiênico e inverta o sentido do jogo"'),
    R("L37", "the direction of play at the start of a later round",
      {"clockwise": "every round starts clockwise", "carried": "the direction carries over"},
      '000: "No sentido horário, cada um compra uma carta na sua vez"'),
    R("L38", "the back of a mini-expansion card on top of the main deck",
      {"unseen-before-drawing": "a player decides to go or stop without reading the top card's back: "
       "it is known to be a mini-expansion card when drawn, its kind only when opened"},
      '000 Mini-expansões: "Quando uma carta de mini-expansão aparece no topo do Baralho Principal (a '
      'cor delas é diferente), o jogador ... decide entre escolhê-la e abri-la OU deixá-la de lado"'),
)


# ---- which configurations can exercise a ruling (``rulings diff`` searches those) -----------------
_EXPANSIONS = ("rapagote", "zelador", "diretora", "tia", "aluna", "professora", "merendeira", "ralo")
_NULLS = ("F-", "P-", "M-")


def _has(params: Mapping[str, Any], name: str) -> bool:
    deck = params["deck"]
    if deck == "standard":   # base cards are all there (nulls only from 4 players); expansions if chosen
        if name in _EXPANSIONS:
            return name in params["expansions"]
        return name not in _NULLS or params["players"] >= 4
    return name in deck


def _card(*names: str) -> Needs:
    return Needs(f"a deck with {' or '.join(names)}", lambda p: any(_has(p, n) for n in names))


_MATCH = Needs("a match (objective = match)", lambda p: p["objective"] == "match")
NEEDS: dict[str, Needs] = {
    "L01": Needs("the standard deck (built from the split)", lambda p: p["deck"] == "standard"),
    "L02": Needs("the standard stalls (their values)", lambda p: p["stalls"] == "standard"),
    "L05": _card("interruptor", *_NULLS),
    "L09": Needs("a match (rolls carried from a round before)", lambda p: p["objective"] == "match"
                 or p["rolls"] != "standard"),
    "L10": _card("fios", "descarga", "toc-toc"),
    "L11": _card("descarga"),
    "L12": _card("espelho"),
    "L13": _card("interruptor"),
    "L14": _card("merendeira"),
    "L15": _MATCH,
    "L16": _MATCH,
    "L19": _card(*_EXPANSIONS),
    "L20": _card("ralo"),
    "L38": _card(*_EXPANSIONS),
    "L25": Needs("a deck with fewer than 3 Gritos (it can run out)",
                 lambda p: p["deck"] != "standard" and list(p["deck"]).count("grito") < 3),
    "L29": _card("toc-toc", "descarga", "chute"),
    "L30": _card("interruptor"),
    "L33": _card("fios"),
    "L34": Needs("8 or more score stalls (two boxes)", lambda p: p["stalls"] == "standard"
                 and p["stall_count"] > 7),
    "L35": Needs("the standard deck with two boxes (6 or more players)",
                 lambda p: p["deck"] == "standard" and p["players"] >= 6),
    # with 2 players the reversal it decides does nothing (L24; the C engine's differential test
    # checks L36's two readings give the same turns there)
    "L36": Needs("a deck with toc-toc and 3 or more players (with 2 the direction does not matter, L24)",
                 lambda p: _has(p, "toc-toc") and p["players"] >= 3),
    "L37": Needs("a match of 3 or more players (with 2 the direction does not matter, L24)",
                 lambda p: p["objective"] == "match" and p["players"] >= 3),
}
RULINGS = tuple(replace(r, needs=NEEDS.get(r.id)) for r in RULINGS)

