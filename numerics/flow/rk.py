"""The Runge-Kutta engine of the exact flow: DOP853 restarted at every event.

Inside a regime (`numerics.flow.regime.Regime`) scipy's DOP853 integrates the flow with
the pattern held fixed. After every accepted step the pre-activations are inspected at
the step's end and at interior points of its dense output (`_SIGN_CHECK_NODES`); at a
sign change the earliest crossing is located by Brent's method on the dense output, the
regime resolves it and the integrator restarts there, choosing its first step afresh.

This was the only engine until the Taylor engine (`numerics.flow.taylor`); it stays for
what that one does not integrate (ReLU powers, log-norm coordinates) and as the reference
the new engine is compared with (``ExactFlow(engine="rk")``, bench/flow_scale.py).
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import DOP853
from scipy.optimize import brentq

from numerics.flow.regime import Regime, regime_status
from numerics.problem import Problem
from numerics.sliding import Unresolved
from numerics.trajectory import Status

# Relative positions inside an accepted step where signs are also inspected, so that a
# pair crossing zero and back within one step is still seen.
_SIGN_CHECK_NODES = np.array([0.25, 0.5, 0.75, 1.0])
# Brent's method stops when the bracket is this many ulps of the current time.
_CROSSING_ULPS = 8


def first_event(run: Regime, dense, candidates, lo, hi) -> float:
    """Earliest time in (lo, hi] at which a candidate pair's event has happened.

    Per candidate, Brent's method on its event value (`Regime.event_values`) brackets the
    root to a few ulps; returns the far end of the earliest bracket, so the state there
    is already past the event.
    """
    tol = _CROSSING_ULPS * np.spacing(max(abs(hi), 1.0))
    pairs = np.nonzero(candidates)
    at_lo = run.event_values(dense(lo), pairs)
    at_hi = run.event_values(dense(hi), pairs)
    if np.any(at_lo > 0):  # already past it at lo (within the surface band)
        return float(min(lo + tol, hi))
    best = hi
    for k in np.flatnonzero(at_hi > 0):
        pair = (pairs[0][k:k + 1], pairs[1][k:k + 1])

        def value(t, pair=pair):
            return float(run.event_values(dense(t), pair)[0])

        if value(best) <= 0:
            continue  # its event comes after the earliest found so far
        t = brentq(value, lo, best, xtol=tol, rtol=4 * np.finfo(float).eps)
        step = tol
        while value(t) <= 0 and t < best:  # to the event's far side, in doubling steps
            t = min(t + step, best)  # (a grazing pair's value is flat at round-off)
            step *= 2
        best = min(best, t)
    return float(best)


def integrate(problem: Problem, t_eval: np.ndarray, opts, rtol: float) -> dict:
    """One run of ``problem`` at tolerance ``rtol``: the saved states, the events and how
    it ended (the dict `numerics.flow` turns into a Trajectory)."""
    t_eval = np.asarray(t_eval, dtype=float)
    run = Regime(problem, t_eval, opts, rtol)
    coords = run.coords
    t0, t_end = 0.0, float(t_eval[-1])
    try:
        state = run.start()
        status, message = regime_status(run, 0.0)
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

            def rows(times, dense=dense):
                return dense(times).T

            nodes = t_old + _SIGN_CHECK_NODES * (t_new - t_old)
            flagged = run.flags(dense(nodes).T)  # (nodes, p, n)
            if not flagged.any():
                run.save(rows, t_new)
                run.idle_events = 0
                continue
            k = int(np.argmax(flagged.reshape(len(nodes), -1).any(axis=1)))
            lo = t_old if k == 0 else nodes[k - 1]
            t_event = first_event(run, dense, flagged[k], lo, nodes[k])
            run.save(rows, t_event)
            try:
                y_event = coords.restart(dense(t_event))
                state = run.resolve(y_event, t_event,
                                    run.flags(y_event, zero_band=True) & flagged[k])
            except Unresolved as exc:
                status, message = Status.CHATTERING, f"at t={t_event:.6g}: {exc}"
                break
            t0 = t_event
            status, message = regime_status(run, t0)
            restarted = True
            break
        if not restarted:
            break
    return run.outcome(status, message, n_steps)
