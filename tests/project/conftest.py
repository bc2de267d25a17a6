"""The bench scripts are not a package: the tests load one from its file."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def bench_script():
    """``bench_script(NAME)``: bench/NAME.py loaded as a module."""
    def load(name: str):
        spec = importlib.util.spec_from_file_location(f"bench_{name}",
                                                      ROOT / "bench" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    return load
