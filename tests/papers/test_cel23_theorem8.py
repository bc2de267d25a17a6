"""CEL23 Theorem 8 (papers/cel23/theorem8.py): M and its certificates, Example 37 (F37a,
F37b), the interpolators of the proof (catalogue section 4.8), Remark 38 (F38), F8a/F8b,
and the minimum interpolation norm (T8(i), T8(ii)). Rows of X are the points."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from papers.cel23 import theorem8 as t8

INV_SQRT2 = 1.0 / math.sqrt(2.0)


def cosines(X, v):
    return X @ v / (np.linalg.norm(X, axis=1) * np.linalg.norm(v))


def check_witness(res: t8.MResult, X, v):
    """The witness lies in the two cones and attains res.value (recomputed here)."""
    d = X.shape[0]
    K = list(res.K)
    Kc = [i for i in range(d) if i not in K]
    assert 0 < len(K) < d
    pc, qc = X @ res.p, X @ res.q  # coefficients in the chi basis
    scale = 1e-12 * max(1.0, float(np.max(np.abs(X))))
    assert np.all(pc[K] >= -scale) and np.all(np.abs(pc[Kc]) <= scale)
    assert np.all(qc[Kc] >= -scale) and np.all(np.abs(qc[K]) <= scale)
    np.testing.assert_allclose(res.p_coef, pc, atol=1e-10)
    np.testing.assert_allclose(res.q_coef, qc, atol=1e-10)
    p, q, vv = (u / np.linalg.norm(u) for u in (res.p, res.q, v))
    cos_pq = float(p @ q)
    sin_pv = math.sin(math.acos(min(1.0, max(-1.0, float(p @ vv)))))
    assert res.value == pytest.approx(cos_pq - sin_pv, abs=1e-7)
    assert res.value <= res.upper


def manual_witness(X, v, K, p, q) -> t8.MResult:
    p, q = p / np.linalg.norm(p), q / np.linalg.norm(q)
    vv = v / np.linalg.norm(v)
    value = float(p @ q) - float(np.linalg.norm(p - (p @ vv) * vv))
    return t8.MResult(value=value, K=tuple(K), p=p, q=q, p_coef=X @ p, q_coef=X @ q,
                      upper=math.inf, cells=0)


def sq_norm_formula(X, v, res):
    """|theta|^2 of section 4.8 from the witness, computed independently of the module."""
    p, q = res.p / np.linalg.norm(res.p), res.q / np.linalg.norm(res.q)
    cos_pq = float(p @ q)
    sin_pq = math.sqrt(max(0.0, 1.0 - cos_pq**2))
    cos_pv = float(p @ v)
    y = np.maximum(X @ v, 0.0)
    if cos_pv >= 0:
        b = X[list(res.K)] @ p
        xi = min(float(np.min(y[list(res.K)][b > 0] / b[b > 0])), cos_pv - sin_pq)
        return 2.0 - xi * (2.0 * (cos_pv - sin_pq) - xi), xi
    xi = -cos_pv - sin_pq
    return 2.0 - xi**2, xi


def pi4_instances(d, count, seed):
    """The centred scheme of section 8 with pi/4 rejection (catalogue section 1)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        mu = rng.normal(size=d)
        mu /= np.linalg.norm(mu)
        X = mu + rng.normal(size=(d, d)) / math.sqrt(d)
        if np.min(cosines(X, mu)) > INV_SQRT2:
            out.append((X, mu))
    return out


# --------------------------------------------------------------------------- basics


def test_chi_rows_invert_the_points():
    X = np.random.default_rng(0).normal(size=(4, 4))
    np.testing.assert_allclose(t8.chi(X) @ X.T, np.eye(4), atol=1e-12)
    with pytest.raises(ValueError):
        t8.chi(np.ones((3, 3)))  # singular
    with pytest.raises(ValueError):
        t8.m_value(np.ones((2, 3)), np.ones(2))  # A3: n = d


def test_nnls_is_correct_where_scipy_nnls_is_not():
    # A cone projection from a d = 4 pi/4 instance. On scipy 1.17.1, scipy.optimize.nnls
    # returns x = (0, 0.979, 0, 0.256) with rnorm 0.849, but its true residual is 3.36.
    # The true answer is x = 0 (scipy issue #25389).
    A = np.array([[-0.971729788750543, 0.22628097318591267, 1.0621326418265202,
                   -1.1128008824630973],
                  [-0.7349593875306992, -1.0309060538876869, 1.5298722214970109,
                   -0.31544406051766877],
                  [3.684516596081388, 1.6489577232679578, -2.0128675193098577,
                   3.3289986281869477],
                  [-3.1137092724393463, -1.3312827795694333, -0.0436065958571316,
                   -1.773033008468309]])
    b = np.array([0.5854427585081641, 0.25565147112535797, 0.4921551421112102,
                  0.5111347798863927])
    x, r = t8.nnls(A, b)
    np.testing.assert_allclose(x, 0.0, atol=1e-12)
    assert r == pytest.approx(np.linalg.norm(b), rel=1e-12)
    assert np.all(A.T @ b <= 1e-12)  # KKT at x = 0: no column improves the fit
    rng = np.random.default_rng(5)
    for _ in range(200):
        d = int(rng.integers(2, 6))
        k = int(rng.integers(1, d + 1))
        A, b = rng.normal(size=(d, k)), rng.normal(size=d)
        x, r = t8.nnls(A, b)
        best = np.linalg.norm(b)
        for size in range(1, k + 1):
            for S in itertools.combinations(range(k), size):
                z = np.zeros(k)
                z[list(S)] = np.linalg.lstsq(A[:, list(S)], b, rcond=None)[0]
                if np.all(z >= 0):
                    best = min(best, float(np.linalg.norm(A @ z - b)))
        assert np.all(x >= 0) and r == pytest.approx(best, abs=1e-10)


# --------------------------------------------------------------------------- F37a


@pytest.mark.parametrize("d,xi", [(2, 0.5), (3, 0.95 / math.sqrt(2)), (4, 0.95 / math.sqrt(3)),
                                  (4, 0.2)])
def test_f37a_family_has_negative_m(d, xi):
    X, v = t8.example37a(d, xi)
    s = np.ones(d)
    C = t8.chi(X)
    for k in range(d):
        np.testing.assert_allclose(C[k], (np.eye(d)[k] - (1 - xi) / d * s) / xi, atol=1e-12)
    gram = C @ C.T
    off = gram[~np.eye(d, dtype=bool)]
    np.testing.assert_allclose(off, -(1 - xi) * (1 + xi) / (xi**2 * d), rtol=1e-10)
    assert t8.is_z_matrix(X)
    np.testing.assert_allclose(np.sum(X**2, axis=1), 1 / d + (d - 1) / d * xi**2, rtol=1e-12)
    np.testing.assert_allclose(cosines(X, v), (1 + (d - 1) * xi**2) ** -0.5, rtol=1e-12)
    assert np.all(cosines(X, v) > INV_SQRT2)  # pi/4 condition
    res = t8.m_value(X, v, starts=4, tol=0.05, max_cells=4000)
    check_witness(res, X, v)
    assert res.value < 0 and res.upper < 0 and res.sign == -1  # F8a: certified M < 0
    # T8(i) through the dual: mu* = X^{-T} v* certifies that Theta_{v*} has the least norm
    assert t8.dual_slack(X, v) <= 1 + 1e-12
    assert t8.min_norm_lower_bound(X, v) == pytest.approx(2.0, abs=1e-12)


@pytest.mark.parametrize("d", [3, 4, 6])
def test_f37a_pi4_threshold_is_exactly_one_over_sqrt_d_minus_1(d):
    edge = 1 / math.sqrt(d - 1)
    below, above = t8.example37a(d, edge * (1 - 1e-6)), t8.example37a(d, edge * (1 + 1e-6))
    assert np.min(cosines(*below)) > INV_SQRT2 > np.max(cosines(*above))
    assert math.sqrt(2 * (math.sqrt(2) - 1) / (d - 1)) < edge  # the paper's bound is sufficient
    with pytest.raises(ValueError):
        t8.example37a(d, 1.0)


# --------------------------------------------------------------------------- F37b

CATALOGUE_NORMS = {(3, 11): 1.99953, (5, 20): 1.97452}


def analytic_m(b):
    return (b - 1) / (b + 1) - math.sqrt(1 - (9 / 25) * b / (b + 1))


@pytest.mark.parametrize("d,b", [(3, 11), (5, 20)])
def test_f37b_family_has_positive_m_and_a_cheaper_interpolator(d, b):
    X, v = t8.example37b(d, b)
    C = t8.chi(X)
    e = np.eye(d)
    np.testing.assert_allclose(C[1], -e[1] / (2 * math.sqrt(b)) + e[2] / 2, atol=1e-12)
    np.testing.assert_allclose(C[2], e[1] / (2 * math.sqrt(b)) + e[2] / 2, atol=1e-12)
    cos = cosines(X, v)
    assert np.all(cos > 4 / 5 * b / (b + 1)) and 4 / 5 * b / (b + 1) >= 11 / 15 > INV_SQRT2

    # the analytic witness (K = {2}, p = chi_2, q = chi_3 in the paper's numbering)
    wit = manual_witness(X, v, (1,), C[1], C[2])
    assert wit.value == pytest.approx(analytic_m(b), abs=1e-12)
    assert analytic_m(b) >= 5 / 6 - math.sqrt(0.67) > 0
    W, a = t8.interpolator(X, v, wit)
    sq = t8.theta_sq_norm(W, a)
    assert np.max(np.abs(t8.network(W, a, X) - t8.labels(X, v))) < 1e-12
    assert sq == pytest.approx(CATALOGUE_NORMS[d, b], abs=5e-6)
    formula, xi = sq_norm_formula(X, v, wit)
    assert sq == pytest.approx(formula, abs=1e-12) and sq <= 2 - xi**2 + 1e-12 < 2
    assert sq >= 2 * np.max(cos)  # F38(i)

    # the numerical M: at least the analytic value, with its own interpolator
    res = t8.m_value(X, v, starts=4, max_cells=300 if d == 3 else 0)
    check_witness(res, X, v)
    assert res.value >= analytic_m(b) - 1e-9 and res.sign == 1
    W, a = t8.interpolator(X, v, res)
    sq = t8.theta_sq_norm(W, a)
    assert np.max(np.abs(t8.network(W, a, X) - t8.labels(X, v))) < 1e-12
    assert sq == pytest.approx(sq_norm_formula(X, v, res)[0], abs=1e-12) and sq < 2
    assert sq >= 2 * np.max(cos)  # F38(i)
    # T8(ii) through the dual: mu* = X^{-T} v* is infeasible, so Theta_{v*} is not optimal
    assert t8.dual_slack(X, v) > 1 + 1e-3


def test_f37b_at_b11_reports_m_0148():
    assert round(analytic_m(11), 4) == 0.0148
    X, v = t8.example37b(3, 11)
    res = t8.m_value(X, v, starts=4)
    assert round(res.value, 4) == 0.0148 and res.upper < 0.0148 + 2e-3  # bracket closes


def test_interpolator_when_p_is_obtuse_to_vstar():
    # chi rows chosen so that the witness p = chi_1 has angle(p, v*) > pi/2
    C = np.array([[1.0, 0.0, 0.0], [math.cos(0.2), math.sin(0.2), 0.0], [-1.0, -0.3, 1.0]])
    X = np.linalg.inv(C.T)
    np.testing.assert_allclose(t8.chi(X), C, atol=1e-12)
    v = C.T @ np.array([0.1, 0.1, 1.0])
    v /= np.linalg.norm(v)
    assert np.all(X @ v > 0)
    wit = manual_witness(X, v, (0,), C[0], C[1])
    assert wit.p @ v < 0 and wit.value > 0
    W, a = t8.interpolator(X, v, wit)
    assert a[1] < 0  # the second case subtracts the r-neuron
    assert np.max(np.abs(t8.network(W, a, X) - t8.labels(X, v))) < 1e-12
    formula, xi = sq_norm_formula(X, v, wit)
    assert t8.theta_sq_norm(W, a) == pytest.approx(2 - xi**2, abs=1e-12)
    assert formula == pytest.approx(2 - xi**2, abs=1e-12) and xi > 0
    res = t8.m_value(X, v, starts=4, max_cells=0)
    assert res.value >= wit.value - 1e-9
    W, a = t8.interpolator(X, v, res)
    assert np.max(np.abs(t8.network(W, a, X) - t8.labels(X, v))) < 1e-12
    assert t8.theta_sq_norm(W, a) < 2


def test_interpolator_caps_xi_by_the_labels_when_they_are_small():
    # case angle(p, v*) <= pi/2 with y_1/b_1 < cos angle(p, v*) - sin angle(p, q): the cap
    # xi <= y_k/b_k keeps w_1 . x_1 >= 0
    C = np.array([[1.0, 0.0, 0.0], [math.cos(0.2), math.sin(0.2), 0.0],
                  [math.cos(0.3), -math.sin(0.3), 0.2]])
    X = np.linalg.inv(C.T)
    v = C.T @ np.array([1e-3, 1e-3, 1.0])
    v /= np.linalg.norm(v)
    wit = manual_witness(X, v, (0,), C[0], C[1])
    assert wit.value > 0 and wit.p @ v > 0
    y = t8.labels(X, v)
    b1 = float(X[0] @ wit.p)
    cos_pq = float(wit.p @ wit.q)
    assert y[0] / b1 < float(wit.p @ v) - math.sqrt(1 - cos_pq**2)  # the cap binds
    assert t8.interpolator_xi(X, v, wit) == pytest.approx(y[0] / b1, rel=1e-12)
    W, a = t8.interpolator(X, v, wit)
    assert np.max(np.abs(t8.network(W, a, X) - y)) < 1e-12
    sq = t8.theta_sq_norm(W, a)
    assert sq == pytest.approx(sq_norm_formula(X, v, wit)[0], abs=1e-12) and sq < 2


def test_interpolator_refuses_a_witness_without_positive_value():
    X, v = t8.example37a(3, 0.5)
    with pytest.raises(ValueError):
        t8.interpolator(X, v, t8.m_value(X, v, max_cells=0))


def test_rank_one_interpolator_is_in_theta_vstar():
    for X, v in (t8.example37a(3, 0.5), t8.example37b(4, 11)):
        W, a = t8.rank_one_interpolator(v, m=3)
        assert t8.theta_sq_norm(W, a) == pytest.approx(2.0, abs=1e-14)
        np.testing.assert_allclose(t8.network(W, a, X), t8.labels(X, v), rtol=1e-14)
        live = np.linalg.norm(W, axis=1) > 0
        assert live.sum() == 1 and a[live][0] > 0
        np.testing.assert_allclose(np.abs(a), np.linalg.norm(W, axis=1), atol=1e-15)
        np.testing.assert_allclose(W[live][0] / np.linalg.norm(W[live][0]), v, atol=1e-15)


# --------------------------------------------------------------------------- F38, F8b


def test_f38_ii_two_dimensions_always_give_negative_m():
    rng = np.random.default_rng(11)
    for _ in range(12):
        angle = rng.uniform(0.05, math.pi / 2 - 0.05)
        base = rng.uniform(0, 2 * math.pi)
        r1, r2 = rng.uniform(0.3, 3.0, size=2)
        x1 = r1 * np.array([math.cos(base), math.sin(base)])
        x2 = r2 * np.array([math.cos(base + angle), math.sin(base + angle)])
        t = base + rng.uniform(0.05, 0.95) * angle
        v = np.array([math.cos(t), math.sin(t)])  # between the points: positive labels
        X = np.stack([x1, x2])
        C = t8.chi(X)
        cos_chi = C[0] @ C[1] / np.linalg.norm(C[0]) / np.linalg.norm(C[1])
        assert math.acos(cos_chi) == pytest.approx(math.pi - angle, abs=1e-9)
        assert math.acos(cos_chi) > math.pi / 2
        res = t8.m_value(X, v)
        check_witness(res, X, v)
        closed = max(cos_chi - math.sin(math.acos(C[k] @ v / np.linalg.norm(C[k])))
                     for k in range(2))
        assert res.value == pytest.approx(closed, abs=1e-9)
        assert res.value < 0 and res.upper < 0 and res.upper - res.value < 1e-9
        assert t8.dual_slack(X, v) <= 1 + 1e-12  # T8(i) when M < 0


@pytest.mark.parametrize("d,seed", [(3, 0), (4, 1)])
def test_f8b_orthogonal_points_give_m_equal_to_minus_the_smallest_cosine(d, seed):
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    X = Q * rng.uniform(0.5, 2.0, size=d)[:, None]  # rows orthogonal, unequal lengths
    coef = rng.uniform(0.2, 1.0, size=d)
    v = Q.T @ coef
    v /= np.linalg.norm(v)
    assert t8.is_z_matrix(X)
    res = t8.m_value(X, v, starts=4, tol=0.05, max_cells=3000)
    check_witness(res, X, v)
    assert abs(res.p @ res.q) < 1e-12  # the cones are orthogonal, so cos angle(p, q) = 0
    # M = -min_K dist(v*, cone_K) = -min_i cos angle(v*, x_i)
    assert res.value == pytest.approx(-np.min(cosines(X, v)), abs=1e-9)
    assert res.upper < 0


# --------------------------------------------------------------------------- T8


def test_t8_i_min_norm_on_f37a_is_two_and_attained_in_theta_vstar():
    X, v = t8.example37a(3, 0.6)
    out = t8.min_norm_interpolation(X, v, m=3, starts=3, seed=0)
    assert out.max_residual < 1e-8 and out.feasible_runs >= 1
    assert out.value >= 2 - 1e-4  # no interpolator found below 2
    assert out.value <= 2 + 1e-6  # and the optimiser does reach 2
    assert out.lower >= 2 - 1e-12  # certified: nothing of any width is below 2
    big = np.abs(out.a) * np.linalg.norm(out.W, axis=1) > 1e-3
    assert big.any()
    for w, a in zip(out.W[big], out.a[big], strict=True):  # the minimiser is in Theta_{v*}
        assert a > 0 and w @ v / np.linalg.norm(w) > 1 - 1e-6
        assert abs(abs(a) - np.linalg.norm(w)) < 1e-3
    # F38(i): |theta|^2 >= 2 cos angle(v*, x_i) for every i. That is the dual bound at
    # mu = e_i/|x_i|.
    cos = cosines(X, v)
    for i in range(3):
        mu = np.eye(3)[i] / np.linalg.norm(X[i])
        assert t8.min_norm_lower_bound(X, v, mu) == pytest.approx(2 * cos[i], rel=1e-12)
    assert out.value >= 2 * np.max(cos) > math.sqrt(2)


def test_t8_ii_min_norm_on_f37b_is_below_two_and_certified():
    X, v = t8.example37b(3, 11)
    out = t8.min_norm_interpolation(X, v, m=3, starts=2, seed=0)
    W, a = t8.interpolator(X, v, t8.m_value(X, v, starts=4, max_cells=0))
    explicit = t8.theta_sq_norm(W, a)
    assert out.max_residual < 1e-9
    assert out.lower <= out.value + 1e-9  # weak duality
    assert out.value <= explicit + 1e-12 < 2  # at least as good as the section 4.8 network
    assert out.value - out.lower < 1e-8  # bracket closed: a global minimum at width 3
    assert out.value >= 2 * np.max(cosines(X, v))  # F38(i)


def test_t8_sign_of_m_matches_whether_theta_vstar_is_optimal_on_random_pi4_data():
    """On random pi/4 instances (section 8's centred scheme, catalogue section 1), M < 0
    must come with dual_slack <= 1 (Theta_{v*} optimal, T8(i)), and M > 0 with
    dual_slack > 1 and a section 4.8 interpolator below 2 (T8(ii)). The two sides are
    computed independently: cones of chi for M, activation patterns for the dual."""
    signs = []
    for d, count, seed in ((3, 12, 1), (4, 4, 7)):
        for X, v in pi4_instances(d, count, seed):
            res = t8.m_value(X, v, starts=3, tol=0.02, max_cells=2500)
            assert res.sign != 0, (res.value, res.upper)
            slack = t8.dual_slack(X, v)
            if res.sign < 0:
                assert slack <= 1 + 1e-9
            else:
                assert slack > 1 + 1e-6
                W, a = t8.interpolator(X, v, res)
                sq = t8.theta_sq_norm(W, a)
                assert np.max(np.abs(t8.network(W, a, X) - t8.labels(X, v))) < 1e-10
                assert t8.min_norm_lower_bound(X, v) <= sq < 2
            signs.append(res.sign)
    assert -1 in signs and 1 in signs


# --------------------------------------------------------------------------- certificates


def test_branch_and_bound_cell_bound_holds_at_every_sampled_point():
    """The cell bound behind MResult.upper: no point of a cell exceeds it."""
    rng = np.random.default_rng(2)
    X, v = pi4_instances(4, 1, 3)[0]
    C = t8.chi(X)
    Cn = C / np.linalg.norm(C, axis=1)[:, None]
    for K in ((0, 1), (1, 2, 3), (0, 2)):
        cone = t8._Cone(K, Cn, v)
        for _ in range(20):
            B = rng.dirichlet(np.ones(len(K)), size=len(K)) + 0.2 * rng.random() * np.eye(len(K))
            B /= np.linalg.norm(B @ cone.G_in, axis=1)[:, None]
            ub, f, _, R = t8._cell(cone, B)
            if not math.isfinite(ub):
                continue
            assert f <= ub
            for lam in rng.dirichlet(np.ones(len(K)), size=100):
                assert cone.F(lam @ B) <= ub


def test_dual_slack_is_the_largest_ratio_of_mu_star_relu_xc_to_c():
    """s(mu*) = max over c of |mu* . relu(X c)| / |c|: sampled c never exceed it, and
    come close to it in d = 3."""
    rng = np.random.default_rng(4)
    for X, v in pi4_instances(3, 4, 9) + [t8.example37b(3, 11)]:
        mu = t8.chi(X) @ v
        s = t8.dual_slack(X, v)
        c = rng.normal(size=(40000, 3))
        ratio = np.abs(np.maximum(c @ X.T, 0.0) @ mu) / np.linalg.norm(c, axis=1)
        assert np.max(ratio) <= s * (1 + 1e-12)
        assert np.max(ratio) >= s - 0.02


def brute_force_m(X, v, grid=401):
    """M for d = 3 by sampling p and q on grids of their cones (no projection step)."""
    Cn = t8.chi(X)
    Cn = Cn / np.linalg.norm(Cn, axis=1)[:, None]
    t = np.linspace(0.0, 1.0, grid)[:, None]
    best = -math.inf
    for K in ((0,), (1,), (2,), (0, 1), (0, 2), (1, 2)):
        Kc = [i for i in range(3) if i not in K]
        sides = []
        for idx in (list(K), Kc):
            pts = Cn[idx[0]][None, :] if len(idx) == 1 else t * Cn[idx[0]] + (1 - t) * Cn[idx[1]]
            sides.append(pts / np.linalg.norm(pts, axis=1)[:, None])
        P, Q = sides
        sin_pv = np.linalg.norm(P - (P @ v)[:, None] * v, axis=1)
        best = max(best, float(np.max(np.max(P @ Q.T, axis=1) - sin_pv)))
    return best


def test_m_value_agrees_with_a_brute_force_over_both_cones():
    cases = pi4_instances(3, 3, 21) + [t8.example37b(3, 11)]
    # one case where the best q lies strictly inside its cone (not on an extreme ray)
    C = np.array([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    v = C.T @ np.array([1.0, 0.3, 0.3])
    cases.append((np.linalg.inv(C.T), v / np.linalg.norm(v)))
    for X, v in cases:
        res = t8.m_value(X, v, starts=4, tol=1e-3, max_cells=4000)
        brute = brute_force_m(X, v)
        assert brute <= res.upper + 1e-12
        assert res.value >= brute - 1e-9
        assert res.upper - res.value <= 1e-3 + 1e-12 or res.cells >= 4000
    X, v = cases[-1]
    res = t8.m_value(X, v, starts=4, max_cells=0)
    assert res.K == (0,)  # p = chi_1, and q = (chi_2 + chi_3)/sqrt 2 beats both rays
    np.testing.assert_allclose(res.q, np.array([1.0, 1.0, 0.0]) / math.sqrt(2), atol=1e-8)
