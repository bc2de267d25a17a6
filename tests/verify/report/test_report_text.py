"""What the report's verdict table shows in its relation column: the relation in the
paper's notation, in pieces a narrow column wraps between (the report at 1,400 px had
relations cut off at the right edge), the bound of an event time (not its bare name), and
numbers kept on one line."""

from __future__ import annotations

import re
from pathlib import Path

import sympy as sp

import theory
from verify.report import verdict_table as V
from verify.report.doc import Table, to_html


def _relations(claim):
    return sp.sympify(claim.statement).atoms(sp.core.relational.Relational)


def test_an_event_time_row_shows_its_bound():
    """S002-T1's worst margin is at the event t_conv: the cell sets t_conv <= c_T
    ln(1/lam)/||D_-||, in the paper's notation, not the name ``t_conv``."""
    cell = V.relation_cell("S002-T1", "t_conv")
    assert cell.startswith("$") and "t_{\\mathrm{conv}}" in cell and "c_T" in cell
    assert "\\le" in cell and "`" not in cell
    assert "\\le" in V.relation_cell("S002-L3[eps 1/20]", "t_2")  # a variant's row too
    assert V.relation_cell("S002-T1", "not_a_time") == "`not_a_time`"


def test_every_relation_of_the_catalogue_fits_a_cell_in_pieces():
    """Each relation is set as formulas (its sides, long sums and maxima at their terms)
    that a line breaks between; no piece shows more than MAX_PIECE characters (about 300
    px in the table), and a relation that cannot be cut so is named, with a link to its
    catalogue entry, never cut off."""
    for claim in theory.claims():
        if not claim.checkable:
            continue
        for rel in _relations(claim):
            cell = V.relation_cell(claim.id, sp.sstr(rel))
            pieces = re.findall(r"\$([^$]+)\$", cell)
            if not pieces:
                assert f"(catalogue.html#{claim.id})" in cell or cell.startswith("`"), cell
                continue
            assert all(V.shown_length(p) <= V.MAX_PIECE for p in pieces), (claim.id, cell)
    # S002-F2's relation is two formulas: its left side, then "<=" and its right side
    f2 = next(iter(_relations(theory.get("S002-F2"))))
    assert V.relation_cell("S002-F2", sp.sstr(f2)).count("$") == 4


def test_the_verdict_table_keeps_numbers_whole_and_wraps_relations():
    row = {"claim": "S001-L13", "kind": "pointwise bound", "verdict": "HOLDS", "instances": 4,
           "HOLDS": 2, "INAPPLICABLE": 2, "worst_margin": 1.48e-190, "error": 1e-198,
           "where_parts": {"instance": "860b9231ada01760", "seed": 27, "t": 11.74,
                           "part": sp.sstr(sorted(_relations(theory.get("S001-L13")),
                                                  key=sp.sstr)[0])}}
    header, rows, anchors = V.rows([row])
    page = to_html([Table(header, rows, anchors, nowrap=V.NUMBER_COLUMNS)], "t")
    cells = re.findall(r"<td[^>]*>.*?</td>", page, flags=re.S)
    assert cells[4].startswith('<td class="nowrap">') and "1e-198" in cells[5]
    assert cells[8].count("<math") >= 2  # the relation in pieces


def test_every_citation_of_the_undistributed_catalogue_is_resolved_in_the_glossary():
    """The claims' flags and the sections cite "THEORY.md section 8.N", a file the reader
    does not have: the glossary states what each cited point says."""
    from theory.catalogue_doc import markdown
    from verify.report.front import GLOSSARY

    glossary = dict(GLOSSARY)
    points = glossary["THEORY.md section 8.1 to 8.10"]
    cited = set(re.findall(r"THEORY(?:\.md)? section 8\.(\d+)", markdown(theory.claims())))
    gd = Path(__file__).resolve().parents[3] / "papers" / "s002" / "repro_gd.py"
    cited |= set(re.findall(r"THEORY\.md section 8\.(\d+)", gd.read_text()))
    assert cited and cited <= {str(k) for k in range(1, 11)}
    for k in sorted(cited, key=int):
        assert f"8.{k} " in points, k
    assert "not distributed, so nothing here depends on reading it" in glossary[
        "THEORY, THEORY.md"]


def test_the_verdict_table_wraps_ids_kinds_and_fits_between_words():
    """The quick report of 2026-12-06 at 1,400 px: the table's columns at their narrowest
    (claim ids with a variant on one line, ``trapping/monotonicity``, a fit and its band on
    one line) summed to 1,445 px in a 1,216 px column. The claim's id is its link and stays
    whole, its variant follows where the line may break; a kind may break after its slash;
    the fit breaks between its exponent and its band; single numbers stay whole."""
    row = {"claim": "CEL23-L4[lam 4^-7]", "kind": "trapping/monotonicity", "verdict": "HOLDS",
           "instances": 2, "HOLDS": 2, "worst_margin": -3.77e-6, "error": 1e-5,
           "fit": {"exponent": 0.499, "lo": 0.498, "hi": 0.5},
           "where_parts": {"instance": "1bc6e5da4f98558e", "seed": 1, "t": 1.439,
                           "part": "Eq(MaxGradNorm(t), 0)"}}
    header, rows, anchors = V.rows([row])
    page = to_html([Table(header, rows, anchors, nowrap=V.number_columns(header),
                          wrap=V.wrapped_columns(header))], "t")
    cells = dict(zip(header, re.findall(r"<td[^>]*>.*?</td>", page, flags=re.S), strict=True))
    claim = cells["claim"]
    assert claim.startswith('<td class="wrap">')
    assert re.search(r'<a href="catalogue.html#CEL23-L4">CEL23-L4</a>\[lam 4\^-7\]', claim), claim
    assert cells["kind"] == '<td class="wrap">trapping/\u200bmonotonicity</td>'
    assert cells[V.FIT_HEADER].startswith('<td class="wrap">')
    for name in ("worst margin", "error", "t"):
        assert cells[name].startswith('<td class="nowrap">'), name
    assert "td.wrap a, td.wrap code { white-space: nowrap; }" in page
    # the Markdown and LaTeX copies read the variant as text
    from verify.report.doc import inline_latex
    assert "[lam 4" in inline_latex(rows[0][0]) and "\\[" not in inline_latex(rows[0][0])
