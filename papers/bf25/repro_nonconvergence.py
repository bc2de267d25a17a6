"""E-BF25-1: the non-convergence example of BF25 section 5 (Fig. 2, App. B.1) by the exact
flow, and where it stops: the limit against the OLS fit, the alignment at the end of the
early phase, the limit's cones, a sweep in lam at a stated width, and unbalanced starts.

The paper's run (App. B.1): x = (-0.75, -0.5, 0.125), y = (1.1, 0.1, 0.8), a hidden bias,
ReLU, the loss (1/(2n)) sum (h - y)^2 (Eq. (10)), Eq. (3)'s balanced Gaussian start with
lam = 1e-3, m = 200,000 neurons, gradient descent at learning rate 1e-3 for 2e6
iterations. Here: the exact flow of the same loss (`numerics.ExactFlow`, with its companion
run for the error) at m = 200, to `papers.bf25.evidence.horizon` (about t = 290; the
paper's 2e6 iterations are t = 2000 on its loss). One iteration at rate 1e-3 is flow time
1e-3 on the paper's loss and 2e-3 on the authors' code's (torch MSELoss, no 1/2): Fig. 2's
iteration 3000 is t = 3 or t = 6, both reported.

The paper publishes no number for this example; the OLS predictions and L_LS below are
computed from its data (exactly, `papers.bf25.cones`), the rest from our runs. A limit is
read by `papers.bf25.measures.limit_estimate` (value at the end of the run, error from its
change over the last quarter and the companion run).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from numerics import Problem, Trajectory
from papers.bf25 import cones, data
from papers.bf25.evidence import bf25_trajectory, horizon
from papers.bf25.measures import limit_estimate, live_positive
from verify.language.measures import instance_values
from verify.report.doc import Block, Bullets, Figure, Heading, Paragraph, Table
from verify.report.reproduction import Reproduction
from verify.results.figures import pyplot, save_png
from verify.running.profiles import per_profile
from verify.running.progress import Progress

EXPERIMENT = "E-BF25-1"
FIGURE = "ebf25_1_nonconvergence.png"
# per profile: the main runs' width and seeds, the sweep's width, seeds and lam grid, the
# unbalanced runs (width, lam) and their seeds. Measured on the 2-core machine: one main
# run (m = 200) about 1-3 s, one sweep run about 0.5-2.5 s at m = 40 and 2-3 s at m = 200,
# one unbalanced run to t = 2000 about 2-4 s; the quick section about 45 s.
SETTINGS = {
    "quick": {"width": 200, "seeds": (0, 1), "sweep_width": 40, "sweep_seeds": (0, 1, 2),
              "lams": (0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5),
              "unbalanced": ((20, 1e-3), (20, 1e-5), (60, 1e-3)), "unbalanced_seeds": (0, 1)},
    "full": {"width": 200, "seeds": (0, 1, 2, 3, 4), "sweep_width": 200,
             "sweep_seeds": tuple(range(10)),
             "lams": (0.02, 0.05, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5),
             "unbalanced": ((20, 1e-3), (20, 1e-5), (60, 1e-3), (60, 1e-5), (200, 1e-3),
                            (200, 1e-5)), "unbalanced_seeds": (0, 1, 2)},
    # the paper ran m = 200,000; one run at m = 2,000 is about 20 s of one core
    "paper": {"width": 2000, "seeds": (0, 1, 2), "sweep_width": 200,
              "sweep_seeds": tuple(range(5)),
              "lams": (0.02, 0.05, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5),
              "unbalanced": ((200, 1e-3), (200, 1e-5), (2000, 1e-3)),
              "unbalanced_seeds": (0, 1)},
}
ALIGN_TIMES = (3.0, 6.0)  # Fig. 2c-d's iteration 3000 on the paper's loss / the code's
GROWTH_TIMES = (6.5, 13.0)  # Fig. 2e-f's iteration 6500, the same two readings
SWEEP_T_MIN = 400.0  # the sweep's runs go at least this far (large lam converges slower)
UNBALANCED_T = 2000.0  # the paper's 2e6 iterations on its loss
GLOBAL = 1e-3  # a limit (with its error) below GLOBAL L_LS counts as a global minimum


def _angle(v) -> float:
    return float(np.degrees(np.arctan2(v[1], v[0])) % 360.0)


def _at(tr: Trajectory, t: float) -> int:
    return int(np.argmin(np.abs(tr.t - t)))


def outputs_on(W: np.ndarray, a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """h(x) = sum_j a_j relu(w_j . (x, 1)) on the univariate points ``x``."""
    Xt = np.column_stack([x, np.ones_like(x)])
    return np.maximum(Xt @ W.T, 0.0) @ a


def instance_numbers(problem: Problem) -> dict:
    """The section 5 data's exact quantities (from the cones, no run)."""
    inst = instance_values(problem)
    beta = cones.beta_star(problem)
    d_star = cones.d_star(problem)
    base = inst["LamStarBase"]
    return {
        "D_star": d_star.tolist(), "D_star_norm": float(np.linalg.norm(d_star)),
        "D_star_angle": _angle(d_star), "D_max": inst["Dmax"], "beta_star": beta.tolist(),
        "beta_angle": _angle(beta), "ols_predictions": (problem.X @ beta).tolist(),
        "residuals": (problem.y - problem.X @ beta).tolist(), "L_LS": inst["LossLS"],
        "L0": float(np.sum(problem.y**2) / (2 * problem.n)),
        "K": [k + 1 for k in cones.extreme_points(problem)],  # the paper's 1-based labels
        "A3Eta": inst["A3Eta"] if math.isfinite(inst["A3Eta"]) else "inf",
        "A5Margin": inst["A5Margin"],
        "A6Margin": inst["A6Margin"], "LamStarBase": base,
        "lam_star": {str(e): base ** (1 / (2 - 4 * e)) for e in (0.1, 0.25, 0.3)},
        "lam_star_sup": math.sqrt(base), "q": inst["DeadConeFrac"],
        "descent": list(cones.descent_counts(problem)),
    }


def _alignment(tr: Trajectory, t: float) -> dict:
    """At time t: cos(w_j, D*) over I (min, median, share >= 0.99), I's neurons dead, max |h|,
    the largest |a_j(t)|/|a_j(0)|, the share of negative neurons dead, L(t)."""
    k = _at(tr, t)
    pr = tr.problem
    idx = np.flatnonzero(live_positive(pr))
    D = cones.d_star(pr)
    cos = tr.W[k, idx] @ D / (tr.neuron_norms[k, idx] * np.linalg.norm(D))
    act = tr.activation[k].any(axis=-1)
    neg = pr.a0 < 0
    bundle = np.einsum("j,jd->d", tr.a[k, idx], tr.W[k, idx])
    return {"t": float(tr.t[k]), "cos_min": float(cos.min()), "cos_median": float(
        np.median(cos)), "aligned_share": float(np.mean(cos >= 0.99)),
        "I_dead": int(np.sum(~act[idx])), "I": int(idx.size),
        "max_h": float(np.max(np.abs(tr.outputs[k]))),
        "growth_max": float(np.max(np.abs(tr.a[k]) / np.abs(pr.a0))),
        "neg_dead_share": float(np.mean(~act[neg])) if neg.any() else 0.0,
        "bundle_angle": _angle(bundle), "loss": float(tr.loss[k])}


def _limit(tr: Trajectory) -> dict:
    """The run's limit: L and its error, the OLS gap, the cones of the neurons at the end, the
    bundle of the all-active neurons and its angle, the escape time."""
    pr = tr.problem
    loss = limit_estimate(tr, "LossInf")
    gap = limit_estimate(tr, "OLSGapInf")
    mixed = limit_estimate(tr, "MixedInf")
    on = tr.activation[-1] | tr.sliding[-1]
    all_on, none_on = on.all(axis=-1), ~on.any(axis=-1)
    v = np.einsum("j,jd->d", tr.a[-1, all_on], tr.W[-1, all_on])
    L_LS = cones.loss_ls(pr)
    half = 0.5 * (tr.loss[0] + L_LS)
    below = np.flatnonzero(tr.loss < half)
    return {"loss": loss.value, "loss_error": loss.error, "L_LS": L_LS,
            "loss_minus_LS": loss.value - L_LS, "ols_gap": gap.value, "ols_gap_error": gap.error,
            "mixed": mixed.value, "mixed_error": mixed.error,
            "predictions": tr.outputs[-1].tolist(), "all_active": int(all_on.sum()),
            "dead": int(none_on.sum()), "other": int(pr.p - all_on.sum() - none_on.sum()),
            "positive_all_active": int(np.sum(all_on & (tr.a[-1] > 0))),
            "bundle": v.tolist(), "bundle_angle": _angle(v) if np.linalg.norm(v) else None,
            "escape_time": float(tr.t[below[0]]) if below.size else None,
            "t_end": float(tr.t[-1]), "state_error": float(tr.error_estimate)}


def outcome(loss: float, error: float, L_LS: float) -> str:
    """``spurious`` when the limit equals L_LS within its error, ``global`` when it is below
    GLOBAL L_LS (and decided so), else ``undecided``."""
    if abs(loss - L_LS) <= error:
        return "spurious"
    if loss + error < GLOBAL * L_LS:
        return "global"
    return "undecided"


def _main_runs(settings: dict, bar) -> list[dict]:
    out = []
    for seed in settings["seeds"]:
        problem = data.section5(m=settings["width"], lam=data.PAPER_LAM, seed=seed)
        tau = 0.25 * math.log(1.0 / instance_values(problem)["LamEff"]) / cones.d_max(problem)
        tr = bf25_trajectory(problem, extra_times=(*ALIGN_TIMES, *GROWTH_TIMES, tau))
        row = {"seed": seed, "problem": problem.describe(), "I": int(live_positive(
            problem).sum()), "limit": _limit(tr), "tau": tau,
            "align": [_alignment(tr, t) for t in (tau, *ALIGN_TIMES)],
            "growth": [{"t": t, "loss": float(tr.loss[_at(tr, t)])} for t in GROWTH_TIMES],
            "wall": tr.wall_time}
        out.append((row, tr))
        bar.advance()
    return out


def _sweep(settings: dict, bar) -> list[dict]:
    rows = []
    for lam in settings["lams"]:
        for seed in settings["sweep_seeds"]:
            problem = data.section5(m=settings["sweep_width"], lam=lam, seed=seed)
            end = max(horizon(problem), SWEEP_T_MIN)
            tr = bf25_trajectory(problem, points=1001, t_end=end)
            est = limit_estimate(tr, "LossInf")
            L_LS = cones.loss_ls(problem)
            rows.append({"lam": lam, "seed": seed, "loss": est.value, "error": est.error,
                         "L_LS": L_LS, "outcome": outcome(est.value, est.error, L_LS),
                         "t_end": float(tr.t[-1]), "wall": tr.wall_time,
                         "lam_eff": instance_values(problem)["LamEff"],
                         "curve": (tr.t[::10].tolist(), tr.loss[::10].tolist()) if seed == 0
                         else None})
            bar.advance()
    return rows


def _unbalanced(settings: dict, bar) -> list[dict]:
    rows = []
    for m, lam in settings["unbalanced"]:
        for seed in settings["unbalanced_seeds"]:
            problem = data.assumption3(m=m, lam=lam, eta=0.15, seed=seed, coords="bias",
                                       init="unbalanced")
            tr = bf25_trajectory(problem, points=1001, t_end=UNBALANCED_T)
            est = limit_estimate(tr, "LossInf")
            L_LS = cones.loss_ls(problem)
            below = np.flatnonzero(tr.loss < 0.5 * L_LS)
            rows.append({"m": m, "lam": lam, "seed": seed, "loss": est.value,
                         "error": est.error, "L_LS": L_LS,
                         "outcome": outcome(est.value, est.error, L_LS),
                         "escape": float(tr.t[below[0]]) if below.size else None,
                         "wall": tr.wall_time})
            bar.advance()
    return rows


def threshold(rows: list[dict]) -> dict:
    """Per lam of the sweep: how many seeds end at L_LS, at 0, undecided; and the bracket
    (largest lam where every seed is spurious, smallest where every seed is global)."""
    lams = sorted({r["lam"] for r in rows})
    per = {lam: {k: sum(r["outcome"] == k for r in rows if r["lam"] == lam)
                 for k in ("spurious", "global", "undecided")} for lam in lams}
    all_spurious = [lam for lam in lams if per[lam]["global"] == per[lam]["undecided"] == 0]
    all_global = [lam for lam in lams if per[lam]["spurious"] == per[lam]["undecided"] == 0]
    low = max((lam for lam in all_spurious if all(lam2 in all_spurious for lam2 in lams
                                                  if lam2 <= lam)), default=None)
    high = min((lam for lam in all_global if all(lam2 in all_global for lam2 in lams
                                                 if lam2 >= lam)), default=None)
    return {"per_lam": {str(k): v for k, v in per.items()}, "all_spurious_up_to": low,
            "all_global_from": high}


def run(out: Path, profile: str, *, seed: int = 0, show_progress: bool = True,
        store: Path | None = None) -> Reproduction:
    """The section (``seed`` and ``store`` unused: the seeds are the profile's)."""
    settings = per_profile(SETTINGS, profile, "E-BF25-1 sizes")
    start = time.perf_counter()
    total = (len(settings["seeds"]) + len(settings["lams"]) * len(settings["sweep_seeds"])
             + len(settings["unbalanced"]) * len(settings["unbalanced_seeds"]))
    with Progress(total, "E-BF25-1 non-convergence", enabled=show_progress) as bar:
        main = _main_runs(settings, bar)
        sweep = _sweep(settings, bar)
        unbalanced = _unbalanced(settings, bar)
    problem = main[0][1].problem
    numbers = instance_numbers(problem)
    bracket = threshold(sweep)
    figure = Path(out) / FIGURE
    _figure(main[0][1], sweep, numbers, settings, figure)
    wall = time.perf_counter() - start
    result = {"settings": {k: list(v) if isinstance(v, tuple) else v
                           for k, v in settings.items()},
              "instance": numbers, "main": [row for row, _ in main],
              "sweep": [{k: v for k, v in r.items() if k != "curve"} for r in sweep],
              "threshold": bracket, "unbalanced": unbalanced, "wall_time": wall}
    blocks = _blocks(result, figure)
    worst = max(abs(r["limit"]["loss_minus_LS"]) for r, _ in main)
    summary = (
        f"section 5 data, lam = 1e-3, m = {settings['width']}: limit loss "
        f"{main[0][0]['limit']['loss']:.7f} +- {main[0][0]['limit']['loss_error']:.1g} "
        f"(L_LS = {numbers['L_LS']:.7f}; largest |limit - L_LS| over "
        f"{len(main)} seeds {worst:.1g})",
        f"lam sweep at m = {settings['sweep_width']}: every seed at L_LS up to lam = "
        f"{bracket['all_spurious_up_to']}, every seed at L = 0 from lam = "
        f"{bracket['all_global_from']}")
    return Reproduction(EXPERIMENT, "the non-convergence example (section 5, Fig. 2)", blocks,
                        (figure,), result, wall, summary=summary)


def _g(x, spec: str = ".4g") -> str:
    return "-" if x is None else format(x, spec)


def _blocks(res: dict, figure: Path) -> list[Block]:
    num = res["instance"]
    st = res["settings"]
    main = res["main"]
    pred = ", ".join(f"{v:.4f}" for v in num["ols_predictions"])
    limit_rows = []
    for r in main:
        lim = r["limit"]
        limit_rows.append([
            str(r["seed"]), str(r["I"]), f"{lim['loss']:.9f} +- {lim['loss_error']:.1g}",
            f"{lim['loss_minus_LS']:.2g}", f"{lim['ols_gap']:.2g} +- {lim['ols_gap_error']:.1g}",
            ", ".join(f"{v:.4f}" for v in lim["predictions"]),
            f"{lim['all_active']} / {lim['dead']} / {lim['other']}",
            f"{lim['mixed']:.1g} +- {lim['mixed_error']:.1g}",
            _g(lim["bundle_angle"], ".2f"), _g(lim["escape_time"], ".3g"),
            f"{lim['t_end']:.0f}"])
    align_rows = []
    for r in main:
        for a, label in zip(r["align"], ("tau (eps = 1/4)", "t = 3 (paper's loss)",
                                          "t = 6 (code's loss)"), strict=True):
            align_rows.append([str(r["seed"]), label, f"{a['t']:.3g}", f"{a['cos_min']:.4f}",
                               f"{a['cos_median']:.6f}", f"{a['aligned_share']:.3f}",
                               f"{a['I_dead']} of {a['I']}", f"{a['max_h']:.2g}",
                               f"{a['growth_max']:.3g}", f"{a['neg_dead_share']:.3f}",
                               f"{a['bundle_angle']:.2f}", f"{a['loss']:.6f}"])
    thr = res["threshold"]
    sweep_rows = []
    for lam in sorted({r["lam"] for r in res["sweep"]}):
        rows = [r for r in res["sweep"] if r["lam"] == lam]
        counts = thr["per_lam"][str(lam)]
        losses = ", ".join(f"{r['loss']:.3g}" for r in rows)
        sweep_rows.append([f"{lam:g}", f"{counts['spurious']}", f"{counts['global']}",
                           f"{counts['undecided']}", losses,
                           f"{min(r['lam_eff'] for r in rows):.3g}-"
                           f"{max(r['lam_eff'] for r in rows):.3g}"])
    unb_rows = [[str(r["m"]), f"{r['lam']:g}", str(r["seed"]), f"{r['loss']:.3g}",
                 f"{r['L_LS']:.5f}", r["outcome"], _g(r["escape"], ".4g")]
                for r in res["unbalanced"]]
    lam_star = ", ".join(f"{v:.3g} (eps = {e})" for e, v in num["lam_star"].items())
    growth = "; ".join(f"seed {r['seed']}: " + ", ".join(
        f"L({g['t']:g}) = {g['loss']:.4f}" for g in r["growth"]) for r in main)
    return [
        Heading(2, f"Reproduction {EXPERIMENT}: the non-convergence example (BF25 section 5)"),
        Paragraph(
            "BF25 section 5 and App. B.1: x = (-0.75, -0.5, 0.125), y = (1.1, 0.1, 0.8), a "
            "hidden bias (x~ = (x, 1)), ReLU, the loss (1/(2n)) sum (h - y)^2, Eq. (3)'s "
            "balanced Gaussian start at lam = 1e-3. The paper trains m = 200,000 neurons by "
            "gradient descent (rate 1e-3, 2e6 iterations); here the exact flow of the same "
            f"loss with m = {st['width']} (Theorem 2's conclusion does not depend on m), "
            f"seeds {list(st['seeds'])}, each to its horizon (3 ln(1/lam)/D_max + 40 time "
            "constants of the final convergence). The paper prints no number for this "
            "example: the OLS fit is computed from its data; everything else is from these "
            "runs."),
        Heading(3, "The data's exact quantities"),
        Bullets([
            f"D* = (1/n) sum y_k x~_k = ({num['D_star'][0]:.6f}, {num['D_star'][1]:.6f}), "
            f"|D*| = {num['D_star_norm']:.6f} = D_max = {num['D_max']:.6f}, angle "
            f"{num['D_star_angle']:.2f} degrees; it activates every sample and is the only "
            "extremal vector (BF25-F1e).",
            f"beta* = ({num['beta_star'][0]:.7f}, {num['beta_star'][1]:.7f}) (angle "
            f"{num['beta_angle']:.2f} degrees); OLS predictions {pred}; residuals "
            + ", ".join(f"{v:+.4f}" for v in num["residuals"])
            + f" (the middle point below the line); L_LS = {num['L_LS']:.7f}, L(0) = "
            f"{num['L0']:.4f}.",
            f"Assumption 3 fails (y_3 < 1: A3Eta = {num['A3Eta']}): Theorem 2's rows are "
            "INAPPLICABLE here (BF25-F2c carries its conclusion to such data); "
            f"Assumption 5 fails too (margin {num['A5Margin']:.3f}); Assumptions 4 and 6 "
            f"hold (A6 margin {num['A6Margin']:.4f}, extreme points K = {num['K']}). "
            f"At the OLS point {num['descent'][0]} cones would let a small positive neuron "
            f"lower the loss and {num['descent'][1]} a negative one (BF25-F2b).",
            f"Theorem 1's threshold (Eq. (21), alpha0 = 1): lambda* = {lam_star}; its sup "
            f"over eps, {num['lam_star_sup']:.4f}, is the surrogate of Theorem 2's lambda~. "
            f"The dead cone's share q = {num['q']:.4f}: I is empty with probability "
            f"((1 + q)/2)^m (BF25-F2e), {((1 + num['q']) / 2) ** st['width']:.2g} at "
            f"m = {st['width']}."]),
        Heading(3, "The limit against the paper's statements"),
        Paragraph(
            "The paper reports that the trained network ends at the least-squares line, as "
            "Theorem 2 predicts, and that every neuron ends active on all the samples or on "
            "none (section 5, p. 18, Fig. 2g-h). Columns: the limit loss "
            "(value +- error, `limit_estimate`), its difference to L_LS, the largest gap of "
            "the limit predictions to the OLS ones, the predictions, the neurons active on "
            "all samples / on none / other at the end, the most mixed neuron's size, the "
            "all-active bundle's angle (beta*'s is "
            f"{num['beta_angle']:.2f}), the first time L is halfway from L(0) to L_LS, the "
            "run's end."),
        Table(["seed", "size of I", "limit L", "L - L_LS", "OLS gap", "h(x_k) at the end",
               "all / none / other", "mixed", "bundle angle", "escape t", "t end"],
              limit_rows),
        Paragraph(
            "After early alignment (Fig. 2c-d, iteration 3000; the paper, p. 17: every "
            "positive neuron is then aligned with the one extremal vector (1/n) sum y_k x_k "
            "or inactive on every sample): cos(w_j, D*) over I at tau and at the two readings of "
            "iteration 3000 (min, median, share >= 0.99), I's neurons dead, max_k |h(x_k)|, "
            "the largest |a_j|/|a_j(0)|, the share of negative neurons dead, the angle of "
            "sum_I a_j w_j (D*'s is "
            f"{num['D_star_angle']:.2f}; the paper remarks that the positive neurons end in "
            "another direction than the one they had after the early alignment), and L."),
        Table(["seed", "time", "t", "cos min", "cos median", "cos >= 0.99", "I dead",
               "max abs h", "max a_j/a_j(0) (abs)", "negatives dead", "bundle angle", "L"],
              align_rows),
        Paragraph(f"During the growth (Fig. 2e-f, iteration 6500, t = 6.5 or 13): {growth} "
                  f"(L(0) = {num['L0']:.4f}, L_LS = {num['L_LS']:.4f}). {_reading(res)}"),
        Heading(3, f"Where the limit switches from L_LS to 0 (m = {st['sweep_width']})"),
        Paragraph(
            f"The same data at m = {st['sweep_width']}, seeds {list(st['sweep_seeds'])}, "
            f"lam = {', '.join(f'{v:g}' for v in st['lams'])}, each run to max(horizon, "
            f"{SWEEP_T_MIN:g}). A limit within its error of L_LS is 'spurious', one below "
            f"{GLOBAL:g} L_LS 'global'. Theorem 2 puts the switch at a lambda~ = Theta(1) it "
            "does not give (and its hypotheses fail on these data); the authors' code does "
            "not sweep lam."),
        Table(["lam", "at L_LS", "at 0", "undecided", "limit L per seed", "LamEff range"],
              sweep_rows),
        Paragraph(
            f"Every seed ends at L_LS up to lam = {thr['all_spurious_up_to']} and at L = 0 "
            f"from lam = {thr['all_global_from']} (m = {st['sweep_width']}); between them the "
            "outcome depends on the draw."),
        Heading(3, "Unbalanced starts (section 6, p. 20)"),
        Paragraph(
            "The paper states that with an unbalanced start the flow reaches a global minimum "
            "on Assumption 3's data (an infinite-width argument, no proof). Box draws "
            "(eta = 0.15, hidden bias), a~_j ~ N(0, 1) as App. B.2, to "
            f"t = {UNBALANCED_T:g}:"),
        Table(["m", "lam", "seed", "limit L", "L_LS", "outcome", "L < L_LS/2 from t"],
              unb_rows),
        Figure(figure, "E-BF25-1: loss curves against lam (m = "
               f"{st['sweep_width']}, seed 0), the limit function at lam = 1e-3 (m = "
               f"{st['width']}) with the OLS line, the neurons' directions and norms at t = 0, "
               "3 and the end, and the share of seeds ending at L_LS and at 0 against lam"),
        Paragraph(f"Section wall time {res['wall_time']:.1f} s (main runs "
                  + ", ".join(f"{r['wall']:.1f} s" for r in main) + ", with companions)."),
    ]


def _reading(res: dict) -> str:
    """Which time reading of Fig. 2's iterations the runs fit: at iteration 3000 the figure
    shows the positive neurons aligned, at 6500 h near the OLS line."""
    num = res["instance"]
    a3 = min(r["align"][1]["aligned_share"] for r in res["main"])
    a6 = min(r["align"][2]["aligned_share"] for r in res["main"])
    mid = 0.5 * (num["L0"] + num["L_LS"])
    g65 = max(r["growth"][0]["loss"] for r in res["main"])
    g13 = max(r["growth"][1]["loss"] for r in res["main"])
    fits = a6 > a3 and g13 < mid < g65
    return (f"Share of I within cos 0.99 of D*: at least {a3:.2f} at t = 3 and {a6:.2f} at "
            f"t = 6; L at t = 6.5 is {'above' if g65 > mid else 'below'} and at t = 13 "
            f"{'below' if g13 < mid else 'above'} the midpoint between L(0) and L_LS. "
            + ("The figure's iterations fit flow time 2 x 1e-3 per iteration, the authors' "
               "code's loss (no 1/2), better than the paper's own loss."
               if fits else "Neither reading fits both panels better."))


def _figure(tr: Trajectory, sweep: list[dict], num: dict, settings: dict, path: Path) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(10.0, 7.5))
    ax = axes[0, 0]
    cmap = plt.get_cmap("viridis")
    lams = sorted({r["lam"] for r in sweep})
    for i, lam in enumerate(lams):
        row = next(r for r in sweep if r["lam"] == lam and r["curve"] is not None)
        t, loss = row["curve"]
        ax.semilogy(t, np.maximum(loss, 1e-30), color=cmap(i / max(1, len(lams) - 1)), lw=1,
                    label=f"lam={lam:g}")
    ax.axhline(num["L_LS"], color="red", ls=":", lw=1, label="L_LS")
    ax.set_xlabel("t")
    ax.set_ylabel("L(t)")
    ax.set_ylim(1e-20, 1)
    ax.legend(fontsize=6, ncol=2)
    ax.set_title(f"loss, m = {settings['sweep_width']}, seed 0", fontsize=9)

    ax = axes[0, 1]
    x = np.linspace(-1.0, 1.0, 401)
    pr = tr.problem
    beta = np.array(num["beta_star"])
    ax.plot(x, outputs_on(tr.W[-1], tr.a[-1], x), color="tab:blue", lw=2,
            label=f"h at t = {tr.t[-1]:.0f} (lam = 1e-3, m = {pr.p})")
    ax.plot(x, beta[0] * x + beta[1], color="black", ls="--", lw=1, label="<beta*, x~>")
    ax.plot(pr.X[:, 0], pr.y, "o", color="black", label="data")
    ax.set_xlabel("x")
    ax.set_title("limit function (section 5 data)", fontsize=9)
    ax.legend(fontsize=7)

    ax = axes[1, 0]
    pos = pr.a0 > 0
    for k, colour in ((0, "lightgray"), (_at(tr, 3.0), "tab:orange"), (len(tr.t) - 1,
                                                                       "tab:purple")):
        ang = np.degrees(np.arctan2(tr.W[k, :, 1], tr.W[k, :, 0])) % 360
        ax.scatter(ang[pos], np.log10(tr.neuron_norms[k, pos]), s=6, color=colour,
                   label=f"positive, t = {tr.t[k]:.3g}")
        ax.scatter(ang[~pos], np.log10(tr.neuron_norms[k, ~pos]), s=6, marker="x",
                   color=colour, alpha=0.6)
    ax.axvline(num["D_star_angle"], color="red", ls=":", lw=1, label="D*")
    ax.axvline(num["beta_angle"], color="black", ls="--", lw=1, label="beta*")
    ax.set_xlabel("direction of w_j (degrees; x: negative neurons)")
    ax.set_ylabel("log10 |w_j|")
    ax.legend(fontsize=6)
    ax.set_title("neurons at t = 0, 3 and the end (lam = 1e-3)", fontsize=9)

    ax = axes[1, 1]
    share = [np.mean([r["outcome"] == "spurious" for r in sweep if r["lam"] == lam])
             for lam in lams]
    glob = [np.mean([r["outcome"] == "global" for r in sweep if r["lam"] == lam])
            for lam in lams]
    ax.plot(lams, share, "o-", label="limit at L_LS")
    ax.plot(lams, glob, "s--", label="limit at 0")
    ax.set_xlabel("lam")
    ax.set_ylabel(f"share of {len(settings['sweep_seeds'])} seeds")
    ax.legend(fontsize=7)
    ax.set_title(f"outcome against lam, m = {settings['sweep_width']}", fontsize=9)
    fig.tight_layout()
    save_png(fig, path)
