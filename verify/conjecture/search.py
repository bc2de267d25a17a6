"""Checking new conjectures: state it, search it, shrink the counterexample.

``conjecture("L(t) <= L(0)*exp(-t/n)", "orthogonal")`` reads the statement
safely (`verify.language.expressions`), turns it into a `Claim` (POINTWISE over a time
window, or EVENT_TIME for ``first(EVENT) <= BOUND``) and checks it with
`verify.engine.check.check` on simulated instances of the family, so a conjecture is
judged with exactly the numerical-error logic of the catalogue's claims: a
violation within numerical error is INCONCLUSIVE, never a counterexample.

Search: hypothesis draws the family's parameters (``Family.params_strategy``),
``hypothesis.target`` steers it towards the smallest relative margin (margin
divided by the size of the two sides where it is attained), and the first
VIOLATED instance stops the search. Shrinking is ours, not hypothesis's (each
trial is a simulation, so its number is bounded by ``shrink_budget``): each size
parameter in turn (n, p, d, ... in the family's order; the seed and the floats
stay) is lowered to the smallest value among a few candidates (lo, lo + 1, a
quarter and half of the way, current - 1) that still violates, until no size
moves.

Modes: ``for_all_t`` (every saved time of the horizon), ``at_t`` (one time),
``as_t_to_inf`` (the last saved time, the end of the family's horizon, by which
the family's runs have converged). An event-time statement ignores the mode.

A Python callable may stand for the statement: ``f(trajectory)`` returns
``(lhs, rhs)`` arrays over the saved times, read ``lhs <= rhs``, or one array
read ``>= 0``. It is checked through the same `check`, as a temporary trajectory
quantity whose error is the companion difference plus the round-off floor.

The parts: `verify.conjecture.statement` (the statement as a claim), `.instance`
(one instance: its run and check), `.result` (what the search returns); this
module searches and shrinks. Their public names are importable from here.
"""


from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, reject, settings, target
from hypothesis import seed as hypothesis_seed
from hypothesis.errors import Unsatisfiable

from verify.conjecture.instance import (
    Instance,
    InstanceChecker,
    MethodSpec,
    first_positive,
    run_instance,
    store_runs,
)
from verify.conjecture.result import ConjectureResult, replay_call, replay_command
from verify.conjecture.statement import (
    DEFAULT_BUDGET,
    DEFAULT_GD_LR,
    DEFAULT_POINTS,
    DEFAULT_SHRINK_BUDGET,
    METHODS,
    MODES,
    ConjectureError,
    Statement,
    UndefinedHere,
    callable_quantities,
    check_search_options,
    parse_assumptions,
    statement_of,
)
from verify.conjecture.when import AtTime, Window, parse_at_time, parse_window
from verify.engine.escalation import DEFAULT_BUDGET as ESCALATION_BUDGET
from verify.engine.verdict import Outcome
from verify.instances import families as fam_mod
from verify.instances import run_cost
from verify.instances.run_cost import DEFAULT_MAX_COST
from verify.language import limits
from verify.language.expressions import ExpressionError
from verify.running import runs
from verify.running.profiles import pinned_hypothesis_draws


# -- search and shrink ---------------------------------------------------------------------------
class _Found(Exception):
    def __init__(self, instance: Instance):
        super().__init__("counterexample")
        self.instance = instance


def _search(checker: InstanceChecker, budget: int,
            seed: int) -> tuple[list[Instance], Instance | None]:
    tried: list[Instance] = []
    seen: set[tuple] = set()

    @settings(max_examples=budget, database=None, deadline=None, derandomize=False,
              phases=(Phase.generate, Phase.target), verbosity=Verbosity.quiet,
              suppress_health_check=list(HealthCheck), print_blob=False,
              report_multiple_bugs=False)
    @given(checker.family.params_strategy())
    def probe(params):
        inst = checker(params)
        if inst is None:
            reject()
        key = checker.key(params)
        if key not in seen:
            seen.add(key)
            tried.append(inst)
        if math.isfinite(inst.relative_margin):
            target(-inst.relative_margin, label="-(relative margin)")
        if inst.outcome is Outcome.VIOLATED:
            raise _Found(inst)

    try:
        hypothesis_seed(seed)(probe)()
    except _Found as found:
        return tried, found.instance
    except Unsatisfiable:
        if checker.excluded and not checker.unbuildable:
            params, why = checker.excluded[0]
            raise ConjectureError(f"--assume: no instance of family {checker.family.name!r} "
                                  f"drawn satisfied the assumptions ({len(checker.excluded)} "
                                  f"excluded; e.g. {params}: {why})") from None
        why = (f"; e.g. {checker.unbuildable[0][0]}: {checker.unbuildable[0][1]}"
               if checker.unbuildable else "")
        raise ConjectureError(f"--param: the family {checker.family.name!r} could not build "
                              f"any instance with these parameters{why}") from None
    return tried, None


def smallest_params(family: fam_mod.Family) -> dict:
    """The family's smallest drawn sizes (each size parameter at the low end of its drawn
    range, bounds between them respected): the cheapest instance a search may draw."""
    values: dict = {}
    for name, spec in family.params.items():
        if spec.kind == "int" and name in family.size_params():
            values[name] = spec.bounds(values)[0]
    return values


def _prefetch(checker: InstanceChecker, budget: int, seed: int) -> int:
    """Run, all at once as tasks of the current runner's executor, the instances `_search`'s
    first (generate) phase will draw: the same hypothesis seed and settings, each draw
    built and planned (`InstanceChecker.plan`) but not simulated; the runs land in
    `run_instance`'s memo, where the search then finds them. Draws whose run depends on
    an earlier run (an event time) are left to the search. Returns how many were run."""
    planned: dict = {}

    @settings(max_examples=budget, database=None, deadline=None, derandomize=False,
              phases=(Phase.generate,), verbosity=Verbosity.quiet,
              suppress_health_check=list(HealthCheck), print_blob=False)
    @given(checker.family.params_strategy())
    def probe(params):
        plan = checker.plan(params)
        if plan is None:
            reject()
        if plan is not True:
            planned.setdefault(plan[0], plan[1])

    try:
        hypothesis_seed(seed)(probe)()
    except Unsatisfiable:
        return 0  # the search says why
    return store_runs(planned)


def _candidates(lo: int, cur: int) -> list[int]:
    picks = {lo, lo + 1, lo + (cur - lo) // 4, (lo + cur) // 2, cur - 1}
    return sorted(v for v in picks if lo <= v < cur)


def _lower_bound(family: fam_mod.Family, name: str, values: Mapping) -> int:
    lo, _ = family.params[name].bounds(values)
    for other, spec in family.params.items():  # a parameter that must stay <= this one
        if spec.kind != "choice" and spec.le == name:
            lo = max(lo, int(values[other]))
    return lo


def _shrink(checker: InstanceChecker, found: Instance, budget: int) -> tuple[Instance, int]:
    """Lower each size parameter while the instance stays a counterexample."""
    family, best, trials = checker.family, found, 0
    moved = True
    while moved and trials < budget:
        moved = False
        for name in family.size_params():
            lo = _lower_bound(family, name, best.params)
            for value in _candidates(lo, int(best.params[name])):
                if trials >= budget:
                    break
                trial = dict(best.params, **{name: value})
                if any(family.params[k].bounds(trial)[0] > trial[k] for k in family.size_params()):
                    continue  # would break d >= n and the like
                fresh = checker.key(trial) not in checker.cache
                inst = checker(trial)
                trials += fresh
                if inst is not None and inst.outcome is Outcome.VIOLATED:
                    best, moved = inst, True
                    break
    return best, trials


# -- the entry point -----------------------------------------------------------------------------
def refuse_unaffordable_horizon(fam, spec, t_max, at_t, max_cost: float,
                                error=ConjectureError) -> None:
    """A horizon no instance of ``fam`` affords (``--t-max``, ``--param horizon`` or
    ``--at-t``, on the exact flow) refused before any run, as ``error``: the cost model's
    estimate at the cheapest instance the search may draw is above ``max_cost``."""
    if spec.name != "flow":
        return
    given = [(opt, v) for opt, v in (("--t-max" if t_max is not None
                                      else "--param horizon", fam.horizon_override),
                                     ("--at-t", at_t if isinstance(at_t, int | float)
                                      else None)) if v is not None]
    for option, value in given:
        try:
            run_cost.refuse_above(fam.name, smallest_params(fam), float(value), max_cost)
        except run_cost.CostError as exc:
            raise error(f"{option} {float(value):g}: {exc}") from None


def conjecture(expr_or_callable, family, *, params: Mapping[str, Any] | None = None,
               mode: str = "for_all_t", at_t: float | str | None = None,
               budget: int = DEFAULT_BUDGET, seed: int = 0, method: str = "flow",
               lr: float | None = None, t_max: float | None = None,
               points: int = DEFAULT_POINTS, shrink_budget: int = DEFAULT_SHRINK_BUDGET,
               plot: str | Path | None = None, min_decided: float = 1.0,
               escalate: int = ESCALATION_BUDGET,
               loss_floor: float | None = None, assume=(), sizes: str = "default",
               max_cost: float = DEFAULT_MAX_COST) -> ConjectureResult:
    """Search ``family`` for a counterexample to a statement; shrink the one found.

    ``expr_or_callable``: a statement in the vocabulary (``"L(t) <= L(0)*exp(-t/n)"``) or
    a callable (see the module docstring). ``family``: a name (``"orthogonal"``) or a
    `Family`. ``params``: parameters to fix (``{"n": 3}``, ``{"horizon": 50}``).
    ``mode``: ``"for_all_t"``, ``"at_t"`` (with ``at_t``) or ``"as_t_to_inf"``.
    ``at_t``: a number, or a text read on each instance (`verify.conjecture.when`: an
    expression in instance numbers such as ``"log(1/lam)/Dplus"``, or one using a run's
    event, ``"first(L(t) <= L(0)/2)"``).
    ``budget``: instances hypothesis draws; ``seed``: its seed (same seed, same search).
    ``method``: ``"flow"`` (exact gradient flow) or ``"gd"`` (gradient descent, step
    ``lr``). ``t_max`` overrides the family's horizon. ``plot``: write the PNG there.
    ``min_decided``: the share of the instances tried that must be decided (HOLDS or
    VIOLATED) for NO COUNTEREXAMPLE; with fewer the verdict is UNDECIDED.
    ``escalate``: re-runs (finer tolerances, then high precision where it applies) of an
    exact-flow instance undecided by its numerical error (`verify.engine.escalation`; 0: none).
    ``loss_floor``: with ``for_all_t``, compare only where L(t)/L(0) >= this level (None,
    the default: every saved time; times no float64 run can resolve are named anyway).
    ``assume``: conditions on the instance (``"mu >= 0.1"``, ``"OffDiagGram == 0"``); a
    drawn instance that fails one is excluded before it is simulated (the search draws
    another) and counted in the result, never a counterexample.
    ``sizes``: the family's drawn ranges, ``"default"`` or ``"paper"`` (its papers'
    experimental sizes, `verify.instances.families.Family.sized`). ``max_cost``: the largest
    estimated cost in seconds of one exact-flow run (`verify.instances.run_cost`); a draw above it
    is replaced by another, a fixed instance above it refused.

    Runs go through the current runner (`verify.running.runs`): with an executor (``--dask-local
    N``, ``--scheduler ADDRESS``) the instances the search's first phase draws are run
    first, all at once as parallel tasks (`_prefetch`), then searched exactly as without
    one: the same instances, the same verdicts.

    Long on purpose: it validates every argument before any simulation (one clear error
    per bad input) and then runs search, shrink and the result in order.
    """
    if (isinstance(min_decided, bool) or not isinstance(min_decided, (int, float))
            or not 0.0 <= min_decided <= 1.0):
        raise ConjectureError(f"--min-decided: a share in [0, 1], got {min_decided!r}")
    horizon_given = t_max if t_max is not None else (params or {}).get("horizon")
    if isinstance(at_t, str):  # a number, or a time on each instance (verify.conjecture.when)
        try:
            at_t = parse_window(at_t) if mode == "window" else parse_at_time(at_t)
        except ExpressionError as exc:
            raise ConjectureError(str(exc)) from None
    check_search_options(mode, at_t, {"--budget": (budget, 1), "--points": (points, 2),
                                      "--shrink-budget": (shrink_budget, 0)},
                         t_max, horizon=horizon_given)
    if method == "gd" and horizon_given is not None:
        try:
            limits.at_most("--t-max / --lr (gradient-descent steps)",
                           float(horizon_given) / (lr or DEFAULT_GD_LR), "gd_steps")
        except (TypeError, ValueError) as exc:
            raise ConjectureError(str(exc)) from None
    if loss_floor is not None:
        if (isinstance(loss_floor, bool) or not isinstance(loss_floor, (int, float))
                or not 0 < loss_floor < 1):
            raise ConjectureError(f"--loss-floor {loss_floor!r}: expected a number between 0 "
                                  f"and 1 (a level of L(t)/L(0))")
        if mode != "for_all_t":
            raise ConjectureError("--loss-floor: only with --for-all-t (it ends the window)")
    spec = MethodSpec(method, lr, escalate=escalate, max_cost=max_cost)
    spec.method()  # fail early if the method is unavailable
    if spec.name == "gd" and isinstance(at_t, float | int):
        at_t = spec.snap(at_t)  # (an instance-dependent time is snapped on each instance)
    try:
        statement = statement_of(expr_or_callable)
    except ExpressionError as exc:
        raise ConjectureError(f"conjecture: {exc}") from None
    assumptions = parse_assumptions(assume)
    fam = fam_mod.get(family) if isinstance(family, str) else family
    fam = fam.sized(sizes)
    fixed = dict(params or {})
    if t_max is not None:
        fixed["horizon"] = t_max
    fam = fam.fixed(**fixed) if fixed else fam
    refuse_unaffordable_horizon(fam, spec, t_max, at_t, max_cost)
    checker = InstanceChecker(statement, fam, mode, at_t, spec, points,
                              pinned=frozenset(k for k in fixed if k != "horizon"),
                              loss_floor=loss_floor, assumptions=assumptions)
    with callable_quantities(statement.func):
        with pinned_hypothesis_draws():  # same seed, same instances, whatever is loaded
            if runs.current().executor is not None:
                _prefetch(checker, budget, seed)
            tried, found = _search(checker, budget, seed)
        first = found
        trials = 0
        if found is not None:
            found, trials = _shrink(checker, found, shrink_budget)
        shown = found
        result = ConjectureResult(statement=statement.text, family=fam.name, mode=mode,
                                  at_t=at_t, method=spec, budget=budget, seed=seed, tried=tried,
                                  counterexample=found, first_found=first, shrink_trials=trials,
                                  fixed=fixed, unbuildable=checker.unbuildable,
                                  model=dict(fam.model), selector=fam.selector,
                                  excluded=checker.excluded,
                                  assume=tuple(a.text for a in assumptions),
                                  min_decided=float(min_decided), loss_floor=loss_floor)
        shown = found or result.worst or (tried[0] if tried else None)
        result.shown = shown
        result._runs = checker.trajectories
        run = checker.trajectories.get(checker.key(shown.params)) if shown is not None else None
        if shown is None:
            result.plot_skipped = "no instance could be built" if plot is not None else ""
        else:
            horizon = fam.horizon_override
            if statement.func is not None:  # a callable: a Python command imports it
                result.replay_command = replay_call(
                    statement.func, fam.name, shown.params, mode, at_t, spec, horizon,
                    points, loss_floor, fam.model, assume=result.assume)
            else:
                result.replay_command = replay_command(
                    statement.text, fam.name, shown.params, mode, at_t, spec,
                    horizon if horizon is not None else None, points, loss_floor, fam.model,
                    assume=result.assume, selector=fam.selector)
        if shown is not None and run is None:  # not compared (its time undefined there)
            result.plot_skipped = ("the instance shown was not compared: "
                                   f"{shown.verdict.reason}" if plot is not None else "")
        elif shown is not None:
            result._trajectory = run
            at_here = shown.t if isinstance(at_t, AtTime) else at_t  # its time on it
            if isinstance(at_t, Window):  # its window on it
                at_here = at_t.values(run.problem, run)
            result._claim = statement.claim(mode, at_here, float(run.t[-1]),
                                            first_positive(run))
            if plot is not None:
                result.plot(plot)
    return result


__all__ = ["DEFAULT_BUDGET", "DEFAULT_GD_LR", "DEFAULT_POINTS", "DEFAULT_SHRINK_BUDGET", "MODES",
           "METHODS", "ConjectureError", "ConjectureResult", "Instance", "MethodSpec",
           "Statement", "UndefinedHere", "conjecture", "replay_command", "run_instance",
           "statement_of"]
