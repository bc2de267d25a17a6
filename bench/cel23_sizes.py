"""E-CEL23-1 at the paper's larger sizes with its five trials per cell, by the exact flow.

The report's section (`papers.cel23.repro_rank`) runs the full grid to d = 256 in the full
profile; at d = 64 its five trials per cell cost some 50 core-minutes, at d = 256 some 4.5
core-hours (measured: 269 core-minutes, 2.3 h on 2 cores, 4.0 to 8.2 min a flow). This
script runs the cells of the sizes asked for (default d = 64) with the section's own
instances (`repro_rank._instance`: data seeds 0..4, m = 200, lam = 4^-5 .. 4^-13, both data
schemes) and horizon (t = 5000), each trial by `ExactFlow` with its
companion on two worker processes (one BLAS thread each), and prints per cell the median
and range of the maximum angle between active neurons against the paper's median
(CEL23 App. H, Tables 1-2), the per-trial slope of the small-lam law (ln-ln, lam <= 4^-7)
and the run's wall time.

    python bench/cel23_sizes.py               # d = 64: about 10-20 minutes on 2 cores
    python bench/cel23_sizes.py --d 64 --trials 5
    python bench/cel23_sizes.py --d 256 --trials 1 --schemes centred   # about 20 min
    python bench/cel23_sizes.py --d 256 --trials 5 --schemes centred --store runs.json

With ``--store FILE`` each finished flow is written to FILE as it ends and the flows already
there are not run again: a stopped run resumes, and a run with more trials adds to one with
fewer (trials run in order of their seed, so a stop leaves the first seeds complete). The
printed wall time is that of this invocation.
"""

from __future__ import annotations

import argparse
import json
import os
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from papers.cel23 import repro_rank as rr  # noqa: E402
from verify.running.pool import worker_pool  # noqa: E402


def main(args) -> None:
    ks = rr.GRID["full"][1]
    horizon = rr.GRID["full"][2]
    start = time.perf_counter()
    jobs = [(d, k, scheme, trial, horizon) for trial in range(args.trials) for d in args.d
            for scheme in args.schemes for k in ks]
    stored = _load(args.store, horizon)
    todo = [j for j in jobs if _key(j) not in stored]
    if todo:
        with worker_pool(2) as pool:
            for job, res in pool.imap_unordered(_run, todo):
                stored[_key(job)] = res
                if args.store:
                    _save(args.store, horizon, stored)
    results = {j[:4]: stored[_key(j)] for j in jobs}
    wall = time.perf_counter() - start
    runs = {"flow": {}}
    for (d, k, scheme, trial), res in results.items():
        runs["flow"].setdefault((scheme, d, k), [None] * args.trials)[trial] = res
    cells, slopes, apart = rr._summaries(runs, args.d, ks, args.trials)
    timed = [r["seconds"] for r in results.values() if "seconds" in r]
    print(_header(args, len(jobs), len(todo), wall, timed) + "\n")
    print("| scheme | d | lam | our median max angle (deg) | our range | paper's median "
          "(sd) | ours / paper | trials with two bundles | largest final loss |")
    print("|---|---|---|---|---|---|---|---|---|")
    for c in cells:
        pub = ("-" if c["published"] is None
               else f"{c['published']:.4g} ({c['published_sd']:.3g})")
        ratio = "-" if c["ratio"] is None else f"{c['ratio']:.3g}"
        print(f"| {c['scheme']} | {c['d']} | 4^{c['k']} | {c['median']:.4g} | "
              f"{c['low']:.3g} .. {c['high']:.3g} | {pub} | {ratio} | "
              f"{c['spread_trials']} | {c['loss']:.2g} |")
    print()
    for (method, scheme, d), vals in slopes.items():
        s = (f"{min(vals):.3f} .. {max(vals):.3f} ({len(vals)} trials)" if vals
             else "no trial in one bundle at every lam")
        print(f"small-lam slope ({scheme}, d = {d}): {s}; {apart[(method, scheme, d)]} "
              "trial(s) set apart (two bundles); paper: 1")
    agree = [c["agrees"] for c in cells if c["agrees"] is not None]
    inside = [c["inside"] for c in cells if c["inside"] is not None]
    errors = [r["error"] for r in results.values()]
    print(f"\npaper's median within a factor {rr.AGREE_FACTOR:g} of our median: "
          f"{sum(agree)} of {len(agree)} cells (inside our trials' range: {sum(inside)}, no "
          f"criterion where a trial with two bundles stretches the range over decades); "
          f"largest error estimate {max(errors):.2g}; median ratio ours/paper "
          f"{np.median([c['ratio'] for c in cells if c['ratio']]):.3g}")


def _header(args, n_jobs: int, n_run: int, wall: float, timed: list[float]) -> str:
    """The run's first line: what ran in this invocation, what was read from the store and
    what the flows cost when they ran (their own times, kept with them)."""
    head = (f"E-CEL23-1 by the exact flow, m = {rr.WIDTH}, t = {rr.GRID['full'][2]:g}, "
            f"{args.trials} trials per cell (data seeds 0..{args.trials - 1}): ")
    if n_run == n_jobs:
        head += f"{n_run} flows with their companions in {wall / 60:.1f} min on 2 worker processes"
    elif n_run == 0:
        head += f"all {n_jobs} flows with their companions read from {args.store}"
    else:
        head += (f"{n_run} flows with their companions in {wall / 60:.1f} min on 2 worker "
                 f"processes, {n_jobs - n_run} more read from {args.store}")
    if timed:
        head += (f"; the {len(timed)} flows took {sum(timed) / 60:.1f} core-minutes when they "
                 f"ran, {min(timed) / 60:.1f} to {max(timed) / 60:.1f} min each")
    return head


def _run(job):
    start = time.perf_counter()
    res = rr._flow_one(job)
    return job, {**res, "seconds": time.perf_counter() - start}


def _key(job) -> str:
    d, k, scheme, trial = job[:4]
    return f"{scheme} d={d} k={k} trial={trial}"


def _load(path, horizon) -> dict:
    if not path or not os.path.exists(path):
        return {}
    with open(path) as fh:
        data = json.load(fh)
    if data.get("horizon") != horizon:
        raise SystemExit(f"--store {path}: its flows end at t = {data.get('horizon')}, "
                         f"this run's at t = {horizon:g}")
    return data["flows"]


def _save(path, horizon, flows) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w") as fh:
        json.dump({"horizon": horizon, "flows": flows}, fh, indent=1, default=float)
    os.replace(tmp, path)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[64], help="sizes n = d (default 64)")
    ap.add_argument("--trials", type=int, default=rr.TRIALS, help="trials per cell (<= 5)")
    ap.add_argument("--schemes", nargs="+", choices=rr.SCHEMES, default=list(rr.SCHEMES),
                    help="data schemes (default: both)")
    ap.add_argument("--store", metavar="FILE", help="JSON file of finished flows: written "
                    "as each ends, read to skip them (resume, or add trials)")
    return ap


if __name__ == "__main__":
    main(_parser().parse_args())
