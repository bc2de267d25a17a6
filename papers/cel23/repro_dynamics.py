"""E-CEL23-3 (loss curves against lam, CEL23 section 8 Fig. 2) and E-CEL23-4 (one run
illustrated, App. E-F, Figs 3-6), by gradient descent at the paper's step 0.01 (float64).

E-CEL23-3: centred data, d = 16, m = 200 (the paper's Fig. 2), lam = 4^-2 ... 4^-8, one
data seed (the same data and initial directions at every lam). The paper reports only
shapes: a plateau, then exponential decay; the test loss on 64 N(0, I_16) inputs is
lower for smaller lam. What theory predicts (catalogue E-CEL23-3, from Theorem 6): the
plateau lasts about T2/0.01 iterations, which grows like ln(1/lam) (the balanced neurons
grow like lam e^(|gamma_[n]| t), so the network reaches O(1) near t = ln(1/lam)/|gamma_[n]|:
slope 1/|gamma_[n]| in flow time), and the late-time rate does not depend on lam. Measured:
the plateau exit (first iteration with L < L(0)/2) against ln(1/lam), its least-squares
line and R^2; the late-time rate -d ln L/dt over the iterations where L/L(0) is between
1e-3 and 1e-6, per lam, against 2 eta_d (the slowest direction of the linearised bundle
dynamics, catalogue section 4.6); the final test loss per lam.

E-CEL23-4: uncentred data, d = n = 16, m = 25, lam = 4^-7 (the paper's App. E-F run), one
data seed. Measured along the run: the teacher coordinates r_k = nu_k/nu_k* of the bundle
vector v = sum_{J_+} a_j w_j, the iteration at which each first exceeds 1 (CEL23-F28a says
in the order k = 1, 2, ..., an initial segment at every time: `measures.overshoot_order`),
|v|, |v - v*|, angle(v, gamma_[n]) and angle(v, v*), the loss, and the maximum angle
between active neurons (levelling off at a positive value at fixed lam, CEL23-F35a), the
nuclear norm of W and |theta|^2 (tending to 1 and 2).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from numerics import GradientDescent, simulate, simulate_batch
from papers.cel23 import data, yardstick
from papers.cel23.measures import overshoot_order
from papers.cel23.repro_rank import rank_proxies
from papers.cel23.theorem8 import network
from verify.report.doc import Block, Figure, Heading, Paragraph, Table
from verify.report.reproduction import Reproduction
from verify.results.figures import pyplot, save_png
from verify.running.profiles import per_profile
from verify.running.progress import Progress

LR = 0.01
FIG_LOSS = "ecel23_3_loss.png"
FIG_RUN = "ecel23_4_run.png"
LOSS_KS = (-2, -3, -4, -5, -6, -7, -8)  # lam = 4^k of Fig. 2
RATE_WINDOW = (1e-3, 1e-6)  # L/L(0) range of the late-time rate
TEST_POINTS = 64
# flow time (iterations x 0.01); the paper's runs go to 2e5 (2e7 iterations) or L < 1e-9
HORIZON = {"quick": 1000.0, "full": 5000.0, "paper": 2e5}


def _times(horizon: float, points: int = 400) -> np.ndarray:
    """Saved times: whole steps, geometric from one step to ``horizon`` (log-x plots)."""
    steps = np.unique(np.rint(np.geomspace(1.0, horizon / LR, points)))
    return np.concatenate([[0.0], steps * LR])


def _test_inputs(d: int) -> np.ndarray:
    return np.random.default_rng(20230606).standard_normal((TEST_POINTS, d))


def plateau_exit(steps: np.ndarray, loss: np.ndarray) -> int | None:
    """The first saved iteration with L < L(0)/2 (None if the run never gets there)."""
    below = np.flatnonzero(loss < loss[0] / 2.0)
    return int(steps[below[0]]) if below.size else None


def late_rate(t: np.ndarray, loss: np.ndarray) -> float | None:
    """-d ln L/dt by least squares over the saved times after the plateau where L/L(0) is
    in RATE_WINDOW (None with fewer than 3 such times)."""
    ratio = loss / loss[0]
    hi, lo = RATE_WINDOW
    k0 = np.flatnonzero(ratio < 0.5)
    if not k0.size:
        return None
    idx = np.arange(k0[0], len(t))
    idx = idx[(ratio[idx] <= hi) & (ratio[idx] >= lo)]
    if idx.size < 3:
        return None
    return float(-np.polyfit(t[idx], np.log(loss[idx]), 1)[0])


def loss_curves(horizon: float, seed: int = 0) -> dict:
    problems = [data.correlated(d=16, m=200, lam=4.0**k, scheme="centred", rejection="pi/2",
                                seed=seed) for k in LOSS_KS]
    t = _times(horizon)
    trs = simulate_batch(problems, GradientDescent(lr=LR, error_check=None), t)
    X, vstar = problems[0].X, data.teacher(problems[0])
    eta = yardstick.eigen(X, vstar)[0]
    gamma = float(np.linalg.norm(yardstick.gamma(X, problems[0].y, np.arange(len(X)))))
    Xt = _test_inputs(X.shape[1])
    yt = data.teacher_labels(Xt, vstar)
    steps = np.rint(t / LR).astype(int)
    rows = []
    for k, tr in zip(LOSS_KS, trs, strict=True):
        loss = np.asarray(tr.loss)
        test = 0.5 * np.mean((network(tr.W[-1], tr.a[-1], Xt) - yt) ** 2)
        rows.append({"k": k, "lam": 4.0**k, "exit": plateau_exit(steps, loss),
                     "rate": late_rate(t, loss), "final_loss": float(loss[-1]),
                     "test_loss": float(test), "loss": loss})
    fit_rows = [r for r in rows if r["exit"] is not None]
    x = np.array([math.log(1.0 / r["lam"]) for r in fit_rows])
    y = np.array([r["exit"] for r in fit_rows], dtype=float)
    slope, intercept = np.polyfit(x, y, 1) if len(x) >= 2 else (math.nan, math.nan)
    resid = y - (slope * x + intercept)
    r2 = (1.0 - float(resid @ resid) / float(((y - y.mean()) ** 2).sum())
          if len(x) > 2 else math.nan)
    return {"rows": rows, "steps": steps, "slope": float(slope), "intercept": float(intercept),
            "r2": r2, "predicted_slope": 1.0 / (gamma * LR), "gamma_n": gamma,
            "eta_d": float(eta[-1]), "problem": problems[0].describe(), "horizon": horizon}


def single_run(horizon: float, seed: int = 0) -> dict:
    problem = data.correlated(d=16, m=25, lam=4.0**-7, scheme="uncentred", rejection="pi/2",
                              seed=seed)
    t = _times(horizon)
    tr = simulate(problem, GradientDescent(lr=LR, error_check=None), t)
    X, vstar = problem.X, data.teacher(problem)
    eta, U, nu_star = yardstick.eigen(X, vstar)
    Z, s = data.unscaled_init(problem)
    J = yardstick.sets(X, Z, s)[0]
    gamma = yardstick.gamma(X, problem.y, np.arange(len(X)))
    v = np.einsum("tj,tjd->td", tr.a[:, J], tr.W[:, J])
    r = (v @ U) / nu_star
    norm_v = np.linalg.norm(v, axis=1)

    def angle(u: np.ndarray, w: np.ndarray) -> np.ndarray:
        c = (u @ w) / (np.linalg.norm(u, axis=1) * np.linalg.norm(w))
        return np.degrees(np.arccos(np.clip(c, -1.0, 1.0)))

    steps = np.rint(t / LR).astype(int)
    first_over = []
    for k in range(r.shape[1]):
        over = np.flatnonzero(r[:, k] > 1.0)
        first_over.append(int(steps[over[0]]) if over.size else None)
    crossed = [k for k in range(r.shape[1]) if first_over[k] is not None]
    in_order = all(first_over[a] <= first_over[b] for a, b in zip(crossed, crossed[1:],
                                                                   strict=False))
    order = overshoot_order(r)
    proxies = [rank_proxies(X, W) for W in tr.W]
    theta_sq = np.sum(tr.W**2, axis=(1, 2)) + np.sum(tr.a**2, axis=1)
    ang_gamma = angle(v, gamma)
    k_min = int(np.argmin(np.where(norm_v > 0, ang_gamma, np.inf)))
    return {"problem": problem.describe(), "steps": steps, "loss": np.asarray(tr.loss),
            "r": r, "first_over": first_over, "in_order": in_order,
            "initial_segment_always": bool(np.all(order[1:] >= 0)),
            "norm_v": norm_v, "gap": np.linalg.norm(v - vstar, axis=1),
            "angle_gamma": ang_gamma, "angle_vstar": angle(v, vstar),
            "angle_gamma_min_step": int(steps[k_min]),
            "max_angle": np.array([p["max_angle"] for p in proxies]),
            "nuclear": np.array([p["nuclear"] for p in proxies]), "theta_sq": theta_sq,
            "J_plus": int(J.size), "horizon": horizon}


def _loss_figure(curves: dict, path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.0, 4.0))
    steps = np.maximum(curves["steps"], 1)
    for row in curves["rows"]:
        ax.loglog(steps, row["loss"], lw=1.2, label=f"lam = 4^{row['k']}")
    ax.set_xlabel("GD iteration (step 0.01)")
    ax.set_ylabel("training loss")
    ax.set_title("E-CEL23-3: centred, d = 16, m = 200", fontsize=10)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    save_png(fig, path)


def _run_figure(one: dict, path: Path) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(9.0, 6.4))
    steps = np.maximum(one["steps"], 1)
    ax = axes[0, 0]
    dim = one["r"].shape[1]
    cmap = plt.get_cmap("viridis")
    for k in range(dim):
        ax.semilogx(steps, one["r"][:, k], color=cmap(k / max(dim - 1, 1)), lw=0.9)
    ax.axhline(1.0, color="grey", ls=":", lw=0.8)
    ax.set_ylim(-0.5, 2.0)
    ax.set_title("teacher coordinates r_k = nu_k/nu_k* (k = 1 dark ... d light)", fontsize=9)
    ax = axes[0, 1]
    ax.semilogx(steps, one["norm_v"], label="|v|")
    ax.semilogx(steps, one["gap"], label="|v - v*|")
    ax2 = ax.twinx()
    ax2.semilogx(steps, one["angle_gamma"], "--", color="tab:green", label="angle(v, gamma_[n])")
    ax2.semilogx(steps, one["angle_vstar"], "--", color="tab:red", label="angle(v, v*)")
    ax2.set_ylabel("degrees")
    ax.set_title("the bundle vector v", fontsize=9)
    ax.legend(fontsize=7, loc="center left")
    ax2.legend(fontsize=7, loc="center right")
    ax = axes[1, 0]
    ax.loglog(steps, one["loss"], label="loss")
    ax.loglog(steps, np.maximum(one["max_angle"], 1e-12), label="max angle, active (deg)")
    ax.set_title("loss and the bundle's width", fontsize=9)
    ax.legend(fontsize=7)
    ax = axes[1, 1]
    ax.semilogx(steps, one["nuclear"], label="nuclear norm of W")
    ax.semilogx(steps, one["theta_sq"], label="|theta|^2")
    ax.set_title("norms (tend to 1 and 2)", fontsize=9)
    ax.legend(fontsize=7)
    for a in axes.flat:
        a.set_xlabel("GD iteration")
    fig.suptitle("E-CEL23-4: uncentred, d = 16, m = 25, lam = 4^-7", fontsize=10)
    fig.tight_layout()
    save_png(fig, path)


def _g(x) -> str:
    return "-" if x is None else f"{x:.4g}"


def _blocks(curves: dict, one: dict, fig_loss: Path, fig_run: Path) -> list[Block]:
    rows = [[f"4^{r['k']}", _g(r["exit"]), _g(r["rate"]),
             _g(None if r["rate"] is None else r["rate"] / (2 * curves["eta_d"])),
             f"{r['final_loss']:.3g}", f"{r['test_loss']:.3g}"] for r in curves["rows"]]
    rates = [r["rate"] for r in curves["rows"] if r["rate"] is not None]
    spread = (max(rates) - min(rates)) / float(np.median(rates)) if rates else math.nan
    order = ", ".join(f"{k + 1}:{_g(s)}" for k, s in enumerate(one["first_over"]))
    last = -1
    return [
        Heading(2, "Reproduction E-CEL23-3: loss curves against lam (CEL23 section 8, Fig. 2)"),
        Paragraph(
            f"Centred data, d = 16, m = 200, GD with step {LR} (float64) to flow time "
            f"{curves['horizon']:g}, lam = 4^k for k = {LOSS_KS[0]} ... {LOSS_KS[-1]}, one "
            f"data seed ({curves['problem']}). The paper shows shapes only. Plateau exit: "
            f"the first saved iteration with L < L(0)/2; it grows linearly in ln(1/lam) "
            f"with slope {curves['slope']:.1f} iterations (R^2 = {curves['r2']:.4f}); the "
            f"growth law lam e^(|gamma_[n]| t) predicts 1/(|gamma_[n]| x 0.01) = "
            f"{curves['predicted_slope']:.1f}. Late-time rate: -d ln L/dt where L/L(0) is "
            f"between {RATE_WINDOW[0]:g} and {RATE_WINDOW[1]:g}; its spread over lam is "
            f"{spread:.1%} of its median (theory: independent of lam). It is shown "
            f"against 2 eta_d = {2 * curves['eta_d']:.4g}, the rate of the slowest "
            f"direction of the linearised dynamics, which takes over only at lower losses "
            f"than this window reaches (the ratio says how far the window is from it). "
            f"Test loss: {TEST_POINTS} N(0, I_16) "
            f"inputs, (1/2) mean square error against the teacher."),
        Table(["lam", "plateau exit (iteration)", "late rate -d ln L/dt",
               "rate / (2 eta_d)", "final training loss", "final test loss"], rows),
        Figure(fig_loss, "E-CEL23-3: training loss against iteration for each lam"),
        Heading(2, "Reproduction E-CEL23-4: one run (CEL23 App. E-F, Figs 3-6)"),
        Paragraph(
            f"Uncentred data, d = n = 16, m = 25, lam = 4^-7, GD with step {LR} to flow time "
            f"{one['horizon']:g} ({one['problem']}; |J_+| = {one['J_plus']}). The teacher "
            f"coordinates r_k = nu_k/nu_k* first exceed 1 at iterations (k:iteration) "
            f"{order}: in eigen-order {'yes' if one['in_order'] else 'NO'}; the set "
            f"{{k : r_k > 1}} is an initial segment at every saved time: "
            f"{'yes' if one['initial_segment_always'] else 'NO'} (CEL23-F28a). "
            f"angle(v, gamma_[n]) is smallest at iteration {one['angle_gamma_min_step']} "
            f"(the paper: around 500). At the end: loss {one['loss'][last]:.3g}, maximum "
            f"angle between active neurons {one['max_angle'][last]:.4g} degrees (it levels "
            f"off while the loss keeps falling: CEL23-F35a), nuclear norm of W "
            f"{one['nuclear'][last]:.5f}, |theta|^2 = {one['theta_sq'][last]:.5f}."),
        Figure(fig_run, "E-CEL23-4: teacher coordinates, the bundle vector, loss and width, "
                        "norms"),
    ]


def run(out: Path, profile: str, *, seed: int = 0, show_progress: bool = True,
        store: Path | None = None) -> Reproduction:
    """Both sections (data seed ``seed``; ``store`` unused)."""
    horizon = per_profile(HORIZON, profile, "E-CEL23 dynamics horizon")
    fig_loss, fig_run = Path(out) / FIG_LOSS, Path(out) / FIG_RUN
    start = time.perf_counter()
    with Progress(2, "E-CEL23-3/4 loss curves and one run", enabled=show_progress) as bar:
        curves = loss_curves(horizon, seed)
        bar.advance()
        one = single_run(horizon, seed)
        bar.advance()
    _loss_figure(curves, fig_loss)
    _run_figure(one, fig_run)
    wall = time.perf_counter() - start
    rates = [r["rate"] for r in curves["rows"] if r["rate"] is not None]
    summary = (f"E-CEL23-3: plateau exit slope {curves['slope']:.1f} iterations per unit "
               f"ln(1/lam) (R^2 {curves['r2']:.4f}; growth law {curves['predicted_slope']:.1f});"
               f" late rates {min(rates):.4g} to {max(rates):.4g}" if rates else
               "E-CEL23-3: no late rate measured",
               f"E-CEL23-4: teacher coordinates overtaken in eigen-order: "
               f"{'yes' if one['in_order'] else 'NO'}; final max angle "
               f"{one['max_angle'][-1]:.4g} deg")
    data_out = {
        "E-CEL23-3": {**{k: v for k, v in curves.items() if k not in ("rows", "steps")},
                      "rows": [{k: v for k, v in r.items() if k != "loss"}
                               for r in curves["rows"]]},
        "E-CEL23-4": {**{k: v for k, v in one.items() if not isinstance(v, np.ndarray)},
                      "final_max_angle": float(one["max_angle"][-1])},
        "method": f"GradientDescent(lr={LR}), float64", "seed": seed}
    return Reproduction("E-CEL23-3, E-CEL23-4", "loss curves against lam; one run",
                        _blocks(curves, one, fig_loss, fig_run), (fig_loss, fig_run),
                        data_out, wall, summary=summary)
