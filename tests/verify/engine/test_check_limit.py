"""LIMIT claims decided on sequences (`verify.engine.check_limit`): synthetic sequences whose limit
and
rate are known, the rules of the issue (HOLDS, VIOLATED, INCONCLUSIVE with its cost), the
profile-likelihood fit (`verify.engine.scaling.fit_limit`), the evidence's validation, and the
verdict table's fit column."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from theory.claim import Claim, Kind, Provenance, Source
from theory.symbols import L, lam, t
from verify import Outcome, check
from verify.engine.check_limit import EXTRAPOLATION_SPAN, exponent_error
from verify.engine.evidence import LimitSequence
from verify.engine.scaling import FitError, fit_limit
from verify.results.table import VerdictLog, format_table, markdown_table, verdict_header

SOURCE = Source("TOY", "a toy limit", Provenance.DERIVED)
C = sp.Symbol("c_fit", positive=True)


def _limit_claim(target, op=sp.Eq) -> Claim:
    return Claim(id="TOY-LIM", title="a toy limit", kind=Kind.LIMIT, source=SOURCE,
                 statement=op(sp.Limit(L(t), lam, 0), target))


def _rate_claim(exponent, op=sp.Le) -> Claim:
    return Claim(id="TOY-RATE", title="a toy rate", kind=Kind.LIMIT, source=SOURCE,
                 statement=op(L(t), C * lam**exponent), parameters={"c_fit": None})


def _sequence(values, lams, error=1e-12, seconds=()) -> LimitSequence:
    return LimitSequence("lam", tuple(lams), tuple(values), (error,) * len(lams),
                         quantity="L(t)", seconds=seconds)


LAMS = tuple(10.0**-k for k in range(2, 12))


def test_a_power_law_approach_holds_with_its_exponent():
    q = [0.3 + 0.5 * x for x in LAMS]
    verdict = check(_limit_claim(sp.Rational(3, 10)), _sequence(q, LAMS))
    assert verdict.outcome is Outcome.HOLDS, str(verdict)
    assert verdict.observed == pytest.approx(1.0, abs=1e-6)
    assert verdict.band[0] < 1.0 < verdict.band[1] and verdict.band[1] - verdict.band[0] < 1e-3
    assert verdict.figure_data["type"] == "limit"


def test_a_settled_sequence_one_percent_off_is_violated():
    """The limit 0.3 claimed 1% smaller: the sequence settles (its last half within the
    errors of its last value) at a band that excludes it."""
    lams = tuple(10.0**-k for k in range(2, 31, 2))
    q = [0.3 + 0.5 * x for x in lams]
    verdict = check(_limit_claim(sp.Float(0.297)), _sequence(q, lams, error=1e-9))
    assert verdict.outcome is Outcome.VIOLATED, str(verdict)
    assert "settled" in verdict.reason
    assert check(_limit_claim(sp.Rational(3, 10)), _sequence(q, lams, error=1e-9)).outcome \
        is Outcome.HOLDS


def test_a_sequence_that_reaches_its_limit_exactly_holds():
    verdict = check(_limit_claim(0), _sequence([0.0] * len(LAMS), LAMS))
    assert verdict.outcome is Outcome.HOLDS and "settled" in verdict.reason


def test_an_extrapolation_excluding_the_claim_is_violated():
    """Still moving (not settled), but q = Q_inf + K s^a fits over ten decades: the
    extrapolated band excludes a limit 1% off."""
    q = [0.3 + 0.5 * x**0.3 for x in LAMS]
    verdict = check(_limit_claim(sp.Float(0.303)), _sequence(q, LAMS))
    assert verdict.outcome is Outcome.VIOLATED, str(verdict)
    assert "extrapolated" in verdict.reason
    right = check(_limit_claim(sp.Rational(3, 10)), _sequence(q, LAMS))
    assert right.outcome is Outcome.HOLDS, str(right)


def test_a_short_span_is_not_extrapolated_and_says_what_more_would_cost():
    """Over less than a decade of s the extrapolation decides nothing: INCONCLUSIVE, with
    the cost of a longer sequence (the last run's seconds scaled by its horizon)."""
    lams = tuple(np.geomspace(1e-3, 2e-4, 8))
    assert lams[0] / lams[-1] < EXTRAPOLATION_SPAN
    q = [0.3 + 0.5 * x**0.3 for x in lams]
    verdict = check(_limit_claim(sp.Rational(3, 10)),
                    _sequence(q, lams, seconds=(2.0,) * len(lams)))
    assert verdict.outcome is Outcome.INCONCLUSIVE, str(verdict)
    assert "a longer sequence would take" in verdict.reason and " s (" in verdict.reason


def test_a_distance_growing_over_decades_is_violated():
    """A claimed limit the sequence moves away from along ten decades (it grows like
    ln(1/lam)): the distance's exponent band lies below 0."""
    q = [math.log(1 / x) for x in LAMS]
    verdict = check(_limit_claim(0), _sequence(q, LAMS))
    assert verdict.outcome is Outcome.VIOLATED and "grows" in verdict.reason, str(verdict)


def test_bounds_on_a_limit():
    q = [0.3 + 0.5 * x for x in LAMS]
    assert check(_limit_claim(sp.Rational(1, 2), sp.Le), _sequence(q, LAMS)).outcome \
        is Outcome.HOLDS
    assert check(_limit_claim(sp.Rational(1, 5), sp.Le), _sequence(q, LAMS)).outcome \
        is Outcome.VIOLATED
    assert check(_limit_claim(sp.Rational(1, 5), sp.Gt), _sequence(q, LAMS)).outcome \
        is Outcome.HOLDS


def test_a_claimed_limit_named_by_a_parameter_is_decided_on_a_sequence():
    """A bound given as a claim parameter (MOR26-Tx4's RatioBound) is a number once the
    parameters are set: a LimitSequence decides it, with the parameter's value (it was
    refused as 'depending on the instance' before the parameters were substituted)."""
    bound = sp.Symbol("RatioBound", positive=True)
    claim = Claim(id="TOY-LIM", title="a toy limit", kind=Kind.LIMIT, source=SOURCE,
                  statement=sp.Le(sp.Limit(L(t), lam, 0), bound),
                  parameters={"RatioBound": sp.Rational(1, 2)})
    q = [0.3 + 0.5 * x for x in LAMS]
    assert check(claim, _sequence(q, LAMS)).outcome is Outcome.HOLDS
    lower = claim.with_parameters(RatioBound=sp.Rational(1, 5))
    assert check(lower, _sequence(q, LAMS)).outcome is Outcome.VIOLATED


@pytest.mark.parametrize(("exponent", "op", "outcome"), [
    (sp.Rational(1, 4), sp.Le, Outcome.HOLDS),     # vanishes faster than claimed
    (sp.Rational(1, 2), sp.Le, Outcome.HOLDS),     # the claimed rate itself
    (1, sp.Le, Outcome.VIOLATED),                  # a wrong rate
    (sp.Rational(-1, 4), sp.Ge, Outcome.VIOLATED),  # a wrong exponent sign: growth
])
def test_rates(exponent, op, outcome):
    q = [2.0 * x**0.5 for x in LAMS]
    verdict = check(_rate_claim(exponent, op), _sequence(q, LAMS))
    assert verdict.outcome is outcome, str(verdict)
    assert verdict.observed == pytest.approx(0.5, abs=1e-9)


def test_a_rate_met_to_rounding_is_not_decided_on_its_rounding():
    """Q = 2 s^(1 - 1e-9) with 0.1% errors (MOR26-Tx1b's gap is c/ln(1/lam) to rounding): the
    fit's own band is narrower than 1e-9 and excluded the claimed exponent 1, which read as
    VIOLATED; the band now holds what the values' errors allow (about 1e-3 here)."""
    lams = tuple(10.0**-k for k in range(2, 12))
    q = [2.0 * x ** (1 - 1e-9) for x in lams]
    seq = LimitSequence("lam", lams, tuple(q), tuple(1e-3 * v for v in q), quantity="L(t)")
    verdict = check(_rate_claim(1), seq)
    assert verdict.outcome is Outcome.HOLDS, str(verdict)
    assert "widened by" in verdict.reason
    assert verdict.band[0] < 1 < verdict.band[1] < 1 + 0.01
    assert check(_rate_claim(sp.Rational(11, 10)), seq).outcome is Outcome.VIOLATED


def test_the_exponent_error_bounds_the_slope_s_motion():
    """Moving every value by its full error in the worst direction moves the least-squares
    slope by at most `exponent_error`, and by exactly it for that direction."""
    s = np.geomspace(1e-1, 1e-4, 7)
    q = 3.0 * s**0.7
    e = 0.01 * q
    bound = exponent_error(s, q, e)
    x = np.log(s)
    worst = q * np.where(x > x.mean(), 1 - 0.01, 1 + 0.01)  # lower at large s, higher at small
    moved = np.polyfit(x, np.log(worst), 1)[0]
    assert abs(moved - 0.7) <= bound + 1e-12
    assert abs(moved - 0.7) > 0.5 * bound


def test_a_rate_without_three_resolved_values_is_inconclusive():
    q = [1e-13, 1e-14, 1e-15, 1e-16]
    verdict = check(_rate_claim(sp.Rational(1, 2)), _sequence(q, LAMS[:4]))
    assert verdict.outcome is Outcome.INCONCLUSIVE and "a fit needs 3" in verdict.reason


def test_fit_limit_recovers_a_known_law():
    s = np.geomspace(1e-1, 1e-8, 12)
    fit = fit_limit(s, 0.3 + 0.5 * s**0.7, np.full(12, 1e-12))
    assert fit.lo < 0.7 < fit.hi and fit.limit_lo < 0.3 < fit.limit_hi
    assert fit.limit_hi - fit.limit_lo < 1e-9 and fit.converges
    with pytest.raises(FitError):
        fit_limit(s[:3], s[:3])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"x": (1e-2,), "values": (1.0,), "errors": (0.0,)}, "at least 2"),
    ({"x": (1e-2, 1e-3), "values": (1.0, 2.0), "errors": (-1.0, 0.0)}, "finite and >= 0"),
    ({"x": (1e-3, 1e-2), "values": (1.0, 2.0), "errors": (0.0, 0.0)}, "monotonically"),
    ({"x": (1e-2, 1e-3), "values": (1.0, float("nan")), "errors": (0.0, 0.0)}, "finite"),
    ({"x": (1e-2, 1e-3), "values": (1.0, 2.0), "errors": (0.0, 0.0), "scale": "log"},
     "scale"),
    ({"x": (1e-2, 1e-3), "values": (1.0, 2.0), "errors": (0.0, 0.0), "seconds": (1.0,)},
     "seconds"),
])
def test_bad_sequences_are_refused_with_one_line(kwargs, message):
    with pytest.raises(ValueError, match=message):
        LimitSequence("lam", **kwargs)


def test_a_sequence_in_another_variable_is_refused():
    seq = LimitSequence("t", (10.0, 100.0, 1000.0), (1.0, 0.5, 0.2), (0.0,) * 3, scale="1/x")
    with pytest.raises(Exception, match="outer limit"):
        check(_limit_claim(0), seq)


def test_the_table_shows_the_fit_of_limit_rows():
    q = [0.3 + 0.5 * x for x in LAMS]
    log = VerdictLog()
    log.record(check(_limit_claim(sp.Rational(3, 10)), _sequence(q, LAMS)), "limit")
    rows = log.table()
    assert rows[0]["fit"]["exponent"] == pytest.approx(1.0, abs=1e-6)
    header = format_table(rows)[0]
    assert "fit exponent [95% band]" in header
    assert "1 [" in format_table(rows)[1]
    assert "fit exponent [95% band]" in verdict_header(rows)
    assert "fit exponent" in markdown_table(rows)


def test_the_report_shows_the_fit_of_limit_rows_in_its_own_column():
    """The report's verdict table (HTML and LaTeX) puts a limit row's fit in the fit column,
    keeps t and the relation under their own headings, keeps single numbers on one line and
    lets the fit break between its exponent and its band (the table fits 1,400 px)."""
    from verify.report import latex
    from verify.report import verdict_table as V

    log = VerdictLog()
    q = [0.3 + 0.5 * x for x in LAMS]
    log.record(check(_limit_claim(sp.Rational(3, 10)), _sequence(q, LAMS)), "limit")
    header, rows, _ = V.rows(log.table())
    fit = header.index("fit exponent [95% band]")
    assert rows[0][fit].startswith("1 [")  # the exponent 1 and its band
    assert [header[k] for k in V.number_columns(header)] == ["worst margin", "error", "t"]
    assert [header[k] for k in V.wrapped_columns(header)] == [
        "claim", "kind", "fit exponent [95% band]"]
    blocks = latex.fragment_blocks(
        {"version": "0", "commit": "0" * 12, "profile": "quick", "seed": 0},
        {"claims": log.table(), "findings": [],
         "mutant_score": {"caught": 0, "total": 0, "checks": 0, "not_run": [],
                          "not_caught": [], "undeclared": []}}, [], [])
    (table,) = [b for b in blocks if getattr(b, "header", None) and "verdict" in b.header]
    row = dict(zip(table.header, table.rows[0], strict=True))
    assert row["fit exponent [95% band]"] == rows[0][fit]
    assert row["t"] == rows[0][header.index("t")]
    assert row["relation"] == rows[0][header.index("relation")]


def test_an_undecided_limit_row_still_shows_its_fit():
    """A limit left INCONCLUSIVE (s spans less than a decade) has no margin, but its row
    shows the exponent measured and where (the slowest approach among its instances)."""
    log = VerdictLog()
    for a in (0.3, 0.6):
        lams = tuple(np.geomspace(1e-3, 2e-4, 8))
        q = [0.3 + 0.5 * x**a for x in lams]
        verdict = check(_limit_claim(sp.Rational(3, 10)), _sequence(q, lams))
        assert verdict.outcome is Outcome.INCONCLUSIVE and math.isnan(verdict.margin)
        log.record(verdict, "limit")
    (row,) = log.table()
    assert row["worst_margin"] is None
    assert row["fit"]["exponent"] == pytest.approx(0.3, abs=1e-3)
    assert row["where"] and "0.3 [" in format_table([row])[1]
