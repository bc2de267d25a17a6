"""The command line: report, claims, exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import theory
from verify import findings
from verify.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"


def _external_links(html: str) -> list[str]:
    """src/href attributes that point anywhere but an embedded data URI or an anchor."""
    links = re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)["']""", html, flags=re.I)
    return [u for u in links if not u.startswith(("data:", "#"))]


def test_report_writes_index_figure_and_json(tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out), "--instances", "1", "--quiet", "--no-suite"]) == 0
    index = (out / "index.md").read_text()
    for cid in ("S002-L1", "S002-T1", "S002-L3"):
        assert cid in index
    assert "two_point_loss.png" in index and (out / "two_point_loss.png").stat().st_size > 10_000
    assert "e002_1_gd_loss.png" in index and (out / "e002_1_gd_loss.png").stat().st_size > 10_000
    assert "Not run (`--no-suite`)" in index
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
    assert _external_links(html) == []
    assert not list(out.glob("*.partial*"))


@pytest.mark.slow
def test_report_with_suite_covers_every_checkable_claim(tmp_path):
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out), "--instances", "0", "--quiet"]) == 0
    html = (out / "index.html").read_text()
    assert _external_links(html) == []
    checkable = {c.id for c in theory.claims() if c.checkable}
    missing = sorted(cid for cid in checkable if cid not in html)
    assert not missing, missing
    assert "Findings" in html and "mutants caught" in html
    data = json.loads((out / "verdicts.json").read_text())
    assert data["suite"]["exit_code"] == 0
    assert len(data["suite"]["claims"]) >= 50 and data["suite"]["findings"]
    # the README's generated block is this run's: same counts, same findings, word for word
    differ = findings.readme_disagreements(README, findings.load_run(out / "verdicts.json"))
    assert not differ, (f"the README's generated block is not this run's ({differ}): run "
                        "`gfverify findings VERDICTS_JSON --readme README.md`")
    # every reproduction section, headed by its experiment ID, with its figures
    md = (out / "index.md").read_text()
    for exp in ("E-002-1", "E-001-2", "E-001-1", "E-000-2", "E-000-4", "E-000-5", "E-CEL23-1",
                "E-CEL23-3", "E-CEL23-4"):
        assert f"Reproduction {exp}" in md or f"{exp}:" in md, exp
    assert set(data["reproduction"]) >= {"E-002-1", "E-000-2", "E-000-4", "E-000-5"}
    e2 = data["reproduction"]["E-000-2"]
    assert f"for **{e2['inside']} of {e2['compared']}**" in md
    assert e2["compared"] == 79 and e2["inside"] >= 40  # "most points" (measured: 72)
    pngs = {p.name for p in out.glob("*.png")}
    assert {"e000_2_probability.png", "e000_2_threshold.png", "e000_4_pl.png"} <= pngs
    assert sum(name.startswith("claim_") for name in pngs) >= 50  # per-claim figures


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
