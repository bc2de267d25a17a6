"""Certified enclosures of gradient-flow runs: a tube that provably contains the true flow.

`certify(trajectory)` returns a `Tube`; ``Tube.write(path, claim, verdict)`` writes it
with the claim decided on it (`numerics.certify.certificate`); the separate checker
`check_certificate(path)` (``python -m numerics.certify FILE``) re-checks the file from
the file alone, without the integrator. `verify.engine.certified` decides a `theory.Claim` on a
tube (PROVED, DISPROVED) through the claim evaluator `numerics.certify.claims`; where the
tube stops before a window ends, a bound on the loss is decided past it by Lemma 9, the
loss's monotonicity along the flow (`numerics.certify.monotone`).

The names below are imported on first use (PEP 562), so that the checker loads none of the
writer's modules.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "CertificateRejected": "numerics.certify.checker",
    "Checked": "numerics.certify.checker",
    "check_certificate": "numerics.certify.checker",
    "NotCertifiable": "numerics.certify.field",
    "CertifyError": "numerics.certify.tube",
    "Tube": "numerics.certify.tube",
    "certify": "numerics.certify.tube",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value
