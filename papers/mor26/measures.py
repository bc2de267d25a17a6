"""MOR26 quantities: vocabulary name -> number (merged into `verify.language.measures` as a
pack's measures module; TRAJECTORY, INSTANCE and ENSEMBLE tables with the contracts there).

Everything is read against Algorithm 1 (`papers.mor26.algorithm`) on the run's own Problem
(in the run's loss convention). Quantities shared with other packs are theirs: MinNormSq is
S002's (certified), the coverage probability CF-6's closed form, GoodInit S000's.

The plateau quantities are one number per run, repeated at every saved time (a `Series`
constant in t): the first time t_i at which the neurons of activation i reach half their
saddle's squared norm, by linear interpolation between saved times, with the spacing of
those two saved times as its error floor (the check adds the difference to the companion
run). An activation whose neurons never reach the level before the run ends counts with
t_i = the run's end (a lower bound: the ratio and the gap are then at least that large).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from numerics import Problem, Trajectory
from papers.mor26 import algorithm
from papers.s002.measures import Measured, min_norm_sq
from theory.closed_forms import good_init_probability
from verify.language.measures import (
    Series,
    UndefinedQuantity,
    measure,
    relative_floor,
)

#: the fraction of its saddle's squared norm at which an activation's plateau is left
EXIT_LEVEL = 0.5
#: the last plateau is read this far (in tau) past the last activation
LAST_PLATEAU = 1.0


@functools.lru_cache(maxsize=512)
def process(problem: Problem) -> algorithm.JumpProcess:
    """Algorithm 1 on ``problem`` (memoised by content); a start outside its domain is an
    undefined quantity (the claim INAPPLICABLE, with the reason)."""
    try:
        return algorithm.of_problem(problem)
    except algorithm.NotGeneric as exc:
        raise UndefinedQuantity(f"Algorithm 1: {exc}") from None


def _log_inv_lam(problem: Problem) -> float:
    lam = problem.init_scale
    if lam is None or not 0 < lam < 1:
        raise UndefinedQuantity(f"ln(1/lam) needs 0 < lam < 1 (the Problem's init_scale is {lam})")
    return math.log(1.0 / lam)


def plateau_midpoints(problem: Problem) -> tuple[float, ...]:
    """The times (t, not tau) at the middle of each of Algorithm 1's plateaus i = 0..N:
    (tau_i + tau_{i+1})/2 ln(1/lam), tau_0 = 0, tau_{N+1} = tau_N + `LAST_PLATEAU`. A run
    that saves them (``extra_times``) reads PlateauLossGap exactly there."""
    taus = (0.0, *process(problem).times)
    ends = (*taus[1:], taus[-1] + LAST_PLATEAU)
    scale = _log_inv_lam(problem)
    return tuple(0.5 * (a + b) * scale for a, b in zip(taus, ends, strict=True))


def exit_times(tr: Trajectory) -> list[tuple[algorithm.Activation, float, float]]:
    """(activation, t_i, error of t_i) per activation of Algorithm 1 on ``tr``'s Problem: the
    first time the group's sum |w_j|^2 reaches `EXIT_LEVEL` of its saddle value."""
    out = []
    for act in process(tr.problem).activations:
        N = tr.group_norm_sq(act.neurons)
        level = EXIT_LEVEL * act.norm_sq
        hit = np.flatnonzero(N >= level)
        if hit.size == 0:  # never: the run's end is a lower bound
            out.append((act, float(tr.t[-1]), 0.0))
        elif hit[0] == 0:
            out.append((act, float(tr.t[0]), 0.0))
        else:
            k = int(hit[0])
            t0, t1, n0, n1 = tr.t[k - 1], tr.t[k], N[k - 1], N[k]
            out.append((act, float(t0 + (level - n0) * (t1 - t0) / (n1 - n0)), float(t1 - t0)))
    if not out:
        raise UndefinedQuantity("Algorithm 1 activates no neuron on this instance (no growth set)")
    return out


def _constant(tr: Trajectory, value: float, error: float) -> Series:
    size = len(tr.t)
    return Series(np.full(size, value), np.full(size, error))


def _ratios(tr: Trajectory) -> tuple[np.ndarray, np.ndarray]:
    scale = _log_inv_lam(tr.problem)
    rows = exit_times(tr)
    ratio = np.array([t_i / (act.tau * scale) for act, t_i, _ in rows])
    error = np.array([e / (act.tau * scale) for act, _, e in rows])
    return ratio, error


def plateau_ratio(tr: Trajectory, pick) -> Series:
    """PlateauRatioMax / Min: the largest or smallest t_i / (tau_i ln(1/lam))."""
    ratio, error = _ratios(tr)
    k = int(pick(ratio))
    return _constant(tr, float(ratio[k]), float(error[k]))


def transition_gap(tr: Trajectory) -> Series:
    """TransitionGap: max_i |t_i / ln(1/lam) - tau_i|."""
    scale = _log_inv_lam(tr.problem)
    rows = exit_times(tr)
    gaps = np.array([abs(t_i / scale - act.tau) for act, t_i, _ in rows])
    k = int(np.argmax(gaps))
    return _constant(tr, float(gaps[k]), rows[k][2] / scale)


def plateau_loss_gap(tr: Trajectory) -> Series:
    """PlateauLossGap: max over the plateaus of |L - L^{F_i}| at the saved time nearest the
    plateau's middle (`plateau_midpoints`), with the loss's own error floor there."""
    jp = process(tr.problem)
    levels = (jp.loss0, *(act.loss for act in jp.activations))
    loss = measure(tr, "L")
    gaps, errors = [], []
    for level, mid in zip(levels, plateau_midpoints(tr.problem), strict=True):
        if mid > tr.t[-1] * (1 + 1e-12):
            raise UndefinedQuantity(f"PlateauLossGap: the run ends at t = {tr.t[-1]:.4g}, "
                                    f"before the plateau's middle t = {mid:.4g}")
        k = int(np.argmin(np.abs(tr.t - mid)))
        gaps.append(abs(float(loss.values[k]) - level))
        errors.append(float(loss.roundoff[k]))
    k = int(np.argmax(gaps))
    return _constant(tr, gaps[k], errors[k])


def saddle_norm_gap(tr: Trajectory) -> Series:
    """SaddleNormGap(t): max over Algorithm 1's final groups of |sum_{j in group} |w_j(t)|^2 -
    its saddle value| (the neurons that never activate: their sum against 0)."""
    gaps = np.stack([np.abs(tr.group_norm_sq(neurons) - value)
                     for neurons, value in process(tr.problem).saddle_groups()], axis=-1)
    size = np.sum(tr.neuron_norms ** 2, axis=-1)
    return Series(np.max(gaps, axis=-1), relative_floor(tr, 2.0) * size)


def norm_ratio(problem: Problem) -> float:
    """NormRatio: Algorithm 1's |theta|^2 over S002's MinNormSq (certified), for an instance
    whose limit interpolates."""
    jp = process(problem)
    if not jp.interpolates:
        raise UndefinedQuantity("NormRatio: Algorithm 1's limit does not interpolate here "
                                f"({jp.n - len(jp.fitted)} of {jp.n} samples never fitted)")
    least = min_norm_sq(problem)
    ratio = jp.norm_sq / float(least)
    return Measured(ratio, ratio * least.error / float(least))


def cover_probability(positives: int, negatives: int, width: int) -> float:
    """CF-6's exact probability that every sample is covered (`theory.closed_forms`)."""
    return float(good_init_probability(positives, negatives, width).doit())


def _cover_exact(problem: Problem) -> float:
    return cover_probability(int(np.sum(problem.y > 0)), int(np.sum(problem.y < 0)), problem.p)


INSTANCE = {
    "InvLogLam": lambda pr: 1.0 / _log_inv_lam(pr),
    "InvN": lambda pr: 1.0 / pr.n,
    "AlgLossInf": lambda pr: process(pr).loss_inf,
    "AlgNormSq": lambda pr: process(pr).norm_sq,
    "AlgInterp": lambda pr: float(process(pr).interpolates),
    "NormRatio": norm_ratio,
    "PCoverExact": _cover_exact,
}

ENSEMBLE = {"PInterpLimit": lambda pr: process(pr).interpolates}

TRAJECTORY = {
    "PlateauRatioMax": lambda tr: plateau_ratio(tr, np.argmax),
    "PlateauRatioMin": lambda tr: plateau_ratio(tr, np.argmin),
    "TransitionGap": transition_gap,
    "PlateauLossGap": plateau_loss_gap,
    "SaddleNormGap": saddle_norm_gap,
}
