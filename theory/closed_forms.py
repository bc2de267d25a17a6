"""Closed-form solutions and exact identities CF-1 .. CF-12 (THEORY.md section 6).

Each closed form is a plain sympy function of its inputs, so numerics and
reports evaluate the same formula through ``sympy.lambdify`` (numpy, mpmath,
torch) instead of retyping it. Each also has a `Claim` of kind IDENTITY
(`theory.closed_form_claims`, the pack CF) whose
statement is written in the shared vocabulary (a measured quantity against its
closed form, or an exact algebraic relation between free variables).
tests/theory/test_closed_forms.py proves each one symbolically, without tolerances: an
ODE solution is differentiated and substituted into its ODE, an identity is
reduced to 0, an inequality to a sum of non-negative terms, a probability is
compared with exhaustive enumeration. The dynamical ones are also compared with
integrated gradient flows.

Conventions (THEORY.md section 0.1): the network is h(x) = s sum_j a_j relu(<w_j, x>)
with output factor s (1/p mean-field, 1 standard), the loss is
L = 1/(2n) sum_i (y_i - h(x_i))^2, the flow is d(theta)/dt = -kappa grad L and
relu'(0) = 0. Function defaults are vocabulary symbols where the vocabulary has
the quantity, and symbols local to this module otherwise (Y, N_0, c_0, ...).

Length (~475 lines): twelve closed forms, each a short sympy function with where it comes
from; one module, so that numerics, claims and reports read each formula from one owner.
"""

from __future__ import annotations

import sympy as sp

from theory.symbols import (
    CapMinus,
    CapPlus,
    Dminus,
    Dplus,
    MinAbsY,
    MinFitRatio,
    Wmax,
    Wmin,
    Xmax,
    Xmin,
    kappa,
    lam,
    mu,
    n,
    n_minus,
    n_plus,
    p,
    t,
    t_1,
    xi,
    zeta,
    zeta_2,
)

# -- symbols local to single formulas -----------------------------------------------------
Y = sp.Symbol("Y", positive=True)  # CF-7: ||y_G||, the label norm of a group
N_0 = sp.Symbol("N_0", positive=True)  # CF-7: ||w(0)||^2
c_0 = sp.Symbol("c_0", positive=True)  # CF-7: cos(w(0), s y_G), in (0, 1]
q = sp.Symbol("q", positive=True)  # CF-7: fraction of the capacity p Y reached
u_0 = sp.Symbol("u_0", positive=True)  # CF-8: u_+ at the start of the phase
K_0 = sp.Symbol("K_0", positive=True)  # CF-8: u_0 = K_0 lam^2 at small initialisation
L_0 = sp.Symbol("L_0", nonnegative=True)  # CF-5: the loss level L(t_0)
t_0 = sp.Symbol("t_0", nonnegative=True)  # CF-5: the time the level is reached
L_2 = sp.Symbol("L_2", positive=True)  # CF-11: the loss at S001's t_2
t_2s = sp.Symbol("t_2s", nonnegative=True)  # CF-11: S001's t_2 = max(t_2^+, t_2^-)


# ===========================================================================================
# Symbolic network with a fixed activation pattern (the model of every proof)
# ===========================================================================================
def relu_outputs(a, W, X, active, scale=1):
    """h(x_i) = scale sum_j active[j, i] a_j <w_j, x_i>, as a column of length n.

    ``W`` has one row per neuron and ``X`` one row per sample; ``active`` is the
    (p, n) 0/1 activation pattern. Where the pattern is fixed, relu(z) = A z and
    relu'(z) = A exactly, whatever value relu'(0) is given.
    """
    a, W, X, active = (sp.Matrix(m) for m in (a, W, X, active))
    Z = W * X.T
    return sp.Matrix([
        scale * sum(active[j, i] * a[j] * Z[j, i] for j in range(W.rows))
        for i in range(X.rows)
    ])


def square_loss(h, y):
    """L = 1/(2n) sum_i (y_i - h_i)^2."""
    h, y = sp.Matrix(h), sp.Matrix(y)
    return sum((y[i] - h[i]) ** 2 for i in range(y.rows)) / (2 * y.rows)


# ===========================================================================================
# CF-1: parametrisation map
# ===========================================================================================
def standard_from_mean_field(theta, width=p):
    """The standard-network weights theta/sqrt(p) that represent mean-field ``theta``."""
    return theta / sp.sqrt(width)


def unit_flow_time(time=t, flow_factor=kappa):
    """The kappa = 1 flow is at time kappa t where the flow -kappa grad L is at time t."""
    return flow_factor * time


# ===========================================================================================
# CF-2: balancedness under gradient descent
# ===========================================================================================
def gd_balance_increment(step, grad_a, grad_w_sq):
    """c_j^{k+1} - c_j^k = step^2 (g_a^2 - ||g_w||^2) for c_j = a_j^2 - ||w_j||^2."""
    return step**2 * (grad_a**2 - grad_w_sq)


def gd_balance_bound(step, weight, w_sq, v_sq):
    """step^2 (||w_j||^2 - a_j^2) ||v_j||^2: bounds the increment; <= 0 under |a_j| >= ||w_j||."""
    return step**2 * (w_sq - weight**2) * v_sq


# ===========================================================================================
# CF-3, CF-4: PL sandwiches
# ===========================================================================================
def sample_energy(a, active_row, width=p):
    """E_i = (1/p) sum_j 1_ij a_j^2."""
    return sum(active_row[j] * a[j] ** 2 for j in range(len(a))) / width


def pl_sandwich_bounds(weighted_energies, samples=n):
    """((2/n) min_i ||x_i||^2 E_i, (4/n) max_i ||x_i||^2 E_i): CF-3's bracket of the PL."""
    e = list(weighted_energies)
    return 2 * sp.Min(*e) / samples, 4 * sp.Max(*e) / samples


def orthogonal_fit_bound(fit=None, samples=n, x_min=Xmin, y_min=MinAbsY):
    """(2/n) C_x^- C_y^- min_i |h_i/y_i| (fit defaults to MinFitRatio(t)): CF-3, T1's form."""
    fit = MinFitRatio(t) if fit is None else fit
    return 2 * x_min * y_min * fit / samples


def gershgorin_slack(G, i):
    """gamma_i = sum_{k != i} |G_ik| / G_ii for a Gram matrix G."""
    G = sp.Matrix(G)
    return sum(abs(G[i, k]) for k in range(G.cols) if k != i) / G[i, i]


def gershgorin_pl_bound(weighted_energies, slacks, samples=n):
    """(2/n) min_i (1 - gamma_i) ||x_i||^2 E_i, CF-4's lower bound on the PL curvature."""
    terms = [(1 - g) * e for g, e in zip(slacks, weighted_energies, strict=True)]
    return 2 * sp.Min(*terms) / samples


def mean_abs_cosine(dim):
    """E|<u, v>| for independent uniform unit vectors of R^dim (~ sqrt(2/(pi dim)))."""
    return sp.gamma(sp.S(dim) / 2) / (sp.sqrt(sp.pi) * sp.gamma((sp.S(dim) + 1) / 2))


def gershgorin_dimension(norm_ratio, samples=n):
    """(8/pi) (E rho / rho_min)^2 n^2: the d at which E gamma_i = 1/2 on isotropic data."""
    return 8 * norm_ratio**2 * samples**2 / sp.pi


# ===========================================================================================
# CF-5: convergence certificate from a loss level
# ===========================================================================================
def fit_certificate(level=L_0, samples=n, y_min=MinAbsY):
    """kappa_0 = 1 - sqrt(2 n L(t_0)) / C_y^-, a lower bound on min_i |h_i/y_i| after t_0."""
    return 1 - sp.sqrt(2 * samples * level) / y_min


def s000_constant(x_min=Xmin, x_max=Xmax, y_min=MinAbsY):
    """S000's C = (C_x^-/C_x^+) C_x^- C_y^-."""
    return x_min / x_max * x_min * y_min


def certified_loss_bound(time=t, start=t_0, level=L_0, rate=None, samples=n, y_min=MinAbsY):
    """L(t_0) exp(-(C kappa_0 / n)(t - t_0)) with C = ``rate`` (default S000's C)."""
    rate = s000_constant(y_min=y_min) if rate is None else rate
    return level * sp.exp(-rate * fit_certificate(level, samples, y_min) * (time - start)
                          / samples)


# ===========================================================================================
# CF-6: good-initialisation probabilities
# ===========================================================================================
def good_init_probability(positives=n_plus, negatives=n_minus, width=p):
    """P(every sample has a same-sign neuron active on it) on orthogonal data.

    sum_k C(p,k) 2^-p (1 - 2^-k)^n_+ (1 - 2^-(p-k))^n_-, k the number of positive
    output weights; every sign of a_j and of <w_j, x_i> is an independent fair coin.
    """
    k = sp.Symbol("k", integer=True, nonnegative=True)
    term = (sp.binomial(width, k) / sp.Integer(2) ** width
            * (1 - sp.Integer(2) ** (-k)) ** positives
            * (1 - sp.Integer(2) ** (k - width)) ** negatives)
    return sp.Sum(term, (k, 0, width))


def good_init_union_bound(samples=n, width=p):
    """n (3/4)^p, the union bound on 1 - P(good)."""
    return samples * sp.Rational(3, 4) ** width


def union_bound_width(failure, samples=n):
    """log(n/eps)/log(4/3): the width at which the union bound equals ``failure``."""
    return sp.log(samples / failure) / sp.log(sp.Rational(4, 3))


def key_neuron_probability(positives=n_plus, width=p):
    """P(S_{+,1} non-empty) = 1 - (1 - 2^-(n_+ + 1))^m (S002 Assumption 3, same coins)."""
    return 1 - (1 - sp.Integer(2) ** (-(positives + 1))) ** width


# ===========================================================================================
# CF-7: group initialisation
# ===========================================================================================
def group_clock(time=t, label_norm=Y, samples=n, width=p, flow_factor=kappa):
    """tau = kappa Y t / (n p)."""
    return flow_factor * label_norm * time / (samples * width)


def group_alignment(time=t, c_init=c_0, label_norm=Y, samples=n, width=p, flow_factor=kappa):
    """c(t) = tanh(tau + atanh c_0), written so that it also holds at c_0 = 1."""
    tau = group_clock(time, label_norm, samples, width, flow_factor)
    ch, sh = sp.cosh(tau), sp.sinh(tau)
    return (sh + c_init * ch) / (ch + c_init * sh)


def group_norm(time=t, norm_init=N_0, c_init=c_0, label_norm=Y, samples=n, width=p,
               flow_factor=kappa):
    """N(t) = ||w(t)||^2: THEORY's 1/N formula divided through by cosh^2(atanh c_0).

    1/N = [1/N_0 + ((1 - c_0^2) tau + (sinh tau + c_0 cosh tau)(cosh tau + c_0 sinh tau)
    - c_0)/(p Y)] / (cosh tau + c_0 sinh tau)^2; at c_0 = 1 this is the logistic curve.
    """
    tau = group_clock(time, label_norm, samples, width, flow_factor)
    ch, sh = sp.cosh(tau), sp.sinh(tau)
    gain = ((1 - c_init**2) * tau + (sh + c_init * ch) * (ch + c_init * sh) - c_init)
    return (ch + c_init * sh) ** 2 / (1 / norm_init + gain / (width * label_norm))


def group_norm_aligned(time=t, norm_init=N_0, label_norm=Y, samples=n, width=p,
                       flow_factor=kappa):
    """N(t) for c_0 = 1: logistic, capacity p Y, rate 2 kappa Y/(n p)."""
    growth = sp.exp(2 * group_clock(time, label_norm, samples, width, flow_factor))
    capacity = width * label_norm
    return capacity * norm_init * growth / (capacity + norm_init * (growth - 1))


def group_loss(norm_sq, cosine, label_norm=Y, samples=n, width=p):
    """L_G = 1/(2n) (Y^2 - 2 Y N c / p + N^2 / p^2)."""
    return (label_norm**2 - 2 * label_norm * norm_sq * cosine / width
            + norm_sq**2 / width**2) / (2 * samples)


def group_pl(norm_sq, cosine, label_norm=Y, samples=n, width=p, flow_factor=kappa):
    """mu_G = -d ln L_G/dt = (2 kappa N/(n p^2)) (2A + B)/(A + B).

    A = (Y c - N/p)^2, B = Y^2 (1 - c^2); aligned (c = 1): 4 kappa N/(n p^2), i.e.
    4N/(np) for the mean-field flow.
    """
    A = (label_norm * cosine - norm_sq / width) ** 2
    B = label_norm**2 * (1 - cosine**2)
    return 2 * flow_factor * norm_sq / (samples * width**2) * (2 * A + B) / (A + B)


def group_transition_time(fraction=q, norm_init=N_0, label_norm=Y, samples=n, width=p,
                          flow_factor=kappa):
    """t(q), the time at which N = q p Y (aligned case)."""
    capacity = width * label_norm
    return (samples * width / (2 * flow_factor * label_norm)
            * sp.log(fraction * (capacity - norm_init) / (norm_init * (1 - fraction))))


def group_relative_width(level, norm_init=N_0, label_norm=Y, width=p):
    """(t(1 - level) - t(level)) / t(1/2) = 2 ln((1-level)/level) / ln((pY - N_0)/N_0)."""
    return (2 * sp.log((1 - level) / level)
            / sp.log((width * label_norm - norm_init) / norm_init))


def group_limit_weight_sq(imbalance, scaled_label_norm, width=p):
    """a_inf^2 = (delta + sqrt(delta^2 + 4 p^2 ||y~||^2))/2, delta = a^2 - ||w||^2 >= 0."""
    return (imbalance + sp.sqrt(imbalance**2 + 4 * width**2 * scaled_label_norm**2)) / 2


def group_residual_matrix(labels, norms, weight_sq, samples=n, width=p):
    """R_G = (1/n)((a^2/p) diag(rho_i^2) + p y y^T/a^2): r' = -R_G r at the limit (MF flow)."""
    y = sp.Matrix(labels)
    rho_sq = sp.diag(*[r**2 for r in norms])
    return (weight_sq / width * rho_sq + width * y * y.T / weight_sq) / samples


# ===========================================================================================
# CF-8: S002 phases 2 and 3
# ===========================================================================================
def logistic_phase(time=t, mass_init=u_0, rate=Dplus, capacity=CapPlus):
    """u(t) solving u' = 2 D (1 - u/U) u, u(0) = u_0 (phase 2: D = ||D_+||, U = n||D_+||)."""
    growth = sp.exp(2 * rate * time)
    return capacity * mass_init * growth / (capacity + mass_init * (growth - 1))


def logistic_half_time(mass_init=u_0, rate=Dplus, capacity=CapPlus):
    """t_half = ln((U - u_0)/u_0)/(2D), when u reaches U/2."""
    return sp.log((capacity - mass_init) / mass_init) / (2 * rate)


def phase_outputs(mass, label, capacity=CapPlus):
    """h(x_k) = u y_k / U on the block being learnt (unit norms)."""
    return mass * label / capacity


def initial_loss(rate_plus=Dplus, rate_minus=Dminus, samples=n):
    """L at h = 0: (n/2)(||D_+||^2 + ||D_-||^2) = ||y||^2/(2n) (unit-norm orthogonal data)."""
    return samples * (rate_plus**2 + rate_minus**2) / 2


def saddle_loss(rate_minus=Dminus, samples=n):
    """L(theta_S) = n ||D_-||^2/2 = ||y_-||^2/(2n): the plateau between phases 2 and 3."""
    return samples * rate_minus**2 / 2


# ===========================================================================================
# CF-9: minimum-norm interpolator
# ===========================================================================================
def class_capacity(X, y, sign):
    """U_s = sqrt(sum_{sign y_k = s} (y_k/||x_k||)^2) (n ||D_s|| for orthonormal data)."""
    X, y = sp.Matrix(X), sp.Matrix(y)
    return sp.sqrt(sum(y[k] ** 2 / X.row(k).dot(X.row(k))
                       for k in range(y.rows) if sp.sign(y[k]) == sign))


def min_norm_interpolator(X, y):
    """(W, a): the width-2 minimum-norm interpolator of orthogonal data.

    Row 0: w_+ = sqrt(U_+) v_+/U_+ with v_+ = sum_{y_k > 0} (y_k/||x_k||^2) x_k
    (= n D_+ for orthonormal data, ||v_+|| = U_+) and a_+ = sqrt(U_+). Row 1: the same
    for the negative labels with v_- = sum_{y_k < 0} (|y_k|/||x_k||^2) x_k, a_- = -sqrt(U_-).
    """
    X, y = sp.Matrix(X), sp.Matrix(y)
    rows, weights = [], []
    for sign in (1, -1):
        v = sp.zeros(1, X.cols)
        for k in range(y.rows):
            if sp.sign(y[k]) == sign:
                v += sign * y[k] / X.row(k).dot(X.row(k)) * X.row(k)
        capacity = class_capacity(X, y, sign)
        rows.append(v / sp.sqrt(capacity))
        weights.append(sign * sp.sqrt(capacity))
    return sp.Matrix.vstack(*rows), sp.Matrix(weights)


def min_norm_value(capacity_plus=CapPlus, capacity_minus=CapMinus):
    """||theta*||^2 = 2(U_+ + U_-) = 2n(||D_+|| + ||D_-||) for orthonormal data."""
    return 2 * (capacity_plus + capacity_minus)


# ===========================================================================================
# CF-10: linearisation at the interpolator
# ===========================================================================================
def interpolator_kernel(labels, norms=None):
    """NTK block of one sign class at theta*: U diag(||x_k||^2) + y y^T/U, U the capacity.

    Unit norms: U (I + y^ y^T), U = ||y|| = n||D_s||. The residual e = h - y obeys
    e' = -(1/n) Theta e with Theta the block-diagonal of the two classes.
    """
    y = sp.Matrix(labels)
    norms = [1] * y.rows if norms is None else list(norms)
    capacity = sp.sqrt(sum((y[k] / norms[k]) ** 2 for k in range(y.rows)))
    return capacity * sp.diag(*[r**2 for r in norms]) + y * y.T / capacity


def interpolator_rates(rate=Dplus):
    """Residual decay rates of a unit-norm class: ||D|| (n_s - 1 times) and 2||D|| (once)."""
    return rate, 2 * rate


# ===========================================================================================
# CF-11: S001's explicit constants (eps is lam, the width h is p)
# ===========================================================================================
def s001_margins(separation=mu, non_alignment=zeta_2):
    """(zeta, xi) = (min(mu^2, zeta_2), mu^2): Lemma 8/9 margins (min, not the seed's max)."""
    return sp.Min(separation**2, non_alignment), separation**2


def s001_alignment_time(positives=n_plus, negatives=n_minus, margin=None, separation=mu,
                        x_min=Xmin):
    """t_1 = 4 (H_{n_-} + H_{n_+ - 1} + 1/2) / (min(zeta, xi) sqrt(mu) X_min)."""
    margin = sp.Min(zeta, xi) if margin is None else margin
    return (4 * (sp.harmonic(negatives) + sp.harmonic(positives - 1) + sp.Rational(1, 2))
            / (margin * sp.sqrt(separation) * x_min))


def s001_alignment_time_bound(samples=n, margin=None, separation=mu, x_min=Xmin):
    """16 log n / (min(zeta, xi) sqrt(mu) X_min), the proof's bound on t_1."""
    margin = sp.Min(zeta, xi) if margin is None else margin
    return 16 * sp.log(samples) / (margin * sp.sqrt(separation) * x_min)


def s001_dead_time(active, margin=None, separation=mu, x_min=Xmin):
    """(4/(min(zeta, xi) sqrt(mu) X_min)) H_{n_a}: a dying neuron is in S_dead by then."""
    margin = sp.Min(zeta, xi) if margin is None else margin
    return 4 * sp.harmonic(active) / (margin * sp.sqrt(separation) * x_min)


def s001_horizon(scale=lam, samples=n, x_max=Xmax, width=p):
    """T = ln(1/(sqrt(h) eps)) / (4 n X_max), the end of the small-norm phase."""
    return sp.log(1 / (sp.sqrt(width) * scale)) / (4 * samples * x_max)


def s001_scale_bound(samples=n, separation=mu, margin=None, x_min=Xmin, x_max=Xmax,
                     w_max=None, width=p):
    """Condition (28): the largest initialisation scale Theorem 1 allows (both terms)."""
    margin = sp.Min(zeta, xi) if margin is None else margin
    w_max = Wmax if w_max is None else w_max
    first = (sp.Min(separation, margin) * sp.sqrt(separation) * x_min
             / (4 * sp.sqrt(width) * samples * x_max**2 * w_max**2))
    return sp.Min(first, s001_scale_second_term(samples, separation, margin, x_min, x_max,
                                                width))


def s001_scale_second_term(samples=n, separation=mu, margin=None, x_min=Xmin, x_max=Xmax,
                           width=p):
    """exp(-64 n X_max log n / (min(zeta, xi) sqrt(mu) X_min)) / sqrt(h), second term of (28)."""
    margin = sp.Min(zeta, xi) if margin is None else margin
    return (sp.exp(-64 * samples * x_max * sp.log(samples)
                   / (margin * sp.sqrt(separation) * x_min)) / sp.sqrt(width))


def s001_rate_constant(separation=mu, x_min=Xmin, x_max=Xmax):
    """alpha = (mu X_min)^2 / (32 X_max) of the O(1/t) bound."""
    return (separation * x_min) ** 2 / (32 * x_max)


def s001_loss_bound(time=t, start=t_2s, level=L_2, rate=None):
    """L(t_2) / (1 + alpha L(t_2)(t - t_2)), Theorem 1's O(1/t) bound."""
    rate = s001_rate_constant() if rate is None else rate
    return level / (1 + rate * level * (time - start))


def s001_t2_bound(alignment_time=t_1, positives=n_plus, samples=n, scale=lam, separation=mu,
                  x_min=Xmin, x_max=Xmax, w_min=Wmin):
    """Eq. (39): t_2^+ <= t_1 + 6/(sqrt(mu) n_+ X_min) + (4/(sqrt(mu) n_+ X_min)) [...]."""
    unit = sp.sqrt(separation) * positives * x_min
    growth = (sp.log(2 / (scale**2 * sp.sqrt(separation) * x_min * w_min**2))
              + 4 * samples * x_max * alignment_time)
    return alignment_time + 6 / unit + 4 * growth / unit


def s001_rank_slack(scale=lam, width=p, w_max=None):
    """4 sqrt(h) eps W_max^2 in ||W||_F^2 <= 2 ||W||_2^2 + slack."""
    w_max = Wmax if w_max is None else w_max
    return 4 * sp.sqrt(width) * scale * w_max**2


# ===========================================================================================
# CF-12: direction and norm rates
# ===========================================================================================
def direction_rate(w, w_dot):
    """d/dt (w/||w||) = (I - w^ w^^T) w' / ||w||."""
    w, w_dot = sp.Matrix(w), sp.Matrix(w_dot)
    norm = sp.sqrt(w.dot(w))
    unit = w / norm
    return (sp.eye(w.rows) - unit * unit.T) * w_dot / norm


def norm_rate(w, w_dot):
    """d||w||/dt = <w^, w'>."""
    w, w_dot = sp.Matrix(w), sp.Matrix(w_dot)
    return w.dot(w_dot) / sp.sqrt(w.dot(w))


def chain_rule_rate(expr, w, w_dot):
    """d/dt expr(w(t)) = sum_k (d expr/d w_k) w_k' (the derivative along a velocity)."""
    return sum(sp.diff(expr, wk) * vk for wk, vk in zip(w, w_dot, strict=True))


def spherical_rates(D, unit, sign):
    """(d ln||w||/dt, d w-bar/dt) = (s <D, w-bar>, s (D - <D, w-bar> w-bar)) if w' = s||w|| D."""
    D, unit = sp.Matrix(D), sp.Matrix(unit)
    return sign * D.dot(unit), sign * (D - D.dot(unit) * unit)


