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
from verify.engine.verdict import Outcome, Verdict, Where
from verify.errors import InputError

#: the kinds of claim one run decides
RUN_KINDS = (Kind.POINTWISE, Kind.CONSERVED, Kind.TRAPPING, Kind.IDENTITY, Kind.EVENT_TIME)


def select(names) -> tuple[tuple[Claim, ...], list[str]]:
    """The claims ``names`` asks for (claim ids such as ``S002-L1``, or paper names such as
    ``S002``: every claim of that paper; ``CF``: the closed-form identities), checkable on
    one run, in the order given; and a line for each asked-for claim that one run cannot
    decide. An unknown name is an InputError listing what exists."""
    import theory
    from theory.registry import groups
    from theory.suggest import did_you_mean

    every = theory.claims()
    by_id = {c.id: c for c in every}
    papers = groups()
    chosen: list[Claim] = []
    skipped: list[str] = []
    for name in names:
        if name in by_id:
            group = [by_id[name]]
        elif name in papers:
            group = list(theory.claims(paper=name))
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
    if claim.kind is Kind.LIMIT:
        from theory.limits import limit_forms

        if not all(form.in_time_only for form in limit_forms(claim)):
            return ("a limit in lam (or a rate in it): decided on a sequence of runs at "
                    "decreasing lam, not on one run")
    elif claim.kind not in RUN_KINDS:
        return f"a {claim.kind.value}: decided on an ensemble or a grid, not on one run"
    free = free_variables(claim)
    if free:
        return (f"an identity in free variables ({', '.join(free)}), checked symbolically "
                "and on grids of points, not on a run")
    return ""


def free_variables(claim: Claim) -> list[str]:
    """The free variables of a claim's statement (vocabulary terms of kind "variable",
    such as CF-2's a_j and w_1): a statement in them is about every value, not a run."""
    from theory.symbols import VOCABULARY

    names = {s.name for s in claim.statement.free_symbols}
    return sorted(n for n in names if n in VOCABULARY
                  and VOCABULARY[n].sort.value == "variable")


def is_hypothesis(claim: Claim) -> bool:
    """Whether the claim is one of its paper's hypotheses (an assumption ``PAPER-Ak``, a
    property of the instance): on a user's run, it says whether the run's data and start
    meet the hypothesis; where they do not, the claims that assume it are INAPPLICABLE,
    and no theorem has failed."""
    label = claim.id.split("-", 1)[-1]
    return (claim.instance_property and label[:1] == "A" and label[1:].isdigit())


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
    hypothesis
        Whether the claim is one of its paper's hypotheses (`is_hypothesis`): shown as met
        or not met, never counted as a failed theorem.
    """

    verdict: Verdict
    first_failure: float | None
    hypothesis: bool = False

    def row(self, run: str) -> dict:
        """A flat row (the CSV columns of ``gfverify check --csv``)."""
        v = self.verdict
        return {"run": run, "claim": v.claim_id,
                "role": "hypothesis" if self.hypothesis else "claim",
                "verdict": v.outcome.value,
                "worst_margin": _number(v.margin), "error": _number(v.error),
                "at_t": v.where.t, "first_failure": self.first_failure,
                "window": "" if v.window is None else f"{v.window[0]:.6g}..{v.window[1]:.6g}",
                "method": v.method, "reason": v.reason}


def _number(x) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def check_run(claims, tr: Trajectory) -> list[RunVerdict]:
    """Each claim checked on the recorded run ``tr`` (`verify.check`), with where it first
    fails."""
    from verify.engine.check import check

    out = []
    for claim in claims:
        evidence, why_not = limit_evidence(claim, tr)
        verdict = check(claim, evidence) if not why_not else Verdict(
            claim.id, Outcome.INCONCLUSIVE, where=Where(tr.problem.content_hash),
            reason=why_not, method=tr.method)
        out.append(RunVerdict(verdict, first_failure(claim, tr, verdict),
                              hypothesis=is_hypothesis(claim)))
    return out


def limit_evidence(claim: Claim, tr: Trajectory):
    """What ``claim`` is checked on: for a statement about a limit t -> infinity that a
    pack reads off one run (`verify.language.measures.LIMIT_QUANTITIES`: BF25's LossInf, S000's
    MuInf), the estimate of it at the end of ``tr`` (read in the claim's convention), whose
    error counts how much it still moves there, on a run that has visibly converged (its
    gradient norm at the end within its own error of 0); a line saying what the run lacks
    when it has not; else the run itself. Returns ``(evidence, why_not)``."""
    import sympy as sp

    from theory.symbols import VOCABULARY
    from verify.engine.run_context import evaluate, in_claim_convention
    from verify.language.measures import LIMIT_QUANTITIES, ROUNDOFF_ULPS

    names = sorted({s.name for s in claim.substituted(claim.statement).free_symbols}
                   & set(LIMIT_QUANTITIES))
    if len(names) != 1 or tr.departure:
        return tr, ""
    from verify.engine.check_run import inapplicable_instance

    if inapplicable_instance(claim, tr.problem):  # the check says which hypothesis fails
        return tr, ""
    run = in_claim_convention(claim, tr)
    grad = VOCABULARY["GradNormSq"].obj(sp.Symbol("t", nonnegative=True, real=True))
    values, _ = evaluate(claim, run, grad)
    norms = np.sqrt(np.abs(values))
    relative = float(norms[-1] / np.max(norms)) if np.max(norms) > 0 else 0.0
    at_rounding = ROUNDOFF_ULPS * 2.0 * run.problem.unit_roundoff
    if not relative <= at_rounding:
        return tr, (f"{names[0]} is a limit t -> infinity, read off a run that has converged: "
                    f"this one has not (|grad L| at its last saved time t = {run.t[-1]:.4g} "
                    f"is {relative:.2g} of its largest value on the run, where a converged "
                    f"run has it at its rounding, {at_rounding:.2g}); record the run until "
                    "its gradient stops moving the loss")
    try:
        return LIMIT_QUANTITIES[names[0]](run), ""
    except ValueError as exc:
        return tr, f"{names[0]} (a limit t -> infinity) could not be read off this run: {exc}"


def first_failure(claim: Claim, tr: Trajectory, verdict: Verdict) -> float | None:
    """The first saved time of the verdict's window at which one of the claim's relations
    fails by more than its numerical error (the check's own margins), or None."""
    if verdict.outcome is not Outcome.VIOLATED or claim.kind in (Kind.EVENT_TIME, Kind.LIMIT):
        return None
    from verify.engine.run_context import in_claim_convention, relation_margins

    tr = in_claim_convention(claim, tr)  # the times the verdict speaks in
    lo, hi = verdict.window if verdict.window is not None else (-math.inf, math.inf)
    inside = (tr.t >= lo) & (tr.t <= hi)
    first = math.inf
    for _, margin, error in relation_margins(claim, tr):
        failing = np.flatnonzero(inside & (margin < -error))
        if failing.size:
            first = min(first, float(tr.t[failing[0]]))
    return first if math.isfinite(first) else verdict.where.t


HYPOTHESIS_WORDS = {Outcome.HOLDS: "met", Outcome.VIOLATED: "not met",
                    Outcome.INCONCLUSIVE: "undecided", Outcome.INAPPLICABLE: "not applicable"}


def table_lines(results: list[RunVerdict]) -> list[str]:
    """The verdicts as an aligned text table (claim, verdict, worst margin and its error,
    where, first failure) with each undecided verdict's reason underneath; the papers'
    hypotheses (`is_hypothesis`) in a block of their own, met or not met."""
    head = ("claim", "verdict", "worst margin (error)", "at t", "first fails")
    rows = [head]
    notes = []
    hypotheses = []
    for r in results:
        v = r.verdict
        if r.hypothesis:
            why = (f": {v.reason}" if v.reason else f": {v.where.part} fails by "
                   f"{-v.margin:.3g}" if v.outcome is Outcome.VIOLATED and v.where.part
                   else "") if v.outcome is not Outcome.HOLDS else ""
            hypotheses.append(f"  {v.claim_id}: {HYPOTHESIS_WORDS[v.outcome]}{why}")
            continue
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
             for row in rows] if len(rows) > 1 else []
    if notes:
        lines += ["", "not decided:", *notes]
    if hypotheses:
        lines += ["", "hypotheses (the papers' assumptions on this run's data and start; "
                  "where one is not met, the claims that assume it are INAPPLICABLE):",
                  *hypotheses]
    return lines
