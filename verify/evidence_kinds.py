"""Evidence for claims that are not checked along a whole run: a `Grid` of points (claims
stated in free variables) and an `Estimate` of a run scalar that only a limit defines.

Kept apart from `verify.evidence` (which plans runs and imports the measures) so that
the measure modules can return an Estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from numerics import Trajectory


@dataclass(frozen=True)
class Grid:
    """Points at which a claim stated in free variables (not along a run) is evaluated, such
    as S001-L2, a relation between y and yhat: ``points`` maps each free variable's name to
    a 1-d array (one entry per point, equal lengths). Margins and errors are divided by
    ``|scale|`` (an expression in the same variables) where both sides vanish with it.

    Attributes
    ----------
    points
        Each free variable's name mapped to its values, one per point: 1-d float arrays
        of one length, finite (stored flattened, keys as strings).
    scale
        What margins and errors are divided by, in absolute value: a number or an
        expression in the claim's free variables (1: none). It must not vanish at any
        point.
    description
        A label for the grid, added to the verdict's reason.
    """

    points: dict
    scale: object = 1
    description: str = ""

    def __post_init__(self) -> None:
        arrays = {str(k): np.asarray(v, dtype=float).ravel() for k, v in self.points.items()}
        sizes = {a.size for a in arrays.values()}
        if not arrays or len(sizes) != 1 or 0 in sizes:
            raise ValueError("points: a Grid needs one non-empty array per variable, all of "
                             f"one length (got sizes {sorted(sizes)})")
        if not all(np.all(np.isfinite(a)) for a in arrays.values()):
            raise ValueError("points: a Grid's values must be finite reals")
        object.__setattr__(self, "points", arrays)

    @property
    def size(self) -> int:
        """The number of points."""
        return next(iter(self.points.values())).size


@dataclass(frozen=True)
class Estimate:
    """A run scalar that only a limit defines (S000's MuInf): the value read off
    ``trajectory`` at time ``t``, and its numerical error as measured by whoever read it
    (``how`` says how). ``series`` = (times, values) it was read from, for the figure.

    Attributes
    ----------
    trajectory
        The run the value was read from (`numerics.Trajectory`); the claim's other
        quantities are evaluated on it, and an untrustworthy run makes the check
        INCONCLUSIVE.
    quantity
        The name of the estimated quantity (such as ``MuInf``); each of the claim's
        relations must mention it.
    value
        The estimate, set for ``quantity`` in the claim's relations.
    error
        Its numerical error (finite, >= 0), propagated through each relation to the
        margin's error.
    t
        The time at which the value was read (the verdict's `verify.Where` names it).
    how
        How the value and its error were read, added to the verdict's reason ("" for
        nothing to add).
    series
        ``(times, values)`` the value was read from, drawn in the verdict's figure; empty
        for none.
    """

    trajectory: Trajectory
    quantity: str
    value: float
    error: float
    t: float
    how: str = ""
    series: tuple = ()

    def __post_init__(self) -> None:
        if not (np.isfinite(self.error) and self.error >= 0):
            raise ValueError(f"error: an Estimate's error must be finite and >= 0, "
                             f"got {self.error}")
