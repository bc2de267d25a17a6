"""Checks of claims stated in free variables on a `Grid` of points (not along a run).

The numerical error at a point is measured, like a run's: the float64 value of
lhs - rhs against the same expression evaluated with 40 significant digits
(mpmath), times `ERROR_SAFETY`, plus one ulp of the sides for the final
comparison. A margin within it is INCONCLUSIVE; an assumption of the claim that
fails at a point of the grid makes the check INAPPLICABLE.
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from theory.bridge import lambdify
from theory.claim import Claim
from verify.engine.evidence_kinds import Grid
from verify.engine.figure_data import series as figure_series
from verify.engine.relations import RELATION_TEXT, signed_margin
from verify.engine.verdict import CheckError, Outcome, Verdict, Where
from verify.language.measures import ERROR_SAFETY, FLOAT_EPS

EXACT_DIGITS = 40
METHOD = f"grid (float64 against {EXACT_DIGITS}-digit mpmath)"


def _compiled(claim: Claim, grid: Grid, expr: sp.Basic, backend: str):
    """``expr`` compiled by the one bridge to numerics (`theory.bridge.lambdify`), and the
    grid's names it reads."""
    fn, names = lambdify(expr, backend)
    missing = [name for name in names if name not in grid.points]
    if missing:
        raise CheckError(f"{claim.id}: the grid gives no values for {', '.join(missing)} "
                         f"(it has {', '.join(grid.points)})")
    return fn, names


def _float64(claim: Claim, grid: Grid, expr: sp.Basic) -> np.ndarray:
    fn, names = _compiled(claim, grid, expr, "numpy")
    with np.errstate(all="ignore"):
        out = np.broadcast_to(fn(**{nm: grid.points[nm] for nm in names}), (grid.size,))
    return np.asarray(out, dtype=float) if out.dtype != bool else out


def _exact(claim: Claim, grid: Grid, expr: sp.Basic) -> np.ndarray:
    """``expr`` at every point with EXACT_DIGITS digits (the grid's floats taken exactly)."""
    fn, names = _compiled(claim, grid, expr, "mpmath")
    with mpmath.workdps(EXACT_DIGITS):
        return np.array([float(fn(**{nm: mpmath.mpf(float(grid.points[nm][k]))
                                     for nm in names}))
                         for k in range(grid.size)])


def _inapplicable(claim: Claim, grid: Grid) -> str | None:
    for assumption in (a for a in claim.setting if a.required):
        ok = _float64(claim, grid, claim.substituted(assumption.statement))
        if not np.all(ok):
            k = int(np.flatnonzero(~ok)[0])
            return f"{assumption.name} fails at {_point(grid, k)}"
    return None


def _point(grid: Grid, k: int) -> str:
    return ", ".join(f"{name}={values[k]:.4g}" for name, values in grid.points.items())


def check_grid(claim: Claim, grid: Grid) -> Verdict:
    """Every relation of ``claim`` at every point of ``grid``; the reported point is the most
    violated one, else the first inside its error band, else the smallest margin."""
    why = _inapplicable(claim, grid)
    if why:
        return Verdict(claim.id, Outcome.INAPPLICABLE, reason=why, method=METHOD)
    scale = np.abs(_float64(claim, grid, sp.sympify(grid.scale)) * np.ones(grid.size))
    if np.any(scale == 0):
        raise CheckError(f"scale: |{grid.scale}| vanishes on the grid; leave those points out")
    picks = []  # (rank, margin, error, k, relation, margins, errors)
    for rel in claim.relations():
        signed_margin(rel, 0.0)  # an unsupported relation is refused before it is evaluated
        lhs, rhs = claim.substituted(rel.lhs), claim.substituted(rel.rhs)
        sides = [_float64(claim, grid, side) for side in (lhs, rhs)]
        diff = _float64(claim, grid, lhs - rhs)
        error = (ERROR_SAFETY * np.abs(diff - _exact(claim, grid, lhs - rhs))
                 + FLOAT_EPS * (np.abs(sides[0]) + np.abs(sides[1]))) / scale
        margin = signed_margin(rel, diff) / scale
        if not np.all(np.isfinite(margin)):
            k = int(np.flatnonzero(~np.isfinite(margin))[0])
            return Verdict(claim.id, Outcome.INCONCLUSIVE, method=METHOD,
                           where=Where(_point(grid, k), part=sp.sstr(rel)),
                           reason=f"{sp.sstr(rel)} is not finite at {_point(grid, k)}")
        bad = margin < -error
        undecided = (np.abs(margin) <= error) & (not isinstance(rel, sp.Equality))
        if bad.any():
            k, rank = int(np.argmin(margin + error)), 0
        elif undecided.any():
            k, rank = int(np.flatnonzero(undecided)[0]), 1
        else:
            k, rank = int(np.argmin(margin)), 2
        picks.append((rank, float(margin[k]), float(error[k]), k, rel, sides, margin, error))
    rank, margin, error, k, rel, sides, margins, errors = min(picks, key=lambda p: p[:2])
    outcome = (Outcome.VIOLATED, Outcome.INCONCLUSIVE, Outcome.HOLDS)[rank]
    return Verdict(claim.id, outcome, margin=margin, error=error, method=METHOD,
                   where=Where(_point(grid, k), part=sp.sstr(rel)),
                   reason=f"{grid.size} points" + (f" ({grid.description})"
                                                   if grid.description else "")
                   + (f"; margins relative to |{grid.scale}|" if grid.scale != 1 else ""),
                   figure_data=_figure(claim, grid, rel, k, sides, scale, margins, errors))


def _figure(claim, grid, rel, k, sides, scale, margins, errors) -> dict:
    """Both sides (over |scale|) along the first variable, the others held at the reported
    point's values."""
    names = list(grid.points)
    first = grid.points[names[0]]
    along = np.ones(grid.size, dtype=bool)
    for name in names[1:]:
        along &= grid.points[name] == grid.points[name][k]
    rows = np.flatnonzero(along)
    order = rows[np.argsort(first[rows])]
    at = int(np.flatnonzero(order == k)[0])
    held = ", ".join(f"{name} = {grid.points[name][k]:.4g}" for name in names[1:])
    scaled = "" if grid.scale == 1 else f"/|{grid.scale}|"
    return figure_series(
        claim.kind.value, RELATION_TEXT[type(rel)], first[order], sides[0][order] / scale[order],
        sides[1][order] / scale[order], errors[order], margins[order], at,
        x_label=names[0] + (f" ({held})" if held else ""),
        observed_label=f"({sp.sstr(rel.lhs)}){scaled}",
        bound_label=f"({sp.sstr(rel.rhs)}){scaled}", part=sp.sstr(rel))
