"""The evidence behind a verdict, kept small enough to travel with it (``Verdict.figure_data``).

`verify.check` fills ``figure_data`` where it compares, so that a figure of a claim shows
the very numbers its margin came from. Plain JSON: dicts, strings, lists of floats
(``None`` where a value is not finite). Three shapes, told apart by ``"type"``:

``"series"`` (POINTWISE, CONSERVED, TRAPPING, IDENTITY, EVENT_TIME): one relation
``observed <op> bound`` over saved times (the window of the check; for an event time,
the binding relation of the event up to the run's end), decimated to about
`MAX_POINTS` points that always include the point the verdict reports:

    t, observed, bound, error, margin   equal-length lists (t is the abscissa, named
                    by ``x_label`` when it is not time)
    relation        "<=", "<", ">=", ">" or "=="
    observed_label, bound_label, part       the sides and the relation as text
    margin          the check's own margin of the relation at t[i]: bound - observed
                    for <=, observed - bound for >=, -|observed - bound| for ==, up to
                    round-off (the check evaluates lhs - rhs as one expression); error
                    is the numerical error it is compared with
    at              {"t", "margin", "error"}: the reported point, with the verdict's
                    margin and error (for a window check, margin[i] and error[i]
                    at the i where t[i] == at["t"])
    event           EVENT_TIME only: {"label", "time", "bound", "error", "run_end"}.
                    The series is the event's condition (margin >= 0 where it holds); the
                    verdict's margin (at["margin"]) is the time margin bound - time, or
                    bound - run_end if the event never happened ("time" is then None)

``"scaling"`` (SCALING): x, y, law (the claimed law at x, fitted constants 1), the fit
log y = intercept + beta log law with beta's interval (``beta``, ``beta_ci``), the same
in exponent units (``slope``, ``ci``, ``claimed_slope``: the verdict's observed and
predicted), and ``fit`` = {"x", "y", "band_lo", "band_hi", "claimed"} at the distinct x
(band and claimed line pivot at the centroid of the log data, where the OLS line passes).

``"probability"`` (PROBABILITY): ``estimates`` (name, estimate, lo, hi, hits, total)
and, per relation of the statement, its two sides at the estimates with their range over
the box of intervals (``relations``); the verdict's margin is the minimum of their
``margin``.
"""

from __future__ import annotations

import math

import numpy as np

# At most about this many points per series (a few more when the reported point, the
# first and the last are added).
MAX_POINTS = 300


def floats(values) -> list[float | None]:
    """A JSON-friendly list: floats, ``None`` where not finite."""
    arr = np.asarray(values, dtype=float).ravel()
    return [float(v) if math.isfinite(v) else None for v in arr.tolist()]


def number(value) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def decimate(n: int, score=None, keep=(), max_points: int = MAX_POINTS) -> np.ndarray:
    """Indices of at most ~``max_points`` of ``n`` points, in order: the first and last,
    ``keep``, and per bucket of consecutive points its first point and the points where
    ``score`` (e.g. the margin) is smallest and largest, so that the extremes survive."""
    if n <= max_points:
        return np.arange(n)
    chosen = {0, n - 1, *(int(k) for k in keep if 0 <= k < n)}
    per_bucket = 3 if score is not None else 1
    buckets = max(1, max_points // per_bucket)
    edges = np.linspace(0, n, buckets + 1).astype(int)
    s = None if score is None else np.nan_to_num(np.asarray(score, dtype=float),
                                                 nan=0.0, posinf=0.0, neginf=0.0)
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        if hi <= lo:
            continue
        chosen.add(int(lo))
        if s is not None:
            seg = s[lo:hi]
            chosen.add(int(lo + np.argmin(seg)))
            chosen.add(int(lo + np.argmax(seg)))
    return np.array(sorted(chosen), dtype=int)


def series(kind: str, relation: str, t, observed, bound, error, margin, at: int | None,
           *, observed_label: str = "observed", bound_label: str = "bound", part: str = "",
           x_label: str = "t", at_margin: float | None = None,
           at_error: float | None = None, event: dict | None = None) -> dict:
    """A ``"series"`` figure_data from full-length arrays (a scalar ``bound`` or
    ``error`` is broadcast), decimated to about `MAX_POINTS` points keeping index
    ``at`` (the reported point). ``at_margin``/``at_error`` default to margin[at] and
    error[at]; ``x_label`` names the abscissa when it is not time."""
    t = np.asarray(t, dtype=float)
    n = t.size
    full = [np.broadcast_to(np.asarray(a, dtype=float), (n,))
            for a in (observed, bound, error, margin)]
    keep = decimate(n, score=full[3], keep=() if at is None else (at,))
    out = {
        "type": "series",
        "kind": kind,
        "relation": relation,
        "part": part,
        "observed_label": observed_label,
        "bound_label": bound_label,
        "t": floats(t[keep]),
        "observed": floats(full[0][keep]),
        "bound": floats(full[1][keep]),
        "error": floats(full[2][keep]),
        "margin": floats(full[3][keep]),
        "at": None if at is None else {
            "t": number(t[at]),
            "margin": number(full[3][at] if at_margin is None else at_margin),
            "error": number(full[2][at] if at_error is None else at_error)},
    }
    if x_label != "t":
        out["x_label"] = x_label
    if event is not None:
        out["event"] = event
    return out


__all__ = ["MAX_POINTS", "decimate", "floats", "number", "series"]
