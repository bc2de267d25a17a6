"""The evidence BF25B's claims are decided on: how long to simulate an instance, and the
series of the extremal vectors' angle over n (BF25B-T3.1).

The horizon passes the alignment and the fit: a neuron whose direction sits at an extremal
vector u grows like exp(|D_n(u)| t) from lam (BF25's alignment time ln(1/lam)/|D_n(u)|), so
`ALIGN` times that at the smallest |D_n(u)| found, plus `FIT` time units for the second
phase (the loss's local rate is O(1) on unit-variance inputs).
"""

from __future__ import annotations

import math

from numerics import Problem
from papers.bf25b.data import teacher_problem
from papers.bf25b.measures import extremal_angle, extremal_search
from verify.engine.evidence import ScalingData
from verify.language.measures import UndefinedQuantity

#: multiples of the slowest alignment time ln(1/lam)/|D_n(u)|
ALIGN = 3.0
#: time units after the alignment
FIT = 400.0
#: the width of the instances of the angle series (the start plays no part in D_n)
SERIES_WIDTH = 2


def teacher_horizon(problem: Problem) -> float:
    """A time past the alignment and the fit of ``problem`` (module docstring)."""
    found = extremal_search(problem).found
    rate = min((e.value for e in found), default=0.25)
    return ALIGN * math.log(1.0 / problem.init_scale) / rate + FIT


def angle_series(ns, d: int, seeds, noise: float) -> ScalingData:
    """ExtremalAngle at each n of ``ns`` (d fixed), one value per seed (replicates), as a
    `ScalingData` series in n for BF25B-T3.1. A draw whose search resolved no extremal vector
    of one sign (its vector on a face the search does not solve) is left out, and the
    series' description counts those draws."""
    xs, ys, left = [], [], 0
    for n_ in ns:
        for seed in seeds:
            problem = teacher_problem(n_, d, SERIES_WIDTH, 1e-3, noise, seed)
            try:
                value = float(extremal_angle(problem))
            except UndefinedQuantity:
                left += 1
                continue
            xs.append(n_)
            ys.append(value)
    return ScalingData("n", tuple(xs), tuple(ys), "ExtremalAngle",
                       description=f"d = {d}, sigma = {noise:g}, n = {ns[0]} .. {ns[-1]}, "
                       f"{len(seeds)} seeds each, {left} of {len(ns) * len(seeds)} draws left "
                       "out (a sign unresolved)")
