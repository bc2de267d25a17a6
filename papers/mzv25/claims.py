"""MZV25: Min, Zhu, Vidal, "Neural Collapse under Gradient Flow on Shallow ReLU Networks for
Orthogonally Separable Data" (NeurIPS 2025, arXiv 2510.21078).

Setting: f(x) = sum_j v_j relu(<w_j, x>) (bias-free, width h >= K; the vocabulary's a_j is the
paper's v_j in the binary case), trained by gradient flow on a *sum* loss sum_i l(y_i, f(x_i))
from a small balanced initialisation w_j(0) = eps w_j0, v_j(0) = eps v_j0, |w_j0| = |v_j0|
(A2). Two cases (section 3):

- binary (case one): y_i = +-1, l = exp(-y f) or 2 log(1 + exp(-y f)) (the factor 2 is the
  paper's; `numerics.Problem` loss ``logistic`` with loss_scale 2). Checked here on exact
  flows (papers/mzv25/tests). N_+- = {j : sign v_j(0) = +-1}; the groups N~_+- of Claim 1 are
  the neurons in S_+- (active exactly on one class) after separation;
- K classes (case two): v_j in R^K, softmax cross-entropy, pseudo-labels E~ = sqrt(K/(K-1))
  (I - 11^T/K). Declared with their sources; they need the model's vector output (in progress
  in `numerics`), so they are not checked yet (`K_CLASS_REASON`). Lemmas that are statements
  about numbers (1, 6, 7, 8, 10) and the data-pair initialisation of section 4.2 are checked
  on grids of points drawn by `papers.mzv25.multiclass`.

"Sufficiently small eps" is never quantified in MZV25: the binary claims are "based on" the
ICLR 2024 paper (S001, cited as [20]), whose condition (28) is the explicit version. It is
declared here as a hypothesis the runs need not meet (``required=False``): a verdict on a run
at eps = 1e-3 says "relaxed (outside the paper's hypotheses)" with the numbers. MZV25-F13
checks S001's alignment time where (28) does hold (S001's eps = 1e-100 instance).

Theorem 1's conclusions are limits of theta(t)/|theta(t)| as t -> infinity, approached like
(log t)^(-1/2) (catalogue H.3); they are listed with that reason, and their exact finite-time
consequences are checked: separation and orthogonal class means from T* on (F1, T1b), the
decoupled linear blocks (F6, F6b), Lyu and Li's monotone smoothed margin (F10b) and the
resulting upper bound by the limit margin (T1d).

Entry ids follow the catalogue (/work/scratch/mzv25/MZV25.md, the page docs/papers/mzv25.md);
a heading's further parts carry a letter (T1b, T1c, ...).

Length: declarative claim records, one per catalogue entry (nothing here computes).
"""

from __future__ import annotations

import sympy as sp

from papers.s001.claims import DEFINITIONS as S001_DEFINITIONS
from papers.s001.claims import EPS_28, EPS_EARLY, LONG_EARLY_PHASE
from papers.s001.claims import THEOREM as S001_THEOREM
from theory.claim import Assumption, Claim, Kind, Provenance, Source
from theory.symbols import (
    Balance,
    ConeExits,
    DirError,
    InitImbalance,
    L,
    LossScale,
    LostNeurons,
    NormW,
    NumInSPlus,
    NumVMinusActive,
    NumVPlusActive,
    SignFlips,
    T_early,
    Term,
    Unsorted,
    Wmax,
    Xmax,
    Xmin,
    d,
    lam,
    n,
    p,
    t,
    t_1,
    t_align,
)

# -- the pack's vocabulary ------------------------------------------------------------------
NumClasses = sp.Symbol("NumClasses", positive=True, integer=True)
MuSame = sp.Symbol("MuSame", real=True)
MuDiff = sp.Symbol("MuDiff", real=True)
GammaPlus = sp.Symbol("GammaPlus", positive=True)
GammaMinus = sp.Symbol("GammaMinus", positive=True)
GammaMin = sp.Symbol("GammaMin", positive=True)
RepellerCos = sp.Symbol("RepellerCos", real=True)
SemiLocal = sp.Symbol("SemiLocal", nonnegative=True)
A5Lhs = sp.Symbol("A5Lhs", positive=True)
Zeta9 = sp.Symbol("Zeta9", nonnegative=True)
OrthMargin = sp.Symbol("OrthMargin", real=True)
MaxClassSize = sp.Symbol("MaxClassSize", positive=True, integer=True)
q_inf = sp.Symbol("q_inf", positive=True)
t_sep = sp.Symbol("t_sep", nonnegative=True)
t_fit = sp.Symbol("t_fit", nonnegative=True)
# free variables of the lemmas checked on grids
SoftmaxDev = sp.Symbol("SoftmaxDev", nonnegative=True)
LogitNorm = sp.Symbol("LogitNorm", nonnegative=True)
BSelf = sp.Symbol("BSelf", real=True)
BOther = sp.Symbol("BOther", real=True)
SumNorm = sp.Symbol("SumNorm", nonnegative=True)
CoefSum = sp.Symbol("CoefSum", nonnegative=True)
CrossInner = sp.Symbol("CrossInner", real=True)
NormProduct = sp.Symbol("NormProduct", nonnegative=True)
SumNormSq = sp.Symbol("SumNormSq", nonnegative=True)
SumSqNorms = sp.Symbol("SumSqNorms", nonnegative=True)
AvgGap = sp.Symbol("AvgGap", nonnegative=True)
BetaCos = sp.Symbol("BetaCos", real=True)
A4CountMargin = sp.Symbol("A4CountMargin", real=True)
A4AlignMargin = sp.Symbol("A4AlignMargin", real=True)
A4PseudoMargin = sp.Symbol("A4PseudoMargin", real=True)
CETrace = sp.Symbol("CETrace", real=True)
NC3Inf = sp.Symbol("NC3Inf", nonnegative=True)
# run scalars of the experiments
FeaturePCAError = sp.Symbol("FeaturePCAError", nonnegative=True)
DataPCAError = sp.Symbol("DataPCAError", nonnegative=True)
NC1Rms = sp.Symbol("NC1Rms", nonnegative=True)
NC1Plain = sp.Symbol("NC1Plain", nonnegative=True)

SharePlus = sp.Function("SharePlus")
ShareMinus = sp.Function("ShareMinus")
MisalignPlus = sp.Function("MisalignPlus")
MisalignMinus = sp.Function("MisalignMinus")
CrossOverlap = sp.Function("CrossOverlap")
NumInSMinus = sp.Function("NumInSMinus")
NC1 = sp.Function("NC1")
NC2 = sp.Function("NC2")
NC3 = sp.Function("NC3")
MarginPlus = sp.Function("MarginPlus")
MarginMinus = sp.Function("MarginMinus")
NormThetaSq = sp.Function("NormThetaSq")
SmoothMargin = sp.Function("SmoothMargin")
DecouplingGap = sp.Function("DecouplingGap")
GramImbalance = sp.Function("GramImbalance")
ShareGap = sp.Function("ShareGap")
MisalignMax = sp.Function("MisalignMax")
PseudoLabelGap = sp.Function("PseudoLabelGap")
BlockMismatch = sp.Function("BlockMismatch")
MaxOutNorm = sp.Function("MaxOutNorm")
AngularResidual = sp.Function("AngularResidual")
MinPseudoAlign = sp.Function("MinPseudoAlign")
AlignExcessMin = sp.Function("AlignExcessMin")
CountViolations = sp.Function("CountViolations")
A4CountMin = sp.Function("A4CountMin")
A4AlignMin = sp.Function("A4AlignMin")
MeanDirDefect = sp.Function("MeanDirDefect")

TERMS = (
    Term("NumClasses", NumClasses, "instance", "K, the number of classes (2 in the binary case)"),
    Term("MuSame", MuSame, "instance",
         "MZV25's mu_s: min over pairs of one class of cos(x_i, x_j) (A1: > 0)"),
    Term("MuDiff", MuDiff, "instance",
         "MZV25's mu_d: minus the max over pairs of two classes of cos(x_i, x_j) (A1: > 0)"),
    Term("GammaPlus", GammaPlus, "instance",
         "gamma_+ = max_{|u| = 1} min_{y_i = +1} <x_i, u>, the max margin of the positive class "
         "alone (MZV25 eq. (4))"),
    Term("GammaMinus", GammaMinus, "instance", "gamma_-, the same for the negative class"),
    Term("GammaMin", GammaMin, "instance", "min_k gamma_k over the classes (MZV25 Lemma 11)"),
    Term("RepellerCos", RepellerCos, "instance",
         "max(max_{j in N_+} cos(w_j(0), x_-), max_{j in N_-} cos(w_j(0), x_+)), x_+- the class "
         "sums (MZV25 Assumption 3, eq. (9): < 1)"),
    Term("SemiLocal", SemiLocal, "instance",
         "1 if MZV25's Assumption 4 (semi-local initialisation) holds with the partition "
         "argmax_k <e~_k, v_j(0)>, every class receiving a neuron, else 0"),
    Term("A5Lhs", A5Lhs, "instance",
         "X_max^2/(X_min^2 mu_d mu_s^2), the left side of MZV25 Proposition 1's condition"),
    Term("Zeta9", Zeta9, "instance",
         "MZV25 Lemma 9's zeta: the smallest 1 - cos^2(w, sum of the class-k points active on "
         "w) over directions w that activate some but not all of class k"),
    Term("OrthMargin", OrthMargin, "instance",
         "MZV25 Lemma 12's gamma_perp: min_k min over unit xi in span(X_k), xi _|_ u_k, of "
         "max_{i in I_k} <xi, x_i>"),
    Term("MaxClassSize", MaxClassSize, "instance", "max_k |I_k|"),
    Term("q_inf", q_inf, "constant",
         "the limit normalised margin Theorem 1 implies: 1/(2 (1/gamma_+ + 1/gamma_-)) "
         "(binary, derived: s_k^2 gamma_k is the same for both classes)"),
    Term("t_sep", t_sep, "event",
         "MZV25's T*: first time from which every neuron is in its cone S_+ (N_+) or S_- (N_-) "
         "or dead, with both groups non-empty; the event is defined on the claim"),
    Term("t_fit", t_fit, "event",
         "first time L(t) < c (c the loss's prefactor): every sample on its label's side"),
    Term("SoftmaxDev", SoftmaxDev, "variable",
         "|softmax(z) - 1/K| for a logit vector z (free variable of MZV25 Lemma 1)"),
    Term("LogitNorm", LogitNorm, "variable", "|z|, the logit vector's norm (MZV25 Lemma 1)"),
    Term("BSelf", BSelf, "variable",
         "B_k = <e~_k, v> for a unit v in R^K (free variable of MZV25 Lemma 6)"),
    Term("BOther", BOther, "variable", "B_k' = <e~_k', v>, k' != k (MZV25 Lemma 6)"),
    Term("SumNorm", SumNorm, "variable",
         "|sum_{i in I_k} a_i x_i| for coefficients a_i >= 0 (MZV25 Lemma 7 (41))"),
    Term("CoefSum", CoefSum, "variable", "sum_i a_i of those coefficients (MZV25 Lemma 7)"),
    Term("CrossInner", CrossInner, "variable",
         "<sum_{I_k} a_i x_i, sum_{I_k'} b_i x_i>, a, b >= 0, k != k' (MZV25 Lemma 7 (42))"),
    Term("NormProduct", NormProduct, "variable",
         "|sum_{I_k} a_i x_i| |sum_{I_k'} b_i x_i| (MZV25 Lemma 7 (42))"),
    Term("SumNormSq", SumNormSq, "variable",
         "|sum_i z_i|^2 for vectors with <z_i, z_j> <= 0 (MZV25 Lemma 8)"),
    Term("SumSqNorms", SumSqNorms, "variable", "sum_i |z_i|^2 (MZV25 Lemma 8)"),
    Term("AvgGap", AvgGap, "variable",
         "|(1/(K-1)) sum_{k>1} [v]_k - <p, v>| for a unit v and a distribution p on classes "
         "2..K (MZV25 Lemma 10)"),
    Term("BetaCos", BetaCos, "variable", "beta = <v, e~_1> (MZV25 Lemma 10)"),
    Term("A4CountMargin", A4CountMargin, "variable",
         "min over neurons of |I_k^w|^2 - sum_{k' != k} |I_k'^w|^2 (MZV25 Assumption 4)"),
    Term("A4AlignMargin", A4AlignMargin, "variable",
         "min over neurons of A_k^w - 2 sum_{k' != k} A_k'^w (MZV25 Assumption 4)"),
    Term("A4PseudoMargin", A4PseudoMargin, "variable",
         "min over neurons of B_k^v - (1 - 1/(2(K-1))) (MZV25 Assumption 4)"),
    Term("CETrace", CETrace, "variable",
         "tr((e_k 1^T - Y^)^T Theta^T P_perp X) of MZV25 Lemma 13"),
    Term("FeaturePCAError", FeaturePCAError, "run",
         "relative error of the rank-3 PCA of the last-layer features (MZV25 Fig. 3(d))"),
    Term("DataPCAError", DataPCAError, "run",
         "relative error of the rank-3 PCA of the inputs (MZV25 Fig. 3(c))"),
    Term("NC1Rms", NC1Rms, "run", "NC1 at the end of training with an RMSNorm layer (MZV25)"),
    Term("NC1Plain", NC1Plain, "run", "NC1 at the end of training without it (MZV25)"),
    Term("SharePlus", SharePlus, "trajectory",
         "(|W_+|_F^2 + |V_+|_F^2)/|theta|_F^2 over the group N~_+ (MZV25; -> 2 s_+^2)"),
    Term("ShareMinus", ShareMinus, "trajectory", "the same over N~_- (MZV25; -> 2 s_-^2)"),
    Term("MisalignPlus", MisalignPlus, "trajectory",
         "|P_perp(u_+) W_+|_F/|W_+|_F over N~_+ (MZV25; -> 0)"),
    Term("MisalignMinus", MisalignMinus, "trajectory", "the same over N~_- against u_-"),
    Term("CrossOverlap", CrossOverlap, "trajectory",
         "max over pairs of two classes |<phi(x_i), phi(x_i')>| over max |<phi, phi>|, "
         "phi(x) = relu(W x) the last-layer features (MZV25; 0 after separation)"),
    Term("NumInSMinus", NumInSMinus, "trajectory", "number of neurons in S_- at t"),
    Term("NC1", NC1, "trajectory",
         "MZV25 App. B.2's NC1: summed within-class over between-class variance of phi"),
    Term("NC2", NC2, "trajectory",
         "MZV25 App. B.2's NC2: |G/|G|_F - I/sqrt(K)|_F, G the Gram matrix of the class-mean "
         "directions of phi"),
    Term("NC3", NC3, "trajectory",
         "MZV25 App. B.2's NC3 read as |A/|A|_F - E~/sqrt(K)|_F, A = V^T (Phi^+)^T (the printed "
         "V Phi^+ has no product; the printed target E~/sqrt(K-1) has norm sqrt(K/(K-1)))"),
    Term("MarginPlus", MarginPlus, "trajectory",
         "q_+ = min_{y_i = +1} y_i f(x_i)/|theta|_F^2, the normalised margin of I_+"),
    Term("MarginMinus", MarginMinus, "trajectory", "q_-, the same over I_-"),
    Term("NormThetaSq", NormThetaSq, "trajectory", "|theta(t)|_F^2 = |W|_F^2 + |V|_F^2"),
    Term("SmoothMargin", SmoothMargin, "trajectory",
         "Lyu and Li's smoothed normalised margin log(c/L(t))/|theta(t)|_F^2 (exponential "
         "loss c sum_i exp(-y_i f(x_i)))"),
    Term("DecouplingGap", DecouplingGap, "trajectory",
         "largest relative gap between the network and its two linear blocks V_+- W_+-^T of "
         "eq. (11), in the outputs and in the flow's velocity (0 after separation)"),
    Term("GramImbalance", GramImbalance, "trajectory",
         "max_k |W_k W_k^T - v_k v_k^T|_F over the groups N~_k (rows w_j): the matrix that a "
         "linear block's flow conserves"),
    Term("ShareGap", ShareGap, "trajectory", "max_k |share_k(t) - 2 s_k^2| (K classes)"),
    Term("MisalignMax", MisalignMax, "trajectory",
         "max_k |P_perp(u_k) W_k|_F/|W_k|_F over the groups N_k (K classes)"),
    Term("PseudoLabelGap", PseudoLabelGap, "trajectory",
         "1 - min_k min_{j in N_k} <e~_k, v_j/|v_j|> (K classes; -> 0 by Proposition 2)"),
    Term("BlockMismatch", BlockMismatch, "trajectory",
         "number of pairs (j, i) whose activation differs from the block pattern 1{i in "
         "I_k(j)} of the partition N_k (K classes)"),
    Term("MaxOutNorm", MaxOutNorm, "trajectory", "max_i |f(x_i)| of the vector output"),
    Term("AngularResidual", AngularResidual, "trajectory",
         "max_j of the residuals of MZV25 Lemma 3: |dw^_j/dt - P_perp (sqrt((K-1)/K) sum_i "
         "xi_ij <E~ y_i, v^_j> x_i)| and the same for v^_j"),
    Term("MinPseudoAlign", MinPseudoAlign, "trajectory",
         "min_k min_{j in N_k} B_k^(v_j) = <e~_k, v_j/|v_j|>"),
    Term("AlignExcessMin", AlignExcessMin, "trajectory",
         "min_j of [A_k - 2 sum_{k' != k} A_k'](t) - [same](0) for j in N_k (MZV25 Lemma 4)"),
    Term("NC3Inf", NC3Inf, "instance",
         "the limit of NC3 (normalised reading) Theorem 1 implies: |E~ diag(s)/|E~ diag(s)|_F - "
         "E~/sqrt(K)|_F (derived; 0 iff the gamma_k are equal)"),
    Term("A4CountMin", A4CountMin, "trajectory",
         "min over neurons of |I_k^(w_j)|^2 - sum_{k' != k} |I_k'^(w_j)|^2, k the neuron's "
         "group (MZV25 Assumption 4 along the run)"),
    Term("MeanDirDefect", MeanDirDefect, "trajectory",
         "max over the neurons some sample activates of 1 - cos(w_j, x_(sign v_j)), x_+- the "
         "sums of the classes' points (binary)"),
    Term("A4AlignMin", A4AlignMin, "trajectory",
         "min over neurons of A_k - 2 sum_{k' != k} A_k' (MZV25 Assumption 4 along the run)"),
    Term("CountViolations", CountViolations, "trajectory",
         "number of (j, k) with |I_k^(w_j)| below its initial value or |I_k'^(w_j)| above "
         "it, k' != k (MZV25 Lemma 4, part 3)"),
)
LATEX_NAMES = {
    "NumClasses": "K", "MuSame": r"\mu_s", "MuDiff": r"\mu_d", "GammaPlus": r"\gamma_+",
    "GammaMinus": r"\gamma_-", "GammaMin": r"\min_k \gamma_k",
    "RepellerCos": r"\max_j \cos(w_{j0}, \bar x_\mp)",
    "SemiLocal": r"\mathbb{1}[\mathrm{A4}]",
    "A5Lhs": r"\frac{X_{\max}^2}{X_{\min}^2 \mu_d \mu_s^2}",
    "Zeta9": r"\zeta", "OrthMargin": r"\gamma^\perp", "MaxClassSize": r"\max_k |I_k|",
    "q_inf": r"q_\infty", "t_sep": r"T^*", "t_fit": r"t_{L<c}",
    "SoftmaxDev": r"\|\hat y - \tfrac{1}{K}\mathbf 1\|", "LogitNorm": r"\|f\|",
    "BSelf": "B_k", "BOther": "B_{k'}", "SumNorm": r"\|\textstyle\sum_i a_i x_i\|",
    "CoefSum": r"\textstyle\sum_i a_i",
    "CrossInner": r"\langle \textstyle\sum a_i x_i, \sum b_i x_i \rangle",
    "NormProduct": r"\|\textstyle\sum a_i x_i\| \|\sum b_i x_i\|",
    "SumNormSq": r"\|\textstyle\sum_i z_i\|^2", "SumSqNorms": r"\textstyle\sum_i \|z_i\|^2",
    "AvgGap": r"|\tfrac{1}{K-1}\textstyle\sum_{k>1} [\bar v]_k - \langle p, \bar v\rangle|",
    "BetaCos": r"\beta", "A4CountMargin": r"\min_j \Delta_{|I|}",
    "A4AlignMargin": r"\min_j \Delta_A", "A4PseudoMargin": r"\min_j \Delta_B",
    "CETrace": r"\operatorname{tr}(\cdot)", "FeaturePCAError": r"e_3(\phi(X))",
    "DataPCAError": r"e_3(X)", "NC1Rms": r"\mathrm{NC1}_{\mathrm{RMS}}",
    "NC1Plain": r"\mathrm{NC1}_{\mathrm{none}}",
    "SharePlus": r"\pi_+(t)", "ShareMinus": r"\pi_-(t)",
    "MisalignPlus": r"\frac{\|P^\perp_{u_+} W_+\|}{\|W_+\|}(t)",
    "MisalignMinus": r"\frac{\|P^\perp_{u_-} W_-\|}{\|W_-\|}(t)",
    "CrossOverlap": r"O_\times(t)", "NumInSMinus": r"|S_-|(t)", "NC1": r"\mathrm{NC1}(t)",
    "NC2": r"\mathrm{NC2}(t)", "NC3": r"\mathrm{NC3}(t)", "MarginPlus": r"q_+(t)",
    "MarginMinus": r"q_-(t)", "NormThetaSq": r"\|\theta(t)\|^2",
    "SmoothMargin": r"\tilde\gamma(t)", "DecouplingGap": r"\Delta_{\mathrm{lin}}(t)",
    "GramImbalance": r"\max_k \|W_k W_k^\top - v_k v_k^\top\|(t)",
    "ShareGap": r"\max_k |\pi_k - 2 s_k^2|(t)",
    "MisalignMax": r"\max_k \frac{\|P^\perp_{u_k} W_k\|}{\|W_k\|}(t)",
    "PseudoLabelGap": r"(1 - \min_j B_k^{v_j})(t)", "BlockMismatch": r"\#_{\neq}(t)",
    "MaxOutNorm": r"\max_i \|f(x_i)\|(t)", "AngularResidual": r"r_{\mathrm{ang}}(t)",
    "MinPseudoAlign": r"\min_j B_k^{v_j}(t)",
    "AlignExcessMin": r"\min_j \Delta(A_k - 2\textstyle\sum A_{k'})(t)",
    "CountViolations": r"\#_{\mathrm{L4}}(t)", "NC3Inf": r"\mathrm{NC3}_\infty",
    "A4CountMin": r"\min_j \Delta_{|I|}(t)",
    "MeanDirDefect": r"\max_j (1 - \cos(w_j, x_{\mathrm{sign}\, v_j}))(t)",
    "A4AlignMin": r"\min_j \Delta_A(t)",
}
PAPER_LATEX_NAMES = {"MZV25": {"p": "h", "d": "D", "lam": r"\varepsilon"}}

SOURCE = "MZV25"
CLS = "classification"
MCLS = "multiclass"
INSTANCE = (sp.Integer(0), sp.Integer(0))
K_CLASS_REASON = ("K-class case: its quantities (the class directions u_k, the shares s_k, "
                  "NC3, Lemma 3's angular residual, Lemma 4's counts) are functions of arrays "
                  "in papers/mzv25/multiclass.py, unit-tested, not yet measured on a "
                  "vector-output run; P1, P3, L2, L5, A4 and A5 are checked on exact flows of "
                  "the mzv25-kclass family")
LIMIT_REASON = ("a limit of theta(t)/|theta(t)| as t -> infinity with no rate or tolerance "
                "stated (catalogue H.3: approached like (log t)^(-1/2)); its exact finite-time "
                "consequences are checked (MZV25-F1, T1b, T1d, F6, F6b, F10b) and report section "
                "E-MZV25-1 shows the trend against the predicted limit")
Q_INF = {q_inf: 1 / (2 * (1 / GammaPlus + 1 / GammaMinus))}


def _src(where: str, provenance: Provenance = Provenance.VERBATIM) -> Source:
    return Source(SOURCE, where, provenance)


def _relaxed(assumption: Assumption) -> Assumption:
    """S001's explicit condition on eps, as a hypothesis MZV25 leaves unquantified: checked
    where it fails, the verdict saying so."""
    return Assumption(f"{assumption.name} [S001]", assumption.statement,
                      assumption.text + " (S001's explicit form of MZV25's 'eps sufficiently "
                      "small')", required=False)


# -- hypotheses ------------------------------------------------------------------------------
A1_SEPARABLE = Assumption(
    "A1 orthogonally separable", sp.And(sp.Gt(MuSame, 0), sp.Gt(MuDiff, 0)),
    "cos(x_i, x_j) >= mu_s > 0 within a class and <= -mu_d < 0 across classes")
A2_BALANCED = Assumption(
    "A2 balanced initialisation", sp.Eq(InitImbalance, 0), "|w_j0| = |v_j0| for every j")
A3_NONDEGENERATE = Assumption(
    "A3 non-degenerate initialisation",
    sp.And(sp.Ge(NumVPlusActive, 1), sp.Ge(NumVMinusActive, 1), sp.Lt(RepellerCos, 1)),
    "(8) some j in N_+ starts active on a point of I_+ and some j in N_- on one of I_-; (9) "
    "no w_j0 of N_+ along x_- and none of N_- along x_+")
A4_SEMI_LOCAL = Assumption(
    "A4 semi-local initialisation", sp.Eq(SemiLocal, 1),
    "a partition {N_k} with |I_k^w|^2 > sum_{k'!=k} |I_k'^w|^2, A_k^w > 2 sum_{k'!=k} A_k'^w and "
    "B_k^v >= 1 - 1/(2(K-1)) for every j in N_k (eq. (18))")
A5_TIGHT = Assumption(
    "A5 Proposition 1's condition", sp.Lt(A5Lhs, 2 * NumClasses - 3),
    "X_max^2/(X_min^2 mu_d mu_s^2) < 2K - 3")
EPS_S001 = (_relaxed(EPS_28), _relaxed(LONG_EARLY_PHASE))
BINARY = (A1_SEPARABLE, A2_BALANCED, A3_NONDEGENERATE, *EPS_S001)
K_CLASS = (A1_SEPARABLE, A2_BALANCED, A4_SEMI_LOCAL, A5_TIGHT)
EPS_LEMMA_2 = Assumption(
    "Lemma 2's eps", sp.Le(lam, sp.sqrt(NumClasses) / (16 * Xmax * sp.sqrt(p))),
    "eps <= sqrt(K)/(16 X_max sqrt(h))")

SEPARATED = sp.And(sp.Le(Unsorted(t), 0), sp.Ge(NumInSPlus(t), 1), sp.Ge(NumInSMinus(t), 1))
FITTED = sp.Lt(L(t), LossScale)
BINARY_NOTE = ("Groups N~_+- are read off the run's end (the neurons in S_+-), which S_+- "
               "trap from T* on.")


def _binary(cid: str, title: str, where: str, statement, *, kind=Kind.POINTWISE,
            setting=BINARY, provenance=Provenance.VERBATIM, **kw) -> Claim:
    return Claim(id=cid, title=title, kind=kind, source=_src(where, provenance),
                 statement=statement, setting=setting, parametrization=CLS,
                 definitions={**S001_DEFINITIONS, **kw.pop("definitions", {})}, **kw)


def _after_separation(cid, title, where, statement, **kw) -> Claim:
    return _binary(cid, title, where, statement, kind=kw.pop("kind", Kind.TRAPPING),
                   window=(t_sep, sp.oo), event=SEPARATED, event_time=t_sep, **kw)


def _listed(cid: str, title: str, where: str, statement, reason: str, *,
            provenance=Provenance.VERBATIM, **kw) -> Claim:
    return Claim(id=cid, title=title, kind=kw.pop("kind", Kind.QUALITATIVE),
                 source=_src(where, provenance), statement=statement, checkable=False,
                 not_checkable_reason=reason, **kw)


def _k_class(cid, title, where, statement, **kw) -> Claim:
    return _listed(cid, title, where, statement, K_CLASS_REASON, **kw)


def _lim(expr):
    return sp.Limit(expr, t, sp.oo)


LIMIT_MEASURES = ("along the run's log-spaced saves from t = sqrt(t_end) on, against "
                  "1/|theta(t)|^2 (the norm grows like log t, the direction converges)")


def _t_limit(cid: str, title: str, where: str, statement, *, setting=BINARY,
             parametrization=CLS, measures=LIMIT_MEASURES, **kw) -> Claim:
    """A limit t -> infinity of the direction theta/|theta| (`verify.engine.check_limit`): no limit
    point at finite parameters, so it is read along the run's saves."""
    return Claim(id=cid, title=title, kind=Kind.LIMIT, source=_src(where), statement=statement,
                 setting=setting, parametrization=parametrization, measures=measures, **kw)


def _k_run(cid: str, title: str, where: str, statement, *, kind=Kind.POINTWISE,
           provenance=Provenance.VERBATIM, **kw) -> Claim:
    """A K-class claim checked on exact flows of the vector output (``mzv25-kclass``)."""
    return Claim(id=cid, title=title, kind=kind, source=_src(where, provenance),
                 statement=statement, setting=kw.pop("setting", K_CLASS), parametrization=MCLS,
                 **kw)


BLOCKED = sp.Le(BlockMismatch(t), 0)


def _grid(cid: str, title: str, where: str, statement, measures: str, *, setting=(),
          provenance=Provenance.VERBATIM, **kw) -> Claim:
    """A statement about numbers (no run), checked on a `verify.engine.evidence.Grid` of points
    drawn
    by the pack's tests (as S001-L2 is)."""
    return Claim(id=cid, title=title, kind=Kind.IDENTITY, source=_src(where, provenance),
                 statement=statement, setting=setting, measures=measures, **kw)


# -- assumptions ------------------------------------------------------------------------------
ASSUMPTION_1 = Claim(
    id="MZV25-A1", title="orthogonal separability: mu_s > 0 within classes, mu_d > 0 across, "
    "mu_d <= 1/sqrt(K-1)", kind=Kind.POINTWISE, source=_src("Section 2, Assumption 1, eq. (1)"),
    statement=sp.And(sp.Gt(MuSame, 0), sp.Gt(MuDiff, 0),
                     sp.Le(MuDiff, 1 / sp.sqrt(NumClasses - 1))),
    window=INSTANCE, measures="mu_s and mu_d from the data (the footnote's bound with them)",
    notes="Footnote 2: no dataset has mu_d > 1/sqrt(K-1). Sharper (derived): one point per "
    "class gives 0 <= |sum_k x^_k|^2 <= K - K(K-1) mu_d, so mu_d <= 1/(K-1), attained by a "
    "simplex ETF; the same for K = 2. For K = 2 this is S001's A1 with mu = min(mu_s, mu_d).")
ASSUMPTION_2 = Claim(
    id="MZV25-A2", title="eps-small balanced initialisation |w_j0| = |v_j0|", kind=Kind.POINTWISE,
    source=_src("Section 2, Assumption 2"), statement=A2_BALANCED.statement, window=INSTANCE,
    measures="max_j |v_j(0)^2 - |w_j(0)|^2| / (v_j(0)^2 + |w_j(0)|^2)",
    notes="'eps sufficiently small' is never quantified in the main text (S001 (28) for the "
    "binary case, Lemmas 2-3 and (60)-(61) for K classes). The proof of Lemma 2 uses "
    "|w_j(0)|^2 <= eps^2, i.e. |w_j0| <= 1 (inferred): the pack's families use unit shapes.")
ASSUMPTION_3 = Claim(
    id="MZV25-A3", title="non-degenerate initialisation (binary): each sign has a neuron active "
    "on its class, none starts at its repeller", kind=Kind.POINTWISE,
    source=_src("Section 4.1, Assumption 3, eqs. (8)-(9)"), statement=A3_NONDEGENERATE.statement,
    window=INSTANCE, measures="the counts of (8) and max cos(w_j0, x_-+) of (9) on the shapes",
    notes="(9) is S001's Assumption 2; random Gaussian shapes satisfy it almost surely.")
ASSUMPTION_4 = Claim(
    id="MZV25-A4", title="semi-local initialisation (K classes)", kind=Kind.POINTWISE,
    source=_src("Section 4.2, Assumption 4, eq. (18)"), statement=A4_SEMI_LOCAL.statement,
    window=INSTANCE, parametrization=MCLS,
    measures="the three margins of (18) per neuron with the partition argmax_k <e~_k, v_j(0)> "
    "(papers/mzv25/multiclass.py semi_local)",
    notes="The paper does not say that every N_k is non-empty; Theorem 1 needs it (phi_k must "
    "exist). The partition argmax_k B_k^(v_j) is the only one possible when B_k >= "
    "1 - 1/(2(K-1)) > 1/2 (inferred).")
ASSUMPTION_5 = Claim(
    id="MZV25-A5", title="extra separability condition X_max^2/(X_min^2 mu_d mu_s^2) < 2K - 3",
    kind=Kind.POINTWISE,
    source=_src("Section 4.2, Proposition 1 (also Proposition 3, 'Limitations')"),
    statement=A5_TIGHT.statement, window=INSTANCE, parametrization=MCLS,
    measures="the left side from the data (papers/mzv25/multiclass.py a5_lhs)",
    flags=("The proof of Lemma 4 needs a different condition, which no dataset meets (see "
           "MZV25-L4's flag): A5 as printed does not give the sign the proof uses.",),
    notes="ID ours (the paper does not number it). Derived: the left side is >= 1/mu_d >= "
    "K - 1, so the condition needs K > 2 and near-ETF, tight, equal-norm clusters (our "
    "isotropic draws at sigma = 0.15: left side 73-83; the mzv25-kclass family's clusters in "
    "span{e~_k} at sigma = 0.02, seeds 0-4: 2.3-2.7 against 3 at K = 3, 3.8-4.4 against 5 at "
    "K = 4).")

# -- Theorem 1, binary case (case one) -------------------------------------------------------
THEOREM_1 = _t_limit(
    "MZV25-T1", "binary case: intra-class directional collapse, phi(x_i) -> <s_k u_k, x_i> "
    "phi_k, rows of W_k along the class max-margin direction u_k",
    "Section 3, Theorem 1 (4), case one",
    sp.And(sp.Eq(_lim(MisalignPlus(t)), 0), sp.Eq(_lim(MisalignMinus(t)), 0)),
    measures="|P_perp(u_k) W_k|_F/|W_k|_F per group " + LIMIT_MEASURES,
    notes="as t -> infinity, approached like (log t)^(-1/2) (catalogue H.3): on the catalogue's "
    "instance the misalignment times |theta| levels off (2.64 from t = 1e6 to 1e12 in report "
    "section E-MZV25-1), the orthogonal part |P_perp W_+| stays bounded while |theta|^2 grows "
    "like log t. Over the t a float64 run reaches, 1/|theta|^2 spans a factor 2: the limit is "
    "not extrapolated (INCONCLUSIVE, with what a longer run would need), and a claim whose "
    "distance to its limit grows along the run is VIOLATED.")
THEOREM_1B = _after_separation(
    "MZV25-T1b", "binary case: orthogonal, non-negative class means (NC2 = 0 and no "
    "cross-class feature overlap) from T* on", "Section 3, Theorem 1 (5), case one; its "
    "finite-time form after Claim 1", sp.And(sp.Eq(NC2(t), 0), sp.Eq(CrossOverlap(t), 0)),
    measures="NC2 of App. B.2 and the largest cross-class inner product of the features from "
    "each run's T* on", notes="phi >= 0 holds for any ReLU features. After T* the two classes "
    "activate disjoint groups, so the class means are orthogonal at every finite time, "
    "which gives (5) in the limit. " + BINARY_NOTE)
SHARE_PLUS = (1 / GammaPlus) / (1 / GammaPlus + 1 / GammaMinus)
SHARE_MINUS = (1 / GammaMinus) / (1 / GammaPlus + 1 / GammaMinus)
THEOREM_1C = _t_limit(
    "MZV25-T1c", "binary case: projected self-duality V = s_+ phi_+^T - s_- phi_-^T, group "
    "shares 2 s_k^2 = gamma_k^-1 / sum gamma^-1", "Section 3, Theorem 1 (6), case one",
    sp.And(sp.Eq(_lim(SharePlus(t)), SHARE_PLUS), sp.Eq(_lim(ShareMinus(t)), SHARE_MINUS)),
    measures="(|W_k|^2 + |V_k|^2)/|theta|^2 per group " + LIMIT_MEASURES,
    notes="as t -> infinity. |W_k|_F = |V_k|_F = s_k in the limit; the shares are (|W_k|^2 + "
    "|V_k|^2)/|theta|^2. On the catalogue's instance (0.38634, 0.61366) at t = 1e12 against "
    "(0.38661, 0.61339) (report section E-MZV25-1).")
THEOREM_1D = _binary(
    "MZV25-T1d", "the smoothed margin stays below the limit margin 1/(2 (1/gamma_+ + "
    "1/gamma_-)) that Theorem 1 implies", "Section 3, remarks after Theorem 1 ((iii): V "
    "'yields a maximum margin'); derived with Lyu and Li's monotonicity (MZV25-F10b)",
    sp.Le(SmoothMargin(t), q_inf), provenance=Provenance.DERIVED, loss="exponential",
    window=(t_fit, sp.oo), event=FITTED, event_time=t_fit, definitions=Q_INF,
    measures="log(1/L)/|theta|^2 from each run's first time with L < 1 against q_inf",
    notes="Derived: in the limit of Theorem 1 the output on x_i in I_k is +-s_k^2 <u_k, x_i>, "
    "so every class has the normalised margin s_k^2 gamma_k = 1/(2 sum gamma^-1) = q_inf. "
    "The smoothed margin is non-decreasing (F10b) and tends to the limit's margin, so it is "
    "at most q_inf at every t: a wrong s_k (or a limit with a larger margin) shows as a "
    "violation at a finite time. For K classes the logit gap's limit is sqrt(K/(K-1)) q_inf.")
THEOREM_1E = _t_limit(
    "MZV25-T1e", "K-class case: directional collapse, orthogonal class means, projected "
    "self-duality V = sqrt(K/(K-1)) (I - 11^T/K) [s_1 phi_1, ..., s_K phi_K]^T",
    "Section 3, Theorem 1 (4)-(6), case two",
    sp.And(sp.Eq(_lim(MisalignMax(t)), 0), sp.Eq(_lim(NC2(t)), 0),
           sp.Eq(_lim(ShareGap(t)), 0), sp.Eq(_lim(PseudoLabelGap(t)), 0)),
    setting=K_CLASS, parametrization=MCLS,
    measures="on the vector output's runs, the misalignment, NC2, the shares against 2 s_k^2 "
    "and 1 - <e~_k, v^_j> " + LIMIT_MEASURES,
    notes="as t -> infinity; the 'additional case-dependent assumptions' are "
    "read as A4 + A5 (catalogue section 4.6).")
THEOREM_1F = _t_limit(
    "MZV25-T1f", "remarks after Theorem 1: V V^T = (K/(K-1)) (I - 11^T/K) diag(s_k^2) "
    "(I - 11^T/K), a scaled simplex ETF; RMS-normalised features collapse to a point",
    "Section 3, 'NC in two-layer ReLU' (i), (ii), (iv), (v)", sp.Eq(_lim(NC3(t)), NC3Inf),
    setting=K_CLASS, parametrization=MCLS, measures="NC3 (normalised reading) against its limit "
    "|E~ diag(s)/|E~ diag(s)|_F - E~/sqrt(K)|_F " + LIMIT_MEASURES,
    flags=("The V V^T formula is printed with Phi Phi^T (h x h); with Phi = "
           "[s_1 phi_1, ..., s_K phi_K] it must be Phi^T Phi = diag(s_k^2) "
           "(catalogue section 5 item 7).",),
    notes="as t -> infinity. NC3 (normalised reading) tends to |E~ diag(s)/|E~ diag(s)|_F - "
    "E~/sqrt(K)|_F, 0 iff all gamma_k are equal (derived): V V^T's ETF form is this limit of "
    "V's directions.")

# -- section 4.1: the binary claims --------------------------------------------------------------
CLAIM_SEPARATION = _after_separation(
    "MZV25-F1", "Claim 1: after some T*, N~_+ is active exactly on I_+, N~_- exactly on I_-, "
    "the rest is dead, and features of the two classes are orthogonal",
    "Section 4.1, first Claim, eq. (10) and the display after it",
    sp.And(sp.Eq(Unsorted(t), 0), sp.Ge(NumInSPlus(t), 1), sp.Ge(NumInSMinus(t), 1),
           sp.Eq(CrossOverlap(t), 0), sp.Eq(ConeExits(t), ConeExits(t_sep))),
    measures="the activation pattern from the first saved time it is separated (both groups "
    "non-empty) to the end of the run: neurons outside their cone, cone exits located by the "
    "exact flow's events, the cross-class feature inner products",
    flags=("Eq. (10) prints the W_- cases the other way round (> 0 on I_+, <= 0 on I_-) and "
           "labels the second feature display 'for i in I_+': read as I_- (catalogue "
           "section 5 item 3).",),
    notes="No proof in MZV25 ('based on' [17], [20]). T* exists on every run checked; S001's "
    "bound t_1 on it is MZV25-F13. " + BINARY_NOTE)
CLAIM_LIMIT = _t_limit(
    "MZV25-F2", "Claim 2: W_+ -> s_+ u_+ g_+^T, V_+ -> s_+ g_+^T, W_- -> s_- u_- g_-^T, "
    "V_- -> -s_- g_-^T", "Section 4.1, second Claim, eqs. (12)-(15)",
    sp.And(sp.Eq(_lim(MisalignPlus(t)), 0), sp.Eq(_lim(MisalignMinus(t)), 0),
           sp.Eq(_lim(SharePlus(t)), SHARE_PLUS)),
    measures="the misalignment of each group and the share of N~_+ " + LIMIT_MEASURES,
    flags=("'V_+ W_+^T proportional to u_+' is a row vector, proportional to u_+^T; eq. (15) "
           "drops the transposes of (6) (catalogue section 5 item 9).",),
    notes="as t -> infinity; based on Ji and Telgarsky [21] (V_+^T V_+ = W_+^T W_+ in the "
    "limit: MZV25-F6b checks its finite-time form) and Phuong and Lampert [17] (rank 1).")
ALIGNMENT_PHASE = _binary(
    "MZV25-F3", "alignment phase: dw^_j/dt = sign(v_j) P_perp (sum_i xi_ij y_i x_i + O(eps)), "
    "with S001's explicit error 4 eps n sqrt(h) X_max^2 W_max^2 on [0, T]",
    "Section 4.1, eq. (7) (the O(eps) made explicit by S001 Lemma 1, [20])",
    sp.Le(DirError(t), 4 * lam * n * sp.sqrt(p) * Xmax**2 * Wmax**2),
    setting=(A2_BALANCED, EPS_EARLY), window=(sp.Integer(0), T_early),
    measures="|d/dt w^_j - sign(v_j(0)) P_perp(w_j) sum_i xi_ij y_i x_i| from the exact field on "
    "[0, T], T = ln(1/(sqrt(h) eps))/(4 n X_max)",
    notes="MZV25 states the error as O(eps) only; the constant and T are S001's (Lemma 1 and "
    "App. C.2). W_max = max_j |w_j(0)|/eps.")
BALANCEDNESS = _binary(
    "MZV25-F4", "balancedness |w_j(t)| = |v_j(t)| and sign v_j(t) = sign v_j(0)",
    "Remark 2 and Section 4.1 (citing [18], [20], [25])",
    sp.And(sp.Eq(Balance(t), 0), sp.Eq(SignFlips(t), 0)), kind=Kind.CONSERVED,
    setting=(A2_BALANCED,), measures="max_j |c_j(t) - c_j(0)|, c_j = v_j^2 - |w_j|^2; sign "
    "flips of v_j", notes="Derived: the conserved quantity is v_j^2 - |w_j|^2 (eq. (22)); "
    "with a balanced start it stays 0, so N_+- never change. Under gradient descent it "
    "drifts by O(eta^2) per step.")
REDUCED_FLOW = Claim(
    id="MZV25-F5", title="the reduced alignment flow has only the class-mean directions and "
    "the dead region as limits: x_+ attracts N_+, x_- repels it", kind=Kind.LIMIT,
    source=_src("Section 4.1, after eq. (7)"),
    statement=sp.Eq(sp.Limit(MeanDirDefect(t), lam, 0), 0), setting=BINARY,
    parametrization=CLS, window=(T_early, T_early),
    definitions={**S001_DEFINITIONS, T_early: S001_DEFINITIONS[T_early]},
    measures="at the alignment phase's end T = ln(1/(sqrt(h) eps))/(4 n X_max): the largest "
    "1 - cos(w_j, x_(sign v_j)) over the neurons still active on a sample, on runs with eps "
    "decreasing geometrically (the same data and shapes): every live neuron of N_+- ends "
    "along its class's sum (x_+ attracts N_+; a neuron x_- repels dies) as the phase lengthens",
    notes="Derived: the alignment-phase limit is the class-mean direction x_k, not u_k; where "
    "they differ, the neurons turn from about x_k to u_k during the late phase. Qualitative "
    "in the paper (attractor, repeller): checked as the limit eps -> 0 of the alignment at T, "
    "where the reduced flow has run for T ~ ln(1/eps).")
DECOUPLING = _after_separation(
    "MZV25-F6", "after T* the loss decouples into two linear blocks: f = V_+ W_+^T x on I_+, "
    "V_- W_-^T x on I_-, and the flow is theirs", "Section 4.1, eq. (11); Section 4.2 before "
    "Proposition 2; App. D.1 eq. (64)", sp.Eq(DecouplingGap(t), 0), kind=Kind.IDENTITY,
    measures="the network's outputs and velocity against those of the two linear blocks "
    "(N~_+ on I_+, N~_- on I_-, no relu, the other neurons at rest), from T* on",
    notes="Exact once no neuron of N~_k misses a point of I_k or sees one of the other "
    "class. " + BINARY_NOTE)
BLOCK_GRAM = _after_separation(
    "MZV25-F6b", "after T* each block's W_k W_k^T - v_k v_k^T is conserved (the linear "
    "network's invariant, which gives V^T V = W^T W in the limit)",
    "App. D.1 item 2 ('from [21, 27]') and Claim 2's Ji-Telgarsky step; its finite-time form "
    "(derived)", sp.Eq(GramImbalance(t), GramImbalance(t_sep)), kind=Kind.CONSERVED,
    provenance=Provenance.DERIVED,
    measures="max_k |W_k W_k^T - v_k v_k^T|_F over N~_k against its value at T*",
    notes="Derived: on a linear block L(W, v) = sum_i l(v^T W^T x_i), W^T grad_W L = grad_v L "
    "v^T, so d/dt (W^T W - v v^T) = 0 (rows here: W W^T). Before T* only its diagonal "
    "(balancedness) is conserved. Divided by |W_k|^2, which grows like log t, it gives "
    "V^T V = W^T W for the limit directions. " + BINARY_NOTE)
ASYMPTOTICS = _t_limit(
    "MZV25-F10", "on each block: |W_k|, |V_k| -> infinity, the limit directions exist, satisfy "
    "V^T V = W^T W and are a KKT point of min |W_k|^2 + |V_k|^2 s.t. margins >= 1",
    "App. D.1 items 1-3 ('from [21, 27]'), eq. (66); App. D.2 after (74)",
    sp.And(sp.Eq(_lim(MisalignMax(t)), 0), sp.Eq(_lim(1 / NormThetaSq(t)), 0),
           sp.Eq(_lim(GramImbalance(t) / NormThetaSq(t)), 0)),
    measures="the largest misalignment, 1/|theta|^2 and the blocks' |W_k W_k^T - v_k v_k^T| "
    "over |theta|^2 " + LIMIT_MEASURES,
    notes="as t -> infinity. The KKT part is not measured (its multipliers are not given). "
    "App. D.2's '|W_1| grows like Theta(log t)' is read as |theta|^2 ~ log t (catalogue "
    "section 5 item 10): on the report's instance |theta|^2 grows by 6.4 per e-fold of t at "
    "t = 1e12 against 1/q_inf = 6.2.", flags=("'grow at a rate Theta(log t)' fits |W|^2, not "
                                              "|W| (catalogue section 5 item 10).",))
SMOOTHED_MARGIN = _binary(
    "MZV25-F10b", "once L < 1 the smoothed margin log(1/L)/|theta|^2 never decreases and "
    "|theta|^2 grows (exponential loss)", "App. D.1 items 1-3 ([27] Lyu and Li, their Lemma "
    "5.1 for 2-homogeneous networks); derived", sp.And(
        sp.Ge(sp.Derivative(SmoothMargin(t), t), 0), sp.Gt(sp.Derivative(NormThetaSq(t), t), 0)),
    kind=Kind.TRAPPING, provenance=Provenance.DERIVED, loss="exponential",
    window=(t_fit, sp.oo), event=FITTED, event_time=t_fit,
    measures="d/dt log(1/L)/|theta|^2 and d|theta|^2/dt from the exact field, from each run's "
    "first time with L < 1", notes="Derived (Lyu and Li's argument): d/dt log gamma~ = "
    "|theta'|^2/(L log(1/L)) - 2 nu/|theta|^2 with nu = <theta, theta'> = 2 sum_i e^(-q_i) q_i "
    ">= 2 L log(1/L), and |theta'| >= nu/|theta| (Cauchy-Schwarz): the difference is >= 0. "
    "The ingredient by which [27] gives the KKT limit of MZV25-F10.")
BIAS = _listed(
    "MZV25-F11", "biases: append x -> [x; 1]; the results hold where the augmented data are "
    "orthogonally separable", "App. A", sp.And(sp.Gt(MuSame, 0), sp.Gt(MuDiff, 0)),
    "a remark (the network with a hidden bias is the same network on [x; 1], "
    "numerics.with_hidden_bias); its condition is A1 evaluated on the augmented data",
    notes="Augmenting adds 1 to every inner product, which mostly hurts the cross-class "
    "negativity; A1 survives when min_i |x_i| >> 1.")
NORMALISATION = _listed(
    "MZV25-F12", "with unit-normalised features (RMSNorm) directional collapse becomes "
    "collapse to the class mean", "Section 3 remark on (4); Section 5", sp.Eq(NC1(t), 0),
    "a conjecture about another architecture (a normalisation layer before the ReLU head), "
    "tested by the paper only in E2/E3 on ResNets",
    notes="Without normalisation Theorem 1 predicts NC1 -> NC1_inf > 0 (derived): 0.0838 on the "
    "catalogue's binary instance, where the run reaches 0.0861 at t = 1e12 (report section "
    "E-MZV25-1).")
S001_ALIGNMENT = _binary(
    "MZV25-F13", "S001's explicit separation time: T* <= t_1 = 4 (H_{n_-} + H_{n_+ - 1} + 1/2)/"
    "(min(zeta, xi) sqrt(mu) X_min) under S001's (28)", "S001 Theorem 1 part 1 and App. C.2, "
    "cited by MZV25 as [20] for Claim 1", sp.Le(t_align, t_1), kind=Kind.EVENT_TIME,
    event=sp.And(sp.Le(Unsorted(t), 0), sp.Le(LostNeurons(t), 0)), event_time=t_align,
    setting=(A1_SEPARABLE, A3_NONDEGENERATE, *S001_THEOREM), provenance=Provenance.DERIVED,
    measures="the first time every neuron is in its cone (and none that started active on "
    "its class died) against t_1, on an instance where (28) holds",
    notes="(28) asks for eps ~ 1e-100 on mu = 0.95 data (n = 4, h = 6): S001's own theorem "
    "instance, integrated in log-norm coordinates. t_1 is the S001 pack's explicit form "
    "(CF-11), at most the paper's 16 log n/(min(zeta, xi) sqrt(mu) X_min); zeta, xi as there.")

# -- section 4.2 and App. C-D: the K-class case ---------------------------------------------------
PROPOSITION_1 = _k_run(
    "MZV25-P1", "inter-class separation: after some T* every neuron of N_k is active on I_k "
    "and on nothing else (no neuron dies)", "Section 4.2, Proposition 1",
    sp.And(sp.Eq(BlockMismatch(t), 0), sp.Eq(CrossOverlap(t), 0)), kind=Kind.TRAPPING,
    window=(t_sep, sp.oo), event=BLOCKED, event_time=t_sep,
    measures="from each run's first time with the block pattern (T*) to its end: the count of "
    "pairs off the pattern and the cross-class feature overlap",
    notes="Proven through Proposition 3; the written proof is sound only when each neuron "
    "activates no other-class point from the start (see MZV25-L4, L6). The catalogue's runs "
    "(section 4.7) separated without A5 and with random shapes.")
PROPOSITION_2 = _t_limit(
    "MZV25-P2", "variability collapse and self-duality: W_k -> s_k u_k g_k^T, V_k -> s_k e~_k "
    "g_k^T", "Section 4.2, Proposition 2, eq. (19); proof App. D.2",
    sp.And(sp.Eq(_lim(MisalignMax(t)), 0), sp.Eq(_lim(PseudoLabelGap(t)), 0),
           sp.Eq(_lim(ShareGap(t)), 0)), setting=K_CLASS, parametrization=MCLS,
    measures="on the vector output's runs, the misalignment, 1 - <e~_k, v^_j> and the shares "
    "against 2 s_k^2 " + LIMIT_MEASURES,
    flags=("The statement lists Assumptions 1, 2 and 4 but uses Proposition 1's separation, "
           "which also needs A5 and small eps (catalogue section 5 item 4).",),
    notes="as t -> infinity. The proof's (74) claims dB/dt is positive and Theta(1/t), which "
    "'would make B diverge': B is bounded by 1, the argument needs care (catalogue).")
PROPOSITION_3 = _k_run(
    "MZV25-P3", "sufficient statement: once neuron j of N_k sees exactly I_k (T*_{j,k}) it "
    "keeps doing so, and T*_{j,k} <= T = ln(1/(sqrt(h) eps))/(4 n X_max)",
    "App. C.3, Proposition 3, eq. (35); proof App. C.4", sp.Le(t_sep, T_early),
    kind=Kind.EVENT_TIME, event=BLOCKED, event_time=t_sep,
    measures="the first saved time with every neuron on its block (all j at once) against T",
    definitions={T_early: S001_DEFINITIONS[T_early]},
    notes="Its eps conditions (60)-(61) involve Lemma 9's zeta and 'sufficiently small' steps "
    "in (44), (48)-(50). Prints '< 0' on other classes where Proposition 1 has '<= 0'.")
T_STAR_BOUND = _k_run(
    "MZV25-F14", "explicit bound from the proof: T*_{j,k} <= 2 X_max |I_k| / c_k, c_k = "
    "sqrt((K-1)/K) (1 - 1/(2(K-1))) mu_s X_min^2 zeta", "Derived from the proof of "
    "Proposition 3, eqs. (62)-(63)",
    sp.Le(t_sep, 2 * Xmax * MaxClassSize / (sp.sqrt((NumClasses - 1) / NumClasses) * (
        1 - 1 / (2 * (NumClasses - 1))) * MuSame * Xmin**2 * Zeta9)),
    kind=Kind.EVENT_TIME, event=sp.Le(BlockMismatch(t), 0), event_time=t_sep,
    provenance=Provenance.DERIVED,
    measures="the first saved time with every neuron on its block (all j and k at once, so "
    "against the bound with max_k |I_k|) against the bound with Lemma 9's zeta computed "
    "exactly (multiclass.gap_zeta)",
    notes="(62) uses Lemma 9, which needs 0 < |I_k^w| < |I_k|: the configuration with all "
    "class-k points active and some other-class point still active is not covered (a gap in "
    "the written argument, catalogue section 5 item 14).")
EARLY_ANGULAR = Claim(
    id="MZV25-F7", title="early phase: (w^_j, v^_j) follow a Riemannian flow on S^(D-1) x "
    "S^(K-1) up to O(eps); {x_k, e~_k} are attractors", kind=Kind.LIMIT,
    source=_src("Section 4.2, eqs. (16)-(17)"),
    statement=sp.Le(AngularResidual(t), sp.Symbol("c_hi", positive=True) * lam),
    setting=K_CLASS, parametrization=MCLS, window=(sp.Integer(0), T_early),
    definitions={T_early: S001_DEFINITIONS[T_early]}, parameters={"c_hi": None},
    parameter_notes="c_hi is the O()'s constant (Lemma 3 gives (16/sqrt K) n X_max^2 sqrt(h), "
    "MZV25-L3)",
    measures="the largest residual of (16)-(17) over [0, T], on runs with eps decreasing "
    "geometrically (the same data and shapes): its exponent in eps against 1",
    notes="The O(eps) is Lemma 3's (MZV25-L3). The attractor statement is qualitative.")
ROA = _k_run(
    "MZV25-F8", "the regions of attraction of {x_k, e~_k} are separated by invariant sets with "
    "saddles; A4 is an invariant subset of each", "Section 4.2, 'Transient analysis'",
    sp.And(sp.Gt(A4CountMin(t), 0), sp.Gt(A4AlignMin(t), 0),
           sp.Ge(MinPseudoAlign(t), 1 - 1 / (2 * (NumClasses - 1)))), kind=Kind.TRAPPING,
    measures="Assumption 4's three margins along the run, each neuron with its group at t = 0: "
    "A4 holds at every saved time (its invariance)",
    notes="Its checkable part is the invariance of A4; the saddles between the regions are "
    "qualitative. Each neuron staying in its group's region is the last margin (B_k > 1/2).")
DATA_PAIRS = _grid(
    "MZV25-F9", "shapes drawn from the pairs (x_i, E~ y_i) satisfy Assumption 4",
    "Section 4.2, 'Limitations'", sp.And(sp.Gt(A4CountMargin, 0), sp.Gt(A4AlignMargin, 0),
                                         sp.Ge(A4PseudoMargin, 0)),
    "Assumption 4's three margins (min over neurons) for pseudo-label initialisations "
    "(multiclass.pseudo_label_init) on near-ETF clusters satisfying A1 (multiclass.etf_clusters)",
    notes="Derived: under A1, w = x_i/|x_i| activates exactly I_k(i), so |I_k^w| = |I_k|, A_k' = "
    "0 for k' != k and B_k = 1. The shapes are unit-normalised (the paper does not say how).")
LEMMA_1 = _grid(
    "MZV25-L1", "|softmax(f) - 1/K| <= (8/sqrt(K)) |f| for |f| <= 1/4",
    "App. C.1, Lemma 1", sp.Le(SoftmaxDev, 8 / sp.sqrt(NumClasses) * LogitNorm),
    "both sides for logit vectors f drawn in the ball |f| <= 1/4, K = 3, 4, 5, 10",
    setting=(Assumption("small logits", sp.Le(LogitNorm, sp.Rational(1, 4)), "|f| <= 1/4"),),
    notes="For small f, |softmax(f) - 1/K| ~ |(I - 11^T/K) f|/K <= |f|/K: the constant is loose.")
LEMMA_2 = _k_run(
    "MZV25-L2", "alignment phase: |w_j|^2 = |v_j|^2 <= eps/sqrt(h) and |f(x_i)| <= 2 eps X_max "
    "sqrt(h) for t <= T", "App. C.2, Lemma 2, eq. (28)",
    sp.And(sp.Le(NormW(t) ** 2, lam / sp.sqrt(p)),
           sp.Le(MaxOutNorm(t), 2 * lam * Xmax * sp.sqrt(p))),
    window=(sp.Integer(0), T_early), definitions={T_early: S001_DEFINITIONS[T_early]},
    setting=(*K_CLASS, EPS_LEMMA_2),
    measures="max_j |w_j|^2 and max_i |f(x_i)| on the saved times of [0, T]",
    notes="Stated with eps <= sqrt(K)/(16 X_max sqrt(h)); the proof uses |w_j(0)|^2 <= eps^2 "
    "(unit shapes, inferred) and names two times T.")
LEMMA_3 = _k_run(
    "MZV25-L3", "alignment phase: the angular velocities follow (16)-(17) within (16/sqrt(K)) "
    "eps n X_max^2 sqrt(h) on [0, T]", "App. C.2, Lemma 3; proof eq. (34)",
    sp.Le(AngularResidual(t), 16 / sp.sqrt(NumClasses) * lam * n * Xmax**2 * sp.sqrt(p)),
    window=(sp.Integer(0), T_early), definitions={T_early: S001_DEFINITIONS[T_early]},
    setting=(*K_CLASS, EPS_LEMMA_2),
    measures="the residuals of (16)-(17) from the flow's own velocity at the saved times of "
    "[0, T]",
    flags=("The statement has X_max, the proof's last line (34) X_max^2 (catalogue section 5 "
           "item 8); the proof's form is declared.",),
    notes="With eps <= 1/(16 X_max sqrt(h)) (Lemma 2's condition, EPS_LEMMA_2).")
LEMMA_4 = _k_run(
    "MZV25-L4", "before T*_{j,k}: B_k >= 1 - 1/(2(K-1)), A_k - 2 sum A_k' does not fall, no "
    "class-k point is lost and no other point gained", "App. C.3, Lemma 4; proof App. C.3.1",
    sp.And(sp.Ge(MinPseudoAlign(t), 1 - 1 / (2 * (NumClasses - 1))), sp.Ge(AlignExcessMin(t), 0),
           sp.Eq(CountViolations(t), 0)), window=(sp.Integer(0), t_sep),
    event=sp.Le(BlockMismatch(t), 0), event_time=t_sep,
    measures="the three parts at the saved times before each run's T* (all neurons at once)",
    flags=("The proof's sign condition in (48) and (50), mu_d mu_s X_min^2 (1 - 1/(2(K-1))) - "
           "(2/(K-1)) X_max^2 >= 0, i.e. X_max^2/(X_min^2 mu_d mu_s) <= (2K-3)/4, never holds: "
           "mu_d <= 1/(K-1), mu_s <= 1 and X_min <= X_max make the left side >= K - 1 > "
           "(2K-3)/4. The step is harmless only when the bracket multiplies "
           "sum_{k'!=k} |I_k'^w|^2 = 0 (no other-class point active from the start, as with "
           "data-pair shapes). A5 as printed (mu_s^2, no factor 4) does not give the sign.",
           "Cases 1-2 and (49)-(51) use Lemma 6's printed bound, which is false (MZV25-L6).",),
    notes="The statement may still hold: tested directly on runs.")
LEMMA_5 = _k_run(
    "MZV25-L5", "after T*_{j,k}: B_k^(v_j) >= sqrt(2)/2 and neuron j sees exactly I_k",
    "App. C.3, Lemma 5; proof App. C.3.2",
    sp.And(sp.Ge(MinPseudoAlign(t), sp.sqrt(2) / 2), sp.Eq(BlockMismatch(t), 0)),
    kind=Kind.TRAPPING, window=(t_sep, sp.oo), event=BLOCKED, event_time=t_sep,
    measures="min over neurons of <e~_k, v_j/|v_j|> and the off-pattern count, from T* on",
    flags=("Prints |I_k^(w_j)| = N_k for |I_k| (catalogue section 5 item 12).",),
    notes="The block form of the dynamics it uses assumes every other neuron is separated too.")
LEMMA_6 = _grid(
    "MZV25-L6", "as printed: -2(1 - B_k) - 1/(K-1) <= B_k' <= 2(1 - B_k) - 1/(K-1) for unit v",
    "App. C.3.1, Lemma 6", sp.And(
        sp.Le(BOther, 2 * (1 - BSelf) - 1 / (NumClasses - 1)),
        sp.Ge(BOther, -2 * (1 - BSelf) - 1 / (NumClasses - 1))),
    "B_k = <e~_k, v>, B_k' = <e~_k', v> over unit v near e~_k and uniform on the sphere, K = 3, "
    "4, 5, 10, and the catalogue's explicit counterexample",
    flags=("False as printed: the proof writes |v - e~_k| = 2(1 - B_k) where |v - e~_k| = "
           "sqrt(2(1 - B_k)). K = 3, v = cos(0.1) e~_1 + sin(0.1) p (p the unit part of e~_2 "
           "orthogonal to e~_1): B_1 = 0.9950, B_2 = -0.4110 > 2(1 - B_1) - 1/2 = -0.4900. "
           "MZV25-L6b is the corrected bound.",),
    notes="Derivation of the correct form: B_k' + 1/(K-1) = <e~_k', v> - <e~_k', e~_k> = "
    "<e~_k', v - e~_k>, and |<e~_k', v - e~_k>| <= |v - e~_k| = sqrt(2 - 2 B_k) (unit vectors).")
LEMMA_6B = _grid(
    "MZV25-L6b", "corrected: |B_k' + 1/(K-1)| <= sqrt(2(1 - B_k))",
    "App. C.3.1, Lemma 6 with the proof's norm corrected (derived)",
    sp.Le(sp.Abs(BOther + 1 / (NumClasses - 1)), sp.sqrt(2 * (1 - BSelf))),
    "the same points as MZV25-L6", provenance=Provenance.DERIVED,
    notes="At A4's threshold B_k = 1 - 1/(2(K-1)) it allows B_k' up to -1/(K-1) + 1/sqrt(K-1) "
    "> 0 (0.207 at K = 3): the 'B_k' <= 0' of Lemma 4's Case 2 and (49)-(51) does not follow.")
LEMMA_7 = _grid(
    "MZV25-L7", "under A1: |sum_{I_k} a_i x_i| >= sqrt(mu_s) X_min sum a_i (41) and "
    "<sum_{I_k} a_i x_i, sum_{I_k'} b_i x_i> <= -mu_d |.| |.| (42), a, b >= 0",
    "App. C.3.1, Lemma 7, eqs. (41)-(42)",
    sp.And(sp.Ge(SumNorm, sp.sqrt(MuSame) * Xmin * CoefSum),
           sp.Le(CrossInner, -MuDiff * NormProduct)),
    "both sides for random non-negative coefficients on near-ETF clusters (K = 3, 4)",
    flags=("(41) is stated without a_i >= 0, which the proof needs (catalogue section 5 item "
           "12).",), notes="Both proof steps check out (derived): (42)'s last step is the "
    "triangle inequality.")
LEMMA_8 = _grid(
    "MZV25-L8", "pairwise non-positively correlated z_i: |sum z_i| <= sqrt(sum |z_i|^2)",
    "App. C.3.1, Lemma 8", sp.Le(SumNormSq, SumSqNorms),
    "both sides for sets of vectors with pairwise <z_i, z_j> <= 0 (scaled points of distinct "
    "classes of near-ETF clusters)", notes="Elementary: |sum z|^2 = sum |z_i|^2 + 2 sum_{i<j} "
    "<z_i, z_j>.")
LEMMA_9 = Claim(
    id="MZV25-L9", title="a uniform gap zeta in (0, 1) for directions that activate some but "
    "not all of a class", kind=Kind.POINTWISE, source=_src("App. C.3.1, Lemma 9, eq. (43)"),
    statement=sp.And(sp.Gt(Zeta9, 0), sp.Lt(Zeta9, 1)), setting=(A1_SEPARABLE,),
    window=INSTANCE,
    measures="zeta computed exactly (multiclass.gap_zeta): over every class and every subset "
    "of it that some direction activates alone (a linear programme), the largest cosine "
    "between such a direction and the subset's sum, by projecting the sum on the closed "
    "cone of those directions (non-negative least squares)",
    notes="Derived: positive because each subset sum has a strictly positive inner product "
    "with every class-k point. The infimum over the open region equals the maximum over its "
    "closure.")
LEMMA_10 = _grid(
    "MZV25-L10", "|(1/(K-1)) sum_{k>1} [v]_k - <p, v>| <= sqrt(1 - beta^2) for unit v, "
    "beta = <v, e~_1> in [0, 1], p a distribution on classes 2..K", "App. C.3.2, Lemma 10, "
    "eq. (52)", sp.Le(AvgGap, sp.sqrt(1 - BetaCos**2)),
    "both sides for random unit v with beta in [0, 1] (near e~_1 and uniform) and random p, "
    "K = 3, 4, 5, 10", setting=(Assumption("beta in [0, 1]", sp.And(
        sp.Ge(BetaCos, 0), sp.Le(BetaCos, 1)), "0 <= <v, e~_1> <= 1"),))
LEMMA_11 = Claim(
    id="MZV25-L11", title="class margins: min_k gamma_k >= mu_s X_min", kind=Kind.POINTWISE,
    source=_src("App. D.2, Lemma 11, eq. (67)"), statement=sp.Ge(GammaMin, MuSame * Xmin),
    setting=(A1_SEPARABLE,), window=INSTANCE,
    measures="gamma_k by the minimum-norm point of each class's hull, against mu_s X_min",
    notes="Stated for the limit directions u_inf,k; the same bound holds for eq. (4)'s gamma_k "
    "(derived: u_k lies in the cone of the class's support vectors).")
LEMMA_12 = _listed(
    "MZV25-L12", "orthogonal margin gamma_perp > 0 (Ji and Telgarsky's Lemma 2.10)",
    "App. D.2, Lemma 12", sp.Gt(OrthMargin, 0), "an existence statement: the sampled minimum "
    "over xi (multiclass.orthogonal_margin) bounds gamma_perp from above, and cannot decide "
    "> 0", flags=("As written xi ranges over all of u_k^perp in R^D: where D > rank(X_k) some xi "
                  "is orthogonal to the class and gives 0; the restriction to span(X_k) is "
                  "implicit (catalogue section 5 item 11).",))
LEMMA_13 = _listed(
    "MZV25-L13", "cross-entropy analogue of Ji and Telgarsky's Lemma 2.11: the orthogonal part "
    "does not grow once it is large", "App. D.2, Lemma 13", sp.Le(CETrace, 0),
    "'sufficiently large' is not quantified (its threshold involves gamma, gamma_perp and n): "
    "a scaling statement without a constant", notes="X is read as the class-k data matrix "
    "(inferred).")

# -- experiments (section 5, App. B) -------------------------------------------------------------
_OUTSIDE = ("an experiment outside the theory (SGD on real data, an unbalanced Gaussian "
            "initialisation of variance 1e-6, cross-entropy with K = 3 or 10, finite time)")
EXPERIMENT_1 = _listed(
    "MZV25-E1", "two-layer ReLU on centred MNIST {0, 1, 2}: features lie on three rays (rank-3 "
    "PCA error ~0.2% against ~61% for the data)", "Section 5 'Validating Theorem 1', Fig. 3; "
    "App. B.1", sp.Lt(FeaturePCAError, DataPCAError), _OUTSIDE + "; it needs the vector output",
    notes="Published: ~61% (data) and ~0.2% (features); 'relative approximation error' is not "
    "defined.")
EXPERIMENT_2 = _listed(
    "MZV25-E2", "ResNet18 with a two-layer ReLU head: RMSNorm improves NC1 (MNIST, CIFAR10)",
    "Section 5 'role of normalization layers', Fig. 4; App. B.2", sp.Lt(NC1Rms, NC1Plain),
    _OUTSIDE + ", on deep features", notes="Read from Fig. 4 (+-10%): NC1 0.017 (RMSNorm) "
    "against 0.085 (none) on MNIST, 0.13 against 0.23 on CIFAR10; RMSNorm is not best on "
    "NC2/NC3.")
EXPERIMENT_3 = _listed(
    "MZV25-E3", "the same with ResNet50", "App. B.2, Fig. 5", sp.Lt(NC1Rms, NC1Plain),
    _OUTSIDE + ", on deep features", notes="Read from Fig. 5: NC1 0.018 against 0.048 (MNIST), "
    "0.03 against 0.25 (CIFAR10).")
EXPERIMENT_4 = _t_limit(
    "MZV25-E4", "illustrative 2-D dynamics: neurons align with their class or die, then grow "
    "along u_+-", "Section 4.1, Fig. 2",
    sp.And(sp.Eq(_lim(MisalignPlus(t)), 0), sp.Eq(_lim(MisalignMinus(t)), 0)),
    setting=(*BINARY, Assumption("two dimensions", sp.Eq(d, 2), "inputs in R^2, as the "
                                 "figure")),
    measures="on two-dimensional instances, the misalignment of each group with u_+- "
    + LIMIT_MEASURES,
    notes="The figure has no stated instance: checked on 2-D draws of mzv25-binary. 'Align "
    "with their class or die' is the separation event of MZV25-F1, checked there; 'then grow "
    "along u_+-' is the limit of the rows' directions (as MZV25-T1, in the plane).")
EXPERIMENT_5 = _listed(
    "MZV25-E5", "conceptual figure: UFM collapse (simplex ETF) against two-layer ReLU NC "
    "(orthogonal rays)", "Section 1, Fig. 1", sp.Eq(NC2(t), 0), "a schematic, no data")

CLAIMS = (
    ASSUMPTION_1, ASSUMPTION_2, ASSUMPTION_3, ASSUMPTION_4, ASSUMPTION_5,
    THEOREM_1, THEOREM_1B, THEOREM_1C, THEOREM_1D, THEOREM_1E, THEOREM_1F,
    CLAIM_SEPARATION, CLAIM_LIMIT, ALIGNMENT_PHASE, BALANCEDNESS, REDUCED_FLOW, DECOUPLING,
    BLOCK_GRAM, EARLY_ANGULAR, ROA, DATA_PAIRS, ASYMPTOTICS, SMOOTHED_MARGIN, BIAS,
    NORMALISATION, S001_ALIGNMENT,
    PROPOSITION_1, PROPOSITION_2, PROPOSITION_3, T_STAR_BOUND,
    LEMMA_1, LEMMA_2, LEMMA_3, LEMMA_4, LEMMA_5, LEMMA_6, LEMMA_6B, LEMMA_7, LEMMA_8, LEMMA_9,
    LEMMA_10, LEMMA_11, LEMMA_12, LEMMA_13,
    EXPERIMENT_1, EXPERIMENT_2, EXPERIMENT_3, EXPERIMENT_4, EXPERIMENT_5,
)
