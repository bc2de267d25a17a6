"""S002 (orthogonal inputs, square loss): claims checked on exact gradient flows.

Each checkable claim runs on the paper's two-point example and on random instances
of the orthonormal family; a VIOLATED verdict fails the test (hypothesis then
shrinks the instance). Each claim also has mutants (a wrong constant, a shortened
time bound, an exponent shifted by 1/4, a quantity that is not conserved, an
assumption dropped) that must be caught.

Cost: every family test draws the same instances (one hypothesis seed), and every
test asks for the same evidence (`_evidence`: the saved grid plus S002-L2's t_1), so
each instance is simulated once per session (``verify.engine.evidence``'s cache).

Length: one test module per paper, as `pytest verify` reports them; each test is a
claim on its evidence, and splitting would scatter the shared instances they reuse.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given, seed

import theory
from numerics import ExactFlow, Problem, generators, simulate, with_model
from numerics.inits import balanced_init
from papers.s002 import families, leaky_bias
from papers.s002.evidence import s002_trajectory
from theory.symbols import (
    PL,
    AlignGap,
    CapMinus,
    CapPlus,
    Dminus,
    Dplus,
    MinF1Norm,
    MinNormSq,
    NormSumDrift,
    NormW,
    NormWFrobSq,
    PKeyMinus,
    PKeyPlus,
    SaddleDist,
    UPlus,
    c_init,
    eps,
    lam,
    n,
    n_minus,
    n_plus,
    p,
    t,
)
from verify import Outcome, check
from verify.engine.evidence import Sample, claim_time
from verify.engine.verdict import Verdict, Where
from verify.language.measures import instance_values
from verify.report.verdict_table import relation_cell
from verify.results.findings import Finding
from verify.running.profiles import active

L1, T1, L3 = theory.get("S002-L1"), theory.get("S002-T1"), theory.get("S002-L3")
D1, A1, A2, A3 = (theory.get(f"S002-{k}") for k in ("D1", "A1", "A2", "A3"))
L2, F2, F3, L4 = (theory.get(f"S002-{k}") for k in ("L2", "F2", "F3", "L4"))
P1, F4 = theory.get("S002-P1"), theory.get("S002-F4")
# Lemma 5's window starts at Lemma 4's bound (1 + 3 r eps)(-ln lam)/||D_-||; with the
# practical eps = 1/10 the loss is then below what float64 resolves for lam <~ 1e-8
# (THEORY N-5), so the PL ratio there is noise. eps is the lemma's free "small enough"
# constant: eps = 1/40 starts the window while L/L(0) is still resolved.
L5 = theory.get("S002-L5").with_parameters(eps=sp.Rational(1, 40))

# every claim checked on trajectories (S002-A3 is checked on a Sample)
TRAJECTORY_CLAIMS = (L1, T1, L3, D1, A1, A2, L2, F2, F3, L4, P1, L5, F4)

# one seed for every family test: they draw the same instances, simulated once
FAMILY_SEED = 2022


# -- evidence ----------------------------------------------------------------------------------
def _evidence(problem: Problem, profile):
    """The exact flow on `s002_horizon`'s grid plus Lemma 2's t_1 (stated at that instant)."""
    t_1 = claim_time(L2, problem, L2.window[0])
    return s002_trajectory(problem, points=profile.saved_times, extra_times=(t_1,))


def _claim_evidence(claim, problem, profile):
    """The run for ``claim``. Lemma 5's window reaches past float64's resolution of the PL
    ratio (L/L(0) below about 1e-12, N-5): the check names the saved times there that no
    float64 run decides, after re-running the instance more accurately (verify.engine.escalation),
    and decides the others."""
    return _evidence(problem, profile)


def _expect_not_violated(verdict):
    assert verdict.outcome is not Outcome.VIOLATED, str(verdict)


def _check_and_record(claim, problem, verdicts, profile):
    verdict = check(claim, _claim_evidence(claim, problem, profile))
    verdicts.record(verdict, claim.kind.value)
    return verdict


# -- the paper's two-point example (S002 section 5) ------------------------------------------
# At the paper's lam = 1e-6/sqrt(60) the phase lemmas' tolerances exceed what they bound
# (lam^(eps/5) = 0.73 > CapPlus = 0.447): the checks must say INAPPLICABLE. Lemma 5 assumes
# unit-norm inputs, which the example does not have (|x_1|^2 = 1.25, |x_2|^2 = 5).
PAPER_SCALE_EXPECTED = {
    "S002-L1": Outcome.HOLDS, "S002-T1": Outcome.HOLDS, "S002-L3": Outcome.INAPPLICABLE,
    "S002-D1": Outcome.HOLDS, "S002-A1": Outcome.HOLDS, "S002-A2": Outcome.HOLDS,
    "S002-L2": Outcome.HOLDS, "S002-F2": Outcome.INAPPLICABLE,
    "S002-F3": Outcome.INAPPLICABLE, "S002-L4": Outcome.INAPPLICABLE,
    "S002-P1": Outcome.HOLDS, "S002-L5": Outcome.INAPPLICABLE, "S002-F4": Outcome.HOLDS,
}
# at lam = 1e-20 every lemma applies with eps = 1/10 (Lemma 5 still needs unit norms)
SMALL_SCALE_EXPECTED = {**{k: Outcome.HOLDS for k in PAPER_SCALE_EXPECTED},
                        "S002-L5": Outcome.INAPPLICABLE}


@pytest.mark.parametrize("claim", TRAJECTORY_CLAIMS, ids=lambda c: c.id)
def test_two_point_example(claim, verdicts, verify_profile):
    verdict = _check_and_record(claim, generators.two_point(seed=0), verdicts, verify_profile)
    _expect_not_violated(verdict)
    assert verdict.outcome is PAPER_SCALE_EXPECTED[claim.id[:7]], str(verdict)


@pytest.mark.parametrize("claim", TRAJECTORY_CLAIMS, ids=lambda c: c.id)
def test_two_point_example_small_scale(claim, verdicts, verify_profile):
    """At lam = 1e-20 the phase lemmas apply to the two-point example with eps = 1/10."""
    problem = generators.two_point(lam=1e-20, seed=0)
    verdict = _check_and_record(claim, problem, verdicts, verify_profile)
    assert verdict.outcome is SMALL_SCALE_EXPECTED[claim.id[:7]], str(verdict)


def test_two_point_example_small_scale_phase_two(verdicts, verify_profile):
    """(kept from the first suite) Lemma 3 on the two-point example at lam = 1e-20."""
    problem = generators.two_point(lam=1e-20, seed=0)
    verdict = check(L3, _evidence(problem, verify_profile))
    assert verdict.outcome is Outcome.HOLDS, str(verdict)


# -- random instances of the orthonormal family -----------------------------------------------
# Past counterexamples, pinned so that every family test replays them:
# - seed 25665 (n=4, lam=1e-17): violated S002-L3 with eps = 1/10 before the data-dependent
#   eps condition (GrowthRatioOut 0.963) was made explicit (README findings);
# - seed 176 (n=2, lam=1e-6): a balance drift just above a too-optimistic error estimate,
#   which led to the running-envelope error floor of verify.language.measures.relative_floor.
PINNED = (
    generators.orthonormal(n=4, d=6, p=40, lam=1e-17, seed=25665),
    generators.orthonormal(n=2, d=2, p=30, lam=1e-6, seed=176),
)


def _pinned(problems):
    def decorate(test):
        for problem in problems:
            test = example(problem=problem)(test)
        return test
    return decorate


def _family_test(claim, condition=None, pinned=PINNED, limit_lam=None):
    """A hypothesis test of ``claim`` on the orthonormal family (the shared seed). With
    ``condition`` (instance -> reason or None), an instance failing it is recorded as
    INAPPLICABLE with that reason, in the table, instead of being checked.

    ``limit_lam``: for a claim that the paper states for lam below an unspecified lam*,
    a VIOLATED instance is re-checked on the same draw (data, directions, width, seed) at
    lam = ``limit_lam``; if it HOLDS there, the instance is recorded as a finding (lam above
    that draw's lam*, with the replay), else the test fails: the claim fails in its limit."""

    @seed(FAMILY_SEED)
    @_pinned(pinned)
    @given(problem=families.orthonormal(profile=active()))
    def test(problem, verdicts, verify_profile):
        why = condition(problem) if condition is not None else None
        if why:
            verdicts.record(Verdict(claim.id, Outcome.INAPPLICABLE, reason=why,
                                    where=Where(instance=problem.content_hash,
                                                seed=problem.meta.get("seed"))),
                            claim.kind.value)
            return
        verdict = _check_and_record(claim, problem, verdicts, verify_profile)
        if limit_lam is None or verdict.outcome is not Outcome.VIOLATED:
            _expect_not_violated(verdict)
            return
        _record_above_lam_star(claim, problem, verdict, limit_lam, verdicts, verify_profile)

    test.__doc__ = f"{claim.id} on random orthonormal instances: never VIOLATED."
    return test


def _record_above_lam_star(claim, problem, verdict, limit_lam, verdicts, profile):
    draw = {k: problem.meta[k] for k in ("n", "d", "p", "lam", "seed")}
    limit = generators.orthonormal(**{**draw, "lam": limit_lam})
    at_limit = check(claim, _claim_evidence(claim, limit, profile))
    assert at_limit.outcome is Outcome.HOLDS, (
        f"{claim.id} VIOLATED on {problem.describe()} and not HOLDS at lam = {limit_lam:g} on "
        f"the same draw ({at_limit}): a counterexample to the lam -> 0 statement")
    replay = "generators.orthonormal(" + ", ".join(f"{k}={v!r}" for k, v in draw.items()) + ")"
    verdicts.finding(Finding(
        f"{claim.id}-lam-star-search", f"{claim.id} fails above a data-dependent lam* on "
        "random orthonormal draws, and holds on the same draws as lam -> 0",
        f"{replay}: VIOLATED, margin {verdict.margin:.3g} at {verdict.where}; "
        f"HOLDS at lam = {limit_lam:g} (margin {at_limit.margin:.3g}).",
        claims=(claim.id,), evidence={"draw": draw, "margin": verdict.margin,
                                      "limit_margin": at_limit.margin}))


# Fact 1 and the logistic law of phase 2 are limits lam -> 0. A positive neuron outside
# S_{+,1} grows at GrowthRatioOut times the phase-2 rate and reaches a norm of order
# lam^(1 - GrowthRatioOut) (README findings; test_phase_two_laws_need_lam_star below): the
# laws can only hold once that is small, a lam* that depends on the data and that the
# claims' surrogate lam^(eps/5) < CapPlus does not bound. They are checked where
# lam^(1 - GrowthRatioOut) <= 1/10.
NON_KEY_SIZE = 0.1


def non_key_neurons_negligible(problem: Problem) -> str | None:
    inst = instance_values(problem)
    size = inst["lam"] ** (1 - inst["GrowthRatioOut"])
    if size > NON_KEY_SIZE:
        return (f"lam above the data's lam* (test condition): lam^(1 - GrowthRatioOut) = "
                f"{size:.3g} > {NON_KEY_SIZE}")
    return None


test_balancedness_family = _family_test(L1)
test_zero_loss_family = _family_test(T1)
test_phase_two_family = _family_test(L3)
test_layer_odes_family = _family_test(D1)
test_orthogonal_inputs_family = _family_test(A1)
test_labels_family = _family_test(A2)
test_phase_one_family = _family_test(L2)
test_logistic_phase_two_family = _family_test(F2, non_key_neurons_negligible)
# seeds 176 and 1 (n = 2, lam = 1e-6) are expected findings for Fact 1 (FINDING_CASES);
# the family test records any other VIOLATED instance as a finding once Fact 1 is seen to
# hold on the same draw in the limit it states (lam -> 0: lam = 1e-20), and fails if not
test_saddle_family = _family_test(F3, non_key_neurons_negligible, pinned=PINNED[:1],
                                  limit_lam=1e-20)
test_phase_three_family = _family_test(L4)
test_min_norm_family = _family_test(P1)
test_local_pl_family = _family_test(L5)
test_variation_norm_family = _family_test(F4)


# -- expected findings ---------------------------------------------------------------------------
FINDING_INSTANCES = {
    # seed 7860: n = 4, m = 30, r = 3.25, GrowthRatioOut = 0.907
    "seed 7860 lam=2.197e-7": dict(n=4, d=4, p=30, lam=2.197e-7, seed=7860),
    # seed 0: n = 5, m = 30, r = 1.21, GrowthRatioOut = 0.966
    "seed 0 n=5 lam=1e-20": dict(n=5, d=6, p=30, lam=1e-20, seed=0),
    # seed 176: n = 2, m = 30, r = 2.21, GrowthRatioOut = 0.45 (non-key neurons negligible)
    "seed 176 n=2 lam=1e-6": dict(n=2, d=2, p=30, lam=1e-6, seed=176),
    # seed 1: n = 2, m = 30, GrowthRatioOut = 0.44 (found by the full profile's search)
    "seed 1 n=2 lam=1e-6": dict(n=2, d=2, p=30, lam=1e-6, seed=1),
}
FINDING_CASES = [(F2, "seed 7860 lam=2.197e-7"), (F3, "seed 7860 lam=2.197e-7"),
                 (F2, "seed 0 n=5 lam=1e-20"), (F3, "seed 176 n=2 lam=1e-6"),
                 (F3, "seed 1 n=2 lam=1e-6")]


@pytest.mark.parametrize(("claim", "instance"), FINDING_CASES,
                         ids=[f"{c.id}-{i}" for c, i in FINDING_CASES])
def test_phase_two_laws_need_lam_star(claim, instance, verdicts, verify_profile):
    """Finding lam-star: above a data-dependent lam*, Fact 1 and the logistic law of phase
    2 fail although the claims' surrogate condition lam^(eps/5) < CapPlus holds (one
    mechanism: a non-key neuron of size lam^(1 - GrowthRatioOut); the n = 2 cases have
    GrowthRatioOut about 0.45 and another)."""
    problem = generators.orthonormal(**FINDING_INSTANCES[instance])
    v = check(claim, _evidence(problem, verify_profile))
    assert v.outcome is Outcome.VIOLATED, f"finding lam-star no longer reproduces: {v}"
    inst = instance_values(problem)
    lam_, ratio = inst["lam"], inst["GrowthRatioOut"]
    at = f" at t = {v.where.t:.4g}" if v.where.t is not None else ""
    verdicts.finding(Finding(
        "lam-star", "S002's phase-2 laws (F2, F3) fail on these instances although the "
        "claims' surrogate condition lam^(eps/5) < CapPlus holds",
        f"{claim.id} on orthonormal {instance} (n = {problem.n}, m = {problem.p}, "
        f"GrowthRatioOut = {ratio:.3g}, lam^(1 - GrowthRatioOut) = "
        f"{lam_ ** (1 - ratio):.3g}): VIOLATED, margin {v.margin:.3g}{at} "
        f"({relation_cell(claim.id, v.where.part)}).", claims=(claim.id,),
        evidence={"instance": instance, "hash": problem.content_hash, "claim": claim.id,
                  "GrowthRatioOut": ratio, "lam": lam_, "margin": v.margin,
                  "t": v.where.t}), verdict=v, kind=claim.kind.value)


@pytest.mark.parametrize("claim", [F2, F3], ids=lambda c: c.id)
def test_phase_two_laws_hold_at_smaller_lam(claim, verdicts, verify_profile):
    """The first finding's instance at lam = 1e-12 (lam^(1 - 0.907) = 0.076): both hold."""
    problem = generators.orthonormal(n=4, d=4, p=30, lam=1e-12, seed=7860)
    verdict = _check_and_record(claim, problem, verdicts, verify_profile)
    assert verdict.outcome is Outcome.HOLDS, str(verdict)


@pytest.mark.parametrize("seed_", [1, 176])
def test_fact1_holds_below_the_n2_lam_star(seed_, verdicts, verify_profile):
    """The n = 2 Fact 1 findings' instances at lam = 3e-7 (VIOLATED at 1e-6): HOLDS."""
    problem = generators.orthonormal(n=2, d=2, p=30, lam=3e-7, seed=seed_)
    verdict = _check_and_record(F3, problem, verdicts, verify_profile)
    assert verdict.outcome is Outcome.HOLDS, str(verdict)


# -- Lemma 5 on instances where its window is resolved in float64 ----------------------------
def orthonormal_with_labels(y, p: int, lam_: float, seed_: int) -> Problem:
    """x_k = e_k with the given labels and the balanced Gaussian init of S002 eq. (4)."""
    y = np.asarray(y, dtype=float)
    W0, a0 = balanced_init(p, len(y), lam_, seed_)
    return Problem(X=np.eye(len(y)), y=y, W0=W0, a0=a0, init_scale=lam_,
                   meta={"generator": "orthonormal_with_labels", "y": y.tolist(), "p": p,
                         "lam": lam_, "seed": seed_})


LOCAL_PL_INSTANCES = {
    "n=4 lam=1e-8": lambda: orthonormal_with_labels([1.0, 1.2, -0.9, -0.8], 40, 1e-8, 0),
    "n=4 lam=1e-12": lambda: orthonormal_with_labels([1.5, 0.9, -1.1, -0.6], 40, 1e-12, 0),
    "n=2 lam=1e-12": lambda: orthonormal_with_labels([1.4, -1.0], 40, 1e-12, 0),
}


@pytest.mark.parametrize("instance", sorted(LOCAL_PL_INSTANCES))
def test_local_pl_resolved(instance, verdicts, verify_profile):
    """||grad L||^2/L >= ||D_-|| after Lemma 4's bound (eps = 1/40), up to the loss's
    resolution: decided (HOLDS) on each of these instances."""
    verdict = _check_and_record(L5, LOCAL_PL_INSTANCES[instance](), verdicts, verify_profile)
    assert verdict.outcome is Outcome.HOLDS, str(verdict)


# -- Assumption 3's probability (CF-6) on a Monte Carlo sample ---------------------------------
def key_neuron_sample(count: int, width: int, seed_: int = 0) -> Sample:
    """Orthonormal data with fixed labels (n_+ = 2, n_- = 1); independent balanced
    Gaussian initialisations w_j = lam g_j, a_j = s_j |w_j| (S002 eq. 4)."""
    y = np.array([1.1, 0.7, -0.6])
    rng = np.random.default_rng(seed_)
    problems = []
    for _ in range(count):
        W0, a0 = balanced_init(width, 3, 1e-6, rng)
        problems.append(Problem(X=np.eye(3), y=y, W0=W0, a0=a0, init_scale=1e-6))
    return Sample(problems, description=f"{count} balanced inits, m = {width}, n = (2, 1)")


@pytest.fixture(scope="module")
def key_sample(verify_profile):
    sizes = {g.key: g for g in families.SIZES}["S002 key-neuron sample"]
    return key_neuron_sample(sizes.at_profile(verify_profile.name)["count"],
                             width=5)


def test_key_neuron_probability(key_sample, verdicts):
    """P(S_{+,1} != 0) = 1 - (1 - 2^-(n_+ + 1))^m and the same for S_{-,1}."""
    verdict = verdicts.record(check(A3, key_sample), A3.kind.value)
    assert verdict.outcome is Outcome.HOLDS, str(verdict)


# -- mutants: each check must be able to fail ----------------------------------------------
MUTANT_INSTANCES = {
    "two-point lam=1e-20": lambda: generators.two_point(lam=1e-20, seed=0),
    "orthonormal n=4 lam=1e-12": lambda: generators.orthonormal(n=4, d=5, p=60, lam=1e-12,
                                                                seed=3),
}
# instances built to violate an assumption (the assumption "dropped")
CORRELATED = Problem(  # <x_1, x_2> = 0.3: not orthogonal
    X=np.array([[1.0, 0.0], [0.3, 1.0]]), y=np.array([1.0, -0.5]),
    W0=balanced_init(10, 2, 1e-6, 0)[0], a0=balanced_init(10, 2, 1e-6, 0)[1],
    init_scale=1e-6, meta={"generator": "correlated mutant"})
EQUAL_CLASSES = orthonormal_with_labels([1.0, -1.0], 10, 1e-6, 0)  # ||D_+|| = ||D_-||
TORCH_MSE = generators.two_point(seed=0, loss_scale=2.0)  # the flow of 2L (torch MSE, mean)

_TP20 = ("two-point lam=1e-20",)
_ON12 = ("orthonormal n=4 lam=1e-12",)

MUTANTS = {
    # a quantity that is not conserved, claimed conserved
    "S002-L1 with a_j^2 + |w_j|^2": L1.variant(
        "sum-of-squares", statement=sp.Eq(NormSumDrift(t), 0)),
    # time bound shortened: c_T = 3 -> 1/2
    "S002-T1 with c_T/6": T1.with_parameters(c_T=sp.Rational(1, 2)).variant("c_T/6"),
    # time bound divided by 2
    "S002-L3 with the bound halved": L3.variant(
        "half-time", statement=sp.Le(L3.event_time, L3.statement.rhs / 2)),
    # Lemma 2(iii): exponent 1 - r eps shifted by 1/4
    "S002-L2 norm exponent + 1/4": L2.variant("exp+1/4", statement=sp.Le(
        NormW(t), 2 * c_init * lam ** (1 - eps * Dplus / Dminus + sp.Rational(1, 4)))),
    # the logistic rate doubled (the torch-MSE normalisation, gradient of 2L)
    "S002-F2 with rate 4||D_+||": F2.variant("rate x2", statement=sp.Le(
        sp.Abs(sp.Derivative(UPlus(t), t) - 4 * Dplus * (1 - UPlus(t) / CapPlus) * UPlus(t)),
        F2.parameters["tol"] * Dplus * CapPlus / 2)),
    # Fact 1: exponent eps/5 shifted by 1/4
    "S002-F3 exponent + 1/4": F3.variant("exp+1/4", statement=sp.Le(
        SaddleDist(t), lam ** (eps / 5 + sp.Rational(1, 4)))),
    # Lemma 4: time bound halved
    "S002-L4 with the bound halved": L4.variant(
        "half-time", statement=sp.Le(L4.event_time, L4.statement.rhs / 2)),
    # Prop. 1: the factor 2 dropped
    "S002-P1 without the factor 2": P1.variant(
        "half", statement=sp.Eq(MinNormSq, CapPlus + CapMinus)),
    # Prop. 1 with the unit-norm capacity 2n(||D_+|| + ||D_-||) on non-unit inputs
    "S002-P1 with n||D||": P1.variant(
        "unit-norm capacity", statement=sp.Eq(MinNormSq, 2 * n * (Dplus + Dminus))),
    # eq. (8): the 1/2 dropped
    "S002-F4 without the 1/2": F4.variant("no-half", statement=sp.Eq(MinNormSq, MinF1Norm)),
    # Lemma 5: the PL constant multiplied by 5 (in the resolved window the ratio stays
    # near 4 ||D_-||, the fast mode of CF-10, above the asymptotic 2 ||D_-||)
    "S002-L5 with 5||D_-||": L5.variant("x5", statement=sp.Ge(PL(t), 5 * Dminus)),
    # Assumption 3's probability without the sign factor 1/2
    "S002-A3 with 2^-n_+-": A3.variant("no-sign-factor", statement=sp.And(
        sp.Eq(PKeyPlus, 1 - (1 - 2 ** (-n_plus)) ** p),
        sp.Eq(PKeyMinus, 1 - (1 - 2 ** (-n_minus)) ** p))),
    # the layer ODE of eq. (1) claimed for the flow of 2L (torch's MSE normalisation,
    # E-002-1): a claim written in the wrong loss convention (theory.Claim.loss_scale)
    "S002-D1 on the 2L flow": D1.variant("2L-flow", loss_scale=2.0),
    # the assumptions, checked on data that break them
    "S002-A1 on correlated data": A1.variant("correlated"),
    "S002-A2 with ||D_+|| = ||D_-||": A2.variant("equal-classes"),
}
# where each mutant is checked (default: every MUTANT_INSTANCES entry)
MUTANT_ON = {
    "S002-L2 norm exponent + 1/4": _TP20 + _ON12,
    "S002-F2 with rate 4||D_+||": _TP20 + _ON12,
    "S002-F3 exponent + 1/4": _TP20,  # the other instance has r < (1 + 3 eps)/(1 - eps)
    "S002-L4 with the bound halved": _TP20 + _ON12,
    "S002-P1 with n||D||": _TP20,  # non-unit norms: the unit-norm formula is wrong there
    "S002-L5 with 5||D_-||": ("local PL n=4 lam=1e-8", "local PL n=2 lam=1e-12"),
    "S002-A3 with 2^-n_+-": ("key-neuron sample",),
    "S002-D1 on the 2L flow": ("two-point, flow of 2L",),
    "S002-A1 on correlated data": ("correlated inputs",),
    "S002-A2 with ||D_+|| = ||D_-||": ("equal class norms",),
}
_SPECIAL_INSTANCES = {
    "local PL n=4 lam=1e-8": LOCAL_PL_INSTANCES["n=4 lam=1e-8"],
    "local PL n=2 lam=1e-12": LOCAL_PL_INSTANCES["n=2 lam=1e-12"],
    "two-point, flow of 2L": lambda: TORCH_MSE,
}
# statements about the instance alone (window (0, 0)): a short run is enough evidence
_SHORT_RUNS = {
    "correlated inputs": CORRELATED,
    "equal class norms": EQUAL_CLASSES,
}


def _short_run(problem: Problem):
    return simulate(problem, ExactFlow(), t_eval=np.linspace(0.0, 0.5, 6))
MUTANT_CASES = [(m, i) for m in sorted(MUTANTS) for i in MUTANT_ON.get(m, sorted(MUTANT_INSTANCES))]


@pytest.mark.parametrize(("mutant", "instance"), MUTANT_CASES)
def test_mutant_is_caught(mutant, instance, verdicts, verify_profile, key_sample):
    claim = MUTANTS[mutant]
    if instance == "key-neuron sample":
        evidence = key_sample
    elif instance in _SHORT_RUNS:
        evidence = _short_run(_SHORT_RUNS[instance])
    else:
        make = {**MUTANT_INSTANCES, **_SPECIAL_INSTANCES}[instance]
        evidence = _claim_evidence(claim, make(), verify_profile)
    verdict = check(claim, evidence)
    caught = verdict.outcome is Outcome.VIOLATED
    verdicts.record_mutant(verdict, caught)
    assert caught, f"mutant {mutant} not caught on {instance}: {verdict}"


# -- S002-F6: leaky ReLU and the min-l2 bias ---------------------------------------------------
F6_LAMS = (1e-2, 1e-4, 1e-6, 1e-8)
F6_SLOPE = 0.5


def _f6_excesses(slope: float) -> list[dict]:
    out = []
    for lam_ in F6_LAMS:
        problem = generators.orthonormal(n=4, d=4, p=20, lam=lam_, seed=0)
        if slope:
            problem = with_model(problem, activation=f"leaky:{slope}")
        horizon = 40.0 * np.log(1.0 / lam_)
        tr = simulate(problem, ExactFlow(), np.linspace(0.0, horizon, 201))
        assert tr.status.name == "SUCCESS", tr.message
        out.append(leaky_bias.excess(tr, slope))
    return out


def test_f6_leaky_relu_does_not_approach_the_min_norm_interpolator(verdicts):
    """S002-F6: 'leaky ReLU may not be biased to min-l2'. The distance of the flow's limit
    to the minimal-norm interpolator of its own model, as lam -> 0, ReLU against leaky."""
    relu, leaky = _f6_excesses(0.0), _f6_excesses(F6_SLOPE)
    assert all(r["loss_ratio"] < 1e-12 for r in relu + leaky)  # the limits interpolate
    # ReLU (S002-T1): the excess falls as lam -> 0; the leaky network's does not
    assert relu[-1]["excess_at_most"] < relu[0]["excess_at_least"] / 4
    assert leaky[-1]["excess_at_least"] > leaky[0]["excess_at_most"]
    assert leaky[-1]["excess_at_least"] > 10 * relu[-1]["excess_at_most"]

    def fmt(rows):
        return ", ".join(f"{r['excess_at_least']:.2g}" if abs(
            r["excess_at_most"] - r["excess_at_least"]) < 1e-3 * abs(r["excess_at_least"])
            else f"[{r['excess_at_least']:.2g}, {r['excess_at_most']:.2g}]" for r in rows)

    verdicts.finding(Finding(
        "S002-F6-leaky", "S002-F6: with leaky ReLU the flow's limit moves away from the "
        "minimal-norm interpolator as lam -> 0, where ReLU's approaches it",
        f"orthonormal n = 4, m = 20, seed 0, lam = {', '.join(f'{v:g}' for v in F6_LAMS)}: "
        f"||theta_inf||^2 / min ||theta||^2 - 1 over interpolating networks of the same "
        f"activation (bracketed by duality, papers/s002/leaky_bias.py) is {fmt(relu)} for "
        f"ReLU and {fmt(leaky)} for leaky ReLU of slope {F6_SLOPE}.",
        claims=("S002-F6", "S002-T1"),
        evidence={"lam": list(F6_LAMS), "relu": relu, "leaky": leaky, "slope": F6_SLOPE}))


def test_leaky_min_norm_program_at_slope_zero_is_s002s():
    from papers.s002.measures import min_norm_sq

    for seed_ in range(4):
        problem = generators.orthonormal(n=5, d=6, p=8, lam=1e-3, seed=seed_)
        lo, hi = leaky_bias.min_norm_bracket(problem, 0.0)
        ref = min_norm_sq(problem)
        assert lo <= hi + 1e-12 and hi - lo < 1e-6 * hi  # SLSQP to ~1e-8
        assert abs(lo - float(ref)) <= ref.error + 1e-6 * float(ref)
        # a leaky network can do what a ReLU one does with one more neuron per sign: its
        # minimum is never above ReLU's, and strictly below once the slope is positive
        lo_leaky, hi_leaky = leaky_bias.min_norm_bracket(problem, 0.5)
        assert hi_leaky < lo


# -- the main theorem's implicit bias and the alignment ODE as limits lam -> 0 ---------------------
# The two-point example at lam decreasing geometrically (the same shapes; `generators.two_point`
# scales one draw), each run read at its limit point (`verify.engine.limit_point`). Its minimal
# norm is
# known exactly: |theta*|^2 = 6/sqrt 5 (THEORY S002-F5, CF-9).
T1B, F1 = theory.get("S002-T1b"), theory.get("S002-F1")
BIAS_LAMS = {"quick": (1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8, 1e-10, 1e-12),
             "full": tuple(10.0 ** -(k / 2) for k in range(4, 25))}


def _bias_runs(profile, p: int = 8) -> list:
    lams = BIAS_LAMS["quick" if profile.name == "quick" else "full"]
    out = []
    for lam_ in lams:
        problem = generators.two_point(p=p, lam=lam_, seed=0)
        t_1 = claim_time(F1, problem, F1.window[1])
        out.append(s002_trajectory(problem, points=2001, rtol=1e-12, extra_times=(t_1,)))
    return out


@pytest.mark.parametrize("claim", [T1B, F1], ids=lambda c: c.id)
def test_limits_as_lam_vanishes(claim, verdicts, verify_profile):
    """S002-T1b: the limit's |theta|^2 tends to the minimal norm 6/sqrt 5 (the distance like
    lam^2, settled at 2.6832816 from lam = 1e-6 on); S002-F1: the gap to eq. (10)'s h = 0 flow
    over [0, t_1] vanishes (like lam^1.9)."""
    verdict = verdicts.record(check(claim, _bias_runs(verify_profile)), claim.kind.value)
    assert verdict.outcome is Outcome.HOLDS, str(verdict)


def test_min_norm_closed_form():
    """S002-T1b's claimed limit on the two-point example is its closed form 6/sqrt 5 (CF-9),
    which test_limits_as_lam_vanishes finds HOLDS and the mutant S002-T1b~1%-off (1% larger)
    VIOLATED: the sequence settles at 2.6832816."""
    problem = generators.two_point(p=8, lam=1e-6, seed=0)
    assert instance_values(problem)["MinNormSq"] == pytest.approx(6 / np.sqrt(5), rel=1e-12)


C_FIT = sp.Symbol("c_fit", positive=True)
LIMIT_MUTANTS = {
    "S002-T1b~1%-off": lambda: T1B.variant("1%-off", statement=sp.Eq(sp.Limit(sp.Limit(
        2 * NormWFrobSq(t), t, sp.oo), lam, 0), sp.Rational(101, 100) * MinNormSq)),
    # a wrong rate: the gap to the h = 0 flow claimed O(lam^3) (it goes like lam^1.9)
    "S002-F1~rate-lam^3": lambda: F1.variant("rate-lam^3", statement=sp.Le(
        AlignGap(t), C_FIT * lam**3), parameters={**F1.parameters, "c_fit": None}),
    # a wrong exponent sign: the gap growing as lam -> 0
    "S002-F1~grows": lambda: F1.variant("grows", statement=sp.Ge(
        AlignGap(t), C_FIT * lam ** sp.Rational(-1, 4)), parameters={**F1.parameters,
                                                                     "c_fit": None}),
}


@pytest.mark.parametrize("mutant", sorted(LIMIT_MUTANTS))
def test_limit_mutant_is_caught(mutant, verdicts, verify_profile):
    claim = LIMIT_MUTANTS[mutant]()
    assert claim.id == mutant
    verdict = check(claim, _bias_runs(verify_profile))
    caught = verdict.outcome is Outcome.VIOLATED
    verdicts.record_mutant(verdict, caught)
    assert caught, f"mutant {mutant} not caught: {verdict}"
