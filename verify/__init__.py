"""Verdicts: claims from `theory` checked on trajectories from `numerics`."""

from verify.check import CheckError, check
from verify.conjecture import ConjectureResult, conjecture
from verify.errors import InputError
from verify.verdict import Outcome, Verdict, Where

__all__ = ["CheckError", "ConjectureResult", "InputError", "Outcome", "Verdict", "Where",
           "check", "conjecture"]
