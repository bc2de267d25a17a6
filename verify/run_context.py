"""A claim's expressions evaluated on a run: every measured quantity, instance value and
parameter of the statement at the saved times, with its numerical error (ERROR_SAFETY x
the companion difference + the round-off propagated through the expression), and the
signed margin of each relation. `verify.check_run` decides on these numbers.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import sympy as sp

from numerics import Trajectory
from theory.bridge import flatten
from theory.claim import Claim
from verify.measures import (
    ERROR_SAFETY,
    Series,
    UnknownQuantity,
    instance_values,
    measure,
)
from verify.relations import signed_margin
from verify.verdict import CheckError

# Absolute slack for assumptions stated as "= 0" on instance quantities
# (orthogonality, balance): they are computed from exact data up to round-off.
ASSUMPTION_ATOL = 1e-12

_T = sp.Symbol("t", nonnegative=True, real=True)

def evaluate(claim: Claim, tr: Trajectory, expr: sp.Basic) -> tuple[np.ndarray, np.ndarray]:
    """``expr`` (in the claim's terms) over the saved times of ``tr``, and its numerical
    error exactly as a check counts it (ERROR_SAFETY x companion difference + propagated
    round-off; inf where unknown). Used to show both sides of a relation."""
    try:
        values = RunContext(claim, tr).values(expr)
    except MissingValue as exc:
        raise CheckError(f"the instance does not define {exc}") from None
    return values.fine, values.error


def relation_margins(claim: Claim, tr: Trajectory) -> list[tuple[sp.Basic, np.ndarray, np.ndarray]]:
    """(relation, margin, error) over the saved times for each relation of the statement,
    exactly as the window checks compute them (margin >= 0: the relation holds)."""
    ctx = RunContext(claim, tr)
    try:
        return [(rel, *margin_on_run(rel, ctx)[:2]) for rel in claim.relations()]
    except MissingValue as exc:
        raise CheckError(f"the instance does not define {exc}") from None


# -- evaluation of expressions on a run ----------------------------------------------------
@dataclass
class _Values:
    fine: np.ndarray
    companion: np.ndarray | None
    roundoff: np.ndarray

    @property
    def error(self) -> np.ndarray:
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf: NaN, read as inf
            integ = (
                np.full_like(self.fine, np.inf)
                if self.companion is None
                else np.abs(self.fine - self.companion)
            )
            err = ERROR_SAFETY * integ + self.roundoff
        return np.where(np.isnan(err), np.inf, err)


class MissingValue(Exception):
    """An instance quantity the expression needs is not defined for this Problem."""


class RunContext:
    def __init__(self, claim: Claim, tr: Trajectory):
        self.claim = claim
        self.tr = tr
        self.inst = instance_values(tr.problem)
        self._series: dict[tuple[str, bool], Series] = {}

    @classmethod
    def of_problem(cls, claim: Claim, problem) -> RunContext:
        """A context with the instance's numbers only (no run): for assumptions and other
        instance-level expressions."""
        ctx = cls.__new__(cls)
        ctx.claim, ctx.tr, ctx.inst, ctx._series = claim, None, instance_values(problem), {}
        return ctx

    def series(self, name: str, companion: bool) -> Series:
        key = (name, companion)
        if key not in self._series:
            try:
                self._series[key] = measure(self.tr.companion if companion else self.tr, name)
            except UnknownQuantity as exc:
                raise CheckError(f"{self.claim.id}: {exc.args[0]}") from None
        return self._series[key]

    def scalar(self, expr: sp.Basic) -> float:
        """Evaluate an instance-level expression (no trajectory functions)."""
        expr = self.claim.substituted(expr)
        flat, originals = flatten(expr)
        missing = [nm for nm in originals if nm not in self.inst]
        if missing:
            raise MissingValue(", ".join(missing))
        subs = {s: self.inst[s.name] for s in flat.free_symbols}
        return float(flat.xreplace(subs))

    def values(self, expr: sp.Basic, fine_only: bool = False) -> _Values:
        """Evaluate an expression over the saved times, with its error (``fine_only``: the
        run's values alone; companion and round-off are then not computed)."""
        expr = self.claim.substituted(expr)
        flat, originals = flatten(expr)
        T = len(self.tr.t)
        args_fine: dict[str, np.ndarray | float] = {}
        args_comp: dict[str, np.ndarray | float] = {}
        roundoffs: dict[str, np.ndarray] = {}
        has_comp = (not fine_only and self.tr.companion is not None
                    and len(self.tr.companion.t) == T)
        for name, term in originals.items():
            if isinstance(term, sp.Derivative):
                # d/dt F(t) is the measurement named "dF" (computed exactly from the field)
                term = sp.Function("d" + term.expr.func.__name__)(*term.expr.args)
            if isinstance(term, sp.core.function.AppliedUndef):
                fname = term.func.__name__
                (arg,) = term.args
                s_f = self.series(fname, False)
                s_c = self.series(fname, True) if has_comp else None
                if arg == _T:
                    args_fine[name], roundoffs[name] = s_f.values, s_f.roundoff
                    if s_c is not None:
                        args_comp[name] = s_c.values
                else:
                    k = _saved_index(self.tr.t, float(arg))
                    args_fine[name] = s_f.values[k]
                    roundoffs[name] = np.full(T, s_f.roundoff[k])
                    if s_c is not None:
                        args_comp[name] = s_c.values[k]
            elif name == "t":
                args_fine[name] = args_comp[name] = self.tr.t
            elif name in self.inst:
                args_fine[name] = args_comp[name] = self.inst[name]
                # an instance quantity computed with a known error (e.g. by an optimisation)
                if getattr(self.inst[name], "error", 0.0):
                    roundoffs[name] = np.full(T, float(self.inst[name].error))
            else:
                raise MissingValue(name)
        symbols = sorted(flat.free_symbols, key=lambda s: s.name)
        fn = sp.lambdify(symbols, flat, modules="numpy")
        def real(args: dict) -> np.ndarray:
            try:
                out = np.broadcast_to(fn(*(args[s.name] for s in symbols)), (T,))
            except (ZeroDivisionError, OverflowError) as exc:
                raise CheckError(f"{sp.sstr(expr)} is undefined on instance "
                                 f"{self.tr.problem.describe()} ({exc})") from None
            if np.iscomplexobj(out) and np.any(np.imag(out) != 0):
                raise CheckError(f"{sp.sstr(expr)} is not real on instance "
                                 f"{self.tr.problem.describe()}")
            return np.real(out).astype(float)

        with np.errstate(all="ignore"):
            fine = real(args_fine)
            comp = real(args_comp) if has_comp else None
            roundoff = np.zeros(T)
            for s in symbols:
                if s.name in roundoffs and not fine_only:
                    slope = _slope(flat, s, symbols, args_fine, T)
                    term = slope * roundoffs[s.name]
                    # a slope that overflows (1/N(0)^2 at N(0) ~ 1e-200) while the value and
                    # the input's round-off are finite: the moved value instead (an
                    # unknown round-off, or an unknown error at a kink, stays unknown)
                    unknown = (np.isinf(slope) & np.isfinite(fine)
                               & np.isfinite(roundoffs[s.name]))
                    if unknown.any():
                        term = np.where(unknown, _moved(real, args_fine, s.name,
                                                        roundoffs[s.name], fine), term)
                    roundoff = roundoff + term
        return _Values(fine, comp, roundoff)


def _moved(evaluate, args: dict, name: str, roundoff: np.ndarray,
           fine: np.ndarray) -> np.ndarray:
    """How far the value moves when the input ``name`` moves by its round-off either way:
    the first-order error where the derivative itself is not representable (a slope
    |f/s| that overflows while f, s and the round-off are finite)."""
    base = np.broadcast_to(np.asarray(args[name], dtype=float), fine.shape)
    moved = [np.abs(evaluate({**args, name: base + sign * roundoff}) - fine)
             for sign in (1.0, -1.0)]
    out = np.maximum(*moved)
    return np.where(np.isnan(out), np.inf, out)


def _slope(flat: sp.Basic, s: sp.Symbol, symbols: list, args: dict, T: int) -> np.ndarray:
    """|d flat / d s| over the saved times, for the propagation of ``s``'s round-off.

    Where an ``Abs(g)`` sits exactly at g = 0, sympy's derivative there is 0 (sign(0)) or
    0/0; the bound over the subgradient is used instead: each Abs(g) read as +g and as
    -g, the largest slope over the sign choices (more than four |.| at once: NaN there,
    an unknown error rather than an understated one)."""
    def values(expr):
        fn = sp.lambdify(symbols, expr, modules="numpy")
        with np.errstate(all="ignore"):
            return np.broadcast_to(fn(*(args[q.name] for q in symbols)), (T,))

    slope = np.abs(values(sp.diff(flat, s)))
    absolutes = sorted(flat.atoms(sp.Abs), key=sp.default_sort_key)
    if not absolutes:
        return slope
    at_kink = ~np.isfinite(slope)
    for a in absolutes:
        at_kink |= values(a.args[0]) == 0
    if not at_kink.any():
        return slope
    if len(absolutes) > 4:  # NaN: unknown (not an overflow `_moved` could bound)
        return np.where(at_kink, np.nan, slope)
    bound = np.zeros(T)
    for signs in itertools.product((1, -1), repeat=len(absolutes)):
        chosen = flat.xreplace({a: sign * a.args[0] for a, sign in zip(absolutes, signs,
                                                                       strict=True)})
        bound = np.maximum(bound, np.abs(values(sp.diff(chosen, s))))
    return np.where(at_kink, bound, slope)


def _saved_index(times: np.ndarray, at: float) -> int:
    k = int(np.argmin(np.abs(times - at)))
    if abs(times[k] - at) > 1e-12 * max(1.0, abs(at)):
        raise CheckError(f"the claim needs the state at t={at}, which is not a saved time")
    return k


def margin_on_run(rel: sp.Basic, ctx: RunContext) -> tuple[np.ndarray, np.ndarray, bool]:
    """(margin, error, is_equality) of a relation over the saved times.

    Inequalities: margin = how far the relation is from failing (>= 0 holds).
    Equalities: margin = -|lhs - rhs|, compared against the error alone.
    """
    signed_margin(rel, 0.0)  # an unsupported relation is refused before it is evaluated
    diff = ctx.values(rel.lhs - rel.rhs)
    return signed_margin(rel, diff.fine), diff.error, isinstance(rel, sp.Equality)


