"""How long to simulate a MOR26 instance, and the sequences of lam its limits are read on.

The horizon passes Algorithm 1's last activation, the middle of its last plateau
(`papers.mor26.measures.plateau_midpoints`) and the time the last fitted group needs to
converge: near its saddle a group fitting S relaxes at a rate at least |y~_S|/n (the
smallest eigenvalue of its tangent kernel, a_j^2 |x_k|^2 = |y~_S| for unit inputs, over the
loss's 1/n), and `TAIL` such time constants bring its residual down by e^-TAIL. Where a
run's limit point cannot be polished, its limit is read at its end with the motion over its
last `verify.engine.limit_point.TAIL` fraction as the error: the horizon is stretched so
that this fraction starts after the convergence (at lam = 1e-136 the last plateau alone
ends past 3/4 of the run otherwise).
"""

from __future__ import annotations

import math

import numpy as np

from numerics import Problem, Trajectory, generators
from numerics.inits import seeded_rng
from papers.mor26.algorithm import jump_process_identity
from papers.mor26.measures import LAST_PLATEAU, exit_times, plateau_midpoints, process
from theory.closed_forms import min_norm_value
from verify.engine.evidence import DEFAULT_SAVED_TIMES, LimitSequence, exact_trajectory
from verify.engine.limit_point import TAIL as END_FRACTION

#: time constants of the slowest fitted group after its activation
TAIL = 30.0
#: the lam sequence of the limits lam -> 0: ln(1/lam) about doubles every two steps, and
#: 1/ln(1/lam) spans a factor 23 (a decade is what `verify.engine.check_limit` needs to
#: extrapolate), from 0.072 to 0.0032. Float64 runs them in cartesian coordinates (the
#: outputs are O(lam^2) = 1e-272 at the smallest); the larger lam of 1e-4 is left out, where
#: the corrections lam^margin (`papers.mor26.algorithm.JumpProcess.margin`) still bend the
#: sequences.
LIMIT_LAMS = (1e-6, 1e-8, 1e-12, 1e-17, 1e-24, 1e-34, 1e-48, 1e-68, 1e-96, 1e-136)
#: saved times added inside each plateau exit's bracket (`mor26_trajectory`)
REFINE = 200


def mor26_horizon(problem: Problem) -> float:
    """A time past every MOR26 claim's reading on ``problem`` (module docstring)."""
    jp = process(problem)
    scale = math.log(1.0 / problem.init_scale)
    if not jp.activations:  # nothing grows: the run only has to show it
        return 10.0 * problem.n / problem.loss_scale / (1.0 - END_FRACTION)
    last = jp.activations[-1].tau
    relax = TAIL * problem.n / (problem.loss_scale * min(a.norm_sq for a in jp.activations))
    settled = last * scale + relax
    return max((last + LAST_PLATEAU) * scale, settled) / (1.0 - END_FRACTION)


def mor26_trajectory(problem: Problem, points: int = DEFAULT_SAVED_TIMES,
                     rtol: float = 1e-10) -> Trajectory:
    """The exact flow of a MOR26 instance up to `mor26_horizon` (memoised by content), saving
    the middle of every plateau of Algorithm 1 and, around each activation's plateau exit,
    `REFINE` more times: a first run on ``points`` times brackets each exit between two saved
    times, and the run returned also saves `REFINE` equally spaced times inside each bracket,
    so that an exit time is known to its bracket / `REFINE` (at lam = 1e-136 the gap to
    Algorithm 1's time is a few 1/ln(1/lam) = 0.003, below the uniform spacing / ln(1/lam))."""
    horizon = mor26_horizon(problem)
    mids = plateau_midpoints(problem)
    first = exact_trajectory(problem, horizon, points, rtol, extra_times=mids)
    extra = list(mids)
    for _, t_i, bracket in exit_times(first):
        if bracket > 0:
            extra += list(np.linspace(t_i - bracket, t_i + bracket, REFINE + 1))
    return exact_trajectory(problem, horizon, points, rtol, extra_times=tuple(extra))


def lam_sequence(n: int, d: int, p: int, seed: int, lams=LIMIT_LAMS,
                 points: int = DEFAULT_SAVED_TIMES) -> list[Trajectory]:
    """One draw of `numerics.generators.orthonormal` (the same data, directions g_j and signs)
    at each lam of ``lams``: the runs a limit lam -> 0 is decided on."""
    return [mor26_trajectory(generators.orthonormal(n=n, d=d, p=p, lam=lam, seed=seed),
                             points=points) for lam in lams]


# -- the limit n -> infinity of Algorithm 1's norm ratio (MOR26-Tx4) ------------------------------
#: a mean's error in a `ratio_sequence`: this many standard errors (3: a 99.7% bound for a
#: normal mean, per value)
MEAN_ERRORS = 3.0


def limit_draw(n: int, p: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(y, g, s): the labels, directions and signs `numerics.generators.orthonormal` draws
    for (n, d = n, p, seed) (the same random stream), without its n x n data matrix: for
    Algorithm 1 alone at large n (`papers.mor26.algorithm.jump_process_identity`)."""
    rng = seeded_rng(seed)
    y = generators.orthonormal_labels(n, rng)
    g = rng.standard_normal((p, n))
    s = rng.choice([-1.0, 1.0], size=p)
    return y, g, s


def norm_ratios(n: int, draws: int) -> np.ndarray:
    """Algorithm 1's |theta|^2 over the least interpolator's (CF-9: 2(|y~+| + |y~-|), exact on
    orthogonal data) for each of the seeds 0 .. draws-1 at width S000's rule whose limit
    interpolates (x_k = e_k)."""
    width = generators.published_width(n)
    out = []
    for seed in range(draws):
        y, g, s = limit_draw(n, width, seed)
        jp = jump_process_identity(y, g, s)
        if jp.interpolates:
            least = float(min_norm_value(np.linalg.norm(y[y > 0]), np.linalg.norm(y[y < 0])))
            out.append(jp.norm_sq / least)
    return np.array(out)


def ratio_sequence(ns: tuple[int, ...], draws: int) -> LimitSequence:
    """The mean norm ratio (`norm_ratios`) at each n of ``ns``, as a sequence in 1/n (the
    variable InvN of MOR26-Tx4), each mean with `MEAN_ERRORS` standard errors."""
    means, errors, labels = [], [], []
    for n in ns:
        r = norm_ratios(n, draws)
        means.append(float(r.mean()))
        errors.append(MEAN_ERRORS * float(r.std(ddof=1)) / math.sqrt(r.size))
        labels.append(f"n = {n}: {r.size} of {draws} draws interpolate")
    return LimitSequence("InvN", tuple(1.0 / n for n in ns), tuple(means), tuple(errors),
                         quantity="NormRatio", labels=tuple(labels),
                         description=f"Algorithm 1 at n = {ns[0]} .. {ns[-1]}, m = S000's "
                         f"width rule, {draws} draws each (mean of the interpolating ones)")
