"""Statistics for ensemble evidence: power-law fits and binomial intervals (THEORY N-8).

``fit_power_law(x, y)`` fits log y = log K + alpha log x by ordinary least
squares. With replicates (at least two y at every x) the interval comes from a
percentile bootstrap over replicates within each x (the x design is kept);
otherwise from the t distribution of the OLS slope.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats


class FitError(ValueError):
    """The data cannot support a fit (too few points, non-positive values)."""


@dataclass(frozen=True)
class PowerLawFit:
    exponent: float
    lo: float
    hi: float
    prefactor: float
    level: float
    points: int  # distinct x values
    samples: int  # (x, y) pairs
    method: str  # "bootstrap" or "t-interval"

    @property
    def half_width(self) -> float:
        return 0.5 * (self.hi - self.lo)

    def contains(self, exponent: float) -> bool:
        return self.lo <= exponent <= self.hi

    def __str__(self) -> str:
        return (f"alpha = {self.exponent:.3f}, {100 * self.level:.0f}% CI "
                f"[{self.lo:.3f}, {self.hi:.3f}] ({self.method}, {self.points} values of x, "
                f"{self.samples} samples)")


def _slope(lx: np.ndarray, ly: np.ndarray) -> tuple[float, float]:
    A = np.vstack([lx, np.ones_like(lx)]).T
    (slope, intercept), *_ = np.linalg.lstsq(A, ly, rcond=None)
    return float(slope), float(intercept)


def fit_power_law(x, y, level: float = 0.95, n_boot: int = 2000, seed: int = 0) -> PowerLawFit:
    """Fit y ~ K x^alpha; ``x`` may repeat (replicates)."""
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape:
        raise FitError(f"x and y: need the same length, got {x.size} and {y.size}")
    if not (0 < level < 1):
        raise FitError(f"level: must be in (0, 1), got {level}")
    if np.any(~np.isfinite(x)) or np.any(~np.isfinite(y)) or np.any(x <= 0) or np.any(y <= 0):
        raise FitError("x and y: a power-law fit needs finite positive values")
    xs = np.unique(x)
    if xs.size < 3:
        raise FitError(f"x: need at least 3 distinct values, got {xs.size}")
    lx, ly = np.log(x), np.log(y)
    alpha, intercept = _slope(lx, ly)
    replicated = all(np.sum(x == v) >= 2 for v in xs)
    if replicated:
        rng = np.random.default_rng(seed)
        groups = [np.flatnonzero(x == v) for v in xs]
        boots = np.empty(n_boot)
        for b in range(n_boot):
            idx = np.concatenate([rng.choice(g, size=g.size, replace=True) for g in groups])
            boots[b] = _slope(lx[idx], ly[idx])[0]
        lo, hi = np.quantile(boots, [(1 - level) / 2, (1 + level) / 2])
        method = "bootstrap"
    else:
        resid = ly - (alpha * lx + intercept)
        dof = x.size - 2
        se = np.sqrt(np.sum(resid**2) / dof / np.sum((lx - lx.mean()) ** 2))
        q = stats.t.ppf((1 + level) / 2, dof)
        lo, hi = alpha - q * se, alpha + q * se
        method = "t-interval"
    return PowerLawFit(alpha, float(lo), float(hi), float(np.exp(intercept)), level,
                       int(xs.size), int(x.size), method)


def binomial_interval(successes: int, trials: int, level: float = 0.95) -> tuple[float, float]:
    """Clopper-Pearson (exact) interval for a probability."""
    if trials <= 0 or not 0 <= successes <= trials:
        raise FitError(f"successes/trials: need 0 <= {successes} <= {trials} and trials > 0")
    alpha = 1 - level
    lo = 0.0 if successes == 0 else stats.beta.ppf(alpha / 2, successes, trials - successes + 1)
    hi = 1.0 if successes == trials else stats.beta.ppf(1 - alpha / 2, successes + 1,
                                                          trials - successes)
    return float(lo), float(hi)
