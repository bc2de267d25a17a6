"""Benchmark (not a test): how long the command line takes to start, per command.

Targets (issue 16): ``gfverify --help`` under 0.5 s; ``gfverify claims`` and
``gfverify families`` under 2 s. Each command runs ``--repeat`` times in a fresh
interpreter (best and median wall time), next to ``python -c pass`` on the same
machine in the same run, so the ratio to a bare interpreter start is comparable
across machines. Also prints what ``import verify.front.cli`` loads (torch must not be).

    python bench/startup.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "gfverify --help": [sys.executable, "-m", "verify", "--help"],
    "gfverify claims": [sys.executable, "-m", "verify", "claims"],
    "gfverify families": [sys.executable, "-m", "verify", "families"],
}
TARGETS = {"gfverify --help": 0.5, "gfverify claims": 2.0, "gfverify families": 2.0}


def _time(cmd: list[str], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    base = None
    print(f"{'command':<20} {'best s':>8} {'median s':>9} {'x python':>9} {'target s':>9}")
    for name, cmd in COMMANDS.items():
        times = _time(cmd, args.repeat)
        best, median = min(times), statistics.median(times)
        base = best if base is None else base
        target = TARGETS.get(name)
        verdict = "" if target is None else ("  met" if best < target else "  MISSED")
        print(f"{name:<20} {best:>8.3f} {median:>9.3f} {best / base:>9.1f} "
              f"{'' if target is None else f'{target:g}':>9}{verdict}")
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, verify.front.cli; "
         "print(' '.join(m for m in ('torch', 'sympy', 'numpy', 'matplotlib', 'numerics') "
         "if m in sys.modules))"], check=True, capture_output=True, text=True).stdout.strip()
    print(f"import verify.front.cli loads: {loaded or 'none of torch, sympy, numpy, matplotlib'}")


if __name__ == "__main__":
    main()
