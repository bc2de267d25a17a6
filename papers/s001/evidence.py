"""Evidence for S001 claims: the instances, their memoised exact flows, and the values of
claim-defined constants (t_1, T) and of event times (t_2, t_2^+) on a run.

Instances (THEORY section 3; condition (28), N-4):
- ``theorem``: mu = 0.95 separable data, n = 4, h = 6, eps = 1e-100 (log-norm
  coordinates). At this eps and margin both terms of (28) hold for the chosen seeds,
  so Theorem 1 and the lemmas after t_1 apply exactly as stated.
- ``early``: separable data at moderate mu and the two-point toys of App. A at
  eps = 1e-5: the early-phase lemmas (window [0, T]) are decided there; at tiny eps
  their bounds (~eps^2) sink below the float64 round-off of the quantities they bound.
- ``tiny``: the same data at eps = 1e-100, horizon T: for the pattern monotonicity,
  dwell time and trapping claims, which need only the first term of (28).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy as sp

from numerics import ExactFlow, Problem, Trajectory, generators
from theory.claim import Claim
from verify.language.measures import instance_values
from verify.running import runs

# seeds of mu = 0.95, n = 4, h = 6 data for which (28) holds at eps = 1e-100
# (T = 14.34 >= t_1, both S_+ and S_- receive a neuron)
THEOREM_SEEDS = {"exponential": (27, 36), "logistic": (29,)}
THEOREM_EPS = 1e-100


def constant(claim: Claim, expr: sp.Basic, problem: Problem) -> float:
    """A claim-defined constant (t_1, T, a window end) on an instance."""
    inst = instance_values(problem)
    e = claim.substituted(sp.sympify(expr))
    return float(e.xreplace({s: inst[s.name] for s in e.free_symbols}))


def theorem_problem(seed: int, loss: str = "exponential", eps: float = THEOREM_EPS) -> Problem:
    return generators.separable(n=4, d=3, p=6, seed=seed, mu=0.95, eps=eps, loss=loss)


@lru_cache(maxsize=64)
def _run(problem: Problem, horizon: float, points: int, extra: tuple, coords: str,
         rtol: float) -> Trajectory:
    grid = np.union1d(np.linspace(0.0, horizon, points), np.asarray(extra, dtype=float))
    return runs.simulate(problem, ExactFlow(rtol=rtol, coordinates=coords), grid)


def trajectory(problem: Problem, horizon: float, points: int, extra=(), coords="auto",
               rtol: float = 1e-10) -> Trajectory:
    """The exact flow on [0, horizon], saved on a uniform grid plus the times ``extra``
    (e.g. t_1, where S001-L13 is stated); memoised by content."""
    return _run(problem, float(horizon), int(points), tuple(float(x) for x in extra), coords,
                float(rtol))


@lru_cache(maxsize=64)
def _problem_cache(kind: str, seed: int, loss: str, eps: float, extra: tuple) -> Problem:
    if kind == "theorem":
        return theorem_problem(seed, loss, eps)
    if kind == "separable":  # extra: (n, mu) or (n, mu, h)
        n, mu, *h = extra
        return generators.separable(n=n, d=3, p=h[0] if h else 8, seed=seed, mu=mu, eps=eps,
                                    loss=loss)
    if kind == "toy":
        (angle,) = extra
        return generators.two_point_separable(angle, p=10, seed=seed, eps=eps, loss=loss)
    if kind == "digits":  # extra: () or (images per class, h)
        per_class, h = extra or (10, 10)
        return generators.digits((0, 1), p=h, seed=seed, eps=eps, n_per_class=per_class,
                                 loss=loss)
    raise ValueError(f"kind: unknown instance kind {kind!r}")


def problem(kind: str, seed: int = 0, loss: str = "exponential", eps: float = 1e-5,
            extra: tuple = ()) -> Problem:
    """The same Problem object for the same request (so runs are shared across tests)."""
    return _problem_cache(kind, seed, loss, float(eps), tuple(extra))


