"""S000 (Dana, Bach, Pillaud-Vivien) quantities: the names its claims use, measured.

Merged into `verify.language.measures` as its pack's measures module (`theory.packs`; TRAJECTORY /
INSTANCE /
ENSEMBLE, same contracts). Names already measured there (Emin, Emax, MinFitRatio,
GradNormSq, Xmin, Xmax, MinAbsY, Cy_plus, MinInitBalance, GoodInit) are
reused, not redefined. Run scalars (MuInf, TransitionWidth, GDPLGap, DNeeded, ...)
are one number per run or per family: the functions at the end compute them for the
ScalingData the verification tests build.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from numerics import ExactFlow, Problem, Trajectory, simulate
from verify.engine.evidence_kinds import Estimate
from verify.language.measures import (
    ERROR_SAFETY,
    Series,
    UndefinedQuantity,
    measure,
    relative_floor,
)


# -- instance quantities -----------------------------------------------------------------------
def gamma_max(pr: Problem) -> float:
    """max_i sum_{k != i} |<x_i, x_k>| / ||x_i||^2 (CF-4's Gershgorin reading of A3)."""
    G = np.abs(pr.X @ pr.X.T)
    diag = np.diag(G).copy()
    np.fill_diagonal(G, 0.0)
    return float(np.max(G.sum(axis=1) / diag))


def gram_dev_op(pr: Problem) -> float:
    """||G^ - I||_op with G^ the Gram matrix of x_i / ||x_i||."""
    Xn = pr.X / np.linalg.norm(pr.X, axis=1, keepdims=True)
    G = Xn @ Xn.T - np.eye(pr.n)
    return float(np.max(np.abs(np.linalg.eigvalsh(G))))


def groups_of(pr: Problem) -> list[np.ndarray] | None:
    """The groups of an I-000-group initialisation, or None if it is not one.

    Every neuron is active (at t = 0) on a non-empty set of samples whose labels all
    have the sign of a_j; two neurons' sets are equal or disjoint; the sets cover [n].
    """
    active = (pr.W0 @ pr.X.T) > 0
    covered = np.zeros(pr.n, dtype=bool)
    sets: dict[tuple[int, ...], None] = {}
    for j in range(pr.p):
        G = np.flatnonzero(active[j])
        if G.size == 0 or np.any(np.sign(pr.a0[j]) * pr.y[G] <= 0):
            return None
        key = tuple(int(i) for i in G)
        if key not in sets and covered[G].any():
            return None
        covered[G] = True
        sets[key] = None
    if not covered.all():
        return None
    return [np.array(k) for k in sets]


def _group_init(pr: Problem) -> float:
    return float(groups_of(pr) is not None)


def _groups_or_raise(pr: Problem) -> list[np.ndarray]:
    groups = groups_of(pr)
    if groups is None:
        raise UndefinedQuantity("the initialisation is not a group initialisation (I-000-group)")
    return groups


INSTANCE = {
    "GammaMax": gamma_max,
    "GramDevOp": gram_dev_op,
    "GroupInit": _group_init,
    "MinGroupSize": lambda pr: float(min(g.size for g in _groups_or_raise(pr))),
    "MinGroupNormY": lambda pr: float(min(np.linalg.norm(pr.y[g]) for g in _groups_or_raise(pr))),
}


# -- ensemble quantities -------------------------------------------------------------------------
def good_init(pr: Problem) -> bool:
    """Q-good: every sample has a neuron of its label's sign active on it."""
    good = ((pr.W0 @ pr.X.T) > 0) & ((pr.a0[:, None] * pr.y[None, :]) > 0)
    return bool(np.all(good.any(axis=0)))


def _protocol_success(pr: Problem) -> bool:
    from papers.s000.other_activations import success  # runs gradient descent: on use only

    return success(pr)


ENSEMBLE = {"PGoodInit": good_init, "PSuccess": _protocol_success}


# -- trajectory quantities -----------------------------------------------------------------------
def standard_counterpart(pr: Problem) -> Problem:
    """The standard network started at theta(0)/sqrt(p) (D-MAP), same data and loss."""
    root = np.sqrt(pr.p)
    return Problem(X=pr.X, y=pr.y, W0=pr.W0 / root, a0=pr.a0 / root,
                   parametrization="standard", loss=pr.loss, loss_scale=pr.loss_scale,
                   meta={"generator": "standard_counterpart", "of": pr.content_hash})


@lru_cache(maxsize=16)
def _standard_run(pr: Problem, times: tuple, rtol: float) -> Trajectory:
    return simulate(standard_counterpart(pr), ExactFlow(rtol=rtol), t_eval=np.array(times))


def param_map_gap(tr: Trajectory, power: float = 0.5) -> Series:
    """max over neurons and coordinates of |theta(t) - p^power theta~(t)|.

    theta~ is the standard run from theta(0)/sqrt(p) (exact flow at the run's own rtol, or
    1e-10), saved at the same times; ``power`` = 1/2 is D-MAP (S000-P1), 0 the rebuttal's
    literal 'theta_t = theta~_t'. Floor: the run's and the counterpart's state errors (an
    envelope, times ERROR_SAFETY) on the size of theta.
    """
    pr = tr.problem
    if pr.parametrization != "mean_field":
        raise UndefinedQuantity("ParamMapGap compares a mean-field run with its standard map")
    rtol = float(tr.options.get("rtol", 1e-10))
    std = _standard_run(pr, tuple(float(v) for v in tr.t), rtol)
    scale = pr.p ** power
    gap = np.maximum(np.max(np.abs(tr.W - scale * std.W), axis=(-2, -1)),
                     np.max(np.abs(tr.a - scale * std.a), axis=-1))
    size = np.maximum(np.max(np.abs(tr.W), axis=(-2, -1)), np.max(np.abs(tr.a), axis=-1))
    env = np.maximum.accumulate(std.state_error)
    floor = (relative_floor(tr, 1.0) + ERROR_SAFETY * env) * size
    return Series(gap, floor)


def cross_group_jac(tr: Trajectory) -> Series:
    """max over neurons j and samples i outside j's initial group of |d h(x_i)/d theta_j|.

    d h(x_i)/d a_j = s relu(<w_j, x_i>), d h(x_i)/d w_j = s a_j 1{<w_j, x_i> > 0} x_i; on an
    exact group trajectory these are exact zeros (S000-F3).
    """
    pr = tr.problem
    groups = _groups_or_raise(pr)
    outside = np.ones((pr.p, pr.n), dtype=bool)
    active0 = (pr.W0 @ pr.X.T) > 0
    for G in groups:
        rows = np.all(active0[:, G], axis=1)
        outside[np.ix_(rows, G)] = False
    Z = tr.preactivations  # (T, p, n)
    s = pr.output_factor
    da = s * np.maximum(Z, 0.0)
    dw = s * np.abs(tr.a)[..., None] * (Z > 0) * np.linalg.norm(pr.X, axis=1)[None, None, :]
    jac = np.maximum(da, dw)
    values = np.max(np.where(outside[None], jac, 0.0), axis=(-2, -1))
    return Series(values, np.zeros_like(values))


TRAJECTORY = {
    "ParamMapGap": param_map_gap,
    "CrossGroupJac": cross_group_jac,
}


# -- run scalars ---------------------------------------------------------------------------------
# The asymptotic rate is read where the loss is small enough for the rate to have settled
# and large enough to be above float64's loss floor (THEORY N-5).
MU_INF_LEVELS = (1e-12, 1e-3)


def mu_inf(tr: Trajectory, levels: tuple[float, float] = MU_INF_LEVELS) -> float:
    """MuInf: the local PL at the last saved time with L/L(0) >= levels[0] (and <= levels[1]).

    NaN when the run never reaches levels[1] (it has not converged far enough).
    """
    ratio = tr.loss / tr.loss[0]
    ok = np.flatnonzero((ratio >= levels[0]) & (ratio <= levels[1]))
    if ok.size == 0:
        return float("nan")
    return float(tr.pl[ok[-1]])


def mu_inf_estimate(tr: Trajectory) -> Estimate:
    """MuInf with a measured error: ERROR_SAFETY x its drift between reading it at
    L/L(0) down to 1e-12 and down to 1e-10 (the part of the rate not yet settled), plus PL's
    round-off at the reading time. The series is PL(t) up to the last time read."""
    ratio = tr.loss / tr.loss[0]
    observed = mu_inf(tr)
    if not np.isfinite(observed):
        raise ValueError(f"MuInf: the run never reaches L/L(0) <= {MU_INF_LEVELS[1]:g}")
    earlier = mu_inf(tr, levels=(1e-10, MU_INF_LEVELS[1]))
    last = int(np.flatnonzero(ratio >= MU_INF_LEVELS[0])[-1])
    read = int(np.flatnonzero((ratio >= MU_INF_LEVELS[0]) & (ratio <= MU_INF_LEVELS[1]))[-1])
    error = ERROR_SAFETY * abs(observed - earlier) + float(measure(tr, "PL").roundoff[last])
    return Estimate(tr, "MuInf", observed, error, float(tr.t[read]),
                    how="PL at the last time with L/L(0) >= 1e-12; error from its drift "
                    "since L/L(0) = 1e-10", series=(tr.t[:last + 1], tr.pl[:last + 1]))


def asymptotic_window(tr: Trajectory, lo: float, hi: float) -> tuple[float, float]:
    """(first, last) saved time with lo <= L/L(0) <= hi."""
    ratio = tr.loss / tr.loss[0]
    ok = np.flatnonzero((ratio >= lo) & (ratio <= hi))
    if ok.size == 0:
        raise ValueError(f"the run never has L/L(0) in [{lo:g}, {hi:g}]")
    return float(tr.t[ok[0]]), float(tr.t[ok[-1]])


def transition_times(tr: Trajectory, neurons, capacity: float, qs) -> list[float]:
    """First times the squared norm of ``neurons`` reaches q * capacity (linear interpolation
    between saved times), for each q."""
    N = tr.group_norm_sq(neurons)
    out = []
    for q in qs:
        level = q * capacity
        k = int(np.argmax(N >= level))
        if N[k] < level:
            out.append(float("inf"))
        elif k == 0:
            out.append(float(tr.t[0]))
        else:
            t0, t1, n0, n1 = tr.t[k - 1], tr.t[k], N[k - 1], N[k]
            out.append(float(t0 + (level - n0) * (t1 - t0) / (n1 - n0)))
    return out


def transition_width(tr: Trajectory, neurons, capacity: float, eps: float = 0.1) -> float:
    """TransitionWidth: (t(1 - eps) - t(eps)) / t(1/2) of one group (S000-T2)."""
    lo, mid, hi = transition_times(tr, neurons, capacity, (eps, 0.5, 1 - eps))
    return (hi - lo) / mid


# -- the published protocol's rate estimators (THEORY E-000-4) ------------------------------------


def published_pl_bounds(energies: np.ndarray, n: int) -> tuple[float, float]:
    """The published code's local-PL bounds (2/n) min_i E_i and (16/n) max_i E_i.

    (The proved sandwich CF-3 is (2/n) min ||x_i||^2 E_i <= mu <= (4/n) max ||x_i||^2 E_i;
    these are the formulas behind the reference CSV's log_lower and log_upper.)
    """
    return float(2.0 / n * np.min(energies)), float(16.0 / n * np.max(energies))


def gd_pl_gap(gd: Trajectory, flow: Trajectory) -> float:
    """GDPLGap: max over common saved times of |PL(gradient descent) - PL(flow)|."""
    if len(gd.t) != len(flow.t) or not np.allclose(gd.t, flow.t, rtol=1e-9, atol=0):
        raise ValueError("the two runs must be saved at the same times")
    return float(np.nanmax(np.abs(gd.pl - flow.pl)))


def d_needed(n: int, gamma0: float, rng: np.random.Generator, reps: int = 40,
             norms=(1.0, 2.0)) -> float:
    """DNeeded: smallest d (on a geometric grid, then bisection on integers) at which
    GammaMax <= gamma0 holds in at least half of ``reps`` draws of G-000-iso data."""
    def frac(d: int) -> float:
        hits = 0
        for _ in range(reps):
            G = rng.standard_normal((n, d))
            X = G / np.linalg.norm(G, axis=1, keepdims=True) * rng.uniform(*norms, size=n)[:, None]
            A = np.abs(X @ X.T)
            diag = np.diag(A).copy()
            np.fill_diagonal(A, 0.0)
            hits += np.max(A.sum(axis=1) / diag) <= gamma0
        return hits / reps

    lo, hi = 1, 2
    while frac(hi) < 0.5:
        lo, hi = hi, 2 * hi
    while hi - lo > max(1, lo // 50):
        mid = (lo + hi) // 2
        if frac(mid) >= 0.5:
            hi = mid
        else:
            lo = mid
    return float(hi)


#: the limits a run reads (`verify.language.measures.LIMIT_QUANTITIES`: ``gfverify check --run``)
LIMITS = {"MuInf": mu_inf_estimate}
