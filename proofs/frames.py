"""Proof frames derived from a game's state record (``model.record``).

A frame is one Z3 integer per record column, plus the names a proof's moves bind (their
parameters and ``actor``, the seat that moves or -1 for chance). The record's ranges are the typing
assumptions Z3 may use; the refinement check evaluates the same predicate on every mapped state.
The helpers read a per-seat column at a seat that may be a Z3 term, so one relation serves every
seat.
"""
from __future__ import annotations

from typing import Any, Iterable

import z3

from ruleproof.model.record import Record
from ruleproof.proofs.harness import FrameFactory
from ruleproof.proofs.logic import And, If, Or


def record_frame(record: Record, extra: Iterable[str] = ()) -> FrameFactory:
    """A frame factory: the record's columns, then ``extra`` names, each a Z3 integer."""
    names = list(record.columns) + [x for x in extra if x not in record.index]

    def frame(suffix: str) -> dict[str, z3.ArithRef]:
        return {name: z3.Int(name + suffix) for name in names}
    return frame


def record_typing(record: Record):
    """The record's type invariant: each column within its declared range."""
    ranges = record.ranges()

    def typing(f) -> Any:
        return And([And(f[c] >= lo, f[c] <= hi) for c, lo, hi in ranges])
    return typing


def seat_value(f, name: str, seat: Any, seats: int) -> Any:
    """``f[name<seat>]`` for a seat that may be a Z3 term (then an if-chain over the seats)."""
    if isinstance(seat, int):
        return f[f"{name}{seat}"]
    out = f[f"{name}{seats - 1}"]
    for i in range(seats - 2, -1, -1):
        out = If(seat == i, f[f"{name}{i}"], out)
    return out


def next_seat(seat: Any, seats: int) -> Any:
    """The seat after ``seat`` in turn order."""
    return If(seat == seats - 1, 0, seat + 1)


def seats_changed(pre, post, name: str, seat: Any, seats: int, value: Any) -> Any:
    """Column ``name`` of ``seat`` becomes ``value``; every other seat's keeps its value."""
    return And([Or(And(seat == i, post[f"{name}{i}"] == value),
                   And(seat != i, post[f"{name}{i}"] == pre[f"{name}{i}"])) for i in range(seats)])
