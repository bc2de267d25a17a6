"""E-000-5 at moderate n on real trajectories (`numerics.ExactFlow` and
`numerics.ClosedForm` on `generators.group`), and the fit of the relative widths against
1/log n with its interval (`papers.s000.repro_groups`).
"""

from __future__ import annotations

import math
import time

import mpmath as mpm
import numpy as np

import theory
from numerics import ClosedForm, ExactFlow, generators, simulate
from numerics.coordinates import relative_difference
from papers.s000 import measures as m0
from papers.s000.groups_model import BETAS, EPS, LOSS_DROP, N0, S_MAX_SIM, P, Settings, cf7, num
from verify import check
from verify.engine.evidence import ScalingData
from verify.engine.scaling import line_fit


# -- simulations at moderate n -----------------------------------------------------------------
def group_problem(n_value: int, seed: int):
    """E-000-5's instance at n: `generators.group`, 2 contiguous groups, aligned, N_0 = 1,
    ||y_G|| = beta sqrt(n), mean-field network and flow (kappa = p)."""
    return generators.group(n=n_value, groups=P, seed=seed, scale=math.sqrt(N0), aligned=True,
                            group_norms=[b * math.sqrt(n_value) for b in BETAS])


def _group_loss(tr, G) -> np.ndarray:
    """L_G(t) = (1/(2n)) sum_{i in G} r_i(t)^2 (the loss restricted to a group's samples)."""
    return tr.problem.loss_scale * 0.5 * np.sum(tr.residuals[:, G] ** 2, axis=-1) / tr.problem.n


def _first_below(t: np.ndarray, values: np.ndarray, level: float) -> float:
    """First time a decreasing series reaches ``level`` (linear interpolation between saved
    times); inf if it never does."""
    k = int(np.argmax(values <= level))
    if values[k] > level:
        return float("inf")
    if k == 0:
        return float(t[0])
    return float(t[k - 1] + (values[k - 1] - level) * (t[k] - t[k - 1])
                 / (values[k - 1] - values[k]))


def _trajectory_measures(tr, groups) -> dict:
    """Widths, half-drop times and group losses measured on one trajectory."""
    out = []
    for j, G in enumerate(groups):
        Y = float(np.linalg.norm(tr.problem.y[G]))
        capacity = Y / tr.problem.output_factor  # q ||y_G|| with q = 1/output_factor = p
        t_cap = m0.transition_times(tr, [j], capacity, (EPS, 0.5, 1 - EPS))
        Lg = _group_loss(tr, G)
        t_loss = [_first_below(tr.t, Lg, (1 - fr) * Lg[0]) for fr in LOSS_DROP]
        out.append({"Y": Y, "capacity": capacity, "t_half": t_cap[1],
                    "width": m0.transition_width(tr, [j], capacity, EPS),
                    "loss_width": (t_loss[2] - t_loss[0]) / t_loss[1],
                    "t_half_drop": t_loss[1]})
    return {"groups": out, "ratio_half_drop": out[1]["t_half_drop"] / out[0]["t_half_drop"],
            "ratio_half_capacity": out[1]["t_half"] / out[0]["t_half"]}


def simulated_point(n_value: int, seed: int, settings: Settings) -> dict:
    """ExactFlow and ClosedForm on the same saved times; their gaps and error estimates."""
    f = cf7()
    pr = group_problem(n_value, seed)
    groups = m0.groups_of(pr)
    kappa = pr.flow_factor
    Y_slow = float(np.linalg.norm(pr.y[groups[0]]))
    t1 = float(f.time(0.5, N0, Y_slow, n_value, P, kappa))
    t = np.linspace(0.0, S_MAX_SIM * t1, settings.sim_points)
    start = time.perf_counter()
    flow = simulate(pr, ExactFlow(), t)
    wall_flow = time.perf_counter() - start
    start = time.perf_counter()
    closed = simulate(pr, ClosedForm(companion_digits=None), t)
    # ClosedForm's error estimate (float64 against mpmath at 30 digits) on a coarser grid:
    # its companion costs O(T p d) mpmath operations
    coarse = simulate(pr, ClosedForm(), np.linspace(0.0, S_MAX_SIM * t1,
                                                    settings.companion_points))
    wall_closed = time.perf_counter() - start
    L0 = float(closed.loss[0])
    fm, cm = _trajectory_measures(flow, groups), _trajectory_measures(closed, groups)
    # theory's lambdified N(t) against numerics' ClosedForm: the link from the huge-n
    # evaluation (theory) to the trajectories (numerics)
    theory_gap = max(
        float(np.max(np.abs(f.norm(t, N0, G["Y"], n_value, P, kappa)
                            - closed.group_norm_sq([j])) / G["capacity"]))
        for j, G in enumerate(cm["groups"]))
    with mpm.workdps(30):
        width_formula = [float(f.width(EPS, N0, G["Y"], P)) for G in cm["groups"]]
    return {
        "n": n_value, "seed": seed, "problem": pr.describe(), "kappa": kappa,
        "t1": t1, "horizon": float(t[-1]), "points": len(t),
        "flow_status": flow.status.name, "flow_steps": flow.n_steps,
        "flow_error_estimate": num(flow.error_estimate),
        "flow_nominal_error": num(flow.nominal_error),
        "flow_loss_error": num(np.max(flow.error_of(lambda tr: tr.loss)) / L0),
        "closed_form_error_estimate": num(coarse.error_estimate),
        "gap_state": num(relative_difference(flow.W, flow.a, closed.W, closed.a)),
        "gap_loss": num(np.max(np.abs(flow.loss - closed.loss)) / L0),
        "gap_width": max(abs(a["width"] - b["width"])
                         for a, b in zip(fm["groups"], cm["groups"], strict=True)),
        "gap_loss_width": max(abs(a["loss_width"] - b["loss_width"])
                              for a, b in zip(fm["groups"], cm["groups"], strict=True)),
        "gap_t_half": max(abs(a["t_half"] - b["t_half"]) / b["t_half"]
                          for a, b in zip(fm["groups"], cm["groups"], strict=True)),
        "gap_theory_numerics": theory_gap,
        "width_formula": width_formula,
        "width_flow": [G["width"] for G in fm["groups"]],
        "width_closed": [G["width"] for G in cm["groups"]],
        "loss_width_flow": [G["loss_width"] for G in fm["groups"]],
        "ratio_flow": fm["ratio_half_drop"], "ratio_closed": cm["ratio_half_drop"],
        "ratio_flow_capacity": fm["ratio_half_capacity"],
        "ratio_closed_capacity": cm["ratio_half_capacity"],
        "wall_flow": wall_flow, "wall_closed": wall_closed,
        "_curves": {"s": t / t1, "flow": flow.loss / P, "closed": closed.loss / P,
                    "gap": np.abs(flow.loss - closed.loss) / L0,
                    "err": flow.error_of(lambda tr: tr.loss) / L0},
    }


# -- the width fit -------------------------------------------------------------------------------
def fit_inverse_width(log_n, widths, level: float = 0.95) -> dict:
    """OLS of 1/W on ln n. CF-7 gives 1/W = (ln n + c)/K up to O(n^-1/2), i.e. W = K x/(1 + c x)
    with x = 1/ln n: K is the slope of W against 1/ln n at x -> 0 and c the pre-asymptotic
    correction (2 ln(2 beta) for these groups). Returns K and c with t-intervals (K's from the
    slope's interval), and the straight-line fit W = a + b x over the same points."""
    x = np.asarray(log_n, dtype=float)
    w = np.asarray(widths, dtype=float)
    inv, inv_c, _ = line_fit(x, 1.0 / w, level)
    K = 1.0 / inv.value
    K_lo = 1.0 / inv.hi if inv.hi > 0 else float("nan")
    K_hi = 1.0 / inv.lo if inv.lo > 0 else float("inf")
    line, line_c, _ = line_fit(1.0 / x, w, level)
    return {
        "K": K, "K_lo": K_lo, "K_hi": K_hi, "c": inv_c.value * K,
        "c_lo": inv_c.lo * K, "c_hi": inv_c.hi * K,
        "inverse_slope": inv.value, "inverse_slope_lo": inv.lo, "inverse_slope_hi": inv.hi,
        "line_slope": line.value, "line_slope_lo": line.lo, "line_slope_hi": line.hi,
        "line_intercept": line_c.value, "line_intercept_lo": line_c.lo,
        "line_intercept_hi": line_c.hi,
        "points": len(x), "n_min": float(np.exp(x.min())), "n_max": float(np.exp(x.max())),
        "level": level,
    }


K_TOL = 0.05  # relative distance of the fitted K from 4 ln 9 accepted as "the same constant"


def shrinks_like_inverse_log(fit: dict, K_limit: float, tol: float = K_TOL) -> dict:
    """The decision of the section: 1/W grows linearly in ln n with a positive slope whose
    interval excludes 0 (``no_floor``: W -> 0), and the fitted K = lim W ln n lies within
    ``tol`` (relative) of CF-7's limit K_limit (``K_close``); ``shrinks`` needs both."""
    no_floor = bool(fit["inverse_slope_lo"] > 0 and math.isfinite(fit["K_hi"]))
    close = bool(abs(fit["K"] / K_limit - 1) <= tol)
    return {"no_floor": no_floor, "K_close": close, "shrinks": no_floor and close,
            "K_relative_error": fit["K"] / K_limit - 1}


def t2_verdict(xs, ys, description: str) -> dict:
    """The catalogue's S000-T2 (W = K/log n) checked by `verify.check` on these widths."""
    v = check(theory.get("S000-T2"), ScalingData("n", xs, ys, "TransitionWidth",
                                                 description=description))
    beta = (v.figure_data or {}).get("beta")
    return {"outcome": v.outcome.value, "fitted_exponent": num(v.observed),
            "claimed_exponent": num(v.predicted), "shape_exponent": beta,
            "shape_interval": (v.figure_data or {}).get("beta_ci"), "reason": v.reason,
            "description": description}


