"""The catalogue of claims as a Markdown page, generated from the claims themselves.

`gfverify claims --format md --builtin > docs/catalogue.md` writes it; a test checks that the
committed page is current, so the page never describes claims that are not the code's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from theory import limits
from theory.claim import Claim, Kind

_CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def _text(text: str) -> str:
    """Free text of a claim as Markdown: its ``*`` and ``_`` (v*, x_i) escaped so that no
    renderer reads them as emphasis; code spans are kept as they are."""
    out, last = [], 0
    for m in _CODE_SPAN.finditer(text):
        out += [re.sub(r"([*_])", r"\\\1", text[last:m.start()]), m.group(0)]
        last = m.end()
    out.append(re.sub(r"([*_])", r"\\\1", text[last:]))
    return "".join(out)


def markdown(claims: Iterable[Claim]) -> str:
    claims = list(claims)
    papers: dict[str, list[Claim]] = {}
    for claim in claims:
        papers.setdefault(claim.paper, []).append(claim)
    checkable = sum(c.checkable for c in claims)
    out = ["# Catalogue of claims", "",
           "Generated from the claims in `theory/` by `gfverify claims --format md "
           "--builtin` (a test "
           "fails when this page and the code disagree). "
           f"{len(claims)} claims, {checkable} checkable; statements as gfverify checks them, "
           "in the shared vocabulary (`theory/symbols.py`). Provenance tags: seed (as "
           "printed), seed-OCR (read through OCR), repo (from the authors' code), derived, "
           "inferred.", ""]
    for paper in sorted(papers):
        group = papers[paper]
        out += [f"## {paper} ({len(group)} claims, {sum(c.checkable for c in group)} "
                "checkable)", ""]
        for claim in group:
            out += _claim_lines(claim)
    return "\n".join(out).rstrip() + "\n"


def _claim_lines(c: Claim) -> list[str]:
    lines = [f"### {c.id}: {_text(c.title)}", "",
             f"- **kind**: {c.kind.value}; **source**: {c.source.reference} "
             f"[{c.source.provenance.value}]"
             + (f"; **setting**: {c.parametrization}" if c.parametrization else "")
             + (f", {c.loss} loss" if c.loss else ""),
             f"- **statement**: $${c.latex()}$$"]
    if c.setting:
        lines.append("- **assumptions**: " + "; ".join(f"{_text(a.name)}: {_text(a.text)}"
                                                        for a in c.setting))
    params = {k: ("fitted" if v is None else str(v)) for k, v in c.parameters.items()}
    if params:
        lines.append("- **parameters**: "
                     + ", ".join(f"{_text(k)} = {_text(v)}" for k, v in params.items())
                     + (f" ({_text(c.parameter_notes)})" if c.parameter_notes else ""))
    if c.checkable:
        lines.append(f"- **checked by**: {_text(c.measures)}")
        if c.kind is Kind.LIMIT:
            lines.append(f"- **checked as a limit**: {_text(limits.describe(c))}")
    else:
        lines.append(f"- **not checked**: {_text(c.not_checkable_reason)}")
    lines += [f"- **flag**: {_text(flag)}" for flag in c.flags]
    if c.notes:
        lines.append(f"- **notes**: {_text(c.notes)}")
    return lines + [""]
