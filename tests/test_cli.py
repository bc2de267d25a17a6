"""The command line: report, claims, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

from verify.cli import main


def test_report_writes_index_figure_and_json(tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out), "--instances", "1", "--quiet"]) == 0
    index = (out / "index.md").read_text()
    for cid in ("S002-L1", "S002-T1", "S002-L3"):
        assert cid in index
    assert "two_point_loss.png" in index and (out / "two_point_loss.png").stat().st_size > 10_000
    data = json.loads((out / "verdicts.json").read_text())
    assert {row["claim"] for row in data["claims"]} == {"S002-L1", "S002-T1", "S002-L3"}
    assert data["provenance"]["numpy"]
    assert not list(out.glob("*.partial*"))


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
