"""The checks on trajectories: a relation at every saved time of a window (POINTWISE,
CONSERVED, TRAPPING, IDENTITY), an event time against its bound (EVENT_TIME), a run
scalar only a limit defines (`verify.engine.evidence.Estimate`), with their figure payloads.

Length (~430 lines): the checks, and the public readers of a claim on a run that
conjectures, tightenings and packs share with them (its window, its event time, an
instance scalar, the window cut at a loss floor), so that each is read one way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import sympy as sp

from numerics import Trajectory
from numerics.conventions import time_factor
from theory.claim import Claim, Kind
from verify.engine.accuracy import finest_float64
from verify.engine.evidence import Estimate
from verify.engine.figure_data import number
from verify.engine.figure_data import series as figure_series
from verify.engine.relations import RELATION_TEXT, signed_margin
from verify.engine.run_context import (
    ASSUMPTION_ATOL,
    MissingValue,
    RunContext,
    convention_of,
    in_claim_convention,
    margin_on_run,
    problem_in_claim_convention,
)
from verify.engine.verdict import (
    ALL_NAMED,
    TOO_COARSE,
    WITHIN_ERROR,
    CheckError,
    Outcome,
    Verdict,
    Where,
)
from verify.language.measures import (
    ERROR_SAFETY,
    FLOAT_EPS,
    ROUNDING,
    ROUNDOFF_ULPS,
    measure,
)

# An equality (identity, conservation law) is confirmed only on a run whose state is
# known to this relative accuracy; a looser run cannot tell the identity from an
# O(error) violation of it, and gets INCONCLUSIVE.
IDENTITY_MAX_STATE_ERROR = 1e-5

# -- the checks ------------------------------------------------------------------------------
def _where(tr: Trajectory, t: float | None = None, part: str = "") -> Where:
    return Where(instance=tr.problem.content_hash, seed=tr.problem.meta.get("seed"), t=t,
                 part=part)


def _verdict(claim, tr, outcome, **kw) -> Verdict:
    return Verdict(claim_id=claim.id, outcome=outcome, method=tr.method, **kw)


def _inapplicable(claim: Claim, ctx: RunContext) -> str | None:
    departure = ctx.tr.departure
    if departure and not (claim.reads_run_as_made or claim.instance_property):
        return (f"the run is not gradient descent, the dynamics the claim is about: "
                f"{departure}")
    return inapplicable_problem(claim, ctx, ctx.tr.problem)


def inapplicable_instance(claim: Claim, problem) -> str | None:
    """Why ``claim`` does not apply to ``problem`` (an unmet assumption, another
    parametrisation or loss), or None: decided before any simulation."""
    return inapplicable_problem(claim, RunContext.of_problem(claim, problem),
                                problem_in_claim_convention(claim, problem))


def inapplicable_problem(claim: Claim, ctx: RunContext, prob) -> str | None:
    if not claim.applies_to(prob.parametrization, prob.loss):
        from theory.claim import CONVENTIONS

        losses = ((claim.loss,) if claim.loss is not None else
                  CONVENTIONS[claim.parametrization][1] if claim.parametrization else ())
        loss = f" with the {' or '.join(losses)} loss" if losses else ""
        return (f"the claim is stated for the {claim.parametrization or 'any'} "
                f"parametrisation{loss}; the instance is {prob.parametrization} with the "
                f"{prob.loss} loss")
    model = claim.model_mismatch(prob)
    if model is not None:
        return model
    for assumption in claim.setting:
        if assumption.required:
            why = _assumption_failure(assumption, ctx)
            if why:
                return why
    return None


def relaxed_note(claim: Claim, ctx: RunContext) -> str:
    """What a verdict of ``claim`` must say when a hypothesis it does not require
    (`theory.Assumption.required` False) fails on the instance: the statement was checked
    outside the paper's hypotheses. "" when every such hypothesis holds."""
    failed = [_assumption_failure(a, ctx) for a in claim.setting if not a.required]
    failed = [f for f in failed if f]
    return ("relaxed (outside the paper's hypotheses): " + "; ".join(failed)) if failed else ""


def _assumption_failure(assumption, ctx: RunContext) -> str | None:
    parts = (assumption.statement.args if isinstance(assumption.statement, sp.And)
             else (assumption.statement,))
    # an equality holds to the precision the instance was given in (a float32 record's)
    atol = ASSUMPTION_ATOL * ctx.inst.problem.unit_roundoff / 2.0**-53
    for rel in parts:
        try:
            lhs = ctx.scalar(rel.lhs)
            rhs = ctx.scalar(rel.rhs)
        except MissingValue as exc:
            return f"{assumption.name}: the instance does not define {exc}"
        ok = {
            sp.Equality: abs(lhs - rhs) <= atol,
            sp.Unequality: abs(lhs - rhs) > atol,
            sp.GreaterThan: lhs >= rhs,
            sp.StrictGreaterThan: lhs > rhs,
            sp.LessThan: lhs <= rhs,
            sp.StrictLessThan: lhs < rhs,
        }[type(rel)]
        if not ok:
            details = [getattr(ctx.inst[s.name], "detail", "")
                       for s in sorted(ctx.claim.substituted(rel).free_symbols, key=str)
                       if s.name in ctx.inst]
            details = "; ".join(d for d in details if d)
            return (f"{assumption.name} fails: `{sp.sstr(rel)}` with {lhs:.4g} vs {rhs:.4g}"
                    + (f" ({details})" if details else ""))
    return None


def check_one(claim: Claim, tr: Trajectory) -> Verdict:
    tr = in_claim_convention(claim, tr)
    verdict = _check_one(claim, tr)
    note = relaxed_note(claim, RunContext(claim, tr)) if verdict.outcome is not \
        Outcome.INAPPLICABLE else ""
    if not note:
        return verdict
    return replace(verdict, reason=f"{verdict.reason}; {note}" if verdict.reason else note)


def _check_one(claim: Claim, tr: Trajectory) -> Verdict:
    if not claim.checkable:
        raise CheckError(f"{claim.id} is not checkable: {claim.not_checkable_reason}")
    ctx = RunContext(claim, tr)
    why = _inapplicable(claim, ctx)
    if why:
        return _verdict(claim, tr, Outcome.INAPPLICABLE, reason=why, where=_where(tr))
    if not tr.status.ok or not tr.finite:
        return _verdict(claim, tr, Outcome.INCONCLUSIVE, where=_where(tr),
                        reason=f"simulation not trustworthy: {tr.status.name} {tr.message}")
    try:
        if claim.kind in (Kind.POINTWISE, Kind.CONSERVED, Kind.TRAPPING, Kind.IDENTITY):
            if _opens_at_event(claim):  # t >= t_2: the event time read off this run
                te = _event_time(claim, ctx, companion=False)
                if not math.isfinite(te):
                    return _verdict(claim, tr, Outcome.INCONCLUSIVE, where=_where(tr),
                                    reason=f"the claim is stated from the event "
                                    f"{claim.event_time} on, which did not happen by "
                                    f"t={_run_end(tr):.4g}")
                claim = _fixed_event(claim, te)
                ctx = RunContext(claim, tr)
            return _check_over_window(claim, ctx)
        if claim.kind is Kind.EVENT_TIME:
            return _check_event_time(claim, ctx)
    except MissingValue as exc:
        return _verdict(claim, tr, Outcome.INAPPLICABLE, where=_where(tr),
                        reason=f"the instance does not define {exc}")
    raise CheckError(f"{claim.id}: checks of kind {claim.kind.value!r} are not implemented yet")


def check_estimate(claim: Claim, est: Estimate) -> Verdict:
    """The claim's relations with ``est.quantity`` set to the estimate: the error is the
    estimate's own (propagated through the relation) plus the round-off of the sides."""
    tr = est.trajectory
    where = _where(tr, est.t)
    if in_claim_convention(claim, tr) is not tr:  # an estimate (a time, say) has no reading
        return _verdict(claim, tr, Outcome.INAPPLICABLE, where=where, reason=(
            f"the estimate was made on a run with loss prefactor {tr.problem.loss_scale:g}; "
            f"the claim is stated for {convention_of(claim, tr.problem):g}"))
    ctx = RunContext(claim, tr)
    why = _inapplicable(claim, ctx)
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
        except MissingValue as exc:
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
                    margin=float(margin), error=float(error), where=Where(
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


# A saved time within this relative distance of a window's end counts as that time (a
# time computed twice, t = k lr against a claim's formula, differs in its last bits).
TIME_RTOL = 1e-9


def _window_ends(claim: Claim, ctx: RunContext) -> tuple[float, float]:
    lo_expr, hi_expr = claim.window
    lo = ctx.scalar(lo_expr)
    hi = math.inf if hi_expr == sp.oo else ctx.scalar(hi_expr)
    return lo, hi


def _window_mask(claim: Claim, ctx: RunContext) -> np.ndarray:
    lo, hi = _window_ends(claim, ctx)
    hi = min(hi, _run_end(ctx.tr))
    t = ctx.tr.t
    return (t >= lo - TIME_RTOL * max(1.0, abs(lo))) & (t <= hi + TIME_RTOL * max(1.0, abs(hi)))


def _check_over_window(claim: Claim, ctx: RunContext) -> Verdict:
    """Every relation at every saved time in the window.

    A point violates when margin < -error. For inequalities, |margin| <= error is inside
    the error band: undecided there, unless the margin is below the rounding of the
    relation's own formula (no float64 run can decide it: `unresolved`, named in the
    verdict, which then covers the other times). Equalities can only be confirmed up to
    the error. The reported point is the most violated one, or else the first undecided
    one, or else the one closest to its error band.
    """
    tr = ctx.tr
    inside = _window_mask(claim, ctx)
    if not inside.any():
        lo, hi = _window_ends(claim, ctx)
        if lo == hi and tr.t[0] < lo < _run_end(tr):
            return _check_between_saved(claim, ctx, lo)
        return _verdict(claim, tr, Outcome.INCONCLUSIVE, where=_where(tr),
                        reason=f"no saved time inside the claim's window t in [{lo:.4g}, "
                        f"{hi:.4g}] (the run's saved times are in [{tr.t[0]:.4g}, "
                        f"{_run_end(tr):.4g}])")
    times = tr.t[inside]
    violated, inconclusive, closest = [], [], []
    series = {}  # part -> (relation, margin, error) over the window, for figure_data
    unresolved = np.zeros(len(times), dtype=bool)  # below float64's rounding of the relation
    unfinished = np.zeros(len(times), dtype=bool)  # within the finest float64 run's error
    zero_loss = np.zeros(len(times), dtype=bool)  # L = 0 exactly: a ratio of it undefined
    finest = finest_float64(tr)
    equalities = []  # (error, rounding) of each equality, for the identity gate
    for rel in claim.relations():
        on = _on_window(rel, ctx, inside, finest)
        margin, error, rounding, exact_fit = on.margin, on.error, on.rounding, on.exact_fit
        part = sp.sstr(rel)
        zero_loss |= exact_fit
        if on.not_finite is not None:
            k = on.not_finite
            return _verdict(claim, tr, Outcome.INCONCLUSIVE, where=_where(tr, times[k], part),
                            reason=f"{part} is not finite at t={times[k]:.4g}")
        series.setdefault(part, (rel, margin, error))
        strict = isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))
        bad = ((margin < -error) | (strict & (margin <= 0) & (error == 0))) & ~exact_fit
        # each entry ends with the index k of its point (never reached by the tuple
        # order: one entry per relation, and the entries differ in ``part`` before it)
        if bad.any():
            k = int(np.argmin(margin + error))
            violated.append((margin[k] + error[k], margin[k], error[k], times[k], part, k))
            continue
        if on.is_eq:
            equalities.append((error, rounding))
        else:
            unresolved |= on.below
            unfinished |= on.named
            if (on.undecided & ~on.below & ~on.named).any():
                k = int(np.flatnonzero(on.undecided & ~on.below & ~on.named)[0])
                inconclusive.append((0.0, margin[k], error[k], times[k], part, k))
        denom = np.abs(margin) + error
        with np.errstate(divide="ignore", invalid="ignore"):
            closeness = np.where(denom > 0, (margin + error) / denom, 1.0)
        closeness = np.where(unresolved | unfinished | zero_loss, np.inf, closeness)
        # the least slack relative to the error; among points equally far from deciding
        # (closeness 1: every margin > error), the smallest margin
        k = int(np.lexsort((margin, closeness))[0])
        closest.append((closeness[k], margin[k], error[k], times[k], part, k))
    reason, note = "", ""
    window = (float(times[0]), float(times[-1]))
    if violated:
        outcome, pick = Outcome.VIOLATED, min(violated)
    elif inconclusive:
        outcome, pick = Outcome.INCONCLUSIVE, inconclusive[0]
        reason = WITHIN_ERROR
    elif (unresolved | unfinished | zero_loss).all():
        outcome, pick = Outcome.INCONCLUSIVE, min(closest)
        reason = (f"{ALL_NAMED} float64's resolution of the relation on this run (the margin "
                  "within the rounding of its own formula or within the error of the finest "
                  "float64 run, or the loss within its own error of 0)")
    else:
        outcome, pick = Outcome.HOLDS, min(closest)
        note = "; ".join(x for x in (
            unresolved_text(tr, times, unresolved, "the margin is below the rounding of "
                            "the relation's own formula"),
            unresolved_text(tr, times, unfinished & ~unresolved, "the relation holds on the "
                            "run but within the error of the finest float64 run "
                            f"({_accuracy(tr)}), which no run tried resolves"),
            unresolved_text(tr, times, zero_loss, "the loss is 0, or within its own error of "
                            "0, in float64 (the outputs equal the labels to about the last "
                            "bits), where the relation is not defined or not known to be "
                            "finite")) if x)
        why = _identity_too_coarse(tr, inside, equalities)
        if why:
            outcome, reason = Outcome.INCONCLUSIVE, why
    _, margin, error, t_at, part, k = pick
    rel, margins, errors = series[part]
    figure = _series_figure(claim, ctx, rel, np.flatnonzero(inside), margins, errors, k)
    return _verdict(claim, tr, outcome, margin=float(margin), error=float(error),
                    where=_where(tr, float(t_at), part), reason=reason, figure_data=figure,
                    window=window, unresolved=note)


def _check_between_saved(claim: Claim, ctx: RunContext, at: float) -> Verdict:
    """A claim at one instant ``at`` that falls between two saved times t_k < at < t_k+1:
    each relation's margin interpolated linearly between them, its error the larger of
    their two errors plus the change of the margin from t_k to t_k+1 (the interpolation's
    error when the margin is monotone between two saved times; save the state at ``at``
    itself where it is not). An equality is never confirmed this way."""
    tr = ctx.tr
    k = int(np.searchsorted(tr.t, at)) - 1
    pair = np.zeros(len(tr.t), dtype=bool)
    pair[[k, k + 1]] = True
    w = (at - tr.t[k]) / (tr.t[k + 1] - tr.t[k])
    how = (f"interpolated between the saved times {tr.t[k]:.6g} and {tr.t[k + 1]:.6g} (the "
           "margin's change between them counted in the error)")
    picks = []
    for rel in claim.relations():
        on = _on_window(rel, ctx, pair, False)
        part = sp.sstr(rel)
        if not (np.all(np.isfinite(on.margin)) and np.all(np.isfinite(on.error))):
            return _verdict(claim, tr, Outcome.INCONCLUSIVE, where=_where(tr, at, part),
                            reason=f"{part} is not finite next to t={at:.4g} ({how})")
        margin = float((1 - w) * on.margin[0] + w * on.margin[1])
        error = float(np.max(on.error) + abs(on.margin[1] - on.margin[0]))
        if margin < -error:
            rank = 0
        elif on.is_eq or abs(margin) <= error:
            rank = 1
        else:
            rank = 2
        picks.append((rank, margin, error, part, on.is_eq))
    rank, margin, error, part, is_eq = min(picks)
    outcome = (Outcome.VIOLATED, Outcome.INCONCLUSIVE, Outcome.HOLDS)[rank]
    reason = how
    if rank == 1:
        factor = time_factor(tr)
        own = "" if factor == 1.0 else f" (the run's own t = {at / factor:.6g})"
        reason = (f"an identity is not confirmed between saved times ({how}); save the state "
                  f"at t = {at:.6g}{own}" if is_eq else f"{WITHIN_ERROR} ({how}); save the "
                  f"state at t = {at:.6g}{own} to decide it")
    return _verdict(claim, tr, outcome, margin=margin, error=error,
                    where=_where(tr, at, part), reason=reason, window=(at, at))


@dataclass(frozen=True)
class _OnWindow:
    """One relation's margins over a window's saved times, and which of them no float64 run
    decides (`_on_window`)."""

    margin: np.ndarray
    error: np.ndarray
    rounding: np.ndarray
    is_eq: bool
    exact_fit: np.ndarray  # the loss within its own error of 0: the relation undefined
    not_finite: int | None  # the first other time where the margin is not finite
    undecided: np.ndarray  # |margin| <= error (inequalities)
    below: np.ndarray  # ... and below the rounding of the relation's own formula
    named: np.ndarray  # ... or, at the finest float64 run, holding within its error


def _on_window(rel: sp.Basic, ctx: RunContext, inside: np.ndarray, finest: bool) -> _OnWindow:
    margin, error, is_eq, rounding = margin_on_run(rel, ctx)
    margin, error, rounding = margin[inside], error[inside], rounding[inside]
    exact_fit = np.zeros(len(margin), dtype=bool)
    not_finite = None
    if not (np.all(np.isfinite(margin)) and np.all(np.isfinite(error))):
        # where the loss is 0, or within its own error of 0, in float64 (the outputs
        # equal the labels to about the last bits) a ratio of it such as the PL is
        # 0/0, or not known to be finite: no float64 run resolves it there
        exact_fit = (_loss_at_floor(ctx.tr)[inside]
                     & ~(np.isfinite(margin) & np.isfinite(error)))
        rest = ~np.isfinite(margin) & ~exact_fit
        if rest.any():
            not_finite = int(np.flatnonzero(rest)[0])
        margin = np.where(exact_fit, 0.0, margin)
        error = np.where(exact_fit, 0.0, error)
    undecided = (np.abs(margin) <= error) & (error > 0) & ~exact_fit
    if is_eq:
        none = np.zeros_like(undecided)
        return _OnWindow(margin, error, rounding, True, exact_fit, not_finite, undecided,
                         none, none)
    with np.errstate(invalid="ignore"):
        below = undecided & np.isfinite(rounding) & (np.abs(margin) < rounding)
    # at the finest float64 run, a time where the run finds the relation holding but within
    # its error is named; one where it finds it failing stays undecided (a measured
    # violation is never turned into a HOLDS)
    named = undecided & ~below & (margin >= 0) if finest else np.zeros_like(below)
    return _OnWindow(margin, error, rounding, False, exact_fit, not_finite, undecided, below,
                     named)


def undecidable_times(claim: Claim, tr: Trajectory,
                      holding: bool = False) -> tuple[np.ndarray, str]:
    """The saved times of ``tr`` (a mask over ``tr.t``) in ``claim``'s window that no
    float64 run decides, as a check names them: an inequality's margin within its error and
    below the rounding of its own formula, within the finest float64 run's error where the
    relation holds, or the loss within its own error of 0 where the relation is not finite;
    and the note a check prints for them ("" when there are none). ``holding``: the mask
    also marks the times where every inequality holds by more than its error (the times a
    check of ``claim`` finds no fault with)."""
    ctx = RunContext(claim, tr)
    try:
        inside = _window_mask(claim, ctx)
    except MissingValue as exc:
        raise CheckError(f"the instance does not define {exc}") from None
    times = tr.t[inside]
    below = np.zeros(len(times), dtype=bool)
    named, zero = np.zeros_like(below), np.zeros_like(below)
    holds = np.ones_like(below)
    if times.size:
        finest = finest_float64(tr)
        for rel in claim.relations():
            try:
                on = _on_window(rel, ctx, inside, finest)
            except MissingValue as exc:
                raise CheckError(f"the instance does not define {exc}") from None
            zero |= on.exact_fit
            below |= on.below
            named |= on.named
            with np.errstate(invalid="ignore"):
                holds &= (on.margin > on.error) & ~on.exact_fit & (not on.is_eq)
    mask = np.zeros(len(tr.t), dtype=bool)
    mask[inside] = below | named | zero | (holds if holding else False)
    note = "; ".join(x for x in (
        unresolved_text(tr, times, below, "below the rounding of the relation's own formula"),
        unresolved_text(tr, times, named & ~below, f"within the error of the finest float64 "
                        f"run ({_accuracy(tr)})"),
        unresolved_text(tr, times, zero & ~below & ~named, "the loss within its own error "
                        "of 0 in float64")) if x)
    return mask, note


def _loss_at_floor(tr: Trajectory) -> np.ndarray:
    """Saved times at which the run's loss (positive at t = 0) is exactly 0 or within its
    own numerical error of 0 (ERROR_SAFETY x its companion difference + its floor, as a
    check counts it)."""
    loss = np.asarray(tr.loss, dtype=float)
    if not loss.size or not loss[0] > 0:
        return np.zeros(loss.shape, dtype=bool)
    series = measure(tr, "L")
    comp = tr.companion
    if comp is None or len(comp.t) != len(tr.t):
        return loss == 0
    with np.errstate(invalid="ignore"):
        error = ERROR_SAFETY * np.abs(loss - comp.loss) + series.roundoff
        return (loss == 0) | (error >= loss)


def _identity_too_coarse(tr: Trajectory, inside: np.ndarray, equalities: list) -> str:
    """Why the run cannot confirm the claim's equalities, or "": each must be known to
    IDENTITY_MAX_STATE_ERROR relative to the size of its terms (its rounding / ROUNDING;
    where that is not known, the run's relative state error stands in)."""
    worst = 0.0
    for error, rounding in equalities:
        if not np.all(np.isfinite(error)):
            return f"the equality's error is unknown at some saved time: {TOO_COARSE}"
        scale = rounding / ROUNDING  # NaN where a quantity's rounding is not known
        known = error > 0  # an exactly known equality (a counter: error 0) is confirmed
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = error[known] / scale[known]
        if not (np.all(scale[known] > 0) and np.all(np.isfinite(ratio))):
            worst = math.inf
            break
        if known.any():
            worst = max(worst, float(np.max(ratio)))
    if worst <= IDENTITY_MAX_STATE_ERROR:
        return ""
    if math.isinf(worst):
        state_error = float(np.max(tr.state_error[inside]))
        if state_error <= IDENTITY_MAX_STATE_ERROR:
            return ""
        return (f"the run's relative state error {state_error:.2g} is above "
                f"{IDENTITY_MAX_STATE_ERROR:g}: {TOO_COARSE}")
    return (f"the equality is known to {worst:.2g} of the size of its terms, above "
            f"{IDENTITY_MAX_STATE_ERROR:g}: {TOO_COARSE}")


def _accuracy(tr: Trajectory) -> str:
    if tr.method == "exact_flow":
        return f"rtol {float(tr.options['rtol']):g}"
    return tr.method.replace("_", " ")


def unresolved_text(tr: Trajectory, times: np.ndarray, mask: np.ndarray, why: str) -> str:
    """The saved times ``times[mask]`` named: how many, their range, why, the loss there."""
    if not mask.any():
        return ""
    at = times[mask]
    span = f"t = {at[0]:.4g}" if len(at) == 1 else f"t in [{at[0]:.4g}, {at[-1]:.4g}]"
    text = (f"undecidable in float64 at {int(mask.sum())} of {len(times)} saved times "
            f"({span}): {why}")
    loss = np.asarray(tr.loss, dtype=float)
    if loss.size and loss[0] > 0:
        ratio = np.interp(at, tr.t, loss / loss[0])
        text += (f"; L/L(0) there {ratio.min():.2g}" if ratio.min() == ratio.max() else
                 f"; L/L(0) there in [{ratio.min():.2g}, {ratio.max():.2g}]")
    return text


def _series_figure(claim: Claim, ctx: RunContext, rel: sp.Basic, rows: np.ndarray,
                   margin: np.ndarray, error: np.ndarray, k: int | None,
                   event: dict | None = None, at_margin: float | None = None,
                   at_error: float | None = None) -> dict | None:
    """figure_data of a time-series check (see `verify.engine.figure_data`): the relation's two
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
            at_margin=at_margin, at_error=at_error, event=event)
    except Exception:  # noqa: BLE001  (the figure is optional; the verdict stands)
        return None


def _event_time(claim: Claim, ctx: RunContext, companion: bool) -> float:
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
        return _event_time(claim, RunContext(claim, tr), companion=False)
    except MissingValue as exc:
        raise CheckError(f"the instance does not define {exc}") from None


def at_event(claim: Claim, tr: Trajectory) -> Claim | None:
    """``claim`` with its event time (t_2, t_2^+, ...) fixed to its value on ``tr``
    (`event_time`): a window or a value at the event then reads as ordinary numbers. None
    if the event did not happen on the run. (`check` does this itself for a claim whose
    window or statement uses its event time.)"""
    te = event_time(claim, tr)
    if not math.isfinite(te):
        return None
    return _fixed_event(claim, te)


def _fixed_event(claim: Claim, te: float) -> Claim:
    defs = dict(claim.definitions)
    defs[claim.event_time] = sp.Float(te, 30)
    return replace(claim, definitions=defs)


def _opens_at_event(claim: Claim) -> bool:
    """Whether a (non event-time) claim reads its event time (a window t >= t_2, a value
    at t_2) that no definition fixes yet: `check` then reads it off the run."""
    if claim.event is None or claim.event_time is None:
        return False
    if claim.event_time in claim.definitions:
        return False
    exprs = [claim.statement, *claim.window, *(a.statement for a in claim.setting)]
    symbols = set().union(*(sp.sympify(claim.expanded(e)).free_symbols for e in exprs))
    return claim.event_time in symbols


def problem_scalar(claim: Claim, problem, expr: sp.Basic) -> float:
    """An instance-level expression in ``claim``'s terms on ``problem``, before any run."""
    try:
        return RunContext.of_problem(claim, problem).scalar(expr)
    except MissingValue as exc:
        raise CheckError(f"the instance does not define {exc}") from None


def window_mask(claim: Claim, tr: Trajectory) -> np.ndarray:
    """The saved times of ``tr`` inside ``claim``'s window, exactly as a check selects them."""
    try:
        return _window_mask(claim, RunContext(claim, tr))
    except MissingValue as exc:
        raise CheckError(f"the instance does not define {exc}") from None


def above_loss_floor(claim: Claim, tr: Trajectory, level: float) -> Claim:
    """``claim`` with its window ending at the last saved time of ``tr`` where
    L(t)/L(0) >= ``level`` (THEORY N-5, N-10: below such a loss the round-off of a ratio of
    vanishing quantities, the PL among them, swamps every margin). A window that ends
    earlier is kept; a run whose loss starts at 0 keeps only t = 0."""
    tr = in_claim_convention(claim, tr)
    loss = np.asarray(tr.loss, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        keep = np.flatnonzero(loss / loss[0] >= level) if loss.size and loss[0] > 0 else []
    t_floor = sp.Float(float(tr.t[keep[-1]]) if len(keep) else 0.0)
    start, end = claim.window
    if end == sp.oo:
        end = t_floor
    elif end.is_number:
        end = sp.Float(min(float(end), float(t_floor)))
    else:
        end = sp.Min(end, t_floor)
    return replace(claim, window=(start, end))


def instance_scalar(claim: Claim, tr: Trajectory, expr: sp.Basic) -> float:
    """An instance-level expression in ``claim``'s terms (a bound, a window end) on the run's
    problem, evaluated exactly as the checks evaluate it."""
    try:
        return RunContext(claim, tr).scalar(expr)
    except MissingValue as exc:
        raise CheckError(f"the instance does not define {exc}") from None


def _event_resolution(t: np.ndarray, t_event: float) -> float:
    """How well the saved times locate an event first seen at ``t_event``: the spacing to
    the saved time before it (the event happened in between); the largest spacing when
    the event was not seen; none when it holds at the first saved time (the runs start
    from one state there, so no earlier time it could have happened after)."""
    if len(t) and t_event == t[0]:
        return 0.0
    if len(t) < 2:
        return math.inf
    k = int(np.searchsorted(t, t_event)) if math.isfinite(t_event) else 0
    if 0 < k < len(t) and t[k] == t_event:
        return float(t[k] - t[k - 1])
    return float(np.max(np.diff(t)))


def _check_event_time(claim: Claim, ctx: RunContext) -> Verdict:
    tr = ctx.tr
    rel = claim.statement
    if not (isinstance(rel, (sp.LessThan, sp.StrictLessThan)) and rel.lhs == claim.event_time):
        raise CheckError(f"{claim.id}: event-time statements read '{claim.event_time} <= bound'")
    bound = ctx.scalar(rel.rhs)
    t_fine = _event_time(claim, ctx, companion=False)
    t_comp = _event_time(claim, ctx, companion=True)
    grid = _event_resolution(tr.t, t_fine)
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
            return _verdict(claim, tr, Outcome.VIOLATED, margin=bound - t_end, error=error,
                            where=_where(tr, t_end, "event never reached"),
                            observed=math.inf, predicted=bound, figure_data=figure,
                            reason=f"the event did not happen by t={t_end:.4g} > bound {bound:.4g}")
        return _verdict(claim, tr, Outcome.INCONCLUSIVE, where=_where(tr, t_end),
                        predicted=bound, error=error, figure_data=figure,
                        reason=f"the run ends at t={t_end:.4g}, before the bound {bound:.4g} "
                        "(plus error) and before the event")
    margin = bound - t_fine
    if margin > error:
        outcome = Outcome.HOLDS
    elif margin < -error:
        outcome = Outcome.VIOLATED
    else:
        outcome = Outcome.INCONCLUSIVE
    return _verdict(claim, tr, outcome, margin=margin, error=error,
                    where=_where(tr, t_fine, str(claim.event_time)),
                    observed=t_fine, predicted=bound, figure_data=figure,
                    reason=WITHIN_ERROR if outcome is Outcome.INCONCLUSIVE else "")


def _event_figure(claim: Claim, ctx: RunContext, t_event: float, bound: float, error: float,
                  t_end: float) -> dict | None:
    """figure_data of an event-time check: the event's binding relation (the one that
    holds last, or never) over the run, with the event time against its bound."""
    t = ctx.tr.t
    rows = np.flatnonzero(t <= t_end)
    if rows.size == 0:
        return None
    event = {"label": str(claim.event_time), "time": number(t_event), "bound": number(bound),
             "error": number(error), "run_end": number(t_end)}
    try:
        best = None
        for rel in claim.event_relations():
            margin, err, *_ = margin_on_run(rel, ctx)
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
                          at_margin=bound - min(t_event, t_end), at_error=error)
