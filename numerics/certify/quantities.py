"""Rigorous enclosures of a claim's quantities: the measures of a state and the instance's
numbers, as Arb balls (`flint.arb`).

A state known to within Euclidean radius r of a float state lies in the box of half-width
r around it; the measures below are evaluated on a box in ball arithmetic
(`numerics.certify.balls`) and return intervals. The instance's numbers (n, lam, ||D_-||,
...) are computed in Arb from its exact values (`INSTANCE_NUMBERS`), not read from the
float code that defines them for the float checks: the certificate's writer and its
checker both evaluate them here. Part of the claim evaluator (`numerics.certify.claims`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import arb

from numerics.certify.balls import Ball, add_up, poly_mul, range_on, sub_down, sup_on, up
from numerics.certify.field import Shape


class NotEnclosed(ValueError):
    """A quantity or an operation the certified layer has no enclosure for."""


def _interval(lo: float, hi: float) -> arb:
    """The arb holding [lo, hi] (arb rounds its radius up)."""
    lo, hi = float(lo), float(hi)
    if not lo <= hi:
        raise NotEnclosed(f"an empty or undefined interval [{lo}, {hi}]")
    m = ((arb(lo) + arb(hi)) / 2).mid()
    rad = max((arb(hi) - m).abs_upper(), (m - arb(lo)).abs_upper())
    return arb(m, rad)


def of_ball(b: Ball) -> arb:
    """A scalar ball as an arb."""
    return _interval(float(b.lower()), float(b.upper()))


def _relu(z: Ball, slope: float) -> Ball:
    """sigma(z) on a ball (monotone: its ends' images)."""
    lo, hi = z.lower(), z.upper()
    f_lo = np.where(lo >= 0, lo, sub_down(slope * lo, np.abs(slope * lo) * 4e-16))
    f_hi = np.where(hi >= 0, hi, add_up(slope * hi, np.abs(slope * hi) * 4e-16))
    return Ball.hull(f_lo, f_hi)


def state_box(shape: Shape, lo: np.ndarray, hi: np.ndarray) -> tuple[Ball, Ball]:
    """(W, a) balls of a box of flat states."""
    box = Ball.hull(lo, hi)
    pd = shape.p * shape.d
    return box[:pd].reshape(shape.p, shape.d), box[pd:]


def around(shape: Shape, theta: np.ndarray, radius: float) -> tuple[Ball, Ball]:
    """(W, a) balls of every state within ``radius`` of ``theta``."""
    r = float(up(radius, 1))
    return state_box(shape, sub_down(theta, r), add_up(theta, r))


def _residuals(shape: Shape, W: Ball, a: Ball) -> Ball:
    z = W @ Ball.exact(shape.X.T)
    h = (a.reshape(shape.p, 1) * _relu(z, shape.slope)).sum(axis=0) * shape.s()
    return h - Ball.exact(shape.y)


def loss(shape: Shape, W: Ball, a: Ball) -> arb:
    """L = c/(2n) sum_i r_i^2 over the box."""
    r = _residuals(shape, W, a)
    sq = (r * r).sum(axis=0)
    return of_ball(sq) * of_ball(shape.rate()) / 2


def max_residual(shape: Shape, W: Ball, a: Ball) -> arb:
    """R = max_i |r_i| over the box."""
    r = _residuals(shape, W, a)
    lo = np.maximum(np.where(r.lower() > 0, r.lower(), 0),
                    np.where(r.upper() < 0, -r.upper(), 0))
    return _interval(float(np.max(lo)), float(np.max(r.magnitude())))


def max_neuron_norm(shape: Shape, W: Ball, a: Ball) -> arb:
    """NormW = max_j |w_j| over the box."""
    sq = (W * W).sum(axis=1)
    lo = np.sqrt(np.maximum(sq.lower(), 0)) * (1 - 4e-16)
    hi = up(np.sqrt(sq.upper()), 2)
    return _interval(float(np.max(lo)), float(np.max(hi)))


def _abs_range(b: Ball) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of |b| entrywise."""
    lo = np.maximum(np.where(b.lower() > 0, b.lower(), 0.0),
                    np.where(b.upper() < 0, -b.upper(), 0.0))
    return lo, b.magnitude()


def _max_of(lo: np.ndarray, hi: np.ndarray) -> arb:
    return _interval(float(np.max(lo)), float(np.max(hi)))


def _drift(c: Ball, c0: Ball) -> arb:
    """max_j |c_j - c_j(0)| over the box."""
    return _max_of(*_abs_range(c - c0))


def balance(shape: Shape, W: Ball, a: Ball, start) -> arb:
    """Balance = max_j |c_j(t) - c_j(0)|, c_j = a_j^2 - |w_j|^2 (ReLU and leaky ReLU:
    degree 1)."""
    W0, a0 = start
    return _drift(a * a - (W * W).sum(axis=1), a0 * a0 - (W0 * W0).sum(axis=1))


def norm_sum_drift(shape: Shape, W: Ball, a: Ball, start) -> arb:
    """NormSumDrift = max_j |n_j(t) - n_j(0)|, n_j = a_j^2 + |w_j|^2."""
    W0, a0 = start
    return _drift(a * a + (W * W).sum(axis=1), a0 * a0 + (W0 * W0).sum(axis=1))


def param_drift(shape: Shape, W: Ball, a: Ball, start) -> arb:
    """ParamDrift = |theta(t) - theta(0)| (Euclidean)."""
    W0, a0 = start
    lo_w, hi_w = _abs_range(W - W0)
    lo_a, hi_a = _abs_range(a - a0)
    lo = float(np.sum(lo_w * lo_w) + np.sum(lo_a * lo_a)) * (1 - 4e-16 * (W.mid.size + 8))
    hi = float(up(float(np.sum(hi_w * hi_w) + np.sum(hi_a * hi_a)), W.mid.size + a.mid.size))
    return _interval(np.sqrt(max(lo, 0.0)) * (1 - 4e-16), float(up(np.sqrt(hi), 2)))


def max_abs_output(shape: Shape, W: Ball, a: Ball, start=None) -> arb:
    """MaxAbsH = max_i |h(x_i)|."""
    h = _residuals(shape, W, a) + Ball.exact(shape.y)
    return _max_of(*_abs_range(h))


def frobenius_sq(shape: Shape, W: Ball, a: Ball, start=None) -> arb:
    """NormWFrobSq = |W|_F^2."""
    return of_ball((W * W).reshape(-1).sum(axis=0))


def sign_flips(shape: Shape, W: Ball, a: Ball, start) -> arb:
    """SignFlips = #{j : sign a_j(t) != sign a_j(0)}: certain where a_j's ball excludes
    0 or is exactly 0, else counted as either."""
    _, a0 = start
    s0 = np.sign(a0.mid)
    lo, hi = a.lower(), a.upper()
    certain = np.where(lo > 0, 1.0, np.where(hi < 0, -1.0, np.where((lo == 0) & (hi == 0),
                                                                   0.0, np.nan)))
    flips = np.sum(~np.isnan(certain) & (certain != s0))
    return _interval(float(flips), float(flips + np.sum(np.isnan(certain))))


def _energies(shape: Shape, W: Ball, a: Ball) -> tuple[np.ndarray, np.ndarray]:
    """E_i = s sum_j 1{z_ji > 0} a_j^2: lower and upper bounds per sample (a pair whose
    sign the box does not fix counts as either)."""
    z = W @ Ball.exact(shape.X.T)
    on_lo = (z.lower() > 0).astype(float)
    on_hi = (z.upper() > 0).astype(float)
    a2 = a * a
    s = shape.s()
    lo = (Ball.exact(on_lo) * a2.reshape(shape.p, 1)).sum(axis=0) * s
    hi = (Ball.exact(on_hi) * a2.reshape(shape.p, 1)).sum(axis=0) * s
    return np.maximum(lo.lower(), 0.0), hi.upper()


def energy_min(shape: Shape, W: Ball, a: Ball, start=None) -> arb:
    """Emin = min_i E_i."""
    lo, hi = _energies(shape, W, a)
    return _interval(float(np.min(lo)), float(np.min(hi)))


def energy_max(shape: Shape, W: Ball, a: Ball, start=None) -> arb:
    """Emax = max_i E_i."""
    lo, hi = _energies(shape, W, a)
    return _interval(float(np.max(lo)), float(np.max(hi)))


def drift_over_step(shape: Shape, P: Ball, width: float, R: float, start,
                    sign: float) -> arb:
    """max_j |c_j(theta) - c_j(0)|, c_j = a_j^2 + sign |w_j|^2 (sign -1: Balance, +1:
    NormSumDrift), over every state within R of the polynomial state P(s), 0 <= s <= width
    (P: (K+1, parameters) coefficient balls). Along the polynomial c_j is itself a
    polynomial (nearly constant when conserved), bounded by `range_on`; a state within R
    of it moves c_j by at most 2 |theta_j| R + R^2. Much tighter than the box of the
    states, which loses that a and w move together."""
    pd = shape.p * shape.d
    K1 = P.shape[0]
    W = P[:, :pd].reshape(K1, shape.p, shape.d)
    a = P[:, pd:]
    c = poly_mul(a, a) + poly_mul(W, W).sum(axis=2).scale(sign)
    W0, a0 = start
    c0 = a0 * a0 + (W0 * W0).sum(axis=1).scale(sign)
    c = Ball(c.mid.copy(), c.rad.copy())
    c[0] = c[0] - c0
    lo, hi = range_on(c, width)
    size = np.sqrt(up(sup_on(a, width) ** 2 + (sup_on(W, width) ** 2).sum(axis=1), shape.d + 3))
    moved = up(2.0 * up(size, 2) * R + R * R, 4)
    low = np.maximum(np.maximum(lo, -hi), 0.0)
    low = np.maximum(sub_down(low, moved), 0.0)
    high = add_up(np.maximum(np.abs(lo), np.abs(hi)), moved)
    return _interval(float(np.max(low)), float(np.max(high)))


# measures with a polynomial enclosure over a step (`drift_over_step`): name -> sign
STEP_MEASURES = {"Balance": -1.0, "NormSumDrift": 1.0}


def _state_only(fn):
    def measure(shape: Shape, W: Ball, a: Ball, start=None) -> arb:
        return fn(shape, W, a)
    measure.__doc__ = fn.__doc__
    return measure


# the state measures with a certified enclosure (the names of `verify.language.measures`), each
# called as measure(shape, W, a, (W0, a0)) with the exact initial state
MEASURES = {"L": _state_only(loss), "R": _state_only(max_residual),
            "NormW": _state_only(max_neuron_norm), "Balance": balance,
            "NormSumDrift": norm_sum_drift, "ParamDrift": param_drift,
            "MaxAbsH": max_abs_output, "NormWFrobSq": frobenius_sq, "SignFlips": sign_flips,
            "Emin": energy_min, "Emax": energy_max}


# -- the instance's numbers, from its exact values ----------------------------------------
def _exact(values) -> list:
    """Float arrays as exact rationals (every float64 is one)."""
    return [[Fraction(float(v)) for v in row] for row in np.atleast_2d(values)]


def rational(q: Fraction) -> arb:
    """An exact rational as an arb (rounded outward where it has no finite binary form)."""
    q = Fraction(q)
    return arb(q.numerator) / arb(q.denominator)


def _norm(v: list[Fraction]) -> arb:
    return rational(sum((x * x for x in v), Fraction(0))).sqrt()


def _label_vector(inst, sign: int) -> arb:
    """||(1/n) sum_{sign y_k > 0} y_k x_k|| (S002's D_+ for sign +1, D_- for -1)."""
    X = _exact(inst.X)
    ys = [Fraction(float(v)) for v in inst.y]
    d = len(X[0])
    v = [sum((y * row[j] for y, row in zip(ys, X, strict=True) if sign * y > 0), Fraction(0))
         / len(ys) for j in range(d)]
    return _norm(v)


def _off_diagonal_gram(inst) -> arb:
    """max_{i != k} |<x_i, x_k>| / (|x_i| |x_k|) (0 for one sample)."""
    X = _exact(inst.X)
    if len(X) < 2:
        return arb(0)
    norms = [_norm(row) for row in X]
    out = None
    for i in range(len(X)):
        for k in range(len(X)):
            if i != k:
                dot = sum((u * v for u, v in zip(X[i], X[k], strict=True)), Fraction(0))
                g = abs(rational(dot)) / (norms[i] * norms[k])
                out = g if out is None else out.max(g)
    return out


def _init_scale(inst) -> arb:
    if inst.init_scale is None:
        raise NotEnclosed("lam: the instance records no initialisation scale")
    return arb(float(inst.init_scale))


def _c_init(inst) -> arb:
    norms = [_norm(row) for row in _exact(inst.W0)]
    top = norms[0]
    for v in norms[1:]:
        top = top.max(v)
    return top / _init_scale(inst)


# name -> the number on an exact instance (`numerics.certify.instance.Instance`); the
# definitions are those of `verify.language.measures` and the packs (S002's D_+ and D_-), tested
# against them
INSTANCE_NUMBERS = {
    "n": lambda inst: arb(inst.n),
    "d": lambda inst: arb(inst.d),
    "p": lambda inst: arb(inst.p),
    "kappa": lambda inst: arb(inst.p if inst.mean_field else 1),
    "lam": _init_scale,
    "c_init": _c_init,
    "MinAbsY": lambda inst: arb(float(np.min(np.abs(inst.y)))),
    "n_plus": lambda inst: arb(int(np.sum(inst.y > 0))),
    "n_minus": lambda inst: arb(int(np.sum(inst.y < 0))),
    "OffDiagGram": _off_diagonal_gram,
    "Dplus": lambda inst: _label_vector(inst, 1),
    "Dminus": lambda inst: _label_vector(inst, -1),
}


__all__ = ["INSTANCE_NUMBERS", "MEASURES", "STEP_MEASURES", "NotEnclosed", "drift_over_step",
           "of_ball", "rational"]
