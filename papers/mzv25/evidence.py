"""The runs MZV25's tests and report share: exact flows of binary instances saved on a grid
that is linear over the alignment phase and logarithmic after it (memoised by content).

Why logarithmic: after separation the loss decays like 1/t and the directions converge like
(log t)^(-1/2) (catalogue H.3), so the late phase is seen only across decades of t. The
exact flow takes about 200 steps to t = 1e12 on the catalogue's instance (0.7 s with its
companion); beyond t ~ 1e13 the loss is below 1e-15 of its start and the companion run
stops agreeing (error estimate 1.0 at t = 1e14, measured), so runs stop at 1e12.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from numerics import ExactFlow, Problem, Trajectory
from verify.running import runs

EARLY_END = 20.0  # the linear part of the grid: alignment and separation (t ~ 1)
LATEST = 1e12  # the largest horizon the exact flow resolves on these instances


def log_times(t_end: float, early: int, late: int, early_end: float = EARLY_END,
              extra=()) -> np.ndarray:
    """``early`` times on [0, early_end], ``late`` log-spaced ones on [early_end, t_end],
    and ``extra``."""
    if t_end > LATEST:
        raise ValueError(f"t_end: at most {LATEST:g} (the exact flow's companion stops "
                         "agreeing beyond)")
    grid = np.linspace(0.0, min(early_end, t_end), early)
    if t_end > early_end:
        grid = np.union1d(grid, np.logspace(np.log10(early_end), np.log10(t_end), late))
    return np.union1d(grid, [float(x) for x in extra if 0.0 <= x <= t_end])


@lru_cache(maxsize=64)
def _run(problem: Problem, times: tuple, rtol: float, coords: str) -> Trajectory:
    return runs.simulate(problem, ExactFlow(rtol=rtol, coordinates=coords), np.asarray(times))


def binary_run(problem: Problem, t_end: float = 1e9, early: int = 401, late: int = 400,
               rtol: float = 1e-10, extra=(), early_end: float = EARLY_END,
               coords: str = "auto") -> Trajectory:
    """The exact flow of ``problem`` on `log_times` (with its companion at 10x the
    tolerance), memoised by content."""
    times = log_times(t_end, early, late, early_end, extra)
    return _run(problem, tuple(float(x) for x in times), float(rtol), coords)
