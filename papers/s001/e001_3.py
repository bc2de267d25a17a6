"""E-001-3, S001 App. A.5 (Figs. 12-13): the two-phase diagnostics, both layers against the
first layer only, by minibatch SGD on centred digits 0/1 (the data of E-001-1).

Both layers: E-001-1's problem (W_ij, v_j ~ N(0, alpha^2), alpha = 1e-6, mean exponential
loss). First layer only: the same W(0) with v_j = sign(v_j(0)) = +-1, held fixed
(``train="first"``). SGD at eta = 2e-3 with batches of n/6 (the paper's 2000 of MNIST's
12,665 samples, scaled), one permutation per epoch, the metrics read once per epoch from
the full gradient: norm change sum_j |<-grad_{w_j} L, w^_j>| and direction change
sum_j ||(I - w^_j w^_j^T)(-grad_{w_j} L)|| / ||w_j|| (vocabulary NormChange, DirChange;
papers/s001/measures.py). S001-F9 states the pattern with thresholds of ours.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from numerics import GradientDescent, Problem, Trajectory, simulate
from papers.s001.alignment import PAPER_LR, Settings
from papers.s001.e001_1 import digits_problem
from verify.language.measures import measure
from verify.report.doc import Block, Figure, Heading, Paragraph, Table
from verify.results.figures import pyplot, save_png

BATCH_FRACTION = 6  # batches of n / 6: MNIST's 2000 of 12,665 samples in the paper
ALIGNMENT_ITERATIONS = 2000  # S001-F9's window (t <= 4 at eta = 2e-3)


def problems(s: Settings, seed: int) -> dict[str, Problem]:
    """The two models of E-001-3 on the same data and first layer."""
    both = digits_problem(s, seed)
    signs = np.where(both.a0 < 0, -1.0, 1.0)
    first = both.with_initialisation(both.W0, signs, train="first",
                                     meta={**both.meta, "init": "v = +-1 (fixed)"})
    return {"both layers": both, "first layer only": first}


def batch_size(problem: Problem) -> int:
    return max(1, round(problem.n / BATCH_FRACTION))


def epoch_iterations(problem: Problem, iterations: int) -> np.ndarray:
    """Iteration numbers at the end of every epoch up to ``iterations`` (and 0)."""
    per_epoch = -(-problem.n // batch_size(problem))
    return np.arange(0, iterations + 1, per_epoch)


def sgd_run(problem: Problem, iterations: int, seed: int = 0) -> tuple[Trajectory, np.ndarray]:
    """Minibatch SGD (float64, float32 companion) saved once per epoch."""
    its = epoch_iterations(problem, iterations)
    method = GradientDescent(lr=PAPER_LR, batch_size=batch_size(problem), sgd_seed=seed)
    return simulate(problem, method, its * PAPER_LR), its


F9_ITERATIONS = 2500  # past S001-F9's window (2000 iterations)


def alignment_runs(profile: str = "quick") -> dict[str, Trajectory]:
    """The run S001-F9 is checked on: E-001-3's both-layer SGD run at ``profile``'s digits,
    up to just past the claim's window (the tightness table tightens the claim on it: no
    family draws E-001-3's instance)."""
    from papers.s001.alignment import settings_for

    problem = problems(settings_for(profile), 0)["both layers"]
    return {"E-001-3 both layers": sgd_run(problem, F9_ITERATIONS)[0]}


def curves(tr: Trajectory) -> dict[str, np.ndarray]:
    norm, direction = measure(tr, "NormChange"), measure(tr, "DirChange")
    return {"norm": norm.values, "norm_error": norm.roundoff, "dir": direction.values,
            "dir_error": direction.roundoff, "frobenius": np.linalg.norm(tr.W, axis=(-2, -1)),
            "loss": tr.loss}


def summary(tr: Trajectory, its: np.ndarray) -> dict:
    c = curves(tr)
    early = its <= ALIGNMENT_ITERATIONS
    peak = int(np.argmax(c["norm"]))
    return {"problem": tr.problem.describe(), "batch": batch_size(tr.problem),
            "iterations": int(its[-1]), "state_error": float(tr.error_estimate),
            "norm_early_max": float(c["norm"][early].max()),
            "dir_early_min": float(c["dir"][early].min()),
            "norm_0": float(c["norm"][0]), "dir_0": float(c["dir"][0]),
            "norm_peak": float(c["norm"][peak]), "norm_peak_iteration": int(its[peak]),
            "frobenius_0": float(c["frobenius"][0]), "frobenius_end": float(c["frobenius"][-1]),
            "frobenius_early": float(c["frobenius"][early][-1]),
            "loss_ratio": float(c["loss"][-1] / c["loss"][0])}


def figure(runs: dict, path: Path) -> Path:
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, (name, (tr, its)) in zip(axes, runs.items(), strict=True):
        c = curves(tr)
        ax.semilogy(its, c["dir"], color="tab:blue", lw=1.4, label="direction change")
        ax.semilogy(its, c["norm"], color="tab:red", lw=1.4, label="norm change")
        ax.semilogy(its, c["frobenius"], color="0.4", lw=1.0, ls="--", label="$\\|W\\|_F$")
        ax.axvline(ALIGNMENT_ITERATIONS, color="k", ls=":", lw=0.8)
        ax.set_xlabel("iteration (one point per epoch)")
        ax.set_title(name, fontsize=10)
        ax.legend(fontsize=8, loc="lower right")
    axes[0].set_ylabel("sum over neurons")
    pr = next(iter(runs.values()))[0].problem
    fig.suptitle(f"E-001-3 on centred 8x8 digits 0/1 (n = {pr.n}): h = 50, alpha = 1e-6, "
                 f"SGD eta = 2e-3, batch {batch_size(pr)}; dotted: iteration 2000", fontsize=10)
    fig.tight_layout()
    return save_png(fig, path)


def blocks(summaries: dict, fig: Path) -> tuple[list[Block], list[str]]:
    both, first = summaries["both layers"], summaries["first layer only"]
    rows = []
    for name, s in summaries.items():
        rows.append([name, f"{s['norm_0']:.2g} / {s['dir_0']:.2g}",
                     f"{s['norm_early_max']:.2g} / {s['dir_early_min']:.2g}",
                     f"{s['norm_peak']:.2g} at {s['norm_peak_iteration']}",
                     f"{s['frobenius_0']:.2g} -> {s['frobenius_early']:.2g} -> "
                     f"{s['frobenius_end']:.2g}", f"{s['loss_ratio']:.3g}",
                     f"{s['state_error']:.1e}"])
    rising = both["norm_peak_iteration"] == both["iterations"]
    peak = (f"still rise at the run's end ({both['norm_peak']:.2g} at iteration "
            f"{both['norm_peak_iteration']})" if rising else
            f"peak at {both['norm_peak']:.2g} (iteration {both['norm_peak_iteration']})")
    text = (f"Both layers: over the first {ALIGNMENT_ITERATIONS} iterations the norm changes "
            f"stay at most {both['norm_early_max']:.2g} while the direction changes stay at "
            f"least {both['dir_early_min']:.2g}; then the norm changes grow with ||W||_F and "
            f"{peak}: the alignment phase, then growth, as Fig. 12. First layer only "
            f"(v = +-1): the norm changes are {first['norm_0']:.2g} at the first step and "
            f"||W||_F reaches {first['frobenius_early']:.2g} by iteration "
            f"{ALIGNMENT_ITERATIONS}: no alignment phase, as Fig. 13. S001-F9 checks the "
            "first phase in `pytest verify` (norm changes <= 1/100, direction changes >= 1 "
            "up to iteration 2000; its statement for the first layer only is a mutant).")
    b: list[Block] = [
        Heading(2, "E-001-3: two phases, both layers against the first layer only "
                "(S001 App. A.5, Figs. 12-13)"),
        Paragraph("Data and model as E-001-1 (centred digits 0/1, h = 50, alpha = 1e-6, mean "
                  "exponential loss). Minibatch SGD at eta = 2e-3 (`GradientDescent(batch_size="
                  f"{both['batch']})`, one permutation per epoch): MNIST's batch 2000 of 12,665 "
                  "samples scaled to n/6. The first-layer-only run keeps v_j = sign(v_j(0)) "
                  "fixed (`train=\"first\"`). The metrics are read once per epoch from the full "
                  "gradient. The SGD run is the object; its error is its difference to the same "
                  "run (same batches) in float32."),
        Table(["model", "norm / direction change at 0", f"up to {ALIGNMENT_ITERATIONS}: "
               "max norm / min direction change", "largest norm change", "||W||_F: 0 -> 2000 -> "
               "end", "L_end/L_0", "state error"], rows),
        Paragraph(text),
        Figure(fig, "E-001-3: direction and norm changes per epoch, both layers and first "
               "layer only"),
    ]
    findings: list[str] = []
    return b, findings
