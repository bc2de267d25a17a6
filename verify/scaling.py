"""Statistics of ensemble claims: power-law fits and binomial intervals.

`fit_power_law(x, y)`: ordinary least squares of log y on log x, pooled over
every point (x may repeat: replicates). The interval on the exponent is

- a percentile bootstrap over replicates, resampled within each x value
  (``method == "bootstrap"``), when every x has at least two replicates (THEORY
  N-8: "OLS in log-log over a range of n, with a CI from bootstrap over
  repetitions");
- otherwise the two-sided t-interval of the OLS slope with N - 2 degrees of
  freedom (``method == "t-interval"``).

The t-interval is always computed too (``t_lo``, ``t_hi``). Both measure scatter
only: curvature of the law over the range (pre-asymptotic sizes) is not in them.

`binomial_interval(hits, total)`: the exact (Clopper-Pearson) interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

BOOTSTRAP_SAMPLES = 2000


class FitError(ValueError):
    """Too few or invalid points for a fit."""


@dataclass(frozen=True)
class PowerLawFit:
    """y ~ prefactor * x**exponent with an interval [lo, hi] on the exponent."""

    exponent: float
    prefactor: float
    lo: float
    hi: float
    method: str  # "bootstrap" or "t-interval"
    level: float
    points: int
    stderr: float
    t_lo: float
    t_hi: float

    @property
    def half_width(self) -> float:
        return 0.5 * (self.hi - self.lo)

    def contains(self, exponent: float) -> bool:
        return self.lo <= exponent <= self.hi

    def __str__(self) -> str:
        return (f"exponent {self.exponent:.3f}, {100 * self.level:.0f}% interval "
                f"[{self.lo:.3f}, {self.hi:.3f}] ({self.method}, {self.points} points)")


@dataclass(frozen=True)
class Coefficient:
    """One least-squares coefficient with its two-sided t-interval at ``level``."""

    value: float
    lo: float
    hi: float
    stderr: float


def ols(design, y, level: float = 0.95) -> list[Coefficient]:
    """Ordinary least squares of ``y`` on the columns of ``design``, with t-intervals: the
    one regression every fit of gfverify uses (`line_fit` for a straight line)."""
    X = np.asarray(design, dtype=float)
    ya = np.asarray(y, dtype=float)
    coef, *_ = np.linalg.lstsq(X, ya, rcond=None)
    dof = len(ya) - X.shape[1]
    resid = ya - X @ coef
    sigma2 = float(resid @ resid) / dof if dof > 0 else math.inf
    se = np.sqrt(np.diag(sigma2 * np.linalg.inv(X.T @ X)))
    q = float(stats.t.ppf(0.5 + level / 2, dof)) if dof > 0 else math.inf
    return [Coefficient(float(c), float(c - q * e), float(c + q * e), float(e))
            for c, e in zip(coef, se, strict=True)]


def line_fit(x, y, level: float = 0.95) -> tuple[Coefficient, Coefficient, float]:
    """y = slope x + intercept by `ols`: (slope, intercept, R^2)."""
    xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    slope, intercept = ols(np.column_stack([xa, np.ones_like(xa)]), ya, level)
    resid = ya - (slope.value * xa + intercept.value)
    total = float(np.sum((ya - ya.mean()) ** 2))
    r2 = 1.0 - float(resid @ resid) / total if total > 0 else math.nan
    return slope, intercept, r2


def _slope(x: np.ndarray, y: np.ndarray) -> float:
    """The least-squares slope alone (the bootstrap's inner loop)."""
    xm = x.mean()
    return float(np.sum((x - xm) * (y - y.mean())) / np.sum((x - xm) ** 2))


def fit_power_law(x: Sequence[float], y: Sequence[float], level: float = 0.95,
                  bootstrap: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> PowerLawFit:
    """Fit y = K x**alpha in log-log (see the module docstring for the interval)."""
    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    if xa.shape != ya.shape or xa.ndim != 1:
        raise FitError(f"x and y must be 1-d of the same length, got {xa.shape} and {ya.shape}")
    if not (np.all(np.isfinite(xa)) and np.all(np.isfinite(ya))
            and np.all(xa > 0) and np.all(ya > 0)):
        raise FitError("a power-law fit needs positive, finite x and y")
    lx, ly = np.log(xa), np.log(ya)
    values = np.unique(lx)
    if lx.size < 3 or values.size < 2:
        raise FitError(f"a power-law fit needs at least 3 points at 2 or more distinct x, got "
                       f"{lx.size} points at {values.size}")
    if not 0 < level < 1:
        raise FitError(f"level: a confidence level in (0, 1), got {level!r}")
    fit, intercept_fit, _ = line_fit(lx, ly, level)
    slope, intercept, stderr = fit.value, intercept_fit.value, fit.stderr
    t_lo, t_hi = fit.lo, fit.hi
    groups = [np.flatnonzero(lx == v) for v in values]
    if all(g.size >= 2 for g in groups):
        rng = np.random.default_rng(seed)
        slopes = np.empty(bootstrap)
        for b in range(bootstrap):
            idx = np.concatenate([rng.choice(g, size=g.size, replace=True) for g in groups])
            slopes[b] = _slope(lx[idx], ly[idx])
        lo, hi = np.quantile(slopes, [0.5 - level / 2, 0.5 + level / 2])
        method = "bootstrap"
    else:
        lo, hi, method = t_lo, t_hi, "t-interval"
    return PowerLawFit(exponent=slope, prefactor=math.exp(intercept), lo=float(lo),
                       hi=float(hi), method=method, level=level, points=int(lx.size),
                       stderr=stderr, t_lo=float(t_lo), t_hi=float(t_hi))


def binomial_interval(hits: int, total: int, level: float = 0.95) -> tuple[float, float]:
    """Exact two-sided (Clopper-Pearson) interval for a binomial proportion."""
    if total < 1 or not 0 <= hits <= total:
        raise FitError(f"binomial_interval: need 0 <= hits <= total and total >= 1, got "
                       f"{hits}/{total}")
    alpha = 1 - level
    lo = 0.0 if hits == 0 else float(stats.beta.ppf(alpha / 2, hits, total - hits + 1))
    hi = 1.0 if hits == total else float(stats.beta.ppf(1 - alpha / 2, hits + 1, total - hits))
    return lo, hi


__all__ = ["Coefficient", "FitError", "PowerLawFit", "binomial_interval", "fit_power_law",
           "line_fit", "ols"]
