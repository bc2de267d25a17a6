"""A torch mirror of `numerics.network`, batched over replicates.

The formulas are those of `numerics.network` (the reference, in numpy), written
once more in torch so that gradient descent can run many replicates as one
batched computation; ``tests/test_descent.py`` checks that the two agree to
1e-12 in float64 for every loss and parametrisation. Gradients are closed form,
not autograd, with relu'(0) = 0 (the mask is the strict ``Z > 0``).

Shapes carry a leading batch axis B: X (B, n, d), y (B, n), W (B, p, d),
a (B, p). Arrays over (neuron, sample) pairs are neuron-major, (B, p, n), as
`numerics.network`'s (p, n). For the skinny products of a descent step (p of
order 30, n and d in the hundreds to thousands) the two products in this
orientation, Z = W X^T and (A g) X, ran 1.4 to 2.2 times faster here than the
sample-major X W^T and X^T (A g)^T (single thread, float32 and float64; see
`bench/run.py`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from numerics.problem import Problem
from numerics.simulate import check_batch

DTYPES = {"float64": torch.float64, "float32": torch.float32}


@dataclass(frozen=True, eq=False)
class TorchBatch:
    """B Problems of the same shapes and conventions, as torch tensors.

    ``loss_scale`` may differ between the Problems (shape (B, 1)); the loss,
    the parametrisation and the sizes n, d, p must be shared
    (`numerics.simulate.check_batch`).
    """

    X: torch.Tensor
    y: torch.Tensor
    loss: str
    loss_scale: torch.Tensor
    output_factor: float
    flow_factor: float

    @classmethod
    def from_problems(cls, problems: Sequence[Problem], dtype: torch.dtype) -> TorchBatch:
        check_batch(problems)
        first = problems[0]
        X = _stack([q.X for q in problems], dtype)
        return cls(
            X=X,
            y=_stack([q.y for q in problems], dtype),
            loss=first.loss,
            loss_scale=torch.tensor([[q.loss_scale] for q in problems], dtype=dtype),
            output_factor=first.output_factor,
            flow_factor=first.flow_factor,
        )

    @property
    def n(self) -> int:
        return self.X.shape[1]

    @functools.cached_property
    def XT(self) -> torch.Tensor:
        """X^T (B, d, n), contiguous (W @ X^T is then BLAS's fast orientation); made on first
        use only: a run on one-hot data never needs it."""
        return self.X.transpose(-1, -2).contiguous()

    def select(self, rows: torch.Tensor) -> TorchBatch:
        """The replicates ``rows`` (indices into the batch axis), in that order."""
        new = dataclasses.replace(self, X=self.X[rows], y=self.y[rows],
                                  loss_scale=self.loss_scale[rows])
        if "XT" in self.__dict__:
            new.__dict__["XT"] = self.XT[rows]
        return new


def _stack(arrays, dtype: torch.dtype) -> torch.Tensor:
    return torch.from_numpy(np.stack(arrays)).to(dtype)


def preactivations(W: torch.Tensor, batch: TorchBatch, out: torch.Tensor | None = None):
    """Z[b, j, i] = <w_j, x_i>, neuron-major (B, p, n): W @ X^T (into ``out`` if given)."""
    return torch.matmul(W, batch.XT, out=out)


def outputs_from_preactivations(batch: TorchBatch, a: torch.Tensor, Z: torch.Tensor):
    """h(x_i) = s * sum_j a_j relu(Z_ji) (relu(Z) = A * Z)."""
    return batch.output_factor * (a[:, None, :] @ torch.clamp_min(Z, 0.0))[:, 0, :]


def loss_from_outputs(batch: TorchBatch, h: torch.Tensor) -> torch.Tensor:
    """L per replicate, shape (B,)."""
    y, scale = batch.y, batch.loss_scale[:, 0]
    if batch.loss == "square":
        return scale * 0.5 * torch.mean((y - h) ** 2, dim=-1)
    margins = y * h
    if batch.loss == "exponential":
        return scale * torch.sum(torch.exp(-margins), dim=-1)
    return scale * torch.sum(torch.logaddexp(torch.zeros_like(margins), -margins), dim=-1)


def loss_derivative(batch: TorchBatch, h: torch.Tensor) -> torch.Tensor:
    """g_i = dL/dh(x_i), shape (B, n)."""
    y, scale = batch.y, batch.loss_scale
    if batch.loss == "square":
        return -scale * (y - h) / batch.n
    margins = y * h
    if batch.loss == "exponential":
        return -scale * y * torch.exp(-margins)
    # d/dm log(1 + e^{-m}) = -1 / (1 + e^{m}), written stably
    return -scale * y * torch.exp(-torch.logaddexp(torch.zeros_like(margins), margins))


def gradient_terms(batch: TorchBatch, a: torch.Tensor, Z: torch.Tensor):
    """Everything one descent step needs, from the pre-activations Z (B, p, n).

    Returns ``(h, AG, grad_a)``: outputs (B, n), AG[b, j, i] = A_ji g_i, and
    dL/da (B, p). The first-layer gradient is dL/dW_j = s a_j sum_i A_ji g_i x_i
    (`first_layer_gradient`); in the span of the data its coefficients are
    s a_j AG. Z is overwritten (AG is Z's storage): relu(Z) is formed in place,
    then its strict mask relu(Z) > 0 (1 where Z > 0, 0 where Z <= 0:
    relu'(0) = 0) once the sums over samples (matrix products) have read it, so a
    step allocates no (B, p, n) array here.
    """
    s = batch.output_factor
    relu_Z = Z.clamp_min_(0.0)
    h = s * (a[:, None, :] @ relu_Z)[:, 0, :]
    g = loss_derivative(batch, h)
    # sum_i g_i A_ji Z_ji, as g^T relu(Z)^T: a row vector times a transposed view ran ~15x
    # faster here than relu(Z) @ g (a strided matrix-vector product).
    grad_a = s * (g[:, None, :] @ relu_Z.transpose(-1, -2))[:, 0, :]
    AG = relu_Z.gt_(0.0).mul_(g[:, None, :])  # 1 where Z > 0 (relu(Z) > 0); gt_ ~2x sign_
    return h, AG, grad_a


def first_layer_gradient(batch: TorchBatch, a: torch.Tensor, AG: torch.Tensor):
    """dL/dW (B, p, d) = s * a_j * sum_i A_ji g_i x_i, from AG @ X."""
    return (AG @ batch.X).mul_(batch.output_factor * a[:, :, None])


def gradient(batch: TorchBatch, W: torch.Tensor, a: torch.Tensor):
    """(dL/dW, dL/da) at (W, a), as `numerics.network.gradient`."""
    _, AG, grad_a = gradient_terms(batch, a, preactivations(W, batch))
    return first_layer_gradient(batch, a, AG), grad_a
