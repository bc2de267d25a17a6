"""Exact gradient flow: adaptive Runge-Kutta between activation changes.

Inside a region where the activation pattern A = 1{<w_j, x_i> > 0} is fixed,
the flow is a polynomial ODE and an 8th-order Runge-Kutta method (scipy's
DOP853) integrates it to the requested tolerance. The pattern is held fixed
inside each step (so the right-hand side the integrator sees is smooth); after
every accepted step the pre-activations are checked at the step's end and at
interior points of its dense output. At a sign change the earliest crossing is
located by bisection on the dense output, the state is taken just past it, the
pattern is switched and the integrator restarts there. With relu'(0) = 0 a
neuron whose pre-activations are all <= 0 has zero velocity, so it stays dead.

Error estimate: the same integration is repeated at a looser tolerance
(``rtol * error_check``) and the two runs are compared at every saved time.

Coordinates (``coordinates=``): ``"cartesian"`` integrates (W, a) directly;
``"lognorm"`` integrates each neuron's log-norm, direction and a_j/||w_j||
(numerics.coordinates.LogNorm) for initialisation scales far below 1e-20, and
stores ln||w_j(t)|| in ``Trajectory.log_norms``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.integrate import DOP853

from numerics import network
from numerics.coordinates import COORDINATES, resolve
from numerics.problem import Problem
from numerics.provenance import environment
from numerics.trajectory import ActivationEvent, Status, Trajectory

# Relative positions inside an accepted step where signs are also inspected, so
# that a pair crossing zero and back within one step is still seen.
_SIGN_CHECK_NODES = np.array([0.25, 0.5, 0.75, 1.0])
# Bisection stops when the bracket is this many ulps of the current time.
_CROSSING_ULPS = 8


class MethodError(ValueError):
    """Bad options for a simulation method; the message names the option."""


@dataclass(frozen=True)
class ExactFlow:
    """Gradient flow integrated exactly across activation changes.

    Options:
        rtol: relative tolerance of the Runge-Kutta error control.
        atol_fraction: absolute floor per neuron, as a fraction of rtol times the
            neuron's initial norm (keeps tiny initialisations relative).
        error_check: the companion run for the error estimate uses
            ``rtol * error_check``; ``None`` skips it (error estimate = inf).
        max_steps: cap on accepted steps (per run).
        chatter_limit: a single pair (i, j) switching more often than this marks
            the run CHATTERING (a sliding mode, not a regular solution).
        coordinates: ``"auto"`` (default: ``"span"`` when n < d, else
            ``"cartesian"``), ``"cartesian"``, ``"span"`` (W = W0 + C X, cost per
            step independent of d) or ``"lognorm"`` (per-neuron ln||w_j||,
            direction, a_j/||w_j||; for tiny initialisation scales).
    """

    rtol: float = 1e-10
    atol_fraction: float = 1e-6
    error_check: float | None = 10.0
    max_steps: int = 2_000_000
    chatter_limit: int = 200
    coordinates: str = "auto"

    name = "exact_flow"

    def __post_init__(self) -> None:
        if not (0 < self.rtol < 1e-2):
            raise MethodError(f"rtol: must be in (0, 1e-2), got {self.rtol!r}.")
        if self.error_check is not None and not self.error_check > 1:
            raise MethodError(f"error_check: must be > 1 or None, got {self.error_check!r}.")
        if self.coordinates not in (*COORDINATES, "auto"):
            raise MethodError(
                f"coordinates: {self.coordinates!r} is not one of "
                f"{('auto', *COORDINATES)}."
            )
        if self.rtol * (self.error_check or 1) >= 1e-2:
            raise MethodError(
                "error_check: rtol * error_check must stay below 1e-2; lower one of them."
            )

    def options(self) -> dict:
        return {
            "rtol": self.rtol,
            "atol_fraction": self.atol_fraction,
            "error_check": self.error_check,
            "max_steps": self.max_steps,
            "chatter_limit": self.chatter_limit,
            "coordinates": self.coordinates,
        }

    def run(self, problem: Problem, t_eval: np.ndarray) -> Trajectory:
        start = time.perf_counter()
        main = _integrate(problem, t_eval, self, self.rtol)
        companion = None
        error = float("inf")
        if self.error_check is not None:
            loose = _integrate(problem, t_eval, self, self.rtol * self.error_check)
            companion = _as_trajectory(problem, t_eval, self, loose, None, float("inf"), 0.0)
            k = len(main["y"])
            if k and k == len(loose["y"]):
                error = main["coords"].difference(main["y"], loose["y"])
        return _as_trajectory(
            problem, t_eval, self, main, companion, error, time.perf_counter() - start
        )


def _as_trajectory(problem, t_eval, method, run, companion, error, wall) -> Trajectory:
    out = run["coords"].outputs(run["y"])
    return Trajectory(
        problem=problem,
        t=np.asarray(t_eval, dtype=float)[: len(run["y"])],
        W=out["W"],
        a=out["a"],
        log_norms=out.get("log_norms"),
        method=method.name,
        options=method.options(),
        status=run["status"],
        message=run["message"],
        error_estimate=error,
        companion=companion,
        events=tuple(run["events"]),
        n_steps=run["n_steps"],
        wall_time=wall,
        provenance=environment(),
    )


def _integrate(problem: Problem, t_eval: np.ndarray, opts: ExactFlow, rtol: float) -> dict:
    p = problem.p
    X = problem.X
    t_eval = np.asarray(t_eval, dtype=float)
    coords = COORDINATES[resolve(opts.coordinates, problem)](problem, rtol, opts.atol_fraction)

    saved = np.empty((len(t_eval), coords.y0.size))
    next_save = 0
    t0 = 0.0
    if t_eval[0] == 0.0:
        saved[0] = coords.y0
        next_save = 1
    t_end = float(t_eval[-1])

    state = coords.y0.copy()
    mask = network.active_mask(network.preactivations(problem.W0, X))
    events: list[ActivationEvent] = []
    flips = np.zeros((p, problem.n), dtype=int)
    status, message, n_steps = Status.SUCCESS, "", 0

    def field(_t, y):
        return coords.field(y, mask)

    while t0 < t_end and status is Status.SUCCESS:
        solver = DOP853(field, t0, state, t_end, rtol=coords.rtol, atol=coords.atol)
        restarted = False
        while solver.status == "running":
            msg = solver.step()
            n_steps += 1
            if solver.status == "failed":
                status, message = Status.NONFINITE, f"DOP853 failed at t={solver.t:.6g}: {msg}"
                break
            if not np.all(np.isfinite(solver.y)):
                status, message = Status.NONFINITE, f"non-finite state at t={solver.t:.6g}"
                break
            if n_steps >= opts.max_steps:
                status, message = Status.MAX_STEPS, f"{n_steps} steps reached at t={solver.t:.6g}"
                break
            t_old, t_new = solver.t_old, solver.t
            dense = solver.dense_output()
            nodes = t_old + _SIGN_CHECK_NODES * (t_new - t_old)
            signs = coords.preactivations(dense(nodes).T) > 0  # (nodes, p, n)
            mismatch = signs != (mask > 0)
            if not mismatch.any():
                next_save = _save(dense, t_eval, next_save, t_new, saved)
                continue
            k = int(np.argmax(mismatch.reshape(len(nodes), -1).any(axis=1)))
            lo = t_old if k == 0 else nodes[k - 1]
            t_cross = _first_crossing(dense, coords.preactivations, mask, lo, nodes[k])
            next_save = _save(dense, t_eval, next_save, t_cross, saved)
            state = coords.restart(dense(t_cross))
            new_mask = network.active_mask(coords.preactivations(state))
            for j, i in zip(*np.nonzero(new_mask != mask), strict=True):
                events.append(ActivationEvent(float(t_cross), int(j), int(i),
                                              1 if new_mask[j, i] else -1))
                flips[j, i] += 1
            mask = new_mask
            t0 = t_cross
            if flips.max() > opts.chatter_limit:
                j, i = np.unravel_index(np.argmax(flips), flips.shape)
                status = Status.CHATTERING
                message = (f"pair (neuron {j}, sample {i}) switched {flips[j, i]} times "
                           f"by t={t0:.6g}")
            restarted = True
            break
        if not restarted:
            break
    if status is Status.SUCCESS and next_save < len(t_eval):
        status, message = Status.NONFINITE, "integration stopped before the last saved time"
    return {
        "coords": coords,
        "y": saved[:next_save],
        "status": status,
        "message": message,
        "events": events,
        "n_steps": n_steps,
    }


def _save(dense, t_eval, next_save, t_upto, saved) -> int:
    """Store the dense-output states at every saved time up to ``t_upto``."""
    stop = int(np.searchsorted(t_eval, t_upto, side="right"))
    if stop > next_save:
        saved[next_save:stop] = dense(t_eval[next_save:stop]).T
    return max(stop, next_save)


def _first_crossing(dense, preactivations, mask, lo, hi) -> float:
    """Earliest time in (lo, hi] at which some pre-activation has left ``mask``.

    Bisection on "some pair has switched" (any pair may switch first, not only
    those seen switched at ``hi``). Returns the far end of a bracket a few ulps
    wide, so that the state there is already on the new side of the switching
    surface. One evaluation of all pre-activations per halving, whatever the
    number of switching pairs.
    """
    active = mask > 0
    tol = _CROSSING_ULPS * np.spacing(max(abs(hi), 1.0))
    for _ in range(200):
        if hi - lo <= tol:
            break
        mid = 0.5 * (lo + hi)
        switched = np.any((preactivations(dense(mid)) > 0) != active)
        if switched:
            hi = mid
        else:
            lo = mid
    return float(hi)
