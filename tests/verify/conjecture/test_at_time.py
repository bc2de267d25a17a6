"""`--at-t` at an instance-dependent time: an expression in instance numbers, or a run's
event through first(...) (verify.conjecture.when)."""

from __future__ import annotations

import math
import re
import shlex

import numpy as np
import pytest

from numerics import generators
from verify.conjecture import conjecture
from verify.conjecture.when import AtTime, parse_at_time
from verify.exit_codes import EXIT_FOUND, EXIT_OK
from verify.front.cli import main
from verify.language.expressions import ExpressionError


def test_a_time_is_a_number_an_instance_expression_or_an_event():
    assert parse_at_time("2.5") == 2.5 and parse_at_time(3) == 3.0
    when = parse_at_time("log(1/lam)/Dplus")
    assert isinstance(when, AtTime) and not when.uses_event
    problem = generators.two_point(seed=0)
    value = when.value(problem)  # the vocabulary's lam and Dplus of this instance
    assert math.isfinite(value) and value > 0
    event = parse_at_time("2*first(L(t) <= L(0)/2)")
    assert event.uses_event
    for bad in ("L(t)", "t + 1", "NotAName"):
        with pytest.raises(ExpressionError):
            parse_at_time(bad)


def test_at_an_instance_expression_the_run_saves_that_time_and_replays(capsys):
    """The statement is compared at exactly the instance's time (a saved time of its
    run), and the replay command carries the expression."""
    result = conjecture("NormW(t) <= 2*NormW(0)", "orthogonal", mode="at_t",
                        at_t="log(1/lam)/(2*Dplus)", budget=3, plot=None)
    assert result.verdict == "COUNTEREXAMPLE"
    found = result.counterexample
    problem = result._trajectory.problem
    expected = parse_at_time("log(1/lam)/(2*Dplus)").value(problem)
    assert found.t == pytest.approx(expected, rel=1e-12)
    assert "--at-t 'log(1/lam)/(2*Dplus)'" in result.replay_command
    argv = shlex.split(result.replay_command)
    assert main(argv[1:] + ["--no-plot"]) == EXIT_FOUND
    assert "COUNTEREXAMPLE" in capsys.readouterr().out


def test_at_an_event_the_instance_is_compared_at_the_events_time(capsys):
    code = main(["conjecture", "L(t) >= 0.4*L(0)", "--family", "two-point", "--at-t",
                 "first(L(t) <= L(0)/2)", "--budget", "3", "--no-plot"])
    out = capsys.readouterr().out
    assert code == EXIT_OK, out
    # at the first saved time where L <= L(0)/2, L is about L(0)/2 (a saved time's step on)
    lhs, rhs = (float(x) for x in re.search(r"lhs = (\S+), rhs = (\S+)", out).groups())
    loss0 = rhs / 0.4
    assert 0.4 * loss0 < lhs <= 0.5 * loss0
    assert "(at t = first(L(t) <= L(0)/2))" in out


def test_an_instance_time_is_refused_where_it_cannot_be_used(capsys):
    assert main(["conjecture", "L(t) <= L(0)", "--family", "orthogonal", "--at-t",
                 "L(t)"]) == 2
    assert "--at-t 'L(t)': a time is a number" in capsys.readouterr().err
    assert main(["tighten", "L(t) <= C*L(0)", "--family", "orthogonal", "--at-t",
                 "log(1/lam)"]) == 2
    assert "gfverify tighten takes a number" in capsys.readouterr().err


def test_a_window_between_instance_times(capsys):
    """--window 'A, B': every saved time from A to B, each end a time on the instance (B may
    be oo); both ends are saved times of the run; the replay carries the window."""
    from verify.conjecture.when import Window, parse_window

    w = parse_window("0, log(1/lam)/(4*Dplus)")
    assert isinstance(w, Window) and w.start == 0.0 and not w.uses_event
    assert parse_window("first(L(t) <= L(0)/2), oo").uses_event
    for bad in ("1", "2, 1", "0, L(t)", "-1, 2"):
        with pytest.raises(ExpressionError):
            parse_window(bad)
    # OR-growth over the first quarter of the escape: true
    code = main(["conjecture", "log(NormW(t)) <= log(NormW(0)) + sqrt(2*L(0)/n)*t",
                 "--family", "orthogonal", "--window", "0, log(1/lam)/(4*Dplus)",
                 "--budget", "3", "--no-plot"])
    out = capsys.readouterr().out
    assert code == EXIT_OK, out
    assert "(over t in [0, log(1/lam)/(4*Dplus)])" in out
    # the loss after the first time it halves stays below half: true, from an event on
    code = main(["conjecture", "L(t) <= 0.5*L(0)", "--family", "two-point", "--window",
                 "first(L(t) <= L(0)/2), oo", "--budget", "3", "--no-plot"])
    assert code == EXIT_OK, capsys.readouterr().out
    capsys.readouterr()
    # a false one: replayed with its window
    result = conjecture("NormW(t) <= 100*NormW(0)", "orthogonal", mode="window",
                        at_t="0, log(1/lam)/(4*Dplus)", budget=3, plot=None)
    assert result.verdict == "COUNTEREXAMPLE"
    assert "--window '0, log(1/lam)/(4*Dplus)'" in result.replay_command
    tr = result._trajectory
    end = parse_window("0, log(1/lam)/(4*Dplus)").values(tr.problem)[1]
    assert np.any(np.isclose(tr.t, end, rtol=0, atol=1e-12))  # the end is a saved time
    assert main(shlex.split(result.replay_command)[1:] + ["--no-plot"]) == EXIT_FOUND


def test_no_instance_with_a_time_is_undecided_not_an_error(tmp_path):
    """An event that never happens: every instance INCONCLUSIVE, the verdict UNDECIDED, no
    plot (nothing compared), and no internal error."""
    result = conjecture("L(t) >= 0", "two-point", mode="at_t",
                        at_t="first(L(t) <= 1e-300*L(0))", budget=1, plot=tmp_path / "p.png")
    assert result.verdict == "UNDECIDED"
    assert "the event did not happen" in result.report()
    assert not (tmp_path / "p.png").exists()
