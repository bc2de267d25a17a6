"""BF25's families: the section 5 three-point example and random draws of Assumption 3's box
(eta < 1/6), both with Eq. (3)'s balanced Gaussian initialisation; width m and scale lam
are parameters.

- ``bf25-section5``: x = (-0.75, -0.5, 0.125), y = (1.1, 0.1, 0.8) with a hidden bias
  (App. B.1); only the initialisation is drawn. These data miss Assumption 3 (y_3 < 1) and
  Assumption 5, so Theorem 2's rows are INAPPLICABLE there; Theorem 1 and the derived facts
  apply (Assumption 4 holds).
- ``bf25-assumption3``: three points uniform in Assumption 3's box for eta in [0.02, 1/6)
  (``coords=bias``: univariate data with a hidden bias, as in Figure 1; ``box``: both
  coordinates drawn), lam small enough for Theorem 1's threshold on most draws.

The horizon is `papers.bf25.evidence.horizon`: 3 ln(1/LamEff)/D_max + 40/(2 |beta*|
eta_min).
"""

from __future__ import annotations

from numerics import Problem
from papers.bf25 import data
from papers.bf25.evidence import horizon
from verify.families import ChoiceParam, Family, FloatParam, IntParam, seed_param

_HORIZON_TEXT = "3 ln(1/LamEff)/D_max + 40/(2 |beta*| eta_min(X^T X/n))"


def _horizon(problem: Problem, params: dict) -> float:
    return horizon(problem)


def _width(default: int) -> IntParam:
    return IntParam(10, 60, "width m (Theorem 2 holds for every m; the paper ran 200,000)",
                    default=default, limits=(1, None), paper=(60, 20000))


SECTION5 = Family(
    name="bf25-section5",
    setting="BF25",
    description="BF25 section 5: x = (-0.75, -0.5, 0.125), y = (1.1, 0.1, 0.8), hidden bias; "
    "(a_j, w_j) = (lam/sqrt m)(s_j |g_j|, g_j), g_j ~ N(0, I_2); standard network, square "
    "loss 1/(2n)",
    params={
        "m": _width(40),
        "lam": FloatParam(1e-6, 3e-3, "initialisation scale (the paper: 1e-3)",
                          default=data.PAPER_LAM, limits=(0.0, 10.0)),
        "seed": seed_param(),
    },
    build=lambda m, lam, seed: data.section5(m=m, lam=lam, seed=seed),
    horizon_rule=_horizon,
    horizon_text=_HORIZON_TEXT,
)

ASSUMPTION3 = Family(
    name="bf25-assumption3",
    setting="BF25",
    description="BF25 Assumption 3: three points uniform in the box for eta < 1/6 (coords=bias: "
    "x~_k = (x_k, 1)), y_1, y_3 in [1, 1+eta], y_2 in (0, eta]; Eq. (3)'s balanced Gaussian "
    "initialisation; standard network, square loss 1/(2n)",
    params={
        "m": _width(20),
        "eta": FloatParam(0.02, 0.166, "the box's eta (Theorem 2 asks eta < 1/6)", default=0.1,
                          log=False, limits=(0.0, 1.0)),
        "lam": FloatParam(1e-8, 1e-4, "initialisation scale", default=1e-5,
                          limits=(0.0, 10.0)),
        "coords": ChoiceParam(("bias", "box"), "second coordinates: 1 (a hidden bias) or drawn",
                              default="bias"),
        "seed": seed_param(),
    },
    build=lambda m, eta, lam, coords, seed: data.assumption3(m=m, lam=lam, eta=eta, seed=seed,
                                                           coords=coords),
    horizon_rule=_horizon,
    horizon_text=_HORIZON_TEXT,
)

FAMILIES = (SECTION5, ASSUMPTION3)

# `gfverify tighten` and the report's tightness table: the claims with explicit constants on
# the section 5 data (Theorem 1's and Lemma 4's eps also sets their window tau, so the
# multiplier of the bound side is tightened, as "param": None says).
TIGHTEN = {
    "BF25-T1": {"family": "bf25-section5", "param": None},
    "BF25-L4": {"family": "bf25-section5", "param": None},
    "BF25-F1c": {"family": "bf25-section5", "param": None},
}
