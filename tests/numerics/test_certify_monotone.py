"""Lemma 9 (numerics.certify.monotone): the loss does not increase along the certified flow,
so a window claim bounding the loss by a side that does not decrease in t is decided from a
boundary of the tube to any horizon.

The instance is the worst-margin one of ``gfverify conjecture "L(t) <= 1.5*L(0)" --family
two-point`` (p = 10, lam = 1e-20, seed 0): its tube stops at t = 75.8 of a 296.6 horizon
(the radius grows e-fold per 2.5 time units after the saddle), so the tube alone leaves the
claim UNCERTIFIED; the lemma proves it.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from numerics import ExactFlow, Problem, generators, network, simulate
from numerics.certify import certify, check_certificate
from numerics.certify import field as field_mod
from numerics.certify.balls import Ball
from numerics.certify.claims import Context, decide
from numerics.certify.instance import Instance
from numerics.certify.monotone import (
    NotApplicable,
    field_mismatch,
    gradient_flow,
    loss_gradient,
)
from numerics.certify.quantities import loss as quantities_loss
from verify.conjecture.statement import statement_of
from verify.engine.certified import CertifiedOutcome, certify_claim
from verify.engine.certified.spec import claim_spec
from verify.language.measures import measure

HORIZON = 296.567239214152  # the conjecture's horizon on this instance


@pytest.fixture(scope="module")
def worst():
    """The search's worst-margin instance, its run (101 saved times) and its tube."""
    problem = generators.two_point(p=10, lam=1e-20, seed=0)
    run = simulate(problem, ExactFlow(), np.linspace(0.0, HORIZON, 101))
    return run, certify(run, max_saved=101)


def _spec(text: str, run, window=None):
    claim = (statement_of(text).claim("window", window, float(run.t[-1]))
             if window is not None else
             statement_of(text).claim("for_all_t", None, float(run.t[-1]), float(run.t[1])))
    return claim, claim_spec(claim, float(run.t[-1]))


def test_the_tube_alone_stops_before_the_horizon(worst):
    run, tube = worst
    assert run.problem.content_hash == "6f3ac7b7ea3534b6"
    assert 60.0 < tube.end < 100.0 and "max_radius" in tube.why


def test_the_worst_instance_is_proved_by_the_lemma(worst, tmp_path):
    """On the old code this was UNCERTIFIED: 'the tube is certified to t=75.8264, the
    window reaches 296.567'."""
    run, tube = worst
    claim, spec = _spec("L(t) <= 1.5*L(0)", run)
    cert = certify_claim(claim, run, tube=tube, file=tmp_path / "tail.npz")
    assert cert.outcome is CertifiedOutcome.PROVED, cert.reason
    assert "Lemma 9" in cert.reason
    got = check_certificate(tmp_path / "tail.npz")
    assert got.verdict.outcome == "PROVED" and got.verdict.tail is not None
    tail = got.verdict.tail
    # L(0) = 1/2 exactly enclosed; 1.5 L(0) = 3/4 from then on
    assert tail.start == 0.0 and tail.loss[0] <= 0.5 <= tail.loss[1]
    assert tail.small <= 0.5 + 1e-12 and tail.big >= 0.75 - 1e-12
    assert "theta' = -kappa grad L with kappa = 1" in tail.flow


def test_a_claim_at_a_single_time_past_the_tube(worst):
    run, tube = worst
    _, spec = _spec("L(t) <= 0.75", run, window=(250.0, 250.0))
    got = decide(spec, tube)
    assert got.outcome == "PROVED" and got.tail is not None and got.tail.start <= 250.0


def test_the_lemma_starts_where_the_tube_shows_the_loss_low_enough(worst):
    """L(t) <= 0.6 L(0) (0.3) fails before the escape (L = 1/2): from t = 45 on, where the
    float run has L = 1/4, it is proved from a boundary inside the tube, the boxes before it
    holding the relation."""
    run, tube = worst
    _, spec = _spec("L(t) <= 0.6*L(0)", run, window=(45.0, math.inf))
    got = decide(spec, tube)
    assert got.outcome == "PROVED", got.reason
    assert 30.0 < got.tail.start < tube.end
    assert got.tail.loss[1] <= 0.3
    # the same claim from t = 0 fails at the start: DISPROVED, the lemma not asked
    _, early = _spec("L(t) <= 0.6*L(0)", run)
    assert decide(early, tube).outcome == "DISPROVED"


@pytest.mark.parametrize("text", [
    "L(t) <= 1.5*L(0) + t",          # a right side growing in t
    "2*L(t) - t <= 1.5*L(0)",        # a left side falling in t
    "1.5*L(0) >= L(t)",              # written the other way round
    "L(t) < 0.75",
    "L(t) <= max(0.75, exp(t - 1000))",
])
def test_the_lemma_applies_to(text, worst):
    run, tube = worst
    _, spec = _spec(text, run)
    got = decide(spec, tube)
    assert got.outcome == "PROVED" and got.tail is not None, got.reason


@pytest.mark.parametrize(("text", "why"), [
    ("L(t) <= 1.5*L(0)*exp(-t/1000)", "decreases in t"),         # a right side falling
    ("L(t) + t <= 1.5*L(0) + 300", "decreases in t"),            # a left side growing
    ("L(0) <= 2*L(t) + 1", "a falling L does not help"),         # L on the larger side
    ("L(t)**2 <= 1.5*L(0)**2", "whose trend is not certain"),    # a power of L(t)
    ("L(t)*NormW(t) <= 10", "other than L(t)"),                  # another quantity of t
    ("L(t) <= 0.75 + R(t)", "other than L(t)"),                  # another quantity
])
def test_the_lemma_does_not_apply_to(text, why, worst):
    run, tube = worst
    _, spec = _spec(text, run)
    got = decide(spec, tube)
    assert got.outcome == "UNCERTIFIED" and got.tail is None
    assert why in got.reason, got.reason


def test_a_claim_about_another_quantity_stays_uncertified(worst):
    """R(t) <= 1.5 R(0) holds on the run too; the lemma is about L alone."""
    run, tube = worst
    _, spec = _spec("R(t) <= 1.5*R(0)", run)
    got = decide(spec, tube)
    assert got.outcome == "UNCERTIFIED" and "the tube is certified to" in got.reason
    assert "monotonicity" not in got.reason


# -- the flow the lemma reads ------------------------------------------------------------
def _torch_loss(problem: Problem, W, a):
    X = torch.tensor(problem.X)
    y = torch.tensor(problem.y)
    z = W @ X.T
    slope = float(getattr(problem.activation, "slope", 0.0))
    sigma = torch.where(z > 0, z, slope * z)
    s = 1.0 / problem.p if problem.parametrization == "mean_field" else 1.0
    h = s * (a[:, None] * sigma).sum(dim=0)
    return problem.loss_scale / (2 * problem.n) * ((h - y) ** 2).sum()


@pytest.mark.parametrize("parametrization", ["standard", "mean_field"])
@pytest.mark.parametrize("train", ["both", "first", "second"])
@pytest.mark.parametrize("slope", [0.0, 0.2])
def test_the_certified_field_is_minus_kappa_grad_L(parametrization, train, slope):
    """The field every tube is verified against is -kappa M grad L for the L the claims
    read (quantities.loss), checked against torch's autograd of L's formula."""
    rng = np.random.default_rng(7)
    n, d, p = 5, 3, 4
    kw = {} if slope == 0.0 else {"activation": f"leaky:{slope}"}
    problem = Problem(X=rng.normal(size=(n, d)), y=rng.normal(size=n),
                      W0=rng.normal(size=(p, d)), a0=rng.normal(size=p),
                      parametrization=parametrization, train=train, loss_scale=2.0, **kw)
    inst = Instance.of_problem(problem)
    shape = inst.shape()
    kappa, text = gradient_flow(inst)
    assert kappa == (p if parametrization == "mean_field" else 1)
    W = torch.tensor(problem.W0, requires_grad=True)
    a = torch.tensor(problem.a0, requires_grad=True)
    _torch_loss(problem, W, a).backward()
    z = Ball.exact(problem.W0) @ Ball.exact(problem.X.T)
    D = field_mod.slopes(shape, z.lower() > 0, z.upper() < 0)
    F = field_mod.field_along(shape, Ball.exact(problem.W0).reshape(1, p, d),
                              Ball.exact(problem.a0).reshape(1, p), D)
    want_W = 0.0 if train == "second" else -kappa * W.grad.numpy()
    want_a = 0.0 if train == "first" else -kappa * a.grad.numpy()
    np.testing.assert_allclose(F.dW.mid[0], want_W, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(F.da.mid[0], want_a, rtol=1e-12, atol=1e-14)
    gW, ga = loss_gradient(shape, Ball.exact(problem.W0), Ball.exact(problem.a0), D)
    np.testing.assert_allclose(gW.mid, W.grad.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ga.mid, a.grad.numpy(), rtol=1e-12, atol=1e-14)
    assert field_mismatch(shape, inst.theta0, kappa) == ""
    # the lemma reads no other kappa: a field twice as fast is refused
    assert "not -kappa grad L" in field_mismatch(shape, inst.theta0, 2.0 * kappa)


def test_a_model_outside_the_table_is_not_a_gradient_flow():
    odd = SimpleNamespace(parametrization="classification", train="both", p=3)
    with pytest.raises(NotApplicable, match="not a gradient flow of L"):
        gradient_flow(odd)
    odd = SimpleNamespace(parametrization="standard", train="alternating", p=3)
    with pytest.raises(NotApplicable, match="not a gradient flow of L"):
        gradient_flow(odd)


@pytest.mark.parametrize("model", ["time scaled by 2", "another loss's gradient"])
def test_a_field_that_is_not_minus_grad_L_keeps_the_tail_uncertified(model, worst,
                                                                       monkeypatch):
    """Were the tube's certified field not -kappa grad L of the claim's L (a rescaled
    time, the gradient flow of another loss), the lemma must not decide the tail."""
    run, tube = worst
    _, spec = _spec("L(t) <= 1.5*L(0)", run)
    real = field_mod.field_along

    def other(shape, W, a, D, z=None, derivatives=True):
        if model == "time scaled by 2":
            F = real(shape, W, a, D, z, derivatives)
            if derivatives:
                F.dW, F.da = F.dW.scale(2.0), F.da.scale(2.0)
            return F
        moved = field_mod.Shape(shape.X, shape.y + 0.5, shape.p, shape.loss_scale,
                                shape.mean_field, shape.slope, shape.train)
        return real(moved, W, a, D, None, derivatives)

    monkeypatch.setattr(field_mod, "field_along", other)
    got = decide(spec, tube)
    assert got.outcome == "UNCERTIFIED" and got.tail is None
    assert "not -kappa grad L" in got.reason


# -- the float and the certified L agree ---------------------------------------------------
@pytest.mark.parametrize("problem", [
    generators.two_point(p=10, lam=1e-20, seed=0),
    generators.two_point(p=10, lam=1e-3, seed=2, loss_scale=2.0),
    Problem(X=np.eye(2), y=np.array([1.0, -0.8]), W0=np.array([[0.3, 0.1], [0.2, -0.4],
                                                                [-0.1, 0.2]]),
            a0=np.array([0.2, -0.3, 0.1]), parametrization="mean_field", loss_scale=0.5),
], ids=["worst", "loss-scale-2", "mean-field"])
def test_the_float_L_is_the_certified_L(problem):
    """The conjecture's float L(t) (`verify.language.measures`: the Problem's loss with its
    prefactor) and the certificate's L (`quantities.loss`, the L of Lemma 9) are one
    function: on the tube's exact centre states they agree to rounding, and at every saved
    time the tube reaches the run's float L lies in the certified enclosure widened by its
    own error estimate."""
    run = simulate(problem, ExactFlow(), np.linspace(0.0, 30.0, 31))
    tube = certify(run)
    series = measure(run, "L")
    floats = series.values
    err = series.roundoff + np.abs(floats - run.companion.loss)
    claim = statement_of("L(t) <= L(0)").claim("for_all_t", None, 30.0, float(run.t[1]))
    ctx = Context(claim_spec(claim, 30.0), tube)
    shape = tube.instance.shape()
    for j, k in enumerate(tube.saved_index):
        at = ("exact",) if k == 0 else ("ball", int(k))
        L = ctx.quantity("L", ["t"], at)
        assert float(abs(L.mid() - floats[j])) <= float(L.rad()) + err[j], (j, L, floats[j])
        theta = ctx.centre(int(k))
        W, a = shape.split(theta)
        exact = quantities_loss(shape, Ball.exact(W), Ball.exact(a))
        as_float = network.loss_from_outputs(problem, _outputs(problem, W, a))
        assert abs(float(exact.mid()) - as_float) <= 1e-14 * abs(as_float) + 1e-300
    assert len(tube.times) > 10


def _outputs(problem, W, a):
    z = W @ problem.X.T
    slope = float(getattr(problem.activation, "slope", 0.0))
    s = 1.0 / problem.p if problem.parametrization == "mean_field" else 1.0
    return s * (a[:, None] * np.where(z > 0, z, slope * z)).sum(axis=0)


# -- the lemma against a long accurate run ----------------------------------------------------
def test_the_tail_against_a_long_accurate_run(worst):
    """The certificate's tail says L(t) <= L(T0)'s upper bound from T0 on. A run at
    rtol 1e-12 over twice the horizon has L non-increasing at every saved time to within
    its own error bound, and never above the certified bound."""
    run, tube = worst
    _, spec = _spec("L(t) <= 1.5*L(0)", run)
    tail = decide(spec, tube).tail
    long = simulate(run.problem, ExactFlow(rtol=1e-12), np.linspace(0.0, 2 * HORIZON, 801))
    series = measure(long, "L")
    L = series.values
    # the error the float checks use: the formula's floor plus the companion's difference
    err = series.roundoff + np.abs(L - long.companion.loss)
    assert np.all(L <= tail.loss[1] + err)
    rises = np.diff(L) - (err[1:] + err[:-1])
    assert np.all(rises <= 0), float(np.max(rises))
    assert L[-1] < 1e-10 < L[0]  # it did fall, through the saddle
