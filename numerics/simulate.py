"""`simulate`: the one entry point from a Problem to a Trajectory.

`simulate_batch` runs B Problems of the same shapes and conventions: as one
batched computation when the method has ``run_batch`` (gradient descent),
otherwise one after the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from numerics.problem import Problem, ProblemError
from numerics.trajectory import Trajectory

# What a batch must share: the array sizes and the conventions.
_BATCH_SHARED = ("n", "d", "p", "n_outputs", "parametrization", "loss", "activation", "train")


class Method(Protocol):
    """A simulation method: a frozen options object with a name and ``run``.

    What `simulate` needs of a method object; `simulate_batch` also uses ``run_batch``
    (problems, t_eval) -> list of Trajectory when the method has one.

    Attributes
    ----------
    name
        The method's name, recorded in ``Trajectory.method`` (``"exact_flow"``, ...).
    """

    name: str

    def options(self) -> dict:
        """The method's options as a plain dict (stored in ``Trajectory.options``)."""
        ...

    def run(self, problem: Problem, t_eval: np.ndarray) -> Trajectory:
        """Simulate ``problem`` from t = 0, saving at ``t_eval`` (already validated)."""
        ...


def simulate(problem: Problem, method: Method, t_eval) -> Trajectory:
    """Simulate ``problem`` with ``method``, saving the state at ``t_eval``.

    ``t_eval`` must be finite, non-negative and strictly increasing; integration
    starts at t = 0 from the Problem's (W0, a0).
    """
    if not isinstance(problem, Problem):
        raise ProblemError(f"problem: expected a numerics.Problem, got {type(problem).__name__}.")
    _check_method(method)
    check_output(problem, method)
    return method.run(problem, validated_times(t_eval))


def check_output(problem: Problem, method) -> None:
    """A method that integrates a scalar output only refuses a vector output by name: a
    method says it takes one with the class attribute ``vector_output = True`` (the exact
    flow and gradient descent do)."""
    if problem.vector_output and not getattr(method, "vector_output", False):
        name = getattr(method, "name", type(method).__name__)
        raise ProblemError(
            f"method: {name} integrates a scalar output; this Problem has a vector output "
            f"({problem.loss}, K = {problem.n_outputs}): use ExactFlow() or "
            "GradientDescent(...)")


def simulate_batch(problems: Sequence[Problem], method: Method, t_eval) -> list[Trajectory]:
    """Simulate every Problem in ``problems`` with ``method``; one Trajectory each.

    The Problems must share n, d, p, the parametrisation and the loss (their
    data, initial weights and loss_scale may differ). ``t_eval`` as for
    `simulate`, common to the batch.
    """
    problems = list(problems) if not isinstance(problems, Problem) else [problems]
    check_batch(problems)
    _check_method(method)
    check_output(problems[0], method)
    t = validated_times(t_eval)
    if hasattr(method, "run_batch"):
        return method.run_batch(problems, t)
    return [method.run(q, t) for q in problems]


def validated_times(t_eval) -> np.ndarray:
    """``t_eval`` as a float array, or a ProblemError naming what is wrong."""
    try:
        t = np.asarray(t_eval, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ProblemError(f"t_eval: cannot be read as an array of times ({exc}).") from exc
    if t.ndim != 1 or t.size == 0:
        raise ProblemError("t_eval: expected a non-empty 1-d array of times.")
    if not np.all(np.isfinite(t)) or t[0] < 0:
        raise ProblemError("t_eval: times must be finite and >= 0.")
    if np.any(np.diff(t) <= 0):
        raise ProblemError("t_eval: times must be strictly increasing (sort and de-duplicate).")
    return t


def check_batch(problems: Sequence[Problem]) -> None:
    """Raise ProblemError unless ``problems`` is a non-empty batch that can run together."""
    if len(problems) == 0:
        raise ProblemError("problems: expected at least one Problem, got an empty sequence.")
    for k, q in enumerate(problems):
        if not isinstance(q, Problem):
            raise ProblemError(
                f"problems[{k}]: expected a numerics.Problem, got {type(q).__name__}."
            )
    first = problems[0]
    for k, q in enumerate(problems[1:], start=1):
        for name in _BATCH_SHARED:
            if getattr(q, name) != getattr(first, name):
                raise ProblemError(
                    f"problems[{k}]: {name}={getattr(q, name)!r} differs from problems[0]'s "
                    f"{getattr(first, name)!r}; a batch must share {', '.join(_BATCH_SHARED)} "
                    "(split it into batches that do)."
                )


def _check_method(method) -> None:
    if not hasattr(method, "run"):
        raise ProblemError(
            f"method: expected a method object such as ExactFlow(), got {method!r}."
        )
