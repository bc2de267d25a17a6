"""How long the report has left: "section k of N" and one estimate for the whole report.

The report's parts take very different times (E-000-4 alone was 18 of 30 minutes), so a
count of sections says little. `Clock` holds each part's recorded time (``TIMES``, the
quick and full profiles' parts measured by a finished report, `record`) and the pace of
this run: the time the finished sections took over their recorded time (1 until one has
finished). The estimate is the recorded time still ahead, scaled by that pace: the
current section's recorded time less what it has run (never below 0), the sections after
it, and writing the pages; the suite and the tightness table run beside the sections, so
the estimate is the longest of the three chains. It moves only when a section ends (the
pace is re-measured) and counts down in between, so it does not swing with every batch of
a bar, except that a section running past its recorded time at that pace raises the pace
as it goes (counted as if it ended now). A section no record knows (an installed pack's)
counts as ``UNKNOWN_SECTION`` seconds.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

TIMES = Path(__file__).with_name("section_times.json")
UNKNOWN_SECTION = 60.0
_PACE_RANGE = (0.25, 8.0)  # a pace outside this is taken as a run's odd first section


def recorded_times(profile: str) -> dict[str, float]:
    """Recorded seconds per part of the report (section modules, ``suite``,
    ``tightness``, ``writing``) for ``profile``; {} when none is recorded."""
    try:
        table = json.loads(TIMES.read_text())
    except (OSError, ValueError):
        return {}
    return {k: float(v) for k, v in table.get(profile, {}).get("seconds", {}).items()}


def record(report_json: str | Path, profile: str | None = None) -> dict:
    """Write the part times of a finished report (its ``verdicts.json``) into ``TIMES``
    for its profile; returns the entry written."""
    data = json.loads(Path(report_json).read_text())
    profile = profile or data["profile"]
    parts = dict(data.get("part_times") or {})
    if not parts:
        raise ValueError(f"{report_json}: no part_times (written by gfverify report from "
                         "this version on)")
    table = json.loads(TIMES.read_text()) if TIMES.exists() else {}
    table[profile] = {"recorded": data.get("provenance", {}).get("commit", ""),
                      "wall_time": round(float(data.get("wall_time", 0.0)), 1),
                      "seconds": {k: round(float(v), 1) for k, v in parts.items()}}
    TIMES.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    return table[profile]


def _minutes(seconds: float) -> str:
    if seconds < 90:
        return f"{max(seconds, 0):.0f} s"
    return f"{seconds / 60:.0f} min"


class Clock:
    """The report's parts in order, their recorded times and this run's pace."""

    def __init__(self, sections, profile: str, times: dict[str, float] | None = None,
                 beside=("suite", "tightness"), after=()) -> None:
        self.sections = list(sections)
        self.times = recorded_times(profile) if times is None else dict(times)
        self.beside = set(beside)  # parts running beside the sections, not yet finished
        self.after = list(after)  # parts that run after the sections (a serial tightness)
        self.start = time.monotonic()
        self.current: int | None = None  # index of the running section
        self.section_start = self.start
        self.done: dict[str, float] = {}  # section -> seconds it took this time

    def expected(self, part: str) -> float:
        return self.times.get(part, UNKNOWN_SECTION if part in self.sections else 0.0)

    def begin(self, k: int) -> None:
        """Section ``k`` (0-based) starts."""
        self.current, self.section_start = k, time.monotonic()

    def sections_over(self) -> None:
        """Every section has run (or been read back): what is left is beside or after."""
        self.current = None

    def finished(self, part: str) -> None:
        """A part running beside the sections (``suite``, ``tightness``) has finished, or
        a part after them has."""
        self.beside.discard(part)
        if part in self.after:
            self.after.remove(part)

    def end(self, name: str, seconds: float | None = None, kept: bool = False) -> None:
        """A section ended, after ``seconds`` (default: since `begin`); ``kept``: read back
        from an earlier run (not a measure of this run's pace)."""
        if not kept:
            self.done[name] = (time.monotonic() - self.section_start if seconds is None
                               else seconds)
        else:
            self.done.setdefault(name, float("nan"))

    def pace(self, now: float | None = None) -> float:
        """This run's time over the recorded time, on the sections it has run (1 before
        any): how much slower (or faster) this machine is going than the recorded run.

        The running section counts too once it has run longer than its recorded time at
        the finished sections' pace, as if it ended now (its time is at least that): a
        section read back from a store in seconds does not hold the estimate down while
        the next one runs for many times its recorded time."""
        measured = [(s, t) for s, t in self.done.items() if t == t and self.times.get(s)]
        spent = sum(t for _, t in measured)
        planned = sum(self.times[s] for s, _ in measured)
        pace = self._bounded(spent, planned)
        running = self.sections[self.current] if self.current is not None else None
        if running is not None and running not in self.done and self.times.get(running):
            now = time.monotonic() if now is None else now
            elapsed = now - self.section_start
            if elapsed > self.times[running] * pace:
                pace = max(pace, self._bounded(spent + elapsed,
                                               planned + self.times[running]))
        return pace

    @staticmethod
    def _bounded(spent: float, planned: float) -> float:
        if planned <= 0:
            return 1.0
        return min(max(spent / planned, _PACE_RANGE[0]), _PACE_RANGE[1])

    def remaining(self, now: float | None = None) -> float:
        """Seconds the report has left, as estimated (see the module docstring)."""
        now = time.monotonic() if now is None else now
        pace = self.pace(now)
        ahead = 0.0
        for k, name in enumerate(self.sections):
            if name in self.done or (self.current is not None and k < self.current):
                continue
            planned = self.expected(name) * pace
            if k == self.current:
                planned = max(planned - (now - self.section_start), 0.0)
            ahead += planned
        ahead += sum(self.expected(p) * pace for p in self.after)
        beside = max((self.expected(p) * pace - (now - self.start) for p in self.beside),
                     default=0.0)
        return max(ahead, beside) + self.expected("writing") * pace

    def line(self) -> str:
        """``section k of N; report: about M min left (pace P x the recorded run)``."""
        where = (f"section {self.current + 1} of {len(self.sections)}"
                 if self.current is not None else f"after the {len(self.sections)} sections")
        now = time.monotonic()
        measured = self.pace(now)
        pace = (f"pace {measured:.2g}x the recorded run" if self.done or measured != 1.0
                else "recorded times")
        return f"{where}; report: about {_minutes(self.remaining(now))} left ({pace})"


__all__ = ["Clock", "TIMES", "UNKNOWN_SECTION", "record", "recorded_times"]


if __name__ == "__main__":  # python -m verify.report.eta REPORT_DIR/verdicts.json
    import sys

    if len(sys.argv) != 2:
        sys.exit("usage: python -m verify.report.eta REPORT_DIR/verdicts.json")
    entry = record(sys.argv[1])
    print(f"{TIMES}: {len(entry['seconds'])} parts recorded, {entry['wall_time']:.0f} s in all")
