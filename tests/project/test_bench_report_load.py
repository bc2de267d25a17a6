"""bench/report_load.py: two reports' index.md compared once wall times, dates and each
report's own directory are blanked, and a real difference still found."""

from __future__ import annotations

from pathlib import Path


def _report(path: Path, text: str) -> Path:
    path.mkdir()
    (path / "index.md").write_text(text.replace("DIR", str(path)))
    return path


def test_times_dates_and_the_reports_own_directory_are_not_differences(tmp_path, bench_script):
    bench = bench_script("report_load")
    a = _report(tmp_path / "quiet", "324 passed in 277.1s (0:04:37) on 2026-12-02 18:50 UTC\n"
                "3 computed now, 0 read from the store `DIR/store/s000.sqlite`\n")
    b = _report(tmp_path / "serial", "324 passed in 153.0s (0:02:33) on 2026-12-02 19:00 UTC\n"
                "3 computed now, 0 read from the store `DIR/store/s000.sqlite`\n")
    assert bench._differing_lines(a, b) == []


def test_a_changed_number_is_a_difference(tmp_path, bench_script):
    bench = bench_script("report_load")
    a = _report(tmp_path / "quiet", "slope -0.51 [-0.6, -0.4]\nsame\n")
    b = _report(tmp_path / "serial", "slope -0.52 [-0.6, -0.4]\nsame\n")
    assert bench._differing_lines(a, b) == [("slope -0.51 [-0.6, -0.4]",
                                             "slope -0.52 [-0.6, -0.4]")]
