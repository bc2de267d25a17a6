"""Stationary points of the loss in a fixed activation pattern, found by Newton's method.

A gradient flow of a piecewise-linear network on the square loss that converges ends inside
one activation pattern, where the loss is a polynomial in the parameters (degree 4): there the
flow's limit is a stationary point of that polynomial. `polish` finds the one nearest a
state (a run's end state) by Newton's method and says what it is:

- the point, and the residual: |grad L| there (the gradient the point still has, at the
  rounding of the formula when Newton has converged) and the size of the last Newton step
  (how far the point may still be from the exact stationary point);
- the Hessian's spectrum there, and the kind of point it makes within the pattern:
  ``"saddle"`` (an eigenvalue below -tol), ``"minimum"`` (none, and either the loss is 0 or
  the flat directions are only the ones every such point has: the rescaling
  (a_j, w_j) -> (a_j / c, c w_j) of each live neuron and every coordinate of a neuron no
  sample activates), or ``"degenerate"`` (no negative eigenvalue, but flat directions beyond
  those: the second-order test does not decide).

"Within the pattern": the point is stationary for the polynomial of its pattern. A point that
is a minimum there can be a saddle of the whole (non-smooth) loss, when a neuron moved into
another pattern would lower it (BF25's limit is one).

Newton's step is the least-norm solution of H step = -grad L (the pseudo-inverse, eigenvalues
below `PINV_RTOL` of the largest dropped): it has no component along the Hessian's kernel,
which contains the gradient of each balance a_j^2 - |w_j|^2 (the rescaling direction), so the
flow's conserved balances are kept to second order in the step. A step that changes the sign
of a pre-activation leaves the pattern: the stationary point of the pattern is not the flow's
limit there, and `polish` says so (`PolishError`).

Only the square loss is polished: the exponential, logistic and cross-entropy losses of
separable data have no stationary point at finite parameters (their flows diverge in norm).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from numerics.problem import Problem

FLOAT_EPS = float(np.finfo(np.float64).eps)
#: eigenvalues of the Hessian below this fraction of the largest are dropped by the step
PINV_RTOL = 1e-10
#: eigenvalues within this fraction of the largest (plus the residual's share) count as 0
ZERO_RTOL = 1e-8
MAX_ITERATIONS = 60


class PolishError(ValueError):
    """No stationary point of the state's pattern near it (another loss, a pattern that
    changes on the way, a state that is no run's end); the message says which."""


@dataclass(frozen=True)
class StationaryPoint:
    """A stationary point of the loss in one activation pattern (`polish`).

    Attributes
    ----------
    W, a
        The point: the first layer (p, d) and the output weights (p,).
    pattern
        sigma'(z_ij) of the pattern it is stationary in, shape (p, n).
    loss
        L at the point.
    gradient_norm
        |grad L| at the point (over the trained layers): the residual.
    start_gradient_norm
        |grad L| at the state it was polished from.
    distance
        |theta* - theta|: how far Newton moved the state.
    last_step
        The size of the last Newton step: how far the point may still be from the exact
        stationary point of the pattern.
    iterations
        Newton steps taken.
    eigenvalues
        The Hessian's eigenvalues at the point (over the trained layers), increasing.
    zero_tol
        Eigenvalues within this of 0 count as 0.
    symmetries
        The number of zero eigenvalues every point of this pattern has (rescalings of live
        neurons, coordinates of dead ones).
    kind
        ``"minimum"``, ``"saddle"`` or ``"degenerate"`` (module docstring), within the pattern.
    """

    W: np.ndarray
    a: np.ndarray
    pattern: np.ndarray
    loss: float
    gradient_norm: float
    start_gradient_norm: float
    distance: float
    last_step: float
    iterations: int
    eigenvalues: np.ndarray
    zero_tol: float
    symmetries: int
    kind: str

    @property
    def negative(self) -> int:
        """How many eigenvalues are below -zero_tol."""
        return int(np.sum(self.eigenvalues < -self.zero_tol))

    @property
    def flat(self) -> int:
        """How many eigenvalues are within zero_tol of 0."""
        return int(np.sum(np.abs(self.eigenvalues) <= self.zero_tol))

    def describe(self) -> str:
        """The point in words: its kind, residual and spectrum."""
        lam = self.eigenvalues
        positive = lam[lam > self.zero_tol]
        smallest = f"{positive.min():.3g}" if positive.size else "none"
        return (f"{self.kind} within its activation pattern: |grad L| {self.gradient_norm:.2g} "
                f"(from {self.start_gradient_norm:.2g}, {self.iterations} Newton steps, moved "
                f"{self.distance:.2g}, last step {self.last_step:.2g}); Hessian: "
                f"{self.negative} negative, {self.flat} zero ({self.symmetries} from the "
                f"symmetries), smallest positive {smallest}, largest {lam.max():.3g}")


def _kink_rounding(problem: Problem, W: np.ndarray) -> np.ndarray:
    """The rounding of z_ji = <w_j, x_i>, (p, n): a pair this close to 0 is on its kink (a
    neuron that died there keeps z_ji = 0 up to rounding, on either side)."""
    return 256 * FLOAT_EPS * np.outer(np.linalg.norm(W, axis=1),
                                      np.linalg.norm(problem.X, axis=1))


def pattern_of(problem: Problem, W: np.ndarray) -> np.ndarray:
    """sigma'(z_ij) of the state's pattern: z_ij above its rounding active, the rest
    inactive (relu'(0) = 0, a pair on its kink counting as on it)."""
    Z = W @ problem.X.T
    return problem.activation.derivative(Z, (Z > _kink_rounding(problem, W)).astype(float))


def _refuse(problem: Problem) -> None:
    if problem.loss != "square" or problem.vector_output:
        raise PolishError(f"the {problem.loss} loss has no stationary point at finite "
                          "parameters to polish to (only the square loss is polished)")
    if not problem.activation.piecewise_linear:
        raise PolishError(f"{problem.activation.spec}: the loss is a polynomial in a fixed "
                          "pattern only for a piecewise-linear activation")


def _pack(problem: Problem, W: np.ndarray, a: np.ndarray) -> np.ndarray:
    parts = []
    if problem.trains_first_layer:
        parts.append(W.ravel())
    if problem.trains_second_layer:
        parts.append(a.ravel())
    return np.concatenate(parts)


def _unpack(problem: Problem, theta: np.ndarray, W: np.ndarray, a: np.ndarray):
    k = 0
    if problem.trains_first_layer:
        W = theta[:W.size].reshape(W.shape)
        k = W.size
    if problem.trains_second_layer:
        a = theta[k:k + a.size].reshape(a.shape)
    return W, a


def derivatives(problem: Problem, W: np.ndarray, a: np.ndarray, S: np.ndarray):
    """(L, grad L, Hessian) in the pattern ``S`` (sigma'(z_ij), held fixed), over the trained
    layers in `_pack`'s order: h_i = s sum_j a_j S_ji <w_j, x_i>, L = c/(2n) sum (h_i - y_i)^2,
    so H = (c/n) J^T J + sum_i g_i d^2 h_i with g_i = c (h_i - y_i)/n and the second
    derivative of h_i non-zero only between a_j and w_j (s S_ji x_i)."""
    X, y = problem.X, problem.y
    n, d = X.shape
    p = W.shape[0]
    s, c = problem.output_factor, problem.loss_scale
    Z = W @ X.T  # (p, n)
    h = s * np.sum(a[:, None] * S * Z, axis=0)
    r = h - y
    L = 0.5 * c * float(np.mean(r**2))
    g = c * r / n  # dL/dh_i
    blocks = []
    if problem.trains_first_layer:  # dh_i/dw_j = s a_j S_ji x_i
        JW = s * (a[:, None] * S).T[:, :, None] * X[:, None, :]  # (n, p, d)
        blocks.append(JW.reshape(n, p * d))
    if problem.trains_second_layer:  # dh_i/da_j = s S_ji z_ji
        blocks.append(s * (S * Z).T)
    J = np.concatenate(blocks, axis=1)
    grad = J.T @ g
    H = (c / n) * (J.T @ J)
    if problem.trains_first_layer and problem.trains_second_layer:
        cross = s * (S * g[None, :]) @ X  # (p, d): d^2 L / (da_j dw_j)
        off = p * d
        for j in range(p):
            H[j * d:(j + 1) * d, off + j] += cross[j]
            H[off + j, j * d:(j + 1) * d] += cross[j]
    return L, grad, H


def _symmetries(problem: Problem, W: np.ndarray, a: np.ndarray, S: np.ndarray) -> int:
    """Zero eigenvalues every point of the pattern has: a neuron no sample activates (S = 0
    on its row, a ReLU) has a zero block; a live neuron has its rescaling (both layers)."""
    per = (problem.d if problem.trains_first_layer else 0) + (
        1 if problem.trains_second_layer else 0)
    dead = ~np.any(S != 0, axis=1)
    both = problem.trains_first_layer and problem.trains_second_layer
    live = ~dead & (np.linalg.norm(W, axis=1) > 0) & (a != 0)
    return int(per * np.sum(dead) + (np.sum(live) if both else 0))


def _same_pattern(problem: Problem, W: np.ndarray, start: np.ndarray) -> tuple[int, int] | None:
    """The first pair (j, i) whose side of its kink differs from ``start``'s by more than the
    rounding of z_ji (a neuron that died on its kink keeps z_ji = 0 up to rounding), or None."""
    Z = W @ problem.X.T
    bad = np.argwhere(((Z > 0) != start) & (np.abs(Z) > _kink_rounding(problem, W)))
    return None if bad.size == 0 else (int(bad[0][0]), int(bad[0][1]))


def _live_coordinates(problem: Problem, S: np.ndarray) -> np.ndarray:
    """Which packed coordinates belong to a neuron some sample moves (S != 0 on its row): a
    dead neuron's gradient and Hessian rows are 0, so Newton's step leaves it where it is."""
    live = np.any(S != 0, axis=1)
    parts = []
    if problem.trains_first_layer:
        parts.append(np.repeat(live, problem.d))
    if problem.trains_second_layer:
        parts.append(live)
    return np.concatenate(parts)


def polish(problem: Problem, W: np.ndarray, a: np.ndarray,
           max_iterations: int = MAX_ITERATIONS) -> StationaryPoint:
    """The stationary point of the loss in the pattern of (W, a) nearest it (module
    docstring); a `PolishError` when there is none to find from there."""
    _refuse(problem)
    W = np.asarray(W, dtype=float)
    a = np.asarray(a, dtype=float)
    if a.ndim != 1 or W.shape != (a.size, problem.d):
        raise PolishError(f"state: W must be (p, d) = ({problem.p}, {problem.d}) and a (p,), "
                          f"got {W.shape} and {a.shape}")
    if not (np.all(np.isfinite(W)) and np.all(np.isfinite(a))):
        raise PolishError("state: W and a must be finite")
    start_active = (W @ problem.X.T) > 0
    S = pattern_of(problem, W)
    theta0 = _pack(problem, W, a)
    theta = theta0.copy()
    live = _live_coordinates(problem, S)
    L, grad, H = derivatives(problem, W, a, S)
    start_norm = best_norm = float(np.linalg.norm(grad))
    best = (theta.copy(), L, grad, H)
    last_step, iterations = 0.0, 0
    for _ in range(max_iterations):
        lam, vec = np.linalg.eigh(H)
        top = float(np.max(np.abs(lam))) if lam.size else 0.0
        if top == 0.0:
            break
        keep = np.abs(lam) > PINV_RTOL * top
        step = -vec[:, keep] @ ((vec[:, keep].T @ grad) / lam[keep])
        step = np.where(live, step, 0.0)
        size = float(np.linalg.norm(step))
        if size <= 16 * FLOAT_EPS * max(float(np.linalg.norm(theta)), 1e-300):
            last_step = size
            break
        for _half in range(30):  # the full step, or halved until the gradient shrinks
            trial = theta + step
            Wt, at = _unpack(problem, trial, W, a)
            Lt, gt, Ht = derivatives(problem, Wt, at, S)
            if np.linalg.norm(gt) < best_norm:
                break
            step = step / 2
        else:
            break
        flipped = _same_pattern(problem, Wt, start_active)
        if flipped is not None:
            j, i = flipped
            raise PolishError(f"the stationary point of the end state's pattern lies outside "
                              f"it: Newton's step turns sample {i} on neuron {j} to the other "
                              "side of its kink")
        theta, L, grad, H = trial, Lt, gt, Ht
        iterations += 1
        last_step = float(np.linalg.norm(step))
        best_norm = float(np.linalg.norm(grad))
        best = (theta.copy(), L, grad, H)
    theta, L, grad, H = best
    Wf, af = _unpack(problem, theta, W, a)
    lam = np.linalg.eigvalsh(H)
    top = float(np.max(np.abs(lam))) if lam.size else 0.0
    zero_tol = ZERO_RTOL * top + math.sqrt(top) * best_norm
    symmetries = _symmetries(problem, Wf, af, S)
    negative = int(np.sum(lam < -zero_tol))
    flat = int(np.sum(np.abs(lam) <= zero_tol))
    at_zero_loss = L <= 256 * FLOAT_EPS * problem.loss_scale * float(np.mean(problem.y**2))
    if negative:
        kind = "saddle"
    elif at_zero_loss or flat <= symmetries:
        kind = "minimum"
    else:
        kind = "degenerate"
    return StationaryPoint(W=Wf, a=af, pattern=S, loss=float(L), gradient_norm=best_norm,
                           start_gradient_norm=start_norm,
                           distance=float(np.linalg.norm(theta - theta0)),
                           last_step=last_step, iterations=iterations, eigenvalues=lam,
                           zero_tol=float(zero_tol), symmetries=symmetries, kind=kind)


__all__ = ["PolishError", "StationaryPoint", "derivatives", "pattern_of", "polish"]
