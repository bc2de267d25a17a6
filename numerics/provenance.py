"""What produced a result: package versions and the platform."""

from __future__ import annotations

import platform
import sys
from functools import lru_cache
from importlib import metadata

_PACKAGES = ("gfverify", "numpy", "scipy", "sympy", "mpmath", "torch")


@lru_cache(maxsize=1)
def _versions() -> tuple[tuple[str, str], ...]:
    found = []
    for name in _PACKAGES:
        try:
            found.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            found.append((name, "not installed"))
    return tuple(found)


def environment() -> dict:
    """Versions of the packages that shape numbers, plus Python and the platform."""
    env = dict(_versions())
    env["python"] = sys.version.split()[0]
    env["platform"] = platform.platform()
    return env
