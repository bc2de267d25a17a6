"""BF25: Boursier, Flammarion, "Early Alignment in Two-Layer Networks Training is a Two-Edged
Sword" (JMLR 26(183), 2025; arXiv 2401.10791).

Setting shared by the claims: h(x) = sum_j a_j relu(<w_j, x>) with a hidden bias through
x~ = (x, 1) (the paper's section 2; `papers.bf25.data`), the loss
L = (1/(2n)) sum_k (h(x_k) - y_k)^2 (ell = (1/2)(yhat - y)^2, Eq. (10): gfverify's square
loss with loss_scale 1), gradient flow with relu'(0) = 0, and Eq. (3)'s initialisation
(a_j, w_j) = (lam/sqrt(m)) (a~_j, w~_j) with |a~_j| >= |w~_j| (Eq. (4)). Locations are
"Section n, p. N" with N the journal page; IDs follow the catalogue the pack was written
from (docs/papers/bf25.md): T theorem, L lemma, A assumption, C condition, F unnumbered
or derived fact. A statement checked in parts keeps its ID for the first part and adds b,
c for the others.

**The paper's lambda.** Eq. (5) asks (1/k) sum_{j<=k} a~_j^2 <= 1 for every k, which the
paper's own Gaussian draw (a~_j = |w~_j|, mean a~^2 = 2) does not meet; the paper remarks
(p. 4) that lambda sets the scale of a_j^0, so any draw can be brought under Eq. (5). The
claims therefore use
`LamEff` = lam sqrt(max(1, Eq5Ratio)), the scale at which the draw meets Eq. (5), wherever
the theorems say lambda (tau, lam^(+-2 eps), the thresholds). Where Eq. (5) holds it is lam.

**Thresholds.** Theorem 1's lambda*_alpha0 is explicit (Eq. (21)): `LamStarBase` is its base
at alpha0 = 1 (computed exactly from the activation cones), lambda* = base^(1/(2 - 4 eps)).
Theorem 2's lambda~ = Theta(1) is not given. Its proof applies Theorem 1 in phase 1
(Lemma 4), so lambda~ <= lambda*_alpha0(eps) for the eps used there; the surrogate
hypothesis `LAM_T2` asks lam < sup_eps lambda*(eps) = sqrt(base), a necessary condition the
claims are INAPPLICABLE without. It is not sufficient: a VIOLATED verdict inside it would
first say that lambda~ is smaller still (none was found on the pack's instances).

Length: declarative claim records, one per entry of the catalogue (nothing here computes).
"""

from __future__ import annotations

import sympy as sp

from theory.claim import Assumption, Claim, Kind, Provenance, Source
from theory.symbols import (
    Balance,
    FieldGap,
    L,
    LossScale,
    NumVPlusActive,
    SignFlips,
    Term,
    Xmax,
    c_hi,
    d,
    eps,
    lam,
    n,
    p,
    t,
    tol,
)

# -- the pack's vocabulary ------------------------------------------------------------------
Dmax = sp.Symbol("Dmax", positive=True)
DMin = sp.Symbol("DMin", nonnegative=True)
AlphaMin = sp.Symbol("AlphaMin", nonnegative=True)
Delta0 = sp.Symbol("Delta0", nonnegative=True)
LamStarBase = sp.Symbol("LamStarBase", nonnegative=True)
L2Margin = sp.Symbol("L2Margin", nonnegative=True)
NumExtremal = sp.Symbol("NumExtremal", nonnegative=True, integer=True)
DStarActiveMin = sp.Symbol("DStarActiveMin", real=True)
LossLS = sp.Symbol("LossLS", nonnegative=True)
A3Eta = sp.Symbol("A3Eta", nonnegative=True)
A4Holds = sp.Symbol("A4Holds", nonnegative=True, integer=True)
A5Margin = sp.Symbol("A5Margin", real=True)
A6Margin = sp.Symbol("A6Margin", real=True)
NumDescentPlus = sp.Symbol("NumDescentPlus", nonnegative=True, integer=True)
NumDescentMinus = sp.Symbol("NumDescentMinus", nonnegative=True, integer=True)
TwoNeuronFit = sp.Symbol("TwoNeuronFit", nonnegative=True, integer=True)
DeadConeFrac = sp.Symbol("DeadConeFrac", nonnegative=True)
Eq4Holds = sp.Symbol("Eq4Holds", nonnegative=True, integer=True)
Eq5Ratio = sp.Symbol("Eq5Ratio", positive=True)
LamEff = sp.Symbol("LamEff", positive=True)
PNoLivePlus = sp.Symbol("PNoLivePlus", nonnegative=True)
LossInf = sp.Symbol("LossInf", nonnegative=True)
OLSGapInf = sp.Symbol("OLSGapInf", nonnegative=True)
BundleGapInf = sp.Symbol("BundleGapInf", nonnegative=True)
MixedInf = sp.Symbol("MixedInf", nonnegative=True)
GradNormSqInf = sp.Symbol("GradNormSqInf", nonnegative=True)
Cond1Cos = sp.Symbol("Cond1Cos", real=True)
OLSPointGrad = sp.Symbol("OLSPointGrad", nonnegative=True)
DStarNorm = sp.Symbol("DStarNorm", positive=True)
tau = sp.Symbol("tau", positive=True)
alpha0 = sp.Symbol("alpha0", positive=True)

AGrowthMax = sp.Function("AGrowthMax")
AGrowthMin = sp.Function("AGrowthMin")
NormOverOut = sp.Function("NormOverOut")
PosGrowthMin = sp.Function("PosGrowthMin")
PosGrowthMax = sp.Function("PosGrowthMax")
NegGrowthMax = sp.Function("NegGrowthMax")
FrozenDrift = sp.Function("FrozenDrift")
DeadDrift = sp.Function("DeadDrift")
NormLogGrowth = sp.Function("NormLogGrowth")
OLSGap = sp.Function("OLSGap")
BundleGap = sp.Function("BundleGap")
MixedSize = sp.Function("MixedSize")
DStarDefect = sp.Function("DStarDefect")
ReluGap = sp.Function("ReluGap")
DirectionSpread = sp.Function("DirectionSpread")

TERMS = (
    Term("Dmax", Dmax, "instance",
         "BF25's D_max = max_w |D(w, 0)|, the largest |D_u| over the activation cones "
         "(exact in d = 2)"),
    Term("DMin", DMin, "instance",
         "BF25's D_min (Eq. (22)): min over patterns u with 0 not in 𝔇_u of min |D| in 𝔇_u"),
    Term("AlphaMin", AlphaMin, "instance",
         "BF25's alpha_min = min(alpha_min,+, alpha_min,-) of Eqs. (23)-(24)"),
    Term("Delta0", Delta0, "instance",
         "BF25's delta_0 = min(delta_0', delta_0'') of Eq. (20) (inf when no pattern counts)"),
    Term("LamStarBase", LamStarBase, "instance",
         "the base of BF25's Eq. (21) at alpha0 = 1: lambda*_1 = LamStarBase^(1/(2 - 4 eps))"),
    Term("L2Margin", L2Margin, "instance",
         "distance from BF25 Lemma 2's degenerate cases: smallest angle between +-D_u and a "
         "boundary ray of its open cone, and smallest |sin| between two y_k x_k (d = 2)"),
    Term("NumExtremal", NumExtremal, "instance",
         "number of distinct extremal directions (BF25 Definition 1) over the activation "
         "patterns, the critical points of G"),
    Term("DStarActiveMin", DStarActiveMin, "instance",
         "min_k cos(D*, x_k), D* = (1/n) sum y_k x_k (> 0: D* activates every sample)"),
    Term("LossLS", LossLS, "instance",
         "L_LS = (1/(2n)) sum (y_k - <beta*, x_k>)^2, beta* = (X^T X)^-1 X^T y (BF25 Thm 2)"),
    Term("A3Eta", A3Eta, "instance",
         "least eta for which the data (in their order) lie in BF25 Assumption 3's box; "
         "inf when no eta does"),
    Term("A4Holds", A4Holds, "instance",
         "1 if BF25 Assumption 4 holds: <x_k, x_k'> > 0, y_k > 0, n >= d, any d of the x_k "
         "independent; else 0"),
    Term("A5Margin", A5Margin, "instance",
         "min over k in K of y_k |x_k|^2 - |y| (sum_{k' != k} <x_k', x_k>^2)^(1/2) "
         "(> 0: BF25 Assumption 5)"),
    Term("A6Margin", A6Margin, "instance",
         "min over k in K of y_k - <beta*, x_k> (> 0: BF25 Assumption 6, whole for n = 3)"),
    Term("NumDescentPlus", NumDescentPlus, "instance",
         "open cones (some samples active, some not) where a small positive neuron added at "
         "the OLS point lowers the loss (derived, catalogue BF25-F2b)"),
    Term("NumDescentMinus", NumDescentMinus, "instance",
         "the same for a small negative neuron"),
    Term("TwoNeuronFit", TwoNeuronFit, "instance",
         "1 if two positive ReLU neurons interpolate the three samples (constructed), else 0"),
    Term("DeadConeFrac", DeadConeFrac, "instance",
         "fraction of directions w with <w, x_k> <= 0 for every k (d = 2)"),
    Term("Eq4Holds", Eq4Holds, "instance", "1 if |a_j(0)| >= |w_j(0)| for every j (BF25 Eq. (4))"),
    Term("Eq5Ratio", Eq5Ratio, "instance",
         "max_k (1/k) sum_{j<=k} a~_j^2, a~_j = sqrt(m) a_j(0)/lam (BF25 Eq. (5) asks <= 1)"),
    Term("LamEff", LamEff, "instance",
         "lam sqrt(max(1, Eq5Ratio)): the scale at which the draw meets BF25's Eq. (5)"),
    Term("PNoLivePlus", PNoLivePlus, "run",
         "probability over the initialisation that no positive neuron is active on a sample "
         "at t = 0 (BF25's I is empty)"),
    Term("LossInf", LossInf, "run", "lim L(t), read at the end of a run (BF25 Thm 2)"),
    Term("OLSGapInf", OLSGapInf, "run", "lim OLSGap(t), read at the end of a run"),
    Term("BundleGapInf", BundleGapInf, "run", "lim BundleGap(t), read at the end of a run"),
    Term("MixedInf", MixedInf, "run", "lim MixedSize(t), read at the end of a run"),
    Term("GradNormSqInf", GradNormSqInf, "run", "lim |grad L|^2, read at the end of a run"),
    Term("Cond1Cos", Cond1Cos, "instance",
         "min_j <D(w_j(0), 0), w_j(0)/a_j(0)>/|D(w_j(0), 0)| over the neurons with "
         "D(w_j(0), 0) != 0 (BF25 Condition 1 (1) holds for every neuron iff > "
         "-sqrt(1 - alpha0^2))"),
    Term("DStarNorm", DStarNorm, "instance", "|D*|, D* = (1/n) sum_k y_k x_k"),
    Term("OLSPointGrad", OLSPointGrad, "instance",
         "|grad L| at the OLS bundle point (one balanced neuron with a w = beta*, the others 0) "
         "relative to the size of its terms, 0 below their rounding (derived, BF25-F2a)"),
    Term("tau", tau, "constant", "BF25's tau = -eps ln(lam)/D_max, end of early alignment"),
    Term("alpha0", alpha0, "parameter", "BF25's alpha0 of Condition 1 and lambda*_alpha0"),
    Term("AGrowthMax", AGrowthMax, "trajectory", "max_j |a_j(t)|/|a_j(0)|"),
    Term("AGrowthMin", AGrowthMin, "trajectory", "min_j |a_j(t)|/|a_j(0)|"),
    Term("NormOverOut", NormOverOut, "trajectory", "max_j |w_j(t)|/|a_j(t)|"),
    Term("PosGrowthMin", PosGrowthMin, "trajectory",
         "min over BF25's I (a_j(0) > 0, active on a sample at t = 0) of a_j(t)/a_j(0)"),
    Term("PosGrowthMax", PosGrowthMax, "trajectory", "max over BF25's I of a_j(t)/a_j(0)"),
    Term("NegGrowthMax", NegGrowthMax, "trajectory",
         "max over the negative neurons active on a sample at t = 0 of |a_j(t)|/|a_j(0)| (0 "
         "if none; the others are frozen)"),
    Term("FrozenDrift", FrozenDrift, "trajectory",
         "max over positive neurons inactive on every sample at t = 0 of |theta_j(t) - "
         "theta_j(0)|"),
    Term("DeadDrift", DeadDrift, "trajectory",
         "max over neurons dead (no sample active) at some s <= t of |theta_j(t) - theta_j(s)|"),
    Term("NormLogGrowth", NormLogGrowth, "trajectory",
         "max_j ln(N_j(t)/N_j(0)), N_j = max(|a_j|, |w_j|)"),
    Term("OLSGap", OLSGap, "trajectory", "max_k |h(x_k) - <beta*, x_k>|"),
    Term("BundleGap", BundleGap, "trajectory",
         "|sum_{j active on every sample} a_j w_j - beta*|"),
    Term("MixedSize", MixedSize, "trajectory",
         "max_j min(max_k <w_j, x^_k>_+, max_k <w_j, x^_k>_-): 0 when every neuron is active on "
         "all samples or on none"),
    Term("DStarDefect", DStarDefect, "trajectory",
         "max over BF25's I of |D*| - <D*, w_j(t)/a_j(t)> (0: aligned with D*)"),
    Term("ReluGap", ReluGap, "trajectory",
         "max over unit x of |h(x) - <beta*, x>_+| (d = 2, exact: BF25 Theorem 4's limit)"),
    Term("DirectionSpread", DirectionSpread, "trajectory",
         "sigma_2/sigma_1 of the rows (|a_j| |w_j|)^(1/2) w_j/|w_j|: 0 when the network is one "
         "neuron's direction (BF25 section 6)"),
)
LATEX_NAMES = {
    "Dmax": r"D_{\max}", "DMin": r"D_{\min}", "AlphaMin": r"\alpha_{\min}",
    "Delta0": r"\delta_0", "LamStarBase": r"\lambda^*_{\mathrm{base}}",
    "L2Margin": r"\mathrm{margin}_{\mathrm{L2}}", "NumExtremal": r"\#\mathrm{extremal}",
    "DStarActiveMin": r"\min_k \cos(D^*, x_k)", "LossLS": r"L_{\mathrm{LS}}",
    "A3Eta": r"\eta_{\mathrm{A3}}", "A4Holds": r"\mathbb{1}[\mathrm{A4}]",
    "A5Margin": r"\mathrm{margin}_{\mathrm{A5}}", "A6Margin": r"\mathrm{margin}_{\mathrm{A6}}",
    "NumDescentPlus": r"\#\mathrm{descent}_+", "NumDescentMinus": r"\#\mathrm{descent}_-",
    "TwoNeuronFit": r"\mathbb{1}[\mathrm{2\,neurons\ fit}]", "DeadConeFrac": "q",
    "Eq4Holds": r"\mathbb{1}[(4)]", "Eq5Ratio": r"\max_k \tfrac1k \sum_{j \le k} \tilde a_j^2",
    "LamEff": r"\lambda", "PNoLivePlus": r"P(I = \emptyset)",
    "LossInf": r"L(\theta^\infty)", "OLSGapInf": r"\max_k |h_{\theta^\infty}(x_k) - "
    r"\langle \beta^*, x_k \rangle|", "BundleGapInf": r"\|\textstyle\sum a^\infty_j "
    r"w^\infty_j - \beta^*\|", "MixedInf": r"\mathrm{mixed}(\theta^\infty)",
    "GradNormSqInf": r"\|\nabla L(\theta^\infty)\|^2", "tau": r"\tau",
    "AGrowthMax": r"\max_j |a_j(t)|/|a_j(0)|", "AGrowthMin": r"\min_j |a_j(t)|/|a_j(0)|",
    "NormOverOut": r"\max_j \|w_j(t)\|/|a_j(t)|",
    "PosGrowthMin": r"\min_{j \in I} a_j(t)/a_j(0)",
    "PosGrowthMax": r"\max_{j \in I} a_j(t)/a_j(0)",
    "NegGrowthMax": r"\max_{j \in N} |a_j(t)|/|a_j(0)|",
    "FrozenDrift": r"\max_{j \notin I \cup N} \|\theta_j(t) - \theta_j(0)\|",
    "DeadDrift": r"\mathrm{drift}_{\mathrm{dead}}(t)",
    "NormLogGrowth": r"\max_j \ln \tfrac{N_j(t)}{N_j(0)}",
    "OLSGap": r"\max_k |h(x_k) - \langle \beta^*, x_k \rangle|(t)",
    "BundleGap": r"\|\textstyle\sum_{j \in A(t)} a_j w_j - \beta^*\|(t)",
    "MixedSize": r"\mathrm{mixed}(t)",
    "DStarDefect": r"\max_{j \in I} (\|D^*\| - \langle D^*, w_j/a_j \rangle)(t)",
    "ReluGap": r"\max_{\|x\| = 1} |h(x) - \langle \beta^*, x \rangle_+|(t)",
    "DirectionSpread": r"\sigma_2/\sigma_1(t)",
    "OLSPointGrad": r"\|\nabla L(\theta_{\mathrm{OLS}})\|", "DStarNorm": r"\|D^*\|",
    "Cond1Cos": r"\min_j \cos(D(w_j^0, 0), w_j^0/a_j^0)", "alpha0": r"\alpha_0",
}
PAPER_LATEX_NAMES = {"BF25": {"p": "m"}}

SOURCE = "BF25"
EPS = sp.Rational(1, 4)
EPS_NOTE = ("eps = 1/4, a value in the theorem's range (0, 1/3) (the statement holds for every "
            "such eps with lam below lambda*(eps)); with_parameters(eps=...) checks another")

# -- hypotheses -----------------------------------------------------------------------------
LOSS_A1 = Assumption(
    "A1 loss", sp.Le(LossScale, 1),
    "ell(yhat, y) = (c/2)(yhat - y)^2 with c <= 1: its derivative is c-Lipschitz (Assumption "
    "1 asks 1-Lipschitz) and d_1 ell(0, y) = -c y != 0 for y != 0")
GENERIC = Assumption(
    "A2, deterministic form", sp.And(sp.Gt(L2Margin, 0), sp.Gt(AlphaMin, 0), sp.Gt(DMin, 0),
                                     sp.Gt(Delta0, 0)),
    "Lemmas 2, 9 and 10 hold on the instance: Theorem 1 holds without Assumption 2 where "
    "they (and Lemma 11, which follows from Lemma 2 and delta_0 > 0) do (p. 9)")
NO_SADDLE = Assumption("G has no saddle point (d <= 2)", sp.Le(d, 2),
                       "Lemma 15: in dimension 2 every stationary point of G is a local "
                       "extremum (its Assumption 7 holds for data drawn with a density)")
EQ4 = Assumption("Eq. (4)", sp.Eq(Eq4Holds, 1), "|a_j(0)| >= |w_j(0)| for every neuron j")
LAM_T1 = Assumption(
    "lam < lambda*_1 (Eq. (21))", sp.Lt(LamEff, LamStarBase ** (1 / (2 - 4 * eps))),
    "the effective scale (Eq. (5) met) below Theorem 1's explicit threshold at alpha0 = 1 "
    "(for alpha0 >= alpha_min/sqrt 2 the threshold does not depend on alpha0)")
LAM_T2 = Assumption(
    "lam < lambda~ (surrogate)", sp.Lt(LamEff, sp.sqrt(LamStarBase)),
    "lam below sup_eps lambda*_1(eps) = LamStarBase^(1/2): Theorem 2's lambda~ = Theta(1) is "
    "not given, and its phase 1 (Lemma 4) applies Theorem 1, so lambda~ is at most this "
    "(a necessary condition, not a sufficient one)")
A3 = Assumption("A3 with eta < 1/6", sp.Lt(A3Eta, sp.Rational(1, 6)),
                "the three points lie in Assumption 3's box for some eta < 1/6")
A4 = Assumption("A4", sp.Eq(A4Holds, 1),
                "<x_k, x_k'> > 0 and y_k > 0 for all k, k'; n >= d; any d of the x_k independent")
A5 = Assumption("A5", sp.Gt(A5Margin, 0), "Assumption 5 (App. A) on the extreme points K")
A6 = Assumption("A6 (three points)", sp.And(sp.Eq(n, 3), sp.Gt(A6Margin, 0)),
                "y_k > <beta*, x_k> for k in K (for three points the whole of Assumption 6, "
                "p. 28)")
I_NONEMPTY = Assumption(
    "I non-empty (implicit)", sp.Ge(NumVPlusActive, 1),
    "some positive neuron is active on a sample at t = 0: Lemma 5's phase 2 grows the neurons "
    "of I, and with I empty the network never leaves 0 (the theorem does not say so)")
T1_SETTING = (LOSS_A1, GENERIC, NO_SADDLE, EQ4, LAM_T1)
T2_SETTING = (A3, EQ4, LAM_T2, I_NONEMPTY)
ALWAYS = (sp.Integer(0), sp.oo)
STATIC = (sp.Integer(0), sp.Integer(0))
TAU = -eps * sp.log(LamEff) / Dmax


def _src(where: str, provenance: Provenance = Provenance.VERBATIM) -> Source:
    return Source(SOURCE, where, provenance)


def _listed(cid: str, title: str, where: str, reason: str, statement, *,
            provenance: Provenance = Provenance.VERBATIM, **kw) -> Claim:
    """A statement gfverify lists but does not check (with the reason)."""
    return Claim(id=cid, title=title, kind=Kind.QUALITATIVE, source=_src(where, provenance),
                 statement=statement, checkable=False, not_checkable_reason=reason, **kw)


def _static(cid: str, title: str, where: str, statement, measures: str, *, setting=(),
            provenance: Provenance = Provenance.VERBATIM, **kw) -> Claim:
    """A statement about the instance alone (no time), decided once per instance."""
    return Claim(id=cid, title=title, kind=Kind.POINTWISE, source=_src(where, provenance),
                 statement=statement, setting=setting, window=STATIC, loss="square",
                 measures=measures, **kw)


def _run(cid: str, title: str, where: str, statement, measures: str, *, kind=Kind.POINTWISE,
         setting=T1_SETTING, window=ALWAYS, provenance: Provenance = Provenance.VERBATIM,
         **kw) -> Claim:
    """A statement along a run of the flow (standard network, square loss)."""
    return Claim(id=cid, title=title, kind=kind, source=_src(where, provenance),
                 statement=statement, setting=setting, parametrization="standard",
                 loss="square", window=window, measures=measures, **kw)


def _limit(cid: str, title: str, where: str, statement, measures: str, *,
           setting=T2_SETTING, provenance: Provenance = Provenance.VERBATIM, **kw) -> Claim:
    """A statement about t -> infinity, checked on a run's limit estimate
    (`papers.bf25.measures.limit_estimate`)."""
    return Claim(id=cid, title=title, kind=Kind.IDENTITY, source=_src(where, provenance),
                 statement=statement, setting=setting, parametrization="standard",
                 loss="square", measures=measures, **kw)


def _rate(cid: str, title: str, where: str, statement, measures: str, *, setting,
          provenance: Provenance = Provenance.VERBATIM, **kw) -> Claim:
    """An O(lam^...) without constant or a limit lam -> 0, checked along runs with lam
    decreasing geometrically (`verify.engine.check_limit`)."""
    return Claim(id=cid, title=title, kind=Kind.LIMIT, source=_src(where, provenance),
                 statement=statement, setting=setting, parametrization="standard",
                 loss="square", measures=measures, **kw)


_TAU_DEF = {tau: TAU}
_EPS = {"eps": EPS}

# -- section 1: the contributions --------------------------------------------------------------
F0 = _listed(
    "BF25-F0", "early alignment quantified; small initialisation can end at a spurious point",
    "Abstract, p. 1; Section 1 (Contributions), p. 3",
    "the summary of the paper's results: its quantitative content is Theorems 1 and 2 "
    "(BF25-T1, BF25-T2 and their parts)", sp.Gt(LossInf, 0))

# -- section 2-3: setting, balancedness, alignment ---------------------------------------------
ASSUMPTION_1 = _listed(
    "BF25-A1", "the loss: differentiable, 1-Lipschitz derivative, d_1 ell(0, y) != 0",
    "Section 2, Assumption 1, p. 4",
    "a hypothesis on the loss: the claims that need it evaluate it on every instance (A1 loss: "
    "the square loss (c/2)(yhat - y)^2 with c <= 1)", LOSS_A1.statement,
    notes="ell = (1/2)(yhat - y)^2 satisfies it (derivative yhat - y); the plain (yhat - y)^2 "
    "that section 2 also names (and the authors' torch MSELoss) has a 2-Lipschitz derivative.")
ASSUMPTION_2 = _listed(
    "BF25-A2", "data drawn with a density on R^(d+1)", "Section 3, Assumption 2, p. 6",
    "a distributional hypothesis: on a given instance its consequences are checked instead "
    "(Lemmas 2, 9 and 10, BF25-L2, L9, L10), as the paper allows (p. 9)", GENERIC.statement)
BALANCEDNESS = _run(
    "BF25-L1", "a_j^2 - |w_j|^2 is conserved and a_j keeps its sign",
    "Section 3, Lemma 1, p. 6 (signs: the sentence after it)",
    sp.And(sp.Eq(Balance(t), 0), sp.Eq(SignFlips(t), 0)),
    "c_j(t) = a_j^2 - |w_j|^2 against c_j(0); sign a_j(t) against sign a_j(0)",
    kind=Kind.CONSERVED, setting=(EQ4,),
    notes="The conservation holds for any flow; the signs need Eq. (4) (|a_j| >= |w_j| > 0).")
LAYER_ODES = _run(
    "BF25-D1", "the flow neuron by neuron: dw_j/dt = a_j D_j, da_j/dt = <w_j, D_j>",
    "Section 3, Eq. (6), p. 5",
    sp.Eq(FieldGap(t), 0),
    "the simulated velocity against Eq. (6) with D_j = (1/n) sum_k 1{<w_j, x_k> > 0} "
    "(y_k - h(x_k)) x_k (the minimal-norm element off ties; S002's FieldGap, the same ODE)",
    kind=Kind.IDENTITY, setting=(LOSS_A1,))
LEMMA_2 = _static(
    "BF25-L2", "no subgradient set touches its cone's boundary; any d of the y_k x_k independent",
    "Section 3, Lemma 2, p. 6", sp.Gt(L2Margin, 0),
    "the smallest angle between +-D_u and a boundary ray of its open cone, and the smallest "
    "|sin| between two y_k x_k, over the exactly enumerated cones (d = 2)",
    notes="Almost surely under Assumptions 1-2; on an instance, a property of the data. "
    "Rays and the origin cannot fail (their manifold boundary is {0}).")
LEMMA_3 = _static("BF25-L3", "an extremal vector exists", "Section 3, Lemma 3, p. 6",
                  sp.Ge(NumExtremal, 1), "the extremal directions of the enumerated cones")
CONDITION_1 = _listed(
    "BF25-C1", "Condition 1: the neuron starts away from -D and never leaves 0 once at 0",
    "Section 3, Condition 1, p. 7",
    "a condition on a neuron, not a claim: Theorem 1(ii) applies to the neurons that meet it; "
    "part 2 is automatic with relu'(0) = 0 and a balanced start (Remark 2)",
    sp.Gt(Cond1Cos, -sp.sqrt(1 - alpha0**2)), parameters={"alpha0": sp.Rational(1, 2)},
    parameter_notes="alpha0 is the theorem's free constant; 1/2 is an example value.")
NORM_SANDWICH = _run(
    "BF25-T1", "early phase: |a_j(0)| lam^(2 eps) <= |a_j(t)| <= |a_j(0)| lam^(-2 eps) up to tau",
    "Section 3, Theorem 1 (i), p. 7; proof App. D.3, p. 39",
    sp.And(sp.Le(AGrowthMax(t), LamEff ** (-2 * eps)), sp.Ge(AGrowthMin(t), LamEff ** (2 * eps))),
    "max_j and min_j |a_j(t)|/|a_j(0)| on [0, tau], tau = -eps ln(lam)/D_max, D_max exact",
    window=(sp.Integer(0), tau), definitions=_TAU_DEF, parameters=_EPS,
    parameter_notes=EPS_NOTE,
    notes="lam is LamEff (Eq. (5) met; the module docstring). The proof's Gronwall bound is "
    "|a_j(t)| <= |a_j(0)| exp(t (D_max + lam^(2-4eps) sum |x_k|^2/n)): the factor 2 in the "
    "exponent is room for the h term.")
NORM_DOMINATION = _run(
    "BF25-T1b", "early phase: |w_j(t)| <= |a_j(t)| up to tau",
    "Section 3, Theorem 1 (i), p. 7", sp.Le(NormOverOut(t), 1),
    "max_j |w_j(t)|/|a_j(t)| on [0, tau]", window=(sp.Integer(0), tau), definitions=_TAU_DEF,
    parameters=_EPS, parameter_notes=EPS_NOTE,
    notes="With Lemma 1 it holds for every t. On a balanced start |w_j| = |a_j| exactly (an "
    "equality float64 cannot decide as an inequality): the pack's tests decide it on a "
    "dominated start, a_j = s_j 1.5 |w_j|.")
ALIGNMENT = _rate(
    "BF25-T1c", "at tau each neuron of Condition 1 is aligned with an extremal vector or dead",
    "Section 3, Theorem 1 (ii), p. 7",
    sp.Le(DStarDefect(t), c_hi * LamEff ** (eps * DStarNorm / Dmax)),
    "|D*| - <D*, w_j/a_j> over I at tau = -eps ln(LamEff)/D_max, on runs with lam decreasing "
    "geometrically: its exponent in LamEff against eps |D*|/D_max", setting=T1_SETTING,
    window=(tau, tau), definitions=_TAU_DEF,
    parameters={**_EPS, "c_hi": None}, parameter_notes=EPS_NOTE + "; c_hi is the O()'s "
    "constant, not given", notes="Written for Assumption 4 data, whose only extremal vector "
    "is D* (the exponent eps |D(w_j(tau), 0)|/D_max with D(w_j(tau), 0) = D* for an aligned "
    "neuron; |D*| = D_max on the section 5 data); in general D(w_j(tau), 0) per neuron. "
    "Derived: a balanced neuron turns towards D* with cos = tanh(artanh cos_0 + |D*| t), so "
    "the defect is about 2 |D*| exp(-2 |D*| tau) = 2 |D*| lam^(2 eps |D*|/D_max): twice the "
    "claimed exponent.")
LEMMA_9 = _static("BF25-L9", "alpha_min > 0 and D_min > 0", "App. D.2, Lemma 9, p. 37",
                  sp.And(sp.Gt(AlphaMin, 0), sp.Gt(DMin, 0)),
                  "Eqs. (22)-(24) computed exactly over the cones (d = 2)",
                  notes="Almost surely under Assumption 2; Assumption 4 implies it (App. F.1).")
LEMMA_10 = _static("BF25-L10", "delta_0 > 0", "App. D.2, Lemma 10, p. 37", sp.Gt(Delta0, 0),
                   "Eq. (20) computed exactly over the cones (d = 2)")
LEMMA_11 = _listed(
    "BF25-L11", "near h = 0 the patterns keep their subgradient sets' type",
    "App. D.2, Lemma 11, p. 38",
    "a statement about every theta near h = 0, not a run; its first part (a dead neuron has "
    "zero velocity) is checked on runs as BF25-F1f", sp.Eq(DeadDrift(t), 0))
LEMMA_15 = _listed(
    "BF25-L15", "in dimension 2, G has no saddle point", "App. E.3, Lemma 15, p. 52",
    "a property of the function G that the pack does not compute; it makes d <= 2 the "
    "'no saddle' hypothesis of BF25-T1", sp.Le(d, 2))
ASSUMPTION_7 = _listed(
    "BF25-A7", "y_k <x_k'/|x_k'|, x_k> has a density", "App. E.3, Assumption 7, p. 52",
    "a distributional hypothesis (of Lemma 15)", sp.Le(d, 2))
THEOREM_3 = _listed(
    "BF25-T3", "alignment with saddles: the same norm bounds; Condition 2 neurons aligned",
    "App. E, Theorem 3, p. 49",
    "its part (i) is BF25-T1's statement at the same threshold (lambda*_1), checked as "
    "BF25-T1; its part (ii) has an unspecified O() (class SL)",
    NORM_SANDWICH.statement)
CONDITION_2 = _listed("BF25-C2", "Condition 2 (for Theorem 3)", "App. E, Condition 2, p. 49",
                      "a condition on a neuron and the flow's solution, not a claim",
                      sp.Gt(Cond1Cos, 0), notes="Its part (1) for every neuron; part (2) is "
                      "about the solution's choices on the cones' boundaries.")

# -- section 4: the three-point example ---------------------------------------------------------
ASSUMPTION_3 = _listed(
    "BF25-A3", "three points in a box around (-1,1), (0,1), (1,1) with labels 1, ~0, 1",
    "Section 4, Assumption 3, p. 11",
    "a hypothesis: evaluated on every instance of the claims that assume it (A3Eta < 1/6)",
    A3.statement)
ASSUMPTION_4 = _listed("BF25-A4", "positively correlated inputs, positive labels",
                       "App. A, Assumption 4, p. 28",
                       "a hypothesis, evaluated where assumed (A4Holds)", A4.statement)
ASSUMPTION_5 = _listed("BF25-A5", "the extreme points' labels dominate their correlations",
                       "App. A, Assumption 5, p. 28",
                       "a hypothesis, evaluated where assumed (A5Margin)", A5.statement)
ASSUMPTION_6 = _listed("BF25-A6", "adding a negative neuron to the OLS fit only hurts",
                       "App. A, Assumption 6, p. 28",
                       "a hypothesis, evaluated where assumed (A6Margin)", A6.statement)
LEMMA_8 = _static(
    "BF25-L8", "Assumption 3 with eta < 1/6 implies Assumptions 4, 5 and 6",
    "App. A, Lemma 8, p. 28 (proof pp. 29-30)",
    sp.And(sp.Eq(A4Holds, 1), sp.Gt(A5Margin, 0), sp.Gt(A6Margin, 0)),
    "Assumptions 4-6 computed on the instance (K found exactly in d = 2)", setting=(A3,),
    flags=("The proof bounds y_k |x_k|^2 below by (1 + (1 - eta)^2)^2 and sum y_k^2 above by "
           "eta^2 + (1 + eta)^2 (p. 29); the first should be 1 + (1 - eta)^2 and the second "
           "misses one label near 1 (the pack's tests find Assumption 5 failing inside the "
           "box).",))
SPURIOUS = _limit(
    "BF25-T2", "below lambda~, for every m, the flow converges to the OLS predictions",
    "Section 4, Theorem 2, p. 11", sp.Eq(OLSGapInf, 0),
    "max_k |h(x_k) - <beta*, x_k>| at the end of a converged run (`limit_estimate`)",
    flags=("'for any m' needs I non-empty (I_NONEMPTY): with no positive neuron active at t = "
           "0 the network stays near 0 (the pack's finding BF25-T2-empty-I).",))
SPURIOUS_LOSS = _limit(
    "BF25-T2b", "... so the loss converges to L_LS > 0", "Section 4, Theorem 2, p. 11",
    sp.And(sp.Eq(LossInf, LossLS), sp.Gt(LossInf, 0)),
    "L at the end of a converged run against L_LS (exact)")
THEOREM_4 = _rate(
    "BF25-T4", "under Assumptions 4-6: h = <beta*, x> on the data's cone; as lam -> 0, "
    "h -> <beta*, x>_+", "App. F, Theorem 4, pp. 52-53",
    sp.And(sp.Eq(sp.Limit(OLSGap(t), t, sp.oo), 0),
           sp.Eq(sp.Limit(sp.Limit(ReluGap(t), t, sp.oo), lam, 0), 0)),
    "max_k |h(x_k) - <beta*, x_k>| at each run's limit point, and max over unit x of "
    "|h(x) - <beta*, x>_+| there over runs with lam decreasing geometrically",
    setting=(A4, A5, A6, EQ4, LAM_T2, I_NONEMPTY),
    notes="h is linear on the data's cone, so equal to <beta*, x> there iff at the samples "
    "(the first part). The second is uniform over the unit circle (h is homogeneous): the "
    "frozen and negative neurons' share vanishes with lam.")
PHASE_1 = _run(
    "BF25-L4", "phase 1: at tau, a_j(0) <= a_j <= a_j(0) lam^(-2 eps) on I and a_j(0) <= a_j <= "
    "0 on N", "Section 4.1.1, Lemma 4 (1), (2), p. 13 (proof App. F.1, p. 53)",
    sp.And(sp.Ge(PosGrowthMin(t), 1), sp.Le(PosGrowthMax(t), LamEff ** (-2 * eps)),
           sp.Le(NegGrowthMax(t), 1)),
    "a_j(tau)/a_j(0) over I, and |a_j(tau)|/|a_j(0)| over the negative neurons active at t = 0 "
    "(the others are frozen, BF25-F1f)", setting=(LOSS_A1, A4, EQ4, LAM_T1),
    window=(tau, tau), definitions=_TAU_DEF, parameters=_EPS, parameter_notes=EPS_NOTE,
    notes="App. F.1: the lemma needs only Assumption 4 (the section 5 data meet it).")
PHASE_1_FROZEN = _run(
    "BF25-L4b", "phase 1: positive neurons inactive on every sample at t = 0 never move",
    "Section 4.1.1, Lemma 4 (3), p. 13", sp.Eq(FrozenDrift(t), 0),
    "|theta_j(t) - theta_j(0)| over those neurons, at every saved time", kind=Kind.IDENTITY,
    setting=(A4,))
PHASE_1_ALIGN = _rate(
    "BF25-L4c", "phase 1: the neurons of I are aligned with D* to O(lam^eps) at tau",
    "Section 4.1.1, Lemma 4 (1), p. 13", sp.Le(DStarDefect(t), c_hi * LamEff**eps),
    "|D*| - <D*, w_j/a_j> over I at tau, on runs with lam decreasing geometrically: its "
    "exponent in LamEff against eps", setting=(LOSS_A1, A4, EQ4, LAM_T1),
    window=(tau, tau), definitions=_TAU_DEF, parameters={**_EPS, "c_hi": None},
    parameter_notes=EPS_NOTE + "; c_hi is the O()'s constant, not given",
    notes="App. F.1: the lemma needs only Assumption 4 (the section 5 data meet it).")
PHASE_2A = _listed(
    "BF25-L5", "phase 2a: I's norms reach eps_2 with the neurons still aligned, N still small",
    "Section 4.1.2, Lemma 5, p. 14",
    "every part is an O() or Omega() with constants c', eps_2* = Theta(1) the paper does not "
    "give (class SL); part 4 (the negative neurons' output weights have not grown) is "
    "BF25-L4's bound carried to tau_2", sp.Le(NegGrowthMax(t), 1))
PHASE_2B = _listed(
    "BF25-L6", "phase 2b: sum_I a_j w_j comes within eps_3 of beta*",
    "Section 4.1.2, Lemma 6, p. 14",
    "its thresholds eps_3 >= lam^(c_3 eps eps_2) and the Theta(1) constants are not given "
    "(class SL); the end state is what BF25-L7c checks in the limit",
    sp.Le(BundleGap(t), tol), parameters={"tol": None},
    parameter_notes="tol stands for the lemma's eps_3 (at least lam^(c_3 eps eps_2), "
    "constants not given)")
PHASE_3 = _limit(
    "BF25-L7", "phase 3: the parameters converge (the gradient vanishes)",
    "Section 4.1.3, Lemma 7 (1), p. 15", sp.Eq(GradNormSqInf, 0),
    "|grad L|^2 at the end of a run (a measurable consequence of theta^t -> theta^inf)")
PHASE_3_CONES = _limit(
    "BF25-L7b", "phase 3: every limit neuron is active on all samples or on none",
    "Section 4.1.3, Lemma 7 (2), p. 15", sp.Eq(MixedInf, 0),
    "the most 'mixed' neuron's smaller side at the end of a run")
PHASE_3_BUNDLE = _limit(
    "BF25-L7c", "phase 3: the neurons active on all samples sum to beta*",
    "Section 4.1.3, Lemma 7 (3), p. 15", sp.Eq(BundleGapInf, 0),
    "|sum_{all-active j} a_j w_j - beta*| at the end of a run")

# -- derived facts and unnumbered claims ---------------------------------------------------------
ENVELOPE = _run(
    "BF25-F1c", "max(|a_j|, |w_j|) grows at most like exp(max_k |x_k| sqrt(2 L(0)) t)",
    "derived (catalogue BF25-F1c; the Gronwall step of App. D.3)",
    sp.Le(NormLogGrowth(t), Xmax * sp.sqrt(2 * L(0)) * t),
    "max_j ln(N_j(t)/N_j(0)) against max_k |x_k| sqrt(2 L(0)) t, at every saved time",
    setting=(LOSS_A1, EQ4), provenance=Provenance.DERIVED,
    notes="|d a_j/dt| <= |w_j| |D_j|, |dw_j/dt| <= |a_j| |D_j| and |D_j| <= max|x_k| sqrt(2 c "
    "L(t)) <= max|x_k| sqrt(2 L(0)) (c <= 1, L non-increasing); with Eq. (4), "
    "N_j = |a_j| and Gronwall gives the bound for every t, not only up to tau.")
GROWTH_RATE = _rate(
    "BF25-F1d", "while h ~ 0 the norms grow at rate at most D_max (|D*| once aligned)",
    "derived (catalogue BF25-F1d; Fig. 2c-f, pp. 16-18)",
    sp.Eq(sp.Limit(sp.Max(NormLogGrowth(t) - Dmax * t, 0), lam, 0), 0),
    "the largest excess max_j ln(N_j(t)/N_j(0)) - D_max t over [0, tau], on runs with lam "
    "decreasing geometrically (it must vanish as h does)", setting=(LOSS_A1, EQ4),
    window=(sp.Integer(0), tau), definitions=_TAU_DEF, parameters=_EPS,
    parameter_notes=EPS_NOTE, provenance=Provenance.DERIVED,
    notes="|d ln|a_j|/dt| <= |D(w_j, theta)| <= D_max + O(|h|): the rate D_max holds while h "
    "~ 0 (up to tau), and |D*| = D_max on the section 5 data; the O(|h|) excess vanishes as "
    "lam -> 0.")
SINGLE_EXTREMAL = _static(
    "BF25-F1e", "under Assumption 4 the only extremal vector is D*",
    "Section 4.1.1, p. 13; App. F.1, p. 53", sp.And(sp.Eq(NumExtremal, 1),
                                                    sp.Gt(DStarActiveMin, 0)),
    "the extremal directions of the enumerated cones; D* activating every sample",
    setting=(A4,), notes="For three points; App. A gives Assumption 4 'to have a single "
    "extremal vector' for any n.")
DEAD_FROZEN = _run(
    "BF25-F1f", "a neuron deactivated on every sample never moves again",
    "Section 3, p. 8 (via Lemma 11 (1))", sp.Eq(DeadDrift(t), 0),
    "|theta_j(t) - theta_j(s_j)| from the first saved time s_j the neuron is dead",
    kind=Kind.IDENTITY, setting=(), notes="With relu'(0) = 0 a dead neuron's velocity is 0.")
OLS_STATIONARY = Claim(
    id="BF25-F2a", title="the OLS bundle point is a stationary point", kind=Kind.IDENTITY,
    source=_src("derived (catalogue BF25-F2a)", Provenance.DERIVED),
    statement=sp.Eq(OLSPointGrad, 0), setting=(A4,), window=STATIC, loss="square",
    measures="|grad L| at the constructed point (one balanced neuron with a w = beta*, the "
    "others 0), as the flow computes it, relative to the size of its terms (0 at their "
    "rounding)",
    notes="Its gradient is X^T (X beta* - y) (normal equations) on the live neuron and 0 on "
    "the zero ones (relu'(0) = 0). That the flow converges to it is BF25-T2/L7 (its "
    "limit point is polished by Newton's method: a degenerate minimum within its pattern, "
    "a saddle of the whole loss, BF25-F2b).")
ESCAPE = _static(
    "BF25-F2b", "at the OLS point only positive, partly active neurons could lower the loss",
    "Section 4, p. 12 ('adding any negative ReLU neuron ... will only increase the training "
    "loss'); App. A (Assumption 6); the positive directions derived",
    sp.And(sp.Ge(NumDescentPlus, 1), sp.Eq(NumDescentMinus, 0)),
    "in each open cone with some samples active and some not: the sign of <w, g_u> on its "
    "boundary rays, g_u = (1/n) sum_{u_k = 1} (y_k - <beta*, x_k>) x_k",
    setting=(A4, A6), provenance=Provenance.DERIVED,
    notes="A balanced neuron of size s added in cone u changes L by -sign(a) s^2 <w^, g_u> + "
    "O(s^3); the limit is a saddle that the flow cannot leave because no positive neuron is "
    "left partly active (loss of omnidirectionality, section 6, p. 19).")
OLS_LIKE_DATA = _limit(
    "BF25-F2c", "on data like section 5's (Assumptions 4, 6; not 3 or 5) the limit is the OLS "
    "line", "Section 5, pp. 15-16 and Fig. 2g, p. 18; Remark 3, p. 12",
    sp.Eq(OLSGapInf, 0), "as BF25-T2", setting=(A4, A6, EQ4, LAM_T2, I_NONEMPTY),
    provenance=Provenance.INFERRED,
    notes="The paper runs its section 5 data, which miss Assumption 3 (y_3 = 0.8 < 1) and, as "
    "the pack computes, Assumption 5; it describes them as positively correlated with positive "
    "labels and the middle point below the OLS line (Assumptions 4 and 6 for three points).")
TWO_NEURONS = _static(
    "BF25-F2d", "the OLS line misses the data; two neurons fit them",
    "Section 4, p. 11", sp.And(sp.Gt(LossLS, 0), sp.Eq(TwoNeuronFit, 1)),
    "L_LS, and an explicit two-neuron interpolator", setting=(A4, A6))
NO_LIVE_POSITIVE = Claim(
    id="BF25-F2e", title="P(I empty) = ((1 + q)/2)^m, q the dead cone's fraction",
    kind=Kind.PROBABILITY, source=_src("derived (catalogue BF25-F2e)", Provenance.DERIVED),
    statement=sp.Eq(PNoLivePlus, ((1 + DeadConeFrac) / 2) ** p), loss="square",
    measures="Monte Carlo frequency of I = empty under Eq. (3)'s Gaussian balanced draw",
    notes="A neuron is in I with probability (1 - q)/2 (positive sign, direction outside the "
    "dead cone); q = 0.378 on the section 5 data.")
SPARSITY = _rate(
    "BF25-F3", "alignment quantises the directions: the limit is a one-neuron network",
    "Section 6, p. 18; App. B.2, p. 34",
    sp.Eq(sp.Limit(sp.Limit(DirectionSpread(t), t, sp.oo), lam, 0), 0),
    "sigma_2/sigma_1 of the neurons' weighted directions at each run's limit point, over runs "
    "with lam decreasing geometrically", setting=T2_SETTING,
    notes="Checked where Theorem 2 applies (one bundle along beta*); the paper gives it as an "
    "intuition with observations (p. 18). Neurons that never move keep a weight |a_j| |w_j| of "
    "the order of lam^2 and enter the matrix by its square root, so the spread vanishes like "
    "lam (fitted exponent 1.0000 on the quick profile's box draw).")
SCALES = _listed(
    "BF25-F4", "large initialisation (NTK/lazy) converges; intermediate scales trade off; "
    "leaky ReLU keeps omnidirectionality", "Section 1, p. 2; Section 6, pp. 19-21; footnote 7",
    "cited results and conjectures without bounds; the flow's own lam threshold on the "
    "section 5 data is measured in E-BF25-1", sp.Eq(LossInf, 0))
UNBALANCED_CONVERGES = _listed(
    "BF25-F4b", "with an unbalanced start on Assumption 3's data the flow reaches a global "
    "minimum", "Section 6, p. 20",
    "a statement about the infinite-width limit (output weights that change sign keep the "
    "weights omnidirectional), stated without proof: at finite m the outcome depends on the "
    "draw; E-BF25-1 reports unbalanced runs (m = 20 to 200), several of which stay at L_LS",
    sp.Eq(LossInf, 0), notes="Setting: Assumption 3, an unbalanced start (Eq. (4) fails).")
LEAKY = _listed(
    "BF25-F4c", "Theorem 2 holds for leaky ReLU if lambda~ may depend on m",
    "Section 6, p. 21, footnote 7",
    "no threshold is given and it depends on m; fixed-m runs cannot decide it",
    SPURIOUS.statement, activations=("leaky",))

CLAIMS = (
    F0, ASSUMPTION_1, ASSUMPTION_2, BALANCEDNESS, LAYER_ODES, LEMMA_2, LEMMA_3, CONDITION_1,
    NORM_SANDWICH, NORM_DOMINATION, ALIGNMENT, LEMMA_9, LEMMA_10, LEMMA_11, LEMMA_15,
    ASSUMPTION_7, THEOREM_3, CONDITION_2, ASSUMPTION_3, ASSUMPTION_4, ASSUMPTION_5,
    ASSUMPTION_6, LEMMA_8, SPURIOUS, SPURIOUS_LOSS, THEOREM_4, PHASE_1, PHASE_1_FROZEN,
    PHASE_1_ALIGN, PHASE_2A, PHASE_2B, PHASE_3, PHASE_3_CONES, PHASE_3_BUNDLE, ENVELOPE,
    GROWTH_RATE, SINGLE_EXTREMAL, DEAD_FROZEN, OLS_STATIONARY, ESCAPE, OLS_LIKE_DATA,
    TWO_NEURONS, NO_LIVE_POSITIVE, SPARSITY, SCALES, UNBALANCED_CONVERGES, LEAKY,
)
