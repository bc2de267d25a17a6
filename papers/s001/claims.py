"""S001: Min, Mallada, Vidal (ICLR 2024), early neuron alignment, classification.

Setting shared by these claims ("classification"): the standard network
f(x) = sum_j v_j relu(<w_j, x>) trained on a *sum* loss sum_i l(y_i, f(x_i)) with
l = exp(-y f) or 2 log(1 + exp(-y f)), labels y_i in {-1, +1}, gradient flow on both
layers (regular Caratheodory solutions, relu'(0) = 0), balanced initialisation
W(0) = eps W_0, |v_j(0)| = ||w_j(0)||. V_+- = {j : sign v_j(0) = +-1}; cones S_+, S_-,
S_dead as in THEORY.md section 3; x_+- = sum of each class's inputs.

Names: the paper's width h is ``p``, its dimension D is ``d``, its scale epsilon is
``lam`` (printed h, D, epsilon in LaTeX); v_j is a_j of the vocabulary.

The constants CF-11 makes explicit are ``definitions`` (expanded before a check):
zeta = min(mu^2, zeta_2), xi = mu^2, t_1 = 4 (H_{n_-} + H_{n_+ - 1} + 1/2) /
(min(zeta, xi) sqrt(mu) X_min), T = ln(1/(sqrt(h) eps)) / (4 n X_max) and
alpha = (mu X_min)^2 / (32 X_max).

Heading IDs that name two lemmas are split: S001-L8/L9 is declared as S001-L8 and
S001-L9, likewise L10/L11 and L13/L14 (``theory.registry.by_heading`` maps back).

Condition (28) on eps is explicit but usually far below float64 (N-4): claims that
need it (everything from t_1 on) are INAPPLICABLE on float64 runs at the paper's
scales; the THEORY.md route is to monitor (29) along the run instead.

Length: declarative claim records (one `Claim` per statement of the paper, with its
source and assumptions); nothing here computes.
"""

from __future__ import annotations

import sympy as sp

from theory.claim import Assumption, Claim, Kind, Provenance, Source
from theory.symbols import (
    Balance,
    ConeCosMin,
    ConeExits,
    CosVhatPlus,
    DeadExits,
    DirChange,
    DirError,
    DwellNa,
    InitImbalance,
    K,
    L,
    LMinus,
    LossScale,
    LostNeurons,
    LPlus,
    MaxAbsH,
    MaxCrossings,
    NormChange,
    NormSqVhatMinus,
    NormSqVhatPlus,
    NormW,
    NormWFrobSq,
    NormWSpecSq,
    NumAliveInit,
    NumInSPlus,
    NumSPlus,
    NumVMinus,
    NumVMinusActive,
    NumVPlus,
    NumVPlusActive,
    OffDiagGram,
    OutMinus,
    OutPlus,
    PActiveMinus,
    PActivePlus,
    ParamDrift,
    PsiError,
    SignFlips,
    T_early,
    Unsorted,
    Wmax,
    Wmin,
    WrongWayCrossings,
    XaPerSample,
    XiMax,
    Xmax,
    Xmin,
    Zeta1Max,
    alpha,
    lam,
    mu,
    n,
    n_minus,
    n_plus,
    p,
    t,
    t_1,
    t_2,
    t_2_plus,
    t_align,
    xi,
    yhat,
    ylab,
    zeta,
    zeta_2,
)

SOURCE = "S001"
CLS = "classification"
ZERO = (sp.Integer(0), sp.Integer(0))
QUARTER = sp.Rational(1, 4)

MARGIN = sp.Min(zeta, xi)
DEFINITIONS = {
    zeta: sp.Min(mu**2, zeta_2),
    xi: mu**2,
    t_1: 4 * (sp.harmonic(n_minus) + sp.harmonic(n_plus - 1) + sp.Rational(1, 2))
    / (MARGIN * sp.sqrt(mu) * Xmin),
    T_early: sp.log(1 / (sp.sqrt(p) * lam)) / (4 * n * Xmax),
    alpha: (mu * Xmin) ** 2 / (32 * Xmax),
}

SEPARATED = Assumption(
    "A1 mu-separated data", sp.Gt(mu, 0),
    "min_{i,k} <x_i y_i, x_k y_k>/(||x_i|| ||x_k||) = mu > 0",
)
NOT_OPPOSED = Assumption(
    "A2 no neuron starts on the other class", sp.Gt(zeta_2, 0),
    "max_{j in V_+} cos(w_j(0), x_-) < 1 and max_{j in V_-} cos(w_j(0), x_+) < 1",
)
BALANCED = Assumption(
    "balanced initialisation", sp.Eq(InitImbalance, 0), "|v_j(0)| = ||w_j(0)|| for all j",
)
BOTH_CLASSES = Assumption(
    "both classes present", sp.And(sp.Ge(n_plus, 1), sp.Ge(n_minus, 1)), "n_+ >= 1, n_- >= 1",
)
EPS_EARLY = Assumption(
    "eps small (Lemma 3)", sp.Le(lam, 1 / (4 * sp.sqrt(p) * Xmax * Wmax**2)),
    "eps <= 1/(4 sqrt(h) X_max W_max^2), which keeps max_i |f(x_i)| <= 1/2 on [0, T]",
)
EPS_28 = Assumption(
    "eps small ((28), first term)",
    sp.Le(lam, sp.Min(mu, zeta, xi) * sp.sqrt(mu) * Xmin / (4 * sp.sqrt(p) * n * Xmax**2
                                                          * Wmax**2)),
    "eps <= min{mu, zeta, xi} sqrt(mu) X_min / (4 sqrt(h) n X_max^2 W_max^2), so that (29) "
    "max_i |f| <= min{mu, zeta, xi} sqrt(mu) X_min / (4 n X_max) holds on [0, T]",
)
LONG_EARLY_PHASE = Assumption(
    "eps small ((28), second term)", sp.Ge(T_early, t_1),
    "T >= t_1: the small-norm phase outlasts the alignment time. The paper writes eps <= "
    "exp(-64 n X_max log n / (min{zeta, xi} sqrt(mu) X_min))/sqrt(h), which is this with "
    "t_1 <= 16 log n/(min{zeta, xi} sqrt(mu) X_min) (derived)",
)
KEY_ACTIVE = Assumption(
    "S_+ and S_- receive a neuron",
    sp.And(sp.Ge(NumVPlusActive, 1), sp.Ge(NumVMinusActive, 1)),
    "some j in V_+ starts active on a positive sample and some j in V_- on a negative one; "
    "by Theorem 1 part 1 they are in S_+ and S_- at t_1",
)
THEOREM = (SEPARATED, NOT_OPPOSED, BALANCED, BOTH_CLASSES, EPS_28, LONG_EARLY_PHASE)
EARLY = (BALANCED, EPS_EARLY)

ZETA_FLAG = ("The proof sets zeta := max{zeta_1, zeta_2}; both cone inclusions need min "
             "(THEORY.md section 8.6). Here zeta = min(mu^2, zeta_2).")
LEMMA_11_FLAG = ("Lemma 11 is read as ||x_a(w)|| >= sqrt(mu) n_a(w) X_min, the linear form the "
                 "dwell-time bound needs (THEORY.md section 8.6).")
PART_2_FLAG = ("Theorem 1 part 2's printed inequality is unreadable; the proof's "
               "L(t) <= L(t_2)/(1 + alpha L(t_2)(t - t_2)) is used (THEORY.md section 8.7).")
N4_NOTE = ("Condition (28) is far below float64 on most data (N-4), so float64 runs are "
           "INAPPLICABLE; THEORY.md's route is to monitor (29) and Lemma 1's error along a run "
           "at eps ~ 1e-6 instead.")


def _bound_t2(count: sp.Basic) -> sp.Basic:
    """Eq. (39): the bound on t_2^+ (count = n_+) or t_2^- (count = n_-)."""
    rate = sp.sqrt(mu) * count * Xmin
    growth = sp.log(2 / (lam**2 * sp.sqrt(mu) * Xmin * Wmin**2)) + 4 * n * Xmax * t_1
    return t_1 + 6 / rate + 4 * growth / rate


# -- definitions, invariants, assumptions ---------------------------------------------------
REGULAR = Claim(
    id="S001-D1",
    title="regular solutions: a neuron that dies stays dead",
    kind=Kind.TRAPPING,
    source=Source(SOURCE, "Definition 1 (App. E.2, E.5)", Provenance.VERBATIM),
    statement=sp.Eq(DeadExits(t), 0),
    setting=(SEPARATED,),
    parametrization=CLS,
    measures="exits from S_dead after entry (a dead neuron must stay frozen)",
    notes="With relu'(0) = 0, global Caratheodory solutions exist under A1 but may be "
    "non-unique ('irregular' ones leave S_dead); gradient descent and the exact flow with "
    "located switches are regular.",
)

BALANCEDNESS = Claim(
    id="S001-F1",
    title="balancedness and the signs of v_j are kept",
    kind=Kind.CONSERVED,
    source=Source(SOURCE, "balanced initialisation, eq. (3)", Provenance.VERBATIM),
    statement=sp.And(sp.Eq(Balance(t), 0), sp.Eq(SignFlips(t), 0)),
    setting=(BALANCED,),
    parametrization=CLS,
    measures="v_j^2 - ||w_j||^2 against its initial value; sign v_j(t) against sign v_j(0)",
    notes="So V_+- do not change and v_j = sign(v_j(0)) ||w_j||. The paper's experiments use "
    "an unbalanced N(0, alpha^2) initialisation: there the difference is a nonzero constant.",
)

ASSUMPTION_1 = Claim(
    id="S001-A1",
    title="mu-separated ('orthogonally separable') data",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Assumption 1", Provenance.OCR),
    statement=SEPARATED.statement,
    window=ZERO,
    measures="mu = min_{i,k} <x_i y_i, x_k y_k>/(||x_i|| ||x_k||) from the data",
    notes="Same-label pairs are positively correlated, opposite-label pairs negatively.",
)

CONES = Claim(
    id="S001-D2",
    title="the cones S_+, S_-, S_dead; x_+ lies inside S_+ and x_- inside S_-",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "cone definitions; Lemmas 6-7", Provenance.VERBATIM),
    statement=sp.Gt(Zeta1Max, 0),
    setting=(SEPARATED,),
    window=ZERO,
    measures="whether x_+- is strictly inside S_+- (a cap of positive angle around it fits)",
    notes="S_+ = {z : 1{<x_i, z> > 0} = 1{y_i > 0} for all i}, S_- likewise, S_dead = "
    "{z : <z, x_i> <= 0 for all i}. Under A1, S_+- are non-empty convex cones containing "
    "their class and x_+-; K = cone{x_i y_i} contains x_a(w) for every w.",
)

ASSUMPTION_2 = Claim(
    id="S001-A2",
    title="no neuron starts aligned with the opposite class (zeta_2 > 0)",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Assumption 2", Provenance.OCR),
    statement=NOT_OPPOSED.statement,
    window=ZERO,
    measures="zeta_2 = 1 - max(0, max_{V_+} cos(w_j(0), x_-), max_{V_-} cos(w_j(0), x_+))^2",
    flags=("[W_0]_ij ~ N(0, 1/D) is read from OCR (THEORY.md section 8.6).",),
    notes="Holds almost surely for Gaussian W_0.",
)

LOSS_DERIVATIVE = Claim(
    id="S001-L2",
    title="|-dl/dyhat(y, yhat) - y| <= 2|yhat| for |yhat| <= 1",
    kind=Kind.IDENTITY,
    source=Source(SOURCE, "Lemma 2 and Remark 4", Provenance.OCR),
    statement=sp.And(
        sp.Le(sp.Abs(ylab * sp.exp(-ylab * yhat) - ylab), 2 * sp.Abs(yhat)),
        sp.Le(sp.Abs(2 * ylab / (1 + sp.exp(ylab * yhat)) - ylab), 2 * sp.Abs(yhat)),
    ),
    setting=(Assumption("domain", sp.And(sp.Le(sp.Abs(yhat), 1), sp.Eq(ylab**2, 1)),
                        "|yhat| <= 1 and y in {-1, +1}"),),
    parametrization=CLS,
    measures="both sides on a grid of yhat in [-1, 1], y = +-1 (exponential loss, then "
    "2 log(1 + e^{-y yhat}))",
    notes="Proof: 2z >= max{1 - e^-z, e^z - 1} on [0, 1]. Remark 4: the square loss "
    "(y - yhat)^2/2 also satisfies it (|-yhat| <= 2|yhat|).",
)

# -- early alignment phase [0, T] -------------------------------------------------------------
EARLY_NORMS = Claim(
    id="S001-L3",
    title="neurons and outputs stay small on [0, T]",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Lemma 3 (App. C)", Provenance.OCR),
    statement=sp.And(sp.Le(NormW(t) ** 2, 2 * lam * Wmax**2 / sp.sqrt(p)),
                     sp.Le(MaxAbsH(t), 2 * lam * sp.sqrt(p) * Xmax * Wmax**2)),
    setting=EARLY,
    parametrization=CLS,
    window=(sp.Integer(0), T_early),
    definitions=DEFINITIONS,
    measures="max_j ||w_j(t)||^2 and max_i |f(x_i)| for t <= T",
    notes="Stated for alpha-leaky ReLU, alpha in [0, 1]: checked at alpha = 0 and, in its "
    "own rows S001-L3[leaky a], at a = 0.1, 0.5, 0.9 (numerics.LeakyReLU). The sum loss "
    "matters (the factor n). Ingredient: ||w_j(t)||^2 <= e^(4 n X_max t) ||w_j(0)||^2 "
    "(Gronwall).",
    activations=("relu", "leaky"),
)

DIRECTION_ERROR = Claim(
    id="S001-L4",
    title="the directional dynamics deviate from eq. (4) by at most 2 n X_max max_i |f|",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Lemma 4", Provenance.OCR),
    statement=sp.Le(DirError(t), 2 * n * Xmax * MaxAbsH(t)),
    setting=EARLY,
    parametrization=CLS,
    window=(sp.Integer(0), T_early),
    definitions=DEFINITIONS,
    measures="||d/dt(w_j/||w_j||) - sign(v_j(0)) P_{w_j} x_a(w_j)|| from the exact gradient, "
    "against 2 n X_max max_i |f(x_i)|",
    notes="The lemma holds whenever max_i |f| <= 1; on [0, T] Lemma 3 gives <= 1/2.",
)

APPROXIMATE_ODE = Claim(
    id="S001-L1",
    title="on [0, T] the directions follow eq. (4) up to 4 eps n sqrt(h) X_max^2 W_max^2",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Lemma 1", Provenance.OCR),
    statement=sp.Le(DirError(t), 4 * lam * n * sp.sqrt(p) * Xmax**2 * Wmax**2),
    setting=EARLY,
    parametrization=CLS,
    window=(sp.Integer(0), T_early),
    definitions=DEFINITIONS,
    measures="the direction error of S001-L4 over [0, T]",
    notes="Eq. (4): d/dt w^_j ~ sign(v_j(0)) P_{w_j} x_a(w_j): spherical gradient ascent "
    "(V_+) or descent (V_-) of G(w) = sum_i y_i relu(<x_i, w>), whose gradient is x_a(w).",
)

COHERENCE = Claim(
    id="S001-L5",
    title="the cone K = cone{x_i y_i} is mu-coherent",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Lemma 5", Provenance.VERBATIM),
    statement=sp.Ge(ConeCosMin, mu),
    setting=(SEPARATED,),
    window=ZERO,
    measures="min cos(z1, z2) over random conic combinations z1, z2 of the x_i y_i",
)

CAP_MARGIN = Claim(
    id="S001-L8",
    title="caps of margin zeta_1 = mu^2 around x_+- lie in S_+-",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Lemma 8 (zeta_1 = mu^2 derived, CF-11)", Provenance.DERIVED),
    statement=sp.Ge(Zeta1Max, mu**2),
    setting=(SEPARATED,),
    window=ZERO,
    measures="the largest zeta with {cos(z, x_+) >= sqrt(1 - zeta)} in S_+ (and the x_- cap "
    "in S_-), min_i cos^2(x_+-, x_i), against mu^2",
    flags=(ZETA_FLAG,),
    notes="The lemma says some zeta_1 > 0 works; any zeta_1 < min_i cos^2(x_+-, x_i) does, "
    "and cos(x_+-, x_i y_i) >= mu by Lemma 5, so zeta_1 = mu^2 (less an infinitesimal).",
)

OUTSIDE_MARGIN = Claim(
    id="S001-L9",
    title="vectors outside S_+ and S_- keep an angle from K: xi = mu^2",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Lemma 9 (xi = mu^2 derived, CF-11)", Provenance.DERIVED),
    statement=sp.Ge(XiMax, mu**2),
    setting=(SEPARATED,),
    window=ZERO,
    measures="1 - sup |cos(z1, z2)|^2 over z1 in K and z2 outside S_+ and S_- (sampled), "
    "against mu^2",
    flags=(ZETA_FLAG,),
    notes="z2 outside S_+ has some <z2, x_i y_i> <= 0 while <z1^, x_i^ y_i> >= mu, so the "
    "angle is at least arcsin(mu); S_- is symmetric.",
)

PSI_DYNAMICS = Claim(
    id="S001-L10",
    title="psi_rj follows its approximate ODE up to 2 n X_max max_i |f|",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Lemma 10", Provenance.OCR),
    statement=sp.Le(PsiError(t), 2 * n * Xmax * MaxAbsH(t)),
    setting=EARLY,
    parametrization=CLS,
    window=(sp.Integer(0), T_early),
    definitions=DEFINITIONS,
    measures="|d psi_rj/dt - sign(v_j(0))(psi_ra - psi_rj psi_aj) ||x_a(w_j)||| with "
    "psi_rj = <x^_r, w^_j>, psi_ra = <x^_r, x^_a(w_j)>, psi_aj = <x^_a, w^_j>",
    notes="Holds whenever max_i |f| <= 1 (Lemma 3 gives it on [0, T]).",
)

XA_NORM = Claim(
    id="S001-L11",
    title="||x_a(w)|| >= sqrt(mu) n_a(w) X_min",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Lemma 11", Provenance.OCR),
    statement=sp.Ge(XaPerSample(t), sp.sqrt(mu) * Xmin),
    setting=(SEPARATED,),
    parametrization=CLS,
    measures="min over live neurons of ||x_a(w_j(t))|| / n_a(w_j(t))",
    flags=(LEMMA_11_FLAG,),
    notes="The lemma's first form, sqrt(n_a (1 + mu (n_a - 1))) X_min, is stronger; a purely "
    "geometric fact, true for every w, checked here along the run's neurons.",
)

PATTERN_MONOTONE = Claim(
    id="S001-F2",
    title="activation patterns change one way only, each hyperplane crossed at most once",
    kind=Kind.TRAPPING,
    source=Source(SOURCE, "eqs. (7)-(8) and (46)", Provenance.OCR),
    statement=sp.And(sp.Eq(WrongWayCrossings(t), 0), sp.Le(MaxCrossings(t), 1)),
    setting=(SEPARATED, BALANCED, EPS_28),
    parametrization=CLS,
    definitions=DEFINITIONS,
    measures="the activation-change log: direction of each change and crossings per (i, j)",
    notes="At a boundary <w_j, x_i> = 0 of a live neuron, sign(v_j) d/dt <w^_j, x^_i y_i> >= "
    "mu^(3/2) X_min / 2: a V_+ neuron only gains positives and loses negatives, a V_- "
    "neuron the reverse, so the pattern changes at most n times and no Zeno behaviour.",
)

DWELL_TIME = Claim(
    id="S001-F3",
    title="an unsorted V_+ neuron changes pattern within 4/(min{zeta, xi} sqrt(mu) X_min n_a)",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "dwell-time bound (proof of Theorem 1)", Provenance.OCR),
    statement=sp.Le(DwellNa(t), 4 / (MARGIN * sp.sqrt(mu) * Xmin)),
    setting=(SEPARATED, NOT_OPPOSED, BALANCED, EPS_28),
    parametrization=CLS,
    window=(sp.Integer(0), T_early),
    definitions=DEFINITIONS,
    measures="longest stay of an unsorted neuron in one activation pattern, times its n_a",
    flags=(ZETA_FLAG, LEMMA_11_FLAG),
    notes="Conditional on (29), max_i |f| <= min{mu, zeta, xi} sqrt(mu) X_min/(4 n X_max), "
    "which the first term of (28) guarantees on [0, T]. The V_- case is symmetric.",
)

# -- Theorem 1 and the lemmas after t_1 -----------------------------------------------------
ALIGNMENT = Claim(
    id="S001-T1a",
    title="by t_1 every neuron is in its cone (S_+ or S_dead for V_+, S_- or S_dead for V_-)",
    kind=Kind.EVENT_TIME,
    source=Source(SOURCE, "Theorem 1, part 1 (t_1 from the maximal path)", Provenance.OCR),
    statement=sp.Le(t_align, t_1),
    event=sp.And(sp.Le(Unsorted(t), 0), sp.Le(LostNeurons(t), 0)),
    event_time=t_align,
    setting=THEOREM,
    parametrization=CLS,
    definitions=DEFINITIONS,
    measures="first time every neuron is in its trapping cone, with no neuron that started "
    "active on its own class in S_dead",
    flags=(ZETA_FLAG,),
    notes="t_1 = 4 (H_{n_-} + 1/2 + H_{n_+ - 1}) / (min{zeta, xi} sqrt(mu) X_min) <= 16 log n "
    "/ (min{zeta, xi} sqrt(mu) X_min); main text: t_1 = O(log n / sqrt(mu)). A dead neuron "
    "reaches S_dead by (4/(min{zeta, xi} sqrt(mu) X_min)) sum_{k <= n_a(w_j(0))} 1/k. The "
    "LostNeurons part of the event encodes 'if max_{I_+} <w_j(0), x_i> > 0 then w_j(t_1) in "
    "S_+': S_dead traps, so a lost neuron keeps the event from ever happening. " + N4_NOTE,
)

TRAPPING_CONES = Claim(
    id="S001-L12",
    title="S_dead traps every neuron, S_+ traps V_+, S_- traps V_-",
    kind=Kind.TRAPPING,
    source=Source(SOURCE, "Lemma 12", Provenance.VERBATIM),
    statement=sp.Eq(ConeExits(t), 0),
    setting=(SEPARATED, BALANCED),
    parametrization=CLS,
    measures="exits from a cone after entering it",
    notes="Once inside, w_j(t + tau) = w_j(t) plus a positive combination of vectors of +-K.",
)

NORMS_AT_T1 = Claim(
    id="S001-L13",
    title="the sorted neurons keep a fraction exp(-4 n X_max t_1) of their squared norm",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Lemma 13", Provenance.VERBATIM),
    statement=sp.And(
        sp.Ge(NormSqVhatPlus(t), sp.exp(-4 * n * Xmax * t) * NormSqVhatPlus(0)),
        sp.Ge(NormSqVhatMinus(t), sp.exp(-4 * n * Xmax * t) * NormSqVhatMinus(0)),
    ),
    setting=THEOREM,
    parametrization=CLS,
    window=(t_1, t_1),
    definitions=DEFINITIONS,
    measures="sum over V^_+- of ||w_j||^2 at t_1 against its value at 0",
    notes="V^_+- = {j : w_j(t_1) in S_+-}. " + N4_NOTE,
)

NORMS_GROW = Claim(
    id="S001-L14",
    title="after t_1 the squared norms of the sorted neurons do not decrease",
    kind=Kind.TRAPPING,
    source=Source(SOURCE, "Lemma 14", Provenance.VERBATIM),
    statement=sp.And(sp.Ge(sp.Derivative(NormSqVhatPlus(t), t), 0),
                     sp.Ge(sp.Derivative(NormSqVhatMinus(t), t), 0)),
    setting=THEOREM,
    parametrization=CLS,
    window=(t_1, sp.oo),
    definitions=DEFINITIONS,
    measures="d/dt sum_{V^_+-} ||w_j||^2 (exact, from the flow) after t_1",
    notes=N4_NOTE,
)

LINEAR_PL = Claim(
    id="S001-L15",
    title="PL-like inequality of the linear subnetworks: dL_+/dt <= -(1/4)||v_+||^2 L_+^2 "
    "(mu X_min)^2",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Lemma 15 (applied with gamma = mu X_min)", Provenance.OCR),
    statement=sp.And(
        sp.Le(sp.Derivative(LPlus(t), t),
              -NormSqVhatPlus(t) * LPlus(t) ** 2 * (mu * Xmin) ** 2 / 4),
        sp.Le(sp.Derivative(LMinus(t), t),
              -NormSqVhatMinus(t) * LMinus(t) ** 2 * (mu * Xmin) ** 2 / 4),
    ),
    setting=THEOREM,
    parametrization=CLS,
    window=(t_1, sp.oo),
    definitions=DEFINITIONS,
    measures="dL_+-/dt (exact) against the bound, ||v_+-||^2 = sum_{V^_+-} ||w_j||^2",
    notes="Lemma 15: L_lin(W, v) = sum_i l(y_i, v^T W^T x_i) on data with margin gamma "
    "(y_i <z, x_i> >= gamma, z = x_+/||x_+||) decreases at this rate while every y_i "
    "v^T W^T x_i > 0. After t_1 each sorted block acts linearly on its own class. For the "
    "exponential loss the constant 1/4 can be 1 (derived). " + N4_NOTE,
)

ONE_OVER_T = Claim(
    id="S001-T1b",
    title="after t_2 the loss decays like 1/t",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Theorem 1, part 2 (proof form)", Provenance.OCR),
    statement=sp.Le(L(t), L(t_2) / (1 + alpha * L(t_2) * (t - t_2))),
    event=sp.And(sp.Gt(OutPlus(t), QUARTER), sp.Gt(OutMinus(t), QUARTER)),
    event_time=t_2,
    setting=(*THEOREM, KEY_ACTIVE),
    parametrization=CLS,
    window=(t_2, sp.oo),
    definitions=DEFINITIONS,
    measures="L(t) after t_2 against L(t_2)/(1 + alpha L(t_2)(t - t_2)); log-log slope -1",
    flags=(PART_2_FLAG,),
    notes="t_2 = max(t_2^+, t_2^-), t_2^+- = first time max_{I_+-} |f_+-(x_i)| > 1/4; the "
    "event (both above 1/4) gives max(t_2^+, t_2^-) when |f_+-| keep growing. Ingredients: "
    "sum_{V^_+-} ||w_j||^2 >= 1/(4 X_max) after t_2 and L_+^2 + L_-^2 >= L^2/2. " + N4_NOTE,
)

T2_BOUND = Claim(
    id="S001-T1c",
    title="t_2 = O((1/n) log(1/eps)), explicitly eq. (39)",
    kind=Kind.EVENT_TIME,
    source=Source(SOURCE, "Theorem 1, eq. (39)", Provenance.OCR),
    statement=sp.Le(t_2, sp.Max(_bound_t2(n_plus), _bound_t2(n_minus))),
    event=sp.And(sp.Gt(OutPlus(t), QUARTER), sp.Gt(OutMinus(t), QUARTER)),
    event_time=t_2,
    setting=(*THEOREM, KEY_ACTIVE),
    parametrization=CLS,
    definitions=DEFINITIONS,
    measures="t_2 = max(t_2^+, t_2^-) against the larger of the two bounds of eq. (39)",
    flags=(PART_2_FLAG, ZETA_FLAG),
    notes="Eq. (39) bounds t_2^+ by t_1 + 6/(sqrt(mu) n_+ X_min) + (4/(sqrt(mu) n_+ X_min)) "
    "[log(2/(eps^2 sqrt(mu) X_min W_min^2)) + 4 n X_max t_1] and t_2^- likewise; checking "
    "t_2^+ alone is a variant with event OutPlus(t) > 1/4. Main text: Theta((1/n) "
    "log(1/(sqrt(h) eps))). " + N4_NOTE,
)

REFINED_ALIGNMENT = Claim(
    id="S001-F4",
    title="neurons in S_+ stay within cos >= 1/4 of x_+ until t_2^+",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "proof of Theorem 1 (refined alignment)", Provenance.VERBATIM),
    statement=sp.Ge(CosVhatPlus(t), QUARTER),
    event=sp.Gt(OutPlus(t), QUARTER),
    event_time=t_2_plus,
    setting=(*THEOREM, KEY_ACTIVE),
    parametrization=CLS,
    window=(t_1 + 6 / (sp.sqrt(mu) * n_plus * Xmin), t_2_plus),
    definitions=DEFINITIONS,
    measures="min_{j in V^_+} cos(w_j, x_+) over [t_1 + 6/(sqrt(mu) n_+ X_min), t_2^+]",
    notes="Ingredients: d/dt cos(x_+, w_j) >= (1/3 - cos) sqrt(mu) n_+ X_min / 2, "
    "cos(x_+, x~_a) >= 1/3, ||x~_a|| >= sqrt(mu) n_+ X_min / 2. The paper also shows "
    "numerically that cos -> 1 (qualitative). S_- is symmetric. " + N4_NOTE,
)

LOW_RANK = Claim(
    id="S001-T1d",
    title="low-rank bias: ||W||_F^2 <= 2 ||W||_2^2 + 4 sqrt(h) eps W_max^2 after t_1",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "Theorem 1, part 3", Provenance.OCR),
    statement=sp.Le(NormWFrobSq(t), 2 * NormWSpecSq(t) + 4 * sp.sqrt(p) * lam * Wmax**2),
    setting=THEOREM,
    parametrization=CLS,
    window=(t_1, sp.oo),
    definitions=DEFINITIONS,
    measures="||W(t)||_F^2 against 2 ||W(t)||_2^2 + 4 sqrt(h) eps W_max^2",
    notes="||W|| -> infinity as the loss -> 0, so limsup StableRank(t) <= 2 (a slow 1/t "
    "trend). Ingredients: W_+^T W_+ - v_+ v_+^T is constant on the S_+ block; dead neurons "
    "add <= 2 eps W_max^2 |V_dead| / sqrt(h). " + N4_NOTE,
)

RANDOM_INIT = Claim(
    id="S001-F5",
    title="with Gaussian W_0, S_+ is non-empty at t_1 w.p. >= 1 - 2^(-|V_+|)",
    kind=Kind.PROBABILITY,
    source=Source(SOURCE, "consequences of random initialisation (Section 3)",
                  Provenance.VERBATIM),
    statement=sp.And(sp.Ge(PActivePlus, 1 - 2 ** (-NumVPlus)),
                     sp.Ge(PActiveMinus, 1 - 2 ** (-NumVMinus))),
    measures="Monte Carlo frequency (over W_0, signs fixed) that some V_+ neuron starts "
    "active on a positive sample; likewise V_-",
    flags=("[W_0]_ij ~ N(0, 1/D) is read from OCR (THEORY.md section 8.6).",),
    notes="Each V_+ neuron activates some positive sample w.p. >= 1/2 and then reaches S_+ "
    "(Theorem 1): width h = O(1) suffices. S002 needs neurons active on all positives, so "
    "a width exponential in n.",
)

ORTHOGONAL_DATA = Claim(
    id="S001-F6",
    title="orthogonal data (mu = 0): only neurons active on all positives end in S_+",
    kind=Kind.QUALITATIVE,
    source=Source(SOURCE, "App. A.3 (Fig. 9)", Provenance.VERBATIM),
    statement=sp.Eq(NumInSPlus(t), NumSPlus),
    setting=(Assumption("orthogonal inputs", sp.Eq(OffDiagGram, 0), "mu = 0, outside A1"),),
    parametrization=CLS,
    measures="each neuron's initial activation set against its final cone or direction",
    checkable=False,
    not_checkable_reason="an observation from a figure (THEORY class QL): no time or "
    "tolerance is stated",
    notes="Positive neurons can end aligned with x_1, with x_2, or in S_+; fewer neurons "
    "take part than when mu > 0.",
)

SEPARATION_SLOWS = Claim(
    id="S001-F7",
    title="alignment takes longer as mu -> 0: t_1 <~ log n / (min{zeta, xi} sqrt(mu))",
    kind=Kind.SCALING,
    source=Source(SOURCE, "App. A.2", Provenance.VERBATIM),
    statement=sp.Le(t_align, K * sp.log(n) / (MARGIN * sp.sqrt(mu))),
    event=sp.And(sp.Le(Unsorted(t), 0), sp.Le(LostNeurons(t), 0)),
    event_time=t_align,
    setting=(SEPARATED, BALANCED),
    parametrization=CLS,
    definitions=DEFINITIONS,
    parameters={"K": None},
    parameter_notes="K fitted: the check compares the growth of t_align as mu falls.",
    measures="the measured alignment time over a range of mu (e.g. mu = sin 0.1, sin 0.001)",
    flags=(ZETA_FLAG, "The initialisation scale of App. A.1/A.2 is unreadable (presumed "
           "1e-6) (THEORY.md section 8.6)."),
    notes="Observed: with mu = sin(0.001) some live neurons are outside S_+ at iteration "
    "7000, one still at 21000; with mu = sin(0.1) all reach S_+.",
)

DEAD_START = Claim(
    id="S001-F8",
    title="a neuron starting in S_dead never moves (App. E examples)",
    kind=Kind.CONSERVED,
    source=Source(SOURCE, "App. E.3-E.4", Provenance.VERBATIM),
    statement=sp.Eq(ParamDrift(t), 0),
    setting=(Assumption("every neuron starts dead", sp.Eq(NumAliveInit, 0),
                        "<w_j(0), x_i> <= 0 for every i and j (E.3/E.4: x = (1, 0), "
                        "w(0) = (0, 1))"),),
    parametrization=CLS,
    measures="||theta(t) - theta(0)|| on E.3 (y = -1) and E.4 (y = +1)",
    notes="With relu'(0) = a > 0, E.3 has no Caratheodory solution; with relu'(0) = 0 the "
    "constant solution exists. E.4 also has solutions leaving at any t_0, which Definition 1 "
    "excludes: gradient descent and the exact flow must keep the neuron still.",
)

TWO_PHASES = Claim(
    id="S001-F9",
    title="training both layers from a small initialisation starts with an alignment phase: "
    "directions change, norms do not",
    kind=Kind.POINTWISE,
    source=Source(SOURCE, "App. A.5 (Figs. 12-13)", Provenance.VERBATIM),
    statement=sp.And(sp.Le(NormChange(t), sp.Rational(1, 100)), sp.Ge(DirChange(t), 1)),
    setting=(Assumption("mean loss (E-001-3)", sp.Eq(LossScale * n, 1),
                        "L = (1/n) sum_i l(y_i, f(x_i)), as E-001-1 and E-001-3 normalise it; "
                        "the thresholds are stated for that scale"),),
    parametrization=CLS,
    loss_scale=1 / n,  # the mean loss: a run of the summed loss is read at times / n
    window=(sp.Integer(0), sp.Integer(4)),  # t <= 4: 2000 iterations at eta = 2e-3
    measures="direction change sum_j ||(I - w^ w^T)(-grad_{w_j} L)||/||w_j|| and norm change "
    "sum_j |<-grad_{w_j} L, w^_j>| (the full gradient at each saved state) over the first 2000 "
    "iterations of E-001-3: centred 8x8 digits 0/1, mean exponential loss, h = 50, "
    "alpha = 1e-6 (I-001-exp), minibatch SGD at eta = 2e-3 with batches of n/6",
    notes="Made operational with thresholds of ours (the paper shows curves): over the first "
    "2000 iterations (E-001-1's alignment reading point) the norm changes stay <= 1/100 and "
    "the direction changes >= 1. Measured: norm changes 4e-6 to 6e-4, direction changes 4 to "
    "11. Training W alone (v = +-1 fixed) has norm changes ~4 from the first step: its run "
    "is outside the claim (layers), and the claim stated for it, S001-F9~first-layer, is a "
    "mutant that must be VIOLATED. The MNIST runs' batch 2000 of 12,665 samples is scaled "
    "to n/6 of the digits.",
    flags=("The loss of the MNIST experiments is not stated (THEORY.md section 8.6); the "
           "mean loss of E-001-1 is used.",),
)

CLAIMS = (
    REGULAR, BALANCEDNESS, ASSUMPTION_1, CONES, ASSUMPTION_2, LOSS_DERIVATIVE, EARLY_NORMS,
    DIRECTION_ERROR, APPROXIMATE_ODE, COHERENCE, CAP_MARGIN, OUTSIDE_MARGIN, PSI_DYNAMICS,
    XA_NORM, PATTERN_MONOTONE, DWELL_TIME, ALIGNMENT, TRAPPING_CONES, NORMS_AT_T1, NORMS_GROW,
    LINEAR_PL, ONE_OVER_T, T2_BOUND, REFINED_ALIGNMENT, LOW_RANK, RANDOM_INIT,
    ORTHOGONAL_DATA, SEPARATION_SLOWS, DEAD_START, TWO_PHASES,
)
