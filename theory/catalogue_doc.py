"""The catalogue of claims as a Markdown page, generated from the claims themselves.

`gfverify claims --format md --builtin > docs/catalogue.md` writes it; a test checks that the
committed page is current, so the page never describes claims that are not the code's.
"""

from __future__ import annotations

from collections.abc import Iterable

from theory.claim import Claim


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
    lines = [f"### {c.id}: {c.title}", "",
             f"- **kind**: {c.kind.value}; **source**: {c.source.reference} "
             f"[{c.source.provenance.value}]"
             + (f"; **setting**: {c.parametrization}" if c.parametrization else "")
             + (f", {c.loss} loss" if c.loss else ""),
             f"- **statement**: $${c.latex()}$$"]
    if c.setting:
        lines.append("- **assumptions**: " + "; ".join(f"{a.name}: {a.text}"
                                                        for a in c.setting))
    params = {k: ("fitted" if v is None else str(v)) for k, v in c.parameters.items()}
    if params:
        lines.append("- **parameters**: " + ", ".join(f"{k} = {v}" for k, v in params.items())
                     + (f" ({c.parameter_notes})" if c.parameter_notes else ""))
    if c.checkable:
        lines.append(f"- **checked by**: {c.measures}")
    else:
        lines.append(f"- **not checked**: {c.not_checkable_reason}")
    lines += [f"- **flag**: {flag}" for flag in c.flags]
    if c.notes:
        lines.append(f"- **notes**: {c.notes}")
    return lines + [""]
