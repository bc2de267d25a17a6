"""The regime of an exact-flow integration: which pairs are active, which slide, and
what happens at a switching surface.

`Regime` is what every engine of `numerics.flow` shares: the activation mask and the
sliding sets between events, the surface band (a pre-activation within the integration's
accuracy of its surface is not yet a crossing), the resolution of a located crossing by
the Filippov velocity (`numerics.sliding`: active, inactive or sliding, and the choices
where the continuation is not unique), the events and the saved states. The engines only
integrate inside a regime and locate the next event.
"""

from __future__ import annotations

import numpy as np

from numerics import network
from numerics.coordinates import COORDINATES, geometry, resolve
from numerics.problem import Problem
from numerics.sliding import (
    ACTIVE,
    INACTIVE,
    SLIDING,
    Choice,
    SlidingSystem,
    classify_neuron,
)
from numerics.trajectory import ActivationEvent, Status

# Round-off floor of the surface band (see Regime.band), in ulps of ||w_j|| ||x_i||.
_BAND_ULPS = 64
# A one-sided rate of a pre-activation below this fraction of the two rates' size is zero.
_RATE_RTOL = 1e-9


class Regime:
    """The state of one integration: the regime (mask, sliding sets) and what was saved.

    Between two events the regime is fixed: ``mask`` (p x n, 0/1) holds the regular
    active pairs, ``sliding`` (p x n, bool) the pairs held on z_ij = 0, and ``system``
    their Filippov coefficients as a linear function of g (numerics.sliding). An engine
    (`numerics.flow.rk`, `numerics.flow.taylor`) integrates inside a regime, hands its
    states to `save` and each located event to `resolve`, which gives the pairs at a
    surface their sides and records the events and choices.
    """

    def __init__(self, problem: Problem, t_eval: np.ndarray, opts, rtol: float):
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
        self._last = (None, None)  # (state, its pre-activations): one state asked thrice
        self.changed_rows = np.arange(p)

    def remember(self, y, Z) -> None:
        """Take ``Z`` as the pre-activations of the state ``y`` (an engine that has them
        from its own series, to round-off, saves forming them again)."""
        self._last = (y, Z)

    def preactivations(self, Y):
        """Z at states Y (the coordinates'), remembered for the last single state asked
        (an event reads it for its flags, its band and its loss derivative)."""
        if Y.ndim == 1 and Y is self._last[0]:
            return self._last[1]
        Z = self.coords.preactivations(Y)
        if Y.ndim == 1:
            self._last = (Y, Z)
        return Z

    # -- the field and its diagnostics ---------------------------------------------------
    def field(self, _t, y):
        return self.coords.field(y, self.mask, self.system)

    def loss_derivative(self, Y):
        """g_i = dL/dh(x_i) at states Y (..., dim), with the segment's mask (as the field)."""
        Z = self.preactivations(Y)
        a = self.coords.output_weights(Y)
        h = network.head(self.problem, a, self.problem.activation.value(Z, self.mask))
        return network.loss_derivative(self.problem, h)

    def signal(self, Y):
        """What the sliding sets solve for at states Y: g (..., n) for a scalar output,
        the pair signal P_ji = <a_j, g_i> (..., p, n) for a vector one (each neuron its own
        g, `numerics.network.pair_signal`)."""
        g = self.loss_derivative(Y)
        if not self.problem.vector_output:
            return g
        return network.pair_signal(self.problem, self.coords.output_weights(Y), g)

    def sliding_alpha(self, Y):
        """alpha of the sliding pairs at states Y, (..., m)."""
        if self.problem.vector_output:
            return self.system.alpha_of(self.signal(Y))
        return self.system.alpha(self.loss_derivative(Y))

    def filippov_mask(self, Y):
        """mask with alpha_ij on the sliding pairs, at states Y (..., dim)."""
        M = np.broadcast_to(self.mask, Y.shape[:-1] + self.mask.shape).copy()
        if not self.system.empty:
            M[..., self.system.rows, self.system.cols] = self.sliding_alpha(Y)
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
        Z = self.preactivations(Y)
        band = 0.0 if zero_band else self.band(Y)
        regular = ~self.sliding
        on = self.mask > 0
        out = regular & ((on & (Z < -band)) | (~on & (Z > band)))
        if zero_band:
            out |= regular & on & (Z == 0)
        if not self.system.empty:
            al = self.sliding_alpha(Y)
            out[..., self.system.rows, self.system.cols] = (al < 0) | (al > 1) | ~np.isfinite(al)
        return out

    def flags_among(self, y, pairs) -> np.ndarray:
        """`flags` at one state with the zero band, on the regular pairs ``pairs`` (rows,
        columns) and every sliding pair only; (p, n) bool. An engine that knows which pairs
        can have crossed asks this instead of testing all p n."""
        out = np.zeros(self.mask.shape, dtype=bool)
        j, i = pairs
        if len(j):
            z = self.preactivations(y)[j, i]
            on = self.mask[j, i] > 0
            out[j, i] = ~self.sliding[j, i] & np.where(on, z <= 0, z > 0)
        if not self.system.empty:
            al = self.sliding_alpha(y)
            out[self.system.rows, self.system.cols] = (al < 0) | (al > 1) | ~np.isfinite(al)
        return out

    def save(self, states, t_upto):
        """Store states (and Filippov masks) at every saved time up to ``t_upto``;
        ``states(times)`` gives the states at those times, one row each."""
        stop = int(np.searchsorted(self.t_eval, t_upto, side="right"))
        if stop > self.next_save:
            Y = states(self.t_eval[self.next_save:stop])
            self.saved[self.next_save:stop] = Y
            self.saved_mask[self.next_save:stop] = self.filippov_mask(Y)
            self.next_save = stop

    def outcome(self, status: Status, message: str, n_steps: int) -> dict:
        """What the run produced, for `numerics.flow` to turn into a Trajectory; a run that
        stopped before the last saved time without a reason is NONFINITE."""
        if status is Status.SUCCESS and self.next_save < len(self.t_eval):
            status, message = Status.NONFINITE, "integration stopped before the last saved time"
        return {
            "coords": self.coords,
            "y": self.saved[:self.next_save],
            "masks": self.saved_mask[:self.next_save],
            "status": status,
            "message": message,
            "events": self.events,
            "choices": self.choices,
            "max_sliding": self.max_sliding,
            "n_steps": n_steps,
        }

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
            al = self.sliding_alpha(Y)
            picks = [self.system.position[(int(r), int(c))]
                     for r, c in zip(j[held], i[held], strict=True)]
            out = out.astype(float)
            out[held] = np.maximum(al[picks] - 1.0, -al[picks])
        return np.where(np.isnan(out), np.inf, out)

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

    def resolve(self, y, t, flagged, exits=None):
        """Give the flagged pairs, and every pair of their neurons at a surface, their
        sides at time t; returns the state with each such pair on its side. ``exits``
        maps a flagged sliding pair (j, i) to the side it leaves to (ACTIVE: its alpha
        reached 1, INACTIVE: 0) when the engine knows it better than the state's alpha,
        which is a ratio of two vanishing numbers when g_i is near 0."""
        exits = exits or {}
        if not self.opts.sliding or not self.problem.activation.piecewise_linear:
            # no sliding asked for, or a C^1 activation (its field is continuous: a pair
            # crosses its surface, it cannot be held on it)
            new = network.active_mask(self.preactivations(y))
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
        Z = self.preactivations(y)
        g = self.signal(y)
        vector = self.problem.vector_output
        # the first layer's velocity is c_j = -kappa s a_j times its sum (a vector output:
        # -kappa s times neuron j's own signal, its a_j inside P_j); frozen, it is 0
        if vector:
            a = np.full(self.problem.p, 1.0 if self.problem.trains_first_layer else 0.0)
        else:
            a = (self.coords.output_weights(y) if self.problem.trains_first_layer
                 else np.zeros(self.problem.p))
        alpha = {} if self.system.empty else dict(zip(self.system.position,
                                                      self.sliding_alpha(y).tolist(),
                                                      strict=True))
        new_mask, new_sliding = self.mask.copy(), self.sliding.copy()
        rows = np.flatnonzero(flagged.any(axis=1))
        for j in rows:
            w = self.coords.direction_norm(y, j)
            near = np.abs(Z[j]) <= self.band_rtol * w * self.x_norms  # as `band`
            K = np.flatnonzero(self.sliding[j] | flagged[j] | near)
            forced = {int(i): exits.get((int(j), int(i)),
                                        ACTIVE if alpha[(int(j), int(i))] > 1 else INACTIVE)
                      for i in np.flatnonzero(self.sliding[j] & flagged[j])}
            classes, _, chosen = classify_neuron(self.G, g[j] if vector else g, float(a[j]),
                                                 self.mask[j] > 0, K, forced, leak=self.leak)
            self.choices.extend(Choice(t, int(j), i) for i in chosen)
            for i, c in classes.items():
                new_mask[j, i] = 1.0 if c == ACTIVE else 0.0
                new_sliding[j, i] = c == SLIDING
            y = self._consistent(y, j, K, Z[j], classes)
        self._record(t, new_mask, new_sliding, rows)
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

    def _record(self, t, new_mask, new_sliding, rows=None):
        """Adopt the new regime; record an event for every pair whose side changed (only
        the neurons ``rows`` may have changed, all when None)."""
        rows = np.arange(self.mask.shape[0]) if rows is None else np.asarray(rows)
        self.changed_rows = rows  # the neurons whose regime may have changed (engines read it)

        def sides(mask, sliding):  # +1 active, -1 inactive, 0 sliding
            return np.where(sliding[rows], 0, np.where(mask[rows] > 0, 1, -1))

        old, new = sides(self.mask, self.sliding), sides(new_mask, new_sliding)
        r_idx, i_idx = np.nonzero(new != old)
        self.idle_events = 0 if r_idx.size else self.idle_events + 1
        for r, i in zip(r_idx.tolist(), i_idx.tolist(), strict=True):
            j = int(rows[r])
            self.events.append(ActivationEvent(float(t), j, i, int(new[r, i])))
            self.flips[j, i] += 1
        slid = self.sliding[rows].any() or new_sliding[rows].any()
        self.mask, self.sliding = new_mask, new_sliding
        if slid:  # a neuron without sliding pairs before and after is not in the system
            self.system = SlidingSystem(self.G, self.mask, self.sliding, self.system,
                                        leak=self.leak)
            self.max_sliding = max(self.max_sliding, int(self.sliding.sum()))


def regime_status(run: Regime, t: float) -> tuple[Status, str]:
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
