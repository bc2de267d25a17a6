"""What one run of a family's instance costs: a per-family cost model, fitted to the costs
``bench/family_costs.py --write`` measured (``verify/instances/family_costs.json``).

A search refuses a run whose estimate is above ``--max-cost`` (default `DEFAULT_MAX_COST`)
before it starts, instead of a fixed limit on the horizon: "this run would take about 3 h;
pass --max-cost to allow it". The model is a power law in the horizon and the family's
sizes,

    seconds = exp(c) * horizon^a * prod_k size_k^(b_k),

fitted by least squares on the logarithms of the measured runs (the exact flow with its
companion to the family's horizon, one thread) that cost at least a second and 1% of the
family's costliest (cheaper ones are mostly a run's fixed overhead, which flattens the
exponents: with them, orthogonal-asym's n = 2,000 was estimated at 5 min against the
n^2.5 its n = 224 and 1,000 runs show), with a ridge pull of each exponent towards 1
(weight `RIDGE`) so that a family measured at few points still gets a model (the pull
decides an exponent its points do not vary), exponents clipped to [0, 3]. Its ``spread``
is the largest factor between the model and a measured run: an estimate is an order of
magnitude, said as "about". A family with no measured runs (a dataset given with
``--data``, an outside pack's) gets the model fitted to every measured run of every family
(sizes n, p, d only). Runs measured under load (more runnable jobs than cores) make the
estimates upper bounds, which errs on the side of refusing.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources

import numpy as np

from verify.errors import InputError

#: The largest estimated cost of one run a search starts without ``--max-cost`` (seconds):
#: an hour of one core, the `paper` profile's bound on one run (`verify.running.profiles`).
DEFAULT_MAX_COST = 3600.0
RIDGE = 0.05
MIN_SECONDS = 1.0  # runs cheaper than this are left out of a fit (when 2 others remain)
COSTLY_SHARE = 0.01  # ... and runs below this share of the family's costliest
EXPONENT_RANGE = (0.0, 3.0)
#: the size parameters a model may use (integers; the seed is not a size)
SIZES = ("n", "p", "d", "h", "m", "groups", "n_plus", "n_minus", "K", "n_per_class")
_POOLED_SIZES = ("n", "p", "d", "h", "m")


class CostError(InputError):
    """A run whose estimated cost is above ``--max-cost`` (or a bad ``--max-cost``)."""


@dataclass(frozen=True)
class CostModel:
    """A fitted power law: log seconds = ``constant`` + sum of ``exponents[k]`` * log x_k.

    Attributes
    ----------
    family
        The family it was fitted for ("(every family)" for the pooled model).
    constant
        The intercept, in log seconds.
    exponents
        Regressor name -> exponent: ``"horizon"`` and the size parameters.
    spread
        The largest factor (>= 1) between the model and one of the runs it was fitted to.
    runs
        How many measured runs it was fitted to.
    measured
        Regressor name -> (smallest, largest) value among those runs: an estimate beyond
        them is an extrapolation, and says so (`beyond`).
    """

    family: str
    constant: float
    exponents: Mapping[str, float] = field(default_factory=dict)
    spread: float = 1.0
    runs: int = 0
    measured: Mapping[str, tuple[float, float]] = field(default_factory=dict)

    def beyond(self, params: Mapping, horizon: float) -> list[str]:
        """The regressors whose value in ``params`` (or ``horizon``) lies above every
        measured run's (``["d = 256 > 64"]``): the estimate extrapolates in them."""
        out = []
        for name, (_, hi) in self.measured.items():
            x = horizon if name == "horizon" else params.get(name)
            if isinstance(x, int | float) and x > hi * (1 + 1e-9):
                out.append(f"{name} = {x:g} > {hi:g}")
        return out

    def seconds(self, params: Mapping, horizon: float) -> float:
        """The estimated seconds of one run of the instance ``params`` to ``horizon``."""
        log_s = self.constant
        for name, b in self.exponents.items():
            x = horizon if name == "horizon" else params.get(name)
            if isinstance(x, int | float) and x > 0:
                log_s += b * math.log(float(x))
        return math.exp(log_s)

    def describe(self) -> str:
        """The law in words (``gfverify families`` prints it)."""
        terms = " ".join(f"{k}^{b:.2g}" for k, b in self.exponents.items() if b > 0)
        return (f"seconds ~ {math.exp(self.constant):.3g} {terms} (fitted to {self.runs} "
                f"measured runs, within a factor {self.spread:.2g} of each)")


def _fit(family: str, rows: list[dict], names: tuple[str, ...]) -> CostModel | None:
    rows = [r for r in rows if r.get("seconds", 0) > 0 and r.get("horizon", 0) > 0]
    if not rows:
        return None
    # the runs that cost something: below a second a run is mostly the fixed overhead of a
    # run (its setup, the companion's), which flattens the fitted exponents
    top = max(r["seconds"] for r in rows)
    costly = [r for r in rows if r["seconds"] >= max(MIN_SECONDS, COSTLY_SHARE * top)]
    rows = costly if len(costly) >= 2 else rows
    used = ["horizon"] + [k for k in names
                          if all(isinstance(r["params"].get(k), int) and r["params"][k] > 0
                                 for r in rows)]
    Z = np.array([[math.log(r["horizon"] if k == "horizon" else r["params"][k])
                   for k in used] for r in rows])
    y = np.array([math.log(r["seconds"]) for r in rows])
    # ridge towards exponent 1: centre the columns, solve with the penalty rows
    zm, ym = Z.mean(axis=0), y.mean()
    Zc, yc = Z - zm, y - ym - (Z - zm) @ np.ones(len(used))
    A = np.vstack([Zc, math.sqrt(RIDGE) * np.eye(len(used))])
    b = np.concatenate([yc, np.zeros(len(used))])
    delta = np.linalg.lstsq(A, b, rcond=None)[0]
    exps = np.clip(1.0 + delta, *EXPONENT_RANGE)
    const = float(ym - zm @ exps)
    residual = y - (const + Z @ exps)
    spread = float(math.exp(np.max(np.abs(residual)))) if len(rows) else 1.0
    measured = {k: (float(np.exp(Z[:, j].min())), float(np.exp(Z[:, j].max())))
                for j, k in enumerate(used)}
    return CostModel(family, const, dict(zip(used, (float(e) for e in exps), strict=True)),
                     spread, len(rows), measured)


def model_for(name: str, costs: dict | None = None) -> CostModel | None:
    """The cost model of the family ``name`` (its own measured runs, else every family's
    pooled); None when nothing was measured."""
    costs = run_costs() if costs is None else costs
    families = costs.get("families", {})
    own = _fit(name, families.get(name, []), SIZES)
    if own is not None:
        return own
    pooled = [r for rows in families.values() for r in rows]
    return _fit("(every family)", pooled, _POOLED_SIZES)


def duration_text(seconds: float) -> str:
    """``seconds`` as a reader says it: 40 s, 3 min, 2.5 h, 4 days."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 3570:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.2g} h"
    if seconds < 730 * 86400:
        return f"{seconds / 86400:.0f} days"
    return f"{seconds / (365.25 * 86400):.2g} years"


_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*(s|sec|m|min|h|d)?\s*$",
                       re.IGNORECASE)
_UNIT = {None: 1.0, "s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}


def parse_duration(text: str, option: str = "--max-cost") -> float:
    """``text`` (``600``, ``90s``, ``30min``, ``2h``, ``1d``) as seconds > 0; a CostError
    naming ``option`` otherwise."""
    m = _DURATION.match(str(text))
    if not m or float(m.group(1)) <= 0:
        raise CostError(f"{option} {text!r}: expected a duration > 0 such as 600, 90s, "
                        "30min, 2h or 1d")
    return float(m.group(1)) * _UNIT[m.group(2).lower() if m.group(2) else None]


@dataclass(frozen=True)
class Estimate:
    """One run's estimated cost.

    Attributes
    ----------
    seconds
        The model's value, CPU seconds of one core (None: no model, nothing measured).
    model
        The `CostModel` used (None with ``seconds``).
    beyond
        Where the run lies beyond every measured one (`CostModel.beyond`): the estimate
        extrapolates there; empty when it interpolates.
    """

    seconds: float | None
    model: CostModel | None
    beyond: tuple[str, ...] = ()

    def text(self) -> str:
        """The estimate as a reader says it (``about 3 min``, ``about 4 min (extrapolated:
        d = 256 > 64)``)."""
        if self.seconds is None:
            return "an unknown time (no run of any family was measured)"
        more = f" (extrapolated: {', '.join(self.beyond)})" if self.beyond else ""
        return f"about {duration_text(self.seconds)}{more}"


def estimate(family_name: str, params: Mapping, horizon: float) -> Estimate:
    """The estimated cost of one run (the exact flow and its companion) of the family
    ``family_name``'s instance ``params`` to ``horizon``."""
    model = model_for(family_name)
    if model is None:
        return Estimate(None, None)
    return Estimate(model.seconds(params, horizon), model, tuple(model.beyond(params, horizon)))


def refuse_above(family_name: str, params: Mapping, horizon: float,
                 max_cost: float) -> Estimate:
    """The estimate, or a CostError ("this run would take about X; pass --max-cost to
    allow it") when it is above ``max_cost`` seconds."""
    est = estimate(family_name, params, horizon)
    if est.seconds is not None and est.seconds > max_cost:
        sizes = " ".join(f"{k}={params[k]}" for k in SIZES if k in params)
        raise CostError(
            f"this run would take {est.text()} ({family_name} {sizes} to t = {horizon:.4g}; "
            f"the family's cost model: {est.model.describe()}), above --max-cost "
            f"{duration_text(max_cost)}; pass --max-cost to allow it (e.g. --max-cost "
            f"{_ceil_hours(est.seconds)})")
    return est


def _ceil_hours(seconds: float) -> str:
    hours = max(1, math.ceil(seconds / 3600))
    return f"{hours}h" if hours < 48 else f"{math.ceil(hours / 24)}d"




def run_costs() -> dict:
    """The measured cost of one run per family and point (``verify/instances/family_costs.json``,
    written by ``bench/family_costs.py --write``): {"measured": {...}, "families":
    {name: [{"params", "seconds", "steps", "events", ...}, ...]}}; empty when absent."""
    try:
        return json.loads(resources.files("verify.instances").joinpath("family_costs.json")
                          .read_text())
    except (OSError, ValueError):
        return {}


def cost_lines(name: str, costs: dict | None = None) -> list[str]:
    """What one run of the family ``name`` costs at its measured points, as lines for
    ``gfverify families`` (none when it was not measured)."""
    costs = run_costs() if costs is None else costs
    rows = costs.get("families", {}).get(name)
    if not rows:
        return []
    # the family's own measurement (bench/family_costs.py --only keeps each family's)
    m = costs.get("measured_families", {}).get(name) or costs.get("measured", {})
    load = ""
    if m.get("load"):
        low, high = m["load"][:2]
        # more runnable jobs than cores at some point: the times include waiting for one
        busy = (" (other jobs beside it: the times are upper bounds)"
                if high > m.get("cores", 1) else "")
        load = f", load average {low:g}-{high:g}{busy}"
    unit = "CPU seconds of one core" if "unit" in m else "seconds"
    cores = f", {m['cores']} cores" if m.get("cores") else ""
    lines = [f"    one run (exact flow and its companion to the horizon, {unit}; measured "
             f"{m.get('date', '?')}{cores}, one thread{load}):"]

    for row in rows:
        where = " ".join(f"{k}={v}" for k, v in row["params"].items())
        lines.append(f"      {where:<44} {row['seconds']:>8.1f} s  ({row['events']} events, "
                     f"horizon {row['horizon']:g})")
    model = model_for(name, costs)
    if model is not None:  # what --max-cost compares with (verify.instances.run_cost)
        lines.append(f"    cost model (--max-cost): {model.describe()}")
    return lines


__all__ = ["DEFAULT_MAX_COST", "CostError", "CostModel", "Estimate", "cost_lines",
           "duration_text", "estimate", "model_for", "parse_duration", "refuse_above",
           "run_costs"]
