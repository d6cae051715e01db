"""The state record of a Loira round (and match): one flat tuple of ints, its own canonical key.

Header fields (each variable's meaning beside it, TLA+ style):

    PH      phase: whose move and what kind (see ``Phase``)
    TURN    the seat whose turn it is
    DIR     0 clockwise (seat + 1), 1 counter-clockwise (Toc-Toc reverses it)
    STOP    bitmask of seats that have stopped ("não pega mais cartas até o final da rodada")
    GRITOS  Gritos resolved this round (the third ends it)
    CROLLS  toilet-paper rolls in the centre
    PHYS    stall cards physically in the centre, the Loira included when present
    SLOTS   belief denominator: the Loira is in the centre with probability PHYS/SLOTS, and the
            next opened stall is the Loira with probability 1/SLOTS (see ``model.loira.centre``)
    QN, QM, QI  the current opening: picks queued, of which QM were the card's own, QI revealed
    CUR     escort candidate being asked (offset from the first picker)
    VICTIM  seat deciding on an escape from the Loira (or -1)
    END     0 while the round (match) goes on, else the reason it ended (``End``)
    FIRST   the seat that started this round
    CARD    the main-deck card being resolved (-1 none; ``CLOSED`` a closed mini-expansion card)
    PREV    the seat whose set-aside choice or Zelador discard is pending (mini-expansions)

Regions follow: the opening queue (picker, beneficiary) pairs, the main deck and the discard pile
(counts per card kind present in the configuration; for a mini-expansion kind the deck entry counts
its *closed* cards -- in the deck, set aside or on top --, since nobody knows where each one lies),
how many closed mini-expansion cards are set aside, the
centre's public multiset of unopened score stalls (counts per value), the stalls out of the round
(flushed or lost to the Loira), rolls per seat, rolls per seat when the round started, round wins
per seat, and each seat's holding (bathroom cards by kind, stalls by value, Espelho, Interruptor,
Ralo).
"""
from __future__ import annotations

from enum import IntEnum

from .cards import plain_ints

LoiraState = tuple[int, ...]

(PH, TURN, DIR, STOP, GRITOS, CROLLS, PHYS, SLOTS, QN, QM, QI, CUR, VICTIM, END, FIRST, CARD,
 PREV) = range(17)
HEADER = 17


class Phase(IntEnum):
    TURN = 0        # the turn seat: go, stop, use the Interruptor, pass the Ralo, open a set-aside card
    DRAW = 1        # chance: the top card of the main deck
    STEAL = 2       # Toc-Toc with no roll in the centre: whose roll to take
    DESCARGA = 3    # which point card of which player to flush
    FIOS = 4        # whom to invite to open a stall
    ESCORT = 5      # a roll holder: escort the opener or not
    REVEAL = 6      # chance: the next queued pick is revealed
    ESCAPE = 7      # the Loira's victim: escape with a pair or not
    END = 8         # terminal
    EXPANSION = 9   # a mini-expansion card on top: open it or set it aside
    INTNOW = 10     # L30 alternative: use the Interruptor just drawn
    CHUTE = 11      # L29 alternative: kick a stall or not
    RAPAGOTE = 12   # whom the Rapagote revealer indicates
    ZELADOR = 13    # PREV seat chooses which point card to discard
    DIRETORA = 14   # too few stalls: the revealer picks who opens (as a set)
    PROFESSORA = 15  # the two invitees, in order
    TOCTOC = 16     # L29 alternative: apply the Toc-Toc or decline it
    UNVEIL = 17     # chance: the kind of the closed mini-expansion card being opened


class End(IntEnum):
    PLAYING = 0
    LOIRA = 1       # the Loira was revealed and not escaped
    GRITO = 2       # the third Grito was resolved
    SWITCH = 3      # the Interruptor was used
    EMPTY = 4       # no stall left in the centre (L07)
    STOPPED = 5     # everyone stopped (L06)
    DECK = 6        # the main deck ran out (L25)


PhaseInts, EndInts = plain_ints(Phase), plain_ints(End)

# action codes
GO, STOP_ACT, SWITCH, PASS = 0, 1, 2, 3
RALO_PASS = 100     # + target seat
OPEN_ASIDE = 200    # open a set-aside (closed) mini-expansion card
#: a closed mini-expansion card: the draw's outcome, and CARD while it lies on top or is being
#: opened (its kind is nobody's knowledge until it is opened, 000 "ainda fechada")
CLOSED = 24
LOIRA = 99          # reveal outcome: the Loira
NO, YES = 0, 1
DECLINE = -1
