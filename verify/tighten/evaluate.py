"""The instances of one tightening: each built from the family, simulated with the
saved times its statement needs, measured (`verify.tighten.extreme`), memoised by its
parameters and kept in the store.

Saved times: those the statement names (L(0), L(5)), the finite ends of a claim's window
and, when both ends are finite, ``WINDOW_POINTS`` times across it (the extreme over the
window is taken on them); for an event, ``EVENT_POINTS`` times between the event and the
saved time before it. The statement on a run (`Evaluator.claim_on`) is cut at the loss
floor when one is set, and a window an event opens (S001's t_2) is fixed on the run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import sympy as sp

from numerics import ProblemError
from numerics.provenance import environment
from verify.conjecture.instance import MethodSpec, run_family_instance
from verify.conjecture.statement import Statement, UndefinedHere
from verify.engine.check_run import (
    above_loss_floor,
    at_event,
    event_time,
    inapplicable_instance,
    problem_scalar,
)
from verify.engine.escalation import escalate
from verify.engine.verdict import CheckError
from verify.instances import families as fam_mod
from verify.instances.run_cost import CostError
from verify.language import limits
from verify.running.progress import Progress
from verify.tighten.extreme import DECIDED, INAPPLICABLE, UNDECIDED, Extreme, instance_extreme
from verify.tighten.result import Searched
from verify.tighten.statement import Tightenable, TightenError
from verify.tighten.store import Store, params_key

EVENT_POINTS = 1001  # saved times added between an event and the saved time before it
WINDOW_POINTS = 201  # saved times added across a claim's window when both its ends are finite


class Evaluator:
    """Simulates and measures family instances, memoised by parameters (and stored)."""

    def __init__(self, tight: Tightenable, family: fam_mod.Family, mode: str,
                 at_t: float | None, method: MethodSpec, points: int,
                 store: Store | None, bar: Progress | None, loss_floor: float | None = None,
                 assumptions: tuple = ()):
        self.tight, self.family, self.mode, self.at_t = tight, family, mode, at_t
        self.assumptions = assumptions  # --assume: an instance failing one is not run
        self.loss_floor = loss_floor
        self.method, self.points, self.store, self.bar = method, points, store, bar
        self.seen: dict[str, Searched] = {}
        self.order: list[Searched] = []  # in the order searched (stored ones first)
        self.visited: list[Searched] = []  # what this run asked for, read or simulated
        self.direction = 0  # +1: C bounded below on every decided instance, -1: above
        self.unbuildable: list[tuple[dict, str]] = []
        self.versions = json.dumps(environment(), sort_keys=True)
        if store is not None:
            for row in store.rows():
                s = Searched.from_row(row)
                if s.extreme.status == DECIDED:
                    self.direction = s.extreme.direction
                self.seen[params_key(s.params)] = s
                self.order.append(s)
        self.stored = len(self.order)

    def reference(self):
        return self.tight.proved if self.tight.proved is not None else sp.Integer(1)

    def claim_on(self, tr, value=None):
        """The statement on the run ``tr`` (C = ``value``, or left free): the window cut at
        the loss floor, and a window opened by an event (S001's t_2) fixed on the run."""
        t_end = float(tr.t[-1]) if len(tr.t) else 0.0
        claim = self.tight.claim_for(self.mode, self.at_t, t_end, value)
        if claim.event is not None and not self.tight.event_time:
            try:  # (never happened, or undefined here: the check then says so)
                claim = at_event(claim, tr) or claim
            except CheckError:
                pass
        return self.floored(claim, tr)

    def floored(self, claim, tr):
        """``claim`` compared only where L(t)/L(0) >= the loss floor, when one is set."""
        return claim if self.loss_floor is None else above_loss_floor(claim, tr,
                                                                      self.loss_floor)

    def _extra_times(self, problem, params: Mapping) -> list[float]:
        """Times that must be saved: those the statement names (L(0), L(5)), the finite
        ends of a claim's window (t_1 for a claim at t = t_1) and ``WINDOW_POINTS`` times
        across the part of a finite window the run reaches (its horizon)."""
        if self.tight.parsed is not None:
            return _fixed_times(self.tight)
        ends = []
        for end in self.tight.claim.window:
            value = math.nan
            if end != sp.oo:
                try:
                    value = problem_scalar(self.tight.claim, problem, end)
                except CheckError:  # defined by the run (an event): not known before it
                    pass
            ends.append(value)
        out = [v for v in ends if math.isfinite(v) and v >= 0]
        lo, hi = ends
        if len(out) == 2:  # a finite window: the extreme over time, finely
            hi = min(hi, self.family.horizon(problem, dict(params)))
            if hi > lo:
                out += list(np.linspace(lo, hi, WINDOW_POINTS))
        return sorted(set(out))

    def run(self, params: Mapping):
        problem = self.family.make(dict(params))
        extra = self._extra_times(problem, params)
        at_t = self.at_t if self.mode == "at_t" else None
        tr, horizon = run_family_instance(self.family, problem, params, self.method,
                                          self.points, extra, at_t)
        if self.tight.event_time:  # the event's time to the grid's resolution: refine there
            t_event = event_time(self.claim_on(tr), tr)
            if math.isfinite(t_event) and t_event > 0:
                k = int(np.searchsorted(tr.t, t_event))
                t_before = float(tr.t[max(k - 1, 0)])
                fine = list(np.linspace(t_before, t_event, EVENT_POINTS))
                tr, horizon = run_family_instance(self.family, problem, params, self.method,
                                                  self.points, sorted({*extra, *fine}), at_t)
        return problem, tr, horizon

    def __call__(self, params: Mapping) -> Searched | None:
        key = params_key(dict(params))
        if key in self.seen:
            self.visited.append(self.seen[key])
            return self.seen[key]
        try:
            limits.problem_size(dict(params))
        except limits.LimitError as exc:
            raise TightenError(str(exc)) from None
        try:
            problem, tr, horizon = self._measure(params)
        except ProblemError as exc:
            self.unbuildable.append((dict(params), str(exc)))
            return None
        except CostError as exc:  # drawn above --max-cost: another draw (fixed: bad input)
            if set(self.family.size_params()) <= set(self.family.fixed_values):
                raise TightenError(str(exc)) from None
            self.unbuildable.append((dict(params), str(exc)))
            return None
        searched = self._record(params, problem, tr, horizon)
        self.visited.append(searched)
        if self.bar is not None:
            self.bar.advance()
        return searched

    def _before_run(self, problem) -> str | None:
        """Why the instance says nothing, known before simulating it (or None)."""
        if self.assumptions:
            claim = replace(self.tight.claim_for(self.mode, self.at_t, 1.0, None),
                            setting=self.assumptions)
            why = inapplicable_instance(claim, problem)
            if why is not None:
                return why
        if self.tight.parsed is not None:  # a user's text: a part undefined here
            try:
                Statement(self.tight.text, self.tight.parsed).require_defined(problem)
            except UndefinedHere as exc:
                return f"the statement is undefined here: {exc}"
            return None
        return inapplicable_instance(self.tight.claim, problem)

    def _measure(self, params):
        problem = self.family.make(dict(params))
        why = self._before_run(problem)
        if why is not None:
            return problem, why, 0.0
        return self.run(params)

    def _record(self, params, problem, tr, horizon) -> Searched:
        if isinstance(tr, str):
            ext = Extreme(INAPPLICABLE, note=tr)
        else:
            ext = self._escalated_extreme(tr)
        if ext.status == DECIDED:
            if self.direction and ext.direction != self.direction:
                raise TightenError(
                    f"{self.tight.text}: the constant is bounded "
                    f"{'below' if self.direction > 0 else 'above'} on other instances and "
                    f"{'below' if ext.direction > 0 else 'above'} on this one "
                    f"({dict(params)}): its coefficient changes sign across the family; "
                    f"restate it or fix a parameter (--param)")
            self.direction = ext.direction
        s = Searched(params=dict(params), problem_hash=problem.content_hash, extreme=ext,
                     horizon=float(horizon))
        self.seen[params_key(s.params)] = s
        self.order.append(s)
        if self.store is not None:
            self.store.add(s.row(self.store.query, self.versions))
        return s


    def _escalated_extreme(self, tr) -> Extreme:
        """The instance's extreme, re-running the instance up `verify.engine.escalation`'s ladder
        while the constant is not resolved on it (the same rule as a check's: a value known
        only within its numerical error is re-run more accurately, within the budget)."""
        def decide(run):
            return instance_extreme(self.tight, self.claim_on(run), run, self.reference())

        def unresolved(ext):
            return ext.status == UNDECIDED and ext.note.startswith(RESOLVABLE)

        ext, _, note = escalate(tr, decide, unresolved, self.method.escalate)
        return replace(ext, note=f"{ext.note}{'; ' if ext.note else ''}by {note}") if note \
            else ext


class RunsEvaluator(Evaluator):
    """Instances that are given runs, by name (``{"run": NAME}``): a claim stated for an
    experiment no family draws (S001-F9 on E-001-3's SGD run) is tightened on that run.
    Nothing is drawn; the runs' own error estimates count (an exact-flow run may still be
    re-run more accurately by `verify.engine.escalation`, as a family's is)."""

    def __init__(self, tight: Tightenable, runs: Mapping, mode: str, at_t: float | None,
                 method: MethodSpec):
        super().__init__(tight, None, mode, at_t, method, 0, None, None)
        self.runs = dict(runs)

    def run(self, params: Mapping):
        tr = self.runs[params["run"]]
        return tr.problem, tr, float(tr.t[-1]) if len(tr.t) else 0.0

    def _measure(self, params):
        problem, tr, horizon = self.run(params)
        why = self._before_run(problem)
        return (problem, why, 0.0) if why is not None else (problem, tr, horizon)


# the notes of an undecided instance that a more accurate run can resolve
RESOLVABLE = ("the constant is not resolved", "the event time's error makes C uncertain")


def _fixed_times(tight: Tightenable) -> list[float]:
    return Statement(tight.text, tight.parsed).fixed_times()


__all__ = ["EVENT_POINTS", "Evaluator", "RunsEvaluator", "WINDOW_POINTS"]
