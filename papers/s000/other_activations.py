"""S000-F7 made operational: the published protocol at a fixed width, leaky ReLU against ReLU.

The authors' rebuttal says a leaky ReLU network needs only a constant number of neurons.
With ReLU, E-000-1/E-000-2 show a convergence threshold: at a fixed width p the success
probability of the published protocol falls to 0 once n passes N(d, p). Here the width is
fixed small (p = `WIDTH`) on S000's weakly interacting data (sphere, d = 4n), and the same
protocol is run for n = `SIZES`: GD at lr 1 on p L (numerics' mean-field flow factor),
stopped once L < 1/(2n), success iff the final L <= 1/(2n). The epoch budget is
`BUDGET_FACTOR` times the published heuristic int(1.5 sqrt(n p) ln(n p) / 4) + 1, which is
tuned for p ~ ln n and is too short at p = 4 for either activation. "Constant width
suffices" is read as: no threshold, P(success) > 1/2 at every n of the range.
"""

from __future__ import annotations

import math

import numpy as np

from numerics import GradientDescent, Problem, generators, simulate_batch, with_model
from verify.engine.evidence import Sample

WIDTH = 4
SIZES = (20, 40, 80, 160)
SLOPE = 0.1
BUDGET_FACTOR = 10


def protocol_steps(n: int, p: int) -> int:
    """BUDGET_FACTOR x the published epoch heuristic (papers/s000/protocols/exp1_1.toml)."""
    return BUDGET_FACTOR * (int(1.5 * math.sqrt(n * p) * math.log(n * p) / 4) + 1)


def _method(n: int) -> GradientDescent:
    return GradientDescent(lr=1.0, stop_loss=1.0 / (2 * n), error_check=None)


def _succeeded(tr) -> bool:
    return tr.status.name == "SUCCESS" and bool(tr.loss[-1] <= 1.0 / (2 * tr.problem.n))


# outcomes by instance content hash: a batched run's, or a single run's made on demand
_OUTCOMES: dict[str, bool] = {}


def success(problem: Problem) -> bool:
    """The ensemble indicator behind PSuccess: whether the protocol succeeds on ``problem``
    (the outcome of `sample`'s batched run when there is one, else one run now)."""
    key = problem.content_hash
    if key not in _OUTCOMES:
        steps = protocol_steps(problem.n, problem.p)
        tr = simulate_batch([problem], _method(problem.n), np.array([0.0, float(steps)]))[0]
        _OUTCOMES[key] = _succeeded(tr)
    return _OUTCOMES[key]


def sample(n: int, seeds: int, activation: str, p: int = WIDTH) -> Sample:
    """``seeds`` sphere instances (d = 4n, width p) with ``activation``, their protocol runs
    made as one batch (the outcomes are kept for `success`)."""
    problems = [with_model(generators.sphere(n, 4 * n, p, seed=s), activation=activation)
                for s in range(seeds)]
    runs = simulate_batch(problems, _method(n),
                          np.array([0.0, float(protocol_steps(n, p))]))
    for problem, tr in zip(problems, runs, strict=True):
        _OUTCOMES[problem.content_hash] = _succeeded(tr)
    return Sample(problems, description=f"{seeds} sphere instances, n = {n}, d = {4 * n}, "
                  f"p = {p}, {activation}")
