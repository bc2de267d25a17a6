"""The exact flow through sliding modes (Filippov / Clarke velocity on z_ij = 0)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from numerics import ExactFlow, GradientDescent, Problem, Status, generators, simulate
from numerics.coordinates import relative_difference
from numerics.sliding import ACTIVE, INACTIVE, SLIDING, classify_neuron

# Two samples in the plane, one neuron orthogonal to x_0: z_00 = 0 exactly at t = 0.
_X = np.array([[1.0, 0.5], [0.0, 1.0]])
_W0 = np.array([[-0.5, 1.0]])


def _on_surface(y) -> Problem:
    return Problem(X=_X, y=np.array(y, dtype=float), W0=_W0, a0=np.array([1.0]))


# -- the per-neuron solve ------------------------------------------------------------------
def _one_pair(a_j, g0, g1, c=0.25):
    """Sample 0 at its surface, sample 1 active; G = [[1, c], [c, 1]]."""
    G = np.array([[1.0, c], [c, 1.0]])
    return classify_neuron(G, np.array([g0, g1]), a_j, np.array([False, True]), np.array([0]))


def test_one_pair_attracted_from_both_sides_slides_with_the_alpha_that_holds_it():
    # dz_0 ∝ -(c g1 + g0 alpha) = 0.25 - 0.5 alpha: positive at 0, negative at 1
    classes, alpha, chosen = _one_pair(1.0, 0.5, -1.0)
    assert classes == {0: SLIDING} and alpha[0] == pytest.approx(0.5) and chosen == []


@pytest.mark.parametrize("g1, side", [(-4.0, ACTIVE), (1.0, INACTIVE)])
def test_one_pair_pushed_one_way_crosses(g1, side):
    classes, _, chosen = _one_pair(1.0, 0.5, g1)
    assert classes == {0: side} and chosen == []


def test_one_pair_repelled_from_both_sides_goes_inactive_and_says_so():
    # a g0 < 0: dz = -(0.25 g1 - 0.5 alpha), g1 = 1: -0.25 at alpha 0, +0.25 at alpha 1
    classes, _, chosen = _one_pair(1.0, -0.5, 1.0)
    assert classes == {0: INACTIVE} and chosen == [0]
    classes, _, chosen = _one_pair(1.0, -0.5, -1.0)  # pushed up whatever alpha: crosses
    assert classes == {0: ACTIVE} and chosen == []


def test_forced_pair_keeps_its_side():
    classes, alpha, _ = classify_neuron(np.eye(2), np.array([0.5, -1.0]), 1.0,
                                        np.array([False, True]), np.array([0]), {0: ACTIVE})
    assert classes == {0: ACTIVE} and alpha[0] == 1.0


@pytest.mark.parametrize("seed", range(40))
def test_attracting_pairs_satisfy_complementarity(seed):
    """All pairs attracting (a g > 0): the solve's answer is a solution of the box LCP, and
    the only one (checked against all 3^k sign patterns)."""
    rng = np.random.default_rng(seed)
    k, extra = int(rng.integers(1, 5)), 3
    V = rng.standard_normal((k + extra, k + extra + 2))
    G = V @ V.T
    g = np.abs(rng.standard_normal(k + extra)) * rng.choice([-1, 1], size=k + extra)
    a_j = 1.3
    g[:k] = np.abs(g[:k])  # a_j g_i > 0 on K
    active = np.zeros(k + extra, dtype=bool)
    active[k:] = rng.random(extra) < 0.7
    K = np.arange(k)
    classes, alpha, chosen = classify_neuron(G, g, a_j, active, K)
    q = G[np.ix_(K, np.flatnonzero(active))] @ g[active]
    al = np.array([alpha[i] for i in K])
    dz = -(q + G[np.ix_(K, K)] @ (al * g[K]))  # sign of dz_i (a_j > 0)
    tol = 1e-9 * (1 + np.abs(q).max())
    for i in K:
        if classes[i] == SLIDING:
            assert 0 < al[i] < 1 and abs(dz[i]) < tol
        elif classes[i] == ACTIVE:
            assert al[i] == 1 and dz[i] > -tol
        else:
            assert al[i] == 0 and dz[i] < tol
    assert chosen == []
    solutions = 0
    for pattern in itertools.product((INACTIVE, ACTIVE, SLIDING), repeat=k):
        fixed = np.array([{INACTIVE: 0.0, ACTIVE: 1.0}.get(c, np.nan) for c in pattern])
        S = np.flatnonzero(np.isnan(fixed))
        trial = np.nan_to_num(fixed)
        if S.size:
            rest = np.setdiff1d(K, S)
            rhs = q[S] + G[np.ix_(S, rest)] @ (trial[rest] * g[rest])
            trial[S] = -np.linalg.solve(G[np.ix_(S, S)], rhs) / g[S]
        rates = -(q + G[np.ix_(K, K)] @ (trial * g[K]))
        ok = all((c == SLIDING and 0 < trial[i] < 1) or (c == ACTIVE and rates[i] >= 0)
                 or (c == INACTIVE and rates[i] <= 0) for i, c in enumerate(pattern))
        solutions += ok
    assert solutions == 1


# -- flows that slide ------------------------------------------------------------------------
def _reduced_flow(y1, t_eval):
    """Neuron held on z_00 = 0: w = r u with u the unit normal to x_0, and (r, a) follow the
    flow of the loss restricted to that line, L = (y_0^2 + (y_1 - a r k)^2)/4, k = <u, x_1>."""
    r0 = np.linalg.norm(_W0[0])
    u = _W0[0] / r0
    k = u @ _X[1]

    def f(_t, s):
        r, a = s
        g1 = -(y1 - a * r * k) / 2
        return [-a * k * g1, -r * k * g1]

    sol = solve_ivp(f, (0, t_eval[-1]), [r0, 1.0], method="DOP853", rtol=1e-13, atol=1e-15,
                    t_eval=t_eval)
    return sol.y[0][:, None] * u, sol.y[1]


@pytest.mark.parametrize("coordinates", ["cartesian", "span"])
def test_sliding_from_the_start_is_the_flow_restricted_to_the_surface(coordinates):
    t = np.linspace(0, 5, 21)
    tr = simulate(_on_surface([-1.0, 2.0]), ExactFlow(coordinates=coordinates), t)
    assert tr.status is Status.SUCCESS
    assert tr.events[0].t == 0.0 and tr.events[0].direction == 0  # attached at once
    assert tr.sliding[:, 0, 0].all()
    assert tr.filippov_mask[0, 0, 0] == pytest.approx(0.4)  # (c g_1)/(G_00 g_0) at t = 0
    W_ref, a_ref = _reduced_flow(2.0, t)
    assert relative_difference(tr.W[:, 0:1], tr.a[:, 0:1], W_ref[:, None], a_ref[:, None]) < 1e-9
    assert np.max(np.abs(tr.preactivations[:, 0, 0])) < 1e-14


def test_repelled_from_both_sides_is_a_recorded_choice():
    tr = simulate(_on_surface([1.0, 0.0]), ExactFlow(), np.linspace(0, 5, 11))
    assert tr.status is Status.SUCCESS
    assert [(c.t, c.neuron, c.sample) for c in tr.choices] == [(0.0, 0, 0)]
    assert np.all(tr.preactivations[1:, 0, 0] < 0)  # left to the inactive side


@pytest.fixture(scope="module")
def sliding_run():
    """Sphere data with n > d (S000's R protocol, small): the earlier flow chattered at once."""
    problem = generators.sphere(8, 5, 6, seed=0)
    t = np.linspace(0, 16, 1601)
    return problem, simulate(problem, ExactFlow(), t)


def test_sphere_flow_slides_where_the_switching_flow_chattered(sliding_run):
    problem, tr = sliding_run
    assert tr.status is Status.SUCCESS, tr.message
    assert tr.sliding.any() and tr.t[-1] == 16
    old = simulate(problem, ExactFlow(sliding=False, error_check=None), tr.t[:11])
    assert old.status is Status.CHATTERING
    assert tr.error_estimate < 1e-8


def test_sliding_run_keeps_balance_and_its_constraints(sliding_run):
    problem, tr = sliding_run
    assert tr.conservation_drift < 1e-8
    vW, _ = tr.velocity
    dz = np.einsum("tjd,id->tji", vW, problem.X)
    scale = np.linalg.norm(vW, axis=-1)[..., None] * np.linalg.norm(problem.X, axis=1)
    assert np.max(np.abs(dz[tr.sliding]) / scale[tr.sliding]) < 1e-9
    assert np.max(np.abs(tr.preactivations[tr.sliding])) < 1e-12
    al = tr.filippov_mask[tr.sliding]
    assert np.all((al >= 0) & (al <= 1))


def test_energy_identity_holds_along_sliding_segments(sliding_run):
    """dL/dt = -|dtheta/dt|^2 / kappa with the Filippov velocity: finite differences of the
    saved loss against the velocity, at times away from events (central differences,
    error O(h^2) = 1e-4 h-relative here)."""
    problem, tr = sliding_run
    vW, va = tr.velocity
    speed = (np.sum(vW**2, axis=(1, 2)) + np.sum(va**2, axis=1)) / problem.flow_factor
    dL = np.gradient(tr.loss, tr.t)
    sliding_now = tr.sliding.any(axis=(1, 2))
    events = np.array([e.t for e in tr.events])
    h = tr.t[1] - tr.t[0]
    calm = np.array([np.all(np.abs(events - t) > 2 * h) for t in tr.t])
    pick = sliding_now & calm
    pick[[0, -1]] = False
    assert pick.sum() > 100
    rel = np.abs(dL[pick] + speed[pick]) / speed[pick]
    assert np.median(rel) < 1e-4 and np.max(rel) < 1e-2
    # the PL ratio reads the same velocity: -dL/dt / L
    assert np.allclose(tr.pl[pick], speed[pick] / tr.loss[pick], rtol=1e-12)


def test_span_and_cartesian_coordinates_agree_through_sliding(sliding_run):
    problem, tr = sliding_run
    t = tr.t[::100]
    span = simulate(problem, ExactFlow(coordinates="span", error_check=None), t)
    cart = simulate(problem, ExactFlow(coordinates="cartesian", error_check=None), t)
    assert relative_difference(span.W, span.a, cart.W, cart.a) < 1e-7


def test_gradient_descent_converges_to_the_sliding_flow():
    problem = generators.sphere(6, 4, 6, seed=1)
    t = np.linspace(0, 12, 13)
    flow = simulate(problem, ExactFlow(), t)
    assert flow.sliding.any()
    steps = [4e-3 / 2**k for k in range(4)]
    errors = []
    for lr in steps:
        gd = simulate(problem, GradientDescent(lr=lr, error_check=None), t)
        errors.append(relative_difference(gd.W, gd.a, flow.W, flow.a))
    assert all(b < a for a, b in itertools.pairwise(errors))
    order = np.polyfit(np.log(steps), np.log(errors), 1)[0]
    assert order > 0.5, (errors, order)


def test_non_sliding_runs_are_unchanged():
    for problem in (generators.two_point(p=20, seed=1),
                    generators.orthonormal(n=4, d=4, p=30, lam=1e-6, seed=3),
                    generators.separable(n=6, d=3, p=10, seed=2, mu=0.2, eps=1e-4)):
        t = np.linspace(0, 60, 61)
        new = simulate(problem, ExactFlow(error_check=None), t)
        old = simulate(problem, ExactFlow(error_check=None, sliding=False), t)
        assert not new.sliding.any()
        assert relative_difference(new.W, new.a, old.W, old.a) < 1e-9


def test_lognorm_coordinates_detect_and_name_the_sliding_mode():
    tr = simulate(generators.sphere(8, 5, 6, seed=0),
                  ExactFlow(coordinates="lognorm", error_check=None), np.linspace(0, 16, 17))
    assert tr.status is Status.CHATTERING
    assert "lognorm coordinates do not integrate sliding modes" in tr.message


def test_min_norm_box_with_linearly_dependent_samples():
    """Three samples in the plane make the Gram matrix singular (Cholesky fails): the
    minimal-norm activations must still minimise |b + sum_i alpha_i g_i x_i| over the box,
    as the same bounded least squares written in the primal variables does."""
    from scipy.optimize import lsq_linear

    from numerics.sliding import _min_norm_box

    rng = np.random.default_rng(3)
    for _ in range(20):
        X = rng.normal(size=(3, 2))
        g = rng.choice([-1.0, 1.0], size=3) * rng.uniform(0.5, 2.0, size=3)
        b = rng.normal(size=2)
        G = X @ X.T
        assert np.linalg.matrix_rank(G) == 2
        alpha = _min_norm_box(G, g, X @ b)
        assert np.all((alpha >= 0) & (alpha <= 1))
        ref = lsq_linear(X.T * g[None, :], -b, bounds=(0.0, 1.0), method="bvls", tol=1e-14)
        ours = np.linalg.norm(b + (alpha * g) @ X)
        best = np.linalg.norm(b + (ref.x * g) @ X)
        assert ours <= best + 1e-10
