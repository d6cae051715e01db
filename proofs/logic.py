"""Connectives with two interpretations: Z3 terms for the proofs, Python values for the model.

A proof's invariant and action relations are written once with these functions. Given frames of
Z3 constants they build formulas for Z3; given frames of ints and bools (the abstraction of a real
model state) they evaluate at once to ``True``/``False``. That is what lets the refinement check
(``proofs.refinement``) ask, for every transition the explorer visits, whether the relation the
proof reasons about admits it -- the very same relation, not a second copy.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

import z3


_Expr = z3.ExprRef


def _flat(args: Iterable[Any]) -> Sequence[Any]:
    for a in args:
        if isinstance(a, (list, tuple)):
            break
    else:
        return args   # nothing nested (the common case on plain values)
    out: list[Any] = []
    for a in args:
        if isinstance(a, (list, tuple)):
            out.extend(_flat(a))
        else:
            out.append(a)
    return out


def _plain(args: tuple) -> Sequence[Any] | None:
    """The values of a call made of plain ints and bools only (one list, or the arguments
    themselves), else None: the refinement check evaluates the relations on plain frames millions
    of times, and ``And([...])`` would otherwise flatten its one list at each call."""
    xs = args[0] if len(args) == 1 and args[0].__class__ is list else args
    for a in xs:
        c = a.__class__
        if c is not bool and c is not int:
            return None
    return xs


def _symbolic(args: Iterable[Any]) -> bool:
    for a in args:
        if isinstance(a, _Expr):
            return True
    return False


def And(*args: Any) -> Any:
    # plain values first (the refinement check evaluates relations millions of times): a False
    # decides at once -- in Z3's reading too, And(..., False, ...) is False
    for a in args:
        if a is True:
            continue
        if a is False:
            return False
        break
    else:
        return True
    xs = _plain(args)
    if xs is not None:
        return all(xs)
    xs = _flat(args)
    return z3.And(list(xs)) if _symbolic(xs) else all(xs)


def Or(*args: Any) -> Any:
    for a in args:
        if a is False:
            continue
        if a is True:
            return True
        break
    else:
        return False
    xs = _plain(args)
    if xs is not None:
        return any(xs)
    xs = _flat(args)
    return z3.Or(list(xs)) if _symbolic(xs) else any(xs)


def Not(x: Any) -> Any:
    return z3.Not(x) if isinstance(x, _Expr) else not x


def Implies(a: Any, b: Any) -> Any:
    return z3.Implies(a, b) if isinstance(a, _Expr) or isinstance(b, _Expr) else (not a) or bool(b)


def If(c: Any, a: Any, b: Any) -> Any:
    if c.__class__ is bool and a.__class__ is int and b.__class__ is int:   # (plain frames: most calls)
        return a if c else b
    if isinstance(c, _Expr) or isinstance(a, _Expr) or isinstance(b, _Expr):
        return z3.If(c, a, b)
    return a if c else b


def Sum(*args: Any) -> Any:
    plain = _plain(args)
    if plain is not None:
        return sum(plain)
    xs = _flat(args)
    return z3.Sum(list(xs)) if _symbolic(xs) else sum(xs)


def Min(a: Any, b: Any) -> Any:
    return If(a <= b, a, b)


def Max(a: Any, b: Any) -> Any:
    return If(a >= b, a, b)


def Eq(pre: dict, post: dict, names: Iterable[str]) -> Any:
    """The named variables keep their values (the frame condition of an action)."""
    return And([post[n] == pre[n] for n in names])


def Unchanged(pre: dict, post: dict, *changed: str) -> Any:
    """Every variable but ``changed`` keeps its value."""
    return And([post[n] == pre[n] for n in pre if n not in changed])


class Conjunction:
    """A state predicate made of named parts, each a predicate: calling it gives the And of the
    parts. A check that evaluates the predicate on many real frames (``proofs.refinement``) checks
    each part on its own, once per distinct value of the variables that part reads."""

    def __init__(self, *parts: Callable[[Any], Any]):
        self.parts = tuple(p for part in parts for p in getattr(part, "parts", (part,)))
        self._terms: dict[tuple, Any] = {}   # the Z3 term of a frame of Z3 constants, built once

    def __call__(self, f: Any) -> Any:
        if f and isinstance(next(iter(f.values())), _Expr):
            key = tuple((k, v.get_id()) for k, v in f.items())
            got = self._terms.get(key)
            if got is None:
                got = self._terms[key] = And([part(f) for part in self.parts])
            return got
        return And([part(f) for part in self.parts])
