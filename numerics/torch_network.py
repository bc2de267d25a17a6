"""A torch mirror of `numerics.network`, batched over replicates.

The formulas are those of `numerics.network` (the reference, in numpy), written
once more in torch so that gradient descent can run many replicates as one
batched computation; ``tests/numerics/test_descent.py`` checks that the two agree to
1e-12 in float64 for every loss and parametrisation. Gradients are closed form,
not autograd, with relu'(0) = 0 (the mask is the strict ``Z > 0``).

Shapes carry a leading batch axis B: X (B, n, d), y (B, n), W (B, p, d),
a (B, p). Arrays over (neuron, sample) pairs are neuron-major, (B, p, n), as
`numerics.network`'s (p, n). For the skinny products of a descent step (p of
order 30, n and d in the hundreds to thousands) the two products in this
orientation, Z = W X^T and (A g) X, ran 1.4 to 2.2 times faster here than the
sample-major X W^T and X^T (A g)^T (single thread, float32 and float64; see
`bench/run.py`).

The two products can run on either of the GEMM libraries torch ships on x86
(`GEMMS`): ``"blas"`` is torch's batched matmul (MKL in the PyPI wheels), ``"onednn"``
calls oneDNN (MKL-DNN) once per replicate with that replicate's X and X^T prepacked
(`PackedSamples`, float32 only). On the AMD machine this project is benchmarked on,
MKL runs AVX2 kernels (about 110 GFLOP/s on a 2048^2 float32 product, one thread)
where oneDNN's JIT uses AVX-512 (about 250 GFLOP/s); on a step's skinny products
oneDNN is 1.5-2x faster once n d p >= 1e6 and slower below, where its fixed cost of
about 10 us a call dominates (`ONEDNN_MIN_NDP`; measured by `bench/run.py`).
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
GEMMS = ("auto", "blas", "onednn")
# "auto" takes oneDNN from this many n d p per replicate on (below it the ~10 us a
# call costs more than the faster kernel saves: bench/run.py, section (b)).
ONEDNN_MIN_NDP = 1_000_000
# On oneDNN, replicates descend in groups whose packed samples (X and X^T, 8 n d bytes a
# replicate) take at most this much, so that they stay in cache between steps: at
# n = 2800, d = 100, p = 30, with a second process doing the same (as in a sweep on both
# cores), groups of 2 (this budget) ran at 112 GFLOP/s a process, 4 at 104, 9 at 99,
# and 1 at 70 (the fixed cost of a step no longer shared).
ONEDNN_GROUP_BYTES = 5 * 2**20


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
    activation: object = None  # the Problems' (`numerics.activations`); None: ReLU
    train: str = "both"
    vector: bool = False  # a vector output (cross-entropy): y one-hot (B, n, K), a (B, p, K)

    @classmethod
    def from_problems(cls, problems: Sequence[Problem], dtype: torch.dtype,
                      device: torch.device | str = "cpu") -> TorchBatch:
        check_batch(problems)
        first = problems[0]
        X = _stack([q.X for q in problems], dtype, device)
        vector = first.vector_output
        labels = [q.one_hot() if vector else q.y for q in problems]
        return cls(
            X=X,
            y=_stack(labels, dtype, device),
            loss=first.loss,
            loss_scale=torch.tensor([[q.loss_scale] for q in problems], dtype=dtype,
                                    device=device),
            output_factor=first.output_factor,
            flow_factor=first.flow_factor,
            activation=first.activation,
            train=first.train,
            vector=vector,
        )

    @property
    def is_relu(self) -> bool:
        """Whether the fused ReLU step (`rectified_gradient_terms`) applies."""
        return self.activation is None or self.activation.spec == "relu"

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


def _stack(arrays, dtype: torch.dtype, device="cpu") -> torch.Tensor:
    return torch.from_numpy(np.stack(arrays)).to(device, dtype)


def preactivations(W: torch.Tensor, batch: TorchBatch, out: torch.Tensor | None = None):
    """Z[b, j, i] = <w_j, x_i>, neuron-major (B, p, n): W @ X^T (into ``out`` if given)."""
    return torch.bmm(W, batch.XT, out=out)


def outputs_from_preactivations(batch: TorchBatch, a: torch.Tensor, Z: torch.Tensor):
    """h(x_i) = s * sum_j a_j relu(Z_ji) (relu(Z) = A * Z)."""
    return batch.output_factor * (a[:, None, :] @ torch.clamp_min(Z, 0.0))[:, 0, :]


def loss_from_outputs(batch: TorchBatch, h: torch.Tensor) -> torch.Tensor:
    """L per replicate, shape (B,)."""
    return loss_and_derivative(batch, h)[0]


def loss_derivative(batch: TorchBatch, h: torch.Tensor) -> torch.Tensor:
    """g_i = dL/dh(x_i), shape (B, n)."""
    return loss_and_derivative(batch, h)[1]


def loss_and_derivative(batch: TorchBatch, h: torch.Tensor, factor: float = 1.0):
    """(L per replicate (B,), factor * g with g_i = dL/dh(x_i) (B, n)) from the outputs h
    (B, n)."""
    y, scale = batch.y, batch.loss_scale
    if batch.loss == "cross_entropy":  # h (B, n, K), y one-hot: L = -scale sum y log softmax
        logp = torch.log_softmax(h, dim=-1)
        loss = -scale[:, 0] * (y * logp).sum(dim=(-2, -1))
        return loss, (torch.exp(logp) - y).mul_(scale[:, :, None] * factor)
    if batch.loss == "square":  # L = scale/(2n) |r|^2, g = -scale r / n, r = y - h
        r = y - h
        loss = torch.linalg.vecdot(r, r).mul_(0.5 / batch.n * scale[:, 0])
        return loss, r.mul_(scale * (-factor / batch.n))
    margins = y * h
    if batch.loss == "exponential":
        terms = torch.exp(-margins)
        return scale[:, 0] * terms.sum(dim=-1), (-factor) * scale * y * terms
    zeros = torch.zeros_like(margins)
    loss = scale[:, 0] * torch.logaddexp(zeros, -margins).sum(dim=-1)
    # d/dm log(1 + e^{-m}) = -1 / (1 + e^{m}), written stably
    return loss, (-factor) * scale * y * torch.exp(-torch.logaddexp(zeros, margins))


def gradient_terms(batch: TorchBatch, a: torch.Tensor, Z: torch.Tensor):
    """Everything one descent step needs, from the pre-activations Z (B, p, n).

    Returns ``(L, AG, grad_a)``: the loss per replicate (B,), AG[b, j, i] = s A_ji g_i
    (s the output factor), and dL/da (B, p). The first-layer gradient is
    dL/dW_j = a_j sum_i AG_ji x_i (`first_layer_gradient`); in the span of the data its
    coefficients are a_j AG. Z is overwritten (AG is Z's storage): relu(Z) is formed in
    place, then `rectified_gradient_terms` takes over, so a step allocates no (B, p, n)
    array here.
    """
    return rectified_gradient_terms(batch, a, Z.clamp_min_(0.0))


def rectified_gradient_terms(batch: TorchBatch, a: torch.Tensor, relu_Z: torch.Tensor,
                             sample_weights: torch.Tensor | None = None):
    """`gradient_terms` from relu(Z) (B, p, n), which is overwritten by AG: its strict
    mask relu(Z) > 0 (1 where Z > 0, 0 where Z <= 0: relu'(0) = 0) times s g, formed once
    the sums over samples (matrix products) have read relu(Z). A step calls this once,
    so it is written in few operations (each costs ~1-2 us of overhead in torch).
    ``sample_weights`` (B, n) scale each sample's g (a minibatch's n/|S| 1{i in S}); the
    loss returned is the full one."""
    loss, sg, grad_a = _output_terms(batch, a, relu_Z, sample_weights)
    if batch.vector:  # the pair signal <a_j, s g_i> in place of s g_i
        return loss, relu_Z.gt_(0.0).mul_(torch.bmm(a, sg.transpose(-1, -2))), grad_a
    AG = relu_Z.gt_(0.0).mul_(sg.unsqueeze(1))  # 1 where Z > 0 (relu(Z) > 0); gt_ ~2x sign_
    return loss, AG, grad_a


def activation_gradient_terms(batch: TorchBatch, a: torch.Tensor, Z: torch.Tensor,
                              sample_weights: torch.Tensor | None = None):
    """`rectified_gradient_terms` for any activation of `numerics.activations`, from the
    raw pre-activations Z (B, p, n): AG = s sigma'(Z) g and dL/da = s sigma(Z) g (the strict
    mask Z > 0 decides the side, as relu'(0) = 0)."""
    act = batch.activation
    loss, sg, grad_a = _output_terms(batch, a, act.torch_value(Z), sample_weights)
    if batch.vector:
        return loss, act.torch_derivative(Z).mul_(torch.bmm(a, sg.transpose(-1, -2))), grad_a
    AG = act.torch_derivative(Z).mul_(sg.unsqueeze(1))
    return loss, AG, grad_a


def _output_terms(batch: TorchBatch, a: torch.Tensor, values: torch.Tensor,
                  sample_weights: torch.Tensor | None):
    """(L, s g, dL/da) from sigma(Z) (B, p, n): the outputs h = s a^T sigma(Z), the loss and
    its derivative g (each sample's scaled by ``sample_weights`` if given; the loss stays
    the full one), and dL/da_j = sum_i s g_i sigma(Z_ji)."""
    s = batch.output_factor
    if batch.vector:  # h (B, n, K) = s sigma(Z)^T a; dL/da_j = s sum_i sigma(Z_ji) g_i
        h = torch.bmm(values.transpose(-1, -2), a)
        if s != 1.0:
            h.mul_(s)
        loss, sg = loss_and_derivative(batch, h, factor=s)
        if sample_weights is not None:
            sg.mul_(sample_weights.unsqueeze(-1))
        return loss, sg, torch.bmm(values, sg)
    h = torch.bmm(a.unsqueeze(1), values).squeeze_(1)
    if s != 1.0:
        h.mul_(s)
    loss, sg = loss_and_derivative(batch, h, factor=s)
    if sample_weights is not None:
        sg.mul_(sample_weights)
    # dL/da_j = sum_i s g_i sigma(Z_ji), as (s g)^T sigma(Z)^T: a row vector times a
    # transposed view ran ~15x faster here than sigma(Z) @ g (a strided matrix-vector product)
    grad_a = torch.bmm(sg.unsqueeze(1), values.transpose(-1, -2)).squeeze_(1)
    return loss, sg, grad_a


def first_layer_gradient(batch: TorchBatch, a: torch.Tensor, AG: torch.Tensor,
                         packed: PackedSamples | None = None):
    """dL/dW (B, p, d) = a_j * sum_i AG_ji x_i, from AG @ X (by oneDNN if the samples are
    ``packed``); for a vector output AG carries a_j already: AG @ X."""
    if batch.vector:
        return first_layer_products(batch, AG, packed)
    return first_layer_products(batch, AG, packed).mul_(a.unsqueeze(2))


def first_layer_products(batch: TorchBatch, AG: torch.Tensor,
                         packed: PackedSamples | None = None) -> torch.Tensor:
    """AG @ X (B, p, d), by oneDNN if the samples are ``packed``."""
    return torch.bmm(AG, batch.X) if packed is None else packed.first_layer_products(AG)


def gradient(batch: TorchBatch, W: torch.Tensor, a: torch.Tensor):
    """(dL/dW, dL/da) at (W, a), as `numerics.network.gradient`."""
    if batch.is_relu:
        _, AG, grad_a = gradient_terms(batch, a, preactivations(W, batch))
    else:
        _, AG, grad_a = activation_gradient_terms(batch, a, preactivations(W, batch))
    return first_layer_gradient(batch, a, AG), grad_a


# -- oneDNN products ------------------------------------------------------------------


@functools.cache
def onednn_available() -> bool:
    """Whether this torch has oneDNN's packed linear and it computes W X^T (checked once,
    on a small product, against torch's matmul)."""
    if not torch.backends.mkldnn.is_available():
        return False
    try:
        gen = torch.Generator().manual_seed(0)
        W, X = torch.rand((3, 5), generator=gen), torch.rand((7, 5), generator=gen)
        out = onednn_linear(W, torch.ops.mkldnn._reorder_linear_weight(X, 3), "relu")
    except (AttributeError, RuntimeError, NotImplementedError):
        return False
    return bool(torch.allclose(out, torch.relu(W @ X.T), rtol=1e-5, atol=1e-6))


def resolve_gemm(gemm: str, dtype: torch.dtype, n: int, d: int, p: int) -> str:
    """The library a full-space step's products run on: ``"blas"`` or ``"onednn"``."""
    if gemm == "blas":
        return "blas"
    usable = dtype == torch.float32 and onednn_available()
    if gemm == "onednn":
        if not usable:
            why = ("it takes float32 only" if dtype != torch.float32
                   else "this torch build has no working oneDNN")
            raise ValueError(f"gemm: 'onednn' is not usable here ({why}); use 'auto' or 'blas'.")
        return "onednn"
    return "onednn" if usable and n * d * p >= ONEDNN_MIN_NDP else "blas"


def onednn_groups(count: int, n: int, d: int) -> list[torch.Tensor]:
    """The replicates 0 .. count - 1 in consecutive groups of at most `ONEDNN_GROUP_BYTES`
    of packed samples (at least one replicate a group), as index tensors."""
    size = max(1, ONEDNN_GROUP_BYTES // (8 * n * d))
    return [torch.arange(lo, min(lo + size, count)) for lo in range(0, count, size)]


def onednn_linear(inputs: torch.Tensor, packed_weight: torch.Tensor, post: str):
    """inputs @ weight^T for a weight prepacked by ``_reorder_linear_weight``; ``post`` is
    oneDNN's fused post-op (``"none"`` or ``"relu"``)."""
    return torch.ops.mkldnn._linear_pointwise(inputs, packed_weight, None, post, [], "")


class PackedSamples:
    """Each replicate's X (n, d) and X^T (d, n), packed once into oneDNN's layout.

    A step's two products then run as one oneDNN call per replicate each:
    relu(W X^T), with the relu fused into the product, and AG X. float32 only.
    """

    def __init__(self, X: torch.Tensor, p: int):
        reorder = torch.ops.mkldnn._reorder_linear_weight  # p: the rows of the inputs
        self.rows = [reorder(x.contiguous(), p) for x in X]  # weight X_b: W_b X_b^T
        self.columns = [reorder(x.T.contiguous(), p) for x in X]  # weight X_b^T: AG_b X_b

    def relu_preactivations(self, W: torch.Tensor, out: torch.Tensor | None = None):
        """relu(W X^T) (B, p, n), into ``out`` if given."""
        return torch.stack([onednn_linear(w, x, "relu")
                            for w, x in zip(W, self.rows, strict=True)], out=out)

    def first_layer_products(self, AG: torch.Tensor) -> torch.Tensor:
        """AG X (B, p, d)."""
        return torch.stack([onednn_linear(g, x, "none")
                            for g, x in zip(AG, self.columns, strict=True)])

    def select(self, rows: torch.Tensor) -> PackedSamples:
        """The replicates ``rows`` (indices into the batch axis), in that order."""
        new = object.__new__(PackedSamples)
        keep = rows.tolist()
        new.rows, new.columns = [self.rows[k] for k in keep], [self.columns[k] for k in keep]
        return new
