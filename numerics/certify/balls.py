"""Ball arithmetic on numpy arrays: a midpoint and a radius per entry, rigorous in float64.

A `Ball` stands for every real array within ``rad`` of ``mid`` entrywise. Each operation
returns a Ball that contains every exact result, computed with numpy's IEEE double
arithmetic in round-to-nearest (no change of rounding mode): the rounding of the midpoint
is bounded by u |result| per operation (u = 2^-53) and by gamma_m = m u / (1 - m u) for a
sum of m terms in any order (Higham, *Accuracy and Stability of Numerical Algorithms*,
2nd ed., Lemma 3.1 and eq. 3.5; BLAS may use any order and fused multiply-adds), and every
radius, a sum of non-negative terms computed in floating point, is rounded up by the
factor `up` applies (its own rounding included). Underflow is covered by adding `TINY`,
far above the 2^-1074 a subnormal rounding can lose.

Only what the certificates need: +, -, entrywise x, scaling by a float, matrix products,
sums, polynomials in one variable (coefficient arrays along axis 0) and their bounds on an
interval [0, h]. Round-to-nearest is checked when the module is imported
(`check_rounding`), and the one transcendental function the bounds need, exp, goes
through Arb (`exp_up`), whose error bounds are proven, not through numpy's libm.
"""

from __future__ import annotations

import math

import numpy as np
from flint import arb

U = 2.0**-53
TINY = 2.0**-1000
# sums longer than this are refused (the rounding factor below assumes m u < 2^-30)
MAX_TERMS = 2**20


def up(x, terms: int = 1):
    """``x`` (non-negative, computed from exact non-negative terms by at most ``terms``
    + 4 roundings in sequence or a sum of ``terms`` entries) rounded up past the exact
    value: (1 - u)^-(m + 4) <= 1 + 2 (m + 4) u, and the multiplication's own rounding is
    absorbed by doubling that."""
    if terms > MAX_TERMS:
        raise ValueError(f"a sum of {terms} terms is longer than {MAX_TERMS}")
    return x * (1.0 + 4.0 * (terms + 4) * U) + TINY


class RoundingModeError(RuntimeError):
    """The floating-point unit does not round to nearest: no bound here would hold."""


def check_rounding() -> None:
    """Refuse to run unless Python's and numpy's float64 arithmetic round to nearest (ties
    to even) with a 53-bit significand: each test below comes out differently under
    rounding up, down or towards zero, or in another precision."""
    one, x, y = 1.0, 2.0**-60, 3.0 * 2.0**-54
    arr = np.array([1.0, -1.0])
    checks = [
        one + x == one, one + y == one + 2.0**-52, -one - x == -one,
        -one - y == -one - 2.0**-52, one + 2.0**-53 == one, np.finfo(np.float64).nmant == 52,
        bool(np.all(arr + np.array([x, -x]) == arr)),
        bool(np.all(arr + np.array([y, -y]) == arr * (1.0 + 2.0**-52))),
        bool(np.all((arr * (1.0 + 2.0**-52)) * (1.0 - 2.0**-53) == arr)),
    ]
    if not all(checks):
        raise RoundingModeError("float64 arithmetic does not round to nearest here: the "
                                "certificates' rounding bounds assume it")


check_rounding()


def float_up(value: arb) -> float:
    """The smallest float >= every number of the arb ``value`` (finite)."""
    top = value.upper()
    out = float(top)
    if not math.isfinite(out):
        raise OverflowError(f"{value} has no finite float upper bound")
    if arb(out) < top:
        out = math.nextafter(out, math.inf)
    return out


def float_down(value: arb) -> float:
    """The largest float <= every number of the arb ``value`` (finite)."""
    return -float_up(-value)


def exp_up(x: float) -> float:
    """An upper bound of exp(x) for the float ``x`` (Arb: a proven enclosure)."""
    return float_up(arb(float(x)).exp())


def _gamma(m: int) -> float:
    return m * U / (1.0 - m * U) * (1.0 + 4.0 * U)


class Ball:
    """Entrywise balls: every real array X with |X - mid| <= rad."""

    __slots__ = ("mid", "rad")

    def __init__(self, mid, rad=None) -> None:
        self.mid = np.asarray(mid, dtype=np.float64)
        self.rad = (np.zeros_like(self.mid) if rad is None
                    else np.array(np.broadcast_to(np.asarray(rad, dtype=np.float64),
                                                  self.mid.shape)))
        if np.any(self.rad < 0) or np.any(np.isnan(self.rad)):
            raise ValueError("a Ball's radius must be non-negative")

    @classmethod
    def _of(cls, mid: np.ndarray, rad: np.ndarray) -> Ball:
        """A ball from arrays the operations below computed (no copy, no check)."""
        out = object.__new__(cls)
        out.mid, out.rad = mid, rad
        return out

    @classmethod
    def exact(cls, values) -> Ball:
        """Float values taken exactly (radius 0): data, initial weights, stored floats."""
        mid = np.array(values, dtype=np.float64)
        return cls._of(mid, np.zeros_like(mid))

    @classmethod
    def hull(cls, lo, hi) -> Ball:
        """The smallest ball (rounded out) holding [lo, hi] entrywise."""
        lo, hi = np.asarray(lo, float), np.asarray(hi, float)
        mid = 0.5 * (lo + hi)  # halving is exact; the sum rounds: covered by the radius
        rad = up(np.maximum(hi - mid, mid - lo), 2)
        return cls._of(mid, rad)

    @property
    def shape(self):
        return self.mid.shape

    @property
    def ndim(self) -> int:
        return self.mid.ndim

    def __getitem__(self, key) -> Ball:
        return Ball._of(self.mid[key], self.rad[key])

    @property
    def T(self) -> Ball:
        return Ball._of(self.mid.T, self.rad.T)

    def reshape(self, *shape) -> Ball:
        return Ball._of(self.mid.reshape(*shape), self.rad.reshape(*shape))

    def magnitude(self) -> np.ndarray:
        """An upper bound of |X| entrywise."""
        return up(np.abs(self.mid) + self.rad)

    def lower(self) -> np.ndarray:
        """A lower bound of X entrywise."""
        return sub_down(self.mid, self.rad)

    def upper(self) -> np.ndarray:
        """An upper bound of X entrywise."""
        return add_up(self.mid, self.rad)

    def __setitem__(self, key, ball: Ball) -> None:
        self.mid[key] = ball.mid
        self.rad[key] = ball.rad

    def widen(self, r) -> Ball:
        """Every array within ``r`` (>= 0) of one of this ball's."""
        return Ball._of(self.mid, up(self.rad + r))

    def contains(self, values) -> np.ndarray:
        """Whether the floats ``values`` lie in the ball (entrywise; rounding taken
        against the check, so a True is certain)."""
        gap = np.abs(np.asarray(values, float) - self.mid)  # rounds: compared with slack
        return gap * (1.0 + 4.0 * U) <= self.rad

    # --- arithmetic -------------------------------------------------------------------
    def _coerce(self, other) -> Ball:
        return other if isinstance(other, Ball) else Ball.exact(other)

    def __add__(self, other) -> Ball:
        other = self._coerce(other)
        mid = self.mid + other.mid
        return Ball._of(mid, up(self.rad + other.rad + U * np.abs(mid), 3))

    __radd__ = __add__

    def __neg__(self) -> Ball:
        return Ball._of(-self.mid, self.rad)

    def __sub__(self, other) -> Ball:
        return self + (-self._coerce(other))

    def __rsub__(self, other) -> Ball:
        return self._coerce(other) + (-self)

    def __mul__(self, other) -> Ball:
        other = self._coerce(other)
        mid = self.mid * other.mid
        rad = (np.abs(self.mid) * other.rad + self.rad * (np.abs(other.mid) + other.rad)
               + U * np.abs(mid))
        return Ball._of(mid, up(rad, 6))

    __rmul__ = __mul__

    def divide(self, other: Ball) -> Ball:
        """Entrywise quotient by a ball of positive numbers (other.mid > other.rad)."""
        bm, br = other.mid, other.rad
        if np.any(bm - br <= 0):
            raise ValueError("a divisor ball reaches 0")
        mid = self.mid / bm
        rad = (self.rad * bm + np.abs(self.mid) * br) / sub_down(bm, br) / bm
        return Ball._of(mid, up(rad + U * np.abs(mid), 6))

    def scale(self, c: float) -> Ball:
        """Times the float ``c`` (taken exactly)."""
        mid = self.mid * c
        return Ball._of(mid, up(abs(c) * self.rad + U * np.abs(mid), 3))

    def __matmul__(self, other) -> Ball:
        other = self._coerce(other)
        m = self.mid.shape[-1]
        mid = self.mid @ other.mid
        am, bm = np.abs(self.mid), np.abs(other.mid)
        rad = am @ (other.rad + _gamma(m) * bm) + self.rad @ (bm + other.rad)
        return Ball._of(mid, up(rad, m + 4))

    def sum(self, axis) -> Ball:
        m = self.mid.shape[axis]
        mid = self.mid.sum(axis=axis)
        rad = self.rad.sum(axis=axis) + _gamma(m) * np.abs(self.mid).sum(axis=axis)
        return Ball._of(mid, up(rad, m + 2))


def sub_down(a, b):
    """A lower bound of a - b for float arrays: fl(a - b) is within u |fl(a - b)| of it, and
    the correction's own subtraction within u of its result, so 4u |d| + TINY covers both."""
    d = np.asarray(a, float) - b
    return d - (np.abs(d) * (4.0 * U) + TINY)


def add_up(a, b):
    """An upper bound of a + b for float arrays (as `sub_down`)."""
    d = np.asarray(a, float) + b
    return d + (np.abs(d) * (4.0 * U) + TINY)


def stack(balls, axis: int = 0) -> Ball:
    return Ball._of(np.stack([b.mid for b in balls], axis),
                    np.stack([b.rad for b in balls], axis))


def zeros(shape) -> Ball:
    return Ball._of(np.zeros(shape), np.zeros(shape))


# --- polynomials in one variable: coefficient k along axis 0 -----------------------------

def poly_mul(A: Ball, B: Ball) -> Ball:
    """The product of two polynomials (entrywise in the trailing axes, broadcast)."""
    return _convolve(A, B, None)


def poly_einsum(subscripts: str, A: Ball, B: Ball) -> Ball:
    """The product of two polynomials whose coefficients are combined by ``subscripts``
    (an `numpy.einsum` of two operands without the polynomial axis, e.g. ``"j,ji->i"``):
    C_m = sum_k einsum(A_k, B_{m-k}), a product and a contraction in one pass.

    Every entry of C_m is a sum of products: einsum adds the c terms of a contraction in
    some order (one rounding for each product, at most c - 1 additions deep: within
    gamma_{c+1} of their magnitudes' sum, Higham, Lemma 3.1 applied to the summation
    tree), then the loop below adds those sums one after the other, each addition within
    u of its computed result (summed as it goes)."""
    return _convolve(A, B, subscripts)


def _convolve(A: Ball, B: Ball, subscripts: str | None) -> Ball:
    KA, KB = A.shape[0], B.shape[0]
    if subscripts is None:
        sa = sb = out = None
        contracted, batch = 1, True
        shape = np.broadcast_shapes(A.shape[1:], B.shape[1:])
    else:
        ins, out = subscripts.replace(" ", "").split("->")
        sa, sb = ins.split(",")
        if "k" in subscripts or "m" in subscripts:
            raise ValueError("poly_einsum: the indices k and m are the polynomials'")
        sizes = dict(zip(sa, A.shape[1:], strict=True))
        sizes.update(zip(sb, B.shape[1:], strict=True))
        summed = [c for c in sa if c in sb and c not in out]
        contracted = int(np.prod([sizes[c] for c in set(sa + sb) - set(out)], dtype=np.int64))
        batch = (any(c in sb and c in out for c in sa) or len(set(sa)) < len(sa)
                 or len(set(sb)) < len(sb))
        shape = tuple(sizes[c] for c in out)
    if contracted + 1 > MAX_TERMS:
        raise ValueError(f"a sum of {contracted} terms is longer than {MAX_TERMS}")
    g = _gamma(contracted + 1)
    Bm_abs = np.abs(B.mid)
    Bwide = B.rad + g * Bm_abs  # rounding of the contraction folded in (Ball.__matmul__)
    inexact = bool(np.any(A.rad))
    Bsup = Bm_abs + B.rad if inexact else None
    mid = np.zeros((KA + KB - 1, *shape))
    err = np.zeros_like(mid)
    added = np.zeros_like(mid)  # the partial sums' magnitudes
    if not batch:  # a contraction: every (k, m) pair at once, one BLAS product each
        def products(x, y):
            t = np.tensordot(y, x, axes=([1 + sb.index(c) for c in summed],
                                         [1 + sa.index(c) for c in summed]))
            labels = (["m"] + [c for c in sb if c not in summed] + ["k"]
                      + [c for c in sa if c not in summed])
            return t.transpose([labels.index(c) for c in "km" + out])

        prod = products(A.mid, B.mid)
        wide = products(np.abs(A.mid), Bwide)
        if inexact:
            wide = wide + products(A.rad, Bsup)
        for k in range(KA):  # C_m = sum_k (A_k B_{m-k}), added one k after the other
            span = slice(k, k + KB)
            mid[span] += prod[k]
            added[span] += np.abs(mid[span])
            err[span] += wide[k]
    else:  # entrywise products (broadcast): one k at a time
        if subscripts is None:
            def product(x, y):
                return x * y
        else:
            per_k = f"{sa},m{sb}->m{out}"

            def product(x, y):
                return np.einsum(per_k, x, y)
        for k in range(KA):
            span = slice(k, k + KB)
            mid[span] += product(A.mid[k], B.mid)
            added[span] += np.abs(mid[span])
            err[span] += product(np.abs(A.mid[k]), Bwide)
            if inexact:
                err[span] += product(A.rad[k], Bsup)
    # each radius entry: sums of non-negative products, at most c + 3 KA roundings deep
    return Ball._of(mid, up(err + U * added, contracted + 3 * KA + 8))


def powersup(h: float, degree: int) -> np.ndarray:
    """Upper bounds of h^0 .. h^degree (h >= 0)."""
    out = np.empty(degree + 1)
    out[0] = 1.0
    for k in range(1, degree + 1):
        out[k] = up(out[k - 1] * h)
    return out


def sup_on(P: Ball, h: float) -> np.ndarray:
    """An upper bound of sup_{0 <= s <= h} |P(s)| entrywise: sum_k |c_k| h^k."""
    hk = powersup(h, P.shape[0] - 1).reshape((-1,) + (1,) * (len(P.shape) - 1))
    return up((P.magnitude() * hk).sum(axis=0), P.shape[0] + 2)


def derivative(P: Ball) -> Ball:
    """d/ds of a polynomial: coefficients k c_k."""
    k = np.arange(1, P.shape[0], dtype=float).reshape((-1,) + (1,) * (len(P.shape) - 1))
    return P[1:] * Ball.exact(np.broadcast_to(k, P[1:].shape))


def value_at(P: Ball, s) -> Ball:
    """P(s) (s a float or a float array of points, taken exactly; with an array, the
    points along a new leading axis): Horner's scheme in floating point for the midpoint,
    with its running error bound (Higham, *Accuracy and Stability*, section 5.1: each
    step's product and sum round by at most u of their computed magnitudes, carried by
    |s| to the end), plus sum_k rad_k |s|^k for the coefficients' own radii."""
    s = np.asarray(s, float)
    at = s.reshape(s.shape + (1,) * (len(P.shape) - 1))
    a_abs = np.abs(at)
    K = P.shape[0] - 1
    acc = P.mid[K] * np.ones_like(at)
    radii = P.rad[K] * np.ones_like(at)
    running = np.zeros_like(acc)
    for k in range(K - 1, -1, -1):
        prod = acc * at
        acc = prod + P.mid[k]
        running = running * a_abs + (np.abs(prod) + np.abs(acc))
        radii = radii * a_abs + P.rad[k]
    # u (1 + u) |prod| + u / (1 - u) |acc| per step: the factor (1 + 2u) is in `up`
    return Ball._of(acc, up(radii + U * running, 3 * K + 6))


def shifted(P: Ball, s0: float) -> Ball:
    """The coefficients of u -> P(s0 + u) (a Taylor shift by repeated synthetic division in
    balls, s0 a float taken exactly): the polynomial on a part [s0, s1] of a step, whose
    range `range_on` then bounds over [0, s1 - s0]."""
    c = [P[k] for k in range(P.shape[0])]
    K = len(c) - 1
    at = float(s0)
    for i in range(K):
        for k in range(K - 1, i - 1, -1):
            c[k] = c[k] + c[k + 1].scale(at)
    return stack(c)


def edges(h: float, depth: int = 40) -> np.ndarray:
    """Points of [0, h] closing in geometrically on both ends (h 2^-depth apart there, a
    quarter of the step in the middle): where a step's pre-activations approach zero."""
    fr = 0.5 ** np.arange(depth, 1, -1)
    return np.unique(np.concatenate([[0.0], h * fr, [0.5 * h], h - h * fr[::-1], [h]]))


def range_on(P: Ball, h: float, near: np.ndarray | float | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of P(s) over 0 <= s <= h entrywise: on each piece [a, b] of a
    set of points, P lies between its values at a and b up to the chord's error
    sup |P''| (b - a)^2 / 8. The points: five, evenly spaced; then, for the entries whose
    range so found comes within ``near`` (>= 0, entrywise; None: every entry) of 0,
    `edges` (where a step's pre-activations approach their surfaces)."""
    if P.shape[0] > 2:
        curv = sup_on(derivative(derivative(P)), h)
    else:
        curv = np.zeros(P.shape[1:])
    lo, hi = _range_between(P, np.linspace(0.0, h, 5), curv)
    if P.ndim == 1:
        return lo, hi
    fine = np.ones(P.shape[1:], bool) if near is None else (
        (lo <= np.asarray(near)) & (hi >= -np.asarray(near)))
    if fine.any():
        idx = np.nonzero(fine)
        sub = Ball._of(P.mid[(slice(None), *idx)], P.rad[(slice(None), *idx)])
        lo[idx], hi[idx] = _range_between(sub, edges(h), curv[idx])
    return lo, hi


def _range_between(P: Ball, pts: np.ndarray, curv: np.ndarray):
    at = value_at(P, pts)
    width = up(np.diff(pts), 2)
    chord = up(curv[None] * (width * width / 8.0).reshape((-1,) + (1,) * len(curv.shape)), 4)
    lo_ends, hi_ends = at.lower(), at.upper()
    lo = sub_down(np.minimum(lo_ends[:-1], lo_ends[1:]), chord).min(axis=0)
    hi = add_up(np.maximum(hi_ends[:-1], hi_ends[1:]), chord).max(axis=0)
    return lo, hi


def distance_up(a, b) -> float:
    """An upper bound of the Euclidean distance between two float vectors or balls (the
    largest distance from a point of one to a point of the other)."""
    a = a if isinstance(a, Ball) else Ball.exact(a)
    b = b if isinstance(b, Ball) else Ball.exact(b)
    gap = (a - b).magnitude().ravel()
    return norm_up(gap)


def norm_up(values) -> float:
    """An upper bound of the Euclidean norm of a vector of non-negative upper bounds."""
    values = np.asarray(values, float).ravel()
    sq = up(float(np.sum(values * values)), values.size + 2)
    return float(up(np.sqrt(sq), 2))
