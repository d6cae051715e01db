"""Results shared by the explorer, the proofs and the CLI."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

HOLDS, FAILS, UNKNOWN = "holds", "fails", "unknown"


@dataclass
class PropertyResult:
    """One verified property: ``status`` is holds, fails or unknown (limit reached, solver gave up).

    ``counterexample`` is a narrated situation or trace (a list of readable lines) when it fails.
    ``kind`` says how it was established: "exhaustive", "z3", "graph", "exact", ...
    """

    name: str
    status: str
    detail: str = ""
    counterexample: list[str] | None = None
    kind: str = ""
    seconds: float = 0.0
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == HOLDS

    def as_dict(self) -> dict[str, Any]:
        out = {"name": self.name, "status": self.status, "kind": self.kind, "detail": self.detail,
               "counterexample": self.counterexample, "seconds": round(self.seconds, 4)}
        if self.data:
            out["data"] = self.data
        return out
