"""CEL23's families: its section 8 data (centred and uncentred) with its rejection rule or
with the pi/4 rejection its theorems need, and its balanced small initialisation.

- ``cel23-correlated``: every angle(v*, x_i) below pi/4 (inside the theorems' setting);
  small d (the pi/4 rejection accepts a vanishing fraction of draws as d grows).
- ``cel23-experiments``: the paper's own experimental data (angles below pi/2 only).

The horizon is `papers.cel23.evidence.horizon`.
"""

from __future__ import annotations

from numerics import Problem
from papers.cel23 import data
from papers.cel23.evidence import horizon
from verify.families import ChoiceParam, Family, FloatParam, IntParam, seed_param

_HORIZON_TEXT = "2 ln(1/lam)/|gamma_[n]| + 12/eta_d"


def _horizon(problem: Problem, params: dict) -> float:
    return horizon(problem)


def _family(name: str, description: str, d_hi: int, d_default: int, rejection: str) -> Family:
    """One of CEL23's families: section 8's data with ``rejection``, its initialisation."""
    return Family(
        name=name,
        setting="CEL23",
        description=description,
        params={
            "d": IntParam(2, d_hi, "input dimension (= n)", default=d_default, limits=(2, None)),
            "m": IntParam(2, 12, "width (the paper's m)", default=6, limits=(1, None)),
            "lam": FloatParam(1e-12, 1e-2, "initialisation scale", default=4.0**-7,
                              limits=(0.0, 1.0)),
            "scheme": ChoiceParam(data.SCHEMES, "section 8's data scheme", default="centred"),
            "seed": seed_param(),
        },
        build=lambda d, m, lam, scheme, seed: data.correlated(
            d=d, m=m, lam=lam, scheme=scheme, rejection=rejection, seed=seed),
        horizon_rule=_horizon,
        horizon_text=_HORIZON_TEXT,
    )


CORRELATED = _family(
    "cel23-correlated",
    "CEL23 section 8 data redrawn until every angle(v*, x_i) < pi/4 (its theorems' setting), "
    "labels relu(<v*, x>), z_j ~ N(0, I/(dm)), s_j = +-1, w_j = lam z_j, a_j = s_j |w_j|; "
    "standard network, mean square loss", 4, 3, "pi/4")
EXPERIMENTS = _family(
    "cel23-experiments",
    "CEL23 section 8's experimental data (angles to v* below pi/2 only: its pi/4 hypothesis "
    "fails for most draws), its initialisation; standard network, square loss", 16, 4, "pi/2")

FAMILIES = (CORRELATED, EXPERIMENTS)
GENERATORS = {"cel23": data.correlated}
