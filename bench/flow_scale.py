"""The exact flow at the papers' sizes: the old and the new event engine side by side.

On CEL23 trials built by the pack's own generator (papers.cel23.data.correlated: centred
scheme, n = d, p = 200, lam = 4^-9, rejection pi/2, seed 0; cartesian coordinates, rtol
1e-10, no companion unless ``--companion``; one BLAS and one torch thread) this prints,
from one run of this script:

1. per d, the wall time of the exact flow to ``--horizon`` by
   - ``old``: the commit before the Taylor engine (`OLD_COMMIT`, DOP853 restarted at every
     event, events located by Brent's method on its dense output), loaded from git into a
     temporary directory;
   - ``new``: this checkout's default engine (Taylor series per step, events found on
     their polynomials; `numerics.flow.taylor`);
   with steps, events and events per second, and the ratio old / new;
2. whether they found the same events: the same pairs and directions in the same order,
   the largest difference of their times, and the largest relative difference of the
   final states (max_j |theta_j - theta'_j| / |theta_j|);
3. the cost per unit of flow time against gradient descent at the paper's step (lr 0.01,
   float64, `GradientDescent`, no companion, this checkout) on the same trial over the
   same horizon;
4. the arithmetic floor: the flop of one field evaluation (4 p n d: the products W X^T
   and (A g) X) times the steps the run needed (events plus event-free steps), at this
   machine's one-thread rate for that product, and the new engine's time over it.

Every run is a fresh subprocess with PYTHONPATH on one tree; runs are sequential, old and
new alternate per d, and each timing is the best of ``--repeats``.

    python bench/flow_scale.py                       # d = 16, 64 to t = 50: about 2 min
    python bench/flow_scale.py --dims 64,256 --horizon 5000 --companion --engines new
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from _trees import old_tree, run_worker, state_difference

ROOT = Path(__file__).resolve().parent.parent
OLD_COMMIT = "327fe4e"  # the last commit with DOP853 as the only engine
WIDTH, LAM, LR = 200, 4.0 ** -9, 0.01  # CEL23 section 8: m = 200; lam = 4^-9; GD step


def _one_thread() -> None:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"


def worker(args) -> None:
    """One timed run in this process (a subprocess of `main`); prints JSON, saves arrays."""
    _one_thread()
    import numerics
    from numerics import ExactFlow, GradientDescent, simulate
    from papers.cel23 import data

    if args.method == "gd":
        import torch

        torch.set_num_threads(1)
    problem = data.correlated(d=args.d, m=WIDTH, lam=LAM, scheme="centred",
                              rejection="pi/2", seed=args.seed)
    if args.method == "gd":
        steps = int(round(args.horizon / LR))
        t = LR * np.round(np.linspace(0, steps, 11))
        method = GradientDescent(lr=LR, error_check=None)
    else:
        t = np.linspace(0.0, args.horizon, 101)
        method = ExactFlow(coordinates="cartesian",
                           error_check=10.0 if args.companion else None)
    best, tr = float("inf"), None
    for _ in range(args.repeats):
        start = time.perf_counter()
        tr = simulate(problem, method, t)
        best = min(best, time.perf_counter() - start)
    events = np.array([(e.t, e.neuron, e.sample, e.direction) for e in tr.events])
    np.savez(args.out, W=tr.W[-1], a=tr.a[-1], events_list=events.reshape(-1, 4))
    print(json.dumps({
        "numerics": numerics.__file__, "wall": best, "status": tr.status.name,
        "steps": int(tr.n_steps), "events": len(tr.events), "loss": float(tr.loss[-1]),
        "error": float(tr.error_estimate),
        "engine": tr.provenance.get("engine", "rk" if args.method == "flow" else "-")}))


def _run(tree: Path, method: str, d: int, args, out: Path) -> dict:
    argv = ["--method", method, "--d", str(d), "--seed", str(args.seed), "--horizon",
            str(args.horizon), "--repeats", str(args.repeats)]
    row = run_worker(__file__, tree, argv + (["--companion"] if args.companion else []), out,
                     f"{method} (d={d})", one_thread=True)
    row["event_list"] = row.pop("events_list")
    return row


def _gemm_rate(p: int, n: int, d: int) -> float:
    """This machine's one-thread flop rate for the field's product (p x d) @ (d x n)."""
    _one_thread()
    rng = np.random.default_rng(0)
    W, XT = rng.standard_normal((p, d)), rng.standard_normal((d, n))
    reps = max(10, int(2e8 / (2 * p * n * d)))
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(reps):
            W @ XT
        best = min(best, (time.perf_counter() - start) / reps)
    return 2 * p * n * d / best


def _compare(new: dict, old: dict) -> str:
    a, b = new["event_list"], old["event_list"]
    if len(a) != len(b):
        return f"different counts ({len(a)} new, {len(b)} old)"
    same = bool(np.array_equal(a[:, 1:], b[:, 1:]))
    dt = float(np.max(np.abs(a[:, 0] - b[:, 0]))) if len(a) else 0.0
    return (f"{'the same' if same else 'NOT the same'} {len(a)} events (pairs, directions, "
            f"order); event times within {dt:.2g}; final states within "
            f"{state_difference(new, old):.2g} (relative, per neuron)")


def main(args) -> None:
    new_rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "numerics"],
                           capture_output=True, text=True, check=True).stdout.strip()
    engines = args.engines
    print(f"new: this checkout ({new_rev}{' + uncommitted numerics' if dirty else ''}), "
          f"default engine; old: {OLD_COMMIT} (DOP853 restarted at every event)")
    print(f"CEL23 centred, n = d, p = {WIDTH}, lam = 4^-9, seed {args.seed}, to t = "
          f"{args.horizon:g}, cartesian, rtol 1e-10, "
          f"{'with' if args.companion else 'no'} companion, one thread, best of "
          f"{args.repeats}\n")
    rows = {}
    with tempfile.TemporaryDirectory(prefix="flow_scale_") as tmp:
        tmp = Path(tmp)
        old = (old_tree(OLD_COMMIT, tmp / "old", ("numerics", "papers", "verify", "theory"))
               if "old" in engines else None)
        for d in args.dims:
            plan = [(label, tree, "flow") for label, tree in (("old", old), ("new", ROOT))
                    if label in engines]
            if args.gd:
                plan.append(("gd", ROOT, "gd"))
            for label, tree, method in plan:
                rows[label, d] = _run(tree, method, d, args, tmp / f"{label}_{d}.npz")
                print(f"  ran {label} d={d}: {rows[label, d]['wall']:.2f} s", flush=True)
    print(f"\n{'d':>5} {'code':>5} {'wall s':>9} {'status':>8} {'steps':>8} {'events':>7} "
          f"{'events/s':>9} {'s per unit t':>12} {'L(T)':>9} {'error est':>9}")
    for d in args.dims:
        for label in ("old", "new", "gd"):
            if (label, d) not in rows:
                continue
            r = rows[label, d]
            rate = r["events"] / r["wall"] if label != "gd" else float("nan")
            print(f"{d:>5} {label:>5} {r['wall']:>9.2f} {r['status']:>8} {r['steps']:>8} "
                  f"{r['events']:>7} {rate:>9.0f} {r['wall'] / args.horizon:>12.3g} "
                  f"{r['loss']:>9.3g} {r['error']:>9.2g}")
    print("\nratios and agreement")
    for d in args.dims:
        if ("old", d) in rows and ("new", d) in rows:
            ratio = rows["old", d]["wall"] / rows["new", d]["wall"]
            print(f"  d={d}: old / new = {ratio:.1f}   (target >= 10 at d = 64)")
            print(f"         {_compare(rows['new', d], rows['old', d])}")
        if ("gd", d) in rows and ("new", d) in rows:
            ratio = rows["new", d]["wall"] / rows["gd", d]["wall"]
            print(f"  d={d}: new flow / gradient descent (lr {LR}) over t in [0, "
                  f"{args.horizon:g}] = {ratio:.2f}   (target <= 3)")
    print("\narithmetic floor: flop of one field evaluation (4 p n d) x the new engine's "
          "steps, at this machine's one-thread rate for p x d x n")
    for d in args.dims:
        if ("new", d) not in rows:
            continue
        r = rows["new", d]
        rate = _gemm_rate(WIDTH, d, d)
        runs = 2 if args.companion else 1
        floor = runs * r["steps"] * 4 * WIDTH * d * d / rate
        print(f"  d={d}: {r['steps']} steps x {4 * WIDTH * d * d / 1e6:.2f} Mflop at "
              f"{rate / 1e9:.1f} Gflop/s = {floor:.3f} s{' (x2: companion)' if runs > 1 else ''}"
              f"; new / floor = {r['wall'] / floor:.0f}")


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dims", type=lambda s: [int(v) for v in s.split(",")], default=[16, 64],
                    help="comma-separated d = n values (default 16,64)")
    ap.add_argument("--horizon", type=float, default=50.0, help="flow time (default 50)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=1, help="timings per run; best is kept")
    ap.add_argument("--companion", action="store_true",
                    help="run the flows with their companion (error estimate)")
    ap.add_argument("--engines", type=lambda s: s.split(","), default=["old", "new"],
                    help="which flows: old, new (default old,new)")
    ap.add_argument("--no-gd", dest="gd", action="store_false",
                    help="skip the gradient-descent comparison")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--method", default="flow", help=argparse.SUPPRESS)
    ap.add_argument("--d", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    return ap


if __name__ == "__main__":
    parsed = _parser().parse_args()
    if parsed.worker:
        worker(parsed)
    else:
        main(parsed)
