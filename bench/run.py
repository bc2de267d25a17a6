"""Benchmark (not a test): the published protocol's loop against our batched descent and flow.

Measured side by side in one run, on this machine:

(a) the published protocol (papers/s000/published/README.md: GD with lr 1 on p L, the
    epoch budget, early stop) run three ways on the same instances: the published
    one-replicate-at-a-time loop (nn.Linear parameters, autograd, SGD, as the
    published code runs: torch's default float32 and default thread count), our
    sweep machinery (the example config's batches, its dtype, on ``--workers``
    single-threaded processes of a Dask LocalCluster, default one per core), and our
    `ExactFlow` integrator over the same physical time (one replicate), on sampled
    points of
      E-000-2 / Experiment 1.1 (sphere data, d = 10..100, p = 30, 20 seeds), and
      E-000-4 / Experiment 2 (x_i = c_i e_i in R^2000, the published width, the
      0.01-scaled Q-good initialisation, 10 x budget, stop at sum r^2 < 1e-6).
    The loop is timed on a block of epochs and multiplied by the epochs the
    protocol runs there (the same for both: same stop rule, same start); ours is
    the wall time of all sampled batches together. Then (not with ``--quick``) our
    whole E-000-2 sweep (4,880 runs) runs as a user runs it, and the loop is timed
    at every one of its 244 grid points. ``speedup_exp1_1`` is the loop's seconds
    over ours on that whole grid (on the sampled points with ``--quick``);
    ``speedup_exp2`` the same on E-000-4's sampled points, from which the whole
    E-000-4 grid (5,500 runs) is also estimated. Both sides use the whole machine.
(b) this machine's matmul ceiling (a large square matmul, one thread, on the best of
    the GEMM libraries torch has: its matmul (MKL) and oneDNN) and the fraction of it
    the batched descent attains on one thread (FLOPs counted per step) on
    configurations with n d p >= 1e6, next to what the step's two products alone
    attain at those sizes;
(c) how our time per replicate-epoch grows with n, d and p (fitted exponents).

    python bench/run.py [--json OUT] [--quick] [--workers W] [--dtype D]

Length (~450 lines): one script, because what it compares must be measured side by side
in one run; each measurement is its own function and the rest prints their ratios.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time

import numpy as np
import torch

from numerics import generators
from numerics import torch_network as tn
from numerics.descent import GradientDescent
from numerics.flow import ExactFlow
from numerics.generators import published_width
from numerics.problem import Problem
from numerics.protocol_loop import protocol_descent
from numerics.provenance import environment
from numerics.simulate import simulate, simulate_batch
from verify.engine.scaling import fit_power_law
from verify.running.executors import DaskExecutor
from verify.sweep import (
    LocalExecutor,
    compute_batch,
    load_config,
    plan,
    read_rows,
    run_sweep,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXP1_1_POINTS = ((10, 50), (10, 100), (40, 400), (40, 1000), (70, 700), (70, 1960), (100, 1000),
                 (100, 2800))  # (d, n), p = 30, from the published grid
EXP2_N = (1000, 1500, 2000)
EXP2_SEEDS = 25
GROWTH_EPOCHS = 60
# The published loop as it runs: torch's default dtype and thread count (it sets neither).
LOOP_DTYPE = torch.float32
LOOP_THREADS = torch.get_num_threads()


# -- (b) throughput --------------------------------------------------------------------


def flops_per_step(n: int, d: int, p: int) -> int:
    """Arithmetic per replicate per full-space step of GradientDescent.

    Two matmuls of (p x d)(d x n) size, Z = W X^T and (A g) X: 2 * 2pnd.
    On (p, n): relu(Z), the mask-select A g, and the products a relu(Z) and
    relu(Z) g (2 each): 6pn. Loss derivative ~3n. Scaling by s a_j and the
    update of W and a: 4pd + 4p.
    """
    return 4 * p * n * d + 6 * p * n + 3 * n + 4 * p * d + 4 * p


def best_time(fn, repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def matmul_gflops(size: int, dtype: torch.dtype, repeats: int = 5) -> dict:
    """GFLOP/s of a size^2 product on each GEMM library torch has here: ``blas`` (torch's
    matmul: MKL in the PyPI wheels) and, for float32, ``onednn`` (prepacked, as the descent
    uses it). This machine's ceiling is the best of them."""
    gen = torch.Generator().manual_seed(0)
    A = torch.rand((size, size), generator=gen, dtype=dtype)
    B = torch.rand((size, size), generator=gen, dtype=dtype)
    out = {"blas": 2 * size**3 / best_time(lambda: A @ B, repeats) / 1e9}
    if dtype == torch.float32 and tn.onednn_available():
        packed = torch.ops.mkldnn._reorder_linear_weight(B.T.contiguous(), size)
        out["onednn"] = 2 * size**3 / best_time(
            lambda: tn.onednn_linear(A, packed, "none"), repeats) / 1e9
    return out


def products_gflops(n: int, d: int, p: int, reps: int, dtype: str) -> float:
    """GFLOP/s of a step's two products alone (W X^T and (A g) X for ``reps`` replicates),
    on the library `GradientDescent` picks for these sizes and in its groups of replicates:
    the ceiling of a step here."""
    torch_dtype = tn.DTYPES[dtype]
    gen = torch.Generator().manual_seed(0)
    X = torch.rand((reps, n, d), generator=gen, dtype=torch_dtype)
    W = torch.rand((reps, p, d), generator=gen, dtype=torch_dtype)
    batch = tn.TorchBatch(X=X, y=X[:, :, 0], loss="square", loss_scale=X[:, :1, 0],
                          output_factor=1.0, flow_factor=1.0)
    # the first product's output feeds the second, as relu(Z) feeds A g in a step
    if tn.resolve_gemm("auto", torch_dtype, n, d, p) == "blas":
        def products():
            tn.first_layer_products(batch, tn.preactivations(W, batch))
    else:
        groups = tn.onednn_groups(reps, n, d)
        packed = [tn.PackedSamples(X[rows], p) for rows in groups]

        def products():  # one group after another, as the descent runs them
            for rows, samples in zip(groups, packed, strict=True):
                samples.first_layer_products(samples.relu_preactivations(W[rows]))

    return 4 * reps * n * d * p / best_time(products, 15) / 1e9


def flops_per_step_orthogonal(n: int, p: int) -> int:
    """Per replicate per step on one-hot orthogonal data (span path): ~16 passes over (n, p)."""
    return 16 * n * p


def time_protocol_loop(problem: Problem, epochs: int) -> float:
    """Seconds per epoch of the published loop (float32, torch's default threads; best of 2
    blocks after a warm-up)."""
    with torch_threads(LOOP_THREADS):
        protocol_descent(problem, 2, dtype=LOOP_DTYPE)
        return min(_timed(lambda: protocol_descent(problem, epochs, dtype=LOOP_DTYPE))
                   for _ in range(2)) / epochs


class torch_threads:
    """Context manager: torch's intra-op threads set to ``n`` inside, restored after."""

    def __init__(self, n: int):
        self.n = n

    def __enter__(self):
        self.before = torch.get_num_threads()
        torch.set_num_threads(self.n)

    def __exit__(self, *exc):
        torch.set_num_threads(self.before)


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def run_batches(batches, workers: int):
    """Our sweep machinery on ``batches`` (one per grid point): each worker process (a Dask
    LocalCluster of ``workers`` single-threaded processes; in this process if 1) first
    computes a 2-epoch warm-up batch, then all batches are timed together.

    Returns (rows of every batch, wall seconds for all of them).
    """
    executor = LocalExecutor() if workers == 1 else DaskExecutor(local_workers=workers)
    warm = [dataclasses.replace(b, seeds=b.seeds[:1], options=dict(b.options, epochs=2))
            for b in batches[:workers]]
    with executor as ex:
        list(ex.map_unordered(compute_batch, warm))
        start = time.perf_counter()
        rows = [r for batch_rows in ex.map_unordered(compute_batch, batches) for r in batch_rows]
        wall = time.perf_counter() - start
    return rows, wall


def sampled_config(name: str, grids: list[dict], seeds: int):
    """The example sweep ``name`` restricted to the sampled grid points and seeds 0..seeds-1
    (no kernel rate: the loop does not compute it)."""
    config = load_config(name)  # the shipped protocol (papers/s000/protocols/)
    config.grids = [{k: [v] for k, v in g.items()} for g in grids]
    config.seeds = list(range(seeds))
    config.batch_size = max(config.batch_size, seeds) if name == "exp1_1" else config.batch_size
    config.method = dict(config.method, kernel_rate=False)
    config.name = f"bench-{name}"
    return config


def compare(config, workers: int, loop_epochs) -> dict:
    """Ours (the sweep's batches on ``workers`` processes) against the published loop on the
    same instances; rows per grid point and the speedup of the totals."""
    batches = plan(config)
    rows, wall = run_batches(batches, workers)
    points = []
    firsts = {json.dumps(b.params, sort_keys=True): b for b in reversed(batches)}
    for key, b in reversed(firsts.items()):
        mine = [r for r in rows if r["params"] == key]
        epochs = np.array([r["epochs"] for r in mine], dtype=float)
        first = b.problems()[0]
        per_epoch = time_protocol_loop(first, min(loop_epochs, b.options["epochs"]))
        points.append({
            "d": first.d, "n": first.n, "p": first.p, "replicates": len(mine),
            "budget": b.options["epochs"], "mean_epochs": float(epochs.mean()),
            "success": float(np.mean([r["success"] for r in mine])),
            "ours_s_per_run": float(np.mean([r["wall_time"] for r in mine])),
            "loop_s_per_epoch": per_epoch,
            "loop_s_per_run": per_epoch * float(epochs.mean())})
    loop_total = sum(pt["loop_s_per_run"] * pt["replicates"] for pt in points)
    return {"points": points, "ours_wall_s": wall, "loop_s": loop_total,
            "speedup": loop_total / wall, "workers": workers, "dtype": config.method["dtype"]}


def time_flow(problem: Problem, horizon: float, budget_s: float) -> dict:
    """One replicate of ExactFlow over [0, horizon] (no companion), capped in steps so that a
    slow case reports a rate instead of hanging."""
    flow = ExactFlow(rtol=1e-8, error_check=None, max_steps=20_000)
    start = time.perf_counter()
    tr = simulate(problem, flow, np.array([0.0, horizon]))
    wall = time.perf_counter() - start
    return {"seconds": wall, "status": tr.status.name.lower(), "t_reached": float(tr.t[-1]),
            "horizon": horizon, "steps": int(tr.n_steps)}


def bench_exp1_1(points, seeds: int, loop_epochs: int, workers: int) -> dict:
    config = sampled_config("exp1_1", [{"d": d, "n": n, "p": 30} for d, n in points], seeds)
    out = compare(config, workers, loop_epochs)
    for pt in out["points"]:
        problem = generators.sphere(pt["n"], pt["d"], pt["p"], seed=0)
        pt["flow"] = time_flow(problem, float(min(pt["budget"], 200)), 30.0)
    return out


def bench_exp2(n_values, seeds: int, loop_epochs: int, workers: int) -> dict:
    config = sampled_config("exp2", [{"n": n, "d": 2000, "p": "published", "repo_orth": True}
                                     for n in n_values], seeds)
    out = compare(config, workers, loop_epochs)
    for pt in out["points"]:
        pt["gflops_per_worker"] = flops_per_step_orthogonal(pt["n"], pt["p"]) * pt[
            "mean_epochs"] / pt["ours_s_per_run"] / 1e9
    small = generators.orthogonal_scaled(100, 2000, published_width(100), seed=0, repo_orth=True)
    out["flow_n100"] = time_flow(small, 200.0, 30.0)
    return out


def estimate_exp2_grid(e2: dict) -> dict:
    """Full E-000-4 grid (n = 1000..2000 step 100, 500 seeds): per-run seconds interpolated
    linearly in n from the sampled points; ours shared among the workers."""
    rows = e2["points"]
    ns = np.array([r["n"] for r in rows], dtype=float)
    grid = np.arange(1000, 2001, 100)
    out = {}
    for key, share in (("ours_s_per_run", e2["workers"]), ("loop_s_per_run", 1)):
        per_run = np.interp(grid, ns, [r[key] for r in rows])
        out[key.replace("_s_per_run", "_minutes")] = float(500 * per_run.sum() / 60 / share)
    return out


def full_exp1_1(workers: int, loop_epochs: int = 30) -> dict:
    """Our whole E-000-2 sweep as a user runs it (`gfverify sweep ... --dask-local W`),
    against the published loop over the same grid: the loop's seconds per epoch are timed
    at every grid point (seed 0, ``loop_epochs`` epochs) and multiplied by the epochs the
    protocol ran there (ours: same start, same stop rule)."""
    executor = LocalExecutor() if workers == 1 else DaskExecutor(local_workers=workers)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        res = run_sweep("exp1_1", tmp,
                        progress=True, executor=executor)
        wall = time.perf_counter() - start
        rows = read_rows(tmp)
    epochs: dict[tuple[int, int], list[int]] = {}
    for r in rows:
        epochs.setdefault((r["d"], r["n"]), []).append(r["epochs"])
    loop_s = 0.0
    for (d, n), runs in epochs.items():
        per_epoch = time_protocol_loop(generators.sphere(n, d, 30, seed=0),
                                       min(loop_epochs, max(runs)))
        loop_s += per_epoch * sum(runs)
    flops = sum(4 * r["n"] * r["d"] * r["p"] * r["epochs"] for r in rows)
    return {"runs": res.computed, "minutes": wall / 60, "workers": workers,
            "epochs": sum(r["epochs"] for r in rows), "matmul_tflop": flops / 1e12,
            "gflops": flops / wall / 1e9, "loop_minutes": loop_s / 60, "speedup": loop_s / wall}


def per_step_seconds(problems, method) -> float:
    """Seconds per replicate-step of ``method`` in steady state: runs of SHORT and
    SHORT + GROWTH_EPOCHS steps (best of 3 each) differ by GROWTH_EPOCHS steps and by
    nothing else (setup, packing, saving the states are the same in both)."""
    short = 2

    def best(steps: int) -> float:
        return min(_timed(lambda: simulate_batch(problems, method, [0.0, float(steps)]))
                   for _ in range(3))

    return (best(short + GROWTH_EPOCHS) - best(short)) / (len(problems) * GROWTH_EPOCHS)


def growth(reps: int, dtype: str, base=(1000, 100, 30)) -> dict:
    """Seconds per replicate-epoch of batched GD (full space, B = reps, one thread) as n, d
    and p grow."""
    axes = {"n": (250, 500, 1000, 2000), "d": (50, 100, 200, 400), "p": (15, 30, 60, 120)}
    out = {}
    for axis, values in axes.items():
        times = []
        for v in values:
            n, d, p = base
            n, d, p = (v, d, p) if axis == "n" else (n, v, p) if axis == "d" else (n, d, v)
            problems = [generators.sphere(n, d, p, seed=s) for s in range(reps)]
            gd = GradientDescent(lr=1.0, error_check=None, space="full", dtype=dtype)
            simulate_batch(problems, gd, [0.0, 2.0])
            sec = per_step_seconds(problems, gd)
            times.append({"n": n, "d": d, "p": p, "s_per_replicate_epoch": sec,
                          "gflops": flops_per_step(n, d, p) / sec / 1e9,
                          "gemm": tn.resolve_gemm("auto", tn.DTYPES[dtype], n, d, p),
                          "products_gflops": products_gflops(n, d, p, reps, dtype)})
        fit = fit_power_law([t[axis] for t in times], [t["s_per_replicate_epoch"] for t in times])
        out[axis] = {"points": times, "exponent": fit.exponent, "interval": [fit.lo, fit.hi]}
    return out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", metavar="OUT", help="also write the results as JSON")
    parser.add_argument("--quick", action="store_true",
                        help="fewer points and replicates (a smoke run, ~1 minute)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="our worker processes (a Dask LocalCluster; 1 = in this process); "
                             "default: the number of cores")
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32",
                        help="dtype of (b) and (c) (default float32, as the E-000-2 sweep)")
    parser.add_argument("--matmul-size", type=int, default=2048)
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be >= 1")
    load_before = os.getloadavg()
    if args.quick:
        e1 = bench_exp1_1(EXP1_1_POINTS[:2], 4, 20, args.workers)
        e2 = bench_exp2((1000,), 2, 3, args.workers)
        full = None
    else:
        e1 = bench_exp1_1(EXP1_1_POINTS, 20, 100, args.workers)
        e2 = bench_exp2(EXP2_N, EXP2_SEEDS, 10, args.workers)
        full = full_exp1_1(args.workers)
    with torch_threads(1):  # (b) and (c): one thread against the one-thread ceiling
        gr = growth(2 if args.quick else 8, args.dtype)
        ceilings = matmul_gflops(args.matmul_size, getattr(torch, args.dtype))
    peak = max(ceilings.values())
    ceilings_all = matmul_gflops(args.matmul_size, getattr(torch, args.dtype))
    big = [t for g in gr.values() for t in g["points"] if t["n"] * t["d"] * t["p"] >= 1e6]
    results = {
        # the whole grid (a full run), or the sampled points (--quick)
        "speedup_exp1_1": full["speedup"] if full else e1["speedup"],
        "speedup_exp2": e2["speedup"],
        "exp1_1": e1, "exp2": e2,
        "estimate_exp2_grid": estimate_exp2_grid(e2),
        "full_exp1_1": full,
        "matmul_peak_gflops": peak,
        "matmul_gflops_by_library": ceilings,
        "matmul_peak_gflops_all_threads": max(ceilings_all.values()),
        "fraction_of_peak_ndp_ge_1e6": {
            f"n={t['n']} d={t['d']} p={t['p']}": t["gflops"] / peak for t in big},
        "fraction_of_products_alone_ndp_ge_1e6": {
            f"n={t['n']} d={t['d']} p={t['p']}": t["gflops"] / t["products_gflops"]
            for t in big},
        "growth": gr,
        "config": {"workers": args.workers, "loop_threads": LOOP_THREADS,
                   "loop_dtype": str(LOOP_DTYPE).removeprefix("torch."), "dtype": args.dtype,
                   "quick": args.quick},
        "load_average": {"before": load_before, "after": os.getloadavg()},
        "environment": environment(),
    }
    print_table(results)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle, indent=2)
    return results


def print_table(r: dict) -> None:
    load, c = r["load_average"], r["config"]
    print(f"load average {load['before'][0]:.2f} -> {load['after'][0]:.2f} on {os.cpu_count()} "
          f"cores; the loop: {c['loop_dtype']}, {c['loop_threads']} torch thread(s); ours: "
          f"{c['workers']} single-threaded worker process(es), dtype as the sweep config")
    print("(a) seconds per replicate under the published protocol (ours: inside a worker while "
          "all run)")
    print(f"{'':22}{'loop':>10}{'ours':>10}{'ratio':>8}{'epochs':>8}{'flow (1 run)':>26}")
    for r_ in r["exp1_1"]["points"]:
        f = r_["flow"]
        print(f"E-000-2 d={r_['d']:<3} n={r_['n']:<5}{r_['loop_s_per_run']:>10.3f}"
              f"{r_['ours_s_per_run']:>10.4f}{r_['loop_s_per_run'] / r_['ours_s_per_run']:>8.1f}"
              f"{r_['mean_epochs']:>8.0f}   {f['seconds']:.2f} s to t={f['t_reached']:.0f} "
              f"({f['status']})")
    for r_ in r["exp2"]["points"]:
        print(f"E-000-4 n={r_['n']:<10}{r_['loop_s_per_run']:>10.2f}{r_['ours_s_per_run']:>10.4f}"
              f"{r_['loop_s_per_run'] / r_['ours_s_per_run']:>8.1f}{r_['mean_epochs']:>8.0f}")
    f = r["exp2"]["flow_n100"]
    print(f"E-000-4 flow at n=100: {f['seconds']:.2f} s to t={f['t_reached']:.0f} ({f['status']})")
    for key, e in (("E-000-2", r["exp1_1"]), ("E-000-4", r["exp2"])):
        print(f"{key} sampled points, all replicates: loop {e['loop_s']:.1f} s, ours "
              f"{e['ours_wall_s']:.1f} s wall ({e['dtype']})")
    full = r["full_exp1_1"]
    if full:
        print(f"E-000-2 whole grid ({full['runs']} runs): ours {full['minutes']:.2f} min measured "
              f"({full['matmul_tflop']:.1f} TFLOP in its products, {full['gflops']:.0f} GFLOP/s); "
              f"the loop {full['loop_minutes']:.1f} min (timed at every grid point x the "
              "protocol's epochs)")
    g2 = r["estimate_exp2_grid"]
    print(f"E-000-4 whole grid (estimated from the sampled points): loop "
          f"{g2['loop_minutes']:.0f} min, ours {g2['ours_minutes']:.1f} min")
    print(f"speedup_exp1_1 = {r['speedup_exp1_1']:.1f}x "
          f"({'whole grid' if full else 'sampled points'})   "
          f"speedup_exp2 = {r['speedup_exp2']:.1f}x (sampled points)")
    libs = ", ".join(f"{k} {v:.0f}" for k, v in r["matmul_gflops_by_library"].items())
    print(f"(b) matmul ceiling ({c['dtype']}, one thread: {r['matmul_peak_gflops']:.1f} GFLOP/s, "
          f"the best of {libs}; {r['matmul_peak_gflops_all_threads']:.1f} on all threads); "
          "batched descent on one thread, n d p >= 1e6:")
    points = {f"n={t['n']} d={t['d']} p={t['p']}": t for g in r["growth"].values()
              for t in g["points"]}
    for k, v in r["fraction_of_peak_ndp_ge_1e6"].items():
        t = points[k]
        print(f"    {k}: {t['gflops']:.0f} GFLOP/s ({t['gemm']}), {v:.0%} of the ceiling; "
              f"its two products alone {t['products_gflops']:.0f} GFLOP/s "
              f"({r['fraction_of_products_alone_ndp_ge_1e6'][k]:.0%} of that)")
    print("(c) growth of seconds per replicate-epoch (batched, full space):")
    for axis, g in r["growth"].items():
        print(f"    {axis}: exponent {g['exponent']:.2f} [{g['interval'][0]:.2f}, "
              f"{g['interval'][1]:.2f}]")


if __name__ == "__main__":
    main()
    sys.exit(0)
