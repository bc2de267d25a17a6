"""A conjecture's statement on recorded runs (``gfverify conjecture EXPR --run FILE...``).

No search: each run is one instance, checked as a family instance is
(`verify.conjecture.instance`: the statement as a claim over the run's saved times, the
same margins and numerical error), and the result names the first run on which the
statement fails, with the first saved time it fails at.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from verify.engine.verdict import Outcome, Verdict
from verify.exit_codes import EXIT_FOUND, EXIT_OK, EXIT_UNDECIDED


@dataclass
class RunCheck:
    """The statement on one recorded run."""

    path: str
    verdict: Verdict
    t: float | None = None
    lhs: float | None = None
    rhs: float | None = None
    first_failure: float | None = None
    departure: str = ""

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
        if self.departure:
            text += (f"\n      the run is not gradient descent ({self.departure}): the "
                     "statement is checked on its recorded numbers as they are")
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
                "at the last saved time", "at_t": "at the given time",
                "window": "at every saved time of the window"}[self.mode]
        head = (f"statement: {self.statement}\n"
                f"on {len(self.checks)} recorded run(s), {when}; no search")
        verdict = {EXIT_FOUND: "COUNTEREXAMPLE (a recorded run violates it)",
                   EXIT_UNDECIDED: "UNDECIDED (no run violates it; some runs do not decide "
                                   "it within their numerical error)",
                   EXIT_OK: "NO COUNTEREXAMPLE on these runs"}[self.exit_code]
        return "\n".join([head, *(c.line() for c in self.checks), f"verdict: {verdict}"])


def on_runs(expr: str, paths, mode: str = "for_all_t", at_t=None,
            loss_floor: float | None = None, reference: bool = True) -> RunsResult:
    """The statement ``expr`` checked on each recorded run in ``paths``.

    ``at_t``: with mode ``"at_t"`` a number or a `verify.conjecture.when.AtTime` (an
    expression in instance numbers, or a run's event through ``first(...)``); with mode
    ``"window"`` a `verify.conjecture.when.Window`. A time is the run's own (steps times
    its lr); one between two saved times is decided by interpolation, its error counted."""
    from numerics.recorded import recorded
    from verify.conjecture.instance import first_positive, floored, tightest_point
    from verify.conjecture.statement import ConjectureError, UndefinedHere, statement_of
    from verify.conjecture.when import AtTime, Window
    from verify.engine.escalation import check_escalating
    from verify.engine.verdict import Where
    from verify.language.expressions import ExpressionError
    from verify.recorded.claims import first_failure

    try:
        statement = statement_of(expr)
    except ExpressionError as exc:
        raise ConjectureError(f"conjecture: {exc}") from None
    if mode == "window" and not isinstance(at_t, Window):
        raise ConjectureError(f"--window: expected a window 'A, B', got {at_t!r}")
    result = RunsResult(statement.text, mode)
    for path in paths:  # every file and time checked before any run is made
        plain = recorded(path, reference=False)
        for label, value in _fixed_times(mode, at_t, plain):
            if not (plain.t[0] <= value <= plain.t[-1]):
                raise ConjectureError(f"{label} {value:g}: outside the run {path}'s saved "
                                      f"times [{plain.t[0]:g}, {plain.t[-1]:g}]")
    for path in paths:
        tr = recorded(path, reference=reference)
        try:
            statement.require_defined(tr.problem)
        except UndefinedHere as exc:
            verdict = Verdict("conjecture", Outcome.INAPPLICABLE, where=Where(str(path)),
                              reason=f"the statement is undefined on this run: {exc}")
            result.checks.append(RunCheck(str(path), verdict))
            continue
        when = at_t
        if isinstance(at_t, AtTime):
            when = at_t.value(tr.problem, tr)
        elif isinstance(at_t, Window):
            when = at_t.values(tr.problem, tr)
        times = when if isinstance(when, tuple) else (when,)
        if any(w is not None and not (math.isfinite(w) or w == math.inf and k == 1)
               for k, w in enumerate(times)):
            verdict = Verdict("conjecture", Outcome.INCONCLUSIVE, where=Where(str(path)),
                              reason=f"the time {at_t.text!r} is not defined on this run "
                              "(its event does not happen by the last saved time)")
            result.checks.append(RunCheck(str(path), verdict))
            continue
        claim = statement.claim(mode, when, float(tr.t[-1]), first_positive(tr))
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
                                      else first, departure=tr.departure))
    return result


def _fixed_times(mode: str, at_t, run) -> list[tuple[str, float]]:
    """The times that need no run of the dynamics (``--at-t T`` or an expression in
    instance numbers, a window's start), on the recorded ``run``: checked against its saved
    times before anything runs. A time the run's instance does not define is a
    ConjectureError naming it."""
    from verify.conjecture.statement import ConjectureError
    from verify.conjecture.when import AtTime, Window
    from verify.engine.verdict import CheckError

    def value(label, when):
        if isinstance(when, (int, float)):
            return [(label, float(when))]
        if isinstance(when, AtTime) and not when.uses_event:
            try:
                return [(label, when.value(run.problem))]
            except CheckError as exc:
                raise ConjectureError(f"{label} {when.text!r}: {exc} (the recorded run "
                                      f"{run.provenance.get('recorded', '')})") from None
        return []

    if mode == "at_t":
        return value("--at-t", at_t)
    if isinstance(at_t, Window):
        # a window on a record is the saved times inside it: only its start must be there
        return value(f"--window {at_t.text!r}: its start", at_t.start)
    return []
