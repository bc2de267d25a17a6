"""S002's families: the two-point example of its section 5 and its orthogonal setting.

Horizon: 3.6 (-ln lam)/min(||D_+||, ||D_-||), 20% past S002-T1's c_T (-ln lam)/||D_-||
with c_T = 3 (`papers.s002.evidence.s002_horizon`).
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from numerics import Problem, generators
from papers.s002.evidence import s002_horizon
from verify.families import SMALL_SCALE, Family, FloatParam, IntParam, seed_param


def _s002_horizon(problem: Problem, params: dict) -> float:
    return s002_horizon(problem)


TWO_POINT = Family(
    name="two-point",
    setting="S002",
    description="S002 section 5: x1=(-0.5,1), y1=-1; x2=(2,1), y2=+1; standard network, square "
    "loss, balanced init at scale lam",
    params={
        "p": IntParam(10, 200, "width", default=60),
        "lam": FloatParam(1e-20, 1e-4, "initialisation scale", limits=SMALL_SCALE,
                          default=lambda v: 1e-6 / math.sqrt(v["p"]), default_text="1e-6/sqrt(p)"),
        "seed": seed_param(),
    },
    build=lambda p, lam, seed: generators.two_point(p=p, lam=lam, seed=seed),
    horizon_rule=_s002_horizon,
    horizon_text="3.6 (-ln lam)/min(||D_+||, ||D_-||)",
)

ORTHOGONAL = Family(
    name="orthogonal",
    setting="S002",
    aliases=("orthonormal",),
    description="S002's setting: x_k = e_k in R^d, |y_k| ~ U[0.5,1.5] with both signs and r > 1; "
    "standard network, square loss, balanced init w_j = lam g_j",
    params={
        # n stays small: above 5, S002's lam* surrogate and key-neuron assumptions fail on
        # most draws (INAPPLICABLE), so larger draws cost time and decide nothing
        "n": IntParam(2, 5, "samples", default=4, limits=(2, None)),
        "p": IntParam(30, 60, "width", default=60),
        "d": IntParam(2, 8, "input dimension", default=lambda v: v["n"], default_text="n",
                      ge="n"),
        "lam": FloatParam(1e-20, 1e-6, "initialisation scale", default=1e-12,
                          limits=SMALL_SCALE),
        "seed": seed_param(),
    },
    build=lambda n, p, d, lam, seed: generators.orthonormal(n=n, d=d, p=p, lam=lam, seed=seed),
    horizon_rule=_s002_horizon,
    horizon_text="3.6 (-ln lam)/min(||D_+||, ||D_-||)",
)

FAMILIES = (TWO_POINT, ORTHOGONAL)


def orthonormal(max_n: int | None = None) -> st.SearchStrategy[Problem]:
    fam = ORTHOGONAL if max_n is None else ORTHOGONAL.narrowed(n=(2, max_n))
    return fam.strategy()

# The settings `gfverify tighten CLAIM` and the report's tightness table use for S002's
# claims (`verify.report.tightness`). The local PL (S002-L5) is taken at eps = 1/40 and
# width 40, lam = 1e-8, as the pack's tests take it (at the catalogue's eps = 1/10, Lemma
# 4's bound on t_3 comes after the loss has left float64's resolution), and where
# L(t)/L(0) >= 1e-8: further down the PL ratio ||grad L||^2 / L is known to less than the
# 2% a tightening resolves (measured on n = 4, seed 0: between 1.9 and 2.3 down to 1e-10,
# between 0.06 and 2.3 down to 1e-12). The sharpest value depends on that floor: the PL
# keeps falling towards its limit as the loss does.
TIGHTEN = {"S002-L5": {"family": "orthogonal", "params": {"p": 40, "lam": 1e-8},
                       "claim_params": {"eps": "1/40"}, "loss_floor": 1e-8}}
