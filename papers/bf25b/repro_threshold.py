"""E-BF25B-1: final training and test loss against n (the optimisation threshold).

The paper's figures could not be read (catalogue BF25B-E1); this section draws the figure
its abstract describes, at our data law (`papers.bf25b.data`: x ~ N(0, I_d), no bias,
y = <beta*, x> + sigma xi) and small sizes: for each n, several draws of the family
``bf25b-linear-teacher`` at m = 2n (interpolating networks exist) and a small lam, the exact
flow to the family's horizon; at its end, the training loss, its motion over the run's last
quarter (how far from settled it is), the OLS residual loss (1/(2n))|y - X beta^|^2 and
BF25's OLSGap max_k |h(x_k) - <beta^, x_k>| (shared measures), and the test loss
(1/2) E(h(x) - y)^2 on `TEST_SAMPLES` fresh draws, against the Bayes risk sigma^2/2. A run
"interpolates" when its final training loss is below `FIT_LEVEL`. A measurement at our
law, not a check of the paper's theorem (BF25B-T4x and E1 are listed, not checked). A report
section (`verify.report.reproduction`).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from papers.bf25 import cones
from papers.bf25b.data import teacher
from papers.bf25b.families import TEACHER
from verify.engine.evidence import exact_trajectory
from verify.language.measures import measure
from verify.report.doc import Block, Figure, Heading, Paragraph, Table
from verify.report.reproduction import Reproduction
from verify.results.figures import pyplot, save_png
from verify.running.profiles import per_profile

FIGURE = "ebf25b_1_threshold.png"
#: per profile: the n of the sweep, the draws per n, the dimension
SWEEP = {"quick": {"n": (2, 4, 8, 16, 32), "seeds": 3, "d": 2},
         "full": {"n": (2, 4, 8, 16, 32, 64), "seeds": 6, "d": 2},
         "paper": {"n": (2, 4, 8, 16, 32, 64), "seeds": 6, "d": 2}}
LAM = 1e-6
NOISE = 0.5
#: a final training loss below this counts as interpolation
FIT_LEVEL = 1e-8
#: fresh draws of the test loss
TEST_SAMPLES = 20_000
SAVED = 200


def test_loss(problem, W: np.ndarray, a: np.ndarray, samples: int, seed: int) -> float:
    """(1/2) mean (h(x) - y)^2 over ``samples`` fresh draws of ``problem``'s law (its
    teacher and noise), h the network (W, a); the stream is numpy's SeedSequence((1, seed))."""
    beta = teacher(problem)
    rng = np.random.default_rng((1, seed))
    X = rng.standard_normal((samples, beta.size))
    y = X @ beta + float(problem.meta["noise"]) * rng.standard_normal(samples)
    h = np.maximum(X @ W.T, 0.0) @ a
    return float(0.5 * np.mean((h - y) ** 2))


def run_row(n: int, d: int, seed: int) -> dict:
    """One draw at n: the flow's end against the OLS fit and the teacher."""
    problem = TEACHER.build(n=n, d=d, p=2 * n, lam=LAM, noise=NOISE, seed=seed)
    horizon = TEACHER.horizon_rule(problem, {})
    tr = exact_trajectory(problem, horizon, SAVED)
    loss = np.asarray(measure(tr, "L").values)
    quarter = int(0.75 * (len(loss) - 1))
    return {"n": n, "d": d, "seed": seed, "m": 2 * n, "horizon": horizon,
            "status": tr.status.name, "train": float(loss[-1]),
            "train_motion": float(np.max(loss[quarter:]) - np.min(loss[quarter:])),
            "ols": cones.loss_ls(problem),
            "ols_gap": float(measure(tr, "OLSGap").values[-1]),
            "test": test_loss(problem, tr.W[-1], tr.a[-1], TEST_SAMPLES, seed),
            "interpolates": bool(loss[-1] < FIT_LEVEL)}


def _figure(rows: list[dict], path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.0, 4.4))
    ns = sorted({r["n"] for r in rows})
    floor = 1e-12
    for key, color, label in (("train", "tab:blue", "final training loss"),
                              ("test", "tab:red", "test loss"),
                              ("ols", "tab:green", "OLS residual loss (training)")):
        xs = [r["n"] for r in rows]
        ys = [max(r[key], floor) for r in rows]
        ax.scatter(xs, ys, s=12, color=color, alpha=0.6)
        med = [np.median([max(r[key], floor) for r in rows if r["n"] == n_]) for n_ in ns]
        ax.plot(ns, med, color=color, lw=1.3, label=f"{label} (median)")
    ax.axhline(NOISE**2 / 2, color="black", ls="--", lw=0.9, label="Bayes risk sigma^2/2")
    ax.axhline(FIT_LEVEL, color="grey", ls=":", lw=0.9, label="interpolation level")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n (m = 2n)")
    ax.set_ylabel("loss")
    ax.set_title(f"linear teacher, d = {rows[0]['d']}, sigma = {NOISE}, lam = {LAM:.0e}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_png(fig, path)


def run(out: Path, profile: str, *, seed: int = 0, show_progress: bool = True,
        store: Path | None = None) -> Reproduction:
    """The section at ``profile`` (``seed`` offsets the draws' seeds; ``store`` unused: the
    runs go through `verify.engine.evidence.exact_trajectory`)."""
    start = time.perf_counter()
    at = per_profile(SWEEP, profile, "E-BF25B-1 sizes")
    rows = [run_row(n, at["d"], seed + k) for n in at["n"] for k in range(at["seeds"])]
    figure = Path(out) / FIGURE
    _figure(rows, figure)
    wall = time.perf_counter() - start
    counts = {n: sum(r["interpolates"] for r in rows if r["n"] == n) for n in at["n"]}
    never = [n for n in at["n"] if not any(counts[k] for k in at["n"] if k >= n)]
    fitted = ", ".join(f"n = {n} ({c} of {at['seeds']})" for n, c in counts.items() if c)
    summary = (f"runs interpolating (final training loss < {FIT_LEVEL:g}): "
               f"{fitted or 'none'}; none from n = {never[0] if never else 'none'} on "
               f"(d = {at['d']}, m = 2n, {at['seeds']} draws per n)",)
    data = {"rows": rows, "sweep": {k: list(v) if isinstance(v, tuple) else v
                                    for k, v in at.items()},
            "lam": LAM, "noise": NOISE, "fit_level": FIT_LEVEL}
    return Reproduction("E-BF25B-1", "final training and test loss against n",
                        _blocks(rows, at, figure), (figure,), data, wall, summary=summary)


def _blocks(rows: list[dict], at: dict, figure: Path) -> list[Block]:
    table = []
    for n in at["n"]:
        here = [r for r in rows if r["n"] == n]

        def med(key, here=here):
            return f"{np.median([r[key] for r in here]):.3g}"

        table.append([str(n), str(2 * n), f"{sum(r['interpolates'] for r in here)}/{len(here)}",
                      med("train"), med("train_motion"), med("ols"), med("ols_gap"),
                      med("test")])
    return [
        Heading(2, "Reproduction E-BF25B-1: final training and test loss against n"),
        Paragraph("BF25B's figures and experiments could not be read; this is the figure its "
                  "abstract describes, at our data law (not the paper's: its Section 4 data "
                  f"were not read): x ~ N(0, I_{at['d']}), no bias, y = <beta*, x> + "
                  f"{NOISE} xi, |beta*| = 1; BF25's start at lam = {LAM:.0e}, m = 2n; the "
                  "exact flow of L = (1/(2n)) sum (h - y)^2 to the family's horizon. Below "
                  "some n the flow interpolates (final loss below "
                  f"{FIT_LEVEL:g}); above, it stops near the OLS fit (its loss at or below "
                  "the OLS residual loss: two ReLU directions can do slightly better than one "
                  "line) and its test loss approaches the Bayes risk sigma^2/2."),
        Figure(figure, "final training loss (blue), test loss (red) and OLS residual loss "
               "(green) against n, each draw a dot, medians joined; dashed: sigma^2/2"),
        Paragraph("Medians over the draws at each n. 'motion' is the training loss's range "
                  "over the run's last quarter: a run still moving has a final loss above its "
                  "limit by at most about that much."),
        Table(["n", "m", "interpolating runs", "final training loss", "motion (last quarter)",
               "OLS residual loss", "OLSGap at the end", "test loss"], table),
    ]
