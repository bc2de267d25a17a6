"""PROBABILITY claims on samples of instances, SCALING claims on measured series."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import theory
from numerics import Problem
from verify import Outcome, check
from verify.engine.evidence import Sample, ScalingData
from verify.engine.scaling import FitError, binomial_interval, fit_power_law


def _key_sample(count: int, p: int, seed: int = 0) -> Sample:
    """Orthonormal data with fixed labels (n_+ = 2, n_- = 1), balanced Gaussian init."""
    rng = np.random.default_rng(seed)
    X, y = np.eye(3), np.array([1.0, 0.8, -0.6])
    problems = []
    for _ in range(count):
        W0 = rng.standard_normal((p, 3))
        a0 = rng.choice([-1.0, 1.0], size=p) * np.linalg.norm(W0, axis=1)
        problems.append(Problem(X=X, y=y, W0=W0, a0=a0, init_scale=1.0))
    return Sample(problems)


def test_key_neuron_probability_matches_its_formula():
    claim = theory.get("S002-A3")  # P(S_{+,1} non-empty) = 1 - (1 - 2^-(n_+ + 1))^p, same for -
    verdict = check(claim, _key_sample(600, p=4))
    assert verdict.outcome is Outcome.HOLDS, str(verdict)


def test_an_identitys_error_is_its_spread_over_the_intervals():
    """An identity that HOLDS has margin -|deviation| at the estimate; its error is how far
    the difference moves over the confidence box (positive, and covering the deviation),
    not point - worst, which is negative when the box contains 0."""
    verdict = check(theory.get("S002-A3"), _key_sample(600, p=4))
    assert verdict.outcome is Outcome.HOLDS
    assert verdict.margin <= 0 < verdict.error
    assert -verdict.margin <= verdict.error < 0.2


def test_wrong_probability_formula_is_caught():
    claim = theory.get("S002-A3")
    n_plus, p = theory.symbols.VOCABULARY["n_plus"].obj, theory.symbols.p
    wrong = claim.variant("one-half-per-sample", statement=sp.Eq(
        theory.symbols.VOCABULARY["PKeyPlus"].obj, 1 - (1 - 2 ** (-n_plus)) ** p))
    assert check(wrong, _key_sample(600, p=4)).outcome is Outcome.VIOLATED


def test_small_sample_is_inconclusive():
    assert check(theory.get("S002-A3"), _key_sample(5, p=4)).outcome is Outcome.INCONCLUSIVE


def test_power_law_fit_recovers_the_exponent():
    rng = np.random.default_rng(1)
    x = np.repeat([100, 200, 400, 800, 1600], 10)
    y = 3.0 * x**-0.5 * np.exp(0.05 * rng.standard_normal(x.size))
    fit = fit_power_law(x, y)
    assert fit.contains(-0.5) and fit.half_width < 0.05 and fit.method == "bootstrap"
    single = fit_power_law([10, 20, 40, 80], [1.0, 2.1, 3.9, 8.2])
    assert single.method == "t-interval" and single.contains(1.0)


def _series(exponent: float, seed: int = 2) -> ScalingData:
    rng = np.random.default_rng(seed)
    n = np.repeat([20, 40, 80, 160, 320], 8)
    d = 5.7 * n**exponent * np.exp(0.05 * rng.standard_normal(n.size))
    return ScalingData(variable="n", x=n, y=d, quantity="DNeeded")


def test_scaling_claim_holds_and_shifted_exponent_is_violated():
    claim = theory.get("S000-C1")  # d_needed ~ K n^2
    assert check(claim, _series(2.0)).outcome is Outcome.HOLDS
    assert check(claim, _series(2.25)).outcome is Outcome.VIOLATED
    noisy = ScalingData(variable="n", x=[20, 40, 80], y=[1.0, 50.0, 3.0], quantity="DNeeded")
    assert check(claim, noisy).outcome is Outcome.INCONCLUSIVE


ETA4 = np.array([0.02, 0.01, 0.005, 0.0025])
ETA6 = 0.02 / 2.0 ** np.arange(6)


def _step_series(y, eta=ETA4, toward: str | None = "0", order: float = 1.0) -> ScalingData:
    return ScalingData("eta", eta, y, "GDPLGap", toward=toward, correction_order=order)


def test_a_leading_order_law_is_fitted_with_its_next_order_correction():
    """"gap = O(eta) as eta -> 0" (S000-F4) on deterministic series: an O(eta^2) term tilts a
    plain log-log fit off 1 with an interval that excludes 1 (VIOLATED, a wrong answer);
    fitted to leading order (``toward="0"``) the exponent is 1 again, also with six values
    and a remainder of the order after (which the interval's model error must cover),
    while a law of another leading order is still caught."""
    claim = theory.get("S000-F4")  # GDPLGap = K eta
    assert check(claim, _step_series(0.6 * ETA4 * (1 - 0.5 * ETA4), toward=None)).outcome \
        is Outcome.VIOLATED
    for eta in (ETA4, ETA6):
        for tilt, next_order in ((-0.5, 0.0), (0.3, 0.0), (0.3, 50.0)):
            v = check(claim, _step_series(0.6 * eta * (1 + tilt * eta + next_order * eta**2),
                                          eta))
            assert v.outcome is Outcome.HOLDS, str(v)
            assert "to leading order as eta -> 0" in v.reason
        for exponent in (0.95, 1.02, 1.1):
            v = check(claim, _step_series(0.6 * eta**exponent * (1 - 0.5 * eta), eta))
            assert v.outcome is Outcome.VIOLATED, (exponent, str(v))
    # a correction of half order, declared so, is fitted as such
    half = ETA6 + 3 * ETA6**1.5
    assert check(claim, _step_series(half, ETA6, order=0.5)).outcome is Outcome.HOLDS


def test_a_leading_order_fit_with_a_large_correction_decides_nothing():
    """eta^0.9 (1 + 30 eta): the fitted correction reaches 0.6 over the range, so the fit
    cannot tell the leading exponent (it fits 0.94); the check says so instead of HOLDS."""
    claim = theory.get("S000-F4")
    v = check(claim, _step_series(ETA4**0.9 * (1 + 30 * ETA4)))
    assert v.outcome is Outcome.INCONCLUSIVE and "not small" in v.reason, str(v)
    fit = fit_power_law(ETA4, 0.6 * ETA4**0.75, correction=ETA4)
    assert fit.method == "corrected fit" and fit.contains(0.75)
    with pytest.raises(FitError, match="not independent"):
        fit_power_law(ETA4, ETA4, correction=np.ones(4))
    with pytest.raises(ValueError, match="toward"):
        ScalingData("eta", [1.0], [1.0], "GDPLGap", toward="zero")
    with pytest.raises(ValueError, match="correction_order"):
        ScalingData("eta", [1.0], [1.0], "GDPLGap", toward="0", correction_order=0)


def test_binomial_interval_is_exact_at_the_edges():
    assert binomial_interval(0, 10)[0] == 0.0 and binomial_interval(10, 10)[1] == 1.0
    lo, hi = binomial_interval(50, 100)
    assert lo == pytest.approx(0.398, abs=2e-3) and hi == pytest.approx(0.602, abs=2e-3)
