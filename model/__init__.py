"""Game rules: the protocol every game implements, rulesets, and one folder per game."""
from .protocol import CHANCE, TERMINAL, Game, Invariant
from .ruleset import Param, Ruling, Ruleset, RulesetError, RulesSchema

__all__ = ["CHANCE", "TERMINAL", "Game", "Invariant", "Param", "Ruling", "Ruleset", "RulesetError",
           "RulesSchema"]
