"""Escalation: an instance whose verdict is undecided because its margin lies within the
numerical error is re-run more accurately, rung by rung, before it counts as undecided.

The ladder of an exact-flow run (`numerics.ExactFlow`, default rtol 1e-10): the same
method at rtol 1e-12, then 1e-13 (each with its companion at 10x the tolerance, as
always), then `numerics.HighPrecisionFlow` at 30 digits where that method supports the
run (p (n + d) <= its ``max_size`` and no sliding mode in the float64 run, which it does
not integrate). Each rung re-runs the same problem on the same saved times and checks
the claim again with `verify.check`; the first decided verdict is kept and says which
rung decided it (`Verdict.accuracy`). ``budget`` bounds the rungs tried per instance.

Other methods have no ladder: gradient descent's step is part of the question asked
(a statement about the flow checked with ``--method gd`` at a step whose error swamps it
stays undecided), and a closed form or a high-precision run is already the most
accurate run there is.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

from numerics import Trajectory
from verify.engine.accuracy import (  # noqa: F401  (the ladder is read here by its users)
    DEFAULT_BUDGET,
    FLOAT64_RTOLS,
    HIGH_PRECISION_DIGITS,
    MAX_BUDGET,
    Rung,
    ladder,
)
from verify.engine.check_run import check_one as _check_one
from verify.engine.verdict import ESCALATABLE, Outcome, Verdict
from verify.running import runs as run_service

_CACHE: OrderedDict[tuple, Trajectory] = OrderedDict()
_CACHE_SIZE = 2  # escalated runs of up to 8,001 saved times (with companions): memory


def escalatable(verdict: Verdict) -> bool:
    """Undecided only because the margin is within the numerical error (or an identity is
    not yet known finely enough): a more accurate run can decide it."""
    return (verdict.outcome is Outcome.INCONCLUSIVE
            and any(verdict.reason.startswith(r) or r in verdict.reason for r in ESCALATABLE))


def rerun(tr: Trajectory, rung: Rung) -> Trajectory:
    """``tr``'s problem re-run by ``rung`` on the same saved times (memoised by the problem,
    the saved times and the rung's method with all its options). The run goes through the
    process's runner (`verify.running.runs`): under ``pytest verify --verify-store`` it is
    kept in the store as it finishes, so that a stopped paper profile does not redo it."""
    key = (tr.problem.content_hash, tr.t.tobytes(), rung.label,
           tuple(sorted(rung.method.options().items())))
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    out = run_service.simulate(tr.problem, rung.method, tr.t)
    _CACHE[key] = out
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return out


def escalate(tr: Trajectory, decide, undecided, budget: int = DEFAULT_BUDGET):
    """``decide(run)`` on ``tr``, then on the rungs of its ladder (at most ``budget``) while
    ``undecided(result)``. Returns (result, run, note): the result on the finest run tried,
    that run, and what was done ("" when nothing was re-run; the rung that gave the
    result, or the one that failed to finish)."""
    result, run, note = decide(tr), tr, ""
    for tried, rung in enumerate(ladder(tr, budget), start=1):
        if not undecided(result):
            break
        candidate = rerun(tr, rung)
        if not candidate.status.ok:  # the finer run failed (step limit, chattering): stop
            note = (f"{note + '; ' if note else ''}{rung.label} did not finish "
                    f"({candidate.status.name})")
            break
        result, run = decide(candidate), candidate
        note = f"{rung.label} (re-run {tried} of at most {budget})"
    return result, run, note


def check_escalating(claim, tr: Trajectory, budget: int = DEFAULT_BUDGET,
                     check_one=None) -> tuple[Verdict, Trajectory]:
    """The verdict of ``claim`` on ``tr``, re-running the instance up the ladder while the
    verdict is undecided by its numerical error (`escalate`). The verdict says which run
    gave it (`Verdict.accuracy`) when one was re-run."""
    check_one = _check_one if check_one is None else check_one
    verdict, run, note = escalate(tr, lambda r: check_one(claim, r),
                                  lambda v: escalatable(v), budget)
    return (replace(verdict, accuracy=note) if note else verdict), run


def clear_cache() -> None:
    _CACHE.clear()
