"""Families of instances as hypothesis strategies.

A strategy draws small integers (sizes, a seed, an exponent for the scale) and
builds the Problem from them with a numerics generator, so shrinking moves
towards fewer samples, narrower networks and smaller seeds, and every instance
is replayable from its recorded parameters.
"""

from __future__ import annotations

from hypothesis import strategies as st

from numerics import generators


@st.composite
def two_point(draw, max_width: int = 60):
    """S002's two-point example with a random balanced initialisation."""
    p = draw(st.integers(min_value=10, max_value=max_width))
    seed = draw(st.integers(min_value=0, max_value=2**16))
    return generators.two_point(p=p, seed=seed)


@st.composite
def orthonormal(draw, max_n: int = 5, max_extra_dims: int = 3, min_width: int = 30,
                max_width: int = 60, lam_exponents: tuple[int, int] = (6, 20)):
    """S002's setting: orthonormal data in R^d (d >= n), random labels, small balanced init.

    lam = 10^-k with k drawn from ``lam_exponents``.
    """
    n = draw(st.integers(min_value=2, max_value=max_n))
    d = n + draw(st.integers(min_value=0, max_value=max_extra_dims))
    p = draw(st.integers(min_value=min_width, max_value=max_width))
    k = draw(st.integers(min_value=lam_exponents[0], max_value=lam_exponents[1]))
    seed = draw(st.integers(min_value=0, max_value=2**16))
    return generators.orthonormal(n=n, d=d, p=p, lam=10.0**-k, seed=seed)
