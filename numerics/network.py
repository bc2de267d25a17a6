"""The network, its loss and its gradient: the one place these formulas live.

Every function takes the activation mask ``A`` (shape (p, n), A[j, i] = 1 iff
sample i activates neuron j) as an argument, so that an integrator can hold the
pattern fixed inside a smooth region and switch it only at located crossings.
``active_mask`` gives the mask of a state under relu'(0) = 0. The activation sigma
is the Problem's (`numerics.activations`): sigma(z) and sigma'(z) come from it, given
Z and the held pattern A; for ReLU they are A z and A, as they always were here.
The layers the Problem does not train have zero velocity (`trained_velocity`).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import eigh
from scipy.sparse.linalg import LinearOperator, eigsh

from numerics.problem import Problem


def neuron_sum(a: np.ndarray, V: np.ndarray) -> np.ndarray:
    """sum_j a[..., j] V[..., j, i]: a weighted sum over the neurons, as one matrix product
    (einsum's loop was most of an event's cost at p n ~ 10^4)."""
    return np.matmul(a[..., None, :], V)[..., 0, :]


def preactivations(W: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Z[..., j, i] = <w_j, x_i>."""
    return W @ X.T


def active_mask(Z: np.ndarray) -> np.ndarray:
    """A = 1{Z > 0} as floats (strict: relu'(0) = 0)."""
    return (Z > 0).astype(np.float64)


def head(problem: Problem, a: np.ndarray, S: np.ndarray) -> np.ndarray:
    """s sum_j a_j S[..., j, i]: the outputs from the hidden activations S (..., p, n);
    (..., n) for a scalar output, (..., n, K) for a vector one (a of shape (..., p, K))."""
    if problem.vector_output:
        return problem.output_factor * np.swapaxes(S, -1, -2) @ a
    return problem.output_factor * neuron_sum(a, S)


def outputs(problem: Problem, W: np.ndarray, a: np.ndarray, A: np.ndarray | None = None):
    """h(x_i) for every sample ((..., n), or (..., n, K) for a vector output); ``A``
    defaults to the state's own mask."""
    Z = preactivations(W, problem.X)
    if A is None:
        A = active_mask(Z)
    return head(problem, a, problem.activation.value(Z, A))


def log_softmax(h: np.ndarray) -> np.ndarray:
    """log softmax(h) over the last axis (the K logits), computed stably."""
    top = np.max(h, axis=-1, keepdims=True)
    return h - top - np.log(np.sum(np.exp(h - top), axis=-1, keepdims=True))


def pair_signal(problem: Problem, a: np.ndarray, g: np.ndarray) -> np.ndarray:
    """P[..., j, i] = <a_j, g_i> (a_j g_i for a scalar output): what sample i's loss
    derivative weighs on neuron j, dw_j/dt = -kappa s sum_i sigma'(z_ji) P_ji x_i."""
    if problem.vector_output:
        return a @ np.swapaxes(g, -1, -2)
    return a[..., :, None] * g[..., None, :]


def loss_from_outputs(problem: Problem, h: np.ndarray) -> np.ndarray:
    y = problem.y
    if problem.loss == "cross_entropy":
        picked = np.take_along_axis(log_softmax(h), np.broadcast_to(
            y.astype(int)[:, None], h.shape[:-1] + (1,)), axis=-1)[..., 0]
        return -problem.loss_scale * np.sum(picked, axis=-1)
    if problem.loss == "square":
        return problem.loss_scale * 0.5 * np.mean((y - h) ** 2, axis=-1)
    margins = y * h
    if problem.loss == "exponential":
        return problem.loss_scale * np.sum(np.exp(-margins), axis=-1)
    return problem.loss_scale * np.sum(np.logaddexp(0.0, -margins), axis=-1)


def loss_derivative(problem: Problem, h: np.ndarray) -> np.ndarray:
    """g_i = dL/dh(x_i) ((..., n), or (..., n, K) for a vector output: softmax(h_i) minus
    the one-hot label, times the loss scale)."""
    y = problem.y
    if problem.loss == "cross_entropy":
        return problem.loss_scale * (np.exp(log_softmax(h)) - problem.one_hot())
    if problem.loss == "square":
        return -problem.loss_scale * (y - h) / problem.n
    margins = y * h
    if problem.loss == "exponential":
        return -problem.loss_scale * y * np.exp(-margins)
    # d/dm log(1 + e^{-m}) = -1 / (1 + e^{m}), written stably
    return -problem.loss_scale * y * np.exp(-np.logaddexp(0.0, margins))


def gradient_from_preactivations(problem: Problem, Z: np.ndarray, a: np.ndarray,
                                  A: np.ndarray | None = None, sliding=None):
    """(coef, dL/da) from the pre-activations Z = W X^T, with dL/dW = coef @ X.

    coef[j, i] = s a_j sigma'(z_ij) g_i: the gradient never leaves the span of the
    data, so a method that keeps W = W0 + C X only needs ``coef`` (cost p*n).
    ``sliding`` (a numerics.sliding.SlidingSystem) adds the Filippov coefficients
    beta_ij = alpha_ij g_i of the pairs held on z_ij = 0 (where sigma(z) = 0, so
    dL/da is unchanged), weighted by the share of sigma' the kink's alpha carries
    (1 - slope): the minimal-norm element of the Clarke subdifferential.
    """
    if A is None:
        A = active_mask(Z)
    act = problem.activation
    s = problem.output_factor
    h = head(problem, a, act.value(Z, A))
    g = loss_derivative(problem, h)
    if problem.vector_output:
        return _vector_gradient(problem, Z, a, A, g, sliding)
    AG = act.derivative(Z, A) * g[..., None, :]  # (p, n): sigma'(z_ij) g_i
    if act.piecewise_linear:  # sigma(z) = sigma'(z) z
        grad_a = s * np.einsum("...ji,...ji->...j", AG, Z)
    else:
        grad_a = s * np.einsum("...ji,...i->...j", act.value(Z, A), g)
    if sliding is not None and not sliding.empty:
        beta = sliding.beta(g)
        AG = AG + (beta if act.kink_share == 1.0 else act.kink_share * beta)
    coef = s * a[..., :, None] * AG
    return coef, grad_a


def _vector_gradient(problem: Problem, Z, a, A, g, sliding):
    """`gradient_from_preactivations` for a vector output: coef[j, i] = s sigma'(z_ij)
    <a_j, g_i> (the pair signal P) and dL/da_j = s sum_i sigma(z_ij) g_i (a K-vector);
    the Filippov coefficients of sliding pairs are linear in P (`SlidingSystem.beta_of`)."""
    act = problem.activation
    s = problem.output_factor
    P = pair_signal(problem, a, g)
    AG = act.derivative(Z, A) * P
    if sliding is not None and not sliding.empty:
        beta = sliding.beta_of(P)
        AG = AG + (beta if act.kink_share == 1.0 else act.kink_share * beta)
    return s * AG, s * act.value(Z, A) @ g


def trained_velocity(problem: Problem, grad_W, grad_a):
    """(dW/dt, da/dt) = -kappa grad L on the layers the Problem trains, 0 on a frozen one."""
    k = problem.flow_factor
    vW = -k * grad_W if problem.trains_first_layer else np.zeros_like(grad_W)
    va = -k * grad_a if problem.trains_second_layer else np.zeros_like(grad_a)
    return vW, va


def gradient(problem: Problem, W: np.ndarray, a: np.ndarray, A: np.ndarray | None = None,
             sliding=None):
    """(dL/dW, dL/da) at (W, a) with activation mask ``A`` (and sliding pairs, if any)."""
    coef, grad_a = gradient_from_preactivations(problem, preactivations(W, problem.X), a, A,
                                                sliding)
    return coef @ problem.X, grad_a


def flow_field(problem: Problem, W: np.ndarray, a: np.ndarray, A: np.ndarray | None = None,
               sliding=None):
    """The gradient-flow vector field (dW/dt, da/dt) = -kappa grad L."""
    return trained_velocity(problem, *gradient(problem, W, a, A, sliding))


def pl_curvature(problem: Problem, W: np.ndarray, a: np.ndarray) -> float:
    """Local PL curvature -(dL/dt)/L = kappa ||grad L||^2 / L (THEORY Q-mu), the
    gradient taken over the trained layers."""
    grad_W, grad_a = gradient(problem, W, a)
    L = loss_from_outputs(problem, outputs(problem, W, a))
    sq = (np.sum(grad_W**2) if problem.trains_first_layer else 0.0) + (
        np.sum(grad_a**2) if problem.trains_second_layer else 0.0)
    return float(problem.flow_factor * sq / L) if L > 0 else float("nan")


def tangent_kernel(problem: Problem, W: np.ndarray, a: np.ndarray) -> np.ndarray:
    """K = J J^T (n x n), J_i = d h(x_i) / d theta: the neural tangent kernel at (W, a).

    d h(x_i)/d w_j = s a_j 1{<w_j, x_i> > 0} x_i and d h(x_i)/d a_j = s relu(<w_j, x_i>), so
    K = s^2 [ (A^T diag(a^2) A) o (X X^T) + relu(Z)^T relu(Z) ] with A the strict mask;
    for another activation sigma'(Z) and sigma(Z) replace A and relu(Z), and a frozen
    layer drops its term.
    """
    Z = preactivations(W, problem.X)
    mask = active_mask(Z)
    A = problem.activation.derivative(Z, mask)
    R = problem.activation.value(Z, mask)
    s = problem.output_factor
    K = np.zeros((problem.n, problem.n))
    if problem.trains_first_layer:
        K += ((A.T * a**2) @ A) * (problem.X @ problem.X.T)
    if problem.trains_second_layer:
        K += R.T @ R
    return s**2 * K


def one_hot_columns(X: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(k, v) with x_i = v_i e_{k_i} when every sample has exactly one non-zero coordinate
    and no two samples share it (orthogonal data in the canonical basis); else None."""
    nonzero = X != 0
    if X.ndim != 2 or not np.all(nonzero.sum(axis=1) == 1):
        return None
    cols = np.argmax(nonzero, axis=1)
    if len(np.unique(cols)) != len(cols):
        return None
    return cols, X[np.arange(len(cols)), cols]


def kernel_rate(problem: Problem, W: np.ndarray, a: np.ndarray) -> float:
    """Asymptotic decay rate of L along the flow near a global minimum, 2 kappa c lambda_min(K) / n.

    Square loss L = c/(2n) |r|^2: linearised at a zero-loss point, dr/dt = -(kappa c / n) K r,
    so L(t) ~ exp(-2 kappa c lambda_min(K) t / n) once the residual is in K's slowest
    eigendirection. ``(W, a)`` should be (close to) the flow's limit point. On one-hot
    orthogonal data K = D + V V^T (D diagonal, V = s relu(Z)^T of rank <= p) and lambda_min
    comes from shift-invert Lanczos with the Woodbury inverse, O(n p) per iteration.
    """
    if problem.loss != "square":
        raise ValueError(f"loss: the kernel rate is for the square loss, not {problem.loss!r}.")
    scale = 2.0 * problem.flow_factor * problem.loss_scale / problem.n
    one_hot = one_hot_columns(problem.X)
    if one_hot is None or problem.model_spec:  # the low-rank form is the ReLU network's
        K = tangent_kernel(problem, W, a)
        return scale * float(eigh(K, subset_by_index=[0, 0], eigvals_only=True)[0])
    return scale * _min_eig_diag_plus_low_rank(problem, W, a, *one_hot)


def _min_eig_diag_plus_low_rank(problem, W, a, cols, vals) -> float:
    s = problem.output_factor
    Z = W[:, cols] * vals  # (p, n): <w_j, x_i> = v_i W[j, k_i]
    A = active_mask(Z)
    D = s**2 * vals**2 * ((a**2) @ A)  # (n,)
    V = s * np.maximum(Z, 0.0).T  # (n, p)
    if np.min(D) <= 0:  # a sample no neuron is active on: its row of K is zero
        return 0.0
    Dinv_V = V / D[:, None]
    core = np.linalg.inv(np.eye(V.shape[1]) + V.T @ Dinv_V)  # Woodbury's p x p core

    def apply_inverse(x):
        x = np.asarray(x).reshape(-1)
        return x / D - Dinv_V @ (core @ (Dinv_V.T @ x))

    n = len(D)
    if n <= 64:  # small: dense is exact and cheap
        return float(eigh(np.diag(D) + V @ V.T, subset_by_index=[0, 0], eigvals_only=True)[0])
    inverse = LinearOperator((n, n), matvec=apply_inverse, dtype=float)
    top = eigsh(inverse, k=1, which="LA", tol=1e-12, ncv=min(n, 40),
                v0=np.ones(n) / np.sqrt(n), return_eigenvectors=False)
    return float(1.0 / top[0])


def neuron_field(problem: Problem, h: np.ndarray, A: np.ndarray) -> np.ndarray:
    """D (shape (p, d)) with dw_j/dt = a_j D_j and da_j/dt = <w_j, D_j> (S002-D1).

    D_j = -kappa * s * sum_i A[j, i] g_i x_i with g_i = dL/dh(x_i): the flow of
    `flow_field` factored so that it can be used in coordinates (log-norm,
    direction) where a_j and w_j themselves may be below float64's range.
    """
    if problem.model_spec:
        raise ValueError("neuron_field: the factored field is the ReLU network's with both "
                         f"layers trained, not {problem.model_spec!r}.")
    if problem.vector_output:
        raise ValueError("neuron_field: the factored field is the scalar output's "
                         "(a_j times a direction), not a vector output's")
    g = loss_derivative(problem, h)
    return -problem.flow_factor * problem.output_factor * ((A * g[..., None, :]) @ problem.X)
