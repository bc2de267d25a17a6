"""The earliest crossing among many polynomials over one step.

An event of the flow is a polynomial over a Taylor step (`numerics.flow.series`): the
signed pre-activation of a regular pair (> 0 once it is on its other side), or the exit
value of a sliding pair. `first_crossing` finds, among M such polynomials f_m(tau) on
[0, h], the earliest time at which one of them passes zero on its way beyond its band
(a value within the band is round-off, not yet a crossing), and brackets that zero to
``tol``. Nothing is sampled blindly:

- on each of `_GRID` sub-intervals the polynomial stays below the chord of its end values
  plus M2 delta^2 / 8, M2 a bound on |f''| over [0, h] (from the coefficients): a
  sub-interval whose bound stays within the band has no exceedance; one that may, and
  whose end does not show it, is bisected until it does or is ruled out;
- the zero before the first exceedance is bracketed by the last evaluated point where f
  <= 0 and the next one, then located by Newton's method safeguarded by bisection.

`excluded` is the cheap test run first over every pair of a step: f(0) + sum_l |f_l|
h^l within the band means no event in the step.
"""

from __future__ import annotations

import numpy as np

_GRID = 16  # sub-intervals of the step inspected per candidate
_MAX_SPLITS = 60  # bisections of an undecided sub-interval before it counts as a graze


def horner(F: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """sum_l F[l] tau^l at every tau: F (k + 1, M), taus (T,) -> (T, M)."""
    taus = np.asarray(taus, dtype=float)[:, None]
    out = np.broadcast_to(F[-1], (taus.shape[0],) + F.shape[1:]).copy()
    for row in F[-2::-1]:
        out *= taus
        out += row
    return out


def reach(F: np.ndarray, h) -> np.ndarray:
    """sum_{l >= 1} |F[l]| h^l over the trailing axes of F (k + 1, ...): how far each
    polynomial can move from its value at 0 within [0, h]."""
    k = F.shape[0] - 1
    if k < 1:
        return np.zeros(F.shape[1:])
    powers = np.asarray(h, dtype=float) ** np.arange(1, k + 1)
    flat = np.abs(F[1:]).reshape(k, -1)
    return (powers @ flat).reshape(F.shape[1:])


def value(coeffs: list[float], tau: float) -> float:
    """sum_l coeffs[l] tau^l for one polynomial (Python floats: a handful of terms)."""
    return _value(coeffs, tau)


def slope(coeffs: list[float], tau: float) -> float:
    """The derivative of sum_l coeffs[l] tau^l at tau."""
    return _slope(coeffs, tau)


def _value(coeffs: list[float], tau: float) -> float:
    out = coeffs[-1]
    for c in coeffs[-2::-1]:
        out = out * tau + c
    return out


def _slope(coeffs: list[float], tau: float) -> float:
    out = 0.0
    for power in range(len(coeffs) - 1, 0, -1):
        out = out * tau + power * coeffs[power]
    return out


def first_crossing(F: np.ndarray, band: np.ndarray, h: float, tol: float):
    """The earliest zero, in (0, h], of a polynomial f_m (columns of F, coefficients in
    tau) that goes on to exceed ``band[m]`` within [0, h].

    Returns (tau, m): tau is the far end of a bracket of width <= ``tol`` (f_m(tau) > 0:
    the state there is past the event; a polynomial already above 0 at tau = 0, within
    its band, crosses at once: tau = min(tol, h)); (None, None) when nothing exceeds its
    band on [0, h].

    Most polynomials are monotone over a step (f' keeps the sign of f_1 when |f_1| exceeds
    sum_l l |f_l| h^(l-1)): a rising one exceeds its band iff f(h) does, its zero is unique
    and one is earlier than tau iff f(tau) > 0, so they are settled together and only the
    earliest zero is polished. The others go through `_scan` (grid and curvature bound).
    """
    k = F.shape[0] - 1
    f0 = F[0]
    fh = F[-1].copy()
    for row in F[-2::-1]:
        fh *= h
        fh += row
    if k >= 2:
        ls = np.arange(2, k + 1)
        curve = (ls * h ** (ls - 1.0)) @ np.abs(F[2:])
    else:
        curve = np.zeros(F.shape[1])
    f1 = F[1] if k >= 1 else np.zeros(F.shape[1])
    rising = f1 - curve > 0.0
    falling = f1 + curve < 0.0
    if (f0 > 0.0).any():  # past its surface already (within its band, or beyond it)
        at_once = ((rising & (fh > band)) | falling) & (f0 > 0.0) & ((f0 > band) | rising)
        if at_once.any():
            return float(min(tol, h)), int(np.flatnonzero(at_once)[0])
    best, best_m = np.inf, None
    up = np.flatnonzero(rising & (fh > band))
    if up.size:
        x = -f0[up] * h / (fh[up] - f0[up])  # each chord's zero: where to start Newton
        first = int(np.argmin(x))
        Fu = F[:, up]
        best = _root(Fu[:, first].tolist(), 0.0, h, tol, float(x[first]))
        best_m = int(up[first])
        at_best = Fu[-1].copy()
        for row in Fu[-2::-1]:
            at_best *= best
            at_best += row
        for pos in np.flatnonzero(at_best > 0.0):  # a rising f is > 0 past its zero only
            if pos != first:
                root = _root(Fu[:, pos].tolist(), 0.0, best, tol, float(x[pos]))
                if root < best:
                    best, best_m = root, int(up[pos])
    rest = np.flatnonzero(~(rising | falling))
    if rest.size:
        tau, m = _scan(F[:, rest], band[rest], h, tol)
        if tau is not None and tau < best:
            best, best_m = tau, int(rest[m])
    if best_m is None:
        return None, None
    return float(best), best_m


def _scan(F: np.ndarray, band: np.ndarray, h: float, tol: float):
    """`first_crossing` for polynomials that may turn within the step: on `_GRID`
    sub-intervals the polynomial stays below the chord of its end values plus M2 delta^2
    / 8 (M2 bounds |f''|); a sub-interval whose bound stays within the band is ruled out,
    one whose end shows an exceedance brackets the zero before it, the others are bisected
    (`_bracket`)."""
    k = F.shape[0] - 1
    taus = h * np.arange(_GRID + 1) / _GRID
    V = horner(F, taus)
    if k >= 2:
        ls = np.arange(2, k + 1)
        M2 = (ls * (ls - 1) * h ** (ls - 2.0)) @ np.abs(F[2:])
    else:
        M2 = np.zeros(F.shape[1])
    slack = M2 * (h / _GRID) ** 2 / 8.0
    maybe = np.maximum(V[:-1], V[1:]) + slack > band  # (grid, M)
    cols = np.flatnonzero(maybe.any(axis=0))
    if cols.size == 0:
        return None, None
    maybe, V = maybe[:, cols], V[:, cols]
    first = np.argmax(maybe, axis=0)  # the first sub-interval that may exceed
    los, his = np.empty(cols.size), np.empty(cols.size)
    shown = V[first + 1, np.arange(cols.size)] > band[cols]  # its end shows it: no bisection
    if shown.any():  # the zero before: the last grid point <= 0 up to that sub-interval
        nonpos = (V[:-1, shown] <= 0.0) & (np.arange(_GRID)[:, None] <= first[shown])
        last = _GRID - 1 - np.argmax(nonpos[::-1], axis=0)
        start = ~nonpos.any(axis=0)  # above 0 from tau = 0 on: a crossing at once
        los[shown] = np.where(start, 0.0, taus[last])
        his[shown] = np.where(start, 0.0, taus[np.minimum(last + 1, _GRID)])
    keep = shown.copy()
    for pos in np.flatnonzero(~shown):
        m = cols[pos]
        found = _bracket(F[:, m].tolist(), float(band[m]), float(M2[m]), taus, V[:, pos],
                         maybe[:, pos], tol)
        if found is not None:
            los[pos], his[pos] = found
            keep[pos] = True
    if not keep.any():
        return None, None
    best, best_m = np.inf, None
    for pos in np.flatnonzero(keep)[np.argsort(los[keep], kind="stable")]:
        lo, hi, m = float(los[pos]), float(his[pos]), int(cols[pos])
        if lo >= best:
            break
        root = min(tol, h) if hi <= lo else _root(F[:, m].tolist(), lo, hi, tol)
        if root < best:
            best, best_m = root, m
    return float(best), best_m


def _bracket(coeffs, band, M2, taus, values, maybe, tol):
    """(lo, hi) around the zero before the first exceedance of ``band``, f(lo) <= 0 <
    f(hi); (0, 0) when f > 0 at tau = 0 already; None without an exceedance."""
    points = list(zip(taus.tolist(), values.tolist(), strict=True))
    exceed = None
    for g in np.flatnonzero(maybe):
        if values[g + 1] > band:
            exceed = float(taus[g + 1])
            break
        hit = _refine(coeffs, band, M2, float(taus[g]), float(taus[g + 1]),
                      float(values[g]), float(values[g + 1]), tol, points)
        if hit is not None:
            exceed = hit
            break
    if exceed is None:
        return None
    points.sort()
    lo = None
    for pos, (tau, value) in enumerate(points):
        if tau > exceed:
            break
        if value <= 0.0:
            lo = pos
    if lo is None:
        return 0.0, 0.0
    return points[lo][0], points[lo + 1][0]


def _refine(coeffs, band, M2, u, v, fu, fv, tol, points):
    """The first point of [u, v] found above ``band`` by bisection under the chord bound,
    or None once every piece is ruled out (or narrower than ``tol``: a graze). Appends the
    points it evaluates to ``points``."""
    stack = [(u, v, fu, fv, 0)]
    while stack:
        u, v, fu, fv, depth = stack.pop()
        if max(fu, fv) + M2 * (v - u) ** 2 / 8.0 <= band or v - u <= tol or depth > _MAX_SPLITS:
            continue
        mid = 0.5 * (u + v)
        fm = _value(coeffs, mid)
        points.append((mid, fm))
        if fm > band:
            return mid
        stack.append((mid, v, fm, fv, depth + 1))  # the right half after the left one
        stack.append((u, mid, fu, fm, depth + 1))
    return None


def _root(coeffs, lo: float, hi: float, tol: float, x: float | None = None) -> float:
    """The far end of a bracket of width <= tol around a zero of f in [lo, hi] (f(lo) <= 0
    < f(hi)): Newton's method from ``x`` (the middle by default), bisecting whenever it
    leaves the bracket; once it has converged, the bracket is closed around its point from
    both sides (widening by doubling where round-off put the zero just outside)."""
    if x is None or not lo < x < hi:
        x = 0.5 * (lo + hi)
    for _ in range(100):
        if hi - lo <= tol:
            break
        fx = _value(coeffs, x)
        if fx > 0.0:
            hi = x
        else:
            lo = x
        rate = _slope(coeffs, x)
        nxt = x - fx / rate if rate != 0.0 else lo
        if not lo < nxt < hi:
            x = 0.5 * (lo + hi)
            continue
        if abs(nxt - x) <= tol:  # converged: the zero is within a few tol of nxt
            width = 0.5 * tol
            while nxt + width < hi and _value(coeffs, nxt + width) <= 0.0:
                width *= 2.0
            hi = min(hi, nxt + width)
            width = 0.5 * tol
            while nxt - width > lo and _value(coeffs, nxt - width) > 0.0:
                width *= 2.0
            lo = max(lo, nxt - width)
            nxt = 0.5 * (lo + hi)
        x = nxt
    return hi
