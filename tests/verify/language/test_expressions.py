"""The statement language (`verify.language.expressions`): what a user types is parsed into
sympy, exactly, and never evaluated as Python."""

from __future__ import annotations

import pytest
import sympy as sp

from verify.language.expressions import (
    ExpressionError,
    parse_conjecture,
    parse_expression,
    parse_time,
    split_pair,
)


def test_a_decimal_literal_is_the_rational_it_is_written_as():
    expr = parse_expression("0.1")
    assert expr == sp.Rational(1, 10)  # not the binary double nearest 0.1


@pytest.mark.parametrize("text", ["L(t) < 1e-400", "L(t) < 2**-2000", "L(t) < 1e-200*1e-200"])
def test_a_literal_no_double_holds_is_refused_not_rounded_to_zero(text):
    with pytest.raises(ExpressionError, match="e-"):
        parse_conjecture(text)


@pytest.mark.parametrize("text", ["__import__('os').system('true')", "L(t).__class__",
                                  "[x for x in ()]", "lambda: 0", "L(t) <= NotAName"])
def test_text_that_is_not_the_vocabulary_is_refused(text):
    with pytest.raises(ExpressionError):
        parse_conjecture(text)


def test_a_conjecture_is_a_relation_in_the_vocabulary():
    parsed = parse_conjecture("L(t) <= 1.5*L(0)")
    assert isinstance(parsed.relation, sp.Rel) and not parsed.is_event_time
    assert sp.Rational(3, 2) in parsed.relation.rhs.atoms(sp.Rational)


def test_a_time_may_name_an_event_and_a_pair_splits_outside_calls():
    expr, event = parse_time("2*first(L(t) <= L(0)/2)")
    assert event is not None and expr.free_symbols
    assert parse_time("3")[1] is None
    assert split_pair("min(a, b), 2") == ("min(a, b)", "2")
    assert split_pair("1") is None
