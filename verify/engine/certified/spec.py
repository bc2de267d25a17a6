"""A `theory.Claim` as the tree a certificate holds (`numerics.certify.claims.ClaimSpec`).

The claim's statement, window and event are taken with its parameters and definitions
substituted (`Claim.substituted`); numbers become exact rationals (a float is the binary
fraction it is), the window end ``oo`` the run's horizon, the event's time symbol the node
``["event_time"]``. A part the claim evaluator has no enclosure for (a quantity, an
instance number, a derivative, an operation) raises `NotEnclosed`, which `certify_claim`
reports as UNCERTIFIED.
"""

from __future__ import annotations

import sympy as sp

from numerics.certify.claims import ClaimSpec
from numerics.certify.quantities import INSTANCE_NUMBERS, MEASURES, NotEnclosed
from theory.claim import Claim, Kind

_RELATIONS = {sp.LessThan: "le", sp.StrictLessThan: "lt", sp.GreaterThan: "ge",
              sp.StrictGreaterThan: "gt", sp.Equality: "eq"}
_UNARY = {sp.exp: "exp", sp.log: "log", sp.Abs: "abs"}
_WINDOWED = (Kind.POINTWISE, Kind.CONSERVED, Kind.TRAPPING, Kind.IDENTITY)


def number(value: sp.Basic) -> list:
    """An exact number as ``["num", "p/q"]``."""
    q = sp.Rational(value)
    return ["num", f"{q.p}/{q.q}"]


def to_tree(expr: sp.Basic, event_time: sp.Symbol | None = None) -> list:
    """A substituted expression or relation as a tree (`numerics.certify.claims`)."""
    expr = sp.sympify(expr)
    if isinstance(expr, sp.And | sp.Or):
        return ["and" if isinstance(expr, sp.And) else "or",
                *(to_tree(a, event_time) for a in expr.args)]
    for kind, name in _RELATIONS.items():
        if isinstance(expr, kind):
            return [name, to_tree(expr.lhs, event_time), to_tree(expr.rhs, event_time)]
    if isinstance(expr, sp.logic.boolalg.BooleanAtom):
        raise NotEnclosed(f"the relation reduced to {expr} before any run")
    if expr == sp.oo:
        return ["horizon"]
    if expr is sp.pi:
        return ["pi"]
    if expr is sp.E:
        return ["E"]
    if expr.is_Rational or expr.is_Float:
        if not expr.is_finite:
            raise NotEnclosed(f"the number {expr}")
        return number(expr)
    if expr.is_Symbol:
        if event_time is not None and expr == event_time:
            return ["event_time"]
        if expr.name == "t":
            return ["t"]
        if expr.name in INSTANCE_NUMBERS:
            return ["inst", expr.name]
        raise NotEnclosed(f"{expr.name} has no certified enclosure (instance numbers "
                          f"enclosed: {', '.join(sorted(INSTANCE_NUMBERS))})")
    if isinstance(expr, sp.core.function.AppliedUndef):
        name = expr.func.__name__
        if name not in MEASURES:
            raise NotEnclosed(f"{name}(t) has no certified enclosure (certified: "
                              f"{', '.join(sorted(MEASURES))})")
        (arg,) = expr.args
        return ["q", name, to_tree(arg, event_time)]
    if isinstance(expr, sp.Derivative):
        raise NotEnclosed(f"the derivative {expr} has no certified enclosure")
    if isinstance(expr, sp.Add):
        return ["add", *(to_tree(a, event_time) for a in expr.args)]
    if isinstance(expr, sp.Mul):
        return ["mul", *(to_tree(a, event_time) for a in expr.args)]
    if isinstance(expr, sp.Pow):
        return ["pow", to_tree(expr.base, event_time), to_tree(expr.exp, event_time)]
    if isinstance(expr, sp.Min | sp.Max):
        return ["min" if isinstance(expr, sp.Min) else "max",
                *(to_tree(a, event_time) for a in expr.args)]
    for fn, name in _UNARY.items():
        if isinstance(expr, fn):
            return [name, to_tree(expr.args[0], event_time)]
    raise NotEnclosed(f"the operation {type(expr).__name__} has no certified enclosure")


def claim_spec(claim: Claim, horizon: float) -> ClaimSpec:
    """``claim`` on a run to ``horizon`` as the certificate holds it; `NotEnclosed` for
    what the claim evaluator cannot decide (a kind other than a window or an event-time
    bound, a quantity without an enclosure)."""
    sub = claim.substituted
    te = claim.event_time
    event = None if claim.event is None else to_tree(sub(claim.event), te)
    if claim.kind is Kind.EVENT_TIME:
        st = sub(claim.statement)
        if not (isinstance(st, sp.LessThan | sp.StrictLessThan) and st.lhs == te):
            raise NotEnclosed("an event-time statement other than t_event <= bound")
        relation = ["lt" if isinstance(st, sp.StrictLessThan) else "le", ["event_time"],
                    to_tree(st.rhs, te)]
        window = None
        form = f"{sp.sstr(st)}, {te} the first time {sp.sstr(sub(claim.event))}"
    elif claim.kind in _WINDOWED:
        st = sub(claim.statement)
        relation = to_tree(st, te)
        window = [to_tree(sub(w), te) for w in claim.window]
        form = f"{sp.sstr(st)} for t in [{', '.join(sp.sstr(sub(w)) for w in claim.window)}]"
        uses = any("event_time" in str(x) for x in [relation, window])
        if not uses:
            event = None
        elif event is not None:
            form += f", {te} the first time {sp.sstr(sub(claim.event))}"
    else:
        raise NotEnclosed(f"a {claim.kind.value} claim (certified: windows and event-time "
                          "bounds)")
    return ClaimSpec(id=claim.id, text=claim.title, form=form,
                     kind="event" if claim.kind is Kind.EVENT_TIME else "window",
                     relation=relation, window=window, event=event, horizon=float(horizon))


__all__ = ["claim_spec", "number", "to_tree"]
