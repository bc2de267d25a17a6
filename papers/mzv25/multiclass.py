"""MZV25's quantities as plain functions of arrays, for K >= 2 classes (the K-class case
needs the model's vector output, in progress in `numerics`; the binary measures of
`papers.mzv25.measures` call the same functions with K = 2).

Conventions (the paper's points are columns; here they are rows):

- ``X`` (n, d): the inputs x_i as rows; ``labels`` (n,): integer classes 0 .. K-1;
- ``W`` (p, d) or (T, p, d): the input weights w_j as rows, at one time or at T times;
- ``V`` (p, K) or (T, p, K): the output weights v_j in R^K as rows (the paper's V is the
  transpose, K x p); a scalar output (the binary case) is ``V`` of shape (p,) or (T, p);
- ``groups`` (p,): the class k of each neuron (the paper's partition {N_k} of Assumption 4),
  -1 for a neuron in no group.

A leading time axis is carried through: a function of W and V returns one value per time.

Definitions (catalogue MZV25-D1 .. D7; page ``docs/papers/mzv25.md``):

- separability (A1): mu_s = min over same-class pairs of cos(x_i, x_j), mu_d = -max over
  cross-class pairs (A1 holds iff both are > 0);
- the class-wise max margin (eq. (4)): gamma_k = max_{|u| = 1} min_{i in I_k} <x_i, u>, u_k its
  maximiser. Computed as the minimum-norm point z of the convex hull of the class's points
  (Wolfe's algorithm, exact up to rounding): gamma_k = |z| and u_k = z/|z| whenever the hull
  does not contain 0, which A1 guarantees;
- scale factors s_k = sqrt(gamma_k^-1 / (2 sum_k' gamma_k'^-1)) (Theorem 1), so sum 2 s_k^2 = 1;
- pseudo-labels E~ = sqrt(K/(K-1)) (I_K - 11^T/K) (section 4.2), e~_k its k-th column;
- NC1, NC2, NC3 of App. B.2 on the features phi(x_i) = relu(W x_i) (see `nc1`, `nc2`, `nc3`
  for the reading of the printed formulas).

Generators (section 4.2 and catalogue section 1): `etf_clusters` (near-simplex-ETF clusters
satisfying A1) and `pseudo_label_init` (the "Limitations" paragraph's shapes drawn from the
pairs (x_i, E~ y_i), which satisfy Assumption 4).

Length (~420 lines): one function per quantity of the paper, each with its shapes; no
trajectory or Problem is used here (`papers.mzv25.measures` reads them off runs).
"""

from __future__ import annotations

import numpy as np

#: relative tolerance of Wolfe's minimum-norm-point iterations (optimality and the weights)
WOLFE_TOL = 1e-13


# -- data geometry --------------------------------------------------------------------------
def unit_rows(X: np.ndarray) -> np.ndarray:
    """Each row divided by its norm (rows must be non-zero)."""
    X = np.asarray(X, dtype=float)
    return X / np.linalg.norm(X, axis=-1, keepdims=True)


def num_classes(labels: np.ndarray) -> int:
    """K = 1 + the largest label (labels are 0 .. K-1)."""
    return int(np.max(labels)) + 1


def separability(X: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """(mu_s, mu_d) of Assumption 1: the smallest cosine between two points of one class and
    minus the largest cosine between points of two classes (A1: both > 0)."""
    labels = np.asarray(labels)
    C = unit_rows(X) @ unit_rows(X).T
    same = labels[:, None] == labels[None, :]
    mu_s = float(C[same].min())
    mu_d = float(-C[~same].max()) if (~same).any() else float("inf")
    return mu_s, mu_d


def min_norm_point(P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The point of the convex hull of the rows of ``P`` nearest the origin, and its convex
    weights (Wolfe 1976, the minimum-norm-point algorithm: exact up to rounding)."""
    P = np.asarray(P, dtype=float)
    m = P.shape[0]
    scale = float(np.max(np.sum(P**2, axis=1)))
    S = [int(np.argmin(np.sum(P**2, axis=1)))]
    lam = np.array([1.0])
    x = P[S[0]].copy()
    for _ in range(50 * m + 50):
        j = int(np.argmin(P @ x))
        if x @ x - P[j] @ x <= WOLFE_TOL * scale or j in S:
            break
        S.append(j)
        lam = np.append(lam, 0.0)
        while True:
            Q = P[S]
            k = len(S)
            kkt = np.zeros((k + 1, k + 1))
            kkt[:k, :k] = Q @ Q.T
            kkt[:k, k] = 1.0
            kkt[k, :k] = 1.0
            rhs = np.zeros(k + 1)
            rhs[k] = 1.0
            mu = np.linalg.lstsq(kkt, rhs, rcond=None)[0][:k]
            if np.all(mu > WOLFE_TOL):
                lam = mu
                break
            down = (mu <= WOLFE_TOL) & (lam - mu > 0)
            theta = float(np.min(lam[down] / (lam[down] - mu[down]))) if down.any() else 1.0
            lam = lam + theta * (mu - lam)
            keep = lam > WOLFE_TOL
            S = [s for s, kp in zip(S, keep, strict=True) if kp]
            lam = lam[keep] / lam[keep].sum()
        x = lam @ P[S]
    weights = np.zeros(m)
    weights[S] = lam
    return x, weights


def max_margin(Xk: np.ndarray) -> tuple[float, np.ndarray]:
    """(gamma_k, u_k) of eq. (4) for one class's points ``Xk`` (rows): the max-margin
    direction of the class alone. gamma_k = distance of the convex hull from the origin,
    u_k = the nearest point's direction; a ValueError when the hull contains the origin
    (then gamma_k <= 0: not a positively correlated class)."""
    z, _ = min_norm_point(Xk)
    gamma = float(np.linalg.norm(z))
    if gamma <= 1e-12 * float(np.max(np.linalg.norm(Xk, axis=1))):
        raise ValueError("max_margin: the class's convex hull contains the origin")
    u = z / gamma
    return float(np.min(np.asarray(Xk) @ u)), u


def class_margins(X: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(gamma (K,), U (K, d)): every class's max margin and max-margin direction."""
    K = num_classes(labels)
    out = [max_margin(np.asarray(X)[np.asarray(labels) == k]) for k in range(K)]
    return np.array([g for g, _ in out]), np.stack([u for _, u in out])


def scale_factors(gamma: np.ndarray) -> np.ndarray:
    """s_k = sqrt(gamma_k^-1 / (2 sum_k' gamma_k'^-1)) of Theorem 1, shape (K,)."""
    inv = 1.0 / np.asarray(gamma, dtype=float)
    return np.sqrt(inv / (2.0 * inv.sum()))


def predicted_shares(gamma: np.ndarray) -> np.ndarray:
    """The limit shares (|W_k|^2 + |V_k|^2)/|theta|^2 = 2 s_k^2 = gamma_k^-1/sum gamma^-1."""
    return 2.0 * scale_factors(gamma) ** 2


def predicted_margin(gamma: np.ndarray, K: int | None = None) -> float:
    """The common limit of the normalised margins q_k (derived from Theorem 1):
    1/(2 sum_k gamma_k^-1) for the binary case (the output y f), times sqrt(K/(K-1)) for the
    K-class logit gap [f]_k - max_l [f]_l."""
    gamma = np.asarray(gamma, dtype=float)
    K = gamma.size if K is None else K
    base = 1.0 / (2.0 * np.sum(1.0 / gamma))
    return base if K == 2 else base * np.sqrt(K / (K - 1.0))


def a5_lhs(X: np.ndarray, labels: np.ndarray) -> float:
    """X_max^2 / (X_min^2 mu_d mu_s^2), the left side of Proposition 1's condition (< 2K - 3)."""
    norms = np.linalg.norm(X, axis=1)
    mu_s, mu_d = separability(X, labels)
    return float(norms.max() ** 2 / (norms.min() ** 2 * mu_d * mu_s**2))


def orthogonal_margin(Xk: np.ndarray, u: np.ndarray, samples: int = 20000,
                      seed: int = 0) -> float:
    """Lemma 12's gamma_perp for one class, restricted to span(X_k) (the restriction the
    lemma needs, catalogue section 5 item 11): min over unit xi in span(X_k), xi _|_ u, of
    max_i <xi, x_i>, estimated from above by sampling xi (0 if the span is 1-dimensional)."""
    Xk = np.asarray(Xk, dtype=float)
    basis = np.linalg.svd(Xk, full_matrices=False)[2]
    rank = int(np.sum(np.linalg.svd(Xk, compute_uv=False) > 1e-12 * np.abs(Xk).max()))
    B = basis[:rank]
    B = B - np.outer(B @ u, u)  # the span's directions orthogonal to u
    Q, sv, _ = np.linalg.svd(B.T, full_matrices=False)
    Q = Q[:, sv > 1e-12]
    if Q.shape[1] == 0:
        return 0.0
    xi = np.random.default_rng(seed).standard_normal((samples, Q.shape[1])) @ Q.T
    xi = unit_rows(xi)
    return float(np.min(np.max(xi @ Xk.T, axis=1)))


def gap_zeta(X: np.ndarray, labels: np.ndarray) -> float:
    """Lemma 9's zeta, exactly: min over classes k and realisable proper subsets S of I_k
    (some w activates exactly S among the class: a linear programme) of 1 - c_S^2, where
    c_S = max over the closed cone {w : <w, x_i> >= 0 on S, <= 0 on I_k \\ S} of the cosine
    between w and x_S = sum_{i in S} x_i, the norm of x_S/|x_S|'s projection on the cone
    (Moreau: minus the least-squares residual of the polar cone, `scipy.optimize.nnls`).
    inf when no class has two points."""
    from itertools import combinations

    from scipy.optimize import linprog, nnls

    X = np.asarray(X, dtype=float)
    labels = np.asarray(labels)
    best = np.inf
    for k in range(num_classes(labels)):
        Xk = X[labels == k]
        m = Xk.shape[0]
        for size in range(1, m):
            for S in combinations(range(m), size):
                inside = np.zeros(m, dtype=bool)
                inside[list(S)] = True
                # realisable: max t with <w, x_i> >= t on S, <= 0 elsewhere, |w_l| <= 1
                A = np.vstack([np.hstack([-Xk[inside], np.ones((size, 1))]),
                               np.hstack([Xk[~inside], np.zeros((m - size, 1))])])
                res = linprog(np.r_[np.zeros(X.shape[1]), -1.0], A_ub=A, b_ub=np.zeros(m),
                              bounds=[(-1, 1)] * X.shape[1] + [(0, 1)], method="highs")
                if not res.success or -res.fun <= 1e-12:
                    continue
                g = Xk[inside].sum(axis=0)
                g = g / np.linalg.norm(g)
                polar = np.vstack([-Xk[inside], Xk[~inside]])  # the cone is {w : polar w <= 0}
                mu, _ = nnls(polar.T, g)
                cos = float(np.linalg.norm(g - polar.T @ mu))
                best = min(best, 1.0 - min(cos, 1.0) ** 2)
    return float(best)


# -- pseudo-labels and the alignment quantities of section 4.2 -----------------------------
def pseudo_labels(K: int) -> np.ndarray:
    """E~ = sqrt(K/(K-1)) (I_K - 11^T/K), shape (K, K); its columns e~_k are unit vectors with
    <e~_k, e~_k'> = -1/(K-1)."""
    return np.sqrt(K / (K - 1.0)) * (np.eye(K) - np.ones((K, K)) / K)


def alignment(X: np.ndarray, labels: np.ndarray, w: np.ndarray, v: np.ndarray) -> dict:
    """The quantities of Assumption 4 for one neuron pair (w, v) (D4): per class k, the
    count |I_k^w| of class-k points with alpha_i = <x_i, w/|w|> > 0, the aggregate alignment
    A_k^w = sum of those alpha_i, and B_k^v = <e~_k, v/|v|>. Arrays of shape (K,)."""
    K = num_classes(labels)
    alpha = np.asarray(X) @ (w / np.linalg.norm(w))
    active = alpha > 0
    labels = np.asarray(labels)
    counts = np.array([np.sum(active & (labels == k)) for k in range(K)], dtype=float)
    A = np.array([np.sum(alpha[active & (labels == k)]) for k in range(K)])
    B = pseudo_labels(K).T @ (v / np.linalg.norm(v))
    return {"counts": counts, "A": A, "B": B}


def semi_local_margins(X: np.ndarray, labels: np.ndarray, W0: np.ndarray, V0: np.ndarray,
                       groups: np.ndarray | None = None) -> np.ndarray:
    """Assumption 4 per neuron: the three margins (each > 0, > 0, >= 0 when it holds)
    |I_k^w|^2 - sum_{k' != k} |I_k'^w|^2, A_k^w - 2 sum_{k' != k} A_k'^w and
    B_k^v - (1 - 1/(2(K-1))), with k the neuron's group (default: argmax_k B_k^v, the only
    partition possible when B_k >= 1 - 1/(2(K-1)) > 1/2). Shape (p, 3)."""
    K = num_classes(labels)
    out = np.zeros((W0.shape[0], 3))
    for j in range(W0.shape[0]):
        q = alignment(X, labels, W0[j], V0[j])
        k = int(np.argmax(q["B"])) if groups is None else int(groups[j])
        others = np.arange(K) != k
        out[j] = (q["counts"][k] ** 2 - np.sum(q["counts"][others] ** 2),
                  q["A"][k] - 2.0 * np.sum(q["A"][others]),
                  q["B"][k] - (1.0 - 1.0 / (2.0 * (K - 1))))
    return out


def semi_local(X, labels, W0, V0, groups=None) -> bool:
    """Whether Assumption 4 holds with the partition ``groups`` (default argmax_k B_k), every
    class receiving at least one neuron."""
    m = semi_local_margins(X, labels, W0, V0, groups)
    K = num_classes(labels)
    g = np.argmax(pseudo_labels(K).T @ unit_rows(V0).T, axis=0) if groups is None else groups
    return bool(np.all(m[:, 0] > 0) and np.all(m[:, 1] > 0) and np.all(m[:, 2] >= 0)
                and set(range(K)) <= set(np.asarray(g).tolist()))


def alignment_along(X: np.ndarray, labels: np.ndarray, W: np.ndarray,
                    groups: np.ndarray) -> dict:
    """Assumption 4's quantities along a run for each neuron and its own group k(j) (the
    partition fixed at t = 0): ``counts`` (T, p, K) of |I_k'^(w_j)|, ``A`` (T, p, K) of the
    aggregate alignments A_k'^(w_j) = sum of <x_i, w_j/|w_j|> over the active points of class
    k', and the margins ``count_margin`` |I_k|^2 - sum_{k' != k} |I_k'|^2 and ``align_margin``
    A_k - 2 sum_{k' != k} A_k', each (T, p)."""
    X = np.asarray(X, dtype=float)
    labels = np.asarray(labels)
    K = num_classes(labels)
    W = np.asarray(W, dtype=float)
    norms = np.linalg.norm(W, axis=-1, keepdims=True)
    alpha = np.einsum("tjd,id->tji", W / np.where(norms > 0, norms, 1.0), X)  # (T, p, n)
    active = alpha > 0
    onehot = (labels[:, None] == np.arange(K)[None, :]).astype(float)  # (n, K)
    counts = active.astype(float) @ onehot
    A = np.where(active, alpha, 0.0) @ onehot
    own = np.eye(K, dtype=bool)[np.asarray(groups)]  # (p, K)
    count_own = np.sum(np.where(own, counts, 0.0), axis=-1)
    count_other = np.sum(np.where(own, 0.0, counts**2), axis=-1)
    A_own = np.sum(np.where(own, A, 0.0), axis=-1)
    A_other = np.sum(np.where(own, 0.0, A), axis=-1)
    return {"counts": counts, "A": A, "count_margin": count_own**2 - count_other,
            "align_margin": A_own - 2.0 * A_other}


def angular_residual(X: np.ndarray, labels: np.ndarray, W: np.ndarray, V: np.ndarray,
                     dW: np.ndarray, dV: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lemma 3's residuals of the early angular dynamics (16)-(17) per neuron, (T, p) each:
    |dw^_j/dt - P_perp(w^_j) sqrt((K-1)/K) sum_i xi_ij <e~_(y_i), v^_j> x_i| and
    |dv^_j/dt - P_perp(v^_j) sqrt((K-1)/K) sum_i xi_ij <w^_j, x_i> e~_(y_i)|, with
    dw^/dt = P_perp(w^) (dw/dt)/|w| from the flow's own velocity (dW, dV), xi_ij = 1{<w_j,
    x_i> > 0} and e~_k the pseudo-labels (the h = 0 limit of the softmax cross-entropy)."""
    X = np.asarray(X, dtype=float)
    labels = np.asarray(labels)
    K = num_classes(labels)
    E = pseudo_labels(K)[:, labels].T  # (n, K): e~_(y_i)
    c = np.sqrt((K - 1.0) / K)
    wn = np.linalg.norm(W, axis=-1, keepdims=True)
    vn = np.linalg.norm(V, axis=-1, keepdims=True)
    wh = W / np.where(wn > 0, wn, 1.0)
    vh = V / np.where(vn > 0, vn, 1.0)

    def perp(unit, vec):
        return vec - np.sum(unit * vec, axis=-1, keepdims=True) * unit

    Z = np.einsum("tjd,id->tji", W, X)
    xi = (Z > 0).astype(float)
    rate_w = perp(wh, dW) / np.where(wn > 0, wn, 1.0)
    rate_v = perp(vh, dV) / np.where(vn > 0, vn, 1.0)
    target_w = c * perp(wh, np.einsum("tji,tji,id->tjd", xi, vh @ E.T, X))
    target_v = c * perp(vh, np.einsum("tji,tji,ik->tjk", xi, wh @ X.T, E))
    return (np.linalg.norm(rate_w - target_w, axis=-1),
            np.linalg.norm(rate_v - target_v, axis=-1))


def neuron_groups(V: np.ndarray) -> np.ndarray:
    """The class of each neuron by its output weight, argmax_k <e~_k, v_j> (the grouping of
    the paper's Fig. 3), shape (..., p)."""
    V = np.asarray(V, dtype=float)
    return np.argmax(V @ pseudo_labels(V.shape[-1]), axis=-1)


# -- features and the NC metrics of App. B.2 -----------------------------------------------
def features(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    """phi(x_i) = relu(W x_i) for every sample: shape (..., n, p)."""
    return np.maximum(np.einsum("id,...jd->...ij", np.asarray(X, float), np.asarray(W, float)),
                      0.0)


def class_means(Phi: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """phi_k = mean over class k of phi(x_i): shape (..., K, p)."""
    K = num_classes(labels)
    labels = np.asarray(labels)
    return np.stack([Phi[..., labels == k, :].mean(axis=-2) for k in range(K)], axis=-2)


def nc1(Phi: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """NC1 of App. B.2: [sum_k sum_{i in I_k} |phi(x_i) - phi_k|^2/|I_k|] over
    [sum_k |phi_k - phi_bar|^2], phi_bar the mean of the class means (not of the samples).
    A ratio of summed variances as printed (not Papyan's Tr(Sigma_W Sigma_B^+)/K)."""
    labels = np.asarray(labels)
    M = class_means(Phi, labels)
    K = M.shape[-2]
    within = sum(np.sum((Phi[..., labels == k, :] - M[..., k:k + 1, :]) ** 2, axis=(-2, -1))
                 / np.sum(labels == k) for k in range(K))
    between = np.sum((M - M.mean(axis=-2, keepdims=True)) ** 2, axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return within / between


def _mean_directions(Phi: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The class-mean directions phi_k/|phi_k| as columns: shape (..., p, K)."""
    M = class_means(Phi, labels)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.swapaxes(M / np.linalg.norm(M, axis=-1, keepdims=True), -1, -2)


def nc2(Phi: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """NC2 of App. B.2: |G/|G|_F - I_K/sqrt(K)|_F with G the Gram matrix of the class-mean
    directions phi_k/|phi_k| (the bar of App. B.2 read as a normalisation: it is overloaded
    with the global mean). 0 exactly when the class means are pairwise orthogonal."""
    M = _mean_directions(Phi, labels)
    K = M.shape[-1]
    G = np.swapaxes(M, -1, -2) @ M
    G = G / np.linalg.norm(G, axis=(-2, -1), keepdims=True)
    return np.linalg.norm(G - np.eye(K) / np.sqrt(K), axis=(-2, -1))


def nc3(V: np.ndarray, Phi: np.ndarray, labels: np.ndarray,
        reading: str = "normalised") -> np.ndarray:
    """NC3 of App. B.2, printed |V Phi^+ / |V Phi^+|_F - E~/sqrt(K-1)|_F with Phi the matrix
    of class-mean directions (p x K). As printed V Phi^+ (K x p times K x p) has no product;
    the consistent reading is V (Phi^+)^T (K x K), used here (V of this module is the paper's
    V^T). ``reading``: ``"normalised"`` (default) compares with E~/|E~|_F = E~/sqrt(K), the
    unit-norm target, so that exact self-duality with equal s_k gives 0; ``"printed"`` keeps
    the printed target E~/sqrt(K-1), whose norm sqrt(K/(K-1)) != 1 puts a floor
    |1 - sqrt(K/(K-1))| under the metric (0.225 at K = 3) even at exact self-duality."""
    M = _mean_directions(Phi, labels)
    K = M.shape[-1]
    A = np.swapaxes(np.asarray(V, float), -1, -2) @ np.swapaxes(np.linalg.pinv(M), -1, -2)
    A = A / np.linalg.norm(A, axis=(-2, -1), keepdims=True)
    if reading == "normalised":
        target = pseudo_labels(K) / np.sqrt(K)
    elif reading == "printed":
        target = pseudo_labels(K) / np.sqrt(K - 1.0)
    else:
        raise ValueError(f"reading: 'normalised' or 'printed', got {reading!r}")
    return np.linalg.norm(A - target, axis=(-2, -1))


def predicted_nc(X: np.ndarray, labels: np.ndarray) -> dict:
    """The limits Theorem 1 implies for the metrics (derived, catalogue section 4.3):
    NC1_inf = sum_k s_k^2 Var_{I_k}<u_k, x_i> / sum_k |phi_k - phi_bar|^2 with phi_k =
    m_k phibar_k, m_k = s_k mean_{I_k}<u_k, x_i> (population variance, as App. B.2);
    NC2_inf = 0; NC3_inf (normalised reading) = |E~ diag(s)/|E~ diag(s)|_F - E~/sqrt(K)|_F,
    0 iff all s_k are equal."""
    gamma, U = class_margins(X, labels)
    s = scale_factors(gamma)
    K = gamma.size
    labels = np.asarray(labels)
    proj = [np.asarray(X)[labels == k] @ U[k] for k in range(K)]
    m = np.array([s[k] * proj[k].mean() for k in range(K)])
    var = sum(s[k] ** 2 * proj[k].var() for k in range(K))
    between = sum(m[k] ** 2 * (1 - 1 / K) ** 2 + (np.sum(m**2) - m[k] ** 2) / K**2
                  for k in range(K))
    E = pseudo_labels(K) @ np.diag(s)
    nc3_inf = float(np.linalg.norm(E / np.linalg.norm(E) - pseudo_labels(K) / np.sqrt(K)))
    return {"NC1": float(var / between), "NC2": 0.0, "NC3": nc3_inf,
            "shares": predicted_shares(gamma), "margin": predicted_margin(gamma, K)}


# -- the quantities of Theorem 1 along a trajectory ----------------------------------------
def _as_matrix(V: np.ndarray, W: np.ndarray) -> np.ndarray:
    """V with a trailing axis of length 1 when it is a scalar output ((..., p) against W's
    (..., p, d)), so that every V is (..., p, K)."""
    V = np.asarray(V, dtype=float)
    return V[..., None] if V.ndim == np.ndim(W) - 1 else V


def group_shares(W: np.ndarray, V: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """(|W_k|_F^2 + |V_k|_F^2)/|theta|_F^2 per class k (Theorem 1: -> 2 s_k^2): shape (..., K)."""
    groups = np.asarray(groups)
    W = np.asarray(W, dtype=float)
    V = _as_matrix(V, W)
    per = np.sum(W**2, axis=-1) + np.sum(V**2, axis=-1)  # (..., p)
    total = per.sum(axis=-1)
    K = int(groups.max()) + 1
    return np.stack([per[..., groups == k].sum(axis=-1) / total for k in range(K)], axis=-1)


def misalignment(W: np.ndarray, groups: np.ndarray, U: np.ndarray) -> np.ndarray:
    """|P_perp(u_k) W_k|_F / |W_k|_F per class (Theorem 1: -> 0, W_k's rows along u_k):
    shape (..., K)."""
    groups = np.asarray(groups)
    out = []
    for k in range(U.shape[0]):
        Wk = np.asarray(W, dtype=float)[..., groups == k, :]
        along = Wk @ U[k]
        perp = np.sum(Wk**2, axis=(-2, -1)) - np.sum(along**2, axis=-1)
        out.append(np.sqrt(np.maximum(perp, 0.0) / np.sum(Wk**2, axis=(-2, -1))))
    return np.stack(out, axis=-1)


def cross_class_overlap(Phi: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """max over cross-class pairs |<phi(x_i), phi(x_i')>| over the largest |<phi, phi>|: 0
    exactly once the classes activate disjoint neurons (Claim 1, Proposition 1)."""
    labels = np.asarray(labels)
    G = Phi @ np.swapaxes(Phi, -1, -2)
    cross = labels[:, None] != labels[None, :]
    top = np.max(np.abs(G), axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(top > 0, np.max(np.abs(G[..., cross]), axis=-1) / top, 0.0)


def outputs(X: np.ndarray, W: np.ndarray, V: np.ndarray) -> np.ndarray:
    """f(x_i) = sum_j v_j relu(<w_j, x_i>): shape (..., n) (scalar V) or (..., n, K)."""
    Phi = features(X, W)
    V = np.asarray(V, dtype=float)
    return np.einsum("...ij,...j->...i", Phi, V) if V.ndim == np.ndim(W) - 1 else Phi @ V


def normalised_margins(X: np.ndarray, labels: np.ndarray, W: np.ndarray,
                       V: np.ndarray) -> np.ndarray:
    """q_k = min_{i in I_k} margin_i / |theta|_F^2 per class (derived limit: one common value,
    `predicted_margin`): margin_i = y_i f(x_i) for a scalar output (class 0 is y = +1, class 1
    is y = -1), [f]_k - max_{l != k} [f]_l for a vector output. Shape (..., K)."""
    labels = np.asarray(labels)
    K = num_classes(labels)
    F = outputs(X, W, V)
    theta = np.sum(np.asarray(W, float) ** 2, axis=(-2, -1)) + np.sum(
        _as_matrix(V, W) ** 2, axis=(-2, -1))
    if F.ndim == np.ndim(W) - 1:  # scalar output
        y = np.where(labels == 0, 1.0, -1.0)
        margin = y * F
    else:
        index = np.broadcast_to(labels[:, None], F.shape[:-1] + (1,))
        own = np.take_along_axis(F, index, axis=-1)[..., 0]
        rival = np.where(np.eye(K, dtype=bool)[labels], -np.inf, F).max(axis=-1)
        margin = own - rival
    return np.stack([margin[..., labels == k].min(axis=-1) / theta for k in range(K)], axis=-1)


# -- generators --------------------------------------------------------------------------------
def etf_clusters(K: int, n_per_class: int, d: int, sigma: float, seed: int = 0,
                 in_span: bool = True, max_draws: int = 10000
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Near-simplex-ETF clusters satisfying Assumption 1 (catalogue section 1): means e~_k in
    the first K coordinates of R^d (pairwise cosine -1/(K-1)), points x_i = e~_{k(i)} +
    sigma z_i, z_i Gaussian, confined to span{e~_k} when ``in_span`` (the tight clusters
    Proposition 1's condition needs) or isotropic; redrawn until A1 holds. Returns
    (X (n, d), labels (n,)), classes in blocks of ``n_per_class``."""
    if d < K:
        raise ValueError(f"d: the means need d >= K, got d={d}, K={K}")
    rng = np.random.default_rng(seed)
    means = np.zeros((K, d))
    means[:, :K] = pseudo_labels(K).T
    labels = np.repeat(np.arange(K), n_per_class)
    for _ in range(max_draws):
        Z = rng.standard_normal((labels.size, d))
        if in_span:
            Z[:, K:] = 0.0
            Z[:, :K] -= Z[:, :K].mean(axis=1, keepdims=True)  # span{e~_k} = 1-perp
        X = means[labels] + sigma * Z
        mu_s, mu_d = separability(X, labels)
        if mu_s > 0 and mu_d > 0:
            return X, labels
    raise ValueError(f"etf_clusters: no draw satisfied A1 in {max_draws} (lower sigma)")


def pseudo_label_init(X: np.ndarray, labels: np.ndarray, h: int, eps: float,
                      seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Section 4.2 "Limitations": each shape (w_j0, v_j0) drawn uniformly from the pairs
    (x_i, E~ y_i), with w_j0 = x_i/|x_i| so that |w_j0| = |v_j0| = 1 (A2; the paper does not
    say how it rescales), the first K neurons one per class (every N_k non-empty). Returns
    (W0 = eps w0 (h, d), V0 = eps v0 (h, K), groups (h,)); Assumption 4 holds exactly
    (`semi_local`)."""
    K = num_classes(labels)
    if h < K:
        raise ValueError(f"h: the width must be at least K = {K}, got {h}")
    rng = np.random.default_rng(seed)
    labels = np.asarray(labels)
    first = [int(rng.choice(np.flatnonzero(labels == k))) for k in range(K)]
    picks = np.array(first + rng.integers(0, labels.size, size=h - K).tolist())
    W0 = eps * unit_rows(np.asarray(X, float)[picks])
    V0 = eps * pseudo_labels(K)[:, labels[picks]].T
    return W0, V0, labels[picks].copy()
