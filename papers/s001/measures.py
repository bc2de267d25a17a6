"""S001 (Min, Mallada, Vidal): numbers for the vocabulary names its claims use.

Conventions (papers/s001/claims.py): V_+- = {j : sign a_j(0) = +-1}; the cones S_+, S_-,
S_dead of Trajectory.cones; x_+- = sum of each class's inputs; x_a(w) = sum over
the samples active on w of y_i x_i; V^_+- = the neurons in S_+- at the end of the
run (the paper's {j : w_j(t_1) in S_+-} once the run is past t_1, S_+- trap).

Event-log quantities (crossings, cone exits, dwell times) replay the exact flow's
located activation changes (``Trajectory.events``) from the initial pattern, so
they see every crossing, not only those between saved times; a run without an
event log (gradient descent) falls back to the patterns at the saved times.
Counts are exact integers (round-off floor 0); their numerical error is the
difference to the companion run, which the check adds.

Time derivatives ("dF") are computed from the exact flow field at the saved state,
never by finite differences (THEORY CF-12).

Length (~520 lines): S001's cones, alignment cosines and their replay at activation
events, one measurement per vocabulary name, each with its round-off.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from numerics import Problem, Trajectory, network
from numerics.trajectory import CONE_DEAD, CONE_MINUS, CONE_OTHER, CONE_PLUS
from verify.language.measures import (
    ERROR_SAFETY,
    FLOAT_EPS,
    ROUNDOFF_ULPS,
    Series,
    UndefinedQuantity,
    loss_curvature,
    neuron_velocity_error,
    output_error,
    output_gradient_bound,
    output_rounding,
    relative_floor,
    velocity_error,
    velocity_rounding,
)

ULP = ROUNDOFF_ULPS * FLOAT_EPS
# samples drawn for the sampled geometric constants (Lemmas 5 and 9)
GEOMETRY_SAMPLES = 4000


# -- instance quantities ---------------------------------------------------------------------
def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def class_sums(pr: Problem) -> tuple[np.ndarray, np.ndarray]:
    """x_+ and x_- (sums of each class's inputs, no labels)."""
    return pr.X[pr.y > 0].sum(axis=0), pr.X[pr.y < 0].sum(axis=0)


def _zeta_2(pr: Problem) -> float:
    xp, xm = class_sums(pr)
    worst = 0.0
    for sign, target in ((1.0, xm), (-1.0, xp)):
        idx = np.sign(pr.a0) == sign
        if not idx.any() or np.linalg.norm(target) == 0:
            continue
        cos = _unit(pr.W0[idx]) @ _unit(target)
        worst = max(worst, float(cos.max()))
    return 1.0 - worst**2


def _zeta1_max(pr: Problem) -> float:
    """Largest zeta whose caps around x_+ (x_-) lie in S_+ (S_-), present classes only."""
    best = 1.0
    for target, sign in zip(class_sums(pr), (1.0, -1.0), strict=True):
        if not np.any(np.sign(pr.y) == sign):
            continue
        cos = _unit(pr.X) @ _unit(target)
        right = np.where(np.sign(pr.y) == sign, cos > 0, cos < 0)
        if not right.all():
            return 0.0
        best = min(best, float(np.min(cos**2)))
    return best


def _signed_rays(pr: Problem) -> np.ndarray:
    return _unit(pr.y[:, None] * pr.X)


@lru_cache(maxsize=256)
def _cone_samples(pr: Problem) -> np.ndarray:
    """Unit vectors of K = cone{x_i y_i}: random conic combinations, half of them sparse
    (heavy-tailed weights, so that directions near the extreme rays are represented).

    Every weight is at least 1e-3 of the largest: the samples stay strictly inside K, so
    sampled cosines exceed their infimum by more than round-off (an infimum attained on
    the extreme rays would otherwise be compared with mu to the last bit)."""
    rng = np.random.default_rng(12345)
    R = _signed_rays(pr)
    n = R.shape[0]
    dense = rng.exponential(size=(GEOMETRY_SAMPLES // 2, n))
    sparse = rng.exponential(size=(GEOMETRY_SAMPLES // 2, n)) ** 8
    weights = np.concatenate([dense, sparse])
    weights = weights + 1e-3 * weights.max(axis=1, keepdims=True)
    return _unit(weights @ R)


def _cone_cos_min(pr: Problem) -> float:
    Z = _cone_samples(pr)
    return float(np.min(Z @ Z.T))


def _xi_max(pr: Problem) -> float:
    """1 - sup |cos(z1, z2)|^2 over sampled z1 in K and z2 outside S_+ and S_-.

    z2 is sampled where the supremum lives: z1 projected onto a hyperplane x_i^perp (just
    past it, so z2 leaves the cone), plus random directions outside both cones."""
    Z1 = _cone_samples(pr)[:800]
    R = _signed_rays(pr)
    pos = pr.y > 0
    candidates = []
    for i in range(R.shape[0]):
        r = R[i]
        proj = Z1 - np.outer(Z1 @ r, r)
        candidates.append(proj - 1e-9 * r)
    rng = np.random.default_rng(54321)
    candidates.append(rng.standard_normal((GEOMETRY_SAMPLES, pr.d)))
    Z2 = np.concatenate(candidates)
    Z2 = Z2[np.linalg.norm(Z2, axis=1) > 0]
    act = (Z2 @ pr.X.T) > 0
    outside = ~np.all(act == pos, axis=1) & ~np.all(act == ~pos, axis=1)
    Z2 = _unit(Z2[outside])
    if Z2.size == 0:
        return 1.0
    sup = float(np.max(np.abs(Z1 @ Z2.T)))
    return 1.0 - sup**2


def _scale(pr: Problem) -> float:
    if pr.init_scale is None:
        raise UndefinedQuantity("Wmin/Wmax (the Problem records no init_scale)")
    return float(pr.init_scale)


def _active_own_class(pr: Problem, sign: float) -> int:
    Z0 = pr.W0 @ pr.X.T
    own = np.sign(pr.y) == sign
    if not own.any():
        return 0
    mine = np.sign(pr.a0) == sign
    return int(np.sum(mine & np.any(Z0[:, own] > 0, axis=1)))


INSTANCE = {
    "zeta_2": _zeta_2,
    "Zeta1Max": _zeta1_max,
    "XiMax": _xi_max,
    "ConeCosMin": _cone_cos_min,
    "Wmin": lambda pr: float(np.linalg.norm(pr.W0, axis=1).min() / _scale(pr)),
    "Wmax": lambda pr: float(np.linalg.norm(pr.W0, axis=1).max() / _scale(pr)),
    "NumVPlus": lambda pr: float(np.sum(pr.a0 > 0)),
    "NumVMinus": lambda pr: float(np.sum(pr.a0 < 0)),
    "NumVPlusActive": lambda pr: float(_active_own_class(pr, 1.0)),
    "NumVMinusActive": lambda pr: float(_active_own_class(pr, -1.0)),
    "NumAliveInit": lambda pr: float(np.sum(np.any(pr.W0 @ pr.X.T > 0, axis=1))),
}

ENSEMBLE = {
    "PActivePlus": lambda pr: _active_own_class(pr, 1.0) >= 1,
    "PActiveMinus": lambda pr: _active_own_class(pr, -1.0) >= 1,
}


# -- helpers on runs -------------------------------------------------------------------------
def _times(floor: np.ndarray, values: np.ndarray) -> np.ndarray:
    """floor * |values|, 0 where values are 0 (a run without companion has an infinite
    floor, and inf * 0 is not a number)."""
    values = np.abs(values)
    with np.errstate(invalid="ignore"):
        return np.where(values > 0, floor * values, 0.0)


def _rel(tr: Trajectory, values: np.ndarray, degree: float) -> Series:
    return Series(values, _times(relative_floor(tr, degree), values))


def _signs0(tr: Trajectory) -> np.ndarray:
    return np.sign(tr.problem.a0)


def _x_a(tr: Trajectory) -> np.ndarray:
    """x_a(w_j(t)) = sum_{i active} y_i x_i, shape (T, p, d)."""
    pr = tr.problem
    return np.einsum("kji,i,id->kjd", tr.activation.astype(float), pr.y, pr.X)


def _field(tr: Trajectory) -> tuple[np.ndarray, np.ndarray]:
    """(dW/dt, da/dt) of the flow at every saved state: the velocity the run moved with
    (`numerics.Trajectory.velocity`: the Filippov velocity where pairs slide)."""
    return tr.velocity


def _directions(tr: Trajectory) -> np.ndarray:
    norms = tr.neuron_norms[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(norms > 0, tr.W / norms, 0.0)


def _direction_rates(tr: Trajectory) -> tuple[np.ndarray, np.ndarray]:
    """(w^_j, d/dt w^_j) with d/dt w^ = (I - w^ w^T)(dw/dt)/||w|| (CF-12)."""
    U = _directions(tr)
    dW, _ = _field(tr)
    norms = tr.neuron_norms[..., None]
    radial = np.sum(dW * U, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(norms > 0, (dW - radial * U) / norms, 0.0)
    return U, rate


def _imbalance(tr: Trajectory) -> np.ndarray:
    """|a_j|/||w_j|| - 1 per neuron and time: exactly 0 on the balanced flow, so on a run it
    is the run's own error in the ratio the directional ODE (4) depends on linearly."""
    norms = tr.neuron_norms
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(norms > 0, np.abs(np.abs(tr.a) / norms - 1.0), 0.0)


def _deviation_floor(tr: Trajectory, scale: np.ndarray, err: np.ndarray) -> np.ndarray:
    """Error floor of a deviation from eq. (4) per neuron: rounding of O(scale) vectors, the
    run's balance error (|a_j|/||w_j|| - 1) times scale, and the state's relative error
    moving the O(|f|) deviation itself (degree 2)."""
    own = (ULP + ERROR_SAFETY * _imbalance(tr)) * scale
    return own + _times(relative_floor(tr, 2.0)[:, None], err)


def _dir_error(tr: Trajectory) -> Series:
    U, rate = _direction_rates(tr)
    xa = _x_a(tr)
    target = xa - np.sum(xa * U, axis=-1, keepdims=True) * U
    err = np.linalg.norm(rate - _signs0(tr)[None, :, None] * target, axis=-1)
    scale = np.linalg.norm(xa, axis=-1) + np.linalg.norm(rate, axis=-1)
    floor = _deviation_floor(tr, scale, err)
    return Series(err.max(axis=-1), floor.max(axis=-1))


def _psi_error(tr: Trajectory) -> Series:
    U, rate = _direction_rates(tr)
    xa = _x_a(tr)
    na = np.linalg.norm(xa, axis=-1)  # (T, p)
    with np.errstate(divide="ignore", invalid="ignore"):
        xa_hat = np.where(na[..., None] > 0, xa / na[..., None], 0.0)
    Xh = _unit(tr.problem.X)  # (n, d)
    psi_rj = np.einsum("id,kjd->kji", Xh, U)
    psi_ra = np.einsum("id,kjd->kji", Xh, xa_hat)
    psi_aj = np.sum(xa_hat * U, axis=-1)[..., None]
    dpsi = np.einsum("id,kjd->kji", Xh, rate)
    model = _signs0(tr)[None, :, None] * (psi_ra - psi_rj * psi_aj) * na[..., None]
    err = np.abs(dpsi - model).max(axis=-1)  # (T, p)
    scale = na + np.linalg.norm(rate, axis=-1)
    floor = _deviation_floor(tr, scale, err)
    return Series(err.max(axis=-1), floor.max(axis=-1))


def _xa_per_sample(tr: Trajectory) -> Series:
    xa = np.linalg.norm(_x_a(tr), axis=-1)
    count = tr.activation.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(count > 0, xa / count, np.inf)
    values = ratio.min(axis=-1)
    return Series(values, ULP * np.where(np.isfinite(values), values, 0.0))


def replay_crossings(tr: Trajectory) -> dict:
    """Replay the activation changes: per event the pattern before and after.

    Returns times of events and, per event, (neuron, sample, direction, old cone, new
    cone); plus the initial pattern. Without an event log, consecutive saved patterns
    are diffed instead (every change stamped at the later saved time)."""
    pr = tr.problem
    act = (pr.W0 @ pr.X.T) > 0
    events = sorted(tr.events, key=lambda e: e.t)
    if not events and len(tr.t) > 1 and not tr.method.startswith("exact"):
        A = tr.activation
        diff = np.argwhere(A[1:] != A[:-1])
        events = [type("E", (), {"t": float(tr.t[k + 1]), "neuron": int(j), "sample": int(i),
                                 "direction": 1 if A[k + 1, j, i] else -1})()
                  for k, j, i in diff]
    pos = pr.y > 0
    rows = []
    for e in events:
        j, i = e.neuron, e.sample
        old = cone_of(act[j], pos)
        old_count = int(act[j].sum())
        act[j, i] = e.direction > 0
        rows.append((e.t, j, i, e.direction, old, cone_of(act[j], pos), old_count))
    return {"rows": rows, "init": (pr.W0 @ pr.X.T) > 0}


def cone_of(pattern: np.ndarray, pos: np.ndarray) -> int:
    if not pattern.any():
        return CONE_DEAD
    if np.array_equal(pattern, pos):
        return CONE_PLUS
    if np.array_equal(pattern, ~pos):
        return CONE_MINUS
    return CONE_OTHER


def _cumulative(tr: Trajectory, event_times: list[float], increments: list[float]) -> Series:
    times = np.asarray(event_times, dtype=float)
    inc = np.asarray(increments, dtype=float)
    csum = np.concatenate([[0.0], np.cumsum(inc)]) if inc.size else np.zeros(1)
    k = np.searchsorted(times, tr.t, side="right") if times.size else np.zeros(len(tr.t), int)
    values = csum[k]
    return Series(values, np.zeros_like(values))


def _wrong_way(tr: Trajectory) -> Series:
    rep = replay_crossings(tr)
    s, y = _signs0(tr), tr.problem.y
    wrong = [float(s[j] * y[i] * d < 0) for (_, j, i, d, *_rest) in rep["rows"]]
    return _cumulative(tr, [r[0] for r in rep["rows"]], wrong)


def _max_crossings(tr: Trajectory) -> Series:
    rep = replay_crossings(tr)
    counts: dict[tuple[int, int], int] = {}
    times, incs, current = [], [], 0
    for t, j, i, *_ in rep["rows"]:
        counts[(j, i)] = counts.get((j, i), 0) + 1
        if counts[(j, i)] > current:
            times.append(t)
            incs.append(counts[(j, i)] - current)
            current = counts[(j, i)]
    return _cumulative(tr, times, incs)


def _traps(cone: int, sign: float) -> bool:
    return cone == CONE_DEAD or (cone == CONE_PLUS and sign > 0) or (
        cone == CONE_MINUS and sign < 0)


def _dead_exits(tr: Trajectory) -> Series:
    rows = replay_crossings(tr)["rows"]
    exits = [float(old == CONE_DEAD and new != CONE_DEAD) for (_, _, _, _, old, new, _) in rows]
    return _cumulative(tr, [r[0] for r in rows], exits)


def _cone_exits(tr: Trajectory) -> Series:
    rows = replay_crossings(tr)["rows"]
    s = _signs0(tr)
    exits = [float(_traps(old, s[j]) and new != old) for (_, j, _, _, old, new, _) in rows]
    return _cumulative(tr, [r[0] for r in rows], exits)


def unsorted_mask(cones: np.ndarray, signs: np.ndarray) -> np.ndarray:
    home = np.where(signs > 0, CONE_PLUS, CONE_MINUS)[None, :]
    return (cones != CONE_DEAD) & (cones != home)


def _dwell_na(tr: Trajectory) -> Series:
    """max over unsorted neurons (V_+ outside S_+ and S_dead, V_- likewise) of the time
    spent in one activation pattern times its n_a, intervals still open included."""
    pr = tr.problem
    s = _signs0(tr)
    pos = pr.y > 0
    act = (pr.W0 @ pr.X.T) > 0
    start = np.zeros(pr.p)
    unsorted = np.array([cone_of(act[j], pos) not in (CONE_DEAD, _home(s[j]))
                         for j in range(pr.p)])
    rows = replay_crossings(tr)["rows"]
    values = np.zeros(len(tr.t))
    best_closed, r = 0.0, 0
    for k, tk in enumerate(tr.t):
        while r < len(rows) and rows[r][0] <= tk:
            t, j, i, direction, _old, new, _ = rows[r]
            if unsorted[j]:
                best_closed = max(best_closed, (t - start[j]) * act[j].sum())
            act[j, i] = direction > 0
            start[j] = t
            unsorted[j] = new not in (CONE_DEAD, _home(s[j]))
            r += 1
        ongoing = [(tk - start[j]) * act[j].sum() for j in np.flatnonzero(unsorted)]
        values[k] = max([best_closed, *ongoing])
    located = tr.method in ("exact_flow", "high_precision_flow")
    # gradient descent locates no event: a change is seen at the next saved time, so each
    # end of an interval is known to the spacing of the saved times
    spacing = 0.0 if located or len(tr.t) < 2 else float(np.max(np.diff(tr.t)))
    return Series(values, ULP * (values + tr.t) + 2 * spacing * pr.n)


def _home(sign: float) -> int:
    return CONE_PLUS if sign > 0 else CONE_MINUS


def _unsorted(tr: Trajectory) -> Series:
    values = unsorted_mask(tr.cones, _signs0(tr)).sum(axis=-1).astype(float)
    return Series(values, np.zeros_like(values))


def _lost(tr: Trajectory) -> Series:
    pr = tr.problem
    Z0 = pr.W0 @ pr.X.T
    s = _signs0(tr)
    own = np.sign(pr.y)[None, :] == s[:, None]
    started = np.any((Z0 > 0) & own, axis=1)
    values = np.sum((tr.cones == CONE_DEAD) & started[None, :], axis=-1).astype(float)
    return Series(values, np.zeros_like(values))


def vhat(tr: Trajectory, cone: int) -> np.ndarray:
    """V^_+- : neurons in S_+ (cone=CONE_PLUS) or S_- at the end of the run."""
    return np.flatnonzero(tr.cones[-1] == cone)


def _sq_norms(tr: Trajectory) -> np.ndarray:
    return np.exp(2.0 * tr.log_neuron_norms)


def _norm_sq_vhat(tr: Trajectory, cone: int) -> Series:
    idx = vhat(tr, cone)
    return _rel(tr, _sq_norms(tr)[:, idx].sum(axis=-1), 2.0)


def _d_norm_sq_vhat(tr: Trajectory, cone: int) -> Series:
    """d/dt sum_{V^} ||w_j||^2 = sum 2 <w_j, dw_j/dt> (exact field)."""
    idx = vhat(tr, cone)
    dW, _ = _field(tr)
    terms = 2.0 * np.sum(tr.W[:, idx] * dW[:, idx], axis=-1)
    values = terms.sum(axis=-1)
    mag = np.abs(terms).sum(axis=-1)
    # the velocity's own error (its residual factor is a cancellation, absolute in size)
    w_norm = np.sqrt(np.sum(tr.neuron_norms[:, idx] ** 2, axis=-1))
    field = 2.0 * w_norm * velocity_error(tr)
    return Series(values, ULP * mag + _times(relative_floor(tr, 3.0), mag) + field,
                  ULP * mag + 2.0 * w_norm * velocity_rounding(tr))


def _class_loss_terms(tr: Trajectory, sign: float) -> np.ndarray:
    """The loss's terms of the samples of one class (their sum over both classes is L)."""
    pr = tr.problem
    sel = np.sign(pr.y) == sign
    if pr.loss == "square":
        return pr.loss_scale * 0.5 * (pr.y[sel] - tr.outputs[:, sel]) ** 2 / pr.n
    m = pr.y[sel] * tr.outputs[:, sel]
    if pr.loss == "exponential":
        return pr.loss_scale * np.exp(-m)
    return pr.loss_scale * np.logaddexp(0.0, -m)


def _class_loss(tr: Trajectory, sign: float) -> Series:
    pr = tr.problem
    sel = np.sign(pr.y) == sign
    terms = _class_loss_terms(tr, sign)
    # dl/dh is bounded by loss_scale * exp(-m) (exp) or loss_scale (logistic)
    e_h, r_h = output_error(tr), output_rounding(tr)
    slope = np.max(np.abs(network.loss_derivative(pr, tr.outputs)[:, sel]), axis=-1,
                   initial=0.0)
    curve = np.max(loss_curvature(tr)[:, sel], axis=-1, initial=0.0)
    with np.errstate(invalid="ignore"):  # a companion's own floors are infinite
        error = sel.sum() * (slope * e_h + curve * e_h**2)
        rounding = sel.sum() * (slope * r_h + curve * r_h**2)
    return Series(terms.sum(axis=-1), ULP * terms.sum(axis=-1) + error,
                  ULP * terms.sum(axis=-1) + rounding)


def _d_class_loss(tr: Trajectory, sign: float) -> Series:
    """d/dt sum_{sign y_i = sign} l(y_i, h(x_i)) = sum_i g_i dh_i/dt (exact field)."""
    pr = tr.problem
    sel = np.sign(pr.y) == sign
    dW, da = _field(tr)
    Z = tr.preactivations
    A = tr.activation.astype(float)
    dZ = dW @ pr.X.T
    dh = pr.output_factor * (np.einsum("kj,kji->ki", da, A * Z)
                             + np.einsum("kj,kji->ki", tr.a, A * dZ))
    g = network.loss_derivative(pr, tr.outputs)
    terms = (g * dh)[:, sel]
    values = terms.sum(axis=-1)
    mag = np.abs(terms).sum(axis=-1)
    # g_i moves with the outputs' error (times the loss's curvature); dh_i with the
    # velocity's error through |grad h(x_i)|
    G = output_gradient_bound(tr)
    curve = loss_curvature(tr)[:, sel]

    def product_error(e_h, dv):  # |d(g dh)| <= |dg| |dh| + |g| |d dh| + |dg| |d dh|
        with np.errstate(invalid="ignore"):
            return (np.sum(curve * np.abs(dh[:, sel]), axis=-1) * e_h
                    + np.sum(np.abs(g[:, sel]), axis=-1) * G * dv
                    + np.sum(curve, axis=-1) * e_h * G * dv)

    own = product_error(output_error(tr), velocity_error(tr))
    rounding = product_error(output_rounding(tr), velocity_rounding(tr))
    return Series(values, ULP * mag + _times(relative_floor(tr, 4.0), mag) + own,
                  ULP * mag + rounding)


def _class_output(tr: Trajectory, cone: int) -> Series:
    """max over the class of |f_+-(x_i)|, f_+- the output of the neurons of V^_+-."""
    pr = tr.problem
    idx = vhat(tr, cone)
    sel = (pr.y > 0) if cone == CONE_PLUS else (pr.y < 0)
    A = tr.activation[:, idx].astype(float)
    f = pr.output_factor * np.einsum("kj,kji->ki", tr.a[:, idx], A * tr.preactivations[:, idx])
    values = np.max(np.abs(f[:, sel]), axis=-1, initial=0.0)
    return Series(values, _times(relative_floor(tr, 2.0), values) + ULP * values)


def _cos_vhat_plus(tr: Trajectory) -> Series:
    idx = vhat(tr, CONE_PLUS)
    xp, _ = class_sums(tr.problem)
    if idx.size == 0 or np.linalg.norm(xp) == 0:
        nan = np.full(len(tr.t), np.nan)
        return Series(nan, nan)
    values = np.min(tr.alignment(xp)[:, idx], axis=-1)
    return Series(values, relative_floor(tr, 2.0) + ULP)


def _max_abs_h(tr: Trajectory) -> Series:
    """max_i |f(x_i)|, with a floor relative to f itself (degree 2 in the weights) plus the
    rounding of the sum over neurons (terms of either sign)."""
    pr = tr.problem
    terms = np.abs(tr.a)[..., None] * np.abs(np.where(tr.activation, tr.preactivations, 0.0))
    values = np.max(np.abs(tr.outputs), axis=-1)
    rounding = ULP * pr.output_factor * terms.sum(axis=-2).max(axis=-1)
    floor = _times(relative_floor(tr, 2.0), values) + rounding
    return Series(values, floor)


def _radial_angular(tr: Trajectory):
    """Per time and neuron: (|<w_j', w^_j>|, ||(I - w^ w^T) w_j'|| / ||w_j||, their errors),
    w_j' = dw_j/dt = -kappa grad_{w_j} L (kappa = 1 here: the paper's -grad_{w_j} L), from
    the exact gradient at the saved state. Errors: the velocity's (`neuron_velocity_error`)
    and the direction's (the state's relative error, `relative_floor`) to first order."""
    vW, _ = tr.velocity
    norms = tr.neuron_norms
    speed = np.linalg.norm(vW, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        U = np.where(norms[..., None] > 0, tr.W / norms[..., None], 0.0)
        radial = np.einsum("tjd,tjd->tj", vW, U)
        perp = np.linalg.norm(vW - radial[..., None] * U, axis=-1)
        dv = neuron_velocity_error(tr)
        rho = relative_floor(tr, 1.0)[:, None]
        radial_err = dv + 2.0 * rho * speed
        angular = np.where(norms > 0, perp / norms, np.inf)
        angular_err = np.where(norms > 0, (dv + 3.0 * rho * speed) / norms, np.inf)
    return np.abs(radial), radial_err, angular, angular_err


def _norm_change(tr: Trajectory) -> Series:
    """S001 A.5's "norm change" sum_j |<-grad_{w_j} L, w^_j>| (Fig. 12-13)."""
    radial, err, _, _ = _radial_angular(tr)
    return Series(radial.sum(axis=-1), err.sum(axis=-1))


def _dir_change(tr: Trajectory) -> Series:
    """S001 A.5's "direction change" sum_j ||(I - w^_j w^_j^T)(-grad_{w_j} L)|| / ||w_j||."""
    _, _, angular, err = _radial_angular(tr)
    return Series(angular.sum(axis=-1), err.sum(axis=-1))


TRAJECTORY = {
    "NormChange": _norm_change,
    "DirChange": _dir_change,
    "MaxAbsH": _max_abs_h,
    "DirError": _dir_error,
    "PsiError": _psi_error,
    "XaPerSample": _xa_per_sample,
    "WrongWayCrossings": _wrong_way,
    "MaxCrossings": _max_crossings,
    "DwellNa": _dwell_na,
    "Unsorted": _unsorted,
    "LostNeurons": _lost,
    "DeadExits": _dead_exits,
    "ConeExits": _cone_exits,
    "NormSqVhatPlus": lambda tr: _norm_sq_vhat(tr, CONE_PLUS),
    "NormSqVhatMinus": lambda tr: _norm_sq_vhat(tr, CONE_MINUS),
    "dNormSqVhatPlus": lambda tr: _d_norm_sq_vhat(tr, CONE_PLUS),
    "dNormSqVhatMinus": lambda tr: _d_norm_sq_vhat(tr, CONE_MINUS),
    "LPlus": lambda tr: _class_loss(tr, 1.0),
    "LMinus": lambda tr: _class_loss(tr, -1.0),
    "dLPlus": lambda tr: _d_class_loss(tr, 1.0),
    "dLMinus": lambda tr: _d_class_loss(tr, -1.0),
    "OutPlus": lambda tr: _class_output(tr, CONE_PLUS),
    "OutMinus": lambda tr: _class_output(tr, CONE_MINUS),
    "CosVhatPlus": _cos_vhat_plus,
    "NumInSPlus": lambda tr: Series(np.sum(tr.cones == CONE_PLUS, axis=-1).astype(float),
                                    np.zeros(len(tr.t))),
}
