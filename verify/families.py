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

Horizon (how long an instance is simulated), per setting:

- S002 (``two-point``, ``orthogonal``): 3.6 (-ln lam)/min(||D_+||, ||D_-||),
  20% past S002-T1's c_T (-ln lam)/||D_-|| with c_T = 3 (``verify.evidence``);
- S000 (``orthogonal-asym``, ``sphere``): 6 n. The local PL is at least of order
  1/n (S000-T1), so times scale like n; in our runs L/L(0) reaches 1e-9 near
  t = 2.5 n (n = 10 ... 80);
- ``group``: max over groups of t_j + 6 n/Y_j, with t_j = (n/(2 Y_j)) ln(p Y_j/N_0)
  the time group j is half learned (CF-7) and 6 n/Y_j the time its rate 4 Y_j/n
  needs to divide the loss by e^24;
- ``separable``: 200 T with T = ln(1/(sqrt(h) eps))/(4 n X_max), S001's end of the
  small-norm phase; the loss then decays like 1/t.

``--param horizon=T`` (or ``--t-max``) overrides it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import numpy as np
from hypothesis import strategies as st

from numerics import Problem, generators
from verify.errors import InputError
from verify.evidence import s002_horizon


class FamilyError(InputError):
    """A bad family name, parameter name or value; the message names it."""


_SIG_DIGITS = 4  # drawn floats are rounded to this many significant digits (replayable)


def _round_sig(x: float) -> float:
    return float(f"{x:.{_SIG_DIGITS - 1}e}")


# the theory of small initialisations needs a scale below 1 (at 1 the two-point horizon,
# 3.6 (-ln lam)/..., is zero)
_SMALL_SCALE = (0.0, 0.5)


# -- typed parameters ----------------------------------------------------------------------
@dataclass(frozen=True)
class IntParam:
    """An integer parameter: search range [lo, hi], hard limits, a default.

    ``ge``/``le`` name an earlier parameter this one must be >= / <= (d >= n).
    """

    lo: int
    hi: int
    meaning: str
    default: int | Callable[[dict], int] | None = None
    default_text: str = ""
    limits: tuple[int | None, int | None] = (1, None)
    ge: str | None = None
    le: str | None = None

    kind = "int"

    def bounds(self, values: Mapping[str, Any]) -> tuple[int, int]:
        lo, hi = self.lo, self.hi
        if self.ge is not None and self.ge in values:
            lo = max(lo, int(values[self.ge]))
        if self.le is not None and self.le in values:
            hi = min(hi, int(values[self.le]))
        return lo, hi

    def strategy(self, values: Mapping[str, Any]) -> st.SearchStrategy:
        lo, hi = self.bounds(values)
        return st.integers(lo, hi)

    def sample(self, rng: np.random.Generator, values: Mapping[str, Any]):
        lo, hi = self.bounds(values)
        return int(rng.integers(lo, hi + 1))

    def parse(self, name: str, text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise FamilyError(f"--param {name}: expected an integer, got {text!r}") from None
        lo, hi = self.limits
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise FamilyError(f"--param {name}: {value} is outside the allowed range "
                              f"[{lo}, {'inf' if hi is None else hi}]")
        return value

    def narrowed(self, lo, hi) -> IntParam:
        return replace(self, lo=lo, hi=hi)

    def describe_range(self) -> str:
        extra = "".join(f", {op} {ref}" for op, ref in ((">=", self.ge), ("<=", self.le)) if ref)
        return f"[{self.lo}, {self.hi}]{extra}"


@dataclass(frozen=True)
class FloatParam:
    """A float parameter in [lo, hi], drawn uniformly or on a log scale (``log``)."""

    lo: float
    hi: float
    meaning: str
    default: float | Callable[[dict], float] | None = None
    default_text: str = ""
    log: bool = True
    limits: tuple[float | None, float | None] = (0.0, None)  # exclusive lower limit
    ge: str | None = None
    le: str | None = None

    kind = "float"

    def bounds(self, values: Mapping[str, Any]) -> tuple[float, float]:
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
        return st.floats(0.0, 1.0).map(self._from_unit)

    def sample(self, rng: np.random.Generator, values: Mapping[str, Any]):
        return self._from_unit(float(rng.uniform()))

    def parse(self, name: str, text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise FamilyError(f"--param {name}: expected a number, got {text!r}") from None
        lo, hi = self.limits
        if not math.isfinite(value) or (lo is not None and value <= lo) or (
                hi is not None and value > hi):
            raise FamilyError(f"--param {name}: {text} is outside the allowed range "
                              f"({lo}, {'inf' if hi is None else hi}]")
        return value

    def narrowed(self, lo, hi) -> FloatParam:
        return replace(self, lo=float(lo), hi=float(hi))

    def describe_range(self) -> str:
        return f"[{self.lo:g}, {self.hi:g}]{' log' if self.log else ''}"


@dataclass(frozen=True)
class ChoiceParam:
    """One of a few named options."""

    choices: tuple[str, ...]
    meaning: str
    default: str | None = None
    default_text: str = ""
    ge: str | None = None
    le: str | None = None

    kind = "choice"

    def bounds(self, values):
        return self.choices[0], self.choices[-1]

    def strategy(self, values) -> st.SearchStrategy:
        return st.sampled_from(self.choices)

    def sample(self, rng: np.random.Generator, values):
        return self.choices[int(rng.integers(len(self.choices)))]

    def parse(self, name: str, text: str) -> str:
        if text not in self.choices:
            raise FamilyError(f"--param {name}: {text!r} is not one of {list(self.choices)}")
        return text

    def narrowed(self, lo, hi) -> ChoiceParam:
        if lo != hi or lo not in self.choices:
            raise FamilyError(f"a choice can only be fixed to one of {list(self.choices)}")
        return replace(self, choices=(lo,))

    def describe_range(self) -> str:
        return "{" + ", ".join(self.choices) + "}"


Param = IntParam | FloatParam | ChoiceParam
IntRange = IntParam  # the name of earlier versions


def _seed_param() -> IntParam:
    return IntParam(0, 2**16, "seed of the instance's random numbers", default=0,
                    limits=(0, 2**32 - 1))


# -- families ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Family:
    """A named generator with typed parameters and a simulation horizon.

    ``build(**params) -> Problem`` and ``horizon(problem, params) -> float``.
    The Problems it builds record the family and the parameters in ``meta``.
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

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))
        object.__setattr__(self, "fixed_values", MappingProxyType(dict(self.fixed_values)))

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
        return self.params_strategy().map(lambda kw: self.make(kw))

    def sample_params(self, rng: np.random.Generator) -> dict:
        values: dict[str, Any] = {}
        for name, spec in self.params.items():
            values[name] = spec.sample(rng, values)
        return values

    def sample(self, rng: np.random.Generator) -> Problem:
        return self.make(self.sample_params(rng))

    def make(self, params: Mapping[str, Any]) -> Problem:
        """The Problem with these parameters, recording the family and them in ``meta``."""
        params = dict(params)
        problem = self.build(**params)
        meta = {**problem.meta, "family": self.name, "family_params": params}
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

        Values may be strings (from the command line); they are parsed and
        validated. ``horizon`` overrides the simulation horizon. Parameters that
        bound a fixed one are narrowed to stay consistent (fixing d = 3 caps n at 3).
        """
        fam = self
        ranges: dict[str, tuple] = {}
        horizon = self.horizon_override
        for key, raw in values.items():
            if key == "horizon":
                try:
                    horizon = float(raw)
                except (TypeError, ValueError):
                    horizon = math.nan
                if not (math.isfinite(horizon) and horizon > 0):
                    raise FamilyError(f"--param horizon: expected a positive time, got {raw!r}")
                continue
            if key not in self.params:
                known = ", ".join([*self.params, "horizon"])
                raise FamilyError(f"--param {key}: family {self.name!r} has no parameter "
                                  f"{key!r}; its parameters are {known}")
            spec = self.params[key]
            value = spec.parse(key, str(raw)) if isinstance(raw, str) else raw
            if spec.kind != "choice":
                value = spec.parse(key, repr(value))
            ranges[key] = (value, value)
        fam = fam.narrowed(**ranges) if ranges else fam
        params = dict(fam.params)
        for name, spec in params.items():  # keep bounds between parameters consistent
            if spec.kind == "choice":
                continue
            if spec.ge and name in ranges:
                ref = params[spec.ge]
                params[spec.ge] = ref.narrowed(ref.lo, min(ref.hi, spec.hi))
            if spec.le and name in ranges:
                ref = params[spec.le]
                params[spec.le] = ref.narrowed(max(ref.lo, spec.lo), ref.hi)
        fam = replace(fam, params=params, horizon_override=horizon,
                      fixed_values={**fam.fixed_values, **{k: v[0] for k, v in ranges.items()}})
        fam._check_nonempty()
        return fam

    def _check_nonempty(self) -> None:
        for name, spec in self.params.items():
            if spec.kind == "choice":
                continue
            if spec.lo > spec.hi:
                raise FamilyError(f"--param: the values leave no valid {name!r} in family "
                                  f"{self.name!r} (range [{spec.lo}, {spec.hi}])")
            for ref, op in ((spec.ge, ">="), (spec.le, "<=")):
                if ref is None:
                    continue
                r = self.params[ref]
                ok = spec.hi >= r.lo if op == ">=" else spec.lo <= r.hi
                if not ok:
                    raise FamilyError(f"--param: {name} must be {op} {ref}; the fixed values "
                                      f"leave no valid pair in family {self.name!r}")

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
            lines.append(f"    {name:<8} {spec.kind:<6} {spec.describe_range():<26} "
                         f"default {default or '-':<16} {spec.meaning}")
        return "\n".join(lines)


# -- horizons ----------------------------------------------------------------------------------
S000_HORIZON_PER_SAMPLE = 6.0
GROUP_TAIL = 6.0  # 6 n/Y: the rate 4Y/n divides the loss by e^24 in that time
SEPARABLE_HORIZON_FACTOR = 200.0


def _s002_horizon(problem: Problem, params: dict) -> float:
    return s002_horizon(problem)


def _s000_horizon(problem: Problem, params: dict) -> float:
    return S000_HORIZON_PER_SAMPLE * problem.n


def _group_horizon(problem: Problem, params: dict) -> float:
    n, p = problem.n, problem.p
    n0 = float(problem.meta.get("scale", problem.init_scale or 1.0)) ** 2
    times = []
    for members in problem.meta["groups"]:
        Y = float(np.linalg.norm(problem.y[members]))
        times.append(n / (2 * Y) * math.log(max(p * Y / n0, math.e)) + GROUP_TAIL * n / Y)
    return max(times)


def _separable_horizon(problem: Problem, params: dict) -> float:
    x_max = float(np.max(np.linalg.norm(problem.X, axis=1)))
    eps = float(problem.init_scale)
    t_early = math.log(1.0 / (math.sqrt(problem.p) * eps)) / (4 * problem.n * x_max)
    return SEPARABLE_HORIZON_FACTOR * max(t_early, 0.05)


repo_width = generators.published_width  # R's width rule (E-000-4), one owner


# -- the families ------------------------------------------------------------------------------
TWO_POINT = Family(
    name="two-point",
    setting="S002",
    description="S002 section 5: x1=(-0.5,1), y1=-1; x2=(2,1), y2=+1; standard network, square "
    "loss, balanced init at scale lam",
    params={
        "p": IntParam(10, 60, "width", default=60),
        "lam": FloatParam(1e-20, 1e-4, "initialisation scale", limits=_SMALL_SCALE,
                          default=lambda v: 1e-6 / math.sqrt(v["p"]), default_text="1e-6/sqrt(p)"),
        "seed": _seed_param(),
    },
    build=lambda p, lam, seed: generators.two_point(p=p, lam=lam, seed=seed),
    horizon_rule=_s002_horizon,
    horizon_text="3.6 (-ln lam)/min(||D_+||, ||D_-||)",
)

ORTHOGONAL = Family(
    name="orthogonal",
    setting="S002",
    aliases=("orthonormal",),
    description="S002's setting: x_k = e_k in R^d, |y_k| ~ U[0.5,1.5] with both signs and r > 1; "
    "standard network, square loss, balanced init w_j = lam g_j",
    params={
        "n": IntParam(2, 5, "samples", default=4, limits=(2, None)),
        "p": IntParam(30, 60, "width", default=60),
        "d": IntParam(2, 8, "input dimension", default=lambda v: v["n"], default_text="n",
                      ge="n"),
        "lam": FloatParam(1e-20, 1e-6, "initialisation scale", default=1e-12,
                          limits=_SMALL_SCALE),
        "seed": _seed_param(),
    },
    build=lambda n, p, d, lam, seed: generators.orthonormal(n=n, d=d, p=p, lam=lam, seed=seed),
    horizon_rule=_s002_horizon,
    horizon_text="3.6 (-ln lam)/min(||D_+||, ||D_-||)",
)
ORTHONORMAL = ORTHOGONAL  # the name of earlier versions

ORTHOGONAL_ASYM = Family(
    name="orthogonal-asym",
    setting="S000",
    description="S000's orthogonal protocol (G-000-orth + I-000-repo-orth): x_i = c_i e_i, "
    "c_i ~ U[1,2], |y_i| ~ U[1,2]; mean-field network, asymmetric init with W scaled by 0.01, "
    "redrawn until every sample has a neuron of its sign active (Q-good)",
    params={
        "n": IntParam(2, 12, "samples", default=10),
        "p": IntParam(6, 24, "width (>= 6: Q-good draws stay likely)",
                      default=lambda v: repo_width(v["n"]),
                      default_text="R: ln(n/0.05)/ln(4/3)+1"),
        "d": IntParam(2, 24, "input dimension (span flow when d > n)",
                      default=lambda v: 2 * v["n"], default_text="2n", ge="n"),
        "seed": _seed_param(),
    },
    build=lambda n, p, d, seed: generators.orthogonal_scaled(n=n, d=d, p=p, seed=seed,
                                                             repo_orth=True),
    horizon_rule=_s000_horizon,
    horizon_text="6 n",
)

SPHERE = Family(
    name="sphere",
    setting="S000",
    description="S000's weakly interacting data (G-000-iso): x_i = rho_i u_i, u_i uniform on the "
    "sphere, rho_i ~ U[1,2]; mean-field network, asymmetric init (I-000-repo). The exact flow "
    "slides here (pre-activations held at 0, numerics.sliding)",
    params={
        "n": IntParam(2, 10, "samples", default=5),
        "p": IntParam(2, 24, "width", default=lambda v: repo_width(v["n"]),
                      default_text="R: ln(n/0.05)/ln(4/3)+1"),
        "d": IntParam(2, 400, "input dimension", default=lambda v: 4 * v["n"] ** 2,
                      default_text="4 n^2 (S000-C1)", ge="n"),
        "seed": _seed_param(),
    },
    build=lambda n, p, d, seed: generators.sphere(n=n, d=d, p=p, seed=seed),
    horizon_rule=_s000_horizon,
    horizon_text="6 n",
)

SEPARABLE = Family(
    name="separable",
    setting="S001",
    description="S001's mu-separated data (G-001-sep), labels +-1, |x_i| = 1; standard network, "
    "balanced init I-001-bal at scale eps, exponential or logistic (sum) loss",
    params={
        "n": IntParam(2, 8, "samples", default=4, limits=(2, None)),
        "h": IntParam(2, 30, "width (S001's h; the vocabulary's p)", default=10),
        "d": IntParam(2, 6, "input dimension (S001's D)", default=3, limits=(2, None)),
        "mu": FloatParam(0.01, 0.9, "separation mu of the data", default=0.1,
                         limits=(0.0, 1.0)),
        "eps": FloatParam(1e-8, 1e-2, "initialisation scale", default=1e-4,
                          limits=_SMALL_SCALE),
        "loss": ChoiceParam(("exponential", "logistic"), "loss", default="exponential"),
        "seed": _seed_param(),
    },
    build=lambda n, h, d, mu, eps, loss, seed: generators.separable(
        n=n, d=d, p=h, seed=seed, mu=mu, eps=eps, loss=loss),
    horizon_rule=_separable_horizon,
    horizon_text="200 ln(1/(sqrt(h) eps))/(4 n X_max)",
)

GROUP = Family(
    name="group",
    setting="S000",
    description="S000's group initialisation (I-000-group, CF-7): x_i = e_i, neuron j active "
    "exactly on its group with the group's label sign, |w_j(0)| = 0.1; mean-field, square loss",
    params={
        "n": IntParam(2, 24, "samples", default=12),
        "groups": IntParam(1, 6, "number of groups (= width p)", default=3, le="n"),
        "seed": _seed_param(),
    },
    build=lambda n, groups, seed: generators.group(n=n, groups=groups, seed=seed),
    horizon_rule=_group_horizon,
    horizon_text="max_j (n/(2Y_j)) ln(p Y_j/N_0) + 6 n/Y_j (CF-7)",
)

BUILTIN_FAMILIES = (TWO_POINT, ORTHOGONAL, ORTHOGONAL_ASYM, SPHERE, SEPARABLE, GROUP)


def all_families() -> dict[str, Family]:
    """Every family by name: the built-in ones, then those of the installed packs'
    ``families`` modules (`theory.packs`; each defines FAMILIES, a tuple of Family)."""
    from theory import packs

    out = {f.name: f for f in BUILTIN_FAMILIES}
    for pack, module in packs.modules("families", builtin=False):
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
        raise FamilyError(f"--family: no family {name!r}; use one of "
                          f"{', '.join(every)}") from None


def two_point() -> st.SearchStrategy[Problem]:
    return TWO_POINT.strategy()


def orthonormal(max_n: int | None = None) -> st.SearchStrategy[Problem]:
    fam = ORTHOGONAL if max_n is None else ORTHOGONAL.narrowed(n=(2, max_n))
    return fam.strategy()
