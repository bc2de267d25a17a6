"""An independent cross-check of a certificate: the same flow enclosed by another validated
method, mpmath's interval arithmetic (`mpmath.iv`, outward rounding at 80 bits) with
Picard's a priori enclosure and a second-order Taylor step, agrees with the tube.

The method here shares no code with `numerics.certify`: no float balls, no Taylor
coefficients, no logarithmic norm. Over a step [t, t + h] from an enclosure X of the state,

- a box B with X + [0, h] F(B) inside B (found by iterating that map, inflated) holds the
  flow for the whole step (Picard-Lindelof);
- at t + h the flow lies in X + h F(X) + (h^2 / 2) F'(B) F(B), the second derivative taken
  over B by forward differentiation (dual intervals); where a pre-activation's sign is
  not certain on B the field takes the slope hull [0, 1] (every Filippov solution) and the
  step falls back to X + h F(B).

At the run's saved times the interval box and the tube's ball must meet, and the box is
tight enough (<= 2e-6) that a tube moved by 1e-5 would not.
"""

from __future__ import annotations

import numpy as np
import pytest

mpmath = pytest.importorskip("mpmath")
iv = mpmath.iv

from numerics import ExactFlow, Problem, simulate  # noqa: E402
from numerics.certify import certificate, certify, check_certificate  # noqa: E402


class Dual:
    """An interval and its derivative along a direction (forward differentiation)."""

    __slots__ = ("v", "d")

    def __init__(self, v, d=None):
        self.v = v
        self.d = iv.mpf(0) if d is None else d

    def __add__(self, o):
        o = o if isinstance(o, Dual) else Dual(o)
        return Dual(self.v + o.v, self.d + o.d)

    __radd__ = __add__

    def __sub__(self, o):
        o = o if isinstance(o, Dual) else Dual(o)
        return Dual(self.v - o.v, self.d - o.d)

    def __rsub__(self, o):
        return Dual(o) - self

    def __mul__(self, o):
        o = o if isinstance(o, Dual) else Dual(o)
        return Dual(self.v * o.v, self.v * o.d + self.d * o.v)

    __rmul__ = __mul__


def _slope(z):
    """relu'(z) on an interval: 1, 0, or the hull [0, 1] where the sign is not certain."""
    v = z.v if isinstance(z, Dual) else z
    if v.a > 0:
        return iv.mpf(1), True
    if v.b < 0:
        return iv.mpf(0), True
    return iv.mpf([0, 1]), False


def field(theta, X, y, p):
    """The flow's field at interval (or dual) states: (F, whether every slope is certain).
    theta = (w_11 .. w_pd, a_1 .. a_p), square loss L = 1/(2n) sum_i r_i^2."""
    n, d = len(X), len(X[0])
    if isinstance(theta[0], Dual):  # constants as duals of derivative 0 (mpmath's intervals
        X = [[Dual(v) for v in row] for row in X]  # do not defer to other types)
        y = [Dual(v) for v in y]

        def lift(v):
            return Dual(v)
    else:
        def lift(v):
            return v
    W = [[theta[j * d + k] for k in range(d)] for j in range(p)]
    a = [theta[p * d + j] for j in range(p)]
    z = [[W[j][0] * X[i][0] for i in range(n)] for j in range(p)]
    for j in range(p):
        for i in range(n):
            for k in range(1, d):
                z[j][i] = z[j][i] + W[j][k] * X[i][k]
    slopes, certain = [], True
    for j in range(p):
        row = []
        for i in range(n):
            s, ok = _slope(z[j][i])
            certain &= ok
            row.append(lift(s))
        slopes.append(row)
    def total(terms):
        terms = list(terms)
        out = terms[0]
        for x in terms[1:]:
            out = out + x
        return out

    r = [total(a[j] * (slopes[j][i] * z[j][i]) for j in range(p)) - y[i] for i in range(n)]
    c = lift(iv.mpf(-1) / n)
    dW = [[c * a[j] * total(r[i] * slopes[j][i] * X[i][k] for i in range(n))
           for k in range(d)] for j in range(p)]
    da = [c * total(r[i] * slopes[j][i] * z[j][i] for i in range(n)) for j in range(p)]
    return [x for row in dW for x in row] + da, certain


def _inside(inner, outer) -> bool:
    return all(o.a < i.a and i.b < o.b for i, o in zip(inner, outer, strict=True))


def _hull_box(X, F, h):
    """An a priori enclosure of the flow over [0, h] from the box X (Picard)."""
    H = iv.mpf([0, h])
    B = [x + H * f for x, f in zip(X, F, strict=True)]
    B = [b + iv.mpf([-1, 1]) * (b.delta + iv.mpf("1e-20")) for b in B]
    for _ in range(30):
        FB, _ = field(B, *_problem_args)
        new = [x + H * f for x, f in zip(X, FB, strict=True)]
        if _inside(new, B):
            return new, FB
        B = [b + iv.mpf([-1, 1]) * b.delta for b in B]
    raise AssertionError("no a priori enclosure")


_problem_args: tuple = ()


def enclose(theta0, times, X, y, p, substeps: int):
    """Interval enclosures of the flow from theta0 at each of ``times`` (floats, from 0)."""
    global _problem_args
    _problem_args = (X, y, p)
    state = [iv.mpf(v) for v in theta0]
    out = [state]
    for t0, t1 in zip(times[:-1], times[1:], strict=True):
        span = iv.mpf(t1) - iv.mpf(t0)
        h = span / substeps
        for _ in range(substeps):
            F0, _ = field(state, X, y, p)
            B, FB = _hull_box(state, F0, h.b)
            dual, certain = field([Dual(b, f) for b, f in zip(B, FB, strict=True)], X, y, p)
            if certain:  # theta'' = F'(theta) F(theta) over B: the second-order step
                state = [x + h * f + (h * h / 2) * g.d
                         for x, f, g in zip(state, F0, dual, strict=True)]
            else:  # a kink on B: Filippov hull, first order
                state = [x + h * f for x, f in zip(state, FB, strict=True)]
        out.append(state)
    return out


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    Xd = np.array([[1.0, 0.0], [0.6, 0.8]])
    problem = Problem(X=Xd, y=np.array([1.0, -0.5]), W0=np.array([[0.5, 0.1], [-0.2, 0.6]]),
                      a0=np.array([0.4, -0.3]))
    run = simulate(problem, ExactFlow(), np.linspace(0.0, 1.0, 6))
    path = certify(run).write(tmp_path_factory.mktemp("x") / "toy.npz")
    check_certificate(path)  # the file is accepted
    return certificate.read(path)


def test_an_interval_picard_enclosure_agrees_with_the_certificate(toy):
    iv.prec = 80
    f = toy
    inst = f.instance
    X = [[iv.mpf(v) for v in row] for row in inst.X]
    y = [iv.mpf(v) for v in inst.y]
    times = [float(t) for t in f.bounds[f.saved_index]]
    boxes = enclose(inst.theta0, times, X, y, inst.p, substeps=100)
    for j, box in enumerate(boxes):
        centre, radius = f.saved_state[j], float(f.saved_radius[j])
        width = max(float(b.delta) for b in box)
        assert width <= 2e-6, (j, width)
        # the two enclosures of the true state meet: the tube's ball around the run's
        # state and the interval box (in the max norm, the ball's radius bounds each entry)
        gap = [max(float(b.a) - c, c - float(b.b), 0.0) for b, c in zip(box, centre,
                                                                        strict=True)]
        assert max(gap) <= radius, (j, gap, radius)
        # and a tube moved by 1e-5 would not: the check has teeth
        moved = centre + 1e-5
        gap = [max(float(b.a) - c, c - float(b.b), 0.0) for b, c in zip(box, moved,
                                                                        strict=True)]
        assert max(gap) > radius
