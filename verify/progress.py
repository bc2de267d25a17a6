"""A small progress bar on stderr: count, rate and ETA; plain lines when not a terminal."""

from __future__ import annotations

import sys
import time


class Progress:
    """``with Progress(total, "label") as bar: ... bar.advance()``.

    The ETA assumes the remaining items cost what the finished ones did on average,
    unless ``work`` (the total estimated cost, any unit) is given and each ``advance``
    says the ``work`` it finished: then the ETA is the elapsed time scaled by the
    remaining work (a sweep whose largest instances come last is otherwise
    predicted to end far too soon).
    """

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
        filled = int(self.width * self.done / self.total)
        bar = "#" * filled + "." * (self.width - filled)
        eta_text = "?" if eta != eta else f"{eta:.0f}s"
        line = (f"{self.label} [{bar}] {self.done}/{self.total} "
                f"{rate:.2f}/s ETA {eta_text}")
        if self._tty:
            self.stream.write("\r" + line)
            self.stream.flush()
            return
        decile = 10 * self.done // self.total
        if decile != self._last_decile:
            self._last_decile = decile
            self.stream.write(line + "\n")
            self.stream.flush()
