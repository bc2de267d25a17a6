"""Evidence for claims that are not checked along a whole run: a `Grid` of points (claims
stated in free variables) and an `Estimate` of a run scalar that only a limit defines.

Kept apart from `verify.engine.evidence` (which plans runs and imports the measures) so that
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


#: how a sequence's variable x becomes the small variable s -> 0 its fit is in
SCALES = {"x": "s = x (x -> 0)", "1/x": "s = 1/x (x -> infinity)",
          "1/log x": "s = 1/ln x (x -> infinity: a rate in (log t)^-a)"}


@dataclass(frozen=True)
class LimitSequence:
    """A quantity along a sequence that approaches a limit, for LIMIT claims
    (`verify.engine.check_limit`): instances with lam decreasing geometrically, or one run's saved
    times t -> infinity. The check fits |Q - Q*| against ``s`` (``scale`` of ``x``).

    Attributes
    ----------
    variable
        The name of the sequence's variable (``lam``, ``LamEff``, ``t``).
    x
        Its values, one per element, moving monotonically toward the limit (floats).
    values
        The quantity at each element (finite floats, the same length).
    errors
        Their numerical errors (finite, >= 0): upper bounds, as every check's.
    quantity
        What the values are, in words (the claim's expression).
    scale
        How x becomes the small variable s -> 0 of the fit: ``"x"`` (x -> 0), ``"1/x"``,
        ``"1/log x"`` (x -> infinity) (`SCALES`).
    labels
        Where each value came from (an instance's name), or () for none.
    seconds
        What each element cost to compute (s), or (): the INCONCLUSIVE verdict's estimate
        of what a longer sequence would cost.
    description
        A label for the sequence (the verdict's `verify.Where` names it).
    """

    variable: str
    x: tuple
    values: tuple
    errors: tuple
    quantity: str = ""
    scale: str = "x"
    labels: tuple = ()
    seconds: tuple = ()
    description: str = ""

    def __post_init__(self) -> None:
        for name in ("x", "values", "errors", "seconds"):
            try:
                arr = tuple(float(v) for v in getattr(self, name))
            except (TypeError, ValueError):
                raise ValueError(f"{name}: a LimitSequence's {name} must be numbers") from None
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "labels", tuple(str(v) for v in self.labels))
        n = len(self.x)
        if n < 2 or len(self.values) != n or len(self.errors) != n:
            raise ValueError(f"x, values, errors: a LimitSequence needs at least 2 elements "
                             f"and equal lengths, got {n}, {len(self.values)}, "
                             f"{len(self.errors)}")
        for name, extra in (("labels", self.labels), ("seconds", self.seconds)):
            if extra and len(extra) != n:
                raise ValueError(f"{name}: one per element ({n}) or none, got {len(extra)}")
        if self.scale not in SCALES:
            raise ValueError(f"scale: one of {sorted(SCALES)}, got {self.scale!r}")
        if not all(np.isfinite(self.x)) or not all(np.isfinite(self.values)):
            raise ValueError("x, values: a LimitSequence's numbers must be finite")
        if not all(np.isfinite(e) and e >= 0 for e in self.errors):
            raise ValueError("errors: a LimitSequence's errors must be finite and >= 0")
        s = self.s
        if not (np.all(s > 0) and np.all(np.diff(s) < 0)):
            raise ValueError(f"x: with scale {self.scale!r} the sequence must approach its "
                             f"limit monotonically ({SCALES[self.scale]}), got x = "
                             f"{list(self.x)[:4]}...")

    @property
    def s(self) -> np.ndarray:
        """The small variable s -> 0 the fit is in (`SCALES`), one per element."""
        x = np.asarray(self.x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.scale == "x":
                return x
            if self.scale == "1/x":
                return 1.0 / x
            return np.where(x > 1.0, 1.0 / np.log(x), np.nan)

    def __len__(self) -> int:
        return len(self.x)
