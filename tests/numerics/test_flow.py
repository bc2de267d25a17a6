"""The exact gradient flow: agreement with an independent integration, switching, invariants."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from numerics import ExactFlow, MethodError, Problem, Status, generators, network, simulate


def _two_point_arrays(seed=0, p=60, lam=None):
    lam = 1e-6 / np.sqrt(60) if lam is None else lam
    rng = np.random.default_rng(seed)
    W0 = lam * rng.standard_normal((p, 2))
    a0 = rng.choice([-1.0, 1.0], size=p) * np.linalg.norm(W0, axis=1)
    X = np.array([[-0.5, 1.0], [2.0, 1.0]])
    y = np.array([-1.0, 1.0])
    return X, y, W0, a0


def _independent_loss(prob: Problem, t_eval: np.ndarray) -> np.ndarray:
    """Plain DOP853 on the sign-based right-hand side (no switch handling), rtol 1e-13."""
    p, d = prob.p, prob.d

    def f(_t, y):
        dW, da = network.flow_field(prob, y[: p * d].reshape(p, d), y[p * d:])
        return np.concatenate([dW.ravel(), da])

    y0 = np.concatenate([prob.W0.ravel(), prob.a0])
    sol = solve_ivp(f, (0, t_eval[-1]), y0, method="DOP853", rtol=1e-13, atol=1e-30,
                    t_eval=t_eval)
    assert sol.success
    W = sol.y[: p * d].T.reshape(-1, p, d)
    a = sol.y[p * d:].T
    return network.loss_from_outputs(prob, network.outputs(prob, W, a))


def test_readme_example_matches_independent_integration():
    X, y, W0, a0 = _two_point_arrays()
    prob = Problem(X=X, y=y, W0=W0, a0=a0, parametrization="standard", loss="square")
    t_eval = np.linspace(0, 60, 601)
    traj = simulate(prob, ExactFlow(rtol=1e-10), t_eval=t_eval)
    assert traj.status is Status.SUCCESS
    assert traj.loss.shape == (601,)
    reference = _independent_loss(prob, t_eval)
    big = traj.loss > 1e-8
    rel = np.abs(traj.loss[big] - reference[big]) / traj.loss[big]
    assert rel.max() < 1e-5, rel.max()
    # the loss really goes through both phases in this window
    assert traj.loss[0] == pytest.approx(0.5, rel=1e-6)
    assert traj.loss[-1] < 1e-12


def test_switches_are_located_on_the_switching_surface():
    prob = generators.two_point(seed=1, p=20)
    traj = simulate(prob, ExactFlow(), t_eval=np.linspace(0, 40, 41))
    assert traj.events, "the two-point example deactivates neurons on samples"
    event_times = np.array(sorted({e.t for e in traj.events}))
    at_events = simulate(prob, ExactFlow(error_check=None), t_eval=event_times)
    for e in traj.events:
        k = int(np.searchsorted(event_times, e.t))
        w = at_events.W[k, e.neuron]
        x = prob.X[e.sample]
        assert abs(w @ x) <= 1e-7 * np.linalg.norm(w) * np.linalg.norm(x)


def test_dead_neuron_stays_dead_and_relu_prime_zero_at_zero():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([1.0, -0.5])
    W0 = np.array([[0.3, 0.2], [-0.4, -0.1], [0.0, 0.5]])  # neuron 1 dead; neuron 2 has z=0 on x1
    a0 = np.array([0.36, 0.41, -0.5])
    prob = Problem(X=X, y=y, W0=W0, a0=a0)
    traj = simulate(prob, ExactFlow(), t_eval=np.linspace(0, 20, 21))
    np.testing.assert_array_equal(traj.W[:, 1], np.broadcast_to(W0[1], traj.W[:, 1].shape))
    np.testing.assert_array_equal(traj.a[:, 1], a0[1])
    # neuron 2: <w, x1> = 0 exactly is inactive (relu'(0) = 0), and with orthogonal data the
    # inactive pre-activation never moves, so its first coordinate stays exactly 0
    assert np.all(traj.W[:, 2, 0] == 0.0)


def test_balancedness_conserved_to_integration_accuracy():
    prob = generators.orthonormal(n=4, d=6, p=30, lam=1e-3, seed=2)
    traj = simulate(prob, ExactFlow(rtol=1e-11), t_eval=np.linspace(0, 50, 201))
    scale = np.max(traj.a**2 + traj.neuron_norms**2, axis=1, keepdims=True)
    drift = np.abs(traj.balancedness - traj.balancedness[0]) / scale
    assert drift.max() < 1e-8
    assert traj.error_estimate < 1e-5


def test_error_estimate_needs_companion():
    prob = generators.two_point(seed=0, p=10)
    traj = simulate(prob, ExactFlow(error_check=None), t_eval=np.linspace(0, 5, 6))
    assert traj.companion is None and traj.error_estimate == np.inf
    assert np.all(np.isinf(traj.error_of(lambda tr: tr.loss)))


def test_tighter_tolerance_shrinks_the_error_estimate():
    prob = generators.two_point(seed=3, p=20)
    t = np.linspace(0, 40, 81)
    loose = simulate(prob, ExactFlow(rtol=1e-6), t_eval=t).error_estimate
    tight = simulate(prob, ExactFlow(rtol=1e-10), t_eval=t).error_estimate
    assert tight < loose / 100


@pytest.mark.parametrize("kwargs, field", [
    ({"rtol": 0.5}, "rtol"), ({"rtol": -1.0}, "rtol"), ({"error_check": 0.5}, "error_check"),
])
def test_bad_method_options_name_the_option(kwargs, field):
    with pytest.raises(MethodError, match=field):
        ExactFlow(**kwargs)


def test_same_seed_same_numbers():
    a = simulate(generators.two_point(seed=5, p=12), ExactFlow(), np.linspace(0, 30, 31))
    b = simulate(generators.two_point(seed=5, p=12), ExactFlow(), np.linspace(0, 30, 31))
    np.testing.assert_array_equal(a.W, b.W)
    assert a.problem.content_hash == b.problem.content_hash


def test_span_of_data_agrees_with_full_space():
    prob = generators.orthonormal(n=3, d=40, p=12, lam=1e-4, seed=4)
    t = np.linspace(0, 60, 121)
    full = simulate(prob, ExactFlow(coordinates="cartesian", rtol=1e-12), t)
    span = simulate(prob, ExactFlow(coordinates="span", rtol=1e-12), t)
    assert ExactFlow().coordinates == "auto"
    scale = np.max(np.abs(full.W), axis=(1, 2), keepdims=True)
    assert np.max(np.abs(full.W - span.W) / scale) < 1e-10
    assert np.max(np.abs(full.a - span.a) / np.max(np.abs(full.a), axis=1, keepdims=True)) < 1e-10
    assert len(full.events) == len(span.events)


def test_span_of_data_on_non_orthogonal_data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((4, 30))
    y = np.array([1.0, -1.0, 0.5, -0.7])
    W0 = 0.3 * rng.standard_normal((8, 30))
    a0 = 0.3 * rng.standard_normal(8)
    prob = Problem(X=X, y=y, W0=W0, a0=a0)
    t = np.linspace(0, 20, 41)
    full = simulate(prob, ExactFlow(coordinates="cartesian", rtol=1e-12), t)
    span = simulate(prob, ExactFlow(coordinates="span", rtol=1e-12), t)
    theta_full = np.concatenate([full.W, full.a[..., None]], axis=-1)
    theta_span = np.concatenate([span.W, span.a[..., None]], axis=-1)
    rel = np.linalg.norm(theta_full - theta_span, axis=-1) / np.linalg.norm(theta_full, axis=-1)
    assert rel.max() < 1e-9
    assert full.loss[-1] < 1e-12 * full.loss[0]  # the run reached interpolation



@pytest.mark.parametrize("n, d", [(4, 30), (6, 3)])  # independent and dependent samples
def test_span_neuron_norms_and_differences_without_forming_W(n, d):
    from numerics.coordinates import Span, relative_difference

    rng = np.random.default_rng(1)
    prob = Problem(X=rng.standard_normal((n, d)), y=rng.standard_normal(n),
                   W0=rng.standard_normal((5, d)), a0=rng.standard_normal(5))
    span = Span(prob, 1e-10, 1e-6)
    Y = rng.standard_normal((3, span.y0.size))
    # a neuron 1e-6 of its initial size: W0_0 + C_0 X nearly cancels
    C0 = np.linalg.lstsq(prob.X.T, -prob.W0[0], rcond=None)[0]
    Y[0, :n] = C0 + 1e-6 * rng.standard_normal(n)
    W = span.outputs(Y)["W"]
    norms = span.direction_norms(Y)
    np.testing.assert_allclose(norms, np.linalg.norm(W, axis=-1), rtol=1e-9, atol=1e-14)
    Y2 = Y + 1e-7 * rng.standard_normal(Y.shape)
    W2, a2 = span.outputs(Y2)["W"], span.outputs(Y2)["a"]
    assert span.difference(Y, Y2) == pytest.approx(
        relative_difference(W, span.outputs(Y)["a"], W2, a2), rel=1e-6)


def test_span_flow_forms_W_only_for_the_saved_states(monkeypatch):
    """Per step and per event the span coordinates use p x n quantities only; W (p x d)
    is formed once per run (main and companion), for the trajectory's saved states."""
    from numerics.coordinates import Span

    formed = []
    original = Span._weights

    def counting(self, C):
        formed.append(C.shape)
        return original(self, C)

    monkeypatch.setattr(Span, "_weights", counting)
    prob = generators.orthogonal_scaled(n=8, d=50, p=6, seed=0)
    t = np.linspace(0, 40, 21)
    tr = ExactFlow(coordinates="span").run(prob, t)
    assert tr.status is Status.SUCCESS and len(tr.events) > 0
    assert formed == [(len(t), 6, 8)] * 2  # the companion's outputs and the main run's

def test_cones_and_min_norm_excess_on_the_two_point_example():
    from numerics.trajectory import CONE_MINUS, CONE_OTHER, CONE_PLUS

    prob = generators.two_point(seed=0)
    traj = simulate(prob, ExactFlow(), np.linspace(0, 90, 181))
    # at the end every neuron that grew sits in S_+ or S_- (two kinks, CF-9)
    big = traj.neuron_norms[-1] > 1e-3
    assert set(np.unique(traj.cones[-1, big])) <= {CONE_PLUS, CONE_MINUS}
    assert CONE_OTHER in traj.cones[0] or CONE_PLUS in traj.cones[0]
    # the limit is (close to) a minimum-norm interpolator: 1/2 |theta*|^2 = 3/sqrt(5)
    assert traj.min_norm_excess[-1] == pytest.approx(0.0, abs=1e-6)
    assert traj.min_norm_excess[0] < 0  # far from interpolating, the norm is tiny
