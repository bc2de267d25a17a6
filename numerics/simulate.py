"""`simulate`: the one entry point from a Problem to a Trajectory."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from numerics.problem import Problem, ProblemError
from numerics.trajectory import Trajectory


class Method(Protocol):
    """A simulation method: a frozen options object with a name and ``run``."""

    name: str

    def options(self) -> dict: ...

    def run(self, problem: Problem, t_eval: np.ndarray) -> Trajectory: ...


def simulate(problem: Problem, method: Method, t_eval) -> Trajectory:
    """Simulate ``problem`` with ``method``, saving the state at ``t_eval``.

    ``t_eval`` must be finite, non-negative and strictly increasing; integration
    starts at t = 0 from the Problem's (W0, a0).
    """
    if not isinstance(problem, Problem):
        raise ProblemError(f"problem: expected a numerics.Problem, got {type(problem).__name__}.")
    if not hasattr(method, "run"):
        raise ProblemError(
            f"method: expected a method object such as ExactFlow(), got {method!r}."
        )
    t = np.asarray(t_eval, dtype=float)
    if t.ndim != 1 or t.size == 0:
        raise ProblemError("t_eval: expected a non-empty 1-d array of times.")
    if not np.all(np.isfinite(t)) or t[0] < 0:
        raise ProblemError("t_eval: times must be finite and >= 0.")
    if np.any(np.diff(t) <= 0):
        raise ProblemError("t_eval: times must be strictly increasing (sort and de-duplicate).")
    return method.run(problem, t)
