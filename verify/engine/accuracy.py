"""The accuracy ladder: how an undecided exact-flow run is re-run more accurately.

The rungs above a run's own tolerance (`ladder`): the exact flow at rtol 1e-12, then
1e-13, then `numerics.HighPrecisionFlow` at 30 digits where that method supports the run
(p (n + d) <= its ``max_size`` and no sliding mode in the float64 run). `finest_float64`
says whether a run is already on the last float64 rung. `verify.engine.escalation` climbs
the ladder; `verify.engine.check_run` reads it to say how accurate a run was.
"""

from __future__ import annotations

from dataclasses import dataclass

from numerics import ExactFlow, HighPrecisionFlow, Trajectory

# float64 rungs after the default tolerance, finest last (below ~1e-13 DOP853's error
# control meets float64's own rounding)
FLOAT64_RTOLS = (1e-12, 1e-13)
HIGH_PRECISION_DIGITS = 30
DEFAULT_BUDGET = 2  # the two float64 rungs; 3 adds the high-precision run where it applies
MAX_BUDGET = 3


@dataclass(frozen=True)
class Rung:
    """One more accurate way to run an instance."""

    method: object
    label: str


def ladder(tr: Trajectory, budget: int = MAX_BUDGET) -> list[Rung]:
    """The rungs above ``tr``'s own accuracy (empty for methods without one), at most
    ``budget``; the high-precision rung only with a budget of ``MAX_BUDGET`` (it is slow:
    mpmath), never in place of a float64 rung already passed."""
    if tr.method != ExactFlow.name:
        return []
    options = dict(tr.options)
    rtol = float(options.get("rtol", 1e-10))
    rungs = [Rung(ExactFlow(**{**options, "rtol": r}), f"the exact flow at rtol {r:g}")
             for r in FLOAT64_RTOLS if r < rtol]
    pr = tr.problem
    slid = tr.filippov_mask is not None and bool(tr.sliding.any())
    hp = HighPrecisionFlow(digits=HIGH_PRECISION_DIGITS)
    if budget >= MAX_BUDGET and pr.p * (pr.n + pr.d) <= hp.max_size and not slid:
        rungs.append(Rung(hp, f"the high-precision flow at {HIGH_PRECISION_DIGITS} digits"))
    return rungs[:budget]


def finest_float64(tr: Trajectory) -> bool:
    """Whether ``tr`` is as accurate as a float64 run gets here: the exact flow at the
    finest tolerance of the ladder, or the high-precision flow (whose quantities are still
    measured in float64)."""
    if tr.method == "high_precision_flow":
        return True
    return tr.method == "exact_flow" and float(tr.options.get("rtol", 1.0)) <= FLOAT64_RTOLS[-1]
