"""The tangent-kernel rate (numerics.network.kernel_rate) and the published rate estimators."""

import numpy as np
import pytest

from numerics import generators, network
from numerics.descent import GradientDescent
from numerics.simulate import simulate
from papers.s000.measures import published_pl_bounds
from verify.language.measures import average_rate, terminal_rate


def _converged(n=20, d=40, p=10, seed=1, lr=1.0):
    q = generators.orthogonal_scaled(n, d, p, seed=seed, repo_orth=True)
    run = simulate(q, GradientDescent(lr=lr, stop_loss=1e-22, error_check=None),
                   np.array([0.0, 20000.0 * lr]))
    assert run.stop_time is not None
    return q, run


def test_tangent_kernel_is_the_jacobian_gram_matrix():
    q = generators.sphere(6, 4, 5, seed=2)
    W, a = q.W0, q.a0
    eps = 1e-6
    theta = np.concatenate([W.ravel(), a])

    def h(th):
        return network.outputs(q, th[: W.size].reshape(W.shape), th[W.size:])

    J = np.stack([(h(theta + eps * e) - h(theta - eps * e)) / (2 * eps)
                  for e in np.eye(theta.size)], axis=1)
    assert np.allclose(network.tangent_kernel(q, W, a), J @ J.T, rtol=1e-6, atol=1e-12)


def test_descent_near_the_minimum_decays_at_the_kernel_rate():
    # Linearised GD: r_{k+1} = (1 - eta kappa c lambda / n) r_k on the slowest mode, so the
    # per-step log-decrease of L is -2 ln(1 - rate * lr / 2), rate = 2 kappa c lambda_min / n.
    q, run = _converged()
    rate = network.kernel_rate(q, run.W[-1], run.a[-1])
    predicted = -2.0 * np.log(1.0 - rate / 2.0)
    assert terminal_rate(run.step_loss, 1.0, window=10) == pytest.approx(predicted, rel=1e-2)
    # a smaller step sees the flow's rate itself
    q, fine = _converged(lr=0.05)
    rate = network.kernel_rate(q, fine.W[-1], fine.a[-1])
    assert terminal_rate(fine.step_loss, 0.05, window=10) == pytest.approx(rate, rel=0.05)


def test_rate_estimators_on_a_pure_exponential():
    L = 3.0 * np.exp(-0.2 * np.arange(500))
    assert average_rate(L, 1.0) == pytest.approx(0.2, rel=1e-12)
    assert terminal_rate(L, 1.0) == pytest.approx(2 * np.tanh(0.1), rel=1e-12)
    assert average_rate(L, 0.5) == pytest.approx(0.4, rel=1e-12)
    lo, hi = published_pl_bounds(np.array([0.5, 2.0]), n=4)
    assert (lo, hi) == (0.25, 8.0)


def test_kernel_rate_rejects_other_losses():
    q = generators.separable(6, 3, 4, seed=0, mu=0.2, eps=1e-3)
    with pytest.raises(ValueError, match="loss"):
        network.kernel_rate(q, q.W0, q.a0)


@pytest.mark.parametrize("n", [40, 300])
def test_one_hot_fast_path_equals_the_dense_kernel(n):
    q = generators.orthogonal_scaled(n, n + 50, 12, seed=3, repo_orth=True)
    run = simulate(q, GradientDescent(lr=1.0, stop_loss=1e-8 / (2 * n), error_check=None),
                   np.array([0.0, 20000.0]))
    W, a = run.W[-1], run.a[-1]
    assert network.one_hot_columns(q.X) is not None
    dense = 2 * q.flow_factor * np.linalg.eigvalsh(network.tangent_kernel(q, W, a))[0] / n
    assert network.kernel_rate(q, W, a) == pytest.approx(dense, rel=1e-10)
    # data that are not one-hot take the dense path
    assert network.one_hot_columns(generators.sphere(5, 8, 3, seed=0).X) is None
