"""S002 (orthogonal inputs, square loss): claims checked on exact gradient flows.

Each claim runs on the paper's two-point example and on random instances of
the orthonormal family; a VIOLATED verdict fails the test (hypothesis then
shrinks the instance). Each claim also has mutants (a wrong constant, a
shortened time bound, a quantity that is not conserved) that must be caught.
"""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given

import theory
from numerics import generators
from theory.symbols import NormSumDrift, t
from verify import Outcome, check, families
from verify.evidence import s002_trajectory

L1, T1, L3 = theory.get("S002-L1"), theory.get("S002-T1"), theory.get("S002-L3")


def _expect_not_violated(verdict):
    assert verdict.outcome is not Outcome.VIOLATED, str(verdict)


def _check_and_record(claim, problem, verdicts, profile):
    traj = s002_trajectory(problem, points=profile.saved_times)
    verdict = check(claim, traj)
    verdicts.record(verdict, claim.kind.value)
    return verdict


# -- the paper's two-point example (S002 section 5) ------------------------------------------
@pytest.mark.parametrize("claim", [L1, T1, L3], ids=lambda c: c.id)
def test_two_point_example(claim, verdicts, verify_profile):
    verdict = _check_and_record(claim, generators.two_point(seed=0), verdicts, verify_profile)
    _expect_not_violated(verdict)
    if claim is L3:
        # at the paper's lam = 1e-6/sqrt(60), lam^(eps/5) exceeds the capacity 1/sqrt(5):
        # the lemma's conclusion is vacuous there, which the check must say
        assert verdict.outcome is Outcome.INAPPLICABLE, str(verdict)
    else:
        assert verdict.outcome is Outcome.HOLDS, str(verdict)


def test_two_point_example_small_scale_phase_two(verdicts, verify_profile):
    """At lam = 1e-20 the phase-2 lemma applies to the two-point example with eps = 1/10."""
    problem = generators.two_point(lam=1e-20, seed=0)
    verdict = _check_and_record(L3, problem, verdicts, verify_profile)
    assert verdict.outcome is Outcome.HOLDS, str(verdict)


# -- random instances of the orthonormal family -----------------------------------------------
@given(problem=families.orthonormal())
def test_balancedness_family(problem, verdicts, verify_profile):
    _expect_not_violated(_check_and_record(L1, problem, verdicts, verify_profile))


@given(problem=families.orthonormal())
def test_zero_loss_family(problem, verdicts, verify_profile):
    _expect_not_violated(_check_and_record(T1, problem, verdicts, verify_profile))


@given(problem=families.orthonormal())
def test_phase_two_family(problem, verdicts, verify_profile):
    _expect_not_violated(_check_and_record(L3, problem, verdicts, verify_profile))


# -- mutants: each check must be able to fail ----------------------------------------------
MUTANT_INSTANCES = {
    "two-point lam=1e-20": lambda: generators.two_point(lam=1e-20, seed=0),
    "orthonormal n=4 lam=1e-12": lambda: generators.orthonormal(n=4, d=5, p=60, lam=1e-12,
                                                                seed=3),
}

MUTANTS = {
    # a quantity that is not conserved, claimed conserved
    "S002-L1 with a_j^2 + |w_j|^2": L1.variant(
        "sum-of-squares", statement=sp.Eq(NormSumDrift(t), 0)),
    # time bound shortened: c_T = 3 -> 1/2
    "S002-T1 with c_T/6": T1.with_parameters(c_T=sp.Rational(1, 2)).variant("c_T/6"),
    # time bound divided by 2
    "S002-L3 with the bound halved": L3.variant(
        "half-time", statement=sp.Le(L3.event_time, L3.statement.rhs / 2)),
}


@pytest.mark.parametrize("instance", sorted(MUTANT_INSTANCES))
@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_mutant_is_caught(mutant, instance, verdicts, verify_profile):
    claim = MUTANTS[mutant]
    traj = s002_trajectory(MUTANT_INSTANCES[instance](), points=verify_profile.saved_times)
    verdict = check(claim, traj)
    caught = verdict.outcome is Outcome.VIOLATED
    verdicts.record_mutant(verdict, caught)
    assert caught, f"mutant {mutant} not caught on {instance}: {verdict}"
