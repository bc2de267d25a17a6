"""The README is the front page and the site in docs/ is the manual: the README's links
land on pages of the site (or files of the repository), at headings that exist, and the
numbers the README quotes from the last suite run are the findings page's."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from verify.results import findings
from verify.results.table import FIT_HEADER

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MAX_README_LINES = 250
API_MARKDOWN = DOCS / "reference" / "api-md"  # the API pages written out (not on the site)

_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
_TOCTREE = re.compile(r"```\{toctree\}\n(.*?)```", re.S)


def _outside_fences(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def links(path: Path) -> list[str]:
    return [a or b for a, b in _LINK.findall(_outside_fences(path.read_text()))]


def slug(heading: str) -> str:
    """The anchor GitHub and MyST (``myst_heading_anchors``) give a heading."""
    text = re.sub(r"[`*]", "", heading.strip()).lower()
    text = unicodedata.normalize("NFKD", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    heads = re.findall(r"^#{1,6} (.+)$", _outside_fences(page.read_text()), flags=re.M)
    return {slug(h) for h in heads}


def site_pages() -> set[Path]:
    """The pages the site's toctrees reach from docs/index.md."""
    seen: set[Path] = set()
    todo = [DOCS / "index.md"]
    while todo:
        page = todo.pop()
        if page in seen:
            continue
        seen.add(page)
        for block in _TOCTREE.findall(page.read_text()):
            for entry in block.splitlines():
                entry = entry.strip()
                if entry and not entry.startswith(":"):
                    todo.append((page.parent / entry).with_suffix(".md").resolve())
    return seen


def test_the_readme_is_a_front_page():
    n = len(README.read_text().splitlines())
    assert n <= MAX_README_LINES, f"README.md has {n} lines; the manual belongs in docs/"


def test_every_site_page_exists():
    missing = [str(p.relative_to(ROOT)) for p in site_pages() if not p.exists()]
    assert not missing, missing


def test_the_readme_links_resolve_to_site_pages_and_headings():
    pages = site_pages()
    bad = []
    for link in links(README):
        if re.match(r"[a-z]+:", link):
            bad.append(f"{link}: the README links only into the repository")
            continue
        target, _, fragment = link.partition("#")
        path = (README.parent / target).resolve() if target else README
        if not path.exists():
            bad.append(f"{link}: no such file")
            continue
        if (path.suffix == ".md" and path.is_relative_to(DOCS) and path not in pages
                and not path.is_relative_to(API_MARKDOWN)):
            bad.append(f"{link}: a Markdown file in docs/ that no toctree of the site reaches")
        if fragment and fragment not in anchors(path):
            bad.append(f"{link}: no heading #{fragment} in {path.name}")
    assert not bad, bad
    # the README sends readers into the site: every guide and both references
    linked = {(README.parent / link.partition("#")[0]).resolve() for link in links(README)}
    for page in ("getting-started", "concepts", "guides/packs", "reference/commands",
                 "reference/api/index", "findings", "benchmarks"):
        assert (DOCS / f"{page}.md").resolve() in linked, page


def test_the_site_pages_link_to_headings_that_exist():
    bad = []
    for page in site_pages():
        for link in links(page):
            if re.match(r"[a-z]+:", link):
                continue
            target, _, fragment = link.partition("#")
            path = (page.parent / target).resolve() if target else page
            if not path.exists():
                bad.append(f"{page.relative_to(ROOT)}: {link}: no such file")
            elif fragment and path.suffix == ".md" and fragment not in anchors(path):
                bad.append(f"{page.relative_to(ROOT)}: {link}: no heading #{fragment}")
    assert not bad, bad


def test_the_readme_quotes_the_findings_page_run():
    block = findings.page_block(DOCS / "findings.md")
    counts = block.strip().splitlines()[0]
    assert counts.startswith("`pytest verify") and counts in README.read_text(), (
        "the README's counts line is not the findings page's: copy "
        f"{counts!r} into the README")


def test_the_api_reference_written_out_is_current():
    """docs/reference/api-md/ is docs/reference/api/ with every autodoc directive replaced
    by what it documents (a reader on GitHub sees the docstrings, not the directives):
    regenerated from the code, it is what the repository holds."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("api_markdown",
                                                  DOCS / "reference" / "api_markdown.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    fresh = tool.pages()
    assert set(fresh) == set(API_MARKDOWN.glob("*.md"))
    stale = [p.name for p, text in fresh.items() if p.read_text(encoding="utf-8") != text]
    assert not stale, f"stale: {stale}; run `python docs/reference/api_markdown.py`"
    checking = fresh[API_MARKDOWN / "checking.md"]
    assert "```{eval-rst}" not in checking and ".. autofunction::" not in checking
    assert "### `verify.Verdict`" in checking and "**Attributes**" in checking


def _findings_rows() -> dict[str, list[str]]:
    """Claim -> the cells of its row in the findings page's verdict table (the last
    regenerated `pytest verify` run)."""
    rows, fit = {}, None
    for line in findings.page_block(DOCS / "findings.md").splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if line.startswith("| claim |"):  # the fit column of limit rows, left out here
            fit = cells.index(FIT_HEADER) if FIT_HEADER in cells else None
        if fit is not None and len(cells) == 12:
            cells = cells[:fit] + cells[fit + 1:]
        if line.startswith("| ") and len(cells) == 11 and cells[0] != "claim":
            rows[cells[0]] = cells
    return rows


def test_getting_started_quotes_rows_of_the_findings_page_run():
    """The rows of `pytest verify`'s table that Getting started shows, and its mutant
    count, are those of the run the findings page was generated from (they were typed in
    from an older run: 70/70 mutants beside the page's 103/103)."""
    text = (DOCS / "getting-started.md").read_text()
    shown = re.search(r"\n```\nclaim +kind.*?\n(.*?)\n```\n", text, flags=re.S).group(1)
    rows, quoted = _findings_rows(), 0
    for line in shown.splitlines():
        if line.startswith("mutants caught"):
            assert line in findings.page_block(DOCS / "findings.md"), line
            continue
        if line == "...":
            continue
        cells = re.split(r" {2,}", line.strip())
        row = rows.get(cells[0])
        assert row is not None, f"{cells[0]}: not in the findings page's table"
        assert cells == row, f"{cells[0]}: shows {cells}, the findings page's run {row}"
        quoted += 1
    assert quoted == 5
