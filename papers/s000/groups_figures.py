"""E-000-5's two figures: the loss of each group against time (closed form and runs),
and the relative widths against n with the fitted 1/log n law.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from papers.s000.groups_model import BETAS, FIGURE_N, GAP_TOL, PAPER_LIMIT, PAPER_RATIO, S_PLOT, P
from verify.results.figures import pyplot, save_png


# -- figures -----------------------------------------------------------------------------------
def _label(ax, xlabel: str, ylabel: str, title: str, legend_loc: str) -> None:
    """The axes' labels, a small title and a small legend, as every panel here has them."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc=legend_loc)


def loss_figure(curves, sims, path: Path) -> Path:
    plt = pyplot()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11.5, 4.3))
    cmap = plt.get_cmap("viridis")
    for k, c in enumerate(curves):
        label = ("n = 100 + floor(e^42) = 1.74e18 (R's figure)" if c["n"] == float(FIGURE_N)
                 else f"n = {c['n']:.0e}")
        ax.plot(c["s"], c["loss_over_p"], color=cmap(k / max(len(curves) - 1, 1)), lw=1.4,
                label=label)
    big = sims[-1]
    keep = big["_curves"]["s"] <= S_PLOT
    ax.plot(big["_curves"]["s"][keep][::8], big["_curves"]["flow"][keep][::8], "o", ms=3,
            mfc="none", color="tab:red", label=f"ExactFlow, n = {big['n']}")
    ax.plot(big["_curves"]["s"][keep], big["_curves"]["closed"][keep], color="tab:red",
            lw=0.8, ls=":")
    s = np.linspace(0, S_PLOT, 801)
    limit = np.where(s < 1 / BETAS[1], sum(b**2 for b in BETAS) / 2,
                     np.where(s < 1 / BETAS[0], BETAS[0] ** 2 / 2, 0.0)) / P
    ax.plot(s, limit, color="grey", ls="--", lw=1.2, label="limit n -> oo")
    ax.set_xlim(0, S_PLOT)
    _label(ax, "t / t_1(1/2)   (t_1: CF-7 half-capacity time of the slow group)", "L / p",
           "E-000-5: p = 2 groups, beta = (1, 2), N_0 = 1 (CF-7)", "upper right")
    for k, r in enumerate(sims):
        color = plt.get_cmap("plasma")(k / max(len(sims) - 1, 1))
        cv = r["_curves"]
        bx.semilogy(cv["s"], np.maximum(cv["gap"], 1e-18), color=color, lw=1.1,
                    label=f"n = {r['n']}: |L_flow - L_cf| / L(0)")
        bx.semilogy(cv["s"], np.maximum(cv["err"], 1e-18), color=color, lw=0.9, ls=":")
    bx.plot([], [], color="grey", ls=":", label="ExactFlow's own loss error (companion)")
    bx.axhline(GAP_TOL, color="tab:red", ls="--", lw=0.9, label=f"stated tolerance {GAP_TOL:g}")
    _label(bx, "t / t_1(1/2)", "relative loss gap",
           "closed form (numerics.ClosedForm) vs simulation (ExactFlow)", "lower right")
    fig.tight_layout()
    return save_png(fig, path)


def width_figure(points, sims, fits, K_limit, path: Path) -> Path:
    plt = pyplot()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11.5, 4.3))
    colors = ("tab:blue", "tab:orange")
    xmax = 1 / math.log(min(min(r["n"] for r in sims), min(p["n"] for p in points)))
    xx = np.linspace(1e-4, xmax * 1.02, 400)
    for g, beta in enumerate(BETAS):
        x = [1 / p["log_n"] for p in points]
        ax.plot(x, [p["groups"][g]["width_measured"] for p in points], "o", ms=4,
                color=colors[g], label=f"closed form, beta = {beta:g}")
        ax.plot([1 / math.log(r["n"]) for r in sims], [r["width_flow"][g] for r in sims], "s",
                ms=6, mfc="none", color=colors[g], label=f"ExactFlow, beta = {beta:g}")
        fit = fits["asymptotic"][g]
        ax.plot(xx, fit["K"] * xx / (1 + fit["c"] * xx), color=colors[g], lw=0.9,
                label=f"fit W = Kx/(1+cx): K = {fit['K']:.3f}, c = {fit['c']:.2f}")
    ax.plot(xx, K_limit * xx, color="grey", ls="--", lw=1,
            label=f"slope 4 ln 9 = {K_limit:.3f} (limit)")
    ax.set_xlim(0, xmax * 1.05)
    ax.set_ylim(0, None)
    _label(ax, "x = 1 / ln n", "W = (t(0.9) - t(0.1)) / t(0.5)",
           "relative transition width against 1/ln n", "upper left")
    ns = [p["n"] for p in points]
    bx.semilogx(ns, [p["ratio_cf7_half_capacity"] for p in points], "o-", ms=3,
                label="CF-7: t_2(1/2) / t_1(1/2)")
    bx.semilogx(ns, [p["ratio_paper_formula"] for p in points], "x--", ms=4,
                label="R's t_g = (np/2||D_g||) ln(p||D_g||)")
    bx.semilogx(ns, [p["ratio_measured_half_drop"] for p in points], ".:", ms=4,
                label="measured: half of each group's loss drop")
    bx.semilogx([r["n"] for r in sims], [r["ratio_flow_capacity"] for r in sims], "s",
                mfc="none", ms=6, color="tab:blue", label="ExactFlow: t_2(1/2) / t_1(1/2)")
    bx.semilogx([r["n"] for r in sims], [r["ratio_flow"] for r in sims], "D", mfc="none",
                ms=5, color="tab:green", label="ExactFlow: half-drops")
    bx.axhline(PAPER_LIMIT, color="grey", ls="--", lw=1, label="limit 1/2")
    bx.plot([float(FIGURE_N)], [PAPER_RATIO], "*", ms=11, color="k",
            label="paper: 0.516 at n = 1.74e18")
    _label(bx, "n", "t_2 / t_1", "normalised drop time of the fast group", "upper right")
    fig.tight_layout()
    return save_png(fig, path)


