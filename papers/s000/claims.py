"""S000: Dana, Bach, Pillaud-Vivien (NeurIPS 2025), weakly interacting data.

The seed holds the abstract, the reviews and the authors' responses, not the
paper: most statements are rebuilt (THEORY.md section 2) and each claim's
provenance says how. Conventions from the public code R are tagged [repo].

Setting shared by these claims: mean-field network h = (1/p) sum_j a_j relu(<w_j, x>),
square loss L = 1/(2n) sum_i r_i^2 with r_i = y_i - h(x_i), flow
d(theta)/dt = -p grad L (kappa = p), relu'(0) = 0. Data constants: C_x^- <= ||x_i||
<= C_x^+, C_y^- <= |y_i|, and the rebuttal's C = (C_x^-/C_x^+) C_x^- C_y^-.

The paper's weak-interaction assumption is not in the seed. Its checkable reading
here is CF-4's row-sum (Gershgorin) form gamma_i <= gamma_0 = 1/2, the level at
which CF-4 gives Theorem 1's bound; GramDevOp records the operator-norm reading.

Length: declarative claim records (one `Claim` per statement of the paper, with its
source and assumptions); nothing here computes.
"""

from __future__ import annotations

import sympy as sp

from theory.claim import Assumption, Claim, Kind, Provenance, Source
from theory.symbols import (
    PL,
    Balance,
    Converged,
    CrossGroupJac,
    DataScale,
    DNeeded,
    Emax,
    Emin,
    GammaMax,
    GDPLGap,
    GoodInit,
    GradNormSq,
    GroupInit,
    InitImbalance,
    K,
    L,
    MinAbsY,
    MinFitRatio,
    MinGroupNormY,
    MinGroupSize,
    MinInitBalance,
    MuInf,
    NThreshold,
    OffDiagGram,
    ParamMapGap,
    PGoodInit,
    PSuccess,
    SignFlips,
    TransitionWidth,
    WeightSpread,
    Xmax,
    Xmin,
    beta_n,
    beta_s,
    c_hi,
    c_lo,
    d,
    delta,
    eta,
    gamma_0,
    kappa,
    lam,
    n,
    p,
    t,
    t_conv,
)

SOURCE = "S000"
MF, SQUARE = "mean_field", "square"

# the rebuttal's data constant of Theorem 1
C_DATA = (Xmin / Xmax) * Xmin * MinAbsY

ASYMMETRIC = Assumption(
    "A1 asymmetric initialisation", sp.Ge(MinInitBalance, 0),
    "|a_j(0)| >= ||w_j(0)|| for every neuron j",
)
DATA_BOUNDS = Assumption(
    "A2 bounded data", sp.And(sp.Gt(Xmin, 0), sp.Gt(MinAbsY, 0)),
    "0 < C_x^- <= ||x_i|| <= C_x^+ and 0 < C_y^- <= |y_i| (C_x^+- and C_y^- are computed "
    "from the data, so only their positivity can fail)",
)
WEAK_INTERACTION = Assumption(
    "A3 weak interaction (Gershgorin reading)", sp.Le(GammaMax, gamma_0),
    "sum_{k != i} |<x_i, x_k>| <= gamma_0 ||x_i||^2 for every i (CF-4; the paper's exact "
    "form is not in the seed)",
)
GOOD_INIT = Assumption(
    "good initialisation", sp.Eq(GoodInit, 1),
    "every sample i has a neuron j with a_j(0) y_i > 0 and <w_j(0), x_i> > 0 (Q-good)",
)
ORTHOGONAL = Assumption("orthogonal inputs", sp.Eq(OffDiagGram, 0), "<x_i, x_k> = 0 for i != k")
UNIT_NORMS = Assumption(
    "unit-norm inputs", sp.And(sp.Eq(Xmin, 1), sp.Eq(Xmax, 1)), "||x_i|| = 1 for all i",
)
GROUPS = Assumption(
    "group initialisation", sp.And(sp.Eq(GroupInit, 1), sp.Ge(MinGroupSize, 2)),
    "I-000-group: neuron j is active exactly on its group, with the group's label sign; "
    "every group has at least two samples",
)
BALANCED = Assumption(
    "balanced initialisation", sp.Eq(InitImbalance, 0), "|a_j(0)| = ||w_j(0)|| for all j",
)

GAMMA_0 = {"gamma_0": sp.Rational(1, 2)}
GAMMA_0_NOTE = ("gamma_0 = 1/2: CF-4 shows that gamma_i <= 1/2 turns the near-orthogonal "
                "PL bound into Theorem 1's (C/n) min_i |1 - r_i/y_i|.")
FITTED_NOTE = "Fitted prefactors (None): the check compares the exponent of the law only."
S000_GAPS = ("Theorem 1's A3 form, the orthogonal upper bound's constants and Proposition 2's "
             "eq. (10) are reconstructed from the reviews and rebuttal (THEORY.md section 8.1).")

# -- definitions ---------------------------------------------------------------------------
MEAN_FIELD = Claim(
    id="S000-D1",
    title="mean-field network and loss, flow with factor p",
    kind=Kind.IDENTITY,
    source=Source(SOURCE, "author responses (mean-field scaling); loss from R's train",
                  Provenance.VERBATIM),
    statement=sp.Eq(kappa, p),
    parametrization=MF,
    loss=SQUARE,
    checkable=False,
    not_checkable_reason="a definition (the convention that fixes the time scale of the "
    "mean-field flow): an instance's flow factor is defined to be p, so comparing the two "
    "decides nothing. That the simulated flows move on this clock is a test of the "
    "simulator (tests/theory/test_closed_forms.py, CF-1), and every S000 check in physical time "
    "relies on it.",
    notes="The factor p undoes the 1/p time dilation of h, so each neuron moves at O(1) "
    "speed as p grows. R runs the flow as gradient descent on p*L with learning rate eta: "
    "physical time is eta * steps.",
)

PARAMETRISATION_MAP = Claim(
    id="S000-P1",
    title="the mean-field flow is the standard flow of theta/sqrt(p)",
    kind=Kind.IDENTITY,
    source=Source(SOURCE, "author responses; D-MAP", Provenance.DERIVED),
    statement=sp.Eq(ParamMapGap(t), 0),
    parametrization=MF,
    loss=SQUARE,
    measures="max |theta(t) - sqrt(p) theta~(t)|, theta~ the standard (un-normalised) "
    "network's plain gradient flow started at theta(0)/sqrt(p), same clock",
    flags=("The rebuttal prints 'theta_t = theta~_t'; the relation is theta_t = "
           "sqrt(p) theta~_t (THEORY.md section 8.2).",),
    notes="Proved symbolically as CF-1; numerically 6e-14 after 20,000 Euler steps.",
)

LOCAL_PL = Claim(
    id="S000-D2",
    title="residuals and the local PL curvature mu(t) = p ||grad L||^2 / L",
    kind=Kind.IDENTITY,
    source=Source(SOURCE, "rebuttal (definition of r_i)", Provenance.VERBATIM),
    statement=sp.Eq(PL(t), kappa * GradNormSq(t) / L(t)),
    parametrization=MF,
    loss=SQUARE,
    measures="PL(t) = -d(ln L)/dt along the run against kappa ||grad L||^2 / L from the exact "
    "gradient",
    notes="r_i = y_i - h(x_i); L(t) = L(0) exp(-int_0^t mu). A run's asymptotic rate is "
    "liminf mu(t) (MuInf). Discrete estimators (Q-mu-disc) carry an O(eta mu) bias.",
)

# -- assumptions ---------------------------------------------------------------------------
ASSUMPTION_1 = Claim(
    id="S000-A1",
    title="asymmetric initialisation |a_j(0)| >= ||w_j(0)||",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Assumption 1 (rebuttal, reviews)", Provenance.VERBATIM),
    statement=ASYMMETRIC.statement,
    window=(sp.Integer(0), sp.Integer(0)),
    measures="min_j (a_j(0)^2 - ||w_j(0)||^2)",
    notes="The authors need it for the proof (App. C.1 builds a local minimum when every "
    "|a_j| < ||w_j||) and believe it unnecessary w.h.p. Gradient descent erodes it (CF-2).",
)

ASSUMPTION_2 = Claim(
    id="S000-A2",
    title="bounded input norms and labels bounded away from 0",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "data assumption behind C (rebuttal)", Provenance.INFERRED),
    statement=DATA_BOUNDS.statement,
    window=(sp.Integer(0), sp.Integer(0)),
    measures="C_x^- = min ||x_i||, C_x^+ = max ||x_i||, C_y^- = min |y_i|",
    notes="Inferred from C = (C_x^-/C_x^+) C_x^- C_y^-. R's data (G-000-iso) have C_x^- >= 1, "
    "C_x^+ <= 2, C_y^- >= 1, so C >= 1/2.",
)

ASSUMPTION_3 = Claim(
    id="S000-A3",
    title="weakly interacting inputs (correlations of order 1/sqrt(n))",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "'Assumption 2' / R's 'Lemma 4' (reviews)", Provenance.INFERRED),
    statement=WEAK_INTERACTION.statement,
    window=(sp.Integer(0), sp.Integer(0)),
    parameters=GAMMA_0,
    parameter_notes=GAMMA_0_NOTE,
    measures="max_i gamma_i with gamma_i = sum_{k != i} |<x_i, x_k>| / ||x_i||^2; also "
    "GramDevOp = ||G^ - I||_op and OffDiagGram for the other readings",
    flags=(S000_GAPS,),
    notes="Seed: correlations O(1/sqrt(n)), holding w.h.p. when d >~ n^2; the proof needs "
    "d > n (eq. 23) and n ~ sqrt(d) (eqs. 24-25). Reading (b), ||G^ - I||_op = O(1/sqrt(n)), "
    "also needs d >~ n^2 for random unit vectors.",
)

# -- lemmas, theorem, corollary -------------------------------------------------------------
INVARIANCE = Claim(
    id="S000-L1",
    title="a_j^2 - ||w_j||^2 is conserved, so A1 and the signs of a_j persist",
    kind=Kind.CONSERVED,
    source=Source(SOURCE, "Lemma 1 ('prevents a_j from approaching zero', rebuttal)",
                  Provenance.DERIVED),
    statement=sp.And(sp.Eq(Balance(t), 0), sp.Eq(SignFlips(t), 0)),
    setting=(ASYMMETRIC,),
    measures="c_j(t) = a_j^2 - ||w_j||^2 against c_j(0); sign a_j(t) against sign a_j(0)",
    notes="Any flow -kappa grad L and any relu'(0): a dL/da = <w, dL/dw> since "
    "relu'(z) z = relu(z). Hence |a_j(t)| >= ||w_j(t)|| and |a_j(t)| >= sqrt(c_j) > 0. "
    "Gradient descent is not covered: each step lowers c_j by eta_eff^2 (||g_w||^2 - g_a^2) "
    ">= 0 (CF-2).",
)

GOOD_WIDTH = Claim(
    id="S000-L2",
    title="width log(n/eps)/log(4/3) gives a good initialisation w.p. 1 - eps",
    kind=Kind.PROBABILITY,
    source=Source(SOURCE, "R's 'Lemma 5'; Reviewer 1 ('4 log(n/eps) neurons')",
                  Provenance.DERIVED),
    statement=sp.Le(1 - PGoodInit, n * sp.Rational(3, 4) ** p),
    measures="Monte Carlo frequency of Q-good at t = 0 over the initialisation, against the "
    "union bound n (3/4)^p (binomial confidence interval)",
    flags=("Reviewer 1 quotes width 4 log(n/eps); R uses floor(log(n/eps)/log(4/3)) + 1. "
           "Both are sufficient; R's is the union-bound threshold (THEORY.md section 8.3).",),
    notes="Setting: a_j signs Rademacher independent of W, w_j with a symmetric law and "
    "P(<w_j, x_i> = 0) = 0, so each neuron is good for sample i w.p. 1/4 independently. "
    "p >= log(n/eps)/log(4/3) (~3.48 log(n/eps) < 4 log(n/eps)) then gives P(good) >= 1 - "
    "eps. On orthogonal data the probability is exact (CF-6).",
)

TRAJECTORY_PL = Claim(
    id="S000-T1",
    title="trajectory-wise PL bound mu(t) >= (C/n) min_i |1 - r_i/y_i|, hence convergence",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Theorem 1, eq. (6) (rebuttal)", Provenance.VERBATIM),
    statement=sp.Ge(PL(t), C_DATA / n * MinFitRatio(t)),
    setting=(ASYMMETRIC, DATA_BOUNDS, WEAK_INTERACTION, GOOD_INIT),
    parametrization=MF,
    loss=SQUARE,
    parameters=GAMMA_0,
    parameter_notes=GAMMA_0_NOTE,
    measures="PL(t) against (C/n) min_i |h(x_i)/y_i| at every saved time",
    flags=(S000_GAPS,
           "Width: 4 log(n/eps) (reviewer) or R's formula; on an instance Q-good is what "
           "matters (THEORY.md section 8.3)."),
    notes="With probability 1 - eps over the initialisation (the width part is S000-L2), "
    "for all t. As r_i -> 0 the asymptotic rate is >= C/n. At small initialisation the "
    "bound is near 0 (plateaus); compare where L/L(0) > 1e-20 (N-10). Orthogonal data "
    "give the stronger (2/n) C_x^- C_y^- min |h_i/y_i| (CF-3).",
)

HIGH_DIMENSION = Claim(
    id="S000-C1",
    title="random isotropic data interact weakly once d >~ n^2",
    kind=Kind.SCALING,
    source=Source(SOURCE, "Corollary 1", Provenance.VERBATIM),
    statement=sp.Eq(DNeeded, K * n**2),
    parameters={"K": None, **GAMMA_0},
    parameter_notes=f"{FITTED_NOTE} For the Gershgorin surrogate on G-000-iso the "
    "prediction is K ~ (8/pi)(E rho / rho_min)^2 ~ 5.7 (CF-4). " + GAMMA_0_NOTE,
    measures="smallest d at which GammaMax <= gamma_0 holds w.p. >= 1/2, over a range of n; "
    "log-log slope against 2",
    notes="Then Theorem 1 applies with p = O(log n) neurons, i.e. n <~ sqrt(d).",
)

EMPIRICAL_THRESHOLD = Claim(
    id="S000-F1",
    title="empirically convergence holds up to n ~ C(p) d, far beyond n ~ sqrt(d)",
    kind=Kind.SCALING,
    source=Source(SOURCE, "Reviewer 4 quoting the paper; R experiments 1.1-1.2",
                  Provenance.VERBATIM),
    statement=sp.Eq(NThreshold, K * d),
    parameters={"K": None},
    parameter_notes=f"{FITTED_NOTE} R's data give N(d, 30) ~ 15.3 d - 260 (E-000-2).",
    measures="the 50% crossing N(d, p) of the convergence probability against d at fixed p",
    notes="The threshold also grows sublinearly (about logarithmically) in p (E-000-3). The "
    "authors expect a tighter residual control to give d ~ n theoretically.",
)

PLATEAUS = Claim(
    id="S000-F2",
    title="small initialisation gives loss plateaus of length ~ log(1/lam)",
    kind=Kind.SCALING,
    source=Source(SOURCE, "rebuttal (small initialisation)", Provenance.VERBATIM),
    statement=sp.Eq(t_conv, K * sp.log(1 / lam)),
    event=sp.Le(L(t), delta * L(0)),
    event_time=t_conv,
    setting=(GOOD_INIT,),
    parametrization=MF,
    loss=SQUARE,
    parameters={"K": None, "delta": sp.Rational(1, 2)},
    parameter_notes=f"{FITTED_NOTE} delta = 1/2: the plateau ends when the loss has lost "
    "half its initial value.",
    measures="first time L <= L(0)/2 against ln(1/lam) over a range of scales lam",
    notes="min_i |1 - r_i/y_i| ~ lam at the start (lam^2 when both layers have scale lam: "
    "the plateau is still Theta(log 1/lam)); the PL bound never reaches 0, so convergence "
    "still follows. Group and orthogonal cases: t* = (n/(2Y)) ln(pY/N_0) (CF-7, CF-8).",
)

ORTHOGONAL_SANDWICH = Claim(
    id="S000-L3",
    title="orthogonal data: (2/n) C_x^-^2 min E_i <= mu(t) <= (4/n) C_x^+^2 max E_i",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "R's 'Lemma 12' (mu_low, mu_upp), general form CF-3",
                  Provenance.REPO),
    statement=sp.And(sp.Ge(PL(t), 2 * Xmin**2 * Emin(t) / n),
                     sp.Le(PL(t), 4 * Xmax**2 * Emax(t) / n)),
    setting=(ORTHOGONAL, ASYMMETRIC),
    parametrization=MF,
    loss=SQUARE,
    measures="PL(t) against E_i(t) = (1/p) sum_j 1{<w_j, x_i> > 0} a_j^2",
    notes="CF-3 proves (2/n) min_i ||x_i||^2 E_i <= mu <= (4/n) max_i ||x_i||^2 E_i, which "
    "implies this form; with ||x_i|| in [1, 2] it is R's mu_low = (2/n) min E_i and "
    "mu_upp = (16/n) max E_i. The upper side uses |a_j| >= ||w_j||.",
)

ORTHOGONAL_RATE = Claim(
    id="S000-P2",
    title="orthogonal data: the asymptotic rate lies between c/n and c'/sqrt(n)",
    kind=Kind.SCALING,
    source=Source(SOURCE, "proposition on orthogonal data (reviews, rebuttal)",
                  Provenance.VERBATIM),
    statement=sp.And(sp.Ge(MuInf, c_lo / n), sp.Le(MuInf, c_hi / sp.sqrt(n))),
    setting=(ORTHOGONAL, GOOD_INIT),
    parametrization=MF,
    loss=SQUARE,
    parameters={"c_lo": None, "c_hi": None},
    parameter_notes=f"{FITTED_NOTE} The exponent must lie in [-1, -1/2].",
    measures="MuInf over n on G-000-orth; log-log slope with a confidence interval",
    flags=(S000_GAPS,),
    notes="The lower side is Theorem 1; the upper side's heuristic: one neuron, orthonormal "
    "x_i, y_i = y forces ||w||^2 = sqrt(n) y, a PL of order 1/sqrt(n). The 1/n order is "
    "attained (S000-P3 with alpha = 1). R's slopes -0.81 and -0.73 lie inside (E-000-4).",
)

GROUP_RATE = Claim(
    id="S000-P3",
    title="group initialisation: mu_inf = (2/n) min_G ||y_G||, any order n^-alpha, "
    "alpha in [1/2, 1]",
    kind=Kind.IDENTITY,
    source=Source(SOURCE, "Proposition 2, tight bound (10) (rebuttal); closed form CF-7",
                  Provenance.DERIVED),
    statement=sp.Eq(MuInf, 2 * MinGroupNormY / n),
    setting=(ORTHOGONAL, UNIT_NORMS, GROUPS, BALANCED),
    parametrization=MF,
    loss=SQUARE,
    measures="the asymptotic rate of a group-initialised run against (2/n) min_G ||y_G||",
    flags=(S000_GAPS,),
    notes="mu_inf = min_G 2 lambda_min(R_G), R_G = (1/n)(||y_G|| I + y_G y_G^T/||y_G||), "
    "eigenvalues ||y_G||/n (|G| - 1 times) and 2||y_G||/n; a singleton group gives "
    "(4/n)|y_i|. Since ||y_G|| ~ sqrt(|G|), min_G |G| ~ n^(2 - 2 alpha) gives n^-alpha (the "
    "seed's claim that every alpha in [1/2, 1] is realised). Non-unit norms: CF-7's R_G.",
)

DECOUPLING = Claim(
    id="S000-F3",
    title="group initialisation decouples into independent one-neuron problems",
    kind=Kind.QUALITATIVE,
    source=Source(SOURCE, "rebuttal (eqs. 55, 59 not in the seed)", Provenance.VERBATIM),
    statement=sp.Eq(CrossGroupJac(t), 0),
    setting=(ORTHOGONAL, GROUPS),
    parametrization=MF,
    loss=SQUARE,
    measures="cross-group entries d h(x_i)/d theta_j, i outside neuron j's group",
    checkable=False,
    not_checkable_reason="qualitative (THEORY class QL): the rate constants K of eqs. "
    "(55)/(59) are not in the seed; the exact decoupled dynamics are checked as CF-7",
    notes="Each group learns at rate K/n; the 1/n comes from the loss normalisation. The "
    "authors conjecture that a small Gaussian initialisation keeps a PL of order n^-alpha.",
)

PHASE_TRANSITIONS = Claim(
    id="S000-T2",
    title="group initialisation: groups are learned one at a time, each in a window of "
    "relative width Theta(1/log n)",
    kind=Kind.SCALING,
    source=Source(SOURCE, "Theorem 2 (appendix 'Theorem 10' per R); abstract",
                  Provenance.VERBATIM),
    statement=sp.Eq(TransitionWidth, K / sp.log(n)),
    setting=(ORTHOGONAL, GROUPS),
    parametrization=MF,
    loss=SQUARE,
    parameters={"K": None},
    parameter_notes=f"{FITTED_NOTE} CF-7 gives 2 ln 9 / ln((pY - N_0)/N_0), i.e. "
    "K -> 4 ln 9 when ||y_G|| grows like sqrt(n).",
    measures="relative width (t(0.9) - t(0.1))/t(0.5) of each group's transition, for a "
    "sequence of n; width * log n should level off",
    flags=("R's phase_transition.py uses tanh(2 tau + atanh c_0) for the cosine, wrong by a "
           "factor 2 unless c_0 = 1 (the plotted case) (THEORY.md section 8.5).",),
    notes="After the time rescaling s = t/(sqrt(n) ln n / 4) the loss tends to the "
    "piecewise-constant L_inf(s) = sum_j (beta_j^2/2) 1{s < 1/beta_j}; during a transition "
    "the group's rate rises from order 1/n to order 1/sqrt(n) (mu_G = 4N/(np), CF-7).",
)

SQRT_N_CONJECTURE = Claim(
    id="S000-C2",
    title="conjecture: random orthogonal data converge at rate K/sqrt(n)",
    kind=Kind.SCALING,
    source=Source(SOURCE, "R's 'Conjecture 8'; Reviewer 1; the authors' Claim 5.2",
                  Provenance.VERBATIM),
    statement=sp.Eq(MuInf, K / sp.sqrt(n)),
    setting=(ORTHOGONAL, ASYMMETRIC, GOOD_INIT),
    parametrization=MF,
    loss=SQUARE,
    parameters={"K": None},
    parameter_notes=FITTED_NOTE,
    measures="MuInf over n on G-000-orth with I-000-repo-orth (conditioned on Q-good); "
    "log-log slope against -1/2",
    flags=("R's own CSV gives slopes -0.81, -0.73, -0.73 and -0.50 (only mu_upp at -1/2), "
           "not 'all about -1/2' as its notebook says (THEORY.md section 8.4).",),
    notes="A conjecture: a slope outside -1/2 is a finding, not a failed test; the proved "
    "bracket is S000-P2.",
)

IMPLICIT_BIAS = Claim(
    id="S000-C3",
    title="heuristic: l2-like weights give rate ~1/sqrt(n), l1-like weights ~1/n",
    kind=Kind.QUALITATIVE,
    source=Source(SOURCE, "rebuttal (implicit bias)", Provenance.VERBATIM),
    statement=sp.And(sp.Implies(sp.Le(WeightSpread, K), sp.Eq(MuInf, c_hi / sp.sqrt(n))),
                     sp.Implies(sp.Gt(WeightSpread, K), sp.Eq(MuInf, c_lo / n))),
    parametrization=MF,
    loss=SQUARE,
    parameters={"K": None, "c_lo": None, "c_hi": None},
    parameter_notes="K separates 'roughly equal' from 'very unequal' weights; the seed gives "
    "no value.",
    measures="spread of a_j^2 at convergence against MuInf",
    checkable=False,
    not_checkable_reason="a heuristic (THEORY class QL): no threshold between equal and "
    "unequal weights, no stated constants",
)

DISCRETE_TIME = Claim(
    id="S000-F4",
    title="gradient descent with a small step follows Theorem 1 up to O(step)",
    kind=Kind.SCALING,
    source=Source(SOURCE, "rebuttal (discrete time)", Provenance.VERBATIM),
    statement=sp.Eq(GDPLGap, K * eta),
    parametrization=MF,
    loss=SQUARE,
    parameters={"K": None},
    parameter_notes=f"{FITTED_NOTE} The step threshold (depending on p, n, d, C) is not "
    "given.",
    measures="max gap between the per-step PL of gradient descent and the flow's PL at the "
    "same physical time, as eta -> 0; slope against 1",
)

DIMENSION_CONSTRAINTS = Claim(
    id="S000-F5",
    title="the proof needs d > n (rank) and n ~ sqrt(d) (residual control)",
    kind=Kind.QUALITATIVE,
    source=Source(SOURCE, "rebuttal (eqs. 23-25)", Provenance.VERBATIM),
    statement=sp.And(sp.Gt(d, n), sp.Le(n, K * sp.sqrt(d))),
    parameters={"K": None},
    measures="nothing: documents where the proof's dimension constraints come from",
    checkable=False,
    not_checkable_reason="documentation of the proof (THEORY class QL); its checkable "
    "consequence is S000-C1",
)

FAILURE_MODES = Claim(
    id="S000-F6",
    title="a run fails exactly when the initialisation is not good",
    kind=Kind.QUALITATIVE,
    source=Source(SOURCE, "rebuttal (local minima)", Provenance.VERBATIM),
    statement=sp.Eq(Converged, GoodInit),
    setting=(WEAK_INTERACTION,),
    parametrization=MF,
    loss=SQUARE,
    parameters=GAMMA_0,
    parameter_notes=GAMMA_0_NOTE,
    measures="for failed runs, whether Q-good failed at t = 0; the remaining loss L_end/L_0",
    checkable=False,
    not_checkable_reason="qualitative (THEORY class QL): 'either stuck at the start or "
    "learns it' has no stated time or loss level",
    notes="Local minima exist; width log n avoids the bad zone w.h.p. and near-orthogonality "
    "avoids minima created by interacting weights (App. C.1). In R's d = 100 runs every run "
    "fails for n >= 1800 with L_end/L_0 of 0.25%-1.3% (E-000-1).",
)

OTHER_ACTIVATIONS = Claim(
    id="S000-F7",
    title="leaky ReLU needs only a constant width: at fixed p, no convergence threshold in n",
    kind=Kind.PROBABILITY,
    source=Source(SOURCE, "rebuttal (other activations)", Provenance.VERBATIM),
    statement=sp.Gt(PSuccess, sp.Rational(1, 2)),
    parametrization=MF,
    loss=SQUARE,
    measures="frequency of the published protocol's success (GD at lr 1 on p L, stopped once "
    "L < 1/(2n), success iff the final L <= 1/(2n)) with 10x its epoch budget, at the fixed "
    "width p = 4 on sphere data with d = 4n, for n = 20, 40, 80, 160 (one Sample each; "
    "papers/s000/other_activations.py), with leaky ReLU of slope 0.1",
    notes="Made operational as: no convergence threshold at fixed width, P(success) > 1/2 at "
    "every n of the range (with ReLU the same protocol has a threshold N(d, p), E-000-2; at "
    "p = 4 ReLU fails from n = 20 on, the mutant S000-F7~relu). 'Constant' is checked over a "
    "range of n, not for all n. Monomials: S000-F7b.",
    activations=("leaky",),
)

MONOMIALS = Claim(
    id="S000-F7b",
    title="positively beta-homogeneous activations satisfy Lemma 1 with the constant beta",
    kind=Kind.CONSERVED,
    source=Source(SOURCE, "rebuttal (monomials alpha x^beta, beta > 1, 'satisfy Lemma 1 up to "
                  "a constant')", Provenance.DERIVED),
    statement=sp.And(sp.Eq(Balance(t), 0), sp.Eq(SignFlips(t), 0)),
    setting=(ASYMMETRIC,),
    measures="c_j(t) = beta a_j^2 - ||w_j||^2 against c_j(0) (Trajectory.balancedness with the "
    "activation's degree), and the signs of a_j, on flows with sigma(z) = max(z, 0)^beta",
    notes="sigma'(z) z = beta sigma(z) gives a_j dL/da_j = <w_j, dL/dw_j> / beta, so "
    "beta a_j^2 - ||w_j||^2 is conserved (CF-13); under A1 it is > 0, so a_j keeps its sign. "
    "Checked on ReLU powers (numerics.ReLUPower); the monomial x^beta on all of R is "
    "homogeneous too but is not one of the toolkit's activations.",
    activations=("power",),
)

RATE_TRENDS = Claim(
    id="S000-F8",
    title="the rate falls with n and grows with the data norm",
    kind=Kind.SCALING,
    source=Source(SOURCE, "rebuttal (eq. 74)", Provenance.VERBATIM),
    statement=sp.And(sp.Eq(MuInf, K * DataScale**beta_s * n ** (-beta_n)),
                     sp.Gt(beta_s, 0), sp.Gt(beta_n, 0)),
    parametrization=MF,
    loss=SQUARE,
    parameters={"K": None, "beta_s": None, "beta_n": None},
    parameter_notes="All fitted; the claim is only the signs of the two exponents.",
    measures="MuInf against a global input rescaling x -> s x and against n",
    notes="At fixed weights the CF-3 bracket scales like s^2; the asymptotic rate depends "
    "on s also through E_i. The fall with n comes from the 1/n loss normalisation.",
)

REGIME = Claim(
    id="S000-F9",
    title="the regime: width log n, features learned, d p ~ n^2 log n",
    kind=Kind.QUALITATIVE,
    source=Source(SOURCE, "rebuttal (regime)", Provenance.VERBATIM),
    statement=sp.Eq(d * p, K * n**2 * sp.log(n)),
    parameters={"K": None},
    measures="nothing: places the theory between NTK and infinite width",
    checkable=False,
    not_checkable_reason="a description of the regime (THEORY class QL)",
    notes="Parameter-to-data ratios quoted: Phi-2 519:1, ResNet-50 on CIFAR 460:1. Deeper "
    "networks and vector outputs are not covered.",
)

CLAIMS = (
    MEAN_FIELD, PARAMETRISATION_MAP, LOCAL_PL, ASSUMPTION_1, ASSUMPTION_2, ASSUMPTION_3,
    INVARIANCE, GOOD_WIDTH, TRAJECTORY_PL, HIGH_DIMENSION, EMPIRICAL_THRESHOLD, PLATEAUS,
    ORTHOGONAL_SANDWICH, ORTHOGONAL_RATE, GROUP_RATE, DECOUPLING, PHASE_TRANSITIONS,
    SQRT_N_CONJECTURE, IMPLICIT_BIAS, DISCRETE_TIME, DIMENSION_CONSTRAINTS, FAILURE_MODES,
    OTHER_ACTIVATIONS, MONOMIALS, RATE_TRENDS, REGIME,
)
