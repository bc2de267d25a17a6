"""One figure per claim of the verdict table, from the figure data its row carries.

`claim_figures(rows, out_dir)` takes the rows of ``pytest verify --verify-json`` (its
``"claims"`` list, or `verify.results.table.VerdictLog.table()`) and writes ``claim_<id>.png`` for
each row whose ``"figure"`` is set (the instance the row's ``where`` names; see
`verify.engine.figure_data` for the three shapes):

- time series (POINTWISE, CONSERVED, TRAPPING, IDENTITY, EVENT_TIME): top, the measured
  side against its bound over t (log scale when both are positive and span decades),
  with the bound widened by the numerical error shaded; bottom, the check's margin in
  units of its numerical error (symlog), with the band |margin| <= error where a point is
  undecided (for an equality: consistent with it). The reported point is
  marked; for an event time, the event time (with its error) and its bound are lines;
- scaling: the data in log-log, the fitted law with its confidence band, and the claimed
  slope through the centroid of the data;
- probability: each relation's measured side at the estimates, with its range over the
  simultaneous intervals, against the claimed level (itself a range if it depends on an
  estimate);
- limit (`verify.engine.check_limit`): the sequence's values with their errors against the
  small variable s -> 0 the fit used, the claimed limit and the limit's band (settled or
  extrapolated to s = 0) beside it; right, the distance to the claimed limit in log-log
  with its fitted power law (for a rate: the values themselves, the fitted law and the
  claimed exponent through the last value).
"""

from __future__ import annotations

import math
import re
import textwrap
import warnings
from pathlib import Path

import numpy as np

from verify.results.figures import legend, pyplot, save_png
from verify.results.findings import data_label


def figure_path(out_dir: Path, claim_id: str) -> Path:
    """Where `claim_figures` writes the figure of ``claim_id``."""
    return Path(out_dir) / f"claim_{re.sub(r'[^A-Za-z0-9_.-]', '_', claim_id)}.png"


def claim_figures(rows: list[dict], out_dir: Path) -> dict[str, Path]:
    """Write one PNG per row with figure data; return claim id -> path.

    A row whose figure cannot be drawn is skipped with a warning, never fails the caller.
    """
    out: dict[str, Path] = {}
    for row in rows:
        data = row.get("figure")
        if not data:
            continue
        draw = _DRAW.get(data.get("type"))
        if draw is None:
            warnings.warn(f"{row.get('claim')}: unknown figure type {data.get('type')!r}",
                          stacklevel=2)
            continue
        key = str(row.get("claim", "claim"))
        if data_label(row.get("data")):
            key += f" ({data_label(row.get('data'))})"
        path = figure_path(out_dir, key)
        try:
            fig = draw(row, data)
            out[key] = save_png(fig, path)
        except Exception as exc:  # noqa: BLE001  (one bad figure must not sink a report)
            pyplot().close("all")
            warnings.warn(f"{row.get('claim')}: figure not drawn: {exc!r}", stacklevel=2)
    return out


# -- helpers -------------------------------------------------------------------------------
def _arr(values) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in (values or [])], dtype=float)


def _finish(fig, row: dict, data: dict, top: float):
    """The figure with its title (`_title`) above the axes, which end at ``top``."""
    _title(fig, row, data)
    fig.tight_layout(rect=(0, 0, 1, top))
    return fig


def _title(fig, row: dict, data: dict) -> None:
    head = f"{row.get('claim', '')}: {row.get('verdict', '')}"
    kind = row.get("kind") or data.get("kind")
    if kind:
        head += f"  ({kind})"
    if data.get("outcome") and data["outcome"] != row.get("verdict"):
        head += f"; the instance shown: {data['outcome']}"
    margin = row.get("worst_margin")
    detail = ""
    if margin is not None:
        detail = f"worst margin {margin:.3g}"
        if row.get("error") is not None:
            detail += f" (numerical error {row['error']:.2g})"
    if row.get("where"):
        detail += f" at {row['where']}" if detail else str(row["where"])
    lines = [head] + textwrap.wrap(detail, 95)[:2]
    fig.suptitle("\n".join(lines), fontsize=9)


def _label(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _constant(a: np.ndarray) -> bool:
    return bool(np.all(np.isfinite(a)) and np.ptp(a) == 0)


def _spans_decades(*arrays: np.ndarray) -> bool:
    vals = np.concatenate([a[np.isfinite(a)] for a in arrays])
    return bool(vals.size and np.all(vals > 0) and vals.max() / vals.min() > 100)


# -- time series ---------------------------------------------------------------------------
def _series(row: dict, data: dict):
    plt = pyplot()
    t, obs, bound = _arr(data["t"]), _arr(data["observed"]), _arr(data["bound"])
    tol, margin = _arr(data.get("error")), _arr(data.get("margin"))
    if tol.size != t.size:
        tol = np.full_like(t, np.nan)
    if data.get("event") is None and (t.size == 1 or _constant(obs) and _constant(bound)):
        # an instance-level relation (nothing depends on t): one comparison, at the
        # reported point
        k = int(np.nanargmin(np.abs(t - (data.get("at") or {}).get("t", t[0]))))
        return _single_time(row, data, t[k], obs[k], bound[k], tol[k])
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.5, 6.2), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 2]})
    style = {"marker": "o", "ms": 4} if t.size <= 3 else {}
    log = _spans_decades(obs, bound)
    top.plot(t, obs, color="C0", lw=1.4, label=_label(data.get("observed_label", "observed")),
             **style)
    top.plot(t, bound, color="C3", lw=1.2, ls="--",
             label=f"{data.get('relation', '')} {_label(data.get('bound_label', 'bound'))}",
             **style)
    lo, hi = bound - tol, bound + tol
    if log:
        floor = np.nanmin(np.concatenate([obs, bound])) / 10
        lo = np.maximum(lo, floor)
        top.set_yscale("log")
    if np.any(tol > 0):
        top.fill_between(t, lo, hi, color="C3", alpha=0.12, lw=0,
                         label="bound +- numerical error")
    at = data.get("at") or {}
    event = data.get("event")
    if event is not None:
        _event_lines(top, event)
        _event_lines(bottom, event, labels=False)
    elif at.get("t") is not None:
        k = int(np.nanargmin(np.abs(t - at["t"])))
        top.plot([t[k]], [obs[k]], "o", color="k", ms=5, zorder=5,
                 label=f"reported point {data.get('x_label', 't')} = {at['t']:.4g}")
        for ax in (top, bottom):
            ax.axvline(at["t"], color="k", lw=0.6, alpha=0.4)
    legend(top, fontsize=7, loc="best")
    top.grid(alpha=0.3)
    top.set_ylabel("measured and bound")
    if data.get("relation") == "==":
        _deviation_panel(bottom, t, margin, tol, at if event is None else {}, style)
    else:
        _ratio_panel(bottom, t, margin, tol, at if event is None else {}, style)
    legend(bottom, fontsize=7, loc="best")
    bottom.grid(alpha=0.3)
    bottom.set_xlabel(data.get("x_label", "t"))
    return _finish(fig, row, data, 0.93)


def _single_time(row: dict, data: dict, t: float, obs: float, bound: float, tol: float):
    """A relation checked at one time (an instance-level statement): both sides, with the
    numerical error around the bound."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.0, 4.6))
    ax.errorbar([1], [bound], yerr=[[tol if tol > 0 else 0.0]] * 2, fmt="s", color="C3",
                capsize=6, ms=7, label=f"bound {data.get('relation', '')} "
                f"{_label(data.get('bound_label', ''))}" + (" +- error" if tol > 0 else ""))
    ax.plot([0], [obs], "o", color="C0", ms=7, label=_label(data.get("observed_label", "")))
    ax.set_xticks([0, 1])
    ax.set_xticklabels(["\n".join(textwrap.wrap(data.get("observed_label", "observed"), 30)),
                        "\n".join(textwrap.wrap(data.get("bound_label", "bound"), 30))],
                       fontsize=8)
    ax.set_xlim(-0.6, 1.6)
    ax.set_xlabel(f"at {data.get('x_label', 't')} = {t:.4g}: "
                  f"{_label(data.get('part', ''), 80)}", fontsize=8)
    if _spans_decades(np.array([obs, bound])):
        ax.set_yscale("log")
    ax.grid(alpha=0.3, axis="y")
    legend(ax, fontsize=7, loc="best")
    return _finish(fig, row, data, 0.9)


def _ratio_panel(ax, t, margin, tol, at: dict, style: dict) -> None:
    """An inequality's margin in units of its numerical error (symlog): |ratio| <= 1 is
    undecided."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(tol > 0, margin / tol, np.nan)
    ratio[~np.isfinite(ratio)] = np.nan
    ax.plot(t, ratio, color="C2", lw=1.2, label="margin / error (> 0: holds)", **style)
    ax.axhspan(-1, 1, color="0.5", alpha=0.3, lw=0, label="within the error: undecided")
    ax.axhline(0, color="k", lw=0.6)
    ax.set_yscale("symlog", linthresh=1.0)
    _symlog_ticks(ax, ratio)
    if at.get("t") is not None and at.get("margin") is not None and at.get("error"):
        ax.plot([at["t"]], [at["margin"] / at["error"]], "o", color="k", ms=5, zorder=5)
    ax.set_ylabel("margin / numerical error")


def _symlog_ticks(ax, values: np.ndarray, most: int = 4) -> None:
    """At most ``most`` decades labelled on each side of 0 (symlog labels every decade)."""
    from matplotlib.ticker import NullLocator

    finite = values[np.isfinite(values)]
    top = float(np.max(finite)) if finite.size else 1.0
    bottom = float(np.min(finite)) if finite.size else -1.0
    decades = [max(0, math.ceil(math.log10(extent))) if extent > 1 else 0
               for extent in (top, -bottom)]
    step = max(1, math.ceil(sum(decades) / (2 * most)))
    first = step if sum(decades) > 12 else 0  # +-1 would crowd 0 on a long axis
    ticks = [0.0]
    for sign, d in zip((1.0, -1.0), decades, strict=True):
        ticks += [sign * 10.0 ** k for k in range(first, d + 1, step)]
    ax.set_yticks(sorted(set(ticks)))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.tick_params(axis="y", labelsize=7)


def _deviation_panel(ax, t, margin, tol, at: dict, style: dict) -> None:
    """An equality's deviation |lhs - rhs| against the numerical error (log scale)."""
    dev = np.abs(margin)
    ax.plot(t, dev, color="C2", lw=1.2, label="|lhs - rhs|", **style)
    ax.plot(t, tol, color="0.4", lw=1.0, ls="--", label="numerical error", **style)
    positive = np.concatenate([dev[dev > 0], tol[tol > 0]])
    if positive.size:
        floor = float(np.nanmin(positive)) / 10
        ax.fill_between(t, floor, np.where(tol > floor, tol, floor), color="0.5", alpha=0.3,
                        lw=0, label="below the error: consistent with equality")
        ax.set_yscale("log")
    if at.get("t") is not None and at.get("margin") is not None and at["margin"] != 0:
        ax.plot([at["t"]], [abs(at["margin"])], "o", color="k", ms=5, zorder=5)
    ax.set_ylabel("deviation from equality")


def _event_lines(ax, event: dict, labels: bool = True) -> None:
    name = event.get("label", "event")
    if event.get("time") is not None:
        te, err = event["time"], event.get("error") or 0.0
        ax.axvline(te, color="C2", lw=1.2, label=f"{name} = {te:.4g}" if labels else None)
        if err and math.isfinite(err):
            ax.axvspan(te - err, te + err, color="C2", alpha=0.15, lw=0,
                       label="event time +- error" if labels else None)
    elif event.get("run_end") is not None:
        ax.axvline(event["run_end"], color="C2", lw=1.2, ls=":",
                   label=f"run ends, no event (t = {event['run_end']:.4g})" if labels else None)
    if event.get("bound") is not None:
        ax.axvline(event["bound"], color="C3", lw=1.4, ls="-.",
                   label=f"bound on {name}: {event['bound']:.4g}" if labels else None)


# -- scaling -------------------------------------------------------------------------------
def _scaling(row: dict, data: dict):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.0, 5.2))
    x, y = _arr(data["x"]), _arr(data["y"])
    fit = data.get("fit") or {}
    fx = _arr(fit.get("x"))
    order = np.argsort(fx)
    fx = fx[order]
    ax.scatter(x, y, s=14, color="C0", alpha=0.7, zorder=3,
               label=f"{data.get('quantity', 'y')} ({data.get('points', x.size)} values)")
    ci = data.get("ci") or [None, None]
    slope, claimed = data.get("slope"), data.get("claimed_slope")
    if fx.size:
        ax.plot(fx, _arr(fit.get("y"))[order], color="C0", lw=1.5,
                label=f"fit: slope {slope:.3g}" if slope is not None else "fit")
        if None not in ci:
            ax.fill_between(fx, _arr(fit.get("band_lo"))[order], _arr(fit.get("band_hi"))[order],
                            color="C0", alpha=0.2, lw=0,
                            label=f"{100 * data.get('confidence', 0.95):.0f}% interval "
                                  f"[{ci[0]:.3g}, {ci[1]:.3g}] ({data.get('method', '')})")
        ax.plot(fx, _arr(fit.get("claimed"))[order], color="C3", lw=1.4, ls="--",
                label=(f"claimed ({data.get('relation', '')}): slope {claimed:.3g}"
                       if claimed is not None else "claimed"))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(data.get("variable", "x"))
    ax.set_ylabel(data.get("quantity", "y"))
    ax.grid(alpha=0.3, which="both")
    legend(ax, fontsize=7, loc="best")
    return _finish(fig, row, data, 0.92)


# -- probability ---------------------------------------------------------------------------
def _probability(row: dict, data: dict):
    plt = pyplot()
    rels = data.get("relations") or []
    fig, ax = plt.subplots(figsize=(max(7.0, 2.6 * len(rels) + 2.5), 5.2))
    for i, r in enumerate(rels):
        o, olo, ohi = (np.nan if r.get(k) is None else r[k]
                       for k in ("observed", "observed_lo", "observed_hi"))
        ax.errorbar([i - 0.08], [o], yerr=[[max(o - olo, 0)], [max(ohi - o, 0)]], fmt="o",
                    color="C0", capsize=5, label="estimate, simultaneous interval"
                    if i == 0 else None)
        b, blo, bhi = (np.nan if r.get(k) is None else r[k]
                       for k in ("bound", "bound_lo", "bound_hi"))
        ax.hlines(b, i - 0.3, i + 0.3, color="C3", lw=2,
                  label="claimed level" if i == 0 else None)
        if bhi > blo:
            ax.fill_between([i - 0.3, i + 0.3], [blo] * 2, [bhi] * 2, color="C3", alpha=0.15,
                            lw=0, label="claimed level over the intervals" if i == 0 else None)
        ax.annotate(r.get("relation", ""), (i + 0.32, b), fontsize=9, va="center", color="C3")
    ax.set_xticks(range(len(rels)))
    ax.set_xticklabels(["\n".join(textwrap.wrap(r.get("part", ""), 28)) for r in rels],
                       fontsize=7)
    ax.set_xlim(-0.6, len(rels) - 0.4)
    est = "; ".join(f"{e['name']} = {e['estimate']:.4g} [{e['lo']:.3g}, {e['hi']:.3g}]"
                    for e in data.get("estimates", []) if e.get("estimate") is not None)
    ax.set_xlabel("\n".join(textwrap.wrap(f"{data.get('total', '')} instances: {est}", 90)),
                  fontsize=8)
    ax.set_ylabel("probability (measured side of each relation)")
    ax.grid(alpha=0.3, axis="y")
    legend(ax, fontsize=7, loc="best")
    return _finish(fig, row, data, 0.92)


# -- limit -----------------------------------------------------------------------------------
_S_NAME = {"x": "{v}", "1/x": "1/{v}", "1/log x": "1/ln {v}"}


def _limit(row: dict, data: dict):
    plt = pyplot()
    s, q, e = _arr(data.get("s")), _arr(data.get("values")), _arr(data.get("errors"))
    target, rate = data.get("target"), data.get("rate")
    s_name = _S_NAME.get(data.get("scale"), "s({v})").format(v=data.get("variable", "x"))
    quantity = _label(str(data.get("quantity", "Q")), 50)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10.5, 4.8))
    left.errorbar(s, q, yerr=e, fmt="o", ms=4, color="C0", capsize=3,
                  label=f"{quantity} (error bars: its numerical error)")
    if target is not None:
        left.axhline(target, color="C3", lw=1.4, ls="--", label=f"claimed limit {target:.6g}")
    band = data.get("limit_band")
    if band and None not in band:
        left.axhspan(band[0], band[1], color="C2", alpha=0.2, lw=0,
                     label=f"the limit's band [{band[0]:.6g}, {band[1]:.6g}]")
    left.set_xscale("log")
    if _spans_decades(q):
        left.set_yscale("log")
    left.invert_xaxis()  # the sequence goes toward the limit from left to right
    left.set_xlabel(f"s = {s_name}  (-> 0, to the right)")
    left.set_ylabel(quantity)
    left.grid(alpha=0.3, which="both")
    legend(left, fontsize=7, loc="best")
    exponent, prefactor = data.get("exponent"), data.get("prefactor")
    if rate is not None:  # Q = O(x^a): the values themselves in log-log
        y, what = q, quantity
    else:
        y, what = (np.abs(q - target) if target is not None else np.full_like(q, np.nan),
                   f"|{quantity} - claimed limit|")
    shown = np.isfinite(y) & (y > 0) & (s > 0)
    right.scatter(s[shown], y[shown], s=16, color="C0", zorder=3, label=what)
    above = shown & (e > 0)
    if above.any():
        right.plot(s[above], e[above], color="0.5", lw=1, ls=":", label="numerical error")
    fitted = shown & (y > e)  # the values the law was fitted on: above their errors
    if fitted.any() and exponent is not None and prefactor is not None:
        grid = np.geomspace(s[fitted].min(), s[fitted].max(), 50)
        band_text = data.get("band") or [None, None]
        label = f"fit: {prefactor:.3g} s^{exponent:.3g}"
        if None not in band_text:
            label += f", exponent in [{band_text[0]:.3g}, {band_text[1]:.3g}]"
        right.plot(grid, prefactor * grid ** exponent, color="C0", lw=1.4, label=label)
    if rate is not None and shown.any():
        anchor = np.flatnonzero(shown)[-1]
        grid = np.geomspace(s[shown].min(), s[shown].max(), 50)
        right.plot(grid, y[anchor] * (grid / s[anchor]) ** rate, color="C3", lw=1.4, ls="--",
                   label=f"claimed exponent {rate:.3g} (through the last value)")
    if shown.any():
        right.set_xscale("log")
        right.set_yscale("log")
        right.invert_xaxis()
    else:
        right.text(0.5, 0.5, "no value to draw on a log scale", ha="center",
                   transform=right.transAxes, fontsize=9)
    for ax in (left, right):  # a span under two decades labels its minor ticks, overlapping
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
    right.set_xlabel(f"s = {s_name}")
    right.set_ylabel(_label(what, 50))
    right.grid(alpha=0.3, which="both")
    legend(right, fontsize=7, loc="best")
    return _finish(fig, row, data, 0.9)


_DRAW = {"series": _series, "scaling": _scaling, "probability": _probability,
         "limit": _limit}

__all__ = ["claim_figures", "figure_path"]
