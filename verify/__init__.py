"""Verdicts: claims from `theory` checked on trajectories from `numerics`."""

from verify.check import CheckError, check
from verify.verdict import Outcome, Verdict, Where

__all__ = ["CheckError", "Outcome", "Verdict", "Where", "check"]
