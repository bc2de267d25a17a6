"""S002: Boursier, Pillaud-Vivien, Flammarion (NeurIPS 2022), orthogonal inputs.

Setting shared by these claims: standard parametrisation, square loss
L = 1/(2n) sum (h - y)^2, plain gradient flow, relu'(0) = 0, orthogonal inputs,
balanced initialisation w_j = lam g_j, a_j = s_j ||w_j||, and r = ||D_+||/||D_-|| > 1.

The paper normalises the inputs to unit norm "for convenience". We state the
capacities with CapPlus = sqrt(sum_{y_k>0} (y_k/|x_k|)^2), which is n||D_+|| for
unit norms and the single-sample capacity |y|/|x| of the two-point example
(THEORY.md CF-8, CF-9, section 8 item 10).

The paper's eps and lam* are unspecified: each phase lemma takes eps as a parameter
(THEORY.md's eps = 1/10 by default) and a surrogate assumption makes it INAPPLICABLE
where its tolerance exceeds what it bounds. S002-A1/A2 is declared as S002-A1 and
S002-A2.

Length: declarative claim records (one `Claim` per statement of the paper, with its
source and assumptions); nothing here computes.
"""

from __future__ import annotations

import sympy as sp

from theory.claim import Assumption, Claim, Kind, Provenance, Source
from theory.symbols import (
    PL,
    AlignGap,
    AlignMinus,
    AlignPlus,
    Balance,
    CapMinus,
    CapPlus,
    Dminus,
    Dplus,
    DriftSPlus,
    FieldGap,
    GrowthRatioOut,
    GrowthRatioOutMinus,
    InitImbalance,
    L,
    MinAbsY,
    MinF1Norm,
    MinNormSq,
    NormOutKey,
    NormOutPlus,
    NormW,
    NormWFrobSq,
    NumKinks,
    NumSMinus,
    NumSPlus,
    OffDiagGram,
    PKeyMinus,
    PKeyPlus,
    SaddleDist,
    SignFlips,
    UMinus,
    UPlus,
    Xmax,
    Xmin,
    c_init,
    c_T,
    delta,
    eps,
    lam,
    n_minus,
    n_plus,
    p,
    t,
    t_1,
    t_2,
    t_3,
    t_conv,
    tol,
)

ORTHOGONAL = Assumption(
    "A1 orthogonal inputs", sp.Eq(OffDiagGram, 0),
    "<x_k, x_k'> = 0 for k != k' (unit norms generalised through CapPlus)",
)
LABELS = Assumption(
    "A2 labels", sp.And(sp.Gt(MinAbsY, 0), sp.Gt(Dplus, Dminus)),
    "y_k != 0 and ||D_+|| > ||D_-|| (r > 1, the paper's WLOG)",
)
KEY_NEURONS = Assumption(
    "A3 key neurons", sp.And(sp.Ge(NumSPlus, 1), sp.Ge(NumSMinus, 1)),
    "S_{+,1} and S_{-,1} are non-empty",
)
BALANCED = Assumption(
    "balanced initialisation", sp.Eq(InitImbalance, 0), "|a_j(0)| = ||w_j(0)|| for all j",
)
EPS_BELOW_GROWTH_GAP = Assumption(
    "eps small for the data (derived)", sp.Lt(eps, 1 - GrowthRatioOut),
    "eps < 1 - GrowthRatioOut. On orthogonal data a neuron outside S_{+,1} keeps the "
    "initially active samples of its own sign and grows at rate ||D_{A_j}||, so by t_2 >= "
    "-ln(lam)/||D_+|| - O(1) its norm is at least of order lam^(1 - ||D_{A_j}||/||D_+||); "
    "Lemma 3(iii)'s 2 c lam^eps then needs eps below that gap as lam -> 0: this is the "
    "lemma's 'eps small enough' made explicit for the instance",
)

SMALL_LAMBDA = Assumption(
    "lam below lam* (surrogate)", sp.Lt(lam ** (eps / 5), CapPlus),
    "lam^(eps/5) < CapPlus: the lemma's tolerance is smaller than what it bounds, the "
    "checkable stand-in for the unspecified 'lam <= lam*' (otherwise the conclusion is vacuous)",
)

SOURCE = "S002"

BALANCEDNESS = Claim(
    id="S002-L1",
    title="balancedness is conserved and output signs are kept",
    kind=Kind.CONSERVED,
    source=Source(SOURCE, "Lemma 1", Provenance.VERBATIM),
    statement=sp.And(sp.Eq(Balance(t), 0), sp.Eq(SignFlips(t), 0)),
    setting=(BALANCED,),
    measures="c_j(t) = a_j^2 - ||w_j||^2 against c_j(0); sign a_j(t) against sign a_j(0)",
    notes="Holds for any flow -kappa grad L and any relu'(0) (THEORY CF-2); gradient "
    "descent does not conserve it. The sign part needs |a_j(0)| = ||w_j(0)|| > 0.",
)

ZERO_LOSS = Claim(
    id="S002-T1",
    title="the loss converges to 0 (zero-loss part of the main theorem)",
    kind=Kind.EVENT_TIME,
    source=Source(SOURCE, "Theorem 1 (with App. B Lemma 12's O(-ln lam) time)",
                  Provenance.INFERRED),
    statement=sp.Le(t_conv, c_T * (-sp.log(lam)) / Dminus),
    event=sp.Le(L(t), delta * L(0)),
    event_time=t_conv,
    setting=(ORTHOGONAL, LABELS, KEY_NEURONS, BALANCED),
    parametrization="standard",
    loss="square",
    parameters={"c_T": 3, "delta": sp.Rational(1, 10**8)},
    parameter_notes="The theorem says L -> 0; its quantitative form (App. B, not in the seed) "
    "puts convergence after a time O(-ln lam). We check that L falls to delta*L(0) by "
    "c_T*(-ln lam)/||D_-||: phase 3 ends near (1+3r eps)(-ln lam)/||D_-|| (Lemma 4) and the "
    "local PL rate is then >= ||D_-|| (Lemma 5), so c_T = 3 and delta = 1e-8 leave the "
    "exponential tail ln(1/delta)/||D_-|| room for -ln lam >= ln(1/delta)/(c_T - 2).",
    measures="first time L(t) <= delta L(0)",
)

MIN_NORM_BIAS = Claim(
    id="S002-T1b",
    title="the implicit bias part of the main theorem: as lam -> 0 the limit interpolates with "
    "the minimal norm",
    kind=Kind.LIMIT,
    source=Source(SOURCE, "Theorem 1 ('moreover lim_{lam -> 0} lim_{t -> oo} theta(t) = "
                  "theta* in argmin_{L = 0} |theta|^2')", Provenance.VERBATIM),
    statement=sp.And(sp.Eq(sp.Limit(L(t), t, sp.oo), 0),
                     sp.Eq(sp.Limit(sp.Limit(2 * NormWFrobSq(t), t, sp.oo), lam, 0), MinNormSq)),
    setting=(ORTHOGONAL, LABELS, KEY_NEURONS, BALANCED),
    parametrization="standard",
    loss="square",
    measures="the loss at each run's limit point, and |theta|^2 = 2 |W|_F^2 (balanced) there "
    "against the minimum over interpolators (CF-9, exact), over runs with lam decreasing "
    "geometrically",
    notes="theta_lam^oo interpolates (first part); among interpolators theta* has the "
    "smallest norm, so |theta_lam^oo|^2 -> min |theta|^2 is the limit's statement in norm "
    "(the argmin is the set of width-2 networks, S002-P1). On the two-point toy "
    "(G-002-toy) the minimum is 2 (3/sqrt 5) (THEORY S002-F5).",
)

PHASE_TWO = Claim(
    id="S002-L3",
    title="phase 2 ends by -(1+3 eps) ln(lam)/||D_+||",
    kind=Kind.EVENT_TIME,
    source=Source(SOURCE, "Lemma 3", Provenance.OCR),
    statement=sp.Le(t_2, -(1 + 3 * eps) * sp.log(lam) / Dplus),
    event=sp.And(
        sp.Ge(AlignPlus(t), Dplus - lam ** (eps / 5)),
        sp.Ge(UPlus(t), CapPlus - lam ** (eps / 5)),
        sp.Le(NormOutPlus(t), 2 * c_init * lam**eps),
    ),
    event_time=t_2,
    setting=(ORTHOGONAL, LABELS, KEY_NEURONS, BALANCED, EPS_BELOW_GROWTH_GAP, SMALL_LAMBDA),
    parametrization="standard",
    loss="square",
    parameters={"eps": sp.Min(sp.Rational(1, 10), (1 - GrowthRatioOut) / 2)},
    parameter_notes="The lemma holds for every eps below a threshold that depends on the data "
    "and the width, and for lam <= lam*; neither is given. Default: THEORY.md's practical "
    "eps = 1/10, lowered to half the instance's growth gap (1 - GrowthRatioOut)/2 where the "
    "data need a smaller eps; pass eps explicitly (with_parameters) to check another value. "
    "SMALL_LAMBDA makes the lemma INAPPLICABLE where its tolerance lam^(eps/5) exceeds the "
    "capacity it bounds.",
    measures="first time (i) min_{S+,1} <w_j/|w_j|, D_+> >= ||D_+|| - lam^(eps/5), "
    "(ii) u_+ >= CapPlus - lam^(eps/5), (iii) max_{j not in S+,1} |w_j| <= 2 c lam^eps all hold",
    flags=(
        "Lemma 3(i) prints w_j; the normalised w_j/|w_j| is meant (THEORY.md section 8.8).",
        "Lemma 3(ii) prints '='; read as u_+ >= n||D_+|| - lam^(eps/5) (section 8.8).",
        "n||D_+|| assumes unit norms; CapPlus generalises it (section 8.10).",
    ),
)

# =====================================================================================
# The rest of the catalogue (THEORY.md section 4).
# =====================================================================================
STD, SQUARE = "standard", "square"
EPS_TENTH = {"eps": sp.Rational(1, 10)}
EPS_NOTE = ("eps = 1/10, THEORY.md's practical choice (the paper only says 'eps small "
            "enough' and lam <= lam*); pass eps with with_parameters to check another value.")
T_PHASE_2 = -(1 + 3 * eps) * sp.log(lam) / Dplus  # Lemma 3's bound on t_2
T_PHASE_3 = -(1 + 3 * eps * Dplus / Dminus) * sp.log(lam) / Dminus  # Lemma 4's bound on t_3
UNIT_NORM_FLAG = "n||D_+-|| assumes unit norms; CapPlus, CapMinus generalise it (section 8.10)."

UNIT_NORMS = Assumption(
    "unit-norm inputs", sp.And(sp.Eq(Xmin, 1), sp.Eq(Xmax, 1)),
    "||x_k|| = 1 (the paper's orthonormal inputs; the rates below use it)",
)
SMALL_LAMBDA_PHASE_1 = Assumption(
    "lam below lam* (surrogate, phase 1)",
    sp.And(sp.Lt(2 * lam**eps, 1), sp.Lt(eps * Dplus, Dminus)),
    "2 lam^eps < 1 and r eps < 1: otherwise Lemma 2's bounds (1 - 2 lam^eps) ||D_+-|| and "
    "2 c lam^(1 - r eps) say nothing",
)
SMALL_LAMBDA_PHASE_3 = Assumption(
    "lam below lam* (surrogate, phase 3)", sp.Lt(lam ** (eps / 20), CapMinus),
    "lam^(eps/20) < CapMinus: the tolerance is smaller than the capacity it bounds",
)
EPS_BELOW_GROWTH_GAP_MINUS = Assumption(
    "eps small for the data, negative side (derived)", sp.Lt(eps, 1 - GrowthRatioOutMinus),
    "eps < 1 - GrowthRatioOutMinus: the phase-3 analogue of EPS_BELOW_GROWTH_GAP for the "
    "negative neurons outside S_{-,1}, which grow until t_3 ~ -ln(lam)/||D_-||",
)
SADDLE_WINDOW = Assumption(
    "eps small for Fact 1's window", sp.Gt((1 - eps) * Dplus, (1 + 3 * eps) * Dminus),
    "(1 + 3 eps)/||D_+|| < (1 - eps)/||D_-||, i.e. r > (1 + 3 eps)/(1 - eps): the plateau "
    "window is non-empty",
)
ORTHONORMAL = (ORTHOGONAL, LABELS, KEY_NEURONS, BALANCED)

LAYER_ODES = Claim(
    id="S002-D1",
    title="layer-wise ODEs: da_j/dt = <D_j, w_j>, dw_j/dt = a_j D_j",
    kind=Kind.IDENTITY,
    source=Source(SOURCE, "Section 3, eqs. (5)-(9)", Provenance.VERBATIM),
    statement=sp.Eq(FieldGap(t), 0),
    parametrization=STD,
    loss=SQUARE,
    measures="the simulated velocity against a_j' = <D_j, w_j>, w_j' = a_j D_j with "
    "D_j = -(1/n) sum_k 1{<w_j, x_k> > 0} (h(x_k) - y_k) x_k, over the neurons off ties at "
    "each time (a neuron held on <w_j, x_k> = 0 by a sliding mode moves with the Filippov "
    "velocity, which the strict mask does not give)",
    notes="D_j depends on theta only through h and on j only through w_j's activation "
    "pattern. Spherical form (eq. 9), w_j = e^rho_j w^_j: rho_j' = s_j <D_j, w^_j>, "
    "w^_j' = s_j (D_j - <D_j, w^_j> w^_j) (verified symbolically).",
)

ASSUMPTION_1 = Claim(
    id="S002-A1",
    title="orthogonal (orthonormal) inputs",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Assumption 1", Provenance.VERBATIM),
    statement=ORTHOGONAL.statement,
    window=(sp.Integer(0), sp.Integer(0)),
    measures="max_{k != k'} |cos(x_k, x_k')| (exactly 0, see N-3)",
    flags=(UNIT_NORM_FLAG,),
    notes="Unit norms are 'for convenience'; orthogonality is the restriction.",
)

ASSUMPTION_2 = Claim(
    id="S002-A2",
    title="nonzero labels and ||D_+|| != ||D_-||",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Assumption 2", Provenance.VERBATIM),
    statement=sp.And(sp.Gt(MinAbsY, 0), sp.Gt(sp.Abs(Dplus - Dminus), 0)),
    window=(sp.Integer(0), sp.Integer(0)),
    measures="min_k |y_k| and r = ||D_+||/||D_-||",
    notes="Excludes sum_{y>0} y_k^2 = sum_{y<0} y_k^2, a null set; the paper then takes "
    "r > 1 without loss of generality (LABELS).",
)

KEY_NEURON_PROBABILITY = Claim(
    id="S002-A3",
    title="S_{+,1}, S_{-,1} are non-empty w.p. 1 - (1 - 2^-(n_+- + 1))^m",
    kind=Kind.PROBABILITY,
    source=Source(SOURCE, "Assumption 3 (probability derived, CF-6)", Provenance.DERIVED),
    statement=sp.And(sp.Eq(PKeyPlus, 1 - (1 - 2 ** (-(n_plus + 1))) ** p),
                     sp.Eq(PKeyMinus, 1 - (1 - 2 ** (-(n_minus + 1))) ** p)),
    setting=(ORTHOGONAL,),
    measures="Monte Carlo frequency of non-empty S_{+,1} and S_{-,1} under w_j = lam g_j, "
    "g_j ~ N(0, I), random signs",
    notes="The assumption itself is KEY_NEURONS. It holds w.p. -> 1 as m grows but m must be "
    "exponential in n; it is weaker than omnidirectionality, and sufficient and necessary "
    "for the min-l2 bias.",
)

ALIGNMENT_ODE = Claim(
    id="S002-F1",
    title="while h ~ 0, directions follow the spherical gradient flow of <D_j^0, w>",
    kind=Kind.LIMIT,
    source=Source(SOURCE, "eq. (10)", Provenance.VERBATIM),
    statement=sp.Eq(sp.Limit(AlignGap(t), lam, 0), 0),
    setting=ORTHONORMAL,
    parametrization=STD,
    loss=SQUARE,
    window=(sp.Integer(0), t_1),
    definitions={t_1: -eps * sp.log(lam) / Dminus},
    parameters=EPS_TENTH,
    parameter_notes=EPS_NOTE,
    measures="the largest gap on [0, t_1] between the full flow's direction velocities and "
    "eq. (10)'s spherical flow at h = 0, over runs with lam decreasing geometrically (the "
    "same data and shapes)",
    notes="D_j^0 depends only on the activation pattern, so finitely many directions "
    "(quantisation); s = +1 ascends, s = -1 descends. 'While h ~ 0' is the window up to "
    "Lemma 2's t_1, where h is O(lam^(2 - 2 r eps)): the gap vanishes with lam.",
)

PHASE_ONE = Claim(
    id="S002-L2",
    title="phase 1: alignment at t_1 = -eps ln(lam)/||D_-||, all neurons still small",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Lemma 2", Provenance.VERBATIM),
    statement=sp.And(
        sp.Ge(AlignPlus(t), (1 - 2 * lam**eps) * Dplus),
        sp.Ge(AlignMinus(t), (1 - 2 * lam**eps) * Dminus),
        sp.Le(NormW(t), 2 * c_init * lam ** (1 - eps * Dplus / Dminus)),
    ),
    setting=(*ORTHONORMAL, SMALL_LAMBDA_PHASE_1),
    parametrization=STD,
    loss=SQUARE,
    window=(t_1, t_1),
    definitions={t_1: -eps * sp.log(lam) / Dminus},
    parameters=EPS_TENTH,
    parameter_notes=EPS_NOTE,
    measures="at t_1: min_{S+,1} <w^_j, D_+>, min_{S-,1} <w^_j, -D_->, max_j ||w_j||",
    notes="Check at lam = 1e-20, eps = 0.1 (THEORY): 0.99999999 and 0.99994 >= 0.98; "
    "2.99e-16 <= 9.1e-16.",
)

LOGISTIC_PHASE_2 = Claim(
    id="S002-F2",
    title="phase 2: u_+ follows the logistic ODE du/dt = 2||D_+|| (1 - u/(n||D_+||)) u",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Section 4 (phase 2)", Provenance.VERBATIM),
    statement=sp.Le(
        sp.Abs(sp.Derivative(UPlus(t), t) - 2 * Dplus * (1 - UPlus(t) / CapPlus) * UPlus(t)),
        tol * Dplus * CapPlus / 2),
    setting=(*ORTHONORMAL, SMALL_LAMBDA),
    parametrization=STD,
    loss=SQUARE,
    window=(t_1, T_PHASE_2),
    definitions={t_1: -eps * sp.log(lam) / Dminus},
    parameters={**EPS_TENTH, "tol": sp.Rational(1, 10)},
    parameter_notes="The paper writes '~'. tol = 1/10 of the largest logistic rate "
    "||D_+|| CapPlus / 2 (reached at u = CapPlus/2); THEORY's runs deviate from the logistic "
    "solution by 8.5e-2, 5.9e-3, 1.8e-3 of the capacity at lam = 1e-5, 1e-10, 1e-20. "
    + EPS_NOTE,
    measures="du_+/dt (exact, from the flow) against the logistic right-hand side over "
    "phase 2, [t_1, -(1 + 3 eps) ln(lam)/||D_+||]",
    flags=(UNIT_NORM_FLAG,),
    notes="Exact when the S_{+,1} neurons are aligned with D_+, active exactly on the "
    "positives and the others are 0; then u_+ reaches n||D_+|| within -ln(lam)/||D_+|| "
    "(closed form CF-8). The approximation error vanishes as lam -> 0 (a scaling law).",
)

SADDLE = Claim(
    id="S002-F3",
    title="saddle to saddle: theta stays within lam^(eps/5) of a strict saddle between "
    "the phases",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Fact 1 (theta_S derived)", Provenance.VERBATIM),
    statement=sp.Le(SaddleDist(t), lam ** (eps / 5)),
    setting=(*ORTHONORMAL, SMALL_LAMBDA, SADDLE_WINDOW),
    parametrization=STD,
    loss=SQUARE,
    window=(T_PHASE_2, -(1 - eps) * sp.log(lam) / Dminus),
    parameters=EPS_TENTH,
    parameter_notes=EPS_NOTE,
    measures="distance from theta(t) to the saddle set over [-(1 + 3 eps) ln(lam)/||D_+||, "
    "-(1 - eps) ln(lam)/||D_-||]",
    flags=(UNIT_NORM_FLAG,),
    notes="theta_S: S_{+,1} neurons on D_+ with sum ||w_j||^2 = n||D_+||, the rest 0; a "
    "critical point (D_j = 0 for the positive neurons) with a negative Hessian eigenvalue. "
    "Plateau loss L(theta_S) = (1/(2n)) sum_{y<0} y_k^2 (= n||D_-||^2/2 for unit norms).",
)

PHASE_THREE = Claim(
    id="S002-L4",
    title="phase 3 ends by -(1 + 3 r eps) ln(lam)/||D_-||",
    kind=Kind.EVENT_TIME,
    source=Source(SOURCE, "Lemma 4", Provenance.VERBATIM),
    statement=sp.Le(t_3, T_PHASE_3),
    event=sp.And(
        sp.Ge(AlignMinus(t), Dminus - lam ** (eps / 14)),
        sp.Ge(UMinus(t), CapMinus - lam ** (eps / 20)),
        sp.Le(DriftSPlus(t), lam ** (eps / 15)),
        sp.Le(NormOutKey(t), 3 * c_init * lam**eps),
    ),
    event_time=t_3,
    setting=(*ORTHONORMAL, EPS_BELOW_GROWTH_GAP, EPS_BELOW_GROWTH_GAP_MINUS,
             SMALL_LAMBDA_PHASE_3),
    parametrization=STD,
    loss=SQUARE,
    parameters={"eps": sp.Min(sp.Rational(1, 10), (1 - GrowthRatioOut) / 2,
                              (1 - GrowthRatioOutMinus) / 2)},
    parameter_notes="As S002-L3: eps = 1/10, lowered to half of either growth gap where "
    "the data need a smaller eps (derived, as for Lemma 3(iii)).",
    measures="first time (i) min_{S-,1} <w^_j, -D_-> >= ||D_-|| - lam^(eps/14), (ii) u_- >= "
    "CapMinus - lam^(eps/20), (iii) S_{+,1} neurons within lam^(eps/15) of their state at t_2, "
    "(iv) neurons outside S_{+,1} and S_{-,1} below 3 c lam^eps",
    flags=("Lemma 4(i) prints w_j; the normalised w_j/|w_j| is meant, and '=' in 4(ii) is "
           "read as u_- >= n||D_-|| - lam^(eps/20) (section 8.8).",
           UNIT_NORM_FLAG),
    notes="Check at lam = 1e-20, eps = 0.1 (THEORY): (ii) 0.87748 for 0.87750, (iii) "
    "3.2e-12 <= 0.74, (iv) 3.7e-3 <= 0.137. (iii) needs t_2, S002-L3's event time.",
)

MIN_NORM = Claim(
    id="S002-P1",
    title="min-norm interpolators are width-2 networks of squared norm 2n(||D_+|| + ||D_-||)",
    kind=Kind.IDENTITY,
    source=Source(SOURCE, "Proposition 1 (App. C)", Provenance.VERBATIM),
    statement=sp.Eq(MinNormSq, 2 * (CapPlus + CapMinus)),
    setting=(ORTHOGONAL, LABELS),
    parametrization=STD,
    loss=SQUARE,
    measures="the minimum of ||theta||^2 over interpolating networks against 2(CapPlus + "
    "CapMinus); at the end of training, directions (cos with D_+ or -D_-), per-class sums of "
    "||w_j||^2 and residuals",
    flags=(UNIT_NORM_FLAG,),
    notes="theta*: one neuron along D_+ with a = ||w|| = sqrt(n||D_+||), one along -D_- with "
    "-a = ||w|| = sqrt(n||D_-||), or any collinear split (CF-9). Non-unit norms: "
    "a_j^2 + ||w_j||^2 >= 2|a_j| ||w_j|| and the triangle inequality give 2(CapPlus + CapMinus) "
    "(derived). By Lemma 4, theta(t_3) is within lam^(eps/20) of some theta*.",
)

LOCAL_PL = Claim(
    id="S002-L5",
    title="local PL near theta*: ||grad L||^2 / L >= ||D_-|| after phase 3",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Lemma 5", Provenance.VERBATIM),
    statement=sp.Ge(PL(t), Dminus),
    setting=(*ORTHONORMAL, UNIT_NORMS, SMALL_LAMBDA_PHASE_3),
    parametrization=STD,
    loss=SQUARE,
    window=(T_PHASE_3, sp.oo),
    parameters=EPS_TENTH,
    parameter_notes=EPS_NOTE,
    measures="PL(t) = ||grad L||^2/L (kappa = 1) after Lemma 4's bound on t_3; the slope of "
    "ln L there",
    notes="The infimum is over the balanced set within lam^(eps/40) of theta*. Remark 1 "
    "(post acceptance): Chatterjee's theorem does not apply verbatim and the proof is "
    "postponed. At theta* the ratio lies in [2||D_-||, 4||D_+||] and the asymptotic rate is "
    "2||D_-|| when n_- >= 2 (CF-10): the bound is conservative by 2. Measure where L/L(0) "
    "is in [1e-12, 1e-3] (N-5).",
)

VARIATION_NORM = Claim(
    id="S002-F4",
    title="min (1/2)||theta||^2 over interpolators equals the min variation norm",
    kind=Kind.IDENTITY,
    source=Source(SOURCE, "eq. (8)", Provenance.VERBATIM),
    statement=sp.Eq(MinNormSq / 2, MinF1Norm),
    setting=(ORTHOGONAL, LABELS),
    parametrization=STD,
    loss=SQUARE,
    measures="both minima on the instance",
    flags=(UNIT_NORM_FLAG,),
    notes="On orthonormal data both equal ||y_+|| + ||y_-|| = n(||D_+|| + ||D_-||) "
    "(derived). The parameter-space statement is the stronger one (S002-P1).",
)

EXPERIMENTS = Claim(
    id="S002-F5",
    title="the learned function has two kinks and a smaller F_1 norm than the linear fit",
    kind=Kind.QUALITATIVE,
    source=Source(SOURCE, "Section 5, Figs. 2-3", Provenance.VERBATIM),
    statement=sp.Eq(NumKinks, 2),
    setting=(ORTHOGONAL, LABELS),
    parametrization=STD,
    loss=SQUARE,
    measures="kinks of the learned 1-D function on G-002-toy; iterations at which the "
    "saddles are left",
    checkable=False,
    not_checkable_reason="the shape of a figure (THEORY class QL); its quantitative content "
    "is S002-P1 and CF-9",
    flags=("The reported 5000/11000 iterations match a loss with twice eq. (1)'s gradient "
           "(torch MSE, mean); eq. (1) itself gives about 12,000/25,000 (section 8.9).",),
    notes="G-002-toy: h(t) = (2t + 1)_+/5 - (4/5)(1 - t/2)_+, kinks at -1/2 and 2, "
    "(1/2)||theta*||^2 = 3/sqrt(5) against >= 2 for the linear interpolator 0.8 t - 0.6.",
)

DISCUSSION = Claim(
    id="S002-F6",
    title="discussion: no global PL along the path, separate phases, extensions",
    kind=Kind.QUALITATIVE,
    source=Source(SOURCE, "Section 6 (discussion)", Provenance.VERBATIM),
    statement=sp.Lt(PL(t), Dminus),
    setting=ORTHONORMAL,
    parametrization=STD,
    loss=SQUARE,
    window=(T_PHASE_2, -(1 - eps) * sp.log(lam) / Dminus),
    parameters=EPS_TENTH,
    parameter_notes=EPS_NOTE,
    measures="the PL ratio on the saddle plateau; cos(w_j, D_+) while u_+ grows",
    checkable=False,
    not_checkable_reason="discussion points without stated bounds (THEORY class QL/SL); the "
    "leaky-ReLU remark is measured as a finding (S002-F6-leaky), not a bound",
    notes="A PL inequality ||grad L||^2 >= c L fails along the path (saddles); the origin "
    "is a saddle left in time ~ -ln(lam); alignment and growth are separate phases on "
    "orthogonal data, not on correlated data (delta >> lam); near-balanced Gaussian a^0 and "
    "near-orthogonal data (delta ~ lam) extend; leaky ReLU may lose the min-l2 bias; with "
    "polynomial width the loss still vanishes with more kinks and saddles; for larger lam "
    "phases 2 and 3 merge. The leaky-ReLU remark is measured (finding S002-F6-leaky: the "
    "distance of the flow's limit to the minimal-norm interpolator as lam -> 0, leaky "
    "against ReLU, papers/s002/leaky_bias.py); the other points stay qualitative.",
)

CLAIMS = (
    MIN_NORM_BIAS,
    BALANCEDNESS, ZERO_LOSS, PHASE_TWO, LAYER_ODES, ASSUMPTION_1, ASSUMPTION_2,
    KEY_NEURON_PROBABILITY, ALIGNMENT_ODE, PHASE_ONE, LOGISTIC_PHASE_2, SADDLE, PHASE_THREE,
    MIN_NORM, LOCAL_PL, VARIATION_NORM, EXPERIMENTS, DISCUSSION,
)
