"""LIMIT claims: a quantity along a sequence that approaches a limit, fitted and decided.

A LIMIT claim's relations (`theory.limits`) are limits ``lim Q = Q*`` (lam -> 0 over
instances, t -> infinity on a run, or both nested) or rates ``Q = O(x^a)``. Each is decided on
a `verify.engine.evidence.LimitSequence`: the quantity Q_k with its error e_k at a sequence of
values x_k of the limit's variable, read as a small variable s_k -> 0 (lam itself; for
t -> infinity on a run without a limit point, 1/|theta(t)|^2: the norm diverges and the
direction theta/|theta| converges, governed by it). The evidence is built here from runs
(`sequence`), or given.

A limit ``lim Q = Q*`` (distance d_k = |Q_k - Q*|, resolved where d_k > e_k):

- the distance is fitted against s (`verify.engine.scaling.fit_power_law` on the resolved points,
  a t-interval on its exponent);
- the limit's band: where the sequence **settles** (every value of its last half within
  its error and the last value's of the last) Q_last +- (e_last + the largest such allowance);
  otherwise, when q = Q_inf + K s^a fits with an exponent band above 0
  (`verify.engine.scaling.fit_limit`, a profile likelihood) over s spanning at least a decade
  (`EXTRAPOLATION_SPAN`), the extrapolated Q_inf's band, widened
  by ERROR_SAFETY x the largest gap between Q_inf and the limit each half of the sequence
  extrapolates to (the law's own error, which the intervals do not measure);
- HOLDS when the band contains Q* and the approach to it is established: the distance's
  exponent band lies above 0, or the sequence settled; VIOLATED when the band excludes Q*
  and the distance does not still shrink as a power law over the sequence's last half,
  or when the distance grows along the whole sequence (its exponent band below 0: the
  sequence moves away from Q*) over s spanning a decade; INCONCLUSIVE otherwise, saying what
  a longer sequence would cost. ``lim Q <= b`` (``<``,
  ``>=``, ``>``): HOLDS when the whole band is on the claimed side, VIOLATED when it is all
  on the other.

A rate ``Q <= C x^a`` (C fitted): log Q against log s over the values above their errors;
VIOLATED when the exponent's band lies below a (Q vanishes more slowly than claimed), HOLDS
when it lies above 0 and reaches a (or lies above it); ``>=``: VIOLATED when the band lies
above a; ``=``: a in a band narrower than `verify.engine.check_ensemble.SCALING_MAX_HALF_WIDTH`.

The verdict's ``observed`` is the fitted exponent and ``band`` its interval (the table's fit
column), ``predicted`` the claimed rate's exponent; its margin for a limit is minus the
distance from Q* to the limit's estimate (to the band's far side for <=, >=), its error the
band's half-width.

Each run of a lam sequence gives Q_k at its limit point when the innermost limit is
t -> infinity (`verify.engine.limit_point.limit_estimate`: the end state polished by Newton's
method), else where the claim's window says. A t -> infinity limit on one run of the square loss
is decided on its limit's estimate (`verify.engine.check_run.check_estimate`; where no point can
be polished, the end state's with its drift); for a loss with no finite limit point
(exponential, logistic, cross-entropy), along the run's log-spaced saves.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import sympy as sp

from numerics import Trajectory
from numerics.stationary import PolishError
from theory.claim import Claim, Kind
from theory.limits import LimitForm, limit_forms
from verify.engine.check_ensemble import CONFIDENCE, SCALING_MAX_HALF_WIDTH
from verify.engine.check_run import (
    IDENTITY_MAX_STATE_ERROR,
    check_estimate,
    inapplicable_instance,
    relaxed_note,
)
from verify.engine.evidence_kinds import Estimate, LimitSequence
from verify.engine.figure_data import floats, number
from verify.engine.limit_point import end_estimate, polished_estimate, polished_limit
from verify.engine.run_context import MissingValue, RunContext, evaluate
from verify.engine.scaling import FitError, fit_limit, fit_power_law
from verify.engine.verdict import TOO_COARSE, CheckError, Outcome, Verdict, Where, combine
from verify.language.measures import ERROR_SAFETY, ROUNDING

#: a sequence is settled when its last half (and at least SETTLED + 1 values) lies within
#: the errors of its last value
SETTLED = 2
#: at most this many saved times of one run form a t -> infinity sequence
MAX_TIME_POINTS = 60
#: a t -> infinity sequence uses the saves from t_end ** TIME_START (in log t: its last half)
TIME_START = 0.5
#: each half of a sequence is extrapolated on its own when it has this many values
HALF_FIT_POINTS = 5
#: a distance whose fitted exponent is below this shrinks by less than 1% per e-fold of s: flat
#: (a band excluding Q* is then decided, unless the shrinking exceeds the errors)
FLAT_EXPONENT = 0.01
#: a sequence is extrapolated to s = 0 only when its s spans this factor (a decade): over
#: less, laws with other exponents fit as well and reach other limits (measured on MZV25's
#: runs, where 1/|theta|^2 spans a factor 2 from t = 1e6 to 1e12)
EXTRAPOLATION_SPAN = 10.0


# -- the sequences ---------------------------------------------------------------------------
def _window_values(claim: Claim, run: Trajectory, expr: sp.Basic) -> tuple[np.ndarray, ...]:
    """(t, values, errors) of ``expr`` over the saved times of the claim's window on ``run``."""
    ctx = RunContext(claim, run)
    lo_expr, hi_expr = claim.window
    lo = ctx.scalar(lo_expr)
    hi = math.inf if hi_expr == sp.oo else ctx.scalar(hi_expr)
    t = ctx.tr.t
    if lo == hi:  # an instant: the saved time nearest it (the runs save it exactly)
        inside = np.array([int(np.argmin(np.abs(t - lo)))])
        if abs(t[inside[0]] - lo) > 1e-9 * max(1.0, abs(lo)):
            raise CheckError(f"{claim.id}: the run does not save its instant t = {lo:.6g} "
                             "(pass it as an extra saved time)")
    else:
        inside = np.flatnonzero((t >= lo * (1 - 1e-12)) & (t <= hi))
    values, errors = evaluate(claim, ctx.tr, expr)
    return t[inside], values[inside], errors[inside]


def _pick(form: LimitForm, values: np.ndarray, target: float | None) -> int:
    """The element of a window the relation is judged at: the farthest from Q* (Eq), the
    largest (<=, <) or the smallest (>=, >)."""
    if form.op is sp.Eq and target is not None:
        return int(np.argmax(np.abs(values - target)))
    return int(np.argmax(values) if form.op in (sp.Le, sp.Lt) else np.argmin(values))


def run_limit(claim: Claim, expr: sp.Basic, run: Trajectory, name: str) -> Estimate:
    """``expr``'s limit t -> infinity on ``run``: at the run's polished limit point
    (`verify.engine.limit_point`), or at its end where none can be polished (the reason in
    ``how``)."""
    run = RunContext(claim, run).tr  # in the claim's loss convention
    values, errors = evaluate(claim, run, expr)
    try:
        limit = polished_limit(run)
    except PolishError as exc:
        return end_estimate(run, name, lambda tr: _Series(*evaluate(claim, tr, expr)),
                            why=str(exc))
    return polished_estimate(limit, name, lambda one: float(evaluate(claim, one, expr)[0][-1]),
                             float(errors[-1]), series=(run.t, values))


def _norm_sq(run: Trajectory, times: np.ndarray) -> np.ndarray:
    """|theta|^2 = |W|_F^2 + |a|^2 at the saved ``times`` of ``run``."""
    k = np.searchsorted(run.t, times)
    return (np.sum(run.W[k] ** 2, axis=(-2, -1))
            + np.sum(run.a[k] ** 2, axis=tuple(range(1, run.a.ndim))))


class _Series:  # what end_estimate reads: values and their floor
    def __init__(self, values, roundoff):
        self.values, self.roundoff = values, roundoff


def _label(run: Trajectory) -> str:
    return run.problem.content_hash


def sequence(claim: Claim, form: LimitForm, runs: list[Trajectory]) -> LimitSequence:
    """The sequence ``form`` is decided on, from runs: one run and a limit in t alone, its
    saves (the last half in log t, `TIME_START`); else one element per run, at the value of
    the outer limit's variable on its instance."""
    var, _ = form.outer
    name = sp.sstr(form.quantity)
    if form.in_time_only:
        if len(runs) != 1:
            raise CheckError(f"{claim.id}: a limit t -> oo is read off one run at a time")
        run = RunContext(claim, runs[0]).tr
        t, values, errors = _window_values(claim, run, form.quantity)
        keep = t >= max(run.t[-1] ** TIME_START, math.e * 1.0001) if run.t[-1] > 1 else t > 0
        t, values, errors = t[keep], values[keep], errors[keep]
        if t.size > MAX_TIME_POINTS:
            pick = np.unique(np.searchsorted(t, np.geomspace(t[0], t[-1], MAX_TIME_POINTS)))
            t, values, errors = t[np.minimum(pick, t.size - 1)], values[pick], errors[pick]
        if t.size < 2:
            raise CheckError(f"{claim.id}: the run has fewer than 2 saved times after "
                             f"t = {run.t[-1] ** TIME_START:.3g} to read a limit t -> oo from")
        if form.rate is not None:  # a rate in a run quantity: the sequence is in it
            label = sp.sstr(form.rate[0])
            x, _ = evaluate(claim, run, form.rate[0])
            x = x[np.searchsorted(run.t, t)]
        else:
            label, x = "|theta|^2", _norm_sq(run, t)
        grows = np.all(np.diff(x) > 0) and np.all(x > 0)
        if not (grows or (np.all(np.diff(x) < 0) and np.all(x > 0))):
            raise CheckError(f"{claim.id}: {label} is not monotone over the run's last saves: "
                             "a limit t -> oo along them is read against it")
        return LimitSequence(label, tuple(x), tuple(values), tuple(errors),
                             quantity=name, scale="1/x" if grows else "x", labels=(),
                             seconds=(), description=f"{t.size} saves of {_label(run)} from "
                             f"t = {t[0]:.3g} to {t[-1]:.3g} ({label} {x[0]:.3g} .. "
                             f"{x[-1]:.3g})")
    rows = []
    for run in runs:
        ctx = RunContext(claim, run)
        try:
            x = ctx.scalar(var)
        except MissingValue as exc:
            raise CheckError(f"{claim.id}: the instance does not define {exc}") from None
        target = ctx.scalar(form.target) if form.target is not None else None
        if form.inner_time_limit:
            est = run_limit(claim, form.quantity, run, name)
            value, error = est.value, est.error
        else:
            t, values, errors = _window_values(claim, run, form.quantity)
            if t.size == 0:
                raise CheckError(f"{claim.id}: no saved time of the run is in the window")
            k = _pick(form, values, target)
            value, error = float(values[k]), float(errors[k])
        rows.append((x, value, error, _label(run), float(run.wall_time)))
    rows.sort(key=lambda r: -r[0])
    x, values, errors, labels, seconds = zip(*rows, strict=True)
    if len(set(x)) != len(x):
        raise CheckError(f"{claim.id}: two runs at the same {var} = {x[0]:.3g}: a sequence "
                         "needs one run per value")
    return LimitSequence(str(var), x, values, errors, quantity=name, scale="x",
                         labels=labels, seconds=seconds,
                         description=f"{len(x)} instances, {var} = {x[0]:.3g} .. {x[-1]:.3g}")


# -- the decision ----------------------------------------------------------------------------
def _longer(seq: LimitSequence) -> str:
    """What a longer sequence would cost, in words."""
    if seq.variable == "|theta|^2":
        return (f"|theta|^2 growing to {EXTRAPOLATION_SPAN:g} x {seq.x[0]:.3g} (it is "
                f"{seq.x[-1]:.3g} at the run's end and grows like log t on these runs: a run "
                f"to t = e^{EXTRAPOLATION_SPAN:g} times as many e-folds), beyond the reach of "
                "a float64 run")
    x = np.asarray(seq.x)
    ratio = float(np.exp(np.mean(np.log(x[1:] / x[:-1])))) if x.size > 1 else 0.1
    more = max(len(x), 4)
    nxt = x[-1] * ratio ** more
    cost = ""
    if seq.seconds:
        last = seq.seconds[-1]
        # a run's horizon grows like ln(1/x): each further instance a little dearer
        factor = sum(math.log(x[-1] * ratio**k) / math.log(x[-1]) for k in range(1, more + 1)) \
            if 0 < x[-1] < 1 else more
        cost = f", about {last * factor:.0f} s ({last:.1f} s for the last one here)"
    return f"{more} more instances down to {seq.variable} = {nxt:.3g}{cost}"


def _where(seq: LimitSequence, form: LimitForm) -> Where:
    return Where(instance=seq.description or f"{len(seq)} values of {seq.variable}",
                 part=sp.sstr(form.relation))


def _distance_fit(s, d, e, floor):
    """The power law of the resolved distances (d > e + floor), or None and why not."""
    res = d > e + floor
    if np.count_nonzero(res) < 3 or np.unique(s[res]).size < 2:
        return None, (f"{np.count_nonzero(res)} of {len(d)} distances to the claimed limit "
                      "exceed their errors (a fit needs 3)")
    try:
        return fit_power_law(s[res], d[res], level=CONFIDENCE), ""
    except FitError as exc:
        return None, str(exc)


def _limit_band(seq: LimitSequence, s, q, e):
    """(lo, hi, how) of the limit: where the sequence settled, or extrapolated; None when
    neither."""
    tail = max(SETTLED + 1, len(q) // 2)
    moves = np.abs(q[-tail:] - q[-1])
    allow = e[-tail:] + e[-1]
    if len(q) > SETTLED and np.all(moves <= allow):
        w = e[-1] + float(np.max(allow))
        return q[-1] - w, q[-1] + w, (f"settled: its last {tail} values within their errors "
                                      f"of the last, {q[-1]:.8g} +- {w:.2g}")
    span = float(s[0] / s[-1])
    if span < EXTRAPOLATION_SPAN:
        return None, None, (f"not settled, and its s spans a factor {span:.3g} only (an "
                            f"extrapolation to s = 0 needs {EXTRAPOLATION_SPAN:g})")
    try:
        fit = fit_limit(s, q, e, level=CONFIDENCE)
    except FitError as exc:
        return None, None, f"not settled and no extrapolation ({exc})"
    if not fit.converges:
        return None, None, (f"not settled, and q = Q_inf + K s^a fits with exponents down to "
                            f"{fit.lo:.2g} (no limit established)")
    # the law's own error: its limit from each half of the sequence against the whole's (a
    # pre-asymptotic sequence extrapolates differently from its two halves; the intervals
    # measure scatter only)
    half = len(q) // 2
    shift = 0.0
    if half >= HALF_FIT_POINTS:
        for part in (slice(0, len(q) - half), slice(len(q) - half, None)):
            try:
                shift = max(shift, abs(fit_limit(s[part], q[part], e[part]).limit - fit.limit))
            except FitError:
                shift = math.inf
    if not math.isfinite(shift):
        return None, None, "not settled, and one half of the sequence has no extrapolation"
    lo, hi = fit.limit_lo - ERROR_SAFETY * shift, fit.limit_hi + ERROR_SAFETY * shift
    return lo, hi, (
        f"extrapolated: q = Q_inf + K s^a with a = {fit.exponent:.3g} [{fit.lo:.3g}, "
        f"{fit.hi:.3g}], Q_inf = {fit.limit:.8g} in [{lo:.8g}, {hi:.8g}] (its interval "
        f"widened by {ERROR_SAFETY:g} x {shift:.2g}, the largest gap to a half's limit)")


def _figure(claim, form, seq, target, fit, band, rate=None, exponent_band=None) -> dict:
    """The figure data of a limit row; ``exponent_band`` the band the verdict used, where it
    is wider than the fit's own (a rate's, widened for the values' errors)."""
    lo, hi = exponent_band or ((None, None) if fit is None else (fit.lo, fit.hi))
    return {"type": "limit", "kind": claim.kind.value, "part": sp.sstr(form.relation),
            "variable": seq.variable, "scale": seq.scale, "x": floats(seq.x),
            "s": floats(seq.s), "values": floats(seq.values), "errors": floats(seq.errors),
            "quantity": seq.quantity, "target": number(target),
            "exponent": None if fit is None else number(fit.exponent),
            "band": None if fit is None else [number(lo), number(hi)],
            "prefactor": None if fit is None else number(fit.prefactor),
            "limit_band": None if band is None else [number(band[0]), number(band[1])],
            "rate": number(rate)}


def decide(claim: Claim, form: LimitForm, seq: LimitSequence, target: float | None = None,
           target_error: float = 0.0, exponent: float | None = None) -> Verdict:
    """``form`` (a relation of ``claim``) on ``seq`` (module docstring); ``target`` is Q*,
    ``exponent`` a rate's claimed exponent on the sequence's instances (default: the rate's
    own, a number)."""
    s = seq.s
    q = np.asarray(seq.values, dtype=float)
    e = np.asarray(seq.errors, dtype=float)
    where = _where(seq, form)
    if form.rate is not None:
        if exponent is None:
            try:
                exponent = float(form.rate[1])
            except TypeError:
                raise CheckError(f"{claim.id}: the rate's exponent {sp.sstr(form.rate[1])} "
                                 "depends on the instance: give runs") from None
        return _decide_rate(claim, form, seq, s, q, e, where, exponent)
    if target is None:
        raise CheckError(f"{claim.id}: the claimed limit of {sp.sstr(form.relation)} has no "
                         "value on the sequence's instances")
    d = np.abs(q - target)
    fit, no_fit = _distance_fit(s, d, e, target_error)
    lo_b, hi_b, how = _limit_band(seq, s, q, e)
    fit_text = (f"|Q - Q*| ~ s^a with a = {fit.exponent:.3g}, {100 * CONFIDENCE:.0f}% band "
                f"[{fit.lo:.3g}, {fit.hi:.3g}] ({fit.points} values above their errors)"
                if fit is not None else f"no fit of |Q - Q*| ({no_fit})")
    band = None if lo_b is None else (lo_b - target_error, hi_b + target_error)
    reason = (f"{seq.quantity} along {seq.variable} -> {'0' if seq.scale == 'x' else 'oo'} "
              f"({seq.scale}): {fit_text}; limit {how}; claimed {target:.8g}")
    margin, error = float("nan"), float("nan")
    away = fit is not None and fit.hi < 0 and d[-1] > e[-1] + target_error \
        and s[0] / s[-1] >= EXTRAPOLATION_SPAN
    if away:  # the distance to Q* grows along the whole sequence: no approach to it
        margin, error = -float(d[-1]), float(e[-1] + target_error)
        outcome = Outcome.VIOLATED if form.op is sp.Eq or _wrong_side(form, q[-1] - target,
                                                                       e[-1]) \
            else Outcome.INCONCLUSIVE
        reason += "; the distance to the claimed limit grows as the sequence goes on"
    elif band is None:
        outcome = Outcome.INCONCLUSIVE
    else:
        lo_b, hi_b = band
        centre, half = 0.5 * (lo_b + hi_b), 0.5 * (hi_b - lo_b)
        error = half
        # still approaching Q*: over the sequence's last half the distance still shrinks as
        # a power law (a band that excludes Q* then says only where the sequence is now)
        half = max(3, len(d) // 2)
        recent, _ = _distance_fit(s[-half:], d[-half:], e[-half:], target_error)
        approaching = recent is not None and recent.lo > 0 and (
            d[-half] - d[-1] > e[-half] + e[-1] or recent.lo > FLAT_EXPONENT)
        approach = (fit is not None and fit.lo > 0) or how.startswith("settled")
        if form.op is sp.Eq:
            margin = -abs(centre - target)
            inside = lo_b <= target <= hi_b
            # a band that excludes Q* while the distance to it still shrinks as a power law
            # (settled only within the values' error bounds) decides nothing
            outcome = (Outcome.HOLDS if inside and approach else
                       Outcome.INCONCLUSIVE if inside or approaching else Outcome.VIOLATED)
        else:
            upper = form.op in (sp.Le, sp.Lt)
            margin = (target - centre) if upper else (centre - target)
            strict = form.op in (sp.Lt, sp.Gt)
            good = (hi_b < target or (not strict and hi_b <= target)) if upper else \
                (lo_b > target or (not strict and lo_b >= target))
            bad = (lo_b > target) if upper else (hi_b < target)
            outcome = Outcome.HOLDS if good else Outcome.VIOLATED if bad else \
                Outcome.INCONCLUSIVE
    if outcome is Outcome.INCONCLUSIVE:
        reason += f"; undecided: a longer sequence would take {_longer(seq)}"
    return Verdict(claim.id, outcome, margin=margin, error=error, where=where, reason=reason,
                   observed=None if fit is None else fit.exponent, predicted=None,
                   band=None if fit is None else (fit.lo, fit.hi), method="limit fit",
                   figure_data=_figure(claim, form, seq, target, fit, band))


def _wrong_side(form: LimitForm, diff: float, error: float) -> bool:
    """Whether Q - Q* = ``diff`` is on the side the relation forbids by more than ``error``."""
    if form.op in (sp.Le, sp.Lt):
        return diff > error
    if form.op in (sp.Ge, sp.Gt):
        return diff < -error
    return abs(diff) > error


def exponent_error(s: np.ndarray, q: np.ndarray, e: np.ndarray) -> float:
    """The most the least-squares slope of log q on log s moves when each q_k moves by up to
    its error e_k < q_k: sum_k |w_k| (-ln(1 - e_k/q_k)), w_k the slope's weights."""
    x = np.log(s)
    spread = np.sum((x - x.mean()) ** 2)
    if x.size < 2 or spread == 0:
        return 0.0
    rel = np.clip(e / q, 0.0, 1.0 - 1e-12)
    return float(np.sum(np.abs(x - x.mean()) / spread * -np.log1p(-rel)))


def _decide_rate(claim, form, seq, s, q, e, where, a: float) -> Verdict:
    x = sp.sstr(form.rate[0])
    toward = "0" if seq.scale == "x" else "oo"
    a_x = a
    if seq.scale == "1/x":  # Q ~ C x^a as x -> oo is Q ~ C s^(-a) as s = 1/x -> 0
        a = -a
    res = (q - e > 0)
    fit = None
    try:
        if np.count_nonzero(res) >= 3:
            fit = fit_power_law(s[res], q[res], level=CONFIDENCE)
    except FitError:
        fit = None
    claimed = {sp.Le: "at most", sp.Lt: "at most", sp.Ge: "at least", sp.Gt: "at least",
               sp.Eq: "of"}[form.op]
    head = (f"{seq.quantity} = O({x}^{a_x:.3g}) claimed ({claimed} that order) as {x} -> "
            f"{toward}" + (f", s = 1/{x}" if toward == "oo" else ""))
    if fit is None:
        return Verdict(claim.id, Outcome.INCONCLUSIVE, where=where, method="limit fit",
                       predicted=a, reason=f"{head}; only {np.count_nonzero(res)} of "
                       f"{len(q)} values exceed their errors (a fit needs 3); undecided: a "
                       f"longer sequence would take {_longer(seq)}",
                       figure_data=_figure(claim, form, seq, None, None, None, a))
    # the band also holds what the values' own errors allow: exact values (Q = C x^a to
    # rounding) fit with a band narrower than their errors, and a claimed a just outside it
    # would be decided on rounding
    slack = exponent_error(s[res], q[res], e[res])
    lo, hi = fit.lo - slack, fit.hi + slack
    half = 0.5 * (hi - lo)
    if form.op in (sp.Le, sp.Lt):  # Q <~ x^a as x -> 0: the exponent is at least a
        margin = hi - a
        violated = hi < a
        holds = lo > 0 and (lo >= a or half <= SCALING_MAX_HALF_WIDTH)
    elif form.op in (sp.Ge, sp.Gt):
        margin = a - lo
        violated = lo > a
        holds = hi <= a or half <= SCALING_MAX_HALF_WIDTH
    else:
        margin = min(a - lo, hi - a)
        violated = not lo <= a <= hi and half <= SCALING_MAX_HALF_WIDTH
        holds = lo <= a <= hi and half <= SCALING_MAX_HALF_WIDTH
    outcome = Outcome.VIOLATED if violated else Outcome.HOLDS if holds else \
        Outcome.INCONCLUSIVE
    widened = f", widened by {slack:.2g} for the values' errors" if slack > 0 else ""
    reason = (f"{head}; fitted exponent {fit.exponent:.3g}, {100 * CONFIDENCE:.0f}% band "
              f"[{lo:.3g}, {hi:.3g}] ({fit.points} values above their errors{widened}, "
              f"{seq.description})")
    if outcome is Outcome.INCONCLUSIVE:
        reason += f"; undecided: a longer sequence would take {_longer(seq)}"
    return Verdict(claim.id, outcome, margin=float(margin), error=float(half), where=where,
                   reason=reason, observed=fit.exponent, predicted=a, band=(lo, hi),
                   method="limit fit", figure_data=_figure(claim, form, seq, None, fit, None, a,
                                                           exponent_band=(lo, hi)))


# -- the claims on runs ----------------------------------------------------------------------
def _estimate_claim(claim: Claim, form: LimitForm, name: str) -> Claim:
    """The relation with its limit replaced by the symbol ``name``: a claim
    `verify.engine.check_run.check_estimate` decides on the limit's estimate."""
    limit_side = form.relation.lhs if form.relation.lhs.atoms(sp.Limit) else form.relation.rhs
    symbol = sp.Symbol(name, real=True)
    relation = form.relation.xreplace({limit_side: symbol})
    return replace(claim, kind=Kind.IDENTITY, statement=relation)


def _fixed(claim: Claim, expr: sp.Basic, runs: list[Trajectory], what: str) -> float:
    """``expr`` (instance quantities) on the sequence's instances, which must agree."""
    values = []
    for run in runs:
        try:
            values.append(RunContext(claim, run).scalar(expr))
        except MissingValue as exc:
            raise CheckError(f"{claim.id}: the instance does not define {exc}") from None
    value = values[0]
    tol = 16 * ROUNDING * max(1.0, abs(value))
    if any(abs(v - value) > tol for v in values):
        raise CheckError(f"{claim.id}: {what} {sp.sstr(expr)} differs across the sequence's "
                         f"instances ({min(values):.6g} .. {max(values):.6g}): a sequence "
                         "varies only the limit's variable")
    return value


def _decide_on_runs(claim: Claim, form: LimitForm, runs: list[Trajectory],
                    seq: LimitSequence) -> Verdict:
    """`decide` with Q* (or a rate's exponent) evaluated on the runs' instances."""
    if form.rate is not None:
        return decide(claim, form, seq, exponent=_fixed(claim, form.rate[1], runs,
                                                        "the rate's exponent"))
    target = _fixed(claim, form.target, runs, "the claimed limit")
    return decide(claim, form, seq, target, ROUNDING * abs(target))


def _relation_on_runs(claim: Claim, form: LimitForm, runs: list[Trajectory]) -> Verdict:
    if form.in_time_only and len(runs) > 1:
        return combine(claim.id, [_relation_on_runs(claim, form, [r]) for r in runs])
    if form.in_time_only:
        run = runs[0]
        name = f"lim({sp.sstr(form.quantity)})"
        if run.problem.loss == "square" and not run.problem.vector_output:
            est = run_limit(claim, form.quantity, run, name)
            verdict = replace(check_estimate(_estimate_claim(claim, form, name), est),
                              method="limit point")
            size = max(1.0, abs(est.value), abs(verdict.predicted or 0.0))
            if form.op is sp.Eq and verdict.outcome is Outcome.HOLDS and \
                    est.error > IDENTITY_MAX_STATE_ERROR * size:
                return replace(verdict, outcome=Outcome.INCONCLUSIVE, reason=(
                    f"{verdict.reason}; the limit is known to {est.error:.2g}, above "
                    f"{IDENTITY_MAX_STATE_ERROR:g} of its size: {TOO_COARSE}"))
            return verdict
        seq = sequence(claim, form, runs)  # no limit point at finite parameters: its saves
        verdict = _decide_on_runs(claim, form, runs, seq)
        return replace(verdict, reason=f"{verdict.reason} (the {run.problem.loss} loss has no "
                       "limit point at finite parameters: read along the run's saves)")
    if len(runs) < 3:
        raise CheckError(f"{claim.id}: a limit {form.text()} needs a sequence of at least 3 "
                         f"runs at decreasing {form.outer[0]}, got {len(runs)}")
    return _decide_on_runs(claim, form, runs, sequence(claim, form, runs))


def check_limit(claim: Claim, evidence) -> Verdict:
    """Check a LIMIT claim on runs (a Trajectory, or a list of them at decreasing lam) or on
    a `verify.engine.evidence.LimitSequence` (module docstring)."""
    if claim.kind is not Kind.LIMIT:
        raise CheckError(f"{claim.id}: a {claim.kind.value} claim, not a limit: check it on "
                         "its own evidence")
    forms = limit_forms(claim)
    if isinstance(evidence, LimitSequence):
        matching = [f for f in forms if str(f.outer[0]) == evidence.variable]
        if len(matching) != 1:
            raise CheckError(f"{claim.id}: a LimitSequence in {evidence.variable!r} decides "
                             f"one relation whose outer limit is in it; the claim's are in "
                             f"{sorted({str(f.outer[0]) for f in forms})}")
        form = matching[0]
        target = None
        if form.target is not None:
            value = claim.substituted(form.target)  # the claim's parameters set
            if value.free_symbols:
                raise CheckError(f"{claim.id}: the claimed limit {sp.sstr(form.target)} "
                                 "depends on the instance: give runs, not a LimitSequence")
            target = float(value)
        return decide(claim, form, evidence, target)
    runs = [evidence] if isinstance(evidence, Trajectory) else list(evidence)
    if not runs or not all(isinstance(r, Trajectory) for r in runs):
        raise CheckError(f"{claim.id}: a limit is checked on runs or a LimitSequence")
    for run in runs:
        why = inapplicable_instance(claim, run.problem)
        if why:
            return Verdict(claim.id, Outcome.INAPPLICABLE, reason=why,
                           where=Where(run.problem.content_hash, run.problem.meta.get("seed")))
        if not run.status.ok or not run.finite:
            return Verdict(claim.id, Outcome.INCONCLUSIVE, method=run.method,
                           where=Where(run.problem.content_hash, run.problem.meta.get("seed")),
                           reason=f"simulation not trustworthy: {run.status.name} "
                           f"{run.message}")
    verdicts = []
    for form in forms:
        try:
            verdicts.append(_relation_on_runs(claim, form, runs))
        except MissingValue as exc:
            return Verdict(claim.id, Outcome.INAPPLICABLE, reason=f"the instance does not "
                           f"define {exc}")
    verdict = verdicts[0] if len(verdicts) == 1 else _conjunction(claim, verdicts)
    note = relaxed_note(claim, RunContext(claim, runs[0]))
    if note and verdict.outcome is not Outcome.INAPPLICABLE:
        verdict = replace(verdict, reason=f"{verdict.reason}; {note}")
    return verdict


def _conjunction(claim: Claim, verdicts: list[Verdict]) -> Verdict:
    """The worst of a conjunction's relations, as one verdict (not as instances)."""
    worst = combine(claim.id, verdicts)
    pick = next(v for v in verdicts if v.outcome is worst.outcome and (
        v.margin == worst.margin or (math.isnan(v.margin) and math.isnan(worst.margin))))
    return replace(pick, reason="; ".join(f"[{v.where.part}] {v.outcome.value}: {v.reason}"
                                          for v in verdicts))


__all__ = ["check_limit", "decide", "exponent_error", "run_limit", "sequence"]
