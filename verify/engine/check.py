"""`check(claim, evidence) -> Verdict`: a claim's statement against trajectories.

Numerical error of a checked quantity = |value on the run - value on its
companion run| (the integration error, see `Trajectory.error_of`) + the
round-off of the formula (first-order propagation of each measured quantity's
round-off through the sympy expression). A margin inside that error gives
INCONCLUSIVE; an assumption that fails on the instance gives INAPPLICABLE; a
run that did not finish cleanly or is not finite gives INCONCLUSIVE with the
simulation's own message, never HOLDS.

This module dispatches on the evidence; the checks live in `verify.engine.check_run`
(trajectories), `verify.engine.check_ensemble` (samples and scaling series) and
`verify.engine.check_grid` (points), on the values `verify.engine.run_context` computes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from numerics import Trajectory
from theory.claim import Claim, Kind
from verify.engine.check_ensemble import check_probability, check_scaling
from verify.engine.check_grid import check_grid
from verify.engine.check_limit import check_limit
from verify.engine.check_run import check_estimate, check_one, event_time, instance_scalar
from verify.engine.escalation import DEFAULT_BUDGET, check_escalating
from verify.engine.evidence import Estimate, Grid, LimitSequence, Sample, ScalingData
from verify.engine.run_context import evaluate, relation_margins
from verify.engine.verdict import CheckError, Verdict, combine


def check(claim: Claim, evidence, escalate: int = DEFAULT_BUDGET,
          certify: bool | str = False) -> Verdict:
    """Check ``claim`` on its evidence.

    ``escalate``: on an exact-flow run, how many more accurate re-runs an instance
    undecided by its numerical error gets before it counts as undecided
    (`verify.engine.escalation`; 0: none). The verdict says which run decided it.

    Evidence: a Trajectory or a list of them (time-resolved claims), a
    `verify.engine.evidence.Sample` of Problems (PROBABILITY claims) or a
    `verify.engine.evidence.ScalingData` series (SCALING claims), a `verify.engine.evidence.Grid` of
    points (claims stated in free variables) or a `verify.engine.evidence.Estimate` of a run
    scalar that only a limit defines (with its measured error). A LIMIT claim takes runs
    (one, for a limit t -> infinity; a list at decreasing lam for lam -> 0) or a
    `verify.engine.evidence.LimitSequence` (`verify.engine.check_limit`).

    ``certify`` (a Trajectory of the exact flow): also decide the claim on the run's
    certified tube (`verify.engine.certified`) and attach it as ``verdict.certificate`` (PROVED,
    DISPROVED or UNCERTIFIED, kept apart from the outcome; on an INAPPLICABLE verdict too,
    which then says both); a path writes the certificate file there
    (`python -m numerics.certify FILE` re-verifies it).
    """
    if certify is not False and certify is not None:
        if not isinstance(evidence, Trajectory):
            raise CheckError("certify: only a single Trajectory can be certified")
        verdict = check(claim, evidence, escalate)
        from verify.engine.certified import certify_claim  # INAPPLICABLE too: both are shown

        cert = certify_claim(claim, evidence, file=None if certify is True else certify)
        return replace(verdict, certificate=cert.to_dict())
    if claim.kind is Kind.LIMIT or isinstance(evidence, LimitSequence):
        return check_limit(claim, evidence)
    if isinstance(evidence, Sample):
        return check_probability(claim, evidence)
    if isinstance(evidence, ScalingData):
        return check_scaling(claim, evidence)
    if isinstance(evidence, Grid):
        return check_grid(claim, evidence)
    if isinstance(evidence, Estimate):
        return check_estimate(claim, evidence)
    if isinstance(evidence, Trajectory):
        return _suite_certified(claim, [evidence],
                                check_escalating(claim, evidence, escalate, check_one)[0])
    if isinstance(evidence, Iterable):
        runs = list(evidence)
        verdicts = [check_escalating(claim, tr, escalate, check_one)[0] for tr in runs]
        return _suite_certified(claim, runs, combine(claim.id, verdicts))
    raise CheckError(
        f"evidence: expected a Trajectory or a list of them, got {type(evidence).__name__}"
    )


def _suite_certified(claim: Claim, runs: list, verdict: Verdict) -> Verdict:
    """The verdict with its instances decided on certified tubes too, when the suite runs
    with ``--verify-certify`` (`verify.engine.certified.suite`); else as it is."""
    from verify.engine.certified import suite

    if not suite.active() or not all(isinstance(r, Trajectory) for r in runs):
        return verdict
    return suite.attach(claim, runs, verdict)


__all__ = ["CheckError", "check", "evaluate", "event_time", "instance_scalar",
           "relation_margins"]
