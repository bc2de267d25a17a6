"""The pack, installed, is used by every gfverify command with no change to the toolkit."""

from pathlib import Path

import gf_identities
from verify.front.cli import main
from verify.report import write_report
from verify.sweep import read_rows, run_sweep

SWEEP = Path(gf_identities.__file__).with_name("sweep.toml")


def test_listed_by_packs_claims_and_families(capsys):
    assert main(["packs"]) == 0
    assert any(line.startswith("GF ") and "installed" in line
               for line in capsys.readouterr().out.splitlines())
    assert main(["claims", "--paper", "GF"]) == 0
    out = capsys.readouterr().out
    assert all(f"GF-{k}" in out for k in range(1, 5))
    assert main(["families"]) == 0
    assert "gaussian" in capsys.readouterr().out


def test_conjecture_on_the_pack_family_decides(capsys):
    true = ["conjecture", "ParamDrift(t)**2 <= kappa*t*L(0)", "--family", "gaussian",
            "--budget", "3", "--no-plot"]
    assert main(true) == 0, capsys.readouterr()
    assert "NO COUNTEREXAMPLE" in capsys.readouterr().out
    false = ["conjecture", "PathEnergy(t) <= L(0)/4", "--family", "gaussian", "--budget", "3",
             "--no-plot"]
    assert main(false) == 1, capsys.readouterr()  # the pack's own quantity, in a conjecture


def test_sweep_with_the_pack_generator(tmp_path):
    result = run_sweep(SWEEP, tmp_path, progress=False)
    rows = read_rows(tmp_path)
    assert result.computed == len(rows) == 8
    assert all(r["status"] == "success" for r in rows)


def test_report_has_the_pack_section(tmp_path):
    write_report(tmp_path, suite=False, instances=0, show_progress=False,
                 reproductions=("gf_identities.report",))
    text = (tmp_path / "index.md").read_text()
    assert "Pack GF: identities of every gradient flow" in text and "GF-1" in text
