"""How a LIMIT claim's relations read: the limits they take and the rate they state.

A relation of a `theory.Kind.LIMIT` claim is one of

- a limit against a value: ``Eq(Limit(Q, lam, 0), Q*)`` (or ``Le``, ``Ge``, ``Lt``, ``Gt``;
  the limit on either side), Q an expression of the vocabulary; limits nest, outermost
  first: ``Limit(Limit(F(t), t, oo), lam, 0)`` is lam -> 0 of each run's t -> infinity
  limit. The value Q* is an expression in instance quantities (never in the limit's own
  variable, except for a limit in t at fixed lam);
- a rate without a constant: ``Le(Q, C * x**a)`` with C a parameter whose value is None
  (fitted): Q = O(x^a) as x -> 0 (``Ge``: at least of that order; ``Eq``: of exactly that
  order). Q is read where the claim's window says (``(tau, tau)``: at tau), or is a limit
  in t (``Le(Limit(F(t), t, oo), C * lam**a)``: each run's limit point). x may be a run
  quantity G(t) (``Le(F(t), C * G(t)**a)``): then the rate is read along one run's saves, as
  G(t) goes to 0 or infinity.

`limit_forms` reads every relation of a claim (a `RecordError` naming the claim when one is
neither); `describe` says in words how the claim is checked (the catalogue's line).
Nothing here computes a number: `verify.engine.check_limit` decides on sequences.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
from sympy.core.function import AppliedUndef

from theory.fields import RecordError

_T = "t"
_FLIP = {sp.Eq: sp.Eq, sp.Le: sp.Ge, sp.Ge: sp.Le, sp.Lt: sp.Gt, sp.Gt: sp.Lt}


@dataclass(frozen=True)
class LimitForm:
    """One relation of a LIMIT claim, read.

    Attributes
    ----------
    relation
        The relation as declared.
    op
        Its operator with the limit (or the rated quantity) on the left: sp.Eq, sp.Le,
        sp.Ge, sp.Lt or sp.Gt.
    quantity
        The expression under the limits (Limits stripped), or the rated quantity.
    target
        The claimed limit Q* (the other side), or None for a rate.
    limits
        ``((variable, point), ...)``, outermost first; a rate's is ``((x, 0),)``.
    rate
        ``(x, a)`` for a rate Q ~ C x^a (a with the claim's parameters substituted: a number,
        or an expression in instance quantities that the sequence holds fixed), else None.
    """

    relation: sp.Basic
    op: type
    quantity: sp.Basic
    target: sp.Basic | None
    limits: tuple[tuple[sp.Symbol, sp.Basic], ...]
    rate: tuple[sp.Symbol, sp.Basic] | None = None

    @property
    def outer(self) -> tuple[sp.Symbol, sp.Basic]:
        """The outermost limit: the sequence the check fits along."""
        return self.limits[0]

    @property
    def in_time_only(self) -> bool:
        """Whether every limit is t -> infinity (one run decides it)."""
        return all(v.name == _T for v, _ in self.limits)

    @property
    def inner_time_limit(self) -> bool:
        """Whether the innermost limit is t -> infinity (a run's limit point or saves)."""
        return self.limits[-1][0].name == _T

    def text(self) -> str:
        """The limits in words, outermost first ("lam -> 0 of t -> oo")."""
        return " of ".join(f"{v} -> {sp.sstr(p)}" for v, p in self.limits)


def _peel(expr: sp.Basic) -> tuple[sp.Basic, tuple]:
    limits = []
    while isinstance(expr, sp.Limit):
        inner, var, point = expr.args[0], expr.args[1], expr.args[2]
        limits.append((var, point))
        expr = inner
    return expr, tuple(limits)


def _fail(claim, rel, why: str) -> RecordError:
    return RecordError(f"claim {claim.id!r}: statement: a LIMIT claim's relations are limits "
                       "(Eq(Limit(Q, lam, 0), Q*), nested for lam -> 0 of t -> oo) or rates "
                       f"(Le(Q, C*x**a) with C a fitted parameter); {sp.sstr(rel)}: {why}")


def limit_form(claim, rel: sp.Basic) -> LimitForm:
    """``rel`` (a relation of ``claim``) read as a limit or a rate (module docstring)."""
    if type(rel) not in _FLIP:
        raise _fail(claim, rel, "not a relation")
    sides = (rel.lhs, rel.rhs)
    has = [bool(side.atoms(sp.Limit)) for side in sides]
    if any(has):
        if all(has):
            raise _fail(claim, rel, "limits on both sides")
        k = 0 if has[0] else 1
        quantity, limits = _peel(sides[k])
        if quantity.atoms(sp.Limit):
            raise _fail(claim, rel, "a limit inside an expression: write the limit outermost")
        target = sides[1 - k]
        op = type(rel) if k == 0 else _FLIP[type(rel)]
        for var, point in limits:
            if not isinstance(var, sp.Symbol):
                raise _fail(claim, rel, f"the limit's variable {var} is not a symbol")
            if var.name == _T and point != sp.oo:
                raise _fail(claim, rel, "a limit in t is t -> oo")
            if var.name != _T and point != 0:
                raise _fail(claim, rel, f"a limit in {var} goes to 0 (the sequences decrease "
                            "an instance quantity)")
        rate = _rate(claim, target) if all(v.name == _T for v, _ in limits) else None
        if rate is not None:  # lim_t Q <= C x^a: the limit point's Q is O(x^a) as x -> 0
            return LimitForm(rel, op, quantity, None, ((rate[0], sp.Integer(0)),) + limits,
                             rate=rate)
        outer_vars = {v for v, _ in limits if v.name != _T}
        if target.free_symbols & outer_vars:
            raise _fail(claim, rel, "the claimed limit depends on the limit's own variable")
        return LimitForm(rel, op, quantity, target, limits)
    rate = _rate(claim, rel.rhs)
    if rate is None:
        raise _fail(claim, rel, "neither a limit nor a rate C*x**a with one fitted constant C "
                    "and a numeric exponent a")
    if isinstance(rate[0], AppliedUndef):  # a rate in a run quantity: along one run's saves
        t = next(s for s in rate[0].free_symbols if s.name == _T)
        return LimitForm(rel, type(rel), rel.lhs, None, ((t, sp.oo),), rate=rate)
    return LimitForm(rel, type(rel), rel.lhs, None, ((rate[0], sp.Integer(0)),), rate=rate)


def _rate(claim, side: sp.Basic) -> tuple[sp.Basic, sp.Basic] | None:
    """(x, a) when ``side`` is C x**a with C the claim's one fitted parameter (value None),
    x an instance quantity or a run quantity F(t), and a a number (or an expression in
    instance quantities) once the other parameters are set; else None."""
    fitted = {k for k, v in claim.parameters.items() if v is None}
    side = claim.substituted(side)
    constants = [s for s in side.free_symbols if s.name in fitted]
    if len(constants) != 1:
        return None
    base, exponent = sp.powsimp(side / constants[0]).as_base_exp()
    timed = isinstance(base, AppliedUndef) and any(s.name == _T for s in base.free_symbols)
    if not (isinstance(base, sp.Symbol) and base.name != _T or timed):
        return None
    if exponent.free_symbols & base.free_symbols or exponent.atoms(AppliedUndef) \
            or any(s.name == _T for s in exponent.free_symbols):
        return None
    return base, exponent


def limit_forms(claim) -> tuple[LimitForm, ...]:
    """Every relation of ``claim`` (a LIMIT claim) read (`limit_form`)."""
    return tuple(limit_form(claim, rel) for rel in claim.relations())


def describe(claim) -> str:
    """How ``claim`` is checked as a limit, in words (the catalogue's line)."""
    parts, ways = [], []
    for form in limit_forms(claim):
        if form.rate is not None:
            x, a = form.rate
            if form.in_time_only:
                parts.append(f"{sp.sstr(form.quantity)} = O({sp.sstr(x)}^{sp.sstr(a)}) as "
                             "t -> oo")
                ways.append(f"a rate's exponent fitted against {sp.sstr(x)} along the run's "
                            "log-spaced saves (95% band), against the claimed one")
                continue
            at = " (at each run's limit point)" if form.inner_time_limit else ""
            parts.append(f"{sp.sstr(form.quantity)}{at} = O({x}^{sp.sstr(a)}) as {x} -> 0")
            ways.append(f"a rate's exponent fitted against {x} over instances with {x} "
                        "decreasing geometrically (95% band), against the claimed one")
            continue
        head = "".join(f"lim_{{{v} -> {sp.sstr(p)}}} " for v, p in form.limits)
        parts.append(f"{head}{sp.sstr(form.quantity)} {_OPS[form.op]} {sp.sstr(form.target)}")
        if any(v.name == _T for v, _ in form.limits):
            ways.append("t -> oo at each run's limit point (its end state polished by "
                        "Newton's method; for a loss without one, along the run's log-spaced "
                        "saves)")
        if any(v.name != _T for v, _ in form.limits):
            ways.append("lam -> 0 along runs with lam decreasing geometrically: |Q - Q*| "
                        "fitted against lam (95% band on its exponent), the limit read where "
                        "the sequence settles or extrapolated")
    unique = list(dict.fromkeys(ways))
    return "; ".join(parts) + ". " + "; ".join(unique)


_OPS = {sp.Eq: "=", sp.Le: "<=", sp.Ge: ">=", sp.Lt: "<", sp.Gt: ">"}

__all__ = ["LimitForm", "describe", "limit_form", "limit_forms"]
