"""MOR26's Algorithm 1: the lam -> 0 jump process of the flow on orthogonal data, computed
from the data and the initial directions alone (no training).

This is our reconstruction (catalogue `papers/catalogues/MOR26.md`, section 3): the paper's
own text of Algorithm 1 could not be read, so it may differ in its conventions (time
normalisation, ties). Conventions: L = (1/(2n)) sum_k (h(x_k) - y_k)^2, balanced start
w_j(0) = lam g_j, a_j(0) = s_j lam |g_j|, relu'(0) = 0, time in tau = t / ln(1/lam).

Each neuron j grows on its *growth set* S_j = {k : <g_j, x_k> > 0, s_j y_k > 0} (the samples
it is active on whose label has its output's sign); its log-norm exponent
e_j = ln|w_j| / ln(1/lam) starts at -1 and rises at the rate r_j = |c_{S_j minus F}|
(c_k = y_k |x_k| / n, F the samples already fitted). The first dormant neuron to reach
e_j = 0 activates: it fits its remaining growth set exactly and the loss drops to
(1/(2n)) sum_{k not in F} y_k^2. Every step is a closed form (rates are norms of label
vectors, exponents piecewise linear in tau), so the process is exact up to float64
rounding.

Neurons with the same growth set have the same exponent at every tau (their rates depend on
the set alone), so they activate together and share its fit: the process runs on *groups*
of neurons with equal growth sets. This happens with positive probability (two of m neurons
draw the same set; at n = 12, m = 6 in about one draw in three), so it is part of the
process, not a degenerate case; how a group splits its saddle norm between its neurons
depends on the O(1) alignment transient, which the limit drops, so only the group's total
is predicted. Two groups with different remaining sets activating at the same time (a
non-generic start, probability 0) are refused, not broken.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from numerics import Problem

#: two activation times closer than this (relative) are a tie: the start is not generic
TIE_TOLERANCE = 1e-9
#: |<g_j, x_k>| below this (relative to |g_j| |x_k|) is a pre-activation at 0: not generic
ZERO_TOLERANCE = 1e-12
#: the off-diagonal Gram entries allowed (relative) for the data to count as orthogonal
ORTHOGONAL_TOLERANCE = 1e-12


class NotGeneric(ValueError):
    """The input is outside Algorithm 1's domain: data that are not orthogonal, a
    pre-activation exactly at 0, or two neurons activating at the same time. The message
    is one line naming the input and what is allowed."""


@dataclass(frozen=True)
class Activation:
    """One saddle-to-saddle jump of the limit process.

    Attributes
    ----------
    neurons
        The neurons that activate (one, or a group with the same growth set), sorted.
    tau
        The activation time in tau = t / ln(1/lam).
    fitted
        The samples they fit (their growth set minus those fitted before), sorted.
    rate
        Their growth rate |c_fitted| on the plateau they leave (d e / d tau).
    loss
        The loss of the saddle reached after the jump, (1/(2n)) sum_{k not yet fitted} y_k^2.
    norm_sq
        The group's squared norm at that saddle, sum_j |w_j|^2 = sum_j a_j^2 = |y~_fitted|
        (y~_k = y_k / |x_k|).
    lead
        How far ahead of the next dormant neuron that could fit one of the same samples the
        group is when it activates: that neuron's -e (inf if none). At a finite lam it is
        lam^lead times as large, and takes about lam^(2 lead) of the fit.
    """

    neurons: tuple[int, ...]
    tau: float
    fitted: tuple[int, ...]
    rate: float
    loss: float
    norm_sq: float
    lead: float = math.inf


@dataclass(frozen=True)
class JumpProcess:
    """Algorithm 1's output for one instance.

    Attributes
    ----------
    activations
        The jumps in time order.
    loss0
        The loss at the origin, (1/(2n)) sum_k y_k^2 (the first plateau).
    n
        The number of samples.
    width
        The number of neurons m.
    growth_sets
        S_j per neuron (sorted sample indices): the samples neuron j can grow on.
    """

    activations: tuple[Activation, ...]
    loss0: float
    n: int
    width: int
    growth_sets: tuple[tuple[int, ...], ...]

    @property
    def fitted(self) -> frozenset[int]:
        """The samples the limit fits."""
        return frozenset(k for act in self.activations for k in act.fitted)

    @property
    def interpolates(self) -> bool:
        """Whether the limit fits every sample."""
        return len(self.fitted) == self.n

    @property
    def loss_inf(self) -> float:
        """The limit's final loss (0 when it interpolates)."""
        return self.activations[-1].loss if self.activations else self.loss0

    @property
    def norm_sq(self) -> float:
        """The limit's |theta|^2 = sum_j (a_j^2 + |w_j|^2) = 2 sum_i |y~_{S_i}| (dormant
        neurons vanish with lam)."""
        return 2.0 * sum(act.norm_sq for act in self.activations)

    @property
    def times(self) -> tuple[float, ...]:
        """The activation times tau_1 <= tau_2 <= ..."""
        return tuple(act.tau for act in self.activations)

    def saddle_groups(self) -> tuple[tuple[tuple[int, ...], float], ...]:
        """The final saddle, group by group: (neurons, their total |w_j|^2) for each
        activation, then (neurons, 0.0) for the neurons that never activate."""
        groups = [(act.neurons, act.norm_sq) for act in self.activations]
        active = {j for act in self.activations for j in act.neurons}
        rest = tuple(j for j in range(self.width) if j not in active)
        return tuple(groups) + ((rest, 0.0),) if rest else tuple(groups)

    @property
    def margin(self) -> float:
        """The resolution exponent of the limit: a run at lam differs from the jump process
        (beyond its O(1/ln(1/lam)) shift of the times) by about lam^margin. The least of each
        activation's `Activation.lead` and, for each plateau, its length in tau times the
        slower of the rates around it over 2 (the distance to the saddle at its middle);
        inf without activations."""
        acts = self.activations
        ends = [b.tau for b in acts[1:]] + [acts[-1].tau + 1.0] if acts else []
        rates = [b.rate for b in acts[1:]] + [acts[-1].rate] if acts else []
        depth = [min(a.rate, r) * (end - a.tau) / 2
                 for a, end, r in zip(acts, ends, rates, strict=True)]
        return min([a.lead for a in acts] + depth, default=math.inf)

    @property
    def grown_dormant(self) -> tuple[int, ...]:
        """The neurons that never activate but grow for a while (a non-empty growth set,
        emptied by the others' fits): at a finite lam they end at lam^|e_j|, not O(lam)."""
        active = {j for act in self.activations for j in act.neurons}
        return tuple(j for j, S in enumerate(self.growth_sets) if S and j not in active)

    def plateau_loss(self, tau: float) -> float:
        """The loss of the saddle the limit sits at at time ``tau`` (between jumps)."""
        loss = self.loss0
        for act in self.activations:
            if act.tau <= tau:
                loss = act.loss
        return loss


def _check_orthogonal(X: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(X, axis=1)
    if np.any(norms == 0):
        raise NotGeneric(f"X: Algorithm 1 needs nonzero samples; sample "
                         f"{int(np.argmin(norms))} is 0")
    G = (X / norms[:, None]) @ (X / norms[:, None]).T
    off = np.abs(G - np.diag(np.diag(G)))
    if off.size and off.max() > ORTHOGONAL_TOLERANCE:
        k, m = np.unravel_index(int(np.argmax(off)), off.shape)
        raise NotGeneric(f"X: Algorithm 1 needs pairwise orthogonal samples; samples {k} and "
                         f"{m} have cosine {G[k, m]:.3g}")
    return norms


def jump_process(X, y, directions, signs, *, lam: float | None = None,
                 loss_scale: float = 1.0) -> JumpProcess:
    """Algorithm 1 on samples ``X`` (n x d, pairwise orthogonal), labels ``y`` (n), the
    initial directions ``directions`` (m x d: g_j, w_j(0) = lam g_j) and output signs
    ``signs`` (m, +-1).

    ``lam=None`` gives the limit process (every exponent starts at -1). A number gives the
    finite-lam prediction: exponents start at -1 + ln|g_j| / ln(1/lam); the O(1) alignment
    times are still dropped, so it differs from the flow by O(1/ln(1/lam)) as well.
    ``loss_scale`` c: the flow of c L (every rate times c, every time divided by c).
    A start outside the algorithm's domain raises `NotGeneric`.
    """
    X = np.asarray(X, dtype=float)
    G = np.asarray(directions, dtype=float)
    if X.ndim != 2 or G.ndim != 2 or G.shape[1] != X.shape[1]:
        raise NotGeneric(f"shapes: X (n, d) and directions (m, d), got {X.shape} and {G.shape}")
    norms = _check_orthogonal(X)
    return _process(G @ X.T, norms, y, np.linalg.norm(G, axis=1), signs, lam, loss_scale)


def jump_process_identity(y, directions, signs, *, lam: float | None = None,
                          loss_scale: float = 1.0) -> JumpProcess:
    """`jump_process` for the samples x_k = e_k (k < n = len(y)), without forming X: the
    pre-activations are the first n coordinates of the directions (for large n, where the
    n x d matrix X would not fit in memory)."""
    G = np.asarray(directions, dtype=float)
    y = np.asarray(y, dtype=float)
    if G.ndim != 2 or G.shape[1] < y.shape[0]:
        raise NotGeneric(f"directions: (m, d) with d >= n = {y.shape[0]}, got {G.shape}")
    return _process(G[:, :y.shape[0]], np.ones(y.shape[0]), y, np.linalg.norm(G, axis=1),
                    signs, lam, loss_scale)


def _process(pre, norms, y, g_norms, signs, lam, loss_scale) -> JumpProcess:
    """The algorithm on the pre-activations ``pre`` = <g_j, x_k> (m x n) and the sample norms."""
    y = np.asarray(y, dtype=float)
    s = np.asarray(signs, dtype=float)
    n = norms.shape[0]
    if y.shape != (n,) or s.shape != (pre.shape[0],):
        raise NotGeneric(f"shapes: y ({n},) and signs ({pre.shape[0]},), got {y.shape} and "
                         f"{s.shape}")
    if not np.all(np.abs(s) == 1):
        raise NotGeneric("signs: each s_j must be +1 or -1")
    if lam is not None and not 0 < lam < 1:
        raise NotGeneric(f"lam: the initialisation scale must lie in (0, 1), got {lam!r}")
    if not (math.isfinite(loss_scale) and loss_scale > 0):
        raise NotGeneric(f"loss_scale: a positive number, got {loss_scale!r}")
    scale = g_norms[:, None] * norms[None, :]
    if np.any(np.abs(pre) <= ZERO_TOLERANCE * scale):
        j, k = np.argwhere(np.abs(pre) <= ZERO_TOLERANCE * scale)[0]
        raise NotGeneric(f"directions: neuron {j}'s pre-activation on sample {k} is 0 (a "
                         "non-generic start: Algorithm 1 needs every <g_j, x_k> != 0)")
    c = loss_scale * y * norms / n  # -grad_w L per unit a_j, in the basis x_k/|x_k|
    y_tilde = y / norms                     # the labels per unit input norm
    grow = (pre > 0) & (s[:, None] * y[None, :] > 0)
    growth_sets = tuple(tuple(int(k) for k in np.flatnonzero(row)) for row in grow)
    # one unit per distinct non-empty growth set: its neurons share every exponent
    members: dict[tuple[int, ...], list[int]] = {}
    for j, S in enumerate(growth_sets):
        if S:
            members.setdefault(S, []).append(j)
    units = list(members)
    e = np.full(len(units), -1.0)
    if lam is not None:  # the group's combined initial norm
        e += np.array([math.log(math.sqrt(sum(g_norms[j] ** 2 for j in members[S])))
                       for S in units]) / math.log(1.0 / lam)
    sets = np.zeros((len(units), n), dtype=bool)
    for u, S in enumerate(units):
        sets[u, list(S)] = True
    fitted = np.zeros(n, dtype=bool)
    dormant = np.ones(len(units), dtype=bool)
    tau = 0.0
    out: list[Activation] = []
    while True:
        open_ = sets & ~fitted[None, :]
        r = np.sqrt(np.sum(np.where(open_, c[None, :] ** 2, 0.0), axis=1))
        live = dormant & (r > 0)
        if not live.any():
            break
        wait = np.where(live, -e / np.where(live, r, 1.0), np.inf)
        order = np.argsort(wait, kind="stable")
        u = int(order[0])
        if live.sum() > 1 and wait[order[1]] - wait[u] <= TIE_TOLERANCE * max(1.0, tau + wait[u]):
            v = int(order[1])
            raise NotGeneric(f"directions: neurons {members[units[u]]} and {members[units[v]]} "
                             f"(growth sets {list(units[u])} and {list(units[v])}) activate at "
                             f"the same time tau = {tau + wait[u]:.12g} (a non-generic start)")
        step = float(wait[u])
        tau += step
        e = np.where(live, e + r * step, e)
        e[u] = 0.0
        dormant[u] = False
        rivals = live & np.any(open_ & open_[u][None, :], axis=1)
        rivals[u] = False
        lead = float(np.min(-e[rivals])) if rivals.any() else math.inf
        new = np.flatnonzero(open_[u])
        fitted[new] = True
        out.append(Activation(neurons=tuple(members[units[u]]), tau=tau,
                              fitted=tuple(int(k) for k in new), rate=float(r[u]), lead=lead,
                              loss=float(loss_scale * np.sum(y[~fitted] ** 2) / (2 * n)),
                              norm_sq=float(np.linalg.norm(y_tilde[new]))))
    return JumpProcess(activations=tuple(out), n=n, width=pre.shape[0],
                       loss0=float(loss_scale * np.sum(y**2) / (2 * n)),
                       growth_sets=growth_sets)


def of_problem(problem: Problem, *, finite_lam: bool = False) -> JumpProcess:
    """Algorithm 1 on a `numerics.Problem` of the standard network with a balanced start
    (w_j(0) = lam g_j, a_j(0) = s_j |w_j(0)|): g_j = w_j(0)/lam, s_j = sign a_j(0).
    ``finite_lam``: the finite-lam prediction at the Problem's own lam."""
    lam = problem.init_scale
    if lam is None:
        raise NotGeneric("problem: Algorithm 1 needs the Problem's init_scale (lam)")
    if problem.vector_output or problem.parametrization != "standard":
        raise NotGeneric("problem: Algorithm 1 is for the standard network with a scalar output")
    signs = np.sign(problem.a0)
    return jump_process(problem.X, problem.y, problem.W0 / lam, signs,
                        lam=lam if finite_lam else None, loss_scale=problem.loss_scale)
