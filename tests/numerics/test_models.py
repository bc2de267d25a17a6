"""The models beyond the bias-free ReLU network: activations, trained layers, hidden biases,
initialisations and minibatch SGD, against independent computations."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from numerics import (
    ExactFlow,
    GradientDescent,
    HighPrecisionFlow,
    LeakyReLU,
    MethodError,
    Problem,
    ProblemError,
    ReLU,
    ReLUPower,
    generators,
    model,
    network,
    simulate,
)
from numerics import torch_network as tn
from numerics.activations import ActivationError, parse
from numerics.coordinates import relative_difference


def _as(problem: Problem, **changes) -> Problem:
    return model.with_model(problem, **changes)


@pytest.fixture(scope="module")
def sliding_problem():
    return generators.sphere(6, 4, 6, seed=1)  # slides under ReLU (tests/numerics/test_sliding)


@pytest.fixture(scope="module")
def smooth_problem():
    return generators.sphere(3, 3, 3, seed=4)  # no sliding mode for ReLU, leaky and powers


# -- activations --------------------------------------------------------------------------
def test_spellings_parse_and_bad_ones_name_what_is_allowed():
    assert parse("relu") == ReLU()
    assert parse("leaky:0.25") == LeakyReLU(0.25)
    assert parse("power:3") == ReLUPower(3)
    for bad in ("tanh", "leaky:1", "leaky:-0.1", "power:1", "power:x", "leaky:nan"):
        with pytest.raises(ActivationError, match="activation|slope|beta"):
            parse(bad)
    with pytest.raises(ProblemError, match="activation"):
        Problem(X=np.eye(2), y=np.ones(2), W0=np.eye(2), a0=np.ones(2), activation="gelu")


@pytest.mark.parametrize("act", [LeakyReLU(0.2), ReLUPower(2), ReLUPower(2.5)])
def test_value_and_derivative_match_the_definition(act):
    Z = np.linspace(-2, 2, 41)
    Z = Z[Z != 0]
    A = (Z > 0).astype(float)
    if act.piecewise_linear:
        expected = np.where(Z > 0, Z, act.slope * Z)
    else:
        expected = np.maximum(Z, 0) ** act.beta
    assert np.allclose(act.value(Z, A), expected, rtol=1e-15, atol=0)
    h = 1e-6
    numeric = (act.value(Z + h, A) - act.value(Z - h, A)) / (2 * h)
    assert np.allclose(act.derivative(Z, A), numeric, rtol=1e-6, atol=1e-9)
    # Euler's relation for a k-homogeneous activation: sigma'(z) z = k sigma(z)
    assert np.allclose(act.derivative(Z, A) * Z, act.degree * act.value(Z, A), rtol=1e-12)
    Zt = torch.from_numpy(Z)
    assert np.allclose(act.torch_value(Zt).numpy(), expected, rtol=1e-15)
    assert np.allclose(act.torch_derivative(Zt).numpy(), act.derivative(Z, A), rtol=1e-15)


def test_default_problem_hashes_as_before_and_a_model_changes_the_hash(smooth_problem):
    same = Problem(X=smooth_problem.X, y=smooth_problem.y, W0=smooth_problem.W0,
                   a0=smooth_problem.a0, parametrization="mean_field", activation=ReLU())
    assert same.content_hash == smooth_problem.content_hash and same.model_spec == ""
    leaky = _as(smooth_problem, activation="leaky:0.1", train="first")
    assert leaky.content_hash != smooth_problem.content_hash
    assert leaky.model_spec == "leaky:0.1, first layer" and "leaky:0.1" in leaky.describe()


@pytest.mark.parametrize("act", [LeakyReLU(0.3), ReLUPower(2)])
@pytest.mark.parametrize("train", ["both", "first", "second"])
def test_torch_gradients_match_the_numpy_reference(act, train):
    problem = _as(generators.sphere(7, 5, 4, seed=2), activation=act, train=train)
    gW, ga = network.gradient(problem, problem.W0, problem.a0)
    batch = tn.TorchBatch.from_problems([problem], torch.float64)
    tW, ta = tn.gradient(batch, torch.tensor(problem.W0[None]),
                         torch.tensor(problem.a0[None]))
    assert np.allclose(tW[0].numpy(), gW, rtol=1e-12, atol=1e-15)
    assert np.allclose(ta[0].numpy(), ga, rtol=1e-12, atol=1e-15)


# -- the exact flow -----------------------------------------------------------------------
def test_leaky_relu_of_slope_zero_is_the_relu_flow(sliding_problem):
    t = np.linspace(0, 12, 25)
    relu = simulate(sliding_problem, ExactFlow(), t)
    leaky0 = simulate(_as(sliding_problem, activation=LeakyReLU(0.0)), ExactFlow(), t)
    assert relu.sliding.any()  # the comparison goes through sliding modes
    assert relative_difference(relu.W, relu.a, leaky0.W, leaky0.a) < 1e-9
    assert [(e.t, e.neuron, e.sample, e.direction) for e in relu.events] == \
        [(e.t, e.neuron, e.sample, e.direction) for e in leaky0.events]


@pytest.mark.parametrize("act", [LeakyReLU(0.1), LeakyReLU(0.5), ReLUPower(2), ReLUPower(3)])
def test_flow_agrees_with_high_precision_and_conserves_k_a2_minus_w2(smooth_problem, act):
    problem = _as(smooth_problem, activation=act)
    t = np.linspace(0, 5, 11)
    flow = simulate(problem, ExactFlow(rtol=1e-12), t)
    exact = simulate(problem, HighPrecisionFlow(digits=30, error_check=False), t)
    assert flow.status.name == exact.status.name == "SUCCESS"
    true = relative_difference(flow.W, flow.a, exact.W, exact.a)
    assert true < 1e-8 and true <= flow.error_estimate
    c = flow.balancedness  # k a_j^2 - ||w_j||^2
    assert np.allclose(c[0], act.degree * problem.a0**2 - np.sum(problem.W0**2, axis=1))
    scale = act.degree * flow.a**2 + flow.neuron_norms**2
    assert np.max(np.abs(c - c[0]) / scale) < 10 * flow.error_estimate + 1e-13


@pytest.mark.parametrize("slope", [0.1, 0.5])
def test_leaky_flow_slides_with_slopes_in_the_clarke_interval(sliding_problem, slope):
    problem = _as(sliding_problem, activation=LeakyReLU(slope))
    t = np.linspace(0, 12, 1201)
    tr = simulate(problem, ExactFlow(), t)
    assert tr.status.name == "SUCCESS" and tr.sliding.any()
    alpha = tr.filippov_mask[tr.sliding]
    assert np.all((alpha >= 0) & (alpha <= 1))  # sigma' = slope + (1 - slope) alpha
    vW, va = tr.velocity
    dz = np.einsum("tjd,id->tji", vW, problem.X)
    scale = np.linalg.norm(vW, axis=-1)[..., None] * np.linalg.norm(problem.X, axis=1)
    assert np.max(np.abs(dz[tr.sliding]) / scale[tr.sliding]) < 1e-9
    # energy identity dL/dt = -|theta'|^2 / kappa along sliding segments, away from events
    speed = (np.sum(vW**2, axis=(1, 2)) + np.sum(va**2, axis=1)) / problem.flow_factor
    dL = np.gradient(tr.loss, tr.t)
    events = np.array([e.t for e in tr.events])
    calm = np.array([np.all(np.abs(events - s) > 2 * (t[1] - t[0])) for s in tr.t])
    pick = tr.sliding.any(axis=(1, 2)) & calm
    pick[[0, -1]] = False
    assert pick.sum() > 50
    rel = np.abs(dL[pick] + speed[pick]) / speed[pick]
    assert np.median(rel) < 1e-4
    assert tr.conservation_drift < 1e-8


def test_leaky_sliding_is_not_relu_sliding(sliding_problem):
    """The slope changes the flow (a leaky network is not the ReLU one)."""
    t = np.linspace(0, 6, 7)
    relu = simulate(sliding_problem, ExactFlow(error_check=None), t)
    leaky = simulate(_as(sliding_problem, activation="leaky:0.1"), ExactFlow(error_check=None), t)
    assert relative_difference(relu.W, relu.a, leaky.W, leaky.a) > 1e-3


# -- trained layers -----------------------------------------------------------------------
@pytest.mark.parametrize("act", ["relu", "leaky:0.1"])
def test_first_layer_only_keeps_a_and_descends(act):
    problem = _as(generators.sphere(8, 5, 6, seed=3), activation=act, train="first")
    t = np.linspace(0, 4.8, 7)
    flow = simulate(problem, ExactFlow(), t)
    assert flow.status.name == "SUCCESS"
    assert np.array_equal(flow.a, np.broadcast_to(problem.a0, flow.a.shape))
    assert np.all(np.diff(flow.loss) <= 1e-14 * flow.loss[0])
    assert flow.loss[-1] < 0.9 * flow.loss[0]
    errors = []
    steps = [0.02, 0.01, 0.005, 0.0025]
    for lr in steps:
        gd = simulate(problem, GradientDescent(lr=lr, error_check=None), t)
        assert np.array_equal(gd.a, np.broadcast_to(problem.a0, gd.a.shape))
        errors.append(relative_difference(gd.W, gd.a, flow.W, flow.a))
    order = np.polyfit(np.log(steps), np.log(errors), 1)[0]
    assert errors[-1] < errors[0] / 4 and order > 0.7


def test_second_layer_only_keeps_w():
    problem = _as(generators.sphere(8, 5, 6, seed=3), train="second")
    flow = simulate(problem, ExactFlow(), np.linspace(0, 4, 5))
    assert np.array_equal(flow.W, np.broadcast_to(problem.W0, flow.W.shape))
    assert not flow.events and np.all(np.diff(flow.loss) <= 0)


# -- hidden biases and initialisations ----------------------------------------------------
def test_a_hidden_bias_is_the_run_on_augmented_inputs():
    base = generators.sphere(6, 4, 5, seed=0)
    b0 = np.linspace(-0.3, 0.3, base.p)
    biased = model.with_hidden_bias(base, b0=b0, constant=2.0)
    by_hand = Problem(X=np.hstack([base.X, np.full((6, 1), 2.0)]), y=base.y,
                      W0=np.hstack([base.W0, b0[:, None] / 2.0]), a0=base.a0,
                      parametrization=base.parametrization)
    t = np.linspace(0, 6, 13)
    one = simulate(biased, ExactFlow(), t)
    two = simulate(by_hand, ExactFlow(), t)
    assert relative_difference(one.W, one.a, two.W, two.a) < 1e-13
    assert np.allclose(model.hidden_biases(biased, one.W)[0], b0)
    # b_j joins w_j in the conserved quantity
    assert one.conservation_drift < 1e-8


def test_initialisations_do_what_they_say():
    base = generators.sphere(5, 4, 40, seed=1)
    norms = np.linalg.norm(base.W0, axis=1)
    balanced = model.reinitialise(base, "balanced")
    assert np.allclose(np.abs(balanced.a0), norms)
    dominated = model.reinitialise(base, "dominated:3")
    assert np.allclose(np.abs(dominated.a0), 3 * norms)
    assert np.array_equal(np.sign(dominated.a0), np.where(base.a0 < 0, -1.0, 1.0))
    asym = model.reinitialise(base, "asymmetric", seed=2)
    assert np.all(np.abs(asym.a0) > norms)
    loose = model.reinitialise(base, "unbalanced:0.5", seed=2)
    assert abs(np.std(loose.a0) / np.mean(norms) - 0.5) < 0.2  # its own scale
    assert abs(np.corrcoef(np.abs(loose.a0), norms)[0, 1]) < 0.5
    assert np.array_equal(model.reinitialise(base, "unbalanced", seed=2).a0,
                          model.reinitialise(base, "unbalanced", seed=2).a0)
    for bad in ("dominated:0.5", "balanced:2", "random", "unbalanced:x"):
        with pytest.raises(ProblemError, match="init"):
            model.reinitialise(base, bad)


# -- minibatch SGD ------------------------------------------------------------------------
def test_minibatch_sgd_is_seeded_and_named_as_such():
    problem = generators.sphere(10, 6, 8, seed=0)
    t = np.linspace(0, 2, 5)
    one = simulate(problem, GradientDescent(lr=0.01, batch_size=3, sgd_seed=4), t)
    two = simulate(problem, GradientDescent(lr=0.01, batch_size=3, sgd_seed=4), t)
    other = simulate(problem, GradientDescent(lr=0.01, batch_size=3, sgd_seed=5), t)
    full = simulate(problem, GradientDescent(lr=0.01, batch_size=10), t)
    gd = simulate(problem, GradientDescent(lr=0.01, error_check=None), t)
    assert one.method == "minibatch_sgd" and one.options["batch_size"] == 3
    # its companion is the same SGD (same batches) in float32: a bound on float64's rounding
    comp = one.companion
    assert comp.options["dtype"] == "float32" and comp.options["sgd_seed"] == 4
    assert 1e-9 < one.error_estimate < 1e-4
    assert np.max(np.abs(comp.W - one.W)) < 1e-4 * np.max(np.abs(one.W))
    loose = simulate(problem, GradientDescent(lr=0.01, batch_size=3, sgd_seed=4,
                                              error_check=None), t)
    assert loose.companion is None and loose.error_estimate == float("inf")
    assert np.array_equal(one.W, two.W) and not np.array_equal(one.W, other.W)
    assert np.allclose(full.W, gd.W, rtol=1e-13, atol=1e-15)  # one batch of n is GD
    assert one.loss[-1] < one.loss[0]


def test_each_epoch_uses_every_sample_once():
    from numerics.descent import _Minibatches

    batches = _Minibatches(generators.sphere(10, 6, 2, seed=0), 4, seed=1)
    assert batches.per_epoch == 3
    orders = []
    for epoch in range(3):
        ws = [batches.weights(epoch * 3 + k) for k in range(3)]
        assert np.array_equal(sum(w > 0 for w in ws), np.ones(10))
        for w in ws:  # the batch's mean, on the full loss's scale: n / |S|
            assert np.allclose(w[w > 0], 10 / np.sum(w > 0))
        orders.append(tuple(np.argmax(np.stack(ws), axis=0)))
    assert len(set(orders)) > 1  # a new permutation each epoch
    even = _Minibatches(generators.sphere(12, 6, 2, seed=0), 4, seed=1)
    mean = np.mean([even.weights(k) for k in range(3)], axis=0)
    assert np.allclose(mean, 1.0)  # batch size dividing n: unbiased over an epoch


def test_methods_refuse_what_they_cannot_do_by_name(smooth_problem):
    with pytest.raises(MethodError, match="batch_size"):
        GradientDescent(lr=0.1, batch_size=0)
    with pytest.raises(MethodError, match="activation"):
        HighPrecisionFlow().run(_as(smooth_problem, activation="power:2.5"), np.array([0, 1.0]))
    with pytest.raises(MethodError, match="lognorm"):
        ExactFlow(coordinates="lognorm").run(_as(smooth_problem, activation="leaky:0.1"),
                                             np.array([0, 1.0]))
    with pytest.raises(MethodError, match="onednn"):
        GradientDescent(lr=0.1, dtype="float32", gemm="onednn").run(
            _as(smooth_problem, activation="leaky:0.1"), np.array([0, 1.0]))
