"""One instance: the extreme of the critical value of C over the statement's window.

On a run, each part's critical value ``h`` is evaluated at every saved time of the window
with `verify.check.evaluate` (so with exactly the error a check counts: companion
difference and round-off), and the sign of the slope says which way it bounds C. The
instance's value is the largest ``h`` where C is bounded below, the smallest where it is
bounded above; a statement that bounds C from both sides on one run is refused. For an
event-time bound the event's time is read as a check reads it (`event_time`), with the
check's error (the companion's event time and the saved-time spacing), and ``h`` is
evaluated at that time.

The time chosen is the one that bounds C most surely (the largest ``h - error`` where C
is bounded below, the smallest ``h + error`` above); the instance decides C only when
there the error is within ``RESOLVED`` (2%) of the value, so that the 2% check of a
witness can be decided. A larger value known less well is not a sharpest value
*observed*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import sympy as sp

from numerics import Trajectory
from theory.claim import Claim
from verify.check import check, evaluate
from verify.check_run import event_time, instance_scalar, window_mask
from verify.tighten.statement import Tightenable, TightenError, substitute
from verify.verdict import CheckError, Outcome

DECIDED, UNDECIDED, INAPPLICABLE = "decided", "undecided", "inapplicable"
MOVE = 0.02  # the witness is checked with C moved 2% past and back (`verify.tighten.search`)
# an instance decides C only where C's error is below the 2% of that check
RESOLVED = MOVE


@dataclass(frozen=True)
class Extreme:
    """The instance's critical value of C (None unless ``status`` is DECIDED), its error,
    where it is attained (time, part), which way C is bounded (+1: C >= value makes the
    statement hold on this run, -1: C <= value), and why when it is not decided."""

    status: str
    value: float | None = None
    error: float = math.nan
    t: float | None = None
    part: int = 0
    direction: int = 0
    note: str = ""
    unresolved: int = 0  # saved times where the value's error exceeds RESOLVED of it


def _direction(signs: np.ndarray, where: str) -> int:
    signs = signs[signs != 0]
    if not signs.size:
        return 0
    if np.all(signs > 0):
        return 1
    if np.all(signs < 0):
        return -1
    raise TightenError(f"{where}: the constant bounds the statement from both sides on one "
                       f"run (the slope changes sign); tighten one part (--part) or restate it")


def _pointwise(tight: Tightenable, claim: Claim, tr: Trajectory) -> Extreme:
    best: tuple | None = None
    direction = 0
    inside = window_mask(claim, tr)
    unresolved = 0
    for k, part in enumerate(tight.parts):
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            vals, errs = evaluate(claim, tr, part.critical)
            slope, _ = evaluate(claim, tr, part.slope)
        vals = np.broadcast_to(np.asarray(vals, dtype=float), tr.t.shape)
        errs = np.broadcast_to(np.asarray(errs, dtype=float), tr.t.shape)
        slope = np.broadcast_to(np.asarray(slope, dtype=float), tr.t.shape)
        with np.errstate(invalid="ignore"):
            ok = (inside & np.isfinite(vals) & np.isfinite(errs) & np.isfinite(slope)
                  & (slope != 0))
            unresolved += int((ok & (errs > RESOLVED * np.abs(vals))).sum())
        if not ok.any():
            continue
        d = _direction(np.sign(slope[ok]), part.text())
        if direction and d != direction:
            raise TightenError(f"{tight.text}: its parts bound the constant from opposite "
                               f"sides; tighten one part (--part)")
        direction = d
        idx = np.flatnonzero(ok)
        # the time that bounds C most surely: the largest h - error (smallest h + error)
        j = idx[np.argmax(d * vals[idx] - errs[idx])]
        cand = (float(vals[j]), float(errs[j]), float(tr.t[j]), k)
        if best is None or d * cand[0] - cand[1] > d * best[0] - best[1]:
            best = cand
    if best is None:
        return Extreme(UNDECIDED, note="the constant is not determined at any saved time of "
                                       "the window (no saved time there, or its coefficient "
                                       "is 0 or not finite)")
    value, error, t, k = best
    if not error <= RESOLVED * abs(value):
        return Extreme(UNDECIDED, note=f"the constant is not resolved: where it is most "
                                       f"surely bounded, {value:.4g} +- {error:.2g} (more "
                                       f"than {RESOLVED:.0%})", unresolved=unresolved)
    return Extreme(DECIDED, value, error, t, k, direction, unresolved=unresolved)


def _event(tight: Tightenable, claim: Claim, tr: Trajectory, error: float) -> Extreme:
    t_obs = event_time(claim, tr)
    if not math.isfinite(t_obs):
        return Extreme(UNDECIDED, note=f"the event did not happen by t = {float(tr.t[-1]):.4g}")
    best: tuple | None = None
    direction = 0
    for k, part in enumerate(tight.parts):
        def at(t: float, expr=part.critical) -> float:
            return instance_scalar(claim, tr, expr.xreplace({claim.event_time: sp.Float(t)}))

        value = at(t_obs)
        slope = instance_scalar(claim, tr, part.slope.xreplace(
            {claim.event_time: sp.Float(t_obs)}))
        if not (math.isfinite(value) and math.isfinite(slope)) or slope == 0:
            continue
        d = 1 if slope > 0 else -1
        if direction and d != direction:
            raise TightenError(f"{tight.text}: its parts bound the constant from opposite "
                               f"sides; tighten one part (--part)")
        direction = d
        spread = abs(at(t_obs + error) - at(max(t_obs - error, 0.0))) / 2
        cand = (value, spread if math.isfinite(spread) else math.inf, t_obs, k)
        if best is None or (cand[0] > best[0] if d > 0 else cand[0] < best[0]):
            best = cand
    if best is None:
        return Extreme(UNDECIDED, note="the constant is not determined by the bound")
    if not best[1] <= RESOLVED * abs(best[0]):
        return Extreme(UNDECIDED, note=f"the event time's error makes C uncertain by "
                                       f"{best[1]:.3g} (more than {RESOLVED:.0%} of "
                                       f"{best[0]:.4g})")
    value, err, t, k = best
    return Extreme(DECIDED, value, err, t, k, direction)


def instance_extreme(tight: Tightenable, claim: Claim, tr: Trajectory,
                     reference: float | sp.Basic = 1) -> Extreme:
    """The instance's critical value of C on the run ``tr``. ``claim`` is the statement on
    this run with C left free; ``reference`` (the proved value, or 1) is the value at which
    the statement's assumptions and the run's trustworthiness are checked first."""
    if not tr.status.ok or not tr.finite:
        return Extreme(UNDECIDED, note=f"simulation not trustworthy: {tr.status.name}")
    tolerance = 0.0
    if tight.claim is not None or tight.event_time:  # assumptions, the event's error
        at_ref = replace(claim, statement=substitute(claim.statement,
                                                     {tight.free: sp.sympify(reference)}))
        try:
            verdict = check(at_ref, tr)
        except CheckError as exc:
            raise TightenError(f"{tight.text}: {exc}") from None
        if verdict.outcome is Outcome.INAPPLICABLE:
            return Extreme(INAPPLICABLE, note=verdict.reason or "an assumption is not met")
        tolerance = float(verdict.tolerance)
    try:
        if tight.event_time:
            return _event(tight, claim, tr, tolerance)
        return _pointwise(tight, claim, tr)
    except CheckError as exc:
        raise TightenError(f"{tight.text}: {exc}") from None
