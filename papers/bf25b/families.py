"""BF25B's family and the sizes of its checks.

``bf25b-linear-teacher``: x ~ N(0, I_d) without a bias, y = <beta*, x> + sigma xi with
|beta*| = 1 drawn from the seed, BF25's Eq. (3) start (`papers.bf25b.data`). The width
defaults to m = 2n, so that interpolating networks exist (the abstract's
overparametrisation). The data law is ours: the paper's Section 4 data were not read
(catalogue H.1), and the family says so.

The paper's own sizes could not be read: every group of `SIZES` says so, and its ``paper``
profile runs the full profile's sizes.
"""

from __future__ import annotations

from numerics import Problem
from papers.bf25b.data import teacher_problem
from papers.bf25b.evidence import teacher_horizon
from verify.instances.families import SMALL_SCALE, Family, FloatParam, IntParam, seed_param
from verify.results.sizes import Sizes


def _horizon(problem: Problem, params: dict) -> float:
    return teacher_horizon(problem)


TEACHER = Family(
    name="bf25b-linear-teacher",
    setting="BF25B",
    description="our reading of BF25B's data (the paper's Section 4 data were not read): "
    "x ~ N(0, I_d), no bias, y = <beta*, x> + sigma xi, |beta*| = 1 from the seed; BF25's "
    "start (a_j, w_j) = (lam/sqrt m)(s_j |g_j|, g_j); standard network, square loss 1/(2n)",
    params={
        "n": IntParam(4, 64, "samples", default=16, limits=(1, None)),
        "d": IntParam(2, 10, "input dimension", default=2, limits=(1, None)),
        "p": IntParam(8, 128, "width m (2n by default: interpolators exist)",
                      default=lambda v: 2 * v["n"], default_text="2n", limits=(1, None)),
        "lam": FloatParam(1e-8, 1e-3, "initialisation scale", default=1e-6,
                          limits=SMALL_SCALE),
        "noise": FloatParam(0.1, 0.5, "noise level sigma", default=0.5, log=False,
                            limits=(0.0, 10.0)),
        "seed": seed_param(),
    },
    build=lambda n, d, p, lam, noise, seed: teacher_problem(n, d, p, lam, noise, seed),
    horizon_rule=_horizon,
    horizon_text="3 ln(1/lam)/min |D_n(u)| over the extremal vectors found + 400",
)

FAMILIES = (TEACHER,)

_UNREAD = "none read: the paper's experiments could not be reached (its body was not read)"
_SAME = "the paper's sizes are unknown: the paper profile runs the full profile's sizes"
_FULL_ANGLES = {"d": [5, 10], "n": [250 * 2**k for k in range(8)], "seeds": 12, "noise": 0.5}

SIZES = (
    Sizes(key="BF25B population field", claims=("BF25B-F1",), paper=_UNREAD, scale="d",
          at={"quick": {"d": [2, 5], "n": 16, "seeds": 1},
              "full": {"d": [2, 5, 10], "n": 16, "seeds": 3},
              "paper": {"d": [2, 5, 10], "n": 16, "seeds": 3}},
          shown={"quick": "d = 2, 5: one instance each, 2e6 Monte Carlo draws, 8 directions",
                 "full": "d = 2, 5, 10: three instances each, 2e6 draws, 8 directions",
                 "paper": "as the full profile"},
          reason=_SAME),
    Sizes(key="BF25B extremal angles over n", claims=("BF25B-T3.1",), paper=_UNREAD,
          scale="n",
          at={"quick": {"d": [5], "n": [200 * 2**k for k in range(7)], "seeds": 6,
                        "noise": 0.5},
              "full": _FULL_ANGLES, "paper": _FULL_ANGLES},
          shown={"quick": "d = 5, n = 200 .. 12,800 (doubling), 6 seeds each, sigma = 0.5",
                 "full": "d = 5 and 10, n = 250 .. 32,000 (doubling), 12 seeds each, "
                         "sigma = 0.5",
                 "paper": "as the full profile"},
          reason=_SAME),
)
