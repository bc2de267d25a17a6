"""Benchmark (not a test): the power of `gfverify conjecture` on statements whose truth we know.

Each entry of ``STATEMENTS`` is a statement in the conjecture vocabulary, a family, a
method (exact flow or gradient descent) and its ground truth, with the argument for that
truth written next to it (``why``): for a true statement the theorem, identity or closed
form it follows from; for a false one the argument that refutes it, or the instance that
does (a replay command). The benchmark runs `verify.conjecture.conjecture` on each, with
the command line's budget and search seed, and scores the answer against the truth:

- a true statement answered NO COUNTEREXAMPLE is *correct*, a false one answered
  COUNTEREXAMPLE is *correct* (caught);
- UNDECIDED is *undecided*: no claim was made (too few instances decided: margins inside
  the numerical error, runs that did not reach their horizon);
- a true statement answered COUNTEREXAMPLE, or a false one answered NO COUNTEREXAMPLE, is
  *WRONG*. There must be none: a wrong answer means either that gfverify decided beyond
  what its numbers support, or that the ground truth written here is wrong. Either is a
  bug to chase, never a score to live with.

What is measured: for the true statements, the share answered NO COUNTEREXAMPLE (the
rest are undecided: the numerical error is larger than the slack somewhere, often in the
late tail of a run where the loss is at the float64 floor); for the false ones, the share
caught; the number of WRONG answers; the seconds each statement takes (search, shrink of
a counterexample, and everything the search simulates, in a fresh process so that no
statement reuses another's runs; imports are not counted).

The statements cover the six families (`gfverify families`) and both methods; the
gradient-descent ones are statements about the flow whose slack is far above the step
error of a small step (lr 1e-2 or 1e-3), or inequalities that hold at every state of the
parameters, so that they are true for the descent's iterates as well. Family parameters
are fixed (``params``) only where the default ranges would make a run slow or the
statement's argument needs them; the rest is searched as the command line searches it.

Conventions used by the arguments (`numerics.Problem`): h(x) = s sum_j a_j relu(<w_j, x>)
with s = 1 (standard) or 1/p (mean-field); the flow d(theta)/dt = -kappa grad L with
kappa = 1 or p; square loss L = (1/2n) sum_i r_i^2, r_i = y_i - h(x_i); relu'(0) = 0;
E_i = s sum_j 1{<w_j, x_i> > 0} a_j^2; PL = kappa |grad L|^2 / L (the Filippov velocity
where the flow slides). "Orthogonal data" means <x_i, x_k> = 0 for i != k (two-point,
orthogonal, orthogonal-asym, group).

    python bench/conjectures.py [--quick] [--budget N] [--seed S] [--only SUBSTRING]
                                [--jobs J] [--json OUT] [--sizes default|paper]

``--quick`` is budget 5 (the command line's default is 20). ``--only`` keeps the
statements whose id, family, method or text contains SUBSTRING (case-insensitive; a comma
list keeps those containing any of them).
``--jobs`` runs that many statements at once (default: the number of cores; the seconds
of each are then measured while the others run). On this 2-core machine the default run
took 3 min 12 s (368 s of searches, the slowest 51 s; README, "Deciding what is
decidable"). Exit code: 0 when no answer is wrong,
1 when one is, 4 when no answer is wrong but a statement could not be run (gfverify
raised: its own "internal error" exit code).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BUDGET = 20  # `gfverify conjecture`'s default (verify.conjecture.statement)
QUICK_BUDGET = 5
GD_LR = 1e-2

VERDICTS = ("NO COUNTEREXAMPLE", "COUNTEREXAMPLE", "UNDECIDED")
ERROR = "ERROR"


@dataclass(frozen=True)
class Statement:
    """One benchmark statement: what `conjecture` is asked and what the truth is.

    ``params`` are the family parameters fixed with ``--param`` (pairs, so the record stays
    hashable); ``why`` is the argument for ``truth``.
    """

    id: str
    family: str
    text: str
    truth: bool
    why: str
    method: str = "flow"
    lr: float | None = None
    mode: str = "for_all_t"
    at_t: float | None = None
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def params_dict(self) -> dict[str, Any]:
        return dict(self.params)

    def command(self, budget: int = DEFAULT_BUDGET, seed: int = 0) -> str:
        """The same search from the command line."""
        parts = ["gfverify", "conjecture", repr(self.text), "--family", self.family]
        parts += [f"--param {k}={v}" for k, v in self.params]
        parts.append({"for_all_t": "--for-all-t", "as_t_to_inf": "--as-t-to-inf",
                      "at_t": f"--at-t {self.at_t}"}[self.mode])
        if self.method == "gd":
            parts.append(f"--method gd --lr {self.lr if self.lr is not None else GD_LR}")
        parts.append(f"--budget {budget} --seed {seed}")
        return " ".join(parts)


def _gd(lr: float = GD_LR, **kw) -> dict:
    return {"method": "gd", "lr": lr, **kw}


STATEMENTS: tuple[Statement, ...] = (
    # -- two-point (S002's toy: x1 = (-0.5, 1), y1 = -1; x2 = (2, 1), y2 = 1; orthogonal,
    #    standard network, balanced init at scale lam <= 1e-4) -------------------------------
    Statement(
        "TP-drift", "two-point", "ParamDrift(t) <= sqrt(kappa*t*L(0))", True,
        "Energy identity dL/dt = -|theta'|^2/kappa, then Cauchy-Schwarz: |theta(t) - "
        "theta(0)|^2 <= t int_0^t |theta'|^2 = kappa t (L(0) - L(t)) <= kappa t L(0)."),
    Statement(
        "TP-pl-low", "two-point", "PL(t) >= 2*Xmin**2*Emin(t)/n", True,
        "CF-3 on orthogonal data: the first-layer part of kappa|grad L|^2 alone is "
        "(1/n^2) sum_i r_i^2 |x_i|^2 E_i, so PL >= (2/n) min_i |x_i|^2 E_i >= 2 Xmin^2 Emin/n "
        "at every state (any parametrisation, any init)."),
    Statement(
        "TP-growth", "two-point", "log(NormW(t)) <= log(NormW(0)) + Xmax*sqrt(2*L(0)/n)*t",
        True,
        "Growth lemma: w_j' = a_j D_j, D_j = (1/n) sum_i 1_ij r_i x_i, and |a_j| = |w_j| "
        "(balanced, conserved), so (ln|w_j|)' <= |D_j|; on orthogonal data |D_j|^2 <= "
        "(Xmax^2/n^2) sum_i r_i^2 = 2 Xmax^2 L/n <= 2 Xmax^2 L(0)/n. Tight within "
        "sqrt(2) early on (an aligned neuron grows at rate |D_+| = 1.118 vs 1.58)."),
    Statement(
        "TP-norm-down", "two-point", "NormW(t) <= NormW(0)", False,
        "Fitting needs growth: |h(x_i)| <= sum_j |a_j||w_j||x_i| <= p Xmax NormW^2, which is "
        "<= 60*2.24*(4e-4)^2 < 1e-4 while NormW <= NormW(0); the flow does fit y = +-1 "
        "(S002-T1: the S_{+,1} neurons reach |w|^2 ~ n|D_+| = O(1) in phase 2)."),
    Statement(
        "TP-fast-half", "two-point", "first(L(t) <= 0.5*L(0)) <= 1", False,
        "Plateau of small init: L <= L(0)/2 needs max_i |h(x_i)| >= 1 - sqrt(L(0)) ~ 0.29, "
        "but by TP-growth |h(x_i)| <= p Xmax NormW(0)^2 exp(2 Xmax sqrt(2L(0)/n) t) "
        "~ 1e-3 at t = 1 for lam <= 1e-4 (NormW(0) = lam max_j |g_j| ~ 4 lam): the event "
        "comes after t ~ -ln(lam)/|D_+| >= 8."),
    Statement(
        "TP-drift-gd", "two-point", "ParamDrift(t) <= sqrt(kappa*t*L(0))", True,
        "TP-drift for the flow; its slack is about half the right side (relative margin "
        "~0.5 where tightest, t ~ 25) against a relative step error O(lr) = O(1e-2) of the "
        "descent.",
        params=(("lam", 1e-6), ("horizon", 30)), **_gd()),
    Statement(
        "TP-norm-down-gd", "two-point", "NormW(t) <= NormW(0)", False,
        "TP-norm-down: by t = 30 the descent (as the flow) has left both saddles, "
        "lam = 1e-6 escapes by ~ -ln(lam)/|D_-| ~ 25, so the key neurons are O(1) >> "
        "NormW(0) ~ 1e-6.",
        params=(("lam", 1e-6), ("horizon", 30)), **_gd()),
    # -- orthogonal (S002: x_k = e_k, |y_k| in [0.5, 1.5], balanced init, lam <= 1e-6) ----------
    Statement(
        "OR-pl-up", "orthogonal", "PL(t) <= 4*Emax(t)/n", True,
        "CF-3 upper bound (unit norms): the first-layer part is (2/n) sum r_i^2 E_i / "
        "sum r_i^2 <= 2 Emax/n; the output-layer part, by Cauchy-Schwarz, "
        "sum_i <w_j, x_i>^2 <= |w_j|^2 and |a_j| >= |w_j| (balanced), is at most the same."),
    Statement(
        "OR-growth", "orthogonal", "log(NormW(t)) <= log(NormW(0)) + sqrt(2*L(0)/n)*t", True,
        "TP-growth with Xmax = 1 (balancedness and |D_j|^2 <= 2L/n on orthonormal data)."),
    Statement(
        "OR-resid", "orthogonal", "R(t) <= sqrt(2*n*L(0))", True,
        "max_i |r_i| <= (sum_i r_i^2)^(1/2) = sqrt(2n L(t)) <= sqrt(2n L(0)), the loss being "
        "non-increasing along the flow (energy identity; CF-5)."),
    Statement(
        "OR-rank2", "orthogonal", "StableRank(t) <= 2", False,
        "At t ~ 0 W ~ lam G, G a p x d Gaussian with p >= 30: its stable rank exceeds 2 as "
        "soon as d >= 3 for most draws; the README's counterexample replays: "
        "--param n=2 --param p=30 --param d=3 --param lam=1e-20 --param seed=0 "
        "(StableRank 2.25 at t = 1.93)."),
    Statement(
        "OR-fast", "orthogonal", "L(t) <= L(0)*exp(-t/n)", False,
        "Plateau: by OR-growth |h(x_i)| <= sum_j |w_j|^2 <= p NormW(0)^2 e^{2 sqrt(2L(0)/n) t} "
        "~ 1e-8 at t = 1 (lam <= 1e-6, NormW(0) ~ 5 lam, sqrt(2L(0)/n) <= 1.1), so "
        "L(1) = L(0)(1 - O(1e-8)) > L(0) e^{-1/n}: false on every instance."),
    Statement(
        "OR-fast-gd", "orthogonal", "L(t) <= L(0)*exp(-t/n)", False,
        "OR-fast; the descent at lr 1e-2 has the same plateau (its iterates are the flow's up "
        "to O(lr)): lam = 1e-6 escapes after ~ -ln(lam)/|D_+| >= 18 (|D_+| <= 0.75 at "
        "n = 2), and already at t = 1 L = L(0)(1 - O(1e-9)) > L(0) e^{-1/2}.",
        params=(("n", 2), ("d", 2), ("p", 30), ("lam", 1e-6), ("horizon", 20)), **_gd()),
    # -- orthogonal-asym (S000's protocol: x_i = c_i e_i, c_i in [1, 2], mean-field,
    #    |a_j(0)| >= 100 |w_j(0)|, Q-good) --------------------------------------------------------
    Statement(
        "OA-pl-low", "orthogonal-asym", "PL(t) >= 2*Xmin**2*Emin(t)/n", True,
        "S000's Lemma / CF-3 lower bound: p|grad_W L|^2 = (1/n^2) sum_i r_i^2 |x_i|^2 E_i on "
        "orthogonal data, so PL >= (2/n) min_i |x_i|^2 E_i at every state."),
    Statement(
        "OA-pl-up", "orthogonal-asym", "PL(t) <= 4*Xmax**2*Emax(t)/n", True,
        "CF-3 upper bound: first-layer part <= (2/n) max_i |x_i|^2 E_i, output-layer part <= "
        "the same by Cauchy-Schwarz and |a_j| >= |w_j| (A1, kept by the conserved "
        "a_j^2 - |w_j|^2 > 0)."),
    Statement(
        "OA-pl-fit", "orthogonal-asym", "PL(t) >= 2*Xmin*MinAbsY*MinFitRatio(t)/n", True,
        "S000-T1's form with CF-3's constant: under A1 |h(x_i)| <= |x_i| E_i, so PL >= "
        "(2/n) min_i |x_i|^2 E_i >= (2/n) min_i |x_i| |h(x_i)| >= (2/n) Xmin MinAbsY "
        "min_i |h_i/y_i| (2 Xmax/Xmin times S000-T1's C/n)."),
    Statement(
        "OA-signs", "orthogonal-asym", "SignFlips(t) <= 0", True,
        "S000-L1: c_j = a_j^2 - |w_j|^2 is conserved and c_j(0) > 0 (I-000-repo: "
        "c_j = 2 E_j |w_j| + E_j^2, E_j ~ Exp(1)), so |a_j(t)| >= sqrt(c_j) > 0 and no a_j "
        "changes sign."),
    Statement(
        "OA-norm-down", "orthogonal-asym", "NormW(t) <= NormW(0)", False,
        "W(0) is scaled by 0.01: while NormW <= NormW(0) <= 0.01, |h(x_i)| <= (1/p) sum_j "
        "|a_j||w_j||x_i| <= 0.02 (max_j |a_j(0)| + 0.01) (a_j^2 - |w_j|^2 conserved), ~0.05 "
        "on a typical draw (|a_j(0)| = |w_j| + Exp(1)), against |y_i| >= 1; yet the flow "
        "fits these Q-good instances (S000-T1; L/L(0) ~ 1e-9 by t ~ 2.5n)."),
    Statement(
        "OA-pl-low-x2", "orthogonal-asym", "PL(t) >= 4*Xmin**2*Emin(t)/n", False,
        "OA-pl-low's constant doubled. The first-layer part of PL is the r^2-weighted mean "
        "of 2|x_i|^2 E_i/n, so the doubled bound needs the output-layer part to make up "
        "the difference, which it does not when the |x_i|^2 E_i are close; replay: "
        "--param n=2 --param p=6 --param d=3 --param seed=0 (PL 4.79 < 7.12 at "
        "t = 5.99, error 1.4e-4)."),
    Statement(
        "OA-pl-low-gd", "orthogonal-asym", "PL(t) >= 2*Xmin**2*Emin(t)/n", True,
        "OA-pl-low holds at every state of the parameters (it uses orthogonality only), so at "
        "every iterate of the descent; the step 1e-3 keeps the step error (charged by the "
        "check) below the slack, which is 8% at its tightest; the horizon 6 = 1.5n stops "
        "before the loss floor.",
        params=(("n", 4), ("p", 8), ("d", 4), ("horizon", 6)), **_gd(lr=1e-3)),
    # -- sphere (S000's weakly interacting data, mean-field, I-000-repo; the flow slides) -----
    Statement(
        "SP-balance", "sphere", "Balance(t) <= 1e-7", True,
        "S000-L1: d/dt(a_j^2 - |w_j|^2) = 0 for any selection of relu'(0) (relu'(z) z = "
        "relu(z)), so also on sliding modes, which hold <w_j, x_i> = 0; magnitudes are O(1), "
        "the flow's tolerance 1e-10."),
    Statement(
        "SP-drift", "sphere", "ParamDrift(t) <= sqrt(kappa*t*L(0))", True,
        "TP-drift; with sliding the flow is a solution of theta' in -kappa dL(theta) (Clarke), "
        "and the chain rule for such arcs of a semialgebraic L still gives "
        "dL/dt = -|theta'|^2/kappa a.e."),
    Statement(
        "SP-resid", "sphere", "R(t) <= sqrt(2*n*L(0))", True,
        "OR-resid: the loss is non-increasing along the (Filippov) flow."),
    Statement(
        "SP-pl-gersh", "sphere", "PL(t) >= 2*(1 - GammaMax)*Xmin**2*Emin(t)/n", True,
        "CF-4 (Gershgorin): |sum_i c_i x_i|^2 >= sum_i c_i^2 |x_i|^2 (1 - gamma_i), applied to "
        "each neuron's Filippov velocity (sliding pairs have coefficients in [0, 1] and are "
        "not counted in E_i); gives PL >= (2/n) min_i (1 - gamma_i)|x_i|^2 E_i when "
        "GammaMax < 1, and the right side is <= 0 <= PL otherwise."),
    Statement(
        "SP-sum-conserved", "sphere", "NormSumDrift(t) <= 1e-7", False,
        "Only the difference a_j^2 - |w_j|^2 is conserved: d/dt(a_j^2 + |w_j|^2) = "
        "4 a_j a_j' = (4/n) a_j sum_i r_i relu(<w_j, x_i>) != 0 at t = 0 (O(1) weights, "
        "no small init), so the sum drifts by O(t) >> 1e-7 at the first saved time."),
    Statement(
        "SP-drift-no-kappa", "sphere", "ParamDrift(t) <= sqrt(t*L(0))", False,
        "SP-drift without the mean-field flow factor kappa = p: for small t ParamDrift = "
        "t |theta'(0)| + O(t^2) = t sqrt(kappa PL(0) L(0)) + O(t^2), above sqrt(t L(0)) "
        "once t > 1/(kappa PL(0)); replay: --param n=2 --param p=2 --param d=2 "
        "--param seed=0 (ParamDrift 0.624 > 0.527 at t = 0.432)."),
    # -- separable (S001: mu-separated unit data, standard, balanced init at eps,
    #    exponential or 2*logistic sum loss) ---------------------------------------------------
    Statement(
        "SE-balance", "separable", "Balance(t) <= 1e-7", True,
        "S001-F1 / CF-2: a_j^2 - |w_j|^2 is conserved by the flow (relu'(z) z = relu(z)) for "
        "any loss; balanced init makes it 0."),
    Statement(
        "SE-growth", "separable", "log(NormW(t)) <= log(NormW(0)) + Xmax*L(0)*t", True,
        "Grönwall with the loss as the bound: |w_j'| <= |a_j| sum_i |l'_i| |x_i|, and "
        "|l'(y, h)| <= l(y, h) for exp(-yh) and 2 log(1 + e^{-yh}) (x/(1+x) <= log(1+x)), so "
        "(ln|w_j|)' <= Xmax L(t) <= Xmax L(0) (|a_j| = |w_j|, L non-increasing). Nearly "
        "tight early on when mu is large (|x_a| ~ n Xmax)."),
    Statement(
        "SE-monotone", "separable", "L(t) <= L(0)", True,
        "Energy identity dL/dt = -|theta'|^2 <= 0 (also on sliding modes, see SP-drift); "
        "during the alignment phase the decrease is O(eps^2) but far above the flow's error "
        "at the first saved time."),
    Statement(
        "SE-fast", "separable", "L(t) <= L(0)*exp(-t)", False,
        "Plateau: by SE-growth |h(x_i)| <= Xmax sum_j |w_j|^2 <= h NormW(0)^2 e^{2 L(0) t}, "
        "with Xmax = 1, NormW(0) = eps Wmax ~ 3 eps and L(0) ~ n <= 8: at most "
        "30 (3e-6)^2 e^{16} ~ 2e-3 at t = 1 for eps = 1e-6, so L(1) >= L(0) e^{-5e-3} > L(0)/e.",
        mode="at_t", at_t=1.0, params=(("eps", 1e-6), ("horizon", 2))),
    Statement(
        "SE-no-crossing", "separable", "MaxCrossings(t) <= 0", False,
        "S001-T1a: by t_1 every V_+ neuron is in S_+ or S_dead (V_-: S_- or S_dead); a neuron "
        "that starts outside these cones (active on both classes, or in the other class's "
        "cone) must change its activation pattern, and Gaussian W(0) has such neurons on "
        "most draws; the search's first instance (n = 2, h = 2, mu = 0.01) already has one."),
    Statement(
        "SE-fast-gd", "separable", "L(t) <= L(0)*exp(-t)", False,
        "SE-fast: 100 descent steps of lr 1e-2 follow the flow's plateau to O(lr); "
        "L(1) = L(0)(1 - O(1e-3)) > L(0)/e.",
        mode="at_t", at_t=1.0,
        params=(("n", 2), ("h", 4), ("d", 2), ("eps", 1e-6), ("horizon", 2)), **_gd()),
    # -- group (S000's group init: x_i = e_i, neuron j active exactly on its group with the
    #    group's label sign, |w_j(0)| = 0.1, balanced, mean-field) --------------------------------
    Statement(
        "GR-decoupled", "group", "CrossGroupJac(t) <= 0", True,
        "S000-F3: w_j' is a combination of the x_i = e_i it is active on, all in its group, "
        "so w_j stays supported on its group (exact zeros elsewhere), and its entries stay "
        "> 0 (r_i has the group's sign while |h_i| < |y_i|): every cross-group derivative "
        "is exactly 0."),
    Statement(
        "GR-pl-low", "group", "PL(t) >= 2*Emin(t)/n", True,
        "OA-pl-low with unit norms. Nearly tight at the end: CF-7's asymptotic rate is "
        "2 min_g Y_g/n = 2 Emin/n for groups of >= 2 samples (margins ~1%)."),
    Statement(
        "GR-capacity", "group", "NormW(t)**2 <= p*Cy_plus*sqrt(n)", True,
        "CF-7: N_j = |w_j|^2 obeys N' = (2/n)(N Y_j c - N^2/p) with c <= 1, so N_j <= "
        "max(N_j(0), p Y_j) = p Y_j (N_j(0) = 0.01), and Y_j = |y_G| <= Cy_plus sqrt(|G|) <= "
        "Cy_plus sqrt(n)."),
    Statement(
        "GR-fast", "group", "L(t) <= L(0)*exp(-t/n)", False,
        "CF-7 plateau: N' <= (2 Y/n) N gives N(1) <= 0.01 e^{2Y/n} <= 0.01 e^{4/sqrt(n)} "
        "< 0.17, so |h_i| <= N/p < 0.17 and r_i >= 0.83 |y_i|: L(1) >= 0.69 L(0) > "
        "L(0) e^{-1/n} for every n >= 2."),
    Statement(
        "GR-pl-up-half", "group", "PL(t) <= 2*Emax(t)/n", False,
        "With one group every E_i equals E = a^2/p, the first-layer part of PL is exactly "
        "2E/n, and the output-layer part kappa (dL/da)^2/L is >= 0, and > 0 whenever "
        "sum_i r_i w_i != 0, e.g. through the first phase, where every r_i has the label "
        "sign and every w_i > 0 (it vanishes only as t -> oo, CF-7's slowest mode).",
        params=(("groups", 1),)),
    Statement(
        "GR-decoupled-gd", "group", "CrossGroupJac(t) <= 0", True,
        "GR-decoupled for the descent's iterates: each step adds to w_j a combination of its "
        "group's e_i (exact zeros stay exact), and an entry w_i <- w_i (1 - lr a^2/(np)) + "
        "lr a y_i/n stays > 0 since lr a^2/(np) <= lr Y/n < 1.",
        params=(("n", 4), ("groups", 2)), **_gd()),
)


# -- running -----------------------------------------------------------------------------------
def judge(truth: bool, answer: str) -> str:
    """correct / WRONG / undecided / error, for a statement of this truth and this answer."""
    if answer == ERROR:
        return "error"
    if answer == "UNDECIDED":
        return "undecided"
    found = answer == "COUNTEREXAMPLE"
    return "correct" if found != truth else "WRONG"


def warm_up(statements) -> None:
    """Import what a search loads on first use (sympy, hypothesis, the packs' quantities and
    families, torch for the descent), so that a statement's seconds are its search's."""
    from verify.conjecture import conjecture  # noqa: F401
    from verify.instances import families
    from verify.language import measures

    for stmt in statements:
        families.get(stmt.family)
    measures.TRAJECTORY_QUANTITIES.get("L")  # the first read merges the packs' quantities
    if any(stmt.method == "gd" for stmt in statements):
        import numerics.descent  # noqa: F401


def run_statement(stmt: Statement, budget: int, seed: int, sizes: str = "default") -> dict:
    """Search ``stmt`` once (in this process) and return its row; ``sizes``: the families'
    drawn ranges (``default``, or ``paper``: up to the papers' sizes)."""
    warm_up([stmt])
    from verify.conjecture import conjecture

    row = {"id": stmt.id, "family": stmt.family, "method": stmt.method, "lr": stmt.lr,
           "statement": stmt.text, "mode": stmt.mode, "at_t": stmt.at_t,
           "params": stmt.params_dict, "truth": stmt.truth, "why": stmt.why,
           "budget": budget, "seed": seed, "sizes": sizes}
    start = time.perf_counter()
    try:
        result = conjecture(stmt.text, stmt.family, params=stmt.params_dict, mode=stmt.mode,
                            at_t=stmt.at_t, budget=budget, seed=seed, method=stmt.method,
                            lr=stmt.lr, plot=None, sizes=sizes)
    except Exception as exc:  # noqa: BLE001 - any failure is reported, never hidden
        row.update(answer=ERROR, decided=0, tried=0, exit_code=None, replay="", reasons={},
                   error=f"{type(exc).__name__}: {exc}", counterexample="", not_decided=[])
    else:
        found = result.counterexample
        row.update(answer=result.verdict, decided=result.decided, tried=len(result.tried),
                   exit_code=result.exit_code, replay=result.replay_command,
                   reasons=result.undecided_reasons(), error="",
                   counterexample=found.describe() if found is not None else "",
                   not_decided=[{"instance": inst.describe(), "outcome": inst.outcome.value,
                                 "t": inst.t, "reason": inst.verdict.reason}
                                for inst in result.tried
                                if inst.outcome.value not in ("HOLDS", "VIOLATED")])
        if result.verdict not in VERDICTS:  # a verdict this benchmark cannot score
            row.update(answer=ERROR, error=f"unknown verdict {result.verdict!r}")
    row["seconds"] = time.perf_counter() - start
    row["judged"] = judge(stmt.truth, row["answer"])
    return row


def _run_in_fresh_process(args: tuple) -> dict:
    worker, *rest = args
    return worker(*rest)


def run_all(statements, budget: int, seed: int, jobs: int, on_row=None,
            worker=run_statement, sizes: str = "default") -> list[dict]:
    """Every statement in its own fresh process, ``jobs`` at a time, so that no statement
    reuses the runs another one simulated (the search memoises its runs per process);
    ``worker(statement, budget, seed)`` makes a statement's row (`run_statement`).

    Where processes fork (Linux), this process imports everything first and each child
    starts from that state, with no run in memory; elsewhere each child imports anew.
    Rows come back in the order of ``statements``.
    """
    statements = list(statements)
    if sys.platform.startswith("linux"):
        warm_up(statements)
        context = multiprocessing.get_context("fork")
    else:
        context = multiprocessing.get_context("spawn")
    rows: list[dict] = []
    with context.Pool(processes=jobs, maxtasksperchild=1) as pool:
        tasks = [(worker, s, budget, seed) + ((sizes,) if sizes != "default" else ())
                 for s in statements]
        for row in pool.imap(_run_in_fresh_process, tasks):
            rows.append(row)
            if on_row is not None:
                on_row(row)
    return rows


# -- reporting -----------------------------------------------------------------------------------
HEADER = (f"{'id':<18} {'family':<16} {'method':<6} {'truth':<5} {'answer':<17} "
          f"{'judged':<9} {'decided':>7} {'s':>6}  statement")


def row_line(row: dict) -> str:
    decided = f"{row['decided']}/{row['tried']}"
    return (f"{row['id']:<18} {row['family']:<16} {row['method']:<6} "
            f"{str(row['truth']).lower():<5} {row['answer']:<17} {row['judged']:<9} "
            f"{decided:>7} {row['seconds']:>6.1f}  {row['statement']}")


def _share(k: int, n: int) -> float:
    return k / n if n else float("nan")


def summarise(rows: list[dict]) -> dict:
    true_rows = [r for r in rows if r["truth"]]
    false_rows = [r for r in rows if not r["truth"]]
    confirmed = sum(r["answer"] == "NO COUNTEREXAMPLE" for r in true_rows)
    caught = sum(r["answer"] == "COUNTEREXAMPLE" for r in false_rows)
    return {
        "statements": len(rows),
        "true": len(true_rows), "true_confirmed": confirmed,
        "true_confirmed_share": _share(confirmed, len(true_rows)),
        "true_undecided": sum(r["answer"] == "UNDECIDED" for r in true_rows),
        "false": len(false_rows), "false_caught": caught,
        "false_caught_share": _share(caught, len(false_rows)),
        "false_undecided": sum(r["answer"] == "UNDECIDED" for r in false_rows),
        "wrong": sum(r["judged"] == "WRONG" for r in rows),
        "wrong_ids": [r["id"] for r in rows if r["judged"] == "WRONG"],
        "errors": sum(r["judged"] == "error" for r in rows),
        "error_ids": [r["id"] for r in rows if r["judged"] == "error"],
        "seconds_total": sum(r["seconds"] for r in rows),
        "seconds_max": max((r["seconds"] for r in rows), default=0.0),
    }


def _percent(share: float) -> str:
    return "-" if share != share else f"{share:.0%}"  # nan: no statement of that truth


def print_summary(s: dict, wall: float) -> None:
    print(f"true statements:  {s['true_confirmed']}/{s['true']} NO COUNTEREXAMPLE "
          f"({_percent(s['true_confirmed_share'])}), {s['true_undecided']} undecided")
    print(f"false statements: {s['false_caught']}/{s['false']} caught (COUNTEREXAMPLE) "
          f"({_percent(s['false_caught_share'])}), {s['false_undecided']} undecided")
    wrong = f" ({', '.join(s['wrong_ids'])})" if s["wrong_ids"] else ""
    print(f"WRONG answers: {s['wrong']}{wrong}")
    if s["errors"]:
        print(f"errors (gfverify raised): {s['errors']} ({', '.join(s['error_ids'])})")
    print(f"seconds: {s['seconds_total']:.0f} in the statements' searches (slowest "
          f"{s['seconds_max']:.0f}), {wall:.0f} wall")


def versions() -> dict:
    """Python and the packages that shape numbers, and gfverify's git commit if any."""
    from numerics.provenance import environment

    out = environment()
    try:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit, dirty = None, ""
    out["gfverify_commit"] = commit
    out["gfverify_tree_modified"] = bool(dirty) if commit else None
    return out


def select(only: str | None) -> tuple[Statement, ...]:
    """The statements whose id, family, method or text contains one of ``only``'s
    comma-separated substrings (case-insensitive); all of them when ``only`` is empty."""
    if not only:
        return STATEMENTS
    keys = [k.strip().lower() for k in only.split(",") if k.strip()]
    return tuple(s for s in STATEMENTS
                 if any(key in field.lower() for key in keys
                        for field in (s.id, s.family, s.method, s.text)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=int, default=None,
                        help=f"instances per statement (default {DEFAULT_BUDGET}, "
                             f"the command line's)")
    parser.add_argument("--quick", action="store_true",
                        help=f"budget {QUICK_BUDGET} (a smoke run)")
    parser.add_argument("--seed", type=int, default=0, help="the search seed (default 0)")
    parser.add_argument("--only", metavar="SUBSTRING",
                        help="only statements whose id, family, method or text contains it "
                             "(a comma list: any of them)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="statements run at once (default: the number of cores)")
    parser.add_argument("--json", metavar="OUT", help="also write rows and summary as JSON")
    parser.add_argument("--sizes", default="default", choices=("default", "paper"),
                        help="the families' drawn ranges: default, or paper (up to the "
                             "papers' sizes: `gfverify conjecture --sizes paper`)")
    args = parser.parse_args(argv)
    if args.budget is not None and args.quick:
        parser.error("--quick sets the budget; give --budget or --quick, not both")
    budget = args.budget if args.budget is not None else (
        QUICK_BUDGET if args.quick else DEFAULT_BUDGET)
    if budget < 1:
        parser.error("--budget must be >= 1")
    if args.jobs < 1:
        parser.error("--jobs must be >= 1")
    statements = select(args.only)
    if not statements:
        parser.error(f"--only {args.only!r} matches no statement")

    print(f"{len(statements)} statements, budget {budget}, seed {args.seed}, "
          f"{args.jobs} at a time, {args.sizes} sizes")
    print(HEADER)
    start = time.perf_counter()
    rows = run_all(statements, budget, args.seed, args.jobs,
                   on_row=lambda r: print(row_line(r), flush=True), sizes=args.sizes)
    wall = time.perf_counter() - start
    summary = summarise(rows)
    print()
    print_summary(summary, wall)
    for r in rows:
        if r["judged"] in ("WRONG", "error"):
            print(f"{r['id']}: {r['judged']}: {r['error'] or r['replay']}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"budget": budget, "seed": args.seed, "jobs": args.jobs,
                       "sizes": args.sizes,
                       "quick": args.quick, "only": args.only, "wall_seconds": wall,
                       "versions": versions(), "summary": summary, "rows": rows},
                      handle, indent=2, default=str)
    if summary["wrong"]:
        return 1
    return 4 if summary["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
