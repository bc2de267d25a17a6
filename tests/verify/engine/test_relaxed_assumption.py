"""A hypothesis declared ``required=False`` (`theory.Assumption`): where it fails the claim is
still checked as stated and its verdict says so ("relaxed"); a required one that fails makes
the check INAPPLICABLE; a non-required one that holds adds nothing."""

from __future__ import annotations

import pytest
import sympy as sp

from numerics import generators
from papers.s002.evidence import s002_trajectory
from theory.claim import Assumption, Claim, Kind, Provenance, Source
from theory.symbols import L, lam, t
from verify import Outcome, check

SOURCE = Source("S002", "test", Provenance.DERIVED)
TINY_LAM = Assumption("lam tiny", sp.Lt(lam, sp.Float(1e-300)), "lam < 1e-300", required=False)
ANY_LAM = Assumption("lam not tiny", sp.Gt(lam, sp.Float(1e-300)), "lam > 1e-300",
                     required=False)


@pytest.fixture(scope="module")
def toy():
    return s002_trajectory(generators.two_point(seed=0))


def _claim(statement, setting):
    return Claim(id="TEST", title="test", kind=Kind.POINTWISE, source=SOURCE,
                 statement=statement, setting=setting, window=(sp.Integer(1), sp.oo))


def test_unmet_optional_hypothesis_is_checked_and_said(toy):
    holds = check(_claim(sp.Le(L(t), L(0)), (TINY_LAM,)), toy)
    assert holds.outcome is Outcome.HOLDS, str(holds)
    assert holds.reason.startswith("relaxed (outside the paper's hypotheses): lam tiny fails")
    bad = check(_claim(sp.Le(L(t), L(0) / 2), (TINY_LAM,)), toy)
    assert bad.outcome is Outcome.VIOLATED and "relaxed" in bad.reason, str(bad)


def test_required_hypothesis_still_makes_it_inapplicable(toy):
    required = Assumption("lam tiny", TINY_LAM.statement, TINY_LAM.text)
    verdict = check(_claim(sp.Le(L(t), L(0)), (required, TINY_LAM)), toy)
    assert verdict.outcome is Outcome.INAPPLICABLE, str(verdict)


def test_met_optional_hypothesis_adds_nothing(toy):
    verdict = check(_claim(sp.Le(L(t), L(0)), (ANY_LAM,)), toy)
    assert verdict.outcome is Outcome.HOLDS and "relaxed" not in verdict.reason, str(verdict)
