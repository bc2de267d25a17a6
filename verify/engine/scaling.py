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
only: curvature of the law over the range (pre-asymptotic sizes) is not in them. A law
claimed to leading order only (O(eta) as eta -> 0) is fitted with one correction term of
the next order (``correction``), so that curvature the claim allows is not read as a
different exponent.

`fit_limit(s, q, errors)`: q = limit + K s**a as s -> 0 (a LIMIT claim's sequence), the
exponent's band from the profile likelihood over a grid of exponents and the limit's band
over it, widened by the values' own errors (OLS at each exponent).

`binomial_interval(hits, total)`: the exact (Clopper-Pearson) interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

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
    #: with a correction term (``fit_power_law(correction=z)``): its coefficient gamma and
    #: its largest size over the points, |gamma| max |z| (0 without one)
    correction: float = 0.0
    correction_size: float = 0.0

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
                  bootstrap: int = BOOTSTRAP_SAMPLES, seed: int = 0,
                  correction: Sequence[float] | None = None) -> PowerLawFit:
    """Fit y = K x**alpha in log-log (see the module docstring for the interval).

    ``correction`` (one value per point, z): fit log y = c + alpha log x + gamma z instead,
    a law claimed to leading order with a relative correction of order z (z = eta for
    "O(eta) as eta -> 0"). A deterministic series' residuals are the orders the model
    leaves out, not noise, so the interval on alpha is the t-interval of that regression
    (N - 3 degrees of freedom) widened to MODEL_SAFETY times the exponent's move when the
    order after it (z^2) is fitted too: the omitted orders' pull (``method == "corrected
    fit"``). ``correction_size`` = |gamma| max |z| says whether the correction is small
    over the range."""
    if correction is not None:
        return _fit_corrected(x, y, correction, level)
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


#: the factor on the exponent's move when the next order is fitted (the corrected fit's
#: model error), as on every error estimate (`verify.language.measures.ERROR_SAFETY`)
MODEL_SAFETY = 3.0


def _fit_corrected(x, y, z, level: float) -> PowerLawFit:
    xa, ya, za = (np.asarray(v, dtype=float) for v in (x, y, z))
    if not (xa.shape == ya.shape == za.shape and xa.ndim == 1):
        raise FitError(f"x, y and the correction must be 1-d of the same length, got "
                       f"{xa.shape}, {ya.shape} and {za.shape}")
    if not (np.all(np.isfinite(xa)) and np.all(np.isfinite(ya)) and np.all(np.isfinite(za))
            and np.all(xa > 0) and np.all(ya > 0)):
        raise FitError("a power-law fit needs positive, finite x and y")
    lx, ly = np.log(xa), np.log(ya)
    if lx.size < 4 or np.unique(lx).size < 4:
        raise FitError(f"a power-law fit with a correction term needs at least 4 distinct x, "
                       f"got {lx.size} points at {np.unique(lx).size}")
    if not 0 < level < 1:
        raise FitError(f"level: a confidence level in (0, 1), got {level!r}")

    one = np.column_stack([lx, np.ones_like(lx), za])
    two = np.column_stack([one, za ** 2])  # with the order after the correction too
    if np.linalg.matrix_rank(two) < 4:
        raise FitError("the correction term is not independent of the law over these points "
                       "(a constant or a power of x itself)")
    alpha, intercept, gamma = ols(one, ly, level)
    # the omitted orders' pull on the exponent: how far the next one moves it, with the
    # safety factor every error estimate of gfverify carries
    shift = MODEL_SAFETY * abs(float(np.linalg.lstsq(two, ly, rcond=None)[0][0]) - alpha.value)
    lo, hi = min(alpha.lo, alpha.value - shift), max(alpha.hi, alpha.value + shift)
    return PowerLawFit(exponent=alpha.value, prefactor=math.exp(intercept.value), lo=lo, hi=hi,
                       method="corrected fit", level=level, points=int(lx.size),
                       stderr=alpha.stderr, t_lo=alpha.lo, t_hi=alpha.hi,
                       correction=gamma.value,
                       correction_size=abs(gamma.value) * float(np.max(np.abs(za))))


#: exponents the profile of `fit_limit` is evaluated at (a band that reaches an end of this
#: grid is open on that side)
LIMIT_EXPONENTS = np.geomspace(1e-3, 8.0, 481)


@dataclass(frozen=True)
class LimitFit:
    """q ~ limit + K s**exponent as s -> 0 (`fit_limit`): the exponent with its profile
    likelihood band, and the limit's band over the exponents in it, widened by the values'
    own errors.

    Attributes
    ----------
    exponent, lo, hi
        The best exponent and its band ([lo, hi] within `LIMIT_EXPONENTS`).
    limit, limit_lo, limit_hi
        The extrapolated limit at the best exponent, and its band: the union over the
        exponents in [lo, hi] of the intercept's t-interval, widened by sum_k |w_k| e_k
        (w the intercept's weights on the values, e their errors).
    level, points
        The confidence level and how many values were fitted.
    """

    exponent: float
    lo: float
    hi: float
    limit: float
    limit_lo: float
    limit_hi: float
    level: float
    points: int

    @property
    def converges(self) -> bool:
        """Whether the band's exponents are all above 0 (the band does not reach the grid's
        lower end): the values approach a limit."""
        return self.lo > LIMIT_EXPONENTS[0]


def fit_limit(s: Sequence[float], q: Sequence[float], errors: Sequence[float] | None = None,
              level: float = 0.95) -> LimitFit:
    """Fit q = limit + K s**exponent (s > 0 decreasing to 0): for each exponent of
    `LIMIT_EXPONENTS` the two others by `ols`; the exponent's band is the profile
    likelihood's, {a : RSS(a) <= RSS_min (1 + F_{1, N-3}(level)/(N - 3))}, and the limit's
    band the union over it of the intercept's t-interval, widened by the values' errors."""
    sa, qa = np.asarray(s, dtype=float), np.asarray(q, dtype=float)
    ea = np.zeros_like(qa) if errors is None else np.asarray(errors, dtype=float)
    if sa.shape != qa.shape or sa.ndim != 1 or ea.shape != qa.shape:
        raise FitError("s, q, errors must be 1-d of one length")
    if not (np.all(np.isfinite(sa)) and np.all(sa > 0) and np.all(np.isfinite(qa))):
        raise FitError("a limit fit needs positive, finite s and finite q")
    if sa.size < 4 or np.unique(sa).size < 3:
        raise FitError(f"a limit fit (3 constants) needs at least 4 values at 3 or more s, "
                       f"got {sa.size}")
    if not 0 < level < 1:
        raise FitError(f"level: a confidence level in (0, 1), got {level!r}")
    scale = float(np.max(sa))
    u = sa / scale

    def design(a: float) -> np.ndarray:
        return np.column_stack([np.ones_like(u), u**a])

    def rss(a: float) -> float:
        coef, *_ = np.linalg.lstsq(design(a), qa, rcond=None)
        resid = qa - design(a) @ coef
        return float(resid @ resid)

    grid = LIMIT_EXPONENTS
    values = np.array([rss(a) for a in grid])
    k = int(np.argmin(values))
    lo_a, hi_a = grid[max(k - 1, 0)], grid[min(k + 1, grid.size - 1)]
    best_a = float(optimize.minimize_scalar(rss, bounds=(lo_a, hi_a), method="bounded",
                                            options={"xatol": 1e-10}).x)
    best_rss = min(rss(best_a), float(values[k]))
    if values[k] < rss(best_a):
        best_a = float(grid[k])
    dof = sa.size - 3
    cut = best_rss * (1.0 + float(stats.f.ppf(level, 1, dof)) / dof)
    below = np.flatnonzero((values > cut) & (grid < best_a))
    lo = grid[0] if below.size == 0 else float(optimize.brentq(
        lambda a: rss(a) - cut, grid[below[-1]], best_a))
    above = np.flatnonzero((values > cut) & (grid > best_a))
    hi = grid[-1] if above.size == 0 else float(optimize.brentq(
        lambda a: rss(a) - cut, best_a, grid[above[0]]))
    lows, highs = [], []
    for a in np.union1d(np.linspace(lo, hi, 41), [best_a]):
        X = design(a)
        intercept = ols(X, qa, level)[0]
        spread = float(np.abs(np.linalg.pinv(X)[0]) @ ea)
        lows.append(intercept.lo - spread)
        highs.append(intercept.hi + spread)
    best = ols(design(best_a), qa, level)[0]
    return LimitFit(exponent=best_a, lo=float(lo), hi=float(hi), limit=best.value,
                    limit_lo=float(min(lows)), limit_hi=float(max(highs)), level=level,
                    points=int(sa.size))


def binomial_interval(hits: int, total: int, level: float = 0.95) -> tuple[float, float]:
    """Exact two-sided (Clopper-Pearson) interval for a binomial proportion."""
    if total < 1 or not 0 <= hits <= total:
        raise FitError(f"binomial_interval: need 0 <= hits <= total and total >= 1, got "
                       f"{hits}/{total}")
    alpha = 1 - level
    lo = 0.0 if hits == 0 else float(stats.beta.ppf(alpha / 2, hits, total - hits + 1))
    hi = 1.0 if hits == total else float(stats.beta.ppf(1 - alpha / 2, hits + 1, total - hits))
    return lo, hi


__all__ = ["Coefficient", "FitError", "LimitFit", "PowerLawFit", "binomial_interval",
           "fit_limit", "fit_power_law", "line_fit", "ols"]
