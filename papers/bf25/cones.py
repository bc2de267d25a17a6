"""BF25's instance quantities from the activation cones of the data, computed exactly.

Everything Theorem 1 and the section 4 assumptions need before any training is a finite
computation over the activation patterns u = A(w) = (sign <w, x_k>)_k that the data
realise (BF25 section 3): for each pattern the set 𝔇_u of subgradients at h = 0, its
minimal-norm element D_u, whether it holds an extremal vector (Definition 1), and from
them D_max, D_min, alpha_min, delta_0 and the threshold lambda*_alpha0 of Eq. (21).

In dimension 2 (the paper's section 4 and 5 data: x~ = (x, 1)) the patterns are found
exactly by sorting the directions orthogonal to the inputs: the open sectors between
consecutive boundary rays, the rays themselves, and {0}. Each sector's pattern is read at
its bisector, where no pre-activation is near 0. For d > 2 only `d_max` is computed (by
linear programming over the sign patterns, for small n); the other quantities say they
are defined for d = 2.

Conventions (BF25 section 3, with its loss ell = (c/2)(yhat - y)^2, c = the Problem's
loss_scale, so d_1 ell(0, y) = -c y): for a pattern u,

    𝔇_u = { (c/n) sum_k eta_k y_k x_k : eta_k = 1 if u_k = 1, gamma if u_k = -1,
            eta_k in [gamma, 1] if u_k = 0 },

gamma the leaky slope (0 for ReLU). The sign of D is that of the paper's
D = -(1/n) sum eta_k d_1 ell x_k.

Length: one routine per quantity of BF25 App. D.1 and App. A (Eqs. (19)-(24), K, the
Assumption 4-6 margins), each short; kept together because they share the enumeration.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from numerics import Problem

# relative tolerance of "exactly 0" in a sign or a norm of these small computations
TOL = 1e-12


class ConeError(ValueError):
    """A quantity that this module computes only in dimension 2 (or for square losses)."""


@dataclass(frozen=True)
class Pattern:
    """One realisable activation pattern u and what BF25 App. D.1 derives from it.

    Attributes
    ----------
    u
        The pattern, a tuple of -1, 0, +1 (one per sample).
    kind
        ``"sector"`` (an open cone of dimension d), ``"ray"`` (a cone of dimension 1 in
        d = 2) or ``"origin"`` (u = 0, w = 0).
    rays
        Unit vectors spanning the closed cone cl A^{-1}(u): two for a sector, one for a
        ray, none for the origin (d = 2).
    base
        D~_u: the fixed part of 𝔇_u (the samples with u_k != 0).
    columns
        Z_u's columns, (c/n) y_k x_k for the samples with u_k = 0 (shape (d, #zeros)).
    eta
        The eta of the minimal-norm element D_u = base + columns @ eta.
    d_min_norm
        D_u, the minimal-norm element of 𝔇_u.
    gamma
        The leaky slope (0 for ReLU): each eta_k of a zero sample ranges over [gamma, 1].
    """

    u: tuple
    kind: str
    rays: tuple
    base: np.ndarray
    columns: np.ndarray
    eta: np.ndarray
    d_min_norm: np.ndarray
    gamma: float = 0.0

    @property
    def zeros(self) -> tuple[int, ...]:
        """The samples k with u_k = 0."""
        return tuple(k for k, s in enumerate(self.u) if s == 0)

    @property
    def contains_zero(self) -> bool:
        """Whether 0 is in 𝔇_u (its minimal-norm element is 0)."""
        return float(np.linalg.norm(self.d_min_norm)) <= TOL * _scale(self)


def _scale(pat: Pattern) -> float:
    return float(np.linalg.norm(pat.base) + np.sum(np.linalg.norm(pat.columns, axis=0)) + 1e-300)


def _slope(problem: Problem) -> float:
    """gamma: 0 for ReLU, the slope of a leaky ReLU; other activations are refused."""
    act = problem.activation
    if getattr(act, "is_relu", False):
        return 0.0
    slope = getattr(act, "slope", None)
    if slope is None or not act.piecewise_linear:
        raise ConeError("the cone quantities are defined for ReLU and leaky ReLU networks")
    return float(slope)


def _weights(problem: Problem) -> np.ndarray:
    """(c/n) y_k x_k, one row per sample: the vectors whose combinations make 𝔇_u."""
    if problem.loss != "square":
        raise ConeError("the cone quantities are computed for the square loss")
    return (problem.loss_scale / problem.n) * problem.y[:, None] * problem.X


def _min_norm(base: np.ndarray, cols: np.ndarray, lo: float) -> np.ndarray:
    """eta in [lo, 1]^k minimising |base + cols @ eta| (k = 0, 1 exactly; larger k by
    bounded least squares)."""
    k = cols.shape[1]
    if k == 0:
        return np.zeros(0)
    if k == 1:
        z = cols[:, 0]
        zz = float(z @ z)
        eta = 0.5 if zz == 0 else float(np.clip(-(base @ z) / zz, lo, 1.0))
        return np.array([eta])
    from scipy.optimize import lsq_linear

    return lsq_linear(cols, -base, bounds=(lo, 1.0), method="bvls", tol=1e-15).x


def _pattern(problem: Problem, u: tuple, kind: str, rays: tuple) -> Pattern:
    gamma = _slope(problem)
    V = _weights(problem)
    coef = np.array([1.0 if s > 0 else (gamma if s < 0 else 0.0) for s in u])
    base = coef @ V
    zeros = [k for k, s in enumerate(u) if s == 0]
    cols = V[zeros].T if zeros else np.zeros((problem.d, 0))
    eta = _min_norm(base, cols, gamma)
    return Pattern(u=u, kind=kind, rays=rays, base=base, columns=cols, eta=eta,
                   d_min_norm=base + cols @ eta, gamma=gamma)


def _signs(values: np.ndarray, scale: float) -> tuple:
    return tuple(int(np.sign(v)) if abs(v) > TOL * scale else 0 for v in values)


def _unit(angle: float) -> np.ndarray:
    return np.array([math.cos(angle), math.sin(angle)])


@functools.lru_cache(maxsize=64)
def patterns(problem: Problem) -> tuple[Pattern, ...]:
    """Every activation pattern the data realise in dimension 2: the open sectors, the
    boundary rays and the origin, each with its 𝔇_u (exact; see the module docstring)."""
    if problem.d != 2:
        raise ConeError(f"the activation cones are enumerated exactly for d = 2 (this "
                        f"instance has d = {problem.d})")
    X = problem.X
    norms = np.linalg.norm(X, axis=1)
    if np.any(norms == 0):
        raise ConeError("an input is 0")
    base = np.arctan2(X[:, 1], X[:, 0])
    angles = np.concatenate([base + math.pi / 2, base - math.pi / 2]) % (2 * math.pi)
    angles = np.sort(angles)
    keep = [angles[0]]
    for a in angles[1:]:
        if a - keep[-1] > 1e-13:
            keep.append(a)
    if 2 * math.pi - keep[-1] + keep[0] <= 1e-13 and len(keep) > 1:
        keep.pop()
    angles = np.array(keep)
    scale = float(norms.max())
    out = []
    for i, a0 in enumerate(angles):
        a1 = angles[(i + 1) % len(angles)] + (2 * math.pi if i + 1 == len(angles) else 0.0)
        r0, r1 = _unit(a0), _unit(a1)
        mid = _unit(0.5 * (a0 + a1))
        out.append(_pattern(problem, _signs(X @ mid, scale), "sector", (r0, r1)))
        out.append(_pattern(problem, _signs(X @ r0, scale), "ray", (r0,)))
    out.append(_pattern(problem, (0,) * problem.n, "origin", ()))
    return tuple(out)


# -- geometry of a pattern's closed cone ---------------------------------------------------------
def _in_closed_cone(pat: Pattern, v: np.ndarray) -> bool:
    """Whether v (non-zero) lies in cl A^{-1}(u), up to TOL."""
    nv = float(np.linalg.norm(v))
    if nv == 0 or pat.kind == "origin":
        return False
    vb = v / nv
    if pat.kind == "ray":
        r = pat.rays[0]
        return abs(_cross(r, vb)) <= 1e-10 and float(r @ vb) > 0
    r0, r1 = pat.rays
    # v in the closed sector from r0 counter-clockwise to r1 (opening below pi)
    return _cross(r0, vb) >= -1e-10 and _cross(vb, r1) >= -1e-10


def _cross(a: np.ndarray, b: np.ndarray) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def _cos_range(pat: Pattern, D: np.ndarray) -> tuple[float, float]:
    """(max, min) of cos(w, D) over w in cl A^{-1}(u) without 0 (cos is unimodal on the
    circle: an extremum is at D's (or -D's) direction when that is in the cone, else at a
    boundary ray)."""
    Db = D / np.linalg.norm(D)
    vals = [float(r @ Db) for r in pat.rays]
    hi = 1.0 if _in_closed_cone(pat, Db) else max(vals)
    lo = -1.0 if _in_closed_cone(pat, -Db) else min(vals)
    return hi, lo


def _segment_meets(pat: Pattern, sign: float) -> np.ndarray | None:
    """A non-zero element of 𝔇_u inside sign * cl A^{-1}(u), or None."""
    if pat.kind == "origin":
        return None
    if pat.columns.shape[1] == 0:
        D = pat.base
        return D if np.linalg.norm(D) > TOL * _scale(pat) and _in_closed_cone(pat, sign * D) \
            else None
    if pat.columns.shape[1] > 1:
        raise ConeError("a pattern with several zero samples (collinear inputs)")
    # the segment base + eta z, eta in [gamma, 1], against the ray(s) of the cone
    z = pat.columns[:, 0]
    for r in pat.rays:
        # base + eta z = s r with s > 0 (times sign): cross(base + eta z, r) = 0
        cb, cz = _cross(pat.base, r), _cross(z, r)
        if abs(cz) <= 1e-15:
            continue
        eta = -cb / cz
        if not (pat.gamma - 1e-12 <= eta <= 1.0 + 1e-12):
            continue
        D = pat.base + eta * z
        if sign * float(D @ r) > TOL * _scale(pat):
            return D
    return None


def extremal(pat: Pattern) -> tuple[np.ndarray, ...]:
    """The extremal vectors of 𝔇_u (Definition 1): a non-zero D in 𝔇_u lying in
    cl A^{-1}(u) (a critical point of G that positive neurons approach) or in
    -cl A^{-1}(u) (negative neurons); none, one or both."""
    found = []
    for sign in (1.0, -1.0):
        D = _segment_meets(pat, sign)
        if D is not None:
            found.append(D)
    return tuple(found)


# -- the quantities of Theorem 1 and App. D.1 -----------------------------------------------------
def d_max(problem: Problem) -> float:
    """D_max = max_w |D(w, 0)|: the largest |D_u| over the open cones (a boundary pattern's
    minimal-norm element is no longer than its neighbouring cones'). Exact in d = 2; for
    d > 2 the open cones are found by linear programming over the 2^n sign patterns."""
    if problem.d == 2:
        return max(float(np.linalg.norm(p.d_min_norm)) for p in patterns(problem)
                   if p.kind == "sector")
    return max(float(np.linalg.norm(_pattern(problem, u, "sector", ()).d_min_norm))
               for u in _open_patterns(problem))


def _open_patterns(problem: Problem) -> list[tuple]:
    """The sign patterns of the open cones, by LP feasibility (n at most 12)."""
    from scipy.optimize import linprog

    X = problem.X / np.linalg.norm(problem.X, axis=1, keepdims=True)
    n, d = X.shape
    if n > 12:
        raise ConeError(f"D_max by enumeration of 2^n patterns needs n <= 12 (n = {n})")
    found = []
    for signs in itertools.product((1, -1), repeat=n):
        s = np.array(signs, dtype=float)
        # maximise t subject to s_k <w, x_k> >= t, |w_i| <= 1
        c = np.zeros(d + 1)
        c[-1] = -1.0
        A = np.hstack([-(s[:, None] * X), np.ones((n, 1))])
        res = linprog(c, A_ub=A, b_ub=np.zeros(n), bounds=[(-1, 1)] * d + [(None, 1)],
                      method="highs")
        if res.status == 0 and -res.fun > 1e-9:
            found.append(signs)
    return found


def d_star(problem: Problem) -> np.ndarray:
    """D* = (c/n) sum_k y_k x_k (BF25 section 4.1.1; the all-active pattern's D)."""
    return _weights(problem).sum(axis=0)


def _nonzero(pats) -> list[Pattern]:
    return [p for p in pats if not p.contains_zero]


def d_min(problem: Problem) -> float:
    """D_min = min over patterns with 0 not in 𝔇_u of min |D| over 𝔇_u (Eq. (22))."""
    return min(float(np.linalg.norm(p.d_min_norm)) for p in _nonzero(patterns(problem)))


def alpha_min(problem: Problem) -> tuple[float, float]:
    """(alpha_min,+, alpha_min,-) of Eqs. (23)-(24), as printed: the largest cos(w, D_u)
    over w in cl A^{-1}(u) and the patterns whose 𝔇_u misses cl A^{-1}(u) (and 0), and the
    smallest over those missing -cl A^{-1}(u); alpha = sqrt(1 - extremum^2). A side with no
    such pattern gives 1 (the constraint is vacuous)."""
    plus, minus = [], []
    for p in _nonzero(patterns(problem)):
        if p.kind == "origin":
            continue
        hi, lo = _cos_range(p, p.d_min_norm)
        if _segment_meets(p, 1.0) is None:
            plus.append(hi)
        if _segment_meets(p, -1.0) is None:
            minus.append(lo)

    a_plus = 1.0 if not plus else math.sqrt(max(0.0, 1.0 - max(plus) ** 2))
    a_minus = 1.0 if not minus else math.sqrt(max(0.0, 1.0 - min(minus) ** 2))
    return a_plus, a_minus


def delta_0(problem: Problem) -> tuple[float, float]:
    """(delta_0', delta_0'') of Eq. (20): over the patterns whose 𝔇_u holds an extremal
    vector, sigma_min(Z_u) min(eta_k - gamma, 1 - eta_k) over the zero samples, and
    |<D_u, x_k>|/|x_k| over the others (min of nothing = inf)."""
    gamma = _slope(problem)
    first, second = math.inf, math.inf
    X = problem.X
    for p in patterns(problem):
        if not extremal(p):
            continue
        if p.zeros:
            sigma = float(np.linalg.svd(p.columns, compute_uv=False).min())
            for eta in p.eta:
                first = min(first, sigma * min(eta - gamma, 1.0 - eta))
        for k, s in enumerate(p.u):
            if s != 0:
                second = min(second, abs(float(p.d_min_norm @ X[k])) / float(
                    np.linalg.norm(X[k])))
    return first, second


def lam_star_base(problem: Problem, alpha0: float = 1.0) -> float:
    """The base of Eq. (21): lambda*_alpha0 = base^(1/(2 - 4 eps)), with
    base = min( n/sum|x_k|^2 min(alpha_min^2 D_min/8, alpha0^2 D_min/4, delta_0),
    min_k |d_1 ell(0, y_k)|/|x_k| )."""
    a_plus, a_minus = alpha_min(problem)
    a = min(a_plus, a_minus)
    dm = d_min(problem)
    delta = min(delta_0(problem))
    X = problem.X
    inner = problem.n / float(np.sum(X**2)) * min(a**2 * dm / 8, alpha0**2 * dm / 4, delta)
    labels = float(np.min(problem.loss_scale * np.abs(problem.y) / np.linalg.norm(X, axis=1)))
    return min(inner, labels)


def num_extremal(problem: Problem) -> tuple[int, int]:
    """(number of distinct positive extremal directions, of negative ones): extremal
    vectors in cl A^{-1}(u) (local maxima of G's candidates) and in -cl A^{-1}(u)."""
    plus, minus = [], []
    for p in patterns(problem):
        for D in extremal(p):
            Db = D / np.linalg.norm(D)
            side = plus if _in_closed_cone(p, D) else minus
            if not any(float(Db @ q) > 1 - 1e-9 for q in side):
                side.append(Db)
    return len(plus), len(minus)


def lemma2_margin(problem: Problem) -> float:
    """How far the instance is from Lemma 2's degenerate cases (> 0: Lemma 2 holds): the
    smallest angle (radians) between +-D_u and a boundary ray of its open sector, over the
    sectors with D_u != 0, and the smallest |sin| between two of the y_k x_k (any d = 2 of
    them independent); 0 where a case is degenerate. Rays and the origin cannot fail
    (their manifold boundary is {0})."""
    margins = []
    for p in patterns(problem):
        if p.kind != "sector" or p.contains_zero:
            continue
        Db = p.d_min_norm / np.linalg.norm(p.d_min_norm)
        for r in p.rays:
            for s in (1.0, -1.0):
                margins.append(math.acos(float(np.clip(s * Db @ r, -1.0, 1.0))))
    V = _weights(problem)
    if np.any(np.linalg.norm(V, axis=1) == 0):
        return 0.0
    Vb = V / np.linalg.norm(V, axis=1, keepdims=True)
    for i, j in itertools.combinations(range(problem.n), 2):
        margins.append(abs(_cross(Vb[i], Vb[j])))
    return float(min(margins)) if margins else math.inf


# -- section 4 and App. A ------------------------------------------------------------------------
def beta_star(problem: Problem) -> np.ndarray:
    """beta* = (X^T X)^-1 X^T y, the least-squares estimator (Theorem 2)."""
    return np.linalg.lstsq(problem.X, problem.y, rcond=None)[0]


def loss_ls(problem: Problem) -> float:
    """L_LS = (c/(2n)) sum_k (y_k - <beta*, x_k>)^2, the loss at the OLS predictions."""
    r = problem.y - problem.X @ beta_star(problem)
    return float(problem.loss_scale * np.mean(r**2) / 2)


def extreme_points(problem: Problem) -> tuple[int, ...]:
    """K = {k : some w != 0 has <w, x_k> = 0 and <w, x_k'> >= 0 for every k'} (App. A), in
    d = 2 (w = +-x_k rotated by 90 degrees)."""
    if problem.d != 2:
        raise ConeError("K is computed for d = 2")
    X = problem.X
    out = []
    for k in range(problem.n):
        perp = np.array([-X[k, 1], X[k, 0]]) / np.linalg.norm(X[k])
        for s in (1.0, -1.0):
            z = s * (X @ perp)
            z[k] = 0.0
            if np.all(z >= -TOL * np.linalg.norm(X, axis=1)):
                out.append(k)
                break
    return tuple(out)


def a4_holds(problem: Problem) -> bool:
    """Assumption 4: every <x_k, x_k'> > 0, every y_k > 0, n >= d and any d of the x_k
    linearly independent."""
    X, y = problem.X, problem.y
    G = X @ X.T
    if not (np.all(G > 0) and np.all(y > 0) and problem.n >= problem.d):
        return False
    for rows in itertools.combinations(range(problem.n), problem.d):
        sv = np.linalg.svd(X[list(rows)], compute_uv=False)
        if sv.min() <= 1e-12 * sv.max():
            return False
    return True


def a5_margin(problem: Problem) -> float:
    """min over k in K of y_k |x_k|^2 - sqrt(sum_k' y_k'^2) sqrt(sum_{k' != k} <x_k', x_k>^2)
    (> 0: Assumption 5 holds); inf when K is empty."""
    X, y = problem.X, problem.y
    G = X @ X.T
    vals = []
    for k in extreme_points(problem):
        others = np.delete(G[k], k)
        vals.append(float(y[k] * G[k, k] - np.linalg.norm(y) * np.linalg.norm(others)))
    return min(vals) if vals else math.inf


def a6_margin(problem: Problem) -> float:
    """min over k in K of y_k - <beta*, x_k>: Assumption 6's first part (> 0); for three
    points its second part is equivalent to it (BF25 App. A, p. 28). inf when K is empty."""
    r = problem.y - problem.X @ beta_star(problem)
    ks = extreme_points(problem)
    return float(min(r[k] for k in ks)) if ks else math.inf


def a3_eta(problem: Problem) -> float:
    """The least eta for which the data satisfy Assumption 3 (three points in R^2, in their
    order), or inf: x_1 in (-1, -1+eta] x [1, 1+eta], y_1 in [1, 1+eta]; x_2 in [-eta, eta]
    x [1-eta, 1+eta], y_2 in (0, eta]; x_3 in [1-eta, 1) x [1, 1+eta], y_3 in [1, 1+eta]."""
    if problem.n != 3 or problem.d != 2:
        return math.inf
    (a1, b1), (a2, b2), (a3, b3) = problem.X
    y1, y2, y3 = problem.y
    if not (a1 > -1 and b1 >= 1 and y1 >= 1 and y2 > 0 and a3 < 1 and b3 >= 1 and y3 >= 1):
        return math.inf
    return float(max(a1 + 1, b1 - 1, y1 - 1, abs(a2), abs(b2 - 1), y2, 1 - a3, b3 - 1,
                     y3 - 1))


def _residuals(problem: Problem) -> np.ndarray:
    return problem.y - problem.X @ beta_star(problem)


def descent_counts(problem: Problem) -> tuple[int, int]:
    """At the OLS point (the network h = <beta*, x> on the data), the number of open cones
    with some samples active and some not in which a small new neuron lowers the loss:
    (with a_j > 0, with a_j < 0). A balanced neuron of size s in cone u changes the loss by
    -s^2 <w^, g_u> + O(s^3) times sign(a_j), g_u = (c/n) sum_{u_k = 1} r_k x_k (derived,
    catalogue BF25-F2b); it descends iff sign(a_j) <w^, g_u> > 0 somewhere in the cone."""
    if problem.d != 2:
        raise ConeError("the descent cones are computed for d = 2")
    r = _residuals(problem)
    c = problem.loss_scale / problem.n
    plus = minus = 0
    for p in patterns(problem):
        if p.kind != "sector" or all(s == 1 for s in p.u) or not any(s == 1 for s in p.u):
            continue
        g = c * sum(r[k] * problem.X[k] for k, s in enumerate(p.u) if s == 1)
        vals = [float(ray @ g) for ray in p.rays]
        tol = 1e-12 * (float(np.linalg.norm(g)) + 1e-300)
        plus += max(vals) > tol
        minus += min(vals) < -tol
    return plus, minus


def two_neuron_fit(problem: Problem) -> bool:
    """Whether two ReLU neurons with positive output weights interpolate three positive
    labels (BF25 p. 11: two neurons suffice where the OLS line does not): one fits two
    samples exactly
    and is off on the third, the other is on the third sample alone (d = 2, n = 3)."""
    if problem.n != 3 or problem.d != 2 or not np.all(problem.y > 0):
        return False
    X, y = problem.X, problem.y
    pats = patterns(problem)
    for alone in range(3):
        pair = [k for k in range(3) if k != alone]
        try:
            w = np.linalg.solve(X[pair], y[pair])
        except np.linalg.LinAlgError:
            continue
        if not (float(X[alone] @ w) <= 0 and np.all(X[pair] @ w > 0)):
            continue
        # the second neuron: a cone where only the lone sample is active
        if any(p.kind == "sector" and p.u[alone] == 1 and all(p.u[k] == -1 for k in pair)
               for p in pats):
            return True
    return False


def dead_cone_fraction(problem: Problem) -> float:
    """The fraction of directions w (uniform on the circle) with <w, x_k> <= 0 for every k:
    the probability that a Gaussian first-layer row starts inactive on all data (d = 2)."""
    total = 0.0
    for p in patterns(problem):
        if p.kind == "sector" and all(s == -1 for s in p.u):
            r0, r1 = p.rays
            total += math.acos(float(np.clip(r0 @ r1, -1.0, 1.0)))
    return total / (2 * math.pi)
