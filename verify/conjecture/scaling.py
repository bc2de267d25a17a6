"""Scaling conjectures: ``PL(oo) ~ n**alpha`` fitted over sizes, with a confidence interval.

Asymptotic values. ``F(oo)`` is F at t_oo, the first saved time at which
L(t)/L(0) <= ASYMPTOTIC_LEVEL = 1e-9: inside THEORY N-5's window
[1e-12, 1e-3], three decades above its lower end, so the exact-gradient PL
(kappa ||grad L||^2 / L, not a difference of losses) is far above the float64
loss floor (~1e-32 relative), and six decades below L(0), past the
small-initialisation plateaus. ``settle`` reports how much PL(t) still moved
between L/L(0) = 1e-6 and t_oo (N-9: the "final" PL depends on the level while
the rate is still evolving); a run that never reaches the level is extended
(horizon x EXTEND_FACTOR, at most MAX_EXTENSIONS times), and left out of the
fit with its reason if it still does not.

Fit (`verify.engine.scaling.fit_power_law`, the one the catalogue's SCALING checks use).
Ordinary least squares of log F(oo) on log n over every run (``reps`` runs per
n, seeds seed, seed+1, ...), pooled. The interval on the exponent is a
percentile bootstrap over repetitions (runs resampled within each n) when every
n has at least two runs, else the OLS t-interval (N - 2 degrees of freedom);
the t-interval is printed beside it. Both measure the scatter over repetitions
only: a pre-asymptotic curvature of the law (small n) is not in them, so read
a narrow interval at small n with care.

Numerical error. Each F(oo) carries the error a check counts on it (the companion
difference and the propagated error floor, `verify.engine.run_context.evaluate`). Late in a
run that floor (the method's nominal accuracy through the outputs, divided by a residual
of L/L(0) = 1e-9) can exceed the value itself at rtol 1e-10, so a run whose F(oo) is not
known to ``REL_ERROR_TARGET`` (1%) is re-run up the exact flow's ladder (rtol 1e-12,
then 1e-13; `verify.engine.escalation`, ``escalate`` rungs at most) and the finest value is
kept. The slope is linear in the logged values, so errors e_i on the values F_i move it
by at most sum_i |w_i| (-log(1 - e_i/F_i)) (w_i the OLS weights of the runs): the
interval is widened by that much on each side before the verdict, and a run whose error
reaches its value leaves the exponent undecided.

Verdict. With a stated exponent (``n**(-1/2)``): CONSISTENT if it lies inside
the interval widened by the numerical error (exit 0), REJECTED otherwise (exit 1),
INCONCLUSIVE when the error leaves the slope unbounded (exit 3). With ``n**alpha``: the
fit.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import sympy as sp

from numerics import Trajectory
from theory import symbols as S
from theory.claim import ANY_MODEL, Claim, Kind, Provenance, Source
from verify.conjecture import ConjectureError, MethodSpec, run_instance
from verify.conjecture.statement import FLOW_RTOL
from verify.engine.check import CheckError, evaluate
from verify.engine.escalation import DEFAULT_BUDGET, MAX_BUDGET
from verify.engine.scaling import FitError, PowerLawFit, fit_power_law
from verify.instances import families as fam_mod
from verify.instances import run_cost
from verify.language import limits
from verify.language.expressions import ExpressionError, ScalingStatement, parse_scaling
from verify.results.figures import legend, pyplot, save_png

ASYMPTOTIC_LEVEL = 1e-9
SETTLE_LEVEL = 1e-6
EXTEND_FACTOR = 3.0
MAX_EXTENSIONS = 2
CONFIDENCE = 0.95
DEFAULT_NS = (8, 16, 32)
DEFAULT_REPS = 3
DEFAULT_POINTS = 2001
REL_ERROR_TARGET = 1e-2  # a run's F(oo) not known to 1% is re-run more accurately


# -- asymptotic values on one run ------------------------------------------------------------------
@dataclass(frozen=True)
class Point:
    """F(oo) on one run (or why it is missing).

    Attributes
    ----------
    n
        The size n of the instance.
    params
        The family parameters of the instance (seed included).
    value
        F(oo): the quantity at t_oo (NaN when the run gave none).
    error
        Its numerical error, as a check counts it (an upper bound of the true error; NaN
        when missing).
    t_oo
        The first saved time where L/L(0) <= 1e-9 (``ASYMPTOTIC_LEVEL``).
    settle
        The relative change of PL between L/L(0) = 1e-6 and t_oo (how settled the rate is).
    horizon
        The horizon the run was simulated to (extended up to twice, x3 each, when needed).
    reason
        Why the point is left out of the fit ("" when it is in it).
    accuracy
        The more accurate run that gave ``value`` when the first one did not know it to
        ``REL_ERROR_TARGET`` (e.g. "the exact flow at rtol 1e-13"); "" for the first run.
    """

    n: int
    params: dict
    value: float = math.nan
    error: float = math.nan
    t_oo: float = math.nan
    settle: float = math.nan
    horizon: float = math.nan
    reason: str = ""
    accuracy: str = ""

    @property
    def ok(self) -> bool:
        """Whether the point enters the fit (no reason against it, a positive finite value)."""
        return not self.reason and math.isfinite(self.value) and self.value > 0


def _at_infinity(quantity: sp.Basic) -> sp.Basic:
    return quantity.xreplace({term: term.func(S.t)
                              for term in quantity.atoms(sp.core.function.AppliedUndef)})


def asymptotic_value(tr: Trajectory, quantity: sp.Basic) -> tuple[float, float, float, float]:
    """(value, numerical error, t_oo, settle) of ``quantity`` (with F(oo) terms) on ``tr``.

    Raises ConjectureError when the run does not reach L/L(0) <= ASYMPTOTIC_LEVEL.
    """
    claim = Claim(id="scaling", title="", kind=Kind.POINTWISE,
                  source=Source("user", "scaling", Provenance.INFERRED),
                  statement=sp.Ge(S.L(S.t), 0), **ANY_MODEL)
    ratio = tr.loss / tr.loss[0]
    hit = np.flatnonzero(ratio <= ASYMPTOTIC_LEVEL)
    if hit.size == 0:
        raise ConjectureError(f"L/L(0) stays above {ASYMPTOTIC_LEVEL:g} up to t={tr.t[-1]:.4g} "
                              f"(reached {ratio[-1]:.2g})")
    k = int(hit[0])
    try:
        values, errors = evaluate(claim, tr, _at_infinity(quantity))
        pl = tr.pl
    except CheckError as exc:
        raise ConjectureError(str(exc)) from None
    k6 = int(np.flatnonzero(ratio <= SETTLE_LEVEL)[0])
    settle = abs(pl[k] - pl[k6]) / abs(pl[k]) if pl[k] else math.inf
    return float(values[k]), float(errors[k]), float(tr.t[k]), float(settle)


def _refined(tr: Trajectory, quantity: sp.Basic, value: float, error: float,
             escalate: int) -> tuple[float, float, float, float, str] | None:
    """F(oo) from the first run up the exact flow's ladder that knows it to
    ``REL_ERROR_TARGET`` (else the finest tried), or None when no rung was run."""
    from verify.engine.escalation import ladder, rerun

    best = None
    for rung in ladder(tr, budget=escalate):
        finer = rerun(tr, rung)
        if not finer.status.ok or not finer.finite:
            break
        try:
            got = asymptotic_value(finer, quantity)
        except ConjectureError:
            break
        if best is None or got[1] < best[1]:
            best = (*got, rung.label)
        if got[1] <= REL_ERROR_TARGET * abs(got[0]):
            break
    return best if best is not None and best[1] < error else None


def _point(family: fam_mod.Family, params: dict, quantity: sp.Basic, method: MethodSpec,
           points: int, escalate: int = 0) -> Point:
    n = int(params["n"])
    try:
        problem = family.make(params)
    except ValueError as exc:
        return Point(n, params, reason=f"cannot build the instance: {exc}")
    horizon = family.horizon(problem, params)
    reason = ""
    for _ in range(MAX_EXTENSIONS + 1):
        if method.name == "flow":
            try:  # the family's cost model (`verify.instances.run_cost`), within --max-cost
                run_cost.refuse_above(family.name, params, horizon, method.max_cost)
            except run_cost.CostError as exc:
                return Point(n, params, horizon=horizon, reason=f"not run: {exc}")
        tr = run_instance(problem, horizon, method.for_family(family), points, [])
        if not tr.status.ok or not tr.finite:
            return Point(n, params, horizon=horizon,
                         reason=f"simulation not trustworthy: {tr.status.name} {tr.message}")
        try:
            value, error, t_oo, settle = asymptotic_value(tr, quantity)
        except ConjectureError as exc:
            reason = str(exc)
            horizon *= EXTEND_FACTOR
            continue
        accuracy = ""
        if not error <= REL_ERROR_TARGET * abs(value) and escalate:
            finer = _refined(tr, quantity, value, error, escalate)
            if finer is not None:
                value, error, t_oo, settle, accuracy = finer
        return Point(n, params, value, error, t_oo, settle, horizon, accuracy=accuracy)
    return Point(n, params, horizon=horizon / EXTEND_FACTOR, reason=reason)


def error_widening(points: Sequence[Point]) -> float:
    """The most the runs' numerical errors can move the OLS slope of log F(oo) on log n:
    sum_i |w_i| (-log(1 - e_i/F_i)) over the points in the fit, with w_i the slope's
    weight of run i ((x_i - mean x) / sum (x_j - mean x)^2, x = log n); inf when an error
    reaches its value (the log of the value is then unbounded below)."""
    pts = [p for p in points if p.ok]
    if not pts:
        return math.inf
    x = np.log([p.n for p in pts])
    centred = x - x.mean()
    sxx = float(np.sum(centred**2))
    rel = np.array([p.error / abs(p.value) if math.isfinite(p.error) else math.inf
                    for p in pts])
    if sxx == 0 or not np.all(rel < 1):
        return math.inf
    return float(np.sum(np.abs(centred) / sxx * -np.log1p(-rel)))


# -- the conjecture -----------------------------------------------------------------------
@dataclass
class ScalingResult:
    """What a scaling conjecture found: F(oo) on every run, the power-law fit, the verdict.

    Attributes
    ----------
    statement
        The parsed statement (quantity, law, stated exponent or None when it is fitted).
    family
        The family's name.
    ns
        The sizes n run, in order.
    reps
        Repetitions (seeds) per size.
    seed
        The first seed; the repetitions use ``seed .. seed + reps - 1``.
    method
        How instances were simulated (`verify.conjecture.MethodSpec`).
    points
        One `Point` per run (left-out ones with their reason).
    fit
        The power-law fit of log F(oo) on log n (exponent, bootstrap and OLS intervals,
        prefactor), or None when too few runs reached their asymptotic window.
    note
        Why there is no fit ("" when there is one).
    plot_path
        The PNG written of F(oo) against n with the fit, or None.
    fixed
        The family parameters fixed by the caller, name -> value.
    """

    statement: ScalingStatement
    family: str
    ns: tuple[int, ...]
    reps: int
    seed: int
    method: MethodSpec
    points: list[Point]
    fit: PowerLawFit | None
    note: str = ""
    plot_path: Path | None = None
    fixed: dict = field(default_factory=dict)

    @property
    def widening(self) -> float:
        """How far the runs' numerical errors can move the slope (`error_widening`)."""
        return error_widening(self.points)

    @property
    def verdict(self) -> str:
        """``"CONSISTENT"`` or ``"REJECTED"`` (the stated exponent inside or outside the
        interval widened by the numerical error), ``"FITTED"`` (no exponent stated) or
        ``"INCONCLUSIVE"`` (no fit, or errors that leave the slope unbounded)."""
        if self.fit is None:
            return "INCONCLUSIVE"
        if self.statement.exponent is None:
            return "FITTED"
        b = self.widening
        if not math.isfinite(b):
            return "INCONCLUSIVE"
        e = self.statement.exponent
        return "CONSISTENT" if self.fit.lo - b <= e <= self.fit.hi + b else "REJECTED"

    @property
    def exit_code(self) -> int:
        """The command's exit code (1 REJECTED, 3 INCONCLUSIVE, else 0)."""
        from verify.exit_codes import EXIT_FOUND, EXIT_OK, EXIT_UNDECIDED

        return {"REJECTED": EXIT_FOUND, "INCONCLUSIVE": EXIT_UNDECIDED}.get(self.verdict,
                                                                             EXIT_OK)

    def report(self) -> str:
        """The result as ``gfverify conjecture --scaling`` prints it (a table and the fit)."""
        st = self.statement
        lines = [f"scaling conjecture: {st.text.strip()}",
                 f"family: {self.family}   n = {', '.join(map(str, self.ns))}   "
                 f"repetitions: {self.reps} (seeds {self.seed}..{self.seed + self.reps - 1})   "
                 f"method: {self.method.name}",
                 f"{sp.sstr(st.quantity)} taken at t_oo = first time L/L(0) <= "
                 f"{ASYMPTOTIC_LEVEL:g}"]
        lines.append(f"  {'n':>5} {'runs':>4} {'mean':>11} {'min':>11} {'max':>11} "
                     f"{'max rel err':>11} {'PL settle':>9} {'t_oo':>8}")
        for n in self.ns:
            pts = [p for p in self.points if p.n == n and p.ok]
            if not pts:
                lines.append(f"  {n:>5} {0:>4}   (no run reached the asymptotic window)")
                continue
            v = np.array([p.value for p in pts])
            rel = max(p.error / abs(p.value) for p in pts)
            settle = max(p.settle for p in pts)
            t_oo = np.mean([p.t_oo for p in pts])
            lines.append(f"  {n:>5} {len(pts):>4} {v.mean():>11.4g} {v.min():>11.4g} "
                         f"{v.max():>11.4g} {rel:>11.2g} {settle:>9.2g} {t_oo:>8.4g}")
        for p in self.points:
            if not p.ok:
                lines.append(f"  left out: n={p.n} seed={p.params.get('seed')}: {p.reason}")
        finer = Counter(p.accuracy for p in self.points if p.ok and p.accuracy)
        if finer:
            lines.append(f"  re-run more accurately (F(oo) not known to "
                         f"{REL_ERROR_TARGET:.0%} at rtol {FLOW_RTOL:g}): "
                         + ", ".join(f"{k} runs by {label}" for label, k in finer.items()))
        if self.fit is None:
            lines.append(f"verdict: INCONCLUSIVE: {self.note}")
            return "\n".join(lines)
        f = self.fit
        pct = int(round(100 * f.level))
        b = self.widening
        lines.append(f"fit: alpha = {f.exponent:.3f}, {pct}% CI [{f.lo:.3f}, {f.hi:.3f}] "
                     f"({f.method} over repetitions, {f.points} runs); OLS t-interval "
                     f"[{f.t_lo:.3f}, {f.t_hi:.3f}]; prefactor {f.prefactor:.3g}")
        lines.append("numerical error: " + (
            f"the runs' errors move alpha by at most {b:.2g}" if math.isfinite(b) else
            "a run's error reaches its value, so the errors leave alpha unbounded"))
        if st.exponent is None:
            lines.append("verdict: FITTED (no exponent stated)")
        elif not math.isfinite(b):
            lines.append(f"verdict: INCONCLUSIVE: the stated exponent {st.exponent:g} cannot "
                         "be judged while a run's F(oo) is not known to within its value")
        else:
            inside = "inside" if self.verdict == "CONSISTENT" else "outside"
            widened = (f"the {pct}% interval widened by the numerical error, "
                       f"[{f.lo - b:.3f}, {f.hi + b:.3f}]")
            lines.append(f"verdict: {self.verdict}: the stated exponent {st.exponent:g} is "
                         f"{inside} {widened}")
        if self.plot_path is not None:
            lines.append(f"plot: {self.plot_path}")
        return "\n".join(lines)

    def plot(self, path) -> Path:
        """F(oo) of every run against n, log-log, with the fit and the stated law; a PNG at
        ``path`` (returned, and kept in ``plot_path``)."""
        plt = pyplot()

        path = Path(path)
        pts = [p for p in self.points if p.ok]
        fig, ax = plt.subplots(figsize=(6.5, 4.5))
        ax.loglog([p.n for p in pts], [p.value for p in pts], "o", color="C0", alpha=0.7,
                  label=f"{sp.sstr(self.statement.quantity)} (runs)")
        if self.fit is not None and pts:
            grid = np.geomspace(min(self.ns), max(self.ns), 50)
            f = self.fit
            ax.loglog(grid, f.prefactor * grid**f.exponent, color="C0",
                      label=f"fit n^{f.exponent:.3f} [{f.lo:.2f}, {f.hi:.2f}]")
            if self.statement.exponent is not None:
                x0 = math.exp(np.mean(np.log([p.n for p in pts])))
                y0 = f.prefactor * x0**f.exponent
                e = self.statement.exponent
                ax.loglog(grid, y0 * (grid / x0) ** e, "--", color="C3",
                          label=f"stated n^{e:g}")
        ax.set_xlabel("n")
        ax.set_title(f"{self.statement.text.strip()} on {self.family}", fontsize=9)
        legend(ax, fontsize=8)
        fig.tight_layout()
        save_png(fig, path)
        self.plot_path = path
        return path


def _job(args) -> Point:
    family_name, fixed, params, quantity_text, method, points, escalate = args
    fam = fam_mod.get(family_name)
    fam = fam.fixed(**fixed) if fixed else fam
    quantity = parse_scaling(quantity_text).quantity
    return _point(fam, params, quantity, method, points, escalate)


def _time(text) -> float:
    """``--param horizon``'s value as a number (the family refuses a bad one by name)."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return 0.0


def scaling_conjecture(text: str, family, ns: Sequence[int] = DEFAULT_NS, *,
                       reps: int = DEFAULT_REPS, params: Mapping | None = None, seed: int = 0,
                       method: str = "flow", lr: float | None = None,
                       t_max: float | None = None, points: int = DEFAULT_POINTS,
                       jobs: int = 1, plot: str | Path | None = None,
                       escalate: int = DEFAULT_BUDGET,
                       max_cost: float = run_cost.DEFAULT_MAX_COST) -> ScalingResult:
    """Fit the exponent of ``text`` (``"PL(oo) ~ n**alpha"``) over ``ns`` on ``family``.

    Every parameter but n and the seed is at its default (``gfverify families``) unless
    fixed in ``params``; each n runs ``reps`` seeds. ``jobs`` > 1 runs in processes.
    ``escalate``: the more accurate exact-flow runs a run whose F(oo) is not known to
    ``REL_ERROR_TARGET`` may take (0: none; see the module docstring).
    """
    try:
        statement = parse_scaling(text)
    except ExpressionError as exc:
        raise ConjectureError(f"--scaling: {exc}") from None
    ns = tuple(int(n) for n in ns)
    if len(ns) < 2 or len(set(ns)) < 2 or min(ns) < 1:
        raise ConjectureError(f"--n: at least two distinct positive sizes, got {list(ns)}")
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
        raise ConjectureError(f"--reps: a positive number of repetitions, got {reps!r}")
    if (isinstance(escalate, bool) or not isinstance(escalate, int)
            or not 0 <= escalate <= MAX_BUDGET):
        raise ConjectureError(f"--escalate: 0 to {MAX_BUDGET} more accurate runs, got "
                              f"{escalate!r}")
    if len(ns) * reps < 3:
        raise ConjectureError("--n/--reps: the fit needs at least 3 runs")
    try:
        limits.at_most("--n", max(ns), "size")
        limits.at_most("--n/--reps (runs)", len(ns) * reps, "budget")
        limits.at_most("--points", points, "points")
    except limits.LimitError as exc:
        raise ConjectureError(str(exc)) from None
    spec = MethodSpec(method, lr, max_cost=max_cost)
    spec.method()
    fam = fam_mod.get(family) if isinstance(family, str) else family
    if "n" not in fam.params:
        raise ConjectureError(f"--family: {fam.name} has no parameter n to scale")
    fixed = dict(params or {})
    for key in ("n", "seed"):
        if key in fixed:
            raise ConjectureError(f"--param {key}: set by the scaling run (--n, --seed, --reps)")
    if t_max is not None:
        fixed["horizon"] = t_max
    narrowed = fam.fixed(**fixed) if fixed else fam
    jobs_args = []
    for n in ns:
        for r in range(reps):
            try:
                values = narrowed.defaults(n=n, seed=seed + r)
                limits.problem_size(values)
            except (fam_mod.FamilyError, limits.LimitError) as exc:
                raise ConjectureError(str(exc)) from None
            jobs_args.append((fam.name, fixed, values, text, spec, points, escalate))
    if spec.name == "flow" and narrowed.horizon_override is not None and jobs_args:
        cheapest = min(jobs_args, key=lambda a: a[2]["n"])[2]  # a horizon no run affords
        try:
            run_cost.refuse_above(fam.name, cheapest, narrowed.horizon_override, max_cost)
        except run_cost.CostError as exc:
            option = "--t-max" if t_max is not None else "--param horizon"
            raise ConjectureError(f"{option} {narrowed.horizon_override:g}: {exc}") from None
    if jobs > 1:
        from verify.running.pool import worker_pool

        with worker_pool(jobs) as pool:
            pts = pool.map(_job, jobs_args)
    else:
        pts = [_job(a) for a in jobs_args]
    ok = [p for p in pts if p.ok]
    fit, note = None, ""
    try:
        fit = fit_power_law([p.n for p in ok], [p.value for p in ok], level=CONFIDENCE,
                            seed=seed)
    except FitError as exc:
        note = str(exc)
    result = ScalingResult(statement=statement, family=fam.name, ns=ns, reps=reps, seed=seed,
                           method=spec, points=pts, fit=fit, note=note, fixed=fixed)
    if plot is not None:
        result.plot(plot)
    return result


__all__ = ["Point", "ScalingResult", "asymptotic_value", "error_widening", "scaling_conjecture"]
