"""Theorem 8 of CEL23 (minimum rank is minimum norm exactly when M < 0) decided on the two
families of Example 37 (paper App. G; catalogue CEL23-T8, F37a, F37b, F8a, F38), as a
report section. No training: `papers.cel23.theorem8` computes everything.

For each instance:
- M with a certified bracket [lower, upper] (`theorem8.m_value`: the lower end is attained
  by a witness (K, p, q), the upper end comes from branch and bound); the sign is decided
  when the bracket excludes 0.
- When M > 0: the explicit two-neuron interpolator of the proof of Theorem 8(ii), its
  |theta|^2 (below 2) and its largest residual max_i |h(x_i) - y_i|.
- The dual certificate s(mu*) for mu* = X^{-T} v* (`theorem8.dual_slack`): at most 1 iff
  the rank-one interpolators (|theta|^2 = 2) have the least norm over every width.
- F8a's sufficient condition (X^{-1} a Z-matrix) and F38's lower bound 2 max_i cos
  angle(v*, x_i) on every interpolator's |theta|^2.

Theorem 8 is decided on an instance when the sign of M is certified and agrees with the
min-norm side: M < 0 with s(mu*) <= 1 (T8(i)), M > 0 with an interpolator below 2 (T8(ii)).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from papers.cel23 import theorem8 as t8
from verify.report.doc import Block, Heading, Paragraph, Table
from verify.report.reproduction import Reproduction
from verify.running.profiles import get_profile
from verify.running.progress import Progress

# (family, d, parameter): Example 37(a) with xi below the pi/4 edge 1/sqrt(d - 1), and
# Example 37(b) with b >= 11 (the catalogue's condition for M > 0)
GRID = {
    "quick": (("37a", 3, 0.3), ("37a", 3, 0.6), ("37a", 4, 0.2), ("37a", 4, 0.5),
              ("37b", 3, 11.0), ("37b", 3, 20.0), ("37b", 4, 11.0), ("37b", 4, 20.0)),
    "full": (("37a", 3, 0.3), ("37a", 3, 0.6), ("37a", 4, 0.2), ("37a", 4, 0.5),
             ("37a", 5, 0.4), ("37b", 3, 11.0), ("37b", 3, 20.0), ("37b", 3, 50.0),
             ("37b", 4, 11.0), ("37b", 4, 20.0), ("37b", 5, 20.0)),
}
GRID["paper"] = GRID["full"]  # Example 37 is a static family: no larger paper size
MAX_CELLS = {"quick": 2000, "full": 20000, "paper": 20000}


def _instance(family: str, d: int, param: float):
    return t8.example37a(d, param) if family == "37a" else t8.example37b(d, param)


def decide(family: str, d: int, param: float, max_cells: int) -> dict:
    """Every number of the section for one instance, and whether Theorem 8 is decided."""
    X, v = _instance(family, d, param)
    res = t8.m_value(X, v, starts=4, max_cells=max_cells)
    slack = t8.dual_slack(X, v)
    cos = X @ v / np.linalg.norm(X, axis=1)
    row = {"family": family, "d": d, "param": param, "M_lower": res.value,
           "M_upper": res.upper, "sign": res.sign, "dual_slack": slack,
           "z_matrix": bool(t8.is_z_matrix(X)), "f38_bound": float(2 * np.max(cos)),
           "pi4": bool(np.min(cos) > 1 / math.sqrt(2)), "interp_sq": None,
           "interp_residual": None}
    if res.sign == 1:
        W, a = t8.interpolator(X, v, res)
        row["interp_sq"] = t8.theta_sq_norm(W, a)
        row["interp_residual"] = float(np.max(np.abs(t8.network(W, a, X) - t8.labels(X, v))))
    if res.sign == -1:
        row["decided"] = slack <= 1.0 + 1e-12
        row["outcome"] = ("T8(i) HOLDS: M < 0 and the rank-one interpolators have the least "
                          "norm 2" if row["decided"] else
                          "T8(i) VIOLATED: M < 0 but an interpolator below 2 exists")
    elif res.sign == 1:
        row["decided"] = row["interp_sq"] < 2.0 and row["interp_residual"] < 1e-9
        row["outcome"] = ("T8(ii) HOLDS: M > 0 and an interpolator of norm below 2"
                          if row["decided"] else "T8(ii) not shown: the interpolator failed")
    else:
        row["decided"] = False
        row["outcome"] = "UNDECIDED: the bracket of M contains 0"
    return row


def _g(x, fmt: str = ".4g") -> str:
    return "-" if x is None else format(x, fmt)


def _blocks(rows: list[dict], max_cells: int) -> list[Block]:
    table = []
    for r in rows:
        name = (f"37(a) xi = {r['param']:g}" if r["family"] == "37a"
                else f"37(b) b = {r['param']:g}")
        upper = "inf (budget)" if not math.isfinite(r["M_upper"]) else f"{r['M_upper']:.4g}"
        table.append([name, str(r["d"]), "yes" if r["pi4"] else "no",
                      f"[{r['M_lower']:.4g}, {upper}]", "yes" if r["z_matrix"] else "no",
                      f"{r['dual_slack']:.4g}", _g(r["interp_sq"], ".6f"),
                      _g(r["interp_residual"], ".1e"), f"{r['f38_bound']:.4f}",
                      r["outcome"]])
    decided = sum(r["decided"] for r in rows)
    return [
        Heading(2, "Theorem 8 on Example 37's families (CEL23 section 7, App. G)"),
        Paragraph(
            f"No training: for each instance, M's certified bracket (a witness gives the "
            f"lower end, branch and bound over at most {max_cells} cells the upper end), "
            f"the dual certificate s(mu*) (at most 1 exactly when the rank-one interpolators "
            f"have the least norm, 2, over every width), and when M > 0 the explicit "
            f"interpolator of the proof of Theorem 8(ii) with its |theta|^2 and residual. "
            f"F8a's Z-matrix condition and F38's lower bound 2 max_i cos angle(v*, x_i) are "
            f"shown too. Decided: {decided} of {len(rows)} instances."),
        Table(["instance", "d", "pi/4 holds", "M in", "X^-1 Z-matrix", "s(mu*)",
               "interpolator |theta|^2", "its residual", "F38 bound", "Theorem 8"], table),
    ]


def run(out: Path, profile: str, *, seed: int = 0, show_progress: bool = True,
        store: Path | None = None) -> Reproduction:
    """The section (deterministic: ``seed`` and ``store`` unused)."""
    key = get_profile(profile).name
    start = time.perf_counter()
    rows = []
    with Progress(len(GRID[key]), "Theorem 8 on Example 37", enabled=show_progress) as bar:
        for family, d, param in GRID[key]:
            rows.append(decide(family, d, param, MAX_CELLS[key]))
            bar.advance()
    wall = time.perf_counter() - start
    decided = sum(r["decided"] for r in rows)
    held = sum("HOLDS" in r["outcome"] for r in rows)
    summary = (f"decided on {decided} of {len(rows)} instances; holds on {held}",)
    findings = tuple(f"CEL23-T8 on Example {r['family']} d = {r['d']} ({r['param']:g}): "
                     f"{r['outcome']}" for r in rows if "VIOLATED" in r["outcome"])
    return Reproduction("CEL23-T8", "Theorem 8 on Example 37's families",
                        _blocks(rows, MAX_CELLS[key]), (), {"rows": rows, "wall_time": wall},
                        wall, findings=findings, summary=summary)
