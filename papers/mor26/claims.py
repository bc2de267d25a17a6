"""MOR26: "Mildly Overparameterized ReLU Networks on Orthogonal Data: Incremental Learning and
Implicit Bias" (arXiv 2605.27097, May 2026), as claims.

**What could be read.** Only the abstract (and the first paragraph of section 1): the
paper's theorems, its Algorithm 1, its conventions and its constants could not be reached
(the catalogue, docs/papers/mor26.md, H.1). Every claim here is therefore the abstract's
statement in our precise reading, with provenance DERIVED (our derivation, sketched in the
catalogue) or INFERRED (our guess at the paper's meaning), and the flag `UNREAD` saying that
the paper's own statement, numbering and constants are unverified. The provisional ids
(Tx1 ... Tx4: "theorem, number unknown") follow the catalogue.

Setting (inferred from the paper's lineage, S002 and S000): the standard network, the square
loss L = 1/(2n) sum (h - y)^2, relu'(0) = 0, orthogonal inputs, the balanced start
w_j(0) = lam g_j, a_j(0) = s_j |w_j(0)|, g_j ~ N(0, I), s_j = +-1, time t; rescaled time
tau = t / ln(1/lam). The limit lam -> 0 is compared with `papers.mor26.algorithm` (our
reconstruction of the paper's Algorithm 1).

Length: declarative claim records and the pack's vocabulary; nothing here computes.
"""

from __future__ import annotations

import sympy as sp

from theory.claim import Assumption, Claim, Kind, Provenance, Source
from theory.symbols import (
    FieldGap,
    GoodInit,
    InitImbalance,
    L,
    OffDiagGram,
    Term,
    c_hi,
    lam,
    n,
    p,
    t,
)

PAPER = "MOR26"

# -- the pack's vocabulary --------------------------------------------------------------------
InvLogLam = sp.Symbol("InvLogLam", positive=True)
InvN = sp.Symbol("InvN", positive=True)
AlgLossInf = sp.Symbol("AlgLossInf", nonnegative=True)
AlgNormSq = sp.Symbol("AlgNormSq", nonnegative=True)
AlgInterp = sp.Symbol("AlgInterp", nonnegative=True, integer=True)
NormRatio = sp.Symbol("NormRatio", positive=True)
PCoverExact = sp.Symbol("PCoverExact", nonnegative=True)
PInterpLimit = sp.Symbol("PInterpLimit", nonnegative=True)
RatioBound = sp.Symbol("RatioBound", positive=True)
PlateauRatioMax = sp.Function("PlateauRatioMax")
PlateauRatioMin = sp.Function("PlateauRatioMin")
TransitionGap = sp.Function("TransitionGap")
PlateauLossGap = sp.Function("PlateauLossGap")
SaddleNormGap = sp.Function("SaddleNormGap")

TERMS = (
    Term("InvLogLam", InvLogLam, "instance",
         "1/ln(1/lam): the unit of MOR26's rescaled time tau = t/ln(1/lam); the jump "
         "process's corrections are O(InvLogLam)"),
    Term("InvN", InvN, "instance", "1/n: the small variable of a limit n -> infinity"),
    Term("AlgLossInf", AlgLossInf, "instance",
         "the final loss of MOR26's Algorithm 1 (the lam -> 0 limit), (1/(2n)) sum over the "
         "samples it never fits of y_k^2 (0 when it interpolates)"),
    Term("AlgNormSq", AlgNormSq, "instance",
         "|theta|^2 of Algorithm 1's final saddle, 2 sum_i |y~_{S_i}| over the activations"),
    Term("AlgInterp", AlgInterp, "instance", "1 if Algorithm 1's limit fits every sample, else 0"),
    Term("NormRatio", NormRatio, "instance",
         "AlgNormSq / MinNormSq: the limit's squared norm over the least of any interpolator "
         "(for an instance whose limit interpolates)"),
    Term("PCoverExact", PCoverExact, "instance",
         "the probability over g_j ~ N(0, I), s_j = +-1 that every sample is covered (a neuron "
         "of its label's sign active on it) on orthogonal data: CF-6's exact sum "
         "(theory.closed_forms.good_init_probability) at the instance's n_+, n_-, p"),
    Term("PInterpLimit", PInterpLimit, "run",
         "probability over the initialisation that Algorithm 1's limit interpolates"),
    Term("RatioBound", RatioBound, "parameter",
         "the constant of MOR26's 'within a constant factor of the minimal-norm interpolator'"),
    Term("PlateauRatioMax", PlateauRatioMax, "trajectory",
         "max over Algorithm 1's activations i of t_i/(tau_i ln(1/lam)), t_i the first time "
         "the activating neurons' sum |w_j|^2 reaches half its saddle value (constant in t)"),
    Term("PlateauRatioMin", PlateauRatioMin, "trajectory",
         "min over Algorithm 1's activations of t_i/(tau_i ln(1/lam)) (constant in t)"),
    Term("TransitionGap", TransitionGap, "trajectory",
         "max over Algorithm 1's activations of |t_i/ln(1/lam) - tau_i| (constant in t)"),
    Term("PlateauLossGap", PlateauLossGap, "trajectory",
         "max over Algorithm 1's saddles i = 0..N of |L - L^{F_i}| at the middle of plateau i, "
         "tau = (tau_i + tau_{i+1})/2 (tau_0 = 0, tau_{N+1} = tau_N + 1), constant in t"),
    Term("SaddleNormGap", SaddleNormGap, "trajectory",
         "max over Algorithm 1's final groups of |sum_{j in group} |w_j(t)|^2 - its saddle "
         "value| (0 for the neurons that never activate)"),
)
LATEX_NAMES = {
    "InvLogLam": r"\frac{1}{\ln(1/\lambda)}", "InvN": r"\frac{1}{n}",
    "AlgLossInf": r"L^{F_N}", "AlgNormSq": r"\|\theta^{\mathrm{alg}}\|^2",
    "AlgInterp": r"\mathbb{1}[F_N = [n]]", "NormRatio": r"\frac{\|\theta^{\mathrm{alg}}\|^2}"
    r"{\min_{L=0}\|\theta\|^2}", "PCoverExact": r"P_{\mathrm{cover}}",
    "PInterpLimit": r"P(\mathrm{limit\ interpolates})", "RatioBound": "C",
    "PlateauRatioMax": r"\rho_{\max}(t)", "PlateauRatioMin": r"\rho_{\min}(t)",
    "TransitionGap": r"\Delta_\tau(t)", "PlateauLossGap": r"\Delta_L(t)",
    "SaddleNormGap": r"\max_g \left|\sum_{j \in g} \|w_j(t)\|^2 - N_g\right|",
}

# -- where the claims come from -----------------------------------------------------------------
UNREAD = ("The paper's text could not be read (only its abstract): its theorem numbers, its "
          "Algorithm 1, its time and loss normalisation and its constants are unverified "
          "(catalogue H.1); the statement is our reading, derived on the conventions of H.4.")
NORMALISATION = ("Times are for L = (1/(2n)) sum (h - y)^2 (inferred from S002/S000); with "
                 "the paper's loss written (1/2) sum instead, every tau divides by n.")
STD, SQUARE = "standard", "square"


def _src(where: str, provenance: Provenance = Provenance.DERIVED) -> Source:
    return Source(PAPER, where, provenance)


ORTHOGONAL = Assumption(
    "orthogonal inputs", sp.Eq(OffDiagGram, 0),
    "<x_k, x_k'> = 0 for k != k' (the abstract's 'orthogonal training data')")
BALANCED = Assumption(
    "balanced initialisation", sp.Eq(InitImbalance, 0),
    "|a_j(0)| = |w_j(0)| (inferred from S002 and S000's small balanced start)")
SETTING = (ORTHOGONAL, BALANCED)
RATIO_BOUND = 1 / (1 - 1 / sp.sqrt(2))


def _limit(cid: str, title: str, where: str, statement, measures: str, *,
           provenance: Provenance = Provenance.DERIVED, **kw) -> Claim:
    """A limit lam -> 0 (or a rate) on flows, decided along runs of one draw with lam
    decreasing geometrically (`verify.engine.check_limit`)."""
    return Claim(id=cid, title=title, kind=Kind.LIMIT, source=_src(where, provenance),
                 statement=statement, setting=SETTING, parametrization=STD, loss=SQUARE,
                 measures=measures, flags=(UNREAD, *kw.pop("flags", ())), **kw)


def _listed(cid: str, title: str, where: str, reason: str, statement, *,
            kind: Kind = Kind.QUALITATIVE, provenance: Provenance = Provenance.DERIVED,
            **kw) -> Claim:
    """A statement listed with its formula and the reason it is not checked."""
    return Claim(id=cid, title=title, kind=kind, source=_src(where, provenance),
                 statement=statement, checkable=False, not_checkable_reason=reason,
                 flags=(UNREAD,), **kw)


# -- Theorem ? (the abstract's first result): the saddle-to-saddle jump process -----------------
JUMP_TIMES = _limit(
    "MOR26-Tx1", "as lam -> 0 the flow's plateaus end at Algorithm 1's transition times",
    "abstract ('the limiting flow converges to a saddle-to-saddle jump process ... a new "
    "neuron activates at each saddle'); the times: catalogue section 3, our Algorithm 1",
    sp.And(sp.Eq(sp.Limit(PlateauRatioMax(t), InvLogLam, 0), 1),
           sp.Eq(sp.Limit(PlateauRatioMin(t), InvLogLam, 0), 1)),
    "per activation i of Algorithm 1 (neurons j_i, fitted set S_i, time tau_i), the flow's "
    "first time t_i with sum_{j_i} |w_j|^2 >= |y~_{S_i}|/2, as t_i/(tau_i ln(1/lam)); the "
    "largest and the smallest ratio over i, along ten runs of one draw with 1/ln(1/lam) "
    "decreasing by a factor 23 (lam = 1e-6 .. 1e-136)",
    flags=(NORMALISATION,),
    notes="The sequence's variable is 1/ln(1/lam), not lam: the jump times are limits on the "
    "time scale ln(1/lam), which they approach at the rate 1/ln(1/lam) (MOR26-Tx1b), so the "
    "fit is a power law in 1/ln(1/lam). The half-norm crossing is one choice of plateau exit; "
    "any fixed fraction of the saddle norm has the same limit.")

JUMP_RATE = _limit(
    "MOR26-Tx1b", "the transition-time gap shrinks like 1/ln(1/lam)",
    "derived (catalogue H.3: exponents start at -1 + ln|g_j|/ln(1/lam) and each alignment "
    "takes O(1) time)",
    sp.Le(TransitionGap(t), c_hi * InvLogLam),
    "max over Algorithm 1's activations of |t_i/ln(1/lam) - tau_i| along the same runs: its "
    "exponent in 1/ln(1/lam), fitted, against 1",
    parameters={"c_hi": None},
    parameter_notes="c_hi is the rate's constant (fitted): it depends on the draw (ln|g_j| and "
    "the alignment transients), not on lam.",
    notes="Not in the abstract: the rate at which MOR26-Tx1's limit is approached, which says "
    "that the gap halves each time ln(1/lam) doubles (acceptance of issue 54).")

ALGORITHM = _listed(
    "MOR26-ALG1", "Algorithm 1 computes the transition times and saddles without training",
    "Algorithm 1 (named by a third-party summary; its text was not read): our "
    "reconstruction, catalogue section 3",
    "a procedure, not a statement: it is implemented (papers.mor26.algorithm, tested on hand "
    "cases) and what it outputs is checked against the flow by MOR26-Tx1, Tx1b, F3, F4 and "
    "Tx2c", sp.Eq(sp.Limit(TransitionGap(t), InvLogLam, 0), 0),
    notes="Groups of neurons with the same growth set activate together (a positive-"
    "probability event, not a tie); only ties between different remaining sets are refused.")

PLATEAU_LOSS = _limit(
    "MOR26-F3", "on each plateau the loss is the saddle's, (1/(2n)) sum_{k not fitted} y_k^2",
    "abstract (saddle-to-saddle); the saddles' losses derived (catalogue MOR26-F3, D6)",
    sp.Eq(sp.Limit(PlateauLossGap(t), lam, 0), 0),
    "the loss at the middle of each plateau of Algorithm 1, tau = (tau_i + tau_{i+1})/2, "
    "against its saddle's L^{F_i}, the largest difference, along runs with lam decreasing "
    "geometrically (lam = 1e-6 .. 1e-136)",
    flags=(NORMALISATION,),
    notes="At the middle of a plateau the flow is within lam^(c Delta tau) of the saddle: a "
    "power of lam, with an exponent proportional to the plateau's length (plateaus much "
    "shorter than 0.1 in tau are not resolved above lam = 1e-44).")

SADDLE_NORMS = _limit(
    "MOR26-F4", "the final saddle: each group's sum |w_j|^2 is |y~_S| of the set it fits",
    "derived (catalogue MOR26-F4, D6: a balanced neuron fitting S has a_j^2 = |w_j|^2 = "
    "|y~_S|)",
    sp.Eq(sp.Limit(sp.Limit(SaddleNormGap(t), t, sp.oo), lam, 0), 0),
    "at each run's limit point (its end state polished by Newton's method, or its end "
    "state), the largest gap over Algorithm 1's groups between sum_j |w_j|^2 and the "
    "saddle's |y~_S| (0 for neurons that never activate), along runs with lam decreasing",
    notes="Which neurons activate and which samples each fits is what this checks: a "
    "different neuron, or a different set, changes a group's norm. A group of neurons with "
    "one growth set is checked as a whole: how it splits the norm is set by the O(1) "
    "alignment transient (catalogue section 3). The balance a_j^2 = |w_j|^2 itself is S002-L1.")

# -- Theorem ? (the abstract's second result): interpolation once m >~ log n ----------------------
INTERPOLATION = Claim(
    id="MOR26-Tx2", title="the limit interpolates with probability >= 1 - n (3/4)^m",
    kind=Kind.PROBABILITY,
    source=_src("abstract ('interpolates the training data with high probability as soon as "
                "m >~ log(n)', recovering Dana et al. 2025); the constant: our union bound "
                "(catalogue MOR26-Tx2)"),
    statement=sp.Ge(PInterpLimit, 1 - n * sp.Rational(3, 4) ** p),
    setting=(ORTHOGONAL,),
    measures="Monte Carlo frequency over g_j ~ N(0, I), s_j = +-1 (fixed data) of Algorithm "
    "1's limit fitting every sample, against the union bound",
    flags=(UNREAD,),
    notes="A sample is missed by one neuron with probability 3/4 (active w.p. 1/2, right sign "
    "w.p. 1/2), so P(some sample uncovered) <= n (3/4)^m and m >= ln(n/delta)/ln(4/3) "
    "suffices for probability 1 - delta: S000's width rule. The abstract's upper end of the "
    "width range (exp(n), per a third-party summary) was not read.")

COVER_PROBABILITY = Claim(
    id="MOR26-Tx2b", title="P(the limit interpolates) is the exact coverage probability",
    kind=Kind.PROBABILITY,
    source=_src("derived (catalogue MOR26-Tx2b: CF-6's probability of a good start, given "
                "MOR26-Tx2d)"),
    statement=sp.Eq(PInterpLimit, PCoverExact),
    setting=(ORTHOGONAL,),
    measures="the same Monte Carlo frequency against CF-6's exact sum_k C(m, k) 2^-m "
    "(1 - 2^-k)^n_+ (1 - 2^-(m-k))^n_- (k: the neurons with a_j > 0)",
    flags=(UNREAD,),
    notes="Exact for Gaussian g_j and orthogonal x_k (the signs of <g_j, x_k> are independent "
    "fair coins) given the limit interpolates iff every sample is covered (MOR26-Tx2d).")

FINAL_LOSS = _limit(
    "MOR26-Tx2c", "the flow's final loss tends to Algorithm 1's (0 iff every sample is covered)",
    "abstract (interpolation); derived (catalogue MOR26-Tx2: an uncovered sample is never fitted)",
    sp.Eq(sp.Limit(sp.Limit(L(t), t, sp.oo), lam, 0), AlgLossInf),
    "the loss at each run's limit point against Algorithm 1's final loss, along runs with lam "
    "decreasing geometrically")

COVERAGE = Claim(
    id="MOR26-Tx2d", title="Algorithm 1's limit interpolates iff every sample is covered",
    kind=Kind.POINTWISE,
    source=_src("derived (catalogue MOR26-Tx2, 'our precise reading'; S000's Q-good "
                "initialisation)"),
    statement=sp.Eq(AlgInterp, GoodInit),
    setting=(ORTHOGONAL,),
    window=(sp.Integer(0), sp.Integer(0)),
    measures="whether Algorithm 1 fits every sample, against S000's GoodInit (a neuron of "
    "each sample's label sign active on it at t = 0)",
    flags=(UNREAD,),
    notes="A covered sample lies in some neuron's growth set, whose rate stays >= |c_k| > 0 "
    "until the sample is fitted; an uncovered one is in no growth set.")

# -- Theorem ? (the abstract's third result): the implicit bias -----------------------------------
NORM_SCALING = _listed(
    "MOR26-Tx3", "the learned interpolator's squared norm scales as sqrt(n)",
    "abstract ('the learned interpolator has a squared l2-norm scaling as sqrt(n)')",
    "a Theta(sqrt n) law whose constant converges slowly: |theta|^2 = NormRatio x "
    "2(|y~+| + |y~-|), the second factor Theta(sqrt n) exactly (S002-P1), and NormRatio "
    "grows from 1.41 (n = 16) to 2.21 (1024) and 2.31 (4096) (E-MOR26-1's table), so a "
    "power-law fit of |theta|^2 gives exponents 0.61 over n = 16..1024 and 0.53 over "
    "1024..4096, above 1/2 by that pre-asymptotic growth: a SCALING check would call a true "
    "Theta(sqrt n) VIOLATED. The claim is MOR26-Tx4's bounded ratio, checked there",
    sp.Eq(AlgNormSq, c_hi * n ** sp.Rational(1, 2)), kind=Kind.SCALING,
    parameters={"c_hi": None}, parameter_notes="c_hi: the law's constant (fitted).")

NORM_RATIO = Claim(
    id="MOR26-Tx4", title="the limit's squared norm is within a constant of the least "
    "interpolator's as n grows",
    kind=Kind.LIMIT,
    source=_src("abstract ('within a constant factor of the minimal l2-norm interpolator'); "
                "the constant: our heuristic (catalogue MOR26-Tx4)", Provenance.INFERRED),
    statement=sp.Le(sp.Limit(NormRatio, InvN, 0), RatioBound),
    setting=(ORTHOGONAL,),
    parameters={"RatioBound": RATIO_BOUND},
    parameter_notes="The paper's constant was not read. 1/(1 - 2^(-1/2)) = 3.41 is our "
    "heuristic: each activation fits about half of the samples left of its sign, so the norms "
    "|y~_{S_i}| fall like 2^(-i/2) and sum to at most that multiple of the least norm.",
    measures="Algorithm 1's |theta|^2 / MinNormSq (MinNormSq = 2(|y~+| + |y~-|), S002-P1) "
    "averaged over the draws whose limit interpolates, at m = S000's width rule "
    "floor(ln(n/0.05)/ln(4/3)) + 1, along n = 16 .. 8192 (16384 in the full profile), the "
    "limit n -> infinity extrapolated (its error: 3 standard errors of each mean)",
    flags=(UNREAD,),
    notes="Checked on the lam -> 0 limit (Algorithm 1), whose agreement with the flow is "
    "MOR26-F4 and Tx1 at n <= 16; no flow is run at n = 8192. NormRatio >= 1 for any "
    "interpolator, and <= sqrt(max(N_+, N_-)) by Cauchy-Schwarz over the N_+- activations of "
    "each sign.")

# -- setting and derived facts -----------------------------------------------------------------
SETTING_CLAIM = Claim(
    id="MOR26-A1", title="orthogonal inputs and a balanced start",
    kind=Kind.POINTWISE,
    source=_src("abstract ('orthogonal training data', 'small initialization'); balance "
                "inferred", Provenance.INFERRED),
    statement=sp.And(sp.Eq(OffDiagGram, 0), sp.Eq(InitImbalance, 0)),
    window=(sp.Integer(0), sp.Integer(0)),
    measures="max_{k != k'} |cos(x_k, x_k')| and max_j |a_j(0)^2 - |w_j(0)|^2| relative",
    flags=(UNREAD,),
    notes="The instances every other claim assumes; the label law and whether the start may "
    "be unbalanced were not read.")

DECOUPLING = Claim(
    id="MOR26-F1", title="the flow neuron by neuron: da_j/dt = <D_j, w_j>, dw_j/dt = a_j D_j",
    kind=Kind.IDENTITY,
    source=_src("derived (catalogue MOR26-F1; the equations of S002 section 3)"),
    statement=sp.Eq(FieldGap(t), 0),
    setting=SETTING,
    parametrization=STD,
    loss=SQUARE,
    measures="the simulated velocity against the layer-wise ODEs with D_j = (1/n) sum_k "
    "1{<w_j, x_k> > 0} (y_k - h(x_k)) x_k (S002's FieldGap: over the neurons off ties at "
    "each time)",
    flags=(UNREAD,),
    notes="On orthogonal data the coordinate of w_j along x_k moves only while it is positive "
    "and the sample's residual is not 0: a coordinate that reaches 0 stays there, so active "
    "sets only shrink, the fact Algorithm 1 rests on.")

ALIGNMENT = _listed(
    "MOR26-F2", "early alignment: a dormant neuron grows at the rate |c_S| of its growth set",
    "derived (catalogue MOR26-F2)",
    "its consequence, the time each neuron reaches O(1), is MOR26-Tx1; the alignment itself "
    "is S002-F1 and S001's claims on the same data",
    sp.Eq(sp.Limit(TransitionGap(t), InvLogLam, 0), 0))

LINEAGE = _listed(
    "MOR26-F5", "the result recovers S000's interpolation threshold and extends S002",
    "abstract (citing Dana et al. 2025); the two-saddle case derived",
    "a statement about the literature (class QL); its content is MOR26-Tx2 (S000's width "
    "rule) and, at S002's widths, Algorithm 1 with two activations",
    sp.Ge(p, sp.log(n) / sp.log(sp.Rational(4, 3))))

FIGURES = _listed(
    "MOR26-E1", "the paper's experiments and figures",
    "not reachable (catalogue MOR26-E1)",
    "the figures and their sizes could not be read; the report section E-MOR26-1 draws the "
    "natural one (the loss staircase against Algorithm 1's times)",
    sp.Eq(sp.Limit(PlateauLossGap(t), lam, 0), 0))

CLAIMS = (
    JUMP_TIMES, JUMP_RATE, ALGORITHM, PLATEAU_LOSS, SADDLE_NORMS,
    INTERPOLATION, COVER_PROBABILITY, FINAL_LOSS, COVERAGE,
    NORM_SCALING, NORM_RATIO,
    SETTING_CLAIM, DECOUPLING, ALIGNMENT, LINEAGE, FIGURES,
)
