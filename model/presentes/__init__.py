"""Presentes, the gift race: a dice race with gift stealing for 2 to 32 players (TV and phones).

Source: ``seeds/003_a4b37c79483a6044.txt``; model notes and rulings: ``model/presentes/README.md``.
"""
from __future__ import annotations

from pathlib import Path

from ruleproof.model.spec import GameSpec

from ruleproof.model.seams import Engine

from .config import SCHEMA, build
from .policies import POLICIES


def solve_chain(ruleset, options, progress):
    """``analysis.solve_chain``, imported on use (numpy and scipy: not at CLI start-up)."""
    from .analysis import solve_chain
    return solve_chain(ruleset, options, progress)


#: the one engine: the turn-start Markov chain (every seat's value under the ruleset's policy)
ENGINE = Engine("markov-chain", lambda ruleset, options: None, solve_chain)


def simulate_playouts(*args, **kwargs):
    """``simulate.simulate_playouts``, imported on use (numpy: not at CLI start-up)."""
    from .simulate import simulate_playouts
    return simulate_playouts(*args, **kwargs)


SPEC = GameSpec(
    name="presentes",
    title="Presentes (the gift race)",
    summary="dice race on a 40/70/100-square track with luck, bad-luck and shield squares; "
            "steal and swap gifts; the game ends when one player is left on the track",
    schema=SCHEMA,
    rulesets_dir=Path(__file__).parent / "rulesets",
    default_ruleset="presentes",
    build=build,
    verify_overrides={"players": 2, "board": "mini", "dice": 1},
    verify_max_states=2_000_000,
    properties="ruleproof.proofs.presentes:properties",
    derived="ruleproof.proofs.presentes:derived",
    engines=(ENGINE,),
    simulator=simulate_playouts,
    policies=POLICIES,
)
