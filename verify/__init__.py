"""Verdicts: claims from `theory` checked on trajectories from `numerics`.

The names below are imported on first use (PEP 562), so that ``import verify.front.cli``
(and so ``gfverify --help``) does not load numerics, torch and matplotlib.
"""

from __future__ import annotations

import importlib
import sys
import types

from verify import moved

_EXPORTS = {
    "CheckError": "verify.engine.verdict",
    "ConjectureResult": "verify.conjecture",
    "InputError": "verify.errors",
    "Outcome": "verify.engine.verdict",
    "Verdict": "verify.engine.verdict",
    "Where": "verify.engine.verdict",
    "above_loss_floor": "verify.engine.check_run",
    "at_event": "verify.engine.check_run",
    "event_time": "verify.engine.check_run",
    "check": "verify.engine.check",
    "conjecture": "verify.conjecture",
}

__all__ = sorted(_EXPORTS)
# exported functions named like the submodule that defines them
_SAME_NAME = {"check", "conjecture"}


class _Package(types.ModuleType):
    """Keeps ``verify.check`` and ``verify.conjecture`` the functions: importing the
    submodule of the same name would otherwise bind the package attribute to the module
    (import the module with ``importlib.import_module("verify.engine.check")``)."""

    def __setattr__(self, name, value):
        if name in _SAME_NAME and isinstance(value, types.ModuleType):
            if name not in vars(value):
                return  # a package not loaded yet: ``verify.conjecture`` resolves on use
            value = vars(value)[name]
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
moved.install()  # old module paths (``verify.measures``) still import, with a warning


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'verify' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
