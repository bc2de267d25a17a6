"""Trajectories of shallow ReLU networks: problems, generators, methods, diagnostics.

The names below are imported on first use (PEP 562): building a Problem or listing
the generators does not load torch; a gradient-descent method does.
"""

from __future__ import annotations

import importlib
import sys
import types

_EXPORTS = {
    "ActivationEvent": "numerics.trajectory",
    "ClosedForm": "numerics.closed_form",
    "ClosedFormError": "numerics.closed_form",
    "ExactFlow": "numerics.flow",
    "GradientDescent": "numerics.descent",
    "HighPrecisionFlow": "numerics.mpflow",
    "LeakyReLU": "numerics.activations",
    "ReLU": "numerics.activations",
    "ReLUPower": "numerics.activations",
    "with_hidden_bias": "numerics.model",
    "with_model": "numerics.model",
    "MethodError": "numerics.flow",
    "Problem": "numerics.problem",
    "RecordError": "numerics.recorded",
    "Recorder": "numerics.recorder",
    "RunModel": "numerics.recorded",
    "compare_with_flow": "numerics.recorded",
    "recorded": "numerics.recorded",
    "write_run": "numerics.recorded",
    "ProblemError": "numerics.problem",
    "Status": "numerics.trajectory",
    "Trajectory": "numerics.trajectory",
    "generators": "numerics.generators",
    "simulate": "numerics.simulate",
    "simulate_batch": "numerics.simulate",
}

__all__ = sorted(_EXPORTS)


# functions named as the submodule they live in
_SAME_NAME = ("simulate", "recorded")


class _Package(types.ModuleType):
    """Keeps ``numerics.simulate`` and ``numerics.recorded`` the functions: importing the
    submodule of that name would otherwise bind the package attribute to the module."""

    def __setattr__(self, name, value):
        if name in _SAME_NAME and isinstance(value, types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str):
    if name in _EXPORTS:
        module = importlib.import_module(_EXPORTS[name])
        value = module if name == "generators" else getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'numerics' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
