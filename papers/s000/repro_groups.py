"""Report section E-000-5 / S000-T2: phase transitions under the group initialisation.

The published illustration (R's ``phase_transition.py``, THEORY E-000-5): orthogonal data
in p = 2 groups with label norms ||y_{G_g}|| = beta_g sqrt(n), beta = (1, 2), one aligned
balanced neuron per group with ||w_g(0)||^2 = N_0 = 1, the loss sum_g L_g / p against
time. The network learns the fast group (beta = 2) first, then the slow one (beta = 1),
each in a window whose length relative to its time shrinks like 1/log n (S000-T2).

Two sources, each checked against the other:

- the closed form CF-7 as written in `theory.closed_forms` (``group_norm_aligned``,
  ``group_loss``, ``group_transition_time``, ``group_relative_width``), lambdified. It
  depends on n only through numbers, so it reaches the figure's n = 100 + floor(e^42)
  ~ 1.74e18 and beyond (no Problem with that many samples can be built);
- at moderate n, real trajectories: `numerics.generators.group` (aligned, scale 1, group
  norms beta sqrt(n)) simulated by `numerics.ExactFlow` (pattern-exact DOP853, with its
  companion run at a 10x looser tolerance) and by `numerics.ClosedForm` (the same CF-7 in
  numpy, with an mpmath companion), on the same saved times.

Simulations use the mean-field flow (kappa = p); E-000-5 uses plain-GF time (kappa = 1).
Time only rescales (CF-1, ``unit_flow_time``), and every number reported here is a ratio
of times, so both give the same values.

The parts: `papers.s000.groups_model` (setting, profiles, CF-7 lambdified),
`groups_sim` (runs and the width fit), `groups_figures`, `groups_text` (findings and
blocks); this module runs them in order.

Definitions (the text of the section repeats them):

- t_g(q): first time the squared norm N_g of group g's neuron reaches q p Y_g, a fraction
  q of its capacity (THEORY S000-T2, `papers.s000.measures.transition_times`);
- relative width W_g = (t_g(0.9) - t_g(0.1)) / t_g(0.5) (``transition_width``, eps = 0.1);
- loss-drop width W^L_g: the same with T_g(f), the first time group g's loss has made a
  fraction f of its drop L_g(0) -> 0 (the width a reader of the loss plot sees);
- drop times: T_g(1/2); the table's t_2/t_1 is the fast group's over the slow group's.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from papers.s000.groups_figures import loss_figure, width_figure
from papers.s000.groups_model import (
    ASYMPTOTIC_N,
    BETAS,
    CURVE_POINTS,
    EPS,
    EXPERIMENT,
    FIGURE_N,
    GAP_TOL,
    LOSS_DROP,
    N0,
    PAPER_LIMIT,
    PAPER_RATIO,
    PROFILES,
    S_PLOT,
    VERDICT_RANGES,
    P,
    cf7,
    closed_form_curve,
    closed_form_point,
)
from papers.s000.groups_sim import (
    fit_inverse_width,
    shrinks_like_inverse_log,
    simulated_point,
    t2_verdict,
)
from papers.s000.groups_text import public, section_blocks, section_findings
from verify.report.reproduction import Reproduction
from verify.running.profiles import per_profile
from verify.running.progress import Progress


# -- the section -------------------------------------------------------------------------------
def run(out: Path, profile: str, seed: int = 0, show_progress: bool = True,
        store=None) -> Reproduction:
    """E-000-5 and S000-T2 (``store`` is not used: the closed form and the few flows are
    cheaper than a sweep store).

    Long on purpose: it runs the section's steps in order under one progress bar (closed
    form at every n, runs, fits, checks, figures) and collects their numbers in one place;
    the steps themselves live in groups_model, groups_sim, groups_figures, groups_text."""
    settings = per_profile(PROFILES, profile, "E-000-5 sizes")
    start = time.perf_counter()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    cf_ns = sorted([10.0**k for k in settings.cf_exponents] + [FIGURE_N], key=float)
    work = 1 + len(cf_ns) + len(settings.sim_ns) + 2
    with Progress(work, f"{EXPERIMENT} group transitions", enabled=show_progress) as bar:
        f = cf7()
        K_limit = float(f.width_log_limit)
        ratio_limit = float(f.ratio_limit)
        bar.advance()
        points = []
        for nv in cf_ns:
            points.append(closed_form_point(nv))
            bar.advance()
        sims = []
        for k, nv in enumerate(settings.sim_ns):
            sims.append(simulated_point(nv, seed + k, settings))
            bar.advance()
        s = np.linspace(0.0, S_PLOT, CURVE_POINTS)
        curves = [closed_form_curve(nv, s) for nv in settings.curve_ns]
        loss_png = loss_figure(curves, sims, out / "e000_5_group_loss.png")
        bar.advance()

        # widths: fits of 1/W on ln n (closed form, asymptotic and whole range; simulations)
        asym = [p for p in points if p["n"] >= ASYMPTOTIC_N]
        fits = {
            "asymptotic": [fit_inverse_width([p["log_n"] for p in asym],
                                             [p["groups"][g]["width_measured"] for p in asym])
                           for g in range(P)],
            "all_closed_form": [fit_inverse_width([p["log_n"] for p in points],
                                                  [p["groups"][g]["width_measured"]
                                                   for p in points]) for g in range(P)],
            "simulated": [fit_inverse_width([math.log(r["n"]) for r in sims],
                                            [r["width_flow"][g] for r in sims]) for g in range(P)],
        }
        decision = {key: [shrinks_like_inverse_log(fit, K_limit) for fit in fl]
                    for key, fl in fits.items()}
        verdicts = [t2_verdict([r["n"] for r in sims for _ in BETAS],
                                [w for r in sims for w in r["width_flow"]],
                                f"ExactFlow, n = {sims[0]['n']}..{sims[-1]['n']}")]
        for lo in VERDICT_RANGES:
            sel = [p for p in points if p["n"] >= lo]
            verdicts.append(t2_verdict([p["n"] for p in sel for _ in BETAS],
                                        [G["width_measured"] for p in sel for G in p["groups"]],
                                        f"closed form, n = {lo:.0e}..{sel[-1]['n']:.0e}"))
        width_png = width_figure(points, sims, fits, K_limit, out / "e000_5_group_width.png")
        bar.advance()

    fig_point = next(p for p in points if p["n"] == float(FIGURE_N))
    ratios_cf = [p["ratio_cf7_half_capacity"] for p in points]
    ratios_measured = [p["ratio_measured_half_drop"] for p in points]
    ratios_flow = [r["ratio_flow"] for r in sims]
    monotone = {
        "cf7_half_capacity": bool(np.all(np.diff(ratios_cf) < 0)),
        "measured_half_drop": bool(np.all(np.diff(ratios_measured) < 0)),
        "flow_half_drop": bool(np.all(np.diff(ratios_flow) < 0)),
        "flow_half_capacity": bool(np.all(np.diff([r["ratio_flow_capacity"] for r in sims])
                                          < 0)),
    }
    gaps = {key: max(r[key] for r in sims) for key in
            ("gap_state", "gap_loss", "gap_width", "gap_loss_width", "gap_t_half",
             "gap_theory_numerics")}
    flow_errors = {key: max(r[key] for r in sims) for key in
                   ("flow_error_estimate", "flow_loss_error", "flow_nominal_error",
                    "closed_form_error_estimate")}
    within_tolerance = all(v <= GAP_TOL for v in gaps.values())
    within_error = all(r["gap_state"] <= 3 * r["flow_error_estimate"] + r["flow_nominal_error"]
                       for r in sims)
    findings = section_findings(points, sims, fig_point, within_tolerance, gaps)
    blocks = section_blocks(points, sims, fits, decision, verdicts, fig_point, K_limit, ratio_limit,
                     gaps, flow_errors, within_error, monotone, loss_png, width_png, settings)
    data = {
        "experiment": EXPERIMENT, "claims": ["S000-T2", "CF-7"], "profile": profile,
        "seed": seed, "setting": {"p": P, "beta": list(BETAS), "N0": N0, "aligned": True,
                                  "figure_n": str(FIGURE_N), "width_eps": EPS,
                                  "loss_drop_levels": list(LOSS_DROP)},
        "limits": {"ratio": ratio_limit, "width_times_log_n": K_limit,
                   "ratio_sympy": str(f.ratio_limit), "K_sympy": str(f.width_log_limit)},
        "paper": {"ratio_at_figure_n": PAPER_RATIO, "ratio_limit": PAPER_LIMIT},
        "figure_n_point": public(fig_point),
        "closed_form": [public(p) for p in points],
        "simulated": [{k: v for k, v in r.items() if not k.startswith("_")} for r in sims],
        "fits": fits, "shrinks_like_inverse_log": decision, "s000_t2_verdicts": verdicts,
        "ratio_monotone_decreasing": monotone,
        "gaps": gaps, "gap_tolerance": GAP_TOL, "gaps_within_tolerance": within_tolerance,
        "gaps_within_error_estimate": within_error, "error_estimates": flow_errors,
        "figures": [loss_png.name, width_png.name],
    }
    wall = time.perf_counter() - start
    data["wall_time"] = wall
    return Reproduction(experiment=EXPERIMENT,
                        title="phase transitions under the group initialisation",
                        blocks=blocks, figures=(loss_png, width_png), data=data,
                        wall_time=wall, findings=tuple(findings))


