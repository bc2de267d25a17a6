"""What the papers claim, in sympy: the vocabulary, the Claim record, the catalogue.

Importing ``theory`` imports sympy only (no numerics, scipy or torch).
"""

from theory import symbols
from theory.bridge import lambdify
from theory.claim import Assumption, Claim, Kind, Provenance, Source
from theory.registry import claims, get
from theory.symbols import UnknownName

__all__ = [
    "Assumption",
    "Claim",
    "Kind",
    "Provenance",
    "Source",
    "UnknownName",
    "claims",
    "get",
    "lambdify",
    "symbols",
]
