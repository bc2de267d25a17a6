"""The progress bar's ETA: by count, or by estimated work when the items' costs differ."""

from __future__ import annotations

import io

import verify.running.progress as progress_module
from verify.running.progress import Progress
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

    from verify.running.progress import Heartbeat, say

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


def test_the_eta_counts_down_and_moves_only_on_a_large_change(monkeypatch):
    """Batches of uneven cost made E-000-4's ETA swing 1183 -> 853 -> 1081 -> 725 s: the
    ETA shown counts down to a projected end and moves only when a new estimate is off by
    more than a quarter."""
    clock = Clock()
    monkeypatch.setattr(progress_module.time, "perf_counter", clock)
    out = io.StringIO()
    bar = Progress(10, "sweep", stream=out, work=100.0)
    clock.now = 100.0
    bar.advance(1, work=10.0)  # 90 units left at 0.1 unit/s: 900 s
    assert "ETA 900s" in _last_line(out)
    clock.now = 160.0
    bar.advance(1, work=8.0)  # estimate 82 * 160/18 = 729 s; projected 840 s: within 25%
    assert bar._steady(729.0, 160.0) == 840.0
    clock.now = 200.0
    bar.advance(5, work=60.0)  # estimate 22 * 200/78 = 56 s against 800 projected: moved
    assert bar._end == 200.0 + 22 * 200 / 78


def test_the_report_clock_scales_recorded_times_by_the_pace(monkeypatch):
    """'section k of N' and one estimate for the whole report: the recorded times of the
    parts still ahead, scaled by this run's pace on the finished sections; the suite and
    the tightness table beside the sections count when they are longer."""
    from verify.report import eta

    now = [0.0]
    monkeypatch.setattr(eta.time, "monotonic", lambda: now[0])
    times = {"a": 100.0, "b": 1000.0, "c": 10.0, "suite": 300.0, "tightness": 200.0,
             "writing": 50.0}
    clock = eta.Clock(["a", "b", "c"], "quick", times=times)
    assert clock.remaining() == 1110.0 + 50.0 and clock.pace() == 1.0
    clock.begin(0)
    now[0] = 200.0
    clock.end("a")  # twice its recorded time: pace 2
    clock.begin(1)
    assert clock.pace() == 2.0 and clock.remaining() == 2 * (1000 + 10) + 2 * 50
    now[0] = 700.0  # 500 s into b: its 2000 s less 500
    assert clock.remaining() == 1500 + 20 + 100
    assert clock.line() == "section 2 of 3; report: about 27 min left (pace 2x the recorded run)"
    clock.finished("suite")
    clock.end("b")  # 500 s against 1000: the pace is now 700 s over 1100
    clock.begin(2)
    assert clock.pace() == 700 / 1100
    assert abs(clock.remaining() - (10 + 50) * 700 / 1100) < 1e-9  # tightness long done
    assert eta.Clock(["x"], "quick", times={}).remaining() == eta.UNKNOWN_SECTION


def test_a_section_past_its_recorded_time_raises_the_pace(monkeypatch):
    """A quick report whose first sections were read back from a store (seconds against
    minutes recorded: pace 0.25) said "about 7 min left" for 25 minutes while the next
    section ran: a running section past its recorded time at the current pace now counts
    in the pace as if it ended now, so the estimate grows with it."""
    from verify.report import eta

    now = [0.0]
    monkeypatch.setattr(eta.time, "monotonic", lambda: now[0])
    times = {"a": 400.0, "b": 100.0, "c": 200.0, "writing": 0.0}
    clock = eta.Clock(["a", "b", "c"], "quick", times=times, beside=())
    clock.begin(0)
    now[0] = 4.0
    clock.end("a")  # read back from a store: 4 s against 400 s, pace at its floor 0.25
    clock.begin(1)
    assert clock.pace() == 0.25 and clock.remaining() == 0.25 * 300
    now[0] = 4.0 + 20.0  # 20 s into b: below its 25 s at that pace, nothing moves
    assert clock.pace() == 0.25
    now[0] = 4.0 + 1000.0  # b has run ten times its recorded time
    assert clock.pace() == (4.0 + 1000.0) / (400 + 100)
    assert clock.remaining() == clock.pace() * 200  # c at the raised pace
    assert "pace 2x the recorded run" in clock.line()
    before = clock.remaining()
    now[0] += 100.0
    assert clock.remaining() > before  # grows while b keeps running
    lone = eta.Clock(["x"], "quick", times={"x": 10.0}, beside=())
    lone.begin(0)
    now[0] += 30.0  # no section finished: the running one alone sets the pace
    assert lone.pace() == 3.0 and "pace 3x" in lone.line()
