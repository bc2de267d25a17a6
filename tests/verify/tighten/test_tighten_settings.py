"""Tightening where the numbers are delicate: a window cut at a loss floor, a window opened
by an event, a deviation that is 0 within its error, a claim's other parameters, the
family's coordinates, and an instance's value as an interval over its whole window."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from numerics import ExactFlow, simulate
from theory import registry
from theory import symbols as S
from verify import above_loss_floor, at_event, event_time
from verify.conjecture.instance import MethodSpec
from verify.front.cli import main
from verify.instances.families import get as family
from verify.report.tightness import declared_settings
from verify.tighten import tighten, tighten_claim
from verify.tighten.extreme import move_scale, witness_move
from verify.tighten.statement import TightenError


def _declared(claim_id: str, **kwargs):
    s = declared_settings()[claim_id]
    kwargs.setdefault("part", s.get("part"))
    if "param" in s:
        kwargs.setdefault("param", s["param"])
    return tighten_claim(claim_id, s.get("family"), params=s.get("params"),
                         loss_floor=s.get("loss_floor"), claim_params=s.get("claim_params"),
                         **kwargs)


@pytest.fixture(scope="module")
def two_point_run():
    fam = family("two-point")
    problem = fam.make(dict(fam.defaults(), lam=1e-6))
    return simulate(problem, ExactFlow(), t_eval=np.linspace(0.0, 60.0, 301))


def test_the_loss_floor_ends_the_window_at_the_last_time_above_it(two_point_run):
    tr = two_point_run
    claim = registry.get("S000-T1")  # window (0, oo)
    cut = above_loss_floor(claim, tr, 1e-3)
    ratio = tr.loss / tr.loss[0]
    end = float(cut.window[1])
    k = int(np.searchsorted(tr.t, end))
    assert tr.t[k] == end and ratio[k] >= 1e-3 and np.all(ratio[k + 1:] < 1e-3)
    # a window that ends by a formula keeps it, capped by the floor
    symbolic = above_loss_floor(registry.get("S001-L1"), tr, 1e-3)
    assert isinstance(symbolic.window[1], sp.Min)


def test_a_window_opened_by_an_event_is_fixed_on_the_run():
    """S001-T1b holds after t_2 (both outputs past 1/4): at t_2 its bound is L(t_2) itself,
    so the sharpest multiplier is exactly 1, attained at the event."""
    result = _declared("S001-T1b", budget=1, refine_budget=0)
    w = result.witness
    assert w is not None and w.decided, result.report()
    assert result.sharpest == pytest.approx(1.0, abs=result.error + 1e-12)
    claim = registry.get("S001-T1b")
    t_2 = event_time(claim, w.trajectory)
    assert w.searched.extreme.t == pytest.approx(t_2)
    # check places the window (t_2, oo) on the run itself, as tighten does
    from verify import check
    from verify.engine.verdict import Outcome
    assert w.relaxed == ""  # S001's hypotheses are all required: nothing relaxed
    plain = check(claim, w.trajectory)
    fixed = check(at_event(claim, w.trajectory), w.trajectory)
    assert fixed.outcome is not Outcome.INAPPLICABLE and "t_2" not in fixed.reason, fixed
    assert (plain.outcome, plain.margin, plain.where) == (fixed.outcome, fixed.margin,
                                                           fixed.where)


def test_an_overflowing_slope_does_not_make_the_error_unknown():
    """S001-L13 at eps = 1e-100 divides by ||w(0)||^2 ~ 1e-200: the round-off's slope
    overflows although every value is finite; the moved value bounds it instead."""
    result = _declared("S001-L13", budget=1, refine_budget=0)
    assert result.witness is not None and result.witness.decided, result.report()
    w = result.witness
    from verify.engine.check import evaluate
    part = result.tightenable.parts[w.searched.extreme.part]
    _, errors = evaluate(w.claim, w.trajectory, part.critical)
    k = int(np.searchsorted(w.trajectory.t, w.searched.extreme.t))
    assert 0 < np.broadcast_to(errors, w.trajectory.t.shape)[k] < np.inf


def test_a_witness_outside_a_relaxed_hypothesis_says_so():
    """CEL23-T6's witness at lam = 1e-30 does not meet Assumption 2 (log10 lam must be far
    below -1e6): the result, its text and the report's row say the witness is relaxed, so a
    violation there is not read as a counterexample to the theorem as stated."""
    from verify.report.tightness import _row

    result = _declared("CEL23-T6", budget=1, refine_budget=0)
    w = result.witness
    assert w is not None and w.decided, result.report()
    assert w.relaxed.startswith("relaxed (outside the paper's hypotheses): A2 fails")
    assert result.to_dict()["witness"]["relaxed"] == w.relaxed
    assert "the witness is relaxed" in result.report()
    row, _ = _row("CEL23-T6", result)
    assert row[-1].endswith("witness " + w.relaxed)


def test_a_float64_overflow_in_a_bound_is_infinite_not_an_error(two_point_run):
    """3/lam**(eps/2) at a huge eps: Python floats raise, float64 gives +inf (the bound is
    then met everywhere)."""
    from verify.engine.check import evaluate

    claim = registry.get("S002-L5")
    values, _ = evaluate(claim, two_point_run, 3 / S.lam ** sp.Float(6e8))
    assert np.all(np.isposinf(values))


def test_an_unknown_round_off_stays_unknown():
    """The moved value bounds only a slope that overflows: an input whose own round-off
    is unknown (inf) leaves the error unknown, whatever the expression does with it."""
    from verify.engine.run_context import _moved

    moved = _moved(lambda a: 1 / a["x"] ** 2, {"x": np.array([2.0, 3.0])}, "x",
                   np.array([1e-16, 1e-16]), np.array([0.25, 1 / 9]))
    assert np.all(np.isfinite(moved)) and np.all(moved < 1e-15)
    from verify.engine.run_context import RunContext
    fam = family("two-point")
    tr = simulate(fam.make(dict(fam.defaults(), lam=1e-6)), ExactFlow(),
                  t_eval=np.linspace(0.0, 20.0, 41))
    # the companion's outputs unknown from t = 10 on: the loss's error is unknown there
    comp = tr.companion
    comp.__dict__["outputs"] = np.where((comp.t >= 10)[:, None], np.nan, comp.outputs)
    values = RunContext(registry.get("S000-T1"), tr).values(1 / S.L(S.t) ** 2)
    assert np.all(np.isinf(values.error[tr.t >= 10]))
    # (the outputs' difference is read over two neighbours each side: 9 = 10 - 2 x 0.5)
    assert np.all(np.isfinite(values.error[tr.t < 9]))


def test_a_deviation_that_vanishes_is_decided_against_the_proved_value():
    """S002-F2's deviation from the logistic law is 0 on the flow up to round-off: its
    sharpest multiplier is 0 within its error, the witness is checked 2% of the proved
    value each way, and the slack is reported as a lower bound, not as a ratio of noise."""
    result = tighten_claim("S002-F2", budget=3, refine_budget=0)
    assert result.witness is not None and result.witness.decided, result.report()
    assert result.below_resolution and result.slack is None
    assert result.slack_at_least > 100
    assert result.witness.past == pytest.approx(result.sharpest - 0.02)  # 2% of proved 1
    d = result.to_dict()
    assert d["slack"] is None and d["slack_at_least"] == result.slack_at_least
    assert "at least" in result.report()


def test_a_claim_parameter_can_be_set_before_tightening():
    result = _declared("S002-L5", budget=2, refine_budget=0)
    assert result.witness is not None and result.witness.decided, result.report()
    assert "(eps = 1/40)" in result.tightenable.how
    assert "--claim-param eps=1/40" in result.replay()
    assert "--loss-floor 1e-08" in result.replay()
    with pytest.raises(TightenError, match="expected a number or a fraction"):
        tighten_claim("S002-L5", claim_params={"eps": "1/40+x"})
    with pytest.raises(TightenError, match="no parameter"):
        tighten_claim("S002-L5", claim_params={"zeta": "1"})


@pytest.mark.parametrize("args, message", [
    (["tighten", "S002-L5", "--claim-param", "eps=abc"], "--claim-param eps"),
    (["tighten", "S002-L5", "--claim-param", "eps"], "expected KEY=VALUE"),
    (["tighten", "L(t) <= C*L(0)", "--family", "two-point", "--claim-param", "eps=1"],
     "only for a catalogue claim"),
    (["tighten", "L(t) <= C*L(0)", "--family", "two-point", "--loss-floor", "2"],
     "--loss-floor 2.0"),
    (["tighten", "L(t) <= C*L(0)", "--family", "two-point", "--loss-floor", "1e-3",
      "--as-t-to-inf"], "it ends a window"),
])
def test_bad_settings_are_one_line_and_exit_2(args, message, capsys):
    assert main(args + ["--quiet", "--no-plot"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


def test_the_family_chooses_the_flow_coordinates():
    """S001's small-norm runs are integrated in log-norm coordinates (as its tests run
    them): at eps = 1e-5 the early-phase deviations are then known to well within 2%."""
    assert MethodSpec().for_family(family("separable")).coordinates == "lognorm"
    assert MethodSpec().for_family(family("two-point")).coordinates == "auto"
    assert MethodSpec("gd", 0.1).for_family(family("separable")).coordinates == "auto"
    result = _declared("S001-L4", budget=1, refine_budget=0)
    assert result.witness.decided and result.error <= 0.02 * result.sharpest


def test_an_instance_value_counts_every_time_of_its_window():
    """L(0) >= C L(t): the critical value L(0)/L(t) is huge and poorly known late in the
    run, but a check near C = 1 decides it there; the instance's interval is judged from
    the margins at that value, so the late times do not blur the sharp value 1."""
    result = tighten("L(0) >= C*L(t)", "two-point", params={"lam": "1e-6"}, budget=2,
                     refine_budget=0)
    e = result.witness.searched.extreme
    assert e.t == 0.0 and result.sharpest == pytest.approx(1.0, abs=result.error)
    assert result.error < 1e-6
    assert result.witness.decided


def test_the_resolution_scale_is_continuous_and_a_statement_keeps_its_own():
    """For a claim, 2% of the larger of the value and the proved value (no jump where the
    value crosses its error); for a user's statement, of the value itself."""
    assert move_scale(1e-3, 1.0) == move_scale(0.9e-3, 1.0) == 1.0
    assert move_scale(2.5, 1.0) == 2.5 and move_scale(-3.0, 1.0) == 3.0
    assert move_scale(1e-6, None) == 1e-6 and move_scale(0.0, None) == 1.0


def test_the_witness_is_moved_2_percent_of_a_resolved_value():
    """A value known to 2% of itself is checked 2% of itself each way (S002-T1's c_T at
    1.29 against a proved 3: by 0.026, not 0.06); a value below resolution, 2% of the
    proved value."""
    assert witness_move(1.29, 3.6e-6, 3.0) == pytest.approx(0.02 * 1.29)
    assert witness_move(1.3e-6, 1.3e-6, 0.1) == pytest.approx(0.02 * 0.1)
    assert witness_move(0.0, 0.0, None) == pytest.approx(0.02)
    result = tighten_claim("S002-T1", "two-point", param="c_T", budget=2, refine_budget=0)
    assert result.witness.decided and not result.below_resolution
    assert result.witness.back - result.sharpest == pytest.approx(0.02 * result.sharpest)
