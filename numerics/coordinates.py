"""State coordinates for the exact flow: cartesian (W, a) or per-neuron log-norm.

``Cartesian`` integrates theta = (W, a) as it is. ``LogNorm`` integrates, for
each neuron with w_j(0) != 0,

    delta_j = ln||w_j|| - ln||w_j(0)||,  u_j = w_j/||w_j||,  beta_j = a_j/||w_j||,

with dw_j/dt = a_j D_j and da_j/dt = <w_j, D_j> (network.neuron_field):

    d delta_j/dt = beta_j <D_j, u_j>,
    d u_j/dt     = beta_j (D_j - <D_j, u_j> u_j),
    d beta_j/dt  = <D_j, u_j> (1 - beta_j^2).

For a balanced neuron beta_j = s_j stays exactly +-1 and this is S002 eq. (9).
The network output only needs a_j w_j = beta_j e^{2 rho_j} u_j, so scales far
below float64's range (THEORY N-4) neither underflow the state nor stall the
plateau: ln||w_j|| grows at an O(1) rate. A neuron with w_j(0) = 0 receives no
gradient (relu'(0) = 0) and is kept frozen outside the integrated state.

The absolute error in delta_j is the relative error of ||w_j||, so delta_j gets
the absolute tolerance ``rtol`` and a negligible relative one.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from numerics import network
from numerics.problem import Problem
from numerics.sliding import gram_root, solve_or_min_norm

# scipy warns (an error under filterwarnings) for rtol < 100 eps; stay just above.
_RTOL_FLOOR = 200 * np.finfo(float).eps


def neuron_states(W, a):
    """theta_j = (w_j, a_j) per neuron, (..., p, d + K): a (..., p) or, for a vector
    output, (..., p, K)."""
    return np.concatenate([W, a if a.ndim == W.ndim else a[..., None]], axis=-1)


def relative_difference(W1, a1, W2, a2) -> float:
    """max over times and neurons of |theta_j - theta'_j| / |theta_j|, theta_j = (w_j, a_j)."""
    if len(a1) == 0 or len(a1) != len(a2):
        return float("inf")
    th1, th2 = neuron_states(W1, a1), neuron_states(W2, a2)
    return _max_relative(np.linalg.norm(th1 - th2, axis=-1), np.linalg.norm(th1, axis=-1))


def _max_relative(diff, scale) -> float:
    """max of diff / scale (per neuron and time), 0/0 = 0, x/0 = inf; inf if not finite."""
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(scale > 0, diff / scale, np.where(diff > 0, np.inf, 0.0))
    return float(np.max(rel)) if np.all(np.isfinite(rel)) else float("inf")


class DataGeometry:
    """The products of the data with itself and with the initial first layer: the only
    computations of the flow with d-long rows, done once per Problem (`geometry`), so the
    main and the companion run share them. Each is computed when first asked for, and is
    read-only (the runs share the arrays)."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem

    @cached_property
    def G(self) -> np.ndarray:
        """The Gram matrix X X^T (n x n)."""
        return _frozen(self.problem.X @ self.problem.X.T)

    @cached_property
    def Z0(self) -> np.ndarray:
        """The initial pre-activations W0 X^T (p x n)."""
        return _frozen(network.preactivations(self.problem.W0, self.problem.X))

    @cached_property
    def x_norms(self) -> np.ndarray:
        """||x_i|| (n)."""
        return _frozen(np.sqrt(np.diag(self.G)))

    @cached_property
    def span_split(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(R, P0, perp_sq): G = R^T R (to round-off where G is singular); W0 = W0perp
        + P0 X with W0perp orthogonal to the samples and ||W0perp_j||^2 = perp_sq_j."""
        X, W0 = self.problem.X, self.problem.W0
        R = gram_root(self.G)
        P0 = solve_or_min_norm(self.G, self.Z0.T).T
        W0perp = P0 @ X
        np.subtract(W0, W0perp, out=W0perp)
        perp_sq = np.sum(W0perp**2, axis=-1)
        return tuple(_frozen(v) for v in (R, P0, perp_sq))


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr


_LAST_GEOMETRY: list[DataGeometry] = []


def geometry(problem: Problem) -> DataGeometry:
    """The DataGeometry of ``problem``, shared with the previous call on the same Problem
    object (a Problem's arrays are read-only: its products cannot go stale)."""
    if _LAST_GEOMETRY and _LAST_GEOMETRY[0].problem is problem:
        return _LAST_GEOMETRY[0]
    geo = DataGeometry(problem)
    _LAST_GEOMETRY[:] = [geo]
    return geo


class _LinearState:
    """Coordinates ``y = (weights of the first layer, a)`` linear in W: the output weights
    are the last p entries and a state needs no renormalising on a restart."""

    supports_sliding = True

    @staticmethod
    def neuron_floor(problem: Problem, rtol: float, atol_fraction: float) -> np.ndarray:
        """Each neuron's absolute tolerance: ``atol_fraction`` of the relative tolerance
        at the neuron's initial size sqrt(|w_j(0)|^2 + |a_j(0)|^2) (at least 1e-300)."""
        a_sq = problem.a0**2 if problem.a0.ndim == 1 else np.sum(problem.a0**2, axis=1)
        scale = np.sqrt(np.sum(problem.W0**2, axis=1) + a_sq)
        return np.maximum(scale * rtol * atol_fraction, 1e-300)

    def output_weights(self, Y):
        return self._unpack(Y)[1]

    def _outputs_part(self, rest):
        """The state's output weights (..., p), or (..., p, K) for a vector output."""
        if self.problem.vector_output:
            return rest.reshape(rest.shape[:-1] + (self.problem.p, self.problem.n_outputs))
        return rest

    def _output_floor(self, floor):
        """The output weights' absolute tolerances (one per entry of a)."""
        return np.repeat(floor, self.problem.n_outputs)

    def restart(self, y):
        return y


class Cartesian(_LinearState):
    """y = (W.ravel(), a): the default coordinates."""

    name = "cartesian"

    def __init__(self, problem: Problem, rtol: float, atol_fraction: float) -> None:
        self.problem = problem
        p, d = problem.p, problem.d
        self.n_w = p * d
        self.y0 = np.concatenate([problem.W0.ravel(), problem.a0.ravel()])
        floor = self.neuron_floor(problem, rtol, atol_fraction)
        self.rtol = rtol
        self.atol = np.concatenate([np.repeat(floor, d), self._output_floor(floor)])

    def _unpack(self, Y):
        p, d = self.problem.p, self.problem.d
        return (Y[..., : self.n_w].reshape(Y.shape[:-1] + (p, d)),
                self._outputs_part(Y[..., self.n_w :]))

    def field(self, y, mask, sliding=None):
        W, a = self._unpack(y)
        dW, da = network.flow_field(self.problem, W, a, mask, sliding)
        return np.concatenate([dW.ravel(), da.ravel()])

    def directions(self, Y):
        return self._unpack(Y)[0]

    def direction_norms(self, Y):
        """||w_j||, shape (..., p)."""
        return np.linalg.norm(self._unpack(Y)[0], axis=-1)

    def direction_norm(self, y, j: int) -> float:
        """||w_j|| of one neuron at one state."""
        d = self.problem.d
        return float(np.linalg.norm(y[j * d:(j + 1) * d]))

    def preactivations(self, Y):
        return network.preactivations(self._unpack(Y)[0], self.problem.X)

    def shift(self, y, j, idx, dz):
        """y with w_j moved by the least change that adds ``dz`` to z_ij, i in ``idx``."""
        y = y.copy()
        X = self.problem.X[idx]
        d = self.problem.d
        # the least change: X^T (X X^T)^-1 dz, or min-norm when the samples are dependent
        y[j * d:(j + 1) * d] += solve_or_min_norm(X @ X.T, dz) @ X
        return y

    def outputs(self, Y) -> dict:
        W, a = self._unpack(Y)
        return {"W": W, "a": a}

    def difference(self, Y1, Y2) -> float:
        return relative_difference(*self._unpack(Y1), *self._unpack(Y2))


class LogNorm:
    """y = (delta, u.ravel(), beta) over the neurons with w_j(0) != 0."""

    name = "lognorm"
    supports_sliding = False

    def __init__(self, problem: Problem, rtol: float, atol_fraction: float) -> None:
        self.problem = problem
        norms = np.linalg.norm(problem.W0, axis=1)
        self.live = np.flatnonzero(norms > 0)
        self.rho0 = np.log(norms[self.live])
        q, d = self.live.size, problem.d
        self.q = q
        U0 = problem.W0[self.live] / norms[self.live, None]
        beta0 = problem.a0[self.live] / norms[self.live]
        self.y0 = np.concatenate([np.zeros(q), U0.ravel(), beta0])
        self.rtol = np.concatenate([np.full(q, _RTOL_FLOOR), np.full(q * d + q, rtol)])
        self.atol = np.concatenate([
            np.full(q, rtol),
            np.full(q * d, rtol * atol_fraction),
            np.maximum(np.abs(beta0), 1.0) * rtol * atol_fraction,
        ])

    def _unpack(self, Y):
        q, d = self.q, self.problem.d
        delta = Y[..., :q]
        U = Y[..., q : q + q * d].reshape(Y.shape[:-1] + (q, d))
        beta = Y[..., q + q * d :]
        return delta, U, beta

    def _full(self, part, fill):
        shape = part.shape[:-2] + (self.problem.p,) + part.shape[-1:]
        out = np.full(shape, fill, dtype=float)
        out[..., self.live, :] = part
        return out

    def field(self, y, mask, sliding=None):
        """``sliding`` is not supported here (the constraints are not linear in (u, beta)):
        the integrator stops at a sliding mode in these coordinates."""
        delta, U, beta = self._unpack(y)
        a_w = np.zeros(self.problem.p)  # a_j ||w_j||^2 = beta_j e^{2 rho_j}
        a_w[self.live] = beta * np.exp(2.0 * (self.rho0 + delta))
        U_all = self._full(U[:, :], 0.0)
        h = network.outputs(self.problem, U_all, a_w, mask)
        D = network.neuron_field(self.problem, h, mask)[self.live]
        proj = np.einsum("jd,jd->j", D, U)
        d_delta = beta * proj
        dU = beta[:, None] * (D - proj[:, None] * U)
        d_beta = proj * (1.0 - beta**2)
        return np.concatenate([d_delta, dU.ravel(), d_beta])

    def directions(self, Y):
        return self._full(self._unpack(Y)[1], 0.0)

    def direction_norms(self, Y):
        """||u_j|| (the rows of `directions`; 0 for a frozen zero neuron), shape (..., p)."""
        U = self._unpack(Y)[1]
        out = np.zeros(U.shape[:-2] + (self.problem.p,))
        out[..., self.live] = np.linalg.norm(U, axis=-1)
        return out

    def preactivations(self, Y):
        """<u_j, x_i>: the signs of the pre-activations (norms dropped; they may underflow)."""
        return network.preactivations(self.directions(Y), self.problem.X)

    def restart(self, y):
        delta, U, beta = self._unpack(y)
        U = U / np.linalg.norm(U, axis=-1, keepdims=True)
        return np.concatenate([delta, U.ravel(), beta])

    def outputs(self, Y) -> dict:
        delta, U, beta = self._unpack(Y)
        rho = self.rho0 + delta
        U = U / np.linalg.norm(U, axis=-1, keepdims=True)
        r = np.exp(rho)  # may underflow to 0 for extreme scales: log_norms stay exact
        p = self.problem.p
        W = np.repeat(self.problem.W0[None], Y.shape[0], axis=0)
        a = np.repeat(self.problem.a0[None], Y.shape[0], axis=0)
        log_norms = np.full((Y.shape[0], p), -np.inf)
        W[:, self.live] = r[..., None] * U
        a[:, self.live] = beta * r
        log_norms[:, self.live] = rho
        return {"W": W, "a": a, "log_norms": log_norms}

    def difference(self, Y1, Y2) -> float:
        """max over times and live neurons of |d ln||w_j||| + |d(u_j, beta_j)| / |(u_j, beta_j)|.

        To first order the relative difference of theta_j = ||w_j|| (u_j, beta_j),
        measured without forming the (possibly underflowing) weights.
        """
        d1, U1, b1 = self._unpack(Y1)
        d2, U2, b2 = self._unpack(Y2)
        v1 = np.concatenate([U1, b1[..., None]], axis=-1)
        v2 = np.concatenate([U2, b2[..., None]], axis=-1)
        rel = np.abs(d1 - d2) + np.linalg.norm(v1 - v2, axis=-1) / np.linalg.norm(v1, axis=-1)
        if rel.size == 0:
            return 0.0
        return float(np.max(rel)) if np.all(np.isfinite(rel)) else float("inf")


class Span(_LinearState):
    """y = (C.ravel(), a) with W = W0 + C X: the flow in the span of the data.

    dW/dt = -kappa grad_W L = -kappa coef @ X (network.gradient_from_preactivations),
    so W - W0 stays in the row space of X and C (p x n) carries it. Everything the
    integrator asks for is computed from n x n and p x n matrices fixed at the start,
    so a step or an event costs O(p n^2) whatever d is:

    - pre-activations Z = W0 X^T + C G with the Gram matrix G = X X^T;
    - neuron norms (`direction_norms`): W0 = W0perp + P0 X with W0perp orthogonal to
      the samples, so w_j = W0perp_j + B_j X with B = P0 + C and
      ||w_j||^2 = ||W0perp_j||^2 + ||R B_j||^2 (G = R^T R; `DataGeometry.span_split`). The
      cross term 2 <W0perp_j, B_j X> is zero (W0perp is orthogonal to the samples) and is
      not evaluated: computed as <W0perp X^T, B_j> its round-off (|B_j| times that of the
      projection) swamped a neuron 1e-6 of its initial size whose B_j X nearly cancels (a
      relative error of 1.3e-3 on one OpenBLAS kernel), while leaving it out errs by at most
      2 |W0perp_j| |B_j X| times the cosine of the two, which is round-off. No term
      cancels another, so a neuron much smaller than w_j(0) keeps its relative accuracy;
    - differences between two runs (`difference`): W1 - W2 = (C1 - C2) X.

    W (p x d) is formed only by `outputs` and `directions`, i.e. at the saved times when
    the run is turned into a Trajectory.
    """

    name = "span"

    def __init__(self, problem: Problem, rtol: float, atol_fraction: float) -> None:
        self.problem = problem
        p, n = problem.p, problem.n
        self.n_c = p * n
        X = problem.X
        geo = geometry(problem)
        self.Z0, self.G = geo.Z0, geo.G
        self.R, self.P0, self.perp_sq = geo.span_split
        self.y0 = np.concatenate([np.zeros(p * n), problem.a0.ravel()])
        floor = self.neuron_floor(problem, rtol, atol_fraction)
        x_scale = float(np.max(np.linalg.norm(X, axis=1)))
        self.rtol = rtol
        # C has units of W per unit of x: its floor is the neuron's floor over |x|
        self.atol = np.concatenate([np.repeat(floor / x_scale, n), self._output_floor(floor)])

    def _unpack(self, Y):
        p, n = self.problem.p, self.problem.n
        return (Y[..., : self.n_c].reshape(Y.shape[:-1] + (p, n)),
                self._outputs_part(Y[..., self.n_c :]))

    def preactivations(self, Y):
        C, _ = self._unpack(Y)
        return self.Z0 + C @ self.G

    def field(self, y, mask, sliding=None):
        C, a = self._unpack(y)
        coef, grad_a = network.gradient_from_preactivations(
            self.problem, self.Z0 + C @ self.G, a, mask, sliding)
        vC, va = network.trained_velocity(self.problem, coef, grad_a)
        return np.concatenate([vC.ravel(), va.ravel()])

    def _span_sq(self, B):
        """||B_j X||^2 = ||R B_j||^2 per row of B (..., p, n)."""
        return np.sum((B @ self.R.T) ** 2, axis=-1)

    def direction_norms(self, Y):
        """||w_j||, shape (..., p), without forming W."""
        B = self.P0 + self._unpack(Y)[0]
        sq = self.perp_sq + self._span_sq(B)
        return np.sqrt(np.maximum(sq, 0.0))

    def direction_norm(self, y, j: int) -> float:
        """||w_j|| of one neuron at one state (as `direction_norms`)."""
        n = self.problem.n
        B = self.P0[j] + y[j * n:(j + 1) * n]
        return float(np.sqrt(max(self.perp_sq[j] + np.sum((self.R @ B) ** 2), 0.0)))

    def directions(self, Y):
        return self._weights(self._unpack(Y)[0])

    def _weights(self, C):
        """W0 + C X for C of shape (..., p, n): one matrix product over all times."""
        n, d = self.problem.n, self.problem.d
        W = (C.reshape(-1, n) @ self.problem.X).reshape(C.shape[:-1] + (d,))
        W += self.problem.W0  # in place: one pass over the (T, p, d) result
        return W

    def shift(self, y, j, idx, dz):
        """y with w_j moved by the least change that adds ``dz`` to z_ij, i in ``idx``."""
        y = y.copy()
        n = self.problem.n
        y[j * n + np.asarray(idx)] += solve_or_min_norm(self.G[np.ix_(idx, idx)], dz)
        return y

    def outputs(self, Y) -> dict:
        C, a = self._unpack(Y)
        return {"W": self._weights(C), "a": a}

    def difference(self, Y1, Y2) -> float:
        """As `relative_difference` of the two runs' (W, a), from the coefficients:
        |w1_j - w2_j| = ||R (C1_j - C2_j)||."""
        if len(Y1) == 0 or len(Y1) != len(Y2):
            return float("inf")
        C1, a1 = self._unpack(Y1)
        C2, a2 = self._unpack(Y2)
        da_sq, a_sq = (a1 - a2) ** 2, a1**2
        if self.problem.vector_output:
            da_sq, a_sq = np.sum(da_sq, axis=-1), np.sum(a_sq, axis=-1)
        diff = np.sqrt(self._span_sq(C1 - C2) + da_sq)
        scale = np.sqrt(self.direction_norms(Y1) ** 2 + a_sq)
        return _max_relative(diff, scale)


COORDINATES = {"cartesian": Cartesian, "lognorm": LogNorm, "span": Span}


LOGNORM_BELOW = 1e-60  # (1e-60)^4 = 1e-240: below it a product of four weights nears underflow


def resolve(name: str, problem: Problem) -> str:
    """``auto``: log-norm coordinates for a initialisation so small that products of four
    weights underflow (scale below ``LOGNORM_BELOW``), else the span of the data when n < d
    (cheaper per step), else cartesian."""
    if name == "auto":
        if (problem.init_scale is not None and problem.init_scale < LOGNORM_BELOW
                and not problem.model_spec and not problem.vector_output):
            # log-norm coordinates: the ReLU network's with a scalar output
            return "lognorm"
        return "span" if problem.n < problem.d else "cartesian"
    return name
