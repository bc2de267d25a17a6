"""BF25's data and initialisation: the section 5 three-point example, Assumption 3's box, and
the initialisation of Eq. (3).

Hidden bias. The paper has no bias term; it appends a constant 1 to every input,
x~ = (x, 1), and trains w~_j = (w_j, b_j) (BF25 section 2, p. 4; section 5, p. 16; App. B.1).
That is `numerics.model.with_hidden_bias` with the constant 1: X gains a column of ones
and W0 the column of the biases, so the claims, the cones and the flow all see the
augmented inputs x~_k in R^2, as the theorems do, and ``meta["hidden_bias"]`` says so.
The authors' code uses a torch bias b_j, the same network (code_notes section 1).

Initialisation (Eq. (3), App. B.1): (a_j, w~_j) = (lam/sqrt(m)) (a~_j, w~~_j) with
w~~_j ~ N(0, I_2) (bias included) and a~_j = s_j |w~~_j|, s_j = +-1 with probability 1/2
(perfectly balanced, the code's ``'balanced'``). `numerics.model.reinitialise` gives the
other schemes of the paper's discussion (``dominated:F``, ``unbalanced``).
"""

from __future__ import annotations

import math

import numpy as np

from numerics import Problem, with_hidden_bias
from numerics.inits import seeded_rng
from numerics.model import reinitialise

# BF25 App. B.1 (p. 31): the section 5 data (univariate; the bias adds x~ = (x, 1))
SECTION5_X = (-0.75, -0.5, 0.125)
SECTION5_Y = (1.1, 0.1, 0.8)
PAPER_LAM = 1e-3  # App. B.1
PAPER_WIDTH = 200_000  # App. B.1 (the tests use 10 to 60 neurons: Theorem 2 holds for any m)
ETA_MAX = 1.0 / 6.0  # Theorem 2's bound on Assumption 3's eta


def initialise(m: int, d: int, lam: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (3) with App. B.1's draw: w_j = (lam/sqrt m) g_j, g_j ~ N(0, I_d), a_j = s_j |w_j|
    (draw order: the m x d Gaussians, then the signs)."""
    W0 = (lam / math.sqrt(m)) * rng.standard_normal((m, d))
    signs = rng.choice([-1.0, 1.0], size=m)
    return W0, signs * np.linalg.norm(W0, axis=1)


def with_init(x: np.ndarray, y: np.ndarray, m: int, lam: float, seed: int, *,
              init: str = "balanced", meta: dict | None = None) -> Problem:
    """The network of BF25 on univariate inputs ``x`` with a hidden bias (x~ = (x, 1)):
    Eq. (3)'s initialisation in R^2 (weight and bias together). ``init``: ``balanced``
    (App. B.1), ``unbalanced`` (App. B.2: a~_j ~ N(0, 1) drawn after the signs, the first
    layer unchanged) or another scheme of `numerics.model.reinitialise` (``dominated:F``:
    a_j = s_j F |w_j|)."""
    rng = seeded_rng(seed)
    W0, a0 = initialise(m, 2, lam, rng)
    if init == "unbalanced":  # App. B.2: a~_j ~ N(0, 1), independent of w~_j
        a0 = (lam / math.sqrt(m)) * rng.standard_normal(m)
    base = Problem(X=np.asarray(x, dtype=float)[:, None], y=np.asarray(y, dtype=float),
                   W0=W0[:, :1], a0=a0, init_scale=lam,
                   meta={"m": m, "lam": lam, "seed": seed, **(meta or {})})
    problem = with_hidden_bias(base, b0=W0[:, 1], constant=1.0)
    if init in ("balanced", "unbalanced"):
        return problem.with_initialisation(problem.W0, problem.a0,
                                           meta={**problem.meta, "init": init})
    return reinitialise(problem, init, seed)


def section5(m: int = 40, lam: float = PAPER_LAM, seed: int = 0, init: str = "balanced"
             ) -> Problem:
    """BF25 section 5 (App. B.1): x = (-0.75, -0.5, 0.125), y = (1.1, 0.1, 0.8), hidden bias,
    Eq. (3)'s balanced Gaussian initialisation at scale ``lam`` with ``m`` neurons."""
    return with_init(np.array(SECTION5_X), np.array(SECTION5_Y), m, lam, seed, init=init,
                     meta={"generator": "bf25.section5"})


def box_data(eta: float, rng: np.random.Generator, coords: str = "box"
             ) -> tuple[np.ndarray, np.ndarray]:
    """Three points drawn uniformly in Assumption 3's box for ``eta`` (BF25 section 4):
    x_1 in (-1, -1+eta] x [1, 1+eta], y_1 in [1, 1+eta]; x_2 in [-eta, eta] x
    [1-eta, 1+eta], y_2 in (0, eta]; x_3 in [1-eta, 1) x [1, 1+eta], y_3 in [1, 1+eta].
    ``coords="bias"``: every second coordinate 1 (univariate data with a hidden bias, the
    paper's Figure 1 reading). The open ends are avoided by a margin of 1e-9."""
    if not 0 < eta <= 1:
        raise ValueError(f"eta: must be in (0, 1], got {eta!r}")
    lo = 1e-9

    def u(a, b):
        return float(rng.uniform(a, b))

    second = (lambda a, b: 1.0) if coords == "bias" else u
    X = np.array([[u(-1 + lo, -1 + eta), second(1, 1 + eta)],
                  [u(-eta, eta), second(1 - eta, 1 + eta)],
                  [u(1 - eta, 1 - lo), second(1, 1 + eta)]])
    y = np.array([u(1, 1 + eta), u(lo, eta), u(1, 1 + eta)])
    return X, y


def assumption3(m: int = 20, lam: float = PAPER_LAM, eta: float = 0.1, seed: int = 0,
                coords: str = "box", init: str = "balanced") -> Problem:
    """Data drawn in Assumption 3's box (`box_data`, from ``seed``) and Eq. (3)'s balanced
    initialisation (from the same seed). ``coords="bias"`` gives univariate data with a
    hidden bias (every x~_k = (x_k, 1)); ``"box"`` draws both coordinates, as the
    assumption allows (then the second coordinate is not a bias)."""
    rng = seeded_rng(seed)
    X, y = box_data(eta, rng, coords)
    meta = {"generator": "bf25.assumption3", "eta": eta, "coords": coords, "seed": seed}
    if coords == "bias":
        return with_init(X[:, 0], y, m, lam, seed + 1_000_003, init=init, meta=meta)
    rng = seeded_rng(seed + 1_000_003)
    W0, a0 = initialise(m, 2, lam, rng)
    if init == "unbalanced":
        a0 = (lam / math.sqrt(m)) * rng.standard_normal(m)
    problem = Problem(X=X, y=y, W0=W0, a0=a0, init_scale=lam,
                      meta={**meta, "m": m, "lam": lam, "seed": seed, "init": init})
    if init in ("balanced", "unbalanced"):
        return problem
    return reinitialise(problem, init, seed)


def eq5_ratio(problem: Problem) -> float:
    """max_k (1/k) sum_{j <= k} a~_j^2 with a~_j = sqrt(m) a_j(0)/lam, in the neurons'
    order: Eq. (5) asks for at most 1."""
    lam = problem.init_scale
    if lam is None:
        raise ValueError("the Problem records no init_scale (lambda)")
    a = math.sqrt(problem.p) * problem.a0 / lam
    means = np.cumsum(a**2) / np.arange(1, problem.p + 1)
    return float(means.max())


def effective_lambda(problem: Problem) -> float:
    """lam sqrt(max(1, eq5_ratio)): the scale at which the draw meets Eq. (5) once a~ is
    divided by sqrt(eq5_ratio) (the paper's remark below Eq. (5), p. 4: lambda sets the
    scale of a_j^0); the theorems' lam on this instance."""
    return float(problem.init_scale * math.sqrt(max(1.0, eq5_ratio(problem))))
