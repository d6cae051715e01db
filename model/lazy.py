"""A mapping whose keys are known at start-up and whose values live in a module imported on the
first lookup: the CLI lists a game's policies without importing the game's engine."""
from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any


class LazyMapping(Mapping):
    """``getattr(import_module(module), name)`` restricted to ``keys``; a test keeps the keys
    equal to the real mapping's (``tests/test_startup.py``)."""

    def __init__(self, module: str, name: str, keys: tuple[str, ...]):
        self.module, self.name, self._keys = module, name, keys

    def load(self) -> Mapping[str, Any]:
        return getattr(importlib.import_module(self.module), self.name)

    def __getitem__(self, key: str) -> Any:
        if key not in self._keys:
            raise KeyError(key)
        return self.load()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)
