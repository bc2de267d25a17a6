"""The report as LaTeX for a paper's appendix (`gfverify report --format latex`).

Writes, beside the HTML, ``DIR/latex/``:

- ``gfverify-report.tex``: a fragment to ``\\input``: the per-paper counts, the verdict
  table (claim, verdict, instances, worst margin, error, time, relation in the paper's
  notation), the findings, the tightness table and the reproductions' figures;
- ``figures/*.pdf``: those figures as vector PDFs (written by the sections themselves,
  `verify.results.figures.pdf_copies`);
- ``main.tex``: a minimal document that inputs the fragment, so that
  ``pdflatex main.tex`` in that directory compiles it as it is (run it twice: longtable
  aligns its columns on the second pass). The preamble a paper
  needs is `verify.report.doc.LATEX_PACKAGES`.
"""

from __future__ import annotations

from pathlib import Path

from verify.report import front, verdict_table
from verify.report.doc import (
    LATEX_PACKAGES,
    Bullets,
    Figure,
    Heading,
    Paragraph,
    Table,
    to_latex,
)
from verify.results import mutants as mutants_mod

DIRECTORY = "latex"
FRAGMENT = "gfverify-report.tex"
FIGURES = "figures"


def fragment_blocks(run: dict, suite_result, reproductions, tight_rows) -> list:
    """The fragment's blocks (see the module docstring)."""
    b: list = [Heading(2, "Bound checks by gfverify"),
               Paragraph(f"gfverify {run['version']} (commit {run['commit'][:12]}), profile "
                         f"`{run['profile']}`, seed {run['seed']}. A margin is the room a "
                         "claim leaves (positive: it holds); a margin within the numerical "
                         "error is INCONCLUSIVE.")]
    if suite_result is not None:
        counts = front.pack_counts(suite_result["claims"])
        b += [Heading(3, "Claims checked"),
              Table(["paper", "claims", "checked", *front.OUTCOMES],
                    [[p["pack"], p["claims"], p["checked"], *(p[o] for o in front.OUTCOMES)]
                     for p in counts if p["claims"]], latex_columns="lrrrrrr")]
        header, rows, _ = verdict_table.rows(suite_result["claims"])
        certified = header[-1] == "certified"
        fits = verdict_table.FIT_HEADER in header
        # the HTML table's columns without kind and instance, picked by name (the fit and
        # certified columns are there only when some row has them)
        kept = ["claim", "verdict", "instances: outcomes", "worst margin", "error",
                *([verdict_table.FIT_HEADER] if fits else []), "t", "relation",
                *(["certified"] if certified else [])]
        where = [header.index(name) for name in kept]
        short = [[r[k] for k in where] for r in rows]
        narrow = 0.02 * (fits + certified)  # the first columns give room to the extra ones
        columns = (f"{_ragged(0.17 - narrow)}{_ragged(0.09)}{_ragged(0.14 - narrow)}rrr"
                   + ("l" if fits else "")
                   + f"{_ragged(0.27 - 0.07 * (fits + certified))}"
                   + (f"{_ragged(0.1)}" if certified else ""))
        b += [Heading(3, "Verdicts"),
              Table(["claim", "verdict", "instances", "worst margin", "error",
                     *([verdict_table.FIT_HEADER] if fits else []), "t", "relation",
                     *(["certified"] if certified else [])], short,
                    latex_columns=columns),
              Paragraph(mutants_mod.summary_line(suite_result["mutant_score"]) + "."),
              Heading(3, "Findings")]
        found = front.suite_findings(suite_result)
        b.append(Bullets([f.markdown()[2:] for f in found]) if found
                 else Paragraph("The suite recorded no findings."))
    if tight_rows:
        b += [Heading(3, "How tight the constants are"),
              Table(["claim", "constant", "proved", "sharpest observed", "slack", "verdict"],
                    [[r[0], r[1], r[3], r[4], r[5], r[7]] for r in tight_rows],
                    latex_columns=f"l{_ragged(0.2)}lll{_ragged(0.2)}")]
    figures = [(r, f) for r in reproductions for f in r.figures]
    if figures:
        b.append(Heading(3, "Reproductions"))
        for r, f in figures:
            b.append(Figure(Path(FIGURES) / Path(f).with_suffix(".pdf").name,
                            f"{r.experiment}: {r.title}."))
    return b


def _ragged(width: float) -> str:
    """A left-aligned paragraph column of ``width`` times the line (package array)."""
    return f">{{\\raggedright\\arraybackslash}}p{{{width}\\linewidth}}"


def main_document() -> str:
    packages = "".join(f"\\usepackage{{{p}}}\n" for p in LATEX_PACKAGES)
    return ("\\documentclass[11pt]{article}\n\\usepackage[margin=2cm]{geometry}\n" + packages
            + "\\begin{document}\n\\input{" + FRAGMENT.removesuffix(".tex") + "}\n"
            "\\end{document}\n")


def write(out: Path, blocks: list, write_text) -> Path:
    """Write the fragment and its wrapper into ``out/latex`` with ``write_text(path, text)``
    (the report's atomic writer); the figures are already there. Returns the fragment."""
    directory = Path(out) / DIRECTORY
    directory.mkdir(parents=True, exist_ok=True)
    fragment = directory / FRAGMENT
    write_text(fragment, to_latex(blocks))
    write_text(directory / "main.tex", main_document())
    return fragment
