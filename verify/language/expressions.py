"""Conjectures as text, read safely into sympy.

The text is parsed by Python's ``ast`` (``mode="eval"``) and the tree is walked
with a whitelist; each allowed node is turned into a sympy object by hand.
Nothing the user typed is evaluated: no ``eval``, no ``sympify`` of the text.

Allowed:

- numbers (int, float), ``pi``, and ``oo`` (only as the argument of a quantity,
  ``PL(oo)``, in scaling statements). A number is read exactly as written (``1e-8`` is
  the rational 1/10^8, from its text, not the float Python's parser rounds it to); one
  that float64 cannot hold to its precision (nonzero below 2.2e-308, or above 1e300), as
  a literal or as a number the statement computes (``1e-200*1e-200``, ``exp(-1000)``), is
  refused: the statement is compared on float64 runs, where it would read as 0 or inf;
- names of the vocabulary (`theory.symbols`) that gfverify can measure: instance
  quantities (``n``, ``lam``, ``Dminus``, ...), ``t``, and trajectory quantities
  applied to ``t`` or to a time (``L(t)``, ``L(0)``);
- ``+ - * / **``, unary minus, parentheses;
- comparisons ``<= < >= > ==`` (a chain ``a <= b <= c`` is a conjunction), and
  ``and`` between comparisons;
- the functions ``exp, log, sqrt, min, max, abs``;
- ``first(EVENT)``: the first time an event (a comparison) holds, as in
  ``first(L(t) <= 1e-8*L(0)) <= 3*log(1/lam)/Dminus``.

Everything else (attributes, subscripts, strings, lambdas, comprehensions, other
calls, keyword arguments, ...) is an `ExpressionError` naming the construct.

Length (~460 lines): one parser; most of it is the whitelist of names and node types
that keeps user text from being evaluated.
"""

from __future__ import annotations

import ast
import math
import sys
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from theory import registry
from theory import symbols as S
from theory.suggest import unknown_name
from verify.errors import InputError

MAX_LENGTH = 2000
MAX_DEPTH = 60
# numbers a statement may hold: float64's normal range (a nonzero number below the smallest
# normal float reads as 0 or loses its precision on a run; above MAX_NUMBER, inf)
MIN_NUMBER = sys.float_info.min
MAX_NUMBER = 1e300
# a power of two exact numbers is kept exact up to this many digits in its result
MAX_EXACT_DIGITS = 4000

FUNCTIONS = {
    "exp": (sp.exp, 1),
    "log": (sp.log, 1),
    "sqrt": (sp.sqrt, 1),
    "abs": (sp.Abs, 1),
    "min": (sp.Min, None),
    "max": (sp.Max, None),
}
EVENT_FUNCTION = "first"
CONSTANTS = {"pi": sp.pi}

_COMPARE = {
    ast.LtE: sp.Le,
    ast.Lt: sp.Lt,
    ast.GtE: sp.Ge,
    ast.Gt: sp.Gt,
    ast.Eq: sp.Eq,
}
_BINOP = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
}

# Human names for the constructs we refuse.
_REFUSED = {
    ast.Attribute: "attribute access (x.y)",
    ast.Subscript: "subscripts (x[i])",
    ast.Lambda: "lambda",
    ast.ListComp: "comprehensions",
    ast.SetComp: "comprehensions",
    ast.DictComp: "comprehensions",
    ast.GeneratorExp: "comprehensions",
    ast.List: "lists",
    ast.Tuple: "tuples",
    ast.Set: "sets",
    ast.Dict: "dicts",
    ast.IfExp: "conditional expressions (a if c else b)",
    ast.NamedExpr: "assignment expressions (:=)",
    ast.Starred: "starred arguments",
    ast.JoinedStr: "strings",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
    ast.Slice: "slices",
}


class ExpressionError(InputError):
    """The text is not a statement in the vocabulary; the message says what is wrong."""


def measurable_names() -> tuple[set[str], set[str]]:
    """(instance names, trajectory names) that gfverify can give a number to."""
    from verify.language.measures import INSTANCE_QUANTITIES, TRAJECTORY_QUANTITIES

    return set(INSTANCE_QUANTITIES), set(TRAJECTORY_QUANTITIES)


@dataclass(frozen=True)
class Parsed:
    """A parsed statement: ``relation`` (sympy), or an event-time bound.

    For ``first(EVENT) <= BOUND``: ``event`` is the event (a relation or And) and
    ``relation`` reads ``t_conv <= BOUND`` with ``t_conv`` the event's time.
    """

    text: str
    relation: sp.Basic
    event: sp.Basic | None = None

    @property
    def is_event_time(self) -> bool:
        return self.event is not None


class _Reader:
    def __init__(self, text: str, allow_infinity: bool):
        self.text = text
        self.source = text.strip() if isinstance(text, str) else ""  # what ast parses
        self.allow_infinity = allow_infinity
        registry.load()  # the installed packs' vocabulary terms
        self.instance, self.trajectory = measurable_names()
        self.event: sp.Basic | None = None
        self.extra: dict[str, sp.Symbol] = {}

    # -- entry points ----------------------------------------------------------------
    def expression(self, node: ast.AST, depth: int = 0) -> sp.Basic:
        if depth > MAX_DEPTH:
            raise ExpressionError("the expression is nested too deeply")
        if isinstance(node, ast.Constant):
            return self.constant(node.value, ast.get_source_segment(self.source, node))
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                return -self.expression(node.operand, depth + 1)
            if isinstance(node.op, ast.UAdd):
                return self.expression(node.operand, depth + 1)
            if isinstance(node.op, ast.Not):
                raise ExpressionError("'not' is not allowed; state the comparison directly")
            raise ExpressionError("'~' is only allowed once, between the sides of a --scaling "
                                  "statement")
        if isinstance(node, ast.BinOp):
            return self.binop(node, depth)
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        if isinstance(node, (ast.Compare, ast.BoolOp)):
            raise ExpressionError("a comparison can only be the whole statement (or a part of "
                                  "an 'and'), not inside an expression")
        raise ExpressionError(f"{self.refused(node)} not allowed in a conjecture")

    def statement(self, node: ast.AST) -> sp.Basic:
        """A comparison, a chain of them, or an 'and' of comparisons."""
        if isinstance(node, tuple(_REFUSED)):
            raise ExpressionError(f"{self.refused(node)} not allowed in a conjecture")
        if isinstance(node, ast.BoolOp):
            if not isinstance(node.op, ast.And):
                raise ExpressionError("'or' is not allowed; check each alternative separately")
            return sp.And(*(self.statement(v) for v in node.values))
        if not isinstance(node, ast.Compare):
            raise ExpressionError("a conjecture must be a comparison, e.g. "
                                  "'L(t) <= L(0)*exp(-t/n)' (use <=, <, >=, > or ==)")
        parts = []
        left = self.expression(node.left)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            rel = _COMPARE.get(type(op))
            if rel is None:
                symbol = {ast.NotEq: "!=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in",
                          ast.NotIn: "not in"}.get(type(op), type(op).__name__)
                raise ExpressionError(f"the comparison {symbol!r} is not allowed; "
                                      "use <=, <, >=, > or ==")
            right = self.expression(right_node)
            for side, side_node in ((left, node.left if not parts else None), (right, right_node)):
                _require_real(side, side_node)
            parts.append(rel(left, right, evaluate=False))
            left = right
        return parts[0] if len(parts) == 1 else sp.And(*parts)

    # -- pieces -----------------------------------------------------------------------
    def refused(self, node: ast.AST) -> str:
        for kind, what in _REFUSED.items():
            if isinstance(node, kind):
                return f"{what} is"
        if isinstance(node, ast.Constant):
            return "this constant is"
        return f"{type(node).__name__} is"

    def constant(self, value, written: str | None = None) -> sp.Basic:
        """A literal, exactly as ``written`` (its source text): an int as an Integer, a
        float literal as the rational its decimal text denotes."""
        if isinstance(value, bool) or value is None or value is Ellipsis:
            raise ExpressionError(f"the constant {value!r} is not allowed; use numbers")
        if isinstance(value, (str, bytes)):
            raise ExpressionError(f"strings are not allowed (got {value!r}); write names of "
                                  "the vocabulary without quotes")
        if isinstance(value, complex):
            raise ExpressionError(f"complex numbers are not allowed (got {value!r})")
        if isinstance(value, int):
            if abs(value) > MAX_NUMBER:
                raise ExpressionError(f"the number {str(value)[:12]}... ({len(str(value))} "
                                      "digits) is too large: at most 1e300")
            return sp.Integer(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise ExpressionError(f"the number {written or repr(value)} is not finite in "
                                      "float64 (at most 1e300)")
            exact = _exact_literal(written, value)
            in_range(exact, written or repr(value))
            return exact
        raise ExpressionError(f"the constant {value!r} is not allowed")

    def name(self, name: str) -> sp.Basic:
        if name in self.extra:
            return self.extra[name]
        name = S.RENAMED.get(name, name)  # an old vocabulary name reads as the new one
        if name in CONSTANTS:
            return CONSTANTS[name]
        if name == "t":
            return S.t
        if name == "oo":
            raise ExpressionError("'oo' is only allowed as the time of a quantity in a "
                                  "--scaling statement, as in PL(oo)")
        if name in self.trajectory:
            raise ExpressionError(f"{name!r} is a quantity of time: write {name}(t) for its "
                                  f"value along the run or {name}(0) for its initial value")
        if name in self.instance:
            return S.VOCABULARY[name].obj
        if name in FUNCTIONS or name == EVENT_FUNCTION:
            raise ExpressionError(f"{name!r} is a function: call it, as in {name}(...)")
        raise ExpressionError(self.unknown(name))

    def unknown(self, name: str) -> str:
        known = sorted(self.instance | self.trajectory | {"t"}) + list(FUNCTIONS)
        others = unknown_name(name, known, "gfverify vocabulary")
        if name in S.VOCABULARY:
            return (f"{name!r} is in the vocabulary but gfverify cannot measure it on a run "
                    f"yet; {others}")
        return f"{name!r} is not in the vocabulary; {others}"

    def binop(self, node: ast.BinOp, depth: int) -> sp.Basic:
        if isinstance(node.op, ast.BitXor):
            raise ExpressionError("'^' is not a power here; write powers as a**b")
        a = self.expression(node.left, depth + 1)
        b = self.expression(node.right, depth + 1)
        if isinstance(node.op, ast.Pow):
            if a.is_number and b.is_number:  # keep huge exact powers out of sympy
                return _number_power(a, b)
            return sp.Pow(a, b)
        op = _BINOP.get(type(node.op))
        if op is None:
            symbol = {ast.FloorDiv: "//", ast.Mod: "%", ast.MatMult: "@", ast.BitAnd: "&",
                      ast.BitOr: "|", ast.LShift: "<<", ast.RShift: ">>"}.get(type(node.op), "?")
            raise ExpressionError(f"the operator {symbol!r} is not allowed; "
                                  "use + - * / and **")
        if isinstance(node.op, ast.Div) and b == 0:
            raise ExpressionError("division by zero")
        return op(a, b)

    def call(self, node: ast.Call, depth: int) -> sp.Basic:
        if not isinstance(node.func, ast.Name):
            what = "attribute access (x.y)" if isinstance(node.func, ast.Attribute) \
                else "calling an expression"
            raise ExpressionError(f"{what} is not allowed; only exp, log, sqrt, min, max, abs, "
                                  "first and quantities of the vocabulary can be called")
        name = node.func.id
        if node.keywords:
            raise ExpressionError(f"{name}(...): keyword arguments are not allowed")
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise ExpressionError(f"{name}(...): starred arguments are not allowed")
        if name == EVENT_FUNCTION:
            return self.first(node)
        if name in FUNCTIONS:
            fn, arity = FUNCTIONS[name]
            args = [self.expression(a, depth + 1) for a in node.args]
            if arity is not None and len(args) != arity:
                raise ExpressionError(f"{name} takes {arity} argument, got {len(args)}")
            if arity is None and len(args) < 2:
                raise ExpressionError(f"{name} takes at least 2 arguments")
            return fn(*args)
        if name in self.trajectory:
            if len(node.args) != 1:
                raise ExpressionError(f"{name} takes one argument, the time: {name}(t)")
            return S.VOCABULARY[name].obj(self.time_argument(name, node.args[0]))
        if name in self.instance or name == "t":
            raise ExpressionError(f"{name!r} is a number, not a function of time; "
                                  f"write {name} without parentheses")
        callable_ = [*FUNCTIONS, EVENT_FUNCTION, *sorted(self.trajectory)]
        raise ExpressionError(f"calling {name!r} is not allowed: it is not a function nor a "
                              f"quantity of time; "
                              f"{unknown_name(name, callable_, 'gfverify vocabulary')}")

    def time_argument(self, name: str, node: ast.AST) -> sp.Basic:
        if isinstance(node, ast.Name) and node.id == "t":
            return S.t
        if isinstance(node, ast.Name) and node.id == "oo":
            if not self.allow_infinity:
                raise ExpressionError(f"{name}(oo) is only meaningful in a --scaling statement; "
                                      "use --as-t-to-inf for a statement at the end of the run")
            return sp.oo
        value = self.expression(node)
        if value.is_number and value.is_real and float(value) >= 0:
            return sp.Float(float(value)) if not value.is_Integer else value
        raise ExpressionError(f"{name}(...): the argument must be t, or a time >= 0 such as "
                              f"{name}(0), got {ast.unparse(node)!r}")

    def first(self, node: ast.Call) -> sp.Basic:
        if self.event is not None:
            raise ExpressionError("only one first(...) per conjecture")
        if len(node.args) != 1:
            raise ExpressionError("first(...) takes one argument, an event such as "
                                  "L(t) <= 1e-8*L(0)")
        event = self.statement(node.args[0])
        if event.has(S.t_conv):
            raise ExpressionError("first(...) cannot be nested: the event must compare "
                                  "quantities of t, e.g. first(L(t) <= 1e-8*L(0))")
        for rel in (event.args if isinstance(event, sp.And) else (event,)):
            if not isinstance(rel, (sp.Le, sp.Lt, sp.Ge, sp.Gt)):
                raise ExpressionError("the event in first(...) must use <=, <, >= or >")
        self.event = event
        return S.t_conv


def _require_real(expr: sp.Basic, node: ast.AST | None) -> None:
    """Refuse a side that is not a real number wherever it is defined (log(-1) = i pi,
    sqrt(-lam) with lam > 0, 1/0): its imaginary part would be silently dropped."""
    bad = None
    if expr.has(sp.I):
        bad = "is not a real number (it has an imaginary part)"
    elif expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        bad = "is not finite"
    if bad:
        text = ast.unparse(node) if node is not None else sp.sstr(expr)
        raise ExpressionError(f"{text!r} {bad}; both sides must be finite real numbers")


def _exact_literal(written: str | None, value: float) -> sp.Rational:
    """The rational a float literal's text denotes (``1e-400`` is 1/10^400, not the 0.0
    Python's parser made of it)."""
    if written is not None:
        try:
            q = Fraction(written.replace("_", ""))
        except (ValueError, ZeroDivisionError):
            q = None
        if q is not None:
            return sp.Rational(q.numerator, q.denominator)
    if not math.isfinite(value):
        raise ExpressionError(f"the number {written or value!r} is not finite")
    return sp.Rational(Fraction(value).numerator, Fraction(value).denominator)


def in_range(number: sp.Basic, text: str) -> None:
    """Refuse a number float64 cannot hold to its precision: nonzero and below its
    smallest normal number, or above MAX_NUMBER."""
    if not number.is_number or number.is_zero:
        return
    try:
        value = abs(sp.N(number, 30))
    except (TypeError, ValueError):
        return
    if not value.is_real or not value.is_finite:
        return  # the side's own checks name it (not real, not finite)
    if value < MIN_NUMBER:
        raise ExpressionError(f"the number {text} is below float64's range (its smallest "
                              f"normal number is {MIN_NUMBER:.3g}): statements are compared on "
                              "float64 runs, where it would read as 0; write 0 or a number "
                              "of that range")
    if value > MAX_NUMBER:
        raise ExpressionError(f"the number {text} is too large: at most 1e300")


def _number_power(a: sp.Basic, b: sp.Basic) -> sp.Basic:
    """a**b for two numbers: exact where both are rationals and the result is short (an
    integer exponent) or a root (sympy keeps sqrt(2) exact), refused where it is not a
    finite real number or outside float64's range; else the float it is."""
    text = f"{sp.sstr(a)}**{sp.sstr(b)}"
    try:
        value = float(a) ** float(b)
    except (OverflowError, ZeroDivisionError, TypeError):
        raise ExpressionError(f"the power {text} is not a finite real number") from None
    if isinstance(value, complex) or not math.isfinite(value):
        raise ExpressionError(f"the power {text} is not a finite real number")
    if a.is_zero:
        return sp.Integer(0) if b.is_positive else sp.Integer(1)
    # the magnitude from logarithms: a power that underflows to 0.0 in floats is still named
    magnitude = float(b) * math.log10(abs(float(a)))
    if magnitude < math.log10(MIN_NUMBER):
        in_range(sp.Float(f"1e{math.floor(magnitude)}"), text)
    if magnitude > math.log10(MAX_NUMBER):
        raise ExpressionError(f"the number {text} is too large: at most 1e300")
    if a.is_Rational and b.is_Rational:
        digits = len(str(abs(a.p))) + len(str(a.q))
        if b.is_Integer and abs(int(b)) * digits <= MAX_EXACT_DIGITS:
            return sp.Pow(a, b)
        if not b.is_Integer and abs(b) < 64 and digits < 40:
            return sp.Pow(a, b)  # a root, kept exact (sqrt(2))
    return sp.Float(value)


def _check_numbers(expr: sp.Basic) -> None:
    """Every number the statement computes from its literals (``1e-200*1e-200``,
    ``exp(-1000)``) within float64's range (`in_range`)."""
    for sub in sp.preorder_traversal(expr):
        if isinstance(sub, sp.Expr) and sub.is_number and not sub.is_Atom or (
                isinstance(sub, sp.Number)):
            text = sp.sstr(sub)
            in_range(sub, text if len(text) <= 40 else sp.sstr(sp.N(sub, 4)))


def _parse_tree(text: str) -> ast.AST:
    if not isinstance(text, str):
        raise ExpressionError(f"expected the conjecture as a string, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"the conjecture is longer than {MAX_LENGTH} characters")
    if not text.strip():
        raise ExpressionError("the conjecture is empty")
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        col = f" at column {exc.offset}" if exc.offset else ""
        raise ExpressionError(f"cannot read {text!r}{col}: {exc.msg}") from None


def free_constant(name: str) -> sp.Symbol:
    """The symbol of a free constant a user names (``--free C``): an identifier that is not a
    vocabulary name, a function or a constant of the language."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ExpressionError(f"--free: a name such as C, got {name!r}")
    instance, trajectory = measurable_names()
    taken = (instance | trajectory | set(S.VOCABULARY) | set(S.RENAMED) | set(FUNCTIONS)
             | set(CONSTANTS))
    if name in taken | {"t", "oo", "t_conv", EVENT_FUNCTION}:
        raise ExpressionError(f"--free {name}: already a name of the vocabulary or the "
                              f"language; choose another (e.g. C)")
    return sp.Symbol(name, real=True)


def parse_conjecture(text: str, free: tuple[sp.Symbol, ...] = ()) -> Parsed:
    """Read ``text`` (an inequality in the vocabulary) into sympy; no evaluation.
    ``free``: symbols of free constants the text may use (`free_constant`)."""
    reader = _Reader(text, allow_infinity=False)
    reader.extra = {s.name: s for s in free}
    rel = reader.statement(_parse_tree(text))
    _check_numbers(rel)
    if reader.event is not None:
        _check_numbers(reader.event)
    if reader.event is None:
        if rel.has(S.t_conv):
            raise ExpressionError("t_conv is defined by first(...)")
        return Parsed(text, rel)
    # first(EVENT) must be alone on one side of a single bound
    if isinstance(rel, sp.And):
        raise ExpressionError("a bound on first(...) must be a single comparison")
    if isinstance(rel, (sp.Ge, sp.Gt)):
        rel = (sp.Le if isinstance(rel, sp.Ge) else sp.Lt)(rel.rhs, rel.lhs, evaluate=False)
    if not (isinstance(rel, (sp.Le, sp.Lt)) and rel.lhs == S.t_conv
            and not rel.rhs.has(S.t_conv)):
        raise ExpressionError("first(...) can only be bounded from above: "
                              "'first(EVENT) <= BOUND'")
    if rel.rhs.atoms(sp.core.function.AppliedUndef) or rel.rhs.has(S.t):
        raise ExpressionError("the bound on first(...) must use instance quantities only "
                              "(n, lam, Dminus, ...), not quantities of time")
    return Parsed(text, sp.Le(S.t_conv, rel.rhs, evaluate=False), event=reader.event)


def parse_expression(text: str, allow_infinity: bool = False) -> sp.Basic:
    """Read an arithmetic expression (no comparison) in the vocabulary."""
    reader = _Reader(text, allow_infinity=allow_infinity)
    expr = reader.expression(_parse_tree(text))
    if reader.event is not None:
        raise ExpressionError("first(...) is only allowed in a conjecture's bound")
    _check_numbers(expr)
    return expr


def parse_time(text: str) -> tuple[sp.Basic, sp.Basic | None]:
    """Read a time (``--at-t``): an arithmetic expression that may use ``first(EVENT)``
    (then read as ``t_conv``). Returns the expression and the event (None without one)."""
    reader = _Reader(text, allow_infinity=False)
    expr = reader.expression(_parse_tree(text))
    _check_numbers(expr)
    if reader.event is not None:
        _check_numbers(reader.event)
    return expr, reader.event


def split_pair(text: str) -> tuple[str, str] | None:
    """The two source texts of ``"A, B"`` (commas inside calls such as ``min(a, b)`` stay
    inside), or None when the text is not two comma-separated expressions."""
    tree = _parse_tree(f"({text})" if str(text).strip() else text)
    if not isinstance(tree, ast.Tuple) or len(tree.elts) != 2:
        return None
    return tuple(ast.unparse(node) for node in tree.elts)


# -- scaling statements ----------------------------------------------------------------------
EXPONENT_NAME = "alpha"
PREFACTOR_NAME = "K"


@dataclass(frozen=True)
class ScalingStatement:
    """``QUANTITY ~ K * size**exponent``: what to measure, and the claimed exponent.

    ``exponent`` is None when the statement leaves it free (``n**alpha``).
    """

    text: str
    quantity: sp.Basic
    size: sp.Symbol
    exponent: float | None
    law: sp.Basic


def parse_scaling(text: str) -> ScalingStatement:
    """Read ``"PL(oo) ~ n**alpha"`` or ``"PL(oo) ~ n**(-1/2)"`` (``K*`` prefactors allowed)."""
    if not isinstance(text, str) or text.count("~") != 1:
        raise ExpressionError("a scaling statement reads 'QUANTITY ~ LAW', e.g. "
                              "'PL(oo) ~ n**alpha' or 'PL(oo) ~ n**(-1/2)', with one '~'")
    left, right = text.split("~")
    quantity = parse_expression(left, allow_infinity=True)
    for term in quantity.atoms(sp.core.function.AppliedUndef):
        if term.args[0] != sp.oo:
            raise ExpressionError(f"{sp.sstr(term)}: in a scaling statement quantities of time "
                                  "are taken at t = oo (the asymptotic window), as in PL(oo)")
    if not quantity.atoms(sp.core.function.AppliedUndef):
        raise ExpressionError("the left side of '~' must measure the run, e.g. PL(oo)")
    size, exponent, law = parse_power_law(right)
    return ScalingStatement(text, quantity, size, exponent, law)


def parse_power_law(text: str, sizes: tuple[str, ...] = ("n",)) -> tuple:
    """The right side of '~': ``SIZE**alpha`` or ``SIZE**(number)``, an optional ``K*``
    prefactor, SIZE one of ``sizes``. Returns (size symbol, exponent or None for a free
    alpha, the law); the one reader of power laws (statements and stored sweeps)."""
    alpha = sp.Symbol(EXPONENT_NAME, real=True)
    K = sp.Symbol(PREFACTOR_NAME, positive=True)
    reader = _Reader(text, allow_infinity=False)
    reader.extra = {EXPONENT_NAME: alpha, PREFACTOR_NAME: K}
    law = reader.expression(_parse_tree(text))
    names = " or ".join(sizes)
    present = [getattr(S, s) for s in sizes if law.has(getattr(S, s))]
    if len(present) > 1:
        raise ExpressionError(f"the law {sp.sstr(law)} depends on several of {names}")
    if not present:
        raise ExpressionError(f"the law {sp.sstr(law)} does not depend on {names}")
    size = present[0]
    extra = law.free_symbols - {size, alpha, K}
    if extra or law.atoms(sp.core.function.AppliedUndef):
        raise ExpressionError(f"the law must be a power of {size} (with an optional "
                              f"prefactor K), got {sp.sstr(law)}")
    coefficient, elasticity = law.as_coeff_exponent(size)
    if coefficient.has(size) or elasticity.has(size):
        slope = sp.simplify(size * sp.diff(law, size) / law)
        raise ExpressionError(f"{sp.sstr(law)} is not a power law in {size} "
                              f"(its log-log slope {sp.sstr(slope)} depends on {size})")
    if elasticity.free_symbols - {alpha}:
        raise ExpressionError(f"the exponent {sp.sstr(elasticity)} must be a number or alpha")
    exponent = None if elasticity.has(alpha) else float(elasticity)
    if exponent is None and elasticity != alpha:
        raise ExpressionError(f"write a free exponent as {size}**alpha, got {sp.sstr(law)}")
    return size, exponent, law

