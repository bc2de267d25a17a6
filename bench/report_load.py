"""The README's main job on a busy machine: the quick report, quiet and beside two CPU hogs,
and stopped in the middle.

Runs ``gfverify report --profile quick`` (this checkout's, in a fresh output directory)
and prints, from one run of this script:

1. its wall time on the machine as it is ("quiet"), and the longest stretch without a line
   on its stderr (progress, status or heartbeat);
2. the same with two CPU-bound processes of another user beside it (two
   ``python -c "while True: pass"``, started before the report and killed after it):
   the wall time, its ratio to the quiet one (target <= 3) and the longest silent stretch
   (target <= 60 s);
3. a stop: the report started again, sent SIGTERM once the verification suite has
   finished and a section has been kept; what it printed, its exit code, whether
   ``verdicts.json`` holds the suite (marked partial) and what it kept; then the same
   command again: what it says it resumed from, its wall time and exit code.

    python bench/report_load.py                  # about an hour on a 2-core machine
    python bench/report_load.py --skip-quiet     # the loaded run and the stop only
    python bench/report_load.py --quiet-only --serial-too

``--serial-too`` adds a quiet run with ``--serial`` (the tightness table after the sections,
in the report's process, as before it had a worker of its own) and prints the ratio of
the two quiet times; ``--quiet-only`` leaves out the loaded run and the stop.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GFVERIFY = [sys.executable, "-m", "verify.front.cli"]


def _run_report(out: Path, stop_when=None, extra=()) -> dict:
    """One report into ``out``; its stderr lines with their times. ``stop_when(lines)``
    (called on each new line) returning True sends SIGTERM."""
    cmd = [*GFVERIFY, "report", "--profile", "quick", "--out", str(out), *extra]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, bufsize=1)
    lines: list[tuple[float, str]] = []
    stopped = [None]

    def read() -> None:
        for line in proc.stderr:
            lines.append((time.monotonic() - start, line.rstrip("\n")))
            if stop_when is not None and stopped[0] is None and stop_when(lines):
                stopped[0] = time.monotonic() - start
                proc.send_signal(signal.SIGTERM)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    stdout = proc.stdout.read()
    code = proc.wait()
    reader.join()
    wall = time.monotonic() - start
    stamps = [0.0] + [t for t, _ in lines] + [wall]
    gaps = [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
    worst = max(range(len(gaps)), key=gaps.__getitem__)
    after = lines[worst - 1][1] if worst > 0 else "(start)"
    return {"wall": wall, "code": code, "lines": lines, "stdout": stdout,
            "silent": gaps[worst], "silent_after": after, "stopped_at": stopped[0]}


def _hogs(count: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def _describe(label: str, r: dict) -> None:
    print(f"  {label}: {r['wall'] / 60:.1f} min, exit {r['code']}, {len(r['lines'])} "
          f"progress lines; longest silent stretch {r['silent']:.0f} s (after: "
          f"{r['silent_after'][:90]!r})")


def main(args) -> None:
    print(f"gfverify report --profile quick, this checkout ({ROOT}); {os.cpu_count()} cores\n")
    results = {}
    with tempfile.TemporaryDirectory(prefix="report_load_") as tmp:
        tmp = Path(tmp)
        if not args.skip_quiet:
            results["quiet"] = _run_report(tmp / "quiet")
            _describe("quiet", results["quiet"])
        if args.serial_too:
            serial = _run_report(tmp / "serial", extra=("--serial",))
            _describe("quiet, --serial", serial)
            if "quiet" in results:
                differ = _differing_lines(tmp / "quiet", tmp / "serial")
                print(f"  --serial / default = {serial['wall'] / results['quiet']['wall']:.2f}"
                      f"; the two index.md the same but for times and dates: {not differ}")
                for a, b in differ[:6]:
                    at = len(os.path.commonprefix([a, b]))  # where the two lines part
                    print(f"    default: ...{a[max(0, at - 60):at + 100]}\n"
                          f"    --serial: ...{b[max(0, at - 60):at + 100]}")
        if args.quiet_only:
            return
        hogs = _hogs(2)
        try:
            results["loaded"] = _run_report(tmp / "loaded")
        finally:
            for h in hogs:
                h.kill()
                h.wait()
        _describe("beside two CPU hogs", results["loaded"])
        if "quiet" in results:
            ratio = results["loaded"]["wall"] / results["quiet"]["wall"]
            print(f"  loaded / quiet = {ratio:.2f}   (target <= 3)")
        print(f"  longest silent stretch: "
              f"{max(r['silent'] for r in results.values()):.0f} s   (target <= 60)\n")

        def ready(lines) -> bool:  # the suite done and one section kept
            text = [line for _, line in lines]
            suite = any("verification suite: finished" in line for line in text)
            sections = sum(line.startswith("reproduction ") for line in text)
            return suite and sections >= 2

        out = tmp / "stopped"
        first = _run_report(out, stop_when=ready)
        print(f"stop: SIGTERM at {first['stopped_at'] or float('nan'):.0f} s; exit "
              f"{first['code']} (expected 130); last line: {first['lines'][-1][1]!r}")
        data = json.loads((out / "verdicts.json").read_text()) if (
            out / "verdicts.json").exists() else {}
        suite = data.get("suite") or {}
        print(f"  verdicts.json: partial={data.get('partial')}, suite rows "
              f"{len(suite.get('claims', []))}, sections {len(data.get('reproduction', {}))}; "
              f"kept: {data.get('kept')}")
        again = _run_report(out)
        resumed = [line for _, line in again["lines"] if "resuming" in line or "kept from" in line]
        print(f"  the same command again: {again['wall'] / 60:.1f} min, exit {again['code']}, "
              f"index.html {'written' if (out / 'index.html').exists() else 'MISSING'}")
        for line in resumed:
            print(f"    {line}")


_TIMES = re.compile(r"\d+(\.\d+)? ?(s|min|ms)\b|\d{4}-\d\d-\d\d[ T][\d:]+( UTC)?"
                    r"|\b\d+:\d\d:\d\d\b")


def _differing_lines(a: Path, b: Path) -> list[tuple[str, str]]:
    """The pairs of lines where two reports' index.md differ once wall times and dates are
    blanked (empty: the same); a line one of them lacks is paired with ''."""
    def lines(p):  # each report names its own directory (its store's path): blanked too
        text = (p / "index.md").read_text().replace(str(p), "OUT")
        return _TIMES.sub("#", text).splitlines()
    return [(x, y) for x, y in itertools.zip_longest(lines(a), lines(b), fillvalue="")
            if x != y]


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-quiet", action="store_true", help="skip the quiet run")
    ap.add_argument("--serial-too", action="store_true",
                    help="also a quiet run with --serial, and the ratio of the two")
    ap.add_argument("--quiet-only", action="store_true",
                    help="no loaded run and no stop")
    return ap


if __name__ == "__main__":
    main(_parser().parse_args())
