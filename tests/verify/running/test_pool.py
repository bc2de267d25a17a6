"""`verify.running.pool.worker_pool`: workers on one thread, and no worker outlives its parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from verify.running.pool import worker_pool

_ROOT = str(Path(__file__).resolve().parents[3])


def _threads_env(_):
    return os.environ["OMP_NUM_THREADS"], os.environ["GFVERIFY_THREADS"]


def test_workers_run_on_one_thread():
    with worker_pool(2) as pool:
        assert set(pool.map(_threads_env, range(4))) == {("1", "1")}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:  # a zombie has ended its work
        return fh.read().split()[2] != "Z"


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_workers_end_when_their_parent_is_killed(tmp_path):
    # The parent starts two workers on an endless task and is then SIGKILLed, so no
    # `except` of worker_pool runs: the workers must notice and end themselves.
    pids = tmp_path / "pids"
    script = textwrap.dedent(f"""
        import os, sys, time
        sys.path.insert(0, {_ROOT!r})
        from verify.running.pool import worker_pool
        from tests.verify.running.test_pool import _spin
        with worker_pool(2) as pool:
            pool.map_async(_spin, [{str(pids)!r}] * 2)
            time.sleep(600)
    """)
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=_ROOT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if pids.exists() and len(pids.read_text().split()) >= 2:
            break
        time.sleep(0.1)
    workers = [int(p) for p in pids.read_text().split()]
    assert len(workers) == 2 and all(_alive(w) for w in workers)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.1)
    left = [w for w in workers if _alive(w)]
    for w in left:
        os.kill(w, signal.SIGKILL)
    assert not left, f"workers {left} outlived their killed parent"


def _spin(path: str) -> None:
    with open(path, "a") as fh:
        fh.write(f"{os.getpid()}\n")
    while True:
        time.sleep(0.05)


def _count_to(n: int, progress) -> int:
    progress[1] = n
    for k in range(n):
        progress[0] = k + 1
    return os.getpid()


def _refuse(progress):
    raise ValueError("--thing: refused in the worker")


def _sleep(progress):
    time.sleep(600)


def test_a_background_function_returns_its_value_and_progress_from_another_process():
    from verify.running.pool import Background

    job = Background(_count_to, 7)
    pid = job.result()
    assert pid != os.getpid() and job.finished and job.progress() == (7, 7)


def test_a_background_function_s_exception_is_raised_in_the_caller():
    from verify.running.pool import Background

    job = Background(_refuse)
    with pytest.raises(ValueError, match="refused in the worker"):
        job.result()


def test_a_terminated_background_function_ends_and_says_it_died():
    from verify.running.pool import Background

    job = Background(_sleep)
    assert job.result(poll=0.2) is None and not job.finished
    job.terminate()
    with pytest.raises(RuntimeError, match="died"):
        job.result()


def _blas_threads(progress):
    import threadpoolctl

    np.ones(2) @ np.ones(2)  # this module imports numpy: loaded before the call
    return [p["num_threads"] for p in threadpoolctl.threadpool_info()
            if p["user_api"] == "blas"]


def test_a_background_worker_loads_its_blas_on_one_thread(monkeypatch):
    # the function's module (numpy with it) is imported as the worker unpickles it, before
    # any code of the worker runs: the thread count must already be in its environment
    from verify.running.pool import Background

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert Background(_blas_threads).result() == [1]
    assert "OPENBLAS_NUM_THREADS" not in os.environ  # the caller's environment is restored
