"""Connectives with two interpretations: Z3 terms for the proofs, Python values for the model.

A proof's invariant and action relations are written once with these functions. Given frames of
Z3 constants they build formulas for Z3; given frames of ints and bools (the abstraction of a real
model state) they evaluate at once to ``True``/``False``. That is what lets the refinement check
(``proofs.refinement``) ask, for every transition the explorer visits, whether the relation the
proof reasons about admits it -- the very same relation, not a second copy.
"""
from __future__ import annotations

from typing import Any, Iterable

import z3


_EXPR = z3.ExprRef


def _scan(args: Iterable[Any], out: list[Any]) -> bool:
    """Flatten ``args`` into ``out`` (lists and tuples are spliced in); whether any is a Z3 term.
    One pass: the refinement check evaluates these connectives on every real transition."""
    symbolic = False
    for a in args:
        if isinstance(a, (list, tuple)):
            symbolic = _scan(a, out) or symbolic
        else:
            out.append(a)
            if not symbolic and isinstance(a, _EXPR):
                symbolic = True
    return symbolic


def _flat(args: Iterable[Any]) -> list[Any]:
    out: list[Any] = []
    _scan(args, out)
    return out


def _symbolic(args: Iterable[Any]) -> bool:
    return any(isinstance(a, _EXPR) for a in args)


def And(*args: Any) -> Any:
    xs: list[Any] = []
    return z3.And(xs) if _scan(args, xs) else all(xs)


def Or(*args: Any) -> Any:
    xs: list[Any] = []
    return z3.Or(xs) if _scan(args, xs) else any(xs)


def Not(x: Any) -> Any:
    return z3.Not(x) if isinstance(x, _EXPR) else not x


def Implies(a: Any, b: Any) -> Any:
    if isinstance(a, _EXPR) or isinstance(b, _EXPR):
        return z3.Implies(a, b)
    return (not a) or bool(b)


def If(c: Any, a: Any, b: Any) -> Any:
    if isinstance(c, _EXPR) or isinstance(a, _EXPR) or isinstance(b, _EXPR):
        return z3.If(c, a, b)
    return a if c else b


def Sum(*args: Any) -> Any:
    xs: list[Any] = []
    return z3.Sum(xs) if _scan(args, xs) else sum(xs)


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
