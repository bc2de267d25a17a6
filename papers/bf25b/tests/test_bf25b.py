"""BF25B (a linear teacher, small initialisation): its claims decided on the family
``bf25b-linear-teacher``, at the profile's sizes (`papers.bf25b.families.SIZES`).

- The population field (BF25B-F1) by Monte Carlo with an error bound that holds with
  probability 1 - 1e-3, at the start directions of one or more instances per d.
- The extremal vectors' concentration (BF25B-T3.1) as a scaling in n of the largest angle
  between a verified extremal vector of D_n and +-beta*/|beta*|.

Each claim has mutants that must be caught (VIOLATED), declared in
verify/results/mutant_roster.txt.
"""

from __future__ import annotations

from functools import cache

import pytest
import sympy as sp

import theory
from papers.bf25b.claims import ExtremalAngle, PopFieldAlongMax, PopFieldAlongMin, PopFieldOrth
from papers.bf25b.data import teacher_problem
from papers.bf25b.evidence import angle_series
from papers.bf25b.families import SIZES
from theory.symbols import c_hi, n
from verify import Outcome, check
from verify.engine.evidence import exact_trajectory

POPULATION, ANGLES = SIZES
F1, T31 = theory.get("BF25B-F1"), theory.get("BF25B-T3.1")


def _catch(verdicts, claim, evidence, where: str = "") -> None:
    """Check the mutant ``claim`` on ``evidence``, record whether it was caught (VIOLATED)
    and fail if not."""
    verdict = check(claim, evidence)
    caught = verdict.outcome is Outcome.VIOLATED
    verdicts.record_mutant(verdict, caught)
    assert caught, f"mutant {claim.id} not caught{where}: {verdict}"


# -- the population field -------------------------------------------------------------------------
@cache
def _start(d: int, seed: int):
    """The instance's start as a run (its instance quantities are read at t = 0)."""
    at = POPULATION.at_profile("quick")
    problem = teacher_problem(at["n"], d, 2 * at["n"], 1e-3, 0.5, seed)
    return exact_trajectory(problem, 1.0, 3)


def _starts(profile: str):
    at = POPULATION.at_profile(profile)
    return [_start(d, seed) for d in at["d"] for seed in range(at["seeds"])]


def test_the_population_field_is_half_the_teacher(verdicts, verify_profile):
    """BF25B-F1 HOLDS on every instance: the coefficient along beta* is 1/2 and the
    orthogonal part 0, within the Monte Carlo's bound (about 0.13 at d = 5)."""
    for run in _starts(verify_profile.name):
        verdict = verdicts.record(check(F1, run), F1.kind.value)
        assert verdict.outcome is Outcome.HOLDS, str(verdict)


FIELD_MUTANTS = {
    # the factor 1/2 dropped: D(u) = Sigma beta* (as if every sample were active)
    "BF25B-F1~no-half": lambda: F1.variant("no-half", statement=sp.And(
        sp.Eq(PopFieldAlongMax, 1), sp.Eq(PopFieldAlongMin, 1), sp.Eq(PopFieldOrth, 0))),
    # the field believed to follow the direction u (D(u) = beta*/2 only for u = beta*)
    "BF25B-F1~along-u": lambda: F1.variant("along-u", statement=sp.And(
        sp.Eq(PopFieldAlongMax, sp.Rational(1, 2)), sp.Eq(PopFieldAlongMin, sp.Rational(1, 2)),
        sp.Ge(PopFieldOrth, sp.Rational(1, 2)))),
}


@pytest.mark.parametrize("mutant", sorted(FIELD_MUTANTS))
def test_population_field_mutants_are_caught(mutant, verdicts, verify_profile):
    claim = FIELD_MUTANTS[mutant]()
    assert claim.id == mutant
    for run in _starts(verify_profile.name):
        _catch(verdicts, claim, run, f" on {run.problem}")


# -- the extremal vectors' concentration ----------------------------------------------------------
@cache
def _series(profile: str, d: int):
    at = ANGLES.at_profile(profile)
    return angle_series(tuple(at["n"]), d, tuple(range(at["seeds"])), at["noise"])


def _dims(profile: str) -> list[int]:
    return list(ANGLES.at_profile(profile)["d"])


def test_extremal_vectors_concentrate(verdicts, verify_profile):
    """BF25B-T3.1 HOLDS at each d: the angle falls at least like sqrt(log(n)/n). At most
    one draw in ten is left out of a series for a sign the search did not resolve."""
    for d in _dims(verify_profile.name):
        series = _series(verify_profile.name, d)
        at = ANGLES.at_profile(verify_profile.name)
        assert len(series.x) >= 0.9 * len(at["n"]) * at["seeds"], series.description
        verdict = verdicts.record(check(T31, _series(verify_profile.name, d)), T31.kind.value)
        assert verdict.outcome is Outcome.HOLDS, f"d = {d}: {verdict}"


RATE_MUTANTS = {
    # a faster rate: the angle at most of order 1/n (a parametric rate squared)
    "BF25B-T3.1~n^-1": lambda: T31.variant(
        "n^-1", statement=sp.Le(ExtremalAngle, c_hi * n ** -1)),
    # slow concentration: the angle at least of order n^(-1/4) (the local oscillation of the
    # half-space indicators mistaken for the rate)
    "BF25B-T3.1~n^-1/4": lambda: T31.variant(
        "n^-1/4", statement=sp.Ge(ExtremalAngle, c_hi * n ** sp.Rational(-1, 4))),
}


@pytest.mark.parametrize("mutant", sorted(RATE_MUTANTS))
def test_rate_mutants_are_caught(mutant, verdicts, verify_profile):
    claim = RATE_MUTANTS[mutant]()
    assert claim.id == mutant
    for d in _dims(verify_profile.name):
        _catch(verdicts, claim, _series(verify_profile.name, d), f" at d = {d}")
