"""A claim's expressions evaluated on a run: every measured quantity, instance value and
parameter of the statement at the saved times, with its numerical error (ERROR_SAFETY x
the companion difference + the round-off propagated through the expression), and the
signed margin of each relation. `verify.engine.check_run` decides on these numbers.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import sympy as sp

from numerics import Trajectory
from numerics.conventions import in_loss_scale
from theory.bridge import flatten
from theory.claim import Claim
from verify.engine.relations import signed_margin
from verify.engine.verdict import CheckError
from verify.language.measures import (
    ERROR_SAFETY,
    Series,
    UndefinedQuantity,
    UnknownQuantity,
    instance_values,
    measure,
)

# Absolute slack for assumptions stated as "= 0" on instance quantities
# (orthogonality, balance): they are computed from exact data up to round-off.
ASSUMPTION_ATOL = 1e-12

_T = sp.Symbol("t", nonnegative=True, real=True)

def evaluate(claim: Claim, tr: Trajectory, expr: sp.Basic) -> tuple[np.ndarray, np.ndarray]:
    """``expr`` (in the claim's terms) over the saved times of ``tr``, and its numerical
    error exactly as a check counts it (ERROR_SAFETY x companion difference + propagated
    round-off; inf where unknown). Used to show both sides of a relation."""
    try:
        values = RunContext(claim, tr).values(expr)
    except MissingValue as exc:
        raise CheckError(f"the instance does not define {exc}") from None
    return values.fine, values.error


def relation_margins(claim: Claim, tr: Trajectory) -> list[tuple[sp.Basic, np.ndarray, np.ndarray]]:
    """(relation, margin, error) over the saved times for each relation of the statement,
    exactly as the window checks compute them (margin >= 0: the relation holds)."""
    ctx = RunContext(claim, tr)
    try:
        return [(rel, *margin_on_run(rel, ctx)[:2]) for rel in claim.relations()]
    except MissingValue as exc:
        raise CheckError(f"the instance does not define {exc}") from None


def in_claim_convention(claim: Claim, tr: Trajectory) -> Trajectory:
    """``tr`` read in the loss convention ``claim``'s formulas are written for
    (`theory.Claim.convention_scale`: the same states, the times rescaled,
    `numerics.conventions`); ``tr`` itself when they agree or the claim takes the run's
    own. Every reader of a claim on a run goes through it, so that a run made with
    torch's MSELoss (the flow of 2L) is judged as the flow of L it is, at twice its times."""
    if tr is None:
        return tr
    scale = convention_of(claim, tr.problem)
    return tr if scale is None else in_loss_scale(tr, scale)


def convention_of(claim: Claim, problem) -> float | None:
    """The loss prefactor ``claim`` is written for on ``problem`` (None: the problem's own)."""
    try:
        return claim.convention_scale(problem.loss, instance_values(problem))
    except (KeyError, UndefinedQuantity) as exc:
        raise CheckError(f"{claim.id}: its loss convention {claim.loss_scale} is not "
                         f"defined on this instance ({exc})") from None


def problem_in_claim_convention(claim: Claim, problem):
    """The Problem in ``claim``'s loss convention (`in_claim_convention`, for a problem)."""
    scale = convention_of(claim, problem)
    if scale is None or scale == problem.loss_scale:
        return problem
    from dataclasses import replace

    return replace(problem, loss_scale=scale,
                   meta=dict(problem.meta, read_from_loss_scale=problem.loss_scale))


# -- evaluation of expressions on a run ----------------------------------------------------
@dataclass
class _Values:
    """An expression over the saved times: its values on the run (and on the companion,
    None without one), the numerical error a check counts, and the part of that error that
    is rounding no float64 run can remove (the resolution, `verify.engine.check_run`)."""

    fine: np.ndarray
    companion: np.ndarray | None
    error: np.ndarray
    rounding: np.ndarray


class MissingValue(Exception):
    """An instance quantity the expression needs is not defined for this Problem."""


@dataclass
class _Input:
    """One argument of a flattened expression: its values on the run and companion, its
    round-off floor and rounding, and (for a measured quantity) an own total error."""

    fine: np.ndarray | float
    companion: np.ndarray | float | None
    roundoff: np.ndarray | None = None
    rounding: np.ndarray | None = None
    own_error: np.ndarray | None = None


class RunContext:
    def __init__(self, claim: Claim, tr: Trajectory):
        self.claim = claim
        self.tr = in_claim_convention(claim, tr)
        self.inst = instance_values(self.tr.problem)
        self._series: dict[tuple[str, bool], Series] = {}

    @classmethod
    def of_problem(cls, claim: Claim, problem) -> RunContext:
        """A context with the instance's numbers only (no run): for assumptions and other
        instance-level expressions."""
        ctx = cls.__new__(cls)
        problem = problem_in_claim_convention(claim, problem)
        ctx.claim, ctx.tr, ctx.inst, ctx._series = claim, None, instance_values(problem), {}
        return ctx

    def series(self, name: str, companion: bool) -> Series:
        key = (name, companion)
        if key not in self._series:
            try:
                self._series[key] = measure(self.tr.companion if companion else self.tr, name)
            except UnknownQuantity as exc:
                raise CheckError(f"{self.claim.id}: {exc.args[0]}") from None
            except UndefinedQuantity as exc:  # not defined on this run (a vector output)
                raise MissingValue(exc.args[0]) from None
        return self._series[key]

    def scalar(self, expr: sp.Basic) -> float:
        """Evaluate an instance-level expression (no trajectory functions)."""
        expr = self.claim.substituted(expr)
        flat, originals = flatten(expr)
        missing = [nm for nm in originals if nm not in self.inst]
        if missing:
            raise MissingValue(", ".join(missing))
        subs = {s: self.inst[s.name] for s in flat.free_symbols}
        return float(flat.xreplace(subs))

    def values(self, expr: sp.Basic, fine_only: bool = False) -> _Values:
        """Evaluate an expression over the saved times, with its error (``fine_only``: the
        run's values alone; companion and round-off are then not computed).

        The error is the smallest of the justified estimates, time by time: ERROR_SAFETY x
        the companion difference of the whole expression plus each input's round-off floor
        propagated to first order; the same with a quantity's own total error where its
        measure gives one (a conserved quantity's drift, `verify.language.measures.Series`); and,
        for
        an expression with both F(t) and F(s) of a quantity whose measure computes
        increments, the expression rewritten in F(t) - F(s) (a difference of nearly equal
        values is then measured directly, not as two rounded values)."""
        expr = self.claim.substituted(expr)
        flat, originals = flatten(expr)
        has_comp = (not fine_only and self.tr.companion is not None
                    and len(self.tr.companion.t) == len(self.tr.t))
        inputs = {name: self._input(name, term, has_comp, fine_only)
                  for name, term in originals.items()}
        best = self._combine(flat, inputs, has_comp, fine_only)
        if fine_only:
            return best
        for rewritten, extra in self._increment_forms(flat, originals, has_comp):
            best = _smaller(best, self._combine(rewritten, {**inputs, **extra}, has_comp,
                                                fine_only))
        return best

    def _input(self, name: str, term: sp.Basic, has_comp: bool, fine_only: bool) -> _Input:
        T = len(self.tr.t)
        if isinstance(term, sp.Derivative):
            # d/dt F(t) is the measurement named "dF" (computed exactly from the field)
            term = sp.Function("d" + term.expr.func.__name__)(*term.expr.args)
        if isinstance(term, sp.core.function.AppliedUndef):
            fname = term.func.__name__
            (arg,) = term.args
            s_f = self.series(fname, False)
            s_c = self.series(fname, True) if has_comp else None
            at = slice(None) if arg == _T else _saved_index(self.tr.t, float(arg))

            def per_time(a):
                if a is None:
                    return None
                return a[at] if arg == _T else np.full(T, a[at])

            return _Input(fine=s_f.values[at], companion=None if s_c is None else s_c.values[at],
                          roundoff=per_time(s_f.roundoff),
                          rounding=per_time(s_f.rounding),
                          own_error=per_time(getattr(s_f, "own_error", None)))
        if term == _T or getattr(term, "name", None) == "t":
            return _Input(fine=self.tr.t, companion=self.tr.t)
        if term.name in self.inst:
            value = self.inst[term.name]
            # an instance quantity computed with a known error (e.g. by an optimisation)
            err = float(getattr(value, "error", 0.0) or 0.0)
            # (that error is not float64 rounding: it never makes a time unresolvable)
            return _Input(fine=value, companion=value,
                          roundoff=np.full(T, err) if err else None)
        raise MissingValue(term.name)

    def _combine(self, flat: sp.Basic, inputs: dict[str, _Input], has_comp: bool,
                 fine_only: bool) -> _Values:
        """``flat`` on the inputs, with the smaller of the two error estimates (companion
        difference, or the quantities' own errors where given) at each time."""
        T = len(self.tr.t)
        symbols = sorted(flat.free_symbols, key=lambda s: s.name)
        fn = sp.lambdify(symbols, flat, modules="numpy")
        expr_text = sp.sstr(flat)

        def real(args: dict) -> np.ndarray:
            try:
                out = np.broadcast_to(fn(*(args[s.name] for s in symbols)), (T,))
            except (ZeroDivisionError, OverflowError) as exc:
                # Python floats raise where float64 gives +-inf (3/lam**(eps/2) at a huge
                # eps): evaluate in float64; only a value float64 cannot give is undefined
                out = np.broadcast_to(fn(*(np.float64(args[s.name]) if np.isscalar(
                    args[s.name]) else args[s.name] for s in symbols)), (T,))
                if np.any(np.isnan(out)):
                    raise CheckError(f"{expr_text} is undefined on instance "
                                     f"{self.tr.problem.describe()} ({exc})") from None
            if np.iscomplexobj(out) and np.any(np.imag(out) != 0):
                raise CheckError(f"{expr_text} is not real on instance "
                                 f"{self.tr.problem.describe()}")
            return np.real(out).astype(float)

        args_fine = {s.name: inputs[s.name].fine for s in symbols}
        with np.errstate(all="ignore"):
            fine = real(args_fine)
            if fine_only:
                return _Values(fine, None, np.full(T, np.inf), np.zeros(T))
            comp = (real({s.name: inputs[s.name].companion for s in symbols}) if has_comp
                    else None)
            slopes = {s.name: self._propagation(flat, s, symbols, args_fine, inputs, real, fine)
                      for s in symbols if inputs[s.name].roundoff is not None
                      or inputs[s.name].own_error is not None}

            def propagated(field: str, names) -> np.ndarray:
                total = np.zeros(T)
                for name in names:
                    size = getattr(inputs[name], field)
                    if size is not None:
                        total = total + slopes[name](size)
                return total

            rounding = propagated("rounding", slopes)
            if any(inputs[name].rounding is None for name in slopes):
                rounding = np.full(T, np.nan)  # a quantity's rounding is not known
            integ = np.full(T, np.inf) if comp is None else np.abs(fine - comp)
            error = ERROR_SAFETY * integ + propagated("roundoff", slopes)
            owners = [s.name for s in symbols if inputs[s.name].own_error is not None]
            if owners and has_comp:
                # the owners' own errors in place of their companion difference and floor
                comp_rest = real({s.name: (inputs[s.name].fine if s.name in owners
                                           else inputs[s.name].companion) for s in symbols})
                own = (ERROR_SAFETY * np.abs(fine - comp_rest)
                       + propagated("own_error", owners)
                       + propagated("roundoff", [n for n in slopes if n not in owners]))
                error = np.fmin(np.where(np.isnan(error), np.inf, error), own)
        error = np.where(np.isnan(error), np.inf, error)
        # an unknown rounding (a quantity that does not give one, NaN at a kink, inf from an
        # overflow) is NaN: it names no time, and an equality's size is then not known
        return _Values(fine, comp, error, np.where(np.isfinite(rounding), rounding, np.nan))

    def _propagation(self, flat, s, symbols, args_fine, inputs, real, fine):
        """size -> |d flat / d s| x size over the saved times (the first-order propagation of
        an error of ``s``), bounded by the moved value where the slope overflows."""
        slope = _slope(flat, s, symbols, args_fine, len(self.tr.t))

        def apply(size: np.ndarray) -> np.ndarray:
            term = slope * size
            # a slope that overflows (1/N(0)^2 at N(0) ~ 1e-200) while the value and the
            # input's error are finite: the moved value instead (an unknown error, or an
            # unknown error at a kink, stays unknown)
            unknown = np.isinf(slope) & np.isfinite(fine) & np.isfinite(size)
            if unknown.any():
                term = np.where(unknown, _moved(real, args_fine, s.name, size, fine), term)
            return term

        return apply

    def _increment_forms(self, flat: sp.Basic, originals: dict, has_comp: bool):
        """``flat`` with F(s) replaced by F(t) - [F(t) - F(s)] for each quantity F whose
        measure gives increments, and the increment as a new input (one form per F)."""
        by_function: dict[str, dict[str, sp.Basic]] = {}
        for name, term in originals.items():
            if isinstance(term, sp.core.function.AppliedUndef):
                by_function.setdefault(term.func.__name__, {})[name] = term
        for fname, terms in by_function.items():
            now = [n for n, term in terms.items() if term.args[0] == _T]
            fixed = [n for n, term in terms.items() if term.args[0] != _T]
            if not now or not fixed:
                continue
            s_f = self.series(fname, False)
            if s_f.increment is None:
                continue
            s_c = self.series(fname, True) if has_comp else None
            subs, extra = {}, {}
            for name in fixed:
                k = _saved_index(self.tr.t, float(terms[name].args[0]))
                inc = s_f.increment(k)
                inc_c = s_c.increment(k) if s_c is not None and s_c.increment else None
                delta = f"Delta_{name}"
                extra[delta] = _Input(fine=inc.values,
                                      companion=None if inc_c is None else inc_c.values,
                                      roundoff=inc.roundoff, rounding=inc.rounding)
                subs[sp.Symbol(name, real=True)] = (sp.Symbol(now[0], real=True)
                                                    - sp.Symbol(delta, real=True))
            yield flat.xreplace(subs), extra


def _smaller(a: _Values, b: _Values) -> _Values:
    """Per time, the evaluation with the smaller error (both are estimates of the same
    expression with valid error bounds). The rounding is the smaller of the two forms', not
    necessarily the picked one's: fewer times are then named unresolvable (the safe side),
    and what the best formula resolves is what float64 resolves."""
    pick = b.error < a.error
    companion = None
    if a.companion is not None and b.companion is not None:
        companion = np.where(pick, b.companion, a.companion)
    return _Values(np.where(pick, b.fine, a.fine), companion, np.where(pick, b.error, a.error),
                   np.fmin(a.rounding, b.rounding))


def _moved(evaluate, args: dict, name: str, roundoff: np.ndarray,
           fine: np.ndarray) -> np.ndarray:
    """How far the value moves when the input ``name`` moves by its round-off either way:
    the first-order error where the derivative itself is not representable (a slope
    |f/s| that overflows while f, s and the round-off are finite)."""
    base = np.broadcast_to(np.asarray(args[name], dtype=float), fine.shape)
    moved = [np.abs(evaluate({**args, name: base + sign * roundoff}) - fine)
             for sign in (1.0, -1.0)]
    out = np.maximum(*moved)
    return np.where(np.isnan(out), np.inf, out)


def _slope(flat: sp.Basic, s: sp.Symbol, symbols: list, args: dict, T: int) -> np.ndarray:
    """|d flat / d s| over the saved times, for the propagation of ``s``'s round-off.

    Where an ``Abs(g)`` sits exactly at g = 0, sympy's derivative there is 0 (sign(0)) or
    0/0; the bound over the subgradient is used instead: each Abs(g) read as +g and as
    -g, the largest slope over the sign choices (more than four |.| at once: NaN there,
    an unknown error rather than an understated one)."""
    def values(expr):
        fn = sp.lambdify(symbols, expr, modules="numpy")
        with np.errstate(all="ignore"):
            return np.broadcast_to(fn(*(args[q.name] for q in symbols)), (T,))

    slope = np.abs(values(sp.diff(flat, s)))
    absolutes = sorted(flat.atoms(sp.Abs), key=sp.default_sort_key)
    if not absolutes:
        return slope
    at_kink = ~np.isfinite(slope)
    for a in absolutes:
        at_kink |= values(a.args[0]) == 0
    if not at_kink.any():
        return slope
    if len(absolutes) > 4:  # NaN: unknown (not an overflow `_moved` could bound)
        return np.where(at_kink, np.nan, slope)
    bound = np.zeros(T)
    for signs in itertools.product((1, -1), repeat=len(absolutes)):
        chosen = flat.xreplace({a: sign * a.args[0] for a, sign in zip(absolutes, signs,
                                                                       strict=True)})
        bound = np.maximum(bound, np.abs(values(sp.diff(chosen, s))))
    return np.where(at_kink, bound, slope)


def _saved_index(times: np.ndarray, at: float) -> int:
    k = int(np.argmin(np.abs(times - at)))
    if abs(times[k] - at) > 1e-12 * max(1.0, abs(at)):
        raise CheckError(f"the claim needs the state at t={at}, which is not a saved time")
    return k


def margin_on_run(rel: sp.Basic, ctx: RunContext
                  ) -> tuple[np.ndarray, np.ndarray, bool, np.ndarray]:
    """(margin, error, is_equality, rounding) of a relation over the saved times.

    Inequalities: margin = how far the relation is from failing (>= 0 holds).
    Equalities: margin = -|lhs - rhs|, compared against the error alone.
    ``rounding``: the part of the error no float64 run can remove (`_Values`).
    """
    signed_margin(rel, 0.0)  # an unsupported relation is refused before it is evaluated
    diff = ctx.values(rel.lhs - rel.rhs)
    return (signed_margin(rel, diff.fine), diff.error, isinstance(rel, sp.Equality),
            diff.rounding)


