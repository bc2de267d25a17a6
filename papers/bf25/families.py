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
from papers.bf25 import claims as _claims
from papers.bf25 import data
from papers.bf25.evidence import horizon
from verify.instances.families import ChoiceParam, Family, FloatParam, IntParam, seed_param
from verify.results.sizes import Sizes

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

# -- the sizes of the pack's checks, per profile (`verify.results.sizes`; the tests read them) -----
SIZES = (
    Sizes(key="BF25 three-point flows",
          claims=tuple(c.id for c in _claims.CLAIMS if c.checkable
                       and c.kind.name != "PROBABILITY"),
          paper="E-BF25-1: three points with a hidden bias, m up to 200,000", paper_scale=200000,
          scale="m",
          at={"quick": {"m": 40, "m_a3": 20, "section5": (0, 1), "assumption3": (0, 1)},
              "full": {"m": 40, "m_a3": 20, "section5": (0, 1, 2, 3),
                       "assumption3": (0, 1, 2, 3, 4, 5)},
              "paper": {"m": 2000, "m_a3": 400, "section5": (0, 1), "assumption3": (0, 1)}},
          shown={"quick": "section 5 m = 40 (2 seeds), Assumption 3 m = 20 (2 seeds)",
                 "full": "section 5 m = 40 (4 seeds), Assumption 3 m = 20 (6 seeds)",
                 "paper": "section 5 m = 2,000 (2 seeds), Assumption 3 m = 400 (2 seeds)"},
          reason="one run at the paper's m = 200,000 costs about 2 h of one core "
                 "(bf25-section5's cost model, fitted to m = 1,095 and 20,000: 3 s and 243 s "
                 "measured; events and products both grow with m), above the profile's hour; "
                 "m = 2,000 is 50 times the full profile's"),
    Sizes(key="BF25 empty-I probability", claims=("BF25-F2e",),
          paper="none: a probability over Eq. (3)'s draw at m = 3", scale="count",
          at={"quick": {"count": 1500}, "full": {"count": 6000}, "paper": {"count": 6000}},
          shown={"quick": "1,500 draws, m = 3", "full": "6,000 draws, m = 3",
                 "paper": "6,000 draws, m = 3"}),
)
