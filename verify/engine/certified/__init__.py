"""Claims decided on certified tubes: PROVED / DISPROVED on an instance (`certify_claim`).

The tube and its file come from `numerics.certify`; the file is re-verified by
`python -m numerics.certify FILE`, which imports no integrator.
"""

from verify.engine.certified.decide import Certification, CertifiedOutcome, certify_claim
from verify.engine.verdict import certified_text  # how a verdict shows its certificate

__all__ = ["Certification", "CertifiedOutcome", "certified_text", "certify_claim"]
