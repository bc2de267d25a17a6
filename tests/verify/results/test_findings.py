"""Findings are measured, mutants are scored against a declared roster, and a failed suite
is said so by the report."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

import papers.s000.tests.test_s000 as s000
from verify.front.cli import EXIT_SUITE_FAILED, main
from verify.report.write import _suite_dict, suite_failure
from verify.results import findings as F
from verify.results import mutants
from verify.results.table import VerdictLog


def _c1_finding(monkeypatch, exponent: float | None) -> F.Finding:
    """Run the suite's S000-C1 finding test, with d_needed replaced by k**exponent."""
    s000.c1_data.cache_clear()
    if exponent is not None:
        monkeypatch.setattr(s000.m0, "d_needed",
                            lambda k, gamma, rng, reps: float(k) ** exponent)
    log = VerdictLog()
    try:
        s000.test_c1_dimension_needed(log, SimpleNamespace(name="quick"))
    finally:  # the patched data must not stay cached for the suite (same process in CI)
        s000.c1_data.cache_clear()
    (found,) = [F.Finding.from_dict(d) for d in log.findings]
    return found


def test_a_findings_text_comes_from_its_own_measurement(monkeypatch):
    measured = _c1_finding(monkeypatch, None)
    assert "2.05" in measured.text and measured.evidence["slope"] == pytest.approx(2.05, abs=0.02)
    broken = _c1_finding(monkeypatch, 2.4)  # different numbers, same test
    assert "fitted exponent 2.400" in broken.text and "2.05" not in broken.text
    assert broken.evidence["slope"] == pytest.approx(2.4)


def test_a_finding_that_no_longer_reproduces_fails_loudly(monkeypatch):
    with pytest.raises(AssertionError, match="no longer reproduces"):
        _c1_finding(monkeypatch, 2.0)  # exactly n^2: the claim now HOLDS


def test_findings_render_and_update_a_page_under_the_former_option_name(tmp_path):
    found = [F.Finding("X-1", "A title", "Measured 1.5.", ("S000-C1",), {"v": 1.5}),
             F.Finding("X-1", "A title", "Measured 2.5.", ("S000-C2",)),
             F.Finding("E-2", "Published", "Slope 1.7.", data="published")]
    md = F.markdown(found, "quick")
    assert md.count("- **") == 2 and "Measured 1.5. Measured 2.5." in md
    assert "(decided on published data)" in md and "--verify-profile quick" in md
    verdicts = tmp_path / "verdicts.json"
    verdicts.write_text(json.dumps({"profile": "quick",
                                    "findings": [f.to_dict() for f in found]}))
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{F.BLOCK_BEGIN}\nold text\n{F.BLOCK_END}\n\nafter\n")
    assert main(["findings", str(verdicts), "--readme", str(readme)]) == 0
    block = F.page_block(readme)
    assert md.rstrip() in block and readme.read_text().endswith("after\n")
    assert "test counts not recorded" in block
    with pytest.raises(F.FindingError, match="data"):
        F.Finding("X", "t", "x", data="guessed")


def test_mutants_are_scored_against_the_declared_roster():
    roster = mutants.roster()
    assert len(roster) == len(set(roster)) > 50
    everything = [{"id": i, "caught": True} for i in roster]
    full = mutants.score(everything)
    assert (full["caught"], full["total"]) == (len(roster), len(roster))
    one_missing = mutants.score(everything[1:])  # one mutant's check never ran
    assert one_missing["caught"] == len(roster) - 1 and one_missing["not_run"] == [roster[0]]
    assert f"mutants caught {len(roster) - 1}/{len(roster)}" in mutants.summary_line(one_missing)
    escaped = mutants.score(everything + [{"id": roster[1], "caught": False},
                                          {"id": "S999-X~new", "caught": True}])
    assert escaped["not_caught"] == [roster[1]] and escaped["undeclared"] == ["S999-X~new"]
    assert mutants.score([])["caught"] == 0 and mutants.score([])["total"] == len(roster)


def test_a_failed_suite_is_said_at_the_top_and_in_the_exit_code(monkeypatch, tmp_path, capsys):
    stdout = ("FAILED papers/s000/tests/test_s000.py::test_t1 - RuntimeError: boom\n"
              "=== 1 failed, 10 passed in 3.00s ===\n")
    suite = _suite_dict(["python", "-m", "pytest", "verify", "-q", "--verify-json=x"], 1,
                        stdout, {"claims": [], "mutants": [], "findings": []}, 0.0)
    assert not suite["ok"]
    assert suite["failed_tests"] == ["papers/s000/tests/test_s000.py::test_t1"]
    text = suite_failure(suite)
    assert "FAILED" in text and "test_t1" in text and "1 failed" in text
    assert "mutants caught 0/" in mutants.summary_line(suite["mutant_score"])
    result = SimpleNamespace(index=tmp_path / "index.md", html=tmp_path / "index.html",
                             verdicts_json=tmp_path / "v.json", figures=(), wall_time=1.0,
                             suite=suite, reproductions=())
    monkeypatch.setattr("verify.report.write_report", lambda *a, **k: result)
    assert main(["report", "--out", str(tmp_path)]) == EXIT_SUITE_FAILED
    assert "THE VERIFICATION SUITE FAILED" in capsys.readouterr().err


def test_a_crashed_suite_is_reported_as_crashed_with_the_roster_unmet():
    from verify.report.write import _suite_blocks

    suite = _suite_dict(["python", "-m", "pytest", "verify", "-q", "--verify-json=x"], 2, "",
                        {"claims": [], "mutants": [], "findings": []}, 0.0)
    assert "no summary: it crashed" in suite_failure(suite)
    text = str(_suite_blocks(suite))
    total = len(mutants.roster())
    assert f"mutants caught 0/{total}" in text and f"not run: {total}" in text
    assert np.isfinite(suite["wall_time"])


def test_a_verdicts_json_from_before_the_error_rename_still_renders(tmp_path):
    """Rows written with the numerical error under its former key, "tolerance", render
    with their error on the findings page (`--page`; `--readme` is the former name)."""
    row = {"claim": "S002-T1", "kind": "event time bound", "data": "sim", "instances": 1,
           "HOLDS": 1, "VIOLATED": 0, "INAPPLICABLE": 0, "INCONCLUSIVE": 0,
           "verdict": "HOLDS", "worst_margin": 51.2, "tolerance": 0.1, "where": "t=33.9"}
    verdicts = tmp_path / "verdicts.json"
    verdicts.write_text(json.dumps({"profile": "quick", "findings": [], "claims": [row]}))
    page = tmp_path / "findings.md"
    page.write_text(f"# x\n\n{F.BLOCK_BEGIN}\n{F.BLOCK_END}\n")
    assert main(["findings", str(verdicts), "--page", str(page)]) == 0
    assert "51.2 (err 0.1)" in F.page_block(page)


def test_a_finding_headline_names_its_paper():
    """A headline is read alone (the report's summary, the terminal): "Lemma 8 fails"
    without its paper is refused when recorded; with the paper or a claim id it is kept."""
    log = VerdictLog()
    bare = F.Finding("BF25-L8-A5", "Lemma 8 fails: Assumption 3 does not imply Assumption 5",
                     "text", claims=("BF25-L8",))
    with pytest.raises(F.FindingError, match="names none of BF25"):
        log.finding(bare)
    for title in ("BF25's Lemma 8 fails", "BF25-L8 fails on a draw"):
        log.finding(F.Finding("BF25-L8-A5", title, "text", claims=("BF25-L8",)))
    assert len(log.findings) == 2
    assert F.Finding("x", "anything", "text").names_its_paper()  # bears on no claim


def test_a_finding_recorded_by_several_cases_reads_the_same_whatever_order_they_finished():
    """BF25-L8-A5 is recorded by two parametrised draws; under xdist either may finish
    first, and the page's text (compared word for word with the report's run) followed
    that order: CI's run and the page disagreed."""
    from verify.results.findings import Finding, distinct

    cases = [Finding("X-1", "title", f"draw {k}.", ("S002-T1",), {}, "simulated", f"test[{k}]")
             for k in (2, 1)]
    one, other = distinct(cases), distinct(cases[::-1])
    assert [f.text for f in one] == [f.text for f in other] == ["draw 1. draw 2."]
