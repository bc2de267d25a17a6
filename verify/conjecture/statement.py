"""A conjecture's statement as a `theory.Claim`: the text a user writes (parsed, never
evaluated, by `verify.language.expressions`) or a Python callable read as a temporary trajectory
quantity, with the search's modes, methods and defaults (`verify.conjecture`).
"""


from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from numerics import Problem, Trajectory
from theory import symbols as S
from theory.claim import ANY_MODEL, Assumption, Claim, Kind, Provenance, Source
from verify.errors import InputError
from verify.language import limits, measures
from verify.language.expressions import ExpressionError, Parsed, parse_conjecture

MODES = ("for_all_t", "at_t", "as_t_to_inf", "window")
METHODS = ("flow", "gd")
DEFAULT_BUDGET = 20
DEFAULT_SHRINK_BUDGET = 40
DEFAULT_POINTS = 1001
DEFAULT_GD_LR = 1e-2
FLOW_RTOL = 1e-10
TINY = 1e-300


class ConjectureError(InputError):
    """Bad input to a conjecture (statement, family, parameter, mode or method)."""


class UndefinedHere(ConjectureError):
    """The statement is not a finite real number on one instance; ``names`` are the instance
    quantities the undefined part depends on."""

    def __init__(self, message: str, names: frozenset):
        super().__init__(message)
        self.names = names


def check_search_options(mode: str, at_t, counts: dict, t_max, horizon=None,
                         error=ConjectureError) -> None:
    """Refuse bad search options before any simulation, one clear ``error`` each: the
    mode and its time, integer counts (``{"--budget": (value, lowest), ...}``; budgets
    and ``--points`` within the work limits) and a horizon (``--t-max``, or a given
    ``horizon`` parameter)."""
    if mode not in MODES:
        raise error(f"mode: {mode!r} is not one of {MODES}")
    if mode == "window":
        from verify.conjecture.when import Window

        if not isinstance(at_t, Window):
            raise error(f"--window: two times 'A, B' are needed, got {at_t!r}")
        return _check_counts(counts, t_max, horizon, error)
    if mode == "at_t":
        from verify.conjecture.when import AtTime

        if isinstance(at_t, AtTime):
            pass  # an instance-dependent time: checked on each instance
        elif (at_t is None or isinstance(at_t, bool) or not isinstance(at_t, int | float)
              or not (math.isfinite(at_t) and at_t >= 0)):
            raise error(f"--at-t: a time >= 0 is needed, got {at_t!r}")
    elif at_t is not None:
        raise error("at_t is only used with mode='at_t' (or the window of mode='window')")
    _check_counts(counts, t_max, horizon, error)


def _check_counts(counts: dict, t_max, horizon, error) -> None:
    for name, (value, lowest) in counts.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < lowest:
            raise error(f"{name}: an integer >= {lowest}, got {value!r}")
    if t_max is not None and not (isinstance(t_max, (int, float)) and math.isfinite(t_max)
                                  and t_max > 0):
        raise error(f"--t-max: a positive finite time, got {t_max!r}")
    try:
        for name, (value, _) in counts.items():
            limits.at_most(name, value, "points" if name == "--points" else "budget")
    except (TypeError, ValueError) as exc:
        raise error(str(exc)) from None


def parse_assumptions(texts) -> tuple[Assumption, ...]:
    """``--assume`` texts as assumptions: conditions on the instance (its data, sizes and
    initialisation: n, lam, OffDiagGram, MinInitBalance, ...), never on the run."""
    out = []
    for text in texts or ():
        try:
            rel = parse_conjecture(str(text)).relation
        except ExpressionError as exc:
            raise ConjectureError(f"--assume {text!r}: {exc}") from None
        if rel.has(S.t) or rel.atoms(sp.core.function.AppliedUndef):
            raise ConjectureError(f"--assume {text!r}: an assumption is a condition on the "
                                  "instance (n, lam, OffDiagGram, ...), not on quantities of "
                                  "time")
        out.append(Assumption(name=f"--assume {text}", statement=rel, text=str(text)))
    return tuple(out)


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
                         event_time=S.t_conv, **ANY_MODEL)
        rel = self.parsed.relation if self.parsed is not None else _CALLABLE_RELATION
        if mode == "window":  # at_t: the window's ends on this instance, as numbers
            lo, hi = at_t
            window = (sp.Float(lo), sp.oo if math.isinf(hi) else sp.Float(hi))
        else:
            window = {"for_all_t": (sp.Float(t_first), sp.oo),
                      "at_t": (sp.Float(at_t), sp.Float(at_t)) if at_t is not None else None,
                      "as_t_to_inf": (sp.Float(t_end), sp.Float(t_end))}[mode]
        return Claim(id="conjecture", title=self.text, kind=Kind.POINTWISE, source=source,
                     statement=rel, window=window, **ANY_MODEL)

    def require_defined(self, problem: Problem) -> None:
        """Refuse, before simulating, a statement whose instance-only parts (1/(n - 2),
        log(lam - 1), ...) are not finite real numbers on this instance."""
        if self.parsed is None:
            return
        exprs = [self.parsed.relation] + ([self.parsed.event] if self.parsed.event is not None
                                         else [])
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
def callable_quantities(func):
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


