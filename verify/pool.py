"""A process pool for the report's sections that a stop does not wait for.

`concurrent.futures.ProcessPoolExecutor` leaves its ``with`` block by waiting for the
running tasks: a Ctrl-C or SIGTERM in the middle of a section then waited for minutes of
simulation that nobody would use. `worker_pool` terminates its workers instead when the
block is left by an exception, and starts them fresh (``spawn``: no thread pool of the
parent is copied into them) on one BLAS and torch thread each, since the workers share
the machine's cores. A worker whose parent dies (killed by a signal it does not handle, so
that no ``except`` runs) ends itself within a second rather than computing on as an orphan.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time

_ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "GFVERIFY_THREADS")


# How often a worker looks whether its parent is still alive (seconds).
_PARENT_POLL = 1.0


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_PARENT_POLL)
    os._exit(1)


def _start_worker() -> None:
    for var in _ONE_THREAD:
        os.environ[var] = "1"
    threading.Thread(target=_exit_when_orphaned, args=(os.getppid(),), daemon=True,
                     name="gfverify-parent-watch").start()


@contextlib.contextmanager
def worker_pool(workers: int):
    """``with worker_pool(2) as pool: pool.imap_unordered(fn, items)``: a
    `multiprocessing.Pool` of ``workers`` processes, terminated (not waited for) when the
    block raises, closed and joined when it ends normally."""
    pool = multiprocessing.get_context("spawn").Pool(int(workers), initializer=_start_worker)
    try:
        yield pool
    except BaseException:
        pool.terminate()
        pool.join()
        raise
    pool.close()
    pool.join()
