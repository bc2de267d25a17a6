"""The README's Python examples, and the Python guide's, run as written and say what the
page says."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
PYTHON_GUIDE = README.parent / "docs" / "guides" / "python.md"


def run_python_blocks(page: Path, at_least: int) -> tuple[dict, str]:
    """Run a page's ```python blocks in order in one namespace: (namespace, stdout)."""
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
    assert len(blocks) >= at_least
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, str(page), "exec"), namespace)  # noqa: S102 - our own docs
    return namespace, out.getvalue()


def test_readme_python_blocks_run():
    namespace, printed = run_python_blocks(README, at_least=1)
    assert namespace["traj"].loss.shape == (601,)
    assert "S002-T1 HOLDS" in printed and "S002-T1 INCONCLUSIVE" in printed


def test_the_python_guide_runs_as_written():
    _, printed = run_python_blocks(PYTHON_GUIDE, at_least=4)
    # the outputs the guide shows in its comments
    assert "S002-T1 HOLDS on 1 instance(s), worst margin 51.2" in printed
    assert "INCONCLUSIVE 1 1" in printed
    assert "149 pairs slid (19 held at the end)" in printed
    assert "standard/cross_entropy [b9363676616a8be9]: SUCCESS" in printed
