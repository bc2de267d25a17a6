"""The shared vocabulary: one sympy name for one measurable thing.

Three sorts of names:

- *sizes and settings* of an instance (``n``, ``d``, ``p``, ``lam``, ``Dplus``, ...),
  numbers fixed by the Problem;
- *trajectory quantities*, sympy functions of time (``L(t)``, ``PL(t)``, ...),
  measured along a simulated run;
- *claim parameters* (``eps``, ``delta``, ...): constants a paper leaves free
  or hides in O(.), given a documented value on each claim.

``VOCABULARY`` documents every name; claims, conjectures and reports use only
these names, so a formula means the same thing everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

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
Uplus = sp.Symbol("Uplus", nonnegative=True)
Uminus = sp.Symbol("Uminus", nonnegative=True)
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


@dataclass(frozen=True)
class Term:
    """One vocabulary entry: its sympy object, sort and meaning."""

    name: str
    obj: sp.Basic
    sort: str  # "instance", "trajectory", "parameter", "event", "time"
    meaning: str


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
    Term("Uplus", Uplus, "instance",
         "capacity of the positive neurons, sqrt(sum_{y_k>0} (y_k/|x_k|)^2); equals "
         "n||D_+|| for orthonormal data (S002, CF-8/CF-9)"),
    Term("Uminus", Uminus, "instance", "capacity of the negative neurons (as Uplus)"),
    Term("c_init", c_init, "instance", "S002's c = max_j ||w_j(0)|| / lam"),
    Term("OffDiagGram", OffDiagGram, "instance",
         "max_{k != k'} |cos(x_k, x_k')| (0 for orthogonal data)"),
    Term("MinAbsY", MinAbsY, "instance", "min_k |y_k|"),
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
         "max_j |c_j(t) - c_j(0)| with c_j = a_j^2 - ||w_j||^2"),
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

VOCABULARY: dict[str, Term] = {term.name: term for term in _TERMS}


def lookup(name: str) -> Term:
    """The vocabulary entry called ``name``; a clear error lists the known names."""
    try:
        return VOCABULARY[name]
    except KeyError:
        known = ", ".join(sorted(VOCABULARY))
        raise KeyError(f"{name!r} is not in the vocabulary; known names: {known}") from None
