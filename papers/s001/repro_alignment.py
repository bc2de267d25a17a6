"""Reproduction of S001's experiments (THEORY section 5): E-001-2 (alignment on separable
data, App. A.1-A.2, with Theorem 1's t_1 = O(log n / sqrt(mu))), E-001-1 (centred
two-digit data, section 4, Fig. 5; scikit-learn's bundled 8x8 digits stand in for MNIST)
and E-001-3 (two phases, both layers against the first layer only, App. A.5).

What is simulated, and with which error estimate:

- A.1 protocol (E-001-2): mu-separated data (``generators.separable``), h = 50 neurons,
  the paper's unbalanced N(0, alpha^2) initialisation with alpha = 1e-6, exponential sum
  loss, integrated by the exact flow (``ExactFlow``, companion at 10x looser tolerance);
  flow time t is shown as GD iteration t / eta at the paper's step eta = 2e-3, and one
  instance is also run by ``GradientDescent`` at eta = 2e-3 (measured against its
  half-step companion).
- t_1 over (n, mu): the theorem's setting (balanced initialisation I-001-bal at
  eps = 1e-100, log-norm coordinates, so the alignment phase is not cut short by norm
  growth). t_1 is the first time every neuron is in S_+ or S_dead (V_+) or S_- or S_dead
  (V_-), located exactly at the activation event that sorts the last neuron.
- A.2: the two-point toys mu = sin 0.1 and sin 0.001, A.1's protocol, several seeds.
- E-001-1: centred digits 0/1, h = 50, alpha = 1e-6, GD at eta = 2e-3 for 15000 iterations
  on the *mean* exponential loss (loss_scale 1/n; see the section for why), against its
  half-step companion. The exact flow meets sliding modes on non-separable data.
- E-001-3: the same data and model, both layers against the first layer only (v = +-1
  fixed), by minibatch SGD at eta = 2e-3 (batches of n/6, float32 companion); norm and
  direction changes per epoch (`papers.s001.e001_3`).

The runs and figures are in `papers.s001.e001_2`, `papers.s001.e001_1` and `e001_3`, the section
text in `papers.s001.e001_2_text` and `e001_1`, the shared settings and measurements in
`papers.s001.alignment`; this module runs them in order under one progress bar.

V_+-(t) = {j : sign a_j(t) = +-1} (the paper's definition for unbalanced initialisation;
equal to sign a_j(0) on balanced flows, S001-F1).
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np

from numerics import ExactFlow, GradientDescent, simulate
from papers.s001 import e001_3
from papers.s001.alignment import PAPER_LR, Settings, clean, settings_for
from papers.s001.e001_1 import (
    digits_figure,
    digits_problem,
    digits_sum_loss_check,
    digits_summary,
    e001_1_blocks,
)
from papers.s001.e001_2 import (
    a1_figure,
    a1_problem,
    a1_summary,
    grid_figure,
    grid_fits,
    grid_run,
    toy_figure,
    toy_run,
)
from papers.s001.e001_2_text import e001_2_blocks
from verify.report.doc import Paragraph
from verify.report.reproduction import Reproduction
from verify.running.progress import Progress


def run(out: Path, profile: str, seed: int = 0, show_progress: bool = True, store=None,
        settings: Settings | None = None) -> Reproduction:
    """Simulate E-001-2 and E-001-1, write their figures into ``out``, return the section.

    ``settings`` overrides the profile's sizes (tests use a smaller one); ``store`` is
    accepted for the common interface and not used (nothing here reads a sweep).

    Long on purpose: the experiments' runs in order under one progress bar, each a call
    into `papers.s001.e001_2` or `papers.s001.e001_1`."""
    import torch

    s = settings if settings is not None else settings_for(profile)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    grid = [(n, mu, seed * 1000 + k) for n in s.grid_n for mu in s.grid_mu
            for k in range(s.grid_seeds)]
    total = len(s.a1_mu) + int(s.a1_gd_iterations > 0) + len(grid) + 2 * s.toy_seeds + 4
    try:
        with Progress(total, "E-001 reproduction", enabled=show_progress) as bar:
            # E-001-2 (a)
            it_a1 = np.arange(0, s.a1_iterations + 1, s.a1_stride)
            a1, a1_runs = [], {}
            for mu in s.a1_mu:
                tr = simulate(a1_problem(s, mu, seed), ExactFlow(rtol=1e-9), it_a1 * PAPER_LR)
                a1.append(a1_summary(tr, it_a1))
                a1_runs[mu] = tr
                bar.advance()
            main_mu = min(s.a1_mu, key=lambda m: abs(m - 0.5))
            a1_gd = None
            if s.a1_gd_iterations:
                it_gd = it_a1[it_a1 <= s.a1_gd_iterations]
                tr_gd = simulate(a1_problem(s, main_mu, seed), GradientDescent(lr=PAPER_LR),
                                 it_gd * PAPER_LR)
                a1_gd = a1_summary(tr_gd, it_gd)
                a1_gd["iterations"] = int(it_gd[-1])
                a1_gd["flow_stable_rank_there"] = float(
                    a1_runs[main_mu].stable_rank[len(it_gd) - 1])
                bar.advance()
            figs = {"a1": a1_figure(a1_runs[main_mu], it_a1,
                                     a1[s.a1_mu.index(main_mu)], out / "e001_2_alignment.png")}
            # E-001-2 (b)
            grid_rows = []
            for n, mu, sd in grid:
                grid_rows.append(grid_run(s, n, mu, sd))
                bar.advance()
            fits = grid_fits(grid_rows)
            figs["grid"] = grid_figure(grid_rows, fits, out / "e001_2_t1_scaling.png")
            # E-001-2 (c)
            toys, examples = [], []
            for angle in (0.1, 0.001):
                shown = None
                for k in range(s.toy_seeds):
                    tr, info = toy_run(s, angle, seed + k)
                    toys.append(info)
                    stuck = info["outside"]["end"]["outside"] > 0
                    if shown is None or (stuck and not shown[2]):
                        shown = (tr, info, stuck)
                    bar.advance()
                examples.append(shown[:2])
            figs["toy"] = toy_figure(examples, s, out / "e001_2_separability.png")
            # E-001-1
            pr = digits_problem(s, seed)
            it_d = np.arange(0, s.digits_iterations + 1, s.digits_stride)
            tr_d = simulate(pr, GradientDescent(lr=PAPER_LR), it_d * PAPER_LR)
            digits = digits_summary(tr_d, it_d)
            figs["digits"] = digits_figure(tr_d, it_d, digits, out / "e001_1_digits.png")
            bar.advance()
            sum_check = digits_sum_loss_check(s, seed)
            bar.advance()
            # E-001-3
            two_phase = {}
            for name, problem in e001_3.problems(s, seed).items():
                two_phase[name] = e001_3.sgd_run(problem, s.e001_3_iterations, seed)
                bar.advance()
            figs["two_phases"] = e001_3.figure(two_phase, out / "e001_3_two_phases.png")
            phases = {name: e001_3.summary(*run) for name, run in two_phase.items()}
    finally:
        torch.set_num_threads(threads)
    b2, f2 = e001_2_blocks(a1, a1_gd, grid_rows, fits, toys, figs, s)
    b1, f1 = e001_1_blocks(digits, sum_check, figs["digits"], s)
    b3, f3 = e001_3.blocks(phases, figs["two_phases"])
    wall = time.perf_counter() - start
    blocks = b2 + b1 + b3 + [Paragraph(f"E-001 reproduction: profile `{profile}`, seed {seed}, "
                              f"{wall:.1f} s wall time on one torch thread.")]
    data = clean({"profile": profile, "seed": seed, "settings": dataclasses.asdict(s),
                   "E-001-2": {"a1": a1, "a1_gd": a1_gd, "grid": grid_rows, "fits": fits,
                               "toys": toys},
                   "E-001-1": {"digits": digits, "sum_loss_check": sum_check},
                   "E-001-3": phases,
                   "figures": {k: v.name for k, v in figs.items()}, "wall_time": wall})
    return Reproduction(experiment="E-001-2, E-001-1, E-001-3",
                        title="S001: early alignment on separable data and centred digits",
                        blocks=blocks, figures=tuple(figs.values()), data=data,
                        wall_time=wall, findings=tuple(f2 + f1 + f3))
