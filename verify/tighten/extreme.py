"""One instance: the extreme of the critical value of C over the statement's window.

On a run, each part's critical value ``h`` is evaluated at every saved time of the window
with `verify.engine.check.evaluate` (so with exactly the error a check counts: companion
difference and round-off), and the sign of the slope says which way it bounds C. The
instance's value is the largest ``h`` where C is bounded below, the smallest where it is
bounded above; a statement that bounds C from both sides on one run is refused. For an
event-time bound the event's time is read as a check reads it (`event_time`), with the
check's error (the companion's event time and the saved-time spacing), and ``h`` is
evaluated at that time.

Each saved time bounds the instance's critical value (the extreme of ``h`` over the
window) between ``h - error`` and ``h + error``; over the window it lies between the
extreme of ``h - error`` and the extreme of ``h + error``. The instance's value is the
middle of that interval and its error the half-width, so every time of the window
counts, the less well known ones too. The witness's time is the one that bounds C most
surely (the largest ``h - error`` where C is bounded below, the smallest ``h + error``
above). The instance decides C only when the half-width is within ``RESOLVED`` (2%) of
the larger of the value and the proved value (`move_scale`). The witness is checked with
C moved 2% of the value past and back when the value is known to 2% of itself, else 2%
of that scale (`witness_move`): either way past the half-width, so C moved past fails at
the witness's time and moved back holds at every time.

Saved times that no float64 run decides are left out, as `gfverify conjecture` leaves them
out of a for-all-t window (`verify.engine.check_run.undecidable_times`, at the value found: the
loss within its own error of 0, a margin below the rounding of its own formula, or within
the finest float64 run's error where the relation holds): when the other times bound C to
2%, the instance is decided and its note names the times left out, and says so when the
run's own values there pass the decided one (the extreme may lie there).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import sympy as sp

from numerics import Trajectory
from theory.claim import Claim
from verify.engine.check import check, evaluate
from verify.engine.check_run import event_time, instance_scalar, undecidable_times, window_mask
from verify.engine.verdict import CheckError, Outcome
from verify.tighten.statement import Tightenable, TightenError, substitute

DECIDED, UNDECIDED, INAPPLICABLE = "decided", "undecided", "inapplicable"
# what an instance's value means; part of a store's query, so that rows measured under an
# earlier definition are not read back as if they were this one's (3: the interval over
# the whole window, from the margins' errors, 2026-11-25; 4: the saved times no float64 run
# decides left out and named, 2026-11-28)
DEFINITION = 4
MOVE = 0.02  #: The witness is checked with C moved 2% past and back (`verify.tighten.search`).
# an instance decides C only where C's error is below the 2% of that check
RESOLVED = MOVE
# how a decided instance's note begins when saved times were left out of its extreme, and
# what it says first when the run's own values there pass the decided one
LEFT_OUT = "decided without the saved times no float64 run decides"
BEYOND = "the extreme may lie in the times left out"


def move_scale(value: float, proved: float | None) -> float:
    """What an instance's resolution is 2% of: for a claim, the larger of the value and
    the proved value. A value small against the proved one (a deviation the flow keeps
    near 0, such as S002-F2's) is then resolved to 2% of the proved value, which is what
    its slack needs; the result reports the slack as a lower bound when the value is not
    known to 2% of itself (`verify.tighten.result.TightenResult.slack_at_least`), and the
    witness is then checked 2% of this scale each way (`witness_move`). For a user's
    statement (no proved value, no scale of its own): the value itself, or 1 when it is
    exactly 0."""
    if proved is not None and math.isfinite(proved) and proved != 0:
        return max(abs(value), abs(proved))
    return abs(value) if value != 0 else 1.0


@dataclass(frozen=True)
class Extreme:
    """The instance's critical value of C (None unless ``status`` is DECIDED), its error,
    where it is attained (time, part), which way C is bounded (+1: C >= value makes the
    statement hold on this run, -1: C <= value), and why when it is not decided.

    Attributes
    ----------
    status
        ``"decided"`` (``DECIDED``: its error is within ``RESOLVED``, 2%, of
        `move_scale`), ``"undecided"`` (``UNDECIDED``: not resolved, no saved time in the
        window, an untrustworthy run, ...) or ``"inapplicable"`` (``INAPPLICABLE``: the
        instance fails an assumption of the claim).
    value
        The instance's critical value of C: the middle of the interval the saved times of
        the window bound it to (for an event-time bound, its value at the event's time);
        None unless decided.
    error
        The half-width of that interval (for an event-time bound, how far the event
        time's error moves the value); NaN unless decided.
    t
        The time that bounds C most surely (the witness's time), or the event's time;
        None unless decided.
    part
        The index of the statement's part (`verify.tighten.statement.Tightenable.parts`)
        that attains the value; 0 unless decided.
    direction
        Which way C is bounded on this run: +1 when C >= ``value`` makes the statement
        hold, -1 when C <= ``value`` does; 0 unless decided.
    note
        Why the instance is not decided (shown in the result); for a decided one, the saved
        times left out of its extreme because no float64 run decides them there (``LEFT_OUT``,
        named as a check names them), or "".
    """

    status: str
    value: float | None = None
    error: float = math.nan
    t: float | None = None
    part: int = 0
    direction: int = 0
    note: str = ""


# the reasons an instance does not decide C, by the start of its note: how a result groups
# its undecided instances (one line per reason, with a count)
REASONS = (
    ("the constant is not resolved: on this run it lies between",
     "the constant is not resolved to 2% on the run (on the most accurate run tried; "
     "saved times where the run's value fails within its error are not left out)"),
    ("the constant is not resolved: its value at",
     "the constant's error is unknown at a saved time no float64 run is known not to decide"),
    ("the constant is not resolved: no float64 run",
     "no float64 run decides the constant at any saved time of the window"),
    ("no saved time inside the window", "no saved time inside the window"),
    ("the constant is not determined", "the constant is not determined at any saved time"),
    ("the event did not happen", "the event did not happen by the horizon"),
    ("the event time's error", "the event time's error makes C uncertain by more than 2%"),
    ("simulation not trustworthy", "the simulation is not trustworthy"),
)


def reason(extreme: Extreme) -> str:
    """The reason ``extreme`` (not decided) is grouped under: for an undecided instance one
    of ``REASONS``, for an inapplicable one its note (an assumption's)."""
    for start, text in REASONS:
        if extreme.note.startswith(start):
            return f"{extreme.status}: {text}"
    # an assumption's note ends with its numbers on this instance: grouped by the assumption
    return f"{extreme.status}: {extreme.note.split('; by ')[0].split(' with ')[0]}"


def witness_move(value: float, error: float, proved: float | None) -> float:
    """How far C is moved past and back for the witness check: 2% of the value when the
    value is known to 2% of itself (the sharp check), else 2% of `move_scale` (a value
    below resolution, whose slack is then reported as a lower bound only)."""
    if value != 0 and error <= MOVE * abs(value):
        return MOVE * abs(value)
    return MOVE * move_scale(value, proved)


def _direction(signs: np.ndarray, where: str) -> int:
    signs = signs[signs != 0]
    if not signs.size:
        return 0
    if np.all(signs > 0):
        return 1
    if np.all(signs < 0):
        return -1
    raise TightenError(f"{where}: the constant bounds the statement from both sides on one "
                       f"run (the slope changes sign); tighten one part (--part) or restate it")


def _part_values(claim: Claim, tr: Trajectory, expr: sp.Basic):
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        vals, errs = evaluate(claim, tr, expr)
    return (np.broadcast_to(np.asarray(vals, dtype=float), tr.t.shape),
            np.broadcast_to(np.asarray(errs, dtype=float), tr.t.shape))


def _uncertainty_at(tight: Tightenable, part, claim: Claim, tr: Trajectory,
                    value: float) -> np.ndarray:
    """How far C is uncertain at each saved time, seen from C = ``value``: the error the
    check counts on the relation's margin g(C) = rhs - lhs there, divided by |g'(C)|. A
    time whose critical value is far from ``value`` is then judged as a check at ``value``
    judges it (L(0)/L(t) at a late time is huge and known poorly, yet L(0) >= C L(t) is
    decided there for C near 1)."""
    g = part.relation.rhs - part.relation.lhs
    at = {tight.free: sp.Float(value)}
    _, margin_error = _part_values(claim, tr, g.xreplace(at))
    slope, _ = _part_values(claim, tr, sp.diff(g, tight.free).xreplace(at))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        out = margin_error / np.abs(slope)
    return np.where(np.isnan(out), np.inf, out)


def _pointwise(tight: Tightenable, claim: Claim, tr: Trajectory,
               reference: float | None) -> Extreme:
    inside = window_mask(claim, tr)
    if not inside.any():
        lo, hi = (sp.sstr(end) for end in claim.window)
        return Extreme(UNDECIDED, note=f"no saved time inside the window [{lo}, {hi}] (its "
                                       f"end is the run's, or the loss floor's, when "
                                       f"earlier)")
    parts, direction = [], 0
    for k, part in enumerate(tight.parts):
        vals, errs = _part_values(claim, tr, part.critical)
        slope, _ = _part_values(claim, tr, part.slope)
        with np.errstate(invalid="ignore"):
            ok = inside & np.isfinite(vals) & np.isfinite(slope) & (slope != 0)
        if not ok.any():
            continue
        d = _direction(np.sign(slope[ok]), part.text())
        if direction and d != direction:
            raise TightenError(f"{tight.text}: its parts bound the constant from opposite "
                               f"sides; tighten one part (--part)")
        direction = d
        parts.append((k, part, ok, vals, errs))
    if not parts:
        return Extreme(UNDECIDED, note="the constant is not determined at any saved time of "
                                       "the window (no saved time there, or its coefficient "
                                       "is 0 or not finite)")
    # the times no float64 run decides (as a check names them at the value found: the loss
    # at its floor, a margin below its own rounding) are left out and named, each part's by
    # its own relation, as `gfverify conjecture` leaves them out; the rest decide the value
    none = [np.zeros(len(tr.t), dtype=bool) for _ in parts]
    found = _interval(tight, claim, tr, parts, direction, none, reference)
    if found is not None and found.resolved:
        return Extreme(DECIDED, found.value, found.error, found.t, found.part, direction)
    left_out, named, settled = none, "", False
    for _ in range(4):
        if found is None:
            break
        # named as a check names them at the value the witness check must find holding:
        # resolved, the value moved back by the witness's move; else the value the surest
        # time bounds C by (a poorly known time would move the middle anywhere), moved 2%
        back = (found.value + direction * witness_move(found.value, found.error, reference)
                if found.resolved else
                found.sure + direction * MOVE * move_scale(found.sure, reference))

        try:
            if found.resolved:  # settled: a check at that value faults no time left out
                fine, _ = _undecidable_parts(tight, claim, tr, parts, back, holding=True)
                if all(np.all(f >= k) for f, k in zip(fine, left_out, strict=True)):
                    settled = True
                    break
            masks, note = _undecidable_parts(tight, claim, tr, parts, back)
        except (ArithmeticError, CheckError):  # not evaluable at that value (overflow)
            break
        if all(np.array_equal(m, k) for m, k in zip(masks, left_out, strict=True)):
            break
        left_out, named = masks, note
        found = _interval(tight, claim, tr, parts, direction, left_out, reference)
    if found is None:
        return Extreme(UNDECIDED, note=f"the constant is not resolved: no float64 run "
                                       f"decides it at any saved time of the window "
                                       f"({named})")
    if found.unknown:
        return Extreme(UNDECIDED, note=f"the constant is not resolved: its value at "
                                       f"t = {found.t_high:.4g} has an unknown error")
    lo, hi = found.bounds
    if not found.resolved:
        return Extreme(UNDECIDED, note=f"the constant is not resolved: on this run it lies "
                                       f"between {lo:.4g} and {hi:.4g} (more than "
                                       f"{RESOLVED:.0%} apart; least sure at "
                                       f"t = {found.t_high:.4g})")
    if not settled:  # resolved on times left out at another value than the one found
        return Extreme(UNDECIDED, note="the constant is not resolved: the saved times left "
                                       "out (no float64 run decides them) do not settle at "
                                       f"the value found, {found.value:.4g}")
    d = direction
    beyond = [d * vals[ok & k] for (_, _, ok, vals, _), k in zip(parts, left_out, strict=True)
              if (ok & k).any()]
    reach = max((float(np.max(b)) for b in beyond), default=-math.inf)
    warn = (f" ({BEYOND}: the run's values there reach {d * reach:.4g})"
            if reach > d * found.value + found.error else "")
    return Extreme(DECIDED, found.value, found.error, found.t, found.part, direction,
                   f"{LEFT_OUT}{warn}: {named}")


def _undecidable_parts(tight: Tightenable, claim: Claim, tr: Trajectory, parts: list,
                       value: float, holding: bool = False) -> tuple[list[np.ndarray], str]:
    """Per part, the saved times no float64 run decides for that part's own relation at C =
    ``value`` (`verify.engine.check_run.undecidable_times`, the check's rule; ``holding``: and the
    times where it holds by more than its error), and their note."""
    masks, notes = [], []
    for _, part, _, _, _ in parts:
        rel = substitute(part.relation, {tight.free: sp.Float(value)})
        mask, note = undecidable_times(replace(claim, statement=rel), tr, holding=holding)
        masks.append(mask)
        if note:
            notes.append(note if len(parts) == 1 else f"{part.text()}: {note}")
    return masks, "; ".join(dict.fromkeys(notes))


@dataclass(frozen=True)
class _Interval:
    """What the kept saved times bound the instance's critical value to (`_interval`)."""

    value: float
    error: float
    bounds: tuple[float, float]
    t: float  # the time that bounds C most surely
    part: int
    t_high: float  # the least sure time
    sure: float  # the value the surest time bounds C by
    unknown: bool  # some kept time's value has an unknown error
    resolved: bool


def _interval(tight: Tightenable, claim: Claim, tr: Trajectory, parts: list, d: int,
              left_out: list, reference: float | None) -> _Interval | None:
    """The interval the saved times not ``left_out`` (a mask per part) bound the critical
    value to (None when no part has a kept time)."""
    kept = [(k, part, np.flatnonzero(ok & ~out), vals, errs)
            for (k, part, ok, vals, errs), out in zip(parts, left_out, strict=True)
            if (ok & ~out).any()]
    if not kept:
        return None
    # a first value: where C is most surely bounded by the critical values' own errors
    first = max(float(np.max(d * v[i] - e[i])) for _, _, i, v, e in kept)
    if not math.isfinite(first):  # every critical value's own error unknown: its extreme
        first = max(float(np.max(d * v[i])) for _, _, i, v, _ in kept)
    value = d * first
    for _ in range(2):  # the interval seen from that value, then from its middle
        sure = possible = None  # (d h - u, t, part) largest; (d h + u, t) largest
        for k, part, idx, vals, _ in kept:
            u = _uncertainty_at(tight, part, claim, tr, value)[idx]
            low, high = d * vals[idx] - u, d * vals[idx] + u
            j, jq = int(np.argmax(low)), int(np.argmax(high))
            if sure is None or low[j] > sure[0]:
                sure = (float(low[j]), float(tr.t[idx[j]]), k)
            if possible is None or high[jq] > possible[0]:
                possible = (float(high[jq]), float(tr.t[idx[jq]]))
        (low, t, k), (high, t_high) = sure, possible
        if not (math.isfinite(low) and math.isfinite(high)):
            return _Interval(value, math.inf, (-math.inf, math.inf), t, k, t_high,
                             d * low if math.isfinite(low) else value, True, False)
        bounds = tuple(sorted((d * low, d * high)))
        value, error = (bounds[0] + bounds[1]) / 2, (high - low) / 2
    return _Interval(value, error, bounds, t, k, t_high, d * low, False,
                     error <= RESOLVED * move_scale(value, reference))


def _event(tight: Tightenable, claim: Claim, tr: Trajectory, error: float,
           reference: float | None) -> Extreme:
    t_obs = event_time(claim, tr)
    if not math.isfinite(t_obs):
        return Extreme(UNDECIDED, note=f"the event did not happen by t = {float(tr.t[-1]):.4g}")
    best: tuple | None = None
    direction = 0
    for k, part in enumerate(tight.parts):
        def at(t: float, expr=part.critical) -> float:
            return instance_scalar(claim, tr, expr.xreplace({claim.event_time: sp.Float(t)}))

        value = at(t_obs)
        slope = instance_scalar(claim, tr, part.slope.xreplace(
            {claim.event_time: sp.Float(t_obs)}))
        if not (math.isfinite(value) and math.isfinite(slope)) or slope == 0:
            continue
        d = 1 if slope > 0 else -1
        if direction and d != direction:
            raise TightenError(f"{tight.text}: its parts bound the constant from opposite "
                               f"sides; tighten one part (--part)")
        direction = d
        spread = abs(at(t_obs + error) - at(max(t_obs - error, 0.0))) / 2
        cand = (value, spread if math.isfinite(spread) else math.inf, t_obs, k)
        if best is None or (cand[0] > best[0] if d > 0 else cand[0] < best[0]):
            best = cand
    if best is None:
        return Extreme(UNDECIDED, note="the constant is not determined by the bound")
    if not best[1] <= RESOLVED * move_scale(best[0], reference):
        return Extreme(UNDECIDED, note=f"the event time's error makes C uncertain by "
                                       f"{best[1]:.3g} (more than {RESOLVED:.0%} of "
                                       f"{best[0]:.4g})")
    value, err, t, k = best
    return Extreme(DECIDED, value, err, t, k, direction)


def reference_value(claim: Claim, tr: Trajectory, reference: float | sp.Basic) -> float:
    """The proved value on this run, as a number (it may depend on the instance)."""
    reference = sp.sympify(reference)
    if reference.is_number:
        return float(reference)
    return instance_scalar(claim, tr, reference)


def instance_extreme(tight: Tightenable, claim: Claim, tr: Trajectory,
                     reference: float | sp.Basic = 1) -> Extreme:
    """The instance's critical value of C on the run ``tr``. ``claim`` is the statement on
    this run with C left free; ``reference`` (the proved value, or 1) is the value at which
    the statement's assumptions and the run's trustworthiness are checked first."""
    if not tr.status.ok or not tr.finite:
        return Extreme(UNDECIDED, note=f"simulation not trustworthy: {tr.status.name}")
    error = 0.0
    if tight.claim is not None or tight.event_time:  # assumptions, the event's error
        at_ref = replace(claim, statement=substitute(claim.statement,
                                                     {tight.free: sp.sympify(reference)}))
        try:
            verdict = check(at_ref, tr)
        except CheckError as exc:
            raise TightenError(f"{tight.text}: {exc}") from None
        if verdict.outcome is Outcome.INAPPLICABLE:
            return Extreme(INAPPLICABLE, note=verdict.reason or "an assumption is not met")
        error = float(verdict.error)
    try:
        scale = reference_value(claim, tr, tight.proved) if tight.proved is not None else None
        if tight.event_time:
            return _event(tight, claim, tr, error, scale)
        return _pointwise(tight, claim, tr, scale)
    except CheckError as exc:
        raise TightenError(f"{tight.text}: {exc}") from None
