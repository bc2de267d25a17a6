"""S002-F6's leaky-ReLU remark measured: does the flow from a small balanced initialisation
still end at a minimal-l2-norm interpolator when relu is replaced by a leaky ReLU?

On orthonormal data (S002-A1) the minimal ||theta||^2 over interpolating networks with
activation sigma is 2 M, M = min sum_j |c_j| over f = sum_j c_j sigma(<u_j, x>), ||u_j|| = 1
(a balanced neuron has a_j^2 + ||w_j||^2 = 2 |a_j| ||w_j||). With scaled labels
y~_k = y_k / ||x_k||, the function-space dual is max <lam, y~> subject to
sup_u sum_k lam_k sigma(u_k) <= 1 and sup_u -sum_k lam_k sigma(u_k) <= 1; for a leaky ReLU
of slope s these suprema are sqrt(sum_k (lam_k^+)^2 + s^2 (lam_k^-)^2) and the same with
lam_k^+ and lam_k^- exchanged (each coordinate takes the side that makes its term
positive; s = 0 is S002's ReLU program, `papers.s002.measures.min_f1_norm`). The dual is
solved by SLSQP; its value is a lower bound on M (weak duality), and the two neurons along
the dual's maximisers, fitted to y~ by least squares, give an upper bound (their cost,
plus sqrt(2) times their residual, which two more neurons fit). The flow's limit is read
at the end of a run whose loss has fallen below 1e-12 L(0).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import minimize

from numerics import Problem


def _sups(lam: np.ndarray, slope: float) -> tuple[float, float]:
    pos, neg = np.maximum(lam, 0.0), np.maximum(-lam, 0.0)
    return (float(np.sqrt(np.sum(pos**2) + slope**2 * np.sum(neg**2))),
            float(np.sqrt(np.sum(neg**2) + slope**2 * np.sum(pos**2))))


def min_norm_bracket(problem: Problem, slope: float) -> tuple[float, float]:
    """(lower, upper) bounds on min ||theta||^2 over interpolating leaky-ReLU networks of
    slope ``slope`` (0: ReLU) on orthonormal data (the module docstring)."""
    yt = problem.y / np.linalg.norm(problem.X, axis=1)
    cons = [{"type": "ineq", "fun": lambda lam, k=k: 1.0 - _sups(lam, slope)[k]}
            for k in (0, 1)]
    best = minimize(lambda lam: -float(lam @ yt), np.zeros_like(yt), method="SLSQP",
                    constraints=cons, options={"ftol": 1e-15, "maxiter": 1000})
    lam = best.x
    scale = max(_sups(lam, slope))
    lam = lam / max(scale, 1.0)  # feasible for sure
    lower = float(lam @ yt)
    pos, neg = np.maximum(lam, 0.0), np.maximum(-lam, 0.0)
    u_pos = pos - slope * neg  # the maximiser of sum_k lam_k sigma(u_k), unnormalised
    u_neg = neg - slope * pos

    def act(u):
        n = np.linalg.norm(u)
        u = u / n if n > 0 else u
        return np.where(u > 0, u, slope * u)

    basis = np.stack([act(u_pos), -act(u_neg)], axis=1)
    coef, *_ = np.linalg.lstsq(basis, yt, rcond=None)
    coef = np.maximum(coef, 0.0)
    residual = float(np.linalg.norm(basis @ coef - yt))
    upper = float(np.sum(coef)) + math.sqrt(2.0) * residual
    return 2.0 * lower, 2.0 * upper


def excess(tr, slope: float) -> dict:
    """The run's final ||theta||^2 against the bracket: relative excess over the upper
    bound (a lower bound on the true excess) and over the lower bound (an upper bound)."""
    lo, hi = min_norm_bracket(tr.problem, slope)
    final = float(np.sum(tr.W[-1] ** 2) + np.sum(tr.a[-1] ** 2))
    return {"norm_sq": final, "min_lower": lo, "min_upper": hi,
            "excess_at_least": final / hi - 1.0, "excess_at_most": final / lo - 1.0,
            "loss_ratio": float(tr.loss[-1] / tr.loss[0])}
