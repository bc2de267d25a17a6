"""Newton's polish of a state to the stationary point of its activation pattern
(`numerics.stationary`): the derivatives against finite differences and the network's own
gradient, a saddle and a minimum told apart, refusals, and the limit read off a run
(`verify.engine.limit_point`)."""

from __future__ import annotations

import numpy as np
import pytest

from numerics import ExactFlow, Problem, generators, network, simulate
from numerics.stationary import PolishError, derivatives, pattern_of, polish


def _two_samples(a: float, w) -> Problem:
    """x_1 = e_1, x_2 = e_2 with labels 1 and -1, one neuron: on the pattern where both
    samples are active, h_i = a w_i."""
    return Problem(X=np.eye(2), y=np.array([1.0, -1.0]), W0=np.array([w], dtype=float),
                   a0=np.array([a]))


def test_derivatives_are_the_network_gradient_and_its_jacobian():
    rng = np.random.default_rng(3)
    problem = Problem(X=rng.standard_normal((4, 3)), y=rng.standard_normal(4),
                      W0=rng.standard_normal((5, 3)), a0=rng.standard_normal(5))
    W, a = problem.W0, problem.a0
    S = pattern_of(problem, W)
    _, grad, H = derivatives(problem, W, a, S)
    gW, ga = network.gradient(problem, W, a)
    assert np.allclose(grad, np.concatenate([gW.ravel(), ga]), rtol=1e-12, atol=1e-14)
    theta = np.concatenate([W.ravel(), a])
    step = 1e-6
    fd = np.empty_like(H)
    for k in range(theta.size):
        e = np.zeros_like(theta)
        e[k] = step
        up = derivatives(problem, (theta + e)[:15].reshape(5, 3), (theta + e)[15:], S)[1]
        down = derivatives(problem, (theta - e)[:15].reshape(5, 3), (theta - e)[15:], S)[1]
        fd[:, k] = (up - down) / (2 * step)
    assert np.allclose(H, fd, atol=1e-7)


def test_a_saddle_of_the_pattern_is_found_and_named():
    """a = 0, w = (s, s) is stationary on the pattern where both samples are active (the
    a-gradient w_1 (a w_1 - 1) + w_2 (a w_2 + 1) vanishes), and a saddle: moving a with
    w_1 - w_2 lowers the loss."""
    problem = _two_samples(1e-3, [0.5, 0.5 + 1e-3])
    point = polish(problem, problem.W0, problem.a0)
    assert point.gradient_norm < 1e-14 < point.start_gradient_norm
    assert point.kind == "saddle" and point.negative >= 1
    assert abs(point.a[0]) < 1e-12 and point.W[0, 0] == pytest.approx(point.W[0, 1])


def test_a_zero_loss_minimum():
    """The two-point example's run ends near an interpolating network: Newton lands on one
    (|grad L| at rounding, the loss 0), a minimum, with the symmetries' flat directions."""
    problem = generators.two_point(p=6, lam=1e-4, seed=0)
    tr = simulate(problem, ExactFlow(rtol=1e-12), t_eval=np.linspace(0, 60, 61))
    point = polish(problem, tr.W[-1], tr.a[-1])
    assert point.kind == "minimum" and point.loss < 1e-25
    assert point.gradient_norm < 1e-13 and point.flat >= point.symmetries
    assert point.distance < 1e-3


def test_refusals_name_the_reason():
    base = _two_samples(0.5, [0.5, 0.5])
    with pytest.raises(PolishError, match="exponential loss"):
        polish(Problem(X=base.X, y=base.y, W0=base.W0, a0=base.a0, loss="exponential"),
               base.W0, base.a0)
    with pytest.raises(PolishError, match="W must be"):
        polish(base, base.W0[:, :1], base.a0)
    # the pattern's stationary point lies outside the pattern: with a = 1 frozen, h = <w, x>
    # reaches the label -1 only with <w, x> < 0, on the other side of the kink
    far = Problem(X=np.array([[1.0, 0.0]]), y=np.array([-1.0]), W0=np.array([[0.5, 0.2]]),
                  a0=np.array([1.0]), train="first")
    with pytest.raises(PolishError, match="other side of its kink"):
        polish(far, far.W0, far.a0)


def test_a_runs_limit_is_read_at_its_polished_point():
    """`verify.engine.limit_point`: the two-point example's loss at its limit (0 to rounding, with
    an error from the companion's and the last quarter's polish), the point's kind in the
    estimate's account."""
    from verify.engine.limit_point import limit_estimate, polished_limit

    problem = generators.two_point(p=6, lam=1e-4, seed=0)
    tr = simulate(problem, ExactFlow(rtol=1e-12), t_eval=np.linspace(0, 60, 61))
    limit = polished_limit(tr)
    assert limit.point.kind == "minimum"
    est = limit_estimate(tr, "L")
    assert est.value < 1e-20 and est.error < 1e-12
    assert "minimum within its activation pattern" in est.how
