"""bench/cel23_sizes.py --store: flows written under their cell and trial, read back, and a
store of another horizon refused."""

from __future__ import annotations

import json

import pytest


def test_a_stored_flow_is_read_back_and_a_store_of_another_horizon_refused(tmp_path, bench_script):
    bench = bench_script("cel23_sizes")
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


def test_the_first_line_says_what_ran_and_what_was_read_back(bench_script):
    bench = bench_script("cel23_sizes")
    args = bench._parser().parse_args(["--d", "256", "--store", "flows.json"])
    all_read = bench._header(args, 50, 0, 0.1, [240.0, 300.0])
    assert "all 50 flows with their companions read from flows.json" in all_read
    assert ": 0 flows" not in all_read and "0.0 min" not in all_read
    assert "took 9.0 core-minutes when they ran, 4.0 to 5.0 min each" in all_read
    some = bench._header(args, 50, 25, 3240.0, [])
    assert "25 flows with their companions in 54.0 min" in some
    assert "25 more read from flows.json" in some
    fresh = bench._header(args, 50, 50, 60.0, [])
    assert "50 flows with their companions in 1.0 min" in fresh and "read from" not in fresh
