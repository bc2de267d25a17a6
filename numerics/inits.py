"""Initialisation schemes and label laws shared by the generators (THEORY section 1).

Every function draws from an explicit ``numpy.random.Generator`` (or an integer
seed turned into one); nothing here touches global random state. Weights use
the Problem convention: ``W`` has shape (p, d), one row per neuron.
"""

from __future__ import annotations

import numpy as np

from numerics.problem import ProblemError


def seeded_rng(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ProblemError(
            f"seed: pass an integer seed (got {seed!r}); results must be replayable."
        )
    return np.random.default_rng(int(seed))


def _check_width(p: int, d: int) -> None:
    if p < 1:
        raise ProblemError(f"p: the width must be at least 1, got {p}.")
    if d < 1:
        raise ProblemError(f"d: the input dimension must be at least 1, got {d}.")


def balanced_init(p: int, d: int, scale: float, seed) -> tuple[np.ndarray, np.ndarray]:
    """S002 eq. (4) / I-002-bal: w_j = scale * g_j, g_j ~ N(0, I_d); a_j = s_j ||w_j||."""
    if p < 1:
        raise ProblemError(f"p: the width must be at least 1, got {p}.")
    if not scale > 0:
        raise ProblemError(f"scale: the initialisation scale must be positive, got {scale}.")
    rng = seeded_rng(seed)
    W0 = scale * rng.standard_normal((p, d))
    signs = rng.choice([-1.0, 1.0], size=p)
    a0 = signs * np.linalg.norm(W0, axis=1)
    return W0, a0


def asymmetric_init(p: int, d: int, seed) -> tuple[np.ndarray, np.ndarray]:
    """I-000-repo (R's init, S000 Ass. 1 holds strictly).

    W: PyTorch's default ``nn.Linear(d, p)`` init, entries i.i.d. U(-1/sqrt(d), 1/sqrt(d)).
    a_j = xi_j (||w_j|| + E_j), xi_j Rademacher, E_j ~ Exp(1): |a_j| > ||w_j||.
    Draw order: W, then the signs, then E.
    """
    _check_width(p, d)
    rng = seeded_rng(seed)
    bound = 1.0 / np.sqrt(d)
    W0 = rng.uniform(-bound, bound, size=(p, d))
    signs = rng.choice([-1.0, 1.0], size=p)
    excess = rng.exponential(1.0, size=p)
    a0 = signs * (np.linalg.norm(W0, axis=1) + excess)
    return W0, a0


def unbalanced_gaussian(p: int, d: int, alpha: float, seed) -> tuple[np.ndarray, np.ndarray]:
    """I-001-exp (S001's experiments): W_ij ~ N(0, alpha^2) and a_j ~ N(0, alpha^2), i.i.d."""
    _check_width(p, d)
    if not alpha > 0:
        raise ProblemError(f"alpha: the initialisation scale must be positive, got {alpha}.")
    rng = seeded_rng(seed)
    W0 = alpha * rng.standard_normal((p, d))
    a0 = alpha * rng.standard_normal(p)
    return W0, a0


def repo_labels(n: int, rng: np.random.Generator) -> np.ndarray:
    """G-000-iso labels: y_i = xi_i |y_i|, xi_i Rademacher, |y_i| ~ U[1, 2] (signs first)."""
    signs = rng.choice([-1.0, 1.0], size=n)
    return signs * rng.uniform(1.0, 2.0, size=n)


def is_good_initialisation(X, y, W0, a0) -> bool:
    """Q-good: every sample i has a neuron j with a_j y_i > 0 and <w_j, x_i> > 0."""
    good = ((W0 @ X.T) > 0) & ((a0[:, None] * y[None, :]) > 0)  # (p, n)
    return bool(np.all(good.any(axis=0)))
