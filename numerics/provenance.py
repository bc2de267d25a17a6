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


@lru_cache(maxsize=1)
def source_commit() -> str:
    """The git commit the running code comes from ("<hash>", with " + uncommitted changes"
    when the work tree differs), or "not a git checkout" for an installed wheel."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():
        return "not a git checkout"
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], text=True,
                              capture_output=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                "--untracked-files=no"], text=True, capture_output=True,
                               timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "not a git checkout"
    return head + (" + uncommitted changes" if dirty else "")
