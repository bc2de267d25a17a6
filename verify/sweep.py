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
another; `verify.sweep_dask` for a Dask cluster)
and writes the rows as batches finish, in this process only.

Success is the published protocol's "reaches 0": a finite run whose final loss
L is <= 1/(2n) (the objective p L <= p/(2n)).
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import math
import re
import sqlite3
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from numerics import ExactFlow, GradientDescent, generators, network, simulate_batch
from numerics.provenance import environment
from verify import limits
from verify.errors import InputError
from verify.measures import average_rate, terminal_rate
from verify.progress import Progress

DB_NAME = "results.sqlite"
SCHEMA_VERSION = 2
BUILTIN_GENERATORS = ("sphere", "orthogonal_scaled", "correlated", "orthonormal", "two_point",
                      "separable", "group")


def pack_generators() -> dict:
    """Generators of the installed packs (`theory.packs`: a ``generators`` module with
    GENERATORS, name -> f(seed=..., **grid values) -> Problem)."""
    from theory import packs

    out: dict = {}
    for pack, module in packs.modules("generators", builtin=False):
        for name, fn in getattr(module, "GENERATORS", {}).items():
            if name in BUILTIN_GENERATORS or name in out:
                raise packs.PackError(f"pack {pack.name!r}: generator {name!r} exists "
                                      "already; rename it")
            out[name] = fn
    return out


def generator_names() -> tuple[str, ...]:
    return BUILTIN_GENERATORS + tuple(pack_generators())


def generator(name: str):
    """The function that builds a sweep's instances: numerics.generators' or a pack's."""
    if name in BUILTIN_GENERATORS:
        return getattr(generators, name)
    try:
        return pack_generators()[name]
    except KeyError:
        raise SweepConfigError(f"generator: {name!r} is not one of "
                               f"{generator_names()}.") from None
METHODS = ("gd", "flow")
_TOP_KEYS = ("name", "generator", "seeds", "batch_size", "threads", "grid", "method")
_METHOD_KEYS = {
    "gd": ("name", "lr", "epochs", "epochs_factor", "stop_loss", "cv_threshold",
           "error_check", "dtype", "points", "kernel_rate"),
    "flow": ("name", "t_max", "lr", "epochs_factor", "points", "rtol", "error_check"),
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
    ("rate_end", "REAL"),  # 2 mean (L_{k-1} - L_k)/(L_{k-1} + L_k), last 100 steps, per unit t
    ("rate_avg", "REAL"),  # ln(L_0 / L_end) / t_end
    ("energy_min", "REAL"),  # min_i E_i at the end, E_i = s sum_j 1{<w_j,x_i> > 0} a_j^2
    ("energy_max", "REAL"),
    ("kernel_rate", "REAL"),  # 2 kappa c lambda_min(NTK) / n at the end (when asked)
    ("error_estimate", "REAL"),
    ("status", "TEXT"),
    ("message", "TEXT"),
    ("wall_time", "REAL"),
    ("versions", "TEXT"),
)
COLUMN_NAMES = tuple(name for name, _ in COLUMNS)



class SweepConfigError(InputError):
    """A bad sweep configuration; the message names the key."""


class SweepStoreError(InputError):
    """A results directory that cannot hold this sweep's rows; the message names DIR."""


@dataclass(frozen=True)
class Batch:
    """B trajectories that run as one batched simulation: one grid point, several seeds.

    Self-contained and picklable (no arrays): `compute_batch` rebuilds the Problems
    from the generator and the seeds, so a batch can run in another process or on
    another machine and give the same rows.
    """

    index: int  # position in the plan (fixed by the grid, not by what is stored)
    generator: str
    params: dict  # resolved generator parameters (p from a width rule is a number here)
    seeds: tuple[int, ...]
    method: str
    options: dict
    config_hash: str
    sweep: str = ""
    threads: int = 1

    def problems(self) -> list:
        gen = generator(self.generator)
        return [gen(seed=seed, **_call_values(self.params)) for seed in self.seeds]

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
class SweepConfig:
    generator: str
    grids: list[dict]  # each: key -> list of values; the sweep is the union of their products
    seeds: list[int]
    method: dict
    name: str = ""
    batch_size: int = 20
    threads: int = 1
    source: dict = field(default_factory=dict)

    def points(self) -> list[dict]:
        """The grid points with width rules resolved, in a fixed order (tables as
        declared, keys as declared, values as listed); a point is listed once."""
        out: list[dict] = []
        seen: set[str] = set()
        for grid in self.grids:
            pts: list[dict] = [{}]
            for key in grid:
                pts = [dict(pt, **{key: v}) for pt in pts for v in grid[key]]
            for pt in pts:
                pt = _resolve_point(pt)
                tag = json.dumps(pt, sort_keys=True)
                if tag not in seen:
                    seen.add(tag)
                    out.append(pt)
        return out

    @property
    def grid(self) -> dict:
        """The single grid table (configs with one [grid])."""
        if len(self.grids) != 1:
            raise AttributeError("this sweep has several [[grid]] tables; use .grids")
        return self.grids[0]


@dataclass
class SweepResult:
    total: int
    stored_before: int
    computed: int
    wall_time: float
    db_path: Path


# -- configuration ------------------------------------------------------------------------


PROTOCOLS = Path(__file__).resolve().parent / "protocols"


def builtin_protocols() -> list[str]:
    """Names of the sweep files shipped with gfverify (the published protocols)."""
    return sorted(p.stem for p in PROTOCOLS.glob("*.toml"))


def protocol_path(name_or_path) -> Path:
    """A sweep file: the path given, or the shipped protocol of that name (``exp1_1``)."""
    path = Path(name_or_path)
    if not path.exists() and path.suffix == "" and path.name in builtin_protocols():
        return PROTOCOLS / f"{path.name}.toml"
    return path


def load_config(path) -> SweepConfig:
    """Read and validate a sweep TOML file (or a shipped protocol named without .toml)."""
    path = protocol_path(path)
    if not path.exists():
        raise SweepConfigError(f"CONFIG: no file {path}; give a sweep file (TOML) or one of "
                               f"the shipped protocols {', '.join(builtin_protocols())}.")
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
    if gen not in generator_names():
        raise SweepConfigError(f"generator: {gen!r} is not one of {generator_names()}.")
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
    tables = data["grid"]
    if isinstance(tables, list):
        if not tables:
            raise SweepConfigError("grid: an empty list of [[grid]] tables.")
        grids = [_grid(gen, t, f"grid[{k}]") for k, t in enumerate(tables)]
    else:
        grids = [_grid(gen, tables, "grid")]
    method = _method(data["method"])
    total = len(seeds) * sum(math.prod(len(v) for v in g.values()) for g in grids)
    _at_most("grid x seeds", total)
    cfg = SweepConfig(generator=gen, grids=grids, seeds=seeds, method=method, name=name,
                      batch_size=batch_size, threads=threads, source=data)
    # every grid point must build (the generator validates its own parameters)
    for point in cfg.points():
        try:
            generator(gen)(seed=seeds[0], **_call_values(point))
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
        _at_most("seeds", value)
        return list(range(value))
    if isinstance(value, str):
        lo, sep, hi = value.partition("..")
        try:
            a, b = int(lo), int(hi)
        except ValueError:
            a = b = -1
        if not sep or a < 0 or b < a:
            raise SweepConfigError(f"seeds: expected 'a..b' with 0 <= a <= b, got {value!r}.")
        _at_most("seeds", b - a + 1)
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


_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*(?:step\s+(\d+))?\s*$")
WIDTH_RULES = ("published",)


def integer_range(text: str, where: str) -> list[int]:
    """"a..b" or "a..b step s" (ends included) as a list of ints."""
    m = _RANGE.match(text)
    if not m:
        raise SweepConfigError(f"{where}: {text!r} is not a value or a range 'a..b step s'.")
    a, b, step = int(m[1]), int(m[2]), int(m[3] or 1)
    if b < a or step < 1:
        raise SweepConfigError(f"{where}: range {text!r} needs a <= b and step >= 1.")
    _at_most(where, (b - a) // step + 1)
    return list(range(a, b + 1, step))


def _at_most(where: str, count: int) -> None:
    """Refuse a sweep with more rows than the work limit (`verify.limits`), counted before
    any list is built."""
    try:
        limits.at_most(f"{where} (rows of the sweep)", count, "sweep_points")
    except limits.LimitError as exc:
        raise SweepConfigError(str(exc)) from None


published_width = generators.published_width  # the grid value p = "published"


def _resolve_point(point: dict) -> dict:
    if point.get("p") == "published":
        return dict(point, p=published_width(point["n"]))
    return point


def _grid(gen: str, table, where: str) -> dict:
    if not isinstance(table, dict) or not table:
        raise SweepConfigError(
            f"{where}: expected a table of generator parameters, e.g. n = [20, 40].")
    params = inspect.signature(generator(gen)).parameters
    allowed = [k for k in params if k != "seed"]
    grid: dict = {}
    for key, value in table.items():
        if key not in allowed:
            raise SweepConfigError(
                f"{where}.{key}: not a parameter of generator {gen!r}; use {', '.join(allowed)}."
            )
        if key == "p" and value in WIDTH_RULES:
            if "n" not in table:
                raise SweepConfigError(f"{where}.p: the width rule {value!r} needs n.")
            grid[key] = [value]
            continue
        if isinstance(value, str) and ".." in value:
            values = integer_range(value, f"{where}.{key}")
        else:
            values = value if isinstance(value, list) else [value]
        if not values:
            raise SweepConfigError(f"{where}.{key}: empty list of values.")
        for v in values:
            if isinstance(v, dict):
                raise SweepConfigError(f"{where}.{key}: a value cannot be a table, got {v!r}.")
        if len(set(json.dumps(v) for v in values)) != len(values):
            raise SweepConfigError(f"{where}.{key}: repeated values in {values!r}.")
        grid[key] = values
    missing = [k for k, prm in params.items()
               if k != "seed" and prm.default is inspect.Parameter.empty and k not in grid]
    if missing:
        raise SweepConfigError(f"{where}.{missing[0]}: missing; generator {gen!r} requires it.")
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


def _flag(table, key, default) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise SweepConfigError(f"method.{key}: expected true or false, got {value!r}.")
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
        points = _number(table, "points", 11, integer=True)
        if points < 2:
            raise SweepConfigError(f"method.points: must be >= 2, got {points}.")
        return {"name": "gd", "lr": float(_number(table, "lr", 1.0)), "epochs": epochs,
                "epochs_factor": float(_number(table, "epochs_factor", 1.0)),
                "stop_loss": stop, "cv_threshold": float(_number(table, "cv_threshold", 1.0)),
                "error_check": None if error_check is False else error_check, "dtype": dtype,
                "points": points, "kernel_rate": _flag(table, "kernel_rate", False)}
    points = _number(table, "points", 101, integer=True)
    if points < 2:
        raise SweepConfigError(f"method.points: must be >= 2, got {points}.")
    error_check = table.get("error_check", 10.0)
    if error_check is not False:
        _number(table, "error_check", error_check)
    t_max = table.get("t_max", 100.0)
    flow = {"name": "flow", "points": points, "rtol": float(_number(table, "rtol", 1e-10)),
            "error_check": None if error_check is False else float(error_check)}
    if t_max == "budget":  # the protocol's flow time: epoch budget at step lr, times lr
        return {**flow, "t_max": "budget", "lr": float(_number(table, "lr", 1.0)),
                "epochs_factor": float(_number(table, "epochs_factor", 1.0))}
    return {**flow, "t_max": float(_number(table, "t_max", t_max))}


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
                q = generator(config.generator)(seed=seeds[0], **_call_values(point))
                opts = resolved_options(config.method, q.n, q.p)
            key = {"schema": SCHEMA_VERSION, "method": config.method["name"], "options": opts}
            batches.append(Batch(index=len(batches), generator=config.generator, params=point,
                                 seeds=seeds, method=config.method["name"], options=opts,
                                 config_hash=_hash(key), sweep=config.name,
                                 threads=config.threads))
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
        "options": json.dumps(batch.options, sort_keys=True),
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


def row_key(row: dict) -> tuple:
    """A stored row's recipe, as `Batch.keys` lists it."""
    return (row["generator"], row["params"], row["seed"], row["config_hash"])


def connect(results_dir) -> sqlite3.Connection:
    """Open (creating if needed) the sweep store in ``results_dir``. A directory that cannot
    hold a store (a file, unwritable, a corrupted database) is a `SweepStoreError` naming
    the path, raised before anything is written."""
    results_dir = Path(results_dir)
    try:
        results_dir.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(results_dir / DB_NAME, timeout=30.0)
    except (OSError, sqlite3.Error) as exc:
        raise _store_error(results_dir, exc) from None
    try:
        have = [r[1] for r in conn.execute("PRAGMA table_info(trajectories)")]
        if have and tuple(have) != COLUMN_NAMES:  # checked before anything is written
            raise SweepStoreError(
                f"DIR: {results_dir / DB_NAME} was written by another version of gfverify "
                f"(columns differ from schema {SCHEMA_VERSION}); use a new --results "
                f"directory.")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        cols = ", ".join(f"{name} {kind}" for name, kind in COLUMNS)
        with conn:
            conn.execute(f"CREATE TABLE IF NOT EXISTS trajectories ({cols}, "
                         "PRIMARY KEY (instance_hash, config_hash))")
    except sqlite3.Error as exc:
        conn.close()
        raise _store_error(results_dir, exc) from None
    except SweepStoreError:
        conn.close()
        raise
    return conn


def _store_error(results_dir: Path, exc: Exception) -> SweepStoreError:
    path = Path(results_dir)
    if path.exists() and not path.is_dir():
        why = "is a file, not a directory"
    elif isinstance(exc, sqlite3.DatabaseError) and "not a database" in str(exc):
        why = f"holds a {DB_NAME} that is not a readable database (corrupted?)"
    elif isinstance(exc, PermissionError) or "readonly" in str(exc) or "read-only" in str(exc):
        why = "is not writable"
    else:
        why = f"cannot hold a store ({getattr(exc, 'strerror', None) or exc})"
    return SweepStoreError(f"--results {path}: {why}; a store is a directory holding "
                           f"{DB_NAME} (and, while in use, its -wal and -shm files)")


class LocalExecutor:
    """Runs batches in this process, one after another, in the order given."""

    name = "local"

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, *exc) -> None:
        return None

    def map_unordered(self, fn, items):
        for item in items:
            yield fn(item)


def run_sweep(config, results_dir, *, progress: bool = True, stream=None,
              executor=None) -> SweepResult:
    """Run (or resume) the sweep ``config`` (a SweepConfig, a mapping or a TOML path).

    ``executor`` runs the batches (default `LocalExecutor`; `verify.sweep_dask.DaskExecutor`
    for a cluster): anything with ``map_unordered(fn, batches)`` yielding fn's results as
    they finish, used as a context manager. Rows are written here, one transaction per batch.
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
            print(f"{label}: {before} of {total} rows already stored, resuming",
                  file=stream if stream is not None else sys.stderr)
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
        conn.close()
    return SweepResult(total=total, stored_before=before, computed=computed,
                       wall_time=time.perf_counter() - start,
                       db_path=Path(results_dir) / DB_NAME)


# -- reading --------------------------------------------------------------------------------


def to_dataframe(results_dir):
    """The stored rows (`read_rows`) as a pandas DataFrame (``pip install
    'gfverify[notebook]'``)."""
    from verify.table import as_dataframe

    return as_dataframe(read_rows(results_dir))


def read_rows(results_dir) -> list[dict]:
    """Every stored row, ordered by sweep, grid parameters and seed. A read-only store (or
    one on read-only media) is read as it is; a corrupted one is a `SweepStoreError`."""
    path = Path(results_dir) / DB_NAME
    if not path.is_file():
        raise FileNotFoundError(f"DIR: no sweep store {path}; run `gfverify sweep` first.")
    query = (f"SELECT {', '.join(COLUMN_NAMES)} FROM trajectories "
             "ORDER BY sweep, generator, n, d, p, params, method, options, seed, instance_hash")
    last: Exception | None = None
    # mode=ro needs to create the WAL's -shm file; where it cannot (a read-only directory),
    # immutable=1 reads the database file as it is (nobody may write it meanwhile)
    for flags in ("mode=ro", "mode=ro&immutable=1"):
        try:
            conn = sqlite3.connect(f"file:{path}?{flags}", uri=True, timeout=30.0)
        except sqlite3.Error as exc:
            last = exc
            continue
        try:
            cur = conn.execute(query)
            return [dict(zip(COLUMN_NAMES, r, strict=True)) for r in cur]
        except sqlite3.DatabaseError as exc:
            last = exc
            if "not a database" in str(exc) or "malformed" in str(exc):
                break
        finally:
            conn.close()
    raise _store_error(Path(results_dir), last)
