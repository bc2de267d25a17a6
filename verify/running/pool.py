"""A process pool for the report's sections that a stop does not wait for.

`concurrent.futures.ProcessPoolExecutor` leaves its ``with`` block by waiting for the
running tasks: a Ctrl-C or SIGTERM in the middle of a section then waited for minutes of
simulation that nobody would use. `worker_pool` terminates its workers instead when the
block is left by an exception, and starts them fresh (``spawn``: no thread pool of the
parent is copied into them) on one BLAS and torch thread each, since the workers share
the machine's cores. A worker whose parent dies (killed by a signal it does not handle, so
that no ``except`` runs) ends itself within a second rather than computing on as an orphan.
`Background` runs one such worker for one long function (the report's tightness table)
beside the work of the calling process, with a progress counter the caller can show.
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


@contextlib.contextmanager
def _one_thread_environment():
    """This process's environment set to one thread while workers are started: a spawned
    worker unpickles its function (importing numpy and torch) before any initializer runs,
    and a BLAS library reads its thread count when it is loaded."""
    before = {var: os.environ.get(var) for var in _ONE_THREAD}
    os.environ.update(dict.fromkeys(_ONE_THREAD, "1"))
    try:
        yield
    finally:
        for var, value in before.items():
            if value is None:
                os.environ.pop(var, None)
            else:
                os.environ[var] = value


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
    with _one_thread_environment():
        pool = multiprocessing.get_context("spawn").Pool(int(workers), initializer=_start_worker)
    try:
        yield pool
    except BaseException:
        pool.terminate()
        pool.join()
        raise
    pool.close()
    pool.join()


class Background:
    """``fn(*args, progress=counter, **kwargs)`` in one spawned worker process (one thread,
    ending itself if this process dies), started at once. ``counter`` is a shared pair of
    ints the function may set, [done, total], read here by `progress`; `result` waits for
    the return value (re-raising the worker's exception); `terminate` ends the worker."""

    def __init__(self, fn, *args, **kwargs) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.counter = ctx.Array("l", 2)
        self._recv, send = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_background_main, args=(send, self.counter, fn, args,
                                                                 kwargs),
                                 name="gfverify-background")  # not daemonic: may have a pool
        with _one_thread_environment():
            self._proc.start()
        send.close()
        self._outcome = None

    def progress(self) -> tuple[int, int]:
        """(done, total) as the function last set them."""
        return int(self.counter[0]), int(self.counter[1])

    @property
    def finished(self) -> bool:
        """Whether the function has returned or raised (or the worker died)."""
        return self._outcome is not None or self._recv.poll() or not self._proc.is_alive()

    def result(self, poll: float | None = None):
        """The function's return value; its exception raised here if it raised. ``poll``:
        wait at most that long and return None if it is not done (`finished` says)."""
        if self._outcome is None:
            if poll is not None and not self._recv.poll(poll):
                return None
            try:
                self._outcome = self._recv.recv()
            except EOFError:
                self._proc.join()
                self._outcome = ("error", RuntimeError(
                    f"a background worker died (exit code {self._proc.exitcode}) before "
                    "returning its result"))
            self._proc.join()
        kind, value = self._outcome
        if kind == "error":
            raise value
        return value

    def terminate(self) -> None:
        if self._proc.is_alive():
            self._proc.terminate()
        self._proc.join()


def _background_main(send, counter, fn, args, kwargs) -> None:
    _start_worker()
    try:
        outcome = ("ok", fn(*args, progress=counter, **kwargs))
    except BaseException as exc:  # handed to the parent, which raises it
        outcome = ("error", exc)
    try:
        send.send(outcome)
    except Exception as exc:  # an unpicklable result or exception: say what it was
        send.send(("error", RuntimeError(f"a background worker's outcome could not be sent "
                                         f"back: {type(exc).__name__}: {exc}")))
    finally:
        send.close()
