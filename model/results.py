"""Results shared by the explorer, the proofs and the CLI."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

HOLDS, FAILS, UNKNOWN = "holds", "fails", "unknown"

#: evidence levels, strongest first (docs/verify.md says what each means)
PROVED, EXHAUSTIVE, SAMPLED = "proved", "exhaustive", "sampled"
EVIDENCE_LEVELS = (PROVED, EXHAUSTIVE, SAMPLED, FAILS, UNKNOWN)
#: how each ``kind`` of check establishes a property that holds
_EVIDENCE_OF_KIND = {"z3": PROVED, "exhaustive": EXHAUSTIVE, "graph": EXHAUSTIVE, "sampled": SAMPLED}


@dataclass
class PropertyResult:
    """One verified property: ``status`` is holds, fails or unknown (limit reached, solver gave up).

    ``counterexample`` is a narrated situation or trace (a list of readable lines) when it fails.
    ``kind`` says how it was established: "z3" (a solver proof), "exhaustive" and "graph" (every
    reachable state of one configuration), "sampled" (random plays: not a proof). ``scope`` names
    the configuration the evidence is about (and its size), so a result is never read as a claim
    about another configuration. ``evidence`` is the level a reader should take away.
    """

    name: str
    status: str
    detail: str = ""
    counterexample: list[str] | None = None
    kind: str = ""
    seconds: float = 0.0
    data: dict[str, Any] = field(default_factory=dict)
    scope: str = ""

    @property
    def ok(self) -> bool:
        return self.status == HOLDS

    @property
    def evidence(self) -> str:
        """proved / exhaustive / sampled when it holds; fails; unknown."""
        if self.status != HOLDS:
            return self.status
        return _EVIDENCE_OF_KIND.get(self.kind, EXHAUSTIVE)

    def as_dict(self) -> dict[str, Any]:
        out = {"name": self.name, "status": self.status, "evidence": self.evidence, "kind": self.kind,
               "scope": self.scope, "detail": self.detail, "counterexample": self.counterexample,
               "seconds": round(self.seconds, 4)}
        if self.data:
            out["data"] = self.data
        return out
