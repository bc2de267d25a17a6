"""Evidence planning: how long and how finely to simulate an instance for a claim.

The horizon must reach past every bound a claim compares with, or its check
can only be INCONCLUSIVE; the saved-time grid bounds the resolution of event
times (its spacing is part of their error).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from numerics import ExactFlow, Problem, Trajectory
from verify.engine.evidence_kinds import Estimate, Grid, LimitSequence  # noqa: F401  (re-exported)
from verify.language.measures import instance_values
from verify.running import runs

DEFAULT_SAVED_TIMES = 4001


@lru_cache(maxsize=32)  # runs of 8,001 saved times are large: 128 exhausted 24 GiB, and 64
# came near it once checks escalate (a worker at 12 GB in the full profile)
def _cached(problem: Problem, horizon: float, points: int, rtol: float,
            extra: tuple) -> Trajectory:
    return runs.simulate(problem, ExactFlow(rtol=rtol), exact_times(horizon, points, extra))


def exact_times(horizon: float, points: int, extra: tuple = ()) -> np.ndarray:
    """The saved times of `exact_trajectory`: ``points`` equally spaced from 0 to
    ``horizon`` and the ``extra`` ones in [0, horizon]."""
    t_eval = np.linspace(0.0, horizon, points)
    if extra:
        t_eval = np.union1d(t_eval, [t for t in extra if 0.0 <= t <= horizon])
    return t_eval


def exact_trajectory(problem: Problem, horizon: float, points: int = DEFAULT_SAVED_TIMES,
                     rtol: float = 1e-10, extra_times=()) -> Trajectory:
    """The exact flow of ``problem`` on ``points`` equally spaced times up to ``horizon``
    (memoised by content: tests of several claims on one instance share one run).

    ``extra_times`` are saved as well (exactly those floats), for claims stated at one
    instant such as S002-L2 at t_1 (see `claim_time`). The run goes through the current
    runner (`verify.running.runs`): read from its store when kept there, else computed (on its
    executor) and kept.
    """
    extra = tuple(sorted({float(t) for t in extra_times}))
    return _cached(problem, float(horizon), points, rtol, extra)


def claim_time(claim, problem: Problem, expr) -> float:
    """A time a claim defines (a window end such as S002-L2's t_1), evaluated on ``problem``
    exactly as `verify.check` evaluates it, so that it can be passed as a saved time."""
    from theory.bridge import flatten

    expr = claim.substituted(expr)
    flat, _ = flatten(expr)
    inst = instance_values(problem)
    return float(flat.xreplace({s: inst[s.name] for s in flat.free_symbols}))


def until(tr: Trajectory, t_end: float) -> Trajectory:
    """The run (and its companion) restricted to the saved times <= ``t_end``.

    For claims whose window runs to infinity but whose quantities lose their meaning below
    float64's resolution (a PL ratio once L/L(0) is under ~1e-12, THEORY N-5): the check
    then covers [start, t_end] and says nothing about later times.
    """
    return tr.first(int(np.count_nonzero(tr.t <= t_end)))


# -- evidence for ensemble claims --------------------------------------------------------------
@dataclass(frozen=True)
class Sample:
    """Independent instances of one setting, for PROBABILITY claims.

    Each probability in the claim (a vocabulary name such as ``PGoodInit``) is
    estimated by the frequency of its instance indicator over ``problems``.

    Attributes
    ----------
    problems
        The instances (`numerics.Problem`), at least one, stored as a tuple. The claim's
        other instance quantities (sizes, ...) must be equal across them: a probability
        is estimated at fixed sizes. The verdict names the first one's content hash.
    description
        A label for the sample, for its reader (the check does not use it).
    """

    problems: tuple
    description: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "problems", tuple(self.problems))
        if not self.problems:
            raise ValueError("problems: a Sample needs at least one Problem")


@dataclass(frozen=True)
class ScalingData:
    """Measurements of ``quantity`` against ``variable`` (x may repeat: replicates).

    ``fixed`` holds the values of the other instance quantities the claim's
    right-hand side mentions (held fixed along the series).

    Attributes
    ----------
    variable
        The name of the instance quantity the series varies (the claim's scaling
        variable, such as ``n``).
    x
        The values of ``variable``, one per measurement (stored as floats; repeated
        values are replicates).
    y
        The measured values of ``quantity``, one per entry of ``x`` (equal lengths).
    quantity
        The name of the measured quantity, as the claim's left-hand side names it.
    fixed
        Values (by name) of the other quantities the claim's right-hand side mentions,
        held fixed along the series; the law's fitted constants need none.
    description
        A label for the series; the verdict's `verify.Where` names it (else the number
        of values of ``variable``).
    toward
        None (the law over the measured range), ``"0"`` or ``"inf"``: the law is claimed
        to leading order as ``variable`` goes there ("O(eta) as eta -> 0"), so the fit
        carries one correction of the next order, relative: log y = c + beta log f(x) +
        gamma z with z = x**correction_order (``"0"``) or x**-correction_order (``"inf"``).
        A correction the claim allows then no longer tilts the fitted exponent
        (`verify.engine.scaling.fit_power_law`); a correction that is not small over the
        measured range leaves the check INCONCLUSIVE.
    correction_order
        The order of that correction (default 1: a series in eta, as a step size's; an
        n -> infinity law corrected at n**-1/2 says 0.5). It is part of the model the
        verdict rests on, and its reason says it.
    """

    variable: str
    x: tuple
    y: tuple
    quantity: str
    fixed: dict = field(default_factory=dict)
    description: str = ""
    toward: str | None = None
    correction_order: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "x", tuple(float(v) for v in self.x))
        object.__setattr__(self, "y", tuple(float(v) for v in self.y))
        if len(self.x) != len(self.y):
            raise ValueError(f"x, y: need equal lengths, got {len(self.x)} and {len(self.y)}")
        if self.toward not in (None, "0", "inf"):
            raise ValueError(f"toward: None, '0' or 'inf', got {self.toward!r}")
        if not (isinstance(self.correction_order, int | float) and self.correction_order > 0):
            raise ValueError(f"correction_order: a number > 0, got {self.correction_order!r}")

