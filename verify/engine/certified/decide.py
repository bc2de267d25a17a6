"""PROVED and DISPROVED: a claim decided on the certified tube of a run, not on its floats.

`certify_claim` builds the run's tube (`numerics.certify.certify`), writes the claim as the
certificate holds it (`verify.engine.certified.spec.claim_spec`) and decides it there with the
claim evaluator (`numerics.certify.claims.decide`): the same call the checker makes on
the file, so ``python -m numerics.certify FILE`` re-derives the verdict from the file
alone. Anything the tube does not decide, and any claim or run the certificate does not
cover, is UNCERTIFIED with the reason; the float verdict stands. PROVED is a statement
about this instance and this run's horizon, not about the theorem.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field

from numerics.certify import CertifyError, NotCertifiable, Tube, certify
from numerics.certify.claims import ClaimError, decide
from numerics.certify.quantities import NotEnclosed
from theory.claim import Claim
from verify.engine.certified.spec import claim_spec


class CertifiedOutcome(enum.StrEnum):
    """What the certified layer concluded (kept apart from the four float outcomes)."""

    PROVED = "PROVED"
    DISPROVED = "DISPROVED"
    UNCERTIFIED = "UNCERTIFIED"


@dataclass(frozen=True)
class Certification:
    """A claim on a certified tube: the outcome, why, the time it was decided at, and the
    certificate's record (arithmetic, order, steps, radii, the instance's hash, the file
    when written)."""

    claim_id: str
    outcome: CertifiedOutcome
    reason: str
    t: float | None = None
    record: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["outcome"] = self.outcome.value
        return d

    def __str__(self) -> str:
        at = "" if self.t is None else f" at t={self.t:.6g}"
        rec = self.record
        cert = (f" [certified tube: {rec.get('steps')} steps, radius <= "
                f"{rec.get('max_radius', float('nan')):.3g} to t={rec.get('end', 0):.6g}]"
                if rec.get("steps") else "")
        return f"{self.claim_id} {self.outcome.value}{at}: {self.reason}{cert}"


def certify_claim(claim: Claim, traj, tube: Tube | None = None, file=None) -> Certification:
    """Decide ``claim`` on the certified tube of ``traj`` (built with
    `numerics.certify.certify` unless given); write the certificate, with the claim and
    its verdict, to ``file`` when given. Never raises for a run or claim it cannot
    certify: UNCERTIFIED says why (and the file then holds the tube alone).

    The run is read in the loss convention the claim's formulas are written for
    (`verify.engine.run_context.in_claim_convention`, as the float checks read it): the tube is
    the flow of that L, at its times, so that the L (and t) the certificate decides on are
    the claim's. A ``tube`` of the run in another convention is not used (it is rebuilt)."""
    from verify.engine.run_context import in_claim_convention
    from verify.engine.verdict import CheckError

    try:
        traj = in_claim_convention(claim, traj)
    except CheckError as exc:
        return Certification(claim.id, CertifiedOutcome.UNCERTIFIED, str(exc))
    if tube is not None and tube.instance.loss_scale != float(traj.problem.loss_scale):
        tube = None
    try:
        tube = certify(traj) if tube is None else tube
    except (NotCertifiable, CertifyError) as exc:
        return Certification(claim.id, CertifiedOutcome.UNCERTIFIED, str(exc))
    record = {**tube.record, "instance": tube.instance.hash,
              "instance_numbers": "exact: computed in Arb from the instance's float64 values",
              "complete": tube.complete, "stopped": tube.why}
    try:
        spec = claim_spec(claim, float(traj.t[-1]))
    except (NotEnclosed, ClaimError) as exc:
        spec, decision = None, None
        out = Certification(claim.id, CertifiedOutcome.UNCERTIFIED, str(exc))
    else:
        decision = decide(spec, tube)
        out = Certification(claim.id, CertifiedOutcome(decision.outcome), decision.reason,
                            decision.t)
        if decision.tail is not None:
            record["tail"] = decision.tail.to_json()
    if file is not None:
        record["file"] = str(tube.write(file, spec, decision))
    return Certification(out.claim_id, out.outcome, out.reason, out.t, record)


__all__ = ["Certification", "CertifiedOutcome", "certify_claim"]
