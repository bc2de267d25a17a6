"""A small progress bar on stderr: count, rate and ETA; plain lines when not a terminal.

`Heartbeat` guarantees that a long job is never silent for long: a thread that, when
nothing has been written for ``quiet`` seconds (by a bar, `say`, or itself), writes what
the job is doing and for how long.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

_LAST_OUTPUT = [time.monotonic()]  # when a progress line was last written
_LATEST_BAR = [""]  # the last state of any progress bar, written or not


def latest_bar() -> str:
    """The state of the progress bar drawn last (its count, rate and ETA), or ""."""
    return _LATEST_BAR[0]


def touched() -> None:
    """Note that something was just written (a bar, a status line): the heartbeat waits."""
    _LAST_OUTPUT[0] = time.monotonic()


def say(message: str, stream=None) -> None:
    """Write one status line (stderr by default) and note it for the heartbeat."""
    stream = stream if stream is not None else sys.stderr
    stream.write(message + "\n")
    stream.flush()
    touched()


class Heartbeat:
    """``with Heartbeat(status): ...``: while the block runs, a daemon thread writes
    ``status()`` with the elapsed time whenever nothing was written for ``quiet`` seconds
    (default 45: no silent stretch reaches a minute). ``enabled=False`` does nothing."""

    def __init__(self, status: Callable[[], str], quiet: float = 45.0, stream=None,
                 enabled: bool = True) -> None:
        self.status, self.quiet, self.enabled = status, float(quiet), enabled
        self.stream = stream if stream is not None else sys.stderr
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.start = time.monotonic()

    def __enter__(self) -> Heartbeat:
        if self.enabled:
            touched()
            self._thread = threading.Thread(target=self._beat, daemon=True,
                                            name="gfverify-heartbeat")
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)

    def _beat(self) -> None:
        step = min(1.0, self.quiet / 4)
        while not self._stop.wait(step):
            if time.monotonic() - _LAST_OUTPUT[0] < self.quiet:
                continue
            try:
                what = self.status()
            except Exception as exc:  # a status that fails must not stop the job
                what = f"(status unavailable: {type(exc).__name__})"
            elapsed = time.monotonic() - self.start
            say(f"... {what} (still working, {elapsed / 60:.1f} min in)", self.stream)


class Progress:
    """``with Progress(total, "label") as bar: ... bar.advance()``.

    The ETA assumes the remaining items cost what the finished ones did on average,
    unless ``work`` (the total estimated cost, any unit) is given and each ``advance``
    says the ``work`` it finished: then the ETA is the elapsed time scaled by the
    remaining work (a sweep whose largest instances come last is otherwise
    predicted to end far too soon). The ETA shown counts down to a projected end, moved
    only when a new estimate differs from it by more than ``STEADY`` (a quarter): batches
    of uneven cost then no longer swing it at every step.
    """

    STEADY = 0.25

    def __init__(self, total: int, label: str, stream=None, width: int = 28,
                 enabled: bool = True, work: float | None = None):
        self.enabled = enabled
        self.work_total = work if work is not None and work > 0 else None
        self.work_done = 0.0
        self.total = max(int(total), 1)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.done = 0
        self.start = time.perf_counter()
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last_decile = -1
        self._end: float | None = None  # the projected end (elapsed seconds)

    def __enter__(self) -> Progress:
        self._draw()
        return self

    def __exit__(self, *exc) -> None:
        if self._tty and self.enabled:
            self.stream.write("\n")
            self.stream.flush()

    def advance(self, k: int = 1, work: float = 0.0) -> None:
        self.done = min(self.done + k, self.total)
        self.work_done += work
        self._draw()

    def _steady(self, eta: float, elapsed: float) -> float:
        """The ETA shown: the time to the projected end, which moves to ``elapsed + eta``
        only when that differs from it by more than ``STEADY`` of the larger of the two."""
        if eta != eta:  # not known yet
            return eta
        if self.done >= self.total:
            self._end = elapsed
            return 0.0
        left = None if self._end is None else self._end - elapsed
        if left is None or left <= 0 or abs(left - eta) > self.STEADY * max(left, eta):
            self._end = elapsed + eta
            left = eta
        return left

    def _draw(self) -> None:
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        rate = self.done / elapsed if elapsed > 0 and self.done else 0.0
        if self.work_total is not None:
            left = max(self.work_total - self.work_done, 0.0)
            eta = elapsed * left / self.work_done if self.work_done > 0 else float("nan")
        else:
            eta = (self.total - self.done) / rate if rate > 0 else float("nan")
        eta = self._steady(eta, elapsed)
        filled = int(self.width * self.done / self.total)
        bar = "#" * filled + "." * (self.width - filled)
        eta_text = "?" if eta != eta else f"{eta:.0f}s"
        line = (f"{self.label} [{bar}] {self.done}/{self.total} "
                f"{rate:.2f}/s ETA {eta_text}")
        _LATEST_BAR[0] = f"{self.label}: {self.done}/{self.total}, ETA {eta_text}"
        if self._tty:
            self.stream.write("\r" + line)
            self.stream.flush()
            touched()
            return
        decile = 10 * self.done // self.total
        if decile != self._last_decile:
            self._last_decile = decile
            self.stream.write(line + "\n")
            self.stream.flush()
            touched()
