"""What is tightened: a statement with one free constant, solved for that constant.

A statement ``lhs <= rhs`` (or ``>=``, or a conjunction of such) holds at a value of the
free constant C exactly when ``g(C) = rhs - lhs >= 0``. Where C enters monotonically,
``g`` changes sign at one value, the *critical* value ``c = h(quantities)`` (sympy
solves ``g(C) = 0`` for C once, symbolically), and the sign of ``dg/dC`` there says on
which side the statement holds: positive, it holds for C >= c (C is bounded below:
the sharpest C over instances is the largest c); negative, for C <= c (the sharpest
is the smallest c). A part whose C cannot be isolated this way (no solution, several,
or a slope of both signs) is refused by name.

Two sources: a user's text with ``--free C`` (`from_text`) or a catalogue claim
(`from_claim`), where C replaces a named parameter (``--param c_T``) or multiplies the
bound side of each relation (the right-hand side: ``lhs <= C * rhs``), so that the
proved value is the parameter's value or 1.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

import sympy as sp

from theory import registry
from theory.claim import Claim, Kind
from theory.suggest import did_you_mean
from verify.conjecture.statement import ConjectureError, Statement
from verify.language.expressions import ExpressionError, Parsed, free_constant, parse_conjecture


class TightenError(ConjectureError):
    """Bad input to a tightening (statement, free constant, claim, parameter or part)."""


@dataclass(frozen=True)
class Part:
    """One relation, read ``lhs <= rhs``, with C's critical value and the slope's sign there."""

    relation: sp.Basic
    critical: sp.Basic
    slope: sp.Basic

    def text(self) -> str:
        return sp.sstr(self.relation)


@dataclass(frozen=True)
class Tightenable:
    """A statement with a free constant, ready to be tightened on trajectories.

    ``claim``: the statement as a claim with C left free in it (text: built per run by
    `claim_for`); ``parts``: the relations that involve C; ``proved``: the value the
    source states (a claim's parameter, 1 for a multiplier; None for a user's text),
    as a number or, when it depends on the instance, as its sympy expression.
    """

    text: str
    free: sp.Symbol
    parts: tuple[Part, ...]
    event_time: bool
    claim: Claim | None = None
    parsed: Parsed | None = None
    proved: sp.Basic | None = None
    how: str = ""
    part: int | None = None  # --part: the one relation tightened
    param: str | None = None  # the claim parameter tightened (None: the multiplier)
    parameters: tuple[tuple[str, str], ...] = ()  # --claim-param: other parameters set

    def proved_value(self) -> float | None:
        if self.proved is None or not self.proved.is_number:
            return None
        return float(self.proved)

    def proved_text(self) -> str:
        if self.proved is None:
            return ""
        return sp.sstr(self.proved)

    def claim_for(self, mode: str, at_t: float | None, t_end: float, value=None,
                  t_first: float = 0.0) -> Claim:
        """The claim on one run, with C set to ``value`` (or left free)."""
        if value is None:
            value_sym = self.free
        elif isinstance(value, sp.Basic) and not value.is_number:
            value_sym = value  # a proved value that depends on the instance (eps = Min(...))
        else:
            value_sym = sp.Float(float(value))
        if self.claim is not None:
            return replace(self.claim,
                           statement=substitute(self.claim.statement, {self.free: value_sym}))
        rel = substitute(self.parsed.relation, {self.free: value_sym})
        statement = Statement(self.text, Parsed(self.text, rel, self.parsed.event))
        return statement.claim(mode, at_t, t_end, t_first)

    def statement_at(self, value: float) -> Statement:
        """A user's text with C set to ``value``, as `verify.conjecture` checks it."""
        if self.parsed is None:
            raise TightenError("a catalogue claim has no conjecture text")
        rel = substitute(self.parsed.relation, {self.free: sp.Float(float(value))})
        return Statement(self.text, Parsed(self.text, rel, self.parsed.event))

    def text_at(self, value: float) -> str:
        """The user's text with the free name replaced by ``value`` (a replayable
        `gfverify conjecture` statement); the name is matched as a whole token."""
        import io
        import tokenize

        lines = self.text.splitlines() or [""]
        spans = [(tok.start, tok.end) for tok in
                 tokenize.generate_tokens(io.StringIO(self.text).readline)
                 if tok.type == tokenize.NAME and tok.string == self.free.name]
        for (row, start), (_, end) in reversed(spans):
            line = lines[row - 1]
            number = f"{value:.6g}" if value >= 0 else f"({value:.6g})"
            lines[row - 1] = f"{line[:start]}{number}{line[end:]}"
        return " ".join(lines).strip()


def substitute(stmt: sp.Basic, mapping: dict) -> sp.Basic:
    """``stmt`` with ``mapping`` applied inside each relation, without letting sympy decide
    a relation to True/False (``GammaMax <= 0.5`` must stay a relation to check)."""
    if isinstance(stmt, sp.And):
        return sp.And(*(substitute(r, mapping) for r in stmt.args), evaluate=False)
    if isinstance(stmt, sp.core.relational.Relational):
        return type(stmt)(stmt.lhs.xreplace(mapping), stmt.rhs.xreplace(mapping),
                          evaluate=False)
    return stmt.xreplace(mapping)


# -- solving for C ------------------------------------------------------------------------
def _as_upper(rel: sp.Basic) -> sp.Basic:
    """``rel`` read ``lhs <= rhs``."""
    if isinstance(rel, (sp.LessThan, sp.StrictLessThan)):
        return sp.Le(rel.lhs, rel.rhs, evaluate=False)
    if isinstance(rel, (sp.GreaterThan, sp.StrictGreaterThan)):
        return sp.Le(rel.rhs, rel.lhs, evaluate=False)
    raise TightenError(f"{sp.sstr(rel)}: only inequalities (<=, >=) can be tightened")


def solve_part(rel: sp.Basic, free: sp.Symbol) -> Part:
    """The critical value of ``free`` in one inequality, and the slope there."""
    rel = _as_upper(rel)
    g = rel.rhs - rel.lhs
    try:
        solutions = sp.solve(sp.Eq(g, 0), free, dict=False)
    except (NotImplementedError, ValueError, TypeError) as exc:
        raise TightenError(f"{sp.sstr(rel)}: cannot solve for {free} ({exc})") from None
    solutions = [s for s in solutions if not s.has(sp.I)]
    if len(solutions) != 1:
        got = "no solution" if not solutions else f"{len(solutions)} solutions"
        raise TightenError(f"{sp.sstr(rel)}: {free} is not isolated by one value ({got}); "
                           f"tighten a statement in which {free} enters monotonically")
    critical = solutions[0]
    slope = sp.diff(g, free).subs(free, critical)
    return Part(relation=rel, critical=critical, slope=slope)


def _relations(stmt: sp.Basic) -> list[sp.Basic]:
    return list(stmt.args) if isinstance(stmt, sp.And) else [stmt]


def _select(parts: list[tuple[int, sp.Basic]], part: int | None, where: str) -> list:
    if part is None:
        return parts
    numbers = [k for k, _ in parts]
    if part not in numbers:
        raise TightenError(f"--part {part}: {where} has parts {numbers} that involve the "
                           f"constant")
    return [(k, r) for k, r in parts if k == part]


def _conjunction(rels: list) -> sp.Basic:
    return sp.And(*rels, evaluate=False) if len(rels) > 1 else rels[0]


def from_text(text: str, free: str = "C", part: int | None = None) -> Tightenable:
    """A user's statement with the free constant ``free`` (``"L(t) <= C*L(0)"``)."""
    try:
        symbol = free_constant(free)
        parsed = parse_conjecture(text, free=(symbol,))
    except ExpressionError as exc:
        raise TightenError(f"tighten: {exc}") from None
    rels = [(k, r) for k, r in enumerate(_relations(parsed.relation), 1) if r.has(symbol)]
    if parsed.event is not None and parsed.event.has(symbol):
        raise TightenError(f"tighten: {free} may only appear in the bound, not in first(...)")
    if not rels:
        raise TightenError(f"tighten: the statement does not use the free constant {free}")
    chosen = _select(rels, part, "the statement")
    parts = tuple(solve_part(r, symbol) for _, r in chosen)
    if part is not None:  # the relation tightened is the one checked
        parsed = Parsed(parsed.text, _conjunction([r for _, r in chosen]), parsed.event)
    return Tightenable(text=str(text).strip(), free=symbol, parts=parts,
                       event_time=parsed.is_event_time, parsed=parsed,
                       how=f"the free constant {free}", part=part)


TIGHTENABLE_KINDS = (Kind.POINTWISE, Kind.EVENT_TIME)


def _bound_side_nonzero(rel: sp.Basic) -> bool:
    try:
        return _as_upper(rel) is not None and rel.rhs != 0
    except TightenError:
        return False


def parameter_value(name: str, text) -> sp.Rational:
    """A claim parameter's value as a user writes it (``1/40``, ``0.025``), parsed as an
    exact fraction (never evaluated as code)."""
    try:
        fraction = Fraction(str(text).strip())
    except (ValueError, ZeroDivisionError):
        raise TightenError(f"--claim-param {name}: expected a number or a fraction such as "
                           f"1/40, got {text!r}") from None
    return sp.Rational(fraction.numerator, fraction.denominator)


def from_claim(claim_id: str, param: str | None = None,
               part: int | None = None, parameters=None) -> Tightenable:
    """A catalogue claim with C for its parameter ``param`` or, without one, C multiplying
    the bound side (right-hand side) of every relation that has one. ``parameters``: other
    parameters of the claim set to these values first (S002-L5 at eps = 1/40)."""
    try:
        claim = registry.get(claim_id)
    except (KeyError, registry.UnknownName, ValueError) as exc:
        raise TightenError(f"tighten: {claim_id!r} is not a claim of the catalogue: "
                           f"{exc}") from None
    values = {}
    if parameters:
        if param is not None and param in parameters:
            raise TightenError(f"--claim-param {param}: it is the parameter tightened")
        values = {k: parameter_value(k, v) for k, v in parameters.items()}
        try:
            claim = claim.with_parameters(**values)
        except registry.UnknownName as exc:
            raise TightenError(f"--claim-param: {exc}") from None
    if claim.kind not in TIGHTENABLE_KINDS or not claim.checkable:
        kinds = ", ".join(k.value for k in TIGHTENABLE_KINDS)
        raise TightenError(f"tighten {claim.id}: only checkable {kinds} claims can be "
                           f"tightened; this one is {claim.kind.value}"
                           + ("" if claim.checkable else " and not checkable"))
    free = sp.Symbol("C", real=True)
    rels = list(enumerate(_relations(claim.statement), 1))
    if param is not None:
        names = {str(k): k for k in claim.parameters}
        if param not in names:
            known = ", ".join(sorted(names)) or "none"
            near = did_you_mean(param, names)
            raise TightenError(f"--param {param}: {claim.id} has no parameter {param!r}"
                               f"{'; ' + near if near else ''} (its parameters: {known})")
        sym = next((s for s in claim.statement.free_symbols if s.name == param), None)
        if sym is None:
            raise TightenError(f"--param {param}: {claim.id}'s statement does not use it")
        proved = sp.sympify(claim.parameters[names[param]])
        # C replaces the parameter in the statement only: the parameter keeps its value in
        # the claim's assumptions, window and definitions
        rels = [(k, substitute(r, {sym: free})) for k, r in rels if r.has(sym)]
        chosen = _select(rels, part, claim.id)
        how = f"its parameter {param}"
    else:
        rels = [(k, r) for k, r in rels if _bound_side_nonzero(r)]
        if not rels:
            raise TightenError(f"tighten {claim.id}: no relation has a bound side to scale "
                               f"(its statement: {sp.sstr(claim.statement)})")
        chosen = [(k, _scaled(r, free)) for k, r in _select(rels, part, claim.id)]
        proved = sp.Integer(1)
        how = "the multiplier of its bound side"
    parts = tuple(solve_part(r, free) for _, r in chosen)
    # the claim checked at a value of C (the witness) is the tightened relations alone
    template = replace(claim, statement=_conjunction([r for _, r in chosen]))
    chosen_params = tuple(sorted((k, sp.sstr(v)) for k, v in values.items()))
    if chosen_params:
        how += " (" + ", ".join(f"{k} = {v}" for k, v in chosen_params) + ")"
    return Tightenable(text=claim.id, free=free, parts=parts,
                       event_time=claim.kind is Kind.EVENT_TIME, claim=template,
                       proved=proved, how=how, part=part, param=param,
                       parameters=chosen_params)


def _scaled(rel: sp.Basic, free: sp.Symbol) -> sp.Basic:
    """``lhs <= C * rhs`` (the bound side scaled), keeping the relation's direction."""
    return type(rel)(rel.lhs, free * rel.rhs, evaluate=False)


def is_tightenable(claim: Claim) -> bool:
    """A claim the report tightens: checkable, pointwise or event-time, with a relation
    whose bound side is not 0 (``mu > 0`` has no constant to tighten)."""
    if claim.kind not in TIGHTENABLE_KINDS or not claim.checkable:
        return False
    return any(_bound_side_nonzero(r) for r in _relations(claim.statement))
