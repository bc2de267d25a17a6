"""The progress bar's ETA: by count, or by estimated work when the items' costs differ."""

from __future__ import annotations

import io

import verify.progress as progress_module
from verify.progress import Progress
from verify.sweep import Batch


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def _last_line(stream: io.StringIO) -> str:
    return stream.getvalue().strip().splitlines()[-1]


def test_eta_by_count_and_by_work(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(progress_module.time, "perf_counter", clock)
    by_count, by_work = io.StringIO(), io.StringIO()
    with Progress(2, "count", stream=by_count) as a, \
            Progress(2, "work", stream=by_work, work=10.0) as b:
        clock.now = 10.0
        a.advance(1)
        b.advance(1, work=1.0)  # the cheap item first: 9 of 10 units remain
    assert "ETA 10s" in _last_line(by_count)  # one item left at 1 item / 10 s
    assert "ETA 90s" in _last_line(by_work)  # 9 units left at 1 unit / 10 s


def test_batch_cost_grows_with_the_arithmetic_of_a_step():
    def batch(n, d, epochs, seeds=(0, 1)):
        return Batch(index=0, generator="sphere", params={"n": n, "d": d, "p": 30},
                     seeds=seeds, method="gd", options={"epochs": epochs}, config_hash="x")

    assert batch(200, 20, 100).cost() == 2 * 100 * 200 * 20 * 30
    assert batch(2800, 100, 1229).cost() / batch(100, 10, 165).cost() > 1000
    assert batch(100, 10, 165, seeds=(0,)).cost() * 2 == batch(100, 10, 165).cost()


def test_heartbeat_speaks_when_nothing_else_does():
    import time as real_time

    from verify.progress import Heartbeat, say

    stream = io.StringIO()
    with Heartbeat(lambda: "section X: 3/9", quiet=0.2, stream=stream):
        real_time.sleep(0.7)
    lines = stream.getvalue().strip().splitlines()
    assert lines and all("section X: 3/9" in line and "still working" in line
                         for line in lines)
    quiet = io.StringIO()
    with Heartbeat(lambda: "never", quiet=0.5, stream=quiet):
        for _ in range(6):  # something is written every 0.1 s: no heartbeat
            say("working", io.StringIO())
            real_time.sleep(0.1)
    assert "never" not in quiet.getvalue()
