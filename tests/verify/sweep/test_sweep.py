"""Sweeps: batched runs stored in SQLite, resumable after SIGINT or SIGKILL."""

from __future__ import annotations

import csv
import io
import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sweep_helpers import stored_rows, write_config

import verify.sweep.run as sweep
from numerics import generators
from verify.front.cli import main

SMALL = (Path(__file__).parent / "small.toml").read_text()  # shared with test_sweep_dask

# Many small batches of fixed length, so a run can be stopped part way.
SLOW = """\
name = "slow"
generator = "sphere"
seeds = "0..11"
batch_size = 2

[grid]
n = [12]
d = [6]
p = [10]

[method]
name = "gd"
lr = 1.0
epochs = 5000
stop_loss = false
"""




def _count(results) -> int:
    path = results / sweep.DB_NAME
    if not path.exists():
        return 0
    try:
        conn = sqlite3.connect(path, timeout=5)
        try:
            return conn.execute("SELECT COUNT(*) FROM trajectories").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError:  # the table is not created yet
        return 0


@pytest.fixture
def counted(monkeypatch):
    """Count the trajectories the sweep simulates."""
    calls = []
    real = sweep.simulate_batch

    def wrapper(problems, method, t_eval):
        calls.append(len(problems))
        return real(problems, method, t_eval)

    monkeypatch.setattr(sweep, "simulate_batch", wrapper)
    return calls


def test_small_sweep_stores_rows_and_resumes_without_recomputing(tmp_path, counted):
    config = write_config(tmp_path, SMALL)
    results = tmp_path / "res"
    first = sweep.run_sweep(config, results, progress=False)
    assert (first.total, first.computed, first.stored_before) == (8, 8, 0)
    assert sum(counted) == 8 and max(counted) == 2  # batches of batch_size
    rows = sweep.read_rows(results)
    assert len(rows) == 8
    assert {(r["n"], r["seed"]) for r in rows} == {(n, s) for n in (8, 12) for s in range(4)}
    for r in rows:
        opts = json.loads(r["options"])
        assert opts["epochs"] == sweep.epoch_budget(r["n"], r["p"], 1.0)
        assert opts["stop_loss"] == pytest.approx(1 / (2 * r["n"]))
        reached = r["final_loss"] is not None and r["final_loss"] <= 1 / (2 * r["n"])
        assert r["success"] == int(reached and r["status"] == "success")
        assert r["epochs"] <= opts["epochs"] and r["initial_loss"] > 0
        assert r["status"] in ("success", "nonfinite")
        assert json.loads(r["versions"])["torch"]
    assert any(r["success"] for r in rows)
    assert len({r["config_hash"] for r in rows if r["n"] == 8}) == 1

    counted.clear()
    again = sweep.run_sweep(config, results, progress=False)
    assert (again.computed, again.stored_before) == (0, 8) and counted == []
    # same seeds, same rows (a fresh store)
    other = tmp_path / "other"
    sweep.run_sweep(config, other, progress=False)
    assert stored_rows(other) == stored_rows(results)


def _interrupted_run(tmp_path, config, results, sig, attempts: int = 3):
    """A sweep stopped by ``sig`` after its first stored batch. On a loaded machine the
    signal can reach the sweep after its last batch (exit 0): that run was not interrupted,
    and it is tried again from an empty store (batches of about 2 s make that rare)."""
    for _ in range(attempts):
        shutil.rmtree(results, ignore_errors=True)
        proc = subprocess.Popen(
            [sys.executable, "-m", "verify", "sweep", str(config), "--results", str(results),
             "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 40
        while _count(results) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, "the sweep finished before it could be interrupted"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
        if proc.returncode != 0:
            break
    if sig == signal.SIGINT:
        assert proc.returncode == 130, (proc.returncode, _count(results), out, err)
        assert "resume" in err
    else:
        assert proc.returncode == -signal.SIGKILL
    stored = _count(results)
    assert 2 <= stored < 12
    return stored


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["sigint", "sigkill"])
def test_interrupted_sweep_resumes_to_the_uninterrupted_store(tmp_path, sig, counted):
    config = write_config(tmp_path, SLOW)
    reference = tmp_path / "ref"
    sweep.run_sweep(config, reference, progress=False)
    counted.clear()

    results = tmp_path / "res"
    stored = _interrupted_run(tmp_path, config, results, sig)
    resumed = sweep.run_sweep(config, results, progress=False)
    assert resumed.stored_before == stored and resumed.computed == 12 - stored
    assert sum(counted) == 12 - stored
    assert stored_rows(results) == stored_rows(reference)


def test_bad_config_exits_2_naming_the_key(tmp_path, capsys):
    cases = [
        (SMALL.replace('seeds = "0..3"', 'seeds = "0..3"\nbogus = 1'), "bogus"),
        (SMALL.replace("n = [8, 12]", "n = [8, 12]\nwidth = [3]"), "grid.width"),
        (SMALL.replace("lr = 1.0", "lr = -1.0"), "method.lr"),
        (SMALL.replace("batch_size = 2", "threads = 0"), "threads"),
        (SMALL.replace('name = "gd"', 'name = "adam"'), "method.name"),
        (SMALL.replace('stop_loss = "protocol"', 'stop_loss = "soon"'), "method.stop_loss"),
        (SMALL.replace('"0..3"', '"3..0"'), "seeds"),
        (SMALL.replace('"sphere"', '"cube"'), "generator"),
        (SMALL.replace("n = [8, 12]", "n = [0]"), "grid"),
        (SMALL.replace("lr = 1.0", "lr = 1.0\nmomentum = 0.9"), "method.momentum"),
        ("generator = [", "not valid TOML"),
    ]
    for k, (text, name) in enumerate(cases):
        config = write_config(tmp_path, text, f"bad{k}.toml")
        assert main(["sweep", str(config), "--results", str(tmp_path / "r"), "--quiet"]) == 2
        assert name in capsys.readouterr().err, text
    assert not (tmp_path / "r" / sweep.DB_NAME).exists()


def test_results_csv_and_json(tmp_path, capsys):
    config = write_config(tmp_path, SMALL)
    results = tmp_path / "res"
    assert main(["sweep", str(config), "--results", str(results), "--quiet"]) == 0
    assert "8 computed" in capsys.readouterr().out
    assert main(["results", str(results), "--format", "csv"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(table) == 8 and set(table[0]) == set(sweep.COLUMN_NAMES)
    assert main(["results", str(results), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data) == 8
    assert {r["instance_hash"] for r in data} == {r["instance_hash"] for r in table}
    assert all(isinstance(r["success"], bool) and r["options"]["lr"] == 1.0 for r in data)
    assert main(["results", str(tmp_path / "missing")]) == 2
    assert "DIR" in capsys.readouterr().err


def test_flow_sweep(tmp_path):
    config = write_config(tmp_path, """\
generator = "orthogonal_scaled"
seeds = 2

[grid]
n = [4]
d = [6]
p = [8]

[method]
name = "flow"
t_max = 20
points = 11
rtol = 1e-8
""")
    result = sweep.run_sweep(config, tmp_path / "res", progress=False)
    assert result.computed == 2
    rows = sweep.read_rows(tmp_path / "res")
    assert [r["seed"] for r in rows] == [0, 1]
    assert all(r["method"] == "flow" and r["stop_time"] == 20.0 for r in rows)
    assert all(r["final_loss"] < r["initial_loss"] for r in rows)


def test_grid_unions_ranges_and_the_published_width_rule(tmp_path):
    cfg = sweep.parse_config({
        "generator": "orthogonal_scaled", "seeds": 2, "batch_size": 2,
        "grid": [{"d": 12, "n": "4..8 step 4", "p": "published", "repo_orth": True},
                 {"d": [20], "n": [10], "p": [6]}],
        "method": {"name": "gd", "epochs": 300, "stop_loss": 1e-8, "error_check": False,
                   "points": 3, "kernel_rate": True},
    })
    points = cfg.points()
    assert [(pt["n"], pt["d"], pt["p"]) for pt in points] == [
        (4, 12, generators.published_width(4)), (8, 12, generators.published_width(8)), (10, 20, 6)]
    # floor(log(n / 0.05) / log(4/3)) + 1: the published table (THEORY E-000-1)
    assert [generators.published_width(n) for n in (1300, 1550, 1600, 2050, 2100)] == [
        36, 36, 37, 37, 38]
    result = sweep.run_sweep(cfg, tmp_path / "res", progress=False)
    assert result.computed == 6
    rows = sweep.read_rows(tmp_path / "res")
    for r in rows:
        assert json.loads(r["params"])["p"] == r["p"]
        assert 0 <= r["energy_min"] <= r["energy_max"]
        if r["n"] < 10:  # Q-good (redrawn) initialisations: every run converges
            assert r["success"] and r["rate_avg"] > 0 and r["rate_end"] > 0
            assert r["kernel_rate"] > 0 and r["energy_min"] > 0
        else:  # default init, p = 6: a sample without an active neuron stalls the loss
            assert not r["success"] and r["energy_min"] == 0
            assert abs(r["kernel_rate"]) < 1e-12 and r["rate_end"] == 0


def test_bad_ranges_and_rules_name_the_key(tmp_path):
    base = {"generator": "sphere", "seeds": 2, "method": {"name": "gd"}}
    for grid, key in (({"n": "9..3", "d": 5, "p": 4}, "grid.n"),
                      ({"n": "1..x", "d": 5, "p": 4}, "grid.n"),
                      ({"d": 5, "p": "published"}, "grid.p"),
                      ([], "grid")):
        with pytest.raises(sweep.SweepConfigError, match=key.replace(".", r"\.")):
            sweep.parse_config(dict(base, grid=grid))
    with pytest.raises(sweep.SweepConfigError, match="method.kernel_rate"):
        sweep.parse_config(dict(base, grid={"n": 4, "d": 5, "p": 4},
                                method={"name": "gd", "kernel_rate": "yes"}))


def test_a_store_of_another_schema_is_refused_untouched(tmp_path):
    results = tmp_path / "old"
    results.mkdir()
    conn = sqlite3.connect(results / sweep.DB_NAME)
    conn.execute("CREATE TABLE trajectories (instance_hash TEXT, config_hash TEXT)")
    conn.execute("INSERT INTO trajectories VALUES ('a', 'b')")
    conn.commit()
    conn.close()
    before = (results / sweep.DB_NAME).read_bytes()
    with pytest.raises(sweep.SweepStoreError, match="DIR"):
        sweep.run_sweep(write_config(tmp_path, SMALL), results, progress=False)
    assert (results / sweep.DB_NAME).read_bytes() == before


class RecordingExecutor(sweep.LocalExecutor):
    """The local executor, recording the order in which it is handed the batches."""

    def __init__(self):
        self.order = []

    def map_unordered(self, fn, items):
        for item in items:
            self.order.append(item)
            yield fn(item)


def test_batches_are_handed_out_largest_first(tmp_path):
    """Plan order is n = 8 before n = 12; the n = 12 batches (larger budget and n) go first."""
    executor = RecordingExecutor()
    sweep.run_sweep(write_config(tmp_path, SMALL), tmp_path / "store", progress=False,
                    executor=executor)
    costs = [b.cost() for b in executor.order]
    assert [b.params["n"] for b in executor.order] == [12, 12, 8, 8]
    assert costs == sorted(costs, reverse=True) and costs[0] > costs[-1]
    plan_order = [b.params["n"] for b in sweep.plan(sweep.load_config(tmp_path / "sweep.toml"))]
    assert plan_order == [8, 8, 12, 12]
