"""`verify.front.pack_memory`: a pack's cached runs are let go after its last test, and only
then, and only its own."""

from __future__ import annotations

import importlib
import sys
from types import SimpleNamespace

import pytest

from verify.front import pack_memory, plugin

_MODULE = """
from functools import cache, lru_cache

@lru_cache(maxsize=8)
def run(k):
    return [k] * 1000

@cache
def table(k):
    return {k: k}
"""


@pytest.fixture
def two_packs(tmp_path, monkeypatch):
    """Two pack directories, each a package with a module of two caches, imported and
    filled."""
    monkeypatch.syspath_prepend(str(tmp_path))
    out = {}
    for name in ("pack_mem_a", "pack_mem_b"):
        root = tmp_path / name
        (root / "tests").mkdir(parents=True)
        (root / "__init__.py").write_text("")
        (root / "evidence.py").write_text(_MODULE)
        (root / "tests" / "test_x.py").write_text("def test_x():\n    pass\n")
        module = importlib.import_module(f"{name}.evidence")
        module.run(1), module.run(2), module.table(3)
        out[name] = (root.resolve(), module)
    yield out
    for name in out:
        for key in [k for k in sys.modules if k.startswith(name)]:
            del sys.modules[key]


def _sizes(module) -> tuple[int, int]:
    return module.run.cache_info().currsize, module.table.cache_info().currsize


def test_release_clears_the_caches_under_the_pack_and_nothing_else(two_packs):
    (root_a, mod_a), (root_b, mod_b) = two_packs["pack_mem_a"], two_packs["pack_mem_b"]
    assert pack_memory.pack_of(root_a / "tests" / "test_x.py", (root_a, root_b)) == root_a
    assert pack_memory.pack_of(root_a.parent / "elsewhere.py", (root_a, root_b)) is None
    assert pack_memory.release(root_a) == 2
    assert _sizes(mod_a) == (0, 0) and _sizes(mod_b) == (2, 1)
    assert mod_a.run(1) == [1] * 1000  # asked again: computed again, the same


def test_the_plugin_releases_a_pack_when_its_last_test_has_run(two_packs):
    (root_a, mod_a), (root_b, mod_b) = two_packs["pack_mem_a"], two_packs["pack_mem_b"]
    config = SimpleNamespace(_gfverify_pack_roots=(root_a, root_b))

    def item(root):
        return SimpleNamespace(config=config, path=root / "tests" / "test_x.py")

    plugin.pytest_runtest_teardown(item(root_a), item(root_a))  # more of pack a to come
    assert _sizes(mod_a) == (2, 1)
    plugin.pytest_runtest_teardown(item(root_a), item(root_b))  # pack a done
    assert _sizes(mod_a) == (0, 0) and _sizes(mod_b) == (2, 1)
    plugin.pytest_runtest_teardown(item(root_b), None)  # the session's last test
    assert _sizes(mod_b) == (0, 0)
