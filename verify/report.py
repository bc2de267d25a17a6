"""The bound-checking report: `gfverify report --profile quick --out DIR`.

Writes ``DIR/index.md`` and the same content as a self-contained ``DIR/index.html``
(figures and formulas embedded), ``DIR/verdicts.json`` and the PNG figures. The
report holds S002's three foundation claims on the two-point example and random
instances, the whole verdict table of the verification suite (``pytest verify``,
run in a subprocess, every checkable claim of the catalogue, with the mutants and
the expected findings), one entry per claim of the catalogue, the E-002-1
reproduction (gradient descent on the two-point example) and provenance. Files are
written to a temporary name and renamed, so an interrupted run never leaves a
half-written report.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import sympy as sp

import theory
from numerics import generators
from numerics.provenance import environment
from verify import families, limits, reference
from verify import findings as findings_mod
from verify import mutants as mutants_mod
from verify.check import check
from verify.claim_figures import claim_figures
from verify.errors import InputError
from verify.evidence import s002_trajectory
from verify.figures import pyplot, save_png
from verify.measures import instance_values, key_neuron_sets
from verify.profiles import get_profile
from verify.progress import Progress
from verify.report_doc import number_text, to_html, to_markdown
from verify.table import VerdictLog

S002_IDS = ("S002-L1", "S002-T1", "S002-L3")


@dataclass(frozen=True)
class ReportResult:
    out_dir: Path
    index: Path
    verdicts_json: Path
    figures: tuple[Path, ...]
    table: list[dict]
    wall_time: float
    html: Path | None = None
    suite: dict | None = None
    reproduction: dict | None = None
    reproductions: tuple = ()


def _atomic_write(path: Path, data: str | bytes) -> None:
    tmp = path.with_name(path.name + ".partial")
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(tmp, mode) as fh:
        fh.write(data)
    os.replace(tmp, path)


def family_instances(count: int, seed: int, max_n: int) -> list:
    """``count`` distinct instances of the orthonormal family, reproducible from ``seed``."""
    rng = np.random.default_rng(seed)
    fam = families.ORTHONORMAL.narrowed(n=(2, max_n))
    out, seen = [], set()
    while len(out) < count:
        prob = fam.sample(rng)
        if prob.content_hash not in seen:
            seen.add(prob.content_hash)
            out.append(prob)
    return out


def _two_point_figure(traj, path: Path) -> None:
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
    ax2.axhline(inst["Uplus"], color="tab:blue", ls=":", lw=1, label="capacity $1/\\|x_2\\|$")
    ax2.axhline(inst["Uminus"], color="tab:orange", ls=":", lw=1,
                label="capacity $1/\\|x_1\\|$")
    ax2.set_xlabel("t (gradient-flow time)")
    ax2.set_ylabel("squared norms")
    ax2.legend(fontsize=8, loc="center right")
    fig.tight_layout()
    save_png(fig, path)



def _fmt(x) -> str:
    return number_text(x, ".4g", missing="")


VERDICT_HEADER = ["claim", "kind", "data", "instances", "HOLDS", "VIOLATED", "INAPPLICABLE",
                  "INCONCLUSIVE", "verdict", "worst margin", "where"]


def verdict_rows(table: list[dict]) -> tuple[list[list[str]], list[str]]:
    """Rows of the verdict table (as `verify.table.markdown_table`) and the notes on
    instances that were not decided."""
    rows = []
    for r in table:
        margin = "" if r["worst_margin"] is None else f"{r['worst_margin']:.3g}"
        if r["tolerance"] is not None and margin:
            margin += f" (err {r['tolerance']:.1g})"
        data = "published" if r.get("data") == "published" else "sim"
        rows.append([r["claim"], r["kind"], data, str(r["instances"]), str(r["HOLDS"]),
                     str(r["VIOLATED"]), str(r["INAPPLICABLE"]), str(r["INCONCLUSIVE"]),
                     r["verdict"], margin, r["where"]])
    notes = [f"{r['claim']}: {n} x {reason}" for r in table
             for reason, n in r.get("reasons", {}).items()]
    return rows, notes


# -- the verification suite ------------------------------------------------------------------
_PERCENT = re.compile(r"\[\s*(\d+)%\]")


class SuiteRun:
    """``pytest verify`` in a subprocess (so the report's process stays clean), started at
    once so that it runs while the report simulates; `result` waits for it and collects
    its verdict table, the mutants scored against the declared roster and the findings
    measured by the run (all from ``--verify-json``; `verify.findings`)."""

    def __init__(self, profile: str, show_progress: bool = True) -> None:
        verify_dir = Path(__file__).resolve().parent
        self.start = time.perf_counter()
        self.tmp = tempfile.TemporaryDirectory(prefix="gfverify-suite-")
        self.vjson = Path(self.tmp.name) / "verdicts.json"
        self.out = open(Path(self.tmp.name) / "stdout.txt", "w+")  # noqa: SIM115
        self.cmd = [sys.executable, "-m", "pytest", str(verify_dir), "-q", "-p",
                    "no:cacheprovider", f"--verify-profile={profile}",
                    f"--verify-json={self.vjson}"]
        if show_progress:
            print("running the verification suite (pytest verify) in the background ...",
                  file=sys.stderr, flush=True)
        self.proc = subprocess.Popen(self.cmd, cwd=verify_dir.parent, stdout=self.out,
                                     stderr=subprocess.STDOUT, text=True)

    def percent_done(self) -> int:
        """The suite's progress so far: the last ``[ NN%]`` marker of pytest's -q output."""
        try:
            text = Path(self.out.name).read_text(errors="replace")
        except OSError:
            return 0
        marks = _PERCENT.findall(text)
        return int(marks[-1]) if marks else 0

    def result(self, show_progress: bool = True) -> dict:
        if show_progress and self.proc.poll() is None:
            with Progress(100, "verification suite (% of tests)") as bar:
                while self.proc.poll() is None:
                    done = self.percent_done()
                    if done > bar.done:
                        bar.advance(done - bar.done)
                    time.sleep(0.5)
                bar.advance(100 - bar.done)
        try:
            returncode = self.proc.wait()
            self.out.seek(0)
            stdout = self.out.read()
            data = (json.loads(self.vjson.read_text()) if self.vjson.exists()
                    else {"claims": [], "mutants": [], "findings": []})
        finally:
            self.out.close()
            self.tmp.cleanup()
        return _suite_dict(self.cmd, returncode, stdout, data, self.start)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.out.close()
        self.tmp.cleanup()


def run_suite(profile: str, show_progress: bool = True) -> dict:
    """Run ``pytest verify`` and return its table, mutants and findings (see `SuiteRun`)."""
    return SuiteRun(profile, show_progress).result(show_progress)


def _suite_dict(cmd, returncode, stdout, data, start) -> dict:
    summary = next((ln.strip("= ") for ln in reversed(stdout.splitlines())
                    if re.search(r"\d+ (passed|failed)", ln)), "")
    mutants = data.get("mutants", [])
    score = mutants_mod.score(mutants)
    failed = [ln.split(" - ")[0].removeprefix("FAILED ").removeprefix("ERROR ").strip()
              for ln in stdout.splitlines() if ln.startswith(("FAILED ", "ERROR "))]
    return {"command": " ".join(["pytest", "verify"] + cmd[5:-1]), "exit_code": returncode,
            "ok": returncode == 0, "failed_tests": failed,
            "summary": summary, "profile": data.get("profile", ""),
            "tests": data.get("tests", {}), "claims": data.get("claims", []), "mutants": mutants,
            "mutant_score": score, "mutants_caught": score["caught"],
            "findings": data.get("findings", []), "wall_time": time.perf_counter() - start}


def suite_failure(suite_result: dict | None) -> str:
    """One paragraph when the suite failed or crashed (empty when it passed or did not run)."""
    if suite_result is None or suite_result["ok"]:
        return ""
    tests = suite_result.get("failed_tests", [])
    named = f": {', '.join(tests[:6])}{', ...' if len(tests) > 6 else ''}" if tests else ""
    return (f"THE VERIFICATION SUITE FAILED (pytest exit code {suite_result['exit_code']}, "
            f"{suite_result['summary'] or 'no summary: it crashed'}){named}. Its table below "
            f"is incomplete; rerun `{suite_result['command']}` to see why.")


# -- E-002-1: the two-point example by gradient descent ---------------------------------------
PAPER_ITERATIONS = (5000, 11000)
THEORY_ITERATIONS = {1.0: (12000, 25100), 2.0: (6000, 12550)}


def e002_1_reproduction(path: Path, lr: float = 1e-3, seed: int = 0) -> dict:
    """GD with step ``lr`` on the two-point example (m = 60, lam = 1e-6/sqrt(60)) for the loss
    of eq. (1) (loss_scale 1) and torch's MSE-mean normalisation (loss_scale 2); the first
    iterations where L (of eq. (1)) falls below the midpoint between L(0) and the plateau
    and between the plateau and 0. Writes the figure of both loss curves to ``path``."""
    from numerics import simulate
    from numerics.descent import GradientDescent

    start = time.perf_counter()
    runs = []
    for scale, steps in ((1.0, 30000), (2.0, 16000)):
        prob = generators.two_point(seed=seed, loss_scale=scale)
        traj = simulate(prob, GradientDescent(lr=lr, error_check=None),
                        np.arange(steps + 1) * lr)
        loss = np.asarray(traj.loss) / scale  # the loss of eq. (1)
        neg = prob.y[prob.y < 0]
        plateau = float(neg @ neg / (2 * prob.n))
        levels = ((loss[0] + plateau) / 2, plateau / 2)
        drops = []
        for level in levels:
            below = np.nonzero(loss < level)[0]
            drops.append(int(below[0]) if below.size else None)
        runs.append({"loss_scale": scale, "steps": steps, "lr": lr, "L0": float(loss[0]),
                     "plateau": plateau, "levels": [float(v) for v in levels],
                     "mid_drops": drops, "final_loss": float(loss[-1]),
                     "theory_expected": list(THEORY_ITERATIONS[scale]),
                     "paper": list(PAPER_ITERATIONS), "problem": prob.describe(),
                     "loss": loss})
    _gd_figure(runs, path)
    wall = time.perf_counter() - start
    for r in runs:
        r.pop("loss")
    return {"runs": runs, "wall_time": wall, "method": f"GradientDescent(lr={lr}), float64, "
            "every step saved (iteration k at flow time t = k * lr)", "seed": seed}


def _gd_figure(runs: list[dict], path: Path) -> None:
    plt = pyplot()

    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    for r, color in zip(runs, ("tab:blue", "tab:orange"), strict=True):
        label = ("eq. (1), loss_scale 1" if r["loss_scale"] == 1.0
                 else "torch MSE mean (gradient of 2L), loss_scale 2")
        ax.semilogy(np.arange(len(r["loss"])), np.maximum(r["loss"], 1e-300), color=color,
                    lw=1.4, label=label)
        for k in r["mid_drops"]:
            if k is not None:
                ax.axvline(k, color=color, ls=":", lw=0.9)
    for k in PAPER_ITERATIONS:
        ax.axvline(k, color="tab:red", ls="--", lw=0.9)
    ax.plot([], [], color="tab:red", ls="--", lw=0.9, label="paper: ~5000 / ~11000")
    ax.plot([], [], color="grey", ls=":", lw=0.9, label="measured mid-drops")
    ax.set_ylim(1e-12, 2)
    ax.set_xlabel("GD iteration (step 1e-3)")
    ax.set_ylabel("loss of eq. (1)")
    ax.set_title("E-002-1: two-point example, m = 60, $\\lambda = 10^{-6}/\\sqrt{60}$")
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    save_png(fig, path)


# -- the report --------------------------------------------------------------------------------
# The reproduction sections (THEORY section 5), in report order: module names, each with
# run(out, profile, seed, show_progress, store) -> verify.reproduction.Reproduction.
def reproduction_modules() -> tuple[str, ...]:
    """The report's sections after E-002-1: every pack's ``reproductions`` (built-in packs
    first, then the installed ones; `theory.packs`)."""
    from theory import packs

    return tuple(m for pack in packs.packs() for m in pack.reproductions)


def write_report(out_dir: str | os.PathLike, profile: str = "quick", seed: int = 0,
                 show_progress: bool = True, instances: int | None = None,
                 suite: bool = True, store: str | os.PathLike | None = None,
                 reproductions: tuple[str, ...] | None = None) -> ReportResult:
    """Write the report; ``instances`` overrides the profile's number of random instances;
    ``suite=False`` skips the verification suite (the report then says so). Sweeps of the
    reproductions are stored in ``store`` (default ``out_dir/store``) and read back from
    there: a second report with the same store recomputes nothing. ``reproductions``
    selects sections by module name (default: all of `reproduction_modules`)."""
    prof = get_profile(profile)
    if instances is not None and instances < 0:
        raise InputError(f"--instances: must be >= 0, got {instances}")
    limits.at_most("--instances", instances or 0, "budget")
    if store is not None:  # a bad --results store is refused before any work
        from verify.sweep import DB_NAME, SweepStoreError, read_rows

        store_dir = Path(store)
        if store_dir.exists() and not store_dir.is_dir():
            raise SweepStoreError(f"--results {store_dir}: is a file, not a directory; a "
                                  f"store is a directory holding {DB_NAME}")
        if (store_dir / DB_NAME).exists():
            read_rows(store_dir)  # readable (read-only is fine), not corrupted
    reference.threshold_runs()  # the published data the E-000 sections compare with
    reference.orthogonal_pl()
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out}: is a file; the report needs a directory (created if "
                         f"missing)")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".gfverify-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise InputError(f"--out {out}: cannot write there ({exc.strerror or exc})") from None
    start = time.perf_counter()
    suite_run = SuiteRun(profile, show_progress) if suite else None
    store = Path(store) if store is not None else out / "store"
    sections = reproduction_modules() if reproductions is None else tuple(reproductions)
    try:
        return _write_report(out, profile, seed, show_progress, instances, prof, start,
                             suite_run, store, sections)
    except BaseException:
        if suite_run is not None:
            suite_run.kill()
        raise


def _write_report(out, profile, seed, show_progress, instances, prof, start,
                  suite_run, store, sections) -> ReportResult:
    claims = [theory.get(cid) for cid in S002_IDS]
    log = VerdictLog()
    two_point_rows = []
    examples = [("two-point (paper's lambda)", generators.two_point(seed=seed)),
                ("two-point, lambda=1e-20", generators.two_point(lam=1e-20, seed=seed))]
    count = prof.examples if instances is None else instances
    family = family_instances(count, seed, prof.max_n)
    work = len(examples) + len(family)
    hashes = []
    with Progress(work, "simulating and checking", enabled=show_progress) as bar:
        two_point_traj = None
        for label, prob in examples:
            traj = s002_trajectory(prob, points=prof.saved_times)
            two_point_traj = two_point_traj or traj
            hashes.append((label, prob.describe()))
            for claim in claims:
                v = log.record(check(claim, traj), claim.kind.value)
                two_point_rows.append([label, claim.id, v.outcome.value, _fmt(v.observed),
                                       _fmt(v.predicted), _fmt(v.margin), _fmt(v.tolerance),
                                       v.reason])
            bar.advance()
        for prob in family:
            traj = s002_trajectory(prob, points=prof.saved_times)
            hashes.append(("orthonormal family", prob.describe()))
            for claim in claims:
                log.record(check(claim, traj), claim.kind.value)
            bar.advance()
    figure = out / "two_point_loss.png"
    _two_point_figure(two_point_traj, figure)
    table = log.table()
    gd_figure = out / "e002_1_gd_loss.png"
    repro = e002_1_reproduction(gd_figure, seed=seed)
    others = []
    for name in sections:
        if show_progress:
            print(f"reproduction {name} ...", file=sys.stderr, flush=True)
        module = importlib.import_module(name)
        others.append(module.run(out, profile, seed=seed, show_progress=show_progress,
                                 store=store))
    suite_result = suite_run.result(show_progress) if suite_run is not None else None
    claim_figs = claim_figures(suite_result["claims"], out) if suite_result else {}
    wall = time.perf_counter() - start
    env = environment()
    method = two_point_traj.method + " " + json.dumps(two_point_traj.options)

    blocks = _blocks(profile, seed, wall, table, claims, two_point_rows, figure, repro,
                     gd_figure, suite_result, prof, method, env, hashes, others, claim_figs)
    title = "gfverify bound-checking report"
    index = out / "index.md"
    _atomic_write(index, to_markdown(blocks))
    html_path = out / "index.html"
    _atomic_write(html_path, to_html(blocks, title))
    verdicts_json = out / "verdicts.json"
    _atomic_write(verdicts_json, json.dumps(
        {"profile": profile, "seed": seed, "claims": table, "suite": suite_result,
         "reproduction": {"E-002-1": repro, **{r.experiment: r.data for r in others}},
         "provenance": env,
         "instances": [{"label": lb, "problem": ds} for lb, ds in hashes],
         "wall_time": wall}, indent=2))
    figures = ((figure, gd_figure) + tuple(f for r in others for f in r.figures)
               + tuple(claim_figs.values()))
    return ReportResult(out, index, verdicts_json, figures, table, wall,
                        html_path, suite_result, repro, tuple(others))


def _blocks(profile, seed, wall, table, claims, two_point_rows, figure, repro, gd_figure,
            suite_result, prof, method, env, hashes, others=(), claim_figs=None) -> list[tuple]:
    rows, notes = verdict_rows(table)
    b: list[tuple] = [
        ("h", 1, "gfverify bound-checking report"),
        *([("p", "**" + suite_failure(suite_result) + "**")] if suite_failure(suite_result)
          else []),
        ("p", f"Profile `{profile}`, seed {seed}, generated "
              f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC in {wall:.1f} s."),
        ("p", "Each claim is checked on exact gradient-flow trajectories (DOP853 between "
              "located activation switches; error estimated against a companion run at 10x "
              "looser tolerance). A margin inside the numerical error is INCONCLUSIVE; an "
              "instance where an assumption fails is INAPPLICABLE."),
    ]
    b += _suite_blocks(suite_result, others)
    b += [("h", 2, "Verdicts: S002 foundation claims"),
          ("p", "S002-L1, S002-T1 and S002-L3 on the two-point example (two values of "
                "lambda) and random instances of the orthonormal family."),
          ("table", VERDICT_HEADER, rows)]
    if notes:
        b += [("p", "Why instances were not decided:"), ("list", notes)]
    b.append(("h", 2, "Claims"))
    for claim in claims:
        params = ", ".join(f"{k} = {sp.sstr(v)}" for k, v in claim.parameters.items())
        b += [("h", 3, f"{claim.id}: {claim.title}"),
              ("p", f"Source: {claim.source}. Kind: {claim.kind.value}."),
              ("math", claim.latex()),
              ("p", f"Parameters: {params or 'none'}. {claim.parameter_notes}"),
              ("p", "Setting: " + "; ".join(a.text for a in claim.setting) + ".")]
        if claim.flags:
            b.append(("list", [f"flag: {flag}" for flag in claim.flags]))
    b += [
        ("h", 2, "S002 two-point example (section 5, E-002-1)"),
        ("p", "x1 = (-0.5, 1), y1 = -1; x2 = (2, 1), y2 = +1; balanced initialisation. The "
              "loss falls in two steps separated by a saddle plateau; the dashed lines are "
              "the predicted phase times -ln(lambda)/||D_+|| and -ln(lambda)/||D_-||."),
        ("img", figure, "loss and key-neuron norms of the two-point example"),
        ("table", ["instance", "claim", "verdict", "observed", "bound", "margin",
                   "numerical error", "note"], two_point_rows),
    ]
    b += _repro_blocks(repro, gd_figure)
    for r in others:
        b += r.blocks
    b += _catalogue_blocks(suite_result, claim_figs or {})
    b += [("h", 2, "Provenance"),
          ("list", [f"method: {method}",
                    f"saved times per run: {prof.saved_times}; horizon 3.6 (-ln lambda)/"
                    f"min||D_+-||",
                    f"seed of the random instances: {seed}; the verification suite uses its "
                    "own fixed seeds (shown in the table's `where` column)",
                    f"wall time: {wall:.1f} s in total"
                    + (f", of which the verification suite {suite_result['wall_time']:.1f} s"
                       if suite_result else "")
                    + f", E-002-1 gradient descent {repro['wall_time']:.1f} s"
                    + "".join(f", {r.experiment} {r.wall_time:.1f} s" for r in others),
                    "versions: " + ", ".join(f"{k} {v}" for k, v in env.items())]),
          ("p", f"Instances of the S002 foundation table ({len(hashes)}):"),
          ("list", [f"{label}: {desc}" for label, desc in hashes])]
    return b


def _suite_blocks(suite_result, others=()) -> list[tuple]:
    b: list[tuple] = [("h", 2, "Verdicts: every checkable claim (verification suite)")]
    repro_findings = [f for r in others for f in r.findings]
    if suite_result is None:
        b += [("p", "Not run (`--no-suite`). `pytest verify` prints this table.")]
        if repro_findings:
            b += [("h", 2, "Findings"), ("list", repro_findings)]
        return b
    rows, notes = verdict_rows(suite_result["claims"])
    score = suite_result["mutant_score"]
    b += [("p", f"`{suite_result['command']}`: {suite_result['summary'] or 'no summary'} "
                f"(exit code {suite_result['exit_code']}, "
                f"{suite_result['wall_time']:.0f} s). One row per claim: instances checked, "
                "outcome counts, and the instance (content hash and seed) and time where the "
                "margin was smallest. Rows marked `published` were decided on data the "
                "papers' authors published, not on our simulations, and are counted apart."),
          ("table", VERDICT_HEADER, rows),
          ("p", mutants_mod.summary_line(score) + " (deliberately wrong variants of the "
                "claims that the checks must reject; the roster is "
                "`verify/mutant_roster.txt`)")]
    if notes:
        b += [("p", "Why instances were not decided:"), ("list", notes)]
    b.append(("h", 2, "Findings"))
    found = findings_mod.distinct([findings_mod.Finding.from_dict(d)
                                   for d in suite_result["findings"]])
    if found:
        b.append(("p", "Measured by this run of the suite (each test asserts that its finding "
                       "reproduces, and builds the text from its own numbers):"))
        b.append(("list", [f.markdown()[2:] for f in found]))
    else:
        b.append(("p", "The suite recorded no findings."))
    if repro_findings:
        b.append(("p", "From the reproductions of the papers' experiments (evidence in their "
                       "sections below):"))
        b.append(("list", repro_findings))
    return b


def _repro_blocks(repro, gd_figure) -> list[tuple]:
    rows = []
    for r in repro["runs"]:
        d1, d2 = r["mid_drops"]
        e1, e2 = r["theory_expected"]
        name = ("eq. (1) (loss_scale 1)" if r["loss_scale"] == 1.0
                else "torch MSE mean, gradient of 2L (loss_scale 2)")
        rows.append([name, "-" if d1 is None else str(d1), "-" if d2 is None else str(d2),
                     f"~{e1} / ~{e2}", "~5000 / ~11000", f"{r['final_loss']:.3g}"])
    return [
        ("h", 2, "Reproduction E-002-1: gradient descent on the two-point example"),
        ("p", "S002 section 5: m = 60 neurons, lambda = 1e-6/sqrt(60), GD with step 1e-3. "
              f"Method: {repro['method']}. The mid-drops are the first iterations where the "
              "loss of eq. (1) falls below the midpoint between L(0) and the saddle plateau "
              "||y_-||^2/(2n), and between the plateau and 0. With eq. (1) exactly the drops "
              "come about twice as late as the paper reports; with torch's MSE mean "
              "normalisation (twice the gradient) they match it (THEORY section 8, item 9)."),
        ("table", ["loss", "first mid-drop (iteration)", "second mid-drop (iteration)",
                   "THEORY expects", "paper reports", "final loss"], rows),
        ("img", gd_figure, "loss curves of the two-point example under GD, both normalisations"),
    ]


def _catalogue_status(r: dict) -> str:
    margin = ("" if r["worst_margin"] is None else
              f"; worst margin {r['worst_margin']:.3g}"
              + ("" if r["tolerance"] is None else f" (err {r['tolerance']:.1g})")
              + f" at {r['where']}")
    data = " of published data" if r.get("data") == "published" else ""
    return (f"verdict {r['verdict']} on {r['instances']} instances{data} (HOLDS "
            f"{r['HOLDS']}, VIOLATED {r['VIOLATED']}, INAPPLICABLE "
            f"{r['INAPPLICABLE']}, INCONCLUSIVE {r['INCONCLUSIVE']}){margin}")


def _catalogue_blocks(suite_result, claim_figs=None) -> list[tuple]:
    rows_of: dict[str, list[dict]] = {}
    for r in (suite_result or {}).get("claims", []):
        rows_of.setdefault(r["claim"], []).append(r)
    b: list[tuple] = [("h", 2, "Catalogue"),
                      ("p", "Every claim of the catalogue (`gfverify claims`), grouped by "
                            "paper: source, statement, flags, and the suite's verdict.")]
    all_claims = theory.claims()
    for paper in sorted({c.paper for c in all_claims}):
        b.append(("h", 3, paper))
        for c in (c for c in all_claims if c.paper == paper):
            if c.checkable and c.id in rows_of:
                status = "; ".join(_catalogue_status(r) for r in rows_of[c.id])
            elif c.checkable:
                status = "verdict not run"
            else:
                status = f"not checkable: {c.not_checkable_reason}"
            b.append(("p", f"{c.id} ({c.kind.value}): {c.title}. Source: {c.source}. "
                           f"{status}."))
            b.append(("math", c.latex()))
            if c.flags:
                b.append(("list", [f"flag: {flag}" for flag in c.flags]))
            for key in (c.id, f"{c.id} (published data)"):
                if claim_figs and key in claim_figs:
                    b.append(("img", claim_figs[key],
                              f"{key}: the measured quantity against the claim on the "
                              "instance with the worst margin (or the fit against the "
                              "claimed law)"))
    return b
