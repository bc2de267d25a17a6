"""A run read in another loss convention: the same states, the times rescaled.

The gradient flow of c L (L with the prefactor c, `Problem.loss_scale`) is
d theta/dt = -c grad L; at time s = t c / c' it is d theta/ds = -c' grad L, the flow of
c' L. Gradient descent on c L at step lr is gradient descent on c' L at step lr c / c',
step for step, and minibatch SGD likewise. So one run is, exactly, a run of every
prefactor, with its saved times (and event times, a step, a stop time) multiplied by
c / c' and its per-step losses by c' / c. A claim written for the papers' prefactor is
checked on a run made with another (torch's ``MSELoss`` is c = 2) through this reading,
never by its formula on the other prefactor's numbers (`theory.Claim.loss_scale`).
"""

from __future__ import annotations

import dataclasses

from numerics.trajectory import Trajectory


def in_loss_scale(tr: Trajectory, loss_scale: float) -> Trajectory:
    """``tr`` read as a run of the same Problem with ``loss_scale`` in place of its own:
    the same states at times multiplied by ``tr.problem.loss_scale / loss_scale`` (the
    companion too); ``tr`` itself when the prefactors agree. The reading is recorded in
    the Problem's ``meta["read_from_loss_scale"]`` and the run's ``options``."""
    own = tr.problem.loss_scale
    if loss_scale == own:
        return tr
    if not (loss_scale > 0 and loss_scale < float("inf")):
        raise ValueError(f"loss_scale: a positive number, got {loss_scale!r}")
    return _rescaled(tr, loss_scale, own / loss_scale)


def time_factor(tr: Trajectory) -> float:
    """The factor a run's times were multiplied by when it was read in another loss
    convention (`in_loss_scale`): 1 for a run read as it was made."""
    return float(tr.options.get("time_factor", 1.0))


def _rescaled(tr: Trajectory, loss_scale: float, factor: float) -> Trajectory:
    problem = tr.problem
    meta = dict(problem.meta, read_from_loss_scale=problem.loss_scale)
    problem = dataclasses.replace(problem, loss_scale=loss_scale, meta=meta)
    options = dict(tr.options, time_factor=factor * time_factor(tr),
                   read_from_loss_scale=tr.problem.loss_scale)
    for key in ("lr", "step"):  # a descent's step is a time
        if isinstance(options.get(key), (int, float)) and not isinstance(options[key], bool):
            options[key] = options[key] * factor
    companion = (None if tr.companion is None
                 else _rescaled(tr.companion, loss_scale, factor))
    return dataclasses.replace(
        tr, problem=problem, t=tr.t * factor, options=options, companion=companion,
        events=tuple(dataclasses.replace(e, t=e.t * factor) for e in tr.events),
        choices=tuple(dataclasses.replace(c, t=c.t * factor) for c in tr.choices),
        stop_time=None if tr.stop_time is None else tr.stop_time * factor,
        step_loss=None if tr.step_loss is None else tr.step_loss / factor)
