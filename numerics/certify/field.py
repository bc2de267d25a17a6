"""The gradient flow of a shallow network with square loss, as polynomials in ball arithmetic.

Between activation changes the flow of theta = (W, a) is a cubic polynomial field (`Problem`
conventions): with r_i = s sum_j a_j sigma'_ji z_ji - y_i, z_ji = <w_j, x_i>,

    a_j' = -(c/n) sum_i r_i sigma'_ji z_ji,      w_j' = -(c/n) a_j sum_i r_i sigma'_ji x_i,

where c is the loss scale, s = 1 (standard) or 1/p (mean field; its flow's kappa = p makes
kappa s = 1 in both), and sigma'_ji is 1 or the leak slope by the sign of z_ji. Here the
slopes are balls: a pair whose sign is certain has an exact slope, an undecided pair the
hull [slope, 1], so one evaluation encloses the field of every regime a state of the tube
may be in (and their convex combinations, Filippov's sliding fields).

A state on a step is a polynomial in the step's time s (coefficient k along axis 0); the
field of a polynomial state is a polynomial of three times its degree, every coefficient
a ball. `Shape` holds the problem's constants; everything here is shared by the
certificate's writer (`numerics.certify.tube`) and its checker (`numerics.certify.checker`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from numerics.certify.balls import (
    Ball,
    U,
    add_up,
    derivative,
    distance_up,
    exp_up,
    norm_up,
    poly_einsum,
    range_on,
    sub_down,
    sup_on,
    up,
    value_at,
)


class NotCertifiable(ValueError):
    """The problem is outside what the certificate covers; the message says why."""


@dataclass(frozen=True)
class Shape:
    """The constants of the field: data, loss scale, parametrisation, leak slope, trained
    layers. Built from a `Problem` (`of_problem`) or read from a certificate file."""

    X: np.ndarray
    y: np.ndarray
    p: int
    loss_scale: float
    mean_field: bool
    slope: float
    train: str

    def __post_init__(self) -> None:
        # the bounds below hold only for these (a growth constant of 0 for one trained
        # layer, a convex kink for a slope in [0, 1], the Gauss-Newton term for c > 0)
        if self.train not in ("both", "first", "second"):
            raise NotCertifiable(f"train: {self.train!r} is not both, first or second")
        if not (np.isfinite(self.loss_scale) and self.loss_scale > 0):
            raise NotCertifiable(f"loss_scale: must be positive, got {self.loss_scale!r}")
        if not 0.0 <= self.slope < 1.0:
            raise NotCertifiable(f"slope: must be in [0, 1), got {self.slope!r}")
        if not (isinstance(self.p, int | np.integer) and self.p >= 1):
            raise NotCertifiable(f"p: a positive number of neurons, got {self.p!r}")
        if not isinstance(self.mean_field, bool | np.bool_):
            raise NotCertifiable(f"mean_field: True or False, got {self.mean_field!r}")

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    def s(self) -> Ball:
        """The output scale s = 1 or 1/p (a ball: 1/p rounds)."""
        if not self.mean_field:
            return Ball.exact(1.0)
        q = 1.0 / self.p
        return Ball(q, up(U * q))

    def rate(self) -> Ball:
        """c / n, the field's prefactor (kappa s = 1 in both parametrisations)."""
        q = self.loss_scale / self.n
        return Ball(q, up(U * abs(q)))

    def x_norms(self) -> np.ndarray:
        """Upper bounds of |x_i|."""
        sq = (Ball.exact(self.X) * Ball.exact(self.X)).sum(axis=1)
        return up(np.sqrt(sq.upper()), 2)

    def gram(self) -> tuple[Ball, np.ndarray]:
        """The Gram matrix <x_i, x_k>, computed exactly in rationals and rounded to a ball,
        and where it is exactly 0 (computed once)."""
        if "_gram" not in self.__dict__:
            self.__dict__["_gram"] = self._exact_gram()
        return self.__dict__["_gram"]

    def _exact_gram(self) -> tuple[Ball, np.ndarray]:
        rows = [[Fraction(float(v)) for v in row] for row in self.X]
        exact = [[sum((u * v for u, v in zip(ri, rk, strict=True)), Fraction(0))
                  for rk in rows] for ri in rows]
        mid = np.array([[float(v) for v in row] for row in exact])
        rad = np.array([[abs(Fraction(float(v)) - v) for v in row] for row in exact],
                       dtype=float)
        zero = np.array([[v == 0 for v in row] for row in exact])
        return Ball(mid, up(rad)), zero

    def split(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(W, a) of a flat parameter vector (W row-major, then a)."""
        pd = self.p * self.d
        return theta[..., :pd].reshape(*theta.shape[:-1], self.p, self.d), theta[..., pd:]


def step_polynomial(shape: Shape, coef: np.ndarray) -> tuple[Ball, Ball, Ball]:
    """A step's flat Taylor coefficients (order + 1, parameters) as balls: the whole
    state P and its parts (W, a), views of P. The writer and the checker both build them
    here, so that every bound is computed from the same arrays in the same layout (and
    so, on one machine, to the same last bit)."""
    P = Ball.exact(np.ascontiguousarray(coef, dtype=np.float64))
    pd = shape.p * shape.d
    return P, P[:, :pd].reshape(P.shape[0], shape.p, shape.d), P[:, pd:]


def slopes(shape: Shape, active: np.ndarray, inactive: np.ndarray) -> Ball:
    """sigma' per pair (p, n): 1 where ``active``, the slope where ``inactive``, their hull
    elsewhere."""
    lo = np.where(active, 1.0, shape.slope)
    hi = np.where(inactive, shape.slope, 1.0)
    return Ball.hull(lo, hi)


@dataclass
class FieldPoly:
    """The field along a polynomial state, and the polynomials it is made of."""

    z: Ball   # pre-activations z_ji(s), (K+1, p, n)
    r: Ball   # residuals r_i(s), (2K+1, n)
    dW: Ball | None = None  # W'(s) by the field, (3K+1, p, d)
    da: Ball | None = None  # a'(s) by the field, (3K+1, p)


def field_along(shape: Shape, W: Ball, a: Ball, D: Ball, z: Ball | None = None,
                derivatives: bool = True) -> FieldPoly:
    """The field F(theta(s)) for theta(s) = (W(s), a(s)) given by coefficient balls
    (W: (K+1, p, d), a: (K+1, p)) with slopes ``D`` (p, n); ``z``: W's pre-activations
    when already computed; ``derivatives`` False: the pre-activations and residuals only
    (what `_tube_view` reads)."""
    X = Ball.exact(shape.X)
    z = W @ X.T if z is None else z
    Dz = z * D
    r = poly_einsum("j,ji->i", a, Dz) * shape.s()
    r[0] = r[0] - Ball.exact(shape.y)
    if not derivatives:
        return FieldPoly(z, r)
    rate = -shape.rate()
    K3 = 3 * (W.shape[0] - 1) + 1
    if shape.train == "first":
        da = Ball.exact(np.zeros((K3, shape.p)))
    else:
        da = poly_einsum("i,ji->j", r, Dz) * rate
    if shape.train == "second":
        dW = Ball.exact(np.zeros((K3, shape.p, shape.d)))
    else:
        q = (r.reshape(r.shape[0], 1, shape.n) * D) @ X
        dW = poly_einsum("j,jd->jd", a, q) * rate
    return FieldPoly(z, r, dW, da)


def taylor(shape: Shape, W0: np.ndarray, a0: np.ndarray, active: np.ndarray,
           order: int) -> tuple[np.ndarray, np.ndarray]:
    """The Taylor coefficients (float) of the flow from (W0, a0) in the regime ``active``
    (sigma' = 1 there, the slope elsewhere), orders 0..order: the approximant of a step.
    Plain floating point: the certificate does not trust it, it bounds its defect."""
    X, y = shape.X, shape.y
    D = np.where(active, 1.0, shape.slope)
    s = 1.0 / shape.p if shape.mean_field else 1.0
    rate = -shape.loss_scale / shape.n
    p, n, d = shape.p, shape.n, shape.d
    W = np.zeros((order + 1, p, d))
    a = np.zeros((order + 1, p))
    Dz = np.zeros((order + 1, p, n))
    r = np.zeros((order + 1, n))
    q = np.zeros((order + 1, p, d))
    W[0], a[0] = W0, a0
    for k in range(order):
        Dz[k] = D * (W[k] @ X.T)
        r[k] = s * np.einsum("lp,lpn->n", a[:k + 1], Dz[k::-1])
        if k == 0:
            r[0] -= y
        q[k] = (r[k] * D) @ X
        if shape.train != "first":
            a[k + 1] = rate * np.einsum("ln,lpn->p", r[:k + 1], Dz[k::-1]) / (k + 1)
        if shape.train != "second":
            W[k + 1] = rate * np.einsum("lp,lpd->pd", a[:k + 1], q[k::-1]) / (k + 1)
    return W, a


@dataclass
class StepBounds:
    """What one step's verification found."""

    r_end: float        # radius bound at the step's end (and an upper bound on it)
    defect: float       # sup over the step of |theta'(s) - F(theta(s))| (Euclidean)
    mu: float           # bound of the flow's logarithmic norm over the tube
    undecided: int      # pairs whose slope the step could not certify
    ok: bool            # r_end < R: the tube stays inside the box the bounds assumed
    why: str = ""
    stuck_end: np.ndarray | None = None  # pairs certainly at z <= 0, held there, at the end
    pinned_end: np.ndarray | None = None  # of them, pairs certainly exactly at z = 0


def sign_sets(shape: Shape, z: Ball, h: float, R: float, stuck: np.ndarray | None = None):
    """Pairs certainly active / inactive over the step for every state within R of the
    polynomial: z_ji's range over [0, h] clears R |x_i|; and that range (lo, hi), found
    finely near the surfaces except for the ``stuck`` pairs (held at z <= 0 by
    `_held_down`, not by their range)."""
    reach = np.broadcast_to(up(R * shape.x_norms(), 2)[None, :], z.shape[1:])
    near = reach if stuck is None else np.where(stuck, -np.inf, reach)
    lo, hi = range_on(z, h, near=near)
    return lo > reach, hi < -reach, (lo, hi)


@dataclass
class _TubeView:
    """Enclosures over the whole tube of a step (every state within R of the polynomial at
    some time of the step): residuals, output weights, slopes."""

    r: Ball   # (n,)
    a: Ball   # (p,)
    D: Ball   # (p, n)
    rho: np.ndarray  # upper bounds of |r_i|


def _tube_view(shape: Shape, F: FieldPoly, D: Ball, a: Ball, h: float, R: float) -> _TubeView:
    """Residuals over the tube: the polynomial's range plus how far a state within R moves
    them, |dh_i| <= s R (sqrt(sum_j (D_ji z_ji)^2) + (|a| + R) max_j D_ji |x_i|)."""
    s = shape.s().magnitude()
    xn = shape.x_norms()
    Dhi = D.magnitude()
    zsup = sup_on(F.z, h)
    asup = norm_up(sup_on(a, h))
    zn = np.sqrt(up(((Dhi * zsup) ** 2).sum(axis=0), shape.p + 2))
    moved = up(s * R * (up(zn, 2) + up((asup + R) * Dhi.max(axis=0) * xn, 4)), 4)
    r_lo, r_hi = range_on(F.r, h)
    a_lo, a_hi = range_on(a, h, near=0.0)
    r = Ball.hull(sub_down(r_lo, moved), add_up(r_hi, moved))
    return _TubeView(r, Ball.hull(sub_down(a_lo, R), add_up(a_hi, R)), D, r.magnitude())


def _held_down(shape: Shape, view: _TubeView):
    """Pairs (j, i) that {z_ji <= 0} holds anywhere in the tube (ReLU), a lower bound of
    the downward speed of z_ji on its active side (0 where there is none), and the held
    pairs whose sample is orthogonal to every other (there z_ji does not move at all on
    the inactive side: a pair that reached its surface stays exactly on it).

    On the inactive side dz_ji/dt = -(c/n) a_j sum_{k != i} r_k sigma'_jk <x_k, x_i>: the
    set is held where that is <= 0 (exactly 0 where x_i is orthogonal to every other
    sample). A pair strictly below its surface then stays there, and one that reached it
    from above (where dz/dt < 0, the speed returned) stays on it: at z = 0 the flow takes
    relu'(0) = 0, the convention of the papers and of the engine. (Where the active side
    would push a pair at exactly z = 0 up, the ReLU flow has other solutions, which leave
    the surface: the certificate encloses the one that stays.)"""
    if shape.slope != 0.0:
        none = np.zeros((shape.p, shape.n), bool)
        return none, np.zeros((shape.p, shape.n)), none
    G, exact_zero = shape.gram()
    eye = np.eye(shape.n, dtype=bool)
    off = Ball(np.where(eye, 0.0, G.mid), np.where(eye, 0.0, G.rad))
    rate = shape.rate()
    rD = view.D * view.r[None, :]                      # (p, n)
    aj = view.a.reshape(shape.p, 1)
    side0 = -(aj * (rD @ off)) * rate                  # sigma'_ji = 0
    own = (aj * view.r[None, :]) * Ball(np.diag(G.mid), np.diag(G.rad))[None, :]
    side1 = side0 - own * rate                         # sigma'_ji = 1
    lone = (exact_zero | eye).all(axis=0)              # x_i orthogonal to every other x_k
    held = lone[None, :] | (side0.upper() <= 0)
    down = -side1.upper()
    return held, np.where(held & (down > 0), down, 0.0), held & lone[None, :]


def verify_step(shape: Shape, W: Ball, a: Ball, h: float, r0: float, R: float,
                stuck=None, pinned=None, regime=None) -> StepBounds:
    """Bounds of one step: the polynomial state (W(s), a(s)), 0 <= s <= h, whose true flow
    starts within ``r0`` of (W(0), a(0)), enclosed in a tube of radius at most ``R``.
    ``stuck``: pairs whose true pre-activation is known to be <= 0 at the step's start
    (a previous step's ``stuck_end``), ``pinned``: of them, those known to be exactly 0.

    The error e = theta_true - theta obeys |e|' <= mu |e| + delta while the tube holds
    (delta the defect, bounded with the hull of every regime the tube meets; mu >= the
    largest eigenvalue of minus the Hessian of the regime's loss over the tube, which for
    the square loss is at most (c/n) max_j |sum_i r_i sigma'_ji x_i| because the
    Gauss-Newton part is positive semi-definite and the rest is block diagonal over neurons
    with eigenvalues +- s|v_j|; 0 when one layer is trained). Gronwall:
    |e(s)| <= (r0 + delta s) exp(mu s) for 0 <= s <= h. The bound is accepted only when it
    stays below R (a continuity argument then shows the tube never reached R).

    A pair's slope is certain where its sign is (z_ji's range clears R |x_i|) and, for the
    ReLU, where the pair is held at z <= 0 (`_held_down`) and was there at the start.
    A pair held down whose true z_ji is <= 0 at some time of the step is <= 0 at its end:
    so is one whose start bound z_ji(0) + r0 |x_i| is used up by its downward speed over
    the step, and one whose end range is below -R |x_i| (``stuck_end``). Of them, a pair
    that reached its surface and whose sample is orthogonal to every other stays exactly
    at z = 0 (``pinned_end``: the next step's start may be projected onto its surface,
    `restart_radius`).

    ``regime`` (p, n booleans): the regime the polynomial follows (sigma' = 1 where True,
    the slope elsewhere). Given, an undecided pair whose kink is convex over the whole tube
    (a_j r_i > 0: the loss's derivative in relu(z_ji) is positive, so near the surface the
    loss is the maximum of the two sides' smooth losses) takes the regime's slope instead
    of the hull (`_convex_pairs`): the loss is then semi-convex on the tube with modulus
    mu, its subgradient flow (every Filippov solution) is one-sided Lipschitz with
    constant mu, and the defect is measured against the regime's side. Where the
    polynomial strays to the other side of such a surface (by at most the range of its
    pre-activation there), the comparison is with its projection onto the surface; the
    projection's distance (at both ends) and its total variation over the step (at most
    the degree times the largest stray, a polynomial having that many monotone pieces) add
    to the radius. Sound with or without ``regime``: the writer and the checker pass the
    file's."""
    none = np.zeros((shape.p, shape.n), bool)
    stuck = none if stuck is None else np.asarray(stuck, bool)
    pinned = none if pinned is None else np.asarray(pinned, bool) & stuck
    xn = shape.x_norms()
    z = W @ Ball.exact(shape.X.T)
    active, inactive, zrange = sign_sets(shape, z, h, R, stuck)
    active &= ~stuck
    # first pass: the slopes the signs certify; the held-down pairs then join the inactive
    D = slopes(shape, active, inactive)
    F = field_along(shape, W, a, D, z, derivatives=False)
    view = _tube_view(shape, F, D, a, h, R)
    held, speed, lone = _held_down(shape, view)
    if np.any(stuck & held & ~inactive):
        inactive = inactive | (stuck & held)
        D = slopes(shape, active, inactive)
        F = field_along(shape, W, a, D, z, derivatives=False)
        view = _tube_view(shape, F, D, a, h, R)
    undecided_pairs = ~(active | inactive)
    convex = np.zeros_like(undecided_pairs)
    stray, tv = 0.0, 0.0
    Wp = W
    if regime is not None and undecided_pairs.any():
        convex, rho = _convex_pairs(shape, view, zrange, undecided_pairs,
                                    np.asarray(regime, bool))
        if convex.any():
            on = np.asarray(regime, bool)
            lo = np.where(active | (convex & on), 1.0, shape.slope)
            hi = np.where(inactive | (convex & ~on), shape.slope, 1.0)
            D = Ball.hull(lo, hi)
            if np.any(rho > 0):  # the projections lie in a box of these radii per neuron
                row = norm_up_rows(rho)
                Wp = Ball(W.mid, W.rad.copy())
                Wp.rad[0] = up(W.rad[0] + row[:, None], 1)
                stray = norm_up(rho)
                tv = float(up(float((W.shape[0] - 1) * rho.sum()), rho.size + 2))
    F = field_along(shape, Wp, a, D, z if Wp is W else None)
    dW = _pad(derivative(W), F.dW.shape[0]) - F.dW
    da = _pad(derivative(a), F.da.shape[0]) - F.da
    sup = np.concatenate([sup_on(dW, h).ravel(), sup_on(da, h).ravel()])
    defect = norm_up(sup)
    mu = _log_norm(shape, view) if shape.train == "both" else 0.0
    growth = exp_up(float(up(mu * h, 2)))
    start = up(r0 + stray, 1)
    r_end = float(up(up((start + up(defect * h, 2) + tv) * growth, 4) + stray, 1))
    undecided = int((undecided_pairs & ~convex).sum())
    ok = bool(np.isfinite(r_end) and r_end < R)
    why = "" if ok else f"the tube ({r_end:.3g}) outgrew the box it assumed ({R:.3g})"
    start_top = add_up(z[0].upper(), up(r0 * xn, 2)[None, :])
    used_up = sub_down(speed * h, up(speed * h * 4 * U, 2)) >= start_top
    end_top = add_up(value_at(z, h).upper(), up(R * xn, 2)[None, :])
    stuck_end = held & (stuck | used_up | (end_top <= 0))
    # reached the surface from above: certainly >= 0 at the start, certainly <= 0 by the end
    start_bottom = sub_down(z[0].lower(), up(r0 * xn, 2)[None, :])
    pinned_end = lone & (pinned | (used_up & (start_bottom >= 0)))
    return StepBounds(r_end, defect, mu, undecided, ok, why, stuck_end, pinned_end)


def norm_up_rows(rho: np.ndarray) -> np.ndarray:
    """Upper bounds of each row's Euclidean norm (p, n) -> (p,)."""
    return up(np.sqrt(up((rho * rho).sum(axis=1), rho.shape[1] + 2)), 2)


def _convex_pairs(shape: Shape, view: _TubeView, zrange, undecided: np.ndarray,
                  regime: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The undecided pairs whose kink is convex on the whole tube, and how far the
    polynomial strays to the wrong side of each one's surface (rho, in parameter distance:
    the stray of z_ji over |x_i|).

    Convex: s a_j r_i > 0 for every state of the tube, with the residuals enclosed over
    every regime the tube may meet (the hull slopes of `_tube_view`), so the loss increases
    with relu(z_ji) along every segment between the two sides' values. A pair that strays
    is projected onto its surface along x_i; where that would move another convex pair of
    the same neuron (x_i not exactly orthogonal to its sample) the stray pair keeps the
    hull instead."""
    kink = view.a.reshape(shape.p, 1) * view.r.reshape(1, shape.n)
    convex = undecided & (kink.lower() > 0)
    if not convex.any():
        return convex, np.zeros(convex.shape)
    zlo, zhi = zrange  # the pre-activations' range over the step (`sign_sets`)
    wrong = np.where(regime, np.maximum(-zlo, 0.0), np.maximum(zhi, 0.0))
    strays = convex & (wrong > 0)
    if strays.any():
        _, exact_zero = shape.gram()
        touches = ~exact_zero & ~np.eye(shape.n, dtype=bool)   # (n, n)
        for j in np.flatnonzero(strays.any(axis=1)):
            others = convex[j]
            for i in np.flatnonzero(strays[j]):
                if np.any(others & touches[i]):
                    convex[j, i] = False
        strays &= convex
    sq = (Ball.exact(shape.X) * Ball.exact(shape.X)).sum(axis=1).lower()
    x_low = np.sqrt(np.maximum(sq, 0.0)) * (1.0 - 4.0 * U)
    with np.errstate(divide="ignore"):
        rho = np.where(strays, up(wrong / np.where(x_low > 0, x_low, np.inf)[None, :], 2), 0.0)
    if np.any(strays & ~(x_low[None, :] > 0)):
        convex = convex & ~(strays & ~(x_low[None, :] > 0))
        rho = np.where(convex, rho, 0.0)
    return convex, rho


def start_sets(shape: Shape, theta0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs at z <= 0 and, of them, exactly at z = 0 at the exact initial state
    (decided in rationals where the balls cannot): the first step's ``stuck`` and
    ``pinned`` (the flow leaves a pair at exactly 0 there, relu'(0) = 0)."""
    W, _ = shape.split(np.asarray(theta0, float))
    z = Ball.exact(W) @ Ball.exact(shape.X.T)
    stuck = z.upper() < 0
    pinned = np.zeros_like(stuck)
    for j, i in np.argwhere(~stuck & ~(z.lower() > 0)):
        exact = sum((Fraction(float(u)) * Fraction(float(v))
                     for u, v in zip(W[j], shape.X[i], strict=True)), Fraction(0))
        stuck[j, i] = exact <= 0
        pinned[j, i] = exact == 0
    return stuck, pinned


# A pinned pair's surface is projected on at a restart when the state is at least this
# fraction of the radius away from it (a projection that gains less is skipped).
PROJECT_GAIN = 1e-3


def restart_radius(shape: Shape, end: Ball, r_end: float, pinned: np.ndarray,
                   theta_next: np.ndarray) -> float:
    """A radius around ``theta_next`` holding the true flow at a step's end, known to be
    within ``r_end`` of a point of ``end`` (flat ball) and on the surface z_ji = 0 of every
    ``pinned`` pair. Each projection of the centre onto such a surface (along x_i in w_j's
    coordinates) keeps the true state within sqrt(r^2 - dist^2) of the projected centre
    (Pythagoras: both lie on the surface, the step between the centres is normal to it);
    the surfaces are taken one by one where the centre is PROJECT_GAIN r or more from them.
    The certificate's writer picks ``theta_next`` (`projected_centre`); the checker calls
    this with the file's."""
    q, r = end, float(r_end)
    X = Ball.exact(shape.X)
    sq = (X * X).sum(axis=1)
    xn = shape.x_norms()
    d = shape.d
    for j, i in np.argwhere(pinned):
        w = q[j * d:(j + 1) * d]
        z = (w * X[i]).sum(axis=0)
        gap = sub_down(np.abs(z.mid), z.rad)           # |z| >= gap
        dist = float(sub_down(gap, up(gap * 4 * U, 2)) / xn[i]) if gap > 0 else 0.0
        dist = max(float(sub_down(dist, up(dist * 4 * U, 2))), 0.0)
        if dist < PROJECT_GAIN * r:
            continue
        r = float(up(np.sqrt(up(max(float(sub_down(r * r, dist * dist)), 0.0), 4)), 2))
        step = X[i] * z.divide(sq[i]).reshape(1)
        moved = w - step
        q = Ball(q.mid.copy(), q.rad.copy())
        q[j * d:(j + 1) * d] = moved
    return float(up(r + distance_up(theta_next, q), 2))


def projected_centre(shape: Shape, end: Ball, r_end: float, pinned: np.ndarray) -> np.ndarray:
    """The float centre `restart_radius` projects to (the writer's choice of the next
    step's start)."""
    q, r = end, float(r_end)
    W = q.mid.copy()
    d = shape.d
    for j, i in np.argwhere(pinned):
        x = shape.X[i]
        z = float(W[j * d:(j + 1) * d] @ x)
        dist = abs(z) / float(np.linalg.norm(x))
        if dist < PROJECT_GAIN * r:
            continue
        r = float(np.sqrt(max(r * r - dist * dist, 0.0)))
        W[j * d:(j + 1) * d] -= (z / float(x @ x)) * x
    return W


def _pad(P: Ball, length: int) -> Ball:
    mid = np.zeros((length, *P.shape[1:]))
    rad = np.zeros_like(mid)
    mid[:P.shape[0]], rad[:P.shape[0]] = P.mid, P.rad
    return Ball(mid, rad)


def _log_norm(shape: Shape, view: _TubeView) -> float:
    """mu: (c/n) max_j sqrt(sum_{i,k} rho_i rho_k D_ji D_jk |<x_i, x_k>|), rho_i >= |r_i|
    anywhere in the tube."""
    G = shape.gram()[0].magnitude()
    v = view.D.magnitude() * view.rho[None, :]           # (p, n)
    vsq = up(np.einsum("ji,ik,jk->j", v, G, v), shape.n * shape.n + 4)
    return float(up(shape.rate().magnitude() * np.sqrt(vsq.max()), 4))
