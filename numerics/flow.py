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
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.integrate import DOP853

from numerics import network
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
    """

    rtol: float = 1e-10
    atol_fraction: float = 1e-6
    error_check: float | None = 10.0
    max_steps: int = 2_000_000
    chatter_limit: int = 200

    name = "exact_flow"

    def __post_init__(self) -> None:
        if not (0 < self.rtol < 1e-2):
            raise MethodError(f"rtol: must be in (0, 1e-2), got {self.rtol!r}.")
        if self.error_check is not None and not self.error_check > 1:
            raise MethodError(f"error_check: must be > 1 or None, got {self.error_check!r}.")
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
        }

    def run(self, problem: Problem, t_eval: np.ndarray) -> Trajectory:
        start = time.perf_counter()
        main = _integrate(problem, t_eval, self, self.rtol)
        companion = None
        error = float("inf")
        if self.error_check is not None:
            companion = _integrate(problem, t_eval, self, self.rtol * self.error_check)
            companion = _as_trajectory(problem, t_eval, self, companion, None, float("inf"), 0.0)
            error = _relative_difference(main["W"], main["a"], companion.W, companion.a)
        return _as_trajectory(
            problem, t_eval, self, main, companion, error, time.perf_counter() - start
        )


def _as_trajectory(problem, t_eval, method, run, companion, error, wall) -> Trajectory:
    return Trajectory(
        problem=problem,
        t=np.asarray(t_eval, dtype=float)[: len(run["a"])],
        W=run["W"],
        a=run["a"],
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


def _relative_difference(W1, a1, W2, a2) -> float:
    """max over saved times and neurons of |theta_j - theta'_j| / |theta_j|."""
    k = min(len(a1), len(a2))
    if k == 0:
        return float("inf")
    if len(a1) != len(a2):
        return float("inf")
    th1 = np.concatenate([W1[:k], a1[:k, :, None]], axis=-1)
    th2 = np.concatenate([W2[:k], a2[:k, :, None]], axis=-1)
    diff = np.linalg.norm(th1 - th2, axis=-1)
    scale = np.linalg.norm(th1, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(scale > 0, diff / scale, np.where(diff > 0, np.inf, 0.0))
    return float(np.max(rel)) if np.all(np.isfinite(rel)) else float("inf")


def _integrate(problem: Problem, t_eval: np.ndarray, opts: ExactFlow, rtol: float) -> dict:
    p, d = problem.p, problem.d
    X = problem.X
    t_eval = np.asarray(t_eval, dtype=float)
    n_w = p * d

    def unpack(y):
        return y[..., :n_w].reshape(y.shape[:-1] + (p, d)), y[..., n_w:]

    theta0 = np.concatenate([problem.W0.ravel(), problem.a0])
    neuron_scale = np.sqrt(np.sum(problem.W0**2, axis=1) + problem.a0**2)
    floor = np.maximum(neuron_scale * rtol * opts.atol_fraction, 1e-300)
    atol = np.concatenate([np.repeat(floor, d), floor])

    saved_W = np.empty((len(t_eval), p, d))
    saved_a = np.empty((len(t_eval), p))
    next_save = 0
    t0 = 0.0
    if t_eval[0] == 0.0:
        saved_W[0], saved_a[0] = problem.W0, problem.a0
        next_save = 1
    t_end = float(t_eval[-1])

    state = theta0.copy()
    mask = network.active_mask(network.preactivations(problem.W0, X))
    events: list[ActivationEvent] = []
    flips = np.zeros((p, problem.n), dtype=int)
    status, message, n_steps = Status.SUCCESS, "", 0

    def field(_t, y):
        W, a = unpack(y)
        dW, da = network.flow_field(problem, W, a, mask)
        return np.concatenate([dW.ravel(), da])

    while t0 < t_end and status is Status.SUCCESS:
        solver = DOP853(field, t0, state, t_end, rtol=rtol, atol=atol)
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
            Wn, _ = unpack(dense(nodes).T)
            signs = network.preactivations(Wn, X) > 0  # (nodes, p, n)
            mismatch = signs != (mask > 0)
            if not mismatch.any():
                next_save = _save(dense, t_eval, next_save, t_new, saved_W, saved_a, unpack)
                continue
            k = int(np.argmax(mismatch.reshape(len(nodes), -1).any(axis=1)))
            lo = t_old if k == 0 else nodes[k - 1]
            t_cross = _first_crossing(dense, unpack, X, mask, mismatch[k], lo, nodes[k])
            next_save = _save(dense, t_eval, next_save, t_cross, saved_W, saved_a, unpack)
            state = dense(t_cross)
            W_c, _ = unpack(state)
            new_mask = network.active_mask(network.preactivations(W_c, X))
            for j, i in zip(*np.nonzero(new_mask != mask), strict=True):
                events.append(ActivationEvent(float(t_cross), int(j), int(i),
                                              1 if new_mask[j, i] else -1))
                flips[j, i] += 1
            mask = new_mask
            t0 = t_cross
            if flips.max() > opts.chatter_limit:
                j, i = np.unravel_index(np.argmax(flips), flips.shape)
                status = Status.CHATTERING
                message = f"pair (neuron {j}, sample {i}) switched {flips[j, i]} times by t={t0:.6g}"
            restarted = True
            break
        if not restarted:
            break
    if status is Status.SUCCESS and next_save < len(t_eval):
        status, message = Status.NONFINITE, "integration stopped before the last saved time"
    return {
        "W": saved_W[:next_save],
        "a": saved_a[:next_save],
        "status": status,
        "message": message,
        "events": events,
        "n_steps": n_steps,
    }


def _save(dense, t_eval, next_save, t_upto, saved_W, saved_a, unpack) -> int:
    """Store the dense-output values at every saved time up to ``t_upto``."""
    stop = int(np.searchsorted(t_eval, t_upto, side="right"))
    if stop > next_save:
        W, a = unpack(dense(t_eval[next_save:stop]).T)
        saved_W[next_save:stop], saved_a[next_save:stop] = W, a
    return max(stop, next_save)


def _first_crossing(dense, unpack, X, mask, pairs, lo, hi) -> float:
    """Earliest time in (lo, hi] at which a pair in ``pairs`` has left ``mask``.

    Returns the far end of a bracket narrower than a few ulps, so that the state
    there is already on the new side of the switching surface.
    """
    idx = np.nonzero(pairs)
    side = mask[idx] > 0
    lo_t = np.full(idx[0].shape, lo)
    hi_t = np.full(idx[0].shape, hi)
    tol = _CROSSING_ULPS * np.spacing(max(abs(hi), 1.0))
    for _ in range(200):
        if np.all(hi_t - lo_t <= tol):
            break
        mid = 0.5 * (lo_t + hi_t)
        W, _ = unpack(dense(mid).T)  # (pairs, p, d)
        z = np.einsum("kd,kd->k", W[np.arange(len(mid)), idx[0]], X[idx[1]])
        left = (z > 0) != side
        hi_t = np.where(left, mid, hi_t)
        lo_t = np.where(left, lo_t, mid)
    return float(np.min(hi_t))
