"""Families of instances: named parameter ranges plus a generator.

A family is declared once; from it come a hypothesis strategy (for
``pytest verify`` and counterexample search: shrinking moves towards smaller
sizes and seeds) and a reproducible sampler (for reports), so both draw from
exactly the same ranges. Parameters are small integers (a scale is drawn as
its base-10 exponent), which keeps every instance replayable from its record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from hypothesis import strategies as st

from numerics import Problem, generators


@dataclass(frozen=True)
class IntRange:
    lo: int
    hi: int
    meaning: str


@dataclass(frozen=True)
class Family:
    name: str
    description: str
    params: dict[str, IntRange]
    build: Callable[..., Problem]

    def strategy(self) -> st.SearchStrategy[Problem]:
        draws = {k: st.integers(r.lo, r.hi) for k, r in self.params.items()}
        return st.fixed_dictionaries(draws).map(lambda kw: self.build(**kw))

    def sample(self, rng: np.random.Generator) -> Problem:
        kw = {k: int(rng.integers(r.lo, r.hi + 1)) for k, r in self.params.items()}
        return self.build(**kw)

    def narrowed(self, **ranges: tuple[int, int]) -> Family:
        """The same family with some parameter ranges replaced (checked to stay inside)."""
        params = dict(self.params)
        for k, (lo, hi) in ranges.items():
            if k not in params:
                raise KeyError(f"{self.name}: no parameter {k!r}; it has {sorted(params)}")
            params[k] = replace(params[k], lo=lo, hi=hi)
        return replace(self, params=params)


_SEED = IntRange(0, 2**16, "seed of the instance's random numbers")

TWO_POINT = Family(
    name="two-point",
    description="S002 section 5: x1=(-0.5,1), y1=-1; x2=(2,1), y2=+1; balanced init, "
    "lam = 1e-6/sqrt(p) unless lam_exp is set",
    params={"p": IntRange(10, 60, "width"), "seed": _SEED},
    build=lambda p, seed: generators.two_point(p=p, seed=seed),
)

ORTHONORMAL = Family(
    name="orthonormal",
    description="S002's setting: x_k = e_k in R^d, |y_k| ~ U[0.5,1.5] with both signs and "
    "r > 1, balanced init w_j = lam g_j with lam = 10^-lam_exp",
    params={
        "n": IntRange(2, 5, "samples"),
        "extra_dims": IntRange(0, 3, "d - n"),
        "p": IntRange(30, 60, "width"),
        "lam_exp": IntRange(6, 20, "lam = 10^-lam_exp"),
        "seed": _SEED,
    },
    build=lambda n, extra_dims, p, lam_exp, seed: generators.orthonormal(
        n=n, d=n + extra_dims, p=p, lam=10.0**-lam_exp, seed=seed),
)

FAMILIES = {f.name: f for f in (TWO_POINT, ORTHONORMAL)}


def two_point() -> st.SearchStrategy[Problem]:
    return TWO_POINT.strategy()


def orthonormal(max_n: int | None = None) -> st.SearchStrategy[Problem]:
    fam = ORTHONORMAL if max_n is None else ORTHONORMAL.narrowed(n=(2, max_n))
    return fam.strategy()
