"""A conjecture's statement on recorded runs (``gfverify conjecture EXPR --run FILE...``).

No search: each run is one instance, checked as a family instance is
(`verify.conjecture.instance`: the statement as a claim over the run's saved times, the
same margins and numerical error), and the result names the first run on which the
statement fails, with the first saved time it fails at.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from verify.exit_codes import EXIT_FOUND, EXIT_OK, EXIT_UNDECIDED
from verify.verdict import Outcome, Verdict


@dataclass
class RunCheck:
    """The statement on one recorded run."""

    path: str
    verdict: Verdict
    t: float | None = None
    lhs: float | None = None
    rhs: float | None = None
    first_failure: float | None = None

    def line(self) -> str:
        v = self.verdict
        text = f"  {self.path}: {v.outcome.value}"
        if self.lhs is not None and self.rhs is not None and self.t is not None:
            word = "first fails" if v.outcome is Outcome.VIOLATED else "tightest"
            at = self.first_failure if self.first_failure is not None else self.t
            text += (f", {word} at t = {at:.4g}" + (f" (worst at t = {self.t:.4g})"
                     if self.first_failure is not None and self.first_failure != self.t
                     else "") + f": lhs {self.lhs:.6g} vs rhs {self.rhs:.6g}"
                     f" (margin {v.margin:.3g}, error {v.error:.2g})")
        if v.outcome in (Outcome.INCONCLUSIVE, Outcome.INAPPLICABLE) and v.reason:
            text += f"\n      {v.reason}"
        if v.unresolved:
            text += f"\n      {v.unresolved}"
        return text


@dataclass
class RunsResult:
    """What `on_runs` returns: the statement's verdict on each run."""

    statement: str
    mode: str
    checks: list[RunCheck] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        outcomes = {c.verdict.outcome for c in self.checks}
        if Outcome.VIOLATED in outcomes:
            return EXIT_FOUND
        return EXIT_UNDECIDED if Outcome.INCONCLUSIVE in outcomes else EXIT_OK

    def report(self) -> str:
        when = {"for_all_t": "at every saved time after t = 0", "as_t_to_inf":
                "at the last saved time", "at_t": "at the given time"}[self.mode]
        head = (f"statement: {self.statement}\n"
                f"on {len(self.checks)} recorded run(s), {when}; no search")
        verdict = {EXIT_FOUND: "COUNTEREXAMPLE (a recorded run violates it)",
                   EXIT_UNDECIDED: "UNDECIDED (no run violates it; some runs do not decide "
                                   "it within their numerical error)",
                   EXIT_OK: "NO COUNTEREXAMPLE on these runs"}[self.exit_code]
        return "\n".join([head, *(c.line() for c in self.checks), f"verdict: {verdict}"])


def on_runs(expr: str, paths, mode: str = "for_all_t", at_t: float | None = None,
            loss_floor: float | None = None, reference: bool = True) -> RunsResult:
    """The statement ``expr`` checked on each recorded run in ``paths``."""
    from numerics.recorded import recorded
    from verify.conjecture.instance import first_positive, floored, tightest_point
    from verify.conjecture.statement import ConjectureError, UndefinedHere, statement_of
    from verify.escalation import check_escalating
    from verify.expressions import ExpressionError
    from verify.recorded.claims import first_failure
    from verify.verdict import Where

    try:
        statement = statement_of(expr)
    except ExpressionError as exc:
        raise ConjectureError(f"conjecture: {exc}") from None
    result = RunsResult(statement.text, mode)
    for path in paths:  # every file and --at-t checked before any run is made
        plain = recorded(path, reference=False)
        if mode == "at_t" and not (plain.t[0] <= at_t <= plain.t[-1]):
            raise ConjectureError(f"--at-t {at_t:g}: outside the run {path}'s saved times "
                                  f"[{plain.t[0]:g}, {plain.t[-1]:g}]")
    for path in paths:
        tr = recorded(path, reference=reference)
        try:
            statement.require_defined(tr.problem)
        except UndefinedHere as exc:
            verdict = Verdict("conjecture", Outcome.INAPPLICABLE, where=Where(str(path)),
                              reason=f"the statement is undefined on this run: {exc}")
            result.checks.append(RunCheck(str(path), verdict))
            continue
        claim = statement.claim(mode, at_t, float(tr.t[-1]), first_positive(tr))
        note = ""
        if loss_floor is not None:
            claim, note = floored(claim, tr, loss_floor)
        verdict, tr = check_escalating(claim, tr, 0)
        if note:
            verdict = replace(verdict, unresolved="; ".join(
                x for x in (verdict.unresolved, note) if x))
        t, lhs, rhs, _, _, _ = tightest_point(claim, tr, verdict)
        first = first_failure(claim, tr, verdict)
        result.checks.append(RunCheck(str(path), verdict, t, lhs, rhs,
                                      None if first is None or not math.isfinite(first)
                                      else first))
    return result
