"""verify's old module paths, from before the engine, the statement language, the runs, the
instance families, the results and the front got packages of their own.

A pack written against an old path (``from verify.measures import ...``) keeps working:
importing it gives the very module at its new path (the same objects, so ``isinstance``
and pickles agree), with a `DeprecationWarning` that names the new path. `install` puts
the finder on ``sys.meta_path``; ``verify/__init__.py`` calls it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

# old path under verify. -> new path under verify.
MOVED = {
    "check": "engine.check",
    "check_run": "engine.check_run",
    "check_ensemble": "engine.check_ensemble",
    "check_grid": "engine.check_grid",
    "check_limit": "engine.check_limit",
    "escalation": "engine.escalation",
    "evidence": "engine.evidence",
    "evidence_kinds": "engine.evidence_kinds",
    "verdict": "engine.verdict",
    "relations": "engine.relations",
    "run_context": "engine.run_context",
    "limit_point": "engine.limit_point",
    "figure_data": "engine.figure_data",
    "scaling": "engine.scaling",
    "measures": "language.measures",
    "expressions": "language.expressions",
    "limits": "language.limits",
    "runs": "running.runs",
    "pool": "running.pool",
    "progress": "running.progress",
    "profiles": "running.profiles",
    "sweep.dask_executor": "running.executors",
    "families": "instances.families",
    "run_cost": "instances.run_cost",
    "table": "results.table",
    "findings": "results.findings",
    "sizes": "results.sizes",
    "figures": "results.figures",
    "claim_figures": "results.claim_figures",
    "mutants": "results.mutants",
    "certified": "engine.certified",
    "certified.decide": "engine.certified.decide",
    "certified.spec": "engine.certified.spec",
    "certified.suite": "engine.certified.suite",
    "cli": "front.cli",
    "plugin": "front.plugin",
    "new_pack": "front.new_pack",
}
_OLD = {f"verify.{old}": f"verify.{new}" for old, new in MOVED.items()}


class _Alias(importlib.abc.Loader):
    """Loads an old path as the module at its new path."""

    def __init__(self, new: str) -> None:
        self.new = new
        self.spec = None

    def create_module(self, spec):
        module = importlib.import_module(self.new)
        self.spec = module.__spec__
        return module

    def exec_module(self, module) -> None:
        module.__spec__ = self.spec  # the import machinery set the old path's spec on it


class _OldPaths(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        new = _OLD.get(fullname)
        if new is None:
            return None
        warnings.warn(f"{fullname} moved to {new}: import it from there",
                      DeprecationWarning, stacklevel=2)
        return importlib.util.spec_from_loader(fullname, _Alias(new))


def new_path(old: str) -> str | None:
    """The new path of the old module path ``old`` (``"verify.measures"``), None if it did
    not move."""
    return _OLD.get(old)


def install() -> None:
    if not any(isinstance(f, _OldPaths) for f in sys.meta_path):
        sys.meta_path.append(_OldPaths())
