"""The pack's instances: Gaussian data, a standard network, a balanced initialisation.

``gaussian`` builds one instance (also the sweep generator of the same name); the
family ``gaussian`` draws its parameters for ``gfverify conjecture``.
"""

import math

import numpy as np

from numerics import ExactFlow, Problem, simulate
from verify.instances.families import Family, FloatParam, IntParam


def gaussian(n: int = 6, d: int = 4, p: int = 8, scale: float = 0.5, seed: int = 0) -> Problem:
    """x_i ~ N(0, I_d / d), y_i ~ N(0, 1); w_j ~ scale N(0, I_d / d), a_j = +-|w_j| with a
    random sign (balanced); standard network, square loss."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / math.sqrt(d)
    y = rng.standard_normal(n)
    W0 = scale * rng.standard_normal((p, d)) / math.sqrt(d)
    a0 = rng.choice([-1.0, 1.0], size=p) * np.linalg.norm(W0, axis=1)
    return Problem(X=X, y=y, W0=W0, a0=a0, parametrization="standard", loss="square",
                   init_scale=scale, meta={"generator": "gaussian", "n": n, "d": d, "p": p,
                                           "scale": scale, "seed": seed})


def horizon(problem: Problem, params: dict) -> float:
    """Long enough to leave the initial plateau, which lasts about ln(1/scale)."""
    return 20.0 + 10.0 * math.log(1.0 / problem.init_scale)


GAUSSIAN = Family(
    name="gaussian",
    setting="GF",
    description="Gaussian inputs and labels, standard network, square loss, balanced "
    "initialisation at scale `scale` (example pack GF)",
    params={
        "n": IntParam(2, 10, "samples", default=6),
        "d": IntParam(2, 10, "input dimension", default=4),
        "p": IntParam(2, 16, "width", default=8),
        "scale": FloatParam(0.05, 1.0, "initialisation scale", default=0.5,
                            limits=(0.0, 10.0)),
        "seed": IntParam(0, 2**16, "seed of the instance's random numbers", default=0,
                         limits=(0, 2**32 - 1)),
    },
    build=gaussian,
    horizon_rule=horizon,
    horizon_text="20 + 10 ln(1/scale)",
)



def flow(points: int = 2001, **params):
    """The exact flow (with its companion run) of the family's instance with these
    parameters (the rest at their defaults), to the family's horizon."""
    full = GAUSSIAN.defaults(**params)
    problem = GAUSSIAN.make(full)
    return simulate(problem, ExactFlow(),
                    np.linspace(0.0, GAUSSIAN.horizon(problem, full), points))


FAMILIES = (GAUSSIAN,)
GENERATORS = {"gaussian": gaussian}
