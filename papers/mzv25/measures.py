"""MZV25 (binary case) quantities: vocabulary name -> number, merged into `verify.language.measures`
as a pack's measures module (TRAJECTORY and INSTANCE tables with the contracts documented
there).

Conventions (papers/mzv25/claims.py): the scalar-output network f(x) = sum_j v_j relu(<w_j,
x>) (the vocabulary's a_j is the paper's v_j), labels +-1, I_+ = {i : y_i = +1} is class 0 of
`papers.mzv25.multiclass` and I_- class 1. N_+- = {j : sign v_j(0) = +-1}; the post-alignment
groups N~_+- of Claim 1 are the neurons in S_+ (active exactly on I_+) and S_- at the end
of the run (`Trajectory.cones`): a neuron of N_+ that died is in neither, and S_+- trap
(S001-L12), so on a run past its separation time these are the groups the claim names.

Every quantity is computed by the array functions of `papers.mzv25.multiclass` (the same
ones the K-class case will use). Error floors (`Series.roundoff`): the rounding of the
formula plus the state's relative error (`relative_floor`) propagated to first order; the
check adds the difference to the companion run. Counts and quantities that vanish exactly
on a pattern (CrossOverlap, NC2 and DecouplingGap once the classes are separated) carry the
rounding of their formula only: a state error that moved an activation would show in the
companion difference, which the check adds. Time derivatives come from the flow's field
(`Trajectory.velocity`), never from differences of saved values.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from numerics import Problem, Trajectory
from numerics.trajectory import CONE_MINUS, CONE_PLUS
from papers.mzv25 import multiclass as mc
from verify.language.measures import (
    ROUNDING,
    Detailed,
    Series,
    UndefinedQuantity,
    output_error,
    output_rounding,
    relative_floor,
    velocity_error,
    velocity_rounding,
)


# -- instance quantities -----------------------------------------------------------------------
def labels_of(pr: Problem) -> np.ndarray:
    """Class 0 for y = +1 (I_+), class 1 for y = -1 (I_-); a vector output's own labels
    0..K-1 (the K-class case)."""
    if pr.vector_output:
        return np.asarray(pr.y, dtype=int)
    if pr.loss == "square" or not np.all(np.isin(pr.y, (-1.0, 1.0))):
        raise UndefinedQuantity("the MZV25 binary quantities (labels +-1, exp/logistic loss)")
    return np.where(pr.y > 0, 0, 1)


@lru_cache(maxsize=256)
def geometry(pr: Problem) -> dict:
    """mu_s, mu_d, gamma_+-, u_+- and the limit predictions of one instance (memoised)."""
    labels = labels_of(pr)
    if np.unique(labels).size < 2:
        raise UndefinedQuantity("the class margins (one class only)")
    mu_s, mu_d = mc.separability(pr.X, labels)
    out = {"mu_s": mu_s, "mu_d": mu_d, "labels": labels}
    if mu_s > 0:  # every class's hull misses the origin: gamma_k > 0
        gamma, U = mc.class_margins(pr.X, labels)
        out.update(gamma=gamma, U=U, **{f"pred_{k}": v for k, v in
                                        mc.predicted_nc(pr.X, labels).items()})
    return out


def _gamma(pr: Problem, k: int) -> float:
    geo = geometry(pr)
    if "gamma" not in geo:
        raise UndefinedQuantity("gamma_k (a class whose hull contains the origin, mu_s <= 0)")
    return float(geo["gamma"][k])


def repeller_cos(pr: Problem) -> float:
    """max(max_{j in N_+} cos(w_j(0), x_-), max_{j in N_-} cos(w_j(0), x_+)), x_+- the class
    sums (Assumption 3, eq. (9): < 1); -1 where a group is empty."""
    worst = -1.0
    for sign, target in ((1.0, pr.X[pr.y < 0].sum(axis=0)), (-1.0, pr.X[pr.y > 0].sum(axis=0))):
        idx = np.sign(pr.a0) == sign
        if idx.any() and np.linalg.norm(target) > 0:
            worst = max(worst, float(np.max(mc.unit_rows(pr.W0[idx]) @ mc.unit_rows(target))))
    return worst


def _prediction(pr: Problem, key: str) -> float:
    geo = geometry(pr)
    if key not in geo:
        raise UndefinedQuantity(f"{key[5:]} (a class whose hull contains the origin)")
    return float(geo[key])


@lru_cache(maxsize=64)
def _zeta(pr: Problem) -> float:
    """Lemma 9's zeta, exactly (`multiclass.gap_zeta`); UndefinedQuantity when no class has
    two points (no direction activates some but not all of one)."""
    value = mc.gap_zeta(pr.X, labels_of(pr))
    if not np.isfinite(value):
        raise UndefinedQuantity("Zeta9 (no class has two points)")
    return Detailed(value, "Lemma 9's zeta over every class and realisable subset")


def _k_class(pr: Problem) -> np.ndarray:
    """The labels of a K-class instance (vector output); UndefinedQuantity otherwise."""
    if not pr.vector_output:
        raise UndefinedQuantity("the MZV25 K-class quantities (a vector output)")
    return labels_of(pr)


def semi_local(pr: Problem) -> float:
    """1 if Assumption 4 holds with the partition argmax_k <e~_k, v_j(0)> (`multiclass`)."""
    labels = _k_class(pr)
    return float(mc.semi_local(pr.X, labels, pr.W0, pr.a0))


def a5_lhs(pr: Problem) -> float:
    """X_max^2/(X_min^2 mu_d mu_s^2), Proposition 1's condition's left side (A5)."""
    labels = _k_class(pr)
    mu_s, mu_d = mc.separability(pr.X, labels)
    if mu_s <= 0 or mu_d <= 0:
        raise UndefinedQuantity("A5's left side (A1 fails: mu_s or mu_d <= 0)")
    return float(mc.a5_lhs(pr.X, labels))


INSTANCE = {
    "SemiLocal": semi_local,
    "A5Lhs": a5_lhs,
    "MaxClassSize": lambda pr: float(np.max(np.bincount(labels_of(pr)))),
    "MuSame": lambda pr: geometry(pr)["mu_s"],
    "MuDiff": lambda pr: geometry(pr)["mu_d"],
    "GammaPlus": lambda pr: _gamma(pr, 0),
    "GammaMinus": lambda pr: _gamma(pr, 1),
    "GammaMin": lambda pr: min(_gamma(pr, 0), _gamma(pr, 1)),
    "RepellerCos": repeller_cos,
    "NumClasses": lambda pr: float(np.unique(labels_of(pr)).size),
    "Zeta9": lambda pr: _zeta(pr),
    "NC3Inf": lambda pr: _prediction(pr, "pred_NC3"),
}


# -- helpers on runs -----------------------------------------------------------------------------
def groups(tr: Trajectory) -> np.ndarray:
    """N~_+ (0) and N~_- (1): the neurons in S_+ and S_- at the run's end; -1 for the others.
    K classes: Assumption 4's partition N_k, argmax_k <e~_k, v_j(0)> (fixed at t = 0)."""
    if tr.problem.vector_output:
        return mc.neuron_groups(tr.problem.a0)
    end = tr.cones[-1]
    return np.where(end == CONE_PLUS, 0, np.where(end == CONE_MINUS, 1, -1))


def _times(floor: np.ndarray, values: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.where(values != 0, floor * np.abs(values), 0.0)


def _series(tr: Trajectory, values: np.ndarray, degree: float, offset: float = 0.0) -> Series:
    """values with the floor relative_floor(degree) x (|values| + offset) and the formula's
    rounding ROUNDING x (|values| + offset)."""
    scale = np.abs(values) + offset
    return Series(values, _times(relative_floor(tr, degree), scale), ROUNDING * scale)


def _nan(tr: Trajectory) -> Series:
    nan = np.full(len(tr.t), np.nan)
    return Series(nan, nan)


def _share(tr: Trajectory, k: int) -> Series:
    g = groups(tr)
    if not np.any(g == k):
        return _nan(tr)
    values = mc.group_shares(tr.W, tr.a, g)[:, k]
    return _series(tr, values, 4.0)


def _misalign(tr: Trajectory, k: int) -> Series:
    g = groups(tr)
    geo = geometry(tr.problem)
    if not np.any(g == k) or "U" not in geo:
        return _nan(tr)
    values = mc.misalignment(tr.W, g, geo["U"])[:, k]
    # |P_perp W_k| moves by at most rho |W_k|, |W_k| by rho |W_k|: (1 + m) rho
    return _series(tr, values, 2.0, offset=1.0)


def _features(tr: Trajectory) -> np.ndarray:
    return mc.features(tr.problem.X, tr.W)  # (T, n, p)


def _cross_overlap(tr: Trajectory) -> Series:
    values = mc.cross_class_overlap(_features(tr), labels_of(tr.problem))
    return _series(tr, values, 4.0)


def _num_in(tr: Trajectory, cone: int) -> Series:
    values = np.sum(tr.cones == cone, axis=-1).astype(float)
    return Series(values, np.zeros_like(values))


def _nc(tr: Trajectory, which: str) -> Series:
    Phi = _features(tr)
    labels = labels_of(tr.problem)
    values = (mc.nc1 if which == "NC1" else mc.nc2)(Phi, labels)
    values = np.where(np.isfinite(values), values, np.nan)
    if which == "NC1":
        return _nc1_series(tr, Phi, labels, values)
    # NC2 is a difference of O(1) unit-norm matrices: its rounding is absolute
    return Series(values, _times(relative_floor(tr, 4.0), values) + ROUNDING, np.full(
        len(tr.t), ROUNDING))


def _nc1_error(Phi: np.ndarray, labels: np.ndarray, delta: np.ndarray,
               values: np.ndarray) -> np.ndarray:
    """A bound on |NC1(Phi + E) - NC1(Phi)| for features each moved by at most ``delta``
    (per saved time, in norm): a class mean moves by delta too, each deviation
    phi_i - phi_k and m_k - m_bar by 2 delta, a squared norm |d|^2 by 2 |d| 2 delta +
    (2 delta)^2. Absolute, not relative: NC1 is a ratio of variances, and a collapsed
    class has a within-class variance at the level of the features' own error."""
    M = mc.class_means(Phi, labels)
    K = M.shape[-2]
    d = 2.0 * delta
    err_w = np.zeros_like(delta)
    for k in range(K):
        dev = np.linalg.norm(Phi[..., labels == k, :] - M[..., k:k + 1, :], axis=-1)
        err_w = err_w + np.sum(2.0 * dev * d[:, None] + d[:, None] ** 2, axis=-1) / np.sum(
            labels == k)
    b = np.linalg.norm(M - M.mean(axis=-2, keepdims=True), axis=-1)  # (T, K)
    between = np.sum(b**2, axis=-1)
    err_b = np.sum(2.0 * b * d[:, None] + d[:, None] ** 2, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        err = (err_w + np.abs(values) * err_b) / (between - err_b)
    return np.where(between > err_b, err, np.inf)


def _nc1_series(tr: Trajectory, Phi: np.ndarray, labels: np.ndarray,
                values: np.ndarray) -> Series:
    """NC1 with its error: each feature phi_j(x_i) = relu(<w_j, x_i>) moves by at most
    rho |w_j| |x_i| (relu is 1-Lipschitz), so a sample's feature vector by rho |x_i| |W|_F;
    the formula's rounding is that with rho = the float64 unit times d."""
    x_max = float(np.max(np.linalg.norm(tr.problem.X, axis=1)))
    w_f = np.linalg.norm(tr.W, axis=(-2, -1))
    d = tr.problem.X.shape[1]
    rounding = _nc1_error(Phi, labels, ROUNDING * d * x_max * w_f, values)
    state = _nc1_error(Phi, labels, relative_floor(tr, 1.0) * x_max * w_f, values)
    return Series(values, np.maximum(state, rounding), rounding)


def _margin(tr: Trajectory, k: int) -> Series:
    labels = labels_of(tr.problem)
    values = mc.normalised_margins(tr.problem.X, labels, tr.W, tr.a)[:, k]
    theta = _theta_sq(tr)
    # the outputs' own error over |theta|^2, and the ratio's relative floor
    err = output_error(tr, labels=False) / theta
    return Series(values, _times(relative_floor(tr, 4.0), values) + err,
                  ROUNDING * np.abs(values) + output_rounding(tr, labels=False) / theta)


def _theta_sq(tr: Trajectory) -> np.ndarray:
    return np.sum(tr.W**2, axis=(-2, -1)) + np.sum(tr.a**2, axis=tuple(range(1, tr.a.ndim)))


def _velocity(tr: Trajectory) -> tuple[np.ndarray, np.ndarray]:
    return tr.velocity


def _d_theta_sq(tr: Trajectory) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """d|theta|^2/dt = 2 <theta, theta'> (exact field), its error and its rounding."""
    vW, va = _velocity(tr)
    terms = np.sum(tr.W * vW, axis=-1) + tr.a * va  # (T, p)
    values = 2.0 * terms.sum(axis=-1)
    norm = np.sqrt(_theta_sq(tr))
    mag = 2.0 * np.abs(terms).sum(axis=-1)
    err = _times(relative_floor(tr, 1.0), mag) + 2.0 * norm * velocity_error(tr) + ROUNDING * mag
    rounding = ROUNDING * mag + 2.0 * norm * velocity_rounding(tr)
    return values, err, rounding


def _norm_theta_sq(tr: Trajectory) -> Series:
    return _series(tr, _theta_sq(tr), 2.0)


def _d_norm_theta_sq(tr: Trajectory) -> Series:
    values, err, rounding = _d_theta_sq(tr)
    return Series(values, err, rounding)


def _smooth_parts(tr: Trajectory):
    pr = tr.problem
    if pr.loss != "exponential":
        raise UndefinedQuantity("SmoothMargin (stated for the exponential loss)")
    L = tr.loss
    with np.errstate(divide="ignore", invalid="ignore"):
        log_inv = np.log(pr.loss_scale / L)  # -log(L/c) = -log sum_i exp(-q_i)
    return L, log_inv, _theta_sq(tr)


def _smooth_margin(tr: Trajectory) -> Series:
    """Lyu and Li's smoothed normalised margin log(c/L)/|theta|^2 (exponential loss, c the
    loss's prefactor): at most min_i y_i f(x_i)/|theta|^2 and within log(n)/|theta|^2 of it."""
    L, log_inv, theta = _smooth_parts(tr)
    values = log_inv / theta
    # log(c/L) moves by (error of L)/L, |theta|^2 by its relative floor
    e_L = output_error(tr, labels=False) * np.max(np.abs(tr.problem.y)) * L
    with np.errstate(divide="ignore", invalid="ignore"):
        err = e_L / L / theta + _times(relative_floor(tr, 2.0), values)
    return Series(values, err, ROUNDING * (np.abs(values) + 1.0 / theta))


def _d_smooth_margin(tr: Trajectory) -> Series:
    """d/dt [log(c/L)/|theta|^2] = (|theta'|^2/L - log(c/L) d|theta|^2/dt/|theta|^2)/|theta|^2
    from the exact field (dL/dt = -|theta'|^2 on the flow, kappa = 1)."""
    L, log_inv, theta = _smooth_parts(tr)
    vW, va = _velocity(tr)
    speed_sq = np.sum(vW**2, axis=(-2, -1)) + np.sum(va**2, axis=-1)
    d_theta, e_dtheta, r_dtheta = _d_theta_sq(tr)
    first = speed_sq / L
    second = log_inv * d_theta / theta
    values = (first - second) / theta
    speed = np.sqrt(speed_sq)
    e_v = velocity_error(tr)
    e_L = output_error(tr, labels=False) * L
    rho = relative_floor(tr, 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        e_first = (2.0 * speed * e_v + e_v**2) / L + first * e_L / L
        e_second = (np.abs(second) * (e_L / (L * np.abs(log_inv)) + rho)
                    + np.abs(log_inv) * e_dtheta / theta)
        err = (e_first + e_second) / theta + _times(rho, values)
        rounding = ROUNDING * (first + np.abs(second)) / theta + np.abs(log_inv) * r_dtheta / \
            theta**2 + 2.0 * speed * velocity_rounding(tr) / (L * theta)
    return Series(values, err, rounding)


def _decoupling_gap(tr: Trajectory) -> Series:
    """max of (a) max_i |f(x_i) - f_lin(x_i)| / max_i |f(x_i)| and (b) |theta' - theta'_lin| /
    |theta'|: f_lin(x_i) = sum_{j in N~_k(i)} v_j <w_j, x_i>, the two linear blocks of eq.
    (11), and theta'_lin their gradient flow (every neuron outside N~_+- at rest). 0 on a
    separated pattern up to rounding; > 0 while a neuron of N~_+- misses a point of its class
    or sees one of the other class."""
    pr = tr.problem
    g = groups(tr)
    labels = labels_of(pr)
    Z = tr.preactivations  # (T, p, n)
    own = (g[:, None] == labels[None, :]).astype(float)  # (p, n): neuron's block and class
    lin_terms = tr.a[..., None] * Z * own  # linear blocks, no relu
    f_lin = lin_terms.sum(axis=-2)
    f = tr.outputs
    mag = np.abs(tr.a[..., None] * np.where(tr.activation, Z, 0.0)).sum(axis=-2) + \
        np.abs(lin_terms).sum(axis=-2)
    top = np.max(np.abs(f), axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out_gap = np.max(np.abs(f - f_lin), axis=-1) / top
        out_round = np.max(mag, axis=-1) * ROUNDING / top
    # the linear blocks' flow: dL/df_i = ell'_i at the (equal) outputs
    from numerics import network

    G = network.loss_derivative(pr, f_lin)  # (T, n)
    vW_lin = -np.einsum("ti,tj,id,ji->tjd", G, tr.a, pr.X, own)
    va_lin = -np.einsum("ti,tji->tj", G, Z * own[None])
    vW, va = _velocity(tr)
    diff = np.sqrt(np.sum((vW - vW_lin) ** 2, axis=(-2, -1)) + np.sum((va - va_lin) ** 2,
                                                                          axis=-1))
    speed = np.sqrt(np.sum(vW**2, axis=(-2, -1)) + np.sum(va**2, axis=-1))
    with np.errstate(divide="ignore", invalid="ignore"):
        vel_gap = diff / speed
        vel_round = (ROUNDING * 4.0 * pr.n * speed + velocity_rounding(tr)) / speed
    values = np.maximum(out_gap, vel_gap)
    rounding = out_round + vel_round
    return Series(values, rounding, rounding)


def _gram_imbalance(tr: Trajectory) -> Series:
    """max_k |W_k W_k^T - v_k v_k^T|_F over the groups N~_k (rows w_j): conserved by a linear
    block's flow, only its diagonal by the ReLU network's before separation."""
    g = groups(tr)
    values = np.zeros(len(tr.t))
    scale = np.zeros(len(tr.t))
    for k in (0, 1):
        idx = np.flatnonzero(g == k)
        if idx.size == 0:
            continue
        Wk, vk = tr.W[:, idx], tr.a[:, idx]
        G = Wk @ np.swapaxes(Wk, -1, -2) - vk[:, :, None] * vk[:, None, :]
        norm = np.linalg.norm(G, axis=(-2, -1))
        size = np.sum(Wk**2, axis=(-2, -1)) + np.sum(vk**2, axis=-1)
        pick = norm > values
        values = np.where(pick, norm, values)
        scale = np.maximum(scale, size)
    # each entry <w_j, w_l> - v_j v_l moves by 2 rho |theta_j| |theta_l| at most
    return Series(values, 2.0 * relative_floor(tr, 1.0) * scale, ROUNDING * scale)


def _block_mismatch(tr: Trajectory) -> Series:
    """K classes: the number of pairs (j, i) with neuron j active on x_i other than the block
    pattern 1{y_i = k(j)} of its group. A count: its error is the companion's (the check adds
    it), a pre-activation within rounding of 0 counted where it falls."""
    _k_class(tr.problem)
    block = groups(tr)[:, None] == labels_of(tr.problem)[None, :]  # (p, n)
    values = np.sum(tr.activation != block[None], axis=(-2, -1)).astype(float)
    return Series(values, np.zeros_like(values), np.zeros_like(values))


def _min_pseudo_align(tr: Trajectory) -> Series:
    """K classes: min_j <e~_k(j), v_j/|v_j|> over every neuron and its group. Of degree 0 in
    v_j: a relative error rho of v_j turns its direction by at most 2 rho."""
    labels = _k_class(tr.problem)
    K = mc.num_classes(labels)
    V = tr.a  # (T, p, K)
    B = (V @ mc.pseudo_labels(K)) / np.linalg.norm(V, axis=-1, keepdims=True)  # (T, p, K)
    own = np.take_along_axis(B, groups(tr)[None, :, None], axis=-1)[..., 0]
    values = np.min(own, axis=-1)
    return Series(values, 2.0 * relative_floor(tr, 1.0), np.full(len(tr.t), ROUNDING * K))


def _max_out_norm(tr: Trajectory) -> Series:
    """max_i |f(x_i)| (the norm of a vector output): of degree 2 in the weights (f = V^T
    relu(W x)), so a relative error rho moves it by 2 rho |f| to first order."""
    F = tr.outputs
    values = np.max(np.linalg.norm(F, axis=-1) if F.ndim == 3 else np.abs(F), axis=-1)
    return Series(values, relative_floor(tr, 2.0) * values, ROUNDING * values)


def _mean_dir_defect(tr: Trajectory) -> Series:
    """max over the neurons some sample activates of 1 - cos(w_j, x_(sign v_j)), x_+- the
    sums of the classes' points (binary case): the reduced alignment flow's limit directions
    (section 4.1, after eq. (7)). Of degree 0 in the weights: a relative error rho turns
    w_j by at most 2 rho."""
    pr = tr.problem
    labels = labels_of(pr)
    if pr.vector_output:
        raise UndefinedQuantity("MeanDirDefect (the binary case)")
    sums = np.stack([pr.X[labels == 0].sum(axis=0), pr.X[labels == 1].sum(axis=0)])
    target = sums[np.where(tr.a > 0, 0, 1)]  # (T, p, d)
    norms = tr.neuron_norms
    with np.errstate(divide="ignore", invalid="ignore"):
        cos = np.sum(tr.W * target, axis=-1) / (norms * np.linalg.norm(target, axis=-1))
    live = np.any(tr.activation, axis=-1) & (norms > 0)
    values = np.max(np.where(live, 1.0 - cos, 0.0), axis=-1)
    return Series(values, 2.0 * relative_floor(tr, 1.0) + ROUNDING, np.full(len(tr.t),
                                                                             ROUNDING))


def _shares_and_target(tr: Trajectory) -> tuple[np.ndarray, np.ndarray]:
    g = groups(tr)
    geo = geometry(tr.problem)
    if "gamma" not in geo:
        raise UndefinedQuantity("ShareGap (a class whose hull contains the origin)")
    K = geo["gamma"].size
    if not all(np.any(g == k) for k in range(K)):
        raise UndefinedQuantity("ShareGap (a class with no neuron in its group)")
    return mc.group_shares(tr.W, tr.a, g), geo["pred_shares"]


def _share_gap(tr: Trajectory) -> Series:
    """max_k |share_k(t) - 2 s_k^2| (Theorem 1 (6)): the shares are of degree 0 in the
    weights, a relative error rho moving each by at most 4 rho."""
    shares, target = _shares_and_target(tr)
    values = np.max(np.abs(shares - target), axis=-1)
    return Series(values, relative_floor(tr, 4.0), np.full(len(tr.t), ROUNDING))


def _misalign_max(tr: Trajectory) -> Series:
    """max_k |P_perp(u_k) W_k|_F/|W_k|_F over the groups (binary: N~_+-; K classes: N_k)."""
    g = groups(tr)
    geo = geometry(tr.problem)
    if "U" not in geo:
        raise UndefinedQuantity("MisalignMax (a class whose hull contains the origin)")
    present = [k for k in range(geo["U"].shape[0]) if np.any(g == k)]
    if not present:
        raise UndefinedQuantity("MisalignMax (no neuron in any group)")
    values = np.max(mc.misalignment(tr.W, g, geo["U"])[:, present], axis=-1)
    return _series(tr, values, 2.0, offset=1.0)


def _pseudo_label_gap(tr: Trajectory) -> Series:
    """1 - min_k min_{j in N_k} <e~_k, v_j/|v_j|> (Proposition 2: -> 0)."""
    s = _min_pseudo_align(tr)
    return Series(1.0 - s.values, s.roundoff, s.rounding)


def _nc3(tr: Trajectory) -> Series:
    """NC3 (normalised reading, `multiclass.nc3`) of the vector output: a ratio of matrices
    of degree 0 in the weights' scale, moved by at most about 8 rho by a relative error rho
    of the state (the class-mean directions and V each by 2 rho, their normalisations as
    much again), plus rounding."""
    labels = _k_class(tr.problem)
    values = mc.nc3(tr.a, _features(tr), labels)
    values = np.where(np.isfinite(values), values, np.nan)
    return Series(values, relative_floor(tr, 8.0) + ROUNDING, np.full(len(tr.t), ROUNDING))


def _angular_rate_error(tr: Trajectory) -> np.ndarray:
    """A bound on the error of every neuron's angular velocities (dw^_j/dt, dv^_j/dt) of the
    softmax cross-entropy, per time: dw_j/dt = -sum_i xi_ij <g_i, v_j> x_i and dv_j/dt =
    -sum_i relu(z_ij) g_i with g_i = softmax(f_i) - e_(y_i), whose Jacobian in f_i has norm at
    most 1/2, so g_i moves by at most e_f/2 (e_f the outputs' error, `output_error`), and
    each factor v_j, w_j by the state's relative error rho; over the neuron's norm, times the
    imbalance max(|v_j|, |w_j|)/min(|v_j|, |w_j|)."""
    from numerics import network

    g = np.linalg.norm(network.loss_derivative(tr.problem, tr.outputs), axis=-1).max(axis=-1)
    rho = relative_floor(tr, 1.0)
    x_sum = float(np.sum(np.linalg.norm(tr.problem.X, axis=1)))
    wn, vn = tr.neuron_norms, np.linalg.norm(tr.a, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.max(np.maximum(wn, vn) / np.minimum(wn, vn), axis=-1)
    out = (0.5 * output_error(tr, labels=False) + 2.0 * rho * g) * x_sum * ratio
    return np.where(np.isnan(out), np.inf, out)


def _angular_residual(tr: Trajectory) -> Series:
    """Lemma 3's largest residual of the early angular dynamics (16)-(17)
    (`multiclass.angular_residual`, from the flow's own velocity). Its error: the velocity's
    own over the neuron's norm, and the state's
    relative error through the rates and targets (degree 0, four times rho their size); the
    velocity's error (`_angular_rate_error`)."""
    labels = _k_class(tr.problem)
    vW, vV = tr.velocity
    res_w, res_v = mc.angular_residual(tr.problem.X, labels, tr.W, tr.a, vW, vV)
    values = np.max(np.maximum(res_w, res_v), axis=-1)
    field = _angular_rate_error(tr)
    X = tr.problem.X
    size = float(np.sum(np.linalg.norm(X, axis=1)) * (1.0 + np.max(np.linalg.norm(X, axis=1))))
    return Series(values, relative_floor(tr, 4.0) * size + field, ROUNDING * size * np.ones(
        len(tr.t)))


def _alignment_along(tr: Trajectory) -> dict:
    labels = _k_class(tr.problem)
    return mc.alignment_along(tr.problem.X, labels, tr.W, groups(tr))


def _a4_count_min(tr: Trajectory) -> Series:
    """min over neurons of |I_k^w|^2 - sum_{k' != k} |I_k'^w|^2 with the neuron's own group
    (Assumption 4's first margin, along the run). Counts: their error is the companion's."""
    values = np.min(_alignment_along(tr)["count_margin"], axis=-1)
    return Series(values, np.zeros_like(values), np.zeros_like(values))


def _align_error(tr: Trajectory) -> np.ndarray:
    """The error of an aggregate alignment A_k (a sum of <x_i, w^_j> over active points,
    degree 0): each term moves by at most 2 rho |x_i|, a point at its kink adds nothing
    (its alpha_i is 0 there)."""
    total = float(np.sum(np.linalg.norm(tr.problem.X, axis=1)))
    return 3.0 * total * (relative_floor(tr, 2.0) + ROUNDING)


def _a4_align_min(tr: Trajectory) -> Series:
    """min over neurons of A_k - 2 sum_{k' != k} A_k' (Assumption 4's second margin)."""
    values = np.min(_alignment_along(tr)["align_margin"], axis=-1)
    return Series(values, _align_error(tr), np.full(len(tr.t), ROUNDING))


def _align_excess_min(tr: Trajectory) -> Series:
    """min over neurons of [A_k - 2 sum A_k'](t) - [same](0) (Lemma 4: does not fall)."""
    margin = _alignment_along(tr)["align_margin"]
    values = np.min(margin - margin[0], axis=-1)
    return Series(values, 2.0 * _align_error(tr), np.full(len(tr.t), ROUNDING))


def _count_violations(tr: Trajectory) -> Series:
    """The number of (j, k) with a class-k point lost by neuron j of N_k, or a point of
    another class k gained, against t = 0 (Lemma 4, part 3)."""
    q = _alignment_along(tr)
    counts = q["counts"]
    own = np.eye(counts.shape[-1], dtype=bool)[groups(tr)]  # (p, K)
    lost = own & (counts < counts[0])
    gained = ~own & (counts > counts[0])
    values = np.sum(lost | gained, axis=(-2, -1)).astype(float)
    return Series(values, np.zeros_like(values), np.zeros_like(values))


TRAJECTORY = {
    "MeanDirDefect": _mean_dir_defect,
    "ShareGap": _share_gap,
    "MisalignMax": _misalign_max,
    "PseudoLabelGap": _pseudo_label_gap,
    "NC3": _nc3,
    "AngularResidual": _angular_residual,
    "A4CountMin": _a4_count_min,
    "A4AlignMin": _a4_align_min,
    "AlignExcessMin": _align_excess_min,
    "CountViolations": _count_violations,
    "BlockMismatch": _block_mismatch,
    "MinPseudoAlign": _min_pseudo_align,
    "MaxOutNorm": _max_out_norm,
    "SharePlus": lambda tr: _share(tr, 0),
    "ShareMinus": lambda tr: _share(tr, 1),
    "MisalignPlus": lambda tr: _misalign(tr, 0),
    "MisalignMinus": lambda tr: _misalign(tr, 1),
    "CrossOverlap": _cross_overlap,
    "NumInSMinus": lambda tr: _num_in(tr, CONE_MINUS),
    "NC1": lambda tr: _nc(tr, "NC1"),
    "NC2": lambda tr: _nc(tr, "NC2"),
    "MarginPlus": lambda tr: _margin(tr, 0),
    "MarginMinus": lambda tr: _margin(tr, 1),
    "NormThetaSq": _norm_theta_sq,
    "dNormThetaSq": _d_norm_theta_sq,
    "SmoothMargin": _smooth_margin,
    "dSmoothMargin": _d_smooth_margin,
    "DecouplingGap": _decoupling_gap,
    "GramImbalance": _gram_imbalance,
}

# measured on a vector output's run too (the K-class case); the rest are the binary case's
VECTOR_OUTPUT = frozenset({"BlockMismatch", "MinPseudoAlign", "MaxOutNorm", "NC1", "NC2",
                           "CrossOverlap", "ShareGap", "MisalignMax", "PseudoLabelGap", "NC3",
                           "AngularResidual", "A4CountMin", "A4AlignMin", "AlignExcessMin",
                           "CountViolations", "NormThetaSq"})
