"""The command line: report, claims, exit codes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import quick_report_checks

from verify.front.cli import main

FINDINGS_PAGE = Path(__file__).resolve().parents[3] / "docs" / "findings.md"


def test_report_writes_index_figure_and_json(tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out), "--instances", "1", "--quiet", "--no-suite",
                 "--section", "S002", "--format", "latex"]) == 0
    printed = capsys.readouterr().out
    assert re.search(r"index\.html \(\d+\.\d\d MB\)", printed), printed
    index = (out / "index.md").read_text()
    for cid in ("S002-L1", "S002-T1", "S002-L3"):
        assert cid in index
    assert "two_point_loss.png" in index and (out / "two_point_loss.png").stat().st_size > 10_000
    assert "e002_1_gd_loss.png" in index and (out / "e002_1_gd_loss.png").stat().st_size > 10_000
    assert "Not run (`--no-suite`)" in index
    # the first screen says at which sizes the verdicts were obtained (the summary box)
    summary = index[index.index("**Summary.**"):][:1500]
    assert "Verdicts obtained at the `quick` profile's sizes:" in summary, summary[:600]
    data = json.loads((out / "verdicts.json").read_text())
    foundation = data["reproduction"]["S002 foundation"]
    assert {row["claim"] for row in foundation["claims"]} == {"S002-L1", "S002-T1", "S002-L3"}
    assert data["suite"] is None
    assert data["provenance"]["numpy"]
    # E-002-1: GD mid-drops near THEORY's ~12000/25100 (eq. (1)) and ~6000/12550 (2L)
    runs = {r["loss_scale"]: r["mid_drops"] for r in data["reproduction"]["E-002-1"]["runs"]}
    assert abs(runs[1.0][0] - 12000) < 600 and abs(runs[1.0][1] - 25100) < 600
    assert abs(runs[2.0][0] - 6000) < 300 and abs(runs[2.0][1] - 12550) < 300
    html = (out / "index.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "data:image/png;base64," in html
    assert quick_report_checks.links_leaving(html, out) == []
    assert "catalogue.html" in html and (out / "catalogue.html").is_file()
    assert not list(out.rglob("*.partial*"))
    # rendered, anchored, constrained: no raw Markdown, the sections and figures linkable
    text = quick_report_checks.visible_text(html)
    assert "**" not in text and "`" not in text, text[:300]
    assert {"summary", "contents", "verdicts", "glossary", "provenance", "E-002-1",
            "fig-e002-1-gd-loss"} <= quick_report_checks.ids(html)
    assert "<math" in html  # formulas as MathML, not images
    # the LaTeX export: the fragment, its wrapper and the sections' figures as PDF
    latex = out / "latex"
    fragment = (latex / "gfverify-report.tex").read_text()
    assert "\\includegraphics[width=\\linewidth]{figures/e002_1_gd_loss.pdf}" in fragment
    assert (latex / "figures" / "e002_1_gd_loss.pdf").read_bytes().startswith(b"%PDF")
    assert "\\input{gfverify-report}" in (latex / "main.tex").read_text()
    assert "**" not in fragment and "\\begin{longtable}" in fragment
    if shutil.which("pdflatex"):  # compiled where a TeX engine is installed
        run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                              "main.tex"], cwd=latex, capture_output=True, text=True,
                             timeout=300)
        assert run.returncode == 0, run.stdout[-2000:]
        assert (latex / "main.pdf").stat().st_size > 10_000


@pytest.mark.slow
def test_report_with_suite_covers_every_checkable_claim(tmp_path, monkeypatch):
    """The whole quick report (opt in: ``pytest -m slow``; CI's wheel check writes the same
    report from the installed wheel and runs the same checks, `quick_report_checks`). The
    built-in packs only, whatever else is installed: the findings page's block is theirs."""
    from theory import packs

    monkeypatch.setenv(packs.SELECT_ENV, "builtin")
    packs.select("builtin")
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out), "--quiet"]) == 0
    quick_report_checks.check(out, FINDINGS_PAGE)


def test_claims_json_lists_ids():
    out = subprocess.run([sys.executable, "-m", "verify", "claims", "--format", "json"],
                         capture_output=True, text=True, check=True)
    rows = json.loads(out.stdout)
    ids = {r["id"] for r in rows}
    assert {"S002-L1", "S002-T1", "S002-L3"} <= ids
    assert all(r["kind"] and r["source"] for r in rows)


def test_bad_input_exits_2_with_a_message(tmp_path, capsys):
    assert main(["claims", "--paper", "S999"]) == 2
    assert "--paper" in capsys.readouterr().err
    assert main(["report", "--out", str(tmp_path), "--profile", "huge"]) == 2
    assert "--profile" in capsys.readouterr().err
    assert main(["report", "--out", str(tmp_path), "--instances", "-3"]) == 2
    assert "instances" in capsys.readouterr().err
    assert main([]) == 2


def test_claims_is_a_readable_table(capsys, monkeypatch):
    """One line per claim (id, kind, checkable, title), cut to the terminal's width; the
    long form keeps the statement."""
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["claims", "--paper", "S002"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["id", "kind", "checkable", "title"]
    ids = [ln.split()[0] for ln in lines[2:]]
    assert "S002-T1" in ids and all(len(ln) <= 100 for ln in lines)
    assert main(["claims", "--paper", "S002", "--format", "long"]) == 0
    assert "Eq(Balance(t), 0)" in capsys.readouterr().out
