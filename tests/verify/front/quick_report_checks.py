"""Checks of a whole quick report (`gfverify report --profile quick --out DIR`).

Run by ``tests/verify/front/test_cli.py::test_report_with_suite_covers_every_checkable_claim``
(opt in: ``pytest -m slow``) and, on the report the installed wheel writes, by CI's
``.ci/wheel_check``:

    python tests/verify/front/quick_report_checks.py REPORT_DIR docs/findings.md

Everything is computed again here from ``verdicts.json`` and compared with what the pages
show, so a report that miscounts, loses an anchor or shows raw markup fails.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

SIZE_TARGET = 3_000_000  # bytes: the quick report's index.html (issue: under 3 MB)
EXPERIMENTS = ("E-002-1", "E-001-2", "E-001-1", "E-000-2", "E-000-4", "E-000-5",
               "E-CEL23-1", "E-CEL23-3", "E-CEL23-4")
OUTCOME_ORDER = ("VIOLATED", "INCONCLUSIVE", "HOLDS", "INAPPLICABLE")


def links_leaving(page: str, out: Path) -> list[str]:
    """src/href values that are neither data URIs, anchors, nor files of the report."""
    links = re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)["']""", page, flags=re.I)
    return [u for u in links if not u.startswith(("data:", "#"))
            and not (out / u.split("#")[0]).is_file()]


def visible_text(page: str) -> str:
    """The page without its style, code, preformatted text, formulas and attributes."""
    page = re.sub(r"<(style|code|pre|math)\b.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"<[^>]+>", " ", page)


def ids(page: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', page))


def claim_outcomes(rows: list[dict]) -> dict[str, str]:
    """A claim's outcome over its verdict rows (variants such as ``[lam 4^-7]`` and rows
    of published data included): the first of VIOLATED, INCONCLUSIVE, HOLDS, INAPPLICABLE
    that any row has."""
    by_claim: dict[str, set[str]] = {}
    for r in rows:
        by_claim.setdefault(r["claim"].split("[")[0], set()).add(r["verdict"])
    return {cid: next((o for o in OUTCOME_ORDER if o in seen), "-")
            for cid, seen in by_claim.items()}


def check(out: Path, findings_page: Path) -> None:
    import theory
    from theory import packs, registry
    from verify.results import findings

    out = Path(out)
    page = (out / "index.html").read_text()
    catalogue = (out / "catalogue.html").read_text()
    data = json.loads((out / "verdicts.json").read_text())
    suite = data["suite"]
    assert suite["exit_code"] == 0, suite["summary"]
    assert len(suite["claims"]) >= 50 and suite["findings"]

    # self-contained: nothing leaves the report directory
    for name, html in (("index.html", page), ("catalogue.html", catalogue)):
        assert not links_leaving(html, out), (name, links_leaving(html, out)[:5])
    # no raw Markdown outside code and formulas
    for name, html in (("index.html", page), ("catalogue.html", catalogue)):
        text = visible_text(html)
        for marker in ("**", "`", "]("):
            assert marker not in text, (name, marker, text[max(0, text.find(marker) - 80):
                                                         text.find(marker) + 80])
    # images constrained to the column
    assert re.search(r"img\s*\{[^}]*max-width:\s*100%", page)
    # anchors: every claim with a verdict row in the index, every claim in the catalogue,
    # every finding and every reproduction
    # every checkable claim of a pack with tests has a verdict row (CF's closed forms are
    # proved symbolically in tests/theory instead)
    tested = {p.name for p in packs.packs() if p.tests}
    checkable = {c.id for c in theory.claims()
                 if c.checkable and registry.pack_of(c.id).name in tested}
    rows = suite["claims"]
    with_rows = {r["claim"].split("[")[0] for r in rows}
    assert not sorted(with_rows - ids(page)), sorted(with_rows - ids(page))
    assert not sorted(checkable - with_rows), sorted(checkable - with_rows)
    every = {c.id for c in theory.claims()}
    assert not sorted(every - ids(catalogue)), sorted(every - ids(catalogue))[:5]
    found = findings.distinct([findings.Finding.from_dict(d) for d in suite["findings"]])
    missing = [f.id for f in found if f"finding-{f.id}" not in ids(page)]
    assert not missing, missing
    for exp in EXPERIMENTS:
        assert exp in ids(page), exp
    # the summary block's counts are verdicts.json's
    shown = {(m[0], m[1]): int(m[2]) for m in re.findall(
        r'<td data-pack="([^"]+)" data-outcome="([A-Z]+)"[^>]*>(\d+)</td>', page)}
    assert shown, "no summary counts"
    expected = Counter((registry.get(cid).paper, outcome)
                       for cid, outcome in claim_outcomes(rows).items())
    for key, n in shown.items():
        assert expected.get(key, 0) == n, (key, n, expected.get(key, 0))
    assert sum(shown.values()) == sum(expected.values())
    # size, and no temporary files left behind
    size = (out / "index.html").stat().st_size
    print(f"quick report: index.html {size / 1e6:.2f} MB, catalogue.html "
          f"{(out / 'catalogue.html').stat().st_size / 1e6:.2f} MB")
    assert size < SIZE_TARGET, size
    leftovers = [p.name for p in out.rglob("*")
                 if p.name.endswith(("-wal", "-shm", ".partial")) or ".partial." in p.name]
    assert not leftovers, leftovers

    # the findings page's generated block is this run's: same counts and findings, word for
    # word
    differ = findings.page_disagreements(findings_page, findings.load_run(out / "verdicts.json"))
    assert not differ, (f"the findings page's generated block is not this run's ({differ}): run "
                        "`gfverify findings VERDICTS_JSON --page docs/findings.md`")
    # every reproduction section, headed by its experiment ID, with its figures
    md = (out / "index.md").read_text()
    # the first screen (the summary) says at which sizes the verdicts were obtained
    first = md[md.index("**Summary.**"):][:1500]
    assert "Verdicts obtained at the `quick` profile's sizes:" in first, first
    for exp in EXPERIMENTS:
        assert f"Reproduction {exp}" in md or f"{exp}:" in md, exp
    e2 = data["reproduction"]["E-000-2"]
    assert f"for **{e2['inside']} of {e2['compared']}**" in md
    assert e2["compared"] == 79 and e2["inside"] >= 40  # "most points" (measured: 72)
    pngs = {p.name for p in out.glob("*.png")}
    assert {"e000_2_probability.png", "e000_2_threshold.png", "e000_4_pl.png"} <= pngs
    assert sum(name.startswith("claim_") for name in pngs) >= 50  # per-claim figures


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python quick_report_checks.py REPORT_DIR docs/findings.md")
    check(Path(sys.argv[1]), Path(sys.argv[2]))
    print("the quick report passes tests/verify/front/quick_report_checks.py")
