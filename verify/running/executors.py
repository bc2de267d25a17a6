"""Where tasks run: in this process, one after another (`LocalExecutor`), or on a Dask
cluster (`DaskExecutor`: ``--scheduler ADDRESS``, ``--dask-local N``). `executor_for` picks
one from the command-line options. The sweeps, the run store (`verify.running.runs`: the
paper profile, the conjecture search) and the report's sections use them.

`DaskExecutor` is an executor for `verify.sweep.run_sweep`: it submits one task per
`Batch` (``compute_batch``, a self-contained description of the trajectories) and
yields the rows as tasks finish; `run_sweep` writes them to SQLite in the calling
process, one transaction per batch, exactly as with the local executor. Generators
and methods are deterministic, so the rows are the same (but for ``wall_time``)
whichever executor computed them, and an interrupted sweep resumes the same way.

Either ``address`` (a running scheduler, e.g. ``tcp://host:8786``, started with
``dask scheduler`` and workers ``dask worker tcp://host:8786 --nthreads 1``) or
``local_workers`` (a `LocalCluster` of that many single-threaded worker processes on
this machine). Dask is imported only when the executor is used: install it with
``pip install 'gfverify[dask]'``. The client connects on entry; a local cluster
starts with the first batch, so resuming a complete sweep starts none. On exit, also
after Ctrl-C, the tasks not yet finished are cancelled and the client and cluster closed.

Dask starts its workers with ``MALLOC_TRIM_THRESHOLD_=65536``, which fixes glibc's
malloc thresholds: every allocation over 128 KiB is then mapped from the kernel and
unmapped when freed, and a descent step, which allocates arrays of that size, spent a
third of its time in page faults (0.90 s against 0.62 s for 100 steps of 20 replicates
at n = 2800, d = 100, p = 30). `KeepFreedMemory`, registered on every worker the
client reaches (also those that join later), sets the thresholds back up.
"""

from __future__ import annotations

import argparse
import ctypes
import logging
import sys
import threading

from verify.errors import InputError, UsageError

MISSING = "--scheduler/--dask-local need dask: pip install 'gfverify[dask]'"


class DaskMissingError(UsageError, ImportError):
    """dask.distributed is not installed (reported by the CLI with exit code 2)."""


def require_dask():
    """The `distributed` module, or DaskMissingError saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise DaskMissingError(MISSING) from None
    return distributed


def local_cluster(workers: int):
    """A LocalCluster of ``workers`` single-threaded worker processes on this machine.

    No dashboard; the scheduler's small HTTP server (health checks) takes a free
    loopback port rather than 8787, so two clusters at once start without a warning.
    Dask's own log shows errors only (not the notices of tasks cancelled by Ctrl-C).
    """
    distributed = require_dask()
    return distributed.LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}, silence_logs=logging.ERROR)


# glibc mallopt parameters and the values `KeepFreedMemory` sets
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD = 32 * 2**20  # the largest glibc's own dynamic threshold would reach
TRIM_THRESHOLD = 128 * 2**20


def keep_freed_memory() -> bool:
    """Raise glibc's mmap and trim thresholds in this process (Linux with glibc only);
    True if they were set."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc (e.g. musl)
        return False
    return bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                and libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))


def _worker_plugin():
    distributed = require_dask()

    class KeepFreedMemory(distributed.WorkerPlugin):
        """On each worker: `keep_freed_memory`."""

        name = "gfverify-keep-freed-memory"

        def setup(self, worker) -> None:
            keep_freed_memory()

    return KeepFreedMemory()


class DaskExecutor:
    """Runs batches as Dask tasks; a context manager with ``map_unordered(fn, items)``.

    Give exactly one of ``address`` (a running scheduler, ``tcp://host:8786``) and
    ``local_workers`` (a `local_cluster` of that many single-threaded processes on this
    machine), else a `verify.errors.InputError`. Pass it to `verify.sweep.run_sweep` as
    ``executor`` (``gfverify sweep ... --scheduler ADDRESS`` or ``--dask-local N``).
    Entering connects to a scheduler at once (a bad address fails before any work, as a
    usage error); a local cluster starts with the first batch. Leaving, also after
    Ctrl-C, cancels the unfinished tasks and closes the client and the cluster. Needs
    ``pip install 'gfverify[dask]'`` (else entering raises `DaskMissingError`).

    Attributes
    ----------
    address
        The scheduler's address, or None for a local cluster.
    local_workers
        The number of local worker processes, or None with a scheduler's address.
    client
        The ``distributed.Client`` while connected, else None.
    cluster
        The ``distributed.LocalCluster`` this executor started, else None.
    """

    def __init__(self, address: str | None = None, local_workers: int | None = None) -> None:
        if (address is None) == (local_workers is None):
            raise InputError("--scheduler/--dask-local: give exactly one of address "
                             "(--scheduler ADDRESS) or local_workers (--dask-local N)")
        if address is not None and (not isinstance(address, str) or not address.strip()):
            raise InputError(f"--scheduler: expected a scheduler address, got {address!r}")
        if local_workers is not None and (
                isinstance(local_workers, bool) or not isinstance(local_workers, int)
                or local_workers < 1):
            raise InputError(f"--dask-local: expected a number of workers >= 1, "
                             f"got {local_workers!r}")
        self.address = address
        self.local_workers = local_workers
        self.client = None
        self.cluster = None
        self._futures: set = set()  # every map's unfinished futures (maps may overlap)
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """What runs the batches, in words (``gfverify sweep`` prints it with the counts)."""
        if self.address is not None:
            return f"dask scheduler {self.address}"
        n = self.local_workers
        return f"dask local cluster ({n} worker{'s' if n != 1 else ''})"

    def __enter__(self) -> DaskExecutor:
        require_dask()  # fail early
        if self.address is not None:  # connect now: a bad address fails before any work;
            self._start()  # a local cluster (seconds to start) waits for the first batch
        return self

    def _start(self) -> None:
        distributed = require_dask()
        try:
            if self.address is not None:
                try:
                    self.client = distributed.Client(self.address)
                except (OSError, ValueError, TypeError) as exc:  # TimeoutError is an OSError
                    raise UsageError(
                        f"--scheduler: cannot connect to {self.address} ({exc})") from None
            else:
                self.cluster = local_cluster(self.local_workers)
                self.client = distributed.Client(self.cluster)
            self.client.register_plugin(_worker_plugin())
        except BaseException:
            self._close()
            raise

    def __exit__(self, *exc) -> None:
        self._close()
        return None

    def scheduler_address(self) -> str:
        """The scheduler's address (a local cluster is started now if it was not), for other
        processes to join the same cluster (``--scheduler ADDRESS``)."""
        with self._lock:
            if self.client is None:
                self._start()
        return self.client.scheduler.address

    def map_unordered(self, fn, items):
        """Submit fn(item) for every item; yield the results as they finish. Several maps
        may run at once (from several threads: a verification's runs prefetched beside
        the tests that read them); leaving one cancels its own unfinished tasks."""
        items = list(items)
        if not items:
            return
        with self._lock:
            if self.client is None:
                self._start()
        distributed = require_dask()
        # each item's data goes to the workers first (scattered, not inside the task graph:
        # a run's problem can be tens of MB); pure=False: a batch is a task of its own even
        # if an identical one was submitted
        data = self.client.scatter(items, hash=False)
        mine = [self.client.submit(fn, item, pure=False) for item in data]
        with self._lock:
            self._futures.update(mine)
        try:
            for future in distributed.as_completed(mine):
                result = future.result()
                future.release()
                with self._lock:
                    self._futures.discard(future)
                yield result
        finally:
            self._cancel(mine)

    def _cancel(self, futures=None) -> None:
        with self._lock:
            futures = list(self._futures if futures is None else futures)
            self._futures.difference_update(futures)
        pending = [f for f in futures if not f.done()]
        if pending and self.client is not None:
            try:
                self.client.cancel(pending)
            except Exception:  # the client may already be gone; closing follows
                pass

    def _close(self) -> None:
        self._cancel()
        client, self.client = self.client, None
        cluster, self.cluster = self.cluster, None
        try:
            if client is not None:
                client.close()
        finally:
            if cluster is not None:
                cluster.close()


def workers_option(text: str) -> int:
    """``--dask-local N``: a number of worker processes >= 1 (argparse type)."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a number of workers >= 1, got {text!r}")
    return n


def add_options(parser, what: str = "the runs") -> None:
    """``--scheduler ADDRESS`` and ``--dask-local N`` (one of them) on ``parser``."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS", default=None,
                       help=f"run {what} on a Dask cluster, e.g. tcp://host:8786 (needs pip "
                            "install 'gfverify[dask]')")
    where.add_argument("--dask-local", metavar="N", type=workers_option, default=None,
                       help=f"run {what} on a local Dask cluster of N worker processes")


class LocalExecutor:
    """Runs batches in this process, one after another, in the order given."""

    name = "local"

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, *exc) -> None:
        return None

    def map_unordered(self, fn, items):
        """``fn(item)`` for each item, in order, yielded as each finishes."""
        for item in items:
            yield fn(item)


def executor_for(scheduler: str | None = None, local_workers: int | None = None):
    """The executor ``--scheduler``/``--dask-local`` ask for: a `DaskExecutor`, or the
    `LocalExecutor` (this process) when neither is given. A context
    manager, not yet entered; dask is required (and checked) only for a Dask one."""
    if scheduler is None and local_workers is None:
        return LocalExecutor()
    require_dask()  # before anything is written
    return DaskExecutor(address=scheduler, local_workers=local_workers)
