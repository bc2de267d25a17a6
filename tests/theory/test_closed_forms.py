"""CF-1 .. CF-13 (theory/closed_forms.py) proved symbolically, then checked against flows.

Symbolic proofs use no tolerance: a difference is reduced to exactly 0 (``_is_zero``),
an inequality to a sum of non-negative terms, a probability to exhaustive enumeration
with exact rationals. The numeric cross-checks integrate the gradient flow of an actual
Problem (numerics.network's vector field, DOP853 at rtol 1e-12) and compare it with the
closed form evaluated through sympy.lambdify.

Length (~1,060 lines): twelve closed forms, each with its symbolic proof and its numeric
cross-check next to it, sharing the integrated flows defined at the top.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

import theory
from numerics import Problem, network
from theory import Kind, Provenance, symbols
from theory import closed_form_claims as cfc
from theory import closed_forms as cf

# DOP853 at these tolerances is accurate to ~1e-11 relative on the short, smooth runs
# below; the closed forms are asked to agree to 1e-8 (THEORY section 7 target).
RTOL, ATOL = 1e-12, 1e-14
AGREE = 1e-8

PAPERS = {"CF-1": "S000", "CF-2": "S000", "CF-3": "S000", "CF-4": "S000", "CF-5": "S000",
          "CF-6": "S000", "CF-7": "S000", "CF-8": "S002", "CF-9": "S002", "CF-10": "S002",
          "CF-11": "S001", "CF-12": "S001", "CF-13": "S000"}


# -- helpers -----------------------------------------------------------------------------------
def _is_zero(expr) -> bool:
    """Exact test that ``expr`` is identically 0 (matrices entrywise).

    Hyperbolic and exponential terms are rewritten as exponentials and the result is
    normalised as a rational function of them; ``simplify`` is the fallback.
    """
    if isinstance(expr, sp.MatrixBase):
        return all(_is_zero(e) for e in expr)
    expr = sp.sympify(expr).doit()
    if expr == 0:
        return True
    flat = sp.expand(expr.rewrite(sp.exp), power_exp=True, mul=False, multinomial=False)
    if sp.cancel(flat) == 0:
        return True
    return sp.simplify(expr) == 0


def _real_symbols(prefix: str, count: int, **assumptions):
    return list(sp.symbols(f"{prefix}1:{count + 1}", real=True, **assumptions))


def _patterns(rows: int, cols: int):
    """Every 0/1 activation pattern of shape (rows, cols)."""
    for bits in itertools.product((0, 1), repeat=rows * cols):
        yield sp.Matrix(rows, cols, bits)


def _gradients(loss, a, W):
    """(dL/da, dL/dW) of a sympy loss in the symbols of ``a`` and ``W``."""
    grad_a = sp.Matrix([sp.diff(loss, x) for x in a])
    grad_W = sp.Matrix(W.rows, W.cols, lambda j, k: sp.diff(loss, W[j, k]))
    return grad_a, grad_W


def _integrate(problem: Problem, times: np.ndarray, W0=None, a0=None, dense=False):
    """Gradient flow of ``problem`` (numerics.network's field) at rtol 1e-12."""
    W0 = problem.W0 if W0 is None else W0
    a0 = problem.a0 if a0 is None else a0
    p, d = W0.shape

    def field(_t, state):
        dW, da = network.flow_field(problem, state[: p * d].reshape(p, d), state[p * d:])
        return np.concatenate([dW.ravel(), da])

    sol = solve_ivp(field, (0.0, float(times[-1])), np.concatenate([W0.ravel(), a0]),
                    method="DOP853", rtol=RTOL, atol=ATOL, t_eval=times, dense_output=dense)
    assert sol.success, sol.message
    W = sol.y[: p * d].T.reshape(len(times), p, d)
    a = sol.y[p * d:].T
    return (W, a, sol) if dense else (W, a)


def _rel_err(measured, predicted) -> float:
    measured, predicted = np.asarray(measured, float), np.asarray(predicted, float)
    return float(np.max(np.abs(measured - predicted) / np.maximum(np.abs(predicted), 1e-300)))


# -- the catalogue entries -----------------------------------------------------------------------
def test_thirteen_identities_are_registered():
    ids = [f"CF-{k}" for k in range(1, 14)]
    assert [c.id for c in cfc.CLAIMS] == ids
    for claim in cfc.CLAIMS:
        assert theory.get(claim.id) is claim
        assert claim.kind is Kind.IDENTITY and claim.checkable
        assert claim.source.provenance is Provenance.DERIVED
        assert claim.paper == PAPERS[claim.id]
        assert claim.measures and claim.notes and claim.latex() and claim.text()
        names = {s.name for s in claim.statement.free_symbols}
        names |= {f.func.__name__ for f in claim.statement.atoms(sp.core.function.AppliedUndef)}
        assert names <= symbols.VOCABULARY.keys(), names - symbols.VOCABULARY.keys()


def test_statements_evaluate_through_the_bridge():
    """Every relation lambdifies; the algebraic ones (CF-2, CF-12) vanish at a sample point."""
    rng = np.random.default_rng(0)
    for claim in cfc.CLAIMS:
        for rel in claim.relations():
            fn, names = theory.lambdify(claim.substituted(rel.lhs - rel.rhs))
            value = fn(**{nm: float(rng.uniform(0.2, 0.9)) for nm in names})
            assert np.isfinite(value), (claim.id, rel)
            if claim.id in ("CF-2", "CF-12") and isinstance(rel, sp.Equality):
                assert abs(value) < 1e-12, (claim.id, rel)


# ==================================================================================================
# CF-1: parametrisation map
# ==================================================================================================
def test_cf1_map_preserves_outputs_losses_and_flow_symbolically():
    """p = d = n = 2, generic weights and data, every fixed activation pattern."""
    width = 2
    a = sp.Matrix(_real_symbols("a", 2))
    W = sp.Matrix(2, 2, _real_symbols("w", 4))
    X = sp.Matrix(2, 2, _real_symbols("x", 4))
    y = sp.Matrix(_real_symbols("y", 2))
    a_s = sp.Matrix(_real_symbols("b", 2))  # standard-network weights, independent symbols
    W_s = sp.Matrix(2, 2, _real_symbols("u", 4))
    to_std = {**dict(zip(a_s, cf.standard_from_mean_field(a, width), strict=True)),
              **dict(zip(W_s, cf.standard_from_mean_field(W, width), strict=True))}
    # the map multiplies pre-activations by 1/sqrt(p) > 0: the pattern does not change
    ratio = sp.simplify((W_s * X.T)[0, 1].subs(to_std) / (W * X.T)[0, 1])
    assert ratio == 1 / sp.sqrt(width) and ratio.is_positive
    for A in _patterns(2, 2):
        h_mf = cf.relu_outputs(a, W, X, A, sp.Rational(1, width))
        h_std = cf.relu_outputs(a_s, W_s, X, A)
        assert _is_zero(h_std.subs(to_std) - h_mf)
        loss_mf, loss_std = cf.square_loss(h_mf, y), cf.square_loss(h_std, y)
        assert _is_zero(loss_std.subs(to_std) - loss_mf)
        ga, gW = _gradients(loss_mf, a, W)
        ga_s, gW_s = _gradients(loss_std, a_s, W_s)
        # d theta~/dt = -grad L~(theta~) equals (1/sqrt p) d theta/dt = -(p/sqrt p) grad L
        assert _is_zero(-ga_s.subs(to_std) - cf.standard_from_mean_field(-width * ga, width))
        assert _is_zero(-gW_s.subs(to_std) - cf.standard_from_mean_field(-width * gW, width))


def test_cf1_flow_factor_is_a_time_change():
    """theta(t) = phi(kappa t) has velocity kappa phi'(kappa t): the flow -kappa grad L is the
    kappa = 1 flow on the clock kappa t."""
    phi = sp.Function("phi")
    s = sp.Symbol("s", real=True)
    clock = cf.unit_flow_time()
    velocity = sp.diff(phi(clock), symbols.t)
    assert _is_zero(velocity - symbols.kappa * sp.Subs(sp.Derivative(phi(s), s), s, clock))


def test_cf1_numerically_on_the_vector_field_and_a_run():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((4, 3))
    y = rng.standard_normal(4)
    W0, a0 = rng.standard_normal((3, 3)), rng.standard_normal(3)
    mf = Problem(X=X, y=y, W0=W0, a0=a0, parametrization="mean_field")
    width = mf.p
    std = Problem(X=X, y=y, W0=W0 / np.sqrt(width), a0=a0 / np.sqrt(width))
    for _ in range(20):
        W, a = rng.standard_normal((3, 3)), rng.standard_normal(3)
        dW, da = network.flow_field(mf, W, a)
        dWs, das = network.flow_field(std, W / np.sqrt(width), a / np.sqrt(width))
        assert np.allclose(np.sqrt(width) * dWs, dW, rtol=1e-13, atol=1e-15)
        assert np.allclose(np.sqrt(width) * das, da, rtol=1e-13, atol=1e-15)
    times = np.linspace(0.0, 3.0, 7)
    W_mf, a_mf = _integrate(mf, times)
    W_st, a_st = _integrate(std, times)
    gap = max(np.max(np.abs(W_mf - np.sqrt(width) * W_st)),
              np.max(np.abs(a_mf - np.sqrt(width) * a_st)))
    assert gap < AGREE


# ==================================================================================================
# CF-2: balancedness
# ==================================================================================================
def test_cf2_flow_conserves_balancedness_for_every_pattern():
    """a_j dL/da_j = <w_j, dL/dw_j> (hence d c_j/dt = 0) for any fixed pattern = any relu'(0)."""
    a = sp.Matrix(_real_symbols("a", 2))
    W = sp.Matrix(2, 2, _real_symbols("w", 4))
    X = sp.Matrix(2, 2, _real_symbols("x", 4))
    y = sp.Matrix(_real_symbols("y", 2))
    kappa = symbols.kappa
    for scale in (1, sp.Rational(1, 2)):
        for A in _patterns(2, 2):
            ga, gW = _gradients(cf.square_loss(cf.relu_outputs(a, W, X, A, scale), y), a, W)
            for j in range(2):
                a_dot, w_dot = -kappa * ga[j], -kappa * gW.row(j)
                c_dot = 2 * a[j] * a_dot - 2 * W.row(j).dot(w_dot)
                assert _is_zero(c_dot)


# CF-13: the k-homogeneous balance ----------------------------------------------------------
def test_cf13_homogeneous_activation_conserves_k_a2_minus_w2():
    """With a generic activation sigma, d(k a_j^2 - ||w_j||^2)/dt = 2 kappa s a_j sum_i g_i
    (sigma'(z_ij) z_ij - k sigma(z_ij)): zero exactly when Euler's relation holds."""
    sigma = sp.Function("sigma")
    k, s_out = sp.symbols("k s", positive=True)
    a = sp.Matrix(_real_symbols("a", 2))
    W = sp.Matrix(2, 2, _real_symbols("w", 4))
    X = sp.Matrix(2, 2, _real_symbols("x", 4))
    y = sp.Matrix(_real_symbols("y", 2))
    kappa = symbols.kappa
    Z = W * X.T  # z_ij = <w_j, x_i>
    h = sp.Matrix([s_out * sum(a[j] * sigma(Z[j, i]) for j in range(2)) for i in range(2)])
    loss = cf.square_loss(h, y)
    ga, gW = _gradients(loss, a, W)
    for j in range(2):
        a_dot, w_dot = -kappa * ga[j], -kappa * gW.row(j)
        c_dot = sp.expand(2 * k * a[j] * a_dot - 2 * W.row(j).dot(w_dot))
        assert not _is_zero(c_dot)  # not for every sigma ...
        # ... but under Euler's relation sigma'(z) = k sigma(z) / z at every z_ij
        euler = {d: k * sigma(d.point[0]) / d.point[0] for d in c_dot.atoms(sp.Subs)}
        assert len(euler) == 2  # neuron j's two pre-activations
        assert _is_zero(sp.together(c_dot.xreplace(euler)))
    # Euler's relation for the toolkit's activations, each side of the kink
    z_pos, z_neg = sp.Symbol("z", positive=True), sp.Symbol("z", negative=True)
    slope, beta = sp.Symbol("slope", nonnegative=True), sp.Symbol("beta", positive=True)
    for side, value, degree in ((z_pos, z_pos, 1), (z_neg, slope * z_neg, 1),
                                (z_pos, z_pos**beta, beta), (z_neg, sp.Integer(0), beta)):
        assert _is_zero(sp.diff(value, side) * side - degree * value)


def test_cf2_descent_step_and_its_bound():
    """g_w = a_j v_j, g_a = <w_j, v_j> from the network; the step and the bound in d = 3."""
    a = sp.Matrix(_real_symbols("a", 2))
    W = sp.Matrix(2, 3, _real_symbols("w", 6))
    X = sp.Matrix(2, 3, _real_symbols("x", 6))
    y = sp.Matrix(_real_symbols("y", 2))
    step = sp.Symbol("h", positive=True)
    A = sp.Matrix([[1, 1], [0, 1]])
    scale = sp.Rational(1, 2)
    h = cf.relu_outputs(a, W, X, A, scale)
    ga, gW = _gradients(cf.square_loss(h, y), a, W)
    r = y - h
    for j in range(2):
        v = -scale / 2 * sum((r[i] * A[j, i] * X.row(i) for i in range(2)), sp.zeros(1, 3))
        w = W.row(j)
        assert _is_zero(gW.row(j) - a[j] * v)
        assert _is_zero(ga[j] - w.dot(v))
        # one step: c' - c = step^2 (g_a^2 - ||g_w||^2)
        a_new, w_new = a[j] - step * ga[j], w - step * gW.row(j)
        change = (a_new**2 - w_new.dot(w_new)) - (a[j] ** 2 - w.dot(w))
        assert _is_zero(change - cf.gd_balance_increment(step, ga[j], gW.row(j).dot(gW.row(j))))
    # the bound's gap is Lagrange's identity (a sum of squares), for any a, w, v in R^3
    aj = sp.Symbol("a", real=True)
    w = sp.Matrix(_real_symbols("p", 3))
    v = sp.Matrix(_real_symbols("q", 3))
    gap = (cf.gd_balance_bound(step, aj, w.dot(w), v.dot(v))
           - cf.gd_balance_increment(step, w.dot(v), aj**2 * v.dot(v)))
    squares = step**2 * sum((w[k] * v[m] - w[m] * v[k]) ** 2
                            for k in range(3) for m in range(k + 1, 3))
    assert _is_zero(gap - squares)


def test_cf2_statement_is_the_step_identity():
    (rel,) = [r for r in cfc.CF2.relations() if isinstance(r, sp.Equality)]
    assert _is_zero(rel.lhs - rel.rhs)
    (gap,) = [r for r in cfc.CF2.relations() if isinstance(r, sp.LessThan)]
    lagrange = (symbols.eta * symbols.kappa) ** 2 * (symbols.w_1 * symbols.v_2
                                                     - symbols.w_2 * symbols.v_1) ** 2
    assert _is_zero(gap.rhs - gap.lhs - lagrange)


def test_cf2_descent_on_numerics_gradient():
    rng = np.random.default_rng(2)
    X, y = rng.standard_normal((5, 4)), rng.standard_normal(5)
    W0 = rng.standard_normal((3, 4))
    a0 = np.sign(rng.standard_normal(3)) * (np.linalg.norm(W0, axis=1) + 0.3)
    problem = Problem(X=X, y=y, W0=W0, a0=a0, parametrization="mean_field")
    step = 0.05 * problem.flow_factor
    gW, ga = network.gradient(problem, W0, a0)
    W1, a1 = W0 - step * gW, a0 - step * ga
    change = (a1**2 - np.sum(W1**2, axis=1)) - (a0**2 - np.sum(W0**2, axis=1))
    predicted = step**2 * (ga**2 - np.sum(gW**2, axis=1))
    assert np.allclose(change, predicted, rtol=1e-10, atol=1e-14)
    assert np.all(predicted <= 0)  # |a_j| >= ||w_j||: descent lowers c_j


def test_cf2_s001_block_invariant():
    """d/dt (W^T W - v v^T) = 0 on a block of neurons sharing one pattern (S001, sum loss)."""
    D, h = 2, 2
    W = sp.Matrix(D, h, _real_symbols("w", D * h))  # columns are neurons (S001's convention)
    v = sp.Matrix(_real_symbols("v", h))
    X = sp.Matrix(3, D, _real_symbols("x", 3 * D))
    labels = (1, 1, 1)
    ell = sp.Function("ell")
    outputs = [(v.T * W.T * X.row(i).T)[0, 0] for i in range(3)]
    loss = sum(ell(labels[i] * outputs[i]) for i in range(3))
    W_dot = -sp.Matrix(D, h, lambda k, j: sp.diff(loss, W[k, j]))
    v_dot = -sp.Matrix([sp.diff(loss, x) for x in v])
    drift = W_dot.T * W + W.T * W_dot - (v_dot * v.T + v * v_dot.T)
    assert _is_zero(drift)


# ==================================================================================================
# CF-3, CF-4: PL sandwiches
# ==================================================================================================
_HADAMARD = sp.Matrix([[1, 1, 1, 1], [1, 1, -1, -1], [1, -1, 1, -1], [1, -1, -1, 1]]) / 2


def _orthogonal_network():
    """n = 3 orthogonal inputs x_i = rho_i q_i in R^4 (q_i rows of an orthogonal matrix)."""
    rho = _real_symbols("rho", 3, positive=True)
    X = sp.Matrix.vstack(*[rho[i] * _HADAMARD.row(i) for i in range(3)])
    a = sp.Matrix(_real_symbols("a", 2))
    W = sp.Matrix(2, 4, _real_symbols("w", 8))
    r = sp.Matrix(_real_symbols("r", 3))
    return rho, X, a, W, r


def test_cf3_gradient_identity_and_inequality_for_every_pattern():
    rho, X, a, W, r = _orthogonal_network()
    n, width = 3, 2
    y = sp.Matrix(_real_symbols("y", 3))
    # neuron 0 takes every pattern; neuron 1 is active on all samples or on none
    for A in (sp.Matrix.vstack(first.T, sp.Matrix([[b] * n])) for first in _patterns(n, 1)
              for b in (0, 1)):
        h = cf.relu_outputs(a, W, X, A, sp.Rational(1, width))
        ga, gW = _gradients(cf.square_loss(h, y), a, W)
        to_r = dict(zip(y, r + h, strict=True))  # residuals r = y - h as free symbols
        ga, gW = ga.subs(to_r), gW.subs(to_r)
        E = [cf.sample_energy(a, A.col(i), width) for i in range(n)]
        weighted = sum(r[i] ** 2 * rho[i] ** 2 * E[i] for i in range(n)) / n**2
        assert _is_zero(sp.expand(width * sum(g**2 for g in gW)) - weighted)
        # p ||grad_a L||^2 <= weighted, as an exact sum of terms >= 0 under |a_j| >= ||w_j||
        slack = weighted - sp.expand(width * sum(g**2 for g in ga))
        terms = 0
        for j in range(width):
            u = [r[i] * A[j, i] * rho[i] for i in range(n)]
            proj = [W.row(j).dot(_HADAMARD.row(i)) for i in range(n)]
            total = sum(x**2 for x in u)
            w_sq = W.row(j).dot(W.row(j))
            outside = W.row(j) - sum((proj[i] * _HADAMARD.row(i) for i in range(n)),
                                     sp.zeros(1, 4))
            assert _is_zero(w_sq - sum(x**2 for x in proj) - outside.dot(outside))  # Bessel
            terms += (total * (a[j] ** 2 - w_sq) + total * outside.dot(outside)
                      + sum((u[i] * proj[k] - u[k] * proj[i]) ** 2
                            for i in range(n) for k in range(i + 1, n)))
        assert _is_zero(slack - terms / (n**2 * width))


def test_cf3_output_is_bounded_by_energy():
    """|h_i| <= ||x_i|| E_i under A1: the gap is a sum of non-negative terms."""
    a = sp.Matrix(_real_symbols("a", 2, positive=True))
    norm_w = _real_symbols("m", 2, nonnegative=True)
    cos = _real_symbols("c", 2)
    rho, width = sp.Symbol("rho", positive=True), 2
    # with pre-activation z_j = ||w_j|| rho cos_j and |cos_j| <= 1, |a_j| >= ||w_j||:
    bound = rho * sum(a[j] ** 2 for j in range(2)) / width
    gap = bound - sum(a[j] * norm_w[j] * rho * cos[j] for j in range(2)) / width
    pieces = sum(a[j] * rho * ((a[j] - norm_w[j]) + norm_w[j] * (1 - cos[j]))
                 for j in range(2)) / width
    assert _is_zero(gap - pieces)


def _asymmetric_state(rng, p, d, scale=1.0):
    W = scale * rng.standard_normal((p, d)) / np.sqrt(d)
    a = np.sign(rng.standard_normal(p)) * (np.linalg.norm(W, axis=1) + rng.exponential(1.0, p))
    return W, a


def _energies(problem, W, a):
    A = network.active_mask(network.preactivations(W, problem.X))
    return (A * a[:, None] ** 2).sum(axis=0) / problem.p


def _states_with_active_samples(rng, X, y, p, d, draws=200):
    """(problem, W, a, E, mu) for random asymmetric states in which every sample has an
    active neuron (all energies E_i > 0), with the PL curvature mu at that state."""
    for _ in range(draws):
        W, a = _asymmetric_state(rng, p, d)
        problem = Problem(X=X, y=y, W0=W, a0=a, parametrization="mean_field")
        E = _energies(problem, W, a)
        if np.all(E > 0):
            yield problem, W, a, E, network.pl_curvature(problem, W, a)


def test_cf3_sandwich_against_numerics():
    rng = np.random.default_rng(3)
    n, d, p = 6, 8, 5
    rho = rng.uniform(1.0, 2.0, n)
    X = np.zeros((n, d))
    X[np.arange(n), np.arange(n)] = rho
    y = np.sign(rng.standard_normal(n)) * rng.uniform(1.0, 2.0, n)
    checked = 0
    for problem, W, a, E, mu in _states_with_active_samples(rng, X, y, p, d):
        lower, upper = (float(b) for b in cf.pl_sandwich_bounds(rho**2 * E, n))
        assert lower * (1 - 1e-12) <= mu <= upper * (1 + 1e-12)
        fit = np.min(np.abs(network.outputs(problem, W, a) / y))
        assert mu >= 2 * rho.min() * np.abs(y).min() * fit / n * (1 - 1e-12)
        checked += 1
    assert checked > 50


def test_cf4_gershgorin_is_a_sum_of_squares():
    X = sp.Matrix([[3, 1, 0, 1], [-1, -2, 1, 0], [1, 1, 2, -1]]) / 2  # rational, mixed signs
    G = X * X.T
    c = sp.Matrix(_real_symbols("c", 3))
    lhs = (c.T * G * c)[0, 0]
    rhs = sum(c[i] ** 2 * (G[i, i] - sum(abs(G[i, k]) for k in range(3) if k != i))
              for i in range(3))
    squares = sum(abs(G[i, k]) * (c[i] + sp.sign(G[i, k]) * c[k]) ** 2
                  for i in range(3) for k in range(i + 1, 3))
    assert _is_zero(lhs - rhs - squares)
    assert all(G[i, k] != 0 for i in range(3) for k in range(3))  # no term is trivially 0
    slacks = [cf.gershgorin_slack(G, i) for i in range(3)]
    assert slacks == [sp.Rational(8, 11), 1, sp.Rational(4, 7)]


def test_cf4_bound_against_numerics():
    rng = np.random.default_rng(4)
    n, d, p = 8, 400, 6
    U = rng.standard_normal((n, d))
    X = rng.uniform(1.0, 2.0, n)[:, None] * U / np.linalg.norm(U, axis=1, keepdims=True)
    G = X @ X.T
    gamma = (np.abs(G).sum(axis=1) - np.diag(G)) / np.diag(G)
    assert gamma.max() < 1
    y = np.sign(rng.standard_normal(n)) * rng.uniform(1.0, 2.0, n)
    checked = 0
    for _problem, _W, _a, E, mu in _states_with_active_samples(rng, X, y, p, d):
        bound = float(cf.gershgorin_pl_bound(np.diag(G) * E, gamma, n))
        assert mu >= bound * (1 - 1e-12)
        checked += 1
    assert checked > 50


def test_cf4_isotropic_dimension():
    assert cf.mean_abs_cosine(2) == 2 / sp.pi
    assert cf.mean_abs_cosine(3) == sp.Rational(1, 2)
    dim = sp.Float(10**6, 30)  # a Float argument: gamma is evaluated numerically, not exactly
    value = cf.mean_abs_cosine(dim) * sp.sqrt(dim)
    assert abs(value - sp.sqrt(2 / sp.pi).evalf(30)) < 1e-6
    # E gamma_i = (n-1) sqrt(2/(pi d)) ratio = 1/2 exactly at d = gershgorin_dimension(ratio, n-1)
    ratio, m = sp.Symbol("ratio", positive=True), sp.Symbol("m", positive=True)
    assert m * sp.sqrt(2 / (sp.pi * cf.gershgorin_dimension(ratio, m))) * ratio \
        == sp.Rational(1, 2)
    assert abs(float(cf.gershgorin_dimension(sp.Rational(3, 2), 1)) - 5.73) < 5e-3


# ==================================================================================================
# CF-5: certificate
# ==================================================================================================
def test_cf5_certificate_algebra():
    r = _real_symbols("r", 3)
    n = 3
    level = sum(x**2 for x in r) / (2 * n)
    assert _is_zero(2 * n * level - r[0] ** 2 - (r[1] ** 2 + r[2] ** 2))  # r_1^2 <= 2nL
    L0, Cy = sp.Symbol("L0", positive=True), sp.Symbol("Cy", positive=True)
    k0 = cf.fit_certificate(L0, symbols.n, Cy)
    assert _is_zero(k0.subs(L0, Cy**2 / (2 * symbols.n)))  # the threshold
    assert sp.diff(k0, L0).is_negative  # below it kappa_0 > 0, above it < 0
    assert k0.subs({L0: 1 / (2 * symbols.n), Cy: 1}) == 0  # R's boundary
    bound = cf.certified_loss_bound(level=L0, y_min=Cy)
    rate = cf.s000_constant(y_min=Cy) * k0 / symbols.n
    assert _is_zero(sp.diff(bound, symbols.t) + rate * bound)
    assert _is_zero(bound.subs(symbols.t, cf.t_0) - L0)
    # the statement's sqrt-free kappa_0 >= (1 - z)/2, z = 2 n L0/Cy^2, on z in [0, 1]
    z = sp.Symbol("z", nonnegative=True)
    gap = (1 - sp.sqrt(z)) - (1 - z) / 2
    assert _is_zero(gap - (1 - sp.sqrt(z)) ** 2 / 2)


# ==================================================================================================
# CF-6: probabilities
# ==================================================================================================
def _enumerate_good(n_pos: int, n_neg: int, width: int) -> Fraction:
    """P(good) by listing every sign vector and activation matrix (all equally likely)."""
    n = n_pos + n_neg
    signs = [1] * n_pos + [-1] * n_neg
    good = 0
    for s in itertools.product((1, -1), repeat=width):
        covered = 0
        for A in itertools.product((0, 1), repeat=width * n):
            covered += all(any(A[j * n + i] and s[j] == signs[i] for j in range(width))
                           for i in range(n))
        good += covered
    return Fraction(good, 2 ** (width + width * n))


def _enumerate_key(n_pos: int, width: int) -> Fraction:
    key = 0
    for s in itertools.product((1, -1), repeat=width):
        for A in itertools.product((0, 1), repeat=width * n_pos):
            key += any(s[j] == 1 and all(A[j * n_pos + i] for i in range(n_pos))
                       for j in range(width))
    return Fraction(key, 2 ** (width + width * n_pos))


@pytest.mark.parametrize(("n_pos", "n_neg", "width"), [(1, 1, 2), (2, 1, 3), (1, 2, 4),
                                                        (3, 0, 3), (2, 2, 2)])
def test_cf6_exact_probability_by_enumeration(n_pos, n_neg, width):
    exact = cf.good_init_probability(n_pos, n_neg, width).doit()
    assert Fraction(int(exact.p), int(exact.q)) == _enumerate_good(n_pos, n_neg, width)


@pytest.mark.parametrize(("n_pos", "width"), [(1, 2), (2, 3), (3, 2)])
def test_cf6_key_neuron_probability_by_enumeration(n_pos, width):
    exact = sp.nsimplify(cf.key_neuron_probability(n_pos, width))
    assert Fraction(int(exact.p), int(exact.q)) == _enumerate_key(n_pos, width)


def test_cf6_union_bound():
    # per sample: P(no good neuron) = sum_k C(p,k) 2^-p 2^-k = (3/4)^p for symbolic p
    single = 1 - cf.good_init_probability(1, 0).doit()
    assert sp.simplify(single - sp.Rational(3, 4) ** symbols.p) == 0
    for width in range(1, 9):
        for n_pos in range(0, 5):
            for n_neg in range(0, 5):
                fail = 1 - cf.good_init_probability(n_pos, n_neg, width).doit()
                assert fail <= cf.good_init_union_bound(n_pos + n_neg, width)
    eps = sp.Symbol("epsilon", positive=True)
    at_width = cf.good_init_union_bound(symbols.n, cf.union_bound_width(eps))
    assert sp.simplify(sp.expand_log(sp.expand_power_exp(at_width.rewrite(sp.exp)),
                                     force=True)) == eps


# ==================================================================================================
# CF-7: group initialisation
# ==================================================================================================
def test_cf7_cosine_and_norm_solve_their_odes():
    t, n, p, kappa, Y = symbols.t, symbols.n, symbols.p, symbols.kappa, cf.Y
    c, N = cf.group_alignment(), cf.group_norm()
    assert _is_zero(sp.diff(c, t) - kappa * Y / (n * p) * (1 - c**2))
    assert _is_zero(sp.diff(N, t) - 2 * kappa / (n * p) * (N * Y * c - N**2 / p))
    assert _is_zero(c.subs(t, 0) - cf.c_0) and _is_zero(N.subs(t, 0) - cf.N_0)


def test_cf7_forms_equal_theory_md():
    """tanh(tau + phi) and THEORY's cosh^2 formula for 1/N, with c_0 = tanh(phi)."""
    Y, p = cf.Y, symbols.p
    tau, phi = cf.group_clock(), sp.Symbol("phi", positive=True)
    c_init = sp.tanh(phi)
    assert _is_zero(cf.group_alignment(c_init=c_init) - sp.tanh(tau + phi))
    inverse = (sp.cosh(phi) ** 2 / cf.N_0
               + (tau + (sp.sinh(2 * tau + 2 * phi) - sp.sinh(2 * phi)) / 2) / (p * Y)
               ) / sp.cosh(tau + phi) ** 2
    assert _is_zero(1 / cf.group_norm(c_init=c_init) - inverse)


def test_cf7_aligned_case():
    t, n, p, kappa, Y, N0, q = (symbols.t, symbols.n, symbols.p, symbols.kappa, cf.Y, cf.N_0,
                                cf.q)
    N = cf.group_norm_aligned()
    assert _is_zero(cf.group_norm(c_init=1) - N)  # the general formula at c_0 = 1
    assert cf.group_alignment(c_init=1) == 1
    assert _is_zero(sp.diff(N, t) - 2 * kappa / (n * p) * (N * Y - N**2 / p))
    loss = cf.group_loss(N, 1)
    assert _is_zero(-sp.diff(loss, t) / loss - cf.group_pl(N, 1))
    assert _is_zero(cf.group_pl(N, 1) - 4 * kappa * N / (n * p**2))
    assert _is_zero(N.subs(t, cf.group_transition_time()) - q * p * Y)
    eps = sp.Symbol("epsilon", positive=True)
    width = (cf.group_transition_time(1 - eps) - cf.group_transition_time(eps)) \
        / cf.group_transition_time(sp.Rational(1, 2))
    assert _is_zero(sp.expand_log(width - cf.group_relative_width(eps), force=True))
    half_mf = cf.group_transition_time(sp.Rational(1, 2), flow_factor=p)
    assert _is_zero(half_mf - n / (2 * Y) * sp.log((p * Y - N0) / N0))


def test_cf7_general_pl():
    N, c = sp.symbols("N c", positive=True)
    t = symbols.t
    Nt, ct = sp.Function("Nt")(t), sp.Function("ct")(t)
    n, p, kappa, Y = symbols.n, symbols.p, symbols.kappa, cf.Y
    rates = {sp.Derivative(Nt, t): 2 * kappa / (n * p) * (Nt * Y * ct - Nt**2 / p),
             sp.Derivative(ct, t): kappa * Y / (n * p) * (1 - ct**2)}
    loss = cf.group_loss(Nt, ct)
    mu = (-sp.diff(loss, t) / loss).subs(rates).subs({Nt: N, ct: c})
    assert _is_zero(mu - cf.group_pl(N, c))


def test_cf7_limit_and_residual_matrix():
    """a_inf^2 solves the balance equation; R_G = (p/n) J J^T at the limit (two samples)."""
    delta, ynorm, width = sp.Symbol("delta", nonnegative=True), sp.Symbol("Yt", positive=True), \
        symbols.p
    a2 = cf.group_limit_weight_sq(delta, ynorm)
    assert _is_zero(a2**2 - delta * a2 - width**2 * ynorm**2)  # a^2 - p^2 ||y~||^2/a^2 = delta
    assert cf.group_limit_weight_sq(0, ynorm) == width * ynorm
    # one mean-field neuron on a two-sample group with norms rho_i: h_i = a rho_i w_i / p
    rho = _real_symbols("rho", 2, positive=True)
    ys = _real_symbols("y", 2, positive=True)
    a, w = sp.Symbol("a", positive=True), sp.Matrix(_real_symbols("w", 2, positive=True))
    h = sp.Matrix([a * rho[i] * w[i] / width for i in range(2)])
    J = sp.Matrix.hstack(h.diff(a), *[h.diff(wk) for wk in w])
    # the limit: h = y, i.e. w_i = p y_i/(a rho_i)
    limit = {w[i]: width * ys[i] / (a * rho[i]) for i in range(2)}
    kernel = (width / symbols.n * J * J.T).subs(limit)
    assert _is_zero(kernel - cf.group_residual_matrix(ys, rho, a**2))
    # unit norms, balanced a^2 = p Y: eigenvalues Y/n (on y-perp) and 2Y/n (on y)
    Ynorm = sp.sqrt(ys[0] ** 2 + ys[1] ** 2)
    R = cf.group_residual_matrix(ys, [1, 1], width * Ynorm)
    yv, perp = sp.Matrix(ys), sp.Matrix([ys[1], -ys[0]])
    assert _is_zero(R * yv - 2 * Ynorm / symbols.n * yv)
    assert _is_zero(R * perp - Ynorm / symbols.n * perp)


def _group_problem(parametrization: str, aligned: bool):
    """Two groups on orthonormal inputs (d = 6): {0, 1, 2} positive, {3, 4} negative."""
    n, d = 5, 6
    X = np.eye(n, d)
    y = np.array([1.0, 2.0, 0.5, -1.5, -0.7])
    groups = [(np.array([0, 1, 2]), 1.0), (np.array([3, 4]), -1.0)]
    starts = ([0.3, 0.05, 0.4], [0.05, 0.3])  # cosines 0.52 and 0.57 with s y_G
    W0 = np.zeros((2, d))
    for j, (idx, s) in enumerate(groups):
        W0[j, idx] = 0.05 * s * y[idx] if aligned else starts[j]
    a0 = np.array([s for _, s in groups]) * np.linalg.norm(W0, axis=1)
    return Problem(X=X, y=y, W0=W0, a0=a0, parametrization=parametrization), groups


def _group_trajectory(problem, groups, times):
    W, a = _integrate(problem, times)
    out = []
    for j, (idx, s) in enumerate(groups):
        yG = problem.y[idx]
        N = np.sum(W[:, j] ** 2, axis=1)
        c = (W[:, j][:, idx] @ (s * yG)) / (np.sqrt(N) * np.linalg.norm(yG))
        r = problem.y[idx] - network.outputs(problem, W, a)[:, idx]
        out.append(dict(N=N, c=c, loss=np.sum(r**2, axis=1) / (2 * problem.n),
                        Y=np.linalg.norm(yG), N0=N[0], c0=c[0]))
    return W, a, out


def _formula(expr):
    args = (symbols.t, cf.N_0, cf.c_0, cf.Y, symbols.n, symbols.p, symbols.kappa)
    return sp.lambdify(args, expr, "numpy")


@pytest.mark.parametrize("parametrization", ["mean_field", "standard"])
def test_cf7_against_the_integrated_flow(parametrization):
    problem, groups = _group_problem(parametrization, aligned=False)
    # the 1/p network with factor kappa; the standard network is p = kappa = 1
    width = problem.p if parametrization == "mean_field" else 1
    kappa = problem.flow_factor
    times = np.linspace(0.0, 30.0, 61)
    W, a, out = _group_trajectory(problem, groups, times)
    N_cf, c_cf = _formula(cf.group_norm()), _formula(cf.group_alignment())
    loss_cf = sp.lambdify((cf.N_0, cf.c_0, cf.Y, symbols.n, symbols.p),
                          cf.group_loss(cf.N_0, cf.c_0), "numpy")
    for g in out:
        assert 0 < g["c0"] < 0.9  # a genuinely non-aligned start
        args = (g["N0"], g["c0"], g["Y"], problem.n, width, kappa)
        assert _rel_err(g["N"], N_cf(times, *args)) < AGREE
        assert _rel_err(g["c"], c_cf(times, *args)) < AGREE
        assert g["c"][-1] > 0.99 and g["N"][-1] > 0.9 * width * g["Y"]  # it does converge
        # the loss goes to 0: compare on the scale of the initial loss (the formula cancels)
        loss_gap = np.abs(g["loss"] - loss_cf(g["N"], g["c"], g["Y"], problem.n, width))
        assert np.max(loss_gap) < AGREE * g["loss"][0]
    # decoupling: the coordinates outside each neuron's group stay exactly 0
    assert np.all(W[:, 0, 3:] == 0) and np.all(W[:, 1, :3] == 0)


def test_cf7_aligned_logistic_pl_and_transition_times():
    problem, groups = _group_problem("mean_field", aligned=True)
    width, kappa, n = problem.p, problem.flow_factor, problem.n
    times = np.linspace(0.0, 25.0, 51)
    W, a, out = _group_trajectory(problem, groups, times)
    logistic = _formula(cf.group_norm_aligned())
    pl = sp.lambdify((cf.N_0, symbols.n, symbols.p, symbols.kappa),
                     cf.group_pl(cf.N_0, 1), "numpy")
    for g in out:
        assert np.allclose(g["c"], 1.0, atol=1e-13)
        assert _rel_err(g["N"], logistic(times, g["N0"], 1, g["Y"], n, width, kappa)) < AGREE
    # the total PL is the loss-weighted mean of the group rates 4 kappa N/(n p^2)
    total = np.array([network.pl_curvature(problem, W[k], a[k]) for k in range(len(times))])
    losses = np.array([g["loss"] for g in out])
    rates = np.array([pl(g["N"], n, width, kappa) for g in out])
    assert _rel_err(total, np.sum(losses * rates, axis=0) / np.sum(losses, axis=0)) < AGREE
    # transition times t(q), located on the integrated flow
    t_q = sp.lambdify((cf.q, cf.N_0, cf.Y, symbols.n, symbols.p, symbols.kappa),
                      cf.group_transition_time(), "numpy")
    _, _, sol = _integrate(problem, np.array([0.0, 25.0]), dense=True)
    for j, (idx, _s) in enumerate(groups):
        Y = float(np.linalg.norm(problem.y[idx]))
        N0 = float(np.sum(problem.W0[j] ** 2))
        for q in (0.1, 0.5, 0.9):
            def gap(time, j=j, q=q, Y=Y):
                state = sol.sol(time)[: width * problem.d].reshape(width, problem.d)
                return float(np.sum(state[j] ** 2) - q * width * Y)

            measured = brentq(gap, 0.0, 25.0, xtol=1e-14, rtol=1e-14)
            assert abs(measured - t_q(q, N0, Y, n, width, kappa)) < AGREE * measured


def test_cf7_repository_formula_is_wrong_when_not_aligned():
    """R's phase_transition.py: c = tanh(2 tau + phi) and its N(t) (THEORY CF-7 bug note)."""
    t, n, p, kappa, Y, N0, c0 = (symbols.t, symbols.n, symbols.p, symbols.kappa, cf.Y, cf.N_0,
                                 cf.c_0)
    tau = cf.group_clock()
    ch, sh = sp.cosh(2 * tau), sp.sinh(2 * tau)
    c_repo = (sh + c0 * ch) / (ch + c0 * sh)
    N_repo = p * Y * N0 * (ch + c0 * sh) / (p * Y + N0 * (sh + c0 * (ch - 1)))
    rate = kappa * Y / (n * p)
    # not a solution of the true cosine ODE, but of the one with twice the rate ...
    assert not _is_zero(sp.diff(c_repo, t) - rate * (1 - c_repo**2))
    assert _is_zero(sp.diff(c_repo, t) - 2 * rate * (1 - c_repo**2))
    # ... with the true N-equation driven by that cosine
    assert _is_zero(sp.diff(N_repo, t) - 2 * kappa / (n * p) * (N_repo * Y * c_repo
                                                                 - N_repo**2 / p))
    # aligned, R's formulas are exact (the case R plots)
    assert _is_zero(N_repo.subs(c0, 1) - cf.group_norm_aligned()) and c_repo.subs(c0, 1) == 1
    # measured on a flow: c_0 = 0.71, kappa = 1 (standard network, so p = 1 in the formulas)
    Ygroup, start = 0.1514, 0.08 * 0.1514  # tau(10) = 0.757, N_0 = 0.08 p Y
    angle = np.deg2rad(30.0)
    yG = Ygroup * np.array([np.cos(angle), np.sin(angle)])
    turn = angle + np.arccos(0.71)
    w0 = np.sqrt(start) * np.array([np.cos(turn), np.sin(turn)])
    problem = Problem(X=np.eye(2), y=yG, W0=w0[None, :], a0=[np.linalg.norm(w0)])
    times = np.array([0.0, 10.0])
    W, _ = _integrate(problem, times)
    N_flow = float(np.sum(W[-1, 0] ** 2))
    c_flow = float(W[-1, 0] @ yG / (np.sqrt(N_flow) * Ygroup))
    values = {t: 10.0, n: 2, p: 1, kappa: 1, Y: Ygroup, N0: start, c0: 0.71}
    assert abs(c_flow / float(cf.group_alignment().subs(values)) - 1) < AGREE
    assert abs(N_flow / float(cf.group_norm().subs(values)) - 1) < AGREE
    c_err = float(c_repo.subs(values)) / c_flow - 1
    N_err = float(N_repo.subs(values)) / N_flow - 1
    assert 0.05 < c_err < 0.07 and 0.07 < N_err < 0.10, (c_err, N_err)


def test_cf7_statement_uses_the_module_formulas():
    rel = {sp.sstr(r.lhs): r for r in cfc.CF7.relations()}
    subs = {cf.N_0: symbols.GroupNormSq(0), cf.c_0: symbols.GroupCos(0), cf.Y: symbols.GroupY}
    assert rel["GroupNormSq(t)"].rhs == cf.group_norm().subs(subs)
    assert rel["GroupCos(t)"].rhs == cf.group_alignment().subs(subs)


# ==================================================================================================
# CF-5 numerically, on the group flow (orthogonal data, A1 holds)
# ==================================================================================================
def test_cf5_certificate_on_a_group_run():
    problem, _ = _group_problem("mean_field", aligned=False)
    times = np.linspace(0.0, 60.0, 601)
    W, a = _integrate(problem, times)
    h = np.array([network.outputs(problem, W[k], a[k]) for k in range(len(times))])
    residual = problem.y - h
    loss = np.sum(residual**2, axis=1) / (2 * problem.n)
    y_min = float(np.min(np.abs(problem.y)))
    start = int(np.argmax(loss < y_min**2 / (2 * problem.n)))
    assert start > 0
    k0 = float(cf.fit_certificate(loss[start], problem.n, y_min))
    assert k0 > 0
    fit = np.min(np.abs(h / problem.y), axis=1)
    assert np.all(fit[start:] >= k0 - 1e-12)
    assert np.all(np.max(np.abs(residual), axis=1) ** 2 <= 2 * problem.n * loss * (1 + 1e-12))
    C = float(cf.s000_constant(1, 1, y_min))  # unit norms
    bound = sp.lambdify(symbols.t, cf.certified_loss_bound(symbols.t, times[start],
                                                           loss[start], C, problem.n, y_min))
    assert np.all(loss[start:] <= bound(times[start:]) * (1 + 1e-9))


# ==================================================================================================
# CF-8: S002 phases
# ==================================================================================================
def test_cf8_logistic_law():
    t, u = symbols.t, cf.logistic_phase()
    D, U = symbols.Dplus, symbols.CapPlus
    assert _is_zero(sp.diff(u, t) - 2 * D * (1 - u / U) * u)
    assert _is_zero(u.subs(t, 0) - cf.u_0)
    assert _is_zero(u.subs(t, cf.logistic_half_time()) - U / 2)
    small = cf.logistic_half_time(cf.K_0 * symbols.lam**2) + sp.log(symbols.lam) / D
    assert _is_zero(sp.limit(small, symbols.lam, 0) - sp.log(U / cf.K_0) / (2 * D))


def test_cf8_loss_levels_on_orthonormal_data():
    yp = _real_symbols("y", 3, positive=True)
    ym = _real_symbols("z", 2, positive=True)  # |y_k| of the negative labels
    n = 5
    Dp, Dm = sp.sqrt(sum(v**2 for v in yp)) / n, sp.sqrt(sum(v**2 for v in ym)) / n
    total = sum(v**2 for v in yp + ym) / (2 * n)
    assert _is_zero(cf.initial_loss(Dp, Dm, n) - total)
    assert _is_zero(cf.saddle_loss(Dm, n) - sum(v**2 for v in ym) / (2 * n))
    # on the positive block h = u y/U; at capacity the positives are fitted
    assert _is_zero(cf.phase_outputs(n * Dp, yp[0], n * Dp) - yp[0])


def _phase_two_problem():
    """Orthonormal data; two neurons aligned with D_+, the other two exactly 0."""
    X = np.eye(6)
    y = np.array([1.0, 0.8, 1.2, -0.5, -0.6, -0.4])
    Dp = np.where(y > 0, y, 0.0) / 6
    unit = Dp / np.linalg.norm(Dp)
    scales = np.array([0.02, 0.03])
    W0 = np.zeros((4, 6))
    W0[:2] = scales[:, None] * unit
    a0 = np.array([*scales, 0.0, 0.0])
    return Problem(X=X, y=y, W0=W0, a0=a0), np.linalg.norm(Dp), np.linalg.norm(y[y > 0])


def test_cf8_exact_on_the_network_flow():
    problem, Dp, Up = _phase_two_problem()
    times = np.linspace(0.0, 30.0, 61)
    W, a = _integrate(problem, times)
    u = np.sum(W[:, :2] ** 2, axis=(1, 2))
    law = sp.lambdify((symbols.t, cf.u_0, symbols.Dplus, symbols.CapPlus), cf.logistic_phase())
    assert _rel_err(u, law(times, u[0], Dp, Up)) < AGREE
    assert u[-1] > 0.999 * Up
    h = np.array([network.outputs(problem, W[k], a[k]) for k in range(len(times))])
    positive = problem.y > 0
    assert np.allclose(h[:, positive], u[:, None] * problem.y[positive] / Up, rtol=1e-10,
                       atol=1e-15)
    assert np.all(h[:, ~positive] == 0) and np.all(W[:, 2:] == 0)
    # at capacity this is S002's saddle: the loss is ||y_-||^2/(2n), the gradient is ~0
    L_end = network.loss_from_outputs(problem, h[-1])
    assert abs(L_end - np.sum(problem.y[~positive] ** 2) / 12) < 1e-8
    half = float(cf.logistic_half_time(u[0], Dp, Up))
    assert abs(float(np.interp(Up / 2, u, times)) - half) < 0.05  # coarse grid only


def test_cf8_two_point_example_single_sample_capacity():
    """Non-unit norms, one sample per sign: capacity |y|/||x|| = 1/sqrt(5), rate sqrt(5)."""
    X = np.array([[-0.5, 1.0], [2.0, 1.0]])
    y = np.array([-1.0, 1.0])
    x2 = X[1]
    w0 = 0.05 * x2 / np.linalg.norm(x2)
    problem = Problem(X=X, y=y, W0=np.stack([w0, np.zeros(2)]), a0=[0.05, 0.0])
    Dp = np.linalg.norm(y[1] * x2 / 2)
    assert abs(2 * Dp - np.sqrt(5)) < 1e-15
    times = np.linspace(0.0, 8.0, 33)
    W, _ = _integrate(problem, times)
    u = np.sum(W[:, 0] ** 2, axis=1)
    law = sp.lambdify((symbols.t, cf.u_0, symbols.Dplus, symbols.CapPlus), cf.logistic_phase())
    assert _rel_err(u, law(times, u[0], Dp, 1 / np.sqrt(5))) < AGREE


# ==================================================================================================
# CF-9: minimum-norm interpolator
# ==================================================================================================
def _preactivation_pattern(W, X):
    Z = (W * X.T).applyfunc(sp.simplify)
    for z in Z:
        assert z == 0 or z.is_positive or z.is_negative, z  # every sign decided exactly
    return Z, Z.applyfunc(lambda z: 1 if z.is_positive else 0)


def test_cf9_interpolates_orthonormal_data():
    yp = _real_symbols("y", 2, positive=True)
    ym = _real_symbols("z", 2, positive=True)
    labels = sp.Matrix([yp[0], -ym[0], yp[1], -ym[1]])
    X = _HADAMARD  # orthonormal rows, a rotated basis
    W, a = cf.min_norm_interpolator(X, labels)
    _, A = _preactivation_pattern(W, X)
    assert A == sp.Matrix([[1, 0, 1, 0], [0, 1, 0, 1]])
    assert _is_zero(cf.relu_outputs(a, W, X, A) - labels)
    n = 4
    D = {s: sum((labels[k] * X.row(k) for k in range(n) if sp.sign(labels[k]) == s),
                sp.zeros(1, 4)) / n for s in (1, -1)}
    norm_sq = sum(a[j] ** 2 + W.row(j).dot(W.row(j)) for j in range(2))
    Dp, Dm = sp.sqrt(D[1].dot(D[1])), sp.sqrt(D[-1].dot(D[-1]))
    assert _is_zero(norm_sq - 2 * n * (Dp + Dm))
    U = {s: cf.class_capacity(X, labels, s) for s in (1, -1)}
    assert _is_zero(norm_sq - cf.min_norm_value(U[1], U[-1]))
    assert _is_zero(U[1] - n * Dp)
    # directions: w_+ along D_+, w_- along -D_-
    assert _is_zero(W.row(0) - sp.sqrt(n * Dp) * D[1] / Dp)
    assert _is_zero(W.row(1) + sp.sqrt(n * Dm) * D[-1] / Dm)
    # a collinear split of the positive neuron (shares g, 1 - g) is just as good
    g = sp.Symbol("g", positive=True)
    W2 = sp.Matrix.vstack(sp.sqrt(g) * W.row(0), sp.sqrt(1 - g) * W.row(0), W.row(1))
    a2 = sp.Matrix([sp.sqrt(g) * a[0], sp.sqrt(1 - g) * a[0], a[1]])
    A2 = sp.Matrix.vstack(A.row(0), A.row(0), A.row(1))
    assert _is_zero(cf.relu_outputs(a2, W2, X, A2) - labels)
    assert _is_zero(sum(a2[j] ** 2 + W2.row(j).dot(W2.row(j)) for j in range(3)) - norm_sq)


def test_cf9_two_point_example():
    X = sp.Matrix([[-sp.Rational(1, 2), 1], [2, 1]])
    labels = sp.Matrix([-1, 1])
    W, a = cf.min_norm_interpolator(X, labels)
    _, A = _preactivation_pattern(W, X)
    assert _is_zero(cf.relu_outputs(a, W, X, A) - labels)
    assert sp.simplify(W.row(0).dot(W.row(0)) - 1 / sp.sqrt(5)) == 0
    assert sp.simplify(W.row(1).dot(W.row(1)) - 2 / sp.sqrt(5)) == 0
    half = sum(a[j] ** 2 + W.row(j).dot(W.row(j)) for j in range(2)) / 2
    assert sp.simplify(half - 3 / sp.sqrt(5)) == 0
    # the learned function of the 1-D input s (x = (s, 1)): kinks at the two data points
    s = sp.Symbol("s", real=True)
    pre = W * sp.Matrix([s, 1])
    assert sp.simplify(pre[0] / (2 * s + 1)).is_positive
    assert sp.simplify(pre[1] / (1 - s / 2)).is_positive
    h = sum(a[j] * sp.Max(0, pre[j]) for j in range(2))
    stated = sp.Max(0, 2 * s + 1) / 5 - sp.Rational(4, 5) * sp.Max(0, 1 - s / 2)
    for value in (-3, -1, -sp.Rational(1, 2), 0, sp.Rational(7, 5), 2, 5):
        assert sp.simplify((h - stated).subs(s, value)) == 0
    # the linear interpolator 0.8 s - 0.6 = <v, x>, as relu(<v,x>) - relu(-<v,x>) (balanced),
    # costs 1/2 ||theta||^2 = 2 ||v|| = 2 > 3/sqrt(5)
    v = sp.Matrix([sp.Rational(4, 5), -sp.Rational(3, 5)])
    assert 2 * sp.sqrt(v.dot(v)) == 2 and 2 > 3 / sp.sqrt(5)


def test_cf9_no_interpolator_is_smaller():
    """The two inequalities of the optimality proof, exactly, then on random networks."""
    aj = sp.Symbol("a", real=True)
    w = sp.Matrix(_real_symbols("w", 3))
    norm_w = sp.sqrt(w.dot(w))
    assert _is_zero(aj**2 + w.dot(w) - 2 * sp.Abs(aj) * norm_w - (sp.Abs(aj) - norm_w) ** 2)
    # ||c_j||^2 = a^2 sum_k relu(<w, x_k>)^2 <= a^2 sum_k <w, x_k>^2 <= a^2 ||w||^2 (Bessel)
    X = _HADAMARD[:3, :]  # three orthonormal inputs in R^4
    w4 = sp.Matrix(_real_symbols("u", 4))
    proj = X * w4
    out = w4 - X.T * proj
    assert _is_zero(w4.dot(w4) - proj.dot(proj) - out.dot(out))
    rng = np.random.default_rng(9)
    Xn = np.eye(4, 5)
    for _ in range(2000):
        W = rng.standard_normal((6, 5))
        a = rng.standard_normal(6)
        problem = Problem(X=Xn, y=np.ones(4), W0=W, a0=a)
        labels = network.outputs(problem, W, a)  # the labels this network interpolates
        value = 2 * (np.linalg.norm(labels[labels > 0]) + np.linalg.norm(labels[labels < 0]))
        assert np.sum(a**2) + np.sum(W**2) >= value * (1 - 1e-12)


# ==================================================================================================
# CF-10: linearisation at theta*
# ==================================================================================================
def test_cf10_kernel_and_rates():
    yp = _real_symbols("y", 3, positive=True)
    ym = _real_symbols("z", 2, positive=True)
    labels = sp.Matrix([*yp, *[-v for v in ym]])
    n = 5
    X = sp.eye(n)
    W, a = cf.min_norm_interpolator(X, labels)
    _, A = _preactivation_pattern(W, X)
    a_s = sp.Matrix(_real_symbols("a", 2))
    W_s = sp.Matrix(2, n, _real_symbols("w", 2 * n))
    h = cf.relu_outputs(a_s, W_s, X, A)  # the pattern of theta* is kept near theta*
    J = sp.Matrix.hstack(*[h.diff(x) for x in [*a_s, *W_s]])
    at_star = {**dict(zip(a_s, a, strict=True)), **dict(zip(W_s, W, strict=True))}
    Theta = (J * J.T).subs(at_star)
    block = sp.diag(cf.interpolator_kernel(yp), cf.interpolator_kernel([-v for v in ym]))
    assert _is_zero(Theta - block)
    for ys in (yp, ym):
        Up = sp.sqrt(sum(v**2 for v in ys))
        K = cf.interpolator_kernel(ys)
        yv = sp.Matrix(ys)
        assert _is_zero(K * yv - 2 * Up * yv)
        for k in range(1, len(ys)):  # a basis of y-perp
            perp = sp.zeros(len(ys), 1)
            perp[0], perp[k] = ys[k], -ys[0]
            assert _is_zero(K * perp - Up * perp)
        rate, fast = cf.interpolator_rates(Up / n)
        assert fast == 2 * rate  # Theta/n has eigenvalues ||D|| and 2||D||, ||D|| = U/n


def test_cf10_pl_at_the_interpolator_against_numerics():
    rng = np.random.default_rng(10)
    y = np.array([1.0, 0.8, 1.2, -0.5, -0.6, -0.4])
    n = len(y)
    W_s, a_s = cf.min_norm_interpolator(sp.eye(n), sp.Matrix([sp.nsimplify(v) for v in y]))
    W, a = np.array(W_s.evalf(), dtype=float), np.array(a_s.evalf(), dtype=float).ravel()
    Dp, Dm = np.linalg.norm(y[y > 0]) / n, np.linalg.norm(y[y < 0]) / n
    Theta = np.zeros((n, n))
    for cls in (y > 0, y < 0):
        K = cf.interpolator_kernel([sp.nsimplify(v) for v in y[cls]])
        Theta[np.ix_(cls, cls)] = np.array(K.evalf(), dtype=float)
    for _ in range(50):
        e = rng.standard_normal(n)
        problem = Problem(X=np.eye(n), y=y - 1e-3 * e, W0=W, a0=a)  # theta* has h - y' = e
        mu = network.pl_curvature(problem, W, a)
        e = 1e-3 * e
        assert abs(mu / (2 / n * e @ Theta @ e / (e @ e)) - 1) < 1e-10
        assert 2 * Dm * (1 - 1e-12) <= mu <= 4 * Dp * (1 + 1e-12)


def test_cf10_single_negative_sample_rate():
    """n_- = 1 and n_+ >= 2 with ||D_+|| < 2||D_-||: the slowest rate is ||D_+||, not 2||D_-||."""
    yp, ym = [1, 1], [-sp.Rational(6, 5)]
    n = 3
    Dp, Dm = sp.sqrt(2) / n, sp.Rational(6, 5) / n
    assert Dp > Dm and Dp < 2 * Dm
    eigen = set(cf.interpolator_kernel(yp).eigenvals()) | set(
        cf.interpolator_kernel(ym).eigenvals())
    slowest = min(eigen) / n
    assert sp.simplify(slowest - Dp) == 0  # loss rate 2||D_+|| < 4||D_-||
    assert 2 * slowest < 4 * Dm


# ==================================================================================================
# CF-11: S001 constants
# ==================================================================================================
def test_cf11_constants():
    mu_pos = sp.Symbol("mu_pos", positive=True)
    # T at the second term of (28) equals the log bound on t_1 exactly
    horizon = cf.s001_horizon(cf.s001_scale_second_term(separation=mu_pos))
    bound = cf.s001_alignment_time_bound(separation=mu_pos)
    assert _is_zero(sp.expand_log(horizon - bound, force=True))
    # alpha = (1/4) ||v||^2 gamma^2 / 2 with ||v||^2 >= 1/(4 X_max) and gamma = mu X_min
    alpha = sp.Rational(1, 4) * (1 / (4 * symbols.Xmax)) * sp.Rational(1, 2) \
        * (symbols.mu * symbols.Xmin) ** 2
    assert _is_zero(alpha - cf.s001_rate_constant())
    loss = cf.s001_loss_bound()
    assert _is_zero(sp.diff(loss, symbols.t) + cf.s001_rate_constant() * loss**2)
    # Lemma 3 at T: e^{4 n X_max T} eps^2 W_max^2 = eps W_max^2/sqrt(h) <= 2 eps W_max^2/sqrt(h)
    growth = sp.exp(4 * symbols.n * symbols.Xmax * cf.s001_horizon())
    assert _is_zero(growth * symbols.lam**2 * symbols.Wmax**2
                    - symbols.lam * symbols.Wmax**2 / sp.sqrt(symbols.p))
    out = symbols.p * (2 * symbols.lam * symbols.Wmax**2 / sp.sqrt(symbols.p)) * symbols.Xmax
    assert _is_zero(out - 2 * sp.sqrt(symbols.p) * symbols.lam * symbols.Xmax * symbols.Wmax**2)
    at_limit = out.subs(symbols.lam, 1 / (4 * sp.sqrt(symbols.p) * symbols.Xmax
                                          * symbols.Wmax**2))
    assert sp.simplify(at_limit) == sp.Rational(1, 2)  # hence max|f| <= 1/2 <= 1
    slack = 4 * symbols.lam * symbols.Wmax**2 / sp.sqrt(symbols.p) * symbols.p
    assert _is_zero(slack - cf.s001_rank_slack())
    assert cf.s001_margins() == (sp.Min(symbols.mu**2, symbols.zeta_2), symbols.mu**2)
    # THEORY's example of (28)'s second term: n = 10, mu = 1/2, zeta = xi = 1/4, X = 1
    exponent = sp.log(cf.s001_scale_second_term(10, sp.Rational(1, 2), sp.Rational(1, 4), 1, 1,
                                                1))
    assert -8400 < float(exponent) < -8300


def test_cf11_alignment_time_below_its_log_bound():
    H = [sp.Integer(0)] + [sp.harmonic(k) for k in range(1, 201)]
    for n_pos in range(1, 101):
        for n_neg in range(1, 101):
            lhs = 4 * (H[n_neg] + H[n_pos - 1] + sp.Rational(1, 2))
            assert float(lhs) < 16 * math.log(n_pos + n_neg)
    general = cf.s001_alignment_time() / cf.s001_alignment_time_bound(symbols.n)
    assert sp.simplify(general.subs({symbols.n_plus: 1, symbols.n_minus: 1, symbols.n: 2})) \
        == 6 / (16 * sp.log(2))
    assert cf.s001_dead_time(3, 1, 1, 1) == 4 * sp.Rational(11, 6)


def test_cf11_agrees_with_s001_catalogue():
    s001 = theory.get("S001-T1a")
    for symbol, formula in cfc.CF11.definitions.items():
        if symbol in s001.definitions:
            assert sp.simplify(s001.definitions[symbol] - formula) == 0, symbol
    t2 = cf.s001_t2_bound()
    assert t2.has(symbols.t_1) and t2.has(symbols.Wmin)


# ==================================================================================================
# CF-12: direction and norm rates
# ==================================================================================================
def test_cf12_rates_by_differentiation():
    t = symbols.t
    w = sp.Matrix([sp.Function(f"w{k}")(t) for k in range(1, 4)])
    w_dot = w.diff(t)
    norm = sp.sqrt(w.dot(w))
    assert _is_zero((w / norm).diff(t) - cf.direction_rate(w, w_dot))
    assert _is_zero(norm.diff(t) - cf.norm_rate(w, w_dot))
    # velocity = radial part + angular part
    direction = cf.direction_rate(w, w_dot)
    assert _is_zero(w_dot.dot(w_dot) - cf.norm_rate(w, w_dot) ** 2
                    - w.dot(w) * direction.dot(direction))


def test_cf12_spherical_coordinates():
    """S002 eq. (9): with w' = s ||w|| D, d ln||w||/dt = s<D, w-bar>, d w-bar/dt = s P D."""
    w = sp.Matrix(_real_symbols("w", 3))
    D = sp.Matrix(_real_symbols("D", 3))
    norm = sp.sqrt(w.dot(w))
    for s in (1, -1):
        w_dot = s * norm * D
        radial, angular = cf.spherical_rates(D, w / norm, s)
        assert _is_zero(cf.norm_rate(w, w_dot) / norm - radial)
        assert _is_zero(cf.direction_rate(w, w_dot) - angular)


def test_cf12_s002_layer_ode_from_the_network():
    """da_j/dt = <D_j, w_j>, dw_j/dt = a_j D_j, D_j = -(1/n) sum_k 1_jk (h_k - y_k) x_k."""
    a = sp.Matrix(_real_symbols("a", 2))
    W = sp.Matrix(2, 3, _real_symbols("w", 6))
    X = sp.Matrix(3, 3, _real_symbols("x", 9))
    y = sp.Matrix(_real_symbols("y", 3))
    A = sp.Matrix([[1, 0, 1], [1, 1, 0]])
    h = cf.relu_outputs(a, W, X, A)
    ga, gW = _gradients(cf.square_loss(h, y), a, W)
    for j in range(2):
        D = -sum(((h[k] - y[k]) * A[j, k] * X.row(k) for k in range(3)), sp.zeros(1, 3)) / 3
        assert _is_zero(-ga[j] - D.dot(W.row(j)))
        assert _is_zero(-gW.row(j) - a[j] * D)


def test_cf12_statement_matches_the_chain_rule():
    for rel in cfc.CF12.relations():
        assert _is_zero(rel.lhs - rel.rhs)
