"""The E-001 reproductions' settings per profile and their measurements on a run: sorting
time t_1 (the cones replayed at the activation events), group cosines, stable rank, and
the number formats and JSON cleaning their sections share (`papers.s001.repro_alignment`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from numerics import Problem, Trajectory
from numerics.trajectory import CONE_DEAD
from papers.s001 import evidence as ev
from papers.s001.measures import class_sums, cone_of, replay_crossings, unsorted_mask
from verify.language.measures import ERROR_SAFETY, FLOAT_EPS, ROUNDOFF_ULPS, measure
from verify.report.doc import number_text
from verify.running.profiles import per_profile

PAPER_LR = 2e-3  # eta of every S001 experiment
PAPER_WIDTH = 50  # h
PAPER_ALPHA = 1e-6  # alpha of I-001-exp
THEOREM_EPS = ev.THEOREM_EPS  # 1e-100: both terms of (28) can hold, log-norm coordinates
ULP = ROUNDOFF_ULPS * FLOAT_EPS
GOOD_ALIGNMENT = 0.9  # "good alignment": both mean-neuron cosines at least this


@dataclass(frozen=True)
class Settings:
    """Sizes of one profile. ``grid_*``: the t_1 grid (theorem setting); ``a1_*``: the A.1
    protocol runs; ``toy_seeds``: seeds per A.2 toy; ``digits_*``: E-001-1;
    ``e001_3_iterations``: E-001-3."""

    grid_n: tuple[int, ...]
    grid_mu: tuple[float, ...]
    grid_seeds: int
    grid_width: int = 10
    grid_d: int = 3
    grid_points: int = 1001
    a1_mu: tuple[float, ...] = (0.1, 0.5, 0.9)
    a1_n: int = 10
    a1_d: int = 10
    a1_iterations: int = 10000
    a1_stride: int = 20
    a1_gd_iterations: int = 10000  # GD cross-check of the flow on one A.1 instance; 0: none
    toy_seeds: int = 6
    toy_iterations: int = 21000
    toy_stride: int = 100
    digits_per_class: int | None = None
    digits_iterations: int = 15000
    digits_stride: int = 50
    digits_sum_iterations: int = 1000
    e001_3_iterations: int = 15000  # E-001-3's SGD runs (iterations)


SETTINGS = {
    "quick": Settings(grid_n=(4, 8, 16), grid_mu=(0.1, 0.3, 0.9), grid_seeds=3,
                      a1_gd_iterations=2000, toy_seeds=6, digits_per_class=60,
                      e001_3_iterations=8000),
    "full": Settings(grid_n=(4, 8, 16, 32, 64), grid_mu=(0.05, 0.1, 0.2, 0.4, 0.8),
                     grid_seeds=8, grid_width=20, toy_seeds=20, digits_per_class=None),
    # E-001-1's h = 50 and 15,000 iterations on every 0/1 digit at hand (scikit-learn's 8x8
    # set: MNIST is not shipped); the t_1 grid to n = 128
    "paper": Settings(grid_n=(4, 8, 16, 32, 64, 128), grid_mu=(0.05, 0.1, 0.2, 0.4, 0.8),
                      grid_seeds=4, grid_width=20, toy_seeds=20, digits_per_class=None),
}


def settings_for(profile: str) -> Settings:
    return per_profile(SETTINGS, profile, "E-001 sizes")


# -- measurements on a run (the cones, cosines and stable rank of the project) -----------------
def replayed_cones(tr: Trajectory) -> np.ndarray:
    """S001 cone codes (T, p) at the saved times, from the initial pattern and the located
    activation changes (the S001 measures' replay; gradient descent: the saved patterns).

    Not from the saved pre-activations: a neuron that died by crossing its last hyperplane
    stays frozen a few ulps past it, where <w_j, x_i> recomputed from the saved state is
    round-off of either sign (seen: 3e-117 against ||w_j|| ~ 1e-100); the event log knows
    on which side it is."""
    pos = tr.problem.y > 0
    replay = replay_crossings(tr)
    rows = replay["rows"]
    current = np.array([cone_of(replay["init"][j], pos) for j in range(tr.problem.p)])
    out = np.empty((len(tr.t), tr.problem.p), dtype=int)
    r = 0
    for k, tk in enumerate(tr.t):
        while r < len(rows) and rows[r][0] <= tk:
            current[rows[r][1]] = rows[r][5]
            r += 1
        out[k] = current
    return out


def unsorted_counts(tr: Trajectory) -> np.ndarray:
    """Per saved time, the number of neurons of V_+-(t) outside their trapping cones
    (S_+ or S_dead for V_+, S_- or S_dead for V_-), the S001 measures' mask at sign a(t)."""
    signs = np.sign(tr.a)
    return np.array([int(unsorted_mask(c[None, :], s).sum())
                     for c, s in zip(replayed_cones(tr), signs, strict=True)])


def sorting_time(tr: Trajectory) -> tuple[float, float]:
    """(t_1, resolution): the first time every neuron is in its trapping cone; inf if never.

    On the exact flow t_1 is the time of the last located activation event in the saved
    interval where the count reaches 0 (resolution 0); otherwise (gradient descent, or a
    sign change of a_j rather than an activation change) the saved time itself, with the
    interval as resolution."""
    counts = unsorted_counts(tr)
    idx = np.flatnonzero(counts == 0)
    if idx.size == 0:
        return math.inf, 0.0
    k = int(idx[0])
    if k == 0:
        return 0.0, 0.0
    lo, hi = float(tr.t[k - 1]), float(tr.t[k])
    inside = [e.t for e in tr.events if lo < e.t <= hi]
    return (max(inside), 0.0) if inside else (hi, hi - lo)


def sorting_time_with_error(tr: Trajectory) -> tuple[float, float]:
    """t_1 and its error: ERROR_SAFETY x |t_1 - t_1(companion)| plus the resolution."""
    t1, res = sorting_time(tr)
    if tr.companion is None:
        return t1, math.inf
    t1c, res_c = sorting_time(tr.companion)
    if math.isinf(t1) and math.isinf(t1c):
        return t1, 0.0
    return t1, ERROR_SAFETY * abs(t1 - t1c) + max(res, res_c)


def group_cosines(tr: Trajectory, direction: np.ndarray, sign: float) -> dict[str, np.ndarray]:
    """For the group V_sign(t): ``mean`` = cos(w_bar, direction) with w_bar the mean neuron
    (S001 section 4), ``lo``/``hi`` = min/max of cos(w_j, direction) over the group's live
    neurons (not in S_dead; nan when there are none)."""
    member = np.sign(tr.a) == sign
    count = np.maximum(member.sum(axis=-1), 1)
    w_bar = np.einsum("kj,kjd->kd", member.astype(float), tr.W) / count[:, None]
    u = direction / np.linalg.norm(direction)
    norms = np.linalg.norm(w_bar, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(norms > 0, w_bar @ u / norms, np.nan)
    cos = tr.alignment(direction)
    live = member & (replayed_cones(tr) != CONE_DEAD)
    any_live = live.any(axis=-1)
    lo = np.where(any_live, np.where(live, cos, np.inf).min(axis=-1), np.nan)
    hi = np.where(any_live, np.where(live, cos, -np.inf).max(axis=-1), np.nan)
    return {"mean": mean, "lo": lo, "hi": hi}


def cosine_error(tr: Trajectory, direction: np.ndarray, sign: float) -> np.ndarray:
    """Error of the mean-neuron cosine: ERROR_SAFETY x the companion difference + rounding."""
    err = tr.error_of(lambda q: group_cosines(q, direction, sign)["mean"])
    return ERROR_SAFETY * np.where(np.isnan(err), np.inf, err) + ULP


def stable_rank_with_error(tr: Trajectory) -> tuple[np.ndarray, np.ndarray]:
    """||W||_F^2/||W||_2^2 (verify.language.measures' StableRank) and its error as a check counts
    it."""
    series = measure(tr, "StableRank")
    diff = tr.error_of(lambda q: q.stable_rank)
    return series.values, ERROR_SAFETY * diff + series.roundoff


def two_direction_stable_rank(tr: Trajectory, k: int = -1) -> float:
    """Stable rank if every V_+ neuron pointed along x_+ and every V_- neuron along x_-,
    with the measured group norms N_+- = sum ||w_j||^2: (N_+ + N_-)/lambda_max with
    lambda_max = (N_+ + N_- + sqrt((N_+ - N_-)^2 + 4 N_+ N_- c^2))/2, c = cos(x_+, x_-)."""
    c = cos_classes(tr.problem)
    sq = tr.neuron_norms[k] ** 2
    npos, nneg = float(sq[tr.a[k] > 0].sum()), float(sq[tr.a[k] < 0].sum())
    lam_max = 0.5 * (npos + nneg + math.sqrt((npos - nneg) ** 2 + 4 * npos * nneg * c * c))
    return (npos + nneg) / lam_max


def cos_classes(pr: Problem) -> float:
    xp, xm = class_sums(pr)
    return float(xp @ xm / (np.linalg.norm(xp) * np.linalg.norm(xm)))


def first_iteration(iterations: np.ndarray, hit: np.ndarray) -> int | None:
    idx = np.flatnonzero(hit)
    return int(iterations[idx[0]]) if idx.size else None

# -- blocks ------------------------------------------------------------------------------------
def fmt(x, digits: int = 3) -> str:
    return number_text(x, f".{digits}g", nonfinite="inf", exact_ints=True)


def pm(x, err, digits: int = 3) -> str:
    return f"{fmt(x, digits)} ± {fmt(err, 1)}"

def clean(x):
    """JSON-safe: numpy scalars to Python, non-finite floats to None."""
    if isinstance(x, dict):
        return {str(k): clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [clean(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else None
    if isinstance(x, Path):
        return str(x)
    return x

