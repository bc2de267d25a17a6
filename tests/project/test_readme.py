"""The README's Python examples run as written and say what the README says."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 2
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, str(README), "exec"), namespace)  # noqa: S102 - our own README
    assert namespace["traj"].loss.shape == (601,)
    printed = out.getvalue()
    assert "S002-T1 HOLDS" in printed and "S002-T1 INCONCLUSIVE" in printed


def test_the_python_guide_runs_as_written():
    guide = README.parent / "docs" / "guides" / "python.md"
    blocks = re.findall(r"```python\n(.*?)```", guide.read_text(), flags=re.S)
    assert len(blocks) >= 4
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, str(guide), "exec"), namespace)  # noqa: S102 - our own docs
    printed = out.getvalue()
    # the outputs the guide shows in its comments
    assert "S002-T1 HOLDS on 1 instance(s), worst margin 51.2" in printed
    assert "INCONCLUSIVE 1 1" in printed
    assert "149 pairs slid (19 held at the end)" in printed
