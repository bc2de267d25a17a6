"""Record a benchmark run, and write the benchmarks page's generated blocks from the records.

A benchmark prints its measurements; this script runs one (``bench/NAME.py ARGS``) in a
fresh interpreter, keeps what it printed word for word, and stores it with what produced
it (command, git commit and whether the tree was dirty, date, Python, torch and numpy
versions, cores, load average before and after) in ``bench/results/NAME.json``. The
benchmarks page (``docs/benchmarks.md``) shows each record between the markers
``<!-- bench:NAME:begin -->`` and ``<!-- bench:NAME:end -->``; ``--page`` rewrites those
blocks from the records and a test (``tests/project/test_bench_page.py``) fails when a
block and its record disagree, so the page's measured numbers are a run's, never typed.

    python bench/record.py span_cost               # run bench/span_cost.py, store it
    python bench/record.py startup -- --repeat 5   # arguments after -- go to the script
    python bench/record.py --as cel23_sizes_256 cel23_sizes -- --d 256 --trials 1
                                                   # a second record of one script
    python bench/record.py --page docs/benchmarks.md   # rewrite the page's blocks
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_BLOCK = re.compile(r"<!-- bench:([a-z][a-z0-9_]*):begin -->\n.*?<!-- bench:\1:end -->", re.S)


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def _versions() -> dict:
    code = ("import json, sys, numpy, torch; print(json.dumps({'python': sys.version.split()[0],"
            " 'numpy': numpy.__version__, 'torch': torch.__version__}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def record(name: str, args: list[str], stored_as: str | None = None) -> dict:
    """Run ``bench/NAME.py ARGS`` and return its record (the script must exit 0), stored
    as ``stored_as`` (default NAME: one record per script and page block)."""
    script = ROOT / "bench" / f"{name}.py"
    if not _NAME.match(name) or not script.exists():
        raise SystemExit(f"error: benchmark {name!r}: no bench/{name}.py (allowed: "
                         + ", ".join(sorted(p.stem for p in (ROOT / "bench").glob("*.py")
                                            if p.stem != "record")) + ")")
    load_before = os.getloadavg()
    commit = _git("rev-parse", "--short", "HEAD")  # the tree the run starts from
    dirty = bool(_git("status", "--porcelain", "--untracked-files=no"))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, str(script), *args], cwd=ROOT,
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.stderr.write(done.stderr[-4000:])
        raise SystemExit(f"error: bench/{name}.py exited {done.returncode}; nothing stored")
    return {
        "name": name,
        **({"stored_as": stored_as} if stored_as and stored_as != name else {}),
        "command": " ".join(["python", f"bench/{name}.py", *args]),
        "output": done.stdout.rstrip("\n"),
        "commit": commit,
        "dirty": dirty,
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "wall_seconds": round(wall, 1),
        "cores": os.cpu_count(),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        **_versions(),
    }


def render(rec: dict) -> str:
    """The page's block for one record: the command, what produced it, the output."""
    tree = f"{rec['commit']}{' + uncommitted changes' if rec['dirty'] else ''}"
    load = "/".join(f"{x:g}" for x in rec["load_before"])
    how = (f"--as {rec['stored_as']} " if rec.get("stored_as") else "") + rec["name"]
    return (f"Recorded by `python bench/record.py {how}` on {rec['date']} at "
            f"{tree} (Python {rec['python']}, torch {rec['torch']}, numpy {rec['numpy']}, "
            f"{rec['cores']} cores, load average {load} before the run; "
            f"{rec['wall_seconds']:g} s in all):\n\n"
            f"```\n$ {rec['command']}\n{rec['output']}\n```\n")


def load(name: str) -> dict:
    return json.loads((RESULTS / f"{name}.json").read_text())


def page_text(text: str) -> str:
    """``text`` with every generated block rewritten from its record."""
    def block(m: re.Match) -> str:
        name = m.group(1)
        return (f"<!-- bench:{name}:begin -->\n{render(load(name))}"
                f"<!-- bench:{name}:end -->")
    return _BLOCK.sub(block, text)


def blocks(text: str) -> list[str]:
    return _BLOCK.findall(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", nargs="?", help="the benchmark: bench/NAME.py")
    parser.add_argument("args", nargs=argparse.REMAINDER,
                        help="arguments for the benchmark, after --")
    parser.add_argument("--page", metavar="PATH", help="rewrite this page's generated blocks")
    parser.add_argument("--as", dest="stored_as", metavar="RECORD",
                        help="store the run as bench/results/RECORD.json (page block RECORD; "
                        "default: NAME); give it before NAME")
    ns = parser.parse_args()
    if ns.stored_as is not None and not _NAME.match(ns.stored_as):
        parser.error(f"--as {ns.stored_as!r}: a record name is lower-case letters, digits "
                     "and underscores, starting with a letter")
    if ns.name:
        args = ns.args[1:] if ns.args[:1] == ["--"] else ns.args
        rec = record(ns.name, args, ns.stored_as)
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / f"{ns.stored_as or ns.name}.json").write_text(json.dumps(rec, indent=1) + "\n")
        print(render(rec))
    if ns.page:
        path = Path(ns.page)
        text = path.read_text()
        missing = [n for n in blocks(text) if not (RESULTS / f"{n}.json").exists()]
        if missing:
            raise SystemExit(f"error: --page {path}: no record for {', '.join(missing)} "
                             "(run `python bench/record.py NAME` first)")
        new = page_text(text)
        path.write_text(new)
        print(f"{path}: {len(blocks(text))} generated blocks "
              f"{'rewritten' if new != text else 'unchanged'}")
    if not ns.name and not ns.page:
        parser.error("give a benchmark NAME to record, or --page PATH")


if __name__ == "__main__":
    main()
