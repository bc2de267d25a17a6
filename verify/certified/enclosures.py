"""Rigorous enclosures of a claim's quantities on a certified tube, and of its expressions.

A state known to within Euclidean radius r of a float state lies in the box of half-width
r around it; the measures below are evaluated on that box in ball arithmetic
(`numerics.certify.balls`) and return intervals (`flint.arb`, Arb's ball arithmetic, for
the expression that combines them). Instance numbers (||D_-||, lam, ...) are computed by
the pack in float64: they enter as their float value widened by INSTANCE_WIDEN relative,
which the certificate states (only the trajectory is enclosed from first principles).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp
from flint import arb

from numerics.certify.balls import Ball, add_up, sub_down, up
from numerics.certify.field import Shape

INSTANCE_WIDEN = 2.0**-40


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
    from numerics.certify.balls import poly_mul, range_on, sup_on

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


# the state measures with a certified enclosure (the names of `verify.measures`), each
# called as measure(shape, W, a, (W0, a0)) with the run's exact initial state
MEASURES = {"L": _state_only(loss), "R": _state_only(max_residual),
            "NormW": _state_only(max_neuron_norm), "Balance": balance,
            "NormSumDrift": norm_sum_drift, "ParamDrift": param_drift,
            "MaxAbsH": max_abs_output, "NormWFrobSq": frobenius_sq, "SignFlips": sign_flips,
            "Emin": energy_min, "Emax": energy_max}


def instance_number(value) -> arb:
    """An instance number (float64, from the pack) widened by INSTANCE_WIDEN relative."""
    v = float(value)
    if not np.isfinite(v):
        raise NotEnclosed(f"an instance number is {v}")
    w = abs(v) * INSTANCE_WIDEN
    return _interval(v - w, v + w)


def _number(value: sp.Basic) -> arb:
    if value.is_Integer:
        return arb(int(value))
    if value.is_Rational:
        return arb(int(value.p)) / arb(int(value.q))
    if value.is_Float:
        return arb(float(value))
    if value == sp.pi:
        return arb.pi()
    if value == sp.E:
        return arb(1).exp()
    raise NotEnclosed(f"the number {value}")


def evaluate(expr: sp.Basic, env: dict[str, arb]) -> arb:
    """``expr`` (flat: symbols only, named as `theory.bridge.flatten` names them) in arb."""
    if expr.is_Symbol:
        if expr.name not in env:
            raise NotEnclosed(f"{expr.name} has no certified enclosure")
        return env[expr.name]
    if expr.is_Number or expr in (sp.pi, sp.E):
        return _number(expr)
    args = [evaluate(a, env) for a in expr.args]
    if isinstance(expr, sp.Add):
        out = args[0]
        for x in args[1:]:
            out = out + x
        return out
    if isinstance(expr, sp.Mul):
        out = args[0]
        for x in args[1:]:
            out = out * x
        return out
    if isinstance(expr, sp.Pow):
        base, exp = args
        e = expr.args[1]
        if e.is_Integer:
            return base ** int(e)
        return base ** exp
    # (sympy's sqrt is a function that builds Pow(x, 1/2), handled above)
    unary = {sp.exp: arb.exp, sp.log: arb.log, sp.Abs: abs}
    for fn, op in unary.items():
        if isinstance(expr, fn):
            return op(args[0])
    if isinstance(expr, sp.Min):
        out = args[0]
        for x in args[1:]:
            out = out.min(x)
        return out
    if isinstance(expr, sp.Max):
        out = args[0]
        for x in args[1:]:
            out = out.max(x)
        return out
    raise NotEnclosed(f"the operation {type(expr).__name__}")


def relation_sign(rel: sp.Basic, env: dict[str, arb]) -> int:
    """+1 if ``rel`` certainly holds on every value the enclosures allow, -1 if it
    certainly fails, 0 if the enclosures do not decide it."""
    if isinstance(rel, sp.And):
        signs = [relation_sign(r, env) for r in rel.args]
        return -1 if -1 in signs else (1 if all(s == 1 for s in signs) else 0)
    if isinstance(rel, sp.Or):
        signs = [relation_sign(r, env) for r in rel.args]
        return 1 if 1 in signs else (-1 if all(s == -1 for s in signs) else 0)
    if isinstance(rel, (sp.Le, sp.Lt)):
        gap = evaluate(rel.rhs, env) - evaluate(rel.lhs, env)
    elif isinstance(rel, (sp.Ge, sp.Gt)):
        gap = evaluate(rel.lhs, env) - evaluate(rel.rhs, env)
    elif isinstance(rel, sp.Eq):
        gap = evaluate(rel.lhs, env) - evaluate(rel.rhs, env)
        return -1 if (gap > 0 or gap < 0) else 0
    else:
        raise NotEnclosed(f"the relation {type(rel).__name__}")
    strict = isinstance(rel, (sp.Lt, sp.Gt))
    if gap > 0 or (not strict and gap >= 0):
        return 1
    if gap < 0 or (strict and gap <= 0):
        return -1
    return 0


def exact_time(t: float) -> arb:
    """A time (an exact float) as an arb."""
    return arb(float(Fraction(float(t))))
