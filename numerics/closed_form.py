"""Closed-form trajectories where the theory gives one (tier 1 of the methods).

Setting (checked on the Problem, with a clear error when it fails): square
loss, orthogonal data, and every neuron either inactive on all samples (it then
never moves, relu'(0) = 0) or active exactly on a group G of samples, with

- the groups of different neurons equal or disjoint, all x_i in a group of one
  norm rho (x_i = rho xhat_i);
- w_j in span{x_i : i in G}, sign(a_j) = sign(y_i) on G, balanced |a_j| = ||w_j||;
- one neuron per group (any initial cosine: CF-7), or several neurons that are
  all aligned with s*y_G (cosine 1: CF-7 aligned case = CF-8's exact logistic law).

With q = 1/output_factor (p mean-field, 1 standard), kappa the flow factor,
Y = ||y_G||, Y' = Y/rho, capacity C = q Y' and tau = kappa rho Y t/(n q), a
group's total squared norm N = sum_j ||w_j||^2 and cosine c = cos(w, s y_G) are

- c(t) = tanh(tau + phi), phi = atanh c(0);
- 1/N = sech^2(tau + phi) [cosh^2(phi) (1/N(0) - c(0)/C) + tau/C] + tanh(tau + phi)/C;
- aligned (c = 1): N = C/(1 + (C/N(0) - 1) e^{-2 tau}), each neuron keeping its share;

and w_j(t) = sqrt(N_j) (c yhat + sech(tau + phi) e_perp) with yhat = s y_G/Y on
the group's basis and e_perp the unit part of w_j(0) orthogonal to yhat. These
are THEORY CF-7 with p -> q and the rho-rescaling; derivation in CF-7. The same
formulas are being written symbolically in theory/closed_forms.py; this module
evaluates them numerically (numpy, and mpmath for the error estimate).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from mpmath import mp

from numerics.coordinates import relative_difference
from numerics.flow import MethodError
from numerics.problem import Problem
from numerics.provenance import environment
from numerics.trajectory import Trajectory


class ClosedFormError(MethodError):
    """The Problem is outside the setting where the closed form is exact."""


class _MpOps:
    """The few functions the formulas use, elementwise on object arrays of mpf."""

    exp = staticmethod(np.frompyfunc(mp.exp, 1, 1))
    tanh = staticmethod(np.frompyfunc(mp.tanh, 1, 1))
    atanh = staticmethod(np.frompyfunc(mp.atanh, 1, 1))
    log1p = staticmethod(np.frompyfunc(mp.log1p, 1, 1))
    sqrt = staticmethod(np.frompyfunc(mp.sqrt, 1, 1))

    @staticmethod
    def log(x):
        return mp.log(x)

    @staticmethod
    def asarray(x):
        return np.vectorize(mp.mpf, otypes=[object])(np.asarray(x, dtype=float))


class _NpOps:
    exp, tanh, atanh, log1p, sqrt, log = np.exp, np.tanh, np.arctanh, np.log1p, np.sqrt, np.log

    @staticmethod
    def asarray(x):
        return np.asarray(x, dtype=float)


@dataclass(frozen=True)
class _Group:
    neurons: tuple[int, ...]
    samples: tuple[int, ...]
    rho: float
    Y: float
    sign: float
    yhat: np.ndarray  # unit vector in R^d
    e_perp: np.ndarray  # unit vector in R^d (zero when aligned)
    c0: float  # 1.0 when aligned
    N0: np.ndarray  # ||w_j(0)||^2 per neuron


@dataclass(frozen=True)
class ClosedForm:
    """Exact trajectory for group initialisations on orthogonal data (CF-7, CF-8).

    A Problem outside the setting (the module docstring) is refused with a
    `ClosedFormError` naming the condition that fails.

    Attributes
    ----------
    tol
        Relative tolerance of the setting checks (orthogonality, balance, support in the
        group's span, equal norms in a group, alignment), in (0, 1e-3) (default 1e-12).
    companion_digits
        The companion evaluates the same formulas in mpmath at this precision (>= 20;
        default 30); the error estimate is the float64 evaluation's relative difference
        from it. ``None`` skips it (error estimate inf).
    """

    tol: float = 1e-12
    companion_digits: int | None = 30

    name = "closed_form"

    def __post_init__(self) -> None:
        if not 0 < self.tol < 1e-3:
            raise MethodError(f"tol: must be in (0, 1e-3), got {self.tol!r}.")
        if self.companion_digits is not None and self.companion_digits < 20:
            raise MethodError(
                f"companion_digits: must be >= 20 (above float64), got {self.companion_digits}."
            )

    def options(self) -> dict:
        """The options as a dict (stored in ``Trajectory.options``)."""
        return {"tol": self.tol, "companion_digits": self.companion_digits}

    def run(self, problem: Problem, t_eval: np.ndarray) -> Trajectory:
        """Evaluate the closed form at ``t_eval`` (call it through `numerics.simulate`)."""
        start = time.perf_counter()
        groups = decompose(problem, self.tol)
        t_eval = np.asarray(t_eval, dtype=float)
        W, a = _evaluate(problem, groups, t_eval, _NpOps)
        companion, error = None, float("inf")
        if self.companion_digits is not None:
            with mp.workdps(self.companion_digits):
                Wm, am = _evaluate(problem, groups, t_eval, _MpOps)
                Wc, ac = Wm.astype(float), am.astype(float)
            companion = _trajectory(problem, t_eval, self, Wc, ac, None, float("inf"), 0.0)
            error = relative_difference(W, a, Wc, ac)
        return _trajectory(problem, t_eval, self, W, a, companion, error,
                           time.perf_counter() - start)


def _trajectory(problem, t, method, W, a, companion, error, wall) -> Trajectory:
    return Trajectory(problem=problem, t=t, W=W, a=a, method=method.name,
                      options=method.options(), error_estimate=error, companion=companion,
                      wall_time=wall, provenance=environment())


def decompose(problem: Problem, tol: float = 1e-12) -> list[_Group]:
    """The groups of the closed form, or ClosedFormError naming the failed condition."""
    if problem.loss != "square":
        raise ClosedFormError(
            f"loss: the closed forms are for the square loss, got {problem.loss}."
        )
    X, y, W0, a0 = problem.X, problem.y, problem.W0, problem.a0
    rho = np.linalg.norm(X, axis=1)
    gram = X @ X.T
    off = np.abs(gram - np.diag(np.diag(gram)))
    if np.any(off > tol * np.outer(rho, rho)):
        raise ClosedFormError("X: CF-7/CF-8 need orthogonal data (<x_i, x_k> = 0 for i != k).")
    Xhat = X / rho[:, None]
    active = (W0 @ X.T) > 0
    by_support: dict[tuple[int, ...], list[int]] = {}
    for j in range(problem.p):
        G = tuple(int(i) for i in np.flatnonzero(active[j]))
        if G:
            _check_neuron(j, G, W0[j], a0[j], y, Xhat, rho, tol)
            by_support.setdefault(G, []).append(j)
    seen: set[int] = set()
    groups = []
    for G, neurons in by_support.items():
        if seen & set(G):
            raise ClosedFormError(
                f"W0: neurons {neurons} share samples {sorted(seen & set(G))} with another "
                "group; groups must be equal or disjoint (I-000-group)."
            )
        seen |= set(G)
        groups.append(_make_group(G, neurons, W0, a0, y, Xhat, rho, tol))
    return groups


def _check_neuron(j, G, w, a, y, Xhat, rho, tol) -> None:
    norm = np.linalg.norm(w)
    if abs(a * a - norm * norm) > tol * norm * norm:
        raise ClosedFormError(
            f"a0: neuron {j} is not balanced (a^2 - ||w||^2 = {a * a - norm * norm:.3g}); "
            "the closed forms need |a_j| = ||w_j||."
        )
    if np.any(np.sign(a) * y[list(G)] <= 0):
        raise ClosedFormError(
            f"a0: sign of neuron {j} differs from the labels of its group {list(G)}."
        )
    basis = Xhat[list(G)]
    if np.linalg.norm(w - (basis @ w) @ basis) > tol * norm:
        raise ClosedFormError(
            f"W0: neuron {j} is not supported in the span of its group {list(G)}."
        )
    if np.ptp(rho[list(G)]) > tol * rho[G[0]]:
        raise ClosedFormError(f"X: the samples of group {list(G)} must share one norm.")


def _make_group(G, neurons, W0, a0, y, Xhat, rho, tol) -> _Group:
    s = float(np.sign(a0[neurons[0]]))
    yG = s * y[list(G)]
    Y = float(np.linalg.norm(yG))
    yhat = (yG / Y) @ Xhat[list(G)]
    U = W0[neurons] / np.linalg.norm(W0[neurons], axis=1, keepdims=True)
    cos = U @ yhat
    aligned = np.all(cos >= 1.0 - tol)
    if len(neurons) > 1 and not aligned:
        raise ClosedFormError(
            f"W0: neurons {list(neurons)} share group {list(G)} but are not all aligned with "
            "its labels; several neurons per group are exact only when aligned (CF-8)."
        )
    e_perp = np.zeros_like(yhat)
    c0 = 1.0
    if not aligned:
        c0 = float(cos[0])
        e_perp = U[0] - c0 * yhat
        e_perp /= np.linalg.norm(e_perp)
    return _Group(tuple(neurons), tuple(G), float(rho[G[0]]), Y, s, yhat, e_perp, c0,
                  np.sum(W0[neurons] ** 2, axis=1))


def _lncosh(x, ops):
    ax = np.abs(x)
    return ax + ops.log1p(ops.exp(-2 * ax)) - ops.log(2)


def _evaluate(problem: Problem, groups: list[_Group], t, ops):
    """(W, a) at times t: the frozen initial state with every group's closed form."""
    T = len(t)
    t = ops.asarray(t)
    W = np.repeat(ops.asarray(problem.W0)[None], T, axis=0)
    a = np.repeat(ops.asarray(problem.a0)[None], T, axis=0)
    q = 1 / ops.asarray(problem.output_factor)
    kappa, n = ops.asarray(problem.flow_factor), problem.n
    for g in groups:
        rho, Y = ops.asarray(g.rho), ops.asarray(g.Y)
        C = q * Y / rho  # capacity: CF-7 pY with the rho-rescaling
        tau = kappa * rho * Y * t / (n * q)
        N0 = ops.asarray(g.N0)
        if g.c0 == 1.0:  # CF-7 aligned / CF-8: logistic growth at rate 2 tau'
            u0 = sum(N0)
            u = C / (1 + (C / u0 - 1) * ops.exp(-2 * tau))
            c, sech = np.ones_like(u), np.zeros_like(u)
            N = u[:, None] * (N0 / u0)[None, :]
        else:  # CF-7, one neuron with initial cosine c0 < 1
            c0 = ops.asarray(g.c0)
            phi = ops.atanh(c0)
            x = tau + phi
            ratio2 = ops.exp(2 * (_lncosh(phi, ops) - _lncosh(x, ops)))  # cosh^2 phi/cosh^2 x
            sech = ops.exp(-_lncosh(x, ops))
            c = ops.tanh(x)
            inv = ratio2 * (1 / N0[0] - c0 / C) + sech * sech * tau / C + c / C
            N = (1 / inv)[:, None]
        direction = c[:, None] * ops.asarray(g.yhat)[None] + sech[:, None] * ops.asarray(
            g.e_perp
        )[None]
        root = ops.sqrt(N)
        for k, j in enumerate(g.neurons):
            W[:, j, :] = root[:, k, None] * direction
            a[:, j] = g.sign * root[:, k]
    return W, a


def logistic_half_time(u0: float, capacity: float, rate: float) -> float:
    """CF-8: time for u' = rate (1 - u/C) u to climb from u0 to C/2: ln((C - u0)/u0)/rate."""
    if not 0 < u0 < capacity:
        raise ValueError(f"u0: must be in (0, capacity={capacity}), got {u0}.")
    return float(np.log((capacity - u0) / u0) / rate)


def phase_law(problem: Problem, sign: int) -> tuple[float, float]:
    """CF-8 (capacity, rate) of the S002 phase of the samples with label sign ``sign``.

    Orthogonal data whose samples of that sign share one norm rho: capacity
    q ||y_+-||/rho and rate 2 kappa rho ||y_+-||/(n q) (n||D_+-|| and 2||D_+-|| for
    unit norms and the standard network; |y_k|/||x_k|| for a single sample).
    """
    idx = np.flatnonzero(np.sign(problem.y) == sign)
    if idx.size == 0:
        raise ValueError(f"sign: no sample has label sign {sign}.")
    rho = np.linalg.norm(problem.X[idx], axis=1)
    if np.ptp(rho) > 1e-12 * rho[0]:
        raise ValueError("X: CF-8's capacity needs equal norms within the sign class.")
    q = 1.0 / problem.output_factor
    Y = float(np.linalg.norm(problem.y[idx]))
    return q * Y / rho[0], 2 * problem.flow_factor * rho[0] * Y / (problem.n * q)
