"""CEL23's exact yardsticks (papers/cel23/yardstick.py) against an independent event-driven
ODE solution, and the paper's yardstick and instance facts (P2, P11-P14, P16, P17, P22,
catalogue 4.1-4.4) on small random instances drawn as in its section 8, inside the pi/4
condition."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from papers.cel23 import yardstick as yk

# (d = n, m, seed): together they have s = +1 yardsticks with 0..3 crossings and
# s = -1 yardsticks with 1..4 crossings
CASES = [(2, 4, 1), (2, 6, 0), (3, 5, 2), (3, 8, 1), (4, 6, 1), (4, 8, 2), (4, 8, 1)]
H = 1e-6  # one-sided offset for limits at crossing times


def draw(d: int, m: int, seed: int):
    rng = np.random.default_rng(seed)
    while True:
        mu = rng.standard_normal(d)
        mu /= np.linalg.norm(mu)
        X = mu + rng.standard_normal((d, d)) / math.sqrt(d)
        if np.min(X @ mu / np.linalg.norm(X, axis=1)) > 1 / math.sqrt(2):
            break
    Z = rng.standard_normal((m, d)) / math.sqrt(d * m)
    s = rng.choice([-1, 1], size=m)
    return X, np.maximum(X @ mu, 0.0), mu, Z, s


def numeric_cos_phi(X, y, a):
    """cos angle(alpha, gamma_{I_+(alpha)}) with the active set read off alpha's signs."""
    g = yk.gamma(X, y, X @ a > 0)
    return float(a @ g / (np.linalg.norm(a) * np.linalg.norm(g)))


@pytest.fixture(scope="module", params=CASES, ids=[f"d{d}m{m}s{k}" for d, m, k in CASES])
def inst(request):
    X, y, vstar, Z, s = draw(*request.param)
    ys = yk.yardsticks(X, y, Z, s)
    t_end = yk.T0(ys) + 2.0
    runs = {}
    for j, Y in ys.items():
        grid = np.unique(np.concatenate([np.linspace(0.0, t_end, 401),
                                         np.array(Y.times) - H, np.array(Y.times) + H]))
        t, a, events = yk.integrate(X, y, Y.z, Y.s, t_end, t_eval=grid, return_events=True)
        runs[j] = (t, a, events)
    return dict(X=X, y=y, vstar=vstar, Z=Z, s=s, ys=ys, t_end=t_end, runs=runs,
                items=yk.delta_items(X, y, vstar, Z, s, ys))


def test_cases_cover_both_signs_and_several_crossings():
    seen = set()
    for case in CASES:
        X, y, _, Z, s = draw(*case)
        seen |= {(Y.s, Y.n_j) for Y in yk.yardsticks(X, y, Z, s).values()}
    assert {(1, 0), (1, 2), (1, 3), (-1, 1), (-1, 3), (-1, 4)} <= seen


def test_closed_form_matches_integrator(inst):
    for j, (t, a, _) in inst["runs"].items():
        cf = inst["ys"][j].alpha(t)
        assert cf.shape == a.shape
        err = np.linalg.norm(cf - a, axis=1) / np.linalg.norm(a, axis=1)
        assert err.max() < 1e-8, (j, err.max())
        assert np.allclose(inst["ys"][j].alpha(float(t[7])), cf[7], rtol=0, atol=0)


def test_crossings_and_times_match_integrator_events(inst):
    """P2: the enumeration i^1..i^{n_j} of I_{-s}(z) and the times, from two methods."""
    X = inst["X"]
    for j, (_, _, events) in inst["runs"].items():
        Y = inst["ys"][j]
        assert [i for _, i in events] == list(Y.crossings)
        assert np.allclose([te for te, _ in events], Y.times, rtol=1e-9, atol=1e-12)
        side = X @ Y.z < 0 if Y.s > 0 else X @ Y.z > 0
        assert sorted(Y.crossings) == np.flatnonzero(side).tolist()
        assert all(np.diff((0.0, *Y.times)) > 0)


def test_stage_bookkeeping(inst):
    """P14(iv): on each stage I_+(alpha) = I^l; the stage's alpha0 and gamma are right."""
    X, y = inst["X"], inst["y"]
    for j, (t, a, _) in inst["runs"].items():
        Y = inst["ys"][j]
        for st in Y.stages:
            assert np.allclose(st.gamma, yk.gamma(X, y, list(st.active)), rtol=0, atol=1e-15)
            inside = (t > st.start + 1e-5) & (t < st.end - 1e-5)
            for ai in a[inside]:  # a frozen yardstick sits on x_{i^{n_j}}'s boundary
                tol = 1e-9 * np.linalg.norm(ai) * np.linalg.norm(X, axis=1)
                assert tuple(np.flatnonzero(X @ ai > tol)) == st.active
        assert Y.stages[0].start == 0 and np.array_equal(Y.stages[0].alpha0, Y.z)
        assert Y.stages[-1].end == math.inf and Y.stages[-1].crossing is None
        assert len(Y.stages[-1].active) == (len(X) if Y.s > 0 else 0)


def test_log_and_angle_stage_lengths_agree(inst):
    """4.1's log formula (used in the module) against 4.3's angle formula."""
    X = inst["X"]
    for Y in inst["ys"].values():
        for st in Y.stages[:Y.n_j]:
            a0 = st.alpha0 / np.linalg.norm(st.alpha0)
            k = np.linalg.norm(st.gamma)
            g = st.gamma / k
            x = X[st.crossing] / np.linalg.norm(X[st.crossing])
            a, b = a0 @ x, g @ x
            phi0 = math.acos(a0 @ g)
            phi1 = math.atan2(b * math.sin(phi0), b * math.cos(phi0) - a)
            length = Y.s * (math.atanh(math.cos(phi1)) - math.atanh(math.cos(phi0))) / k
            assert length == pytest.approx(st.end - st.start, rel=1e-9, abs=1e-12)


def test_p13_norm_formula(inst):
    for j, (t, a, _) in inst["runs"].items():
        Y = inst["ys"][j]
        for st in Y.stages:
            k = np.linalg.norm(st.gamma)
            if k == 0:
                continue
            A = np.linalg.norm(st.alpha0)
            cos0 = st.alpha0 @ st.gamma / (A * k)
            sel = (t >= st.start) & (t <= st.end)
            dt = t[sel] - st.start
            norm = 0.5 * A * ((1 + Y.s * cos0) * np.exp(k * dt)
                              + (1 - Y.s * cos0) * np.exp(-k * dt))
            assert np.allclose(norm, np.linalg.norm(a[sel], axis=1), rtol=1e-9, atol=0)


def test_p14vi_p22_cos_phi_tanh_law(inst):
    """cos phi = tanh(artanh cos phi(start+) + s |gamma| (t - start)) inside every stage
    (P14(vi)), including the last all-active stage of s = +1 (P22); cos_phi is nan once an
    s = -1 yardstick is frozen."""
    X, y = inst["X"], inst["y"]
    for j, (t, a, _) in inst["runs"].items():
        Y = inst["ys"][j]
        for st in Y.stages:
            inside = (t > st.start + 1e-5) & (t < st.end - 1e-5)
            if not st.active:
                assert np.all(np.isnan(Y.cos_phi(t[inside])))
                continue
            k = np.linalg.norm(st.gamma)
            c0 = Y.cos_phi(st.start)
            assert c0 == pytest.approx(st.alpha0 @ st.gamma / (np.linalg.norm(st.alpha0) * k))
            law = np.tanh(np.arctanh(c0) + Y.s * k * (t[inside] - st.start))
            num = [numeric_cos_phi(X, y, ai) for ai in a[inside]]
            assert np.allclose(law, num, rtol=0, atol=1e-9)
            assert np.allclose(law, Y.cos_phi(t[inside]), rtol=0, atol=1e-12)


def test_p14_vii_viii_ix_at_crossings(inst):
    """(vii)/(viii): |gamma_{I^l}| cos phi^{l-} = |gamma_{I^{l+1}}| cos phi^{l+}, with the
    one-sided limits taken from the integrator at tau^l -+ 1e-6; (ix): phi -> pi/2 at the
    last crossing of an s = -1 yardstick."""
    X, y = inst["X"], inst["y"]
    for j, (t, a, _) in inst["runs"].items():
        Y = inst["ys"][j]
        for l, tau in enumerate(Y.times):
            left, right = a[np.searchsorted(t, tau - H)], a[np.searchsorted(t, tau + H)]
            g_left = yk.gamma(X, y, X @ left > 0)
            assert np.allclose(g_left, Y.stages[l].gamma, rtol=0, atol=1e-15)
            lhs = np.linalg.norm(g_left) * numeric_cos_phi(X, y, left)
            if l == Y.n_j - 1 and Y.s < 0:
                assert abs(numeric_cos_phi(X, y, left)) < 1e-5  # (ix)
                ca = Y.alpha(tau) @ Y.stages[l].gamma / np.linalg.norm(Y.alpha(tau))
                assert abs(ca) < 1e-12
                continue
            rhs = np.linalg.norm(yk.gamma(X, y, X @ right > 0)) * numeric_cos_phi(X, y, right)
            assert lhs == pytest.approx(rhs, abs=1e-5)
            assert lhs > rhs if Y.s < 0 else True  # dropping a point lowers |gamma| cos


def test_p11_and_p12(inst):
    """P11(ii): alpha . gamma_{I_+(alpha)} >= 0; (iv): |alpha|^2 >= |z|^2 e^{-2|gamma_[n]| t};
    P12: s alpha.x_i strictly increasing while gamma != 0; 4.5: |alpha| <= |z| e^{|gamma_[n]| t}."""
    X, y = inst["X"], inst["y"]
    kn = np.linalg.norm(yk.gamma(X, y, np.ones(len(X), bool)))
    t = np.linspace(0.0, inst["t_end"], 3001)
    for Y in inst["ys"].values():
        a = Y.alpha(t)
        na = np.linalg.norm(a, axis=1)
        nz = np.linalg.norm(Y.z)
        assert np.all(na**2 >= nz**2 * np.exp(-2 * kn * t) * (1 - 1e-12))
        assert np.all(na <= nz * np.exp(kn * t) * (1 + 1e-12))
        # >= 0 up to the rounding of the dot product: after an s = -1 yardstick's last
        # crossing alpha is orthogonal to gamma and the product is 0 up to round-off, whose
        # sign depends on the numpy build: -3.3e-19 at d = 4, m = 8, seed 1 with numpy 2.4.6)
        for ai in a[::50]:
            g = yk.gamma(X, y, X @ ai > 0)
            assert ai @ g >= -1e-12 * np.linalg.norm(ai) * np.linalg.norm(g)
        moving = t <= (Y.times[-1] if Y.s < 0 else math.inf)
        assert np.all(np.diff(Y.s * a[moving] @ X.T, axis=0) > 0)
        if Y.s < 0:
            assert np.array_equal(a[~moving], np.tile(a[~moving][0], (np.sum(~moving), 1)))


def test_p16_gamma_n(inst):
    X, y, vstar = inst["X"], inst["y"], inst["vstar"]
    eta, U, nu = yk.eigen(X, vstar)
    g = yk.gamma(X, y, np.arange(len(X)))
    assert np.allclose(g, X.T @ X @ vstar / len(X), rtol=0, atol=1e-14)
    assert np.allclose(g, U @ (eta * nu), rtol=0, atol=1e-14)


def test_eigen_and_gamma_conventions(inst):
    X, y, vstar = inst["X"], inst["y"], inst["vstar"]
    eta, U, nu = yk.eigen(X, vstar)
    Hm = X.T @ X / len(X)
    assert np.all(np.diff(eta) < 0) and np.all(nu > 0)
    assert np.allclose(U.T @ U, np.eye(len(eta)), atol=1e-13)
    assert np.allclose(Hm @ U, U * eta, atol=1e-13)
    assert np.allclose(U @ nu, vstar, atol=1e-13)
    mask = np.arange(len(X)) % 2 == 0
    by_hand = sum(y[i] * X[i] for i in range(len(X)) if mask[i]) / len(X)
    assert np.allclose(yk.gamma(X, y, mask), by_hand, atol=1e-15)
    assert np.allclose(yk.gamma(X, y, np.flatnonzero(mask)), by_hand, atol=1e-15)
    assert not yk.gamma(X, y, []).any()


def test_p17_instance_bounds(inst):
    X, y, vstar, items = inst["X"], inst["y"], inst["vstar"], inst["items"]
    n, d = X.shape
    delta, Delta = items["delta"], items["Delta"]
    assert 0 < delta <= 1 <= Delta
    eta, _, _ = yk.eigen(X, vstar)
    assert eta[0] <= Delta**2  # (i)
    assert np.all(eta[1:] / eta[:-1] <= (1 - delta / ((d - 1) * Delta)) ** 2)  # (ii)
    for size in range(1, n + 1):  # (iii)
        for I in itertools.combinations(range(n), size):
            gn = np.linalg.norm(yk.gamma(X, y, list(I)))
            assert delta**2.5 * size / (math.sqrt(2) * n) <= gn <= Delta**2 * size / n
    assert delta**2 <= np.linalg.norm(yk.gamma(X, y, list(range(n))))
    assert yk.T0(inst["ys"]) - 1 < 4 * n * math.log(n) / delta**3  # (vi)


def test_delta_items(inst):
    X, y, vstar, Z, s, ys, items = (inst[k] for k in ("X", "y", "vstar", "Z", "s", "ys", "items"))
    assert list(items) == [*yk.DELTA_ITEMS, "delta", "Delta"]
    assert items["delta"] == min(items[k] for k in yk.DELTA_ITEMS)
    assert all(items[k] > 0 for k in yk.DELTA_ITEMS)  # A1 holds on these draws
    assert items["Delta"] == max(1.0, *np.linalg.norm(X, axis=1), *np.linalg.norm(Z, axis=1))
    assert items["min_x_norm"] == pytest.approx(np.linalg.norm(X, axis=1).min())
    eta, _, nu = yk.eigen(X, vstar)
    assert items["sqrt_eta_d"] == pytest.approx(math.sqrt(eta[-1]))
    assert items["min_nu_star"] == pytest.approx(nu.min() * math.sqrt(len(eta)))
    lengths = [np.diff((0.0, *Y.times)).min() for Y in ys.values() if Y.n_j]
    assert items["min_stage_length"] == (min(lengths) if lengths else math.inf)
    minus = [j for j, Y in ys.items() if Y.s < 0]
    if not minus:
        assert items["min_sin_phi0_minus"] == items["min_exit_cosine_minus"] == math.inf
    # item 9 by a finer, independent sampling through Yardstick.alpha
    xh = X / np.linalg.norm(X, axis=1)[:, None]
    fine = math.inf
    for Y in ys.values():
        for l, st in enumerate(Y.stages[:Y.n_j]):
            t = np.linspace(st.start, st.end, 20001)
            a = Y.alpha(t)
            m = np.abs(a @ xh.T) / np.linalg.norm(a, axis=1)[:, None]
            skip = {st.crossing} | ({Y.stages[l - 1].crossing} if l else set())
            keep = [i for i in range(len(X)) if i not in skip]
            if keep:
                fine = min(fine, m[:, keep].min())
    assert items["min_margin"] == pytest.approx(fine, rel=1e-3)
    assert items["min_margin"] >= fine * (1 - 1e-12)


def test_growth_constant(inst):
    """(|alpha| + alpha.gamma_hat_[n]) e^{-|gamma_[n]| t} is constant, = 2 C_j, after the last
    crossing of an s = +1 yardstick (4.4), measured on the integrator's alpha."""
    X, y = inst["X"], inst["y"]
    gn = yk.gamma(X, y, np.ones(len(X), bool))
    kn = np.linalg.norm(gn)
    for j, (t, a, _) in inst["runs"].items():
        Y = inst["ys"][j]
        if Y.s < 0:
            with pytest.raises(ValueError):
                Y.growth_constant()
            continue
        C = Y.growth_constant()
        tau = Y.times[-1] if Y.n_j else 0.0
        after = t >= tau + 1e-9
        val = (np.linalg.norm(a[after], axis=1) + a[after] @ gn / kn) * np.exp(-kn * t[after])
        assert np.allclose(val, 2 * C, rtol=1e-8, atol=0)
        if Y.n_j == 0:
            assert C == pytest.approx(0.5 * (np.linalg.norm(Y.z) + Y.z @ gn / kn), rel=1e-14)
        else:  # before the last crossing the bracket is not yet constant
            before = (t < tau - 1e-3)
            val0 = ((np.linalg.norm(a[before], axis=1) + a[before] @ gn / kn)
                    * np.exp(-kn * t[before]))
            assert not np.allclose(val0, 2 * C, rtol=1e-6)


def test_T0_and_lambda_bound(inst):
    ys = inst["ys"]
    assert yk.T0(ys) == max([Y.times[-1] for Y in ys.values() if Y.n_j] + [0.0]) + 1
    assert yk.T0({}) == 1.0
    exact = -math.log10((3 * 2**144) ** 12)  # (m n^{9 n Delta^2 / delta^3})^{-3/eps}
    assert yk.log10_lambda_max(3, 2, 0.5, 1.0, 0.25) == pytest.approx(exact, rel=1e-12)
    exact = -math.log10((3 * 2**288) ** 6)
    assert yk.log10_lambda_max(3, 2, 0.5, math.sqrt(2), 0.5) == pytest.approx(exact, rel=1e-12)
    it = inst["items"]
    assert yk.log10_lambda_max(len(inst["Z"]), len(inst["X"]), it["delta"], it["Delta"]) < -100


def _tie_instance(z3):
    X = np.array([[1.0, 0.3, 0.0], [1.0, 0.0, 0.3], [1.0, -0.3, -0.3]])
    return X, X @ np.array([1.0, 0.0, 0.0]), np.array([[0.0, -1.0, z3]]), np.array([1])


def test_tie_raises():
    """x_1, x_2 are mirror images and z is symmetric: they enter at the same pseudo-time."""
    X, y, Z, s = _tie_instance(-1.0)
    with pytest.raises(ValueError, match="Assumption 1\\(iv\\)"):
        yk.yardsticks(X, y, Z, s)
    Y = yk.yardsticks(*_tie_instance(-1.01))[0]  # broken symmetry: no tie
    assert Y.n_j == 2 and Y.crossings == (0, 1)


def test_zero_inner_product_raises():
    X, y, _, _ = _tie_instance(-1.0)
    with pytest.raises(ValueError, match="I_0"):
        yk.yardsticks(X, y, np.array([[0.0, 0.0, 1.0]]), np.array([1]))


def test_alpha_shapes(inst):
    Y = next(iter(inst["ys"].values()))
    d = inst["X"].shape[1]
    assert Y.alpha(0.5).shape == (d,) and Y.alpha([0.5]).shape == (1, d)
    assert Y.alpha(np.array([0.0, 0.1, 2.0])).shape == (3, d)
    assert np.array_equal(Y.alpha(0.0), Y.z)
    assert isinstance(Y.cos_phi(0.1), float)
