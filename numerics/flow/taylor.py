"""The Taylor engine of the exact flow: one series per step, events found on polynomials.

Each step computes the Taylor series of the flow in the current regime
(`numerics.flow.series`) order by order. Every pre-activation is then a known polynomial
over the step, so the next event is found on the polynomials themselves
(`numerics.flow.roots`): a cheap bound rules out almost every pair at once, the rest are
inspected under a curvature bound and the earliest crossing is located to a few ulps by
Newton's method. The order adapts to the step: after `SEARCH_ORDERS` orders the step the
series already supports is searched for an event, and when there is one the step ends
there; only an event-free step goes on to the full order (`series.order_for`), whose step
is Jorba and Zou's. Events a thousandth of the series' radius apart, as at the papers'
sizes where crossings follow each other closely, so cost three or four orders, not a full
Runge-Kutta step and a restart. After an event-free step the next is searched at the full
order only (between events, as in the smooth convergence phase, the earlier searches find
nothing).

There is nothing to restart: the series at the event's state in its new regime is the
next step. Crossings located within ``tol`` of each other (pairs past their surface at
the event's state) are resolved together by the regime (`Regime.resolve`), as the
Runge-Kutta engine does.

Batches: the steps of several trials of the same sizes run in lockstep, their series in
one set of arrays (one BLAS call per product for all of them); each trial keeps its own
time, step, events and regime, and leaves the batch when it ends.
"""

from __future__ import annotations

import numpy as np

from numerics.flow import roots
from numerics.flow.regime import Regime, regime_status
from numerics.flow.roots import first_crossing, reach
from numerics.flow.series import FlowSeries, order_for
from numerics.problem import Problem
from numerics.sliding import ACTIVE, INACTIVE, Unresolved
from numerics.trajectory import Status

# Orders after which the step is searched for an event (and the highest order, always).
SEARCH_ORDERS = (4, 7, 10)
# A crossing is bracketed to this many ulps of the current time (as the Runge-Kutta engine).
_CROSSING_ULPS = 8
# Doublings of the nudge past a located crossing whose state still reads on its side.
_NUDGES = 60
# The state at a located crossing is taken this many ulps of |w_j| |x_i| past it: the
# pre-activations formed from the state round differently from the series' own.
_STATE_ULPS = 16


class _Trial:
    """One trial of a batch: its regime, state, time and the arrays the search reads."""

    def __init__(self, problem: Problem, t_eval, opts, rtol: float) -> None:
        self.problem = problem
        self.run = Regime(problem, t_eval, opts, rtol)
        self.atol = self.run.coords.neuron_floor(problem, rtol, opts.atol_fraction)
        self.t = 0.0
        self.n_steps = 0
        self.quiet = False  # its last step met no event: search only at the full order
        self.status, self.message = Status.SUCCESS, ""
        try:
            self.y = self.run.start()
            self.status, self.message = regime_status(self.run, 0.0)
        except Unresolved as exc:
            self.y = self.run.coords.y0.copy()
            self.status, self.message = Status.CHATTERING, f"at t=0: {exc}"
        p, n = problem.p, problem.n
        x = self.run.x_norms
        # 1 / |x_i| (0 for a zero sample: its pre-activations stay 0, it never crosses)
        self.inv_x = np.divide(1.0, x, out=np.zeros_like(x), where=x > 0)
        self.D, self.sign, self.sign_x = np.zeros((p, n)), np.zeros((p, n)), np.zeros((p, n))
        self.regime_arrays(np.arange(p))

    def regime_arrays(self, rows) -> None:
        """On the neurons ``rows``: sigma'(z) held (D) and the sign that makes a pair's
        event value positive past its surface (-1 active, +1 inactive, 0 sliding: a
        sliding pair's event is its exit polynomial)."""
        run = self.run
        mask = run.mask[rows]
        self.D[rows] = self.problem.activation.derivative(None, mask)
        self.sign[rows] = np.where(run.sliding[rows], 0.0, np.where(mask > 0, -1.0, 1.0))
        self.sign_x[rows] = self.sign[rows] * self.inv_x  # sign / |x_i|
        self.system = None if run.system.empty else run.system


class _Event:
    """A located crossing: the step offset past it, where the state reads past it too
    (``tau_state``), the regular pairs whose events may lie in the step (rows, columns;
    the flags at the event's state pick among them and the sliding pairs), the pair
    located (j, i), the side a located sliding pair leaves to (None for a regular one)
    and the step's bound h (a nudge never leaves the step)."""

    def __init__(self, tau: float, tau_state: float, candidates, pair, exit_side, h) -> None:
        self.tau, self.tau_state, self.candidates = tau, tau_state, candidates
        self.pair, self.exit_side, self.h = pair, exit_side, h


def integrate(problem: Problem, t_eval: np.ndarray, opts, rtol: float,
              companion: bool = False, xp=None) -> dict:
    """One run of ``problem`` at tolerance ``rtol`` (a batch of one)."""
    return integrate_batch([problem], t_eval, opts, rtol, companion, xp)[0]


def integrate_batch(problems: list[Problem], t_eval: np.ndarray, opts, rtol: float,
                    companion: bool = False, xp=None) -> list[dict]:
    """Runs of ``problems`` (same sizes and conventions) at tolerance ``rtol``, in lockstep;
    one result dict per problem, as `numerics.flow.rk.integrate` returns.

    ``companion``: the run that estimates another's error sums each step's series one
    order short of the order its step was decided at. Its truncation error is then the
    last term's, |theta_k| tau^k (at most its tolerance), where the run it checks keeps
    that term and errs by the next, smaller by tau / r (r the series' reach): without it,
    event-limited steps (decided at the same order whatever the tolerance) would give the
    two runs the same polynomials and errors their difference cannot see. ``xp``: where
    the series live (`numerics.flow.arrays`; numpy by default)."""
    t_eval = np.asarray(t_eval, dtype=float)
    t_end = float(t_eval[-1])
    trials = [_Trial(q, t_eval, opts, rtol) for q in problems]
    live = [tr for tr in trials if tr.status.ok and tr.t < t_end]
    while live:
        _Lockstep(live, opts, rtol, t_end, 1 if companion else 0, xp).run()
        live = [tr for tr in live if tr.status.ok and tr.t < t_end]
    return [tr.run.outcome(tr.status, tr.message, tr.n_steps) for tr in trials]


class _Lockstep:
    """Steps of a fixed set of trials, in lockstep, until one of them leaves (ends, or
    fails); the series arrays are sized for this set."""

    def __init__(self, trials: list[_Trial], opts, rtol: float, t_end: float,
                 short: int = 0, xp=None) -> None:
        self.trials, self.opts, self.rtol, self.t_end = trials, opts, rtol, t_end
        self.short = short  # orders left out of each step's sum (1 for a companion)
        self.K = order_for(rtol)
        self.series = FlowSeries([tr.problem for tr in trials], trials[0].run.coords.name,
                                 self.K, xp)
        for pos, tr in enumerate(trials):
            self.series.set_regime(pos, tr.D, tr.system)
        self.atol = np.stack([tr.atol for tr in trials])
        self.x_norms = np.stack([tr.run.x_norms for tr in trials])
        self.band_rtol = trials[0].run.band_rtol

    def run(self) -> None:
        while self.step():
            pass

    def step(self) -> bool:
        """One step of every trial; False once one of them has left the set."""
        series, batch = self.series, self.trials
        Zs = [tr.run.preactivations(tr.y) for tr in batch]
        series.start([tr.y for tr in batch], Zs)
        eps = self.rtol * series.neuron_sizes(0) + self.atol
        # a pair's event value v = sign z shows an event once above its band c |w_j| |x_i|;
        # |Z_l[j, i]| <= |w_l,j| |x_i|, so a neuron whose slack_j = min_i (band - v) / |x_i|
        # exceeds what its coefficients can move in the step has no candidate (`_search`)
        lead = self.band_rtol * series.weight_norms()
        slack = lead - np.max(np.stack([tr.sign_x for tr in batch]) * np.stack(Zs), axis=2)
        left = np.array([self.t_end - tr.t for tr in batch])
        taus = np.full(len(batch), np.nan)
        orders = np.full(len(batch), self.K)  # the order each trial's step was decided at
        found: list[_Event | None] = [None] * len(batch)
        open_ = np.ones(len(batch), dtype=bool)
        for k in range(1, self.K + 1):
            series.extend()
            if k != self.K and (k not in SEARCH_ORDERS
                                or all(batch[pos].quiet for pos in np.flatnonzero(open_))):
                continue
            bound = np.minimum(series.step_bound(eps), left)
            for pos in np.flatnonzero(open_):
                if k != self.K and batch[pos].quiet:
                    continue
                event = _search(series, pos, batch[pos], lead[pos], slack[pos],
                                self.x_norms[pos], float(bound[pos]))
                if event is not None:
                    taus[pos], found[pos], open_[pos] = event.tau, event, False
                    orders[pos] = k
            if k == self.K:
                taus[open_] = bound[open_]
            if not open_.any():
                break
        stays = True
        for pos, tr in enumerate(batch):
            _advance(series, pos, tr, float(taus[pos]), int(orders[pos]) - self.short,
                     found[pos], float(left[pos]), self.t_end, self.opts)
            if not tr.status.ok or tr.t >= self.t_end:
                stays = False
            elif found[pos] is not None:
                series.set_regime(pos, tr.D, tr.system, tr.run.changed_rows)
        return stays


def _search(series: FlowSeries, pos: int, trial: _Trial, lead: np.ndarray, slack: np.ndarray,
            x_norms: np.ndarray, h: float) -> _Event | None:
    """The first event of trial ``pos`` within (0, h] of its step, or None.

    Candidates: a neuron j can only have one if sum_l |theta_l,j| h^l (a bound of how far
    |w_j| moves, so of |z_ij| / |x_i|) exceeds its ``slack``; on those neurons a pair is
    one when sum_l |Z_l| h^l exceeds its room (its band ``lead_j |x_i|`` above its event
    value sign z). The rest go to `first_crossing`."""
    k = series.k
    moves = h ** np.arange(1, k + 1) @ series.upto(k)[pos, 1:]
    rows = np.flatnonzero(moves > slack)
    candidates = (rows[:0], rows[:0])
    F, bands = np.zeros((k + 1, 0)), np.zeros(0)
    if rows.size:
        Zr = series.z_rows(pos, rows)
        band = lead[rows][:, None] * x_norms
        sign = trial.sign[rows]
        near = (reach(Zr, h) > band - sign * Zr[0]) & (sign != 0.0)
        if near.any():
            r, i = np.nonzero(near)
            candidates = (rows[r], i)
            F = Zr[:, r, i] * sign[r, i]
            bands = band[r, i]
    regular = F.shape[1]
    system = trial.system
    if system is not None:  # sliding pairs: their exit polynomials, band 0
        F = np.concatenate([F, series.exit_series(pos)], axis=1)
        bands = np.concatenate([bands, np.zeros(len(system.rows))])
    if F.shape[1] == 0:
        return None
    tol = _CROSSING_ULPS * np.spacing(max(abs(trial.t + h), 1.0))
    tau, m = first_crossing(F, bands, h, tol)
    if tau is None:
        return None
    tau_state = tau
    if m < regular:  # the state's pre-activation rounds at ~|w_j| |x_i| eps: go past that
        pair, side = (int(candidates[0][m]), int(candidates[1][m])), None
        rate = roots.slope(F[:, m].tolist(), tau)
        noise = _STATE_ULPS * np.finfo(float).eps * bands[m] / series_band_rtol(trial)
        if rate > 0.0:
            tau_state = min(tau + noise / rate, h)
    else:  # a sliding pair's exit: the side its alpha = beta / g_i left [0, 1] through
        r = m - regular
        pair = (int(system.rows[r]), int(system.cols[r]))
        beta = roots.value(series.beta_series(pos)[:, r].tolist(), tau)
        g = roots.value(series.loss_series(pos, pair[1]), tau)
        side = ACTIVE if g != 0.0 and beta / g > 0.5 else INACTIVE
    return _Event(tau, tau_state, candidates, pair, side, h)


def series_band_rtol(trial: _Trial) -> float:
    """The band's relative width (so bands / it = |w_j| |x_i|)."""
    return trial.run.band_rtol


def _advance(series: FlowSeries, pos: int, trial: _Trial, tau: float, order: int,
             event: _Event | None, left: float, t_end: float, opts) -> None:
    """Trial ``pos`` to the end of its step (its series summed to ``order``, the order its
    step was decided at, whatever its batch went on to): its saved states, its new state
    and time, and the event's resolution by the regime."""
    run, t0 = trial.run, trial.t
    trial.n_steps += 1
    trial.quiet = event is None

    def rows(times):
        return series.state_at(pos, np.asarray(times) - t0, order)

    def state(offset):  # the state and, from the series, its pre-activations
        y = series.state_at(pos, np.array([offset]), order)[0]
        run.remember(y, series.z_at(pos, offset, order))
        return y

    if event is None:
        t_new = t_end if tau >= left else t0 + tau
        y = state(t_new - t0)
        if not np.all(np.isfinite(y)):
            trial.status, trial.message = Status.NONFINITE, f"non-finite state at t={t_new:.6g}"
            return
        run.save(rows, t_new)
        run.idle_events = 0
        trial.y, trial.t = y, t_new
    else:
        tau = event.tau_state
        tol = _CROSSING_ULPS * np.spacing(max(abs(t0 + tau), 1.0))
        y = state(tau)
        flagged = run.flags_among(y, event.candidates)
        nudge = tol
        end = min(left, event.h)
        for _ in range(_NUDGES):  # to the event's far side on the state itself, in the step
            if flagged[event.pair] or tau >= end:
                break
            tau = min(tau + nudge, end)
            nudge *= 2.0
            y = state(tau)
            flagged = run.flags_among(y, event.candidates)
        # the series located it: a state that rounds it back to its side (a sliding pair's
        # alpha, a ratio of vanishing numbers as g_i nears 0) does not undo the event
        flagged[event.pair] = True
        if not np.all(np.isfinite(y)):
            trial.status, trial.message = Status.NONFINITE, f"non-finite state at t={t0 + tau:.6g}"
            return
        t_event = t0 + tau
        run.save(rows, t_event)
        exits = None if event.exit_side is None else {event.pair: event.exit_side}
        try:
            trial.y = run.resolve(y, t_event, flagged, exits)
        except Unresolved as exc:
            trial.status, trial.message = Status.CHATTERING, f"at t={t_event:.6g}: {exc}"
            return
        trial.t = t_event
        trial.regime_arrays(run.changed_rows)
        trial.status, trial.message = regime_status(run, t_event)
    if trial.status.ok and trial.n_steps >= opts.max_steps and trial.t < t_end:
        trial.status = Status.MAX_STEPS
        trial.message = f"{trial.n_steps} steps reached at t={trial.t:.6g}"
