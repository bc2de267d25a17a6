"""One instance of a conjecture's search: the run (exact flow or gradient descent, with
its companion, memoised), the check of the statement on it by `verify.engine.check.check`, and
the tightest point of the relation (margin relative to the size of both sides).
"""


from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
import sympy as sp

from numerics import ExactFlow, Problem, ProblemError, Trajectory
from theory.claim import Claim, Kind
from verify.conjecture.statement import (
    DEFAULT_GD_LR,
    FLOW_RTOL,
    METHODS,
    TINY,
    ConjectureError,
    Statement,
    UndefinedHere,
)
from verify.conjecture.when import AtTime, Window
from verify.engine.check import evaluate, relation_margins
from verify.engine.check_run import above_loss_floor, inapplicable_instance
from verify.engine.escalation import DEFAULT_BUDGET as ESCALATION_BUDGET
from verify.engine.escalation import MAX_BUDGET as MAX_ESCALATION
from verify.engine.escalation import check_escalating
from verify.engine.verdict import CheckError, Outcome, Verdict, Where
from verify.instances import families as fam_mod
from verify.instances import run_cost
from verify.instances.run_cost import DEFAULT_MAX_COST
from verify.language import limits
from verify.running import runs


# -- simulation ------------------------------------------------------------------------------
@dataclass(frozen=True)
class MethodSpec:
    """How instances are simulated: the exact flow, or gradient descent with step ``lr``.

    Values out of range raise `verify.conjecture.ConjectureError`, worded for the command
    line's options (``--method``, ``--lr``, ``--escalate``).

    Attributes
    ----------
    name
        ``"flow"`` (the exact gradient flow, `numerics.ExactFlow`) or ``"gd"`` (gradient
        descent).
    lr
        Gradient descent's step (positive; only with ``name="gd"``); None for the default
        step (see `step`).
    coordinates
        The exact flow's coordinates: ``"auto"`` or a name of
        `numerics.coordinates.COORDINATES`; `for_family` sets the family's
        (`verify.instances.families.Family.flow_coordinates`).
    escalate
        How many more accurate re-runs an instance undecided by its numerical error gets
        before it counts as undecided (`verify.engine.escalation`; 0: none).
    max_cost
        The largest estimated cost (seconds, by the family's cost model,
        `verify.instances.run_cost`) of one exact-flow run a search starts (``--max-cost``).
    """

    name: str = "flow"
    lr: float | None = None
    coordinates: str = "auto"  # the exact flow's (from the family: `Family.coordinates`)
    # re-runs of an instance undecided by its numerical error (`verify.engine.escalation`)
    escalate: int = ESCALATION_BUDGET
    max_cost: float = DEFAULT_MAX_COST

    def __post_init__(self) -> None:
        if (isinstance(self.escalate, bool) or not isinstance(self.escalate, int)
                or not 0 <= self.escalate <= MAX_ESCALATION):
            raise ConjectureError(f"--escalate: a whole number of re-runs from 0 to "
                                  f"{MAX_ESCALATION}, got {self.escalate!r}")
        if self.name not in METHODS:
            raise ConjectureError(f"--method: {self.name!r} is not one of {METHODS}")
        if self.lr is not None and not (math.isfinite(self.lr) and self.lr > 0):
            raise ConjectureError(f"--lr: must be a positive number, got {self.lr!r}")
        if self.lr is not None and self.name != "gd":
            raise ConjectureError("--lr: only used with --method gd (the exact flow has no step)")
        if (isinstance(self.max_cost, bool) or not isinstance(self.max_cost, int | float)
                or not self.max_cost > 0):  # (inf: no limit)
            raise ConjectureError(f"--max-cost: a duration > 0, got {self.max_cost!r}")

    @property
    def step(self) -> float:
        """Gradient descent's step (``lr``, else the default step, 1e-2)."""
        return self.lr if self.lr is not None else DEFAULT_GD_LR

    def method(self):
        """The `numerics` method object that simulates an instance (`numerics.ExactFlow` at
        the search's tolerance, or gradient descent with `step`)."""
        if self.name == "flow":
            return ExactFlow(rtol=FLOW_RTOL, coordinates=self.coordinates)
        try:
            from numerics.descent import GradientDescent
        except ImportError as exc:  # being written alongside; say so plainly
            raise ConjectureError(f"--method gd: gradient descent is not available in this "
                                  f"installation ({exc}); use --method flow") from None
        return GradientDescent(lr=self.step)

    def for_family(self, family: fam_mod.Family) -> MethodSpec:
        """This method as it runs ``family``'s instances (the exact flow in the family's
        coordinates, `verify.instances.families.Family.coordinates`)."""
        if self.name != "flow" or family.flow_coordinates == self.coordinates:
            return self
        return replace(self, coordinates=family.flow_coordinates)

    def times(self, horizon: float, points: int, extra: list[float]) -> np.ndarray:
        """The times to save: ``points`` equally spaced from 0 to ``horizon`` and the
        ``extra`` ones, sorted and unique; for gradient descent each is rounded to a whole
        number of steps."""
        t = np.concatenate([np.linspace(0.0, horizon, points), extra])
        if self.name == "gd":
            t = self.step * np.rint(t / self.step)
        return np.unique(t)

    def snap(self, at: float) -> float:
        """The saved time nearest ``at`` this method has: a whole number of steps for
        gradient descent, ``at`` itself for the exact flow."""
        return self.step * round(at / self.step) if self.name == "gd" else at

    def cli(self) -> list[str]:
        """The command-line options that select this method (for the reproduce command a
        result prints); empty for the exact flow with the default escalation."""
        more = ([] if self.escalate == ESCALATION_BUDGET
                else ["--escalate", str(self.escalate)])
        if self.max_cost != DEFAULT_MAX_COST:
            more += ["--max-cost", f"{self.max_cost:g}"]
        if self.name == "flow":
            return more
        return ["--method", "gd", "--lr", repr(self.step)] + more


_RUNS: dict[tuple, Trajectory] = {}
_RUN_CACHE_SIZE = 256


def instance_times(horizon: float, method: MethodSpec, points: int,
                   extra_times) -> np.ndarray:
    """The saved times of `run_instance`'s run."""
    return method.times(horizon, points, [x for x in extra_times if x <= horizon])


def run_instance(problem: Problem, horizon: float, method: MethodSpec, points: int,
                 extra_times: list[float]) -> Trajectory:
    """Simulate ``problem`` to ``horizon`` (memoised by content, horizon and method)."""
    key = (problem.content_hash, float(horizon), method, points, tuple(extra_times))
    if key not in _RUNS:
        if len(_RUNS) >= _RUN_CACHE_SIZE:
            _RUNS.pop(next(iter(_RUNS)))
        _RUNS[key] = runs.simulate(problem, method.method(),
                                   instance_times(horizon, method, points, extra_times))
    return _RUNS[key]


def store_runs(planned: Mapping[tuple, runs.RunSpec]) -> int:
    """Run the planned runs (memo key -> `verify.running.runs.RunSpec`) not memoised yet, all at
    once
    through the current runner (parallel tasks on its executor), into `run_instance`'s
    memo; how many were run."""
    todo = [(k, s) for k, s in planned.items() if k not in _RUNS]
    made = runs.current().run_all([s for _, s in todo])
    for (key, _), tr in zip(todo, made, strict=True):
        if len(_RUNS) >= _RUN_CACHE_SIZE:
            _RUNS.pop(next(iter(_RUNS)))
        _RUNS[key] = tr
    return len(todo)


def plan_family_instance(family: fam_mod.Family, problem: Problem, params: Mapping,
                         method: MethodSpec, points: int, extra: list[float],
                         at_t: float | None = None) -> tuple[tuple, runs.RunSpec]:
    """The run `run_family_instance` would make (its memo key and `verify.running.runs.RunSpec`),
    checked against the limits (a CostError above --max-cost), not simulated."""
    horizon = _horizon_within_limits(family, problem, params, method, at_t)
    method = method.for_family(family)
    if at_t is not None:
        extra = sorted({*extra, at_t})
    key = (problem.content_hash, float(horizon), method, points, tuple(extra))
    return key, runs.RunSpec(problem, method.method(),
                             instance_times(horizon, method, points, extra))


def _horizon_within_limits(family, problem, params, method: MethodSpec, at_t) -> float:
    horizon = family.horizon(problem, dict(params))
    if at_t is not None:
        horizon = max(horizon, at_t)
    method = method.for_family(family)
    try:  # the horizon actually run (family rule, --t-max or --at-t): its GD steps, or the
        # exact flow's estimated cost (the family's cost model, `verify.instances.run_cost`)
        if method.name == "gd":
            limits.at_most("horizon / --lr (gradient-descent steps)",
                           horizon / method.step, "gd_steps")
        else:
            run_cost.refuse_above(family.name, params, horizon, method.max_cost)
    except limits.LimitError as exc:
        raise ConjectureError(str(exc)) from None
    return horizon


def run_family_instance(family: fam_mod.Family, problem: Problem, params: Mapping,
                        method: MethodSpec, points: int, extra: list[float],
                        at_t: float | None = None) -> tuple[Trajectory, float]:
    """Simulate one family instance to its horizon (the family's rule, --t-max, or at
    least ``at_t``), within the limits; returns the run and the horizon."""
    horizon = _horizon_within_limits(family, problem, params, method, at_t)
    method = method.for_family(family)
    if at_t is not None:
        extra = sorted({*extra, at_t})
    return run_instance(problem, horizon, method, points, extra), horizon


# -- one instance ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Instance:
    """One checked instance: its parameters, its verdict and both sides where it is decided.

    The point reported is the one that decides the instance: the verdict's own point when
    it is VIOLATED or INCONCLUSIVE; when it HOLDS, the saved time of the window with the
    smallest margin relative to the size of the two sides (where the statement is
    tightest). An instance on which the statement is undefined is INAPPLICABLE, is not
    run, and has no point (None and NaN below).

    Attributes
    ----------
    params
        The family parameters the instance was built from (sizes, scales, seed, ...).
    problem_hash
        The built problem's content hash (`numerics.Problem.content_hash`).
    sizes
        The size parameters among ``params`` (the family's), by name; what a shrink
        makes smaller.
    verdict
        The `verify.Verdict` of the statement checked on the instance's run (after any
        escalation re-runs).
    t
        The time of the reported point; None when there is none.
    lhs
        The left-hand side at that point (the observed event time for an event-time
        statement); None when not evaluated.
    rhs
        The right-hand side at that point (the predicted time for an event-time
        statement); None when not evaluated.
    margin
        The signed margin at that point (positive: the relation holds there), as
        `verify.check` measures it; NaN when the statement is undefined here.
    error
        The numerical error of ``margin``; NaN when the statement is undefined here.
    relative_margin
        ``margin`` divided by the size of the sides (the larger of abs(``lhs``) and
        abs(``rhs``); abs(``rhs``) for an event time): what the search drives down to find
        a counterexample; NaN when it is not defined.
    horizon
        The time the instance was simulated to (0 when it was not run).
    rows
        For an instance drawn from a user's dataset (``--data``), the rows of the file its
        samples are (0-based, in the instance's order); else None.
    """

    params: dict
    problem_hash: str
    sizes: dict
    verdict: Verdict
    t: float | None
    lhs: float | None
    rhs: float | None
    margin: float
    error: float
    relative_margin: float
    horizon: float
    rows: tuple[int, ...] | None = None

    @property
    def outcome(self) -> Outcome:
        """The outcome of the instance's verdict (`verify.Outcome`)."""
        return self.verdict.outcome

    def describe(self) -> str:
        """One line naming the instance: its sizes, its other parameters and its problem
        hash."""
        sizes = " ".join(f"{k}={v}" for k, v in self.sizes.items())
        others = " ".join(f"{k}={value_text(v)}" for k, v in self.params.items()
                          if k not in self.sizes)
        return f"{sizes} {others} [{self.problem_hash}]".strip()


def _rows(problem: Problem) -> tuple[int, ...] | None:
    rows = problem.meta.get("rows")
    return None if rows is None else tuple(int(r) for r in rows)


def value_text(v) -> str:
    return repr(v) if isinstance(v, float) else str(v)


def params_key(params: Mapping) -> tuple:
    """An instance's parameters as a key (of the checker's cache and runs)."""
    return tuple(sorted(params.items()))


class InstanceChecker:
    """Checks the statement on family instances, with a cache keyed by the parameters."""

    def __init__(self, statement: Statement, family: fam_mod.Family, mode: str,
                 at_t: float | None, method: MethodSpec, points: int,
                 pinned: frozenset = frozenset(), loss_floor: float | None = None,
                 assumptions: tuple = ()):
        self.statement, self.family, self.mode = statement, family, mode
        # --assume: instances that fail one are excluded before any run (rejected draws)
        self.assumptions = assumptions
        self.excluded: list[tuple[dict, str]] = []
        self.loss_floor = loss_floor  # compare only where L(t)/L(0) >= this
        self.pinned = pinned  # parameters the user fixed (--param)
        self.at_t, self.method, self.points = at_t, method, points
        self.cache: dict[tuple, Instance | None] = {}
        self.unbuildable: list[tuple[dict, str]] = []
        self.trajectories: dict[tuple, Trajectory] = {}

    def key(self, params: Mapping) -> tuple:
        return params_key(params)

    def __call__(self, params: Mapping) -> Instance | None:
        """The checked instance, or None when the family cannot build it (e.g. no Q-good
        draw) or it fails an assumption (--assume): such draws are rejected by the search
        and never counterexamples."""
        key = self.key(params)
        if key not in self.cache:
            try:
                self.cache[key] = self._check(dict(params))
            except ProblemError as exc:
                self.cache[key] = None
                self.unbuildable.append((dict(params), str(exc)))
            except run_cost.CostError as exc:  # drawn above --max-cost: another draw; the
                # sizes and horizon the user fixed cost that much on any draw: bad input
                if set(self.family.size_params()) <= self.pinned:
                    raise ConjectureError(str(exc)) from None
                self.cache[key] = None
                self.unbuildable.append((dict(params), str(exc)))
            except _Excluded as exc:
                self.cache[key] = None
                self.excluded.append((dict(params), str(exc)))
        return self.cache[key]

    def _assumed(self, problem: Problem) -> None:
        """Raise _Excluded (with the reason) when ``problem`` fails an assumption."""
        if not self.assumptions:
            return
        claim = replace(self.statement.claim(self.mode, self._numeric_at(0.0), 1.0),
                        setting=self.assumptions)
        why = inapplicable_instance(claim, problem)
        if why is not None:
            raise _Excluded(why)

    def trajectory(self, inst: Instance) -> Trajectory:
        return self.trajectories[self.key(inst.params)]

    def plan(self, params: Mapping):
        """The run `_check` would make of ``params``, not made: (memo key,
        `verify.running.runs.RunSpec`);
        None for a draw the search rejects (unbuildable, excluded by --assume, above
        --max-cost); True for one it keeps with no run to plan ahead (undefined there, a
        time that depends on a run, a bad input the search will report)."""
        params = dict(params)
        try:
            limits.problem_size(params)
            problem = self.family.make(params)
            self._assumed(problem)
            self.statement.require_defined(problem)
        except (ProblemError, _Excluded):
            return None
        except (limits.LimitError, UndefinedHere):
            return True
        at_t = self.at_t if self.mode in ("at_t", "window") else None
        if isinstance(at_t, AtTime | Window):
            return True
        extra = list(self.statement.fixed_times())
        if self.mode == "window":
            extra.append(at_t[0])
            at_t = at_t[1] if math.isfinite(at_t[1]) else None
        try:
            return plan_family_instance(self.family, problem, params, self.method,
                                        self.points, sorted(set(extra)), at_t)
        except run_cost.CostError:
            return True if set(self.family.size_params()) <= self.pinned else None
        except ConjectureError:
            return True

    def _check(self, params: dict) -> Instance:
        try:
            limits.problem_size(params)
        except limits.LimitError as exc:
            raise ConjectureError(str(exc)) from None
        problem = self.family.make(params)
        self._assumed(problem)
        sizes = {k: params[k] for k in self.family.size_params() if k in params}
        try:
            self.statement.require_defined(problem)
        except UndefinedHere as exc:
            if exc.names <= self.pinned:  # undefined on every instance: bad input
                raise
            # undefined on this draw only: the statement says nothing here
            verdict = Verdict("conjecture", Outcome.INAPPLICABLE,
                              reason=f"the statement is undefined here: {exc}",
                              where=Where(problem.content_hash, params.get("seed")))
            return Instance(params=params, problem_hash=problem.content_hash,
                        rows=_rows(problem), sizes=sizes,
                            verdict=verdict, t=None, lhs=None, rhs=None, margin=math.nan,
                            error=math.nan, relative_margin=math.nan, horizon=0.0)
        at_t = self.at_t if self.mode in ("at_t", "window") else None
        extra = list(self.statement.fixed_times())
        if isinstance(at_t, AtTime | Window):  # this instance's time(s) (an event: after a run)
            at_t, why = self._time_here(problem, params)
            if why:
                verdict = Verdict("conjecture", why[0], reason=why[1],
                                  where=Where(problem.content_hash, params.get("seed")))
                return Instance(params=params, problem_hash=problem.content_hash,
                                rows=_rows(problem), sizes=sizes, verdict=verdict, t=None,
                                lhs=None, rhs=None, margin=math.nan, error=math.nan,
                                relative_margin=math.nan, horizon=0.0)
        ends = at_t
        if self.mode == "window":  # save both ends; the run reaches a finite end
            extra.append(at_t[0])
            at_t = at_t[1] if math.isfinite(at_t[1]) else None
        tr, horizon = run_family_instance(self.family, problem, params, self.method,
                                          self.points, sorted(set(extra)), at_t)
        t_end = float(tr.t[-1]) if len(tr.t) else horizon
        claim = self.statement.claim(self.mode, ends, t_end, first_positive(tr))
        floor_note = ""
        if self.loss_floor is not None:
            claim, floor_note = floored(claim, tr, self.loss_floor)
        verdict, tr = check_escalating(claim, tr, self.method.escalate)
        if floor_note:
            verdict = replace(verdict, unresolved="; ".join(
                x for x in (verdict.unresolved, floor_note) if x))
        self.trajectories[self.key(params)] = tr
        point = tightest_point(claim, tr, verdict)
        t_at, lhs, rhs, margin, error, rel_margin = point
        return Instance(params=params, problem_hash=problem.content_hash,
                        rows=_rows(problem), sizes=sizes,
                        verdict=verdict, t=t_at, lhs=lhs, rhs=rhs, margin=margin, error=error,
                        relative_margin=float(rel_margin), horizon=horizon)


    def _numeric_at(self, placeholder: float):
        """``at_t`` as numbers (an instance-dependent time or window: ``placeholder``)."""
        if isinstance(self.at_t, Window):
            return (placeholder, placeholder)
        return placeholder if isinstance(self.at_t, AtTime) else self.at_t

    def _time_here(self, problem: Problem, params: dict) -> tuple[float, tuple]:
        """The instance-dependent time on this instance, snapped to gradient descent's
        steps; with (outcome, reason) when the statement cannot be compared there: a time
        the instance does not define or that is not finite and >= 0 (INAPPLICABLE), an
        event that did not happen by the horizon (INCONCLUSIVE)."""
        when = self.at_t
        option = "--window" if isinstance(when, Window) else "--at-t"
        try:
            first = None
            if when.uses_event:
                first, _ = run_family_instance(self.family, problem, params, self.method,
                                               self.points, self.statement.fixed_times())
            values = (when.values(problem, first) if isinstance(when, Window)
                      else (when.value(problem, first),))
        except CheckError as exc:
            return 0.0, (Outcome.INAPPLICABLE, f"{option} {when.text}: {exc}")
        times = (when.start, when.end) if isinstance(when, Window) else (when,)
        if any(isinstance(e, AtTime) and e.uses_event and math.isinf(v)
               for e, v in zip(times, values, strict=True)):
            return 0.0, (Outcome.INCONCLUSIVE, f"{option} {when.text}: the event did not "
                         f"happen by t = {float(first.t[-1]):.4g}")
        # (a window's end may be oo: the end of the run)
        finite_ends = [v for e, v in zip(times, values, strict=True)
                       if not (e is math.inf or (isinstance(e, float) and math.isinf(e)))]
        if not all(math.isfinite(v) and v >= 0 for v in finite_ends):
            shown = ", ".join(f"{v:.4g}" for v in values)
            return 0.0, (Outcome.INAPPLICABLE, f"{option} {when.text} is {shown} on this "
                         f"instance: not a time >= 0")
        if option == "--window" and values[1] < values[0]:
            return 0.0, (Outcome.INAPPLICABLE, f"--window {when.text} is [{values[0]:.4g}, "
                         f"{values[1]:.4g}] on this instance: it ends before it starts")
        snapped = tuple(self.method.snap(v) if self.method.name == "gd" and math.isfinite(v)
                        else v for v in values)
        return (snapped if option == "--window" else snapped[0]), ()


class _Excluded(Exception):
    """An instance that fails an assumption of the search (--assume)."""


def floored(claim: Claim, tr: Trajectory, level: float) -> tuple[Claim, str]:
    """``claim`` compared only where L(t)/L(0) >= ``level`` (`verify.above_loss_floor`), and
    a note naming the saved times left out (empty when none are)."""
    cut = above_loss_floor(claim, tr, level)
    end = float(cut.window[1]) if cut.window[1].is_number else None
    later = tr.t[tr.t > end] if end is not None else tr.t[:0]
    if not later.size:
        return cut, ""
    return cut, (f"t > {end:.4g} not compared: L/L(0) < {level:g} there (--loss-floor), "
                 f"{later.size} saved times")


def tightest_point(claim: Claim, tr: Trajectory, verdict: Verdict):
    """(t, lhs, rhs, margin, error, relative margin) at the point that decides the instance.

    VIOLATED or INCONCLUSIVE: the verdict's own point. HOLDS: the saved time in the window
    with the smallest margin relative to the size of the two sides (where the statement
    is tightest). Margins and errors are `check`'s (`relation_margins`).
    """
    nan = math.nan
    if claim.kind is Kind.EVENT_TIME:
        lhs, rhs = verdict.observed, verdict.predicted
        scale = abs(rhs) if rhs is not None else nan
        rel = verdict.margin / max(scale, TINY) if math.isfinite(scale) else nan
        return verdict.where.t, lhs, rhs, verdict.margin, verdict.error, rel
    t_v = verdict.where.t
    if t_v is None or not math.isfinite(t_v) or not len(tr.t) or math.isnan(verdict.margin):
        return t_v, None, None, verdict.margin, verdict.error, nan
    lo = float(claim.window[0])
    hi = math.inf if claim.window[1] == sp.oo else float(claim.window[1])
    inside = (tr.t >= lo) & (tr.t <= hi)
    if lo == hi and verdict.window == (lo, hi) and not inside.any():
        # an instant between two saved times, decided by interpolation (the check's own
        # margin and error): the two sides interpolated the same way
        for rel in claim.relations():
            if sp.sstr(rel) == verdict.where.part:
                lhs, rhs = (float(np.interp(lo, tr.t, np.broadcast_to(
                    evaluate(claim, tr, side)[0], tr.t.shape))) for side in (rel.lhs, rel.rhs))
                scale = max(abs(lhs), abs(rhs), TINY)
                return lo, lhs, rhs, verdict.margin, verdict.error, verdict.margin / scale
    best = None
    for rel, margin, error in relation_margins(claim, tr):
        lhs = np.broadcast_to(evaluate(claim, tr, rel.lhs)[0], tr.t.shape)
        rhs = np.broadcast_to(evaluate(claim, tr, rel.rhs)[0], tr.t.shape)
        scale = np.maximum(np.maximum(np.abs(lhs), np.abs(rhs)), TINY)
        # (a time whose error is unknown, named by the check, is not a tightest point)
        relative = np.where(inside & np.isfinite(error), margin / scale, np.inf)
        if verdict.outcome is not Outcome.HOLDS:
            if sp.sstr(rel) != verdict.where.part:
                continue
            k = int(np.argmin(np.abs(tr.t - t_v)))
        else:
            k = int(np.argmin(relative))
        cand = (float(relative[k]), float(tr.t[k]), float(lhs[k]), float(rhs[k]),
                float(margin[k]), float(error[k]))
        if best is None or cand[0] < best[0]:
            best = cand
    if best is None:
        return t_v, None, None, verdict.margin, verdict.error, nan
    rel, t, lhs, rhs, margin, error = best
    return t, lhs, rhs, margin, error, rel


def first_positive(tr: Trajectory) -> float:
    """The first saved time after 0: the for-all-t window starts there (at t = 0 the sides of
    a statement such as L(t) <= L(0) coincide exactly, which a check can only call
    inconclusive; ``--at-t 0`` checks the initial state)."""
    return float(tr.t[1]) if len(tr.t) > 1 else 0.0


def relation_named(claim: Claim, part: str) -> sp.Basic:
    for rel in claim.relations():
        if sp.sstr(rel) == part:
            return rel
    return claim.relations()[0]


