"""CEL23's families: its section 8 data (centred and uncentred) with its rejection rule or
with the pi/4 rejection its theorems need, and its balanced small initialisation.

- ``cel23-correlated``: every angle(v*, x_i) below pi/4 (inside the theorems' setting);
  small d (the pi/4 rejection accepts a vanishing fraction of draws as d grows).
- ``cel23-experiments``: the paper's own experimental data (angles below pi/2 only).

The horizon is `papers.cel23.evidence.horizon`.
"""

from __future__ import annotations

from numerics import Problem
from papers.cel23 import claims as _claims
from papers.cel23 import data
from papers.cel23.evidence import horizon
from verify.instances.families import ChoiceParam, Family, FloatParam, IntParam, seed_param
from verify.results.sizes import Sizes

_HORIZON_TEXT = ("min(2 ln(1/lam)/|gamma_[n]| + 12/eta_d, 2e5) (2e5: the paper's runs, 2e7 steps "
                 "of 0.01)")


def _horizon(problem: Problem, params: dict) -> float:
    return horizon(problem)


def _family(name: str, description: str, d_hi: int, d_default: int, rejection: str,
            d_paper: tuple[int, int]) -> Family:
    """One of CEL23's families: section 8's data with ``rejection``, its initialisation."""
    return Family(
        name=name,
        setting="CEL23",
        description=description,
        params={
            "d": IntParam(2, d_hi, "input dimension (= n; the paper: 4 to 1,024)",
                          default=d_default, limits=(2, None), paper=d_paper),
            "m": IntParam(2, 12, "width (the paper's m: 200)", default=6, limits=(1, None),
                          paper=(12, 200)),
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
    "standard network, mean square loss", 4, 3, "pi/4", (3, 8))
EXPERIMENTS = _family(
    "cel23-experiments",
    "CEL23 section 8's experimental data (angles to v* below pi/2 only: its pi/4 hypothesis "
    "fails for most draws), its initialisation; standard network, square loss", 16, 4, "pi/2",
    (4, 64))

FAMILIES = (CORRELATED, EXPERIMENTS)
GENERATORS = {"cel23": data.correlated}

# The report's tightness table (`verify.report.tightness`): every tightenable claim at
# lam = 1e-30, the lam of the pack's verdict rows (Assumption 2 still fails there, so each
# witness is marked relaxed). Windows that run to t = infinity end where L/L(0) falls
# below 1e-9: below that the loss is near float64's floor (on d=4 m=4 seed=188 L(t) stops
# decreasing at 1.5e-16 and is no longer monotone), and so are the cosines of CEL23-L28.
# L28 is tightened on its part (i), the multiplier of 4 lam^eps (part 4 in sympy's order of
# the conjunction): its eps is also in the window's T1, so tightening eps would move the
# window. T6 is tightened by the multiplier of its T2 bound (eps would reach -4, where the
# bound's factor 4 + eps vanishes).
_TIGHT_AT = {"family": "cel23-correlated", "params": {"lam": 1e-30}}
_FLOOR = 1e-9
TIGHTEN = {
    **{cid: dict(_TIGHT_AT) for cid in ("CEL23-P17", "CEL23-P18", "CEL23-L19", "CEL23-L4",
                                        "CEL23-L5", "CEL23-P27", "CEL23-L32b")},
    "CEL23-T6": {**_TIGHT_AT, "param": None},
    **{cid: {**_TIGHT_AT, "loss_floor": _FLOOR} for cid in ("CEL23-L28b", "CEL23-L32",
                                                           "CEL23-T6b")},
    "CEL23-L28": {**_TIGHT_AT, "loss_floor": _FLOOR, "part": 4, "param": None},
}

# -- the sizes of the pack's checks, per profile (`verify.results.sizes`; the tests read them) -----
_E1 = "E-CEL23-1: m = 200, d = n = 4-1,024 (section 8's pi/2 data)"
SIZES = (
    Sizes(key="CEL23 pi/4 flows", claims=tuple(c.id for c in _claims.CLAIMS if c.checkable),
          paper=_E1, paper_scale=200, scale="m",
          at={"quick": {"m": 6, "d": 3, "seeds": (1, 2)},
              "full": {"m": 6, "d": 3, "seeds": (1, 2, 3, 4)},
              "paper": {"m": 200, "d": 3, "seeds": (1, 2)}},
          shown={"quick": "d = n = 3, m = 6 (2 seeds)", "full": "d = n = 3, m = 6 (4 seeds)",
                 "paper": "d = n = 3, m = 200 (2 seeds)"},
          reason="d = n = 3: the theorems need every angle(v*, x_i) < pi/4, which section 8's "
                 "draws meet with a vanishing share as d grows (the paper's experiments use "
                 "pi/2 data, outside the theorems); the width is the paper's"),
)
