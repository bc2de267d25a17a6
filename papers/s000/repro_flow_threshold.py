"""Report section "E-000-2 by the gradient flow": the published threshold experiment, run by
the exact flow on the same instances as gradient descent at the published step.

Both sweeps draw their instances from the same generator, grid points and seeds
(`papers/s000/protocols/exp1_1.toml` for descent at lr = 1, `exp1_1_flow.toml` for the flow), so
every flow run has a descent twin with the same data and initialisation. The flow runs
for the protocol's time (lr times its epoch budget) through sliding modes and succeeds
when L(T) <= 1/(2n); descent succeeds as published. Per (d, n) the two success counts are
shown with 95% Clopper-Pearson intervals and the paired disagreements (flow-only and
descent-only successes) with an exact McNemar test; per d, both thresholds come from the
same logistic fit as the E-000-2 section. A flow run that did not finish (status other
than SUCCESS) or whose final loss is within its error estimate of 1/(2n) is undecided and
left out of the pairs (counted and shown).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
from scipy import stats

from papers.s000.repro_threshold import cell_text, logistic_threshold, protocol_rows
from papers.s000.repro_threshold import sweep_config as descent_config
from verify.engine.scaling import binomial_interval
from verify.report.doc import Block, Figure, Heading, Paragraph, Table
from verify.report.reproduction import Reproduction
from verify.results.figures import pyplot, save_png
from verify.sweep import load_config, run_sweep

CONFIG = Path(__file__).resolve().parent / "protocols" / "exp1_1_flow.toml"
# quick profile: d = 10 (published threshold ~ 29), n below it and past it, 8 seeds (16
# flows of 2 to 15 s each); the full profile runs the whole config
QUICK = {"d": (10,), "n": (20, 40), "seeds": 8}
# a paired difference is reported as a finding only when McNemar's test rejects at this level
SIGNIFICANCE = 0.05


def flow_config(profile: str):
    config = load_config(CONFIG)
    if profile not in ("full", "paper"):  # full and paper: the whole published config
        config.grids = [dict(g, n=[n for n in g["n"] if n in QUICK["n"]])
                        for g in config.grids if g["d"][0] in QUICK["d"]]
        config.seeds = config.seeds[:QUICK["seeds"]]
        config.name = "exp1_1_flow-quick"
    return config


def _decided(row: dict) -> bool:
    """The flow row's success flag is decided: the run finished and its final loss is
    farther from 1/(2n) than its error (relative state error e moves L by at most ~4e)."""
    if row["status"] != "success" or row["final_loss"] is None:
        return False
    err = row["error_estimate"]
    if err is None or not math.isfinite(err):
        return False
    level = 2 * row["n"] * row["final_loss"]
    return abs(level - 1.0) > 4.0 * err * level


def pair_rows(flow_rows: list[dict], descent_rows: list[dict]) -> dict:
    """(d, n) -> counts of the paired instances (same generator parameters and seed)."""
    descent = {(r["d"], r["n"], r["seed"]): r for r in descent_rows}
    points: dict = {}
    for r in flow_rows:
        key = (r["d"], r["n"])
        pt = points.setdefault(key, {"d": key[0], "n": key[1], "pairs": 0, "flow": 0, "gd": 0,
                                     "flow_only": 0, "gd_only": 0, "undecided": 0})
        twin = descent.get((r["d"], r["n"], r["seed"]))
        if twin is None:
            continue
        if not _decided(r):
            pt["undecided"] += 1
            continue
        f, g = bool(r["success"]), bool(twin["success"])
        pt["pairs"] += 1
        pt["flow"] += f
        pt["gd"] += g
        pt["flow_only"] += f and not g
        pt["gd_only"] += g and not f
    for pt in points.values():
        pt["mcnemar_p"] = mcnemar(pt["flow_only"], pt["gd_only"])
        if pt["pairs"]:
            pt["flow_interval"] = list(binomial_interval(pt["flow"], pt["pairs"]))
            pt["gd_interval"] = list(binomial_interval(pt["gd"], pt["pairs"]))
    return points


def mcnemar(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value for b and c discordant pairs (1 when there are none)."""
    if b + c == 0:
        return 1.0
    return float(min(1.0, 2 * stats.binom.cdf(min(b, c), b + c, 0.5)))


def _thresholds(points: dict, key: str) -> dict:
    out = {}
    for d in sorted({d for d, _ in points}):
        pts = [points[k] for k in sorted(points) if k[0] == d and points[k]["pairs"]]
        if pts:
            out[d] = logistic_threshold(np.array([p["n"] for p in pts]),
                                        np.array([p[key] for p in pts]),
                                        np.array([p["pairs"] for p in pts]))
    return out


def run(out: Path, profile: str, seed: int = 0, show_progress: bool = True,
        store: Path | None = None, reference=None) -> Reproduction:
    """Run (or read) both sweeps on the section's grid and compare them pair by pair.
    ``seed`` is unused: the seeds are the protocol's."""
    start = time.perf_counter()
    out = Path(out)
    store = Path(store) if store is not None else out / "store"
    fconfig = flow_config(profile)
    d_values = sorted(g["d"][0] for g in fconfig.grids)
    gconfig = descent_config(profile, d_values)
    gconfig.seeds = fconfig.seeds
    gconfig.grids = [dict(g, n=[n for n in g["n"] if any(n in f["n"] for f in fconfig.grids
                                                          if f["d"] == g["d"])])
                     for g in gconfig.grids]
    flow_result = run_sweep(fconfig, store, progress=show_progress)
    run_sweep(gconfig, store, progress=show_progress)
    flow_rows = protocol_rows(store, fconfig)
    points = pair_rows(flow_rows, protocol_rows(store, gconfig))
    total = {k: sum(p[k] for p in points.values())
             for k in ("pairs", "flow", "gd", "flow_only", "gd_only", "undecided")}
    total["mcnemar_p"] = mcnemar(total["flow_only"], total["gd_only"])
    differ = [p for p in points.values() if p["mcnemar_p"] < 0.05]
    n_flow, n_gd = _thresholds(points, "flow"), _thresholds(points, "gd")
    statuses = sorted({r["status"] for r in flow_rows if r["status"] != "success"})
    fig = out / "e000_2_flow_probability.png"
    _figure(points, fig)
    data = {"profile": profile, "config": str(CONFIG), "d_values": d_values,
            "seeds": list(fconfig.seeds), "store": str(store),
            "computed": flow_result.computed, "stored_before": flow_result.stored_before,
            "points": [points[k] for k in sorted(points)], "total": total,
            "differ": [(p["d"], p["n"]) for p in differ], "threshold_flow": n_flow,
            "threshold_gd": n_gd, "flow_failures": statuses,
            "flow_wall_median": float(np.median([r["wall_time"] for r in flow_rows]))
            if flow_rows else None, "wall_time": time.perf_counter() - start}
    finding = _finding(data)
    return Reproduction("E-000-2 (flow)", "convergence threshold by the gradient flow",
                        _blocks(data, fig), (fig,), data, data["wall_time"],
                        (finding,) if finding else ())


def _threshold_words(x) -> str:
    """A threshold in a sentence: its value, or that the grid never crosses 1/2."""
    text = cell_text(x)
    return "not crossed on this grid" if text == "-" else text


def _comparison(data) -> str:
    """What the paired counts say, with the test that decides it."""
    t = data["total"]
    if not t["pairs"]:
        return "No paired instance was decided: nothing is compared."
    counts = (f"of {t['pairs']} paired instances, {t['flow_only']} converge under the flow but "
              f"not under GD at lr = 1 and {t['gd_only']} the reverse (exact McNemar "
              f"p = {t['mcnemar_p']:.2g}; {len(data['differ'])} (d, n) points differ at the 5% "
              f"level on their own); thresholds " + "; ".join(
                  f"d = {d}: N_flow = {_threshold_words(data['threshold_flow'].get(d))}, "
                  f"N_GD = {_threshold_words(data['threshold_gd'].get(d))}"
                  for d in data["d_values"]))
    if t["mcnemar_p"] < SIGNIFICANCE:
        return ("Gradient descent at the published step lr = 1 is not the gradient flow on "
                f"these instances: {counts}.")
    if t["flow_only"] + t["gd_only"] == 0:
        return f"The flow and gradient descent at lr = 1 agree on every instance: {counts}."
    return (f"Not decided at the {SIGNIFICANCE:.0%} level (too few discordant pairs for a "
            f"difference to be told from chance): {counts}.")


def _finding(data) -> str:
    """A finding only when the paired test rejects "GD at lr = 1 behaves as the flow"."""
    if data["total"]["pairs"] and data["total"]["mcnemar_p"] < SIGNIFICANCE:
        return "E-000-2 by the flow: " + _comparison(data)
    return ""


def _interval(p, key) -> str:
    if not p["pairs"]:
        return "-"
    lo, hi = p[f"{key}_interval"]
    return f"{p[key]}/{p['pairs']} [{lo:.2f}, {hi:.2f}]"


def _blocks(data, fig) -> list[Block]:
    t = data["total"]
    b: list[Block] = [
        Heading(2, "Reproduction E-000-2 by the gradient flow: the threshold under the flow"),
        Paragraph(
              "The instances of E-000-2 (same generator, grid points and seeds, so the same data "
              "and initialisations; p = 30) simulated by the exact gradient flow through "
              "sliding modes, for the protocol's time lr x epoch budget with lr = 1, next to "
              "gradient descent at the published lr = 1 on the same instances. Success: L <= "
              "1/(2n) at the end of the budget. Sweep "
              f"`{Path(data['config']).name}` at d in {data['d_values']}, seeds "
              f"{data['seeds'][0]}..{data['seeds'][-1]} ({data['computed']} flows computed "
              f"now, {data['stored_before']} read from `{data['store']}`; median flow "
              f"{cell_text(data['flow_wall_median'], '.1f')} s with its companion run)."),
        Paragraph(f"Paired instances: **{t['pairs']}**; both converge or both fail on "
              f"{t['pairs'] - t['flow_only'] - t['gd_only']}; the flow alone converges on "
              f"**{t['flow_only']}**, descent alone on **{t['gd_only']}** (exact McNemar "
              f"p = {t['mcnemar_p']:.2g}). Undecided flows (not finished, or final loss within "
              f"the error of 1/(2n)): {t['undecided']}"
              + (f" ({', '.join(data['flow_failures'])})" if data["flow_failures"] else "")
              + "."),
        Figure(fig, "success probability against n, flow and gradient descent at lr = 1"),
        Table(["d", "n", "flow (95% CI)", "GD lr = 1 (95% CI)", "flow only", "GD only",
                   "McNemar p", "undecided"],
         [[str(p["d"]), str(p["n"]), _interval(p, "flow"), _interval(p, "gd"),
           str(p["flow_only"]), str(p["gd_only"]), f"{p['mcnemar_p']:.2g}", str(p["undecided"])]
          for p in data["points"]]),
        Table(["d", "N(d) flow", "N(d) GD lr = 1 (same instances)"],
         [[str(d), cell_text(data["threshold_flow"].get(d)), cell_text(data["threshold_gd"].get(d))]
          for d in data["d_values"]]),
    ]
    b.append(Paragraph(_comparison(data) + " A threshold shown as - is not crossed on this grid "
                   "(the success fraction stays on one side of 1/2)."))
    return b


def _figure(points: dict, path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.0, 4.0))
    ds = sorted({d for d, _ in points})
    colors = plt.cm.viridis(np.linspace(0, 0.8, max(len(ds), 1)))
    for d, c in zip(ds, colors, strict=True):
        pts = [points[k] for k in sorted(points) if k[0] == d and points[k]["pairs"]]
        n = np.array([p["n"] for p in pts])
        for key, style, name in (("flow", "-o", "flow"), ("gd", "--x", "GD lr = 1")):
            frac = np.array([p[key] / p["pairs"] for p in pts])
            err = np.array([[f - p[f"{key}_interval"][0], p[f"{key}_interval"][1] - f]
                            for f, p in zip(frac, pts, strict=True)]).T.reshape(2, -1)
            ax.errorbar(n, frac, yerr=err, fmt=style, color=c, ms=4, lw=1, capsize=2,
                        label=f"d = {d}, {name}")
    ax.axhline(0.5, color="0.6", lw=0.6)
    ax.set_xlabel("n")
    ax.set_ylabel("P(L <= 1/(2n) within the budget)")
    ax.set_title("E-000-2: the gradient flow against GD at lr = 1 (same instances)")
    ax.legend(fontsize=7)
    save_png(fig, path)
