"""What one reproduction section of the report returns.

Each experiment of THEORY.md section 5 (E-000-1 ...) has one module
(``verify/repro_*.py``) with a function

    run(out: Path, profile: str, seed: int = 0, show_progress: bool = True,
        store: Path | None = None) -> Reproduction

that simulates (or reads a sweep store), writes its PNG figures into ``out``
(through `verify.figures.save_png`) and returns the report blocks
(`verify.report_doc`) of its section, headed by the experiment's ID, plus the
numbers behind them for ``verdicts.json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Reproduction:
    """One report section: ``blocks`` for index.md/index.html, ``data`` for verdicts.json.

    ``findings`` are one-line statements (with their evidence) of where the paper's
    claim and the measurement disagree; the report collects them in its Findings
    section.
    """

    experiment: str  # e.g. "E-001-2", or several joined by ", "
    title: str
    blocks: list[tuple]
    figures: tuple[Path, ...]
    data: dict
    wall_time: float
    findings: tuple[str, ...] = field(default_factory=tuple)
