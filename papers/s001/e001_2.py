"""E-001-2, S001 App. A.1-A.2: the runs and figures of the alignment experiments on
separable data ((a) the A.1 protocol by the exact flow and by GD at the paper's step, (b)
t_1 over n and mu in the theorem's setting with its fits, (c) the A.2 toys mu = sin 0.1
and sin 0.001). The section's text is `papers.s001.e001_2_text`.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

import theory
from numerics import ExactFlow, Problem, Trajectory, generators, simulate
from numerics.trajectory import CONE_DEAD, CONE_MINUS, CONE_PLUS
from papers.s001 import evidence as ev
from papers.s001.alignment import (
    PAPER_ALPHA,
    PAPER_LR,
    PAPER_WIDTH,
    THEOREM_EPS,
    Settings,
    cos_classes,
    cosine_error,
    first_iteration,
    group_cosines,
    replayed_cones,
    sorting_time_with_error,
    stable_rank_with_error,
    two_direction_stable_rank,
)
from papers.s001.measures import class_sums
from theory.symbols import T_early, t_1
from verify.engine.scaling import FitError, fit_power_law, line_fit, ols
from verify.language.measures import measure
from verify.results.figures import pyplot, save_png


# -- E-001-2 (a): the A.1 protocol on separable data -------------------------------------------
def a1_problem(s: Settings, mu: float, seed: int) -> Problem:
    return generators.separable(n=s.a1_n, d=s.a1_d, p=PAPER_WIDTH, seed=seed, mu=mu,
                                eps=PAPER_ALPHA, init="unbalanced")


def a1_summary(tr: Trajectory, iterations: np.ndarray) -> dict:
    pr = tr.problem
    xp, xm = class_sums(pr)
    t1, t1_err = sorting_time_with_error(tr)
    sr, sr_err = stable_rank_with_error(tr)
    loss = tr.loss
    half = first_iteration(iterations, loss <= 0.5 * loss[0])
    k1 = int(np.searchsorted(tr.t, t1)) if math.isfinite(t1) else len(tr.t) - 1
    k1 = min(k1, len(tr.t) - 1)
    cones = replayed_cones(tr)[k1]
    cp, cm = group_cosines(tr, xp, 1.0), group_cosines(tr, xm, -1.0)
    ep, em = cosine_error(tr, xp, 1.0), cosine_error(tr, xm, -1.0)
    after = tr.t >= (half * PAPER_LR if half is not None else math.inf)
    return {
        "problem": pr.describe(), "mu": float(pr.meta["mu"]), "cos_x_plus_x_minus": cos_classes(pr),
        "method": tr.method, "status": tr.status.name, "state_error": float(tr.error_estimate),
        "t_1": t1, "t_1_error": t1_err, "t_1_iteration": t1 / PAPER_LR,
        "t_1_iteration_error": t1_err / PAPER_LR,
        "at_t_1": {"S_plus": int(np.sum(cones == CONE_PLUS)),
                   "S_minus": int(np.sum(cones == CONE_MINUS)),
                   "S_dead": int(np.sum(cones == CONE_DEAD))},
        "cos_plus_at_t_1": float(cp["mean"][k1]), "cos_minus_at_t_1": float(cm["mean"][k1]),
        "loss_half_iteration": half, "final_loss": float(loss[-1]),
        "final_cos_plus": float(cp["mean"][-1]), "final_cos_plus_error": float(ep[-1]),
        "final_cos_minus": float(cm["mean"][-1]), "final_cos_minus_error": float(em[-1]),
        "final_stable_rank": float(sr[-1]), "final_stable_rank_error": float(sr_err[-1]),
        "max_stable_rank_after_drop": float(sr[after].max()) if after.any() else None,
        "two_direction_stable_rank": two_direction_stable_rank(tr),
        "initial_stable_rank": float(sr[0]),
    }


def a1_figure(tr: Trajectory, iterations: np.ndarray, summary: dict, path: Path) -> Path:
    plt = pyplot()
    xp, xm = class_sums(tr.problem)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for sign, target, other, color, name in ((1.0, xp, xm, "tab:red", "+"),
                                             (-1.0, xm, xp, "tab:green", "-")):
        c = group_cosines(tr, target, sign)
        ax1.plot(iterations, c["mean"], color=color, lw=1.6,
                 label=f"cos($\\bar w_{name}$, $x_{name}$)")
        ax1.fill_between(iterations, c["lo"], c["hi"], color=color, alpha=0.15, lw=0)
        opp = group_cosines(tr, other, sign)["mean"]
        ax1.plot(iterations, opp, color=color, lw=1.0, ls="--",
                 label=f"cos($\\bar w_{name}$, $x_{'-' if name == '+' else '+'}$)")
    for ax in (ax1, ax2):
        if math.isfinite(summary["t_1"]):
            ax.axvline(summary["t_1_iteration"], color="k", ls=":", lw=1)
    ax1.set_xscale("symlog", linthresh=100)
    ax1.set_xlim(0, iterations[-1])
    ax1.set_xlabel("iteration (flow time / 2e-3)")
    ax1.set_ylabel("cosine")
    ax1.set_ylim(-1.05, 1.05)
    ax1.set_title("alignment (band: min-max over live neurons of the group)", fontsize=9)
    ax1.legend(fontsize=8, loc="lower right")
    sr, _ = stable_rank_with_error(tr)
    ax2.semilogy(iterations, tr.loss, color="tab:blue", label="loss L")
    ax2.semilogy(iterations, np.linalg.norm(tr.W, 2, axis=(-2, -1)) ** 2, color="tab:purple",
                 label="$\\|W\\|_2^2$")
    ax2.semilogy(iterations, sr, color="tab:orange", label="stable rank")
    ax2.axhline(2.0, color="tab:orange", ls="--", lw=0.8)
    ax2.set_xlabel("iteration (flow time / 2e-3)")
    ax2.set_title("loss, spectral norm and stable rank (dotted: t_1)", fontsize=9)
    ax2.legend(fontsize=8)
    fig.suptitle(f"E-001-2 (A.1 protocol): separable data n = {tr.problem.n}, "
                 f"d = {tr.problem.d}, mu = {summary['mu']:.2f}, h = 50, alpha = 1e-6, exact flow",
                 fontsize=10)
    fig.tight_layout()
    return save_png(fig, path)


# -- E-001-2 (b): t_1 over n and mu (theorem setting) ------------------------------------------
def _grid_horizon(n: int, mu: float) -> float:
    # measured t_1 ~ 2/(n sqrt(mu)) on these data; ten times that, at least 2
    return max(2.0, 20.0 / (n * math.sqrt(mu)))


def grid_run(s: Settings, n: int, mu: float, seed: int) -> dict:
    pr = generators.separable(n=n, d=s.grid_d, p=s.grid_width, seed=seed, mu=mu,
                              eps=THEOREM_EPS)
    horizon = _grid_horizon(n, mu)
    tr = simulate(pr, ExactFlow(rtol=1e-10, coordinates="lognorm"),
                  np.linspace(0.0, horizon, s.grid_points))
    t1, err = sorting_time_with_error(tr)
    lost = measure(tr, "LostNeurons").values
    law = math.log(n) / math.sqrt(mu)
    bound = ev.constant(theory.get("S001-T1a"), t_1, pr)
    window = ev.constant(theory.get("S001-L3"), T_early, pr)
    return {"n": n, "mu": float(pr.meta["mu"]), "mu_requested": mu, "seed": seed,
            "hash": pr.content_hash, "status": tr.status.name, "horizon": horizon,
            "t_1": t1, "t_1_error": err, "state_error": float(tr.error_estimate),
            "lost_neurons": int(lost[-1]), "log_n_over_sqrt_mu": law,
            "ratio": t1 / law if math.isfinite(t1) else None,
            "t_1_bound": bound, "ratio_to_bound": t1 / bound if math.isfinite(t1) else None,
            "T_window": window}


def grid_fits(rows: list[dict]) -> dict:
    ok = [r for r in rows if r["t_1"] is not None and math.isfinite(r["t_1"])]
    x = np.array([r["log_n_over_sqrt_mu"] for r in ok])
    y = np.array([r["t_1"] for r in ok])
    out: dict = {"runs": len(rows), "sorted_runs": len(ok)}
    if len(ok) < 4:
        return out
    slope, intercept, r2 = line_fit(x, y)
    out["linear"] = {"slope": slope.value, "slope_lo": slope.lo, "slope_hi": slope.hi,
                     "intercept": intercept.value, "intercept_lo": intercept.lo,
                     "intercept_hi": intercept.hi, "r2": r2}
    logs = np.column_stack([np.log([r["n"] for r in ok]), np.log([r["mu"] for r in ok]),
                            np.ones(len(ok))])
    a_n, a_mu, c = ols(logs, np.log(y))
    out["loglog"] = {"exp_n": a_n.value, "exp_n_lo": a_n.lo, "exp_n_hi": a_n.hi,
                     "exp_mu": a_mu.value, "exp_mu_lo": a_mu.lo, "exp_mu_hi": a_mu.hi,
                     "prefactor": math.exp(c.value)}
    ratios = y / x
    out["ratio"] = {"min": float(ratios.min()), "median": float(np.median(ratios)),
                    "max": float(ratios.max())}
    per_n = {}
    for n in sorted({r["n"] for r in ok}):
        sel = [r for r in ok if r["n"] == n]
        entry = {"median_ratio": float(np.median([r["ratio"] for r in sel])),
                 "median_t_1": {f"{m:g}": float(np.median([r["t_1"] for r in sel
                                                           if r["mu_requested"] == m]))
                                for m in sorted({r["mu_requested"] for r in sel})}}
        try:
            # grouped by the requested mu (the data's mu equals it up to rounding), so the
            # interval is the bootstrap over seeds
            fit = fit_power_law([r["mu_requested"] for r in sel], [r["t_1"] for r in sel])
            entry.update(exp_mu=fit.exponent, exp_mu_lo=fit.lo, exp_mu_hi=fit.hi,
                         exp_mu_method=fit.method)
        except FitError as exc:
            entry["exp_mu_note"] = str(exc)
        per_n[str(n)] = entry
    out["per_n"] = per_n
    # O(log n / sqrt(mu)) is refuted only if t_1 grows significantly faster than the law
    # along an axis: in n faster than log n (local exponent 1/ln n at the grid's geometric
    # mean), or as mu falls faster than mu^(-1/2)
    n_mid = math.exp(float(np.mean(np.log(sorted({r["n"] for r in ok})))))
    out["law_exp_n"] = 1.0 / math.log(n_mid)
    out["consistent"] = bool(a_n.lo <= out["law_exp_n"] and a_mu.hi >= -0.5)
    out["max_ratio_to_bound"] = float(max(r["ratio_to_bound"] for r in ok))
    out["t_1_before_T"] = int(sum(r["t_1"] <= r["T_window"] for r in ok))
    out["max_t_1_error"] = float(max(r["t_1_error"] for r in ok))
    out["max_state_error"] = float(max(r["state_error"] for r in rows))
    out["lost_neurons"] = int(sum(r["lost_neurons"] for r in rows))
    return out


def grid_figure(rows: list[dict], fits: dict, path: Path) -> Path:
    plt = pyplot()
    ok = [r for r in rows if math.isfinite(r["t_1"])]
    ns = sorted({r["n"] for r in ok})
    mus = sorted({r["mu_requested"] for r in ok})
    cmap = plt.get_cmap("viridis")
    markers = "osD^vP*X"
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for i, n in enumerate(ns):
        for k, m in enumerate(mus):
            sel = [r for r in ok if r["n"] == n and r["mu_requested"] == m]
            ax1.scatter([r["log_n_over_sqrt_mu"] for r in sel], [r["t_1"] for r in sel],
                        color=cmap(i / max(len(ns) - 1, 1)), marker=markers[k % len(markers)],
                        s=18, label=f"n = {n}" if k == 0 else None)
    if "linear" in fits:
        lin = fits["linear"]
        xs = np.linspace(0, max(r["log_n_over_sqrt_mu"] for r in ok) * 1.05, 50)
        ax1.plot(xs, lin["intercept"] + lin["slope"] * xs, color="k", lw=1,
                 label=f"OLS: slope {lin['slope']:.3f} [{lin['slope_lo']:.3f}, "
                       f"{lin['slope_hi']:.3f}]")
    ax1.set_xlabel("log(n) / sqrt(mu)")
    ax1.set_ylabel("t_1 (flow time)")
    ax1.set_title("t_1 against Theorem 1's log(n)/sqrt(mu) (markers: mu)", fontsize=9)
    ax1.legend(fontsize=7)
    for i, n in enumerate(ns):
        med = [np.median([r["t_1"] for r in ok if r["n"] == n and r["mu_requested"] == m])
               for m in mus]
        ax2.loglog(mus, med, "o-", color=cmap(i / max(len(ns) - 1, 1)), label=f"n = {n}")
    ref = np.array([min(mus), max(mus)])
    top = max(np.median([r["t_1"] for r in ok if r["mu_requested"] == min(mus)]), 1e-12)
    ax2.loglog(ref, top * (ref / ref[0]) ** -0.5, "k--", lw=1, label="slope -1/2 (1/sqrt(mu))")
    ax2.minorticks_off()
    ax2.set_xticks(mus, [f"{m:g}" for m in mus])
    ax2.set_xlabel("mu")
    ax2.set_ylabel("median t_1 over seeds")
    ax2.set_title("mu-dependence at fixed n", fontsize=9)
    ax2.legend(fontsize=7)
    fig.suptitle("E-001-2: time t_1 until every neuron is in S_+, S_- or S_dead (exact flow, "
                 "balanced init, eps = 1e-100)", fontsize=10)
    fig.tight_layout()
    return save_png(fig, path)


# -- E-001-2 (c): A.2, mu = sin 0.1 against sin 0.001 ------------------------------------------
def toy_run(s: Settings, angle: float, seed: int) -> tuple[Trajectory, dict]:
    pr = generators.two_point_separable(angle, p=PAPER_WIDTH, seed=seed, eps=PAPER_ALPHA,
                                        init="unbalanced")
    iterations = np.arange(0, s.toy_iterations + 1, s.toy_stride)
    tr = simulate(pr, ExactFlow(rtol=1e-9), iterations * PAPER_LR)

    def outside(q: Trajectory) -> np.ndarray:
        """live V_+(t) neurons outside S_+ (both samples are positive: S_- is S_dead)."""
        cones = replayed_cones(q)
        return np.sum((np.sign(q.a) > 0) & (cones != CONE_PLUS) & (cones != CONE_DEAD),
                      axis=-1)

    counts = outside(tr)
    comp = outside(tr.companion) if tr.companion is not None else None
    marks = {}
    for key, it in (("mid", 7000), ("end", s.toy_iterations)):
        k = min(int(np.searchsorted(iterations, it)), len(iterations) - 1)
        marks[key] = {"iteration": int(iterations[k]), "outside": int(counts[k]),
                      "companion_outside": None if comp is None else int(comp[k])}
    t1, t1_err = sorting_time_with_error(tr)
    return tr, {"angle": angle, "mu": float(pr.meta["mu"]), "seed": seed,
                "hash": pr.content_hash, "status": tr.status.name,
                "state_error": float(tr.error_estimate), "outside": marks,
                "sorted_iteration": t1 / PAPER_LR if math.isfinite(t1) else None,
                "sorted_iteration_error": t1_err / PAPER_LR,
                "in_S_plus_end": int(np.sum(replayed_cones(tr)[-1] == CONE_PLUS)),
                "final_loss": float(tr.loss[-1])}


def _angles(tr: Trajectory) -> np.ndarray:
    return np.arctan2(tr.W[..., 1], tr.W[..., 0])


def toy_figure(examples: list[tuple[Trajectory, dict]], s: Settings, path: Path) -> Path:
    plt = pyplot()
    fig, axes = plt.subplots(1, len(examples), figsize=(5.5 * len(examples), 4.2), squeeze=False)
    for ax, (tr, info) in zip(axes[0], examples, strict=True):
        iterations = tr.t / PAPER_LR
        ang = _angles(tr)
        end = replayed_cones(tr)[-1]
        keep = (np.sign(tr.a[-1]) > 0) & (end != CONE_DEAD)
        for j in np.flatnonzero(keep):
            stuck = end[j] != CONE_PLUS
            ax.plot(iterations[1:], ang[1:, j], lw=1.6 if stuck else 0.7,
                    color="tab:red" if stuck else "tab:grey")
        a = info["angle"]
        ax.axhspan(-a, np.pi / 2, color="tab:blue", alpha=0.08, label="S_+")
        xp = np.arctan2(math.cos(a), 1 + math.sin(a))
        for val, name, st in ((0.0, "x_1", ":"), (np.pi / 2 - a, "x_2", "-."),
                              (xp, "x_+", "--")):
            ax.axhline(val, color="k", ls=st, lw=0.8, label=name)
        for it in (7000, s.toy_iterations):
            ax.axvline(it, color="tab:orange", lw=0.8)
        ax.set_xscale("log")
        ax.set_ylim(-np.pi / 2, np.pi)
        ax.set_xlabel("iteration (flow time / 2e-3)")
        ax.set_ylabel("neuron angle (rad)")
        ax.set_title(f"mu = sin({a:g}), seed {info['seed']}: live V_+ neurons "
                     f"(red: outside S_+ at the end)", fontsize=8)
        ax.legend(fontsize=7, loc="lower left")
    fig.suptitle("E-001-2 (A.2): two positive points x_1 = (1, 0), x_2 = (sin a, cos a); "
                 "h = 50, alpha = 1e-6, exact flow", fontsize=10)
    fig.tight_layout()
    return save_png(fig, path)


