"""BF25B quantities: vocabulary name -> number (merged into `verify.language.measures` as a
pack's measures module; INSTANCE table with the contracts there).

- The population field D(u) = E[1{<u, x> > 0} y x] of a `papers.bf25b.data` instance, at the
  directions of its first `DIRECTIONS` neurons' starts, by Monte Carlo on `POP_SAMPLES` fresh
  draws of the same law (BF25B-F1). Its error is an upper bound that holds with probability
  1 - `POP_DELTA` for all the directions at once: Chebyshev's inequality on |D_N(u) - D(u)|
  with the exact second moment E|1{<u,x>>0} y x|^2 = (|beta*|^2 (d + 2) + sigma^2 d)/2
  (x ~ N(0, I_d), xi symmetric: the integrand is even, so the indicator halves it) and a
  union bound over the directions: eps = sqrt(K M2 / (N delta)). Loose (a CLT band would be
  about 40 times narrower) but not asymptotic.
- The extremal vectors of D_n on the sample (`papers.bf25b.extremal`, each verified exactly)
  and the largest angle between one of sign s and s beta*/|beta*| (BF25B-T3.1).

Quantities shared with BF25 (its OLS estimator, OLSGap, LossInf) are BF25's, used by name.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from numerics import Problem
from papers.bf25b import extremal
from papers.bf25b.data import teacher
from papers.s002.measures import Measured
from verify.language.measures import UndefinedQuantity

#: fresh draws of the Monte Carlo population field
POP_SAMPLES = 2_000_000
#: the probability that the population field's error bound fails (all directions together)
POP_DELTA = 1e-3
#: the population field is read at the starts of this many neurons
DIRECTIONS = 8
#: starts of the extremal-vector search on an instance
STARTS = 16
_CHUNK = 250_000
_POP_STREAM = 2410_02348  # the Monte Carlo's stream: numpy's SeedSequence((this, seed))


def _law(problem: Problem) -> tuple[np.ndarray, float, int]:
    try:
        beta = teacher(problem)
    except ValueError as exc:
        raise UndefinedQuantity(str(exc)) from None
    if problem.meta.get("law") != "gaussian":
        raise UndefinedQuantity("the population field is computed for Gaussian inputs "
                                f"(meta['law'] is {problem.meta.get('law')!r})")
    return beta, float(problem.meta.get("noise", 0.0)), int(problem.meta.get("seed", 0))


def second_moment(beta: np.ndarray, noise: float) -> float:
    """E|1{<u, x> > 0} y x|^2 for x ~ N(0, I_d), y = <beta, x> + noise xi (exact)."""
    d = beta.size
    return 0.5 * (float(beta @ beta) * (d + 2) + noise**2 * d)


def monte_carlo_field(beta: np.ndarray, noise: float, U: np.ndarray, samples: int,
                      seed: int) -> np.ndarray:
    """D_N(u) for each row u of ``U``, on ``samples`` fresh draws (x, xi) (rows: directions)."""
    rng = np.random.default_rng((_POP_STREAM, seed))
    total = np.zeros((U.shape[0], beta.size))
    left = samples
    while left > 0:
        k = min(_CHUNK, left)
        X = rng.standard_normal((k, beta.size))
        y = X @ beta + noise * rng.standard_normal(k)
        on = (X @ U.T) > 0  # (k, K)
        total += (on * y[:, None]).T @ X
        left -= k
    return total / samples


@functools.lru_cache(maxsize=64)
def population_field(problem: Problem) -> tuple[np.ndarray, np.ndarray, float]:
    """(coefficients along beta*, orthogonal parts / |beta*|, their common error bound) of
    D(u) at the first `DIRECTIONS` neurons' start directions (module docstring)."""
    beta, noise, seed = _law(problem)
    U = problem.W0[:DIRECTIONS]
    U = U / np.linalg.norm(U, axis=1, keepdims=True)
    D = monte_carlo_field(beta, noise, U, POP_SAMPLES, seed)
    bb = float(beta @ beta)
    along = D @ beta / bb
    orth = np.linalg.norm(D - along[:, None] * beta, axis=1) / math.sqrt(bb)
    eps = math.sqrt(U.shape[0] * second_moment(beta, noise) / (POP_SAMPLES * POP_DELTA))
    return along, orth, eps / math.sqrt(bb)


def _pop(pick):
    def fn(problem: Problem) -> float:
        along, orth, err = population_field(problem)
        return Measured(float(pick(along, orth)), err)
    return fn


@functools.lru_cache(maxsize=256)
def extremal_search(problem: Problem) -> extremal.Search:
    """The extremal vectors of D_n on ``problem``'s sample, from `STARTS` random starts (drawn
    from the instance's seed) and the directions of +-beta* (memoised by content)."""
    beta, _, seed = _law(problem)
    rng = np.random.default_rng((_POP_STREAM, seed, 1))
    starts = np.vstack([extremal.random_starts(problem.d, STARTS, rng), beta, -beta])
    return extremal.search(problem.X, problem.y, starts, problem.loss_scale)


def extremal_angle(problem: Problem) -> float:
    """ExtremalAngle: the largest angle between a found extremal vector u of sign s and
    s beta*/|beta*| (exact to rounding: each vector is verified); undefined unless vectors of
    both signs were resolved."""
    result = extremal_search(problem)
    missing = [name for sign, name in ((1, "positive"), (-1, "negative"))
               if not result.of_sign(sign)]
    if missing:
        raise UndefinedQuantity(f"no {' or '.join(missing)} extremal vector resolved from "
                                f"{result.starts} starts ({result.unresolved} unresolved)")
    angle = extremal.largest_angle(result, teacher(problem))
    return Measured(angle, 1e-9)


INSTANCE = {
    "PopFieldAlongMax": _pop(lambda along, orth: along.max()),
    "PopFieldAlongMin": _pop(lambda along, orth: along.min()),
    "PopFieldOrth": _pop(lambda along, orth: orth.max()),
    "ExtremalAngle": extremal_angle,
}
