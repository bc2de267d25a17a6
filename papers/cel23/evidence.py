"""How long to simulate a CEL23 instance, and the runs its tests share.

The horizon covers the alignment phase (T1 = eps ln(1/lam)/|gamma_[n]| with eps <= 1/4),
the saddle escape (T2 - T1 was below ln(1/lam)/|gamma_[n]| on every instance we ran) and
the convergence that follows: after T2 the loss decays like exp(-2 eta_d t) (the linearised
bundle dynamics of catalogue section 4.6), so 12/eta_d more takes it down about e^-24 from
its value at T2. The horizon is at most `PAPER_HORIZON`, the time the paper's runs end at
(2e7 steps of gradient descent with step 0.01, section 8 and App. H): eta_d, the smallest
eigenvalue of X X^T/n, falls fast with d on section 8's data (4.1e-8 at d = 64, seed 0), so
that 12/eta_d alone would ask for t = 2.9e8 there, 1,500 times the paper's own runs.
"""

from __future__ import annotations

import math

import numpy as np

from numerics import Problem, Trajectory
from papers.cel23.measures import structure
from verify.engine.evidence import DEFAULT_SAVED_TIMES, exact_trajectory

ESCAPE_FACTOR = 2.0  # ln(1/lam)/|gamma_[n]| multiples before the tail
TAIL = 12.0  # multiples of 1/eta_d after the escape
PAPER_HORIZON = 2e5  # the paper's runs: 2e7 gradient-descent steps of 0.01 (section 8)


def horizon(problem: Problem) -> float:
    """The escape (`escape_time`) and 12/eta_d after it, at most `PAPER_HORIZON`."""
    tail = escape_time(problem) + TAIL / float(structure(problem)["eta"][-1])
    return min(tail, PAPER_HORIZON)


def escape_time(problem: Problem) -> float:
    """A time by which the bundle has left the saddle (T2) on the instances we ran."""
    gamma = float(np.linalg.norm(structure(problem)["gamma_n"]))
    return ESCAPE_FACTOR * math.log(1.0 / problem.init_scale) / gamma


def cel23_trajectory(problem: Problem, points: int = DEFAULT_SAVED_TIMES, rtol: float = 1e-10,
                     extra_times=()) -> Trajectory:
    """The exact flow of a CEL23 instance up to `horizon` (memoised by content), saved at
    ``points`` equally spaced times and as many again on [0, 1.5 escape_time]: the phases
    up to T2 take a few time units of a horizon of thousands."""
    early = np.linspace(0.0, 1.5 * escape_time(problem), points)
    return exact_trajectory(problem, horizon(problem), points, rtol,
                            tuple(early[1:]) + tuple(extra_times))


LIMIT_TAIL = 24.0  # multiples of 1/eta_d after the escape, for runs read at their limit
LIMIT_POINTS = 2001


def limit_trajectory(problem: Problem, rtol: float = 1e-12, extra_times=()) -> Trajectory:
    """The exact flow of a CEL23 instance run twice as far past its escape as
    `cel23_trajectory` (`LIMIT_TAIL`), at rtol 1e-12, for the LIMIT claims read at its limit
    point: at the usual horizon the share of the norm among the positive neurons still moves
    by about 1e-6 (sum_{J_+} |w_j|^2 = 1 - 1.8e-7 at lam = 1e-4, seed 1), which the claims
    at fixed lam (CEL23-F7a: >= 1) cannot afford."""
    tail = LIMIT_TAIL / float(structure(problem)["eta"][-1])
    return exact_trajectory(problem, escape_time(problem) + tail, LIMIT_POINTS, rtol,
                            tuple(extra_times))
