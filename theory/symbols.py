"""The shared vocabulary: one sympy name for one measurable thing.

Three sorts of names:

- *sizes and settings* of an instance (``n``, ``d``, ``p``, ``lam``, ``Dplus``, ...),
  numbers fixed by the Problem;
- *trajectory quantities*, sympy functions of time (``L(t)``, ``PL(t)``, ...),
  measured along a simulated run;
- *claim parameters* (``eps``, ``delta``, ...): constants a paper leaves free
  or hides in O(.), given a documented value on each claim.

The catalogue adds *run* scalars (one number per run or per ensemble: ``MuInf``,
``PGoodInit``), *constants* a claim defines from instance quantities (``t_1``,
``zeta``; see ``Claim.definitions``), *event* times and the free *variables* of
closed-form inequalities.

``VOCABULARY`` documents every name; claims, conjectures and reports use only
these names, so a formula means the same thing everywhere. ``latex_names`` says
how each name prints (``latex_names_for(paper)`` adds a paper's own notation, e.g.
S001's width h and scale epsilon).

Length: the vocabulary table (one `Term` per measurable name, with its meaning and
LaTeX); declarative, one entry per name.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import sympy as sp

from theory import fields
from theory.errors import PackError

# -- time ---------------------------------------------------------------------------
t = sp.Symbol("t", nonnegative=True, real=True)

# -- sizes and settings of an instance ---------------------------------------------
n = sp.Symbol("n", positive=True, integer=True)
d = sp.Symbol("d", positive=True, integer=True)
p = sp.Symbol("p", positive=True, integer=True)
lam = sp.Symbol("lam", positive=True)
mu = sp.Symbol("mu", real=True)
kappa = sp.Symbol("kappa", positive=True)
Dplus = sp.Symbol("Dplus", nonnegative=True)
Dminus = sp.Symbol("Dminus", nonnegative=True)
CapPlus = sp.Symbol("CapPlus", nonnegative=True)
CapMinus = sp.Symbol("CapMinus", nonnegative=True)
c_init = sp.Symbol("c_init", positive=True)
OffDiagGram = sp.Symbol("OffDiagGram", nonnegative=True)
MinAbsY = sp.Symbol("MinAbsY", nonnegative=True)
InitImbalance = sp.Symbol("InitImbalance", nonnegative=True)
NumSPlus = sp.Symbol("NumSPlus", nonnegative=True, integer=True)
NumSMinus = sp.Symbol("NumSMinus", nonnegative=True, integer=True)
GrowthRatioOut = sp.Symbol("GrowthRatioOut", nonnegative=True)

# -- claim parameters ----------------------------------------------------------------
eps = sp.Symbol("eps", positive=True)
delta = sp.Symbol("delta", positive=True)
c_T = sp.Symbol("c_T", positive=True)

# -- trajectory quantities (functions of t) -----------------------------------------
L = sp.Function("L")
PL = sp.Function("PL")
R = sp.Function("R")
NormW = sp.Function("NormW")
Balance = sp.Function("Balance")
NormSumDrift = sp.Function("NormSumDrift")
SignFlips = sp.Function("SignFlips")
UPlus = sp.Function("UPlus")
UMinus = sp.Function("UMinus")
AlignPlus = sp.Function("AlignPlus")
AlignMinus = sp.Function("AlignMinus")
NormOutPlus = sp.Function("NormOutPlus")

# -- event times (defined on each claim by the event they time) ----------------------
t_2 = sp.Symbol("t_2", nonnegative=True)
t_conv = sp.Symbol("t_conv", nonnegative=True)


class Sort(StrEnum):
    """What kind of thing a vocabulary name stands for (compares equal to its text)."""

    INSTANCE = "instance"  #: a number of the Problem, fixed before any run (n, Dplus, ...)
    TRAJECTORY = "trajectory"  #: a function of time measured on a run (L(t), PL(t), ...)
    PARAMETER = "parameter"  #: a named parameter of a claim, valued on the claim (eps, ...)
    EVENT = "event"  #: a time a run defines, the first time an event holds (t_2, ...)
    TIME = "time"  #: the flow's clock t
    RUN = "run"  #: a scalar of a whole run or ensemble (MuInf, PGoodInit, ...)
    CONSTANT = "constant"  #: defined on a claim from instance quantities (t_1, zeta, ...)
    VARIABLE = "variable"  #: free in an identity between numbers (yhat, ylab, ...)


@dataclass(frozen=True)
class Term:
    """One vocabulary entry: its sympy object, sort and meaning. ``sort`` may be given as
    its text ("trajectory"); anything but a `Sort` is refused with the allowed values.

    Attributes
    ----------
    name
        The name statements use (``"L"``, ``"Dplus"``); the key in `VOCABULARY`.
    obj
        The sympy object: a ``sp.Symbol``, or a ``sp.Function`` for a trajectory quantity
        (applied as ``L(t)``, ``L(0)``).
    sort
        What kind of thing the name stands for (`Sort`).
    meaning
        What it means, in words and plain-text formulas (shown by the catalogue and in
        error messages).
    """

    name: str
    obj: sp.Basic
    sort: Sort
    meaning: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise fields.fail("term", "name", "a name statements can use (an identifier, "
                              "e.g. 'NormV')", self.name)
        owner = f"term {self.name!r}"
        fields.vocabulary_object(owner, self.obj)
        fields.text(owner, "meaning", self.meaning)
        try:
            object.__setattr__(self, "sort", Sort(self.sort))
        except ValueError:
            raise fields.RecordError(f"Term {self.name!r}: sort {self.sort!r} is not one of "
                                     f"{', '.join(s.value for s in Sort)}") from None


_TERMS = (
    Term("t", t, "time", "time of the gradient flow (the flow's own clock, kappa included)"),
    Term("n", n, "instance", "number of samples"),
    Term("d", d, "instance", "input dimension"),
    Term("p", p, "instance", "width (number of hidden neurons; S002's m, S001's h)"),
    Term("lam", lam, "instance", "initialisation scale lambda recorded on the Problem"),
    Term("mu", mu, "instance", "S001 separation: min_ik <x_i y_i, x_k y_k>/(|x_i||x_k|)"),
    Term("kappa", kappa, "instance", "flow factor: 1 (standard) or p (mean-field)"),
    Term("Dplus", Dplus, "instance", "||D_+||, D_+ = (1/n) sum_{y_k>0} y_k x_k (S002)"),
    Term("Dminus", Dminus, "instance", "||D_-||, D_- = (1/n) sum_{y_k<0} y_k x_k (S002)"),
    Term("CapPlus", CapPlus, "instance",
         "capacity of the positive neurons, sqrt(sum_{y_k>0} (y_k/|x_k|)^2); equals "
         "n||D_+|| for orthonormal data (S002, CF-8/CF-9)"),
    Term("CapMinus", CapMinus, "instance", "capacity of the negative neurons (as CapPlus)"),
    Term("c_init", c_init, "instance", "S002's c = max_j ||w_j(0)|| / lam"),
    Term("OffDiagGram", OffDiagGram, "instance",
         "max_{k != k'} |cos(x_k, x_k')| (0 for orthogonal data)"),
    Term("MinAbsY", MinAbsY, "instance", "min_k |y_k| (S000's C_y^-)"),
    Term("InitImbalance", InitImbalance, "instance",
         "max_j |a_j(0)^2 - ||w_j(0)||^2| / (a_j(0)^2 + ||w_j(0)||^2) (0 when balanced)"),
    Term("NumSPlus", NumSPlus, "instance",
         "|S_{+,1}|: neurons with a_j(0) > 0 and <w_j(0), x_k> >= 0 for all y_k > 0"),
    Term("GrowthRatioOut", GrowthRatioOut, "instance",
         "max over j not in S_{+,1} of ||D_{A_j}||/||D_+||, A_j = samples of label sign "
         "s_j active at t=0: the growth rate of the fastest non-key neuron relative to "
         "phase 2's (S002, orthogonal data; derived)"),
    Term("NumSMinus", NumSMinus, "instance",
         "|S_{-,1}|: neurons with a_j(0) < 0 and <w_j(0), x_k> >= 0 for all y_k < 0"),
    Term("eps", eps, "parameter", "the small epsilon of S002's phase lemmas"),
    Term("delta", delta, "parameter", "a loss level, as a fraction of L(0)"),
    Term("c_T", c_T, "parameter", "a time constant hidden in O(-ln lam)"),
    Term("L", L, "trajectory", "loss L(t)"),
    Term("PL", PL, "trajectory", "local PL curvature -(dL/dt)/L = kappa ||grad L||^2 / L"),
    Term("R", R, "trajectory", "max_i |r_i(t)|, r_i = y_i - h(x_i)"),
    Term("NormW", NormW, "trajectory", "max_j ||w_j(t)||"),
    Term("Balance", Balance, "trajectory",
         "max_j |c_j(t) - c_j(0)| with c_j = k a_j^2 - ||w_j||^2, k the activation's degree "
         "of homogeneity (1 for ReLU and leaky ReLU)"),
    Term("NormSumDrift", NormSumDrift, "trajectory",
         "max_j |s_j(t) - s_j(0)| with s_j = a_j^2 + ||w_j||^2 (not conserved; for mutants)"),
    Term("SignFlips", SignFlips, "trajectory", "number of j with sign a_j(t) != sign a_j(0)"),
    Term("UPlus", UPlus, "trajectory", "u_+(t) = sum_{j in S_{+,1}} ||w_j(t)||^2"),
    Term("UMinus", UMinus, "trajectory", "u_-(t) = sum_{j in S_{-,1}} ||w_j(t)||^2"),
    Term("AlignPlus", AlignPlus, "trajectory",
         "min_{j in S_{+,1}} <w_j(t)/||w_j(t)||, D_+>"),
    Term("AlignMinus", AlignMinus, "trajectory",
         "min_{j in S_{-,1}} <w_j(t)/||w_j(t)||, -D_->"),
    Term("NormOutPlus", NormOutPlus, "trajectory", "max_{j not in S_{+,1}} ||w_j(t)||"),
    Term("t_2", t_2, "event", "end of S002's phase 2 (the event is defined on the claim)"),
    Term("t_conv", t_conv, "event", "first time the loss reaches a stated level"),
)

# =====================================================================================
# Catalogue vocabulary (S000, S001, S002 claims). Naming across papers: S001's width h
# and S002's width m are ``p``; S001's input dimension D is ``d``; S001's
# initialisation scale epsilon and S002's lambda are both ``lam`` (S002's small
# epsilon is ``eps``). S000's data constants C_x^-, C_x^+, C_y^- are the numbers S001
# calls X_min, X_max and S002 min_k |y_k|: one name each here (Xmin, Xmax, MinAbsY), each
# paper's notation in its LaTeX (PAPER_LATEX_NAMES) and the old names in RENAMED.
# =====================================================================================

# -- instance: data constants ---------------------------------------------------------
Cy_plus = sp.Symbol("Cy_plus", nonnegative=True)
Xmin = sp.Symbol("Xmin", nonnegative=True)
Xmax = sp.Symbol("Xmax", nonnegative=True)
n_plus = sp.Symbol("n_plus", nonnegative=True, integer=True)
n_minus = sp.Symbol("n_minus", nonnegative=True, integer=True)
GammaMax = sp.Symbol("GammaMax", nonnegative=True)
GramDevOp = sp.Symbol("GramDevOp", nonnegative=True)
zeta_2 = sp.Symbol("zeta_2", nonnegative=True)
Zeta1Max = sp.Symbol("Zeta1Max", nonnegative=True)
XiMax = sp.Symbol("XiMax", nonnegative=True)
ConeCosMin = sp.Symbol("ConeCosMin", real=True)
MinNormSq = sp.Symbol("MinNormSq", nonnegative=True)
MinF1Norm = sp.Symbol("MinF1Norm", nonnegative=True)

# -- instance: initialisation -----------------------------------------------------------
MinInitBalance = sp.Symbol("MinInitBalance", real=True)
LossScale = sp.Symbol("LossScale", positive=True)
GoodInit = sp.Symbol("GoodInit", nonnegative=True, integer=True)
GroupInit = sp.Symbol("GroupInit", nonnegative=True, integer=True)
MinGroupNormY = sp.Symbol("MinGroupNormY", nonnegative=True)
MinGroupSize = sp.Symbol("MinGroupSize", nonnegative=True, integer=True)
Wmin = sp.Symbol("Wmin", nonnegative=True)
Wmax = sp.Symbol("Wmax", nonnegative=True)
NumVPlus = sp.Symbol("NumVPlus", nonnegative=True, integer=True)
NumVMinus = sp.Symbol("NumVMinus", nonnegative=True, integer=True)
NumVPlusActive = sp.Symbol("NumVPlusActive", nonnegative=True, integer=True)
NumVMinusActive = sp.Symbol("NumVMinusActive", nonnegative=True, integer=True)
NumAliveInit = sp.Symbol("NumAliveInit", nonnegative=True, integer=True)
GrowthRatioOutMinus = sp.Symbol("GrowthRatioOutMinus", nonnegative=True)

# -- run and ensemble scalars (one number per run, or per family member) ---------------
eta = sp.Symbol("eta", positive=True)
DataScale = sp.Symbol("DataScale", positive=True)
MuInf = sp.Symbol("MuInf", nonnegative=True)
PGoodInit = sp.Symbol("PGoodInit", nonnegative=True)
PSuccess = sp.Symbol("PSuccess", nonnegative=True)
PActivePlus = sp.Symbol("PActivePlus", nonnegative=True)
PActiveMinus = sp.Symbol("PActiveMinus", nonnegative=True)
PKeyPlus = sp.Symbol("PKeyPlus", nonnegative=True)
PKeyMinus = sp.Symbol("PKeyMinus", nonnegative=True)
DNeeded = sp.Symbol("DNeeded", positive=True)
NThreshold = sp.Symbol("NThreshold", positive=True)
WidthNeeded = sp.Symbol("WidthNeeded", positive=True)
TransitionWidth = sp.Symbol("TransitionWidth", nonnegative=True)
GDPLGap = sp.Symbol("GDPLGap", nonnegative=True)
WeightSpread = sp.Symbol("WeightSpread", nonnegative=True)
Converged = sp.Symbol("Converged", nonnegative=True, integer=True)
NumKinks = sp.Symbol("NumKinks", nonnegative=True, integer=True)

# -- constants a claim defines from instance quantities (``Claim.definitions``) ---------
t_1 = sp.Symbol("t_1", positive=True)
T_early = sp.Symbol("T_early", real=True)
zeta = sp.Symbol("zeta", nonnegative=True)
xi = sp.Symbol("xi", nonnegative=True)
alpha = sp.Symbol("alpha", positive=True)

# -- event times ----------------------------------------------------------------------
t_align = sp.Symbol("t_align", nonnegative=True)
t_2_plus = sp.Symbol("t_2_plus", nonnegative=True)
t_3 = sp.Symbol("t_3", nonnegative=True)

# -- free variables of closed-form statements --------------------------------------------
yhat = sp.Symbol("yhat", real=True)
ylab = sp.Symbol("ylab", real=True)

# -- claim parameters -------------------------------------------------------------------
gamma_0 = sp.Symbol("gamma_0", positive=True)
K = sp.Symbol("K", positive=True)
c_lo = sp.Symbol("c_lo", positive=True)
c_hi = sp.Symbol("c_hi", positive=True)
beta_s = sp.Symbol("beta_s", real=True)
beta_n = sp.Symbol("beta_n", real=True)
tol = sp.Symbol("tol", positive=True)

# -- trajectory quantities ----------------------------------------------------------------
GradNormSq = sp.Function("GradNormSq")
ParamMapGap = sp.Function("ParamMapGap")
MinFitRatio = sp.Function("MinFitRatio")
Emin = sp.Function("Emin")
Emax = sp.Function("Emax")
CrossGroupJac = sp.Function("CrossGroupJac")
MaxAbsH = sp.Function("MaxAbsH")
DirError = sp.Function("DirError")
PsiError = sp.Function("PsiError")
XaPerSample = sp.Function("XaPerSample")
WrongWayCrossings = sp.Function("WrongWayCrossings")
MaxCrossings = sp.Function("MaxCrossings")
DwellNa = sp.Function("DwellNa")
Unsorted = sp.Function("Unsorted")
LostNeurons = sp.Function("LostNeurons")
DeadExits = sp.Function("DeadExits")
ConeExits = sp.Function("ConeExits")
NormSqVhatPlus = sp.Function("NormSqVhatPlus")
NormSqVhatMinus = sp.Function("NormSqVhatMinus")
LPlus = sp.Function("LPlus")
LMinus = sp.Function("LMinus")
OutPlus = sp.Function("OutPlus")
OutMinus = sp.Function("OutMinus")
CosVhatPlus = sp.Function("CosVhatPlus")
NormWFrobSq = sp.Function("NormWFrobSq")
NormWSpecSq = sp.Function("NormWSpecSq")
StableRank = sp.Function("StableRank")
NumInSPlus = sp.Function("NumInSPlus")
ParamDrift = sp.Function("ParamDrift")
DirChange = sp.Function("DirChange")
NormChange = sp.Function("NormChange")
FieldGap = sp.Function("FieldGap")
AlignGap = sp.Function("AlignGap")
SaddleDist = sp.Function("SaddleDist")
DriftSPlus = sp.Function("DriftSPlus")
NormOutKey = sp.Function("NormOutKey")

_CATALOGUE_TERMS = (
    # instance: data
    Term("Cy_plus", Cy_plus, "instance", "C_y^+ = max_i |y_i| (S000)"),
    Term("Xmin", Xmin, "instance", "min_i ||x_i|| (S001's X_min, S000's C_x^-)"),
    Term("Xmax", Xmax, "instance", "max_i ||x_i|| (S001's X_max, S000's C_x^+)"),
    Term("n_plus", n_plus, "instance", "n_+ = number of samples with y_i > 0"),
    Term("n_minus", n_minus, "instance", "n_- = number of samples with y_i < 0"),
    Term("GammaMax", GammaMax, "instance",
         "max_i gamma_i, gamma_i = sum_{k != i} |<x_i, x_k>| / ||x_i||^2 (Gershgorin reading "
         "of S000's weak interaction, CF-4)"),
    Term("GramDevOp", GramDevOp, "instance",
         "||G^ - I||_op, G^ the Gram matrix of the normalised inputs x_i/||x_i||"),
    Term("zeta_2", zeta_2, "instance",
         "S001's zeta_2 = 1 - max(0, max_{j in V_+} cos(w_j(0), x_-), "
         "max_{j in V_-} cos(w_j(0), x_+))^2; x_+- = sum of the inputs of each class"),
    Term("Zeta1Max", Zeta1Max, "instance",
         "largest zeta with cap {cos(z, x_+) >= sqrt(1-zeta)} in S_+ and the x_- cap in S_-: "
         "min over i and the two classes of cos^2(x_+-, x_i) when every sign is right, else 0 "
         "(S001 Lemma 8)"),
    Term("XiMax", XiMax, "instance",
         "largest xi with |cos(z1, z2)| <= sqrt(1 - xi) for z1 in K = cone{x_i y_i} and z2 "
         "outside S_+ and S_- (S001 Lemma 9; estimated by sampling)"),
    Term("ConeCosMin", ConeCosMin, "instance",
         "min cos(z1, z2) over nonzero z1, z2 in K = cone{x_i y_i} (S001 Lemma 5; sampled)"),
    Term("MinNormSq", MinNormSq, "instance",
         "min ||theta||^2 = sum_j (a_j^2 + ||w_j||^2) over networks that interpolate the data "
         "(S002 Prop. 1; a convex program on orthogonal data)"),
    Term("MinF1Norm", MinF1Norm, "instance",
         "min variation (F_1) norm of functions that interpolate the data (S002 eq. 8)"),
    # instance: initialisation
    Term("LossScale", LossScale, "instance",
         "the loss's prefactor c (Problem.loss_scale): c/(2n) sum for the square loss, "
         "c sum for the exponential and logistic losses (c = 1/n: a mean)"),
    Term("MinInitBalance", MinInitBalance, "instance",
         "min_j (a_j(0)^2 - ||w_j(0)||^2) (>= 0: S000's asymmetric initialisation)"),
    Term("GoodInit", GoodInit, "instance",
         "1 if every sample i has a neuron j with a_j(0) y_i > 0 and <w_j(0), x_i> > 0 "
         "(THEORY Q-good), else 0"),
    Term("GroupInit", GroupInit, "instance",
         "1 if the initialisation is a group initialisation (I-000-group: neuron j is active "
         "exactly on its group, with the group's label sign), else 0"),
    Term("MinGroupNormY", MinGroupNormY, "instance", "min over groups G of ||y_G|| (I-000-group)"),
    Term("MinGroupSize", MinGroupSize, "instance", "min over groups G of |G| (I-000-group)"),
    Term("Wmin", Wmin, "instance",
         "S001's W_min = min_j ||w_j(0)|| / lam (min column norm of the unscaled W_0)"),
    Term("Wmax", Wmax, "instance",
         "S001's W_max = max_j ||w_j(0)|| / lam (the same number as S002's c_init)"),
    Term("NumVPlus", NumVPlus, "instance", "|V_+| = number of neurons with a_j(0) > 0"),
    Term("NumVMinus", NumVMinus, "instance", "|V_-| = number of neurons with a_j(0) < 0"),
    Term("NumVPlusActive", NumVPlusActive, "instance",
         "number of j in V_+ with max_{y_i > 0} <w_j(0), x_i> > 0 (these reach S_+, S001)"),
    Term("NumVMinusActive", NumVMinusActive, "instance",
         "number of j in V_- with max_{y_i < 0} <w_j(0), x_i> > 0 (these reach S_-, S001)"),
    Term("NumAliveInit", NumAliveInit, "instance",
         "number of neurons outside S_dead at t = 0 (some <w_j(0), x_i> > 0)"),
    Term("GrowthRatioOutMinus", GrowthRatioOutMinus, "instance",
         "max over j with a_j(0) < 0 outside S_{-,1} of ||D_{A_j}||/||D_-||, A_j = negative "
         "samples active at t=0: GrowthRatioOut's phase-3 analogue (S002, derived)"),
    # run and ensemble scalars
    Term("eta", eta, "run", "step size of a gradient-descent run (physical time = eta * steps)"),
    Term("DataScale", DataScale, "run",
         "factor s of a global input rescaling x -> s x within a family"),
    Term("MuInf", MuInf, "run",
         "asymptotic local PL rate of a run: PL(t) once L/L(0) is in [1e-12, 1e-3] (N-5)"),
    Term("PGoodInit", PGoodInit, "run",
         "probability over the initialisation that GoodInit = 1 (Monte Carlo frequency)"),
    Term("PSuccess", PSuccess, "run",
         "probability that S000's published protocol (GD at lr 1 on p L, stopped once "
         "L < 1/(2n)) ends with L <= 1/(2n) (Monte Carlo over data and initialisation)"),
    Term("PActivePlus", PActivePlus, "run",
         "probability that NumVPlusActive >= 1 (Monte Carlo over W_0, signs fixed)"),
    Term("PActiveMinus", PActiveMinus, "run",
         "probability that NumVMinusActive >= 1 (Monte Carlo over W_0, signs fixed)"),
    Term("PKeyPlus", PKeyPlus, "run", "probability that S_{+,1} is non-empty (Monte Carlo)"),
    Term("PKeyMinus", PKeyMinus, "run", "probability that S_{-,1} is non-empty (Monte Carlo)"),
    Term("DNeeded", DNeeded, "run",
         "smallest input dimension d at which the weak-interaction surrogate GammaMax <= "
         "gamma_0 holds with probability >= 1/2, at a given n (S000-C1)"),
    Term("NThreshold", NThreshold, "run",
         "largest n at which gradient descent converges with probability >= 1/2, at given "
         "(d, p) (S000 experiments E-000-2/3)"),
    Term("WidthNeeded", WidthNeeded, "run",
         "smallest width p at which a run converges with probability >= 1/2, at a given n"),
    Term("TransitionWidth", TransitionWidth, "run",
         "relative width (t(0.9) - t(0.1)) / t(0.5) of a group's learning transition, t(q) the "
         "first time the group's squared norm reaches q times its capacity (S000-T2)"),
    Term("GDPLGap", GDPLGap, "run",
         "max over physical time of |PL of gradient descent - PL of the flow| at step eta"),
    Term("WeightSpread", WeightSpread, "run",
         "max/min of a_j^2 over the active neurons at convergence (l1- versus l2-like bias)"),
    Term("Converged", Converged, "run", "1 if the run reaches L <= 1/(2n) (CF-5), else 0"),
    Term("NumKinks", NumKinks, "run", "number of distinct kinks of the learned 1-D function"),
    # constants defined on claims
    Term("t_1", t_1, "constant",
         "end of the first phase, defined on each claim (S001: CF-11's explicit alignment "
         "time; S002: -eps ln(lam)/||D_-||)"),
    Term("T_early", T_early, "constant",
         "S001's T = ln(1/(sqrt(h) eps))/(4 n X_max), end of the small-norm phase"),
    Term("zeta", zeta, "constant", "S001's margin zeta = min(zeta_1, zeta_2) (CF-11)"),
    Term("xi", xi, "constant", "S001's margin xi of Lemma 9 (CF-11: mu^2)"),
    Term("alpha", alpha, "constant",
         "S001's O(1/t) rate constant (mu X_min)^2 / (32 X_max) (CF-11)"),
    # event times
    Term("t_align", t_align, "event",
         "first time every neuron is in its trapping cone (S001: S_+ or S_dead for V_+, "
         "S_- or S_dead for V_-); the event is defined on the claim"),
    Term("t_2_plus", t_2_plus, "event",
         "S001's t_2^+: first time max_{y_i > 0} |f_+(x_i)| > 1/4"),
    Term("t_3", t_3, "event", "end of S002's phase 3 (the event is defined on the claim)"),
    # variables
    Term("yhat", yhat, "variable", "a network output value (free variable of S001 Lemma 2)"),
    Term("ylab", ylab, "variable", "a label in {-1, +1} (free variable of S001 Lemma 2)"),
    # parameters
    Term("gamma_0", gamma_0, "parameter",
         "threshold on GammaMax in the checkable reading of S000's weak interaction"),
    Term("K", K, "parameter",
         "the prefactor of a scaling law, hidden by the paper; fitted, the exponent is checked"),
    Term("c_lo", c_lo, "parameter", "the hidden constant of a scaling law's lower side (fitted)"),
    Term("c_hi", c_hi, "parameter", "the hidden constant of a scaling law's upper side (fitted)"),
    Term("beta_s", beta_s, "parameter", "a fitted exponent of the data scale (S000-F8)"),
    Term("beta_n", beta_n, "parameter", "a fitted exponent of n (S000-F8)"),
    Term("tol", tol, "parameter", "a tolerance the paper leaves as '≈'"),
    # trajectory quantities
    Term("GradNormSq", GradNormSq, "trajectory", "||grad_theta L(theta(t))||^2"),
    Term("ParamMapGap", ParamMapGap, "trajectory",
         "max |theta(t) - sqrt(p) theta~(t)| between a mean-field run and the standard run "
         "started at theta(0)/sqrt(p) (S000-P1)"),
    Term("MinFitRatio", MinFitRatio, "trajectory",
         "min_i |h(x_i)/y_i| = min_i |1 - r_i(t)/y_i|"),
    Term("Emin", Emin, "trajectory",
         "min_i E_i(t), E_i = (1/p) sum_j 1{<w_j, x_i> > 0} a_j^2 (mean-field energy, Q-E)"),
    Term("Emax", Emax, "trajectory", "max_i E_i(t) (as Emin)"),
    Term("CrossGroupJac", CrossGroupJac, "trajectory",
         "max over i outside neuron j's group of |d h(x_i) / d theta_j| (I-000-group)"),
    Term("MaxAbsH", MaxAbsH, "trajectory", "max_i |h(x_i)| (S001's max_i |f(x_i; W, v)|)"),
    Term("DirError", DirError, "trajectory",
         "max_j ||d/dt (w_j/||w_j||) - sign(a_j(0)) P_j x_a(w_j)||, P_j = I - w^ w^T, "
         "x_a(w) = sum_{i: <x_i, w> > 0} y_i x_i (S001 eq. 4, sum loss)"),
    Term("PsiError", PsiError, "trajectory",
         "max_{r,j} |d psi_rj/dt - sign(a_j(0)) (psi_ra - psi_rj psi_aj) ||x_a(w_j)|||, "
         "psi_rj = <x^_r, w^_j> (S001 Lemma 10)"),
    Term("XaPerSample", XaPerSample, "trajectory",
         "min over neurons outside S_dead of ||x_a(w_j)|| / n_a(w_j), n_a = number of "
         "samples activating w_j (S001 Lemma 11)"),
    Term("WrongWayCrossings", WrongWayCrossings, "trajectory",
         "number of activation changes by time t in a forbidden direction: a V_+ neuron "
         "losing a positive or gaining a negative sample, or the reverse for V_- (S001)"),
    Term("MaxCrossings", MaxCrossings, "trajectory",
         "max over (i, j) of the number of crossings of <x_i, w_j> = 0 by time t"),
    Term("DwellNa", DwellNa, "trajectory",
         "max over neurons outside S_+, S_-, S_dead and over their intervals of constant "
         "activation pattern up to t of (interval length) * n_a (S001 dwell time)"),
    Term("Unsorted", Unsorted, "trajectory",
         "number of neurons outside their trapping cones (V_+: S_+ or S_dead; V_-: S_- or "
         "S_dead)"),
    Term("LostNeurons", LostNeurons, "trajectory",
         "number of j in V_+- active at t = 0 on some sample of their own class that are in "
         "S_dead at t"),
    Term("DeadExits", DeadExits, "trajectory", "number of exits from S_dead by time t"),
    Term("ConeExits", ConeExits, "trajectory",
         "number of exits by time t from a trapping cone: S_dead (any neuron), S_+ (V_+), "
         "S_- (V_-)"),
    Term("NormSqVhatPlus", NormSqVhatPlus, "trajectory",
         "sum of ||w_j(t)||^2 over V^_+, the neurons in S_+ at the end of the run (S001's "
         "V^_+ once the run is past t_1)"),
    Term("NormSqVhatMinus", NormSqVhatMinus, "trajectory", "as NormSqVhatPlus, for S_-"),
    Term("LPlus", LPlus, "trajectory", "loss on the samples with y_i > 0"),
    Term("LMinus", LMinus, "trajectory", "loss on the samples with y_i < 0"),
    Term("OutPlus", OutPlus, "trajectory",
         "max_{y_i > 0} |f_+(x_i)|, f_+ the output of the neurons of V^_+"),
    Term("OutMinus", OutMinus, "trajectory",
         "max_{y_i < 0} |f_-(x_i)|, f_- the output of the neurons of V^_-"),
    Term("CosVhatPlus", CosVhatPlus, "trajectory", "min_{j in V^_+} cos(w_j(t), x_+)"),
    Term("NormWFrobSq", NormWFrobSq, "trajectory", "||W(t)||_F^2 (first-layer weights)"),
    Term("NormWSpecSq", NormWSpecSq, "trajectory", "||W(t)||_2^2 (squared spectral norm)"),
    Term("StableRank", StableRank, "trajectory", "||W(t)||_F^2 / ||W(t)||_2^2"),
    Term("NumInSPlus", NumInSPlus, "trajectory", "number of neurons in S_+ at t"),
    Term("ParamDrift", ParamDrift, "trajectory", "||theta(t) - theta(0)||"),
    Term("DirChange", DirChange, "trajectory",
         "sum_j ||(I - w^_j w^_j^T)(-grad_{w_j} L)|| / ||w_j|| (S001 A.5 'direction change')"),
    Term("NormChange", NormChange, "trajectory",
         "sum_j |<-grad_{w_j} L, w^_j>| (S001 A.5 'norm change')"),
    Term("FieldGap", FieldGap, "trajectory",
         "max_j |da_j/dt - <D_j, w_j>| + ||dw_j/dt - a_j D_j|| between the simulated "
         "velocity and S002's layer-wise ODE"),
    Term("AlignGap", AlignGap, "trajectory",
         "max_j ||dw^_j/dt - s_j (D_j^0 - <D_j^0, w^_j> w^_j)||, D_j^0 = D_j at h = 0 "
         "(S002 eq. 10)"),
    Term("SaddleDist", SaddleDist, "trajectory",
         "distance from theta(t) to the saddle set of S002 Fact 1: S_{+,1} neurons on D_+ "
         "with sum ||w_j||^2 = CapPlus, a_j = ||w_j||, every other neuron 0"),
    Term("DriftSPlus", DriftSPlus, "trajectory",
         "max_{j in S_{+,1}} ||w_j(t) - w_j(t_2)||, t_2 the end of phase 2 (S002-L3's event)"),
    Term("NormOutKey", NormOutKey, "trajectory",
         "max over j in neither S_{+,1} nor S_{-,1} of ||w_j(t)||"),
)

#: Every vocabulary name -> its `Term`, the built-in names and the ``TERMS`` of the packs
#: (registered when the catalogue loads: call `theory.registry.load` before reading it).
VOCABULARY: dict[str, Term] = {term.name: term for term in _TERMS + _CATALOGUE_TERMS}

# -- LaTeX --------------------------------------------------------------------------------
#: How each name prints in LaTeX, name -> LaTeX. A trajectory quantity's entry is a template
#: in which "(t)" stands for its argument (appended when absent): "u_+(t)" prints u_+(t_1)
#: for UPlus(t_1). Packs add theirs (``LATEX_NAMES``).
latex_names: dict[str, str] = {
    "t": "t", "n": "n", "d": "d", "p": "p", "lam": r"\lambda", "mu": r"\mu",
    "kappa": r"\kappa", "Dplus": r"\|D_+\|", "Dminus": r"\|D_-\|", "CapPlus": "U_+",
    "CapMinus": "U_-", "c_init": "c",
    "OffDiagGram": r"\max_{k \neq k'} |\cos(x_k, x_{k'})|", "MinAbsY": r"\min_k |y_k|",
    "InitImbalance": r"\operatorname{imb}(\theta_0)", "NumSPlus": r"|S_{+,1}|",
    "NumSMinus": r"|S_{-,1}|",
    "GrowthRatioOut": r"\max_{j \notin S_{+,1}} \frac{\|D_{A_j}\|}{\|D_+\|}",
    "eps": r"\varepsilon", "delta": r"\delta", "c_T": "c_T",
    "L": "L(t)", "PL": r"\mu(t)", "R": r"\max_i |r_i(t)|", "NormW": r"\max_j \|w_j(t)\|",
    "Balance": r"\max_j |c_j(t) - c_j(0)|", "NormSumDrift": r"\max_j |s_j(t) - s_j(0)|",
    "SignFlips": r"\#\{j : \operatorname{sign} a_j(t) \neq \operatorname{sign} a_j(0)\}",
    "UPlus": "u_+(t)", "UMinus": "u_-(t)",
    "AlignPlus": r"\min_{j \in S_{+,1}} \langle \bar w_j(t), D_+ \rangle",
    "AlignMinus": r"\min_{j \in S_{-,1}} \langle \bar w_j(t), -D_- \rangle",
    "NormOutPlus": r"\max_{j \notin S_{+,1}} \|w_j(t)\|",
    "t_2": "t_2", "t_conv": r"t_{\mathrm{conv}}",
    # catalogue names
    "Cy_plus": "C_y^+",
    "Xmin": r"X_{\min}", "Xmax": r"X_{\max}", "n_plus": "n_+", "n_minus": "n_-",
    "GammaMax": r"\max_i \gamma_i", "GramDevOp": r"\|\hat G - I\|_{\mathrm{op}}",
    "zeta_2": r"\zeta_2", "Zeta1Max": r"\zeta_1^{\max}", "XiMax": r"\xi^{\max}",
    "ConeCosMin": r"\min_{z_1, z_2 \in K} \cos(z_1, z_2)",
    "MinNormSq": r"\min_{L(\theta) = 0} \|\theta\|^2",
    "MinF1Norm": r"\min_{L(f) = 0} \|f\|_{\mathcal{F}_1}",
    "MinInitBalance": r"\min_j (a_j(0)^2 - \|w_j(0)\|^2)",
    "GoodInit": r"\mathbb{1}_{\mathrm{good}}", "GroupInit": r"\mathbb{1}_{\mathrm{group}}",
    "MinGroupNormY": r"\min_G \|y_G\|", "MinGroupSize": r"\min_G |G|",
    "Wmin": r"W_{\min}", "Wmax": r"W_{\max}", "NumVPlus": "|V_+|", "NumVMinus": "|V_-|",
    "NumVPlusActive": r"|V_+^{\mathrm{act}}|", "NumVMinusActive": r"|V_-^{\mathrm{act}}|",
    "NumAliveInit": r"\#\{j : w_j(0) \notin S_{\mathrm{dead}}\}",
    "GrowthRatioOutMinus": r"\max_{j \notin S_{-,1}, a_j < 0} \frac{\|D_{A_j}\|}{\|D_-\|}",
    "eta": r"\eta", "DataScale": "s", "MuInf": r"\mu_\infty",
    "LossScale": "c", "PGoodInit": r"P(\mathrm{good})", "PSuccess": r"P(\mathrm{success})",
    "PActivePlus": r"P(V_+^{\mathrm{act}} \neq \emptyset)",
    "PActiveMinus": r"P(V_-^{\mathrm{act}} \neq \emptyset)",
    "PKeyPlus": r"P(S_{+,1} \neq \emptyset)", "PKeyMinus": r"P(S_{-,1} \neq \emptyset)",
    "DNeeded": r"d_{\mathrm{needed}}", "NThreshold": r"N(d, p)",
    "WidthNeeded": r"p_{\mathrm{needed}}", "TransitionWidth": r"\frac{\Delta t^j}{t^j}",
    "GDPLGap": r"\max_t |\mu_{\mathrm{GD}} - \mu_{\mathrm{GF}}|",
    "WeightSpread": r"\frac{\max_j a_j^2}{\min_j a_j^2}",
    "Converged": r"\mathbb{1}_{\mathrm{conv}}", "NumKinks": r"\#\mathrm{kinks}",
    "t_1": "t_1", "T_early": "T", "zeta": r"\zeta", "xi": r"\xi", "alpha": r"\alpha",
    "t_align": r"t_{\mathrm{align}}", "t_2_plus": "t_2^+", "t_3": "t_3",
    "yhat": r"\hat y", "ylab": "y",
    "gamma_0": r"\gamma_0", "K": "K", "c_lo": "c", "c_hi": "c'", "beta_s": r"\beta_s",
    "beta_n": r"\beta_n", "tol": r"\tau",
    "GradNormSq": r"\|\nabla L(\theta(t))\|^2", "ParamMapGap": r"\|\theta(t) - \sqrt{p}\,"
    r"\tilde\theta(t)\|_\infty", "MinFitRatio": r"\min_i |1 - r_i(t)/y_i|",
    "Emin": r"\min_i E_i(t)", "Emax": r"\max_i E_i(t)",
    "CrossGroupJac": r"\max_{i \notin G_j} |\partial_{\theta_j} h(x_i)|(t)",
    "MaxAbsH": r"\max_i |f(x_i; \theta(t))|",
    "DirError": r"\max_j \|\dot{\bar w}_j(t) - s_j P_{w_j} x_a(w_j)\|",
    "PsiError": r"\max_{r,j} |\dot\psi_{rj}(t) - s_j (\psi_{ra} - \psi_{rj} \psi_{aj}) "
    r"\|x_a(w_j)\||",
    "XaPerSample": r"\min_j \frac{\|x_a(w_j(t))\|}{n_a(w_j(t))}",
    "WrongWayCrossings": r"\#\mathrm{wrong\ crossings}(t)",
    "MaxCrossings": r"\max_{i,j} \#\mathrm{crossings}_{ij}(t)",
    "DwellNa": r"\max (\Delta t \cdot n_a)(t)", "Unsorted": r"\#\mathrm{unsorted}(t)",
    "LostNeurons": r"\#\mathrm{lost}(t)", "DeadExits": r"\#\mathrm{exits}(S_{\mathrm{dead}})(t)",
    "ConeExits": r"\#\mathrm{exits}(t)",
    "NormSqVhatPlus": r"\sum_{j \in \hat V_+} \|w_j(t)\|^2",
    "NormSqVhatMinus": r"\sum_{j \in \hat V_-} \|w_j(t)\|^2",
    "LPlus": "L_+(t)", "LMinus": "L_-(t)",
    "OutPlus": r"\max_{i \in I_+} |f_+(x_i; \theta(t))|",
    "OutMinus": r"\max_{i \in I_-} |f_-(x_i; \theta(t))|",
    "CosVhatPlus": r"\min_{j \in \hat V_+} \cos(w_j(t), x_+)",
    "NormWFrobSq": r"\|W(t)\|_F^2", "NormWSpecSq": r"\|W(t)\|_2^2",
    "StableRank": r"\frac{\|W(t)\|_F^2}{\|W(t)\|_2^2}", "NumInSPlus": r"|\{j : w_j(t) \in S_+\}|",
    "ParamDrift": r"\|\theta(t) - \theta(0)\|", "DirChange": r"\mathrm{dir}(t)",
    "NormChange": r"\mathrm{norm}(t)", "FieldGap": r"\mathrm{gap}_{\mathrm{ODE}}(t)",
    "AlignGap": r"\max_j \|\dot{\bar w}_j(t) - s_j (I - \bar w_j \bar w_j^\top) D_j^0\|",
    "SaddleDist": r"\operatorname{dist}(\theta(t), \theta_S)",
    "DriftSPlus": r"\max_{j \in S_{+,1}} \|w_j(t) - w_j(t_2)\|",
    "NormOutKey": r"\max_{j \notin S_{+,1} \cup S_{-,1}} \|w_j(t)\|",
}

# Paper-specific notation: S001 writes the width h, the dimension D and the scale epsilon;
# S002 writes the width m.
# Vocabulary names that were renamed (old -> new): the statement parser still reads the
# old ones. The capacities U_+/U_- were "Uplus"/"Uminus", one letter's case away from
# u_+(t) = UPlus(t); S000's data constants had names of their own for S001's numbers.
RENAMED: dict[str, str] = {"Uplus": "CapPlus", "Uminus": "CapMinus", "Cx_minus": "Xmin",
                           "Cx_plus": "Xmax", "Cy_minus": "MinAbsY"}

PAPER_LATEX_NAMES: dict[str, dict[str, str]] = {
    "S000": {"Xmin": "C_x^-", "Xmax": "C_x^+", "MinAbsY": "C_y^-"},
    "S001": {"p": "h", "d": "D", "lam": r"\varepsilon"},
    "S002": {"p": "m"},
}


def latex_names_for(paper: str | None) -> dict[str, str]:
    """``latex_names`` with ``paper``'s own notation on top."""
    return {**latex_names, **PAPER_LATEX_NAMES.get(paper or "", {})}


class UnknownName(KeyError):
    """A name (vocabulary term, claim id, claim parameter) the catalogue does not know; the
    message lists the known ones."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def lookup(name: str) -> Term:
    """The vocabulary entry called ``name``; a clear error lists the known names."""
    try:
        return VOCABULARY[name]
    except KeyError:
        known = ", ".join(sorted(VOCABULARY))
        raise UnknownName(f"{name!r} is not in the vocabulary; known names: {known}") from None


# =====================================================================================
# Closed forms (theory/closed_forms.py, THEORY.md section 6): the free variables of the
# algebraic identities CF-2 and CF-12, and the per-group quantities of CF-7.
# =====================================================================================
a_j = sp.Symbol("a_j", real=True)
w_1 = sp.Symbol("w_1", real=True)
w_2 = sp.Symbol("w_2", real=True)
v_1 = sp.Symbol("v_1", real=True)
v_2 = sp.Symbol("v_2", real=True)
GroupY = sp.Symbol("GroupY", positive=True)
GroupNormSq = sp.Function("GroupNormSq")
GroupCos = sp.Function("GroupCos")
GroupLoss = sp.Function("GroupLoss")
GroupPL = sp.Function("GroupPL")

_CLOSED_FORM_TERMS = (
    Term("a_j", a_j, "variable", "output weight of one neuron (free variable of CF-2)"),
    Term("w_1", w_1, "variable",
         "first component of one neuron's input weights w_j (free variable of CF-2, CF-12)"),
    Term("w_2", w_2, "variable", "second component of w_j (as w_1)"),
    Term("v_1", v_1, "variable",
         "first component of a vector paired with w_j: CF-2's back-propagated v_j "
         "(dL/dw_j = a_j v_j), CF-12's velocity dw_j/dt"),
    Term("v_2", v_2, "variable", "second component of that vector (as v_1)"),
    Term("GroupY", GroupY, "instance",
         "||y_G||, the label norm of the group of a group-initialised neuron (CF-7)"),
    Term("GroupNormSq", GroupNormSq, "trajectory",
         "||w_j(t)||^2 of the neuron of a group (group initialisation, CF-7)"),
    Term("GroupCos", GroupCos, "trajectory",
         "cos(w_j(t), s y_G) of the neuron of a group, s the group's label sign (CF-7)"),
    Term("GroupLoss", GroupLoss, "trajectory",
         "the loss on one group, 1/(2n) sum_{i in G} (y_i - h(x_i))^2 (CF-7)"),
    Term("GroupPL", GroupPL, "trajectory",
         "-d ln L_G/dt, the local PL rate of one group's loss (CF-7)"),
)
VOCABULARY.update({term.name: term for term in _CLOSED_FORM_TERMS})
latex_names.update({
    "a_j": "a_j", "w_1": "w_1", "w_2": "w_2", "v_1": "v_1", "v_2": "v_2",
    "GroupY": r"\|y_G\|", "GroupNormSq": r"\|w_G(t)\|^2",
    "GroupCos": r"\cos(w_G(t), s\,y_G)", "GroupLoss": "L_G(t)", "GroupPL": r"\mu_G(t)",
})


def register(terms, latex: dict[str, str] | None = None, paper_latex: dict | None = None,
             owner: str = "") -> None:
    """Add a pack's own vocabulary terms (and their LaTeX names). A name that is already in
    the vocabulary must be the same term; anything else is refused, naming the pack."""
    for term in terms:
        known = VOCABULARY.get(term.name)
        if known is not None and known.obj != term.obj:
            raise PackError(f"pack {owner!r}: its term {term.name!r} clashes with the "
                             f"vocabulary's ({known.meaning})")
        VOCABULARY[term.name] = term
    latex_names.update(latex or {})
    for paper, names in (paper_latex or {}).items():
        PAPER_LATEX_NAMES.setdefault(paper, {}).update(names)
