"""Limits of the flow at t -> infinity read off one run: the one place a run's limit is read.

A run of the square loss that converges ends in one activation pattern, near a stationary
point of the loss there. `polished_limit` polishes the run's end state to that point by
Newton's method (`numerics.stationary.polish`), and does the same to its companion's end
state and to the state at the start of the run's last quarter (`TAIL`). `limit_estimate`
reads a quantity there, as a `verify.engine.evidence.Estimate`:

- at the polished point, with an error of ERROR_SAFETY x (its difference between the run's
  and the companion's polished points, the integration error, + its difference between the
  points polished from the end and from the start of the last quarter: Newton's point is
  further from the flow's limit the further the state it starts from) + the residual's share
  + the quantity's rounding; or
- at the run's end state, with the motion still to come: its change over the last quarter
  times r/(1 - r), r = exp(-mu dt), mu half the slowest relaxation rate of the Hessian at the
  polished point;

whichever error is smaller (`polished_estimate`): a quantity constant along the limit's flat
directions (the loss, the outputs) is read best at the point, one that moves along them (how
the norm is shared among neurons) at the end state, since Newton's step does not follow the
flow along them.

The polished point's kind (minimum, saddle, degenerate within its pattern), its residual and
Hessian spectrum go into the estimate's ``how``. Where no point can be polished (another loss,
a pattern still changing in the last quarter, a run without a companion), the quantity is read
at the run's last saved time instead, with an error of ERROR_SAFETY x its change over the last
quarter and its companion difference, plus its floor (`end_estimate`); ``how`` says why.

Packs expose their limits through this module: BF25's `LIMITS` (`verify.language.measures
.LIMIT_QUANTITIES`, which ``gfverify check --run`` uses on converged records) and the limit
claims' t -> infinity parts (`verify.engine.check_limit`) call `limit_estimate`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from numerics import Trajectory
from numerics.stationary import PolishError, StationaryPoint, polish
from verify.engine.evidence_kinds import Estimate
from verify.language.measures import ERROR_SAFETY, measure

TAIL = 0.25  # the last fraction of the run: its pattern must not change; its start is polished
_CACHE: dict[int, tuple[Trajectory, object]] = {}
_CACHE_SIZE = 64


@dataclass(frozen=True)
class PolishedLimit:
    """A run's limit point: the polished end state as a one-time `Trajectory` (its companion
    the companion's polished end state), the point polished from the start of the last
    quarter (also one time), and the `StationaryPoint` record of the end's polish.

    Attributes
    ----------
    run
        The run it was read from.
    point
        `numerics.stationary.StationaryPoint` of the end state's polish.
    trajectory
        The polished point as a Trajectory at the run's last saved time (its companion: the
        companion's end state polished), so that every trajectory quantity reads on it.
    tail
        The point polished from the state at the start of the last quarter, as a Trajectory.
    tail_time
        That state's time.
    end
        The run's own last saved state, as a one-time Trajectory.
    """

    run: Trajectory
    point: StationaryPoint
    trajectory: Trajectory
    tail: Trajectory
    tail_time: float
    end: Trajectory

    def describe(self) -> str:
        return (f"polished from t = {self.run.t[-1]:.4g} to a {self.point.describe()}; "
                f"also polished from t = {self.tail_time:.4g}")


def _at(tr: Trajectory, W: np.ndarray, a: np.ndarray, companion: Trajectory | None,
        method: str) -> Trajectory:
    """One saved time (the run's last) holding (W, a), with the run's options and steps (its
    nominal accuracy)."""
    return Trajectory(problem=tr.problem, t=tr.t[-1:].copy(), W=W[None].copy(),
                      a=a[None].copy(), method=method, options=dict(tr.options),
                      status=tr.status, error_estimate=tr.error_estimate, companion=companion,
                      n_steps=tr.n_steps, provenance=dict(tr.provenance))


def _polish_state(tr: Trajectory, k: int) -> StationaryPoint:
    return polish(tr.problem, tr.W[k], tr.a[k])


def polished_limit(tr: Trajectory) -> PolishedLimit:
    """The run's limit point (module docstring), memoised per run; a `PolishError` saying why
    there is none."""
    hit = _CACHE.get(id(tr))
    if hit is not None and hit[0] is tr:
        if isinstance(hit[1], PolishError):
            raise hit[1]
        return hit[1]
    try:
        out = _polished(tr)
    except PolishError as exc:
        out = exc
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[id(tr)] = (tr, out)
    if isinstance(out, PolishError):
        raise out
    return out


def _polished(tr: Trajectory) -> PolishedLimit:
    if tr.departure:
        raise PolishError(f"the run is not a gradient flow ({tr.departure})")
    if not tr.status.ok or not tr.finite:
        raise PolishError(f"the run did not finish cleanly ({tr.status.name} {tr.message})")
    comp = tr.companion
    if comp is None or len(comp.t) != len(tr.t):
        raise PolishError("the run has no companion, so its limit's error is unknown")
    if tr.filippov_mask is not None and np.any((tr.filippov_mask[-1] > 0)
                                               & (tr.filippov_mask[-1] < 1)):
        raise PolishError("the run ends with a pair held on its kink (a sliding mode): its "
                          "limit is not a stationary point of one pattern")
    end = len(tr.t) - 1
    k = int(np.searchsorted(tr.t, (1.0 - TAIL) * tr.t[end]))
    k = min(k, end)
    pattern = tr.activation[-1]
    changed = np.flatnonzero(np.any(tr.activation[k:] != pattern, axis=(-2, -1)))
    if changed.size:
        raise PolishError(f"the activation pattern still changes in the run's last quarter "
                          f"(at t = {tr.t[k + changed[-1]]:.4g}): the run has not settled in "
                          "the pattern of its limit")
    point = _polish_state(tr, end)
    comp_point = _polish_state(comp, end)
    tail_point = _polish_state(tr, k)
    method = "newton_polish"
    comp_tr = _at(comp, comp_point.W, comp_point.a, None, method)
    return PolishedLimit(
        run=tr, point=point, trajectory=_at(tr, point.W, point.a, comp_tr, method),
        tail=_at(tr, tail_point.W, tail_point.a, comp_tr, method), tail_time=float(tr.t[k]),
        end=_at(tr, tr.W[end], tr.a[end], _at(comp, comp.W[end], comp.a[end], None,
                                                tr.method), tr.method))


def contraction_rate(point: StationaryPoint, kappa: float) -> float:
    """Half the slowest rate at which the flow relaxes onto the limit: kappa times the
    smallest eigenvalue of the Hessian above its zero tolerance, halved (the rate is read at
    the polished point, not along the run's tail); 0 when there is none."""
    lam = point.eigenvalues
    positive = lam[lam > point.zero_tol]
    return 0.5 * kappa * float(positive.min()) if positive.size else 0.0


def polished_estimate(limit: PolishedLimit, quantity: str,
                      read: Callable[[Trajectory], float], end_error: float,
                      series: tuple = ()) -> Estimate:
    """``read`` (a one-time Trajectory -> the quantity's value) at the run's limit, with the
    smaller of two justified errors, each adding ``end_error``, the quantity's own error at
    the run's last saved time (its companion difference and floor, read on the whole run):

    - at the polished point: + ERROR_SAFETY x (its difference between the run's and the
      companion's polished points + its difference to the point polished from the start of
      the last quarter: Newton's point is further from the flow's limit the further the state
      it starts from) + the residual's share (the change over Newton's last step, in
      proportion to the distance polished);
    - at the run's end state: + ERROR_SAFETY x the motion still to come, its change over the
      last quarter times r/(1 - r), r = exp(-mu dt) with mu `contraction_rate` and dt the
      quarter's length.

    The first is the smaller for a quantity constant along the flat directions of the limit
    (the loss, the outputs), the second for one that moves along them (how the norm is shared
    among neurons), which Newton's step does not follow."""
    run = limit.run
    value = read(limit.trajectory)
    comp_value = read(limit.trajectory.companion)
    tail_value = read(limit.tail)
    end_value = read(limit.end)
    k = int(np.searchsorted(run.t, limit.tail_time))
    start_value = read(_at(run, run.W[k], run.a[k], None, run.method))
    point = limit.point
    residual = abs(value - end_value) * point.last_step / point.distance \
        if point.distance > 0 else 0.0
    at_point = end_error + ERROR_SAFETY * (abs(value - comp_value) + abs(value - tail_value)) \
        + residual
    mu = contraction_rate(point, run.problem.flow_factor)
    dt = float(run.t[-1] - limit.tail_time)
    r = math.exp(-mu * dt) if mu > 0 and dt > 0 else 1.0
    to_come = abs(end_value - start_value) * r / (1.0 - r) if r < 1.0 else math.inf
    at_end = end_error + ERROR_SAFETY * to_come
    if not (math.isfinite(value) and math.isfinite(at_point)):
        raise ValueError(f"{quantity}: not finite at the polished limit ({value}, {at_point})")
    if at_end < at_point:
        how = (f"{quantity} at the run's end t = {run.t[-1]:.4g} with the motion still to come "
               f"(its change over the last quarter x r/(1 - r), r = exp(-{mu:.3g} x {dt:.4g}) "
               f"= {r:.2g}); the limit point: {limit.describe()}")
        return Estimate(run, quantity, end_value, at_end, float(run.t[-1]), how=how,
                        series=series)
    return Estimate(run, quantity, value, at_point, float(run.t[-1]),
                    how=f"{quantity} at the run's limit point, {limit.describe()}; error: the "
                    f"end state's + {ERROR_SAFETY:g} x (companion + tail differences) = "
                    f"{at_point:.2g}", series=series)


def end_estimate(tr: Trajectory, quantity: str, read_series: Callable[[Trajectory], object],
                 why: str = "") -> Estimate:
    """``quantity`` read at the run's last saved time (``read_series``: run -> `Series`): its
    error ERROR_SAFETY x (its change over the last `TAIL` of the run + its companion
    difference there) + its floor there. A quantity still moving at the end of the run has
    a large error (the check is then INCONCLUSIVE); one that settled has the run's own
    numerical error."""
    s = read_series(tr)
    end = len(tr.t) - 1
    k = int(np.searchsorted(tr.t, (1.0 - TAIL) * tr.t[end]))
    drift = abs(float(s.values[end] - s.values[k]))
    if tr.companion is None or len(tr.companion.t) != len(tr.t):
        raise ValueError(f"{quantity}: the run has no companion, so its error is unknown")
    comp = abs(float(s.values[end] - read_series(tr.companion).values[end]))
    floor = float(s.roundoff[end])
    if not math.isfinite(floor):
        raise ValueError(f"{quantity}: its error floor at the run's end is not finite")
    error = ERROR_SAFETY * (drift + comp) + floor
    reason = f" (not polished: {why})" if why else ""
    return Estimate(tr, quantity, float(s.values[end]), error, float(tr.t[end]),
                    how=f"{quantity} at t = {tr.t[end]:.4g}{reason}; error {ERROR_SAFETY:g} x "
                    f"its change since t = {tr.t[k]:.4g} ({drift:.2g}) and its companion "
                    "difference, plus its floor", series=(tr.t, s.values))


def limit_estimate(tr: Trajectory, source: str, quantity: str | None = None) -> Estimate:
    """The limit t -> infinity of the trajectory quantity ``source`` on the run ``tr``, as an
    Estimate named ``quantity`` (default ``source``): at the polished limit point, or at the
    run's end where none can be polished (module docstring)."""
    quantity = quantity or source
    try:
        limit = polished_limit(tr)
    except PolishError as exc:
        return end_estimate(tr, quantity, lambda run: measure(run, source), why=str(exc))
    s = measure(tr, source)
    comp = abs(float(s.values[-1] - measure(tr.companion, source).values[-1]))
    end_error = ERROR_SAFETY * comp + float(s.roundoff[-1])
    return polished_estimate(limit, quantity, lambda one: float(measure(one, source).values[-1]),
                             end_error, series=(tr.t, s.values))


__all__ = ["TAIL", "PolishedLimit", "end_estimate", "limit_estimate", "polished_estimate",
           "polished_limit"]
