"""S002 quantities (Boursier, Pillaud-Vivien, Flammarion): vocabulary name -> number.

Merged into `verify.language.measures` as its pack's measures module (`theory.packs`; TRAJECTORY /
INSTANCE /
ENSEMBLE tables with the contracts documented there). Every trajectory quantity
is a `Series` whose ``roundoff`` covers the formula's rounding and the state's own
estimated error (`relative_floor`, `output_error`); the integration error is the
difference to the companion run, added by the check.

Time derivatives are exact: d/dt u_+ is computed from the flow field of
`numerics.network` at the saved states, never from differences of saved values.

Instance quantities computed by an optimisation (MinNormSq, MinF1Norm) are
`Measured` floats: the value of a feasible point and, in ``error``, the gap to a
dual (certified lower) bound, so an identity between them and a closed form is
decided against the certificate, not against zero.
"""

from __future__ import annotations

import functools
import math

import numpy as np

import theory
from numerics import Problem, Trajectory, network
from verify.engine.check import event_time, instance_scalar
from verify.language.measures import (
    FLOAT_EPS,
    ROUNDOFF_ULPS,
    Series,
    neuron_velocity_error,
    output_error,
    relative_floor,
    relative_series,
)

_ROUND = ROUNDOFF_ULPS * FLOAT_EPS


class Measured(float):
    """A float with an absolute error bound (``error``), for computed instance quantities.

    `verify.check` propagates ``error`` like the round-off of a trajectory quantity.
    """

    error: float

    def __new__(cls, value: float, error: float):
        obj = super().__new__(cls, value)
        obj.error = float(error)
        return obj


# -- key neurons, data vectors and capacities (S002 section 3) --------------------------------
def key_neuron_sets(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """S002's S_{+,1} and S_{-,1} (indices), from the initial weights."""
    Z0 = problem.W0 @ problem.X.T  # (p, n)
    pos, neg = problem.y > 0, problem.y < 0
    s_plus = (problem.a0 > 0) & np.all(Z0[:, pos] >= 0, axis=1)
    s_minus = (problem.a0 < 0) & np.all(Z0[:, neg] >= 0, axis=1)
    return np.flatnonzero(s_plus), np.flatnonzero(s_minus)


def d_vectors(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """D_+ = (1/n) sum_{y_k>0} y_k x_k and D_- = (1/n) sum_{y_k<0} y_k x_k."""
    y, X = problem.y, problem.X
    return (y * (y > 0)) @ X / problem.n, (y * (y < 0)) @ X / problem.n


def growth_ratio_out(problem: Problem) -> float:
    """max_{j not in S_{+,1}} ||D_{A_j}|| / ||D_+|| (see the vocabulary's GrowthRatioOut)."""
    s_plus, _ = key_neuron_sets(problem)
    others = np.setdiff1d(np.arange(problem.p), s_plus)
    Dp, _ = d_vectors(problem)
    norm_plus = float(np.linalg.norm(Dp))
    if others.size == 0 or norm_plus == 0:
        return 0.0
    active = (problem.W0[others] @ problem.X.T) > 0  # (others, n)
    same_sign = np.sign(problem.a0[others])[:, None] == np.sign(problem.y)[None, :]
    weights = (active & same_sign) * problem.y[None, :] / problem.n  # (others, n)
    rates = np.linalg.norm(weights @ problem.X, axis=1)
    return float(rates.max() / norm_plus)


def _capacity(problem: Problem, sign: float) -> float:
    sel = np.sign(problem.y) == sign
    ratios = problem.y[sel] / np.linalg.norm(problem.X[sel], axis=1)
    return float(np.sqrt(np.sum(ratios**2)))



def _u_plus(tr: Trajectory) -> Series:
    s_plus, _ = key_neuron_sets(tr.problem)
    return relative_series(tr, tr.group_norm_sq(s_plus), 2.0)


def _u_minus(tr: Trajectory) -> Series:
    _, s_minus = key_neuron_sets(tr.problem)
    return relative_series(tr, tr.group_norm_sq(s_minus), 2.0)


def _align(tr: Trajectory, which: int) -> Series:
    sets = key_neuron_sets(tr.problem)
    Dp, Dm = d_vectors(tr.problem)
    D = Dp if which == 0 else -Dm
    idx = sets[which]
    norm = float(np.linalg.norm(D))
    if idx.size == 0 or norm == 0:
        nan = np.full(len(tr.t), np.nan)
        return Series(nan, nan)
    values = norm * np.min(tr.alignment(D)[:, idx], axis=-1)
    # a cosine moves by at most ~2x the relative error of the neuron
    return Series(values, relative_floor(tr, 2.0) * norm)


def _norm_out_plus(tr: Trajectory) -> Series:
    s_plus, _ = key_neuron_sets(tr.problem)
    others = np.setdiff1d(np.arange(tr.problem.p), s_plus)
    if others.size == 0:
        return relative_series(tr, np.zeros(len(tr.t)), 1.0)
    return relative_series(tr, np.max(tr.neuron_norms[:, others], axis=-1), 1.0)



# -- instance quantities ------------------------------------------------------------------------
def growth_ratio_out_minus(problem: Problem) -> float:
    """max over negative neurons outside S_{-,1} of ||D_{A_j}|| / ||D_-||, A_j the negative
    samples active at t = 0 (the phase-3 analogue of `growth_ratio_out`)."""
    _, s_minus = key_neuron_sets(problem)
    negative = np.flatnonzero(problem.a0 < 0)
    others = np.setdiff1d(negative, s_minus)
    _, Dm = d_vectors(problem)
    norm_minus = float(np.linalg.norm(Dm))
    if others.size == 0 or norm_minus == 0:
        return 0.0
    active = (problem.W0[others] @ problem.X.T) > 0
    weights = (active & (problem.y < 0)[None, :]) * problem.y[None, :] / problem.n
    return float(np.linalg.norm(weights @ problem.X, axis=1).max() / norm_minus)


def _scaled_labels(problem: Problem) -> np.ndarray:
    """y~_k = y_k / ||x_k||: on orthogonal data, neuron j's output on x_k is
    sign(a_j) |a_j| ||x_k|| relu(<w_j, x^_k>)."""
    return problem.y / np.linalg.norm(problem.X, axis=1)


def _min_norm_program(problem: Problem) -> tuple[float, float]:
    """min ||P|| + ||N|| over P, N >= 0 with P - N = y~, with a certified bracket.

    On orthogonal data (S002-A1; meaningless otherwise), the positive neurons' summed
    output coefficients on the normalised inputs form a vector P >= 0 with cost
    sum_j |a_j| ||w_j|| >= ||P|| (triangle inequality, equality for collinear neurons)
    and the negative ones N >= 0; interpolation is P - N = y~. This convex program is
    solved numerically in N (projected gradient on the box N >= max(0, -y~)), and the
    minimum is bracketed by the primal value and the dual value <lam, y~> at the dual
    point lam = P/||P|| - N/||N|| projected onto {||lam_+|| <= 1, ||lam_-|| <= 1}.
    Returns (primal value, primal - dual).
    """
    yt = _scaled_labels(problem)
    lo = np.maximum(0.0, -yt)
    N = lo + 0.5 * np.abs(yt)  # an interior start, not the answer
    for _ in range(2000):
        P = yt + N
        nP, nN = np.linalg.norm(P), np.linalg.norm(N)
        grad = (P / nP if nP > 0 else 0.0) + (N / nN if nN > 0 else 0.0)
        N_new = np.maximum(lo, N - 0.1 * grad)
        if np.max(np.abs(N_new - N)) <= 1e-18:
            N = N_new
            break
        N = N_new
    P = yt + N
    nP, nN = float(np.linalg.norm(P)), float(np.linalg.norm(N))
    primal = nP + nN
    lam = (P / nP if nP > 0 else 0 * P) - (N / nN if nN > 0 else 0 * N)
    pos, neg = np.maximum(lam, 0.0), np.maximum(-lam, 0.0)
    lam = pos / max(1.0, float(np.linalg.norm(pos))) - neg / max(1.0, float(np.linalg.norm(neg)))
    dual = float(lam @ yt)
    return primal, max(0.0, primal - dual)


def min_norm_sq(problem: Problem) -> Measured:
    """min ||theta||^2 over interpolating networks: 2 x the program above (a_j^2 + ||w_j||^2
    >= 2 |a_j| ||w_j||, with equality for balanced neurons)."""
    value, gap = _min_norm_program(problem)
    return Measured(2 * value, 2 * gap + 4 * _ROUND * value)


def min_f1_norm(problem: Problem) -> Measured:
    """min variation norm: inf sum_j |c_j| over f = sum_j c_j relu(<u_j, x>), ||u_j|| = 1.

    Computed from the function-space dual, max <lam, y> subject to
    |sum_k lam_k relu(<u, x_k>)| <= 1 for every unit u. On orthogonal data the sup over u of
    sum_k lam_k ||x_k|| relu(<u, x^_k>) is ||(lam~)_+|| with lam~_k = lam_k ||x_k||, so the
    dual is max <lam~, y~> over ||lam~_+|| <= 1, ||lam~_-|| <= 1: solved per sign block by
    projected ascent, its value certified by the primal point of two neurons along the
    blocks' maximisers (whose cost is an upper bound once it interpolates)."""
    yt = _scaled_labels(problem)
    lam = np.zeros_like(yt)
    for _ in range(200):
        step = lam + 0.5 * yt
        pos, neg = np.maximum(step, 0.0), np.maximum(-step, 0.0)
        lam_new = (pos / max(1.0, float(np.linalg.norm(pos)))
                   - neg / max(1.0, float(np.linalg.norm(neg))))
        if np.max(np.abs(lam_new - lam)) <= 1e-18:
            lam = lam_new
            break
        lam = lam_new
    dual = float(lam @ yt)
    # primal certificate: c_+ relu(<u_+, x^_k>) - c_- relu(<u_-, x^_k>) with u_+- the dual
    # maximisers of each block; its cost c_+ + c_- is an upper bound iff it interpolates
    u_pos, u_neg = np.maximum(lam, 0.0), np.maximum(-lam, 0.0)
    c_pos = float(yt[yt > 0] @ u_pos[yt > 0]) if u_pos.any() else 0.0
    c_neg = float(-yt[yt < 0] @ u_neg[yt < 0]) if u_neg.any() else 0.0
    fit = c_pos * u_pos - c_neg * u_neg
    residual = float(np.linalg.norm(fit - yt))
    primal = c_pos + c_neg
    # an interpolation residual adds at most its own norm (fitting it with two more neurons)
    upper = primal + math.sqrt(2.0) * residual
    value = 0.5 * (upper + dual)
    return Measured(value, 0.5 * abs(upper - dual) + 4 * _ROUND * abs(value))


INSTANCE = {
    "Dplus": lambda pr: float(np.linalg.norm(d_vectors(pr)[0])),
    "Dminus": lambda pr: float(np.linalg.norm(d_vectors(pr)[1])),
    "CapPlus": lambda pr: _capacity(pr, 1.0),
    "CapMinus": lambda pr: _capacity(pr, -1.0),
    "NumSPlus": lambda pr: float(len(key_neuron_sets(pr)[0])),
    "NumSMinus": lambda pr: float(len(key_neuron_sets(pr)[1])),
    "GrowthRatioOut": growth_ratio_out,
    "GrowthRatioOutMinus": growth_ratio_out_minus,
    "MinNormSq": min_norm_sq,
    "MinF1Norm": min_f1_norm,
}


# -- trajectory quantities ----------------------------------------------------------------------
def _paper_field(problem: Problem, W: np.ndarray, a: np.ndarray):
    """S002 eqs. (5)-(7) written out: D_j = -(1/n) sum_k 1{<w_j, x_k> > 0}(h(x_k) - y_k) x_k,
    da_j/dt = <D_j, w_j>, dw_j/dt = a_j D_j (standard network, L = 1/(2n) sum (h - y)^2)."""
    X, y, n = problem.X, problem.y, problem.n
    Z = W @ X.T  # (T, p, n)
    act = Z > 0
    h = np.einsum("tj,tjk->tk", a, np.where(act, Z, 0.0))
    D = -np.einsum("tjk,tk,kd->tjd", act.astype(float), h - y, X) / n  # (T, p, d)
    return np.einsum("tjd,tjd->tj", D, W), a[..., None] * D, D


def _field_gap(tr: Trajectory) -> Series:
    """max_j |da_j/dt - <D_j, w_j>| + ||dw_j/dt - a_j D_j||, the velocity being the
    simulated flow's field (numerics.network.flow_field) at the saved states; over the
    neurons off ties (no pair held on z_ij = 0 by a sliding mode) at each time."""
    pr = tr.problem
    # the field of the strict mask 1{z > 0}, as the paper's formula has it (the run's own
    # velocity differs where a pair sits within rounding of its surface)
    vW, va = network.flow_field(pr, tr.W, tr.a)
    da, dW, D = _paper_field(pr, tr.W, tr.a)
    gap = np.abs(va - da) + np.linalg.norm(vW - dW, axis=-1)  # (T, p)
    # rounding of either formula: a few hundred ulps of the summands' magnitudes
    sizes = np.abs(tr.residuals) + np.abs(pr.y) + np.abs(tr.outputs)  # (T, n)
    mag_D = (sizes @ np.linalg.norm(pr.X, axis=1))[:, None] / pr.n  # (T, 1)
    weights = np.abs(tr.a) + tr.neuron_norms
    mag = mag_D * weights * (1 + pr.n)
    # the state's error: the velocity's (`neuron_velocity_error`), and the paper's field
    # through D_j's residuals (|dD_j| <= x_max e_h) and the weights' relative error
    x_max = float(np.max(np.linalg.norm(pr.X, axis=1)))
    rel = relative_floor(tr, 1.0)[:, None]
    paper = weights * (x_max * output_error(tr)[:, None]
                       + rel * np.linalg.norm(D, axis=-1))
    own = neuron_velocity_error(tr) + paper
    error, rounding = _ROUND * mag + own, _ROUND * mag
    if tr.filippov_mask is not None:
        # a neuron with a pair held on z_ij = 0 (a tie: the flow slides there) is left out at
        # that time: the layer-wise ODEs are stated off ties (BF25-D1 says so), and on a tie
        # the paper's strict mask is decided by rounding and is not the Filippov velocity
        # the flow moves with. A time at which every neuron slides has no value (unknown).
        tied = tr.sliding.any(axis=-1)  # (T, p)
        gap, error, rounding = (np.where(tied, -np.inf, a) for a in (gap, error, rounding))
        none = tied.all(axis=-1)
        values = np.where(none, np.nan, np.max(gap, axis=-1))
        return Series(values, np.where(none, np.inf, np.max(error, axis=-1)),
                      np.where(none, np.nan, np.max(rounding, axis=-1)))
    return Series(np.max(gap, axis=-1), np.max(error, axis=-1), np.max(rounding, axis=-1))


def _d_u_plus(tr: Trajectory) -> Series:
    """d/dt u_+ = 2 sum_{j in S_{+,1}} <w_j, dw_j/dt>, dw_j/dt from the flow field."""
    s_plus, _ = key_neuron_sets(tr.problem)
    vW, _ = tr.velocity
    terms = 2 * np.einsum("tjd,tjd->tj", tr.W[:, s_plus], vW[:, s_plus])
    values = np.sum(terms, axis=-1)
    # relative error of the weights (degree 2 in a_j w_j) and of the residuals in D_j
    x_max = float(np.max(np.linalg.norm(tr.problem.X, axis=1)))
    weights = 2 * np.sum(np.abs(tr.a[:, s_plus]) * tr.neuron_norms[:, s_plus], axis=-1)
    floor = (relative_floor(tr, 2.0) * np.sum(np.abs(terms), axis=-1)
             + weights * x_max * output_error(tr) * math.sqrt(tr.problem.n) / tr.problem.n)
    return Series(values, floor)


def _align_gap(tr: Trajectory) -> Series:
    """max_j ||dw^_j/dt - s_j (D_j^0 - <D_j^0, w^_j> w^_j)||: the direction's velocity
    (exact, from the flow field: (I - w^ w^T) (dw_j/dt)/||w_j||) against S002 eq. (10)'s
    h = 0 spherical flow, D_j^0 = (1/n) sum_k 1{<w_j, x_k> > 0} y_k x_k. Zero neurons
    count 0."""
    pr = tr.problem
    vW, _ = tr.velocity
    norms = tr.neuron_norms[..., None]
    safe = np.where(norms > 0, norms, 1.0)
    wbar = tr.W / safe
    proj = vW - np.einsum("tjd,tjd->tj", vW, wbar)[..., None] * wbar
    rate = proj / safe
    D0 = np.einsum("tjk,k,kd->tjd", tr.activation.astype(float), pr.y, pr.X) / pr.n
    s = np.sign(tr.a)[..., None]
    target = s * (D0 - np.einsum("tjd,tjd->tj", D0, wbar)[..., None] * wbar)
    gap = np.where(norms[..., 0] > 0, np.linalg.norm(rate - target, axis=-1), 0.0)
    size = np.linalg.norm(rate, axis=-1) + np.linalg.norm(target, axis=-1)
    # the velocity's own error over the neuron's norm (zero neurons count 0)
    field = np.where(norms[..., 0] > 0, neuron_velocity_error(tr) / safe[..., 0], 0.0)
    return Series(np.max(gap, axis=-1),
                  np.max(relative_floor(tr, 4.0)[:, None] * size + field, axis=-1))


def _saddle_dist(tr: Trajectory) -> Series:
    """Distance from theta(t) to Fact 1's saddle set: S_{+,1} neurons (w_j, a_j) = r_j (u, 1),
    u = D_+/||D_+||, sum r_j^2 = CapPlus, r_j >= 0; every other neuron 0.

    With z_j = (w_j, a_j) and v = (u, 1)/sqrt(2), the nearest point takes
    rho_j = sqrt(2) r_j proportional to max(<z_j, v>, 0) on the sphere sum rho_j^2 = 2 CapPlus:
    dist^2 = sum_j |z_j|^2 - 2 sqrt(2 CapPlus) |c_+| + 2 CapPlus, c_j = <z_j, v>
    (max_j c_j in place of |c_+| when every c_j <= 0).
    """
    pr = tr.problem
    s_plus, _ = key_neuron_sets(pr)
    Dp, _ = d_vectors(pr)
    sel = np.sign(pr.y) == 1.0
    cap = float(np.sqrt(np.sum((pr.y[sel] / np.linalg.norm(pr.X[sel], axis=1)) ** 2)))
    u = Dp / np.linalg.norm(Dp)
    sq = tr.neuron_norms**2 + tr.a**2  # (T, p)
    c = (tr.W[:, s_plus] @ u + tr.a[:, s_plus]) / math.sqrt(2.0)  # (T, |S+|)
    cpos = np.linalg.norm(np.maximum(c, 0.0), axis=-1)
    best = np.where(cpos > 0, cpos, np.max(c, axis=-1)) if s_plus.size else np.zeros(len(tr.t))
    d2 = np.sum(sq, axis=-1) - 2 * math.sqrt(2 * cap) * best + 2 * cap
    d2 = np.maximum(d2, 0.0)
    dist = np.sqrt(d2)
    # rounding of d2 (cancellation between terms of size |theta|^2 and CapPlus) and the
    # state's relative error (the distance is 1-Lipschitz in theta)
    theta = np.sqrt(np.sum(sq, axis=-1))
    e_d2 = _ROUND * (np.sum(sq, axis=-1) + 2 * cap) * 4
    floor = e_d2 / (dist + np.sqrt(e_d2)) + relative_floor(tr, 1.0) * theta
    return Series(dist, floor)


def _phase_two_end(tr: Trajectory) -> int:
    """Saved index of S002-L3's t_2 on this run: its event time (default eps) when reached,
    else the lemma's time -(1 + 3 eps) ln(lam)/||D_+|| (the paper's definition of t_2)."""
    claim = theory.get("S002-L3")
    t2 = event_time(claim, tr)
    if not math.isfinite(t2):
        t2 = instance_scalar(claim, tr, claim.statement.rhs)
    return int(min(np.searchsorted(tr.t, t2 - 1e-12 * max(1.0, t2)), len(tr.t) - 1))


def _drift_s_plus(tr: Trajectory) -> Series:
    """max_{j in S_{+,1}} ||w_j(t) - w_j(t_2)||, t_2 from `_phase_two_end`."""
    s_plus, _ = key_neuron_sets(tr.problem)
    if s_plus.size == 0:
        nan = np.full(len(tr.t), np.nan)
        return Series(nan, nan)
    k = _phase_two_end(tr)
    W = tr.W[:, s_plus]
    drift = np.max(np.linalg.norm(W - W[k], axis=-1), axis=-1)
    size = np.max(tr.neuron_norms[:, s_plus], axis=-1) + np.max(tr.neuron_norms[k, s_plus])
    floor = relative_floor(tr, 1.0) * size + relative_floor(tr, 1.0)[k] * size
    return Series(drift, floor)


def _norm_out_key(tr: Trajectory) -> Series:
    s_plus, s_minus = key_neuron_sets(tr.problem)
    others = np.setdiff1d(np.arange(tr.problem.p), np.union1d(s_plus, s_minus))
    if others.size == 0:
        return relative_series(tr, np.zeros(len(tr.t)), 1.0)
    return relative_series(tr, np.max(tr.neuron_norms[:, others], axis=-1), 1.0)


def _quiet(fn):
    """Run a measurement with floating-point warnings off: on a companion run (which has no
    companion of its own) the state error, hence every floor, is infinite, and inf * 0
    appears; only the values of a companion's series are used."""

    @functools.wraps(fn)
    def wrapped(tr: Trajectory) -> Series:
        with np.errstate(all="ignore"):
            return fn(tr)

    return wrapped


TRAJECTORY = {
    "UPlus": _u_plus,
    "UMinus": _u_minus,
    "AlignPlus": lambda tr: _align(tr, 0),
    "AlignMinus": lambda tr: _align(tr, 1),
    "NormOutPlus": _norm_out_plus,
    "FieldGap": _quiet(_field_gap),
    "AlignGap": _quiet(_align_gap),
    "dUPlus": _quiet(_d_u_plus),
    "SaddleDist": _quiet(_saddle_dist),
    "DriftSPlus": _quiet(_drift_s_plus),
    "NormOutKey": _quiet(_norm_out_key),
}

ENSEMBLE = {
    "PKeyPlus": lambda pr: len(key_neuron_sets(pr)[0]) >= 1,
    "PKeyMinus": lambda pr: len(key_neuron_sets(pr)[1]) >= 1,
}
