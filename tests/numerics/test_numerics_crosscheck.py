"""Methods checked against each other, and the generators against their documented laws.

- HighPrecisionFlow (mpmath, 50 digits) against ExactFlow (DOP853);
- ClosedForm (CF-7 group initialisation, CF-8 aligned logistic law) against ExactFlow;
- mean-field against the rescaled standard parametrisation (D-MAP / S000-P1);
- log-norm coordinates at tiny scales against CF-8's plateau times (N-4);
- every generator's documented properties.
"""

from __future__ import annotations

import numpy as np
import pytest
from mpmath import mp

from numerics import ExactFlow, MethodError, Problem, ProblemError, Status, generators, simulate
from numerics.closed_form import ClosedForm, ClosedFormError, logistic_half_time, phase_law
from numerics.coordinates import relative_difference
from numerics.mpflow import HighPrecisionFlow

# ExactFlow at rtol 1e-12/1e-13 is accurate to ~1e-11 relative on these short runs;
# the cross-checks ask for 1e-9 (mp) and 1e-8 (closed form), i.e. 100x margin.
TIGHT = ExactFlow(rtol=1e-12, error_check=None)


def _rel(a, b) -> float:
    return relative_difference(a.W, a.a, b.W, b.a)


# -- HighPrecisionFlow ---------------------------------------------------------------------
def test_high_precision_agrees_with_exact_flow_through_a_switch():
    problem = generators.two_point(p=3, lam=0.3, seed=3)
    t = np.linspace(0, 8, 9)
    dps_before = mp.dps
    hp = simulate(problem, HighPrecisionFlow(digits=50), t)
    assert mp.dps == dps_before, "the global mpmath precision must not change"
    exact = simulate(problem, ExactFlow(rtol=1e-13, error_check=None), t)
    assert hp.status is Status.SUCCESS and exact.status is Status.SUCCESS
    assert [(e.neuron, e.sample, e.direction) for e in hp.events] == [
        (e.neuron, e.sample, e.direction) for e in exact.events
    ] and hp.events, "both must see the same (non-empty) switches"
    assert abs(hp.events[0].t - exact.events[0].t) < 1e-9
    assert _rel(hp, exact) < 1e-9
    # the 35-digit companion agrees with the 50-digit run far below float64's resolution
    assert hp.error_estimate < 1e-30
    assert hp.high_precision[0].shape == (9, 3, 2)
    assert hp.log_norms.shape == (9, 3)


@pytest.mark.parametrize("loss", ["exponential", "logistic"])
def test_high_precision_classification_losses(loss):
    problem = generators.separable(n=3, d=2, p=3, seed=4, mu=0.2, eps=0.5, loss=loss)
    t = np.linspace(0, 3, 4)
    hp = simulate(problem, HighPrecisionFlow(digits=50, error_check=False), t)
    exact = simulate(problem, ExactFlow(rtol=1e-13, error_check=None), t)
    assert hp.status is Status.SUCCESS
    assert _rel(hp, exact) < 1e-9


def test_high_precision_refuses_large_problems():
    problem = generators.orthonormal(n=6, d=8, p=10, lam=1e-3, seed=0)
    with pytest.raises(MethodError, match="max_size"):
        simulate(problem, HighPrecisionFlow(), [0.0, 1.0])


# -- ClosedForm --------------------------------------------------------------------------------
@pytest.mark.parametrize("aligned", [False, True])
@pytest.mark.parametrize("parametrization", ["mean_field", "standard"])
def test_closed_form_group_initialisation_matches_exact_flow(aligned, parametrization):
    problem = generators.group(6, (1, 2, 3), seed=2, scale=0.05, aligned=aligned,
                               parametrization=parametrization)
    t = np.linspace(0, 40, 81)
    cf = simulate(problem, ClosedForm(), t)
    exact = simulate(problem, TIGHT, t)
    assert not exact.events, "group neurons never switch (CF-7 setting)"
    assert _rel(cf, exact) < 1e-8
    assert cf.error_estimate < 1e-12
    assert exact.loss[-1] < 1e-3 * exact.loss[0], "the run covers the transitions"


def test_closed_form_cf8_aligned_neurons_share_the_logistic_law():
    # orthonormal data; two neurons aligned with D_+ (both active exactly on the
    # positives) and one aligned with -D_-: CF-8's phase law is then exact.
    X = np.eye(4)
    y = np.array([1.0, 0.5, -0.8, -0.3])
    dplus, dminus = np.where(y > 0, y, 0), np.where(y < 0, -y, 0)
    U = np.array([dplus, dplus, dminus]) / np.linalg.norm([dplus, dplus, dminus], axis=1)[:, None]
    scales = np.array([1e-4, 3e-4, 2e-4])
    W0 = scales[:, None] * U
    a0 = np.array([1.0, 1.0, -1.0]) * scales
    problem = Problem(X=X, y=y, W0=W0, a0=a0)
    t = np.linspace(0, 30, 61)
    cf = simulate(problem, ClosedForm(), t)
    assert _rel(cf, simulate(problem, TIGHT, t)) < 1e-8
    capacity, rate = phase_law(problem, +1)
    u = np.sum(cf.W[:, :2] ** 2, axis=(1, 2))
    u_half = t[np.argmax(u >= capacity / 2)]
    t_half = logistic_half_time(np.sum(scales[:2] ** 2), capacity, rate)
    assert t_half <= u_half < t_half + 0.5


def test_closed_form_refuses_problems_outside_its_setting():
    random_init = generators.orthonormal(n=3, d=3, p=5, lam=1e-3, seed=0)
    with pytest.raises(ClosedFormError):
        simulate(random_init, ClosedForm(), [0.0, 1.0])
    g = generators.group(4, 2, seed=0)
    with pytest.raises(ClosedFormError, match="balanced"):
        simulate(g.with_initialisation(g.W0, 2 * g.a0), ClosedForm(), [0.0, 1.0])


# -- D-MAP: mean-field theta = sqrt(p) * standard theta~ ------------------------------------
def test_mean_field_is_rescaled_standard():
    mf = generators.sphere(n=5, d=8, p=6, seed=7)
    p = mf.p
    std = mf.with_initialisation(mf.W0 / np.sqrt(p), mf.a0 / np.sqrt(p),
                                 parametrization="standard")
    t = np.linspace(0, 20, 41)
    a, b = simulate(mf, TIGHT, t), simulate(std, TIGHT, t)
    assert a.events, "the instance should switch activations"
    scaled = relative_difference(a.W, a.a, np.sqrt(p) * b.W, np.sqrt(p) * b.a)
    assert scaled < 1e-9
    assert np.allclose(a.loss, b.loss, rtol=1e-9, atol=0)


# -- tiny scales in log-norm coordinates (N-4, CF-8) ------------------------------------------
def _half_capacity_time(traj, neurons, capacity) -> float:
    """u_+ crosses capacity/2, interpolating logit(u/C) (linear in t for the logistic law)."""
    u = np.sum(np.exp(2 * traj.log_norms[:, neurons]), axis=1)
    k = int(np.argmax(u >= capacity / 2))
    assert 0 < k, "u_+ must cross half capacity inside the window"
    logit = np.log(u[k - 1 : k + 1] / (capacity - u[k - 1 : k + 1]))
    return float(traj.t[k - 1] - logit[0] * (traj.t[k] - traj.t[k - 1]) / (logit[1] - logit[0]))


def test_lognorm_plateau_times_follow_cf8_down_to_tiny_scales():
    scales = [1e-20, 1e-40, 1e-60, 1e-150]
    offsets, rel_gaps = [], []
    for lam in scales:
        problem = generators.two_point(p=10, lam=lam, seed=5)  # same directions for every lam
        capacity, rate = phase_law(problem, +1)
        x_pos = problem.X[problem.y > 0][0]
        s_plus = np.flatnonzero((problem.a0 > 0) & (problem.W0 @ x_pos >= 0))  # S_{+,1}
        u0 = float(np.sum(np.exp(2 * np.log(np.linalg.norm(problem.W0[s_plus], axis=1)))))
        t_pred = -np.log(lam) / (rate / 2)  # -ln(lam)/||D_+||
        t = np.concatenate([[0.0], np.linspace(t_pred - 15, t_pred + 5, 801)])
        traj = simulate(problem, ExactFlow(coordinates="lognorm", rtol=1e-10), t)
        assert traj.status is Status.SUCCESS
        assert np.all(np.isfinite(traj.log_norms)), "log-norms never underflow"
        t_meas = _half_capacity_time(traj, s_plus, capacity)
        offsets.append(t_meas - logistic_half_time(u0, capacity, rate))
        rel_gaps.append(abs(t_meas / t_pred - 1))
    # measured = CF-8 half time + an O(1) alignment lag that does not depend on lam
    assert max(abs(o) for o in offsets) < 3.0
    assert np.ptp(offsets) < 1e-5, offsets
    # and the leading law -ln(lam)/||D_+|| is approached: the relative gap shrinks
    assert all(b < a for a, b in zip(rel_gaps, rel_gaps[1:], strict=False)), rel_gaps


def test_lognorm_matches_cartesian_at_moderate_scale():
    problem = generators.orthogonal_scaled(n=4, d=5, p=4, seed=2, repo_orth=True)  # unbalanced
    t = np.linspace(0, 30, 31)
    a = simulate(problem, TIGHT, t)
    b = simulate(problem, ExactFlow(rtol=1e-12, error_check=None, coordinates="lognorm"), t)
    assert _rel(a, b) < 1e-9
    assert np.allclose(b.log_norms, np.log(a.neuron_norms), atol=1e-9, rtol=0)


# -- generators: documented properties ---------------------------------------------------------
def _offdiag(M):
    return M - np.diag(np.diag(M))


def test_orthogonal_scaled_exact_zeros_and_asymmetric_init():
    prob = generators.orthogonal_scaled(n=6, d=9, p=5, seed=3)
    assert np.all(_offdiag(prob.X @ prob.X.T) == 0.0)
    assert np.count_nonzero(prob.X) == prob.n
    norms = np.linalg.norm(prob.X, axis=1)
    assert np.all((norms >= 1) & (norms <= 2)) and np.all(np.abs(prob.y) >= 1)
    assert np.all(np.abs(prob.a0) > np.linalg.norm(prob.W0, axis=1))
    assert np.all(np.abs(prob.W0) <= 1 / np.sqrt(prob.d))
    assert prob.parametrization == "mean_field" and prob.meta["seed"] == 3


def test_orthogonal_scaled_rejection_gives_q_good():
    prob = generators.orthogonal_scaled(n=20, d=25, p=6, seed=1, repo_orth=True)
    assert generators.is_good_initialisation(prob.X, prob.y, prob.W0, prob.a0)
    assert prob.meta["q_good"] and prob.meta["redraws"] >= 1
    assert np.all(np.abs(prob.a0) >= 100 * np.linalg.norm(prob.W0, axis=1))
    with pytest.raises(ProblemError, match="max_redraws"):
        generators.orthogonal_scaled(n=20, d=25, p=6, seed=1, repo_orth=True, max_redraws=0)


def test_sphere_and_correlated_laws():
    s = generators.sphere(n=7, d=12, p=4, seed=0)
    norms = np.linalg.norm(s.X, axis=1)
    assert np.all((norms >= 1) & (norms <= 2))
    assert np.all(np.abs(s.a0) > np.linalg.norm(s.W0, axis=1))
    for rotate in (False, True):
        c = generators.correlated(n=5, d=7, p=3, seed=0, rho=0.2, rotate=rotate)
        G = c.X @ c.X.T
        assert np.allclose(np.diag(G), 1, atol=1e-15, rtol=0)
        assert np.allclose(_offdiag(G) + np.eye(5) * 0.2, 0.2, atol=1e-15, rtol=0)
        assert c.meta["gamma_max"] == pytest.approx(4 * 0.2, rel=1e-12)
    zero = generators.correlated(n=5, d=7, p=3, seed=0, rho=0.0)
    assert np.all(_offdiag(zero.X @ zero.X.T) == 0.0)


def test_separable_records_exact_mu_and_balanced_init():
    prob = generators.separable(n=12, d=6, p=5, seed=2, mu=0.3, eps=1e-3)
    Z = prob.y[:, None] * prob.X / np.linalg.norm(prob.X, axis=1, keepdims=True)
    assert prob.meta["mu"] == pytest.approx(np.min(Z @ Z.T), abs=0)
    assert prob.meta["mu"] == pytest.approx(0.3, abs=1e-12)
    assert set(prob.y) == {-1.0, 1.0} and prob.loss == "exponential"
    assert np.allclose(np.abs(prob.a0), np.linalg.norm(prob.W0, axis=1), rtol=1e-15)
    logistic = generators.separable(n=12, d=6, p=5, seed=2, mu=0.3, eps=1e-3, loss="logistic")
    assert logistic.loss_scale == 2.0
    for bad in (0.0, -0.1, 1.5):
        with pytest.raises(ProblemError, match="mu"):
            generators.separable(n=4, d=3, p=2, seed=0, mu=bad, eps=1e-3)


def test_two_point_separable_and_digits():
    toy = generators.two_point_separable(angle=0.1, p=4, seed=0, eps=1e-3)
    assert toy.meta["mu"] == pytest.approx(np.sin(0.1), rel=1e-14)
    assert np.all(toy.y == 1.0)
    ortho = generators.two_point_separable(angle=0.0, p=4, seed=0, eps=1e-3)
    assert ortho.meta["mu"] == 0.0 and not ortho.meta["satisfies_A1"]
    dig = generators.digits(pair=(3, 8), p=4, seed=1, eps=1e-6, n_per_class=30)
    assert dig.X.shape == (60, 64) and np.allclose(dig.X.mean(axis=0), 0, atol=1e-15)
    assert np.sum(dig.y == 1) == 30 and np.sum(dig.y == -1) == 30


def test_group_support_is_exact():
    prob = generators.group(9, (2, 3, 4), seed=1, d=11, group_norms=(1.0, 2.0, 3.0))
    active = prob.W0 @ prob.X.T > 0
    for j, members in enumerate(prob.meta["groups"]):
        outside = np.setdiff1d(np.arange(prob.d), members)
        assert np.all(prob.W0[j, outside] == 0.0) and np.all(prob.W0[j, members] > 0)
        assert np.array_equal(np.flatnonzero(active[j]), members)
        assert np.all(np.sign(prob.a0[j]) * prob.y[members] > 0)
        assert np.linalg.norm(prob.y[members]) == pytest.approx(j + 1.0, rel=1e-14)
    assert np.allclose(prob.a0**2, np.sum(prob.W0**2, axis=1), rtol=1e-15)


def test_unbalanced_gaussian_scale():
    W0, a0 = generators.unbalanced_gaussian(400, 50, 1e-6, seed=0)
    assert W0.shape == (400, 50) and a0.shape == (400,)
    assert np.std(W0) == pytest.approx(1e-6, rel=0.02)


GENERATORS = {
    "orthogonal_scaled": lambda s: generators.orthogonal_scaled(5, 6, 4, s, repo_orth=True),
    "sphere": lambda s: generators.sphere(5, 6, 4, s),
    "correlated": lambda s: generators.correlated(4, 6, 3, s, rho=0.1, rotate=True),
    "separable": lambda s: generators.separable(6, 4, 3, s, mu=0.2, eps=1e-2),
    "two_point_separable": lambda s: generators.two_point_separable(0.1, 4, s, 1e-3),
    "digits": lambda s: generators.digits(p=3, seed=s, n_per_class=10),
    "group": lambda s: generators.group(6, 3, s),
}


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_same_seed_same_problem(name):
    make = GENERATORS[name]
    first, again, other = make(11), make(11), make(12)
    assert first.content_hash == again.content_hash
    assert first.content_hash != other.content_hash
    assert first.meta["generator"] == name and first.meta["seed"] == 11
    with pytest.raises(ProblemError, match="seed"):
        make(1.5)


@pytest.mark.parametrize("parametrization", ["mean_field", "standard"])
def test_closed_form_method_evaluates_the_theory_formulas(parametrization):
    """numerics.closed_form writes CF-7 in a numerically stable form (log-cosh, for tau up
    to ~1e100) that numerics may not import from theory; here it must agree with
    theory.closed_forms' sympy formulas (group_alignment, group_norm, lambdified through
    theory.bridge) wherever those can be evaluated, so the two cannot drift apart."""
    import sympy as sp

    from numerics.closed_form import decompose
    from theory import closed_forms as cf_theory
    from theory import symbols as S

    problem = generators.group(6, (1, 2, 3), seed=2, scale=0.05, aligned=False,
                               parametrization=parametrization)
    t = np.linspace(0, 40, 81)
    run = simulate(problem, ClosedForm(), t)
    q, kappa = 1.0 / problem.output_factor, problem.flow_factor
    tt, N0, c0, Y = sp.symbols("tt N0 c0 Y", positive=True)
    norm = sp.lambdify((tt, N0, c0, Y), cf_theory.group_norm(tt, N0, c0, Y, problem.n, q, kappa))
    cos = sp.lambdify((tt, c0, Y), cf_theory.group_alignment(tt, c0, Y, problem.n, q, kappa))
    assert S.p not in cf_theory.group_norm(tt, N0, c0, Y, problem.n, q, kappa).free_symbols
    for g in decompose(problem):
        assert g.rho == pytest.approx(1.0) and len(g.neurons) == 1
        (j,) = g.neurons
        w = run.W[:, j, :]
        measured_norm = np.sum(w**2, axis=1)
        measured_cos = (w @ g.yhat) / np.sqrt(measured_norm)  # yhat = s y_G / Y
        np.testing.assert_allclose(measured_norm, norm(t, g.N0[0], g.c0, g.Y), rtol=1e-10)
        np.testing.assert_allclose(measured_cos, cos(t, g.c0, g.Y), rtol=1e-10, atol=1e-12)
    # CF-8: numerics' rate r is u' = r (1 - u/U) u, theory's D is r/2 (u' = 2D (1 - u/U) u)
    assert logistic_half_time(1e-4, 2.0, 0.5) == pytest.approx(
        float(cf_theory.logistic_half_time(1e-4, 0.25, 2.0)), rel=1e-14)
