"""The extremal vectors of D_n in any dimension: found by a fixed-point iteration, each
verified exactly.

D_n(u) = (c/n) sum_k 1{<u, x_k> > 0} y_k x_k (BF25's D(w, 0), c the Problem's loss
prefactor) is constant on each open cell of the arrangement {x_k^perp}: it depends on u only
through the activation pattern sign(<u, x_k>)_k. A unit vector u in an open cell C is a
positive (negative) extremal vector (BF25 Definition 1) when u = +D_C/|D_C| (u = -D_C/|D_C|).
So a candidate v is decided exactly by one finite computation: read v's cell (every
|<v, x_k>|/|x_k| above `MARGIN`, so that the signs do not depend on the rounding of v), form
D_C, and check that s D_C/|D_C| lies in the same cell; then it *is* an extremal vector (it is
returned, not v). BF25's `papers.bf25.cones` enumerates every cell in d = 2 (also the boundary
rays, where D is set-valued); here only open cells are searched, from many starts, so the
list is what the starts reached, a lower bound on the set (extremal vectors on a cell's
boundary are not found).

The search: from each start u_0, u_{i+1} = s D_n(u_i)/|D_n(u_i)| (s = +1 for positive, -1
for negative vectors), each candidate verified; when the cells cycle, the faces around the
cycle are tried and the step is halved (a damped iteration with the same fixed points) until
a vector verifies, the step falls below `MIN_STEP` or `MAX_STEPS` steps pass (the start
counts as unresolved). BF25B's population field is
constant (BF25B-F1), so for many samples the map is a contraction and one or two steps
suffice.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

#: a cell is read only where every |<v, x_k>|/|x_k| exceeds this (else v is on a boundary)
MARGIN = 1e-9
#: a face vector's |<u, x_k>|/|x_k| for k on the face: rounding of a small linear solve
FACE_TOL = 1e-10
#: steps of the fixed-point iteration per start
MAX_STEPS = 400
#: the smallest step of the damped iteration (halved at each cycle)
MIN_STEP = 2.0**-12


@dataclass(frozen=True)
class Extremal:
    """One verified extremal vector: ``u`` (unit), ``sign`` (+1 positive, -1 negative),
    ``value`` = |D_n(u)| (so D_n(u) = sign value u), ``margin`` = min_k |<u, x_k>|/|x_k|,
    ``pattern`` its cell's signs (a tuple of +-1)."""

    u: np.ndarray
    sign: int
    value: float
    margin: float
    pattern: tuple


@dataclass(frozen=True)
class Search:
    """What a search found: the distinct verified vectors (one per cell and sign), the
    number of starts, and how many of them reached no verified vector."""

    found: tuple[Extremal, ...]
    starts: int
    unresolved: int

    def of_sign(self, sign: int) -> tuple[Extremal, ...]:
        return tuple(e for e in self.found if e.sign == sign)


def field(X: np.ndarray, y: np.ndarray, u: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """D_n(u) = (scale/n) sum_k 1{<u, x_k> > 0} y_k x_k."""
    on = (X @ u) > 0
    return (scale / len(y)) * (y[on] @ X[on])


def _cell(X: np.ndarray, norms: np.ndarray, v: np.ndarray) -> tuple[tuple, float]:
    z = (X @ v) / norms
    return tuple(np.where(z > 0, 1, -1).tolist()), float(np.min(np.abs(z)))


def verify(X: np.ndarray, y: np.ndarray, v: np.ndarray, sign: int,
           scale: float = 1.0) -> Extremal | None:
    """The extremal vector of sign ``sign`` of v's open cell if it lies in that cell (then
    it is exact: D_n is constant there), else None; None too when v or the candidate is
    within `MARGIN` of a boundary, or D_n is 0 on the cell."""
    norms = np.linalg.norm(X, axis=1)
    pattern, margin = _cell(X, norms, v)
    if margin <= MARGIN:
        return None
    D = field(X, y, v, scale)
    size = float(np.linalg.norm(D))
    if size == 0.0:
        return None
    u = sign * D / size
    pattern_u, margin_u = _cell(X, norms, u)
    if pattern_u != pattern or margin_u <= MARGIN:
        return None
    return Extremal(u=u, sign=int(sign), value=size, margin=margin_u, pattern=pattern)


def on_face(X: np.ndarray, y: np.ndarray, pattern: tuple, zero: np.ndarray, sign: int,
            scale: float = 1.0) -> Extremal | None:
    """An extremal vector on the face where <u, x_k> = 0 for k in ``zero`` and the signs of
    ``pattern`` hold elsewhere (BF25 Definition 1 with the set-valued D there: D(eta) =
    (scale/n)(sum_{k on} y_k x_k + sum_{k in zero} eta_k y_k x_k), eta_k in [0, 1]): the eta
    with <D(eta), x_k> = 0 for k in ``zero`` (a |zero| x |zero| linear system), accepted when
    eta lies in [0, 1] and u = sign D(eta)/|D(eta)| keeps the other signs with `MARGIN`; u is
    then on the face to rounding (|<u, x_k>|/|x_k| <= `FACE_TOL` for k in ``zero``)."""
    zero = np.asarray(zero, dtype=int)
    if zero.size == 0 or zero.size >= X.shape[1]:
        return None
    p = np.asarray(pattern)
    on = p > 0
    base = (scale / len(y)) * (y[on] @ X[on])
    V = (scale / len(y)) * (y[zero, None] * X[zero])  # (|Z|, d): the free columns
    A = X[zero] @ V.T  # A[k, l] = <x_k, V_l>
    try:
        eta = np.linalg.solve(A, -(X[zero] @ base))
    except np.linalg.LinAlgError:
        return None
    if np.any(eta < -1e-12) or np.any(eta > 1 + 1e-12):
        return None
    D = base + np.clip(eta, 0.0, 1.0) @ V
    size = float(np.linalg.norm(D))
    if size == 0.0:
        return None
    u = sign * D / size
    norms = np.linalg.norm(X, axis=1)
    z = (X @ u) / norms
    rest = np.setdiff1d(np.arange(len(y)), zero)
    if np.max(np.abs(z[zero])) > FACE_TOL or np.any(np.sign(z[rest]) != p[rest]):
        return None
    margin = float(np.min(np.abs(z[rest])))
    if margin <= MARGIN:
        return None
    full = p.copy()
    full[zero] = 0
    return Extremal(u=u, sign=int(sign), value=size, margin=margin,
                    pattern=tuple(full.tolist()))


#: a cycle whose cells differ in more samples than this is not resolved (3^k faces to try)
MAX_FREE = 7


def _faces(X, y, pattern: tuple, free: np.ndarray, sign: int, scale: float) -> Extremal | None:
    """The first face around a cycle that holds an extremal vector (`on_face`): each
    assignment of -1, 0, +1 to the samples ``free`` whose sign changes along the cycle, with
    at least one 0 (fewer zeros first); the other signs are the cycle's."""
    if free.size == 0 or free.size > MAX_FREE:
        return None
    p = np.asarray(pattern)
    options = sorted(itertools.product((-1, 0, 1), repeat=free.size),
                     key=lambda t: sum(v == 0 for v in t))
    for signs in options:
        zeros = [k for k, v in zip(free, signs, strict=True) if v == 0]
        if not zeros or len(zeros) >= X.shape[1]:
            continue
        q = p.copy()
        q[free] = signs
        found = on_face(X, y, tuple(q.tolist()), np.array(zeros), sign, scale)
        if found is not None:
            return found
    return None


def iterate(X: np.ndarray, y: np.ndarray, start: np.ndarray, sign: int, scale: float = 1.0,
            max_steps: int = MAX_STEPS) -> Extremal | None:
    """The fixed-point iteration u <- sign D_n(u)/|D_n(u)| from ``start``, verified
    (`verify`) at each step. When the cells visited cycle (D_n jumps across the extremal
    vector's cell or face), the faces around the cycle are tried (`_faces`, when few samples
    change sign along it), and the step is halved, u <- (1 - a) u + a sign D_n(u)/|D_n(u)|
    normalised (the same fixed points), which walks into the cells between; None if nothing
    verifies within ``max_steps`` or the step falls below `MIN_STEP`."""
    v = np.asarray(start, dtype=float)
    v = v / np.linalg.norm(v)
    norms = np.linalg.norm(X, axis=1)
    seen: list[tuple] = []
    step = 1.0
    for _ in range(max_steps):
        found = verify(X, y, v, sign, scale)
        if found is not None:
            return found
        pattern, _ = _cell(X, norms, v)
        if pattern in seen:
            cycle = np.array(seen[seen.index(pattern):])
            found = _faces(X, y, pattern, np.flatnonzero(np.any(cycle != cycle[0], axis=0)),
                           sign, scale)
            if found is not None:
                return found
            step /= 2
            seen = []
            if step < MIN_STEP:
                return None
        seen.append(pattern)
        D = field(X, y, v, scale)
        size = float(np.linalg.norm(D))
        if size == 0.0:
            return None
        v = (1 - step) * v + step * sign * D / size
        v = v / np.linalg.norm(v)
    return None


def search(X: np.ndarray, y: np.ndarray, starts: np.ndarray, scale: float = 1.0,
           max_steps: int = MAX_STEPS) -> Search:
    """Both signs from every row of ``starts``; the distinct vectors found (by cell and sign),
    in the order found."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    found: dict[tuple, Extremal] = {}
    unresolved = 0
    for start in np.asarray(starts, dtype=float):
        for sign in (1, -1):
            e = iterate(X, y, start, sign, scale, max_steps)
            if e is None:
                unresolved += 1
            else:
                found.setdefault((e.sign, e.pattern), e)
    return Search(found=tuple(found.values()), starts=2 * len(starts), unresolved=unresolved)


def random_starts(d: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` directions uniform on the sphere S^{d-1}."""
    g = rng.standard_normal((count, d))
    return g / np.linalg.norm(g, axis=1, keepdims=True)


def largest_angle(result: Search, direction: np.ndarray) -> float:
    """The largest angle (radians) between a found vector u of sign s and s direction/|direction|
    (positive vectors against +direction, negative ones against -direction)."""
    if not result.found:
        raise ValueError("no extremal vector was found")
    b = np.asarray(direction, dtype=float) / np.linalg.norm(direction)
    cos = np.array([float(np.clip(e.sign * (e.u @ b), -1.0, 1.0)) for e in result.found])
    return float(np.max(np.arccos(cos)))
