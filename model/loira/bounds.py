"""Closed-form bounds of a Loira ruleset: round score range and the stalls one seat can win.

These are the bounds of a sound abstraction of reachable holdings (each card held at most as many
times as it is in the deck; stalls won limited by the openings one seat can take part in). The Z3
optimiser in ``proofs/loira.py`` recomputes them from constraints and must agree; the exhaustive
explorer checks that no reachable state leaves them.
"""
from __future__ import annotations

from .cards import Kind
from .config import Config

GRITO_END = 3


def escorts_per_opening(cfg: Config) -> int:
    """Extra stalls one opening can hand its keeper: under L18 "opener" every escort's stall goes
    to the player who caused the opening, and each other seat holding a roll may escort once."""
    if cfg.rulings["L18"] != "opener":
        return 0
    return min(cfg.players - 1, cfg.total_rolls)


def opening_capacity(cfg: Config) -> int:
    """Most score stalls one seat can win in a round: one per opening event it takes part in
    (a Grito, a Fios de Cabelo, a Rapagote, a Diretora, a Professora) and two per Aluna, plus the
    escorts' stalls when the opener keeps them (L18 "opener"; escorts join any opening or only a
    Grito, L03), plus one per Fios de Cabelo whose inviter keeps the invitee's stall (L33) and may
    escort the invitee too, keeping its own pick (L23, L18 "escort")."""
    deck = cfg.deck
    total = sum(cfg.stall_counts)
    if cfg.rulings["L25"] == "reshuffle":
        return total
    mult = 2 if deck[Kind.MERENDEIRA] else 1   # one Merendeira reshuffle: cards drawn twice at most
    gritos = deck[Kind.GRITO] * mult
    if cfg.rulings["L14"] == "per-round":
        gritos = min(gritos, GRITO_END)
    events = deck[Kind.FIOS] + deck[Kind.ALUNA] + deck[Kind.RAPAGOTE] + deck[Kind.DIRETORA] \
        + deck[Kind.PROFESSORA]
    picks = events + deck[Kind.ALUNA]
    extra = escorts_per_opening(cfg)
    other_extra = extra if cfg.rulings["L03"] == "any-opening" else 0
    inviter_escorts = (cfg.rulings["L03"] == "any-opening" and cfg.rulings["L33"] == "inviter"
                       and cfg.rulings["L18"] == "escort" and cfg.total_rolls > 0)
    picks += deck[Kind.FIOS] if inviter_escorts else 0
    return min(total, gritos * (1 + extra) + mult * (picks + events * other_extra))


def best_stalls(cfg: Config, k: int) -> int:
    values = sorted((v for v, c in zip(cfg.stalls, cfg.stall_counts) for _ in range(c)), reverse=True)
    return sum(values[:k])


def espelho_max(cfg: Config) -> int:
    bath = max((k % 3 for k in range(9) if cfg.deck[k]), default=0)
    stall = max(cfg.stalls, default=0) if (cfg.rulings["L12"] == "any-point-card"
                                           and opening_capacity(cfg) > 0) else 0
    return max(bath, stall)


def score_bounds(cfg: Config) -> tuple[int, int]:
    """(min, max) round score of one seat."""
    deck = cfg.deck
    bath = sum((k % 3) * deck[k] for k in range(9))
    hi = bath + best_stalls(cfg, opening_capacity(cfg)) + deck[Kind.ESPELHO] * espelho_max(cfg) \
        + 2 * deck[Kind.INTERRUPTOR] + cfg.total_rolls
    lo = -2 * deck[Kind.RALO]
    return lo, hi
