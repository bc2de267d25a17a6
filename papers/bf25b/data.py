"""BF25B's instances: Gaussian inputs labelled by a noisy linear teacher, no bias.

x_k ~ N(0, I_d) iid, y_k = <beta*, x_k> + sigma xi_k, xi_k ~ N(0, 1), |beta*| = 1 drawn
uniformly on the sphere from the seed (our reading of the abstract's "noisy data labelled
by a linear teacher" [inferred]: the paper's Section 4 data and their "further simplifying
assumptions" were not read, catalogue H.1). The inputs carry no hidden bias: with x~ = (x, 1)
the population field is no longer constant (BF25B-F1).

The start is BF25's Eq. (3) (`papers.bf25.data.initialise`, shared): w_j = (lam/sqrt m) g_j,
g_j ~ N(0, I_d), a_j = s_j |w_j|. Draw order from `numerics.inits.seeded_rng(seed)`: beta*,
then X, then xi, then the start. The teacher and the noise level are recorded in ``meta``
(``teacher``, ``noise``, ``law``) for the measures that need the population.
"""

from __future__ import annotations

import numpy as np

from numerics import Problem
from numerics.inits import seeded_rng
from papers.bf25.data import initialise


def teacher_problem(n: int, d: int, m: int, lam: float, noise: float, seed: int) -> Problem:
    """One draw of the linear-teacher data (module docstring) with Eq. (3)'s start."""
    if n < 1 or d < 1 or m < 1:
        raise ValueError(f"n, d, m: must be >= 1, got {n}, {d}, {m}")
    if not noise >= 0:
        raise ValueError(f"noise: must be >= 0, got {noise!r}")
    rng = seeded_rng(seed)
    beta = rng.standard_normal(d)
    beta /= np.linalg.norm(beta)
    X = rng.standard_normal((n, d))
    y = X @ beta + noise * rng.standard_normal(n)
    W0, a0 = initialise(m, d, lam, rng)
    return Problem(X=X, y=y, W0=W0, a0=a0, init_scale=lam,
                   meta={"generator": "bf25b.linear_teacher", "seed": seed, "m": m, "lam": lam,
                         "teacher": beta.tolist(), "noise": float(noise), "law": "gaussian"})


def teacher(problem: Problem) -> np.ndarray:
    """beta* of a `teacher_problem` (its ``meta["teacher"]``); ValueError for another."""
    beta = problem.meta.get("teacher")
    if beta is None:
        raise ValueError("the Problem records no linear teacher (meta['teacher']): it was not "
                         "made by papers.bf25b.data.teacher_problem")
    return np.asarray(beta, dtype=float)
