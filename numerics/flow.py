"""Exact gradient flow: adaptive Runge-Kutta between activation changes, through sliding modes.

Inside a region where the activation pattern A = 1{<w_j, x_i> > 0} is fixed,
the flow is a polynomial ODE and an 8th-order Runge-Kutta method (scipy's
DOP853) integrates it to the requested tolerance. The pattern is held fixed
inside each step (so the right-hand side the integrator sees is smooth); after
every accepted step the pre-activations are checked at the step's end and at
interior points of its dense output. At a sign change the earliest crossing is
located by bisection on the dense output and the integrator restarts there.

At each crossing the pairs of the neuron that sit on their surface z_ij = 0 are
given sides by the Filippov (Clarke) velocity (numerics.sliding): a pair pushed to
the surface from both sides *slides*: it is held on z_ij = 0 with the activation
alpha_ij in [0, 1] that keeps it there (the minimal-norm element of -kappa dL), and
leaves when alpha_ij reaches 0 or 1 (located like a crossing, on the dense output).
A pair repelled from both sides has no unique continuation: the convention
relu'(0) = 0 sends it to the inactive side, and `Trajectory.choices` records where
and when. With relu'(0) = 0 a neuron whose pre-activations are all <= 0 has zero
velocity, so it stays dead. ``sliding=False`` restores the earlier behaviour
(every crossing switches the pair; a sliding mode ends the run CHATTERING).

Error estimate: the same integration is repeated at a looser tolerance
(``rtol * error_check``) and the two runs are compared at every saved time.

Coordinates (``coordinates=``): ``"cartesian"`` integrates (W, a) directly;
``"span"`` integrates W = W0 + C X (cost per step independent of d);
``"lognorm"`` integrates each neuron's log-norm, direction and a_j/||w_j||
(numerics.coordinates.LogNorm) for initialisation scales far below 1e-20, and
stores ln||w_j(t)|| in ``Trajectory.log_norms``; it detects sliding modes but does
not integrate them (the run ends CHATTERING, naming the coordinates to use).

Length (~500 lines): one integrator; the event location and the sliding constraints
it calls live in numerics.sliding and numerics.coordinates.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.integrate import DOP853
from scipy.optimize import brentq

from numerics import network
from numerics.coordinates import COORDINATES, geometry, resolve
from numerics.problem import Problem
from numerics.provenance import environment
from numerics.sliding import (
    ACTIVE,
    INACTIVE,
    SLIDING,
    Choice,
    SlidingSystem,
    Unresolved,
    classify_neuron,
)
from numerics.trajectory import ActivationEvent, Status, Trajectory

# Relative positions inside an accepted step where signs are also inspected, so
# that a pair crossing zero and back within one step is still seen.
_SIGN_CHECK_NODES = np.array([0.25, 0.5, 0.75, 1.0])
# Bisection stops when the bracket is this many ulps of the current time.
_CROSSING_ULPS = 8
# Round-off floor of the surface band (see _Segments.band), in ulps of ||w_j|| ||x_i||.
_BAND_ULPS = 64
# A one-sided rate of a pre-activation below this fraction of the two rates' size is zero.
_RATE_RTOL = 1e-9


class MethodError(ValueError):
    """Bad options for a simulation method; the message names the option."""


@dataclass(frozen=True)
class ExactFlow:
    """Gradient flow integrated exactly across activation changes.

    DOP853 inside each region of fixed activation pattern, crossings located on the dense
    output, sliding modes integrated with the Filippov velocity (the module docstring).

    Attributes
    ----------
    rtol
        Relative tolerance of the Runge-Kutta error control, in (0, 1e-2) (default 1e-10).
    atol_fraction
        Absolute floor per neuron, as a fraction of rtol times the neuron's initial norm
        (keeps tiny initialisations relative; default 1e-6).
    error_check
        The companion run for the error estimate uses ``rtol * error_check`` (default 10,
        must be > 1); ``None`` skips it (error estimate inf).
    max_steps
        Cap on accepted steps per run (default 2,000,000); the run ends MAX_STEPS there.
    chatter_limit
        A single pair (i, j) changing side (active, inactive, sliding) more often than this
        marks the run CHATTERING: switching the sliding-mode solve did not resolve
        (default 200).
    coordinates
        ``"auto"`` (default: ``"span"`` when n < d, else ``"cartesian"``),
        ``"cartesian"``, ``"span"`` (W = W0 + C X, cost per step independent of d) or
        ``"lognorm"`` (per-neuron ln ||w_j||, direction, a_j / ||w_j||: for tiny
        initialisation scales, ReLU networks with both layers trained only).
    sliding
        Integrate through sliding modes (default True); False switches a pair at every
        crossing, as earlier versions did.
    """

    rtol: float = 1e-10
    atol_fraction: float = 1e-6
    error_check: float | None = 10.0
    max_steps: int = 2_000_000
    chatter_limit: int = 200
    coordinates: str = "auto"
    sliding: bool = True

    name = "exact_flow"

    def __post_init__(self) -> None:
        if not (0 < self.rtol < 1e-2):
            raise MethodError(f"rtol: must be in (0, 1e-2), got {self.rtol!r}.")
        if self.error_check is not None and not self.error_check > 1:
            raise MethodError(f"error_check: must be > 1 or None, got {self.error_check!r}.")
        if self.coordinates not in (*COORDINATES, "auto"):
            raise MethodError(
                f"coordinates: {self.coordinates!r} is not one of "
                f"{('auto', *COORDINATES)}."
            )
        if self.rtol * (self.error_check or 1) >= 1e-2:
            raise MethodError(
                "error_check: rtol * error_check must stay below 1e-2; lower one of them."
            )

    def options(self) -> dict:
        """The options as a dict (stored in ``Trajectory.options``)."""
        return {
            "rtol": self.rtol,
            "atol_fraction": self.atol_fraction,
            "error_check": self.error_check,
            "max_steps": self.max_steps,
            "chatter_limit": self.chatter_limit,
            "coordinates": self.coordinates,
            "sliding": self.sliding,
        }

    def run(self, problem: Problem, t_eval: np.ndarray) -> Trajectory:
        """Integrate ``problem`` from t = 0, saving at ``t_eval`` (validated times: call it
        through `numerics.simulate`), with the companion run unless ``error_check`` is None.
        """
        if problem.model_spec and resolve(self.coordinates, problem) == "lognorm":
            raise MethodError(
                "coordinates: 'lognorm' integrates the ReLU network with both layers trained; "
                f"this Problem is {problem.model_spec!r}: use 'span' or 'cartesian'.")
        start = time.perf_counter()
        main = _integrate(problem, t_eval, self, self.rtol)
        companion = None
        error = float("inf")
        if self.error_check is not None:
            loose = _integrate(problem, t_eval, self, self.rtol * self.error_check)
            companion = _as_trajectory(problem, t_eval, self, loose, None, float("inf"), 0.0)
            k = len(main["y"])
            if k and k == len(loose["y"]):
                error = main["coords"].difference(main["y"], loose["y"])
        return _as_trajectory(
            problem, t_eval, self, main, companion, error, time.perf_counter() - start
        )


def _as_trajectory(problem, t_eval, method, run, companion, error, wall) -> Trajectory:
    out = run["coords"].outputs(run["y"])
    return Trajectory(
        problem=problem,
        t=np.asarray(t_eval, dtype=float)[: len(run["y"])],
        W=out["W"],
        a=out["a"],
        log_norms=out.get("log_norms"),
        method=method.name,
        options=method.options(),
        status=run["status"],
        message=run["message"],
        error_estimate=error,
        companion=companion,
        events=tuple(run["events"]),
        choices=tuple(run["choices"]),
        filippov_mask=run["masks"],
        n_steps=run["n_steps"],
        wall_time=wall,
        provenance=environment(),
    )


class _Segments:
    """The state of one integration: the regime (mask, sliding sets) and what was saved.

    Between two events the regime is fixed: ``mask`` (p x n, 0/1) holds the regular
    active pairs, ``sliding`` (p x n, bool) the pairs held on z_ij = 0, and ``system``
    their Filippov coefficients as a linear function of g (numerics.sliding).
    """

    def __init__(self, problem: Problem, t_eval: np.ndarray, opts: ExactFlow, rtol: float):
        self.problem, self.opts, self.t_eval = problem, opts, t_eval
        self.coords = COORDINATES[resolve(opts.coordinates, problem)](
            problem, rtol, opts.atol_fraction)
        p, n = problem.p, problem.n
        geo = geometry(problem)  # shared with the companion run and the coordinates
        self.G, self.x_norms = geo.G, geo.x_norms
        self.mask = network.active_mask(geo.Z0)
        self.sliding = np.zeros((p, n), dtype=bool)
        act = problem.activation
        # a kink to slide on (piecewise-linear activations) and an integration that holds it
        self.slides = opts.sliding and self.coords.supports_sliding and act.piecewise_linear
        self.leak = act.leak_ratio if act.piecewise_linear else 0.0
        self.system = SlidingSystem(self.G, self.mask, self.sliding, leak=self.leak)
        self.saved = np.empty((len(t_eval), self.coords.y0.size))
        self.saved_mask = np.empty((len(t_eval), p, n))
        self.next_save = 0
        if t_eval[0] == 0.0:
            self.saved[0] = self.coords.y0
            self.saved_mask[0] = self.mask
            self.next_save = 1
        self.events: list[ActivationEvent] = []
        self.choices: list[Choice] = []
        self.flips = np.zeros((p, n), dtype=int)
        self.max_sliding = 0
        self.unsupported = None  # (t, j, i) of a sliding mode the coordinates cannot hold
        self.band_rtol = max(rtol, _BAND_ULPS * np.finfo(float).eps)
        self.idle_events = 0  # consecutive events that changed no pair's side

    # -- the field and its diagnostics ---------------------------------------------------
    def field(self, _t, y):
        return self.coords.field(y, self.mask, self.system)

    def loss_derivative(self, Y):
        """g_i = dL/dh(x_i) at states Y (..., dim), with the segment's mask (as the field)."""
        Z = self.coords.preactivations(Y)
        a = self.coords.output_weights(Y)
        h = self.problem.output_factor * np.einsum(
            "...j,...ji->...i", a, self.problem.activation.value(Z, self.mask))
        return network.loss_derivative(self.problem, h)

    def filippov_mask(self, Y):
        """mask with alpha_ij on the sliding pairs, at states Y (..., dim)."""
        M = np.broadcast_to(self.mask, Y.shape[:-1] + self.mask.shape).copy()
        if not self.system.empty:
            M[..., self.system.rows, self.system.cols] = self.system.alpha(
                self.loss_derivative(Y))
        return M

    def band(self, Y):
        """|z_ij| below which a pre-activation counts as on its surface: the integration's
        own accuracy (rtol, or round-off if larger) relative to ||w_j|| ||x_i||. A pair
        within it is not yet a crossing; once past it, the crossing itself is located at
        z = 0 by bisection."""
        w = self.coords.direction_norms(Y)  # (..., p); span coordinates do not form W
        return self.band_rtol * w[..., :, None] * self.x_norms

    def flags(self, Y, zero_band: bool = False):
        """(..., p, n) bool: regular pairs on the wrong side of their surface (beyond the
        round-off band unless ``zero_band``) and sliding pairs whose alpha left [0, 1]."""
        Z = self.coords.preactivations(Y)
        band = 0.0 if zero_band else self.band(Y)
        regular = ~self.sliding
        on = self.mask > 0
        out = regular & ((on & (Z < -band)) | (~on & (Z > band)))
        if zero_band:
            out |= regular & on & (Z == 0)
        if not self.system.empty:
            al = self.system.alpha(self.loss_derivative(Y))
            out[..., self.system.rows, self.system.cols] = (al < 0) | (al > 1) | ~np.isfinite(al)
        return out

    def save(self, dense, t_upto):
        """Store states (and Filippov masks) at every saved time up to ``t_upto``."""
        stop = int(np.searchsorted(self.t_eval, t_upto, side="right"))
        if stop > self.next_save:
            Y = dense(self.t_eval[self.next_save:stop]).T
            self.saved[self.next_save:stop] = Y
            self.saved_mask[self.next_save:stop] = self.filippov_mask(Y)
            self.next_save = stop

    # -- events ---------------------------------------------------------------------------
    def event_values(self, Y, pairs):
        """Per pair of ``pairs`` (rows j, cols i), a continuous function of the state that is
        > 0 exactly when the pair's event has happened: a regular pair is on its other side
        (z <= 0 for an active pair, z > 0 for an inactive one), a sliding pair's alpha has
        left [0, 1]."""
        j, i = pairs
        Z = self.coords.preactivations(Y)[j, i]
        out = np.where(self.mask[j, i] > 0, -Z, Z)
        held = self.sliding[j, i]
        if held.any():
            al = self.system.alpha(self.loss_derivative(Y))
            picks = [self.system.position[(int(r), int(c))]
                     for r, c in zip(j[held], i[held], strict=True)]
            out = out.astype(float)
            out[held] = np.maximum(al[picks] - 1.0, -al[picks])
        return np.where(np.isnan(out), np.inf, out)

    def first_event(self, dense, candidates, lo, hi) -> float:
        """Earliest time in (lo, hi] at which a candidate pair's event has happened.

        Per candidate, Brent's method on its event value (see `event_values`) brackets
        the root to a few ulps; returns the far end of the earliest bracket, so the state
        there is already past the event.
        """
        tol = _CROSSING_ULPS * np.spacing(max(abs(hi), 1.0))
        pairs = np.nonzero(candidates)
        at_lo = self.event_values(dense(lo), pairs)
        at_hi = self.event_values(dense(hi), pairs)
        if np.any(at_lo > 0):  # already past it at lo (within the surface band)
            return float(min(lo + tol, hi))
        best = hi
        for k in np.flatnonzero(at_hi > 0):
            pair = (pairs[0][k:k + 1], pairs[1][k:k + 1])

            def value(t, pair=pair):
                return float(self.event_values(dense(t), pair)[0])

            if value(best) <= 0:
                continue  # its event comes after the earliest found so far
            t = brentq(value, lo, best, xtol=tol, rtol=4 * np.finfo(float).eps)
            step = tol
            while value(t) <= 0 and t < best:  # to the event's far side, in doubling steps
                t = min(t + step, best)  # (a grazing pair's value is flat at round-off)
                step *= 2
            best = min(best, t)
        return float(best)

    def start(self):
        """The initial state, with any pair that starts on its surface given its side."""
        y = self.coords.y0.copy()
        near = np.abs(self.coords.preactivations(y)) <= self.band(y)
        if near.any() and self.slides:
            y = self.resolve(y, 0.0, near)
            if self.next_save == 1:
                self.saved[0] = y
                self.saved_mask[0] = self.filippov_mask(y)
        return y

    def resolve(self, y, t, flagged):
        """Give the flagged pairs, and every pair of their neurons at a surface, their
        sides at time t; returns the state with each such pair on its side."""
        if not self.opts.sliding or not self.problem.activation.piecewise_linear:
            # no sliding asked for, or a C^1 activation (its field is continuous: a pair
            # crosses its surface, it cannot be held on it)
            new = network.active_mask(self.coords.preactivations(y))
            self._record(t, new, np.zeros_like(self.sliding))
            return y
        if not self.coords.supports_sliding:
            new = network.active_mask(self.coords.preactivations(y))
            for j, i in zip(*np.nonzero(flagged), strict=True):
                up, down = self._one_sided_rates(y, j, i)
                floor = _RATE_RTOL * (abs(up) + abs(down))  # round-off of a zero rate
                if up > floor and down < -floor:  # attracted from both sides: sliding
                    self.unsupported = (t, int(j), int(i))
            self._record(t, new, self.sliding)
            return y
        Z = self.coords.preactivations(y)
        near = np.abs(Z) <= self.band(y)
        g = self.loss_derivative(y)
        # the first layer's velocity is c_j = -kappa s a_j times its sum; frozen, it is 0
        a = (self.coords.output_weights(y) if self.problem.trains_first_layer
             else np.zeros(self.problem.p))
        alpha = np.full(self.sliding.shape, np.nan)
        if not self.system.empty:
            alpha[self.system.rows, self.system.cols] = self.system.alpha(g)
        new_mask, new_sliding = self.mask.copy(), self.sliding.copy()
        for j in np.unique(np.nonzero(flagged)[0]):
            K = np.flatnonzero(self.sliding[j] | flagged[j] | near[j])
            forced = {int(i): (ACTIVE if alpha[j, i] > 1 else INACTIVE)
                      for i in np.flatnonzero(self.sliding[j] & flagged[j])}
            classes, _, chosen = classify_neuron(self.G, g, float(a[j]), self.mask[j] > 0,
                                                 K, forced, leak=self.leak)
            self.choices.extend(Choice(t, int(j), i) for i in chosen)
            for i, c in classes.items():
                new_mask[j, i] = 1.0 if c == ACTIVE else 0.0
                new_sliding[j, i] = c == SLIDING
            y = self._consistent(y, j, K, Z[j], classes)
        self._record(t, new_mask, new_sliding)
        return y

    def _one_sided_rates(self, y, j, i):
        """dz_ij/dt with the pair inactive and with it active (the two sides' fields)."""
        z = self.coords.preactivations(y)[j, i]
        rates = []
        for side in (0.0, 1.0):
            mask = self.mask.copy()
            mask[j, i] = side
            step = self.coords.field(y, mask)  # preactivations are affine in the state
            rates.append(self.coords.preactivations(y + step)[j, i] - z)
        return rates

    def _consistent(self, y, j, K, z, classes):
        """Put each pair of K on its class's side: z = 0 if sliding, no wrong sign left.

        The moves are at the round-off / bisection level: they remove what would
        otherwise be seen as a new crossing at once."""
        idx = [i for i in K if classes[int(i)] == SLIDING
               or (classes[int(i)] == ACTIVE and z[i] < 0)
               or (classes[int(i)] == INACTIVE and z[i] > 0)]
        if not idx:
            return y
        idx = np.asarray(idx)
        y = self.coords.shift(y, j, idx, -z[idx])
        # an active pair must end strictly positive and an inactive one non-positive: the
        # shift to 0 is exact only up to the rounding of the weights, and a pair left on
        # the wrong side by an ulp is an event at once, which resolves to the same side
        # (seen near convergence, where the pair's rate is ~1e-16 per unit time, and for an
        # inactive pair at z = +2e-20 that a shift of -z could not move: 200 such events in
        # a row ended a run CHATTERING). Nudge it over by a few ulps of |w_j| |x_i|,
        # doubling until it is on its side.
        for side in (ACTIVE, INACTIVE):
            pairs = np.asarray([i for i in idx if classes[int(i)] == side], dtype=int)
            if not pairs.size:
                continue
            sign = 1.0 if side == ACTIVE else -1.0
            scale = self.coords.direction_norms(y)[j] * self.x_norms[pairs]
            nudge = 4.0 * np.spacing(np.maximum(scale, np.finfo(float).tiny))
            for _ in range(8):
                z_now = self.coords.preactivations(y)[j, pairs]
                wrong = z_now <= 0 if side == ACTIVE else z_now > 0
                if not wrong.any():
                    break
                y = self.coords.shift(y, j, pairs[wrong], sign * nudge[wrong] - z_now[wrong])
                nudge = 2.0 * nudge
        return y

    def _record(self, t, new_mask, new_sliding):
        old = np.where(self.sliding, 0, np.where(self.mask > 0, 1, -1))
        new = np.where(new_sliding, 0, np.where(new_mask > 0, 1, -1))
        self.idle_events = 0 if np.any(new != old) else self.idle_events + 1
        for j, i in zip(*np.nonzero(new != old), strict=True):
            self.events.append(ActivationEvent(float(t), int(j), int(i), int(new[j, i])))
            self.flips[j, i] += 1
        self.mask, self.sliding = new_mask, new_sliding
        self.system = SlidingSystem(self.G, self.mask, self.sliding, self.system,
                                    leak=self.leak)
        self.max_sliding = max(self.max_sliding, int(self.sliding.sum()))


def _integrate(problem: Problem, t_eval: np.ndarray, opts: ExactFlow, rtol: float) -> dict:
    t_eval = np.asarray(t_eval, dtype=float)
    run = _Segments(problem, t_eval, opts, rtol)
    coords = run.coords
    t0, t_end = 0.0, float(t_eval[-1])
    try:
        state = run.start()
        status, message = _regime_status(run, 0.0)
    except Unresolved as exc:
        state, status, message = coords.y0.copy(), Status.CHATTERING, f"at t=0: {exc}"
    n_steps = 0
    while t0 < t_end and status is Status.SUCCESS:
        solver = DOP853(run.field, t0, state, t_end, rtol=coords.rtol, atol=coords.atol)
        restarted = False
        while solver.status == "running":
            msg = solver.step()
            n_steps += 1
            if solver.status == "failed":
                status, message = Status.NONFINITE, f"DOP853 failed at t={solver.t:.6g}: {msg}"
                break
            if not np.all(np.isfinite(solver.y)):
                status, message = Status.NONFINITE, f"non-finite state at t={solver.t:.6g}"
                break
            if n_steps >= opts.max_steps:
                status, message = Status.MAX_STEPS, f"{n_steps} steps reached at t={solver.t:.6g}"
                break
            t_old, t_new = solver.t_old, solver.t
            dense = solver.dense_output()
            nodes = t_old + _SIGN_CHECK_NODES * (t_new - t_old)
            flagged = run.flags(dense(nodes).T)  # (nodes, p, n)
            if not flagged.any():
                run.save(dense, t_new)
                run.idle_events = 0
                continue
            k = int(np.argmax(flagged.reshape(len(nodes), -1).any(axis=1)))
            lo = t_old if k == 0 else nodes[k - 1]
            t_event = run.first_event(dense, flagged[k], lo, nodes[k])
            run.save(dense, t_event)
            try:
                y_event = coords.restart(dense(t_event))
                state = run.resolve(y_event, t_event,
                                    run.flags(y_event, zero_band=True) & flagged[k])
            except Unresolved as exc:
                status, message = Status.CHATTERING, f"at t={t_event:.6g}: {exc}"
                break
            t0 = t_event
            status, message = _regime_status(run, t0)
            restarted = True
            break
        if not restarted:
            break
    if status is Status.SUCCESS and run.next_save < len(t_eval):
        status, message = Status.NONFINITE, "integration stopped before the last saved time"
    return {
        "coords": coords,
        "y": run.saved[:run.next_save],
        "masks": run.saved_mask[:run.next_save],
        "status": status,
        "message": message,
        "events": run.events,
        "choices": run.choices,
        "max_sliding": run.max_sliding,
        "n_steps": n_steps,
    }


def _regime_status(run: _Segments, t: float) -> tuple[Status, str]:
    """CHATTERING when a pair has switched more than ``chatter_limit`` times, or when a
    sliding mode is met in coordinates that cannot hold it (log-norm)."""
    if run.unsupported is not None:
        t, j, i = run.unsupported
        return Status.CHATTERING, (
            f"sliding mode at t={t:.6g} (neuron {j}, sample {i}): the {run.coords.name} "
            "coordinates do not integrate sliding modes; use coordinates='span' or "
            "'cartesian'")
    if run.idle_events > run.opts.chatter_limit:
        return Status.CHATTERING, (
            f"{run.idle_events} events in a row by t={t:.6g} changed no pair's side: a "
            "pre-activation stays within the integration's accuracy of its surface while "
            "the flow's side for it cannot be told apart from round-off")
    if run.flips.max() > run.opts.chatter_limit:
        j, i = np.unravel_index(np.argmax(run.flips), run.flips.shape)
        return Status.CHATTERING, (f"pair (neuron {j}, sample {i}) switched "
                                   f"{run.flips[j, i]} times by t={t:.6g}")
    return Status.SUCCESS, ""
