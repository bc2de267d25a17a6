"""Checking new conjectures: state it, search it, shrink the counterexample.

``conjecture("L(t) <= L(0)*exp(-t/n)", "orthogonal")`` reads the statement
safely (`verify.expressions`), turns it into a `Claim` (POINTWISE over a time
window, or EVENT_TIME for ``first(EVENT) <= BOUND``) and checks it with
`verify.check.check` on simulated instances of the family, so a conjecture is
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
"""

from __future__ import annotations

import contextlib
import math
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp
from hypothesis import HealthCheck, Phase, Verbosity, given, reject, settings, target
from hypothesis import seed as hypothesis_seed
from hypothesis.errors import Unsatisfiable

from numerics import ExactFlow, Problem, ProblemError, Trajectory, simulate
from theory import symbols as S
from theory.claim import Claim, Kind, Provenance, Source
from verify import families as fam_mod
from verify import limits, measures
from verify.check import check, evaluate, relation_margins
from verify.errors import InputError
from verify.exit_codes import EXIT_FOUND, EXIT_OK, EXIT_UNDECIDED
from verify.expressions import ExpressionError, Parsed, parse_conjecture
from verify.figures import pyplot, save_png
from verify.verdict import Outcome, Verdict, Where

MODES = ("for_all_t", "at_t", "as_t_to_inf")
METHODS = ("flow", "gd")
DEFAULT_BUDGET = 20
DEFAULT_SHRINK_BUDGET = 40
DEFAULT_POINTS = 1001
DEFAULT_GD_LR = 1e-2
FLOW_RTOL = 1e-10
_TINY = 1e-300


class ConjectureError(InputError):
    """Bad input to a conjecture (statement, family, parameter, mode or method)."""


# -- the statement as a claim ------------------------------------------------------------------
@dataclass(frozen=True)
class Statement:
    """What is checked: a parsed text or a callable, turned into a Claim per horizon."""

    text: str
    parsed: Parsed | None
    func: Callable[[Trajectory], Any] | None = None

    def claim(self, mode: str, at_t: float | None, t_end: float, t_first: float = 0.0) -> Claim:
        source = Source("user", "conjecture", Provenance.INFERRED)
        if self.parsed is not None and self.parsed.is_event_time:
            return Claim(id="conjecture", title=self.text, kind=Kind.EVENT_TIME, source=source,
                         statement=self.parsed.relation, event=self.parsed.event,
                         event_time=S.t_conv)
        rel = self.parsed.relation if self.parsed is not None else _CALLABLE_RELATION
        window = {"for_all_t": (sp.Float(t_first), sp.oo),
                  "at_t": (sp.Float(at_t), sp.Float(at_t)) if at_t is not None else None,
                  "as_t_to_inf": (sp.Float(t_end), sp.Float(t_end))}[mode]
        return Claim(id="conjecture", title=self.text, kind=Kind.POINTWISE, source=source,
                     statement=rel, window=window)

    def require_defined(self, problem: Problem) -> None:
        """Refuse, before simulating, a statement whose instance-only parts (1/(n - 2),
        log(lam - 1), ...) are not finite real numbers on this instance."""
        if self.parsed is None:
            return
        exprs = [self.parsed.relation] + ([self.parsed.event] if self.parsed.event else [])
        inst = measures.instance_values(problem)
        seen: set = set()
        for expr in exprs:
            for sub in sp.preorder_traversal(expr):
                if (sub in seen or not isinstance(sub, sp.Expr) or sub.is_Atom
                        or sub.atoms(sp.core.function.AppliedUndef)
                        or any(s.name in ("t", "t_conv") for s in sub.free_symbols)):
                    continue
                seen.add(sub)
                try:
                    values = {s: inst[s.name] for s in sub.free_symbols}
                except (KeyError, ValueError):
                    continue  # not an instance quantity here: check() will say so
                value = sub.xreplace({s: sp.Float(float(v)) for s, v in values.items()})
                value = sp.N(value)
                if value.has(sp.zoo, sp.nan, sp.oo, -sp.oo, sp.I) or not value.is_real:
                    at = ", ".join(f"{s.name}={float(v):.4g}" for s, v in values.items())
                    raise UndefinedHere(f"conjecture: {sp.sstr(sub)} is not a finite real "
                                        f"number at {at} ({problem.describe()})",
                                        frozenset(s.name for s in values))

    def fixed_times(self) -> list[float]:
        """Times the statement reads a quantity at (L(0), L(5)): they must be saved."""
        if self.parsed is None:
            return []
        exprs = [self.parsed.relation]
        if self.parsed.event is not None:
            exprs.append(self.parsed.event)
        out = set()
        for e in exprs:
            for term in e.atoms(sp.core.function.AppliedUndef):
                if term.args[0] != S.t and term.args[0].is_number:
                    out.add(float(term.args[0]))
        return sorted(out)


_USER_LHS, _USER_RHS = "UserLhs", "UserRhs"
_CALLABLE_RELATION = sp.Le(sp.Function(_USER_LHS)(S.t), sp.Function(_USER_RHS)(S.t))


@contextlib.contextmanager
def _callable_quantities(func):
    """Register ``func``'s two sides as trajectory quantities for the duration of a search."""
    if func is None:
        yield
        return

    def sides(tr: Trajectory):
        out = func(tr)
        if isinstance(out, tuple) and len(out) == 2:
            lhs, rhs = out
        else:
            lhs, rhs = -np.asarray(out, dtype=float), 0.0
        T = len(tr.t)
        lhs = np.broadcast_to(np.asarray(lhs, dtype=float), (T,))
        rhs = np.broadcast_to(np.asarray(rhs, dtype=float), (T,))
        return lhs, rhs

    def side(k):
        def quantity(tr):
            v = sides(tr)[k]
            return measures.Series(v, measures.ROUNDOFF_ULPS * measures.FLOAT_EPS * np.abs(v))
        return quantity

    table = measures.TRAJECTORY_QUANTITIES
    if _USER_LHS in table or _USER_RHS in table:
        raise ConjectureError("a callable conjecture is already being searched (not re-entrant)")
    table[_USER_LHS], table[_USER_RHS] = side(0), side(1)
    try:
        yield
    finally:
        table.pop(_USER_LHS, None)
        table.pop(_USER_RHS, None)


def statement_of(expr_or_callable) -> Statement:
    if callable(expr_or_callable):
        name = getattr(expr_or_callable, "__name__", "callable")
        return Statement(text=f"<callable {name}>", parsed=None, func=expr_or_callable)
    return Statement(text=str(expr_or_callable).strip(), parsed=parse_conjecture(expr_or_callable))


# -- simulation ------------------------------------------------------------------------------
@dataclass(frozen=True)
class MethodSpec:
    """How instances are simulated: the exact flow, or gradient descent with step ``lr``."""

    name: str = "flow"
    lr: float | None = None

    def __post_init__(self) -> None:
        if self.name not in METHODS:
            raise ConjectureError(f"--method: {self.name!r} is not one of {METHODS}")
        if self.lr is not None and not (math.isfinite(self.lr) and self.lr > 0):
            raise ConjectureError(f"--lr: must be a positive number, got {self.lr!r}")
        if self.lr is not None and self.name != "gd":
            raise ConjectureError("--lr: only used with --method gd (the exact flow has no step)")

    @property
    def step(self) -> float:
        return self.lr if self.lr is not None else DEFAULT_GD_LR

    def method(self):
        if self.name == "flow":
            return ExactFlow(rtol=FLOW_RTOL)
        try:
            from numerics.descent import GradientDescent
        except ImportError as exc:  # being written alongside; say so plainly
            raise ConjectureError(f"--method gd: gradient descent is not available in this "
                                  f"installation ({exc}); use --method flow") from None
        return GradientDescent(lr=self.step)

    def times(self, horizon: float, points: int, extra: list[float]) -> np.ndarray:
        t = np.concatenate([np.linspace(0.0, horizon, points), extra])
        if self.name == "gd":
            t = self.step * np.rint(t / self.step)
        return np.unique(t)

    def snap(self, at: float) -> float:
        return self.step * round(at / self.step) if self.name == "gd" else at

    def cli(self) -> list[str]:
        if self.name == "flow":
            return []
        return ["--method", "gd", "--lr", repr(self.step)]


_RUNS: dict[tuple, Trajectory] = {}
_RUN_CACHE_SIZE = 256


def run_instance(problem: Problem, horizon: float, method: MethodSpec, points: int,
                 extra_times: list[float]) -> Trajectory:
    """Simulate ``problem`` to ``horizon`` (memoised by content, horizon and method)."""
    key = (problem.content_hash, float(horizon), method, points, tuple(extra_times))
    if key not in _RUNS:
        if len(_RUNS) >= _RUN_CACHE_SIZE:
            _RUNS.pop(next(iter(_RUNS)))
        t_eval = method.times(horizon, points, [x for x in extra_times if x <= horizon])
        _RUNS[key] = simulate(problem, method.method(), t_eval=t_eval)
    return _RUNS[key]


# -- one instance ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Instance:
    """One checked instance: its parameters, its verdict and both sides where it is decided."""

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

    @property
    def outcome(self) -> Outcome:
        return self.verdict.outcome

    def describe(self) -> str:
        sizes = " ".join(f"{k}={v}" for k, v in self.sizes.items())
        others = " ".join(f"{k}={_fmt(v)}" for k, v in self.params.items() if k not in self.sizes)
        return f"{sizes} {others} [{self.problem_hash}]".strip()


def _fmt(v) -> str:
    return repr(v) if isinstance(v, float) else str(v)


class UndefinedHere(ConjectureError):
    """The statement is not a finite real number on one instance; ``names`` are the instance
    quantities the undefined part depends on."""

    def __init__(self, message: str, names: frozenset):
        super().__init__(message)
        self.names = names


class _Checker:
    """Checks the statement on family instances, with a cache keyed by the parameters."""

    def __init__(self, statement: Statement, family: fam_mod.Family, mode: str,
                 at_t: float | None, method: MethodSpec, points: int,
                 pinned: frozenset = frozenset()):
        self.statement, self.family, self.mode = statement, family, mode
        self.pinned = pinned  # parameters the user fixed (--param)
        self.at_t, self.method, self.points = at_t, method, points
        self.cache: dict[tuple, Instance | None] = {}
        self.unbuildable: list[tuple[dict, str]] = []
        self.trajectories: dict[tuple, Trajectory] = {}

    def key(self, params: Mapping) -> tuple:
        return tuple(sorted(params.items()))

    def __call__(self, params: Mapping) -> Instance | None:
        """The checked instance, or None when the family cannot build it (e.g. no Q-good
        draw): such draws are rejected by the search and never counterexamples."""
        key = self.key(params)
        if key not in self.cache:
            try:
                self.cache[key] = self._check(dict(params))
            except ProblemError as exc:
                self.cache[key] = None
                self.unbuildable.append((dict(params), str(exc)))
        return self.cache[key]

    def trajectory(self, inst: Instance) -> Trajectory:
        return self.trajectories[self.key(inst.params)]

    def _check(self, params: dict) -> Instance:
        try:
            limits.problem_size(params)
        except limits.LimitError as exc:
            raise ConjectureError(str(exc)) from None
        problem = self.family.make(params)
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
            return Instance(params=params, problem_hash=problem.content_hash, sizes=sizes,
                            verdict=verdict, t=None, lhs=None, rhs=None, margin=math.nan,
                            error=math.nan, relative_margin=math.nan, horizon=0.0)
        horizon = self.family.horizon(problem, params)
        extra = self.statement.fixed_times()
        if self.mode == "at_t":
            horizon = max(horizon, self.at_t)
            extra = sorted({*extra, self.at_t})
        try:  # the horizon actually run (family rule, --t-max or --at-t) and its GD steps
            limits.at_most("horizon (--t-max, --at-t or the family's)", horizon, "horizon")
            if self.method.name == "gd":
                limits.at_most("horizon / --lr (gradient-descent steps)",
                               horizon / self.method.step, "gd_steps")
        except limits.LimitError as exc:
            raise ConjectureError(str(exc)) from None
        tr = run_instance(problem, horizon, self.method, self.points, extra)
        self.trajectories[self.key(params)] = tr
        t_end = float(tr.t[-1]) if len(tr.t) else horizon
        claim = self.statement.claim(self.mode, self.at_t, t_end, _first_positive(tr))
        verdict = check(claim, tr)
        point = _tightest(claim, tr, verdict)
        t_at, lhs, rhs, margin, error, rel_margin = point
        return Instance(params=params, problem_hash=problem.content_hash, sizes=sizes,
                        verdict=verdict, t=t_at, lhs=lhs, rhs=rhs, margin=margin, error=error,
                        relative_margin=float(rel_margin), horizon=horizon)


def _tightest(claim: Claim, tr: Trajectory, verdict: Verdict):
    """(t, lhs, rhs, margin, error, relative margin) at the point that decides the instance.

    VIOLATED or INCONCLUSIVE: the verdict's own point. HOLDS: the saved time in the window
    with the smallest margin relative to the size of the two sides (where the statement
    is tightest). Margins and errors are `check`'s (`relation_margins`).
    """
    nan = math.nan
    if claim.kind is Kind.EVENT_TIME:
        lhs, rhs = verdict.observed, verdict.predicted
        scale = abs(rhs) if rhs is not None else nan
        rel = verdict.margin / max(scale, _TINY) if math.isfinite(scale) else nan
        return verdict.where.t, lhs, rhs, verdict.margin, verdict.tolerance, rel
    t_v = verdict.where.t
    if t_v is None or not math.isfinite(t_v) or not len(tr.t) or math.isnan(verdict.margin):
        return t_v, None, None, verdict.margin, verdict.tolerance, nan
    lo = float(claim.window[0])
    hi = math.inf if claim.window[1] == sp.oo else float(claim.window[1])
    inside = (tr.t >= lo) & (tr.t <= hi)
    best = None
    for rel, margin, error in relation_margins(claim, tr):
        lhs = np.broadcast_to(evaluate(claim, tr, rel.lhs)[0], tr.t.shape)
        rhs = np.broadcast_to(evaluate(claim, tr, rel.rhs)[0], tr.t.shape)
        scale = np.maximum(np.maximum(np.abs(lhs), np.abs(rhs)), _TINY)
        relative = np.where(inside, margin / scale, np.inf)
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
        return t_v, None, None, verdict.margin, verdict.tolerance, nan
    rel, t, lhs, rhs, margin, error = best
    return t, lhs, rhs, margin, error, rel


def _first_positive(tr: Trajectory) -> float:
    """The first saved time after 0: the for-all-t window starts there (at t = 0 the sides of
    a statement such as L(t) <= L(0) coincide exactly, which a check can only call
    inconclusive; ``--at-t 0`` checks the initial state)."""
    return float(tr.t[1]) if len(tr.t) > 1 else 0.0


def _relation_named(claim: Claim, part: str) -> sp.Basic:
    for rel in claim.relations():
        if sp.sstr(rel) == part:
            return rel
    return claim.relations()[0]


# -- search and shrink ---------------------------------------------------------------------------
class _Found(Exception):
    def __init__(self, instance: Instance):
        super().__init__("counterexample")
        self.instance = instance


def _search(checker: _Checker, budget: int, seed: int) -> tuple[list[Instance], Instance | None]:
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
        why = (f"; e.g. {checker.unbuildable[0][0]}: {checker.unbuildable[0][1]}"
               if checker.unbuildable else "")
        raise ConjectureError(f"--param: the family {checker.family.name!r} could not build "
                              f"any instance with these parameters{why}") from None
    return tried, None


def _candidates(lo: int, cur: int) -> list[int]:
    picks = {lo, lo + 1, lo + (cur - lo) // 4, (lo + cur) // 2, cur - 1}
    return sorted(v for v in picks if lo <= v < cur)


def _lower_bound(family: fam_mod.Family, name: str, values: Mapping) -> int:
    lo, _ = family.params[name].bounds(values)
    for other, spec in family.params.items():  # a parameter that must stay <= this one
        if spec.kind != "choice" and spec.le == name:
            lo = max(lo, int(values[other]))
    return lo


def _shrink(checker: _Checker, found: Instance, budget: int) -> tuple[Instance, int]:
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


# -- the result ----------------------------------------------------------------------------------
@dataclass
class ConjectureResult:
    """What a search found.

    ``decided``: instances whose verdict is HOLDS or VIOLATED. The verdict is
    COUNTEREXAMPLE when one is VIOLATED; otherwise NO COUNTEREXAMPLE only when at least
    ``min_decided`` of the instances tried were decided (all, by default), and UNDECIDED
    when fewer were (INCONCLUSIVE: the margin within numerical error, or a run that did
    not reach its horizon; INAPPLICABLE: an assumption of the statement not met).
    ``exit_code``: `verify.exit_codes` (0, 1, or 3 for UNDECIDED).
    """

    statement: str
    family: str
    mode: str
    at_t: float | None
    method: MethodSpec
    budget: int
    seed: int
    tried: list[Instance]
    counterexample: Instance | None = None
    first_found: Instance | None = None
    shrink_trials: int = 0
    replay_command: str = ""
    plot_path: Path | None = None
    fixed: dict = field(default_factory=dict)
    unbuildable: list = field(default_factory=list)
    min_decided: float = 1.0
    plot_skipped: str = ""
    shown: Instance | None = None
    _trajectory: Trajectory | None = None
    _claim: Claim | None = None

    @property
    def found(self) -> bool:
        return self.counterexample is not None

    @property
    def decided(self) -> int:
        return sum(i.outcome in (Outcome.HOLDS, Outcome.VIOLATED) for i in self.tried)

    @property
    def undecided(self) -> bool:
        """No counterexample, and fewer than ``min_decided`` of the instances decided."""
        if self.found:
            return False
        return not self.tried or self.decided < self.min_decided * len(self.tried)

    @property
    def exit_code(self) -> int:
        if self.found:
            return EXIT_FOUND
        return EXIT_UNDECIDED if self.undecided else EXIT_OK

    @property
    def verdict(self) -> str:
        if self.found:
            return "COUNTEREXAMPLE"
        return "UNDECIDED" if self.undecided else "NO COUNTEREXAMPLE"

    def undecided_reasons(self) -> dict[str, int]:
        """How often each reason was given for an instance that was not decided."""
        out: dict[str, int] = {}
        for inst in self.tried:
            if inst.outcome in (Outcome.INCONCLUSIVE, Outcome.INAPPLICABLE):
                why = inst.verdict.reason or "the margin is within the numerical error"
                key = f"{inst.outcome.value}: {why.split(' with ')[0]}"
                out[key] = out.get(key, 0) + 1
        return out

    @property
    def counts(self) -> dict[str, int]:
        out = {o.value: 0 for o in Outcome}
        for inst in self.tried:
            out[inst.outcome.value] += 1
        return out

    @property
    def worst(self) -> Instance | None:
        """The instance with the smallest relative margin among those decided or undecided."""
        scored = [i for i in self.tried if math.isfinite(i.relative_margin)]
        return min(scored, key=lambda i: i.relative_margin) if scored else None

    def trajectory(self) -> Trajectory | None:
        return self._trajectory

    def report(self) -> str:
        mode = {"for_all_t": "for all t in the horizon",
                "as_t_to_inf": "at the end of the horizon (t -> oo)",
                "at_t": f"at t = {self.at_t}"}[self.mode]
        lines = [f"conjecture: {self.statement}   ({mode})",
                 f"family: {self.family}   method: {self.method.name}   budget: {self.budget}"
                 f"   seed: {self.seed}",
                 f"verdict: {self.verdict}"]
        counts = ", ".join(f"{v} {k}" for k, v in self.counts.items() if v)
        lines.append(f"instances tried: {len(self.tried)} ({counts or 'none'}), decided "
                     f"(HOLDS or VIOLATED): {self.decided}")
        if self.undecided:
            need = math.ceil(self.min_decided * len(self.tried)) if self.tried else 1
            lines.append(f"undecided: {self.decided} of {len(self.tried)} decided, "
                         f"{need} needed (min_decided = {self.min_decided:g}); nothing is "
                         f"claimed about this statement")
        shown = self.counterexample if self.found else self.worst
        if self.found:
            c = self.counterexample
            lines.append(f"counterexample (shrunk in {self.shrink_trials} trial runs from "
                         f"{self.first_found.describe()}):")
            lines += _instance_lines(c)
            lines.append(f"replay: {self.replay_command}")
        elif shown is not None:
            lines.append(f"worst margin: {shown.margin:.4g} (relative "
                         f"{shown.relative_margin:.3g}, numerical error "
                         f"{shown.error:.2g}) on an instance where it is {shown.outcome.value}:")
            lines += _instance_lines(shown)
            lines.append(f"replay: {self.replay_command}")
        reasons = self.undecided_reasons()
        if reasons:
            lines.append("not decided:")
            lines += [f"  {n} x {why}" for why, n in sorted(reasons.items(),
                                                            key=lambda kv: -kv[1])]
        if self.unbuildable:
            params, why = self.unbuildable[0]
            lines.append(f"draws the family could not build: {len(self.unbuildable)} (e.g. "
                         f"{params}: {why})")
        if self.plot_path is not None:
            lines.append(f"plot: {self.plot_path}")
        elif self.plot_skipped:
            lines.append(f"plot: not written ({self.plot_skipped})")
        return "\n".join(lines)

    def plot(self, path) -> Path:
        """Both sides of the inequality over time on the shown instance, as a PNG."""
        path = Path(path)
        _plot(self, path)
        self.plot_path = path
        return path


def _instance_lines(inst: Instance) -> list[str]:
    v = inst.verdict
    lines = [f"  {inst.describe()}   horizon {inst.horizon:.4g}"]
    if inst.lhs is not None and inst.rhs is not None:
        where = "event time vs bound" if v.where.part == "t_conv" else (v.where.part or "")
        t = f"t = {inst.t:.6g}" if inst.t is not None and math.isfinite(inst.t) else "t = -"
        lines.append(f"  {t}: lhs = {inst.lhs:.6g}, rhs = {inst.rhs:.6g}   ({where})")
    lines.append(f"  margin {inst.margin:.4g}, numerical error {inst.error:.2g}: "
                 f"{v.outcome.value}{': ' + v.reason if v.reason else ''}")
    return lines


def _plot(result: ConjectureResult, path: Path) -> None:
    plt = pyplot()

    tr, claim = result._trajectory, result._claim
    inst = result.counterexample or result.shown
    if tr is None or claim is None or inst is None:
        raise ConjectureError("nothing to plot: no instance was checked")
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    if claim.kind is Kind.EVENT_TIME:
        rel = claim.event_relations()[0]
    else:
        rel = _relation_named(claim, inst.verdict.where.part)
    lhs, lhs_err = evaluate(claim, tr, rel.lhs)
    rhs, rhs_err = evaluate(claim, tr, rel.rhs)
    positive = np.all(lhs[np.isfinite(lhs)] > 0) and np.all(rhs[np.isfinite(rhs)] > 0)
    for values, err, label, color in ((lhs, lhs_err, sp.sstr(rel.lhs), "C0"),
                                      (rhs, rhs_err, sp.sstr(rel.rhs), "C1")):
        ax.plot(tr.t, values, color=color, lw=1.5, label=label)
        finite = np.isfinite(err)
        ax.fill_between(tr.t[finite], (values - err)[finite], (values + err)[finite],
                        color=color, alpha=0.2, lw=0)
    if positive:
        ax.set_yscale("log")
    if claim.kind is Kind.EVENT_TIME:
        if inst.lhs is not None and math.isfinite(inst.lhs):
            ax.axvline(inst.lhs, color="k", ls="--", lw=1, label=f"first(...) = {inst.lhs:.4g}")
        if inst.rhs is not None:
            ax.axvline(inst.rhs, color="r", ls=":", lw=1.5, label=f"bound = {inst.rhs:.4g}")
    elif inst.t is not None and math.isfinite(inst.t):
        ax.axvline(inst.t, color="r" if result.found else "k", ls=":", lw=1.2,
                   label=f"{'violated' if result.found else 'worst margin'} at t = {inst.t:.4g}")
    ax.set_xlabel("t")
    title = "counterexample" if result.found else "worst instance"
    ax.set_title(f"{result.statement}\n{title}: {result.family} {inst.describe()}", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_png(fig, path)


def replay_command(statement: str, family: str, params: Mapping, mode: str,
                   at_t: float | None, method: MethodSpec, horizon: float | None,
                   points: int) -> str:
    """A command that checks exactly this instance again (every parameter fixed)."""
    args = ["gfverify", "conjecture", statement, "--family", family]
    for k, v in params.items():
        args += ["--param", f"{k}={_fmt(v)}"]
    if horizon is not None:
        args += ["--t-max", repr(float(horizon))]
    args += {"for_all_t": ["--for-all-t"], "as_t_to_inf": ["--as-t-to-inf"],
             "at_t": ["--at-t", repr(at_t)]}[mode]
    if points != DEFAULT_POINTS:
        args += ["--points", str(points)]
    args += method.cli() + ["--budget", "1"]
    return " ".join(shlex.quote(a) for a in args)


# -- the entry point -----------------------------------------------------------------------------
def conjecture(expr_or_callable, family, *, params: Mapping[str, Any] | None = None,
               mode: str = "for_all_t", at_t: float | None = None,
               budget: int = DEFAULT_BUDGET, seed: int = 0, method: str = "flow",
               lr: float | None = None, t_max: float | None = None,
               points: int = DEFAULT_POINTS, shrink_budget: int = DEFAULT_SHRINK_BUDGET,
               plot: str | Path | None = None, min_decided: float = 1.0) -> ConjectureResult:
    """Search ``family`` for a counterexample to a statement; shrink the one found.

    ``expr_or_callable``: a statement in the vocabulary (``"L(t) <= L(0)*exp(-t/n)"``) or
    a callable (see the module docstring). ``family``: a name (``"orthogonal"``) or a
    `Family`. ``params``: parameters to fix (``{"n": 3}``, ``{"horizon": 50}``).
    ``mode``: ``"for_all_t"``, ``"at_t"`` (with ``at_t``) or ``"as_t_to_inf"``.
    ``budget``: instances hypothesis draws; ``seed``: its seed (same seed, same search).
    ``method``: ``"flow"`` (exact gradient flow) or ``"gd"`` (gradient descent, step
    ``lr``). ``t_max`` overrides the family's horizon. ``plot``: write the PNG there.
    ``min_decided``: the share of the instances tried that must be decided (HOLDS or
    VIOLATED) for NO COUNTEREXAMPLE; with fewer the verdict is UNDECIDED.
    """
    if (isinstance(min_decided, bool) or not isinstance(min_decided, (int, float))
            or not 0.0 <= min_decided <= 1.0):
        raise ConjectureError(f"--min-decided: a share in [0, 1], got {min_decided!r}")
    if mode not in MODES:
        raise ConjectureError(f"mode: {mode!r} is not one of {MODES}")
    if mode == "at_t":
        if at_t is None or not (math.isfinite(at_t) and at_t >= 0):
            raise ConjectureError(f"--at-t: a time >= 0 is needed, got {at_t!r}")
    elif at_t is not None:
        raise ConjectureError("at_t is only used with mode='at_t'")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ConjectureError(f"--budget: a positive number of instances, got {budget!r}")
    if isinstance(points, bool) or not isinstance(points, int) or points < 2:
        raise ConjectureError(f"--points: at least 2 saved times, got {points!r}")
    if isinstance(shrink_budget, bool) or not isinstance(shrink_budget, int) or shrink_budget < 0:
        raise ConjectureError(f"--shrink-budget: a number of runs >= 0, got {shrink_budget!r}")
    if t_max is not None and not (isinstance(t_max, (int, float)) and math.isfinite(t_max)
                                  and t_max > 0):
        raise ConjectureError(f"--t-max: a positive finite time, got {t_max!r}")
    try:
        limits.at_most("--budget", budget, "budget")
        limits.at_most("--shrink-budget", shrink_budget, "budget")
        limits.at_most("--points", points, "points")
        horizon_given = t_max if t_max is not None else (params or {}).get("horizon")
        if horizon_given is not None:
            h = float(horizon_given)
            limits.at_most("--t-max", h, "horizon")
            if method == "gd":
                limits.at_most("--t-max / --lr (gradient-descent steps)",
                               h / (lr or DEFAULT_GD_LR), "gd_steps")
    except (TypeError, ValueError) as exc:
        raise ConjectureError(str(exc)) from None
    spec = MethodSpec(method, lr)
    spec.method()  # fail early if the method is unavailable
    if spec.name == "gd" and at_t is not None:
        at_t = spec.snap(at_t)
    try:
        statement = statement_of(expr_or_callable)
    except ExpressionError as exc:
        raise ConjectureError(f"conjecture: {exc}") from None
    fam = fam_mod.get(family) if isinstance(family, str) else family
    fixed = dict(params or {})
    if t_max is not None:
        fixed["horizon"] = t_max
    fam = fam.fixed(**fixed) if fixed else fam
    checker = _Checker(statement, fam, mode, at_t, spec, points,
                       pinned=frozenset(k for k in fixed if k != "horizon"))
    with _callable_quantities(statement.func):
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
                                  min_decided=float(min_decided))
        shown = found or result.worst or (tried[0] if tried else None)
        result.shown = shown
        if shown is None:
            result.plot_skipped = "no instance could be built" if plot is not None else ""
        else:
            result._trajectory = checker.trajectory(shown)
            result._claim = statement.claim(mode, at_t, float(result._trajectory.t[-1]),
                                            _first_positive(result._trajectory))
            horizon = fam.horizon_override
            result.replay_command = replay_command(
                statement.text, fam.name, shown.params, mode, at_t, spec,
                horizon if horizon is not None else None, points)
            if plot is not None:
                result.plot(plot)
    return result


__all__ = ["ConjectureError", "ConjectureResult", "Instance", "conjecture"]
