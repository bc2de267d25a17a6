"""The sharpest constant: an adversarial search over a family, then a local refinement.

``tighten("L(t) <= C*L(0)", "orthogonal")`` (a user's statement, free constant ``C``) and
``tighten_claim("S002-T1", param="c_T")`` (a catalogue claim: a named parameter, or the
multiplier of its bound side) search the family for the instance on which the constant
must be most extreme for the statement to hold, and return the sharpest value observed
(`TightenResult`).

Search: hypothesis draws the family's parameters (as `verify.conjecture` does, with the
same pinned draws: same seed, same instances) and ``hypothesis.target`` steers it
towards larger critical values (where C is bounded below) or smaller ones (above).
Refinement: from the best instance, each size parameter is moved by one and each float
parameter by 10% (within its range), keeping a move while it sharpens the value, until
the refinement budget is spent or nothing moves. Per instance, the value is the exact
extreme over the saved times of the window (`verify.tighten.extreme`).

The witness (the instance attaining the sharpest value) is then checked as
`gfverify conjecture` would check it, with C moved 2% past the sharpest value (the
statement must be VIOLATED) and 2% back (it must HOLD): the witness is *decided* only
when both verdicts come out so, i.e. its margin at 2% is outside the numerical error.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp
from hypothesis import HealthCheck, Phase, Verbosity, given, settings, target
from hypothesis import seed as hypothesis_seed
from hypothesis.errors import Unsatisfiable

from numerics import ProblemError
from theory import registry
from verify.conjecture.instance import MethodSpec, first_positive
from verify.conjecture.search import refuse_unaffordable_horizon
from verify.conjecture.statement import (
    DEFAULT_POINTS,
    ConjectureError,
    check_search_options,
    parse_assumptions,
)
from verify.engine.check import check
from verify.engine.check_run import inapplicable_instance, relaxed_note
from verify.engine.escalation import DEFAULT_BUDGET as ESCALATION_BUDGET
from verify.engine.run_context import RunContext
from verify.instances import families as fam_mod
from verify.instances.run_cost import DEFAULT_MAX_COST
from verify.running.profiles import pinned_hypothesis_draws
from verify.running.progress import Progress
from verify.tighten.evaluate import Evaluator, RunsEvaluator
from verify.tighten.extreme import (
    DECIDED,
    DEFINITION,
    MOVE,
    reference_value,
    witness_move,
)
from verify.tighten.result import Searched, TightenResult, Witness
from verify.tighten.statement import Tightenable, TightenError, from_claim, from_text
from verify.tighten.store import Store, query_hash

#: Instances hypothesis draws by default (``--budget``), before the refinement.
DEFAULT_BUDGET = 20
WITNESS_TRIES = 5  # sharpest instances tried, in order, for a decided witness
PROBES = 8  # instances drawn (not simulated) to choose a claim's default family


def _better(a: float, b: float | None, direction: int) -> bool:
    return b is None or (a > b if direction > 0 else a < b)


def _best(points: list[Searched]) -> Searched | None:
    best = None
    for s in points:
        e = s.extreme
        if e.status == DECIDED and (best is None or _better(e.value, best.extreme.value,
                                                             e.direction)):
            best = s
    return best


def _search(ev: Evaluator, budget: int, seed: int) -> None:
    @settings(max_examples=budget, database=None, deadline=None, derandomize=False,
              phases=(Phase.generate, Phase.target), verbosity=Verbosity.quiet,
              suppress_health_check=list(HealthCheck), print_blob=False)
    @given(ev.family.params_strategy())
    def probe(params):
        s = ev(params)
        if s is not None and s.extreme.status == DECIDED:
            target(s.extreme.direction * s.extreme.value, label="critical value of C")

    try:
        with pinned_hypothesis_draws():
            hypothesis_seed(seed)(probe)()
    except Unsatisfiable:
        raise TightenError(f"--param: the family {ev.family.name!r} could not build any "
                           f"instance with these parameters") from None


def _neighbours(family: fam_mod.Family, params: dict, pinned: set) -> list[dict]:
    out = []
    for name, spec in family.params.items():
        if name in pinned or name == "seed" or spec.kind == "choice":
            continue
        cur = params[name]
        if spec.kind == "int":
            moves = [cur - 1, cur + 1]
        else:
            moves = [float(f"{cur * f:.3e}") for f in (0.9, 1.1)]
        for v in moves:
            trial = dict(params, **{name: v})
            lo, hi = spec.bounds(trial)
            if lo <= v <= hi and all(family.params[k].bounds(trial)[0] <= trial[k]
                                     <= family.params[k].bounds(trial)[1]
                                     for k in family.size_params()):
                out.append(trial)
    return out


def _refine(ev: Evaluator, budget: int, pinned: set) -> int:
    """Coordinate moves from the best instance while they sharpen the value. Every move
    counts against the budget, stored or simulated, so that a run reading a store gives
    the numbers of the run that filled it (a larger budget goes further)."""
    spent = 0
    best = _best(ev.visited)  # this run's search, not the store: same seed, same moves
    while best is not None and spent < budget:
        moved = False
        for trial in _neighbours(ev.family, best.params, pinned):
            if spent >= budget:
                break
            s = ev(trial)  # counted read or simulated: same budget, same instances
            spent += 1
            if (s is not None and s.extreme.status == DECIDED
                    and s.extreme.direction == best.extreme.direction
                    and _better(s.extreme.value, best.extreme.value, s.extreme.direction)):
                best, moved = s, True
                break
        if not moved:
            break
    return spent


def _witness(ev: Evaluator, best: Searched) -> Witness:
    """Re-run the best instance and check the statement with C moved 2% each way."""
    e = best.extreme
    problem, tr, horizon = ev.run(best.params)
    on_run, proved = ev.claim_on(tr), ev.tight.proved
    proved_here = None if proved is None else reference_value(on_run, tr, proved)
    delta = witness_move(e.value, e.error, proved_here)
    past = e.value - e.direction * delta  # where the statement must fail
    back = e.value + e.direction * delta  # where it must hold
    outcomes = {name: check(_witness_claim(ev, tr, value, e.t, name), tr).outcome
                for name, value in (("past", past), ("back", back))}
    proved_outcome = (None if proved is None
                      else check(ev.claim_on(tr, proved), tr).outcome)
    relaxed = (relaxed_note(ev.tight.claim, RunContext(ev.tight.claim, tr))
               if ev.tight.claim is not None else "")
    return Witness(searched=best, past=past, back=back, past_outcome=outcomes["past"],
                   back_outcome=outcomes["back"], proved_here=proved_here,
                   proved_outcome=proved_outcome, trajectory=tr, claim=on_run,
                   relaxed=relaxed)


def _witness_claim(ev: Evaluator, tr, value: float, t_w: float, role: str):
    """The statement at C = ``value`` as it is checked on the witness: 2% past, at the
    witness's own time (where it must fail; `gfverify conjecture --at-t`); 2% back, over
    the window (where it must hold): a user's statement over the window `gfverify
    conjecture` uses (from the first saved time after 0, where both sides of L(t) <= C L(0)
    are no longer equal by construction), from t = 0 when the witness is at t = 0."""
    claim = ev.claim_on(tr, value)
    if ev.tight.event_time:
        return claim
    if role == "past":
        return replace(claim, window=(sp.Float(t_w), sp.Float(t_w)))
    if ev.tight.parsed is not None and t_w > 0:
        return ev.floored(ev.tight.statement_at(value).claim(
            ev.mode, ev.at_t, float(tr.t[-1]), first_positive(tr)), tr)
    return claim


def _decided_witness(ev: Evaluator) -> tuple[Witness | None, int]:
    """The sharpest instance whose 2% check is decided, trying the ``WITNESS_TRIES``
    sharpest in order; also how many sharper ones were passed over (their check within
    numerical error). With none decided, the sharpest is returned (not decided)."""
    ranked = [s for s in ev.order if s.extreme.status == DECIDED]
    if not ranked:
        return None, 0
    direction = ranked[0].extreme.direction
    ranked.sort(key=lambda s: -direction * s.extreme.value)
    first = None
    for k, s in enumerate(ranked[:WITNESS_TRIES]):
        w = _witness(ev, s)
        if w.decided:
            return w, k
        first = first or w
    return first, 0


def _run(tight: Tightenable, family, *, params: Mapping[str, Any] | None, mode: str,
         at_t: float | None, budget: int, seed: int, method: str, lr: float | None,
         t_max: float | None, points: int, refine_budget: int | None, results,
         plot, progress: bool, loss_floor: float | None = None,
         escalate: int = ESCALATION_BUDGET, assume=(), sizes: str = "default",
         max_cost: float = DEFAULT_MAX_COST) -> TightenResult:
    refine_budget = max(2, budget // 4) if refine_budget is None else refine_budget
    try:
        assumptions = parse_assumptions(assume)
    except ConjectureError as exc:
        raise TightenError(str(exc)) from None
    if loss_floor is not None and not (isinstance(loss_floor, (int, float))
                                       and 0 < loss_floor < 1):
        raise TightenError(f"--loss-floor {loss_floor!r}: expected a number between 0 and 1 "
                           f"(the window then ends at the last saved time where "
                           f"L(t)/L(0) is at least that)")
    if loss_floor is not None and mode != "for_all_t":
        raise TightenError("--loss-floor: it ends a window (--for-all-t, or a claim's own "
                           "window); with --at-t or --as-t-to-inf choose the time instead")
    check_search_options(mode, at_t, {"--budget": (budget, 1), "--points": (points, 2),
                                      "--refine-budget": (refine_budget, 0)}, t_max,
                         horizon=(params or {}).get("horizon"), error=TightenError)
    try:
        spec = MethodSpec(method, lr, escalate=escalate, max_cost=max_cost)
    except ConjectureError as exc:
        raise TightenError(str(exc)) from None
    spec.method()
    if spec.name == "gd" and at_t is not None:
        at_t = spec.snap(at_t)  # a saved time of gradient descent
    fam = fam_mod.get(family) if isinstance(family, str) else family
    fam = fam.sized(sizes)
    fixed = dict(params or {})
    if t_max is not None:
        fixed["horizon"] = t_max
    fam = fam.fixed(**fixed) if fixed else fam
    refuse_unaffordable_horizon(fam, spec, t_max, at_t, max_cost, error=TightenError)
    pinned = {k for k in fixed if k != "horizon"}
    description = {"statement": tight.text, "how": tight.how, "free": tight.free.name,
                   "parts": [p.text() for p in tight.parts], "family": fam.name,
                   "fixed": {k: str(v) for k, v in sorted(fixed.items())}, "mode": mode,
                   "at_t": at_t, "method": [spec.name, spec.step], "points": points,
                   "part": tight.part, "seed": seed, "definition": DEFINITION}
    # (absent when not used: stores written before keep their key)
    if loss_floor is not None:
        description["loss_floor"] = loss_floor
    if tight.parameters:
        description["claim_params"] = dict(tight.parameters)
    if assumptions:
        description["assume"] = [a.text for a in assumptions]
    if sizes != "default":
        description["sizes"] = sizes
    store = (Store(results, query_hash(description), description)
             if results is not None else None)
    start = time.perf_counter()
    try:
        with Progress(budget + refine_budget, f"tighten {tight.text}",
                      enabled=progress) as bar:
            ev = Evaluator(tight, fam, mode, at_t, spec, points, store, bar, loss_floor,
                           assumptions)
            _search(ev, budget, seed)
            refined = _refine(ev, refine_budget, pinned)
        witness, passed_over = _decided_witness(ev)
    finally:
        if store is not None:
            store.close()
    result = TightenResult(tightenable=tight, family=fam.name, model=dict(fam.model),
                           selector=fam.selector,
                           mode=mode, at_t=at_t,
                           method=spec, budget=budget, seed=seed, points=points,
                           searched=ev.order, stored=ev.stored, refined=refined,
                           witness=witness, passed_over=passed_over, fixed=fixed,
                           unbuildable=ev.unbuildable,
                           horizon=fam.horizon_override,
                           results=str(results) if results is not None else None,
                           seconds=time.perf_counter() - start, loss_floor=loss_floor,
                           assume=tuple(a.text for a in assumptions))
    if plot is not None:
        result.plot(plot)
    return result


def tighten(expr: str, family, *, free: str = "C", part: int | None = None,
            params: Mapping[str, Any] | None = None, mode: str = "for_all_t",
            at_t: float | None = None, budget: int = DEFAULT_BUDGET, seed: int = 0,
            method: str = "flow", lr: float | None = None, t_max: float | None = None,
            points: int = DEFAULT_POINTS, refine_budget: int | None = None,
            results: str | Path | None = None, plot: str | Path | None = None,
            progress: bool = False, loss_floor: float | None = None,
            escalate: int = ESCALATION_BUDGET, assume=(), sizes: str = "default",
            max_cost: float = DEFAULT_MAX_COST) -> TightenResult:
    """The sharpest value of the free constant ``free`` in ``expr`` over ``family``.

    ``mode``: ``"for_all_t"`` (every saved time from t = 0: the extreme over time, the
    initial state included), ``"at_t"`` (with ``at_t``) or ``"as_t_to_inf"`` (the end of
    the horizon). ``budget``: instances hypothesis draws; ``refine_budget``: further
    simulations for the local refinement (default budget/4). ``results``: a directory
    whose store is read and extended. ``plot``: a PNG of the best value against the
    number of instances searched. ``loss_floor``: the window ends at the last saved time
    where L(t)/L(0) is at least this (`verify.engine.check_run.above_loss_floor`). ``assume``:
    conditions on the instance (``"GammaMax < 1"``), as in `verify.conjecture.conjecture`:
    an instance that fails one is inapplicable, never simulated. Other arguments as in
    `verify.conjecture.conjecture`.
    """
    tight = from_text(expr, free, part)
    return _run(tight, family, params=params, mode=mode, at_t=at_t, budget=budget, seed=seed,
                method=method, lr=lr, t_max=t_max, points=points,
                refine_budget=refine_budget, results=results, plot=plot, progress=progress,
                loss_floor=loss_floor, escalate=escalate, assume=assume, sizes=sizes,
                max_cost=max_cost)


def tighten_given_runs(tight: Tightenable, runs: Mapping, *, mode: str = "for_all_t",
                       at_t: float | None = None, label: str = "runs") -> TightenResult:
    """The free constant of ``tight`` on given runs (name -> Trajectory) instead of family
    draws: each run is one instance (its parameters ``{"run": NAME}``), measured with its
    own error estimate; the sharpest decided run is the witness, checked 2% past and back
    as a family's is. ``label`` names the runs in the result; there is no replay."""
    if not runs:
        raise TightenError(f"{tight.text}: no runs to tighten it on")
    spec = MethodSpec("flow")  # (not used to simulate: the runs are given)
    start = time.perf_counter()
    ev = RunsEvaluator(tight, runs, mode, at_t, spec)
    for name in runs:
        ev({"run": name})
    witness, passed_over = _decided_witness(ev)
    return TightenResult(tightenable=tight, family=label, mode=mode, at_t=at_t,
                         method=spec, budget=len(ev.order), seed=0, points=0,
                         searched=ev.order, witness=witness, passed_over=passed_over,
                         seconds=time.perf_counter() - start, from_runs=True)


def tighten_claim_on_runs(claim_id: str, runs: Mapping, *, param: str | None = None,
                          part: int | None = None,
                          claim_params: Mapping[str, Any] | None = None,
                          label: str = "runs") -> TightenResult:
    """`tighten_claim` on given runs instead of a family (``runs``: name -> Trajectory),
    for a claim stated for an experiment no family draws (`tighten_given_runs`)."""
    return tighten_given_runs(from_claim(claim_id, param, part, claim_params), runs,
                              label=label)


def default_family(claim_id: str) -> str:
    """The family a claim is tightened on when none is named: the first family of the
    claim's paper (its pack's order) on which the claim's assumptions hold for its
    default instance or one of a few drawn ones (no simulation); else the first."""
    claim = registry.get(claim_id)
    own = [(name, fam) for name, fam in fam_mod.all_families().items()
           if fam.setting == claim.source.paper]
    rng = np.random.default_rng(0)
    for name, fam in own:
        for draw in range(PROBES):
            try:
                params = fam.defaults() if draw == 0 else fam.sample_params(rng)
                problem = fam.make(params)
            except (ProblemError, fam_mod.FamilyError):
                continue
            if inapplicable_instance(claim, problem) is None:
                return name
    if own:  # none of the probes applies: the search may still find instances that do
        return own[0][0]
    raise TightenError(f"tighten {claim_id}: no family declares the setting "
                       f"{claim.source.paper!r}; name one with --family")


def tighten_claim(claim_id: str, family=None, *, param: str | None = None,
                  part: int | None = None, claim_params: Mapping[str, Any] | None = None,
                  **kwargs) -> TightenResult:
    """`tighten` for a catalogue claim: its parameter ``param`` (``c_T``, ``eps``, ...) or,
    without one, the multiplier of its bound side (proved value 1). ``family``: default
    the first family of the claim's pack. The claim's own window is used (``mode`` is
    not). ``claim_params``: the claim's other parameters set first (``{"eps": "1/40"}``)."""
    tight = from_claim(claim_id, param, part, claim_params)
    kwargs.setdefault("mode", "for_all_t")
    kwargs.setdefault("budget", DEFAULT_BUDGET)
    kwargs.setdefault("seed", 0)
    kwargs.setdefault("method", "flow")
    kwargs.setdefault("points", DEFAULT_POINTS)
    for key in ("params", "at_t", "lr", "t_max", "refine_budget", "results", "plot",
                "loss_floor"):
        kwargs.setdefault(key, None)
    kwargs.setdefault("progress", False)
    return _run(tight, family or default_family(claim_id), **kwargs)


__all__ = ["DEFAULT_BUDGET", "MOVE", "TightenError", "TightenResult", "default_family",
           "tighten", "tighten_claim"]
