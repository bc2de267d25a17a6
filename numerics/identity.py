"""A problem's content hash, computed from its exact values alone.

`numerics.Problem.content_hash` and the certificate checker (`numerics.certify.checker`,
which imports no Problem) both call `content_hash`, so a certificate names its instance by
the hash every verdict, report and stored result prints.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np


def leaky_spec(slope: float) -> str:
    """A leaky ReLU's spelling (``"leaky:0.1"``): what `numerics.activations.LeakyReLU.spec`
    prints and the hash reads."""
    return f"leaky:{slope:g}"


def model_spec(activation_spec: str, train: str) -> str:
    """The model where it is not the default, e.g. ``"leaky:0.1, first layer"``; "" for a
    ReLU network with both layers trained."""
    parts = [] if activation_spec == "relu" else [activation_spec]
    if train != "both":
        parts.append(f"{train} layer")
    return ", ".join(parts)


def content_hash(X, y, W0, a0, parametrization: str, loss: str, loss_scale: float,
                 init_scale: float | None, spec: str) -> str:
    """SHA-256 (hex, 16 chars) of the arrays (their shapes and little-endian float64
    bytes, the exact values) and the settings; ``spec``: `model_spec` (the default model
    hashes as it always did)."""
    h = hashlib.sha256()
    for arr in (X, y, W0, a0):
        arr = np.asarray(arr)
        h.update(str(arr.shape).encode())
        h.update(np.ascontiguousarray(arr, dtype="<f8").tobytes())
    settings = [parametrization, loss, loss_scale, init_scale]
    if spec:
        settings.append(spec)
    h.update(json.dumps(settings).encode())
    return h.hexdigest()[:16]


__all__ = ["content_hash", "leaky_spec", "model_spec"]
