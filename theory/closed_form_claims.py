"""The claims CF-1 .. CF-13 (pack CF, `theory.packs`): each closed form of
`theory.closed_forms` stated in the shared vocabulary as an IDENTITY (a measured quantity
against its closed form, or an exact relation between free variables), with the
assumptions under which it holds. Declarative records, one per closed form: the module is
long because there are thirteen of them, not because it holds logic.
"""

from __future__ import annotations

import sympy as sp

from theory.claim import ACTIVATION_KINDS, Assumption, Claim, Kind, Provenance, Source
from theory.closed_forms import (
    chain_rule_rate,
    direction_rate,
    gd_balance_bound,
    gd_balance_increment,
    good_init_union_bound,
    group_alignment,
    group_loss,
    group_norm,
    group_pl,
    key_neuron_probability,
    logistic_phase,
    min_norm_value,
    norm_rate,
    orthogonal_fit_bound,
    s000_constant,
    s001_alignment_time,
    s001_alignment_time_bound,
    s001_horizon,
    s001_margins,
    s001_scale_second_term,
)
from theory.symbols import (
    PL,
    Balance,
    CapPlus,
    Dminus,
    Dplus,
    Emax,
    Emin,
    GammaMax,
    GroupCos,
    GroupInit,
    GroupLoss,
    GroupNormSq,
    GroupPL,
    GroupY,
    InitImbalance,
    L,
    MinAbsY,
    MinFitRatio,
    MinInitBalance,
    MinNormSq,
    MuInf,
    OffDiagGram,
    ParamMapGap,
    PGoodInit,
    PKeyPlus,
    R,
    T_early,
    UPlus,
    Xmax,
    Xmin,
    a_j,
    eta,
    kappa,
    lam,
    mu,
    n,
    n_minus,
    n_plus,
    t,
    t_1,
    t_conv,
    v_1,
    v_2,
    w_1,
    w_2,
    xi,
    zeta,
)


# ===========================================================================================
# Claims
# ===========================================================================================
def _eq(lhs, rhs):
    return sp.Eq(lhs, rhs, evaluate=False)


def _le(lhs, rhs):
    return sp.Le(lhs, rhs, evaluate=False)


def _source(paper, reference):
    return Source(paper, reference, Provenance.DERIVED)


_PROOF = "Proved in tests/theory/test_closed_forms.py: "
MF, STD, SQUARE = "mean_field", "standard", "square"

ORTHOGONAL = Assumption("orthogonal inputs", _eq(OffDiagGram, 0), "<x_i, x_k> = 0 for i != k")
ASYMMETRIC = Assumption("asymmetric initialisation", sp.Ge(MinInitBalance, 0, evaluate=False),
                        "|a_j(0)| >= ||w_j(0)|| for all j (S000 Assumption 1; kept by the flow)")
BALANCED = Assumption("balanced initialisation", _eq(InitImbalance, 0),
                      "|a_j(0)| = ||w_j(0)|| for all j")

# CF-1 --------------------------------------------------------------------------------------
CF1 = Claim(
    id="CF-1",
    title="the mean-field flow is sqrt(p) times the standard flow of theta/sqrt(p)",
    kind=Kind.IDENTITY,
    source=_source("S000", "author responses; THEORY D-MAP"),
    statement=_eq(ParamMapGap(t), 0),
    parametrization=MF,
    loss=SQUARE,
    measures="max |theta(t) - sqrt(p) theta~(t)|, theta~ the standard network's plain flow "
    "from theta(0)/sqrt(p), on the same clock",
    notes=_PROOF + "on a symbolic network (p = d = n = 2, all 16 activation patterns) the "
    "outputs and losses agree under theta~ = theta/sqrt(p), the pattern is unchanged, and "
    "sqrt(p) times the standard velocity at theta/sqrt(p) equals the mean-field velocity at "
    "theta; numerically on numerics.network's vector field and an integrated run. A flow "
    "-kappa grad L is the kappa = 1 flow at time kappa t (`unit_flow_time`).",
)

# CF-2 --------------------------------------------------------------------------------------
_step = eta * kappa
_g_a = w_1 * v_1 + w_2 * v_2
_c_change = ((a_j - _step * _g_a) ** 2
             - ((w_1 - _step * a_j * v_1) ** 2 + (w_2 - _step * a_j * v_2) ** 2)
             - (a_j**2 - w_1**2 - w_2**2))
CF2 = Claim(
    id="CF-2",
    title="one gradient-descent step changes a_j^2 - ||w_j||^2 by (eta kappa)^2 "
    "(g_a^2 - ||g_w||^2) <= (eta kappa)^2 (||w_j||^2 - a_j^2) ||v_j||^2",
    kind=Kind.IDENTITY,
    source=_source("S000", "Lemma 1 ('prevents a_j from approaching zero'); S002 Lemma 1"),
    statement=sp.And(
        _eq(_c_change, gd_balance_increment(_step, _g_a, a_j**2 * (v_1**2 + v_2**2))),
        _le(gd_balance_increment(_step, _g_a, a_j**2 * (v_1**2 + v_2**2)),
            gd_balance_bound(_step, a_j, w_1**2 + w_2**2, v_1**2 + v_2**2)),
    ),
    measures="free variables: neuron j with a_j, w_j = (w_1, w_2) and its back-propagated "
    "vector v_j = (v_1, v_2), so that g_w = a_j v_j and g_a = <w_j, v_j>; step eta, flow "
    "factor kappa (shown in the plane; the proof is for any dimension)",
    notes=_PROOF + "a_j dL/da_j = <w_j, dL/dw_j> on a symbolic network for every activation "
    "pattern (so for any value of relu'(0)), hence d(a_j^2 - ||w_j||^2)/dt = 0 under "
    "-kappa grad L; g_w = a_j v_j and g_a = <w_j, v_j> with v_j = -(s/n) sum_i r_i 1_ij x_i; "
    "the step identity in d = 3; the gap in the bound is Lagrange's identity, a sum of "
    "squares, so descent lowers c_j whenever |a_j| >= ||w_j||. Also S001's block invariant "
    "d/dt (W_+^T W_+ - v_+ v_+^T) = 0 on a linear block.",
)

# CF-3 --------------------------------------------------------------------------------------
CF3 = Claim(
    id="CF-3",
    title="orthogonal data: (2/n) min ||x_i||^2 E_i <= PL <= (4/n) max ||x_i||^2 E_i",
    kind=Kind.IDENTITY,
    source=_source("S000", "R's 'Lemma 12' bounds mu_low, mu_upp; Theorem 1 eq. (6)"),
    statement=sp.And(
        _le(2 * Xmin**2 * Emin(t) / n, PL(t)),
        _le(PL(t), 4 * Xmax**2 * Emax(t) / n),
        _le(orthogonal_fit_bound(), PL(t)),
    ),
    setting=(ORTHOGONAL, ASYMMETRIC),
    parametrization=MF,
    loss=SQUARE,
    measures="PL(t) against E_i = (1/p) sum_j 1_ij a_j^2 and min_i |h_i/y_i|",
    notes=_PROOF + "p ||grad_W L||^2 = (1/n^2) sum_i r_i^2 ||x_i||^2 E_i exactly (n = 3, "
    "p = 2, d = 4, all 64 patterns, inputs along a rotated basis), p ||grad_a L||^2 <= the "
    "same as an exact sum of terms that are >= 0 under |a_j| >= ||w_j||, and |h_i| <= "
    "||x_i|| E_i; numerically against numerics' PL. The sharp bracket is (2/n) min_i "
    "||x_i||^2 E_i to (4/n) max_i ||x_i||^2 E_i (`pl_sandwich_bounds`); R's mu_low = (2/n) "
    "min E_i and mu_upp = (16/n) max E_i are the case ||x_i|| in [1, 2]. The fit bound is "
    "2 C_x^+/C_x^- times S000-T1's C/n min_i |1 - r_i/y_i|.",
)

# CF-4 --------------------------------------------------------------------------------------
CF4 = Claim(
    id="CF-4",
    title="near-orthogonal data: PL >= (2/n)(1 - gamma_max) C_x^-^2 min E_i (Gershgorin)",
    kind=Kind.IDENTITY,
    source=_source("S000", "Assumption 2 in its row-sum reading (THEORY S000-A3 (a))"),
    statement=sp.And(
        _le(2 * (1 - GammaMax) * Xmin**2 * Emin(t) / n, PL(t)),
        _le((1 - GammaMax) * orthogonal_fit_bound(), PL(t)),
    ),
    setting=(Assumption("weak interaction", sp.Lt(GammaMax, 1, evaluate=False),
                        "gamma_i = sum_{k != i} |<x_i, x_k>|/||x_i||^2 < 1 for every i"),
             ASYMMETRIC),
    parametrization=MF,
    loss=SQUARE,
    measures="PL(t) against min_i E_i and min_i |h_i/y_i|",
    notes=_PROOF + "||sum_i c_i x_i||^2 - sum_i c_i^2 (||x_i||^2 - sum_{k != i} |<x_i, x_k>|) "
    "= sum_{i<k} |<x_i, x_k>| (c_i + sign(<x_i, x_k>) c_k)^2 for a rational Gram matrix and "
    "symbolic c; numerically against numerics' PL on near-orthogonal data. gamma_max <= 1/2 "
    "gives S000-T1's form; on isotropic data E gamma_i ~ (n - 1) sqrt(2/(pi d)) E rho/rho_i, "
    "so that needs d >~ (8/pi)(E rho/rho_min)^2 n^2 (`gershgorin_dimension`).",
)

# CF-5 --------------------------------------------------------------------------------------
_level = 2 * n * L(t_conv) / MinAbsY**2  # < 1 exactly when L(t_conv) < (C_y^-)^2/(2n)
CF5 = Claim(
    id="CF-5",
    title="a loss below (C_y^-)^2/(2n) certifies min_i |h_i/y_i| > 0 and exponential decay",
    kind=Kind.IDENTITY,
    source=_source("S000", "Theorem 1 (R's success criterion L < 1/(2n))"),
    statement=sp.And(
        _le(R(t) ** 2, 2 * n * L(t)),
        _le(MinAbsY**2 * sp.Max(0, 1 - MinFitRatio(t)) ** 2, 2 * n * L(t_conv)),
        _le(L(t), L(t_conv) * sp.exp(-s000_constant() * (1 - _level) * (t - t_conv) / (2 * n))),
    ),
    setting=(ORTHOGONAL, ASYMMETRIC),
    parametrization=MF,
    loss=SQUARE,
    window=(t_conv, sp.oo),
    event=sp.Lt(L(t), MinAbsY**2 / (2 * n), evaluate=False),
    event_time=t_conv,
    measures="for t after the first time L < (C_y^-)^2/(2n): max_i |r_i|, min_i |h_i/y_i| and "
    "L(t) against the certificate",
    notes=_PROOF + "r_i^2 <= 2nL; min_i |h_i/y_i| >= kappa_0 = 1 - sqrt(2n L(t_conv))/C_y^- "
    "(`fit_certificate`), which is > 0 exactly when L(t_conv) < (C_y^-)^2/(2n) and is 0 at "
    "R's L = 1/(2n) with C_y^- = 1 (the criterion needs the strict inequality); "
    "`certified_loss_bound` L(t_conv) exp(-(C kappa_0/n)(t - t_conv)) solves dL/dt = "
    "-(C kappa_0/n) L; numerically along a group-initialised run. The statement is written "
    "without square roots (so that it evaluates in every backend): the second relation is "
    "min_i |h_i/y_i| >= kappa_0 squared, the third uses kappa_0 >= (1 - 2n L(t_conv)/"
    "(C_y^-)^2)/2. On orthogonal data PL >= (C/n) min_i |h_i/y_i| follows from CF-3; on other "
    "data the certificate holds wherever S000-T1 does.",
)

# CF-6 --------------------------------------------------------------------------------------
CF6 = Claim(
    id="CF-6",
    title="good initialisation on orthogonal data: exact probability and union bound",
    kind=Kind.IDENTITY,
    source=_source("S000", "'Lemma 5' per R (width log(n/eps)/log(4/3)); S002 Assumption 3"),
    statement=sp.And(
        _le(1 - PGoodInit, good_init_union_bound()),
        _eq(PKeyPlus, key_neuron_probability()),
    ),
    setting=(ORTHOGONAL,),
    measures="P(every sample has a neuron with a_j y_i > 0 and <w_j, x_i> > 0) and "
    "P(S_{+,1} non-empty) over the initialisation: signs of a_j and of <w_j, x_i> are "
    "independent fair coins (isotropic w_j, or R's cube init on axis-aligned data)",
    notes=_PROOF + "the exact value P(good) = sum_k C(p,k) 2^-p (1 - 2^-k)^n_+ "
    "(1 - 2^-(p-k))^n_- (`good_init_probability`; not in the statement because a sum up to "
    "p does not evaluate at non-integer p) and P(S_{+,1} non-empty) against exhaustive "
    "enumeration of signs and activation patterns (exact rationals); the union bound on a "
    "grid; P(no good neuron for one sample) = (3/4)^p for symbolic p.",
)

# CF-7 --------------------------------------------------------------------------------------
_cos = group_alignment(t, GroupCos(0), GroupY)
_norm = group_norm(t, GroupNormSq(0), GroupCos(0), GroupY)
CF7 = Claim(
    id="CF-7",
    title="group initialisation: exact cosine, squared norm, loss and PL of each group neuron",
    kind=Kind.IDENTITY,
    source=_source("S000", "Theorem 2 ('Theorem 10' per R) and Proposition 2"),
    statement=sp.And(
        _eq(GroupCos(t), _cos),
        _eq(GroupNormSq(t), _norm),
        _eq(GroupLoss(t), group_loss(GroupNormSq(t), GroupCos(t), GroupY)),
        _eq(GroupPL(t), group_pl(GroupNormSq(t), GroupCos(t), GroupY)),
    ),
    setting=(ORTHOGONAL, BALANCED,
             Assumption("group initialisation", _eq(GroupInit, 1),
                        "each neuron active exactly on its own group, with the group's sign")),
    parametrization=MF,
    loss=SQUARE,
    measures="per group: c = cos(w_j, s y_G), N = ||w_j||^2, the group's loss and its "
    "-d ln L_G/dt, for the neuron of the group (unit-norm inputs; the 1/p network with flow "
    "factor kappa = p; the standard network is the case p = kappa = 1)",
    notes=_PROOF + "each formula by differentiation and substitution into its ODE "
    "(dc/dt = (kappa Y/(np))(1 - c^2), dN/dt = (2 kappa/(np))(N Y c - N^2/p)); the form "
    "here equals THEORY's tanh(tau + phi) and cosh^2 formula and is also valid at c_0 = 1, "
    "where it is the logistic curve (capacity p Y, PL 4 kappa N/(n p^2), transition times "
    "t(q) = (np/(2 kappa Y)) ln[q (pY - N_0)/(N_0 (1 - q))]); the limit a_inf^2 and the "
    "matrix R_G of the linearised residual; numerically against integrated mean-field and "
    "standard flows.",
    flags=("R's phase_transition.py uses c(t) = tanh(2 tau + atanh c_0) and a matching N(t): "
           "the exact solution for twice the true cosine rate, so it agrees with the flow "
           "only when c_0 = 1 (the case R plots; THEORY CF-7 bug note, section 8.5).",),
)

# CF-8 --------------------------------------------------------------------------------------
CF8 = Claim(
    id="CF-8",
    title="S002 phase 2: u_+ grows logistically at rate 2||D_+|| to capacity n||D_+||",
    kind=Kind.IDENTITY,
    source=_source("S002", "Section 3, logistic ODE of phase 2 (phase 3 alike)"),
    statement=_eq(UPlus(t), logistic_phase(t, UPlus(0), Dplus, CapPlus)),
    setting=(ORTHOGONAL, BALANCED),
    parametrization=STD,
    loss=SQUARE,
    measures="u_+(t) = sum_{j in S_{+,1}} ||w_j||^2 where it is exact: the S_{+,1} neurons "
    "aligned with D_+ and active exactly on the positive samples, every other neuron 0; "
    "time counted from that configuration",
    notes=_PROOF + "by differentiation (du/dt = 2 D (1 - u/U) u), half time t_half = "
    "ln((U - u_0)/u_0)/(2D) = -ln(lam)/||D_+|| + ln(U/K_0)/(2||D_+||) + o(1) for "
    "u_0 = K_0 lam^2, outputs h(x_k) = u y_k/U, loss levels ||y||^2/(2n) and "
    "||y_-||^2/(2n) at the saddle; numerically on an orthonormal problem and on the "
    "two-point example (capacity |y|/||x|| = 1/sqrt(5), rate 2||D_+|| = sqrt(5)). Phase 3 is "
    "the same law with D_-, CapMinus.",
)

# CF-9 --------------------------------------------------------------------------------------
CF9 = Claim(
    id="CF-9",
    title="minimum-norm interpolator of orthogonal data: width 2, ||theta*||^2 = 2(U_+ + U_-)",
    kind=Kind.IDENTITY,
    source=_source("S002", "Proposition 1 (App. C) and Section 5"),
    statement=_eq(MinNormSq, min_norm_value()),
    setting=(ORTHOGONAL,),
    parametrization=STD,
    loss=SQUARE,
    measures="min ||theta||^2 over interpolating networks against 2(U_+ + U_-), U_s = "
    "sqrt(sum_{sign y_k = s} (y_k/||x_k||)^2) (= 2n(||D_+|| + ||D_-||) for unit norms)",
    notes=_PROOF + "`min_norm_interpolator` interpolates symbolic labels on orthonormal data "
    "(rotated basis) and the two-point example (positive squared norm 1/sqrt(5), negative "
    "2/sqrt(5), 1/2 ||theta*||^2 = 3/sqrt(5), h(t) = (2t+1)_+/5 - (4/5)(1 - t/2)_+); collinear "
    "splits keep the value; optimality through the exact chain a_j^2 + ||w_j||^2 - 2|a_j| "
    "||w_j|| = (|a_j| - ||w_j||)^2 and ||c_j||^2 <= a_j^2 ||w_j||^2 (Bessel), and on random "
    "networks.",
)

# CF-10 -------------------------------------------------------------------------------------
CF10 = Claim(
    id="CF-10",
    title="linearisation at theta*: residual rates ||D_s|| and 2||D_s||, so the asymptotic "
    "rate is in [2||D_-||, 4||D_+||]",
    kind=Kind.IDENTITY,
    source=_source("S002", "Lemma 5 (local PL near theta*)"),
    statement=sp.And(_le(2 * Dminus, MuInf), _le(MuInf, 4 * Dplus)),
    setting=(ORTHOGONAL,
             Assumption("unit norms", sp.And(_eq(Xmin, 1), _eq(Xmax, 1)),
                        "||x_i|| = 1 for every i"),
             Assumption("r > 1", sp.Gt(Dplus, Dminus, evaluate=False), "||D_+|| > ||D_-||")),
    parametrization=STD,
    loss=SQUARE,
    measures="the asymptotic local PL rate of a run that ends near theta* (small lam)",
    notes=_PROOF + "the kernel J J^T at theta* for symbolic labels (n_+ = 3, n_- = 2) is "
    "blockdiag(n||D_+||(I + y^_+ y^_+^T), n||D_-||(I + y^_- y^_-^T)) with eigenvalues "
    "n||D_s|| (n_s - 1 times) and 2n||D_s||; PL = (2/n) e^T Theta e/||e||^2 at theta* "
    "against numerics. The loss rate is twice the slowest excited residual rate: 2||D_-|| "
    "when n_- >= 2, but for n_- = 1 it is min(4||D_-||, 2||D_+||) when n_+ >= 2 (THEORY's "
    "'4||D_-|| if n_- = 1' needs n_+ = 1 or ||D_+|| >= 2||D_-||).",
)

# CF-11 -------------------------------------------------------------------------------------
_margin = sp.Min(zeta, xi)
CF11 = Claim(
    id="CF-11",
    title="S001's explicit constants: t_1 <= 16 log n/(min(zeta, xi) sqrt(mu) X_min), and the "
    "second term of (28) makes T >= t_1",
    kind=Kind.IDENTITY,
    source=_source("S001", "proof of Theorem 1 (eqs. 28, 39), Lemmas 3, 8, 9"),
    statement=sp.And(
        _le(t_1, s001_alignment_time_bound()),
        _le(t_1, T_early),
    ),
    setting=(Assumption("both classes", sp.And(sp.Ge(n_plus, 1, evaluate=False),
                                               sp.Ge(n_minus, 1, evaluate=False)),
                        "n_+ >= 1 and n_- >= 1 (n = n_+ + n_-)"),
             Assumption("separation", sp.Gt(mu, 0, evaluate=False), "mu > 0 (S001 A1)"),
             Assumption("(28), second term", _le(lam, s001_scale_second_term()),
                        "eps <= exp(-64 n X_max log n/(min(zeta, xi) sqrt(mu) X_min))/sqrt(h)")),
    definitions={
        zeta: s001_margins()[0],
        xi: s001_margins()[1],
        t_1: s001_alignment_time(),
        T_early: s001_horizon(),
    },
    parametrization="classification",
    measures="constants of the instance: n_+, n_-, mu, zeta_2, X_min, X_max, the scale eps "
    "(lam) and the width h (p)",
    notes=_PROOF + "the harmonic-number bound on a grid of (n_+, n_-); T at the second term "
    "of (28) equals 16 log n/(min(zeta, xi) sqrt(mu) X_min) exactly; alpha = (1/4)(1/(4 "
    "X_max))(1/2)(mu X_min)^2 = (mu X_min)^2/(32 X_max) and the O(1/t) bound solves "
    "dL/dt = -alpha L^2; Lemma 3's norm and output bounds at T; the rank slack "
    "(4 eps W_max^2/sqrt(h)) h = 4 sqrt(h) eps W_max^2; the definitions equal S001's. zeta "
    "is min(mu^2, zeta_2): the seed's max is a misprint (THEORY section 8.6).",
)

# CF-12 -------------------------------------------------------------------------------------
_w = (w_1, w_2)
_v = (v_1, v_2)
_norm_w = sp.sqrt(w_1**2 + w_2**2)
_dir = direction_rate(_w, _v)
CF12 = Claim(
    id="CF-12",
    title="exact direction and norm rates: d(w/||w||)/dt = (I - w^ w^^T) w'/||w||, "
    "d||w||/dt = <w^, w'>",
    kind=Kind.IDENTITY,
    source=_source("S001", "Section 3 direction/norm metrics (A.5); S002 eq. (9)"),
    statement=sp.And(
        _eq(chain_rule_rate(w_1 / _norm_w, _w, _v), _dir[0]),
        _eq(v_1**2 + v_2**2, norm_rate(_w, _v) ** 2 + (w_1**2 + w_2**2) * _dir.dot(_dir)),
    ),
    measures="free variables: a neuron w = (w_1, w_2) and its velocity w' = (v_1, v_2) "
    "(shown in the plane; the proof is for any dimension): the chain-rule rate of w_1/||w|| "
    "and the split of ||w'||^2 into radial and angular parts",
    notes=_PROOF + "by differentiating a general trajectory w(t) in R^3 (every component), "
    "and S002's spherical coordinates: with w' = s ||w|| D, d ln||w||/dt = s <D, w-bar> and "
    "d w-bar/dt = s (D - <D, w-bar> w-bar); S002's layer-wise ODE da/dt = <D_j, w_j>, "
    "dw/dt = a_j D_j from the symbolic network.",
)

# CF-13 -------------------------------------------------------------------------------------
CF13 = Claim(
    id="CF-13",
    title="for a positively k-homogeneous activation, both layers trained, k a_j^2 - ||w_j||^2 "
    "is conserved by the flow",
    kind=Kind.IDENTITY,
    source=_source("S000", "Lemma 1 and the rebuttal's 'up to a constant' (monomials); "
                   "S002 Lemma 1"),
    statement=_eq(Balance(t), 0),
    measures="c_j(t) = k a_j^2 - ||w_j||^2 against c_j(0) along a run (Trajectory.balancedness, "
    "k = the activation's degree: 1 for ReLU and leaky ReLU, beta for max(z, 0)^beta)",
    notes=_PROOF + "on a symbolic network (p = n = d = 2) with a generic activation sigma, "
    "d c_j/dt = 2 kappa s a_j sum_i g_i (sigma'(z_ij) z_ij - k sigma(z_ij)), which Euler's "
    "relation sigma'(z) z = k sigma(z) makes 0; Euler's relation for ReLU, leaky ReLU (any "
    "slope) and max(z, 0)^beta on each side of 0, with symbolic slope and beta; numerically "
    "on flows of every activation (tests/numerics/test_models.py). A frozen layer breaks it "
    "(a_j or w_j stops moving while the other does). With hidden biases b_j joins w_j.",
    activations=ACTIVATION_KINDS,
)

CLAIMS = (CF1, CF2, CF3, CF4, CF5, CF6, CF7, CF8, CF9, CF10, CF11, CF12, CF13)
