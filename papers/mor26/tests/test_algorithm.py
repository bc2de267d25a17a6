"""Algorithm 1 (`papers.mor26.algorithm`): hand cases worked out below, the refusals, its
agreement with S000's coverage criterion, and the exact flow at a small lam."""

from __future__ import annotations

import math

import numpy as np
import pytest

from numerics import Problem, generators
from numerics.inits import balanced_init
from papers.mor26 import algorithm as A
from papers.mor26.evidence import limit_draw, mor26_trajectory
from papers.mor26.measures import exit_times
from papers.s000.measures import good_init


def _two_neurons():
    """x_k = e_k in R^3, y = (2, 1, 1.5); neuron A (s = +1) active on samples 0, 1, neuron B
    (s = +1) on 1, 2, neuron C (s = -1) on 0, 1, 2 (no negative label: it never grows).

    c = y/3. A's rate |(2, 1)|/3 = sqrt(5)/3 beats B's |(1, 1.5)|/3 = sqrt(3.25)/3, so A
    activates at tau_1 = 3/sqrt(5) and fits {0, 1}; B, at e_B = -1 + tau_1 sqrt(3.25)/3,
    then grows on {2} alone at 1.5/3 and activates at tau_2 = tau_1 - 2 e_B."""
    X = np.eye(3)
    y = np.array([2.0, 1.0, 1.5])
    G = np.array([[1.0, 0.5, -1.0], [-0.3, 1.0, 0.7], [0.2, 0.4, 0.9]])
    s = np.array([1.0, 1.0, -1.0])
    return X, y, G, s


def test_one_neuron_fits_its_growth_set_at_one_over_its_rate():
    jp = A.jump_process(np.eye(2), np.array([2.0, 1.0]), np.array([[1.0, 1.0]]), np.array([1.0]))
    (act,) = jp.activations
    assert act.tau == pytest.approx(1 / math.sqrt(1.25), rel=1e-14)
    assert act.fitted == (0, 1) and act.neurons == (0,)
    assert act.norm_sq == pytest.approx(math.sqrt(5), rel=1e-14)
    assert jp.loss0 == pytest.approx(1.25) and jp.loss_inf == 0 and jp.interpolates
    assert jp.norm_sq == pytest.approx(2 * math.sqrt(5))


def test_a_fitted_sample_leaves_the_other_neurons_growth_sets():
    jp = A.jump_process(*_two_neurons())
    first, second = jp.activations
    tau_1 = 3 / math.sqrt(5)
    e_b = -1 + tau_1 * math.sqrt(3.25) / 3
    assert (first.neurons, first.fitted) == ((0,), (0, 1))
    assert first.tau == pytest.approx(tau_1, rel=1e-14)
    assert (second.neurons, second.fitted) == ((1,), (2,))
    assert second.tau == pytest.approx(tau_1 - e_b / 0.5, rel=1e-14)
    assert second.rate == pytest.approx(0.5)
    assert first.lead == pytest.approx(-e_b, rel=1e-14)  # B could fit sample 1 too
    assert first.loss == pytest.approx(1.5**2 / 6) and second.loss == 0
    assert jp.saddle_groups() == (((0,), first.norm_sq), ((1,), 1.5), ((2,), 0.0))
    assert jp.growth_sets == ((0, 1), (1, 2), ())
    assert jp.plateau_loss(0.5 * tau_1) == pytest.approx(jp.loss0)
    assert jp.plateau_loss(0.5 * (tau_1 + second.tau)) == pytest.approx(first.loss)


def test_neurons_with_one_growth_set_activate_as_a_group():
    X, y = np.eye(2), np.array([1.0, 0.5])
    G = np.array([[1.0, -2.0], [3.0, -0.1], [-1.0, 1.0]])
    jp = A.jump_process(X, y, G, np.ones(3))
    assert [(a.neurons, a.fitted) for a in jp.activations] == [((0, 1), (0,)), ((2,), (1,))]
    assert jp.activations[0].norm_sq == pytest.approx(1.0)


def test_the_finite_lam_variant_starts_each_exponent_at_its_own_norm():
    lam = 1e-10
    G = np.array([[3.0, 4.0]])  # |g| = 5
    jp = A.jump_process(np.eye(2), np.array([2.0, 1.0]), G, np.array([1.0]), lam=lam)
    start = -1 + math.log(5) / math.log(1 / lam)
    assert jp.activations[0].tau == pytest.approx(-start / math.sqrt(1.25), rel=1e-14)


def test_a_scaled_loss_divides_every_time():
    X, y, G, s = _two_neurons()
    one, three = A.jump_process(X, y, G, s), A.jump_process(X, y, G, s, loss_scale=3.0)
    assert np.allclose(np.array(three.times) * 3, one.times, rtol=1e-14)
    assert three.loss0 == pytest.approx(3 * one.loss0)


@pytest.mark.parametrize(("args", "message"), [
    ((np.array([[1.0, 0.1], [0.0, 1.0]]), np.ones(2), np.ones((1, 2)), np.ones(1)),
     "pairwise orthogonal"),
    ((np.eye(2), np.ones(2), np.array([[1.0, 0.0]]), np.ones(1)), "pre-activation"),
    ((np.eye(2), np.ones(2), np.array([[1.0, -1.0], [-1.0, 1.0]]), np.ones(2)),
     "same time"),
    ((np.eye(2), np.ones(2), np.ones((1, 2)), np.array([0.5])), "+1 or -1"),
    ((np.eye(2), np.ones(3), np.ones((1, 2)), np.ones(1)), "shapes"),
])
def test_inputs_outside_the_domain_are_refused_in_one_line(args, message):
    with pytest.raises(A.NotGeneric) as err:
        A.jump_process(*args)
    assert message in str(err.value) and len(str(err.value).splitlines()) == 1


def test_the_identity_form_is_the_same_process():
    y, g, s = limit_draw(12, 6, 4)
    assert A.jump_process_identity(y, g, s) == A.jump_process(np.eye(12), y, g, s)


def test_the_large_n_draw_is_the_family_s_draw():
    lam = 1e-8
    problem = generators.orthonormal(n=10, d=10, p=7, lam=lam, seed=11)
    y, g, s = limit_draw(10, 7, 11)
    assert np.array_equal(problem.y, y) and np.array_equal(np.sign(problem.a0), s)
    assert np.allclose(problem.W0 / lam, g, rtol=1e-15, atol=0)


def test_the_limit_interpolates_exactly_when_every_sample_is_covered():
    """MOR26-Tx2d on 400 random starts (S000's good_init is the coverage criterion)."""
    rng = np.random.default_rng(54)
    both = []
    for _ in range(400):
        n, p = int(rng.integers(3, 12)), int(rng.integers(2, 12))
        y = generators.orthonormal_labels(n, rng)
        W0, a0 = balanced_init(p, n, 1e-8, rng)
        problem = Problem(X=np.eye(n), y=y, W0=W0, a0=a0, init_scale=1e-8)
        try:
            jp = A.of_problem(problem)
        except A.NotGeneric:
            continue
        assert jp.interpolates == good_init(problem), (n, p)
        both.append(jp.interpolates)
    assert 50 < sum(both) < len(both) - 50  # both cases were met often


def test_the_flow_follows_the_removal_not_the_first_growth_sets():
    """On the two-neuron case at lam = 1e-40 the flow's second plateau ends at Algorithm 1's
    tau_2, not where neuron B would be had it kept growing at its first rate (without the
    fitted samples removed from its growth set): 1.6641 against tau_2 = 1.7292 (the flow:
    1.7317)."""
    X, y, G, s = _two_neurons()
    lam = 1e-40
    W0 = lam * G
    problem = Problem(X=X, y=y, W0=W0, a0=s * np.linalg.norm(W0, axis=1), init_scale=lam)
    jp = A.of_problem(problem)
    first, second = jp.activations
    no_removal = first.tau + first.lead / (math.sqrt(3.25) / 3)
    (_, t_1, _), (_, t_2, _) = exit_times(mor26_trajectory(problem))
    scale = math.log(1 / lam)
    assert abs(t_1 / scale - first.tau) < 0.03
    assert abs(t_2 / scale - second.tau) < 0.03 < abs(t_2 / scale - no_removal)
