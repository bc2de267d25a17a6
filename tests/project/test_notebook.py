"""The example notebook runs top to bottom in a fresh kernel (so it cannot rot)."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "walkthrough.ipynb"


def test_walkthrough_notebook_executes(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    rich = [o for o in outputs if o.output_type == "execute_result"]
    assert any("text/latex" in o.data for o in rich)  # the claim, typeset
    assert any("text/html" in o.data and "HOLDS" in o.data["text/html"] for o in rich)
    assert any(o.output_type == "display_data" and "image/png" in o.data for o in outputs)


def test_stores_and_tables_load_as_dataframes(tmp_path, monkeypatch):
    import sys

    from verify import sweep
    from verify.engine.verdict import Outcome, Verdict
    from verify.errors import InputError
    from verify.results.table import VerdictLog

    log = VerdictLog()
    log.record(Verdict("S002-L1", Outcome.HOLDS, margin=0.5, error=1e-9), "conserved")
    frame = log.to_dataframe()
    assert list(frame["claim"]) == ["S002-L1"] and frame["verdict"][0] == "HOLDS"
    assert "<table>" in log._repr_html_() and "S002-L1" in log._repr_html_()
    sweep.connect(tmp_path).close()
    assert len(sweep.to_dataframe(tmp_path)) == 0
    monkeypatch.setitem(sys.modules, "pandas", None)  # not installed: one clear line
    try:
        log.to_dataframe()
    except InputError as exc:
        assert "gfverify[notebook]" in str(exc)
    else:
        raise AssertionError("to_dataframe without pandas should say how to install it")
