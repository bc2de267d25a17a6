"""The catalogue's claims on a recorded run: which apply to one run, their verdicts, and
where each first fails.

A recorded run is one trajectory, so the claims it can decide are those stated along one
run (pointwise bounds, conserved quantities, trapping regions, identities and event
times); a probability, a scaling law or a claim in free variables needs an ensemble or a
grid, which a record is not, and is listed as such rather than checked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from numerics.trajectory import Trajectory
from theory.claim import Claim, Kind
from verify.errors import InputError
from verify.verdict import Outcome, Verdict

#: the kinds of claim one run decides
RUN_KINDS = (Kind.POINTWISE, Kind.CONSERVED, Kind.TRAPPING, Kind.IDENTITY, Kind.EVENT_TIME)


def select(names) -> tuple[tuple[Claim, ...], list[str]]:
    """The claims ``names`` asks for (claim ids such as ``S002-L1``, or paper names such as
    ``S002``: every claim of that paper), checkable on one run, in the order given; and a
    line for each asked-for claim that one run cannot decide. An unknown name is an
    InputError listing what exists."""
    import theory
    from theory.suggest import did_you_mean

    every = theory.claims()
    by_id = {c.id: c for c in every}
    papers = sorted({c.paper for c in every})
    chosen: list[Claim] = []
    skipped: list[str] = []
    for name in names:
        if name in by_id:
            group = [by_id[name]]
        elif name in papers:
            group = [c for c in every if c.paper == name]
        else:
            near = did_you_mean(name, [*papers, *by_id])
            raise InputError(f"CLAIM {name!r}: not a claim id or a paper; "
                             f"{near + ' (' if near else ''}an id from `gfverify claims` or "
                             f"one of the papers {', '.join(papers)}{')' if near else ''}")
        for claim in group:
            if claim in chosen:
                continue
            why = _not_on_one_run(claim)
            if why:
                skipped.append(f"{claim.id}: {why}")
            else:
                chosen.append(claim)
    return tuple(chosen), skipped


def _not_on_one_run(claim: Claim) -> str:
    if not claim.checkable:
        return f"not checkable ({claim.not_checkable_reason})"
    if claim.kind not in RUN_KINDS:
        return f"a {claim.kind.value}: decided on an ensemble or a grid, not on one run"
    return ""


@dataclass(frozen=True)
class RunVerdict:
    """One claim on one recorded run: the verdict and the first saved time at which the
    claim fails beyond the numerical error (None when it never does, or for an event
    time, whose verdict is one comparison).

    Attributes
    ----------
    verdict
        The claim's `verify.Verdict` on the run.
    first_failure
        The first saved time at which a relation of the claim fails by more than its
        numerical error; None when the verdict is not VIOLATED or is an event time's.
    """

    verdict: Verdict
    first_failure: float | None

    def row(self, run: str) -> dict:
        """A flat row (the CSV columns of ``gfverify check --csv``)."""
        v = self.verdict
        return {"run": run, "claim": v.claim_id, "verdict": v.outcome.value,
                "worst_margin": _number(v.margin), "error": _number(v.error),
                "at_t": v.where.t, "first_failure": self.first_failure,
                "window": "" if v.window is None else f"{v.window[0]:.6g}..{v.window[1]:.6g}",
                "method": v.method, "reason": v.reason}


def _number(x) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def check_run(claims, tr: Trajectory) -> list[RunVerdict]:
    """Each claim checked on the recorded run ``tr`` (`verify.check`), with where it first
    fails."""
    from verify.check import check

    out = []
    for claim in claims:
        verdict = check(claim, tr)
        out.append(RunVerdict(verdict, first_failure(claim, tr, verdict)))
    return out


def first_failure(claim: Claim, tr: Trajectory, verdict: Verdict) -> float | None:
    """The first saved time of the verdict's window at which one of the claim's relations
    fails by more than its numerical error (the check's own margins), or None."""
    if verdict.outcome is not Outcome.VIOLATED or claim.kind is Kind.EVENT_TIME:
        return None
    from verify.run_context import relation_margins

    lo, hi = verdict.window if verdict.window is not None else (-math.inf, math.inf)
    inside = (tr.t >= lo) & (tr.t <= hi)
    first = math.inf
    for _, margin, error in relation_margins(claim, tr):
        failing = np.flatnonzero(inside & (margin < -error))
        if failing.size:
            first = min(first, float(tr.t[failing[0]]))
    return first if math.isfinite(first) else verdict.where.t


def table_lines(results: list[RunVerdict]) -> list[str]:
    """The verdicts as an aligned text table (claim, verdict, worst margin and its error,
    where, first failure) with each undecided verdict's reason underneath."""
    head = ("claim", "verdict", "worst margin (error)", "at t", "first fails")
    rows = [head]
    notes = []
    for r in results:
        v = r.verdict
        margin = "" if math.isnan(v.margin) else f"{v.margin:.3g}"
        if margin and not math.isnan(v.error):
            margin += f" ({v.error:.2g})"
        at = "" if v.where.t is None or not math.isfinite(v.where.t) else f"{v.where.t:.4g}"
        first = "" if r.first_failure is None else f"t = {r.first_failure:.4g}"
        rows.append((v.claim_id, v.outcome.value, margin, at, first))
        if v.outcome in (Outcome.INCONCLUSIVE, Outcome.INAPPLICABLE) and v.reason:
            notes.append(f"  {v.claim_id}: {v.reason}")
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
             for row in rows]
    return lines + (["", "not decided:", *notes] if notes else [])
