"""Memory between packs in ``pytest verify``: when the last test of a pack has run, the
runs its modules cached are let go.

A pack's tests and evidence keep their runs in ``functools`` caches (``@cache`` in a test
module, ``lru_cache`` in ``evidence.py``), so that the tests of one instance share its run.
Those caches live as long as their modules, that is the whole session: under
``--verify-profile paper`` the suite's process held every pack's runs at once and grew to
19 GB on a 24 GB machine (12 GB with them released: measured on one store, 2026-12-07).
The pytest plugin (`verify.front.plugin`) calls `release` with the pack's directory as
soon as the next test belongs to another pack (or there is none): every cache defined in or
imported by a module under that directory is cleared. Clearing changes no result (a later
test that asks again recomputes or reads the run from the store), only what is held.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterable
from pathlib import Path


def pack_of(path: Path | str, roots: Iterable[Path]) -> Path | None:
    """The pack directory among ``roots`` that holds ``path`` (a test file), or None."""
    path = Path(path).resolve()
    for root in roots:
        if root == path or root in path.parents:
            return root
    return None


def _caches(module) -> list:
    """The functools caches among a module's names (defined there or imported)."""
    found = []
    for value in list(vars(module).values()):
        if callable(getattr(value, "cache_clear", None)) and hasattr(value, "cache_info"):
            found.append(value)
    return found


def release(root: Path) -> int:
    """Clear the caches of every loaded module whose file lies under ``root``; the number of
    caches cleared (each counted once)."""
    root = Path(root).resolve()
    seen: set[int] = set()
    for module in list(sys.modules.values()):
        where = getattr(module, "__file__", None)
        if not where:
            continue
        try:
            inside = root in Path(where).resolve().parents
        except (OSError, ValueError):
            continue
        if not inside:
            continue
        for cached in _caches(module):
            if id(cached) not in seen:
                seen.add(id(cached))
                cached.cache_clear()
    if seen:
        gc.collect()
    return len(seen)


__all__ = ["pack_of", "release"]
