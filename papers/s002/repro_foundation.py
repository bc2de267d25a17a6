"""S002's foundation table in the report: S002-L1, S002-T1 and S002-L3 on the two-point
example of S002 section 5 (two values of lambda) and on random instances of the orthogonal
family, each by the exact flow up to `papers.s002.evidence.s002_horizon`.

A report section (`verify.report.reproduction`): ``run`` checks the three claims, draws the loss
and key-neuron figure of the two-point example, and returns the blocks with the verdict
table, the claims' statements and the per-instance rows.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import sympy as sp

import theory
from numerics import generators
from papers.s002.evidence import S002_HORIZON_FACTOR, s002_trajectory
from papers.s002.families import ORTHOGONAL
from papers.s002.measures import key_neuron_sets
from verify.engine.check import check
from verify.language.measures import instance_values
from verify.report.doc import Block, Bullets, Figure, Heading, Math, Paragraph, Table, number_text
from verify.report.reproduction import Reproduction
from verify.results.figures import pyplot, save_png
from verify.results.table import VERDICT_HEADER, VerdictLog, verdict_rows
from verify.running.profiles import get_profile
from verify.running.progress import Progress

CLAIM_IDS = ("S002-L1", "S002-T1", "S002-L3")
FIGURE = "two_point_loss.png"


def family_instances(count: int, seed: int, max_n: int) -> list:
    """``count`` distinct instances of the orthogonal family, reproducible from ``seed``."""
    rng = np.random.default_rng(seed)
    fam = ORTHOGONAL.narrowed(n=(2, max_n))
    out, seen = [], set()
    while len(out) < count:
        prob = fam.sample(rng)
        if prob.content_hash not in seen:
            seen.add(prob.content_hash)
            out.append(prob)
    return out


def _number(x) -> str:
    return number_text(x, ".4g", missing="", nonfinite="not measured")


def run(out: Path, profile: str, *, seed: int = 0, show_progress: bool = True,
        store: Path | None = None, instances: int | None = None) -> Reproduction:
    """The section; ``instances`` overrides the profile's number of random instances
    (``gfverify report --instances``). ``store`` is unused: nothing here is swept."""
    prof = get_profile(profile)
    start = time.perf_counter()
    claims = [theory.get(cid) for cid in CLAIM_IDS]
    log = VerdictLog()
    rows, hashes = [], []
    examples = [("two-point (paper's lambda)", generators.two_point(seed=seed)),
                ("two-point, lambda=1e-20", generators.two_point(lam=1e-20, seed=seed))]
    family = family_instances(prof.examples if instances is None else instances, seed,
                              prof.max_n)
    with Progress(len(examples) + len(family), "S002 foundation claims",
                  enabled=show_progress) as bar:
        first = None
        for label, prob in examples:
            traj = s002_trajectory(prob, points=prof.saved_times)
            first = first or traj
            hashes.append((label, prob.describe()))
            for claim in claims:
                v = log.record(check(claim, traj), claim.kind.value)
                rows.append([label, claim.id, v.outcome.value, _number(v.observed),
                             _number(v.predicted), _number(v.margin), _number(v.error),
                             v.reason])
            bar.advance()
        for prob in family:
            traj = s002_trajectory(prob, points=prof.saved_times)
            hashes.append(("orthogonal family", prob.describe()))
            for claim in claims:
                log.record(check(claim, traj), claim.kind.value)
            bar.advance()
    figure = Path(out) / FIGURE
    _figure(first, figure)
    table = log.table()
    method = first.method + " " + json.dumps(first.options)
    blocks = _blocks(table, claims, rows, figure, prof.saved_times, method, hashes)
    data = {"claims": table, "rows": rows, "method": method, "saved_times": prof.saved_times,
            "instances": [{"label": lb, "problem": ds} for lb, ds in hashes]}
    summary = tuple(f"{r['claim']:<10} {r['verdict']:<13} {r['instances']} instances"
                    for r in table)
    return Reproduction("S002 foundation", "S002-L1, T1, L3 on the exact flow", blocks,
                        (figure,), data, time.perf_counter() - start, summary=summary)


def _blocks(table, claims, rows, figure, saved_times, method, hashes) -> list[Block]:
    verdicts, notes = verdict_rows(table)
    b: list[Block] = [
        Heading(2, "Verdicts: S002 foundation claims"),
        Paragraph("S002-L1, S002-T1 and S002-L3 on the two-point example (two values of "
              "lambda) and random instances of the orthogonal family."),
        Table(VERDICT_HEADER, verdicts)]
    if notes:
        b += [Paragraph("Why instances were not decided:"), Bullets(notes)]
    b.append(Heading(3, "The three claims"))
    for claim in claims:
        params = ", ".join(f"{k} = {sp.sstr(v)}" for k, v in claim.parameters.items())
        b += [Heading(4, f"{claim.id}: {claim.title}"),
              Paragraph(f"Source: {claim.source}. Kind: {claim.kind.value}."),
              Math(claim.latex()),
              Paragraph(f"Parameters: {params or 'none'}. {claim.parameter_notes}"),
              Paragraph("Setting: " + "; ".join(a.text for a in claim.setting) + ".")]
        if claim.flags:
            b.append(Bullets([f"flag: {flag}" for flag in claim.flags]))
    b += [
        Heading(3, "S002 two-point example (section 5, E-002-1)"),
        Paragraph("x1 = (-0.5, 1), y1 = -1; x2 = (2, 1), y2 = +1; balanced initialisation. The "
              "loss falls in two steps separated by a saddle plateau; the dashed lines are "
              "the predicted phase times -ln(lambda)/||D_+|| and -ln(lambda)/||D_-||."),
        Figure(figure, "loss and key-neuron norms of the two-point example"),
        Table(["instance", "claim", "verdict", "observed", "bound", "margin",
                   "numerical error", "note"], rows),
        Paragraph(f"Method: {method}; {saved_times} saved times per run; horizon "
              f"{S002_HORIZON_FACTOR:g} (-ln lambda)/min||D_+-||. Instances ({len(hashes)}):"),
        Bullets([f"{label}: {desc}" for label, desc in hashes]),
    ]
    return b


def _figure(traj, path: Path) -> None:
    plt = pyplot()

    prob = traj.problem
    inst = instance_values(prob)
    lam = prob.init_scale
    s_plus, s_minus = key_neuron_sets(prob)
    marks = {
        r"$-\ln\lambda/\|D_+\|$ (phase 2)": -np.log(lam) / inst["Dplus"],
        r"$-\ln\lambda/\|D_-\|$ (phase 3)": -np.log(lam) / inst["Dminus"],
    }
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7.5, 6.5), sharex=True)
    ax1.semilogy(traj.t, traj.loss, color="black", lw=1.5, label="loss $L(t)$ (exact flow)")
    err = traj.error_of(lambda tr: tr.loss)
    ax1.semilogy(traj.t, np.maximum(err, 1e-300), color="grey", lw=0.8,
                 label="numerical error of $L$ (vs companion run)")
    ax1.axhline(prob.y[prob.y < 0] @ prob.y[prob.y < 0] / (2 * prob.n), color="grey", ls=":",
                lw=1, label="saddle plateau $\\|y_-\\|^2/(2n)$")
    for (label, tm), style in zip(marks.items(), ("--", "-."), strict=True):
        ax1.axvline(tm, color="tab:red", ls=style, lw=1, label=label)
        ax2.axvline(tm, color="tab:red", ls=style, lw=1)
    ax1.set_ylabel("loss")
    ax1.set_ylim(max(traj.loss.min(), 1e-24), traj.loss.max() * 3)
    ax1.legend(fontsize=7, loc="upper right")
    ax1.set_title(f"S002 two-point example: p={prob.p}, $\\lambda$={lam:.3g}, seed "
                  f"{prob.meta.get('seed')}")
    ax2.plot(traj.t, traj.group_norm_sq(s_plus), label=r"$u_+=\sum_{S_{+,1}}\|w_j\|^2$")
    ax2.plot(traj.t, traj.group_norm_sq(s_minus), label=r"$u_-=\sum_{S_{-,1}}\|w_j\|^2$")
    ax2.axhline(inst["CapPlus"], color="tab:blue", ls=":", lw=1, label="capacity $1/\\|x_2\\|$")
    ax2.axhline(inst["CapMinus"], color="tab:orange", ls=":", lw=1,
                label="capacity $1/\\|x_1\\|$")
    ax2.set_xlabel("t (gradient-flow time)")
    ax2.set_ylabel("squared norms")
    ax2.legend(fontsize=8, loc="center right")
    fig.tight_layout()
    save_png(fig, path)
