"""Generators that return Problems for the settings the papers use.

Every generator takes an explicit ``seed`` (or numpy Generator) and records
its name, parameters and seed in ``Problem.meta``: same seed, same Problem.
"""

from __future__ import annotations

import math

import numpy as np

from numerics.inits import (  # noqa: F401  (re-exported: generators.balanced_init etc.)
    asymmetric_init,
    balanced_init,
    is_good_initialisation,
    repo_labels,
    seeded_rng,
    unbalanced_gaussian,
)
from numerics.problem import Problem, ProblemError


def two_point(p: int = 60, lam: float | None = None, seed: int = 0,
              loss_scale: float = 1.0) -> Problem:
    """S002 section 5 (G-002-toy): x1 = (-0.5, 1), y1 = -1; x2 = (2, 1), y2 = +1.

    Standard parametrisation, square loss, balanced initialisation at scale
    ``lam`` (default 1e-6/sqrt(p), the paper's experiment).
    """
    lam = 1e-6 / np.sqrt(p) if lam is None else float(lam)
    X = np.array([[-0.5, 1.0], [2.0, 1.0]])
    y = np.array([-1.0, 1.0])
    W0, a0 = balanced_init(p, 2, lam, seed)
    return Problem(
        X=X, y=y, W0=W0, a0=a0, parametrization="standard", loss="square",
        loss_scale=loss_scale, init_scale=lam,
        meta={"generator": "two_point", "p": p, "lam": lam, "seed": seed},
    )


def orthonormal_labels(n: int, rng: np.random.Generator) -> np.ndarray:
    """Labels with ``|y_k| ~ U[0.5, 1.5]``, both signs present, ``||y_+|| > ||y_-||`` (r > 1).

    S002 assumes r = ||D_+|| / ||D_-|| > 1 without loss of generality; when the
    draw has r < 1 the labels are negated (the problem with -y and -a is the
    same one mirrored). Requires n >= 2.
    """
    if n < 2:
        raise ProblemError(f"n: orthogonal problems need n >= 2 (one label of each sign), got {n}.")
    while True:
        signs = rng.choice([-1.0, 1.0], size=n)
        if abs(signs.sum()) == n:
            continue
        y = signs * rng.uniform(0.5, 1.5, size=n)
        pos, neg = np.sum(y[y > 0] ** 2), np.sum(y[y < 0] ** 2)
        if pos == neg:
            continue
        return y if pos > neg else -y


def orthonormal(n: int, d: int, p: int, lam: float, seed: int) -> Problem:
    """S002's setting (G-002-orth + I-002-bal): x_k = e_k in R^d (exact zeros).

    Labels from ``orthonormal_labels``; standard parametrisation, square loss.
    """
    if d < n:
        raise ProblemError(f"d: orthonormal data need d >= n, got d={d} < n={n}.")
    rng = seeded_rng(seed)
    X = np.eye(d)[:n]
    y = orthonormal_labels(n, rng)
    W0, a0 = balanced_init(p, d, lam, rng)
    return Problem(
        X=X, y=y, W0=W0, a0=a0, parametrization="standard", loss="square", init_scale=lam,
        meta={"generator": "orthonormal", "n": n, "d": d, "p": p, "lam": lam, "seed": seed},
    )


# -- S000 (mean-field, square loss, R's conventions) ----------------------------------


def published_width(n: int, eps: float = 0.05) -> int:
    """The published protocol's width rule p = floor(ln(n / eps) / ln(4/3)) + 1 (S000's R
    code; the union-bound width of `theory.closed_forms.union_bound_width`, plus one)."""
    return int(math.floor(math.log(n / eps) / math.log(4.0 / 3.0))) + 1


def _check_sizes(n: int, d: int, p: int) -> None:
    if n < 1:
        raise ProblemError(f"n: need at least one sample, got {n}.")
    if d < 1:
        raise ProblemError(f"d: need at least one feature, got {d}.")
    if p < 1:
        raise ProblemError(f"p: the width must be at least 1, got {p}.")


def _norm_range(norms) -> tuple[float, float]:
    lo, hi = (float(v) for v in norms)
    if not 0 < lo <= hi:
        raise ProblemError(f"norms: expected (low, high) with 0 < low <= high, got {norms!r}.")
    return lo, hi


def orthogonal_scaled(n: int, d: int, p: int, seed: int, norms=(1.0, 2.0),
                      repo_orth: bool = False, w_factor: float = 0.01,
                      max_redraws: int = 10_000) -> Problem:
    """S000's orthogonal data (G-000-orth) with R's asymmetric init (I-000-repo).

    x_i = c_i e_i (first n canonical vectors of R^d: exact zeros, N-3),
    c_i ~ U[norms]; labels ``y_i = xi_i |y_i|``, ``|y_i| ~ U[1, 2]``; mean-field network,
    square loss. With ``repo_orth`` (I-000-repo-orth) the first layer is
    multiplied by ``w_factor`` after a is drawn (so ``|a_j| >= ||w_j|| / w_factor``),
    and data and initialisation are redrawn from the same generator until Q-good
    holds; ``meta['redraws']`` counts the rejected draws (N-8: the law is then
    conditioned on Q-good).
    """
    _check_sizes(n, d, p)
    if d < n:
        raise ProblemError(f"d: orthogonal data need d >= n, got d={d} < n={n}.")
    lo, hi = _norm_range(norms)
    rng = seeded_rng(seed)
    redraws = 0
    while True:
        X = np.eye(d)[:n] * rng.uniform(lo, hi, size=n)[:, None]
        y = repo_labels(n, rng)
        W0, a0 = asymmetric_init(p, d, rng)
        if not repo_orth:
            break
        W0 = w_factor * W0
        if is_good_initialisation(X, y, W0, a0):
            break
        redraws += 1
        if redraws > max_redraws:
            raise ProblemError(
                f"max_redraws: no Q-good draw in {max_redraws} attempts; widen the network "
                f"(p={p}) or raise max_redraws."
            )
    meta = {"generator": "orthogonal_scaled", "n": n, "d": d, "p": p, "seed": seed,
            "norms": (lo, hi), "repo_orth": repo_orth,
            "q_good": is_good_initialisation(X, y, W0, a0)}
    if repo_orth:
        meta.update(w_factor=w_factor, redraws=redraws)
    return Problem(X=X, y=y, W0=W0, a0=a0, parametrization="mean_field", loss="square", meta=meta)


def sphere(n: int, d: int, p: int, seed: int, norms=(1.0, 2.0)) -> Problem:
    """S000 Cor. 1 data (G-000-iso) with I-000-repo, mean-field, square loss.

    x_i = rho_i u_i, u_i = g_i/||g_i|| with g_i ~ N(0, I_d/d) (uniform on the
    sphere), rho_i ~ U[norms]; labels as ``repo_labels``. Draw order: g, rho,
    labels, init.
    """
    _check_sizes(n, d, p)
    lo, hi = _norm_range(norms)
    rng = seeded_rng(seed)
    G = rng.standard_normal((n, d)) / np.sqrt(d)
    X = G / np.linalg.norm(G, axis=1, keepdims=True) * rng.uniform(lo, hi, size=n)[:, None]
    y = repo_labels(n, rng)
    W0, a0 = asymmetric_init(p, d, rng)
    meta = {"generator": "sphere", "n": n, "d": d, "p": p, "seed": seed, "norms": (lo, hi),
            "q_good": is_good_initialisation(X, y, W0, a0)}
    return Problem(X=X, y=y, W0=W0, a0=a0, parametrization="mean_field", loss="square", meta=meta)


def correlated(n: int, d: int, p: int, seed: int, rho: float, rotate: bool = False) -> Problem:
    """Unit-norm data with every pairwise correlation exactly ``rho`` (probes S000-A3).

    x_i = sqrt(1 - rho) e_i + sqrt(rho) e_{n+1} in R^d (d >= n + 1), so
    ||x_i|| = 1 and <x_i, x_k> = rho for i != k (up to one rounding); rho = 0
    gives exact orthonormal data. The interaction statistics (Q-corr) are then
    max|cos| = rho and gamma_i = ||G^ - I||_op = (n - 1) rho, so the Gershgorin
    reading of A3 (gamma <= 1/2) holds iff rho <= 1/(2(n - 1)). With
    ``rotate`` a Haar-random rotation (drawn first) is applied to all points:
    correlations are unchanged but exact zeros are lost (N-3). Labels as
    ``repo_labels``; I-000-repo; mean-field, square loss.
    """
    _check_sizes(n, d, p)
    if not 0.0 <= rho < 1.0:
        raise ProblemError(f"rho: the pairwise correlation must be in [0, 1), got {rho!r}.")
    if d < n + 1:
        raise ProblemError(f"d: the construction needs d >= n + 1 = {n + 1}, got d={d}.")
    rng = seeded_rng(seed)
    X = np.sqrt(1.0 - rho) * np.eye(d)[:n]
    X[:, n] += np.sqrt(rho)
    if rotate:
        Q, R = np.linalg.qr(rng.standard_normal((d, d)))
        X = X @ (Q * np.sign(np.diag(R))).T
    y = repo_labels(n, rng)
    W0, a0 = asymmetric_init(p, d, rng)
    cos = X @ X.T / np.outer(np.linalg.norm(X, axis=1), np.linalg.norm(X, axis=1))
    off = np.abs(cos - np.diag(np.diag(cos)))
    meta = {"generator": "correlated", "n": n, "d": d, "p": p, "seed": seed, "rho": rho,
            "rotate": rotate, "max_abs_cos": float(off.max()), "gamma_max": float(off.sum(1).max()),
            "q_good": is_good_initialisation(X, y, W0, a0)}
    return Problem(X=X, y=y, W0=W0, a0=a0, parametrization="mean_field", loss="square", meta=meta)


def group(n: int, groups, seed: int, d: int | None = None, scale: float = 0.1,
          aligned: bool = False, group_norms=None,
          parametrization: str = "mean_field") -> Problem:
    """S000's group initialisation (I-000-group, G-000-group; closed form CF-7).

    Data x_i = e_i in R^d (d >= n, default n). ``groups`` is the number of
    contiguous, near-equal groups or a sequence of group sizes summing to n;
    neuron j belongs to group G_j (p = number of groups). Labels: one
    Rademacher sign per group, ``|y_i| ~ U[1, 2]``, rescaled so that
    ||y_{G_j}|| = group_norms[j] when given. Neuron j is supported exactly on
    the coordinates of G_j with strictly positive entries there, so it is
    active exactly on G_j (pre-activations elsewhere are exact zeros), and
    ||w_j(0)|| = scale; entries ``|g|``, g ~ N(0, 1), or proportional to ``|y_{G_j}|``
    with ``aligned`` (cosine 1). Balanced: a_j = sign(y_{G_j}) ||w_j||.
    """
    d = n if d is None else d
    if d < n:
        raise ProblemError(f"d: group data need d >= n, got d={d} < n={n}.")
    sizes = _group_sizes(n, groups)
    if not scale > 0:
        raise ProblemError(f"scale: the initial neuron norm must be positive, got {scale}.")
    rng = seeded_rng(seed)
    p = len(sizes)
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    members = [list(range(bounds[j], bounds[j + 1])) for j in range(p)]
    signs = rng.choice([-1.0, 1.0], size=p)
    mags = rng.uniform(1.0, 2.0, size=n)
    if group_norms is not None:
        if len(group_norms) != p or min(group_norms) <= 0:
            raise ProblemError(f"group_norms: expected {p} positive values, got {group_norms!r}.")
        for j, idx in enumerate(members):
            mags[idx] *= group_norms[j] / np.linalg.norm(mags[idx])
    y = np.repeat(signs, sizes) * mags
    W0 = np.zeros((p, d))
    for j, idx in enumerate(members):
        entries = mags[idx] if aligned else np.abs(rng.standard_normal(len(idx)))
        if not np.all(entries > 0):
            raise ProblemError("seed: a group weight was drawn exactly 0; use another seed.")
        W0[j, idx] = scale * entries / np.linalg.norm(entries)
    a0 = signs * np.linalg.norm(W0, axis=1)
    meta = {"generator": "group", "n": n, "d": d, "p": p, "seed": seed, "scale": scale,
            "aligned": aligned, "groups": members,
            "group_norms": None if group_norms is None else list(group_norms)}
    return Problem(X=np.eye(d)[:n], y=y, W0=W0, a0=a0, parametrization=parametrization,
                   loss="square", init_scale=scale, meta=meta)


def _group_sizes(n: int, groups) -> list[int]:
    if isinstance(groups, (int, np.integer)):
        if not 1 <= groups <= n:
            raise ProblemError(f"groups: the number of groups must be in [1, n={n}], got {groups}.")
        return [n // groups + (1 if j < n % groups else 0) for j in range(groups)]
    sizes = [int(s) for s in groups]
    if min(sizes) < 1 or sum(sizes) != n:
        raise ProblemError(f"groups: sizes must be positive and sum to n={n}, got {sizes}.")
    return sizes


# -- S001 (standard network, sum losses, labels +-1) -----------------------------------

#: The loss_scale of S001's two losses (the exponential loss as a plain sum, the
#: logistic loss with S001's appendix prefactor 2).
S001_LOSS_SCALES = {"exponential": 1.0, "logistic": 2.0}


def separation(X: np.ndarray, y: np.ndarray) -> float:
    """S001-A1's mu = min_{i,k} <y_i x_i, y_k x_k> / (||x_i|| ||x_k||) (diagonal terms are 1)."""
    Z = y[:, None] * X / np.linalg.norm(X, axis=1, keepdims=True)
    return float(np.min(Z @ Z.T))


def _s001_problem(X, y, p, eps, rng, loss, init, meta) -> Problem:
    """I-001-bal (W(0) = eps W0, [W0]_ij ~ N(0, 1/d), v_j = +-||w_j||) or I-001-exp."""
    if loss not in S001_LOSS_SCALES:
        raise ProblemError(f"loss: S001 uses {tuple(S001_LOSS_SCALES)}, got {loss!r}.")
    if not eps > 0:
        raise ProblemError(f"eps: the initialisation scale must be positive, got {eps!r}.")
    d = X.shape[1]
    if init == "balanced":
        W0, a0 = balanced_init(p, d, eps / np.sqrt(d), rng)
    elif init == "unbalanced":
        W0, a0 = unbalanced_gaussian(p, d, eps, rng)
    else:
        raise ProblemError(f"init: expected 'balanced' or 'unbalanced', got {init!r}.")
    mu = separation(X, y)
    meta = dict(meta, p=p, eps=eps, loss=loss, init=init, mu=mu, satisfies_A1=mu > 0)
    return Problem(X=X, y=y, W0=W0, a0=a0, parametrization="standard", loss=loss,
                   loss_scale=S001_LOSS_SCALES[loss], init_scale=eps, meta=meta)


def separable(n: int, d: int, p: int, seed: int, mu: float, eps: float,
              loss: str = "exponential", norms=(1.0, 1.0), init: str = "balanced") -> Problem:
    """mu-separated data (G-001-sep) with S001's balanced init I-001-bal at scale eps.

    Construction: a random unit direction m and, for each i, a random unit u_i
    orthogonal to m (u_2 = -u_1, so the bound is attained); z_i = cos(th) m +
    sin(th) u_i with cos(2 th) = mu, so every <z_i, z_k> = cos^2 th + sin^2 th
    <u_i, u_k> >= mu, with equality for (1, 2). x_i = y_i rho_i z_i, rho_i ~
    U[norms], y_i Rademacher (both classes present). The exact mu of the data
    (S001-A1) is recorded in ``meta['mu']``; it equals the request up to
    rounding. Loss ``exponential`` (loss_scale 1) or ``logistic`` with
    loss_scale 2 (S001 App. B: 2 log(1 + e^{-y h}), so -dl/dh(y, 0) = y).
    ``init='unbalanced'`` uses I-001-exp with alpha = eps instead.
    """
    _check_sizes(n, d, p)
    if n < 2:
        raise ProblemError(f"n: separable data need n >= 2 (both classes), got {n}.")
    if not 0.0 < mu <= 1.0:
        raise ProblemError(
            f"mu: a mu-separation needs 0 < mu <= 1 (S001-A1), got {mu!r}; "
            "mu <= 0 is not separable."
        )
    if mu < 1.0 and d < 2:
        raise ProblemError(f"d: separation mu={mu} < 1 needs d >= 2, got {d}.")
    lo, hi = _norm_range(norms)
    rng = seeded_rng(seed)
    m = rng.standard_normal(d)
    m /= np.linalg.norm(m)
    U = rng.standard_normal((n, d))
    U -= np.outer(U @ m, m)
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    U[1] = -U[0]
    th = 0.5 * np.arccos(mu)
    Z = np.cos(th) * m + np.sin(th) * U
    while True:
        y = rng.choice([-1.0, 1.0], size=n)
        if abs(y.sum()) < n:
            break
    X = y[:, None] * rng.uniform(lo, hi, size=n)[:, None] * Z
    meta = {"generator": "separable", "n": n, "d": d, "seed": seed, "mu_requested": mu,
            "norms": (lo, hi)}
    return _s001_problem(X, y, p, eps, rng, loss, init, meta)


def two_point_separable(angle: float, p: int, seed: int, eps: float,
                        loss: str = "exponential", init: str = "balanced") -> Problem:
    """S001's toy (G-001-toy): two positive points x1 = (1, 0), x2 = (sin angle, cos angle).

    mu = sin(angle): 0.0998 for angle 0.1 (A.2), ~0.001 for 0.001, and exactly
    0 for angle 0 (x2 = (0, 1), violates A1; allowed, ``meta['satisfies_A1']``
    is False). Init and losses as ``separable``.
    """
    X = np.array([[1.0, 0.0], [np.sin(angle), np.cos(angle)]])
    y = np.ones(2)
    meta = {"generator": "two_point_separable", "n": 2, "d": 2, "seed": seed, "angle": angle}
    return _s001_problem(X, y, p, eps, seeded_rng(seed), loss, init, meta)


def digits(pair=(0, 1), p: int = 50, seed: int = 0, eps: float = 1e-6,
           n_per_class: int | None = None, loss: str = "exponential",
           init: str = "balanced") -> Problem:
    """Two classes of scikit-learn's bundled 8x8 digits (no download), as S001 does MNIST.

    Pixels are divided by 16 (so in [0, 1] like MNIST grey levels), optionally
    subsampled to ``n_per_class`` per class (without replacement, by the
    seed), then centred, x_i <- x_i - mean over the selected subset (S001 §4).
    y = +1 for ``pair[0]``, -1 for ``pair[1]``. A1 holds only approximately:
    the recorded mu is usually negative.
    """
    from sklearn.datasets import load_digits  # local: only this generator needs sklearn

    first, second = (int(c) for c in pair)
    if first == second or not {first, second} <= set(range(10)):
        raise ProblemError(f"pair: two different digits in 0..9, got {pair!r}.")
    data = load_digits()
    rng = seeded_rng(seed)
    chosen = []
    for label in (first, second):
        idx = np.flatnonzero(data.target == label)
        if n_per_class is not None:
            if not 1 <= n_per_class <= idx.size:
                raise ProblemError(f"n_per_class: must be in [1, {idx.size}], got {n_per_class}.")
            idx = np.sort(rng.choice(idx, size=n_per_class, replace=False))
        chosen.append(idx)
    X = data.data[np.concatenate(chosen)] / 16.0
    X = X - X.mean(axis=0)
    y = np.concatenate([np.ones(chosen[0].size), -np.ones(chosen[1].size)])
    meta = {"generator": "digits", "pair": (first, second), "n": X.shape[0], "d": X.shape[1],
            "seed": seed, "n_per_class": n_per_class}
    return _s001_problem(X, y, p, eps, rng, loss, init, meta)
