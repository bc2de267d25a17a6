"""CEL23 quantities: vocabulary name -> number (merged into `verify.language.measures` as a pack's
measures module; TRAJECTORY and INSTANCE tables with the contracts documented there).

Instance quantities come from the data, the teacher and the unscaled initialisation
(z_j = w_j(0)/lam, s_j = sign a_j(0)) through `papers.cel23.yardstick`: the eigen-pairs of
H = X^T X/n (D3), the exact yardsticks (D2, section 4.1), delta and Delta (D4), T0 (D5), and
A2's bound (H.3).

Trajectory quantities are read off the run's saved states: the bundle v = sum_{j in J_+}
a_j w_j (D5), its teacher coordinates nu_k = <u_k, v>, the residual gradient g = H (v* - v)
and the ideal velocity f = |v| (g + vbar vbar^T g); time derivatives come from the flow's own
field (`Trajectory.velocity`), never from differences of saved values. Each `Series`
carries the rounding of its formula and the state's relative error propagated to first order
(`relative_floor`, `output_error`, `neuron_velocity_error`); the check adds the difference
to the companion run.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from numerics import Problem, Trajectory
from papers.cel23 import yardstick
from papers.cel23.data import min_teacher_cosine, teacher, unscaled_init
from verify.language.measures import (
    ROUNDING,
    Series,
    UndefinedQuantity,
    neuron_velocity_error,
    output_error,
    output_rounding,
    relative_floor,
)

EPS = 0.25  # the analysis parameter at which CrossingExcess and Log10LamMax are stated
GENERIC_RTOL = 1e-12  # A1's "distinct", "non-zero" and "no tie", relative


# -- instance quantities ------------------------------------------------------------------------
@functools.lru_cache(maxsize=64)
def structure(problem: Problem) -> dict:
    """Everything CEL23 derives from an instance before any training (memoised)."""
    X, y = problem.X, problem.y
    try:
        vstar = teacher(problem)
        Z, s = unscaled_init(problem)
    except KeyError as exc:  # not a CEL23 instance: its quantities are undefined there
        raise UndefinedQuantity(str(exc.args[0])) from None
    eta, U, nu_star = yardstick.eigen(X, vstar)
    J_plus, J_minus = yardstick.sets(X, Z, s)
    out = {"vstar": vstar, "Z": Z, "s": s, "eta": eta, "U": U, "nu_star": nu_star,
           "J_plus": J_plus, "J_minus": J_minus,
           "gamma_n": yardstick.gamma(X, y, np.arange(problem.n))}
    out["a1"], ys = _a1_failure(problem, X, vstar, Z, s, eta, nu_star, J_plus, J_minus)
    if not out["a1"]:
        items = yardstick.delta_items(X, y, vstar, Z, s, ys)
        out.update(ys=ys, delta=items["delta"], Delta=items["Delta"], T0=yardstick.T0(ys))
    return out


def _a1_failure(problem, X, vstar, Z, s, eta, nu_star, J_plus, J_minus):
    """(why Assumption 1 (i)-(iv) fails on the instance or "", the exact yardsticks or None)
    (catalogue CEL23-A1; (iv) is read off the yardsticks' construction)."""
    n, dim = X.shape
    if dim < 2 or np.linalg.matrix_rank(X) < dim:
        return "(i): the data do not span R^d with d > 1", None
    if abs(np.linalg.norm(vstar) - 1.0) > GENERIC_RTOL:
        return "(i): |v*| != 1", None
    if J_plus.size == 0:
        return "(ii): J_+ is empty", None
    cos_zx = (Z @ X.T) / np.outer(np.linalg.norm(Z, axis=1), np.linalg.norm(X, axis=1))
    if np.any(np.abs(cos_zx) <= GENERIC_RTOL):
        return "(ii): a sample lies on a neuron's kink at initialisation", None
    gamma_n = yardstick.gamma(X, problem.y, np.arange(n))
    for j in J_minus:
        cos = Z[j] @ gamma_n / (np.linalg.norm(Z[j]) * np.linalg.norm(gamma_n))
        if 1.0 - cos <= GENERIC_RTOL:
            return "(ii): a negative neuron starts along gamma_[n]", None
    xbar = X / np.linalg.norm(X, axis=1, keepdims=True)
    if n > 1 and np.min(1.0 - np.triu(xbar @ xbar.T, 1)[np.triu_indices(n, 1)]) <= GENERIC_RTOL:
        return "(iii): two samples have the same direction", None
    if np.min(-np.diff(eta)) <= GENERIC_RTOL * eta[0] or np.min(np.abs(nu_star)) <= GENERIC_RTOL:
        return "(iii): H has a repeated eigenvalue or v* misses an eigenvector", None
    try:
        return "", yardstick.yardsticks(X, problem.y, Z, s)
    except ValueError as exc:
        return f"(iv): {exc}", None


def _needs_a1(problem: Problem) -> dict:
    st = structure(problem)
    if st["a1"]:
        raise UndefinedQuantity(f"delta, Delta and T0 (Assumption 1 fails: {st['a1']})")
    return st


def _log10_lam_max(problem: Problem) -> float:
    st = _needs_a1(problem)
    return yardstick.log10_lambda_max(problem.p, problem.n, st["delta"], st["Delta"], EPS)


INSTANCE = {
    "GammaN": lambda pr: float(np.linalg.norm(structure(pr)["gamma_n"])),
    "EtaMax": lambda pr: float(structure(pr)["eta"][0]),
    "EtaMin": lambda pr: float(structure(pr)["eta"][-1]),
    "NuStarLast": lambda pr: float(structure(pr)["nu_star"][-1]),
    "TeacherCosMin": lambda pr: min_teacher_cosine(pr.X, structure(pr)["vstar"]),
    "A1Holds": lambda pr: 0.0 if structure(pr)["a1"] else 1.0,
    "deltaA": lambda pr: float(_needs_a1(pr)["delta"]),
    "DeltaA": lambda pr: float(_needs_a1(pr)["Delta"]),
    "T0": lambda pr: float(_needs_a1(pr)["T0"]),
    "Log10LamMax": _log10_lam_max,
    "NumJPlus": lambda pr: float(structure(pr)["J_plus"].size),
    "EigenRatioMax": lambda pr: float(np.max(structure(pr)["eta"][1:]
                                             / structure(pr)["eta"][:-1])),
    "CShareTop": lambda pr: share_top(pr)[1],
}


# -- the bundle along a run ----------------------------------------------------------------------
class _Bundle:
    """v, dv/dt, g and the teacher coordinates of one run, computed once."""

    def __init__(self, tr: Trajectory):
        st = structure(tr.problem)
        self.st = st
        X, J = tr.problem.X, st["J_plus"]
        vW, va = tr.velocity
        self.v = np.einsum("tj,tjd->td", tr.a[:, J], tr.W[:, J])
        self.dv = (np.einsum("tj,tjd->td", va[:, J], tr.W[:, J])
                   + np.einsum("tj,tjd->td", tr.a[:, J], vW[:, J]))
        H = X.T @ X / tr.problem.n
        self.H = H
        self.gap = st["vstar"] - self.v
        self.g = self.gap @ H  # H symmetric
        self.nu = self.v @ st["U"]
        self.r = self.nu / st["nu_star"]
        self.norm_v = np.linalg.norm(self.v, axis=-1)
        self.rel = relative_floor(tr, 2.0)  # v is quadratic in the weights
        # dv/dt's error: each neuron's velocity error times its other factor
        e_j = neuron_velocity_error(tr)[:, J]
        norms = tr.neuron_norms[:, J]
        self.dv_error = np.sum(2.0 * e_j * norms, axis=-1) + self.rel * np.linalg.norm(
            self.dv, axis=-1)


_BUNDLES: dict[int, tuple[Trajectory, _Bundle]] = {}


def bundle(tr: Trajectory) -> _Bundle:
    hit = _BUNDLES.get(id(tr))
    if hit is not None and hit[0] is tr:
        return hit[1]
    if len(_BUNDLES) > 16:
        _BUNDLES.clear()
    b = _Bundle(tr)
    _BUNDLES[id(tr)] = (tr, b)
    return b


def _scaled(values: np.ndarray, rel: np.ndarray, scale) -> Series:
    """A Series whose error is ``rel`` times ``scale`` (its size), plus rounding."""
    scale = np.abs(scale)
    with np.errstate(invalid="ignore"):
        err = rel * scale + ROUNDING * np.abs(values)
    return Series(values, np.where(np.isnan(err), np.inf, err), ROUNDING * (scale + np.abs(values)))


def _norm_v(tr):
    b = bundle(tr)
    return _scaled(b.norm_v, b.rel, b.norm_v)


def _nu1_ratio(tr):
    b = bundle(tr)
    return _scaled(b.r[:, 0], b.rel, b.r[:, 0])


def _unit(A: np.ndarray) -> np.ndarray:
    return A / np.linalg.norm(A, axis=-1, keepdims=True)


def _misalign(tr):
    J = structure(tr.problem)["J_plus"]
    if J.size < 2:
        z = np.zeros(len(tr.t))
        return Series(z, z.copy(), z.copy())
    Wb = _unit(tr.W[:, J])
    diff = Wb[:, :, None, :] - Wb[:, None, :, :]
    m = 0.5 * np.max(np.sum(diff**2, axis=-1), axis=(-2, -1))  # 1 - cos, without cancellation
    rel = relative_floor(tr, 1.0)
    return Series(m, 4.0 * rel * np.sqrt(m) + ROUNDING, np.full(len(tr.t), ROUNDING))


def _linear_gap(tr):
    b = bundle(tr)
    gap = np.max(np.abs(tr.outputs - b.v @ tr.problem.X.T), axis=-1)
    x_max = float(np.max(np.linalg.norm(tr.problem.X, axis=1)))
    err = output_error(tr, False) + b.rel * b.norm_v * x_max
    return Series(gap, err, output_rounding(tr, False) + ROUNDING * b.norm_v * x_max)


def _grad_spread(tr):
    b = bundle(tr)
    J, X = b.st["J_plus"], tr.problem.X
    active = tr.activation[:, J, :]  # (T, |J|, n)
    gj = np.einsum("tjn,tn,nd->tjd", active, tr.residuals, X) / tr.problem.n
    spread = np.max(np.linalg.norm(gj - b.g[:, None, :], axis=-1), axis=-1)
    x_max = float(np.max(np.linalg.norm(X, axis=1)))
    err = (output_error(tr) + b.rel * b.norm_v * x_max) * x_max * 2.0
    return Series(spread, err, output_rounding(tr) * x_max * 2.0)


def _phase_one_envelope(tr):
    st = structure(tr.problem)
    k = float(np.linalg.norm(st["gamma_n"]))
    ratio = tr.neuron_norms / np.linalg.norm(tr.problem.W0, axis=1)
    vals = np.max(ratio, axis=-1) * np.exp(-k * tr.t)
    return _scaled(vals, relative_floor(tr, 1.0), vals)


def _signed_growth(tr):
    """min over the moving neurons of J_+ and J_- of s_j d|w_j|/dt. A neuron no sample
    activates does not move (relu'(0) = 0, exactly 0 here) and is left out; +1 when none
    moves."""
    st = structure(tr.problem)
    J = np.concatenate([st["J_plus"], st["J_minus"]])
    vW, _ = tr.velocity
    Wb = _unit(tr.W[:, J])
    rate = st["s"][J] * np.sum(Wb * vW[:, J], axis=-1)  # s_j d|w_j|/dt
    moving = np.any(tr.activation[:, J, :], axis=-1)
    err = neuron_velocity_error(tr)[:, J]
    # (a companion run has no error estimate of its own: inf, read as 0 to pick the worst)
    low = np.where(moving, rate - np.where(np.isfinite(err), err, 0.0), np.inf)
    worst = np.argmin(low, axis=-1)
    rows = np.arange(len(tr.t))
    some = moving[rows, worst]
    vals = np.where(some, rate[rows, worst], 1.0)
    return Series(vals, np.where(some, err[rows, worst], 0.0), ROUNDING * np.abs(vals))


def _neg_speed(tr):
    J = structure(tr.problem)["J_minus"]
    if J.size == 0:
        z = np.zeros(len(tr.t))
        return Series(z, z.copy(), z.copy())
    vW, va = tr.velocity
    speed = np.sqrt(np.sum(vW[:, J] ** 2, axis=-1) + va[:, J] ** 2)
    err = np.max(neuron_velocity_error(tr)[:, J], axis=-1)
    return Series(np.max(speed, axis=-1), err, np.zeros(len(tr.t)))


def _neg_norm_ratio(tr):
    J = structure(tr.problem)["J_minus"]
    if J.size == 0:
        z = np.zeros(len(tr.t))
        return Series(z, z.copy(), z.copy())
    ratio = np.max(tr.neuron_norms[:, J] / np.linalg.norm(tr.problem.W0[J], axis=1), axis=-1)
    return _scaled(ratio, relative_floor(tr, 1.0), ratio)


def _cos_gamma_min(tr):
    st = structure(tr.problem)
    g = st["gamma_n"] / np.linalg.norm(st["gamma_n"])
    cos = np.min(_unit(tr.W[:, st["J_plus"]]) @ g, axis=-1)
    return _scaled(cos, 2.0 * relative_floor(tr, 1.0), 1.0)


def _output_ratio(tr):
    structure(tr.problem)  # a CEL23 instance (teacher labels)
    y = tr.problem.y
    if not np.min(y) > 0:
        raise UndefinedQuantity("OutputRatio (a label is not positive)")
    vals = np.max(np.abs(tr.outputs) / y, axis=-1)
    return Series(vals, output_error(tr, False) / y.min(), output_rounding(tr, False) / y.min())


def limit_norms(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """(J_+, C_j/|C| for j in J_+): the normalised neuron norms of CEL23-F7b's lam -> 0 limit
    network, from the yardsticks' growth constants C_j (catalogue section 4.4)."""
    st = _needs_a1(problem)
    J = st["J_plus"]
    C = np.array([st["ys"][int(j)].growth_constant() for j in J])
    return J, C / np.linalg.norm(C)


def _limit_net_gap(tr):
    """max_{j in J_+} | |w_j|/|W_+| - C_j/|C| | (|W_+|^2 = sum over J_+): each norm carries the
    state's relative error, a ratio of two of them twice that, and every ratio is <= 1."""
    J, target = limit_norms(tr.problem)
    norms = tr.neuron_norms[:, J]
    ratio = norms / np.linalg.norm(norms, axis=-1, keepdims=True)
    gap = np.max(np.abs(ratio - target), axis=-1)
    return _scaled(gap, 2.0 * relative_floor(tr, 1.0), 1.0)


def share_top(problem: Problem) -> tuple[int, float]:
    """(j*, C_j*/|C|): the positive neuron with the largest growth constant C_j, and its
    normalised norm in CEL23-F7b's lam -> 0 limit network (catalogue section 4.4)."""
    J, target = limit_norms(problem)
    k = int(np.argmax(target))
    return int(J[k]), float(target[k])


def _norm_share_top(tr):
    """|w_j*|/|W_+| (|W_+|^2 = sum over J_+), j* = argmax_{J_+} C_j: a ratio of norms, so
    twice the state's relative error, and at most 1."""
    j, _ = share_top(tr.problem)
    J = structure(tr.problem)["J_plus"]
    norms = tr.neuron_norms[:, J]
    vals = tr.neuron_norms[:, j] / np.linalg.norm(norms, axis=-1)
    return _scaled(vals, 2.0 * relative_floor(tr, 1.0), 1.0)


def _norm_w_plus_sq(tr):
    """sum_{j in J_+} |w_j|^2: homogeneous of degree 2 in the weights."""
    J = structure(tr.problem)["J_plus"]
    vals = np.sum(tr.neuron_norms[:, J] ** 2, axis=-1)
    return _scaled(vals, relative_floor(tr, 2.0), vals)


def _max_active_angle(tr):
    """The largest angle (radians) between two non-zero hidden neurons that some sample
    activates, 2 arcsin(|wbar_j - wbar_j'|/2) (well conditioned near 0); 0 with fewer than two
    such neurons. A relative error rho of each neuron turns its direction by at most 2 rho,
    so the angle moves by at most 4 rho."""
    norms = tr.neuron_norms
    live = np.any(tr.activation, axis=-1) & (norms > 0)  # (T, p)
    safe = np.where(norms > 0, norms, 1.0)[..., None]
    unit = tr.W / safe
    gaps = np.linalg.norm(unit[:, :, None, :] - unit[:, None, :, :], axis=-1)  # (T, p, p)
    pairs = live[:, :, None] & live[:, None, :]
    angles = 2.0 * np.arcsin(np.minimum(np.where(pairs, gaps, 0.0) / 2.0, 1.0))
    vals = np.max(angles, axis=(-2, -1))
    return Series(vals, 4.0 * relative_floor(tr, 1.0), np.full(len(tr.t), 4.0 * ROUNDING))


def _teacher_cos(tr):
    b = bundle(tr)
    cos = (b.v @ b.st["vstar"]) / b.norm_v
    return _scaled(cos, 2.0 * b.rel, 1.0)


def _ball_margin(tr):
    b = bundle(tr)
    vals = np.sum(b.v * b.gap, axis=-1)
    return _scaled(vals, 2.0 * b.rel, b.norm_v * (1.0 + b.norm_v))


def _xi_cos(tr):
    b = bundle(tr)
    ng = np.linalg.norm(b.g, axis=-1)
    cos = np.sum(b.v * b.g, axis=-1) / (b.norm_v * ng)
    # g = H (v* - v) moves by at most eta_1 |dv| <= eta_1 rel |v|: near convergence, where
    # |g| is small (and smallest along u_d), that is a large relative error
    rel_g = float(b.st["eta"][0]) * b.rel * b.norm_v / np.maximum(ng, 1e-300)
    return _scaled(cos, 2.0 * (b.rel + rel_g), 1.0)


def s_margin(r: np.ndarray, eta: np.ndarray, xi: np.ndarray) -> np.ndarray:
    """Signed margin of the points with teacher ratios r (T, d) in CEL23's S (D6), with
    ``xi`` = cos angle(v, g) standing for Xi at margin 0: max over l of the least slack of
    S_l's conditions (positive: inside S)."""
    T, dim = r.shape
    ratio = eta[None, :] / (2.0 * eta[:, None])  # ratio[k, k'] = eta_k' / (2 eta_k)
    best = np.full(T, -np.inf)
    for ell in range(dim):
        parts = [r[:, k] - 1.0 for k in range(ell)]  # Omega_k, k < l
        lower = r[:, ell] - (eta[ell] / (2.0 * eta[ell - 1]) if ell else 0.0)  # Phi_l
        parts += [lower, 1.0 - r[:, ell], xi]
        for k in range(ell, dim):
            for k2 in range(k + 1, dim):
                parts.append(r[:, k2] - ratio[k, k2] * r[:, k])  # Psi down
                base = 1.0 - r[:, k]
                with np.errstate(invalid="ignore"):
                    up = 1.0 - np.abs(base) ** (0.5 + ratio[k, k2]) - r[:, k2]
                parts.append(np.where(base >= 0, up, base))  # Psi up (undefined: outside)
        best = np.maximum(best, np.min(np.stack(parts), axis=0))
    return best


def _s_margin(tr):
    b = bundle(tr)
    xi = _xi_cos(tr)
    vals = s_margin(b.r, b.st["eta"], xi.values)
    err = 4.0 * b.rel * np.max(np.abs(b.r), axis=-1) + xi.roundoff
    return Series(vals, err, ROUNDING * (1.0 + np.max(np.abs(b.r), axis=-1)))


def overshoot_order(r: np.ndarray) -> np.ndarray:
    """min_{k < k'} max(r_k - 1, 1 - r_k') (>= 0 iff {k : r_k > 1} is an initial segment)."""
    dim = r.shape[1]
    parts = [np.maximum(r[:, k] - 1.0, 1.0 - r[:, k2])
             for k in range(dim) for k2 in range(k + 1, dim)]
    return np.min(np.stack(parts), axis=0)


def _overshoot(tr):
    b = bundle(tr)
    vals = overshoot_order(b.r)
    return _scaled(vals, 2.0 * b.rel, np.max(np.abs(b.r), axis=-1))


def _norm_v_sq_rate(tr):
    b = bundle(tr)
    vals = 2.0 * np.sum(b.v * b.dv, axis=-1)
    err = 2.0 * (b.norm_v * b.dv_error + b.rel * b.norm_v * np.linalg.norm(b.dv, axis=-1))
    return Series(vals, err, ROUNDING * 2.0 * b.norm_v * np.linalg.norm(b.dv, axis=-1))


def _norm_g(tr):
    b = bundle(tr)
    ng = np.linalg.norm(b.g, axis=-1)
    eta1 = float(b.st["eta"][0])
    return Series(ng, eta1 * b.rel * b.norm_v + ROUNDING * ng, ROUNDING * (ng + eta1 * b.norm_v))


def _gap_sq(tr):
    b = bundle(tr)
    vals = np.sum(b.gap**2, axis=-1)
    gap = np.sqrt(vals)
    return Series(vals, 2.0 * gap * b.rel * b.norm_v + ROUNDING * vals,
                  ROUNDING * (vals + gap * (1.0 + b.norm_v)))


def _gap_sq_rate(tr):
    b = bundle(tr)
    vals = -2.0 * np.sum(b.gap * b.dv, axis=-1)
    gap = np.linalg.norm(b.gap, axis=-1)
    ndv = np.linalg.norm(b.dv, axis=-1)
    err = 2.0 * (gap * b.dv_error + b.rel * b.norm_v * ndv)
    return Series(vals, err, ROUNDING * 2.0 * (gap + b.norm_v) * ndv)


def _bundle_velocity_gap(tr):
    b = bundle(tr)
    vbar = b.v / b.norm_v[:, None]
    f = b.norm_v[:, None] * (b.g + vbar * np.sum(vbar * b.g, axis=-1, keepdims=True))
    nf = np.linalg.norm(f, axis=-1)
    vals = np.linalg.norm(b.dv - f, axis=-1) / nf
    eta1 = float(b.st["eta"][0])
    err = (b.dv_error + 2.0 * b.norm_v * eta1 * b.rel * b.norm_v + b.rel * nf) / nf
    return Series(vals, err, ROUNDING * (1.0 + vals))


def _asq_log_excess(tr):
    pr = tr.problem
    x_max = float(np.max(np.linalg.norm(pr.X, axis=1)))
    rate = 2.0 * math.sqrt(2.0 * float(tr.loss[0])) * x_max
    vals = np.min(np.log(tr.a**2 / pr.a0**2), axis=-1) + rate * tr.t
    err = 2.0 * relative_floor(tr, 1.0) + ROUNDING * (1.0 + rate * tr.t)
    return Series(vals, err, ROUNDING * (1.0 + rate * tr.t))


def _yardstick_log_gap(tr):
    st = _needs_a1(tr.problem)
    lam = tr.problem.init_scale
    gaps = []
    for j in st["J_plus"]:
        alpha = st["ys"][int(j)].alpha(tr.t)
        gaps.append(np.abs(np.log(np.linalg.norm(alpha, axis=-1))
                           - np.log(tr.neuron_norms[:, j] / lam)))
    vals = np.max(np.stack(gaps), axis=0)
    return Series(vals, relative_floor(tr, 1.0) + 1e-12, np.full(len(tr.t), 1e-12))


def crossing_record(tr: Trajectory) -> tuple[np.ndarray, np.ndarray]:
    """(mismatches, excess) at each saved time, from the run's sign changes of <w_j, x_i> so
    far against the yardsticks' crossing sequences (CEL23-L3): the number of events that
    are not the next crossing of their neuron's yardstick, and the largest
    |t_j^l - tau_j^l| - lam^(1 - (1 + (3l - 1)/(3 n_j)) eps) (eps = 1/4; -inf before any)."""
    st = _needs_a1(tr.problem)
    lam = tr.problem.init_scale
    seen: dict[int, int] = {}
    marks = []  # (time, mismatch 0/1, excess)
    for ev in sorted(tr.events, key=lambda e: e.t):
        ys = st["ys"].get(int(ev.neuron))
        k = seen.get(ev.neuron, 0)
        seen[ev.neuron] = k + 1
        if ys is None or k >= ys.n_j or ys.crossings[k] != ev.sample:
            marks.append((ev.t, 1, -np.inf))
            continue
        bound = lam ** (1.0 - (1.0 + (3.0 * (k + 1) - 1.0) / (3.0 * ys.n_j)) * EPS)
        marks.append((ev.t, 0, abs(ev.t - ys.times[k]) - bound))
    mism = np.zeros(len(tr.t))
    excess = np.full(len(tr.t), -np.inf)
    for te, bad, ex in marks:
        later = tr.t >= te
        mism[later] += bad
        excess[later] = np.maximum(excess[later], ex)
    return mism, excess


def _crossing_mismatch(tr):
    mism, _ = crossing_record(tr)
    return Series(mism, np.zeros_like(mism), np.zeros_like(mism))


def _crossing_excess(tr):
    """Before the first crossing the excess is -1 (nothing to compare yet). Its error: the
    difference of the companion's event times (added by the check) and the rounding of the
    times."""
    _, excess = crossing_record(tr)
    vals = np.where(np.isfinite(excess), excess, -1.0)
    floor = ROUNDING * (1.0 + tr.t)
    return Series(vals, floor, floor)


TRAJECTORY = {
    "NormV": _norm_v,
    "BundleMisalign": _misalign,
    "LinearGap": _linear_gap,
    "GradSpread": _grad_spread,
    "Nu1Ratio": _nu1_ratio,
    "PhaseOneEnvelope": _phase_one_envelope,
    "SignedGrowth": _signed_growth,
    "NegSpeed": _neg_speed,
    "NegNormRatio": _neg_norm_ratio,
    "CosGammaMin": _cos_gamma_min,
    "OutputRatio": _output_ratio,
    "LimitNetGap": _limit_net_gap,
    "NormShareTop": _norm_share_top,
    "NormWPlusSq": _norm_w_plus_sq,
    "MaxActiveAngle": _max_active_angle,
    "TeacherCosV": _teacher_cos,
    "BallMargin": _ball_margin,
    "SMargin": _s_margin,
    "XiCos": _xi_cos,
    "OvershootOrder": _overshoot,
    "NormVSqRate": _norm_v_sq_rate,
    "NormG": _norm_g,
    "TeacherGapSq": _gap_sq,
    "TeacherGapSqRate": _gap_sq_rate,
    "BundleVelocityGap": _bundle_velocity_gap,
    "AsqLogExcess": _asq_log_excess,
    "CrossingExcess": _crossing_excess,
    "CrossingOrderMismatch": _crossing_mismatch,
    "YardstickLogGap": _yardstick_log_gap,
}
