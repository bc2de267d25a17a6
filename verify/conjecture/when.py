"""An instance-dependent time for ``--at-t``: a number, an expression in instance numbers
(``3*log(1/lam)/Dplus``, CEL23's ``T1``), or one that uses the time of a run's event
(``first(L(t) <= L(0)/2)``, ``2*first(NormW(t) >= 1)``); and a window ``--window
"A, B"`` whose ends are such times (``B`` may be ``oo``).

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
from verify.language.expressions import ExpressionError, parse_time, split_pair


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
        from verify.engine.check_run import event_time, problem_scalar

        expr = self.expr
        if self.event is not None:
            te = event_time(self._event_claim(), tr)
            if not math.isfinite(te):
                return math.inf
            expr = expr.xreplace({S.t_conv: sp.Float(te, 30)})
        value = problem_scalar(self._event_claim(), problem, expr)
        return float(value)

    def _event_claim(self) -> Claim:
        """A claim carrying the event (how `verify.engine.check_run.event_time` reads it)."""
        return Claim(id="at-t", title=self.text, kind=Kind.EVENT_TIME,
                     source=Source("user", "--at-t", Provenance.INFERRED),
                     statement=sp.Ge(S.t_conv, 0, evaluate=False),
                     event=self.event if self.event is not None else sp.Ge(S.t, 0,
                                                                          evaluate=False),
                     event_time=S.t_conv, **ANY_MODEL)


@dataclass(frozen=True)
class Window:
    """``--window "A, B"``: the statement compared at every saved time from A to B, each end
    a number or an `AtTime` (B may be ``oo``: the end of the run). The run saves both ends.

    Attributes
    ----------
    text
        The window as given (``"0, log(1/lam)/Dplus"``).
    start, end
        The ends: floats or `AtTime` (``end`` is ``math.inf`` for ``oo``).
    """

    text: str
    start: float | AtTime
    end: float | AtTime

    @property
    def uses_event(self) -> bool:
        return any(isinstance(e, AtTime) and e.uses_event for e in (self.start, self.end))

    def values(self, problem: Problem, tr: Trajectory | None = None) -> tuple[float, float]:
        """The ends on ``problem`` (on its run ``tr`` for an event)."""
        return tuple(e.value(problem, tr) if isinstance(e, AtTime) else e
                     for e in (self.start, self.end))


def parse_window(text) -> Window:
    """``--window``'s value: two times separated by a comma, read as `parse_at_time` reads
    one (the second may be ``oo``); the first must not exceed the second where both are
    numbers."""
    text = str(text).strip()
    parts = split_pair(text)
    if parts is None:
        raise ExpressionError(f"--window {text!r}: two times separated by a comma, e.g. "
                              "'0, log(1/lam)/Dplus' or 'first(L(t) <= L(0)/2), oo'")
    ends = []
    for k, part in enumerate(parts):
        if k == 1 and part.strip() in ("oo", "inf"):
            ends.append(math.inf)
            continue
        ends.append(parse_at_time(part, f"--window {text!r}: its {('start', 'end')[k]}"))
    start, end = ends
    if isinstance(start, float) and not (math.isfinite(start) and start >= 0):
        raise ExpressionError(f"--window {text!r}: its start must be a time >= 0")
    if isinstance(start, float) and isinstance(end, float) and end < start:
        raise ExpressionError(f"--window {text!r}: its end comes before its start")
    return Window(text, start, end)


def parse_at_time(text, option: str = "--at-t") -> float | AtTime:
    """``--at-t``'s value: a float when it is a number, else an `AtTime`. A time that
    uses a trajectory quantity other than through ``first(...)``, or ``t``, is refused."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        return float(text)
    text = str(text).strip()
    try:
        return float(text)
    except ValueError:
        pass
    try:
        expr, event = parse_time(text)
    except ExpressionError as exc:
        raise ExpressionError(f"{option} {text!r}: {exc}") from None
    if expr.has(S.t) or expr.atoms(sp.core.function.AppliedUndef):
        raise ExpressionError(f"{option} {text!r}: a time is a number, an expression in "
                              "instance numbers (n, lam, Dplus, ...) or uses a run's event "
                              "through first(...), not a quantity of time")
    if event is None and expr.has(S.t_conv):
        raise ExpressionError(f"{option} {text!r}: t_conv is defined by first(...)")
    return AtTime(text, expr, event)


__all__ = ["AtTime", "Window", "parse_at_time", "parse_window"]
