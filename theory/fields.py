"""Checks of the fields of the records a pack author writes (`theory.Claim`,
`theory.Assumption`, `theory.Source`, `theory.symbols.Term`, `verify.instances.families.Family`).

A malformed record is refused where it is made: a `RecordError` whose one line names the
record (``claim 'TOY-1'``), the field and what is allowed, instead of a sympy or
attribute error deep inside a check much later. Plain numbers (``int``, ``float``,
``fractions.Fraction``) where a sympy expression is expected are converted (an int or a
Fraction exactly); text is never turned into an expression (it would have to be
evaluated), so a string there is refused.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from fractions import Fraction

import sympy as sp
from sympy.core.function import FunctionClass
from sympy.core.relational import Relational
from sympy.logic.boolalg import BooleanAtom, BooleanFunction


class RecordError(ValueError):
    """A malformed record (a claim, an assumption, a term, a family, a pack's part); the
    message names the record, the field and what is allowed."""


def _got(value) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"got {type(value).__name__} {text}"


def fail(owner: str, field: str, allowed: str, value, hint: str = "") -> RecordError:
    """The error for ``owner``'s ``field`` holding ``value`` (not ``allowed``)."""
    return RecordError(f"{owner}: {field}: {allowed}, {_got(value)}{hint}")


def text(owner: str, field: str, value, *, empty: bool = True) -> str:
    """A string (non-empty unless ``empty``)."""
    if not isinstance(value, str) or (not empty and not value.strip()):
        raise fail(owner, field, "a non-empty string" if not empty else "a string", value)
    return value


def flag(owner: str, field: str, value) -> bool:
    """True or False (not 0/1, not text)."""
    if not isinstance(value, bool):
        raise fail(owner, field, "True or False", value)
    return value


def strings(owner: str, field: str, value) -> tuple[str, ...]:
    """A tuple (or list) of strings, as a tuple; a bare string is refused with the fix."""
    if isinstance(value, str):
        raise fail(owner, field, "a tuple of strings", value, f"; write ({value!r},)")
    if not isinstance(value, tuple | list) or not all(isinstance(v, str) for v in value):
        raise fail(owner, field, "a tuple of strings", value)
    return tuple(value)


def expression(owner: str, field: str, value, *, allow_none: bool = False):
    """A sympy expression; a plain number is converted (int and Fraction exactly)."""
    if value is None and allow_none:
        return None
    if isinstance(value, sp.Expr):  # (sympy's numbers are registered as numbers.Real)
        return value
    if isinstance(value, bool):
        raise fail(owner, field, "a sympy expression or a number", value)
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, numbers.Integral):
        return sp.Integer(int(value))
    if isinstance(value, numbers.Real):
        return sp.Float(float(value))
    allowed = "a sympy expression or a number" + (" (or None)" if allow_none else "")
    hint = (" (text is not evaluated: build it with sympy, e.g. sp.Rational(1, 4))"
            if isinstance(value, str) else "")
    raise fail(owner, field, allowed, value, hint)


def _relations_only(value) -> bool:
    if isinstance(value, Relational):
        return True
    return (isinstance(value, BooleanFunction)
            and all(_relations_only(a) for a in value.args))


def relation(owner: str, field: str, value, *, allow_none: bool = False):
    """A sympy relation (``sp.Le(L(t), L(0))``), or relations joined by sympy's logic
    (``sp.And``, ``sp.Or``, ``sp.Implies``, ...); not a Python comparison that already
    evaluated to True or False, nor a bare expression."""
    if value is None and allow_none:
        return None
    if not _relations_only(value):
        hint = (" (a comparison of numbers evaluates at once: build it with sp.Le, sp.Ge, "
                "sp.Eq, ...)" if isinstance(value, bool | BooleanAtom) else "")
        raise fail(owner, field, "a sympy relation (sp.Le, sp.Lt, sp.Ge, sp.Gt, sp.Eq) or "
                   "relations joined by sp.And, sp.Or, sp.Implies"
                   + (" (or None)" if allow_none else ""), value, hint)
    return value


def symbol(owner: str, field: str, value, *, allow_none: bool = False):
    """A sympy Symbol (or None when allowed)."""
    if value is None and allow_none:
        return None
    if not isinstance(value, sp.Symbol):
        hint = f"; write sp.Symbol({value!r})" if isinstance(value, str) else ""
        raise fail(owner, field, "a sympy Symbol" + (" (or None)" if allow_none else ""),
                   value, hint)
    return value


def window(owner: str, value) -> tuple:
    """``(start, end)``: two sympy expressions or numbers (``sp.oo`` for no end)."""
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise fail(owner, "window", "a pair (start, end) of sympy expressions or numbers",
                   value)
    return tuple(expression(owner, f"window[{k}]", v) for k, v in enumerate(value))


def parameters(owner: str, value) -> dict:
    """name (str) -> sympy expression, number (converted) or None (a fitted prefactor)."""
    if not isinstance(value, Mapping):
        raise fail(owner, "parameters", "a mapping name -> value", value)
    out = {}
    for key, v in value.items():
        if not isinstance(key, str):
            hint = f"; write {{{str(key)!r}: ...}}" if isinstance(key, sp.Symbol) else ""
            raise fail(owner, "parameters", "keys that are parameter names (str)", key, hint)
        out[key] = expression(owner, f"parameters[{key!r}]", v, allow_none=True)
    return out


def definitions(owner: str, value) -> dict:
    """symbol -> sympy expression (or number, converted)."""
    if not isinstance(value, Mapping):
        raise fail(owner, "definitions", "a mapping symbol -> formula", value)
    out = {}
    for key, v in value.items():
        if not isinstance(key, sp.Symbol):
            hint = f"; write {{sp.Symbol({key!r}): ...}}" if isinstance(key, str) else ""
            raise fail(owner, "definitions", "keys that are sympy Symbols", key, hint)
        out[key] = expression(owner, f"definitions[{key}]", v)
    return out


def instance_of(owner: str, field: str, value, cls, allowed: str):
    if not isinstance(value, cls):
        raise fail(owner, field, allowed, value)
    return value


def records(owner: str, field: str, value, cls) -> tuple:
    """A tuple (or list) of ``cls`` records, as a tuple; one record alone is refused with
    the fix."""
    if isinstance(value, cls):
        raise fail(owner, field, f"a tuple of {cls.__name__}", value, "; write (it,)")
    if not isinstance(value, tuple | list) or not all(isinstance(v, cls) for v in value):
        raise fail(owner, field, f"a tuple of {cls.__name__}", value)
    return tuple(value)


def callable_field(owner: str, field: str, value, signature: str):
    if not callable(value):
        raise fail(owner, field, f"a function {signature}", value)
    return value


def vocabulary_object(owner: str, value):
    """A term's object: a sympy Symbol, or an undefined sympy Function (``L``, applied as
    ``L(t)``)."""
    if not isinstance(value, sp.Symbol | FunctionClass):
        raise fail(owner, "obj", "a sympy Symbol or Function", value)
    return value


__all__ = ["RecordError", "definitions", "expression", "fail", "flag", "parameters",
           "records", "relation", "strings", "symbol", "text", "window"]
