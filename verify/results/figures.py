"""Figures: matplotlib without a screen, and PNGs (optionally with PDF copies) written
atomically.

``save_png`` writes to a temporary name and renames, so an interrupted run never
leaves a half-written figure where a report points to it.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

_PDF_DIR: list[Path] = []  # where `save_png` also writes a PDF copy (see `pdf_copies`)


@contextlib.contextmanager
def pdf_copies(directory):
    """While active, every figure `save_png` writes is also written, as a vector PDF of the
    same name, into ``directory`` (the report's LaTeX export)."""
    _PDF_DIR.append(Path(directory))
    try:
        yield Path(directory)
    finally:
        _PDF_DIR.pop()


def pyplot():
    """matplotlib.pyplot on the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def legend(ax, **kwargs) -> None:
    """``ax.legend(**kwargs)`` when ``ax`` has a labelled artist (matplotlib warns on a
    terminal otherwise)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**kwargs)


def save_png(fig, path, dpi: int = 110) -> Path:
    """Save ``fig`` to ``path`` (parents created) atomically, then close it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial.png")
    fig.savefig(tmp, dpi=dpi)
    if _PDF_DIR:
        pdf = _PDF_DIR[-1] / path.with_suffix(".pdf").name
        pdf.parent.mkdir(parents=True, exist_ok=True)
        partial = pdf.with_name(pdf.name + ".partial.pdf")
        fig.savefig(partial)
        os.replace(partial, pdf)
    pyplot().close(fig)
    os.replace(tmp, path)
    return path
