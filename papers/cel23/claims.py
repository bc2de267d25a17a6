"""CEL23: Chistikov, Englert, Lazić, "Learning a Neuron by a Shallow ReLU Network: Dynamics
and Implicit Bias for Correlated Inputs" (NeurIPS 2023, arXiv 2306.06479).

Setting shared by the claims: the standard network h(x) = sum_j a_j relu(<w_j, x>), labels
y_i = relu(<v*, x_i>) of a unit teacher v*, the mean square loss 1/(2n) sum (y_i - h(x_i))^2,
gradient flow with relu'(0) = 0, balanced initialisation w_j = lam z_j, a_j = s_j |w_j|.
Entry ids, statements and locations follow the catalogue the pack was built from (45
entries: PW pointwise with explicit constants, SL limits or trends in lam, QL qualitative).

**The paper's hypotheses.** Assumption 1 (A1: data span R^d, distinct eigenvalues of H, every
teacher coordinate nu_k* non-zero, some initially active positive neuron, no sample on a
neuron's kink at 0, no simultaneous yardstick crossings) and the pi/4 condition are checked on
every instance (`A1Holds`, `TeacherCosMin`). Assumption 2 (A2: lam <= (m n^(9 n Delta^2 /
delta^3))^(-3/eps)) asks for log10 lam around -10^4 on the most favourable instances: it is
declared ``required=False`` (`theory.Assumption`), so a dynamic claim is checked as stated at
the lam of a run and its verdict says "relaxed" with the numbers whenever A2 fails there, as
the catalogue's relaxed rule (R) prescribes. eps is the analysis parameter of A2, fixed at
1/4 (the value that makes A2 weakest).

T1 = eps ln(1/lam)/|gamma_[n]| is an instance time; T2 = inf{t >= T1 : nu_1(t) >= nu_1*/2} is
the event of `T2_EVENT` (claims from T2 on are fixed at each run's own T2 by `verify.check`).

Length: declarative claim records, one per catalogue entry (nothing here computes).
"""

from __future__ import annotations

import sympy as sp

from theory.claim import Assumption, Claim, Kind, Provenance, Source
from theory.symbols import PL, Balance, L, SignFlips, Term, d, eps, lam, n, p, t

# -- the pack's vocabulary ------------------------------------------------------------------
GammaN = sp.Symbol("GammaN", positive=True)
EtaMax = sp.Symbol("EtaMax", positive=True)
EtaMin = sp.Symbol("EtaMin", positive=True)
NuStarLast = sp.Symbol("NuStarLast")
TeacherCosMin = sp.Symbol("TeacherCosMin")
A1Holds = sp.Symbol("A1Holds", nonnegative=True)
deltaA = sp.Symbol("deltaA", positive=True)
DeltaA = sp.Symbol("DeltaA", positive=True)
T0 = sp.Symbol("T0", nonnegative=True)
Log10LamMax = sp.Symbol("Log10LamMax")
NumJPlus = sp.Symbol("NumJPlus", nonnegative=True)
t_T2 = sp.Symbol("t_T2", nonnegative=True)
EigenRatioMax = sp.Symbol("EigenRatioMax", positive=True)
MTheorem8 = sp.Symbol("MTheorem8")
InterpNormSq = sp.Symbol("InterpNormSq", positive=True)
PairCosMin = sp.Symbol("PairCosMin")
TeacherCosMax = sp.Symbol("TeacherCosMax")
ChiZMatrix = sp.Symbol("ChiZMatrix", nonnegative=True)
GammaGap = sp.Symbol("GammaGap", nonnegative=True)
U1ConeMargin = sp.Symbol("U1ConeMargin")
YardstickFormulaGap = sp.Symbol("YardstickFormulaGap", nonnegative=True)
YardstickRecrossings = sp.Symbol("YardstickRecrossings", nonnegative=True)
YardstickTies = sp.Symbol("YardstickTies", nonnegative=True)
ProbJPlus = sp.Symbol("ProbJPlus", nonnegative=True)
Rate6 = sp.Symbol("Rate6", positive=True)
CShareTop = sp.Symbol("CShareTop", positive=True)

NormV = sp.Function("NormV")
BundleMisalign = sp.Function("BundleMisalign")
LinearGap = sp.Function("LinearGap")
GradSpread = sp.Function("GradSpread")
Nu1Ratio = sp.Function("Nu1Ratio")
PhaseOneEnvelope = sp.Function("PhaseOneEnvelope")
SignedGrowth = sp.Function("SignedGrowth")
NegSpeed = sp.Function("NegSpeed")
NegNormRatio = sp.Function("NegNormRatio")
CosGammaMin = sp.Function("CosGammaMin")
OutputRatio = sp.Function("OutputRatio")
TeacherCosV = sp.Function("TeacherCosV")
BallMargin = sp.Function("BallMargin")
SMargin = sp.Function("SMargin")
XiCos = sp.Function("XiCos")
OvershootOrder = sp.Function("OvershootOrder")
NormVSqRate = sp.Function("NormVSqRate")
NormG = sp.Function("NormG")
TeacherGapSq = sp.Function("TeacherGapSq")
TeacherGapSqRate = sp.Function("TeacherGapSqRate")
BundleVelocityGap = sp.Function("BundleVelocityGap")
AsqLogExcess = sp.Function("AsqLogExcess")
CrossingExcess = sp.Function("CrossingExcess")
CrossingOrderMismatch = sp.Function("CrossingOrderMismatch")
YardstickLogGap = sp.Function("YardstickLogGap")
SubgradientGap = sp.Function("SubgradientGap")
EnergyGap = sp.Function("EnergyGap")
PolarGap = sp.Function("PolarGap")
GammaTrackGap = sp.Function("GammaTrackGap")
DirTrackGap = sp.Function("DirTrackGap")
MaxActiveAngle = sp.Function("MaxActiveAngle")
NormWPlusSq = sp.Function("NormWPlusSq")
LimitNetGap = sp.Function("LimitNetGap")
NormShareTop = sp.Function("NormShareTop")

TERMS = (
    Term("Rate6", Rate6, "parameter",
         "the rate constant of CEL23's Theorem 6: L(T2 + s) < (Delta^2/2) e^(-Rate6 s "
         "delta^4/Delta^2), 0.4 in the paper"),
    Term("GammaN", GammaN, "instance", "|gamma_[n]|, gamma_[n] = (1/n) sum_i y_i x_i (CEL23)"),
    Term("EtaMax", EtaMax, "instance", "eta_1, the largest eigenvalue of H = X^T X/n (CEL23)"),
    Term("EtaMin", EtaMin, "instance", "eta_d, the smallest eigenvalue of H = X^T X/n (CEL23)"),
    Term("NuStarLast", NuStarLast, "instance",
         "nu_d* = <u_d, v*>, the teacher's coordinate on H's last eigenvector (CEL23)"),
    Term("TeacherCosMin", TeacherCosMin, "instance",
         "min_i cos angle(v*, x_i); above 1/sqrt(2) is CEL23's pi/4 condition"),
    Term("A1Holds", A1Holds, "instance",
         "1 if CEL23's Assumption 1 (i)-(iv) holds on the instance, else 0"),
    Term("deltaA", deltaA, "instance", "CEL23's delta: the minimum of the eleven items of D4"),
    Term("DeltaA", DeltaA, "instance", "CEL23's Delta = max(max_i |x_i|, max_j |z_j|, 1)"),
    Term("T0", T0, "instance",
         "CEL23's T0 = 1 + the last yardstick crossing time (negative neurons frozen by then)"),
    Term("Log10LamMax", Log10LamMax, "instance",
         "log10 of the largest lam CEL23's Assumption 2 allows at eps = 1/4"),
    Term("NumJPlus", NumJPlus, "instance", "|J_+|, the initially active positive neurons"),
    Term("t_T2", t_T2, "event", "CEL23's T2: first t >= T1 with nu_1(t) >= nu_1*/2"),
    Term("EigenRatioMax", EigenRatioMax, "instance",
         "max_k eta_(k+1)/eta_k over H's eigenvalues in decreasing order (CEL23)"),
    Term("MTheorem8", MTheorem8, "instance",
         "CEL23's M (D8): max of cos angle(p, q) - sin angle(p, v*) over p, q non-zero in "
         "the cones of complementary sets of the rows chi_k of X^-1 (n = d)"),
    Term("InterpNormSq", InterpNormSq, "instance",
         "min |theta|^2 over networks of the instance's width with zero loss (CEL23)"),
    Term("PairCosMin", PairCosMin, "instance", "min_{i != i'} cos angle(x_i, x_i')"),
    Term("TeacherCosMax", TeacherCosMax, "instance", "max_i cos angle(v*, x_i)"),
    Term("ChiZMatrix", ChiZMatrix, "instance",
         "1 if chi_k^T chi_l <= 0 for all k != l ((X^T X)^-1 a Z-matrix), else 0"),
    Term("GammaGap", GammaGap, "instance",
         "max(|gamma_[n] - H v*|, |H v* - sum_k eta_k nu_k* u_k|) (CEL23-P16)"),
    Term("U1ConeMargin", U1ConeMargin, "instance",
         "min_i c_i with u_1 = sum_i c_i x_i (> 0: u_1 inside the data cone)"),
    Term("YardstickFormulaGap", YardstickFormulaGap, "instance",
         "largest relative gap between a yardstick closed form of CEL23 App. C-D and a "
         "direct integration of the yardstick ODE"),
    Term("YardstickRecrossings", YardstickRecrossings, "instance",
         "number of samples that cross a yardstick's kink back (enter after leaving, or "
         "the reverse)"),
    Term("YardstickTies", YardstickTies, "instance",
         "number of pairs of one yardstick's crossings at the same time"),
    Term("ProbJPlus", ProbJPlus, "run",
         "probability over the initialisation that J_+ is non-empty (Monte Carlo)"),
    Term("NormV", NormV, "trajectory", "|v(t)|, v = sum_{j in J_+} a_j w_j (CEL23's bundle)"),
    Term("BundleMisalign", BundleMisalign, "trajectory",
         "max_{j, j' in J_+} (1 - cos angle(w_j, w_j'))"),
    Term("LinearGap", LinearGap, "trajectory", "max_i |h(x_i) - <v, x_i>|"),
    Term("GradSpread", GradSpread, "trajectory",
         "max_{j in J_+} |g_j - g|, g_j neuron j's governing vector, g = H (v* - v)"),
    Term("Nu1Ratio", Nu1Ratio, "trajectory", "nu_1(t)/nu_1* = <u_1, v(t)>/<u_1, v*>"),
    Term("PhaseOneEnvelope", PhaseOneEnvelope, "trajectory",
         "max_j |w_j(t)| exp(-|gamma_[n]| t)/(lam |z_j|)"),
    Term("SignedGrowth", SignedGrowth, "trajectory",
         "min_{j in J_+ or J_-} s_j d|w_j|/dt (exact, from the flow's field)"),
    Term("NegSpeed", NegSpeed, "trajectory", "max_{j in J_-} |d(w_j, a_j)/dt|"),
    Term("NegNormRatio", NegNormRatio, "trajectory", "max_{j in J_-} |w_j(t)|/(lam |z_j|)"),
    Term("CosGammaMin", CosGammaMin, "trajectory",
         "min_{j in J_+} cos angle(w_j(t), gamma_[n])"),
    Term("OutputRatio", OutputRatio, "trajectory", "max_i |h(x_i)|/y_i"),
    Term("TeacherCosV", TeacherCosV, "trajectory", "cos angle(v(t), v*)"),
    Term("BallMargin", BallMargin, "trajectory", "<v, v* - v> (> 0: v in the ball on [0, v*])"),
    Term("SMargin", SMargin, "trajectory",
         "signed margin of v(t) in CEL23's set S with its Xi margin set to 0 (> 0: inside)"),
    Term("XiCos", XiCos, "trajectory", "cos angle(v, g), g = H (v* - v) (CEL23's Xi)"),
    Term("OvershootOrder", OvershootOrder, "trajectory",
         "min_{k < k'} max(r_k - 1, 1 - r_k'), r_k = nu_k/nu_k* (>= 0: the overshooting "
         "coordinates are an initial segment)"),
    Term("NormVSqRate", NormVSqRate, "trajectory", "d|v|^2/dt (exact)"),
    Term("NormG", NormG, "trajectory", "|g(t)| = |H (v* - v(t))|"),
    Term("TeacherGapSq", TeacherGapSq, "trajectory", "|v* - v(t)|^2"),
    Term("TeacherGapSqRate", TeacherGapSqRate, "trajectory", "d|v* - v|^2/dt (exact)"),
    Term("BundleVelocityGap", BundleVelocityGap, "trajectory",
         "|dv/dt - f|/|f|, f = |v| (g + vbar vbar^T g) (CEL23's ideal bundle velocity)"),
    Term("AsqLogExcess", AsqLogExcess, "trajectory",
         "min_j ln(a_j(t)^2/a_j(0)^2) + 2 t sqrt(2 L(0)) max_i |x_i| (>= 0: CEL23-P1's bound)"),
    Term("CrossingExcess", CrossingExcess, "trajectory",
         "max over the crossings so far of |t_j^l - tau_j^l| - lam^(1 - (1 + (3l - 1)/(3 n_j)) "
         "eps) at eps = 1/4 (<= 0: within CEL23-L3(iii); -1 before any crossing)"),
    Term("CrossingOrderMismatch", CrossingOrderMismatch, "trajectory",
         "number of sign changes of <w_j, x_i> so far that differ from the yardstick's "
         "crossing sequence i_j^1, i_j^2, ... (order, sample, or a second crossing)"),
    Term("YardstickLogGap", YardstickLogGap, "trajectory",
         "max_{j in J_+} |ln|alpha_j(t)| - ln|w_j(t)/lam||, alpha_j the yardstick"),
    Term("SubgradientGap", SubgradientGap, "trajectory",
         "|theta(t) - theta'(t)|, theta' the flow with relu'(0) = 1 instead of 0"),
    Term("EnergyGap", EnergyGap, "trajectory", "|dL/dt + |dtheta/dt|^2|"),
    Term("PolarGap", PolarGap, "trajectory",
         "residual of CEL23's polar form d ln|w_j|/dt = s_j wbar_j^T g_j, "
         "dwbar_j/dt = s_j (g_j - wbar_j wbar_j^T g_j)"),
    Term("GammaTrackGap", GammaTrackGap, "trajectory",
         "max_j |g_j(t) - gamma_(I_j)|, I_j the stage's active set of the yardstick"),
    Term("DirTrackGap", DirTrackGap, "trajectory",
         "max_j |alphabar_j(t) - wbar_j(t)|: the neuron's direction against its yardstick's"),
    Term("MaxActiveAngle", MaxActiveAngle, "trajectory",
         "largest angle between two non-zero hidden neurons that are active on some sample"),
    Term("NormWPlusSq", NormWPlusSq, "trajectory", "sum_{j in J_+} |w_j(t)|^2"),
    Term("LimitNetGap", LimitNetGap, "trajectory",
         "max_{j in J_+} | |w_j(t)|/(sum_k |w_k(t)|^2)^(1/2) - C_j/|C| | (CEL23-F7b's C)"),
    Term("NormShareTop", NormShareTop, "trajectory",
         "|w_j*(t)|/(sum_{k in J_+} |w_k(t)|^2)^(1/2), j* the neuron of J_+ with the largest "
         "growth constant C_j"),
    Term("CShareTop", CShareTop, "instance",
         "C_j*/|C|, the largest normalised norm of CEL23-F7b's lam -> 0 limit network (exact, "
         "from the yardsticks' growth constants)"),
)
LATEX_NAMES = {
    "Rate6": r"\kappa_6",
    "GammaN": r"\|\gamma_{[n]}\|", "EtaMax": r"\eta_1", "EtaMin": r"\eta_d",
    "NuStarLast": r"\nu_d^*", "TeacherCosMin": r"\min_i \cos\angle(v^*, x_i)",
    "deltaA": r"\delta", "DeltaA": r"\Delta", "T0": r"T_0", "t_T2": r"T_2",
    "Log10LamMax": r"\log_{10}\lambda_{\max}", "NumJPlus": r"|J_+|",
    "NormV": r"\|v(t)\|", "Nu1Ratio": r"\nu_1(t)/\nu_1^*", "NormG": r"\|g(t)\|",
    "TeacherCosV": r"\cos\angle(v(t), v^*)", "XiCos": r"\cos\angle(v(t), g(t))",
    "A1Holds": r"\mathbb{1}[\mathrm{A1}]", "EigenRatioMax": r"\max_k \eta_{k+1}/\eta_k",
    "MTheorem8": r"M", "InterpNormSq": r"\min_{L(\theta)=0} \|\theta\|^2",
    "PairCosMin": r"\min_{i \neq i'} \cos\angle(x_i, x_{i'})",
    "TeacherCosMax": r"\max_i \cos\angle(v^*, x_i)",
    "ChiZMatrix": r"\mathbb{1}[(X^\top X)^{-1} \text{ Z-matrix}]",
    "GammaGap": r"\|\gamma_{[n]} - H v^*\|", "U1ConeMargin": r"\min_i c_i(u_1)",
    "YardstickFormulaGap": r"\mathrm{gap}_\alpha",
    "YardstickRecrossings": r"\#\mathrm{recross}_\alpha",
    "YardstickTies": r"\#\mathrm{ties}_\alpha", "ProbJPlus": r"P(J_+ \neq \emptyset)",
    "BundleMisalign": r"\max_{j,j'} (1 - \cos\angle(w_j, w_{j'}))(t)",
    "LinearGap": r"\max_i |h(x_i) - \langle v, x_i \rangle|(t)",
    "GradSpread": r"\max_{j \in J_+} \|g_j - g\|(t)",
    "PhaseOneEnvelope": r"\max_j \|w_j\| e^{-\|\gamma_{[n]}\| t}/(\lambda \|z_j\|)(t)",
    "SignedGrowth": r"\min_j s_j \tfrac{d}{dt}\|w_j\|(t)",
    "NegSpeed": r"\max_{j \in J_-} \|\dot\theta_j\|(t)",
    "NegNormRatio": r"\max_{j \in J_-} \|w_j\|/(\lambda \|z_j\|)(t)",
    "CosGammaMin": r"\min_{j \in J_+} \cos\angle(w_j, \gamma_{[n]})(t)",
    "OutputRatio": r"\max_i |h(x_i)|/y_i(t)", "BallMargin": r"\langle v, v^* - v \rangle(t)",
    "SMargin": r"\mathrm{margin}_S(v(t))", "OvershootOrder": r"\mathrm{overshoot}(t)",
    "NormVSqRate": r"\tfrac{d}{dt}\|v(t)\|^2", "TeacherGapSq": r"\|v^* - v(t)\|^2",
    "TeacherGapSqRate": r"\tfrac{d}{dt}\|v^* - v(t)\|^2",
    "BundleVelocityGap": r"\|\dot v - f\|/\|f\|(t)",
    "AsqLogExcess": r"\mathrm{excess}_{a^2}(t)", "CrossingExcess": r"\mathrm{excess}_\tau(t)",
    "CrossingOrderMismatch": r"\#\mathrm{misordered}(t)",
    "YardstickLogGap": r"\max_j |\ln\|\alpha_j\| - \ln\|w_j/\lambda\||(t)",
    "SubgradientGap": r"\|\theta - \theta'\|(t)", "EnergyGap": r"|\dot L + \|\dot\theta\|^2|(t)",
    "PolarGap": r"\mathrm{res}_{\mathrm{polar}}(t)",
    "GammaTrackGap": r"\max_j \|g_j - \gamma_{I_j}\|(t)",
    "DirTrackGap": r"\max_j \|\bar\alpha_j - \bar w_j\|(t)",
    "MaxActiveAngle": r"\max_{j,j'} \angle(w_j, w_{j'})(t)",
    "NormWPlusSq": r"\textstyle\sum_{J_+} \|w_j(t)\|^2",
    "LimitNetGap": r"\max_j |\bar n_j(t) - C_j/\|C\||",
    "NormShareTop": r"\|w_{j^*}(t)\|/\|W_+(t)\|", "CShareTop": r"C_{j^*}/\|C\|",
}

SOURCE = "CEL23"
EPS = sp.Rational(1, 4)
EPS_NOTE = ("eps = 1/4: the largest value the paper's analysis allows (its Assumption 2 has "
            "eps <= 1/4), the catalogue's relaxed rule; the windows, T1 and the lam-powers of the "
            "bounds all use it")
T1 = eps * sp.log(1 / lam) / GammaN  # end of the alignment phase (D5)

# -- hypotheses -----------------------------------------------------------------------------
PI4 = Assumption("pi/4 condition", sp.Gt(TeacherCosMin, 1 / sp.sqrt(2)),
                 "angle(v*, x_i) < pi/4 for every i (so every label is positive)")
A1 = Assumption("A1", sp.Eq(A1Holds, 1),
                "Assumption 1 (i)-(iv): the data span R^d, |v*| = 1, H's eigenvalues are "
                "distinct and every nu_k* != 0, J_+ is non-empty, no z_j has a sample on its "
                "kink, angle(z_j, gamma_[n]) > 0 on J_-, no two yardstick crossings coincide "
                "((v) holds for the flow with relu'(0) = 0)")
A2 = Assumption("A2", sp.Le(sp.log(lam) / sp.log(10), Log10LamMax),
                "lam <= (m n^(9 n Delta^2/delta^3))^(-3/eps) at eps = 1/4 (log10 lam at most "
                "Log10LamMax); no float64 run meets it, so claims are checked 'relaxed' "
                "where it fails and say so", required=False)
HYPOTHESES = (PI4, A1, A2)

# T2's event: nu_1 reaches half of nu_1* after T1 (D5)
T2_EVENT = sp.And(sp.Ge(t, T1), sp.Ge(Nu1Ratio(t), sp.Rational(1, 2)))


def _src(where: str, provenance: Provenance = Provenance.VERBATIM) -> Source:
    return Source(SOURCE, where, provenance)


def _listed(cid: str, title: str, where: str, reason: str, statement=sp.true, **kw) -> Claim:
    """A catalogue entry gfverify lists but does not check (with the reason)."""
    return Claim(id=cid, title=title, kind=Kind.QUALITATIVE, source=_src(where),
                 statement=statement, checkable=False, not_checkable_reason=reason, **kw)


ALWAYS = (sp.Integer(0), sp.oo)


def _dynamic(cid: str, title: str, where: str, statement, *, window=ALWAYS,
             kind=Kind.POINTWISE, setting=HYPOTHESES, provenance=Provenance.VERBATIM,
             parameters=None, parameter_notes=EPS_NOTE, **kw) -> Claim:
    return Claim(id=cid, title=title, kind=kind, source=_src(where, provenance),
                 statement=statement, setting=setting, parametrization="standard",
                 loss="square", window=window, parameters={"eps": EPS, **(parameters or {})},
                 parameter_notes=parameter_notes, **kw)


# -- assumptions, as instance checks -----------------------------------------------------------
ASSUMPTION_1 = _listed(
    "CEL23-A1", "mild instance assumption (A1)", "Section 3, Assumption 1",
    "an assumption, not a claim: every CEL23 check evaluates it on its instance (A1Holds) and "
    "is INAPPLICABLE where it fails", statement=sp.Eq(A1Holds, 1))
ASSUMPTION_2 = _listed(
    "CEL23-A2", "lam below (m n^(9 n Delta^2/delta^3))^(-3/eps) (A2)", "Section 3, Assumption 2",
    "an assumption: evaluated on every instance (Log10LamMax); it needs log10 lam <= -2.4e4 on "
    "the most favourable d = 2 instances, beyond float64, so the dynamic claims are checked "
    "relaxed and their verdicts say so", statement=A2.statement)
ASSUMPTION_3 = _listed(
    "CEL23-A3", "setting of Theorem 8: n = d, m > 1, M != 0", "Section 7, Assumption 3",
    "an assumption of Theorem 8, evaluated on its instances (CEL23-T8's checks)",
    statement=sp.And(sp.Eq(n, d), sp.Gt(p, 1), sp.Ne(MTheorem8, 0)))

# -- section 1 and 2 facts ------------------------------------------------------------------
F0A = _listed("CEL23-F0a", "pi/4 to the teacher implies pairwise angles below pi/2",
              "Section 1", "a triangle inequality for angles; the pack's tests sample it "
              "(tests/papers/test_cel23_data.py) rather than record a verdict",
              statement=sp.Implies(sp.Gt(TeacherCosMin, 1 / sp.sqrt(2)), sp.Gt(PairCosMin, 0)))
F0B = _listed("CEL23-F0b", "P(A1(ii)) >= 1 - (3/4)^m", "Section 3",
              "a probability over initialisations with an exact law; a Monte Carlo estimate is "
              "in tests/papers/test_cel23_data.py",
              statement=sp.Ge(ProbJPlus, 1 - sp.Rational(3, 4)**p))
F0C = _listed("CEL23-F0c", "the choice of relu'(0) is immaterial", "Section 2",
              "qualitative (uniqueness of the flow under A1-A2); the toolkit's flow fixes "
              "relu'(0) = 0", statement=sp.Eq(SubgradientGap(t), 0))

BALANCE = _dynamic(
    "CEL23-P1", "a_j^2 - |w_j|^2 is conserved and a_j keeps the sign s_j",
    "Proposition 1 (App. B)", sp.And(sp.Eq(Balance(t), 0), sp.Eq(SignFlips(t), 0)),
    kind=Kind.CONSERVED, setting=(),
    measures="max_j |c_j(t) - c_j(0)|, c_j = a_j^2 - |w_j|^2; sign a_j(t) against s_j")
BALANCE_LOWER = _dynamic(
    "CEL23-P1b", "a_j(t)^2 >= a_j(0)^2 exp(-2 t sqrt(2 L(0)) max_i |x_i|)",
    "Proposition 1 (App. B), its lower bound", sp.Ge(AsqLogExcess(t), 0), setting=(),
    measures="min_j ln a_j(t)^2 against the log of the bound")
ENERGY = _listed("CEL23-P9", "dL/dt = -|dtheta/dt|^2", "App. B (Davis et al.)",
                 "the identity every gradient flow obeys; the toolkit's flow is built from it "
                 "and the example pack's GF-1 checks it on every run",
                 statement=sp.Eq(EnergyGap(t), 0))
POLAR = _listed("CEL23-C10", "the polar form of the neuron dynamics", "Corollary 10 (App. B)",
                "a rewriting of the flow in (ln|w_j|, wbar_j), the toolkit's log-norm "
                "coordinates (numerics.coordinates), checked there against cartesian runs",
                statement=sp.Eq(PolarGap(t), 0))

# -- the yardstick (App. C): exact closed forms, checked in the pack's tests ------------------
_YARD = ("closed-form facts of the yardstick ODE (no network, no lam): the pack computes the "
         "yardstick exactly (papers/cel23/yardstick.py) and its tests compare each formula "
         "with an independent DOP853 integration, to ~1e-8")
_FORMULA = sp.Eq(YardstickFormulaGap, 0)
P11 = _listed("CEL23-P11", "elementary yardstick facts", "Proposition 11 (App. C)", _YARD,
              statement=_FORMULA)
P12 = _listed("CEL23-P12", "yardstick crossings are monotone", "Proposition 12(iv)", _YARD,
              statement=sp.Eq(YardstickRecrossings, 0))
P2 = _listed("CEL23-P2", "yardstick stages: a unique crossing order", "Prop. 2 / 14", _YARD,
             statement=sp.And(sp.Eq(YardstickRecrossings, 0), sp.Eq(YardstickTies, 0)))
P14 = _listed("CEL23-P14", "yardstick formulas within a stage", "Proposition 14", _YARD,
              statement=_FORMULA)
P13 = _listed("CEL23-P13", "the stage norm formula", "Proposition 13", _YARD,
              statement=_FORMULA)
C15 = _listed("CEL23-C15", "simultaneous crossings have measure zero", "Corollary 15",
              "qualitative (a measure-zero statement); A1(iv) excludes ties on every "
              "instance the pack checks", statement=sp.Eq(YardstickTies, 0))
P16 = _listed("CEL23-P16", "gamma_[n] = H v* = sum_k eta_k nu_k* u_k", "Proposition 16 (App. D)",
              _YARD, statement=sp.Eq(GammaGap, 0))
P17 = _dynamic(
    "CEL23-P17", "instance bounds through delta and Delta: eta_1 <= Delta^2, eigen-gaps, "
    "delta^2 <= |gamma_[n]| <= Delta^2, last crossing before 4 n ln n/delta^3",
    "Proposition 17 (i), (ii), (iii) for I = [n], (vi) (App. D)",
    sp.And(sp.Le(EtaMax, DeltaA**2),
           sp.Le(EigenRatioMax, (1 - deltaA / ((d - 1) * DeltaA))**2),
           sp.Ge(GammaN, deltaA**2), sp.Le(GammaN, DeltaA**2),
           sp.Lt(T0 - 1, 4 * n * sp.log(n) / deltaA**3)),
    setting=(PI4, A1),
    measures="eta_1, max_k eta_(k+1)/eta_k, |gamma_[n]|, the yardsticks' last crossing "
    "(T0 - 1) against delta and Delta (no lam: one value per instance)",
    notes="(iii) for every I and (iv), (v), (vii) are per-stage and per-subset facts of the "
    "yardsticks: tests/papers/test_cel23_yardstick.py checks them (catalogue: we checked "
    "(i)-(iii) and (vi) on a d = 3 instance).")
P22 = _listed("CEL23-P22", "final alignment stage of a positive yardstick",
              "Proposition 22 (App. D)", _YARD, statement=_FORMULA)

# -- phase 1 (App. D) -----------------------------------------------------------------------
PHASE_ORDER = _dynamic(
    "CEL23-P18", "T0 < T1/3", "Proposition 18 (App. D)", sp.Lt(T0, T1 / 3),
    measures="T0 from the exact yardsticks against T1 = eps ln(1/lam)/|gamma_[n]|",
    notes="Holds iff lam < exp(-3 |gamma_[n]| T0/eps): below about 1e-11 on typical "
    "instances, so it fails at the paper's own lam grid; where it fails, L5's cosine part and "
    "L28 lose their premise.")
NORM_CONTROL = _dynamic(
    "CEL23-L19", "phase 1: |w_j(t)| < 2 lam |z_j| e^(|gamma_[n]| t), positives grow, "
    "negatives shrink, outputs below the labels", "Lemma 19 and Claim 20 (App. D)",
    sp.And(sp.Lt(PhaseOneEnvelope(t), 2), sp.Ge(SignedGrowth(t), 0), sp.Lt(OutputRatio(t), 1)),
    window=(sp.Integer(0), T1),
    measures="max_j |w_j| e^(-|gamma| t)/(lam |z_j|); min_j s_j d|w_j|/dt; max_i |h(x_i)|/y_i",
    notes="The output part is the proof's |h(x_i)| < delta/sqrt(2) < y_i, checked in its "
    "weaker form |h| < y.")
CROSSINGS = _dynamic(
    "CEL23-L3", "each neuron crosses the samples of its yardstick, in its order, within "
    "lam^(1 - (1 + (3l - 1)/(3 n_j)) eps) of its times", "Lemma 3 (= Lemma 21(i),(ii),(v))",
    sp.And(sp.Eq(CrossingOrderMismatch(t), 0), sp.Le(CrossingExcess(t), 0)),
    window=(sp.Integer(0), T1),
    measures="the exact flow's activation events against the exact yardsticks' crossings",
    notes="CrossingExcess fixes eps = 1/4 (the relaxed rule). Where the bound is below the "
    "accuracy of the run's event times (lam <~ 1e-15) the check says so (INCONCLUSIVE).")
TRACKING = _listed("CEL23-L21", "phase-1 tracking bounds lam^(2-eps) and lam^(1-(1+l/n_j)eps)",
                   "Lemma 21(iii),(iv)", "its bounds are of size lam^(7/4) and below: at the "
                   "lam a float64 run reaches they sit under the state's error; L3 and L5 "
                   "check the same tracking through crossing times and log-norms",
                   statement=sp.And(sp.Le(GammaTrackGap(t), lam ** (2 - eps)),
                                    sp.Le(DirTrackGap(t), lam ** (1 - 2 * eps))),
                   notes="(iv)'s exponent 1 - (1 + l/n_j) eps is written at its weakest, l = n_j")
NEGATIVES = _dynamic(
    "CEL23-L4", "negative neurons end phase 1 below lam |z_j| and never move again",
    "Lemma 4 (App. D)", sp.And(sp.Le(NegNormRatio(t), 1), sp.Eq(NegSpeed(t), 0)),
    window=(T0, sp.oo), measures="max_{j in J_-} |w_j|/(lam |z_j|) and |d(w_j, a_j)/dt|, t >= T0")
AT_T1 = _dynamic(
    "CEL23-L5", "at T1 positive neurons are below 2 |z_j| lam^(1-eps), aligned with gamma_[n] "
    "to 1 - lam^eps and follow their yardsticks' log-norms to lam^(1-3 eps)",
    "Lemma 5 (= Lemma 23(iii),(iv), Lemma 19(i) at T1)",
    sp.And(sp.Lt(PhaseOneEnvelope(t) * lam * sp.exp(GammaN * t), 2 * lam ** (1 - eps)),
           sp.Ge(CosGammaMin(t), 1 - lam ** eps),
           sp.Le(YardstickLogGap(t), lam ** (1 - 3 * eps))),
    window=(T1, T1), measures="at t = T1: the norm envelope, min_j cos angle(w_j, gamma_[n]), "
    "max_j |ln|alpha_j| - ln|w_j/lam||",
    notes="The norm part is read through the phase-1 envelope at t = T1 (the same quantity "
    "as L19). The cosine part needs T1 well after the last crossing (P18).")
L23 = _listed("CEL23-L23", "phase-1 end tracking lam^(2-3eps), lam^(1-2eps)", "Lemma 23",
              "bounds below the state's error at reachable lam (as L21); L5 checks its "
              "consequences at T1",
              statement=sp.And(sp.Le(GammaTrackGap(t), lam ** (2 - 3 * eps)),
                               sp.Le(DirTrackGap(t), lam ** (1 - 2 * eps))))

# -- phase 2 and convergence (App. E) --------------------------------------------------------
P24 = _listed("CEL23-P24", "u_1 is inside the data cone", "Proposition 24 (App. E)",
              "an instance fact (no run, no lam); tests/papers/test_cel23_yardstick.py solves "
              "u_1 = sum_i c_i x_i on pi/4 instances", statement=sp.Gt(U1ConeMargin, 0))
BALL = _dynamic(
    "CEL23-P25", "the bundle stays in the ball with diameter [0, v*] (v in S)",
    "Proposition 25 with Lemma 28(ii)", sp.Gt(BallMargin(t), 0),
    window=(T1, sp.oo), measures="<v, v* - v> from T1 on")
P26 = _listed("CEL23-P26", "alignment margin in S_1", "Proposition 26 (App. E)",
              "a static statement about points of S_1 (no run); on runs, L28 checks that v "
              "stays in S", statement=sp.Gt(XiCos(t), (EtaMin * NuStarLast / GammaN)**2 / 2),
              notes="for v(t) in S_1")
TEACHER_CONE = _dynamic(
    "CEL23-P27", "the bundle is within pi/4 of the teacher from T1 on",
    "Proposition 27, proof (cos angle(v*, v) >= 1/sqrt 2 + 2 lam^(eps/2))",
    sp.Gt(TeacherCosV(t), 1 / sp.sqrt(2) + 2 * lam ** (eps / 2)),
    window=(T1, sp.oo), measures="cos angle(v(t), v*) from T1 on")
BUNDLE = _dynamic(
    "CEL23-L28", "after T1: the positive neurons stay within 4 lam^eps of each other, the "
    "network acts linearly through v, v stays in S (Xi margin 0) and |v|^2 grows",
    "Lemma 28 (i)-(iv), (vi), (viii), (ix)",
    sp.And(sp.Lt(BundleMisalign(t), 4 * lam ** eps), sp.Eq(LinearGap(t), 0),
           sp.Eq(GradSpread(t), 0), sp.Gt(SMargin(t), 0),
           sp.Le(BundleVelocityGap(t), 3 * lam ** (eps / 2)),
           sp.Ge(TeacherGapSqRate(t), -5 * EtaMax * NormV(t) * TeacherGapSq(t))),
    window=(sp.Max(T0, T1), sp.oo),
    measures="pairwise cosines in J_+, max_i |h(x_i) - <v, x_i>|, max_j |g_j - g|, the margin "
    "of v in S, |dv/dt - f|/|f|, d|v* - v|^2/dt",
    notes="(iii)/(iv) are exact once negatives are frozen (from max(T0, T1)). S is tested "
    "with its Xi margin lam^(eps/3) set to 0, as the catalogue's relaxed rule says: the margin "
    "itself (0.22 at lam = 4^-13) is violated in runs. (viii) d|v|^2/dt >= 3 lam^(eps/3) "
    "|v|^2 |g| is its own row CEL23-L28b.")
BUNDLE_GROWTH = _dynamic(
    "CEL23-L28b", "after T1: d|v|^2/dt >= 3 lam^(eps/3) |v|^2 |g|", "Lemma 28(viii)",
    sp.Ge(NormVSqRate(t), 3 * lam ** (eps / 3) * NormV(t) ** 2 * NormG(t)),
    window=(sp.Max(T0, T1), sp.oo), measures="d|v|^2/dt against 3 lam^(eps/3) |v|^2 |g|")
OVERSHOOT = _dynamic(
    "CEL23-F28a", "the teacher coordinates are overtaken in eigen-order (an initial segment)",
    "Section 5 text, App. E Example 31 (derived from L28(ii) and D6)",
    sp.Ge(OvershootOrder(t), 0), window=(sp.Max(T0, T1), sp.oo), provenance=Provenance.DERIVED,
    measures="min_{k<k'} max(r_k - 1, 1 - r_k'), r_k = nu_k/nu_k*")
SECOND_PHASE = _dynamic(
    "CEL23-L32", "|v| < 1/2 before T2; after T2 |v| > |gamma_[n]|/(4 eta_1), PL with "
    "2 eta_d |gamma_[n]|/(5 eta_1), and L below (|gamma_[n]|/2) e^(-(t-T2) 2 eta_d "
    "|gamma_[n]|/(5 eta_1))", "Lemma 32 (i), (iii), (iv) and its proof's envelope",
    sp.And(sp.Gt(NormV(t), GammaN / (4 * EtaMax)),
           sp.Gt(PL(t), 2 * EtaMin * GammaN / (5 * EtaMax)),
           sp.Lt(L(t), GammaN / 2 * sp.exp(-(t - t_T2) * 2 * EtaMin * GammaN / (5 * EtaMax)))),
    window=(t_T2, sp.oo), event=T2_EVENT, event_time=t_T2,
    measures="|v|, ||grad L||^2/L and L from each run's T2 on",
    notes="(i) |v| < 1/2 on [T1, T2] is its own row CEL23-L32b; (ii) and (v) are the "
    "theorem's delta-bounds (CEL23-T6).")
BEFORE_T2 = _dynamic(
    "CEL23-L32b", "|v| < 1/2 on [T1, T2]", "Lemma 32(i)", sp.Lt(NormV(t), sp.Rational(1, 2)),
    window=(T1, t_T2), event=T2_EVENT, event_time=t_T2, measures="max |v| on [T1, T2]")
CONVERGENCE = _dynamic(
    "CEL23-T6", "T2 < ln(1/lam) (4 + eps) d Delta^2/delta^6", "Theorem 6 (Section 5)",
    sp.Lt(t_T2, sp.log(1 / lam) * (4 + eps) * d * DeltaA**2 / deltaA**6),
    kind=Kind.EVENT_TIME, event=T2_EVENT, event_time=t_T2,
    measures="each run's T2 against the theorem's bound",
    notes="The bound exceeds the measured T2 by factors of 10^5 and more (delta^-6); the PL "
    "part of the theorem is CEL23-L32's, and its loss envelope with delta is CEL23-T6b.")
CONVERGENCE_RATE = _dynamic(
    "CEL23-T6b", "L(T2 + s) < 0.5 Delta^2 exp(-0.4 s delta^4/Delta^2)", "Theorem 6 (Section 5)",
    sp.Lt(L(t), DeltaA**2 / 2 * sp.exp(-(t - t_T2) * Rate6 * deltaA**4 / DeltaA**2)),
    window=(t_T2, sp.oo), event=T2_EVENT, event_time=t_T2, measures="L(t) from each run's T2",
    parameters={"Rate6": sp.Rational(2, 5)},
    parameter_notes=EPS_NOTE + "; Rate6 = 0.4, the theorem's rate constant (the report's "
    "tightness table tightens it)")
F6A = _listed("CEL23-F6a", "T2 < (ln m + n ln n) d 17 27 Delta^4/delta^9 at one lam",
              "Section 5 remark", "arithmetic on T6 at one lam (108 x 4.25 = 459 = 17 x 27); "
              "T6 is checked on runs",
              statement=sp.Lt(t_T2, (sp.log(p) + n * sp.log(n)) * d * 17 * 27
                              * DeltaA**4 / deltaA**9))

# -- implicit bias (App. F, G) ----------------------------------------------------------------
def _limit(cid: str, title: str, where: str, statement, measures: str, *,
           provenance=Provenance.VERBATIM, window=ALWAYS, **kw) -> Claim:
    """A limit (lam -> 0, t -> infinity or both), checked along a sequence of runs
    (`verify.engine.check_limit`): each run's limit is its end state polished by Newton's method."""
    return _dynamic(cid, title, where, statement, kind=Kind.LIMIT, provenance=provenance,
                    window=window, measures=measures, **kw)


def _lim_t(expr):
    return sp.Limit(expr, t, sp.oo)


def _lim_lam(expr):
    return sp.Limit(expr, lam, 0)


RATIOS = _limit(
    "CEL23-L34", "final norm ratios are the yardsticks' as lam -> 0", "Lemma 34 (App. F)",
    sp.And(sp.Eq(_lim_lam(LimitNetGap(t)), 0), sp.Eq(_lim_lam(_lim_t(LimitNetGap(t))), 0)),
    "max_{j in J_+} | |w_j|/|W_+| - C_j/|C| | at T1 and at each run's limit point, over runs "
    "with lam decreasing geometrically", window=(T1, T1),
    notes="The ratios |w_j|/|w_j'| tend to C_j/C_j' iff the normalised norms |w_j|/|W_+| tend "
    "to C_j/|C|, which LimitNetGap compares (catalogue section 4.4). The first part is the "
    "lemma's middle term, at T1 (the window); the second its t -> infinity limit. The proof's "
    "fixed-lam inequalities (2 lam^(1-3 eps), lam^(eps/3) ln(1/lam)) are not checked here.")
RANK_ONE = _limit(
    "CEL23-T7", "zero loss, and the lam -> 0 limit is rank 1 in Theta_v*",
    "Theorem 7 (Section 6)",
    sp.And(sp.Eq(_lim_t(L(t)), 0), sp.Eq(_lim_lam(_lim_t(MaxActiveAngle(t))), 0),
           sp.Eq(_lim_lam(_lim_t(NormWPlusSq(t))), 1)),
    "each run's loss at its limit point; over runs with lam decreasing geometrically, the "
    "largest angle between active neurons and sum_{J_+} |w_j|^2 at the limit point",
    notes="Theta_v*: every non-zero neuron a positive multiple of v*, sum_j |w_j|^2 = 1. The "
    "angle's limit 0 with v = v* (CEL23-F7a) puts every active neuron along v*; neurons "
    "outside J_+ stay below lam |z_j| (F7a), so the sum over J_+ is the whole norm in the "
    "limit. The catalogue's tables find the angle about c lam (E-CEL23-1).")
FIXED_LAM = _limit(
    "CEL23-F7a", "at fixed lam the limit interpolates with v = v* and sum_{J_+} |w_j|^2 >= 1",
    "proof of Theorem 7 (App. F)",
    sp.And(sp.Eq(_lim_t(TeacherGapSq(t)), 0), sp.Ge(_lim_t(NormWPlusSq(t)), 1),
           sp.Lt(_lim_t(NormWPlusSq(t)), 1 / (1 - 4 * lam**eps))),
    "|v - v*|^2 and sum_{J_+} |w_j|^2 at each run's limit point (its end state polished by "
    "Newton's method), against the bounds at the run's lam",
    notes="as t -> infinity at fixed lam. Derived: sum_{J_+} |w_j|^2 = sum a_j |w_j| >= "
    "|sum a_j w_j| = |v*| = 1, with equality iff the neurons are parallel, so the lower bound "
    "has a room of the order of the squared angles (lam^2): it is decidable at the paper's "
    "lam, not at 1e-30. The upper bound is vacuous unless 4 lam^eps < 1.")
LIMIT_NETWORK = _limit(
    "CEL23-F7b", "the lam -> 0 limit network: a_j = w_j/v* = C_j/|C| on J_+",
    "derived from Lemma 34, Proposition 13(ii) and the proof of Theorem 7",
    sp.And(sp.Eq(_lim_lam(_lim_t(NormShareTop(t))), CShareTop),
           sp.Eq(_lim_lam(_lim_t(LimitNetGap(t))), 0)),
    "the normalised norms |w_j|/|W_+| at each run's limit point against C_j/|C| from the "
    "yardsticks' closed form (the largest one, and the largest gap), over runs with lam "
    "decreasing geometrically", provenance=Provenance.DERIVED,
    notes="C_j = (1/2)(|alpha_j(tau)| + <alpha_j(tau), gamma^_[n]>) e^(-|gamma_[n]| tau) for any "
    "tau after the yardstick's last crossing (catalogue section 4.4). The catalogue's RK4 runs "
    "stopped at 1e-3, their integrator's error; the exact flow's gap is about 0.028 lam.")
PLATEAU_ANGLES = _limit(
    "CEL23-F35a", "at fixed lam the bundle's angles level off at a positive value",
    "App. F, Example 35, Fig. 5", sp.Gt(_lim_t(MaxActiveAngle(t)), 0),
    "the largest angle between active neurons at the run's limit point (its end state "
    "polished by Newton's method), against 0",
    notes="as t -> infinity at fixed lam; 'in general positive': at the paper's lam = 4^-7 "
    "the angle is of the order of 1e-4 rad on the pack's instances.")
_THEOREM8 = ("a statement about the data and the interpolators (no run): "
             "papers/cel23/theorem8.py computes M with a certified sign, Example 37's "
             "families, the proof's interpolator and a certified bracket of the minimum norm; "
             "tests/papers/test_cel23_theorem8.py checks them")
THEOREM_8 = _listed("CEL23-T8", "minimum rank is minimum norm iff M < 0",
                    "Theorem 8 (Section 7, App. G)", _THEOREM8,
                    statement=sp.And(sp.Implies(sp.Lt(MTheorem8, 0), sp.Eq(InterpNormSq, 2)),
                                     sp.Implies(sp.Gt(MTheorem8, 0), sp.Lt(InterpNormSq, 2))))
F8A = _listed("CEL23-F8a", "(X^T X)^-1 a Z-matrix implies M < 0", "Section 7", _THEOREM8,
              statement=sp.Implies(sp.Eq(ChiZMatrix, 1), sp.Lt(MTheorem8, 0)))
F8B = _listed("CEL23-F8b", "orthogonal data give M < 0", "Section 7", _THEOREM8,
              statement=sp.Implies(sp.Eq(PairCosMin, 0), sp.Lt(MTheorem8, 0)),
              notes="orthogonal data are outside the pi/4 setting; the labels must be positive")
F37A = _listed("CEL23-F37a", "Example 37's family with M < 0", "App. G, Example 37", _THEOREM8,
               statement=sp.Lt(MTheorem8, 0))
F37B = _listed("CEL23-F37b", "Example 37's family with M > 0", "App. G, Example 37", _THEOREM8,
               statement=sp.And(sp.Gt(MTheorem8, 0), sp.Lt(InterpNormSq, 2)))
F38 = _listed("CEL23-F38", "every interpolator has |theta|^2 >= 2 cos angle(v*, x_i)",
              "App. G, Remark 38 (i)", _THEOREM8,
              statement=sp.Ge(InterpNormSq, 2 * TeacherCosMax))

CLAIMS = (ASSUMPTION_1, ASSUMPTION_2, ASSUMPTION_3, F0A, F0B, F0C, BALANCE, BALANCE_LOWER,
          ENERGY, POLAR, P11, P12, P2, P14, P13, C15, P16, P17, PHASE_ORDER, NORM_CONTROL,
          CROSSINGS, TRACKING, NEGATIVES, P22, AT_T1, L23, P24, BALL, P26, TEACHER_CONE, BUNDLE,
          BUNDLE_GROWTH, OVERSHOOT, BEFORE_T2, SECOND_PHASE, CONVERGENCE,
          CONVERGENCE_RATE, F6A, RATIOS, RANK_ONE, FIXED_LAM, LIMIT_NETWORK, PLATEAU_ANGLES,
          THEOREM_8, F8A, F8B, F37A, F37B, F38)
