"""CEL23's Theorem 8 (minimum rank against minimum norm) in numbers: the quantity M, the
two families of Example 37, the interpolators its proof builds, and the minimum norm of an
interpolator (catalogue CEL23-D7, D8, A3, T8, F8a, F8b, F37a, F37b, F38, section 4.8).

Setting (paper section 7, catalogue D8, A3): n = d points, X invertible. Here the rows of
``X`` are the points x_i, so the paper's X is ``X.T`` and the paper's X^{-1} = [chi_1, ..,
chi_d]^T is ``inv(X).T`` (rows chi_k with chi_k . x_i = delta_ki). The network is
h(x) = sum_j a_j relu(w_j . x), the labels y_i = relu(v* . x_i), and
|theta|^2 = sum_j a_j^2 + |w_j|^2.

- `chi`, `is_z_matrix`: the rows of X^{-1}, and the Z-matrix test chi_k . chi_l <= 0
  (k != l) of F8a (paper section 7), which is sufficient for M < 0.
- `m_value`: M = max of cos angle(p, q) - sin angle(p, v*) over non-empty proper subsets
  K of [d], p != 0 in cone{chi_k : k in K} and q != 0 in cone{chi_k : k not in K} (D8).
  * The maximisation over q is done exactly. For fixed p, the largest cos angle(p, q)
    over q in a convex cone C is |Proj_C p|/|p| when that projection is non-zero, and
    otherwise the largest cosine with a generator of C. The projection is an NNLS
    problem (see `nnls`).
  * For each K, p is searched over non-negative coefficient vectors. The starts are the
    vertices (every extreme ray chi_k with its best q, which dominates every pair of
    extreme rays), the NNLS projections onto cone_K of v* and of the outside generators,
    and random Dirichlet points. Bounded L-BFGS-B runs from the best of these.
  * ``MResult.value`` is recomputed from the returned witness (p, q). It is attained, so
    it is a LOWER bound on M.
  * A best-first branch and bound over spherical simplices of each cone_K gives
    ``MResult.upper``. Both terms are 1-Lipschitz in the angle of p, so on a cell of
    angular radius R around c the objective is at most
    cos(max(angle(c, C_q) - R, 0)) - min sin over [angle(c, v*) - R, angle(c, v*) + R].
    That is an upper bound on M, certified up to round-off. It is ``inf`` if the budget
    ran out before the cones were cut fine enough. M lies in [value, upper].
- `interpolator`: for a witness with value > 0, the explicit two-neuron network of the
  proof of Theorem 8(ii) (paper App. G; catalogue section 4.8, both cases
  angle(p, v*) <= pi/2 and > pi/2). It interpolates exactly and has
  |theta|^2 = 2 - xi(..) < 2. `rank_one_interpolator` gives an element of Theta_{v*}
  (D7, paper section 6), with |theta|^2 = 2.
- `example37a`, `example37b`: the two families of Example 37 (paper App. G; F37a with
  M < 0, F37b with M > 0), with rows = points.
- `min_norm_interpolation`: min |theta|^2 subject to h(x_i) = y_i (Theorem 8(i), Remark
  38(i) = F38), bracketed from both sides.
  * From above: local multi-start runs at width m (augmented Lagrangian with BFGS, then
    an SLSQP polish of the equality-constrained problem). The best value is returned
    with its residual.
  * From below: the convex dual of the balanced (group-norm) reformulation. It has one
    constraint per activation pattern, each an NNLS projection. Any dual point gives a
    bound valid for every width (`min_norm_lower_bound`). The special point
    mu* = X^{-T} v* certifies the value 2 of Theta_{v*} exactly when `dual_slack` <= 1.
  * The network read off the dual's active constraints is also tried as a start. When
    it fits in width m, the bracket usually closes to round-off.

Not from the paper: the dual bound and the branch-and-bound certificate are our additions.
The paper (and the catalogue) define M and prove Theorem 8 without them. numpy and scipy
only.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.optimize import nnls as _scipy_nnls

from papers.cel23.data import teacher_labels

ROUNDOFF_SLACK = 1e-12  # added to every branch-and-bound cell bound
_TINY = 1e-14  # a projection shorter than this counts as zero


# --------------------------------------------------------------------------- helpers


def _square(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] != X.shape[1] or X.shape[0] < 2:
        raise ValueError(f"X must be a square (d, d) array with d >= 2, got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError("X has non-finite entries.")
    if np.linalg.matrix_rank(X) < X.shape[0]:
        raise ValueError("X is singular: Theorem 8 needs n = d independent points.")
    return X


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    nrm = np.linalg.norm(v)
    if not nrm > 0:
        raise ValueError("zero vector has no direction.")
    return v / nrm


def _sin_unit(u: np.ndarray, v: np.ndarray) -> float:
    """sin angle(u, v) for unit u, v, accurate near 0 and pi."""
    w = u - float(u @ v) * v
    return math.sqrt(float(w @ w))


def _chord_angle(chord: float) -> float:
    """angle(u, v) of unit vectors from their chord |u - v|, accurate at small angles."""
    return 2.0 * math.asin(min(max(chord / 2.0, 0.0), 1.0))


def _nnls_kkt_ok(A: np.ndarray, b: np.ndarray, x: np.ndarray) -> bool:
    """KKT conditions of min |A x - b|, x >= 0: x >= 0, A^T(b - A x) <= 0 off the
    support and = 0 on it (relative tolerance)."""
    w = A.T @ (b - A @ x)
    tol = 1e-10 * (1.0 + float(np.linalg.norm(A)) * (float(np.linalg.norm(b))
                                                     + float(np.linalg.norm(A @ x))))
    on = x > 0
    return bool(np.all(x >= 0) and np.all(np.abs(w[on]) <= tol) and np.all(w[~on] <= tol))


def nnls(A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
    """min |A x - b| subject to x >= 0 for the small problems of this module, with the
    same return value as scipy.optimize.nnls, (x, |A x - b|). scipy's re-implementation
    (1.15 and later, including the installed 1.17) can return a non-optimal x with a wrong
    residual (scipy issue #25389), and that broke this module's cone projections. So its
    answer is only used when it passes the KKT conditions. Otherwise Lawson-Hanson is run
    here, and if that also fails the check, every support is enumerated (A has few columns
    here)."""
    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    try:
        x = np.maximum(_scipy_nnls(A, b)[0], 0.0)
    except RuntimeError:
        x = None
    if x is None or not _nnls_kkt_ok(A, b, x):
        x = _lawson_hanson(A, b)
        if not _nnls_kkt_ok(A, b, x):
            x = _nnls_enumerate(A, b)
    return x, float(np.linalg.norm(A @ x - b))


def _lawson_hanson(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = A.shape[1]
    gram = A.T @ A
    atb = A.T @ b
    x = np.zeros(n)
    P = np.zeros(n, dtype=bool)
    tol = 1e-12 * float(np.sqrt(np.trace(gram))) * (1.0 + float(np.linalg.norm(b)))
    w = atb.copy()
    for _ in range(3 * n + 5):
        if P.all() or float(np.max(np.where(P, -np.inf, w))) <= tol:
            break
        P[int(np.argmax(np.where(P, -np.inf, w)))] = True
        for _inner in range(3 * n + 5):
            z = np.zeros(n)
            z[P] = np.linalg.lstsq(A[:, P], b, rcond=None)[0]
            if np.all(z[P] > 0):
                x = z
                break
            neg = P & (z <= 0)
            alpha = float(np.min(x[neg] / (x[neg] - z[neg])))
            x = x + alpha * (z - x)
            P &= x > 1e-15 * (1.0 + float(np.max(np.abs(x))))
            x[~P] = 0.0
        w = atb - gram @ x
    return x


def _nnls_enumerate(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = A.shape[1]
    best_r, best_x = float(np.linalg.norm(b)), np.zeros(n)
    for k in range(1, n + 1):
        for S in itertools.combinations(range(n), k):
            S = list(S)
            z = np.zeros(n)
            z[S] = np.linalg.lstsq(A[:, S], b, rcond=None)[0]
            if np.all(z >= 0):
                r = float(np.linalg.norm(A @ z - b))
                if r < best_r:
                    best_r, best_x = r, z
    return best_x


def labels(X: np.ndarray, vstar: np.ndarray) -> np.ndarray:
    """y_i = relu(v* . x_i) (rows of X are the points)."""
    return teacher_labels(np.asarray(X, dtype=float), np.asarray(vstar, dtype=float))


def network(W: np.ndarray, a: np.ndarray, X: np.ndarray) -> np.ndarray:
    """h(x_i) = sum_j a_j relu(w_j . x_i) for every row x_i of X (W: (m, d), a: (m,))."""
    return np.maximum(np.asarray(X, float) @ np.asarray(W, float).T, 0.0) @ np.asarray(a, float)


def theta_sq_norm(W: np.ndarray, a: np.ndarray) -> float:
    """|theta|^2 = sum_j a_j^2 + |w_j|^2."""
    return float(np.sum(np.square(a)) + np.sum(np.square(W)))


# --------------------------------------------------------------------------- chi, F8a


def chi(X: np.ndarray) -> np.ndarray:
    """Rows chi_k of the paper's X^{-1}: chi_k . x_i = delta_ki (x_i = rows of X)."""
    return np.linalg.inv(_square(X)).T


def is_z_matrix(X: np.ndarray, atol: float | None = None) -> bool:
    """chi_k . chi_l <= 0 for all k != l, i.e. (X X^T)^{-1} (the paper's (X^T X)^{-1}) is a
    Z-matrix (F8a, sufficient for M < 0). ``atol`` defaults to 1e-12 times the largest
    |chi_k . chi_l|, so exactly orthogonal data count as a Z-matrix despite round-off."""
    C = chi(X)
    G = C @ C.T
    off = G[~np.eye(G.shape[0], dtype=bool)]
    tol = 1e-12 * float(np.max(np.abs(G))) if atol is None else float(atol)
    return bool(np.all(off <= tol))


# --------------------------------------------------------------------------- M (D8)


@dataclass(frozen=True)
class MResult:
    """The outcome of `m_value`.

    value: cos angle(p, q) - sin angle(p, v*), recomputed from the witness below. Since
        the witness is feasible, this is a lower bound on M.
    K: the subset (0-based indices) with p in cone{chi_k : k in K}.
    p, q: unit witness vectors, p in cone{chi_k : k in K}, q in cone{chi_k : k not in K}.
    p_coef, q_coef: their coefficients in the chi basis (p = sum_k p_coef[k] chi_k). Both
        are >= 0, p_coef is zero off K and q_coef zero on K; p_coef[k] = p . x_k.
    upper: an upper bound on M from branch and bound, certified up to round-off; inf
        when the cell budget ran out first. M is in [value, upper].
    cells: branch-and-bound cells evaluated.
    """

    value: float
    K: tuple[int, ...]
    p: np.ndarray
    q: np.ndarray
    p_coef: np.ndarray
    q_coef: np.ndarray
    upper: float
    cells: int

    @property
    def lower(self) -> float:
        return self.value

    @property
    def sign(self) -> int:
        """+1 if M > 0 is proven (value > 0), -1 if M < 0 is proven (upper < 0), else 0."""
        return 1 if self.value > 0 else (-1 if self.upper < 0 else 0)


class _Cone:
    """One K: p in cone(G_in), q in cone(G_out) (rows: unit chi_k), v unit."""

    def __init__(self, K: tuple[int, ...], Cn: np.ndarray, v: np.ndarray):
        d = Cn.shape[0]
        self.K = K
        self.Kc = tuple(i for i in range(d) if i not in K)
        self.G_in = Cn[list(K)]
        self.G_out = Cn[list(self.Kc)]
        self.v = v

    def best_q(self, pbar: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """(max cos angle(pbar, q) over q in cone(G_out), unit maximiser q, its
        coefficients on G_out)."""
        G = self.G_out
        rays = G @ pbar
        j = int(np.argmax(rays))
        if len(G) > 1:
            coef, _ = nnls(G.T, pbar)
            proj = coef @ G
            nrm = math.sqrt(float(proj @ proj))
            if nrm > _TINY and nrm >= rays[j]:
                return nrm, proj / nrm, coef / nrm
        e = np.zeros(len(G))
        e[j] = 1.0
        return float(rays[j]), G[j], e

    def p_of(self, beta: np.ndarray) -> np.ndarray | None:
        p = np.maximum(beta, 0.0) @ self.G_in
        nrm = math.sqrt(float(p @ p))
        return p / nrm if nrm > _TINY else None

    def F(self, beta: np.ndarray) -> float:
        pbar = self.p_of(beta)
        if pbar is None:
            return -10.0  # p = 0 is not allowed; F >= -2 elsewhere
        return self.best_q(pbar)[0] - _sin_unit(pbar, self.v)

    def nnls_beta(self, target: np.ndarray) -> np.ndarray | None:
        coef, _ = nnls(self.G_in.T, target)
        return coef if np.linalg.norm(coef @ self.G_in) > _TINY else None


def _local_search(cone: _Cone, rng: np.random.Generator, starts: int, local: int):
    k = len(cone.K)
    if k == 1:
        return cone.F(np.ones(1)), np.ones(1)
    inits = [np.eye(k)[j] for j in range(k)]  # extreme rays (each with its best q)
    targets = [cone.v] + list(cone.G_out) + [cone.G_out.sum(axis=0)]
    for t in targets:
        b = cone.nnls_beta(t)
        if b is not None:
            inits.append(b)
    inits += list(rng.dirichlet(np.ones(k), size=max(int(starts), 0)))
    values = [cone.F(b0) for b0 in inits]
    order = np.argsort(values)[::-1]
    best_f, best_b = values[order[0]], inits[order[0]]
    for idx in order[:local]:
        b0 = inits[idx] / np.sum(inits[idx])
        res = minimize(lambda b: -cone.F(b), b0, method="L-BFGS-B",
                       bounds=[(0.0, None)] * k, options={"maxiter": 200, "ftol": 1e-14})
        b = np.maximum(res.x, 0.0)
        f = cone.F(b)
        if f > best_f:
            best_f, best_b = f, b
    return best_f, best_b


def _cell(cone: _Cone, B: np.ndarray):
    """Bound of the spherical simplex with vertex coefficient rows B (images unit)."""
    P = B @ cone.G_in  # unit rows by construction
    beta_c = B.sum(axis=0) / len(B)
    pc = cone.p_of(beta_c)
    diff = P - pc
    R = _chord_angle(math.sqrt(float(np.max(np.einsum("ij,ij->i", diff, diff)))))
    g, _, _ = cone.best_q(pc)
    sin_v = _sin_unit(pc, cone.v)
    f = g - sin_v
    if not R < math.pi / 2:
        return math.inf, f, beta_c, R
    # every p of the cell is within angle R of pc: its angle to the q-cone is at least
    # theta_g - R and its angle to v* lies in [phi - R, phi + R]
    theta_g = math.acos(min(max(g, -1.0), 1.0))
    phi = math.atan2(sin_v, float(pc @ cone.v))
    g_up = math.cos(max(theta_g - R, 0.0))
    s_low = min(math.sin(max(phi - R, 0.0)), math.sin(min(phi + R, math.pi)))
    return g_up - s_low + ROUNDOFF_SLACK, f, beta_c, R


def m_value(X: np.ndarray, vstar: np.ndarray, *, starts: int = 8, local: int = 4,
            seed: int = 0, tol: float = 1e-3, max_cells: int = 20000) -> MResult:
    """M of CEL23-D8 (paper section 7) with a witness and a certified bracket.

    Every non-empty proper K of [d] is enumerated (2^d - 2 of them, so keep d <= 6 or
    so). The search over q is exact (see the module docstring). For p, every K gets its
    structured starts and ``starts`` random ones. All of them are evaluated, and bounded
    L-BFGS-B runs from the ``local`` best of them. A
    best-first branch and bound then runs until the largest cell bound is within ``tol``
    of the best value, or until ``max_cells`` cells have been evaluated (0: none, and
    upper = inf). The returned value is recomputed from the witness (p, q) and is
    attained, so it is a lower bound on M. ``upper`` is an upper bound on M."""
    X = _square(X)
    d = X.shape[0]
    v = _unit(vstar)
    C = chi(X)
    norms = np.linalg.norm(C, axis=1)
    Cn = C / norms[:, None]
    rng = np.random.default_rng(seed)
    cones = [_Cone(K, Cn, v) for k in range(1, d) for K in itertools.combinations(range(d), k)]

    best_f, best_c, best_b = -math.inf, 0, np.ones(1)
    for ci, cone in enumerate(cones):
        f, b = _local_search(cone, rng, starts, local)
        if f > best_f:
            best_f, best_c, best_b = f, ci, b

    upper, cells = math.inf, 0
    if max_cells > 0:
        tol = max(float(tol), 2 * ROUNDOFF_SLACK)
        heap: list = []
        count = itertools.count()
        for ci, cone in enumerate(cones):
            k = len(cone.K)
            B = np.eye(k) / np.linalg.norm(np.eye(k) @ cone.G_in, axis=1)[:, None]
            ub, f, bc, R = _cell(cone, B)
            cells += 1
            if f > best_f:
                best_f, best_c, best_b = f, ci, bc
            heapq.heappush(heap, (-ub, next(count), ci, B, R))
        while heap:
            neg_ub, _, ci, B, R = heapq.heappop(heap)
            ub = -neg_ub
            if ub <= best_f + tol or R == 0.0 or cells >= max_cells:
                upper = ub  # the largest bound left: every point of every cone is below it
                break
            cone = cones[ci]
            P = B @ cone.G_in
            gram = P @ P.T  # the longest edge has the smallest cosine
            i, j = np.unravel_index(int(np.argmin(gram)), gram.shape)
            mid = B[i] + B[j]
            pm = mid @ cone.G_in
            mid = mid / math.sqrt(float(pm @ pm))
            for drop in (i, j):
                Bn = B.copy()
                Bn[drop] = mid
                ubn, f, bc, Rn = _cell(cone, Bn)
                cells += 1
                if f > best_f:
                    best_f, best_c, best_b = f, ci, bc
                heapq.heappush(heap, (-ubn, next(count), ci, Bn, Rn))
        upper = max(upper, best_f)

    beta = np.maximum(best_b, 0.0)
    witnesses = [_witness(cones[best_c], beta, C, norms)]
    keep = beta > 1e-12 * float(np.max(beta))
    if not np.all(keep):  # p lies in a smaller cone, whose complement cone is larger
        K = tuple(k for k, kept in zip(cones[best_c].K, keep, strict=True) if kept)
        witnesses.append(_witness(_Cone(K, Cn, v), beta[keep], C, norms))
    if len(witnesses) == 2 and witnesses[1][0] >= witnesses[0][0] - 1e-12:
        witnesses.pop(0)  # prefer the support of p as K when it loses nothing
    value, K, p, q, p_coef, q_coef = max(witnesses, key=lambda w: w[0])
    return MResult(value=value, K=K, p=p, q=q, p_coef=p_coef, q_coef=q_coef,
                   upper=float(max(upper, value)), cells=cells)


def _witness(cone: _Cone, beta: np.ndarray, C: np.ndarray, norms: np.ndarray):
    """(value recomputed from p and q, K, p, q, p_coef, q_coef) for p = beta @ G_in."""
    d = C.shape[0]
    p_raw = beta @ cone.G_in
    p = p_raw / np.linalg.norm(p_raw)
    _, q, qc = cone.best_q(p)
    q = q / np.linalg.norm(q)
    p_coef = np.zeros(d)
    p_coef[list(cone.K)] = beta / norms[list(cone.K)] / np.linalg.norm(p_raw)
    q_coef = np.zeros(d)
    q_coef[list(cone.Kc)] = np.maximum(qc, 0.0) / norms[list(cone.Kc)]
    q_coef /= np.linalg.norm(q_coef @ C)
    value = float(p @ q) - _sin_unit(p, cone.v)
    return value, tuple(int(k) for k in cone.K), p, q, p_coef, q_coef


# --------------------------------------------------------------------------- interpolators


def rank_one_interpolator(vstar: np.ndarray, m: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """An element of Theta_{v*} (D7): a_1 w_1 = v*, a_1 = |w_1| > 0, other neurons 0. For a
    unit v* this is a_1 = 1, w_1 = v*, with |theta|^2 = 2 (2|v*| in general)."""
    v = np.asarray(vstar, dtype=float)
    if m < 1:
        raise ValueError("m must be >= 1.")
    s = math.sqrt(float(np.linalg.norm(v)))
    W = np.zeros((m, v.size))
    a = np.zeros(m)
    W[0] = v / s
    a[0] = s
    return W, a


def interpolator_xi(X: np.ndarray, vstar: np.ndarray, result: MResult) -> float:
    """The xi of the section 4.8 construction for ``result``'s witness. If
    angle(p, v*) <= pi/2, xi = min(min_{k in K, b_k > 0} y_k/b_k,
    cos angle(p, v*) - sin angle(p, q)). Otherwise xi = -cos angle(p, v*) - sin angle(p, q)."""
    return _construction(X, vstar, result)[0]


def _construction(X, vstar, result: MResult):
    X = _square(X)
    v = np.asarray(vstar, dtype=float)
    if abs(np.linalg.norm(v) - 1.0) > 1e-9:
        raise ValueError("the Theorem 8 construction needs a unit v*.")
    if not result.value > 0:
        raise ValueError(f"the construction needs a witness with value > 0, got {result.value}.")
    y = labels(X, v)
    p, q = _unit(result.p), _unit(result.q)
    cos_pq = float(p @ q)
    r = p - cos_pq * q
    sin_pq = float(np.linalg.norm(r))
    cos_pv = float(p @ v)
    K = list(result.K)
    b = X[K] @ p  # the b_k of p = sum_{k in K} b_k chi_k
    if cos_pv >= 0.0:
        pos = b > 0
        ratio = float(np.min(y[K][pos] / b[pos])) if np.any(pos) else math.inf
        xi = min(ratio, cos_pv - sin_pq)
    else:
        xi = -cos_pv - sin_pq
    if not xi > 0:
        raise ValueError(f"xi = {xi} is not positive: the witness does not give M > 0.")
    return xi, p, r, sin_pq, cos_pv, v


def interpolator(X: np.ndarray, vstar: np.ndarray,
                 result: MResult) -> tuple[np.ndarray, np.ndarray]:
    """The two-neuron interpolator of the proof of Theorem 8(ii) (paper App. G; catalogue
    section 4.8) built from a witness (K, p, q) with value > 0. Let
    r = p - (q . p) q, where p and q are unit. For angle(p, v*) <= pi/2:
    (a_1, w_1) = (1, v* - xi p) and (a_2, w_2) = (sqrt(xi |r|), sqrt(xi/|r|) r). Then
    |theta|^2 = 2 - xi(2(cos angle(p, v*) - sin angle(p, q)) - xi) <= 2 - xi^2.
    Otherwise (a_1, w_1) = (1, v* + xi p) and (a_2, w_2) = (-sqrt(xi |r|), sqrt(xi/|r|) r),
    with |theta|^2 = 2 - xi^2. In both cases h(x_i) = y_i exactly. Returns (W (2, d), a (2,))."""
    xi, p, r, sin_pq, cos_pv, v = _construction(X, vstar, result)
    a2 = math.sqrt(xi * sin_pq)
    w2 = math.sqrt(xi / sin_pq) * r
    if cos_pv >= 0.0:
        W = np.stack([v - xi * p, w2])
        a = np.array([1.0, a2])
    else:
        W = np.stack([v + xi * p, w2])
        a = np.array([1.0, -a2])
    return W, a


# --------------------------------------------------------------------------- Example 37


def example37a(d: int, xi: float) -> tuple[np.ndarray, np.ndarray]:
    """F37a (paper App. G, Example 37, M < 0): X = xi I + ((1 - xi)/d) s s^T with s all
    ones, so x_i = xi e_i + ((1 - xi)/d) s, and v* = s/sqrt(d). Needs d > 1 and
    0 < xi < 1. The pi/4 condition holds exactly when xi < 1/sqrt(d - 1)."""
    if d < 2 or not 0.0 < xi < 1.0:
        raise ValueError(f"example37a needs d > 1 and 0 < xi < 1, got d={d}, xi={xi}.")
    X = xi * np.eye(d) + (1.0 - xi) / d * np.ones((d, d))
    return X, np.ones(d) / math.sqrt(d)


def example37b(d: int, b: float) -> tuple[np.ndarray, np.ndarray]:
    """F37b (paper App. G, Example 37, M > 0 for b >= 11), with 1-based names:
    x_1 = b e_1, x_2 = b e_1 - sqrt(b) e_2 + e_3, x_3 = b e_1 + sqrt(b) e_2 + e_3,
    x_i = b e_1 + e_i for 4 <= i <= d, and v* = (4/5) e_1 + (3/5) e_3. Needs d > 2 and
    b > 0. The catalogue's bound M > 0 needs b >= 11."""
    if d < 3 or not b > 0:
        raise ValueError(f"example37b needs d > 2 and b > 0, got d={d}, b={b}.")
    sb = math.sqrt(b)
    X = np.zeros((d, d))
    X[:, 0] = b
    X[1, 1], X[1, 2] = -sb, 1.0
    X[2, 1], X[2, 2] = sb, 1.0
    for i in range(3, d):
        X[i, i] = 1.0
    vstar = np.zeros(d)
    vstar[0], vstar[2] = 0.8, 0.6
    return X, vstar


# --------------------------------------------------------------------------- min-norm estimate
#
# Balanced neurons cost a^2 + |w|^2 = 2|c| with c = |a| w, so
# min |theta|^2 = 2 min sum_j |c_j| s.t. sum_j s_j relu(X c_j) = y. Its convex dual (any
# width) is: max mu . y s.t. |mu . relu(X c)| <= |c| for every c. On the sign pattern A
# (x_i . c > 0 exactly for i in A) the cone is P_A = cone{chi_i (i in A), -chi_k (k not in
# A)} and mu . relu(X c) = g_A . c with g_A = sum_{i in A} mu_i x_i. So the constraint for
# A reads |Proj_{P_A}(+-g_A)| <= 1, which is one NNLS each. Any mu != 0 therefore gives
# min |theta|^2 >= 2 mu . y / s(mu), where s(mu) is the largest of those projection
# norms. For a unit v*, mu* = X^{-T} v* (mu*_k = chi_k . v*) has mu* . y = 1. If some
# element of Theta_{v*} is a minimiser over all widths, then KKT on its single neuron
# (pattern [d], where the cost |C^T u| is differentiable) forces the dual optimum to be
# mu*. So s(mu*) <= 1 holds exactly when Theta_{v*} is optimal over all widths. By the
# convex reformulation, width d + 1 already reaches that optimum.


def _patterns(d: int) -> list[np.ndarray]:
    """The boolean mask of every non-empty activation pattern A of [d]."""
    out = []
    for bits in itertools.product((False, True), repeat=d):
        mask = np.array(bits)
        if mask.any():
            out.append(mask)
    return out


def _dual_terms(X: np.ndarray, C: np.ndarray, mu: np.ndarray, masks):
    """For each (A, sign): s = |Proj_{P_A}(sign g_A)|, the unit maximiser c (or None) and
    d s / d mu."""
    terms = []
    for mask in masks:
        G = np.where(mask[:, None], C, -C)  # rows: generators of P_A
        g = (mu * mask) @ X
        for sign in (1.0, -1.0):
            coef, _ = nnls(G.T, sign * g)
            proj = coef @ G
            s = math.sqrt(float(proj @ proj))
            if s > _TINY:
                c = proj / s
                grad = sign * mask * (X @ c)
            else:
                c, grad = None, np.zeros(X.shape[0])
            terms.append((s, c, sign, grad))
    return terms


def min_norm_lower_bound(X: np.ndarray, vstar: np.ndarray, mu: np.ndarray | None = None
                         ) -> float:
    """A lower bound on min |theta|^2 over all interpolators of every width, certified up
    to round-off: 2 mu . y / s(mu) (weak duality, see the comment above). The default mu is
    mu* = X^{-T} v*, for which the bound is 2 exactly when s(mu*) <= 1. That is the case in
    which Theta_{v*} attains the minimum (T8(i)). With mu = e_i/|x_i| the bound is
    2 cos angle(v*, x_i) (F38(i))."""
    X = _square(X)
    C = chi(X)
    mu = C @ np.asarray(vstar, dtype=float) if mu is None else np.asarray(mu, dtype=float)
    y = labels(X, vstar)
    s = max(t[0] for t in _dual_terms(X, C, mu, _patterns(X.shape[0])))
    if not s > 0:
        raise ValueError("mu gives no bound (s(mu) = 0).")
    return 2.0 * float(mu @ y) / s


def dual_slack(X: np.ndarray, vstar: np.ndarray) -> float:
    """s(mu*) for mu* = X^{-T} v* (v* a unit vector). If it is <= 1, the rank-one
    interpolators Theta_{v*} have the minimum norm 2 over every width. If it is > 1, an
    interpolator of norm below 2 exists (at width d + 1 at most), by strong duality of the
    convex reformulation (see the comment above `_patterns`). By Theorem 8, M < 0 should
    come with s(mu*) <= 1, and M > 0 with s(mu*) > 1."""
    X = _square(X)
    C = chi(X)
    mu = C @ np.asarray(vstar, dtype=float)
    return max(t[0] for t in _dual_terms(X, C, mu, _patterns(X.shape[0])))


def _dual_solve(X: np.ndarray, y: np.ndarray, C: np.ndarray, mu0: np.ndarray):
    masks = _patterns(X.shape[0])

    def cons(mu):
        return np.array([1.0 - t[0] for t in _dual_terms(X, C, mu, masks)])

    def cons_jac(mu):
        return -np.array([t[3] for t in _dual_terms(X, C, mu, masks)])

    s0 = max(t[0] for t in _dual_terms(X, C, mu0, masks))
    if not s0 > 0:
        raise ValueError("the dual start mu* = X^{-T} v* gives no bound.")
    res = minimize(lambda mu: (-float(mu @ y), -y), mu0 / s0, jac=True, method="SLSQP",
                   constraints=[{"type": "ineq", "fun": cons, "jac": cons_jac}],
                   options={"maxiter": 300, "ftol": 1e-15})
    mu = res.x if np.all(np.isfinite(res.x)) else mu0
    terms = _dual_terms(X, C, mu, masks)
    s = max(t[0] for t in terms)
    if not s > 0 or float(mu @ y) / s < float(mu0 @ y) / s0:
        mu, terms, s = mu0, _dual_terms(X, C, mu0, masks), s0
    return mu / s, [(t[0] / s, t[1], t[2]) for t in terms]


def _primal_from_dual(X: np.ndarray, y: np.ndarray, terms, rel: float = 1e-6):
    """Neurons on the (nearly) active dual constraints, amplitudes by NNLS: (W, a)."""
    act = [(c, sign) for s, c, sign in terms if c is not None and s >= 1.0 - rel]
    if not act:
        return None
    F = np.stack([sign * np.maximum(X @ c, 0.0) for c, sign in act], axis=1)  # (n, k)
    t, _ = nnls(F, y)
    used = [(ti, c, sign) for ti, (c, sign) in zip(t, act, strict=True) if ti > 0]
    if not used:
        return None
    W = np.stack([math.sqrt(ti) * c for ti, c, _ in used])
    a = np.array([sign * math.sqrt(ti) for ti, _, sign in used])
    return W, a


@dataclass(frozen=True)
class MinNormResult:
    """Outcome of `min_norm_interpolation`.

    value: |theta|^2 of the best interpolator found, the network (W, a) of width m.
    max_residual: max_i |h(x_i) - y_i| of that same network.
    lower: a lower bound on min |theta|^2 over every width, certified up to round-off
        (the dual point ``mu``).
    feasible_runs: the local runs that reached max_residual <= feas_tol * max(1, max |x_i|).
    runs: the local runs made.
    The minimum at width m lies in [lower, value], to within the residual."""

    value: float
    max_residual: float
    W: np.ndarray
    a: np.ndarray
    lower: float
    mu: np.ndarray
    feasible_runs: int
    runs: int


def _al_fun(theta, Xh, yh, mu, rho, m, d):
    a = theta[:m]
    W = theta[m:].reshape(m, d)
    Z = Xh @ W.T
    A = np.maximum(Z, 0.0)
    r = A @ a - yh
    g = mu + rho * r
    f = float(theta @ theta + mu @ r + 0.5 * rho * (r @ r))
    ga = 2.0 * a + A.T @ g
    gW = 2.0 * W + a[:, None] * (((Z > 0) * g[:, None]).T @ Xh)
    return f, np.concatenate([ga, gW.ravel()])


def _residual(theta, Xh, yh, m, d):
    a = theta[:m]
    W = theta[m:].reshape(m, d)
    return np.maximum(Xh @ W.T, 0.0) @ a - yh


def _residual_jac(theta, Xh, yh, m, d):
    a = theta[:m]
    W = theta[m:].reshape(m, d)
    Z = Xh @ W.T
    Ja = np.maximum(Z, 0.0)  # (n, m)
    JW = ((Z > 0) * a[None, :])[:, :, None] * Xh[:, None, :]  # (n, m, d)
    return np.concatenate([Ja, JW.reshape(Xh.shape[0], -1)], axis=1)


def _one_run(theta, Xh, yh, m, d, feas_tol):
    """Augmented Lagrangian (BFGS inner solves) from an infeasible start, then an
    SLSQP polish of the equality-constrained problem. A start that already interpolates
    goes to the polish directly, since the first penalty solves would move it away."""
    n = Xh.shape[0]
    lam = np.zeros(n)
    rho = 100.0
    prev = math.inf
    viol = float(np.max(np.abs(_residual(theta, Xh, yh, m, d))))
    for _ in range(25):
        if viol <= feas_tol * 1e-2:
            break
        res = minimize(_al_fun, theta, args=(Xh, yh, lam, rho, m, d), jac=True,
                       method="BFGS", options={"maxiter": 500, "gtol": 1e-10})
        theta = res.x
        r = _residual(theta, Xh, yh, m, d)
        viol = float(np.max(np.abs(r)))
        lam = lam + rho * r
        if viol > 0.25 * prev:
            rho = min(rho * 4.0, 1e8)
        prev = viol
    pol = minimize(lambda t: (float(t @ t), 2.0 * t), theta, jac=True, method="SLSQP",
                   constraints=[{"type": "eq", "fun": _residual, "jac": _residual_jac,
                                 "args": (Xh, yh, m, d)}],
                   options={"maxiter": 300, "ftol": 1e-15})
    if np.all(np.isfinite(pol.x)):
        rp = float(np.max(np.abs(_residual(pol.x, Xh, yh, m, d))))
        if rp <= max(viol, feas_tol) and float(pol.x @ pol.x) <= float(theta @ theta):
            theta = pol.x
    return _restore(theta, Xh, yh, m, d)


def _restore(theta, Xh, yh, m, d):
    """A few Gauss-Newton steps theta -= J^+ r on the interpolation residual, kept only
    while they reduce it: they push a nearly feasible run to round-off feasibility, so
    runs are not ranked by norm that they bought with residual."""
    r = _residual(theta, Xh, yh, m, d)
    viol = float(np.max(np.abs(r)))
    for _ in range(5):
        if viol <= 1e-15:
            break
        step = np.linalg.lstsq(_residual_jac(theta, Xh, yh, m, d), r, rcond=None)[0]
        cand = theta - step
        rc = _residual(cand, Xh, yh, m, d)
        vc = float(np.max(np.abs(rc)))
        if not vc < viol:
            break
        theta, r, viol = cand, rc, vc
    return theta


def min_norm_interpolation(X: np.ndarray, vstar: np.ndarray, *, m: int = 4, starts: int = 4,
                           seed: int = 0, feas_tol: float = 1e-9,
                           inits: Sequence[tuple[np.ndarray, np.ndarray]] = ()
                           ) -> MinNormResult:
    """Numerical estimate of min |theta|^2 subject to L(theta) = 0, i.e. h(x_i) = y_i for
    every i, at width ``m`` >= 2 (used for T8(i) and F38(i)), with a certified lower bound.

    Lower bound: the convex dual (see the comment above `_patterns`) is maximised by SLSQP
    from mu* = X^{-T} v*, and ``lower`` = 2 mu . y / s(mu) is recomputed at the final mu.
    Upper estimate: local runs (augmented Lagrangian with BFGS, constraints scaled by
    1/|x_i| since h is positively homogeneous, then an SLSQP polish of the
    equality-constrained problem) from ``starts`` random points, from ``inits`` (given
    (W, a) pairs of width m), and from the network read off the dual's active constraints
    (amplitudes by NNLS) when it has at most m neurons. The best run has the smallest
    |theta|^2 among those with max |h(x_i) - y_i| <= feas_tol * max(1, max |x_i|). If no
    run qualifies, it is the run with the smallest residual. Check ``max_residual``."""
    X = _square(X)
    if m < 2:
        raise ValueError("m must be >= 2.")
    d = X.shape[0]
    v = np.asarray(vstar, dtype=float)
    y = labels(X, v)
    C = chi(X)
    mu, terms = _dual_solve(X, y, C, C @ v)
    lower = min_norm_lower_bound(X, v, mu)

    xn = np.linalg.norm(X, axis=1)
    Xh, yh = X / xn[:, None], y / xn
    rng = np.random.default_rng(seed)
    pairs = list(inits)
    rec = _primal_from_dual(X, y, terms)
    if rec is not None and len(rec[1]) <= m:
        W0 = np.zeros((m, d))
        a0 = np.zeros(m)
        W0[:len(rec[1])], a0[:len(rec[1])] = rec
        pairs.append((W0, a0))
    thetas = [np.concatenate([np.asarray(a, float), np.asarray(W, float).ravel()])
              for W, a in pairs]
    for _ in range(int(starts)):
        a0 = rng.normal(size=m)
        W0 = rng.normal(size=(m, d)) / math.sqrt(d)
        thetas.append(np.concatenate([a0, W0.ravel()]))
    scale = max(1.0, float(np.max(xn)))
    best = None
    feasible = 0
    for theta0 in thetas:
        if theta0.size != m * (d + 1):
            raise ValueError("an init does not have width m.")
        theta = _one_run(theta0, Xh, yh, m, d, feas_tol)
        a = theta[:m].copy()
        W = theta[m:].reshape(m, d).copy()
        resid = float(np.max(np.abs(network(W, a, X) - y)))
        ok = resid <= feas_tol * scale
        feasible += ok
        key = (not ok, theta_sq_norm(W, a) if ok else resid)
        if best is None or key < best[0]:
            best = (key, W, a, resid)
    _, W, a, resid = best
    return MinNormResult(value=theta_sq_norm(W, a), max_residual=resid, W=W, a=a,
                         lower=float(lower), mu=mu, feasible_runs=int(feasible),
                         runs=len(thetas))
