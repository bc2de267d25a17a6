"""A vector output with the softmax cross-entropy: the model, the exact flow (sliding modes
included), gradient descent, and the refusals of what does not cover it."""

from __future__ import annotations

import numpy as np
import pytest

from numerics import ExactFlow, GradientDescent, Problem, network, simulate
from numerics.flow import MethodError
from numerics.problem import ProblemError


def _clusters(K=3, per=4, d=6, p=12, seed=0, scale=1e-3, **kw) -> Problem:
    rng = np.random.default_rng(seed)
    X = np.concatenate([m + 0.2 * rng.standard_normal((per, d)) for m in 2 * np.eye(K, d)])
    y = np.repeat(np.arange(K), per).astype(float)
    W0 = scale * rng.standard_normal((p, d))
    V0 = rng.standard_normal((p, K))
    V0 *= (np.linalg.norm(W0, axis=1) / np.linalg.norm(V0, axis=1))[:, None]  # balanced
    return Problem(X=X, y=y, W0=W0, a0=V0, loss="cross_entropy", **kw)


@pytest.fixture(scope="module")
def run():
    problem = _clusters()
    return simulate(problem, ExactFlow(), np.linspace(0, 200, 41))


def test_malformed_vector_problems_are_refused_by_field():
    good = _clusters()
    with pytest.raises(ProblemError, match="a0: the cross_entropy loss has a vector output"):
        Problem(X=good.X, y=good.y, W0=good.W0, a0=good.a0[:, 0], loss="cross_entropy")
    with pytest.raises(ProblemError, match="K >= 2"):
        Problem(X=good.X, y=0 * good.y, W0=good.W0, a0=good.a0[:, :1], loss="cross_entropy")
    with pytest.raises(ProblemError, match="y: the cross_entropy loss needs class labels"):
        Problem(X=good.X, y=good.y + 0.5, W0=good.W0, a0=good.a0, loss="cross_entropy")
    with pytest.raises(ProblemError, match=r"a0: expected shape \(p,\) for the square loss"):
        Problem(X=good.X, y=good.y, W0=good.W0, a0=good.a0, loss="square")
    assert good.n_outputs == 3 and good.vector_output
    assert good.one_hot().shape == (12, 3)


@pytest.mark.parametrize("parametrization", ["standard", "mean_field"])
def test_gradient_matches_finite_differences(parametrization):
    problem = _clusters(parametrization=parametrization, scale=0.3)
    rng = np.random.default_rng(1)
    W = problem.W0 + 0.1 * rng.standard_normal(problem.W0.shape)
    a = problem.a0 + 0.1 * rng.standard_normal(problem.a0.shape)
    gW, ga = network.gradient(problem, W, a)

    def loss(W, a):
        return float(network.loss_from_outputs(problem, network.outputs(problem, W, a)))

    e = 1e-6
    for k in [(0, 0), (3, 2), (11, 5)]:
        Wp, Wm = W.copy(), W.copy()
        Wp[k] += e
        Wm[k] -= e
        assert abs((loss(Wp, a) - loss(Wm, a)) / (2 * e) - gW[k]) < 1e-7
    for k in [(0, 0), (5, 1), (11, 2)]:
        ap, am = a.copy(), a.copy()
        ap[k] += e
        am[k] -= e
        assert abs((loss(W, ap) - loss(W, am)) / (2 * e) - ga[k]) < 1e-7


def test_the_flow_conserves_balancedness_and_lowers_the_loss(run):
    assert run.status.ok and run.provenance["engine"] == "rk"
    assert run.a.shape == (41, 12, 3) and run.outputs.shape == (41, 12, 3)
    c = run.balancedness  # |a_j|^2 - |w_j|^2
    assert np.max(np.abs(c - c[0])) < 1e-12
    assert np.all(np.diff(run.loss) <= 1e-15)
    assert run.loss[-1] < 1e-3 * run.loss[0]
    # the run crossed surfaces and slid on some (Filippov sliding for a vector output)
    assert any(e.direction == 0 for e in run.events)


def test_the_error_estimate_bounds_the_true_error(run):
    fine = simulate(run.problem, ExactFlow(rtol=1e-12), run.t)
    theta = np.concatenate([run.W, run.a], axis=-1)
    truth = np.concatenate([fine.W, fine.a], axis=-1)
    err = np.max(np.linalg.norm(theta - truth, axis=-1) / np.linalg.norm(truth, axis=-1))
    assert err <= run.error_estimate


def test_two_classes_are_the_logistic_loss():
    """K = 2 with antisymmetric output weights held fixed is the logistic loss on the
    margin h_1 - h_0 (labels 1 -> +1, 0 -> -1), first layer trained."""
    base = _clusters(K=2, per=4, d=4, p=8, seed=3, scale=0.05)
    b = np.random.default_rng(4).standard_normal(8)
    two = Problem(X=base.X, y=base.y, W0=base.W0, a0=np.stack([-b / 2, b / 2], axis=1),
                  loss="cross_entropy", train="first")
    one = Problem(X=base.X, y=2 * base.y - 1, W0=base.W0, a0=b, loss="logistic",
                  train="first")
    t = np.linspace(0, 20, 11)
    r2, r1 = simulate(two, ExactFlow(), t), simulate(one, ExactFlow(), t)
    assert np.max(np.abs(r2.W - r1.W)) < 1e-9
    assert np.max(np.abs(r2.loss - r1.loss)) < 1e-9


def test_gradient_descent_converges_to_the_flow_at_order_one():
    problem = _clusters()
    t = np.linspace(0, 20, 11)
    flow = simulate(problem, ExactFlow(), t)
    dist = []
    for lr in (1e-2, 5e-3):
        gd = simulate(problem, GradientDescent(lr=lr), t)
        assert gd.status.ok and gd.a.shape == flow.a.shape
        dist.append(np.max(np.abs(np.concatenate([gd.W - flow.W, gd.a - flow.a], -1))))
    assert 1.8 < dist[0] / dist[1] < 2.2
    # one step of the torch descent is the numpy gradient's
    one = simulate(problem, GradientDescent(lr=1e-3, error_check=None), np.array([0, 1e-3]))
    gW, ga = network.gradient(problem, problem.W0, problem.a0)
    assert np.allclose(one.W[1], problem.W0 - 1e-3 * gW, rtol=0, atol=1e-15)
    assert np.allclose(one.a[1], problem.a0 - 1e-3 * ga, rtol=0, atol=1e-15)
    sgd = simulate(problem, GradientDescent(lr=1e-2, batch_size=4), t)
    assert sgd.status.ok and sgd.loss[-1] < sgd.loss[0]


def test_what_covers_a_scalar_output_only_refuses_by_name():
    problem = _clusters()
    with pytest.raises(MethodError, match="engine: 'taylor' sums the series of a scalar output"):
        simulate(problem, ExactFlow(engine="taylor"), np.linspace(0, 1, 3))
    with pytest.raises(MethodError, match="'lognorm' integrates a scalar output"):
        simulate(problem, ExactFlow(coordinates="lognorm"), np.linspace(0, 1, 3))
    span = simulate(problem, ExactFlow(coordinates="span"), np.linspace(0, 5, 3))
    cart = simulate(problem, ExactFlow(coordinates="cartesian"), np.linspace(0, 5, 3))
    assert np.max(np.abs(span.a - cart.a)) < 1e-8


def test_methods_of_a_scalar_output_refuse_a_vector_output_by_name():
    from numerics import ClosedForm

    problem = _clusters()
    with pytest.raises(ProblemError, match="method: closed_form integrates a scalar output"):
        simulate(problem, ClosedForm(), np.linspace(0, 1, 3))
