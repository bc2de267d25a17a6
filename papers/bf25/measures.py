"""BF25 quantities: vocabulary name -> number (merged into `verify.language.measures` as a pack's
measures module; TRAJECTORY, INSTANCE and ENSEMBLE tables with the contracts there).

Instance quantities come from the data through `papers.bf25.cones` (the activation cones,
exact in d = 2) and from the initialisation through `papers.bf25.data` (Eq. (5)'s ratio and
the effective scale). Trajectory quantities are read off the saved states; the neuron sets
of the paper's section 4.1.1 (I: positive neurons active on some sample at t = 0; N: the
negative neurons; the rest: positive neurons inactive on every sample) are fixed at t = 0.
Each `Series` carries its formula's rounding and the state's relative error
(`relative_floor`, `output_error`); the check adds the difference to the companion run.

Limits (Theorem 2, Lemma 7) are read by `limit_estimate` (`verify.engine.limit_point`): the
quantity at the run's end state polished to the stationary point of its activation pattern,
as a `verify.engine.evidence.Estimate` whose error counts the companion's and the last quarter's
polish.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from numerics import Problem, Trajectory
from papers.bf25 import cones, data
from verify.engine import limit_point
from verify.engine.evidence_kinds import Estimate
from verify.language.measures import (
    ROUNDING,
    Detailed,
    Series,
    UndefinedQuantity,
    output_error,
    output_rounding,
    relative_floor,
    relative_series,
    rounding_of,
)


def _cone(fn):
    """An instance quantity of `cones`: ConeError (d != 2, another loss) -> undefined."""

    @functools.wraps(fn)
    def wrapped(problem: Problem) -> float:
        try:
            return float(fn(problem))
        except cones.ConeError as exc:
            raise UndefinedQuantity(f"{fn.__name__}: {exc}") from None

    return wrapped


def _lam(fn):
    @functools.wraps(fn)
    def wrapped(problem: Problem) -> float:
        if problem.init_scale is None:
            raise UndefinedQuantity(f"{fn.__name__} (the Problem records no init_scale)")
        return float(fn(problem))

    return wrapped


def eq4_holds(problem: Problem) -> float:
    """1 if |a_j(0)| >= |w_j(0)| for every j (Eq. (4)), to the rounding of the numbers and
    the norms (`rounding_of`: a float32 record's to float32's); else 0, with the neuron
    that breaks it furthest."""
    norms = np.linalg.norm(problem.W0, axis=1)
    size = np.abs(problem.a0) + norms
    gap = np.abs(problem.a0) - norms
    floor = rounding_of(problem)
    bad = gap < -floor * size
    if not bad.any():
        return Detailed(1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        j = int(np.argmin(np.where(size > 0, gap / size, 0.0)))
    return Detailed(0.0, f"{int(bad.sum())} of {len(gap)} neurons have |a_j| < |w_j|; "
                         f"neuron {j}: |a_j| = {abs(problem.a0[j]):.6g}, |w_j| = "
                         f"{norms[j]:.6g} ({-gap[j] / size[j]:.2g} of |a_j| + |w_j|, above "
                         f"the rounding {floor:.2g})")


def d_star_active_min(problem: Problem) -> float:
    """min_k cos(D*, x_k): > 0 when D* = (1/n) sum y_k x_k activates every sample (then the
    all-active pattern's D_u is D* and lies in its own cone: an extremal vector)."""
    D = cones.d_star(problem)
    X = problem.X
    return float(np.min(X @ D / (np.linalg.norm(X, axis=1) * np.linalg.norm(D))))


def cond1_cos(problem: Problem) -> float:
    """min_j <D(w_j(0), 0), w_j(0)/a_j(0)>/|D(w_j(0), 0)| over the neurons whose D(w_j(0), 0)
    = (c/n) sum_{<w_j(0), x_k> > 0} y_k x_k is not 0 (ReLU; Condition 1 (1) for every
    neuron iff > -sqrt(1 - alpha0^2)); 1 when no neuron counts."""
    if problem.loss != "square":
        raise UndefinedQuantity("Cond1Cos (the square loss only)")
    active = (problem.W0 @ problem.X.T > 0).astype(float)  # (p, n)
    D = active @ ((problem.loss_scale / problem.n) * problem.y[:, None] * problem.X)
    norm = np.linalg.norm(D, axis=1)
    keep = norm > 0
    if not keep.any():
        return 1.0
    dots = np.sum(D * problem.W0, axis=1) / problem.a0
    return float(np.min(dots[keep] / norm[keep]))


def ols_point_gradient(problem: Problem) -> float:
    """|grad L| at the OLS bundle point relative to the size of its terms, 0 below their
    rounding (derived, catalogue BF25-F2a): one balanced neuron
    w = beta*/|beta*|^(1/2), a = |beta*|^(1/2) (so that a w = beta*), every other neuron 0,
    in the strict pattern (relu'(0) = 0): 0 when beta* activates every sample, as the
    point's h(x_k) = <beta*, x_k> then fits the least squares and the zero neurons have no
    gradient. Undefined where beta* misses a sample (the point is then no bundle of the
    data's cone)."""
    if problem.loss != "square" or problem.vector_output:
        raise UndefinedQuantity("OLSPointGrad (the square loss only)")
    beta = cones.beta_star(problem)
    if not np.all(problem.X @ beta > 0):
        raise UndefinedQuantity("OLSPointGrad (beta* does not activate every sample)")
    from numerics import network

    size = float(np.linalg.norm(beta))
    W = np.zeros((problem.p, problem.d))
    a = np.zeros(problem.p)
    W[0], a[0] = beta / math.sqrt(size), math.sqrt(size)
    gW, ga = network.gradient(problem, W, a)
    grad = float(math.sqrt(np.sum(gW**2) + np.sum(ga**2)))
    # the size of the summed terms (c/n) sum_i |h_i - y_i| |x_i| (|a| + |w|): the gradient is
    # known to its rounding relative to it, and counts as 0 below that
    residual = np.abs(problem.X @ beta - problem.y)
    terms = problem.loss_scale / problem.n * float(
        residual @ np.linalg.norm(problem.X, axis=1)) * 2 * math.sqrt(size)
    rel = grad / terms if terms > 0 else 0.0
    if rel <= rounding_of(problem):
        return Detailed(0.0, f"|grad L| = {grad:.2g}, {rel:.2g} of its terms' size {terms:.3g}")
    return Detailed(rel, f"|grad L| = {grad:.3g}, {rel:.3g} of its terms' size {terms:.3g}")


INSTANCE = {
    "Dmax": _cone(cones.d_max),
    "DMin": _cone(cones.d_min),
    "AlphaMin": _cone(lambda pr: min(cones.alpha_min(pr))),
    "Delta0": _cone(lambda pr: min(cones.delta_0(pr))),
    "LamStarBase": _cone(cones.lam_star_base),
    "L2Margin": _cone(cones.lemma2_margin),
    "NumExtremal": _cone(lambda pr: sum(cones.num_extremal(pr))),
    "DStarActiveMin": _cone(d_star_active_min),
    "LossLS": _cone(cones.loss_ls),
    "A3Eta": _cone(cones.a3_eta),
    "A4Holds": _cone(lambda pr: float(cones.a4_holds(pr))),
    "A5Margin": _cone(cones.a5_margin),
    "A6Margin": _cone(cones.a6_margin),
    "NumDescentPlus": _cone(lambda pr: cones.descent_counts(pr)[0]),
    "NumDescentMinus": _cone(lambda pr: cones.descent_counts(pr)[1]),
    "TwoNeuronFit": _cone(lambda pr: float(cones.two_neuron_fit(pr))),
    "DeadConeFrac": _cone(cones.dead_cone_fraction),
    "Eq4Holds": eq4_holds,
    "Eq5Ratio": _lam(data.eq5_ratio),
    "LamEff": _lam(data.effective_lambda),
    "Cond1Cos": cond1_cos,
    "OLSPointGrad": _cone(ols_point_gradient),
    "DStarNorm": _cone(lambda pr: float(np.linalg.norm(cones.d_star(pr)))),
}


def live_positive(problem: Problem) -> np.ndarray:
    """I (BF25 section 4.1.1): a_j(0) > 0 and some <w_j(0), x_k> > 0."""
    return (problem.a0 > 0) & np.any(problem.W0 @ problem.X.T > 0, axis=1)


ENSEMBLE = {
    "PNoLivePlus": lambda pr: not live_positive(pr).any(),
}


# -- trajectory quantities ---------------------------------------------------------------------
def _empty(tr: Trajectory) -> Series:
    z = np.zeros(len(tr.t))
    return Series(z, z.copy(), z.copy())


def _ratio(tr: Trajectory) -> np.ndarray:
    return np.abs(tr.a) / np.abs(tr.problem.a0)


def _a_growth(tr: Trajectory, reduce) -> Series:
    if np.any(tr.problem.a0 == 0):
        raise UndefinedQuantity("the a_j(0)-ratios (an output weight starts at 0)")
    return relative_series(tr, reduce(_ratio(tr), axis=-1), 1.0)


def _norm_over_out(tr: Trajectory) -> Series:
    with np.errstate(divide="ignore", invalid="ignore"):
        vals = np.max(tr.neuron_norms / np.abs(tr.a), axis=-1)
    return relative_series(tr, vals, 2.0)


def _signed_ratio_over(tr: Trajectory, idx: np.ndarray, reduce) -> Series:
    if idx.size == 0:
        return _empty(tr)
    vals = reduce(tr.a[:, idx] / tr.problem.a0[idx], axis=-1)
    return relative_series(tr, vals, 1.0)


def _pos_growth(tr: Trajectory, reduce) -> Series:
    idx = np.flatnonzero(live_positive(tr.problem))
    if idx.size == 0:
        raise UndefinedQuantity("PosGrowthMin/Max (I is empty: no positive neuron is active "
                                "on a sample at t = 0)")
    return _signed_ratio_over(tr, idx, reduce)


def _neg_growth_max(tr: Trajectory) -> Series:
    """max over the negative neurons active on some sample at t = 0 of |a_j(t)|/|a_j(0)|
    (0 when there is none): the others are frozen (BF25-F1f), their ratio exactly 1."""
    pr = tr.problem
    idx = np.flatnonzero((pr.a0 < 0) & np.any(pr.W0 @ pr.X.T > 0, axis=1))
    return _signed_ratio_over(tr, idx, np.max)


def _theta(tr: Trajectory) -> np.ndarray:
    return np.concatenate([tr.W, tr.a[..., None]], axis=-1)  # (T, p, d + 1)


def _drift_floor(tr: Trajectory, theta: np.ndarray, idx) -> np.ndarray:
    size = np.linalg.norm(theta[:, idx], axis=-1).max(axis=-1) if np.size(idx) else 0.0
    return relative_floor(tr, 1.0) * 2 * size


def _frozen_drift(tr: Trajectory) -> Series:
    """max over the positive neurons inactive on every sample at t = 0 of
    |theta_j(t) - theta_j(0)| (BF25 Lemma 4(3)); 0 when there is none."""
    pr = tr.problem
    idx = np.flatnonzero((pr.a0 > 0) & ~np.any(pr.W0 @ pr.X.T > 0, axis=1))
    if idx.size == 0:
        return _empty(tr)
    th = _theta(tr)
    vals = np.max(np.linalg.norm(th[:, idx] - th[0, idx], axis=-1), axis=-1)
    floor = _drift_floor(tr, th, idx)
    return Series(vals, floor, ROUNDING * np.max(np.linalg.norm(th[:, idx], axis=-1), axis=-1))


def _dead_drift(tr: Trajectory) -> Series:
    """max over the neurons dead at some saved time s <= t (no sample active, none held on
    its surface) of |theta_j(t) - theta_j(s_j)|, s_j the first such time (BF25 p. 8: a
    neuron deactivated on every sample never moves again)."""
    dead = ~np.any(tr.activation | tr.sliding, axis=-1)  # (T, p)
    T, p = dead.shape
    first = np.where(dead.any(axis=0), np.argmax(dead, axis=0), T)
    th = _theta(tr)
    vals = np.zeros(T)
    size = np.zeros(T)
    for j in np.flatnonzero(first < T):
        s = first[j]
        d = np.linalg.norm(th[s:, j] - th[s, j], axis=-1)
        vals[s:] = np.maximum(vals[s:], d)
        size[s:] = np.maximum(size[s:], np.linalg.norm(th[s:, j], axis=-1))
    floor = relative_floor(tr, 1.0) * 2 * size
    return Series(vals, floor, ROUNDING * size)


def _norm_log_growth(tr: Trajectory) -> Series:
    """max_j ln(N_j(t)/N_j(0)), N_j = max(|a_j|, |w_j|): its error is the state's relative
    error (the log of a ratio of norms)."""
    N = np.maximum(np.abs(tr.a), tr.neuron_norms)
    N0 = np.maximum(np.abs(tr.problem.a0), np.linalg.norm(tr.problem.W0, axis=1))
    vals = np.max(np.log(N / N0), axis=-1)
    floor = relative_floor(tr, 1.0) + ROUNDING * (1.0 + np.abs(vals))
    return Series(vals, floor, ROUNDING * (1.0 + np.abs(vals)))


def _ols_gap(tr: Trajectory) -> Series:
    """max_k |h(x_k) - <beta*, x_k>| (Theorem 2's limit predictions)."""
    target = tr.problem.X @ cones.beta_star(tr.problem)
    vals = np.max(np.abs(tr.outputs - target), axis=-1)
    return Series(vals, output_error(tr, False) + ROUNDING * np.max(np.abs(target)),
                  output_rounding(tr, False) + ROUNDING * np.max(np.abs(target)))


def _bundle_gap(tr: Trajectory) -> Series:
    """|sum_{j active on every sample} a_j w_j - beta*| (Lemma 7(3)); a pair held on its
    surface counts as active (<w_j, x_k> >= 0 in the lemma)."""
    on_all = np.all(tr.activation | tr.sliding, axis=-1)  # (T, p)
    v = np.einsum("tj,tj,tjd->td", on_all, tr.a, tr.W)
    beta = cones.beta_star(tr.problem)
    vals = np.linalg.norm(v - beta, axis=-1)
    size = np.sum(on_all * np.abs(tr.a) * tr.neuron_norms, axis=-1) + np.linalg.norm(beta)
    return Series(vals, relative_floor(tr, 2.0) * size + ROUNDING * size, ROUNDING * size)


def _mixed_size(tr: Trajectory) -> Series:
    """max_j min(max_k <w_j, x_k>_+/|x_k|, max_k <w_j, x_k>_-/|x_k|): 0 when every neuron is
    active on every sample or on none (Lemma 7(2)), else how far the most mixed one is."""
    xn = np.linalg.norm(tr.problem.X, axis=1)
    Z = tr.preactivations / xn  # (T, p, n)
    mixed = np.minimum(np.max(np.maximum(Z, 0.0), axis=-1), np.max(np.maximum(-Z, 0.0), axis=-1))
    vals = np.max(mixed, axis=-1)
    size = np.max(tr.neuron_norms, axis=-1)
    return Series(vals, relative_floor(tr, 1.0) * size, ROUNDING * size)


def _d_star_defect(tr: Trajectory) -> Series:
    """max over I of |D*| - <D*, w_j(t)/a_j(t)> (BF25 Lemma 4 (1)); its error: the state's
    relative error times |D*| (the ratio w_j/a_j is of degree 0, its direction moves by
    twice the relative error)."""
    idx = np.flatnonzero(live_positive(tr.problem))
    if idx.size == 0:
        raise UndefinedQuantity("DStarDefect (I is empty)")
    try:
        D = cones.d_star(tr.problem)
    except cones.ConeError as exc:
        raise UndefinedQuantity(f"DStarDefect: {exc}") from None
    nD = float(np.linalg.norm(D))
    vals = nD - np.min(tr.W[:, idx] @ D / tr.a[:, idx], axis=-1)
    return Series(vals, 2.0 * relative_floor(tr, 1.0) * nD + ROUNDING * nD,
                  np.full(len(tr.t), ROUNDING * nD))


def _unit_circle(theta: np.ndarray) -> np.ndarray:
    return np.stack([np.cos(theta), np.sin(theta)], axis=-1)


def _relu_gap(tr: Trajectory) -> Series:
    """max over unit x in R^d (d = 2: exactly) of |h(x) - <beta*, x>_+| (BF25 Theorem 4's
    limit function). On the circle the difference is linear on each arc between the kink
    directions (orthogonal to a w_j or to beta*), so its largest size is at an arc's end or
    at the direction +-g of its linear part g: every such candidate is a point of the
    circle, so the largest |difference| over them is the maximum. Its error: each neuron's
    relative error times s |a_j| |w_j| twice, and rounding."""
    pr = tr.problem
    if pr.d != 2 or pr.vector_output:
        raise UndefinedQuantity("ReluGap (d = 2, a scalar output)")
    beta = cones.beta_star(pr)
    s = pr.output_factor
    vals = np.zeros(len(tr.t))
    for start in range(0, len(tr.t), 256):
        W, a = tr.W[start:start + 256], tr.a[start:start + 256]  # (T, p, 2), (T, p)
        normals = np.concatenate([W, np.broadcast_to(beta, (len(W), 1, 2))], axis=1)
        ang = np.arctan2(normals[..., 1], normals[..., 0])
        cuts = np.sort(np.mod(np.concatenate([ang + np.pi / 2, ang - np.pi / 2], axis=1),
                              2 * np.pi), axis=1)
        nxt = np.concatenate([cuts[:, 1:], cuts[:, :1] + 2 * np.pi], axis=1)
        mids = 0.5 * (cuts + nxt)

        m = _unit_circle(mids)
        act = np.einsum("tjd,tkd->tkj", W, m) > 0
        g = s * np.einsum("tkj,tj,tjd->tkd", act, a, W) - (m @ beta > 0)[..., None] * beta
        norm = np.linalg.norm(g, axis=-1, keepdims=True)
        gdir = np.where(norm > 0, g / np.where(norm > 0, norm, 1.0), m)
        u = np.concatenate([_unit_circle(cuts), gdir, -gdir], axis=1)
        z = np.einsum("tjd,tkd->tkj", W, u)  # h(u) - <beta*, u>_+ at the candidates u
        gap = s * np.sum(a[:, None, :] * np.maximum(z, 0.0), axis=-1) - np.maximum(u @ beta, 0.0)
        vals[start:start + len(W)] = np.max(np.abs(gap), axis=-1)
    size = s * np.sum(np.abs(tr.a) * tr.neuron_norms, axis=-1) + np.linalg.norm(beta)
    return Series(vals, 2.0 * relative_floor(tr, 1.0) * size + ROUNDING * size,
                  ROUNDING * size)


def _direction_spread(tr: Trajectory) -> Series:
    """sigma_2/sigma_1 of the p x d matrix whose rows are (|a_j| |w_j|)^(1/2) w_j/|w_j|:
    0 exactly when every neuron that carries weight lies along one line (a one-neuron
    network, BF25 section 6), each neuron weighing what it adds to the output. A relative
    error rho of the state moves each row by about 2 rho of its size: the ratio by at most
    4 rho, plus rounding."""
    norms = tr.neuron_norms
    weight = np.sqrt(np.abs(tr.a) * norms)
    with np.errstate(divide="ignore", invalid="ignore"):
        rows = np.where(norms[..., None] > 0, tr.W / norms[..., None], 0.0) * weight[..., None]
    sv = np.linalg.svd(rows, compute_uv=False)  # (T, min(p, d))
    vals = np.where(sv[:, 0] > 0, sv[:, 1] / sv[:, 0], 0.0)
    return Series(vals, 4.0 * relative_floor(tr, 1.0) + ROUNDING, np.full(len(tr.t),
                                                                            ROUNDING))


TRAJECTORY = {
    "AGrowthMax": lambda tr: _a_growth(tr, np.max),
    "AGrowthMin": lambda tr: _a_growth(tr, np.min),
    "NormOverOut": _norm_over_out,
    "PosGrowthMin": lambda tr: _pos_growth(tr, np.min),
    "PosGrowthMax": lambda tr: _pos_growth(tr, np.max),
    "NegGrowthMax": _neg_growth_max,
    "FrozenDrift": _frozen_drift,
    "DeadDrift": _dead_drift,
    "NormLogGrowth": _norm_log_growth,
    "OLSGap": _ols_gap,
    "BundleGap": _bundle_gap,
    "MixedSize": _mixed_size,
    "DStarDefect": _d_star_defect,
    "ReluGap": _relu_gap,
    "DirectionSpread": _direction_spread,
}


# -- limits --------------------------------------------------------------------------------------
#: run scalar -> the trajectory quantity whose limit (t -> infinity) it is
LIMIT_OF = {"LossInf": "L", "OLSGapInf": "OLSGap", "BundleGapInf": "BundleGap",
            "MixedInf": "MixedSize", "GradNormSqInf": "GradNormSq"}


def limit_estimate(tr: Trajectory, quantity: str) -> Estimate:
    """``quantity`` (a key of `LIMIT_OF`) read as the limit of its trajectory quantity
    (`verify.engine.limit_point.limit_estimate`): at the run's limit point, its end state polished
    by
    Newton's method to the stationary point of its activation pattern, with the error of the
    companion's and the last quarter's polish; at the run's last saved time where none can be
    polished. A quantity still moving at the end of the run has a large error (the check is
    then INCONCLUSIVE)."""
    return limit_point.limit_estimate(tr, LIMIT_OF[quantity], quantity)


#: the limits a run reads (`verify.language.measures.LIMIT_QUANTITIES`: ``gfverify check --run``)
LIMITS = {name: (lambda tr, name=name: limit_estimate(tr, name)) for name in LIMIT_OF}
