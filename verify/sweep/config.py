"""A sweep's configuration: the TOML file (or a pack's protocol by name) parsed and
validated into a `SweepConfig` (generator, grid tables, seeds, method options); every bad
key or value is a `SweepConfigError` naming it. The file format is in `verify.sweep`.
"""

from __future__ import annotations

import inspect
import json
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from numerics import generators
from theory.suggest import did_you_mean, unknown_name
from verify.errors import InputError
from verify.language import limits

BUILTIN_GENERATORS = ("sphere", "orthogonal_scaled", "correlated", "orthonormal", "two_point",
                      "separable", "group")


def pack_generators() -> dict:
    """Generators of the packs, built in (CEL23's ``cel23``) or installed (`theory.packs`:
    a ``generators`` module with GENERATORS, name -> f(seed=..., **grid values) ->
    Problem)."""
    from theory import packs

    out: dict = {}
    for pack, module in packs.modules("generators"):
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
        raise SweepConfigError(f"generator: {name!r}: "
                               f"{unknown_name(name, generator_names())}.") from None
METHODS = ("gd", "flow")
_TOP_KEYS = ("name", "generator", "seeds", "batch_size", "threads", "grid", "method", "model")
MODEL_KEYS = ("activation", "train", "bias", "init")
_METHOD_KEYS = {
    "gd": ("name", "lr", "epochs", "epochs_factor", "stop_loss", "cv_threshold",
           "error_check", "dtype", "points", "kernel_rate"),
    "flow": ("name", "t_max", "lr", "epochs_factor", "points", "rtol", "error_check"),
}

class SweepConfigError(InputError):
    """A bad sweep configuration; the message names the key."""


@dataclass
class SweepConfig:
    """A validated sweep file (`load_config`, `parse_config`; the format is in
    `verify.sweep`).

    Attributes
    ----------
    generator
        The generator's name (``numerics.generators``' or a pack's).
    grids
        The grid tables, each key -> list of values; the sweep is the union of their
        products (one table for ``[grid]``, several for ``[[grid]]``).
    seeds
        The seeds, in order.
    method
        The ``[method]`` table with its defaults filled in (``name`` ``"gd"`` or
        ``"flow"``; rules such as ``epochs = "budget"`` resolved per point by `plan`).
    name
        The sweep's label, stored with every row ("" when unnamed).
    batch_size
        Trajectories per batched run and per commit (default 20).
    threads
        Torch threads while the sweep runs (default 1; restored after).
    source
        The parsed TOML mapping as given.
    model
        The ``[model]`` table: `numerics.model.with_model` options for every instance
        (empty: the generator's model).
    """

    generator: str
    grids: list[dict]
    seeds: list[int]
    method: dict
    name: str = ""
    batch_size: int = 20
    threads: int = 1
    source: dict = field(default_factory=dict)
    model: dict = field(default_factory=dict)

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


# -- configuration ------------------------------------------------------------------------


def protocols() -> dict[str, Path]:
    """The sweep files the packs ship (their ``protocols`` folders, `theory.packs`), by name
    (the published protocols: ``exp1_1``, ...)."""
    from theory import packs

    out: dict[str, Path] = {}
    for pack in packs.packs():
        folder = pack.directory("protocols")
        for path in sorted(folder.glob("*.toml")) if folder else ():
            if path.stem in out:
                raise packs.PackError(f"pack {pack.name!r}: sweep protocol {path.stem!r} "
                                      "exists already; rename it")
            out[path.stem] = path
    return out


def builtin_protocols() -> list[str]:
    """Names of the sweep files the packs ship."""
    return sorted(protocols())


def protocol_path(name_or_path) -> Path:
    """A sweep file: the path given, or the shipped protocol of that name (``exp1_1``)."""
    path = Path(name_or_path)
    if not path.exists() and path.suffix == "":
        return protocols().get(path.name, path)
    return path


def load_config(path) -> SweepConfig:
    """Read and validate a sweep TOML file (or a shipped protocol named without .toml)."""
    path = protocol_path(path)
    if not path.exists():
        near = did_you_mean(path.stem, builtin_protocols())
        raise SweepConfigError(f"CONFIG: no file {path}; {near + ' (' if near else ''}give a "
                               f"sweep file (TOML) or one of the shipped protocols "
                               f"{', '.join(builtin_protocols())}{')' if near else ''}.")
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
        raise SweepConfigError(f"generator: {gen!r}: {unknown_name(gen, generator_names())}.")
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
    model = _model(data.get("model", {}))
    total = len(seeds) * sum(math.prod(len(v) for v in g.values()) for g in grids)
    _at_most("grid x seeds", total)
    cfg = SweepConfig(generator=gen, grids=grids, seeds=seeds, method=method, name=name,
                      batch_size=batch_size, threads=threads, source=data, model=model)
    # every grid point must build (the generator validates its own parameters)
    for point in cfg.points():
        try:
            build(gen, seeds[0], point, model)
        except (TypeError, ValueError) as exc:
            raise SweepConfigError(f"grid: {point} is not a valid {gen} instance: {exc}") from None
    return cfg


def build(gen: str, seed: int, point: dict, model: dict):
    """The Problem of one grid point and seed, on the sweep's model."""
    from numerics.model import with_model

    problem = generator(gen)(seed=seed, **call_values(point))
    return with_model(problem, seed=seed, **model) if model else problem


def _model(table) -> dict:
    """The [model] table: activation, train, bias, init (numerics.model), checked."""
    if not isinstance(table, dict):
        raise SweepConfigError("model: expected a table (activation, train, bias, init).")
    _unknown(table, MODEL_KEYS, "model.")
    from verify.instances.families import FamilyError, parse_model_option

    try:
        return {k: parse_model_option(k, v) for k, v in table.items()}
    except FamilyError as exc:
        raise SweepConfigError(str(exc).replace("--param ", "model.")) from None


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
    """Refuse a sweep with more rows than the work limit (`verify.language.limits`), counted before
    any list is built."""
    try:
        limits.at_most(f"{where} (rows of the sweep)", count, "sweep_points")
    except limits.LimitError as exc:
        raise SweepConfigError(str(exc)) from None


def _resolve_point(point: dict) -> dict:
    if point.get("p") == "published":
        return dict(point, p=generators.published_width(point["n"]))
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
                f"{where}.{key}: not a parameter of generator {gen!r}; "
                f"{unknown_name(key, allowed)}."
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


def call_values(point: dict) -> dict:
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


