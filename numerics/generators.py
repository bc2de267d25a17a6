"""Generators that return Problems for the settings the papers use.

Every generator takes an explicit ``seed`` (or numpy Generator) and records
its name, parameters and seed in ``Problem.meta``: same seed, same Problem.
"""

from __future__ import annotations

import numpy as np

from numerics.problem import Problem, ProblemError


def _rng(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ProblemError(f"seed: pass an integer seed (got {seed!r}); results must be replayable.")
    return np.random.default_rng(int(seed))


def balanced_init(p: int, d: int, scale: float, seed) -> tuple[np.ndarray, np.ndarray]:
    """S002 eq. (4) / I-002-bal: w_j = scale * g_j, g_j ~ N(0, I_d); a_j = s_j ||w_j||."""
    if p < 1:
        raise ProblemError(f"p: the width must be at least 1, got {p}.")
    if not scale > 0:
        raise ProblemError(f"scale: the initialisation scale must be positive, got {scale}.")
    rng = _rng(seed)
    W0 = scale * rng.standard_normal((p, d))
    signs = rng.choice([-1.0, 1.0], size=p)
    a0 = signs * np.linalg.norm(W0, axis=1)
    return W0, a0


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
    """Labels with |y_k| ~ U[0.5, 1.5], both signs present, ||y_+|| > ||y_-|| (r > 1).

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
    rng = _rng(seed)
    X = np.eye(d)[:n]
    y = orthonormal_labels(n, rng)
    W0, a0 = balanced_init(p, d, lam, rng)
    return Problem(
        X=X, y=y, W0=W0, a0=a0, parametrization="standard", loss="square", init_scale=lam,
        meta={"generator": "orthonormal", "n": n, "d": d, "p": p, "lam": lam, "seed": seed},
    )
