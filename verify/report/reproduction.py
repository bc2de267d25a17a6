"""What one reproduction section of the report returns.

Each section of the report (an experiment of a paper, such as E-000-2, or a table such as
S002's foundation claims) is one module named in a pack's ``reproductions``
(`theory.packs`), with a function::

    run(out: Path, profile: str, *, seed: int = 0, show_progress: bool = True,
        store: Path | None = None[, instances: int | None = None]) -> Reproduction

that simulates (or reads a sweep store), writes its PNG figures into ``out``
(through `verify.results.figures.save_png`) and returns the report blocks
(`verify.report.doc`) of its section, headed by the experiment's ID, plus the
numbers behind them for ``verdicts.json``. Optional: ``instances`` (a section that draws
random instances receives ``gfverify report --instances`` there) and a function
``preflight()`` that the report calls before any work, raising an `verify.errors.InputError`
when an input the section needs (published data) is missing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Reproduction:
    """One report section: ``blocks`` for index.md/index.html, ``data`` for verdicts.json.

    ``findings`` are one-line statements (with their evidence) of where the paper's
    claim and the measurement disagree; the report collects them in its Findings
    section. ``summary``: a few lines of headline numbers that ``gfverify report`` prints
    under the section's title.

    Attributes
    ----------
    experiment
        The experiment's ID (``"E-001-2"``), or several joined by ", ". The report's
        summary links to the first, the anchor of the section's heading that holds it;
        ``data`` is written under it.
    title
        What the section reproduces, in a few words; printed after the ID (summary box,
        ``gfverify report``'s output, the LaTeX figure captions).
    blocks
        The section's content: `verify.report.doc` blocks (`Heading`, `Paragraph`,
        `Table`, `Figure`, ...; the older tuples ``("h", level, text)``, ... are read too),
        headed by a heading that holds the experiment's ID. Every number in them comes
        from the run that returns them.
    figures
        The PNG figures the section wrote into ``out`` (through
        `verify.results.figures.save_png`), the ones its `Figure` blocks show; the LaTeX fragment
        uses their PDF copies.
    data
        The numbers behind the blocks (JSON-serialisable), written to ``verdicts.json``
        under ``reproduction`` -> ``experiment``.
    wall_time
        The section's wall time in seconds (the report's provenance lists it).
    findings
        One line (Markdown) per disagreement between the paper's claim and the
        measurement, with its evidence; the report's Findings section lists them and the
        summary box flags the section. Empty (the default): none.
    summary
        A few lines of headline numbers: ``gfverify report`` prints them under the
        section's title, and the first is the section's line in the report's summary
        box. Empty (the default): none.
    """

    experiment: str  # e.g. "E-001-2", or several joined by ", "
    title: str
    blocks: list  # verify.report.doc blocks (Heading, Paragraph, Table, Figure, ...)
    figures: tuple[Path, ...]
    data: dict
    wall_time: float
    findings: tuple[str, ...] = field(default_factory=tuple)
    summary: tuple[str, ...] = field(default_factory=tuple)  # lines `gfverify report` prints
