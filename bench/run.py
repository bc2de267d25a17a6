"""Benchmark: batched GradientDescent against a plain PyTorch loop, at E-000-1.

Configuration (THEORY E-000-1, the published protocol): d = 100, n = 1300,
p = 36, mean-field network, `numerics.generators.sphere` (G-000-iso data, R's
initialisation I-000-repo); full-batch GD with learning rate 1 on p * L.

Measured, side by side in one run:
  (a) seconds per replicate-epoch of a one-replicate-at-a-time loop written
      from the protocol (nn.Linear parameters, autograd, SGD) and of our
      GradientDescent on B replicates at once, in alternating timing blocks of a
      fixed number of epochs (best and median kept); the same for a small
      configuration (d = 10, n = 100, p = 30, the low-d corner of E-000-2), where
      per-operation overhead rather than arithmetic dominates;
  (b) this machine's matmul throughput (a large square matmul, and a batched
      matmul of the descent's own shapes) and the fraction of it each loop
      attains, counting FLOPs per step;
  (c) one full run with R's epoch budget and early stopping (objective below
      p/(2n)): the protocol loop and the batched descent must agree on
      replicate 0, and the success fraction (final objective <= p/(2n)) is
      reported (R: 1.0 at n = 1300).

    python bench/run.py [--epochs N] [--timing-epochs N] [--replicates B]
                        [--threads T] [--json OUT]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
import time

import numpy as np
import torch

from numerics import generators
from numerics import torch_network as tn
from numerics.descent import GradientDescent
from numerics.problem import Problem
from numerics.provenance import environment
from numerics.simulate import simulate_batch

N, D, P = 1300, 100, 36  # E-000-1
SMALL = (100, 10, 30)  # (n, d, p): the low-d corner of E-000-2
LR = 1.0


def epoch_budget(n: int, p: int, lr: float) -> int:
    """R's budget: int(1.5 * sqrt(n p) * log(n p) / (4 lr) + 1)."""
    return int(1.5 * math.sqrt(n * p) * math.log(n * p) / (4 * lr) + 1)


# -- (a) the protocol's loop, one replicate at a time ------------------------------------


class MeanFieldNet(torch.nn.Module):
    """h(x) = (1/p) sum_j a_j relu(<w_j, x>), no biases."""

    def __init__(self, d: int, p: int):
        super().__init__()
        self.hidden = torch.nn.Linear(d, p, bias=False)
        self.output = torch.nn.Linear(p, 1, bias=False)
        self.width = p

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return self.output(torch.relu(self.hidden(X))).squeeze(-1) / self.width


def protocol_descent(problem: Problem, epochs: int, dtype: torch.dtype,
                     stop_objective: float | None = None):
    """GD with SGD(lr) on the objective p * mean((y - h)^2) / 2.

    Stops before epoch k's update once the objective is below ``stop_objective``.
    Returns (W, a, epochs run). The weights start from the Problem's (W0, a0)
    (drawn from the law of nn.Linear's default) so that the loops compare number
    for number.
    """
    X = torch.tensor(problem.X, dtype=dtype)
    y = torch.tensor(problem.y, dtype=dtype)
    net = MeanFieldNet(problem.d, problem.p).to(dtype)
    with torch.no_grad():
        net.hidden.weight.copy_(torch.tensor(problem.W0))
        net.output.weight.copy_(torch.tensor(problem.a0)[None, :])
    optimizer = torch.optim.SGD(net.parameters(), lr=LR)
    p = problem.p
    epoch = 0
    for epoch in range(epochs + 1):
        optimizer.zero_grad()
        objective = p * torch.mean((y - net(X)) ** 2) / 2
        if epoch == epochs or (stop_objective is not None and objective.item() < stop_objective):
            break
        objective.backward()
        optimizer.step()
    W = net.hidden.weight.detach().double().numpy()
    a = net.output.weight.detach()[0].double().numpy()
    return W, a, epoch


def final_state_gap(run, W, a) -> float:
    """Relative per-neuron difference (`Trajectory.state_error`) of run's final state and (W, a)."""
    other = dataclasses.replace(run, W=np.stack([run.W[0], W]), a=np.stack([run.a[0], a]))
    return float(dataclasses.replace(run, companion=other).state_error[-1])


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


def matmul_gflops(size: int, dtype: torch.dtype, repeats: int = 3) -> float:
    gen = torch.Generator().manual_seed(0)
    A = torch.rand((size, size), generator=gen, dtype=dtype)
    B = torch.rand((size, size), generator=gen, dtype=dtype)
    return 2 * size**3 / best_time(lambda: A @ B, repeats) / 1e9


def shaped_bmm_gflops(batch: int, dtype: torch.dtype, repeats: int = 20) -> float:
    """Throughput of the descent's own matmul shape, (B, p, d) @ (B, d, n)."""
    gen = torch.Generator().manual_seed(0)
    W = torch.rand((batch, P, D), generator=gen, dtype=dtype)
    XT = torch.rand((batch, D, N), generator=gen, dtype=dtype)
    return 2 * batch * P * D * N / best_time(lambda: W @ XT, repeats) / 1e9


def time_contestants(problems, epochs: int, repeats: int, dtype_name: str) -> dict:
    """Seconds per replicate-epoch, alternating blocks so that outside load hits both alike."""
    dtype = tn.DTYPES[dtype_name]
    method = GradientDescent(lr=LR, dtype=dtype_name, error_check=None, space="full")
    protocol_descent(problems[0], 2, dtype)  # warm-up: first calls initialise kernels
    simulate_batch(problems, method, [0.0, 2 * LR])
    protocol, batched = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        protocol_descent(problems[0], epochs, dtype)
        protocol.append((time.perf_counter() - start) / epochs)
        start = time.perf_counter()
        simulate_batch(problems, method, [0.0, epochs * LR])
        batched.append((time.perf_counter() - start) / (len(problems) * epochs))
    n, d, p = problems[0].n, problems[0].d, problems[0].p
    flops = flops_per_step(n, d, p)
    best = {"protocol_loop": min(protocol), "batched": min(batched)}
    return {
        "n": n, "d": d, "p": p, "replicates": len(problems), "epochs_per_block": epochs,
        "flops_per_step": flops,
        "best": best,
        "median": {"protocol_loop": float(np.median(protocol)),
                   "batched": float(np.median(batched))},
        "all": {"protocol_loop": protocol, "batched": batched},
        "gflops": {name: flops / sec / 1e9 for name, sec in best.items()},
        "speedup_best": best["protocol_loop"] / best["batched"],
    }


# -- the run ------------------------------------------------------------------------------


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=epoch_budget(N, P, LR),
                        help="epoch budget of the full run (default: R's, %(default)s)")
    parser.add_argument("--timing-epochs", type=int, default=100,
                        help="epochs per timing block (default %(default)s)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timing blocks per contestant; the best and the median are kept")
    parser.add_argument("--replicates", type=int, default=16, help="B of the batched runs")
    parser.add_argument("--dtype", choices=tuple(tn.DTYPES), default="float64")
    parser.add_argument("--seed", type=int, default=0, help="replicate k uses seed + k")
    parser.add_argument("--matmul-size", type=int, default=2048)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch intra-op threads (default 1: steady when other jobs share "
                             "the cores; 0 keeps torch's own choice)")
    parser.add_argument("--json", metavar="OUT", help="also write the results as JSON")
    args = parser.parse_args(argv)
    if min(args.epochs, args.timing_epochs, args.repeats, args.replicates) < 1:
        parser.error("--epochs, --timing-epochs, --repeats and --replicates must be >= 1")
    if args.threads < 0:
        parser.error("--threads must be >= 0")
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    dtype = tn.DTYPES[args.dtype]
    seeds = range(args.seed, args.seed + args.replicates)
    problems = [generators.sphere(N, D, P, seed) for seed in seeds]
    small = [generators.sphere(*SMALL, seed) for seed in seeds]
    load_before = os.getloadavg()

    timing = time_contestants(problems, args.timing_epochs, args.repeats, args.dtype)
    timing_small = time_contestants(small, args.timing_epochs, args.repeats, args.dtype)
    peak = matmul_gflops(args.matmul_size, dtype)
    shaped = shaped_bmm_gflops(args.replicates, dtype)

    # (c) the full protocol: early stop below p/(2n), i.e. L below 1/(2n).
    threshold = P / (2 * N)
    method = GradientDescent(lr=LR, dtype=args.dtype, error_check=None, space="full",
                             stop_loss=threshold / P)
    start = time.perf_counter()
    runs = simulate_batch(problems, method, [0.0, args.epochs * LR])
    full_seconds = time.perf_counter() - start
    W, a, protocol_epochs = protocol_descent(problems[0], args.epochs, dtype, threshold)
    objective = np.array([P * r.loss[-1] for r in runs])
    stops = [r.n_steps for r in runs]
    results = {
        "config": {"n": N, "d": D, "p": P, "lr": LR, "epochs": args.epochs,
                   "replicates": args.replicates, "dtype": args.dtype, "seed": args.seed,
                   "threads": torch.get_num_threads(), "repeats": args.repeats},
        "timing": timing,
        "timing_small": timing_small,
        "gflops_matmul": {"square_peak": peak, "descent_shape": shaped},
        # the best matmul rate measured on this machine, whichever shape gave it
        "fraction_of_peak": {name: g / max(peak, shaped)
                             for name, g in timing["gflops"].items()},
        "full_run": {
            "batched_seconds": full_seconds,
            "epochs_run": {"median": float(np.median(stops)), "max": int(max(stops))},
            "success_fraction": float(np.mean(objective <= threshold)),
            "replicate0_epochs": {"batched": int(runs[0].n_steps),
                                  "protocol_loop": protocol_epochs},
            "replicate0_final_state_gap": final_state_gap(runs[0], W, a),
        },
        "load_average": {"before": load_before, "after": os.getloadavg()},
        "environment": environment(),
    }
    print_table(results)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle, indent=2)
    return results


def print_table(r: dict) -> None:
    c, load, full = r["config"], r["load_average"], r["full_run"]
    print(f"{c['dtype']}, lr={c['lr']}, {c['threads']} torch threads, load average "
          f"{load['before'][0]:.2f} -> {load['after'][0]:.2f} on {os.cpu_count()} cores; "
          f"{c['repeats']} timing blocks of {r['timing']['epochs_per_block']} epochs")
    print(f"{'':32}{'s/replicate-epoch':>18}{'median':>11}{'GFLOP/s':>9}")
    for key, label in (("timing", "E-000-1"), ("timing_small", "small")):
        t = r[key]
        print(f"{label}: n={t['n']} d={t['d']} p={t['p']}")
        rows = (("  protocol loop, one at a time", "protocol_loop"),
                (f"  GradientDescent, B={t['replicates']}", "batched"))
        for name, k in rows:
            print(f"{name:32}{t['best'][k]:>18.3e}{t['median'][k]:>11.3e}{t['gflops'][k]:>9.2f}")
        print(f"  speedup per replicate-epoch: {t['speedup_best']:.2f}x (best of each)")
    g = r["gflops_matmul"]
    print(f"matmul: {g['square_peak']:.2f} GFLOP/s square ({c['dtype']}), "
          f"{g['descent_shape']:.2f} GFLOP/s at the descent's bmm shape; E-000-1 attains "
          f"{r['fraction_of_peak']['batched']:.0%} (batched) and "
          f"{r['fraction_of_peak']['protocol_loop']:.0%} (protocol loop) of the better of the two")
    print(f"full run (budget {c['epochs']} epochs, early stop at p/(2n)): batched "
          f"{full['batched_seconds']:.1f} s for {c['replicates']} replicates, median "
          f"{full['epochs_run']['median']:.0f} epochs; success {full['success_fraction']:.0%}")
    print(f"replicate 0: stopped at epoch {full['replicate0_epochs']['batched']} (batched) and "
          f"{full['replicate0_epochs']['protocol_loop']} (protocol loop); final states differ by "
          f"{full['replicate0_final_state_gap']:.2e} (relative, per neuron)")


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
