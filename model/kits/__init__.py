"""Kits: what several games of one family share (declared once, used by each game's folder)."""
