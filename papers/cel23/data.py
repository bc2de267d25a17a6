"""CEL23's data and initialisation: the two schemes of its section 8, the teacher's labels
and the balanced small initialisation of its section 2 (catalogue section 1).

- **centred**: mu uniform on the sphere S^(d-1); x_1..x_d iid N(mu, (rho/d) I_d) with
  rho = 1; the teacher is v* = mu. n = d.
- **uncentred**: as centred with rho = sqrt(2) - 1, one more point x_0 drawn the same way,
  and v* = x_0/|x_0|.
- labels y_i = relu(<v*, x_i>); rows of X are the points (the paper's X is X^T here).
- rejection: the paper discards a draw in which some angle(v*, x_i) exceeds pi/2 (its
  experiments; such data break its pi/4 hypothesis for large d); ``rejection="pi/4"``
  redraws until every angle is below pi/4, the setting its theorems are stated for (the
  catalogue's [inferred] generator for checks inside the hypotheses). For large d almost no
  draw passes pi/4 (the angles concentrate near it), so redrawing gives up after
  `MAX_DRAWS` draws with a clear error.
- initialisation: z_j iid N(0, I_d/(d m)), s_j uniform on {-1, +1}; w_j(0) = lam z_j,
  a_j(0) = s_j |w_j(0)| (balanced). m is the width (the toolkit's p).

One generator seed draws the data and then the initialisation (in that order), so the
same seed gives the same numbers.
"""

from __future__ import annotations

import math

import numpy as np

from numerics import Problem
from numerics.inits import seeded_rng
from numerics.problem import ProblemError

SCHEMES = ("centred", "uncentred")
REJECTIONS = ("pi/2", "pi/4")
MAX_DRAWS = 200_000
_RHO = {"centred": 1.0, "uncentred": math.sqrt(2.0) - 1.0}
_LIMIT = {"pi/2": 0.0, "pi/4": 1.0 / math.sqrt(2.0)}  # cos(angle(v*, x_i)) must exceed it


def teacher_labels(X: np.ndarray, vstar: np.ndarray) -> np.ndarray:
    """y_i = relu(<v*, x_i>)."""
    return np.maximum(X @ vstar, 0.0)


def min_teacher_cosine(X: np.ndarray, vstar: np.ndarray) -> float:
    """min_i cos angle(v*, x_i): above 1/sqrt(2) is the paper's pi/4 condition."""
    return float(np.min(X @ vstar / (np.linalg.norm(X, axis=1) * np.linalg.norm(vstar))))


def draw_data(d: int, scheme: str, rejection: str, rng: np.random.Generator,
              rho: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(X, v*) of one of section 8's schemes (n = d points), redrawn until every
    angle(v*, x_i) is below the ``rejection`` limit."""
    if scheme not in SCHEMES:
        raise ProblemError(f"scheme: {scheme!r} is not one of {SCHEMES}.")
    if rejection not in REJECTIONS:
        raise ProblemError(f"rejection: {rejection!r} is not one of {REJECTIONS}.")
    if d < 2:
        raise ProblemError(f"d: CEL23 needs d >= 2 (Assumption 1(i)), got {d}.")
    rho = _RHO[scheme] if rho is None else float(rho)
    sd = math.sqrt(rho / d)
    for _ in range(MAX_DRAWS):
        mu = rng.standard_normal(d)
        mu /= np.linalg.norm(mu)
        X = mu + sd * rng.standard_normal((d, d))
        if scheme == "uncentred":
            x0 = mu + sd * rng.standard_normal(d)
            vstar = x0 / np.linalg.norm(x0)
        else:
            vstar = mu
        if min_teacher_cosine(X, vstar) > _LIMIT[rejection]:
            return X, vstar
    raise ProblemError(f"rejection: no {scheme} draw with d={d} had every angle(v*, x_i) "
                       f"below {rejection} in {MAX_DRAWS} draws; use a smaller d or "
                       f"rejection='pi/2'.")


def small_init(X: np.ndarray, m: int, lam: float,
               rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Z, W0, a0): z_j ~ N(0, I/(d m)), s_j = +-1, w_j = lam z_j, a_j = s_j |w_j|."""
    if m < 1:
        raise ProblemError(f"m: the width must be at least 1, got {m}.")
    if not lam > 0:
        raise ProblemError(f"lam: the initialisation scale must be positive, got {lam}.")
    d = X.shape[1]
    Z = rng.standard_normal((m, d)) / math.sqrt(d * m)
    s = rng.choice([-1.0, 1.0], size=m)
    W0 = lam * Z
    return Z, W0, s * np.linalg.norm(W0, axis=1)


def teacher_problem(X: np.ndarray, vstar: np.ndarray, W0: np.ndarray, a0: np.ndarray,
                    lam: float, meta: dict) -> Problem:
    """The standard network on the teacher's labels with the mean square loss
    L = 1/(2n) sum (y_i - h(x_i))^2 (the paper's normalisation). The teacher is recorded
    in ``meta["vstar"]`` (claims and measures read it there)."""
    return Problem(X=X, y=teacher_labels(X, vstar), W0=W0, a0=a0, parametrization="standard",
                   loss="square", init_scale=lam,
                   meta={**meta, "vstar": [float(v) for v in vstar]})


def teacher(problem: Problem) -> np.ndarray:
    """v* of a CEL23 instance (recorded by `teacher_problem`)."""
    try:
        return np.asarray(problem.meta["vstar"], dtype=float)
    except KeyError:
        raise KeyError("vstar (the instance was not made by a CEL23 generator)") from None


def unscaled_init(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """(Z, s): the initial directions z_j = w_j(0)/lam and the signs s_j = sign a_j(0)."""
    if problem.init_scale is None:
        raise KeyError("lam (the instance records no initialisation scale)")
    return problem.W0 / problem.init_scale, np.sign(problem.a0)


def correlated(d: int = 3, m: int = 6, lam: float = 4.0**-7, scheme: str = "centred",
               rejection: str = "pi/4", seed: int = 0) -> Problem:
    """One CEL23 instance: section 8's data scheme, its rejection rule, its initialisation."""
    rng = seeded_rng(seed)
    X, vstar = draw_data(d, scheme, rejection, rng)
    _, W0, a0 = small_init(X, m, lam, rng)
    return teacher_problem(X, vstar, W0, a0, lam,
                           {"generator": "cel23", "d": d, "m": m, "lam": lam, "scheme": scheme,
                            "rejection": rejection, "seed": seed})
