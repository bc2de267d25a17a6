"""The bound-checking report: `gfverify report --profile quick --out DIR`.

Writes ``DIR/index.md`` and the same content as a self-contained ``DIR/index.html``
(figures and formulas embedded), ``DIR/verdicts.json`` and the PNG figures. The
report holds the whole verdict table of the verification suite (``pytest verify``,
run in a subprocess: every checkable claim of every pack, with the mutants and the
findings), then every pack's report sections in pack order (`theory.packs`; each a
`verify.report.reproduction.Reproduction`: the papers' experiments, S002's foundation table),
one entry per claim of the catalogue, and provenance. This module knows no paper. Files
are written to a temporary name and renamed, so an interrupted run never leaves a
half-written report.
"""

from __future__ import annotations

import importlib
import inspect
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

import theory
from numerics.provenance import environment
from verify import findings as findings_mod
from verify import limits
from verify import mutants as mutants_mod
from verify.claim_figures import claim_figures
from verify.errors import InputError
from verify.profiles import get_profile
from verify.progress import Progress
from verify.report import tightness
from verify.report.doc import (
    Block,
    Bullets,
    Figure,
    Heading,
    Math,
    Paragraph,
    Table,
    to_html,
    to_markdown,
)
from verify.table import VERDICT_HEADER, verdict_rows


@dataclass(frozen=True)
class ReportResult:
    out_dir: Path
    index: Path
    verdicts_json: Path
    figures: tuple[Path, ...]
    wall_time: float
    html: Path | None = None
    suite: dict | None = None
    reproductions: tuple = ()


def _atomic_write(path: Path, data: str | bytes) -> None:
    tmp = path.with_name(path.name + ".partial")
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(tmp, mode) as fh:
        fh.write(data)
    os.replace(tmp, path)


# -- the verification suite ------------------------------------------------------------------
_PERCENT = re.compile(r"\[\s*(\d+)%\]")


class SuiteRun:
    """``pytest verify`` in a subprocess (so the report's process stays clean), started at
    once so that it runs while the report simulates; `result` waits for it and collects
    its verdict table, the mutants scored against the declared roster and the findings
    measured by the run (all from ``--verify-json``; `verify.findings`)."""

    def __init__(self, profile: str, show_progress: bool = True) -> None:
        verify_dir = Path(__file__).resolve().parents[1]  # the verify package
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


# -- the report --------------------------------------------------------------------------------
# The reproduction sections (THEORY section 5), in report order: module names, each with
# run(out, profile, seed, show_progress, store) -> verify.report.reproduction.Reproduction.
def reproduction_modules() -> tuple[str, ...]:
    """The report's sections: every pack's ``reproductions`` (built-in packs first, then
    the installed ones; `theory.packs`)."""
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
    get_profile(profile)  # an unknown profile is refused before any work
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
    sections = reproduction_modules() if reproductions is None else tuple(reproductions)
    modules = [importlib.import_module(name) for name in sections]
    for module in modules:  # inputs a section needs (published data) are checked first
        if hasattr(module, "preflight"):
            module.preflight()
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
    try:
        return _write_report(out, profile, seed, show_progress, instances, start,
                             suite_run, store, dict(zip(sections, modules, strict=True)))
    except BaseException:
        if suite_run is not None:
            suite_run.kill()
        raise


def _write_report(out, profile, seed, show_progress, instances, start,
                  suite_run, store, sections) -> ReportResult:
    others = []
    for name, module in sections.items():
        if show_progress:
            print(f"reproduction {name} ...", file=sys.stderr, flush=True)
        # ``instances`` (--instances) goes to the sections that draw random instances
        extra = ({"instances": instances}
                 if "instances" in inspect.signature(module.run).parameters else {})
        others.append(module.run(out, profile, seed=seed, show_progress=show_progress,
                                 store=store, **extra))
    if show_progress:
        print("tightness table ...", file=sys.stderr, flush=True)
    tight_blocks, tight_data = tightness.run(out, profile, store, show_progress)
    suite_result = suite_run.result(show_progress) if suite_run is not None else None
    claim_figs = claim_figures(suite_result["claims"], out) if suite_result else {}
    wall = time.perf_counter() - start
    env = environment()

    blocks = _blocks(profile, seed, wall, suite_result, env, others, claim_figs,
                     (tight_blocks, tight_data))
    title = "gfverify bound-checking report"
    index = out / "index.md"
    _atomic_write(index, to_markdown(blocks))
    html_path = out / "index.html"
    _atomic_write(html_path, to_html(blocks, title))
    verdicts_json = out / "verdicts.json"
    _atomic_write(verdicts_json, json.dumps(
        {"profile": profile, "seed": seed, "suite": suite_result,
         "reproduction": {r.experiment: r.data for r in others}, "tightness": tight_data,
         "provenance": env, "wall_time": wall}, indent=2))
    figures = tuple(f for r in others for f in r.figures) + tuple(claim_figs.values())
    return ReportResult(out, index, verdicts_json, figures, wall, html_path, suite_result,
                        tuple(others))


def _blocks(profile, seed, wall, suite_result, env, others=(), claim_figs=None,
            tightness_section=((), {})) -> list[Block]:
    b: list[Block] = [
        Heading(1, "gfverify bound-checking report"),
        *([Paragraph("**" + suite_failure(suite_result) + "**")] if suite_failure(suite_result)
          else []),
        Paragraph(f"Profile `{profile}`, seed {seed}, generated "
              f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC in {wall:.1f} s."),
        Paragraph("Each claim is checked on exact gradient-flow trajectories (DOP853 between "
              "located activation switches; error estimated against a companion run at 10x "
              "looser tolerance). A margin inside the numerical error is INCONCLUSIVE; an "
              "instance where an assumption fails is INAPPLICABLE."),
    ]
    b += _suite_blocks(suite_result, others)
    for r in others:
        b += r.blocks
    tight_blocks, tight_data = tightness_section
    b += list(tight_blocks)
    b += _catalogue_blocks(suite_result, claim_figs or {}, tight_data.get("claims", {}))
    b += [Heading(2, "Provenance"),
          Bullets([f"seed of the sections' random instances: {seed}; the verification suite "
                    "uses its own fixed seeds (shown in the table's `where` column)",
                    f"wall time: {wall:.1f} s in total"
                    + (f", of which the verification suite {suite_result['wall_time']:.1f} s"
                       if suite_result else "")
                    + "".join(f", {r.experiment} {r.wall_time:.1f} s" for r in others),
                    "versions: " + ", ".join(f"{k} {v}" for k, v in env.items())])]
    return b


def _suite_blocks(suite_result, others=()) -> list[Block]:
    b: list[Block] = [Heading(2, "Verdicts: every checkable claim (verification suite)")]
    repro_findings = [f for r in others for f in r.findings]
    if suite_result is None:
        b += [Paragraph("Not run (`--no-suite`). `pytest verify` prints this table.")]
        if repro_findings:
            b += [Heading(2, "Findings"), Bullets(repro_findings)]
        return b
    rows, notes = verdict_rows(suite_result["claims"])
    score = suite_result["mutant_score"]
    b += [Paragraph(f"`{suite_result['command']}`: {suite_result['summary'] or 'no summary'} "
                f"(exit code {suite_result['exit_code']}, "
                f"{suite_result['wall_time']:.0f} s). One row per claim: instances checked, "
                "outcome counts, and the instance (content hash and seed) and time where the "
                "margin was smallest. Rows marked `published` were decided on data the "
                "papers' authors published, not on our simulations, and are counted apart."),
          Table(VERDICT_HEADER, rows),
          Paragraph(mutants_mod.summary_line(score) + " (deliberately wrong variants of the "
                "claims that the checks must reject; the roster is "
                "`verify/mutant_roster.txt`)")]
    if notes:
        b += [Paragraph("Why instances were not decided:"), Bullets(notes)]
    b.append(Heading(2, "Findings"))
    found = findings_mod.distinct([findings_mod.Finding.from_dict(d)
                                   for d in suite_result["findings"]])
    if found:
        b.append(Paragraph("Measured by this run of the suite (each test asserts that its finding "
                       "reproduces, and builds the text from its own numbers):"))
        b.append(Bullets([f.markdown()[2:] for f in found]))
    else:
        b.append(Paragraph("The suite recorded no findings."))
    if repro_findings:
        b.append(Paragraph("From the reproductions of the papers' experiments (evidence in their "
                       "sections below):"))
        b.append(Bullets(repro_findings))
    return b


def _catalogue_status(r: dict) -> str:
    margin = ("" if r["worst_margin"] is None else
              f"; worst margin {r['worst_margin']:.3g}"
              + ("" if r["tolerance"] is None else f" (err {r['tolerance']:.1g})")
              + f" at {r['where']}")
    data = " of published data" if r.get("data") == "published" else ""
    return (f"verdict {r['verdict']} on {r['instances']} instances{data} (HOLDS "
            f"{r['HOLDS']}, VIOLATED {r['VIOLATED']}, INAPPLICABLE "
            f"{r['INAPPLICABLE']}, INCONCLUSIVE {r['INCONCLUSIVE']}){margin}")


def _catalogue_blocks(suite_result, claim_figs=None, tight=None) -> list[Block]:
    rows_of: dict[str, list[dict]] = {}
    for r in (suite_result or {}).get("claims", []):
        rows_of.setdefault(r["claim"], []).append(r)
    b: list[Block] = [Heading(2, "Catalogue"),
                      Paragraph("Every claim of the catalogue (`gfverify claims`), grouped by "
                            "paper: source, statement, flags, and the suite's verdict.")]
    all_claims = theory.claims()
    for paper in sorted({c.paper for c in all_claims}):
        b.append(Heading(3, paper))
        for c in (c for c in all_claims if c.paper == paper):
            if c.checkable and c.id in rows_of:
                status = "; ".join(_catalogue_status(r) for r in rows_of[c.id])
            elif c.checkable:
                status = "verdict not run"
            else:
                status = f"not checkable: {c.not_checkable_reason}"
            b.append(Paragraph(f"{c.id} ({c.kind.value}): {c.title}. Source: {c.source}. "
                           f"{status}."))
            b.append(Math(c.latex()))
            if c.flags:
                b.append(Bullets([f"flag: {flag}" for flag in c.flags]))
            lines = [tightness.catalogue_line(key, d) for key, d in (tight or {}).items()
                     if key == c.id or key.startswith(f"{c.id} part ")]
            if lines:
                b.append(Bullets(lines))
            for key in (c.id, f"{c.id} (published data)"):
                if claim_figs and key in claim_figs:
                    b.append(Figure(claim_figs[key],
                              f"{key}: the measured quantity against the claim on the "
                              "instance with the worst margin (or the fit against the "
                              "claimed law)"))
    return b
