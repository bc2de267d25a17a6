"""Sliding modes of the ReLU gradient flow: the Filippov (Clarke) velocity on z_ij = 0.

Write z_ij = <w_j, x_i> and g_i = dL/dh(x_i). Off the surfaces z_ij = 0 the flow is
dw_j/dt = -kappa s a_j sum_i 1{z_ij > 0} g_i x_i. On them the Clarke subdifferential
of L replaces each indicator of a vanishing pre-activation by alpha_ij in [0, 1]
(relu'(0) = [0, 1]), and a_j's velocity is unchanged (relu(0) = 0). Per neuron j and
its set K of vanishing pre-activations, with beta_i = alpha_ij g_i and the Gram
matrix G = X X^T,

    dz_ij/dt = c_j (q_i + sum_{k in K} G_ik beta_k),   c_j = -kappa s a_j,
    q_i = sum_{l active, l not in K} G_il g_l.

A solution of the differential inclusion picks, per pair of K, one of: inactive
(alpha = 0, dz <= 0), active (alpha = 1, dz >= 0), or sliding (alpha in [0, 1],
dz = 0): a box-constrained linear complementarity problem per neuron.

- Pairs with a_j g_i > 0 attract from both sides when their alpha is interior. On
  them the problem is the minimisation of |dw_j/dt|^2 over the box (the
  minimal-norm element of the subdifferential), a convex quadratic with matrix
  D G_KK D (D = diag(g)): its minimiser exists, is unique, and satisfies the
  complementarity conditions exactly.
- Pairs with a_j g_i < 0 repel: if the flow pushes them to one side whatever alpha
  they get, they cross to it; if both sides repel, the solution is not unique and
  the convention relu'(0) = 0 sends them to the inactive side. Such a choice is
  returned so that the trajectory records it.

Inside a segment the sliding sets and the regular mask are fixed and the sliding
coefficients are the linear map beta_S = -G_SS^{-1} G_{S, A_j} g_{A_j} of g
(`SlidingSystem`), which keeps dz_S/dt = 0 exactly: Runge-Kutta methods preserve
linear invariants, so the constraints do not drift.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import lsq_linear

INACTIVE, ACTIVE, SLIDING = 0, 1, 2


@dataclass(frozen=True)
class Choice:
    """A pair repelled from both sides at time t: the solution is not unique there and
    the convention relu'(0) = 0 sent it to the inactive side."""

    t: float
    neuron: int
    sample: int


class SlidingSystem:
    """beta (p x n) as a linear function of g, for fixed sliding sets and mask.

    ``sliding`` (p x n, bool) are the pairs held on their surface, ``mask`` (p x n,
    0/1) the regular active pairs (0 on sliding pairs). ``leak`` is the activation's
    slope / (1 - slope) (0 for ReLU): a leaky ReLU's sigma' = slope + (1 - slope) A, so in
    units of (1 - slope) every sample weighs ``leak`` on top of its mask. All sliding rows
    are stacked into one (m x n) matrix so that one product gives every neuron's coefficients.
    """

    def __init__(self, G: np.ndarray, mask: np.ndarray, sliding: np.ndarray,
                 previous: SlidingSystem | None = None, leak: float = 0.0) -> None:
        self.n_neurons = mask.shape[0]
        self.rows, self.cols = np.nonzero(sliding)
        self.empty = self.rows.size == 0
        self.blocks: dict[int, tuple[bytes, np.ndarray]] = {}
        old = previous.blocks if previous is not None else {}
        parts = []
        for j in np.flatnonzero(sliding.any(axis=1)):
            S = np.flatnonzero(sliding[j])
            key = S.tobytes() + mask[j].tobytes()
            if j in old and old[j][0] == key:  # this neuron's regime is unchanged
                Qj = old[j][1]
            else:  # -G_SS^{-1} G_{S,:} restricted to neuron j's active columns
                weights = mask[j] if leak == 0.0 else mask[j] + leak
                Qj = -solve_or_min_norm(G[np.ix_(S, S)], G[S] * weights)
            self.blocks[int(j)] = (key, Qj)
            parts.append(Qj)
        self.Q = np.concatenate(parts) if parts else np.zeros((0, G.shape[0]))
        # (j, i) -> row of Q: where a sliding pair's alpha sits in `alpha`'s output
        self.position = {(int(r), int(c)): k
                         for k, (r, c) in enumerate(zip(self.rows, self.cols, strict=True))}

    def beta(self, g: np.ndarray) -> np.ndarray:
        """(..., p, n) coefficients, zero off the sliding pairs; g has shape (..., n)."""
        g = np.asarray(g)
        shape = g.shape[:-1] + (self.n_neurons, g.shape[-1])
        out = np.zeros(shape)
        if not self.empty:
            out[..., self.rows, self.cols] = g @ self.Q.T
        return out

    def beta_of(self, P: np.ndarray) -> np.ndarray:
        """`beta` for a vector output, from the pair signal P (..., p, n) (P_ji = <a_j,
        g_i>: each neuron's own g, `numerics.network.pair_signal`): (..., p, n), zero off
        the sliding pairs."""
        out = np.zeros(P.shape)
        if not self.empty:
            out[..., self.rows, self.cols] = np.einsum("mn,...mn->...m", self.Q,
                                                       P[..., self.rows, :])
        return out

    def alpha_of(self, P: np.ndarray) -> np.ndarray:
        """`alpha` for a vector output, from the pair signal P (..., p, n): beta_ij / P_ij
        on the sliding pairs, shape (..., m)."""
        if self.empty:
            return np.zeros(P.shape[:-2] + (0,))
        b = np.einsum("mn,...mn->...m", self.Q, P[..., self.rows, :])
        pi = P[..., self.rows, self.cols]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(pi != 0, b / np.where(pi != 0, pi, 1.0),
                            np.where(b == 0, 0.0, np.inf))

    def alpha(self, g: np.ndarray) -> np.ndarray:
        """alpha_ij = beta_ij / g_i on the sliding pairs, shape (..., m) (inf where g_i = 0)."""
        if self.empty:
            return np.zeros(np.shape(g)[:-1] + (0,))
        b = np.asarray(g) @ self.Q.T
        gi = np.asarray(g)[..., self.cols]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(gi != 0, b / np.where(gi != 0, gi, 1.0),
                            np.where(b == 0, 0.0, np.inf))


def solve_or_min_norm(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The solution of A x = b; where A is singular or not square (samples linearly
    dependent, as when n > d: the constraints repeat each other), the least-squares
    solution of minimal norm. A regular system is solved exactly as before (lstsq would
    cut small singular values and change well-posed but ill-conditioned runs)."""
    if A.shape[0] == A.shape[1]:
        try:
            return np.linalg.solve(A, b)
        except np.linalg.LinAlgError:
            pass
    return np.linalg.lstsq(A, b, rcond=None)[0]


def gram_root(G: np.ndarray) -> np.ndarray:
    """R with G = R^T R: Cholesky's upper factor, or, for a singular Gram matrix (samples
    of P linearly dependent, as when n > d), the square root over its range from the
    eigendecomposition (eigenvalues below round-off dropped)."""
    try:
        return np.linalg.cholesky(G).T
    except np.linalg.LinAlgError:
        vals, vecs = np.linalg.eigh(G)
        keep = vals > G.shape[0] * np.finfo(float).eps * max(float(vals.max()), 0.0)
        return np.sqrt(vals[keep])[:, None] * vecs[:, keep].T


def _min_norm_box(H_G: np.ndarray, gP: np.ndarray, qP: np.ndarray) -> np.ndarray:
    """argmin over alpha in [0,1]^k of |v|^2, v = b + sum_i alpha_i g_i x_i, in Gram form.

    |v|^2 = const + 2 alpha^T D q + alpha^T D G D alpha with D = diag(g), G = G_PP.
    With G = R^T R this is |R D alpha + R^{-T} q|^2: bounded least squares (BVLS).
    """
    k = gP.size
    if k == 1:
        a = -qP[0] / (gP[0] * H_G[0, 0])
        return np.array([min(max(a, 0.0), 1.0)])
    R = gram_root(H_G)  # G = R^T R
    A = R * gP[None, :]
    b = -solve_or_min_norm(R.T, qP)  # exact: q = X_P b lies in range(G)
    res = lsq_linear(A, b, bounds=(0.0, 1.0), method="bvls", tol=1e-14)
    return np.clip(res.x, 0.0, 1.0)


def classify_neuron(G: np.ndarray, g: np.ndarray, a_j: float, active: np.ndarray,
                    K: np.ndarray, forced: dict[int, int] | None = None,
                    max_rounds: int = 64, leak: float = 0.0,
                    ) -> tuple[dict[int, int], dict[int, float], list[int]]:
    """Resolve one neuron's pairs K at a switching surface.

    ``active``: the neuron's regular active samples (bool, n), K excluded from it here.
    ``forced``: pairs whose side is imposed (a sliding pair leaving at an alpha bound).
    ``leak``: slope / (1 - slope) of a leaky ReLU (its always-on part, see SlidingSystem).
    Returns (class per pair of K: INACTIVE/ACTIVE/SLIDING, alpha per pair, pairs where
    a choice was made). Raises `Unresolved` when the repelling pairs do not settle.
    """
    forced = dict(forced or {})
    K = np.asarray(K, dtype=int)
    if K.size == 1 and not forced and a_j != 0.0:
        return _classify_one(G, g, a_j, active, int(K[0]), leak)
    others = active.copy()
    others[K] = False
    q = G[K][:, others] @ g[others]  # q_i, i in K
    if leak != 0.0:
        q = q + leak * (G[K] @ g)
    alpha = np.zeros(K.size)
    fixed = np.zeros(K.size, dtype=bool)
    for pos, i in enumerate(K):
        if i in forced:
            alpha[pos] = 1.0 if forced[i] == ACTIVE else 0.0
            fixed[pos] = True
    if a_j == 0.0:  # w_j does not move: a pair stays where relu'(0) = 0 puts it
        return ({int(i): forced.get(int(i), INACTIVE) for i in K},
                {int(i): float(alpha[p]) for p, i in enumerate(K)}, [])
    sign = -np.sign(a_j)  # sign of c_j
    gK = g[K]
    attract = (a_j * gK > 0) & ~fixed
    repel = ~attract & ~fixed
    GKK = G[np.ix_(K, K)]

    def dz(al):  # sign-correct rate of z_i (up to the positive factor kappa s |a_j|)
        return sign * (q + GKK @ (al * gK))

    for _ in range(max_rounds):
        if attract.any():
            P = np.flatnonzero(attract)
            rest = ~attract
            qP = q[P] + GKK[np.ix_(P, np.flatnonzero(rest))] @ (alpha[rest] * gK[rest])
            alpha[P] = _min_norm_box(GKK[np.ix_(P, P)], gK[P], qP)
        rates = dz(alpha)
        flip_up = repel & (alpha == 0.0) & (rates > 0)
        flip_down = repel & (alpha == 1.0) & (rates < 0)
        if not (flip_up.any() or flip_down.any()):
            break
        # one at a time, the fastest first: the others may settle once it has moved
        cand = np.flatnonzero(flip_up | flip_down)
        worst = cand[np.argmax(np.abs(rates[cand]))]
        alpha[worst] = 1.0 - alpha[worst]
    else:
        raise Unresolved(f"{K.size} pairs at the surface did not settle in {max_rounds} rounds")
    classes, choices = {}, []
    for pos, i in enumerate(K):
        i = int(i)
        if fixed[pos] or repel[pos]:
            classes[i] = ACTIVE if alpha[pos] == 1.0 else INACTIVE
        elif alpha[pos] <= 0.0:
            classes[i] = INACTIVE
        elif alpha[pos] >= 1.0:
            classes[i] = ACTIVE
        else:
            classes[i] = SLIDING
        if repel[pos] and alpha[pos] == 0.0:
            trial = alpha.copy()
            trial[pos] = 1.0
            if dz(trial)[pos] > 0:  # the active side repels too: not unique
                choices.append(i)
    return classes, {int(i): float(alpha[p]) for p, i in enumerate(K)}, choices


def _classify_one(G, g, a_j, active, i, leak):
    """`classify_neuron` for a single pair at its surface and nothing forced, in scalars
    (the common case: one crossing at a time). The same rules: q_i is the rate's part
    from the other active samples (and the leak), the pair's own part is G_ii g_i alpha;
    an attracting pair takes the alpha of least velocity in [0, 1], a repelling pair
    flips from 0 to 1 only if the rate at 0 pushes it up, and is a choice if both sides
    repel it."""
    others = active.copy()
    others[i] = False
    q = float(G[i, others] @ g[others])
    if leak != 0.0:
        q += leak * float(G[i] @ g)
    gi, Gii = float(g[i]), float(G[i, i])
    sign = -1.0 if a_j > 0 else 1.0  # sign of c_j = -kappa s a_j
    if a_j * gi > 0:  # attracting: the minimal-norm alpha, clipped to [0, 1]
        alpha = min(max(-q / (gi * Gii), 0.0), 1.0)
        cls = INACTIVE if alpha <= 0.0 else ACTIVE if alpha >= 1.0 else SLIDING
        return {i: cls}, {i: alpha}, []
    alpha = 1.0 if sign * q > 0 else 0.0  # repelling: pushed up at alpha = 0, it flips
    if alpha == 1.0 and sign * (q + Gii * gi) < 0:  # pushed back down at 1: unresolved
        raise Unresolved("1 pairs at the surface did not settle in 64 rounds")
    chosen = [i] if alpha == 0.0 and sign * (q + Gii * gi) > 0 else []
    return {i: ACTIVE if alpha == 1.0 else INACTIVE}, {i: alpha}, chosen


class Unresolved(RuntimeError):
    """The pairs at a switching surface could not be given consistent sides."""
