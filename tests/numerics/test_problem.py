"""Problem validation, hashing and conventions."""

from __future__ import annotations

import numpy as np
import pytest

from numerics import ExactFlow, Problem, ProblemError, generators, network, simulate


def _arrays():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    return X, np.array([1.0, -1.0]), np.ones((3, 2)), np.ones(3)


@pytest.mark.parametrize("change, field", [
    ({"y": np.ones(3)}, "y"),
    ({"W0": np.ones((3, 5))}, "W0"),
    ({"a0": np.ones(4)}, "a0"),
    ({"X": np.ones(4)}, "X"),
    ({"X": np.array([[np.nan, 0.0], [0.0, 1.0]])}, "X"),
    ({"parametrization": "ntk"}, "parametrization"),
    ({"loss": "hinge"}, "loss"),
    ({"loss_scale": -1.0}, "loss_scale"),
    ({"init_scale": 0.0}, "init_scale"),
    ({"loss": "exponential", "y": np.array([2.0, -1.0])}, "y"),
])
def test_bad_input_names_the_field(change, field):
    X, y, W0, a0 = _arrays()
    kw = dict(X=X, y=y, W0=W0, a0=a0)
    kw.update(change)
    with pytest.raises(ProblemError, match=rf"^{field}:"):
        Problem(**kw)


def test_arrays_are_frozen_and_hash_is_content():
    X, y, W0, a0 = _arrays()
    prob = Problem(X=X, y=y, W0=W0, a0=a0)
    with pytest.raises(ValueError):
        prob.X[0, 0] = 5.0
    X[0, 0] = 5.0  # the caller's array is copied, not shared
    assert prob.X[0, 0] == 1.0
    same = Problem(X=np.eye(2), y=y, W0=W0, a0=a0, meta={"note": "meta is not hashed"})
    assert same.content_hash == prob.content_hash and same == prob
    other = Problem(X=np.eye(2), y=y, W0=W0, a0=a0, parametrization="mean_field")
    assert other.content_hash != prob.content_hash


def test_mean_field_conventions():
    X, y, W0, a0 = _arrays()
    mf = Problem(X=X, y=y, W0=W0, a0=a0, parametrization="mean_field")
    assert mf.output_factor == pytest.approx(1 / 3) and mf.flow_factor == 3.0
    std = Problem(X=X, y=y, W0=W0, a0=a0)
    h_mf = network.outputs(mf, W0, a0)
    h_std = network.outputs(std, W0, a0)
    np.testing.assert_allclose(h_mf * 3, h_std)


def test_gradient_matches_finite_differences():
    prob = generators.orthonormal(n=3, d=4, p=5, lam=0.7, seed=1)
    W, a = prob.W0.copy(), prob.a0.copy()
    gW, ga = network.gradient(prob, W, a)

    def loss(W, a):
        return network.loss_from_outputs(prob, network.outputs(prob, W, a))

    h = 1e-6
    for j in range(prob.p):
        e = np.zeros_like(a)
        e[j] = h
        assert (loss(W, a + e) - loss(W, a - e)) / (2 * h) == pytest.approx(ga[j], rel=1e-6,
                                                                           abs=1e-10)
        for k in range(prob.d):
            E = np.zeros_like(W)
            E[j, k] = h
            fd = (loss(W + E, a) - loss(W - E, a)) / (2 * h)
            assert fd == pytest.approx(gW[j, k], rel=1e-6, abs=1e-10)


def test_simulate_rejects_bad_times():
    prob = generators.two_point(seed=0, p=10)
    for bad in ([], [0.0, 2.0, 1.0], [-1.0, 1.0], [0.0, np.inf]):
        with pytest.raises(ProblemError, match="t_eval"):
            simulate(prob, ExactFlow(), bad)
    with pytest.raises(ProblemError, match="method"):
        simulate(prob, "exact", [0.0, 1.0])


def test_generators_need_explicit_integer_seed():
    with pytest.raises(ProblemError, match="seed"):
        generators.orthonormal(n=2, d=2, p=3, lam=0.1, seed=None)
    a = generators.orthonormal(n=3, d=5, p=4, lam=0.1, seed=7)
    b = generators.orthonormal(n=3, d=5, p=4, lam=0.1, seed=7)
    assert a.content_hash == b.content_hash and a.meta["seed"] == 7
    # exact zeros: orthonormal data are rows of the identity
    assert np.count_nonzero(a.X @ a.X.T - np.eye(3)) == 0
