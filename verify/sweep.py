"""Sweeps: a grid of generated instances x seeds, simulated in batches, stored in SQLite.

A sweep is declared in a TOML file (see ``examples/sweeps/smoke.toml``)::

    name = "smoke"                 # optional label stored with every row
    generator = "sphere"           # a generator of numerics.generators
    seeds = "0..19"                # "a..b" (inclusive), a list of ints, or a count N (0..N-1)
    batch_size = 20                # optional: trajectories per batched run and per commit
    threads = 1                    # optional: torch threads while the sweep runs (restored after)

    [grid]                         # generator parameters; a list is an axis of the grid
    n = [20, 40]                   # (wrap a list-valued parameter: norms = [[1.0, 2.0]])
    d = [10]
    p = [30]

    [method]
    name = "gd"                    # "gd" (gradient descent) or "flow" (ExactFlow)
    lr = 1.0
    epochs = "budget"              # or an int; budget = int(1.5 sqrt(np) log(np) / (4 lr) + 1)
    epochs_factor = 1              # multiplies the budget
    stop_loss = "protocol"         # cv_threshold / (2n), or a number, or false
    cv_threshold = 1.0

``run_sweep(config, results_dir)`` stores one row per trajectory in
``results_dir/results.sqlite``, keyed by the instance's content hash and a hash
of the resolved method options. Each batch is written in one transaction, so an
interrupted or killed sweep leaves only whole batches, and running it again
computes only the rows that are missing.

Success is the published protocol's "reaches 0": a finite run whose final loss
L is <= 1/(2n) (the objective p L <= p/(2n)).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import sqlite3
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from numerics import ExactFlow, GradientDescent, generators, simulate_batch
from numerics.provenance import environment
from verify.progress import Progress

DB_NAME = "results.sqlite"
SCHEMA_VERSION = 1
GENERATORS = ("sphere", "orthogonal_scaled", "correlated", "orthonormal", "two_point",
              "separable", "group")
METHODS = ("gd", "flow")
_TOP_KEYS = ("name", "generator", "seeds", "batch_size", "threads", "grid", "method")
_METHOD_KEYS = {
    "gd": ("name", "lr", "epochs", "epochs_factor", "stop_loss", "cv_threshold",
           "error_check", "dtype"),
    "flow": ("name", "t_max", "points", "rtol", "error_check"),
}

COLUMNS = (
    ("instance_hash", "TEXT NOT NULL"),
    ("config_hash", "TEXT NOT NULL"),
    ("sweep", "TEXT"),
    ("generator", "TEXT"),
    ("params", "TEXT"),
    ("n", "INTEGER"),
    ("d", "INTEGER"),
    ("p", "INTEGER"),
    ("seed", "INTEGER"),
    ("method", "TEXT"),
    ("options", "TEXT"),
    ("initial_loss", "REAL"),
    ("final_loss", "REAL"),
    ("loss_ratio", "REAL"),
    ("stop_time", "REAL"),
    ("epochs", "INTEGER"),
    ("success", "INTEGER"),
    ("pl_end", "REAL"),
    ("error_estimate", "REAL"),
    ("status", "TEXT"),
    ("message", "TEXT"),
    ("wall_time", "REAL"),
    ("versions", "TEXT"),
)
COLUMN_NAMES = tuple(name for name, _ in COLUMNS)


class SweepConfigError(ValueError):
    """A bad sweep configuration; the message names the key."""


@dataclass(frozen=True)
class Task:
    """One trajectory to compute: a grid point, a seed, and its resolved method."""

    params: dict
    seed: int
    problem: object
    method: str
    options: dict
    instance_hash: str
    config_hash: str
    batch: int  # index of the batch it belongs to (fixed by the grid, not by what is stored)


@dataclass
class SweepConfig:
    generator: str
    grid: dict  # key -> list of values
    seeds: list[int]
    method: dict
    name: str = ""
    batch_size: int = 20
    threads: int = 1
    source: dict = field(default_factory=dict)

    def points(self) -> list[dict]:
        """The grid points, in a fixed order (keys as declared, values as listed)."""
        keys = list(self.grid)
        out: list[dict] = [{}]
        for key in keys:
            out = [dict(pt, **{key: v}) for pt in out for v in self.grid[key]]
        return out


@dataclass
class SweepResult:
    total: int
    stored_before: int
    computed: int
    wall_time: float
    db_path: Path


# -- configuration ------------------------------------------------------------------------


def load_config(path) -> SweepConfig:
    """Read and validate a sweep TOML file."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise SweepConfigError(f"CONFIG: cannot read {path} ({exc.strerror}).") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SweepConfigError(f"CONFIG: {path} is not valid TOML ({exc}).") from None
    return parse_config(data)


def parse_config(data: dict) -> SweepConfig:
    """Validate a parsed TOML mapping; SweepConfigError names the offending key."""
    if not isinstance(data, dict):
        raise SweepConfigError("config: expected a table of keys.")
    _unknown(data, _TOP_KEYS, "")
    for key in ("generator", "seeds", "grid", "method"):
        if key not in data:
            raise SweepConfigError(f"{key}: missing; every sweep needs {key!r}.")
    gen = data["generator"]
    if gen not in GENERATORS:
        raise SweepConfigError(f"generator: {gen!r} is not one of {GENERATORS}.")
    name = data.get("name", "")
    if not isinstance(name, str):
        raise SweepConfigError(f"name: expected a string, got {name!r}.")
    batch_size = data.get("batch_size", 20)
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise SweepConfigError(f"batch_size: expected a positive integer, got {batch_size!r}.")
    threads = data.get("threads", 1)
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise SweepConfigError(f"threads: expected a positive integer, got {threads!r}.")
    seeds = _seeds(data["seeds"])
    grid = _grid(gen, data["grid"])
    method = _method(data["method"])
    cfg = SweepConfig(generator=gen, grid=grid, seeds=seeds, method=method, name=name,
                      batch_size=batch_size, threads=threads, source=data)
    # every grid point must build (the generator validates its own parameters)
    for point in cfg.points():
        try:
            getattr(generators, gen)(seed=seeds[0], **_call_values(point))
        except (TypeError, ValueError) as exc:
            raise SweepConfigError(f"grid: {point} is not a valid {gen} instance: {exc}") from None
    return cfg


def _unknown(table: dict, allowed, prefix: str) -> None:
    for key in table:
        if key not in allowed:
            raise SweepConfigError(
                f"{prefix}{key}: unknown key; allowed keys are {', '.join(allowed)}."
            )


def _seeds(value) -> list[int]:
    if isinstance(value, bool):
        raise SweepConfigError(f"seeds: expected 'a..b', a list of ints or a count, got {value!r}.")
    if isinstance(value, int):
        if value < 1:
            raise SweepConfigError(f"seeds: a count must be >= 1, got {value}.")
        return list(range(value))
    if isinstance(value, str):
        lo, sep, hi = value.partition("..")
        try:
            a, b = int(lo), int(hi)
        except ValueError:
            a = b = -1
        if not sep or a < 0 or b < a:
            raise SweepConfigError(f"seeds: expected 'a..b' with 0 <= a <= b, got {value!r}.")
        return list(range(a, b + 1))
    if isinstance(value, list) and value and all(
        isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in value
    ):
        if len(set(value)) != len(value):
            raise SweepConfigError(f"seeds: repeated seeds in {value!r}.")
        return list(value)
    raise SweepConfigError(
        f"seeds: expected 'a..b', a non-empty list of non-negative ints or a count, got {value!r}."
    )


def _grid(gen: str, table) -> dict:
    if not isinstance(table, dict) or not table:
        raise SweepConfigError("grid: expected a table of generator parameters, e.g. n = [20, 40].")
    params = inspect.signature(getattr(generators, gen)).parameters
    allowed = [k for k in params if k != "seed"]
    grid: dict = {}
    for key, value in table.items():
        if key not in allowed:
            raise SweepConfigError(
                f"grid.{key}: not a parameter of generator {gen!r}; use {', '.join(allowed)}."
            )
        values = value if isinstance(value, list) else [value]
        if not values:
            raise SweepConfigError(f"grid.{key}: empty list of values.")
        for v in values:
            if isinstance(v, dict):
                raise SweepConfigError(f"grid.{key}: a value cannot be a table, got {v!r}.")
        if len(set(json.dumps(v) for v in values)) != len(values):
            raise SweepConfigError(f"grid.{key}: repeated values in {values!r}.")
        grid[key] = values
    missing = [k for k, prm in params.items()
               if k != "seed" and prm.default is inspect.Parameter.empty and k not in grid]
    if missing:
        raise SweepConfigError(f"grid.{missing[0]}: missing; generator {gen!r} requires it.")
    return grid


def _call_values(point: dict) -> dict:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in point.items()}


def _number(table, key, default, positive=True, integer=False):
    value = table.get(key, default) if isinstance(table, dict) else table
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if integer:
        ok = ok and isinstance(value, int)
    if not ok or (positive and value <= 0):
        kind = "a positive integer" if integer else "a positive finite number"
        raise SweepConfigError(f"method.{key}: expected {kind}, got {value!r}.")
    return value


def _method(table) -> dict:
    if not isinstance(table, dict):
        raise SweepConfigError("method: expected a table, e.g. [method] name = \"gd\".")
    name = table.get("name")
    if name not in METHODS:
        raise SweepConfigError(f"method.name: {name!r} is not one of {METHODS}.")
    _unknown(table, _METHOD_KEYS[name], "method.")
    if name == "gd":
        epochs = table.get("epochs", "budget")
        if epochs != "budget":
            _number(table, "epochs", epochs, integer=True)
        stop = table.get("stop_loss", "protocol")
        if stop is not False and stop != "protocol":
            _number(table, "stop_loss", stop)
        dtype = table.get("dtype", "float64")
        if dtype not in ("float64", "float32"):
            raise SweepConfigError(f"method.dtype: {dtype!r} is not float64 or float32.")
        error_check = table.get("error_check", 2)
        if error_check is not False:
            _number(table, "error_check", error_check, integer=True)
            if error_check < 2:
                raise SweepConfigError(
                    f"method.error_check: must be >= 2 or false, got {error_check}.")
        return {"name": "gd", "lr": float(_number(table, "lr", 1.0)), "epochs": epochs,
                "epochs_factor": float(_number(table, "epochs_factor", 1.0)),
                "stop_loss": stop, "cv_threshold": float(_number(table, "cv_threshold", 1.0)),
                "error_check": None if error_check is False else error_check, "dtype": dtype}
    points = _number(table, "points", 101, integer=True)
    if points < 2:
        raise SweepConfigError(f"method.points: must be >= 2, got {points}.")
    error_check = table.get("error_check", 10.0)
    if error_check is not False:
        _number(table, "error_check", error_check)
    return {"name": "flow", "t_max": float(_number(table, "t_max", 100.0)), "points": points,
            "rtol": float(_number(table, "rtol", 1e-10)),
            "error_check": None if error_check is False else float(error_check)}


# -- planning -------------------------------------------------------------------------------


def epoch_budget(n: int, p: int, lr: float) -> int:
    """The published protocol's budget int(1.5 sqrt(n p) log(n p) / (4 lr) + 1)."""
    return int(1.5 * math.sqrt(n * p) * math.log(n * p) / (4 * lr) + 1)


def resolved_options(method: dict, n: int, p: int) -> dict:
    """The method's options with the rules applied to an instance of sizes n, p."""
    if method["name"] == "flow":
        return {k: method[k] for k in ("t_max", "points", "rtol", "error_check")}
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
            "error_check": method["error_check"], "dtype": method["dtype"]}


def _hash(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def plan(config: SweepConfig) -> list[Task]:
    """Every trajectory of the sweep, grouped in batches of equal shapes and options."""
    tasks: list[Task] = []
    batch = 0
    gen = getattr(generators, config.generator)
    for point in config.points():
        for start in range(0, len(config.seeds), config.batch_size):
            for seed in config.seeds[start:start + config.batch_size]:
                problem = gen(seed=seed, **_call_values(point))
                options = resolved_options(config.method, problem.n, problem.p)
                key = {"schema": SCHEMA_VERSION, "method": config.method["name"],
                       "options": options}
                tasks.append(Task(params=point, seed=seed, problem=problem,
                                  method=config.method["name"], options=options,
                                  instance_hash=problem.content_hash, config_hash=_hash(key),
                                  batch=batch))
            batch += 1
    return tasks


# -- running --------------------------------------------------------------------------------


def _method_object(method: str, options: dict):
    if method == "gd":
        return GradientDescent(lr=options["lr"], dtype=options["dtype"],
                               stop_loss=options["stop_loss"], error_check=options["error_check"])
    return ExactFlow(rtol=options["rtol"], error_check=options["error_check"])


def _times(method: str, options: dict) -> np.ndarray:
    if method == "gd":
        # the start and the end of the budget (whole steps), a few points between
        steps = np.unique(np.linspace(0, options["epochs"], 11).round().astype(np.int64))
        return steps * options["lr"]
    return np.linspace(0.0, options["t_max"], options["points"])


def _finite(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _row(task: Task, traj, sweep: str, generator: str, versions: str) -> dict:
    loss = traj.loss
    n = task.problem.n
    initial = float(loss[0]) if len(loss) else float("nan")
    final = float(loss[-1]) if len(loss) else float("nan")
    pl = traj.pl
    epochs = int(traj.n_steps)
    if traj.stop_time is not None:
        stop_time = traj.stop_time
    else:
        stop_time = float(traj.t[-1]) if len(traj.t) else None
    ok = traj.status.ok and math.isfinite(final)
    return {
        "instance_hash": task.instance_hash,
        "config_hash": task.config_hash,
        "sweep": sweep,
        "generator": generator,
        "params": json.dumps(task.params, sort_keys=True),
        "n": n, "d": task.problem.d, "p": task.problem.p,
        "seed": task.seed,
        "method": task.method,
        "options": json.dumps(task.options, sort_keys=True),
        "initial_loss": _finite(initial),
        "final_loss": _finite(final),
        "loss_ratio": _finite(final / initial) if initial > 0 else None,
        "stop_time": _finite(stop_time) if stop_time is not None else None,
        "epochs": epochs,
        "success": int(ok and final <= 1.0 / (2 * n)),
        "pl_end": _finite(pl[-1]) if len(pl) else None,
        "error_estimate": _finite(traj.error_estimate),
        "status": traj.status.name.lower(),
        "message": traj.message,
        "wall_time": float(traj.wall_time),
        "versions": versions,
    }


def connect(results_dir) -> sqlite3.Connection:
    """Open (creating if needed) the sweep store in ``results_dir``."""
    results_dir = Path(results_dir)
    results_dir.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(results_dir / DB_NAME, timeout=30.0)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    cols = ", ".join(f"{name} {kind}" for name, kind in COLUMNS)
    with conn:
        conn.execute(f"CREATE TABLE IF NOT EXISTS trajectories ({cols}, "
                     "PRIMARY KEY (instance_hash, config_hash))")
    return conn


def run_sweep(config, results_dir, *, progress: bool = True, stream=None) -> SweepResult:
    """Run (or resume) the sweep ``config`` (a SweepConfig, a mapping or a TOML path)."""
    if isinstance(config, (str, Path)):
        config = load_config(config)
    elif isinstance(config, dict):
        config = parse_config(config)
    start = time.perf_counter()
    tasks = plan(config)
    conn = connect(results_dir)
    # Batches are small: one torch thread is as fast, and far faster on a loaded
    # machine (idle intra-op threads spin); parallelism across batches is left to processes.
    threads_before = torch.get_num_threads()
    torch.set_num_threads(config.threads)
    try:
        stored = {tuple(r) for r in conn.execute(
            "SELECT instance_hash, config_hash FROM trajectories")}
        todo = [t for t in tasks if (t.instance_hash, t.config_hash) not in stored]
        before = len(tasks) - len(todo)
        batches: dict[int, list[Task]] = {}
        for t in todo:
            batches.setdefault(t.batch, []).append(t)
        versions = json.dumps(environment(), sort_keys=True)
        label = f"sweep {config.name or config.generator}"
        if before and progress:
            print(f"{label}: {before} of {len(tasks)} rows already stored, resuming",
                  file=stream if stream is not None else sys.stderr)
        computed = 0
        with Progress(len(todo), label, stream=stream, enabled=progress and bool(todo)) as bar:
            for batch in batches.values():
                first = batch[0]
                method = _method_object(first.method, first.options)
                trajs = simulate_batch([t.problem for t in batch], method,
                                       _times(first.method, first.options))
                rows = [_row(t, tr, config.name, config.generator, versions)
                        for t, tr in zip(batch, trajs, strict=True)]
                names = ", ".join(COLUMN_NAMES)
                marks = ", ".join(f":{c}" for c in COLUMN_NAMES)
                with conn:  # one transaction per batch
                    conn.executemany(
                        f"INSERT OR REPLACE INTO trajectories ({names}) VALUES ({marks})", rows)
                computed += len(batch)
                bar.advance(len(batch))
    finally:
        torch.set_num_threads(threads_before)
        conn.close()
    return SweepResult(total=len(tasks), stored_before=before, computed=computed,
                       wall_time=time.perf_counter() - start,
                       db_path=Path(results_dir) / DB_NAME)


# -- reading --------------------------------------------------------------------------------


def read_rows(results_dir) -> list[dict]:
    """Every stored row, ordered by sweep, grid parameters and seed."""
    path = Path(results_dir) / DB_NAME
    if not path.is_file():
        raise FileNotFoundError(f"DIR: no sweep store {path}; run `gfverify sweep` first.")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)
    try:
        cur = conn.execute(
            f"SELECT {', '.join(COLUMN_NAMES)} FROM trajectories "
            "ORDER BY sweep, generator, n, d, p, params, method, options, seed, instance_hash")
        return [dict(zip(COLUMN_NAMES, r, strict=True)) for r in cur]
    finally:
        conn.close()
