"""`check(claim, evidence) -> Verdict`: a claim's statement against trajectories.

Numerical error of a checked quantity = |value on the run - value on its
companion run| (the integration error, see `Trajectory.error_of`) + the
round-off of the formula (first-order propagation of each measured quantity's
round-off through the sympy expression). A margin inside that error gives
INCONCLUSIVE; an assumption that fails on the instance gives INAPPLICABLE; a
run that did not finish cleanly or is not finite gives INCONCLUSIVE with the
simulation's own message, never HOLDS.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import sympy as sp

from numerics import Trajectory
from theory.bridge import flatten
from theory.claim import Claim, Kind
from verify.check_grid import check_grid
from verify.evidence import Estimate, Grid, Sample, ScalingData
from verify.figure_data import floats, number
from verify.figure_data import series as figure_series
from verify.measures import (
    ENSEMBLE_QUANTITIES,
    ERROR_SAFETY,
    FLOAT_EPS,
    ROUNDOFF_ULPS,
    Series,
    UnknownQuantity,
    instance_values,
    measure,
)
from verify.relations import RELATION_TEXT, signed_margin
from verify.scaling import FitError, binomial_interval, fit_power_law
from verify.verdict import CheckError, Outcome, Verdict, Where, combine

# A scaling verdict needs an exponent interval narrower than this half-width: the
# suite's mutants shift exponents by 0.25, which a wider interval could not resolve.
SCALING_MAX_HALF_WIDTH = 0.2
# A probability identity is confirmed only by intervals narrower than this half-width.
PROBABILITY_MAX_HALF_WIDTH = 0.05
# Confidence level of probability and exponent intervals.
CONFIDENCE = 0.95

# An equality (identity, conservation law) is confirmed only on a run whose state is
# known to this relative accuracy; a looser run cannot tell the identity from an
# O(error) violation of it, and gets INCONCLUSIVE.
IDENTITY_MAX_STATE_ERROR = 1e-5

# Absolute slack for assumptions stated as "= 0" on instance quantities
# (orthogonality, balance): they are computed from exact data up to round-off.
ASSUMPTION_ATOL = 1e-12

_T = sp.Symbol("t", nonnegative=True, real=True)


def check(claim: Claim, evidence) -> Verdict:
    """Check ``claim`` on its evidence.

    Evidence: a Trajectory or a list of them (time-resolved claims), a
    `verify.evidence.Sample` of Problems (PROBABILITY claims) or a
    `verify.evidence.ScalingData` series (SCALING claims), a `verify.evidence.Grid` of
    points (claims stated in free variables) or a `verify.evidence.Estimate` of a run
    scalar that only a limit defines (with its measured error).
    """
    if isinstance(evidence, Sample):
        return _check_probability(claim, evidence)
    if isinstance(evidence, ScalingData):
        return _check_scaling(claim, evidence)
    if isinstance(evidence, Grid):
        return check_grid(claim, evidence)
    if isinstance(evidence, Estimate):
        return _check_estimate(claim, evidence)
    if isinstance(evidence, Trajectory):
        return _check_one(claim, evidence)
    if isinstance(evidence, Iterable):
        verdicts = [_check_one(claim, tr) for tr in evidence]
        return combine(claim.id, verdicts)
    raise CheckError(
        f"evidence: expected a Trajectory or a list of them, got {type(evidence).__name__}"
    )


def evaluate(claim: Claim, tr: Trajectory, expr: sp.Basic) -> tuple[np.ndarray, np.ndarray]:
    """``expr`` (in the claim's terms) over the saved times of ``tr``, and its numerical
    error exactly as a check counts it (ERROR_SAFETY x companion difference + propagated
    round-off; inf where unknown). Used to show both sides of a relation."""
    try:
        values = _Context(claim, tr).values(expr)
    except _Missing as exc:
        raise CheckError(f"the instance does not define {exc}") from None
    return values.fine, values.error


def relation_margins(claim: Claim, tr: Trajectory) -> list[tuple[sp.Basic, np.ndarray, np.ndarray]]:
    """(relation, margin, error) over the saved times for each relation of the statement,
    exactly as the window checks compute them (margin >= 0: the relation holds)."""
    ctx = _Context(claim, tr)
    try:
        return [(rel, *_margin(rel, ctx)[:2]) for rel in claim.relations()]
    except _Missing as exc:
        raise CheckError(f"the instance does not define {exc}") from None


# -- evaluation of expressions on a run ----------------------------------------------------
@dataclass
class _Values:
    fine: np.ndarray
    companion: np.ndarray | None
    roundoff: np.ndarray

    @property
    def error(self) -> np.ndarray:
        integ = (
            np.full_like(self.fine, np.inf)
            if self.companion is None
            else np.abs(self.fine - self.companion)
        )
        with np.errstate(invalid="ignore"):
            err = ERROR_SAFETY * integ + self.roundoff
        return np.where(np.isnan(err), np.inf, err)


class _Missing(Exception):
    """An instance quantity the expression needs is not defined for this Problem."""


class _Context:
    def __init__(self, claim: Claim, tr: Trajectory):
        self.claim = claim
        self.tr = tr
        self.inst = instance_values(tr.problem)
        self._series: dict[tuple[str, bool], Series] = {}

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
            raise _Missing(", ".join(missing))
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
                raise _Missing(name)
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
                    dfn = sp.lambdify(symbols, sp.diff(flat, s), modules="numpy")
                    slope = np.abs(np.broadcast_to(
                        dfn(*(args_fine[q.name] for q in symbols)), (T,)
                    ))
                    roundoff = roundoff + slope * roundoffs[s.name]
        return _Values(fine, comp, roundoff)


def _saved_index(times: np.ndarray, at: float) -> int:
    k = int(np.argmin(np.abs(times - at)))
    if abs(times[k] - at) > 1e-12 * max(1.0, abs(at)):
        raise CheckError(f"the claim needs the state at t={at}, which is not a saved time")
    return k


def _margin(rel: sp.Basic, ctx: _Context) -> tuple[np.ndarray, np.ndarray, bool]:
    """(margin, error, is_equality) of a relation over the saved times.

    Inequalities: margin = how far the relation is from failing (>= 0 holds).
    Equalities: margin = -|lhs - rhs|, compared against the error alone.
    """
    signed_margin(rel, 0.0)  # an unsupported relation is refused before it is evaluated
    diff = ctx.values(rel.lhs - rel.rhs)
    return signed_margin(rel, diff.fine), diff.error, isinstance(rel, sp.Equality)


# -- the checks ------------------------------------------------------------------------------
def _where(tr: Trajectory, t: float | None = None, part: str = "") -> Where:
    return Where(instance=tr.problem.content_hash, seed=tr.problem.meta.get("seed"), t=t,
                 part=part)


def _verdict(claim, tr, outcome, **kw) -> Verdict:
    return Verdict(claim_id=claim.id, outcome=outcome, method=tr.method, **kw)


def _inapplicable(claim: Claim, ctx: _Context) -> str | None:
    return _inapplicable_problem(claim, ctx, ctx.tr.problem)


def _inapplicable_problem(claim: Claim, ctx: _Context, prob) -> str | None:
    if not claim.applies_to(prob.parametrization, prob.loss):
        return (f"the claim is stated for the {claim.parametrization or 'any'} "
                f"parametrisation with the {claim.loss or 'its'} loss; the instance is "
                f"{prob.parametrization} with the {prob.loss} loss")
    for assumption in claim.setting:
        parts = (assumption.statement.args if isinstance(assumption.statement, sp.And)
                 else (assumption.statement,))
        for rel in parts:
            try:
                lhs = ctx.scalar(rel.lhs)
                rhs = ctx.scalar(rel.rhs)
            except _Missing as exc:
                return f"{assumption.name}: the instance does not define {exc}"
            ok = {
                sp.Equality: abs(lhs - rhs) <= ASSUMPTION_ATOL,
                sp.Unequality: abs(lhs - rhs) > ASSUMPTION_ATOL,
                sp.GreaterThan: lhs >= rhs,
                sp.StrictGreaterThan: lhs > rhs,
                sp.LessThan: lhs <= rhs,
                sp.StrictLessThan: lhs < rhs,
            }[type(rel)]
            if not ok:
                return f"{assumption.name} fails: {sp.sstr(rel)} with {lhs:.4g} vs {rhs:.4g}"
    return None


def _check_one(claim: Claim, tr: Trajectory) -> Verdict:
    if not claim.checkable:
        raise CheckError(f"{claim.id} is not checkable: {claim.not_checkable_reason}")
    ctx = _Context(claim, tr)
    why = _inapplicable(claim, ctx)
    if why:
        return _verdict(claim, tr, Outcome.INAPPLICABLE, reason=why, where=_where(tr))
    if not tr.status.ok or not tr.finite:
        return _verdict(claim, tr, Outcome.INCONCLUSIVE, where=_where(tr),
                        reason=f"simulation not trustworthy: {tr.status.name} {tr.message}")
    try:
        if claim.kind in (Kind.POINTWISE, Kind.CONSERVED, Kind.TRAPPING, Kind.IDENTITY):
            return _check_over_window(claim, ctx)
        if claim.kind is Kind.EVENT_TIME:
            return _check_event_time(claim, ctx)
    except _Missing as exc:
        return _verdict(claim, tr, Outcome.INAPPLICABLE, where=_where(tr),
                        reason=f"the instance does not define {exc}")
    raise CheckError(f"{claim.id}: checks of kind {claim.kind.value!r} are not implemented yet")


def _check_estimate(claim: Claim, est: Estimate) -> Verdict:
    """The claim's relations with ``est.quantity`` set to the estimate: the error is the
    estimate's own (propagated through the relation) plus the round-off of the sides."""
    tr = est.trajectory
    ctx = _Context(claim, tr)
    why = _inapplicable(claim, ctx)
    where = _where(tr, est.t)
    if why:
        return _verdict(claim, tr, Outcome.INAPPLICABLE, reason=why, where=where)
    if not tr.status.ok or not tr.finite:
        return _verdict(claim, tr, Outcome.INCONCLUSIVE, where=where,
                        reason=f"simulation not trustworthy: {tr.status.name} {tr.message}")
    picks = []
    for rel in claim.relations():
        named = [s for s in claim.substituted(rel.lhs - rel.rhs).free_symbols
                 if s.name == est.quantity]
        if not named:
            raise CheckError(f"{claim.id}: {sp.sstr(rel)} does not mention {est.quantity}")
        quantity = named[0]
        at = {quantity: sp.Float(est.value)}
        try:
            sides = [ctx.scalar(claim.substituted(side).xreplace(at))
                     for side in (rel.lhs, rel.rhs)]
            slope = ctx.scalar(sp.diff(claim.substituted(rel.lhs - rel.rhs), quantity)
                               .xreplace(at))
        except _Missing as exc:
            return _verdict(claim, tr, Outcome.INAPPLICABLE, where=where,
                            reason=f"the instance does not define {exc}")
        error = abs(slope) * est.error + FLOAT_EPS * ROUNDOFF_ULPS * (abs(sides[0])
                                                                       + abs(sides[1]))
        margin = float(signed_margin(rel, sides[0] - sides[1]))
        decided = isinstance(rel, sp.Equality) or abs(margin) > error
        rank = 0 if margin < -error else (2 if decided else 1)
        picks.append((rank, margin, error, rel, sides))
    rank, margin, error, rel, sides = min(picks, key=lambda p: p[:2])
    part = sp.sstr(rel)
    figure = None
    if len(est.series) == 2 and rel.lhs == quantity:
        times, values = (np.asarray(a, dtype=float) for a in est.series)
        figure = figure_series(
            claim.kind.value, RELATION_TEXT[type(rel)], times, values, sides[1], error,
            -np.abs(values - sides[1]) if isinstance(rel, sp.Equality) else margin,
            int(np.argmin(np.abs(times - est.t))), part=part,
            observed_label=f"{est.quantity} as read off the run", bound_label=sp.sstr(rel.rhs))
    return _verdict(claim, tr, (Outcome.VIOLATED, Outcome.INCONCLUSIVE, Outcome.HOLDS)[rank],
                    margin=float(margin), tolerance=float(error), where=Where(
                        tr.problem.content_hash, tr.problem.meta.get("seed"), est.t, part),
                    observed=float(sides[0]), predicted=float(sides[1]),
                    reason=f"{est.quantity} {est.value:.6g} +- {est.error:.2g}"
                    + (f" ({est.how})" if est.how else ""), figure_data=figure)


def _run_end(tr: Trajectory) -> float:
    """Last time at which the saved states are states of the dynamics.

    A run stopped early on purpose (gradient descent's ``stop_loss``) repeats its
    last state afterwards; those repeats are not evidence about later times.
    """
    return float(tr.t[-1]) if tr.stop_time is None else min(float(tr.t[-1]), tr.stop_time)


def _window_mask(claim: Claim, ctx: _Context) -> np.ndarray:
    lo_expr, hi_expr = claim.window
    lo = ctx.scalar(lo_expr)
    hi = math.inf if hi_expr == sp.oo else ctx.scalar(hi_expr)
    hi = min(hi, _run_end(ctx.tr))
    return (ctx.tr.t >= lo) & (ctx.tr.t <= hi)


def _check_over_window(claim: Claim, ctx: _Context) -> Verdict:
    """Every relation at every saved time in the window.

    A point violates when margin < -error. For inequalities, |margin| <= error
    is inside the error band (inconclusive there); equalities can only be
    confirmed up to the error. The reported point is the most violated one, or
    else the first inconclusive one, or else the one closest to its error band.
    """
    tr = ctx.tr
    inside = _window_mask(claim, ctx)
    if not inside.any():
        return _verdict(claim, tr, Outcome.INCONCLUSIVE, where=_where(tr),
                        reason="no saved time inside the claim's window")
    times = tr.t[inside]
    violated, inconclusive, closest = [], [], []
    series = {}  # part -> (relation, margin, error) over the window, for figure_data
    for rel in claim.relations():
        margin, error, is_eq = _margin(rel, ctx)
        margin, error = margin[inside], error[inside]
        part = sp.sstr(rel)
        if not np.all(np.isfinite(margin)):
            k = int(np.flatnonzero(~np.isfinite(margin))[0])
            return _verdict(claim, tr, Outcome.INCONCLUSIVE, where=_where(tr, times[k], part),
                            reason=f"{part} is not finite at t={times[k]:.4g}")
        series.setdefault(part, (rel, margin, error))
        strict = isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))
        bad = (margin < -error) | (strict & (margin <= 0) & (error == 0))
        # each entry ends with the index k of its point (never reached by the tuple
        # order: one entry per relation, and the entries differ in ``part`` before it)
        if bad.any():
            k = int(np.argmin(margin + error))
            violated.append((margin[k] + error[k], margin[k], error[k], times[k], part, k))
            continue
        undecided = (np.abs(margin) <= error) & (error > 0)
        if not is_eq and undecided.any():
            k = int(np.flatnonzero(undecided)[0])
            inconclusive.append((0.0, margin[k], error[k], times[k], part, k))
        denom = np.abs(margin) + error
        with np.errstate(divide="ignore", invalid="ignore"):
            closeness = np.where(denom > 0, (margin + error) / denom, 1.0)
        # the least slack relative to the error; among points equally far from deciding
        # (closeness 1: every margin > error), the smallest margin
        k = int(np.lexsort((margin, closeness))[0])
        closest.append((closeness[k], margin[k], error[k], times[k], part, k))
    reason = ""
    if violated:
        outcome, pick = Outcome.VIOLATED, min(violated)
    elif inconclusive:
        outcome, pick = Outcome.INCONCLUSIVE, inconclusive[0]
    else:
        outcome, pick = Outcome.HOLDS, min(closest)
        has_equality = any(isinstance(rel, sp.Equality) for rel in claim.relations())
        state_error = float(np.max(tr.state_error[inside]))
        if has_equality and not state_error <= IDENTITY_MAX_STATE_ERROR:
            outcome = Outcome.INCONCLUSIVE
            reason = (f"the run's relative state error {state_error:.2g} is above "
                      f"{IDENTITY_MAX_STATE_ERROR:g}: too coarse to confirm an identity")
    _, margin, error, t_at, part, k = pick
    rel, margins, errors = series[part]
    figure = _series_figure(claim, ctx, rel, np.flatnonzero(inside), margins, errors, k)
    return _verdict(claim, tr, outcome, margin=float(margin), tolerance=float(error),
                    where=_where(tr, float(t_at), part), reason=reason, figure_data=figure)



def _series_figure(claim: Claim, ctx: _Context, rel: sp.Basic, rows: np.ndarray,
                   margin: np.ndarray, error: np.ndarray, k: int | None,
                   event: dict | None = None, at_margin: float | None = None,
                   at_tolerance: float | None = None) -> dict | None:
    """figure_data of a time-series check (see `verify.figure_data`): the relation's two
    sides at the saved times ``rows`` (indices into the run), with the check's own margin
    and error there; ``k`` (an index into ``rows``) is the reported point and is kept.

    Only a picture of the check: a side that cannot be evaluated alone leaves no figure
    (None), never a different verdict."""
    try:
        observed = ctx.values(rel.lhs, fine_only=True).fine[rows]
        bound = ctx.values(rel.rhs, fine_only=True).fine[rows]
        return figure_series(
            claim.kind.value, RELATION_TEXT.get(type(rel), sp.sstr(rel.rel_op)),
            ctx.tr.t[rows], observed, bound, error, margin, k,
            observed_label=sp.sstr(rel.lhs), bound_label=sp.sstr(rel.rhs), part=sp.sstr(rel),
            at_margin=at_margin, at_tolerance=at_tolerance, event=event)
    except Exception:  # noqa: BLE001  (the figure is optional; the verdict stands)
        return None


def _event_time(claim: Claim, ctx: _Context, companion: bool) -> float:
    """First saved time at which every part of the event holds (inf if never)."""
    ok = np.ones(len(ctx.tr.t), dtype=bool)
    for rel in claim.event_relations():
        v = ctx.values(rel.lhs - rel.rhs)
        vals = v.companion if companion else v.fine
        if vals is None:
            return math.inf
        with np.errstate(invalid="ignore"):
            if isinstance(rel, (sp.GreaterThan, sp.StrictGreaterThan)):
                ok &= vals >= 0
            elif isinstance(rel, (sp.LessThan, sp.StrictLessThan)):
                ok &= vals <= 0
            else:
                raise CheckError(f"event relations must be inequalities, got {rel!r}")
    ok &= ctx.tr.t <= _run_end(ctx.tr)
    idx = np.flatnonzero(ok)
    return float(ctx.tr.t[idx[0]]) if idx.size else math.inf


def event_time(claim: Claim, tr: Trajectory) -> float:
    """The first saved time at which ``claim``'s event holds on ``tr`` (inf if never), read
    exactly as an EVENT_TIME check reads it."""
    try:
        return _event_time(claim, _Context(claim, tr), companion=False)
    except _Missing as exc:
        raise CheckError(f"the instance does not define {exc}") from None


def instance_scalar(claim: Claim, tr: Trajectory, expr: sp.Basic) -> float:
    """An instance-level expression in ``claim``'s terms (a bound, a window end) on the run's
    problem, evaluated exactly as the checks evaluate it."""
    try:
        return _Context(claim, tr).scalar(expr)
    except _Missing as exc:
        raise CheckError(f"the instance does not define {exc}") from None


def _check_event_time(claim: Claim, ctx: _Context) -> Verdict:
    tr = ctx.tr
    rel = claim.statement
    if not (isinstance(rel, (sp.LessThan, sp.StrictLessThan)) and rel.lhs == claim.event_time):
        raise CheckError(f"{claim.id}: event-time statements read '{claim.event_time} <= bound'")
    bound = ctx.scalar(rel.rhs)
    t_fine = _event_time(claim, ctx, companion=False)
    t_comp = _event_time(claim, ctx, companion=True)
    grid = float(np.max(np.diff(tr.t))) if len(tr.t) > 1 else math.inf
    if math.isinf(t_fine) and math.isinf(t_comp):
        integ = 0.0
    elif tr.companion is None:
        integ = math.inf
    else:
        integ = abs(t_fine - t_comp)
    error = ERROR_SAFETY * integ + grid
    t_end = _run_end(tr)
    figure = _event_figure(claim, ctx, t_fine, bound, error, t_end)
    if math.isinf(t_fine):
        if t_end > bound + error:
            return _verdict(claim, tr, Outcome.VIOLATED, margin=bound - t_end, tolerance=error,
                            where=_where(tr, t_end, "event never reached"),
                            observed=math.inf, predicted=bound, figure_data=figure,
                            reason=f"the event did not happen by t={t_end:.4g} > bound {bound:.4g}")
        return _verdict(claim, tr, Outcome.INCONCLUSIVE, where=_where(tr, t_end),
                        predicted=bound, tolerance=error, figure_data=figure,
                        reason=f"the run ends at t={t_end:.4g}, before the bound {bound:.4g} "
                        "(plus error) and before the event")
    margin = bound - t_fine
    if margin > error:
        outcome = Outcome.HOLDS
    elif margin < -error:
        outcome = Outcome.VIOLATED
    else:
        outcome = Outcome.INCONCLUSIVE
    return _verdict(claim, tr, outcome, margin=margin, tolerance=error,
                    where=_where(tr, t_fine, str(claim.event_time)),
                    observed=t_fine, predicted=bound, figure_data=figure)


def _event_figure(claim: Claim, ctx: _Context, t_event: float, bound: float, error: float,
                  t_end: float) -> dict | None:
    """figure_data of an event-time check: the event's binding relation (the one that
    holds last, or never) over the run, with the event time against its bound."""
    t = ctx.tr.t
    rows = np.flatnonzero(t <= t_end)
    if rows.size == 0:
        return None
    event = {"label": str(claim.event_time), "time": number(t_event), "bound": number(bound),
             "tolerance": number(error), "run_end": number(t_end)}
    try:
        best = None
        for rel in claim.event_relations():
            margin, err, _ = _margin(rel, ctx)
            with np.errstate(invalid="ignore"):
                holds = margin[rows] >= 0
            first = int(np.argmax(holds)) if holds.any() else rows.size  # rows.size: never
            if best is None or first > best[0]:
                best = (first, rel, margin[rows], err[rows])
    except Exception:  # noqa: BLE001  (the figure is optional; the verdict stands)
        return None
    if best is None:
        return None
    first, rel, margin, err = best
    if math.isfinite(t_event):
        k = int(np.argmin(np.abs(t[rows] - t_event)))
    else:
        k = rows.size - 1
    # the reported point of an event check is the event (or the run's end); its margin is
    # the time margin of the verdict, in time units
    return _series_figure(claim, ctx, rel, rows, margin, err, k, event=event,
                          at_margin=bound - min(t_event, t_end), at_tolerance=error)


__all__ = ["ASSUMPTION_ATOL", "ERROR_SAFETY", "CheckError", "check", "evaluate", "FLOAT_EPS",
           "ROUNDOFF_ULPS"]


# -- ensemble claims -----------------------------------------------------------------------------
def _relation_margin(rel: sp.Basic, values: dict[str, float]) -> float:
    """Signed margin of one relation at given values (>= 0: holds)."""
    lhs = float(rel.lhs.xreplace({sp.Symbol(k, **_assm(rel, k)): v for k, v in values.items()}))
    rhs = float(rel.rhs.xreplace({sp.Symbol(k, **_assm(rel, k)): v for k, v in values.items()}))
    return float(signed_margin(rel, lhs - rhs))


def _assm(expr: sp.Basic, name: str) -> dict:
    for s in expr.free_symbols:
        if s.name == name:
            return s.assumptions0
    return {}


def _check_probability(claim: Claim, sample: Sample) -> Verdict:
    """Frequencies with exact (Clopper-Pearson) intervals; the margin is evaluated at every
    corner of the box of intervals: HOLDS if it is positive at all, VIOLATED if at none."""
    if claim.kind is not Kind.PROBABILITY:
        raise CheckError(f"{claim.id}: a Sample is evidence for PROBABILITY claims only")
    first = sample.problems[0]
    where = Where(instance=f"{len(sample.problems)} instances, first {first.content_hash}",
                  seed=first.meta.get("seed"))
    ctx = _Context.__new__(_Context)
    ctx.claim, ctx.tr, ctx.inst, ctx._series = claim, None, instance_values(first), {}
    why = _inapplicable_problem(claim, ctx, first)
    if why:
        return Verdict(claim.id, Outcome.INAPPLICABLE, reason=why, where=where)
    statement = claim.substituted(claim.statement)
    names = {s.name for s in statement.free_symbols}
    estimates, intervals, fixed, hit_counts = {}, {}, {}, {}
    # simultaneous intervals (Bonferroni): with k probabilities each interval has level
    # 1 - (1 - CONFIDENCE)/k, so a true claim is rejected with probability <= 1 - CONFIDENCE
    k = max(1, sum(name in ENSEMBLE_QUANTITIES for name in names))
    level = 1 - (1 - CONFIDENCE) / k
    for name in sorted(names):
        if name in ENSEMBLE_QUANTITIES:
            hits = sum(bool(ENSEMBLE_QUANTITIES[name](pr)) for pr in sample.problems)
            estimates[name] = hits / len(sample.problems)
            hit_counts[name] = hits
            intervals[name] = binomial_interval(hits, len(sample.problems), level)
        else:
            values = {instance_values(pr)[name] for pr in sample.problems}
            if len(values) != 1:
                raise CheckError(f"{name} differs across the sample ({sorted(values)[:3]}...): "
                                 "a probability is estimated at fixed sizes")
            fixed[name] = values.pop()
    corners = [dict(zip(intervals, c, strict=True))
               for c in itertools.product(*intervals.values())]
    parts = statement.args if isinstance(statement, sp.And) else (statement,)
    worst, best, point = math.inf, math.inf, math.inf
    equality_undecided = False
    for rel in parts:
        if isinstance(rel, sp.Equality):
            # the identity holds somewhere in the box iff the signed difference changes sign
            diffs = [-_relation_margin(sp.Le(rel.lhs, rel.rhs), {**fixed, **c})
                     for c in corners]
            consistent = min(diffs) <= 0 <= max(diffs)
            margins = [0.0 if consistent else -min(abs(v) for v in diffs)]
            equality_undecided |= consistent
        else:
            margins = [_relation_margin(rel, {**fixed, **c}) for c in corners]
        worst = min(worst, min(margins))
        best = min(best, max(margins))
        point = min(point, _relation_margin(rel, {**fixed, **estimates}))
    widest = max((hi - lo) / 2 for lo, hi in intervals.values()) if intervals else 0.0
    if best < 0:
        outcome = Outcome.VIOLATED
    elif worst > 0 or (equality_undecided and worst >= 0
                       and widest <= PROBABILITY_MAX_HALF_WIDTH):
        outcome = Outcome.HOLDS
    else:
        outcome = Outcome.INCONCLUSIVE
    estimate_text = ", ".join(f"{k} = {v:.4g} [{intervals[k][0]:.3g}, {intervals[k][1]:.3g}]"
                              for k, v in estimates.items())
    figure = _probability_figure(claim, parts, fixed, estimates, intervals, corners,
                                 hit_counts, len(sample.problems), level)
    return Verdict(claim.id, outcome, margin=point, tolerance=point - worst, where=where,
                   reason=f"{100 * CONFIDENCE:.0f}% simultaneous intervals: {estimate_text}",
                   method="Monte Carlo", figure_data=figure)


def _side_value(rel: sp.Basic, side: sp.Basic, values: dict[str, float]) -> float:
    """One side of a relation at given values (the substitution of `_relation_margin`)."""
    return float(side.xreplace({sp.Symbol(k, **_assm(rel, k)): v for k, v in values.items()}))


def _probability_figure(claim, parts, fixed, estimates, intervals, corners, hits, total,
                        level) -> dict | None:
    """figure_data of a probability check: the estimates with their intervals, and each
    relation's two sides at the estimates and over the box of intervals."""
    try:
        relations = []
        for rel in parts:
            at_est = {**fixed, **estimates}
            in_box = [{**fixed, **c} for c in corners]
            lhs_box = [_side_value(rel, rel.lhs, c) for c in in_box]
            rhs_box = [_side_value(rel, rel.rhs, c) for c in in_box]
            relations.append({
                "part": sp.sstr(rel),
                "relation": RELATION_TEXT.get(type(rel), sp.sstr(rel.rel_op)),
                "observed_label": sp.sstr(rel.lhs), "bound_label": sp.sstr(rel.rhs),
                "observed": number(_side_value(rel, rel.lhs, at_est)),
                "observed_lo": number(min(lhs_box)), "observed_hi": number(max(lhs_box)),
                "bound": number(_side_value(rel, rel.rhs, at_est)),
                "bound_lo": number(min(rhs_box)), "bound_hi": number(max(rhs_box)),
                "margin": number(_relation_margin(rel, at_est)),
            })
    except Exception:  # noqa: BLE001  (the figure is optional; the verdict stands)
        return None
    return {
        "type": "probability",
        "kind": claim.kind.value,
        "confidence": CONFIDENCE,
        "level": level,
        "total": total,
        "estimates": [{"name": k, "estimate": number(v), "lo": number(intervals[k][0]),
                       "hi": number(intervals[k][1]), "hits": hits[k], "total": total}
                      for k, v in estimates.items()],
        "relations": relations,
    }


def _claimed_exponent(expr: sp.Basic, variable: str, at: float, fixed: dict) -> float:
    """x d/dx log(expr) at x = ``at``: the exponent of a power law (local for log factors)."""
    x = next((s for s in expr.free_symbols if s.name == variable), None)
    if x is None:
        raise CheckError(f"the claim's right-hand side does not depend on {variable}")
    local = sp.simplify(x * sp.diff(sp.log(expr), x))
    subs = {s: fixed[s.name] for s in local.free_symbols if s.name in fixed}
    subs[x] = at
    value = local.xreplace(subs)
    if value.free_symbols:
        raise CheckError(f"the exponent depends on {sorted(str(s) for s in value.free_symbols)}: "
                         "pass them in ScalingData.fixed")
    return float(value)


def _law_values(expr: sp.Basic, variable: str, xs: np.ndarray, fixed: dict) -> np.ndarray:
    """The claimed law (fitted constants set to 1) at each x."""
    x = next(s for s in expr.free_symbols if s.name == variable)
    subs = {s: fixed[s.name] for s in expr.free_symbols if s.name in fixed}
    law = expr.xreplace(subs)
    if law.free_symbols - {x}:
        raise CheckError(f"the law depends on {sorted(str(s) for s in law.free_symbols - {x})}: "
                         "pass them in ScalingData.fixed")
    fn = sp.lambdify([x], law, modules="numpy")
    return np.asarray(fn(xs), dtype=float) * np.ones_like(xs)


def _check_scaling(claim: Claim, data: ScalingData) -> Verdict:
    """Fit the measured quantity against the claimed law's shape, with an interval.

    With f(x) the claimed law (its fitted constant set to 1), the fit is
    log y = c + beta log f(x): the claim says beta = 1. For a power law f = x^a
    this is the exponent fit (alpha = beta a); for laws with log factors it tests
    the whole shape over the measured range rather than a local exponent. Results
    are reported in exponent units (beta times the law's mean local exponent a).
    Eq: 1 must lie in beta's interval. Le (at most of that order): VIOLATED when
    the data grow faster than f over the whole interval. Ge: slower.
    """
    if claim.kind is not Kind.SCALING:
        raise CheckError(f"{claim.id}: ScalingData is evidence for SCALING claims only")
    rel = claim.statement
    if isinstance(rel, sp.And):
        rel = next(r for r in rel.args if data.quantity in {s.name for s in r.lhs.free_symbols})
    rhs = claim.substituted(rel.rhs)
    fitted = {k for k, v in claim.parameters.items() if v is None}
    rhs = rhs.xreplace({s: 1 for s in rhs.free_symbols if s.name in fitted})
    where = Where(instance=data.description or f"{len(set(data.x))} values of {data.variable}",
                  part=f"{data.quantity} vs {data.variable}")
    xs = np.asarray(data.x, dtype=float)
    x_mid = float(np.exp(np.mean(np.log(np.unique(xs)))))
    alpha0 = _claimed_exponent(rhs, data.variable, x_mid, data.fixed)
    law = _law_values(rhs, data.variable, xs, data.fixed)
    if not np.all(np.isfinite(law) & (law > 0)) or np.ptp(np.log(law)) == 0:
        raise CheckError(f"{claim.id}: the claimed law must be positive and vary over the data")
    try:
        shape = fit_power_law(law, data.y, level=CONFIDENCE)
    except FitError as exc:
        return Verdict(claim.id, Outcome.INCONCLUSIVE, where=where, reason=f"no fit: {exc}")
    lo, hi = sorted((shape.lo * alpha0, shape.hi * alpha0))
    alpha = shape.exponent * alpha0
    half_width = 0.5 * (hi - lo)
    if isinstance(rel, sp.Equality):
        margin = min(alpha0 - lo, hi - alpha0)
        violated = not lo <= alpha0 <= hi
    elif isinstance(rel, (sp.LessThan, sp.StrictLessThan)):
        margin = alpha0 - lo  # y <~ f  <=>  alpha <= alpha0, whatever the sign of alpha0
        violated = margin < 0
    else:
        margin = hi - alpha0
        violated = margin < 0
    fit_text = (f"alpha = {alpha:.3f}, {100 * CONFIDENCE:.0f}% CI [{lo:.3f}, {hi:.3f}] "
                f"(beta = {shape.exponent:.3f} against the law's shape, {shape.method}, "
                f"{shape.points} values of {data.variable})")
    if half_width > SCALING_MAX_HALF_WIDTH:
        outcome = Outcome.INCONCLUSIVE
        reason = f"interval too wide to decide (half-width {half_width:.2f}): {fit_text}"
    else:
        outcome = Outcome.VIOLATED if violated else Outcome.HOLDS
        reason = f"claimed exponent {alpha0:.3g}; fitted {fit_text}"
    figure = _scaling_figure(claim, rel, data, xs, law, shape, alpha, (lo, hi), alpha0)
    return Verdict(claim.id, outcome, margin=float(margin), tolerance=half_width,
                   where=where, reason=reason, observed=alpha, predicted=alpha0,
                   method="power-law fit", figure_data=figure)


# More points than this in a scaling series are thinned (evenly, per x value) in its figure.
SCALING_FIGURE_MAX_POINTS = 2000


def _scaling_figure(claim, rel, data, xs, law, shape, alpha, ci, alpha0) -> dict | None:
    """figure_data of a scaling check: the data, the fitted law with its band, the claim."""
    try:
        ys = np.asarray(data.y, dtype=float)
        ux, first = np.unique(xs, return_index=True)
        ll, ly = np.log(law), np.log(ys)
        lbar, ybar = float(np.mean(ll)), float(np.mean(ly))  # the OLS line passes here
        lu = ll[first]
        band = np.exp(ybar + np.outer((shape.lo, shape.hi), lu - lbar))
        keep = np.arange(len(xs))
        if len(xs) > SCALING_FIGURE_MAX_POINTS:
            keep = np.linspace(0, len(xs) - 1, SCALING_FIGURE_MAX_POINTS).astype(int)
        return {
            "type": "scaling",
            "kind": claim.kind.value,
            "relation": RELATION_TEXT.get(type(rel), sp.sstr(rel.rel_op)),
            "part": sp.sstr(rel),
            "variable": data.variable,
            "quantity": data.quantity,
            "points": len(xs),
            "x": floats(xs[keep]),
            "y": floats(ys[keep]),
            "law": floats(law[keep]),
            "beta": number(shape.exponent),
            "beta_ci": [number(shape.lo), number(shape.hi)],
            "intercept": number(math.log(shape.prefactor)),
            "slope": number(alpha),
            "ci": [number(ci[0]), number(ci[1])],
            "claimed_slope": number(alpha0),
            "method": shape.method,
            "confidence": shape.level,
            "fit": {"x": floats(ux),
                    "y": floats(shape.prefactor * law[first] ** shape.exponent),
                    "band_lo": floats(band.min(axis=0)), "band_hi": floats(band.max(axis=0)),
                    "claimed": floats(np.exp(ybar + (lu - lbar)))},
        }
    except Exception:  # noqa: BLE001  (the figure is optional; the verdict stands)
        return None
