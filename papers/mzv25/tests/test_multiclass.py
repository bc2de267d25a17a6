"""The K-class quantities of `papers.mzv25.multiclass` on hand-built arrays: exactly collapsed
features give NC1 = 0, an orthogonal frame NC2 = 0, exact self-duality NC3 = 0; Theorem 1's
limit network, built from the formulas of (4)-(6) and (19), has the predicted shares,
margins and NC metrics; the generators meet Assumptions 1 and 4. No trajectory is used (the
vector output is not yet in the model)."""

from __future__ import annotations

import numpy as np
import pytest

from papers.mzv25 import multiclass as mc


def orthonormal(p: int, K: int, seed: int = 0) -> np.ndarray:
    """p x K with orthonormal, non-negative columns (disjoint supports)."""
    rng = np.random.default_rng(seed)
    M = np.zeros((p, K))
    for k, block in enumerate(np.array_split(np.arange(p), K)):
        M[block, k] = rng.uniform(0.5, 1.5, block.size)
    return M / np.linalg.norm(M, axis=0)


# -- geometry ------------------------------------------------------------------------------------
def test_separability_and_its_sharp_bound():
    X = np.array([[1.0, 0.2], [1.0, -0.2], [-1.0, 0.1]])
    mu_s, mu_d = mc.separability(X, np.array([0, 0, 1]))
    c = 1 / np.hypot(1, 0.2)
    assert mu_s == pytest.approx((1 - 0.04) * c**2)
    assert mu_d == pytest.approx(-(-1 + 0.02) * c / np.hypot(1, 0.1))
    # a simplex ETF attains mu_d = 1/(K-1) (derived; the paper's footnote has 1/sqrt(K-1))
    for K in (3, 4, 6):
        E = mc.pseudo_labels(K).T
        assert mc.separability(E, np.arange(K))[1] == pytest.approx(1 / (K - 1))


def test_max_margin_is_the_nearest_point_of_the_hull():
    gamma, u = mc.max_margin(np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert gamma == pytest.approx(1 / np.sqrt(2)) and np.allclose(u, [1, 1] / np.sqrt(2))
    # against a fine search over directions in the plane
    rng = np.random.default_rng(0)
    for _ in range(5):
        P = np.array([2.0, 0.5]) + 0.6 * rng.standard_normal((6, 2))
        P = P[P @ np.array([2.0, 0.5]) > 0]
        gamma, u = mc.max_margin(P)
        angles = np.linspace(0, 2 * np.pi, 200001)
        U = np.stack([np.cos(angles), np.sin(angles)], axis=1)
        best = np.max(np.min(U @ P.T, axis=1))
        # the search's step of 3e-5 rad loses up to |x| 3e-5; it never exceeds the exact value
        assert best <= gamma + 1e-12 and gamma - best < 1e-4
        assert np.min(P @ u) == pytest.approx(gamma, rel=1e-12)
    with pytest.raises(ValueError):
        mc.max_margin(np.array([[1.0, 0.0], [-1.0, 0.0]]))


def test_scale_factors_shares_and_margins():
    gamma = np.array([0.8314, 0.524])
    s = mc.scale_factors(gamma)
    assert np.sum(2 * s**2) == pytest.approx(1.0)
    assert np.allclose(mc.predicted_shares(gamma), [0.38661, 0.61339], atol=1e-5)
    assert np.allclose(s**2 * gamma, mc.predicted_margin(gamma))  # equal normalised margins
    assert mc.predicted_margin(np.ones(3)) == pytest.approx(np.sqrt(1.5) / 6)


def test_pseudo_labels():
    for K in (2, 3, 5):
        E = mc.pseudo_labels(K)
        G = E.T @ E
        assert np.allclose(np.diag(G), 1) and np.allclose(G[~np.eye(K, dtype=bool)], -1 / (K - 1))
        Y = np.eye(K)  # y - 1/K = sqrt((K-1)/K) E y (proof of Lemma 3)
        assert np.allclose(Y - 1 / K, np.sqrt((K - 1) / K) * E @ Y)


# -- NC metrics ----------------------------------------------------------------------------------
def test_collapsed_features_have_nc1_zero_and_an_orthogonal_frame_nc2_zero():
    K, p = 3, 9
    M = orthonormal(p, K)
    labels = np.repeat(np.arange(K), 4)
    Phi = 2.0 * M.T[labels]  # every feature equal to its class mean
    assert mc.nc1(Phi, labels) == pytest.approx(0.0, abs=1e-15)
    assert mc.nc2(Phi, labels) == pytest.approx(0.0, abs=1e-15)
    # directional (not singleton) collapse: scaled copies, NC1 > 0 and NC2 still 0
    scaled = Phi * np.linspace(0.5, 1.5, labels.size)[:, None]
    assert mc.nc1(scaled, labels) > 0 and mc.nc2(scaled, labels) == pytest.approx(0, abs=1e-15)
    # simplex-ETF class means (the UFM's) are not an orthogonal frame
    etf = mc.pseudo_labels(K).T[labels]
    assert mc.nc2(etf, labels) > 0.5


def test_nc3_readings():
    K, p = 3, 9
    M = orthonormal(p, K)
    labels = np.repeat(np.arange(K), 2)
    Phi = M.T[labels]
    V = M @ mc.pseudo_labels(K).T  # the paper's V = E~ M^T, exact self-duality, equal s_k
    assert mc.nc3(V, Phi, labels) == pytest.approx(0.0, abs=1e-14)
    floor = abs(1 - np.sqrt(K / (K - 1)))  # the printed target's norm is sqrt(K/(K-1))
    assert mc.nc3(V, Phi, labels, reading="printed") == pytest.approx(floor)
    assert floor == pytest.approx(0.2247, abs=1e-4)
    with pytest.raises(ValueError):
        mc.nc3(V, Phi, labels, reading="literal")


def test_metrics_carry_a_time_axis():
    rng = np.random.default_rng(1)
    X, labels = mc.etf_clusters(3, 4, 5, 0.1, seed=1)
    W = rng.standard_normal((4, 7, 5))
    V = rng.standard_normal((4, 7, 3))
    Phi = mc.features(X, W)
    stacked = (mc.nc1(Phi, labels), mc.nc2(Phi, labels), mc.nc3(V, Phi, labels),
               mc.normalised_margins(X, labels, W, V), mc.cross_class_overlap(Phi, labels))
    for k in range(4):
        one = (mc.nc1(Phi[k], labels), mc.nc2(Phi[k], labels), mc.nc3(V[k], Phi[k], labels),
               mc.normalised_margins(X, labels, W[k], V[k]),
               mc.cross_class_overlap(Phi[k], labels))
        for a, b in zip(stacked, one, strict=True):
            assert np.allclose(a[k], b)


# -- Theorem 1's limit network ---------------------------------------------------------------
def limit_network(X, labels, per_class: int, vector: bool, seed: int = 0):
    """W_k = s_k u_k g_k^T, V_k = s_k e~_k g_k^T (K classes, (19)) or +-s_k g_k^T (binary,
    (12)), g_k >= 0 unit: rows w_j, v_j of the limit direction theta-bar."""
    gamma, U = mc.class_margins(X, labels)
    s = mc.scale_factors(gamma)
    K = gamma.size
    rng = np.random.default_rng(seed)
    W, V, groups = [], [], []
    for k in range(K):
        g = rng.uniform(0.2, 1.0, per_class)
        g /= np.linalg.norm(g)
        W.append(s[k] * np.outer(g, U[k]))
        if vector:
            V.append(s[k] * np.outer(g, mc.pseudo_labels(K)[:, k]))
        else:
            V.append((1.0 if k == 0 else -1.0) * s[k] * g)
        groups += [k] * per_class
    return np.vstack(W), (np.vstack(V) if vector else np.concatenate(V)), np.array(groups), U


@pytest.mark.parametrize("K", [2, 3, 4])
def test_the_limit_network_has_the_predicted_quantities(K):
    if K == 2:
        X, labels = mc.etf_clusters(2, 6, 4, 0.2, seed=3, in_span=False)
    else:
        X, labels = mc.etf_clusters(K, 5, K + 1, 0.1, seed=K)
    W, V, groups, U = limit_network(X, labels, 3, vector=K > 2)
    pred = mc.predicted_nc(X, labels)
    assert np.sum(W**2) + np.sum(V**2) == pytest.approx(1.0)
    assert np.allclose(mc.group_shares(W, V, groups), pred["shares"])
    assert np.allclose(mc.misalignment(W, groups, U), 0.0, atol=1e-7)
    Phi = mc.features(X, W)
    assert mc.cross_class_overlap(Phi, labels) == 0.0
    assert mc.nc2(Phi, labels) == pytest.approx(0.0, abs=1e-15)
    assert mc.nc1(Phi, labels) == pytest.approx(pred["NC1"], rel=1e-10)
    assert np.allclose(mc.normalised_margins(X, labels, W, V), pred["margin"], rtol=1e-10)
    if K > 2:
        assert mc.nc3(V, Phi, labels) == pytest.approx(pred["NC3"], abs=1e-12)
        assert np.all(mc.neuron_groups(V) == groups)


# -- generators and assumptions ------------------------------------------------------------
@pytest.mark.parametrize("in_span", [True, False])
def test_etf_clusters_meet_a1(in_span):
    for seed in range(4):
        X, labels = mc.etf_clusters(3, 5, 6, 0.15, seed=seed, in_span=in_span)
        mu_s, mu_d = mc.separability(X, labels)
        assert mu_s > 0 and mu_d > 0
        if in_span:
            assert np.allclose(X[:, 3:], 0) and np.allclose(X[:, :3].sum(axis=1), 0)
        assert mc.a5_lhs(X, labels) >= 3 - 1  # >= 1/mu_d >= K - 1 (derived)


def test_pseudo_label_init_satisfies_assumption_4():
    for seed in range(6):
        K = 3 + seed % 3
        X, labels = mc.etf_clusters(K, 4, K + 2, 0.1, seed=seed)
        W0, V0, groups = mc.pseudo_label_init(X, labels, 2 * K, 1e-3, seed=seed)
        assert np.allclose(np.linalg.norm(W0, axis=1), 1e-3)
        assert np.allclose(np.linalg.norm(V0, axis=1), 1e-3)  # A2: |w_j0| = |v_j0|
        assert set(groups) == set(range(K))
        assert mc.semi_local(X, labels, W0, V0) and mc.semi_local(X, labels, W0, V0, groups)
        margins = mc.semi_local_margins(X, labels, W0, V0, groups)
        assert np.allclose(margins[:, 2], 1 / (2 * (K - 1)))  # B_k = 1
    rng = np.random.default_rng(0)
    X, labels = mc.etf_clusters(3, 4, 5, 0.1, seed=0)
    assert not mc.semi_local(X, labels, rng.standard_normal((6, 5)), rng.standard_normal((6, 3)))


def test_alignment_quantities():
    X = np.array([[1.0, 0.0], [0.8, 0.6], [-1.0, 0.1]])
    labels = np.array([0, 0, 1])
    q = mc.alignment(X, labels, np.array([1.0, 0.0]), np.array([1.0, 0.0]))
    assert np.allclose(q["counts"], [2, 0]) and np.allclose(q["A"], [1.8, 0.0])
    assert np.allclose(q["B"], mc.pseudo_labels(2)[0])


def test_orthogonal_margin_and_lemma_6_counterexample():
    X, labels = mc.etf_clusters(3, 6, 3, 0.1, seed=2)
    gamma, U = mc.class_margins(X, labels)
    assert all(mc.orthogonal_margin(X[labels == k], U[k]) > 0 for k in range(3))
    assert np.all(gamma >= mc.separability(X, labels)[0] * np.linalg.norm(X, axis=1).min())
    E = mc.pseudo_labels(3)
    p = E[:, 1] - (E[:, 1] @ E[:, 0]) * E[:, 0]
    B = (np.cos(0.1) * E[:, 0] + np.sin(0.1) * p / np.linalg.norm(p)) @ E
    assert round(B[0], 4) == 0.9950 and round(B[1], 4) == -0.4110
    assert B[1] > 2 * (1 - B[0]) - 0.5  # Lemma 6 as printed fails
    assert abs(B[1] + 0.5) <= np.sqrt(2 * (1 - B[0]))  # the corrected bound holds
