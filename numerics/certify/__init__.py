"""Certified enclosures of gradient-flow runs: a tube that provably contains the true flow.

`certify(trajectory)` returns a `Tube` (and writes it with `Tube.write`); the separate
checker `check_certificate(path)` (`python -m numerics.certify FILE`) re-verifies a
written file without the integrator. `verify.certified` decides claims on a tube (PROVED,
DISPROVED).
"""

from numerics.certify.checker import CertificateRejected, Checked, check_certificate
from numerics.certify.field import NotCertifiable
from numerics.certify.tube import CertifyError, Tube, certify

__all__ = ["CertificateRejected", "CertifyError", "Checked", "NotCertifiable", "Tube",
           "certify", "check_certificate"]
