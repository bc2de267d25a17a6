"""Error estimates of the trajectory quantities, judged against their true error.

Every trajectory quantity of the vocabulary (`verify.language.measures.TRAJECTORY_QUANTITIES`, the
packs' included) is measured, with the error estimate a check uses
(`verify.engine.run_context.evaluate`: ERROR_SAFETY x |run - companion| + the round-off/state-error
floor), on the runs conjectures use (`verify.conjecture.instance.run_family_instance`:
ExactFlow(rtol=1e-10) with its default companion, in the family's coordinates), on small
fixed instances of every family (`INSTANCES`), both as F(t) and (rates dF aside) as
F(t) - F(0), the form conservation and decrease statements read (`verify.engine.run_context` may
measure such an increment directly). The same problem is run again much more
accurately at the same saved times (`reference`): ExactFlow(rtol=1e-13) in the same
coordinates, or the mpmath HighPrecisionFlow (20 digits) where that is cheap (the two-point
example). Both references have their own companion, so that `evaluate` picks on them too
the most accurate of its formulas, and so that the reference's own spread is known.
At every saved time

    true error = |Q(run) - Q(reference)|,

and the estimate FAILS where true error > estimate (strictly, no tolerance: a counter
whose estimate is 0 must equal the reference's count exactly), the true error being taken
less the reference's own spread |Q(reference) - Q(its companion)|: that spread is ~1e-3 of
the run's error for a smooth quantity, but a quantity that jumps with the state (a count, an
activation pattern, a pair held on its surface) can differ between the reference and its
companion, and there the reference cannot decide ("reference-limited": reported by the
bench, not failed). An unknown estimate (inf or NaN: the check calls it inconclusive)
bounds anything and is counted apart.

Gradient descent (`GD_INSTANCES`, `numerics.descent.GradientDescent` at a small step
with its default step-halving companion) is judged the same way against the exact flow's
reference: the error of gradient descent as an approximation of the flow is what its
estimate claims to bound.

A quantity that raises (UndefinedQuantity, CheckError: "the instance does not define
...") or is NaN at every time on an instance is not defined there and skipped on it; a
quantity defined on no instance must be listed in `UNDEFINED_EVERYWHERE` with its reason,
and the listing must stay true (`test_every_quantity_is_judged_somewhere`).

The harness functions (`comparisons`, `Comparison`) are also used by
``bench/error_estimates.py``, which prints the table of ratios true error / estimate.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import pytest
import sympy as sp

from numerics import ExactFlow, Status, Trajectory, simulate
from numerics.mpflow import HighPrecisionFlow
from theory import symbols as S
from theory.claim import Claim, Kind, Provenance, Source
from verify.conjecture.instance import MethodSpec, run_family_instance
from verify.engine.run_context import evaluate
from verify.engine.verdict import CheckError
from verify.instances import families as fam_mod
from verify.language.measures import TRAJECTORY_QUANTITIES, UndefinedQuantity

REFERENCE_RTOL = 1e-13
POINTS = 101  # saved times per run (both runs are saved at the same times)
HP_DIGITS = 20


# -- the instances ---------------------------------------------------------------------------
@dataclass(frozen=True)
class InstanceSpec:
    family: str
    params: tuple  # sorted (key, value) pairs
    method: str = "flow"  # "flow" (ExactFlow rtol 1e-10) or "gd"
    lr: float | None = None
    reference: str = "exact"  # "exact": ExactFlow(rtol=1e-13); "mp": HighPrecisionFlow
    why: str = ""
    model: tuple = ()  # sorted (key, value) pairs of the family's model options

    @property
    def param_dict(self) -> dict:
        return dict(self.params)


def _spec(family: str, why: str, method: str = "flow", lr: float | None = None,
          reference: str = "exact", model: dict | None = None, **params) -> InstanceSpec:
    return InstanceSpec(family, tuple(sorted(params.items())), method, lr, reference, why,
                        tuple(sorted((model or {}).items())))


# label -> instance. The labels start with the family name (the bench groups by it).
INSTANCES: dict[str, InstanceSpec] = {
    "two-point:small-init": _spec(
        "two-point", "S002's example, lam = 1e-6: small initialisation, saddle to saddle; "
        "reference in mpmath (20 digits)", reference="mp", p=10, lam=1e-6, seed=0),
    "orthogonal:small-init": _spec(
        "orthogonal", "S002's orthogonal data, lam = 1e-8, p = 30", n=3, p=30, d=3, lam=1e-8,
        seed=0),
    "orthogonal-asym": _spec(
        "orthogonal-asym", "S000's orthogonal protocol, d = 2n (span coordinates)", n=4, p=6,
        d=8, seed=0),
    "sphere:sliding": _spec(
        "sphere", "weakly interacting data with 40 activation events and 19 pairs held on "
        "their surface (sliding modes); crossing counters change", n=5, p=8, d=6, seed=3),
    "sphere:small": _spec(
        "sphere", "a smaller sphere instance that slides (2 pairs)", n=4, p=6, d=4, seed=0),
    "separable:small-init": _spec(
        "separable", "S001's data, eps = 1e-5, exponential loss (log-norm coordinates)", n=4,
        h=6, d=3, mu=0.3, eps=1e-5, loss="exponential", seed=0),
    "separable:dead-exits": _spec(
        "separable", "mu = 0.02, logistic loss: neurons leave S_dead (DeadExits = 2)", n=5,
        h=8, d=2, mu=0.02, eps=1e-2, loss="logistic", seed=1),
    "group": _spec("group", "S000's group initialisation (CF-7)", n=6, groups=3, seed=0),
    "sphere:leaky": _spec(
        "sphere", "leaky ReLU (slope 0.2) on the sliding instance: pairs slide with slopes in "
        "[0.2, 1]", model={"activation": "leaky:0.2"}, n=5, p=8, d=6, seed=3),
    "sphere:power": _spec(
        "sphere", "max(z, 0)^2 (2-homogeneous, C^1: pairs cross, never slide)",
        model={"activation": "power:2"}, n=4, p=6, d=4, seed=0),
    "sphere:first-layer": _spec(
        "sphere", "the first layer only (a fixed), leaky ReLU 0.1",
        model={"activation": "leaky:0.1", "train": "first"}, n=4, p=6, d=4, seed=0),
    "mzv25-kclass": _spec(
        "mzv25-kclass", "MZV25's K-class case: the vector output on the softmax "
        "cross-entropy, K = 3, neurons starting on other classes' edges, separation at "
        "t = 0.015", K=3, seed=0),
    "cel23-correlated": _spec(
        "cel23-correlated", "CEL23's teacher data within pi/4 of v*, lam = 1e-6: alignment, "
        "saddle escape and convergence (its pack's quantities)", d=3, m=6, lam=1e-6,
        scheme="centred", seed=1),
}

GD_INSTANCES: dict[str, InstanceSpec] = {
    "orthogonal-asym:gd": _spec(
        "orthogonal-asym", "gradient descent, lr = 4e-3 (mean-field, asymmetric init)",
        method="gd", lr=4e-3, n=4, p=6, d=8, seed=0),
    "two-point:gd": _spec(
        "two-point", "gradient descent, lr = 1e-2, small initialisation; reference in mpmath",
        method="gd", lr=1e-2, reference="mp", p=10, lam=1e-6, seed=0),
}

ALL_INSTANCES = {**INSTANCES, **GD_INSTANCES}

# Quantities defined on none of the instances above, each with its reason. (Empty: every
# quantity of the vocabulary is defined on at least one instance; the test below keeps
# this true both ways.)
UNDEFINED_EVERYWHERE: dict[str, str] = {}


def quantity_names() -> list[str]:
    return sorted(TRAJECTORY_QUANTITIES)


def is_rate(name: str) -> bool:
    return name.startswith("d") and name[1:] in TRAJECTORY_QUANTITIES


def expression(name: str, form: str = "value") -> sp.Basic:
    """The sympy term a statement uses for the measured quantity ``name``: F(t), or for a
    rate dF the derivative d/dt F(t) (which `verify.engine.run_context` reads as "dF");
    ``form="increment"``: F(t) - F(0), as a conservation or decrease statement reads it."""
    if is_rate(name):
        if form != "value":
            raise ValueError(f"{name}: only the value of a rate is judged")
        return sp.Derivative(sp.Function(name[1:])(S.t), S.t)
    F = sp.Function(name)
    return F(S.t) if form == "value" else F(S.t) - F(sp.Integer(0))


FORMS = ("value", "increment")


def names_for(form: str) -> list[str]:
    return [n for n in quantity_names() if form == "value" or not is_rate(n)]


def claim_for(name: str, form: str = "value") -> Claim:
    """A bare claim about the quantity (only its substitutions are used by `evaluate`)."""
    expr = expression(name, form)
    return Claim(id=f"error-estimate:{name}", title=sp.sstr(expr), kind=Kind.POINTWISE,
                 source=Source("harness", "error estimates", Provenance.INFERRED),
                 statement=sp.Ge(expr, sp.Integer(0)))


# -- runs ---------------------------------------------------------------------------------------
def family_and_problem(spec: InstanceSpec):
    family = fam_mod.get(spec.family)
    if spec.model:
        family = family.fixed(**dict(spec.model))
    return family, family.make(spec.param_dict)


@cache
def run_under_test(label: str) -> Trajectory:
    """The run a conjecture would check: `run_family_instance` with the default method."""
    spec = ALL_INSTANCES[label]
    family, problem = family_and_problem(spec)
    method = MethodSpec() if spec.method == "flow" else MethodSpec("gd", lr=spec.lr)
    tr, _ = run_family_instance(family, problem, spec.param_dict, method, POINTS, [])
    return tr


@cache
def reference(label: str) -> Trajectory:
    """The accurate run of the same problem at the run's saved times."""
    spec = ALL_INSTANCES[label]
    family, problem = family_and_problem(spec)
    t = run_under_test(label).t
    if spec.reference == "mp":
        # with its companion (16 digits): `evaluate` then picks, on the reference too, the
        # most accurate of its formulas (e.g. an increment measured directly)
        return simulate(problem, HighPrecisionFlow(digits=HP_DIGITS), t)
    coordinates = MethodSpec().for_family(family).coordinates
    return simulate(problem, ExactFlow(rtol=REFERENCE_RTOL, coordinates=coordinates), t)


# -- comparison ---------------------------------------------------------------------------------
@dataclass
class Comparison:
    """One quantity on one instance: the run's values and estimate, the reference's values
    (and the reference's own estimate, where it has a companion)."""

    name: str
    label: str
    status: str  # "checked", "undefined" or "error"
    form: str = "value"
    reason: str = ""
    t: np.ndarray | None = None
    value: np.ndarray | None = None
    estimate: np.ndarray | None = None
    ref_value: np.ndarray | None = None
    ref_estimate: np.ndarray | None = None
    # |Q(reference) - Q(reference's companion)| (rtol 1e-12, or 16 digits for the mpmath
    # reference): how well the reference itself knows the quantity
    ref_spread: np.ndarray | None = None
    warnings: list = field(default_factory=list)

    @property
    def true_error(self) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            err = np.abs(self.value - self.ref_value)
        both_nan = np.isnan(self.value) & np.isnan(self.ref_value)
        # defined on one run and not on the other: an error no estimate but inf bounds
        return np.where(both_nan, 0.0, np.where(np.isnan(err), np.inf, err))

    @property
    def certain_error(self) -> np.ndarray:
        """A lower bound on the true error: |Q(run) - Q(reference)| less the reference's own
        spread (nonzero only where the quantity jumps with the state: counters, activation
        patterns, sliding pairs)."""
        with np.errstate(invalid="ignore"):
            lower = self.true_error - self.ref_spread
        return np.where(np.isnan(lower), 0.0, np.maximum(lower, 0.0))

    @property
    def known(self) -> np.ndarray:
        """Times where the estimate is a finite number (inf/NaN: unknown, bounds anything)."""
        return np.isfinite(self.estimate)

    @property
    def ratio(self) -> np.ndarray:
        """true error / estimate per time: 0/0 = 0 (exact agreement), x/0 = inf; NaN where
        the estimate is unknown."""
        true, est = self.true_error, self.estimate
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(est > 0, true / est, np.where(true > 0, np.inf, 0.0))
        return np.where(self.known, r, np.nan)

    @property
    def exceeded(self) -> np.ndarray:
        """Times where |Q(run) - Q(reference)| > estimate (the strict rule)."""
        return self.known & (self.true_error > self.estimate)

    @property
    def failing(self) -> np.ndarray:
        """Times where the true error certainly exceeds the estimate: even less the
        reference's own spread. (Exceeded but not failing: reference-limited, reported by
        the bench, not failed: the reference cannot decide there.)"""
        return self.known & (self.certain_error > self.estimate)

    @property
    def worst(self) -> int | None:
        r = self.ratio
        if not np.any(np.isfinite(r) | np.isinf(r)):
            return None
        return int(np.nanargmax(np.where(np.isnan(r), -1.0, r)))

    @property
    def worst_ratio(self) -> float:
        k = self.worst
        return math.nan if k is None else float(self.ratio[k])

    @property
    def median_ratio(self) -> float:
        r = self.ratio[self.known]
        return float(np.median(r)) if r.size else math.nan

    @property
    def trivial(self) -> bool:
        """Run and reference both identically 0 with estimate 0: checked, but vacuously."""
        return bool(np.all(self.value == 0) and np.all(self.ref_value == 0)
                    and np.all(self.estimate == 0))

    def where(self, k: int | None = None) -> str:
        if k is None:
            bad = np.flatnonzero(self.failing)
            # the worst certain failure (else the worst ratio)
            k = (int(bad[np.argmax(self.ratio[bad])]) if bad.size else self.worst)
        ref_est = ("" if self.ref_estimate is None
                   else f", reference's own estimate {self.ref_estimate[k]:.3g}")
        what = self.name if self.form == "value" else f"{self.name}(t) - {self.name}(0)"
        return (f"{what} on {self.label}: true/estimate = {self.ratio[k]:.3g} at "
                f"t = {self.t[k]:.6g} (saved time {k} of {len(self.t)}): "
                f"run {float(self.value[k])!r}, reference {float(self.ref_value[k])!r}, "
                f"true error {self.true_error[k]:.3g}, "
                f"estimate {self.estimate[k]:.3g}{ref_est}, reference's spread "
                f"{self.ref_spread[k]:.3g}; {int(self.failing.sum())} failing time(s)")


def _caught(seen, caught: list) -> None:
    caught.extend(f"{w.category.__name__}: {w.message}" for w in seen)


def _per_time(x, T: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(x, dtype=float), (T,)).copy()


def _evaluate(name: str, form: str, tr: Trajectory, caught: list
              ) -> tuple[np.ndarray, np.ndarray]:
    """(values, error) exactly as a check gets them: `verify.engine.run_context.evaluate`."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        values, error = evaluate(claim_for(name, form), tr, expression(name, form))
    _caught(seen, caught)
    return _per_time(values, len(tr.t)), _per_time(error, len(tr.t))


def _reference_values(name: str, form: str, ref: Trajectory, caught: list
                      ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """(values, own estimate or None, spread) on the reference. The spread is the
    difference to the reference's companion evaluated with the same formula at each time
    (`RunContext.values` gives both; else the companion is evaluated on its own)."""
    T = len(ref.t)
    values, estimate = _evaluate(name, form, ref, caught)
    if ref.companion is None:
        return values, None, np.zeros(T)
    comp = None
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            from verify.engine.run_context import RunContext

            both = RunContext(claim_for(name, form), ref).values(expression(name, form))
            if both.companion is not None and np.array_equal(
                    _per_time(both.fine, T), values, equal_nan=True):
                comp = _per_time(both.companion, T)
        except Exception:  # an internal API that changed: fall back to the public one
            comp = None
        if comp is None:
            comp = _per_time(evaluate(claim_for(name, form), ref.companion,
                                      expression(name, form))[0], T)
    _caught(seen, caught)
    with np.errstate(invalid="ignore"):
        spread = np.abs(values - comp)
    both_nan = np.isnan(values) & np.isnan(comp)
    spread = np.where(both_nan, 0.0, np.where(np.isnan(spread), np.inf, spread))
    return values, estimate, spread


def compare(name: str, label: str, form: str = "value") -> Comparison:
    run, ref = run_under_test(label), reference(label)
    caught: list = []
    try:
        value, estimate = _evaluate(name, form, run, caught)
    except (UndefinedQuantity, CheckError) as exc:
        return Comparison(name, label, "undefined", form, f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # a crash is reported as such, never as "undefined"
        return Comparison(name, label, "error", form, f"{type(exc).__name__}: {exc}")
    if np.all(np.isnan(value)):
        return Comparison(name, label, "undefined", form, "NaN at every saved time")
    try:
        ref_value, ref_estimate, spread = _reference_values(name, form, ref, caught)
    except Exception as exc:
        return Comparison(name, label, "error", form,
                          f"on the reference: {type(exc).__name__}: {exc}")
    return Comparison(name, label, "checked", form, "", run.t, value, estimate, ref_value,
                      ref_estimate, spread, sorted(set(caught)))


@cache
def comparisons(label: str, form: str = "value") -> dict[str, Comparison]:
    return {name: compare(name, label, form) for name in names_for(form)}


def judge(name: str, labels, form: str = "value") -> tuple[list[Comparison], list[str]]:
    """(checked comparisons, failure lines) of ``name`` over the instances ``labels``."""
    checked, failures = [], []
    for label in labels:
        c = comparisons(label, form)[name]
        if c.status == "error":
            failures.append(f"{name} on {label}: the measurement crashed: {c.reason}")
        elif c.status == "checked":
            checked.append(c)
            if c.failing.any():
                failures.append(c.where())
    return checked, failures


# -- tests --------------------------------------------------------------------------------------
@pytest.mark.parametrize("label", list(ALL_INSTANCES))
def test_runs_are_trustworthy(label):
    """Both runs succeed at the same saved times, and the run has a companion (its estimate
    is a measured one, not inf)."""
    run, ref = run_under_test(label), reference(label)
    assert run.status is Status.SUCCESS, run.summary()
    assert ref.status is Status.SUCCESS, ref.summary()
    assert np.array_equal(run.t, ref.t)
    assert run.companion is not None and math.isfinite(run.error_estimate), run.summary()


def _relative_state_difference(a: Trajectory, b: Trajectory) -> np.ndarray:
    mine = np.concatenate([a.W, a.a[..., None]], axis=-1)
    theirs = np.concatenate([b.W, b.a[..., None]], axis=-1)
    diff = np.linalg.norm(mine - theirs, axis=-1)
    scale = np.linalg.norm(theirs, axis=-1)
    return np.max(diff / scale, axis=-1)


def test_exact_flow_reference_is_much_more_accurate_than_the_run():
    """The ExactFlow(rtol=1e-13) reference the other instances use, against mpmath on the
    two-point example: its per-neuron relative state error is below 1% of the run's."""
    label = "two-point:small-init"
    family, problem = family_and_problem(INSTANCES[label])
    hp, run = reference(label), run_under_test(label)
    exact = simulate(problem, ExactFlow(rtol=REFERENCE_RTOL), hp.t)
    ref_error = _relative_state_difference(exact, hp).max()
    run_error = _relative_state_difference(run, hp).max()
    assert ref_error <= 1e-2 * run_error, (ref_error, run_error)


def test_every_quantity_is_judged_somewhere():
    """Each quantity is compared on at least one exact-flow instance, or is listed in
    UNDEFINED_EVERYWHERE with its reason; a listed quantity is indeed defined nowhere; no
    measurement crashes."""
    names = set(quantity_names())
    defined = {n for n in names
               if any(comparisons(label)[n].status == "checked" for label in INSTANCES)}
    crashed = [f"{c.name} ({c.form}) on {c.label}: {c.reason}" for label in ALL_INSTANCES
               for form in FORMS for c in comparisons(label, form).values()
               if c.status == "error"]
    assert not crashed, "\n".join(crashed)
    unlisted = sorted(names - defined - set(UNDEFINED_EVERYWHERE))
    assert not unlisted, f"defined on no instance and not listed with a reason: {unlisted}"
    stale = sorted(set(UNDEFINED_EVERYWHERE) & defined)
    assert not stale, f"listed as undefined everywhere but defined on an instance: {stale}"
    unknown = sorted(set(UNDEFINED_EVERYWHERE) - names)
    assert not unknown, f"listed but no longer a trajectory quantity: {unknown}"


@pytest.mark.parametrize("name", quantity_names())
def test_flow_estimate_bounds_true_error(name):
    """On every exact-flow instance where ``name`` is defined, at every saved time:
    |Q(run) - Q(reference)| <= the estimate a check uses."""
    checked, failures = judge(name, INSTANCES)
    if not checked:
        assert name in UNDEFINED_EVERYWHERE
        pytest.skip(f"{name}: {UNDEFINED_EVERYWHERE[name]}")
    assert not failures, "estimate below the true error:\n" + "\n".join(failures)


@pytest.mark.parametrize("name", names_for("increment"))
def test_flow_increment_estimate_bounds_true_error(name):
    """The same for F(t) - F(0) (how conservation and decrease statements read a quantity;
    `verify.engine.run_context` may measure the increment directly)."""
    checked, failures = judge(name, INSTANCES, "increment")
    if not checked:
        assert name in UNDEFINED_EVERYWHERE
        pytest.skip(f"{name}: {UNDEFINED_EVERYWHERE[name]}")
    assert not failures, "estimate below the true error:\n" + "\n".join(failures)


@pytest.mark.parametrize("name", quantity_names())
def test_gradient_descent_estimate_bounds_its_error_against_the_flow(name):
    """As above for gradient descent, whose true error is its distance to the exact flow."""
    checked, failures = judge(name, GD_INSTANCES)
    if not checked:
        pytest.skip(f"{name} is not defined on the gradient-descent instances")
    assert not failures, "estimate below the true error:\n" + "\n".join(failures)
