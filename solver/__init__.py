"""Game-agnostic exploration and solving: sees only the protocol in ``model.protocol``."""
