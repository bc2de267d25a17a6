"""`verify.running.runs`: runs kept in a store as they finish, computed on an executor; a stopped
verification resumes; a Dask cluster gives the serial verdicts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from numerics import ExactFlow, generators
from verify.running import runs

ROOT = Path(__file__).resolve().parents[3]
SUITE = ROOT / "tests" / "fixtures" / "runs_suite" / "suite_runs.py"


def _spec(seed: int, horizon: float = 40.0):
    problem = generators.orthonormal(n=3, d=3, p=20, lam=1e-6, seed=seed)
    return runs.RunSpec(problem, ExactFlow(), np.linspace(0.0, horizon, 51))


def test_a_store_keeps_each_run_and_a_second_runner_reads_it(tmp_path):
    specs = [_spec(s) for s in range(3)] + [_spec(0)]  # one run asked twice
    first = runs.Runner(runs.RunStore(tmp_path, fingerprint="test"))
    made = first.run_all(specs)
    assert first.computed == 3 and first.loaded == 0  # the repeated run is computed once
    assert made[0] is made[3]
    again = runs.Runner(runs.RunStore(tmp_path, fingerprint="test"))
    read = again.run_all(specs)
    assert again.computed == 0 and again.loaded == 4
    for a, b in zip(made, read, strict=True):
        assert np.array_equal(a.W, b.W) and a.error_estimate == b.error_estimate
    # another version of the code never reads these runs; a damaged file is run again
    assert runs.RunStore(tmp_path, fingerprint="other").get(specs[0].key) is None
    path = next((tmp_path / "runs-test").glob(f"*/{specs[1].key}.pickle"))
    path.write_bytes(b"not a pickle")
    third = runs.Runner(runs.RunStore(tmp_path, fingerprint="test"))
    third.run_all(specs[:2])
    assert (third.loaded, third.computed) == (1, 1)


def test_the_key_names_the_problem_the_method_and_the_saved_times():
    a = _spec(0)
    assert runs.run_key(a.problem, a.method, a.t_eval) == a.key
    assert _spec(1).key != a.key
    assert _spec(0, horizon=41.0).key != a.key
    assert runs.RunSpec(a.problem, ExactFlow(rtol=1e-12), a.t_eval).key != a.key


def test_a_store_on_a_file_is_refused(tmp_path):
    from verify.errors import InputError

    (tmp_path / "f").write_text("x")
    with pytest.raises(InputError, match="is a file"):
        runs.RunStore(tmp_path / "f", fingerprint="x")


def _dask_available() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


needs_dask = pytest.mark.skipif(not _dask_available(), reason="needs dask[distributed]")


@needs_dask
def test_a_conjecture_search_on_a_local_cluster_gives_the_serial_verdicts(tmp_path):
    """The same search, serially and on a LocalCluster of 2 workers (its first phase's
    draws run there at once, `verify.conjecture.search._prefetch`): the same instances,
    outcomes, margins and counterexample."""
    from verify.conjecture import conjecture
    from verify.conjecture import instance as inst_mod

    kw = dict(budget=4, seed=3, params={"p": "20"}, plot=None, escalate=0)
    statement = "NormW(t) <= NormW(0)*exp(t/4)"  # false on these draws: a counterexample
    inst_mod._RUNS.clear()
    serial = conjecture(statement, "two-point", **kw)
    inst_mod._RUNS.clear()
    with runs.configured(None, None, 2) as runner:
        parallel = conjecture(statement, "two-point", **kw)
    assert runner.computed >= 2  # the first phase's draws ran as cluster tasks
    assert parallel.verdict == serial.verdict
    assert [(i.params, i.outcome, i.margin) for i in parallel.tried] == [
        (i.params, i.outcome, i.margin) for i in serial.tried]
    assert (parallel.counterexample is None) == (serial.counterexample is None)
    if serial.counterexample is not None:
        assert parallel.counterexample.params == serial.counterexample.params


def _suite(store: Path, out: Path, *extra) -> subprocess.Popen:
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", str(SUITE), "-q", "-p", "no:cacheprovider",
         "--verify-profile", "paper", "--verify-store", str(store),
         "--verify-json", str(out), *extra], cwd=ROOT, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _stored(store: Path) -> int:
    return len(list(store.glob("runs-*/*/*.pickle")))


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True,
                         text=True).stdout
    return [int(x) for x in out.split()]


def _stop_after_two_runs(store: Path, out: Path, *extra) -> tuple[int, str]:
    """Start the suite, SIGTERM it once two runs are stored; check that the runs kept are
    whole and that its child processes are gone; return (runs kept, its output)."""
    first = _suite(store, out, *extra)
    deadline = time.time() + 1200  # generous: on a loaded machine a run takes a minute
    while _stored(store) < 2 and time.time() < deadline and first.poll() is None:
        time.sleep(0.2)
    assert _stored(store) >= 2, first.communicate()[0]
    children = _children(first.pid)
    first.send_signal(signal.SIGTERM)
    output = first.communicate(timeout=120)[0]
    assert first.returncode != 0, output
    kept = _stored(store)
    assert 2 <= kept <= 6
    assert not list(store.glob("runs-*/*/*.partial")), "a half-written run was left"
    time.sleep(3)
    assert not [c for c in children if Path(f"/proc/{c}").exists()
                and Path(f"/proc/{c}/stat").read_text().split()[2] != "Z"], "children outlived"
    return kept, output


def _same_verdicts(one: Path, other: Path) -> None:
    a, b = (json.loads(p.read_text())["claims"] for p in (one, other))
    for key in ("claim", "instances", "HOLDS", "verdict", "worst_margin", "where"):
        assert [r[key] for r in a] == [r[key] for r in b]


@needs_dask
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_a_stopped_verification_keeps_what_finished_and_resumes(tmp_path):
    """`pytest --verify-profile paper --verify-store DIR --dask-local 2` (a real pytest
    process), stopped by SIGTERM after two runs finished: the runs kept are whole, the
    cluster's workers are gone, and the next run reads them (the rest computed), with the
    verdicts of a serial run."""
    store = tmp_path / "store"
    kept, output = _stop_after_two_runs(store, tmp_path / "a.json", "--dask-local", "2")
    assert "Interrupted" in output or "KeyboardInterrupt" in output, output
    second = _suite(store, tmp_path / "b.json", "--dask-local", "2")
    output = second.communicate(timeout=600)[0]
    assert second.returncode == 0, output
    assert f"runs: {kept} read from the store, {6 - kept} computed" in output, output
    serial = _suite(tmp_path / "serial", tmp_path / "c.json")
    output = serial.communicate(timeout=600)[0]
    assert serial.returncode == 0, output
    _same_verdicts(tmp_path / "b.json", tmp_path / "c.json")


@needs_dask
def test_xdist_workers_share_one_local_cluster_and_give_the_serial_verdicts(tmp_path):
    """`pytest -p xdist -n 2 --dask-local 1`: the controller starts one cluster, both test
    workers send their runs to it (one shared store), and the verdicts are a serial run's."""
    pytest.importorskip("xdist")
    shared = _suite(tmp_path / "store", tmp_path / "x.json", "-p", "xdist", "-n", "2",
                    "--dask-local", "1")
    output = shared.communicate(timeout=900)[0]
    assert shared.returncode == 0, output
    assert ("runs: 0 read from the store, 6 computed (dask local cluster (1 worker), shared "
            "by 2 pytest-xdist workers)") in output, output
    assert _stored(tmp_path / "store") == 6
    again = _suite(tmp_path / "store", tmp_path / "y.json", "-p", "xdist", "-n", "2")
    output = again.communicate(timeout=600)[0]  # no cluster: the workers read the store
    assert again.returncode == 0, output
    assert ("runs: 6 read from the store, 0 computed (local, in 2 pytest-xdist workers)"
            in output), output
    serial = _suite(tmp_path / "serial", tmp_path / "c.json")
    output = serial.communicate(timeout=600)[0]
    assert serial.returncode == 0, output
    _same_verdicts(tmp_path / "x.json", tmp_path / "c.json")


@needs_dask
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_a_stopped_parallel_verification_keeps_what_finished_and_resumes(tmp_path):
    """`pytest -p xdist -n 2 --dask-local 1`, stopped by SIGTERM to the controller after two
    runs finished: the runs kept are whole, the test workers and the cluster's worker are
    gone, and the next run reads them and computes the rest."""
    pytest.importorskip("xdist")
    store = tmp_path / "store"
    parallel = ("-p", "xdist", "-n", "2", "--dask-local", "1")
    kept, output = _stop_after_two_runs(store, tmp_path / "a.json", *parallel)
    # ended as Ctrl-C ends it (a summary printed), not killed
    assert "KeyboardInterrupt" in output, output
    second = _suite(store, tmp_path / "b.json", *parallel)
    output = second.communicate(timeout=600)[0]
    assert second.returncode == 0, output
    assert f"runs: {kept} read from the store, {6 - kept} computed" in output, output


def test_a_local_cluster_and_a_scheduler_together_are_refused(tmp_path):
    """`--dask-local N --scheduler ADDRESS`: one line saying to give one (before, with
    pytest-xdist's -n the address was silently dropped)."""
    both = _suite(tmp_path / "store", tmp_path / "z.json", "--dask-local", "1",
                  "--scheduler", "tcp://127.0.0.1:1")
    output = both.communicate(timeout=300)[0]
    assert both.returncode == 4, output  # pytest's usage error
    assert "--dask-local and --scheduler: give one" in output, output
    assert not (tmp_path / "store").exists() or not _stored(tmp_path / "store")


def test_the_paper_profile_keeps_its_runs_without_being_asked(tmp_path):
    """`pytest verify --verify-profile paper` keeps its runs in the rootdir's store by
    default (so that a stopped paper profile resumes with no option); the other profiles
    keep none unless `--verify-store` is given."""
    from verify.front import plugin

    class Config:
        rootpath = tmp_path

        def __init__(self, store=None):
            self.store = store

        def getoption(self, name):
            assert name == "--verify-store"
            return self.store

    assert plugin._store_dir(Config(), "paper") == str(tmp_path / plugin.DEFAULT_STORE)
    assert plugin._store_dir(Config(), "full") is None
    assert plugin._store_dir(Config(), "quick") is None
    assert plugin._store_dir(Config("elsewhere"), "quick") == "elsewhere"
