"""bench/cel23_sizes.py --store: flows written under their cell and trial, read back, and a
store of another horizon refused."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("bench_cel23_sizes",
                                                  ROOT / "bench" / "cel23_sizes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_stored_flow_is_read_back_and_a_store_of_another_horizon_refused(tmp_path):
    bench = _script()
    path = tmp_path / "flows.json"
    job = (256, -9, "centred", 3, 5000.0)
    bench._save(path, 5000.0, {bench._key(job): {"max_angle": 1.5, "seconds": 2.0}})
    assert bench._load(path, 5000.0) == {"centred d=256 k=-9 trial=3":
                                         {"max_angle": 1.5, "seconds": 2.0}}
    assert json.loads(path.read_text())["horizon"] == 5000.0
    assert not (tmp_path / "flows.json.tmp").exists()
    with pytest.raises(SystemExit, match="end at t = 5000"):
        bench._load(path, 1000.0)
    assert bench._load(tmp_path / "none.json", 5000.0) == {}
