"""Taylor series of the flow inside a regime, for a batch of trials, order by order.

Inside a regime (activation pattern and sliding sets fixed) a piecewise-linear network's
field is a polynomial in the state: with D = sigma'(z) fixed (1/0 for ReLU, slope + (1 -
slope) A for a leaky ReLU), h(x_i) = s sum_j a_j D_ji z_ji is quadratic and the velocity

    dw_j/dt = -kappa s a_j sum_i (D_ji g_i + (1 - slope) beta_ji) x_i,
    da_j/dt = -kappa s sum_i D_ji z_ji g_i,

is cubic (g_i = dL/dh(x_i); beta the Filippov coefficients of the sliding pairs, linear in
g: `numerics.sliding.SlidingSystem`). So every Taylor coefficient of the solution follows
from the lower ones by Cauchy products (the recurrence of the ODE), and so does every
pre-activation's: z_ij(t0 + tau) = sum_k Z_k[j, i] tau^k is a known polynomial over the
step. The exponential and logistic losses add the recurrences of exp(u) and of the
sigmoid 1/(1 + e^m) (the same ones `numerics.mpflow` runs in mpmath).

The state is the coordinates' first-layer part U (W itself, or C with W = W0 + C X) and a.
Every velocity of the first layer lies in the span of the data, dw_j/dt = sum_i c_ji x_i,
so the coefficients of order k >= 1 are kept as such c (p x n) and Z_k = c_k G with the
Gram matrix G = X X^T: one product of p x n by n x n per order, whatever d is; W itself is
formed only where a state is asked for (W = W_0 + (sum_k c_k tau^k) X). When n > 2 d that
product costs more than two with d, and the coefficients are kept as W_k (p x d), Z_k =
W_k X^T.

Each order costs one or two matrix products (BLAS) and three contractions over the orders
so far, each a matrix product too (the orders' arrays are laid out so that they are views).
Batch: every array has a leading axis over trials of the same sizes and conventions (their
data and loss scales may differ). The arrays live where `numerics.flow.arrays` puts them
(numpy on the CPU, or torch on a device); what the driver reads comes back as numpy.
"""

from __future__ import annotations

import numpy as np

from numerics.coordinates import geometry
from numerics.flow.arrays import NumpyArrays
from numerics.problem import Problem


def supports(problem: Problem, coordinates: str) -> bool:
    """Whether the series integrate ``problem`` in ``coordinates``: a piecewise-linear
    activation (its field is polynomial inside a regime) in linear coordinates, with a
    scalar output (the softmax of a vector output has no recurrence here)."""
    return (problem.activation.piecewise_linear and coordinates in ("cartesian", "span")
            and not problem.vector_output)


def order_for(rtol: float) -> int:
    """The highest order used at tolerance ``rtol``: Jorba and Zou (2005)'s
    ceil(-ln(rtol) / 2) + 1, at least 6 (13 at 1e-10)."""
    return max(6, int(np.ceil(-np.log(rtol) / 2.0)) + 1)


class FlowSeries:
    """The Taylor coefficients of a batch of runs at one step, computed order by order.

    ``start(Y)`` sets order 0 (the states, one row per trial); each `extend` adds the
    next order of U, a and Z = the pre-activations; `state_at` sums the series. The
    regime of each trial (``D`` = sigma'(z) held, its sliding system) is set by
    `set_regime` and kept until changed. ``xp`` (`numerics.flow.arrays`) holds the arrays;
    every method that returns one to the driver returns it as numpy.
    """

    def __init__(self, problems: list[Problem], coordinates: str, max_order: int,
                 xp=None) -> None:
        xp = self.xp = NumpyArrays() if xp is None else xp
        first = problems[0]
        self.B, self.p, self.n, self.d = len(problems), first.p, first.n, first.d
        self.kind = coordinates
        self.m = self.d if coordinates == "cartesian" else self.n
        # higher orders in the span of the data (Z_k = c_k G) unless n > 2d in cartesian
        self.gram = coordinates == "span" or self.n <= 2 * self.d
        self.r = self.n if self.gram else self.d
        self.K = int(max_order)
        self.s, self.kappa = first.output_factor, first.flow_factor
        self.loss = first.loss
        act = first.activation
        self.kink = act.kink_share
        self.moves_W, self.moves_a = first.trains_first_layer, first.trains_second_layer
        self.y = xp.put(np.stack([q.y for q in problems]))
        self.c = xp.put(np.array([q.loss_scale for q in problems])[:, None])
        geos = [geometry(q) for q in problems]
        if coordinates == "cartesian":
            X = np.stack([q.X for q in problems])
            self.X = xp.put(X)
            self.XT = xp.put(np.ascontiguousarray(X.transpose(0, 2, 1)))
        else:
            self.Z0 = xp.put(np.stack([g.Z0 for g in geos]))
            self.P0 = xp.put(np.stack([g.span_split[1] for g in geos]))
            self.perp_sq = xp.put(np.stack([g.span_split[2] for g in geos]))
        if self.gram:
            self.G = xp.put(np.stack([g.G for g in geos]))
        B, K, p, n, m = self.B, self.K, self.p, self.n, self.m
        self.U0 = xp.zeros((B, p, m))  # order 0 of the coordinates' first layer
        self.U = xp.zeros((B, K + 1, p, self.r))  # orders >= 1: c_k (gram) or W_k
        self._coef = None if self.gram else xp.zeros((B, p, n))
        self.a = xp.zeros((B, K + 1, p))
        self.Z = xp.zeros((B, K + 1, p, n))
        self.S1 = xp.zeros((B, K + 1, p, n))  # sigma(z) = D z
        self.h = xp.zeros((B, K + 1, n))
        self.g = xp.zeros((B, K + 1, n))
        self.aux = xp.zeros((B, K + 1, n))  # exp(-y h), or the sigmoid S = 1/(1 + e^{y h})
        self.aux2 = xp.zeros((B, K + 1, n))  # S (1 - S) (logistic)
        self.D = xp.zeros((B, p, n))
        self.sizes = xp.zeros((B, K + 1, p))  # |theta_j| of each order (`neuron_sizes`)
        self.systems: list = [None] * B
        self.Q: list = [None] * B  # per trial with sliding pairs: its Q on the backend
        self.beta: list = [None] * B  # per trial with sliding pairs: (K + 1, m_s)
        self.k = -1  # the highest order of U, a, Z known
        self.k_out = -1  # the highest order of h, g known

    # -- the regime and order 0 ------------------------------------------------------
    def set_regime(self, b: int, D: np.ndarray, system, rows=None) -> None:
        """Trial b's sigma'(z) held fixed (p x n; only the neurons ``rows`` changed, all
        when None) and its sliding system (None if empty)."""
        xp = self.xp
        if rows is None:
            self.D[b] = xp.put(D)
        else:
            self.D[b, rows] = xp.put(D[rows])
        system = None if system is None or system.empty else system
        if system is not self.systems[b]:
            self.Q[b] = None if system is None else xp.put(system.Q)
        self.systems[b] = system
        self.beta[b] = None if system is None else xp.zeros((self.K + 1, len(system.rows)))

    def preactivations(self, U):
        """Z of first-layer parts U (..., B, p, m): U X^T, or Z0 + U G in span coordinates."""
        if self.kind == "cartesian":
            return self.xp.matmul(U, self.XT)
        return self.Z0 + self.xp.matmul(U, self.G)

    def start(self, Y, Z=None) -> None:
        """Order 0 from the states Y (B x dim, one row per trial) and, when already known,
        their pre-activations Z (B x p x n); numpy arrays."""
        xp, p, m = self.xp, self.p, self.m
        for b, y in enumerate(Y):
            self.U0[b] = xp.put(y[: p * m].reshape(p, m))
            self.a[b, 0] = xp.put(y[p * m:])
        if Z is None:
            self.Z[:, 0] = self.preactivations(self.U0)
        else:
            for b, z in enumerate(Z):
                self.Z[b, 0] = xp.put(z)
        self.k, self.k_out = 0, -1
        self._w = None
        self.measured = -1  # the highest order whose sizes are known
        self._measure_upto(0)

    # -- the recurrence ---------------------------------------------------------------
    def outputs(self) -> None:
        """h and g = dL/dh of the highest order known (from the orders of a and Z)."""
        k = self.k
        if self.k_out >= k:
            return
        xp, B, p, n = self.xp, self.B, self.p, self.n
        xp.multiply(self.D, self.Z[:, k], out=self.S1[:, k])
        a_rev = xp.rev(self.a[:, : k + 1], 1).reshape(B, 1, (k + 1) * p) * self.s
        xp.matmul(a_rev, self.S1[:, : k + 1].reshape(B, (k + 1) * p, n),
                  out=self.h[:, k:k + 1])
        self.g[:, k] = self._loss_coefficient(k)
        for b, Q in enumerate(self.Q):
            if Q is not None:
                self.beta[b][k] = xp.matmul(Q, self.g[b, k])
        self.k_out = k

    def _loss_coefficient(self, k: int):
        """Coefficient k of g = dL/dh from h_0 .. h_k (and the auxiliary series)."""
        xp, h, y, c = self.xp, self.h, self.y, self.c
        if self.loss == "square":  # g = c (h - y) / n
            return c * (h[:, k] - y) / self.n if k == 0 else c * h[:, k] / self.n
        E = self.aux
        if self.loss == "exponential":  # g = -c y exp(-y h)
            if k == 0:
                E[:, 0] = xp.exp(-y * h[:, 0])
            else:  # (exp u)_k = (1/k) sum_l l u_l E_{k-l}, u = -y h
                weights = xp.arange(1, k + 1)[None, :, None] * (-y[:, None, :] * h[:, 1:k + 1])
                E[:, k] = xp.sum(weights * xp.rev(E[:, :k], 1), axis=1) / k
            return -c * y * E[:, k]
        # logistic: g = -c y S, S = 1/(1 + e^M), M = y h, dS/dt = -S (1 - S) dM/dt
        S, Q = self.aux, self.aux2
        if k == 0:
            S[:, 0] = xp.exp(-xp.softplus(y * h[:, 0]))
        else:
            weights = xp.arange(1, k + 1)[None, :, None] * (y[:, None, :] * h[:, 1:k + 1])
            S[:, k] = -xp.sum(weights * xp.rev(Q[:, :k], 1), axis=1) / k
        Q[:, k] = S[:, k] - xp.sum(S[:, : k + 1] * xp.rev(S[:, : k + 1], 1), axis=1)
        return -c * y * S[:, k]

    def extend(self) -> None:
        """Order k + 1 of U, a and Z from the orders up to k."""
        self.outputs()
        xp, k = self.xp, self.k
        scale = -self.s * self.kappa / (k + 1)
        g_rev = xp.rev(self.g[:, : k + 1], 1) * scale  # g_k .. g_0 (B, k + 1, n), scaled
        if self.moves_W:
            # the velocity's coefficient s a_j (D_ji g_i + kink beta_ji), Cauchy product in t
            coef = self.U[:, k + 1] if self.gram else self._coef
            xp.matmul(xp.swap(self.a[:, : k + 1]), g_rev, out=coef)
            coef *= self.D
            for b, system in enumerate(self.systems):
                if system is not None:
                    r, col = system.rows, system.cols
                    conv = xp.sum(self.a[b, : k + 1][:, r] * xp.rev(self.beta[b][: k + 1], 0),
                                  axis=0)
                    coef[b, r, col] += (self.kink * scale) * conv
            if self.gram:
                xp.matmul(coef, self.G, out=self.Z[:, k + 1])
            else:
                xp.matmul(coef, self.X, out=self.U[:, k + 1])
                xp.matmul(self.U[:, k + 1], self.XT, out=self.Z[:, k + 1])
        if self.moves_a:
            rates = xp.matmul(self.S1[:, : k + 1], g_rev[..., None])  # (B, k + 1, p, 1)
            xp.sum(rates[..., 0], axis=1, out=self.a[:, k + 1])
        self.k = k + 1

    # -- sizes, steps and sums -----------------------------------------------------------
    def neuron_sizes(self, k: int) -> np.ndarray:
        """|theta_j| of coefficient k per trial and neuron (B, p), theta_j = (w_j, a_j) over
        the trained layers (a frozen layer's coefficients are 0 beyond order 0)."""
        return self.upto(k)[:, k]

    def upto(self, k: int) -> np.ndarray:
        """`neuron_sizes` of every order to k (B, k + 1, p), those not yet known computed
        together; numpy."""
        if self.measured < k:
            self._measure_upto(k)
        return self._sizes_host[:, : k + 1]

    def _measure_upto(self, k: int) -> None:
        xp, lo = self.xp, self.measured + 1
        if lo == 0:  # order 0: the state's own norms
            sq0 = xp.put(self.weight_norms() ** 2) if self.moves_W else xp.zeros((self.B,
                                                                                self.p))
            if self.moves_a:
                sq0 = sq0 + self.a[:, 0] ** 2
            xp.sqrt(sq0, out=self.sizes[:, 0])
            lo = 1
        if k >= lo:
            U, Z = self.U[:, lo:k + 1], self.Z[:, lo:k + 1]
            if not self.moves_W:
                sq = xp.zeros((self.B, k + 1 - lo, self.p))
            elif self.gram:  # Z_l = c_l G: |c_l X|^2 = sum_i c_l Z_l (>= 0 up to round-off)
                sq = abs(xp.einsum("blji,blji->blj", U, Z))
            else:
                sq = xp.einsum("bljm,bljm->blj", U, U)
            if self.moves_a:
                a = self.a[:, lo:k + 1]
                sq += a * a
            xp.sqrt(sq, out=self.sizes[:, lo:k + 1])
        self.measured = k
        self._sizes_host = xp.host(self.sizes)

    def weight_norms(self) -> np.ndarray:
        """||w_j|| at order 0 (the step's start) per trial and neuron (B, p), numpy; in span
        coordinates |w_j|^2 = |W0perp_j|^2 + (P0 + C)_j G (P0 + C)_j^T."""
        if self._w is not None:
            return self._w
        xp, U = self.xp, self.U0
        if self.kind == "cartesian":
            w2 = xp.einsum("bjm,bjm->bj", U, U)
        else:
            w2 = self.perp_sq + xp.einsum("bji,bji->bj", self.P0 + U, self.Z[:, 0])
        self._w = np.sqrt(np.maximum(xp.host(w2), 0.0))
        return self._w

    def step_bound(self, eps: np.ndarray) -> np.ndarray:
        """Per trial, the longest step whose truncation at the highest order known stays
        within ``eps`` (B, p) per neuron: the last two coefficients' terms |theta_l| tau^l
        at most eps (Jorba and Zou's estimate of the remainder). inf where both vanish."""
        k = self.k
        bound = np.full(self.B, np.inf)
        with np.errstate(divide="ignore", over="ignore"):
            for order in (k - 1, k):
                if order >= 1:
                    least = np.min(eps / self.neuron_sizes(order), axis=1)
                    bound = np.minimum(bound, least ** (1.0 / order))
        return bound

    def state_at(self, b: int, taus: np.ndarray, order: int | None = None) -> np.ndarray:
        """Trial b's states at step offsets ``taus`` (T,), one row each (T, dim), from the
        series truncated at ``order`` (the highest known by default); numpy."""
        xp = self.xp
        k = self.k if order is None else order
        taus = np.asarray(taus, dtype=float)
        powers = xp.put(taus[:, None] ** np.arange(1, k + 1))  # (T, k)
        U = xp.matmul(powers, self.U[b, 1:k + 1].reshape(k, -1))
        a = xp.matmul(powers, self.a[b, 1:k + 1]) + self.a[b, 0]
        if self.gram and self.kind == "cartesian":  # W = W_0 + (sum c_k tau^k) X
            U = xp.matmul(U.reshape(-1, self.n), self.X[b]).reshape(len(taus), -1)
        U += self.U0[b].reshape(1, -1)
        return np.concatenate([xp.host(U), xp.host(a)], axis=1)

    def z_at(self, b: int, tau: float, order: int | None = None) -> np.ndarray:
        """Trial b's pre-activations at step offset ``tau`` from the series truncated at
        ``order`` (the highest known by default), (p, n), numpy."""
        xp = self.xp
        k = self.k if order is None else order
        powers = xp.put(tau ** np.arange(1, k + 1))
        Z = xp.matmul(powers, self.Z[b, 1:k + 1].reshape(k, -1)).reshape(self.p, self.n)
        return xp.host(Z + self.Z[b, 0])

    def z_rows(self, b: int, rows: np.ndarray) -> np.ndarray:
        """Trial b's pre-activation coefficients on the neurons ``rows`` (k + 1, len(rows),
        n), orders first; numpy."""
        return self.xp.host(self.Z[b, : self.k + 1][:, rows])

    def loss_series(self, b: int, sample: int) -> list[float]:
        """Trial b's coefficients of g_i (i = ``sample``) to the highest order known."""
        self.outputs()
        return self.xp.host(self.g[b, : self.k + 1, sample]).tolist()

    def exit_series(self, b: int) -> np.ndarray:
        """Per sliding pair of trial b, the coefficients of -beta (g_i - beta) (k + 1, m_s),
        truncated at the highest order known: > 0 exactly when alpha = beta / g_i has left
        [0, 1] (the pair's exit from its surface); numpy. ``beta_series`` gives beta's."""
        beta = self.beta_series(b)
        rest = self.xp.host(self.g[b, : self.k + 1])[:, self.systems[b].cols] - beta
        out = np.zeros_like(beta)
        for order in range(self.k + 1):
            out[order] = -np.sum(beta[: order + 1] * rest[order::-1], axis=0)
        return out

    def beta_series(self, b: int) -> np.ndarray:
        """Trial b's Filippov coefficients of its sliding pairs (k + 1, m_s), numpy."""
        self.outputs()
        return self.xp.host(self.beta[b][: self.k + 1])
