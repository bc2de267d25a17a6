"""The claim evaluator: a claim, written as a small expression tree, decided in Arb on a tube.

A certificate holds its claim in this form (`ClaimSpec`), so that its checker needs no
parser and no symbolic algebra: nested JSON lists whose first entry names the node.

- numbers: ``["num", "p/q"]`` (exact rationals), ``["pi"]``, ``["E"]``;
- times: ``["t"]`` (the time variable), ``["event_time"]`` (the first time the claim's
  event holds), ``["horizon"]`` (the run's end, the window end ``oo``);
- ``["inst", NAME]``: a number of the instance (`quantities.INSTANCE_NUMBERS`);
- ``["q", NAME, TIME]``: a measure of the state at a time (`quantities.MEASURES`), TIME
  a time node or a number;
- ``["add", ...]``, ``["mul", ...]``, ``["pow", b, e]``, ``["exp", x]``, ``["log", x]``,
  ``["abs", x]``, ``["min", ...]``, ``["max", ...]``;
- relations ``["le", a, b]`` (also ``lt``, ``ge``, ``gt``, ``eq``), ``["and", ...]``,
  ``["or", ...]``.

A *window* claim holds its relation at every time of its window [lo, hi]; an *event*
claim bounds the first time its event holds (``["le", ["event_time"], BOUND]``). On a
tube (`numerics.certify.tube.Tube`, or the arrays a checker read):

- the state at a step boundary lies within that boundary's radius of the step's start
  (at t = 0 it is the instance's initial state exactly), and over a part [s0, s1] of a
  step within the step's box radius of the polynomial's range there;
- the event's first time t* is enclosed: t* <= B where the event holds on the whole tube
  at a boundary B, t* >= A where it fails on every box up to A (`Context.event_upper`,
  `Context.event_lower`);
- a window claim is DISPROVED at a boundary certainly inside its window where the
  relation fails on the whole tube, PROVED when it holds on every box over its window
  (a step's box halved up to SPLIT_DEPTH times where it does not decide);
- an event claim is PROVED when B is within the bound, DISPROVED when A is past it.

Anything else is UNCERTIFIED with the reason. The writer (`verify.engine.certified`) and the
checker call the same `decide` on the same tube, so the checker re-derives the file's
verdict and time exactly or rejects the file.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from fractions import Fraction

import numpy as np
from flint import arb

from numerics.certify.balls import Ball, add_up, range_on, shifted, sub_down, up
from numerics.certify.balls import float_down as float_floor
from numerics.certify.balls import float_up as float_ceil
from numerics.certify.monotone import NotApplicable, Tail, decide_tail
from numerics.certify.monotone import finite as _finite
from numerics.certify.quantities import (
    INSTANCE_NUMBERS,
    MEASURES,
    STEP_MEASURES,
    NotEnclosed,
    around,
    drift_over_step,
    rational,
    state_box,
)

OUTCOMES = ("PROVED", "DISPROVED", "UNCERTIFIED")
KINDS = ("window", "event")
RELATIONS = ("le", "lt", "ge", "gt", "eq")
_NARY = ("add", "mul", "min", "max")
_UNARY = ("exp", "log", "abs")
_TIMES = ("t", "event_time", "horizon")
# a tree deeper or larger than this is refused (a claim is a short formula)
MAX_DEPTH = 60
MAX_NODES = 5000
MAX_DIGITS = 2000  # of a rational's numerator or denominator
# a box that does not decide a relation is halved up to this many times
SPLIT_DEPTH = 8


class ClaimError(ValueError):
    """A claim the evaluator cannot read (a malformed tree, an unknown name)."""


# -- the tree --------------------------------------------------------------------------------
def check_tree(node, where: str = "claim", relation: bool = False, _count=None) -> None:
    """Refuse a malformed tree (`ClaimError` naming ``where``): unknown nodes or names,
    wrong arities, numbers that are not exact rationals, relations inside expressions."""
    count = [0] if _count is None else _count

    def walk(x, depth, rel):
        count[0] += 1
        if depth > MAX_DEPTH or count[0] > MAX_NODES:
            raise ClaimError(f"{where}: the expression is too deep or too large")
        if not (isinstance(x, list) and x and isinstance(x[0], str)):
            raise ClaimError(f"{where}: {str(x)[:60]} is not a node [NAME, ...]")
        op, args = x[0], x[1:]
        if rel:
            if op in ("and", "or"):
                if len(args) < 1:
                    raise ClaimError(f"{where}: {op} needs its parts")
                for a in args:
                    walk(a, depth + 1, True)
                return
            if op not in RELATIONS or len(args) != 2:
                raise ClaimError(f"{where}: expected a relation (le, lt, ge, gt, eq, and, "
                                 f"or), got {op!r}")
            for a in args:
                walk(a, depth + 1, False)
            return
        if op == "num":
            if len(args) != 1 or not isinstance(args[0], str):
                raise ClaimError(f"{where}: ['num', 'p/q'] takes one string")
            _rational(args[0], where)
        elif op in ("pi", "E") + _TIMES:
            if args:
                raise ClaimError(f"{where}: [{op!r}] takes no arguments")
        elif op == "inst":
            if len(args) != 1 or args[0] not in INSTANCE_NUMBERS:
                raise ClaimError(f"{where}: the instance number {str(args)[:40]} has no "
                                 f"certified enclosure (enclosed: "
                                 f"{', '.join(sorted(INSTANCE_NUMBERS))})")
        elif op == "q":
            if len(args) != 2 or args[0] not in MEASURES:
                raise ClaimError(f"{where}: the quantity {str(args[:1])[:40]} has no "
                                 f"certified enclosure (enclosed: "
                                 f"{', '.join(sorted(MEASURES))})")
            walk(args[1], depth + 1, False)
        elif op in _NARY:
            if len(args) < 1:
                raise ClaimError(f"{where}: {op} needs arguments")
            for a in args:
                walk(a, depth + 1, False)
        elif op in _UNARY or op == "pow":
            if len(args) != (2 if op == "pow" else 1):
                raise ClaimError(f"{where}: {op} takes {2 if op == 'pow' else 1} argument(s)")
            for a in args:
                walk(a, depth + 1, False)
        else:
            raise ClaimError(f"{where}: unknown node {op!r}")

    walk(node, 0, relation)


def _rational(text: str, where: str = "claim") -> Fraction:
    num, _, den = text.partition("/")
    if len(num) > MAX_DIGITS + 1 or len(den) > MAX_DIGITS:
        raise ClaimError(f"{where}: a number with more than {MAX_DIGITS} digits")
    try:
        return Fraction(int(num), int(den) if den else 1)
    except (ValueError, ZeroDivisionError):
        raise ClaimError(f"{where}: {text[:40]!r} is not an exact rational p/q") from None


def render(node) -> str:
    """The tree as a formula (what the checker prints). A rational that is a float64
    value prints as the float (its repr reads back exactly), another as p/q."""
    op, args = node[0], node[1:]
    if op == "num":
        q = _rational(args[0])
        if q.denominator == 1:
            return str(q.numerator)
        if q.denominator <= 10**6:
            return f"{q.numerator}/{q.denominator}"
        as_float = float(q)
        return repr(as_float) if Fraction(as_float) == q else f"{q.numerator}/{q.denominator}"
    if op in ("pi", "E", "t"):
        return op
    if op == "horizon":
        return "T_end"
    if op == "event_time":
        return "t_event"
    if op == "inst":
        return args[0]
    if op == "q":
        return f"{args[0]}({render(args[1])})"
    if op in RELATIONS:
        sym = {"le": "<=", "lt": "<", "ge": ">=", "gt": ">", "eq": "=="}[op]
        return f"{render(args[0])} {sym} {render(args[1])}"
    if op in ("and", "or"):
        return f" {op} ".join(f"({render(a)})" for a in args)
    if op == "add":
        return "(" + " + ".join(render(a) for a in args) + ")"
    if op == "mul":
        return "*".join(render(a) for a in args)
    if op == "pow":
        base, ex = args
        if ex == ["num", "-1/1"]:
            return f"1/{_atom(base)}"
        if ex == ["num", "1/2"]:
            return f"sqrt({render(base)})"
        return f"{_atom(base)}**{_atom(ex)}"
    return f"{op}({', '.join(render(a) for a in args)})"


def _atom(node) -> str:
    text = render(node)
    simple = node[0] in ("inst", "q", "t", "pi", "E", "event_time", "horizon", "add") or (
        node[0] == "num" and "/" not in text and not text.startswith("-"))
    return text if simple else f"({text})"


def _uses(node, op: str) -> bool:
    if not isinstance(node, list) or not node:
        return False
    return node[0] == op or any(_uses(a, op) for a in node[1:])


@dataclass(frozen=True)
class ClaimSpec:
    """A claim as a certificate holds it.

    Attributes
    ----------
    id
        The claim's id (``S002-T1``, ``conjecture``).
    text
        The statement as written (a conjecture's text, a catalogue claim's title).
    form
        The decided statement as sympy prints it (parameters and definitions substituted).
    kind
        ``"window"`` or ``"event"``.
    relation
        The relation (a tree); an event claim's is ``["le", ["event_time"], BOUND]`` (or
        ``lt``).
    window
        A window claim's [lo, hi] (trees in instance numbers, ``["event_time"]`` and
        ``["horizon"]``); None for an event claim.
    event
        The event (a relation tree) whose first time ``["event_time"]`` is; None if the
        claim reads none.
    horizon
        The run's end (the window end ``oo``; the tube must reach it).
    """

    id: str
    text: str
    form: str
    kind: str
    relation: list
    window: list | None
    event: list | None
    horizon: float

    def __post_init__(self) -> None:
        for name in ("id", "text", "form"):
            if not isinstance(getattr(self, name), str):
                raise ClaimError(f"claim.{name}: a string, got {getattr(self, name)!r}")
        if self.kind not in KINDS:
            raise ClaimError(f"claim.kind: {self.kind!r} is not one of {KINDS}")
        if not (_finite(self.horizon) and self.horizon >= 0):
            raise ClaimError(f"claim.horizon: a time >= 0, got {self.horizon!r}")
        check_tree(self.relation, "claim.relation", relation=True)
        if self.kind == "event":
            r = self.relation
            if not (r[0] in ("le", "lt") and r[1] == ["event_time"]
                    and not _uses(r[2], "event_time") and not _uses(r[2], "q")
                    and not _uses(r[2], "t")):
                raise ClaimError("claim.relation: an event claim reads [le|lt, "
                                 "['event_time'], BOUND] with a bound in instance numbers")
            if self.window is not None:
                raise ClaimError("claim.window: an event claim has none")
        else:
            if not (isinstance(self.window, list) and len(self.window) == 2):
                raise ClaimError("claim.window: [lo, hi] for a window claim")
            for end in self.window:
                check_tree(end, "claim.window")
                if _uses(end, "t") or _uses(end, "q"):
                    raise ClaimError("claim.window: its ends are times in instance numbers, "
                                     "the event's time or the horizon")
        needs_event = any(_uses(x, "event_time") for x in
                          [self.relation, *(self.window or [])])
        if self.event is not None:
            check_tree(self.event, "claim.event", relation=True)
            if _uses(self.event, "event_time"):
                raise ClaimError("claim.event: the event cannot read its own time")
        elif needs_event:
            raise ClaimError("claim.event: the claim reads the event's time but has no event")

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data) -> ClaimSpec:
        if not isinstance(data, dict):
            raise ClaimError("claim: an object with id, text, form, kind, relation, window, "
                             "event, horizon")
        keys = ("id", "text", "form", "kind", "relation", "window", "event", "horizon")
        missing = [k for k in keys if k not in data]
        if missing:
            raise ClaimError(f"claim: the fields {', '.join(missing)} are missing")
        return cls(**{k: data[k] for k in keys})

    def describe(self) -> str:
        """The decided statement, its window or event, on one line."""
        if self.kind == "event":
            return (f"{render(self.relation)}, t_event the first time "
                    f"{render(self.event)}")
        lo, hi = (render(e) for e in self.window)
        out = f"{render(self.relation)} for t in [{lo}, {hi}]"
        if any(_uses(e, "horizon") for e in self.window):
            out += f", T_end = {self.horizon!r} (the run's end)"
        if self.event is not None:
            out += f", t_event the first time {render(self.event)}"
        return out


@dataclass(frozen=True)
class Decision:
    """A claim decided on a tube: the outcome, the time it was decided at (None where no
    one time decides it) and why; ``tail``: where a window's end is decided by the loss's
    monotonicity (`numerics.certify.monotone`, Lemma 9), from when and on which numbers."""

    outcome: str
    t: float | None
    reason: str
    tail: Tail | None = None

    def to_json(self) -> dict:
        out = {"outcome": self.outcome, "t": self.t, "reason": self.reason}
        if self.tail is not None:
            out["tail"] = self.tail.to_json()
        return out

    @classmethod
    def from_json(cls, data) -> Decision:
        if not isinstance(data, dict) or not (
                {"outcome", "t", "reason"} <= set(data) <= {"outcome", "t", "reason", "tail"}):
            raise ClaimError("verdict: an object with outcome, t and reason (and a tail "
                             "where Lemma 9 decides one)")
        if data["outcome"] not in OUTCOMES:
            raise ClaimError(f"verdict.outcome: {data['outcome']!r} is not one of {OUTCOMES}")
        t = data["t"]
        if t is not None and not _finite(t):
            raise ClaimError(f"verdict.t: a time or null, got {t!r}")
        if not isinstance(data["reason"], str):
            raise ClaimError("verdict.reason: a string")
        tail = None
        if data.get("tail") is not None:
            if data["outcome"] != "PROVED":
                raise ClaimError(f"verdict.tail: a {data['outcome']} verdict has no tail "
                                 "(Lemma 9 only proves)")
            try:
                tail = Tail.from_json(data["tail"])
            except NotApplicable as exc:
                raise ClaimError(str(exc)) from None
        return cls(data["outcome"], None if t is None else float(t), data["reason"], tail)


# -- evaluation ------------------------------------------------------------------------------
def _arb_time(t: float) -> arb:
    return arb(float(t))


def _hull(a: arb, b: arb) -> arb:
    return a.union(b)


class Context:
    """A claim's inputs on a tube: the instance's numbers, the state's boxes at
    boundaries and over parts of steps, the event's time.

    ``tube``: any object with ``instance`` (`numerics.certify.instance.Instance`),
    ``bounds`` (N + 1 step boundaries), ``coeffs`` (N, order + 1, parameters), ``r0``
    (N + 1 radii at the boundaries), ``R`` (N box radii) and ``end_state`` (the
    approximant at the last boundary)."""

    def __init__(self, spec: ClaimSpec, tube):
        self.spec, self.tube = spec, tube
        self.instance = tube.instance
        self.shape = tube.instance.shape()
        W0, a0 = self.shape.split(self.instance.theta0)
        self.start = (Ball.exact(W0), Ball.exact(a0))
        self.bounds = np.asarray(tube.bounds, float)
        self.N = len(tube.R)
        self.end = float(self.bounds[-1])
        self._numbers: dict[str, arb] = {}
        self._at: dict = {}
        self.event_time: arb | None = None

    # -- enclosures of the state ------------------------------------------------------------
    def _start(self, k: int) -> np.ndarray:
        return self.tube.coeffs[k, 0] if k < self.N else np.asarray(self.tube.end_state)

    def centre(self, k: int) -> np.ndarray:
        """The float state the tube's ball at boundary k is centred on (the initial state
        at k = 0)."""
        return self.instance.theta0 if k == 0 else self._start(k)

    def ball_at(self, k: int) -> tuple[Ball, Ball]:
        """The state at boundary k (exactly the initial state at k = 0)."""
        if k == 0:
            return self.start
        return around(self.shape, self._start(k), float(self.tube.r0[k]))

    def _poly(self, k: int) -> tuple[Ball, float]:
        h = float(self.bounds[k + 1] - self.bounds[k])
        return Ball.exact(self.tube.coeffs[k]), h

    def part_poly(self, k: int, s0: float, s1: float):
        """Step k's polynomial on [s0, s1] (floats in [0, h]) as coefficients in
        u = s - s0, and the width to bound it over (rounded up)."""
        P, h = self._poly(k)
        if s0 == 0.0 and s1 == h:
            return P, h
        if s0 > 0.0:
            P = shifted(P, s0)
        return P, float(up(s1 - s0, 1))

    def box(self, k: int, s0: float, s1: float) -> tuple[Ball, Ball, arb]:
        """Every state of the tube for t in [b_k + s0, b_k + s1], as (W, a) balls, and
        those times."""
        P, width = self.part_poly(k, s0, s1)
        lo, hi = range_on(P, width, near=0.0)
        R = float(up(float(self.tube.R[k]), 1))
        W, a = state_box(self.shape, sub_down(lo, R), add_up(hi, R))
        b = _arb_time(self.bounds[k])
        return W, a, _hull(b + _arb_time(s0), b + _arb_time(s1))

    def parts(self, lo: float, hi: float):
        """(k, s0, s1) for each step k that meets the times [lo, hi]: the part of the step
        there, its ends rounded outward and kept in [0, h_k]."""
        for k in range(self.N):
            b0, b1 = float(self.bounds[k]), float(self.bounds[k + 1])
            if b1 < lo or b0 > hi:
                continue
            s0 = max(0.0, float_floor(_arb_time(lo) - _arb_time(b0)))
            s1 = min(b1 - b0, float_ceil(_arb_time(hi) - _arb_time(b0)))
            yield k, min(s0, s1), s1

    # -- the tree's leaves --------------------------------------------------------------------
    def number(self, name: str) -> arb:
        if name not in self._numbers:
            self._numbers[name] = INSTANCE_NUMBERS[name](self.instance)
        return self._numbers[name]

    def time_value(self, node) -> arb:
        """A time node (or an expression in instance numbers) as an arb."""
        return self.evaluate(node)

    def state_at(self, when: arb) -> tuple[Ball, Ball]:
        """Every state of the tube at the times ``when`` (an arb): the initial state at
        exactly 0, a boundary's ball at exactly a boundary, else the hull of the boxes of
        the parts of steps that the times meet."""
        lo, hi = float_floor(when), float_ceil(when)
        if lo < 0 or hi > self.end:
            raise NotEnclosed(f"a time in [{lo:.6g}, {hi:.6g}] outside the tube "
                              f"[0, {self.end:.6g}]")
        if lo == hi:
            hit = np.flatnonzero(self.bounds == lo)
            if hit.size:
                return self.ball_at(int(hit[0]))
        boxes = [self.box(k, s0, s1)[:2] for k, s0, s1 in self.parts(lo, hi)]
        if not boxes:
            raise NotEnclosed(f"no step of the tube meets t in [{lo:.6g}, {hi:.6g}]")
        W = _ball_hull([b[0] for b in boxes])
        a = _ball_hull([b[1] for b in boxes])
        return W, a

    def quantity(self, name: str, when, at) -> arb:
        """The measure ``name`` at the time node ``when``; ``at``: the current place
        (("ball", k), ("box", k, s0, s1)) that ``["t"]`` stands for."""
        if when == ["t"]:
            if at[0] == "box" and name in STEP_MEASURES:
                _, k, s0, s1 = at
                P, width = self.part_poly(k, s0, s1)
                return drift_over_step(self.shape, P, width,
                                       float(up(float(self.tube.R[k]), 1)), self.start,
                                       STEP_MEASURES[name])
            W, a = self._state(at)
            return MEASURES[name](self.shape, W, a, self.start)
        key = (name, repr(when))
        if key not in self._at:
            W, a = self.state_at(self.time_value(when))
            self._at[key] = MEASURES[name](self.shape, W, a, self.start)
        return self._at[key]

    def _state(self, at):
        if at is None:
            raise NotEnclosed("a quantity of t outside a window")
        if at[0] == "ball":
            return self.ball_at(at[1])
        if at[0] == "exact":
            return self.start
        if at[0] == "given":
            return at[1], at[2]
        _, k, s0, s1 = at
        W, a, _ = self.box(k, s0, s1)
        return W, a

    def _time_of(self, at) -> arb:
        if at is None:
            raise NotEnclosed("t outside a window")
        if at[0] == "exact":
            return arb(0)
        if at[0] == "ball":
            return _arb_time(self.bounds[at[1]])
        if at[0] == "given":
            return at[3]
        _, k, s0, s1 = at
        b = _arb_time(self.bounds[k])
        return _hull(b + _arb_time(s0), b + _arb_time(s1))

    def evaluate(self, node, at=None) -> arb:
        """The expression ``node`` as an arb (``at``: what ``["t"]`` is)."""
        op, args = node[0], node[1:]
        if op == "num":
            return rational(_rational(args[0]))
        if op == "pi":
            return arb.pi()
        if op == "E":
            return arb(1).exp()
        if op == "t":
            return self._time_of(at)
        if op == "horizon":
            return _arb_time(self.spec.horizon)
        if op == "event_time":
            if self.event_time is None:
                raise NotEnclosed("the event's time is not enclosed")
            return self.event_time
        if op == "inst":
            return self.number(args[0])
        if op == "q":
            return self.quantity(args[0], args[1], at)
        vals = [self.evaluate(a, at) for a in args]
        if op == "add":
            out = vals[0]
            for v in vals[1:]:
                out = out + v
            return out
        if op == "mul":
            out = vals[0]
            for v in vals[1:]:
                out = out * v
            return out
        if op == "pow":
            base, ex = vals
            e = _rational(args[1][1]) if args[1][0] == "num" else None
            if e is not None and e.denominator == 1:
                return base ** int(e)
            return base ** ex
        if op == "exp":
            return vals[0].exp()
        if op == "log":
            return vals[0].log()
        if op == "abs":
            return abs(vals[0])
        if op in ("min", "max"):
            out = vals[0]
            for v in vals[1:]:
                out = out.min(v) if op == "min" else out.max(v)
            return out
        raise NotEnclosed(f"the operation {op}")

    def sign(self, rel, at) -> int:
        """+1 if the relation certainly holds on every value the enclosures allow, -1 if
        it certainly fails, 0 if they do not decide it."""
        op, args = rel[0], rel[1:]
        if op in ("and", "or"):
            signs = [self.sign(r, at) for r in args]
            if op == "and":
                return -1 if -1 in signs else (1 if all(s == 1 for s in signs) else 0)
            return 1 if 1 in signs else (-1 if all(s == -1 for s in signs) else 0)
        try:
            lhs = self.evaluate(args[0], at)
            rhs = self.evaluate(args[1], at)
        except NotEnclosed:
            raise
        except (ValueError, ZeroDivisionError, OverflowError):
            return 0
        if op == "eq":
            gap = lhs - rhs
            return -1 if (gap > 0 or gap < 0) else 0
        gap = rhs - lhs if op in ("le", "lt") else lhs - rhs
        strict = op in ("lt", "gt")
        if gap > 0 or (not strict and gap >= 0):
            return 1
        if gap < 0 or (strict and gap <= 0):
            return -1
        return 0

    # -- over parts of steps -------------------------------------------------------------
    def holds_over(self, rel, k: int, s0: float, s1: float, want: int) -> float | None:
        """None if the relation's sign is ``want`` on every box of [s0, s1] of step k (a
        box halved up to SPLIT_DEPTH times where it does not decide); else the start of
        the first part where it is not."""
        todo = [(s0, s1, 0)]
        while todo:
            a, b, depth = todo.pop()
            sign = self.sign(rel, ("box", k, a, b))
            if sign == want:
                continue
            mid = 0.5 * (a + b)
            if sign == -want or depth >= SPLIT_DEPTH or not a < mid < b:
                return a
            todo += [(mid, b, depth + 1), (a, mid, depth + 1)]
        return None

    def event_upper(self, until: float) -> float | None:
        """The first boundary (at most ``until``) where the event holds on the whole tube:
        the event's first time is at most it. None if there is none."""
        if self.sign(self.spec.event, ("exact",)) == 1:
            return 0.0
        for k in range(1, self.N + 1):
            if self.bounds[k] > until:
                return None
            if self.sign(self.spec.event, ("ball", k)) == 1:
                return float(self.bounds[k])
        return None

    def event_lower(self, until: float) -> float:
        """A time A up to which the event fails on every box of the tube (scanned up to
        past ``until``): the event's first time is at least A."""
        if self.sign(self.spec.event, ("exact",)) != -1:
            return 0.0
        A = 0.0
        for k in range(self.N):
            if self.bounds[k] > until:
                break
            h = float(self.bounds[k + 1] - self.bounds[k])
            first = self.holds_over(self.spec.event, k, 0.0, h, want=-1)
            if first is not None:
                return float_floor(_arb_time(self.bounds[k]) + _arb_time(first)) + 0.0
            A = float(self.bounds[k + 1])
        return A


def _ball_hull(balls: list[Ball]) -> Ball:
    lo = np.min([b.lower() for b in balls], axis=0)
    hi = np.max([b.upper() for b in balls], axis=0)
    return Ball.hull(lo, hi)


# -- the decision ---------------------------------------------------------------------------
def decide(spec: ClaimSpec, tube) -> Decision:
    """The claim decided on the tube (PROVED, DISPROVED or UNCERTIFIED with why)."""
    ctx = Context(spec, tube)
    try:
        with np.errstate(all="ignore"):
            if spec.kind == "event":
                return _decide_event(ctx)
            return _decide_window(ctx)
    except NotEnclosed as exc:
        return Decision("UNCERTIFIED", None, str(exc))


def _decide_event(ctx: Context) -> Decision:
    spec = ctx.spec
    strict = spec.relation[0] == "lt"
    bound = ctx.evaluate(spec.relation[2])
    if not bound.is_finite():
        return Decision("UNCERTIFIED", None, f"the bound {bound} is not a finite number")
    top = float_ceil(bound)
    B = ctx.event_upper(until=top)
    if B is not None:
        Bv = _arb_time(B)
        if (Bv < bound) if strict else (Bv <= bound):
            return Decision("PROVED", B, f"the event holds on the whole tube at t={B:.6g}, "
                            f"within the bound {float(bound.mid()):.6g}")
    A = ctx.event_lower(until=top)
    Av = _arb_time(A)
    if (Av >= bound) if strict else (Av > bound):
        return Decision("DISPROVED", A, f"the event fails on the whole tube up to t={A:.6g}, "
                        f"past the bound {float(bound.mid()):.6g}")
    if ctx.end < top and B is None:
        return Decision("UNCERTIFIED", None, f"the tube ends at t={ctx.end:.6g}, before the "
                        f"bound {float(bound.mid()):.6g}, and the event is certain nowhere on "
                        "it")
    return Decision("UNCERTIFIED", None, f"the tube does not decide the event from "
                    f"t={A:.6g}")


def _provable(rel) -> bool:
    """Whether the relation can hold on a whole box (an equality cannot)."""
    if rel[0] == "eq":
        return False
    if rel[0] == "and":
        return all(_provable(r) for r in rel[1:])
    if rel[0] == "or":
        return any(_provable(r) for r in rel[1:])
    return True


def _decide_window(ctx: Context) -> Decision:
    spec = ctx.spec
    if spec.event is not None:
        B = ctx.event_upper(until=ctx.end)
        if B is None:
            return Decision("UNCERTIFIED", None, "the event is certain nowhere on the tube, so "
                            "its time is not enclosed")
        A = ctx.event_lower(until=B)
        ctx.event_time = _hull(_arb_time(min(A, B)), _arb_time(B))
    lo = ctx.time_value(spec.window[0])
    hi = ctx.time_value(spec.window[1])
    if not (lo.is_finite() and hi.is_finite()):
        return Decision("UNCERTIFIED", None, "a window end is not a finite number")
    lo_in, hi_in = float_ceil(lo), float_floor(hi)   # certainly inside between these
    lo_out, hi_out = float_floor(lo), float_ceil(hi)  # the window lies between these
    rel = spec.relation
    # DISPROVED: a boundary certainly inside the window where the relation fails
    for k in range(ctx.N + 1):
        t = float(ctx.bounds[k])
        if t > hi_in:
            break
        if t >= lo_in and ctx.sign(rel, ("exact",) if k == 0 else ("ball", k)) == -1:
            return Decision("DISPROVED", t, "the relation fails on the whole certified tube "
                            "there")
    if spec.window[0] == spec.window[1]:  # a single time: the tube's states then
        if hi_out > ctx.end:
            return _with_tail(ctx, Decision(
                "UNCERTIFIED", None, f"the tube ends at t={ctx.end:.6g}, before the time "
                f"{hi_out:.6g}"), lo_out, hi_out, single=True)
        W, a = ctx.state_at(lo)
        s = ctx.sign(rel, ("given", W, a, lo))
        if s == -1:
            return Decision("DISPROVED", lo_out, "the relation fails on the whole certified "
                            "tube there")
        if s == 1:
            return Decision("PROVED", lo_out, f"the relation holds on the whole tube at "
                            f"t={lo_out:.6g}")
        return _with_tail(ctx, Decision("UNCERTIFIED", None, f"the tube does not decide "
                                        f"the relation at t={lo_out:.6g}"), lo_out, hi_out,
                          single=True)
    if not _provable(rel):
        return Decision("UNCERTIFIED", None, "an equality holds on no tube of positive "
                        "radius: the tube can only disprove it, and it does not fail on the "
                        "whole tube at any boundary of the window")
    if hi_out > ctx.end:
        return _with_tail(ctx, Decision(
            "UNCERTIFIED", None, f"the tube is certified to t={ctx.end:.6g}, the window "
            f"reaches {hi_out:.6g}"), lo_out, hi_out)
    lo_out = max(lo_out, 0.0)
    for k, s0, s1 in ctx.parts(lo_out, hi_out):
        first = ctx.holds_over(rel, k, s0, s1, want=1)
        if first is not None:
            at = float_floor(_arb_time(ctx.bounds[k]) + _arb_time(first)) + 0.0
            return _with_tail(ctx, Decision(
                "UNCERTIFIED", None, f"the tube does not decide the relation from "
                f"t={at:.6g}"), lo_out, hi_out)
    return Decision("PROVED", None, f"the relation holds on the whole tube for t in "
                    f"[{lo_out:.6g}, {hi_out:.6g}]")


def _with_tail(ctx: Context, undecided: Decision, lo_out: float, hi_out: float,
               single: bool = False) -> Decision:
    """Where the tube alone leaves a window claim UNCERTIFIED: PROVED when Lemma 9 (the
    loss does not increase along the flow, `numerics.certify.monotone`) decides its tail
    from a boundary of the tube on; else ``undecided``, with why the lemma does not help
    when the claim reads the loss."""
    try:
        tail = decide_tail(ctx, lo_out, hi_out, single)
    except NotApplicable as exc:
        if not _uses_loss(ctx.spec.relation):
            return undecided
        return replace(undecided, reason=f"{undecided.reason}; the loss's monotonicity "
                       f"(Lemma 9) does not decide it either: {exc}")
    if single:
        span = f"at t={lo_out:.6g}:"
    elif tail.start > max(lo_out, 0.0):
        span = (f"for t in [{max(lo_out, 0.0):.6g}, {hi_out:.6g}]: on the whole tube up to "
                f"t={tail.start:.6g}, and")
    else:
        span = f"for t in [{max(lo_out, 0.0):.6g}, {hi_out:.6g}]:"
    return Decision("PROVED", None, f"the relation holds {span} {tail.describe()}", tail)


def _uses_loss(node) -> bool:
    return isinstance(node, list) and bool(node) and (
        node[:3] == ["q", "L", ["t"]] or any(_uses_loss(a) for a in node[1:]))


__all__ = ["ClaimError", "ClaimSpec", "Context", "Decision", "check_tree", "decide",
           "render"]
