"""`certify(trajectory)`: a certified tube around a gradient-flow run, written as a file.

The writer builds its own piecewise-polynomial approximant of the flow from the run's
initial state (Taylor series of the regime's polynomial field, `field.taylor`, each step
ending at the run's saved times and on either side of each activation change), and bounds
its distance to the true flow step by step (`field.verify_step`: defect, logarithmic norm,
Gronwall). A crossing is passed by a short *window* step, centred on where the
approximant crosses and wide enough (several tube radii over the crossing speed) that on
either side of it the pair's sign is certain; inside it the pair's slope is the hull of
both sides, so the bound covers whichever side the true flow is on, and a sliding mode
too while it lasts. At the run's saved times the tube around the *run's* states is the
approximant's radius plus the run's distance to the approximant.

Everything the checker (`numerics.certify.checker`) needs is in the file; the checker
re-derives every bound from it with its own calls and accepts or rejects it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from numerics.certify import certificate
from numerics.certify.balls import distance_up, up, value_at
from numerics.certify.claims import ClaimSpec, Decision
from numerics.certify.field import (
    NotCertifiable,
    Shape,
    projected_centre,
    restart_radius,
    start_sets,
    step_polynomial,
    verify_step,
)
from numerics.certify.field import taylor as taylor_coefficients
from numerics.certify.instance import Instance

FORMAT = certificate.FORMAT
ORDER = 14  # Taylor order of the approximant's steps
# The approximant's step: its last two orders' terms below this fraction of the state.
STEP_TOL = 2.0**-54
# A window starts this many tube radii (over the crossing speed) before the crossing, and
# ends where the pairs it crossed are WINDOW_CLEAR radii past their surfaces.
WINDOW_RADII = 2.0
WINDOW_CLEAR = 4.0
# The tube is given up as too wide beyond this fraction of the state's size (plus 1e-12).
MAX_RADIUS = 1e-4
MAX_STEPS = 200_000
# A step may grow the tube at most this many times (plus ROUNDING_FLOOR x the state's size).
GROWTH_CAP = 16.0
ROUNDING_FLOOR = 1e-13
# A crossing step without a window ends this many d u |w_j| |x_i| past the surface.
PAST_SURFACE = 64.0
SAMPLES = 24  # points per step at which the approximant's pre-activations are read
# a pair that crosses within CHATTER x t of each step's start, CHATTER_STEPS steps in a
# row, is sliding on its surface: the writer stops there
CHATTER = 1e-9
CHATTER_STEPS = 16
ARITHMETIC = ("float64 ball arithmetic (midpoint-radius, round-to-nearest with rigorous "
              "rounding bounds: numerics.certify.balls)")


# Every radius the file claims is the writer's bound times (1 + SLACK): the checker's own
# recomputation of the bound, on another machine whose BLAS sums in another order, may come
# out a few ulps higher (the bounds hold for every order; their last bits do not agree).
SLACK = 2.0**-20


def slack(radius: float) -> float:
    """A radius as the file claims it (`SLACK`)."""
    return float(up(float(radius) * (1.0 + SLACK), 1))


class CertifyError(ValueError):
    """A run that cannot be certified at all (not the flow, no saved times ...)."""


@dataclass
class Tube:
    """A certified enclosure of a flow run (returned by `certify`, read back by the checker).

    Attributes
    ----------
    instance
        The exact instance (`numerics.certify.instance.Instance`); ``shape``: its field's
        constants, ``theta0``: its initial state.
    times
        The run's saved times the tube reaches (exact floats).
    states
        The run's flat states (W row-major, then a) at those times.
    radii
        Certified bounds of |true flow - run state| (Euclidean) at those times.
    end
        The last time certified (the horizon, or where certification stopped).
    why
        Empty when the whole run is certified; else where and why it stopped.
    steps
        How many steps the certificate has (windows included); ``windows``: of them,
        steps across an activation change.
    record
        Arithmetic, order, step count, largest radius, time taken; what a verdict records.
    bounds, coeffs, r0, R, stuck, regime
        The steps themselves: boundaries, Taylor coefficients (step, order, parameter),
        radius at each boundary, box radius each step assumed, the pairs each step starts
        with certainly held at z <= 0 and, of them, exactly at 0, and the regime each
        step's polynomial follows (what the file holds).
    """

    instance: Instance
    shape: Shape
    theta0: np.ndarray
    times: np.ndarray
    states: np.ndarray
    radii: np.ndarray
    end: float
    why: str
    bounds: np.ndarray
    coeffs: np.ndarray
    r0: np.ndarray
    R: np.ndarray
    end_state: np.ndarray
    saved_index: np.ndarray
    stuck: np.ndarray
    pinned: np.ndarray
    regime: np.ndarray
    windows: int = 0
    record: dict = field(default_factory=dict)

    @property
    def steps(self) -> int:
        return len(self.R)

    @property
    def complete(self) -> bool:
        return not self.why

    def radius_at(self, t: float) -> float:
        """The certified radius at saved time ``t`` (inf where not certified)."""
        hit = np.flatnonzero(self.times == t)
        return float(self.radii[hit[0]]) if hit.size else float("inf")

    def step_state(self, k: int) -> np.ndarray:
        """Step k's Taylor coefficients, (order + 1, parameters)."""
        return self.coeffs[k]

    def write(self, path, claim: ClaimSpec | None = None,
              verdict: Decision | None = None) -> Path:
        """The certificate as an ``.npz`` file (`numerics.certify.certificate`), with the
        claim decided on it and its verdict when given: what
        ``python -m numerics.certify FILE`` re-checks."""
        return certificate.write(path, self, claim, verdict, self.record)


def exact_step(b: float, target: float) -> tuple[float, float]:
    """A step from ``b`` towards ``target`` (> b) whose length h is a float with
    b + h == end exactly (checked in rationals): (end, h). The target itself from 0 or
    when target <= 2b (Sterbenz: the difference is exact), else 2b (h = b)."""
    end = target if (b == 0.0 or target <= 2.0 * b) else 2.0 * b
    h = end - b
    if not (b < end <= target and Fraction(b) + Fraction(h) == Fraction(end)):
        raise CertifyError(f"no exact step from t = {b!r} to {target!r}")
    return end, h


def _flat(W: np.ndarray, a: np.ndarray) -> np.ndarray:
    return np.concatenate([W.reshape(*W.shape[:-2], -1), a], axis=-1)


def _taylor_step(coef: np.ndarray, scale: float) -> float:
    """Jorba and Zou's step from the last two orders: their terms below STEP_TOL x scale."""
    K = coef.shape[0] - 1
    hs = []
    for k in (K - 1, K):
        c = float(np.max(np.abs(coef[k])))
        if c > 0:
            hs.append((STEP_TOL * scale / c) ** (1.0 / k))
    return min(hs) if hs else np.inf


def _first_crossing(shape: Shape, Z: np.ndarray, h: float, stuck: np.ndarray):
    """The approximant's earliest sign change of a pre-activation in (0, h] (pairs held at
    z <= 0 aside): (s, speed, |x_i|, (j, i)) or None, s the first float found past the
    change. Z: (order + 1, p, n) float coefficients."""
    z0 = Z[0]
    sign0 = np.where(stuck, 0.0, np.sign(z0))
    grid = np.linspace(0.0, h, SAMPLES + 1)[1:]
    powers = grid[:, None] ** np.arange(Z.shape[0])[None, :]
    values = np.einsum("mk,kpn->mpn", powers, Z)
    changed = (np.sign(values) != sign0[None]) & (sign0[None] != 0)
    if not changed.any():
        return None
    m = int(np.argmax(changed.any(axis=(1, 2))))
    pairs = np.argwhere(changed[m])
    lo = np.full(len(pairs), 0.0 if m == 0 else grid[m - 1])
    hi = np.full(len(pairs), grid[m])
    coefs = Z[:, pairs[:, 0], pairs[:, 1]]  # (order + 1, pairs)
    s0 = sign0[pairs[:, 0], pairs[:, 1]]
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        val = np.polynomial.polynomial.polyval(mid, coefs, tensor=False)
        same = np.sign(val) == s0
        lo, hi = np.where(same, mid, lo), np.where(same, hi, mid)
    first = int(np.argmin(hi))
    s = float(hi[first])
    dcoef = (coefs[1:, first] * np.arange(1, Z.shape[0]))
    speed = abs(float(np.polynomial.polynomial.polyval(s, dcoef)))
    j, i = int(pairs[first, 0]), int(pairs[first, 1])
    return s, speed, float(np.linalg.norm(shape.X[i])), (j, i)


def _bound(shape, Wb, ab, h, r0, stuck, pinned, regime, floor=0.0):
    """The step's bounds with a box radius R that holds (from 1.5 r0, then 1.125 times the
    radius the last try reached, up to GROWTH_CAP r0 plus a rounding floor: a step whose
    tube would grow more is shortened instead); (R, bounds) or (None, the last failure)."""
    size = float(np.max(np.abs(Wb.mid[0]))) + float(np.max(np.abs(ab.mid[0])))
    cap = GROWTH_CAP * r0 + ROUNDING_FLOOR * max(size, 1e-300) + floor
    R = max(1.5 * r0, 1e-300)
    for _ in range(12):
        bnd = verify_step(shape, Wb, ab, h, r0, R, stuck, pinned, regime)
        if bnd.ok:
            return R, bnd
        if not np.isfinite(bnd.r_end) or 1.125 * bnd.r_end > cap:
            break
        R = 1.125 * bnd.r_end
    return None, bnd


def _plain(shape, coef, b, target, r0, stuck, pinned, regime):
    """A step without a crossing, to ``target`` or, where that fails, a shorter one:
    (end, h, R, bounds) or why none could be certified."""
    _, Wb, ab = step_polynomial(shape, coef)
    for _ in range(12):
        end, h = exact_step(b, target)
        R, bnd = _bound(shape, Wb, ab, h, r0, stuck, pinned, regime)
        if R is not None:
            return end, h, R, bnd
        target = b + 0.5 * (target - b)
    return bnd.why


def _window(shape, coef, Z, b, at, w, r0, limit, stuck, pinned, regime):
    """A step across the crossing at b + at, ending ``w`` past it, widened (doubling w)
    until every pair that changed sign over it is clear of its surface by WINDOW_CLEAR tube
    radii at its end, or certainly held at z <= 0 (`field.verify_step`'s ``stuck_end``),
    so that the next step can certify its new slope."""
    _, Wb, ab = step_polynomial(shape, coef)
    xn = np.linalg.norm(shape.X, axis=1)
    sign0 = np.sign(Z[0])
    for _ in range(60):
        target = min(b + at + w, limit)
        end, h = exact_step(b, target)
        R, bnd = _bound(shape, Wb, ab, h, r0, stuck, pinned, regime)
        if R is None:
            return bnd.why
        if end < target:  # a step short of the crossing (exact_step's cap): plain
            return end, h, R, bnd
        z_end = np.polynomial.polynomial.polyval(h, Z.reshape(Z.shape[0], -1)).reshape(Z.shape[1:])
        moved = (np.sign(z_end) != sign0) & (sign0 != 0)
        clear = np.abs(z_end) > WINDOW_CLEAR * bnd.r_end * xn[None, :]
        if end == limit or np.all((clear | bnd.stuck_end)[moved]):
            return end, h, R, bnd
        w *= 2.0
    return "a crossing whose window never cleared (a tangency or a sliding mode)"


def _kink_convex(shape: Shape, W0: np.ndarray, a0: np.ndarray, active: np.ndarray,
                 pair: tuple[int, int]) -> bool:
    """Whether the loss's kink at ``pair`` looks convex at the step's start (a_j r_i > 0
    in floats): the writer's guess of when a crossing may be passed without a window
    (`field.verify_step` decides it on the whole tube)."""
    j, i = pair
    D = np.where(active, 1.0, shape.slope)
    s = 1.0 / shape.p if shape.mean_field else 1.0
    r_i = s * float(a0 @ (D[:, i] * (W0 @ shape.X[i]))) - float(shape.y[i])
    return a0[j] * r_i > 0


def _convex_crossing(shape, coef, Wc, b, at, speed, pair, r0, stuck, pinned, regime):
    """A step that ends just past a crossing whose kink is convex (no window: the next
    step starts in the new regime): (end, h, R, bounds), or None where it cannot be
    certified so (the window is tried instead). It ends where the approximant's
    pre-activation is past its surface by PAST_SURFACE d u |w_j| |x_i|, beyond what
    recomputing it in floats could undo, so the next step's regime is the new side."""
    j, i = pair
    depth = PAST_SURFACE * shape.d * 2.0**-53 * float(np.linalg.norm(Wc[0, j])
                                                      * np.linalg.norm(shape.X[i]))
    past = max(depth / max(speed, 1e-300), 4.0 * np.spacing(b + at))
    end, h = exact_step(b, b + at + past)
    stray = 4.0 * (Wc.shape[0] + 2) * depth / float(np.linalg.norm(shape.X[i]))
    _, Wb, ab = step_polynomial(shape, coef)
    R, bnd = _bound(shape, Wb, ab, h, r0, stuck, pinned, regime, stray)
    return None if R is None else (end, h, R, bnd)


def certify(traj, order: int = ORDER, max_radius: float = MAX_RADIUS,
            max_seconds: float | None = None, max_saved: int | None = None) -> Tube:
    """The certified tube around ``traj`` (an exact-flow `Trajectory` with square loss and
    ReLU or leaky ReLU), from t = 0 to its last saved time or to where certification had to
    stop (`Tube.why` says where and why; everything before stays certified). ``max_seconds``
    stops it after that much time (the tube then ends at its last certified saved time).
    ``max_saved``: compare the tube with at most this many of the run's saved times (evenly
    spread, the first and the last kept): each one ends a step, so a run saved densely
    costs more steps than its flow needs."""
    if traj.method not in ("exact_flow", "ExactFlow") and not str(traj.method).startswith(
            "exact"):
        raise CertifyError(f"method {traj.method}: certificates cover the exact flow")
    started = time.perf_counter()
    problem = traj.problem
    instance = Instance.of_problem(problem)
    shape = instance.shape()
    theta0 = instance.theta0
    saved_t = np.asarray(traj.t, float)
    run_states = _flat(np.asarray(traj.W, float), np.asarray(traj.a, float))
    if max_saved is not None and len(saved_t) > max(int(max_saved), 2):
        keep = np.unique(np.round(np.linspace(0, len(saved_t) - 1, int(max_saved))).astype(int))
        saved_t, run_states = saved_t[keep], run_states[keep]
    if saved_t[0] != 0.0:
        raise CertifyError("the run's first saved time is not 0")
    if not (np.all(np.isfinite(saved_t)) and np.all(np.diff(saved_t) > 0)):
        raise CertifyError("the run's saved times are not finite and increasing")
    bounds, coeffs, r0s, Rs = [0.0], [], [slack(distance_up(theta0, theta0))], []
    saved_index, saved_states, saved_radii, saved_times = [0], [run_states[0]], [], []
    saved_radii.append(slack(up(r0s[0] + distance_up(run_states[0], theta0), 2)))
    saved_times.append(0.0)
    theta, r0, b = theta0.copy(), r0s[0], 0.0
    stuck, pinned = start_sets(shape, theta0)
    stucks, pins, regimes = [], [], []
    next_saved = 1
    why, windows = "", 0
    last_pair, recross = None, 0
    while next_saved < len(saved_t):
        if len(bounds) > MAX_STEPS:
            why = f"at t = {b:.6g}: more than {MAX_STEPS} steps"
            break
        if max_seconds is not None and time.perf_counter() - started > max_seconds:
            why = f"at t = {b:.6g}: the time limit of {max_seconds:g} s"
            break
        W0, a0 = shape.split(theta)
        active = ((W0 @ shape.X.T) > 0) & ~stuck
        Wc, ac = taylor_coefficients(shape, W0, a0, active, order)
        coef = _flat(Wc, ac)
        size = float(np.max(np.abs(theta)))
        h = _taylor_step(coef, max(size, 1e-300))
        target = min(b + h, float(saved_t[next_saved]))
        Z = np.einsum("kpd,nd->kpn", Wc, shape.X)
        crossing = _first_crossing(shape, Z, target - b, stuck)
        window, step = False, None
        if crossing is not None:
            at, speed, x_norm, pair = crossing
            # the same pair crossing again at once, step after step: it slides on its
            # surface (both sides push it there), which the approximant cannot follow
            recross = recross + 1 if (pair == last_pair and at <= CHATTER * max(b, 1.0)) \
                else 0
            last_pair = pair
            if recross >= CHATTER_STEPS:
                why = (f"at t = {b:.6g}: a sliding mode (the pair {pair} crosses its surface "
                       f"back and forth; certificates cover sliding no longer than a window)")
                break
            if _kink_convex(shape, W0, a0, active, pair):
                step = _convex_crossing(shape, coef, Wc, b, at, speed, pair, r0, stuck,
                                        pinned, active)
            if step is None:
                w = max(WINDOW_RADII * r0 * x_norm / max(speed, 1e-300),
                        64 * np.spacing(max(b + at, 1.0)))
                if at > 1.5 * w:
                    target = b + at - w
                else:
                    window = True
        if step is not None:
            pass
        elif window:
            step = _window(shape, coef, Z, b, at, w, r0, float(saved_t[next_saved]), stuck,
                           pinned, active)
        else:
            step = _plain(shape, coef, b, target, r0, stuck, pinned, active)
        if isinstance(step, str):
            why = f"at t = {b:.6g}: no step could be certified ({step})"
            break
        end, h, R, accepted = step
        theta_end = value_at(step_polynomial(shape, coef)[0], h)
        new_theta = projected_centre(shape, theta_end, accepted.r_end, accepted.pinned_end)
        r1 = slack(restart_radius(shape, theta_end, accepted.r_end, accepted.pinned_end,
                                  new_theta))
        if r1 > max_radius * (1.0 + float(np.max(np.abs(new_theta)))) + 1e-12:
            why = (f"at t = {end:.6g}: the tube's radius {r1:.3g} passed its limit "
                   f"(max_radius {max_radius:g} of the state's size)")
            break
        bounds.append(end)
        coeffs.append(coef)
        stucks.append(stuck)
        pins.append(pinned)
        regimes.append(active)
        stuck, pinned = accepted.stuck_end, accepted.pinned_end
        Rs.append(R)
        r0s.append(r1)
        windows += window
        theta, r0, b = new_theta, r1, end
        if b == saved_t[next_saved]:
            saved_index.append(len(bounds) - 1)
            saved_states.append(run_states[next_saved])
            saved_radii.append(slack(up(r1 + distance_up(run_states[next_saved], theta), 2)))
            saved_times.append(b)
            next_saved += 1
    radii = np.array(saved_radii)
    record = {"arithmetic": ARITHMETIC, "order": order, "steps": len(Rs), "windows": windows,
              "max_radius": float(radii.max()), "end": float(b),
              "seconds": time.perf_counter() - started, "run_method": traj.method}
    return Tube(instance=instance, shape=shape, theta0=theta0, times=np.array(saved_times),
                states=np.array(saved_states), radii=radii, end=float(b), why=why,
                bounds=np.array(bounds), coeffs=np.array(coeffs).reshape(len(Rs), order + 1,
                                                                         theta0.size),
                r0=np.array(r0s), R=np.array(Rs), end_state=theta,
                stuck=np.array(stucks, dtype=bool).reshape(len(Rs), shape.p, shape.n),
                pinned=np.array(pins, dtype=bool).reshape(len(Rs), shape.p, shape.n),
                regime=np.array(regimes, dtype=bool).reshape(len(Rs), shape.p, shape.n),
                saved_index=np.array(saved_index, dtype=int), windows=windows,
                record=record)


__all__ = ["CertifyError", "NotCertifiable", "Tube", "certify", "exact_step"]
