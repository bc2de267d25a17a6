"""Sweeps: a grid of generated instances x seeds, simulated in batches, stored in SQLite.

A sweep is declared in a TOML file (see ``examples/sweeps/smoke.toml``)::

    name = "smoke"                 # optional label stored with every row
    generator = "sphere"           # a generator of numerics.generators
    seeds = "0..19"                # "a..b" (inclusive), a list of ints, or a count N (0..N-1)
    batch_size = 20                # optional: trajectories per batched run and per commit
    threads = 1                    # optional: torch threads while the sweep runs (restored after)

    [grid]                         # generator parameters; a list is an axis of the grid
    n = [20, 40]                   # (wrap a list-valued parameter: norms = [[1.0, 2.0]])
    d = [10]                       # an integer range: "10..100 step 10" (ends included)
    p = [30]                       # or p = "published": floor(log(n/0.05)/log(4/3)) + 1

    # Instead of one [grid], several [[grid]] tables: the sweep is their union
    # (e.g. one table per d, each with its own n range).

    [model]                        # optional (numerics.model): the network, for every instance
    activation = "leaky:0.1"       # relu (default), leaky:SLOPE or power:BETA
    train = "both"                 # both, first (a fixed) or second (W fixed)
    # bias = 1.0                   # a hidden bias: a constant input coordinate
    # init = "dominated:2"         # balanced, unbalanced[:R], dominated[:F], asymmetric

    [method]                       # flow: t_max = T or "budget" (lr x the gd epoch budget),
    name = "gd"                    # "gd" (gradient descent) or "flow" (ExactFlow)
    lr = 1.0
    epochs = "budget"              # or an int; budget = int(1.5 sqrt(np) log(np) / (4 lr) + 1)
    epochs_factor = 1              # multiplies the budget
    stop_loss = "protocol"         # cv_threshold / (2n), or a number, or false
    cv_threshold = 1.0
    error_check = 2                # companion at lr / 2 (error estimate), or false
    points = 11                    # saved states per run (the loss is kept at every step)
    kernel_rate = false            # also the tangent-kernel rate at the final state

``run_sweep(config, results_dir)`` stores one row per trajectory in
``results_dir/results.sqlite``, keyed by the instance's content hash and a hash
of the resolved method options. Each batch is written in one transaction, so an
interrupted or killed sweep leaves only whole batches, and running it again
computes only the rows that are missing (a row is found by its recipe:
generator, resolved parameters, seed and method hash; generators are
deterministic, so the recipe fixes the instance and its content hash).

A batch (`Batch`) is a self-contained, picklable description of B trajectories:
`compute_batch` builds the Problems from the generator and seeds and returns the
rows, wherever it runs. `run_sweep` hands the missing batches, largest estimated
work first (`Batch.cost`), to an executor (by default this process, one batch after
another; `verify.running.executors` for a Dask cluster)
and writes the rows as batches finish, in this process only.

The parts: `verify.sweep.config` (the file), `verify.sweep.store` (the SQLite store and
its schema); this module plans batches, runs them and writes their rows. Every public
name of the three is importable from here.

Success is the published protocol's "reaches 0": a finite run whose final loss
L is <= 1/(2n) (the objective p L <= p/(2n)).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from numerics import ExactFlow, GradientDescent, network, simulate_batch
from numerics.provenance import environment
from verify.language.measures import average_rate, terminal_rate
from verify.running.executors import LocalExecutor
from verify.running.progress import Progress
from verify.sweep.config import (
    METHODS,
    SweepConfig,
    SweepConfigError,
    build,
    builtin_protocols,
    generator,
    generator_names,
    integer_range,
    load_config,
    pack_generators,
    parse_config,
    protocol_path,
    protocols,
)
from verify.sweep.store import (
    COLUMN_NAMES,
    COLUMNS,
    DB_NAME,
    SCHEMA_VERSION,
    SweepStoreError,
    close,
    connect,
    read_rows,
    row_key,
    to_dataframe,
)


@dataclass(frozen=True)
class Batch:
    """B trajectories that run as one batched simulation: one grid point, several seeds.

    Self-contained and picklable (no arrays): `compute_batch` rebuilds the Problems
    from the generator and the seeds, so a batch can run in another process or on
    another machine and give the same rows.

    Attributes
    ----------
    index
        Position in the plan (fixed by the grid, not by what is stored).
    generator
        The generator's name (``numerics.generators``' or a pack's).
    params
        The grid point: the resolved generator parameters (a width rule's p is a number
        here).
    seeds
        The seeds of the batch's trajectories, one row each.
    method
        ``"gd"`` or ``"flow"``.
    options
        The method's options resolved for this point (`resolved_options`: epochs, stop
        loss, t_max, ...).
    config_hash
        The hash of the resolved method (schema, method, options, model) that keys the rows.
    sweep
        The sweep's name, stored with every row ("" when unnamed).
    threads
        Torch threads while the batch runs (restored after).
    model
        The `numerics.model.with_model` options of every instance; empty: the generator's.
    """

    index: int
    generator: str
    params: dict
    seeds: tuple[int, ...]
    method: str
    options: dict
    config_hash: str
    sweep: str = ""
    threads: int = 1
    model: dict = field(default_factory=dict)

    def problems(self) -> list:
        """The batch's Problems, rebuilt from the generator, one per seed."""
        return [build(self.generator, seed, self.params, self.model) for seed in self.seeds]

    def cost(self) -> float:
        """Estimated work of the batch (`run_sweep` hands out the largest first and weighs
        the progress bar's ETA by it): per trajectory, steps x n x d x p for gradient
        descent (the budget; early stops make it an upper bound), t_max x n x p for the
        flow. Sizes the grid does not fix count as 1."""
        size = math.prod(int(self.params.get(k, 1)) for k in ("n", "p"))
        if self.method == "gd":
            per_run = self.options["epochs"] * size * int(self.params.get("d", 1))
        else:
            per_run = float(self.options["t_max"]) * size
        return len(self.seeds) * float(per_run)

    def keys(self) -> list[tuple]:
        """The recipe of each trajectory (generator, parameters, seed, method hash)."""
        params = json.dumps(self.params, sort_keys=True)
        return [(self.generator, params, seed, self.config_hash) for seed in self.seeds]


@dataclass
class SweepResult:
    """What `run_sweep` did.

    Attributes
    ----------
    total
        Trajectories in the sweep (grid points x seeds).
    stored_before
        How many of them were already in the store (not computed again).
    computed
        How many were computed and stored by this run.
    wall_time
        Seconds the run took.
    db_path
        The store's SQLite file, ``results_dir/results.sqlite``.
    """

    total: int
    stored_before: int
    computed: int
    wall_time: float
    db_path: Path


# -- planning -------------------------------------------------------------------------------


def epoch_budget(n: int, p: int, lr: float) -> int:
    """The published protocol's budget int(1.5 sqrt(n p) log(n p) / (4 lr) + 1)."""
    return int(1.5 * math.sqrt(n * p) * math.log(n * p) / (4 * lr) + 1)


def resolved_options(method: dict, n: int, p: int) -> dict:
    """The method's options with the rules applied to an instance of sizes n, p."""
    if method["name"] == "flow":
        out = {k: method[k] for k in ("t_max", "points", "rtol", "error_check")}
        if out["t_max"] == "budget":
            lr = method["lr"]
            out["t_max"] = lr * max(1, int(method["epochs_factor"] * epoch_budget(n, p, lr)))
        return out
    lr = method["lr"]
    if method["epochs"] == "budget":
        epochs = max(1, int(method["epochs_factor"] * epoch_budget(n, p, lr)))
    else:
        epochs = int(method["epochs"])
    stop = method["stop_loss"]
    if stop == "protocol":
        stop = method["cv_threshold"] / (2 * n)
    elif stop is False:
        stop = None
    return {"lr": lr, "epochs": epochs, "stop_loss": stop,
            "error_check": method["error_check"], "dtype": method["dtype"],
            "points": method["points"], "kernel_rate": method["kernel_rate"]}


def _hash(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def plan(config: SweepConfig) -> list[Batch]:
    """Every trajectory of the sweep, in batches of one grid point and <= batch_size seeds."""
    batches: list[Batch] = []
    for point in config.points():
        options = resolved_options(config.method, point["n"], point["p"]) if (
            "n" in point and "p" in point) else None
        for start in range(0, len(config.seeds), config.batch_size):
            seeds = tuple(config.seeds[start:start + config.batch_size])
            opts = options
            if opts is None:  # sizes not in the grid (defaults of the generator): build one
                q = build(config.generator, seeds[0], point, config.model)
                opts = resolved_options(config.method, q.n, q.p)
            key = {"schema": SCHEMA_VERSION, "method": config.method["name"], "options": opts}
            if config.model:  # (absent otherwise: stores written before models keep their keys)
                key["model"] = config.model
            batches.append(Batch(index=len(batches), generator=config.generator, params=point,
                                 seeds=seeds, method=config.method["name"], options=opts,
                                 config_hash=_hash(key), sweep=config.name,
                                 threads=config.threads, model=dict(config.model)))
    return batches


# -- running --------------------------------------------------------------------------------


def _method_object(method: str, options: dict):
    if method == "gd":
        return GradientDescent(lr=options["lr"], dtype=options["dtype"],
                               stop_loss=options["stop_loss"], error_check=options["error_check"])
    return ExactFlow(rtol=options["rtol"], error_check=options["error_check"])


def _times(method: str, options: dict) -> np.ndarray:
    if method == "gd":
        # the start and the end of the budget (whole steps), a few points between
        steps = np.linspace(0, options["epochs"], options["points"]).round().astype(np.int64)
        return np.unique(steps) * options["lr"]
    return np.linspace(0.0, options["t_max"], options["points"])


def _finite(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def compute_batch(batch: Batch) -> list[dict]:
    """Simulate one batch and return its rows (one per seed). Runs in any process."""
    threads_before = torch.get_num_threads()
    torch.set_num_threads(batch.threads)
    try:
        problems = batch.problems()
        trajs = simulate_batch(problems, _method_object(batch.method, batch.options),
                               _times(batch.method, batch.options))
        versions = json.dumps(environment(), sort_keys=True)
        return [_row(batch, seed, q, tr, versions)
                for seed, q, tr in zip(batch.seeds, problems, trajs, strict=True)]
    finally:
        torch.set_num_threads(threads_before)


def _row(batch: Batch, seed: int, problem, traj, versions: str) -> dict:
    loss = traj.loss
    n = problem.n
    initial = float(loss[0]) if len(loss) else float("nan")
    final = float(loss[-1]) if len(loss) else float("nan")
    pl = traj.pl
    epochs = int(traj.n_steps)
    if traj.stop_time is not None:
        stop_time = traj.stop_time
    else:
        stop_time = float(traj.t[-1]) if len(traj.t) else None
    ok = traj.status.ok and math.isfinite(final)
    lr = batch.options.get("lr")
    rate_end = rate_avg = kernel = None
    if traj.step_loss is not None and ok:
        rate_end = _finite(terminal_rate(traj.step_loss, lr))
        rate_avg = _finite(average_rate(traj.step_loss, lr))
    energies = traj.energies[-1] if len(traj.t) else np.array([np.nan])
    if batch.options.get("kernel_rate") and ok and problem.loss == "square":
        kernel = _finite(network.kernel_rate(problem, traj.W[-1], traj.a[-1]))
    return {
        "instance_hash": problem.content_hash,
        "config_hash": batch.config_hash,
        "sweep": batch.sweep,
        "generator": batch.generator,
        "params": json.dumps(batch.params, sort_keys=True),
        "n": n, "d": problem.d, "p": problem.p,
        "seed": seed,
        "method": batch.method,
        "options": json.dumps({**batch.options, **({"model": batch.model} if batch.model else {})},
                              sort_keys=True),
        "initial_loss": _finite(initial),
        "final_loss": _finite(final),
        "loss_ratio": _finite(final / initial) if initial > 0 else None,
        "stop_time": _finite(stop_time) if stop_time is not None else None,
        "epochs": epochs,
        "success": int(ok and final <= 1.0 / (2 * n)),
        "pl_end": _finite(pl[-1]) if len(pl) else None,
        "rate_end": rate_end,
        "rate_avg": rate_avg,
        "energy_min": _finite(np.min(energies)),
        "energy_max": _finite(np.max(energies)),
        "kernel_rate": kernel,
        "error_estimate": _finite(traj.error_estimate),
        "status": traj.status.name.lower(),
        "message": traj.message,
        "wall_time": float(traj.wall_time),
        "versions": versions,
    }


def run_sweep(config, results_dir, *, progress: bool = True, stream=None,
              executor=None) -> SweepResult:
    """Run (or resume) the sweep ``config`` (a SweepConfig, a mapping or a TOML path).

    ``executor`` runs the batches (default `LocalExecutor`;
    `verify.running.executors.DaskExecutor` for a cluster): anything with
    ``map_unordered(fn, batches)`` yielding fn's results as they finish, used as a
    context manager. Rows are written here, one transaction per batch.
    """
    if isinstance(config, (str, Path)):
        config = load_config(config)
    elif isinstance(config, dict):
        config = parse_config(config)
    start = time.perf_counter()
    batches = plan(config)
    total = sum(len(b.seeds) for b in batches)
    conn = connect(results_dir)
    try:
        stored = {tuple(r) for r in conn.execute(
            "SELECT generator, params, seed, config_hash FROM trajectories")}
        todo = []
        for b in batches:
            missing = tuple(seed for seed, key in zip(b.seeds, b.keys(), strict=True)
                            if key not in stored)
            if missing:
                todo.append(b if missing == b.seeds else dataclasses.replace(b, seeds=missing))
        # largest first: on parallel executors the last batches to finish are then small
        # ones, and no worker idles while another ends a large one (a stable sort: equal
        # costs keep the plan's order)
        todo.sort(key=Batch.cost, reverse=True)
        remaining = sum(len(b.seeds) for b in todo)
        before = total - remaining
        label = f"sweep {config.name or config.generator}"
        if before and progress:
            print(f"{label}: {before} of {total} rows found in the store, "
                  f"{remaining} to compute", file=stream if stream is not None else sys.stderr)
        computed = 0
        names = ", ".join(COLUMN_NAMES)
        marks = ", ".join(f":{c}" for c in COLUMN_NAMES)
        cost = {key: b.cost() / len(b.seeds) for b in todo for key in b.keys()}
        with (executor or LocalExecutor()) as ex, \
                Progress(remaining, label, stream=stream, enabled=progress and bool(todo),
                         work=sum(cost.values())) as bar:
            for rows in ex.map_unordered(compute_batch, todo):
                with conn:  # one transaction per batch
                    conn.executemany(
                        f"INSERT OR REPLACE INTO trajectories ({names}) VALUES ({marks})", rows)
                computed += len(rows)
                bar.advance(len(rows), work=sum(cost.get(row_key(r), 0.0) for r in rows))
    finally:
        close(conn)
    return SweepResult(total=total, stored_before=before, computed=computed,
                       wall_time=time.perf_counter() - start,
                       db_path=Path(results_dir) / DB_NAME)


__all__ = ["COLUMNS", "COLUMN_NAMES", "DB_NAME", "METHODS", "SCHEMA_VERSION", "Batch",
           "LocalExecutor", "SweepConfig", "SweepConfigError", "SweepResult",
           "SweepStoreError", "builtin_protocols", "compute_batch", "connect", "epoch_budget",
           "generator", "generator_names", "integer_range", "load_config", "pack_generators",
           "parse_config", "plan", "protocol_path", "protocols", "read_rows",
           "resolved_options", "row_key", "run_sweep", "to_dataframe"]
