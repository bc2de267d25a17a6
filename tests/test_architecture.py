"""Dependencies run one way, and each package exports what it says."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _modules_after_import(name: str) -> set[str]:
    code = f"import sys, {name}; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return set(out.stdout.split())


def test_theory_imports_sympy_only():
    loaded = _modules_after_import("theory")
    for heavy in ("torch", "scipy", "numerics", "verify", "matplotlib"):
        assert heavy not in loaded, f"importing theory imported {heavy}"


def test_numerics_knows_no_claims():
    loaded = _modules_after_import("numerics")
    assert "verify" not in loaded and "theory.registry" not in loaded


@pytest.mark.parametrize("package", ["theory", "numerics", "verify"])
def test_all_names_exist(package):
    mod = __import__(package)
    assert mod.__all__, package
    for name in mod.__all__:
        assert hasattr(mod, name), f"{package}.__all__ lists missing {name}"
