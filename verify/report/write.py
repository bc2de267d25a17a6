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

import contextlib
import importlib
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import theory
from numerics.provenance import environment
from theory.suggest import did_you_mean
from verify.errors import InputError
from verify.language import limits
from verify.report import eta, front, tightness, verdict_table
from verify.report import latex as latex_export
from verify.report.doc import (
    Block,
    Bullets,
    Figure,
    Heading,
    Math,
    Paragraph,
    Table,
    slug,
    to_html,
    to_markdown,
)
from verify.results import mutants as mutants_mod
from verify.results.claim_figures import claim_figures
from verify.results.figures import pdf_copies
from verify.results.findings import data_label
from verify.running.pool import Background
from verify.running.profiles import get_profile
from verify.running.progress import Heartbeat, Progress, latest_bar, say


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
    catalogue: Path | None = None  # catalogue.html
    latex: Path | None = None  # latex/gfverify-report.tex (with --format latex)


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
    measured by the run (all from ``--verify-json``; `verify.results.findings`). A watcher thread
    collects the result as soon as the suite ends and hands it to ``on_done`` (the report
    keeps it at once: an interrupted report still has it)."""

    def __init__(self, profile: str, show_progress: bool = True, on_done=None,
                 certify: int = 0, runs_args: tuple[str, ...] = ()) -> None:
        from theory import packs

        verify_dir = Path(__file__).resolve().parents[1]  # the verify package
        self.start = time.perf_counter()
        self.tmp = tempfile.TemporaryDirectory(prefix="gfverify-suite-")
        self.vjson = Path(self.tmp.name) / "verdicts.json"
        self.out = open(Path(self.tmp.name) / "stdout.txt", "w+")  # noqa: SIM115
        self.cmd = [sys.executable, "-m", "pytest", str(verify_dir), "-q", "-p",
                    "no:cacheprovider", f"--verify-profile={profile}",
                    f"--verify-packs={packs.selection()}",
                    f"--verify-json={self.vjson}"]
        if certify:
            self.cmd.insert(-1, f"--verify-certify={int(certify)}")
        # the report's run store and cluster (verify.running.runs)
        self.cmd[-1:-1] = list(runs_args)
        if show_progress:
            say("running the verification suite (pytest verify) in the background ...")
        # one BLAS and torch thread: the suite shares the machine with the report's sections
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                   MKL_NUM_THREADS="1", GFVERIFY_THREADS="1")
        self.proc = subprocess.Popen(self.cmd, cwd=verify_dir.parent, stdout=self.out,
                                     stderr=subprocess.STDOUT, text=True, env=env)
        self.killed = False
        self._result: dict | None = None
        self._on_done = on_done
        self._watcher = threading.Thread(target=self._collect, daemon=True,
                                         name="gfverify-suite-watcher")
        self._watcher.start()

    def _collect(self) -> None:
        returncode = self.proc.wait()
        if self.killed:
            return
        try:
            self.out.seek(0)
            stdout = self.out.read()
            data = (json.loads(self.vjson.read_text()) if self.vjson.exists()
                    else {"claims": [], "mutants": [], "findings": []})
        finally:
            self.out.close()
            self.tmp.cleanup()
        self._result = _suite_dict(self.cmd, returncode, stdout, data, self.start)
        if self._on_done is not None:
            self._on_done(self._result)

    @property
    def finished(self) -> bool:
        """Whether the suite's result has been collected."""
        return self._result is not None

    def percent_done(self) -> int:
        """The suite's progress so far: the last ``[ NN%]`` marker of pytest's -q output."""
        try:
            text = Path(self.out.name).read_text(errors="replace")
        except OSError:
            return 100 if self.finished else 0
        marks = _PERCENT.findall(text)
        return int(marks[-1]) if marks else 0

    def result(self, show_progress: bool = True) -> dict:
        if show_progress and not self.finished:
            with Progress(100, "verification suite (% of tests)") as bar:
                while self._watcher.is_alive():
                    done = self.percent_done()
                    if done > bar.done:
                        bar.advance(done - bar.done)
                    self._watcher.join(0.5)
                bar.advance(100 - bar.done)
        self._watcher.join()
        return self._result

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.killed = True
            self.proc.kill()
            self.proc.wait()
        self._watcher.join(timeout=10.0)
        if not self.out.closed:
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


def _section_module(name: str):
    """A report section's module; one that does not import is a `PackError` naming the
    pack that declares it and the module."""
    from theory import packs

    try:
        return importlib.import_module(name)
    except Exception as exc:
        owner = next((p for p in packs.packs() if name in p.reproductions), None)
        if owner is not None and owner.builtin and not isinstance(
                exc, ImportError):
            raise  # a built-in section that fails on import is our bug (exit 4)
        raise packs.PackError(
            f"pack {owner.name if owner else '?'!r}: its report section {name!r} (in "
            f"reproductions) does not import ({type(exc).__name__}: {exc})") from None


def _sections_by_pack() -> dict[str, tuple[str, ...]]:
    """Each pack's name -> its report sections' modules (its ``reproductions``)."""
    from theory import packs

    return {pack.name: tuple(pack.reproductions) for pack in packs.packs()}


def packs_of_sections(sections) -> tuple[str, ...]:
    """The names of the packs that own any of the report sections ``sections`` (modules)."""
    chosen = set(sections)
    return tuple(name for name, owned in _sections_by_pack().items() if chosen & set(owned))


def select_sections(names) -> tuple[str, ...]:
    """The report sections ``names`` select (``gfverify report --section``), in report
    order: a pack's name (all its sections, e.g. ``S002``), a section's module
    (``papers.s002.repro_gd``) or its last component (``repro_gd``). An unknown name is an
    `InputError` listing the choices."""
    by_pack = _sections_by_pack()
    every = reproduction_modules()
    chosen: set[str] = set()
    for name in names:
        hits = (set(by_pack.get(name, ())) | {m for m in every
                                             if name in (m, m.rsplit(".", 1)[-1])})
        if not hits:
            short = [m.rsplit(".", 1)[-1] for m in every]
            near = did_you_mean(name, [*by_pack, *short])
            raise InputError(
                f"--section {name!r}: not a pack with report sections nor a section; "
                f"{near + ' (' if near else ''}choose from the packs "
                f"{', '.join(p for p, s in by_pack.items() if s)} or the sections "
                f"{', '.join(short)}{')' if near else ''}")
        chosen |= hits
    return tuple(m for m in every if m in chosen)


class ReportInterrupted(KeyboardInterrupt):
    """The report was stopped (Ctrl-C, SIGTERM); ``str()`` says what it kept and where."""


def write_report(out_dir: str | os.PathLike, profile: str = "quick", seed: int = 0,
                 show_progress: bool = True, instances: int | None = None,
                 suite: bool = True, store: str | os.PathLike | None = None,
                 reproductions: tuple[str, ...] | None = None,
                 latex: bool = False, fresh: bool = False, certify: int = 0,
                 parallel: bool | None = None, scheduler: str | None = None,
                 dask_local: int | None = None) -> ReportResult:
    """Write the report; ``instances`` overrides the profile's number of random instances;
    ``suite=False`` skips the verification suite (the report then says so). Sweeps of the
    reproductions are stored in ``store`` (default ``out_dir/store``) and read back from
    there: a second report with the same store recomputes nothing. ``reproductions``
    selects sections by module name (default: all of `reproduction_modules`). ``latex``
    also writes ``out_dir/latex/`` (`verify.report.latex`: a fragment for a paper's
    appendix and the sections' figures as PDF). ``certify`` (``--certify N``): the suite
    also decides each check on the certified tubes of up to N instances (a certified
    column in the verdict table and its LaTeX).

    Finished parts (the suite's result, each section) are kept in ``out_dir`` as they
    finish (`verify.report.resume`); a run stopped by Ctrl-C or SIGTERM raises
    `ReportInterrupted` after writing ``verdicts.json`` with what it has, and the next run
    with the same ``out_dir`` resumes from the kept parts (``fresh`` discards them).

    ``parallel`` (default: when the machine has two cores or more): the tightness table runs
    in a worker process beside the sections (`verify.running.pool.Background`), the suite in its
    own; otherwise after them in this process.

    ``scheduler`` (``--scheduler ADDRESS``) or ``dask_local`` (``--dask-local N``): the
    sections' runs and the suite's are tasks of that Dask cluster (a local one is started
    here and the suite joins it), and every run is kept in ``store``/runs as it finishes
    (`verify.running.runs`): a stopped report resumes without re-running them."""
    from theory import packs
    from verify.report.resume import Request, SavedProgress, code_fingerprint

    get_profile(profile)  # an unknown profile is refused before any work
    theory.claims()  # so is a pack whose claims are malformed (PackError naming it)
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
    modules = [_section_module(name) for name in sections]
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
    if certify and not suite:
        raise InputError("--certify: certifies the verification suite's checks; it cannot "
                         "go with --no-suite")
    if certify < 0:
        raise InputError(f"--certify: a number of instances >= 1, got {certify}")
    request = Request(profile, seed, instances, tuple(sections),
                      packs.selection() if suite else "", code_fingerprint(sections),
                      int(certify))
    saved = SavedProgress(out, request, fresh=fresh)
    if saved.resumed and show_progress:
        say(f"report: resuming in {out}: reusing {saved.describe()} from an earlier run")
    store = Path(store) if store is not None else out / "store"
    runs_context = _runs_context(store, scheduler, dask_local)
    runner, runs_args = runs_context.__enter__()
    suite_run = (SuiteRun(profile, show_progress, on_done=saved.save_suite, certify=certify,
                          runs_args=runs_args)
                 if suite and saved.suite is None else None)
    # the commit of the code this run loaded (its sections were imported above and the
    # suite starts now), not the checkout's when the pages are written, which may be later
    state = {"part": "starting", "commit": front.source_commit()}
    if parallel is None:
        parallel = (os.cpu_count() or 1) >= 2
    tight_run = None
    # a report of some sections only (--section) tightens their packs' claims only
    tight_papers = None if reproductions is None else packs_of_sections(sections)
    if parallel and "tightness" not in saved.sections:
        tight_run = Background(tightness.run, out, profile, store, False, instances,
                               papers=tight_papers)
        if show_progress:
            say("tightness table: running in a worker process beside the sections ...")

    clock = eta.Clock(sections, profile, times=_expected_times(profile, tight_papers),
                      beside=[p for p, run in (("suite", suite_run), ("tightness", tight_run))
                              if run is not None],
                      after=[] if tight_run is not None or "tightness" in saved.sections
                      else ["tightness"])

    def status() -> str:
        bar = latest_bar()
        _note_finished(clock, suite_run, tight_run)
        return (f"{state['part']}{': ' + bar if bar else ''}{_tightness_status(tight_run)}"
                f"{_suite_status(suite_run)}; {clock.line()}")

    try:
        with Heartbeat(status, enabled=show_progress):
            result = _write_report(out, profile, seed, show_progress, instances, start,
                                   suite_run, saved, store,
                                   dict(zip(sections, modules, strict=True)), latex, state,
                                   tight_run, clock, tight_papers)
    except BaseException as exc:
        if tight_run is not None:
            _keep_tightness(tight_run, saved)
            tight_run.terminate()
        if suite_run is not None and not suite_run.finished:
            suite_run.kill()
        runs_context.__exit__(None, None, None)
        if isinstance(exc, KeyboardInterrupt):
            raise ReportInterrupted(_keep_partial(out, profile, seed, saved)) from None
        raise
    runs_context.__exit__(None, None, None)
    saved.finish()
    return result


@contextlib.contextmanager
def _runs_context(store: Path, scheduler: str | None, dask_local: int | None):
    """The report's runner (`verify.running.runs`) and the pytest options that give the suite the
    same store and cluster: none without ``scheduler``/``dask_local`` (the runs are then
    made as before, here and in the suite's process)."""
    if scheduler is None and dask_local is None:
        yield None, ()
        return
    from verify.running import runs
    from verify.running.executors import executor_for

    with executor_for(scheduler, dask_local) as ex:
        address = ex.scheduler_address()  # a local cluster starts now: the suite joins it
        runner = runs.Runner(runs.RunStore(store / "runs"), ex)
        with runs.using(runner):
            yield runner, (f"--verify-store={store / 'runs'}", f"--scheduler={address}")


def _expected_times(profile: str, tight_papers) -> dict[str, float]:
    """The recorded part times (`eta.recorded_times`), the tightness table's scaled to the
    share of the tightenable claims it covers when ``--section`` limits it to some packs'
    (the recorded time is the whole table's)."""
    times = eta.recorded_times(profile)
    if tight_papers is not None and "tightness" in times:
        every = len(tightness.tightenable_claims())
        if every:
            times["tightness"] *= len(tightness.tightenable_claims(tight_papers)) / every
    return times


def _keep_partial(out: Path, profile: str, seed: int, saved) -> str:
    """After a stop: ``verdicts.json`` with the parts that finished; the message to print."""
    kept = saved.describe()
    others = [r for r in saved.sections.values() if hasattr(r, "experiment")]
    _atomic_write(out / "verdicts.json", json.dumps(
        {"profile": profile, "seed": seed, "partial": True, "kept": kept,
         "suite": saved.suite, "reproduction": {r.experiment: r.data for r in others},
         "provenance": environment()}, indent=2))
    if saved.suite is None and not saved.sections:
        return (f"interrupted before any part finished: nothing kept in {out} (its "
                "verdicts.json says so, marked partial)")
    return (f"interrupted: kept {kept} in {out} ({out / 'verdicts.json'} has them, marked "
            "partial); run the same command to resume from them")


def _note_finished(clock, suite_run, tight_run) -> None:
    """Tell the clock which parts beside the sections have finished."""
    for part, run in (("suite", suite_run), ("tightness", tight_run)):
        if run is not None and run.finished:
            clock.finished(part)


def _write_report(out, profile, seed, show_progress, instances, start, suite_run, saved,
                  store, sections, latex=False, state=None, tight_run=None,
                  clock=None, tight_papers=None) -> ReportResult:
    state = state if state is not None else {}
    clock = clock if clock is not None else eta.Clock(sections, profile)
    others, part_times = [], {}
    pdfs = (pdf_copies(out / latex_export.DIRECTORY / latex_export.FIGURES) if latex
            else contextlib.nullcontext())
    with pdfs:
        for k, (name, module) in enumerate(sections.items()):
            state["part"] = f"reproduction {name}"
            clock.begin(k)
            if name in saved.sections:
                others.append(saved.sections[name])
                clock.end(name, kept=True)
                if show_progress:
                    say(f"reproduction {name} (section {k + 1} of {len(sections)}): kept "
                        "from the earlier run")
                continue
            _note_finished(clock, suite_run, tight_run)
            if show_progress:
                say(f"reproduction {name} ...{_tightness_status(tight_run)}"
                    f"{_suite_status(suite_run)}; {clock.line()}")
            # ``instances`` (--instances) goes to the sections that draw random instances
            extra = ({"instances": instances}
                     if "instances" in inspect.signature(module.run).parameters else {})
            began = time.perf_counter()
            rep = module.run(out, profile, seed=seed, show_progress=show_progress,
                             store=store, **extra)
            part_times[name] = time.perf_counter() - began
            clock.end(name, part_times[name])
            saved.save_section(name, rep)
            others.append(rep)
            _keep_tightness(tight_run, saved)
    clock.sections_over()
    state["part"] = "tightness table"
    if "tightness" in saved.sections:
        tight_blocks, tight_data = saved.sections["tightness"]
    elif tight_run is not None:
        tight_blocks, tight_data = _background_result(tight_run, show_progress)
        _keep_tightness(tight_run, saved)
    else:
        if show_progress:
            say(f"tightness table ...{_suite_status(suite_run)}")
        tight_blocks, tight_data = tightness.run(out, profile, store, show_progress, instances,
                                                 papers=tight_papers)
        saved.save_section("tightness", (tight_blocks, tight_data))
    clock.finished("tightness")
    if "wall_time" in tight_data:
        part_times["tightness"] = tight_data["wall_time"]
    state["part"] = "waiting for the verification suite"
    suite_result = (suite_run.result(show_progress) if suite_run is not None
                    else saved.suite)
    clock.finished("suite")
    if suite_run is not None and suite_result:
        part_times["suite"] = suite_result["wall_time"]
    state["part"] = "writing the report"
    writing = time.perf_counter()
    claim_figs = claim_figures(suite_result["claims"], out) if suite_result else {}
    wall = time.perf_counter() - start
    env = environment()

    run = front.run_facts(profile, seed, wall, env, state.get("commit"))
    blocks = _blocks(run, suite_result, env, others, (tight_blocks, tight_data))
    catalogue = _catalogue_blocks(suite_result, claim_figs, tight_data.get("claims", {}))
    index = out / "index.md"
    _atomic_write(index, to_markdown(blocks))
    html_path = out / "index.html"
    _atomic_write(html_path, to_html(blocks, TITLE))
    _atomic_write(out / "catalogue.md", to_markdown(catalogue))
    _atomic_write(out / "catalogue.html", to_html(catalogue, f"{TITLE}: catalogue"))
    fragment = None
    if latex:
        tight_rows = next((bl.rows for bl in tight_blocks if isinstance(bl, Table)), [])
        fragment = latex_export.write(out, latex_export.fragment_blocks(
            run, suite_result, others, tight_rows), _atomic_write)
    verdicts_json = out / "verdicts.json"
    part_times["writing"] = time.perf_counter() - writing  # (the pages; not verdicts.json)
    _atomic_write(verdicts_json, json.dumps(
        {"profile": profile, "seed": seed, "suite": suite_result,
         "reproduction": {r.experiment: r.data for r in others}, "tightness": tight_data,
         "provenance": {**env, "commit": run["commit"]}, "wall_time": wall,
         "part_times": part_times}, indent=2))
    figures = tuple(f for r in others for f in r.figures) + tuple(claim_figs.values())
    return ReportResult(out, index, verdicts_json, figures, wall, html_path, suite_result,
                        tuple(others), out / "catalogue.html", fragment)


TITLE = "gfverify bound-checking report"


def _tightness_status(tight_run) -> str:
    """Where the tightness table running beside the sections is, for the progress lines."""
    if tight_run is None:
        return ""
    if tight_run.finished:
        return " (tightness table: finished)"
    done, total = tight_run.progress()
    return f" (tightness table beside them: {done}/{total or '?'} claims)"


def _keep_tightness(tight_run, saved) -> None:
    """Keep the tightness table as soon as its worker has finished (a stop after it then
    loses nothing); a worker that failed is left for `_background_result` to report."""
    if tight_run is None or "tightness" in saved.sections or not tight_run.finished:
        return
    try:
        saved.save_section("tightness", tight_run.result())
    except Exception:  # noqa: BLE001 - raised again where the table is needed
        pass


def _background_result(tight_run, show_progress: bool):
    """The tightness table's result, with a bar of its claims while it is not done."""
    if show_progress and not tight_run.finished:
        while not tight_run.progress()[1] and tight_run.result(poll=0.5) is None:
            pass  # the worker has not counted its claims yet
        with Progress(max(tight_run.progress()[1], 1), "tightness table (in its worker)") as bar:
            while True:
                bar.advance(max(0, min(tight_run.progress()[0], bar.total) - bar.done))
                if tight_run.result(poll=0.5) is not None:
                    break
            bar.advance(bar.total - bar.done)
    return tight_run.result()


def _suite_status(suite_run) -> str:
    """Where the background verification suite is, for the report's progress lines."""
    if suite_run is None:
        return ""
    if suite_run.finished:
        return " (verification suite: finished)"
    return f" (verification suite in the background: {suite_run.percent_done()}% of tests)"


def _blocks(run, suite_result, env, others=(), tightness_section=((), {})) -> list[Block]:
    """The report's main page: summary, contents, verdicts, findings, the packs' sections,
    the tightness table, glossary and provenance (the catalogue is its own page)."""
    failure = suite_failure(suite_result)
    b: list[Block] = [
        Heading(1, TITLE, anchor="top"),
        *([Paragraph(f"**{failure}**")] if failure else []),
        *front.summary(suite_result, others, run),
        front.CONTENTS,
        Paragraph("How to read it: each claim is checked on exact gradient-flow trajectories "
                  "(the flow's Taylor series, or DOP853 where those do not apply, between "
                  "located activation switches; each run's error is estimated against a "
                  "companion run at a looser tolerance). A margin within the numerical "
                  "error is INCONCLUSIVE; an instance where an assumption fails is "
                  "INAPPLICABLE. Every claim's statement, source and figure are on the "
                  "[catalogue page](catalogue.html); words such as R or [seed] are in the "
                  "[glossary](#glossary)."),
    ]
    b += _suite_blocks(suite_result, others)
    for r in others:
        b += r.blocks
    tight_blocks, _ = tightness_section
    b += list(tight_blocks)
    b += front.glossary()
    b += front.provenance(run, env, suite_result, others)
    return b


def _suite_blocks(suite_result, others=()) -> list[Block]:
    b: list[Block] = [Heading(2, "Verdicts: every checkable claim", anchor="verdicts")]
    repro_findings = [f for r in others for f in r.findings]
    if suite_result is None:
        b += [Paragraph("Not run (`--no-suite`). `pytest verify` prints this table.")]
        if repro_findings:
            b += [Heading(2, "Findings", anchor="findings"), Bullets(repro_findings)]
        return b
    header, rows, anchors = verdict_table.rows(suite_result["claims"])
    score = suite_result["mutant_score"]
    b += [Paragraph(f"`{suite_result['command']}`: {suite_result['summary'] or 'no summary'} "
                    f"(exit code {suite_result['exit_code']}, "
                    f"{suite_result['wall_time']:.0f} s). One row per claim (and per variant, "
                    "such as `[lam 4^-7]`): instances checked, outcome counts, the smallest "
                    "margin with its numerical error, and where it was attained: the "
                    "instance (content hash and seed), the time t and the relation. Rows "
                    "marked `published` were decided on data the papers' authors published, "
                    "not on our simulations, and are counted apart."),
          Table(header, rows, anchors, nowrap=verdict_table.number_columns(header),
                wrap=verdict_table.wrapped_columns(header)),
          Paragraph(mutants_mod.summary_line(score) + " (deliberately wrong variants of the "
                    "claims that the checks must reject; the roster is "
                    "`verify/results/mutant_roster.txt`)")]
    reasons_header, reasons = verdict_table.undecided(suite_result["claims"])
    if reasons:
        b += [Paragraph("Why instances were not decided (grouped by reason):"),
              Table(reasons_header, reasons)]
    b.append(Heading(2, "Findings", anchor="findings"))
    found = front.suite_findings(suite_result)
    if found:
        b.append(Paragraph("Measured by this run of the suite (each test asserts that its "
                           "finding reproduces, and builds the text from its own numbers):"))
        b.append(Bullets([f.markdown()[2:] for f in found],
                         [f"finding-{f.id}" for f in found]))
    else:
        b.append(Paragraph("The suite recorded no findings."))
    if repro_findings:
        b.append(Paragraph("From the reproductions of the papers' experiments (evidence in "
                           "their sections below):"))
        b.append(Bullets(repro_findings))
    return b


def _catalogue_status(r: dict) -> str:
    instance, t, part = verdict_table.split_where(r)
    where = " ".join(x for x in (f"`{instance}`" if instance else "",
                                 f"t = {t}" if t else "",
                                 verdict_table.relation_cell(r["claim"], part, "")) if x)
    margin = ("" if r["worst_margin"] is None else
              f"; worst margin {r['worst_margin']:.3g}"
              + ("" if r["error"] is None else f" (error {r['error']:.1g})")
              + (f" at {where}" if where else ""))
    data = f" of {data_label(r.get('data'))}" if data_label(r.get("data")) else ""
    return (f"verdict {r['verdict']} on {r['instances']} instances{data} (HOLDS "
            f"{r['HOLDS']}, VIOLATED {r['VIOLATED']}, INAPPLICABLE "
            f"{r['INAPPLICABLE']}, INCONCLUSIVE {r['INCONCLUSIVE']}){margin}")


def _catalogue_blocks(suite_result, claim_figs=None, tight=None) -> list[Block]:
    """The catalogue page: every claim of every pack (source, statement, flags, the suite's
    verdict, its tightness line and figure), each anchored at its id."""
    rows_of: dict[str, list[dict]] = {}
    for r in (suite_result or {}).get("claims", []):
        rows_of.setdefault(r["claim"], []).append(r)
    b: list[Block] = [Heading(1, f"{TITLE}: catalogue", anchor="top"),
                      Paragraph("Every claim of the catalogue (`gfverify claims`), grouped by "
                                "paper: source, statement, flags, and the suite's verdict. "
                                "Back to the [report](index.html)'s "
                                "[verdict table](index.html#verdicts).")]
    all_claims = theory.claims()
    papers = sorted({c.paper for c in all_claims})
    b.append(Paragraph("Papers: " + ", ".join(f"[{p}](#{p})" for p in papers) + "."))
    for paper in papers:
        b.append(Heading(2, paper, anchor=paper))
        for c in sorted((c for c in all_claims if c.paper == paper),
                        key=lambda c: verdict_table.natural_key(c.id)):
            if c.checkable and c.id in rows_of:
                status = "; ".join(_catalogue_status(r) for r in rows_of[c.id])
            elif c.checkable:
                status = "verdict not run"
            else:
                status = f"not checkable: {c.not_checkable_reason}"
            b.append(Heading(3, f"{c.id}: {c.title}", anchor=c.id))
            b.append(Paragraph(f"{c.kind.value}. Source: {c.source}. {status}."))
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
                                    "claimed law)", anchor=f"fig-{slug(key)}"))
    return b
