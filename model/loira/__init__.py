"""Loira do Banheiro (seeds/000, 2nd edition): the round and the match, every ruling L01-L37."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ruleproof.model.ruleset import Ruleset
from ruleproof.model.spec import GameSpec

from .config import SCHEMA
from .engines import DEFAULT_POLICY, ENGINES, METRICS, optimal_policy
from .policies import POLICIES

if TYPE_CHECKING:
    from .game import LoiraGame


def build(ruleset: Ruleset) -> LoiraGame:
    from .game import build as build_game  # imported on use, not at CLI start-up
    return build_game(ruleset)


def __getattr__(name: str):
    if name == "LoiraGame":  # the game class, imported on first use
        from .game import LoiraGame
        return LoiraGame
    raise AttributeError(name)


def draw_policy(game, sol, path):
    """``picture.draw_policy``, imported on use (scipy, matplotlib: not at CLI start-up)."""
    from .picture import draw_policy
    return draw_policy(game, sol, path)


def summary(sol, visits):
    """``summary.summary``, imported on use (solver.tables: numpy, scipy)."""
    from .summary import summary
    return summary(sol, visits)


SPEC = GameSpec(
    name="loira",
    title="Loira do Banheiro",
    summary="push-your-luck card game for 2-10 players: draw or stop, open stalls, flee the Loira",
    schema=SCHEMA,
    rulesets_dir=Path(__file__).parent / "rulesets",
    default_ruleset="loira",
    build=build,
    verify_overrides={"players": 2, "deck": ("F1", "F2", "M1", "grito", "toc-toc", "descarga", "fios"),
                      "stalls": (2, 4), "centre_rolls": 1},
    properties="ruleproof.proofs.loira:properties",
    derived="ruleproof.model.loira.shrink:derived",
    # the generic explorer visits about 7,000 Loira states a second: beyond this many, verify
    # switches to proofs on the ruleset's own parameters, derived configurations and sampling
    verify_max_states=150_000,
    # rulings the small round cannot exercise: a match (L15, L16, L37), more seats (L22, L24),
    # mini-expansion cards (L19), the standard deck and stalls (the random set-up of L01, L02)
    diff_configs=(
        ("a match", {"objective": "match"}),
        ("3 players", {"players": 3}),
        ("3 players, a match", {"players": 3, "objective": "match"}),
        ("mini-expansion cards", {"deck": ("F1", "F2", "M1", "grito", "toc-toc", "rapagote", "aluna",
                                           "diretora")}),
        ("the standard deck and stalls", {"deck": "standard", "stalls": "standard", "centre_rolls": -1}),
    ),
    engines=ENGINES,
    policies=POLICIES,
    default_policy=DEFAULT_POLICY,
    optimal_policy=optimal_policy,
    metrics=METRICS,
    picture=draw_policy,
    policy_summary=summary,
    configuration_key="ruleproof.model.loira.engines:configuration_key",
)

__all__ = ["SPEC", "LoiraGame", "build"]
