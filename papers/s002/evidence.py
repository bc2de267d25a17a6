"""How long to simulate an S002 instance: past every bound its claims compare with."""

from __future__ import annotations

import numpy as np

from numerics import Problem, Trajectory
from verify.engine.evidence import DEFAULT_SAVED_TIMES, exact_trajectory
from verify.language.measures import instance_values

# S002's slowest bound is S002-T1's c_T * (-ln lam)/||D_-|| with c_T = 3; the
# horizon goes 20% past it so that "not reached by the bound" is decidable.
S002_HORIZON_FACTOR = 3.6


def s002_horizon(problem: Problem) -> float:
    """A time by which every S002 claim's bound has passed."""
    inst = instance_values(problem)
    if problem.init_scale is None:
        raise ValueError("init_scale: S002 problems must record their initialisation scale.")
    slow = min(inst["Dplus"], inst["Dminus"])
    return S002_HORIZON_FACTOR * (-np.log(problem.init_scale)) / slow


def s002_trajectory(problem: Problem, points: int = DEFAULT_SAVED_TIMES,
                    rtol: float = 1e-10, extra_times=()) -> Trajectory:
    """The exact flow of an S002 instance up to `s002_horizon` (memoised by content)."""
    return exact_trajectory(problem, s002_horizon(problem), points, rtol, extra_times)
