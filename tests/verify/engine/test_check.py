"""check(): the four outcomes, and that a check can fail."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import sympy as sp

import theory
from numerics import ExactFlow, Status, generators, simulate
from papers.s002.evidence import s002_trajectory
from theory.claim import Claim, Kind, Provenance, Source
from theory.symbols import Balance, L, t
from verify import CheckError, Outcome, check
from verify.engine.evidence import Estimate, Grid
from verify.engine.verdict import ALL_NAMED, WITHIN_ERROR

SOURCE = Source("S002", "test", Provenance.DERIVED)


@pytest.fixture(scope="module")
def toy():
    return s002_trajectory(generators.two_point(seed=0))


def _pointwise(statement, **kw):
    return Claim(id="TEST", title="test", kind=Kind.POINTWISE, source=SOURCE,
                 statement=statement, **kw)


def test_monotone_loss_holds_and_halved_bound_is_violated(toy):
    # on the first plateau L(t) and L(0) agree to the last bit, but L(t) - L(0) is measured
    # from the outputs' differences: decided at every time but t = 0 (L(0) <= L(0) exactly:
    # a margin of 0, named as undecidable, not counted as HOLDS)
    whole = check(_pointwise(sp.Le(L(t), L(0))), toy)
    assert whole.outcome is Outcome.HOLDS, str(whole)
    assert whole.unresolved.startswith("undecidable in float64 at 1 of 4001 saved times "
                                       "(t = 0)"), whole.unresolved
    after = _pointwise(sp.Le(L(t), L(0)), window=(sp.Integer(20), sp.oo))
    assert check(after, toy).outcome is Outcome.HOLDS
    bad = check(_pointwise(sp.Le(L(t), L(0) / 2)), toy)
    assert bad.outcome is Outcome.VIOLATED
    assert bad.margin < 0 and bad.where.t == pytest.approx(0.0)


def test_margin_within_numerical_error_is_inconclusive(toy):
    # Balance(t) <= 0: true (a_j^2 - |w_j|^2 is conserved), but the run's drift is its own
    # numerical error (or, where the engine conserves it to round-off, within the rounding
    # of the formula itself: float64's resolution), so no run decides it; re-run up the
    # ladder, it says why
    claim = _pointwise(sp.Le(Balance(t), 0))
    undecidable = (WITHIN_ERROR, ALL_NAMED)
    once = check(claim, toy, escalate=0)
    assert once.outcome is Outcome.INCONCLUSIVE and once.reason.startswith(undecidable)
    ladder = check(claim, toy)
    assert ladder.outcome is Outcome.INCONCLUSIVE and ladder.reason.startswith(undecidable)
    assert ladder.accuracy.startswith("the exact flow at rtol 1e-13")


def test_a_sum_that_simplifies_is_decided(toy):
    # L(t) <= L(t)(1 + 1e-14) is 1e-14 L(t) >= 0 once simplified: true, and decided
    claim = _pointwise(sp.Le(L(t), L(t) * (1 + sp.Rational(1, 10**14))))
    assert check(claim, toy).outcome is Outcome.HOLDS


def test_window_restricts_the_times(toy):
    # the loss is below 1e-3 L(0) only late: checked on [40, oo) it holds, on [0, oo) not
    claim = _pointwise(sp.Le(L(t), L(0) / 1000))
    assert check(claim, toy).outcome is Outcome.VIOLATED
    late = dataclasses.replace(claim, window=(sp.Integer(40), sp.oo))
    assert check(late, toy).outcome is Outcome.HOLDS


def test_wrong_parametrization_is_inapplicable():
    prob = generators.two_point(seed=0, p=10)
    mf = prob.with_initialisation(prob.W0, prob.a0, parametrization="mean_field")
    traj = simulate(mf, ExactFlow(), np.linspace(0, 5, 11))
    verdict = check(theory.get("S002-L3"), traj)
    assert verdict.outcome is Outcome.INAPPLICABLE and "parametrisation" in verdict.reason


def test_failed_assumption_is_inapplicable_with_reason():
    prob = generators.two_point(seed=0, p=10)
    unbalanced = prob.with_initialisation(prob.W0, 2 * prob.a0)
    traj = simulate(unbalanced, ExactFlow(), np.linspace(0, 5, 11))
    verdict = check(theory.get("S002-L1"), traj)
    assert verdict.outcome is Outcome.INAPPLICABLE and "balanced" in verdict.reason


def test_untrustworthy_run_is_never_holds(toy):
    broken = dataclasses.replace(toy, status=Status.MAX_STEPS, message="cut short")
    verdict = check(theory.get("S002-T1"), broken)
    assert verdict.outcome is Outcome.INCONCLUSIVE and "MAX_STEPS" in verdict.reason
    nan = dataclasses.replace(toy, a=np.full_like(toy.a, np.nan))
    assert check(theory.get("S002-L1"), nan).outcome is Outcome.INCONCLUSIVE


def test_without_error_estimate_event_times_are_inconclusive():
    prob = generators.two_point(seed=0)
    t_eval = np.linspace(0, 90, 901)
    traj = simulate(prob, ExactFlow(error_check=None), t_eval)
    assert check(theory.get("S002-T1"), traj).outcome is Outcome.INCONCLUSIVE


def test_run_too_short_for_the_bound_is_inconclusive():
    prob = generators.two_point(seed=0)
    traj = simulate(prob, ExactFlow(), np.linspace(0, 10, 101))
    verdict = check(theory.get("S002-T1"), traj)
    assert verdict.outcome is Outcome.INCONCLUSIVE and "before the bound" in verdict.reason


def test_list_evidence_combines_worst_first(toy):
    short = simulate(generators.two_point(seed=0), ExactFlow(), np.linspace(0, 10, 101))
    combined = check(theory.get("S002-T1"), [toy, short])
    assert combined.outcome is Outcome.INCONCLUSIVE
    assert combined.counts == {Outcome.HOLDS: 1, Outcome.VIOLATED: 0,
                               Outcome.INAPPLICABLE: 0, Outcome.INCONCLUSIVE: 1}
    assert all(type(k) is Outcome for k in combined.counts)
    # a string enum: the outcome's name reads the same count
    assert combined.counts["HOLDS"] == combined.counts[Outcome.HOLDS] == 1
    # the numerical error is `error`; the old name still reads it, with a warning
    with pytest.warns(DeprecationWarning, match="Verdict.error"):
        assert combined.tolerance == combined.error


def test_bad_evidence_is_an_error():
    with pytest.raises(CheckError, match="evidence"):
        check(theory.get("S002-L1"), 42)


def test_gradient_descent_is_no_evidence_for_a_flow_identity():
    """THEORY CF-2 / N-1: descent erodes balancedness by O(lr), and its distance to the
    flow is O(lr) too, so a descent run can neither confirm nor refute S002-L1."""
    from numerics import GradientDescent

    prob = generators.two_point(seed=0, p=10, lam=0.3)
    t_eval = np.linspace(0, 40, 81)
    gd = simulate(prob, GradientDescent(lr=0.25), t_eval)
    assert gd.conservation_drift > 1e-2
    verdict = check(theory.get("S002-L1"), gd)
    assert verdict.outcome is Outcome.INCONCLUSIVE, str(verdict)
    flow = simulate(prob, ExactFlow(), t_eval)
    assert flow.conservation_drift < 1e-9
    assert check(theory.get("S002-L1"), flow).outcome is Outcome.HOLDS


def test_states_after_an_early_stop_are_not_evidence():
    from numerics import GradientDescent

    prob = generators.two_point(seed=0, p=10, lam=0.3)
    t_eval = np.linspace(0, 200, 401)
    gd = simulate(prob, GradientDescent(lr=0.01, stop_loss=1e-3), t_eval)
    assert gd.stop_time is not None and gd.stop_time < 200
    # "L <= 1e-4 L(0) by t = 150" cannot be decided from a run frozen at L = 1e-3
    claim = theory.get("S002-T1").with_parameters(delta=sp.Rational(1, 10**4))
    verdict = check(claim, gd)
    assert verdict.outcome is not Outcome.HOLDS, str(verdict)


# -- claims in free variables (Grid) and limits read off a run (Estimate) ----------------------
x_ = sp.Symbol("x", real=True)


def _identity(statement, **kw):
    return Claim(id="TEST", title="test", kind=Kind.IDENTITY, source=SOURCE,
                 statement=statement, **kw)


def test_grid_decides_and_measures_the_error_of_float64():
    grid = Grid({"x": np.linspace(0.5, 2.0, 301)})
    assert check(_identity(sp.Le(sp.exp(x_) - 1, x_ * sp.exp(x_))), grid).outcome \
        is Outcome.HOLDS
    bad = check(_identity(sp.Le(sp.exp(x_) - 1, x_)), grid)  # false for every x != 0
    assert bad.outcome is Outcome.VIOLATED and bad.where.instance == "x=2"
    # cosh^2 - sinh^2 = 1 holds in reals; at x = 20 float64 cancels away every digit. The
    # measured error (float64 against 40 digits) covers that, so the identity is not refuted
    far = Grid({"x": [20.0, 21.0]})
    eq = check(_identity(sp.Eq(sp.cosh(x_) ** 2 - sp.sinh(x_) ** 2, 1)), far)
    assert eq.outcome is Outcome.HOLDS and eq.error >= 1.0


def test_grid_assumption_failing_at_a_point_is_inapplicable():
    claim = _identity(sp.Le(x_, 1), setting=(
        theory.claim.Assumption("small", sp.Le(sp.Abs(x_), 1), "|x| <= 1"),))
    verdict = check(claim, Grid({"x": [0.5, 2.0]}))
    assert verdict.outcome is Outcome.INAPPLICABLE and "x=2" in verdict.reason
    with pytest.raises(CheckError, match="no values for x"):
        check(claim, Grid({"y": [0.5]}))


def test_estimate_error_decides_between_holds_and_violated(toy):
    claim = _identity(sp.Eq(sp.Symbol("MuInf", nonnegative=True), 1))
    near = check(claim, Estimate(toy, "MuInf", 1.01, 0.02, t=1.0))
    assert near.outcome is Outcome.HOLDS and near.error == pytest.approx(0.02)
    far = check(claim, Estimate(toy, "MuInf", 1.01, 0.001, t=1.0))
    assert far.outcome is Outcome.VIOLATED and far.margin == pytest.approx(-0.01)
    lower = _identity(sp.Ge(sp.Symbol("MuInf", nonnegative=True), 1))
    assert check(lower, Estimate(toy, "MuInf", 1.01, 0.02, t=1.0)).outcome \
        is Outcome.INCONCLUSIVE


def test_an_absolute_value_at_exactly_zero_keeps_a_finite_error():
    """S002-F2's |2 D_+ u (1 - u/U_+) - u'| evaluated to exactly 0 at some saved times; sympy's
    derivative of |g| with respect to u' there reads (-g) sign(g)/g = 0/0, and the round-off
    of u' propagated as nan (the check then said INCONCLUSIVE). The subgradient bound
    gives slope 1 there."""
    from theory import registry
    from verify.engine.run_context import _slope, flatten

    claim = registry.get("S002-F2")
    flat, _ = flatten(claim.substituted(claim.statement.lhs))
    symbols = sorted(flat.free_symbols, key=lambda q: q.name)
    names = {q.name: q for q in symbols}
    u = np.array([0.1, 0.2, 0.3])
    args = {"UPlus__t": u, "CapPlus": 0.5, "Dplus": 0.25, "t": np.zeros(3)}
    args["dUPlus__t"] = 2 * 0.25 * u * (1 - u / 0.5) + np.array([0.0, 1e-3, 0.0])
    g = 2 * 0.25 * u * (1 - u / 0.5) - args["dUPlus__t"]
    assert g[0] == 0.0 and g[1] != 0.0
    slope = _slope(flat, names["dUPlus__t"], symbols, args, 3)
    assert np.all(np.isfinite(slope)) and slope == pytest.approx([1.0, 1.0, 1.0])


def test_round_off_through_an_absolute_value_at_its_kink_is_not_zero():
    """d|a - b|/da is sign(0) = 0 for sympy at a = b; the round-off of a still reaches |a - b|
    (the subgradient bound, 1), here and with two |.| at once."""
    from verify.engine.run_context import _slope

    a, b, c = sp.symbols("a b c", real=True)
    args = {"a": np.array([1.0, 2.0]), "b": np.array([1.0, 1.5]), "c": np.array([1.0, 1.0])}
    one = _slope(sp.Abs(a - b), a, [a, b], args, 2)
    assert one == pytest.approx([1.0, 1.0])
    two = _slope(sp.Abs(a - b) + sp.Abs(a - c), a, [a, b, c], args, 2)
    assert two == pytest.approx([2.0, 2.0])


# -- a window that opens at an event ------------------------------------------------------------
def _after_event(level):
    """"after the loss first falls below level x L(0), it stays below it" (window t >= t_conv)."""
    from theory.symbols import t_conv
    return Claim(id="after-event", title="L stays below its level once there",
                 kind=Kind.POINTWISE, source=Source("test", "event window", Provenance.INFERRED),
                 statement=sp.Le(L(t), level * L(0)), event=sp.Le(L(t), level * L(0)),
                 event_time=t_conv, window=(t_conv, sp.oo), measures="L(t)")


def test_check_fixes_a_window_that_opens_at_an_event():
    problem = generators.two_point(p=10, lam=1e-3, seed=0)
    tr = simulate(problem, ExactFlow(), np.linspace(0, 40, 401))
    verdict = check(_after_event(0.5), tr)
    assert verdict.outcome is Outcome.HOLDS, str(verdict)  # no "does not define t_conv"
    assert verdict.where.t >= float(tr.t[np.argmax(tr.loss <= 0.5 * tr.loss[0])])
    never = check(_after_event(1e-300), tr)
    assert never.outcome is Outcome.INCONCLUSIVE and "did not happen" in never.reason


def test_an_event_that_holds_at_the_start_happens_at_zero_with_no_grid_error():
    """The event's first time is the first saved time t = 0, where both runs start from the
    same state: no earlier saved time it could have happened after, so no grid spacing in
    its error (a widely spaced grid once made this 1e3 and the verdict INCONCLUSIVE)."""
    from theory.symbols import t_conv
    claim = Claim(id="event-at-0", title="the loss is below twice its start at once",
                  kind=Kind.EVENT_TIME, source=Source("test", "event", Provenance.INFERRED),
                  statement=sp.Le(t_conv, 1), event=sp.Le(L(t), 2 * L(0)), event_time=t_conv,
                  measures="L(t)")
    t_eval = np.concatenate([[0.0], np.geomspace(1.0, 1e4, 40)])
    tr = simulate(generators.two_point(p=10, lam=1e-3, seed=0), ExactFlow(), t_eval)
    verdict = check(claim, tr)
    assert verdict.outcome is Outcome.HOLDS, str(verdict)
    assert verdict.observed == 0.0 and verdict.error == 0.0
    tight = check(dataclasses.replace(claim, statement=sp.Le(t_conv, sp.Rational(1, 1000))), tr)
    assert tight.outcome is Outcome.HOLDS and tight.margin == 1e-3, str(tight)


def test_an_instant_claim_on_a_run_built_in_python_is_decided():
    """Issue 52: S002-L2 (at t = t_1) on a run simulated from Python, the claim's time
    (printed to 4 digits) added to ``t_eval``, stayed "no saved time inside the claim's
    window": a saved time within the run's tolerance of it counts as it, and otherwise the
    margin is interpolated between the two saved times around it, with its change between
    them counted in the error."""
    from verify.engine.check_run import instance_scalar

    problem = generators.orthonormal(n=4, d=4, p=60, lam=1e-12, seed=0)
    l2 = theory.get("S002-L2")
    grid = np.linspace(0, 50, 51)
    at = instance_scalar(l2, simulate(problem, ExactFlow(), grid), l2.window[0])
    for t_eval, interpolated in ((np.sort(np.append(grid, at)), False),
                                 (np.sort(np.append(grid, float(f"{at:.4g}"))), True)):
        verdict = check(l2, simulate(problem, ExactFlow(), t_eval))
        assert verdict.outcome in (Outcome.HOLDS, Outcome.VIOLATED), verdict.reason
        assert "no saved time" not in verdict.reason
        assert ("interpolated between the saved times" in verdict.reason) == interpolated
        assert verdict.where.t == pytest.approx(at)


def test_an_escalation_rerun_is_kept_in_the_runners_store(toy, tmp_path):
    """The finer runs a check escalates to go through the process's runner: with a store
    (``pytest verify --verify-store``, the paper profile's default), they are kept there as
    they finish and read back by the next check, so that a stopped run does not redo them."""
    from verify.engine import escalation
    from verify.running import runs

    claim = _pointwise(sp.Le(Balance(t), 0))  # inconclusive: escalated up the ladder
    escalation._CACHE.clear()
    runner = runs.Runner(runs.RunStore(tmp_path))
    with runs.using(runner):
        first = check(claim, toy)
    assert first.accuracy.startswith("the exact flow at rtol")
    assert runner.computed >= 1 and len(runner.store.keys()) == runner.computed
    escalation._CACHE.clear()
    again = runs.Runner(runs.RunStore(tmp_path))
    with runs.using(again):
        second = check(claim, toy)
    assert again.computed == 0 and again.loaded == runner.computed
    assert (second.outcome, second.margin) == (first.outcome, first.margin)
