"""How LIMIT claims read (`theory.limits`): the limits a relation takes, a rate's exponent,
malformed statements refused where the claim is made, the catalogue's line."""

from __future__ import annotations

import pytest
import sympy as sp

import theory
from theory.claim import Claim, Kind, Provenance, Source
from theory.fields import RecordError
from theory.limits import describe, limit_form, limit_forms
from theory.symbols import L, NormW, lam, t

SOURCE = Source("TOY", "a toy", Provenance.DERIVED)
C = sp.Symbol("c_fit", positive=True)
Q = sp.Symbol("Qstar", positive=True)


def _claim(statement, **kw) -> Claim:
    return Claim(id="TOY-L", title="toy", kind=Kind.LIMIT, source=SOURCE, statement=statement,
                 **kw)


def test_nested_limits_read_outermost_first():
    claim = _claim(sp.Eq(sp.Limit(sp.Limit(L(t), t, sp.oo), lam, 0), Q))
    (form,) = limit_forms(claim)
    assert [str(v) for v, _ in form.limits] == ["lam", "t"]
    assert form.quantity == L(t) and form.target == Q and form.op is sp.Eq
    assert form.inner_time_limit and not form.in_time_only and form.rate is None


def test_a_limit_on_the_right_is_flipped():
    claim = _claim(sp.Lt(Q, sp.Limit(L(t), t, sp.oo)))
    (form,) = limit_forms(claim)
    assert form.op is sp.Gt and form.in_time_only


def test_rates_in_an_instance_quantity_and_in_a_run_quantity():
    claim = _claim(sp.Le(L(t), C * lam ** sp.Rational(1, 4)), parameters={"c_fit": None})
    form = limit_form(claim, claim.statement)
    assert form.rate == (lam, sp.Rational(1, 4)) and str(form.outer[0]) == "lam"
    claim = _claim(sp.Ge(L(t), C * NormW(t) ** -2), parameters={"c_fit": None})
    form = limit_form(claim, claim.statement)
    assert form.rate[0] == NormW(t) and form.in_time_only
    claim = _claim(sp.Le(sp.Limit(L(t), t, sp.oo), C * lam), parameters={"c_fit": None})
    form = limit_form(claim, claim.statement)
    assert form.rate == (lam, 1) and [str(v) for v, _ in form.limits] == ["lam", "t"]


@pytest.mark.parametrize(("statement", "message"), [
    (sp.Le(L(t), 1), "neither a limit nor a rate"),
    (sp.Eq(sp.Limit(L(t), t, 0), 0), "t -> oo"),
    (sp.Eq(sp.Limit(L(t), lam, 1), 0), "goes to 0"),
    (sp.Eq(sp.Limit(L(t), lam, 0), lam), "the limit's own variable"),
    (sp.Eq(sp.Limit(L(t), lam, 0), sp.Limit(NormW(t), lam, 0)), "both sides"),
])
def test_malformed_limit_claims_are_refused_where_made(statement, message):
    with pytest.raises(RecordError, match=message):
        _claim(statement)


def test_the_catalogue_says_how_a_limit_is_checked():
    text = describe(theory.get("CEL23-F7b"))
    assert "lim_{lam -> 0} lim_{t -> oo} NormShareTop(t) = CShareTop" in text
    assert "polished by Newton's method" in text and "settles or extrapolated" in text
    assert "O(LamEff^" in describe(theory.get("BF25-T1c"))
    assert r"\lim_{\lambda \to 0^+}" in theory.get("CEL23-T7").latex()


def test_every_limit_claim_reads():
    limits = [c for c in theory.claims() if c.kind is Kind.LIMIT]
    assert len(limits) >= 20
    for claim in limits:
        assert claim.checkable and limit_forms(claim), claim.id
