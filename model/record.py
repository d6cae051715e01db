"""A game's state declared once, as a typed record, and everything derived from it.

In the manner of a TLA+ ``VARIABLES`` block with its type invariant: each :class:`Field` names one
variable with its range and its meaning; a field may be one value per seat (``per_seat``) or hold a
seat number (``seat``: rotated with the seats, ``-1`` for none). From the declaration a
:class:`Record` derives what games otherwise write by hand, each once:

* the state as a tuple of ints in field order, and its **key**: the fields packed into one int
  (bit shifts and masks are public, for games that expand keys in numpy);
* **seat rotation** (the canonical representative of a seat-symmetric game puts a chosen seat
  first) with the permutation index the solver expects;
* **features** for play tables, relative to the seat that moves;
* what a **proof frame** is made of (``proofs.frames`` builds it): the columns by name, each
  with its range (the typing assumptions), and the abstraction of a state (its columns by name) --
  so a proof reads a state through the record, never through a game's private layout.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

State = tuple[int, ...]


@dataclass(frozen=True)
class Field:
    name: str
    lo: int
    hi: int
    doc: str
    per_seat: bool = False
    seat: bool = False

    def __post_init__(self) -> None:
        if self.hi < self.lo:
            raise ValueError(f"field {self.name}: empty range {self.lo}..{self.hi}")
        if self.seat and self.per_seat:
            raise ValueError(f"field {self.name}: a seat-valued field is not per seat")


class Record:
    """The columns of one configuration's state (``seats`` players)."""

    def __init__(self, seats: int, fields: Sequence[Field]):
        self.seats = seats
        self.fields = tuple(fields)
        self.columns: list[str] = []
        self.column_field: list[Field] = []
        for f in self.fields:
            names = [f"{f.name}{i}" for i in range(seats)] if f.per_seat else [f.name]
            self.columns += names
            self.column_field += [f] * len(names)
        self.index = {name: i for i, name in enumerate(self.columns)}
        if len(self.index) != len(self.columns):
            raise ValueError("two columns share a name")
        # the key: each column as (value - lo) in its own bit field, low bits first
        self.shift: dict[str, int] = {}
        self.width: dict[str, int] = {}
        offset = 0
        for name, f in zip(self.columns, self.column_field):
            w = max(1, (f.hi - f.lo).bit_length())
            self.shift[name], self.width[name] = offset, w
            offset += w
        self.bits = offset
        self._lo = tuple(f.lo for f in self.column_field)
        self._hi = tuple(f.hi for f in self.column_field)
        self._shifts = tuple(self.shift[c] for c in self.columns)
        self._masks = tuple((1 << self.width[c]) - 1 for c in self.columns)
        self.permutations = tuple(tuple((s - r) % seats for s in range(seats)) for r in range(seats))

    # --- values ---------------------------------------------------------------------------------
    def make(self, **values: Any) -> State:
        """A state from field values (a per-seat field as a sequence)."""
        out: list[int] = []
        for f in self.fields:
            v = values[f.name]
            if f.per_seat:
                if len(v) != self.seats:
                    raise ValueError(f"{f.name}: {len(v)} values for {self.seats} seats")
                out += [int(x) for x in v]
            else:
                out.append(int(v))
        return tuple(out)

    def get(self, state: State, name: str) -> int:
        return state[self.index[name]]

    def seat_values(self, state: State, name: str) -> tuple[int, ...]:
        i = self.index[f"{name}0"]
        return state[i:i + self.seats]

    def out_of_range(self, state: State) -> str | None:
        """The first column outside its declared range, in words (None when all fit)."""
        if len(state) != len(self.columns):
            return f"{len(state)} values for {len(self.columns)} columns"
        for name, v, lo, hi in zip(self.columns, state, self._lo, self._hi):
            if not lo <= v <= hi:
                return f"{name} = {v} outside {lo}..{hi}"
        return None

    # --- the key ------------------------------------------------------------------------------------
    def pack(self, state: State) -> int:
        key = 0
        for v, lo, shift, mask in zip(state, self._lo, self._shifts, self._masks):
            if not 0 <= v - lo <= mask:
                raise ValueError(f"state {state} does not fit its key's fields")
            key |= (v - lo) << shift
        return key

    def unpack(self, key: int) -> State:
        return tuple(((key >> shift) & mask) + lo for lo, shift, mask in zip(self._lo, self._shifts, self._masks))

    def column(self, keys: Any, name: str) -> Any:
        """One column read straight off packed keys (an int, or a numpy array of them at once)."""
        lo = self.column_field[self.index[name]].lo
        return ((keys >> self.shift[name]) & ((1 << self.width[name]) - 1)) + lo

    # --- seats --------------------------------------------------------------------------------------
    def rotate(self, state: State, first: int) -> State:
        """The same situation with seat ``first`` renamed seat 0 (seat s becomes s - first):
        per-seat columns rotate, seat-valued columns are renumbered (-1 stays none)."""
        if first == 0:
            return state
        n = self.seats
        out = list(state)
        for f in self.fields:
            if f.per_seat:
                i = self.index[f"{f.name}0"]
                vals = state[i:i + n]
                out[i:i + n] = vals[first:] + vals[:first]
            elif f.seat:
                i = self.index[f.name]
                if state[i] >= 0:
                    out[i] = (state[i] - first) % n
        return tuple(out)

    def relative(self, state: State, seat: int, name: str) -> list[int]:
        """A per-seat field read from ``seat``'s side: its own value, then the next seats' in turn."""
        vals = self.seat_values(state, name)
        return [vals[(seat + k) % self.seats] for k in range(self.seats)]

    # --- the proof frame ------------------------------------------------------------------------------
    def values(self, state: State) -> dict[str, int]:
        """The state's columns by name: the abstraction a proof reads."""
        return dict(zip(self.columns, state))

    def ranges(self) -> list[tuple[str, int, int]]:
        """(column, lowest, highest): the record's type invariant, which proofs assume and the
        refinement check checks on every mapped state."""
        return list(zip(self.columns, self._lo, self._hi))
