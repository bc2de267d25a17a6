"""The checks on ensembles: PROBABILITY claims on a `verify.engine.evidence.Sample` of instances
(exact binomial intervals, Bonferroni-simultaneous) and SCALING claims on
`verify.engine.evidence.ScalingData` (the quantity regressed on the claimed law's shape), with
their figure payloads.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from theory.claim import Claim, Kind
from verify.engine.check_run import inapplicable_problem
from verify.engine.evidence import Sample, ScalingData
from verify.engine.figure_data import floats, number
from verify.engine.relations import RELATION_TEXT, signed_margin
from verify.engine.run_context import RunContext
from verify.engine.scaling import FitError, binomial_interval, fit_power_law
from verify.engine.verdict import CheckError, Outcome, Verdict, Where
from verify.language.measures import (
    ENSEMBLE_QUANTITIES,
    instance_values,
)

# A scaling verdict needs an exponent interval narrower than this half-width: the
# suite's mutants shift exponents by 0.25, which a wider interval could not resolve.
SCALING_MAX_HALF_WIDTH = 0.2
# A probability identity is confirmed only by intervals narrower than this half-width.
PROBABILITY_MAX_HALF_WIDTH = 0.05
# Confidence level of probability and exponent intervals.
CONFIDENCE = 0.95

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


def check_probability(claim: Claim, sample: Sample) -> Verdict:
    """Frequencies with exact (Clopper-Pearson) intervals; the margin is evaluated at every
    corner of the box of intervals: HOLDS if it is positive at all, VIOLATED if at none."""
    if claim.kind is not Kind.PROBABILITY:
        raise CheckError(f"{claim.id}: a Sample is evidence for PROBABILITY claims only")
    first = sample.problems[0]
    where = Where(instance=f"{len(sample.problems)} instances, first {first.content_hash}",
                  seed=first.meta.get("seed"))
    ctx = RunContext.of_problem(claim, first)
    why = inapplicable_problem(claim, ctx, first)
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
    spread = 0.0  # how far an identity's margin moves over the box (its sampling error)
    for rel in parts:
        if isinstance(rel, sp.Equality):
            # the identity holds somewhere in the box iff the signed difference changes sign
            diffs = [-_relation_margin(sp.Le(rel.lhs, rel.rhs), {**fixed, **c})
                     for c in corners]
            consistent = min(diffs) <= 0 <= max(diffs)
            margins = [0.0 if consistent else -min(abs(v) for v in diffs)]
            equality_undecided |= consistent
            at_estimate = -_relation_margin(sp.Le(rel.lhs, rel.rhs), {**fixed, **estimates})
            spread = max(spread, max(abs(v - at_estimate) for v in diffs))
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
    # the error shown with the margin: the distance from the estimate's margin to the box's
    # worst corner, or for an identity the distance its difference moves over the box
    # (point - worst alone is negative when an identity's box contains 0)
    error = max(point - worst, spread)
    return Verdict(claim.id, outcome, margin=point, error=error, where=where,
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


#: a leading-order fit (``ScalingData.toward``) decides only where its fitted correction is
#: at most this relative size over the measured range
CORRECTION_MAX = 0.3


def check_scaling(claim: Claim, data: ScalingData) -> Verdict:
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
    correction = None
    if data.toward is not None:  # leading order as x -> 0 (inf): a correction of that order
        order = data.correction_order if data.toward == "0" else -data.correction_order
        correction = xs ** order
    try:
        shape = fit_power_law(law, data.y, level=CONFIDENCE, correction=correction)
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
    if data.toward is None:
        fit_text = (f"alpha = {alpha:.3f}, {100 * CONFIDENCE:.0f}% CI [{lo:.3f}, {hi:.3f}] "
                    f"(beta = {shape.exponent:.3f} against the law's shape, {shape.method}, "
                    f"{shape.points} values of {data.variable})")
    else:
        power = f"{data.correction_order:g}" if data.toward == "0" else \
            f"-{data.correction_order:g}"
        fit_text = (f"alpha = {alpha:.5g}, interval [{lo:.5g}, {hi:.5g}] (beta = "
                    f"{shape.exponent:.5g} against the law's shape, to leading order as "
                    f"{data.variable} -> {data.toward}: one relative correction gamma "
                    f"{data.variable}^{power} fitted, gamma = {shape.correction:.3g}; the "
                    f"{100 * CONFIDENCE:.0f}% t-interval widened to 3x the exponent's move when "
                    f"the next order is fitted too; {shape.points} values of "
                    f"{data.variable})")
    if data.toward is not None and shape.correction_size > CORRECTION_MAX:
        outcome = Outcome.INCONCLUSIVE
        reason = (f"the next-order correction is not small over the measured range (|gamma| "
                  f"x {data.variable}^{power} reaches {shape.correction_size:.2g} > "
                  f"{CORRECTION_MAX:g}): values nearer the limit would decide; {fit_text}")
    elif half_width > SCALING_MAX_HALF_WIDTH:
        outcome = Outcome.INCONCLUSIVE
        reason = f"interval too wide to decide (half-width {half_width:.2f}): {fit_text}"
    else:
        outcome = Outcome.VIOLATED if violated else Outcome.HOLDS
        reason = f"claimed exponent {alpha0:.3g}; fitted {fit_text}"
    figure = _scaling_figure(claim, rel, data, xs, law, shape, alpha, (lo, hi), alpha0,
                             correction)
    return Verdict(claim.id, outcome, margin=float(margin), error=half_width,
                   where=where, reason=reason, observed=alpha, predicted=alpha0,
                   method="power-law fit", figure_data=figure)


# More points than this in a scaling series are thinned (evenly, per x value) in its figure.
SCALING_FIGURE_MAX_POINTS = 2000


def _scaling_figure(claim, rel, data, xs, law, shape, alpha, ci, alpha0,
                    correction=None) -> dict | None:
    """figure_data of a scaling check: the data, the fitted law with its band, the claim
    (with a correction term, the fitted curve and band carry it)."""
    try:
        ys = np.asarray(data.y, dtype=float)
        ux, first = np.unique(xs, return_index=True)
        ll, ly = np.log(law), np.log(ys)
        z = np.zeros_like(ll) if correction is None else np.asarray(correction, dtype=float)
        gamma = shape.correction if correction is not None else 0.0
        # the OLS fit passes through the means of its regressors
        lbar, ybar = float(np.mean(ll)), float(np.mean(ly)) - gamma * float(np.mean(z))
        lu = ll[first]
        band = np.exp(ybar + np.outer((shape.lo, shape.hi), lu - lbar) + gamma * z[first])
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
                    "y": floats(shape.prefactor * law[first] ** shape.exponent
                                * np.exp(gamma * z[first])),
                    "band_lo": floats(band.min(axis=0)), "band_hi": floats(band.max(axis=0)),
                    "claimed": floats(np.exp(ybar + (lu - lbar)))},
        }
    except Exception:  # noqa: BLE001  (the figure is optional; the verdict stands)
        return None
