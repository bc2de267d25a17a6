"""BF25B: Boursier and Flammarion, "Simplicity bias and optimization threshold in two-layer
ReLU networks" (ICML 2025, PMLR 267:5241-5275; arXiv 2410.02348), as claims.

**What could be read.** The abstract (v1 and v2), the opening of section 1, a reviewer's
summary and a machine-written survey page that names Theorem 3.1 (the extremal vectors'
concentration) and Section 4 (the main result's data example) (catalogue
docs/papers/bf25b.md, H.1). The theorems' text, assumptions, constants and the experiments'
sizes could not be reached. Every claim is our reading, with provenance DERIVED or INFERRED
and the flag `UNREAD`; the provisional id T4x means "the Section 4 theorem, number unknown".

Setting (ours, inferred from the same authors' BF25): the standard network without a bias,
the square loss L = 1/(2n) sum (h - y)^2, relu'(0) = 0, BF25's start (a_j, w_j) =
(lam/sqrt m)(s_j |g_j|, g_j), x ~ N(0, I_d), y = <beta*, x> + sigma xi (`papers.bf25b.data`).
D_n(u) = (1/n) sum_k 1{<u, x_k> > 0} y_k x_k, its population counterpart D(u).

Length: declarative claim records and the pack's vocabulary; nothing here computes.
"""

from __future__ import annotations

import sympy as sp

from papers.bf25.claims import LossInf
from theory.claim import Claim, Kind, Provenance, Source
from theory.symbols import Term, c_hi, n

PAPER = "BF25B"

# -- the pack's vocabulary --------------------------------------------------------------------
PopFieldAlongMax = sp.Symbol("PopFieldAlongMax", real=True)
PopFieldAlongMin = sp.Symbol("PopFieldAlongMin", real=True)
PopFieldOrth = sp.Symbol("PopFieldOrth", nonnegative=True)
ExtremalAngle = sp.Symbol("ExtremalAngle", nonnegative=True)
NOpt = sp.Symbol("NOpt", positive=True)

TERMS = (
    Term("PopFieldAlongMax", PopFieldAlongMax, "instance",
         "the largest coefficient <D(u), beta*>/|beta*|^2 of the population field D(u) = "
         "E[1{<u,x> > 0} y x] along the teacher, over the first 8 neurons' start directions u "
         "(Monte Carlo on 2e6 fresh draws; error: Chebyshev, probability 1e-3)"),
    Term("PopFieldAlongMin", PopFieldAlongMin, "instance",
         "the smallest coefficient <D(u), beta*>/|beta*|^2 over the same directions"),
    Term("PopFieldOrth", PopFieldOrth, "instance",
         "the largest |D(u) - <D(u), beta*> beta*/|beta*|^2| / |beta*| over the same "
         "directions: D(u)'s part orthogonal to the teacher"),
    Term("ExtremalAngle", ExtremalAngle, "instance",
         "the largest angle (radians) between an extremal vector u of D_n of sign s (D_n(u) = "
         "s |D_n(u)| u, verified exactly on its cell) and s beta*/|beta*|, over the vectors "
         "found from 18 starts"),
    Term("NOpt", NOpt, "run",
         "the optimisation threshold: the n at which the fraction of runs (over data and "
         "start) whose final training loss is below a level crosses 1/2 (BF25B-D2)"),
)
LATEX_NAMES = {
    "PopFieldAlongMax": r"\max_u \frac{\langle D(u), \beta^*\rangle}{\|\beta^*\|^2}",
    "PopFieldAlongMin": r"\min_u \frac{\langle D(u), \beta^*\rangle}{\|\beta^*\|^2}",
    "PopFieldOrth": r"\max_u \frac{\|P_{\beta^{*\perp}} D(u)\|}{\|\beta^*\|}",
    "ExtremalAngle": r"\max_{u} \angle(u, \pm\bar\beta^*)",
    "NOpt": r"n_{\mathrm{opt}}",
}

# -- where the claims come from -----------------------------------------------------------------
UNREAD = ("The paper's body could not be read (only its abstract and secondary summaries): "
          "its theorem numbers beyond T3.1, its assumptions and constants are unverified "
          "(catalogue H.1); the statement is our reading.")
DATA_GUESS = ("The data law is our guess (x ~ N(0, I_d), no bias, Gaussian noise): the "
              "paper's Section 4 data were not read, so this is not presented as its setting.")
STD, SQUARE = "standard", "square"


def _src(where: str, provenance: Provenance = Provenance.DERIVED) -> Source:
    return Source(PAPER, where, provenance)


def _listed(cid: str, title: str, where: str, reason: str, statement, *,
            kind: Kind = Kind.QUALITATIVE, provenance: Provenance = Provenance.INFERRED,
            **kw) -> Claim:
    """A statement listed with its formula and the reason it is not checked."""
    return Claim(id=cid, title=title, kind=kind, source=_src(where, provenance),
                 statement=statement, checkable=False, not_checkable_reason=reason,
                 flags=(UNREAD,), **kw)


# -- derived: the population field of a linear teacher ------------------------------------------
POPULATION_FIELD = Claim(
    id="BF25B-F1", title="a linear teacher's population field is constant: D(u) = Sigma beta*/2",
    kind=Kind.POINTWISE,
    source=_src("derived (catalogue BF25B-F1: x ~ -x in law, so E[1{<u,x>>0} x x^T] = "
                "E[1{<u,x><0} x x^T] = Sigma/2; the noise term vanishes by independence)"),
    statement=sp.And(sp.Eq(PopFieldAlongMax, sp.Rational(1, 2)),
                     sp.Eq(PopFieldAlongMin, sp.Rational(1, 2)),
                     sp.Eq(PopFieldOrth, 0)),
    window=(sp.Integer(0), sp.Integer(0)),
    measures="the population field at the first 8 neurons' start directions, by Monte Carlo "
    "on 2e6 fresh draws of the instance's law (x ~ N(0, I_d), Sigma = I): its coefficient "
    "along beta* and its orthogonal part, each with an error bound that holds with "
    "probability 1 - 1e-3 for all directions (Chebyshev with the exact second moment, a union "
    "bound over the directions)",
    flags=(DATA_GUESS,),
    notes="Hence D has exactly two extremal directions, +-Sigma beta*/|Sigma beta*| "
    "(+-beta*/|beta*| here), the targets of BF25B-T3.1. With a hidden bias x~ = (x, 1) the "
    "symmetry is lost and D(u) depends on u: the family has no bias.")

# -- Theorem 3.1 in our reading: the extremal vectors concentrate ---------------------------------
EXTREMAL_CONCENTRATION = Claim(
    id="BF25B-T3.1",
    title="the extremal vectors of D_n concentrate at +-beta*/|beta*|: angle <~ "
    "sqrt(log(n)/n)",
    kind=Kind.SCALING,
    source=_src("Theorem 3.1 (named by a third-party summary: 'concentration bounds on the "
                "extremal vectors'; its text was not read); the rate: our reading (catalogue "
                "BF25B-T3.1: sup_u |D_n(u) - D(u)| = O(sqrt(d log(n)/n)) w.h.p. by a covering "
                "of the half-spaces, and D = beta*/2 is constant, BF25B-F1)",
                Provenance.INFERRED),
    statement=sp.Le(ExtremalAngle, c_hi * sp.sqrt(sp.log(n) / n)),
    parameters={"c_hi": None},
    parameter_notes="c_hi is the law's constant (fitted); the paper's constant, its dependence "
    "on d and whether its bound carries the log n were not read.",
    measures="the largest angle between an extremal vector of D_n of sign s (found by the "
    "fixed-point iteration u <- s D_n(u)/|D_n(u)| from 18 starts, each verified exactly on "
    "its cell or face, papers.bf25b.extremal) and s beta*/|beta*|, over seeds at each n of a "
    "doubling range at fixed d; fitted against the law's shape in n (bootstrap over the "
    "seeds): at most of its order",
    flags=(UNREAD, DATA_GUESS),
    notes="Every extremal vector u of D_n satisfies u = s D_n(u)/|D_n(u)|, and "
    "|D_n(u) - beta*/2| <= sup_v |D_n(v) - D(v)|, so its angle to s beta* is at most about "
    "2 sup_v |D_n(v) - D(v)|/|beta*|: the uniform deviation's rate bounds the angle's. A "
    "bound, so stated as 'at most of the order' (<=): the fitted exponent over n = 200 .. "
    "12,800 at d = 5 is about -0.47, between n^(-1/2) and sqrt(log(n)/n) (local exponent "
    "-0.43 there); a plain n^(-1/2) stated as an order (=) sits at the edge of the interval "
    "and would be decided by the range's curvature, not by the rate (class SL).")

# -- statements listed, not checked ------------------------------------------------------------
MAIN = _listed(
    "BF25B-T4x", "beyond the optimisation threshold the flow ends near the teacher, not "
    "interpolating",
    "abstract (v1, v2), reviewer's summary; 'Section 4' per a third-party page; number not "
    "read",
    "its assumptions (the Section 4 data, the width, the range of lam, the threshold's form "
    "in n and d) were not read; our reading's consequence on the flow, the final training "
    "loss against n, is the report section E-BF25B-1 (a measurement at our data law, not a "
    "check of the theorem)",
    sp.Gt(LossInf, 0))

THRESHOLD = _listed(
    "BF25B-E1", "trained networks go from interpolation to a simple solution as n grows",
    "abstract ('the trained models go from global minima to spurious local minima ... as the "
    "number of training samples becomes larger than some level we call optimization "
    "threshold'); experiments' sizes not read",
    "a sweep over n whose threshold's form is unknown (no law to check); measured in the "
    "report section E-BF25B-1 at our data law and small sizes, never stated as the paper's",
    sp.Gt(LossInf, 0))

MECHANISM = _listed(
    "BF25B-F2", "once all extremal vectors are near +-beta*, the network after the alignment "
    "is nearly linear and cannot interpolate",
    "our reading of the abstract's mechanism (catalogue BF25B-F2)",
    "a proof sketch, not a statement with a measurable conclusion of its own (class QL); its "
    "premise is BF25B-T3.1",
    sp.Eq(ExtremalAngle, 0))

EXTREMAL_DEFINITION = _listed(
    "BF25B-D1", "extremal vectors: D_n(u) = c u with c != 0 on the unit sphere",
    "BF25 Definition 1 (whether BF25B restates it identically was not read)",
    "a definition: implemented (papers.bf25b.extremal, tested against BF25's exact cones in "
    "d = 2 and on a case whose answer is known)",
    sp.Le(ExtremalAngle, sp.pi), kind=Kind.IDENTITY, provenance=Provenance.DERIVED)

THRESHOLD_DEFINITION = _listed(
    "BF25B-D2", "the optimisation threshold: the n beyond which training stops interpolating",
    "abstract",
    "a definition; its operational form (the n at which the fraction of interpolating runs "
    "crosses 1/2) is measured, not checked, in E-BF25B-1",
    sp.Ge(NOpt, n), kind=Kind.IDENTITY)

ASSUMPTIONS = _listed(
    "BF25B-A", "the main result's and Theorem 3.1's assumptions",
    "reviewer's summary ('further simplifying assumptions'; Theorem 3.1's 'less "
    "restrictive'); not read",
    "not read: the claims built here declare their data law as inferred (DATA_GUESS)",
    sp.Eq(PopFieldOrth, 0))

CLAIMS = (
    POPULATION_FIELD, EXTREMAL_CONCENTRATION,
    MAIN, THRESHOLD, MECHANISM, EXTREMAL_DEFINITION, THRESHOLD_DEFINITION, ASSUMPTIONS,
)
