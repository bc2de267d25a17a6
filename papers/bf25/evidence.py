"""How long to simulate a BF25 instance, and the runs its tests and report share.

The horizon covers the early alignment and the escape from the origin (the positive
neurons grow at rate at most D_max, so the plateau ends by about ln(1/lam)/D_max plus an
O(1) alignment time: 3 ln(1/LamEff)/D_max leaves room) and the convergence that follows.
Near the OLS point the bundle v = sum a_j w_j moves like v' = |v| (g + v^ v^T g),
g = H (beta* - v), H = X^T X/n, so L - L_LS decays like exp(-2 |beta*| eta_min t) at
least (eta_min the smallest eigenvalue of H; measured on the section 5 data: rate 0.157
against 2 |beta*| eta_min = 0.151); `TAIL` = 40 such time constants take it from its value
after the escape (about 1e-2) below 1e-18, under float64's resolution of L.
"""

from __future__ import annotations

import math

import numpy as np

from numerics import Problem, Trajectory
from papers.bf25 import cones, data
from verify.engine.evidence import exact_trajectory

ESCAPE_FACTOR = 3.0  # ln(1/LamEff)/D_max multiples for the early phases
TAIL = 40.0  # time constants 1/(2 |beta*| eta_min) of the final convergence
POINTS = 2001  # saved times per run (the early phase gets as many again)


def convergence_rate(problem: Problem) -> float:
    """2 |beta*| eta_min(X^T X/n): the slowest decay rate of L - L_LS near the OLS point."""
    H = problem.X.T @ problem.X / problem.n
    eta_min = float(np.linalg.eigvalsh(H)[0])
    return 2.0 * float(np.linalg.norm(cones.beta_star(problem))) * eta_min


def escape_time(problem: Problem) -> float:
    """3 ln(1/LamEff)/D_max: past the plateau at the origin on the instances we ran."""
    lam = data.effective_lambda(problem)
    return ESCAPE_FACTOR * math.log(1.0 / min(lam, 0.5)) / cones.d_max(problem)


def horizon(problem: Problem, tail: float = TAIL) -> float:
    """escape_time + tail/convergence_rate (module docstring)."""
    return escape_time(problem) + tail / convergence_rate(problem)


def bf25_trajectory(problem: Problem, points: int = POINTS, rtol: float = 1e-10,
                    extra_times=(), tail: float = TAIL, t_end: float | None = None
                    ) -> Trajectory:
    """The exact flow of a BF25 instance up to `horizon` (or ``t_end``), memoised by content:
    ``points`` equally spaced saved times, as many again on [0, 1.5 escape_time] (the
    early phases take a few percent of the horizon), and ``extra_times`` (the instants a
    claim names, such as tau)."""
    end = horizon(problem, tail) if t_end is None else float(t_end)
    early = np.linspace(0.0, min(1.5 * escape_time(problem), end), points)
    return exact_trajectory(problem, end, points, rtol, tuple(early[1:]) + tuple(extra_times))
