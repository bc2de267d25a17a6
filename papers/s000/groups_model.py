"""E-000-5's setting (two groups, beta = (1, 2)), its sizes per profile, and the closed
form CF-7 of `theory.closed_forms` lambdified: transition times, widths and loss curves
at any n (it depends on n only through numbers). Used by `papers.s000.repro_groups`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import mpmath as mpm
import numpy as np
import sympy as sp
from scipy.optimize import brentq

from theory import closed_forms as cf
from theory.symbols import kappa as KAPPA
from theory.symbols import n as N_SYM
from theory.symbols import p as P_SYM
from theory.symbols import t as T_SYM

EXPERIMENT = "E-000-5"
BETAS = (1.0, 2.0)  # group 0 is the slow one (beta = 1), group 1 the fast one
P = 2
N0 = 1.0
EPS = 0.1  # width levels eps and 1 - eps
LOSS_DROP = (0.1, 0.5, 0.9)  # fractions of a group's loss drop
with mpm.workdps(40):
    FIGURE_N = 100 + int(mpm.floor(mpm.e ** 42))  # R's n, "dimension 1.7 x 10^18"
PAPER_RATIO = 0.516  # THEORY E-000-5: t_2/t_1 at the figure's n; 1/2 in the limit
PAPER_LIMIT = 0.5
S_MAX_SIM = 3.0  # simulated horizon in units of t_1(1/2)
S_PLOT = 1.6  # x range of the loss figure
CURVE_POINTS = 2001
# Closed form against simulation: the stated tolerance on every relative gap (state,
# loss / L(0), widths, half-times), far above both runs' error estimates (~1e-9).
GAP_TOL = 1e-6
# The width fit (1/W affine in ln n) is decided on the closed form at n >= this.
ASYMPTOTIC_N = 1e12
# S000-T2 through verify.check on the closed form from these n up to the largest
VERDICT_RANGES = (1e12, 1e24, 1e40)


@dataclass(frozen=True)
class Settings:
    sim_ns: tuple[int, ...]  # simulated n (ExactFlow and ClosedForm)
    sim_points: int  # saved times per simulated run
    companion_points: int  # saved times of ClosedForm's mpmath companion (its error estimate)
    cf_exponents: tuple[float, ...]  # closed-form n = 10^k (plus FIGURE_N)
    curve_ns: tuple  # n of the rescaled-loss figure


PROFILES = {
    "quick": Settings(sim_ns=(32, 64, 128, 256), sim_points=801, companion_points=41,
                      cf_exponents=(2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 100),
                      curve_ns=(1e2, 1e4, 1e8, FIGURE_N, 1e60)),
    "full": Settings(sim_ns=(32, 64, 128, 256, 512, 1024), sim_points=2001,
                     companion_points=101,
                     cf_exponents=(2, 2.5, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 24, 32, 40, 48,
                                   64, 80, 100),
                     curve_ns=(1e2, 1e4, 1e8, FIGURE_N, 1e60)),
    # the paper's own setting is analytic (n = 1.7e18); the simulated n go 10x further
    "paper": Settings(sim_ns=(32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 10240),
                      sim_points=2001, companion_points=101,
                      cf_exponents=(2, 2.5, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 24, 32, 40, 48,
                                    64, 80, 100),
                      curve_ns=(1e2, 1e4, 1e8, FIGURE_N, 1e60)),
}


# -- CF-7 from theory/closed_forms.py, lambdified ---------------------------------------------
@dataclass(frozen=True)
class _CF7:
    norm: object  # N(t; N_0, Y, n, p, kappa), aligned (numpy)
    loss: object  # L_G(N; Y, n, p) with c = 1 (numpy)
    norm_mp: object  # the same two in mpmath (no overflow at any n)
    loss_mp: object
    time: object  # t(q; N_0, Y, n, p, kappa) (mpmath)
    width: object  # (t(1 - eps) - t(eps)) / t(1/2) (eps; N_0, Y, p) (mpmath)
    ratio_limit: sp.Expr  # lim t_2(1/2)/t_1(1/2) as n -> oo, beta = (1, 2)
    paper_ratio_limit: sp.Expr  # the same limit of R's formula
    paper_time: object  # R's t_g (n, beta) (mpmath)
    width_log_limit: sp.Expr  # lim W ln n as n -> oo (any beta)


@cache
def cf7() -> _CF7:
    norm_sq = sp.Symbol("N", positive=True)
    eps = sp.Symbol("eps", positive=True)
    args = (cf.N_0, cf.Y, N_SYM, P_SYM, KAPPA)
    norm_expr = cf.group_norm_aligned(T_SYM, *args)
    loss_expr = cf.group_loss(norm_sq, 1, cf.Y, N_SYM, P_SYM)
    norm = sp.lambdify((T_SYM, *args), norm_expr, "numpy")
    loss = sp.lambdify((norm_sq, cf.Y, N_SYM, P_SYM), loss_expr, "numpy")
    norm_mp = sp.lambdify((T_SYM, *args), norm_expr, "mpmath")
    loss_mp = sp.lambdify((norm_sq, cf.Y, N_SYM, P_SYM), loss_expr, "mpmath")
    tq = sp.lambdify((cf.q, *args), cf.group_transition_time(cf.q, *args), "mpmath")
    width = sp.lambdify((eps, cf.N_0, cf.Y, P_SYM),
                        cf.group_relative_width(eps, cf.N_0, cf.Y, P_SYM), "mpmath")
    half = sp.Rational(1, 2)

    def t_half(beta):
        return cf.group_transition_time(half, 1, beta * sp.sqrt(N_SYM), N_SYM, P, 1)

    ratio_limit = sp.limit(t_half(2) / t_half(1), N_SYM, sp.oo)
    beta_sym = sp.Symbol("beta", positive=True)
    paper = sp.lambdify((N_SYM, beta_sym), paper_time_expr(beta_sym), "mpmath")
    paper_ratio_limit = sp.limit(paper_time_expr(2) / paper_time_expr(1), N_SYM, sp.oo)
    w = cf.group_relative_width(sp.Rational(1, 10), 1, sp.sqrt(N_SYM), P)
    width_log_limit = sp.limit(w * sp.log(N_SYM), N_SYM, sp.oo)
    return _CF7(norm, loss, norm_mp, loss_mp, tq, width, ratio_limit, paper_ratio_limit, paper,
                width_log_limit)


def paper_time_expr(beta) -> sp.Expr:
    """R's transition time t_g = (n p/(2 ||D_g||)) ln(p ||D_g||), ||D_g|| = beta sqrt(n)
    (THEORY E-000-5; kappa = 1): the formula behind the published figure's 0.516. It is
    not CF-7's t(1/2) (that has ln((pY - N_0)/N_0)); it is the statement reproduced."""
    D = beta * sp.sqrt(N_SYM)
    return N_SYM * P / (2 * D) * sp.log(P * D)


def paper_time(n_value, beta: float) -> mpm.mpf:
    return cf7().paper_time(n_value, beta)


def num(x) -> float | None:
    v = float(x)
    return v if math.isfinite(v) else None


# -- the closed form at any n --------------------------------------------------------------------
def closed_form_point(n_value, kappa: float = 1.0) -> dict:
    """E-000-5's two groups at n = ``n_value`` from CF-7: formula times and widths (mpmath, the
    exact n), and the same quantities measured on the evaluated curves (root finding on N_g(t)
    and L_g(t), float64): W_g, W^L_g, T_g(1/2), the ratios and the total-loss crossings."""
    f = cf7()
    with mpm.workdps(30):
        nm = mpm.mpf(n_value)
        Ys = [b * mpm.sqrt(nm) for b in BETAS]
        t_half = [f.time(0.5, N0, Y, nm, P, kappa) for Y in Ys]
        widths = [f.width(EPS, N0, Y, P) for Y in Ys]
        paper = [f.paper_time(nm, b) for b in BETAS]
        log_n = mpm.log(nm)
    nf = float(n_value)
    groups = []

    def find(fun, hi):  # the root of a monotone function of t on [0, hi], at 30 digits
        with mpm.workdps(30):
            return brentq(lambda t: float(fun(mpm.mpf(t))), 0.0, hi, xtol=1e-15 * hi,
                          rtol=1e-14)

    for g, beta in enumerate(BETAS):
        Y, C = Ys[g], P * Ys[g]

        def N(t, Y=Y):
            return f.norm_mp(t, N0, Y, nm, P, kappa)

        def Lg(t, Y=Y):
            return f.loss_mp(N(t, Y), Y, nm, P)

        hi = 3.0 * float(t_half[g])
        with mpm.workdps(30):
            L0 = Lg(mpm.mpf(0))
        tN = {q: find(lambda t, q=q, C=C: N(t) - q * C, hi) for q in (EPS, 0.5, 1 - EPS)}
        tL = {fr: find(lambda t, fr=fr, L0=L0: Lg(t) - (1 - fr) * L0, hi) for fr in LOSS_DROP}
        groups.append({
            "beta": beta, "Y": float(Y), "capacity": float(C),
            "t_half_formula": float(t_half[g]),
            "width_formula": float(widths[g]), "width_log_n": float(widths[g] * log_n),
            "t_capacity": {str(q): v for q, v in tN.items()},
            "width_measured": (tN[1 - EPS] - tN[EPS]) / tN[0.5],
            "loss_times": {str(fr): v for fr, v in tL.items()},
            "loss_width": (tL[0.9] - tL[0.1]) / tL[0.5],
            "window": tN[1 - EPS] - tN[EPS],
            "window_over_sqrt_n": (tN[1 - EPS] - tN[EPS]) / math.sqrt(nf),
            "paper_time": float(paper[g]),
            "_L": Lg,
        })
    slow, fast = groups

    # the total loss read as the figure's reader would: the crossings of the mid-levels
    # (L(0) + plateau)/2 and plateau/2, the plateau being the slow group's initial loss
    def total(t):
        return slow["_L"](t) + fast["_L"](t)

    with mpm.workdps(30):
        L_total0 = total(mpm.mpf(0))
        plateau = slow["_L"](mpm.mpf(0))
        levels = ((L_total0 + plateau) / 2, plateau / 2)
    hi = 3.0 * slow["t_half_formula"]
    mid = [find(lambda t, lv=lv: total(t) - lv, hi) for lv in levels]
    for G in groups:
        del G["_L"]
    L_total0, plateau = float(L_total0), float(plateau)
    return {
        "n": float(n_value), "n_exact": str(n_value) if isinstance(n_value, int) else None,
        "log_n": float(log_n), "kappa": kappa, "groups": groups,
        "ratio_paper_formula": float(paper[1] / paper[0]),
        "ratio_cf7_half_capacity": float(t_half[1] / t_half[0]),
        "ratio_measured_half_drop": fast["loss_times"]["0.5"] / slow["loss_times"]["0.5"],
        "ratio_measured_total_loss": mid[0] / mid[1],
        "total_loss_crossings": mid,
        "width_formula_vs_measured": max(abs(G["width_formula"] - G["width_measured"])
                                         for G in groups),
        "L0_over_p": L_total0 / P, "plateau_over_p": plateau / P,
    }


def closed_form_curve(n_value, s: np.ndarray, kappa: float = 1.0) -> dict:
    """L/p (R's plotted loss) on s = t / t_slow(1/2), from CF-7."""
    f = cf7()
    nf = float(n_value)
    with mpm.workdps(30):
        t1 = float(f.time(0.5, N0, BETAS[0] * mpm.sqrt(mpm.mpf(n_value)), mpm.mpf(n_value), P,
                          kappa))
    t = s * t1
    total = np.zeros_like(t)
    for beta in BETAS:
        Y = beta * math.sqrt(nf)
        total += f.loss(f.norm(t, N0, Y, nf, P, kappa), Y, nf, P)
    return {"n": nf, "s": s, "loss_over_p": total / P, "t1": t1}


