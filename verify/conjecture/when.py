"""An instance-dependent time for ``--at-t``: a number, an expression in instance numbers
(``3*log(1/lam)/Dplus``, CEL23's ``T1``), or one that uses the time of a run's event
(``first(L(t) <= L(0)/2)``, ``2*first(NormW(t) >= 1)``).

The text is parsed with the conjecture vocabulary (never evaluated as Python). An
expression in instance numbers is evaluated on each instance before its run, so the run
saves that time; a time that uses ``first(EVENT)`` is read off a first run (the first
saved time the event holds, as an event-time check reads it) and the instance is run
again with that time saved, so the statement is compared at exactly that time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import sympy as sp

from numerics import Problem, Trajectory
from theory import symbols as S
from theory.claim import ANY_MODEL, Claim, Kind, Provenance, Source
from verify.expressions import ExpressionError, _parse_tree, _Reader


@dataclass(frozen=True)
class AtTime:
    """When ``--at-t`` compares a statement, on each instance (`parse_at_time`).

    Attributes
    ----------
    text
        The time as given (``"log(1/lam)/Dplus"``).
    expr
        The time as sympy, in instance quantities and ``t_conv`` (the event's time) when
        ``event`` is set.
    event
        The event of ``first(EVENT)`` (a relation), or None.
    """

    text: str
    expr: sp.Basic
    event: sp.Basic | None = None

    @property
    def uses_event(self) -> bool:
        return self.event is not None

    def value(self, problem: Problem, tr: Trajectory | None = None) -> float:
        """The time on ``problem`` (on its run ``tr`` when it uses an event: inf when the
        event did not happen there)."""
        from verify.check_run import event_time, problem_scalar

        expr = self.expr
        if self.event is not None:
            te = event_time(self._event_claim(), tr)
            if not math.isfinite(te):
                return math.inf
            expr = expr.xreplace({S.t_conv: sp.Float(te, 30)})
        value = problem_scalar(self._event_claim(), problem, expr)
        return float(value)

    def _event_claim(self) -> Claim:
        """A claim carrying the event (how `verify.check_run.event_time` reads it)."""
        return Claim(id="at-t", title=self.text, kind=Kind.EVENT_TIME,
                     source=Source("user", "--at-t", Provenance.INFERRED),
                     statement=sp.Ge(S.t_conv, 0, evaluate=False),
                     event=self.event if self.event is not None else sp.Ge(S.t, 0,
                                                                          evaluate=False),
                     event_time=S.t_conv, **ANY_MODEL)


def parse_at_time(text) -> float | AtTime:
    """``--at-t``'s value: a float when it is a number, else an `AtTime`. A time that
    uses a trajectory quantity other than through ``first(...)``, or ``t``, is refused."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        return float(text)
    text = str(text).strip()
    try:
        return float(text)
    except ValueError:
        pass
    reader = _Reader(text, allow_infinity=False)
    try:
        expr = reader.expression(_parse_tree(text))
    except ExpressionError as exc:
        raise ExpressionError(f"--at-t {text!r}: {exc}") from None
    if expr.has(S.t) or expr.atoms(sp.core.function.AppliedUndef):
        raise ExpressionError(f"--at-t {text!r}: a time is a number, an expression in "
                              "instance numbers (n, lam, Dplus, ...) or uses a run's event "
                              "through first(...), not a quantity of time")
    if reader.event is None and expr.has(S.t_conv):
        raise ExpressionError(f"--at-t {text!r}: t_conv is defined by first(...)")
    return AtTime(text, expr, reader.event)


__all__ = ["AtTime", "parse_at_time"]
