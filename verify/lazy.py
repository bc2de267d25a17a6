"""Package namespaces that load their modules on first use (PEP 562).

``gfverify --help`` imports every command's CLI module, which imports its package;
a package that imported its engine eagerly would load numerics, torch and matplotlib
for a help text. A package lists the modules its public names live in instead::

    __getattr__, __dir__ = forwarding(__name__, "verify.sweep.run")
"""

from __future__ import annotations

import importlib
import sys


def forwarding(package: str, *modules: str):
    """``(__getattr__, __dir__)`` for ``package``: a public name is looked up in
    ``modules`` in order (each imported on first need) and kept in the package."""

    def public(module) -> list[str]:
        names = getattr(module, "__all__", None)
        return list(names) if names is not None else [n for n in vars(module)
                                                      if not n.startswith("_")]

    def __getattr__(name: str):
        if not name.startswith("_"):
            for path in modules:
                module = importlib.import_module(path)
                if name in public(module):
                    value = getattr(module, name)
                    setattr(sys.modules[package], name, value)
                    return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        names = set(vars(sys.modules[package]))
        for path in modules:
            names.update(public(importlib.import_module(path)))
        return sorted(names)

    return __getattr__, __dir__
