"""How a relation of a claim is read as a signed margin (>= 0: it holds), one rule for every
kind of evidence (runs, grids, estimates, probabilities)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from verify.engine.verdict import CheckError

RELATION_TEXT = {sp.Equality: "==", sp.LessThan: "<=", sp.StrictLessThan: "<",
                 sp.GreaterThan: ">=", sp.StrictGreaterThan: ">"}


def signed_margin(rel: sp.Basic, diff):
    """The margin of ``rel`` given ``diff`` = lhs - rhs (a number or an array): how far an
    inequality is from failing, and -|lhs - rhs| for an equality."""
    if isinstance(rel, sp.Equality):
        return -np.abs(diff)
    if isinstance(rel, (sp.GreaterThan, sp.StrictGreaterThan)):
        return diff
    if isinstance(rel, (sp.LessThan, sp.StrictLessThan)):
        return -diff
    raise CheckError(f"unsupported relation {rel!r}; use =, <=, <, >=, >")
