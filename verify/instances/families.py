"""Families of instances: named, typed parameters plus a generator and a horizon.

A family is declared once; from it come a hypothesis strategy (for
``pytest verify`` and counterexample search), a reproducible sampler (for
reports) and, through ``fixed``, the narrowed families a user asks for with
``--param key=value``, so every use draws from exactly the same ranges.

Parameters are typed (`IntParam`, `FloatParam`, `ChoiceParam`). Each has a
search range, a default (a value, or a rule in the other parameters such as
``d = 2n``; used by scaling runs and shown by ``gfverify families``) and hard
limits a fixed value must respect. Floats such as ``lam`` are drawn on a log
scale and rounded to 4 significant digits, so that an instance is replayable
from its printed parameters. Parameters are drawn in declaration order, sizes
first: a shrinker that reduces earlier draws reduces sizes first. A parameter
may be bounded by an earlier one (``d >= n``, ``groups <= n``).

Each family brings its horizon (how long an instance is simulated): the built-in ones
are declared with their papers (``papers/s00x/families.py``, whose docstrings justify
each rule), an outside pack's in its ``families`` module (`theory.packs`).
``--param horizon=T`` (or ``--t-max``) overrides it.

Every family also takes the model options of `numerics.model` (`MODEL_OPTIONS`):
``--param activation=leaky:0.1``, ``train=first``, ``bias=1`` (a hidden bias, as an input
coordinate of that value), ``init=dominated:2``. They are not drawn: an instance has the
family's own model (ReLU, both layers, its paper's initialisation) unless one is fixed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import numpy as np
from hypothesis import strategies as st

from numerics import Problem, ProblemError
from theory import fields
from theory.suggest import unknown_name
from verify.errors import InputError


class FamilyError(InputError):
    """A bad family name, parameter name or value; the message names it."""


_SIG_DIGITS = 4  # drawn floats are rounded to this many significant digits (replayable)


def _round_sig(x: float) -> float:
    return float(f"{x:.{_SIG_DIGITS - 1}e}")


# the theory of small initialisations needs a scale below 1 (at 1 the two-point horizon,
# 3.6 (-ln lam)/..., is zero)
SMALL_SCALE = (0.0, 0.5)


# -- typed parameters ----------------------------------------------------------------------
def _int_text(x) -> str:
    return "inf" if x is None else f"{x}"


def _float_text(x) -> str:
    return "inf" if x is None else f"{x:g}"


_INT_LITERAL = re.compile(r"[+-]?\d+")
_FLOAT_LITERAL = re.compile(r"[+-]?(?P<mantissa>\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_NONZERO_DIGIT = re.compile(r"[1-9]")


class _Numeric:
    """What `IntParam` and `FloatParam` share: the allowed range (``limits``, printed by
    ``gfverify families`` as it is enforced), the drawn range ([lo, hi], and the drawn range
    at the papers' sizes, ``paper``) and the one message per violation."""

    def violation(self, name: str, value, typed: str | None = None) -> str | None:
        """The one-line message for ``value`` (``typed`` by the user, if given) outside the
        allowed range, or None."""
        lo, hi = self.limits
        low_ok = lo is None or (value > lo if self._open_low else value >= lo)
        if low_ok and (hi is None or value <= hi) and (self.kind == "int"
                                                      or math.isfinite(value)):
            return None
        shown = typed if typed is not None else f"{value}" if self.kind == "int" else \
            f"{value:g}"
        return (f"--param {name}={shown}: outside the allowed range {self.allowed_text()} "
                f"of {name} ({self.meaning})")

    def parse(self, name: str, text: str):
        """``text`` (a ``--param name=text`` value) as a number within ``limits``: a plain
        decimal literal (an integer for an int parameter; no underscores, hex, ``nan`` or
        ``inf``), read exactly as typed. A FamilyError naming ``name``, what was typed and
        the allowed range otherwise, including a literal float64 cannot hold (``1e-400``
        would be read as 0, ``1e400`` as infinity)."""
        literal = (_INT_LITERAL if self.kind == "int" else _FLOAT_LITERAL).fullmatch(
            text.strip())
        if literal is None:
            what = "an integer" if self.kind == "int" else "a decimal number"
            raise FamilyError(f"--param {name}={text}: expected {what} "
                              f"(allowed {self.allowed_text()})")
        if self.kind == "int":
            value = int(text)
        else:
            value = float(text)
            if math.isinf(value) or (value == 0 and _NONZERO_DIGIT.search(literal["mantissa"])):
                size = "large" if value else "small"
                raise FamilyError(
                    f"--param {name}={text}: too {size} in magnitude for a float64 (it would "
                    f"be read as {value:g}); allowed {self.allowed_text()}")
        why = self.violation(name, value, typed=text)
        if why:
            raise FamilyError(why)
        return value

    def within(self, value) -> bool:
        """Whether ``value`` is in the allowed range."""
        return self.violation("x", value) is None

    def drawn_text(self, which: str = "default") -> str:
        """The drawn range as printed (``[2, 8]``, ``[1e-20, 1e-06] log``)."""
        lo, hi = self.range(which)
        fmt = _int_text if self.kind == "int" else _float_text
        return f"[{fmt(lo)}, {fmt(hi)}]{' log' if self.log_at(which) else ''}"

    def range(self, which: str = "default") -> tuple:
        """The drawn range: ``"default"`` ([lo, hi]) or ``"paper"`` (``paper`` if set)."""
        if which == "paper" and self.paper is not None:
            return self.paper
        return self.lo, self.hi

    def log_at(self, which: str) -> bool:
        """Whether the ``which`` drawn range (``"default"``, ``"paper"``) is drawn on a log
        scale."""
        return self.log

    def describe_range(self) -> str:
        """The ranges as ``gfverify families`` prints them: drawn, at the papers' sizes
        (when other), and allowed (what ``--param`` accepts)."""
        extra = "".join(f", {op} {ref}" for op, ref in ((">=", self.ge), ("<=", self.le))
                        if ref)
        paper = (f", paper sizes {self.drawn_text('paper')}" if self.paper is not None
                 and self.paper != (self.lo, self.hi) else "")
        return f"drawn {self.drawn_text()}{paper}; allowed {self.allowed_text()}{extra}"


@dataclass(frozen=True)
class IntParam(_Numeric):
    """An integer parameter: a drawn range [lo, hi], an allowed range, a default.

    ``ge``/``le`` name an earlier parameter this one must be >= / <= (d >= n).

    Attributes
    ----------
    lo
        The low end of the drawn range, included: a search draws from [lo, hi].
    hi
        The high end of the drawn range, included.
    meaning
        What the parameter is, in words (``gfverify families`` prints it).
    default
        The value scaling runs and ``defaults`` use: a number, a rule in the earlier
        parameters (``lambda v: 2 * v["n"]``), or None (no default: it must be set).
    default_text
        The default as ``gfverify families`` prints it when it is a rule (``"2n"``).
    limits
        The allowed range (low, high; None: unbounded), ends included: what a value fixed
        with ``--param`` must respect, and what ``gfverify families`` prints as "allowed".
        The drawn ranges lie inside it. Left out: (1, None), or (lo, None) when the drawn
        range starts below 1 (a seed drawn from 0).
    ge
        The name of an earlier parameter this one must be >= (for d >= n, d's ``ge`` is
        ``"n"``); None for no bound. The drawn range respects it (`bounds`).
    le
        The name of an earlier parameter this one must be <=; None for no bound. The
        drawn range respects it (`bounds`).
    log
        Draw on a log scale (for a range spanning decades, such as a width of 10 to
        2,000 at the papers' sizes); default False (uniform).
    paper
        The drawn range at the papers' sizes (``gfverify conjecture --sizes paper``, the
        ``paper`` profile's searches), drawn on a log scale when it spans more than a
        factor 10; None: the same as [lo, hi].
    """

    lo: int
    hi: int
    meaning: str
    default: int | Callable[[dict], int] | None = None
    default_text: str = ""
    limits: tuple[int | None, int | None] | None = None
    ge: str | None = None
    le: str | None = None
    log: bool = False
    paper: tuple[int, int] | None = None

    kind = "int"
    _open_low = False

    def __post_init__(self) -> None:
        if self.limits is None:
            low = min(1, self.lo) if isinstance(self.lo, int | np.integer) else 1
            object.__setattr__(self, "limits", (low, None))

    def log_at(self, which: str) -> bool:
        """Whether the ``which`` drawn range is drawn on a log scale: ``log``, and the
        papers' range when it spans more than a factor 10."""
        lo, hi = self.range(which)
        return self.log or (which == "paper" and self.paper is not None and lo > 0
                            and hi > 10 * lo)

    def bounds(self, values: Mapping[str, Any]) -> tuple[int, int]:
        """The drawn range given the earlier parameters' ``values`` (``ge``/``le``
        applied). When a bound moves past the whole range (d >= n with n above d's drawn
        range), the range becomes the bound itself: the nearest values the bound allows."""
        lo, hi = self.lo, self.hi
        if self.ge is not None and self.ge in values:
            lo = max(lo, int(values[self.ge]))
            hi = max(hi, lo)
        if self.le is not None and self.le in values:
            hi = min(hi, int(values[self.le]))
            lo = min(lo, hi)
        return lo, hi

    def _from_unit(self, u: float, lo: int, hi: int) -> int:
        if lo >= hi:
            return lo
        x = math.exp(math.log(lo) + u * (math.log(hi + 1) - math.log(lo)))
        return min(max(int(x), lo), hi)

    def strategy(self, values: Mapping[str, Any]) -> st.SearchStrategy:
        """A hypothesis strategy over the range, given the earlier parameters' values (on
        a log scale when ``log``: shrinking moves towards ``lo``)."""
        lo, hi = self.bounds(values)
        if self.log and lo > 0:
            return st.floats(0.0, 1.0).map(lambda u: self._from_unit(u, lo, hi))
        return st.integers(lo, hi)

    def sample(self, rng: np.random.Generator, values: Mapping[str, Any]):
        """One value drawn with ``rng`` (uniformly, or on a log scale when ``log``)."""
        lo, hi = self.bounds(values)
        if self.log and lo > 0:
            return self._from_unit(float(rng.uniform()), lo, hi)
        return int(rng.integers(lo, hi + 1))

    def narrowed(self, lo, hi) -> IntParam:
        """The same parameter drawn from [lo, hi] (its papers' sizes too)."""
        return replace(self, lo=lo, hi=hi, paper=None)

    def allowed_text(self) -> str:
        """The allowed range as printed and enforced (``[2, inf)``, ``[0, 10]``)."""
        lo, hi = self.limits
        return (f"[{'-inf' if lo is None else lo}, "
                f"{'inf)' if hi is None else f'{hi}]'}")


@dataclass(frozen=True)
class FloatParam(_Numeric):
    """A float parameter drawn in [lo, hi], uniformly or on a log scale (``log``), with an
    allowed range (``limits``).

    Drawn values are rounded to 4 significant digits, so that an instance is replayable
    from its printed parameters.

    Attributes
    ----------
    lo
        The low end of the drawn range (included; > 0 when ``log``).
    hi
        The high end of the drawn range (included).
    meaning
        What the parameter is, in words.
    default
        A number, a rule in the earlier parameters (``lambda v: 1e-6 / sqrt(v["p"])``), or
        None (no default).
    default_text
        The default as ``gfverify families`` prints it when it is a rule.
    log
        Draw on a log scale (default True; needs lo > 0) rather than uniformly.
    limits
        The allowed range (low, high; None: unbounded): the low end is excluded, the
        high one included (default (0.0, None): positive). What ``--param`` accepts and
        ``gfverify families`` prints as "allowed"; the drawn ranges lie inside it.
    ge
        The name of an earlier parameter this one must be >= (None: no bound): kept
        consistent when values are fixed (`Family.fixed`); the drawn range ignores it.
    le
        The name of an earlier parameter this one must be <= (None: no bound): kept
        consistent when values are fixed (`Family.fixed`); the drawn range ignores it.
    paper
        The drawn range at the papers' sizes (``--sizes paper``); None: [lo, hi].
    open_low
        Whether the low end of ``limits`` is excluded (default True: a scale > 0); False
        for a share in [0, 1].
    """

    lo: float
    hi: float
    meaning: str
    default: float | Callable[[dict], float] | None = None
    default_text: str = ""
    log: bool = True
    limits: tuple[float | None, float | None] = (0.0, None)  # exclusive lower limit
    ge: str | None = None
    le: str | None = None
    paper: tuple[float, float] | None = None
    open_low: bool = True

    kind = "float"

    @property
    def _open_low(self) -> bool:
        return self.open_low

    def bounds(self, values: Mapping[str, Any]) -> tuple[float, float]:
        """The drawn range (the same whatever the other parameters)."""
        return self.lo, self.hi

    def _from_unit(self, u: float) -> float:
        if self.lo == self.hi:
            return self.lo
        if self.log:
            x = 10.0 ** (math.log10(self.lo) + u * (math.log10(self.hi) - math.log10(self.lo)))
        else:
            x = self.lo + u * (self.hi - self.lo)
        return min(max(_round_sig(x), self.lo), self.hi)

    def strategy(self, values: Mapping[str, Any]) -> st.SearchStrategy:
        """A hypothesis strategy over the range (log scale if ``log``), rounded values."""
        return st.floats(0.0, 1.0).map(self._from_unit)

    def sample(self, rng: np.random.Generator, values: Mapping[str, Any]):
        """One value drawn with ``rng`` as the strategy draws it."""
        return self._from_unit(float(rng.uniform()))

    def narrowed(self, lo, hi) -> FloatParam:
        """The same parameter drawn from [lo, hi] (its papers' sizes too)."""
        return replace(self, lo=float(lo), hi=float(hi), paper=None)

    def allowed_text(self) -> str:
        """The allowed range as printed and enforced (``(0, 0.5]``, ``(0, inf)``)."""
        lo, hi = self.limits
        return (f"{'(' if self.open_low or lo is None else '['}"
                f"{'-inf' if lo is None else f'{lo:g}'}, "
                f"{'inf)' if hi is None else f'{hi:g}]'}")


@dataclass(frozen=True)
class ChoiceParam:
    """One of a few named options.

    Attributes
    ----------
    choices
        The options, in order (a search draws each with equal probability).
    meaning
        What the parameter is, in words.
    default
        The option used by ``defaults``, or None (no default).
    default_text
        The default as ``gfverify families`` prints it ("" to print ``default``).
    ge
        Unused (None); present so that every parameter type has it.
    le
        Unused (None); present so that every parameter type has it.
    paper
        Unused (None): the options are the same at the papers' sizes.
    """

    choices: tuple[str, ...]
    meaning: str
    default: str | None = None
    default_text: str = ""
    ge: str | None = None
    le: str | None = None
    paper: None = None

    kind = "choice"

    def bounds(self, values):
        """The first and the last option."""
        return self.choices[0], self.choices[-1]

    def range(self, which: str = "default") -> tuple:
        """The first and the last option (the same at the papers' sizes)."""
        return self.choices[0], self.choices[-1]

    def strategy(self, values) -> st.SearchStrategy:
        """A hypothesis strategy over the options."""
        return st.sampled_from(self.choices)

    def sample(self, rng: np.random.Generator, values):
        """One option drawn uniformly with ``rng``."""
        return self.choices[int(rng.integers(len(self.choices)))]

    def parse(self, name: str, text: str) -> str:
        """``text`` if it is one of the options; a FamilyError naming ``name`` otherwise."""
        if text not in self.choices:
            raise FamilyError(f"--param {name}={text}: not one of {list(self.choices)}")
        return text

    def narrowed(self, lo, hi) -> ChoiceParam:
        """The parameter fixed to one option (``lo == hi``); a FamilyError otherwise."""
        if lo != hi or lo not in self.choices:
            raise FamilyError(f"a choice can only be fixed to one of {list(self.choices)}")
        return replace(self, choices=(lo,))

    def describe_range(self) -> str:
        """The options as ``gfverify families`` prints them (``{exponential, logistic}``)."""
        return "{" + ", ".join(self.choices) + "}"


Param = IntParam | FloatParam | ChoiceParam
IntRange = IntParam  # the name of earlier versions


#: The model options every family takes (`numerics.model.with_model`), name -> the values
#: allowed, in words: fixed with ``--param`` (``Family.fixed``), never drawn.
MODEL_OPTIONS = {
    "activation": "relu, leaky:SLOPE (0 <= SLOPE < 1) or power:BETA (BETA > 1)",
    "train": "both, first (a fixed) or second (W fixed)",
    "bias": "a hidden bias: the value C > 0 of the constant input coordinate",
    "init": "balanced, unbalanced[:R], dominated[:F] (F >= 1) or asymmetric",
}


def parse_model_option(key: str, raw) -> Any:
    """A model option's value, checked (a FamilyError names it otherwise)."""
    from numerics import activations, model
    from numerics.problem import TRAINED

    text = str(raw)
    try:
        if key == "bias":
            value = float(text)
            if not (math.isfinite(value) and value > 0):
                raise ProblemError(f"bias: expected a positive number, got {text!r}")
            return value
        if key == "activation":
            activations.parse(text)
        elif key == "init":
            model.parse_init(text)
        elif text not in TRAINED:
            raise ProblemError(f"train: {text!r} is not one of {TRAINED}.")
        return text
    except (ProblemError, ValueError) as exc:
        reason = str(exc).split("; use")[0].split(" (with")[0].rstrip(".")
        raise FamilyError(f"--param {key}: {reason}. Allowed: {MODEL_OPTIONS[key]}.") from None


def seed_param() -> IntParam:
    return IntParam(0, 2**16, "seed of the instance's random numbers", default=0,
                    limits=(0, 2**32 - 1))


# -- families ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Family:
    """A named generator with typed parameters and a simulation horizon.

    ``build(**params) -> Problem`` and ``horizon(problem, params) -> float``.
    The Problems it builds record the family and the parameters in ``meta``.
    Narrowed and fixed families (`narrowed`, `fixed`) are new Family objects.

    Attributes
    ----------
    name
        The family's name (``gfverify conjecture --family NAME``), unique across packs.
    description
        One line on the instances it draws.
    params
        Parameter name -> `IntParam`, `FloatParam` or `ChoiceParam`, in drawing order
        (sizes first); read-only.
    build
        ``build(**params) -> numerics.Problem``: the instance of given parameter values.
    horizon_rule
        ``horizon_rule(problem, params) -> float``: how long to simulate an instance.
    horizon_text
        The horizon rule in words (``gfverify families`` prints it).
    setting
        The paper (pack name) whose setting the family draws (``"S002"``); a claim is
        tightened on the first family of its paper by default.
    aliases
        Other names the family answers to (``("orthonormal",)``).
    fixed_values
        Parameters fixed by `fixed` (``--param``), name -> value; read-only, empty for a
        declared family.
    horizon_override
        A horizon fixed with ``--param horizon=T`` or ``--t-max``, replacing the rule;
        None to use ``horizon_rule``.
    coordinates
        The exact flow's coordinates for this family's instances (`numerics.ExactFlow`'s
        ``coordinates``): ``"auto"`` (default), or e.g. ``"lognorm"`` for a small
        initialisation whose directions must be known to a relative accuracy.
    model
        Model options fixed by the user (`MODEL_OPTIONS`: activation, train, bias, init);
        empty: the family's own model. Read-only.
    selector
        The command-line arguments that select the family in a replay command (a dataset
        family's ``("--data", PATH)``); empty: ``--family NAME``.
    """

    name: str
    description: str
    params: Mapping[str, Param]
    build: Callable[..., Problem]
    horizon_rule: Callable[[Problem, dict], float]
    horizon_text: str = ""
    setting: str = ""
    aliases: tuple[str, ...] = ()
    fixed_values: Mapping[str, Any] = field(default_factory=dict)
    horizon_override: float | None = None
    coordinates: str = "auto"
    model: Mapping[str, Any] = field(default_factory=dict)
    selector: tuple[str, ...] = ()

    @property
    def flow_coordinates(self) -> str:
        """The exact flow's coordinates for this family's instances (its own, unless a fixed
        model leaves the ReLU network with both layers trained (the log-norm coordinates
        integrate only that one))."""
        other = (self.model.get("activation", "relu") != "relu"
                 or self.model.get("train", "both") != "both")
        return "auto" if other and self.coordinates == "lognorm" else self.coordinates

    def __post_init__(self) -> None:
        """Every field is checked here (`theory.fields`): a malformed family is refused
        where it is made, naming the family, the field and what is allowed."""
        if not isinstance(self.name, str) or not self.name.strip() or "\n" in self.name:
            raise fields.fail("family", "name", "a non-empty one-line string", self.name)
        owner = f"family {self.name!r}"
        fields.text(owner, "description", self.description)
        if not isinstance(self.params, Mapping) or not all(
                isinstance(k, str) and isinstance(v, IntParam | FloatParam | ChoiceParam)
                for k, v in self.params.items()):
            raise fields.fail(owner, "params", "a mapping name (str) -> IntParam, FloatParam "
                              "or ChoiceParam", self.params)
        for key, spec in self.params.items():
            if isinstance(spec, FloatParam) and not (
                    spec.lo <= spec.hi and (spec.lo > 0 or not spec.log)):
                raise fields.fail(owner, f"params[{key!r}]", "a FloatParam with lo <= hi and, "
                                  "drawn on a log scale (log=True, the default), lo > 0",
                                  (spec.lo, spec.hi))
            _check_ranges(owner, key, spec, list(self.params)[:list(self.params).index(key)])
        fields.callable_field(owner, "build", self.build, "build(**params) -> Problem")
        fields.callable_field(owner, "horizon_rule", self.horizon_rule,
                              "horizon_rule(problem, params) -> float")
        for name in ("horizon_text", "setting", "coordinates"):
            fields.text(owner, name, getattr(self, name))
        object.__setattr__(self, "aliases", fields.strings(owner, "aliases", self.aliases))
        object.__setattr__(self, "selector", fields.strings(owner, "selector", self.selector))
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))
        object.__setattr__(self, "fixed_values", MappingProxyType(dict(self.fixed_values)))
        object.__setattr__(self, "model", MappingProxyType(dict(self.model)))

    # -- drawing -------------------------------------------------------------------------
    def params_strategy(self) -> st.SearchStrategy[dict]:
        """Parameter dictionaries, drawn in declaration order (sizes first)."""

        @st.composite
        def draw(draw_fn):
            values: dict[str, Any] = {}
            for name, spec in self.params.items():
                values[name] = draw_fn(spec.strategy(values))
            return values

        return draw()

    def strategy(self) -> st.SearchStrategy[Problem]:
        """A hypothesis strategy of Problems (`params_strategy`, then `make`)."""
        return self.params_strategy().map(lambda kw: self.make(kw))

    def sample_params(self, rng: np.random.Generator) -> dict:
        """One parameter dictionary drawn with ``rng``, in declaration order."""
        values: dict[str, Any] = {}
        for name, spec in self.params.items():
            values[name] = spec.sample(rng, values)
        return values

    def sample(self, rng: np.random.Generator) -> Problem:
        """One Problem drawn with ``rng`` (reproducible: same generator state, same
        Problem)."""
        return self.make(self.sample_params(rng))

    def make(self, params: Mapping[str, Any]) -> Problem:
        """The Problem with these parameters, recording the family and them in ``meta``."""
        from numerics import model

        params = dict(params)
        problem = self.build(**params)
        if self.model:
            problem = model.with_model(problem, seed=int(params.get("seed", 0)), **self.model)
        meta = {**problem.meta, "family": self.name, "family_params": params}
        if self.model:
            meta["model"] = dict(self.model)
        return problem.with_initialisation(problem.W0, problem.a0, meta=meta)

    def defaults(self, **given) -> dict:
        """Every parameter at its default, given some (rules such as d = 2n see ``given``)."""
        values: dict[str, Any] = {}
        for name, spec in self.params.items():
            if name in given:
                values[name] = given[name]
            elif name in self.fixed_values:
                values[name] = self.fixed_values[name]
            elif callable(spec.default):
                values[name] = spec.default(values)
            elif spec.default is not None:
                values[name] = spec.default
            else:
                raise FamilyError(f"{self.name}: parameter {name!r} has no default; set it")
        return values

    def horizon(self, problem: Problem, params: Mapping[str, Any] | None = None) -> float:
        """How long to simulate ``problem`` (see the module docstring)."""
        if self.horizon_override is not None:
            return float(self.horizon_override)
        return float(self.horizon_rule(problem, dict(params or {})))

    # -- narrowing -----------------------------------------------------------------------
    def narrowed(self, **ranges) -> Family:
        """The same family with some parameter ranges replaced (``n=(2, 4)``)."""
        params = dict(self.params)
        for k, (lo, hi) in ranges.items():
            if k not in params:
                raise FamilyError(f"{self.name}: no parameter {k!r}; it has {sorted(params)}")
            if params[k].kind != "choice" and lo > hi:
                raise FamilyError(f"{self.name}: empty range for {k!r}: [{lo}, {hi}]")
            params[k] = params[k].narrowed(lo, hi)
        fam = replace(self, params=params)
        fam._check_nonempty()
        return fam

    def fixed(self, **values) -> Family:
        """The family with some parameters fixed to a value (``--param key=value``).

        Values may be strings (from the command line); they are parsed and checked against
        the allowed ranges. ``horizon`` overrides the simulation horizon. A parameter bound
        by a fixed one keeps its drawn range where the bound allows, else moves to the
        nearest values it allows (fixing n = 9 where d >= n is drawn from [2, 8] draws
        d = 9), within its own allowed range. Every violation is named, one line each, in
        one FamilyError.
        """
        errors: list[str] = []
        ranges: dict[str, tuple] = {}
        horizon = self.horizon_override
        chosen_model = dict(self.model)
        for key, raw in values.items():
            try:
                if key in MODEL_OPTIONS:
                    chosen_model[key] = parse_model_option(key, raw)
                elif key == "horizon":
                    horizon = _parse_horizon(raw)
                elif key not in self.params:
                    known = unknown_name(key, [*self.params, "horizon", *MODEL_OPTIONS])
                    raise FamilyError(f"--param {key}: family {self.name!r} has no parameter "
                                      f"{key!r}; {known}")
                else:
                    spec = self.params[key]
                    value = spec.parse(key, str(raw)) if isinstance(raw, str) else raw
                    if spec.kind != "choice":
                        value = spec.parse(key, repr(value))
                    ranges[key] = (value, value)
            except FamilyError as exc:
                errors.append(str(exc))
        params = dict(self.params)
        for key, (value, _) in ranges.items():
            params[key] = params[key].narrowed(value, value)
        given = {k: v[0] for k, v in {**{k: (v, v) for k, v in self.fixed_values.items()},
                                      **ranges}.items()}
        for name, spec in self.params.items():  # the bounds between parameters
            if spec.kind == "choice":
                continue
            for ref, op in ((spec.ge, ">="), (spec.le, "<=")):
                if ref is None or not (name in given or ref in given):
                    continue
                why = _keep_bound(params, name, ref, op, given)
                if why:
                    errors.append(why)
        if errors:
            raise FamilyError("\n".join(dict.fromkeys(errors)))
        return replace(self, params=params, horizon_override=horizon, model=chosen_model,
                       fixed_values={**self.fixed_values, **{k: v[0] for k, v in
                                                             ranges.items()}})

    def sized(self, which: str) -> Family:
        """The family drawing from its ``which`` ranges: ``"default"`` (itself) or
        ``"paper"`` (each parameter's drawn range at the papers' sizes, ``paper``; fixed
        parameters stay fixed)."""
        if which == "default":
            return self
        if which != "paper":
            raise FamilyError(f"--sizes: {which!r} is not one of ['default', 'paper']")
        params = {}
        for name, spec in self.params.items():
            if spec.kind == "choice" or spec.paper is None or name in self.fixed_values:
                params[name] = spec
                continue
            lo, hi = spec.paper
            params[name] = replace(spec, lo=lo, hi=hi, paper=None,
                                   log=spec.log_at("paper"))
        return replace(self, params=params)

    def _check_nonempty(self) -> None:
        for name, spec in self.params.items():
            if spec.kind != "choice" and spec.lo > spec.hi:
                raise FamilyError(f"{self.name}: the drawn range of {name!r} is empty "
                                  f"([{spec.lo}, {spec.hi}])")

    def size_params(self) -> tuple[str, ...]:
        """The integer parameters a shrinker reduces (every int but the seed)."""
        return tuple(k for k, s in self.params.items() if s.kind == "int" and k != "seed")

    def listing(self) -> str:
        """Several lines: name, description, horizon and each parameter."""
        names = ", ".join((self.name, *self.aliases))
        lines = [f"{names}  [{self.setting}]", f"    {self.description}",
                 f"    horizon: {self.horizon_text}"]
        for name, spec in self.params.items():
            default = spec.default_text or ("" if spec.default is None or callable(spec.default)
                                             else f"{spec.default}")
            lines.append(f"    {name:<8} {spec.kind:<6} {spec.meaning}; default "
                         f"{default or '-'}")
            lines.append(f"    {'':<15} {spec.describe_range()}")
        if self.model:
            lines.append("    model: " + ", ".join(f"{k}={v}" for k, v in self.model.items()))
        return "\n".join(lines)


def _parse_horizon(raw) -> float:
    try:
        horizon = float(raw)
    except (TypeError, ValueError):
        horizon = math.nan
    if not (math.isfinite(horizon) and horizon > 0):
        raise FamilyError(f"--param horizon: expected a positive time, got {raw!r}")
    return horizon


def _keep_bound(params: dict, name: str, ref: str, op: str, given: Mapping) -> str | None:
    """Keep ``name op ref`` (d >= n) once one of them is fixed (``given``): narrow the other
    one's drawn range to what the bound allows, moving it to the nearest allowed values when
    the bound excludes all of it; the message when the fixed values break the bound, or the
    other one's allowed range cannot meet it (None when they can)."""
    ge = op == ">="
    if name in given and ref in given:
        a, b = given[name], given[ref]
        if (a < b) if ge else (a > b):
            return (f"--param {name}={a}: {name} must be {op} {ref}, and {ref}={b} is fixed "
                    "too")
        return None
    fixed_one, free = (ref, name) if ref in given else (name, ref)
    value = given[fixed_one]
    spec = params[free]
    # the free one must be >= value when it is the larger side, <= value otherwise
    larger = (free == name) == ge
    lo, hi = spec.lo, spec.hi
    if larger:
        lo, hi = max(lo, value), max(hi, value)
    else:
        lo, hi = min(lo, value), min(hi, value)
    if spec.kind == "int":
        lo, hi = (int(math.ceil(lo)), int(math.ceil(hi))) if larger else (int(lo), int(hi))
    if not (spec.within(lo) and spec.within(hi)):
        side = "at most" if larger else "at least"
        end = spec.limits[1] if larger else spec.limits[0]
        return (f"--param {fixed_one}={value}: {name} must be {op} {ref}, and {free} is "
                f"{side} {end} (its allowed range {spec.allowed_text()})")
    params[free] = replace(spec, lo=lo, hi=hi, paper=None)
    return None


def _check_ranges(owner: str, key: str, spec, earlier: list[str]) -> None:
    """A declared parameter's drawn ranges lie inside its allowed range, and its bounds
    name earlier parameters (refused where the family is made otherwise)."""
    if spec.kind == "choice":
        return
    for ref in (spec.ge, spec.le):
        if ref is not None and ref not in earlier:
            raise fields.fail(owner, f"params[{key!r}]", "a bound (ge/le) naming an earlier "
                              "parameter", ref)
    for which in ("default", "paper"):
        lo, hi = spec.range(which)
        if not (lo <= hi and spec.within(lo) and spec.within(hi)):
            raise fields.fail(owner, f"params[{key!r}]", f"a {which} drawn range inside the "
                              f"allowed range {spec.allowed_text()}", (lo, hi))
        if spec.kind == "float" and spec.log and lo <= 0:
            raise fields.fail(owner, f"params[{key!r}]", "a range drawn on a log scale above "
                              "0", (lo, hi))


def all_families() -> dict[str, Family]:
    """Every family by name, from every pack's ``families`` module (`theory.packs`: the
    built-in papers', then the installed packs'; each defines FAMILIES, a tuple of
    Family)."""
    from theory import packs

    out: dict[str, Family] = {}
    for pack, module in packs.modules("families"):
        for fam in getattr(module, "FAMILIES", ()):
            if fam.name in out:
                raise packs.PackError(f"pack {pack.name!r}: family {fam.name!r} exists "
                                      "already; rename it")
            out[fam.name] = fam
    return out


def get(name: str) -> Family:
    """The family called ``name`` (or one of its aliases); a clear error lists them."""
    every = all_families()
    by_name = {alias: f for f in every.values() for alias in (f.name, *f.aliases)}
    try:
        return by_name[name]
    except KeyError:
        raise FamilyError(f"--family: no family {name!r}; "
                          f"{unknown_name(name, every, 'gfverify families')}") from None
