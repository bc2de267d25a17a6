"""`Verdict`: the outcome of checking one claim on evidence, as data."""

from __future__ import annotations

import enum
import math
from dataclasses import asdict, dataclass, field

from verify.errors import InputError


class CheckError(InputError):
    """The claim cannot be evaluated on this evidence (bad input, not a verdict)."""


class Outcome(enum.StrEnum):
    """The four outcomes of checking a claim on evidence.

    A string enum: ``Outcome.HOLDS == "HOLDS"``, so a `Verdict.counts` keyed by outcome can
    also be read with the outcome's name.

    HOLDS
        The relation holds with a margin larger than its numerical error.
    VIOLATED
        The relation fails by more than its numerical error.
    INAPPLICABLE
        An assumption of the claim fails on this instance: the claim says nothing here.
    INCONCLUSIVE
        The margin is within the numerical error, or the run is not trusted: no decision.
    """

    HOLDS = "HOLDS"
    VIOLATED = "VIOLATED"
    INAPPLICABLE = "INAPPLICABLE"
    INCONCLUSIVE = "INCONCLUSIVE"


# Reasons of an INCONCLUSIVE verdict that a more accurate run can decide
# (`verify.engine.escalation`): the margin within the numerical error, an identity not yet
# known finely enough.
WITHIN_ERROR = "the margin is within the numerical error"
TOO_COARSE = "too coarse to confirm an identity"
# every time named, some of them only for this run's accuracy (the loss within its error of
# 0, the margin within this run's error): a finer run may decide them
ALL_NAMED = "every saved time of the window is below"
ESCALATABLE = (WITHIN_ERROR, TOO_COARSE, ALL_NAMED)


# When several instances are combined, the most informative outcome wins.
_SEVERITY = {
    Outcome.VIOLATED: 3,
    Outcome.INCONCLUSIVE: 2,
    Outcome.HOLDS: 1,
    Outcome.INAPPLICABLE: 0,
}


@dataclass(frozen=True)
class Where:
    """Where a margin was attained: which instance, which seed, which time.

    Attributes
    ----------
    instance
        The instance's name: its family, parameters and a short hash of them ("" if none).
    seed
        The random seed of the instance's initialisation (None when not seeded).
    t
        The time (flow time, or the abscissa of a scaling fit) of the reported point; None
        for a check without one.
    part
        Which part of a composite relation (e.g. one side of a conjunction) was binding.
    """

    instance: str = ""
    seed: int | None = None
    t: float | None = None
    part: str = ""

    def __str__(self) -> str:
        bits = [self.instance] if self.instance else []
        if self.seed is not None:
            bits.append(f"seed={self.seed}")
        if self.t is not None and math.isfinite(self.t):
            bits.append(f"t={self.t:.4g}")
        if self.part:
            bits.append(self.part)
        return " ".join(bits)


@dataclass(frozen=True)
class Verdict:
    """One claim on one instance (or, with ``instances``, on several).

    A verdict is data: compare, hash and serialise it (`to_dict`); ``str(verdict)`` is its
    one-line summary.

    Attributes
    ----------
    claim_id
        The catalogue id of the claim checked (``"S002-T1"``).
    outcome
        The `Outcome`: HOLDS, VIOLATED, INAPPLICABLE or INCONCLUSIVE.
    margin
        Signed room of the relation: positive means the claim holds with that much to spare,
        in the units of the checked relation (for event times, time units). NaN when there
        is none (e.g. INAPPLICABLE).
    error
        The numerical error the margin was compared with: an upper bound of the evidence's
        error in the relation's units (NaN when none applies). A verdict whose ``|margin|``
        is within ``error`` is INCONCLUSIVE.
    where
        The `Where` the worst margin was attained.
    reason
        Why the outcome is what it is, in words (the failing assumption, the undecided
        times, the fitted exponent ...).
    observed
        For scaling and event-time checks, the measured value (the fitted exponent; the
        event time), else None.
    predicted
        The value the claim predicts for ``observed`` (the claimed exponent; the event
        time's bound), else None.
    method
        How the evidence was made or judged ("exact_flow", "Monte Carlo", "power-law fit").
    instances
        For a verdict combined over several instances, the per-instance verdicts (the
        combined outcome is the most severe, its margin the worst among those); else ().
    window
        The range (first, last) of saved times the verdict covers; None for checks without
        a time window.
    unresolved
        The saved times inside the window that no run decided (below the rounding of the
        relation's formula, within the error of the finest float64 run, or at an exactly
        zero loss), and times a loss floor left out: a HOLDS with ``unresolved`` holds at
        every other time of the window.
    accuracy
        How the deciding run was made when the check re-ran the instance more accurately
        (`verify.engine.escalation`), else "".
    band
        For a limit check (`verify.engine.check_limit`), the confidence band (lo, hi) of the
        fitted exponent ``observed``: how fast the sequence approaches the limit; else None.
    figure_data
        Optional plain-JSON evidence a figure of the verdict needs (see
        `verify.engine.figure_data`); not part of equality or hashing.
    certificate
        With ``check(..., certify=True)``: the claim decided on the run's certified tube
        (`verify.engine.certified.Certification.to_dict`: PROVED, DISPROVED or UNCERTIFIED, the
        reason, the time, the certificate's record), kept apart from ``outcome``; None
        otherwise.
    """

    claim_id: str
    outcome: Outcome
    margin: float = float("nan")
    error: float = float("nan")
    where: Where = field(default_factory=Where)
    reason: str = ""
    observed: float | None = None
    predicted: float | None = None
    method: str = ""
    instances: tuple[Verdict, ...] = ()
    window: tuple[float, float] | None = None
    unresolved: str = ""
    accuracy: str = ""
    band: tuple[float, float] | None = None
    figure_data: dict | None = field(default=None, compare=False, hash=False, repr=False)
    certificate: dict | None = field(default=None, compare=False, hash=False)

    @property
    def counts(self) -> dict[Outcome, int]:
        """How many instances came out each way, keyed by `Outcome` (every outcome
        present, zeros included); a verdict on one instance counts itself."""
        members = self.instances or (self,)
        out = {o: 0 for o in Outcome}
        for v in members:
            out[v.outcome] += 1
        return out

    @property
    def tolerance(self) -> float:
        """Deprecated name of `error` (kept for packs written before 0.1.0's rename)."""
        import warnings

        warnings.warn("Verdict.tolerance is deprecated: use Verdict.error (the same number)",
                      DeprecationWarning, stacklevel=2)
        return self.error

    def to_dict(self) -> dict:
        """Plain JSON: every field, the outcome as its name, instances as dicts."""
        d = asdict(self)
        d["outcome"] = self.outcome.value
        d["instances"] = [v.to_dict() for v in self.instances]
        return d

    def _repr_html_(self) -> str:
        """Jupyter shows a verdict as a small table (outcome, margin against error, where)."""
        import html

        cells = [("claim", self.claim_id), ("verdict", self.outcome.value),
                 ("instances", str(len(self.instances) or 1)),
                 ("worst margin", f"{self.margin:.4g}"),
                 ("numerical error", f"{self.error:.2g}"), ("where", str(self.where)),
                 ("reason", self.reason), ("method", self.method)]
        rows = "".join(f"<tr><th style='text-align:left'>{k}</th><td>{html.escape(v)}</td>"
                       "</tr>" for k, v in cells if v)
        return f"<table>{rows}</table>"

    def __str__(self) -> str:
        n = len(self.instances) or 1
        margin = "" if math.isnan(self.margin) else f", worst margin {self.margin:.3g}"
        tol = "" if math.isnan(self.error) else f" (numerical error {self.error:.2g})"
        where = f" at {self.where}" if str(self.where) else ""
        reason = f": {self.reason}" if self.reason else ""
        head = f"{self.claim_id} {self.outcome.value} on {n} instance(s)"
        extra = ""
        if self.window is not None and not self.instances:
            extra += f"; window t in [{self.window[0]:.4g}, {self.window[1]:.4g}]"
        if self.unresolved:
            extra += f"; {self.unresolved}"
        if self.accuracy:
            extra += f"; decided by {self.accuracy}"
        if self.certificate:
            extra += f"; {certified_text(self.certificate, self.outcome)}"
        return f"{head}{margin}{tol}{where}{reason}{extra}"


def certified_text(cert: dict, float_outcome) -> str:
    """How a verdict shows its certified outcome (``cert``: `Certification.to_dict`) beside
    its float outcome: where the float check found the claim's assumptions unmet
    (INAPPLICABLE) and the tube decided it anyway, both are said, since the certificate
    decides the inequality on this instance's flow and reads no assumption."""
    at = "" if cert.get("t") is None else f" at t={cert['t']:.6g}"
    text = f"certified: {cert['outcome']}{at} ({cert['reason']})"
    if (getattr(float_outcome, "value", float_outcome) == "INAPPLICABLE"
            and cert["outcome"] in ("PROVED", "DISPROVED")):
        text += ("; the certificate decides the statement on this instance's flow only: "
                 "the claim's assumptions are not met here (the float check: INAPPLICABLE), "
                 "so it is no evidence for or against the theorem")
    return text


def combine(claim_id: str, verdicts: list[Verdict]) -> Verdict:
    """One verdict for many instances: the worst outcome, the worst margin among those."""
    if not verdicts:
        raise ValueError("combine: no verdicts to combine")
    worst_outcome = max(verdicts, key=lambda v: _SEVERITY[v.outcome]).outcome
    same = [v for v in verdicts if v.outcome is worst_outcome]
    with_margin = [v for v in same if not math.isnan(v.margin)]
    pick = min(with_margin, key=lambda v: v.margin) if with_margin else same[0]
    return Verdict(
        claim_id=claim_id,
        outcome=worst_outcome,
        margin=pick.margin,
        error=pick.error,
        where=pick.where,
        reason=pick.reason,
        observed=pick.observed,
        predicted=pick.predicted,
        method=pick.method,
        band=pick.band,
        instances=tuple(verdicts),
        unresolved=_members_note(verdicts, "unresolved", "name saved times no float64 run "
                                 "decides"),
        accuracy=_members_note(verdicts, "accuracy", "were decided by a more accurate "
                               "re-run"),
        figure_data=pick.figure_data,
    )


def _members_note(verdicts: list[Verdict], field: str, what: str) -> str:
    """A combined verdict's note on its instances' ``field``: how many carry one, and the
    first of them (one instance: its note as it is)."""
    notes = [getattr(v, field) for v in verdicts if getattr(v, field)]
    if not notes:
        return ""
    if len(verdicts) == 1:
        return notes[0]
    return f"{len(notes)} of {len(verdicts)} instances {what} (first: {notes[0]})"
