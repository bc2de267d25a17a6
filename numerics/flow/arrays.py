"""Where the Taylor engine's series live: numpy on the CPU, or torch on a device.

`numerics.flow.series` writes its algebra once, against the few operations below, so the
same code runs in numpy (the default: on the CPU its small products cost least) and in
torch float64 on any device torch has (a GPU; or the CPU, where the path is tested). The
driver and the event search read the series through the host copies `host` returns (a
candidate's rows, a state, a pre-activation matrix), so only those cross to the CPU.

`backend` picks one from `ExactFlow`'s ``device``.
"""

from __future__ import annotations

import numpy as np


class NumpyArrays:
    """The series in numpy, on the CPU (views where numpy gives them)."""

    name = "numpy"
    device = "cpu"

    def zeros(self, shape):
        return np.zeros(shape)

    def put(self, array):
        """A host array as this backend's (float64)."""
        return np.asarray(array, dtype=float)

    def host(self, x) -> np.ndarray:
        """This backend's array on the host, as numpy."""
        return x

    def rev(self, x, axis: int):
        """``x`` reversed along ``axis`` (a view)."""
        index = [slice(None)] * x.ndim
        index[axis] = slice(None, None, -1)
        return x[tuple(index)]

    def swap(self, x):
        """``x`` with its last two axes swapped."""
        return x.swapaxes(-1, -2)

    def matmul(self, a, b, out=None):
        return np.matmul(a, b, out=out) if out is not None else np.matmul(a, b)

    def multiply(self, a, b, out):
        np.multiply(a, b, out=out)

    def einsum(self, spec: str, *xs):
        return np.einsum(spec, *xs)

    def sqrt(self, x, out):
        np.sqrt(x, out=out)

    def sum(self, x, axis: int, out=None):
        return np.sum(x, axis=axis, out=out) if out is not None else np.sum(x, axis=axis)

    def exp(self, x):
        return np.exp(x)

    def softplus(self, x):
        """log(1 + e^x), stably."""
        return np.logaddexp(0.0, x)

    def arange(self, lo: int, hi: int):
        return np.arange(lo, hi, dtype=float)


class TorchArrays:
    """The series in torch float64 on ``device`` (``"cuda"``, ``"cuda:1"``, ``"cpu"``)."""

    name = "torch"

    def __init__(self, device: str) -> None:
        import torch

        self.torch = torch
        self.dev = torch.device(device)
        if self.dev.type == "cuda" and not torch.cuda.is_available():
            raise ValueError("torch sees no GPU: torch.cuda.is_available() is False")
        self.device = str(self.dev)

    def zeros(self, shape):
        return self.torch.zeros(shape, dtype=self.torch.float64, device=self.dev)

    def put(self, array):
        return self.torch.as_tensor(np.asarray(array, dtype=float), device=self.dev)

    def host(self, x) -> np.ndarray:
        return x.detach().cpu().numpy()

    def rev(self, x, axis: int):
        return self.torch.flip(x, (axis,))

    def swap(self, x):
        return x.transpose(-1, -2)

    def matmul(self, a, b, out=None):
        result = self.torch.matmul(a, b)
        if out is None:
            return result
        out.copy_(result)
        return out

    def multiply(self, a, b, out):
        out.copy_(a * b)

    def einsum(self, spec: str, *xs):
        return self.torch.einsum(spec, *xs)

    def sqrt(self, x, out):
        out.copy_(self.torch.sqrt(x))

    def sum(self, x, axis: int, out=None):
        result = self.torch.sum(x, dim=axis)
        if out is None:
            return result
        out.copy_(result)
        return out

    def exp(self, x):
        return self.torch.exp(x)

    def softplus(self, x):
        return self.torch.logaddexp(self.torch.zeros_like(x), x)

    def arange(self, lo: int, hi: int):
        return self.torch.arange(lo, hi, dtype=self.torch.float64, device=self.dev)


def backend(device: str):
    """The arrays for `ExactFlow`'s ``device``: ``"cpu"`` numpy; ``"torch"`` torch on the
    CPU (the device path, run where there is no GPU); ``"cuda"``/``"cuda:N"`` torch on that
    GPU; ``"auto"`` a GPU when torch sees one, else numpy."""
    if device == "cpu":
        return NumpyArrays()
    if device == "torch":
        return TorchArrays("cpu")
    if device == "auto":
        import torch

        return TorchArrays("cuda") if torch.cuda.is_available() else NumpyArrays()
    return TorchArrays(device)
