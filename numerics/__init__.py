"""Trajectories of shallow ReLU networks: problems, generators, methods, diagnostics."""

from numerics import generators
from numerics.closed_form import ClosedForm, ClosedFormError
from numerics.descent import GradientDescent
from numerics.flow import ExactFlow, MethodError
from numerics.mpflow import HighPrecisionFlow
from numerics.problem import Problem, ProblemError
from numerics.simulate import simulate, simulate_batch
from numerics.trajectory import ActivationEvent, Status, Trajectory

__all__ = [
    "ActivationEvent",
    "ClosedForm",
    "ClosedFormError",
    "ExactFlow",
    "GradientDescent",
    "HighPrecisionFlow",
    "MethodError",
    "Problem",
    "ProblemError",
    "Status",
    "Trajectory",
    "generators",
    "simulate",
    "simulate_batch",
]
