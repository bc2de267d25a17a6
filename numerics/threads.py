"""How many threads a computation gets: chosen by the size of its products, never left to
the libraries' defaults.

A BLAS or torch product of a few hundred thousand flop costs tens of microseconds on one
thread; split over threads it pays their synchronisation every call, and on a busy machine
(other processes on every core) a thread waiting for a descheduled partner turns those
microseconds into milliseconds: one (5 x 1 x 200) @ (5 x 200 x 4) product took 43-68 us on
one thread and 13,600-23,600 us on two (issue 37). So a method runs its products on one
thread unless each is large enough (`MANY_THREADS_FROM` flop) for threads to pay, and then
on the cores this process may use. ``GFVERIFY_THREADS=N`` in the environment fixes N.

`limited` sets both pools a method's products go through, for the duration of a block:
BLAS (numpy, scipy; through threadpoolctl) and torch's intra-op pool (when torch is
loaded; it is never imported here).
"""

from __future__ import annotations

import contextlib
import os
import sys

# Below this many flop per product, one thread (about a millisecond of one core's work).
MANY_THREADS_FROM = 1e8
_ENV = "GFVERIFY_THREADS"


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def threads_for(flop: float) -> int:
    """Threads for products of ``flop`` flop each: 1 below `MANY_THREADS_FROM`, else the
    cores (``GFVERIFY_THREADS`` overrides both)."""
    fixed = os.environ.get(_ENV, "").strip()
    if fixed.isdigit() and int(fixed) > 0:
        return int(fixed)
    return 1 if flop < MANY_THREADS_FROM else cores()


_CONTROLLER: list = []  # [controller, whether torch was loaded when it looked]


def _blas():
    """threadpoolctl's view of the loaded BLAS libraries (looked at again once torch, which
    may bring its own, has been loaded)."""
    torch_loaded = "torch" in sys.modules
    if not _CONTROLLER or (torch_loaded and not _CONTROLLER[1]):
        from threadpoolctl import ThreadpoolController

        _CONTROLLER[:] = [ThreadpoolController(), torch_loaded]
    return _CONTROLLER[0]


@contextlib.contextmanager
def limited(n: int):
    """Run the block with ``n`` BLAS threads and ``n`` torch intra-op threads (if torch is
    loaded); the previous settings are restored after it."""
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    with _blas().limit(limits=int(n), user_api="blas"):
        if torch is not None and before != n:
            torch.set_num_threads(int(n))
        try:
            yield
        finally:
            if torch is not None and before != n:
                torch.set_num_threads(before)


def for_products(flop: float):
    """`limited` to `threads_for` ``flop``."""
    return limited(threads_for(flop))
