"""Sweeps on a Dask cluster: the same rows as the local executor, resumable across both."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from sweep_helpers import stored_rows, write_config  # noqa: E402

import verify.sweep.run as sweep  # noqa: E402
from verify.front.cli import main  # noqa: E402
from verify.running.executors import (  # noqa: E402
    MISSING,
    DaskExecutor,
    DaskMissingError,
    local_cluster,
)

SMALL = (Path(__file__).parent / "small.toml").read_text()  # shared with test_sweep


@pytest.fixture(scope="module")
def cluster():
    """A LocalCluster of 2 single-threaded worker processes, shared by the tests of this
    module (starting one and importing torch in its workers takes seconds)."""
    with local_cluster(2) as cluster:
        yield cluster


@pytest.fixture
def scheduler(cluster):
    return cluster.scheduler_address




class RecordingDask(DaskExecutor):
    """A DaskExecutor that records the batches it was given."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.batches = []

    def map_unordered(self, fn, items):
        items = list(items)
        self.batches.extend(items)
        yield from super().map_unordered(fn, items)


def test_dask_rows_equal_local_rows(tmp_path, scheduler):
    config = write_config(tmp_path, SMALL)
    local = sweep.run_sweep(config, tmp_path / "local", progress=False)
    ex = RecordingDask(address=scheduler)
    dask = sweep.run_sweep(config, tmp_path / "dask", progress=False, executor=ex)
    assert (local.computed, dask.computed, dask.stored_before) == (8, 8, 0)
    assert len(ex.batches) == 4 and ex.client is None  # closed on exit
    rows = stored_rows(tmp_path / "dask")
    assert len(rows) == 8 and rows == stored_rows(tmp_path / "local")  # versions included


def test_dask_resumes_a_store_filled_by_the_local_executor(tmp_path, scheduler):
    full = write_config(tmp_path, SMALL)
    part = write_config(tmp_path, SMALL.replace('seeds = "0..3"', 'seeds = "0..1"'), "part.toml")
    reference = tmp_path / "ref"
    sweep.run_sweep(full, reference, progress=False)

    results = tmp_path / "res"
    first = sweep.run_sweep(part, results, progress=False)
    assert first.computed == 4
    ex = RecordingDask(address=scheduler)
    resumed = sweep.run_sweep(full, results, progress=False, executor=ex)
    assert (resumed.stored_before, resumed.computed, resumed.total) == (4, 4, 8)
    assert sorted((b.params["n"], b.seeds) for b in ex.batches) == [(8, (2, 3)), (12, (2, 3))]
    assert stored_rows(results) == stored_rows(reference)

    # nothing missing: no cluster is started
    ex = RecordingDask(local_workers=2)
    again = sweep.run_sweep(full, results, progress=False, executor=ex)
    assert (again.stored_before, again.computed) == (8, 0)
    assert ex.batches == [] and ex.cluster is None and ex.client is None


def test_interrupt_cancels_outstanding_tasks_and_closes_the_client(cluster):
    ex = DaskExecutor(address=cluster.scheduler_address)
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt), ex:
        for _ in ex.map_unordered(time.sleep, [0.0] + [1.0] * 30):
            raise KeyboardInterrupt
    assert ex.client is None
    # the scheduler forgets the cancelled tasks: none is left to run
    deadline = time.monotonic() + 10
    while cluster.scheduler.tasks and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not cluster.scheduler.tasks
    assert time.monotonic() - start < 10  # 30 x 1 s on 2 workers were not waited for


def test_cli_options_exit_2_naming_the_option(tmp_path, capsys):
    config = write_config(tmp_path, SMALL)
    results = tmp_path / "r"
    base = ["sweep", str(config), "--results", str(results), "--quiet"]
    for extra, names in ((["--dask-local", "0"], ["--dask-local"]),
                         (["--dask-local", "two"], ["--dask-local"]),
                         (["--dask-local", "2", "--scheduler", "tcp://127.0.0.1:1"],
                          ["--dask-local", "--scheduler"])):
        assert main(base + extra) == 2
        err = capsys.readouterr().err
        assert all(name in err for name in names), (extra, err)
    assert not results.exists()
    with pytest.raises(ValueError, match="--dask-local"):
        DaskExecutor()
    with pytest.raises(ValueError, match="--dask-local"):
        DaskExecutor(local_workers=0)


def test_cli_without_dask_exits_2_saying_how_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    config = write_config(tmp_path, SMALL)
    assert main(["sweep", str(config), "--results", str(tmp_path / "r"), "--dask-local", "2"]) == 2
    assert MISSING in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
    with pytest.raises(DaskMissingError, match="gfverify\\[dask\\]"), DaskExecutor(local_workers=1):
        pass


def test_cli_dask_local_end_to_end(tmp_path, capsys):
    """`--dask-local 2` starts (and closes) a cluster of its own; same rows as local."""
    config = write_config(tmp_path, SMALL)
    results = tmp_path / "res"
    assert main(["sweep", str(config), "--results", str(results), "--quiet",
                 "--dask-local", "2"]) == 0
    out = capsys.readouterr().out
    assert "8 computed" in out and "dask local cluster (2 workers)" in out
    reference = tmp_path / "ref"
    assert main(["sweep", str(config), "--results", str(reference), "--quiet"]) == 0
    assert ", local) ->" in capsys.readouterr().out
    assert stored_rows(results) == stored_rows(reference)


def test_cli_scheduler_address(tmp_path, capsys, scheduler):
    config = write_config(tmp_path, SMALL.replace('seeds = "0..3"', "seeds = 2"))
    results = tmp_path / "res"
    assert main(["sweep", str(config), "--results", str(results), "--quiet",
                 "--scheduler", scheduler]) == 0
    out = capsys.readouterr().out
    assert "4 computed" in out and f"dask scheduler {scheduler}" in out
    assert len(sweep.read_rows(results)) == 4


def _page_faults_of_large_allocations() -> int:
    """Minor page faults of 100 allocate-touch-free cycles of a 1 MiB array, in this process."""
    import resource

    import numpy as np

    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(100):
        np.ones(2**17)  # 1 MiB, every page touched, freed at once
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc malloc thresholds")
def test_workers_keep_freed_memory_instead_of_unmapping_it():
    """Dask's MALLOC_TRIM_THRESHOLD_ makes every 1 MiB allocation a fresh mapping (256 page
    faults); once the executor has connected, the worker reuses freed memory."""
    import distributed

    with local_cluster(1) as one, distributed.Client(one) as client:
        assert next(iter(client.run(_page_faults_of_large_allocations).values())) > 100 * 200
        with DaskExecutor(address=one.scheduler_address):
            faults = client.run(_page_faults_of_large_allocations)
        assert next(iter(faults.values())) < 1000
