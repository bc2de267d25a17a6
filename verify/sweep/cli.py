"""`gfverify sweep CONFIG.toml --results DIR` and `gfverify results DIR`: sweeps at scale.

`--scheduler ADDRESS` (a running Dask scheduler) or `--dask-local N` (a local Dask
cluster of N worker processes) runs the batches with `verify.running.executors.DaskExecutor`;
the rows are the same whichever executor computed them.

Exit codes: 0 done, 2 bad input (the message names the key), 130 interrupted
(the stored batches are kept; run the same command again to resume).
"""

from __future__ import annotations

import csv
import json
import math
import sys

from verify.errors import UsageError
from verify.exit_codes import EXIT_INTERRUPTED, EXIT_OK
from verify.running.executors import add_options


def register(subparsers) -> None:
    sw = subparsers.add_parser(
        "sweep", help="run (or resume) a grid of simulations, stored in SQLite",
        description="Simulate every instance x seed of the grid in CONFIG (TOML), in batches, "
        "storing one row per trajectory in DIR/results.sqlite; re-running resumes.")
    sw.add_argument("config", help="sweep file (TOML), e.g. examples/sweeps/smoke.toml, or "
                    "a protocol a pack ships, by name: exp1_1, exp1_1_flow, exp2 "
                    "(papers/s000/protocols/), ecel23_1 (papers/cel23/protocols/)")
    sw.add_argument("--results", required=True, metavar="DIR", help="store directory")
    sw.add_argument("--quiet", action="store_true", help="no progress bar")
    add_options(sw, "the batches")
    sw.set_defaults(run=_sweep_command)

    res = subparsers.add_parser("results", help="print the rows stored by `gfverify sweep`")
    res.add_argument("dir", metavar="DIR", help="store directory given to --results")
    res.add_argument("--format", default="csv", choices=("csv", "json"))
    res.set_defaults(run=_results_command)


def _executor(args):
    from verify.running.executors import executor_for

    return executor_for(args.scheduler, args.dask_local)


def _sweep_command(args) -> int:
    from verify.sweep import SweepConfigError, SweepStoreError, load_config, run_sweep

    try:
        config = load_config(args.config)
    except SweepConfigError as exc:
        raise UsageError(f"{args.config}: {exc}") from None
    executor = _executor(args)
    try:
        result = run_sweep(config, args.results, progress=not args.quiet, executor=executor)
    except SweepStoreError as exc:
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt:
        print("interrupted: finished batches are stored; run the same command to resume",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    print(f"{result.computed} computed, {result.stored_before} already stored, "
          f"{result.total} rows in the sweep ({result.wall_time:.1f} s, {executor.name}) "
          f"-> {result.db_path}")
    return EXIT_OK


def _results_command(args) -> int:
    from verify.sweep import COLUMN_NAMES, SweepStoreError, read_rows

    try:
        rows = read_rows(args.dir)
    except (FileNotFoundError, SweepStoreError) as exc:
        raise UsageError(str(exc)) from None
    if args.format == "json":
        out = []
        for row in rows:
            row = dict(row)
            for key in ("params", "options", "versions"):
                row[key] = json.loads(row[key]) if row[key] else None
            row["success"] = bool(row["success"])
            out.append({k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                        for k, v in row.items()})
        print(json.dumps(out, indent=2))
        return EXIT_OK
    writer = csv.DictWriter(sys.stdout, fieldnames=COLUMN_NAMES, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return EXIT_OK
