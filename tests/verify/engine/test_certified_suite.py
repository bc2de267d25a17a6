"""``pytest verify --verify-certify``: checks decided on certified tubes too, and the
certified column of the verdict table (text, Markdown, report, LaTeX)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from numerics import ExactFlow, GradientDescent, simulate
from papers.s002.evidence import s002_horizon
from papers.s002.families import ORTHOGONAL
from theory import get
from verify.engine.certified import suite
from verify.engine.check import check
from verify.report import latex, verdict_table
from verify.results.table import VerdictLog, format_table, markdown_table

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def certifying():
    suite.configure(1)
    yield
    suite.configure(None)


@pytest.fixture(scope="module")
def runs():
    out = []
    for seed in (0, 1, 2):  # seed 0: S002-T1 is INAPPLICABLE (no key negative neuron)
        problem = ORTHOGONAL.build(n=3, p=6, d=3, lam=1e-6, seed=seed)
        out.append(simulate(problem, ExactFlow(),
                            np.linspace(0, s002_horizon(problem), 41)))
    return out


def test_off_by_default(runs):
    assert not suite.active()
    assert check(get("S002-T1"), runs).instances[0].certificate is None


def test_a_check_certifies_up_to_the_limit(certifying, runs):
    verdict = check(get("S002-T1"), runs)
    certified = [v for v in verdict.instances if v.certificate]
    # the limit is 1 instance per check; an INAPPLICABLE instance is not certified
    assert len(certified) == 1 and certified[0].outcome.value == "HOLDS"
    assert certified[0].certificate["outcome"] == "PROVED", certified[0].certificate["reason"]
    log = VerdictLog()
    log.record(verdict, "event time bound")
    (row,) = log.table()
    assert row["certified"] == {"PROVED": 1, "DISPROVED": 0, "UNCERTIFIED": 0}
    lines = format_table(log.table())
    assert lines[0].split()[-1] == "certified" and lines[1].endswith("1 PROVED")
    md = markdown_table(log.table())
    assert "| certified |" in md and "| 1 PROVED |" in md
    header, rows, _ = verdict_table.rows(log.table())
    assert header[-1] == "certified" and rows[0][-1] == "1 PROVED"
    blocks = latex.fragment_blocks(
        {"version": "0", "commit": "0" * 12, "profile": "quick", "seed": 0},
        {"claims": log.table(), "findings": [],
         "mutant_score": {"caught": 0, "total": 0, "checks": 0, "not_run": [],
                          "not_caught": [], "undeclared": []}}, [], [])
    tables = [b for b in blocks if getattr(b, "header", None)
              and "certified" in b.header]
    assert tables and tables[0].rows[0][-1] == "1 PROVED"


def test_a_tube_is_built_once_per_run(certifying, runs, monkeypatch):
    calls = []
    real = suite.certify
    monkeypatch.setattr(suite, "certify", lambda tr, **kw: calls.append(1) or real(tr, **kw))
    check(get("S002-T1"), runs[0])
    check(get("S002-L1"), runs[0])
    assert len(calls) == 1


def test_runs_outside_the_certified_setting_are_left_alone(certifying):
    problem = ORTHOGONAL.build(n=3, p=6, d=3, lam=1e-6, seed=0)
    gd = simulate(problem, GradientDescent(lr=0.05), np.linspace(0, 10, 11))
    assert "exact flow" in suite.why_not(gd)
    verdict = check(get("S002-T1"), gd)
    assert verdict.certificate is None


def test_the_suite_option_fills_the_certified_column(tmp_path):
    out = tmp_path / "v.json"
    test = "papers/s002/tests/test_s002.py::test_two_point_example"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", test, "-q", "-p", "no:cacheprovider", "-k", "T1",
         "--verify-certify", "1", f"--verify-json={out}"],
        cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = {r["claim"]: r for r in json.loads(out.read_text())["claims"]}
    cert = rows["S002-T1"]["certified"]
    assert sum(cert.values()) == 1
    assert "certified" in proc.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "pytest", test, "-q", "-p", "no:cacheprovider", "-k", "T1",
         "--verify-certify", "0"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode != 0 and "--verify-certify" in (bad.stdout + bad.stderr)
    assert "Traceback" not in bad.stderr


def test_a_claim_about_instance_numbers_is_not_certified(certifying, runs):
    verdict = check(get("S002-A1"), runs)  # <x_k, x_k'> = 0: no quantity of t
    assert all(v.certificate is None for v in verdict.instances)


def test_an_inapplicable_verdict_says_both(runs):
    """S002-T1 on seed 0 fails its assumption A3 (INAPPLICABLE); `check(..., certify=True)`
    still decides the statement on the tube and says both: what the certificate decided on
    this instance's flow, and that the theorem's assumptions are not met there (before,
    the certified outcome was dropped from an INAPPLICABLE verdict)."""
    verdict = check(get("S002-T1"), runs[0], certify=True)
    assert verdict.outcome.value == "INAPPLICABLE"
    assert verdict.certificate is not None
    assert verdict.certificate["outcome"] in ("PROVED", "DISPROVED")
    text = str(verdict)
    assert "A3 key neurons fails" in text
    assert f"certified: {verdict.certificate['outcome']}" in text
    assert "the claim's assumptions are not met here" in text
    # an applicable verdict says nothing of the kind
    assert "assumptions are not met" not in str(check(get("S002-T1"), runs[1], certify=True))


def test_the_certificate_reads_the_run_in_the_claims_convention():
    """S002-T1 is written for L with prefactor 1; a run of the flow of 2L is checked, float
    and certified, as that flow read at twice its times. Before, the certificate decided
    the formula on 2L at the run's own times (an event time half the float one, and the
    instance hash of the 2L problem)."""
    from numerics import generators

    ones = generators.two_point(p=10, lam=1e-6 / np.sqrt(10), seed=0)
    twos = generators.two_point(p=10, lam=1e-6 / np.sqrt(10), seed=0, loss_scale=2.0)
    run = simulate(twos, ExactFlow(), np.linspace(0, s002_horizon(twos), 101))
    verdict = check(get("S002-T1"), run, certify=True)
    cert = verdict.certificate
    assert cert["outcome"] == "PROVED"
    assert cert["record"]["instance"] == ones.content_hash != twos.content_hash
    assert abs(cert["t"] - verdict.where.t) < 2.0  # both about 35.5, in the claim's time
