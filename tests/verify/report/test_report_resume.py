"""An interrupted report keeps what finished and the next run resumes from it
(`verify.report.resume`, `verify.report.write`)."""

from __future__ import annotations

import json
import signal

import pytest

from verify.report import resume as resume_mod
from verify.report import write as W
from verify.report.reproduction import Reproduction

FIRST, SECOND = "papers.cel23.repro_theorem8", "papers.s000.repro_groups"


@pytest.fixture
def no_tightness(monkeypatch):
    """The tightness table is not what these tests are about (it takes a minute); the
    reports below run it in this process (``parallel=False``), where the stand-in is seen."""
    monkeypatch.setattr(W.tightness, "run", lambda *a, **k: ([], {"claims": {}}))


def _stop(*args, **kwargs):
    raise KeyboardInterrupt


def test_a_stopped_report_keeps_its_finished_sections_and_resumes(tmp_path, monkeypatch,
                                                                   no_tightness):
    second = W._section_module(SECOND)
    real_run = second.run
    monkeypatch.setattr(second, "run", _stop)
    with pytest.raises(W.ReportInterrupted) as stopped:
        W.write_report(tmp_path, suite=False, reproductions=(FIRST, SECOND),
                       show_progress=False, parallel=False)
    assert "kept 1 finished section(s) (repro_theorem8)" in str(stopped.value)
    data = json.loads((tmp_path / "verdicts.json").read_text())
    assert data["partial"] is True and list(data["reproduction"]) == ["CEL23-T8"]
    assert (tmp_path / resume_mod.DIRECTORY / "sections" / f"{FIRST}.pickle").exists()
    assert not (tmp_path / "index.html").exists()

    # the same request again: the kept section is not run, the missing one is
    first = W._section_module(FIRST)
    monkeypatch.setattr(first, "run", lambda *a, **k: pytest.fail("ran a kept section"))
    monkeypatch.setattr(second, "run", real_run)
    result = W.write_report(tmp_path, suite=False, reproductions=(FIRST, SECOND),
                            show_progress=False, parallel=False)
    assert [r.experiment for r in result.reproductions] == ["CEL23-T8", "E-000-5"]
    assert (tmp_path / "index.html").exists()
    assert not (tmp_path / resume_mod.DIRECTORY).exists()
    final = json.loads((tmp_path / "verdicts.json").read_text())
    assert "partial" not in final and set(final["reproduction"]) == {"CEL23-T8", "E-000-5"}


def test_parts_kept_for_another_request_are_discarded(tmp_path, capsys):
    req = resume_mod.Request("quick", 0, None, (FIRST,), "", "code-1")
    saved = resume_mod.SavedProgress(tmp_path, req)
    saved.save_section(FIRST, Reproduction("X", "t", [], (), {}, 0.0))
    saved.save_suite({"claims": []})
    again = resume_mod.SavedProgress(tmp_path, req)
    assert again.resumed and again.suite == {"claims": []} and FIRST in again.sections
    other = resume_mod.SavedProgress(tmp_path, resume_mod.Request("quick", 1, None, (FIRST,),
                                                                  "", "code-1"))
    assert not other.resumed and "another request or by other code" in capsys.readouterr().err
    fresh = resume_mod.SavedProgress(tmp_path, req, fresh=True)
    assert not fresh.resumed


def test_a_damaged_part_is_recomputed_not_trusted(tmp_path):
    req = resume_mod.Request("quick", 0, None, (FIRST,), "", "code-1")
    saved = resume_mod.SavedProgress(tmp_path, req)
    (saved.root / "sections" / f"{FIRST}.pickle").write_bytes(b"not a pickle")
    assert not resume_mod.SavedProgress(tmp_path, req).sections


def test_the_code_fingerprint_follows_the_sources():
    assert resume_mod.code_fingerprint() == resume_mod.code_fingerprint()
    assert len(resume_mod.code_fingerprint()) == 16


def test_sigterm_stops_a_report_as_ctrl_c_does():
    from verify.front import cli

    with pytest.raises(KeyboardInterrupt):
        cli._interrupt_on_sigterm(signal.SIGTERM, None)


def _tightness_elsewhere(out, profile, store, show_progress, instances, progress=None,
                         papers=None):
    import os

    progress[1] = 3
    progress[0] = 3
    return [], {"claims": {}, "pid": os.getpid()}


def test_the_tightness_table_runs_in_its_own_process_beside_the_sections(tmp_path, monkeypatch):
    import os

    monkeypatch.setattr(W.tightness, "run", _tightness_elsewhere)
    result = W.write_report(tmp_path, suite=False, reproductions=(FIRST,), show_progress=True,
                            parallel=True)
    tight = json.loads(result.verdicts_json.read_text())["tightness"]
    assert tight["pid"] != os.getpid()
    assert (tmp_path / "index.html").exists()


def test_a_stopped_report_ends_its_tightness_worker(tmp_path, monkeypatch):
    first = W._section_module(FIRST)
    monkeypatch.setattr(first, "run", _stop)
    started = []
    real = W.Background

    def spy(*args, **kwargs):
        started.append(real(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(W, "Background", spy)
    with pytest.raises(W.ReportInterrupted):
        W.write_report(tmp_path, suite=False, reproductions=(FIRST,), show_progress=False,
                       parallel=True)
    assert len(started) == 1 and not started[0]._proc.is_alive()


def test_a_tightness_table_finished_before_a_stop_is_kept(tmp_path, monkeypatch):
    import time

    monkeypatch.setattr(W.tightness, "run", _tightness_elsewhere)
    started = []
    real = W.Background
    monkeypatch.setattr(W, "Background",
                        lambda *a, **k: started.append(real(*a, **k)) or started[-1])

    def stop_once_the_table_is_done(*args, **kwargs):
        deadline = time.monotonic() + 120
        while not started[0].finished and time.monotonic() < deadline:
            time.sleep(0.1)
        raise KeyboardInterrupt

    monkeypatch.setattr(W._section_module(FIRST), "run", stop_once_the_table_is_done)
    with pytest.raises(W.ReportInterrupted) as stopped:
        W.write_report(tmp_path, suite=False, reproductions=(FIRST,), show_progress=False,
                       parallel=True)
    assert "(tightness)" in str(stopped.value)
    again = resume_mod.SavedProgress(tmp_path, resume_mod.Request(
        "quick", 0, None, (FIRST,), "", resume_mod.code_fingerprint((FIRST,)), 0))
    assert "pid" in again.sections["tightness"][1]


def test_the_report_records_the_commit_its_run_started_from(tmp_path, monkeypatch,
                                                             no_tightness):
    """A report records what produced it: the commit of the code it loaded when it
    started, not the checkout's when its pages are written (a 77-minute report whose
    checkout moved on meanwhile recorded the later commit beside the earlier code's tables)."""
    checkout = {"commit": "commit-at-start"}
    monkeypatch.setattr(W.front, "source_commit", lambda: checkout["commit"])
    section = W._section_module(SECOND)
    real_run = section.run

    def run_while_the_checkout_moves(*args, **kwargs):
        checkout["commit"] = "commit-at-the-end"  # a commit lands while the report runs
        return real_run(*args, **kwargs)

    monkeypatch.setattr(section, "run", run_while_the_checkout_moves)
    result = W.write_report(tmp_path, suite=False, reproductions=(SECOND,),
                            show_progress=False, parallel=False)
    data = json.loads(result.verdicts_json.read_text())
    assert data["provenance"]["commit"] == "commit-at-start"
    page = result.html.read_text()
    assert "commit-at-start" in page and "commit-at-the-end" not in page


def test_a_report_of_some_sections_tightens_their_packs_claims_only(tmp_path, monkeypatch):
    """``gfverify report --section X``: the tightness table covers the packs whose sections
    were selected (before, it tightened every pack's claims, most of the run's time)."""
    from theory import registry

    asked = []

    def tightness_of(*args, papers=None, **kwargs):
        asked.append(papers)
        return [], {"claims": {}}

    monkeypatch.setattr(W.tightness, "run", tightness_of)
    W.write_report(tmp_path, suite=False, reproductions=(FIRST,), show_progress=False,
                   parallel=False)
    assert asked == [("CEL23",)]
    only = W.tightness.tightenable_claims(("CEL23",))
    every = W.tightness.tightenable_claims()
    assert only and len(only) < len(every)
    assert {registry.pack_of(c.id).name for c in only} == {"CEL23"}
    assert W.tightness._of_papers(("S002", "CEL23")).startswith(" of CEL23 and S002's")


def test_the_estimate_budgets_the_selected_packs_share_of_the_tightness_table():
    """With ``--section``, the report's time estimate counts the tightness table's recorded
    time in proportion to the claims it tightens (the record is the whole table's)."""
    whole = W.eta.recorded_times("quick")
    if "tightness" not in whole:
        pytest.skip("no recorded tightness time for the quick profile")
    share = (len(W.tightness.tightenable_claims(("CEL23",)))
             / len(W.tightness.tightenable_claims()))
    assert 0 < share < 1
    assert W._expected_times("quick", ("CEL23",))["tightness"] == pytest.approx(
        whole["tightness"] * share)
    assert W._expected_times("quick", None) == whole
    assert W.packs_of_sections((FIRST,)) == ("CEL23",)
