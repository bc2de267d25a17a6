"""The exact flow's cost in span coordinates against d, and against the code before sliding.

On S000's orthogonal data (generators.orthogonal_scaled: n = 40, p = 30, horizon 200,
ExactFlow(coordinates="span") with its default options, companion run included) this
prints, from one run of this script:

1. the flow's wall time at d = 40 and d = 4,000 with this checkout's code, and their ratio
   (the span coordinates make a step cost O(p n^2) whatever d is; what grows with d is
   only forming W (T x p x d) at the saved times);
2. the same instances run by the commit before the sliding work (the parent of 03647fc),
   loaded from git into a temporary directory, and the ratio new / old per d;
3. the agreement of the new and the old code on each instance: final loss (relative
   difference; near round-off when the loss has converged to ~1e-19), the loss curves
   where L >= 1e-8 L(0), and max_j |theta_j - theta'_j| / |theta_j| over the final states;
4. the same instances with a leaky ReLU network (``--activation``, default leaky:0.1) by
   this checkout, against its ReLU runs: the ratio leaky / ReLU per d (target <= 1.5).

Every run is a fresh subprocess with PYTHONPATH on one of the two trees (each reports the
numerics it imported); runs are sequential (new and old alternate) and each timing is the
best of ``--repeats``, the time of ``ExactFlow.run`` alone (no imports, no generator).

    python bench/span_cost.py                    # about a minute on a quiet machine
    python bench/span_cost.py --points 21 --repeats 1
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from _trees import old_tree, run_worker, state_difference

ROOT = Path(__file__).resolve().parent.parent
SLIDING_COMMIT = "03647fc"  # "ExactFlow integrates through sliding modes"


def worker(args) -> None:
    """One timed flow, in this process (a subprocess of `main`); prints JSON, saves state."""
    import numerics
    from numerics import ExactFlow, generators

    t = np.linspace(0.0, args.horizon, args.points)
    flow = ExactFlow(coordinates="span")
    best, tr = float("inf"), None
    for _ in range(args.repeats):
        # a new Problem object per repeat: nothing computed for the previous one is reused
        problem = generators.orthogonal_scaled(n=args.n, d=args.d, p=args.p, seed=args.seed)
        if args.activation != "relu":  # only this checkout's numerics have other activations
            problem = numerics.with_model(problem, activation=args.activation)
        start = time.perf_counter()
        tr = flow.run(problem, t)
        best = min(best, time.perf_counter() - start)
    np.savez(args.out, W=tr.W[-1], a=tr.a[-1], loss_curve=tr.loss)
    print(json.dumps({
        "numerics": numerics.__file__, "wall": best, "status": tr.status.name,
        "steps": tr.n_steps, "events": len(tr.events), "loss": float(tr.loss[-1]),
        "loss0": float(tr.loss[0]), "error": tr.error_estimate}))


def _run(tree: Path, d: int, args, out: Path, activation: str = "relu") -> dict:
    row = run_worker(__file__, tree, [
        "--d", str(d), "--activation", activation, "--n", str(args.n), "--p", str(args.p),
        "--seed", str(args.seed), "--horizon", str(args.horizon), "--points",
        str(args.points), "--repeats", str(args.repeats)], out, f"run (d={d})")
    row["curve"] = row.pop("loss_curve")
    return row


def main(args) -> None:
    old_rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", f"{SLIDING_COMMIT}^"],
                             capture_output=True, text=True, check=True).stdout.strip()
    new_rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "numerics"],
                           capture_output=True, text=True, check=True).stdout.strip()
    print(f"new: this checkout ({new_rev}{' + uncommitted numerics' if dirty else ''}); "
          f"old: {old_rev[:7]} (parent of {SLIDING_COMMIT}, before the sliding work)")
    print(f"orthogonal_scaled(n={args.n}, p={args.p}, seed={args.seed}), horizon "
          f"{args.horizon:g}, {args.points} saved times, coordinates='span', "
          f"best of {args.repeats}\n")
    rows = {}
    with tempfile.TemporaryDirectory(prefix="span_cost_") as tmp:
        tmp = Path(tmp)
        old = old_tree(old_rev, tmp / "old")
        for d in args.dims:
            for label, tree, act in (("new", ROOT, "relu"), ("old", old, "relu"),
                                     ("leaky", ROOT, args.activation)):
                rows[label, d] = _run(tree, d, args, tmp / f"{label}_{d}.npz", act)
                r = rows[label, d]
                print(f"  ran {label} d={d}: {r['wall']:.2f} s", flush=True)
    print(f"\n{'d':>6} {'code':>5} {'wall s':>8} {'status':>8} {'steps':>6} {'events':>6} "
          f"{'L(T)/L(0)':>10} {'error est':>9}")
    for d in args.dims:
        for label in ("new", "old", "leaky"):
            r = rows[label, d]
            print(f"{d:>6} {label:>5} {r['wall']:>8.2f} {r['status']:>8} {r['steps']:>6} "
                  f"{r['events']:>6} {r['loss'] / r['loss0']:>10.3g} {r['error']:>9.2g}")
    lo, hi = min(args.dims), max(args.dims)
    print("\nratios")
    for label in ("new", "old"):
        ratio = rows[label, hi]["wall"] / rows[label, lo]["wall"]
        note = "   (target <= 3)" if label == "new" else ""
        print(f"  {label}: time(d={hi}) / time(d={lo}) = {ratio:.2f}{note}")
    for d in args.dims:
        print(f"  d={d}: new / old = {rows['new', d]['wall'] / rows['old', d]['wall']:.2f}"
              "   (target <= 1.5)")
    for d in args.dims:
        print(f"  d={d}: {args.activation} / relu (this checkout) = "
              f"{rows['leaky', d]['wall'] / rows['new', d]['wall']:.2f}   (target <= 1.5)")
    print("\nagreement, new vs old on the same instance (final saved time)")
    for d in args.dims:
        new, old = rows["new", d], rows["old", d]
        rel_loss = abs(new["loss"] - old["loss"]) / abs(old["loss"])
        print(f"  d={d}: final loss {new['loss']:.6e} vs {old['loss']:.6e} (relative "
              f"difference {rel_loss:.2g}); max_j |theta_j - theta'_j| / |theta_j| = "
              f"{state_difference(new, old):.2g}")
        keep = old["curve"] >= 1e-8 * old["curve"][0]
        curve = np.max(np.abs(new["curve"][keep] - old["curve"][keep]) / old["curve"][keep])
        print(f"         loss curve, max relative difference where L >= 1e-8 L(0) "
              f"({int(keep.sum())} of {keep.size} saved times): {curve:.2g}")


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dims", type=lambda s: [int(v) for v in s.split(",")],
                    default=[40, 4000], help="comma-separated d values (default 40,4000)")
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--p", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--horizon", type=float, default=200.0)
    ap.add_argument("--points", type=int, default=201, help="saved times (default 201)")
    ap.add_argument("--repeats", type=int, default=2, help="timings per run; best is kept")
    ap.add_argument("--activation", default="leaky:0.1",
                    help="the other network's activation (default leaky:0.1)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--d", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    return ap


if __name__ == "__main__":
    parsed = _parser().parse_args()
    if parsed.worker:
        worker(parsed)
    else:
        main(parsed)
