"""Every example the README and the guides show is a fresh run's output (wall-clock times
and float64 rounding residues aside): `examples/pages.py --check` re-runs each page's
commands and Python blocks and compares. ("Your own runs" has its own test,
tests/verify/recorded/test_recorded_cli.py, on the same machinery.)"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location("example_pages", ROOT / "examples" / "pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PAGES = _tool()


@pytest.mark.parametrize("page", PAGES.PAGES)
def test_the_page_shows_what_its_examples_print(page, tmp_path):
    text = (ROOT / page).read_text()
    if not PAGES.examples(text):
        assert "<!-- example:" not in text  # a block the tool would not read
        return
    assert PAGES.main(["--check", "--page", page, "--workdir", str(tmp_path)]) == 0


def test_every_output_block_of_a_page_is_generated():
    """A shell transcript (``$ gfverify ...``, ``$ python ...`` with its output) or a
    Python block followed by what it printed, outside a generated block, would be typed in
    by hand: every page of the README and the guides has none."""
    for page in PAGES.PAGES:
        text = (ROOT / page).read_text()
        outside = PAGES.outside_examples(text)
        typed = [line for line in outside.splitlines() if line.startswith("$ ")]
        assert not typed, (page, typed)
        assert not re.search(r"```python\n.*?```\n\s*```text\n", outside, flags=re.S), page


def test_every_guide_is_checked():
    """Each guide (docs/guides/) is one of the pages `examples/pages.py` checks, or "Your
    own runs" (examples/own_run/page.py): a guide added with examples joins them (the
    certificates guide's transcripts were typed in by hand until it did)."""
    guides = {str(p.relative_to(ROOT)) for p in (ROOT / "docs" / "guides").glob("*.md")}
    assert guides - set(PAGES.PAGES) == {"docs/guides/own-runs.md"}


def test_masking_hides_times_only():
    masked = PAGES.masked
    assert masked("refinement 5 runs; 8.6 s") == masked("refinement 5 runs; 149.7 s")
    assert masked("error estimate 4.48e-09, 1.63s") == masked("error estimate 4.48e-09, 9.6s")
    assert masked("sharpest observed: 1.28948 +- 3.6e-06") != masked(
        "sharpest observed: 1.25709 +- 3.6e-06")
    assert masked("max rel err 0.15") != masked("max rel err 0.0014")


def test_a_changed_output_is_caught(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- example:echo:begin -->\n```text\n$ python -c \"print(6 * 7)\"\n"
                    "41\n(exit 0)\n```\n<!-- example:echo:end -->\n")
    assert PAGES.main(["--check", "--page", str(page), "--workdir", str(tmp_path)]) == 1
    assert PAGES.main(["--page", str(page), "--workdir", str(tmp_path)]) == 0
    assert "\n42\n(exit 0)" in page.read_text()
    assert PAGES.main(["--check", "--page", str(page), "--workdir", str(tmp_path)]) == 0
